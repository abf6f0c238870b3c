/*
 * sim/engine.c: the node runtime. One queue of 16-byte events (timer, message
 * delivery, topology change), dispatched in (time, seq) order to the handlers
 * of their node.
 *
 * Hot paths (a timer re-armed by its handler, a message forwarded) allocate
 * nothing once the queue has reached its peak size, and test the bus with one
 * load and one branch (for a transmission, a decrement of the bus's sampling
 * countdown: see sim_bus_subscribe_sampled); events for subscribers are built
 * out of line.
 */
#include "sim/engine.h"

#include "sim/bus_internal.h"
#include "sim/link_internal.h"
#include "sim/message_internal.h"
#include "sim/queue_internal.h"
#include "sim/rng_internal.h"

enum { EV_TIMER = 1, EV_DELIVER = 2, EV_TOPOLOGY = 3 };

typedef struct {
  guint32 kind;
  guint32 node; /* the node the event is for (topology: unused) */
  union {
    guint64 tag;
    SimMessage *msg;
    SimTopologyChange *change;
  } u;
} EngineEvent;

G_STATIC_ASSERT(sizeof(EngineEvent) == 16);

struct SimEngine {
  SimBus bus; /* first: bus.tx_countdown and bus.wanted are read on every event */
  SimQueue *queue;
  SimTime now;
  guint32 n_nodes;
  gboolean running;
  gboolean stop;
  gboolean started;
  guint64 seed;
  SimNodeHandlers handlers;
  const SimNodeHandlers **node_handlers; /* NULL until a node gets its own */
  gpointer *node_state;
  gpointer user_data;
  SimRngSet *rng;
  /* The seed of the latency and loss draws (sim_engine_set_delivery_seed;
   * the engine's seed by default), and the generator reseeded for each
   * message with sim_rng_message_seed. */
  guint64 delivery_seed;
  gsl_rng *draw;
  SimLinkTable links;
  SimEngineStats stats;
};

static gboolean check_node(const SimEngine *e, guint32 node, const char *what, GError **error) {
  if (G_LIKELY(node < e->n_nodes))
    return TRUE;
  g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
              "%s: node %u out of range (the engine has %u nodes)", what, node, e->n_nodes);
  return FALSE;
}

static inline const SimNodeHandlers *handlers_of(const SimEngine *e, guint32 node) {
  if (G_LIKELY(!e->node_handlers))
    return &e->handlers;
  const SimNodeHandlers *h = e->node_handlers[node];
  return h ? h : &e->handlers;
}

static inline void message_unref(SimMessage *m) {
  if (--m->ref_count == 0) {
    if (m->destroy)
      m->destroy(m->payload);
    g_free(m);
  }
}

/* ---- Bus events, built only when someone listens ---- */

static SimBusEvent bus_event(const SimEngine *e, SimBusEventKind kind, guint64 seq) {
  return (SimBusEvent){
      .kind = kind,
      .reason = SIM_DROP_NONE,
      .time = e->now,
      .seq = seq,
      .from = SIM_NODE_NONE,
      .to = SIM_NODE_NONE,
      .arrival = SIM_TIME_NEVER,
  };
}

static SimBusEvent message_event(const SimEngine *e, SimBusEventKind kind, guint64 seq,
                                 const SimMessage *m, guint32 to, SimTime arrival) {
  SimBusEvent ev = bus_event(e, kind, seq);
  ev.from = m->from;
  ev.to = to;
  ev.round = m->round;
  ev.tag = m->tag;
  ev.bytes = m->bytes;
  ev.arrival = arrival;
  ev.message = m;
  return ev;
}

static __attribute__((noinline)) void publish_delivery(SimEngine *e, guint64 seq,
                                                       const SimMessage *m, guint32 to) {
  SimBusEvent ev = message_event(e, SIM_BUS_MESSAGE_DELIVERED, seq, m, to, SIM_TIME_NEVER);
  sim_bus_publish(&e->bus, &ev);
}

/* A transmission some subscriber takes (sim_bus_count_transmission): its
 * SENT event, and its DROPPED event when @reason says it is lost. */
static __attribute__((noinline)) void publish_transmission(SimEngine *e, guint64 seq,
                                                           const SimMessage *m, guint32 to,
                                                           SimTime arrival, SimDropReason reason) {
  SimBusEvent ev = message_event(e, SIM_BUS_MESSAGE_SENT, seq, m, to, arrival);
  sim_bus_transmit(&e->bus, &ev, reason);
}

