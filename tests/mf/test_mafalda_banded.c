/*
 * tests/mf/test_mafalda_banded.c: the banded evaluation of the MF
 * optimizer (mf/banded.c) against the dense formulas at small T:
 * f = tr(H X^{-1}), the bands of X^{-1} H X^{-1} and X^{-1} computed here by LU, the
 * banded optimizer's optimum against the dense path's on the same problem
 * (MfOptions.evaluation), its warm start from half the horizon against a
 * cold start, and C from the band Cholesky against mf_factor_from_gram.
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "mf/banded_internal.h"
#include "tests/mf/mf_test.h"
#include "topologies/topologies.h"
#include "tests/common/checks.h"

/* Inverse by LU (dgesv on the identity), independent of any Cholesky. */
static double *lu_inverse(const double *X, guint T) {
  double *A = g_memdup2(X, (gsize)T * T * sizeof(double));
  double *Id = g_new0(double, (gsize)T *T);
  lapack_int *piv = g_new(lapack_int, T);
  for (guint i = 0; i < T; i++)
    Id[(gsize)i * T + i] = 1.0;
  g_assert_cmpint(LAPACKE_dgesv(LAPACK_ROW_MAJOR, T, T, A, T, piv, Id, T), ==, 0);
  g_free(A);
  g_free(piv);
  return Id;
}

static double *matmul(const double *A, const double *B, guint T) {
  double *C = g_new0(double, (gsize)T *T);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, T, T, 1.0, A, T, B, T, 0.0, C, T);
  return C;
}

typedef struct {
  const char *graph;
  gboolean is_file;
  guint k, b, W;
} Case;

static const Case cases[] = {
    {"florentine.edges", TRUE, 6, 8, 3},   /* W < b */
    {"florentine.edges", TRUE, 6, 8, 8},   /* W = b */
    {"florentine.edges", TRUE, 4, 16, 40}, /* W > b, > NB_MIN: blocks of W - 1 */
    {"florentine.edges", TRUE, 48, 1, 5},  /* b = 1: every distance free */
    {"erdos:n=20,p=0.3,seed=5", FALSE, 12, 8, 13},
    {"erdos:n=20,p=0.3,seed=5", FALSE, 3, 32, 96}, /* W = T: no zero outside the band */
};

/* A feasible banded X: I/k plus a small symmetric random band on the free
 * entries (diagonally dominant, so positive definite). */
static double *random_band(guint T, guint k, guint b, guint W, GRand *rng) {
  double *X = g_new0(double, (gsize)T *T);
  for (guint s = 0; s < T; s++) {
    X[(gsize)s * T + s] = 1.0 / k;
    for (guint d = 1; d < W && s + d < T; d++)
      if (d % b != 0)
        X[(gsize)s * T + s + d] = X[(gsize)(s + d) * T + s] = g_rand_double_range(rng, -0.4, 0.4) /
                                                              (k * (double)W);
  }
  return X;
}

/* f and the gradient's band from mf_banded.c equal tr(H X^{-1}) and
 * X^{-1} H X^{-1} by LU to 1e-10 relative. */
