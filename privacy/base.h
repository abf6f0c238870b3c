/*
 * privacy/base.h: the conventions and the PRIV_ERROR domain of privacy/,
 * the privacy accounting. The noise strategies it accounts for (C_local,
 * its sensitivity) are mf/'s; privacy/ uses mf/ for sensitivity and for
 * two helpers of mf/base.h (mf_doubles_bytes, mf_fill_upper_from_lower).
 *
 * Matrices are dense, row-major arrays of doubles (T x T matrices are indexed
 * M[s * T + t]). Time is 0-based: rounds 0 .. T-1. Participation: cyclic
 * (k,b)-participation as in mf/base.h.
 *
 * Conventions: public names carry the priv_ prefix (types Priv*); errors travel
 * as GError in the PRIV_ERROR domain; library code never prints or exits. Each
 * function owns what it allocates unless its comment says otherwise: arrays
 * returned by priv_* functions are g_malloc'd and freed with g_free.
 *
 * The rule every privacy number here follows: a guarantee that cannot be
 * computed reliably (underflow, overflow, cancellation, a failed solver) is an
 * error or "no protection" (+inf), never a smaller number. So: scale factors
 * (sigma, the size of C_local) are kept out of quantities that would leave the
 * double range (PrivBlocks.scale) and applied last; a product that overflows
 * is +inf; a positive quantity that underflows is rounded up to the smallest
 * positive double, not to 0; NaN never becomes 0 (beware MAX(NaN, 0) = 0).
 * tests/privacy/test_extremes.c feeds each computation its extreme inputs.
 */
#ifndef DPG_PRIVACY_BASE_H
#define DPG_PRIVACY_BASE_H

#include <glib.h>

G_BEGIN_DECLS

#define PRIV_ERROR (priv_error_quark())
GQuark priv_error_quark(void);

typedef enum {
  PRIV_ERROR_INVALID_ARGUMENT, /* a parameter out of its documented range */
  PRIV_ERROR_MEMORY,           /* the problem needs more memory than allowed */
  PRIV_ERROR_NUMERICAL,        /* a factorization failed (matrix not positive definite...) */
} PrivError;

G_END_DECLS

#endif /* DPG_PRIVACY_BASE_H */
