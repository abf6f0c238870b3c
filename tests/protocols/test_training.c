/*
 * tests/protocols/test_training.c: runs with a learning task.
 *   - determinism: the same configuration and seed give bit-identical
 *     metrics and models, in every mode, with 1 and 3 evaluation threads,
 *     for every built-in protocol (numeric noise, edge secrets, Zip-DL
 *     projections included);
 *   - numbers and provenance agree: with provenance on, each model's data
 *     equals the initial model plus its gradient and noise terms applied
 *     to the gradients and samples recorded here;
 *   - bad inputs: a non-numeric dataset cell (file:line:column), more nodes
 *     than records, a model that does not fit the task.
 */
#include "proto_test.h"

static ProtoRun *train(const char *protocol, const char *mode, guint threads, guint64 seed,
                       SimLinStorage storage) {
  ProtoRunConfig cfg;
  train_config(&cfg, threads, seed, storage);
  cfg.protocol = protocol;
  cfg.mode = mode;
  cfg.latency = "uniform:min=1,max=4";
  cfg.clip = 2.0;
  cfg.epochs = 3;
  cfg.batches = 4;
  cfg.model = "linear";
  cfg.eval_every = 4;
  ProtoRun *run = run_on_graph(&cfg, TRAIN_GRAPH);
  GError *err = NULL;
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  return run;
}

static void assert_same(ProtoRun *a, ProtoRun *b) {
  gsize na = 0, nb = 0;
  const ProtoMetric *ma = proto_run_metrics(a, &na), *mb = proto_run_metrics(b, &nb);
  g_assert_cmpuint(na, ==, nb);
  g_assert_cmpuint(na, ==, 12 * 3); /* steps 4, 8 and T = 12 */
  g_assert_cmpmem(ma, na * sizeof *ma, mb, nb * sizeof *mb);
  for (guint u = 0; u < proto_context_n_nodes(proto_run_context(a)); u++) {
    const SimLinvec *x = proto_run_node_model(a, u), *y = proto_run_node_model(b, u);
    g_assert_cmpmem(sim_linvec_const_data(x), sim_linvec_dim(x) * sizeof(double),
                    sim_linvec_const_data(y), sim_linvec_dim(y) * sizeof(double));
  }
  ProtoRunStats sa, sb;
  proto_run_get_stats(a, &sa);
  proto_run_get_stats(b, &sb);
  g_assert_cmpmem(&sa, sizeof sa, &sb, sizeof sb);
}

static void test_deterministic(void) {
  const char *protocols[] = {"dsgd", "muffliato:K=2", "antipgd", "mfdsgd:C=bsr", "decor", "zipdl"};
  const char *modes[] = {"sync", "deadline:ms=3", "stale:s=2"};
  for (guint p = 0; p < G_N_ELEMENTS(protocols); p++)
    for (guint m = 0; m < G_N_ELEMENTS(modes); m++) {
      ProtoRun *one = train(protocols[p], modes[m], 1, 8, SIM_LIN_NONE);
      ProtoRun *three = train(protocols[p], modes[m], 3, 8, SIM_LIN_NONE);
      assert_same(one, three);
      gsize n = 0;
      const ProtoMetric *rows = proto_run_metrics(one, &n);
      for (gsize i = 0; i < n; i++) {
        g_assert_true(isfinite(rows[i].train_loss));
        g_assert_true(isfinite(rows[i].test_loss));
      }
      /* Another seed changes the run (noise, data split, initial model). */
      ProtoRun *other = train(protocols[p], modes[m], 1, 9, SIM_LIN_NONE);
      g_assert_cmpfloat(proto_run_metrics(other, NULL)[0].test_loss, !=, rows[0].test_loss);
      proto_run_free(other);
      proto_run_free(one);
      proto_run_free(three);
    }
}

/* MF noise combined a block of steps at a time (one matrix product) gives
 * the per-step sums up to rounding, with identical provenance: SR's and
 * Mafalda's C^-1 are dense, T = 12 in blocks of 5 (and the automatic block, here all 12 steps). */
static void test_mf_blocked(void) {
  const char *pairs[][2] = {{"mfdsgd:C=sr,block=1", "mfdsgd:C=sr,block=5"},
                            {"mafalda:block=1", "mafalda"}};
  for (guint p = 0; p < G_N_ELEMENTS(pairs); p++) {
    ProtoRun *a = train(pairs[p][0], "sync", 1, 5, SIM_LIN_DENSE);
    ProtoRun *b = train(pairs[p][1], "sync", 1, 5, SIM_LIN_DENSE);
    double max_diff = 0.0, max_abs = 0.0;
    for (guint u = 0; u < proto_context_n_nodes(proto_run_context(a)); u++) {
      const SimLinvec *x = proto_run_node_model(a, u), *y = proto_run_node_model(b, u);
      const double *dx = sim_linvec_const_data(x), *dy = sim_linvec_const_data(y);
      for (gsize i = 0; i < sim_linvec_dim(x); i++) {
        max_diff = MAX(max_diff, fabs(dx[i] - dy[i]));
        max_abs = MAX(max_abs, fabs(dx[i]));
      }
      SimNoiseRegistry *reg = proto_context_noise(proto_run_context(a));
      for (SimNoiseId k = 0; k < sim_noise_registry_count(reg); k++)
        g_assert_cmpfloat(sim_linvec_noise_coeff(x, k), ==, sim_linvec_noise_coeff(y, k));
    }
    g_assert_cmpfloat(max_abs, >, 0.0);
    g_assert_cmpfloat(max_diff, <=, 1e-12 * max_abs);
    proto_run_free(a);
    proto_run_free(b);
  }
}

