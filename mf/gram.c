/*
 * mf/gram.c: the workload Gram matrix H = sum_i A_i^T A_i of MF-D-SGD
 * (docs/design.md, "Mafalda"), computed from the structure of W_T: never an
 * nT x nT matrix.
 */
#include "mf/internal.h"
#include "spec/spec.h"

#include <math.h>
#include <string.h>

/* e: the power of W that block (t, t) carries (W for post-average, I for messages). */
static guint workload_offset(MfWorkload w) {
  return w == MF_WORKLOAD_MESSAGES ? 0 : 1;
}

static gboolean check_sizes(guint n, guint T, GError **error) {
  if (n == 0 || T == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "the gossip matrix needs at least one node and one round (n = %u, T = %u)", n, T);
    return FALSE;
  }
  return TRUE;
}

static gboolean check_finite(const double *W, guint n, const char *what, GError **error) {
  gsize nn = (gsize)n * n;
  for (gsize i = 0; i < nn; i++) {
    if (!isfinite(W[i])) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "%s has a non-finite entry at (%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT ")", what,
                  i / n, i % n);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean check_workload(MfWorkload w, GError **error) {
  if (w == MF_WORKLOAD_POST_AVERAGE || w == MF_WORKLOAD_MESSAGES)
    return TRUE;
  g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "unknown workload %d", (int)w);
  return FALSE;
}

/* The arguments of a static gossip's Gram matrix: sizes, workload, W finite. */
static gboolean check_static(const double *W, guint n, guint T, MfWorkload workload,
                             GError **error) {
  return check_sizes(n, T, error) && check_workload(workload, error) &&
         check_finite(W, n, "the gossip matrix", error);
}

/* Budget in doubles: a*n^2 + b*n*T + c*T^2, saturating. */
static gsize budget_bytes(guint n, guint T, gsize a, gsize b, gsize c) {
  gsize nn, nT, TT, x, y, z;
  if (!spec_size_mul_checked(n, n, &nn) || !spec_size_mul_checked(n, T, &nT) ||
      !spec_size_mul_checked(T, T, &TT) || !spec_size_mul_checked(a, nn, &x) ||
      !spec_size_mul_checked(b, nT, &y) || !spec_size_mul_checked(c, TT, &z) || x > G_MAXSIZE - y ||
      x + y > G_MAXSIZE - z)
    return G_MAXSIZE;
  return mf_doubles_bytes(x + y + z);
}

/* H[s,s'] = sum_{m >= 0} F[T-1-s-m, T-1-s'-m]: F indexes powers from the end of
 * the horizon, so H accumulates F along diagonals from the bottom-right. */
