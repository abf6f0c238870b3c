/*
 * tests/cli/test_validate.c: `dpgossip validate`: exit statuses (0 valid, 1
 * problems or unreadable file, 2 usage), every problem on stderr as
 * FILE:LINE: section.key: message, the count, --set, --keys. That every
 * shipped scenario validates is tests/docs/test_repository.c's check (one
 * home: it ran here too, twice the sanitizer run's longest test).
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

static char *write_tmp(const char *dir, const char *name, const char *text) {
  char *p = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(p, text, -1, NULL));
  return p;
}

static void test_valid(void) {
  char *dir = test_tmpdir("validate");
  char *ini = write_tmp(dir, "ok.ini",
                        "[topology]\ngenerate = florentine\n[sweep]\n"
                        "simulation.seed = 1..4\n");
  CliRun r = cli_run("validate", ini);
  g_assert_cmpint(r.status, ==, 0);
  char *expect = g_strdup_printf("%s: valid (4 points)\n", ini);
  g_assert_cmpstr(r.out, ==, expect);
  g_assert_cmpstr(r.err, ==, "");
  g_free(expect);
  cli_run_clear(&r);
  g_unlink(ini);
  g_rmdir(dir);
  g_free(ini);
  g_free(dir);
}

static void test_problems(void) {
  char *dir = test_tmpdir("validate");
  char *ini = write_tmp(dir, "bad.ini",
                        "[simulation]\nrouns = 10\n[topology]\ngraph = missing.edges\n"
                        "[protocol]\nsigma = -1\n[collusion.a]\nnodes = 0\n[sweep]\n"
                        "protocol.sigmaa = 1;2\n");
  CliRun r = cli_run("validate", ini);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_cmpstr(r.out, ==, "");
  char **lines = g_strsplit(r.err, "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 6); /* 4 problems, the count, "" */
  char *l2 = g_strdup_printf("%s:2: simulation.rouns: unknown key (did you mean 'rounds'?)", ini);
  g_assert_cmpstr(lines[0], ==, l2);
  g_assert_true(g_str_has_prefix(lines[1], ini));
  g_assert_nonnull(strstr(lines[1], ":4: topology.graph: file not found: "));
  char *l6 = g_strdup_printf("%s:6: protocol.sigma: -1 is out of range: must be >= 0", ini);
  g_assert_cmpstr(lines[2], ==, l6);
  char *l10 = g_strdup_printf("%s:10: sweep.protocol.sigmaa: sweep over an unknown key "
                              "protocol.sigmaa (did you mean 'sigma'?)",
                              ini);
  g_assert_cmpstr(lines[3], ==, l10);
  char *count = g_strdup_printf("%s: 4 problems", ini);
  g_assert_cmpstr(lines[4], ==, count);
  g_strfreev(lines);
  g_free(l2);
  g_free(l6);
  g_free(l10);
  g_free(count);
  cli_run_clear(&r);
  /* --set overrides are checked too, located as --set:N. */
  char *ok = write_tmp(dir, "ok.ini", "[topology]\ngenerate = florentine\n");
  r = cli_run("validate", ok, "--set", "collusion.x.nodes=99");
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "--set:1: collusion.x.nodes: node 99 is out of range: the "
                                 "graph has 15 nodes (0 to 14)\n"));
  cli_run_clear(&r);
  g_unlink(ok);
  g_unlink(ini);
  g_rmdir(dir);
  g_free(ok);
  g_free(ini);
  g_free(dir);
}

static void test_usage(void) {
  CliRun r = cli_run("validate", "/nonexistent/none.ini");
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "/nonexistent/none.ini"));
  cli_run_clear(&r);
  r = cli_run("validate");
  g_assert_cmpint(r.status, ==, 2);
  cli_run_clear(&r);
  char *dflt = g_build_filename(g_getenv("DPG_SOURCE_DIR"), "scenarios", "default.ini", NULL);
  r = cli_run("validate", dflt, "--set", "nodot");
  g_free(dflt);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "expected section.key=value"));
  cli_run_clear(&r);
  r = cli_run("validate", "--keys");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "[privacy]\n"));
  g_assert_nonnull(strstr(r.out, "participation_interval"));
  cli_run_clear(&r);
}

/* What `run` refuses before its first step, validate refuses too, with the
 * same message: [task] (dataset, epochs, batches) and [output] dir variants
 * of one small scenario. */
