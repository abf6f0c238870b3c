/*
 * mf/optimize.c: the multi-epoch MF optimizer behind Mafalda and DMF
 * (docs/design.md, "Mafalda"; paper Alg. "mafalda sgd", line 4).
 *
 *   minimize f(X) = tr(H X^{-1})  over X positive definite, with
 *   X[s,t] = 0 for s != t, s = t mod b  (never twice in one participation),
 *   X[s,t] = 0 for |s-t| >= band        (optional banded C),
 *   sum_{s in class c} X[s,s] = 1       (sens_Pi = 1 for every offset).
 *
 * The zero constraints are eliminated by keeping only the free entries as
 * variables (diagonal first, then the free strictly-lower entries); the class
 * sums stay at 1 because every search direction is projected on the affine
 * set (class means removed from the diagonal part). Positive definiteness is
 * a barrier: f = +inf outside the cone, so the line search backtracks.
 *
 * Why a preconditioner: the Hessian of f is the operator
 *   D -> X^{-1} D G + G D X^{-1},   G = X^{-1} H X^{-1},
 * a Kronecker sum whose condition number grows like that of H^{1/2}; on the
 * prefix-sum workload (DMF) plain L-BFGS needs thousands of iterations at
 * T = 320. The Kronecker product 2 S (x) S with S = G # X^{-1} (the matrix
 * geometric mean) matches it to within the spread of the generalized
 * eigenvalues of (X^{-1}, G), and its inverse D -> Q D Q / 2, Q = S^{-1},
 * costs two triangular products once Q = F F^T is factored. So L-BFGS runs
 * in the coordinates u with x = x_0 + Phi^T u, Phi(g) = F^T B(g) F (B puts
 * the free entries back in a symmetric matrix), and Q is rebuilt from the
 * current point every few iterations while the objective still moves. The
 * optimum is the same: only the metric of the search changes.
 *
 * With a narrow band (the metric off, METRIC_MIN_FREE) the evaluation is the
 * banded one of mf_banded.c (X in band storage, a band Cholesky, O(T^2 W)
 * per evaluation; MfOptions.evaluation): L-BFGS as the dense path runs
 * it without the metric, but in a diagonal metric (the Hessian's diagonal,
 * from the band of X^{-1}) and from a warm start at half the horizon
 * (extend_smaller) instead of the dense eigendecomposition of H. Same
 * problem, same optimum.
 *
 * All T x T matrices here are symmetric or triangular and stored column-major
 * (the LAPACK convention): entry (i, j) at i + j*T.
 */
#include "mf/banded_internal.h"

#include <math.h>
#include <string.h>

/* Rows per block when solving with the triangular right-hand side R. */
#define TRSM_BLOCK 48
/* Rebuild the preconditioner at most every REFRESH_EVERY iterations, and
 * only while the objective still drops by more than REFRESH_DROP (relative)
 * between rebuilds: a rebuild costs about two iterations and clears the
 * L-BFGS memory, which the final linear phase needs. */
#define REFRESH_EVERY 8
#define REFRESH_DROP 1e-4
/* The metric ignores the zero constraints (it is the inverse of the
 * unconstrained Hessian, restricted): when most off-diagonal entries are
 * constrained, as with a narrow band, it misleads more than it helps, and
 * plain L-BFGS is faster. Measured crossover at T = 320: a band of ~1.5 b,
 * i.e. 10-18% of the off-diagonal entries free. */
#define METRIC_MIN_FREE 0.15
/* The banded path's warm start (extend_smaller): from the optimum at half the
 * horizon, solved to this ftol, once T exceeds WARM_MIN_T. */
#define WARM_MIN_T 256
#define WARM_FTOL 1e-6
/* Iterations over which MfOptions.ftol measures the decrease of f. */
#define FTOL_WINDOW 10

typedef struct {
  guint T, k, b;
  gsize p;    /* number of variables */
  gsize q;    /* length of a vector in the L-BFGS coordinates: T(T+1)/2 with
                    * the metric, p without */
  guint *row; /* variable j >= T is entry (row[j-T], col[j-T]), row > col */
  guint *col;
  double *R;           /* H = R^T R, R upper triangular */
  double *L;           /* Cholesky factor of the current trial X (lower) */
  double *K;           /* R L^{-T} for the current trial (upper), then R X^{-1} */
  double *G;           /* X^{-1} H X^{-1} (lower) */
  double *F;           /* lower, F F^T = Q: the inverse preconditioner's factor */
  double *A, *B;       /* T x T work */
  double *lambda;      /* T generalized eigenvalues */
  gboolean use_metric; /* FALSE: plain L-BFGS (see METRIC_MIN_FREE) */
  gboolean have_F;     /* FALSE: Phi is the identity embedding */
  guint evaluations;
  /* The banded evaluation (mf_banded.c), when used: R then holds R^T (lower),
   * L, K, G, F are not allocated, and X and its gradient live in band
   * storage (W x T). */
  gboolean banded;
  guint W;
  MfBanded bd;
  double *Xb, *Gb, *Sb; /* X, X^{-1} H X^{-1} and X^{-1} on the band */
  double *scale;        /* p: the diagonal metric (have_scale) */
  gboolean have_scale;
} Problem;

static void problem_clear(Problem *P) {
  g_free(P->row);
  g_free(P->col);
  g_free(P->R);
  g_free(P->L);
  g_free(P->K);
  g_free(P->G);
  g_free(P->F);
  g_free(P->A);
  g_free(P->B);
  g_free(P->lambda);
  g_free(P->Xb);
  g_free(P->Gb);
  g_free(P->Sb);
  g_free(P->scale);
  mf_banded_clear(&P->bd);
}

static gboolean is_free(guint s, guint t, guint b, guint band) {
  guint d = s > t ? s - t : t - s;
  return d % b != 0 && (band == 0 || d < band);
}

