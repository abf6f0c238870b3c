/*
 * sim/linvec.h: linear provenance ("linvec").
 *
 * Every vector a protocol builds is a linvec: numeric data in R^d (d = 0 in
 * accounting-only runs) together with its provenance, the exact coefficients
 * of the linear combination of gradient slots and noise variables it equals,
 * up to public constants such as the initial model (docs/design.md, "Linear
 * provenance"). Every operation updates data and provenance together, so any
 * protocol written with linvecs is a linear DL algorithm (paper, Def. 4.2) by
 * construction and its observed quantities are rows of O = A G + B Z
 * (paper, Def. "Attacker knowledge").
 *
 * Columns of A (gradient slots): slot (u, t) is node u's clipped gradient at
 * its t-th local step, column t * n + u (time-major, as in the paper).
 * Coefficients are per unit of the gradient vector itself; A in units of the
 * clipping norm Delta (docs/design.md, "Noise units") is Delta times these coefficients.
 * Columns of B (noise variables): variable k of the noise registry, one
 * standard-normal draw z_k per coordinate. Provenance is kept in units of
 * standard normals: adding coeff * N_k with N_k = std_k z_k stores coefficient
 * coeff * std_k on column k.
 *
 * None of these objects is thread-safe; a run owns its space and registry.
 */
#ifndef DPG_SIM_LINVEC_H
#define DPG_SIM_LINVEC_H

#include "sim/base.h"
#include "sim/noise.h"

G_BEGIN_DECLS

/** How a space stores provenance. Both give bit-identical coefficients. */
typedef enum {
  SIM_LIN_DENSE,  /* arrays over every column seen so far: fastest once
                     provenance is mixed over the network (gossip makes it so) */
  SIM_LIN_SPARSE, /* sorted (column, coefficient) lists, merged on axpy:
                     compact while few slots are involved */
  SIM_LIN_NONE,   /* numeric data only, no provenance: for training runs that
                     do no accounting (provenance over every gradient slot and
                     noise of a long run costs far more than the numbers).
                     Every operation updates the data and checks its
                     arguments as in the other storages; the provenance
                     updates are no-ops. Queries: sim_linvec_grad_coeff,
                     sim_linvec_noise_coeff and sim_linvec_dot return NAN,
                     sim_linvec_nnz returns 0, sim_linvec_row fails with
                     SIM_ERROR_INVALID_ARGUMENT, iterators yield nothing.
                     sim_lin_space_n_rounds is still maintained. */
} SimLinStorage;

/** The two halves of a provenance row; bit flags, combinable where stated. */
typedef enum {
  SIM_LIN_GRAD = 1,  /* gradient slots: a row of A */
  SIM_LIN_NOISE = 2, /* noise variables: a row of B */
  SIM_LIN_BOTH = 3,
} SimLinPart;

/**
 * A space: the network size and dimension shared by a family of linvecs, their
 * storage, the noise registry they draw on, and the rounds used so far.
 * Reference-counted; each linvec holds a reference to its space.
 */
typedef struct SimLinSpace SimLinSpace;
typedef struct SimLinvec SimLinvec;

/**
 * sim_lin_space_new: creates a space.
 * @noise: the run's noise registry (a reference is taken); the network size
 *   is the registry's.
 * @dim: d, the numeric dimension; 0 for accounting-only runs (no numeric data).
 * @storage: SIM_LIN_DENSE, SIM_LIN_SPARSE or SIM_LIN_NONE (data only).
 * @max_rounds: highest number of local steps a gradient slot may use, or 0
 *   for unbounded growth. Storage grows on demand either way; a bound only
 *   turns a runaway round counter into a SIM_ERROR_CAPACITY error. Whatever
 *   the bound, columns t * n + u must fit in 32 bits, so t < 2^32 / n.
 * @error: SIM_ERROR_INVALID_ARGUMENT for a NULL registry or unknown storage;
 *   SIM_ERROR_CAPACITY for a dim whose data could not be addressed.
 * Returns: (transfer full) the space (reference count 1), or NULL.
 * Complexity: O(1).
 */
