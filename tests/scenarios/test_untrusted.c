/*
 * tests/scenarios/test_untrusted.c: a scenario file is input from anyone
 *: its simulation.name names the results folder and is never a
 * path (so a run cannot write outside results/), and bytes of the file that
 * messages quote are escaped (no escape sequence reaches the terminal).
 */
#include "scen_test.h"

static void test_names_are_not_paths(void) {
  char *dir = test_tmpdir("scen");
  static const struct {
    const char *value, *why;
  } bad[] = {
      {"../../../x", "holds a path separator"},
      {"..", "holds \"..\""},
      {"a..b", "holds \"..\""},
      {"/tmp/x", "holds a path separator"},
      {"a\\\\b", "holds a path separator"}, /* the file's "\\" is one backslash */
      {".hidden", "starts with '.'"},
      {"", "is empty"},
      {"tab\\there", "holds a control character"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *text = g_strdup_printf("[simulation]\nname = %s\n[topology]\ngenerate = florentine\n",
                                 bad[i].value);
    char *path = NULL;
    char **p = scen_test_problems(dir, text, NULL, &path);
    scen_assert_match(p, g_strdup_printf("%s:2: simulation.name: ", path), bad[i].why);
    scen_assert_match(p, g_strdup_printf("%s:2: simulation.name: ", path), "not a path");
    g_assert_cmpuint(g_strv_length(p), ==, 1);
    g_strfreev(p);
    g_free(path);
    g_free(text);
  }
  /* Plain names, dots inside and UTF-8 included, are fine. */
  const char *good[] = {"my-run", "fig2.v3", "run_1", "caf\xc3\xa9"};
  for (gsize i = 0; i < G_N_ELEMENTS(good); i++) {
    char *text = g_strdup_printf("[simulation]\nname = %s\n[topology]\ngenerate = florentine\n",
                                 good[i]);
    char **p = scen_test_problems(dir, text, NULL, NULL);
    g_assert_cmpuint(g_strv_length(p), ==, 0);
    g_strfreev(p);
    g_free(text);
  }
  /* From --set too, located at the override. */
  const char *const sets[] = {"simulation.name=../escape", NULL};
  char **p = scen_test_problems(dir, "[topology]\ngenerate = florentine\n", sets, NULL);
  g_assert_cmpuint(g_strv_length(p), ==, 1);
  g_assert_nonnull(strstr(p[0], "simulation.name: '../escape' holds a path separator"));
  g_strfreev(p);
  test_rmtree(dir);
  g_free(dir);
}

/* The run refuses such a name before writing anything. */
static void test_run_writes_nothing_outside(void) {
  char *root = test_tmpdir("scen");
  char *inner = g_build_filename(root, "a", "b", NULL);
  g_assert_cmpint(g_mkdir_with_parents(inner, 0777), ==, 0);
  char *path = scen_test_write(inner, "s.ini",
                               "[simulation]\nname = ../../x\nrounds = 2\n"
                               "[topology]\ngenerate = florentine\n");
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  ScenRunOptions opt = {.threads = 1};
  g_assert_false(scen_scenario_run(sc, &opt, NULL, &error));
  g_assert_error(error, SCEN_ERROR, SCEN_ERROR_INVALID);
  g_assert_nonnull(strstr(error->message, "s.ini:2: simulation.name"));
  g_clear_error(&error);
  scen_scenario_free(sc);
  char *escaped = g_build_filename(root, "a", "x", NULL);
  g_assert_false(g_file_test(escaped, G_FILE_TEST_EXISTS));
  char *results = g_build_filename(inner, "results", NULL);
  g_assert_false(g_file_test(results, G_FILE_TEST_EXISTS));
  g_free(results);
  g_free(escaped);
  g_free(path);
  g_free(inner);
  test_rmtree(root);
  g_free(root);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/scenarios/untrusted/names", test_names_are_not_paths);
  g_test_add_func("/scenarios/untrusted/run-writes-nothing-outside",
                  test_run_writes_nothing_outside);
  return g_test_run();
}
