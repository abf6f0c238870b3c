/*
 * tests/scenarios/test_local.c: privacy.path = local with privacy.radius:
 * the certified bounds in privacy.csv are never below the structured path's
 * exact values and name their radius; the keys' problems.
 */
#include <math.h>
#include <stdlib.h>

#include "tests/scenarios/scen_test.h"

#define BASE "[simulation]\nrounds = 4\n[topology]\ngenerate = barabasi:n=40,m=2,seed=5\n"

/* Runs @text in DIR/NAME and returns the rows of its privacy.csv. */
static GPtrArray *run_csv(ScenTestFix *f, const char *name, const char *text, char **resolved) {
  char *path = scen_test_write(f->dir, name, text);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  char *out = g_build_filename(f->dir, name, NULL);
  out[strlen(out) - 4] = '\0'; /* DIR/NAME without ".ini" */
  ScenRunOptions opt = {.out_dir = out, .threads = 1};
  ScenRunReport rep = {0};
  gboolean ok = scen_scenario_run(sc, &opt, &rep, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  scen_run_report_clear(&rep);
  GPtrArray *rows = scen_test_csv(out, "privacy.csv");
  if (resolved)
    *resolved = scen_test_read(out, "scenario.resolved.ini");
  g_free(out);
  g_free(path);
  scen_scenario_free(sc);
  return rows;
}

#define PRIVACY_OF(PROTO)                                                                          \
  "[protocol]\n" PROTO "sigma = 1.1\n[collusion.a]\nnodes = 3\n[output]\nplots = false\n"          \
  "[privacy]\ntrust = pndp;ldp\nsensitivity = exact\n"

/* D-SGD, and DECOR with its edge secrets (data: "decor"). */
static void test_bounds(ScenTestFix *f, gconstpointer data) {
  gboolean decor = data != NULL;
  const char *privacy = decor ? BASE PRIVACY_OF("name = decor\n") : BASE PRIVACY_OF("");
  char *resolved = NULL;
  char *ex_text = g_strconcat(privacy, "path = structured\n", NULL);
  char *lo_text = g_strconcat(privacy, "path = local\nradius = 2\n", NULL);
  GPtrArray *ex = run_csv(f, "exact.ini", ex_text, NULL);
  GPtrArray *lo = run_csv(f, "local.ini", lo_text, &resolved);
  g_free(ex_text);
  g_free(lo_text);
  /* Columns: 1 trust, 2 victim, 3 distance, 5 mu, 13 path. */
  guint checked = 0;
  for (guint r = 1; r < lo->len; r++) {
    char **row = g_ptr_array_index(lo, r);
    g_assert_cmpstr(row[13], ==, "local:radius=2");
    g_assert_cmpint(atoi(row[3]), <=, 2);
    for (guint e = 1; e < ex->len; e++) {
      char **erow = g_ptr_array_index(ex, e);
      if (g_str_equal(erow[1], row[1]) && g_str_equal(erow[2], row[2])) {
        double b = g_ascii_strtod(row[5], NULL), x = g_ascii_strtod(erow[5], NULL);
        g_assert_cmpfloat(b, >=, x * (1 - 1e-9));
        checked++;
      }
    }
  }
  g_assert_cmpuint(checked, ==, lo->len - 1);
  g_assert_cmpuint(checked, >, 4);
  g_assert_nonnull(strstr(resolved, "path = local\nradius = 2\n"));
  g_free(resolved);
  g_ptr_array_unref(ex);
  g_ptr_array_unref(lo);
}

static void test_problems(ScenTestFix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir, BASE "[privacy]\npath = local\n", NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:6: privacy.path: ", path),
                    "privacy.path = local needs privacy.radius");
  g_strfreev(p);
  g_free(path);
  p = scen_test_problems(f->dir, BASE "[privacy]\nradius = 3\n", NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:6: privacy.radius: ", path),
                    "privacy.radius is for privacy.path = local");
  g_strfreev(p);
  g_free(path);
  p = scen_test_problems(
      f->dir, BASE "[protocol]\nname = zipdl\n[privacy]\npath = local\nradius = 1\n", NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:8: privacy.path: ", path),
                    "local bounds are the structured path's");
  g_strfreev(p);
  g_free(path);
  p = scen_test_problems(f->dir, BASE "[privacy]\npath = local\nradius = 0\n", NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:7: privacy.radius", path), "");
  g_strfreev(p);
  g_free(path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  SCEN_TEST_ADD("/scenarios/local/bounds", test_bounds);
  g_test_add("/scenarios/local/bounds-decor", ScenTestFix, "decor", scen_test_fix_setup,
             test_bounds, scen_test_fix_teardown);
  SCEN_TEST_ADD("/scenarios/local/problems", test_problems);
  return g_test_run();
}
