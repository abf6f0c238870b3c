/*
 * privacy/internal.h: helpers shared by the files of privacy/ (not public).
 */
#ifndef DPG_PRIVACY_INTERNAL_H
#define DPG_PRIVACY_INTERNAL_H

#include <cblas.h>
#include <lapacke.h>

#include "mf/base.h"
#include "privacy/privacy.h"
#include "spec/spec.h"

/* a1*b1 + a2*b2 + a3*b3, saturating at G_MAXSIZE (memory estimates of the
 * accounting, privacy/account.c). */
gsize priv_size_sum3(gsize a1, gsize b1, gsize a2, gsize b2, gsize a3, gsize b3);

/*
 * Fails with PRIV_ERROR_MEMORY when @bytes exceeds @max_bytes (0 = physical
 * memory), naming @what and the amount needed so the user can shrink T or n.
 */
gboolean priv_check_budget(gsize bytes, gsize max_bytes, const char *what, GError **error);

/*
 * The options both accountants (the dense reduction and the stream) share,
 * zeros replaced by their defaults: clipping norm 1, rank_tol 1e-10,
 * range_tol 1e-8. FALSE when one is not positive or the clipping norm is not
 * finite; the caller words the error, naming its own options. O(1).
 */
gboolean priv_options_resolve(double *clip, double *rank_tol, double *range_tol);

/* g_try_malloc0 of rows*cols doubles; NULL with PRIV_ERROR_MEMORY on failure. */
double *priv_matrix_new(gsize rows, gsize cols, GError **error);

/* Rows of an attacker's view, read-only: row i has entries
 * start[i] .. start[i+1]-1 of cols/vals, the first ngrad[i] gradient columns
 * (t*n + u), the rest noise ids (state variables included), coefficients in
 * units of standard normals. */
typedef struct {
  const gsize *start;
  const guint32 *ngrad;
  const guint32 *cols;
  const double *vals;
} PrivRowPool;

/*
 * PrivRows: the growable store of such rows (privacy/rowset.c), the attacker
 * knowledge's and the pooled rows' (PrivRowSet). A row is written as one or
 * more runs of entries (priv_rows_extend) closed by priv_rows_end. Row ids
 * count from 0 in order; ngrad->len is the number of rows.
 */
typedef struct {
  GArray *start; /* gsize, n_rows + 1 */
  GArray *ngrad; /* guint32, n_rows */
  GArray *cols;  /* guint32 */
  GArray *vals;  /* double */
} PrivRows;

/* An empty store; release with priv_rows_clear. O(1). */
void priv_rows_init(PrivRows *r);
/* Frees what @r holds (not @r itself). O(1). */
void priv_rows_clear(PrivRows *r);
/* Empties @r, keeping its capacity. O(1). */
void priv_rows_reset(PrivRows *r);
/* Appends @len entries (@cols, @vals; NULL when @len is 0) to the row being
 * written. Amortized O(len). */
void priv_rows_extend(PrivRows *r, const guint32 *cols, const double *vals, gsize len);
/* Closes the row being written, its first @ngrad entries gradient columns;
 * its id. O(1). */
guint priv_rows_end(PrivRows *r, guint32 ngrad);
/* A read-only view of @r, valid until its next change. O(1). */
PrivRowPool priv_rows_pool(const PrivRows *r);

/* @v's provenance as a row's entries: @cols (guint32) and @vals (double)
 * emptied, then filled with the gradient part first (the iterator's order)
 * and the noise part, zeros dropped; returns how many are gradient columns.
 * O(entries of @v). */
guint32 priv_linvec_entries(const SimLinvec *v, GArray *cols, GArray *vals);

/*
 * Records that @blocks' X are the true blocks times @scale^2 (@scale > 0 and
 * finite; see PrivBlocks.scale), then divides X by scale^2 when every nonzero
 * entry stays a normal double (scale becomes 1: the common case, and what the
 * tests compare); otherwise the factor stays out of X, where it can neither
 * underflow to a zero block nor overflow to inf. O(n T^2).
 */
void priv_blocks_set_scale(PrivBlocks *blocks, double scale);

/*
 * priv_scale_exponents: the one rule of the scale-free accounting (dense and
 * streaming accountants alike). @a, @b: the largest gradient coefficient (in
 * units of Delta) and noise coefficient seen. *@scale is FALSE for ordinary
 * runs (both within 2^+-200 and within 2^100 of each other, or either not
 * positive and finite): nothing to do, results bit-identical. Otherwise
 * *@ea, *@eb are their binary exponents: scaling gradients by 2^-ea and noise
 * by 2^-eb is exact and leaves every relative decision unchanged, and
 * X is then 4^(eb - ea) times the true one. Errors: PRIV_ERROR_NUMERICAL when
 * they are more than 2^1000 apart (mu would leave the doubles). O(1).
 */
gboolean priv_scale_exponents(double a, double b, gboolean *scale, int *ea, int *eb,
                              GError **error);

/*
 * priv_check_nodes: the nodes of a structured problem: *@n, the size of its
 * first gossip matrix, once every gossip matrix is given with that size and
 * the attacker set is nonempty, within the n nodes and without repeats.
 * @p has n_gossip >= 1. Errors: PRIV_ERROR_INVALID_ARGUMENT saying which
 * rule fails. O(n_gossip + n + n_attackers).
 */
gboolean priv_check_nodes(const PrivStructuredProblem *p, guint *n, GError **error);

/* @x rounded up to the smallest positive double when @truth_positive and @x
 * underflowed to 0: a positive privacy number is never printed as 0. */
static inline double priv_no_zero(double x, gboolean truth_positive) {
  return truth_positive && x == 0.0 ? 4.9406564584124654e-324 : x;
}

#endif /* DPG_PRIVACY_INTERNAL_H */
