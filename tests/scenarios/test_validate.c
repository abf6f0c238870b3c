/*
 * tests/scenarios/test_validate.c: every validation message, in its exact
 * FILE:LINE: section.key: form: syntax, unknown sections and keys with
 * did-you-mean, types, ranges, missing files, collusion nodes out of range,
 * sweeps over unknown keys, b not dividing T, unknown specs (each module's
 * own message), cross-key rules, and that all problems come at once.
 */
#include "scen_test.h"
#include "tests/common/checks.h"
#include "spec/spec.h"

typedef struct {
  char *dir;
} Fix;

static void fix_setup(Fix *f, gconstpointer data) {
  (void)data;
  f->dir = test_tmpdir("scen");
}

static void fix_teardown(Fix *f, gconstpointer data) {
  (void)data;
  test_rmtree(f->dir);
  g_free(f->dir);
}

#define BASE "[topology]\ngenerate = florentine\n"

static void test_valid(Fix *f, gconstpointer data) {
  (void)data;
  char **p = scen_test_problems(f->dir, "# fine\n[simulation]\nrounds = 10  # T\n" BASE, NULL,
                                NULL);
  g_assert_cmpuint(g_strv_length(p), ==, 0);
  g_strfreev(p);
}

static void test_unknown_key(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir,
                                "[simulation]\nrouns = 10\n" BASE "[protocol]\nrounds = 3\n"
                                "zzzzzz = 1\n",
                                NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:2: simulation.rouns: unknown key (did you mean "
                                     "'rounds'?)",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:6: protocol.rounds: unknown key (it belongs in "
                                     "[simulation]: simulation.rounds)",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:7: protocol.zzzzzz: unknown key", path));
  g_assert_cmpuint(g_strv_length(p), ==, 3);
  g_strfreev(p);
  g_free(path);
}

static void test_unknown_section(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir, BASE "[protocl]\nname = dsgd\n[colusion.a]\nnodes = 1\n",
                                NULL, &path);
  scen_assert_has(
      p, g_strdup_printf("%s:3: protocl: unknown section (did you mean [protocol]?)", path));
  scen_assert_has(p, g_strdup_printf("%s:5: colusion.a: unknown section (did you mean "
                                     "[collusion.a]?)",
                                     path));
  g_strfreev(p);
  g_free(path);
}

static void test_wrong_type(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(
      f->dir,
      "[simulation]\nrounds = ten\nseed = -4\n" BASE
      "lcc = maybe\n[protocol]\nsigma = abc\n[collusion.a]\nnodes = 1;x\n",
      NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:2: simulation.rounds: 'ten' is not a non-negative "
                                     "integer",
                                     path));
  scen_assert_has(
      p, g_strdup_printf("%s:3: simulation.seed: '-4' is not a non-negative integer", path));
  scen_assert_has(p, g_strdup_printf("%s:6: topology.lcc: 'maybe' is not a boolean (true or "
                                     "false)",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:8: protocol.sigma: 'abc' is not a number", path));
  scen_assert_has(
      p, g_strdup_printf(
             "%s:10: collusion.a.nodes: 'x' is not a node id (expected " SPEC_ATTACKERS_GRAMMAR
             "; ';' joins like '+' (the older form 0;8))",
             path));
  g_strfreev(p);
  g_free(path);
}

static void test_out_of_range(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir,
                                "[simulation]\nrounds = 0\n" BASE
                                "[protocol]\nsigma = -1\nclip = 0\n[privacy]\ndelta = 2\n"
                                "alpha = 1\ntrust = pndp;xdp\n",
                                NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:2: simulation.rounds: 0 is out of range: must be an "
                                     "integer in [1, 1e+07]",
                                     path));
  scen_assert_has(p,
                  g_strdup_printf("%s:6: protocol.sigma: -1 is out of range: must be >= 0", path));
  scen_assert_has(p, g_strdup_printf("%s:7: protocol.clip: 0 is out of range: must be > 0", path));
  scen_assert_has(
      p, g_strdup_printf("%s:9: privacy.delta: 2 is out of range: must be in (0, 1)", path));
  scen_assert_has(p, g_strdup_printf("%s:10: privacy.alpha: 1 is out of range: must be > 1", path));
  scen_assert_has(p, g_strdup_printf("%s:11: privacy.trust: unknown value 'xdp' (valid: ldp, "
                                     "pndp, secldp); did you mean 'ldp'?",
                                     path));
  g_strfreev(p);
  g_free(path);
}

