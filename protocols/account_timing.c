/*
 * protocols/account_timing.c: a ball's delivery record from a timing-only
 * pass over the whole graph (docs/local-bounds.md, "Asynchronous runs",
 * option (b)), for the protocols whose timing is D-SGD's or Muffliato's, in
 * deadline and in stale mode.
 *
 * The record of an asynchronous run decides the ball's rows of W_r, and
 * the ball's timing is the whole graph's (send times spread one hop per
 * round). proto_deliveries_record_ball runs the engine over the whole
 * graph for it: an event queue of n d messages a round, ~4.7 us each on a
 * million nodes. This pass computes the same record round by round with no
 * event queue and no models, from the run's own pieces:
 *
 *   - send times: node u sends round r when its round-(r - 1) gather
 *     completes, plus the local computation (proto_compute_ns) when round r
 *     starts a step (round 0 at time 0 + that); a later round of a step
 *     leaves at once, since the computation ended before its own round's
 *     messages left;
 *   - each message's loss and arrival: sim_engine_draw_transmission, the
 *     engine's own draws (keyed by link, round and tag: sim_rng_message_seed),
 *     at its sender's send time;
 *   - a gather's completion and inputs (runtime_exchange.c), by mode below.
 *
 * Which protocols. The deliveries never depend on the noise, only on when
 * a node sends: D-SGD's skeleton (runtime_skeleton.c: a local step, then
 * the exchange of its round; the next step when the gather completes) and
 * Muffliato's (a step, then K rounds, the later ones sent at once). MF-D-SGD,
 * AntiPGD, Mafalda (any C: given, fitted, probes-fitted, a C-set) and DECOR
 * (its edge secrets enter the models, not the messages' times) are D-SGD's
 * skeleton with their own noise handler only, which draws and never waits
 * (the test checks their vtables keep that shape). Any other protocol
 * may time its rounds otherwise (its own step, timers or messages), and the
 * pass refuses it rather than guess.
 *
 * Deadline mode. A gather completes at its last arrival, or at its deadline
 * (send time + proto_deadline_ns) if an input is missing then; the inputs
 * used are those arrived by the completion (own included), renormalised by
 * proto_gather_renormalise; every other delivered message is late (heard,
 * not used). Ties: the engine runs simultaneous events in push order. In
 * deadline mode that order decides an outcome only where a message arrives
 * at the very nanosecond of its receiver's deadline (used if the delivery
 * runs first); everywhere else simultaneous events commute (an arrival at
 * the gather's start is used whether it runs before or after it; several
 * last arrivals complete the gather at the same time either way). Even such
 * a tie leaves the gather's completion at the deadline, whichever runs
 * first, so every send time and every later draw is the same: it decides
 * that one gather's inputs and nothing else.
 *
 * Stale mode (stale:s=S). Node u's round-j gather waits, for each
 * in-neighbour v, for one of: a message of v of a round in its window
 * [max(j - S, L), j] (L: the round of v's message u used last; older ones
 * are discarded), arrived before or during the gather; or the notice that
 * v's round-j message to u was lost, which the runtime gives at v's send
 * time. So v is satisfied at tau_v = min(those arrivals, that send time),
 * the gather completes at T = max(start, max_v tau_v), and uses for each v
 * the freshest window message arrived by T (none: v skipped, the weights
 * renormalised). A message is late (discarded on arrival) once it has left
 * every window, by its round (j - S) or by a fresher one used: the gather
 * at which it leaves judges it, late iff it arrives after that gather's T.
 * Each message leaves exactly once ([max(j - S, L), max(j + 1 - S, L'))
 * at gather j, every round at the last), so the pass keeps each link's
 * arrivals of the last S + 1 rounds and L, and counts as the engine does.
 * Ties: T is the same in any order (each tau_v is an event's time), so
 * every send time and draw is. Only the events at the nanosecond T may
 * decide something: which of them run before the completing one. An event
 * at T at v with tau_v < T (a window message: used if fresher, else late or
 * not) may; at v with tau_v = T, one event is the one v waited for, so it
 * runs first; two (two messages, or one and the loss notice) may. Such a
 * gather decides its own inputs (so its row of W_r) and the counts; its
 * later gathers are not changed: the message at T is stored in either order,
 * so each later window's first arrival and freshest message are the same.
 *
 * The pass detects every such tie: one at a recorded row (a ball node)
 * decides the record, and the pass gives up (NULL with a reason; the caller
 * then runs the engine, option (a)); one elsewhere does not touch the
 * record, and is only counted (proto_deliveries_ties): the run's late and
 * partial counts then take every message at T as used (deadline mode: as
 * late), which may differ from the engine's by a few per tie. It never
 * guesses an order the record depends on. On a million nodes at T = 100
 * such ties do happen (8e8 arrivals, times in whole nanoseconds, send times
 * spread over tens of ms: a few per run), so refusing on every one would
 * send nearly every such run back to the engine.
 *
 * Cost: O(R n d) draws (stale mode: O(R n d S) comparisons), no event
 * queue; memory O(n) a round (two arrays of n send times, reused), stale
 * mode's S + 1 arrivals and L per link (O(n d S)), plus the run's W
 * (O(n d)) and the ball's record.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <string.h>

#include "protocols/internal.h"
#include "spec/spec.h"

/* The gossip rounds of a step of @ctx's protocol, or 0 when its timing is
 * not D-SGD's or Muffliato's (see the design comment). */
