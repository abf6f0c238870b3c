/*
 * privacy/gram.c: the workload Gram matrix H = sum_i A_i^T A_i of MF-D-SGD
 * (DESIGN.md, "Mafalda"), computed from the structure of W_T: never an
 * nT x nT matrix.
 */
#include "privacy/internal.h"

#include <math.h>
#include <string.h>

/* e: the power of W that block (t, t) carries (W for post-average, I for messages). */
static guint workload_offset(PrivWorkload w) { return w == PRIV_WORKLOAD_MESSAGES ? 0 : 1; }

static gboolean check_sizes(guint n, guint T, GError **error) {
  if (n == 0 || T == 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the gossip matrix needs at least one node and one round (n = %u, T = %u)", n,
                T);
    return FALSE;
  }
  return TRUE;
}

static gboolean check_finite(const double *W, guint n, const char *what, GError **error) {
  gsize nn = (gsize)n * n;
  for (gsize i = 0; i < nn; i++) {
    if (!isfinite(W[i])) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  "%s has a non-finite entry at (%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT ")",
                  what, i / n, i % n);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean check_workload(PrivWorkload w, GError **error) {
  if (w == PRIV_WORKLOAD_POST_AVERAGE || w == PRIV_WORKLOAD_MESSAGES) return TRUE;
  g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "unknown workload %d", (int)w);
  return FALSE;
}

/* Budget in doubles: a*n^2 + b*n*T + c*T^2, saturating. */
static gsize budget_bytes(guint n, guint T, gsize a, gsize b, gsize c) {
  gsize nn, nT, TT, x, y, z;
  if (!priv_size_mul(n, n, &nn) || !priv_size_mul(n, T, &nT) || !priv_size_mul(T, T, &TT) ||
      !priv_size_mul(a, nn, &x) || !priv_size_mul(b, nT, &y) || !priv_size_mul(c, TT, &z) ||
      x > G_MAXSIZE - y || x + y > G_MAXSIZE - z)
    return G_MAXSIZE;
  return priv_doubles_bytes(x + y + z);
}

/* H[s,s'] = sum_{m >= 0} F[T-1-s-m, T-1-s'-m]: F indexes powers from the end of
 * the horizon, so H accumulates F along diagonals from the bottom-right. */
static void gram_from_frobenius(const double *F, guint T, double *H) {
  for (guint s = T; s-- > 0;) {
    for (guint s2 = s; s2 < T; s2++) {
      double v = F[(gsize)(T - 1 - s) * T + (T - 1 - s2)];
      if (s2 + 1 < T) v += H[(gsize)(s + 1) * T + (s2 + 1)];
      H[(gsize)s * T + s2] = v;
      H[(gsize)s2 * T + s] = v;
    }
  }
}

/*
 * Positive weights pi with pi_i W_ij = pi_j W_ji (detailed balance), found by
 * propagating ratios over a BFS of the support of W and then checked on every
 * pair. FALSE when W is not reversible or pi spans too many orders of
 * magnitude for the symmetrized eigenproblem to stay accurate.
 */
static gboolean reversible_weights(const double *W, guint n, double *pi) {
  guint *queue = g_new(guint, n);
  gboolean ok = TRUE;
  for (guint i = 0; i < n; i++) pi[i] = 0.0;
  for (guint root = 0; root < n && ok; root++) {
    if (pi[root] != 0.0) continue;
    guint head = 0, tail = 0;
    pi[root] = 1.0;
    queue[tail++] = root;
    while (head < tail && ok) {
      guint i = queue[head++];
      for (guint j = 0; j < n; j++) {
        double wij = W[(gsize)i * n + j], wji = W[(gsize)j * n + i];
        if (j == i || (wij == 0.0 && wji == 0.0)) continue;
        if (wij == 0.0 || wji == 0.0 || (wij > 0) != (wji > 0)) {
          ok = FALSE;
          break;
        }
        if (pi[j] == 0.0) {
          pi[j] = pi[i] * (wij / wji);
          if (!(pi[j] > 1e-150 && pi[j] < 1e150)) {
            ok = FALSE;
            break;
          }
          queue[tail++] = j;
        }
      }
    }
  }
  g_free(queue);
  if (!ok) return FALSE;
  double lo = pi[0], hi = pi[0];
  for (guint i = 0; i < n; i++) {
    lo = MIN(lo, pi[i]);
    hi = MAX(hi, pi[i]);
  }
  if (hi > 1e8 * lo) return FALSE;
  for (guint i = 0; i < n; i++) pi[i] /= hi;
  for (guint i = 0; i < n; i++) {
    for (guint j = i + 1; j < n; j++) {
      double a = pi[i] * W[(gsize)i * n + j], c = pi[j] * W[(gsize)j * n + i];
      if (fabs(a - c) > 1e-12 * (fabs(a) + fabs(c))) return FALSE;
    }
  }
  return TRUE;
}

