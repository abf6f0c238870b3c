/*
 * privacy/gdp.c: conversions of mu-GDP into Renyi DP and (eps, delta)-DP
 * (Dong, Roth & Su 2022, Cor. 1), and the names of trust models and
 * sensitivity kinds.
 */
#include "privacy/internal.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sf_erf.h>
#include <math.h>

gboolean priv_trust_parse(const char *name, PrivTrust *out, GError **error) {
  static const struct {
    const char *name;
    PrivTrust trust;
  } table[] = {{"ldp", PRIV_TRUST_LDP}, {"pndp", PRIV_TRUST_PNDP}, {"secldp", PRIV_TRUST_SECLDP}};
  for (guint i = 0; name && i < G_N_ELEMENTS(table); i++) {
    if (g_str_equal(name, table[i].name)) {
      *out = table[i].trust;
      return TRUE;
    }
  }
  g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
              "unknown trust model '%s' (expected ldp, pndp or secldp)", name ? name : "(null)");
  return FALSE;
}

const char *priv_trust_name(PrivTrust trust) {
  switch (trust) {
  case PRIV_TRUST_LDP:
    return "ldp";
  case PRIV_TRUST_PNDP:
    return "pndp";
  case PRIV_TRUST_SECLDP:
    return "secldp";
  }
  return "unknown";
}

gboolean priv_sensitivity_parse(const char *name, PrivSensitivity *out, GError **error) {
  if (name && g_str_equal(name, "bound")) {
    *out = PRIV_SENSITIVITY_BOUND;
    return TRUE;
  }
  if (name && g_str_equal(name, "exact")) {
    *out = PRIV_SENSITIVITY_EXACT;
    return TRUE;
  }
  g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
              "unknown sensitivity '%s' (expected bound or exact)", name ? name : "(null)");
  return FALSE;
}

const char *priv_sensitivity_name(PrivSensitivity kind) {
  return kind == PRIV_SENSITIVITY_EXACT ? "exact" : "bound";
}

double priv_gdp_rdp(double mu, double alpha) {
  if (isnan(mu) || mu < 0 || !(alpha > 1)) return NAN;
  if (isinf(mu)) return INFINITY;
  return alpha * mu * mu / 2.0;
}

/* log Phi(x), accurate in both tails: Phi(x) = erfc(-x / sqrt 2) / 2. */
static double log_Phi(double x) { return gsl_sf_log_erfc(-x / M_SQRT2) - M_LN2; }

/*
 * log delta(eps) = log(Phi(a) - e^eps Phi(a - mu)), a = -eps/mu + mu/2. The
 * second term is formed as exp(eps + log Phi(a - mu) - log Phi(a)) <= 1, so
 * neither e^eps (eps up to ~mu^2/2) nor Phi(a - mu) (down to e^{-mu^2/2})
 * leaves the double range.
 */
static double log_delta(double mu, double eps) {
  double a = -eps / mu + mu / 2.0;
  double la = log_Phi(a);
  double ratio = eps + log_Phi(a - mu) - la; /* log of the second term over the first */
  if (ratio >= 0) return -INFINITY;          /* rounding at delta ~ 0 */
  return la + log1p(-exp(ratio));
}

double priv_gdp_delta(double mu, double eps) {
  if (isnan(mu) || isnan(eps) || mu < 0 || eps < 0) return NAN;
  if (mu == 0) return 0.0;
  if (isinf(mu)) return 1.0;
  if (isinf(eps)) return 0.0;
  return exp(log_delta(mu, eps));
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
  if (isnan(mu) || mu < 0 || !(delta > 0 && delta < 1)) return NAN;
  if (isinf(mu)) return INFINITY;
  if (mu == 0) return 0.0;
  EpsRoot p = {mu, log(delta)};
  /* delta(0) = 2 Phi(mu/2) - 1: a target above it needs no epsilon at all. */
  if (log_delta(mu, 0.0) <= p.log_target) return 0.0;

  /* Bracket on log eps. The Gaussian mechanism's classical sufficient
   * condition eps = mu^2/2 + mu sqrt(2 log(1.25/delta)) lies above the root;
   * widen it anyway until the sign changes. The lower end shrinks until
   * delta(eps) exceeds the target (it tends to delta(0) > target). */
  double hi = log(mu * mu / 2.0 + mu * sqrt(2.0 * log(1.25 / delta)) + 1e-300);
  while (eps_root_f(hi, &p) > 0 && hi < 50.0) hi += 1.0;
  double lo = MIN(hi - 1.0, log(mu) - 40.0);
  while (eps_root_f(lo, &p) < 0 && lo > -745.0) lo -= 10.0;
  double flo = eps_root_f(lo, &p), fhi = eps_root_f(hi, &p);
  if (!(flo >= 0 && fhi <= 0)) return NAN; /* not reached for valid inputs */
  if (flo == 0) return exp(lo);
  if (fhi == 0) return exp(hi);

  gsl_error_handler_t *old = gsl_set_error_handler_off();
  gsl_function F = {eps_root_f, &p};
  gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  double x = NAN;
  if (s && gsl_root_fsolver_set(s, &F, lo, hi) == GSL_SUCCESS) {
    for (int it = 0; it < 200; it++) {
      if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS) break;
      x = gsl_root_fsolver_root(s);
      double a = gsl_root_fsolver_x_lower(s), b = gsl_root_fsolver_x_upper(s);
      /* Absolute on log eps = relative on eps. */
      if (gsl_root_test_interval(a, b, 1e-13, 0.0) == GSL_SUCCESS) break;
    }
  }
  if (s) gsl_root_fsolver_free(s);
  gsl_set_error_handler(old);
  return exp(x);
}