static guint rounds_per_step(const ProtoContext *ctx) {
  const ProtoVTable *vt = ctx->vt;
  if (vt == &proto_dsgd_vtable || vt == &proto_mfdsgd_vtable || vt == &proto_antipgd_vtable ||
      vt == &proto_mafalda_vtable || vt == &proto_decor_vtable)
    return 1;
  if (vt == &proto_muffliato_vtable) {
    ProtoShape shape = {0};
    vt->accounting_shape(ctx->params, &shape);
    return MAX(shape.K, 1u);
  }
  return 0;
}

/* Why the pass does not apply to @ctx's run (a static string), or NULL;
 * @K: the gossip rounds of a step. */
static const char *unsupported(const ProtoContext *ctx, guint R, guint *K) {
  if (ctx->mode.kind != PROTO_MODE_DEADLINE && ctx->mode.kind != PROTO_MODE_STALE)
    return "the timing pass covers deadline and stale mode only";
  if (!ctx->is_static)
    return "the timing pass needs a static gossip matrix";
  *K = rounds_per_step(ctx);
  if (*K == 0)
    return "the timing pass covers D-SGD, Muffliato, MF-D-SGD, AntiPGD, Mafalda and DECOR only "
           "(another protocol may time its rounds otherwise)";
  if ((guint64)*K * ctx->T != R)
    return "the record's rounds are not the run's";
  return NULL;
}

/* The pass's state while it runs one round's gathers. */
typedef struct {
  const ProtoContext *ctx;
  const ProtoRoundW *w;
  guint R, S;          /* rounds; stale mode's window (0 in deadline mode) */
  SimTime D;           /* deadline mode's deadline */
  const SimTime *send; /* this round's send times, n */
  SimTime *arr;        /* deadline: the row's arrivals; stale: S + 1 rounds x nnz */
  guint *last;         /* stale: per link, the round of the message last used (0: none) */
  SimTime *tau;        /* stale: the row's times each in-neighbour is satisfied */
  ProtoInput *in;      /* the row's inputs */
  guint64 late, partial;
} Pass;

/* The pass's memory beyond the run: two arrays of n send times, per row
 * its arrivals (stale mode: S + 1 rounds of every link's, and a round per
 * link) and inputs (the largest row: at most n). */
