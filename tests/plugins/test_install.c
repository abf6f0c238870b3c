/*
 * tests/plugins/test_install.c: the plugin workflow of a user, end to end.
 * Stages `cmake --install BUILD --prefix STAGE`; checks the binary, the
 * plugin headers, dpgossip.pc and dpgossipConfig.cmake are there; builds
 * examples/plugin-gossip-pairs out of tree with its own CMake project
 * against the staged install, once through the CMake package and once
 * through pkg-config; installs it into the staged plugin folder; trains
 * with it through the staged dpgossip (--protocol-plugin, and --protocol
 * NAME found in the installed plugin folder); and accounts it under PNDP
 * through the observer, loading the out-of-tree build with the loader:
 * the accounting equals the structured formula (pairwise mode on the
 * matchings it used; neighbors mode, which is D-SGD, on the static W).
 * Label nosanitize: it runs cmake and the system compiler.
 */
#include <math.h>
#include <sys/wait.h>

#include <gmodule.h>

#include "plugin_test.h"
#include "tests/common/files.h"

#define TAG_PAIR 1

typedef struct {
  int status;
  char *out, *err;
} Spawned;

static Spawned spawn(const char *const *argv, char **envp) {
  Spawned s = {0};
  int wait_status = 0;
  GError *err = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &s.out, &s.err,
                             &wait_status, &err));
  g_assert_no_error(err);
  s.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  return s;
}

static void spawned_clear(Spawned *s) {
  g_clear_pointer(&s->out, g_free);
  g_clear_pointer(&s->err, g_free);
}

/* Runs @argv and requires success, printing its output otherwise. */
static char *must_run(const char *const *argv, char **envp) {
  Spawned s = spawn(argv, envp);
  if (s.status != 0)
    g_error("%s %s failed (%d):\n%s\n%s", argv[0], argv[1], s.status, s.out, s.err);
  g_free(s.err);
  return s.out;
}

static void assert_file(const char *stage, const char *rel) {
  char *path = g_build_filename(stage, rel, NULL);
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    g_error("the install lacks %s", path);
  g_free(path);
}

static char *read_text(const char *path) {
  char *text = NULL;
  GError *err = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, &err));
  g_assert_no_error(err);
  return text;
}

