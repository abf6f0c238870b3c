/*
 * tests/cli/test_demo.c: `dpgossip demo` (what `make run` shows) works with
 * no file, checks its own provenance against W^T, and is deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/common/run.h"

static void test_demo_runs(void) {
  CliRun r = cli_run("demo");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpstr(r.err, ==, "");
  g_assert_nonnull(strstr(r.out, "15 nodes, 20 edges, diameter 5"));
  g_assert_nonnull(strstr(r.out, "400 messages delivered"));
  g_assert_nonnull(strstr(r.out, "over 15 private values and 15 noise variables"));
  /* The demo itself fails (status 1) above 1e-12; check the printed figure too. */
  const char *dev = strstr(r.out, "(W^10)[u, :] to ");
  g_assert_nonnull(dev);
  double worst = g_ascii_strtod(dev + strlen("(W^10)[u, :] to "), NULL);
  g_assert_cmpfloat(worst, <, 1e-12);
  cli_run_clear(&r);
}

static void test_demo_deterministic(void) {
  CliRun a = cli_run("demo"), b = cli_run("demo");
  g_assert_cmpstr(a.out, ==, b.out);
  cli_run_clear(&a);
  cli_run_clear(&b);
}

static void test_demo_rejects_arguments(void) {
  CliRun r = cli_run("demo", "extra");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "unexpected argument 'extra'"));
  cli_run_clear(&r);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/demo/runs", test_demo_runs);
  g_test_add_func("/cli/demo/deterministic", test_demo_deterministic);
  g_test_add_func("/cli/demo/rejects-arguments", test_demo_rejects_arguments);
  return g_test_run();
}
