/*
 * tests/protocols/test_registry.c: the registry, protocol specs and their
 * errors, a third-party protocol written against protocols/plugin.h only
 * (timers, custom messages, the exchange), handler errors, bad C files,
 * and Mafalda's C taken from the privacy module's optimizer.
 */
#include "mf/mf.h"
#include "proto_test.h"

static void test_builtins_listed(void) {
  guint n = 0;
  const ProtoVTable **all = proto_registry_list(&n);
  const char *expect[] = {"antipgd", "decor", "dsgd", "mafalda", "mfdsgd", "muffliato", "zipdl"};
  g_assert_cmpuint(n, >=, G_N_ELEMENTS(expect));
  for (guint i = 0; i < G_N_ELEMENTS(expect); i++) {
    const ProtoVTable *vt = proto_registry_lookup(expect[i]);
    g_assert_nonnull(vt);
    g_assert_cmpstr(vt->name, ==, expect[i]);
    g_assert_cmpuint(vt->abi_version, ==, PROTO_PLUGIN_ABI_VERSION);
  }
  for (guint i = 1; i < n; i++)
    g_assert_cmpint(strcmp(all[i - 1]->name, all[i]->name), <, 0);
  /* The names an error offers: the list's, in its order, ", "-joined. */
  char *names = proto_registry_names();
  char **split = g_strsplit(names, ", ", -1);
  g_assert_cmpuint(g_strv_length(split), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr(split[i], ==, all[i]->name);
  g_strfreev(split);
  g_free(names);
  g_free(all);
  g_assert_null(proto_registry_lookup("nope"));
  char *help = proto_vtable_describe(proto_registry_lookup("muffliato"));
  g_assert_nonnull(strstr(help, "K=int (default 1, range [1, 1e+06])"));
  g_free(help);
}

static void expect_spec_error(const char *spec, gint code, const char *fragment) {
  const ProtoVTable *vt = NULL;
  ProtoParams *p = NULL;
  GError *err = NULL;
  g_assert_false(proto_spec_parse(spec, &vt, &p, &err));
  g_assert_error(err, PROTO_ERROR, code);
  if (strstr(err->message, fragment) == NULL)
    g_error("'%s': message '%s' lacks '%s'", spec, err->message, fragment);
  g_assert_null(p);
  g_clear_error(&err);
}

static void test_spec_errors(void) {
  expect_spec_error("gossipsgd", PROTO_ERROR_UNKNOWN, "valid: antipgd, decor, dsgd");
  expect_spec_error("", PROTO_ERROR_PARSE, "empty");
  expect_spec_error("muffliato:L=3", PROTO_ERROR_UNKNOWN, "unknown parameter 'L' (valid: K)");
  expect_spec_error("dsgd:K=3", PROTO_ERROR_UNKNOWN, "takes none");
  expect_spec_error("muffliato:K=three", PROTO_ERROR_PARSE, "must be an integer");
  expect_spec_error("muffliato:K=2.5", PROTO_ERROR_PARSE, "must be an integer");
  expect_spec_error("muffliato:K=0", PROTO_ERROR_INVALID_ARGUMENT, "out of range [1, 1000000]");
  expect_spec_error("muffliato:K=2,K=3", PROTO_ERROR_PARSE, "given twice");
  expect_spec_error("muffliato:K", PROTO_ERROR_PARSE, "expected key=value");
  expect_spec_error("decor:sigma_secret=-1", PROTO_ERROR_INVALID_ARGUMENT, "out of range");
  expect_spec_error("decor:sigma_secret=nan", PROTO_ERROR_PARSE, "finite number");

  const ProtoVTable *vt = NULL;
  ProtoParams *p = NULL;
  GError *err = NULL;
  g_assert_true(proto_spec_parse(" muffliato : K = 4 ", &vt, &p, &err));
  g_assert_no_error(err);
  g_assert_true(vt == proto_registry_lookup("muffliato"));
  g_assert_cmpint(proto_params_get_int(p, "K"), ==, 4);
  g_assert_true(proto_params_is_set(p, "K"));
  proto_params_free(p);
  g_assert_true(proto_spec_parse("decor", &vt, &p, &err));
  g_assert_false(proto_params_is_set(p, "sigma_secret"));
  g_assert_true(isnan(proto_params_get_double(p, "sigma_secret")));
  proto_params_free(p);
  g_assert_true(proto_spec_parse("mfdsgd:C=sr,band=3", &vt, &p, &err));
  g_assert_cmpstr(proto_params_get_string(p, "C"), ==, "sr");
  g_assert_cmpint(proto_params_get_int(p, "band"), ==, 3);
  /* A getter of the wrong type is a programming error. */
  g_test_expect_message("dpg-protocols", G_LOG_LEVEL_CRITICAL, "*is a string, not a int*");
  g_assert_cmpint(proto_params_get_int(p, "C"), ==, 0);
  g_test_assert_expected_messages();
  proto_params_free(p);
}

/* ---- A third-party protocol, written against plugin.h only ------------------
 * D-SGD without noise, but each node starts after a timer and first greets
 * its out-neighbours with a custom message. */

typedef struct {
  double delay_ms;
  gboolean greet;
} PlugRun;

typedef struct {
  guint greetings;
} PlugNode;

static const ProtoParamSpec plug_params[] = {
    {"delay_ms", PROTO_PARAM_DOUBLE, "1", 0, 1000, "start delay"},
    {"greet", PROTO_PARAM_BOOL, "yes", 1, 0, "send greetings"},
    {"label", PROTO_PARAM_STRING, "x", 1, 0, "unused"},
};

static gboolean plug_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                          GError **error) {
  (void)ctx;
  (void)error;
  PlugRun *r = g_new0(PlugRun, 1);
  r->delay_ms = proto_params_get_double(params, "delay_ms");
  r->greet = proto_params_get_bool(params, "greet");
  *run_state = r;
  return TRUE;
}

