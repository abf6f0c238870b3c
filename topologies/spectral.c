/*
 * topologies/spectral.c: spectral gap 1 - |lambda_2(W)| of a gossip matrix.
 *
 * A reversible W (pi_u W[u,v] = pi_v W[v,u]) is similar to the symmetric
 * S = P^{1/2} W P^{-1/2}, P = diag(pi): its spectrum is real and the
 * symmetric solver (dsyevd) is both faster and more accurate than dgeev.
 * Uniform W = (D+I)^{-1}(A+I) is reversible with pi = deg + 1, giving
 * S = (D+I)^{-1/2}(A+I)(D+I)^{-1/2}.
 *
 * Up to TOPO_GAP_DENSE_MAX nodes the whole spectrum comes from LAPACK (exact,
 * O(n^3) time, O(n^2) memory). Above, an n x n matrix is out of the question
 * (a 67-million-node ring would need 36 EB), so the gap comes from ARPACK's
 * Lanczos iteration (igraph_arpack_rssolve) on S with its known top
 * eigenvector v = sqrt(pi)/|sqrt(pi)| deflated: the largest-modulus
 * eigenvalue of S - v v^T is |lambda_2| (1 again for a disconnected graph,
 * whose eigenvalue 1 is multiple). Only O(ncv n) memory and a bounded number
 * of products with the sparse W.
 */
#include <lapacke.h>
#include <math.h>

#include "topologies/internal.h"

/* Lanczos basis size: enough for nev = 1 with clustered spectra. */
#define ARPACK_NCV 24

static int cmp_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

static gboolean gap_dense(const TopoGossip *w, double *gap, GError **error) {
  guint n = w->n;
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
    info = LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)n, a, (lapack_int)n, wr, wi, NULL,
                         1, NULL, 1);
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

typedef struct {
  const TopoGossip *w;
  const double *s; /* sqrt(pi_u), 1 for a symmetric W */
  const double *v; /* s / |s|: the eigenvector of eigenvalue 1 */
} Deflated;

/* to = (S - v v^T) from, S = P^{1/2} W P^{-1/2}. */
static igraph_error_t deflated_mv(igraph_real_t *to, const igraph_real_t *from, int n,
                                  void *extra) {
  const Deflated *d = extra;
  const TopoGossip *w = d->w;
  double dot = 0.0;
  for (int u = 0; u < n; u++)
    dot += d->v[u] * from[u];
  for (int u = 0; u < n; u++) {
    double acc = 0.0;
    for (guint i = w->row_ptr[u]; i < w->row_ptr[u + 1]; i++)
      acc += w->val[i] * from[w->col[i]] / d->s[w->col[i]];
    to[u] = d->s[u] * acc - d->v[u] * dot;
  }
  return IGRAPH_SUCCESS;
}

gsize topo_gap_sparse_bytes(guint n) {
  /* Lanczos basis, ARPACK's workspace (about ncv^2 + 8 ncv) and three
   * n-vectors of ours, in doubles. */
  gsize per_node = ARPACK_NCV + 6;
  return spec_size_mul(spec_size_add(spec_size_mul(n, per_node), ARPACK_NCV * (ARPACK_NCV + 8)),
                       sizeof(double));
}

