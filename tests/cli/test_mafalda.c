/*
 * tests/cli/test_mafalda.c: `dpgossip mafalda` end to end: the JSON report on
 * the Florentine graph against tests/data/reference/mafalda-florentine-*.json,
 * the CSV of C_local, the band, and every bad input.
 */
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run_json.h"
#include "tests/common/checks.h"
#include "tests/common/tolerance.h"

static JsonObject *reference(const char *file, JsonParser **p) {
  char *rel = g_build_filename("reference", file, NULL);
  char *path = cli_test_data_path(rel);
  GError *err = NULL;
  *p = json_parser_new();
  json_parser_load_from_file(*p, path, &err);
  g_assert_no_error(err);
  g_free(rel);
  g_free(path);
  return json_node_get_object(json_parser_get_root(*p));
}

static const char *const strategies[] = {"mafalda", "dp-d-sgd", "antipgd",  "sr",
                                         "bsr",     "dmf",      "toeplitz", "blt"};

static void test_florentine_k5_b16(void) {
  char *graph = cli_data_path("graphs/florentine.edges");
  CliRun r = cli_run("mafalda", "--graph", graph, "--epochs", "5", "--batches", "16", "--format",
                     "json", "--baselines", "all");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p, *rp;
  JsonObject *o = cli_run_json(&r, &p);
  JsonObject *ref = reference("mafalda-florentine-k5-b16.json", &rp);
  JsonObject *ref_loss = json_object_get_object_member(ref, "loss");
  g_assert_cmpint(json_object_get_int_member(o, "rounds"), ==, 80);
  g_assert_cmpint(json_object_get_int_member(o, "epochs"), ==, 5);
  g_assert_cmpint(json_object_get_int_member(o, "batches"), ==, 16);
  g_assert_cmpfloat(test_rel_diff(json_object_get_double_member(o, "trace_H"),
                                  json_object_get_double_member(ref, "trace_H")),
                    <, 1e-10);
  JsonObject *loss = json_object_get_object_member(o, "loss");
  JsonObject *sens = json_object_get_object_member(o, "sensitivity");
  g_assert_cmpuint(json_object_get_size(loss), ==, G_N_ELEMENTS(strategies));
  g_assert_cmpuint(json_object_get_size(sens), ==, G_N_ELEMENTS(strategies));
  double maf = json_object_get_double_member(loss, "mafalda");
  g_assert_cmpfloat(
      test_rel_diff(maf, json_object_get_double_member(ref_loss, "mafalda (optimal)")), <, 1e-8);
  g_assert_cmpfloat(test_rel_diff(json_object_get_double_member(loss, "dp-d-sgd"),
                                  json_object_get_double_member(ref_loss, "dp-d-sgd (C=I)")),
                    <, 1e-10);
  g_assert_cmpfloat(
      test_rel_diff(json_object_get_double_member(loss, "antipgd"),
                    json_object_get_double_member(ref_loss, "antipgd (C=lower ones)")),
      <, 1e-9);
  /* Mafalda is the optimum: every other strategy scores worse on H. */
  for (guint i = 1; i < G_N_ELEMENTS(strategies); i++)
    g_assert_cmpfloat(json_object_get_double_member(loss, strategies[i]), >, maf);
  /* sens(I) = sqrt(k); the optimizers normalize to 1. */
  g_assert_cmpfloat(fabs(json_object_get_double_member(sens, "dp-d-sgd") - sqrt(5.0)), <, 1e-14);
  g_assert_cmpfloat(fabs(json_object_get_double_member(sens, "mafalda") - 1.0), <, 1e-12);
  g_assert_cmpfloat(fabs(json_object_get_double_member(sens, "dmf") - 1.0), <, 1e-12);
  g_assert_cmpint(json_object_get_int_member(o, "iterations"), >, 0);
  /* The optimizer's convergence: the objective at the start and after each
   * accepted step, one entry more than the accepted steps (at most the
   * iterations), ending at Mafalda's loss. */
  JsonArray *hist = json_object_get_array_member(o, "objective_per_iteration");
  guint nh = json_array_get_length(hist);
  g_assert_cmpuint(nh, >=, 2);
  g_assert_cmpuint(nh, <=, (guint)json_object_get_int_member(o, "iterations") + 1);
  /* Non-increasing up to what the line search allows: a step accepted on
   * the approximate Wolfe conditions may raise f by 1e-12 |f| (MfResult). */
  for (guint i = 1; i < nh; i++) {
    double prev = json_array_get_double_element(hist, i - 1);
    dpg_test_assert_le(json_array_get_double_element(hist, i) - prev, 1e-12 * fabs(prev),
                       "the line search's approximate Wolfe bound");
  }
  g_assert_cmpfloat(json_array_get_double_element(hist, 0), >,
                    json_array_get_double_element(hist, nh - 1));
  /* The last entry is tr(H X^{-1}) at the optimum X; loss.mafalda is
   * sens(C)^2 tr(H (C^T C)^{-1}) with C the Cholesky factor of X: equal but
   * for sens(C) = 1 to 1e-12 (asserted below, so 2e-12 in sens^2) and the
   * factor's and the inverse's rounding, cond(X) eps T each. */
  double cond_x = 1e3; /* X = C^T C at k = 5, b = 16: X's diagonal 1/k-ish, its
                        * smallest eigenvalue over 1e-3 of its largest (log10 of
                        * the ratio about 2 here, kept wide) */
  dpg_test_assert_close(json_array_get_double_element(hist, nh - 1), maf,
                        2e-12 + 2 * dpg_tol(cond_x, 80), "sens(C)^2 = 1 and X's factor");
  /* Every phase is a piece of the total; optimize (Mafalda) and baselines run
   * side by side, so each of them, not their sum, fits in it. */
  JsonObject *sec = json_object_get_object_member(o, "seconds");
  const char *phases[] = {"load", "gram", "optimize", "baselines", "write", "total"};
  double t[G_N_ELEMENTS(phases)];
  for (guint i = 0; i < G_N_ELEMENTS(phases); i++) {
    t[i] = json_object_get_double_member(sec, phases[i]);
    g_assert_cmpfloat(t[i], >=, 0.0);
  }
  g_assert_cmpuint(json_object_get_size(sec), ==, G_N_ELEMENTS(phases));
  g_assert_cmpfloat(t[0] + t[1] + t[2] + t[4], <=, t[5] + 1e-9);
  g_assert_cmpfloat(t[0] + t[1] + t[3] + t[4], <=, t[5] + 1e-9);
  g_assert_cmpfloat(t[3], >, 0.0); /* DMF is an optimization too */
  /* Each strategy timed on its own, within the total. */
  JsonObject *each = json_object_get_object_member(o, "strategy_seconds");
  g_assert_cmpuint(json_object_get_size(each), ==, G_N_ELEMENTS(strategies));
  for (guint i = 0; i < G_N_ELEMENTS(strategies); i++) {
    double v = json_object_get_double_member(each, strategies[i]);
    g_assert_cmpfloat(v, >=, 0.0);
    g_assert_cmpfloat(v, <=, t[5] + 1e-9);
  }
  g_object_unref(p);
  g_object_unref(rp);
  cli_run_clear(&r);

  /* The messages workload: its trace, and Mafalda still wins. */
  r = cli_run("mafalda", "--graph", graph, "-k", "5", "-b", "16", "--workload", "messages",
              "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  o = cli_run_json(&r, &p);
  ref = reference("mafalda-florentine-k5-b16.json", &rp);
  g_assert_cmpfloat(test_rel_diff(json_object_get_double_member(o, "trace_H"),
                                  json_object_get_double_member(ref, "trace_H_messages")),
                    <, 1e-10);
  g_object_unref(p);
  g_object_unref(rp);
  cli_run_clear(&r);
  g_free(graph);
}

/* --out: the CSV is the reference C_mafalda, lower triangular, full precision. */
static void test_csv_k3_b4(void) {
  char *dir = test_tmpdir("mafalda");
  char *csv = g_build_filename(dir, "C.csv", NULL);
  CliRun r = cli_run("mafalda", "--generate", "florentine", "-k", "3", "-b", "4", "--out", csv);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "mafalda"));
  char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  JsonParser *rp;
  JsonArray *ref = json_object_get_array_member(reference("mafalda-florentine-k3-b4.json", &rp),
                                                "C_mafalda");
  char **rows = g_strsplit(text, "\n", -1);
  g_assert_cmpuint(g_strv_length(rows), ==, 13); /* 12 rows and the final newline */
  g_assert_cmpstr(rows[12], ==, "");
  for (guint i = 0; i < 12; i++) {
    char **cells = g_strsplit(rows[i], ",", -1);
    g_assert_cmpuint(g_strv_length(cells), ==, 12);
    JsonArray *row = json_array_get_array_element(ref, i);
    for (guint j = 0; j < 12; j++) {
      double v = g_ascii_strtod(cells[j], NULL);
      g_assert_cmpfloat(fabs(v - json_array_get_double_element(row, j)), <, 1e-6);
      if (j > i)
        g_assert_cmpstr(cells[j], ==, "0");
    }
    g_strfreev(cells);
  }
  g_strfreev(rows);
  g_free(text);
  g_object_unref(rp);
  cli_run_clear(&r);
  /* Nothing else (no temporary file) is left in the directory. */
  GDir *d = g_dir_open(dir, 0, NULL);
  g_assert_cmpstr(g_dir_read_name(d), ==, "C.csv");
  g_assert_null(g_dir_read_name(d));
  g_dir_close(d);
  g_unlink(csv);
  g_rmdir(dir);
  g_free(csv);
  g_free(dir);
}