/*
 * F[a,c] = <W^{a+e}, W^{c+e}>_F for a, c in [0, T) by the eigendecomposition
 * of S = D^{1/2} W D^{-1/2} = U diag(l) U^T (D = diag(pi)): with
 * W^a = D^{-1/2} U L^a U^T D^{1/2},
 * <W^a, W^c> = tr(L^a (U^T D^-1 U) L^c (U^T D U)) = (l^a)^T M l^c,
 * M = (U^T D^-1 U) o (U^T D U). The Frobenius product is not invariant under
 * the similarity, hence M rather than the identity.
 */
static double *frobenius_eigen(const double *W, const double *pi, guint n, guint T, guint e,
                               GError **error) {
  double *U = priv_matrix_new(n, n, error);
  double *V = U ? priv_matrix_new(n, n, error) : NULL;
  double *P = V ? priv_matrix_new(n, n, error) : NULL;
  double *lambda = P ? priv_matrix_new(n, 1, error) : NULL;
  double *E = lambda ? priv_matrix_new(n, T, error) : NULL;
  double *ME = E ? priv_matrix_new(n, T, error) : NULL;
  double *F = ME ? priv_matrix_new(T, T, error) : NULL;
  if (!F) goto fail;

  for (guint i = 0; i < n; i++) {
    for (guint j = 0; j < n; j++) {
      double sij = sqrt(pi[i] / pi[j]) * W[(gsize)i * n + j];
      double sji = sqrt(pi[j] / pi[i]) * W[(gsize)j * n + i];
      U[(gsize)i * n + j] = 0.5 * (sij + sji);
    }
  }
  lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)n, U,
                                   (lapack_int)n, lambda);
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "symmetric eigensolver failed on the gossip matrix (dsyevd info %d)",
                (int)info);
    goto fail;
  }
  /* P = (D^{1/2} U)^T (D^{1/2} U) = U^T D U; V = U^T D^-1 U likewise. */
  for (guint i = 0; i < n; i++) {
    double r = sqrt(pi[i]);
    for (guint p = 0; p < n; p++) V[(gsize)i * n + p] = r * U[(gsize)i * n + p];
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)n, (int)n, 1.0, V, (int)n, 0.0, P,
              (int)n);
  for (guint i = 0; i < n; i++) {
    double r = 1.0 / sqrt(pi[i]);
    for (guint p = 0; p < n; p++) V[(gsize)i * n + p] = r * U[(gsize)i * n + p];
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)n, (int)n, 1.0, V, (int)n, 0.0, U,
              (int)n);
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j <= i; j++) P[i * n + j] *= U[i * n + j];
  priv_fill_upper_from_lower(P, n); /* P is now M */

  for (guint i = 0; i < n; i++) {
    double v = e ? lambda[i] : 1.0;
    for (guint a = 0; a < T; a++) {
      E[(gsize)i * T + a] = v;
      v *= lambda[i];
    }
  }
  cblas_dsymm(CblasRowMajor, CblasLeft, CblasLower, (int)n, (int)T, 1.0, P, (int)n, E, (int)T,
              0.0, ME, (int)T);
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)T, (int)T, (int)n, 1.0, E, (int)T,
              ME, (int)T, 0.0, F, (int)T);
  for (gsize a = 0; a < T; a++) {
    for (gsize c = a + 1; c < T; c++) {
      double v = 0.5 * (F[a * T + c] + F[c * T + a]);
      F[a * T + c] = F[c * T + a] = v;
    }
  }
  g_free(U);
  g_free(V);
  g_free(P);
  g_free(lambda);
  g_free(E);
  g_free(ME);
  return F;
fail:
  g_free(U);
  g_free(V);
  g_free(P);
  g_free(lambda);
  g_free(E);
  g_free(ME);
  g_free(F);
  return NULL;
}

