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

#include "observe_test.h"
#include "privacy/stream_internal.h"
#include "protocols/protocols.h"
#include "topologies/topologies.h"

typedef struct {
  const char *graph, *protocol;
  guint T, b;
} Case;

static const guint set_0[] = {0}, set_pair[] = {1, 6}, set_three[] = {2, 9, 14};
static const ObsView views[] = {
    {PRIV_TRUST_SECLDP, set_0, 1},   {PRIV_TRUST_LDP, set_0, 1},
    {PRIV_TRUST_PNDP, set_0, 1},     {PRIV_TRUST_SECLDP, set_pair, 2},
    {PRIV_TRUST_PNDP, set_three, 3}, {PRIV_TRUST_LDP, set_three, 3},
};
#define N_VIEWS G_N_ELEMENTS(views)

static const ObsAccountant dense = {FALSE, PRIV_STREAM_BACKWARD, 0, 0, FALSE};
static const ObsAccountant streaming = {TRUE, PRIV_STREAM_BACKWARD, 0, 0, FALSE};

/* @c run with the views attached, accounted by @acc. */
static ObsRun observe(const Case *c, const ObsAccountant *acc) {
  ObsSpec spec = {.graph = c->graph,
                  .protocol = c->protocol,
                  .sigma = 0.9,
                  .clip = 1.0,
                  .T = c->T,
                  .b = c->b,
                  .seed = 5};
  return obs_run_spec(&spec, views, N_VIEWS, acc);
}

/* @c's blocks from the dense or the streaming accountant. */
static PrivBlocks **account(const Case *c, const ObsAccountant *acc) {
  ObsRun o = observe(c, acc);
  PrivBlocks **out = obs_run_blocks(&o);
  obs_run_clear(&o);
  return out;
}

static void test_equals_dense(gconstpointer data) {
  const Case *c = data;
  PrivBlocks **d = account(c, &dense), **s = account(c, &streaming);
  /* the comparison saw numbers */
  g_assert_cmpuint(obs_blocks_assert_same(d, s, N_VIEWS), >=, N_VIEWS);
  obs_blocks_free(d, N_VIEWS);
  obs_blocks_free(s, N_VIEWS);
}

/* The largest state each view carried, and the checkpoints' own, in a
 * streaming run of Zip-DL. */
static void test_view_state(void) {
  const Case c = {"erdos:n=24,p=0.3,seed=3", "zipdl", 6, 1};
  ObsRun o = observe(&c, &streaming);
  obs_blocks_free(obs_run_blocks(&o), N_VIEWS);
  const PrivStream *ps = priv_observer_stream(o.obs);
  const TopoGraph *g = o.graph;
  guint n = topo_graph_n_nodes(g), max_state = priv_stream_max_state(ps);
  /* The checkpoints hold every payload in flight (n (deg + 1) of them). */
  g_assert_cmpuint(max_state, >, 5 * n);
  for (guint v = 0; v < N_VIEWS; v++) {
    guint sv = priv_stream_max_view_state(ps, v);
    g_test_message("view %u carried %u of %u state variables", v, sv, max_state);
    g_assert_cmpuint(sv, >, 0);
    if (views[v].trust != PRIV_TRUST_PNDP) {
      g_assert_cmpuint(sv, <=, 2 * n + 2);
      continue;
    }
    /* PNDP: the models, and the payloads of the senders whose noise one of
     * its messages showed (the members and their neighbours). */
    gboolean *near = g_new0(gboolean, n);
    for (guint i = 0; i < views[v].n_members; i++) {
      guint a = views[v].members[i];
      near[a] = TRUE;
      for (guint u = 0; u < n; u++)
        near[u] = near[u] || (u != a && topo_graph_has_edge(g, a, u));
    }
    guint bound = n;
    for (guint u = 0; u < n; u++)
      bound += near[u] ? topo_graph_degree(g, u) + 1 : 0;
    g_free(near);
    g_assert_cmpuint(sv, <=, bound);
  }
  obs_run_clear(&o);
}

/* A state past the memory budget is an error at the first checkpoints,
 * naming what grows, although the lower bound checked when the view was
 * added fits: Zip-DL under SecLDP carries about two state rows per node
 * (the forward engine's Gamma, one n T row each), and the backward engine's
 * records grow with every period. */
static void test_memory(gconstpointer data) {
  PrivStreamEngine engine = GPOINTER_TO_INT(data);
  guint n = 24, T = 8;
  /* The view's check: n T^2 blocks (3 copies), the noise (4 n^2) and,
   * forward, n x nT of state (2); backward, one row of n T and 2 n T per
   * view (2). */
  gsize gamma = engine == PRIV_STREAM_FORWARD ? (gsize)n * n * T * 2 : (gsize)n * T * 5;
  gamma += 4 * (gsize)n * n;
  gsize lower = 8 * ((gsize)n * T * T * 3 + gamma);
  const ObsView secldp = {PRIV_TRUST_SECLDP, set_0, 1};
  for (int fits = 0; fits < 2; fits++) {
    ObsSpec spec = {
        .graph = "erdos:n=24,p=0.3,seed=3", .protocol = "zipdl", .sigma = 1.0, .clip = 1.0, .T = T};
    ObsAccountant acc = {.streaming = TRUE,
                         .engine = engine,
                         .max_bytes = fits ? 4 * lower + (8u << 20) : lower + 1000};
    ObsRun o = obs_run_spec(&spec, &secldp, 1, &acc);
    g_assert_cmpuint(topo_graph_n_nodes(o.graph), ==, n);
    GError *err = NULL;
    PrivBlocks *b = obs_run_view_blocks(&o, 0, &err);
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
    obs_run_clear(&o);
  }
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
