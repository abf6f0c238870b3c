/*
 * tests/mf/test_mafalda_fast.c: the structured paths of `dpgossip
 * mafalda` against the dense formulas at small T: Toeplitz losses and
 * sensitivities from the spectral form of H (no T x T matrix) against
 * mf_loss on the dense H and C, the BLT strategy's (closed-form
 * sensitivity, exact gradient, fit) likewise; the blocked Gram matrix (F made a block
 * of rows at a time) against the sum of the per-node Gram matrices.
 */
#include <math.h>

#include "mf/mf.h"
#include "tests/common/graphs.h"
#include "topologies/topologies.h"
#include "tests/common/checks.h"

/* Every baseline's fast loss equals the dense one (H by the powers method,
 * independent of the eigensolver the spectral form uses). */
static void check_graph(const char *spec, guint k, guint b, MfWorkload wl) {
  guint n, T = k * b;
  double *W = test_dense_gossip(spec, &n);
  GError *err = NULL;
  double *H = mf_gram_static(W, n, T, wl, MF_GRAM_POWERS, 0, &err);
  g_assert_no_error(err);
  MfGramSpectral *g = mf_gram_spectral_new(W, n, T, wl, &err);
  g_assert_no_error(err);
  const struct {
    MfBaseline which;
    guint band;
  } cases[] = {{MF_BASELINE_IDENTITY, 0}, {MF_BASELINE_ANTIPGD, 0}, {MF_BASELINE_SR, 0},
               {MF_BASELINE_BSR, b},      {MF_BASELINE_BSR, 3},     {MF_BASELINE_BSR, T + 5}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    double *C = mf_baseline(cases[i].which, T, cases[i].band, &err);
    g_assert_no_error(err);
    guint width = 0;
    double *c = mf_baseline_coefficients(cases[i].which, T, cases[i].band, &width, &err);
    g_assert_no_error(err);
    double dense = mf_loss(H, C, T, k, b, &err);
    g_assert_no_error(err);
    double fast = mf_loss_toeplitz(g, c, width, k, b, &err);
    g_assert_no_error(err);
    g_assert_cmpfloat(test_rel_diff(dense, fast), <, 1e-8);
    g_assert_cmpfloat(
        test_rel_diff(mf_sensitivity2(C, T, k, b), mf_sensitivity2_toeplitz(c, width, T, k, b)), <,
        1e-12);
    g_free(C);
    g_free(c);
  }
  g_free(H);
  g_free(W);
  mf_gram_spectral_free(g);
}

static void test_toeplitz_losses(void) {
  check_graph("florentine", 6, 4, MF_WORKLOAD_POST_AVERAGE);
  check_graph("florentine", 5, 16, MF_WORKLOAD_POST_AVERAGE);
  check_graph("florentine", 3, 7, MF_WORKLOAD_MESSAGES);
  check_graph("erdos:n=40,p=0.1,seed=3,connected=true", 4, 9, MF_WORKLOAD_POST_AVERAGE);
  check_graph("ring:n=12", 1, 30, MF_WORKLOAD_POST_AVERAGE);
}

