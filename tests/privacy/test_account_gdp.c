/*
 * tests/privacy/test_account_gdp.c: mu-GDP to RDP and (eps, delta): the
 * values of docs/design.md, reference values computed independently with 60-digit
 * arithmetic (mpmath: Phi and e^eps evaluated exactly, root by the Illinois
 * method), round trips and monotonicity over mu in [1e-3, 1e3], and the
 * parsers.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_sf_erf.h>

#include "privacy/privacy.h"
#include "tests/common/tolerance.h"

/* priv_gdp_epsilon's documented accuracy (privacy/gdp.c): Brent on log eps
 * stops at an interval of 1e-13 (relative on eps) and the root is raised by
 * 1 + 1e-12 + 1e-13 / mu to cover log_delta's cancellation (5e-15 / mu seen
 * against 60-digit references): at most this far above the truth. */
static double eps_rtol(double mu) {
  return 1e-13 + 1e-12 + 2e-13 / mu + 4.0 * DBL_EPSILON;
}

static double log_Phi(double x) {
  return gsl_sf_log_erfc(-x / M_SQRT2) - M_LN2;
}

/* The tolerance of delta(eps) against @delta when eps carries eps_rtol:
 * delta = t1 - t2, t1 = Phi(a), t2 = e^eps Phi(a - mu), a = -eps/mu + mu/2;
 * d delta / d eps = -t2 (phi(a) = e^eps phi(a - mu)), so eps's relative
 * error is amplified by kappa = eps t2 / delta; evaluating delta from the
 * logs of t1 and t2 (absolute error eps_mach (4 + eps + |log t1| + |log t2|))
 * costs that times (t1 + t2) / delta, and exp adds 4 eps_mach (1 - log
 * delta) (gdp.c's own raise). */
static double delta_rtol(double mu, double eps, double delta) {
  double a = -eps / mu + mu / 2.0, lt1 = log_Phi(a), lt2 = eps + log_Phi(a - mu);
  double ld = log(delta);
  double kappa = eps * exp(lt2 - ld);
  double eval = DBL_EPSILON * (exp(lt1 - ld) + exp(lt2 - ld)) * (4.0 + eps + fabs(lt1) + fabs(lt2));
  return kappa * eps_rtol(mu) + eval + 4.0 * DBL_EPSILON * (1.0 - ld);
}

static void test_design_values(void) {
  /* docs/design.md: mu = 1 gives eps(1e-6) = 4.88655 and eps(1e-5) = 4.37718. */
  /* The docs print 5 decimals: half a unit in the last place, plus eps_rtol. */
  const char *why = "docs print 5 decimals: 5e-6, plus eps_rtol";
  dpg_test_assert_le(fabs(priv_gdp_epsilon(1.0, 1e-6) - 4.88655), 5e-6 + 5 * eps_rtol(1.0), why);
  dpg_test_assert_le(fabs(priv_gdp_epsilon(1.0, 1e-5) - 4.37718), 5e-6 + 5 * eps_rtol(1.0), why);
}

static void test_reference_values(void) {
  static const struct {
    double mu, delta, eps;
  } ref[] = {
      {1, 1e-6, 4.886554117462212},        {1, 1e-5, 4.3771780956812246},
      {1e-3, 1e-6, 0.0027182190888139952}, {1e-2, 1e-5, 0.027219419814577136},
      {0.5, 1e-10, 3.099430330243196},     {3, 1e-6, 18.163445759078475},
      {10, 1e-6, 96.717271963867699},      {100, 1e-6, 5474.3655001946368},
      {1000, 1e-6, 504752.42667835933},    {1000, 1e-12, 507033.48732646218},
      {30, 0.5, 449.00036922447106},
  };
  for (guint i = 0; i < G_N_ELEMENTS(ref); i++) {
    double e = priv_gdp_epsilon(ref[i].mu, ref[i].delta);
    /* The references are the 60-digit values rounded to double (eps/2). */
    dpg_test_assert_close(e, ref[i].eps, eps_rtol(ref[i].mu) + DBL_EPSILON,
                          "Brent's 1e-13 interval and gdp.c's raise (eps_rtol)");
    /* Never below the truth: the raise covers the root's error. */
    dpg_test_assert_le(ref[i].eps - e, DBL_EPSILON * ref[i].eps,
                       "eps is an upper bound, up to the reference's rounding");
    dpg_test_assert_close(priv_gdp_delta(ref[i].mu, ref[i].eps), ref[i].delta,
                          delta_rtol(ref[i].mu, ref[i].eps, ref[i].delta),
                          "eps's rounding through kappa = eps t2 / delta, and evaluation");
  }
}

