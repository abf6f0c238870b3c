/*
 * mf/sdp.c: the exact squared sensitivity of one participation pattern,
 * max { <X, U> : U psd, diag(U) <= 1 }, by a certified Burer-Monteiro solver.
 *
 * Why this solver: the patterns are small (k <= T, a few hundred at most) and
 * X is a Gram matrix, so the optimum has diag(U) = 1 (raising a diagonal entry
 * of U adds X_ii >= 0). On the product of unit spheres the "mixing method"
 * (exact maximization in one row of V at a time) increases the objective
 * monotonically, needs no step size, and with p > sqrt(2k) columns has no
 * spurious local maxima for generic X. Every answer is certified by a dual
 * point, so a slow convergence can only make the value conservative (larger),
 * never optimistic.
 */
#include "mf/internal.h"
#include "spec/spec.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#define SDP_MAX_SWEEPS 20000u
/* A certificate costs O(k^3), a sweep O(k^2 p): check every few sweeps. */
#define SDP_CHECK_EVERY 8u

/* sum |X|, the Thm 5.2 bound, itself an upper bound of the SDP value. */
static double abs_sum(const double *X, guint k) {
  double s = 0.0;
  for (gsize i = 0; i < (gsize)k * k; i++)
    s += fabs(X[i]);
  return s;
}

/*
 * Dual certificate: with y = max(0, diag(X V V^T)), Diag(y) - X + l^- I is
 * psd for l^- = max(0, -lambda_min(Diag(y) - X)), so (y + l^-) is feasible
 * for the dual min { sum y : Diag(y) - X psd, y >= 0 } and bounds the primal.
 */
static gboolean certificate(const double *X, const double *XV, const double *V, guint k, guint p,
                            double *S, double *w, double *upper, GError **error) {
  double sum_y = 0.0;
  memcpy(S, X, sizeof(double) * k * k);
  for (guint i = 0; i < k; i++) {
    double y = cblas_ddot((int)p, XV + (gsize)i * p, 1, V + (gsize)i * p, 1);
    y = MAX(y, 0.0);
    sum_y += y;
    for (guint j = 0; j < k; j++)
      S[(gsize)i * k + j] = -S[(gsize)i * k + j];
    S[(gsize)i * k + i] += y;
  }
  lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'L', (lapack_int)k, S, (lapack_int)k, w);
  if (info != 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the eigensolver failed on a %u x %u certificate (LAPACK info %d)", k, k,
                (int)info);
    return FALSE;
  }
  *upper = sum_y + (double)k * MAX(0.0, -w[0]);
  return TRUE;
}

gboolean mf_sdp_certify(const double *X, guint k, const double *V, guint p, double *upper,
                        GError **error) {
  g_return_val_if_fail(X != NULL && V != NULL && upper != NULL && k > 0 && p > 0, FALSE);
  double *XV = g_new(double, (gsize)k * p), *S = g_new(double, (gsize)k * k), *w = g_new(double, k);
  cblas_dsymm(CblasRowMajor, CblasLeft, CblasLower, (int)k, (int)p, 1.0, X, (int)k, V, (int)p, 0.0,
              XV, (int)p);
  gboolean ok = certificate(X, XV, V, k, p, S, w, upper, error);
  if (ok)
    *upper = MIN(*upper, abs_sum(X, k));
  g_free(XV);
  g_free(S);
  g_free(w);
  return ok;
}