static gsize timing_bytes(gsize n, gsize nnz, gsize row, guint S, gboolean stale) {
  gsize b = spec_size_add(spec_size_mul(n, 2 * sizeof(SimTime)),
                          spec_size_mul(row, 2 * sizeof(SimTime) + sizeof(ProtoInput)));
  if (stale)
    b = spec_size_add(b,
                      spec_size_mul(nnz, spec_size_add(spec_size_mul((gsize)S + 1, sizeof(SimTime)),
                                                       sizeof(guint))));
  return b;
}

/* Deadline mode: node @u's gather of round @r from its row's arrivals
 * (p->arr); its inputs in p->in, their count in *@k. Returns the
 * completion time; *@ties: the messages that arrive at the deadline, *@from
 * the first one's sender. */
static SimTime gather_deadline(Pass *p, guint u, guint r, guint *k, guint *ties, guint *from) {
  const ProtoRoundW *w = p->w;
  guint start = w->in_ptr[u], len = w->in_ptr[u + 1] - start;
  const guint *cols = w->in_cols + start;
  SimTime s = p->send[u], dl = s + p->D, last = s;
  *ties = 0;
  for (guint q = 0; q < len; q++) {
    if (cols[q] == u)
      continue;
    if (p->arr[q] == dl && (*ties)++ == 0)
      *from = cols[q];
    last = MAX(last, p->arr[q]); /* SIM_TIME_NEVER when lost */
  }
  /* Complete at the last arrival, or at the deadline with one missing. */
  SimTime done = last < dl ? last : dl;
  *k = 0;
  for (guint q = 0; q < len; q++) {
    /* Used: its own, those arrived by a completion before the deadline,
     * those arrived before the deadline (a tie at it, unrecorded: late). */
    if (cols[q] == u || p->arr[q] < done || (p->arr[q] == done && done != dl))
      p->in[(*k)++] = (ProtoInput){.from = cols[q], .round = r, .weight = w->in_vals[start + q]};
    else
      p->late += p->arr[q] != SIM_TIME_NEVER; /* delivered after the gather: heard, not used */
  }
  return done;
}

/* Stale mode: link @e's arrival of its round-@r message. */
static SimTime stale_arrival(const Pass *p, gsize e, guint r) {
  return p->arr[(gsize)(r % (p->S + 1)) * p->w->in_ptr[p->ctx->n] + e];
}

/* Stale mode: whether link @e's round-@x message, arrived at @a, ran
 * before node @u's round-@r gather began at @s: arrived earlier, or at the
 * nanosecond of the previous gather's completion (@s then) as one of that
 * gather's window messages (runs before it: see gather_stale). */
static gboolean before_start(SimTime a, guint x, guint r, SimTime s, gboolean resumed) {
  return a < s || (a == s && resumed && x < r);
}

/* Stale mode: node @u's gather of round @r (see the design comment), which
 * began at the previous one's completion when @resumed; its inputs in
 * p->in, their count in *@k. Returns the completion time; *@ties 1 when
 * the engine's order of the events at that nanosecond may decide the
 * inputs or the counts, else 0. */
