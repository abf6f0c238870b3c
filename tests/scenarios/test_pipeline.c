/*
 * tests/scenarios/test_pipeline.c: `dpgossip account` and a scenario go
 * through the one accounting pipeline of protocols/ (proto_account_plan,
 * proto_c_local, proto_observed_run): on a churn schedule they choose the
 * same path for the same reason, and give bit-identical privacy numbers for
 * the same setup on either path. Before the pipeline was shared, the
 * scenario excluded churn from the structured path and the CLI did not.
 */
#include <math.h>

#include "tests/common/run_json.h"
#include "scen_test.h"
#include "scenarios/internal.h"

/* Writes the churn file and the scenario in @dir; returns the churn path. */
static char *write_setup(const char *dir, const char *extra) {
  char *churn = scen_test_write(dir, "churn.txt", "3 2 4\n5 1\n");
  char *text = g_strdup_printf("[simulation]\nrounds = 6\nseed = 4\n%s[topology]\n"
                               "generate = florentine\nschedule = churn:churn.txt\n[protocol]\n"
                               "sigma = 1.3\n[privacy]\ntrust = pndp;ldp\n"
                               "participation_interval = 2\n[collusion.a]\nnodes = 0\n"
                               "[collusion.b]\nnodes = 2;9\n[output]\nplots = false\n"
                               "[sweep]\nprotocol.name = dsgd;antipgd\n",
                               extra);
  g_free(scen_test_write(dir, "s.ini", text));
  g_free(text);
  return churn;
}

/* The resolved path and reason of the scenario's first point. */
static ScenPath scenario_path(const char *dir, const char *const *sets, const char **why) {
  char *path = g_build_filename(dir, "s.ini", NULL);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  for (guint i = 0; sets && sets[i]; i++) {
    scen_scenario_set(sc, sets[i], &error);
    g_assert_no_error(error);
  }
  ScenProblems *ps = scen_problems_new();
  guint items[8] = {0};
  ScenPointValues pv = {sc->axes, items};
  ScenConfig *c = scen_config_resolve(sc, &pv, ps);
  g_assert_cmpuint(scen_problems_count(ps), ==, 0);
  g_assert_nonnull(c);
  ScenPath p = c->path;
  *why = c->path_reason; /* static */
  scen_config_free(c);
  scen_problems_free(ps);
  scen_scenario_free(sc);
  g_free(path);
  return p;
}

