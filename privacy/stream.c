/*
 * privacy/stream.c: the streaming accountant (docs/design.md, "Streaming
 * accountant").
 *
 * Per view, the state variables y (the linvecs alive at the last checkpoint,
 * plus retained noise) have, given everything the view observed so far, the
 * law y = Gamma G + R w + (observed constants), w ~ N(0, I_r): Gamma is
 * S x (gradient columns), R is S x r with r <= S. A period's rows (the
 * view's observations, then the checkpoint's transition rows) are linear
 * over (previous state, fresh noise z, gradient slots); expanded they read
 * A G + B u with u = [w; z] ~ N(0, I). Past observations are independent of
 * u (w is the residual after conditioning, z is fresh), and the future
 * depends on the past only through the new state, so:
 *   - the period adds A_o^T (B_o B_o^T)^+ A_o to X (per victim, its columns)
 *     and makes unprotected a victim whose columns of A_o leave the range of
 *     B_o: exactly the dense accountant's step (privacy/reduce.c) on the
 *     period's small problem, through the same pivoted QR of B_o^T;
 *   - the new state conditioned on the observations: u | O has mean
 *     B_o^+ (O - A_o G) and covariance I - Q1 Q1^T (Q1 the range of B_o^T),
 *     so Gamma' = A_s - (B_s Q1) Y with Y = R11^-T (P^T A_o)_1 (= Q1^T B_o^+ A_o
 *     in the QR basis), and R' R'^T = (B_s Q2)(B_s Q2)^T, compressed by a QR
 *     to at most S' columns.
 * Identical transition rows (a payload that is a copy of a model) share one
 * state variable. Fresh noise no view has observed by the checkpoint stays
 * in the provenances instead of entering the state (keep_fresh; it is
 * independent of the past, so the next period counts it as fresh): Zip-DL's
 * payloads in flight then share their model's state variable. Known noise
 * (PNDP, SecLDP) is a zero column of B, known gradient slots zero columns of
 * A, as in the dense accountant.
 *
 * What a view carries is its own (SView.loc, carry): the checkpoint's state
 * variables are shared, but
 *   - a transition row the view observed in the closing period is a
 *     constant to it (its value is an observation: Gamma and R rows zero, up
 *     to the columns of victims it already leaks), so it has no row;
 *   - fresh noise of the period the view has not touched is carried out of
 *     its rows (keep_fresh for this view alone, when another view's
 *     observations keep it in the shared state), and read as fresh columns
 *     in the next period only;
 *   - observed rows that differ only in fresh noise (a Zip-DL sender's
 *     payloads under LDP and SecLDP) become one row and pure-noise
 *     differences that condition that noise (reduce_rows).
 * Each is exact (row operations on the observations, or independence), so
 * Zip-DL's state is the models and the unsent self-payloads, about 2n rows
 * per view, not the n (deg + 1) payloads in flight, whatever the views of
 * the run.
 *
 * Double precision follows the dense accountant's rules (privacy/reduce.c,
 * privacy/range.c), applied to each period: the range decision is three-way
 * (PROTECTED, UNPROTECTED, or UNRESOLVED when a near-dependency or an
 * ill-conditioned solve leaves it undecidable); a rank cut that drops a row
 * independent at its own scale is redone with rows at unit noise norm; and
 * coefficients far from 1 (sigma or the clip at 1e+-200) are scaled by
 * powers of two, X carrying the factor in blocks->scale. Ordinary runs never
 * meet any of these and their arithmetic is unchanged.
 */
#include "privacy/stream_internal.h"

#include "privacy/knowledge_internal.h"

#include <math.h>
#include <string.h>

typedef struct {
  PrivTrust trust;
  gboolean *is_member;  /* n: by kept index, the gradient columns' nodes */
  gboolean *owns_noise; /* n_nodes: by node id, the noise owners (sim_lin_space_keep_nodes) */
  double *R;            /* Sv x r, row-major: the state's noise */
  /* The state variables the view carries: a transition row the view has
   * observed (or one of its constants only) is a constant to it, given its
   * observations, and has no row in R (nor in Gamma). */
  guint Sv, max_sv;
  guint *loc; /* by state index (S entries): row in R, or G_MAXUINT */
  /* Per state index (CSR, S + 1 starts): fresh noise of the closing period
   * the view had not touched, left out of its state rows (see
   * carried_transitions); carry_col is its column in the current period. */
  guint *carry_start;
  guint32 *carry_id;
  double *carry_val;
  guint *carry_col;
  guint r;
  PrivStreamGrad *grad; /* the gradient side: Gamma's records, X, range decisions */
  double bscale;        /* running max of the noise scale, the rank reference */
} SView;

struct PrivStream {
  SimLinSpace *space;
  SimNoiseRegistry *reg;
  guint n, T;
  gsize ld; /* n T */
  double clip, rank_tol, range_tol;
  gsize max_bytes; /* 0: the machine's */
  PrivStreamEngine engine;
  guint chunk_rows;
  void (*progress)(guint steps, guint T, gpointer data);
  gpointer progress_data;
  GPtrArray *views;
  GHashTable *state; /* noise id + 1 -> state index + 1 */
  guint S, max_state;
  GByteArray *retired; /* by noise id: used in a closed period, not state */
  guint tsteps;        /* 1 + the largest gradient step seen */
  /* Scale-free accounting (as priv_knowledge_blocks_scaled): gradient
   * coefficients (times clip) are used times 2^-ea, noise coefficients times
   * 2^-eb, exponents fixed by the first period that has both; every relative
   * decision is unchanged and X is 4^(eb - ea) times the truth. Both 0 for
   * every ordinary run. */
  gboolean scale_fixed;
  int ea, eb;
  /* Per state variable, an upper bound on the norm of its noise part before
   * any conditioning (the triangle inequality through the transitions): a
   * row's conditional noise far below it is explained by the past. */
  double *nu;
  /* The checkpoint's distinct transition rows (pooled as PrivRowPool) and,
   * per new state id, its row. */
  PrivRowSet tr;
  GArray *out_ids, *out_row;
  GHashTable *fresh; /* noise id + 1 -> fresh column + 1 */
  GArray *fresh_ids;
  /* Per noise id, at a checkpoint (flags; a byte array, as the provenances
   * to scan hold millions of entries for Zip-DL): MARK_TOUCHED, noise that
   * may not stay fresh (the period's observed rows use it, or the protocol
   * retains it); MARK_PREV, kept at the last checkpoint (folded at this one,
   * so provenances hold one period's kept draws at most); MARK_NOW, kept at
   * this one. */
  GByteArray *mark;
};

enum { MARK_TOUCHED = 1, MARK_PREV = 2, MARK_NOW = 4, MARK_RETAINED = 8 };

static void sview_free(gpointer p) {
  SView *v = p;
  g_free(v->is_member);
  g_free(v->owns_noise);
  g_free(v->R);
  g_free(v->loc);
  g_free(v->carry_start);
  g_free(v->carry_id);
  g_free(v->carry_val);
  g_free(v->carry_col);
  priv_stream_grad_free(v->grad);
  g_free(v);
}

PrivStream *priv_stream_new(SimLinSpace *space, const PrivStreamOptions *opt, GError **error) {
  PrivStreamOptions o = *opt;
  gboolean valid = priv_options_resolve(&o.clip, &o.rank_tol, &o.range_tol);
  if (o.T == 0 || !valid) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "streaming accountant: T must be positive, the clipping norm and the "
                "tolerances positive and finite (T = %u, clip = %g, rank_tol = %g, "
                "range_tol = %g)",
                o.T, o.clip, o.rank_tol, o.range_tol);
    return NULL;
  }
  if (sim_lin_space_storage(space) != SIM_LIN_SPARSE) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "streaming accountant: the run must keep sparse provenance (SIM_LIN_SPARSE)");
    return NULL;
  }
  PrivStream *s = g_new0(PrivStream, 1);
  s->space = sim_lin_space_ref(space);
  s->reg = sim_lin_space_noise(space);
  s->n = sim_lin_space_n_kept(space); /* the gradient columns' nodes */
  s->T = o.T;
  s->ld = (gsize)s->n * o.T;
  s->clip = o.clip;
  s->rank_tol = o.rank_tol;
  s->range_tol = o.range_tol;
  s->max_bytes = o.max_bytes;
  s->engine = o.engine;
  s->chunk_rows = o.chunk_rows;
  s->progress = o.progress;
  s->progress_data = o.progress_data;
  s->views = g_ptr_array_new_with_free_func(sview_free);
  s->state = g_hash_table_new(g_direct_hash, g_direct_equal);
  s->retired = g_byte_array_new();
  priv_row_set_init(&s->tr);
  s->out_ids = g_array_new(FALSE, FALSE, sizeof(SimNoiseId));
  s->out_row = g_array_new(FALSE, FALSE, sizeof(guint));
  s->fresh = g_hash_table_new(g_direct_hash, g_direct_equal);
  s->fresh_ids = g_array_new(FALSE, FALSE, sizeof(SimNoiseId));
  s->mark = g_byte_array_new();
  return s;
}

void priv_stream_free(PrivStream *s) {
  if (!s)
    return;
  g_ptr_array_unref(s->views);
  g_hash_table_unref(s->state);
  g_byte_array_unref(s->retired);
  priv_row_set_clear(&s->tr);
  g_array_unref(s->out_ids);
  g_array_unref(s->out_row);
  g_hash_table_unref(s->fresh);
  g_array_unref(s->fresh_ids);
  g_byte_array_unref(s->mark);
  g_free(s->nu);
  sim_lin_space_unref(s->space);
  g_free(s);
}

