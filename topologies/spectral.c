/*
 * topologies/spectral.c: spectral gap 1 - |lambda_2(W)| of a gossip matrix.
 *
 * A reversible W (pi_u W[u,v] = pi_v W[v,u]) is similar to the symmetric
 * S = P^{1/2} W P^{-1/2}, P = diag(pi): its spectrum is real and the
 * symmetric solver (dsyevd) is both faster and more accurate than dgeev.
 * Uniform W = (D+I)^{-1}(A+I) is reversible with pi = deg + 1, giving
 * S = (D+I)^{-1/2}(A+I)(D+I)^{-1/2}.
 */
#include <lapacke.h>
#include <math.h>

#include "topologies/internal.h"

static int cmp_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

gboolean topo_gossip_spectral_gap(const TopoGossip *w, double *gap, GError **error) {
  if (w == NULL || gap == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "topo_gossip_spectral_gap: matrix and output are required");
    return FALSE;
  }
  guint n = w->n;
  if (n == 1) {
    *gap = 1.0;
    return TRUE;
  }
  double *a = topo_gossip_dense(w);
  double *wr = g_new(double, n);
  double *wi = NULL;
  lapack_int info;
  if (w->symmetric || w->pi != NULL) {
    if (!w->symmetric) {
      for (guint u = 0; u < n; u++)
        for (guint v = 0; v < n; v++)
          a[(gsize)u * n + v] *= sqrt(w->pi[u] / w->pi[v]);
    }
    info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)n, a, (lapack_int)n, wr);
    for (guint i = 0; i < n && info == 0; i++)
      wr[i] = fabs(wr[i]);
  } else {
    wi = g_new(double, n);
    info = LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)n, a, (lapack_int)n, wr, wi,
                         NULL, 1, NULL, 1);
    for (guint i = 0; i < n && info == 0; i++)
      wr[i] = hypot(wr[i], wi[i]);
  }
  gboolean ok = info == 0;
  if (ok) {
    qsort(wr, n, sizeof *wr, cmp_desc);
    /* Rounding can push |lambda_2| of a disconnected graph a hair above 1. */
    *gap = MAX(0.0, 1.0 - wr[1]);
  } else {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_FAILED,
                "LAPACK eigenvalue solver failed on the %ux%u gossip matrix (info %d)", n, n,
                (int)info);
  }
  g_free(a);
  g_free(wr);
  g_free(wi);
  return ok;
}
