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
    for (guint j = 0; j < len; j++)
      gamma[cols[j]] = TRUE;
  }
  /* sum_s (T - s) (W^s)[u, w] / ||(W^s)[:, w]||^2, column w of W^s = W^s e_w.
   * The column is kept as col 2^E with max |col| in [1/2, 1) (powers of
   * two: exact): a column that decays (1e-170 everywhere) would otherwise
   * square to 0 and its terms, which are huge, be dropped; each term is
   * col[u] / ||col||^2 * 2^-E. */
  double *sum = g_new0(double, n), *col = g_new(double, n), *nxt = g_new(double, n);
  for (guint w = 0; w < n; w++) {
    if (!gamma[w])
      continue;
    memset(col, 0, sizeof(double) * n);
    col[w] = 1.0;
    long E = 0;
    for (guint s = 0; s < T; s++) {
      double amax = 0.0;
      for (guint u = 0; u < n; u++)
        amax = MAX(amax, fabs(col[u]));
      if (amax == 0)
        break; /* W^s e_w = 0: nothing more to see */
      int e;
      frexp(amax, &e);
      for (guint u = 0; u < n; u++)
        col[u] = ldexp(col[u], -e);
      E += e;
      double nrm2 = 0.0;
      for (guint u = 0; u < n; u++)
        nrm2 += col[u] * col[u];
      for (guint u = 0; u < n; u++) {
        if (col[u] == 0.0)
          continue;
        /* 2^-E beyond the double range: the term is at least T (overflow)
         * or below 1e-290 of it; E is clamped so that ldexp saturates. */
        double term = ldexp((double)(T - s) * col[u] / nrm2, (int)CLAMP(-E, -4000, 4000));
        sum[u] += term;
      }
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
    else /* alpha loss / (2 sigma^2) in an order that overflows to inf and
          * never underflows a positive value to 0 */
      out[u] = priv_no_zero(alpha / 2.0 * (loss / sigma) / sigma, loss > 0);
  }
  g_free(member);
  g_free(gamma);
  g_free(sum);
  g_free(col);
  g_free(nxt);
  return out;
}