static void gram_from_frobenius(const double *F, guint T, double *H) {
  for (guint s = T; s-- > 0;) {
    for (guint s2 = s; s2 < T; s2++) {
      double v = F[(gsize)(T - 1 - s) * T + (T - 1 - s2)];
      if (s2 + 1 < T)
        v += H[(gsize)(s + 1) * T + (s2 + 1)];
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
  for (guint i = 0; i < n; i++)
    pi[i] = 0.0;
  for (guint root = 0; root < n && ok; root++) {
    if (pi[root] != 0.0)
      continue;
    guint head = 0, tail = 0;
    pi[root] = 1.0;
    queue[tail++] = root;
    while (head < tail && ok) {
      guint i = queue[head++];
      for (guint j = 0; j < n; j++) {
        double wij = W[(gsize)i * n + j], wji = W[(gsize)j * n + i];
        if (j == i || (wij == 0.0 && wji == 0.0))
          continue;
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
  if (!ok)
    return FALSE;
  double lo = pi[0], hi = pi[0];
  for (guint i = 0; i < n; i++) {
    lo = MIN(lo, pi[i]);
    hi = MAX(hi, pi[i]);
  }
  if (hi > 1e8 * lo)
    return FALSE;
  for (guint i = 0; i < n; i++)
    pi[i] /= hi;
  for (guint i = 0; i < n; i++) {
    for (guint j = i + 1; j < n; j++) {
      double a = pi[i] * W[(gsize)i * n + j], c = pi[j] * W[(gsize)j * n + i];
      if (fabs(a - c) > 1e-12 * (fabs(a) + fabs(c)))
        return FALSE;
    }
  }
  return TRUE;
}

/*
 * The spectral form of a reversible W: the eigenvalues l of S = D^{1/2} W
 * D^{-1/2} = U diag(l) U^T (D = diag(pi)) and M = (U^T D^-1 U) o (U^T D U),
 * so that, with W^a = D^{-1/2} U L^a U^T D^{1/2},
 * <W^a, W^c>_F = tr(L^a (U^T D^-1 U) L^c (U^T D U)) = (l^a)^T M l^c. The
 * Frobenius product is not invariant under the similarity, hence M rather
 * than the identity. O(n^3). @lambda: n doubles, @M: n x n.
 */
static gboolean spectral_decompose(const double *W, const double *pi, guint n, double *lambda,
                                   double *M, GError **error) {
  double *U = mf_matrix_new(n, n, error);
  double *V = U ? mf_matrix_new(n, n, error) : NULL;
  if (!V) {
    g_free(U);
    return FALSE;
  }
  for (guint i = 0; i < n; i++) {
    for (guint j = 0; j < n; j++) {
      double sij = sqrt(pi[i] / pi[j]) * W[(gsize)i * n + j];
      double sji = sqrt(pi[j] / pi[i]) * W[(gsize)j * n + i];
      U[(gsize)i * n + j] = 0.5 * (sij + sji);
    }
  }
  lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)n, U, (lapack_int)n,
                                   lambda);
  if (info != 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "symmetric eigensolver failed on the gossip matrix (dsyevd info %d)", (int)info);
    g_free(U);
    g_free(V);
    return FALSE;
  }
  /* M = (D^{1/2} U)^T (D^{1/2} U) = U^T D U first; U^T D^-1 U likewise. */
  for (guint i = 0; i < n; i++) {
    double r = sqrt(pi[i]);
    for (guint p = 0; p < n; p++)
      V[(gsize)i * n + p] = r * U[(gsize)i * n + p];
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)n, (int)n, 1.0, V, (int)n, 0.0, M,
              (int)n);
  for (guint i = 0; i < n; i++) {
    double r = 1.0 / sqrt(pi[i]);
    for (guint p = 0; p < n; p++)
      V[(gsize)i * n + p] = r * U[(gsize)i * n + p];
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)n, (int)n, 1.0, V, (int)n, 0.0, U,
              (int)n);
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j <= i; j++)
      M[i * n + j] *= U[i * n + j];
  mf_fill_upper_from_lower(M, n);
  g_free(U);
  g_free(V);
  return TRUE;
}

/*
 * The rows of F[a,c] = <W^{a+e}, W^{c+e}>_F, a few at a time: H needs F row
 * by row (gram_from_frobenius), so F is never stored whole and H is the only
 * T x T matrix. Reversible W: F = E^T M E, E[i,a] = l_i^{a+e} (n x T each
 * for E and M E). Otherwise F = Z Z^T with row a of Z the flattened W^{a+e}
 * (T n^2 doubles: any W).
 */
typedef struct {
  guint T, rows; /* rows: the size of a block of F */
  gsize width;   /* n (spectral) or n^2 (powers) */
  gboolean spectral;
  double *E, *ME; /* spectral: n x T; powers: Z (T x n^2) in E, ME unused */
  double *block;  /* rows x T */
} FrobeniusRows;

#define FROBENIUS_BLOCK_ROWS 64

static void frobenius_rows_clear(FrobeniusRows *f) {
  g_free(f->E);
  g_free(f->ME);
  g_free(f->block);
}

