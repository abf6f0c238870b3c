/*
 * privacy/stream_internal.h: the streaming accountant (privacy/stream.c),
 * driven by the observer (privacy/observer.c). Not public.
 */
#ifndef DPG_PRIVACY_STREAM_INTERNAL_H
#define DPG_PRIVACY_STREAM_INTERNAL_H

#include "privacy/internal.h"

/* Rows as the observer pools them: row i has entries start[i] .. start[i+1]-1
 * of cols/vals, the first ngrad[i] gradient columns (t*n + u), the rest noise
 * ids (state variables included), coefficients in units of standard normals. */
typedef struct {
  const gsize *start;
  const guint32 *ngrad;
  const guint32 *cols;
  const double *vals;
} PrivRowPool;

/*
 * PrivRowSet: a growable PrivRowPool in which identical rows (bit for bit)
 * are stored once (privacy/rowset.c). Row ids count from 0 in insertion
 * order; ngrad->len is the number of rows. add is O(row length) expected;
 * reset keeps the capacity.
 */
typedef struct {
  GArray *start, *ngrad, *cols, *vals;
  GHashTable *index; /* content hash (gint64 *) -> GArray of row ids */
  GArray *scratch_cols, *scratch_vals;
} PrivRowSet;

void priv_row_set_init(PrivRowSet *r);
void priv_row_set_clear(PrivRowSet *r);
void priv_row_set_reset(PrivRowSet *r);
/* The id of the row (@len entries, the first @ngrad gradient columns). */
guint priv_row_set_add(PrivRowSet *r, const guint32 *cols, const double *vals, gsize len,
                       guint32 ngrad);
/* The id of the row equal to (@cols, @vals, @len, @ngrad), or G_MAXUINT. */
guint priv_row_set_find(const PrivRowSet *r, const guint32 *cols, const double *vals, gsize len,
                        guint32 ngrad);
/* The id of @v's provenance as a row: gradient part first, zeros dropped. */
guint priv_row_set_add_linvec(PrivRowSet *r, const SimLinvec *v);
/* A read-only view of the rows, valid until the next add or reset. */
PrivRowPool priv_row_set_pool(const PrivRowSet *r);

/*
 * priv_trust_knows_noise: the trust model's rule for noise (docs/design.md, the
 * trust models' table): whether an attacker set under @trust knows noise variable @id of
 * @reg. Never under LDP (the attacker sees messages only); under PNDP and
 * SecLDP when a member (flagged in @is_member, @n entries) owns it: its own
 * noise, and (DECOR-like protocols) the secrets on its edges. An owner >= @n
 * is no node of the network. The one home of this rule: the observer's
 * knowledge and the streaming accountant both ask it. O(owners of @id).
 */
gboolean priv_trust_knows_noise(PrivTrust trust, const gboolean *is_member, guint n,
                                const SimNoiseRegistry *reg, SimNoiseId id);

typedef struct PrivStream PrivStream;

/* A streaming accountant over the linvecs of @space (SIM_LIN_SPARSE).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (storage, T = 0, tolerances). */
PrivStream *priv_stream_new(SimLinSpace *space, const PrivStreamOptions *opt, GError **error);
void priv_stream_free(PrivStream *s);

/* Adds a view (members flagged in @is_member, n entries, copied). O(n T^2)
 * memory for its blocks. Errors: PRIV_ERROR_MEMORY. */
gboolean priv_stream_add_view(PrivStream *s, PrivTrust trust, const gboolean *is_member,
                              GError **error);

/*
 * priv_stream_period: ends a period. View i observed the pool rows
 * view_rows[i] (guint ids, in observation order). With @rebase, the space is
 * rebased (sim_lin_space_rebase_keeping: fresh noise no view observed stays
 * out of the state where that shrinks it) and the transition folded into
 * each view's state (the rows it carries: not those it observed, nor the
 * untouched fresh noise it carries aside); without it (the end of the run)
 * only the observations count.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (a gradient step >= T, a noise
 * variable referenced after its period without being retained),
 * PRIV_ERROR_MEMORY (the views' state past the budget, opt->max_bytes),
 * PRIV_ERROR_NUMERICAL (LAPACK; noise coefficients more than 2^1000 times
 * the gradients' or less than 2^-1000 times, as priv_knowledge_blocks_scaled),
 * the rebase's.
 */
gboolean priv_stream_period(PrivStream *s, const PrivRowPool *pool, GArray *const *view_rows,
                            gboolean rebase, GError **error);

/* A copy of view @view's blocks so far (symmetrized; UNPROTECTED and
 * UNRESOLVED victims have X = 0, decided per period by priv_range_decide;
 * blocks->scale as priv_knowledge_blocks_scaled sets it when sigma or the
 * clip are far from 1). Errors: PRIV_ERROR_MEMORY. */
PrivBlocks *priv_stream_blocks(const PrivStream *s, guint view, GError **error);

/* Largest state size seen (for reports and tests): the checkpoints' state
 * variables, and the rows view @view carried of them (the others were
 * constants to it). */
guint priv_stream_max_state(const PrivStream *s);
guint priv_stream_max_view_state(const PrivStream *s, guint view);

/* The streaming accountant of @obs (NULL when it does not stream). */
const PrivStream *priv_observer_stream(const PrivObserver *obs);

#endif /* DPG_PRIVACY_STREAM_INTERNAL_H */