static __attribute__((noinline)) void publish_timer(SimEngine *e, guint64 seq, guint32 node,
                                                    guint64 tag) {
  SimBusEvent ev = bus_event(e, SIM_BUS_TIMER, seq);
  ev.to = node;
  ev.tag = tag;
  sim_bus_publish(&e->bus, &ev);
}

/* Run start and end are built whenever someone listens (they are rare, and
 * sim_bus_n_published counts them: see tests/sim/test_engine.c). */
static void publish_simple(SimEngine *e, SimBusEventKind kind) {
  if (e->bus.n_active) {
    SimBusEvent ev = bus_event(e, kind, 0);
    sim_bus_publish(&e->bus, &ev);
  }
}

/* ---- Life cycle ---- */

SimEngine *sim_engine_new(guint32 n_nodes, guint64 seed, const SimNodeHandlers *handlers,
                          gpointer user_data, GError **error) {
  SimRngSet *rng = sim_rng_set_new(seed, n_nodes, NULL, error);
  if (!rng) {
    g_prefix_error(error, "engine: ");
    return NULL;
  }
  SimQueue *queue = sim_queue_new(sizeof(EngineEvent), error);
  if (!queue) {
    sim_rng_set_free(rng);
    return NULL;
  }
  gsl_rng *draw = gsl_rng_alloc(sim_rng_default_type());
  if (!draw) {
    sim_rng_set_free(rng);
    sim_queue_free(queue);
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY, "engine: cannot allocate a generator");
    return NULL;
  }
  SimEngine *e = g_new0(SimEngine, 1);
  sim_bus_init(&e->bus);
  e->draw = draw;
  e->delivery_seed = seed;
  e->queue = queue;
  e->rng = rng;
  e->n_nodes = n_nodes;
  e->seed = seed;
  if (handlers)
    e->handlers = *handlers;
  e->node_state = g_new0(gpointer, n_nodes);
  e->user_data = user_data;
  sim_link_table_init(&e->links);
  return e;
}

static void release_event(EngineEvent *ev) {
  if (ev->kind == EV_DELIVER)
    message_unref(ev->u.msg);
  else if (ev->kind == EV_TOPOLOGY)
    g_free(ev->u.change);
}

void sim_engine_free(SimEngine *e) {
  if (!e)
    return;
  EngineEvent ev;
  while (sim_queue_pop(e->queue, NULL, NULL, NULL, &ev))
    release_event(&ev);
  sim_queue_free(e->queue);
  sim_bus_clear(&e->bus);
  sim_rng_set_free(e->rng);
  gsl_rng_free(e->draw);
  sim_link_table_clear(&e->links);
  g_free(e->node_handlers);
  g_free(e->node_state);
  g_free(e);
}

gboolean sim_engine_set_node(SimEngine *e, guint32 node, const SimNodeHandlers *handlers,
                             gpointer state, GError **error) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (!check_node(e, node, "sim_engine_set_node", error))
    return FALSE;
  if (handlers && !e->node_handlers)
    e->node_handlers = g_new0(const SimNodeHandlers *, e->n_nodes);
  if (e->node_handlers)
    e->node_handlers[node] = handlers;
  e->node_state[node] = state;
  return TRUE;
}

gpointer sim_engine_node_state(const SimEngine *e, guint32 node) {
  g_return_val_if_fail(e != NULL, NULL);
  return node < e->n_nodes ? e->node_state[node] : NULL;
}

gpointer sim_engine_get_user_data(const SimEngine *e) {
  g_return_val_if_fail(e != NULL, NULL);
  return e->user_data;
}

guint32 sim_engine_n_nodes(const SimEngine *e) {
  g_return_val_if_fail(e != NULL, 0);
  return e->n_nodes;
}

guint64 sim_engine_seed(const SimEngine *e) {
  g_return_val_if_fail(e != NULL, 0);
  return e->seed;
}

SimTime sim_engine_now(const SimEngine *e) {
  g_return_val_if_fail(e != NULL, 0);
  return e->now;
}

gsize sim_engine_pending(const SimEngine *e) {
  g_return_val_if_fail(e != NULL, 0);
  return sim_queue_live(e->queue);
}

void sim_engine_get_stats(const SimEngine *e, SimEngineStats *stats) {
  g_return_if_fail(e != NULL && stats != NULL);
  *stats = e->stats;
}

