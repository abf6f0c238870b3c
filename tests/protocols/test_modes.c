/*
 * tests/protocols/test_modes.c: the gossip modes change the effective W_t,
 * and the provenance shows exactly how:
 *   deadline   a link too slow for the deadline is skipped and the receiver's
 *              weights renormalised over what arrived; with a generous
 *              deadline the run equals sync;
 *   stale      a two-node run derived by hand event by event (who uses which
 *              old message), and stale:s=0 equals sync;
 *   sync       refuses lossy links;
 *   loss       a stale run replaces a lost message by the freshest one within
 *              the bound, and skips the sender (weights renormalised) when
 *              there is none: it never stalls, even when everything is lost;
 *   timing     local compute time and latency add up to the simulated time.
 */
#include "proto_test.h"
#include "tests/common/tolerance.h"

static TopoGraph *florentine(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  return g;
}

static void base_config(ProtoRunConfig *cfg, const TopoGraph *g, guint T) {
  proto_run_config_init(cfg);
  cfg->graph = g;
  cfg->protocol = "dsgd";
  cfg->sigma = 0.0;
  cfg->lr = 1.0;
  cfg->rounds = T;
  cfg->latency = "constant:ms=1";
}

static void set_link_ms(ProtoRun *run, guint from, guint to, double ms) {
  SimLinkParams p = {.latency = {.kind = SIM_LATENCY_CONSTANT, .ms = ms}};
  GError *err = NULL;
  g_assert_true(sim_engine_set_link(proto_run_engine(run), from, to, &p, &err));
  g_assert_no_error(err);
}

/* D-SGD (base_config, T = 3) in stale mode s = 1 on two nodes joined by one
 * edge; not started, so that a link can be set first. */
static ProtoRun *two_nodes_stale(void) {
  GError *err = NULL;
  const guint edge[2] = {0, 1};
  TopoGraph *g = topo_graph_new_from_edges(2, edge, 1, &err);
  g_assert_no_error(err);
  ProtoRunConfig cfg;
  base_config(&cfg, g, 3);
  cfg.mode = "stale:s=1";
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  topo_graph_free(g); /* the run keeps its own copy */
  return run;
}

/* Gradient provenance of every recorded message, as (from, round) -> row. */
static GHashTable *rows_by_message(Recorder *rec, guint n, guint T) {
  GHashTable *rows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  for (guint i = 0; i < rec->sent->len; i++) {
    const RecMsg *m = &g_array_index(rec->sent, RecMsg, i);
    double *row = g_new(double, (gsize)n *T);
    g_assert_true(sim_linvec_row(rec_payload(m), SIM_LIN_GRAD, row, (gsize)n * T, NULL));
    g_hash_table_insert(rows, GUINT_TO_POINTER(m->round * n + m->from), row);
  }
  return rows;
}

/* Node 1 of the Florentine graph never hears node 8 in time (their link
 * takes 1000 ms against a 5 ms deadline): round 1 messages show node 1's
 * average renormalised without node 8, everyone else's intact. */
static void test_deadline_skips_slow_link(void) {
  TopoGraph *g = florentine();
  guint n = topo_graph_n_nodes(g), T = 4, slow_from = 8, slow_to = 1;
  g_assert_true(topo_graph_has_edge(g, slow_from, slow_to));
  ProtoRunConfig cfg;
  base_config(&cfg, g, T);
  cfg.mode = "deadline:ms=5";
  GError *err = NULL;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  set_link_ms(run, slow_from, slow_to, 1000.0);
  Recorder *rec = recorder_attach(run);
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  double **W = dense_rounds(g, TOPO_GOSSIP_UNIFORM, NULL, 1);
  GHashTable *rows = rows_by_message(rec, n, T);
  for (guint u = 0; u < n; u++) {
    const double *row = g_hash_table_lookup(rows, GUINT_TO_POINTER(1 * n + u));
    g_assert_nonnull(row);
    double sum = 0.0;
    for (guint v = 0; v < n; v++)
      if (!(u == slow_to && v == slow_from))
        sum += W[0][u * n + v];
    for (guint v = 0; v < n; v++) {
      double w = W[0][u * n + v];
      double want = u == slow_to ? (v == slow_from ? 0.0 : w / sum) : w;
      /* The renormalising sum of <= n weights in [0, 1] (sum ~ 1), summed in
       * another order here: n eps relative each, then one division. */
      dpg_test_assert_close(row[0 * n + v], -want, 2 * dpg_tol(1, n) + DBL_EPSILON,
                            "two sums of n weights, one division");
      g_assert_cmpfloat(row[1 * n + v], ==, u == v ? -1.0 : 0.0);
    }
  }
  ProtoRunStats st;
  proto_run_get_stats(run, &st);
  g_assert_cmpuint(st.partial_gathers, >=, T); /* node 1, every round */
  g_assert_cmpuint(st.late_discarded, >=, T);  /* node 8's messages, all too late */
  g_assert_cmpuint(st.engine.messages_delivered, ==, st.engine.messages_sent);
  g_hash_table_destroy(rows);
  dense_rounds_free(W, 1);
  recorder_free(rec);
  proto_run_free(run);
  topo_graph_free(g);
}

