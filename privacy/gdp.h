/*
 * privacy/gdp.h: Gaussian DP conversions into Renyi DP and (eps, delta)-DP
 * (Dong, Roth, Su 2022).
 */
#ifndef DPG_PRIVACY_GDP_H
#define DPG_PRIVACY_GDP_H

#include <glib.h>

#include "privacy/base.h"

G_BEGIN_DECLS

/* RDP of order @alpha (> 1) of a mu-GDP mechanism: alpha mu^2 / 2. +inf for
 * mu = +inf and when it overflows (mu = 1e200); a positive mu that would
 * underflow it (1e-200) gives the smallest positive double, never 0. NaN for
 * a negative or NaN mu or alpha <= 1. O(1). */
double priv_gdp_rdp(double mu, double alpha);

/*
 * priv_gdp_delta: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
 * (Dong, Roth, Su 2022, Cor. 1), evaluated in log space so that neither
 * e^eps nor Phi under/overflows, delta(0) as erf(mu / (2 sqrt 2)) (no
 * cancellation for small mu), and raised by the rounding of exp(log delta);
 * above mu = 1e6 the bound Phi(-eps/mu + mu/2). Never below the truth for
 * mu > 0: a delta that underflows is the smallest positive double. @mu >= 0,
 * @eps >= 0; NaN otherwise. mu = 0 gives 0; mu = +inf gives 1. O(1).
 */
double priv_gdp_delta(double mu, double eps);

/*
 * priv_gdp_epsilon: the eps >= 0 with priv_gdp_delta(mu, eps) = @delta
 * (0 when delta(0) <= @delta), by Brent's method on log(eps) against
 * log(delta), to a relative 1e-12, taking the upper end of the bracket and
 * raising it by the root's measured error (1e-12 + 1e-13/mu relative; see
 * gdp.c). Never above the closed-form bound mu^2/2 + mu Qinv(delta), which is
 * returned where the root finder is unreliable (mu > 1e6, no bracket): so
 * never below the truth, for every mu >= 0 and delta in (0, 1); +inf when
 * mu^2/2 overflows (mu > 1.9e154, no protection) and for mu = +inf. NaN for
 * mu < 0 or delta outside (0, 1).
 * For mu = 1: eps(1e-6) = 4.88655, eps(1e-5) = 4.37718. O(100) evaluations.
 */
double priv_gdp_epsilon(double mu, double delta);

G_END_DECLS

#endif /* DPG_PRIVACY_GDP_H */
