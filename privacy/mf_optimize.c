/*
 * privacy/mf_optimize.c: the multi-epoch MF optimizer behind Mafalda and DMF
 * (DESIGN.md, "Mafalda"; paper Alg. "mafalda sgd", line 4).
 *
 *   minimize f(X) = tr(H X^{-1})  over X positive definite, with
 *   X[s,t] = 0 for s != t, s = t mod b  (never twice in one participation),
 *   X[s,t] = 0 for |s-t| >= band        (optional banded C),
 *   sum_{s in class c} X[s,s] = 1       (sens_Pi = 1 for every offset).
 *
 * The zero constraints are eliminated by keeping only the free entries as
 * variables (diagonal first, then the free strictly-lower entries); the class
 * sums stay at 1 because every search direction is built from gradients
 * projected on the affine set (class means removed from the diagonal part),
 * and from differences of feasible points. Positive definiteness is a
 * barrier: f = +inf outside the cone, so the line search backtracks.
 *
 * All T x T matrices here are symmetric or triangular and stored column-major
 * (the LAPACK convention): entry (i, j) at i + j*T.
 */
#include "privacy/internal.h"

#include <math.h>
#include <string.h>

typedef struct {
  guint T, k, b;
  gsize p;         /* number of variables */
  guint *row;      /* variable j >= T is entry (row[j-T], col[j-T]), row > col */
  guint *col;
  double *R;       /* H = R^T R, R upper triangular */
  double *L;       /* Cholesky factor of the current trial X (lower) */
  double *K;       /* R L^{-T} for the current trial, then R X^{-1} */
  double *G;       /* X^{-1} H X^{-1} (lower) */
  guint evaluations;
} Problem;

static void problem_clear(Problem *P) {
  g_free(P->row);
  g_free(P->col);
  g_free(P->R);
  g_free(P->L);
  g_free(P->K);
  g_free(P->G);
}

static gboolean is_free(guint s, guint t, guint b, guint band) {
  guint d = s > t ? s - t : t - s;
  return d % b != 0 && (band == 0 || d < band);
}

/* f(x) = tr(H X^{-1}) = ||R L^{-T}||_F^2 with X = L L^T: one Cholesky and one
 * triangular solve. +inf when X is not positive definite. Leaves L and K for
 * gradient(). */
static double objective(Problem *P, const double *x) {
  guint T = P->T;
  gsize TT = (gsize)T * T;
  double *L = P->L;
  P->evaluations++;
  memset(L, 0, TT * sizeof(double));
  for (guint s = 0; s < T; s++) L[(gsize)s * T + s] = x[s];
  for (gsize j = T; j < P->p; j++) L[P->row[j - T] + (gsize)P->col[j - T] * T] = x[j];
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)T, L, (lapack_int)T);
  if (info != 0) return INFINITY;
  memcpy(P->K, P->R, TT * sizeof(double));
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)T, (int)T,
              1.0, L, (int)T, P->K, (int)T);
  double f = cblas_ddot((int)TT, P->K, 1, P->K, 1);
  return isfinite(f) ? f : INFINITY;
}

/* Gradient of f at the point objective() last accepted: df/dX = -X^{-1} H X^{-1}
 * = -(R X^{-1})^T (R X^{-1}); an off-diagonal variable stands for two entries.
 * Then projected on the affine set: class means removed from the diagonal. */
static void gradient(Problem *P, double *g) {
  guint T = P->T, b = P->b, k = P->k;
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, (int)T,
              (int)T, 1.0, P->L, (int)T, P->K, (int)T);
  cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, (int)T, (int)T, 1.0, P->K, (int)T, 0.0,
              P->G, (int)T);
  for (guint s = 0; s < T; s++) g[s] = -P->G[(gsize)s * T + s];
  for (gsize j = T; j < P->p; j++) g[j] = -2.0 * P->G[P->row[j - T] + (gsize)P->col[j - T] * T];
  for (guint c = 0; c < b; c++) {
    double mean = 0.0;
    for (guint i = 0; i < k; i++) mean += g[c + (gsize)i * b];
    mean /= k;
    for (guint i = 0; i < k; i++) g[c + (gsize)i * b] -= mean;
  }
}

static double dot(const double *a, const double *b, gsize n) {
  return cblas_ddot((int)n, a, 1, b, 1);
}

