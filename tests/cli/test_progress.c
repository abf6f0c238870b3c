/*
 * tests/cli/test_progress.c: long work shows progress: not on a
 * terminal, train, run, the observer and structured accountings and mafalda print
 * "dpgossip CMD: DONE/TOTAL ..., M:SS elapsed, ETA M:SS" lines on stderr
 * every $DPGOSSIP_PROGRESS_INTERVAL seconds (0 here: at every report), none
 * with -q, none on a short run at the default 10 s; stdout and the output
 * files are byte for byte those of the quiet run.
 */
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "tests/common/checks.h"
#include "tests/common/files.h"
#include "tests/common/run.h"

static char *dir;

/* Progress lines of @err: "dpgossip @cmd: " lines with "elapsed, ETA". */
static guint progress_lines(const char *err, const char *cmd) {
  char *prefix = g_strdup_printf("dpgossip %s: ", cmd);
  char **lines = g_strsplit(err, "\n", -1);
  guint n = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    n += g_str_has_prefix(lines[i], prefix) && strstr(lines[i], " elapsed, ETA ") != NULL;
  g_strfreev(lines);
  g_free(prefix);
  return n;
}

static char *slurp(const char *path) {
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  return text;
}

static char *path_in(const char *name) {
  return g_build_filename(dir, name, NULL);
}

/* Whether @args asks for --format json. */
static gboolean wants_json(const char *const *args) {
  for (guint i = 0; args[i] != NULL && args[i + 1] != NULL; i++)
    if (strcmp(args[i], "--format") == 0 && strcmp(args[i + 1], "json") == 0)
      return TRUE;
  return FALSE;
}

/* Runs @args (its output file at @out, nullable) with the interval 0, then
 * with -q appended (output at @out_q), and compares; the progress holds
 * each of @fragments (TEST_NEEDLES). With --format json, stdout is one JSON
 * object and nothing else (the progress goes to stderr). Returns the loud
 * run's stderr when @err_out is given (g_free). */
static void check(const char *cmd, const char *const *args, const char *const *args_q,
                  const char *out, const char *out_q, const char *const *fragments,
                  char **err_out) {
  g_setenv("DPGOSSIP_PROGRESS_INTERVAL", "0", TRUE);
  CliRun loud = cli_run_v(args);
  CliRun quiet = cli_run_v(args_q);
  g_unsetenv("DPGOSSIP_PROGRESS_INTERVAL");
  g_assert_cmpint(loud.status, ==, 0);
  g_assert_cmpint(quiet.status, ==, 0);
  if (progress_lines(loud.err, cmd) < 2)
    g_error("%s: fewer than 2 progress lines:\n%s", cmd, loud.err);
  for (guint i = 0; fragments[i] != NULL; i++)
    if (strstr(loud.err, fragments[i]) == NULL)
      g_error("%s: no '%s' in the progress:\n%s", cmd, fragments[i], loud.err);
  g_assert_cmpuint(progress_lines(quiet.err, cmd), ==, 0);
  if (wants_json(args)) {
    GError *error = NULL;
    JsonNode *root = json_from_string(loud.out, &error);
    g_assert_no_error(error);
    g_assert_nonnull(root);
    g_assert_true(JSON_NODE_HOLDS_OBJECT(root));
    json_node_unref(root);
  }
  if (out != NULL) {
    char *a = slurp(out), *b = slurp(out_q);
    g_assert_cmpstr(a, ==, b);
    g_free(a);
    g_free(b);
  } else {
    g_assert_cmpstr(loud.out, ==, quiet.out);
  }
  if (err_out != NULL)
    *err_out = g_strdup(loud.err);
  cli_run_clear(&loud);
  cli_run_clear(&quiet);
}

#define TRAIN(out)                                                                                 \
  "train", "--generate", "florentine", "--dataset", "synthetic:linear,n=3000,d=10,seed=1",         \
      "--model", "linear", "--epochs", "10", "--batches", "16", "--out", out

static void test_train(void) {
  char *a = path_in("a.csv"), *b = path_in("b.csv");
  check("train", (const char *const[]){TRAIN(a), NULL}, (const char *const[]){TRAIN(b), "-q", NULL},
        a, b, TEST_NEEDLES("/160 steps ("), NULL);
  /* What follows the last step (the evaluation, the observer's accounting)
   * is named, with no ETA: it printed "ETA 0:00" for seconds. */
  g_setenv("DPGOSSIP_PROGRESS_INTERVAL", "0", TRUE);
  CliRun after = cli_run("train", "--generate", "regular:n=300,d=6,seed=1", "--dataset",
                         "synthetic:linear,n=3000,d=10,seed=1", "--model", "linear", "-k", "4",
                         "-b", "4", "--trust", "pndp", "-a", "0", "--out", a);
  g_unsetenv("DPGOSSIP_PROGRESS_INTERVAL");
  g_assert_cmpint(after.status, ==, 0);
  const char *line = strstr(after.err, "dpgossip train: after the last step: evaluation and "
                                       "privacy accounting, ");
  const char *end = line ? strchr(line, '\n') : NULL;
  if (end == NULL || strncmp(end - 6, " ETA ?\n", 7) != 0 ||
      strstr(after.err, "dpgossip train: building the graph, ") == NULL)
    g_error("the phases around the steps are not named:\n%s", after.err);
  cli_run_clear(&after);
  /* At the default interval (10 s) a short run prints no progress line. */
  CliRun r = cli_run(TRAIN(a));
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpuint(progress_lines(r.err, "train"), ==, 0);
  cli_run_clear(&r);
  g_unlink(a);
  g_unlink(b);
  g_free(a);
  g_free(b);
}

