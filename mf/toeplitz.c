/*
 * mf/toeplitz.c: the loss of a lower-triangular Toeplitz strategy
 * (DP-D-SGD, AntiPGD, SR, BSR) on a static reversible gossip's workload,
 * from the structure of both: the first column of C^-1 and the spectral form
 * of H, never a T x T matrix (docs/design.md, "Mafalda"; the dense reference is
 * mf_loss, which the tests compare with).
 */
#include "mf/internal.h"

#include <math.h>
#include <string.h>

/* Rows of p_m evaluated together (one n x n product per block). */
#define TOEPLITZ_BLOCK 256

/* The first column of C^-1 (T doubles, g_free) for the lower-triangular
 * Toeplitz C with first column @c[0 .. @width), c[0] != 0: the power series
 * (sum_j c_j x^j)^-1, i.e. forward substitution on C's band. O(T width). */
static double *inverse_first_column(const double *c, guint width, guint T) {
  double *a = g_new(double, T);
  for (guint m = 0; m < T; m++) {
    double s = m == 0 ? 1.0 : 0.0;
    for (guint j = 1; j <= m && j < width; j++)
      s -= c[j] * a[m - j];
    a[m] = s / c[0];
  }
  return a;
}

double *mf_baseline_coefficients(MfBaseline which, guint T, guint band, guint *width,
                                 GError **error) {
  g_return_val_if_fail(width != NULL, NULL);
  if (T == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "T must be positive");
    return NULL;
  }
  if (which == MF_BASELINE_BSR && band == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INFEASIBLE,
                "a banded square root needs a band of at least 1");
    return NULL;
  }
  guint w;
  switch (which) {
  case MF_BASELINE_IDENTITY:
    w = 1;
    break;
  case MF_BASELINE_ANTIPGD:
  case MF_BASELINE_SR:
    w = T;
    break;
  case MF_BASELINE_BSR:
    w = MIN(band, T);
    break;
  default:
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "unknown baseline %d", (int)which);
    return NULL;
  }
  double *c = g_new(double, w);
  for (guint j = 0; j < w; j++) {
    if (which == MF_BASELINE_ANTIPGD)
      c[j] = 1.0;
    else /* (1-x)^{-1/2} = sum_j binom(2j,j)/4^j x^j: c_j = c_{j-1} (2j-1)/(2j). */
      c[j] = j == 0 ? 1.0 : c[j - 1] * (2.0 * j - 1.0) / (2.0 * j);
  }
  *width = w;
  return c;
}

double mf_sensitivity2_toeplitz(const double *c, guint width, guint T, guint k, guint b) {
  g_return_val_if_fail(c != NULL, NAN);
  if (k == 0 || b == 0 || (guint64)k * b != T || width == 0)
    return NAN;
  width = MIN(width, T);
  /* X[s,t] = sum_{r >= t} c[r-s] c[r-t] = cum_d[T-t] for s <= t, d = t - s,
   * cum_d[L] = sum_{j<L} c[j] c[j+d]. Same-class pairs have d = v b. */
  double *cum = g_new(double, (gsize)T + 1);
  double *sums = g_new0(double, b);
  for (guint v = 0; v < k; v++) {
    guint d = v * b;
    cum[0] = 0.0;
    for (guint j = 0; j < T; j++)
      cum[j + 1] = cum[j] + (j + d < width && j < width ? c[j] * c[j + d] : 0.0);
    double weight = v == 0 ? 1.0 : 2.0;
    for (guint j = 0; j < b; j++)
      for (guint u = 0; u + v < k; u++) {
        guint t = j + (u + v) * b;
        sums[j] += weight * fabs(cum[T - t]);
      }
  }
  double worst = 0.0;
  for (guint j = 0; j < b; j++)
    worst = MAX(worst, sums[j]);
  g_free(cum);
  g_free(sums);
  return worst;
}

/* The Frobenius form's trace: with A the lower-triangular Toeplitz C^-1
 * (A[m,x] = a_{m-x}), p_m^T M p_m = (A F A^T)[m,m], so tr = sum_m (T - m)
 * (A F A^T)[m,m] from Y = A F (T x T, g_free, returned in *@Y when @Y is
 * not NULL). O(T^3). */