static SimTime gather_stale(Pass *p, guint u, guint r, gboolean resumed, guint *k, guint *ties) {
  const ProtoRoundW *w = p->w;
  guint start = w->in_ptr[u], len = w->in_ptr[u + 1] - start;
  const guint *cols = w->in_cols + start;
  guint low = r >= p->S ? r - p->S : 0;
  SimTime s = p->send[u], T = s;
  for (guint q = 0; q < len; q++) {
    guint v = cols[q];
    if (v == u)
      continue;
    gsize e = start + q;
    SimTime tau = stale_arrival(p, e, r) == SIM_TIME_NEVER ? p->send[v] : SIM_TIME_NEVER;
    for (guint x = MAX(low, p->last[e]); x <= r; x++)
      tau = MIN(tau, stale_arrival(p, e, x));
    p->tau[q] = tau;
    T = MAX(T, tau);
  }
  *k = 0;
  gboolean tie = FALSE;
  for (guint q = 0; q < len; q++) {
    guint v = cols[q];
    if (v == u) {
      p->in[(*k)++] = (ProtoInput){.from = u, .round = r, .weight = w->in_vals[start + q]};
      continue;
    }
    gsize e = start + q;
    gboolean lost = stale_arrival(p, e, r) == SIM_TIME_NEVER;
    /* v's events at T that may run on either side of the completion, and
     * whether v was satisfied before T (then any of them may run after). */
    guint first = MAX(low, p->last[e]), used = G_MAXUINT, at_T = 0;
    gboolean early = lost && p->send[v] < T;
    for (guint x = first; x <= r; x++) {
      SimTime a = stale_arrival(p, e, x);
      if (a <= T)
        used = x; /* the freshest arrived by the completion */
      if (a < T || (a == T && before_start(a, x, r, s, resumed)))
        early = TRUE;
      else if (a == T)
        at_T++;
    }
    if (early)
      tie |= at_T > 0;
    else /* v waited for an event at T: a second one may run after the completion */
      tie |= at_T + (lost && p->send[v] == T) >= 2;
    if (used != G_MAXUINT) {
      p->in[(*k)++] = (ProtoInput){.from = v, .round = used, .weight = w->in_vals[start + q]};
      p->last[e] = used;
    }
    /* The messages that leave the window at this gather: late if they
     * arrive after it (every round's at the last gather: the node is done). */
    guint end = r + 1 == p->R ? r + 1 : MAX(r + 1 >= p->S ? r + 1 - p->S : 0, p->last[e]);
    for (guint x = first; x < end; x++) {
      SimTime a = stale_arrival(p, e, x);
      p->late += a != SIM_TIME_NEVER && a > T;
    }
  }
  *ties = tie;
  return T;
}

