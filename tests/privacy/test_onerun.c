/*
 * tests/privacy/test_onerun.c: the one-run audit's statistic
 * (priv_onerun_p_value, priv_onerun_epsilon_lower) against closed forms:
 *   - without delta and every one of r guesses right the p-value is q^r, so
 *     the bound is logit((1 - c)^(1/r));
 *   - a p-value worked out by hand, delta term included;
 *   - the bound is the root of p(eps) = 1 - c, rounded down;
 *   - a guesser no better than chance gets 0; delta only lowers the bound;
 *   - bad counts and levels are errors.
 */
#include <math.h>
#include <string.h>

#include "privacy/privacy.h"
#include "tests/common/tolerance.h"

/* priv_onerun_epsilon_lower bisects until hi - lo <= 1e-10 and returns lo
 * (privacy/onerun.c): at most this far below the root. */
#define BISECT_GAP 1e-10

static double bound(guint m, guint r, guint v, double delta) {
  double eps = NAN;
  GError *err = NULL;
  g_assert_true(priv_onerun_epsilon_lower(m, r, v, delta, 0.95, &eps, &err));
  g_assert_no_error(err);
  return eps;
}

static void test_all_right(void) {
  guint rs[] = {10, 100, 500};
  for (guint i = 0; i < G_N_ELEMENTS(rs); i++) {
    double q = pow(0.05, 1.0 / rs[i]);
    double closed = log(q / (1 - q));
    /* The bisection's gap, plus the closed form's rounding: 1 - q cancels,
     * eps / (1 - q) relative, and p = q^r rounds r eps relative, moving the
     * root by that over d log p / d eps = r (1 - q): both eps_mach / (1 - q)
     * in eps. */
    dpg_test_assert_le(fabs(bound(1000, rs[i], rs[i], 0) - closed),
                       BISECT_GAP + dpg_tol(1.0 / (1.0 - q), 4.0),
                       "bisection gap 1e-10 and the closed form's rounding eps / (1 - q)");
  }
  /* r = 10: q = 0.05^0.1 = 0.74113444910694772, eps = ln(q / (1 - q)) =
   * 1.0518732332317090 (40-digit decimal arithmetic; the 1.05188 this test
   * had came from q rounded to 6 decimals): to 17 digits, half an ulp. */
  dpg_test_assert_le(fabs(bound(10, 10, 10, 0) - 1.0518732332317090), BISECT_GAP + DBL_EPSILON,
                     "the bisection gap and the reference's rounding");
}

/* m = 4, r = v = 2, eps = ln 3 (q = 3/4), delta = 0.01: beta = q^2 = 0.5625;
 * the delta term's max is at i = 1: P[Binom = 1] = 2 q (1 - q) = 0.375 (at
 * i = 2: (0.375 + 0.0625) / 2); p = 0.5625 + 2 * 4 * 0.01 * 0.375 = 0.5925. */
static void test_by_hand(void) {
  /* q = 1 / (1 + e^-ln 3) rounds to a few ulps; beta goes through GSL's
   * incomplete beta function (a continued fraction stopped at a relative
   * change of 2 GSL_DBL_EPSILON, times exp(lgamma ...) prefactors of a few
   * ulps each) and alpha through binomial pdfs: a few dozen ulps of the
   * p-value at most (4.4e-16 measured for beta); 64 ulps. */
  double tol = dpg_tol(1.0, 64.0);
  dpg_test_assert_le(fabs(priv_onerun_p_value(4, 2, 2, log(3.0), 0.01) - 0.5925), tol,
                     "GSL's incomplete beta and binomial pdf, a few dozen ulps");
  dpg_test_assert_le(fabs(priv_onerun_p_value(4, 2, 2, log(3.0), 0) - 0.5625), tol,
                     "GSL's incomplete beta, a few dozen ulps");
  g_assert_cmpfloat(priv_onerun_p_value(4, 2, 2, 50, 0.9), ==, 1.0); /* capped */
  g_assert_cmpfloat(priv_onerun_p_value(4, 2, 0, 1, 0), ==, 1.0);
}

/* The bound is where the p-value crosses 5%, from below. */
static void test_root(void) {
  guint cases[][3] = {{1000, 500, 400}, {200, 100, 70}, {2000, 1000, 990}};
  double deltas[] = {1e-6, 0, 1e-5};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    guint m = cases[i][0], r = cases[i][1], v = cases[i][2];
    double eps = bound(m, r, v, deltas[i]);
    g_assert_cmpfloat(eps, >, 0);
    g_assert_cmpfloat(priv_onerun_p_value(m, r, v, eps, deltas[i]), <, 0.05);
    /* hi = lo + at most BISECT_GAP had p >= 5%; the sum rounds by an ulp. */
    double hi = eps + BISECT_GAP * (1.0 + 4.0 * DBL_EPSILON) + 2.0 * DBL_EPSILON * eps;
    g_assert_cmpfloat(priv_onerun_p_value(m, r, v, hi, deltas[i]), >=, 0.05);
  }
}

static void test_chance_and_delta(void) {
  g_assert_cmpfloat(bound(2, 2, 1, 0), ==, 0);     /* p(0) = 3/4 */
  g_assert_cmpfloat(bound(200, 100, 50, 0), ==, 0); /* half right */
  /* P[Binom(100, 1/2) >= v]: 6.7% at v = 58 (chance explains it: 0), 4.4% at
   * v = 59 (some eps > 0 is refuted). */
  g_assert_cmpfloat(bound(200, 100, 58, 0), ==, 0);
  g_assert_cmpfloat(bound(200, 100, 59, 0), >, 0);
  double none = bound(1000, 500, 500, 0), some = bound(1000, 500, 500, 1e-6),
         more = bound(1000, 500, 500, 1e-4);
  g_assert_cmpfloat(some, <=, none);
  g_assert_cmpfloat(more, <, some);
}

static void test_errors(void) {
  double eps = 0;
  GError *err = NULL;
  g_assert_false(priv_onerun_epsilon_lower(10, 5, 6, 0, 0.95, &eps, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(priv_onerun_epsilon_lower(10, 11, 5, 0, 0.95, &eps, &err));
  g_clear_error(&err);
  g_assert_false(priv_onerun_epsilon_lower(10, 5, 5, 2, 0.95, &eps, &err));
  g_clear_error(&err);
  g_assert_false(priv_onerun_epsilon_lower(10, 5, 5, 0, 1.0, &eps, &err));
  g_assert_nonnull(strstr(err->message, "confidence"));
  g_clear_error(&err);
  g_assert_true(isnan(priv_onerun_p_value(10, 5, 6, 1, 0)));
  g_assert_true(isnan(priv_onerun_p_value(10, 5, 5, -1, 0)));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/onerun/all-right", test_all_right);
  g_test_add_func("/privacy/onerun/by-hand", test_by_hand);
  g_test_add_func("/privacy/onerun/root", test_root);
  g_test_add_func("/privacy/onerun/chance-and-delta", test_chance_and_delta);
  g_test_add_func("/privacy/onerun/errors", test_errors);
  return g_test_run();
}
