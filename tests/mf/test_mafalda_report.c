/*
 * tests/mf/test_mafalda_report.c: mf_mafalda_report, the computation
 * behind `dpgossip mafalda` and dpg_mafalda, against closed forms and
 * independent recipes: DP-D-SGD's loss k tr(H) and sensitivity sqrt(k),
 * Mafalda's C bit for bit that of mf_mafalda_c (sensitivity 1, the lowest
 * loss), the structured scores of --skip-dense equal to the dense ones, the
 * dense fallback for a non-reversible W, and the checkpoint hook stopping it.
 */
#include <math.h>
#include <string.h>

#include "mf/mf.h"
#include "tests/common/graphs.h"
#include "topologies/topologies.h"
#include "tests/common/checks.h"

static MfMafaldaReport *report(const double *W, guint n, guint k, guint b, gboolean skip_dense) {
  MfMafaldaReportOptions opt;
  mf_mafalda_report_options_init(&opt);
  opt.k = k;
  opt.b = b;
  opt.skip_dense = skip_dense;
  /* Every baseline (DMF is not computed by default): dense and structured
   * paths compared strategy by strategy. */
  opt.baselines = skip_dense ? MF_MAFALDA_ALL_BASELINES & ~(1u << MF_MAFALDA_DMF)
                             : MF_MAFALDA_ALL_BASELINES;
  MfMafaldaReport *r = NULL;
  GError *err = NULL;
  g_assert_true(mf_mafalda_report(W, n, &opt, &r, &err));
  g_assert_no_error(err);
  return r;
}

static void test_dense(void) {
  guint n, k = 4, b = 3, T = k * b;
  double *W = test_dense_gossip("florentine", &n);
  MfMafaldaReport *r = report(W, n, k, b, FALSE);
  g_assert_cmpuint(r->T, ==, T);
  g_assert_cmpuint(r->toeplitz_band, ==, b); /* 0 -> b */
  /* C = I: sens^2 = k participations, loss k tr(H). */
  g_assert_cmpfloat(test_rel_diff(r->loss[MF_MAFALDA_DPDSGD], k * r->trace_H), <, 1e-12);
  g_assert_cmpfloat(test_rel_diff(r->sensitivity[MF_MAFALDA_DPDSGD], sqrt(k)), <, 1e-15);
  /* Mafalda is the optimum: sensitivity 1 and no strategy does better. */
  g_assert_cmpfloat(fabs(r->sensitivity[MF_MAFALDA_MAFALDA] - 1.0), <, 1e-12);
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++) {
    g_assert_false(isnan(r->loss[i]));
    g_assert_cmpfloat(r->loss[MF_MAFALDA_MAFALDA], <=, r->loss[i] * (1 + 1e-9));
  }
  g_assert_cmpuint(r->iterations, >, 0);
  /* Mafalda's C is mf_mafalda_c's, bit for bit (same H, same options). */
  GError *err = NULL;
  double *C = mf_mafalda_c(n, T, k, b, 0, W, NULL, NULL, &err);
  g_assert_no_error(err);
  g_assert_nonnull(r->C);
  g_assert_cmpmem(C, (gsize)T * T * sizeof(double), r->C, (gsize)T * T * sizeof(double));
  /* The structured path scores the fixed and fitted strategies alike. */
  MfMafaldaReport *s = report(W, n, k, b, TRUE);
  g_assert_cmpfloat(test_rel_diff(s->trace_H, r->trace_H), <, 1e-12);
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++) {
    if (i == MF_MAFALDA_MAFALDA || i == MF_MAFALDA_DMF) {
      g_assert_true(isnan(s->loss[i]));
    } else {
      g_assert_cmpfloat(s->loss[i], ==, r->loss[i]);
      g_assert_cmpfloat(s->sensitivity[i], ==, r->sensitivity[i]);
    }
  }
  g_assert_null(s->C);
  g_assert_cmpstr(mf_mafalda_strategy_name(MF_MAFALDA_DPDSGD), ==, "dp-d-sgd");
  g_assert_cmpstr(mf_mafalda_strategy_name(MF_MAFALDA_TOEPLITZ), ==, "toeplitz");
  g_assert_cmpstr(mf_mafalda_strategy_name(MF_MAFALDA_BLT), ==, "blt");
  g_assert_cmpuint(r->blt_buffers, ==, MF_MAFALDA_BLT_BUFFERS);
  g_free(C);
  mf_mafalda_report_free(s);
  mf_mafalda_report_free(r);
  g_free(W);
}

/* A directed cycle with self-loops: doubly stochastic, not symmetric, so
 * not reversible. No spectral form: the fixed strategies are scored on the
 * dense H, the Toeplitz fit is skipped, --skip-dense is refused. */