/* Provenance storage does not change the numbers. */
static void test_storage_independent(void) {
  ProtoRun *none = train("decor", "stale:s=1", 1, 4, SIM_LIN_NONE);
  ProtoRun *sparse = train("decor", "stale:s=1", 2, 4, SIM_LIN_SPARSE);
  ProtoRun *dense = train("decor", "stale:s=1", 1, 4, SIM_LIN_DENSE);
  assert_same(none, sparse);
  assert_same(none, dense);
  g_assert_true(isnan(sim_linvec_grad_coeff(proto_run_node_model(none, 0), 0, 0)));
  g_assert_cmpuint(sim_linvec_nnz(proto_run_node_model(sparse, 0), SIM_LIN_BOTH), >, 0);
  proto_run_free(none);
  proto_run_free(sparse);
  proto_run_free(dense);
}

/* ---- numbers = provenance applied to the recorded gradients and samples ----
 * A protocol built on the public API records what it adds: D-SGD whose
 * local step is followed by noise, recording g_{u,t} (the model's change
 * minus the noise) and z. */
typedef struct {
  GHashTable *grads; /* column -> double[d] */
  GHashTable *zs;    /* noise id -> double[d] */
} Tape;

static Tape tape;

static gboolean tape_step(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  gsize d = proto_context_dim(ctx);
  SimLinvec *model = proto_node_model(node);
  double *before = g_memdup2(sim_linvec_const_data(model), d * sizeof(double));
  if (!proto_node_local_step(node, t, error))
    return FALSE;
  double *g = g_new(double, d);
  for (gsize i = 0; i < d; i++) /* theta - s g = after  =>  g = (before - after) / s */
    g[i] = (before[i] - sim_linvec_const_data(model)[i]) / proto_context_step_size(ctx);
  g_free(before);
  guint32 col = sim_lin_space_grad_column(proto_context_space(ctx), proto_node_id(node), t);
  g_hash_table_insert(tape.grads, GUINT_TO_POINTER(col), g);
  double *z = g_new(double, d);
  SimNoiseId k = proto_node_noise_local(node, 0.3, t, z, error);
  g_hash_table_insert(tape.zs, GUINT_TO_POINTER(k), z);
  return sim_linvec_add_noise(model, -proto_context_step_size(ctx), k, z, error) &&
         proto_node_exchange(node, t, sim_linvec_dup(model), error);
}

/* Only the step differs from D-SGD: start and gather are the runtime's. */
static const ProtoVTable tape_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "test-tape",
    .summary = "D-SGD that records its gradients and noise samples",
    .step = tape_step,
};

/* A protocol that asks for noise without a sample buffer: the run fails
 * with proto_node_noise_local's error; proto_node_noise_draw refuses the
 * same, and draws nothing for count 0. */
static gboolean nobuffer_start(ProtoNode *node, GError **error) {
  GError *err = NULL;
  g_assert_true(proto_node_noise_draw(node, NULL, 0, &err));
  g_assert_false(proto_node_noise_draw(node, NULL, 2, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "a buffer of 2 x 6 noise samples is required"));
  g_clear_error(&err);
  return proto_node_noise_local(node, 1.0, 0, NULL, error) != SIM_NOISE_ID_INVALID;
}

static const ProtoVTable nobuffer_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "test-nobuffer",
    .summary = "asks for noise samples without a buffer",
    .on_start = nobuffer_start,
};

static void test_noise_without_buffer(void) {
  GError *err = NULL;
  g_assert_true(proto_registry_register(&nobuffer_vtable, &err));
  TopoGraph *g = topo_graph_generate("ring:n=4", &err);
  g_assert_no_error(err);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "test-nobuffer";
  cfg.dataset = TRAIN_DATA;
  cfg.model = "linear";
  cfg.epochs = 1;
  cfg.batches = 2;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  g_assert_false(proto_run_run(run, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "a noise sample buffer of 6 values is required"));
  g_clear_error(&err);
  proto_run_free(run);
  topo_graph_free(g);
}

