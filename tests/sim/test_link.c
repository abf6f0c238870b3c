/*
 * tests/sim/test_link.c: latency and loss models: spec parsing (good specs,
 * every kind of bad spec with its message), exact constant latency, uniform
 * bounds and mean, log-normal mean exp(mu + sigma^2/2) and median exp(mu),
 * empirical loss rate, and p = 0 / p = 1 drawing nothing.
 */
#include <math.h>
#include <string.h>

#include "sim/sim.h"

static gsl_rng *stream(guint32 node, guint32 purpose) {
  GError *err = NULL;
  gsl_rng *r = sim_rng_stream_new(2024, node, purpose, NULL, &err);
  g_assert_no_error(err);
  return r;
}

static SimLatency parse_ok(const char *spec) {
  SimLatency l;
  GError *err = NULL;
  g_assert_true(sim_latency_parse(spec, &l, &err));
  g_assert_no_error(err);
  g_assert_true(sim_latency_check(&l, NULL));
  return l;
}

static void test_parse_good(void) {
  SimLatency l = parse_ok("constant:ms=10");
  g_assert_cmpint(l.kind, ==, SIM_LATENCY_CONSTANT);
  g_assert_cmpfloat(l.ms, ==, 10);
  l = parse_ok("  Uniform : max = 20 , MIN=1.5 ");
  g_assert_cmpint(l.kind, ==, SIM_LATENCY_UNIFORM);
  g_assert_cmpfloat(l.min_ms, ==, 1.5);
  g_assert_cmpfloat(l.max_ms, ==, 20);
  l = parse_ok("lognormal:mu=2,sigma=0.5");
  g_assert_cmpint(l.kind, ==, SIM_LATENCY_LOGNORMAL);
  g_assert_cmpfloat(l.mu, ==, 2);
  g_assert_cmpfloat(l.sigma, ==, 0.5);
  l = parse_ok("lognormal:mu=-1e-3,sigma=0");
  g_assert_cmpfloat(l.mu, ==, -1e-3);
  l = parse_ok("uniform:min=3,max=3");
  g_assert_cmpfloat(l.min_ms, ==, 3);

  /* to_string reads back to the same model, digits included. */
  const char *specs[] = {"constant:ms=0.1", "uniform:min=1,max=20.000000000000004",
                         "lognormal:mu=2.5,sigma=0.3333333333333333"};
  for (guint i = 0; i < G_N_ELEMENTS(specs); i++) {
    SimLatency a = parse_ok(specs[i]);
    char *s = sim_latency_to_string(&a);
    g_assert_cmpstr(s, ==, specs[i]);
    SimLatency b = parse_ok(s);
    g_assert_cmpint(a.kind, ==, b.kind);
    g_assert_cmpfloat(a.ms, ==, b.ms);
    g_assert_cmpfloat(a.min_ms, ==, b.min_ms);
    g_assert_cmpfloat(a.max_ms, ==, b.max_ms);
    g_assert_cmpfloat(a.mu, ==, b.mu);
    g_assert_cmpfloat(a.sigma, ==, b.sigma);
    g_free(s);
  }
}