static void test_checks_run_makes(void) {
  char *dir = test_tmpdir("validate");
  char *file = write_tmp(dir, "a-file", "");
  struct {
    const char *task, *out, *expect;
    gboolean run; /* also run it (never into a system folder) */
  } cases[] = {
      {"dataset = synthetic:linear,n=300,d=4,seed=1\nepochs = 1\nbatches = 100", "out",
       "100 batches per node but node 0 holds only 16 records", TRUE},
      {"dataset = csv:/dev/zero\nepochs = 1\nbatches = 2", "out", "/dev/zero: not a regular file",
       TRUE},
      {"dataset = csv:/etc/passwd\nepochs = 1\nbatches = 2", "out",
       "/etc/passwd:1: 1 column; a table needs at least one feature and the target", TRUE},
      {"dataset = synthetic:linear,n=300,d=4,seed=1\nepochs = 100000\nbatches = 2", "out",
       "calibrating sigma over T = 200000 rounds would need", TRUE},
      {"dataset = synthetic:linear,n=300,d=4,seed=1\nepochs = 1\nbatches = 2", "/dev",
       "output folder /dev is in the system folder /dev", FALSE},
      {"dataset = synthetic:linear,n=300,d=4,seed=1\nepochs = 1\nbatches = 2", "/proc/sub",
       "output folder /proc/sub is in the system folder /proc", FALSE},
      {"dataset = synthetic:linear,n=300,d=4,seed=1\nepochs = 1\nbatches = 2", file,
       "exists and is not a directory", TRUE},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *text = g_strdup_printf("[topology]\ngenerate = florentine\n[protocol]\nname = dsgd\n"
                                 "mu = 0.3\n[task]\nmodel = linear\n%s\n[privacy]\ntrust = ldp\n"
                                 "[output]\ndir = %s\n",
                                 cases[i].task, cases[i].out);
    char *ini = write_tmp(dir, "case.ini", text);
    CliRun r = cli_run("validate", ini);
    if (r.status != 1 || strstr(r.err, cases[i].expect) == NULL)
      g_error("case %u: validate exited %d: %s", i, r.status, r.err);
    cli_run_clear(&r);
    if (cases[i].run) {
      r = cli_run("run", "-q", ini);
      if (r.status != 1 || strstr(r.err, cases[i].expect) == NULL)
        g_error("case %u: run exited %d: %s", i, r.status, r.err);
      cli_run_clear(&r);
    }
    g_free(text);
    g_free(ini);
  }
  test_rmtree(dir);
  g_free(file);
  g_free(dir);
}

/* validate streams a sweep's points (each resolved, checked and dropped):
 * what it reports must still name the very item, line and point folder.
 * The expected lines are what validate printed when it held every point
 * in memory (main aec9d51). */
static void test_big_sweep(void) {
  char *dir = test_tmpdir("validate");
  /* 3 x 20000 points; only the last item of the outer axis is bad. */
  char *ini = write_tmp(dir, "bad-item.ini",
                        "[topology]\ngenerate = florentine\n[protocol]\nname = dsgd\n"
                        "mu = 0.3\n[privacy]\ntrust = ldp\n[sweep]\nprotocol.clip = 1;2;-3\n"
                        "simulation.seed = 1..20000\n");
  CliRun r = cli_run("validate", ini);
  char *expect = g_strdup_printf("%s:9: sweep.protocol.clip: item 3: -3 is out of range: must be "
                                 "> 0\n%s: 1 problem\n",
                                 ini, ini);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_cmpstr(r.out, ==, "");
  g_assert_cmpstr(r.err, ==, expect);
  g_free(expect);
  cli_run_clear(&r);
  /* 2 x 3000 points, two distinct checks: the one that fails is point
   * 3000, whose folder name repeats point 0's (the datasets differ past
   * the name's 40 characters) and so ends in ~3000. */
  GString *text = g_string_new("[topology]\ngenerate = florentine\n[protocol]\nname = dsgd\n"
                               "mu = 0.3\n[task]\nmodel = linear\nepochs = 1\nbatches = 100\n"
                               "dataset = synthetic:linear,n=300,d=4,seed=1\n[privacy]\n"
                               "trust = ldp\n[output]\ndir = out\n[sweep]\ntask.dataset = "
                               "synthetic:linear,d=4,seed=1,noise=0.25,n=3000;"
                               "synthetic:linear,d=4,seed=1,noise=0.25,n=300\nprotocol.mu = ");
  for (guint i = 0; i < 3000; i++)
    g_string_append_printf(text, "%s0.%u", i ? ";" : "", 1000 + i);
  g_string_append_c(text, '\n');
  char *ini2 = write_tmp(dir, "bad-point.ini", text->str);
  r = cli_run("validate", ini2);
  expect = g_strdup_printf("1 point cannot start:\n  %s/out/points/"
                           "dataset=synthetic-linear-d-4-seed-1-noise-0.25-n_mu=0.1000~3000: 100 "
                           "batches per node but node 0 holds only 16 records (240 records over 15 "
                           "nodes); use at most 16 batches or fewer nodes\n%s: 1 problem\n",
                           dir, ini2);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_cmpstr(r.err, ==, expect);
  g_free(expect);
  cli_run_clear(&r);
  g_string_free(text, TRUE);
  test_rmtree(dir);
  g_free(ini2);
  g_free(ini);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/validate/valid", test_valid);
  g_test_add_func("/cli/validate/problems", test_problems);
  g_test_add_func("/cli/validate/usage", test_usage);
  g_test_add_func("/cli/validate/checks-run-makes", test_checks_run_makes);
  g_test_add_func("/cli/validate/big-sweep", test_big_sweep);
  return g_test_run();
}
