/*
 * cli/audit_internal.h: internal to cli/audit*.c: the canary and the
 * Clopper-Pearson bound of the distinguishing audit.
 */
#ifndef DPG_CLI_AUDIT_INTERNAL_H
#define DPG_CLI_AUDIT_INTERNAL_H

#include <glib.h>

G_BEGIN_DECLS

/*
 * cli_audit_canary: the victim's T gradients (a T x @p array, g_free)
 * attaining max {<X, U> : U psd, diag(U) <= 1} for the T x T block @X as
 * U = V V^T with unit rows in @q <= @p columns (the rest zero): the mixing
 * method (Wang, Chang and Kolter 2017), the factorization mf_sdp_max
 * certifies, from a fixed start (deterministic). Row t has norm Delta = 1.
 * O(sweeps T^2 q), at most 2000 sweeps.
 */
double *cli_audit_canary(const double *X, guint T, guint q, gsize p);

/*
 * cli_audit_cp_mu_low: a 95% lower confidence bound on the GDP mu from the
 * @N scores of each world (@s0 without, @s1 with the canary; N >= 4): the
 * threshold test s > tau, tau chosen on the first half of each world's
 * scores, evaluated on the second half with one-sided 97.5% Clopper-Pearson
 * upper bounds on its FPR and FNR (jointly 95%, Bonferroni), converted by
 * mu >= Phi^-1(1 - FPR) - Phi^-1(FNR) (the mu-GDP trade-off curve);
 * 0 when that is negative. O(N^2).
 */
double cli_audit_cp_mu_low(const double *s0, const double *s1, guint N);

G_END_DECLS

#endif /* DPG_CLI_AUDIT_INTERNAL_H */