static void test_numbers_match_provenance(void) {
  GError *err = NULL;
  g_assert_true(proto_registry_register(&tape_vtable, &err));
  tape.grads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  tape.zs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  ProtoRun *run = train("test-tape", "deadline:ms=2", 1, 3, SIM_LIN_SPARSE);
  const double *init = proto_run_initial_params(run);
  gsize d = learn_model_n_params(proto_run_learn_model(run));
  g_assert_cmpuint(d, ==, 6);
  for (guint u = 0; u < proto_context_n_nodes(proto_run_context(run)); u++) {
    const SimLinvec *x = proto_run_node_model(run, u);
    double *eval = g_memdup2(init, d * sizeof(double)); /* weights sum to 1 every round */
    double *mag = g_new0(double, d);
    SimLinvecIter it;
    sim_linvec_iter_init(&it, x, SIM_LIN_BOTH);
    SimLinPart part;
    guint32 col;
    double c;
    while (sim_linvec_iter_next(&it, &part, &col, &c)) {
      const double *v = g_hash_table_lookup(part == SIM_LIN_GRAD ? tape.grads : tape.zs,
                                            GUINT_TO_POINTER(col));
      g_assert_nonnull(v);
      for (gsize i = 0; i < d; i++) {
        eval[i] += c * v[i];
        mag[i] += fabs(c * v[i]);
      }
    }
    for (gsize i = 0; i < d; i++)
      g_assert_cmpfloat_with_epsilon(sim_linvec_const_data(x)[i], eval[i],
                                     1e-12 * (mag[i] + fabs(init[i]) + 1.0));
    g_free(eval);
    g_free(mag);
  }
  proto_run_free(run);
  g_hash_table_destroy(tape.grads);
  g_hash_table_destroy(tape.zs);
}

static void expect_new_error(const char *dataset, const char *model, const char *graph,
                             GQuark domain, gint code, const char *fragment) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(graph, &err);
  g_assert_no_error(err);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.dataset = dataset;
  cfg.model = model;
  g_assert_null(proto_run_new(&cfg, &err));
  g_assert_error(err, domain, code);
  if (strstr(err->message, fragment) == NULL)
    g_error("'%s' lacks '%s'", err->message, fragment);
  g_clear_error(&err);
  topo_graph_free(g);
}

static void test_bad_inputs(void) {
  char *bad = test_data_path("proto-bad-cell.csv"), *tiny = test_data_path("proto-tiny.csv");
  char *bad_spec = g_strdup_printf("csv:%s", bad), *tiny_spec = g_strdup_printf("csv:%s", tiny);
  expect_new_error(bad_spec, NULL, "ring:n=3", LEARN_ERROR, LEARN_ERROR_FORMAT,
                   "proto-bad-cell.csv:4:4: field 2");
  /* 3 records, 2 of them for training: 3 nodes are too many. */
  expect_new_error(tiny_spec, NULL, "ring:n=3", PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                   "3 nodes but only 2 training records");
  expect_new_error(TRAIN_DATA, "softmax", "ring:n=3", LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                   "");
  expect_new_error("nosuch:x", NULL, "ring:n=3", LEARN_ERROR, LEARN_ERROR_PARSE, "nosuch");
  g_free(bad_spec);
  g_free(tiny_spec);
  g_free(bad);
  g_free(tiny);

  /* Configuration errors. */
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=3", &err);
  ProtoRunConfig cfg;
  const struct {
    const char *what;
    const char *fragment;
  } cases[] = {{"lr", "learning rate"},     {"clip", "clipping"},
               {"sigma", "sigma"},          {"threads", "threads"},
               {"topology", "exactly one"}, {"rounds", "differ from epochs"},
               {"latency", "latency"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    proto_run_config_init(&cfg);
    cfg.graph = g;
    const char *w = cases[i].what;
    if (!strcmp(w, "lr"))
      cfg.lr = 0.0;
    else if (!strcmp(w, "clip"))
      cfg.clip = -1.0;
    else if (!strcmp(w, "sigma"))
      cfg.sigma = NAN;
    else if (!strcmp(w, "threads"))
      cfg.threads = 0;
    else if (!strcmp(w, "topology"))
      cfg.graph = NULL;
    else if (!strcmp(w, "rounds")) {
      cfg.rounds = 5;
      cfg.epochs = 2;
      cfg.batches = 2;
    } else if (!strcmp(w, "latency"))
      cfg.latency = "constant:ms=-1";
    g_assert_null(proto_run_new(&cfg, &err));
    g_assert_nonnull(err);
    if (strstr(err->message, cases[i].fragment) == NULL)
      g_error("%s: '%s' lacks '%s'", w, err->message, cases[i].fragment);
    g_clear_error(&err);
  }
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/training/deterministic", test_deterministic);
  g_test_add_func("/training/storage_independent", test_storage_independent);
  g_test_add_func("/training/mf_blocked", test_mf_blocked);
  g_test_add_func("/training/numbers_match_provenance", test_numbers_match_provenance);
  g_test_add_func("/training/bad_inputs", test_bad_inputs);
  g_test_add_func("/training/noise_without_buffer", test_noise_without_buffer);
  return g_test_run();
}
