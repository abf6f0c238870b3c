/*
 * mf/fit_internal.h: what the fitted strategies (blt_fit.c, toeplitz_fit.c)
 * share; a header of its own because their GSL minimizers cannot be
 * included beside mf/internal.h's OpenBLAS cblas.h.
 */
#ifndef DPG_MF_FIT_INTERNAL_H
#define DPG_MF_FIT_INTERNAL_H

#include <gsl/gsl_multimin.h>

#include "mf/mf.h"

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