SimBus *sim_engine_bus(SimEngine *e) {
  g_return_val_if_fail(e != NULL, NULL);
  return &e->bus;
}

gsl_rng *sim_engine_rng(SimEngine *e, guint32 node, guint32 purpose, GError **error) {
  g_return_val_if_fail(e != NULL, NULL);
  return sim_rng_set_get(e->rng, node, purpose, error);
}

gboolean sim_engine_set_delivery_seed(SimEngine *e, guint64 seed, GError **error) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (e->started) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_engine_set_delivery_seed: the engine has already run");
    return FALSE;
  }
  (void)error;
  e->delivery_seed = seed;
  return TRUE;
}

/* ---- Links ---- */

void sim_engine_set_node_names(SimEngine *e, SimNodeFind find, gconstpointer graph) {
  g_return_if_fail(e != NULL);
  e->links.names = (SimNodeNames){find, graph};
}

gboolean sim_engine_set_default_link(SimEngine *e, const SimLinkParams *params, GError **error) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (!params) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_engine_set_default_link: params is NULL");
    return FALSE;
  }
  return sim_link_model_set(&e->links, &e->links.def, params, error);
}

gboolean sim_engine_set_link(SimEngine *e, guint32 from, guint32 to, const SimLinkParams *params,
                             GError **error) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (!check_node(e, from, "sim_engine_set_link", error) ||
      !check_node(e, to, "sim_engine_set_link", error))
    return FALSE;
  return sim_link_table_set(&e->links, from, to, params, error);
}

gboolean sim_engine_check_link(const SimEngine *e, guint32 from, guint32 to, GError **error) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (!check_node(e, from, "sim_engine_check_link", error) ||
      !check_node(e, to, "sim_engine_check_link", error))
    return FALSE;
  gboolean down;
  const SimLinkModel *lm = sim_link_table_lookup(&e->links, from, to, &down);
  SimTime ns;
  return lm->data == NULL || sim_link_model_delay(lm, from, to, &ns, error);
}

gboolean sim_engine_set_link_down(SimEngine *e, guint32 from, guint32 to, gboolean down,
                                  GError **error) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (!check_node(e, from, "sim_engine_set_link_down", error) ||
      !check_node(e, to, "sim_engine_set_link_down", error))
    return FALSE;
  sim_link_table_set_down(&e->links, from, to, down);
  return TRUE;
}

gboolean sim_engine_link_is_down(const SimEngine *e, guint32 from, guint32 to) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (from >= e->n_nodes || to >= e->n_nodes)
    return FALSE;
  gboolean down;
  sim_link_table_lookup(&e->links, from, to, &down);
  return down;
}

/* ---- Sending ---- */

/* The generator of the draws for @purpose of the message (@from, @round,
 * @tag) on the link to @to. */
static gsl_rng *message_draw(SimEngine *e, guint32 from, guint32 to, guint32 round, guint32 tag,
                             guint32 purpose) {
  gsl_rng_set(e->draw, sim_rng_message_seed(e->delivery_seed, from, to, round, tag, purpose));
  return e->draw;
}

/* What a transmission of (@from, @round, @tag) to @to draws: Loss (only
 * when 0 < p < 1) and latency (only when random), each from a generator
 * seeded by the message's key (sim_rng_message_seed: delivery seed, link,
 * round, tag), so they depend on nothing else the run does. A down link
 * draws nothing. @reason: why it is dropped, or SIM_DROP_NONE and then
 * @latency. The one home of these draws: transmit and
 * sim_engine_draw_transmission (a timing pass) both call it. */
static inline gboolean draw_transmission(SimEngine *e, guint32 from, guint32 to, guint32 round,
                                         guint32 tag, SimDropReason *reason, SimTime *latency,
                                         GError **error) {
  gboolean down;
  const SimLinkModel *lm = sim_link_table_lookup(&e->links, from, to, &down);
  *reason = SIM_DROP_NONE;
  if (G_UNLIKELY(down)) {
    *reason = SIM_DROP_LINK_DOWN;
    return TRUE;
  }
  if (lm->params.loss > 0) {
    gsl_rng *r = lm->params.loss < 1 ? message_draw(e, from, to, round, tag, SIM_RNG_LOSS) : NULL;
    if (sim_loss_sample(lm->params.loss, r)) {
      *reason = SIM_DROP_LOSS;
      return TRUE;
    }
  }
  if (lm->params.latency.kind == SIM_LATENCY_CONSTANT)
    *latency = lm->constant_ns;
  else if (lm->data != NULL)
    return sim_link_model_delay(lm, from, to, latency, error);
  else
    *latency = sim_latency_sample(&lm->params.latency,
                                  message_draw(e, from, to, round, tag, SIM_RNG_LATENCY));
  return TRUE;
}

