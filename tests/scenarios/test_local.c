/*
 * tests/scenarios/test_local.c: privacy.path = local with privacy.radius or
 * privacy.tightness: the certified bounds in privacy.csv are never below the
 * structured (or observer) path's exact values and name their radius; in
 * deadline and stale mode and for Zip-DL (the observer path's ball) they are
 * `dpgossip account --path local`'s for the same options, cell for cell; a
 * sweep's privacy.csv does not depend on its threads; the keys' problems,
 * the command line's refusals among them, at their file and line.
 */
#include <math.h>
#include <stdlib.h>

#include "tests/common/run.h"
#include "tests/scenarios/scen_test.h"

#define BASE "[simulation]\nrounds = 4\n[topology]\ngenerate = barabasi:n=40,m=2,seed=5\n"

/* Runs @text in DIR/NAME with @threads and returns the rows of its
 * privacy.csv (header first); @csv_text: (out, nullable) the file's text. */
static GPtrArray *run_csv_threads(ScenTestFix *f, const char *name, const char *text, guint threads,
                                  char **resolved, char **csv_text) {
  char *path = scen_test_write(f->dir, name, text);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  char *out = g_build_filename(f->dir, name, NULL);
  out[strlen(out) - 4] = '\0'; /* DIR/NAME without ".ini" */
  ScenRunOptions opt = {.out_dir = out, .threads = threads};
  ScenRunReport rep = {0};
  gboolean ok = scen_scenario_run(sc, &opt, &rep, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  scen_run_report_clear(&rep);
  GPtrArray *rows = scen_test_csv(out, "privacy.csv");
  if (resolved)
    *resolved = scen_test_read(out, "scenario.resolved.ini");
  if (csv_text)
    *csv_text = scen_test_read(out, "privacy.csv");
  g_free(out);
  g_free(path);
  scen_scenario_free(sc);
  return rows;
}

static GPtrArray *run_csv(ScenTestFix *f, const char *name, const char *text, char **resolved) {
  return run_csv_threads(f, name, text, 1, resolved, NULL);
}

#define PRIVACY_OF(PROTO)                                                                          \
  "[protocol]\n" PROTO "sigma = 1.1\n[collusion.a]\nnodes = 3\n[output]\nplots = false\n"          \
  "[privacy]\ntrust = pndp;ldp\nsensitivity = exact\n"

/* Columns of privacy.csv (SCEN_PRIVACY_CSV_COLUMNS). */
enum {
  COL_TRUST = 1,
  COL_VICTIM = 2,
  COL_DISTANCE = 3,
  COL_MU = 5,
  COL_PATH = 13,
  COL_MU_LOWER = 15
};

/* Every row of @lo (certified bounds) against the row of @ex (exact
 * values) with the same trust and victim: mu never below. The two come by
 * different computations of a maximum over the same SDP's feasible set
 * (the exact sensitivity): a relative 1e-9 is the solver's accuracy, not a
 * slack. Returns how many rows were compared. */
static guint assert_above(GPtrArray *lo, GPtrArray *ex) {
  guint checked = 0;
  for (guint r = 1; r < lo->len; r++) {
    char **row = g_ptr_array_index(lo, r);
    for (guint e = 1; e < ex->len; e++) {
      char **erow = g_ptr_array_index(ex, e);
      if (g_str_equal(erow[COL_TRUST], row[COL_TRUST]) &&
          g_str_equal(erow[COL_VICTIM], row[COL_VICTIM])) {
        double b = g_ascii_strtod(row[COL_MU], NULL), x = g_ascii_strtod(erow[COL_MU], NULL);
        if (!(b >= x * (1 - 1e-9)))
          g_error("trust %s victim %s: local mu %s below the exact %s", row[COL_TRUST],
                  row[COL_VICTIM], row[COL_MU], erow[COL_MU]);
        /* mu_lower: a primal point of the exact value's SDP, the exact
         * value a dual one: below it up to rounding. */
        double l = *row[COL_MU_LOWER] ? g_ascii_strtod(row[COL_MU_LOWER], NULL) : 0.0;
        if (!(l <= x * (1 + 1e-9)))
          g_error("trust %s victim %s: local mu_lower %s above the exact %s", row[COL_TRUST],
                  row[COL_VICTIM], row[COL_MU_LOWER], erow[COL_MU]);
        checked++;
      }
    }
  }
  g_assert_cmpuint(checked, ==, lo->len - 1);
  return checked;
}

/* D-SGD, and DECOR with its edge secrets (data: "decor"). */
static void test_bounds(ScenTestFix *f, gconstpointer data) {
  gboolean decor = data != NULL;
  const char *privacy = decor ? BASE PRIVACY_OF("name = decor\n") : BASE PRIVACY_OF("");
  char *resolved = NULL;
  char *ex_text = g_strconcat(privacy, "path = structured\n", NULL);
  char *lo_text = g_strconcat(privacy, "path = local\nradius = 2\n", NULL);
  GPtrArray *ex = run_csv(f, "exact.ini", ex_text, NULL);
  GPtrArray *lo = run_csv(f, "local.ini", lo_text, &resolved);
  g_free(ex_text);
  g_free(lo_text);
  for (guint r = 1; r < lo->len; r++) {
    char **row = g_ptr_array_index(lo, r);
    g_assert_cmpstr(row[COL_PATH], ==, "local:radius=2");
    g_assert_cmpint(atoi(row[COL_DISTANCE]), <=, 2);
  }
  g_assert_cmpuint(assert_above(lo, ex), >, 4);
  g_assert_nonnull(strstr(resolved, "path = local\nradius = 2\n"));
  g_free(resolved);
  g_ptr_array_unref(ex);
  g_ptr_array_unref(lo);
}

/* An asynchronous run's scenario: a small regular graph, T = 6, lognormal
 * latency and loss in mode @MODE, node 3 attacking, protocol lines @PROTO. */
#define ASYNC(MODE, PROTO)                                                                         \
  "[simulation]\nrounds = 6\nseed = 7\nmode = " MODE "\n[topology]\n"                              \
  "generate = regular:n=60,d=3,seed=3\n[network]\nlatency = lognormal:mu=3,sigma=0.5\n"            \
  "loss = 0.1\n" PRIVACY_OF(PROTO)

/* `dpgossip account` for ASYNC(@mode, protocol @protocol), its extra
 * options @extra (NULL-terminated): the rows of its CSV, header first. */
static GPtrArray *account_csv(const char *mode, const char *protocol, const char *const *extra) {
  const char *base[] = {"account",
                        "--generate",
                        "regular:n=60,d=3,seed=3",
                        "-T",
                        "6",
                        "--seed",
                        "7",
                        "--mode",
                        mode,
                        "--latency",
                        "lognormal:mu=3,sigma=0.5",
                        "--loss",
                        "0.1",
                        "--protocol",
                        protocol,
                        "--sigma",
                        "1.1",
                        "--trust",
                        "pndp,ldp",
                        "-a",
                        "3",
                        "--sensitivity",
                        "exact",
                        "--format",
                        "csv"};
  GPtrArray *argv = g_ptr_array_new();
  for (guint i = 0; i < G_N_ELEMENTS(base); i++)
    g_ptr_array_add(argv, (gpointer)base[i]);
  for (guint i = 0; extra[i]; i++)
    g_ptr_array_add(argv, (gpointer)extra[i]);
  g_ptr_array_add(argv, NULL);
  CliRun r = cli_run_v((const char *const *)argv->pdata);
  g_ptr_array_free(argv, TRUE);
  if (r.status != 0)
    g_error("dpgossip account: %s", r.err);
  char **lines = g_strsplit(r.out, "\n", -1);
  GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  for (guint i = 0; lines[i]; i++)
    if (lines[i][0] != '\0')
      g_ptr_array_add(rows, g_strsplit(lines[i], ",", -1));
  g_strfreev(lines);
  cli_run_clear(&r);
  return rows;
}

/* The scenario's privacy.csv @sr is `dpgossip account`'s @cr: the same
 * rows in the same order, every cell the same text but the set's name
 * (the scenario's [collusion] name, the members for the command line). */
static void assert_same_csv(GPtrArray *sr, GPtrArray *cr) {
  g_assert_cmpuint(sr->len, ==, cr->len);
  g_assert_cmpuint(sr->len, >, 2);
  char **sh = g_ptr_array_index(sr, 0), **ch = g_ptr_array_index(cr, 0);
  guint ncol = g_strv_length(sh);
  g_assert_cmpuint(g_strv_length(ch), ==, ncol);
  for (guint r = 0; r < sr->len; r++) {
    char **a = g_ptr_array_index(sr, r), **b = g_ptr_array_index(cr, r);
    g_assert_cmpuint(g_strv_length(a), ==, ncol);
    g_assert_cmpuint(g_strv_length(b), ==, ncol);
    if (r > 0) {
      g_assert_cmpstr(a[0], ==, "a");
      g_assert_cmpstr(b[0], ==, "3");
    }
    for (guint k = 1; k < ncol; k++)
      if (!g_str_equal(a[k], b[k]))
        g_error("row %u column %s: scenario %s, account %s", r, sh[k], a[k], b[k]);
  }
}

/* Deadline (data NULL) or stale mode: the local bounds are on the ball's
 * part of the run's delivery record, as `dpgossip account --path local
 * --radius 2` with the run's mode, latency, loss and seed computes them,
 * and never below the structured path's exact values on the whole record.
 * A local path accounting the synchronous run instead (its messages all
 * delivered) gives other numbers, and fails the first comparison. */
static void test_async(ScenTestFix *f, gconstpointer data) {
  const char *mode = data != NULL ? "stale:s=2" : "deadline:ms=30";
  char *base = data != NULL ? g_strdup(ASYNC("stale:s=2", ""))
                            : g_strdup(ASYNC("deadline:ms=30", ""));
  char *ex_text = g_strconcat(base, "path = structured\n", NULL);
  char *lo_text = g_strconcat(base, "path = local\nradius = 2\n", NULL);
  GPtrArray *lo = run_csv(f, "local.ini", lo_text, NULL);
  GPtrArray *cli = account_csv(mode, "dsgd",
                               (const char *const[]){"--path", "local", "--radius", "2", NULL});
  assert_same_csv(lo, cli);
  GPtrArray *ex = run_csv(f, "exact.ini", ex_text, NULL);
  guint within = 0;
  for (guint r = 1; r < lo->len; r++) {
    char **row = g_ptr_array_index(lo, r);
    g_assert_cmpstr(row[COL_PATH], ==, "local:radius=2");
    /* A certified interval: mu_lower <= mu. */
    g_assert_cmpfloat(g_ascii_strtod(row[COL_MU_LOWER], NULL), <=,
                      g_ascii_strtod(row[COL_MU], NULL));
    within += atoi(row[COL_DISTANCE]) <= 2;
  }
  g_assert_cmpuint(within, ==, lo->len - 1);
  g_assert_cmpuint(assert_above(lo, ex), >, 10);
  g_ptr_array_unref(ex);
  g_ptr_array_unref(cli);
  g_ptr_array_unref(lo);
  g_free(ex_text);
  g_free(lo_text);
  g_free(base);
}

/* Zip-DL in deadline mode: the structured path does not know it, so the
 * local path is the observer path's ball (a simulated run, its provenance
 * over the ball; mu_lower from a second run, the shell's messages as
 * nuisance), as on the command line, with
 * the run's lr (Zip-DL's noise is added to the model, not the gradient: mu
 * grows with lr, 5 times from the default 0.1 to 0.5) and accountant;
 * [mu_lower, mu] holds the observer path's values on the trained run. */
static void test_zipdl(ScenTestFix *f, gconstpointer data) {
  (void)data;
  const char *base = ASYNC("deadline:ms=30", "name = zipdl\nlr = 0.5\n") "accountant = dense\n";
  char *ex_text = g_strconcat(base, "path = observer\n", NULL);
  char *lo_text = g_strconcat(base, "path = local\nradius = 2\n", NULL);
  GPtrArray *lo = run_csv(f, "local.ini", lo_text, NULL);
  GPtrArray *cli = account_csv("deadline:ms=30", "zipdl",
                               (const char *const[]){"--path", "local", "--radius", "2", "--lr",
                                                     "0.5", "--accountant", "dense", NULL});
  assert_same_csv(lo, cli);
  GPtrArray *ex = run_csv(f, "exact.ini", ex_text, NULL);
  guint positive = 0;
  for (guint r = 1; r < lo->len; r++) {
    char **row = g_ptr_array_index(lo, r);
    g_assert_cmpstr(row[COL_PATH], ==, "local:radius=2");
    positive += g_ascii_strtod(row[COL_MU_LOWER], NULL) > 0;
  }
  g_assert_cmpuint(positive, >, 0);
  g_assert_cmpuint(assert_above(lo, ex), >, 10);
  g_ptr_array_unref(ex);
  g_ptr_array_unref(cli);
  g_ptr_array_unref(lo);
  g_free(ex_text);
  g_free(lo_text);
}

/* privacy.tightness in deadline mode: the radius grown as `dpgossip
 * account --tightness 2` grows it, the same rows. */
static void test_tightness(ScenTestFix *f, gconstpointer data) {
  (void)data;
  char *text = g_strconcat(ASYNC("deadline:ms=30", ""), "path = local\ntightness = 2\n", NULL);
  GPtrArray *lo = run_csv(f, "tight.ini", text, NULL);
  GPtrArray *cli = account_csv("deadline:ms=30", "dsgd",
                               (const char *const[]){"--path", "local", "--tightness", "2", NULL});
  assert_same_csv(lo, cli);
  char **row = g_ptr_array_index(lo, 1);
  g_assert_true(g_str_has_prefix(row[COL_PATH], "local:radius="));
  g_assert_cmpint(atoi(row[COL_PATH] + strlen("local:radius=")), >, 1); /* it grew */
  g_ptr_array_unref(cli);
  g_ptr_array_unref(lo);
  g_free(text);
}

/* A sweep over two seeds of the deadline-mode local bounds: its
 * privacy.csv is the same bytes with one thread and with two. */
static void test_threads(ScenTestFix *f, gconstpointer data) {
  (void)data;
  char *text = g_strconcat(ASYNC("deadline:ms=30", ""),
                           "path = local\nradius = 2\n[sweep]\nsimulation.seed = 7;8\n", NULL);
  char *one = NULL, *two = NULL;
  g_ptr_array_unref(run_csv_threads(f, "one.ini", text, 1, NULL, &one));
  g_ptr_array_unref(run_csv_threads(f, "two.ini", text, 2, NULL, &two));
  g_assert_cmpstr(one, ==, two);
  g_assert_nonnull(strstr(one, "local:radius=2,8,"));
  g_free(one);
  g_free(two);
  g_free(text);
}

static void test_problems(ScenTestFix *f, gconstpointer data) {
  (void)data;
  char *path;
  char **p = scen_test_problems(f->dir, BASE "[privacy]\npath = local\n", NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:6: privacy.path: ", path),
                    "privacy.path = local needs privacy.radius");
  g_strfreev(p);
  g_free(path);
  p = scen_test_problems(f->dir, BASE "[privacy]\nradius = 3\n", NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:6: privacy.radius: ", path),
                    "privacy.radius is for privacy.path = local");
  g_strfreev(p);
  g_free(path);
  p = scen_test_problems(f->dir, BASE "[privacy]\npath = local\nradius = 2\ntightness = 2\n", NULL,
                         &path);
  scen_assert_match(p, g_strdup_printf("%s:8: privacy.tightness: ", path),
                    "give privacy.radius or privacy.tightness, not both");
  g_strfreev(p);
  g_free(path);
  /* Zip-DL's ball (the observer path's) has a mu_lower too: a tightness
   * is taken. */
  p = scen_test_problems(f->dir,
                         BASE "[protocol]\nname = zipdl\n[privacy]\npath = local\ntightness = 2\n",
                         NULL, &path);
  g_assert_true(p == NULL || p[0] == NULL);
  g_strfreev(p);
  g_free(path);
  /* The command line's refusals, at privacy.path's line: an asynchronous
   * run's ball counts hops on the static graph. */
  p = scen_test_problems(f->dir,
                         "[simulation]\nrounds = 4\nmode = deadline:ms=30\n[topology]\n"
                         "generate = barabasi:n=40,m=2,seed=5\nschedule = matching\n"
                         "[privacy]\npath = local\nradius = 1\n",
                         NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:8: privacy.path: ", path),
                    "counts hops on the static graph");
  g_strfreev(p);
  g_free(path);
  p = scen_test_problems(f->dir, BASE "[privacy]\npath = local\nradius = 0\n", NULL, &path);
  scen_assert_match(p, g_strdup_printf("%s:7: privacy.radius", path), "");
  g_strfreev(p);
  g_free(path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  SCEN_TEST_ADD("/scenarios/local/bounds", test_bounds);
  g_test_add("/scenarios/local/bounds-decor", ScenTestFix, "decor", scen_test_fix_setup,
             test_bounds, scen_test_fix_teardown);
  SCEN_TEST_ADD("/scenarios/local/deadline", test_async);
  g_test_add("/scenarios/local/stale", ScenTestFix, "stale", scen_test_fix_setup, test_async,
             scen_test_fix_teardown);
  SCEN_TEST_ADD("/scenarios/local/zipdl", test_zipdl);
  SCEN_TEST_ADD("/scenarios/local/tightness", test_tightness);
  SCEN_TEST_ADD("/scenarios/local/threads", test_threads);
  SCEN_TEST_ADD("/scenarios/local/problems", test_problems);
  return g_test_run();
}