static void test_missing_files(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(
      f->dir, "[topology]\ngraph = data/none.edges\n[task]\ndataset = california:../nope.data\n",
      NULL, &path);
  char *canon = g_canonicalize_filename(f->dir, NULL);
  char *parent = g_path_get_dirname(canon);
  scen_assert_has(p, g_strdup_printf("%s:2: topology.graph: file not found: %s/data/none.edges "
                                     "(relative paths resolve against %s)",
                                     path, canon, canon));
  scen_assert_has(p, g_strdup_printf("%s:4: task.dataset: file not found: %s/nope.data "
                                     "(relative paths resolve against %s)",
                                     path, parent, canon));
  g_strfreev(p);
  g_free(path);
  /* C file and churn file. */
  p = scen_test_problems(
      f->dir, BASE "schedule = churn:churn.txt\n[protocol]\nname = mfdsgd:C=c.csv\n", NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:3: topology.schedule: churn file not found: %s/churn.txt "
                                     "(relative paths resolve against %s)",
                                     path, canon, canon));
  scen_assert_match(p, g_strdup_printf("%s:5: protocol.name: ", path), "c.csv");
  g_strfreev(p);
  g_free(path);
  g_free(parent);
  g_free(canon);
}

static void test_missing_scenario(void) {
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load("/nonexistent/x.ini", &error);
  g_assert_null(sc);
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull(strstr(error->message, "/nonexistent/x.ini"));
  g_error_free(error);
}

static void test_relative_graph_ok(Fix *f, gconstpointer data) {
  (void)data;
  char *sub = g_build_filename(f->dir, "g", NULL);
  g_mkdir(sub, 0700);
  char *edges = scen_test_write(sub, "tri.edges", "0 1\n1 2\n2 0\n");
  char **p = scen_test_problems(f->dir, "[topology]\ngraph = g/tri.edges\n", NULL, NULL);
  g_assert_cmpuint(g_strv_length(p), ==, 0);
  g_strfreev(p);
  g_free(edges);
  g_free(sub);
}

static void test_collusion_range(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir,
                                BASE "[collusion.far]\nnodes = 3;15\n[collusion.dup]\nnodes = "
                                     "2;2\n[collusion.empty]\n",
                                NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:4: collusion.far.nodes: node 15 is out of range: the "
                                     "graph has 15 nodes (0 to 14)",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:6: collusion.dup.nodes: node 2 appears twice in the "
                                     "collusion set '2;2'",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:7: collusion.empty.nodes: missing: [collusion.empty] "
                                     "needs nodes = ... (the attacker sets: " SPEC_ATTACKERS_GRAMMAR
                                     " (7;40, the older form, is 7+40))",
                                     path));
  g_strfreev(p);
  g_free(path);
}

static void test_sweep_unknown(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir,
                                BASE "[sweep]\nprotocol.sigmaa = 1;2\nprotocl.sigma = 1\n"
                                     "sigma = 1\noutput.plots = true;false\n"
                                     "simulation.seed = 5..x\nprotocol.clip = 1;0\n"
                                     "protocol.lr = 0.1;0.1\n",
                                NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:4: sweep.protocol.sigmaa: sweep over an unknown key "
                                     "protocol.sigmaa (did you mean 'sigma'?)",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:5: sweep.protocl.sigma: sweep over an unknown section "
                                     "[protocl] (did you mean [protocol]?)",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:6: sweep.sigma: a sweep key is section.key (e.g. "
                                     "protocol.sigma = 0.5;1;2)",
                                     path));
  scen_assert_has(p,
                  g_strdup_printf("%s:7: sweep.output.plots: [output] keys cannot be swept", path));
  scen_assert_has(p, g_strdup_printf("%s:8: sweep.simulation.seed: '5..x' is not an integer "
                                     "range A..B",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:9: sweep.protocol.clip: item 2: 0 is out of range: "
                                     "must be > 0",
                                     path));
  scen_assert_has(p,
                  g_strdup_printf("%s:10: sweep.protocol.lr: value '0.1' is listed twice", path));
  g_strfreev(p);
  g_free(path);
}

