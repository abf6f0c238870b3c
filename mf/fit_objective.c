/* mf/fit_objective.c: a fitted strategy's one evaluation function as the
 * f, df and fdf that GSL's minimizers call. */
#include "mf/fit_internal.h"

double mf_fit_value(const gsl_vector *x, void *objective) {
  const MfFitObjective *o = objective;
  double v;
  o->eval(x, o->data, &v, NULL);
  return v;
}

static void fit_gradient(const gsl_vector *x, void *objective, gsl_vector *df) {
  const MfFitObjective *o = objective;
  o->eval(x, o->data, NULL, df);
}

static void fit_both(const gsl_vector *x, void *objective, double *value, gsl_vector *df) {
  const MfFitObjective *o = objective;
  o->eval(x, o->data, value, df);
}

gsl_multimin_function_fdf mf_fit_function_fdf(MfFitObjective *o, size_t n) {
  return (gsl_multimin_function_fdf){
      .f = mf_fit_value, .df = fit_gradient, .fdf = fit_both, .n = n, .params = o};
}

gsl_multimin_function mf_fit_function(MfFitObjective *o, size_t n) {
  return (gsl_multimin_function){.f = mf_fit_value, .n = n, .params = o};
}
