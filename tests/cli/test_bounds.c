/*
 * tests/cli/test_bounds.c: sizes checked before allocating: errors, not
 * aborts. Each case used to end in GLib's allocation abort (or
 * run for minutes); each must now fail cleanly with the size it would need,
 * or finish within its bounds, without allocating much.
 */
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <glib/gstdio.h>

#include "tests/common/checks.h"
#include "tests/common/files.h"
#include "tests/common/run_json.h"

/* This run's own folder (test_tmpdir), made in main: two runs at once
 * never write the same file. */
static char *tmp_dir;

/* A clean failure: exit 1 (not a signal), one message on stderr holding
 * every needle. */
static void assert_clean_error(const CliRun *r, const char *const *needles) {
  if (r->status != 1)
    g_error("expected exit 1, got %d; stderr: %s", r->status, r->err);
  for (guint i = 0; needles[i] != NULL; i++)
    if (strstr(r->err, needles[i]) == NULL)
      g_error("stderr lacks '%s': %s", needles[i], r->err);
}
#define assert_error(r, ...) assert_clean_error(r, (const char *const[]){__VA_ARGS__, NULL})


static gboolean skip_under_asan(void) {
#if TEST_UNDER_ASAN
  g_test_skip("an address-space limit and AddressSanitizer's shadow memory do not mix");
  return TRUE;
#else
  return FALSE;
#endif
}

/* A star of 200,000 nodes: the summary used to allocate its 320 GB dense W.
 * Now ARPACK gives the closed form 1/2 (tests/topologies/test_gossip.c) and
 * the diameter, past the time bound, says how to get it. */
static void test_graph_large_summary(void) {
  CliRun r = cli_run("graph", "--generate", "star:n=200000", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "nodes"), ==, 200000);
  g_assert_cmpfloat_with_epsilon(json_object_get_double_member(o, "spectral_gap"), 0.5, 1e-9);
  g_assert_true(json_object_get_null_member(o, "diameter"));
  g_assert_nonnull(strstr(json_object_get_string_member(o, "diameter_note"), "--exact"));
  g_assert_true(json_object_get_boolean_member(o, "connected"));
  g_object_unref(p);
  cli_run_clear(&r);

  /* A ring's gap of 4e-10 does not converge within the bound: a note, not a
   * guess, in the table too. */
  r = cli_run("graph", "--generate", "ring:n=100000");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "spectral gap   not computed: ARPACK did not converge"));
  g_assert_nonnull(strstr(r.out, "rerun with --exact"));
  cli_run_clear(&r);
}

/* Generators are checked before igraph allocates. */
static void test_graph_generator_budget(void) {
  CliRun r = cli_run("graph", "--generate", "erdos:n=10000000,p=0.5");
  assert_error(&r, "erdos:n=10000000,p=0.5", "would need", "PB of memory");
  cli_run_clear(&r);
  if (skip_under_asan())
    return;
  r = cli_run_limited((gsize)2 << 30, "graph", "--generate", "ring:n=67108864");
  assert_error(&r, "ring:n=67108864", "would need 10.7 GB of memory");
  cli_run_clear(&r);
}

