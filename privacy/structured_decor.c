/*
 * privacy/structured_decor.c: DECOR's edge secrets in the structured path
 * (docs/accounting-at-scale.md, "DECOR: edge secrets"). A step's unknown
 * injection noise is z_t + B_t s_t: the local noise of the nodes the
 * attackers do not know plus, per edge of W_t's undirected support whose
 * secret they do not know, a secret added with + at one end and - at the
 * other. Its covariance, in units of the local noise's, is
 *   Q_t = D + secret_var L'_t   (L'_t the Laplacian of the unknown edges),
 * sparse and white in time. The Kalman engines add it to the prior at each
 * injection (priv_struct_inject); when the attackers see every message
 * (LDP, SecLDP, every node sending in every round), each step's injection
 * g_t + noise is known exactly and the victim's block is diagonal with
 * X_u[t,t] = (Q_t^-1)_{uu} (the other nodes' gradients known), computed
 * here from one Cholesky per distinct W_t.
 * On a delivery record (deadline, stale mode) W_t above is the schedule's
 * (PrivStructCtx.secret_gossip), not the W_r the gathers applied: the
 * secrets are drawn and added to the models before any message leaves, so
 * a late or lost message changes what is averaged, never the injection.
 */
#include "privacy/structured_internal.h"

#include <string.h>

guint *priv_struct_secret_edges(const PrivStructCtx *c, guint r, gsize *m) {
  PrivCsr a = {0}, b = {0};
  const TopoGossip *w = priv_struct_secret_gossip(c, r);
  priv_csr_of(w, FALSE, &a);
  priv_csr_of(w, TRUE, &b);
  GArray *out = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint v = 0; v < topo_gossip_n(w); v++) {
    if (c->secret_known && c->secret_known[v])
      continue;
    /* The merge of v's row of W and of W^T (both sorted): its in- and
     * out-neighbours, each peer j < v once. */
    guint i = a.ptr[v], ie = a.ptr[v + 1], k = b.ptr[v], ke = b.ptr[v + 1];
    guint last = G_MAXUINT;
    while (i < ie || k < ke) {
      guint j = k == ke || (i < ie && a.col[i] <= b.col[k]) ? a.col[i++] : b.col[k++];
      if (j >= v)
        break;
      if (j == last || (c->secret_known && c->secret_known[j]))
        continue;
      last = j;
      guint e[2] = {j, v};
      g_array_append_vals(out, e, 2);
    }
  }
  priv_csr_clear(&a);
  priv_csr_clear(&b);
  *m = out->len / 2;
  return (guint *)g_array_free(out, FALSE);
}

void priv_struct_inject(const PrivStructCtx *c, guint r, double *P) {
  gsize n = c->n;
  for (guint i = 0; i < c->n_noisy; i++)
    P[(gsize)c->noisy_nodes[i] * (n + 1)] += 1.0;
  if (c->secret_var == 0.0)
    return;
  /* + s at a, - s at b: variance s2 at both, covariance -s2. */
  gsize m;
  guint *e = priv_struct_secret_edges(c, r, &m);
  double s2 = c->secret_var;
  for (gsize i = 0; i < m; i++) {
    gsize a = e[2 * i], b = e[2 * i + 1];
    P[a * (n + 1)] += s2;
    P[b * (n + 1)] += s2;
    P[b * n + a] -= s2;
    P[a * n + b] -= s2;
  }
  g_free(e);
}

/* d[i] = (Q^-1)_{ii} for Q = I + s2 L' over the @nq noisy nodes (@idx: node
 * -> row, monotone) on round @r's unknown edges; @Q is nq x nq scratch. */
static gboolean diag_inverse(const PrivStructCtx *c, guint r, const guint *idx, double *Q,
                             double *d, GError **error) {
  gsize nq = c->n_noisy;
  memset(Q, 0, sizeof(double) * nq * nq);
  for (gsize i = 0; i < nq; i++)
    Q[i * (nq + 1)] = 1.0;
  gsize m;
  guint *e = priv_struct_secret_edges(c, r, &m);
  double s2 = c->secret_var;
  for (gsize i = 0; i < m; i++) {
    /* Unknown edges join two nodes whose noise is unknown (the attackers'
     * edges are known whenever their noise is). */
    gsize a = idx[e[2 * i]], b = idx[e[2 * i + 1]];
    g_assert(a < nq && b < nq && a < b);
    Q[a * (nq + 1)] += s2;
    Q[b * (nq + 1)] += s2;
    Q[b * nq + a] -= s2; /* lower triangle */
  }
  g_free(e);
  /* Q = L L^T, Q^-1 = L^-T L^-1: (Q^-1)_ii is the squared norm of column
   * i of L^-1. Q's eigenvalues lie in [1, 1 + 2 s2 max degree]
   * (Gershgorin), so both factorizations are well conditioned. */
  lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)nq, Q, (lapack_int)nq);
  if (info == 0)
    info = LAPACKE_dtrtri(LAPACK_ROW_MAJOR, 'L', 'N', (lapack_int)nq, Q, (lapack_int)nq);
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "DECOR's round-%u noise covariance (%zu nodes): LAPACK failed (info %d)", r,
                (size_t)nq, (int)info);
    return FALSE;
  }
  memset(d, 0, sizeof(double) * nq);
  for (gsize k = 0; k < nq; k++) {
    const double *row = Q + k * nq;
    for (gsize i = 0; i <= k; i++)
      d[i] += row[i] * row[i];
  }
  return TRUE;
}

gboolean priv_struct_decor_closed(const PrivStructCtx *c, double scale, PrivBlocks *blocks,
                                  GError **error) {
  guint n = c->n, T = c->T, nq = c->n_noisy;
  g_return_val_if_fail(c->K == 1, FALSE);
  /* The result (n T^2, reserved by the caller), Q and the diagonal. */
  gsize count = priv_size_sum3(nq, nq, 1, nq, n, (gsize)T * T);
  if (!priv_check_budget(mf_doubles_bytes(count), c->max_bytes,
                         "the structured accounting of DECOR's secrets (one nodes x nodes "
                         "covariance)",
                         error))
    return FALSE;
  guint *idx = g_new(guint, n);
  for (guint v = 0; v < n; v++)
    idx[v] = G_MAXUINT;
  for (guint i = 0; i < nq; i++)
    idx[c->noisy_nodes[i]] = i;
  double *Q = priv_matrix_new(nq, nq, error), *d = g_new(double, MAX(nq, 1));
  gboolean ok = Q != NULL;
  const TopoGossip *done = NULL; /* the W whose diagonal d holds */
  for (guint t = 0; ok && t < T; t++) {
    const TopoGossip *w = priv_struct_secret_gossip(c, t);
    if (w != done) {
      if (!(ok = diag_inverse(c, t, idx, Q, d, error)))
        break;
      done = w;
    }
    for (guint vi = 0; vi < c->n_victims; vi++) {
      guint u = c->victims[vi];
      blocks->X[((gsize)u * T + t) * T + t] = scale * d[idx[u]];
    }
    if (c->progress)
      c->progress((t + 1.0) / T, "structured accounting (DECOR)", c->progress_data);
  }
  g_free(Q);
  g_free(d);
  g_free(idx);
  return ok;
}
