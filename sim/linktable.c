/* sim/linktable.c: per-link overrides and down links (see link_internal.h). */
#include "sim/link_internal.h"

void sim_link_table_init(SimLinkTable *t) {
  SimLinkParams p = {.latency = {.kind = SIM_LATENCY_CONSTANT, .ms = 0}, .loss = 0};
  sim_link_model_set(&t->def, &p, NULL);
  t->entries = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
}

void sim_link_table_clear(SimLinkTable *t) {
  if (t->entries)
    g_hash_table_destroy(t->entries);
  t->entries = NULL;
}

gboolean sim_link_model_set(SimLinkModel *model, const SimLinkParams *params, GError **error) {
  if (!sim_latency_check(&params->latency, error))
    return FALSE;
  if (!(params->loss >= 0 && params->loss <= 1)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "link loss probability %g is outside [0, 1]", params->loss);
    return FALSE;
  }
  model->params = *params;
  model->constant_ns = params->latency.kind == SIM_LATENCY_CONSTANT
                           ? sim_latency_sample(&params->latency, NULL)
                           : 0;
  return TRUE;
}

static SimLinkEntry *get_entry(SimLinkTable *t, guint32 from, guint32 to, gboolean create) {
  gint64 key = sim_link_key(from, to);
  SimLinkEntry *e = g_hash_table_lookup(t->entries, &key);
  if (!e && create) {
    e = g_new0(SimLinkEntry, 1);
    e->key = key;
    g_hash_table_insert(t->entries, &e->key, e);
  }
  return e;
}

/* An entry that says nothing the default does not goes, to keep the empty-table
 * fast path for runs that bring links back up. */
static void maybe_drop(SimLinkTable *t, SimLinkEntry *e) {
  if (!e->has_model && !e->down)
    g_hash_table_remove(t->entries, &e->key);
}

gboolean sim_link_table_set(SimLinkTable *t, guint32 from, guint32 to, const SimLinkParams *params,
                            GError **error) {
  if (params) {
    SimLinkModel m;
    if (!sim_link_model_set(&m, params, error))
      return FALSE;
    SimLinkEntry *e = get_entry(t, from, to, TRUE);
    e->model = m;
    e->has_model = TRUE;
  } else {
    SimLinkEntry *e = get_entry(t, from, to, FALSE);
    if (e) {
      e->has_model = FALSE;
      maybe_drop(t, e);
    }
  }
  return TRUE;
}

void sim_link_table_set_down(SimLinkTable *t, guint32 from, guint32 to, gboolean down) {
  SimLinkEntry *e = get_entry(t, from, to, down);
  if (!e)
    return;
  e->down = down;
  maybe_drop(t, e);
}
