/*
 * tests/sim/test_engine.c: the node runtime end to end: delivery times,
 * latency and loss drawn from the sender's streams (checked against streams
 * rebuilt independently), shared broadcast payloads, timers and cancel, down
 * links and topology notifications, the exact bus event sequence of a small
 * run, byte-identical logs for one seed, and the bus's no-subscriber path.
 */
#include <string.h>

#include "sim/sim.h"

#define MS SIM_TIME_MS

static SimEngine *engine_new(guint32 n, guint64 seed, const SimNodeHandlers *h, gpointer ud) {
  GError *err = NULL;
  SimEngine *e = sim_engine_new(n, seed, h, ud, &err);
  g_assert_no_error(err);
  g_assert_nonnull(e);
  return e;
}

static SimLinkParams link_spec(const char *latency, double loss) {
  SimLinkParams p = {.loss = loss};
  GError *err = NULL;
  g_assert_true(sim_latency_parse(latency, &p.latency, &err));
  g_assert_no_error(err);
  return p;
}

static void set_default_link(SimEngine *e, const char *latency, double loss) {
  SimLinkParams p = link_spec(latency, loss);
  GError *err = NULL;
  g_assert_true(sim_engine_set_default_link(e, &p, &err));
  g_assert_no_error(err);
}

static void send(SimEngine *e, guint32 from, guint32 to, guint32 round, guint32 tag,
                 guint64 bytes) {
  SimMessage *m = sim_message_new(from, round, tag, NULL, bytes, NULL);
  GError *err = NULL;
  g_assert_true(sim_engine_send(e, m, to, &err));
  g_assert_no_error(err);
  sim_message_unref(m);
}

static SimRunStatus run(SimEngine *e, SimTime until) {
  GError *err = NULL;
  SimRunStatus s = sim_engine_run(e, until, &err);
  g_assert_no_error(err);
  return s;
}

static void log_event(const SimBusEvent *ev, gpointer data) {
  sim_bus_event_append(data, ev);
}

static GString *attach_log(SimEngine *e) {
  GString *log = g_string_new(NULL);
  GError *err = NULL;
  g_assert_cmpuint(sim_bus_subscribe(sim_engine_bus(e), log_event, log, NULL, &err), >, 0);
  g_assert_no_error(err);
  return log;
}

/* ---- Delivery time = send time + latency ---- */

typedef struct {
  GArray *arrivals; /* (node, time, from, round) quadruples as guint64 */
} Arrivals;

static void record_arrival(SimEngine *e, guint32 node, gpointer state, SimMessage *m) {
  (void)state;
  Arrivals *a = sim_engine_get_user_data(e);
  guint64 q[4] = {node, sim_engine_now(e), sim_message_from(m), sim_message_round(m)};
  g_array_append_vals(a->arrivals, q, 4);
}

static void start_send_three(SimEngine *e, guint32 node, gpointer state) {
  (void)state;
  if (node != 0)
    return;
  send(e, 0, 1, 1, 0, 8);
  send(e, 0, 2, 2, 0, 8);
  g_assert_cmpuint(sim_engine_set_timer(e, 0, 5 * MS, 0, NULL), !=, SIM_EVENT_ID_NONE);
}

static void timer_send_again(SimEngine *e, guint32 node, gpointer state, SimEventId id,
                             guint64 tag) {
  (void)state, (void)id, (void)tag;
  g_assert_cmpuint(sim_engine_now(e), ==, 5 * MS);
  send(e, node, 1, 3, 0, 8);
}

static void test_delivery_time(void) {
  Arrivals a = {g_array_new(FALSE, FALSE, sizeof(guint64))};
  SimNodeHandlers h = {
      .on_start = start_send_three, .on_timer = timer_send_again, .on_message = record_arrival};
  SimEngine *e = engine_new(3, 1, &h, &a);
  set_default_link(e, "constant:ms=10", 0);
  SimLinkParams slow = link_spec("constant:ms=50", 0);
  g_assert_true(sim_engine_set_link(e, 0, 2, &slow, NULL));
  g_assert_cmpint(run(e, SIM_TIME_NEVER), ==, SIM_RUN_IDLE);
  const guint64 want[][4] = {{1, 10 * MS, 0, 1}, {1, 15 * MS, 0, 3}, {2, 50 * MS, 0, 2}};
  g_assert_cmpuint(a.arrivals->len, ==, 12);
  for (guint i = 0; i < 3; i++)
    for (guint k = 0; k < 4; k++)
      g_assert_cmpuint(g_array_index(a.arrivals, guint64, 4 * i + k), ==, want[i][k]);
  g_assert_cmpuint(sim_engine_now(e), ==, 50 * MS);
  SimEngineStats st;
  sim_engine_get_stats(e, &st);
  g_assert_cmpuint(st.messages_sent, ==, 3);
  g_assert_cmpuint(st.messages_delivered, ==, 3);
  g_assert_cmpuint(st.messages_dropped, ==, 0);
  g_assert_cmpuint(st.bytes_delivered, ==, 24);
  g_assert_cmpuint(st.timers, ==, 1);
  g_assert_cmpuint(st.events, ==, 4);
  sim_engine_free(e);
  g_array_free(a.arrivals, TRUE);
}

/* ---- Latency and loss are keyed by the message (sim_rng_message_seed) ---- */

typedef struct {
  guint32 n_senders;
  guint32 n_each;
  gboolean reverse; /* send rounds n_each - 1 .. 0 instead of 0 .. n_each - 1 */
  guint32 n_active; /* when > 0, only nodes below it send */
  GArray *arrivals;
  GArray *drops; /* (from, round) */
} Senders;

static void start_senders(SimEngine *e, guint32 node, gpointer state) {
  (void)state;
  Senders *s = sim_engine_get_user_data(e);
  if (node >= s->n_senders || (s->n_active > 0 && node >= s->n_active))
    return;
  for (guint32 k = 0; k < s->n_each; k++)
    send(e, node, s->n_senders, s->reverse ? s->n_each - 1 - k : k, 0,
         1); /* the last node receives */
}