static gboolean frobenius_rows_eigen(FrobeniusRows *f, const double *lambda, const double *M,
                                     guint n, guint T, guint e, GError **error) {
  memset(f, 0, sizeof *f);
  f->T = T;
  f->rows = MIN(T, FROBENIUS_BLOCK_ROWS);
  f->width = n;
  f->spectral = TRUE;
  if (!(f->E = mf_matrix_new(n, T, error)) || !(f->ME = mf_matrix_new(n, T, error)) ||
      !(f->block = mf_matrix_new(f->rows, T, error)))
    return FALSE;
  for (guint i = 0; i < n; i++) {
    double v = e ? lambda[i] : 1.0;
    for (guint a = 0; a < T; a++) {
      f->E[(gsize)i * T + a] = v;
      v *= lambda[i];
    }
  }
  cblas_dsymm(CblasRowMajor, CblasLeft, CblasLower, (int)n, (int)T, 1.0, M, (int)n, f->E, (int)T,
              0.0, f->ME, (int)T);
  return TRUE;
}

static gboolean frobenius_rows_powers(FrobeniusRows *f, const double *W, guint n, guint T, guint e,
                                      GError **error) {
  gsize nn = (gsize)n * n;
  memset(f, 0, sizeof *f);
  f->T = T;
  f->rows = MIN(T, FROBENIUS_BLOCK_ROWS);
  f->width = nn;
  if (!(f->E = mf_matrix_new(T, nn, error)) || !(f->block = mf_matrix_new(f->rows, T, error)))
    return FALSE;
  double *Z = f->E;
  if (e) {
    memcpy(Z, W, nn * sizeof(double));
  } else {
    for (guint i = 0; i < n; i++)
      Z[(gsize)i * n + i] = 1.0;
  }
  for (guint a = 1; a < T; a++) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0,
                Z + (a - 1) * nn, (int)n, W, (int)n, 0.0, Z + a * nn, (int)n);
  }
  return TRUE;
}

/* Rows [a0, a0 + rows) of F into f->block (columns 0 .. a0 + rows - 1 only:
 * H needs F[a, c] for c <= a). Rows past T - 1 are left alone. */
static void frobenius_rows_fill(FrobeniusRows *f, guint a0) {
  guint T = f->T, m = MIN(f->rows, T - a0), cols = a0 + m;
  if (f->spectral)
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)m, (int)cols, (int)f->width, 1.0,
                f->E + a0, (int)T, f->ME, (int)T, 0.0, f->block, (int)T);
  else
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)cols, (int)f->width, 1.0,
                f->E + (gsize)a0 * f->width, (int)f->width, f->E, (int)f->width, 0.0, f->block,
                (int)T);
}

/* gram_from_frobenius with F made a block of rows at a time: row s of H
 * needs row T-1-s of F and row s+1 of H, so the blocks run from the
 * bottom-right up. The upper triangle first (rows read and written
 * contiguously), then mirrored. */
static void gram_from_rows(FrobeniusRows *f, double *H) {
  guint T = f->T;
  for (guint a0 = 0; a0 < T; a0 += f->rows) {
    frobenius_rows_fill(f, a0);
    guint a1 = MIN(a0 + f->rows, T);
    for (guint a = a0; a < a1; a++) {
      guint s = T - 1 - a;
      const double *Frow = f->block + (gsize)(a - a0) * T;
      double *Hrow = H + (gsize)s * T;
      const double *below = Hrow + T + 1; /* below[s2] = H[s+1, s2+1] */
      for (guint s2 = s; s2 < T; s2++) {
        double v = Frow[T - 1 - s2];
        if (s2 + 1 < T)
          v += below[s2];
        Hrow[s2] = v;
      }
    }
  }
  for (guint s = 0; s < T; s++)
    for (guint s2 = s + 1; s2 < T; s2++)
      H[(gsize)s2 * T + s] = H[(gsize)s * T + s2];
}