/* DP-D-SGD's loss is k tr(H) in closed form; a singular Toeplitz C is refused. */
static void test_toeplitz_closed_form_and_errors(void) {
  guint n, k = 4, b = 5, T = k * b;
  double *W = test_dense_gossip("florentine", &n);
  GError *err = NULL;
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, &err);
  g_assert_no_error(err);
  MfGramSpectral *g = mf_gram_spectral_new(W, n, T, MF_WORKLOAD_POST_AVERAGE, &err);
  g_assert_no_error(err);
  double trace = 0.0;
  for (guint s = 0; s < T; s++)
    trace += H[(gsize)s * T + s];
  double one = 1.0;
  g_assert_cmpfloat(test_rel_diff(mf_loss_toeplitz(g, &one, 1, k, b, &err), k * trace), <, 1e-12);
  double zero[2] = {0.0, 1.0};
  g_assert_true(isnan(mf_loss_toeplitz(g, zero, 2, k, b, &err)));
  g_assert_error(err, MF_ERROR, MF_ERROR_NUMERICAL);
  g_clear_error(&err);
  g_assert_true(isnan(mf_loss_toeplitz(g, &one, 1, 3, b, &err)));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  /* A non-reversible W has no spectral form. */
  double nr[9] = {0.5, 0.5, 0, 0, 0.5, 0.5, 0.5, 0, 0.5};
  g_assert_null(mf_gram_spectral_new(nr, 3, 4, MF_WORKLOAD_POST_AVERAGE, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_free(H);
  g_free(W);
  mf_gram_spectral_free(g);
}

/* Past 64 rounds F comes in several blocks of rows: H must still be the sum
 * of the per-node Gram matrices (a separate recursion on the whole F_i). */
static void test_blocked_gram(void) {
  guint n, T = 150;
  double *W = test_dense_gossip("erdos:n=30,p=0.15,seed=7,connected=true", &n);
  GError *err = NULL;
  for (int method = MF_GRAM_EIGEN; method <= MF_GRAM_POWERS; method++) {
    double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, method, 0, &err);
    g_assert_no_error(err);
    double *sum = g_new0(double, (gsize)T *T);
    for (guint i = 0; i < n; i++) {
      double *Hi = mf_gram_node(W, n, i, T, MF_WORKLOAD_POST_AVERAGE, 0, &err);
      g_assert_no_error(err);
      for (gsize j = 0; j < (gsize)T * T; j++)
        sum[j] += Hi[j];
      g_free(Hi);
    }
    double scale = H[0];
    for (gsize j = 0; j < (gsize)T * T; j++) {
      g_assert_cmpfloat(fabs(H[j] - sum[j]), <, 1e-10 * scale);
      g_assert_cmpfloat(H[j], ==, H[(j % T) * T + j / T]);
    }
    g_free(sum);
    g_free(H);
  }
  g_free(W);
}

/* The banded Toeplitz fit: its gradient against central differences, its
 * loss against mf_loss of the dense C it stands for, never worse than
 * its BSR start, and the warm-started path (k >= 8) as good as a cold fit. */
