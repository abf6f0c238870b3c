/*
 * scenarios/scenario.c: a loaded scenario: overrides, validation, the key
 * table as text, cancellation.
 */
#include <string.h>

#include "scenarios/internal.h"

static gint cancel_flag;

void scen_cancel(void) {
  g_atomic_int_set(&cancel_flag, 1);
}

void scen_cancel_reset(void) {
  g_atomic_int_set(&cancel_flag, 0);
}

gboolean scen_cancelled(void) {
  return g_atomic_int_get(&cancel_flag) != 0;
}

const gint *scen_cancel_flag(void) {
  return &cancel_flag;
}

static ScenScenario *wrap(ScenDoc *doc) {
  ScenScenario *sc = g_new0(ScenScenario, 1);
  sc->doc = doc;
  sc->notes = g_ptr_array_new_with_free_func(g_free);
  sc->graphs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify)topo_graph_free);
  sc->graph_errors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  sc->digests = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  return sc;
}

ScenScenario *scen_scenario_load(const char *path, GError **error) {
  g_return_val_if_fail(path != NULL, NULL);
  ScenDoc *doc = scen_doc_load(path, error);
  return doc ? wrap(doc) : NULL;
}

ScenScenario *scen_scenario_load_data(const char *data, gsize len, const char *path) {
  return wrap(scen_doc_load_data(data, len, path, NULL));
}

void scen_scenario_free(ScenScenario *sc) {
  if (sc == NULL)
    return;
  scen_doc_free(sc->doc);
  g_ptr_array_unref(sc->notes);
  if (sc->axes)
    g_ptr_array_unref(sc->axes);
  g_hash_table_unref(sc->graphs);
  g_hash_table_unref(sc->graph_errors);
  g_hash_table_unref(sc->digests);
  g_free(sc);
}

gboolean scen_scenario_set(ScenScenario *sc, const char *item, GError **error) {
  g_return_val_if_fail(sc != NULL && item != NULL, FALSE);
  if (!scen_doc_add_override(sc->doc, item, error))
    return FALSE;
  const ScenOverride *o = g_ptr_array_index(sc->doc->overrides, sc->doc->overrides->len - 1);
  if (!g_str_equal(o->section, "sweep")) {
    /* A value given on the command line replaces that key's sweep. */
    char *dotted = g_strdup_printf("%s.%s", o->section, o->key);
    if (scen_doc_get_raw(sc->doc, "sweep", dotted, NULL) != NULL) {
      char *drop = g_strdup_printf("sweep.%s=", dotted);
      scen_doc_add_override(sc->doc, drop, NULL);
      g_free(drop);
    }
    g_free(dotted);
  }
  if (sc->axes) {
    g_ptr_array_unref(sc->axes);
    sc->axes = NULL;
  }
  return TRUE;
}

/* The axes of the sweep (cached), problems ignored. */
static const GPtrArray *axes_of(ScenScenario *sc) {
  if (sc->axes == NULL)
    sc->axes = scen_sweep_axes(sc->doc, NULL);
  return sc->axes;
}

guint64 scen_scenario_n_points(ScenScenario *sc) {
  return scen_sweep_count(axes_of(sc));
}

void scen_scenario_collect(ScenScenario *sc, ScenProblems *ps, ScenPointVisit visit,
                           gpointer data) {
  g_ptr_array_set_size(sc->notes, 0);
  for (guint i = 0; i < sc->doc->syntax->items->len; i++) {
    const ScenProblem *p = g_ptr_array_index(sc->doc->syntax->items, i);
    scen_problems_add(ps, (ScenLoc){p->file, p->line}, p->what, "%s", p->message);
  }
  scen_schema_check_doc(sc->doc, ps);
  const GPtrArray *axes = axes_of(sc);
  guint64 n = scen_sweep_count(axes);
  if (n > 1000000)
    n = 0; /* reported by the schema check */
  guint *items = g_new0(guint, MAX(axes->len, 1));
  for (guint64 i = 0; i < n; i++) {
    scen_sweep_point(axes, i, items);
    ScenPointValues pv = {axes, items};
    ScenConfig *c = scen_config_resolve(sc, &pv, ps);
    if (c != NULL && visit != NULL)
      visit(c, i, data);
    scen_config_free(c);
  }
  g_free(items);
  scen_problems_sort(ps);
}