static void senders_arrival(SimEngine *e, guint32 node, gpointer state, SimMessage *m) {
  (void)state;
  Senders *s = sim_engine_get_user_data(e);
  guint64 q[4] = {node, sim_engine_now(e), sim_message_from(m), sim_message_round(m)};
  g_array_append_vals(s->arrivals, q, 4);
}

static void record_drop(const SimBusEvent *ev, gpointer data) {
  if (ev->kind != SIM_BUS_MESSAGE_DROPPED)
    return;
  g_assert_cmpint(ev->reason, ==, SIM_DROP_LOSS);
  guint64 q[2] = {ev->from, ev->round};
  g_array_append_vals(data, q, 2);
}

/* Arrival time (or 0 when lost) of message k of @from, from the table. */
static SimTime arrival_of(const Senders *s, guint32 from, guint32 k) {
  for (guint i = 0; i < s->arrivals->len; i += 4) {
    const guint64 *q = &g_array_index(s->arrivals, guint64, i);
    if (q[2] == from && q[3] == k)
      return q[1];
  }
  return 0;
}

/* A generator at the draws of message (@from -> @to, round @round, tag 0)
 * for @purpose under @seed: the engine's keyed draws, rebuilt independently
 * of it (one xoshiro generator, reseeded per call, allocated once). */
static gsl_rng *message_rng(guint64 seed, guint32 from, guint32 to, guint32 round,
                            guint32 purpose) {
  static gsl_rng *r;
  if (r == NULL)
    r = gsl_rng_alloc(sim_rng_default_type());
  gsl_rng_set(r, sim_rng_message_seed(seed, from, to, round, 0, purpose));
  return r;
}

/* @delivery: NULL, or the delivery seed (sim_engine_set_delivery_seed). */
static void run_senders_with(Senders *s, guint64 seed, const guint64 *delivery, double loss) {
  SimNodeHandlers h = {.on_start = start_senders, .on_message = senders_arrival};
  s->arrivals = g_array_new(FALSE, FALSE, sizeof(guint64));
  s->drops = g_array_new(FALSE, FALSE, sizeof(guint64));
  SimEngine *e = engine_new(s->n_senders + 1, seed, &h, s);
  if (delivery != NULL) {
    GError *err = NULL;
    g_assert_true(sim_engine_set_delivery_seed(e, *delivery, &err));
    g_assert_no_error(err);
  }
  set_default_link(e, "uniform:min=1,max=20", loss);
  sim_bus_subscribe(sim_engine_bus(e), record_drop, s->drops, NULL, NULL);
  run(e, SIM_TIME_NEVER);
  sim_engine_free(e);
}

static void run_senders(Senders *s, guint64 seed, double loss) {
  run_senders_with(s, seed, NULL, loss);
}

/* The arrivals and losses of @s are those the streams of @seed draw. */
static void check_streams(const Senders *s, guint64 seed, double loss) {
  SimLatency lat;
  g_assert_true(sim_latency_parse("uniform:min=1,max=20", &lat, NULL));
  guint n_lost = 0;
  for (guint32 u = 0; u < s->n_senders; u++) {
    for (guint32 k = 0; k < s->n_each; k++) {
      gboolean lost = gsl_rng_uniform(message_rng(seed, u, s->n_senders, k, SIM_RNG_LOSS)) < loss;
      SimTime got = arrival_of(s, u, k);
      if (lost)
        g_assert_cmpuint(got, ==, 0);
      else
        g_assert_cmpuint(
            got, ==,
            sim_latency_sample(&lat, message_rng(seed, u, s->n_senders, k, SIM_RNG_LATENCY)));
      n_lost += lost;
    }
  }
  g_assert_cmpuint(s->drops->len, ==, 2 * n_lost);
  g_assert_cmpuint(n_lost, >, 100); /* 600 x 0.25 = 150 expected */
}

/* A delivery seed D: the latencies and losses of an engine of seed D,
 * whatever the engine's own seed, whose other streams stay its own. */
