/*
 * mf/blt.h: buffered-linear-Toeplitz (BLT) strategies, scored on H's
 * spectral form, and their fit.
 */
#ifndef DPG_MF_BLT_H
#define DPG_MF_BLT_H

#include <glib.h>

#include "mf/base.h"
#include "mf/gram.h"

G_BEGIN_DECLS

/* Most buffers a BLT strategy may have (mf_blt_check). */
#define MF_BLT_MAX_BUFFERS 8

/*
 * mf_blt_check: whether @theta, @w (@d each) are a BLT strategy this
 * library handles: 1 <= d <= MF_BLT_MAX_BUFFERS, 0 < theta_i < 1 and
 * w_i finite, of either sign (a positive mixture of geometric sequences
 * cannot cancel the cross terms of the sensitivity under several
 * participations). FALSE with MF_ERROR_INVALID_ARGUMENT otherwise. O(d).
 */
gboolean mf_blt_check(const double *theta, const double *w, guint d, GError **error);

/*
 * mf_blt_coefficients: the first column c[0 .. @T) of the BLT strategy
 * (@theta, @w, @d buffers): c_0 = 1, c_j = sum_{i<d} w_i theta_i^(j-1) for
 * j >= 1. C n = z is then n_t = z_t - sum_i w_i s_{i,t} with the buffers
 * s_{i,t} = theta_i s_{i,t-1} + n_{t-1} (s_{i,0} = 0): d vectors per node
 * whatever T. O(T d).
 */
void mf_blt_coefficients(const double *theta, const double *w, guint d, guint T, double *c);

/*
 * mf_sensitivity2_blt: mf_sensitivity2 of the BLT strategy
 * (@theta, @w, @d, valid for mf_blt_check) under (@k,@b)-participation,
 * T = k b, from closed forms: X[s,t] = c_D + sum_{i,l} w_i w_l theta_l^D
 * G(theta_i theta_l, T - t - 1) (D = t - s >= 0, G(q, N) = sum_{m<N} q^m),
 * summed in absolute value over the k^2 pairs of each class. @grad
 * (nullable, 2d doubles, out): its gradient in (theta_0 .. theta_{d-1},
 * w_0 .. w_{d-1}) at the maximizing class (the first on ties; a
 * subgradient where some X[s,t] = 0). O(b k^2 d^2) time, O(d^2) memory.
 * NaN on bad sizes.
 */
double mf_sensitivity2_blt(const double *theta, const double *w, guint d, guint T, guint k, guint b,
                           double *grad);

/*
 * mf_blt_loss: the loss sens_Pi(C)^2 tr(H (C^T C)^-1) of the BLT
 * strategy (@theta, @w, @d valid for mf_blt_check) on the H of @g,
 * T = g->T = @k @b: a = C^-1 e_0 by the buffer recursion, the trace as
 * mf_toeplitz_trace (C is Toeplitz of full width), the sensitivity as
 * mf_sensitivity2_blt. @grad (nullable, 2d doubles, out): the exact
 * gradient in (theta, w): d tau / d c = -C^-T C^-T d tau / d a by two
 * transposed buffer recursions, then the chain rule through c_j = sum_i
 * w_i theta_i^(j-1). O(n^2 T + b k^2 d^2 + d T) time, O(n T) memory with
 * the gradient, O(T + n^2) without. NaN on bad sizes.
 */
double mf_blt_loss(const MfGramSpectral *g, const double *theta, const double *w, guint d, guint k,
                   guint b, double *grad);

/*
 * mf_blt_fit: the BLT strategy of @d buffers of smallest loss for the
 * H of @g and (@k,@b)-participation: BFGS (GSL) on log(loss) in
 * (logit theta, w) with the exact gradient, then Nelder-Mead through the
 * kinks of |X[s,t]|, from (@theta, @w) (in: the start, valid for
 * mf_blt_check; out: the fit, never worse than the start). Not convex:
 * a local optimum. *@loss (nullable): its exact loss.
 * Errors: MF_ERROR_INVALID_ARGUMENT (sizes, start), MF_ERROR_NUMERICAL
 * (loss not finite). Each evaluation as mf_blt_loss; at most 500
 * BFGS iterations and 200 d simplex steps.
 */
gboolean mf_blt_fit(const MfGramSpectral *g, guint k, guint b, guint d, double *theta, double *w,
                    double *loss, GError **error);

G_END_DECLS

#endif /* DPG_MF_BLT_H */