static double max_abs(const double *a, gsize n) {
  double m = 0.0;
  for (gsize i = 0; i < n; i++) m = MAX(m, fabs(a[i]));
  return m;
}

/* The L-BFGS pairs, a ring buffer of the last m (s, y) with rho = 1/(s.y). */
typedef struct {
  guint m, used, newest;
  double *S, *Y, *rho, *alpha;
} History;

/* d = -H_k g by the two-loop recursion (Nocedal & Wright, Alg. 7.4). */
static void two_loop(const History *h, const double *g, double *d, gsize p) {
  memcpy(d, g, p * sizeof(double));
  for (guint i = 0; i < h->used; i++) {
    guint idx = (h->newest + h->m - i) % h->m;
    h->alpha[idx] = h->rho[idx] * dot(h->S + idx * p, d, p);
    cblas_daxpy((int)p, -h->alpha[idx], h->Y + idx * p, 1, d, 1);
  }
  if (h->used > 0) {
    const double *y = h->Y + (gsize)h->newest * p;
    double gamma = 1.0 / (h->rho[h->newest] * dot(y, y, p));
    cblas_dscal((int)p, gamma, d, 1);
  }
  for (guint i = h->used; i-- > 0;) {
    guint idx = (h->newest + h->m - i) % h->m;
    double beta = h->rho[idx] * dot(h->Y + idx * p, d, p);
    cblas_daxpy((int)p, h->alpha[idx] - beta, h->S + idx * p, 1, d, 1);
  }
  cblas_dscal((int)p, -1.0, d, 1);
}

gsize priv_mf_memory_needed(guint T, guint memory) {
  /* Matrices: R, L, K, G, plus the result's X, C and factorization work: ~8 T^2.
   * Vectors of length p <= T(T+1)/2: x, g, d, x_new, g_new, and 2m history. */
  gsize TT, p, a, b2, total;
  if (!priv_size_mul(T, T, &TT)) return G_MAXSIZE;
  p = TT / 2 + T;
  if (!priv_size_mul(TT, 8, &a) || !priv_size_mul(p, 2 * (gsize)memory + 6, &b2) ||
      a > G_MAXSIZE - b2)
    return G_MAXSIZE;
  total = a + b2;
  return priv_doubles_bytes(total);
}

gboolean priv_mf_check_memory(guint T, guint memory, gsize max_bytes, GError **error) {
  char *what = g_strdup_printf("the MF optimizer for T = %u rounds", T);
  gboolean ok = priv_check_budget(priv_mf_memory_needed(T, memory), max_bytes, what, error);
  g_free(what);
  return ok;
}

void priv_mf_options_init(PrivMfOptions *opt) {
  g_return_if_fail(opt != NULL);
  opt->memory = 16;
  opt->max_iterations = 20000;
  opt->gtol = 1e-10;
  opt->band = 0;
  opt->max_bytes = 0;
}

void priv_mf_result_free(PrivMfResult *r) {
  if (!r) return;
  g_free(r->X);
  g_free(r->C);
  g_free(r);
}

