/*
 * protocols/internal.h: the runtime's data structures, shared by the
 * runtime*.c files and the built-in protocols. Internal to protocols/.
 */
#ifndef DPG_PROTOCOLS_INTERNAL_H
#define DPG_PROTOCOLS_INTERNAL_H

#include <signal.h>
#include <stdarg.h>

#include "mf/mf.h"
#include "protocols/plugin.h"
#include "protocols/protocols.h"

/* ---- Parameters (params.c) ------------------------------------------------ */

typedef struct {
  const ProtoParamSpec *spec;
  gboolean set; /* given by the user */
  gboolean has; /* a value exists (given or default) */
  gint64 i;
  double d;
  gboolean b;
  char *s;
} ProtoParamValue;

struct ProtoParams {
  const ProtoVTable *vt;
  ProtoParamValue *values; /* vt->n_params */
};

/* Whether @name (nullable) can name a protocol or a parameter, and so a
 * plugin file NAME.so: letters, digits, '_' and '-', at least one. O(length). */
gboolean proto_name_valid(const char *name);

/* The registered protocol called @name whatever the thread's plugin scope
 * (registry.c), for the loader's clash checks. Thread-safe. */
const ProtoVTable *proto_registry_lookup_any(const char *name);

/* Whether the calling thread's plugin scope (plugin_load.c) shows @vt:
 * always without a scope and for the built-ins, else when the scope's call
 * loaded or found it. O(plugins of the scope). */
gboolean proto_plugin_scope_shows(const ProtoVTable *vt);

/* Checks a vtable's declaration (ABI version, name, parameter specs and
 * defaults). Errors: PROTO_ERROR_INVALID_ARGUMENT. */
gboolean proto_vtable_check(const ProtoVTable *vt, GError **error);

/* The bytes of a version-1 vtable: today's fields up to finish (fields are
 * only appended, and finish is a pointer like the field after it, so no
 * padding differs). */
#define PROTO_VTABLE_V1_SIZE G_STRUCT_OFFSET(ProtoVTable, step)

/* The bytes of a vtable of version @v (a plugin's static object is only that
 * long): fields up to the first one a later version appended. */
gsize proto_vtable_size(guint v);

/* The handlers a run calls (runtime_skeleton.c): @vt's, with the runtime's
 * defaults where a vtable of version 2 or later leaves one NULL; a version-1
 * vtable's are taken as they are (NULL: no handler). */
void proto_vtable_resolve(const ProtoVTable *vt, ProtoVTable *handlers);

/* ---- Gossip matrices of a round (runtime_gossip.c) ------------------------ */

/* W_r with zero off-diagonal weights dropped and the diagonal always present,
 * by rows (in-neighbours) and by columns (out-neighbours). */
typedef struct {
  guint round;
  guint pending;           /* nodes that have not finished this round's gather */
  guint *in_ptr, *in_cols; /* CSR of W_r */
  double *in_vals;
  guint *out_ptr, *out_cols; /* CSR of W_r^T: column u of W_r */
  double *out_vals;
} ProtoRoundW;

/* W of @round (created on first use; owned by the context). */
ProtoRoundW *proto_round_w_get(ProtoContext *ctx, guint round, GError **error);
/* A node finished its gather of @round: frees W_r once every node has. */
void proto_round_w_release(ProtoContext *ctx, ProtoRoundW *w);
void proto_round_w_free(ProtoRoundW *w);

/* ---- A node's inbox (runtime_inbox.c) ------------------------------------- */

/* Messages received, keyed by (round << 32 | sender); each holds a
 * reference. Empty slots have msg NULL. */
typedef struct {
  guint64 key;
  SimMessage *msg;
} ProtoInboxSlot;

typedef struct {
  ProtoInboxSlot *slots; /* cap slots, cap a power of two (0: none yet) */
  guint cap, len;
} ProtoInbox;