double mf_sdp_max(const double *X, guint k, double tol, MfSdpInfo *info, GError **error) {
  MfSdpInfo local = {0};
  if (!info)
    info = &local;
  memset(info, 0, sizeof *info);
  if (k == 0 || !(tol > 0) || X == NULL) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "mf_sdp_max needs k >= 1, a matrix and a positive tolerance (k = %u, tol = %g)", k,
                tol);
    return NAN;
  }
  for (gsize i = 0; i < (gsize)k * k; i++) {
    if (!isfinite(X[i])) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "the SDP matrix has a non-finite entry at (%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT
                  ")",
                  i / k, i % k);
      return NAN;
    }
  }
  /* On X / 2^e with max |X| in [1/2, 1), scaled back: the mixing steps
   * square entries (X of 1e200, sigma = 1e-100, overflowed them to a zero
   * start and a loose value) and the stopping rule is absolute below 1. */
  double amax = 0.0;
  for (gsize i = 0; i < (gsize)k * k; i++)
    amax = MAX(amax, fabs(X[i]));
  if (amax == 0.0) {
    *info = (MfSdpInfo){0.0, 0.0, 1, 0, TRUE};
    return 0.0;
  }
  int e;
  frexp(amax, &e);
  if (e != 0) {
    double *Xn = g_new(double, (gsize)k *k);
    for (gsize i = 0; i < (gsize)k * k; i++)
      Xn[i] = ldexp(X[i], -e);
    double v = mf_sdp_max(Xn, k, tol, info, error);
    g_free(Xn);
    if (isnan(v))
      return v;
    /* Overflow is +inf; a positive value never underflows to 0. */
    info->lower = ldexp(info->lower, e);
    info->upper = mf_no_zero(ldexp(info->upper, e), info->upper > 0);
    return info->upper;
  }
  double bound = abs_sum(X, k);
  if (k == 1) {
    double v = MAX(X[0], 0.0);
    *info = (MfSdpInfo){v, v, 1, 0, TRUE};
    return v;
  }

  guint p = MIN(k, (guint)ceil(sqrt(2.0 * k)) + 1);
  double *V = g_new(double, (gsize)k *p);
  double *XV = g_new0(double, (gsize)k *p);
  double *S = g_new(double, (gsize)k *k);
  double *w = g_new(double, k);
  double *g = g_new(double, p);

  /* A fixed pseudo-random start: deterministic, and away from the saddle
   * points a symmetric start (all rows equal) could sit on. */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 20240521);
  for (guint i = 0; i < k; i++) {
    double nrm = 0.0;
    for (guint c = 0; c < p; c++) {
      double x = gsl_rng_uniform(rng) - 0.5;
      V[(gsize)i * p + c] = x;
      nrm += x * x;
    }
    cblas_dscal((int)p, 1.0 / sqrt(nrm), V + (gsize)i * p, 1);
  }
  gsl_rng_free(rng);
  cblas_dsymm(CblasRowMajor, CblasLeft, CblasLower, (int)k, (int)p, 1.0, X, (int)k, V, (int)p, 0.0,
              XV, (int)p);

  double upper = bound, lower = -INFINITY;
  gboolean ok = TRUE, converged = FALSE;
  guint sweep = 0;
  while (sweep < SDP_MAX_SWEEPS) {
    for (guint i = 0; i < k; i++) {
      double *vi = V + (gsize)i * p;
      const double *xvi = XV + (gsize)i * p;
      double xii = X[(gsize)i * k + i], nrm = 0.0;
      /* The objective in row i is 2 <v_i, sum_{j != i} X_ij v_j> + const. */
      for (guint c = 0; c < p; c++) {
        g[c] = xvi[c] - xii * vi[c];
        nrm += g[c] * g[c];
      }
      if (!(nrm > 0))
        continue;
      nrm = sqrt(nrm);
      /* Keep XV = X V current: column i of X times (v_new - v_old). */
      for (guint c = 0; c < p; c++) {
        double d = g[c] / nrm - vi[c];
        vi[c] += d;
        g[c] = d;
      }
      cblas_dger(CblasRowMajor, (int)k, (int)p, 1.0, X + i, (int)k, g, 1, XV, (int)p);
    }
    sweep++;
    if (sweep % SDP_CHECK_EVERY != 0 && sweep != 1)
      continue;
    /* Recompute XV from scratch: the rank-one updates drift over many sweeps. */
    cblas_dsymm(CblasRowMajor, CblasLeft, CblasLower, (int)k, (int)p, 1.0, X, (int)k, V, (int)p,
                0.0, XV, (int)p);
    double f = cblas_ddot((int)(k * p), XV, 1, V, 1);
    lower = MAX(lower, f);
    double u;
    if (!(ok = certificate(X, XV, V, k, p, S, w, &u, error)))
      break;
    upper = MIN(upper, u);
    if (upper - lower <= tol * MAX(1.0, fabs(upper))) {
      converged = TRUE;
      break;
    }
  }
  g_free(V);
  g_free(XV);
  g_free(S);
  g_free(w);
  g_free(g);
  if (!ok)
    return NAN;
  upper = MIN(upper, bound);
  *info = (MfSdpInfo){MIN(lower, upper), upper, p, sweep, converged};
  return upper;
}

