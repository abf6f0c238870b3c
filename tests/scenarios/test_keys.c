/*
 * tests/scenarios/test_keys.c: each row of the scenario schema binds its
 * key to the field of the resolved configuration that holds it, and the
 * resolved file is written from the rows: every key is bound or has a
 * writer, a CHOICE row names its enum's values in the enum's order, and a
 * scenario that gives every key a value other than its default gets each
 * value back in scenario.resolved.ini, which resolves to itself.
 */
#include "scen_test.h"
#include "scenarios/internal.h"

static void test_rows_bound(void) {
  guint n;
  const ScenKeyInfo *k = scen_schema_keys(&n);
  for (guint i = 0; i < n; i++) {
    /* Written to the resolved file from its field or by its own writer. */
    if (k[i].store == SCEN_STORE_NONE && k[i].write == NULL)
      g_error("%s.%s: neither a field nor a writer", k[i].section, k[i].key);
    if (k[i].store == SCEN_STORE_CHOICE)
      g_assert_true(k[i].type == SCEN_TYPE_ENUM && k[i].choices != NULL);
    /* A row resolved by itself has a default or reads as zero when unset. */
    if (k[i].store != SCEN_STORE_NONE && k[i].store != SCEN_STORE_STRING && k[i].def == NULL)
      g_assert_true(k[i].flags & (SCEN_KEY_OPTIONAL | SCEN_KEY_DERIVED));
  }
  /* The enums their modules name: the rows' names in the enums' order. */
  const ScenKeyInfo *gossip = scen_schema_find("topology", "gossip");
  char **names = g_strsplit(gossip->choices, "|", -1);
  g_assert_cmpuint(g_strv_length(names), ==, TOPO_GOSSIP_MAXDEGREE + 1);
  for (guint i = 0; names[i] != NULL; i++)
    g_assert_cmpstr(names[i], ==, topo_gossip_kind_name((TopoGossipKind)i));
  g_strfreev(names);
  names = g_strsplit(scen_schema_find("privacy", "sensitivity")->choices, "|", -1);
  g_assert_cmpuint(g_strv_length(names), ==, MF_SENSITIVITY_AUTO + 1);
  for (guint i = 0; names[i] != NULL; i++)
    g_assert_cmpstr(names[i], ==, mf_sensitivity_name((MfSensitivity)i));
  g_strfreev(names);
  names = g_strsplit(scen_schema_find("privacy", "path")->choices, "|", -1);
  g_assert_cmpuint(g_strv_length(names), ==, SCEN_PATH_NONE + 1);
  g_assert_cmpstr(names[SCEN_PATH_AUTO], ==, "auto");
  g_assert_cmpstr(names[SCEN_PATH_STRUCTURED], ==, "structured");
  g_assert_cmpstr(names[SCEN_PATH_OBSERVER], ==, "observer");
  g_assert_cmpstr(names[SCEN_PATH_LOCAL], ==, "local");
  g_assert_cmpstr(names[SCEN_PATH_NONE], ==, "none");
  g_strfreev(names);
}

/* The configuration of @path's single point (scen_config_free). */
static ScenConfig *resolved_config(const char *path) {
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  char **problems = scen_scenario_validate(sc);
  if (problems[0] != NULL)
    g_error("%s: %s", path, problems[0]);
  g_strfreev(problems);
  ScenProblems *ps = scen_problems_new();
  ScenConfig *c = scen_config_resolve(sc, NULL, ps);
  g_assert_nonnull(c);
  scen_problems_free(ps);
  /* c->g is borrowed from the scenario's cache: not read after this. */
  c->g = NULL;
  scen_scenario_free(sc);
  return c;
}

/* The resolved file of @path's single point (g_free). */
static char *resolved(const char *path) {
  ScenConfig *c = resolved_config(path);
  char *ini = scen_config_to_ini(c);
  scen_config_free(c);
  return ini;
}

/* Two scenarios between them give every key of the table a value other
 * than its default (a key of neither fails below: add it to one). Each
 * "section.key = value" of @want must come back as that line of its
 * section. */
static const char scenario_task[] =
    "[simulation]\nname = keys-task\nseed = 7\nmode = deadline:ms=5\ncompute_ms = 2.5\n"
    "[topology]\ngenerate = ring:n=6\nlcc = true\ngossip = metropolis\nschedule = matching\n"
    "[network]\nlatency = constant:ms=1\nloss = 0.125\n"
    "[protocol]\nname = dsgd\nmu = 0.75\nclip = 0.5\nlr = 0.05\n"
    "[task]\ndataset = synthetic:linear,n=60,d=3,seed=2\nmodel = linear\nepochs = 2\n"
    "batches = 3\ntest_fraction = 0.25\npartition = dirichlet:alpha=0.5\neval_every = 2\n"
    "eval_nodes = 4\neval_rows = 9\n"
    "[privacy]\ntrust = pndp;secldp\nsensitivity = exact\nparticipation_interval = 3\n"
    "alpha = 3\ndelta = 1e-05\ncompare = muffliato\npath = observer\naccountant = dense\n"
    "[collusion.pair]\nnodes = 0+2\n"
    "[output]\nplots = false\nfigure_format = png\nfigure_size = 300x200\nfigure_dpi = 100.5\n";
