/*
 * tests/cli/test_audit_train.c: `dpgossip audit-train`, the one-run audit
 * of a D-SGD training run (an MLP on Florentine):
 *   - almost no noise (mu = 200): every guess is right and the bound is the
 *     closed form of all-right guesses, logit(0.05^(1/r)) less its delta term;
 *   - strong noise (mu = 0.1): the bound is 0;
 *   - the bound never exceeds the accounted epsilon (status consistent),
 *     whose mu is the LDP closed form sqrt(k) / sigma;
 *   - the same seed gives the same output;
 *   - bad inputs are usage errors, canaries beyond memory too.
 */
#include <math.h>
#include <string.h>

#include "tests/common/run.h"

static double num(JsonObject *o, const char *k) {
  g_assert_true(json_object_has_member(o, k));
  return json_object_get_double_member(o, k);
}

static CliRun audit(const char *sigma, const char *seed) {
  return cli_run("audit-train", "--generate", "florentine", "--dataset",
                 "synthetic:linear,n=600,d=10", "--model", "mlp:hidden=32", "-k", "4", "-b", "8",
                 "--sigma", sigma, "--canaries", "200", "--seed", seed, "--format", "json");
}

static JsonObject *row(CliRun *r, JsonParser **p, double sigma) {
  if (r->status != 0)
    g_error("%s", r->err);
  JsonObject *o = cli_run_json(r, p);
  g_assert_cmpint(json_object_get_int_member(o, "canaries"), ==, 200);
  g_assert_cmpint(json_object_get_int_member(o, "guesses"), ==, 100);
  g_assert_cmpstr(json_object_get_string_member(o, "status"), ==, "consistent");
  g_assert_cmpfloat_with_epsilon(num(o, "mu"), 2.0 / sigma, 1e-9 * (2.0 / sigma));
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
  /* Option, bad value, what the message names. */
  const char *bad[][3] = {{"--canaries", "1", "--canaries"}, {"--sigma", "0", "--sigma"},
                          {"--guesses", "101", "--guesses"}, {"--delta", "0", "--delta"},
                          {"--format", "xml", "--format"},   {"-k", "0", "--epochs"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    CliRun r = cli_run("audit-train", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=600,d=10", bad[i][0], bad[i][1]);
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, bad[i][2]));
    cli_run_clear(&r);
  }
  /* m d doubles beyond any memory: refused before allocating them. */
  CliRun big = cli_run("audit-train", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=600,d=10", "--model", "mlp:hidden=40000",
                       "--canaries", "1000000");
  g_assert_cmpint(big.status, ==, 2);
  g_assert_nonnull(strstr(big.err, "use fewer --canaries"));
  cli_run_clear(&big);
  CliRun r = cli_run("audit-train", "--generate", "florentine");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--dataset is required"));
  cli_run_clear(&r);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/audit-train/no-noise", test_no_noise);
  g_test_add_func("/cli/audit-train/strong-noise", test_strong_noise);
  g_test_add_func("/cli/audit-train/deterministic", test_deterministic);
  g_test_add_func("/cli/audit-train/usage", test_usage);
  return g_test_run();
}