SimLinSpace *sim_lin_space_new(SimNoiseRegistry *noise, gsize dim, SimLinStorage storage,
                               guint max_rounds, GError **error);
SimLinSpace *sim_lin_space_ref(SimLinSpace *space);
/** Drops a reference, freeing at zero (linvecs keep their space alive). */
void sim_lin_space_unref(SimLinSpace *space);
guint sim_lin_space_n_nodes(const SimLinSpace *space);
gsize sim_lin_space_dim(const SimLinSpace *space);
SimLinStorage sim_lin_space_storage(const SimLinSpace *space);
/** The registry (transfer none). */
SimNoiseRegistry *sim_lin_space_noise(const SimLinSpace *space);
/** The bound given at creation (0 = unbounded). */
guint sim_lin_space_max_rounds(const SimLinSpace *space);
/** 1 + the largest round t passed to sim_linvec_add_gradient so far (0 if
 * none): A needs n * n_rounds columns. O(1). */
guint sim_lin_space_n_rounds(const SimLinSpace *space);
/** Column t * n + u of gradient slot (u, t); no range check. In a space
 * that keeps a set of nodes (sim_lin_space_keep_nodes), t * n_kept + i for
 * the i-th kept node u (u must be kept). */
guint32 sim_lin_space_grad_column(const SimLinSpace *space, guint u, guint t);
/** Inverse of sim_lin_space_grad_column: u = column % n, t = column / n (u
 * the node id, also in a space that keeps a set of nodes). */
void sim_lin_space_grad_slot(const SimLinSpace *space, guint32 column, guint *u, guint *t);

/**
 * sim_lin_space_keep_nodes: the space accounts @keep's nodes only (the
 * local path's ball, docs/local-bounds.md, "The observer path's ball");
 * every other node is known: a colluder whose randomness and messages the
 * attackers have. The one place that decides what a known node's
 * provenance is:
 *   - its gradient slots, and every noise variable one of its nodes owns
 *     (its own noise, the secret of an edge it is an end of), add nothing
 *     to a provenance (the numeric data still get them);
 *   - a message it sends (sim_message_new_linvec with @from known) carries
 *     an empty provenance: its value is a known function of its own
 *     randomness and of what it received, so removing it from later rows
 *     is a row operation on the attackers' observations;
 *   - the gradient columns are those of the kept nodes only, t * n_kept +
 *     i for @keep[i], so an accountant over them is the ball's size, not
 *     the network's.
 * sim_lin_space_n_nodes stays the network's size (node ids, noise owners).
 * @keep: @n_keep >= 1 node ids, increasing, below the network size.
 * Errors: SIM_ERROR_INVALID_ARGUMENT for a bad list, a space that keeps a
 * set already, or one with linvecs or gradient rounds already (call it
 * before the first linvec). Complexity: O(n).
 */
gboolean sim_lin_space_keep_nodes(SimLinSpace *space, const guint *keep, guint n_keep,
                                  GError **error);
/**
 * sim_lin_space_hear_nodes: of the known nodes (not kept by
 * sim_lin_space_keep_nodes), @heard's messages keep their provenance: the
 * ball's shell (docs/local-bounds.md, "The observer path's ball"). Such a
 * node's gradients and noise still add nothing (they are known); what it
 * received from the kept nodes stays in its model and so in what it sends,
 * and a known node that is not heard still sends an empty provenance (its
 * message is a known function of its randomness and of what it received,
 * the heard nodes' messages to it among them: the view must observe those,
 * priv_observer_view_hear_sent, for the empty provenance to be a row
 * operation on the observations).
 * @heard: @n_heard >= 1 node ids, increasing, none of them kept.
 * Errors: SIM_ERROR_INVALID_ARGUMENT for a bad list, a space that keeps
 * every node or hears a set already, or one with linvecs already. O(n).
 */