/* Thm 5.2's bound: the steps' progress is what these check; the exact
 * sensitivity's own progress is EXACT's below. */
#define ACCOUNT(...)                                                                               \
  "account", "--generate", "karate", "-T", "60", "--trust", "pndp", "-a", "0", "--path",           \
      "observer", "--sensitivity", "bound", "--format", "csv", __VA_ARGS__

static void test_account(void) {
  check("account", (const char *const[]){ACCOUNT("--accountant", "streaming"), NULL},
        (const char *const[]){ACCOUNT("--accountant", "streaming"), "-q", NULL}, NULL, NULL,
        TEST_NEEDLES("/60 steps accounted ("), NULL);
  check("account", (const char *const[]){ACCOUNT("--storage", "dense"), NULL},
        (const char *const[]){ACCOUNT("--storage", "dense"), "-q", NULL}, NULL, NULL,
        TEST_NEEDLES("/60 steps simulated ("), NULL);
  /* The structured path: the engine's fraction, and which attacker set. */
#define STRUCTURED(...)                                                                            \
  "account", "--generate", "karate", "-T", "40", "--trust", "pndp", "-a", "0,33", "--path",        \
      "structured", "--format", "csv", __VA_ARGS__
  check("account", (const char *const[]){STRUCTURED(NULL)},
        (const char *const[]){STRUCTURED("-q", NULL)}, NULL, NULL,
        TEST_NEEDLES("structured accounting, attacker set 2/2 (~"), NULL);
#undef STRUCTURED
  /* A local bound reports through the engine of its ball, in JSON too, and
   * the seconds of generating a large graph are named as they pass (the
   * heartbeat wakes every 50 ms at the interval 0). */
#define LOCAL(...)                                                                                 \
  "account", "--generate", "regular:n=100000,d=8,seed=1", "-T", "4", "--trust", "pndp", "-a",     \
      "0", "--path", "local", "--radius", "2", "--format", "json", __VA_ARGS__
  check("account", (const char *const[]){LOCAL(NULL)}, (const char *const[]){LOCAL("-q", NULL)},
        NULL, NULL,
        TEST_NEEDLES("structured accounting (~", "dpgossip account: building the graph, "), NULL);
#undef LOCAL
  /* The exact sensitivity is one semidefinite program per victim. */
#define EXACT(...)                                                                                 \
  "account", "--generate", "karate", "-T", "8", "-b", "2", "--trust", "pndp", "-a", "0",          \
      "--sensitivity", "exact", "--format", "json", __VA_ARGS__
  check("account", (const char *const[]){EXACT(NULL)}, (const char *const[]){EXACT("-q", NULL)},
        NULL, NULL, TEST_NEEDLES("exact sensitivities of the victims (~"), NULL);
#undef EXACT
}

#define FIGURE(out)                                                                                \
  "figure", "privacy-vs-distance", "--generate", "florentine", "-T", "10", "--trust", "pndp",      \
      "-a", "0", "--mode", "deadline:ms=5", "--out", out

static void test_figure(void) {
  char *a = path_in("f1.svg"), *b = path_in("f2.svg");
  check("figure", (const char *const[]){FIGURE(a), NULL},
        (const char *const[]){FIGURE(b), "-q", NULL}, a, b, TEST_NEEDLES("/10 steps accounted ("), NULL);
  g_unlink(a);
  g_unlink(b);
  g_free(a);
  g_free(b);
}

/* The structured figure reports a fraction of its attacker sets (no
 * steps to count): a percentage, not "0/0 ... (0%)". */
#define FIGURE_SETS(out)                                                                           \
  "figure", "privacy-vs-distance", "--generate", "florentine", "-T", "10", "--trust", "pndp",      \
      "-a", "0,1", "--out", out

static void test_figure_structured(void) {
  char *a = path_in("f3.svg"), *b = path_in("f4.svg");
  check("figure", (const char *const[]){FIGURE_SETS(a), NULL},
        (const char *const[]){FIGURE_SETS(b), "-q", NULL}, a, b,
        TEST_NEEDLES("attacker set 2/2 (~"), NULL);
  g_unlink(a);
  g_unlink(b);
  g_free(a);
  g_free(b);
}

