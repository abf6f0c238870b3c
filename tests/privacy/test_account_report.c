/*
 * tests/privacy/test_account_report.c: the per-victim report (distances,
 * conversions, unprotected victims, argument checks).
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
  opt.sensitivity = MF_SENSITIVITY_EXACT;
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

/* The LDP cap: a capped victim's numbers are the cap's, and a local
 * mu_lower above the cap (an adjacent victim's bound, the LDP value by
 * another sum, one ulp above) is lowered to it, so mu_lower <= mu; below
 * the cap, or NaN (not computed), it stays. */
static void test_cap(void) {
  PrivVictim v[] = {{.node = 0, .sensitivity = 3, .mu = 3, .mu_lower = nextafter(2.0, 3.0)},
                    {.node = 1, .sensitivity = 3, .mu = 3, .mu_lower = 1.5},
                    {.node = 2, .sensitivity = 3, .mu = 3, .mu_lower = NAN},
                    {.node = 3, .sensitivity = 1, .mu = 1, .mu_lower = 0.5}};
  PrivReport r = {.victims = v, .n_victims = G_N_ELEMENTS(v)};
  PrivAccountOptions opt = {.alpha = 2.0, .delta = 1e-6};
  g_assert_cmpuint(priv_report_cap_ldp(&r, 2.0, &opt), ==, 3);
  for (guint i = 0; i < 3; i++) {
    g_assert_cmpfloat(v[i].mu, ==, 2.0);
    g_assert_cmpfloat(v[i].sensitivity, ==, 2.0);
    g_assert_cmpfloat(v[i].rdp, ==, priv_gdp_rdp(2.0, 2.0));
    g_assert_true(v[i].ldp_capped);
  }
  g_assert_cmpfloat(v[0].mu_lower, ==, 2.0);
  g_assert_cmpfloat(v[1].mu_lower, ==, 1.5);
  g_assert_true(isnan(v[2].mu_lower));
  g_assert_cmpfloat(v[3].mu, ==, 1.0);
  g_assert_cmpfloat(v[3].mu_lower, ==, 0.5);
  g_assert_false(v[3].ldp_capped);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/report/report", test_report);
  g_test_add_func("/privacy/account/report/cap", test_cap);
  return g_test_run();
}