/* Runs @mode and returns the gradient rows of all messages in send order. */
static GArray *message_rows(const TopoGraph *g, guint T, const char *mode) {
  ProtoRunConfig cfg;
  base_config(&cfg, g, T);
  cfg.mode = mode;
  cfg.latency = "uniform:min=1,max=3";
  GError *err = NULL;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  Recorder *rec = recorder_attach(run);
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  guint n = topo_graph_n_nodes(g);
  /* Keyed by (round, from, to), so the comparison ignores event order. */
  GArray *out = g_array_new(FALSE, TRUE, sizeof(double));
  g_array_set_size(out, (gsize)T * n * n * n * T);
  for (guint i = 0; i < rec->sent->len; i++) {
    const RecMsg *m = &g_array_index(rec->sent, RecMsg, i);
    double *row = &g_array_index(out, double,
                                 (((gsize)m->round * n + m->from) * n + m->to) * n * T);
    g_assert_true(sim_linvec_row(rec_payload(m), SIM_LIN_GRAD, row, (gsize)n * T, NULL));
  }
  recorder_free(rec);
  proto_run_free(run);
  return out;
}

/* With random latencies but a deadline far beyond them, and with s = 0,
 * the asynchronous modes send exactly the synchronous messages. */
static void test_modes_reduce_to_sync(void) {
  TopoGraph *g = florentine();
  GArray *sync = message_rows(g, 4, "sync");
  const char *modes[] = {"deadline:ms=1000", "stale:s=0"};
  for (guint i = 0; i < G_N_ELEMENTS(modes); i++) {
    GArray *other = message_rows(g, 4, modes[i]);
    g_assert_cmpuint(other->len, ==, sync->len);
    g_assert_cmpmem(other->data, other->len * sizeof(double), sync->data,
                    sync->len * sizeof(double));
    g_array_free(other, TRUE);
  }
  g_array_free(sync, TRUE);
  topo_graph_free(g);
}

/* Slot vectors of the two-node stale run: 2 nodes x 3 steps. */
typedef struct {
  double c[6];
} Slots;

static Slots sv_grad(guint u, guint t) { /* -e(u, t), eta = 1 */
  Slots s = {{0}};
  s.c[t * 2 + u] = -1.0;
  return s;
}

static Slots sv_add(Slots a, Slots b) {
  for (int i = 0; i < 6; i++)
    a.c[i] += b.c[i];
  return a;
}

static Slots sv_avg(Slots a, Slots b) {
  for (int i = 0; i < 6; i++)
    a.c[i] = 0.5 * a.c[i] + 0.5 * b.c[i];
  return a;
}

/*
 * Two nodes, W = 1/2 everywhere, s = 1, link 0->1 takes 3 ms and 1->0 1 ms.
 * Event by event (m_u^t: u's message of round t, theta_u^t its model):
 *   1 ms  node 0 gets m_1^0: theta_0^1 = avg(m_0^0, m_1^0); sends m_0^1; its
 *         round 1 may use m_1^0 (round 0 >= 1 - s): theta_0^2 = avg(m_0^1,
 *         m_1^0); sends m_0^2; round 2 needs a message of round >= 1: waits.
 *   3 ms  node 1 gets m_0^0: likewise theta_1^1 = avg(m_1^0, m_0^0),
 *         theta_1^2 = avg(m_1^1, m_0^0), sends m_1^1, m_1^2, waits.
 *   4 ms  node 1 gets m_0^1 (sent first): theta_1^3 = avg(m_1^2, m_0^1), done;
 *         m_0^2 arrives too late. Node 0 gets m_1^1: theta_0^3 = avg(m_0^2,
 *         m_1^1), done; m_1^2 too late.
 */