static void test_churn_same_path(void) {
  char *dir = test_tmpdir("scen");
  char *churn = write_setup(dir, "");
  char *sched = g_strdup_printf("churn:%s", churn);
  const struct {
    const char *mode; /* NULL: sync */
    const char *path;
    const char *account_path; /* `account --path auto`'s */
  } cases[] = {{NULL, "structured", "structured"}, {"deadline:ms=5", "structured", "structured"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *set = cases[i].mode ? g_strdup_printf("simulation.mode = %s", cases[i].mode) : NULL;
    const char *sets[] = {set, NULL};
    const char *why = NULL;
    ScenPath sp = scenario_path(dir, sets, &why);
    g_assert_cmpint(sp, ==,
                    g_str_equal(cases[i].path, "structured") ? SCEN_PATH_STRUCTURED
                                                             : SCEN_PATH_OBSERVER);
    CliRun r = cases[i].mode
                   ? cli_run("account", "--generate", "florentine", "-T", "6", "-b", "2", "--trust",
                             "pndp", "-a", "0", "--sigma", "1.3", "--schedule", sched, "--seed",
                             "4", "--mode", cases[i].mode, "--format", "json")
                   : cli_run("account", "--generate", "florentine", "-T", "6", "-b", "2", "--trust",
                             "pndp", "-a", "0", "--sigma", "1.3", "--schedule", sched, "--seed",
                             "4", "--format", "json");
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *parser = NULL;
    JsonObject *o = cli_run_json(&r, &parser);
    /* Deadline mode: `account` and a scenario both take the structured
     * path on the run's delivery record, for the same reason. */
    g_assert_cmpstr(json_object_get_string_member(o, "path"), ==, cases[i].account_path);
    if (g_str_equal(cases[i].path, cases[i].account_path))
      g_assert_cmpstr(json_object_get_string_member(o, "path_reason"), ==, why);
    else
      g_assert_nonnull(strstr(json_object_get_string_member(o, "path_reason"), "delivery record"));
    g_object_unref(parser);
    cli_run_clear(&r);
    g_free(set);
  }
  /* The structured path's reason, spelled out: churn is no exception. */
  const char *why = NULL;
  scenario_path(dir, NULL, &why);
  g_assert_cmpstr(why, ==, "auto: a synchronous run of a protocol the structured path knows");
  g_free(sched);
  g_free(churn);
  test_rmtree(dir);
  g_free(dir);
}

/* Column @col of every data row of a CSV text. */
static GPtrArray *csv_rows(const char *text) {
  GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  char **lines = g_strsplit(text, "\n", -1);
  for (guint i = 1; lines[i] && *lines[i]; i++)
    g_ptr_array_add(rows, g_strsplit(lines[i], ",", -1));
  g_strfreev(lines);
  return rows;
}

static double num(const char *s) {
  char *end = NULL;
  double x = g_ascii_strtod(s, &end);
  g_assert_true(end != s && *end == '\0');
  return x;
}

/* The scenario's privacy.csv against `dpgossip account --format csv` for the
 * same setup: one writer, so the same header and every cell the same text,
 * but the set's name (the scenario's [collusion] name, the members for the
 * CLI); every number the same double. */
static void test_same_numbers(void) {
  char *dir = test_tmpdir("scen");
  char *churn = write_setup(dir, "");
  char *sched = g_strdup_printf("churn:%s", churn);
  char *ini = g_build_filename(dir, "s.ini", NULL);
  const char *paths[] = {"structured", "observer"};
  const char *protos[] = {"dsgd", "antipgd"};
  guint compared = 0;
  for (guint p = 0; p < G_N_ELEMENTS(paths); p++) {
    char *out = g_build_filename(dir, paths[p], NULL);
    char *set = g_strdup_printf("privacy.path=%s", paths[p]);
    CliRun s = cli_run("run", ini, "--out", out, "--set", set);
    g_assert_cmpint(s.status, ==, 0);
    cli_run_clear(&s);
    for (guint q = 0; q < G_N_ELEMENTS(protos); q++) {
      char *pdir = g_strdup_printf("name=%s", protos[q]);
      char *file = g_build_filename(out, "points", pdir, "privacy.csv", NULL);
      char *text = NULL;
      g_assert_true(g_file_get_contents(file, &text, NULL, NULL));
      GPtrArray *sr = csv_rows(text);
      char *sheader = g_strndup(text, strcspn(text, "\n"));
      g_free(text);
      CliRun r = cli_run("account", "--generate", "florentine", "-T", "6", "-b", "2", "--trust",
                         "pndp,ldp", "-a", "0", "-a", "2+9", "--sigma", "1.3", "--schedule", sched,
                         "--seed", "4", "--protocol", protos[q], "--path", paths[p], "--format",
                         "csv");
      g_assert_cmpint(r.status, ==, 0);
      GPtrArray *cr = csv_rows(r.out);
      g_assert_true(g_str_has_prefix(r.out, sheader));
      g_assert_cmpstr(sheader, ==, SCEN_PRIVACY_CSV_COLUMNS);
      g_free(sheader);
      /* The CLI lists set-major then trust, as the scenario does. */
      g_assert_cmpuint(sr->len, ==, cr->len);
      g_assert_cmpuint(sr->len, ==, 2 * 14 + 2 * 13); /* 15 nodes */
      for (guint i = 0; i < sr->len; i++) {
        char **a = g_ptr_array_index(sr, i), **b = g_ptr_array_index(cr, i);
        g_assert_cmpstr(a[0], ==, i < 28 ? "a" : "b");
        g_assert_cmpstr(b[0], ==, i < 28 ? "0" : "2+9");
        g_assert_cmpuint(g_strv_length(a), ==, 17);
        g_assert_cmpuint(g_strv_length(b), ==, 17);
        for (guint k = 1; k < 17; k++)
          if (k < 4 || k > 7)
            g_assert_cmpstr(a[k], ==, b[k]); /* trust, victim, ..., seed */
        for (guint k = 4; k < 8; k++) {
          double x = num(a[k]), y = num(b[k]);
          if (x != y)
            g_error("%s %s row %u column %u: scenario %s, account %s", paths[p], protos[q], i, k,
                    a[k], b[k]);
          compared++;
        }
      }
      g_ptr_array_unref(sr);
      g_ptr_array_unref(cr);
      cli_run_clear(&r);
      g_free(file);
      g_free(pdir);
    }
    g_free(set);
    g_free(out);
  }
  g_assert_cmpuint(compared, ==, 2 * 2 * 54 * 4);
  g_free(ini);
  g_free(sched);
  g_free(churn);
  test_rmtree(dir);
  g_free(dir);
}

/* The sweep summary showed one "epsilon" column, silently the
 * first collusion set under the first trust model. Now every accounting has
 * its named column (the worst victim of each set x trust), a legend says
 * which is which, and a note says what a huge epsilon means. */
static void test_summary_epsilons(void) {
  char *dir = test_tmpdir("scen");
  char *ini = scen_test_source("scenarios/collusion.ini");
  char *out = g_build_filename(dir, "out", NULL);
  CliRun r = cli_run("run", ini, "--out", out, "--set", "simulation.rounds=4");
  if (r.status != 0)
    g_error("run failed: %s", r.err);
  g_assert_nonnull(strstr(r.out, " epsilon1 epsilon2 epsilon3 epsilon4 epsilon5 epsilon6\n"));
  const char *legend[] = {"secldp_single", "pndp_single",   "secldp_adjacent",
                          "pndp_adjacent", "secldp_spread", "pndp_spread"};
  for (guint i = 0; i < G_N_ELEMENTS(legend); i++) {
    char *tc = g_strdup(legend[i]);
    char *us = strchr(tc, '_');
    *us = '\0';
    char *want = g_strdup_printf("epsilon%u = epsilon_%s: the worst victim's epsilon at delta = "
                                 "1e-06, trust %s, collusion %s\n",
                                 i + 1, legend[i], tc, us + 1);
    if (strstr(r.out, want) == NULL)
      g_error("missing '%s' in:\n%s", want, r.out);
    g_free(want);
    g_free(tc);
  }
  /* zipdl under SecLDP (T = 4): 413.6, e^epsilon = 4.26e+179. */
  g_assert_nonnull(strstr(r.out, "\nnote: epsilon_secldp_single, epsilon_secldp_adjacent, "
                                 "epsilon_pndp_adjacent, epsilon_secldp_spread above 10; epsilon "
                                 "413.6 at delta = 1e-06: no meaningful protection (it only "
                                 "bounds by a factor e^epsilon = 4.26e+179 how much more likely"));
  cli_run_clear(&r);
  /* No noise: inf, said apart from the finite ones. */
  char *def = scen_test_source("scenarios/default.ini");
  char *out2 = g_build_filename(dir, "out2", NULL);
  r = cli_run("run", def, "--out", out2, "--set", "sweep.simulation.seed=1", "--set",
              "sweep.protocol.name=nonprivate;dsgd", "--set", "task.epochs=1");
  if (r.status != 0)
    g_error("run failed: %s", r.err);
  g_assert_nonnull(strstr(r.out, "\nnote: epsilon_ldp_attacker, epsilon_pndp_attacker: epsilon "
                                 "inf: no protection for some victim"));
  cli_run_clear(&r);
  g_free(out2);
  g_free(def);
  g_free(out);
  g_free(ini);
  test_rmtree(dir);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/pipeline/churn-same-path", test_churn_same_path);
  g_test_add_func("/pipeline/same-numbers", test_same_numbers);
  g_test_add_func("/pipeline/summary-epsilons", test_summary_epsilons);
  return g_test_run();
}