static void test_toeplitz_fit(void) {
  guint n, k = 8, b = 6, T = k * b, w = 5;
  double *W = test_dense_gossip("florentine", &n);
  GError *err = NULL;
  MfGramSpectral *g = mf_gram_spectral_new(W, n, T, MF_WORKLOAD_POST_AVERAGE, &err);
  g_assert_no_error(err);
  double c[5] = {1.0, 0.4, -0.2, 0.1, 0.05}, grad[5];
  double L = mf_toeplitz_banded_loss(g, c, w, k, b, grad);
  for (guint l = 0; l < w; l++) {
    double h = 1e-5, keep = c[l];
    c[l] = keep + h;
    double Lp = mf_toeplitz_banded_loss(g, c, w, k, b, NULL);
    c[l] = keep - h;
    double Lm = mf_toeplitz_banded_loss(g, c, w, k, b, NULL);
    c[l] = keep;
    g_assert_cmpfloat(fabs(grad[l] - (Lp - Lm) / (2 * h)), <, 1e-6 * L);
  }
  /* Same loss as the general Toeplitz path (sensitivity by autocorrelations). */
  g_assert_cmpfloat(test_rel_diff(L, mf_loss_toeplitz(g, c, w, k, b, &err)), <, 1e-12);
  guint width;
  double *bsr = mf_baseline_coefficients(MF_BASELINE_BSR, T, w, &width, &err);
  double start = mf_toeplitz_banded_loss(g, bsr, w, k, b, NULL), fit;
  g_assert_true(mf_toeplitz_fit(g, k, b, w, bsr, &fit, &err));
  g_assert_no_error(err);
  g_assert_cmpfloat(fit, <, start);
  g_assert_cmpfloat(bsr[0], ==, 1.0);
  double warm_c[5], warm;
  g_assert_true(mf_mafalda_toeplitz(W, n, k, b, w, warm_c, &warm, &err));
  g_assert_no_error(err);
  g_assert_cmpfloat(test_rel_diff(warm, fit), <, 1e-6);
  double *C = mf_mafalda_toeplitz_c(W, n, T, k, b, w, &err);
  g_assert_no_error(err);
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_POWERS, 0, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(test_rel_diff(mf_loss(H, C, T, k, b, &err), warm), <, 1e-8);
  g_assert_cmpfloat(C[(gsize)(w - 1) * T], ==, warm_c[w - 1]);
  g_assert_cmpfloat(C[(gsize)w * T], ==, 0.0);
  /* Bands past b: the cross terms of the sensitivity in the value (against
   * the dense formula) and the gradient (central differences, away from a
   * kink); the fit from the band-b one padded does not lose. */
  {
    guint w2 = 2 * b + 2;
    double c2[14] = {1.0, 0.4, 0.3, 0.2, 0.1, 0.05, -0.3, 0.1, 0.05, 0.02, 0.01, 0.0, -0.1, 0.03};
    double g2[14], L2 = mf_toeplitz_banded_loss(g, c2, w2, k, b, g2);
    double *C2 = g_new0(double, (gsize)T *T);
    for (guint i = 0; i < T; i++)
      for (guint j = i + 1 > w2 ? i + 1 - w2 : 0; j <= i; j++)
        C2[(gsize)i * T + j] = c2[i - j];
    double *H2 = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_POWERS, 0, &err);
    g_assert_cmpfloat(test_rel_diff(L2, mf_loss(H2, C2, T, k, b, &err)), <, 1e-8);
    for (guint l = 0; l < w2; l++) {
      double h = 1e-6, keep = c2[l];
      c2[l] = keep + h;
      double Lp = mf_toeplitz_banded_loss(g, c2, w2, k, b, NULL);
      c2[l] = keep - h;
      double Lm = mf_toeplitz_banded_loss(g, c2, w2, k, b, NULL);
      c2[l] = keep;
      g_assert_cmpfloat(fabs(g2[l] - (Lp - Lm) / (2 * h)), <, 1e-5 * L2);
    }
    double wide[14], wide_loss, narrow[6], narrow_loss;
    g_assert_true(mf_mafalda_toeplitz(W, n, k, b, w2, wide, &wide_loss, &err));
    g_assert_true(mf_mafalda_toeplitz(W, n, k, b, b, narrow, &narrow_loss, &err));
    g_assert_no_error(err);
    g_assert_cmpfloat(wide_loss, <=, narrow_loss);
    g_free(C2);
    g_free(H2);
  }
  /* Bands past T are refused. */
  g_assert_false(mf_toeplitz_fit(g, k, b, T + 1, bsr, &fit, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_free(C);
  g_free(H);
  g_free(bsr);
  g_free(W);
  mf_gram_spectral_free(g);
}

/* The dense lower-triangular Toeplitz C of the BLT (theta, w). */
static double *blt_dense(const double *theta, const double *w, guint d, guint T) {
  double *c = g_new(double, T), *C = g_new0(double, (gsize)T *T);
  mf_blt_coefficients(theta, w, d, T, c);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j <= i; j++)
      C[(gsize)i * T + j] = c[i - j];
  g_free(c);
  return C;
}

/* BLT: the closed-form sensitivity and the structured loss equal the dense
 * formulas on the dense C, for weights of both signs, single and multiple
 * participations; c_j is the geometric mixture. */