static void test_stale_by_hand(void) {
  GError *err = NULL;
  ProtoRun *run = two_nodes_stale();
  set_link_ms(run, 0, 1, 3.0);
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);

  Slots m00 = sv_grad(0, 0), m10 = sv_grad(1, 0);
  Slots m01 = sv_add(sv_avg(m00, m10), sv_grad(0, 1));
  Slots m02 = sv_add(sv_avg(m01, m10), sv_grad(0, 2));
  Slots m11 = sv_add(sv_avg(m10, m00), sv_grad(1, 1));
  Slots m12 = sv_add(sv_avg(m11, m00), sv_grad(1, 2));
  Slots want[2] = {sv_avg(m02, m11), sv_avg(m12, m01)};
  for (guint u = 0; u < 2; u++)
    for (guint t = 0; t < 3; t++)
      for (guint v = 0; v < 2; v++)
        g_assert_cmpfloat(sim_linvec_grad_coeff(proto_run_node_model(run, u), v, t), ==,
                          want[u].c[t * 2 + v]);
  ProtoRunStats st;
  proto_run_get_stats(run, &st);
  g_assert_cmpuint(st.stale_inputs, ==, 4);
  g_assert_cmpuint(st.late_discarded, ==, 2);
  g_assert_cmpuint(st.sim_time, ==, 4 * SIM_TIME_MS);
  proto_run_free(run);
}

static void test_sync_refuses_loss(void) {
  TopoGraph *g = florentine();
  ProtoRunConfig cfg;
  base_config(&cfg, g, 2);
  cfg.loss = "0.1";
  GError *err = NULL;
  g_assert_null(proto_run_new(&cfg, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "sync"));
  g_clear_error(&err);

  /* Deadline and stale modes always progress (stale mode stalled
   * on the first lost message): with every message lost, each node keeps
   * its own model (weight renormalised to 1). */
  const char *modes[] = {"deadline:ms=2", "stale:s=2"};
  for (guint i = 0; i < G_N_ELEMENTS(modes); i++) {
    cfg.mode = modes[i];
    cfg.loss = "1";
    ProtoRun *run = proto_run_new(&cfg, &err);
    g_assert_no_error(err);
    g_assert_true(proto_run_run(run, &err));
    g_assert_no_error(err);
    for (guint u = 0; u < topo_graph_n_nodes(g); u++) {
      const SimLinvec *x = proto_run_node_model(run, u);
      g_assert_cmpuint(sim_linvec_nnz(x, SIM_LIN_GRAD), ==, 2);
      g_assert_cmpfloat(sim_linvec_grad_coeff(x, u, 0), ==, -1.0);
      g_assert_cmpfloat(sim_linvec_grad_coeff(x, u, 1), ==, -1.0);
    }
    ProtoRunStats st;
    proto_run_get_stats(run, &st);
    g_assert_cmpuint(st.engine.messages_delivered, ==, 0);
    g_assert_cmpuint(st.partial_gathers, ==, 2 * topo_graph_n_nodes(g));
    proto_run_free(run);
  }
  topo_graph_free(g);
}

/* Stale mode over a lossy link (it stalled). Two nodes, s = 1, the
 * link 0 -> 1 loses everything: node 1 never has a message of node 0 within
 * the bound, so it skips it every round and keeps exactly its own gradients;
 * node 0 hears node 1. Florentine at 10% loss: the run completes, some
 * inputs are stale replacements, and a second run gives the same models. */