gboolean mf_gram_sensitivity2(const double *X, guint T, guint b, MfSensitivity kind, double *out,
                              GError **error) {
  if (X == NULL || T == 0 || b == 0 || T % b != 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "the participation interval b = %u must divide the number of steps T = %u", b, T);
    return FALSE;
  }
  guint k = T / b;
  kind = mf_sensitivity_choose(kind, 1, T, b, NULL);
  if (kind == MF_SENSITIVITY_BOUND) {
    *out = mf_sensitivity2_gram(X, T, k, b);
    return TRUE;
  }
  if (kind != MF_SENSITIVITY_EXACT) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "unknown sensitivity kind %d",
                (int)kind);
    return FALSE;
  }
  double *sub = g_new(double, (gsize)k *k);
  double best = 0.0;
  gboolean ok = TRUE;
  for (guint j = 0; j < b && ok; j++) {
    for (guint a = 0; a < k; a++)
      for (guint c = 0; c < k; c++)
        sub[(gsize)a * k + c] = X[(gsize)(j + a * b) * T + (j + c * b)];
    double v = mf_sdp_max(sub, k, 1e-9, NULL, error);
    if (isnan(v))
      ok = FALSE;
    else
      best = MAX(best, v);
  }
  g_free(sub);
  if (ok)
    *out = best;
  return ok;
}

gboolean mf_sensitivity_parse(const char *name, MfSensitivity *out, GError **error) {
  if (name && g_str_equal(name, "bound")) {
    *out = MF_SENSITIVITY_BOUND;
    return TRUE;
  }
  if (name && g_str_equal(name, "exact")) {
    *out = MF_SENSITIVITY_EXACT;
    return TRUE;
  }
  if (name && g_str_equal(name, "auto")) {
    *out = MF_SENSITIVITY_AUTO;
    return TRUE;
  }
  g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
              "unknown sensitivity '%s' (expected auto, bound or exact)", name ? name : "(null)");
  return FALSE;
}

const char *mf_sensitivity_name(MfSensitivity kind) {
  return kind == MF_SENSITIVITY_EXACT ? "exact" : kind == MF_SENSITIVITY_AUTO ? "auto" : "bound";
}

/* CPU seconds per k^3 of one pattern's SDP: the slowest measured
 * (mf/sensitivity.h). */
#define SDP_SECONDS_PER_K3 1.2e-7

double mf_sensitivity_exact_seconds(guint64 n_blocks, guint T, guint b) {
  if (b == 0 || T % b != 0)
    return 0.0;
  double k = (double)(T / b);
  return (double)n_blocks * b * k * k * k * SDP_SECONDS_PER_K3;
}

MfSensitivity mf_sensitivity_choose(MfSensitivity asked, guint64 n_blocks, guint T, guint b,
                                    double *seconds) {
  double s = mf_sensitivity_exact_seconds(n_blocks, T, b);
  if (seconds)
    *seconds = s;
  if (asked != MF_SENSITIVITY_AUTO)
    return asked;
  return s <= MF_SENSITIVITY_AUTO_SECONDS ? MF_SENSITIVITY_EXACT : MF_SENSITIVITY_BOUND;
}
