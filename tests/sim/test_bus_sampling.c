/*
 * tests/sim/test_bus_sampling.c: transmission sampling on the engine's bus
 * (sim_bus_subscribe_sampled).
 *
 * The reference is an unsampled subscriber of SENT and DROPPED: it records
 * every transmission in order, in a separate run of the same engine (runs
 * are deterministic; with it in the same run every transmission would be
 * taken by someone, which hides the shared countdown), and once in the same
 * run too. A subscriber sampling one in N from its subscription must see
 * exactly the transmissions at positions k, k+N, k+2N, ... of that list (k:
 * transmissions before it subscribed), each SENT followed by its DROPPED
 * when lost, with the same fields; and the engine must build nothing for
 * the others (sim_bus_n_published). Several samplers share one run, join
 * and leave mid-run (between runs and from inside a callback), so their
 * phases must not disturb each other.
 */
#include "sim/sim.h"

#include "lossy_gossip.h"

/* ---- Recording transmissions ---- */

typedef struct {
  guint64 seq;
  guint32 from, to, round;
  guint64 tag, bytes;
  SimTime time, arrival;
  SimDropReason reason; /* from the DROPPED event; NONE when delivered */
  gboolean sent_seen, drop_seen;
} Tx;

typedef struct Recorder {
  GArray *tx; /* Tx */
  guint64 sent_events, dropped_events;
  SimBus *bus;
  guint id;
  /* callback games (test_join_in_callback) */
  guint leave_after; /* unsubscribe itself and subscribe `next` after this many SENT */
  struct Recorder *next;
  guint next_every;
} Recorder;

static void recorder_init(Recorder *r, SimBus *bus) {
  memset(r, 0, sizeof *r);
  r->tx = g_array_new(FALSE, TRUE, sizeof(Tx));
  r->bus = bus;
}

static void recorder_clear(Recorder *r) {
  g_array_unref(r->tx);
}

static void record(const SimBusEvent *ev, gpointer data) {
  Recorder *r = data;
  if (ev->kind == SIM_BUS_MESSAGE_SENT) {
    r->sent_events++;
    Tx t = {.seq = ev->seq,
            .from = ev->from,
            .to = ev->to,
            .round = ev->round,
            .tag = ev->tag,
            .bytes = ev->bytes,
            .time = ev->time,
            .arrival = ev->arrival,
            .sent_seen = TRUE};
    g_assert_nonnull(ev->message);
    g_array_append_val(r->tx, t);
    if (r->leave_after && r->sent_events == r->leave_after) {
      Recorder *next = r->next;
      next->id = sim_bus_subscribe_sampled(r->bus,
                                           SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) |
                                               SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED),
                                           r->next_every, record, next, NULL, NULL);
      g_assert_cmpuint(next->id, >, 0);
      g_assert_true(sim_bus_unsubscribe(r->bus, r->id));
    }
  } else if (ev->kind == SIM_BUS_MESSAGE_DROPPED) {
    r->dropped_events++;
    /* A DROPPED comes right after its own SENT, to the same subscribers. */
    g_assert_cmpuint(r->tx->len, >, 0);
    Tx *t = &g_array_index(r->tx, Tx, r->tx->len - 1);
    g_assert_cmpuint(t->seq, ==, ev->seq);
    g_assert_false(t->drop_seen);
    g_assert_cmpuint(t->arrival, ==, SIM_TIME_NEVER);
    g_assert_cmpuint(ev->reason, !=, SIM_DROP_NONE);
    t->reason = ev->reason;
    t->drop_seen = TRUE;
  } else {
    g_assert_not_reached();
  }
}

/* A DROPPED-only recorder: one Tx per lost transmission it takes. */
static void record_drop_only(const SimBusEvent *ev, gpointer data) {
  Recorder *r = data;
  g_assert_cmpint(ev->kind, ==, SIM_BUS_MESSAGE_DROPPED);
  r->dropped_events++;
  Tx t = {.seq = ev->seq, .from = ev->from, .to = ev->to, .reason = ev->reason, .drop_seen = TRUE};
  g_array_append_val(r->tx, t);
}

static const guint32 TX_KINDS = SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) |
                                SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED);