static void test_delivery_seed(void) {
  const guint64 seed = 5, delivery = 77;
  const double loss = 0.25;
  Senders s = {.n_senders = 3, .n_each = 200};
  run_senders_with(&s, seed, &delivery, loss);
  check_streams(&s, delivery, loss);
  Senders plain = {.n_senders = 3, .n_each = 200};
  run_senders(&plain, delivery, loss);
  g_assert_cmpuint(plain.arrivals->len, ==, s.arrivals->len);
  g_assert_cmpmem(plain.arrivals->data, plain.arrivals->len * sizeof(guint64), s.arrivals->data,
                  s.arrivals->len * sizeof(guint64));
  /* Without it the engine's seed draws them: other arrivals. */
  Senders own = {.n_senders = 3, .n_each = 200};
  run_senders(&own, seed, loss);
  gboolean differ = own.arrivals->len != s.arrivals->len ||
                    memcmp(own.arrivals->data, s.arrivals->data,
                           s.arrivals->len * sizeof(guint64)) != 0;
  g_assert_true(differ);
  /* Set after the run started: refused. */
  GError *err = NULL;
  SimEngine *e = engine_new(2, seed, NULL, NULL);
  run(e, SIM_TIME_NEVER);
  g_assert_false(sim_engine_set_delivery_seed(e, delivery, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  sim_engine_free(e);
  Senders *all[] = {&s, &plain, &own};
  for (guint i = 0; i < G_N_ELEMENTS(all); i++) {
    g_array_free(all[i]->arrivals, TRUE);
    g_array_free(all[i]->drops, TRUE);
  }
}

static void test_sender_streams(void) {
  const guint64 seed = 77;
  const double loss = 0.25;
  Senders s = {.n_senders = 3, .n_each = 200};
  run_senders(&s, seed, loss);
  SimLatency lat;
  g_assert_true(sim_latency_parse("uniform:min=1,max=20", &lat, NULL));
  guint n_lost = 0;
  for (guint32 u = 0; u < s.n_senders; u++) {
    for (guint32 k = 0; k < s.n_each; k++) {
      gboolean lost = gsl_rng_uniform(message_rng(seed, u, s.n_senders, k, SIM_RNG_LOSS)) < loss;
      SimTime got = arrival_of(&s, u, k);
      if (lost) {
        g_assert_cmpuint(got, ==, 0);
        n_lost++;
      } else {
        g_assert_cmpuint(
            got, ==,
            sim_latency_sample(&lat, message_rng(seed, u, s.n_senders, k, SIM_RNG_LATENCY)));
      }
    }
  }
  g_assert_cmpuint(s.drops->len, ==, 2 * n_lost);
  g_assert_cmpuint(s.arrivals->len, ==, 4 * (s.n_senders * s.n_each - n_lost));
  g_assert_cmpuint(n_lost, >, 100); /* 600 x 0.25 = 150 expected */

  /* Node 0's draws do not depend on whether nodes 1 and 2 send: a run with
   * node 0 alone gives node 0 the same arrivals. */
  Senders alone = {.n_senders = 3, .n_each = 200, .n_active = 1};
  run_senders(&alone, seed, loss);
  for (guint32 k = 0; k < s.n_each; k++)
    g_assert_cmpuint(arrival_of(&alone, 0, k), ==, arrival_of(&s, 0, k));
  /* Nor on the order of the sender's own messages (the draws are keyed by
   * the message, not drawn in sequence): sent in reverse, same arrivals. */
  Senders reversed = {.n_senders = 3, .n_each = 200, .reverse = TRUE};
  run_senders(&reversed, seed, loss);
  for (guint32 u = 0; u < s.n_senders; u++)
    for (guint32 k = 0; k < s.n_each; k++)
      g_assert_cmpuint(arrival_of(&reversed, u, k), ==, arrival_of(&s, u, k));
  g_array_free(reversed.arrivals, TRUE);
  g_array_free(reversed.drops, TRUE);
  g_array_free(s.arrivals, TRUE);
  g_array_free(s.drops, TRUE);
  g_array_free(alone.arrivals, TRUE);
  g_array_free(alone.drops, TRUE);
}

/* ---- Broadcast shares one payload ---- */

typedef struct {
  int destroyed;
  int payload;
  guint delivered;
  SimMessage *msg;
} Shared;

static void shared_destroy(gpointer p) {
  Shared *s = (Shared *)((char *)p - G_STRUCT_OFFSET(Shared, payload));
  s->destroyed++;
}

static void shared_on_message(SimEngine *e, guint32 node, gpointer state, SimMessage *m) {
  (void)state;
  Shared *s = sim_engine_get_user_data(e);
  g_assert_true(m == s->msg);
  g_assert_true(sim_message_payload(m) == &s->payload);
  g_assert_cmpint(s->destroyed, ==, 0);
  s->delivered++;
  /* This delivery's reference plus one per delivery still pending. */
  g_assert_cmpuint(sim_message_ref_count(m), ==, 1 + (5 - s->delivered));
  g_assert_cmpuint(sim_engine_now(e), ==, node * MS); /* link 0 -> v takes v ms */
}

static void test_broadcast_shared(void) {
  Shared s = {0};
  SimNodeHandlers h = {.on_message = shared_on_message};
  SimEngine *e = engine_new(6, 3, &h, &s);
  for (guint32 v = 1; v <= 5; v++) {
    char spec[32];
    g_snprintf(spec, sizeof spec, "constant:ms=%u", v);
    SimLinkParams p = link_spec(spec, 0);
    g_assert_true(sim_engine_set_link(e, 0, v, &p, NULL));
  }
  s.msg = sim_message_new(0, 4, 9, &s.payload, 1000, shared_destroy);
  const guint32 to[] = {5, 3, 1, 4, 2};
  GError *err = NULL;
  g_assert_true(sim_engine_broadcast(e, s.msg, to, G_N_ELEMENTS(to), &err));
  g_assert_no_error(err);
  g_assert_cmpuint(sim_message_ref_count(s.msg), ==, 6);
  sim_message_unref(s.msg); /* the sender lets go: the engine holds the rest */
  run(e, SIM_TIME_NEVER);
  g_assert_cmpuint(s.delivered, ==, 5);
  g_assert_cmpint(s.destroyed, ==, 1);
  SimEngineStats st;
  sim_engine_get_stats(e, &st);
  g_assert_cmpuint(st.messages_sent, ==, 5);
  g_assert_cmpuint(st.bytes_sent, ==, 5000);
  sim_engine_free(e);
  g_assert_cmpint(s.destroyed, ==, 1);
}

/* Messages still in flight when the engine is freed are released. */
static void test_free_pending(void) {
  Shared s = {0};
  SimEngine *e = engine_new(3, 3, NULL, NULL);
  set_default_link(e, "constant:ms=1", 0);
  s.msg = sim_message_new(0, 0, 0, &s.payload, 1, shared_destroy);
  const guint32 to[] = {1, 2};
  g_assert_true(sim_engine_broadcast(e, s.msg, to, 2, NULL));
  sim_message_unref(s.msg);
  g_assert_true(sim_engine_set_timer(e, 1, MS, 0, NULL) != SIM_EVENT_ID_NONE);
  SimTopologyChange c = {.kind = SIM_TOPOLOGY_GRAPH};
  g_assert_true(sim_engine_notify_topology_change(e, MS, &c, NULL) != SIM_EVENT_ID_NONE);
  g_assert_cmpuint(sim_engine_pending(e), ==, 4);
  g_assert_cmpint(s.destroyed, ==, 0);
  sim_engine_free(e);
  g_assert_cmpint(s.destroyed, ==, 1);
}

/* ---- Timers ---- */

typedef struct {
  GArray *fired; /* tags */
  SimEventId ids[8];
  SimEventId cancel_me;
} Timers;

static void timers_on_timer(SimEngine *e, guint32 node, gpointer state, SimEventId id,
                            guint64 tag) {
  (void)state;
  Timers *t = sim_engine_get_user_data(e);
  g_array_append_val(t->fired, tag);
  if (tag < 8)
    g_assert_cmpuint(id, ==, t->ids[tag]);
  g_assert_false(sim_engine_cancel(e, id)); /* a firing timer is no longer pending */
  if (tag == 5) {
    /* Cancel a later timer from a handler, and arm one for right now: it
     * fires after everything already scheduled at this time. */
    g_assert_true(sim_engine_cancel(e, t->cancel_me));
    g_assert_cmpuint(sim_engine_set_timer(e, node, 0, 100, NULL), !=, SIM_EVENT_ID_NONE);
  }
}

static void test_timers(void) {
  Timers t = {.fired = g_array_new(FALSE, FALSE, sizeof(guint64))};
  SimNodeHandlers h = {.on_timer = timers_on_timer};
  SimEngine *e = engine_new(2, 5, &h, &t);
  GError *err = NULL;
  /* tag: time in ms, except 2 and 6 share 2 ms, 5 and 7 share 5 ms */
  const SimTime at[8] = {0, 1, 2, 3, 4, 5, 2, 5};
  for (guint64 tag = 1; tag < 8; tag++) {
    t.ids[tag] = sim_engine_set_timer_at(e, tag % 2, at[tag] * MS, tag, &err);
    g_assert_no_error(err);
  }
  g_assert_true(sim_engine_cancel(e, t.ids[4]));
  g_assert_false(sim_engine_cancel(e, t.ids[4]));
  g_assert_false(sim_engine_cancel(e, SIM_EVENT_ID_NONE));
  g_assert_false(sim_engine_cancel(e, t.ids[7] + 1000));
  t.cancel_me = sim_engine_set_timer_at(e, 0, 9 * MS, 9, &err);
  run(e, SIM_TIME_NEVER);
  const guint64 want[] = {1, 2, 6, 3, 5, 7, 100};
  g_assert_cmpuint(t.fired->len, ==, G_N_ELEMENTS(want));
  for (guint i = 0; i < G_N_ELEMENTS(want); i++)
    g_assert_cmpuint(g_array_index(t.fired, guint64, i), ==, want[i]);
  g_assert_false(sim_engine_cancel(e, t.ids[1])); /* fired */
  g_assert_cmpuint(sim_engine_now(e), ==, 5 * MS);

  /* Bad timers. */
  g_assert_cmpuint(sim_engine_set_timer_at(e, 0, 4 * MS, 0, &err), ==, SIM_EVENT_ID_NONE);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "in the past"));
  g_clear_error(&err);
  g_assert_cmpuint(sim_engine_set_timer(e, 2, 0, 0, &err), ==, SIM_EVENT_ID_NONE);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "node 2 out of range"));
  g_clear_error(&err);
  g_assert_cmpuint(sim_engine_set_timer(e, 0, SIM_TIME_NEVER - 1, 0, &err), ==, SIM_EVENT_ID_NONE);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_cmpuint(sim_engine_pending(e), ==, 0);
  sim_engine_free(e);
  g_array_free(t.fired, TRUE);
}

