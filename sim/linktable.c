/* sim/linktable.c: per-link overrides and down links (see link_internal.h). */
#include "sim/link_internal.h"

static void entry_free(gpointer p) {
  SimLinkEntry *e = p;
  g_clear_pointer(&e->model.data, sim_latency_data_unref);
  g_free(e);
}

void sim_link_table_init(SimLinkTable *t) {
  SimLinkParams p = {.latency = {.kind = SIM_LATENCY_CONSTANT, .ms = 0}, .loss = 0};
  t->def = (SimLinkModel){0};
  t->names = (SimNodeNames){0};
  t->entries = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, entry_free);
  t->loaded = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify)sim_latency_data_unref);
  sim_link_model_set(t, &t->def, &p, NULL);
}

void sim_link_table_clear(SimLinkTable *t) {
  g_clear_pointer(&t->entries, g_hash_table_destroy);
  g_clear_pointer(&t->loaded, g_hash_table_destroy);
  g_clear_pointer(&t->def.data, sim_latency_data_unref);
}

/* The data of a measured latency, loaded on first use by this table. */
static SimLatencyData *measured_data(SimLinkTable *t, const SimLatency *l, GError **error) {
  char *key = sim_latency_to_string(l);
  SimLatencyData *d = g_hash_table_lookup(t->loaded, key);
  if (d != NULL) {
    g_free(key);
    return sim_latency_data_ref(d);
  }
  d = sim_latency_data_load_named(l, t->names.find, t->names.graph, error);
  if (d == NULL) {
    g_free(key);
    return NULL;
  }
  g_hash_table_insert(t->loaded, key, sim_latency_data_ref(d));
  return d;
}

gboolean sim_link_model_set(SimLinkTable *t, SimLinkModel *model, const SimLinkParams *params,
                            GError **error) {
  if (!sim_latency_check(&params->latency, error))
    return FALSE;
  if (!(params->loss >= 0 && params->loss <= 1)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "link loss probability %g is outside [0, 1]", params->loss);
    return FALSE;
  }
  SimLatencyData *data = NULL;
  if (SIM_LATENCY_IS_MEASURED(&params->latency) &&
      (data = measured_data(t, &params->latency, error)) == NULL)
    return FALSE;
  g_clear_pointer(&model->data, sim_latency_data_unref);
  model->params = *params;
  model->data = data;
  model->constant_ns = params->latency.kind == SIM_LATENCY_CONSTANT
                           ? sim_latency_sample(&params->latency, NULL)
                           : 0;
  return TRUE;
}

gboolean sim_link_model_delay(const SimLinkModel *model, guint32 from, guint32 to, SimTime *ns,
                              GError **error) {
  if (sim_latency_data_delay(model->data, from, to, ns))
    return TRUE;
  if (model->params.latency.kind == SIM_LATENCY_GEO) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "link %u -> %u has no latency: %s does not place node %u: the node file must "
                "place every node of the graph (ids 0..n-1)",
                from, to, model->params.latency.file, MAX(from, to));
    return FALSE;
  }
  g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
              "link %u -> %u has no latency in %s (nor %u -> %u): the latency file must list "
              "every link of the graph in one direction at least",
              from, to, model->params.latency.file, to, from);
  return FALSE;
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
    SimLinkModel m = {0};
    if (!sim_link_model_set(t, &m, params, error))
      return FALSE;
    SimLinkEntry *e = get_entry(t, from, to, TRUE);
    g_clear_pointer(&e->model.data, sim_latency_data_unref);
    e->model = m;
    e->has_model = TRUE;
  } else {
    SimLinkEntry *e = get_entry(t, from, to, FALSE);
    if (e) {
      g_clear_pointer(&e->model.data, sim_latency_data_unref);
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
