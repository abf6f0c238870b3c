/*
 * tests/cli/test_status_messages.c: one status and a message that says what
 * is wrong, whichever command reads the input (issue 37, "exit statuses and
 * messages that disagree"):
 *   - a churn trace's scale=-1, scale=1e308 and start=-1 are usage errors
 *     (2) naming the range, in account, audit and graph, as scale=nan was;
 *   - a geo node file whose content does not parse is the run's failure (1)
 *     in graph, train and account alike (graph and train said 2);
 *   - geo:nodes= of a folder or of /dev/zero says what it is, not "file not
 *     found";
 *   - a geo, links, country or trace file that cannot be read is the run's
 *     failure (1) from every command, as a graph or churn file (latency
 *     files said 2, as a spec that does not parse);
 *   - --radius -1 is out of range, not "missing" (account and figure);
 *   - a gzipped CSV dataset and a gzipped churn file are read as the plain
 *     ones (they were "1 column" and "only one token").
 */
#include <string.h>

#include <glib/gstdio.h>

#include "tests/common/checks.h"
#include "tests/common/run.h"

static char *tmpdir;

static void expect(CliRun *r, int status, const char *fragment, const char *what) {
  if (r->status != status || strstr(r->err, fragment) == NULL)
    g_error("%s: exit %d, stderr '%s' (want %d and '%s')", what, r->status, r->err, status,
            fragment);
  cli_run_clear(r);
}

static void test_churn_ranges(void) {
  char *trace = test_write_file(tmpdir, "sessions.txt", "0 0 100\n1 0 100\n", -1);
  const struct {
    const char *param, *fragment;
  } cases[] = {
      {"scale=-1", "parameter scale=-1 is out of range [0, 1e+12]"},
      {"scale=1e308", "parameter scale=1e+308 is out of range [0, 1e+12]"},
      {"start=-1", "parameter start=-1 is out of range [0, 1e+12]"},
      {"scale=nan", "parameter scale='nan' is not a number"},
      {"scale=0", "scale (trace seconds per round) must be positive"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *spec = g_strdup_printf("churn:trace=%s,%s", trace, cases[i].param);
    CliRun r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a",
                       "0", "-q", "--schedule", spec);
    expect(&r, 2, cases[i].fragment, spec);
    r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
                "--trials", "20", "-q", "--schedule", spec);
    expect(&r, 2, cases[i].fragment, spec);
    r = cli_run("graph", "--generate", "florentine", "-q", "--schedule", spec);
    expect(&r, 2, cases[i].fragment, spec);
    g_free(spec);
  }
  g_free(trace);
}

/* Issue 37, item 4: every schedule kind's numeric parameter out of its
 * range is the user's typing: exit 2 from account, mafalda and graph alike,
 * the message naming the parameter and its range. resample:GENSPEC's are
 * its generator's (they exited 1, as --generate's did). */
static void test_schedule_ranges(void) {
  char *trace = test_write_file(tmpdir, "ranges.txt", "0 0 100\n1 0 100\n", -1);
  char *scale = g_strdup_printf("churn:trace=%s,scale=2e12", trace);
  char *start = g_strdup_printf("churn:trace=%s,start=-5", trace);
  const struct {
    const char *spec, *fragment;
  } cases[] = {
      {"edge-failure:p=1.5", "edge-failure: parameter p=1.5 is out of range [0, 1]"},
      {"edge-failure:p=-0.1", "edge-failure: parameter p=-0.1 is out of range [0, 1]"},
      {"churn:leave=2,join=0.5", "churn: parameter leave=2 is out of range [0, 1]"},
      {"churn:leave=0.5,join=-1", "churn: parameter join=-1 is out of range [0, 1]"},
      {scale, "churn: parameter scale=2e+12 is out of range [0, 1e+12]"},
      {start, "churn: parameter start=-5 is out of range [0, 1e+12]"},
      {"resample:erdos:n=15,p=2", "erdos: parameter p=2 is out of range [0, 1]"},
      {"resample:regular:n=15,d=100", "regular: parameter d=100 is out of range [0, 14]"},
      {"resample:ring:n=2", "ring: parameter n=2 is out of range [3, "},
      {"resample:grid:rows=1,cols=1", "grid: rows*cols=1 is out of range [2, "},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    CliRun r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a",
                       "0", "-q", "--schedule", cases[i].spec);
    expect(&r, 2, cases[i].fragment, cases[i].spec);
    r = cli_run("mafalda", "--generate", "florentine", "--epochs", "2", "--batches", "2", "-q",
                "--schedule", cases[i].spec);
    expect(&r, 2, cases[i].fragment, cases[i].spec);
    r = cli_run("graph", "--generate", "florentine", "-q", "--schedule", cases[i].spec);
    expect(&r, 2, cases[i].fragment, cases[i].spec);
  }
  /* --generate's own ranges: the same rule. */
  CliRun r = cli_run("graph", "--generate", "erdos:n=15,p=2", "-q");
  expect(&r, 2, "erdos: parameter p=2 is out of range [0, 1]", "--generate erdos:n=15,p=2");
  g_free(scale);
  g_free(start);
  g_free(trace);
}