/* Free strictly-lower entries: T - d per free distance d. */
static gsize count_free(guint T, guint b, guint band) {
  gsize off = 0;
  for (guint d = 1; d < (band ? MIN(band, T) : T); d++)
    if (d % b != 0)
      off += T - d;
  return off;
}

static gboolean metric_pays(guint T, guint b, guint band) {
  return count_free(T, b, band) >= METRIC_MIN_FREE * ((double)T * (T - 1) / 2);
}

/* The banded evaluation when asked, or (AUTO) whenever a band leaves too few
 * entries free for the metric: the iterates are then those of the dense
 * path's plain L-BFGS, at O(T^2 W) instead of O(T^3) per evaluation. */
static gboolean use_banded(guint T, guint b, guint band, MfEvaluation evaluation) {
  if (band == 0 || evaluation == MF_EVAL_DENSE)
    return FALSE;
  return evaluation == MF_EVAL_BANDED || !metric_pays(T, b, band);
}

static double dot(const double *a, const double *b, gsize n) {
  return cblas_ddot((int)n, a, 1, b, 1);
}

static double max_abs(const double *a, gsize n) {
  double m = 0.0;
  for (gsize i = 0; i < n; i++)
    m = MAX(m, fabs(a[i]));
  return m;
}

/* Removes the class means from the diagonal part: the projection on the
 * directions that keep every class sum at 1. */
static void project(const Problem *P, double *v) {
  guint b = P->b, k = P->k;
  for (guint c = 0; c < b; c++) {
    double mean = 0.0;
    for (guint i = 0; i < k; i++)
      mean += v[c + (gsize)i * b];
    mean /= k;
    for (guint i = 0; i < k; i++)
      v[c + (gsize)i * b] -= mean;
  }
}

/* X in band storage (banded path): entry (s + d, s) at Xb[d + s W]. */
static void fill_band(Problem *P, const double *x) {
  guint T = P->T, W = P->W;
  memset(P->Xb, 0, (gsize)W * T * sizeof(double));
  for (guint s = 0; s < T; s++)
    P->Xb[(gsize)s * W] = x[s];
  for (gsize j = T; j < P->p; j++)
    P->Xb[(P->row[j - T] - P->col[j - T]) + (gsize)P->col[j - T] * W] = x[j];
}

/* f(x) = tr(H X^{-1}) = ||R L^{-T}||_F^2 with X = L L^T: one Cholesky and one
 * triangular solve. R L^{-T} is upper triangular (both factors are), so the
 * solve runs by blocks of rows, each on the trailing part of L only: T^3/3
 * flops instead of T^3. +inf when X is not positive definite. Leaves L and K
 * for gradient(). */
static double objective(Problem *P, const double *x) {
  guint T = P->T;
  gsize TT = (gsize)T * T;
  double *L = P->L;
  P->evaluations++;
  if (P->banded) {
    fill_band(P, x);
    return mf_banded_objective(&P->bd, P->Xb);
  }
  memset(L, 0, TT * sizeof(double));
  for (guint s = 0; s < T; s++)
    L[(gsize)s * T + s] = x[s];
  for (gsize j = T; j < P->p; j++)
    L[P->row[j - T] + (gsize)P->col[j - T] * T] = x[j];
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)T, L, (lapack_int)T);
  if (info != 0)
    return INFINITY;
  memcpy(P->K, P->R, TT * sizeof(double));
  for (guint i0 = 0; i0 < T; i0 += TRSM_BLOCK) {
    guint m = MIN(TRSM_BLOCK, T - i0);
    gsize off = i0 + (gsize)i0 * T;
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)m,
                (int)(T - i0), 1.0, L + off, (int)T, P->K + off, (int)T);
  }
  double f = cblas_ddot((int)TT, P->K, 1, P->K, 1);
  return isfinite(f) ? f : INFINITY;
}

/* Gradient of f at the point objective() last evaluated: df/dX = -X^{-1} H X^{-1}
 * = -(R X^{-1})^T (R X^{-1}); an off-diagonal variable stands for two entries.
 * Then projected on the affine set. Leaves G for the preconditioner. */
static void gradient(Problem *P, double *g) {
  guint T = P->T;
  if (P->banded) {
    guint W = P->W;
    mf_banded_gradient(&P->bd, P->Gb);
    for (guint s = 0; s < T; s++)
      g[s] = -P->Gb[(gsize)s * W];
    for (gsize j = T; j < P->p; j++)
      g[j] = -2.0 * P->Gb[(P->row[j - T] - P->col[j - T]) + (gsize)P->col[j - T] * W];
    project(P, g);
    return;
  }
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, (int)T, (int)T,
              1.0, P->L, (int)T, P->K, (int)T);
  cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, (int)T, (int)T, 1.0, P->K, (int)T, 0.0, P->G,
              (int)T);
  for (guint s = 0; s < T; s++)
    g[s] = -P->G[(gsize)s * T + s];
  for (gsize j = T; j < P->p; j++)
    g[j] = -2.0 * P->G[P->row[j - T] + (gsize)P->col[j - T] * T];
  project(P, g);
}

/*
 * The banded path's metric: the diagonal of the Hessian of f,
 *   d^2 f / dx_j^2 = 2 (S[t,t] G[s,s] + S[s,s] G[t,t] + 2 S[s,t] G[s,t])
 * for the variable of entries (s,t) and (t,s), 2 S[s,s] G[s,s] for a
 * diagonal one (S = X^{-1}, G = X^{-1} H X^{-1}; d^2 f = 2 tr(D S D G)),
 * at the point gradient() last saw: x = x_0 + diag(scale) u with
 * scale = (d^2 f / dx_j^2)^{-1/2}. O(T W^2) for the band of S. The entries'
 * curvatures spread along the horizon (H[s,s] grows with T - s); equalizing
 * them helps a little (ego, T = 1024, band 64, gtol 1e-10: 646 iterations
 * instead of 659; 10% fewer to reach f within 1e-9). Built once, at the
 * start. FALSE when a curvature is not positive and finite.
 */
