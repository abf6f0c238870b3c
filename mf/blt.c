/*
 * mf/blt.c: the loss of a buffered-linear-Toeplitz (BLT) strategy
 * on a static reversible gossip's workload, and its exact gradient in the
 * BLT's parameters (docs/design.md, "Mafalda"; the BLT family is Dvijotham et
 * al. 2024 and McMahan et al. 2024's, the code is ours). C is the
 * lower-triangular Toeplitz matrix with c_0 = 1 and c_j = sum_i w_i
 * theta_i^(j-1): products with C, C^-1 and C^-T are d-term recursions
 * (d buffers), and the entries of X = C^T C are sums of geometric series,
 * so every evaluation costs O(n^2 T + d T) plus the sensitivity's
 * O(b k^2 d^2) at worst (O(b k d^2) once the series' tails vanish), whatever
 * the width of C (its full T). The dense reference is mf_loss.
 */
#include "mf/internal.h"

#include <math.h>
#include <string.h>

gboolean mf_blt_check(const double *theta, const double *w, guint d, GError **error) {
  if (d == 0 || d > MF_BLT_MAX_BUFFERS) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "BLT strategy: %u buffers, must be between 1 and %d", d, MF_BLT_MAX_BUFFERS);
    return FALSE;
  }
  g_return_val_if_fail(theta != NULL && w != NULL, FALSE);
  for (guint i = 0; i < d; i++)
    if (!(theta[i] > 0.0 && theta[i] < 1.0) || !isfinite(w[i])) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "BLT strategy: buffer %u needs 0 < theta < 1 and a finite w (got theta %g, w %g)",
                  i, theta[i], w[i]);
      return FALSE;
    }
  return TRUE;
}

void mf_blt_coefficients(const double *theta, const double *w, guint d, guint T, double *c) {
  double pw[MF_BLT_MAX_BUFFERS];
  g_return_if_fail(d <= MF_BLT_MAX_BUFFERS);
  for (guint i = 0; i < d; i++)
    pw[i] = 1.0;
  for (guint j = 0; j < T; j++) {
    if (j == 0) {
      c[0] = 1.0;
      continue;
    }
    double s = 0.0;
    for (guint i = 0; i < d; i++) {
      s += w[i] * pw[i];
      pw[i] *= theta[i];
    }
    c[j] = s;
  }
}

/* x <- C^-1 x, or C^-T x when @transposed, in place. C^T is the same
 * Toeplitz band read upwards, so both are one recurrence, walked from the
 * first row down (C^-1) or from the last row up (C^-T): with buffers s_i
 * (the past outputs weighted theta_i^(l-1) at distance l), y_r = x_r -
 * sum_i w_i s_i, then s_i <- theta_i s_i + y_r. Each row reads only its own
 * input, hence in place. O(T d). */
static void blt_solve(const double *theta, const double *w, guint d, guint T, gboolean transposed,
                      double *x) {
  double s[MF_BLT_MAX_BUFFERS] = {0};
  for (guint m = 0; m < T; m++) {
    guint r = transposed ? T - 1 - m : m;
    double v = x[r];
    for (guint i = 0; i < d; i++)
      v -= w[i] * s[i];
    x[r] = v;
    for (guint i = 0; i < d; i++)
      s[i] = theta[i] * s[i] + v;
  }
}

/* The entries X[s,t] = sum_{m<L} c_{m+D} c_m (D = t - s >= 0, L = T - t)
 * of one class: c_D + sum_{i,l} w_i w_l theta_l^D G(theta_i theta_l, L - 1)
 * with G(q, N) = sum_{m<N} q^m, v = 0 .. k-1 (D = v b) and u = 0 .. k-v-1
 * (t = j + (u+v) b). Returns sum_{u,v} |X| (off-diagonal pairs twice);
 * with @grad (2d, added to) its subgradient (sign 0 at X = 0). O(k^2 d^2)
 * at worst, O(k d^2 log(1e-24) / (b log max theta^2)) once the q^N vanish. */