/* ---- Down links and topology changes ---- */

typedef struct {
  GString *log;
} Topo;

static void topo_on_message(SimEngine *e, guint32 node, gpointer state, SimMessage *m) {
  (void)state;
  Topo *t = sim_engine_get_user_data(e);
  g_string_append_printf(t->log, "msg %u->%u r%u @%" G_GUINT64_FORMAT "\n", sim_message_from(m),
                         node, sim_message_round(m), sim_engine_now(e) / MS);
}

static void topo_on_change(SimEngine *e, guint32 node, gpointer state, const SimTopologyChange *c) {
  (void)state;
  Topo *t = sim_engine_get_user_data(e);
  g_string_append_printf(
      t->log, "topo %u kind%d epoch%" G_GUINT64_FORMAT " @%" G_GUINT64_FORMAT " down=%d\n", node,
      c->kind, c->epoch, sim_engine_now(e) / MS, sim_engine_link_is_down(e, 0, 1));
}

static void topo_on_timer(SimEngine *e, guint32 node, gpointer state, SimEventId id, guint64 tag) {
  (void)state, (void)id;
  send(e, node, 1, (guint32)tag, 0, 4);
}

static void test_down_links(void) {
  Topo t = {g_string_new(NULL)};
  SimNodeHandlers h = {.on_message = topo_on_message,
                       .on_timer = topo_on_timer,
                       .on_topology_change = topo_on_change};
  SimEngine *e = engine_new(3, 9, &h, &t);
  set_default_link(e, "constant:ms=10", 0);
  GString *bus = attach_log(e);
  GError *err = NULL;

  /* Statically down, directed: 0 -> 1 drops, 1 -> 0 delivers. */
  g_assert_true(sim_engine_set_link_down(e, 0, 1, TRUE, &err));
  g_assert_true(sim_engine_link_is_down(e, 0, 1));
  g_assert_false(sim_engine_link_is_down(e, 1, 0));
  send(e, 0, 1, 0, 0, 4);
  send(e, 1, 0, 0, 0, 4);
  g_assert_true(sim_engine_set_link_down(e, 0, 1, FALSE, &err));
  g_assert_no_error(err);
  g_assert_false(sim_engine_link_is_down(e, 0, 1));

  /* Down from 25 ms to 45 ms through topology notifications; node 0 sends at
   * 21 (in flight when the link goes down: still arrives), 26 (dropped) and 46. */
  SimTopologyChange down = {.kind = SIM_TOPOLOGY_LINK_DOWN, .u = 0, .v = 1, .epoch = 1};
  SimTopologyChange up = {.kind = SIM_TOPOLOGY_LINK_UP, .u = 1, .v = 0, .epoch = 2};
  SimTopologyChange graph = {.kind = SIM_TOPOLOGY_GRAPH, .epoch = 3};
  g_assert_true(sim_engine_notify_topology_change(e, 25 * MS, &down, &err));
  g_assert_true(sim_engine_notify_topology_change(e, 45 * MS, &up, &err));
  g_assert_true(sim_engine_notify_topology_change(e, 50 * MS, &graph, &err));
  SimEventId never = sim_engine_notify_topology_change(e, 30 * MS, &up, &err);
  g_assert_no_error(err);
  g_assert_true(sim_engine_cancel(e, never));
  const guint64 send_at[] = {21, 26, 46};
  for (guint i = 0; i < G_N_ELEMENTS(send_at); i++)
    sim_engine_set_timer_at(e, 0, send_at[i] * MS, send_at[i], &err);
  g_assert_no_error(err);
  run(e, SIM_TIME_NEVER);
  g_assert_cmpstr(t.log->str, ==,
                  "msg 1->0 r0 @10\n"
                  "topo 0 kind1 epoch1 @25 down=1\n"
                  "topo 1 kind1 epoch1 @25 down=1\n"
                  "msg 0->1 r21 @31\n"
                  "topo 1 kind2 epoch2 @45 down=0\n"
                  "topo 0 kind2 epoch2 @45 down=0\n"
                  "topo 0 kind0 epoch3 @50 down=0\n"
                  "topo 1 kind0 epoch3 @50 down=0\n"
                  "topo 2 kind0 epoch3 @50 down=0\n"
                  "msg 0->1 r46 @56\n");
  SimEngineStats st;
  sim_engine_get_stats(e, &st);
  g_assert_cmpuint(st.messages_sent, ==, 5);
  g_assert_cmpuint(st.messages_delivered, ==, 3);
  g_assert_cmpuint(st.dropped_link_down, ==, 2);
  g_assert_cmpuint(st.dropped_loss, ==, 0);
  g_assert_cmpuint(st.messages_dropped, ==, 2);
  /* Both drops were reported on the bus, with their reason. */
  g_assert_nonnull(strstr(bus->str, "dropped t=0 seq=0 from=0 to=1 round=0 tag=0 bytes=4 "
                                    "reason=link_down\n"));
  g_assert_nonnull(strstr(bus->str, "dropped t=26000000 "));
  g_assert_nonnull(strstr(bus->str, "topology t=25000000 seq=2 from=0 to=1 round=0 tag=1"));
  g_assert_nonnull(strstr(bus->str, "topology t=50000000 seq=4 from=- to=- round=0 tag=3"));

  /* Bad notifications. */
  SimTopologyChange bad = {.kind = SIM_TOPOLOGY_LINK_DOWN, .u = 0, .v = 3};
  g_assert_cmpuint(sim_engine_notify_topology_change(e, 100 * MS, &bad, &err), ==, 0);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_cmpuint(sim_engine_notify_topology_change(e, 1 * MS, &graph, &err), ==, 0);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(sim_engine_set_link_down(e, 0, 7, TRUE, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  sim_engine_free(e);
  g_string_free(t.log, TRUE);
  g_string_free(bus, TRUE);
}

/* p = 1 drops everything (reason loss), p = 0 nothing; a per-link override wins. */
static void test_loss_extremes(void) {
  SimEngine *e = engine_new(3, 4, NULL, NULL);
  set_default_link(e, "constant:ms=1", 1.0);
  SimLinkParams clean = link_spec("constant:ms=1", 0.0);
  g_assert_true(sim_engine_set_link(e, 0, 2, &clean, NULL));
  for (int i = 0; i < 100; i++) {
    send(e, 0, 1, 0, 0, 1);
    send(e, 0, 2, 0, 0, 1);
  }
  run(e, SIM_TIME_NEVER);
  SimEngineStats st;
  sim_engine_get_stats(e, &st);
  g_assert_cmpuint(st.dropped_loss, ==, 100);
  g_assert_cmpuint(st.messages_delivered, ==, 100);
  /* Reverting the override restores the default (p = 1). */
  g_assert_true(sim_engine_set_link(e, 0, 2, NULL, NULL));
  send(e, 0, 2, 0, 0, 1);
  sim_engine_get_stats(e, &st);
  g_assert_cmpuint(st.dropped_loss, ==, 101);

  GError *err = NULL;
  SimLinkParams bad = link_spec("constant:ms=1", 1.5);
  g_assert_false(sim_engine_set_default_link(e, &bad, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "1.5"));
  g_clear_error(&err);
  bad = (SimLinkParams){.latency = {.kind = SIM_LATENCY_CONSTANT, .ms = -3}};
  g_assert_false(sim_engine_set_link(e, 0, 1, &bad, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  sim_engine_free(e);
}

/* ---- The exact bus sequence of a small run ---- */

static void seq_start(SimEngine *e, guint32 node, gpointer state) {
  (void)state;
  if (node != 0)
    return;
  send(e, 0, 1, 1, 7, 8);
  sim_engine_set_timer(e, 0, 5 * MS, 42, NULL);
}

static void seq_timer(SimEngine *e, guint32 node, gpointer state, SimEventId id, guint64 tag) {
  (void)state, (void)id, (void)tag;
  SimBus *bus = sim_engine_bus(e);
  if (sim_bus_has_subscribers(bus)) {
    SimBusEvent ev = {.kind = SIM_BUS_ROUND,
                      .time = sim_engine_now(e),
                      .from = node,
                      .to = SIM_NODE_NONE,
                      .round = 2,
                      .arrival = SIM_TIME_NEVER};
    sim_bus_publish(bus, &ev);
  }
  sim_engine_set_link_down(e, 0, 1, TRUE, NULL);
  send(e, 0, 1, 2, 0, 16);
}

static void test_bus_sequence(void) {
  SimNodeHandlers h = {.on_start = seq_start, .on_timer = seq_timer};
  SimEngine *e = engine_new(2, 1, &h, NULL);
  set_default_link(e, "constant:ms=10", 0);
  GString *log = attach_log(e);
  run(e, SIM_TIME_NEVER);
  g_assert_cmpstr(log->str, ==,
                  "run_start t=0 seq=0 from=- to=- round=0 tag=0 bytes=0\n"
                  "sent t=0 seq=0 from=0 to=1 round=1 tag=7 bytes=8 arrival=10000000\n"
                  "timer t=5000000 seq=1 from=- to=0 round=0 tag=42 bytes=0\n"
                  "round t=5000000 seq=0 from=0 to=- round=2 tag=0 bytes=0\n"
                  "sent t=5000000 seq=2 from=0 to=1 round=2 tag=0 bytes=16 "
                  "arrival=18446744073709551615\n"
                  "dropped t=5000000 seq=2 from=0 to=1 round=2 tag=0 bytes=16 reason=link_down\n"
                  "delivered t=10000000 seq=0 from=0 to=1 round=1 tag=7 bytes=8\n"
                  "run_end t=10000000 seq=0 from=- to=- round=0 tag=0 bytes=0\n");
  g_assert_cmpuint(sim_bus_n_published(sim_engine_bus(e)), ==, 8);
  sim_engine_free(e);
  g_string_free(log, TRUE);
}

/* ---- A random gossip run: determinism and the no-subscriber path ---- */

#define GOSSIP_N 40

static void gossip_start(SimEngine *e, guint32 node, gpointer state) {
  (void)state;
  gsl_rng *r = sim_engine_rng(e, node, SIM_RNG_PROTOCOL, NULL);
  sim_engine_set_timer(e, node, gsl_rng_uniform_int(r, 10 * MS), 0, NULL);
}

static void gossip_timer(SimEngine *e, guint32 node, gpointer state, SimEventId id, guint64 tag) {
  (void)state, (void)id;
  gsl_rng *r = sim_engine_rng(e, node, SIM_RNG_PROTOCOL, NULL);
  guint32 to[2] = {gsl_rng_uniform_int(r, GOSSIP_N), gsl_rng_uniform_int(r, GOSSIP_N)};
  SimMessage *m = sim_message_new(node, (guint32)tag, 0, NULL, 64, NULL);
  sim_engine_broadcast(e, m, to, 2, NULL);
  sim_message_unref(m);
  if (sim_engine_now(e) < 400 * MS)
    sim_engine_set_timer(e, node, 5 * MS + gsl_rng_uniform_int(r, 10 * MS), tag + 1, NULL);
}

static void gossip_message(SimEngine *e, guint32 node, gpointer state, SimMessage *m) {
  (void)state;
  gsl_rng *r = sim_engine_rng(e, node, SIM_RNG_PROTOCOL, NULL);
  if (gsl_rng_uniform(r) < 0.3) {
    SimMessage *f = sim_message_new(node, sim_message_round(m), 1, NULL, 32, NULL);
    sim_engine_send(e, f, gsl_rng_uniform_int(r, GOSSIP_N), NULL);
    sim_message_unref(f);
  }
}

static SimEngine *gossip_engine(guint64 seed) {
  static const SimNodeHandlers h = {
      .on_start = gossip_start, .on_timer = gossip_timer, .on_message = gossip_message};
  SimEngine *e = engine_new(GOSSIP_N, seed, &h, NULL);
  set_default_link(e, "uniform:min=1,max=20", 0.1);
  SimLinkParams slow = link_spec("lognormal:mu=3,sigma=0.5", 0.0);
  sim_engine_set_link(e, 3, 4, &slow, NULL);
  sim_engine_set_link_down(e, 5, 6, TRUE, NULL);
  return e;
}

/* The log of one run; @split runs to 200 ms first, then to the end. */
static char *gossip_log(guint64 seed, gboolean split, SimEngineStats *st) {
  SimEngine *e = gossip_engine(seed);
  GString *log = attach_log(e);
  if (split)
    g_assert_cmpint(run(e, 200 * MS), ==, SIM_RUN_HORIZON);
  g_assert_cmpint(run(e, SIM_TIME_NEVER), ==, SIM_RUN_IDLE);
  sim_engine_get_stats(e, st);
  sim_engine_free(e);
  return g_string_free(log, FALSE);
}

/* (A plain scan: g_strsplit's strstr is quadratic under ASan's interceptors.) */
static char *without_run_lines(const char *log) {
  GString *out = g_string_new(NULL);
  for (const char *line = log; *line;) {
    const char *end = line;
    while (*end && *end != '\n')
      end++;
    if (!g_str_has_prefix(line, "run_"))
      g_string_append_len(out, line, end - line + (*end == '\n'));
    line = *end ? end + 1 : end;
  }
  return g_string_free(out, FALSE);
}

static void test_identical_logs(void) {
  SimEngineStats a, b, c, d;
  char *la = gossip_log(2024, FALSE, &a);
  char *lb = gossip_log(2024, FALSE, &b);
  char *lc = gossip_log(2025, FALSE, &c);
  char *ld = gossip_log(2024, TRUE, &d);
  g_assert_cmpuint(strlen(la), >, 100000);
  g_assert_cmpstr(la, ==, lb);
  g_assert_true(memcmp(&a, &b, sizeof a) == 0);
  g_assert_cmpstr(la, !=, lc);
  g_assert_cmpuint(a.dropped_loss, >, 0);
  g_assert_cmpuint(a.dropped_link_down + c.dropped_link_down, >, 0);
  g_test_message("%" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT
                 " dropped",
                 a.events, a.messages_sent, a.messages_dropped);
  /* Splitting the run changes nothing but the run_start / run_end lines. */
  char *fa = without_run_lines(la), *fd = without_run_lines(ld);
  g_assert_cmpstr(fa, ==, fd);
  g_assert_true(memcmp(&a, &d, sizeof a) == 0);
  g_free(fa);
  g_free(fd);
  g_free(la);
  g_free(lb);
  g_free(lc);
  g_free(ld);
}

static void count_event(const SimBusEvent *ev, gpointer data) {
  (void)ev;
  (*(guint64 *)data)++;
}

/* Without subscribers the engine never reaches sim_bus_publish (its counter
 * stays 0) and the run is the same; with one, every event reaches it. */
static void test_no_subscriber_path(void) {
  SimEngineStats with, without;
  char *log = gossip_log(7, FALSE, &with);
  guint64 n_lines = 0;
  for (const char *p = log; *p; p++)
    n_lines += *p == '\n';
  g_free(log);

  SimEngine *e = gossip_engine(7);
  SimBus *bus = sim_engine_bus(e);
  g_assert_false(sim_bus_has_subscribers(bus));
  run(e, SIM_TIME_NEVER);
  sim_engine_get_stats(e, &without);
  g_assert_cmpuint(sim_bus_n_published(bus), ==, 0);
  g_assert_true(memcmp(&with, &without, sizeof with) == 0);
  sim_engine_free(e);

  e = gossip_engine(7);
  bus = sim_engine_bus(e);
  guint64 seen = 0;
  guint id = sim_bus_subscribe(bus, count_event, &seen, NULL, NULL);
  run(e, 100 * MS);
  g_assert_cmpuint(seen, >, 0);
  g_assert_cmpuint(sim_bus_n_published(bus), ==, seen);
  g_assert_true(sim_bus_unsubscribe(bus, id));
  g_assert_false(sim_bus_has_subscribers(bus));
  run(e, SIM_TIME_NEVER);
  g_assert_cmpuint(sim_bus_n_published(bus), ==, seen);
  sim_engine_free(e);
  g_assert_cmpuint(n_lines, ==, with.events + with.messages_sent + with.messages_dropped + 2);
}

/* A subscriber of some kinds only: the engine builds no event of the other
 * kinds (sim_bus_n_published counts only what it built), the subscriber sees
 * exactly the wanted ones, and the run is unchanged. */
typedef struct {
  guint64 by_kind[SIM_BUS_N_KINDS];
} KindCount;

static void count_kinds(const SimBusEvent *ev, gpointer data) {
  ((KindCount *)data)->by_kind[ev->kind]++;
}

static void test_kind_mask(void) {
  SimEngineStats all_stats, masked_stats;
  KindCount all = {{0}}, masked = {{0}};
  SimEngine *e = gossip_engine(9);
  sim_bus_subscribe(sim_engine_bus(e), count_kinds, &all, NULL, NULL);
  run(e, SIM_TIME_NEVER);
  sim_engine_get_stats(e, &all_stats);
  sim_engine_free(e);

  e = gossip_engine(9);
  SimBus *bus = sim_engine_bus(e);
  const guint32 kinds = SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) |
                        SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED);
  g_assert_cmpuint(sim_bus_subscribe_kinds(bus, kinds, count_kinds, &masked, NULL, NULL), >, 0);
  run(e, SIM_TIME_NEVER);
  sim_engine_get_stats(e, &masked_stats);
  g_assert_true(memcmp(&all_stats, &masked_stats, sizeof all_stats) == 0);
  g_assert_cmpuint(all.by_kind[SIM_BUS_MESSAGE_DELIVERED], >, 0);
  g_assert_cmpuint(all.by_kind[SIM_BUS_TIMER], >, 0);
  g_assert_cmpuint(masked.by_kind[SIM_BUS_MESSAGE_SENT], ==, masked_stats.messages_sent);
  g_assert_cmpuint(masked.by_kind[SIM_BUS_MESSAGE_DROPPED], ==, masked_stats.messages_dropped);
  g_assert_cmpuint(masked.by_kind[SIM_BUS_MESSAGE_DELIVERED], ==, 0);
  g_assert_cmpuint(masked.by_kind[SIM_BUS_TIMER], ==, 0);
  /* Only run start/end are built beyond the wanted kinds (published to nobody). */
  g_assert_cmpuint(sim_bus_n_published(bus), ==,
                   masked_stats.messages_sent + masked_stats.messages_dropped + 2);
  sim_engine_free(e);

  GError *error = NULL;
  SimBus *b = sim_bus_new();
  g_assert_cmpuint(sim_bus_subscribe_kinds(b, 0, count_kinds, &masked, NULL, &error), ==, 0);
  g_assert_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  sim_bus_free(b);
}

/* ---- Bus subscription management ---- */

typedef struct {
  SimBus *bus;
  GString *trace;
  guint self_id;
  guint other_id;
  int destroyed;
} Subs;

static void sub_c(const SimBusEvent *ev, gpointer data);

static void sub_a(const SimBusEvent *ev, gpointer data) {
  Subs *s = data;
  g_string_append_printf(s->trace, "a%" G_GUINT64_FORMAT " ", ev->seq);
  if (ev->seq == 1) { /* remove B (later in the list) and itself, add C */
    g_assert_true(sim_bus_unsubscribe(s->bus, s->other_id));
    g_assert_true(sim_bus_unsubscribe(s->bus, s->self_id));
    g_assert_false(sim_bus_unsubscribe(s->bus, s->self_id));
    sim_bus_subscribe(s->bus, sub_c, s, NULL, NULL);
  }
}

static void sub_b(const SimBusEvent *ev, gpointer data) {
  Subs *s = data;
  g_string_append_printf(s->trace, "b%" G_GUINT64_FORMAT " ", ev->seq);
}

static void sub_c(const SimBusEvent *ev, gpointer data) {
  Subs *s = data;
  g_string_append_printf(s->trace, "c%" G_GUINT64_FORMAT " ", ev->seq);
}

static void sub_destroy(gpointer data) {
  ((Subs *)data)->destroyed++;
}

static void test_bus_subscriptions(void) {
  Subs s = {.bus = sim_bus_new(), .trace = g_string_new(NULL)};
  GError *err = NULL;
  g_assert_cmpuint(sim_bus_subscribe(s.bus, NULL, NULL, NULL, &err), ==, 0);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  s.self_id = sim_bus_subscribe(s.bus, sub_a, &s, sub_destroy, &err);
  s.other_id = sim_bus_subscribe(s.bus, sub_b, &s, sub_destroy, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(s.self_id, !=, s.other_id);
  for (guint64 k = 0; k < 3; k++) {
    SimBusEvent ev = {.kind = SIM_BUS_ROUND, .seq = k};
    sim_bus_publish(s.bus, &ev);
    if (k == 1) /* both destroyed once the dispatch is over, not during it */
      g_assert_cmpint(s.destroyed, ==, 2);
  }
  /* B was removed before its turn on event 1; C starts with event 2. */
  g_assert_cmpstr(s.trace->str, ==, "a0 b0 a1 c2 ");
  g_assert_cmpuint(sim_bus_n_published(s.bus), ==, 3);
  g_assert_false(sim_bus_unsubscribe(s.bus, 0));
  g_assert_false(sim_bus_unsubscribe(s.bus, 12345));
  guint last = sim_bus_subscribe(s.bus, sub_b, &s, sub_destroy, NULL);
  g_assert_cmpuint(last, >, 0);
  sim_bus_free(s.bus); /* destroys the remaining subscriber with data */
  g_assert_cmpint(s.destroyed, ==, 3);
  g_string_free(s.trace, TRUE);

  g_assert_cmpstr(sim_bus_event_kind_name(SIM_BUS_MESSAGE_DELIVERED), ==, "delivered");
  g_assert_cmpstr(sim_drop_reason_name(SIM_DROP_LOSS), ==, "loss");
}

/* ---- Run control ---- */

typedef struct {
  guint fired;
  guint stop_at;
} Ticker;

static void tick(SimEngine *e, guint32 node, gpointer state, SimEventId id, guint64 tag) {
  (void)id;
  Ticker *t = state;
  t->fired++;
  g_assert_cmpuint(sim_engine_now(e), ==, t->fired * MS);
  if (t->fired == t->stop_at)
    sim_engine_stop(e);
  GError *err = NULL;
  g_assert_cmpint(sim_engine_run(e, SIM_TIME_NEVER, &err), ==, SIM_RUN_ERROR);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  if (t->fired < 30)
    sim_engine_set_timer(e, node, MS, tag, NULL);
}

static void test_run_control(void) {
  static const SimNodeHandlers ticker = {.on_timer = tick};
  Ticker t = {.stop_at = 15};
  SimEngine *e = engine_new(2, 1, NULL, NULL);
  g_assert_true(sim_engine_set_node(e, 1, &ticker, &t, NULL));
  g_assert_true(sim_engine_node_state(e, 1) == &t);
  g_assert_null(sim_engine_node_state(e, 0));
  sim_engine_set_timer(e, 1, MS, 0, NULL);
  g_assert_cmpint(run(e, 10 * MS), ==, SIM_RUN_HORIZON);
  g_assert_cmpuint(t.fired, ==, 10); /* the event at exactly `until` ran */
  g_assert_cmpuint(sim_engine_now(e), ==, 10 * MS);
  g_assert_cmpint(run(e, 10 * MS + 999999), ==, SIM_RUN_HORIZON);
  g_assert_cmpuint(t.fired, ==, 10);
  g_assert_cmpuint(sim_engine_now(e), ==, 10 * MS + 999999);
  g_assert_cmpint(run(e, SIM_TIME_NEVER), ==, SIM_RUN_STOPPED);
  g_assert_cmpuint(t.fired, ==, 15);
  g_assert_cmpuint(sim_engine_now(e), ==, 15 * MS);
  g_assert_cmpint(run(e, SIM_TIME_NEVER), ==, SIM_RUN_IDLE);
  g_assert_cmpuint(t.fired, ==, 30);
  g_assert_cmpuint(sim_engine_now(e), ==, 30 * MS);
  g_assert_cmpint(run(e, 40 * MS), ==, SIM_RUN_IDLE);
  g_assert_cmpuint(sim_engine_now(e), ==, 40 * MS);
  SimEngineStats st;
  sim_engine_get_stats(e, &st);
  g_assert_cmpuint(st.events, ==, 30);
  g_assert_cmpuint(st.timers, ==, 30);
  sim_engine_free(e);
}

static void test_errors(void) {
  GError *err = NULL;
  g_assert_null(sim_engine_new(0, 1, NULL, NULL, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  SimEngine *e = engine_new(3, 1, NULL, NULL);
  g_assert_cmpuint(sim_engine_n_nodes(e), ==, 3);
  g_assert_cmpuint(sim_engine_seed(e), ==, 1);
  SimMessage *m = sim_message_new(5, 0, 0, NULL, 1, NULL);
  g_assert_false(sim_engine_send(e, m, 0, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "sender 5"));
  g_clear_error(&err);
  sim_message_unref(m);
  m = sim_message_new(0, 0, 0, NULL, 1, NULL);
  g_assert_false(sim_engine_send(e, m, 3, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  const guint32 to[] = {1, 2, 9};
  g_assert_false(sim_engine_broadcast(e, m, to, 3, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "node 9"));
  g_clear_error(&err);
  g_assert_cmpuint(sim_message_ref_count(m), ==, 1); /* nothing was sent */
  g_assert_cmpuint(sim_engine_pending(e), ==, 0);
  sim_message_unref(m);
  g_assert_false(sim_engine_set_node(e, 3, NULL, NULL, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(sim_engine_rng(e, 3, SIM_RNG_NOISE, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  /* The engine's streams are those of sim_rng_stream_new for its seed. */
  gsl_rng *r = sim_engine_rng(e, 2, SIM_RNG_NOISE, &err);
  gsl_rng *ref = sim_rng_stream_new(1, 2, SIM_RNG_NOISE, NULL, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(gsl_rng_get(r), ==, gsl_rng_get(ref));
  gsl_rng_free(ref);
  sim_engine_free(e);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sim/engine/delivery-time", test_delivery_time);
  g_test_add_func("/sim/engine/sender-streams", test_sender_streams);
  g_test_add_func("/sim/engine/delivery-seed", test_delivery_seed);
  g_test_add_func("/sim/engine/broadcast-shared", test_broadcast_shared);
  g_test_add_func("/sim/engine/free-pending", test_free_pending);
  g_test_add_func("/sim/engine/timers", test_timers);
  g_test_add_func("/sim/engine/down-links", test_down_links);
  g_test_add_func("/sim/engine/loss-extremes", test_loss_extremes);
  g_test_add_func("/sim/engine/bus-sequence", test_bus_sequence);
  g_test_add_func("/sim/engine/identical-logs", test_identical_logs);
  g_test_add_func("/sim/engine/no-subscriber-path", test_no_subscriber_path);
  g_test_add_func("/sim/engine/bus-subscriptions", test_bus_subscriptions);
  g_test_add_func("/sim/engine/kind-mask", test_kind_mask);
  g_test_add_func("/sim/engine/run-control", test_run_control);
  g_test_add_func("/sim/engine/errors", test_errors);
  return g_test_run();
}