/* The arrival of a message sent at @now after @latency. Saturates rather
 * than wraps: an arrival past the end of time never comes. */
static inline SimTime arrival_time(SimTime now, SimTime latency) {
  return latency < SIM_TIME_NEVER - 1 - now ? now + latency : SIM_TIME_NEVER - 1;
}

gboolean sim_engine_draw_transmission(SimEngine *e, guint32 from, guint32 to, guint32 round,
                                      guint32 tag, SimTime now, SimTime *arrival, GError **error) {
  g_return_val_if_fail(e != NULL && arrival != NULL, FALSE);
  if (!check_node(e, from, "sim_engine_draw_transmission", error) ||
      !check_node(e, to, "sim_engine_draw_transmission", error))
    return FALSE;
  SimDropReason reason;
  SimTime latency = 0;
  if (!draw_transmission(e, from, to, round, tag, &reason, &latency, error))
    return FALSE;
  *arrival = reason != SIM_DROP_NONE ? SIM_TIME_NEVER : arrival_time(now, latency);
  return TRUE;
}

/* One transmission; nodes already checked. Its draws: draw_transmission. */
static gboolean transmit(SimEngine *e, SimMessage *m, guint32 to, GError **error) {
  SimDropReason reason;
  SimTime latency = 0;
  if (!draw_transmission(e, m->from, to, m->round, m->tag, &reason, &latency, error))
    return FALSE;
  e->stats.messages_sent++;
  e->stats.bytes_sent += m->bytes;
  if (reason != SIM_DROP_NONE) {
    guint64 seq = sim_queue_take_seq(e->queue);
    e->stats.messages_dropped++;
    if (reason == SIM_DROP_LOSS)
      e->stats.dropped_loss++;
    else
      e->stats.dropped_link_down++;
    if (sim_bus_count_transmission(&e->bus))
      publish_transmission(e, seq, m, to, SIM_TIME_NEVER, reason);
    return TRUE;
  }
  SimTime at = arrival_time(e->now, latency);
  EngineEvent ev = {.kind = EV_DELIVER, .node = to, .u.msg = m};
  guint64 seq;
  if (G_UNLIKELY(!sim_queue_push_inline(e->queue, at, &ev, sizeof ev, &seq))) {
    e->stats.messages_sent--;
    e->stats.bytes_sent -= m->bytes;
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                "cannot schedule a delivery: the event queue cannot grow beyond %u events",
                e->queue->size);
    return FALSE;
  }
  m->ref_count++;
  /* Counted once the transmission is sure to happen: the bus's count then
   * equals messages_sent, which sampled subscribers rely on. */
  if (sim_bus_count_transmission(&e->bus))
    publish_transmission(e, seq, m, to, at, SIM_DROP_NONE);
  return TRUE;
}

static gboolean check_message(const SimEngine *e, const SimMessage *m, const char *what,
                              GError **error) {
  if (!m) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT, "%s: message is NULL", what);
    return FALSE;
  }
  if (m->from >= e->n_nodes) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "%s: sender %u out of range (the engine has %u nodes)", what, m->from, e->n_nodes);
    return FALSE;
  }
  return TRUE;
}

gboolean sim_engine_send(SimEngine *e, SimMessage *msg, guint32 to, GError **error) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (!check_message(e, msg, "sim_engine_send", error) ||
      !check_node(e, to, "sim_engine_send: destination", error))
    return FALSE;
  return transmit(e, msg, to, error);
}

gboolean sim_engine_broadcast(SimEngine *e, SimMessage *msg, const guint32 *to, gsize n_to,
                              GError **error) {
  g_return_val_if_fail(e != NULL, FALSE);
  if (!check_message(e, msg, "sim_engine_broadcast", error))
    return FALSE;
  if (n_to && !to) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_engine_broadcast: %" G_GSIZE_FORMAT " destinations but no array", n_to);
    return FALSE;
  }
  for (gsize i = 0; i < n_to; i++)
    if (!check_node(e, to[i], "sim_engine_broadcast: destination", error))
      return FALSE;
  for (gsize i = 0; i < n_to; i++)
    if (!transmit(e, msg, to[i], error))
      return FALSE;
  return TRUE;
}