ProtoDeliveries *proto_deliveries_time_ball(const ProtoRunConfig *cfg, guint R, const guint *keep,
                                            guint n_kept, const guint8 *rows,
                                            ProtoProgressFunc progress, gpointer progress_data,
                                            char **fallback, GError **error) {
  g_return_val_if_fail(
      cfg != NULL && R > 0 && keep != NULL && rows != NULL && n_kept > 0 && fallback != NULL, NULL);
  *fallback = NULL;
  if (cfg->graph == NULL) {
    *fallback = g_strdup("the timing pass needs a static graph");
    return NULL;
  }
  ProtoRunConfig rc = *cfg;
  rc.storage = SIM_LIN_NONE; /* the run's pieces only: its models never run */
  rc.rebased = FALSE;
  ProtoRun *run = proto_run_new(&rc, error);
  if (run == NULL)
    return NULL;
  ProtoContext *ctx = proto_run_context(run);
  ProtoDeliveries *d = NULL;
  SimTime *send = NULL, *next = NULL;
  Pass p = {.ctx = ctx, .R = R};
  guint K = 1, n = ctx->n;
  const char *why = unsupported(ctx, R, &K);
  if (why != NULL) {
    *fallback = g_strdup(why);
    goto out;
  }
  gboolean stale = ctx->mode.kind == PROTO_MODE_STALE;
  p.w = proto_round_w_get(ctx, 0, error);
  if (p.w == NULL)
    goto out;
  /* The window never reaches before round 0: S beyond R - 1 is R - 1. */
  p.S = stale ? MIN(ctx->mode.staleness, R - 1) : 0;
  guint row = 0;
  gsize nnz = p.w->in_ptr[n];
  for (guint u = 0; u < n; u++)
    row = MAX(row, p.w->in_ptr[u + 1] - p.w->in_ptr[u]);
  char *what = g_strdup_printf("the timing pass over %u nodes", n);
  gboolean fits = spec_check_memory(timing_bytes(n, nnz, row, p.S, stale), what,
                                    "use a smaller graph", PRIV_ERROR, PRIV_ERROR_MEMORY, error);
  g_free(what);
  if (!fits)
    goto out;
  send = g_new(SimTime, n);
  next = g_new(SimTime, n);
  p.in = g_new0(ProtoInput, MAX(row, 1u));
  if (stale) {
    p.arr = g_new(SimTime, MAX((p.S + 1) * nnz, 1));
    p.last = g_new0(guint, MAX(nnz, 1));
    p.tau = g_new(SimTime, MAX(row, 1u));
  } else {
    p.arr = g_new(SimTime, MAX(row, 1u));
  }
  p.D = stale ? 0 : proto_deadline_ns(ctx);
  const SimTime c = proto_compute_ns(ctx);
  /* Round 0 leaves once the first step's computation ends (on_start at 0). */
  for (guint u = 0; u < n; u++)
    send[u] = c;
  d = proto_deliveries_feed_new(R, keep, n_kept, rows);
  guint64 ties = 0;
  for (guint r = 0; r < R; r++) {
    SimTime step = (r + 1) % K == 0 ? c : 0; /* round r + 1 starts a step */
    p.send = send;
    for (guint u = 0; u < n; u++) {
      SimTime s = send[u];
      if (p.D >= SIM_TIME_NEVER - 1 - s) {
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                    "node %u's round-%u deadline passes the end of time", u, r);
        goto fail;
      }
      guint start = p.w->in_ptr[u], len = p.w->in_ptr[u + 1] - start;
      const guint *cols = p.w->in_cols + start;
      /* This round's draws of u's in-links (its own: at its send time). */
      SimTime *a = stale ? p.arr + (gsize)(r % (p.S + 1)) * nnz + start : p.arr;
      for (guint q = 0; q < len; q++)
        if (cols[q] == u)
          a[q] = s;
        else if (!sim_engine_draw_transmission(ctx->engine, cols[q], u, r, 0, send[cols[q]], &a[q],
                                               error))
          goto fail;
      guint k = 0, tie = 0, from = 0;
      /* Round r began at round r - 1's completion unless it starts a step
       * that computes (round 0: at c after on_start). */
      gboolean resumed = r > 0 && (r % K != 0 || c == 0);
      SimTime done = stale ? gather_stale(&p, u, r, resumed, &k, &tie)
                           : gather_deadline(&p, u, r, &k, &tie, &from);
      gboolean recorded = keep[u] != G_MAXUINT && rows[keep[u]];
      if (tie > 0 && recorded) {
        *fallback = stale ? g_strdup_printf(
                                "node %u's round-%u gather completes at %.6f ms with other "
                                "messages or loss notices at that nanosecond: the engine's "
                                "event order decides its inputs",
                                u, r, done / (double)SIM_TIME_MS)
                          : g_strdup_printf("node %u's round-%u message to node %u arrives at the "
                                            "nanosecond of the receiver's deadline (%.6f ms): the "
                                            "engine's event order decides it",
                                            from, r, u, done / (double)SIM_TIME_MS);
        goto fail;
      }
      ties += tie; /* outside the recorded rows: only the counts depend on it */
      if (k < len) {
        p.partial++;
        proto_gather_renormalise(p.in, k, u);
      }
      if (keep[u] != G_MAXUINT) {
        proto_deliveries_feed_gather(d, u, r, k, p.in);
        for (guint q = 0; q < len; q++)
          if (cols[q] != u)
            proto_deliveries_feed_message(d, cols[q], u, r, a[q] == SIM_TIME_NEVER);
      }
      next[u] = done + step;
    }
    SimTime *t = send;
    send = next;
    next = t;
    if (progress)
      progress((double)(r + 1) / R, progress_data);
  }
  proto_deliveries_feed_ties(d, ties);
  d = proto_deliveries_feed_end(d, p.late, p.partial, error);
  goto out;
fail:
  proto_deliveries_free(d);
  d = NULL;
out:
  g_free(send);
  g_free(next);
  g_free(p.arr);
  g_free(p.last);
  g_free(p.tau);
  g_free(p.in);
  proto_run_free(run);
  return d;
}
