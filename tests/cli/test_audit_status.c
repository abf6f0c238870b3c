/*
 * tests/cli/test_audit_status.c: `dpgossip audit` says what `account` says
 * and refuses what `account` refuses, with the same exit status (issue 37,
 * "exit statuses and messages that disagree"):
 *   - at sigma 1e-8, 1 and 1e200 on Florentine the audit's accounted mu and
 *     verdict are `account`'s: 1e-8 unresolved in both (the audit's rows
 *     refused, with the warning, never an empty table), 1e200 the same tiny
 *     mu (it printed 0 from underflowed blocks, then failed in LAPACK), 1
 *     the same mu;
 *   - the options `account` refuses as usage errors are refused by the audit
 *     before any run, exit status 2 (-k 0, --figure with a wrong extension,
 *     a protocol spec out of range), as `account` refuses them.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tests/common/run.h"
#include "tests/common/tolerance.h"

/* `account`'s mu and status of victim 1 (attacker 0, T = 4, PNDP, exact
 * sensitivity) at @sigma; status into @status (g_free). */
static double account_victim1(const char *sigma, char **status) {
  CliRun r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0",
                     "--sensitivity", "exact", "--sigma", sigma, "--format", "csv");
  g_assert_cmpint(r.status, ==, 0);
  gchar **lines = g_strsplit(r.out, "\n", -1);
  double mu = NAN;
  *status = NULL;
  for (guint i = 1; lines[i] != NULL && *status == NULL; i++) {
    gchar **f = g_strsplit(lines[i], ",", -1);
    if (g_strv_length(f) > 9 && g_str_equal(f[2], "1")) {
      mu = g_ascii_strtod(f[5], NULL);
      *status = g_strdup(f[9]);
    }
    g_strfreev(f);
  }
  g_assert_nonnull(*status);
  g_strfreev(lines);
  cli_run_clear(&r);
  return mu;
}

static void test_sigma_agrees(void) {
  const char *sigmas[] = {"1e-8", "1", "1e200"};
  for (guint i = 0; i < G_N_ELEMENTS(sigmas); i++) {
    char *want_status = NULL;
    double want = account_victim1(sigmas[i], &want_status);
    CliRun r = cli_run("audit", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0",
                       "--victim", "1", "--sigma", sigmas[i], "--trials", "40", "--format", "csv",
                       "-q");
    if (r.status != 0)
      g_error("sigma %s: exit %d: %s", sigmas[i], r.status, r.err);
    gchar **lines = g_strsplit(r.out, "\n", -1);
    /* Never an empty table: the np and the learned rows. */
    g_assert_cmpuint(g_strv_length(lines), >=, 3);
    for (guint l = 1; l <= 2; l++) {
      gchar **f = g_strsplit(lines[l], ",", -1);
      g_assert_cmpuint(g_strv_length(f), ==, 13);
      double mu = g_ascii_strtod(f[3], NULL);
      if (g_str_equal(want_status, "unresolved")) {
        /* account: no protection, not resolvable; the audit the same, its
         * attacks refused and the reason said. */
        g_assert_cmpstr(f[12], ==, "refused");
        g_assert_true(isnan(mu));
        g_assert_nonnull(strstr(r.err, "status unresolved"));
      } else {
        g_assert_cmpstr(want_status, ==, "protected");
        /* The same provenance rows and the same scale-free reduction; the
         * paths differ only in where the scale 2^e is applied (each of the
         * T^2 entries of X_v rounded once, or mu divided once) and in the
         * order of the sums: T^2 roundings at condition 1. */
        dpg_test_assert_close(mu, want, dpg_tol(1.0, 16.0),
                              "T^2 = 16 roundings of X_v's entries, condition 1");
        g_assert_cmpfloat(mu, >, 0.0);
        if (want < 1e-100) /* the attacks cannot run in double precision */
          g_assert_cmpstr(f[12], ==, "refused");
        else
          g_assert_cmpstr(f[12], ==, "consistent");
      }
      g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(want_status);
    cli_run_clear(&r);
  }
}

/* What `account` refuses as the user's, the audit refuses before any run,
 * exit 2, in account's words (the figure's extension was checked after the
 * whole audit, exit 1, its table lost; -k 0 was accepted; muffliato:K=0
 * failed in the first run, exit 1). */
static void test_refused_before_running(void) {
  const struct {
    const char *opt, *val, *fragment;
  } cases[] = {
      {"--figure", "f.txt", "--figure: unknown extension in 'f.txt' (use .svg, .png or .pdf)"},
      {"-k", "0", "--epochs k must be positive (got 0)"},
      {"-p", "muffliato:K=0", "--protocol: muffliato: parameter K=0 is out of range"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    CliRun r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
                       "--trials", "20", cases[i].opt, cases[i].val);
    if (r.status != 2 || strstr(r.err, cases[i].fragment) == NULL)
      g_error("%s %s: exit %d, '%s' (want 2 and '%s')", cases[i].opt, cases[i].val, r.status, r.err,
              cases[i].fragment);
    /* Refused before the runs: no progress line, no table. */
    g_assert_null(strstr(r.err, "trial runs"));
    g_assert_cmpstr(r.out, ==, "");
    cli_run_clear(&r);
    if (i == 0)
      continue;
    /* account: the same status for the same option. */
    CliRun a = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a",
                       "0", cases[i].opt, cases[i].val);
    g_assert_cmpint(a.status, ==, 2);
    cli_run_clear(&a);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/audit_status/sigma_agrees", test_sigma_agrees);
  g_test_add_func("/audit_status/refused_before_running", test_refused_before_running);
  return g_test_run();
}