gboolean priv_stream_add_view(PrivStream *s, PrivTrust trust, const gboolean *is_member,
                              GError **error) {
  return priv_stream_add_view_kept(s, trust, is_member, is_member, error);
}

gboolean priv_stream_add_view_kept(PrivStream *s, PrivTrust trust, const gboolean *is_member,
                                   const gboolean *owns_noise, GError **error) {
  /* Before the run, not hours into it: the views' blocks (and the copy
   * handed out at the end) are the part of the memory that grows as T^2. */
  gsize block = (gsize)s->n * s->T * s->T;
  if (!priv_check_budget(mf_doubles_bytes(priv_size_sum3(block, s->views->len + 2, 0, 0, 0, 0)),
                         s->max_bytes, "the streaming accountant's per-victim blocks", error))
    return FALSE;
  /* And the gradients' part at the last step, a lower bound so that it never
   * refuses a run that fits: forward, each view's Gamma (at least one state
   * variable per node, its model, by n T gradient slots); backward, a row
   * of n T slots and per view and step a transition of one coefficient per
   * node. */
  gsize ld = (gsize)s->n * s->T, views = s->views->len + 1;
  gboolean fwd = s->engine == PRIV_STREAM_FORWARD;
  gsize part = fwd ? priv_size_sum3(ld, (gsize)s->n * views, 0, 0, 0, 0)
                   : priv_size_sum3(ld, 1, ld, views * 2, 0, 0);
  /* With the noise side: once every node has drawn noise, a view's state
   * noise is an n x n factor, updated through the transition (n x n while
   * formed) and n x 2n columns (one view at a time): 4 n^2. */
  part = priv_size_sum3(part, 1, (gsize)s->n * s->n, 4, 0, 0);
  char *what = g_strdup_printf("the streaming accountant's state (%s; the noise: 4 n^2)",
                               fwd ? "per view: n x n T" : "n T, and 2 n T per view");
  gboolean fits = priv_check_budget(
      mf_doubles_bytes(priv_size_sum3(block, views + 1, part, 1, 0, 0)), s->max_bytes, what, error);
  g_free(what);
  if (!fits)
    return FALSE;
  PrivStreamGradOptions go = {.n = s->n,
                              .T = s->T,
                              .clip = s->clip,
                              .range_tol = s->range_tol,
                              .max_bytes = s->max_bytes,
                              .engine = s->engine,
                              .chunk_rows = s->chunk_rows,
                              .is_member = is_member};
  PrivStreamGrad *grad = priv_stream_grad_new(&go, error);
  if (!grad)
    return FALSE;
  SView *v = g_new0(SView, 1);
  v->trust = trust;
  v->is_member = g_memdup2(is_member, s->n * sizeof(gboolean));
  v->owns_noise = g_memdup2(owns_noise, sim_lin_space_n_nodes(s->space) * sizeof(gboolean));
  v->grad = grad;
  g_ptr_array_add(s->views, v);
  return TRUE;
}

guint priv_stream_max_state(const PrivStream *s) {
  return s->max_state;
}

guint priv_stream_max_view_state(const PrivStream *s, guint view) {
  g_return_val_if_fail(view < s->views->len, 0);
  return ((const SView *)g_ptr_array_index(s->views, view))->max_sv;
}

guint priv_stream_packed_periods(const PrivStream *s, guint view) {
  g_return_val_if_fail(view < s->views->len, 0);
  return priv_stream_grad_packed(((const SView *)g_ptr_array_index(s->views, view))->grad);
}

/* ------------------------------------------------------------ tolerances */

/*
 * Rank: a pivot of the period's noise matrix counts when it exceeds rank_tol
 * times the largest noise scale the view has met (the dense accountant's
 * |R_00| over the whole run).
 */
static gboolean pivot_counts(double rii, double bscale, double rank_tol) {
  return fabs(rii) > rank_tol * bscale && bscale > 0;
}

/* The prior bound of row @id of @p's noise part: |c| nu over its state
 * variables plus the norm of its fresh noise coefficients. */
static double prior_norm(const PrivStream *s, const PrivRowPool *p, guint id) {
  double st = 0.0, fresh2 = 0.0;
  for (gsize e = p->start[id] + p->ngrad[id]; e < p->start[id + 1]; e++) {
    guint j = GPOINTER_TO_UINT(g_hash_table_lookup(s->state, GUINT_TO_POINTER(p->cols[e] + 1)));
    if (j > 0) {
      st += fabs(p->vals[e]) * s->nu[j - 1];
    } else {
      double c = ldexp(p->vals[e], -s->eb);
      fresh2 += c * c;
    }
  }
  return st + sqrt(fresh2);
}

/* Whether a row's noise norm @rn is its own scale (a row that may be scaled
 * up to unit noise): not below sqrt(eps) of its prior bound, where round-off
 * of a conditioning (eps times its condition number) lives. */
static gboolean own_scale(double rn, double prior) {
  return rn > 0 && rn > 1.4901161193847656e-08 * prior;
}

/* ------------------------------------------------------------ transitions */

/* Pools one transition row (identical rows once) and maps @state to it. */
static gboolean on_rebase(SimNoiseId state, const SimLinvec *before, gpointer user_data,
                          GError **error) {
  (void)error;
  PrivStream *s = user_data;
  guint id;
  if (!before) { /* retained noise: z_k = z_k */
    guint32 col = state;
    double one = 1.0;
    id = priv_row_set_add(&s->tr, &col, &one, 1, 0);
  } else {
    id = priv_row_set_add_linvec(&s->tr, before);
  }
  g_array_append_val(s->out_ids, state);
  g_array_append_val(s->out_row, id);
  return TRUE;
}

/*
 * Whether noise variable @id stays fresh through the checkpoint: a protocol
 * draw (not a state variable) that no view observed in the closing period
 * and the protocol does not retain. It is independent of every observation
 * so far and of the state (whose transition rows then leave it out), so the
 * next period may count it as fresh noise: the same law, exactly, with a
 * state of the live linvecs' other parts only. For Zip-DL this drops the
 * n (deg + 1) payloads in flight at a round boundary to the few a view has
 * already received. Noise kept at the last checkpoint is folded at this
 * one: kept draws would otherwise spread through the averages into every
 * provenance until a view sees them, and the rows would grow with T.
 */
static gboolean keep_fresh(SimNoiseId id, gpointer user_data) {
  PrivStream *s = user_data;
  if (id < s->mark->len && (s->mark->data[id] & (MARK_TOUCHED | MARK_PREV)))
    return FALSE;
  return sim_noise_kind(s->reg, id) != SIM_NOISE_KIND_STATE &&
         !g_hash_table_contains(s->state, GUINT_TO_POINTER(id + 1));
}

/* keep_fresh for the rebase itself, remembering what it kept. */
static gboolean keep_record(SimNoiseId id, gpointer user_data) {
  PrivStream *s = user_data;
  if (!keep_fresh(id, s))
    return FALSE;
  if (id < s->mark->len)
    s->mark->data[id] |= MARK_NOW;
  return TRUE;
}

/* Hashes one provenance into @full (every entry) and @core (without the
 * noise keep_fresh would keep); FALSE in *has_core when nothing is left. */
static void live_hashes(PrivStream *s, const SimLinvec *v, guint64 *full, guint64 *core,
                        gboolean *has_core) {
  guint64 hf = 1469598103934665603ull, hc = hf;
  *has_core = FALSE;
  SimLinvecIter it;
  SimLinPart part;
  guint32 col;
  double c;
  sim_linvec_iter_init(&it, v, SIM_LIN_BOTH);
  while (sim_linvec_iter_next(&it, &part, &col, &c)) {
    guint64 bits;
    memcpy(&bits, &c, sizeof bits);
    guint64 e = ((guint64)col << 1 | (part == SIM_LIN_GRAD)) * 1099511628211ull ^ bits;
    hf = (hf ^ e) * 1099511628211ull;
    if (part == SIM_LIN_NOISE && keep_fresh(col, s))
      continue;
    hc = (hc ^ e) * 1099511628211ull;
    *has_core = TRUE;
  }
  *full = hf;
  *core = hc;
}

/*
 * Whether keeping unobserved fresh noise out of the state shrinks it: the
 * live linvecs' distinct rows without the kept terms against with them.
 * Either choice is exact; keeping only where it pays leaves the arithmetic
 * of every protocol it does not help (D-SGD, DECOR, ...) as it was.
 */
static gboolean keeping_pays(PrivStream *s) {
  GHashTable *full = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  GHashTable *core = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  guint nl = sim_lin_space_n_live(s->space);
  for (guint i = 0; i < nl; i++) {
    const SimLinvec *v = sim_lin_space_live(s->space, i);
    if (sim_linvec_nnz(v, SIM_LIN_BOTH) == 0)
      continue;
    guint64 hf, hc;
    gboolean has_core;
    live_hashes(s, v, &hf, &hc, &has_core);
    g_hash_table_add(full, g_memdup2(&hf, sizeof hf));
    if (has_core)
      g_hash_table_add(core, g_memdup2(&hc, sizeof hc));
  }
  gboolean pays = g_hash_table_size(core) < g_hash_table_size(full);
  g_hash_table_unref(full);
  g_hash_table_unref(core);
  return pays;
}

static void transitions_reset(PrivStream *s) {
  priv_row_set_reset(&s->tr);
  g_array_set_size(s->out_ids, 0);
  g_array_set_size(s->out_row, 0);
}

/* ------------------------------------------------------------ one period */

static gboolean retired(const PrivStream *s, guint32 id) {
  return id < s->retired->len && s->retired->data[id];
}

