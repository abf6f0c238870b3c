/*
 * tests/cli/test_audit_onerun.c: `dpgossip audit --attack onerun`, the
 * one-run audit of a D-SGD training run (an MLP on Florentine):
 *   - almost no noise (mu = 200): every guess is right and the bound is the
 *     closed form of all-right guesses, logit(0.05^(1/r)) less its delta term;
 *   - strong noise (mu = 0.1): the bound is 0;
 *   - the bound never exceeds the accounted epsilon (status consistent),
 *     whose mu is the LDP closed form sqrt(k) / sigma;
 *   - the same seed gives the same output; the tidy row names its attack,
 *     in JSON, CSV and the table;
 *   - bad inputs are usage errors, canaries beyond memory too; so are the
 *     distinguishing audit's options given to the one-run audit and the
 *     one-run audit's given without --attack onerun.
 */
#include <math.h>
#include <string.h>

#include "tests/common/run_json.h"
#include "tests/common/tolerance.h"

static double num(JsonObject *o, const char *k) {
  g_assert_true(json_object_has_member(o, k));
  return json_object_get_double_member(o, k);
}

static CliRun audit(const char *sigma, const char *seed) {
  return cli_run("audit", "--attack", "onerun", "--generate", "florentine", "--dataset",
                 "synthetic:linear,n=600,d=10", "--model", "mlp:hidden=32", "-k", "4", "-b", "8",
                 "--sigma", sigma, "--canaries", "200", "--seed", seed, "--format", "json");
}

static JsonObject *row(CliRun *r, JsonParser **p, double sigma) {
  if (r->status != 0)
    g_error("%s", r->err);
  JsonObject *o = cli_run_json(r, p);
  g_assert_cmpstr(json_object_get_string_member(o, "attack"), ==, "onerun");
  g_assert_cmpint(json_object_get_int_member(o, "canaries"), ==, 200);
  g_assert_cmpint(json_object_get_int_member(o, "guesses"), ==, 100);
  g_assert_cmpstr(json_object_get_string_member(o, "status"), ==, "consistent");
  dpg_test_assert_close(num(o, "mu"), 2.0 / sigma, dpg_tol(1, 3),
                        "sqrt(k) / sigma: a sqrt, a parse, a division");
  g_assert_cmpfloat(num(o, "epsilon_lower"), <=, num(o, "epsilon"));
  return o;
}

static void test_no_noise(void) {
  CliRun r = audit("0.01", "2");
  JsonParser *p = NULL;
  JsonObject *o = row(&r, &p, 0.01);
  g_assert_cmpint(json_object_get_int_member(o, "correct"), ==, 100);
  double q = pow(0.05, 1.0 / 100), closed = log(q / (1 - q)); /* 3.4931 */
  double eps = num(o, "epsilon_lower");
  g_assert_cmpfloat(eps, <=, closed);
  g_assert_cmpfloat(eps, >, closed - 0.01);
  g_object_unref(p);
  cli_run_clear(&r);
}

static void test_strong_noise(void) {
  CliRun r = audit("20", "2");
  JsonParser *p = NULL;
  JsonObject *o = row(&r, &p, 20);
  g_assert_cmpfloat(num(o, "epsilon_lower"), ==, 0);
  g_assert_cmpint(json_object_get_int_member(o, "correct"), <, 70);
  g_object_unref(p);
  cli_run_clear(&r);
}

static void test_deterministic(void) {
  CliRun a = audit("1", "5"), b = audit("1", "5");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_cmpstr(a.out, ==, b.out);
  JsonParser *p = NULL;
  row(&a, &p, 1);
  g_object_unref(p);
  cli_run_clear(&a);
  cli_run_clear(&b);
}

static void test_usage(void) {
  /* Option, bad value, what the message names: the training run's checks
   * are train's, in its words; no noise is the audit's own refusal. */
  const char *bad[][3] = {
      {"--canaries", "1", "--canaries"},
      {"--sigma", "0", "--sigma must be > 0 (got 0): without noise nothing is protected"},
      {"--sigma", "-1", "--sigma must be >= 0, --clip and --lr > 0"},
      {"--guesses", "101", "--guesses"},
      {"--delta", "0", "--delta"},
      {"--format", "xml", "--format"},
      {"-k", "0", "--epochs and --batches must be positive (got 0 and 1)"},
      {"--test-fraction", "1", "(got 1): the test loss needs test records"},
      {"--seed", "-3", "--seed: '-3' is not an integer in [0, 2^64 - 1]"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    CliRun r = cli_run("audit", "--attack", "onerun", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=600,d=10", bad[i][0], bad[i][1]);
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, bad[i][2]));
    cli_run_clear(&r);
  }
  /* m d doubles beyond any memory: refused before allocating them. */
  CliRun big = cli_run("audit", "--attack=onerun", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=600,d=10", "--model", "mlp:hidden=40000",
                       "--canaries", "1000000");
  g_assert_cmpint(big.status, ==, 2);
  g_assert_nonnull(strstr(big.err, "use fewer --canaries"));
  cli_run_clear(&big);
  CliRun r = cli_run("audit", "--attack", "onerun", "--generate", "florentine");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--dataset is required"));
  cli_run_clear(&r);
}

