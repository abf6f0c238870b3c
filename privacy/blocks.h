/*
 * privacy/blocks.h: per-victim blocks X_u, the result of an accounting before
 * any sensitivity is taken.
 */
#ifndef DPG_PRIVACY_BLOCKS_H
#define DPG_PRIVACY_BLOCKS_H

#include <glib.h>

#include "privacy/base.h"

G_BEGIN_DECLS

/*
 * Units used throughout this section: the attacker knowledge is
 * O = A G + B Z with A in units of the clipping norm Delta (a clipped
 * gradient has norm <= Delta) and B in units of standard normals. Then the
 * victim's T x T block X_u of X = (B^+ A)^T (B^+ A) gives mu = sens directly:
 * D-SGD with noise std sigma*Delta has X_u = I/sigma^2 under LDP.
 */

/* What a node is to an accounting. */
typedef enum {
  PRIV_NODE_PROTECTED,   /* a victim with a finite X_u */
  PRIV_NODE_UNPROTECTED, /* a victim the attacker sees without noise: mu = +inf */
  PRIV_NODE_ATTACKER,    /* a member of the attacker set, or a node whose
                            injections it knows (PrivStructuredProblem.relays):
                            not a victim */
  /* A victim double precision cannot account: its range decision is too
   * close to the threshold or ill-conditioned, or its mu exceeds
   * PRIV_MU_RESOLVABLE_MAX (see privacy/range.c). No protection is claimed
   * and no number given: mu = +inf, like UNPROTECTED. */
  PRIV_NODE_UNRESOLVED,
} PrivNodeStatus;

/* Above this mu, a finite number is reported as PRIV_NODE_UNRESOLVED: no
 * protection (epsilon is astronomic), and a number double precision does not
 * support at the conditioning that produces it. */
#define PRIV_MU_RESOLVABLE_MAX 1e8
/* What outputs say next to an UNRESOLVED victim. */
#define PRIV_UNRESOLVED_NOTE "no protection: mu > 1e8 or not resolvable in double precision"

/*
 * The result of an accounting before any sensitivity is taken: for every node
 * u its status and its T x T block X_u (row-major at X + u*T*T, in the units
 * above, divided by scale^2; zeros for attackers and unprotected victims).
 * scale is 1 unless an accountant kept the noise multiplier out of X because
 * X / sigma^2 would leave the double range (sigma = 1e-200 makes it 1e400):
 * then the true block is X_u / scale^2 and mu = sqrt(sens^2(X_u)) / scale
 * (sensitivities are homogeneous of degree 1 in X), which
 * priv_account_report does. Readers of X must honour it.
 */
typedef struct {
  guint n;                /* nodes */
  guint T;                /* gradient steps (the blocks are T x T) */
  double *X;              /* n * T * T doubles */
  PrivNodeStatus *status; /* n entries */
  double scale;           /* > 0; the true blocks are X / scale^2 (usually 1) */
  /* The largest condition number (largest over smallest kept eigenvalue or
   * pivot^2) of the message covariances the engine factored (the W-power
   * engine: largest message variance over smallest kept innovation
   * eigenvalue, since it forms innovations by subtraction), 0 where the
   * engine does not measure it. The blocks' rounding error relative to their
   * largest entry is of the order of DBL_EPSILON * cond: what tests and
   * cross-engine comparisons derive their tolerance from. Diagnostic only. */
  double cond;
} PrivBlocks;

/* priv_blocks_new: zero blocks, every node PROTECTED, scale 1. Errors:
 * PRIV_ERROR_MEMORY, PRIV_ERROR_INVALID_ARGUMENT (n or T is 0). O(n T^2). */
PrivBlocks *priv_blocks_new(guint n, guint T, GError **error);
void priv_blocks_free(PrivBlocks *blocks);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivBlocks, priv_blocks_free)
/* The block of node @u (NULL when u >= n). */
const double *priv_blocks_get(const PrivBlocks *blocks, guint u);

G_END_DECLS

#endif /* DPG_PRIVACY_BLOCKS_H */
