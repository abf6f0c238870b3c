/*
 * privacy/mafalda.c: Mafalda's noise correlation for a gossip sequence
 * (paper Alg. 2): the post-average workload's Gram matrix, then the
 * optimized factor. The one recipe behind `mafalda` in protocols, scenarios
 * and the CLI, so they all compute the very same C.
 */
#include "privacy/internal.h"

#include <string.h>

double *priv_mafalda_c(guint n, guint T, guint k, guint b, guint band, const double *W,
                       PrivGossipAtFunc gossip_at, gpointer user_data, GError **error) {
  g_return_val_if_fail((W != NULL) != (gossip_at != NULL), NULL);
  if (!priv_gram_check_memory(n, T, 0, error))
    return NULL;
  double *H = W != NULL
                  ? priv_gram_static(W, n, T, PRIV_WORKLOAD_POST_AVERAGE, PRIV_GRAM_AUTO, 0, error)
                  : priv_gram_time_varying(n, T, PRIV_WORKLOAD_POST_AVERAGE, gossip_at, user_data,
                                           error);
  if (H == NULL)
    return NULL;
  PrivMfOptions opt;
  priv_mf_options_init(&opt);
  opt.band = band;
  PrivMfResult *res = NULL;
  gboolean ok = priv_mf_optimize(H, T, k, b, &opt, &res, error);
  g_free(H);
  double *C = ok ? g_memdup2(res->C, (gsize)T * T * sizeof(double)) : NULL;
  priv_mf_result_free(res);
  return C;
}

/* The fit at k epochs, started from the fit at k / 4 (recursively) when
 * k >= 8 and it does better: the stationary part of the optimum is then
 * already there, and the shorter fits cost a quarter each. @c: in the
 * start, out the fit (never worse than the start). */
static gboolean toeplitz_warm(const PrivGramSpectral *g, guint k, guint b, guint w, double *c,
                              double *loss, GError **error) {
  if (k >= 8) {
    PrivGramSpectral shorter = *g;
    shorter.T = (k / 4) * b;
    double *cs = g_memdup2(c, w * sizeof(double));
    /* The loss is not convex in c: the shorter fit is a start only when it
     * does better on this horizon than the start it came from. */
    if (toeplitz_warm(&shorter, k / 4, b, w, cs, NULL, NULL) &&
        priv_mf_toeplitz_banded_loss(g, cs, w, k, b, NULL) <
            priv_mf_toeplitz_banded_loss(g, c, w, k, b, NULL))
      memcpy(c, cs, w * sizeof(double));
    g_free(cs);
  }
  return priv_mf_toeplitz_fit(g, k, b, w, c, loss, error);
}

gboolean priv_mafalda_toeplitz(const double *W, guint n, guint k, guint b, guint w, double *c,
                               double *loss, GError **error) {
  g_return_val_if_fail(W != NULL && c != NULL, FALSE);
  if (k == 0 || b == 0 || w == 0 || (guint64)k * b > G_MAXUINT || w > k * b) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "banded Toeplitz strategy: band %u must be between 1 and T = %u x %u", w, k, b);
    return FALSE;
  }
  PrivGramSpectral *g = priv_gram_spectral_new(W, n, k * b, PRIV_WORKLOAD_POST_AVERAGE, error);
  if (!g)
    return FALSE;
  guint width = 0, wi = MIN(w, b);
  double *start = priv_mf_baseline_coefficients(PRIV_BASELINE_BSR, k * b, wi, &width, error);
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
  priv_gram_spectral_free(g);
  return ok;
}

double *priv_mafalda_toeplitz_c(const double *W, guint n, guint T, guint k, guint b, guint w,
                                GError **error) {
  if ((guint64)k * b != T) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "T = %u is not epochs x batches = %u x %u", T, k, b);
    return NULL;
  }
  double *c = g_new(double, MAX(w, 1));
  double *C = NULL;
  if (priv_mafalda_toeplitz(W, n, k, b, w, c, NULL, error) &&
      (C = priv_matrix_new(T, T, error)) != NULL)
    for (gsize i = 0; i < T; i++)
      for (gsize j = i + 1 > w ? i + 1 - w : 0; j <= i; j++)
        C[i * T + j] = c[i - j];
  g_free(c);
  return C;
}
