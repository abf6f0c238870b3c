/*
 * tests/scenarios/test_measured_latency.c: measured latencies in scenario
 * files. A links: file and the RIPE country tables are named relative to
 * the scenario file; a run gives the same bytes with 1 and 2 threads; a
 * deadline shorter than every link's delay mixes no neighbour's model in,
 * one longer than all of them mixes every one; a missing file or a
 * misspelt model is a problem at its line.
 */
#include <math.h>

#include "scen_test.h"

typedef ScenTestFix Fix;

/* Florentine's 20 edges (data/graphs/florentine.edges) with latencies
 * 10..29 ms, one direction each. */
static const char *florentine_latencies =
    "source,target,latency\n0,1,10\n1,5,11\n1,6,12\n1,7,13\n1,8,14\n1,9,15\n2,3,16\n2,4,17\n"
    "2,5,18\n3,4,19\n3,11,20\n4,6,21\n4,11,22\n6,7,23\n7,12,24\n8,12,25\n8,13,26\n9,10,27\n"
    "11,12,28\n12,14,29\n";

#define SCENARIO                                                                                   \
  "[simulation]\nseed = 5\nmode = deadline:ms=%s\n[topology]\ngenerate = florentine\n"             \
  "[network]\nlatency = %s\n[protocol]\nname = dsgd\nsigma = 1\nlr = 0.2\n"                         \
  "[task]\ndataset = synthetic:linear,n=600,d=4,seed=2\nepochs = 2\nbatches = 2\n"                 \
  "[privacy]\ntrust = pndp\npath = observer\n[collusion.node8]\nnodes = 8\n"                       \
  "[output]\nplots = false\n"

static ScenScenario *load(const char *dir, const char *deadline, const char *latency) {
  char *text = g_strdup_printf(SCENARIO, deadline, latency);
  char *path = scen_test_write(dir, "s.ini", text);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  g_free(path);
  g_free(text);
  return sc;
}

static void run_ok(ScenScenario *sc, const char *out, guint threads) {
  ScenRunOptions opt = {.out_dir = out, .threads = threads};
  ScenRunReport rep = {0};
  GError *error = NULL;
  gboolean ok = scen_scenario_run(sc, &opt, &rep, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  scen_run_report_clear(&rep);
}

/* The text of the output file @name. */
static char *read_out(const char *out, const char *name) {
  char *path = g_build_filename(out, name, NULL), *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_free(path);
  return text;
}

static void test_links_threads(Fix *f, gconstpointer data) {
  (void)data;
  g_free(scen_test_write(f->dir, "lat.csv", florentine_latencies));
  ScenScenario *sc = load(f->dir, "20", "links:file=lat.csv,unit=ms");
  char **problems = scen_scenario_validate(sc);
  g_assert_cmpuint(g_strv_length(problems), ==, 0);
  g_strfreev(problems);
  char *a = g_build_filename(f->dir, "a", NULL), *b = g_build_filename(f->dir, "b", NULL);
  run_ok(sc, a, 1);
  run_ok(sc, b, 2);
  static const char *files[] = {"metrics.csv", "privacy.csv", "scenario.resolved.ini"};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
    char *ta = read_out(a, files[i]), *tb = read_out(b, files[i]);
    g_assert_cmpstr(ta, ==, tb);
    g_free(ta);
    g_free(tb);
  }
  /* The resolved file names the latency file by its absolute path. */
  char *ini = read_out(a, "scenario.resolved.ini");
  char *want = g_strdup_printf("latency = links:file=%s/lat.csv,unit=ms\n", f->dir);
  char *canon = g_canonicalize_filename(f->dir, NULL);
  char *want_canon = g_strdup_printf("latency = links:file=%s/lat.csv,unit=ms\n", canon);
  g_assert_true(strstr(ini, want) != NULL || strstr(ini, want_canon) != NULL);
  g_free(want_canon);
  g_free(canon);
  g_free(want);
  g_free(ini);
  scen_scenario_free(sc);
  g_free(a);
  g_free(b);
}