static gboolean plug_node_init(ProtoNode *node, gpointer run_state, gpointer *node_state,
                               GError **error) {
  (void)node;
  (void)run_state;
  (void)error;
  *node_state = g_new0(PlugNode, 1);
  return TRUE;
}

static gboolean plug_start(ProtoNode *node, GError **error) {
  const PlugRun *r = proto_context_run_state(proto_node_context(node));
  if (r->greet) {
    const guint *to;
    guint m = proto_node_out_neighbors(node, 0, &to, NULL, error);
    for (guint i = 0; i < m; i++)
      if (to[i] != proto_node_id(node) &&
          !proto_node_send(node, to[i], 0, 42, sim_linvec_dup(proto_node_model(node)), error))
        return FALSE;
  }
  return proto_node_set_timer(node, (SimTime)(r->delay_ms * SIM_TIME_MS), 7, error) !=
         SIM_EVENT_ID_NONE;
}

static gboolean plug_step(ProtoNode *node, guint t, GError **error) {
  return proto_node_local_step(node, t, error) &&
         proto_node_exchange(node, t, sim_linvec_dup(proto_node_model(node)), error);
}

static gboolean plug_timer(ProtoNode *node, guint64 tag, GError **error) {
  g_assert_cmpuint(tag, ==, 7);
  return plug_step(node, 0, error);
}

static gboolean plug_message(ProtoNode *node, SimMessage *msg, GError **error) {
  (void)error;
  g_assert_cmpuint(sim_message_tag(msg), ==, 42);
  ((PlugNode *)proto_node_state(node))->greetings++;
  return TRUE;
}

static gboolean plug_gathered(ProtoNode *node, guint round, guint n_inputs,
                              const ProtoInput *inputs, GError **error) {
  SimLinvec *model = proto_node_model(node);
  sim_linvec_zero(model);
  for (guint i = 0; i < n_inputs; i++) {
    g_assert_cmpuint(inputs[i].round, ==, round);
    if (i > 0)
      g_assert_cmpuint(inputs[i - 1].from, <, inputs[i].from);
    if (!sim_linvec_axpy(model, inputs[i].weight, inputs[i].payload, error))
      return FALSE;
  }
  if (round + 1 < proto_context_steps(proto_node_context(node)))
    return plug_step(node, round + 1, error);
  proto_node_done(node);
  return TRUE;
}