/* The message stored under @key (transfer none), or NULL. O(1) expected. */
SimMessage *proto_inbox_lookup(const ProtoInbox *in, guint64 key);
/* Stores @msg (takes its reference) under @key, releasing the message it
 * replaces. O(1) amortized. */
void proto_inbox_insert(ProtoInbox *in, guint64 key, SimMessage *msg);
typedef gboolean (*ProtoInboxPredicate)(guint64 key, gpointer data);
/* Releases every message whose key @useless says is useless. O(cap). */
void proto_inbox_remove_if(ProtoInbox *in, ProtoInboxPredicate useless, gpointer data);
/* Releases every message and the table. */
void proto_inbox_clear(ProtoInbox *in);

/* ---- The context and its nodes -------------------------------------------- */

/* Runtime timer tags: bit 63 set, the kind in bits 56..62, the round below. */
#define PROTO_TIMER_RUNTIME (G_GUINT64_CONSTANT(1) << 63)
#define PROTO_TIMER_SEND (PROTO_TIMER_RUNTIME | (G_GUINT64_CONSTANT(1) << 56))
#define PROTO_TIMER_DEADLINE (PROTO_TIMER_RUNTIME | (G_GUINT64_CONSTANT(2) << 56))
/* Stale mode: a message to the node was lost; recheck the gather of the round. */
#define PROTO_TIMER_LOST (PROTO_TIMER_RUNTIME | (G_GUINT64_CONSTANT(3) << 56))
#define PROTO_TIMER_KIND_MASK (PROTO_TIMER_RUNTIME | (G_GUINT64_CONSTANT(0x7f) << 56))

struct ProtoNode {
  ProtoContext *ctx;
  guint id;
  gpointer state;
  SimLinvec *model;
  guint step;         /* local steps taken */
  guint round;        /* the next round to exchange, or the round being gathered */
  gboolean exchanged; /* round `round` was exchanged (maybe not sent yet) */
  gboolean gathering; /* ... and sent: its gather is in progress */
  gboolean ready;     /* the gather is complete, on_gathered is due */
  gboolean done;
  SimTime busy_until; /* end of the local computation of the current step */

  /* Round being exchanged. */
  ProtoRoundW *w;
  SimMessage *own;   /* the node's own input */
  GPtrArray *outbox; /* messages waiting for the compute time, aligned with out_cols */
  guint8 *have;      /* per position of the in-row: an input is available */
  gsize have_cap;
  guint n_missing;
  SimEventId deadline_timer;

  ProtoInbox inbox;      /* (round << 32 | from) -> SimMessage* (ref) */
  GHashTable *last_used; /* stale mode: from -> 1 + round of the message last used */
  GHashTable *lost;      /* stale mode: (round << 32 | from) of messages to it lost */

  double *grad, *scratch; /* task buffers */
};

/* A snapshot waiting for evaluation in a worker thread. */
typedef struct {
  ProtoContext *ctx;
  guint eval_index;
  guint node;
  double *params; /* owned */
} ProtoEvalJob;

struct ProtoContext {
  ProtoRun *run;
  /* Configuration (strings owned). */
  guint n, T, k, b;
  double sigma, clip, lr, compute_ms;
  double step; /* lr / expected batch size: see proto_context_step_size */
  guint64 seed;
  /* The seed of a fitted C's sketch (probes=K): the run's public
   * randomness, its seed or, when set, the delivery seed that the runs of an
   * audit share, so that every trial runs the one C `account --seed` fits. */
  guint64 c_seed;
  ProtoCCache *c_cache; /* borrowed, nullable (ProtoRunConfig.c_cache) */
  ProtoMode mode;
  /* The run's mode, latency and loss as given (owned, NULL: not) and its
   * gossip weights: what Mafalda's C in deadline and stale modes is fitted
   * to (proto_cmatrix_build: the delivery records of c_seed). */
  char *mode_spec, *latency_spec, *loss_spec;
  TopoGossipKind gossip;
  guint threads;
  guint eval_every;
  SimLinStorage storage;
  gboolean rebased; /* ProtoRunConfig.rebased */
  /* The nodes whose models carry provenance in the memory pre-check: n, or
   * for the local path's lower-bound run (ProtoRunConfig.nuisance_from) the
   * ball and its shell (beyond, messages carry none; that run's provenance
   * is also watched round by round, protocols/account_ball_lower.c). */
  guint prov_nodes;

