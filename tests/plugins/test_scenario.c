/*
 * tests/plugins/test_scenario.c: the scenario key `[protocol] plugin = PATH`
 * loads a plugin before the protocol name is resolved; a bad plugin is a
 * validation problem at its line; a plugin implementing D-SGD through
 * plugin.h is accounted (observer path) exactly as built-in D-SGD
 * (structured path), except where the built-in row is the LDP cap: plugins
 * on the observer path are not capped (no proof for arbitrary code), so
 * there the plugin's value is above the built-in one, which is the LDP
 * value (docs/design.md "The LDP cap").
 */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "plot/plot.h"
#include "scenarios/scenarios.h"
#include "tests/common/files.h"

static const char *const base = "[simulation]\nseed = 3\nrounds = 6\n"
                                "[topology]\ngenerate = florentine\n"
                                "[protocol]\n%s"
                                /* Thm 5.2's bound: above LDP at distance 1,
                                 * so the cap's branch is exercised below. */
                                "[privacy]\ntrust = %s\nsensitivity = bound\n"
                                "[collusion.a]\nnodes = 0\n";

static ScenScenario *load_trust(const char *dir, const char *protocol_lines, const char *trust) {
  char *text = g_strdup_printf(base, protocol_lines, trust);
  char *path = g_build_filename(dir, "plugin.ini", NULL);
  ScenScenario *sc = scen_scenario_load_data(text, strlen(text), path);
  g_free(path);
  g_free(text);
  return sc;
}

static ScenScenario *load(const char *dir, const char *protocol_lines) {
  return load_trust(dir, protocol_lines, "pndp");
}

static void test_bad_plugins_are_problems(void) {
  char *dir = test_tmpdir("scen-plugin");
  ScenScenario *sc = load(dir, "name = dsgd\nplugin = /nonexistent/x.so\n");
  char **problems = scen_scenario_validate(sc);
  g_assert_cmpuint(g_strv_length(problems), ==, 1);
  g_assert_nonnull(strstr(problems[0], "plugin.ini:8: protocol.plugin"));
  g_assert_nonnull(strstr(problems[0], "x.so"));
  g_strfreev(problems);
  scen_scenario_free(sc);

  /* Validation never loads a plugin, so a bad one is found by the run that
   * is allowed to load it (and refused by one that is not). */
  sc = load(dir, "name = dsgd\nplugin = " DPG_TEST_PLUGIN_DIR "/bad-abi.so\n");
  problems = scen_scenario_validate(sc);
  g_assert_cmpuint(g_strv_length(problems), ==, 0);
  g_strfreev(problems);
  problems = scen_scenario_notes(sc);
  g_assert_cmpuint(g_strv_length(problems), ==, 1);
  g_assert_nonnull(strstr(problems[0], "plugin.ini:8: protocol.plugin"));
  g_strfreev(problems);
  char *out = g_build_filename(dir, "out", NULL);
  ScenRunOptions opt = {.out_dir = out, .threads = 1};
  GError *error = NULL;
  g_assert_false(scen_scenario_run(sc, &opt, NULL, &error));
  g_assert_error(error, SCEN_ERROR, SCEN_ERROR_INVALID);
  g_assert_nonnull(strstr(error->message, "plugin.ini:8: protocol.plugin: not loaded"));
  g_clear_error(&error);
  opt.allow_plugins = TRUE;
  g_assert_false(scen_scenario_run(sc, &opt, NULL, &error));
  g_assert_error(error, SCEN_ERROR, SCEN_ERROR_INVALID);
  g_assert_nonnull(strstr(error->message, "plugin.ini:8: protocol.plugin"));
  g_assert_nonnull(strstr(error->message, "ABI"));
  g_clear_error(&error);
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_free(out);
  scen_scenario_free(sc);
  g_rmdir(dir);
  g_free(dir);
}