static const ProtoVTable plug_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "test-plugin",
    .summary = "a test protocol",
    .params = plug_params,
    .n_params = G_N_ELEMENTS(plug_params),
    .init = plug_init,
    .node_init = plug_node_init,
    .node_free = g_free,
    .on_start = plug_start,
    .on_timer = plug_timer,
    .on_message = plug_message,
    .on_gathered = plug_gathered,
    .finish = g_free,
};

static ProtoRun *run_protocol(const TopoGraph *g, const char *spec, guint T) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = spec;
  cfg.sigma = 0.0;
  cfg.rounds = T;
  cfg.latency = "constant:ms=2";
  GError *err = NULL;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  return run;
}

static void test_plugin(void) {
  GError *err = NULL;
  g_assert_true(proto_registry_register(&plug_vtable, &err));
  g_assert_no_error(err);
  g_assert_false(proto_registry_register(&plug_vtable, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "already registered"));
  g_clear_error(&err);

  TopoGraph *g = topo_graph_generate("karate", &err);
  g_assert_no_error(err);
  guint n = topo_graph_n_nodes(g), T = 3;
  ProtoRun *plug = run_protocol(g, "test-plugin:delay_ms=5,label=y", T);
  ProtoRun *ref = run_protocol(g, "dsgd", T);
  for (guint u = 0; u < n; u++) {
    ProtoNode *node = proto_context_node(proto_run_context(plug), u);
    g_assert_cmpuint(((PlugNode *)proto_node_state(node))->greetings, ==, topo_graph_degree(g, u));
    for (guint t = 0; t < T; t++)
      for (guint v = 0; v < n; v++)
        g_assert_cmpfloat(sim_linvec_grad_coeff(proto_run_node_model(plug, u), v, t), ==,
                          sim_linvec_grad_coeff(proto_run_node_model(ref, u), v, t));
  }
  ProtoRunStats a, b;
  proto_run_get_stats(plug, &a);
  proto_run_get_stats(ref, &b);
  g_assert_cmpuint(a.sim_time, ==, b.sim_time + 5 * SIM_TIME_MS);
  g_assert_cmpuint(a.engine.messages_sent, ==, b.engine.messages_sent + 2 * topo_graph_n_edges(g));
  proto_run_free(plug);
  proto_run_free(ref);
  topo_graph_free(g);
}

static gboolean failing_gathered(ProtoNode *node, guint round, guint n_inputs,
                                 const ProtoInput *inputs, GError **error) {
  if (round == 1 && proto_node_id(node) == 2) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "node 2 gives up at round 1");
    return FALSE;
  }
  return plug_gathered(node, round, n_inputs, inputs, error);
}

static gboolean skipping_gathered(ProtoNode *node, guint round, guint n_inputs,
                                  const ProtoInput *inputs, GError **error) {
  (void)n_inputs;
  (void)inputs;
  return proto_node_exchange(node, round + 2, sim_linvec_dup(proto_node_model(node)), error);
}

static gboolean idle_gathered(ProtoNode *node, guint round, guint n_inputs,
                              const ProtoInput *inputs, GError **error) {
  (void)node;
  (void)round;
  (void)n_inputs;
  (void)inputs;
  (void)error;
  return TRUE; /* neither exchanges nor finishes */
}

