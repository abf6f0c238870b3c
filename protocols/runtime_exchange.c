/*
 * protocols/runtime_exchange.c: the gossip exchange and its modes.
 *
 * exchange(r): the node's payload goes to the column support of W_r, then
 * the node gathers round r from the row support. Messages are kept in a
 * per-node inbox keyed by (round, sender) until used or useless; a gather
 * tracks which in-neighbours still miss an input, so each arrival costs
 * O(log degree). A completed gather is handed to the protocol only after the
 * engine handler that completed it has returned (a "ready" flag drained in a
 * loop), so protocols never recurse into themselves through the runtime.
 *
 * Stale mode over lossy links: a gather waits for a message of every
 * in-neighbour within the bound, and a lost message would make it wait
 * forever when no older one is stored (always so in round 0). So the
 * runtime learns of every loss when the message is sent (the engine's drop
 * counter) and tells the receiver at once, as a timer at the same time: a
 * known-lost round-r message of v stops the wait for v. The gather then uses
 * v's freshest stored message of [r - S, r], or, when there is none, skips v
 * and renormalises the weights over the inputs it has (own included), as
 * deadline mode does. The provenance of every input says which it was.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <string.h>

#include "protocols/internal.h"

#define KEY(round, from) GSIZE_TO_POINTER(((gsize)(round) << 32) | (gsize)(from))
#define INBOX_KEY(round, from) (((guint64)(round) << 32) | (guint64)(from))
#define KEY_ROUND(k) ((guint)(GPOINTER_TO_SIZE(k) >> 32))
#define KEY_FROM(k) ((guint)(GPOINTER_TO_SIZE(k) & 0xffffffffu))

static gboolean stale_mode(const ProtoContext *ctx) {
  return ctx->mode.kind == PROTO_MODE_STALE;
}

/* The window of rounds whose messages may serve round r: [r - S, r]. */
static guint window(const ProtoContext *ctx) {
  return stale_mode(ctx) ? ctx->mode.staleness : 0;
}

/* The freshest stored message of @from usable at round @r, or NULL. */
static SimMessage *usable(ProtoNode *node, guint from, guint r) {
  guint S = window(node->ctx);
  for (guint k = 0; k <= S && k <= r; k++) {
    SimMessage *m = proto_inbox_lookup(&node->inbox, INBOX_KEY(r - k, from));
    if (m != NULL)
      return m;
  }
  return NULL;
}

/* Position of @v in the node's in-row of its current W, or G_MAXUINT. */
static guint row_position(const ProtoNode *node, guint v) {
  const ProtoRoundW *w = node->w;
  gsize start = w->in_ptr[node->id], end = w->in_ptr[node->id + 1];
  gsize p = sim_sorted_search(w->in_cols, start, end, v);
  return p < end && w->in_cols[p] == v ? (guint)(p - start) : G_MAXUINT;
}

static void begin_gather(ProtoNode *node) {
  ProtoContext *ctx = node->ctx;
  const ProtoRoundW *w = node->w;
  guint start = w->in_ptr[node->id], len = w->in_ptr[node->id + 1] - start;
  if (node->have_cap < len) {
    node->have = g_renew(guint8, node->have, len);
    node->have_cap = len;
  }
  node->n_missing = 0;
  for (guint p = 0; p < len; p++) {
    guint v = w->in_cols[start + p];
    node->have[p] = v == node->id || usable(node, v, node->round) != NULL ||
                    (node->lost != NULL && g_hash_table_contains(node->lost, KEY(node->round, v)));
    node->n_missing += !node->have[p];
  }
  node->gathering = TRUE;
  if (ctx->mode.kind == PROTO_MODE_DEADLINE && node->n_missing > 0) {
    GError *error = NULL;
    node->deadline_timer = sim_engine_set_timer(ctx->engine, node->id, proto_deadline_ns(ctx),
                                                PROTO_TIMER_DEADLINE | node->round, &error);
    if (node->deadline_timer == SIM_EVENT_ID_NONE) {
      proto_context_fail(ctx, error);
      return;
    }
  }
  if (node->n_missing == 0)
    node->ready = TRUE;
}