static double class_sum(const double *theta, const double *w, guint d, guint k, guint b, guint j,
                        double *grad) {
  double q[MF_BLT_MAX_BUFFERS][MF_BLT_MAX_BUFFERS];
  double qb[MF_BLT_MAX_BUFFERS][MF_BLT_MAX_BUFFERS];
  double qN[MF_BLT_MAX_BUFFERS][MF_BLT_MAX_BUFFERS];
  double pD[MF_BLT_MAX_BUFFERS], pD1[MF_BLT_MAX_BUFFERS], pb[MF_BLT_MAX_BUFFERS];
  for (guint i = 0; i < d; i++) {
    pb[i] = pow(theta[i], b);
    pD[i] = 1.0;             /* theta^D */
    pD1[i] = 1.0 / theta[i]; /* theta^(D-1), used for D >= 1 only */
    for (guint l = 0; l < d; l++) {
      q[i][l] = theta[i] * theta[l];
      qb[i][l] = pow(q[i][l], b);
    }
  }
  double sum = 0.0;
  for (guint v = 0; v < k; v++) {
    guint D = v * b;
    double cD = 1.0;
    if (D > 0) {
      cD = 0.0;
      for (guint i = 0; i < d; i++)
        cD += w[i] * pD1[i];
    }
    /* From the last u (N = T - 1 - t = b - 1 - j) down to u = 0. */
    guint N = b - 1 - j;
    for (guint i = 0; i < d; i++)
      for (guint l = 0; l < d; l++)
        qN[i][l] = pow(q[i][l], N);
    double weight = v == 0 ? 1.0 : 2.0;
    for (guint u = k - v; u-- > 0;) {
      /* Once every (N + 1) q^N is below 1e-24 the entries of this v no
       * longer change (by less than the rounding of one sum): the remaining
       * u + 1 of them count as this one, O(k d^2) per class instead of
       * O(k^2 d^2) (T = 10,000: k = 625). */
      double tail = 0.0;
      for (guint i = 0; i < d; i++)
        for (guint l = 0; l < d; l++)
          tail = MAX(tail, (N + 1.0) * qN[i][l]);
      double mult = tail < 1e-24 ? u + 1.0 : 1.0;
      weight = (v == 0 ? 1.0 : 2.0) * mult;
      double X = cD;
      for (guint i = 0; i < d; i++)
        for (guint l = 0; l < d; l++)
          X += w[i] * w[l] * pD[l] * (1.0 - qN[i][l]) / (1.0 - q[i][l]);
      sum += weight * fabs(X);
      double sgn = X > 0.0 ? weight : X < 0.0 ? -weight : 0.0;
      if (grad && sgn != 0.0)
        for (guint a = 0; a < d; a++) {
          double gw = D > 0 ? pD1[a] : 0.0;
          double gt = D > 1 ? w[a] * (D - 1.0) * pD1[a] / theta[a] : 0.0;
          double sG = 0.0, sGp = 0.0;
          for (guint l = 0; l < d; l++) {
            double om = 1.0 - q[a][l];
            double G = (1.0 - qN[a][l]) / om;
            /* G'(q) = (G - N q^(N-1)) / (1 - q) */
            double Gp = (G - (N > 0 ? N * qN[a][l] / q[a][l] : 0.0)) / om;
            gw += w[l] * G * (pD[l] + pD[a]);
            sG += w[l] * G;
            sGp += w[l] * theta[l] * Gp * (pD[l] + pD[a]);
          }
          if (D > 0)
            gt += w[a] * D * pD1[a] * sG;
          gt += w[a] * sGp;
          grad[a] += sgn * gt;
          grad[d + a] += sgn * gw;
        }
      if (mult > 1.0)
        break;
      N += b;
      for (guint i = 0; i < d; i++)
        for (guint l = 0; l < d; l++)
          qN[i][l] *= qb[i][l];
    }
    for (guint i = 0; i < d; i++) {
      pD[i] *= pb[i];
      pD1[i] = v == 0 ? pow(theta[i], b - 1.0) : pD1[i] * pb[i];
    }
  }
  return sum;
}

static double sens2(const double *theta, const double *w, guint d, guint T, guint k, guint b,
                    double *grad) {
  g_return_val_if_fail(theta != NULL && w != NULL && d <= MF_BLT_MAX_BUFFERS, NAN);
  if (k == 0 || b == 0 || (guint64)k * b != T || d == 0)
    return NAN;
  /* The class of largest sum (the first on ties), then its gradient. */
  double worst = -1.0;
  guint best_j = 0;
  for (guint j = 0; j < b; j++) {
    double sum = class_sum(theta, w, d, k, b, j, NULL);
    if (sum > worst || isnan(sum)) {
      worst = sum;
      best_j = j;
      if (isnan(sum))
        break;
    }
  }
  if (grad) {
    memset(grad, 0, 2 * d * sizeof(double));
    class_sum(theta, w, d, k, b, best_j, grad);
  }
  return worst;
}

double mf_sensitivity2_blt(const double *theta, const double *w, guint d, guint T, guint k, guint b,
                           double *grad) {
  return sens2(theta, w, d, T, k, b, grad);
}

double mf_blt_loss(const MfGramSpectral *g, const double *theta, const double *w, guint d, guint k,
                   guint b, double *grad) {
  g_return_val_if_fail(g != NULL && theta != NULL && w != NULL, NAN);
  guint T = g->T;
  if (k == 0 || b == 0 || (guint64)k * b != T || d == 0 || d > MF_BLT_MAX_BUFFERS)
    return NAN;
  double *a = g_new0(double, T);
  a[0] = 1.0;
  blt_solve(theta, w, d, T, FALSE, a);
  double gs[2 * MF_BLT_MAX_BUFFERS];
  double S = sens2(theta, w, d, T, k, b, grad ? gs : NULL);
  if (!grad) {
    double tr = mf_toeplitz_trace(g, a);
    g_free(a);
    return S * tr;
  }
  double *ga = g_new(double, T);
  double tr = mf_toeplitz_trace_grad(g, a, ga);
  /* dtau/dc_l = -(C^-T C^-T ga)_l, then through c_l = sum_i w_i theta_i^(l-1)
   * by Horner: P_i = sum_{l>=1} gc_l theta^(l-1), P_i' its derivative. */
  blt_solve(theta, w, d, T, TRUE, ga);
  blt_solve(theta, w, d, T, TRUE, ga);
  for (guint i = 0; i < d; i++) {
    double p = 0.0, dp = 0.0;
    for (guint l = T; l-- > 1;) {
      dp = dp * theta[i] + p;
      p = p * theta[i] - ga[l];
    }
    grad[i] = gs[i] * tr + S * w[i] * dp;
    grad[d + i] = gs[d + i] * tr + S * p;
  }
  g_free(ga);
  g_free(a);
  return S * tr;
}