char **scen_scenario_validate(ScenScenario *sc) {
  g_return_val_if_fail(sc != NULL, NULL);
  ScenProblems *ps = scen_problems_new();
  scen_scenario_collect(sc, ps, NULL, NULL);
  GPtrArray *out = g_ptr_array_new();
  for (guint i = 0; i < ps->items->len; i++)
    g_ptr_array_add(out, scen_problem_format(g_ptr_array_index(ps->items, i)));
  g_ptr_array_add(out, NULL);
  scen_problems_free(ps);
  return (char **)g_ptr_array_free(out, FALSE);
}

char **scen_scenario_notes(ScenScenario *sc) {
  g_return_val_if_fail(sc != NULL, NULL);
  char **out = g_new0(char *, sc->notes->len + 1);
  for (guint i = 0; i < sc->notes->len; i++)
    out[i] = g_strdup(g_ptr_array_index(sc->notes, i));
  return out;
}

/* The protocol registry's names, as listed_keys takes them (static). */
static const char *protocol_names(gboolean help) {
  static const char *names = NULL;
  (void)help;
  if (g_once_init_enter(&names)) {
    char *list = proto_registry_names();
    g_once_init_leave(&names, g_intern_string(list));
    g_free(list);
  }
  return names;
}

/* Spec-valued keys whose kinds a module's table lists: their help is that
 * list, then the schema row's help after "; ". */
static const struct {
  const char *section, *key;
  const char *(*kinds)(gboolean help);
} listed_keys[] = {
    {"topology", "schedule", topo_schedule_kinds_text},
    {"protocol", "name", protocol_names},
};

char *scen_keys_describe(void) {
  guint n;
  const ScenKeyInfo *k = scen_schema_keys(&n);
  GString *s = g_string_new(NULL);
  const char *sec = NULL;
  for (guint i = 0; i < n; i++) {
    if (sec == NULL || !g_str_equal(sec, k[i].section)) {
      sec = k[i].section;
      g_string_append_printf(s, "%s[%s]\n", i ? "\n" : "",
                             g_str_equal(sec, "collusion.*") ? "collusion.NAME" : sec);
    }
    const char *def = k[i].def                           ? k[i].def
                      : (k[i].flags & SCEN_KEY_REQUIRED) ? "(required)"
                      : (k[i].flags & SCEN_KEY_DERIVED)  ? "(derived)"
                                                         : "(unset)";
    const char *kinds = NULL;
    for (guint j = 0; j < G_N_ELEMENTS(listed_keys); j++)
      if (g_str_equal(listed_keys[j].section, k[i].section) &&
          g_str_equal(listed_keys[j].key, k[i].key))
        kinds = listed_keys[j].kinds(TRUE);
    g_string_append_printf(s, "  %-24s %-16s %s%s%s\n", k[i].key, def, kinds ? kinds : "",
                           kinds ? "; " : "", k[i].help);
  }
  g_string_append(s, "\n[sweep]\n  section.key = a;b;c    cartesian product over any keys above; "
                     "integers also A..B;\n"
                     "                         list-valued keys separate items with '|'\n");
  return g_string_free(s, FALSE);
}

void scen_run_report_clear(ScenRunReport *r) {
  if (r == NULL)
    return;
  g_free(r->out_dir);
  if (r->figures)
    g_ptr_array_unref(r->figures);
  if (r->rerun)
    g_ptr_array_unref(r->rerun);
  memset(r, 0, sizeof *r);
}
