/*
 * tests/mf/test_sdp.c: the exact sensitivity SDP
 * max {<X, U> : U psd, diag(U) <= 1} against closed forms (rank one, the
 * 120-degree triangle, the identity), its certificate, the Thm 5.2 bound
 * (never exceeded; reached when X is entrywise non-negative), feasible
 * points, and the participation patterns of mf_gram_sensitivity2.
 */
#include <math.h>
#include <string.h>

#include "mf/mf.h"
#include "tests/common/tolerance.h"

#define SDP_TOL 1e-9 /* the stopping tolerance every call here passes */

static double max_abs(const double *X, guint k) {
  double m = 0.0;
  for (guint i = 0; i < k * k; i++)
    m = MAX(m, fabs(X[i]));
  return m;
}

/* How far mf_sdp_max's value @v may be from the optimum, by its documented
 * stopping rule: it solves X / 2^e (max |X / 2^e| in [1/2, 1), exact) until
 * upper - lower <= tol max(1, upper), so scaled back the gap is
 * tol max(2^e, v); plus the rounding of the certificate, whose <X, U> sums
 * k^2 terms: eps k^2 max |X|. */
static double sdp_gap(const double *X, guint k, double v) {
  int e;
  double amax = max_abs(X, k);
  frexp(amax, &e);
  return SDP_TOL * MAX(ldexp(1.0, e), fabs(v)) + dpg_tol(1.0, (double)k * k) * amax;
}
#define GAP_WHY "the SDP's stopping gap tol max(2^e, v) and eps k^2 max|X|"

static double abs_sum(const double *X, guint k) {
  double s = 0.0;
  for (guint i = 0; i < k * k; i++)
    s += fabs(X[i]);
  return s;
}

/* X = V^T V for a random d x k V (entries in [lo, hi]): psd. */
static double *random_gram(GRand *r, guint k, guint d, double lo, double hi) {
  double *V = g_new(double, (gsize)d *k), *X = g_new0(double, (gsize)k *k);
  for (guint i = 0; i < d * k; i++)
    V[i] = g_rand_double_range(r, lo, hi);
  for (guint a = 0; a < k; a++)
    for (guint b = 0; b < k; b++)
      for (guint i = 0; i < d; i++)
        X[a * k + b] += V[i * k + a] * V[i * k + b];
  g_free(V);
  return X;
}

static double sdp(const double *X, guint k, MfSdpInfo *info) {
  GError *err = NULL;
  double v = mf_sdp_max(X, k, SDP_TOL, info, &err);
  g_assert_no_error(err);
  return v;
}

static void test_closed_forms(void) {
  MfSdpInfo info;
  /* Anti-correlated pair: U = [1 -1; -1 1] reaches the bound 4. */
  double X2[] = {1, -1, -1, 1};
  dpg_test_assert_le(fabs(sdp(X2, 2, &info) - 4.0), sdp_gap(X2, 2, 4.0), GAP_WHY);
  /* Three unit vectors at 120 degrees: 1^T X 1 = 0, so <X, U> = 1.5 tr U
   * - 0.5 1^T U 1 <= 4.5, reached by U = X; the bound says 6. */
  double X3[] = {1, -0.5, -0.5, -0.5, 1, -0.5, -0.5, -0.5, 1};
  double v3 = sdp(X3, 3, &info);
  dpg_test_assert_le(fabs(v3 - 4.5), sdp_gap(X3, 3, 4.5), GAP_WHY);
  g_assert_true(info.converged);
  g_assert_cmpfloat(info.lower, <=, v3);
  g_assert_cmpfloat(abs_sum(X3, 3), ==, 6.0);
  /* Identity: tr U <= k. */
  double I5[25] = {0};
  for (guint i = 0; i < 5; i++)
    I5[i * 5 + i] = 1.0;
  dpg_test_assert_le(fabs(sdp(I5, 5, &info) - 5.0), sdp_gap(I5, 5, 5.0), GAP_WHY);
  /* Rank one a a^T with mixed signs: U = sign(a) sign(a)^T gives (sum |a|)^2,
   * which is also the bound. */
  double a[] = {0.3, -1.2, 0.7, -0.1, 2.0, -0.4}, A[36];
  for (guint i = 0; i < 6; i++)
    for (guint j = 0; j < 6; j++)
      A[i * 6 + j] = a[i] * a[j];
  /* abs_sum: 36 nonnegative terms, 36 eps relative. */
  double want = abs_sum(A, 6);
  dpg_test_assert_le(fabs(sdp(A, 6, &info) - want), sdp_gap(A, 6, want) + dpg_tol(1, 36) * want,
                     GAP_WHY);
  /* k = 1: max(X, 0). */
  double one = 2.5;
  g_assert_cmpfloat(sdp(&one, 1, NULL), ==, 2.5);
}