static void test_evaluation(void) {
  GRand *rng = g_rand_new_with_seed(11);
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    const Case *cs = &cases[c];
    guint T = cs->k * cs->b, W = cs->W;
    double *H = mf_test_gram(cs->graph, cs->is_file, T, MF_WORKLOAD_POST_AVERAGE);
    double *Rt = g_memdup2(H, (gsize)T * T * sizeof(double));
    g_assert_cmpint(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', T, Rt, T), ==, 0);
    for (guint j = 0; j < T; j++)
      for (guint i = 0; i < j; i++)
        Rt[i + (gsize)j * T] = 0.0;
    MfBanded B;
    GError *err = NULL;
    g_assert_true(mf_banded_init(&B, Rt, T, W, &err));
    g_assert_no_error(err);
    for (guint rep = 0; rep < 2; rep++) {
      double *X = random_band(T, cs->k, cs->b, W, rng);
      double *Xb = g_new0(double, (gsize)W *T), *Gb = g_new0(double, (gsize)W *T);
      for (guint s = 0; s < T; s++)
        for (guint d = 0; d < W && s + d < T; d++)
          Xb[d + (gsize)s * W] = X[(gsize)(s + d) * T + s];
      double *Xi = lu_inverse(X, T), *M = matmul(H, Xi, T), *G = matmul(Xi, M, T);
      double f = 0.0, gmax = 0.0;
      for (guint s = 0; s < T; s++)
        f += M[(gsize)s * T + s];
      for (gsize i = 0; i < (gsize)T * T; i++)
        gmax = MAX(gmax, fabs(G[i]));
      double fb = mf_banded_objective(&B, Xb);
      g_assert_cmpfloat(test_rel_diff(fb, f), <, 1e-10);
      mf_banded_gradient(&B, Gb);
      for (guint s = 0; s < T; s++)
        for (guint d = 0; d < W && s + d < T; d++)
          g_assert_cmpfloat(fabs(Gb[d + (gsize)s * W] - G[(gsize)(s + d) * T + s]), <,
                            1e-10 * gmax);
      /* The band of X^{-1} (the diagonal metric's) against LU's. */
      double *Sb = g_new0(double, (gsize)W *T), smax = 0.0;
      g_assert_cmpfloat(test_rel_diff(mf_banded_objective(&B, Xb), f), <, 1e-10);
      mf_banded_inverse_band(&B, Sb);
      for (gsize i = 0; i < (gsize)T * T; i++)
        smax = MAX(smax, fabs(Xi[i]));
      for (guint s = 0; s < T; s++)
        for (guint d = 0; d < W && s + d < T; d++)
          g_assert_cmpfloat(fabs(Sb[d + (gsize)s * W] - Xi[(gsize)(s + d) * T + s]), <,
                            1e-10 * smax);
      g_free(Sb);
      /* Not positive definite: +inf, as the dense path. */
      Xb[0] = -1.0;
      g_assert_true(isinf(mf_banded_objective(&B, Xb)));
      g_free(X);
      g_free(Xb);
      g_free(Gb);
      g_free(Xi);
      g_free(M);
      g_free(G);
    }
    mf_banded_clear(&B);
    g_free(Rt);
    g_free(H);
  }
  g_rand_free(rng);
}

static MfResult *optimize(const double *H, guint T, guint k, guint b, guint W, MfEvaluation ev,
                          gboolean cold) {
  MfOptions o;
  mf_options_init(&o);
  o.band = W;
  o.evaluation = ev;
  o.cold_start = cold;
  MfResult *r = NULL;
  GError *err = NULL;
  g_assert_true(mf_optimize(H, T, k, b, &o, &r, &err));
  g_assert_no_error(err);
  return r;
}

/* The banded optimizer reaches the dense path's optimum (same problem) to
 * 1e-8, with the same X; its C (band Cholesky) is mf_factor_from_gram's
 * to 1e-10 and banded. */