/* F = Z Z^T with row a of Z the flattened W^{a+e}: any W, O(n^2 T) memory. */
static double *frobenius_powers(const double *W, guint n, guint T, guint e, GError **error) {
  gsize nn = (gsize)n * n;
  double *Z = priv_matrix_new(T, nn, error);
  double *F = Z ? priv_matrix_new(T, T, error) : NULL;
  if (!F) {
    g_free(Z);
    return NULL;
  }
  if (e) {
    memcpy(Z, W, nn * sizeof(double));
  } else {
    for (guint i = 0; i < n; i++) Z[(gsize)i * n + i] = 1.0;
  }
  for (guint a = 1; a < T; a++) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0,
                Z + (a - 1) * nn, (int)n, W, (int)n, 0.0, Z + a * nn, (int)n);
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)T, (int)nn, 1.0, Z, (int)nn, 0.0,
              F, (int)T);
  priv_fill_upper_from_lower(F, T);
  g_free(Z);
  return F;
}

static gboolean check_result_finite(const double *H, guint T, GError **error) {
  gsize TT = (gsize)T * T;
  for (gsize i = 0; i < TT; i++) {
    if (!isfinite(H[i])) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the workload Gram matrix overflows: the powers of the gossip matrix "
                  "grow without bound (is W stochastic?)");
      return FALSE;
    }
  }
  return TRUE;
}

double *priv_gram_static(const double *W, guint n, guint T, PrivWorkload workload,
                         PrivGramMethod method, gsize max_bytes, GError **error) {
  g_return_val_if_fail(W != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!check_sizes(n, T, error) || !check_workload(workload, error) ||
      !check_finite(W, n, "the gossip matrix", error))
    return NULL;
  if (method != PRIV_GRAM_AUTO && method != PRIV_GRAM_EIGEN && method != PRIV_GRAM_POWERS) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "unknown Gram method %d",
                (int)method);
    return NULL;
  }
  guint e = workload_offset(workload);
  double *pi = g_new(double, n);
  gboolean reversible = method != PRIV_GRAM_POWERS && reversible_weights(W, n, pi);
  if (method == PRIV_GRAM_EIGEN && !reversible) {
    g_free(pi);
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the gossip matrix is not reversible (no positive D with D W symmetric): "
                "use the powers method");
    return NULL;
  }
  gsize need = reversible ? budget_bytes(n, T, 3, 2, 2) : budget_bytes(0, T, 0, 0, 2);
  if (!reversible && (guint64)n * n > G_MAXINT) {
    g_free(pi);
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_MEMORY,
                "a non-reversible gossip matrix on %u nodes is too large for the powers method "
                "(n^2 must fit in a BLAS int: n <= 46340)", n);
    return NULL;
  }
  if (!reversible) {
    /* T flattened powers of W: n^2 T doubles. */
    gsize nnT;
    if (!priv_size_mul((gsize)n * n, T, &nnT) || priv_doubles_bytes(nnT) > G_MAXSIZE - need)
      need = G_MAXSIZE;
    else
      need += priv_doubles_bytes(nnT);
  }
  if (!priv_check_budget(need, max_bytes, "the workload Gram matrix", error)) {
    g_free(pi);
    return NULL;
  }
  double *F = reversible ? frobenius_eigen(W, pi, n, T, e, error)
                         : frobenius_powers(W, n, T, e, error);
  g_free(pi);
  if (!F) return NULL;
  double *H = priv_matrix_new(T, T, error);
  if (H) {
    gram_from_frobenius(F, T, H);
    if (!check_result_finite(H, T, error)) g_clear_pointer(&H, g_free);
  }
  g_free(F);
  return H;
}

double *priv_gram_node(const double *W, guint n, guint node, guint T,
                       PrivWorkload workload, gsize max_bytes, GError **error) {
  g_return_val_if_fail(W != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!check_sizes(n, T, error) || !check_workload(workload, error) ||
      !check_finite(W, n, "the gossip matrix", error))
    return NULL;
  if (node >= n) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "node %u out of range: the graph has %u nodes", node, n);
    return NULL;
  }
  if (!priv_check_budget(budget_bytes(n, T, 0, 1, 3), max_bytes,
                         "the per-node workload Gram matrix", error))
    return NULL;
  /* Row a of Z is W^{a+e} e_node, a column of a power of W. */
  double *Z = priv_matrix_new(T, n, error);
  double *F = Z ? priv_matrix_new(T, T, error) : NULL;
  double *H = F ? priv_matrix_new(T, T, error) : NULL;
  if (!H) {
    g_free(Z);
    g_free(F);
    return NULL;
  }
  if (workload_offset(workload)) {
    for (guint v = 0; v < n; v++) Z[v] = W[(gsize)v * n + node];
  } else {
    Z[node] = 1.0;
  }
  for (guint a = 1; a < T; a++) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)n, (int)n, 1.0, W, (int)n,
                Z + (gsize)(a - 1) * n, 1, 0.0, Z + (gsize)a * n, 1);
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)T, (int)n, 1.0, Z, (int)n, 0.0, F,
              (int)T);
  priv_fill_upper_from_lower(F, T);
  gram_from_frobenius(F, T, H);
  g_free(Z);
  g_free(F);
  if (!check_result_finite(H, T, error)) g_clear_pointer(&H, g_free);
  return H;
}

