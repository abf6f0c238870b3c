/*
 * mf/blt_fit.c: the BLT strategy of d buffers fitted to a gossip's
 * workload (docs/design.md, "Mafalda"): BFGS on log(loss) in (logit theta, w)
 * with the exact gradient of mf_blt_loss, then Nelder-Mead through the
 * kinks of |X[s,t]| (mixed-sign weights cancel cross terms of the
 * sensitivity: a positive mixture of geometric sequences cannot, and loses
 * to BSR under many participations). 2d parameters, each evaluation
 * O(n^2 T + k^2 b d^2).
 */
/* Not mf/internal.h: OpenBLAS's cblas.h and GSL's gsl_cblas.h clash. */
#include "mf/fit_internal.h"

#include <gsl/gsl_multimin.h>
#include <math.h>

typedef struct {
  const MfGramSpectral *g;
  guint k, b, d;
  double theta[MF_BLT_MAX_BUFFERS], w[MF_BLT_MAX_BUFFERS];
  double grad[2 * MF_BLT_MAX_BUFFERS];
} Fit;

/* x = (logit theta, w); FALSE when theta rounds to 0 or 1. */
static gboolean load(Fit *f, const gsl_vector *x) {
  for (guint i = 0; i < f->d; i++) {
    double u = gsl_vector_get(x, i), v = gsl_vector_get(x, f->d + i);
    f->theta[i] = 1.0 / (1.0 + exp(-u));
    f->w[i] = v;
    if (!(f->theta[i] > 0.0 && f->theta[i] < 1.0))
      return FALSE;
  }
  return TRUE;
}

static void store(const double *theta, const double *w, guint d, gsl_vector *x) {
  for (guint i = 0; i < d; i++) {
    gsl_vector_set(x, i, log(theta[i] / (1.0 - theta[i])));
    gsl_vector_set(x, d + i, w[i]);
  }
}

static void fit_fdf(const gsl_vector *x, void *data, double *value, gsl_vector *df) {
  Fit *f = data;
  gboolean ok = load(f, x);
  double L = ok ? mf_blt_loss(f->g, f->theta, f->w, f->d, f->k, f->b, df ? f->grad : NULL) : NAN;
  ok = ok && isfinite(L) && L > 0.0;
  if (value)
    *value = ok ? log(L) : GSL_POSINF;
  if (df)
    for (guint i = 0; i < f->d; i++) {
      double th = f->theta[i];
      gsl_vector_set(df, i, ok ? f->grad[i] * th * (1.0 - th) / L : 0.0);
      gsl_vector_set(df, f->d + i, ok ? f->grad[f->d + i] / L : 0.0);
    }
}

gboolean mf_blt_fit(const MfGramSpectral *g, guint k, guint b, guint d, double *theta, double *w,
                    double *loss, GError **error) {
  g_return_val_if_fail(g != NULL && theta != NULL && w != NULL, FALSE);
  if (k == 0 || b == 0 || (guint64)k * b != g->T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "BLT strategy: T = %u must be epochs x batches = %u x %u", g->T, k, b);
    return FALSE;
  }
  if (!mf_blt_check(theta, w, d, error))
    return FALSE;
  Fit f = {.g = g, .k = k, .b = b, .d = d};
  MfFitObjective obj = {fit_fdf, &f};
  gsl_vector *x = gsl_vector_alloc(2 * d);
  store(theta, w, d, x);
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  gsl_multimin_function_fdf fn = mf_fit_function_fdf(&obj, 2 * d);
  gsl_multimin_fdfminimizer *s = gsl_multimin_fdfminimizer_alloc(
      gsl_multimin_fdfminimizer_vector_bfgs2, 2 * d);
  gsl_vector *x0 = gsl_vector_alloc(2 * d);
  gsl_vector_memcpy(x0, x);
  double start = mf_fit_value(x, &obj);
  if (isfinite(start)) {
    gsl_multimin_fdfminimizer_set(s, &fn, x, 0.1, 0.1);
    for (guint it = 0; it < 500; it++) {
      if (gsl_multimin_fdfminimizer_iterate(s) != GSL_SUCCESS)
        break; /* no progress */
      if (gsl_multimin_test_gradient(s->gradient, 1e-8) == GSL_SUCCESS)
        break;
    }
    gsl_vector_memcpy(x, s->x);
  }
  if (!(mf_fit_value(x, &obj) < start))
    gsl_vector_memcpy(x, x0); /* never worse than the start */
  gsl_vector_free(x0);
  gsl_multimin_fdfminimizer_free(s);
  /* |X[s,t]| has kinks where a cross entry changes sign (mixed-sign weights
   * can cancel cross terms): BFGS stalls there, Nelder-Mead walks through. */
  gsl_multimin_function fn0 = mf_fit_function(&obj, 2 * d);
  mf_fit_nelder_mead(&fn0, x, 0.05, 200 * d, 1e-7);
  gsl_set_error_handler(old);
  gboolean ok = load(&f, x);
  gsl_vector_free(x);
  double L = ok ? mf_blt_loss(g, f.theta, f.w, d, k, b, NULL) : NAN;
  if (!(isfinite(L) && L > 0.0)) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL, "BLT strategy: the loss is not finite");
    return FALSE;
  }
  for (guint i = 0; i < d; i++) {
    theta[i] = f.theta[i];
    w[i] = f.w[i];
  }
  if (loss)
    *loss = L;
  return TRUE;
}
