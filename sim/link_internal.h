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

/* Link parameters with the constant latency pre-converted to nanoseconds. */
typedef struct {
  SimLinkParams params;
  SimTime constant_ns;
} SimLinkModel;

typedef struct {
  gint64 key; /* (from << 32) | to; the hash key points here */
  SimLinkModel model;
  gboolean has_model; /* FALSE: the default applies */
  gboolean down;
} SimLinkEntry;

typedef struct {
  SimLinkModel def;
  GHashTable *entries; /* &entry->key -> entry (owned) */
} SimLinkTable;

void sim_link_table_init(SimLinkTable *t);
void sim_link_table_clear(SimLinkTable *t);
/* Validates @params (SIM_ERROR_INVALID_ARGUMENT) and compiles it into @model. */
gboolean sim_link_model_set(SimLinkModel *model, const SimLinkParams *params, GError **error);
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
