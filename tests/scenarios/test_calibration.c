/*
 * tests/scenarios/test_calibration.c: protocol.mu under LDP is a promise
 * about every node of the run actually simulated: no node gets more than
 * the mu asked and the worst node gets it exactly (1e-9), for D-SGD,
 * Muffliato, MF-D-SGD and Mafalda, on a static gossip and under churn (a
 * node that leaves and rejoins shifts its participations against C, which
 * the closed form of a static run does not see), synchronous or not; and
 * MF-D-SGD with a C-set (one C per class of nodes), whose node map must
 * match the graph.
 */
#include <math.h>

#include "mf/mf.h"

#include "scen_test.h"
#include "scenarios/internal.h"

typedef ScenTestFix Fix;

#define MU 0.5

/* Every privacy.csv under @dir (a point's folder or the sweep's points/):
 * mu (column 5) <= MU and the largest equal to MU; returns the points seen. */
static guint check_points(const char *dir) {
  guint points = 0;
  GDir *d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    char *sub = g_build_filename(dir, name, NULL);
    if (g_file_test(sub, G_FILE_TEST_IS_DIR)) {
      GPtrArray *rows = scen_test_csv(sub, "privacy.csv");
      g_assert_cmpuint(rows->len, ==, 1 + 31);
      double worst = 0;
      for (guint r = 1; r < rows->len; r++) {
        double mu = g_ascii_strtod(((char **)g_ptr_array_index(rows, r))[5], NULL);
        if (!(mu <= MU))
          g_error("%s: node %s has mu = %.17g > %g", name, ((char **)g_ptr_array_index(rows, r))[2],
                  mu, MU);
        worst = MAX(worst, mu);
      }
      if (fabs(worst - MU) > 1e-9)
        g_error("%s: the worst node has mu = %.17g, not %g", name, worst, MU);
      g_ptr_array_unref(rows);
      points++;
    }
    g_free(sub);
  }
  g_dir_close(d);
  return points;
}

/* The sweep of the four protocols on a static and a churned ring, in gossip
 * @mode over links of latency @latency. */
static void run_sweep(Fix *f, const char *mode, const char *latency) {
  char *churn = scen_test_write(f->dir, "churn.txt", "# node leave rejoin\n17 12 20\n");
  char *text = g_strdup_printf(
      "[simulation]\nrounds = 40\nseed = 1\nmode = %s\n[network]\nlatency = %s\n"
      "[topology]\ngenerate = ring:n=32\ngossip = metropolis\n[protocol]\nmu = %g\n"
      "[privacy]\ntrust = ldp\nparticipation_interval = 4\n[output]\nplots = false\n[sweep]\n"
      "protocol.name = dsgd;muffliato:K=2;mfdsgd:C=sr;mafalda\n"
      "topology.schedule = static;churn:%s\n",
      mode, latency, MU, churn);
  char *path = scen_test_write(f->dir, "s.ini", text);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  char *out = g_build_filename(f->dir, "out", NULL);
  ScenRunOptions opt = {.out_dir = out, .threads = 2};
  ScenRunReport rep = {0};
  g_assert_true(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_no_error(error);
  scen_run_report_clear(&rep);
  char *points = g_build_filename(out, "points", NULL);
  g_assert_cmpuint(check_points(points), ==, 8);
  g_free(points);
  g_free(out);
  scen_scenario_free(sc);
  g_free(path);
  g_free(text);
  g_free(churn);
}

static void test_sync(Fix *f, gconstpointer data) {
  (void)data;
  run_sweep(f, "sync", "constant:ms=0");
}

/* The observer path: what the attackers saw on the bus of a stale run. */
static void test_async(Fix *f, gconstpointer data) {
  (void)data;
  run_sweep(f, "stale:s=1", "uniform:min=1,max=8");
}

/* A C-set of two classes, BSR (band 2) for the even nodes and SR for the odd
 * ones, on a ring of @n nodes, T = 40: DIR/NAME. */
static char *write_cset(Fix *f, const char *name, guint n) {
  const guint T = 40;
  GError *error = NULL;
  double *bsr = mf_baseline(MF_BASELINE_BSR, T, 2, &error),
         *sr = mf_baseline(MF_BASELINE_SR, T, 0, &error);
  g_assert_no_error(error);
  MfCSet set = {.n_classes = 2, .n_nodes = n, .T = T};
  set.C = g_new(double, 2 * T * T);
  memcpy(set.C, bsr, sizeof(double) * T * T);
  memcpy(set.C + T * T, sr, sizeof(double) * T * T);
  set.node_class = g_new(guint, n);
  for (guint v = 0; v < n; v++)
    set.node_class[v] = v % 2;
  char *path = g_build_filename(f->dir, name, NULL);
  g_assert_true(mf_cset_write(path, &set, &error));
  g_assert_no_error(error);
  mf_cset_clear(&set);
  g_free(bsr);
  g_free(sr);
  return path;
}

/* The scenario's sweep over a C-set, static and churned: protocol.mu holds
 * for every node whatever its class (each class's C is calibrated to its
 * own sensitivity, and the worst node gets MU exactly); a C-set written for
 * 30 nodes is refused on the ring of 32, naming the file and the sizes. */
static void test_cset(Fix *f, gconstpointer data) {
  (void)data;
  char *cset = write_cset(f, "cset.csv", 32), *small = write_cset(f, "cset30.csv", 30);
  char *churn = scen_test_write(f->dir, "churn.txt", "# node leave rejoin\n17 12 20\n");
  for (guint bad = 0; bad < 2; bad++) {
    char *text = g_strdup_printf(
        "[simulation]\nrounds = 40\nseed = 1\n[topology]\ngenerate = ring:n=32\n"
        "gossip = metropolis\n[protocol]\nname = mfdsgd:C=%s\nmu = %g\n[privacy]\ntrust = ldp\n"
        "participation_interval = 4\n[output]\nplots = false\n[sweep]\n"
        "topology.schedule = static;churn:%s\n",
        bad ? small : cset, MU, churn);
    char *path = scen_test_write(f->dir, "s.ini", text);
    GError *error = NULL;
    ScenScenario *sc = scen_scenario_load(path, &error);
    g_assert_no_error(error);
    char *out = g_build_filename(f->dir, bad ? "bad" : "out", NULL);
    ScenRunOptions opt = {.out_dir = out, .threads = 2};
    ScenRunReport rep = {0};
    gboolean ok = scen_scenario_run(sc, &opt, &rep, &error);
    if (!bad) {
      g_assert_no_error(error);
      g_assert_true(ok);
      char *points = g_build_filename(out, "points", NULL);
      g_assert_cmpuint(check_points(points), ==, 2);
      g_free(points);
    } else {
      /* The run fails and says why: the file, the line, the graph's size. */
      g_assert_false(ok);
      g_assert_nonnull(error);
      char *all = g_strdup(error->message);
      g_test_message("%s", all);
      g_assert_nonnull(strstr(all, small));
      g_assert_nonnull(strstr(all, "node 30 has no class"));
      g_assert_nonnull(strstr(all, "a graph of 32 nodes, T = 40 rounds"));
      g_free(all);
      g_clear_error(&error);
    }
    scen_run_report_clear(&rep);
    g_free(out);
    scen_scenario_free(sc);
    g_free(path);
    g_free(text);
  }
  g_free(churn);
  g_free(small);
  g_free(cset);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  SCEN_TEST_ADD("/scenarios/calibration/sync", test_sync);
  SCEN_TEST_ADD("/scenarios/calibration/async", test_async);
  SCEN_TEST_ADD("/scenarios/calibration/cset", test_cset);
  return g_test_run();
}