gboolean sim_lin_space_hear_nodes(SimLinSpace *space, const guint *heard, guint n_heard,
                                  GError **error);
/**
 * sim_lin_space_nuisance_from: the certified LOWER bound's attacker on the
 * local path's ball (docs/local-bounds.md, "The observer path's ball: the
 * lower bound"), an attacker that knows less than the true one. In a space
 * that keeps a set of nodes (sim_lin_space_keep_nodes, called first):
 *   - a message one of @senders sends (sim_message_new_linvec) carries one
 *     fresh variable of kind SIM_NOISE_KIND_NUISANCE (std 1, owner the
 *     sender, round the message's) instead of an empty provenance: an
 *     unknown of arbitrary law standing for its true content, which an
 *     accountant must project out (never treat as Gaussian noise). One
 *     variable per message object: a message delivered to several nodes is
 *     one value;
 *   - a noise variable is known (adds nothing) only when NONE of its owners
 *     is kept: a secret of an edge with one end kept stays unknown noise.
 * Every other node not kept still sends an empty provenance: the caller
 * must make sure such messages never reach a kept node.
 * @senders: @n_senders node ids, none kept. Errors:
 * SIM_ERROR_INVALID_ARGUMENT for a space that keeps every node, has its
 * senders already or has linvecs, or a bad sender. Complexity: O(n).
 */
gboolean sim_lin_space_nuisance_from(SimLinSpace *space, const guint *senders, guint n_senders,
                                     GError **error);
/** Nuisance variables sim_lin_space_nuisance_from could not register (the
 * registry full): 0, or the provenance is unusable. O(1). */
guint64 sim_lin_space_nuisance_failures(const SimLinSpace *space);
/** The nodes whose gradient slots are columns: n, or sim_lin_space_keep_nodes's
 * n_keep. O(1). */
guint sim_lin_space_n_kept(const SimLinSpace *space);
/** Node @u's index among the kept nodes (u itself when every node is kept),
 * G_MAXUINT for a known node. u >= n is a programming error. O(1). */
guint sim_lin_space_kept_index(const SimLinSpace *space, guint u);

/**
 * sim_lin_space_n_live: linvecs of @space currently allocated (every
 * sim_linvec_new/dup not yet freed): the space keeps a registry of them for
 * sim_lin_space_rebase. O(1).
 */
guint sim_lin_space_n_live(const SimLinSpace *space);

/**
 * sim_lin_space_live: live linvec @i (0 <= @i < sim_lin_space_n_live), in
 * the registry's order, for reading (a rebase's planning). O(1).
 */
const SimLinvec *sim_lin_space_live(const SimLinSpace *space, guint i);

/**
 * SimLinRebaseFunc: one transition row of a rebase. State variable @state
 * now stands for @before's provenance (gradient slots and noise variables,
 * possibly earlier state variables); @before is NULL for a retained noise
 * variable carried over under its own id (state == that id: an identity
 * row). Return FALSE with @error set to stop the rebase.
 */
typedef gboolean (*SimLinRebaseFunc)(SimNoiseId state, const SimLinvec *before, gpointer user_data,
                                     GError **error);

/**
 * sim_lin_space_rebase: a checkpoint of the streaming accountant (docs/design.md,
 * "Streaming accountant"). Every live linvec with a nonzero provenance gets a
 * fresh state variable k (sim_noise_register_state): @func sees its
 * provenance, then the provenance becomes 1.0 z_k (gradient part empty).
 * Numeric data are untouched. Then @func sees one identity row per retained
 * noise variable (sim_noise_retained). After a rebase a provenance holds
 * only state variables, retained ones, and what was added since: the
 * simulation no longer carries the whole past.
 * Linvecs are visited in the registry's order (a pure function of the
 * run's sequence of new/free).
 * Errors: SIM_ERROR_INVALID_ARGUMENT unless the storage is SIM_LIN_SPARSE
 *   (a dense row would span every id ever registered); SIM_ERROR_CAPACITY
 *   from the registry; @func's errors (then the linvecs already visited are
 *   rebased, the others not: the space is unusable for accounting).
 * Complexity: O(sum of the live provenance lengths + retained).
 */