#define MAFALDA(out)                                                                               \
  "mafalda", "--generate", "florentine", "-k", "5", "-b", "16", "--format", "json", "--out", out

static void test_mafalda(void) {
  char *a = path_in("C1.csv"), *b = path_in("C2.csv");
  check("mafalda", (const char *const[]){MAFALDA(a), NULL},
        (const char *const[]){MAFALDA(b), "-q", NULL}, a, b,
        TEST_NEEDLES("Mafalda's optimizer, iteration "), NULL);
  g_unlink(a);
  g_unlink(b);
  g_free(a);
  g_free(b);
}

/* A sweep's ETA tells the truth: a point's accounting comes after its last
 * step, so until one point has ended (and measured the share of its run)
 * no ETA is printed; the running points' steps are named instead. Once
 * points have ended, the ETA is estimated. */
static void assert_run_eta(const char *err) {
  char **lines = g_strsplit(err, "\n", -1);
  guint before = 0, steps = 0, estimated = 0;
  for (guint i = 0; lines[i] != NULL; i++) {
    if (!g_str_has_prefix(lines[i], "dpgossip run: "))
      continue;
    steps += strstr(lines[i], " through their steps (~") != NULL;
    if (g_str_has_prefix(lines[i], "dpgossip run: 0/8 points")) {
      before++;
      if (!g_str_has_suffix(lines[i], " elapsed, ETA ?"))
        g_error("an ETA before any point ended: %s", lines[i]);
    } else if (!g_str_has_suffix(lines[i], "ETA ?")) {
      estimated++;
    }
  }
  g_strfreev(lines);
  if (before == 0 || steps == 0 || estimated == 0)
    g_error("%u lines before a point ended, %u naming the steps, %u with an ETA:\n%s", before,
            steps, estimated, err);
}

static void test_run(void) {
  const char *src = g_getenv("DPG_SOURCE_DIR");
  g_assert_nonnull(src);
  char *ini = g_build_filename(src, "scenarios", "default.ini", NULL);
  char *o1 = path_in("r1"), *o2 = path_in("r2");
  /* -q also drops run's summary (and the folders differ): compare the files. */
  char *m1 = g_build_filename(o1, "points", "name=dsgd_seed=1", "metrics.csv", NULL);
  char *m2 = g_build_filename(o2, "points", "name=dsgd_seed=1", "metrics.csv", NULL);
  char *err = NULL;
  check("run", (const char *const[]){"run", ini, "--out", o1, "-j", "1", NULL},
        (const char *const[]){"run", ini, "--out", o2, "-j", "1", "-q", NULL}, m1, m2,
        TEST_NEEDLES("/8 points ("), &err);
  assert_run_eta(err);
  g_free(err);
  g_free(m1);
  g_free(m2);
  const char *files[] = {"metrics.csv", "privacy.csv"};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
    char *a = g_build_filename(o1, "points", "name=mafalda_seed=2", files[i], NULL);
    char *b = g_build_filename(o2, "points", "name=mafalda_seed=2", files[i], NULL);
    char *ta = slurp(a), *tb = slurp(b);
    g_assert_cmpstr(ta, ==, tb);
    g_free(ta);
    g_free(tb);
    g_free(a);
    g_free(b);
  }
  char *rm = g_strdup_printf("rm -rf '%s' '%s'", o1, o2);
  g_assert_cmpint(system(rm), ==, 0);
  g_free(rm);
  g_free(o1);
  g_free(o2);
  g_free(ini);
}

/* graph names its phases (it printed no progress at all: 38 s of silence
 * on the overlay); its diameter (a BFS per node) and spectral gap take
 * about a second here. --format json, as in the local accounting's and
 * mafalda's checks: progress on stderr, stdout one JSON object. */
#define GRAPH(...)                                                                                 \
  "graph", "--generate", "regular:n=4000,d=8,seed=1", "--format", "json", __VA_ARGS__

static void test_graph(void) {
  check("graph", (const char *const[]){GRAPH(NULL)}, (const char *const[]){GRAPH("-q", NULL)},
        NULL, NULL, TEST_NEEDLES("the diameter and the spectral gap, "), NULL);
}
#undef GRAPH

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  dir = test_tmpdir("cli-progress");
  g_test_add_func("/cli/progress/train", test_train);
  g_test_add_func("/cli/progress/account", test_account);
  g_test_add_func("/cli/progress/mafalda", test_mafalda);
  g_test_add_func("/cli/progress/figure", test_figure);
  g_test_add_func("/cli/progress/figure-structured", test_figure_structured);
  g_test_add_func("/cli/progress/run", test_run);
  g_test_add_func("/cli/progress/graph", test_graph);
  int rc = g_test_run();
  g_rmdir(dir);
  g_free(dir);
  return rc;
}
