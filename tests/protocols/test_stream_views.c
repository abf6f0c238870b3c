/*
 * tests/protocols/test_stream_views.c: the streaming accountant's per-view
 * state. A transition row a view observed is a constant to it; rows that
 * differ only in fresh noise (a Zip-DL sender's payloads under LDP or
 * SecLDP) are one row plus pure-noise differences that condition that
 * noise; fresh noise a view has not touched is carried out of its state even
 * when another view of the same run observed it. Two checks:
 *   - streaming = dense (every block entry to 1e-9 of the block's largest,
 *     every status) for Zip-DL and DECOR on denser random graphs than
 *     test_stream_observer's, with LDP, PNDP and SecLDP views of single
 *     nodes and collusion sets in one run, b = 1 and 2;
 *   - the state each view carries stays about two rows per node (models and
 *     Zip-DL's unsent self-payloads) while the checkpoints' state holds every
 *     payload in flight: before, each view carried all of them (the LDP and
 *     SecLDP views' observed payloads, and the PNDP view's once another view
 *     had touched their noise), about 7 n here.
 */
#include <math.h>
#include <string.h>

#include "privacy/stream_internal.h"
#include "protocols/protocols.h"
#include "topologies/topologies.h"

typedef struct {
  const char *graph, *protocol;
  guint T, b;
} Case;

static const guint set_0[] = {0}, set_pair[] = {1, 6}, set_three[] = {2, 9, 14};
typedef struct {
  PrivTrust trust;
  const guint *members;
  guint n;
} View;
static const View views[] = {
    {PRIV_TRUST_SECLDP, set_0, 1},   {PRIV_TRUST_LDP, set_0, 1},
    {PRIV_TRUST_PNDP, set_0, 1},     {PRIV_TRUST_SECLDP, set_pair, 2},
    {PRIV_TRUST_PNDP, set_three, 3}, {PRIV_TRUST_LDP, set_three, 3},
};
#define N_VIEWS G_N_ELEMENTS(views)

/* Runs @c with the dense or the streaming accountant: the views' blocks;
 * with @sv (streaming), the largest state each view carried and, last, the
 * checkpoints' own. */
static PrivBlocks **account(const Case *c, gboolean streaming, guint *sv, guint *n_nodes) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(c->graph, &err);
  g_assert_no_error(err);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = c->protocol;
  cfg.sigma = 0.9;
  cfg.clip = 1.0;
  cfg.rounds = c->T;
  cfg.batches = c->b;
  cfg.seed = 5;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  PrivObserver *obs = priv_observer_new(proto_context_space(proto_run_context(run)), &err);
  g_assert_no_error(err);
  for (guint v = 0; v < N_VIEWS; v++) {
    priv_observer_add_view(obs, views[v].trust, views[v].members, views[v].n, &err);
    g_assert_no_error(err);
  }
  if (streaming) {
    PrivStreamOptions so = {.T = c->T, .clip = 1.0};
    g_assert_true(priv_observer_set_streaming(obs, &so, &err));
  }
  g_assert_true(priv_observer_attach(obs, sim_engine_bus(proto_run_engine(run)), &err));
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  PrivBlocks **out = g_new0(PrivBlocks *, N_VIEWS);
  PrivKnowledgeOptions ko = {.T = c->T, .clip = 1.0};
  for (guint v = 0; v < N_VIEWS; v++) {
    if (streaming) {
      out[v] = priv_observer_stream_blocks(obs, v, &err);
    } else {
      PrivKnowledge *k = priv_observer_knowledge(obs, v, &err);
      g_assert_no_error(err);
      out[v] = priv_knowledge_blocks(k, &ko, &err);
      priv_knowledge_free(k);
    }
    g_assert_no_error(err);
  }
  if (sv) {
    const PrivStream *ps = priv_observer_stream(obs);
    for (guint v = 0; v < N_VIEWS; v++)
      sv[v] = priv_stream_max_view_state(ps, v);
    sv[N_VIEWS] = priv_stream_max_state(ps);
  }
  if (n_nodes)
    *n_nodes = topo_graph_n_nodes(g);
  priv_observer_free(obs);
  proto_run_free(run);
  topo_graph_free(g);
  return out;
}

static void test_equals_dense(gconstpointer data) {
  const Case *c = data;
  PrivBlocks **d = account(c, FALSE, NULL, NULL), **s = account(c, TRUE, NULL, NULL);
  guint numbers = 0;
  for (guint v = 0; v < N_VIEWS; v++) {
    guint n = d[v]->n, T = d[v]->T;
    for (guint u = 0; u < n; u++) {
      g_assert_cmpint(s[v]->status[u], ==, d[v]->status[u]);
      const double *x = priv_blocks_get(d[v], u), *y = priv_blocks_get(s[v], u);
      double scale = 0.0;
      for (gsize i = 0; i < (gsize)T * T; i++)
        scale = MAX(scale, fabs(x[i]));
      for (gsize i = 0; i < (gsize)T * T; i++)
        g_assert_cmpfloat(fabs(x[i] - y[i]), <=, 1e-9 * scale);
      numbers += d[v]->status[u] == PRIV_NODE_PROTECTED && scale > 0;
    }
    priv_blocks_free(d[v]);
    priv_blocks_free(s[v]);
  }
  g_assert_cmpuint(numbers, >=, N_VIEWS); /* the comparison saw numbers */
  g_free(d);
  g_free(s);
}