gboolean sim_lin_space_rebase(SimLinSpace *space, SimLinRebaseFunc func, gpointer user_data,
                              GError **error);

/**
 * SimLinKeepFunc: whether noise variable @id stays in the provenances as it
 * is through a rebase (sim_lin_space_rebase_keeping) instead of being folded
 * into a state variable. Never TRUE for a state or retained variable.
 */
typedef gboolean (*SimLinKeepFunc)(SimNoiseId id, gpointer user_data);

/**
 * sim_lin_space_rebase_keeping: sim_lin_space_rebase, except that the noise
 * terms @keep selects stay in each provenance, beside the state variable
 * that stands for the rest (@func sees that rest; a linvec whose provenance
 * is all kept gets no state). The streaming accountant keeps fresh noise no
 * observation has touched yet: it is independent of the past, so it can
 * enter the next period as fresh noise rather than as state, which keeps
 * the state small for a protocol with many noisy payloads in flight
 * (Zip-DL). @keep NULL keeps nothing (= sim_lin_space_rebase).
 * Errors: as sim_lin_space_rebase.
 * Complexity: O(sum of the live provenance lengths + retained) calls.
 */
gboolean sim_lin_space_rebase_keeping(SimLinSpace *space, SimLinKeepFunc keep,
                                      SimLinRebaseFunc func, gpointer user_data, GError **error);

/**
 * sim_linvec_new: the zero vector with empty provenance.
 * Returns: (transfer full) a linvec holding a reference to @space; free with
 *   sim_linvec_free. Complexity: O(d).
 */
SimLinvec *sim_linvec_new(SimLinSpace *space);
/** sim_linvec_dup: a new linvec equal to @x (data and provenance). O(d + nnz)
 * (dense: O(d + columns seen by x)). */
SimLinvec *sim_linvec_dup(const SimLinvec *x);
/** Frees @v and drops its space reference; NULL is a no-op. */
void sim_linvec_free(SimLinvec *v);
/** The space of @v (transfer none). */
SimLinSpace *sim_linvec_space(const SimLinvec *v);

/*
 * Operations. Each updates the numeric data and the provenance together.
 * Errors (SIM_ERROR_INVALID_ARGUMENT unless stated) are for values that may
 * come from configuration or protocol arithmetic; on error nothing changes.
 * NULL linvecs are programming errors (g_return_val_if_fail, returns FALSE).
 * Cancellation: a coefficient that becomes exactly 0 (or -0) is dropped by
 * sparse storage and kept as a stored 0 by dense storage; nonzero counts,
 * iteration and getters hide the difference (a getter may return -0.0, which
 * compares equal to 0). Every nonzero coefficient is the
 * same double in both storages: both evaluate y + a * x once per column.
 */

/** sim_linvec_zero: v = 0 (data and provenance). O(d). */
void sim_linvec_zero(SimLinvec *v);
/**
 * sim_linvec_copy: dst = src (set-from / assign); dst == src is a no-op.
 * @error: dst and src from different spaces.
 * Complexity: O(d + nnz(src)) (dense: columns seen by src).
 */
gboolean sim_linvec_copy(SimLinvec *dst, const SimLinvec *src, GError **error);
/**
 * sim_linvec_scale: v = a v.
 * @a: finite; 0 clears the provenance.
 * @error: a non-finite.
 * Complexity: O(d + nnz) (dense: columns seen).
 */
gboolean sim_linvec_scale(SimLinvec *v, double a, GError **error);
/**
 * sim_linvec_axpy: y = y + a x. x == y is allowed (y = y + a y, evaluated per
 * column as above). a == 0 leaves y untouched.
 * @error: a non-finite; x and y from different spaces.
 * Complexity: dense O(d + columns seen by x); sparse O(d + nnz(x) + nnz(y)):
 * columns x shares with y are updated in place, the rest merged from the
 * back without a temporary (no entry moves when y already has all of x's
 * columns, the usual case once gossip has mixed the network).
 */