static gboolean precondition_diagonal(Problem *P) {
  guint T = P->T, W = P->W;
  const double *S = P->Sb, *G = P->Gb;
  mf_banded_inverse_band(&P->bd, P->Sb);
  for (gsize j = 0; j < P->p; j++) {
    gsize s = j < T ? j : P->row[j - T], t = j < T ? j : P->col[j - T], d = s - t;
    double h = j < T ? 2.0 * S[s * W] * G[s * W]
                     : 2.0 * (S[t * W] * G[s * W] + S[s * W] * G[t * W] +
                              2.0 * S[d + t * W] * G[d + t * W]);
    if (!(h > 0.0) || !isfinite(h))
      return FALSE;
    P->scale[j] = 1.0 / sqrt(h);
  }
  P->have_scale = TRUE;
  return TRUE;
}

/*
 * Rebuilds F at the point gradient() last saw (L and G): the generalized
 * eigenvectors V of X^{-1} v = lambda G v (V^T G V = I, V^T X^{-1} V =
 * diag(lambda)) give S^{-1} = (G # X^{-1})^{-1} = V diag(lambda^{-1/2}) V^T,
 * of which F is the Cholesky factor. One inverse, one generalized
 * eigensolver, one rank-T update, one Cholesky: about 10 T^3 flops, but the
 * eigensolver runs far below BLAS-3 speed. FALSE (F unchanged) when a
 * factorization fails: the caller then keeps the previous metric.
 */
static gboolean precondition(Problem *P) {
  guint T = P->T;
  gsize TT = (gsize)T * T;
  if (P->banded)
    return precondition_diagonal(P);
  if (!P->use_metric)
    return FALSE;
  memcpy(P->A, P->L, TT * sizeof(double));
  if (LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', (lapack_int)T, P->A, (lapack_int)T) != 0 ||
      LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', (lapack_int)T, P->A, (lapack_int)T) != 0)
    return FALSE;
  memcpy(P->B, P->G, TT * sizeof(double));
  if (LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'L', (lapack_int)T, P->A, (lapack_int)T, P->B,
                     (lapack_int)T, P->lambda) != 0)
    return FALSE;
  for (guint i = 0; i < T; i++) {
    if (!(P->lambda[i] > 0.0) || !isfinite(P->lambda[i]))
      return FALSE;
    cblas_dscal((int)T, pow(P->lambda[i], -0.25), P->A + (gsize)i * T, 1);
  }
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)T, (int)T, 1.0, P->A, (int)T, 0.0, P->B,
              (int)T);
  if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)T, P->B, (lapack_int)T) != 0)
    return FALSE;
  for (guint c = 0; c < T; c++)
    for (guint r = 0; r < c; r++)
      P->B[r + (gsize)c * T] = 0.0;
  double *swap = P->F;
  P->F = P->B;
  P->B = swap;
  P->have_F = TRUE;
  return TRUE;
}

/* u = Phi(g) = F^T B(g) F, packed: the lower triangle by columns, off-diagonal
 * entries times sqrt(2) so that dot products are Frobenius products. Without
 * the metric, u = g. */
static void to_coordinates(Problem *P, const double *g, double *u) {
  guint T = P->T;
  gsize TT = (gsize)T * T;
  if (!P->use_metric) {
    memcpy(u, g, P->p * sizeof(double));
    if (P->have_scale)
      for (gsize j = 0; j < P->p; j++)
        u[j] *= P->scale[j];
    return;
  }
  double *M = P->A;
  memset(M, 0, TT * sizeof(double));
  for (guint s = 0; s < T; s++)
    M[(gsize)s * T + s] = g[s];
  for (gsize j = T; j < P->p; j++) {
    gsize r = P->row[j - T], c = P->col[j - T];
    M[r + c * T] = M[c + r * T] = 0.5 * g[j];
  }
  if (P->have_F) {
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, (int)T, (int)T, 1.0,
                P->F, (int)T, M, (int)T);
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, (int)T, (int)T,
                1.0, P->F, (int)T, M, (int)T);
  }
  gsize i = 0;
  for (guint c = 0; c < T; c++) {
    u[i++] = M[c + (gsize)c * T];
    for (guint r = c + 1; r < T; r++)
      u[i++] = G_SQRT2 * M[r + (gsize)c * T];
  }
}

/* d = Phi^T(u): the adjoint of to_coordinates, F Z F^T read at the free
 * entries, then projected. */
static void from_coordinates(Problem *P, const double *u, double *d) {
  guint T = P->T;
  double *Z = P->A;
  if (!P->use_metric) {
    memcpy(d, u, P->p * sizeof(double));
    if (P->have_scale)
      for (gsize j = 0; j < P->p; j++)
        d[j] *= P->scale[j];
    project(P, d);
    return;
  }
  gsize i = 0;
  for (guint c = 0; c < T; c++) {
    Z[c + (gsize)c * T] = u[i++];
    for (guint r = c + 1; r < T; r++)
      Z[r + (gsize)c * T] = Z[c + (gsize)r * T] = u[i++] / G_SQRT2;
  }
  if (P->have_F) {
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)T, (int)T,
                1.0, P->F, (int)T, Z, (int)T);
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)T, (int)T,
                1.0, P->F, (int)T, Z, (int)T);
  }
  for (guint s = 0; s < T; s++)
    d[s] = Z[(gsize)s * T + s];
  for (gsize j = T; j < P->p; j++)
    d[j] = Z[P->row[j - T] + (gsize)P->col[j - T] * T];
  project(P, d);
}

/* The L-BFGS pairs in the preconditioned coordinates, a ring buffer of the
 * last m (s, y) with rho = 1/(s.y). gamma: the initial inverse-Hessian scale,
 * kept across rebuilds of the metric (each rebuild matches the Hessian's
 * scale, so the last one stays a good guess). */
typedef struct {
  guint m, used, newest;
  double *S, *Y, *rho, *alpha;
  double gamma;
} History;