/* Stale mode: the round-@round message of @from to @to was lost. The receiver
 * records it, and when it may be gathering that round already, a timer at
 * the current time makes it look again (its handler, not this sender's,
 * completes the gather: no node's handler runs inside another's). */
static gboolean note_lost(ProtoContext *ctx, guint from, guint to, guint round, GError **error) {
  ProtoNode *rx = &ctx->nodes[to];
  if (rx->done || rx->round > round)
    return TRUE;
  g_hash_table_add(rx->lost, KEY(round, from));
  if (rx->round == round && rx->gathering &&
      sim_engine_set_timer(ctx->engine, to, 0, PROTO_TIMER_LOST | round, error) ==
          SIM_EVENT_ID_NONE)
    return FALSE;
  return TRUE;
}

/* Sends what exchange prepared, then starts the gather. */
static void flush_outbox(ProtoNode *node) {
  ProtoContext *ctx = node->ctx;
  const ProtoRoundW *w = node->w;
  guint start = w->out_ptr[node->id];
  SimEngineStats before, after;
  for (guint i = 0; i < node->outbox->len; i++) {
    SimMessage *m = node->outbox->pdata[i];
    if (m == NULL)
      continue;
    GError *error = NULL;
    guint to = w->out_cols[start + i];
    if (node->lost != NULL)
      sim_engine_get_stats(ctx->engine, &before);
    if (!sim_engine_send(ctx->engine, m, to, &error)) {
      proto_context_fail(ctx, error);
      break;
    }
    if (node->lost != NULL) {
      sim_engine_get_stats(ctx->engine, &after);
      if (after.messages_dropped != before.messages_dropped &&
          !note_lost(ctx, node->id, to, sim_message_round(m), &error)) {
        proto_context_fail(ctx, error);
        break;
      }
    }
  }
  g_ptr_array_set_size(node->outbox, 0);
  if (ctx->error == NULL)
    begin_gather(node);
}

static gboolean exchange(ProtoNode *node, guint round, SimLinvec **payloads, guint n_payloads,
                         gboolean each, GError **error) {
  ProtoContext *ctx = node->ctx;
  gboolean ok = FALSE;
  ProtoRoundW *w = NULL;
  for (guint i = 0; i < n_payloads; i++)
    if (payloads[i] == NULL || sim_linvec_space(payloads[i]) != ctx->space) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "node %u: exchange of round %u: payload %u is NULL or of another space", node->id,
                  round, i);
      goto out;
    }
  if (ctx->handlers.on_gathered == NULL) {
    /* Without it the gather would complete into nothing and the node idle. */
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "protocol '%s' exchanges but has no on_gathered handler", ctx->vt->name);
    goto out;
  }
  if (node->done || node->exchanged || round != node->round) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: exchange of round %u out of order (%s)", node->id, round,
                node->done        ? "the node is done"
                : node->exchanged ? "the current round is already exchanged"
                                  : "rounds go 0, 1, 2, ...");
    goto out;
  }
  w = proto_round_w_get(ctx, round, error);
  if (w == NULL)
    goto out;
  guint start = w->out_ptr[node->id], len = w->out_ptr[node->id + 1] - start;
  if (each && n_payloads != len) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: exchange of round %u: %u payloads for %u receivers (self included)",
                node->id, round, n_payloads, len);
    goto out;
  }
  if (node->outbox == NULL)
    node->outbox = g_ptr_array_new_with_free_func((GDestroyNotify)sim_message_unref);
  guint64 bytes = ctx->dim * sizeof(double);
  SimMessage *shared = NULL;
  if (!each)
    shared = sim_message_new_linvec(node->id, round, 0, payloads[0], bytes);
  for (guint i = 0; i < len; i++) {
    SimMessage *m = each ? sim_message_new_linvec(node->id, round, 0, payloads[i], bytes)
                         : sim_message_ref(shared);
    if (w->out_cols[start + i] == node->id) {
      node->own = m;
      g_ptr_array_add(node->outbox, NULL);
    } else {
      g_ptr_array_add(node->outbox, m);
    }
  }
  if (shared != NULL)
    sim_message_unref(shared);
  n_payloads = 0; /* taken */
  node->w = w;
  node->exchanged = TRUE;
  SimTime now = sim_engine_now(ctx->engine);
  if (node->busy_until > now) {
    GError *sub = NULL;
    if (sim_engine_set_timer_at(ctx->engine, node->id, node->busy_until, PROTO_TIMER_SEND | round,
                                &sub) == SIM_EVENT_ID_NONE) {
      g_propagate_error(error, sub);
      return FALSE;
    }
  } else {
    flush_outbox(node);
  }
  ok = TRUE;