gboolean sim_linvec_axpy(SimLinvec *y, double a, const SimLinvec *x, GError **error);
/**
 * sim_linvec_combine: y = sum_i a[i] x[i] (a gossip average), with the
 * numbers and provenance of sim_linvec_zero followed by n sim_linvec_axpy
 * calls in order, bit for bit, but one pass over y's data per 4 inputs
 * instead of one per input.
 * @a, @x: @n weights (finite) and linvecs of y's space, none of them y.
 * @error: a weight non-finite, an input of another space or equal to y;
 *   y is unchanged then.
 * Complexity: O(n d) arithmetic, O(n d / 4 + n d) memory traffic; provenance
 * as n sim_linvec_axpy calls.
 */
gboolean sim_linvec_combine(SimLinvec *y, guint n, const double *a, const SimLinvec *const *x,
                            GError **error);
/**
 * sim_linvec_add_gradient: v = v + coeff g_{u,t}: one gradient-slot term of
 * paper eq. (MF-D-SGD), column t * n + u of A.
 * @coeff: finite.
 * @u: node, < n. @t: node u's local step (grows the space's n_rounds).
 * @g: the clipped gradient (d values); NULL exactly when d = 0.
 * @error: SIM_ERROR_INVALID_ARGUMENT for coeff, u, or g inconsistent with d;
 *   SIM_ERROR_CAPACITY for t >= max_rounds (when bounded) or a column that
 *   does not fit in 32 bits.
 * Complexity: O(d) + dense O(1) amortized (growth) / sparse O(log nnz + moved
 * entries) (O(log nnz) when appending the newest slot, the usual case).
 */
gboolean sim_linvec_add_gradient(SimLinvec *v, double coeff, guint u, guint t, const double *g,
                                 GError **error);
/**
 * sim_linvec_add_noise: v = v + coeff N_k = v + (coeff std_k) z_k. The
 * provenance gains coeff * std_k on column k of B; the data gains
 * (coeff * std_k) * z.
 * @coeff: finite.
 * @k: a registered noise id.
 * @z: the realized standard-normal sample of z_k (d values; the caller must
 *   pass the same sample every time it uses k); NULL exactly when d = 0.
 * @error: coeff non-finite, k unknown, z inconsistent with d.
 * Complexity: as sim_linvec_add_gradient.
 */
gboolean sim_linvec_add_noise(SimLinvec *v, double coeff, SimNoiseId k, const double *z,
                              GError **error);
/**
 * sim_linvec_add_noise_sum: v = v + sum_i coeffs[i] N_{ids[i]}, with the
 * numeric part given already combined: the data gains @scale * @sum, where
 * the caller guarantees @scale * @sum = sum_i coeffs[i] std_i z_i (the same
 * samples it would pass to sim_linvec_add_noise). The provenance gains
 * coeffs[i] std_i on each column ids[i], as @count calls of
 * sim_linvec_add_noise would give. For protocols that combine many past
 * noises at once (MF-D-SGD's C^-1 z, computed a block of steps at a time
 * with one matrix product instead of one d-long pass per past noise).
 * @coeffs, @ids: @count entries (may repeat an id; NULL when count = 0).
 * @sum: d values; NULL exactly when d = 0.
 * @error: a coefficient or @scale non-finite, an id unknown, sum
 *   inconsistent with d.
 * Complexity: O(d + count) dense; sparse as count sim_linvec_add_noise calls
 * without their O(d) parts.
 */
gboolean sim_linvec_add_noise_sum(SimLinvec *v, guint count, const double *coeffs,
                                  const SimNoiseId *ids, double scale, const double *sum,
                                  GError **error);
/**
 * sim_linvec_add_public: data = data + a c, provenance unchanged: for public
 * constants only (initial model, public offsets) that the attacker knows and
 * that therefore belong to neither A nor B. With d = 0 it is a no-op and c
 * may be NULL.
 * @error: a non-finite, or c NULL while d > 0. Complexity: O(d).
 */
