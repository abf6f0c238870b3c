/*
 * mf/toeplitz.h: lower-triangular Toeplitz strategies, scored on H's
 * spectral form, and their banded fit.
 */
#ifndef DPG_MF_TOEPLITZ_H
#define DPG_MF_TOEPLITZ_H

#include <glib.h>

#include "mf/base.h"
#include "mf/gram.h"
#include "mf/strategy.h"

G_BEGIN_DECLS

/*
 * mf_sensitivity2_toeplitz: mf_sensitivity2 of the lower-triangular
 * Toeplitz C with first column @c[0 .. @width) (zero beyond), T = @k * @b,
 * from cumulative autocorrelations of c: O(k T) time, O(T) memory instead of
 * O(k^2 b T) on T^2 entries. NaN on bad sizes.
 */
double mf_sensitivity2_toeplitz(const double *c, guint width, guint T, guint k, guint b);

/*
 * mf_loss_toeplitz: mf_loss of the lower-triangular Toeplitz C
 * with first column @c[0 .. @width), c[0] != 0, on the H of @g: the first
 * column a of C^-1 by series inversion, then
 * tr(H (C^T C)^-1) = sum_m (T - m) p_m^T M p_m with p_m(l) = l^e sum_{j<=m}
 * a_j l^{m-j} (the m-th block of the block-Toeplitz workload times C^-1 kron
 * I, in the eigenbasis of W). O(T min(width, T) + n^2 T) time, O(T + n^2)
 * memory: no T x T matrix. Returns NaN with @error set
 * (MF_ERROR_INVALID_ARGUMENT on sizes, MF_ERROR_NUMERICAL when C is
 * singular or the loss not finite).
 */
double mf_loss_toeplitz(const MfGramSpectral *g, const double *c, guint width, guint k, guint b,
                        GError **error);

/*
 * mf_toeplitz_trace: tr(C^-T H C^-1) for the lower-triangular Toeplitz
 * C^-1 with first column @a (g->T entries), from the spectral form of H:
 * sum_m (T - m) p_m^T M p_m, p_m(l) = l^e sum_{j<=m} a_j l^(m-j). O(n^2 T)
 * time, O(n^2) memory; from a Frobenius form (mf_gram_spectral_from_
 * frobenius), sum_m (T - m) (A F A^T)[m,m] with A = C^-1: O(T^3) time,
 * O(T^2) memory.
 */
double mf_toeplitz_trace(const MfGramSpectral *g, const double *a);

/*
 * mf_toeplitz_trace_grad: mf_toeplitz_trace(@g, @a) and its
 * gradient in a, written to @ga (g->T doubles): the adjoint of the p_m
 * recursion. O(n^2 T) time, O(n T) memory (Frobenius form: O(T^3), O(T^2)).
 */
double mf_toeplitz_trace_grad(const MfGramSpectral *g, const double *a, double *ga);

/*
 * mf_toeplitz_banded_loss: the loss of the lower-triangular Toeplitz C
 * with first column @c[0 .. @w) under (@k, @b)-participation (T = g->T = k
 * b), and when @grad is not NULL its gradient in c (w doubles). With w <= b,
 * X = C^T C has no entry between two participations of a record and
 * sens_Pi^2 = k |c|^2 is smooth; wider bands add |X[s,t]| terms, whose
 * gradient is a subgradient at X[s,t] = 0. O(n^2 T + k T + T w + k w^2 / b)
 * time, O(n T) memory (two banded back substitutions carry d tau / d a to
 * c). NaN on bad sizes or c[0] = 0.
 */
double mf_toeplitz_banded_loss(const MfGramSpectral *g, const double *c, guint w, guint k, guint b,
                               double *grad);

/*
 * mf_toeplitz_fit: the banded Toeplitz strategy of band @w <= T
 * (C[t,s] = c[t-s] for t - s < w, c[0] = 1: each node keeps w - 1 past
 * noises) of smallest loss for the H of @g and (k,b)-participation, by
 * BFGS (GSL) on log(loss) with the exact gradient, from @c (w doubles, in:
 * the start, e.g. BSR's coefficients or a fit at a shorter horizon; out: the
 * fit). The loss is not convex in c: a local optimum. *@loss: its exact
 * loss. Errors: MF_ERROR_INVALID_ARGUMENT (sizes, w > T), MF_ERROR_NUMERICAL.
 * Complexity: O(n^2 T + T w) per evaluation, a few hundred evaluations.
 */
gboolean mf_toeplitz_fit(const MfGramSpectral *g, guint k, guint b, guint w, double *c,
                         double *loss, GError **error);

G_END_DECLS

#endif /* DPG_MF_TOEPLITZ_H */