static const char *const want_task[] = {"simulation.name = keys-task",
                                        "simulation.seed = 7",
                                        "simulation.mode = deadline:ms=5",
                                        "simulation.compute_ms = 2.5",
                                        "topology.generate = ring:n=6",
                                        "topology.lcc = true",
                                        "topology.gossip = metropolis",
                                        "topology.schedule = matching",
                                        "network.latency = constant:ms=1",
                                        "network.loss = 0.125",
                                        "protocol.name = dsgd",
                                        "protocol.mu = 0.75",
                                        "protocol.clip = 0.5",
                                        "protocol.lr = 0.05",
                                        "task.dataset = synthetic:linear,n=60,d=3,seed=2",
                                        "task.model = linear",
                                        "task.epochs = 2",
                                        "task.batches = 3",
                                        "task.test_fraction = 0.25",
                                        "task.partition = dirichlet:alpha=0.5",
                                        "task.eval_every = 2",
                                        "task.eval_nodes = 4",
                                        "task.eval_rows = 9",
                                        "privacy.trust = pndp;secldp",
                                        "privacy.sensitivity = exact",
                                        "privacy.participation_interval = 3",
                                        "privacy.alpha = 3",
                                        "privacy.delta = 1e-05",
                                        "privacy.compare = muffliato",
                                        "privacy.path = observer",
                                        "privacy.accountant = dense",
                                        "collusion.pair.nodes = 0;2",
                                        "output.plots = false",
                                        "output.figure_format = png",
                                        "output.figure_size = 300x200",
                                        "output.figure_dpi = 100.5",
                                        NULL};
static const char scenario_plain[] = "[simulation]\nrounds = 4\n"
                                     "[topology]\ngraph = ring.txt\n"
                                     "[protocol]\nname = muffliato:K=2\nsigma = 2.5\n"
                                     "[privacy]\npath = local\nradius = 2\n"
                                     "[collusion.one]\nnodes = 1\n"
                                     "[audit]\nvictims = 0;3\ntrials = 50\nattack = np\n"
                                     "[output]\ndir = out\n";
static const char *const want_plain[] = {"simulation.rounds = 4", "protocol.name = muffliato:K=2",
                                         "protocol.sigma = 2.5",  "privacy.path = local",
                                         "privacy.radius = 2",    "collusion.one.nodes = 1",
                                         "audit.victims = 0;3",   "audit.trials = 50",
                                         "audit.attack = np",     NULL};
/* Keys these cases cannot show as given: a graph file and the output
 * folder are written absolute (checked below), tightness excludes radius
 * (its own case below), a plugin is a shared object. */
static const char *const elsewhere[] = {"topology.graph", "output.dir", "privacy.tightness",
                                        "protocol.plugin", NULL};

/* Whether [@section] of @ini holds the line @line. */
static gboolean section_has(const char *ini, const char *section, const char *line) {
  char *head = g_strdup_printf("\n[%s]\n", section);
  const char *at = strstr(ini, head);
  g_free(head);
  if (at == NULL)
    return FALSE;
  at = strchr(at + 2, '\n') + 1;
  const char *end = strstr(at, "\n[");
  char *body = g_strndup(at, end ? (gsize)(end - at + 1) : strlen(at));
  char *needle = g_strdup_printf("\n%s\n", line);
  char *padded = g_strconcat("\n", body, NULL);
  gboolean found = strstr(padded, needle) != NULL;
  g_free(padded);
  g_free(needle);
  g_free(body);
  return found;
}

static void expect_lines(const char *ini, const char *const *want) {
  for (guint i = 0; want[i] != NULL; i++) {
    const char *eq = strstr(want[i], " = ");
    const char *dot = g_strrstr_len(want[i], eq - want[i], ".");
    char *section = g_strndup(want[i], (gsize)(dot - want[i]));
    if (!section_has(ini, section, dot + 1))
      g_error("the resolved file lacks [%s] %s:\n%s", section, dot + 1, ini);
    g_free(section);
  }
}

/* Resolving the resolved file written to @dir gives it back. */
static void expect_fixed_point(const char *dir, const char *ini) {
  char *path = scen_test_write(dir, "again.ini", ini);
  char *again = resolved(path);
  g_assert_cmpstr(again, ==, ini);
  g_free(again);
  g_free(path);
}

/* Whether @want sets @dotted to a value other than @def (NULL: any). */
static gboolean listed(const char *const *want, const char *dotted, const char *def) {
  char *prefix = g_strdup_printf("%s = ", dotted);
  gboolean found = FALSE;
  for (guint i = 0; want[i] != NULL && !found; i++)
    found = g_str_has_prefix(want[i], prefix) &&
            (def == NULL || !g_str_equal(want[i] + strlen(prefix), def));
  g_free(prefix);
  return found;
}

