/*
 * tests/protocols/test_housing.c: non-private D-SGD (sigma = 0) with the
 * paper's MLP (8-64-1) on California housing over the Facebook-ego graph
 * (148 nodes) reaches an average test MSE within 10% of centralized SGD
 * given the same number of gradient evaluations (same train split, same k
 * epochs and b batches: k * n_train per-example gradients each).
 *
 * Full size in Release (label nosanitize); the ASan build runs the same
 * comparison on a 16-node ring and fewer epochs.
 */
#include "proto_test.h"

typedef struct {
  const char *graph_spec; /* NULL: the ego graph file */
  guint epochs, batches;
  double lr, clip;
} Setup;

static void compare(const Setup *s) {
  char *data = data_path("california/cal_housing.data");
  char *dataset = g_strdup_printf("california:%s", data);
  GError *err = NULL;
  TopoGraph *g;
  if (s->graph_spec == NULL) {
    char *path = data_path("graphs/facebook-ego-414-lcc.edges");
    g = topo_graph_load(path, FALSE, &err);
    g_free(path);
  } else {
    g = topo_graph_generate(s->graph_spec, &err);
  }
  g_assert_no_error(err);

  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "dsgd";
  cfg.sigma = 0.0;
  cfg.clip = s->clip;
  cfg.lr = s->lr;
  cfg.epochs = s->epochs;
  cfg.batches = s->batches;
  cfg.dataset = dataset;
  cfg.model = "mlp:hidden=64";
  cfg.seed = 1;
  cfg.storage = SIM_LIN_NONE;
  cfg.threads = 2;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  gint64 t0 = g_get_monotonic_time();
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  double seconds = (g_get_monotonic_time() - t0) / 1e6;
  guint T = s->epochs * s->batches;
  double dec = proto_run_mean_test_loss(run, T);

  /* Centralized SGD on the same split, from the same initial model. */
  const LearnModel *m = proto_run_learn_model(run);
  gsize d = learn_model_n_params(m);
  double *params = g_memdup2(proto_run_initial_params(run), d * sizeof(double));
  LearnSgdConfig sgd = {
      .n_batches = s->batches, .epochs = s->epochs, .lr = s->lr, .clip = s->clip, .seed = 1};
  g_assert_true(learn_sgd_train(m, params, proto_run_train_set(run), &sgd, NULL, NULL, &err));
  g_assert_no_error(err);
  double central = NAN, init = NAN;
  learn_model_evaluate(m, params, proto_run_test_set(run), NULL, 0, &central, NULL);
  learn_model_evaluate(m, proto_run_initial_params(run), proto_run_test_set(run), NULL, 0, &init,
                       NULL);
  g_test_message("%u nodes, T = %u: decentralized MSE %.4f, centralized %.4f, initial %.4f "
                 "(%.2f s)",
                 topo_graph_n_nodes(g), T, dec, central, init, seconds);
  g_assert_true(isfinite(dec) && isfinite(central));
  g_assert_cmpfloat(central, <, 0.5 * init); /* the baseline did learn */
  g_assert_cmpfloat(fabs(dec - central), <=, 0.10 * central);

  /* Every node has a metric row, with its own training loss. */
  gsize n_rows = 0;
  const ProtoMetric *rows = proto_run_metrics(run, &n_rows);
  g_assert_cmpuint(n_rows, ==, topo_graph_n_nodes(g));
  for (gsize i = 0; i < n_rows; i++) {
    g_assert_cmpuint(rows[i].step, ==, T);
    g_assert_cmpuint(rows[i].node, ==, i);
    g_assert_true(isfinite(rows[i].train_loss) && isfinite(rows[i].test_loss));
    g_assert_true(isnan(rows[i].test_accuracy));
  }
  g_free(params);
  proto_run_free(run);
  topo_graph_free(g);
  g_free(dataset);
  g_free(data);
}

static void test_ego_full(void) {
  Setup s = {NULL, 20, 16, 0.2, 1.0};
  compare(&s);
}

static void test_ring_small(void) {
  Setup s = {"ring:n=16", 5, 16, 0.2, 1.0};
  compare(&s);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  const char *which = g_getenv("PROTO_HOUSING");
  if (which == NULL || g_strcmp0(which, "full") == 0)
    g_test_add_func("/housing/ego_full", test_ego_full);
  if (which == NULL || g_strcmp0(which, "small") == 0)
    g_test_add_func("/housing/ring_small", test_ring_small);
  return g_test_run();
}
