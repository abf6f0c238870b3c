/*
 * tests/scenarios/test_figure4.c: scenarios/figure4-cnn-ego.ini end to end,
 * shortened (T = 2 steps, 2 records per node and batch, 40 test images, one
 * noise level and seed): the CNN trains over the 148-node ego graph under
 * the four methods, the Dirichlet partition and the cnn model reach the run,
 * every private method is calibrated to mu = 1 (eps(1e-6) = 4.88655), the
 * accuracies are fractions of the 40 test images, and the noise changes the
 * models.
 */
#include "plot/plot.h"
#include "shipped.h"

static void test_tiny(ScenTestFix *f, gconstpointer data) {
  (void)data;
  if (!g_file_test("/usr/share/datasets/fashion-mnist", G_FILE_TEST_IS_DIR)) {
    g_test_skip("dataset-fashion-mnist is not installed (scripts/install-deps.sh installs it)");
    return;
  }
  const char *sets[] = {
      "task.dataset=idx:/usr/share/datasets/fashion-mnist,limit=600,test_limit=40",
      "task.epochs=1",
      "task.batches=2",
      "task.eval_every=0",
      "sweep.simulation.seed=1",
      "sweep.protocol.mu=1",
      "output.plots=false",
      NULL};
  ScenRunReport rep = shipped_run("figure4-cnn-ego", sets, f->dir);
  g_assert_cmpuint(rep.points, ==, 4);
  scen_run_report_clear(&rep);

  char *resolved = scen_test_read(f->dir, "scenario.resolved.ini");
  g_assert_nonnull(strstr(resolved, "model = cnn:groups=8"));
  g_assert_nonnull(strstr(resolved, "partition = dirichlet:alpha=0.5"));
  g_free(resolved);

  GPtrArray *g = scen_test_csv(f->dir, "groups.csv");
  g_assert_cmpuint(g->len, ==, 5);
  const char *names[] = {"nonprivate", "dsgd", "antipgd", "mafalda"};
  double acc[4];
  char **head = g_ptr_array_index(g, 0);
  guint c_acc = 0;
  while (head[c_acc] && !g_str_equal(head[c_acc], "final_test_accuracy_mean"))
    c_acc++;
  g_assert_nonnull(head[c_acc]);
  for (guint r = 1; r < 5; r++) {
    g_assert_cmpstr(shipped_cell(g, r, 1), ==, names[r - 1]);
    if (r == 1)
      g_assert_true(isinf(shipped_num(g, r, 5)));
    else
      dpg_test_assert_le(fabs(shipped_num(g, r, 5) - SHIPPED_EPS_MU1), SHIPPED_EPS_MU1_TOL,
                         SHIPPED_EPS_MU1_WHY);
    /* mean final test accuracy over the 148 nodes, each a multiple of 1/40 */
    acc[r - 1] = shipped_num(g, r, c_acc);
    g_assert_true(acc[r - 1] >= 0.0 && acc[r - 1] <= 1.0);
    g_assert_cmpfloat(fabs(acc[r - 1] * 40 * 148 - round(acc[r - 1] * 40 * 148)), <, 1e-6);
  }
  g_ptr_array_unref(g);

  /* 148 nodes evaluated once (at T = 2) on a cnn of finite loss */
  char *pt = g_build_filename(f->dir, "points", "name=dsgd_mu=1_seed=1", NULL);
  GPtrArray *m = scen_test_csv(pt, "metrics.csv");
  g_assert_cmpuint(m->len, ==, 1 + 148); /* the nodes; their mean is in metrics_mean.csv */
  for (guint r = 1; r < m->len; r++) {
    g_assert_cmpint(atoi(shipped_cell(m, r, 0)), ==, 2);
    g_assert_cmpint(atoi(shipped_cell(m, r, 1)), ==, (int)r - 1);
    g_assert_true(isfinite(shipped_num(m, r, 3)));
  }
  g_ptr_array_unref(m);
  m = scen_test_csv(pt, "metrics_mean.csv");
  g_assert_cmpuint(m->len, ==, 1 + 1);
  g_assert_cmpint(atoi(shipped_cell(m, 1, 0)), ==, 2);
  g_assert_true(isfinite(shipped_num(m, 1, 2)));
  g_ptr_array_unref(m);
  g_free(pt);
  /* noise: the private runs' accuracies are not all the non-private one */
  g_assert_true(acc[1] != acc[0] || acc[2] != acc[0] || acc[3] != acc[0]);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  SCEN_TEST_ADD("/scenarios/figure4/tiny", test_tiny);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