static gboolean check_result_finite(const double *H, guint T, GError **error) {
  gsize TT = (gsize)T * T;
  for (gsize i = 0; i < TT; i++) {
    if (!isfinite(H[i])) {
      g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                  "the workload Gram matrix overflows: the powers of the gossip matrix "
                  "grow without bound (is W stochastic?)");
      return FALSE;
    }
  }
  return TRUE;
}

double *mf_gram_static(const double *W, guint n, guint T, MfWorkload workload, MfGramMethod method,
                       gsize max_bytes, GError **error) {
  g_return_val_if_fail(W != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!check_static(W, n, T, workload, error))
    return NULL;
  if (method != MF_GRAM_AUTO && method != MF_GRAM_EIGEN && method != MF_GRAM_POWERS) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "unknown Gram method %d", (int)method);
    return NULL;
  }
  guint e = workload_offset(workload);
  double *pi = g_new(double, n);
  gboolean reversible = method != MF_GRAM_POWERS && reversible_weights(W, n, pi);
  if (method == MF_GRAM_EIGEN && !reversible) {
    g_free(pi);
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "the gossip matrix is not reversible (no positive D with D W symmetric): "
                "use the powers method");
    return NULL;
  }
  /* H, a block of F's rows and (spectral) E and M E, or (powers) the T
   * flattened powers of W. */
  gsize need = budget_bytes(n, T, reversible ? 3 : 0, reversible ? 2 : 0, 1);
  need = need > G_MAXSIZE - mf_doubles_bytes((gsize)MIN(T, FROBENIUS_BLOCK_ROWS) * T)
             ? G_MAXSIZE
             : need + mf_doubles_bytes((gsize)MIN(T, FROBENIUS_BLOCK_ROWS) * T);
  if (!reversible && (guint64)n * n > G_MAXINT) {
    g_free(pi);
    g_set_error(error, MF_ERROR, MF_ERROR_MEMORY,
                "a non-reversible gossip matrix on %u nodes is too large for the powers method "
                "(n^2 must fit in a BLAS int: n <= 46340)",
                n);
    return NULL;
  }
  if (!reversible) {
    /* T flattened powers of W: n^2 T doubles. */
    gsize nnT;
    if (!spec_size_mul_checked((gsize)n * n, T, &nnT) || mf_doubles_bytes(nnT) > G_MAXSIZE - need)
      need = G_MAXSIZE;
    else
      need += mf_doubles_bytes(nnT);
  }
  if (!mf_check_budget(need, max_bytes, "the workload Gram matrix", error)) {
    g_free(pi);
    return NULL;
  }
  FrobeniusRows f = {0};
  double *lambda = NULL, *M = NULL, *H = NULL;
  gboolean ok;
  if (reversible) {
    ok = (lambda = mf_matrix_new(n, 1, error)) && (M = mf_matrix_new(n, n, error)) &&
         spectral_decompose(W, pi, n, lambda, M, error) &&
         frobenius_rows_eigen(&f, lambda, M, n, T, e, error);
  } else {
    ok = frobenius_rows_powers(&f, W, n, T, e, error);
  }
  g_free(pi);
  g_free(lambda);
  g_free(M);
  if (ok && (H = mf_matrix_new(T, T, error))) {
    gram_from_rows(&f, H);
    if (!check_result_finite(H, T, error))
      g_clear_pointer(&H, g_free);
  }
  frobenius_rows_clear(&f);
  return H;
}

MfGramSpectral *mf_gram_spectral_new(const double *W, guint n, guint T, MfWorkload workload,
                                     GError **error) {
  g_return_val_if_fail(W != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!check_static(W, n, T, workload, error))
    return NULL;
  double *pi = g_new(double, n);
  if (!reversible_weights(W, n, pi)) {
    g_free(pi);
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "the gossip matrix is not reversible (no positive D with D W symmetric): "
                "it has no spectral form");
    return NULL;
  }
  MfGramSpectral *g = g_new0(MfGramSpectral, 1);
  g->n = n;
  g->T = T;
  g->e = workload_offset(workload);
  gboolean ok = (g->lambda = mf_matrix_new(n, 1, error)) && (g->M = mf_matrix_new(n, n, error)) &&
                spectral_decompose(W, pi, n, g->lambda, g->M, error);
  g_free(pi);
  if (!ok)
    g_clear_pointer(&g, mf_gram_spectral_free);
  return g;
}

