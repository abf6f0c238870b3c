/*
 * tests/cli/test_run.c: `dpgossip run`: a run's report and files, refusal of
 * an invalid scenario (nothing run, nothing written), --seed and --set, and
 * Ctrl-C: exit 130, no file that looks complete, and a rerun that resumes.
 */
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

static char *write_tmp(const char *dir, const char *name, const char *text) {
  char *p = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(p, text, -1, NULL));
  return p;
}

static gboolean exists(const char *dir, const char *name) {
  char *p = g_build_filename(dir, name, NULL);
  gboolean e = g_file_test(p, G_FILE_TEST_EXISTS);
  g_free(p);
  return e;
}

static void test_run_point(void) {
  char *dir = test_tmpdir("run");
  char *ini = write_tmp(dir, "s.ini",
                        "[simulation]\nrounds = 4\n[topology]\ngenerate = florentine\n"
                        "[privacy]\ntrust = pndp\n[output]\ndir = results\nplots = false\n");
  CliRun r = cli_run("run", ini, "--seed", "5", "--set", "protocol.sigma=2");
  g_assert_cmpint(r.status, ==, 0);
  char *out = g_build_filename(dir, "results", NULL);
  char *expect = g_strdup_printf("%s: 1 point (1 run, 0 already finished) on 1 thread\n"
                                 "results: %s\n",
                                 ini, out);
  /* Then the privacy by distance read back from privacy.csv: Florentine from
   * attacker 0 has 1, 5, 5 and 3 victims at distances 1 to 4. */
  g_assert_true(g_str_has_prefix(r.out, expect));
  /* How busy the run kept the machine: CPU and wall time, their ratio, and
   * the thread's idle time (rounded, so only their form is checked). */
  double cpu = -1, wall = -1, busy = -1;
  g_assert_cmpint(sscanf(r.out + strlen(expect),
                         "cpu: %lf s over %lf s wall, %lf cores busy; points ", &cpu, &wall, &busy),
                  ==, 3);
  g_assert_true(cpu >= 0 && wall >= 0 && busy >= 0);
  g_assert_nonnull(strstr(r.out, " on 1 thread, idle "));
  g_assert_nonnull(strstr(r.out, "privacy by hop distance (privacy.csv; means over victims):\n"));
  g_assert_nonnull(strstr(r.out, "  default        pndp           1        1 "));
  g_assert_nonnull(strstr(r.out, "  default        pndp           2        5 "));
  g_assert_nonnull(strstr(r.out, "  default        pndp           3        5 "));
  g_assert_nonnull(strstr(r.out, "  default        pndp           4        3 "));
  g_assert_cmpstr(r.err, ==, ""); /* no progress bar: stdout is not a terminal */
  cli_run_clear(&r);
  g_assert_true(exists(out, "summary.json"));
  char *res = g_build_filename(out, "scenario.resolved.ini", NULL), *text = NULL;
  g_assert_true(g_file_get_contents(res, &text, NULL, NULL));
  g_assert_nonnull(strstr(text, "seed = 5\n"));
  g_assert_nonnull(strstr(text, "sigma = 2\n"));
  g_free(text);
  /* A rerun finds it finished. */
  r = cli_run("run", ini, "--seed", "5", "--set", "protocol.sigma=2");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "(0 run, 1 already finished)"));
  cli_run_clear(&r);
  g_free(res);
  g_free(expect);
  test_rmtree(dir);
  g_free(out);
  g_free(ini);
  g_free(dir);
}

/* A graph file's dropped self-loops and duplicates and renumbered
 * labels are in summary.json (graph_load) and said in one stderr line, for a
 * point and for a sweep. */
