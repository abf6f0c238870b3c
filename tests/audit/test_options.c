/*
 * tests/audit/test_options.c: the one check of an audit's options
 * (audit_options_check) that `dpgossip audit` and dpg_audit share: each
 * rule refused alone with its exact message, in the order a user fixes
 * them, and a valid set accepted with its trust model.
 */
#include <glib.h>
#include <math.h>

#include "audit/audit.h"
#include "protocols/protocols.h"

static AuditOptions good(void) {
  return (AuditOptions){.trust = "secldp",
                        .rounds = 6,
                        .interval = 2,
                        .trials = 20,
                        .dim = 0,
                        .threads = 1,
                        .seed = 1,
                        .sigma = 0.5,
                        .latency = "constant:ms=3",
                        .has_attackers = TRUE,
                        .has_victims = TRUE};
}

static void refused(AuditOptions o, const char *message) {
  GError *error = NULL;
  PrivTrust trust;
  g_assert_false(audit_options_check(&o, &trust, &error));
  g_assert_nonnull(error);
  g_assert_cmpstr(error->message, ==, message);
  g_error_free(error);
}

static void accepted(AuditOptions o) {
  GError *error = NULL;
  PrivTrust trust;
  g_assert_true(audit_options_check(&o, &trust, &error));
  g_assert_no_error(error);
}

static void test_accepts(void) {
  GError *error = NULL;
  PrivTrust trust = PRIV_TRUST_LDP;
  AuditOptions o = good();
  g_assert_true(audit_options_check(&o, &trust, &error));
  g_assert_no_error(error);
  g_assert_cmpint(trust, ==, PRIV_TRUST_SECLDP);
  o.trust = NULL; /* the default */
  o.latency = NULL;
  o.sigma = 0; /* no noise is audited too: the attack then wins */
  g_assert_true(audit_options_check(&o, &trust, &error));
  g_assert_cmpint(trust, ==, PRIV_TRUST_PNDP);
}

static void test_refusals(void) {
  const char *numbers = "-T >= 1, --trials >= 20, --dim >= 0, --threads >= 1, --seed >= 0 and a "
                        "finite --sigma >= 0 are required";
  AuditOptions o = good();
  o.interval = 4;
  refused(o, "-b 4: the participation interval must be positive and divide T = 6");
  o = good();
  o.interval = 0;
  refused(o, "-b 0: the participation interval must be positive and divide T = 6");
  o = good();
  o.trust = "nobody";
  refused(o, "--trust: unknown trust model 'nobody' (expected ldp, pndp or secldp)");
  o = good();
  o.rounds = 0;
  o.interval = 1;
  refused(o, numbers);
  o = good();
  o.trials = 19;
  refused(o, numbers);
  o = good();
  o.dim = -1;
  refused(o, numbers);
  o = good();
  o.threads = 0;
  refused(o, numbers);
  o = good();
  o.seed = -1;
  refused(o, numbers);
  o = good();
  o.sigma = -0.1;
  refused(o, numbers);
  o = good();
  o.sigma = INFINITY;
  refused(o, numbers);
  o = good();
  o.sigma = NAN;
  refused(o, numbers);
  /* T = 6 needs q = min(6, ceil(sqrt(12)) + 1) = 5 parameters: 4 features. */
  g_assert_cmpuint(audit_default_dim(6), ==, 4);
  o = good();
  o.dim = 3;
  refused(o, "--dim 3: the canary at T = 6 needs models of 5 parameters: --dim 4 or more "
             "(or leave it out)");
  /* Any latency model: the deliveries are drawn from the seed alone. */
  o = good();
  o.latency = "uniform:min=1,max=5";
  accepted(o);
  o.latency = "lognormal:mu=1";
  refused(o, "--latency: latency spec \"lognormal:mu=1\": missing key 'sigma' (expected "
             "lognormal:mu=M,sigma=S with ln(latency in ms) ~ N(M, S^2))");
  o = good();
  o.loss = "1.5";
  refused(o, "--loss: loss spec \"1.5\": probability 1.5 is outside [0, 1]");
  o = good();
  o.loss = "0.05";
  refused(o, "--loss 0.05: a synchronous run waits for every message and a lost one would "
             "block it: give an asynchronous --mode (deadline:ms=D or stale:s=S)");
  o.mode = "deadline:ms=5";
  accepted(o);
  o.mode = "later";
  GError *error = NULL;
  PrivTrust trust;
  g_assert_false(audit_options_check(&o, &trust, &error));
  g_assert_error(error, PROTO_ERROR, PROTO_ERROR_PARSE);
  g_assert_true(g_str_has_prefix(error->message, "--mode: "));
  g_error_free(error);
  o = good();
  o.has_victims = FALSE;
  refused(o, "--attackers and --victim are required");
  o = good();
  o.has_attackers = FALSE;
  refused(o, "--attackers and --victim are required");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/audit/options/accepts", test_accepts);
  g_test_add_func("/audit/options/refusals", test_refusals);
  return g_test_run();
}