static void test_install_build_train_account(void) {
  char *stage = test_tmpdir("stage");
  g_assert_nonnull(stage);
  char **env = g_get_environ();
  env = g_environ_unsetenv(env, "DPGOSSIP_PLUGIN_PATH");
  env = g_environ_unsetenv(env, "PKG_CONFIG_PATH");
  env = g_environ_unsetenv(env, "CMAKE_PREFIX_PATH");

  /* 1. Stage the install. */
  g_free(must_run((const char *[]){DPG_CMAKE, "--install", DPG_BUILD_DIR, "--prefix", stage, NULL},
                  env));
  const char *installed[] = {"bin/dpgossip",
                             "include/dpgossip/protocols/plugin.h",
                             "include/dpgossip/sim/sim.h",
                             DPG_INSTALL_LIBDIR "/pkgconfig/dpgossip.pc",
                             DPG_INSTALL_LIBDIR "/cmake/dpgossip/dpgossipConfig.cmake",
                             DPG_INSTALL_LIBDIR "/cmake/dpgossip/dpgossipConfigVersion.cmake"};
  for (guint i = 0; i < G_N_ELEMENTS(installed); i++)
    assert_file(stage, installed[i]);
  char *plugin_dir = g_build_filename(stage, DPG_INSTALL_LIBDIR, "dpgossip", "plugins", NULL);
  g_assert_true(g_file_test(plugin_dir, G_FILE_TEST_IS_DIR));

  /* 2. Build the example against it: CMake package, then pkg-config. */
  char *build_cfg = g_build_filename(stage, "ex-config", NULL);
  char *build_pc = g_build_filename(stage, "ex-pkgconfig", NULL);
  char *prefix_arg = g_strdup_printf("-DCMAKE_PREFIX_PATH=%s", stage);
  char *out = must_run((const char *[]){DPG_CMAKE, "-S", DPG_EXAMPLE_DIR, "-B", build_cfg,
                                        prefix_arg, "-DCMAKE_BUILD_TYPE=Release", NULL},
                       env);
  g_assert_nonnull(strstr(out, "dpgossip 0.1.0 (CMake package), plugin ABI 3"));
  g_free(out);
  g_free(must_run((const char *[]){DPG_CMAKE, "--build", build_cfg, NULL}, env));

  char *pc_path = g_build_filename(stage, DPG_INSTALL_LIBDIR, "pkgconfig", NULL);
  char **env_pc = g_environ_setenv(g_strdupv(env), "PKG_CONFIG_PATH", pc_path, TRUE);
  out = must_run((const char *[]){DPG_CMAKE, "-S", DPG_EXAMPLE_DIR, "-B", build_pc,
                                  "-DGOSSIP_PAIRS_USE_PKGCONFIG=ON", "-DCMAKE_BUILD_TYPE=Release",
                                  NULL},
                 env_pc);
  g_assert_nonnull(strstr(out, "dpgossip 0.1.0 (pkg-config)"));
  g_free(out);
  g_free(must_run((const char *[]){DPG_CMAKE, "--build", build_pc, NULL}, env_pc));
  /* pkg-config resolves the relocatable prefix to the stage. */
  char *cache = g_build_filename(build_pc, "CMakeCache.txt", NULL);
  char *text = read_text(cache);
  char *want = g_strdup_printf("GOSSIP_PAIRS_INSTALL_DIR:PATH=%s", plugin_dir);
  if (strstr(text, want) == NULL)
    g_error("pkg-config's plugindir is not %s", plugin_dir);
  g_free(want);
  g_free(text);
  g_free(cache);

  /* 3. Install the CMake-package build into the staged plugin folder. */
  g_free(must_run((const char *[]){DPG_CMAKE, "--install", build_cfg, NULL}, env));
  char *installed_plugin = g_build_filename(plugin_dir, "gossip-pairs.so", NULL);
  g_assert_true(g_file_test(installed_plugin, G_FILE_TEST_IS_REGULAR));

  /* 4. Train with the staged dpgossip. */
  char *bin = g_build_filename(stage, "bin", "dpgossip", NULL);
  char *pc_plugin = g_build_filename(build_pc, "gossip-pairs.so", NULL);
  char *csv[3];
  for (guint i = 0; i < 3; i++)
    csv[i] = g_strdup_printf("%s/train-%u.csv", stage, i);
#define TRAIN_ARGS                                                                                 \
  "--generate", "florentine", "--dataset", "synthetic:linear,n=300,d=4,seed=2", "--epochs", "2",   \
      "--batches", "2", "--seed", "5", "--lr", "0.05"
  out = must_run((const char *[]){bin, "train", "--protocol-plugin", pc_plugin, TRAIN_ARGS, "--out",
                                  csv[0], NULL},
                 env);
  g_assert_nonnull(strstr(out, "train: gossip-pairs, 15 nodes, 4 rounds"));
  g_free(out);
  text = read_text(csv[0]);
  char **lines = g_strsplit(text, "\n", -1);
  g_assert_true(g_str_has_prefix(lines[0], "round,node,train_loss,test_loss,test_accuracy,"));
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 15 + 1); /* rows at T, trailing "" */
  for (guint u = 0; u < 15; u++) {
    char **cells = g_strsplit(lines[1 + u], ",", -1);
    g_assert_cmpstr(cells[0], ==, "4");
    double loss = g_ascii_strtod(cells[3], NULL);
    g_assert_true(isfinite(loss) && loss > 0.0);
    g_strfreev(cells);
  }
  g_strfreev(lines);
  g_free(text);

  /* --protocol NAME finds the installed plugin (no --protocol-plugin, no
   * DPGOSSIP_PLUGIN_PATH); in neighbors mode it trains exactly as dsgd. */
  g_free(must_run((const char *[]){bin, "train", "--protocol", "gossip-pairs:mode=neighbors",
                                   TRAIN_ARGS, "--out", csv[1], NULL},
                  env));
  g_free(must_run(
      (const char *[]){bin, "train", "--protocol", "dsgd", TRAIN_ARGS, "--out", csv[2], NULL},
      env));
  char *a = read_text(csv[1]), *b = read_text(csv[2]);
  g_assert_cmpstr(a, ==, b); /* the same losses */
  g_free(a);
  g_free(b);
  /* The privacy tables come from two accounting paths (observer for the
   * plugin, structured for dsgd): equal to rounding. */
  char *pa = g_strdup_printf("%s/train-1_privacy.csv", stage);
  char *pb = g_strdup_printf("%s/train-2_privacy.csv", stage);
  a = read_text(pa);
  b = read_text(pb);
  char **la = g_strsplit(a, "\n", -1), **lb = g_strsplit(b, "\n", -1);
  g_assert_cmpuint(g_strv_length(la), ==, 1 + 15 + 1);
  g_assert_cmpuint(g_strv_length(la), ==, g_strv_length(lb));
  for (guint i = 1; la[i] != NULL && la[i][0] != '\0'; i++) {
    char **fa = g_strsplit(la[i], ",", -1), **fb = g_strsplit(lb[i], ",", -1);
    g_assert_cmpuint(g_strv_length(fa), ==, 17);
    for (guint k = 0; k < 17; k++)
      if (k >= 4 && k <= 7) /* sensitivity, mu, rdp, epsilon */
        g_assert_cmpfloat(fabs(g_ascii_strtod(fa[k], NULL) / g_ascii_strtod(fb[k], NULL) - 1), <,
                          1e-12);
      else if (k == 13) /* path */
        g_assert_true(g_str_equal(fa[k], "observer") && g_str_equal(fb[k], "structured"));
      else
        g_assert_cmpstr(fa[k], ==, fb[k]);
    g_strfreev(fa);
    g_strfreev(fb);
  }
  g_strfreev(la);
  g_strfreev(lb);
  g_free(a);
  g_free(b);
  g_free(pa);
  g_free(pb);

  /* A plugin of another ABI is refused as a usage error. */
  char *bad = g_build_filename(DPG_TEST_PLUGIN_DIR, "bad-abi.so", NULL);
  Spawned s = spawn(
      (const char *[]){bin, "train", "--protocol-plugin", bad, TRAIN_ARGS, "--out", csv[0], NULL},
      env);
  g_assert_cmpint(s.status, ==, 2);
  g_assert_nonnull(strstr(s.err, "was built for plugin ABI version 4"));
  spawned_clear(&s);
  g_free(bad);

  /* 5. Account the out-of-tree build under PNDP through the observer. */
  char *cfg_plugin = g_build_filename(build_cfg, "gossip-pairs.so", NULL);
  const ProtoVTable *vt = NULL;
  GError *err = NULL;
  g_assert_true(proto_plugin_load(cfg_plugin, &vt, &err));
  g_assert_no_error(err);
  g_assert_cmpstr(vt->name, ==, "gossip-pairs");
  GError *gerr = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &gerr);
  g_assert_no_error(gerr);
  const guint attackers[] = {2, 8};
  guint T = 6;
  PtObserved o = pt_run_observed(g, "gossip-pairs", T, attackers, 2, 9, NULL);
  g_assert_cmpuint(pt_check_pairs_accounting(&o, g, attackers, 2, TAG_PAIR, TRUE), >, 0);
  pt_observed_clear(&o);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &gerr);
  o = pt_run_observed(g, "gossip-pairs:mode=neighbors", T, attackers, 2, 9, NULL);
  for (guint i = 0; i < 2; i++) {
    PrivBlocks *obs = pt_observer_blocks(&o, i), *fast = pt_structured_dsgd(&w, 1, T, attackers[i]);
    g_assert_cmpfloat(blocks_rel_diff(obs, fast), <=, 1e-8);
    g_assert_cmpuint(pt_reports_agree(obs, fast, g), >, 0);
    priv_blocks_free(obs);
    priv_blocks_free(fast);
  }
  pt_observed_clear(&o);
  topo_gossip_free(w);
  topo_graph_free(g);

  test_rmtree(stage);
  for (guint i = 0; i < 3; i++)
    g_free(csv[i]);
  g_free(cfg_plugin);
  g_free(pc_plugin);
  g_free(bin);
  g_free(installed_plugin);
  g_strfreev(env_pc);
  g_free(pc_path);
  g_free(prefix_arg);
  g_free(build_pc);
  g_free(build_cfg);
  g_free(plugin_dir);
  g_strfreev(env);
  g_free(stage);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plugins/install/build-train-account", test_install_build_train_account);
  return g_test_run();
}
