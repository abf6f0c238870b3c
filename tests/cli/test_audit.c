/*
 * tests/cli/test_audit.c: `dpgossip audit`.
 *   - D-SGD on Florentine (T = 4) under LDP and PNDP: the accounted mu is
 *     the closed form where there is one (LDP: sqrt(T) / sigma), and the
 *     distinguishing audit's 95% interval reaches it, or lies below it
 *     within 10%;
 *   - a broken protocol plugin (reused-noise: one draw where its provenance
 *     claims T) is reported as overstated, exit status 1;
 *   - reconstruction: exact where the accountant says unprotected (sigma = 0),
 *     refused where protected;
 *   - results do not depend on the number of threads;
 *   - bad inputs are usage errors.
 * Fixed seeds: the assertions hold for these seeds (a 95% interval misses
 * with probability 5% for a random seed).
 */
#include <math.h>
#include <string.h>

#include "tests/common/run.h"

static JsonObject *row_of(JsonObject *root, guint i) {
  JsonArray *v = json_object_get_array_member(root, "victims");
  g_assert_cmpuint(json_array_get_length(v), >, i);
  return json_array_get_object_element(v, i);
}

static double num(JsonObject *o, const char *k) {
  JsonNode *n = json_object_get_member(o, k);
  g_assert_nonnull(n);
  return JSON_NODE_HOLDS_NULL(n) ? NAN : json_node_get_double(n);
}

/* The audit of victims 1 (a neighbour of attacker 0) and 8 (three hops away). */
static void audit_dsgd(const char *trust, double closed_form_1) {
  CliRun r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
                     "--victim", "8", "--trust", trust, "--trials", "400", "--seed", "3", "--format",
                     "json");
  if (r.status != 0)
    g_error("%s", r.err);
  JsonParser *p = NULL;
  JsonObject *root = cli_run_json(&r, &p);
  for (guint i = 0; i < 2; i++) {
    JsonObject *row = row_of(root, i);
    g_assert_cmpstr(json_object_get_string_member(row, "attack"), ==, "np");
    g_assert_cmpstr(json_object_get_string_member(row, "status"), ==, "consistent");
    g_assert_cmpint(json_object_get_int_member(row, "trials"), ==, 400);
    double mu = num(row, "mu"), lo = num(row, "mu_empirical_low"),
           hi = num(row, "mu_empirical_high");
    g_assert_cmpfloat(mu, >, 0.0);
    /* The canary attains the exact sensitivity (the SDP's optimum). */
    g_assert_cmpfloat_with_epsilon(num(row, "mu_canary"), mu, 1e-6 * mu);
    /* The test's own mu: at most the accounted one, and within 10% of it. */
    g_assert_cmpfloat(num(row, "mu_test"), <=, mu * (1.0 + 1e-9));
    g_assert_cmpfloat(num(row, "mu_test"), >=, 0.9 * mu);
    if (lo > mu || hi < 0.9 * mu)
      g_error("%s victim %s: [%g, %g] vs accounted %g", trust,
              i == 0 ? "1" : "8", lo, hi, mu);
    /* The distribution-free bound is a lower bound. */
    g_assert_cmpfloat(num(row, "mu_clopper_pearson_low"), <=, mu);
    if (i == 0 && !isnan(closed_form_1))
      g_assert_cmpfloat_with_epsilon(mu, closed_form_1, 1e-9);
  }
  g_object_unref(p);
  cli_run_clear(&r);
}

static void test_ldp(void) {
  audit_dsgd("ldp", 2.0); /* every message seen: mu = sqrt(T) / sigma */
}

static void test_pndp(void) {
  audit_dsgd("pndp", NAN);
}

/* One draw reused where the provenance claims four: the attacker reaches a
 * mu far above the printed one. */
static void test_broken_plugin(void) {
  g_setenv("DPGOSSIP_PLUGIN_PATH", DPG_TEST_PLUGIN_DIR, TRUE);
  CliRun r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "8",
                     "--trust", "ldp", "--trials", "200", "-p", "reused-noise", "--format", "json");
  g_unsetenv("DPGOSSIP_PLUGIN_PATH");
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "victim 8: the attack reaches mu in"));
  g_assert_nonnull(strstr(r.err, "the printed guarantee is wrong"));
  JsonParser *p = NULL;
  JsonObject *row = row_of(cli_run_json(&r, &p), 0);
  g_assert_cmpstr(json_object_get_string_member(row, "status"), ==, "overstated");
  g_assert_cmpfloat_with_epsilon(num(row, "mu"), 2.0, 1e-9);
  g_assert_cmpfloat(num(row, "mu_empirical_low"), >, 2.0);
  g_object_unref(p);
  cli_run_clear(&r);
}