/* A model mixes in its neighbours' only when their messages arrive before
 * the deadline: with every delay above it (links of 10..29 ms, deadline
 * 5 ms) the attacker (node 8) learns nothing of the victims beyond its
 * neighbours (mu 0 at distance >= 2); with the deadline above all delays
 * every victim leaks through the mixing (mu > 0 at every distance). */
static void test_links_deadline(Fix *f, gconstpointer data) {
  (void)data;
  g_free(scen_test_write(f->dir, "lat.csv", florentine_latencies));
  static const char *deadlines[] = {"5", "40"};
  for (guint i = 0; i < 2; i++) {
    ScenScenario *sc = load(f->dir, deadlines[i], "links:file=lat.csv,unit=ms");
    char *out = g_build_filename(f->dir, deadlines[i], NULL);
    run_ok(sc, out, 1);
    GPtrArray *p = scen_test_csv(out, "privacy.csv");
    g_assert_cmpuint(p->len, ==, 1 + 14);
    for (guint r = 1; r < p->len; r++) {
      char **row = g_ptr_array_index(p, r); /* victim, distance, ..., mu in column 5 */
      double mu = g_ascii_strtod(row[5], NULL);
      if (g_ascii_strtod(row[3], NULL) >= 2) {
        if (i == 0)
          g_assert_cmpfloat(mu, ==, 0);
        else
          g_assert_cmpfloat(mu, >, 0.01);
      }
    }
    g_ptr_array_unref(p);
    scen_scenario_free(sc);
    g_free(out);
  }
}