static void test_geo_file_status(void) {
  char *bad = test_write_file(tmpdir, "geo-bad.csv", "long,lat\n0,x\n", -1);
  char *spec = g_strdup_printf("geo:nodes=%s", bad);
  char *out = g_build_filename(tmpdir, "train.csv", NULL);
  const char *fragment = ":2: latitude 'x' is not a number of degrees in [-90, 90]";
  CliRun r = cli_run("graph", "--generate", "florentine", "-q", "--latency", spec);
  expect(&r, 1, fragment, "graph");
  r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0", "-q",
              "--mode", "deadline:ms=100", "--latency", spec);
  expect(&r, 1, fragment, "account");
  r = cli_run("train", "--generate", "florentine", "--dataset", "synthetic:linear,n=60,d=3", "-k",
              "1", "-q", "--out", out, "--mode", "deadline:ms=100", "--latency", spec);
  expect(&r, 1, fragment, "train");
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_free(out);
  g_free(spec);
  g_free(bad);
  /* Not a file at all: what it is, and the run's failure (1) as a missing
   * file (test_unreadable_files). */
  const struct {
    const char *path, *fragment;
  } odd[] = {{tmpdir, "is a folder, not a file"},
             {"/dev/zero", "nodes=/dev/zero is not a regular file"}};
  for (guint i = 0; i < G_N_ELEMENTS(odd); i++) {
    spec = g_strdup_printf("geo:nodes=%s", odd[i].path);
    r = cli_run("graph", "--generate", "florentine", "-q", "--latency", spec);
    expect(&r, 1, odd[i].fragment, spec);
    g_free(spec);
  }
}

/* A file the user names that cannot be read (missing, a folder, a device)
 * is the run's failure, exit 1, for every kind of file and from every
 * command that takes it, as a graph or churn file always was: geo, links
 * and country (rtt and intra) latency files, sessions and STUNner traces.
 * (Latency files exited 2, as a spec that does not parse.) */
static void test_unreadable_files(void) {
  char *missing = g_build_filename(tmpdir, "no-such-file", NULL);
  char *rtt = test_write_file(tmpdir, "rtt.csv", "cty1,cty2\n", -1);
  const char *not_found = "file not found: ";
  struct {
    char *spec;
    const char *fragment;
  } lat[] = {
      {g_strdup_printf("geo:nodes=%s", missing), not_found},
      {g_strdup_printf("links:file=%s,unit=ms", missing), not_found},
      {g_strdup_printf("country:rtt=%s,seed=1", missing), not_found},
      {g_strdup_printf("country:rtt=%s,seed=1,intra=%s", rtt, missing), not_found},
      {g_strdup_printf("links:file=%s,unit=ms", tmpdir), "is a folder, not a file"},
      {g_strdup("country:rtt=/dev/zero,seed=1"), "rtt=/dev/zero is not a regular file"},
  };
  char *out = g_build_filename(tmpdir, "unreadable.csv", NULL);
  for (guint i = 0; i < G_N_ELEMENTS(lat); i++) {
    const char *spec = lat[i].spec, *frag = lat[i].fragment;
    CliRun r = cli_run("graph", "--generate", "florentine", "-q", "--latency", spec);
    expect(&r, 1, frag, spec);
    r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0",
                "-q", "--mode", "deadline:ms=100", "--latency", spec);
    expect(&r, 1, frag, spec);
    r = cli_run("train", "--generate", "florentine", "--dataset", "synthetic:linear,n=60,d=3", "-k",
                "1", "-q", "--out", out, "--mode", "deadline:ms=100", "--latency", spec);
    expect(&r, 1, frag, spec);
    r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
                "--trials", "20", "-q", "--mode", "deadline:ms=100", "--latency", spec);
    expect(&r, 1, frag, spec);
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    g_free(lat[i].spec);
  }
  const char *formats[] = {"sessions", "stunner"};
  for (guint i = 0; i < G_N_ELEMENTS(formats); i++) {
    char *spec = g_strdup_printf("churn:trace=%s,format=%s", missing, formats[i]);
    const char *frag = "cannot read trace file: ";
    CliRun r = cli_run("graph", "--generate", "florentine", "-q", "--schedule", spec);
    expect(&r, 1, frag, spec);
    r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0",
                "-q", "--schedule", spec);
    expect(&r, 1, frag, spec);
    r = cli_run("mafalda", "--generate", "florentine", "--epochs", "2", "--batches", "2", "-q",
                "--schedule", spec);
    expect(&r, 1, frag, spec);
    r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
                "--trials", "20", "-q", "--schedule", spec);
    expect(&r, 1, frag, spec);
    r = cli_run("train", "--generate", "florentine", "--dataset", "synthetic:linear,n=60,d=3", "-k",
                "1", "-q", "--out", out, "--schedule", spec);
    expect(&r, 1, frag, spec);
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    g_free(spec);
  }
  g_free(out);
  g_free(rtt);
  g_free(missing);
}

