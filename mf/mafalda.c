/*
 * mf/mafalda.c: Mafalda's noise correlation for a gossip sequence
 * (paper Alg. 2): the post-average workload's Gram matrix, then the
 * optimized factor. The one recipe behind `mafalda` in protocols, scenarios
 * and the CLI, so they all compute the very same C.
 */
#include "mf/internal.h"

#include <string.h>

double *mf_mafalda_c(guint n, guint T, guint k, guint b, guint band, const double *W,
                     MfGossipAtFunc gossip_at, gpointer user_data, GError **error) {
  g_return_val_if_fail((W != NULL) != (gossip_at != NULL), NULL);
  if (!mf_gram_check_memory(n, T, 0, error))
    return NULL;
  double *H = W != NULL ? mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, error)
                        : mf_gram_time_varying(n, T, MF_WORKLOAD_POST_AVERAGE, gossip_at, user_data,
                                               error);
  if (H == NULL)
    return NULL;
  MfOptions opt;
  mf_options_init(&opt);
  opt.band = band;
  MfResult *res = NULL;
  gboolean ok = mf_optimize(H, T, k, b, &opt, &res, error);
  g_free(H);
  double *C = ok ? g_memdup2(res->C, (gsize)T * T * sizeof(double)) : NULL;
  mf_result_free(res);
  return C;
}

void mf_mafalda_options_init(MfOptions *opt, guint band) {
  mf_options_init(opt);
  opt->band = band;
  if (band)
    opt->ftol = 1e-10;
}

double *mf_mafalda_c_gram(const double *H, guint T, guint k, guint b, guint band, GError **error) {
  g_return_val_if_fail(H != NULL, NULL);
  MfOptions opt;
  mf_mafalda_options_init(&opt, band);
  MfResult *res = NULL;
  double *C = NULL;
  if (mf_optimize(H, T, k, b, &opt, &res, error))
    C = g_steal_pointer(&res->C);
  mf_result_free(res);
  return C;
}

/* The fit at k epochs, started from the fit at k / 4 (recursively) when
 * k >= 8 and it does better: the stationary part of the optimum is then
 * already there, and the shorter fits cost a quarter each. @c: in the
 * start, out the fit (never worse than the start). */
static gboolean toeplitz_warm(const MfGramSpectral *g, guint k, guint b, guint w, double *c,
                              double *loss, GError **error) {
  if (k >= 8) {
    MfGramSpectral shorter = *g;
    shorter.T = (k / 4) * b;
    double *cs = g_memdup2(c, w * sizeof(double));
    /* The loss is not convex in c: the shorter fit is a start only when it
     * does better on this horizon than the start it came from. */
    if (toeplitz_warm(&shorter, k / 4, b, w, cs, NULL, NULL) &&
        mf_toeplitz_banded_loss(g, cs, w, k, b, NULL) <
            mf_toeplitz_banded_loss(g, c, w, k, b, NULL))
      memcpy(c, cs, w * sizeof(double));
    g_free(cs);
  }
  return mf_toeplitz_fit(g, k, b, w, c, loss, error);
}

gboolean mf_mafalda_toeplitz(const double *W, guint n, guint k, guint b, guint w, double *c,
                             double *loss, GError **error) {
  g_return_val_if_fail(W != NULL && c != NULL, FALSE);
  if (k == 0 || b == 0 || w == 0 || (guint64)k * b > G_MAXUINT || w > k * b) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "banded Toeplitz strategy: band %u must be between 1 and T = %u x %u", w, k, b);
    return FALSE;
  }
  MfGramSpectral *g = mf_gram_spectral_new(W, n, k * b, MF_WORKLOAD_POST_AVERAGE, error);
  if (!g)
    return FALSE;
  gboolean ok = mf_mafalda_toeplitz_spectral(g, k, b, w, c, loss, error);
  mf_gram_spectral_free(g);
  return ok;
}

gboolean mf_spectral_check_fit(const MfGramSpectral *g, guint k, guint b, const char *what,
                               GError **error) {
  if (g->T == (guint64)k * b && g->e == 1)
    return TRUE;
  g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
              "%s: the spectral form is for T = %u (%s), not the post-average workload over "
              "T = %u x %u",
              what, g->T, g->e == 1 ? "post-average" : "messages", k, b);
  return FALSE;
}

gboolean mf_mafalda_toeplitz_spectral(const MfGramSpectral *g, guint k, guint b, guint w,
                                      double *c, double *loss, GError **error) {
  g_return_val_if_fail(g != NULL && c != NULL, FALSE);
  if (k == 0 || b == 0 || w == 0 || (guint64)k * b > G_MAXUINT || w > k * b) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "banded Toeplitz strategy: band %u must be between 1 and T = %u x %u", w, k, b);
    return FALSE;
  }
  if (!mf_spectral_check_fit(g, k, b, "banded Toeplitz strategy", error))
    return FALSE;
  guint width = 0, wi = MIN(w, b);
  double *start = mf_baseline_coefficients(MF_BASELINE_BSR, k * b, wi, &width, error);
  gboolean ok = start != NULL;
  for (guint l = 0; ok && l < w; l++)
    c[l] = l < wi ? start[l] : 0.0;
  g_free(start);
  /* Bands up to b first (no entry between two participations: a smooth
   * loss), then doubled up to w from the narrower fit padded with zeros. */
  while (ok) {
    ok = toeplitz_warm(g, k, b, wi, c, loss, error);
    if (wi == w)
      break;
    wi = MIN(2 * wi, w);
  }
  return ok;
}


double *mf_mafalda_toeplitz_c(const double *W, guint n, guint T, guint k, guint b, guint w,
                              GError **error) {
  if ((guint64)k * b != T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "T = %u is not epochs x batches = %u x %u", T, k, b);
    return NULL;
  }
  double *c = g_new(double, MAX(w, 1));
  double *C = NULL;
  if (mf_mafalda_toeplitz(W, n, k, b, w, c, NULL, error) &&
      (C = mf_matrix_new(T, T, error)) != NULL)
    for (gsize i = 0; i < T; i++)
      for (gsize j = i + 1 > w ? i + 1 - w : 0; j <= i; j++)
        C[i * T + j] = c[i - j];
  g_free(c);
  return C;
}