double *mf_gram_spectral_dense(const MfGramSpectral *g, GError **error) {
  g_return_val_if_fail(g != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (g->F != NULL) { /* the Frobenius form: F's top-left T x T block */
    double *F = g_new(double, (gsize)g->T * g->T);
    for (guint a = 0; a < g->T; a++)
      memcpy(F + (gsize)a * g->T, g->F + (gsize)a * g->ld, g->T * sizeof(double));
    double *H = mf_gram_from_frobenius(F, g->T, error);
    g_free(F);
    return H;
  }
  FrobeniusRows f = {0};
  double *H = NULL;
  if (frobenius_rows_eigen(&f, g->lambda, g->M, g->n, g->T, g->e, error) &&
      (H = mf_matrix_new(g->T, g->T, error)) != NULL) {
    gram_from_rows(&f, H);
    if (!check_result_finite(H, g->T, error))
      g_clear_pointer(&H, g_free);
  }
  frobenius_rows_clear(&f);
  return H;
}

void mf_gram_spectral_free(MfGramSpectral *g) {
  if (!g)
    return;
  g_free(g->lambda);
  g_free(g->M);
  g_free(g->F);
  g_free(g);
}

double *mf_gram_from_frobenius(const double *F, guint T, GError **error) {
  g_return_val_if_fail(F != NULL, NULL);
  if (!check_sizes(1, T, error))
    return NULL;
  double *H = mf_matrix_new(T, T, error);
  if (H == NULL)
    return NULL;
  gram_from_frobenius(F, T, H);
  if (!check_result_finite(H, T, error))
    g_clear_pointer(&H, g_free);
  return H;
}

MfGramSpectral *mf_gram_spectral_from_frobenius(const double *F, guint T, MfWorkload workload,
                                                GError **error) {
  g_return_val_if_fail(F != NULL, NULL);
  if (!check_sizes(1, T, error) || !check_workload(workload, error) ||
      !check_finite(F, T, "the Frobenius products", error))
    return NULL;
  MfGramSpectral *g = g_new0(MfGramSpectral, 1);
  g->T = g->ld = T;
  g->e = workload_offset(workload);
  g->F = g_memdup2(F, (gsize)T * T * sizeof(double));
  return g;
}

double *mf_gram_node(const double *W, guint n, guint node, guint T, MfWorkload workload,
                     gsize max_bytes, GError **error) {
  g_return_val_if_fail(W != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!check_static(W, n, T, workload, error))
    return NULL;
  if (node >= n) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "node %u out of range: the graph has %u nodes", node, n);
    return NULL;
  }
  if (!mf_check_budget(budget_bytes(n, T, 0, 1, 3), max_bytes, "the per-node workload Gram matrix",
                       error))
    return NULL;
  /* Row a of Z is W^{a+e} e_node, a column of a power of W. */
  double *Z = mf_matrix_new(T, n, error);
  double *F = Z ? mf_matrix_new(T, T, error) : NULL;
  double *H = F ? mf_matrix_new(T, T, error) : NULL;
  if (!H) {
    g_free(Z);
    g_free(F);
    return NULL;
  }
  if (workload_offset(workload)) {
    for (guint v = 0; v < n; v++)
      Z[v] = W[(gsize)v * n + node];
  } else {
    Z[node] = 1.0;
  }
  for (guint a = 1; a < T; a++) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)n, (int)n, 1.0, W, (int)n, Z + (gsize)(a - 1) * n,
                1, 0.0, Z + (gsize)a * n, 1);
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)T, (int)n, 1.0, Z, (int)n, 0.0, F,
              (int)T);
  mf_fill_upper_from_lower(F, T);
  gram_from_frobenius(F, T, H);
  g_free(Z);
  g_free(F);
  if (!check_result_finite(H, T, error))
    g_clear_pointer(&H, g_free);
  return H;
}