/* Random psd X: a certified value between every feasible point and the bound. */
static void test_random_certified(void) {
  GRand *r = g_rand_new_with_seed(12);
  const guint ks[] = {2, 3, 5, 8, 13, 30, 50};
  for (guint ki = 0; ki < G_N_ELEMENTS(ks); ki++) {
    for (guint rep = 0; rep < 3; rep++) {
      guint k = ks[ki];
      double *X = random_gram(r, k, 1 + rep * (k / 2 + 1), -1.0, 1.0);
      MfSdpInfo info;
      double v = sdp(X, k, &info);
      g_assert_true(info.converged);
      /* The stopping rule itself (scaling by 2^e is exact). */
      int e;
      frexp(max_abs(X, k), &e);
      dpg_test_assert_le(v - info.lower, SDP_TOL * MAX(ldexp(1.0, e), v),
                         "the stopping rule: tol max(2^e, v)");
      /* v is at most the solver's own bound, the same k^2 nonnegative terms
       * summed in another order: k^2 eps relative each. */
      double bsum = abs_sum(X, k);
      dpg_test_assert_le(v - bsum, dpg_tol(1.0, 2.0 * k * k) * bsum,
                         "two sums of k^2 nonnegative terms");
      /* Feasible points: v is a certified upper bound on the optimum, up to
       * its certificate's rounding (eps k^2 max|X|); tr and q round by at
       * most that much too. */
      double slack = dpg_tol(1.0, 2.0 * k * k) * max_abs(X, k);
      const char *why = "certificate and feasible value rounding, eps k^2 max|X| each";
      /* Feasible points: U = I, and U = s s^T for sign vectors s. */
      double tr = 0.0;
      for (guint i = 0; i < k; i++)
        tr += X[i * k + i];
      dpg_test_assert_le(tr - v, slack, why);
      for (guint t = 0; t < 20; t++) {
        double q = 0.0;
        gint s[64];
        for (guint i = 0; i < k; i++)
          s[i] = g_rand_boolean(r) ? 1 : -1;
        for (guint i = 0; i < k; i++)
          for (guint j = 0; j < k; j++)
            q += s[i] * s[j] * X[i * k + j];
        dpg_test_assert_le(q - v, slack, why);
      }
      g_free(X);
    }
  }
  g_rand_free(r);
}

/* Entrywise non-negative X: exact = bound. */
static void test_nonnegative_equals_bound(void) {
  GRand *r = g_rand_new_with_seed(3);
  for (guint k = 2; k <= 40; k += 6) {
    double *X = random_gram(r, k, 3, 0.0, 1.0);
    double want = abs_sum(X, k);
    dpg_test_assert_le(fabs(sdp(X, k, NULL) - want),
                       sdp_gap(X, k, want) + dpg_tol(1.0, (double)k * k) * want, GAP_WHY);
    g_free(X);
  }
  g_rand_free(r);
}

/* mf_gram_sensitivity2: the max over offsets j of the pattern pi_j. */
static void test_patterns(void) {
  guint T = 6, b = 2;
  double X[36] = {0};
  /* Offset 0 (steps 0, 2, 4): anti-correlated 120-degree triangle, bound 6,
   * exact 4.5. Offset 1 (steps 1, 3, 5): 1.6 I, bound = exact = 4.8. */
  const guint p0[] = {0, 2, 4}, p1[] = {1, 3, 5};
  for (guint a = 0; a < 3; a++)
    for (guint c = 0; c < 3; c++) {
      X[p0[a] * T + p0[c]] = a == c ? 1.0 : -0.5;
      X[p1[a] * T + p1[c]] = a == c ? 1.6 : 0.0;
    }
  /* Cross terms between offsets are ignored by every pattern. */
  X[0 * T + 1] = X[1 * T + 0] = 7.0;
  double s2;
  GError *err = NULL;
  g_assert_true(mf_gram_sensitivity2(X, T, b, MF_SENSITIVITY_BOUND, &s2, &err));
  /* Bound: a sum of k^2 = 9 absolute values, 9 eps relative. */
  dpg_test_assert_close(s2, 6.0, dpg_tol(1.0, 9), "a sum of 9 nonnegative terms");
  g_assert_true(mf_gram_sensitivity2(X, T, b, MF_SENSITIVITY_EXACT, &s2, &err));
  double sub1[9] = {1.6, 0, 0, 0, 1.6, 0, 0, 0, 1.6};
  dpg_test_assert_le(fabs(s2 - 4.8), sdp_gap(sub1, 3, 4.8), GAP_WHY);
  /* b = 1: one pattern with everything. */
  g_assert_true(mf_gram_sensitivity2(X, T, 1, MF_SENSITIVITY_BOUND, &s2, &err));
  dpg_test_assert_close(s2, 6.0 + 4.8 + 14.0, dpg_tol(1.0, 36), "a sum of 36 nonnegative terms");
  /* b = T: single steps, max diagonal. */
  g_assert_true(mf_gram_sensitivity2(X, T, T, MF_SENSITIVITY_EXACT, &s2, &err));
  /* k = 1: max(X_jj, 0) read off, scaled by 2^-e and back: exact. */
  g_assert_cmpfloat(s2, ==, 1.6);
  g_assert_false(mf_gram_sensitivity2(X, T, 4, MF_SENSITIVITY_BOUND, &s2, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "divide"));
  g_clear_error(&err);
}

static void test_errors(void) {
  GError *err = NULL;
  double X[] = {1, NAN, NAN, 1};
  g_assert_true(isnan(mf_sdp_max(X, 2, 1e-9, NULL, &err)));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_true(isnan(mf_sdp_max(X, 0, 1e-9, NULL, &err)));
  g_clear_error(&err);
  g_assert_true(isnan(mf_sdp_max(X, 2, 0.0, NULL, &err)));
  g_clear_error(&err);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mf/account/sdp/closed-forms", test_closed_forms);
  g_test_add_func("/mf/account/sdp/random-certified", test_random_certified);
  g_test_add_func("/mf/account/sdp/nonnegative-equals-bound", test_nonnegative_equals_bound);
  g_test_add_func("/mf/account/sdp/patterns", test_patterns);
  g_test_add_func("/mf/account/sdp/errors", test_errors);
  return g_test_run();
}
