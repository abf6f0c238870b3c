/*
 * tests/audit/test_stats.c: the audit's estimates against closed forms:
 *   - the Clopper-Pearson bound at 31 false positives in 1000 (where
 *     gsl_cdf_beta_Pinv fails to converge) is the p at which the binomial
 *     CDF of 31 in 1000 is 2.5%, and at 0 false negatives 1 - 0.025^(1/n);
 *   - the standardised shift of two fixed score samples is sqrt(3), with
 *     the two-sample effect size's standard error;
 *   - scores without spread give mu 0 (worlds alike) or +inf;
 *   - the canary does not depend on the rounding of X's zero entries (the
 *     sign an exact zero computes to moved with the BLAS kernel, and with
 *     it the canary's orientation and every empirical column), and under
 *     LDP (X diagonal) its gradients sum to zero, so that noise reused
 *     across steps cannot cancel with the signal.
 */
#include <math.h>
#include <string.h>

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

/* The guide's Florentine audit (T = 4, PNDP, attacker 0, victim 1): step
 * 0 does not interact with the others (its entries are exact zeros that
 * computed to +-1e-17 depending on the kernel). Both roundings give one
 * canary, to the mixing method's accuracy: its sweeps stop at a change of
 * 1e-12 per entry, and the LQ orientation is Lipschitz in the rows where
 * L's diagonal is bounded away from 0 (here >= 0.8), so 1e-9 is a wide
 * margin. Each row keeps norm 1 (the canary's sensitivity). */
static void test_canary_orientation(void) {
  enum { T = 4, P = 6 };
  double X[T * T] = {1.0,     0.0,     0.0,     0.0,     0.0,     0.909039301865, -0.0303473550957,
                     -0.0212499571227, 0.0, -0.0303473550957, 0.888177084461, -0.0451026703792,
                     0.0,     -0.0212499571227, -0.0451026703792, 0.875310362615};
  double Xa[T * T], Xb[T * T];
  memcpy(Xa, X, sizeof X);
  memcpy(Xb, X, sizeof X);
  const double a[3] = {3.04331679084e-17, -7.99151336165e-18, -4.24682262997e-17};
  const double b[3] = {3.85200661161e-18, 1.85896479351e-17, -4.24682262997e-17};
  for (guint t = 1; t < T; t++) {
    Xa[t] = Xa[t * T] = a[t - 1];
    Xb[t] = Xb[t * T] = b[t - 1];
  }
  guint q = audit_canary_width(T);
  double *Da = audit_canary(Xa, T, q, P), *Db = audit_canary(Xb, T, q, P);
  for (guint t = 0; t < T; t++) {
    double norm = 0.0;
    for (guint j = 0; j < P; j++) {
      dpg_test_assert_le(fabs(Da[t * P + j] - Db[t * P + j]), 1e-9,
                         "the mixing method's 1e-12 stop, through an LQ with diagonal >= 0.8");
      norm += Da[t * P + j] * Da[t * P + j];
    }
    dpg_test_assert_close(norm, 1.0, 1e-12, "canary row norm");
  }
  g_free(Da);
  g_free(Db);
}

/* LDP, T = 4: X = I, every step alone. The four unit gradients, turned
 * against their running sum, sum to zero (up to the reflections' rounding,
 * a few ulps per entry over 4 steps), whatever sign the zeros rounded to. */
static void test_canary_zero_sum(void) {
  enum { T = 4, P = 6 };
  double Xa[T * T] = {0}, Xb[T * T] = {0};
  for (guint t = 0; t < T; t++)
    Xa[t * T + t] = Xb[t * T + t] = 1.0;
  for (guint s = 0; s < T; s++)
    for (guint t = s + 1; t < T; t++) {
      Xa[s * T + t] = Xa[t * T + s] = 1e-17 * (double)(s + t);
      Xb[s * T + t] = Xb[t * T + s] = -1e-17 * (double)(s * t + 1);
    }
  guint q = audit_canary_width(T);
  double *Da = audit_canary(Xa, T, q, P), *Db = audit_canary(Xb, T, q, P);
  for (guint j = 0; j < P; j++) {
    double sum = 0.0;
    for (guint t = 0; t < T; t++) {
      sum += Da[t * P + j];
      dpg_test_assert_le(fabs(Da[t * P + j] - Db[t * P + j]), dpg_tol(1.0, 16.0 * T),
                         "the same steps, rotations and reflections, rounded differently");
    }
    dpg_test_assert_le(fabs(sum), dpg_tol(1.0, 16.0 * T), "four reflections of unit rows");
  }
  g_free(Da);
  g_free(Db);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/audit/stats/clopper_pearson", test_clopper_pearson);
  g_test_add_func("/audit/stats/estimate", test_estimate);
  g_test_add_func("/audit/stats/canary-orientation", test_canary_orientation);
  g_test_add_func("/audit/stats/canary-zero-sum", test_canary_zero_sum);
  return g_test_run();
}
