/*
 * tests/audit/test_stats.c: the audit's estimates against closed forms:
 *   - the Clopper-Pearson bound at 31 false positives in 1000 (where
 *     gsl_cdf_beta_Pinv fails to converge) is the p at which the binomial
 *     CDF of 31 in 1000 is 2.5%, and at 0 false negatives 1 - 0.025^(1/n);
 *   - the standardised shift of two fixed score samples is sqrt(3), with
 *     the two-sample effect size's standard error;
 *   - scores without spread give mu 0 (worlds alike) or +inf.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "audit/internal.h"
#include "tests/common/tolerance.h"

static void test_clopper_pearson(void) {
  enum { N = 2000, H = N / 2 };
  static double s0[N], s1[N];
  /* First halves separated: the threshold is max s0 = -1. */
  for (guint i = 0; i < H; i++) {
    s0[i] = -1.0 - i * 1e-3;
    s1[i] = 1.0 + i * 1e-3;
  }
  /* Second halves: 31 false positives, no false negative. */
  for (guint i = H; i < N; i++) {
    s0[i] = i - H < 31 ? 0.0 : -2.0;
    s1[i] = 2.0;
  }
  double mu = audit_cp_mu_low(s0, s1, N);
  double fnr = -expm1(log(0.025) / H); /* x = 0: (1 - p)^n = 0.025 */
  double fpr = 1.0 - gsl_cdf_ugaussian_P(mu + gsl_cdf_ugaussian_Pinv(fnr));
  /* The upper bound u on FPR solves P(Bin(n, u) <= 31) = 0.025. */
  /* Not statistical either: the bisection stops at a 1e-15 interval on u
   * (audit/stats.c) and the round trip through mu = Pinv(1 - u) -
   * Pinv(fnr) and back costs P and Pinv's few ulps each (4 eps, relative
   * to 1 on 1 - u); the CDF moves by its slope in p, n x P[Bin(n - 1, p) =
   * 31], times that, and is itself evaluated to a few ulps. */
  double slope = H * gsl_ran_binomial_pdf(31, fpr, H - 1);
  dpg_test_assert_le(fabs(gsl_cdf_binomial_P(31, fpr, H) - 0.025),
                     slope * (1e-15 + 4 * 4 * DBL_EPSILON) + 4 * DBL_EPSILON * 0.025,
                     "the bisection's 1e-15 and a few ulps of P and Pinv, times the CDF's slope");
  g_assert_cmpfloat(fpr, >, 31.0 / H);
}

static void test_estimate(void) {
  const double s0[] = {-1, 1, -1, 1}, s1[] = {1, 3, 1, 3};
  AuditResult r;
  audit_estimate(s0, s1, 4, &r);
  /* Means 0 and 2, sample variances 4/3: mu = 2 / sqrt(4/3). */
  /* Not statistical: closed forms of 4 small integers (means and sums of
   * squares exact), then a handful of roundings (division, sqrt, the
   * standard error's sum): eps x 4 relative, each side. */
  const char *why = "a few roundings of exact sums: 2 x eps x 4 relative";
  dpg_test_assert_close(r.mu_emp, sqrt(3.0), 2.0 * dpg_tol(1.0, 4), why);
  dpg_test_assert_close(r.mu_emp_se, sqrt(2.0 / 4 + 3.0 / 16), 2.0 * dpg_tol(1.0, 4), why);
  /* z_0.975 to 16 digits (half an ulp) times se: two more roundings. */
  dpg_test_assert_close(r.mu_emp_high - r.mu_emp, 1.959963984540054 * r.mu_emp_se,
                        2.0 * dpg_tol(1.0, 4) * (1.0 + r.mu_emp / (r.mu_emp_high - r.mu_emp)),
                        "the subtraction of mu_emp's rounding, and a few roundings");
  g_assert_cmpuint(r.trials, ==, 4);
  const double z[] = {0, 0, 0, 0}, one[] = {1, 1, 1, 1};
  audit_estimate(z, z, 4, &r);
  g_assert_cmpfloat(r.mu_emp, ==, 0.0);
  audit_estimate(z, one, 4, &r);
  g_assert_true(isinf(r.mu_emp) && r.mu_emp > 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/audit/stats/clopper_pearson", test_clopper_pearson);
  g_test_add_func("/audit/stats/estimate", test_estimate);
  return g_test_run();
}