  const ProtoVTable *vt; /* as registered: name, parameters */
  ProtoVTable handlers;  /* what the run calls: proto_vtable_resolve(vt) */
  ProtoParams *params;
  gpointer run_state;
  gboolean run_state_set;

  SimEngine *engine;
  SimNoiseRegistry *noise;
  SimLinSpace *space;
  double *noise_z;        /* proto_node_add_local_noise's sample (dim values, lazy) */
  TopoGraph *graph;       /* owned copy, or NULL */
  TopoSchedule *schedule; /* owned or borrowed (schedule_owned) */
  gboolean schedule_owned;
  gboolean is_static;
  ProtoRoundW *static_w;
  GHashTable *round_w; /* round -> ProtoRoundW* (time-varying) */
  GHashTable *secrets; /* edge secrets being fetched: EdgeKey -> EdgeSecret */

  ProtoNode *nodes;
  GError *error; /* first error raised inside a handler */
  volatile sig_atomic_t cancelled;
  gboolean ran;

  /* Task (all NULL in accounting-only runs). */
  LearnDataset *train, *test;
  LearnPartition *partition;
  LearnModel *model;
  const ProtoExternalTask *external; /* or the caller's task (borrowed) */
  double *init_params;
  gsize dim;

  /* Evaluation. */
  guint n_evals;
  guint *eval_steps;    /* n_evals steps, increasing, the last is T */
  guint eval_nodes_asked, eval_rows_asked; /* ProtoRunConfig's */
  guint64 eval_seed;                       /* the stream the samples are drawn from */
  guint n_eval;         /* nodes evaluated */
  guint *eval_slot;     /* per node: its index among the evaluated, G_MAXUINT if none;
                         * NULL: every node, in order */
  gsize *test_rows;     /* the test rows used, increasing; NULL: every row */
  gsize n_test_rows;
  ProtoMetric *metrics; /* n_evals x n_eval, row (e, i) = e * n_eval + i */
  GThreadPool *pool;
  /* With a pool: per evaluation, the nodes evaluated (under eval_lock; the
   * lock also publishes the rows to the sim thread). */
  guint *eval_done;
  GMutex eval_lock;
  GCond eval_cond;

  /* Rounds and live metrics (runtime_eval.c). */
  GArray *reached;   /* per step s: nodes that have taken s local steps */
  gboolean started;  /* round 0 published */
  guint rounds_done; /* the last round completed (and published) */
  guint n_handed;    /* evaluation steps handed to metrics_func */
  ProtoMetricsFunc metrics_func;
  gpointer metrics_data;
  guint metrics_lag;

  /* Progress and counters. */
  ProtoProgressFunc progress;
  gpointer progress_data;
  ProtoGradientFunc gradient; /* replaces the task's gradients (audits) */
  gpointer gradient_data;
  ProtoGatherFunc gather; /* sees every completed gather (accounting) */
  gpointer gather_data;
  guint64 steps_total, steps_done;
  guint progress_last;
  guint64 gathers, late_discarded, stale_inputs, partial_gathers;
};

/* Records the first error of a handler and stops the engine (takes @error). */
void proto_context_fail(ProtoContext *ctx, GError *error);