static double frobenius_trace(const MfGramSpectral *g, const double *a, double **Y) {
  guint T = g->T;
  double *A = g_new0(double, (gsize)T * T), *AF = g_new(double, (gsize)T * T);
  for (guint m = 0; m < T; m++)
    for (guint x = 0; x <= m; x++)
      A[(gsize)m * T + x] = a[m - x];
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)T, (int)T, (int)T, 1.0, A, (int)T,
              g->F, (int)g->ld, 0.0, AF, (int)T);
  double trace = 0.0;
  for (guint m = 0; m < T; m++)
    trace += (double)(T - m) * cblas_ddot((int)(m + 1), AF + (gsize)m * T, 1, A + (gsize)m * T, 1);
  g_free(A);
  if (Y != NULL)
    *Y = AF;
  else
    g_free(AF);
  return trace;
}

double mf_toeplitz_trace(const MfGramSpectral *g, const double *a) {
  if (g->F != NULL)
    return frobenius_trace(g, a, NULL);
  guint T = g->T, n = g->n;
  /* q_m(l) = l q_{m-1}(l) + a_m, p_m = l^e q_m; rows of P by blocks. */
  double *q = g_new0(double, n);
  double *P = g_new(double, (gsize)TOEPLITZ_BLOCK *n);
  double *MP = g_new(double, (gsize)TOEPLITZ_BLOCK *n);
  double trace = 0.0;
  for (guint m0 = 0; m0 < T; m0 += TOEPLITZ_BLOCK) {
    guint rows = MIN(TOEPLITZ_BLOCK, T - m0);
    for (guint r = 0; r < rows; r++) {
      double am = a[m0 + r];
      for (guint i = 0; i < n; i++) {
        q[i] = g->lambda[i] * q[i] + am;
        P[(gsize)r * n + i] = g->e ? g->lambda[i] * q[i] : q[i];
      }
    }
    cblas_dsymm(CblasRowMajor, CblasRight, CblasLower, (int)rows, (int)n, 1.0, g->M, (int)n, P,
                (int)n, 0.0, MP, (int)n);
    for (guint r = 0; r < rows; r++)
      trace += (double)(T - (m0 + r)) *
               cblas_ddot((int)n, P + (gsize)r * n, 1, MP + (gsize)r * n, 1);
  }
  g_free(q);
  g_free(P);
  g_free(MP);
  return trace;
}

double mf_loss_toeplitz(const MfGramSpectral *g, const double *c, guint width, guint k, guint b,
                        GError **error) {
  g_return_val_if_fail(g != NULL && c != NULL, NAN);
  guint T = g->T;
  if (k == 0 || b == 0 || (guint64)k * b != T || width == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "participation needs T = epochs x batches with both positive and a nonempty "
                "strategy (T = %u, k = %u, b = %u, width %u)",
                T, k, b, width);
    return NAN;
  }
  width = MIN(width, T);
  if (!(c[0] != 0.0) || !isfinite(c[0])) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the strategy matrix C is singular (diagonal %g)", c[0]);
    return NAN;
  }
  double *a = inverse_first_column(c, width, T);
  double trace = mf_toeplitz_trace(g, a);
  g_free(a);
  double loss = mf_sensitivity2_toeplitz(c, width, T, k, b) * trace;
  if (!isfinite(loss)) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the loss of the strategy is not finite (C too ill-conditioned)");
    return NAN;
  }
  return loss;
}

/* X[s,t] = sum_{i < L} c_i c_{i+d} of the Toeplitz C (first column c[0 ..
 * w)), d = t - s, L = T - t. O(min(L, w - d)). */
static double lag_product(const double *c, guint w, guint L, guint d) {
  double x = 0.0;
  for (guint i = 0; i < L && i + d < w; i++)
    x += c[i] * c[i + d];
  return x;
}

/* sens_Pi(C)^2 of the Toeplitz C (first column c[0 .. w)) and, when @grad
 * is not NULL, its gradient (w doubles, added to): the class j* of largest
 * sum_{u,v} |X[s_u, s_v]|, each X[s,t] = sum_{i < T-t} c_i c_{i+d} (d = t -
 * s) differentiated in c; the sign at X = 0 taken as 0 (a subgradient).
 * O(k T) for the value (as mf_sensitivity2_toeplitz), O(k w^2 / b) for
 * the gradient. */