/* d = -H_k g by the two-loop recursion (Nocedal & Wright, Alg. 7.4). */
static void two_loop(History *h, const double *g, double *d, gsize n) {
  memcpy(d, g, n * sizeof(double));
  for (guint i = 0; i < h->used; i++) {
    guint idx = (h->newest + h->m - i) % h->m;
    h->alpha[idx] = h->rho[idx] * dot(h->S + idx * n, d, n);
    cblas_daxpy((int)n, -h->alpha[idx], h->Y + idx * n, 1, d, 1);
  }
  if (h->used > 0) {
    const double *y = h->Y + (gsize)h->newest * n;
    h->gamma = 1.0 / (h->rho[h->newest] * dot(y, y, n));
  }
  cblas_dscal((int)n, h->gamma, d, 1);
  for (guint i = h->used; i-- > 0;) {
    guint idx = (h->newest + h->m - i) % h->m;
    double beta = h->rho[idx] * dot(h->Y + idx * n, d, n);
    cblas_daxpy((int)n, h->alpha[idx] - beta, h->S + idx * n, 1, d, 1);
  }
  cblas_dscal((int)n, -1.0, d, 1);
}

gsize mf_memory_needed(guint T, guint memory) {
  /* Matrices: R, L, K, G, F and two work matrices, the generalized
   * eigensolver's own work (~2 T^2), and the result's X, C and factorization
   * work: ~12 T^2. Vectors: 2m + 3 of length q = T(T+1)/2 (the pairs and the
   * preconditioned gradients and direction), 5 of length p <= q. */
  gsize TT, q, a, b2, total;
  if (!spec_size_mul_checked(T, T, &TT))
    return G_MAXSIZE;
  q = TT / 2 + T;
  if (!spec_size_mul_checked(TT, 12, &a) || !spec_size_mul_checked(q, 2 * (gsize)memory + 8, &b2) ||
      a > G_MAXSIZE - b2)
    return G_MAXSIZE;
  total = a + b2;
  return mf_doubles_bytes(total);
}

gboolean mf_check_memory(guint T, guint memory, gsize max_bytes, GError **error) {
  char *what = g_strdup_printf("the MF optimizer for T = %u rounds", T);
  gboolean ok = mf_check_budget(mf_memory_needed(T, memory), max_bytes, what, error);
  g_free(what);
  return ok;
}

gsize mf_memory_needed_band(guint T, guint b, guint band, guint memory) {
  if (b == 0 || !use_banded(T, b, band, MF_EVAL_AUTO))
    return mf_memory_needed(T, memory);
  /* R^T, the band evaluation's Z, the result's X and C, and the warm start's
   * copy of the last T/2 rounds of H and its own problem (a quarter of this,
   * recursively: ~1/3 more in all): 4 T^2 + T^2 / 4 + (4 T^2 + ...) / 3.
   * Vectors: 2m + 8 of length p <= T band, and ~6 band x T in band storage. */
  gsize TT, p, a, v;
  if (!spec_size_mul_checked(T, T, &TT) || !spec_size_mul_checked(T, band, &p) ||
      !spec_size_mul_checked(TT, 6, &a) || !spec_size_mul_checked(p, 2 * (gsize)memory + 14, &v) ||
      a > G_MAXSIZE - v)
    return G_MAXSIZE;
  return mf_doubles_bytes(a + v);
}

gboolean mf_check_memory_band(guint T, guint b, guint band, guint memory, gsize max_bytes,
                              GError **error) {
  char *what = g_strdup_printf("the MF optimizer for T = %u rounds", T);
  gboolean ok = mf_check_budget(mf_memory_needed_band(T, b, band, memory), max_bytes, what, error);
  g_free(what);
  return ok;
}

void mf_options_init(MfOptions *opt) {
  g_return_if_fail(opt != NULL);
  opt->memory = 16;
  opt->max_iterations = 20000;
  opt->gtol = 1e-10;
  opt->ftol = 0.0;
  opt->band = 0;
  opt->evaluation = MF_EVAL_AUTO;
  opt->cold_start = FALSE;
  opt->max_bytes = 0;
  opt->progress = NULL;
  opt->progress_data = NULL;
  opt->cancel = NULL;
  opt->x0 = NULL;
}

void mf_result_free(MfResult *r) {
  if (!r)
    return;
  g_free(r->X);
  g_free(r->C);
  g_free(r->history);
  g_free(r);
}