static void retire(PrivStream *s, guint32 id) {
  if (id >= s->retired->len) {
    guint old = s->retired->len;
    g_byte_array_set_size(s->retired, MAX(id + 1, 2 * old));
    memset(s->retired->data + old, 0, s->retired->len - old);
  }
  s->retired->data[id] = 1;
}

/* Registers the columns of one row: state, or fresh noise (numbered in order
 * of first use), and the gradient steps. */
static gboolean scan_row(PrivStream *s, const PrivRowPool *p, guint i, GError **error) {
  for (gsize e = p->start[i]; e < p->start[i + 1]; e++) {
    guint32 col = p->cols[e];
    if (e < p->start[i] + p->ngrad[i]) {
      guint t = col / s->n;
      if (t >= s->T) {
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                    "an observed message involves gradient step %u but the accounting covers "
                    "only T = %u steps",
                    t, s->T);
        return FALSE;
      }
      s->tsteps = MAX(s->tsteps, t + 1);
      continue;
    }
    gpointer key = GUINT_TO_POINTER(col + 1);
    if (g_hash_table_contains(s->state, key) || g_hash_table_contains(s->fresh, key))
      continue;
    if (retired(s, col)) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  "streaming accountant: noise variable %u (node %u, round %u) is used again "
                  "after a checkpoint; the protocol must retain it until its last use "
                  "(sim_noise_retain), or account with the dense accountant",
                  col, sim_noise_node(s->reg, col), sim_noise_round(s->reg, col));
      return FALSE;
    }
    g_array_append_val(s->fresh_ids, col);
    g_hash_table_insert(s->fresh, key, GUINT_TO_POINTER(s->fresh_ids->len));
  }
  return TRUE;
}

/*
 * The view's coordinates of the period's fresh noise: fresh column c reads
 * sum_f val[f] u[col[f]] for f in start[c] .. start[c+1]-1, u ~ N(0, I_m)
 * (the identity unless reduce_rows conditioned it on pure-noise rows).
 */
typedef struct {
  guint *start; /* m + 1 */
  GArray *col;  /* guint */
  GArray *val;  /* double */
  guint m;      /* columns of u */
} FreshMap;

static void fresh_map_clear(FreshMap *fm) {
  g_free(fm->start);
  if (fm->col)
    g_array_unref(fm->col);
  if (fm->val)
    g_array_unref(fm->val);
}

/* The view's row of global state variable @j (0-based), or G_MAXUINT. */
static guint view_loc(const SView *v, guint j) {
  return v->loc[j];
}

/* Whether the view reads anything of state variable @j: a row, or noise it
 * carries. */
static gboolean view_reads_state(const SView *v, guint j) {
  return v->loc[j] != G_MAXUINT || v->carry_start[j + 1] > v->carry_start[j];
}

/*
 * Expands the noise of @k rows (ids[i] of pool @p) over the view's state:
 * Cs (k x Sv, row-major, dense) their state coefficients and B (k x q,
 * row-major) = [Cs R, Cz N]. @known: per fresh column, whether the view
 * knows it; @fm its coordinates. The gradient parts go to the records
 * (grad_csr): the noise side never needs them.
 */
static void expand(const PrivStream *s, const SView *v, const PrivRowPool *p, const guint *ids,
                   gsize k, guint q, const gboolean *known, const FreshMap *fm, double *Cs,
                   double *B) {
  guint S = v->Sv, r = v->r, cbase = r + fm->m;
  const guint *fcol = (const guint *)fm->col->data;
  const double *fval = (const double *)fm->val->data;
  if (S > 0)
    memset(Cs, 0, k * S * sizeof(double));
  memset(B, 0, k * q * sizeof(double));
  for (gsize i = 0; i < k; i++) {
    guint id = ids[i];
    for (gsize e = p->start[id] + p->ngrad[id]; e < p->start[id + 1]; e++) {
      gpointer key = GUINT_TO_POINTER(p->cols[e] + 1);
      guint j = GPOINTER_TO_UINT(g_hash_table_lookup(s->state, key));
      if (j > 0) {
        guint l = view_loc(v, j - 1);
        if (l != G_MAXUINT)
          Cs[i * S + l] += p->vals[e];
        for (guint f = v->carry_start[j - 1]; f < v->carry_start[j]; f++)
          B[i * q + cbase + v->carry_col[f]] += ldexp(p->vals[e] * v->carry_val[f], -s->eb);
        continue;
      }
      guint c = GPOINTER_TO_UINT(g_hash_table_lookup(s->fresh, key)) - 1;
      if (known[c])
        continue;
      double x = ldexp(p->vals[e], -s->eb);
      for (guint f = fm->start[c]; f < fm->start[c + 1]; f++)
        B[i * q + r + fcol[f]] += x * fval[f];
    }
  }
  if (S == 0 || r == 0)
    return;
  gsize nnz = 0;
  for (gsize i = 0; i < k * S; i++)
    nnz += Cs[i] != 0.0;
  if (nnz * 16 < k * S) {
    /* Mostly sparse (payloads in flight are each one earlier state): one
     * axpy per entry instead of a product with the zeros. */
    for (gsize i = 0; i < k; i++)
      for (guint j = 0; j < S; j++)
        if (Cs[i * S + j] != 0.0)
          cblas_daxpy((int)r, Cs[i * S + j], v->R + (gsize)j * r, 1, B + i * q, 1);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)k, (int)r, (int)S, 1.0, Cs, (int)S,
                v->R, (int)r, 0.0, B, (int)q);
  }
}

/* The nonzeros of the dense @rows x @cols row-major @M as CSR. */
static void csr_from_dense(const double *M, gsize rows, gsize cols, guint **start, guint **col,
                           double **val) {
  GArray *c = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *x = g_array_new(FALSE, FALSE, sizeof(double));
  *start = g_new(guint, rows + 1);
  for (gsize i = 0; i < rows; i++) {
    (*start)[i] = c->len;
    for (guint j = 0; j < cols; j++)
      if (M[i * cols + j] != 0.0) {
        g_array_append_val(c, j);
        g_array_append_val(x, M[i * cols + j]);
      }
  }
  (*start)[rows] = c->len;
  *col = (guint *)g_array_free(c, FALSE);
  *val = (double *)g_array_free(x, FALSE);
}

/* The gradient parts of @k rows (ids of @p) over the non-members' columns,
 * as CSR with the provenance's values. */
static void grad_csr(const PrivStream *s, const SView *v, const PrivRowPool *p, const guint *ids,
                     gsize k, guint **start, guint32 **col, double **val) {
  GArray *c = g_array_new(FALSE, FALSE, sizeof(guint32));
  GArray *x = g_array_new(FALSE, FALSE, sizeof(double));
  *start = g_new(guint, k + 1);
  for (gsize i = 0; i < k; i++) {
    (*start)[i] = c->len;
    guint id = ids[i];
    for (gsize e = p->start[id]; e < p->start[id] + p->ngrad[id]; e++)
      if (!v->is_member[p->cols[e] % s->n]) {
        g_array_append_val(c, p->cols[e]);
        g_array_append_val(x, p->vals[e]);
      }
  }
  (*start)[k] = c->len;
  *col = (guint32 *)g_array_free(c, FALSE);
  *val = (double *)g_array_free(x, FALSE);
}

/* ------------------------------------------------------------ reduction */