static double sens2_grad(const double *c, guint w, guint T, guint k, guint b, double *grad) {
  double s2 = mf_sensitivity2_toeplitz(c, w, T, k, b);
  if (!grad)
    return s2;
  /* The maximizing class, by the same sums (ties: the first). */
  guint best_j = 0;
  double best = -1.0;
  for (guint j = 0; j < b; j++) {
    double sum = 0.0;
    for (guint v = 0; v < k && v * b < w; v++)
      for (guint u = 0; u + v < k; u++) {
        guint t = j + (u + v) * b, L = T - t, d = v * b;
        sum += (v == 0 ? 1.0 : 2.0) * fabs(lag_product(c, w, L, d));
      }
    if (sum > best) {
      best = sum;
      best_j = j;
    }
  }
  for (guint v = 0; v < k && v * b < w; v++)
    for (guint u = 0; u + v < k; u++) {
      guint t = best_j + (u + v) * b, L = T - t, d = v * b;
      double x = lag_product(c, w, L, d);
      double coef = v == 0 ? 1.0 : 2.0 * (x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : 0.0);
      if (coef == 0.0)
        continue;
      for (guint l = 0; l < w; l++) {
        double dx = 0.0;
        if (l < L && l + d < w)
          dx += c[l + d];
        if (l >= d && l - d < L)
          dx += c[l - d];
        grad[l] += coef * dx;
      }
    }
  return s2;
}

double mf_toeplitz_trace_grad(const MfGramSpectral *g, const double *a, double *ga) {
  guint T = g->T, n = g->n;
  if (g->F != NULL) {
    /* d/da_j (A F A^T)[m,m] = 2 (A F)[m, m-j] (F symmetric): ga_j = 2
     * sum_{m >= j} (T - m) Y[m, m-j]. O(T^2) beside the trace's O(T^3). */
    double *Y = NULL;
    double tr = frobenius_trace(g, a, &Y);
    for (guint j = 0; j < T; j++) {
      double s = 0.0;
      for (guint m = j; m < T; m++)
        s += (double)(T - m) * Y[(gsize)m * T + (m - j)];
      ga[j] = 2.0 * s;
    }
    g_free(Y);
    return tr;
  }
  /* p_m and M p_m for every m (T x n each), then dtau/da_j = sum_i G_j[i]
   * with G_j = r_j + l o G_{j+1}, r_m = 2 (T - m) l^e o (M p_m). */
  double *P = g_new(double, (gsize)T *n), *MP = g_new(double, (gsize)T *n);
  double *q = g_new0(double, n);
  for (guint m = 0; m < T; m++)
    for (guint i = 0; i < n; i++) {
      q[i] = g->lambda[i] * q[i] + a[m];
      P[(gsize)m * n + i] = g->e ? g->lambda[i] * q[i] : q[i];
    }
  cblas_dsymm(CblasRowMajor, CblasRight, CblasLower, (int)T, (int)n, 1.0, g->M, (int)n, P, (int)n,
              0.0, MP, (int)n);
  double tr = 0.0;
  for (guint m = 0; m < T; m++)
    tr += (double)(T - m) * cblas_ddot((int)n, P + (gsize)m * n, 1, MP + (gsize)m * n, 1);
  memset(q, 0, n * sizeof(double)); /* q is G now */
  for (guint m = T; m-- > 0;) {
    double sum = 0.0;
    for (guint i = 0; i < n; i++) {
      double le = g->e ? g->lambda[i] : 1.0;
      q[i] = 2.0 * (T - m) * le * MP[(gsize)m * n + i] + g->lambda[i] * q[i];
      sum += q[i];
    }
    ga[m] = sum;
  }
  g_free(P);
  g_free(MP);
  g_free(q);
  return tr;
}

double mf_toeplitz_banded_loss(const MfGramSpectral *g, const double *c, guint w, guint k, guint b,
                               double *grad) {
  guint T = g->T;
  g_return_val_if_fail(w >= 1 && w <= T && c[0] != 0.0, NAN);
  if (k == 0 || b == 0 || (guint64)k * b != T)
    return NAN;
  double *a = inverse_first_column(c, w, T);
  if (!grad) {
    double S = sens2_grad(c, w, T, k, b, NULL);
    double tr = mf_toeplitz_trace(g, a);
    g_free(a);
    return S * tr;
  }
  double *gs = g_new0(double, w);
  double S = sens2_grad(c, w, T, k, b, gs);
  double *ga = g_new(double, T);
  double tr = mf_toeplitz_trace_grad(g, a, ga);
  /* dtau/dc_l = -(C^-T C^-T ga)_l: two banded back substitutions. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = T; i-- > 0;) {
      double s = ga[i];
      for (guint l = 1; l < w && i + l < T; l++)
        s -= c[l] * ga[i + l];
      ga[i] = s / c[0];
    }
  for (guint l = 0; l < w; l++)
    grad[l] = gs[l] * tr - S * ga[l];
  g_free(gs);
  g_free(ga);
  g_free(a);
  return S * tr;
}