static void test_handler_errors(void) {
  static ProtoVTable failing, skipping, idle;
  failing = plug_vtable;
  failing.name = "test-failing";
  failing.on_gathered = failing_gathered;
  skipping = plug_vtable;
  skipping.name = "test-skipping";
  skipping.on_gathered = skipping_gathered;
  idle = plug_vtable;
  idle.name = "test-idle";
  idle.on_gathered = idle_gathered;
  GError *err = NULL;
  g_assert_true(proto_registry_register(&failing, &err));
  g_assert_true(proto_registry_register(&skipping, &err));
  g_assert_true(proto_registry_register(&idle, &err));
  g_assert_no_error(err);
  TopoGraph *g = topo_graph_generate("ring:n=5", &err);
  const struct {
    const char *spec;
    gint code;
    const char *fragment;
  } cases[] = {{"test-failing", PROTO_ERROR_FAILED, "node 2 gives up at round 1"},
               {"test-skipping", PROTO_ERROR_INVALID_ARGUMENT, "exchange of round 2 out of order"},
               {"test-idle", PROTO_ERROR_STALLED, "neither exchanged nor called proto_node_done"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    ProtoRunConfig cfg;
    proto_run_config_init(&cfg);
    cfg.graph = g;
    cfg.protocol = cases[i].spec;
    cfg.rounds = 4;
    ProtoRun *run = proto_run_new(&cfg, &err);
    g_assert_no_error(err);
    g_assert_false(proto_run_run(run, &err));
    g_assert_error(err, PROTO_ERROR, cases[i].code);
    if (strstr(err->message, cases[i].fragment) == NULL)
      g_error("%s: '%s' lacks '%s'", cases[i].spec, err->message, cases[i].fragment);
    g_clear_error(&err);
    g_assert_false(proto_run_run(run, &err)); /* only once */
    g_clear_error(&err);
    proto_run_free(run);
  }
  topo_graph_free(g);
}

static void test_register_rejects(void) {
  static ProtoVTable v2, noname, noinit, baddefault, dupparam;
  static const ProtoParamSpec bad_default[] = {{"K", PROTO_PARAM_INT, "abc", 1, 10, ""}};
  static const ProtoParamSpec out_of_range[] = {{"K", PROTO_PARAM_INT, "20", 1, 10, ""}};
  static const ProtoParamSpec dup[] = {{"a", PROTO_PARAM_BOOL, "no", 1, 0, ""},
                                       {"a", PROTO_PARAM_BOOL, "no", 1, 0, ""}};
  v2 = plug_vtable;
  v2.abi_version = PROTO_PLUGIN_ABI_VERSION + 1;
  v2.name = "test-v2";
  noname = plug_vtable;
  noname.name = "bad name";
  noinit = plug_vtable;
  noinit.name = "test-noinit";
  noinit.init = NULL;
  noinit.abi_version = 1; /* since version 2 a NULL init means no run state */
  baddefault = plug_vtable;
  baddefault.name = "test-baddefault";
  baddefault.params = bad_default;
  baddefault.n_params = 1;
  dupparam = plug_vtable;
  dupparam.name = "test-dup";
  dupparam.params = dup;
  dupparam.n_params = 2;
  const struct {
    const ProtoVTable *vt;
    const char *fragment;
  } cases[] = {{&v2, "ABI version"},
               {&noname, "invalid"},
               {&noinit, "no init"},
               {&baddefault, "integer"},
               {&dupparam, "declared twice"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    GError *err = NULL;
    g_assert_false(proto_registry_register(cases[i].vt, &err));
    g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
    if (strstr(err->message, cases[i].fragment) == NULL)
      g_error("'%s' lacks '%s'", err->message, cases[i].fragment);
    g_clear_error(&err);
  }
  baddefault.params = out_of_range;
  GError *err = NULL;
  g_assert_false(proto_registry_register(&baddefault, &err));
  g_assert_nonnull(strstr(err->message, "out of range"));
  g_clear_error(&err);
}

/* The protocol spec "mfdsgd:C=PATH" of test data file @file (g_free). */
static char *c_file_spec(const char *file) {
  char *path = test_data_path(file);
  char *spec = g_strdup_printf("mfdsgd:C=%s", path);
  g_free(path);
  return spec;
}

/* C files: wrong size, not lower triangular, not numeric, singular. */
static void test_c_file_errors(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=4", &err);
  const struct {
    const char *file;
    gint code;
    const char *fragment;
  } cases[] = {
      {"proto-c-2x2.csv", PROTO_ERROR_FORMAT, "proto-c-2x2.csv: C is 2 x 2, expected 3 x 3"},
      {"proto-c-ragged.csv", PROTO_ERROR_FORMAT,
       "proto-c-ragged.csv:2: 2 values where the rows above have 3"},
      {"proto-c-upper.csv", PROTO_ERROR_FORMAT, "proto-c-upper.csv:2:3: C[1,2] = 0.1 lies above"},
      {"proto-c-nonnumeric.csv", PROTO_ERROR_FORMAT,
       "proto-c-nonnumeric.csv:2:2: not a finite number: 'x'"},
      {"proto-c-zero-diag.csv", PROTO_ERROR_FORMAT, "proto-c-zero-diag.csv:2:2: C[1,1] = 0"},
      {"proto-missing.csv", PROTO_ERROR_IO, "neither a family"},
  };
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.rounds = 3;
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *spec = c_file_spec(cases[i].file);
    cfg.protocol = spec;
    g_assert_null(proto_run_new(&cfg, &err));
    g_assert_error(err, PROTO_ERROR, cases[i].code);
    if (strstr(err->message, cases[i].fragment) == NULL)
      g_error("%s: '%s' lacks '%s'", cases[i].file, err->message, cases[i].fragment);
    g_clear_error(&err);
    g_free(spec);
  }
  /* The right size in 3 rounds, the wrong one in 4. */
  char *spec = c_file_spec("proto-c-lower3.csv");
  cfg.protocol = spec;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  proto_run_free(run);
  cfg.rounds = 4;
  g_assert_null(proto_run_new(&cfg, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_FORMAT);
  g_assert_nonnull(strstr(err->message, "C is 3 x 3, expected 4 x 4"));
  g_clear_error(&err);
  g_free(spec);
  topo_graph_free(g);
}

/* Mafalda: the run's C is mf_optimize's on this graph's post-average
 * H, and its noise std is sigma Delta (sens = 1 by construction). */
static void test_mafalda(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  guint n = topo_graph_n_nodes(g), k = 2, b = 3, T = 6;
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  double *W = topo_gossip_dense(w);
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, &err);
  g_assert_no_error(err);
  MfResult *res = NULL;
  g_assert_true(mf_optimize(H, T, k, b, NULL, &res, &err));
  g_assert_no_error(err);

  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "mafalda";
  cfg.sigma = 2.0;
  cfg.clip = 0.5;
  cfg.lr = 0.1;
  cfg.epochs = k;
  cfg.batches = b;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  g_assert_true(proto_run_run(run, &err));
  SimNoiseRegistry *reg = proto_context_noise(proto_run_context(run));
  g_assert_cmpuint(sim_noise_registry_count(reg), ==, n * T);
  g_assert_cmpfloat_with_epsilon(sim_noise_std(reg, 0), 2.0 * 0.5, 1e-6);
  /* Node u's final model: noise of node u's step s enters it through
   * sum_t P(T, t)[u,u] C^-1[t, s]; check the node's own variables. */
  double **Wr = dense_rounds(g, TOPO_GOSSIP_UNIFORM, NULL, T);
  Products P = products_new(Wr, n, T);
  /* C^-1 by forward substitution on the optimizer's C. */
  double *Ci = g_new0(double, T *T);
  for (guint j = 0; j < T; j++)
    for (guint i = j; i < T; i++) {
      double s = i == j ? 1.0 : 0.0;
      for (guint q = j; q < i; q++)
        s -= res->C[i * T + q] * Ci[q * T + j];
      Ci[i * T + j] = s / res->C[i * T + i];
    }
  double nu = sim_noise_std(reg, 0);
  for (guint u = 0; u < n; u++)
    for (SimNoiseId z = 0; z < sim_noise_registry_count(reg); z++) {
      guint v = sim_noise_node(reg, z), s = sim_noise_round(reg, z);
      double want = 0.0;
      for (guint t = s; t < T; t++)
        want += products_get(&P, T, t, u, v) * Ci[t * T + s];
      want *= -0.1 * nu;
      g_assert_cmpfloat_with_epsilon(sim_linvec_noise_coeff(proto_run_node_model(run, u), z), want,
                                     1e-10);
    }
  g_free(Ci);
  products_free(&P);
  dense_rounds_free(Wr, T);
  proto_run_free(run);
  mf_result_free(res);
  g_free(H);
  g_free(W);
  topo_gossip_free(w);
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/registry/builtins", test_builtins_listed);
  g_test_add_func("/registry/spec_errors", test_spec_errors);
  g_test_add_func("/registry/plugin", test_plugin);
  g_test_add_func("/registry/handler_errors", test_handler_errors);
  g_test_add_func("/registry/register_rejects", test_register_rejects);
  g_test_add_func("/registry/c_file_errors", test_c_file_errors);
  g_test_add_func("/registry/mafalda", test_mafalda);
  return g_test_run();
}