static void test_not_reversible(void) {
  const double W[9] = {0.5, 0.5, 0, 0, 0.5, 0.5, 0.5, 0, 0.5};
  guint k = 3, b = 2;
  MfMafaldaReport *r = report(W, 3, k, b, FALSE);
  g_assert_cmpfloat(test_rel_diff(r->loss[MF_MAFALDA_DPDSGD], k * r->trace_H), <, 1e-12);
  g_assert_true(isnan(r->loss[MF_MAFALDA_TOEPLITZ]));
  g_assert_false(isnan(r->loss[MF_MAFALDA_BSR]));
  mf_mafalda_report_free(r);
  MfMafaldaReportOptions opt;
  mf_mafalda_report_options_init(&opt);
  opt.k = k;
  opt.b = b;
  opt.skip_dense = TRUE;
  GError *err = NULL;
  g_assert_false(mf_mafalda_report(W, 3, &opt, &r, &err));
  g_assert_null(r);
  g_assert_nonnull(err);
  g_assert_true(g_str_has_prefix(err->message, "--skip-dense: "));
  g_error_free(err);
}

static gboolean stop_after_gram(MfMafaldaStage stage, gpointer data, GError **error) {
  (*(guint *)data)++;
  g_assert_cmpint(stage, ==, MF_MAFALDA_STAGE_GRAM);
  g_set_error(error, MF_ERROR, MF_ERROR_NOT_CONVERGED, "stopped");
  return FALSE;
}

static void test_checkpoint(void) {
  guint n, calls = 0;
  double *W = test_dense_gossip("florentine", &n);
  MfMafaldaReportOptions opt;
  mf_mafalda_report_options_init(&opt);
  opt.k = 2;
  opt.b = 2;
  opt.checkpoint = stop_after_gram;
  opt.checkpoint_data = &calls;
  MfMafaldaReport *r = NULL;
  GError *err = NULL;
  g_assert_false(mf_mafalda_report(W, n, &opt, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_NOT_CONVERGED);
  g_assert_cmpstr(err->message, ==, "stopped");
  g_assert_cmpuint(calls, ==, 1);
  g_assert_null(r);
  g_clear_error(&err);
  /* Toeplitz band past T: refused before any work. */
  opt.checkpoint = NULL;
  opt.toeplitz_band = 5;
  g_assert_false(mf_mafalda_report(W, n, &opt, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_error_free(err);
  g_free(W);
}

/* The baselines asked for, and only they, are computed, each to the same
 * value as in the full report; DMF only when named. */
static void test_baselines(void) {
  guint n, k = 4, b = 3;
  double *W = test_dense_gossip("florentine", &n);
  MfMafaldaReport *all = report(W, n, k, b, FALSE);
  MfMafaldaReportOptions opt;
  mf_mafalda_report_options_init(&opt);
  g_assert_cmpuint(opt.baselines, ==, MF_MAFALDA_DEFAULT_BASELINES);
  g_assert_false(opt.baselines & (1u << MF_MAFALDA_DMF));
  opt.k = k;
  opt.b = b;
  GError *err = NULL;
  g_assert_true(mf_mafalda_baselines_parse("sr,toeplitz", &opt.baselines, &err));
  g_assert_no_error(err);
  MfMafaldaReport *r = NULL;
  g_assert_true(mf_mafalda_report(W, n, &opt, &r, &err));
  g_assert_no_error(err);
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++) {
    gboolean want = i == MF_MAFALDA_MAFALDA || i == MF_MAFALDA_SR || i == MF_MAFALDA_TOEPLITZ;
    if (want)
      g_assert_cmpfloat(r->loss[i], ==, all->loss[i]);
    else
      g_assert_true(isnan(r->loss[i]));
  }
  guint set = 0;
  g_assert_true(mf_mafalda_baselines_parse("none", &set, &err));
  g_assert_cmpuint(set, ==, 0);
  g_assert_true(mf_mafalda_baselines_parse("default, dmf", &set, &err));
  g_assert_cmpuint(set, ==, MF_MAFALDA_ALL_BASELINES);
  g_assert_false(mf_mafalda_baselines_parse("dfm", &set, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "did you mean 'dmf'?"));
  g_clear_error(&err);
  g_assert_false(mf_mafalda_baselines_parse("mafalda", &set, &err));
  g_clear_error(&err);
  mf_mafalda_report_free(r);
  mf_mafalda_report_free(all);
  g_free(W);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mf/mafalda-report/dense", test_dense);
  g_test_add_func("/mf/mafalda-report/baselines", test_baselines);
  g_test_add_func("/mf/mafalda-report/not-reversible", test_not_reversible);
  g_test_add_func("/mf/mafalda-report/checkpoint", test_checkpoint);
  return g_test_run();
}
