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
 *     a protocol spec out of range), as `account` refuses them;
 *   - an attacker set that receives nothing: mu = 0, as `account` says;
 *   - --victim given twice: one progress over both victims' trial runs;
 *   - a scenario's [audit] that would audit nothing (its victims all
 *     attackers, or trials without victims) is a problem at its line.
 */
#include <math.h>
#include <stdio.h>
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
      g_assert_cmpuint(g_strv_length(f), ==, 14);
      double mu = g_ascii_strtod(f[4], NULL);
      if (g_str_equal(want_status, "unresolved")) {
        /* account: no protection, not resolvable; the audit the same, its
         * attacks refused and the reason said. */
        g_assert_cmpstr(f[13], ==, "refused");
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
          g_assert_cmpstr(f[13], ==, "refused");
        else
          g_assert_cmpstr(f[13], ==, "consistent");
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

/* An attacker offline for the whole run (a churn file: node 0 leaves at
 * round 0) receives nothing: `account` reports mu = 0 and so does the
 * audit, exit 0 (it failed, exit 1, "receives no message"). */
static void test_attacker_hears_nothing(void) {
  char *dir = g_dir_make_tmp("dpg-audit-silent-XXXXXX", NULL);
  char *churn = g_build_filename(dir, "churn.txt", NULL);
  g_assert_true(g_file_set_contents(churn, "0 0\n", -1, NULL));
  char *spec = g_strdup_printf("churn:%s", churn);
  CliRun a = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0",
                     "--schedule", spec, "--format", "csv", "-q");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_nonnull(strstr(a.out, "\n0,pndp,1,1,0,0,0,0,,protected,"));
  cli_run_clear(&a);
  CliRun r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
                     "--trials", "20", "--schedule", spec, "--format", "csv", "-q");
  if (r.status != 0)
    g_error("exit %d: %s", r.status, r.err);
  g_assert_nonnull(strstr(r.err, "the attacker set receives no message: mu = 0"));
  gchar **lines = g_strsplit(r.out, "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 4); /* header, np, learned, "" */
  for (guint l = 1; l <= 2; l++) {
    gchar **f = g_strsplit(lines[l], ",", -1);
    g_assert_cmpfloat(g_ascii_strtod(f[4], NULL), ==, 0.0);
    g_assert_cmpstr(f[13], ==, "consistent");
    g_strfreev(f);
  }
  g_strfreev(lines);
  cli_run_clear(&r);
  g_free(spec);
  g_unlink(churn);
  g_rmdir(dir);
  g_free(churn);
  g_free(dir);
}

/* A scenario whose [audit] would audit nothing is refused at validation,
 * at the line of the key (it ran nothing, silently). */
static void test_scenario_audits_something(void) {
  char *dir = g_dir_make_tmp("dpg-audit-status-XXXXXX", NULL);
  char *ini = g_build_filename(dir, "a.ini", NULL);
  const struct {
    const char *audit, *fragment;
  } cases[] = {
      {"victims = 0\n", "a.ini:6: audit.victims: victim 0 is in every collusion set"},
      {"victims = 1;0\n", "a.ini:6: audit.victims: victim 0 is in every collusion set"},
      {"trials = 40\n", "a.ini:6: audit.trials: [audit] trials without victims"},
      {"attack = np\n", "a.ini:6: audit.attack: [audit] attack without victims"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *text = g_strdup_printf("[topology]\ngenerate = florentine\n[collusion.x]\nnodes = 0\n"
                                 "[audit]\n%s",
                                 cases[i].audit);
    g_assert_true(g_file_set_contents(ini, text, -1, NULL));
    CliRun r = cli_run("validate", ini);
    if (r.status != 1 || strstr(r.err, cases[i].fragment) == NULL)
      g_error("%s: exit %d, '%s' (want 1 and '%s')", cases[i].audit, r.status, r.err,
              cases[i].fragment);
    cli_run_clear(&r);
    g_free(text);
  }
  /* Victims outside the set still validate. */
  g_assert_true(g_file_set_contents(ini,
                                    "[topology]\ngenerate = florentine\n[collusion.x]\nnodes = "
                                    "0\n[audit]\nvictims = 1\n",
                                    -1, NULL));
  CliRun r = cli_run("validate", ini);
  if (r.status != 0)
    g_error("valid [audit]: exit %d, '%s'", r.status, r.err);
  cli_run_clear(&r);
  char *rm[] = {"rm", "-rf", dir, NULL};
  g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(ini);
  g_free(dir);
}

/* --victim given twice: the progress counts both victims' trial runs, so
 * that its ETA is the command's (it restarted at 0/40 for the second). */
static void test_progress_covers_every_victim(void) {
  g_setenv("DPGOSSIP_PROGRESS_INTERVAL", "0", TRUE);
  CliRun r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
                     "--victim", "8", "--trials", "20", "--attack", "np");
  g_unsetenv("DPGOSSIP_PROGRESS_INTERVAL");
  g_assert_cmpint(r.status, ==, 0);
  gchar **lines = g_strsplit(r.err, "\n", -1);
  guint64 last = 0, n = 0;
  for (guint i = 0; lines[i] != NULL; i++) {
    guint64 done = 0, total = 0;
    if (sscanf(lines[i], "dpgossip audit: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " trial runs",
               &done, &total) != 2)
      continue;
    /* 2 victims x 2 worlds x 20 trials, never going back. */
    g_assert_cmpuint(total, ==, 80);
    g_assert_cmpuint(done, >=, last);
    last = done;
    n++;
  }
  if (n < 2 || last != 80)
    g_error("%" G_GUINT64_FORMAT " progress lines, last at %" G_GUINT64_FORMAT "/80:\n%s", n, last,
            r.err);
  g_strfreev(lines);
  cli_run_clear(&r);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/audit_status/sigma_agrees", test_sigma_agrees);
  g_test_add_func("/audit_status/refused_before_running", test_refused_before_running);
  g_test_add_func("/audit_status/scenario_audits_something", test_scenario_audits_something);
  g_test_add_func("/audit_status/attacker_hears_nothing", test_attacker_hears_nothing);
  g_test_add_func("/audit_status/progress_covers_every_victim", test_progress_covers_every_victim);
  return g_test_run();
}