/* Engine handlers (runtime_exchange.c). */
extern const SimNodeHandlers proto_runtime_handlers;
/* Frees what a node's exchange state holds (inbox, own message...). */
void proto_node_clear_exchange(ProtoNode *node);
/* The deadline of a gather, in ns after it begins (deadline mode). O(1). */
SimTime proto_deadline_ns(const ProtoContext *ctx);
/* The local computation of a step, in ns (ProtoRunConfig.compute_ms). O(1). */
SimTime proto_compute_ns(const ProtoContext *ctx);
/* A partial gather of node @u: the weights of its @k inputs (in row order)
 * renormalised to sum 1 (nothing but a zero-weight self: 1 on u). The one
 * home of this arithmetic: complete_gather and the timing pass. O(k). */
void proto_gather_renormalise(ProtoInput *inputs, guint k, guint u);

/* ---- A delivery record fed by a timing pass (account_deliveries.c) ------ */

/* An empty record of @R rounds over @n_kept nodes: @keep (n entries: node
 * -> kept index, G_MAXUINT when left out) and @rows (@n_kept flags: whose
 * gathers are recorded), both borrowed until proto_deliveries_feed_end. */
ProtoDeliveries *proto_deliveries_feed_new(guint R, const guint *keep, guint n_kept,
                                           const guint8 *rows);
/* Node @u's gather of round @r, as ProtoGatherFunc hands it (the runtime's
 * weights). Kept rows only; an inconsistency is kept and returned by
 * proto_deliveries_feed_end. */
void proto_deliveries_feed_gather(ProtoDeliveries *d, guint u, guint r, guint n_inputs,
                                  const ProtoInput *inputs);
/* A transmission (@from, round @r) to @to, @lost or not: the bus's SENT
 * (and DROPPED) events of the engine's run. */
void proto_deliveries_feed_message(ProtoDeliveries *d, guint from, guint to, guint r,
                                   gboolean lost);
/* The timing pass's ties outside the recorded rows (proto_deliveries_ties). */
void proto_deliveries_feed_ties(ProtoDeliveries *d, guint64 ties);
/* The record built from what was fed, with the run's @late and @partial
 * counts; NULL (and @d freed) with @error. O(messages log messages). */
ProtoDeliveries *proto_deliveries_feed_end(ProtoDeliveries *d, guint64 late, guint64 partial,
                                           GError **error);

/* Evaluation (runtime_eval.c). */
gboolean proto_eval_setup(ProtoContext *ctx, GError **error);
/* Evaluates (or queues) node u's current model as step @step, when it is an
 * evaluation step. */
void proto_eval_maybe(ProtoContext *ctx, ProtoNode *node, guint step);
/* Waits for queued evaluations. */
void proto_eval_finish(ProtoContext *ctx);
/* The run starts: publishes round 0. */
void proto_rounds_start(ProtoContext *ctx);
/* A node has taken @step local steps (it holds theta_step, already
 * evaluated if @step is an evaluation step): completes round @step when it
 * is the last, then hands the metrics that became due to metrics_func. */
void proto_step_reached(ProtoContext *ctx, guint step);
/* After a successful simulation: waits for the evaluations and hands every
 * step not handed yet to metrics_func. Errors: metrics_func's. */
gboolean proto_metrics_flush(ProtoContext *ctx, GError **error);

/* Noise helpers (runtime_noise.c). */
void proto_secrets_free(ProtoContext *ctx);

/* ---- Noise correlation matrices (cmatrix.c) --------------------------------- */

/* C_local of a named family (identity, antipgd, sr, bsr, mafalda) or a CSV
 * file (T x T lower triangular with a nonzero diagonal). @band: bsr's band
 * (0: b) or mafalda's band (0: none). Returns the T x T row-major C (g_free). */
/* The least memory of @n_gossip gossip matrices on @nodes nodes held at
 * once (a time-varying schedule's K T rounds on the structured path): each
 * its header, its row offsets and its diagonal. Saturates. O(1). */
gsize proto_schedule_gossips_bytes(guint64 n_gossip, gsize nodes);