/* Union-find over fresh columns, with path halving. */
static guint uf_find(guint *parent, guint x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

/* A row's entries as the view reads them: the core (non-member gradient
 * slots, and state variables the view carries, by its row with the top bit
 * set) and the unknown fresh noise (fresh column, coefficient). */
static void view_entries(const PrivStream *s, const SView *v, const PrivRowPool *p, guint id,
                         const gboolean *known, GArray *core_col, GArray *core_val,
                         GArray *fresh_col, GArray *fresh_val) {
  for (gsize e = p->start[id]; e < p->start[id + 1]; e++) {
    guint32 col = p->cols[e];
    double c = p->vals[e];
    if (e < p->start[id] + p->ngrad[id]) {
      if (v->is_member[col % s->n])
        continue;
      g_array_append_val(core_col, col);
      g_array_append_val(core_val, c);
      continue;
    }
    gpointer key = GUINT_TO_POINTER(col + 1);
    guint j = GPOINTER_TO_UINT(g_hash_table_lookup(s->state, key));
    if (j > 0) {
      if (!view_reads_state(v, j - 1))
        continue;
      guint32 tag = (j - 1) | 0x80000000u;
      g_array_append_val(core_col, tag);
      g_array_append_val(core_val, c);
      continue;
    }
    guint f = GPOINTER_TO_UINT(g_hash_table_lookup(s->fresh, key)) - 1;
    if (known[f])
      continue;
    g_array_append_val(fresh_col, f);
    g_array_append_val(fresh_val, c);
  }
}

/* Whether rows @a and @b have the same core, bit for bit. */
static gboolean same_core(const GArray *cs, const GArray *cc, const GArray *cv, guint a, guint b) {
  gsize sa = g_array_index(cs, gsize, a), la = g_array_index(cs, gsize, a + 1) - sa;
  gsize sb = g_array_index(cs, gsize, b), lb = g_array_index(cs, gsize, b + 1) - sb;
  return la == lb &&
         memcmp(&g_array_index(cc, guint32, sa), &g_array_index(cc, guint32, sb),
                la * sizeof(guint32)) == 0 &&
         memcmp(&g_array_index(cv, double, sa), &g_array_index(cv, double, sb),
                la * sizeof(double)) == 0;
}

/* reduce_rows' working set: the view's rows split into core and fresh
 * entries, their groups, and the pure-noise differences. */
typedef struct {
  guint k, m;                  /* observed rows, fresh columns */
  GArray *cs, *cc, *cv;        /* per row: core entries (CSR: starts, columns, values) */
  GArray *fs, *fc, *fv;        /* per row: unknown fresh noise entries */
  guint *grp;                  /* per row: the first row of its core, or a G_MAXUINT mark */
  double *wt;                  /* per row: the observed rows it stands for */
  guint *parent;               /* per fresh column: union-find over the differences */
  guint *ccomp;                /* per fresh column: component + 1, or 0 */
  double *dense;               /* m: scratch, all zero between uses */
  GArray *ds, *dc, *dv, *drow; /* differences row i - row grp[i], over fresh columns */
  GPtrArray *comps;            /* per component: its differences */
  guint *dcomp;                /* per difference: its component */
  gboolean *reduced;           /* per component: its null basis is in nbasis */
  guint *cdim;                 /* per reduced component: the basis' dimension */
  GPtrArray *nbasis, *ccols;   /* per component: basis (mc x mc), its fresh columns */
} Reduce;

static void reduce_init(Reduce *r, guint k, guint m) {
  memset(r, 0, sizeof *r);
  r->k = k;
  r->m = m;
  gsize zero = 0;
  GArray **starts[] = {&r->cs, &r->fs, &r->ds};
  for (guint i = 0; i < G_N_ELEMENTS(starts); i++) {
    *starts[i] = g_array_new(FALSE, FALSE, sizeof(gsize));
    g_array_append_val(*starts[i], zero);
  }
  r->cc = g_array_new(FALSE, FALSE, sizeof(guint32));
  r->cv = g_array_new(FALSE, FALSE, sizeof(double));
  r->fc = g_array_new(FALSE, FALSE, sizeof(guint));
  r->fv = g_array_new(FALSE, FALSE, sizeof(double));
  r->dc = g_array_new(FALSE, FALSE, sizeof(guint));
  r->dv = g_array_new(FALSE, FALSE, sizeof(double));
  r->drow = g_array_new(FALSE, FALSE, sizeof(guint));
  r->grp = g_new(guint, MAX(k, 1));
  r->wt = g_new(double, MAX(k, 1));
  r->parent = g_new(guint, MAX(m, 1));
  r->ccomp = g_new0(guint, MAX(m, 1));
  r->dense = g_new0(double, MAX(m, 1));
  r->comps = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  r->nbasis = g_ptr_array_new_with_free_func(g_free);
  r->ccols = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
}

static void reduce_clear(Reduce *r) {
  GArray *arrays[] = {r->cs, r->cc, r->cv, r->fs, r->fc, r->fv, r->ds, r->dc, r->dv, r->drow};
  for (guint i = 0; i < G_N_ELEMENTS(arrays); i++)
    g_array_unref(arrays[i]);
  g_free(r->grp);
  g_free(r->wt);
  g_free(r->parent);
  g_free(r->ccomp);
  g_free(r->dense);
  g_free(r->dcomp);
  g_free(r->reduced);
  g_free(r->cdim);
  g_ptr_array_unref(r->comps);
  g_ptr_array_unref(r->nbasis);
  g_ptr_array_unref(r->ccols);
}

/* The view's entries of every row and, per row, the first earlier row with
 * the same core (grp[i] = i for the first; G_MAXUINT for a row with no
 * core, pure noise). */
static void group_rows(const PrivStream *s, const SView *v, const PrivRowPool *p, GArray *rows,
                       const gboolean *known, Reduce *r) {
  GHashTable *groups = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                             (GDestroyNotify)g_array_unref);
  for (guint i = 0; i < r->k; i++) {
    view_entries(s, v, p, g_array_index(rows, guint, i), known, r->cc, r->cv, r->fc, r->fv);
    gsize ce = r->cc->len, fe = r->fc->len;
    g_array_append_val(r->cs, ce);
    g_array_append_val(r->fs, fe);
    r->wt[i] = 1.0;
    gsize c0 = g_array_index(r->cs, gsize, i);
    if (ce == c0) { /* no core: the row is pure noise */
      r->grp[i] = G_MAXUINT;
      continue;
    }
    guint64 h = 1469598103934665603ull;
    for (gsize e = c0; e < ce; e++) {
      guint64 bits;
      memcpy(&bits, &g_array_index(r->cv, double, e), sizeof bits);
      h = (h ^ g_array_index(r->cc, guint32, e)) * 1099511628211ull;
      h = (h ^ bits) * 1099511628211ull;
    }
    GArray *b = g_hash_table_lookup(groups, &h);
    r->grp[i] = i;
    for (guint j = 0; b && j < b->len; j++)
      if (same_core(r->cs, r->cc, r->cv, g_array_index(b, guint, j), i)) {
        r->grp[i] = g_array_index(b, guint, j);
        break;
      }
    if (r->grp[i] != i)
      continue;
    if (!b) {
      b = g_array_new(FALSE, FALSE, sizeof(guint));
      g_hash_table_insert(groups, g_memdup2(&h, sizeof h), b);
    }
    g_array_append_val(b, i);
  }
  g_hash_table_unref(groups);
}

/* Each grouped row less its group's first (or a pure-noise row itself):
 * a difference over fresh columns, joined in the union-find. A row that
 * equals its group's first to the view counts as one more observation of it
 * (grp[i] = G_MAXUINT - 1). */
static void row_differences(Reduce *r) {
  GArray *touched = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint c = 0; c < r->m; c++)
    r->parent[c] = c;
  for (guint i = 0; i < r->k; i++) {
    if (r->grp[i] == i)
      continue;
    for (int side = 0; side < 2; side++) {
      guint row = side == 0 ? i : r->grp[i];
      if (row == G_MAXUINT)
        continue;
      double sg = side == 0 ? 1.0 : -1.0;
      for (gsize e = g_array_index(r->fs, gsize, row); e < g_array_index(r->fs, gsize, row + 1);
           e++) {
        guint c = g_array_index(r->fc, guint, e);
        if (r->dense[c] == 0.0)
          g_array_append_val(touched, c);
        r->dense[c] += sg * g_array_index(r->fv, double, e); /* a repeat listing reads 0 */
      }
    }
    guint first = G_MAXUINT;
    for (guint t = 0; t < touched->len; t++) {
      guint c = g_array_index(touched, guint, t);
      double x = r->dense[c];
      r->dense[c] = 0.0;
      if (x == 0.0)
        continue;
      g_array_append_val(r->dc, c);
      g_array_append_val(r->dv, x);
      if (first == G_MAXUINT)
        first = c;
      else
        r->parent[uf_find(r->parent, c)] = uf_find(r->parent, first);
    }
    g_array_set_size(touched, 0);
    if (first == G_MAXUINT) { /* the same row as its group's to the view */
      if (r->grp[i] != G_MAXUINT)
        r->wt[r->grp[i]] += 1.0;
      r->grp[i] = G_MAXUINT - 1;
      continue;
    }
    gsize de = r->dc->len;
    g_array_append_val(r->ds, de);
    g_array_append_val(r->drow, i);
  }
  g_array_unref(touched);
}

/* The connected components of the differences (through their columns),
 * and each component's fresh columns. */
static void components(Reduce *r) {
  guint nd = r->drow->len;
  r->dcomp = g_new(guint, MAX(nd, 1));
  GHashTable *root_comp = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint d = 0; d < nd; d++) {
    guint root = uf_find(r->parent, g_array_index(r->dc, guint, g_array_index(r->ds, gsize, d)));
    guint ci = GPOINTER_TO_UINT(g_hash_table_lookup(root_comp, GUINT_TO_POINTER(root + 1)));
    if (ci == 0) {
      g_ptr_array_add(r->comps, g_array_new(FALSE, FALSE, sizeof(guint)));
      ci = r->comps->len;
      g_hash_table_insert(root_comp, GUINT_TO_POINTER(root + 1), GUINT_TO_POINTER(ci));
    }
    r->dcomp[d] = ci - 1;
    g_array_append_val((GArray *)g_ptr_array_index(r->comps, ci - 1), d);
  }
  g_hash_table_unref(root_comp);
  for (guint ci = 0; ci < r->comps->len; ci++) {
    GArray *dl = g_ptr_array_index(r->comps, ci);
    GArray *cols = g_array_new(FALSE, FALSE, sizeof(guint));
    g_ptr_array_add(r->ccols, cols);
    g_ptr_array_add(r->nbasis, NULL);
    for (guint t = 0; t < dl->len; t++) {
      guint d = g_array_index(dl, guint, t);
      for (gsize e = g_array_index(r->ds, gsize, d); e < g_array_index(r->ds, gsize, d + 1); e++) {
        guint c = g_array_index(r->dc, guint, e);
        if (r->ccomp[c] == 0) {
          r->ccomp[c] = ci + 1;
          g_array_append_val(cols, c);
        }
      }
    }
  }
}

/* Component @ci's null basis: a pivoted QR of its differences D^T (mc x g)
 * in an mc x mc array, then the full Q, whose columns g .. mc-1 span
 * null(D). Left alone (not reduced) with more differences than columns, or
 * unless clearly of full row rank. Errors: PRIV_ERROR_NUMERICAL. */
