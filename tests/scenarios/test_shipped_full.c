/*
 * tests/scenarios/test_shipped_full.c: the longer shortened runs of the
 * shipped training scenarios (label nosanitize: seconds in Release, too slow
 * under ASan; test_shipped.c keeps a tiny version of each for ASan):
 * Figure 3 on two privacy levels with its figures, and Fashion-MNIST.
 */
#include "plot/plot.h"
#include "shipped.h"

typedef ScenTestFix Fix;

static void test_figure3(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"task.epochs=2", "sweep.simulation.seed=1..2", "sweep.protocol.mu=1;10",
                        NULL};
  ScenRunReport rep = shipped_run("figure3-housing-ego", sets, f->dir);
  g_assert_cmpuint(rep.points, ==, 16);
  g_assert_cmpuint(rep.figures->len, ==, 2); /* loss.svg, loss_vs_epsilon.svg */
  scen_run_report_clear(&rep);
  GPtrArray *pts = scen_test_csv(f->dir, "points.csv");
  g_assert_cmpuint(pts->len, ==, 17);
  for (guint r = 1; r < pts->len; r++) {
    g_assert_cmpstr(shipped_cell(pts, r, 5), ==, "done");
    g_assert_true(isfinite(shipped_num(pts, r, 8))); /* final test loss */
  }
  g_ptr_array_unref(pts);
  GPtrArray *g = scen_test_csv(f->dir, "groups.csv");
  g_assert_cmpuint(g->len, ==, 1 + 8);
  for (guint r = 1; r < g->len; r++) {
    g_assert_cmpstr(shipped_cell(g, r, 3), ==, "2"); /* seeds */
    if (!g_str_equal(shipped_cell(g, r, 1), "nonprivate")) {
      double mu = shipped_num(g, r, 2), eps = shipped_num(g, r, 5);
      if (mu == 1) {
        dpg_test_assert_le(fabs(eps - SHIPPED_EPS_MU1), SHIPPED_EPS_MU1_TOL, SHIPPED_EPS_MU1_WHY);
      } else { /* a range, not a tolerance */
        g_assert_cmpfloat(eps, >=, 0.0);
        g_assert_cmpfloat(eps, <=, 100.0);
      }
    }
  }
  /* nonprivate at both mu is the same run. */
  g_assert_cmpstr(shipped_cell(g, 1, 6), ==, shipped_cell(g, 2, 6));
  g_ptr_array_unref(g);
  GPtrArray *a = scen_test_csv(f->dir, "aggregate.csv");
  g_assert_cmpuint(a->len, ==, 1 + 8 * 2); /* T = 32, evaluations at 16 and 32 */
  g_ptr_array_unref(a);
}

static void test_fashion_mnist(Fix *f, gconstpointer data) {
  (void)data;
  if (!g_file_test("/usr/share/datasets/fashion-mnist", G_FILE_TEST_IS_DIR)) {
    g_test_skip("dataset-fashion-mnist is not installed (scripts/install-deps.sh installs it)");
    return;
  }
  const char *sets[] = {"task.dataset=idx:/usr/share/datasets/fashion-mnist,limit=800",
                        "task.epochs=1", "task.batches=2", "sweep.simulation.seed=1", NULL};
  ScenRunReport rep = shipped_run("fashion-mnist", sets, f->dir);
  g_assert_cmpuint(rep.points, ==, 2);
  scen_run_report_clear(&rep);
  char *dir = g_build_filename(f->dir, "points", "name=mafalda_seed=1", NULL);
  GPtrArray *m = scen_test_csv(dir, "metrics.csv");
  g_assert_cmpuint(m->len, ==, 1 + 16); /* 16 nodes */
  for (guint r = 1; r < m->len; r++) {
    double acc = shipped_num(m, r, 4);
    g_assert_true(acc >= 0 && acc <= 1);
  }
  g_ptr_array_unref(m);
  shipped_check_privacy(dir, 15, 2.0);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(name, fn) SCEN_TEST_ADD("/scenarios/shipped-full/" name, fn)
  ADD("figure3", test_figure3);
  ADD("fashion-mnist", test_fashion_mnist);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