static guint subscribe(Recorder *r, guint32 kinds, guint every) {
  GError *err = NULL;
  r->id = sim_bus_subscribe_sampled(r->bus, kinds, every, record, r, NULL, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(r->id, >, 0);
  return r->id;
}

static void assert_same_tx(const Tx *a, const Tx *b) {
  g_assert_cmpuint(a->seq, ==, b->seq);
  g_assert_cmpuint(a->from, ==, b->from);
  g_assert_cmpuint(a->to, ==, b->to);
  g_assert_cmpuint(a->round, ==, b->round);
  g_assert_cmpuint(a->tag, ==, b->tag);
  g_assert_cmpuint(a->bytes, ==, b->bytes);
  g_assert_cmpuint(a->time, ==, b->time);
  g_assert_cmpuint(a->arrival, ==, b->arrival);
  g_assert_cmpint(a->reason, ==, b->reason);
  g_assert_cmpint(a->drop_seen, ==, b->drop_seen);
}

/* @got holds exactly all[first], all[first + every], ... below @end. */
static void assert_sampled(const Recorder *all, const Recorder *got, guint first, guint every,
                           guint end) {
  guint expect = end > first ? (end - first + every - 1) / every : 0;
  g_assert_cmpuint(got->tx->len, ==, expect);
  guint64 drops = 0;
  for (guint i = 0; i < expect; i++) {
    const Tx *want = &g_array_index(all->tx, Tx, first + i * every);
    assert_same_tx(&g_array_index(got->tx, Tx, i), want);
    drops += want->drop_seen;
  }
  g_assert_cmpuint(got->sent_events, ==, expect);
  g_assert_cmpuint(got->dropped_events, ==, drops);
}

static void run_all(SimEngine *e, SimTime until) {
  GError *err = NULL;
  SimRunStatus st = sim_engine_run(e, until, &err);
  g_assert_no_error(err);
  g_assert_cmpint(st, !=, SIM_RUN_ERROR);
}

/* Every transmission of a whole run, from an unsampled subscriber. */
static void reference(Recorder *all) {
  SimEngine *e = lossy_gossip_engine(11);
  recorder_init(all, sim_engine_bus(e));
  subscribe(all, TX_KINDS, 1);
  run_all(e, SIM_TIME_NEVER);
  SimEngineStats es;
  sim_engine_get_stats(e, &es);
  g_assert_cmpuint(all->tx->len, ==, es.messages_sent);
  g_assert_cmpuint(all->dropped_events, ==, es.messages_dropped);
  g_assert_cmpuint(es.messages_sent, >, 900);
  g_assert_cmpuint(es.dropped_loss, >, 0);
  g_assert_cmpuint(es.dropped_link_down, >, 0);
  sim_engine_free(e);
}

static guint64 n_sent(SimEngine *e) {
  SimEngineStats es;
  sim_engine_get_stats(e, &es);
  return es.messages_sent;
}

/* ---- Tests ---- */

/* Samplers of several periods in one run, each against the reference;
 * with @with_all, an unsampled subscriber shares the run. */
static void check_every(gboolean with_all) {
  Recorder all, same_run;
  reference(&all);
  SimEngine *e = lossy_gossip_engine(11);
  SimBus *bus = sim_engine_bus(e);
  Recorder sampled[6], sent_only, drop_only;
  const guint every[] = {1000000, 50, 7, 3, 2, 1};
  gsize n_every = G_N_ELEMENTS(every) - (with_all ? 0 : 1);
  for (gsize i = 0; i < n_every; i++) {
    recorder_init(&sampled[i], bus);
    subscribe(&sampled[i], TX_KINDS, every[i]);
  }
  recorder_init(&sent_only, bus);
  subscribe(&sent_only, SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT), 3);
  recorder_init(&drop_only, bus);
  drop_only.id = sim_bus_subscribe_sampled(bus, SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED), 3,
                                           record_drop_only, &drop_only, NULL, NULL);
  g_assert_cmpuint(drop_only.id, >, 0);
  recorder_init(&same_run, bus);
  if (with_all)
    subscribe(&same_run, TX_KINDS, 1);
  run_all(e, SIM_TIME_NEVER);
  g_assert_cmpuint(n_sent(e), ==, all.tx->len);
  if (with_all)
    assert_sampled(&all, &same_run, 0, 1, all.tx->len);
  for (gsize i = 0; i < n_every; i++)
    assert_sampled(&all, &sampled[i], 0, every[i], all.tx->len);
  g_assert_cmpuint(sampled[0].tx->len, ==, 1); /* only the first */

  /* SENT only: the same transmissions, never a DROPPED. */
  g_assert_cmpuint(sent_only.dropped_events, ==, 0);
  g_assert_cmpuint(sent_only.tx->len, ==, sampled[3].tx->len);
  for (guint i = 0; i < sent_only.tx->len; i++)
    g_assert_cmpuint(g_array_index(sent_only.tx, Tx, i).seq, ==,
                     g_array_index(sampled[3].tx, Tx, i).seq);
  /* DROPPED only: the lost ones among the 1st, 4th, 7th, ... */
  guint k = 0;
  for (guint i = 0; i < all.tx->len; i += 3) {
    const Tx *t = &g_array_index(all.tx, Tx, i);
    if (!t->drop_seen)
      continue;
    g_assert_cmpuint(k, <, drop_only.tx->len);
    const Tx *d = &g_array_index(drop_only.tx, Tx, k++);
    g_assert_cmpuint(d->seq, ==, t->seq);
    g_assert_cmpint(d->reason, ==, t->reason);
  }
  g_assert_cmpuint(k, ==, drop_only.tx->len);
  g_assert_cmpuint(k, >, 0);

  sim_engine_free(e);
  recorder_clear(&all);
  recorder_clear(&same_run);
  for (gsize i = 0; i < n_every; i++)
    recorder_clear(&sampled[i]);
  recorder_clear(&sent_only);
  recorder_clear(&drop_only);
}

