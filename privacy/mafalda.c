/*
 * privacy/mafalda.c: Mafalda's noise correlation for a gossip sequence
 * (paper Alg. 2): the post-average workload's Gram matrix, then the
 * optimized factor. The one recipe behind `mafalda` in protocols, scenarios
 * and the CLI, so they all compute the very same C.
 */
#include "privacy/internal.h"

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
