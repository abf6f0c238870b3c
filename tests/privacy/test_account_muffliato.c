/*
 * tests/privacy/test_account_muffliato.c: Muffliato's original PNDP bound
 * (Cyffers et al. 2022, corrected Thm 11) against a hand computation on a
 * path, and against the formula evaluated with explicit dense powers of W on
 * random graphs, single attackers and collusion sets (Gamma(S) the union).
 */
#include <math.h>
#include <string.h>

#include "test_account_util.h"

/* The formula with dense W^s and Gamma(S) = members and their neighbours. */
static double *reference(const TopoGossip *w, guint T, const guint *S, guint nS, double alpha,
                         double sigma) {
  guint n = topo_gossip_n(w);
  double *W = topo_gossip_dense(w), *P = g_new0(double, (gsize)n *n),
         *Q = g_new(double, (gsize)n *n), *sum = g_new0(double, n);
  gboolean *gamma = g_new0(gboolean, n);
  for (guint i = 0; i < nS; i++) {
    gamma[S[i]] = TRUE;
    for (guint v = 0; v < n; v++)
      if (W[S[i] * n + v] != 0.0)
        gamma[v] = TRUE;
  }
  for (guint i = 0; i < n; i++)
    P[i * n + i] = 1.0;
  for (guint s = 0; s < T; s++) {
    for (guint wn = 0; wn < n; wn++) {
      if (!gamma[wn])
        continue;
      double c2 = 0.0;
      for (guint v = 0; v < n; v++)
        c2 += P[v * n + wn] * P[v * n + wn];
      for (guint u = 0; u < n; u++)
        sum[u] += (T - s) * P[u * n + wn] / c2;
    }
    memset(Q, 0, sizeof(double) * n * n);
    for (guint i = 0; i < n; i++)
      for (guint k = 0; k < n; k++)
        for (guint j = 0; j < n; j++)
          Q[i * n + j] += W[i * n + k] * P[k * n + j];
    memcpy(P, Q, sizeof(double) * n * n);
  }
  for (guint u = 0; u < n; u++)
    sum[u] = alpha / (2 * sigma * sigma) * MIN((double)T, sum[u]);
  g_free(W);
  g_free(P);
  g_free(Q);
  g_free(gamma);
  return sum;
}

static void test_path_by_hand(void) {
  /* Path 0 - 1 - 2, uniform W = [1/2 1/2 0; 1/3 1/3 1/3; 0 1/2 1/2],
   * attacker 0, Gamma = {0, 1}, T = 2, victim 2: only s = 1 counts,
   * (T - 1) W[2,1] / ||W[:,1]||^2 = (1/2) / (1/4 + 1/9 + 1/4) = 9/11. */
  TopoGossip *w = gossip_of("path:n=3", TOPO_GOSSIP_UNIFORM);
  guint S[] = {0};
  GError *err = NULL;
  double *e = priv_muffliato_rdp(w, 2, S, 1, 2.0, 1.0, &err);
  g_assert_no_error(err);
  g_assert_true(isnan(e[0]));
  g_assert_cmpfloat(fabs(e[2] - 9.0 / 11.0), <, 1e-14);
  /* Victim 1: s = 0 gives 2 * 1 / 1 = 2 = T already: clipped at T. */
  g_assert_cmpfloat(fabs(e[1] - 2.0), <, 1e-14);
  g_free(e);
  /* alpha and sigma scale as alpha / (2 sigma^2). */
  e = priv_muffliato_rdp(w, 2, S, 1, 8.0, 2.0, &err);
  g_assert_cmpfloat(fabs(e[2] - 9.0 / 11.0), <, 1e-14);
  g_free(e);
  e = priv_muffliato_rdp(w, 2, S, 1, 2.0, 0.0, &err);
  g_assert_true(isinf(e[2]));
  g_free(e);
  topo_gossip_free(w);
}

static void test_random_vs_dense(void) {
  const char *specs[] = {"erdos:n=20,p=0.15,seed=2,connected=true", "ring:n=16",
                         "watts:n=18,k=2,p=0.2,seed=1"};
  const guint sets[][2] = {{0, 0}, {5, 11}};
  guint below = 0; /* values not clipped at T: the check is not vacuous */
  for (guint gi = 0; gi < G_N_ELEMENTS(specs); gi++) {
    TopoGossip *w = gossip_of(specs[gi], gi == 1 ? TOPO_GOSSIP_METROPOLIS : TOPO_GOSSIP_UNIFORM);
    for (guint si = 0; si < 2; si++) {
      guint nS = si + 1, T = 4; /* beyond a few steps the bound is clipped at T */
      GError *err = NULL;
      double *e = priv_muffliato_rdp(w, T, sets[si], nS, 3.0, 1.5, &err);
      g_assert_no_error(err);
      double *ref = reference(w, T, sets[si], nS, 3.0, 1.5);
      for (guint u = 0; u < topo_gossip_n(w); u++) {
        if (u == sets[si][0] || u == sets[si][nS - 1]) {
          g_assert_true(isnan(e[u]));
          continue;
        }
        g_assert_cmpfloat(fabs(e[u] - ref[u]), <=, 1e-10 * ref[u]);
        below += ref[u] > 0 && ref[u] < 3.0 / (2 * 1.5 * 1.5) * T;
      }
      g_free(e);
      g_free(ref);
    }
    topo_gossip_free(w);
  }
  g_assert_cmpuint(below, >=, 10);
}

static void test_errors(void) {
  TopoGossip *w = gossip_of("ring:n=5", TOPO_GOSSIP_UNIFORM);
  guint S[] = {1, 1}, out[] = {5};
  GError *err = NULL;
  g_assert_null(priv_muffliato_rdp(w, 3, S, 2, 2.0, 1.0, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(priv_muffliato_rdp(w, 3, out, 1, 2.0, 1.0, &err));
  g_clear_error(&err);
  g_assert_null(priv_muffliato_rdp(w, 0, S, 1, 2.0, 1.0, &err));
  g_clear_error(&err);
  g_assert_null(priv_muffliato_rdp(w, 3, S, 1, 1.0, 1.0, &err));
  g_clear_error(&err);
  topo_gossip_free(w);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/muffliato/path-by-hand", test_path_by_hand);
  g_test_add_func("/privacy/account/muffliato/random-vs-dense", test_random_vs_dense);
  g_test_add_func("/privacy/account/muffliato/errors", test_errors);
  return g_test_run();
}
