/*
 * mf/fit_internal.h: what the fitted strategies (blt_fit.c, toeplitz_fit.c)
 * share (fit_objective.c, fit_polish.c); a header of its own because their
 * GSL minimizers cannot be included beside mf/internal.h's OpenBLAS cblas.h.
 */
#ifndef DPG_MF_FIT_INTERNAL_H
#define DPG_MF_FIT_INTERNAL_H

#include <gsl/gsl_multimin.h>

#include "mf/mf.h"

/* One evaluation of a fitted strategy's objective at @x: *@value when
 * @value is not NULL, the gradient into @df when @df is not NULL. */
typedef void (*MfFitEval)(const gsl_vector *x, void *data, double *value, gsl_vector *df);

/* A fitted strategy's objective: @eval on @data. */
typedef struct {
  MfFitEval eval;
  void *data;
} MfFitObjective;

/*
 * mf_fit_function_fdf, mf_fit_function: GSL's tables for a minimizer of @o's
 * @n parameters (gradient-based, or Nelder-Mead's f alone): value and
 * gradient both come from o->eval, so the two never disagree. @o is
 * borrowed and must outlive the minimizer. O(1); never fail.
 * mf_fit_value: the value of the objective @objective (an MfFitObjective)
 * at @x, GSL's f, for a caller's own comparisons.
 */
gsl_multimin_function_fdf mf_fit_function_fdf(MfFitObjective *o, size_t n);
gsl_multimin_function mf_fit_function(MfFitObjective *o, size_t n);
double mf_fit_value(const gsl_vector *x, void *objective);

/*
 * mf_fit_nelder_mead: moves @x to a lower point of @fn (fn->n parameters)
 * by Nelder-Mead from a simplex of side @step: at most @max_iter
 * iterations, stopping once the simplex is smaller than @size_tol; @x moves
 * only when the point found is lower than @fn at @x. Gradient methods stall
 * at a loss's kinks (|X[s,t]| where an entry changes sign); the simplex
 * walks through. Never fails (call with GSL's error handler off).
 * O(@max_iter (n + 1) evaluations).
 */
void mf_fit_nelder_mead(gsl_multimin_function *fn, gsl_vector *x, double step, guint max_iter,
                        double size_tol);

#endif /* DPG_MF_FIT_INTERNAL_H */