static double trace(const double *A, guint n) {
  double t = 0.0;
  for (guint i = 0; i < n; i++) t += A[(gsize)i * n + i];
  return t;
}

double *priv_gram_time_varying(guint n, guint T, PrivWorkload workload,
                               PrivGossipAtFunc gossip_at, gpointer user_data,
                               GError **error) {
  g_return_val_if_fail(gossip_at != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!check_sizes(n, T, error) || !check_workload(workload, error)) return NULL;
  if (!priv_check_budget(budget_bytes(n, T, 3, 0, 1), 0,
                         "the time-varying workload Gram matrix", error))
    return NULL;
  double *G = priv_matrix_new(n, n, error);
  double *Y = G ? priv_matrix_new(n, n, error) : NULL;
  double *tmp = Y ? priv_matrix_new(n, n, error) : NULL;
  double *H = tmp ? priv_matrix_new(T, T, error) : NULL;
  if (!H) goto fail;
  gboolean post = workload == PRIV_WORKLOAD_POST_AVERAGE;
  for (guint s2 = T; s2-- > 0;) {
    const double *Ws = gossip_at(s2, user_data);
    char *what = g_strdup_printf("the gossip matrix of round %u", s2);
    gboolean ok = Ws && check_finite(Ws, n, what, error);
    if (!Ws)
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "%s is missing", what);
    g_free(what);
    if (!ok) goto fail;
    /* G_s = sum_{t >= s} P(t,s)^T P(t,s): post-average W_s^T (I + G_{s+1}) W_s,
     * messages I + W_s^T G_{s+1} W_s. */
    if (post)
      for (guint i = 0; i < n; i++) G[(gsize)i * n + i] += 1.0;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, G,
                (int)n, Ws, (int)n, 0.0, tmp, (int)n);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, Ws,
                (int)n, tmp, (int)n, 0.0, G, (int)n);
    if (!post)
      for (guint i = 0; i < n; i++) G[(gsize)i * n + i] += 1.0;
    H[(gsize)s2 * T + s2] = trace(G, n);
    /* H[s,s2] = <G_{s2}, W_{s2-1} ... W_s>_F = tr(Y_s), Y_s = W_s^T Y_{s+1}. */
    memcpy(Y, G, (gsize)n * n * sizeof(double));
    for (guint s = s2; s-- > 0;) {
      const double *Wt = gossip_at(s, user_data);
      if (!Wt) {
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                    "the gossip matrix of round %u is missing", s);
        goto fail;
      }
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, Wt,
                  (int)n, Y, (int)n, 0.0, tmp, (int)n);
      double *swap = Y;
      Y = tmp;
      tmp = swap;
      H[(gsize)s * T + s2] = H[(gsize)s2 * T + s] = trace(Y, n);
    }
  }
  if (!check_result_finite(H, T, error)) goto fail;
  g_free(G);
  g_free(Y);
  g_free(tmp);
  return H;
fail:
  g_free(G);
  g_free(Y);
  g_free(tmp);
  g_free(H);
  return NULL;
}

gboolean priv_gram_check_memory(guint n, guint T, gsize max_bytes, GError **error) {
  char *what = g_strdup_printf("the workload Gram matrix for %u nodes and T = %u rounds", n, T);
  gboolean ok = priv_check_budget(budget_bytes(n, T, 4, 2, 2), max_bytes, what, error);
  g_free(what);
  return ok;
}

double *priv_gram_prefix_sum(guint T, GError **error) {
  if (T == 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "T must be positive");
    return NULL;
  }
  double *H = priv_matrix_new(T, T, error);
  if (!H) return NULL;
  for (guint s = 0; s < T; s++)
    for (guint t = 0; t < T; t++) H[(gsize)s * T + t] = (double)(T - MAX(s, t));
  return H;
}