static gboolean null_basis(Reduce *r, guint ci, GError **error) {
  GArray *dl = g_ptr_array_index(r->comps, ci), *cols = g_ptr_array_index(r->ccols, ci);
  guint g = dl->len, mc = cols->len;
  if (g > mc)
    return TRUE;
  double *M = g_new0(double, (gsize)mc * mc);
  for (guint t = 0; t < cols->len; t++)
    r->dense[g_array_index(cols, guint, t)] = (double)t;
  for (guint t = 0; t < g; t++) {
    guint d = g_array_index(dl, guint, t);
    for (gsize e = g_array_index(r->ds, gsize, d); e < g_array_index(r->ds, gsize, d + 1); e++)
      M[(gsize)t * mc + (gsize)r->dense[g_array_index(r->dc, guint, e)]] =
          g_array_index(r->dv, double, e);
  }
  for (guint t = 0; t < cols->len; t++)
    r->dense[g_array_index(cols, guint, t)] = 0.0;
  lapack_int *jp = g_new0(lapack_int, g);
  double *tau = g_new(double, g);
  lapack_int info =
      LAPACKE_dgeqp3(LAPACK_COL_MAJOR, (lapack_int)mc, (lapack_int)g, M, (lapack_int)mc, jp, tau);
  gboolean full = info == 0 && fabs(M[(gsize)(g - 1) * mc + (g - 1)]) > 1e-6 * fabs(M[0]);
  if (full)
    info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)mc, (lapack_int)mc, (lapack_int)g, M,
                          (lapack_int)mc, tau);
  g_free(jp);
  g_free(tau);
  if (info != 0) {
    g_free(M);
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "conditioning a period's fresh noise on its pure-noise rows failed "
                "(LAPACK info %d)",
                (int)info);
    return FALSE;
  }
  if (!full) {
    g_free(M);
    return TRUE;
  }
  r->reduced[ci] = TRUE;
  r->cdim[ci] = mc - g;
  g_ptr_array_index(r->nbasis, ci) = M;
  return TRUE;
}

/* The fresh noise map: unreduced columns in order, then each reduced
 * block's null basis. */
static void fresh_map_build(Reduce *r, FreshMap *fm) {
  guint m = r->m, nc = r->comps->len;
  fm->start = g_new(guint, m + 1);
  fm->col = g_array_new(FALSE, FALSE, sizeof(guint));
  fm->val = g_array_new(FALSE, FALSE, sizeof(double));
  guint next = 0;
  for (guint c = 0; c < m; c++)
    if (r->ccomp[c] == 0 || !r->reduced[r->ccomp[c] - 1])
      r->ccomp[c] = 0, next++;
  guint *base = g_new(guint, MAX(nc, 1));
  for (guint ci = 0; ci < nc; ci++) {
    base[ci] = next;
    if (r->reduced[ci])
      next += r->cdim[ci];
  }
  guint ident = 0;
  for (guint c = 0; c < m; c++) {
    fm->start[c] = fm->col->len;
    if (r->ccomp[c] == 0) {
      double one = 1.0;
      g_array_append_val(fm->col, ident);
      g_array_append_val(fm->val, one);
      ident++;
      continue;
    }
    guint ci = r->ccomp[c] - 1;
    GArray *cols = g_ptr_array_index(r->ccols, ci);
    const double *M = g_ptr_array_index(r->nbasis, ci);
    guint mc = cols->len, g = mc - r->cdim[ci], pos = 0;
    while (g_array_index(cols, guint, pos) != c)
      pos++;
    for (guint l = 0; l < r->cdim[ci]; l++) {
      guint col = base[ci] + l;
      g_array_append_val(fm->col, col);
      g_array_append_val(fm->val, M[(gsize)(g + l) * mc + pos]);
    }
  }
  fm->start[m] = fm->col->len;
  fm->m = next;
  g_free(base);
}

/* Kept rows: each group's first, and the rows whose difference stayed;
 * a reduced difference counts as one more observation of its group. */
static void kept_rows(Reduce *r, GArray *rows, GArray *kept, GArray *weight) {
  gboolean *stays = g_new0(gboolean, MAX(r->k, 1));
  for (guint i = 0; i < r->k; i++)
    stays[i] = r->grp[i] == i;
  for (guint d = 0; d < r->drow->len; d++) {
    guint i = g_array_index(r->drow, guint, d);
    if (!r->reduced[r->dcomp[d]])
      stays[i] = TRUE;
    else if (r->grp[i] != G_MAXUINT)
      r->wt[r->grp[i]] += 1.0;
  }
  for (guint i = 0; i < r->k; i++) {
    if (!stays[i])
      continue;
    g_array_append_val(kept, g_array_index(rows, guint, i));
    g_array_append_val(weight, r->wt[i]);
  }
  g_free(stays);
}

/*
 * reduce_rows: the view's observed rows that differ only in fresh noise it
 * does not know (a Zip-DL sender's payloads under SecLDP or LDP: its model
 * plus y_ij - w_j S) become one row and pure-noise differences D z = d. Such
 * a difference involves no gradient and no state, so it adds nothing to X
 * and only conditions the fresh noise: z = D^+ d + N u with N an orthonormal
 * basis of null(D), u ~ N(0, I). This is an invertible row operation on the
 * observations, so X and the range decisions are those of the rows as
 * observed; the period's remaining rows and the transition rows read the
 * fresh noise through N (@fm). A block of differences (connected through
 * their columns) that is not clearly of full row rank (smallest pivot above
 * 1e-6 of the largest) is left alone: its rows stay rows.
 * Out: @kept (pool ids, in observation order) and @weight (per kept row, the
 * observed rows it stands for: the victims' norms for the range decision
 * count them, as the dense accountant's do). Errors: PRIV_ERROR_NUMERICAL.
 */
static gboolean reduce_rows(const PrivStream *s, const SView *v, const PrivRowPool *p, GArray *rows,
                            const gboolean *known, guint m, FreshMap *fm, GArray *kept,
                            GArray *weight, GError **error) {
  Reduce r;
  reduce_init(&r, rows ? rows->len : 0, m);
  group_rows(s, v, p, rows, known, &r);
  row_differences(&r);
  components(&r);
  guint nc = r.comps->len;
  r.reduced = g_new0(gboolean, MAX(nc, 1));
  r.cdim = g_new0(guint, MAX(nc, 1));
  gboolean ok = TRUE;
  for (guint ci = 0; ok && ci < nc; ci++)
    ok = null_basis(&r, ci, error);
  if (ok) {
    fresh_map_build(&r, fm);
    kept_rows(&r, rows, kept, weight);
  }
  reduce_clear(&r);
  return ok;
}

/*
 * The view's new state. A transition row the view observed this period
 * (@obs_tr maps the period's pool ids to transition rows, or G_MAXUINT) is a
 * constant to it. Otherwise its entries on @carry noise (fresh noise of this
 * period the view has not touched: independent of everything it saw and of
 * its state) stay out of the row and are carried, as keep_fresh does for
 * every view at once: the view reads them as fresh columns next period
 * (folded there, never carried twice). Zip-DL's payloads in flight then share
 * their model's row for a PNDP view even when an LDP or SecLDP view of the
 * same run touched their noise. The rest (the core) is a row of the new
 * state, identical cores once, unless it reads only the view's constants
 * (state it does not read, noise it knows or that @fm fixed, members'
 * gradient slots). Fills @loc2 (S2 entries: core id or G_MAXUINT), the carry
 * CSR and @cores; returns the number of cores.
 */
static guint carried_transitions(const PrivStream *s, const SView *v, const PrivRowPool *tp,
                                 guint S2, GArray *rows, const guint *obs_tr, guint n_obs,
                                 const gboolean *known, const gboolean *carry, const FreshMap *fm,
                                 guint *loc2, PrivRowSet *cores, GArray *c_start, GArray *c_id,
                                 GArray *c_val) {
  GArray *cc = g_array_new(FALSE, FALSE, sizeof(guint32));
  GArray *cv = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint t = 0; t < S2; t++)
    loc2[t] = 0;
  for (guint i = 0; rows && i < rows->len; i++) {
    guint id = g_array_index(rows, guint, i);
    if (id < n_obs && obs_tr[id] != G_MAXUINT)
      loc2[obs_tr[id]] = G_MAXUINT;
  }
  guint zero = 0;
  g_array_set_size(c_start, 0);
  g_array_append_val(c_start, zero);
  for (guint t = 0; t < S2; t++) {
    if (loc2[t] == G_MAXUINT) {
      g_array_append_val(c_start, c_id->len);
      continue;
    }
    gboolean reads = FALSE;
    guint32 ng = 0;
    g_array_set_size(cc, 0);
    g_array_set_size(cv, 0);
    for (gsize e = tp->start[t]; e < tp->start[t + 1]; e++) {
      guint32 col = tp->cols[e];
      double x = tp->vals[e];
      if (e < tp->start[t] + tp->ngrad[t]) {
        reads = reads || !v->is_member[col % s->n];
        g_array_append_val(cc, col);
        g_array_append_val(cv, x);
        ng++;
        continue;
      }
      gpointer key = GUINT_TO_POINTER(col + 1);
      guint j = GPOINTER_TO_UINT(g_hash_table_lookup(s->state, key));
      if (j > 0) {
        reads = reads || view_reads_state(v, j - 1);
      } else {
        guint c = GPOINTER_TO_UINT(g_hash_table_lookup(s->fresh, key)) - 1;
        if (carry[c]) {
          g_array_append_val(c_id, col);
          g_array_append_val(c_val, x);
          continue;
        }
        reads = reads || (!known[c] && fm->start[c + 1] > fm->start[c]);
      }
      g_array_append_val(cc, col);
      g_array_append_val(cv, x);
    }
    g_array_append_val(c_start, c_id->len);
    loc2[t] = reads ? priv_row_set_add(cores, (const guint32 *)cc->data, (const double *)cv->data,
                                       cc->len, ng)
                    : G_MAXUINT;
  }
  g_array_unref(cc);
  g_array_unref(cv);
  return cores->rows.ngrad->len;
}