out:
  for (guint i = 0; i < n_payloads; i++)
    sim_linvec_free(payloads[i]);
  return ok;
}

gboolean proto_node_exchange(ProtoNode *node, guint round, SimLinvec *payload, GError **error) {
  return exchange(node, round, &payload, 1, FALSE, error);
}

gboolean proto_node_exchange_each(ProtoNode *node, guint round, SimLinvec **payloads,
                                  guint n_payloads, GError **error) {
  if (payloads == NULL || n_payloads == 0) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: exchange_each of round %u without payloads", node->id, round);
    return FALSE;
  }
  return exchange(node, round, payloads, n_payloads, TRUE, error);
}

static guint in_or_out(ProtoNode *node, guint round, gboolean out, const guint **nodes,
                       const double **weights, GError **error) {
  if (round < node->round) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: round %u is already gathered (current round %u)", node->id, round,
                node->round);
    return 0;
  }
  ProtoRoundW *w = proto_round_w_get(node->ctx, round, error);
  if (w == NULL)
    return 0;
  const guint *ptr = out ? w->out_ptr : w->in_ptr;
  guint start = ptr[node->id];
  if (nodes != NULL)
    *nodes = (out ? w->out_cols : w->in_cols) + start;
  if (weights != NULL)
    *weights = (out ? w->out_vals : w->in_vals) + start;
  return ptr[node->id + 1] - start;
}

guint proto_node_in_neighbors(ProtoNode *node, guint round, const guint **nodes,
                              const double **weights, GError **error) {
  return in_or_out(node, round, FALSE, nodes, weights, error);
}

guint proto_node_out_neighbors(ProtoNode *node, guint round, const guint **nodes,
                               const double **weights, GError **error) {
  return in_or_out(node, round, TRUE, nodes, weights, error);
}

gboolean proto_node_send(ProtoNode *node, guint to, guint round, guint64 tag, SimLinvec *payload,
                         GError **error) {
  ProtoContext *ctx = node->ctx;
  if (ctx->handlers.on_message == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "protocol '%s' sends messages but has no on_message handler to receive them",
                ctx->vt->name);
    sim_linvec_free(payload);
    return FALSE;
  }
  if (tag == 0 || to >= ctx->n || payload == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: send needs a tag != 0, a node < %u and a payload", node->id, ctx->n);
    sim_linvec_free(payload);
    return FALSE;
  }
  SimMessage *m = sim_message_new_linvec(node->id, round, tag, payload, ctx->dim * sizeof(double));
  gboolean ok = sim_engine_send(ctx->engine, m, to, error);
  sim_message_unref(m);
  return ok;
}