static double mafalda_loss(const char *band) {
  CliRun r = band ? cli_run("mafalda", "--generate", "florentine", "-k", "3", "-b", "4", "--band",
                            band, "--format", "json")
                  : cli_run("mafalda", "--generate", "florentine", "-k", "3", "-b", "4", "--format",
                            "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  double v = json_object_get_double_member(json_object_get_object_member(o, "loss"), "mafalda");
  if (band)
    g_assert_cmpint(json_object_get_int_member(o, "band"), ==, atoi(band));
  g_object_unref(p);
  cli_run_clear(&r);
  return v;
}

/* A band costs loss; band T is no band; band 1 is the diagonal optimum. */
static void test_band(void) {
  double full = mafalda_loss(NULL), b3 = mafalda_loss("3"), b1 = mafalda_loss("1");
  g_assert_cmpfloat(test_rel_diff(full, 319.7714127795614), <, 1e-8);
  g_assert_cmpfloat(b3, >, full);
  g_assert_cmpfloat(b1, >, b3);
  g_assert_cmpfloat(test_rel_diff(mafalda_loss("12"), full), <, 1e-9);
}

/* --skip-dense: no dense H, Mafalda and DMF null, the structured strategies
 * and trace(H) (from the spectral form) as with the dense H. */
static void test_skip_dense(void) {
  JsonParser *pd, *ps;
  CliRun d = cli_run("mafalda", "--generate", "florentine", "-k", "5", "-b", "16",
                     "--toeplitz-band", "8", "--format", "json");
  CliRun s = cli_run("mafalda", "--generate", "florentine", "-k", "5", "-b", "16",
                     "--toeplitz-band", "8", "--skip-dense", "--format", "json");
  g_assert_cmpint(d.status, ==, 0);
  g_assert_cmpint(s.status, ==, 0);
  JsonObject *od = cli_run_json(&d, &pd), *os = cli_run_json(&s, &ps);
  g_assert_cmpfloat(test_rel_diff(json_object_get_double_member(od, "trace_H"),
                                  json_object_get_double_member(os, "trace_H")),
                    <, 1e-10);
  JsonObject *ld = json_object_get_object_member(od, "loss");
  JsonObject *ls = json_object_get_object_member(os, "loss");
  g_assert_true(json_object_get_null_member(ls, "mafalda"));
  g_assert_true(json_object_get_null_member(ls, "dmf"));
  for (guint i = 1; i < G_N_ELEMENTS(strategies); i++) {
    if (g_str_equal(strategies[i], "dmf"))
      continue;
    g_assert_cmpfloat(test_rel_diff(json_object_get_double_member(ld, strategies[i]),
                                    json_object_get_double_member(ls, strategies[i])),
                      <, 1e-12);
  }
  /* A band-8 Toeplitz C is feasible for Mafalda's problem: never below its optimum. */
  double toe = json_object_get_double_member(ld, "toeplitz");
  g_assert_cmpfloat(toe, >, json_object_get_double_member(ld, "mafalda"));
  g_assert_cmpint(json_object_get_int_member(os, "toeplitz_band"), ==, 8);
  g_assert_cmpint(json_object_get_int_member(os, "blt_buffers"), ==, 4);
  /* The BLT strategy is feasible for Mafalda's problem too. */
  g_assert_cmpfloat(json_object_get_double_member(ld, "blt"), >,
                    json_object_get_double_member(ld, "mafalda"));
  g_object_unref(pd);
  g_object_unref(ps);
  cli_run_clear(&d);
  cli_run_clear(&s);
}

static void expect_failure(int status, const char *needle, const char *const *args) {
  CliRun r = cli_run_v(args);
  g_assert_cmpint(r.status, ==, status);
  if (!strstr(r.err, needle))
    g_error("stderr '%s' lacks '%s'", r.err, needle);
  g_assert_cmpstr(r.out, ==, "");
  cli_run_clear(&r);
}

#define EXPECT_FAILURE(status, needle, ...)                                                        \
  expect_failure(status, needle, (const char *const[]){__VA_ARGS__, NULL})

static void test_bad_input(void) {
  EXPECT_FAILURE(2, "--epochs and --batches", "mafalda", "--generate", "florentine", "-b", "4");
  EXPECT_FAILURE(2, "positive", "mafalda", "--generate", "florentine", "-k", "0", "-b", "4");
  EXPECT_FAILURE(2, "positive", "mafalda", "--generate", "florentine", "-k", "3", "-b", "-2");
  EXPECT_FAILURE(2, "too large", "mafalda", "--generate", "florentine", "-k", "100000", "-b",
                 "100000");
  EXPECT_FAILURE(2, "--toeplitz-band", "mafalda", "--generate", "florentine", "-k", "3", "-b", "4",
                 "--toeplitz-band", "13");
  EXPECT_FAILURE(2, "--blt-buffers: 9 must be between 1 and 8", "mafalda", "--generate",
                 "florentine", "-k", "3", "-b", "4", "--blt-buffers", "9");
  EXPECT_FAILURE(2, "--blt-buffers: -1", "mafalda", "--generate", "florentine", "-k", "3", "-b",
                 "4", "--blt-buffers", "-1");
  EXPECT_FAILURE(2, "infeasible band 0", "mafalda", "--generate", "florentine", "-k", "3", "-b",
                 "4", "--band", "0");
  EXPECT_FAILURE(2, "between 1 and T = 12", "mafalda", "--generate", "florentine", "-k", "3", "-b",
                 "4", "--band", "13");
  EXPECT_FAILURE(2, "workload", "mafalda", "--generate", "florentine", "-k", "3", "-b", "4",
                 "--workload", "average");
  EXPECT_FAILURE(2, "--format", "mafalda", "--generate", "florentine", "-k", "3", "-b", "4",
                 "--format", "csv");
  EXPECT_FAILURE(2, "exactly one", "mafalda", "-k", "3", "-b", "4");
  /* T = 10^6: refused before any work, saying how much memory it needs:
   * 12 T^2 + (2 * 16 + 8) (T^2/2 + T) doubles, 3.2e13 doubles = 256 TB. */
  EXPECT_FAILURE(1, "would need 256.0 TB", "mafalda", "--generate", "florentine", "-k", "1000",
                 "-b", "1000");
  /* 300,000 nodes: the dense gossip matrix alone is 720 GB; refused before it. */
  EXPECT_FAILURE(1, "would need 2.9 TB", "mafalda", "--generate", "ring:n=300000", "-k", "2", "-b",
                 "2");
  char *disc = cli_test_data_path("mafalda-disconnected.edges");
  EXPECT_FAILURE(1, "not connected", "mafalda", "--graph", disc, "-k", "2", "-b", "3");
  EXPECT_FAILURE(1, "missing-file.edges", "mafalda", "--graph", "missing-file.edges", "-k", "2",
                 "-b", "3");
  /* --lcc keeps the 4-node component: connected, so it runs. */
  CliRun r = cli_run("mafalda", "--graph", disc, "--lcc", "-k", "2", "-b", "3", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "nodes"), ==, 4);
  g_object_unref(p);
  cli_run_clear(&r);
  g_free(disc);
}

