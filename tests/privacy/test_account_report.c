/*
 * tests/privacy/test_account_report.c: the per-victim report (distances,
 * conversions, unprotected victims, argument checks) and the CSV reader of
 * matrices (round trip with priv_matrix_write_csv, malformed files).
 */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "privacy/privacy.h"

static void test_report(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("path:n=5", &err);
  g_assert_no_error(err);
  guint T = 4;
  PrivBlocks *b = priv_blocks_new(5, T, &err);
  g_assert_no_error(err);
  b->status[2] = PRIV_NODE_ATTACKER;
  b->status[4] = PRIV_NODE_UNPROTECTED;
  /* Node 0: X = 0.25 I; node 1: all entries 0.5 (bound 8 at b = 1, 4 at b = 2). */
  for (guint t = 0; t < T; t++)
    b->X[0 * T * T + t * T + t] = 0.25;
  for (guint i = 0; i < T * T; i++)
    b->X[1 * T * T + i] = 0.5;
  PrivAccountOptions opt = {.b = 2, .alpha = 3.0, .delta = 1e-5};
  PrivReport *r = priv_account_report(b, g, &opt, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(r->n_victims, ==, 4);
  g_assert_cmpuint(r->T, ==, T);
  g_assert_cmpuint(r->b, ==, 2);
  const guint nodes[] = {0, 1, 3, 4};
  const gint dist[] = {2, 1, 1, 2};
  for (guint i = 0; i < 4; i++) {
    g_assert_cmpuint(r->victims[i].node, ==, nodes[i]);
    g_assert_cmpint(r->victims[i].distance, ==, dist[i]);
  }
  /* Node 0: sens^2 = 2 * 0.25 per pattern; node 1: 4 * 0.5 (a 2 x 2 pattern). */
  g_assert_cmpfloat(fabs(r->victims[0].mu - sqrt(0.5)), <, 1e-15);
  g_assert_cmpfloat(fabs(r->victims[1].mu - sqrt(2.0)), <, 1e-15);
  g_assert_cmpfloat(fabs(r->victims[1].rdp - 3.0 * 2.0 / 2.0), <, 1e-14);
  g_assert_cmpfloat(r->victims[1].epsilon, ==, priv_gdp_epsilon(r->victims[1].mu, 1e-5));
  g_assert_cmpfloat(r->victims[2].mu, ==, 0.0);
  g_assert_cmpfloat(r->victims[2].epsilon, ==, 0.0);
  g_assert_true(r->victims[3].unprotected);
  g_assert_true(isinf(r->victims[3].sensitivity) && isinf(r->victims[3].epsilon));
  priv_report_free(r);

  /* Exact sensitivity on node 1's non-negative block equals the bound. */
  opt.sensitivity = PRIV_SENSITIVITY_EXACT;
  r = priv_account_report(b, g, &opt, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(fabs(r->victims[1].mu - sqrt(2.0)), <, 1e-9);
  priv_report_free(r);

  /* Defaults: b = 1, alpha = 2, delta = 1e-6. */
  r = priv_account_report(b, NULL, NULL, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(r->b, ==, 1);
  g_assert_cmpfloat(r->alpha, ==, 2.0);
  g_assert_cmpfloat(r->delta, ==, 1e-6);
  g_assert_cmpfloat(fabs(r->victims[1].mu - sqrt(8.0)), <, 1e-14);
  g_assert_cmpint(r->victims[0].distance, ==, -1);
  priv_report_free(r);

  PrivAccountOptions bad[] = {{.b = 3}, {.alpha = 1.0}, {.delta = 1.5}, {.sensitivity = 7}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_null(priv_account_report(b, g, &bad[i], &err));
    g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
    g_clear_error(&err);
  }
  TopoGraph *g6 = topo_graph_generate("path:n=6", &err);
  g_assert_null(priv_account_report(b, g6, NULL, &err));
  g_clear_error(&err);
  topo_graph_free(g6);
  g_assert_null(priv_blocks_new(0, 3, &err));
  g_clear_error(&err);
  priv_blocks_free(b);
  topo_graph_free(g);
}

static void test_csv(void) {
  GError *err = NULL;
  char *dir = g_dir_make_tmp("account-csv-XXXXXX", &err);
  g_assert_no_error(err);
  char *path = g_build_filename(dir, "C.csv", NULL);
  double M[] = {1.0, -2.5e-300, 3.0, 1.0 / 3.0, 0.0, -7.0};
  g_assert_true(priv_matrix_write_csv(path, M, 2, 3, &err));
  guint rows, cols;
  double *R = priv_matrix_read_csv(path, &rows, &cols, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(rows, ==, 2);
  g_assert_cmpuint(cols, ==, 3);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat(R[i], ==, M[i]); /* exact */
  g_free(R);

  const struct {
    const char *text, *needle;
  } bad[] = {{"1,2\n3\n", ":2:"},
             {"1,x\n", "'x'"},
             {"", "empty"},
             {"1,,2\n", ":1:"},
             {"1,nan\n", "'nan'"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_true(g_file_set_contents(path, bad[i].text, -1, NULL));
    g_assert_null(priv_matrix_read_csv(path, &rows, &cols, &err));
    g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(err->message, bad[i].needle));
    g_assert_nonnull(strstr(err->message, path));
    g_clear_error(&err);
  }
  /* CRLF and blank lines are fine. */
  g_assert_true(g_file_set_contents(path, "1, 2\r\n\r\n3,4\r\n", -1, NULL));
  R = priv_matrix_read_csv(path, &rows, &cols, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(rows, ==, 2);
  g_assert_cmpfloat(R[3], ==, 4.0);
  g_free(R);
  /* priv_mf_read_c: T x T lower triangular, nonzero diagonal; positions are
   * file lines and columns (blank lines counted), rounding residue above the
   * diagonal is cleared, and C comes divided by its largest |entry| (the
   * same mechanism: see test_extremes.c). */
  g_assert_true(g_file_set_contents(path, "2,1e-17\n\n1,3\n", -1, NULL));
  R = priv_mf_read_c(path, 2, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(R[1], ==, 0.0);
  g_assert_cmpfloat(R[2], ==, 1.0 / 3.0);
  g_assert_cmpfloat(R[3], ==, 1.0);
  g_free(R);
  const struct {
    const char *text, *needle;
    guint T;
  } badc[] = {{"1,0\n0,1\n", ": C is 2 x 2, expected 3 x 3", 3},
              {"1,0\n\n0.5,0,0.25\n", ":3: 3 values where the rows above have 2", 2},
              {"1,0\n\n1,0\n", ":3:2: C[1,1] = 0: C must have a nonzero diagonal", 2},
              {"1,0.5\n1,1\n", ":1:2: C[0,1] = 0.5 lies above the diagonal", 2},
              {"1,0\n1,y\n", ":2:2: not a finite number: 'y'", 2}};
  for (guint i = 0; i < G_N_ELEMENTS(badc); i++) {
    g_assert_true(g_file_set_contents(path, badc[i].text, -1, NULL));
    g_assert_null(priv_mf_read_c(path, badc[i].T, &err));
    g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
    if (strstr(err->message, badc[i].needle) == NULL || strstr(err->message, path) == NULL)
      g_error("'%s' lacks '%s'", err->message, badc[i].needle);
    g_clear_error(&err);
  }
  g_remove(path);
  g_assert_null(priv_matrix_read_csv(path, &rows, &cols, &err));
  g_assert_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error(&err);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/report/report", test_report);
  g_test_add_func("/privacy/account/report/csv", test_csv);
  return g_test_run();
}
