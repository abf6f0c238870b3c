/*
 * mf/sensitivity.h: the sensitivity of a strategy C, or of a Gram matrix
 * X = C^T C, under cyclic (k,b)-participation: the Thm 5.2 bound and the
 * exact SDP value. The one part of mf/ that privacy/ uses: an accountant
 * prices a victim's block X_u with it.
 */
#ifndef DPG_MF_SENSITIVITY_H
#define DPG_MF_SENSITIVITY_H

#include <glib.h>

#include "mf/base.h"

G_BEGIN_DECLS

/* How the sensitivity of a block X_u is computed. */
typedef enum {
  MF_SENSITIVITY_BOUND, /* paper Thm 5.2: max_j sum_{s,t in pi_j} |X_u[s,t]| */
  MF_SENSITIVITY_EXACT, /* max_j max {<X_u[pi_j], U> : U psd, diag(U) <= 1} */
  MF_SENSITIVITY_AUTO,  /* exact when its estimated cost is small, else bound
                         * (mf_sensitivity_choose); resolved before pricing */
} MfSensitivity;

/* Parses "bound", "exact" or "auto". Errors: MF_ERROR_INVALID_ARGUMENT. */
gboolean mf_sensitivity_parse(const char *name, MfSensitivity *out, GError **error);
const char *mf_sensitivity_name(MfSensitivity kind);

/* The exact sensitivity's budget under auto: the estimated extra CPU
 * seconds (mf_sensitivity_exact_seconds) at or below which auto prices
 * exactly. A second is small next to any run a user waits for, and keeps a
 * test suite of small runs from slowing down noticeably. */
#define MF_SENSITIVITY_AUTO_SECONDS 1.0

/*
 * mf_sensitivity_exact_seconds: the estimated CPU seconds the exact
 * sensitivity adds to pricing @n_blocks victim blocks of T = k @b steps:
 * n_blocks b k^3 x 1.2e-7 s, one k x k SDP per pattern. The constant is the
 * slowest per-victim cost measured (Florentine, PNDP, T = 100, b = 1: 1.8 CPU
 * s for 15 victims on a loaded 2-core EPYC VM, docs/design.md "Which
 * sensitivity"); far victims converge in a sweep or two, so the estimate
 * is high on large graphs (10^4 nodes, T = 20: 9.6 s estimated, 0.6 s
 * measured), which only keeps the bound. 0 when b = 0 or b does not divide T.
 * O(1).
 */
double mf_sensitivity_exact_seconds(guint64 n_blocks, guint T, guint b);

/*
 * mf_sensitivity_choose: the one rule of the default sensitivity. @asked
 * bound or exact is kept; auto becomes exact when
 * mf_sensitivity_exact_seconds(@n_blocks, @T, @b) <= MF_SENSITIVITY_AUTO_SECONDS,
 * bound otherwise. Both are sound (exact <= bound, always); exact is the
 * smaller. @seconds (out, optional): the estimate. O(1).
 */
MfSensitivity mf_sensitivity_choose(MfSensitivity asked, guint64 n_blocks, guint T, guint b,
                                    double *seconds);

/*
 * mf_sensitivity2_gram: the bound form of sens_Pi^2 for X = C^T C
 * (T x T, T = k*b): max over j in [0,b) of sum_{s,t in pi_j} |X[s,t]|
 * (paper Thm. "main", docs/design.md "Participation"). O(k^2 b). Returns NaN when
 * T != k*b or k, b is 0.
 */
double mf_sensitivity2_gram(const double *X, guint T, guint k, guint b);

/* Same for a T x T strategy matrix C (X = C^T C, only the needed entries are
 * formed): O(k^2 b T). Returns NaN on bad sizes. Computed on C / 2^e and
 * scaled back, so entries of 1e154 or 1e-300 neither overflow nor
 * underflow on the way; +inf when the value itself overflows, 0 when it is
 * below the normal range (callers refuse a C of zero sensitivity). */
double mf_sensitivity2(const double *C, guint T, guint k, guint b);

/* Outcome of mf_sdp_max. */
typedef struct {
  double lower;       /* <X, V V^T> of the best primal point found */
  double upper;       /* certified dual bound (the value returned) */
  guint rank;         /* columns p of the Burer-Monteiro factor V */
  guint sweeps;       /* coordinate sweeps performed */
  gboolean converged; /* (upper - lower) <= tol * max(1, |upper|) */
} MfSdpInfo;