static gboolean check_args(const double *H, guint T, guint k, guint b, const MfOptions *o,
                           GError **error) {
  if (k == 0 || b == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "epochs (k = %u) and batches (b = %u) must both be positive", k, b);
    return FALSE;
  }
  if ((guint64)k * b != T) {
    g_set_error(
        error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
        "the workload has T = %u rounds but epochs x batches = %u x %u = %" G_GUINT64_FORMAT, T, k,
        b, (guint64)k * b);
    return FALSE;
  }
  if ((guint64)T * T > G_MAXINT) {
    g_set_error(error, MF_ERROR, MF_ERROR_MEMORY,
                "T = %u rounds is beyond what the optimizer handles (T^2 must fit in a BLAS "
                "int: T <= 46340); use fewer epochs or batches",
                T);
    return FALSE;
  }
  if (o->band > T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INFEASIBLE,
                "band %u exceeds the horizon T = %u: use a band between 1 and T "
                "(or none)",
                o->band, T);
    return FALSE;
  }
  if (o->evaluation == MF_EVAL_BANDED && o->band == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "the banded evaluation needs a band (MfOptions.band >= 1)");
    return FALSE;
  }
  if (o->memory == 0 || !(o->gtol > 0.0) || o->max_iterations == 0 || !(o->ftol >= 0.0)) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "optimizer options out of range (memory %u, gtol %g, max_iterations %u)", o->memory,
                o->gtol, o->max_iterations);
    return FALSE;
  }
  gsize TT = (gsize)T * T;
  for (gsize i = 0; i < TT; i++) {
    if (o->x0 != NULL && !isfinite(o->x0[i])) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "the optimizer's starting point x0 has a non-finite entry");
      return FALSE;
    }
    if (!isfinite(H[i])) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "the workload Gram matrix has a non-finite entry");
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean problem_init(Problem *P, const double *H, guint T, guint k, guint b, guint band,
                             MfEvaluation evaluation, GError **error) {
  gsize TT = (gsize)T * T;
  memset(P, 0, sizeof *P);
  P->T = T;
  P->k = k;
  P->b = b;
  gsize off = count_free(T, b, band);
  P->p = T + off;
  P->use_metric = metric_pays(T, b, band);
  P->banded = use_banded(T, b, band, evaluation);
  if (P->banded)
    P->use_metric = FALSE;
  P->q = P->use_metric ? (gsize)T * (T + 1) / 2 : P->p;
  P->row = g_try_new(guint, MAX(off, 1));
  P->col = g_try_new(guint, MAX(off, 1));
  if (!P->row || !P->col) {
    g_set_error(error, MF_ERROR, MF_ERROR_MEMORY, "cannot allocate the variable index");
    return FALSE;
  }
  if (P->banded) {
    /* Only R (as R^T), the band evaluation's work and X, G in band storage. */
    P->W = band;
    if (!(P->R = mf_matrix_new(T, T, error)) || !(P->Xb = mf_matrix_new(band, T, error)) ||
        !(P->Gb = mf_matrix_new(band, T, error)) || !(P->Sb = mf_matrix_new(band, T, error)) ||
        !(P->scale = mf_matrix_new(P->p, 1, error)))
      return FALSE;
  } else {
    double **mats[] = {&P->R, &P->L, &P->K, &P->G, &P->F, &P->A, &P->B};
    for (guint i = 0; i < G_N_ELEMENTS(mats); i++)
      if (!(*mats[i] = mf_matrix_new(T, T, error)))
        return FALSE;
  }
  if (!(P->lambda = mf_matrix_new(T, 1, error)))
    return FALSE;
  gsize j = 0;
  for (guint s = 0; s < T; s++) {
    for (guint t = s + 1; t < T; t++) {
      if (!is_free(s, t, b, band))
        continue;
      P->row[j] = t;
      P->col[j] = s;
      j++;
    }
  }
  /* H is symmetric, so its row-major and column-major layouts coincide; the
   * upper factor R of the dense path is the transpose of the lower one. */
  char uplo = P->banded ? 'L' : 'U';
  memcpy(P->R, H, TT * sizeof(double));
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, uplo, (lapack_int)T, P->R, (lapack_int)T);
  if (info != 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the workload Gram matrix is not positive definite (Cholesky fails at "
                "row %d): no strategy has a finite loss",
                (int)info);
    return FALSE;
  }
  for (guint c = 0; c < T; c++)
    for (guint r = 0; r < T; r++)
      if (P->banded ? r < c : r > c)
        P->R[r + (gsize)c * T] = 0.0;
  if (P->banded && !mf_banded_init(&P->bd, P->R, T, band, error))
    return FALSE;
  return TRUE;
}

/* Backtracking Armijo search along d from x (value f, projected gradient g,
 * slope dg < 0), starting at step *alpha. Near the optimum, f changes by less
 * than its rounding error; a step is then accepted on the approximate Wolfe
 * conditions (Hager & Zhang 2005), which use only derivatives. On success
 * x_new, f_new, g_new hold the new point and *alpha the step taken. */
static gboolean line_search(Problem *P, const double *x, double f, double dg, const double *d,
                            double *alpha, double *x_new, double *f_new, double *g_new) {
  const double c1 = 1e-4, sigma = 0.9, delta = 0.1, noise = 1e-12;
  gsize p = P->p;
  double a = *alpha;
  for (guint tries = 0; tries < 60; tries++) {
    memcpy(x_new, x, p * sizeof(double));
    cblas_daxpy((int)p, a, d, 1, x_new, 1);
    double fa = objective(P, x_new);
    if (!isfinite(fa)) {
      a *= 0.25;
      continue;
    }
    if (fa <= f + c1 * a * dg) {
      *f_new = fa;
      *alpha = a;
      gradient(P, g_new);
      return TRUE;
    }
    if (fa <= f + noise * fabs(f)) {
      gradient(P, g_new);
      double dga = dot(g_new, d, p);
      if (dga >= sigma * dg && dga <= (2 * delta - 1) * dg) {
        *f_new = fa;
        *alpha = a;
        return TRUE;
      }
    }
    /* Minimizer of the quadratic through f, dg and fa, kept in [0.1, 0.5] a. */
    double qa = -dg * a * a / (2.0 * (fa - f - dg * a));
    a = CLAMP(qa, 0.1 * a, 0.5 * a);
  }
  return FALSE;
}

/*
 * The starting point. Without the zero constraints and with one trace
 * constraint, the optimum is proportional to H^{1/2}; tapering it entrywise by
 * sinc((s-t)/b), which vanishes at every nonzero multiple of b and is a
 * positive semidefinite kernel on the integers (its spectrum is a box), and
 * when banded by the Fejer kernel max(0, 1 - |s-t|/band) (same properties for
 * the band), keeps it positive definite (Schur product theorem) with zeros
 * wherever X must vanish. A diagonal congruence then sets every class sum to
 * 1. Mixed with I/k (the identity strategy, always feasible) as far as that
 * lowers f. On the paper's settings this starts within 30% of the optimum
 * instead of 5 to 8 times above it. One symmetric eigensolver and a few
 * evaluations. Returns f at x (and leaves
 * L, K for gradient()), +inf if even I/k fails. @y: p doubles of work.
 */
/* x = theta y + (1 - theta) I/k. */
static void mix(const double *y, double theta, guint k, guint T, gsize p, double *x) {
  for (gsize j = 0; j < p; j++)
    x[j] = theta * y[j] + (j < T ? (1.0 - theta) / k : 0.0);
}

/* Scales y by a diagonal congruence so that every class sum of its diagonal
 * is 1, then returns f at the best theta y + (1 - theta) I/k (theta = 1, 1/2,
 * 1/4, ...) in x (leaving L, K for gradient()); @w: T doubles of work. */