static void test_sweep_point_problem(Fix *f, gconstpointer data) {
  (void)data;
  /* Each value is fine alone; one combination is not: b = 4 does not divide T = 10. */
  char *path;
  char **p = scen_test_problems(
      f->dir,
      "[simulation]\nrounds = 8\n" BASE
      "[sweep]\nsimulation.rounds = 8;10\nprivacy.participation_interval = 2;4\n"
      "protocol.name = dsgd;nosuch\n",
      NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:7: sweep.privacy.participation_interval: b = 4 does not "
                                     "divide T = 10 rounds (participation every b steps needs T "
                                     "= k x b)",
                                     path));
  scen_assert_match(p, g_strdup_printf("%s:8: sweep.protocol.name: ", path), "nosuch");
  g_assert_cmpuint(g_strv_length(p), ==, 2);
  g_strfreev(p);
  g_free(path);
}

static void test_b_divides_T(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(
      f->dir, "[simulation]\nrounds = 10\n" BASE "[privacy]\nparticipation_interval = 3\n", NULL,
      &path);
  scen_assert_has(p, g_strdup_printf("%s:6: privacy.participation_interval: b = 3 does not "
                                     "divide T = 10 rounds (participation every b steps needs T "
                                     "= k x b)",
                                     path));
  g_strfreev(p);
  g_free(path);
}

static void test_unknown_specs(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir,
                                "[simulation]\nmode = asap\n[topology]\ngenerate = florentin\n"
                                "gossip = uniformm\nschedule = weekly\n[network]\nlatency = "
                                "gauss:ms=3\nloss = 2\n[protocol]\nname = dsgx\n[task]\n"
                                "dataset = parquet:x\nmodel = cnn:depth=3\n",
                                NULL, &path);
  /* Each module's own parser explains; we place it. */
  scen_assert_match(p, g_strdup_printf("%s:2: simulation.mode: ", path), "asap");
  scen_assert_match(p, g_strdup_printf("%s:4: topology.generate: ", path), "florentin");
  scen_assert_has(p, g_strdup_printf("%s:5: topology.gossip: unknown value 'uniformm' (valid: "
                                     "uniform, metropolis, maxdegree); did you mean 'uniform'?",
                                     path));
  scen_assert_match(p, g_strdup_printf("%s:8: network.latency: ", path), "gauss");
  scen_assert_match(p, g_strdup_printf("%s:9: network.loss: ", path), "2");
  scen_assert_match(p, g_strdup_printf("%s:11: protocol.name: ", path), "dsgx");
  scen_assert_has(p, g_strdup_printf("%s:13: task.dataset: unknown dataset 'parquet:x' (valid: "
                                     "california:PATH, csv:PATH[,...], idx:DIR[,...], "
                                     "leaf:PATH[,...], synthetic:linear|logistic[,...])",
                                     path));
  scen_assert_match(p, g_strdup_printf("%s:14: task.model: ", path), "depth");
  g_strfreev(p);
  g_free(path);
  /* The schedule needs the graph: checked once the graph is there. */
  p = scen_test_problems(f->dir, BASE "schedule = weekly\n", NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:3: topology.schedule: ", path), "weekly");
  g_strfreev(p);
  g_free(path);
}