/* delta(eps(mu, delta)) = delta, eps grows with mu and shrinks with delta. */
static void test_round_trip_and_monotone(void) {
  const double deltas[] = {1e-12, 1e-9, 1e-6, 1e-3, 0.1};
  for (guint d = 0; d < G_N_ELEMENTS(deltas); d++) {
    double prev = 0.0;
    for (double lmu = -3.0; lmu <= 3.0 + 1e-9; lmu += 0.125) { /* 0.125 steps: exact */
      double mu = pow(10.0, lmu), e = priv_gdp_epsilon(mu, deltas[d]);
      g_assert_true(isfinite(e));
      g_assert_cmpfloat(e, >=, prev);
      prev = e;
      if (e > 0) {
        dpg_test_assert_close(priv_gdp_delta(mu, e), deltas[d], delta_rtol(mu, e, deltas[d]),
                              "eps's error (eps_rtol) through kappa = eps t2 / delta, and "
                              "evaluation");
      } else {
        /* eps = 0 exactly when delta(0) = 2 Phi(mu/2) - 1 is already below. */
        g_assert_cmpfloat(priv_gdp_delta(mu, 0.0), <=, deltas[d]);
      }
      if (d > 0)
        g_assert_cmpfloat(e, <=, priv_gdp_epsilon(mu, deltas[d - 1]));
    }
  }
  /* delta(0) = 2 Phi(1/2) - 1 for mu = 1; above it no epsilon is needed. */
  /* GSL's erf reports its own error estimate; the reference is rounded
   * (eps/2) and priv_no_zero may raise by an ulp. */
  gsl_sf_result er;
  gsl_sf_erf_e(1.0 / (2.0 * M_SQRT2), &er);
  dpg_test_assert_close(priv_gdp_delta(1.0, 0.0), 0.38292492254802621,
                        er.err / er.val + 2.0 * DBL_EPSILON, "gsl_sf_erf_e's error estimate");
  g_assert_cmpfloat(priv_gdp_epsilon(1.0, 0.4), ==, 0.0);
  g_assert_cmpfloat(priv_gdp_epsilon(1.0, 0.38), >, 0.0);
}

static void test_special_values(void) {
  g_assert_cmpfloat(priv_gdp_epsilon(0.0, 1e-6), ==, 0.0);
  g_assert_true(isinf(priv_gdp_epsilon(INFINITY, 1e-6)));
  g_assert_true(isnan(priv_gdp_epsilon(-1.0, 1e-6)));
  g_assert_true(isnan(priv_gdp_epsilon(1.0, 0.0)));
  g_assert_true(isnan(priv_gdp_epsilon(1.0, 1.0)));
  g_assert_cmpfloat(priv_gdp_delta(0.0, 1.0), ==, 0.0);
  g_assert_cmpfloat(priv_gdp_delta(INFINITY, 1.0), ==, 1.0);
  g_assert_true(isnan(priv_gdp_delta(1.0, -1.0)));
  g_assert_cmpfloat(priv_gdp_rdp(3.0, 2.0), ==, 9.0);
  g_assert_cmpfloat(priv_gdp_rdp(0.5, 10.0), ==, 1.25);
  g_assert_true(isinf(priv_gdp_rdp(INFINITY, 2.0)));
  g_assert_true(isnan(priv_gdp_rdp(1.0, 1.0)));
  g_assert_true(isnan(priv_gdp_rdp(-1.0, 2.0)));
}

static void test_parsers(void) {
  PrivTrust t;
  MfSensitivity s;
  GError *err = NULL;
  const char *names[] = {"ldp", "pndp", "secldp"};
  for (guint i = 0; i < 3; i++) {
    g_assert_true(priv_trust_parse(names[i], &t, &err));
    g_assert_cmpstr(priv_trust_name(t), ==, names[i]);
  }
  g_assert_false(priv_trust_parse("PNDP", &t, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "'PNDP'"));
  g_clear_error(&err);
  g_assert_true(mf_sensitivity_parse("exact", &s, &err));
  g_assert_cmpint(s, ==, MF_SENSITIVITY_EXACT);
  g_assert_cmpstr(mf_sensitivity_name(s), ==, "exact");
  g_assert_true(mf_sensitivity_parse("bound", &s, &err));
  g_assert_cmpstr(mf_sensitivity_name(s), ==, "bound");
  g_assert_false(mf_sensitivity_parse("tight", &s, &err));
  g_clear_error(&err);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/gdp/design-values", test_design_values);
  g_test_add_func("/privacy/account/gdp/reference-values", test_reference_values);
  g_test_add_func("/privacy/account/gdp/round-trip", test_round_trip_and_monotone);
  g_test_add_func("/privacy/account/gdp/special-values", test_special_values);
  g_test_add_func("/privacy/account/gdp/parsers", test_parsers);
  return g_test_run();
}