static double normalize_and_mix(Problem *P, double *x, double *y, double *w) {
  guint T = P->T, k = P->k, b = P->b;
  gsize p = P->p;
  for (guint c = 0; c < b; c++) {
    double sum = 0.0;
    for (guint i = 0; i < k; i++)
      sum += y[c + (gsize)i * b];
    for (guint i = 0; i < k; i++)
      w[c + i * b] = sum > 0.0 ? 1.0 / sqrt(sum) : 0.0;
  }
  gboolean usable = TRUE;
  for (guint s = 0; s < T; s++) {
    y[s] *= w[s] * w[s];
    usable = usable && w[s] > 0.0 && isfinite(w[s]);
  }
  for (gsize j = T; j < p; j++)
    y[j] *= w[P->row[j - T]] * w[P->col[j - T]];
  /* theta y + (1 - theta) I/k for theta = 1, 1/2, 1/4...: keep the best. */
  double best = INFINITY, best_theta = 0.0, theta = 1.0;
  for (guint tries = 0; usable && tries < 12; tries++, theta *= 0.5) {
    mix(y, theta, k, T, p, x);
    double f = objective(P, x);
    if (f < best) {
      best = f;
      best_theta = theta;
    } else if (isfinite(f)) {
      break;
    }
  }
  mix(y, best_theta, k, T, p, x);
  return objective(P, x);
}

static double default_start(Problem *P, const double *H, guint band, double *x, double *y) {
  guint T = P->T, k = P->k, b = P->b;
  gsize p = P->p, TT = (gsize)T * T;
  for (gsize j = 0; j < p; j++)
    x[j] = j < T ? 1.0 / k : 0.0;
  /* The banded evaluation keeps no T x T work matrices: borrow two. */
  double *V = P->A, *Y = P->B, *w = P->lambda;
  double *own_V = NULL, *own_Y = NULL, *own_w = NULL;
  if (!V) {
    V = own_V = g_try_new(double, TT);
    Y = own_Y = g_try_new(double, TT);
    w = own_w = g_try_new(double, T);
  }
  double f;
  if (!V || !Y || !w ||
      LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)T, memcpy(V, H, TT * sizeof(double)),
                     (lapack_int)T, w) != 0) {
    f = objective(P, x);
    goto out;
  }
  for (guint i = 0; i < T; i++)
    cblas_dscal((int)T, pow(MAX(w[i], 0.0), 0.25), V + (gsize)i * T, 1);
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)T, (int)T, 1.0, V, (int)T, 0.0, Y,
              (int)T);
  /* A diagonal X (b = 1, band 1) has the closed-form optimum sqrt(H[s,s]) per class. */
  for (guint s = 0; s < T; s++)
    y[s] = p == T ? sqrt(H[(gsize)s * T + s]) : Y[(gsize)s * T + s];
  for (gsize j = T; j < p; j++) {
    double d = (double)(P->row[j - T] - P->col[j - T]), taper = sin(G_PI * d / b) / (G_PI * d / b);
    if (band)
      taper *= 1.0 - d / band;
    y[j] = taper * Y[P->row[j - T] + (gsize)P->col[j - T] * T];
  }
  f = normalize_and_mix(P, x, y, w);
out:
  g_free(own_V);
  g_free(own_Y);
  g_free(own_w);
  return f;
}

/*
 * The warm start of the banded path: the banded optimum for k/2
 * epochs (same b and band, a looser tolerance) on the last T/2 rounds of H,
 * the bottom-right block (for a workload of the form H[s,s'] = F[T-1-s,
 * T-1-s'] + H[s+1,s'+1], as the post-average workload of a static W and the
 * prefix sum, it is exactly the Gram matrix of the shorter horizon; for any
 * other H it is still a start), itself warm started the same way. Extended
 * to T by keeping its first half at the start of the horizon and its second
 * half at the end (a quarter of T each) and repeating, over the middle half,
 * one period b of its stationary middle: column c of the band (entries (c + d, c)) comes from column c' =
 * c, c - T + T', or h + (c - h) mod b, always of the same class, so the
 * zero pattern is kept. FALSE (y untouched) when the horizon is too short
 * or the smaller problem fails: start() then applies. Cancelled: I/k.
 */
static gboolean extend_smaller(Problem *P, const double *H, const MfOptions *o, double *y) {
  guint T = P->T, k = P->k, b = P->b, W = P->W;
  guint k2 = k / 2, T2 = k2 * b, h = (k2 / 2) * b;
  if (o->cold_start || !P->banded || T <= WARM_MIN_T || k2 < 2 || T2 - h < b + W || h < W)
    return FALSE;
  double *H2 = g_try_new(double, (gsize)T2 *T2);
  if (!H2)
    return FALSE;
  for (guint c = 0; c < T2; c++)
    memcpy(H2 + (gsize)c * T2, H + (gsize)(T - T2 + c) * T + (T - T2), T2 * sizeof(double));
  MfOptions so = *o;
  so.ftol = MAX(o->ftol, WARM_FTOL);
  so.progress = NULL;
  so.evaluation = MF_EVAL_BANDED;
  MfResult *r = NULL;
  GError *sub = NULL;
  mf_optimize(H2, T2, k2, b, &so, &r, &sub);
  g_free(H2);
  gboolean cancelled = g_error_matches(sub, MF_ERROR, MF_ERROR_NOT_CONVERGED) && o->cancel &&
                       g_atomic_int_get(o->cancel);
  g_clear_error(&sub);
  if (cancelled) {
    /* I/k: no dense start to sit through; the main loop then stops. */
    for (gsize j = 0; j < P->p; j++)
      y[j] = j < T ? 1.0 : 0.0;
    mf_result_free(r);
    return TRUE;
  }
  if (!r)
    return FALSE;
  for (gsize j = 0; j < P->p; j++) {
    guint c = j < T ? (guint)j : P->col[j - T], d = j < T ? 0 : P->row[j - T] - c;
    guint c2 = c < h ? c : c >= T - (T2 - h) ? c - (T - T2) : h + (c - h) % b;
    y[j] = r->X[(gsize)(c2 + d) * T2 + c2];
  }
  mf_result_free(r);
  return TRUE;
}