static void test_cross_rules(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir,
                                "[simulation]\nrounds = 12\n" BASE
                                "graph = x.edges\n[network]\nloss = 0.1\n[protocol]\nsigma = 1\n"
                                "mu = 2\n[task]\ndataset = synthetic:linear\nepochs = 2\n"
                                "batches = 5\n",
                                NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:4: topology.generate: give graph or generate, not both "
                                     "(graph is on line 5)",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:7: network.loss: loss 0.1 in sync mode: a lost message "
                                     "would block the network forever; use simulation.mode = "
                                     "deadline:ms=D or stale:s=S",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:10: protocol.mu: give sigma or mu, not both (sigma is "
                                     "set at %s:9)",
                                     path, path));
  scen_assert_has(p, g_strdup_printf("%s:2: simulation.rounds: 12 rounds but the task has epochs "
                                     "x batches = 2 x 5 = 10 steps (leave rounds out, or make "
                                     "them agree)",
                                     path));
  g_strfreev(p);
  g_free(path);
  p = scen_test_problems(f->dir, "[simulation]\nseed = 1\n", NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s: topology: no graph: give graph = FILE or generate = "
                                     "SPEC (e.g. generate = florentine)",
                                     path));
  g_strfreev(p);
  g_free(path);
  p = scen_test_problems(f->dir,
                         BASE "[protocol]\nname = zipdl\nmu = 1\n[privacy]\npath = "
                              "structured\n",
                         NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:5: protocol.mu: calibrating the noise from mu is defined "
                                     "for dsgd, muffliato, mfdsgd, antipgd and mafalda; give "
                                     "protocol.sigma for zipdl",
                                     path));
  scen_assert_match(p, g_strdup_printf("%s:7: privacy.path: the structured path covers", path),
                    "this run is zipdl in mode sync");
  g_strfreev(p);
  g_free(path);
  /* DECOR is covered, but its noise is not calibrated from mu. */
  p = scen_test_problems(f->dir,
                         BASE "[protocol]\nname = decor\nmu = 1\n[privacy]\npath = "
                              "structured\n",
                         NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:5: protocol.mu: calibrating the noise from mu is defined "
                                     "for dsgd, muffliato, mfdsgd, antipgd and mafalda; give "
                                     "protocol.sigma for decor",
                                     path));
  g_strfreev(p);
  g_free(path);
}

static void test_syntax(Fix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir,
                                "seed = 1\n" BASE "just words\n[simulation\n[simulation]\n"
                                "seed = 2\nseed = 3\n= 4\n[topology]\n",
                                NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:1: seed: key outside any section (put it under a "
                                     "[section] header)",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:4: 'just words' is neither 'key = value', a [section] "
                                     "nor a # comment",
                                     path));
  scen_assert_has(p, g_strdup_printf("%s:5: a section header must end with ']'", path));
  scen_assert_has(p, g_strdup_printf("%s:8: simulation.seed: given twice (first on line 7)", path));
  scen_assert_has(p, g_strdup_printf("%s:9: empty key name before '='", path));
  scen_assert_has(p, g_strdup_printf("%s:10: topology: section given twice (first on line 2); "
                                     "its keys are merged",
                                     path));
  g_strfreev(p);
  g_free(path);
  /* Invalid UTF-8 and NUL bytes are reported, not fatal. */
  char *bad = g_strdup(BASE "[simulation]\nname = \xff\xfe\n");
  p = scen_test_problems(f->dir, bad, NULL, &path);
  scen_assert_has(p, g_strdup_printf("%s:4: the line is not valid UTF-8", path));
  g_strfreev(p);
  g_free(path);
  g_free(bad);
}

static void test_all_at_once_sorted(Fix *f, gconstpointer data) {
  (void)data;
  char **p = scen_test_problems(f->dir,
                                "[simulation]\nrouns = 1\n[topology]\ngraph = x.edges\n"
                                "[protocol]\nsigma = -1\n[privacy]\ndelta = 0\n"
                                "[sweep]\nprotocol.sigmaa = 1\n",
                                NULL, NULL);
  g_assert_cmpuint(g_strv_length(p), ==, 5);
  /* In line order. */
  const char *lines[] = {":2:", ":4:", ":6:", ":8:", ":10:"};
  for (guint i = 0; i < 5; i++)
    g_assert_nonnull(strstr(p[i], lines[i]));
  g_strfreev(p);
}

