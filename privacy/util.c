/* privacy/util.c: size arithmetic and memory budgets for privacy/. */
#include "privacy/internal.h"
#include "spec/spec.h"

#include <math.h>
#include <stdlib.h>

gboolean priv_check_budget(gsize bytes, gsize max_bytes, const char *what, GError **error) {
  return spec_check_memory_within(bytes, max_bytes, what,
                                  "use fewer rounds (T = epochs x batches) or a smaller graph",
                                  PRIV_ERROR, PRIV_ERROR_MEMORY, error);
}

gboolean priv_options_resolve(double *clip, double *rank_tol, double *range_tol) {
  if (*clip == 0)
    *clip = 1.0;
  if (*rank_tol == 0)
    *rank_tol = 1e-10;
  if (*range_tol == 0)
    *range_tol = 1e-8;
  return *clip > 0 && isfinite(*clip) && *rank_tol > 0 && *range_tol > 0;
}

double *priv_matrix_new(gsize rows, gsize cols, GError **error) {
  return spec_doubles_new(rows, cols, PRIV_ERROR, PRIV_ERROR_MEMORY, error);
}

gboolean priv_scale_exponents(double a, double b, gboolean *scale, int *ea, int *eb,
                              GError **error) {
  *scale = FALSE;
  *ea = *eb = 0;
  if (!(a > 0 && b > 0 && isfinite(a) && isfinite(b)))
    return TRUE;
  frexp(a, ea);
  frexp(b, eb);
  if (abs(*ea) <= 200 && abs(*eb) <= 200 && abs(*ea - *eb) <= 100)
    return TRUE;
  if (abs(*ea - *eb) > 1000) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the noise coefficients are 2^%d times the gradients' (noise std %g x Delta): "
                "mu = 1/std leaves the range of doubles; the structured path (--path "
                "structured) handles any sigma",
                *eb - *ea, b / a);
    return FALSE;
  }
  *scale = TRUE;
  return TRUE;
}