/* x = theta y + (1 - theta) z: the segment from z (theta = 0) to y. */
static double segment(Problem *P, const double *y, const double *z, double theta, double *x) {
  for (gsize j = 0; j < P->p; j++)
    x[j] = theta * y[j] + (1.0 - theta) * z[j];
  return objective(P, x);
}

/*
 * The start with a caller's X0 (MfOptions.x0): X0 read at the free
 * entries, each class sum set to 1 by a diagonal congruence, then the best
 * point on the segment from the default start to it. f is convex and X0 need
 * not be positive definite (a stretched optimum of a shorter problem often
 * is barely, or not): f along the segment is convex, +inf past the cone's
 * boundary, so a golden-section search on theta in [0, 1] finds its minimum;
 * both ends are tried too (X0 itself; theta = 0, the default start, unless
 * something beats it). About 18 evaluations (2 T^3 / 3 flops each) and the
 * default start's eigensolver.
 * Returns f at x and leaves L, K for gradient(). @y, @z: p doubles of work.
 */
static double start(Problem *P, const double *H, guint band, const double *X0, double *x, double *y,
                    double *z) {
  guint T = P->T, k = P->k, b = P->b;
  gsize p = P->p;
  double f0 = default_start(P, H, band, x, y);
  if (X0 == NULL || !isfinite(f0))
    return f0;
  memcpy(z, x, p * sizeof(double));
  for (guint s = 0; s < T; s++)
    y[s] = X0[(gsize)s * T + s];
  for (gsize j = T; j < p; j++)
    y[j] = X0[P->row[j - T] + (gsize)P->col[j - T] * T];
  double *w = P->lambda;
  for (guint c = 0; c < b; c++) {
    double sum = 0.0;
    for (guint i = 0; i < k; i++)
      sum += y[c + (gsize)i * b];
    if (!(sum > 0.0) || !isfinite(sum)) { /* not usable: the default start */
      memcpy(x, z, p * sizeof(double));
      return objective(P, x);
    }
    for (guint i = 0; i < k; i++)
      w[c + i * b] = 1.0 / sqrt(sum);
  }
  for (guint s = 0; s < T; s++)
    y[s] *= w[s] * w[s];
  for (gsize j = T; j < p; j++)
    y[j] *= w[P->row[j - T]] * w[P->col[j - T]];
  const double phi = 0.6180339887498949;
  double lo = 0.0, hi = 1.0, a = hi - phi, c = phi;
  double fa = segment(P, y, z, a, x), fc = segment(P, y, z, c, x);
  for (guint i = 0; i < 14; i++) {
    if (fa <= fc) {
      hi = c;
      c = a;
      fc = fa;
      a = hi - phi * (hi - lo);
      fa = segment(P, y, z, a, x);
    } else {
      lo = a;
      a = c;
      fa = fc;
      c = lo + phi * (hi - lo);
      fc = segment(P, y, z, c, x);
    }
  }
  double theta = fa <= fc ? a : c, best = MIN(fa, fc);
  double f1 = segment(P, y, z, 1.0, x); /* the ends: X0 itself, the default */
  if (f1 <= best) {
    theta = 1.0;
    best = f1;
  }
  if (!(best < f0))
    theta = 0.0;
  return segment(P, y, z, theta, x);
}

/* The result at @x; takes @history (the objective at each accepted step). */
static MfResult *make_result(Problem *P, const double *x, double f, double gnorm, guint iterations,
                             gboolean converged, GArray *history, GError **error) {
  guint T = P->T;
  MfResult *r = g_new0(MfResult, 1);
  r->n_history = history->len;
  r->history = (double *)(void *)g_array_free(history, FALSE);
  r->T = T;
  r->k = P->k;
  r->b = P->b;
  r->objective = f;
  r->gradient = gnorm;
  r->iterations = iterations;
  r->evaluations = P->evaluations;
  r->converged = converged;
  r->X = mf_matrix_new(T, T, error);
  if (!r->X) {
    mf_result_free(r);
    return NULL;
  }
  for (guint s = 0; s < T; s++)
    r->X[(gsize)s * T + s] = x[s];
  for (gsize j = T; j < P->p; j++) {
    gsize a = P->row[j - T], c = P->col[j - T];
    r->X[a * T + c] = r->X[c * T + a] = x[j];
  }
  if (P->banded) {
    fill_band(P, x);
    r->C = mf_factor_from_band(P->Xb, T, P->W, error);
  } else {
    r->C = mf_factor_from_gram(r->X, T, error);
  }
  if (!r->C) {
    mf_result_free(r);
    return NULL;
  }
  return r;
}