gboolean topo_gossip_gap_sparse(const TopoGossip *w, guint64 max_work, double *gap,
                                TopoSummaryStatus *status, GError **error) {
  guint n = w->n;
  *status = TOPO_SUMMARY_COMPUTED;
  if (!w->symmetric && w->pi == NULL) {
    *status = TOPO_SUMMARY_NOT_REVERSIBLE;
    return TRUE;
  }
  if (n <= ARPACK_NCV + 1) /* ARPACK needs ncv < n: LAPACK is exact and cheap here */
    return gap_dense(w, gap, error);
  /* A product touches every stored entry; each also costs a
   * re-orthogonalisation against the basis. */
  guint64 per_product = (guint64)topo_gossip_nnz(w) + (guint64)(ARPACK_NCV + 4) * n;
  guint64 products = max_work / per_product;
  if (products < 4 * ARPACK_NCV) {
    *status = TOPO_SUMMARY_SKIPPED_WORK;
    return TRUE;
  }
  if (topo_gap_sparse_bytes(n) > spec_memory_limit()) {
    *status = TOPO_SUMMARY_SKIPPED_MEMORY;
    return TRUE;
  }
  double *s = g_new(double, n), *v = g_new(double, n);
  double norm = 0.0;
  for (guint u = 0; u < n; u++) {
    s[u] = w->symmetric ? 1.0 : sqrt(w->pi[u]);
    norm += s[u] * s[u];
  }
  norm = sqrt(norm);
  for (guint u = 0; u < n; u++)
    v[u] = s[u] / norm;
  Deflated d = {w, s, v};

  igraph_arpack_options_t opt;
  igraph_arpack_options_init(&opt);
  opt.n = (int)n;
  opt.nev = 1;
  opt.ncv = ARPACK_NCV;
  opt.which[0] = 'L';
  opt.which[1] = 'M';
  opt.tol = 1e-13;
  /* An update iteration costs about ncv - nev products. */
  opt.mxiter = (int)MIN(products / (ARPACK_NCV - 1), (guint64)G_MAXINT);
  opt.start = 1; /* our start vector: igraph's would draw from its global RNG */

  gboolean ok = FALSE;
  igraph_vector_t values;
  igraph_matrix_t vectors;
  TopoIgraphGuard guard;
  topo_igraph_guard_begin(&guard);
  igraph_error_t rc = igraph_vector_init(&values, 1);
  if (rc == IGRAPH_SUCCESS) {
    rc = igraph_matrix_init(&vectors, n, 1);
    if (rc != IGRAPH_SUCCESS)
      igraph_vector_destroy(&values);
  }
  if (rc == IGRAPH_SUCCESS) {
    /* Deterministic, and with a component on every eigenvector in practice:
     * a fixed pseudo-random (Weyl) sequence rather than a structured vector
     * that a symmetric graph could make orthogonal to lambda_2's eigenspace. */
    for (guint u = 0; u < n; u++)
      MATRIX(vectors, u, 0) = fmod(0.5 + (double)u * 0.6180339887498949, 1.0) - 0.5;
    rc = igraph_arpack_rssolve(deflated_mv, &d, &opt, NULL, &values, &vectors);
    if (rc == IGRAPH_SUCCESS && opt.nconv >= 1) {
      *gap = MAX(0.0, 1.0 - fabs(VECTOR(values)[0]));
      ok = TRUE;
    } else if (rc == IGRAPH_ARPACK_MAXIT || (rc == IGRAPH_SUCCESS && opt.nconv < 1)) {
      *status = TOPO_SUMMARY_NO_CONVERGENCE;
      ok = TRUE;
    }
    igraph_matrix_destroy(&vectors);
    igraph_vector_destroy(&values);
  }
  topo_igraph_guard_end(&guard);
  if (!ok)
    topo_set_igraph_error(error, "computing the spectral gap with ARPACK", rc);
  g_free(s);
  g_free(v);
  return ok;
}

gboolean topo_gossip_gap(const TopoGossip *w, guint64 max_work, double *gap,
                         TopoSummaryStatus *status, GError **error) {
  *status = TOPO_SUMMARY_COMPUTED;
  if (w->n == 1) {
    *gap = 1.0;
    return TRUE;
  }
  if (w->n <= TOPO_GAP_DENSE_MAX)
    return gap_dense(w, gap, error);
  return topo_gossip_gap_sparse(w, max_work, gap, status, error);
}

const char *topo_summary_status_reason(TopoSummaryStatus status) {
  switch (status) {
  case TOPO_SUMMARY_COMPUTED:
    return "computed";
  case TOPO_SUMMARY_SKIPPED_WORK:
    return "the graph is too large for the summary's time bound";
  case TOPO_SUMMARY_SKIPPED_MEMORY:
    return "the eigensolver would not fit in the memory budget";
  case TOPO_SUMMARY_NO_CONVERGENCE:
    return "ARPACK did not converge within the time bound (a very small gap converges slowly)";
  case TOPO_SUMMARY_NOT_REVERSIBLE:
    return "the sparse eigensolver handles only symmetric or reversible gossip matrices";
  }
  return "unknown";
}

char *topo_summary_status_note(TopoSummaryStatus status) {
  const char *how = status == TOPO_SUMMARY_SKIPPED_WORK || status == TOPO_SUMMARY_NO_CONVERGENCE
                        ? "; rerun with --exact to compute it without a time bound"
                        : "";
  return g_strdup_printf("not computed: %s%s", topo_summary_status_reason(status), how);
}

gboolean topo_gossip_spectral_gap(const TopoGossip *w, double *gap, GError **error) {
  if (w == NULL || gap == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "topo_gossip_spectral_gap: matrix and output are required");
    return FALSE;
  }
  TopoSummaryStatus status;
  if (!topo_gossip_gap(w, TOPO_GAP_EXACT_WORK, gap, &status, error))
    return FALSE;
  if (status == TOPO_SUMMARY_COMPUTED)
    return TRUE;
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_FAILED,
              "spectral gap of the %ux%u gossip matrix not computed: %s", w->n, w->n,
              topo_summary_status_reason(status));
  return FALSE;
}
