/*
 * tests/cli/test_option_values.c: values that used to be dropped, wrapped or
 * accepted only to fail later: `run --seed -1` was ignored,
 * `train --seed -1` became 2^64 - 1, `replay --speed 1e-15` overflowed into
 * full speed, `train --test-fraction 0` printed a NaN loss with exit 0, and
 * `validate` passed synthetic:linear,d=0 that run rejected.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

static char *tmpdir;

static char *write_tmp(const char *name, const char *text) {
  char *path = g_build_filename(tmpdir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static void expect(CliRun r, int status, const char *fragment) {
  if (r.status != status || strstr(r.err, fragment) == NULL)
    g_error("status %d (want %d), stderr '%s' (want '%s')", r.status, status, r.err, fragment);
  cli_run_clear(&r);
}

#define SCENARIO "[topology]\ngenerate = ring:n=6\n[protocol]\nname = dsgd\nsigma = 1\n"

/* A NaN sigma is refused, not taken as "not given" (sigma 1, exit 0); a
 * negative band is refused, not taken as "no band". */
static void test_nan_sigma_negative_band(void) {
  char *out = g_build_filename(tmpdir, "nan.csv", NULL);
  const char *bad[] = {"nan", "NaN", "-nan", "1x", ""};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    expect(cli_run("account", "--generate", "ring:n=4", "--rounds", "3", "--trust", "pndp", "-a",
                   "0", "--sigma", bad[i]),
           2, "--sigma: '");
    expect(cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40",
                   "--sigma", bad[i], "--out", out),
           2, "is not a number");
  }
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  CliRun r = cli_run("account", "--generate", "ring:n=4", "--rounds", "3", "--trust", "pndp", "-a",
                     "0", "--sigma", "2.5");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "sigma = 2.5"));
  cli_run_clear(&r);
  expect(cli_run("mafalda", "--generate", "ring:n=4", "-k", "2", "-b", "3", "--band", "-1"), 2,
         "--band: infeasible band -1");
  g_free(out);
}

static void test_seeds(void) {
  char *ini = write_tmp("s.ini", SCENARIO);
  char *out = g_build_filename(tmpdir, "out", NULL);
  expect(cli_run("run", ini, "--seed", "-1", "--out", out, "-q"), 1,
         "simulation.seed: '-1' is not a non-negative integer");
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  expect(cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40", "--seed",
                 "-1", "--out", out),
         2, "--seed: '-1' is not an integer in [0, 2^64 - 1]");
  expect(cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40", "--seed",
                 "18446744073709551616", "--out", out),
         2, "--seed:");
  /* The largest seed is a seed. */
  char *csv = g_build_filename(tmpdir, "max.csv", NULL);
  CliRun r = cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40",
                     "--seed", "18446744073709551615", "--out", csv);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  g_unlink(csv);
  g_free(csv);
  g_unlink(ini);
  g_free(ini);
  g_free(out);
}

static void test_test_fraction(void) {
  char *out = g_build_filename(tmpdir, "tf.csv", NULL);
  const char *bad[] = {"0", "1", "-0.5", "nan"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++)
    expect(cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40",
                   "--test-fraction", bad[i], "--out", out),
           2, "--test-fraction must be in (0, 1)");
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_free(out);
}

/* --eval-nodes and --eval-rows take a positive count or all; a sample is
 * said on stdout and is what the metrics table holds. */
static void test_eval_sample(void) {
  char *out = g_build_filename(tmpdir, "es.csv", NULL);
  const char *bad[] = {"0", "-3", "x", "4294967295", ""};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    expect(cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40",
                   "--eval-nodes", bad[i], "--out", out),
           2, "--eval-nodes: '");
    expect(cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40",
                   "--eval-rows", bad[i], "--out", out),
           2, "--eval-rows: '");
  }
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  CliRun r = cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40",
                     "--seed", "3", "--eval-nodes", "2", "--eval-rows", "3", "--out", out);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "evaluation: 2 of 4 nodes on 3 of 8 test rows, drawn with seed 3"));
  cli_run_clear(&r);
  char *text = NULL;
  g_assert_true(g_file_get_contents(out, &text, NULL, NULL));
  char **lines = g_strsplit(text, "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 2 + 1); /* header, 2 nodes at T, "" */
  g_strfreev(lines);
  g_free(text);
  r = cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40",
              "--eval-nodes", "all", "--eval-rows", "all", "--out", out);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_null(strstr(r.out, "evaluation:"));
  cli_run_clear(&r);
  g_free(out);
}

static void test_replay_speed(void) {
  char *trace = write_tmp("t.trace", "");
  const char *bad[] = {"1e-15", "1e-7", "0", "2e6"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++)
    expect(cli_run("replay", "--speed", bad[i], "--publish", "tcp://127.0.0.1:0", trace), 2,
           "--speed:");
  g_unlink(trace);
  g_free(trace);
}

static void test_validate_dataset_options(void) {
  const char *specs[] = {"synthetic:linear,d=0", "synthetic:logistic,classes=1",
                         "synthetic:linear,n=0", "synthetic:linear,bogus=1"};
  const char *want[] = {"d=0 is out of range", "classes=1 is out of range", "n=0 is out of range",
                        "bogus"};
  for (guint i = 0; i < G_N_ELEMENTS(specs); i++) {
    char *text = g_strdup_printf(SCENARIO "[task]\ndataset = %s\n", specs[i]);
    char *ini = write_tmp("d.ini", text);
    expect(cli_run("validate", ini), 1, want[i]);
    g_unlink(ini);
    g_free(ini);
    g_free(text);
  }
  char *ini = write_tmp("ok.ini", SCENARIO "[task]\ndataset = synthetic:logistic,d=3,classes=3\n");
  CliRun r = cli_run("validate", ini);
  if (r.status != 0)
    g_error("a valid dataset refused: %s", r.err);
  cli_run_clear(&r);
  g_unlink(ini);
  g_free(ini);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  tmpdir = test_tmpdir("optval");
  g_test_add_func("/cli/option-values/seeds", test_seeds);
  g_test_add_func("/cli/option-values/test-fraction", test_test_fraction);
  g_test_add_func("/cli/option-values/eval-sample", test_eval_sample);
  g_test_add_func("/cli/option-values/replay-speed", test_replay_speed);
  g_test_add_func("/cli/option-values/validate-dataset", test_validate_dataset_options);
  g_test_add_func("/cli/option-values/nan-sigma-band", test_nan_sigma_negative_band);
  int rc = g_test_run();
  g_rmdir(tmpdir);
  g_free(tmpdir);
  return rc;
}