gboolean mf_optimize(const double *H, guint T, guint k, guint b, const MfOptions *opt,
                     MfResult **result, GError **error) {
  g_return_val_if_fail(H != NULL, FALSE);
  g_return_val_if_fail(result != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  MfOptions defaults;
  mf_options_init(&defaults);
  const MfOptions *o = opt ? opt : &defaults;
  *result = NULL;
  if (!check_args(H, T, k, b, o, error))
    return FALSE;
  if (!mf_check_memory_band(T, b, o->band, o->memory, o->max_bytes, error))
    return FALSE;

  Problem P;
  History h = {0};
  double *x = NULL, *g = NULL, *d = NULL, *x_new = NULL, *g_new = NULL;
  double *u = NULL, *u_new = NULL, *du = NULL;
  gboolean ok = FALSE;
  if (!problem_init(&P, H, T, k, b, o->band, o->evaluation, error))
    goto out;
  gsize p = P.p, q = P.q;
  h.m = o->memory;
  double **vecs[] = {&x, &g, &d, &x_new, &g_new};
  for (guint i = 0; i < G_N_ELEMENTS(vecs); i++)
    if (!(*vecs[i] = mf_matrix_new(p, 1, error)))
      goto out;
  double **uvecs[] = {&u, &u_new, &du};
  for (guint i = 0; i < G_N_ELEMENTS(uvecs); i++)
    if (!(*uvecs[i] = mf_matrix_new(q, 1, error)))
      goto out;
  if (!(h.S = mf_matrix_new(h.m, q, error)) || !(h.Y = mf_matrix_new(h.m, q, error)) ||
      !(h.rho = mf_matrix_new(h.m, 1, error)) || !(h.alpha = mf_matrix_new(h.m, 1, error)))
    goto out;

  double f = extend_smaller(&P, H, o, x_new) ? normalize_and_mix(&P, x, x_new, P.lambda)
                                             : start(&P, H, o->band, o->x0, x, x_new, g_new);
  if (!isfinite(f)) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the objective is not finite at the starting point");
    goto out;
  }
  gradient(&P, g);
  /* Phi^T Phi = 2 (Hessian)^{-1} when the metric is exact: gamma = 1/2 is
   * the Newton scale. Without a metric, move the entries by at most 10% of
   * 1/k (the line search's first step is then safe). */
  precondition(&P);
  to_coordinates(&P, g, u);
  h.gamma = P.have_F || P.have_scale ? 0.5 : 0.1 / (k * MAX(max_abs(u, q), 1e-300));
  double f_metric = f;
  guint since_metric = 0;
  double gnorm = max_abs(g, p);
  guint it = 0, failures = 0, accepted = 0;
  double f_window[FTOL_WINDOW]; /* f after accepted - FTOL_WINDOW + i steps */
  f_window[0] = f;
  gboolean converged = FALSE;
  double g0 = gnorm;
  gboolean cancelled = FALSE;
  GArray *history = g_array_new(FALSE, FALSE, sizeof(double));
  g_array_append_val(history, f);
  for (; it < o->max_iterations; it++) {
    if (o->cancel != NULL && g_atomic_int_get(o->cancel)) {
      cancelled = TRUE;
      break;
    }
    if (gnorm <= o->gtol * f / T) {
      converged = TRUE;
      break;
    }
    if (o->progress != NULL) /* the way from g0 to the target, on a log scale */
      o->progress(it, log(g0 / gnorm) / log(g0 / (o->gtol * f / T)), o->progress_data);
    two_loop(&h, u, du, q);
    from_coordinates(&P, du, d);
    double dg = dot(g, d, p);
    if (!(dg < 0.0) && h.used > 0) {
      h.used = 0;
      two_loop(&h, u, du, q);
      from_coordinates(&P, du, d);
      dg = dot(g, d, p);
    }
    double alpha = 1.0, f_new;
    if (!(dg < 0.0) || !line_search(&P, x, f, dg, d, &alpha, x_new, &f_new, g_new)) {
      /* A stale history can point badly: retry (twice at most) with the
       * metric alone, i.e. along the preconditioned gradient. */
      if (h.used > 0 && failures++ < 2) {
        h.used = 0;
        continue;
      }
      break;
    }
    failures = 0;
    accepted++;
    double *swap = x;
    x = x_new;
    x_new = swap;
    swap = g;
    g = g_new;
    g_new = swap;
    f = f_new;
    g_array_append_val(history, f);
    gnorm = max_abs(g, p);
    if (o->ftol > 0.0) {
      /* The slot holds f from FTOL_WINDOW accepted steps ago. */
      double *old = &f_window[accepted % FTOL_WINDOW];
      if (accepted >= FTOL_WINDOW && *old - f <= o->ftol * f) {
        converged = TRUE;
        it++;
        break;
      }
      *old = f;
    }
    since_metric++;
    /* The banded path's diagonal metric is built once: rebuilding it clears
     * the pairs for little (ego, T = 2048, band 64: 350 iterations instead
     * of 386). */
    if (!P.banded && since_metric >= REFRESH_EVERY && f_metric - f > REFRESH_DROP * f &&
        precondition(&P)) {
      /* New coordinates: the stored pairs no longer apply. */
      f_metric = f;
      since_metric = 0;
      h.used = 0;
      to_coordinates(&P, g, u);
      continue;
    }
    /* s = alpha du, y = u_new - u, into the oldest slot. */
    to_coordinates(&P, g, u_new);
    guint slot = h.used ? (h.newest + 1) % h.m : 0;
    double *s = h.S + (gsize)slot * q, *y = h.Y + (gsize)slot * q;
    for (gsize i = 0; i < q; i++) {
      s[i] = alpha * du[i];
      y[i] = u_new[i] - u[i];
    }
    double sy = dot(s, y, q);
    if (sy > 1e-300) {
      h.rho[slot] = 1.0 / sy;
      h.newest = slot;
      h.used = MIN(h.used + 1, h.m);
    }
    swap = u;
    u = u_new;
    u_new = swap;
  }
  *result = make_result(&P, x, f, gnorm, it, converged, history, error);
  if (!*result)
    goto out;
  if (cancelled) {
    g_set_error(error, MF_ERROR, MF_ERROR_NOT_CONVERGED,
                "the MF optimizer was cancelled after %u iterations", it);
    goto out;
  }
  if (!converged) {
    g_set_error(error, MF_ERROR, MF_ERROR_NOT_CONVERGED,
                "the MF optimizer stopped after %u iterations with projected gradient %.3g "
                "above the tolerance %.3g (objective %.10g); the best point reached is kept",
                it, gnorm, o->gtol * f / T, f);
    goto out;
  }
  ok = TRUE;
out:
  problem_clear(&P);
  g_free(x);
  g_free(g);
  g_free(d);
  g_free(x_new);
  g_free(g_new);
  g_free(u);
  g_free(u_new);
  g_free(du);
  g_free(h.S);
  g_free(h.Y);
  g_free(h.rho);
  g_free(h.alpha);
  return ok;
}
