/*
 * privacy/stream_internal.h: the streaming accountant (privacy/stream.c),
 * driven by the observer (privacy/observer.c). Not public.
 */
#ifndef DPG_PRIVACY_STREAM_INTERNAL_H
#define DPG_PRIVACY_STREAM_INTERNAL_H

#include "privacy/internal.h"

/*
 * PrivRowSet: a PrivRows in which identical rows (bit for bit) are stored
 * once (privacy/rowset.c). Row ids count from 0 in insertion order;
 * rows.ngrad->len is the number of rows. add is O(row length) expected;
 * reset keeps the capacity.
 */
typedef struct {
  PrivRows rows;
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

/*
 * PrivStreamRec: one period of one view, as the gradient side needs it
 * (privacy/stream_grad.c). The view's state Gamma (sv rows) gives the k
 * observed rows A = Sc (Cs Gamma + c Go) (Sc = diag(sc), c = clip 2^-ea,
 * Go over gradient columns t n + u of non-members, raw provenance values);
 * the pivoted QR of their noise (jpvt, R transposed in rt) whitens them:
 * Y = L^-1 (P^T A)[0 .. rank) with L = rt's leading lower triangle, and
 * the trailing k - rank rows are their residuals. With a transition, the
 * next state is Gamma' = Ct Gamma + c Gs - bq1 Y (s2v rows).
 * Sparse parts are CSR (start has rows + 1 entries). The gradient side owns
 * the record once handed over; its backward engine may replace bq1 by
 * bq1 L^-1 (gain_solved) and frees what stepping back does not read once
 * the period is accounted.
 */
typedef struct {
  guint k, rank, q; /* observed rows, their rank, noise columns */
  guint tsteps;     /* 1 + the largest gradient step seen by the period's end */
  guint sv, s2v;    /* state rows before, after (transition only) */
  gboolean transition;
  gboolean gain_solved; /* bq1 holds bq1 L^-1 (the backward engine's choice) */
  guint *cs_start, *cs_col; /* k rows over sv */
  double *cs_val;
  guint *go_start; /* k rows over gradient columns */
  guint32 *go_col;
  double *go_val;
  guint *ct_start, *ct_col; /* s2v rows over sv */
  double *ct_val;
  guint *gs_start; /* s2v rows over gradient columns */
  guint32 *gs_col;
  double *gs_val;
  double *rt;        /* k x rank, row-major: rt[i rank + j] = R[j, i] */
  double *bq1;       /* s2v x rank, row-major */
  lapack_int *jpvt;  /* k, 1-based */
  double *sc;        /* k, or NULL (no scaling) */
  double *rn, *wt;   /* k: rows' noise norms, observed rows each stands for */
  double *rel;       /* k - rank: dependent rows' noise remainders, relative */
  struct PrivStreamPack *pack; /* the backward walk's rows, or NULL: the k rows */
} PrivStreamRec;

/*
 * PrivStreamPack: a record's rows packed for the backward walk
 * (privacy/stream_pack.c): nrow = rows[0] + .. + rows[3] rows, each a state
 * functional (st, sv wide) plus coefficients on the period's direct
 * gradient columns jcol (dir, nj wide, in gradient units 2^-ea): the
 * victims' norms, the amplification's reference, Y and the dependent rows'
 * residuals, in that order; loc (3 n: the same three sums per victim) and
 * xl (X entries) hold what the rows left out add.
 */
typedef struct {
  guint u, t1, t2; /* victim, steps (t1 <= t2) */
  double x;
} PrivStreamPackEntry;

typedef struct PrivStreamPack {
  guint n, sv, nj, nrow, rows[4];
  int ea;
  guint32 *jcol;
  double *st, *dir, *loc;
  GArray *xl; /* PrivStreamPackEntry */
} PrivStreamPack;

/* The pack of @r, or NULL in *@out where it would not have fewer rows (3 sv
 * + k - rank >= k) or a local sum leaves double range. O(k^2 (sv + nj)).
 * Errors: PRIV_ERROR_NUMERICAL (LAPACK). */
gboolean priv_stream_pack_new(const PrivStreamRec *r, guint n, double clip, int ea,
                              PrivStreamPack **out, GError **error);
void priv_stream_pack_free(PrivStreamPack *pk);
gsize priv_stream_pack_bytes(const PrivStreamPack *pk);

void priv_stream_rec_free(PrivStreamRec *r);
/* Bytes the record holds. */
gsize priv_stream_rec_bytes(const PrivStreamRec *r);

/* The gradient side of one view: its records, X and range decisions. */
typedef struct PrivStreamGrad PrivStreamGrad;

typedef struct {
  guint n, T;
  double clip, range_tol;
  gsize max_bytes;
  PrivStreamEngine engine;
  guint chunk_rows;          /* 0: automatic */
  const gboolean *is_member; /* n, copied */
} PrivStreamGradOptions;

/* Errors: PRIV_ERROR_MEMORY (the n T^2 blocks). */
PrivStreamGrad *priv_stream_grad_new(const PrivStreamGradOptions *opt, GError **error);
void priv_stream_grad_free(PrivStreamGrad *g);
/*
 * priv_stream_grad_fits: whether the view can take @rec (its observed part
 * so far) with a next state of @s2v rows, while @views_bytes are held by the
 * other views' gradient sides and the noise side needs @noise_bytes: the
 * forward engine's Gamma (s2v x n T), the backward engine's records and the
 * chunk of rows @rec may close, the blocks and their copy.
 * Errors: PRIV_ERROR_MEMORY, naming the bytes.
 */
gboolean priv_stream_grad_fits(const PrivStreamGrad *g, const PrivStreamRec *rec, guint s2v,
                               gsize views_bytes, gsize noise_bytes, GError **error);
/* Bytes the gradient side holds (records, Gamma; not the blocks). */
gsize priv_stream_grad_bytes(const PrivStreamGrad *g);
/*
 * priv_stream_grad_add: takes @rec (owned from then on, even on error) and
 * accounts it now (forward) or with its chunk (backward) at ea = @ea.
 * Errors: PRIV_ERROR_MEMORY, PRIV_ERROR_NUMERICAL.
 */
gboolean priv_stream_grad_add(PrivStreamGrad *g, PrivStreamRec *rec, int ea, GError **error);
/* Accounts every pending record (the end of the run). */
gboolean priv_stream_grad_finish(PrivStreamGrad *g, int ea, GError **error);
/* fix_scale's rescaling: X and the victims' norms (and the forward Gamma)
 * to gradient units 2^-ea, noise units 2^-eb. */
void priv_stream_grad_rescale(PrivStreamGrad *g, int ea, int eb);
/* The blocks so far (upper triangles), statuses, unprotected flags. */
const PrivBlocks *priv_stream_grad_blocks(const PrivStreamGrad *g);
const gboolean *priv_stream_grad_unprot(const PrivStreamGrad *g);
/* The periods the backward engine packed (for tests and reports). */
guint priv_stream_grad_packed(const PrivStreamGrad *g);

typedef struct PrivStream PrivStream;

/* A streaming accountant over the linvecs of @space (SIM_LIN_SPARSE).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (storage, T = 0, tolerances). */
PrivStream *priv_stream_new(SimLinSpace *space, const PrivStreamOptions *opt, GError **error);
void priv_stream_free(PrivStream *s);

/* Adds a view (members flagged in @is_member, n entries, copied). O(n T^2)
 * memory for its blocks. Errors: PRIV_ERROR_MEMORY. */
gboolean priv_stream_add_view(PrivStream *s, PrivTrust trust, const gboolean *is_member,
                              GError **error);
/* priv_stream_add_view on a space that keeps a set of nodes
 * (sim_lin_space_keep_nodes): @is_kept_member flags the members by kept
 * index (the gradient columns' nodes, sim_lin_space_n_kept entries),
 * @is_member by node id (the noise owners, sim_lin_space_n_nodes entries).
 * Both copied. */
gboolean priv_stream_add_view_kept(PrivStream *s, PrivTrust trust, const gboolean *is_kept_member,
                                   const gboolean *is_member, GError **error);

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
/* The periods of view @view whose rows went packed through the backward
 * walk (privacy/stream_pack.c). */
guint priv_stream_packed_periods(const PrivStream *s, guint view);

/* The streaming accountant of @obs (NULL when it does not stream). */
const PrivStream *priv_observer_stream(const PrivObserver *obs);

#endif /* DPG_PRIVACY_STREAM_INTERNAL_H */
