/*
 * tests/plugins/test_load.c: protocol plugins loaded at run time.
 *   - the example plugin (examples/plugin-gossip-pairs, built in-tree) loads,
 *     registers, parses its parameters, and loads once per file;
 *   - bad plugins are refused with the reason and nothing registered:
 *     missing file, directory, not a shared object, no entry point, NULL
 *     vtable, another ABI version, missing mandatory handler, parameter
 *     specs that do not parse, a built-in's name, another plugin's name, an
 *     undefined symbol;
 *   - the search path ($DPGOSSIP_PLUGIN_PATH, then the install folders):
 *     NAME.so first, then any *.so exporting NAME, through proto_spec_parse;
 *   - every function of the plugin API is exported by a program that links
 *     the loader (checked against the headers' declarations);
 *   - handlers that are mandatory once used (on_timer, on_message, and
 *     on_gathered in ABI version 1) fail with a clear error;
 *   - a plugin of ABI version 1 still loads and runs as it did: the same
 *     numbers as dsgd and as tiny-dsgd (every handler the default), and
 *     its messages' linvec read through sim_message_payload;
 *   - accounting for free: the observer's PNDP accounting of the plugin's
 *     runs equals the structured formula (pairwise mode on the matchings it
 *     used, neighbors mode and tiny-dsgd on the static gossip matrix).
 */
#include <stdlib.h>

#include <gmodule.h>

#include "plugin_test.h"
#include "tests/common/files.h"

#define TAG_PAIR 1 /* gossip_pairs.c's message tag */

static char *plugin_path(const char *name) {
  char *file = g_strdup_printf("%s." G_MODULE_SUFFIX, name);
  char *path = g_build_filename(DPG_TEST_PLUGIN_DIR, file, NULL);
  g_free(file);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  return path;
}

static const ProtoVTable *load_ok(const char *name) {
  char *path = plugin_path(name);
  const ProtoVTable *vt = NULL;
  GError *err = NULL;
  g_assert_true(proto_plugin_load(path, &vt, &err));
  g_assert_no_error(err);
  g_free(path);
  return vt;
}

static TopoGraph *graph(const char *spec) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(spec, &err);
  g_assert_no_error(err);
  return g;
}

