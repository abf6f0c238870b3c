/*
 * tests/cli/test_mafalda_baselines.c: `dpgossip mafalda --baselines`: DMF,
 * whose optimization costs more than Mafalda's, only when asked; each
 * baseline's numbers the same whatever else is computed; the grammar's
 * errors (a typo gets its "did you mean"); and progress lines in the phases
 * that report nothing themselves (the fits of --skip-dense) and from DMF's
 * optimizer.
 */
#include <string.h>

#include "tests/common/run_json.h"

static const char *const strategies[] = {"mafalda", "dp-d-sgd", "antipgd",  "sr",
                                         "bsr",     "dmf",      "toeplitz", "blt"};

#define FLORENTINE "mafalda", "--generate", "florentine", "-k", "5", "-b", "16", "--format", "json"

/* The JSON "loss" object of a successful run (the parser in *@p). */
static JsonObject *losses(CliRun *r, JsonParser **p) {
  if (r->status != 0)
    g_error("exit %d: %s", r->status, r->err);
  return json_object_get_object_member(cli_run_json(r, p), "loss");
}

/* @got has a number exactly where @want lists the strategy, equal to @all's. */
static void assert_computed(JsonObject *got, JsonObject *all, const char *const *want) {
  for (guint i = 0; i < G_N_ELEMENTS(strategies); i++) {
    const char *s = strategies[i];
    if (g_strv_contains(want, s)) {
      g_assert_false(json_object_get_null_member(got, s));
      g_assert_cmpfloat(json_object_get_double_member(got, s), ==,
                        json_object_get_double_member(all, s));
    } else if (!json_object_get_null_member(got, s)) {
      g_error("%s computed, not asked for", s);
    }
  }
}

static void test_choice(void) {
  JsonParser *pa, *p;
  CliRun all = cli_run(FLORENTINE, "--baselines", "all");
  JsonObject *la = losses(&all, &pa);
  for (guint i = 0; i < G_N_ELEMENTS(strategies); i++)
    g_assert_false(json_object_get_null_member(la, strategies[i]));
  const struct {
    const char *args[3];
    const char *want[9];
  } cases[] = {
      {{NULL}, {"mafalda", "dp-d-sgd", "antipgd", "sr", "bsr", "toeplitz", "blt", NULL}},
      {{"--baselines", "default"},
       {"mafalda", "dp-d-sgd", "antipgd", "sr", "bsr", "toeplitz", "blt", NULL}},
      {{"--baselines", "sr, dmf"}, {"mafalda", "sr", "dmf", NULL}},
      {{"--baselines", "none"}, {"mafalda", NULL}},
      {{"--baselines", "default,dmf"},
       {"mafalda", "dp-d-sgd", "antipgd", "sr", "bsr", "dmf", "toeplitz", "blt", NULL}},
      /* The old way to leave BLT out still works. */
      {{"--blt-buffers", "0"}, {"mafalda", "dp-d-sgd", "antipgd", "sr", "bsr", "toeplitz", NULL}},
  };
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    CliRun r = cases[c].args[0] ? cli_run(FLORENTINE, cases[c].args[0], cases[c].args[1])
                                : cli_run(FLORENTINE);
    assert_computed(losses(&r, &p), la, cases[c].want);
    g_object_unref(p);
    cli_run_clear(&r);
  }
  g_object_unref(pa);
  cli_run_clear(&all);
}

static void expect_usage(const char *a1, const char *a2, const char *a3, const char *a4,
                         const char *message) {
  CliRun r = a3 ? cli_run(FLORENTINE, a1, a2, a3, a4) : cli_run(FLORENTINE, a1, a2);
  g_assert_cmpint(r.status, ==, 2);
  if (strstr(r.err, message) == NULL)
    g_error("'%s' not in: %s", message, r.err);
  g_assert_cmpstr(r.out, ==, "");
  cli_run_clear(&r);
}

static void test_errors(void) {
  expect_usage("--baselines", "dfm", NULL, NULL,
               "dpgossip mafalda: --baselines: unknown baseline 'dfm' (valid: dp-d-sgd, antipgd, "
               "sr, bsr, dmf, toeplitz, blt, or all, default, none); did you mean 'dmf'?");
  expect_usage("--baselines", "sr,,bsr", NULL, NULL, "unknown baseline ''");
  expect_usage("--baselines", "sr,none", NULL, NULL, "unknown baseline 'none'");
  expect_usage("--baselines", "dmf", "--skip-dense", NULL,
               "--baselines: dmf is a dense T x T optimization, which --skip-dense skips");
  expect_usage("--baselines", "blt", "--blt-buffers", "0",
               "--baselines names blt but --blt-buffers 0 asks for no BLT strategy");
}

/* Lines "dpgossip mafalda: ...@what..., M:SS elapsed, ETA ..." of @err. */
static guint lines_with(const char *err, const char *what) {
  char **lines = g_strsplit(err, "\n", -1);
  guint n = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    n += g_str_has_prefix(lines[i], "dpgossip mafalda: ") && strstr(lines[i], what) &&
         strstr(lines[i], " elapsed, ETA ");
  g_strfreev(lines);
  return n;
}

static void test_progress(void) {
  g_setenv("DPGOSSIP_PROGRESS_INTERVAL", "0", TRUE);
  /* The fits report nothing themselves: the phase is named while they run. */
  CliRun fits = cli_run("mafalda", "--generate", "florentine", "-k", "32", "-b", "16",
                        "--skip-dense");
  CliRun dmf = cli_run(FLORENTINE, "--baselines", "dmf");
  g_unsetenv("DPGOSSIP_PROGRESS_INTERVAL");
  CliRun quiet = cli_run("mafalda", "--generate", "florentine", "-k", "32", "-b", "16",
                         "--skip-dense", "-q");
  g_assert_cmpint(fits.status, ==, 0);
  g_assert_cmpint(dmf.status, ==, 0);
  g_assert_cmpint(quiet.status, ==, 0);
  if (lines_with(fits.err, "fitting the BLT strategy, ") < 1)
    g_error("no progress while fitting:\n%s", fits.err);
  if (lines_with(dmf.err, "DMF's optimizer, iteration ") < 1)
    g_error("no progress from DMF's optimizer:\n%s", dmf.err);
  g_assert_cmpuint(lines_with(quiet.err, ""), ==, 0);
  cli_run_clear(&fits);
  cli_run_clear(&dmf);
  cli_run_clear(&quiet);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/mafalda-baselines/choice", test_choice);
  g_test_add_func("/cli/mafalda-baselines/errors", test_errors);
  g_test_add_func("/cli/mafalda-baselines/progress", test_progress);
  return g_test_run();
}
