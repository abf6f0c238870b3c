/*
 * mf/mafalda_blt.c: the BLT strategy fitted to a static reversible
 * gossip's workload (docs/design.md, "Mafalda"): the recipe behind the report's
 * "blt" strategy and the protocols' C=blt, so they all compute the very
 * same (theta, w). Several starts at a short horizon (the loss is not
 * convex), then the fit carried to longer horizons.
 */
#include "mf/internal.h"

#include <math.h>
#include <string.h>

/* Least squares weights for the time scales @theta on BSR's coefficients
 * c_1 .. c_{b-1} and zeros up to 2b (Gaussian elimination on the d x d
 * normal equations, slightly regularized). */
static void lsq_weights(const double *theta, double *w, guint d, guint b) {
  double A[MF_BLT_MAX_BUFFERS][MF_BLT_MAX_BUFFERS] = {{0}};
  double r[MF_BLT_MAX_BUFFERS] = {0}, target = 1.0;
  for (guint j = 1; j < 2 * b; j++) {
    target = j < b ? target * (2.0 * j - 1.0) / (2.0 * j) : 0.0; /* BSR's c_j */
    double phi[MF_BLT_MAX_BUFFERS];
    for (guint i = 0; i < d; i++)
      phi[i] = pow(theta[i], j - 1.0);
    for (guint i = 0; i < d; i++) {
      r[i] += phi[i] * target;
      for (guint l = 0; l < d; l++)
        A[i][l] += phi[i] * phi[l];
    }
  }
  for (guint i = 0; i < d; i++)
    A[i][i] = A[i][i] * (1.0 + 1e-6) + 1e-12;
  for (guint i = 0; i < d; i++)
    for (guint l = i + 1; l < d; l++) {
      double f = A[l][i] / A[i][i];
      for (guint m = i; m < d; m++)
        A[l][m] -= f * A[i][m];
      r[l] -= f * r[i];
    }
  for (guint i = d; i-- > 0;) {
    double s = r[i];
    for (guint m = i + 1; m < d; m++)
      s -= A[i][m] * w[m];
    w[i] = isfinite(s / A[i][i]) ? s / A[i][i] : 0.0;
  }
}

/* Fits (theta, w) at the horizon of @g from the start in them; keeps the
 * better of the fit and (@bt, @bw, *@best) in the latter. */
static gboolean try_start(const MfGramSpectral *g, guint k, guint b, guint d, double *theta,
                          double *w, double *bt, double *bw, double *best, GError **error) {
  double L = NAN;
  if (!mf_blt_fit(g, k, b, d, theta, w, &L, error))
    return FALSE;
  if (L < *best) {
    *best = L;
    memcpy(bt, theta, d * sizeof(double));
    memcpy(bw, w, d * sizeof(double));
  }
  return TRUE;
}

/* The multi-start fit at a short horizon: buffers 1..d. */
static gboolean fit_starts(const MfGramSpectral *g, guint k, guint b, guint d, double *theta,
                           double *w, double *loss, GError **error) {
  double bt[MF_BLT_MAX_BUFFERS], bw[MF_BLT_MAX_BUFFERS];
  double t[MF_BLT_MAX_BUFFERS], ww[MF_BLT_MAX_BUFFERS];
  double best = INFINITY;
  for (guint dd = 1; dd <= d; dd++) {

    best = INFINITY;
    if (dd > 1) { /* the previous fit and a new buffer of weight 0 */
      memcpy(t, bt, (dd - 1) * sizeof(double));
      memcpy(ww, bw, (dd - 1) * sizeof(double));
      t[dd - 1] = 1.0 - 1.0 / (2.0 + b);
      ww[dd - 1] = 0.0;
      if (!try_start(g, k, b, dd, t, ww, bt, bw, &best, error))
        return FALSE;
    }
    /* Time scales 1 / (1 - theta) spread geometrically up to b^s. */
    static const double spread[] = {1.0, 1.5, 2.0};
    for (guint s = 0; s < G_N_ELEMENTS(spread); s++) {
      for (guint i = 0; i < dd; i++) {
        double tau = pow((double)MAX(b, 2), spread[s] * (i + 0.5) / dd);
        t[i] = 1.0 - 1.0 / (1.0 + tau);
      }
      lsq_weights(t, ww, dd, b);
      if (!try_start(g, k, b, dd, t, ww, bt, bw, &best, error))
        return FALSE;
    }
  }
  memcpy(theta, bt, d * sizeof(double));
  memcpy(w, bw, d * sizeof(double));
  if (loss)
    *loss = best;
  return TRUE;
}

