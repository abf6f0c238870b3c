/*
 * privacy/gdp.c: conversions of mu-GDP into Renyi DP and (eps, delta)-DP
 * (Dong, Roth & Su 2022, Cor. 1).
 */
#include "privacy/internal.h"
#include "spec/spec.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sf_erf.h>
#include <float.h>
#include <math.h>

double priv_gdp_rdp(double mu, double alpha) {
  if (isnan(mu) || mu < 0 || !(alpha > 1))
    return NAN;
  if (isinf(mu))
    return INFINITY;
  /* Overflow is +inf (no protection); a positive mu never gives 0. */
  return priv_no_zero(alpha / 2.0 * mu * mu, mu > 0);
}

/* log Phi(x), accurate in both tails: Phi(x) = erfc(-x / sqrt 2) / 2. GSL
 * returns NaN for huge |x| (3.5e99): beyond 1e8, Mills' ratio (relative
 * error 1/x^2 < 1e-16) below, and 0 (Phi(x) = 1 - e^{-x^2/2}..., a hair
 * above the truth: never a smaller delta) above. */
static double log_Phi(double x) {
  if (x < -1e8)
    return -0.5 * x * x - log(-x) - 0.91893853320467274;
  if (x > 1e8)
    return 0.0;
  return gsl_sf_log_erfc(-x / M_SQRT2) - M_LN2;
}

/*
 * log delta(eps) = log(Phi(a) - e^eps Phi(a - mu)), a = -eps/mu + mu/2. The
 * second term is formed as exp(eps + log Phi(a - mu) - log Phi(a)) <= 1, so
 * neither e^eps (eps up to ~mu^2/2) nor Phi(a - mu) (down to e^{-mu^2/2})
 * leaves the double range; -expm1 keeps the difference accurate when the two
 * terms are close.
 */
static double log_delta(double mu, double eps) {
  double a = -eps / mu + mu / 2.0;
  double la = log_Phi(a);
  double ratio = eps + log_Phi(a - mu) - la; /* log of the second term over the first */
  if (!(ratio < 0))
    return -INFINITY; /* rounding at delta ~ 0 */
  return la + log(-expm1(ratio));
}

/* log delta(0) = log(2 Phi(mu/2) - 1) = log erf(mu / (2 sqrt 2)), without
 * the cancellation of 2 Phi - 1 (for mu = 1e-300 it is 0 in doubles). */
static double log_delta0(double mu) {
  double x = mu / (2.0 * M_SQRT2);
  if (x > 30.0)
    return 0.0; /* erfc(x) < 1e-393: delta(0) = 1 in doubles */
  return x < 1.0 ? log(gsl_sf_erf(x)) : log1p(-gsl_sf_erfc(x));
}

/* Beyond this mu, eps ~ mu^2/2 and log_delta's eps + log Phi(a - mu) cancels
 * to an absolute error of ulp(mu^2) >= 1e-4: priv_gdp_epsilon uses the
 * closed-form bound instead, which is within 2/mu^2 (relative) of eps. */
#define GDP_MU_BRENT_MAX 1e6

/*
 * eps_up = mu^2/2 + mu Qinv(delta) satisfies delta(eps_up) < Phi(a) = delta,
 * so eps <= eps_up for every mu and delta; the factor covers its rounding.
 * +inf when it overflows (no protection).
 */
static double epsilon_upper(double mu, double delta) {
  double z = gsl_cdf_ugaussian_Qinv(delta);
  if (!isfinite(z))
    return INFINITY;
  double e = (mu / 2.0 * mu + mu * z) * (1.0 + 1e-12);
  return isnan(e) ? INFINITY : MAX(e, 0.0);
}