/* ---- Timers and topology notifications ---- */

SimEventId sim_engine_set_timer_at(SimEngine *e, guint32 node, SimTime at, guint64 tag,
                                   GError **error) {
  g_return_val_if_fail(e != NULL, SIM_EVENT_ID_NONE);
  if (!check_node(e, node, "sim_engine_set_timer", error))
    return SIM_EVENT_ID_NONE;
  if (G_UNLIKELY(at < e->now || at == SIM_TIME_NEVER)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_engine_set_timer: time %" G_GUINT64_FORMAT
                " ns is in the past (now %" G_GUINT64_FORMAT " ns) or never comes",
                at, e->now);
    return SIM_EVENT_ID_NONE;
  }
  EngineEvent ev = {.kind = EV_TIMER, .node = node, .u.tag = tag};
  SimEventId id = sim_queue_push_inline(e->queue, at, &ev, sizeof ev, NULL);
  if (G_UNLIKELY(!id))
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                "cannot set a timer: the event queue cannot grow beyond %u events", e->queue->size);
  return id;
}

SimEventId sim_engine_set_timer(SimEngine *e, guint32 node, SimTime delay, guint64 tag,
                                GError **error) {
  g_return_val_if_fail(e != NULL, SIM_EVENT_ID_NONE);
  if (G_UNLIKELY(delay >= SIM_TIME_NEVER - e->now)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_engine_set_timer: delay %" G_GUINT64_FORMAT " ns from %" G_GUINT64_FORMAT
                " ns passes the end of time",
                delay, e->now);
    return SIM_EVENT_ID_NONE;
  }
  return sim_engine_set_timer_at(e, node, e->now + delay, tag, error);
}

gboolean sim_engine_cancel(SimEngine *e, SimEventId id) {
  g_return_val_if_fail(e != NULL, FALSE);
  SimQueueSlot *s = sim_queue_pending(e->queue, id);
  if (!s)
    return FALSE;
  /* Deliveries are not the caller's to cancel (their ids are never handed out). */
  if (((const EngineEvent *)sim_queue_slot_payload(s))->kind == EV_DELIVER)
    return FALSE;
  EngineEvent ev;
  sim_queue_cancel_slot(e->queue, s, &ev, sizeof ev);
  release_event(&ev);
  return TRUE;
}

SimEventId sim_engine_notify_topology_change(SimEngine *e, SimTime at,
                                             const SimTopologyChange *change, GError **error) {
  g_return_val_if_fail(e != NULL, SIM_EVENT_ID_NONE);
  const char *what = "sim_engine_notify_topology_change";
  if (!change) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT, "%s: change is NULL", what);
    return SIM_EVENT_ID_NONE;
  }
  switch (change->kind) {
  case SIM_TOPOLOGY_GRAPH:
    break;
  case SIM_TOPOLOGY_LINK_DOWN:
  case SIM_TOPOLOGY_LINK_UP:
    if (!check_node(e, change->u, what, error) || !check_node(e, change->v, what, error))
      return SIM_EVENT_ID_NONE;
    break;
  default:
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT, "%s: unknown change kind %d", what,
                (int)change->kind);
    return SIM_EVENT_ID_NONE;
  }
  if (at < e->now || at == SIM_TIME_NEVER) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "%s: time %" G_GUINT64_FORMAT " ns is in the past (now %" G_GUINT64_FORMAT
                " ns) or never comes",
                what, at, e->now);
    return SIM_EVENT_ID_NONE;
  }
  EngineEvent ev = {
      .kind = EV_TOPOLOGY, .node = SIM_NODE_NONE, .u.change = g_memdup2(change, sizeof *change)};
  SimEventId id = sim_queue_push_inline(e->queue, at, &ev, sizeof ev, NULL);
  if (!id) {
    g_free(ev.u.change);
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                "%s: the event queue cannot grow beyond %u events", what, e->queue->size);
  }
  return id;
}

/* ---- Running ---- */

