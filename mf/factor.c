/*
 * mf/factor.c: strategies C_local, their sensitivity under cyclic
 * (k,b)-participation and their loss (docs/design.md, "Mafalda"; paper eq.
 * "optim loss MAFALDA").
 */
#include "mf/internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

double *mf_factor_from_gram(const double *X, guint T, GError **error) {
  g_return_val_if_fail(X != NULL, NULL);
  if (T == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "T must be positive");
    return NULL;
  }
  double *Y = mf_matrix_new(T, T, error);
  double *C = Y ? mf_matrix_new(T, T, error) : NULL;
  if (!C) {
    g_free(Y);
    return NULL;
  }
  /* Y = J X J, symmetric: layout-agnostic. */
  for (gsize i = 0; i < T; i++)
    for (gsize j = 0; j < T; j++)
      Y[i * T + j] = X[(T - 1 - i) * T + (T - 1 - j)];
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)T, Y, (lapack_int)T);
  if (info != 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the Gram matrix C^T C is not positive definite (Cholesky fails at row %d)",
                (int)info);
    g_free(Y);
    g_free(C);
    return NULL;
  }
  /* Column-major L(i,j) = Y[i + j T]; C = J L^T J: C(i,j) = L(T-1-j, T-1-i), i >= j. */
  for (gsize i = 0; i < T; i++)
    for (gsize j = 0; j <= i; j++)
      C[i * T + j] = Y[(T - 1 - j) + (T - 1 - i) * T];
  g_free(Y);
  return C;
}

static gboolean participation_ok(guint T, guint k, guint b) {
  return k > 0 && b > 0 && (guint64)k * b == T;
}

double mf_sensitivity2_gram(const double *X, guint T, guint k, guint b) {
  g_return_val_if_fail(X != NULL, NAN);
  if (!participation_ok(T, k, b))
    return NAN;
  double worst = 0.0;
  for (guint j = 0; j < b; j++) {
    double sum = 0.0;
    for (guint u = 0; u < k; u++)
      for (guint v = 0; v < k; v++)
        sum += fabs(X[(gsize)(j + u * b) * T + (j + v * b)]);
    worst = MAX(worst, sum);
  }
  return worst;
}

double mf_sensitivity2(const double *C, guint T, guint k, guint b) {
  g_return_val_if_fail(C != NULL, NAN);
  if (!participation_ok(T, k, b))
    return NAN;
  /* On C / 2^e (exact), then times 4^e: entries of 1e154 or 1e-300 would
   * overflow or underflow C^T C. */
  double amax = 0.0;
  for (gsize i = 0; i < (gsize)T * T; i++)
    amax = MAX(amax, fabs(C[i]));
  if (isfinite(amax) && amax > 0 && (amax > 0x1p200 || amax < 0x1p-200)) {
    int e;
    frexp(amax, &e);
    double *Cn = mf_normalized_copy(C, (gsize)T * T);
    double s2 = mf_sensitivity2(Cn, T, k, b);
    g_free(Cn);
    s2 = ldexp(s2, 2 * e);
    /* Below the normal range the value has lost bits, maybe downwards: a
     * sensitivity that calibrates noise must not be too small, so 0
     * (callers refuse a C of zero sensitivity). */
    return s2 < DBL_MIN ? 0.0 : s2;
  }
  double worst = 0.0;
  for (guint j = 0; j < b; j++) {
    double sum = 0.0;
    for (guint u = 0; u < k; u++) {
      for (guint v = u; v < k; v++) {
        /* (C^T C)[s,t]: the dot product of columns s and t. */
        double x = cblas_ddot((int)T, C + (j + u * b), (int)T, C + (j + v * b), (int)T);
        sum += (u == v ? 1.0 : 2.0) * fabs(x);
      }
    }
    worst = MAX(worst, sum);
  }
  return worst;
}

static gboolean is_lower_triangular(const double *C, guint T) {
  for (gsize i = 0; i < T; i++)
    for (gsize j = i + 1; j < T; j++)
      if (C[i * T + j] != 0.0)
        return FALSE;
  return TRUE;
}

double mf_loss(const double *H, const double *C, guint T, guint k, guint b, GError **error) {
  g_return_val_if_fail(H != NULL && C != NULL, NAN);
  if (!participation_ok(T, k, b)) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "participation needs T = epochs x batches with both positive "
                "(T = %u, k = %u, b = %u)",
                T, k, b);
    return NAN;
  }
  gsize TT = (gsize)T * T;
  double *Ci = mf_matrix_new(T, T, error);
  double *K = Ci ? mf_matrix_new(T, T, error) : NULL;
  lapack_int *piv = NULL;
  double loss = NAN;
  if (!K)
    goto out;
  memcpy(Ci, C, TT * sizeof(double));
  lapack_int info;
  if (is_lower_triangular(C, T)) {
    info = LAPACKE_dtrtri(LAPACK_ROW_MAJOR, 'L', 'N', (lapack_int)T, Ci, (lapack_int)T);
  } else {
    piv = g_new(lapack_int, T);
    info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)T, (lapack_int)T, Ci, (lapack_int)T, piv);
    if (info == 0)
      info = LAPACKE_dgetri(LAPACK_ROW_MAJOR, (lapack_int)T, Ci, (lapack_int)T, piv);
  }
  if (info != 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the strategy matrix C is singular (LAPACK info %d)", (int)info);
    goto out;
  }
  /* (C^T C)^{-1} = C^{-1} C^{-T}; the loss takes <H, C^{-1} C^{-T}>. */
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)T, (int)T, 1.0, Ci, (int)T, 0.0, K,
              (int)T);
  double tr = 0.0;
  for (gsize i = 0; i < T; i++) {
    tr += H[i * T + i] * K[i * T + i];
    for (gsize j = 0; j < i; j++)
      tr += (H[i * T + j] + H[j * T + i]) * K[i * T + j];
  }
  loss = mf_sensitivity2(C, T, k, b) * tr;
  if (!isfinite(loss)) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the loss of the strategy is not finite (C too ill-conditioned)");
    loss = NAN;
  }
out:
  g_free(Ci);
  g_free(K);
  g_free(piv);
  return loss;
}

double *mf_baseline(MfBaseline which, guint T, guint band, GError **error) {
  guint width = 0;
  double *coef = mf_baseline_coefficients(which, T, band, &width, error);
  if (!coef)
    return NULL;
  double *C = mf_matrix_new(T, T, error);
  if (C) {
    for (gsize i = 0; i < T; i++)
      for (gsize j = 0; j <= i; j++)
        C[i * T + j] = i - j < width ? coef[i - j] : 0.0;
  }
  g_free(coef);
  return C;
}

double *mf_normalized_copy(const double *C, gsize n) {
  double *out = g_memdup2(C, n * sizeof(double));
  double amax = 0.0;
  for (gsize i = 0; i < n; i++)
    amax = MAX(amax, fabs(C[i]));
  if (!(amax > 0) || !isfinite(amax))
    return out;
  int e;
  frexp(amax, &e); /* amax = m 2^e, m in [1/2, 1) */
  for (gsize i = 0; i < n; i++)
    out[i] = ldexp(C[i], -e);
  return out;
}
