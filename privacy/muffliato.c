/*
 * privacy/muffliato.c: Muffliato's original PNDP bound (Cyffers et al. 2022,
 * corrected Thm 11), the baseline of the paper's Figure 2.
 */
#include "privacy/internal.h"

#include <math.h>
#include <string.h>

double *priv_muffliato_rdp(const TopoGossip *W, guint T, const guint *attackers, guint n_attackers,
                           double alpha, double sigma, GError **error) {
  if (!W || T == 0 || !attackers || n_attackers == 0 || !(alpha > 1) || !isfinite(alpha) ||
      !(sigma >= 0) || !isfinite(sigma)) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "Muffliato's bound needs a gossip matrix, T >= 1, attackers, alpha > 1 and "
                "sigma >= 0 (T = %u, alpha = %g, sigma = %g)",
                T, alpha, sigma);
    return NULL;
  }
  guint n = topo_gossip_n(W);
  gboolean *member = g_new0(gboolean, n), *gamma = g_new0(gboolean, n);
  for (guint i = 0; i < n_attackers; i++) {
    guint a = attackers[i];
    if (a >= n || member[a]) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  a >= n ? "attacker %u is out of range (the graph has %u nodes)"
                         : "attacker %u appears twice in the set (%u nodes)",
                  a, n);
      g_free(member);
      g_free(gamma);
      return NULL;
    }
    member[a] = TRUE;
    gamma[a] = TRUE;
    const guint *cols;
    const double *vals;
    guint len = topo_gossip_row(W, a, &cols, &vals);
    for (guint j = 0; j < len; j++) gamma[cols[j]] = TRUE;
  }
  /* sum_s (T - s) (W^s)[u, w] / ||(W^s)[:, w]||^2, column w of W^s = W^s e_w. */
  double *sum = g_new0(double, n), *col = g_new(double, n), *nxt = g_new(double, n);
  for (guint w = 0; w < n; w++) {
    if (!gamma[w]) continue;
    memset(col, 0, sizeof(double) * n);
    col[w] = 1.0;
    for (guint s = 0; s < T; s++) {
      double nrm2 = 0.0;
      for (guint u = 0; u < n; u++) nrm2 += col[u] * col[u];
      if (nrm2 > 0)
        for (guint u = 0; u < n; u++) sum[u] += (double)(T - s) * col[u] / nrm2;
      if (s + 1 < T) {
        topo_gossip_apply(W, col, nxt, 1);
        double *t = col;
        col = nxt;
        nxt = t;
      }
    }
  }
  double *out = g_new(double, n);
  for (guint u = 0; u < n; u++) {
    double loss = MIN((double)T, sum[u]);
    if (member[u])
      out[u] = NAN;
    else if (sigma == 0)
      out[u] = loss > 0 ? INFINITY : 0.0;
    else
      out[u] = alpha / (2.0 * sigma * sigma) * loss;
  }
  g_free(member);
  g_free(gamma);
  g_free(sum);
  g_free(col);
  g_free(nxt);
  return out;
}