SimEventId proto_node_set_timer(ProtoNode *node, SimTime delay, guint64 tag, GError **error) {
  if (tag & PROTO_TIMER_RUNTIME) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: timer tags must be < 2^63", node->id);
    return SIM_EVENT_ID_NONE;
  }
  if (node->ctx->handlers.on_timer == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "protocol '%s' sets a timer but has no on_timer handler", node->ctx->vt->name);
    return SIM_EVENT_ID_NONE;
  }
  return sim_engine_set_timer(node->ctx->engine, node->id, delay, tag, error);
}

gboolean proto_node_cancel_timer(ProtoNode *node, SimEventId id) {
  return sim_engine_cancel(node->ctx->engine, id);
}

/* ------------------------------------------------------------ gathering */

typedef struct {
  ProtoNode *node;
  guint next_round; /* the node's round after the gather */
} Sweep;

/* Loss notices of rounds already gathered. */
static gboolean past_loss(gpointer key, gpointer value, gpointer data) {
  (void)value;
  return KEY_ROUND(key) < GPOINTER_TO_UINT(data);
}

/* Messages no future gather can use. */
static gboolean useless(guint64 key, gpointer data) {
  const Sweep *s = data;
  guint r = KEY_ROUND(key);
  const ProtoContext *ctx = s->node->ctx;
  if (!stale_mode(ctx))
    return r < s->next_round;
  if ((guint64)r + ctx->mode.staleness < s->next_round)
    return TRUE;
  guint used = GPOINTER_TO_UINT(
      g_hash_table_lookup(s->node->last_used, GUINT_TO_POINTER(KEY_FROM(key))));
  return r + 1 < used; /* older than a message already used */
}

/* theta = sum_i w_i payload_i: the gossip average every protocol takes of a
 * gather. The public initial model rides along in the payloads' numbers, so
 * it stays exact too. Up to 32 inputs need no allocation. */
gboolean proto_average_inputs(SimLinvec *model, guint n_inputs, const ProtoInput *inputs,
                              GError **error) {
  double a_small[32] = {0};
  const SimLinvec *x_small[32] = {0};
  double *a = n_inputs <= 32 ? a_small : g_new(double, n_inputs);
  const SimLinvec **x = n_inputs <= 32 ? x_small : g_new(const SimLinvec *, n_inputs);
  for (guint i = 0; i < n_inputs; i++) {
    a[i] = inputs[i].weight;
    x[i] = inputs[i].payload;
  }
  gboolean ok = sim_linvec_combine(model, n_inputs, a, x, error);
  if (a != a_small) {
    g_free(a);
    g_free(x);
  }
  return ok;
}

SimTime proto_deadline_ns(const ProtoContext *ctx) {
  return (SimTime)(ctx->mode.deadline_ms * (double)SIM_TIME_MS + 0.5);
}

void proto_gather_renormalise(ProtoInput *inputs, guint k, guint u) {
  /* Renormalise over what arrived; with nothing but a zero-weight self,
   * the node keeps its own payload. The sum runs in row order. */
  double sum = 0.0;
  for (guint i = 0; i < k; i++)
    sum += inputs[i].weight;
  for (guint i = 0; i < k; i++)
    inputs[i].weight = sum > 0.0 ? inputs[i].weight / sum : inputs[i].from == u ? 1.0 : 0.0;
}

