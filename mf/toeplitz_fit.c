/*
 * mf/toeplitz_fit.c: the banded Toeplitz strategy fitted to a
 * gossip's workload (docs/design.md, "Mafalda"; in the spirit of McKenna 2024's
 * banded Toeplitz strategies, the code is ours): w - 1 free coefficients,
 * each evaluation O(n^2 T + T w) from the spectral form of H, so horizons
 * of 10^4 steps take seconds per hundred evaluations and the optimum at a
 * horizon starts the next one. A node streams its noise from w - 1 past
 * noises (protocols/mfdsgd.c, recursive form), whatever T.
 */
/* Not mf/internal.h: OpenBLAS's cblas.h and GSL's gsl_cblas.h clash. */
#include "mf/fit_internal.h"

#include <gsl/gsl_multimin.h>
#include <math.h>

typedef struct {
  const MfGramSpectral *g;
  guint k, b, w;
  double *c, *grad; /* w each; c[0] = 1 */
} Fit;

/* x holds c[1 .. w). */
static void load(Fit *f, const gsl_vector *x) {
  f->c[0] = 1.0;
  for (guint l = 1; l < f->w; l++)
    f->c[l] = gsl_vector_get(x, l - 1);
}

static void fit_fdf(const gsl_vector *x, void *data, double *value, gsl_vector *df) {
  Fit *f = data;
  load(f, x);
  double L = mf_toeplitz_banded_loss(f->g, f->c, f->w, f->k, f->b, df ? f->grad : NULL);
  gboolean ok = isfinite(L) && L > 0.0;
  if (value)
    *value = ok ? log(L) : GSL_POSINF;
  if (df)
    for (guint l = 1; l < f->w; l++)
      gsl_vector_set(df, l - 1, ok ? f->grad[l] / L : 0.0);
}

gboolean mf_toeplitz_fit(const MfGramSpectral *g, guint k, guint b, guint w, double *c,
                         double *loss, GError **error) {
  g_return_val_if_fail(g != NULL && c != NULL, FALSE);
  guint T = g->T;
  if (k == 0 || b == 0 || (guint64)k * b != T || w == 0 || w > T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "banded Toeplitz strategy: band %u must be between 1 and T = %u = epochs x "
                "batches = %u x %u",
                w, T, k, b);
    return FALSE;
  }
  if (!(c[0] != 0.0) || !isfinite(c[0])) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "banded Toeplitz strategy: the start needs c[0] != 0 (got %g)", c[0]);
    return FALSE;
  }
  for (guint l = w; l-- > 0;)
    c[l] /= c[0]; /* the loss does not see the scale */
  Fit f = {.g = g, .k = k, .b = b, .w = w, .c = g_new(double, w), .grad = g_new(double, w)};
  MfFitObjective obj = {fit_fdf, &f};
  gboolean ok = TRUE;
  if (w > 1) {
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_multimin_function_fdf fn = mf_fit_function_fdf(&obj, w - 1);
    gsl_vector *x = gsl_vector_alloc(w - 1);
    for (guint l = 1; l < w; l++)
      gsl_vector_set(x, l - 1, c[l]);
    gsl_multimin_fdfminimizer *s = gsl_multimin_fdfminimizer_alloc(
        gsl_multimin_fdfminimizer_vector_bfgs2, w - 1);
    gsl_multimin_fdfminimizer_set(s, &fn, x, 0.01, 0.1);
    double start = s->f;
    for (guint it = 0; it < 2000; it++) {
      if (gsl_multimin_fdfminimizer_iterate(s) != GSL_SUCCESS)
        break; /* no progress */
      if (gsl_multimin_test_gradient(s->gradient, 1e-9) == GSL_SUCCESS)
        break;
    }
    /* The minimizer's point is never worse than the start. */
    gboolean better = s->f <= start;
    if (better)
      gsl_vector_memcpy(x, s->x);
    gsl_multimin_fdfminimizer_free(s);
    /* Past b the loss has kinks (|X[s,t]| at 0, where the band-b start
     * sits): BFGS stalls there, Nelder-Mead walks through. */
    if (w > b) {
      gsl_multimin_function fn0 = mf_fit_function(&obj, w - 1);
      mf_fit_nelder_mead(&fn0, x, 0.02, 250 * w, 1e-6);
    }
    load(&f, x);
    for (guint l = 0; l < w; l++)
      c[l] = f.c[l];
    gsl_vector_free(x);
    gsl_set_error_handler(old);
  }
  double L = mf_toeplitz_banded_loss(g, c, w, k, b, NULL);
  if (!(isfinite(L) && L > 0.0)) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "banded Toeplitz strategy: the loss is not finite");
    ok = FALSE;
  }
  if (loss)
    *loss = L;
  g_free(f.c);
  g_free(f.grad);
  return ok;
}