static void dispatch_topology(SimEngine *e, guint64 seq, SimTopologyChange *c) {
  gboolean link = c->kind != SIM_TOPOLOGY_GRAPH;
  if (link) {
    gboolean down = c->kind == SIM_TOPOLOGY_LINK_DOWN;
    sim_link_table_set_down(&e->links, c->u, c->v, down);
    sim_link_table_set_down(&e->links, c->v, c->u, down);
  }
  if (G_UNLIKELY(e->bus.wanted & SIM_BUS_KIND_BIT(SIM_BUS_TOPOLOGY_CHANGE))) {
    SimBusEvent ev = bus_event(e, SIM_BUS_TOPOLOGY_CHANGE, seq);
    if (link) {
      ev.from = c->u;
      ev.to = c->v;
    }
    ev.tag = c->epoch;
    ev.change = c;
    sim_bus_publish(&e->bus, &ev);
  }
  if (link) {
    const SimNodeHandlers *h = handlers_of(e, c->u);
    if (h->on_topology_change)
      h->on_topology_change(e, c->u, e->node_state[c->u], c);
    if (c->v != c->u) {
      h = handlers_of(e, c->v);
      if (h->on_topology_change)
        h->on_topology_change(e, c->v, e->node_state[c->v], c);
    }
  } else {
    for (guint32 i = 0; i < e->n_nodes; i++) {
      const SimNodeHandlers *h = handlers_of(e, i);
      if (h->on_topology_change)
        h->on_topology_change(e, i, e->node_state[i], c);
    }
  }
}

SimRunStatus sim_engine_run(SimEngine *e, SimTime until, GError **error) {
  g_return_val_if_fail(e != NULL, SIM_RUN_ERROR);
  if (e->running) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_engine_run called from a handler (runs do not nest)");
    return SIM_RUN_ERROR;
  }
  e->running = TRUE;
  e->stop = FALSE;
  publish_simple(e, SIM_BUS_RUN_START);
  if (!e->started) {
    e->started = TRUE;
    for (guint32 i = 0; i < e->n_nodes; i++) {
      const SimNodeHandlers *h = handlers_of(e, i);
      if (h->on_start)
        h->on_start(e, i, e->node_state[i]);
    }
  }
  SimQueue *q = e->queue;
  SimRunStatus status = SIM_RUN_IDLE;
  while (!e->stop) {
    const SimQueueEntry *top = sim_queue_top_inline(q);
    if (!top) {
      status = SIM_RUN_IDLE;
      break;
    }
    if (top->time > until) {
      status = SIM_RUN_HORIZON;
      break;
    }
    EngineEvent ev;
    SimEventId id;
    guint64 seq;
    sim_queue_pop_top_inline(q, &e->now, &seq, &id, &ev, sizeof ev);
    /* The next event's slot record is a likely cache miss in large runs:
     * start loading it while this event's handler runs. */
    if (q->size)
      __builtin_prefetch(sim_queue_slot(q, (guint32)q->heap[0].lo));
    e->stats.events++;
    switch (ev.kind) {
    case EV_TIMER: {
      e->stats.timers++;
      if (G_UNLIKELY(e->bus.wanted & SIM_BUS_KIND_BIT(SIM_BUS_TIMER)))
        publish_timer(e, seq, ev.node, ev.u.tag);
      const SimNodeHandlers *h = handlers_of(e, ev.node);
      if (h->on_timer)
        h->on_timer(e, ev.node, e->node_state[ev.node], id, ev.u.tag);
      break;
    }
    case EV_DELIVER: {
      SimMessage *m = ev.u.msg;
      e->stats.messages_delivered++;
      e->stats.bytes_delivered += m->bytes;
      if (G_UNLIKELY(e->bus.wanted & SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DELIVERED)))
        publish_delivery(e, seq, m, ev.node);
      const SimNodeHandlers *h = handlers_of(e, ev.node);
      if (h->on_message)
        h->on_message(e, ev.node, e->node_state[ev.node], m);
      message_unref(m);
      break;
    }
    case EV_TOPOLOGY:
      dispatch_topology(e, seq, ev.u.change);
      g_free(ev.u.change);
      break;
    default:
      g_assert_not_reached();
    }
  }
  if (e->stop)
    status = SIM_RUN_STOPPED;
  else if (until != SIM_TIME_NEVER && until > e->now)
    e->now = until;
  publish_simple(e, SIM_BUS_RUN_END);
  e->running = FALSE;
  e->stop = FALSE;
  return status;
}

void sim_engine_stop(SimEngine *e) {
  g_return_if_fail(e != NULL);
  e->stop = TRUE;
}