static void test_radius_out_of_range(void) {
  CliRun r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0",
                     "-q", "--path", "local", "--radius", "-1");
  expect(&r, 2, "--radius -1 is out of range", "account --radius -1");
  r = cli_run("figure", "privacy-vs-distance", "--generate", "florentine", "-T", "4", "--trust",
              "pndp", "-a", "0", "--path", "local", "--radius", "-1", "--out", "x.svg");
  expect(&r, 2, "--radius -1 is out of range", "figure --radius -1");
  /* Left out, it is still the missing option. */
  r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0", "-q",
              "--path", "local");
  expect(&r, 2, "--path local needs --radius R", "account --path local");
}

/* @out with every occurrence of @a replaced by "X". */
static char *without(const char *out, const char *a) {
  gchar **parts = g_strsplit(out, a, -1);
  char *s = g_strjoinv("X", parts);
  g_strfreev(parts);
  return s;
}

static void test_gzip_inputs(void) {
  /* A churn file: the same schedule plain and gzipped. */
  const char *churn = "# node leave [join]\n2 3 6\n4 5\n0 1 2\n";
  char *plain = test_write_file(tmpdir, "churn.txt", churn, -1);
  char *gz = test_write_file(tmpdir, "churn.txt.gz", churn, -1);
  char *sp = g_strdup_printf("churn:%s", plain), *sg = g_strdup_printf("churn:%s", gz);
  CliRun a = cli_run("graph", "--generate", "ring:n=6", "--rounds", "8", "-q", "--schedule", sp);
  CliRun b = cli_run("graph", "--generate", "ring:n=6", "--rounds", "8", "-q", "--schedule", sg);
  if (a.status != 0 || b.status != 0)
    g_error("churn: exit %d / %d: %s / %s", a.status, b.status, a.err, b.err);
  char *wa = without(a.out, plain), *wb = without(b.out, gz);
  g_assert_cmpstr(wa, ==, wb);
  g_free(wa);
  g_free(wb);
  cli_run_clear(&a);
  cli_run_clear(&b);
  g_free(sp);
  g_free(sg);
  g_free(plain);
  g_free(gz);
  /* A CSV dataset: the same training run, byte for byte. */
  GString *csv = g_string_new("x1,x2,y\n");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf(csv, "%u,%u,%u\n", i % 7, (3 * i) % 11, (i % 7) + 2 * ((3 * i) % 11));
  plain = test_write_file(tmpdir, "data.csv", csv->str, -1);
  gz = test_write_file(tmpdir, "data.csv.gz", csv->str, -1);
  g_string_free(csv, TRUE);
  char *oa = g_build_filename(tmpdir, "a.csv", NULL), *ob = g_build_filename(tmpdir, "b.csv", NULL);
  sp = g_strdup_printf("csv:%s", plain);
  sg = g_strdup_printf("csv:%s", gz);
  a = cli_run("train", "--generate", "ring:n=4", "--dataset", sp, "-k", "2", "-q", "--out", oa);
  b = cli_run("train", "--generate", "ring:n=4", "--dataset", sg, "-k", "2", "-q", "--out", ob);
  if (a.status != 0 || b.status != 0)
    g_error("csv: exit %d / %d: %s / %s", a.status, b.status, a.err, b.err);
  char *ta = NULL, *tb = NULL;
  g_assert_true(g_file_get_contents(oa, &ta, NULL, NULL));
  g_assert_true(g_file_get_contents(ob, &tb, NULL, NULL));
  wa = without(ta, plain);
  wb = without(tb, gz);
  g_assert_cmpstr(wa, ==, wb);
  g_free(wa);
  g_free(wb);
  g_free(ta);
  g_free(tb);
  cli_run_clear(&a);
  cli_run_clear(&b);
  g_free(sp);
  g_free(sg);
  g_free(oa);
  g_free(ob);
  g_free(plain);
  g_free(gz);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp("dpg-status-XXXXXX", NULL);
  g_assert_nonnull(tmpdir);
  g_test_add_func("/status_messages/churn_ranges", test_churn_ranges);
  g_test_add_func("/status_messages/schedule_ranges", test_schedule_ranges);
  g_test_add_func("/status_messages/geo_file_status", test_geo_file_status);
  g_test_add_func("/status_messages/unreadable_files", test_unreadable_files);
  g_test_add_func("/status_messages/radius_out_of_range", test_radius_out_of_range);
  g_test_add_func("/status_messages/gzip_inputs", test_gzip_inputs);
  int status = g_test_run();
  char *rm[] = {"rm", "-rf", tmpdir, NULL};
  g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(tmpdir);
  return status;
}