/* Runs `dpgossip mafalda ... --out CSV` with OPENBLAS_NUM_THREADS=@threads;
 * returns the CSV's text. */
static char *csv_with_threads(const char *threads, const char *csv) {
  char *graph = cli_data_path("graphs/florentine.edges");
  const char *argv[] = {
      g_getenv("DPGOSSIP"), "mafalda", "--graph", graph, "-k", "5", "-b", "16", "--out", csv, NULL};
  char **env = g_environ_setenv(g_get_environ(), "OPENBLAS_NUM_THREADS", threads, TRUE);
  int wait_status = 0;
  GError *err = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, cli_run_die_with_test, NULL, NULL,
                             NULL, &wait_status, &err));
  g_assert_no_error(err);
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  g_unlink(csv);
  g_strfreev(env);
  g_free(graph);
  return text;
}

/* The CSV is a function of the inputs only: byte-identical from run to run
 * and whatever OPENBLAS_NUM_THREADS says (multithreaded BLAS rounds
 * differently: at T = 80 two threads alone change the last digits). */
static void test_deterministic(void) {
  char *dir = test_tmpdir("mafalda");
  char *csv = g_build_filename(dir, "C.csv", NULL);
  char *one = csv_with_threads("1", csv);
  char *again = csv_with_threads("1", csv);
  char *two = csv_with_threads("2", csv);
  g_assert_cmpuint(strlen(one), >, 80 * 80 * 2);
  g_assert_cmpstr(one, ==, again);
  g_assert_cmpstr(one, ==, two);
  g_free(one);
  g_free(again);
  g_free(two);
  g_rmdir(dir);
  g_free(csv);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/mafalda/florentine-k5-b16", test_florentine_k5_b16);
  g_test_add_func("/cli/mafalda/csv-k3-b4", test_csv_k3_b4);
  g_test_add_func("/cli/mafalda/band", test_band);
  g_test_add_func("/cli/mafalda/skip-dense", test_skip_dense);
  g_test_add_func("/cli/mafalda/deterministic", test_deterministic);
  g_test_add_func("/cli/mafalda/bad-input", test_bad_input);
  return g_test_run();
}