static void test_country_and_problems(Fix *f, gconstpointer data) {
  (void)data;
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  char *spec = g_strdup_printf("country:rtt=%s/real/country_rtt_stat.csv.gz,seed=3,"
                               "intra=%s/real/intra_rtt_stat.csv.gz",
                               dir, dir);
  ScenScenario *sc = load(f->dir, "300", spec);
  char **problems = scen_scenario_validate(sc);
  g_assert_cmpuint(g_strv_length(problems), ==, 0);
  g_strfreev(problems);
  char *out = g_build_filename(f->dir, "country", NULL);
  run_ok(sc, out, 2);
  GPtrArray *m = scen_test_csv(out, "metrics.csv");
  g_assert_cmpuint(m->len, >, 1);
  g_ptr_array_unref(m);
  scen_scenario_free(sc);
  g_free(out);
  g_free(spec);
  /* A file that is not there, and a misspelt model, at the latency's line. */
  static const struct {
    const char *latency, *part;
  } bad[] = {{"links:file=nope.csv,unit=ms", "file=: file not found: "},
             {"link:file=lat.csv,unit=ms", "did you mean 'links'?"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *text = g_strdup_printf(SCENARIO, "20", bad[i].latency);
    char *path = NULL;
    problems = scen_test_problems(f->dir, text, NULL, &path);
    scen_assert_match(problems, g_strdup_printf("%s:7: network.latency: ", path), bad[i].part);
    g_strfreev(problems);
    g_free(path);
    g_free(text);
  }
}

/* A deadline run of D-SGD, of MF-D-SGD and of DECOR (its secrets on the
 * schedule's edges) with a links: latency, loss and churn, accounted on
 * the structured path (the run's delivery record),
 * equals the observer path on the trained run itself, victim by victim,
 * statuses included; the path column says which. */
#define DEADLINE_RUN                                                                               \
  "[simulation]\nseed = 5\nmode = deadline:ms=20\n[topology]\ngenerate = florentine\n"             \
  "schedule = churn:leave=0.2,join=0.5\n[network]\nlatency = links:file=lat.csv,unit=ms\n"         \
  "loss = 0.05\n[protocol]\nname = %s\nsigma = 1\nlr = 0.2\n"                                      \
  "[task]\ndataset = synthetic:linear,n=600,d=4,seed=2\nepochs = 2\nbatches = 2\n"                 \
  "[privacy]\ntrust = pndp;ldp\npath = %s\n[collusion.node8]\nnodes = 8\n"                         \
  "[collusion.pair]\nnodes = 1;12\n[output]\nplots = false\n"

static void test_structured_deadline(Fix *f, gconstpointer data) {
  (void)data;
  g_free(scen_test_write(f->dir, "lat.csv", florentine_latencies));
  static const char *protos[] = {"dsgd", "mfdsgd:C=bsr,band=2", "decor"};
  static const char *paths[] = {"structured", "observer"};
  for (guint p = 0; p < G_N_ELEMENTS(protos); p++) {
    GPtrArray *rows[2];
    for (guint k = 0; k < 2; k++) {
      char *text = g_strdup_printf(DEADLINE_RUN, protos[p], paths[k]);
      char *path = scen_test_write(f->dir, "s.ini", text);
      GError *error = NULL;
      ScenScenario *sc = scen_scenario_load(path, &error);
      g_assert_no_error(error);
      char **problems = scen_scenario_validate(sc);
      g_assert_cmpuint(g_strv_length(problems), ==, 0);
      g_strfreev(problems);
      char *out = g_build_filename(f->dir, paths[k], NULL);
      run_ok(sc, out, 1);
      rows[k] = scen_test_csv(out, "privacy.csv");
      scen_scenario_free(sc);
      g_free(out);
      g_free(path);
      g_free(text);
    }
    g_assert_cmpuint(rows[0]->len, ==, rows[1]->len);
    g_assert_cmpuint(rows[0]->len, >, 1 + 14);
    guint positive = 0;
    for (guint r = 1; r < rows[0]->len; r++) {
      /* collusion, trust, victim, distance, sensitivity, mu, rdp, eps, muff, status, ..., path */
      char **a = g_ptr_array_index(rows[0], r), **b = g_ptr_array_index(rows[1], r);
      for (guint c = 0; c < 4; c++)
        g_assert_cmpstr(a[c], ==, b[c]);
      g_assert_cmpstr(a[9], ==, b[9]);
      g_assert_cmpstr(a[13], ==, "structured");
      g_assert_cmpstr(b[13], ==, "observer");
      double x = g_ascii_strtod(a[5], NULL), y = g_ascii_strtod(b[5], NULL);
      /* The blocks agree to tau = eps x cond x (n T^2 + n T) of their
       * largest entry (/account-observer/deadline/mf-deliveries derives
       * it; cond, the messages' noise covariance's, stays below 1e3 on
       * graphs of this size there: tau < 2.2e-16 x 1e3 x 75 = 1.7e-11;
       * 1e-9 leaves room for cond up to 6e4). Through mu = sqrt(s2), s2 a
       * sum of at most k^2 = 4 entries of at most 1 / sigma^2 = 1:
       * |dmu| <= min(ds2 / (mu_a + mu_b), sqrt(ds2)), ds2 = 4 tau.
       * Modelling slips (late messages left out, white noise for C) move
       * mu by more than 1e-2. */
      double ds2 = 4 * 1e-9;
      if (isfinite(y))
        g_assert_cmpfloat(fabs(x - y), <=, x + y > 0 ? MIN(ds2 / (x + y), sqrt(ds2)) : 0.0);
      positive += y > 0.01;
    }
    g_assert_cmpuint(positive, >, 0);
    g_ptr_array_unref(rows[0]);
    g_ptr_array_unref(rows[1]);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  SCEN_TEST_ADD("/scenarios/latency/links-threads", test_links_threads);
  SCEN_TEST_ADD("/scenarios/latency/links-deadline", test_links_deadline);
  SCEN_TEST_ADD("/scenarios/latency/country-problems", test_country_and_problems);
  SCEN_TEST_ADD("/scenarios/latency/structured-deadline", test_structured_deadline);
  return g_test_run();
}