static void test_overrides(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"protocol.sigma=-2", "sweep.protocol.lr=0.1;0.2", NULL};
  char *path;
  char **p = scen_test_problems(f->dir, BASE, sets, &path);
  scen_assert_has(p, g_strdup("--set:1: protocol.sigma: -2 is out of range: must be >= 0"));
  g_assert_cmpuint(g_strv_length(p), ==, 1);
  g_strfreev(p);
  g_free(path);
  /* Setting a swept key replaces its sweep. */
  char *ini = scen_test_write(f->dir, "s.ini",
                              BASE "[sweep]\nsimulation.seed = 1..5\n"
                                   "protocol.sigma = 1;2\n");
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(ini, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(scen_scenario_n_points(sc), ==, 10);
  g_assert_true(scen_scenario_set(sc, "simulation.seed=7", &error));
  g_assert_cmpuint(scen_scenario_n_points(sc), ==, 2);
  g_assert_true(scen_scenario_set(sc, "sweep.protocol.sigma=", &error));
  g_assert_cmpuint(scen_scenario_n_points(sc), ==, 1);
  g_assert_true(scen_scenario_set(sc, "sweep.collusion.x.nodes=0;1 | 2 | 3;4", &error));
  g_assert_cmpuint(scen_scenario_n_points(sc), ==, 3);
  g_assert_false(scen_scenario_set(sc, "nodot=1", &error));
  g_assert_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
  g_clear_error(&error);
  g_assert_false(scen_scenario_set(sc, "protocol.sigma", &error));
  g_clear_error(&error);
  char **q = scen_scenario_validate(sc);
  g_assert_cmpuint(g_strv_length(q), ==, 0);
  g_strfreev(q);
  scen_scenario_free(sc);
  g_free(ini);
}

static void test_keys_describe(void) {
  char *t = scen_keys_describe();
  g_assert_nonnull(strstr(t, "[simulation]\n"));
  g_assert_nonnull(strstr(t, "[collusion.NAME]\n  nodes"));
  g_assert_nonnull(strstr(t, "participation_interval"));
  g_free(t);
}

/* Duplicate detection compared every pair of an axis's values, so
 * 40,000 values took 11.8 s and 10^6 hours. 200,000 values (minutes when
 * quadratic) with the duplicate last, the worst place; then the same axis
 * without it is valid and counts its points. Under the sanitizers 20,000
 * (the same code; quadratic would still take seconds there). */
static void test_sweep_many_values(Fix *f, gconstpointer data) {
  (void)data;
  const guint n = TEST_UNDER_ASAN ? 20000 : 200000;
  GString *s = g_string_new(BASE "[protocol]\nname = dsgd\nsigma = 1\n[sweep]\nsimulation.seed = ");
  for (guint i = 0; i < n; i++)
    g_string_append_printf(s, "%s%u", i ? ";" : "", 7 * i + 3);
  gsize valid_len = s->len;
  guint twice = 7 * (n / 2) + 3; /* a value of the middle, listed again at the end */
  g_string_append_printf(s, ";%u\n", twice);
  char **p = scen_test_problems(f->dir, s->str, NULL, NULL);
  g_assert_cmpuint(g_strv_length(p), ==, 1);
  char *want = g_strdup_printf("simulation.seed: value '%u' is listed twice", twice);
  if (strstr(p[0], want) == NULL)
    g_error("expected '%s', got: %s", want, p[0]);
  g_free(want);
  g_strfreev(p);
  g_string_truncate(s, valid_len);
  g_string_append_c(s, '\n');
  char *path = scen_test_write(f->dir, "many.ini", s->str);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  p = scen_scenario_validate(sc);
  g_assert_cmpuint(g_strv_length(p), ==, 0);
  g_assert_cmpuint(scen_scenario_n_points(sc), ==, n);
  g_strfreev(p);
  scen_scenario_free(sc);
  g_free(path);
  g_string_free(s, TRUE);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(name, fn)                                                                              \
  g_test_add("/scenarios/validate/" name, Fix, NULL, fix_setup, fn, fix_teardown)
  ADD("valid", test_valid);
  ADD("unknown-key", test_unknown_key);
  ADD("unknown-section", test_unknown_section);
  ADD("wrong-type", test_wrong_type);
  ADD("out-of-range", test_out_of_range);
  ADD("missing-files", test_missing_files);
  ADD("relative-graph", test_relative_graph_ok);
  ADD("collusion-range", test_collusion_range);
  ADD("sweep-unknown", test_sweep_unknown);
  ADD("sweep-point", test_sweep_point_problem);
  ADD("b-divides-T", test_b_divides_T);
  ADD("unknown-specs", test_unknown_specs);
  ADD("cross-rules", test_cross_rules);
  ADD("syntax", test_syntax);
  ADD("all-at-once", test_all_at_once_sorted);
  ADD("overrides", test_overrides);
  ADD("sweep-many-values", test_sweep_many_values);
  g_test_add_func("/scenarios/validate/missing-scenario", test_missing_scenario);
  g_test_add_func("/scenarios/validate/keys", test_keys_describe);
  return g_test_run();
}
