/*
 * mf/base.h: the conventions and the MF_ERROR domain of mf/, the
 * matrix-factorization design of MF-D-SGD's noise: which correlation C_local
 * the nodes draw their noise through (docs/design.md, "Mafalda").
 *
 * Matrices are dense, row-major arrays of doubles (T x T matrices are indexed
 * M[s * T + t]); n x n gossip matrices W are row-stochastic in practice but
 * nothing here requires it. Time is 0-based: rounds 0 .. T-1.
 *
 * Participation (docs/design.md, "Participation"): T = k * b rounds, k epochs of b
 * batches; a record participates in the rounds pi_j = {j, j+b, ..., j+(k-1)b}
 * for one offset j in [0, b) ("cyclic (k,b)-participation").
 *
 * Conventions: public names carry the mf_ prefix (types Mf*); errors travel
 * as GError in the MF_ERROR domain; library code never prints or exits. Each
 * function owns what it allocates unless its comment says otherwise: arrays
 * returned by mf_* functions are g_malloc'd and freed with g_free.
 *
 * A sensitivity calibrates noise, so it is never below the truth: a value
 * double precision cannot carry is raised (or the call fails), never lowered.
 */
#ifndef DPG_MF_BASE_H
#define DPG_MF_BASE_H

#include <glib.h>

G_BEGIN_DECLS

#define MF_ERROR (mf_error_quark())
GQuark mf_error_quark(void);

typedef enum {
  MF_ERROR_INVALID_ARGUMENT, /* a parameter out of its documented range */
  MF_ERROR_MEMORY,           /* the problem needs more memory than allowed */
  MF_ERROR_NUMERICAL,        /* a factorization failed (matrix not positive definite...) */
  MF_ERROR_NOT_CONVERGED,    /* an iterative method stopped before its tolerance */
  MF_ERROR_INFEASIBLE,       /* the constraints admit no solution */
} MfError;

/* mf_doubles_bytes: the bytes of @count doubles, G_MAXSIZE on overflow
 * (the memory estimates of mf/ and privacy/). O(1). */
gsize mf_doubles_bytes(gsize count);

/* mf_fill_upper_from_lower: copies the lower triangle of the n x n
 * row-major @A onto its upper one (a symmetric result computed by halves;
 * privacy/'s blocks use it too). O(n^2). */
void mf_fill_upper_from_lower(double *A, guint n);

G_END_DECLS

#endif /* DPG_MF_BASE_H */
