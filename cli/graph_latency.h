/*
 * cli/graph_latency.h: internal to `dpgossip graph`: what a measured latency
 * model (--latency) gives the graph's links, and the nodes it places.
 */
#ifndef DPG_CLI_GRAPH_LATENCY_H
#define DPG_CLI_GRAPH_LATENCY_H

#include <json-glib/json-glib.h>

#include "topologies/topologies.h"

G_BEGIN_DECLS

typedef struct {
  char *spec, *model; /* the spec as given; what was loaded (one line) */
  guint64 links;      /* directed links: both directions of every edge */
  double mean_ms, min_ms, max_ms;
  guint located; /* nodes with a position (geo), 0 for other models */
} CliGraphLatency;

/* The one-way delays of measured latency model @spec (links:, country:,
 * geo:) on every edge of @g, both ways, into *@st (cli_graph_latency_clear).
 * Errors: the spec's and the file's; an edge the model has no delay for, as
 * a run refuses it; SIM_ERROR_PARSE for a model that is not measured (the
 * same delay law on every link). O(file + m). */
gboolean cli_graph_latency_stats(const TopoGraph *g, const char *spec, CliGraphLatency *st,
                                 GError **error);
/* As lines of `graph`'s table. */
void cli_graph_latency_table(const CliGraphLatency *st);
/* As member "latency" of the object @b is building. */
void cli_graph_latency_json(JsonBuilder *b, const CliGraphLatency *st);
void cli_graph_latency_clear(CliGraphLatency *st);

G_END_DECLS

#endif