static void test_every(void) {
  check_every(FALSE);
}

static void test_every_with_unsampled(void) {
  check_every(TRUE);
}

/* Joining and leaving between runs: a newcomer counts from its
 * subscription, and nobody else's phase moves. */
static void test_join_leave(void) {
  Recorder all;
  reference(&all);
  SimEngine *e = lossy_gossip_engine(11);
  SimBus *bus = sim_engine_bus(e);
  Recorder stay, leave, late, late1;
  recorder_init(&stay, bus);
  recorder_init(&leave, bus);
  recorder_init(&late, bus);
  recorder_init(&late1, bus);
  subscribe(&stay, TX_KINDS, 5);
  subscribe(&leave, TX_KINDS, 3);
  run_all(e, 97 * MS);
  guint k1 = (guint)n_sent(e);
  subscribe(&late, TX_KINDS, 4); /* joins, then the other leaves */
  g_assert_true(sim_bus_unsubscribe(bus, leave.id));
  g_assert_false(sim_bus_unsubscribe(bus, leave.id));
  run_all(e, 181 * MS);
  guint k2 = (guint)n_sent(e);
  subscribe(&late1, TX_KINDS, 1);
  run_all(e, SIM_TIME_NEVER);
  guint total = all.tx->len;
  g_assert_cmpuint(n_sent(e), ==, total);
  /* the splits fall inside the samplers' periods */
  g_assert_cmpuint(k1 % 5, !=, 0);
  g_assert_cmpuint(k1 % 3, !=, 0);
  g_assert_cmpuint((k2 - k1) % 4, !=, 0);
  g_assert_cmpuint(k2 % 5, !=, 0);
  g_assert_cmpuint(0, <, k1);
  g_assert_cmpuint(k1, <, k2);
  g_assert_cmpuint(k2, <, total);
  assert_sampled(&all, &stay, 0, 5, total);
  assert_sampled(&all, &leave, 0, 3, k1);
  assert_sampled(&all, &late, k1, 4, total);
  assert_sampled(&all, &late1, k2, 1, total);
  sim_engine_free(e);
  recorder_clear(&all);
  recorder_clear(&stay);
  recorder_clear(&leave);
  recorder_clear(&late);
  recorder_clear(&late1);
}

/* Joining and leaving from inside a callback: a sampler leaves at its 10th
 * transmission and brings in another, which starts with the next one. */
static void test_join_in_callback(void) {
  Recorder all;
  reference(&all);
  SimEngine *e = lossy_gossip_engine(11);
  SimBus *bus = sim_engine_bus(e);
  Recorder first, second, other;
  recorder_init(&first, bus);
  recorder_init(&second, bus);
  recorder_init(&other, bus);
  subscribe(&first, TX_KINDS, 2);
  subscribe(&other, TX_KINDS, 7);
  first.leave_after = 10;
  first.next = &second;
  first.next_every = 3;
  run_all(e, SIM_TIME_NEVER);
  guint total = all.tx->len;
  /* first took all[0], all[2], ..., all[18]; it left while handed the SENT
   * of all[18], so it never saw that one's DROPPED if it was lost. */
  g_assert_cmpuint(first.tx->len, ==, 10);
  guint64 drops = 0;
  for (guint i = 0; i < 10; i++) {
    g_assert_cmpuint(g_array_index(first.tx, Tx, i).seq, ==, g_array_index(all.tx, Tx, 2 * i).seq);
    drops += i < 9 && g_array_index(all.tx, Tx, 2 * i).drop_seen;
  }
  g_assert_cmpuint(first.dropped_events, ==, drops);
  assert_sampled(&all, &second, 19, 3, total);
  assert_sampled(&all, &other, 0, 7, total);
  sim_engine_free(e);
  recorder_clear(&all);
  recorder_clear(&first);
  recorder_clear(&second);
  recorder_clear(&other);
}

/* A transmission no subscriber takes builds no event, and sampling changes
 * nothing in the run itself. */
