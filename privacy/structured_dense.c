/*
 * privacy/structured_dense.c: per-victim blocks of a PNDP attacker set for
 * any per-node noise correlation (MF-D-SGD with any C_local), from the W
 * products that make up the messages the set receives.
 *
 * The observed messages are y = M (g + e) (what the attackers know of gradients
 * and noise subtracted), with M[(r, w), (v, k)] = (W_{r-1} ... W_{kK})[w, v]
 * for kK <= r, and the noise of node v over its steps e_v = nu' Cinv z_v for
 * the nodes whose noise is unknown. The Fisher information of g
 * is X = M^T K^+ M / nu'^2 with K = sum_v M_v Cinv Cinv^T M_v^T. A pivoted
 * Cholesky of K (LAPACK dpstrf) keeps a maximal set of messages whose noise
 * is linearly independent (the others repeat them exactly, gradients
 * included, since gradient and noise enter through the same M); on those,
 * X_u = (L^-1 M_u)^T (L^-1 M_u) / nu'^2. With a C per class of nodes, node v's
 * columns take its own class's factor (c->cinv_class). M is rows x (noisy nodes x T) and K is
 * rows x rows, rows = the number of messages received: nothing nT x nT.
 */
#include "privacy/structured_internal.h"

#include <math.h>
#include <string.h>

/* M and its noise version (later Z), K, the two back-propagation buffers
 * (n x N doubles each). */
static gsize dense_count(const PrivStructCtx *c) {
  gsize N = c->recv_start[c->R], cols = (gsize)c->n_noisy * c->T;
  return priv_size_sum3(2 * N, cols, N, N, 2 * (gsize)c->n, N);
}

gsize priv_struct_dense_bytes(const PrivStructCtx *c) {
  return mf_doubles_bytes(dense_count(c));
}

double priv_struct_dense_work(const PrivStructCtx *c, gboolean correlated) {
  double N = c->recv_start[c->R], nz = c->n_noisy, T = c->T, R = c->R;
  double cols = nz * T, nnz = (double)topo_gossip_nnz(c->gossip[0]);
  /* M's rows (every message propagated back to round 0, N wide), the
   * noise version, the Gram, the pivoted Cholesky, the solve and
   * the victims' blocks. */
  return PRIV_SPARSE_WEIGHT * nnz * N * R / 2.0 + (correlated ? N * cols * T : 0.0) +
         N * N * cols / 2.0 + N * N * N / 3.0 + N * N * cols / 2.0 +
         (double)c->n_victims * T * T * N / 2.0 + 1.0;
}