static char *write_temp(const char *name, const char *text) {
  char *path = g_build_filename(tmp_dir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

/* A stray CSV label of 2e9 with classes=auto, or classes=2^31-1, made a
 * softmax of 2e9 outputs (48 GB per copy here, 50 features): refused by the
 * model's own size. */
static void test_csv_classes(void) {
  GString *csv = g_string_new(NULL);
  for (int i = 0; i < 40; i++) {
    for (int f = 0; f < 50; f++)
      g_string_append_printf(csv, "%d,", (i * 7 + f) % 11);
    g_string_append_printf(csv, "%s\n", i == 3 ? "2000000000" : i % 2 ? "1" : "0");
  }
  char *path = write_temp("dpg-bounds-labels.csv", csv->str);
  g_string_free(csv, TRUE);
  char *auto_spec = g_strdup_printf("csv:%s,classes=auto", path);
  char *max_spec = g_strdup_printf("csv:%s,classes=2147483647", path);
  char *out = g_build_filename(tmp_dir, "dpg-bounds-train.csv", NULL);
  CliRun r = cli_run("train", "--generate", "florentine", "--dataset", auto_spec, "--out", out);
  assert_error(&r, "2000000001 outputs", "would need", "classes=auto counts");
  cli_run_clear(&r);
  r = cli_run("train", "--generate", "florentine", "--dataset", max_spec, "--out", out);
  assert_error(&r, "2147483647 outputs", "would need");
  cli_run_clear(&r);
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_unlink(path);
  g_free(path);
  g_free(auto_spec);
  g_free(max_spec);
  g_free(out);
}

/* The runtime's models are estimated before any is allocated: 1,000 nodes of
 * a 100-million-parameter MLP (each 0.8 GB of parameters, gradient and
 * scratch). */
static void test_train_models_budget(void) {
  char *out = g_build_filename(tmp_dir, "dpg-bounds-train.csv", NULL);
  CliRun r = cli_run("train", "--generate", "ring:n=1000", "--dataset",
                     "synthetic:linear,n=2000,d=1000", "--model", "mlp:hidden=100000", "--out",
                     out);
  assert_error(&r, "the models of 1000 nodes", "100200001 parameters each", "would need",
               "TB of memory");
  cli_run_clear(&r);
  g_free(out);
}

/* Observer accounting of 20,000 nodes over 200 rounds: the dense knowledge
 * (node 0 has degree 14: 200 x 15 rows, by 4 million gradient columns, and
 * as many noise ones: 3 x 3e3 x 4e6 doubles, 288 GB) is refused before
 * simulating (which itself would need 3.8 TB of provenance). */
static void test_observer_budget(void) {
  gint64 t0 = g_get_monotonic_time();
  CliRun r = cli_run("account", "--generate", "erdos:n=20000,p=0.001,seed=1", "--rounds", "200",
                     "--trust", "pndp", "-a", "0", "--path", "observer", "--accountant", "dense");
  g_assert_cmpint(r.status, !=, 0);
  g_assert_cmpint(r.status, !=, -1);
  g_assert_nonnull(strstr(r.err, "accounting the attacker knowledge would need 288.0 GB"));
  g_assert_cmpint(g_get_monotonic_time() - t0, <, 20 * G_USEC_PER_SEC);
  cli_run_clear(&r);
  /* The streaming accountant (the default) at T = 400: the per-victim
   * blocks alone, n T^2 doubles, are 25.6 GB (twice: the copy handed out),
   * and the noise of a state of 20,000 variables 4 n^2 doubles (12.8 GB). */
  t0 = g_get_monotonic_time();
  r = cli_run("account", "--generate", "erdos:n=20000,p=0.001,seed=1", "--rounds", "400", "--trust",
              "pndp", "-a", "0", "--path", "observer");
  g_assert_cmpint(r.status, !=, 0);
  g_assert_cmpint(r.status, !=, -1);
  g_assert_nonnull(strstr(r.err, "the streaming accountant's per-victim blocks"));
  g_assert_nonnull(strstr(r.err, "would need"));
  g_assert_cmpint(g_get_monotonic_time() - t0, <, 20 * G_USEC_PER_SEC);
  cli_run_clear(&r);
}

/* A synthetic dataset's size is known to validate (80 GB of features here:
 * synthetic:n=1e8,d=100, 162.4 GB while split; 72 PB for the second). */
static void test_validate_synthetic(void) {
  const char *datasets[] = {"synthetic:linear,n=4294967295,d=1048576",
                            "synthetic:linear,n=100000000,d=100"};
  for (guint i = 0; i < G_N_ELEMENTS(datasets); i++) {
    char *ini = g_strdup_printf("[topology]\ngenerate = florentine\n[protocol]\nname = dsgd\n"
                                "[task]\ndataset = %s\n[output]\ndir = out\n",
                                datasets[i]);
    char *path = write_temp("dpg-bounds-synthetic.ini", ini);
    CliRun r = i == 0 ? cli_run("validate", path)
                      : (skip_under_asan() ? (CliRun){0}
                                           : cli_run_limited((gsize)2 << 30, "validate", path));
    if (r.err != NULL) {
      assert_error(&r, ":6: task.dataset", "would need",
                   i == 0 ? "PB of memory" : "162.4 GB of memory");
      cli_run_clear(&r);
    }
    g_unlink(path);
    g_free(path);
    g_free(ini);
  }
}

/* Devices and over-long lines: each input read whole refuses a non-regular
 * file; lines longer than 1 MiB are FILE:LINE errors; a trace is streamed,
 * so only its line is bounded (64 MiB). */
/* An edge list is measured before it is read: 4 million distinct edges (a
 * 55 MB file) under a 600 MB address-space limit are refused with the size
 * needed, where reading them used to end in an allocation abort. */
static void test_edge_list_budget(void) {
  if (skip_under_asan())
    return;
  char *path = g_build_filename(tmp_dir, "dpg-bounds-chain.edges", NULL);
  FILE *f = fopen(path, "w");
  g_assert_nonnull(f);
  for (guint i = 0; i < 4000000; i++)
    fprintf(f, "%u %u\n", i, i + 1);
  g_assert_cmpint(fclose(f), ==, 0);
  CliRun r = cli_run_limited((gsize)600 << 20, "graph", "--graph", path);
  assert_error(&r, path, "4000001 lines", "would need");
  cli_run_clear(&r);
  g_unlink(path);
  g_free(path);
}

/* A synthetic dataset counted whole: 11 million records of 10 features
 * need 2.0 GB while split (the records, their train/test copies and the
 * split's permutation), more than what a 2 GiB address space leaves beside
 * the libraries already mapped; both used to be left out, and the run then
 * died in an allocation. */
static void test_synthetic_budget(void) {
  if (skip_under_asan())
    return;
  char *out = g_build_filename(tmp_dir, "dpg-bounds-synthetic.csv", NULL);
  CliRun r = cli_run_limited((gsize)2 << 30, "train", "--generate", "florentine", "--dataset",
                             "synthetic:linear,n=11000000,d=10", "--out", out, "-q");
  assert_error(&r, "11000000 records x 10 features would need 2.0 GB of memory");
  cli_run_clear(&r);
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_free(out);
}

/* A Toeplitz band beyond T is refused before the band's 8 GB of
 * coefficients are allocated (under a 2 GB limit: no allocation abort). */
static void test_toeplitz_band(void) {
  if (skip_under_asan())
    return;
  CliRun r = cli_run_limited((gsize)2 << 30, "account", "--generate", "florentine", "--rounds", "6",
                             "--trust", "pndp", "-a", "0", "-p",
                             "mfdsgd:C=toeplitz,band=1000000000");
  g_assert_cmpint(r.status, ==, 2); /* account: a protocol parameter out of range */
  g_assert_nonnull(strstr(r.err, "C=toeplitz: band=1000000000 must be between 1 and T = 6"));
  cli_run_clear(&r);
  char *out = g_build_filename(tmp_dir, "dpg-bounds-toeplitz.csv", NULL);
  r = cli_run_limited((gsize)2 << 30, "train", "--generate", "florentine", "--dataset",
                      "synthetic:linear,n=100,d=2", "-k", "1", "-b", "3", "-p",
                      "mfdsgd:C=toeplitz,band=1000000000", "--out", out, "-q");
  assert_error(&r, "C=toeplitz: band=1000000000 must be between 1 and T = 3");
  cli_run_clear(&r);
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_free(out);
}

/* A churn file that does not parse is a run failure (exit 1) with FILE:LINE
 * in train and account alike; a misspelled schedule stays a usage error. */
static void test_churn_file_status(void) {
  char *path = g_build_filename(tmp_dir, "dpg-bounds-churn.txt", NULL);
  char *out = g_build_filename(tmp_dir, "dpg-bounds-churn.csv", NULL);
  g_assert_true(g_file_set_contents(path, "3 2\n0 x\n", -1, NULL));
  char *churn = g_strdup_printf("churn:%s", path);
  char *where = g_strdup_printf("%s:2:", path);
  CliRun r = cli_run("train", "--generate", "florentine", "--schedule", churn, "--dataset",
                     "synthetic:linear,n=100,d=2", "--out", out);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, where));
  cli_run_clear(&r);
  r = cli_run("account", "--generate", "florentine", "--rounds", "3", "--trust", "pndp", "-a",
              "0", "--schedule", churn);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, where));
  cli_run_clear(&r);
  r = cli_run("account", "--generate", "florentine", "--rounds", "3", "--trust", "pndp", "-a",
              "0", "--schedule", "churn:leave=0.1");
  g_assert_cmpint(r.status, ==, 2);
  cli_run_clear(&r);
  g_unlink(path);
  g_free(where);
  g_free(churn);
  g_free(out);
  g_free(path);
}