static void test_load_example(void) {
  const ProtoVTable *vt = load_ok("gossip-pairs");
  g_assert_cmpstr(vt->name, ==, "gossip-pairs");
  g_assert_cmpuint(vt->abi_version, ==, PROTO_PLUGIN_ABI_VERSION);
  g_assert_cmpuint(vt->n_params, ==, 2);
  g_assert_true(proto_registry_lookup("gossip-pairs") == vt);
  g_assert_false(proto_registry_is_builtin(vt));
  g_assert_true(proto_registry_is_builtin(proto_registry_lookup("dsgd")));
  g_assert_null(proto_plugin_origin(proto_registry_lookup("dsgd")));

  /* Origin: the canonical path; a second load of the same file (through
   * another spelling) returns the same vtable. */
  char *path = plugin_path("gossip-pairs");
  char *real = realpath(path, NULL);
  g_assert_cmpstr(proto_plugin_origin(vt), ==, real);
  char *other = g_strdup_printf("%s/../plugins/./gossip-pairs." G_MODULE_SUFFIX,
                                DPG_TEST_PLUGIN_DIR);
  const ProtoVTable *again = NULL;
  GError *err = NULL;
  g_assert_true(proto_plugin_load(other, &again, &err));
  g_assert_true(again == vt);
  g_assert_true(proto_plugin_find("gossip-pairs", &again, &err) && again == vt);
  g_free(other);
  free(real);
  g_free(path);

  char *help = proto_vtable_describe(vt);
  g_assert_nonnull(strstr(help, "timeout_ms=number (default 0, range [0, 1e+09])"));
  g_free(help);

  ProtoParams *p = NULL;
  g_assert_true(proto_spec_parse("gossip-pairs:mode=neighbors,timeout_ms=2.5", &vt, &p, &err));
  g_assert_cmpstr(proto_params_get_string(p, "mode"), ==, "neighbors");
  g_assert_cmpfloat(proto_params_get_double(p, "timeout_ms"), ==, 2.5);
  proto_params_free(p);
  g_assert_false(proto_spec_parse("gossip-pairs:timeout_ms=-1", &vt, &p, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);

  /* The plugin's own init errors reach the caller. */
  TopoGraph *g = graph("ring:n=4");
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "gossip-pairs:mode=triples";
  cfg.rounds = 2;
  g_assert_null(proto_run_new(&cfg, &err));
  g_assert_nonnull(err);
  g_assert_nonnull(strstr(err->message, "unknown mode 'triples' (valid: pairs, neighbors)"));
  g_clear_error(&err);
  topo_graph_free(g);
}

static void expect_refused(const char *path, gint code, const char *fragment) {
  GError *err = NULL;
  const ProtoVTable *vt = (const ProtoVTable *)&err; /* must stay untouched */
  guint before = 0;
  g_free(proto_registry_list(&before));
  g_assert_false(proto_plugin_load(path, &vt, &err));
  g_assert_true(vt == (const ProtoVTable *)&err);
  g_assert_error(err, PROTO_ERROR, code);
  if (strstr(err->message, fragment) == NULL)
    g_error("%s: message '%s' lacks '%s'", path, err->message, fragment);
  if (path != NULL && *path != '\0' && strstr(err->message, path) == NULL)
    g_error("message '%s' does not name the file %s", err->message, path);
  g_clear_error(&err);
  guint after = 0;
  g_free(proto_registry_list(&after));
  g_assert_cmpuint(after, ==, before);
}

static void test_refused(void) {
  const struct {
    const char *name;
    gint code;
    const char *fragment;
  } cases[] = {
      {"bad-no-symbol", PROTO_ERROR_FORMAT,
       "is not a dpgossip protocol plugin: it does not export the function "
       "'proto_plugin_vtable'"},
      {"bad-null-vtable", PROTO_ERROR_INVALID_ARGUMENT, "proto_plugin_vtable() returned NULL"},
      {"bad-abi", PROTO_ERROR_INVALID_ARGUMENT,
       "was built for plugin ABI version 4, but this dpgossip speaks version 3: rebuild it"},
      {"bad-no-start", PROTO_ERROR_INVALID_ARGUMENT,
       "protocol 'bad-no-start' has no on_start handler (init and on_start are mandatory)"},
      {"bad-no-init", PROTO_ERROR_INVALID_ARGUMENT, "has no init handler"},
      {"bad-param-type", PROTO_ERROR_INVALID_ARGUMENT, "parameter x has an unknown type 42"},
      {"bad-param-default", PROTO_ERROR_INVALID_ARGUMENT,
       "bad default: bad-param-default: parameter K must be an integer, not 'abc'"},
      {"bad-param-range", PROTO_ERROR_INVALID_ARGUMENT, "K=20 is out of range [1, 10]"},
      {"bad-param-dup", PROTO_ERROR_INVALID_ARGUMENT, "parameter a is declared twice"},
      {"bad-builtin-name", PROTO_ERROR_INVALID_ARGUMENT,
       "protocol 'dsgd' clashes with the built-in protocol of that name"},
      {"bad-undefined", PROTO_ERROR_FORMAT, "undefined symbol: proto_node_teleport"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *path = plugin_path(cases[i].name);
    expect_refused(path, cases[i].code, cases[i].fragment);
    expect_refused(path, cases[i].code, cases[i].fragment); /* and again */
    g_free(path);
    g_assert_null(proto_registry_lookup(cases[i].name));
  }

  char *dir = test_tmpdir("plugins");
  char *missing = g_build_filename(dir, "missing.so", NULL);
  expect_refused(missing, PROTO_ERROR_IO, "no such file");
  expect_refused(dir, PROTO_ERROR_IO, "is a directory, not a shared object");
  char *text = g_build_filename(dir, "fake.so", NULL);
  g_assert_true(g_file_set_contents(text, "not an ELF file\n", -1, NULL));
  expect_refused(text, PROTO_ERROR_FORMAT, "cannot be loaded as a shared object");
  expect_refused("", PROTO_ERROR_INVALID_ARGUMENT, "empty plugin path");

  /* Another file providing a protocol already loaded from a plugin. */
  load_ok("gossip-pairs");
  char *original = plugin_path("gossip-pairs");
  char *copy = g_build_filename(dir, "copy.so", NULL);
  pt_copy(original, copy);
  expect_refused(copy, PROTO_ERROR_INVALID_ARGUMENT, "is already provided by plugin");
  test_rmtree(dir);
  g_free(original);
  g_free(copy);
  g_free(text);
  g_free(missing);
  g_free(dir);
}

/* Runs the calling test in a fresh process (the registry is process-wide). */
static gboolean in_subprocess(void) {
  if (g_test_subprocess())
    return TRUE;
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed();
  return FALSE;
}

static void test_search_path(void) {
  if (!in_subprocess())
    return;
  char *a = test_tmpdir("plugins-a"), *b = test_tmpdir("plugins-b");
  char *env = g_strdup_printf("%s::%s", a, b);
  g_setenv(PROTO_PLUGIN_PATH_ENV, env, TRUE);
  char **dirs = proto_plugin_search_path();
  g_assert_cmpstr(dirs[0], ==, a);
  g_assert_cmpstr(dirs[1], ==, b);
  g_assert_nonnull(dirs[2]);
  g_assert_true(g_str_has_suffix(dirs[g_strv_length(dirs) - 1], "/dpgossip/plugins"));
  g_strfreev(dirs);

  /* a: a text file and a plugin of another ABI; b: tiny-dsgd under another name. */
  char *broken = g_build_filename(a, "broken.so", NULL), *abi = g_build_filename(a, "aaa.so", NULL);
  char *renamed = g_build_filename(b, "renamed.so", NULL);
  g_assert_true(g_file_set_contents(broken, "garbage", -1, NULL));
  char *src = plugin_path("bad-abi");
  pt_copy(src, abi);
  g_free(src);
  src = plugin_path("tiny-dsgd");
  pt_copy(src, renamed);
  g_free(src);

  const ProtoVTable *vt = NULL;
  ProtoParams *params = NULL;
  GError *err = NULL;
  g_assert_null(proto_registry_lookup("tiny-dsgd"));
  g_assert_true(proto_spec_parse("tiny-dsgd", &vt, &params, &err));
  g_assert_no_error(err);
  g_assert_cmpstr(vt->name, ==, "tiny-dsgd");
  g_assert_true(g_str_has_suffix(proto_plugin_origin(vt), "/renamed.so"));
  proto_params_free(params);

  g_assert_false(proto_plugin_find("nothing-here", &vt, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_UNKNOWN);
  const char *frags[] = {"no plugin provides protocol 'nothing-here'",
                         a,
                         b,
                         "broken.so",
                         "aaa.so was built for plugin ABI version 4",
                         "DPGOSSIP_PLUGIN_PATH"};
  for (guint i = 0; i < G_N_ELEMENTS(frags); i++)
    if (strstr(err->message, frags[i]) == NULL)
      g_error("'%s' lacks '%s'", err->message, frags[i]);
  g_clear_error(&err);
  g_assert_false(proto_spec_parse("nothing-here:x=1", &vt, &params, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_UNKNOWN);
  g_assert_nonnull(strstr(err->message, "unknown protocol 'nothing-here' (valid: antipgd"));
  g_assert_nonnull(strstr(err->message, "tiny-dsgd"));
  g_clear_error(&err);
  /* Names that cannot be file names are never looked up on disk. */
  g_assert_false(proto_plugin_find("../aaa", &vt, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_UNKNOWN);
  g_clear_error(&err);

  GPtrArray *failures = proto_plugin_load_all();
  g_assert_cmpuint(failures->len, ==, 2);
  g_assert_true(g_str_has_suffix(((ProtoPluginFailure *)failures->pdata[0])->path, "aaa.so"));
  g_assert_true(g_str_has_suffix(((ProtoPluginFailure *)failures->pdata[1])->path, "broken.so"));
  g_ptr_array_unref(failures);
  test_rmtree(a);
  test_rmtree(b);
  g_free(broken);
  g_free(abi);
  g_free(renamed);
  g_free(env);
  g_free(a);
  g_free(b);
}

/* NAME.so is tried before any other file, and a broken NAME.so is reported. */
static void test_name_convention(void) {
  if (!in_subprocess())
    return;
  char *dir = test_tmpdir("plugins-c");
  g_setenv(PROTO_PLUGIN_PATH_ENV, dir, TRUE);
  char *pairs = g_build_filename(dir, "aaa-other.so", NULL),
       *tiny = g_build_filename(dir, "tiny-dsgd.so", NULL);
  char *broken = g_build_filename(dir, "broken-name.so", NULL);
  char *src = plugin_path("gossip-pairs");
  pt_copy(src, pairs);
  g_free(src);
  src = plugin_path("tiny-dsgd");
  pt_copy(src, tiny);
  g_free(src);
  g_assert_true(g_file_set_contents(broken, "garbage", -1, NULL));

  const ProtoVTable *vt = NULL;
  GError *err = NULL;
  g_assert_true(proto_plugin_find("tiny-dsgd", &vt, &err));
  g_assert_cmpstr(vt->name, ==, "tiny-dsgd");
  g_assert_null(proto_registry_lookup("gossip-pairs")); /* aaa-other.so never opened */

  ProtoParams *params = NULL;
  g_assert_false(proto_spec_parse("broken-name", &vt, &params, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_FORMAT);
  g_assert_nonnull(strstr(err->message, "broken-name.so cannot be loaded as a shared object"));
  g_clear_error(&err);

  GPtrArray *failures = proto_plugin_load_all();
  g_assert_cmpuint(failures->len, ==, 1);
  g_ptr_array_unref(failures);
  vt = proto_registry_lookup("gossip-pairs");
  g_assert_nonnull(vt);
  g_assert_true(g_str_has_suffix(proto_plugin_origin(vt), "/aaa-other.so"));
  test_rmtree(dir);
  g_free(pairs);
  g_free(tiny);
  g_free(broken);
  g_free(dir);
}

/* The function names a header declares at the start of a line with one of
 * @prefixes (declarations start in column 0 in this code base). */
static GPtrArray *declared(const char *header, const char *const *prefixes) {
  char *path = g_build_filename(g_getenv("DPG_SOURCE_DIR"), header, NULL);
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  GRegex *re = g_regex_new("^[A-Za-z][^;(){}]*?\\b([a-z][a-z0-9_]*)\\(", G_REGEX_MULTILINE, 0,
                           NULL);
  GMatchInfo *m = NULL;
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  g_regex_match(re, text, 0, &m);
  while (g_match_info_matches(m)) {
    char *name = g_match_info_fetch(m, 1);
    gboolean keep = FALSE;
    for (guint i = 0; prefixes[i] != NULL && !keep; i++)
      keep = g_str_has_prefix(name, prefixes[i]);
    if (keep && strcmp(name, "proto_plugin_vtable") != 0)
      g_ptr_array_add(names, name);
    else
      g_free(name);
    g_match_info_next(m, NULL);
  }
  g_match_info_free(m);
  g_regex_unref(re);
  g_free(text);
  g_free(path);
  return names;
}

static void test_api_exported(void) {
  GModule *self = g_module_open(NULL, 0);
  g_assert_nonnull(self);
  const char *plugin_prefixes[] = {"proto_", NULL};
  const char *sim_prefixes[] = {"sim_linvec_",  "sim_lin_space_",  "sim_noise_",
                                "sim_message_", "sim_rng_stream_", NULL};
  GPtrArray *lists[] = {
      declared("protocols/plugin.h", plugin_prefixes), declared("sim/linvec.h", sim_prefixes),
      declared("sim/noise.h", sim_prefixes), declared("sim/message.h", sim_prefixes),
      declared("sim/rng.h", sim_prefixes)};
  guint total = 0;
  for (guint l = 0; l < G_N_ELEMENTS(lists); l++) {
    for (guint i = 0; i < lists[l]->len; i++) {
      gpointer sym = NULL;
      if (!g_module_symbol(self, lists[l]->pdata[i], &sym))
        g_error("%s is declared for plugins but not exported", (char *)lists[l]->pdata[i]);
      total++;
    }
    g_ptr_array_unref(lists[l]);
  }
  g_assert_cmpuint(total, >=, 90); /* the parse found the API, not nothing */
  g_module_close(self);
}

/* ---- Handlers that become mandatory once used ------------------------------ */

static gboolean h_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                       GError **error) {
  (void)ctx;
  (void)params;
  (void)error;
  *run_state = NULL;
  return TRUE;
}

static gboolean h_exchange(ProtoNode *node, GError **error) {
  return proto_node_exchange(node, 0, sim_linvec_dup(proto_node_model(node)), error);
}

static gboolean h_timer(ProtoNode *node, GError **error) {
  return proto_node_set_timer(node, SIM_TIME_MS, 1, error) != SIM_EVENT_ID_NONE;
}

static gboolean h_send(ProtoNode *node, GError **error) {
  return proto_node_send(node, (proto_node_id(node) + 1) % 3, 0, 5,
                         sim_linvec_dup(proto_node_model(node)), error);
}

static void test_conditional_handlers(void) {
  static ProtoVTable vts[3];
  gboolean (*starts[3])(ProtoNode *, GError **) = {h_exchange, h_timer, h_send};
  const char *names[] = {"test-no-gathered", "test-no-timer", "test-no-message"};
  const char *frags[] = {"exchanges but has no on_gathered handler",
                         "sets a timer but has no on_timer handler",
                         "sends messages but has no on_message handler"};
  TopoGraph *g = graph("ring:n=3");
  for (guint i = 0; i < 3; i++) {
    /* Since version 2 a NULL on_gathered is the default gather: only a
     * version-1 protocol can exchange without one. */
    vts[i] = (ProtoVTable){.abi_version = i == 0 ? 1 : PROTO_PLUGIN_ABI_VERSION,
                           .name = names[i],
                           .init = h_init,
                           .on_start = starts[i]};
    GError *err = NULL;
    g_assert_true(proto_registry_register(&vts[i], &err));
    ProtoRunConfig cfg;
    proto_run_config_init(&cfg);
    cfg.graph = g;
    cfg.protocol = names[i];
    cfg.rounds = 2;
    ProtoRun *run = proto_run_new(&cfg, &err);
    g_assert_no_error(err);
    g_assert_false(proto_run_run(run, &err));
    g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
    if (strstr(err->message, frags[i]) == NULL)
      g_error("'%s' lacks '%s'", err->message, frags[i]);
    g_clear_error(&err);
    proto_run_free(run);
  }
  topo_graph_free(g);
}

/* ---- Plugin ABI version 1 -------------------------------------------------- */

static ProtoRun *train_run(const TopoGraph *g, const char *spec, guint64 seed) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = spec;
  cfg.dataset = "synthetic:linear,n=300,d=4";
  cfg.epochs = 2;
  cfg.batches = 2;
  cfg.seed = seed;
  cfg.latency = "uniform:min=1,max=3";
  GError *err = NULL;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  return run;
}

/* abi1-dsgd (version 1: its own skeleton), tiny-dsgd (version 2: the
 * runtime's) and the built-in dsgd train the same models, numbers and
 * provenance, bit for bit; with greet=yes the version-1 plugin's
 * on_message finds the sender's model in sim_message_payload. */
static void test_abi1(void) {
  const ProtoVTable *vt = load_ok("abi1-dsgd");
  g_assert_cmpuint(vt->abi_version, ==, 1);
  g_assert_cmpstr(vt->name, ==, "abi1-dsgd");
  g_assert_cmpuint(vt->n_params, ==, 1);
  g_assert_nonnull(vt->on_start);
  g_assert_null(vt->step); /* beyond version 1's vtable: zeroed, never read */
  g_assert_null(vt->noise);
  g_assert_true(load_ok("abi1-dsgd") == vt);
  load_ok("tiny-dsgd");
  TopoGraph *g = graph("karate");
  guint n = topo_graph_n_nodes(g);
  ProtoRun *ref = train_run(g, "dsgd", 3);
  const char *specs[] = {"abi1-dsgd", "tiny-dsgd"};
  for (guint s = 0; s < G_N_ELEMENTS(specs); s++) {
    ProtoRun *run = train_run(g, specs[s], 3);
    for (guint u = 0; u < n; u++) {
      const SimLinvec *a = proto_run_node_model(run, u), *b = proto_run_node_model(ref, u);
      gsize d = sim_linvec_dim(a);
      g_assert_cmpuint(d, ==, 5);
      g_assert_cmpmem(sim_linvec_const_data(a), d * sizeof(double), sim_linvec_const_data(b),
                      d * sizeof(double));
      for (guint v = 0; v < n; v++)
        for (guint t = 0; t < 4; t++)
          g_assert_cmpfloat(sim_linvec_grad_coeff(a, v, t), ==, sim_linvec_grad_coeff(b, v, t));
    }
    proto_run_free(run);
  }
  ProtoRunStats plain, greeted;
  proto_run_get_stats(ref, &plain);
  ProtoRun *run = train_run(g, "abi1-dsgd:greet=yes", 3);
  proto_run_get_stats(run, &greeted);
  g_assert_cmpuint(greeted.engine.messages_delivered, ==, plain.engine.messages_delivered + n);
  proto_run_free(run);
  proto_run_free(ref);
  topo_graph_free(g);
}

/* ---- Accounting for free ------------------------------------------------- */

static const guint attackers[] = {0, 7, 11};

/* mode=pairs: D-SGD on the matchings it drew, whatever they were. */
static void test_accounting_pairs(void) {
  load_ok("gossip-pairs");
  TopoGraph *g = graph("florentine");
  PtObserved o = pt_run_observed(g, "gossip-pairs", 6, attackers, G_N_ELEMENTS(attackers), 3, NULL);
  guint finite = pt_check_pairs_accounting(&o, g, attackers, G_N_ELEMENTS(attackers), TAG_PAIR,
                                           TRUE);
  g_assert_cmpuint(finite, >, 0);
  /* Each message swapped is one row the receiving attacker sees, nothing else. */
  for (guint i = 0; i < G_N_ELEMENTS(attackers); i++) {
    guint got = 0;
    for (guint j = 0; j < o.delivered->len; j++)
      got += g_array_index(o.delivered, PtMsg, j).to == attackers[i];
    g_assert_cmpuint(priv_observer_n_rows(o.obs, i), ==, got);
  }
  /* Another seed draws other matchings, hence another accounting. */
  PtObserved o2 = pt_run_observed(g, "gossip-pairs", 6, attackers, 1, 4, NULL);
  gboolean differ = FALSE;
  for (guint j = 0; j < MIN(o.delivered->len, o2.delivered->len) && !differ; j++) {
    const PtMsg *x = &g_array_index(o.delivered, PtMsg, j),
                *y = &g_array_index(o2.delivered, PtMsg, j);
    differ = x->from != y->from || x->to != y->to;
  }
  g_assert_true(differ || o.delivered->len != o2.delivered->len);
  pt_check_pairs_accounting(&o2, g, attackers, 1, TAG_PAIR, TRUE);
  pt_observed_clear(&o2);
  pt_observed_clear(&o);
  topo_graph_free(g);
}

/* mode=neighbors and tiny-dsgd are DP-D-SGD: the static-W formula. */
static void test_accounting_dsgd(void) {
  load_ok("gossip-pairs");
  load_ok("tiny-dsgd");
  load_ok("abi1-dsgd");
  TopoGraph *g = graph("florentine");
  GError *err = NULL;
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  const char *specs[] = {"gossip-pairs:mode=neighbors", "tiny-dsgd", "abi1-dsgd", "dsgd"};
  guint T = 5;
  for (guint s = 0; s < G_N_ELEMENTS(specs); s++) {
    PtObserved o = pt_run_observed(g, specs[s], T, attackers, G_N_ELEMENTS(attackers), 1, NULL);
    for (guint i = 0; i < G_N_ELEMENTS(attackers); i++) {
      PrivBlocks *obs = pt_observer_blocks(&o, i);
      PrivBlocks *fast = pt_structured_dsgd(&w, 1, T, attackers[i]);
      double diff = blocks_rel_diff(obs, fast);
      if (diff > 1e-8)
        g_error("%s, attacker %u: blocks differ by %g", specs[s], attackers[i], diff);
      g_assert_cmpuint(pt_reports_agree(obs, fast, g), >, 0);
      priv_blocks_free(obs);
      priv_blocks_free(fast);
    }
    pt_observed_clear(&o);
  }
  topo_graph_free(g);
  topo_gossip_free(w);
}

/* Lossy links: without a timeout a lost message stalls the pair; with one,
 * the run completes and each attacker's view holds exactly the messages
 * that reached it. */
static void test_pairs_lossy(void) {
  load_ok("gossip-pairs");
  TopoGraph *g = graph("florentine");
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "gossip-pairs";
  cfg.rounds = 6;
  cfg.loss = "0.3";
  cfg.mode = "deadline:ms=1000";
  GError *err = NULL;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  g_assert_false(proto_run_run(run, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_STALLED);
  g_clear_error(&err);
  proto_run_free(run);

  PtObserved o = pt_run_observed(g, "gossip-pairs:timeout_ms=5", 6, attackers,
                                 G_N_ELEMENTS(attackers), 2, "0.3");
  ProtoRunStats st;
  proto_run_get_stats(o.run, &st);
  g_assert_cmpuint(st.engine.messages_dropped, >, 0);
  g_assert_cmpuint(st.engine.messages_delivered, ==, o.delivered->len);
  for (guint i = 0; i < G_N_ELEMENTS(attackers); i++) {
    guint got = 0;
    for (guint j = 0; j < o.delivered->len; j++)
      got += g_array_index(o.delivered, PtMsg, j).to == attackers[i];
    g_assert_cmpuint(priv_observer_n_rows(o.obs, i), ==, got);
    PrivBlocks *b = pt_observer_blocks(&o, i);
    g_assert_cmpint(b->status[attackers[i]], ==, PRIV_NODE_ATTACKER);
    priv_blocks_free(b);
  }
  pt_observed_clear(&o);
  topo_graph_free(g);
}

/* A thread without a scope (a call's worker) sees every protocol. */
static gpointer lookup_pairs(gpointer data) {
  (void)data;
  return (gpointer)proto_registry_lookup("gossip-pairs");
}

/* Plugin scopes (libdpgossip's calls): a plugin loaded before the scope is
 * hidden from it until the scope loads it again; nested scopes; the error
 * names the scope's hint; no scope (and other threads) sees everything. */
static void test_scope(void) {
  if (!in_subprocess())
    return;
  char *path = plugin_path("gossip-pairs");
  char *empty = test_tmpdir("plugins-scope");
  g_setenv(PROTO_PLUGIN_PATH_ENV, empty, TRUE);
  const ProtoVTable *vt = NULL, *again = NULL;
  GError *err = NULL;
  g_assert_true(proto_plugin_load(path, &vt, &err));
  g_assert_no_error(err);
  g_assert_true(proto_registry_lookup("gossip-pairs") == vt);

  ProtoPluginScope *scope = proto_plugin_scope_begin("plugins=['FILE.so']");
  g_assert_null(proto_registry_lookup("gossip-pairs"));
  g_assert_nonnull(proto_registry_lookup("dsgd"));
  char *names = proto_registry_names();
  g_assert_null(strstr(names, "gossip-pairs"));
  g_assert_nonnull(strstr(names, "dsgd"));
  g_free(names);
  GThread *worker = g_thread_new("scope", lookup_pairs, NULL);
  g_assert_true(g_thread_join(worker) == vt);
  ProtoParams *params = NULL;
  g_assert_false(proto_spec_parse("gossip-pairs", &again, &params, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_UNKNOWN);
  g_assert_nonnull(strstr(err->message, "unknown protocol 'gossip-pairs'"));
  g_assert_nonnull(strstr(err->message, "or use plugins=['FILE.so'])"));
  g_assert_null(strstr(err->message, "--protocol-plugin"));
  g_clear_error(&err);

  /* Loading it again shows it: the same vtable, no second registration. */
  g_assert_true(proto_plugin_load(path, &again, &err));
  g_assert_no_error(err);
  g_assert_true(again == vt);
  g_assert_true(proto_registry_lookup("gossip-pairs") == vt);
  ProtoPluginScope *inner = proto_plugin_scope_begin(NULL);
  g_assert_null(proto_registry_lookup("gossip-pairs"));
  g_assert_false(proto_plugin_find("gossip-pairs", &again, &err));
  g_assert_nonnull(strstr(err->message, "or use --protocol-plugin FILE.so)"));
  g_clear_error(&err);
  proto_plugin_scope_end(inner);
  g_assert_true(proto_registry_lookup("gossip-pairs") == vt);
  proto_plugin_scope_end(scope);
  g_assert_true(proto_registry_lookup("gossip-pairs") == vt);
  g_unsetenv(PROTO_PLUGIN_PATH_ENV);
  g_free(empty);
  g_free(path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  /* The tests control the search path; never pick up the user's plugins. */
  g_setenv(PROTO_PLUGIN_PATH_ENV, "", TRUE);
  g_test_add_func("/plugins/load/example", test_load_example);
  g_test_add_func("/plugins/load/refused", test_refused);
  g_test_add_func("/plugins/load/search-path", test_search_path);
  g_test_add_func("/plugins/load/name-convention", test_name_convention);
  g_test_add_func("/plugins/load/api-exported", test_api_exported);
  g_test_add_func("/plugins/load/conditional-handlers", test_conditional_handlers);
  g_test_add_func("/plugins/load/abi1", test_abi1);
  g_test_add_func("/plugins/load/scope", test_scope);
  g_test_add_func("/plugins/accounting/pairs", test_accounting_pairs);
  g_test_add_func("/plugins/accounting/dsgd", test_accounting_dsgd);
  g_test_add_func("/plugins/accounting/pairs-lossy", test_pairs_lossy);
  return g_test_run();
}