static void test_builds_nothing(void) {
  SimEngine *e = lossy_gossip_engine(11);
  run_all(e, SIM_TIME_NEVER);
  SimEngineStats plain;
  sim_engine_get_stats(e, &plain);
  g_assert_cmpuint(sim_bus_n_published(sim_engine_bus(e)), ==, 0);
  sim_engine_free(e);

  e = lossy_gossip_engine(11);
  SimBus *bus = sim_engine_bus(e);
  Recorder one;
  recorder_init(&one, bus);
  subscribe(&one, TX_KINDS, 10);
  run_all(e, SIM_TIME_NEVER);
  SimEngineStats es;
  sim_engine_get_stats(e, &es);
  g_assert_true(memcmp(&es, &plain, sizeof es) == 0);
  g_assert_cmpuint(one.sent_events, ==, (es.messages_sent + 9) / 10);
  /* what it received, plus the run start and end */
  g_assert_cmpuint(sim_bus_n_published(bus), ==, one.sent_events + one.dropped_events + 2);
  sim_engine_free(e);
  recorder_clear(&one);
}

static void count_topology(const SimBusEvent *ev, gpointer data) {
  g_assert_cmpint(ev->kind, ==, SIM_BUS_TOPOLOGY_CHANGE);
  (*(guint64 *)data)++;
}

/* Without transmission kinds nothing is built but what is wanted. */
static void test_other_kinds_only(void) {
  SimEngine *e = lossy_gossip_engine(11);
  SimBus *bus = sim_engine_bus(e);
  guint64 topo = 0;
  GError *err = NULL;
  g_assert_cmpuint(sim_bus_subscribe_sampled(bus, SIM_BUS_KIND_BIT(SIM_BUS_TOPOLOGY_CHANGE), 5,
                                             count_topology, &topo, NULL, &err),
                   >, 0);
  g_assert_no_error(err);
  run_all(e, SIM_TIME_NEVER);
  g_assert_cmpuint(topo, ==, 2);
  g_assert_cmpuint(sim_bus_n_published(bus), ==, 2 + 2); /* + run start and end */
  sim_engine_free(e);
}

static void count_any(const SimBusEvent *ev, gpointer data) {
  (void)ev;
  (*(guint64 *)data)++;
}

/* Errors, and events published by hand, which are not sampled. */
static void test_arguments(void) {
  SimBus *bus = sim_bus_new();
  GError *err = NULL;
  guint64 n = 0;
  g_assert_cmpuint(sim_bus_subscribe_sampled(bus, TX_KINDS, 0, count_any, &n, NULL, &err), ==, 0);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "every is 0"));
  g_clear_error(&err);
  guint32 with_delivered = TX_KINDS | SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DELIVERED);
  g_assert_cmpuint(sim_bus_subscribe_sampled(bus, with_delivered, 2, count_any, &n, NULL, &err), ==,
                   0);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "deliveries"));
  g_clear_error(&err);
  g_assert_cmpuint(sim_bus_subscribe_sampled(bus, 0, 2, count_any, &n, NULL, &err), ==, 0);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_cmpuint(sim_bus_subscribe_sampled(bus, TX_KINDS, 2, NULL, NULL, NULL, &err), ==, 0);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  /* every 1 takes deliveries too */
  g_assert_cmpuint(sim_bus_subscribe_sampled(bus, with_delivered, 1, count_any, &n, NULL, &err), >,
                   0);
  g_assert_no_error(err);
  guint64 m = 0;
  g_assert_cmpuint(sim_bus_subscribe_sampled(bus, TX_KINDS, 1000, count_any, &m, NULL, &err), >, 0);
  /* By hand: every subscriber of the kind hears it, sampled or not. */
  SimBusEvent ev = {.kind = SIM_BUS_MESSAGE_SENT, .from = 0, .to = 1, .arrival = 5};
  for (int i = 0; i < 4; i++)
    sim_bus_publish(bus, &ev);
  g_assert_cmpuint(n, ==, 4);
  g_assert_cmpuint(m, ==, 4);
  g_assert_cmpuint(sim_bus_n_published(bus), ==, 4);
  sim_bus_free(bus);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/bus-sampling/every", test_every);
  g_test_add_func("/bus-sampling/every-with-unsampled", test_every_with_unsampled);
  g_test_add_func("/bus-sampling/join-leave", test_join_leave);
  g_test_add_func("/bus-sampling/join-in-callback", test_join_in_callback);
  g_test_add_func("/bus-sampling/builds-nothing", test_builds_nothing);
  g_test_add_func("/bus-sampling/other-kinds-only", test_other_kinds_only);
  g_test_add_func("/bus-sampling/arguments", test_arguments);
  return g_test_run();
}