static void test_reconstruction(void) {
  /* Without noise every step of victim 1 reaches the attacker. */
  CliRun r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
                     "--sigma", "0", "--trust", "ldp", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p = NULL;
  JsonObject *row = row_of(cli_run_json(&r, &p), 0);
  g_assert_cmpstr(json_object_get_string_member(row, "attack"), ==, "reconstruction");
  g_assert_cmpstr(json_object_get_string_member(row, "status"), ==, "exposed");
  g_assert_true(isnan(num(row, "mu"))); /* +inf: JSON null */
  g_assert_cmpfloat(num(row, "reconstruction_error"), <, 1e-8);
  g_object_unref(p);
  cli_run_clear(&r);
  /* With noise the accountant says protected: no reconstruction. */
  r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
              "--trust", "ldp", "--attack", "reconstruction", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  row = row_of(cli_run_json(&r, &p), 0);
  g_assert_cmpstr(json_object_get_string_member(row, "status"), ==, "refused");
  g_assert_true(isnan(num(row, "reconstruction_error")));
  g_assert_cmpfloat_with_epsilon(num(row, "mu"), 2.0, 1e-9);
  g_object_unref(p);
  cli_run_clear(&r);
  /* PNDP without noise: victim 2's last steps never reach attacker 0. */
  r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "2",
              "--sigma", "0", "--format", "csv");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "0,2,reconstruction,inf,"));
  g_assert_nonnull(strstr(r.out, ",partial\n"));
  cli_run_clear(&r);
}

static void test_threads(void) {
  CliRun one = cli_run("audit", "--generate", "florentine", "-T", "3", "-a", "0+5", "--victim",
                       "1", "--trials", "40", "-j", "1", "--format", "json");
  CliRun three = cli_run("audit", "--generate", "florentine", "-T", "3", "-a", "0+5", "--victim",
                         "1", "--trials", "40", "-j", "3", "--format", "json");
  g_assert_cmpint(one.status, ==, 0);
  g_assert_cmpint(three.status, ==, 0);
  g_assert_cmpstr(one.out, ==, three.out);
  cli_run_clear(&one);
  cli_run_clear(&three);
}

static void test_bad_inputs(void) {
  const struct {
    const char *opt, *val, *fragment;
  } cases[] = {
      {"--victim", "99", "not a node id below 15"},
      {"--victim", "0", "is in the attacker set"},
      {"--trials", "5", "--trials >= 20"},
      {"--attack", "guess", "'guess' is not np, reconstruction or all"},
      {"--trust", "nobody", "--trust"},
      {"--dim", "1", "--dim 4 or more"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const char *victim = g_str_equal(cases[i].opt, "--victim") ? cases[i].val : "1";
    CliRun r = g_str_equal(cases[i].opt, "--victim")
                   ? cli_run("audit", "--generate", "florentine", "-a", "0", "--victim", victim)
                   : cli_run("audit", "--generate", "florentine", "-a", "0", "--victim", victim,
                             cases[i].opt, cases[i].val);
    g_assert_cmpint(r.status, ==, 2);
    if (strstr(r.err, cases[i].fragment) == NULL)
      g_error("%s %s: '%s' lacks '%s'", cases[i].opt, cases[i].val, r.err, cases[i].fragment);
    cli_run_clear(&r);
  }
  CliRun r = cli_run("audit", "--generate", "florentine", "--victim", "1");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--attackers and --victim are required"));
  cli_run_clear(&r);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/audit/ldp", test_ldp);
  g_test_add_func("/audit/pndp", test_pndp);
  g_test_add_func("/audit/broken_plugin", test_broken_plugin);
  g_test_add_func("/audit/reconstruction", test_reconstruction);
  g_test_add_func("/audit/threads", test_threads);
  g_test_add_func("/audit/bad_inputs", test_bad_inputs);
  return g_test_run();
}