double priv_gdp_delta(double mu, double eps) {
  if (isnan(mu) || isnan(eps) || mu < 0 || eps < 0)
    return NAN;
  if (mu == 0)
    return 0.0;
  if (isinf(mu))
    return 1.0;
  if (isinf(eps))
    return 0.0;
  double ld;
  if (mu > GDP_MU_BRENT_MAX) {
    /* eps + log Phi(a - mu) cancels (see GDP_MU_BRENT_MAX): the bound
     * delta <= Phi(a), with a rounded up. */
    double a = -eps / mu + mu / 2.0;
    ld = log_Phi(a + 4.0 * DBL_EPSILON * (eps / mu + mu / 2.0));
  } else if (eps == 0) {
    double x = mu / (2.0 * M_SQRT2); /* 2 Phi(mu/2) - 1 = erf(x), no cancellation */
    return priv_no_zero(gsl_sf_erf(x), TRUE);
  } else {
    ld = log_delta(mu, eps);
  }
  /* exp turns log's absolute rounding into |ld| ulps of relative error
   * (delta = 1e-300: 60 ulps): raised by that. delta(eps) > 0 for mu > 0:
   * underflow rounds up, never to 0. */
  double d = exp(ld);
  if (d > 0)
    d = MIN(1.0, d * (1.0 + 4.0 * DBL_EPSILON * (1.0 - ld)));
  return priv_no_zero(d, TRUE);
}

typedef struct {
  double mu, log_target;
} EpsRoot;

/* Root in x = log eps of log delta(e^x) - log delta_target (decreasing in x). */
static double eps_root_f(double x, void *params) {
  const EpsRoot *p = params;
  return log_delta(p->mu, exp(x)) - p->log_target;
}

double priv_gdp_epsilon(double mu, double delta) {
  if (isnan(mu) || mu < 0 || !(delta > 0 && delta < 1))
    return NAN;
  if (isinf(mu))
    return INFINITY;
  if (mu == 0)
    return 0.0;
  EpsRoot p = {mu, log(delta)};
  /* delta(0) = 2 Phi(mu/2) - 1: a target above it needs no epsilon at all
   * (with a margin for delta(0)'s rounding: a hair closer is solved for). */
  if (log_delta0(mu) <= p.log_target - 1e-14)
    return 0.0;
  double up = epsilon_upper(mu, delta);
  if (!(up > 0) || isinf(up) || mu > GDP_MU_BRENT_MAX)
    return up > 0 ? up : INFINITY;

  /* Bracket on log eps: up lies above the root; widen it anyway until the
   * sign changes. The lower end shrinks until delta(eps) exceeds the target
   * (it tends to delta(0) > target). */
  double hi = log(up);
  while (eps_root_f(hi, &p) > 0 && hi < 709.0)
    hi += 1.0;
  double lo = MIN(hi - 1.0, log(mu) - 40.0);
  while (eps_root_f(lo, &p) < 0 && lo > -745.0)
    lo -= 10.0;
  double flo = eps_root_f(lo, &p), fhi = eps_root_f(hi, &p);
  if (!(flo >= 0 && fhi <= 0))
    return up; /* no bracket: the bound */
  if (fhi == 0)
    return MIN(exp(hi), up);

  gsl_error_handler_t *old = gsl_set_error_handler_off();
  gsl_function F = {eps_root_f, &p};
  gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  double x = NAN;
  if (s && gsl_root_fsolver_set(s, &F, lo, hi) == GSL_SUCCESS) {
    for (int it = 0; it < 200; it++) {
      if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
        break;
      double a = gsl_root_fsolver_x_lower(s), b = gsl_root_fsolver_x_upper(s);
      /* The upper end: f(b) <= 0, delta(e^b) <= delta, e^b >= the root. */
      x = b;
      /* Absolute on log eps = relative on eps. */
      if (gsl_root_test_interval(a, b, 1e-13, 0.0) == GSL_SUCCESS)
        break;
    }
  }
  if (s)
    gsl_root_fsolver_free(s);
  gsl_set_error_handler(old);
  /* A solver that failed is "cannot compute": the bound, never less. The
   * difference of the two log Phi in log_delta loses about 1e-16 / mu
   * (relative) for small mu: against 60-digit references the root came out
   * up to 5e-15 / mu below the truth (570 points, mu in [1e-8, 1e6], delta
   * in [1e-300, 0.9]), so it is raised by 20 times that, and by 1e-12 (250
   * times the worst seen for mu >= 1). */
  if (isnan(x))
    return up;
  return MIN(exp(x) * (1.0 + 1e-12 + 1e-13 / mu), up);
}
