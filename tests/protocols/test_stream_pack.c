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
#include <math.h>

#include "privacy/stream_internal.h"
#include "protocols/protocols.h"
#include "tests/privacy/blocks_diff.h"
#include "topologies/topologies.h"

typedef struct {
  const char *graph, *schedule; /* schedule NULL: static */
  guint T, b;
  gboolean dense; /* also against the dense accountant */
} Case;

static const guint set_a[] = {0}, set_b[] = {2, 5, 7};
static const PrivTrust trusts[] = {PRIV_TRUST_LDP, PRIV_TRUST_PNDP, PRIV_TRUST_SECLDP};
#define N_VIEWS 6

/* The N_VIEWS views' blocks of one DECOR run: dense (@streaming FALSE) or
 * streaming with @engine; the packed periods per view into @packed. */
static PrivBlocks **account(const Case *c, gboolean streaming, PrivStreamEngine engine,
                            guint *packed) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(c->graph, &err);
  g_assert_no_error(err);
  TopoSchedule *sched = NULL;
  if (c->schedule) {
    sched = topo_schedule_new(c->schedule, g, TOPO_GOSSIP_UNIFORM, 3, &err);
    g_assert_no_error(err);
  }
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = sched ? NULL : g;
  cfg.schedule = sched;
  cfg.protocol = "decor";
  cfg.sigma = 0.7;
  cfg.rounds = c->T;
  cfg.batches = c->b;
  cfg.seed = 5;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  PrivObserver *obs = priv_observer_new(proto_context_space(proto_run_context(run)), &err);
  g_assert_no_error(err);
  for (guint t = 0; t < 3; t++) {
    priv_observer_add_view(obs, trusts[t], set_a, 1, &err);
    g_assert_no_error(err);
    priv_observer_add_view(obs, trusts[t], set_b, G_N_ELEMENTS(set_b), &err);
    g_assert_no_error(err);
  }
  PrivStreamOptions so = {.T = c->T, .engine = engine};
  if (streaming)
    g_assert_true(priv_observer_set_streaming(obs, &so, &err));
  g_assert_true(priv_observer_attach(obs, sim_engine_bus(proto_run_engine(run)), &err));
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  PrivBlocks **out = g_new0(PrivBlocks *, N_VIEWS);
  PrivKnowledgeOptions ko = {.T = c->T};
  for (guint v = 0; v < N_VIEWS; v++) {
    if (streaming) {
      out[v] = priv_observer_stream_blocks(obs, v, &err);
      packed[v] = priv_stream_packed_periods(priv_observer_stream(obs), v);
    } else {
      PrivKnowledge *k = priv_observer_knowledge(obs, v, &err);
      g_assert_no_error(err);
      out[v] = priv_knowledge_blocks(k, &ko, &err);
      priv_knowledge_free(k);
    }
    g_assert_no_error(err);
  }
  priv_observer_free(obs);
  proto_run_free(run);
  topo_schedule_free(sched);
  topo_graph_free(g);
  return out;
}

/* Same statuses, every block within 1e-9 of its largest entry
 * (blocks_rel_diff); returns the protected victims with a nonzero block. */
static guint assert_same(PrivBlocks **want, PrivBlocks **got) {
  guint seen = 0;
  for (guint v = 0; v < N_VIEWS; v++) {
    g_assert_cmpfloat(blocks_rel_diff(got[v], want[v]), <=, 1e-9);
    for (guint u = 0; u < want[v]->n; u++)
      seen += want[v]->status[u] == PRIV_NODE_PROTECTED && priv_blocks_get(want[v], u)[0] > 0;
  }
  return seen;
}

static void blocks_free(PrivBlocks **b) {
  for (guint v = 0; v < N_VIEWS; v++)
    priv_blocks_free(b[v]);
  g_free(b);
}

static void compare(gconstpointer data) {
  const Case *c = data;
  guint packed[N_VIEWS], unused[N_VIEWS];
  PrivBlocks **fwd = account(c, TRUE, PRIV_STREAM_FORWARD, unused);
  PrivBlocks **bwd = account(c, TRUE, PRIV_STREAM_BACKWARD, packed);
  g_assert_cmpuint(assert_same(fwd, bwd), >, 0);
  /* LDP and SecLDP views see every node's model: packed periods. */
  for (guint v = 0; v < N_VIEWS; v++)
    if (v < 2 || v >= 4)
      g_assert_cmpuint(packed[v], >, 0);
  if (c->dense) {
    PrivBlocks **dense = account(c, FALSE, PRIV_STREAM_BACKWARD, unused);
    g_assert_cmpuint(assert_same(dense, bwd), >, 0);
    blocks_free(dense);
  }
  blocks_free(fwd);
  blocks_free(bwd);
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