static void test_view_state(void) {
  const Case c = {"erdos:n=24,p=0.3,seed=3", "zipdl", 6, 1};
  guint sv[N_VIEWS + 1], n = 0;
  PrivBlocks **s = account(&c, TRUE, sv, &n);
  for (guint v = 0; v < N_VIEWS; v++)
    priv_blocks_free(s[v]);
  g_free(s);
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(c.graph, &err);
  g_assert_no_error(err);
  /* The checkpoints hold every payload in flight (n (deg + 1) of them). */
  g_assert_cmpuint(sv[N_VIEWS], >, 5 * n);
  for (guint v = 0; v < N_VIEWS; v++) {
    g_test_message("view %u carried %u of %u state variables", v, sv[v], sv[N_VIEWS]);
    g_assert_cmpuint(sv[v], >, 0);
    if (views[v].trust != PRIV_TRUST_PNDP) {
      g_assert_cmpuint(sv[v], <=, 2 * n + 2);
      continue;
    }
    /* PNDP: the models, and the payloads of the senders whose noise one of
     * its messages showed (the members and their neighbours). */
    gboolean *near = g_new0(gboolean, n);
    for (guint i = 0; i < views[v].n; i++) {
      guint a = views[v].members[i];
      near[a] = TRUE;
      for (guint u = 0; u < n; u++)
        near[u] = near[u] || (u != a && topo_graph_has_edge(g, a, u));
    }
    guint bound = n;
    for (guint u = 0; u < n; u++)
      bound += near[u] ? topo_graph_degree(g, u) + 1 : 0;
    g_free(near);
    g_assert_cmpuint(sv[v], <=, bound);
  }
  topo_graph_free(g);
}

/* A state past the memory budget is an error at the first checkpoints,
 * naming what grows, although the lower bound checked when the view was
 * added fits: Zip-DL under SecLDP carries about two state rows per node
 * (the forward engine's Gamma, one n T row each), and the backward engine's
 * records grow with every period. */
static void test_memory(gconstpointer data) {
  PrivStreamEngine engine = GPOINTER_TO_INT(data);
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("erdos:n=24,p=0.3,seed=3", &err);
  g_assert_no_error(err);
  guint n = 24, T = 8;
  /* The view's check: n T^2 blocks (3 copies), the noise (4 n^2) and,
   * forward, n x nT of state (2); backward, one row of n T and 2 n T per
   * view (2). */
  gsize gamma = engine == PRIV_STREAM_FORWARD ? (gsize)n * n * T * 2 : (gsize)n * T * 5;
  gamma += 4 * (gsize)n * n;
  gsize lower = 8 * ((gsize)n * T * T * 3 + gamma);
  for (int fits = 0; fits < 2; fits++) {
    ProtoRunConfig cfg;
    proto_run_config_init(&cfg);
    cfg.graph = g;
    cfg.protocol = "zipdl";
    cfg.rounds = T;
    ProtoRun *run = proto_run_new(&cfg, &err);
    g_assert_no_error(err);
    PrivObserver *obs = priv_observer_new(proto_context_space(proto_run_context(run)), &err);
    priv_observer_add_view(obs, PRIV_TRUST_SECLDP, set_0, 1, &err);
    g_assert_no_error(err);
    PrivStreamOptions so = {
        .T = T, .max_bytes = fits ? 4 * lower + (8u << 20) : lower + 1000, .engine = engine};
    g_assert_true(priv_observer_set_streaming(obs, &so, &err));
    g_assert_no_error(err);
    g_assert_true(priv_observer_attach(obs, sim_engine_bus(proto_run_engine(run)), &err));
    g_assert_true(proto_run_run(run, &err));
    g_assert_no_error(err);
    PrivBlocks *b = priv_observer_stream_blocks(obs, 0, &err);
    if (fits) {
      g_assert_no_error(err);
      g_assert_nonnull(b);
      priv_blocks_free(b);
    } else {
      g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
      g_test_message("%s", err->message);
      g_assert_nonnull(strstr(err->message, "streaming accountant's state at step"));
      g_assert_null(b);
      g_clear_error(&err);
    }
    priv_observer_free(obs);
    proto_run_free(run);
  }
  topo_graph_free(g);
}

static const Case cases[] = {
    {"erdos:n=16,p=0.4,seed=2", "zipdl", 5, 1},
    {"erdos:n=16,p=0.4,seed=2", "zipdl", 6, 2},
    {"erdos:n=16,p=0.4,seed=2", "decor", 6, 2},
    {"erdos:n=16,p=0.5,seed=8", "zipdl:units=gradient", 4, 1},
};

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *name = g_strdup_printf("/stream/views/equals-dense/%u-%s-b%u", i, cases[i].protocol,
                                 cases[i].b);
    g_strdelimit(name + 1, ":=,", '_');
    g_test_add_data_func(name, &cases[i], test_equals_dense);
    g_free(name);
  }
  g_test_add_func("/stream/views/state", test_view_state);
  g_test_add_data_func("/stream/views/memory-backward", GINT_TO_POINTER(PRIV_STREAM_BACKWARD),
                       test_memory);
  g_test_add_data_func("/stream/views/memory-forward", GINT_TO_POINTER(PRIV_STREAM_FORWARD),
                       test_memory);
  return g_test_run();
}