static void test_run_graph_notice(void) {
  char *dir = test_tmpdir("run");
  char *edges = cli_test_data_path("topo-dropped.edges");
  char *text = g_strdup_printf("[simulation]\nrounds = 2\n[topology]\ngraph = %s\n"
                               "[privacy]\ntrust = pndp\n[output]\ndir = results\n"
                               "plots = false\n",
                               edges);
  char *ini = write_tmp(dir, "s.ini", text);
  const char *notice = "dpgossip run: the graph file had 2 self-loops and 2 duplicate edges "
                       "(dropped); its node labels are not 0..n-1: kept as the nodes' names";
  for (int sweep = 0; sweep < 2; sweep++) {
    CliRun r = sweep ? cli_run("run", ini, "-q", "--set", "sweep.protocol.sigma=1;2")
                     : cli_run("run", ini, "-q");
    g_assert_cmpint(r.status, ==, 0);
    g_assert_true(g_str_has_prefix(r.err, notice));
    g_assert_nonnull(strchr(r.err, '\n'));
    g_assert_cmpstr(strchr(r.err, '\n') + 1, ==, "");
    cli_run_clear(&r);
    char *sum = sweep ? g_build_filename(dir, "results", "points", "sigma=1", "summary.json", NULL)
                      : g_build_filename(dir, "results", "summary.json", NULL);
    JsonParser *parser = json_parser_new();
    GError *err = NULL;
    json_parser_load_from_file(parser, sum, &err);
    g_assert_no_error(err);
    JsonObject *load = json_object_get_object_member(
        json_node_get_object(json_parser_get_root(parser)), "graph_load");
    g_assert_nonnull(load);
    g_assert_cmpint(json_object_get_int_member(load, "self_loops_dropped"), ==, 2);
    g_assert_cmpint(json_object_get_int_member(load, "duplicate_edges_dropped"), ==, 2);
    g_assert_true(json_object_get_boolean_member(load, "renumbered"));
    g_object_unref(parser);
    g_free(sum);
    char *res = g_build_filename(dir, "results", NULL);
    test_rmtree(res);
    g_free(res);
  }
  test_rmtree(dir);
  g_free(ini);
  g_free(text);
  g_free(edges);
  g_free(dir);
}

/* A dataset's warning is said once by a sweep, not once per point (each
 * point loads the data: 3 points said it 3 times), and from -j 2's worker
 * threads as from one. */
static void test_run_warning_once(void) {
  char *dir = test_tmpdir("run");
  GString *csv = g_string_new("a,b,label\n");
  for (int i = 0; i < 40; i++) /* a 0/1 target trained as regression */
    g_string_append_printf(csv, "%g,%d,%d\n", i / 10.0, i % 3, i % 2);
  char *data = write_tmp(dir, "d.csv", csv->str);
  char *text = g_strdup_printf("[topology]\ngenerate = ring:n=4\n[protocol]\nname = dsgd\n"
                               "sigma = 1\n[task]\ndataset = csv:%s\nmodel = linear\n"
                               "epochs = 1\nbatches = 1\n[sweep]\nsimulation.seed = 1..3\n"
                               "[output]\ndir = results\nplots = false\n",
                               data);
  char *ini = write_tmp(dir, "s.ini", text);
  const char *said = "dpgossip run: warning: ";
  for (int threads = 1; threads <= 2; threads++) {
    char *j = g_strdup_printf("%d", threads);
    CliRun r = cli_run("run", ini, "-q", "-j", j);
    g_assert_cmpint(r.status, ==, 0);
    const char *first = strstr(r.err, said);
    if (first == NULL || strstr(first + 1, said) != NULL || strstr(first, "(0 and 1)") == NULL)
      g_error("-j %d: the dataset's warning not said exactly once:\n%s", threads, r.err);
    cli_run_clear(&r);
    char *res = g_build_filename(dir, "results", NULL);
    test_rmtree(res);
    g_free(res);
    g_free(j);
  }
  test_rmtree(dir);
  g_free(ini);
  g_free(text);
  g_free(data);
  g_string_free(csv, TRUE);
  g_free(dir);
}

static void test_run_invalid(void) {
  char *dir = test_tmpdir("run");
  char *ini = write_tmp(dir, "bad.ini",
                        "[topology]\ngenerate = florentine\n[protocol]\n"
                        "sigma = -1\n[output]\ndir = results\n");
  CliRun r = cli_run("run", ini);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, ":4: protocol.sigma: -1 is out of range: must be >= 0\n"));
  g_assert_nonnull(strstr(r.err, "is invalid; nothing was run"));
  g_assert_false(exists(dir, "results"));
  cli_run_clear(&r);
  r = cli_run("run");
  g_assert_cmpint(r.status, ==, 2);
  cli_run_clear(&r);
  r = cli_run("run", ini, "--threads", "-1");
  g_assert_cmpint(r.status, ==, 2);
  cli_run_clear(&r);
  test_rmtree(dir);
  g_free(ini);
  g_free(dir);
}

/* A training sweep long enough to be interrupted: a few seconds in Release. */
static const char long_training[] =
    "[topology]\ngenerate = erdos:n=120,p=0.08,seed=2,connected=true\n"
    "[protocol]\nsigma = 0.1\n[task]\ndataset = "
    "synthetic:linear,n=40000,d=60,seed=1\nepochs = 40\nbatches = 25\n"
    "[privacy]\npath = none\n[output]\ndir = results\n[sweep]\n"
    "simulation.seed = 1..2\n";

