/*
 * protocols/account_timing.c: a ball's delivery record from a timing-only
 * pass over the whole graph (docs/local-bounds.md, "Asynchronous runs",
 * option (b)), for D-SGD, DECOR and Muffliato in deadline mode.
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
 *   - a gather's completion (runtime_exchange.c): at its last arrival, or at
 *     its deadline (send time + proto_deadline_ns) if an input is missing
 *     then; the inputs used are those arrived by the completion (own
 *     included), renormalised by proto_gather_renormalise; every other
 *     delivered message is late (heard, not used).
 *
 * Ties. The engine runs simultaneous events in push order. In deadline mode
 * that order decides an outcome only where a message arrives at the very
 * nanosecond of its receiver's deadline (used if the delivery runs first);
 * everywhere else simultaneous events commute (an arrival at the gather's
 * start is used whether it runs before or after it; several last arrivals
 * complete the gather at the same time either way). Even such a tie leaves
 * the gather's completion at the deadline, whichever runs first, so every
 * send time and every later draw is the same: it decides that one gather's
 * inputs and nothing else. The pass detects every tie: one at a recorded
 * row (a ball node) decides the record, and the pass gives up (NULL with a
 * reason; the caller then runs the engine, option (a)); one elsewhere does
 * not touch the record, and is only counted (proto_deliveries_ties): the
 * run's late and partial counts then hold it as late, one of the two
 * orders. It never guesses an order the record depends on.
 *
 * On a million nodes at T = 100 such ties do happen (8e8 arrivals, times in
 * whole nanoseconds, send times spread over tens of ms: a few per run), so
 * refusing on every one would send nearly every such run back to the
 * engine.
 *
 * Cost: O(R n d) draws, no event queue; memory O(n) a round (two arrays of
 * n send times, reused) plus the run's W (O(n d)) and the ball's record.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <string.h>

#include "protocols/internal.h"
#include "spec/spec.h"

/* Why the pass does not apply to @ctx's run (a static string), or NULL;
 * @K: the gossip rounds of a step. */
static const char *unsupported(const ProtoContext *ctx, guint R, guint *K) {
  if (ctx->mode.kind != PROTO_MODE_DEADLINE)
    return "the timing pass covers deadline mode only";
  if (!ctx->is_static)
    return "the timing pass needs a static gossip matrix";
  if (ctx->vt == &proto_dsgd_vtable || ctx->vt == &proto_decor_vtable) {
    *K = 1; /* DECOR: D-SGD's messages and timing, its secrets in the models only */
  } else if (ctx->vt == &proto_muffliato_vtable) {
    ProtoShape shape = {0};
    ctx->vt->accounting_shape(ctx->params, &shape);
    *K = MAX(shape.K, 1u);
  } else {
    return "the timing pass covers D-SGD, DECOR and Muffliato only";
  }
  if ((guint64)*K * ctx->T != R)
    return "the record's rounds are not the run's";
  return NULL;
}

/* The pass's memory beyond the run: two arrays of n send times, and per
 * row its arrivals and inputs (the largest row: at most n). */
static gsize timing_bytes(gsize n, gsize row) {
  return spec_size_add(spec_size_mul(n, 2 * sizeof(SimTime)),
                       spec_size_mul(row, sizeof(SimTime) + sizeof(ProtoInput)));
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
  SimTime *send = NULL, *next = NULL, *arr = NULL;
  ProtoInput *in = NULL;
  guint K = 1, n = ctx->n;
  const char *why = unsupported(ctx, R, &K);
  if (why != NULL) {
    *fallback = g_strdup(why);
    goto out;
  }
  const ProtoRoundW *w = proto_round_w_get(ctx, 0, error);
  if (w == NULL)
    goto out;
  guint row = 0;
  for (guint u = 0; u < n; u++)
    row = MAX(row, w->in_ptr[u + 1] - w->in_ptr[u]);
  char *what = g_strdup_printf("the timing pass over %u nodes", n);
  gboolean fits = spec_check_memory(timing_bytes(n, row), what, "use a smaller graph", PRIV_ERROR,
                                    PRIV_ERROR_MEMORY, error);
  g_free(what);
  if (!fits)
    goto out;
  send = g_new(SimTime, n);
  next = g_new(SimTime, n);
  arr = g_new(SimTime, MAX(row, 1u));
  in = g_new0(ProtoInput, MAX(row, 1u));
  const SimTime D = proto_deadline_ns(ctx), c = proto_compute_ns(ctx);
  /* Round 0 leaves once the first step's computation ends (on_start at 0). */
  for (guint u = 0; u < n; u++)
    send[u] = c;
  d = proto_deliveries_feed_new(R, keep, n_kept, rows);
  guint64 late = 0, partial = 0, ties = 0;
  for (guint r = 0; r < R; r++) {
    SimTime step = (r + 1) % K == 0 ? c : 0; /* round r + 1 starts a step */
    for (guint u = 0; u < n; u++) {
      SimTime s = send[u];
      if (D >= SIM_TIME_NEVER - 1 - s) {
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                    "node %u's round-%u deadline passes the end of time", u, r);
        goto fail;
      }
      SimTime dl = s + D, last = s;
      guint start = w->in_ptr[u], len = w->in_ptr[u + 1] - start;
      const guint *cols = w->in_cols + start;
      gboolean recorded = keep[u] != G_MAXUINT && rows[keep[u]];
      for (guint p = 0; p < len; p++) {
        guint v = cols[p];
        if (v == u) {
          arr[p] = s; /* its own payload */
          continue;
        }
        if (!sim_engine_draw_transmission(ctx->engine, v, u, r, 0, send[v], &arr[p], error))
          goto fail;
        if (arr[p] == dl && !recorded) {
          ties++; /* outside the recorded rows: counted as late below */
        } else if (arr[p] == dl) {
          *fallback = g_strdup_printf(
              "node %u's round-%u message to node %u arrives at the nanosecond of the "
              "receiver's deadline (%.6f ms): the engine's event order decides it",
              v, r, u, dl / (double)SIM_TIME_MS);
          goto fail;
        }
        last = MAX(last, arr[p]); /* SIM_TIME_NEVER when lost */
      }
      /* Complete at the last arrival, or at the deadline with one missing. */
      SimTime done = last < dl ? last : dl;
      guint k = 0;
      for (guint p = 0; p < len; p++) {
        /* Used: its own, those arrived by a completion before the deadline,
         * those arrived before the deadline (a tie at it, unrecorded: late). */
        if (cols[p] == u || arr[p] < done || (arr[p] == done && done != dl))
          in[k++] = (ProtoInput){.from = cols[p], .round = r, .weight = w->in_vals[start + p]};
        else
          late += arr[p] != SIM_TIME_NEVER; /* delivered after the gather: heard, not used */
      }
      if (k < len) {
        partial++;
        proto_gather_renormalise(in, k, u);
      }
      if (keep[u] != G_MAXUINT) {
        proto_deliveries_feed_gather(d, u, r, k, in);
        for (guint p = 0; p < len; p++)
          if (cols[p] != u)
            proto_deliveries_feed_message(d, cols[p], u, r, arr[p] == SIM_TIME_NEVER);
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
  d = proto_deliveries_feed_end(d, late, partial, error);
  goto out;
fail:
  proto_deliveries_free(d);
  d = NULL;
out:
  g_free(send);
  g_free(next);
  g_free(arr);
  g_free(in);
  proto_run_free(run);
  return d;
}