gboolean sim_linvec_add_public(SimLinvec *v, double a, const double *c, GError **error);

/*
 * Read access.
 */
/** The numeric data, d doubles (NULL when d = 0). Writing through it is
 * allowed for public constants only. */
double *sim_linvec_data(SimLinvec *v);
const double *sim_linvec_const_data(const SimLinvec *v);
gsize sim_linvec_dim(const SimLinvec *v);
/** Coefficient of gradient slot (u, t); 0 if absent (also for t beyond any
 * round seen). u >= n is a programming error (critical, returns 0).
 * Complexity: dense O(1), sparse O(log nnz). */
double sim_linvec_grad_coeff(const SimLinvec *v, guint u, guint t);
/** Coefficient of noise variable k, in units of the standard normal z_k (that
 * is, coeff * std_k summed over additions); 0 if absent. Same complexity. */
double sim_linvec_noise_coeff(const SimLinvec *v, SimNoiseId k);
/** Number of nonzero coefficients in @part (GRAD, NOISE or BOTH). Dense
 * O(columns seen), sparse O(1). */
gsize sim_linvec_nnz(const SimLinvec *v, SimLinPart part);
/**
 * sim_linvec_dot: inner product of two provenance rows restricted to @part
 * (GRAD: <A_x, A_y>; NOISE: <B_x, B_y>; BOTH: their sum, GRAD first). Summed in
 * increasing column order over the nonzero products, identically in both
 * storages. Returns NAN (and a critical) for linvecs of different spaces.
 * Complexity: dense O(min columns seen), sparse O(nnz(x) + nnz(y)).
 */
double sim_linvec_dot(const SimLinvec *x, const SimLinvec *y, SimLinPart part);
/**
 * sim_linvec_row: writes the provenance row of @part (GRAD or NOISE, not
 * BOTH) into row[0 .. n_cols): the coefficients of columns < n_cols, zeros
 * elsewhere, e.g. to fill a row of A (n_cols = n * n_rounds) or B (n_cols =
 * noise count).
 * @error: SIM_ERROR_INVALID_ARGUMENT for part BOTH; SIM_ERROR_CAPACITY if a
 *   nonzero coefficient lies at a column >= n_cols (the row is then filled
 *   up to n_cols anyway).
 * Complexity: O(n_cols + nnz) (dense: + columns seen).
 */
gboolean sim_linvec_row(const SimLinvec *v, SimLinPart part, double *row, gsize n_cols,
                        GError **error);

/**
 * Iterator over the nonzero coefficients of a linvec, in increasing column
 * order, gradient part first when both are requested. The linvec must not be
 * modified while iterating. Fields are private.
 */
typedef struct {
  /*< private >*/
  const SimLinvec *v;
  gsize pos;
  gint part;
  gint parts;
} SimLinvecIter;

/** sim_linvec_iter_init: starts iterating @parts (GRAD, NOISE or BOTH) of @v. O(1). */
void sim_linvec_iter_init(SimLinvecIter *it, const SimLinvec *v, SimLinPart parts);
/**
 * sim_linvec_iter_next: the next nonzero coefficient.
 * @part: (out) (nullable) SIM_LIN_GRAD or SIM_LIN_NOISE.
 * @column: (out) (nullable) its column: t * n + u for a gradient slot (see
 *   sim_lin_space_grad_slot), the noise id for a noise variable.
 * @coeff: (out) (nullable) the coefficient.
 * Returns: FALSE when exhausted. Complexity: sparse O(1); dense O(1) amortized
 * over the columns seen.
 */
gboolean sim_linvec_iter_next(SimLinvecIter *it, SimLinPart *part, guint32 *column, double *coeff);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimLinSpace, sim_lin_space_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimLinvec, sim_linvec_free)

G_END_DECLS

#endif /* DPG_SIM_LINVEC_H */