/* A sweep whose time goes to its audits (the run and its accounting take
 * milliseconds; 10^6 trials per world take minutes): the audit, too, must
 * stop on a signal rather than finish and write its point. */
static const char long_audit[] =
    "[topology]\ngenerate = florentine\n[protocol]\nsigma = 1\n"
    "[simulation]\nrounds = 8\n[privacy]\ntrust = pndp\n"
    "[collusion.a]\nnodes = 0\n[audit]\nvictims = 8\ntrials = 1000000\nattack = np\n"
    "[output]\ndir = results\n[sweep]\nsimulation.seed = 1..2\n";

/* A signal mid-sweep: exit 128 + its number, the message says what finished
 * and how to resume, and nothing looks complete. */
static void interrupt_run(int sig, const char *scenario) {
  char *dir = test_tmpdir("run");
  char *ini = write_tmp(dir, "long.ini", scenario);
  const char *bin = g_getenv("DPGOSSIP");
  g_assert_nonnull(bin);
  const char *argv[] = {bin, "run", ini, "-j", "1", NULL};
  GPid pid;
  GError *error = NULL;
  int err_fd = -1;
  g_assert_true(g_spawn_async_with_pipes(NULL, (char **)argv, NULL,
                                         G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                         cli_run_die_with_test, NULL, &pid, NULL, NULL, &err_fd,
                                         &error));
  g_assert_no_error(error);
  char *out = g_build_filename(dir, "results", NULL);
  char *cache = g_build_filename(out, "points", NULL);
  /* Wait until the run has started (its output folder exists), then interrupt. */
  for (int i = 0; i < 400 && !g_file_test(out, G_FILE_TEST_IS_DIR); i++)
    g_usleep(10000);
  g_usleep(300000);
  kill(pid, sig);
  /* Drain stderr while waiting (the child must not block on a full pipe).
   * A run that ignores the signal would go on for minutes: give it 60 s
   * (a loaded machine's worst case, far above the < 1 s it takes), then
   * kill it and fail rather than hang the suite. */
  g_assert_true(g_unix_set_fd_nonblocking(err_fd, TRUE, NULL));
  GString *err = g_string_new(NULL);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 6000 && done == 0; i++) {
    char buf[4096];
    ssize_t got;
    while ((got = read(err_fd, buf, sizeof buf)) > 0)
      g_string_append_len(err, buf, got);
    done = waitpid(pid, &status, WNOHANG);
    if (done == 0)
      g_usleep(10000);
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    g_error("dpgossip run did not stop within 60 s of signal %d", sig);
  }
  g_assert_cmpint(done, ==, pid);
  for (char buf[4096];;) {
    ssize_t got = read(err_fd, buf, sizeof buf);
    if (got <= 0)
      break;
    g_string_append_len(err, buf, got);
  }
  close(err_fd);
  char *err_text = g_string_free(err, FALSE);
  g_spawn_close_pid(pid);
  g_assert_true(WIFEXITED(status));
  g_assert_cmpint(WEXITSTATUS(status), ==, 128 + sig);
  g_assert_nonnull(strstr(err_text, "dpgossip run: interrupted"));
  g_assert_nonnull(strstr(err_text, "of 2 points finished; run again to resume"));
  g_free(err_text);
  /* Nothing that looks complete: no summary anywhere, no metrics. */
  g_assert_false(exists(out, "summary.json"));
  char *p1 = g_build_filename(out, "points", "seed=1", NULL);
  g_assert_false(exists(p1, "summary.json"));
  g_assert_false(exists(p1, "metrics.csv"));
  g_free(p1);
  g_free(cache);
  test_rmtree(dir);
  g_free(out);
  g_free(ini);
  g_free(dir);
}

static void test_sigint(void) {
  interrupt_run(SIGINT, long_training);
}

static void test_sigterm(void) {
  interrupt_run(SIGTERM, long_training);
}

static void test_sigterm_audit(void) {
  interrupt_run(SIGTERM, long_audit);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/run/point", test_run_point);
  g_test_add_func("/cli/run/invalid", test_run_invalid);
  g_test_add_func("/cli/run/graph-notice", test_run_graph_notice);
  g_test_add_func("/cli/run/warning-once", test_run_warning_once);
  g_test_add_func("/cli/run/sigint", test_sigint);
  g_test_add_func("/cli/run/sigterm", test_sigterm);
  g_test_add_func("/cli/run/sigterm-audit", test_sigterm_audit);
  return g_test_run();
}