/* The fit at k epochs from the fit at k / 4 (recursively) when k >= 8,
 * else from several starts. */
static gboolean blt_warm(const MfGramSpectral *g, guint k, guint b, guint d, double *theta,
                         double *w, double *loss, GError **error) {
  if (k < 8)
    return fit_starts(g, k, b, d, theta, w, loss, error);
  MfGramSpectral shorter = *g;
  shorter.T = (k / 4) * b;
  return blt_warm(&shorter, k / 4, b, d, theta, w, NULL, error) &&
         mf_blt_fit(g, k, b, d, theta, w, loss, error);
}

/* The arguments mf_mafalda_blt and mf_mafalda_blt_spectral share. */
static gboolean check_blt_args(guint k, guint b, guint d, GError **error) {
  if (d == 0 || d > MF_BLT_MAX_BUFFERS) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "BLT strategy: %u buffers, must be between 1 and %d", d, MF_BLT_MAX_BUFFERS);
    return FALSE;
  }
  if (k == 0 || b == 0 || (guint64)k * b > G_MAXUINT) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "BLT strategy: epochs x batches = %u x %u must be positive and fit a guint", k, b);
    return FALSE;
  }
  return TRUE;
}

gboolean mf_mafalda_blt(const double *W, guint n, guint k, guint b, guint d, double *theta,
                        double *w, double *loss, GError **error) {
  g_return_val_if_fail(W != NULL && theta != NULL && w != NULL, FALSE);
  if (!check_blt_args(k, b, d, error))
    return FALSE;
  MfGramSpectral *g = mf_gram_spectral_new(W, n, k * b, MF_WORKLOAD_POST_AVERAGE, error);
  if (!g)
    return FALSE;
  gboolean ok = blt_warm(g, k, b, d, theta, w, loss, error);
  mf_gram_spectral_free(g);
  return ok;
}

gboolean mf_mafalda_blt_spectral(const MfGramSpectral *g, guint k, guint b, guint d,
                                 double *theta, double *w, double *loss, GError **error) {
  g_return_val_if_fail(g != NULL && theta != NULL && w != NULL, FALSE);
  return check_blt_args(k, b, d, error) && mf_spectral_check_fit(g, k, b, "BLT strategy", error) &&
         blt_warm(g, k, b, d, theta, w, loss, error);
}

double *mf_mafalda_blt_c(const double *W, guint n, guint T, guint k, guint b, guint d,
                         double *theta, double *w, GError **error) {
  if ((guint64)k * b != T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "T = %u is not epochs x batches = %u x %u", T, k, b);
    return NULL;
  }
  double th[MF_BLT_MAX_BUFFERS], ww[MF_BLT_MAX_BUFFERS];
  if (!mf_mafalda_blt(W, n, k, b, d, th, ww, NULL, error))
    return NULL;
  double *C = mf_matrix_new(T, T, error);
  if (!C)
    return NULL;
  double *c = g_new(double, T);
  mf_blt_coefficients(th, ww, d, T, c);
  for (gsize i = 0; i < T; i++)
    for (gsize j = 0; j <= i; j++)
      C[i * T + j] = c[i - j];
  g_free(c);
  if (theta)
    memcpy(theta, th, d * sizeof(double));
  if (w)
    memcpy(w, ww, d * sizeof(double));
  return C;
}