static void test_optimum(void) {
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    const Case *cs = &cases[c];
    guint T = cs->k * cs->b, W = cs->W;
    double *H = mf_test_gram(cs->graph, cs->is_file, T, MF_WORKLOAD_POST_AVERAGE);
    MfResult *d = optimize(H, T, cs->k, cs->b, W, MF_EVAL_DENSE, TRUE);
    MfResult *r = optimize(H, T, cs->k, cs->b, W, MF_EVAL_BANDED, TRUE);
    g_assert_cmpfloat(test_rel_diff(r->objective, d->objective), <, 1e-8);
    /* The band is a constraint: the unbanded optimum is no higher. */
    MfResult *u = optimize(H, T, cs->k, cs->b, 0, MF_EVAL_AUTO, TRUE);
    g_assert_cmpfloat(u->objective, <=, r->objective * (1 + 1e-9));
    GError *err = NULL;
    double *C = mf_factor_from_gram(r->X, T, &err);
    g_assert_no_error(err);
    double cmax = 0.0;
    for (gsize i = 0; i < (gsize)T * T; i++)
      cmax = MAX(cmax, fabs(C[i]));
    for (guint i = 0; i < T; i++)
      for (guint j = 0; j < T; j++) {
        g_assert_cmpfloat(fabs(r->C[(gsize)i * T + j] - C[(gsize)i * T + j]), <, 1e-10 * cmax);
        if (j > i || i - j >= W)
          g_assert_cmpfloat(r->C[(gsize)i * T + j], ==, 0.0);
      }
    /* Scored independently: the loss of C is the objective. */
    g_assert_cmpfloat(test_rel_diff(mf_loss(H, r->C, T, cs->k, cs->b, &err), r->objective), <,
                      1e-9);
    g_assert_no_error(err);
    g_free(C);
    mf_result_free(d);
    mf_result_free(r);
    mf_result_free(u);
    g_free(H);
  }
}

/* Past T = 256 the banded path (AUTO picks it for a narrow band) starts from
 * the optimum at half the horizon: same optimum as the cold start to 1e-8,
 * in fewer iterations. */
static void test_warm_start(void) {
  guint k = 20, b = 16, T = k * b, W = 12;
  double *H = mf_test_gram("florentine.edges", TRUE, T, MF_WORKLOAD_POST_AVERAGE);
  MfResult *warm = optimize(H, T, k, b, W, MF_EVAL_AUTO, FALSE);
  MfResult *cold = optimize(H, T, k, b, W, MF_EVAL_BANDED, TRUE);
  g_assert_cmpfloat(test_rel_diff(warm->objective, cold->objective), <, 1e-8);
  g_assert_cmpuint(warm->iterations, <, cold->iterations);
  g_test_message("warm %u iterations, cold %u", warm->iterations, cold->iterations);
  mf_result_free(warm);
  mf_result_free(cold);
  g_free(H);
}

/* A cancel flag raised before the call stops the banded path (warm start
 * included) with MF_ERROR_NOT_CONVERGED and a feasible result. */
static void test_cancel(void) {
  guint k = 20, b = 16, T = k * b;
  double *H = mf_test_gram("florentine.edges", TRUE, T, MF_WORKLOAD_POST_AVERAGE);
  gint cancel = 1;
  MfOptions o;
  mf_options_init(&o);
  o.band = 12;
  o.cancel = &cancel;
  MfResult *r = NULL;
  GError *err = NULL;
  g_assert_false(mf_optimize(H, T, k, b, &o, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_NOT_CONVERGED);
  g_assert_nonnull(r);
  g_assert_cmpuint(r->iterations, ==, 0);
  g_assert_true(isfinite(r->objective));
  g_clear_error(&err);
  mf_result_free(r);
  g_free(H);
}

/* The memory estimate of the banded path is far below the dense one, and
 * does not refuse T = 4096 within 1 GB. */
static void test_memory(void) {
  GError *err = NULL;
  g_assert_cmpuint(mf_memory_needed_band(4096, 16, 64, 16), <, mf_memory_needed(4096, 16) / 4);
  g_assert_true(mf_check_memory_band(4096, 16, 64, 16, (gsize)1 << 30, &err));
  g_assert_no_error(err);
  g_assert_false(mf_check_memory(4096, 16, (gsize)1 << 30, NULL));
  /* No band (or a wide one): the dense estimate. */
  g_assert_cmpuint(mf_memory_needed_band(4096, 16, 0, 16), ==, mf_memory_needed(4096, 16));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mf/mf-banded/evaluation", test_evaluation);
  g_test_add_func("/mf/mf-banded/optimum", test_optimum);
  g_test_add_func("/mf/mf-banded/warm-start", test_warm_start);
  g_test_add_func("/mf/mf-banded/cancel", test_cancel);
  g_test_add_func("/mf/mf-banded/memory", test_memory);
  return g_test_run();
}