static void complete_gather(ProtoNode *node) {
  ProtoContext *ctx = node->ctx;
  ProtoRoundW *w = node->w;
  guint r = node->round, u = node->id;
  guint start = w->in_ptr[u], len = w->in_ptr[u + 1] - start;
  ProtoInput *inputs = g_new(ProtoInput, len);
  SimMessage **held = g_new(SimMessage *, len);
  guint k = 0;
  for (guint p = 0; p < len; p++) {
    guint v = w->in_cols[start + p];
    SimMessage *m = v == u ? node->own : node->have[p] ? usable(node, v, r) : NULL;
    if (m == NULL)
      continue; /* deadline mode, or stale mode with only a lost message: skipped */
    guint mr = sim_message_round(m);
    if (v != u && mr < r)
      ctx->stale_inputs++;
    if (v != u && node->last_used != NULL)
      g_hash_table_insert(node->last_used, GUINT_TO_POINTER(v), GUINT_TO_POINTER(mr + 1));
    held[k] = sim_message_ref(m);
    inputs[k] = (ProtoInput){.from = v,
                             .round = mr,
                             .weight = w->in_vals[start + p],
                             .payload = sim_message_provenance(m)};
    k++;
  }
  if (k < len) {
    ctx->partial_gathers++;
    proto_gather_renormalise(inputs, k, u);
  }
  if (node->deadline_timer != SIM_EVENT_ID_NONE) {
    sim_engine_cancel(ctx->engine, node->deadline_timer);
    node->deadline_timer = SIM_EVENT_ID_NONE;
  }
  sim_message_unref(node->own);
  node->own = NULL;
  node->w = NULL;
  node->gathering = FALSE;
  node->exchanged = FALSE;
  node->round = r + 1;
  Sweep sweep = {node, r + 1};
  proto_inbox_remove_if(&node->inbox, useless, &sweep);
  if (node->lost != NULL && g_hash_table_size(node->lost) > 0)
    g_hash_table_foreach_remove(node->lost, past_loss, GUINT_TO_POINTER(r + 1));
  ctx->gathers++;

  if (ctx->gather != NULL)
    ctx->gather(u, r, k, inputs, ctx->gather_data);
  GError *error = NULL;
  gboolean ok = TRUE;
  if (ctx->handlers.on_gathered != NULL)
    ok = ctx->handlers.on_gathered(node, r, k, inputs, &error);
  for (guint i = 0; i < k; i++)
    sim_message_unref(held[i]);
  g_free(held);
  g_free(inputs);
  proto_round_w_release(ctx, w);
  if (!ok)
    proto_context_fail(ctx, error != NULL ? error
                                          : g_error_new(PROTO_ERROR, PROTO_ERROR_FAILED,
                                                        "protocol %s failed at node %u, round %u",
                                                        ctx->vt->name, u, r));
}

static void drain(ProtoNode *node) {
  while (node->ready && node->ctx->error == NULL) {
    node->ready = FALSE;
    complete_gather(node);
  }
}

/* FALSE when the run must stop (cancelled or failed). */
static gboolean live(ProtoContext *ctx) {
  if (ctx->cancelled && ctx->error == NULL)
    proto_context_fail(ctx,
                       g_error_new(PROTO_ERROR, PROTO_ERROR_CANCELLED, "the run was cancelled"));
  return ctx->error == NULL;
}

static void check(ProtoContext *ctx, ProtoNode *node, gboolean ok, GError *error,
                  const char *what) {
  if (ok)
    return;
  proto_context_fail(ctx, error != NULL ? error
                                        : g_error_new(PROTO_ERROR, PROTO_ERROR_FAILED,
                                                      "protocol %s failed at node %u (%s)",
                                                      ctx->vt->name, node->id, what));
}

static void on_start(SimEngine *engine, guint32 u, gpointer state) {
  (void)engine;
  (void)u;
  ProtoNode *node = state;
  ProtoContext *ctx = node->ctx;
  proto_rounds_start(ctx); /* the first node's start: round 0, before any message */
  if (!live(ctx) || ctx->handlers.on_start == NULL)
    return;
  GError *error = NULL;
  /* The handler runs before `error` is read (argument order is unspecified). */
  gboolean ok = ctx->handlers.on_start(node, &error);
  check(ctx, node, ok, error, "on_start");
  drain(node);
}