static void test_blt_losses(void) {
  const double theta[] = {0.3, 0.8, 0.95}, w[] = {0.9, -0.4, 0.05};
  const guint kb[][2] = {{4, 3}, {1, 12}, {12, 1}, {5, 4}};
  guint n;
  double *W = test_dense_gossip("florentine", &n);
  GError *err = NULL;
  for (guint d = 1; d <= 3; d++)
    for (guint i = 0; i < G_N_ELEMENTS(kb); i++) {
      guint k = kb[i][0], b = kb[i][1], T = k * b;
      double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_POWERS, 0, &err);
      g_assert_no_error(err);
      MfGramSpectral *g = mf_gram_spectral_new(W, n, T, MF_WORKLOAD_POST_AVERAGE, &err);
      g_assert_no_error(err);
      double *C = blt_dense(theta, w, d, T);
      double c3 = 0.0;
      for (guint l = 0; l < d; l++)
        c3 += w[l] * theta[l] * theta[l];
      g_assert_cmpfloat(test_rel_diff(C[3 * T], c3), <, 1e-15);
      double dense = mf_loss(H, C, T, k, b, &err);
      g_assert_no_error(err);
      g_assert_cmpfloat(test_rel_diff(mf_blt_loss(g, theta, w, d, k, b, NULL), dense), <, 1e-8);
      g_assert_cmpfloat(test_rel_diff(mf_sensitivity2_blt(theta, w, d, T, k, b, NULL),
                                      mf_sensitivity2(C, T, k, b)),
                        <, 1e-12);
      g_free(C);
      g_free(H);
      mf_gram_spectral_free(g);
    }
  g_free(W);
  /* Many participations: the entries whose q^N vanished are counted at
   * once; the full-width Toeplitz sensitivity (every entry) agrees. */
  guint k = 125, b = 16, T = k * b;
  double *c = g_new(double, T);
  mf_blt_coefficients(theta, w, 3, T, c);
  g_assert_cmpfloat(test_rel_diff(mf_sensitivity2_blt(theta, w, 3, T, k, b, NULL),
                                  mf_sensitivity2_toeplitz(c, T, T, k, b)),
                    <, 1e-12);
  g_free(c);
}

/* The exact gradient in (theta, w) against central differences. */
static void test_blt_gradient(void) {
  guint n, k = 6, b = 4, T = k * b, d = 3;
  double *W = test_dense_gossip("florentine", &n);
  GError *err = NULL;
  MfGramSpectral *g = mf_gram_spectral_new(W, n, T, MF_WORKLOAD_POST_AVERAGE, &err);
  g_assert_no_error(err);
  double theta[] = {0.4, 0.7, 0.9}, w[] = {0.6, -0.2, 0.08}, grad[6];
  double L = mf_blt_loss(g, theta, w, d, k, b, grad);
  g_assert_cmpfloat(test_rel_diff(L, mf_blt_loss(g, theta, w, d, k, b, NULL)), <, 1e-14);
  for (guint p = 0; p < 2 * d; p++) {
    double *x = p < d ? &theta[p] : &w[p - d], x0 = *x, h = 1e-6;
    *x = x0 + h;
    double Lp = mf_blt_loss(g, theta, w, d, k, b, NULL);
    *x = x0 - h;
    double Lm = mf_blt_loss(g, theta, w, d, k, b, NULL);
    *x = x0;
    g_assert_cmpfloat(fabs(grad[p] - (Lp - Lm) / (2 * h)), <, 1e-6 * MAX(1.0, fabs(grad[p])) * L);
  }
  mf_gram_spectral_free(g);
  g_free(W);
}

/* The fit never does worse than its start, reports its exact loss, and the
 * recipe's dense C is the fitted one; bad input is refused. */
