/*
 * sim/link_internal.h: the engine's table of link parameters. Internal to sim/.
 *
 * Most runs give every link the same parameters, so the table is a default
 * plus a hash of the directed links that differ (an override, or down). When
 * that hash is empty a lookup is one branch.
 */
#ifndef DPG_SIM_LINK_INTERNAL_H
#define DPG_SIM_LINK_INTERNAL_H

#include "sim/link.h"

/* Link parameters with the constant latency pre-converted to nanoseconds,
 * and a measured model's data (a reference, or NULL). */
typedef struct {
  SimLinkParams params;
  SimTime constant_ns;
  SimLatencyData *data;
} SimLinkModel;

/* Milliseconds to the nearest nanosecond; NaN and negatives (impossible for
 * checked models) give 0, times beyond SIM_LATENCY_MAX saturate. */
static inline SimTime sim_ms_to_ns(double ms) {
  double ns = ms * 1e6;
  if (!(ns > 0))
    return 0;
  if (ns >= (double)SIM_LATENCY_MAX)
    return SIM_LATENCY_MAX;
  return (SimTime)(ns + 0.5);
}

/* The keys of a links:, country: or geo: spec (@params points into @spec)
 * into @l, whose kind is set; SIM_ERROR_PARSE as sim_latency_parse. */
gboolean sim_latency_parse_measured(const char *spec, const char *params, SimLatency *l,
                                    GError **error);

/* How the graph names its nodes, for the files of a measured model (NULL
 * find: nodes are named by their ids, a links file's other labels numbered
 * by first appearance). */
typedef struct {
  SimNodeFind find;
  gconstpointer graph;
} SimNodeNames;

/* The node @tok names (a token of @file's line @line, NUL-terminated):
 * digits are read as a number and looked up in decimal, leading zeros
 * dropped (as the graph loader names an edge list's nodes); surrounding
 * double quotes go. SIM_ERROR_FILE "FILE:LINE: node 'X' is not in the
 * graph" when @names has no such node. O(length of @tok + the lookup). */
gboolean sim_node_names_find(const SimNodeNames *names, const char *file, gsize line,
                             const char *tok, guint32 *id, GError **error);

/* sim_data_file_read: a links, country or geo file's text, gzip inflated
 * (spec_file_read_text, or spec_file_read_text_max when @max > 0). Every
 * reader of these files goes through it, so that its errors have one code
 * each: SIM_ERROR_IO for a file that cannot be opened or read, the run's
 * failure (exit status 1) as a graph or churn file's TOPO_ERROR_IO;
 * SIM_ERROR_FILE for what does not read as text (a cut or corrupt gzip, a
 * line or table too long). The message is spec_file_read's, naming @path.
 * O(file size). */
gboolean sim_data_file_read(const char *path, gsize max, char **text, gsize *len, GError **error);

/* latency_geo.c: the node positions of a geo: model and its delays (the
 * contracts of sim_latency_data_load, _delay, _describe and _position). */
typedef struct SimGeoNodes SimGeoNodes;
SimGeoNodes *sim_geo_nodes_load(const SimLatency *latency, const SimNodeNames *names,
                                GError **error);
void sim_geo_nodes_free(SimGeoNodes *g);
gboolean sim_geo_nodes_delay(const SimGeoNodes *g, guint32 from, guint32 to, SimTime *ns);
gboolean sim_geo_nodes_position(const SimGeoNodes *g, guint32 node, double *lon, double *lat);
char *sim_geo_nodes_describe(const SimGeoNodes *g);

typedef struct {
  gint64 key; /* (from << 32) | to; the hash key points here */
  SimLinkModel model;
  gboolean has_model; /* FALSE: the default applies */
  gboolean down;
} SimLinkEntry;

typedef struct {
  SimLinkModel def;
  GHashTable *entries; /* &entry->key -> entry (owned) */
  GHashTable *loaded;  /* measured spec -> SimLatencyData (owned refs) */
  SimNodeNames names;  /* how the measured files name the nodes */
} SimLinkTable;

void sim_link_table_init(SimLinkTable *t);
void sim_link_table_clear(SimLinkTable *t);
/* Validates @params (SIM_ERROR_INVALID_ARGUMENT) and compiles it into
 * @model; a measured latency loads its data (one load per table and spec:
 * the table keeps what it loaded). @model's previous data is released. */
gboolean sim_link_model_set(SimLinkTable *t, SimLinkModel *model, const SimLinkParams *params,
                            GError **error);
/* The model's one-way delay of @from -> @to; FALSE (with an error naming the
 * link and the file) when a measured model has none for it. */
gboolean sim_link_model_delay(const SimLinkModel *model, guint32 from, guint32 to, SimTime *ns,
                              GError **error);
/* Overrides (or with NULL reverts) the directed link; validates first. */
gboolean sim_link_table_set(SimLinkTable *t, guint32 from, guint32 to, const SimLinkParams *params,
                            GError **error);
void sim_link_table_set_down(SimLinkTable *t, guint32 from, guint32 to, gboolean down);

static inline gint64 sim_link_key(guint32 from, guint32 to) {
  return (gint64)(((guint64)from << 32) | to);
}

/* The model of from -> to; *down tells whether the link is down. */
static inline const SimLinkModel *sim_link_table_lookup(const SimLinkTable *t, guint32 from,
                                                        guint32 to, gboolean *down) {
  if (G_LIKELY(g_hash_table_size(t->entries) == 0)) {
    *down = FALSE;
    return &t->def;
  }
  gint64 key = sim_link_key(from, to);
  const SimLinkEntry *e = g_hash_table_lookup(t->entries, &key);
  if (!e) {
    *down = FALSE;
    return &t->def;
  }
  *down = e->down;
  return e->has_model ? &e->model : &t->def;
}

#endif /* DPG_SIM_LINK_INTERNAL_H */
