/* mf/fit_polish.c: the Nelder-Mead polish after a fitted strategy's BFGS. */
#include "mf/fit_internal.h"

void mf_fit_nelder_mead(gsl_multimin_function *fn, gsl_vector *x, double step, guint max_iter,
                        double size_tol) {
  g_return_if_fail(fn != NULL && x != NULL && x->size == fn->n);
  gsl_vector *steps = gsl_vector_alloc(fn->n);
  gsl_vector_set_all(steps, step);
  gsl_multimin_fminimizer *nm = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2,
                                                              fn->n);
  gsl_multimin_fminimizer_set(nm, fn, x, steps);
  double before = fn->f(x, fn->params);
  for (guint it = 0; it < max_iter; it++)
    if (gsl_multimin_fminimizer_iterate(nm) != GSL_SUCCESS ||
        gsl_multimin_test_size(gsl_multimin_fminimizer_size(nm), size_tol) == GSL_SUCCESS)
      break;
  if (gsl_multimin_fminimizer_minimum(nm) < before)
    gsl_vector_memcpy(x, gsl_multimin_fminimizer_x(nm));
  gsl_multimin_fminimizer_free(nm);
  gsl_vector_free(steps);
}