/* W_round of @schedule as an n x n row-major array (g_free): what
 * proto_context_gossip_dense gives a protocol, for callers without a run
 * (the accounting plan). Errors: PROTO_ERROR_FAILED naming the round. O(n^2). */
double *proto_schedule_gossip_dense(TopoSchedule *schedule, guint round, GError **error);

double *proto_cmatrix_build(ProtoContext *ctx, const char *spec, guint band, guint buffers,
                            guint probes, guint samples, GError **error);
/* Reads a T x T lower-triangular CSV matrix; errors name FILE:LINE[:COLUMN]. */
double *proto_cmatrix_load_csv(const char *path, guint T, GError **error);
/* The banded Toeplitz C_local (band r->band, 0: b) fitted to the recipe's
 * static gossip (mf_mafalda_toeplitz_c): each node streams its noise from
 * band - 1 past noises. Errors: PROTO_ERROR_INVALID_ARGUMENT (time-varying
 * schedule), PROTO_ERROR_FAILED (the fit's error), the gossip's. */
double *proto_cmatrix_toeplitz(const ProtoCRecipe *r, GError **error);
/* proto_c_check_memory: mf_gram_check_memory for @r's exact fit on @n
 * nodes, its refusal naming probes= as the way out (account_plan.c). */
gboolean proto_c_check_memory(const ProtoCRecipe *r, guint n, GError **error);
/* proto_c_sketch: proto_sketch_gram of @r's gossip (its schedule, or a
 * static one on its graph) with @r's probes and seed; errors prefixed
 * "C=SPEC,probes=K: " (account_plan.c). */
gboolean proto_c_sketch(const ProtoCRecipe *r, double **H, MfGramSpectral **form,
                        GError **error);
/* The BLT strategy of r->buffers buffers fitted to the recipe's static
 * reversible gossip (mf_mafalda_blt), or with r->probes to its sketch's
 * Frobenius form (any static W): @theta, @w (r->buffers each, out).
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (buffers out of 1..
 * MF_BLT_MAX_BUFFERS, time-varying schedule), PROTO_ERROR_FAILED (the
 * fit's error: a non-reversible W among them), the gossip's. */
gboolean proto_cmatrix_blt_fit(const ProtoCRecipe *r, double *theta, double *w, GError **error);
/* proto_cmatrix_blt_fit for the run of @ctx (from its C memo when it has
 * one: ProtoRunConfig.c_cache), sketched from @probes probes (0: exact)
 * seeded by the run's seed. */
gboolean proto_cmatrix_build_blt(ProtoContext *ctx, guint buffers, guint probes, double *theta,
                                 double *w, GError **error);
/* The same as the dense T x T lower-triangular C_local (g_free), for the
 * accountants. */
double *proto_cmatrix_blt(const ProtoCRecipe *r, GError **error);
/* The inverse of a lower-triangular C with nonzero diagonal (g_free). O(T^3). */
double *proto_cmatrix_lower_inverse(const double *C, guint T);
/* Largest t - s over nonzero entries M[t,s], s < t (0 for a diagonal M). */
guint proto_cmatrix_bandwidth(const double *M, guint T);

/* ---- The local path on the observer path (account_ball.c) ------------------ */

/*
 * proto_account_ball: the local bound of accounting @a of planned job @j
 * at j->radius (docs/local-bounds.md, "The observer path's ball"): @cfg's
 * run of the whole graph (j's links set on it), its provenance kept over
 * the ball only (ProtoRunConfig.kept), observed by the attackers and the
 * shell under the accounting's trust model; the dense or streaming
 * accountant as j->streaming says. Victims: the ball's, node ids of the
 * graph, distance their hops; mu_lower 0 (not computed) unless the ball
 * covers the graph (then mu, the exact value). @info: (out) the ball.
 * Errors: proto_observed_run_new's (the memory pre-checks, over the ball's
 * columns), the run's, the accountant's (PRIV_ERROR_MEMORY prefixed with
 * the ball's size), priv_account_report's.
 * Complexity: the whole run's simulation, then the accountant on |ball| T
 * gradient columns.
 */