static void test_blt_fit(void) {
  guint n, k = 8, b = 3, T = k * b;
  double *W = test_dense_gossip("florentine", &n);
  GError *err = NULL;
  MfGramSpectral *g = mf_gram_spectral_new(W, n, T, MF_WORKLOAD_POST_AVERAGE, &err);
  g_assert_no_error(err);
  double theta[2] = {0.5, 0.9}, w[2] = {0.3, 0.0}, fit;
  double start = mf_blt_loss(g, theta, w, 2, k, b, NULL);
  g_assert_true(mf_blt_fit(g, k, b, 2, theta, w, &fit, &err));
  g_assert_no_error(err);
  g_assert_cmpfloat(fit, <, start);
  g_assert_cmpfloat(fit, ==, mf_blt_loss(g, theta, w, 2, k, b, NULL));
  double rt[4], rw[4], rl, ct[4], cw[4];
  g_assert_true(mf_mafalda_blt(W, n, k, b, 4, rt, rw, &rl, &err));
  g_assert_no_error(err);
  g_assert_cmpfloat(rl, <=, fit * (1 + 1e-12)); /* more buffers, more starts */
  double *C = mf_mafalda_blt_c(W, n, T, k, b, 4, ct, cw, &err);
  g_assert_no_error(err);
  g_assert_cmpmem(rt, sizeof rt, ct, sizeof ct); /* deterministic */
  g_assert_cmpmem(rw, sizeof rw, cw, sizeof cw);
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_POWERS, 0, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(test_rel_diff(mf_loss(H, C, T, k, b, &err), rl), <, 1e-8);
  g_assert_no_error(err);
  /* Bad buffers, theta out of (0, 1), a non-reversible W. */
  g_assert_false(mf_mafalda_blt(W, n, k, b, 0, rt, rw, NULL, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(mf_mafalda_blt(W, n, k, b, MF_BLT_MAX_BUFFERS + 1, rt, rw, NULL, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  double one[1] = {1.0}, half[1] = {0.5};
  g_assert_false(mf_blt_fit(g, k, b, 1, one, half, NULL, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  double nr[9] = {0.5, 0.5, 0, 0, 0.5, 0.5, 0.5, 0, 0.5}; /* a directed cycle */
  g_assert_false(mf_mafalda_blt(nr, 3, k, b, 2, rt, rw, NULL, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_free(C);
  g_free(H);
  mf_gram_spectral_free(g);
  g_free(W);
}

/* The fits from a spectral form are the fits from W, to the bit; a spectral
 * form of the messages workload or of another horizon is refused. */
static void test_fits_from_spectral(void) {
  guint n, k = 8, b = 3, T = k * b;
  double *W = test_dense_gossip("erdos:n=30,p=0.2,seed=2,connected=true", &n);
  GError *err = NULL;
  MfGramSpectral *g = mf_gram_spectral_new(W, n, T, MF_WORKLOAD_POST_AVERAGE, &err);
  g_assert_no_error(err);
  double c1[5], c2[5], l1, l2, t1[3], t2[3], w1[3], w2[3];
  g_assert_true(mf_mafalda_toeplitz(W, n, k, b, 5, c1, &l1, &err));
  g_assert_true(mf_mafalda_toeplitz_spectral(g, k, b, 5, c2, &l2, &err));
  g_assert_no_error(err);
  g_assert_cmpmem(c1, sizeof c1, c2, sizeof c2);
  g_assert_true(l1 == l2);
  g_assert_true(mf_mafalda_blt(W, n, k, b, 3, t1, w1, &l1, &err));
  g_assert_true(mf_mafalda_blt_spectral(g, k, b, 3, t2, w2, &l2, &err));
  g_assert_no_error(err);
  g_assert_cmpmem(t1, sizeof t1, t2, sizeof t2);
  g_assert_cmpmem(w1, sizeof w1, w2, sizeof w2);
  g_assert_true(l1 == l2);
  g_assert_false(mf_mafalda_toeplitz_spectral(g, k, b + 1, 5, c2, NULL, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  MfGramSpectral *m = mf_gram_spectral_new(W, n, T, MF_WORKLOAD_MESSAGES, &err);
  g_assert_no_error(err);
  g_assert_false(mf_mafalda_blt_spectral(m, k, b, 3, t2, w2, NULL, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "messages"));
  g_clear_error(&err);
  mf_gram_spectral_free(m);
  mf_gram_spectral_free(g);
  g_free(W);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mf/mf-fast/toeplitz-losses", test_toeplitz_losses);
  g_test_add_func("/mf/mf-fast/toeplitz-closed-form-errors", test_toeplitz_closed_form_and_errors);
  g_test_add_func("/mf/mf-fast/blocked-gram", test_blocked_gram);
  g_test_add_func("/mf/mf-fast/toeplitz-fit", test_toeplitz_fit);
  g_test_add_func("/mf/mf-fast/blt-losses", test_blt_losses);
  g_test_add_func("/mf/mf-fast/blt-gradient", test_blt_gradient);
  g_test_add_func("/mf/mf-fast/blt-fit", test_blt_fit);
  g_test_add_func("/mf/mf-fast/fits-from-spectral", test_fits_from_spectral);
  return g_test_run();
}