static void test_resolved_file(void) {
  /* Every key is in a case with a value other than its default. */
  guint n;
  const ScenKeyInfo *k = scen_schema_keys(&n);
  for (guint i = 0; i < n; i++) {
    const char *sec = g_str_equal(k[i].section, "collusion.*") ? NULL : k[i].section;
    char *dotted = g_strdup_printf("%s.%s", sec ? sec : "collusion.pair", k[i].key);
    if (!listed(want_task, dotted, k[i].def) && !listed(want_plain, dotted, k[i].def) &&
        !g_strv_contains(elsewhere, dotted))
      g_error("%s is in no case of this test with a value other than its default", dotted);
    g_free(dotted);
  }
  char *dir = test_tmpdir("keys");
  char *path = scen_test_write(dir, "task.ini", scenario_task);
  /* The values reach their fields: the enums by their names' positions. */
  ScenConfig *c = resolved_config(path);
  g_assert_true(c->lcc && c->gossip == TOPO_GOSSIP_METROPOLIS);
  g_assert_true(c->has_mu && c->mu == 0.75 && c->clip == 0.5 && c->lr == 0.05);
  g_assert_true(c->seed == 7 && c->compute_ms == 2.5 && c->epochs == 2 && c->batches == 3);
  g_assert_true(c->test_fraction == 0.25 && c->eval_nodes == 4 && c->eval_rows == 9);
  g_assert_true(c->sensitivity == MF_SENSITIVITY_EXACT && c->compare_muffliato);
  g_assert_true(c->path_requested == SCEN_PATH_OBSERVER && c->dense_accountant);
  g_assert_true(c->alpha == 3 && c->delta == 1e-5 && c->b == 3);
  g_assert_true(!c->plots && g_str_equal(c->figure_ext, "png") && c->figure_dpi == 100.5);
  scen_config_free(c);
  char *ini = resolved(path);
  expect_lines(ini, want_task);
  expect_fixed_point(dir, ini);
  g_free(ini);
  g_free(path);

  g_free(scen_test_write(dir, "ring.txt", "0 1\n1 2\n2 3\n3 0\n"));
  path = scen_test_write(dir, "plain.ini", scenario_plain);
  ini = resolved(path);
  expect_lines(ini, want_plain);
  char *graph = g_build_filename(dir, "ring.txt", NULL);
  char *line = g_strdup_printf("graph = %s", graph);
  g_assert_true(section_has(ini, "topology", line));
  g_assert_true(section_has(ini, "output",
                            "# dir is where this file was written; give --out "
                            "to choose."));
  /* Left out: sigma's default, rounds with a task, [task] without one. */
  g_assert_null(strstr(ini, "\nmu = "));
  g_assert_null(strstr(ini, "[task]"));
  expect_fixed_point(dir, ini);
  g_free(ini);
  g_free(path);
  path = scen_test_write(dir, "tight.ini",
                         "[topology]\ngenerate = ring:n=6\n[privacy]\npath = local\n"
                         "tightness = 1.5\n[collusion.one]\nnodes = 1\n");
  ini = resolved(path);
  g_assert_true(section_has(ini, "privacy", "tightness = 1.5"));
  g_assert_null(strstr(ini, "radius"));
  /* The defaults of IF_CHANGED keys stay out of the file. */
  g_assert_null(strstr(ini, "accountant"));
  g_assert_null(strstr(ini, "figure_"));
  expect_fixed_point(dir, ini);
  g_free(ini);
  g_free(path);
  g_free(line);
  g_free(graph);
  test_rmtree(dir);
  g_free(dir);
}

/* Mafalda's C in deadline mode is fitted to the point's delivery records,
 * so its cache key carries the samples= the protocol was given, resolved
 * once with the point (ScenProtoShape.samples): two points that differ
 * only there get two Cs, and a synchronous point none of it. */
static void test_cmatrix_key_samples(void) {
  char *dir = test_tmpdir("keys-samples");
  const char *protocols[] = {"mafalda:samples=3", "mafalda:samples=5", "mafalda"};
  const char *want[] = {"|samples=3", "|samples=5", "|samples=0"};
  for (guint i = 0; i < G_N_ELEMENTS(protocols); i++) {
    char *text = g_strdup_printf("[simulation]\nname = s\nrounds = 4\nmode = deadline:ms=5\n"
                                 "[topology]\ngenerate = ring:n=6\n"
                                 "[protocol]\nname = %s\nsigma = 1\n",
                                 protocols[i]);
    char *path = scen_test_write(dir, "p.ini", text);
    ScenConfig *c = resolved_config(path);
    char *key = scen_cmatrix_key(c);
    g_assert_nonnull(key);
    g_assert_true(g_str_has_suffix(key, want[i]));
    g_free(key);
    /* The synchronous run has no records, so samples= is not in its key. */
    g_free(c->mode);
    c->mode = NULL;
    key = scen_cmatrix_key(c);
    g_assert_null(strstr(key, "samples="));
    g_free(key);
    scen_config_free(c);
    g_free(path);
    g_free(text);
  }
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/scenarios/keys/rows-bound", test_rows_bound);
  g_test_add_func("/scenarios/keys/resolved-file", test_resolved_file);
  g_test_add_func("/scenarios/keys/cmatrix-samples", test_cmatrix_key_samples);
  return g_test_run();
}