gboolean priv_struct_dense(const PrivStructCtx *c, const double *Cinv, double scale,
                           PrivBlocks *blocks, GError **error) {
  guint n = c->n, T = c->T, K = c->K, R = c->R, nz = c->n_noisy;
  gsize N = c->recv_start[R]; /* messages seen */
  gsize cols = (gsize)nz * T; /* (noisy node, step), node-major */
  if (N == 0 || c->n_victims == 0)
    return TRUE; /* nothing seen: X = 0 */
  if (!priv_check_budget(priv_struct_dense_bytes(c), c->max_bytes,
                         "the structured (dense) accounting", error))
    return FALSE;

  gboolean ok = FALSE;
  double *M = NULL, *Mn = NULL, *Km = NULL, *Phi = NULL, *Phi2 = NULL, *Z = NULL;
  lapack_int *piv = NULL;
  guint *col_of = NULL;
  if (!(M = priv_matrix_new(N, cols, error)) || !(Km = priv_matrix_new(N, N, error)))
    goto out;
  /* Row e of M, message (r, w), is e_w^T W_{r-1} ... W_{kK} at step k:
   * built backwards (the adjoint), every message of rounds >= t at once,
   * Y[v, e] = (e_w^T W_{r-1} ... W_t)[v] (node-major, N wide). Forward
   * propagation of the nz T unit injections would cost n nz T R / 2 sparse
   * products (n^2: 2.9e13 at n = 10^4, T = 100); this costs N R / 2. */
  Phi = g_new0(double, (gsize)n *N);
  Phi2 = g_new(double, (gsize)n *N);
  for (guint t = R; t-- > 0;) {
    gsize lo = c->recv_start[t + 1], width = N - lo; /* messages of rounds > t */
    if (width > 0) {
      /* Y <- Y W_t on the active columns: (Y W)[v] = sum_u W_t[u, v] Y[u]. */
      const TopoGossip *w = priv_struct_gossip(c, t);
      for (guint v = 0; v < n; v++)
        memset(Phi2 + (gsize)v * N + lo, 0, sizeof(double) * width);
      for (guint u = 0; u < n; u++) {
        const guint *cols;
        const double *vals;
        guint len = topo_gossip_row(w, u, &cols, &vals);
        const double *src = Phi + (gsize)u * N + lo;
        for (guint j = 0; j < len; j++)
          if (vals[j] != 0.0)
            cblas_daxpy((int)width, vals[j], src, 1, Phi2 + (gsize)cols[j] * N + lo, 1);
      }
      double *tmp = Phi;
      Phi = Phi2;
      Phi2 = tmp;
    }
    gsize first = c->recv_start[t];
    for (guint v = 0; v < n && first < lo; v++)
      memset(Phi + (gsize)v * N + first, 0, sizeof(double) * (lo - first));
    for (gsize e = first; e < lo; e++)
      Phi[(gsize)c->recv[e] * N + e] = 1.0; /* the message itself, e_w */
    if (t % K != 0)
      continue;
    guint k = t / K;
    for (gsize e = c->recv_start[t]; e < N; e++)
      for (guint i = 0; i < nz; i++)
        M[e * cols + (gsize)i * T + k] = Phi[(gsize)c->noisy_nodes[i] * N + e];
  }

  /* Noise columns: M_v Cinv per node (white noise: M itself). */
  const double *Mnoise = M;
  if (Cinv || c->cinv_class) {
    if (!(Mn = priv_matrix_new(N, cols, error)))
      goto out;
    for (guint i = 0; i < nz; i++) {
      /* Node v's own C: its noise enters only its own columns. */
      const double *Ci = c->cinv_class
                             ? c->cinv_set + (gsize)c->cinv_class[c->noisy_nodes[i]] * T * T
                             : Cinv;
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)N, (int)T, (int)T, 1.0,
                  M + (gsize)i * T, (int)cols, Ci, (int)T, 0.0, Mn + (gsize)i * T, (int)cols);
    }
    Mnoise = Mn;
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)N, (int)cols, 1.0, Mnoise, (int)cols,
              0.0, Km, (int)N);
  double dmax = 0.0;
  for (gsize i = 0; i < N; i++)
    dmax = MAX(dmax, Km[i * N + i]);
  piv = g_new(lapack_int, N);
  lapack_int rank = 0;
  lapack_int info = LAPACKE_dpstrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)N, Km, (lapack_int)N, piv,
                                   &rank, PRIV_STRUCT_RANK_TOL * dmax);
  if (info < 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the pivoted Cholesky factorization of the messages' covariance failed "
                "(LAPACK info %d)",
                (int)info);
    goto out;
  }
  if (rank == 0 || dmax == 0.0) {
    ok = TRUE;
    goto out;
  }
  /* cond(K11) ~ (L_11 / L_rr)^2, the pivoted Cholesky's estimate. */
  {
    double l0 = Km[0], lr = Km[(gsize)(rank - 1) * N + (rank - 1)];
    if (lr > 0.0)
      blocks->cond = MAX(blocks->cond, (l0 / lr) * (l0 / lr));
  }
  /* Z = L11^{-1} M[selected rows]. */
  /* Mn is done with (its Gram is factored): Z takes its place, so M and Z
   * are the two N x cols matrices dense_count counts. */
  if (Mn != NULL) {
    Z = Mn;
    Mn = NULL;
  } else if (!(Z = priv_matrix_new((gsize)rank, cols, error)))
    goto out;
  for (lapack_int i = 0; i < rank; i++)
    memcpy(Z + (gsize)i * cols, M + (gsize)(piv[i] - 1) * cols, sizeof(double) * cols);
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)rank,
              (int)cols, 1.0, Km, (int)N, Z, (int)cols);
  col_of = g_new(guint, n);
  for (guint i = 0; i < nz; i++)
    col_of[c->noisy_nodes[i]] = i;
  for (guint vi = 0; vi < c->n_victims; vi++) {
    guint u = c->victims[vi];
    double *X = blocks->X + (gsize)u * T * T;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)T, (int)rank, scale,
                Z + (gsize)col_of[u] * T, (int)cols, 1.0, X, (int)T);
    mf_fill_upper_from_lower(X, T);
  }
  ok = TRUE;
out:
  g_free(M);
  g_free(Mn);
  g_free(Km);
  g_free(Phi);
  g_free(Phi2);
  g_free(Z);
  g_free(piv);
  g_free(col_of);
  return ok;
}
