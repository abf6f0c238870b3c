/*
 * privacy/onerun.c: the statistic of the one-run audit (Steinke, Nasr and
 * Jagielski 2023, "Privacy auditing with one (1) training run", Theorem 5.2):
 * m canaries, each in the training set with probability 1/2; a guesser
 * makes r guesses of "in" or "out" and gets v right. Against an
 * (eps, delta)-DP algorithm each guess is right with probability at most
 * q = e^eps / (1 + e^eps) (randomized response), up to a delta term, so a
 * large v refutes small eps.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "privacy/privacy.h"

double priv_onerun_p_value(guint m, guint r, guint v, double eps, double delta) {
  if (v > r || r > m || !(eps >= 0) || !(delta >= 0 && delta <= 1))
    return NAN;
  if (v == 0)
    return 1.0;
  double q = 1.0 / (1.0 + exp(-eps));
  /* P[Binom(r, q) >= v]: GSL's upper tail is P[X > v - 1]. */
  double beta = gsl_cdf_binomial_Q(v - 1, q, r);
  double alpha = 0, tail = 0;
  for (guint i = 1; i <= v; i++) {
    tail += gsl_ran_binomial_pdf(v - i, q, r);
    alpha = MAX(alpha, tail / i);
  }
  return MIN(1.0, beta + 2.0 * m * delta * alpha);
}

gboolean priv_onerun_epsilon_lower(guint m, guint r, guint v, double delta, double confidence,
                                   double *eps_out, GError **error) {
  if (v > r || r > m || !(delta >= 0 && delta <= 1) || !(confidence > 0 && confidence < 1) ||
      eps_out == NULL) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "one-run audit: need correct <= guesses <= canaries (got %u, %u, %u), delta in "
                "[0, 1] (got %g) and a confidence in (0, 1) (got %g)",
                v, r, m, delta, confidence);
    return FALSE;
  }
  double level = 1.0 - confidence;
  *eps_out = 0;
  if (!(priv_onerun_p_value(m, r, v, 0, delta) < level))
    return TRUE;
  /* The p-value grows with eps: keep p(lo) < level <= p(hi). Past eps = 40
   * q rounds to 1 in double and nothing larger can be supported. */
  double lo = 0, hi = 1;
  while (hi < 40 && priv_onerun_p_value(m, r, v, hi, delta) < level) {
    lo = hi;
    hi *= 2;
  }
  if (hi >= 40 && priv_onerun_p_value(m, r, v, hi, delta) < level) {
    *eps_out = lo;
    return TRUE;
  }
  for (int it = 0; it < 60 && hi - lo > 1e-10; it++) {
    double mid = 0.5 * (lo + hi);
    if (priv_onerun_p_value(m, r, v, mid, delta) < level)
      lo = mid;
    else
      hi = mid;
  }
  *eps_out = lo;
  return TRUE;
}