/* The two audits take different options: each names the other's. */
static void test_other_options(void) {
  const char *onerun_bad[][2] = {{"-a", "0"}, {"--victim", "1"}, {"--trials=40", NULL},
                                 {"-T", "4"}};
  for (guint i = 0; i < G_N_ELEMENTS(onerun_bad); i++) {
    CliRun r = cli_run("audit", "--attack", "onerun", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=600,d=10", onerun_bad[i][0], onerun_bad[i][1]);
    g_assert_cmpint(r.status, ==, 2);
    char *want = g_strdup_printf("%.*s does not apply to --attack onerun",
                                 (int)strcspn(onerun_bad[i][0], "="), onerun_bad[i][0]);
    if (strstr(r.err, want) == NULL)
      g_error("%s: '%s' lacks '%s'", onerun_bad[i][0], r.err, want);
    g_free(want);
    cli_run_clear(&r);
  }
  CliRun r = cli_run("audit", "--generate", "florentine", "-a", "0", "--victim", "1",
                     "--canaries", "200");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--canaries is an option of the one-run audit"));
  g_assert_nonnull(strstr(r.err, "add --attack onerun"));
  cli_run_clear(&r);
  /* A misspelled attack lists onerun among the choices. */
  r = cli_run("audit", "--generate", "florentine", "-a", "0", "--victim", "1", "--attack",
              "one-run");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "or onerun (the one-run audit of a training run)"));
  cli_run_clear(&r);
  /* The old command is gone. */
  r = cli_run("audit-train", "--generate", "florentine");
  g_assert_cmpint(r.status, ==, 2);
  cli_run_clear(&r);
}

/* The CSV and the table name the attack too; both carry the JSON's bound. */
static void test_formats(void) {
  CliRun j = audit("1", "5");
  JsonParser *p = NULL;
  double eps_low = num(row(&j, &p, 1), "epsilon_lower");
  g_object_unref(p);
  cli_run_clear(&j);
  const char *fmts[] = {"csv", "table"};
  for (guint i = 0; i < G_N_ELEMENTS(fmts); i++) {
    CliRun r = cli_run("audit", "--attack", "onerun", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=600,d=10", "--model", "mlp:hidden=32", "-k", "4", "-b",
                       "8", "--sigma", "1", "--canaries", "200", "--seed", "5", "--format",
                       fmts[i]);
    g_assert_cmpint(r.status, ==, 0);
    gchar **lines = g_strsplit(r.out, "\n", -1);
    g_assert_cmpuint(g_strv_length(lines), ==, 3); /* header, one row, "" */
    if (i == 0) {
      g_assert_true(g_str_has_prefix(lines[0], "protocol,trust,attack,"));
      g_assert_true(g_str_has_prefix(lines[1], "dsgd,ldp,onerun,"));
      gchar **f = g_strsplit(lines[1], ",", -1);
      g_assert_cmpfloat(g_ascii_strtod(f[9], NULL), ==, eps_low);
      g_strfreev(f);
    } else {
      g_assert_nonnull(strstr(lines[0], "epsilon_lower"));
      g_assert_true(g_str_has_prefix(lines[1], "dsgd"));
      g_assert_nonnull(strstr(lines[1], "consistent"));
    }
    g_strfreev(lines);
    cli_run_clear(&r);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/audit-onerun/no-noise", test_no_noise);
  g_test_add_func("/cli/audit-onerun/strong-noise", test_strong_noise);
  g_test_add_func("/cli/audit-onerun/deterministic", test_deterministic);
  g_test_add_func("/cli/audit-onerun/usage", test_usage);
  g_test_add_func("/cli/audit-onerun/other-options", test_other_options);
  g_test_add_func("/cli/audit-onerun/formats", test_formats);
  return g_test_run();
}
