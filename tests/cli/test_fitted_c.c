/*
 * tests/cli/test_fitted_c.c: MF-D-SGD with a C_local fitted to the run's
 * gossip (C=toeplitz, blt, mafalda) through every entry point of the
 * command: `account`, `train` and a scenario under `run` (the Python
 * binding: tests/python/test_fitted_c.py). These families need the graph,
 * which the structured path does not have: they are accounted on the
 * observer path. Under LDP the attacker sees every message, and MF-D-SGD
 * calibrates its noise to C's sensitivity, so every node has mu = 1/sigma
 * exactly (the closed form the values are checked against).
 */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run_json.h"

#define SIGMA 2.0

/* The run succeeded and printed no GLib warning or critical. */
static void assert_clean(const CliRun *r) {
  if (r->status != 0)
    g_error("exit %d: %s", r->status, r->err);
  g_assert_null(strstr(r->err, "CRITICAL"));
  g_assert_null(strstr(r->err, "WARNING"));
}

static void test_account(void) {
  const char *specs[] = {"mafalda:C=toeplitz,band=4", "mfdsgd:C=toeplitz", "mfdsgd:C=blt",
                         "mafalda"};
  for (guint i = 0; i < G_N_ELEMENTS(specs); i++) {
    /* Calibrated with Thm 5.2's sensitivity of C: LDP mu = 1 / sigma under
     * that kind (exact: a hair less). */
    CliRun r = cli_run("account", "--sensitivity", "bound", "-p", specs[i], "--generate",
                       "florentine", "-T", "32", "-b", "8", "--trust", "ldp", "-a", "0", "--sigma",
                       "2", "--format", "json");
    assert_clean(&r);
    JsonParser *parser;
    JsonObject *o = cli_run_json(&r, &parser);
    g_assert_cmpstr(json_object_get_string_member(o, "path"), ==, "observer");
    JsonArray *v = json_object_get_array_member(o, "victims");
    g_assert_cmpuint(json_array_get_length(v), ==, 14);
    for (guint j = 0; j < json_array_get_length(v); j++) {
      double mu = json_object_get_double_member(json_array_get_object_element(v, j), "mu");
      g_assert_cmpfloat_with_epsilon(mu, 1.0 / SIGMA, 1e-9);
    }
    g_object_unref(parser);
    cli_run_clear(&r);
  }
}

/* The index of @name in the CSV header line @header (-1: absent). */
static int column(const char *header, const char *name) {
  char **cols = g_strsplit(header, ",", -1);
  int at = -1;
  for (int i = 0; cols[i] != NULL && at < 0; i++)
    if (strcmp(g_strstrip(cols[i]), name) == 0)
      at = i;
  g_strfreev(cols);
  return at;
}

/* train writes each victim's whole-run guarantee once, in OUT_privacy.csv
 * (LDP by default: one row per node). */
static void test_train(void) {
  char *dir = test_tmpdir("fitted-c");
  char *out = g_build_filename(dir, "out.csv", NULL);
  char *privacy = g_build_filename(dir, "out_privacy.csv", NULL);
  char *means = g_build_filename(dir, "out_mean.csv", NULL);
  CliRun r = cli_run("train", "--generate", "florentine", "-p", "mafalda:C=toeplitz,band=4", "-d",
                     "synthetic:linear", "-k", "4", "-b", "8", "--sigma", "2", "-q", "-o", out);
  assert_clean(&r);
  char *text = NULL;
  g_assert_true(g_file_get_contents(privacy, &text, NULL, NULL));
  char **lines = g_strsplit(text, "\n", -1);
  int mu_at = column(lines[0], "mu");
  g_assert_cmpint(mu_at, >=, 0);
  guint rows = 0;
  for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++) {
    char **cells = g_strsplit(lines[i], ",", -1);
    g_assert_cmpuint(g_strv_length(cells), >, (guint)mu_at);
    g_assert_cmpfloat_with_epsilon(g_ascii_strtod(cells[mu_at], NULL), 1.0 / SIGMA, 1e-9);
    rows++;
    g_strfreev(cells);
  }
  g_assert_cmpuint(rows, ==, 15);
  g_strfreev(lines);
  g_free(text);
  cli_run_clear(&r);
  g_remove(out);
  g_remove(privacy);
  g_remove(means);
  g_rmdir(dir);
  g_free(out);
  g_free(privacy);
  g_free(means);
  g_free(dir);
}

static void test_scenario(void) {
  char *dir = test_tmpdir("fitted-c");
  char *ini = g_build_filename(dir, "toeplitz.ini", NULL);
  char *results = g_build_filename(dir, "results", NULL);
  char *text = g_strdup_printf("[topology]\ngenerate = florentine\n"
                               "[protocol]\nname = mafalda:C=toeplitz,band=4\nsigma = 2\n"
                               "[task]\ndataset = synthetic:linear,n=300,d=4,seed=1\n"
                               "epochs = 4\nbatches = 8\n"
                               "[privacy]\ntrust = ldp\n"
                               "[output]\ndir = %s\nplots = false\n",
                               results);
  g_assert_true(g_file_set_contents(ini, text, -1, NULL));
  CliRun r = cli_run("run", ini, "-q");
  assert_clean(&r);
  /* The scenario builds C itself, with the graph: its own structured path. */
  char *csv = g_build_filename(results, "privacy.csv", NULL);
  char *rows = NULL;
  g_assert_true(g_file_get_contents(csv, &rows, NULL, NULL));
  char **lines = g_strsplit(rows, "\n", -1);
  int mu_at = column(lines[0], "mu");
  g_assert_cmpint(mu_at, >=, 0);
  guint n = 0;
  for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++, n++) {
    char **cells = g_strsplit(lines[i], ",", -1);
    g_assert_cmpfloat_with_epsilon(g_ascii_strtod(cells[mu_at], NULL), 1.0 / SIGMA, 1e-9);
    g_strfreev(cells);
  }
  g_assert_cmpuint(n, >, 0);
  g_strfreev(lines);
  g_free(rows);
  g_free(csv);
  cli_run_clear(&r);
  g_free(text);
  g_free(ini);
  g_free(results);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/fitted-c/account", test_account);
  g_test_add_func("/fitted-c/train", test_train);
  g_test_add_func("/fitted-c/scenario", test_scenario);
  return g_test_run();
}
