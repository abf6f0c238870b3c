/*
 * tests/protocols/test_stream_pack.c: the backward engine's packed periods
 * (privacy/stream_pack.c: a view that sees many more rows than it carries
 * state, as a SecLDP or LDP view of DECOR, walks 3 sv + k - rank rows
 * instead of k) give the blocks and statuses of the forward engine, which
 * never packs, to 1e-9 of each block's largest entry, and those of the dense
 * accountant on the smallest graph. DECOR on random graphs of 20 to 60
 * nodes, static and time-varying gossip, b = 1 and 2, the three trust
 * models, a single attacker and a collusion set; the SecLDP and LDP views
 * must really have packed periods.
 */
#include "observe_test.h"
#include "privacy/stream_internal.h"
#include "protocols/protocols.h"
#include "topologies/topologies.h"

typedef struct {
  const char *graph, *schedule; /* schedule NULL: static */
  guint T, b;
  gboolean dense; /* also against the dense accountant */
} Case;

static const guint set_a[] = {0}, set_b[] = {2, 5, 7};
static const ObsView views[] = {
    {PRIV_TRUST_LDP, set_a, 1},  {PRIV_TRUST_LDP, set_b, 3},    {PRIV_TRUST_PNDP, set_a, 1},
    {PRIV_TRUST_PNDP, set_b, 3}, {PRIV_TRUST_SECLDP, set_a, 1}, {PRIV_TRUST_SECLDP, set_b, 3},
};
#define N_VIEWS G_N_ELEMENTS(views)

/* The views' blocks of one DECOR run, accounted by @acc; with @packed
 * (streaming), the packed periods per view. */
static PrivBlocks **account(const Case *c, const ObsAccountant *acc, guint *packed) {
  ObsSpec spec = {.graph = c->graph,
                  .schedule = c->schedule,
                  .schedule_seed = 3,
                  .protocol = "decor",
                  .sigma = 0.7,
                  .clip = 1.0,
                  .T = c->T,
                  .b = c->b,
                  .seed = 5};
  ObsRun o = obs_run_spec(&spec, views, N_VIEWS, acc);
  PrivBlocks **out = obs_run_blocks(&o);
  for (guint v = 0; packed != NULL && v < N_VIEWS; v++)
    packed[v] = priv_stream_packed_periods(priv_observer_stream(o.obs), v);
  obs_run_clear(&o);
  return out;
}

static void compare(gconstpointer data) {
  const Case *c = data;
  const ObsAccountant forward = {TRUE, PRIV_STREAM_FORWARD, 0, 0, FALSE};
  const ObsAccountant backward = {TRUE, PRIV_STREAM_BACKWARD, 0, 0, FALSE};
  const ObsAccountant dense = {FALSE, PRIV_STREAM_BACKWARD, 0, 0, FALSE};
  guint packed[N_VIEWS];
  PrivBlocks **fwd = account(c, &forward, NULL);
  PrivBlocks **bwd = account(c, &backward, packed);
  g_assert_cmpuint(obs_blocks_assert_same(fwd, bwd, N_VIEWS), >, 0);
  /* LDP and SecLDP views see every node's model: packed periods. */
  for (guint v = 0; v < N_VIEWS; v++)
    if (views[v].trust != PRIV_TRUST_PNDP)
      g_assert_cmpuint(packed[v], >, 0);
  if (c->dense) {
    PrivBlocks **d = account(c, &dense, NULL);
    g_assert_cmpuint(obs_blocks_assert_same(d, bwd, N_VIEWS), >, 0);
    obs_blocks_free(d, N_VIEWS);
  }
  obs_blocks_free(fwd, N_VIEWS);
  obs_blocks_free(bwd, N_VIEWS);
}

static const Case cases[] = {
    {"erdos:n=20,p=0.2,seed=3", NULL, 5, 1, TRUE},
    {"barabasi:n=40,m=2,seed=7", NULL, 4, 2, FALSE},
    {"regular:n=60,d=4,seed=2", NULL, 4, 1, FALSE},
    {"erdos:n=30,p=0.15,seed=8", "edge-failure:p=0.3", 4, 1, FALSE},
};

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *name = g_strdup_printf("/stream/pack/decor-%u", i);
    g_test_add_data_func(name, &cases[i], compare);
    g_free(name);
  }
  return g_test_run();
}
