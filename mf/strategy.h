/*
 * mf/strategy.h: the fixed strategies C_local (the baselines), the loss of
 * any C, and the streamable factor of a Gram matrix.
 */
#ifndef DPG_MF_STRATEGY_H
#define DPG_MF_STRATEGY_H

#include <glib.h>

#include "mf/base.h"

G_BEGIN_DECLS

/*
 * mf_loss: L(C) = sens_Pi(C)^2 tr(H (C^T C)^{-1}) (paper eq.
 * "optim loss MAFALDA"), C square invertible (lower-triangular C takes the
 * triangular path). O(T^3). Returns the loss, or NaN with @error set
 * (MF_ERROR_INVALID_ARGUMENT, MF_ERROR_NUMERICAL when C is singular).
 */
double mf_loss(const double *H, const double *C, guint T, guint k, guint b, GError **error);

/* The fixed strategies Mafalda is compared with. */
typedef enum {
  MF_BASELINE_IDENTITY, /* C = I: DP-D-SGD, independent noise */
  MF_BASELINE_ANTIPGD,  /* C = lower-triangular ones: noise z_t - z_{t-1} */
  MF_BASELINE_SR,       /* C = A^{1/2}, A the prefix sum: lower-triangular Toeplitz
                           * with the coefficients of (1-x)^{-1/2}, binom(2j,j)/4^j */
  MF_BASELINE_BSR,      /* SR's coefficients cut to the band j < @band */
} MfBaseline;

/*
 * mf_baseline: the T x T matrix C of @which (row-major, lower
 * triangular). @band is used by MF_BASELINE_BSR only (1 <= band; band >= T
 * is SR). O(T^2). Returns NULL with @error set on bad sizes.
 */
double *mf_baseline(MfBaseline which, guint T, guint band, GError **error);

/*
 * mf_baseline_coefficients: the first column c[0 .. *@width) of the
 * lower-triangular Toeplitz C of @which (C[t,s] = c[t-s], zero from the
 * width on): identity 1, AntiPGD T ones, SR T binomials, BSR @band of them.
 * Errors as mf_baseline's. O(T).
 */
double *mf_baseline_coefficients(MfBaseline which, guint T, guint band, guint *width,
                                 GError **error);

/*
 * mf_factor_from_gram: C = J chol(J X J)^T J, J reversing indices: the
 * lower-triangular C with C^T C = X (streamable: noise t only needs the past).
 * O(T^3). Returns NULL with MF_ERROR_NUMERICAL when X is not positive
 * definite.
 */
double *mf_factor_from_gram(const double *X, guint T, GError **error);

G_END_DECLS

#endif /* DPG_MF_STRATEGY_H */
