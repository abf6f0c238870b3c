/*
 * mf/internal.h: helpers shared by the files of mf/ (not public).
 */
#ifndef DPG_MF_INTERNAL_H
#define DPG_MF_INTERNAL_H

#include <cblas.h>
#include <lapacke.h>

#include "mf/mf.h"
#include "spec/spec.h"

/*
 * Fails with MF_ERROR_MEMORY when @bytes exceeds @max_bytes (0 = the
 * process's memory budget), naming @what and the amount needed so the user
 * can shrink T or n.
 */
gboolean mf_check_budget(gsize bytes, gsize max_bytes, const char *what, GError **error);

/* g_try_malloc0 of rows*cols doubles; NULL with MF_ERROR_MEMORY on failure. */
double *mf_matrix_new(gsize rows, gsize cols, GError **error);

/* MF_ERROR_INVALID_ARGUMENT naming @what unless the spectral form @g is of
 * the post-average workload over T = @k @b, the one the Toeplitz and BLT
 * fits score (mafalda.c). */
gboolean mf_spectral_check_fit(const MfGramSpectral *g, guint k, guint b, const char *what,
                               GError **error);

/* @x rounded up to the smallest positive double when @truth_positive and @x
 * underflowed to 0: a positive sensitivity is never returned as 0. */
static inline double mf_no_zero(double x, gboolean truth_positive) {
  return truth_positive && x == 0.0 ? 4.9406564584124654e-324 : x;
}

#endif /* DPG_MF_INTERNAL_H */