/* The sum of the first @n diagonal entries of @A (rows @ld apart). */
static double trace(const double *A, guint n, guint ld) {
  double t = 0.0;
  for (guint i = 0; i < n; i++)
    t += A[(gsize)i * ld + i];
  return t;
}

/* Writes entry (s, s2) and (s2, s) of the @K T x T matrices @H: the trace
 * of @Y over the @n models (K = 1, @cls NULL), else class c's partial
 * trace, the sum of Y's diagonal over the nodes u with cls[u] = c, in
 * increasing u. @Y is N x N: the models, then the carried state. */
static void put_traces(double *H, guint T, guint s, guint s2, const double *Y, guint n, guint N,
                       const guint *cls, guint K) {
  if (cls == NULL) {
    H[(gsize)s * T + s2] = H[(gsize)s2 * T + s] = trace(Y, n, N);
    return;
  }
  for (guint c = 0; c < K; c++)
    H[((gsize)c * T + s) * T + s2] = 0.0;
  for (guint u = 0; u < n; u++)
    H[((gsize)cls[u] * T + s) * T + s2] += Y[(gsize)u * N + u];
  for (guint c = 0; c < K; c++)
    H[((gsize)c * T + s2) * T + s] = H[((gsize)c * T + s) * T + s2];
}

static double *gram_tv(guint n, guint N, guint T, MfWorkload workload, MfGossipAtFunc gossip_at,
                       gpointer user_data, const guint *cls, guint K, GError **error);

double *mf_gram_time_varying(guint n, guint T, MfWorkload workload, MfGossipAtFunc gossip_at,
                             gpointer user_data, GError **error) {
  return gram_tv(n, n, T, workload, gossip_at, user_data, NULL, 1, error);
}

double *mf_gram_time_varying_state(guint n, guint N, guint T, MfWorkload workload,
                                   MfGossipAtFunc gossip_at, gpointer user_data, GError **error) {
  if (N < n) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "a state of %u coordinates cannot hold the %u models", N, n);
    return NULL;
  }
  return gram_tv(n, N, T, workload, gossip_at, user_data, NULL, 1, error);
}

double *mf_gram_time_varying_classes(guint n, guint T, MfWorkload workload,
                                     MfGossipAtFunc gossip_at, gpointer user_data,
                                     const guint *node_class, guint n_classes, GError **error) {
  g_return_val_if_fail(node_class != NULL && n_classes > 0, NULL);
  for (guint u = 0; u < n; u++)
    if (node_class[u] >= n_classes) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "node %u's class %u: there are %u classes", u, node_class[u], n_classes);
      return NULL;
    }
  return gram_tv(n, n, T, workload, gossip_at, user_data, node_class, n_classes, error);
}

/* The models are the state's first @n coordinates of @N: they receive the
 * noise and make the workload; the others (stale mode's slots) are carried
 * state. N = n is the gossip of the models alone. */