/* privacy.csv rows as (victim -> rdp). */
static GHashTable *read_rdp(const char *dir) {
  char *path = g_build_filename(dir, "privacy.csv", NULL);
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  GHashTable *rdp = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  char **lines = g_strsplit(text, "\n", -1);
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    char **f = g_strsplit(lines[i], ",", -1);
    g_assert_cmpuint(g_strv_length(f), >=, 7);
    double *v = g_new(double, 1);
    *v = g_ascii_strtod(f[6], NULL);
    g_hash_table_insert(rdp, g_strdup(f[2]), v);
    g_strfreev(f);
  }
  g_strfreev(lines);
  g_free(text);
  g_free(path);
  return rdp;
}

static GHashTable *run_trust(const char *protocol_lines, const char *trust, const char *out) {
  char *dir = test_tmpdir("scen-plugin");
  ScenScenario *sc = load_trust(dir, protocol_lines, trust);
  char **problems = scen_scenario_validate(sc);
  if (problems[0] != NULL)
    g_error("unexpected problem: %s", problems[0]);
  g_strfreev(problems);
  ScenRunOptions opt = {.out_dir = out, .threads = 1, .allow_plugins = TRUE};
  GError *error = NULL;
  g_assert_true(scen_scenario_run(sc, &opt, NULL, &error));
  g_assert_no_error(error);
  scen_scenario_free(sc);
  g_rmdir(dir);
  g_free(dir);
  return read_rdp(out);
}

static GHashTable *run(const char *protocol_lines, const char *out) {
  return run_trust(protocol_lines, "pndp", out);
}

static void test_plugin_accounted_like_builtin(void) {
  char *root = test_tmpdir("scen-out");
  char *a = g_build_filename(root, "plugin", NULL), *b = g_build_filename(root, "builtin", NULL);
  char *c = g_build_filename(root, "ldp", NULL);
  GHashTable *via_plugin = run("name = tiny-dsgd\nplugin = " DPG_TEST_PLUGIN_DIR "/tiny-dsgd.so\n",
                               a);
  GHashTable *builtin = run("name = dsgd\n", b);
  GHashTable *ldp = run_trust("name = dsgd\n", "ldp", c);
  g_assert_cmpuint(g_hash_table_size(via_plugin), ==, 14);
  g_assert_cmpuint(g_hash_table_size(builtin), ==, 14);
  g_assert_cmpuint(g_hash_table_size(ldp), ==, 14);
  GHashTableIter it;
  gpointer key, val;
  guint capped = 0, same = 0;
  g_hash_table_iter_init(&it, builtin);
  while (g_hash_table_iter_next(&it, &key, &val)) {
    const double *got = g_hash_table_lookup(via_plugin, key);
    const double *ldp_rdp = g_hash_table_lookup(ldp, key);
    g_assert_nonnull(got);
    g_assert_nonnull(ldp_rdp);
    double want = *(const double *)val;
    /* Both paths sum the same T x T Gram blocks; 1e-9 relative is far above
     * T^2 * eps_machine * cond for T = 6 steps on 15 nodes. */
    double tol = 1e-9 * (1.0 + fabs(want));
    if (*got > *ldp_rdp + tol) {
      /* The plugin's (uncapped) value is above the same run's LDP value:
       * the built-in row is the LDP cap, exactly the LDP value, and the
       * cap only lowers. */
      g_assert_cmpfloat_with_epsilon(want, *ldp_rdp, tol);
      g_assert_cmpfloat(*got, >=, want);
      capped++;
    } else {
      g_assert_cmpfloat_with_epsilon(*got, want, tol);
      same++;
    }
  }
  /* Florentine, attacker 0, T = 6: the distance-1 victim (Thm 5.2 above LDP)
   * is capped, the farther ones are not; both branches are exercised. */
  g_assert_cmpuint(capped, >=, 1);
  g_assert_cmpuint(same, >=, 1);
  g_hash_table_unref(via_plugin);
  g_hash_table_unref(builtin);
  g_hash_table_unref(ldp);
  test_rmtree(root);
  g_free(a);
  g_free(b);
  g_free(c);
  g_free(root);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plugins/scenario/bad-plugins", test_bad_plugins_are_problems);
  g_test_add_func("/plugins/scenario/accounted-like-builtin", test_plugin_accounted_like_builtin);
  int status = g_test_run();
  plot_shutdown(); /* scenario runs draw figures: fontconfig's caches go here */
  return status;
}
