/*
 * tests/sim/lossy_gossip.h: the engine both sampling tests drive (included by
 * tests/sim/test_bus_sampling.c and test_stream_sampling.c only): N nodes
 * broadcasting to 3 peers every 10 ms for ROUNDS rounds, 20% of deliveries
 * forwarded to a random node, 10% loss, link 0->1 down for the whole run and
 * link 2-3 going down at 50 ms and up at 120 ms; round boundaries published
 * on the bus when lossy_gossip_rounds is set.
 */
#ifndef DPG_TESTS_SIM_LOSSY_GOSSIP_H
#define DPG_TESTS_SIM_LOSSY_GOSSIP_H

#include "sim/sim.h"

#define N 10
#define ROUNDS 30
#define MS SIM_TIME_MS

static gboolean lossy_gossip_rounds;

static void on_start(SimEngine *e, guint32 u, gpointer state) {
  (void)state;
  g_assert_cmpuint(sim_engine_set_timer_at(e, u, u * 100 * SIM_TIME_US, 0, NULL), !=, 0);
}

static void on_timer(SimEngine *e, guint32 u, gpointer state, SimEventId id, guint64 round) {
  (void)state;
  (void)id;
  const guint32 to[] = {(u + 1) % N, (u + 2) % N, (u + 5) % N};
  SimMessage *m = sim_message_new(u, (guint32)round, 0, NULL, 100 + u, NULL);
  g_assert_true(sim_engine_broadcast(e, m, to, G_N_ELEMENTS(to), NULL));
  sim_message_unref(m);
  if (lossy_gossip_rounds && u == N - 1) {
    SimBusEvent ev = {.kind = SIM_BUS_ROUND,
                      .time = sim_engine_now(e),
                      .from = SIM_NODE_NONE,
                      .to = SIM_NODE_NONE,
                      .round = (guint32)round + 1,
                      .arrival = SIM_TIME_NEVER};
    sim_bus_publish(sim_engine_bus(e), &ev);
  }
  if (round + 1 < ROUNDS)
    g_assert_cmpuint(sim_engine_set_timer(e, u, 10 * MS, round + 1, NULL), !=, 0);
}

static void on_message(SimEngine *e, guint32 u, gpointer state, SimMessage *m) {
  (void)state;
  gsl_rng *r = sim_engine_rng(e, u, SIM_RNG_PROTOCOL, NULL);
  if (gsl_rng_uniform(r) < 0.2) { /* forwarded from inside a delivery */
    SimMessage *f = sim_message_new(u, sim_message_round(m), 1, NULL, 40, NULL);
    g_assert_true(sim_engine_send(e, f, (guint32)gsl_rng_uniform_int(r, N), NULL));
    sim_message_unref(f);
  }
}

static SimEngine *lossy_gossip_engine(guint64 seed) {
  static const SimNodeHandlers h = {
      .on_start = on_start, .on_timer = on_timer, .on_message = on_message};
  GError *err = NULL;
  SimEngine *e = sim_engine_new(N, seed, &h, NULL, &err);
  g_assert_no_error(err);
  SimLinkParams link = {.loss = 0.1};
  g_assert_true(sim_latency_parse("uniform:min=1,max=5", &link.latency, &err));
  g_assert_true(sim_engine_set_default_link(e, &link, &err));
  g_assert_true(sim_engine_set_link_down(e, 0, 1, TRUE, &err));
  SimTopologyChange down = {.kind = SIM_TOPOLOGY_LINK_DOWN, .u = 2, .v = 3, .epoch = 1};
  SimTopologyChange up = {.kind = SIM_TOPOLOGY_LINK_UP, .u = 2, .v = 3, .epoch = 2};
  g_assert_cmpuint(sim_engine_notify_topology_change(e, 50 * MS, &down, &err), !=, 0);
  g_assert_cmpuint(sim_engine_notify_topology_change(e, 120 * MS, &up, &err), !=, 0);
  g_assert_no_error(err);
  return e;
}

#endif /* DPG_TESTS_SIM_LOSSY_GOSSIP_H */