static double *gram_tv(guint n, guint N, guint T, MfWorkload workload, MfGossipAtFunc gossip_at,
                       gpointer user_data, const guint *cls, guint K, GError **error) {
  g_return_val_if_fail(gossip_at != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!check_sizes(n, T, error) || !check_workload(workload, error))
    return NULL;
  if (!mf_check_budget(budget_bytes(N, T, 3, 0, 1), 0, "the time-varying workload Gram matrix",
                       error))
    return NULL;
  double *G = mf_matrix_new(N, N, error);
  double *Y = G ? mf_matrix_new(N, N, error) : NULL;
  double *tmp = Y ? mf_matrix_new(N, N, error) : NULL;
  double *H = tmp ? mf_matrix_new((gsize)K * T, T, error) : NULL;
  if (!H)
    goto fail;
  gboolean post = workload == MF_WORKLOAD_POST_AVERAGE;
  for (guint s2 = T; s2-- > 0;) {
    const double *Ws = gossip_at(s2, user_data);
    char *what = g_strdup_printf("the gossip matrix of round %u", s2);
    gboolean ok = Ws && check_finite(Ws, N, what, error);
    if (!Ws)
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "%s is missing", what);
    g_free(what);
    if (!ok)
      goto fail;
    /* G_s = sum_{t >= s} P(t,s)^T Pi P(t,s), Pi the projector on the
     * models: post-average W_s^T (Pi + G_{s+1}) W_s, messages
     * Pi + W_s^T G_{s+1} W_s. */
    if (post)
      for (guint i = 0; i < n; i++)
        G[(gsize)i * N + i] += 1.0;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)N, (int)N, (int)N, 1.0, G, (int)N,
                Ws, (int)N, 0.0, tmp, (int)N);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)N, (int)N, (int)N, 1.0, Ws, (int)N,
                tmp, (int)N, 0.0, G, (int)N);
    if (!post)
      for (guint i = 0; i < n; i++)
        G[(gsize)i * N + i] += 1.0;
    put_traces(H, T, s2, s2, G, n, N, cls, K);
    /* H[s,s2] = <G_{s2}, W_{s2-1} ... W_s>_F over the models' noise
     * (the trace of Y_s's model block), Y_s = W_s^T Y_{s+1}. */
    memcpy(Y, G, (gsize)N * N * sizeof(double));
    for (guint s = s2; s-- > 0;) {
      const double *Wt = gossip_at(s, user_data);
      if (!Wt) {
        g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                    "the gossip matrix of round %u is missing", s);
        goto fail;
      }
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)N, (int)N, (int)N, 1.0, Wt, (int)N,
                  Y, (int)N, 0.0, tmp, (int)N);
      double *swap = Y;
      Y = tmp;
      tmp = swap;
      put_traces(H, T, s, s2, Y, n, N, cls, K);
    }
  }
  for (guint c = 0; c < K; c++)
    if (!check_result_finite(H + (gsize)c * T * T, T, error))
      goto fail;
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

gboolean mf_gram_check_memory(guint n, guint T, gsize max_bytes, GError **error) {
  char *what = g_strdup_printf("the workload Gram matrix for %u nodes and T = %u rounds", n, T);
  /* H, E and M E, and a block of F's rows (mf_gram_static). */
  gsize need = budget_bytes(n, T, 4, 2, 1), block = (gsize)MIN(T, FROBENIUS_BLOCK_ROWS) * T;
  need = need > G_MAXSIZE - mf_doubles_bytes(block) ? G_MAXSIZE : need + mf_doubles_bytes(block);
  gboolean ok = mf_check_budget(need, max_bytes, what, error);
  g_free(what);
  return ok;
}

double *mf_gram_prefix_sum(guint T, GError **error) {
  if (T == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "T must be positive");
    return NULL;
  }
  double *H = mf_matrix_new(T, T, error);
  if (!H)
    return NULL;
  for (guint s = 0; s < T; s++)
    for (guint t = 0; t < T; t++)
      H[(gsize)s * T + t] = (double)(T - MAX(s, t));
  return H;
}

gboolean mf_workload_parse(const char *name, MfWorkload *out, GError **error) {
  static const char *const names[] = {"post-average", "messages"};
  static const MfWorkload workloads[] = {MF_WORKLOAD_POST_AVERAGE, MF_WORKLOAD_MESSAGES};
  guint i;
  if (!spec_choose(name, "workload", names, G_N_ELEMENTS(names), &i, MF_ERROR,
                   MF_ERROR_INVALID_ARGUMENT, error))
    return FALSE;
  *out = workloads[i];
  return TRUE;
}

const char *mf_workload_name(MfWorkload w) {
  return w == MF_WORKLOAD_MESSAGES ? "messages" : "post-average";
}