static void test_stale_loss(void) {
  GError *err = NULL;
  ProtoRun *run = two_nodes_stale();
  SimLinkParams lossy = {.latency = {.kind = SIM_LATENCY_CONSTANT, .ms = 1.0}, .loss = 1.0};
  g_assert_true(sim_engine_set_link(proto_run_engine(run), 0, 1, &lossy, &err));
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  const SimLinvec *x1 = proto_run_node_model(run, 1), *x0 = proto_run_node_model(run, 0);
  g_assert_cmpuint(sim_linvec_nnz(x1, SIM_LIN_GRAD), ==, 3);
  for (guint t = 0; t < 3; t++) {
    g_assert_cmpfloat(sim_linvec_grad_coeff(x1, 1, t), ==, -1.0);
    g_assert_cmpfloat(sim_linvec_grad_coeff(x1, 0, t), ==, 0.0);
  }
  g_assert_cmpfloat(sim_linvec_grad_coeff(x0, 1, 0), <, 0.0);
  ProtoRunStats st;
  proto_run_get_stats(run, &st);
  g_assert_cmpuint(st.engine.dropped_loss, ==, 3);
  g_assert_cmpuint(st.partial_gathers, ==, 3); /* node 1, every round */
  proto_run_free(run);

  TopoGraph *g = florentine();
  guint n = topo_graph_n_nodes(g);
  ProtoRunConfig cfg;
  base_config(&cfg, g, 8);
  cfg.mode = "stale:s=10";
  cfg.loss = "0.1";
  double *first = g_new(double, (gsize)n *n * 8);
  for (guint rep = 0; rep < 2; rep++) {
    run = proto_run_new(&cfg, &err);
    g_assert_no_error(err);
    g_assert_true(proto_run_run(run, &err));
    g_assert_no_error(err);
    proto_run_get_stats(run, &st);
    g_assert_cmpuint(st.engine.dropped_loss, >, 0);
    g_assert_cmpuint(st.stale_inputs, >, 0);
    g_assert_cmpuint(st.gathers, ==, 8 * n);
    double *row = g_new(double, (gsize)n * 8);
    for (guint u = 0; u < n; u++) {
      g_assert_true(
          sim_linvec_row(proto_run_node_model(run, u), SIM_LIN_GRAD, row, (gsize)n * 8, NULL));
      if (rep == 0)
        memcpy(first + (gsize)u * n * 8, row, sizeof(double) * n * 8);
      else
        g_assert_cmpmem(first + (gsize)u * n * 8, sizeof(double) * n * 8, row,
                        sizeof(double) * n * 8);
    }
    g_free(row);
    proto_run_free(run);
  }
  g_free(first);
  topo_graph_free(g);
}

/* Each step costs compute + latency in sync mode: T (3 + 2) ms. */
static void test_compute_time(void) {
  TopoGraph *g = florentine();
  ProtoRunConfig cfg;
  base_config(&cfg, g, 4);
  cfg.latency = "constant:ms=2";
  cfg.compute_ms = 3.0;
  GError *err = NULL;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  Recorder *rec = recorder_attach(run);
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  ProtoRunStats st;
  proto_run_get_stats(run, &st);
  g_assert_cmpuint(st.sim_time, ==, 20 * SIM_TIME_MS);
  g_assert_cmpuint(st.gathers, ==, 4 * topo_graph_n_nodes(g));
  g_assert_cmpuint(rec->rounds_published, ==, 4 + 1); /* rounds 0 (the start) to 4 */
  recorder_free(rec);
  proto_run_free(run);
  topo_graph_free(g);
}

static void test_mode_parse(void) {
  ProtoMode m;
  GError *err = NULL;
  g_assert_true(proto_mode_parse("deadline:ms=2.5", &m, &err));
  g_assert_cmpint(m.kind, ==, PROTO_MODE_DEADLINE);
  g_assert_cmpfloat(m.deadline_ms, ==, 2.5);
  g_assert_true(proto_mode_parse("stale:s=3", &m, &err));
  g_assert_cmpint(m.kind, ==, PROTO_MODE_STALE);
  g_assert_cmpuint(m.staleness, ==, 3);
  g_assert_true(proto_mode_parse(NULL, &m, &err));
  g_assert_cmpint(m.kind, ==, PROTO_MODE_SYNC);
  g_assert_no_error(err);
  const char *bad[] = {"async",        "deadline",   "deadline:ms=0",  "deadline:ms=x",
                       "deadline:s=2", "stale:s=-1", "stale:s=2,ms=3", "stale:k=1"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_false(proto_mode_parse(bad[i], &m, &err));
    g_assert_error(err, PROTO_ERROR, PROTO_ERROR_PARSE);
    g_clear_error(&err);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/modes/deadline/skips_slow_link", test_deadline_skips_slow_link);
  g_test_add_func("/modes/reduce_to_sync", test_modes_reduce_to_sync);
  g_test_add_func("/modes/stale/by_hand", test_stale_by_hand);
  g_test_add_func("/modes/sync/refuses_loss", test_sync_refuses_loss);
  g_test_add_func("/modes/stale/loss", test_stale_loss);
  g_test_add_func("/modes/compute_time", test_compute_time);
  g_test_add_func("/modes/parse", test_mode_parse);
  return g_test_run();
}