PrivReport *proto_account_ball(ProtoAccountJob *j, guint a, const ProtoRunConfig *cfg,
                               const PrivAccountOptions *opt, PrivLocalInfo *info,
                               GError **error);
/*
 * ProtoLayerGuard: the local path's assumption that a message crosses the
 * layers of hops from the attackers one at a time, watched on a run
 * (proto_layer_guard_on_sent, a SimBus handler of SIM_BUS_MESSAGE_SENT):
 * the first model message between a node within @radius hops and one more
 * than @radius + 1 hops away, sent from the inner one (@inward FALSE: the
 * ball telling the outside, account_ball.c) or to it (@inward TRUE: the
 * outside entering the kept nodes, account_ball_lower.c), sets @broken and
 * is kept in @from and @to. @dist: n hops (G_MAXUINT beyond what was
 * counted), borrowed.
 */
typedef struct {
  const guint *dist;
  guint n, radius;
  gboolean inward;
  gboolean broken;
  guint from, to;
} ProtoLayerGuard;
void proto_layer_guard_on_sent(const SimBusEvent *ev, gpointer data);
/*
 * proto_account_ball_lower: the certified lower bound of proto_account_ball
 * (account_ball_lower.c; docs/local-bounds.md, "The observer path's ball:
 * the lower bound"): every victim's mu_lower in @report (ball victims by
 * graph node id), mu_lower <= exact. @dist: the hops from the attackers up
 * to j->radius + 2 (G_MAXUINT beyond). Covering the graph (@shell empty), the
 * @upper blocks (the exact ones, ball indices) priced from below; else a
 * second run of @cfg's whole graph, its provenance kept over the ball and
 * the shell, observed by the attackers alone: with nodes at radius + 2
 * (the outer layer), their messages as nuisance, projected out, the dense
 * accountant whatever j->streaming says; with none, the attackers' true
 * view by the job's accountant (the exact value); where that run cannot
 * be had, the ball alone with the shell's messages as nuisance. Never
 * fails: where neither can be computed (memory, a message from beyond the
 * shell into the ball), every mu_lower is 0 and @info->lower_note says
 * why. Returns the microseconds of wall time its run's simulation took (0: none), which --tightness's
 * estimate does not grow with the radius.
 * Complexity: the whole run's simulation, then O(m p min(m, p) + m c
 * min(m, p)) for m observed messages, p outer messages among them and c
 * columns of the ball and the shell, then the dense accountant and one SDP
 * per victim.
 */
gint64 proto_account_ball_lower(ProtoAccountJob *j, guint a, const ProtoRunConfig *cfg,
                                const guint *dist, const GArray *ball, const GArray *shell,
                                const PrivBlocks *upper, PrivReport *report,
                                PrivLocalInfo *info);
/* The job's link overrides on @engine ("--link FROM:TO: ..." errors). */
gboolean proto_account_job_set_links(const ProtoAccountJob *j, SimEngine *engine, GError **error);

/* ---- Built-in protocols ----------------------------------------------------- */

extern const ProtoVTable proto_dsgd_vtable;
extern const ProtoVTable proto_muffliato_vtable;
extern const ProtoVTable proto_mfdsgd_vtable;
extern const ProtoVTable proto_antipgd_vtable;
extern const ProtoVTable proto_mafalda_vtable;
extern const ProtoVTable proto_decor_vtable;
extern const ProtoVTable proto_zipdl_vtable;

/* Sets a G_OPTION_ERROR_BAD_VALUE (a usage error) of @fmt: the accounting
 * checks' (account_plan.c, account_validate.c). FALSE. */
gboolean proto_bad_valuev(GError **error, const char *fmt, va_list ap) G_GNUC_PRINTF(2, 0);

#endif /* DPG_PROTOCOLS_INTERNAL_H */