static gboolean check_args(const double *H, guint T, guint k, guint b, const PrivMfOptions *o,
                           GError **error) {
  if (k == 0 || b == 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "epochs (k = %u) and batches (b = %u) must both be positive", k, b);
    return FALSE;
  }
  if ((guint64)k * b != T) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the workload has T = %u rounds but epochs x batches = %u x %u = %" G_GUINT64_FORMAT,
                T, k, b, (guint64)k * b);
    return FALSE;
  }
  if ((guint64)T * T > G_MAXINT) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_MEMORY,
                "T = %u rounds is beyond what the optimizer handles (T^2 must fit in a BLAS "
                "int: T <= 46340); use fewer epochs or batches", T);
    return FALSE;
  }
  if (o->band > T) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INFEASIBLE,
                "band %u exceeds the horizon T = %u: use a band between 1 and T "
                "(or none)", o->band, T);
    return FALSE;
  }
  if (o->memory == 0 || !(o->gtol > 0.0) || o->max_iterations == 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "optimizer options out of range (memory %u, gtol %g, max_iterations %u)",
                o->memory, o->gtol, o->max_iterations);
    return FALSE;
  }
  gsize TT = (gsize)T * T;
  for (gsize i = 0; i < TT; i++) {
    if (!isfinite(H[i])) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  "the workload Gram matrix has a non-finite entry");
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean problem_init(Problem *P, const double *H, guint T, guint k, guint b,
                             guint band, GError **error) {
  gsize TT = (gsize)T * T;
  memset(P, 0, sizeof *P);
  P->T = T;
  P->k = k;
  P->b = b;
  gsize off = 0;
  for (guint s = 0; s < T; s++)
    for (guint t = s + 1; t < T; t++) off += is_free(s, t, b, band);
  P->p = T + off;
  P->row = g_try_new(guint, MAX(off, 1));
  P->col = g_try_new(guint, MAX(off, 1));
  P->R = priv_matrix_new(T, T, error);
  P->L = P->R ? priv_matrix_new(T, T, error) : NULL;
  P->K = P->L ? priv_matrix_new(T, T, error) : NULL;
  P->G = P->K ? priv_matrix_new(T, T, error) : NULL;
  if (!P->G || !P->row || !P->col) {
    if (!P->G) return FALSE;
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_MEMORY, "cannot allocate the variable index");
    return FALSE;
  }
  gsize j = 0;
  for (guint s = 0; s < T; s++) {
    for (guint t = s + 1; t < T; t++) {
      if (!is_free(s, t, b, band)) continue;
      P->row[j] = t;
      P->col[j] = s;
      j++;
    }
  }
  /* H is symmetric, so its row-major and column-major layouts coincide. */
  memcpy(P->R, H, TT * sizeof(double));
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', (lapack_int)T, P->R, (lapack_int)T);
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the workload Gram matrix is not positive definite (Cholesky fails at "
                "row %d): no strategy has a finite loss",
                (int)info);
    return FALSE;
  }
  for (guint c = 0; c < T; c++)
    for (guint r = c + 1; r < T; r++) P->R[r + (gsize)c * T] = 0.0;
  return TRUE;
}

/* Backtracking Armijo search along d from x (value f, projected gradient g,
 * slope dg < 0). Near the optimum, f changes by less than its rounding error;
 * a step is then accepted on the approximate Wolfe conditions (Hager & Zhang
 * 2005), which use only derivatives. On success x_new, f_new, g_new hold the
 * new point. */
static gboolean line_search(Problem *P, const double *x, double f, double dg, const double *d,
                            double alpha, double *x_new, double *f_new, double *g_new) {
  const double c1 = 1e-4, sigma = 0.9, delta = 0.1, noise = 1e-12;
  gsize p = P->p;
  for (guint tries = 0; tries < 60; tries++) {
    memcpy(x_new, x, p * sizeof(double));
    cblas_daxpy((int)p, alpha, d, 1, x_new, 1);
    double fa = objective(P, x_new);
    if (!isfinite(fa)) {
      alpha *= 0.25;
      continue;
    }
    if (fa <= f + c1 * alpha * dg) {
      *f_new = fa;
      gradient(P, g_new);
      return TRUE;
    }
    if (fa <= f + noise * fabs(f)) {
      gradient(P, g_new);
      double dga = dot(g_new, d, p);
      if (dga >= sigma * dg && dga <= (2 * delta - 1) * dg) {
        *f_new = fa;
        return TRUE;
      }
    }
    /* Minimizer of the quadratic through f, dg and fa, kept in [0.1, 0.5] alpha. */
    double q = -dg * alpha * alpha / (2.0 * (fa - f - dg * alpha));
    alpha = CLAMP(q, 0.1 * alpha, 0.5 * alpha);
  }
  return FALSE;
}

static PrivMfResult *make_result(const Problem *P, const double *x, double f, double gnorm,
                                 guint iterations, gboolean converged, GError **error) {
  guint T = P->T;
  PrivMfResult *r = g_new0(PrivMfResult, 1);
  r->T = T;
  r->k = P->k;
  r->b = P->b;
  r->objective = f;
  r->gradient = gnorm;
  r->iterations = iterations;
  r->evaluations = P->evaluations;
  r->converged = converged;
  r->X = priv_matrix_new(T, T, error);
  if (!r->X) {
    priv_mf_result_free(r);
    return NULL;
  }
  for (guint s = 0; s < T; s++) r->X[(gsize)s * T + s] = x[s];
  for (gsize j = T; j < P->p; j++) {
    gsize a = P->row[j - T], c = P->col[j - T];
    r->X[a * T + c] = r->X[c * T + a] = x[j];
  }
  r->C = priv_mf_factor_from_gram(r->X, T, error);
  if (!r->C) {
    priv_mf_result_free(r);
    return NULL;
  }
  return r;
}