static void test_devices_and_long_lines(void) {
  const char *dev[] = {"/dev/zero", "/dev/urandom"};
  char *out = g_build_filename(tmp_dir, "dpg-bounds-train.csv", NULL);
  for (guint i = 0; i < G_N_ELEMENTS(dev); i++) {
    char *csv = g_strdup_printf("csv:%s", dev[i]);
    char *c = g_strdup_printf("mfdsgd:C=%s", dev[i]);
    char *churn = g_strdup_printf("churn:%s", dev[i]);
    CliRun r = cli_run("graph", "--graph", dev[i]);
    assert_error(&r, dev[i], "not a regular file");
    cli_run_clear(&r);
    r = cli_run("train", "--generate", "florentine", "--dataset", csv, "--out", out);
    assert_error(&r, dev[i], "not a regular file");
    cli_run_clear(&r);
    r = cli_run("validate", dev[i]);
    assert_error(&r, dev[i], "not a regular file");
    cli_run_clear(&r);
    r = cli_run("account", "--generate", "florentine", "--rounds", "3", "--trust", "pndp", "-a",
                "0", "--protocol", c);
    assert_error(&r, dev[i], "not a regular file");
    cli_run_clear(&r);
    r = cli_run("train", "--generate", "florentine", "--schedule", churn, "--dataset",
                "synthetic:linear,n=100,d=2", "--out", out);
    g_assert_cmpint(r.status, ==, 1); /* a file that cannot be read: a run failure */
    g_assert_nonnull(strstr(r.err, "cannot read churn file"));
    g_assert_nonnull(strstr(r.err, "not a regular file"));
    cli_run_clear(&r);
    r = cli_run("replay", "--check", dev[i]);
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "not a dpgossip trace"));
    cli_run_clear(&r);
    g_free(csv);
    g_free(c);
    g_free(churn);
  }
  /* Line 3 of 2 MiB. */
  GString *text = g_string_new("0 1\n1 2\n");
  for (int i = 0; i < (2 << 20); i++)
    g_string_append_c(text, '7');
  g_string_append(text, " 3\n");
  char *path = write_temp("dpg-bounds-long.edges", text->str);
  g_string_free(text, TRUE);
  char *where = g_strdup_printf("%s:3: line longer than 1 MiB", path);
  CliRun r = cli_run("graph", "--graph", path);
  assert_error(&r, where);
  cli_run_clear(&r);
  g_unlink(path);
  g_free(path);
  g_free(where);
  /* A sparse file of 5 GiB (no disk used) is over the 4 GiB limit. */
  path = g_build_filename(tmp_dir, "dpg-bounds-huge.edges", NULL);
  FILE *f = fopen(path, "w");
  g_assert_nonnull(f);
  g_assert_cmpint(ftruncate(fileno(f), (off_t)5 << 30), ==, 0);
  fclose(f);
  r = cli_run("graph", "--graph", path);
  assert_error(&r, path, "larger than the 4.3 GB limit");
  cli_run_clear(&r);
  g_unlink(path);
  g_free(path);
  g_free(out);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  tmp_dir = test_tmpdir("bounds");
  g_test_add_func("/cli/bounds/graph-large-summary", test_graph_large_summary);
  g_test_add_func("/cli/bounds/graph-generator-budget", test_graph_generator_budget);
  g_test_add_func("/cli/bounds/csv-classes", test_csv_classes);
  g_test_add_func("/cli/bounds/train-models-budget", test_train_models_budget);
  g_test_add_func("/cli/bounds/observer-budget", test_observer_budget);
  g_test_add_func("/cli/bounds/validate-synthetic", test_validate_synthetic);
  g_test_add_func("/cli/bounds/devices-long-lines", test_devices_and_long_lines);
  g_test_add_func("/cli/bounds/churn-file-status", test_churn_file_status);
  g_test_add_func("/cli/bounds/edge-list-budget", test_edge_list_budget);
  g_test_add_func("/cli/bounds/toeplitz-band", test_toeplitz_band);
  g_test_add_func("/cli/bounds/synthetic-budget", test_synthetic_budget);
  int status = g_test_run();
  test_rmtree(tmp_dir);
  g_free(tmp_dir);
  return status;
}