/* What one view works with during one period. */
typedef struct {
  gboolean *known; /* m: per fresh column, whether the view knows it */
  FreshMap fm;
  GArray *rows, *weight; /* kept observed rows (pool ids), rows each stands for */
  gboolean *carry;       /* m: fresh noise carried out of the view's state */
  guint *loc2, S2v;      /* per new state variable, the view's row; their number */
  PrivRowSet cores;      /* the view's new state rows */
  GArray *c_start, *c_id, *c_val;
  guint q;          /* noise columns: the state's, the fresh ones, the carried ones */
  double *Bo, *tau; /* the observed rows' noise, its pivoted QR (q x k column-major) */
  /* With more noise columns than rows (q > k), the QR runs in two stages
   * (noise_qr): Bo then holds the unpivoted QR's reflectors (tau0), and Rp
   * (k x k, column-major) the pivoted QR of its triangle (tau). */
  double *tau0, *Rp;
  double *Cs;       /* k x Sv: the observed rows' state coefficients */
} Work;

static void work_clear(Work *w) {
  g_free(w->known);
  fresh_map_clear(&w->fm);
  if (w->rows)
    g_array_unref(w->rows);
  if (w->weight)
    g_array_unref(w->weight);
  g_free(w->carry);
  g_free(w->loc2);
  priv_row_set_clear(&w->cores);
  if (w->c_start)
    g_array_unref(w->c_start);
  if (w->c_id)
    g_array_unref(w->c_id);
  if (w->c_val)
    g_array_unref(w->c_val);
  g_free(w->Bo);
  g_free(w->tau);
  g_free(w->tau0);
  g_free(w->Rp);
  g_free(w->Cs);
}

/*
 * Phase 1: the period's columns as the view reads them. What it knows of
 * the fresh noise, its observed rows reduced (reduce_rows), the noise it
 * carried from the last checkpoint (columns after the fresh ones) and, with
 * @rebase, its new state rows (carried_transitions).
 */
static gboolean period_columns(PrivStream *s, SView *v, const PrivRowPool *p, GArray *obs_rows,
                               gboolean rebase, guint m, guint S2, const guint *obs_tr,
                               guint n_obs, Work *w, GError **error) {
  w->known = g_new0(gboolean, MAX(m, 1));
  for (guint c = 0; c < m; c++)
    w->known[c] = priv_trust_knows_noise(v->trust, v->owns_noise,
                                         sim_lin_space_n_nodes(s->space), s->reg,
                                         g_array_index(s->fresh_ids, SimNoiseId, c));
  w->rows = g_array_new(FALSE, FALSE, sizeof(guint));
  w->weight = g_array_new(FALSE, FALSE, sizeof(double));
  priv_row_set_init(&w->cores);
  w->c_start = g_array_new(FALSE, FALSE, sizeof(guint));
  w->c_id = g_array_new(FALSE, FALSE, sizeof(guint32));
  w->c_val = g_array_new(FALSE, FALSE, sizeof(double));
  if (!reduce_rows(s, v, p, obs_rows, w->known, m, &w->fm, w->rows, w->weight, error))
    return FALSE;
  guint mc = 0;
  if (s->S > 0) {
    guint nc = v->carry_start[s->S];
    GHashTable *cmap = g_hash_table_new(g_direct_hash, g_direct_equal);
    v->carry_col = g_renew(guint, v->carry_col, MAX(nc, 1));
    for (guint f = 0; f < nc; f++) {
      gpointer key = GUINT_TO_POINTER(v->carry_id[f] + 1);
      guint c = GPOINTER_TO_UINT(g_hash_table_lookup(cmap, key));
      if (c == 0)
        g_hash_table_insert(cmap, key, GUINT_TO_POINTER(c = ++mc));
      v->carry_col[f] = c - 1;
    }
    g_hash_table_unref(cmap);
  }
  w->q = v->r + w->fm.m + mc;
  if (!rebase)
    return TRUE;
  /* Carried: fresh, unknown, untouched by the view, not retained. */
  w->carry = g_new(gboolean, MAX(m, 1));
  for (guint c = 0; c < m; c++)
    w->carry[c] = !w->known[c];
  for (guint i = 0; obs_rows && i < obs_rows->len; i++) {
    guint id = g_array_index(obs_rows, guint, i);
    for (gsize e = p->start[id] + p->ngrad[id]; e < p->start[id + 1]; e++) {
      guint c = GPOINTER_TO_UINT(g_hash_table_lookup(s->fresh, GUINT_TO_POINTER(p->cols[e] + 1)));
      if (c > 0)
        w->carry[c - 1] = FALSE;
    }
  }
  for (guint c = 0; c < m; c++) {
    SimNoiseId id = g_array_index(s->fresh_ids, SimNoiseId, c);
    if ((id < s->mark->len && (s->mark->data[id] & MARK_RETAINED)) ||
        sim_noise_kind(s->reg, id) == SIM_NOISE_KIND_STATE)
      w->carry[c] = FALSE;
  }
  PrivRowPool tp = priv_row_set_pool(&s->tr);
  w->loc2 = g_new(guint, MAX(S2, 1));
  w->S2v = carried_transitions(s, v, &tp, S2, obs_rows, obs_tr, n_obs, w->known, w->carry,
                               &w->fm, w->loc2, &w->cores, w->c_start, w->c_id, w->c_val);
  return TRUE;
}

/*
 * The pivoted QR of the observed rows' noise Bo^T (q x k, column-major in
 * w->Bo). With more noise columns than rows (DECOR: a local noise per node
 * and a secret per edge, q about 4 k), an unpivoted blocked QR first
 * reduces Bo^T to its k x k triangle R0 (Bo^T = Q0 R0), whose pivoted QR
 * (R0 P = Q1 R) is then that of Bo^T: pivoted Householder steps choose
 * their columns by norms and projections, which Q0 preserves, so P and R are
 * the same in exact arithmetic, and Q = Q0 Q1. The pivoted QR spends half
 * its flops in matrix-vector products; this way only a k x k matrix goes
 * through them. Out: jpvt, and (@Rm, @ldr) the factor R. LAPACK's info.
 */
static lapack_int noise_qr(Work *w, guint k, guint q, lapack_int *jpvt, const double **Rm,
                           gsize *ldr) {
  memset(jpvt, 0, k * sizeof(lapack_int));
  if (q <= k) {
    *Rm = w->Bo;
    *ldr = q;
    return LAPACKE_dgeqp3(LAPACK_COL_MAJOR, (lapack_int)q, (lapack_int)k, w->Bo, (lapack_int)q,
                          jpvt, w->tau);
  }
  if (!w->tau0) {
    w->tau0 = g_new(double, k);
    w->Rp = g_new(double, (gsize)k * k);
  }
  lapack_int info = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)q, (lapack_int)k, w->Bo,
                                   (lapack_int)q, w->tau0);
  if (info != 0)
    return info;
  for (guint i = 0; i < k; i++) {
    memcpy(w->Rp + (gsize)i * k, w->Bo + (gsize)i * q, (i + 1) * sizeof(double));
    memset(w->Rp + (gsize)i * k + i + 1, 0, (k - 1 - i) * sizeof(double));
  }
  *Rm = w->Rp;
  *ldr = k;
  return LAPACKE_dgeqp3(LAPACK_COL_MAJOR, (lapack_int)k, (lapack_int)k, w->Rp, (lapack_int)k, jpvt,
                        w->tau);
}

/*
 * Phase 2: the observed rows' noise, factored by a pivoted QR (the dense
 * accountant's rank rule), into @rec: rank, pivots, the triangular factor,
 * the rows' scales, noise norms and dependent remainders, and the rows'
 * state and gradient coefficients. The factorization runs with the rows as
 * they come, and again with rows scaled to unit noise norm (powers of two:
 * exact; X and the new state do not change) only if the first cut a row
 * independent at its own scale, as the dense accountant. A row whose noise
 * the past explains (its conditional noise far below its prior bound: a
 * state the view pinned down, round-off in these coordinates) is never
 * scaled up. Errors: PRIV_ERROR_NUMERICAL.
 */