gboolean priv_mf_optimize(const double *H, guint T, guint k, guint b,
                          const PrivMfOptions *opt, PrivMfResult **result, GError **error) {
  g_return_val_if_fail(H != NULL, FALSE);
  g_return_val_if_fail(result != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  PrivMfOptions defaults;
  priv_mf_options_init(&defaults);
  const PrivMfOptions *o = opt ? opt : &defaults;
  *result = NULL;
  if (!check_args(H, T, k, b, o, error)) return FALSE;
  if (!priv_mf_check_memory(T, o->memory, o->max_bytes, error)) return FALSE;

  Problem P;
  History h = {0};
  double *x = NULL, *g = NULL, *d = NULL, *x_new = NULL, *g_new = NULL;
  gboolean ok = FALSE;
  if (!problem_init(&P, H, T, k, b, o->band, error)) goto out;
  gsize p = P.p;
  h.m = o->memory;
  x = priv_matrix_new(p, 1, error);
  g = x ? priv_matrix_new(p, 1, error) : NULL;
  d = g ? priv_matrix_new(p, 1, error) : NULL;
  x_new = d ? priv_matrix_new(p, 1, error) : NULL;
  g_new = x_new ? priv_matrix_new(p, 1, error) : NULL;
  h.S = g_new ? priv_matrix_new(h.m, p, error) : NULL;
  h.Y = h.S ? priv_matrix_new(h.m, p, error) : NULL;
  h.rho = h.Y ? priv_matrix_new(h.m, 1, error) : NULL;
  h.alpha = h.rho ? priv_matrix_new(h.m, 1, error) : NULL;
  if (!h.alpha) goto out;

  /* X = I / k: feasible, and the identity strategy scaled to sens = 1. */
  for (guint s = 0; s < T; s++) x[s] = 1.0 / k;
  double f = objective(&P, x);
  if (!isfinite(f)) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the objective is not finite at the starting point");
    goto out;
  }
  gradient(&P, g);
  double gnorm = max_abs(g, p);
  guint it = 0, failures = 0;
  gboolean converged = FALSE;
  for (; it < o->max_iterations; it++) {
    if (gnorm <= o->gtol * f / T) {
      converged = TRUE;
      break;
    }
    two_loop(&h, g, d, p);
    double dg = dot(g, d, p);
    if (!(dg < 0.0)) {
      h.used = 0;
      two_loop(&h, g, d, p);
      dg = dot(g, d, p);
    }
    /* Without curvature information, move the entries by at most 10% of 1/k. */
    double alpha = h.used ? 1.0 : MIN(1.0, 0.1 / (k * max_abs(d, p)));
    double f_new;
    if (!line_search(&P, x, f, dg, d, alpha, x_new, &f_new, g_new)) {
      /* A stale history can point badly: retry once along the gradient. */
      if (h.used > 0 && failures++ < 2) {
        h.used = 0;
        continue;
      }
      break;
    }
    failures = 0;
    /* s = x_new - x, y = g_new - g, into the oldest slot. */
    guint slot = h.used ? (h.newest + 1) % h.m : 0;
    double *s = h.S + (gsize)slot * p, *y = h.Y + (gsize)slot * p;
    for (gsize i = 0; i < p; i++) {
      s[i] = x_new[i] - x[i];
      y[i] = g_new[i] - g[i];
    }
    double sy = dot(s, y, p);
    if (sy > 1e-300) {
      h.rho[slot] = 1.0 / sy;
      h.newest = slot;
      h.used = MIN(h.used + 1, h.m);
    }
    double *swap = x;
    x = x_new;
    x_new = swap;
    swap = g;
    g = g_new;
    g_new = swap;
    f = f_new;
    gnorm = max_abs(g, p);
  }
  *result = make_result(&P, x, f, gnorm, it, converged, error);
  if (!*result) goto out;
  if (!converged) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NOT_CONVERGED,
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
  g_free(h.S);
  g_free(h.Y);
  g_free(h.rho);
  g_free(h.alpha);
  return ok;
}
