/*
 * privacy/onerun.h: the statistic of the one-run audit (Steinke, Nasr and
 * Jagielski 2023): from the correct membership guesses over canaries
 * inserted in one training run, an epsilon lower bound at a confidence.
 */
#ifndef DPG_PRIVACY_ONERUN_H
#define DPG_PRIVACY_ONERUN_H

#include <glib.h>

#include "privacy/base.h"

G_BEGIN_DECLS

/*
 * priv_onerun_p_value: the one-run audit's p-value (Steinke, Nasr and
 * Jagielski 2023, Theorem 5.2): the probability that an (@eps, @delta)-DP
 * algorithm, given @m canaries each included with probability 1/2
 * independently, lets a guesser making @r guesses get at least @v right:
 * P[Binom(r, q) >= v] + 2 m delta max_{1<=i<=v} P[v - i <= Binom(r, q) < v] / i
 * with q = e^eps / (1 + e^eps), capped at 1. Needs v <= r <= m, eps >= 0,
 * delta in [0, 1] (NAN otherwise). O(v).
 */
double priv_onerun_p_value(guint m, guint r, guint v, double eps, double delta);

/*
 * priv_onerun_epsilon_lower: the empirical epsilon lower bound of a one-run
 * audit at confidence @confidence (e.g. 0.95): the largest eps whose
 * p-value (priv_onerun_p_value) stays below 1 - confidence, found by
 * bisection and rounded down (never above the root, at most 1e-10 below it),
 * 0 when even eps = 0 is not rejected. An algorithm that is (eps, delta)-DP
 * for every canary yields a bound above eps with probability at most
 * 1 - confidence.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT for v > r, r > m, delta outside
 * [0, 1] or confidence outside (0, 1). O(60 v).
 */
gboolean priv_onerun_epsilon_lower(guint m, guint r, guint v, double delta, double confidence,
                                   double *eps_out, GError **error);

G_END_DECLS

#endif /* DPG_PRIVACY_ONERUN_H */