/*
 * mf_sdp_max: max { <X, U> : U psd, diag(U) <= 1 } for a symmetric positive
 * semidefinite k x k @X (row-major): the exact squared sensitivity of one
 * participation pattern. Burer-Monteiro factor U = V V^T with k x p V,
 * p = ceil(sqrt(2k)) + 1 (with p(p+1)/2 > k, local optima are global for
 * almost every X; the certificate below covers the exceptions),
 * rows of unit norm, maximized by exact block-coordinate steps (the "mixing
 * method", Wang, Chang & Kolter 2017) from a fixed pseudo-random start
 * (deterministic). The result is certified by the dual: with
 * y_i = max(0, (X V V^T)_ii) and l = lambda_min(Diag(y) - X),
 * sum_i y_i + k max(0, -l) >= optimum, and the value returned is the least of
 * that certificate and sum_{s,t} |X[s,t]| (also an upper bound): never below
 * the optimum, never above the Thm 5.2 bound, and equal to it when X is
 * entrywise non-negative. Works on X / 2^e with max |X| in [1/2, 1) (exact)
 * and scales back, so X of 1e200 or 1e-300 neither overflows the mixing
 * steps nor stops early. Stops when the gap to the primal value is
 * <= @tol * max(1, |value|) (@tol > 0, e.g. 1e-9) or after 20000 sweeps
 * (info->converged = FALSE, the certified bound is still returned).
 * O(k^2 p) per sweep, O(k^3) per certificate.
 * @info: (out) (optional).
 * Returns: the value, or NaN with @error set (MF_ERROR_INVALID_ARGUMENT:
 * k = 0, tol <= 0, non-finite X; MF_ERROR_NUMERICAL: eigensolver failure).
 */
double mf_sdp_max(const double *X, guint k, double tol, MfSdpInfo *info, GError **error);

/*
 * mf_sdp_certify: the dual certificate of mf_sdp_max for a given factor:
 * with y_i = max(0, (X V V^T)_ii) and l = lambda_min(Diag(y) - X), *@upper
 * = min(sum_i y_i + k max(0, -l), sum_{s,t} |X[s,t]|) >= max { <X, U> : U
 * psd, diag(U) <= 1 }, for any k x p @V (row-major) with rows of norm <= 1.
 * So <X, V V^T> <= optimum <= *@upper bounds how far V is from optimal.
 * Returns: FALSE with MF_ERROR_NUMERICAL when the eigensolver fails.
 * O(k^2 p + k^3).
 */
gboolean mf_sdp_certify(const double *X, guint k, const double *V, guint p, double *upper,
                        GError **error);

/*
 * mf_gram_sensitivity2: sens^2 of a victim's T x T block @X under cyclic
 * (k,b)-participation, T = k * @b: the max over offsets j in [0, b) of the
 * pattern value on pi_j = {j, j+b, ..., j+(k-1)b}: the Thm 5.2 bound
 * (O(T^2 / b)), or the exact SDP value (mf_sdp_max with tolerance 1e-9 on
 * each k x k pattern, O(b k^3) per certificate). exact <= bound always.
 * @kind auto is mf_sensitivity_choose's for this one block.
 * Returns: TRUE with *@out set; FALSE with MF_ERROR_INVALID_ARGUMENT (b = 0
 * or not dividing T) or the errors of mf_sdp_max.
 */
gboolean mf_gram_sensitivity2(const double *X, guint T, guint b, MfSensitivity kind, double *out,
                              GError **error);

/*
 * mf_normalized_copy: C / 2^e (g_malloc'd), 2^e the power of two with
 * max |C| in [1/2, 1): the same mechanism as C (MF-D-SGD's noise nu C^-1 z
 * with nu proportional to sens(C) does not change when C is multiplied by a
 * positive number), exact (a power of two introduces no rounding), and safe
 * from the overflow of C^T C (entries 1e154) or its underflow (entries
 * 1e-300). @C all zero or not finite is copied as is. @n: the number of
 * entries. O(n).
 */
double *mf_normalized_copy(const double *C, gsize n);

G_END_DECLS

#endif /* DPG_MF_SENSITIVITY_H */