static gboolean factor_noise(PrivStream *s, SView *v, const PrivRowPool *p, Work *w,
                             PrivStreamRec *rec, GError **error) {
  guint k = w->rows->len, q = w->q, kq = MIN(q, k), rank = 0;
  const guint *ids = (const guint *)w->rows->data;
  rec->k = k;
  rec->q = q;
  rec->jpvt = g_new0(lapack_int, MAX(k, 1));
  rec->rn = g_new0(double, MAX(k, 1));
  rec->wt = g_memdup2(w->weight->data, MAX(k, 1) * sizeof(double));
  w->Cs = g_new(double, MAX((gsize)k * v->Sv, 1));
  w->Bo = g_new(double, MAX((gsize)k * q, 1));
  w->tau = g_new(double, MAX(kq, 1));
  double *Bo = w->Bo, *rn = rec->rn, *sc = NULL, *prior = NULL;
  const double *Rm = Bo;
  gsize ldr = q;
  lapack_int *jpvt = rec->jpvt;
  gboolean ok = TRUE;
  for (int pass = 0; pass < 2 && k > 0; pass++) {
    expand(s, v, p, ids, k, q, w->known, &w->fm, w->Cs, Bo);
    for (guint i = 0; sc && i < k; i++)
      cblas_dscal((int)q, sc[i], Bo + (gsize)i * q, 1);
    for (guint i = 0; i < k && q > 0; i++)
      rn[i] = cblas_dnrm2((int)q, Bo + (gsize)i * q, 1);
    rank = 0;
    if (q == 0) {
      for (guint i = 0; i < k; i++)
        jpvt[i] = (lapack_int)(i + 1);
      break;
    }
    lapack_int info = noise_qr(w, k, q, jpvt, &Rm, &ldr);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the QR factorization of a period's noise matrix failed (LAPACK info %d)",
                  (int)info);
      ok = FALSE;
      break;
    }
    if (pass == 0)
      v->bscale = MAX(v->bscale, fabs(Rm[0]));
    double ref = pass == 0 ? v->bscale : fabs(Rm[0]);
    while (rank < kq && pivot_counts(Rm[(gsize)rank * ldr + rank], ref, s->rank_tol))
      rank++;
    if (pass == 1)
      break;
    prior = g_new(double, k);
    for (guint i = 0; i < k; i++)
      prior[i] = prior_norm(s, p, ids[i]);
    gboolean redo = FALSE;
    for (guint i = rank; i < k && !redo; i++) {
      gsize row = (gsize)(jpvt[i] - 1);
      double pn = q > rank ? cblas_dnrm2((int)(MIN(i, q - 1) + 1 - rank), Rm + (gsize)i * ldr + rank, 1)
                           : 0.0;
      redo = pn > s->rank_tol * rn[row] && own_scale(rn[row], prior[row]);
    }
    if (!redo)
      break;
    sc = g_new(double, k);
    for (guint i = 0; i < k; i++) {
      int e = 0;
      if (rn[i] > 0)
        frexp(rn[i], &e);
      sc[i] = own_scale(rn[i], prior[i]) ? ldexp(1.0, -e) : 1.0;
    }
  }
  g_free(prior);
  rec->sc = sc;
  rec->rank = rank;
  /* The dependent rows' noise remainders, relative to their own noise
   * norms (rounding level for an exact dependency). */
  rec->rel = g_new0(double, MAX(k - rank, 1));
  for (guint i = rank; ok && i < k; i++) {
    double pn = q > rank ? cblas_dnrm2((int)(MIN(i, q - 1) + 1 - rank), Rm + (gsize)i * ldr + rank, 1)
                         : 0.0;
    double own = rn[jpvt[i] - 1];
    rec->rel[i - rank] = own > 0 ? pn / own : 0.0;
  }
  rec->rt = g_new0(double, MAX((gsize)k * rank, 1));
  for (guint i = 0; i < k; i++)
    for (guint j = 0; j < rank && j <= i; j++)
      rec->rt[(gsize)i * rank + j] = Rm[(gsize)i * ldr + j];
  if (k == 0)
    memset(w->Cs, 0, sizeof(double));
  csr_from_dense(w->Cs, k, v->Sv, &rec->cs_start, &rec->cs_col, &rec->cs_val);
  grad_csr(s, v, p, ids, k, &rec->go_start, &rec->go_col, &rec->go_val);
  return ok;
}

/*
 * Phase 3: the view's new state, given the observations: Gamma' = Ct Gamma
 * + c Gs - bq1 Y (into @rec, for the gradient side) and the noise R' R'^T =
 * (B_s Q2)(B_s Q2)^T, compressed by a QR to at most S2v columns. Takes the
 * view's new rows and carried noise from @w. Errors: PRIV_ERROR_NUMERICAL.
 */
static gboolean next_state(PrivStream *s, SView *v, Work *w, PrivStreamRec *rec, GError **error) {
  guint S2v = w->S2v, q = w->q, rank = rec->rank, kq = MIN(q, rec->k);
  PrivRowPool tp = priv_row_set_pool(&w->cores);
  guint *ids = g_new(guint, MAX(S2v, 1));
  for (guint i = 0; i < S2v; i++)
    ids[i] = i;
  double *Ct = g_new(double, MAX((gsize)S2v * v->Sv, 1));
  double *BQ = g_new(double, MAX((gsize)S2v * q, 1));
  expand(s, v, &tp, ids, S2v, q, w->known, &w->fm, Ct, BQ);
  if (S2v == 0 || v->Sv == 0)
    memset(Ct, 0, sizeof(double));
  csr_from_dense(Ct, S2v, v->Sv, &rec->ct_start, &rec->ct_col, &rec->ct_val);
  grad_csr(s, v, &tp, ids, S2v, &rec->gs_start, &rec->gs_col, &rec->gs_val);
  g_free(Ct);
  g_free(ids);
  rec->transition = TRUE;
  rec->s2v = S2v;
  for (guint i = 0; i < S2v; i++)
    v->bscale = MAX(v->bscale, cblas_dnrm2((int)q, BQ + (gsize)i * q, 1));
  gboolean ok = TRUE;
  double *Rn = NULL;
  guint r2 = 0;
  if (rank > 0) {
    /* B_s Q through the kq reflectors of the QR, without forming Q:
     * (B_s Q)^T = Q^T B_s^T, and B_s row-major is B_s^T column-major. */
    lapack_int info = 0;
    if (w->Rp) /* two stages (noise_qr): Q^T = Q1^T Q0^T, Q1 on the top k rows */
      info = LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'T', (lapack_int)q, (lapack_int)S2v,
                            (lapack_int)rec->k, w->Bo, (lapack_int)q, w->tau0, BQ, (lapack_int)q);
    if (info == 0)
      info = LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'T', (lapack_int)(w->Rp ? rec->k : q),
                            (lapack_int)S2v, (lapack_int)kq, w->Rp ? w->Rp : w->Bo,
                            (lapack_int)(w->Rp ? rec->k : q), w->tau, BQ, (lapack_int)q);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "applying a period's orthogonal factor failed (LAPACK info %d)", (int)info);
      ok = FALSE;
      goto out;
    }
  }
  rec->bq1 = g_new(double, MAX((gsize)S2v * rank, 1));
  for (guint i = 0; i < S2v; i++)
    memcpy(rec->bq1 + (gsize)i * rank, BQ + (gsize)i * q, rank * sizeof(double));
  guint pq = q - rank;
  if (pq > S2v) {
    double *t2 = g_new(double, S2v);
    lapack_int info = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)pq, (lapack_int)S2v, BQ + rank,
                                     (lapack_int)q, t2);
    g_free(t2);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "compressing a period's state covariance failed (LAPACK info %d)", (int)info);
      ok = FALSE;
      goto out;
    }
    r2 = S2v;
    Rn = g_new0(double, MAX((gsize)S2v * S2v, 1));
    for (guint i = 0; i < S2v; i++)
      for (guint j = 0; j <= i; j++)
        Rn[(gsize)i * S2v + j] = BQ[rank + j + (gsize)i * q];
  } else {
    r2 = pq;
    Rn = g_new(double, MAX((gsize)S2v * pq, 1));
    for (guint i = 0; i < S2v; i++)
      memcpy(Rn + (gsize)i * pq, BQ + (gsize)i * q + rank, pq * sizeof(double));
  }
  g_free(v->R);
  v->R = Rn;
  v->r = r2;
  g_free(v->loc);
  v->loc = w->loc2;
  w->loc2 = NULL;
  v->Sv = S2v;
  v->max_sv = MAX(v->max_sv, S2v);
  g_free(v->carry_start);
  g_free(v->carry_id);
  g_free(v->carry_val);
  v->carry_start = (guint *)g_array_free(w->c_start, FALSE);
  v->carry_id = (guint32 *)g_array_free(w->c_id, FALSE);
  v->carry_val = (double *)g_array_free(w->c_val, FALSE);
  w->c_start = w->c_id = w->c_val = NULL;
out:
  g_free(BQ);
  return ok;
}

/* The bytes the other views' gradient sides hold. */
static gsize other_views_bytes(const PrivStream *s, const SView *v) {
  gsize b = 0;
  for (guint i = 0; i < s->views->len; i++)
    if (g_ptr_array_index(s->views, i) != v)
      b += priv_stream_grad_bytes(((const SView *)g_ptr_array_index(s->views, i))->grad);
  return b;
}

/* The noise side's matrices for the next state: the state's factor R, the
 * rows' noise and its QR, the transition's coefficients (dense while
 * formed), its noise and the new factor. */
static gsize noise_bytes(const SView *v, const Work *w, guint k) {
  double S2v = w->S2v, q = w->q;
  double d = (double)v->Sv * v->r + (double)k * (q + v->Sv) + S2v * (v->Sv + q + MIN(q, S2v));
  return d * 8.0 < (double)G_MAXSIZE / 2 ? (gsize)(d * 8.0) : G_MAXSIZE / 2;
}

/*
 * One view's period: its columns, the noise factorization, the new state
 * (with @rebase), then the record to the gradient side, after a memory
 * check naming the bytes (a protocol whose state is larger than the
 * pre-check's lower bound, Zip-DL's unsent self-payloads under SecLDP and
 * LDP, is stopped at the first checkpoints, not hours later by the system).
 */
static gboolean view_period(PrivStream *s, SView *v, const PrivRowPool *p, GArray *obs_rows,
                            gboolean rebase, guint m, guint S2, const guint *obs_tr, guint n_obs,
                            GError **error) {
  Work w = {0};
  PrivStreamRec *rec = g_new0(PrivStreamRec, 1);
  rec->tsteps = s->tsteps;
  rec->sv = v->Sv;
  gboolean ok = period_columns(s, v, p, obs_rows, rebase, m, S2, obs_tr, n_obs, &w, error) &&
                factor_noise(s, v, p, &w, rec, error);
  if (ok && rebase)
    ok = priv_stream_grad_fits(v->grad, rec, w.S2v, other_views_bytes(s, v),
                               noise_bytes(v, &w, rec->k), error) &&
         next_state(s, v, &w, rec, error);
  work_clear(&w);
  if (!ok) {
    priv_stream_rec_free(rec);
    return FALSE;
  }
  return priv_stream_grad_add(v->grad, rec, s->ea, error);
}