static void test_parse_bad(void) {
  const struct {
    const char *spec;
    const char *needle;
  } bad[] = {
      {"", "expected model:key=value"},
      {"constant", "expected model:key=value"},
      {"gaussian:mu=1,sigma=2", "unknown model 'gaussian'"},
      {"constant:ms=abc", "value 'abc' of key 'ms' is not a finite number"},
      {"constant:ms=", "value '' of key 'ms'"},
      {"constant:ms=10ms", "value '10ms'"},
      {"constant:ms=inf", "not a finite number"},
      {"constant:ms=nan", "not a finite number"},
      {"constant:ms=1e400", "not a finite number"},
      {"constant:ms=-1", "cannot be negative"},
      {"constant:ms", "\"ms\" is not key=value"},
      {"constant:", "missing key 'ms'"},
      {"constant:ms=1,ms=2", "key 'ms' given twice"},
      {"constant:ms=1,", "is not key=value"},
      {"constant:delay=5", "unknown key 'delay' (expected constant:ms=MS)"},
      {"uniform:min=1", "missing key 'max' (expected uniform:min=MS,max=MS)"},
      {"uniform:min=5,max=1", "min 5 > max 1"},
      {"uniform:min=-1,max=1", "cannot be negative"},
      {"lognormal:mu=1", "missing key 'sigma'"},
      {"lognormal:mu=1,sigma=-0.5", "sigma must be >= 0"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    SimLatency l = {.kind = SIM_LATENCY_CONSTANT, .ms = 77};
    GError *err = NULL;
    g_assert_false(sim_latency_parse(bad[i].spec, &l, &err));
    g_assert_error(err, SIM_ERROR, SIM_ERROR_PARSE);
    if (!strstr(err->message, bad[i].needle))
      g_error("spec \"%s\": message \"%s\" lacks \"%s\"", bad[i].spec, err->message, bad[i].needle);
    g_assert_nonnull(strstr(err->message, bad[i].spec)); /* the message quotes the spec */
    g_assert_cmpfloat(l.ms, ==, 77);                     /* untouched */
    g_clear_error(&err);
  }
  GError *err = NULL;
  SimLatency l;
  g_assert_false(sim_latency_parse(NULL, &l, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_PARSE);
  g_clear_error(&err);

  /* A model built by hand is checked too. */
  l = (SimLatency){.kind = SIM_LATENCY_UNIFORM, .min_ms = 2, .max_ms = 1};
  g_assert_false(sim_latency_check(&l, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "uniform:min=2,max=1"));
  g_clear_error(&err);
  l = (SimLatency){.kind = (SimLatencyKind)42};
  g_assert_false(sim_latency_check(&l, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
}

/* Constant: exactly ms * 1e6 ns, and no draw (the stream still gives its first value). */
static void test_constant(void) {
  SimLatency l = parse_ok("constant:ms=10");
  gsl_rng *r = stream(0, SIM_RNG_LATENCY), *fresh = stream(0, SIM_RNG_LATENCY);
  for (int i = 0; i < 100; i++)
    g_assert_cmpuint(sim_latency_sample(&l, r), ==, 10000000);
  g_assert_cmpuint(gsl_rng_get(r), ==, gsl_rng_get(fresh));
  l = parse_ok("constant:ms=0.0000015"); /* 1.5 ns rounds to 2 */
  g_assert_cmpuint(sim_latency_sample(&l, r), ==, 2);
  g_assert_cmpfloat(sim_latency_mean_ms(&l), ==, 0.0000015);
  l = parse_ok("constant:ms=1e300"); /* clamped, never wraps */
  g_assert_cmpuint(sim_latency_sample(&l, r), ==, SIM_LATENCY_MAX);
  gsl_rng_free(r);
  gsl_rng_free(fresh);
}

/* Uniform on [1, 20] ms: every draw within the bounds (in ns), mean within 5
 * standard errors of 10.5 ms (sd = 19/sqrt(12) ms); min and max approached. */
static void test_uniform(void) {
  SimLatency l = parse_ok("uniform:min=1,max=20");
  g_assert_cmpfloat(sim_latency_mean_ms(&l), ==, 10.5);
  gsl_rng *r = stream(1, SIM_RNG_LATENCY);
  const int n = 200000;
  double sum = 0;
  SimTime lo = G_MAXUINT64, hi = 0;
  for (int i = 0; i < n; i++) {
    SimTime t = sim_latency_sample(&l, r);
    g_assert_cmpuint(t, >=, 1000000);
    g_assert_cmpuint(t, <=, 20000000);
    lo = MIN(lo, t);
    hi = MAX(hi, t);
    sum += (double)t / 1e6;
  }
  double se = 19 / sqrt(12.0) / sqrt(n);
  g_assert_cmpfloat(fabs(sum / n - 10.5), <, 5 * se);
  g_assert_cmpuint(lo, <, 1000000 + 2000); /* within 19 ms / 10^4 of the ends */
  g_assert_cmpuint(hi, >, 20000000 - 2000);
  gsl_rng_free(r);
}

/* Log-normal mu = 2, sigma = 0.5: mean exp(2.125) = 8.3729 ms, within 5 SE
 * with Var = (e^{sigma^2} - 1) e^{2 mu + sigma^2}; median e^2 ms: the
 * fraction below it within 5 SE of 1/2. */
static void test_lognormal(void) {
  SimLatency l = parse_ok("lognormal:mu=2,sigma=0.5");
  double mean = exp(2.125);
  /* Exact: the same exp of an argument that is exact in binary (2 + 0.5 x 0.5^2). */
  g_assert_cmpfloat(sim_latency_mean_ms(&l), ==, mean);
  gsl_rng *r = stream(2, SIM_RNG_LATENCY);
  const int n = 200000;
  double sum = 0;
  int below = 0;
  for (int i = 0; i < n; i++) {
    double ms = (double)sim_latency_sample(&l, r) / 1e6;
    g_assert_cmpfloat(ms, >, 0);
    sum += ms;
    below += ms < exp(2.0);
  }
  double var = (exp(0.25) - 1) * exp(4.25);
  g_test_message("lognormal mean %.5f ms (expected %.5f)", sum / n, mean);
  g_assert_cmpfloat(fabs(sum / n - mean), <, 5 * sqrt(var / n));
  g_assert_cmpfloat(fabs((double)below / n - 0.5), <, 5 * sqrt(0.25 / n));
  gsl_rng_free(r);
}

static void test_loss_parse(void) {
  double p = -1;
  GError *err = NULL;
  g_assert_true(sim_loss_parse("bernoulli:p=0.25", &p, &err));
  g_assert_cmpfloat(p, ==, 0.25);
  g_assert_true(sim_loss_parse(" 0.125 ", &p, &err));
  g_assert_cmpfloat(p, ==, 0.125);
  g_assert_true(sim_loss_parse("Bernoulli: p = 1", &p, &err));
  g_assert_cmpfloat(p, ==, 1);
  g_assert_true(sim_loss_parse("0", &p, &err));
  g_assert_cmpfloat(p, ==, 0);
  g_assert_no_error(err);
  const struct {
    const char *spec;
    const char *needle;
  } bad[] = {
      {"1.5", "probability 1.5 is outside [0, 1]"},
      {"bernoulli:p=-0.1", "outside [0, 1]"},
      {"bernoulli:q=0.1", "unknown key 'q'"},
      {"bernoulli:", "missing key 'p'"},
      {"gilbert:p=0.1", "unknown model 'gilbert'"},
      {"ten percent", "not a probability"},
      {"", "not a probability"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    p = 42;
    g_assert_false(sim_loss_parse(bad[i].spec, &p, &err));
    g_assert_error(err, SIM_ERROR, SIM_ERROR_PARSE);
    if (!strstr(err->message, bad[i].needle))
      g_error("spec \"%s\": message \"%s\" lacks \"%s\"", bad[i].spec, err->message, bad[i].needle);
    g_assert_cmpfloat(p, ==, 42);
    g_clear_error(&err);
  }
}

/* p = 0.3 over 200,000 trials: rate within 5 SE (binomial). p = 0 never
 * drops and p = 1 always drops, neither consuming a draw. */
static void test_loss_sample(void) {
  gsl_rng *r = stream(3, SIM_RNG_LOSS), *fresh = stream(3, SIM_RNG_LOSS);
  for (int i = 0; i < 1000; i++) {
    g_assert_false(sim_loss_sample(0, r));
    g_assert_true(sim_loss_sample(1, r));
  }
  g_assert_cmpuint(gsl_rng_get(r), ==, gsl_rng_get(fresh));
  const int n = 200000;
  int lost = 0;
  for (int i = 0; i < n; i++)
    lost += sim_loss_sample(0.3, r);
  g_test_message("loss rate %.5f", (double)lost / n);
  g_assert_cmpfloat(fabs((double)lost / n - 0.3), <, 5 * sqrt(0.3 * 0.7 / n));
  gsl_rng_free(r);
  gsl_rng_free(fresh);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sim/link/parse-good", test_parse_good);
  g_test_add_func("/sim/link/parse-bad", test_parse_bad);
  g_test_add_func("/sim/link/constant", test_constant);
  g_test_add_func("/sim/link/uniform", test_uniform);
  g_test_add_func("/sim/link/lognormal", test_lognormal);
  g_test_add_func("/sim/link/loss-parse", test_loss_parse);
  g_test_add_func("/sim/link/loss-sample", test_loss_sample);
  return g_test_run();
}