static void on_timer(SimEngine *engine, guint32 u, gpointer state, SimEventId timer, guint64 tag) {
  (void)engine;
  (void)u;
  ProtoNode *node = state;
  ProtoContext *ctx = node->ctx;
  if (!live(ctx))
    return;
  if (tag & PROTO_TIMER_RUNTIME) {
    guint round = (guint)(tag & 0xffffffffu);
    guint64 kind = tag & PROTO_TIMER_KIND_MASK;
    if (kind == PROTO_TIMER_SEND && node->exchanged && !node->gathering && node->round == round) {
      flush_outbox(node);
    } else if (kind == PROTO_TIMER_LOST) {
      if (node->gathering && node->round == round && !node->ready) {
        const ProtoRoundW *w = node->w;
        guint start = w->in_ptr[node->id], len = w->in_ptr[node->id + 1] - start;
        for (guint p = 0; p < len; p++)
          if (!node->have[p] &&
              g_hash_table_contains(node->lost, KEY(round, w->in_cols[start + p]))) {
            node->have[p] = TRUE;
            node->n_missing--;
          }
        if (node->n_missing == 0)
          node->ready = TRUE;
      }
    } else if (kind == PROTO_TIMER_DEADLINE && timer == node->deadline_timer) {
      node->deadline_timer = SIM_EVENT_ID_NONE;
      if (node->gathering && node->round == round && !node->ready)
        node->ready = TRUE;
    }
  } else if (ctx->handlers.on_timer != NULL) {
    GError *error = NULL;
    gboolean ok = ctx->handlers.on_timer(node, tag, &error);
    check(ctx, node, ok, error, "on_timer");
  }
  drain(node);
}

static void on_message(SimEngine *engine, guint32 u, gpointer state, SimMessage *msg) {
  (void)engine;
  ProtoNode *node = state;
  ProtoContext *ctx = node->ctx;
  if (!live(ctx))
    return;
  if (sim_message_tag(msg) != 0) {
    if (ctx->handlers.on_message != NULL) {
      GError *error = NULL;
      gboolean ok = ctx->handlers.on_message(node, msg, &error);
      check(ctx, node, ok, error, "on_message");
    }
    drain(node);
    return;
  }
  guint r = sim_message_round(msg), v = sim_message_from(msg);
  gboolean late;
  if (stale_mode(ctx)) {
    guint used = GPOINTER_TO_UINT(g_hash_table_lookup(node->last_used, GUINT_TO_POINTER(v)));
    late = (guint64)r + ctx->mode.staleness < node->round || r + 1 < used;
  } else {
    late = r < node->round;
  }
  if (late || node->done) {
    ctx->late_discarded++;
    return;
  }
  proto_inbox_insert(&node->inbox, INBOX_KEY(r, v), sim_message_ref(msg));
  if (node->gathering && !node->ready && r <= node->round &&
      (guint64)r + window(ctx) >= node->round) {
    guint p = row_position(node, v);
    if (p != G_MAXUINT && !node->have[p]) {
      node->have[p] = TRUE;
      if (--node->n_missing == 0)
        node->ready = TRUE;
    }
  }
  (void)u;
  drain(node);
}

static void on_topology_change(SimEngine *engine, guint32 u, gpointer state,
                               const SimTopologyChange *change) {
  (void)engine;
  (void)u;
  ProtoNode *node = state;
  ProtoContext *ctx = node->ctx;
  if (!live(ctx) || ctx->handlers.on_topology_change == NULL)
    return;
  GError *error = NULL;
  gboolean ok = ctx->handlers.on_topology_change(node, change, &error);
  check(ctx, node, ok, error, "on_topology_change");
  drain(node);
}

const SimNodeHandlers proto_runtime_handlers = {
    .on_start = on_start,
    .on_timer = on_timer,
    .on_message = on_message,
    .on_topology_change = on_topology_change,
};

void proto_node_clear_exchange(ProtoNode *node) {
  if (node->outbox != NULL) {
    g_ptr_array_free(node->outbox, TRUE);
    node->outbox = NULL;
  }
  if (node->own != NULL) {
    sim_message_unref(node->own);
    node->own = NULL;
  }
}