/* The largest gradient (times clip) and noise coefficients of @k rows
 * @ids of @p; a state variable's coefficient counts times its prior noise
 * bound (a view that first observes a period late sees only state). */
static void coef_max(const PrivStream *s, const PrivRowPool *p, const guint *ids, gsize k,
                     double *a, double *b) {
  for (gsize i = 0; i < k; i++) {
    guint id = ids[i];
    for (gsize e = p->start[id]; e < p->start[id + 1]; e++) {
      if (e < p->start[id] + p->ngrad[id])
        *a = MAX(*a, s->clip * fabs(p->vals[e]));
      else {
        guint j = GPOINTER_TO_UINT(g_hash_table_lookup(s->state, GUINT_TO_POINTER(p->cols[e] + 1)));
        *b = MAX(*b, fabs(p->vals[e]) * (j > 0 ? s->nu[j - 1] : 1.0));
      }
    }
  }
}

/*
 * Fixes the exponents of the scale-free accounting from the first period
 * whose observed rows have both gradient and noise coefficients (the
 * observed rows, as the dense accountant; the rule of
 * priv_knowledge_blocks_scaled: none for coefficients within 2^+-200 and
 * within 2^100 of each other), and brings what earlier periods accumulated
 * to the same units (powers of two: exact). Errors: PRIV_ERROR_NUMERICAL
 * when noise and gradients are more than 2^1000 apart.
 */
static gboolean fix_scale(PrivStream *s, const PrivRowPool *pool, GArray *const *view_rows,
                          GError **error) {
  if (s->scale_fixed)
    return TRUE;
  double a = 0.0, b = 0.0;
  for (guint w = 0; w < s->views->len; w++)
    if (view_rows[w])
      coef_max(s, pool, (const guint *)view_rows[w]->data, view_rows[w]->len, &a, &b);
  if (!(a > 0 && b > 0))
    return TRUE; /* not yet */
  s->scale_fixed = TRUE;
  int ea, eb;
  gboolean scale;
  if (!priv_scale_exponents(a, b, &scale, &ea, &eb, error))
    return FALSE;
  if (!scale)
    return TRUE;
  s->ea = ea;
  s->eb = eb;
  /* Earlier periods had only one kind of coefficient, so this is exact (an
   * X that overflows here is inf: no protection, never a smaller number). */
  for (guint w = 0; w < s->views->len; w++) {
    SView *v = g_ptr_array_index(s->views, w);
    priv_stream_grad_rescale(v->grad, ea, eb);
    for (gsize i = 0; i < (gsize)v->Sv * v->r; i++)
      v->R[i] = ldexp(v->R[i], -eb);
    v->bscale = ldexp(v->bscale, -eb);
    if (w == 0)
      for (guint j = 0; j < s->S; j++)
        s->nu[j] = ldexp(s->nu[j], -eb);
  }
  return TRUE;
}

gboolean priv_stream_period(PrivStream *s, const PrivRowPool *pool, GArray *const *view_rows,
                            gboolean rebase, GError **error) {
  transitions_reset(s);
  if (rebase) {
    /* Fresh noise that no view has observed yet (Zip-DL's payloads in
     * flight) stays out of the state: see keep_fresh. */
    guint nids = sim_noise_registry_count(s->reg), old = s->mark->len;
    g_byte_array_set_size(s->mark, MAX(nids, old));
    guint8 *mk = s->mark->data;
    if (s->mark->len > old)
      memset(mk + old, 0, s->mark->len - old); /* mk NULL if empty */
    for (guint i = 0; i < old; i++)
      mk[i] = (mk[i] & MARK_NOW) ? MARK_PREV : 0; /* no RETAINED */
    for (guint w = 0; w < s->views->len; w++) {
      GArray *rows = view_rows[w];
      for (guint i = 0; rows && i < rows->len; i++) {
        guint id = g_array_index(rows, guint, i);
        for (gsize e = pool->start[id] + pool->ngrad[id]; e < pool->start[id + 1]; e++)
          if (pool->cols[e] < s->mark->len)
            mk[pool->cols[e]] |= MARK_TOUCHED;
      }
    }
    GArray *kept = sim_noise_retained(s->reg);
    for (guint i = 0; i < kept->len; i++)
      if (g_array_index(kept, SimNoiseId, i) < s->mark->len)
        mk[g_array_index(kept, SimNoiseId, i)] |= MARK_TOUCHED | MARK_RETAINED;
    g_array_unref(kept);
    if (!sim_lin_space_rebase_keeping(s->space, keeping_pays(s) ? keep_record : NULL, on_rebase, s,
                                      error))
      return FALSE;
  }
  g_hash_table_remove_all(s->fresh);
  g_array_set_size(s->fresh_ids, 0);
  /* Columns of the period: the rows every view saw, then the transitions. */
  for (guint w = 0; w < s->views->len; w++) {
    GArray *rows = view_rows[w];
    for (guint i = 0; rows && i < rows->len; i++)
      if (!scan_row(s, pool, g_array_index(rows, guint, i), error))
        return FALSE;
  }
  PrivRowPool tp = priv_row_set_pool(&s->tr);
  guint S2 = s->tr.rows.ngrad->len;
  for (guint i = 0; i < S2; i++)
    if (!scan_row(s, &tp, i, error))
      return FALSE;
  if (!fix_scale(s, pool, view_rows, error))
    return FALSE;
  guint m = s->fresh_ids->len;
  double *nu2 = NULL;
  if (rebase) {
    nu2 = g_new(double, MAX(S2, 1));
    for (guint i = 0; i < S2; i++)
      nu2[i] = prior_norm(s, &tp, i);
  }
  /* Per pool row observed by a view, the transition row it is (a payload
   * still in flight): a constant to the views that observed it. */
  guint n_obs = 0;
  for (guint w = 0; w < s->views->len; w++)
    for (guint i = 0; view_rows[w] && i < view_rows[w]->len; i++)
      n_obs = MAX(n_obs, g_array_index(view_rows[w], guint, i) + 1);
  guint *obs_tr = g_new(guint, MAX(n_obs, 1));
  for (guint i = 0; i < n_obs; i++)
    obs_tr[i] = G_MAXUINT - 1; /* not looked up yet */
  for (guint w = 0; w < s->views->len; w++)
    for (guint i = 0; rebase && view_rows[w] && i < view_rows[w]->len; i++) {
      guint id = g_array_index(view_rows[w], guint, i);
      if (obs_tr[id] != G_MAXUINT - 1)
        continue;
      gsize st = pool->start[id];
      obs_tr[id] = priv_row_set_find(&s->tr, pool->cols + st, pool->vals + st,
                                     pool->start[id + 1] - st, pool->ngrad[id]);
    }
  for (guint w = 0; w < s->views->len; w++)
    if (!view_period(s, g_ptr_array_index(s->views, w), pool, view_rows[w], rebase, m, S2, obs_tr,
                     n_obs, error)) {
      g_free(obs_tr);
      g_free(nu2);
      return FALSE;
    }
  g_free(obs_tr);
  if (!rebase) {
    for (guint w = 0; w < s->views->len; w++)
      if (!priv_stream_grad_finish(((SView *)g_ptr_array_index(s->views, w))->grad, s->ea, error))
        return FALSE;
    return TRUE;
  }
  g_free(s->nu);
  s->nu = nu2;
  /* Close the period: fresh and old state variables are gone for good. */
  for (guint c = 0; c < m; c++)
    retire(s, g_array_index(s->fresh_ids, SimNoiseId, c));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, s->state);
  while (g_hash_table_iter_next(&it, &key, NULL))
    retire(s, GPOINTER_TO_UINT(key) - 1);
  g_hash_table_remove_all(s->state);
  for (guint i = 0; i < s->out_ids->len; i++) {
    SimNoiseId id = g_array_index(s->out_ids, SimNoiseId, i);
    guint row = g_array_index(s->out_row, guint, i);
    g_hash_table_insert(s->state, GUINT_TO_POINTER(id + 1), GUINT_TO_POINTER(row + 1));
    if (id < s->retired->len)
      s->retired->data[id] = 0; /* retained: alive again */
  }
  s->S = S2;
  s->max_state = MAX(s->max_state, S2);
  if (s->progress)
    s->progress(s->tsteps, s->T, s->progress_data);
  return TRUE;
}

PrivBlocks *priv_stream_blocks(const PrivStream *s, guint view, GError **error) {
  const SView *v = g_ptr_array_index(s->views, view);
  const PrivBlocks *vb = priv_stream_grad_blocks(v->grad);
  const gboolean *unprot = priv_stream_grad_unprot(v->grad);
  guint T = s->T;
  PrivBlocks *b = priv_blocks_new(s->n, T, error);
  if (!b)
    return NULL;
  for (guint u = 0; u < s->n; u++) {
    b->status[u] = vb->status[u];
    if (unprot[u] || v->is_member[u] || b->status[u] == PRIV_NODE_UNRESOLVED)
      continue;
    const double *src = vb->X + (gsize)u * T * T;
    double *X = b->X + (gsize)u * T * T;
    for (guint i = 0; i < T; i++)
      for (guint j = i; j < T; j++)
        X[(gsize)i * T + j] = X[(gsize)j * T + i] = src[(gsize)i * T + j];
  }
  if (s->ea != 0 || s->eb != 0)
    priv_blocks_set_scale(b, ldexp(1.0, s->eb - s->ea));
  return b;
}
