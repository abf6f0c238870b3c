/*
 * tests/cli/test_labels.c: a graph file's node labels, end to end. The
 * reference is the file's twin labelled 0..n-1 in order of first
 * appearance (the ids dpgossip computes with): every output on the
 * labelled file must be the twin's with each node id replaced by its
 * label, for --attackers, --victim, collusion sets and churn files alike;
 * and a label the graph lacks is refused naming it. Also privacy tables'
 * bound column, the same word as account's table.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/checks.h"
#include "tests/common/files.h"
#include "tests/common/run.h"

/* Labels 20, 3, 6, 7 in order of first appearance: ids 0, 1, 2, 3. */
static const char LABELLED[] = "20 3\n3 6\n6 7\n7 20\n20 6\n";
static const char TWIN[] = "0 1\n1 2\n2 3\n3 0\n0 2\n";
static const char *const LABEL_OF[] = {"20", "3", "6", "7"};

typedef struct {
  char *dir, *labelled, *twin;
} Files;

static Files files_new(void) {
  Files f;
  f.dir = test_tmpdir("labels");
  f.labelled = test_write_file(f.dir, "g.txt", LABELLED, -1);
  f.twin = test_write_file(f.dir, "twin.txt", TWIN, -1);
  return f;
}

static void files_free(Files *f) {
  test_rmtree(f->dir);
  g_free(f->dir);
  g_free(f->labelled);
  g_free(f->twin);
}

/* The labels of the twin's ids 0..n-1 (NULL ended), LABEL_OF by default. */
static const char *const *label_of = LABEL_OF;
static guint n_labels = G_N_ELEMENTS(LABEL_OF);

/* Cell @text of the twin's output as the labelled file names it: an id
 * (or ids joined by '+') become labels; anything else stays. */
static char *relabel_cell(const char *text) {
  char **ids = g_strsplit(text, "+", -1);
  GString *s = g_string_new(NULL);
  gboolean ok = TRUE;
  for (guint i = 0; ok && ids[i]; i++) {
    guint64 v;
    ok = g_ascii_string_to_unsigned(ids[i], 10, 0, n_labels - 1, &v, NULL);
    if (ok)
      g_string_append_printf(s, "%s%s", i ? "+" : "", label_of[v]);
  }
  g_strfreev(ids);
  if (!ok) {
    g_string_free(s, TRUE);
    return g_strdup(text);
  }
  return g_string_free(s, FALSE);
}

/* The twin's CSV @out with the cells of columns @cols (ascending, -1
 * ended) relabelled, header kept (g_free). */
static char *relabel_csv(const char *out, const int *cols) {
  char **lines = g_strsplit(out, "\n", -1);
  GString *s = g_string_new(NULL);
  for (guint l = 0; lines[l]; l++) {
    if (l > 0)
      g_string_append_c(s, '\n');
    char **cells = g_strsplit(lines[l], ",", -1);
    for (guint c = 0; cells[c]; c++) {
      gboolean node = FALSE;
      for (guint k = 0; l > 0 && cols[k] >= 0; k++)
        node |= (guint)cols[k] == c;
      char *cell = node ? relabel_cell(cells[c]) : g_strdup(cells[c]);
      g_string_append_printf(s, "%s%s", c ? "," : "", cell);
      g_free(cell);
    }
    g_strfreev(cells);
  }
  g_strfreev(lines);
  return g_string_free(s, FALSE);
}

/* account --format csv: collusion (0), victim (2), attackers (10). */
static const int ACCOUNT_NODES[] = {0, 2, 10, -1};

static void expect_twins(const CliRun *labelled, const CliRun *twin, const int *cols) {
  if (labelled->status != 0 || twin->status != 0)
    g_printerr("%s\n%s\n", labelled->err, twin->err);
  g_assert_cmpint(labelled->status, ==, 0);
  g_assert_cmpint(twin->status, ==, 0);
  char *want = relabel_csv(twin->out, cols);
  g_assert_cmpstr(labelled->out, ==, want);
  g_free(want);
}

/* -a by label, single and collusion sets, every trust model: the twin's
 * numbers on the labelled nodes. */
static void test_account(void) {
  Files f = files_new();
  CliRun a = cli_run("account", "--graph", f.labelled, "-T", "6", "--trust", "ldp,pndp", "-a",
                     "20,7+3", "--format", "csv");
  CliRun b = cli_run("account", "--graph", f.twin, "-T", "6", "--trust", "ldp,pndp", "-a", "0,1+3",
                     "--format", "csv");
  expect_twins(&a, &b, ACCOUNT_NODES);
  g_assert_nonnull(strstr(a.out, "\n3+7,ldp,20,"));
  cli_run_clear(&a);
  cli_run_clear(&b);

  /* The JSON names the labelled graph's nodes by their labels (strings),
   * the twin's by ids (numbers, as before labels). */
  a = cli_run("account", "--graph", f.labelled, "-T", "6", "--trust", "pndp", "-a", "20",
              "--format", "json");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_nonnull(strstr(a.out, "\"node\" : \"3\""));
  g_assert_nonnull(strstr(a.out, "\"attackers\" : [\n    \"20\"\n  ]"));
  b = cli_run("account", "--graph", f.twin, "-T", "6", "--trust", "pndp", "-a", "0", "--format",
              "json");
  g_assert_cmpint(b.status, ==, 0);
  g_assert_nonnull(strstr(b.out, "\"node\" : 1,"));
  cli_run_clear(&a);
  cli_run_clear(&b);

  /* The table: the node column and the set by label. */
  a = cli_run("account", "--graph", f.labelled, "-T", "6", "--trust", "pndp", "-a", "7+20");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_nonnull(strstr(a.out, "trust          pndp, attackers 20+7\n"));
  g_assert_nonnull(strstr(a.out, "\n     3        1 "));
  g_assert_nonnull(strstr(a.err, "node labels are not 0..n-1: kept as the nodes' names"));
  cli_run_clear(&a);

  /* An id is not a label: node 0 does not exist in the labelled file. */
  a = cli_run("account", "--graph", f.labelled, "-T", "6", "--trust", "pndp", "-a", "20+0");
  g_assert_cmpint(a.status, ==, 2);
  g_assert_nonnull(strstr(a.err, "--attackers: no node of graph '"));
  g_assert_nonnull(strstr(a.err, "is labelled '0' (its nodes go by their labels, not by 0..n-1)"));
  cli_run_clear(&a);
  files_free(&f);
}

/* The repro: a churn file naming node 20 of a graph whose labels
 * include 20 is read by label; a label the graph lacks is refused at its
 * line. */
static void test_churn(void) {
  Files f = files_new();
  char *churn = test_write_file(f.dir, "c.txt", "20 3 6\n# node 7 leaves for good\n7 2\n", -1);
  char *churn_twin = test_write_file(f.dir, "c-twin.txt", "0 3 6\n3 2\n", -1);
  char *spec = g_strdup_printf("churn:%s", churn),
       *spec_twin = g_strdup_printf("churn:%s", churn_twin);
  CliRun a = cli_run("account", "--graph", f.labelled, "-T", "8", "--trust", "pndp", "-a", "3",
                     "--schedule", spec, "--format", "csv");
  CliRun b = cli_run("account", "--graph", f.twin, "-T", "8", "--trust", "pndp", "-a", "1",
                     "--schedule", spec_twin, "--format", "csv");
  expect_twins(&a, &b, ACCOUNT_NODES);
  cli_run_clear(&a);
  cli_run_clear(&b);
  /* Without churn the numbers differ: the file was read, not ignored. */
  CliRun still = cli_run("account", "--graph", f.labelled, "-T", "8", "--trust", "pndp", "-a", "3",
                         "--format", "csv");
  a = cli_run("account", "--graph", f.labelled, "-T", "8", "--trust", "pndp", "-a", "3",
              "--schedule", spec, "--format", "csv");
  g_assert_cmpstr(still.out, !=, a.out);
  cli_run_clear(&still);
  cli_run_clear(&a);

  char *bad = test_write_file(f.dir, "bad.txt", "20 3 6\n1 2\n", -1);
  char *bad_spec = g_strdup_printf("churn:%s", bad);
  a = cli_run("account", "--graph", f.labelled, "-T", "8", "--trust", "pndp", "-a", "3",
              "--schedule", bad_spec);
  g_assert_cmpint(a.status, !=, 0);
  g_assert_nonnull(strstr(a.err, "bad.txt:2: node '1' is not in the graph (its nodes go by the "
                                 "labels of its file, such as 20)"));
  cli_run_clear(&a);
  /* On the twin (no labels), ids as before. */
  a = cli_run("account", "--graph", f.twin, "-T", "8", "--trust", "pndp", "-a", "3", "--schedule",
              spec);
  g_assert_cmpint(a.status, !=, 0);
  g_assert_nonnull(strstr(a.err, "c.txt:1: node 20 is not in the graph (nodes 0..3)"));
  cli_run_clear(&a);
  g_free(bad);
  g_free(bad_spec);
  g_free(spec);
  g_free(spec_twin);
  g_free(churn);
  g_free(churn_twin);
  files_free(&f);
}

/* The measured network speaks the graph file's labels (20, 3, 6, 7: not
 * 0..n-1): --link ends, a links: file, a geo: node file and a sessions
 * trace with map=identity, each written in another order than the graph
 * file's (numbering them by their own first appearance, as main did, maps
 * them onto the wrong nodes). Each run must be the twin's on the ids. */
static CliRun run_network(const char *graph, const char *attacker, const char *const *extra) {
  const char *args[32] = {"account", "--graph", graph,    "-T",       "6",  "--trust",
                          "pndp",    "-a",      attacker, "--format", "csv"};
  guint n = 11;
  for (guint i = 0; extra[i]; i++)
    args[n++] = extra[i];
  args[n] = NULL;
  return cli_run_v(args);
}

/* Attacker 3 (the twin's 1): victim 7 (3) is two hops away, so which links
 * are late changes what reaches it. @baseline: the twin's run with the
 * same mode and no network file, whose numbers must differ (the file was
 * read, not ignored). */
static void expect_network_twins(const Files *f, const char *const *labelled,
                                 const char *const *twin, const char *const *baseline) {
  CliRun a = run_network(f->labelled, "3", labelled);
  CliRun b = run_network(f->twin, "1", twin);
  expect_twins(&a, &b, ACCOUNT_NODES);
  CliRun plain = run_network(f->twin, "1", baseline);
  g_assert_cmpint(plain.status, ==, 0);
  g_assert_cmpstr(plain.out, !=, b.out);
  cli_run_clear(&a);
  cli_run_clear(&b);
  cli_run_clear(&plain);
}

static void test_network(void) {
  Files f = files_new();
  /* links: 20-3 and 6-7 fast, the rest past the 10 ms deadline. */
  char *links = test_write_file(f.dir, "links.txt",
                                "source target latency\n7 20 50\n6 7 1\n3 6 50\n20 3 2\n"
                                "20 6 40\n",
                                -1);
  char *links_twin = test_write_file(f.dir, "links-twin.txt",
                                     "3 0 50\n2 3 1\n1 2 50\n0 1 2\n0 2 40\n", -1);
  char *spec = g_strdup_printf("links:file=%s,unit=ms", links),
       *spec_twin = g_strdup_printf("links:file=%s,unit=ms", links_twin);
  const char *a1[] = {"--mode", "deadline:ms=10", "--latency", spec, NULL};
  const char *b1[] = {"--mode", "deadline:ms=10", "--latency", spec_twin, NULL};
  const char *deadline[] = {"--mode", "deadline:ms=10", "--latency", "constant:ms=1", NULL};
  expect_network_twins(&f, a1, b1, deadline);

  /* --link by label, over a constant latency. */
  const char *a2[] = {"--mode", "deadline:ms=10", "--latency", "constant:ms=1",
                      "--link", "3:6=down",       "--link",    "7:20=constant:ms=100",
                      NULL};
  const char *b2[] = {"--mode", "deadline:ms=10", "--latency", "constant:ms=1",
                      "--link", "1:2=down",       "--link",    "3:0=constant:ms=100",
                      NULL};
  expect_network_twins(&f, a2, b2, deadline);

  /* geo: nodes 20 and 6 in Europe, 3 and 7 far away (no jitter: each
   * link's delay is its distance's, Paris-Sydney about 94 ms). */
  char *geo = test_write_file(f.dir, "geo.csv",
                              "node,lon,lat\n7,151.2,-33.9\n20,2.35,48.86\n3,139.7,35.7\n"
                              "6,13.4,52.5\n",
                              -1);
  char *geo_twin = test_write_file(f.dir, "geo-twin.csv",
                                   "node,lon,lat\n3,151.2,-33.9\n0,2.35,48.86\n1,139.7,35.7\n"
                                   "2,13.4,52.5\n",
                                   -1);
  char *gspec = g_strdup_printf("geo:nodes=%s,jitter=0", geo),
       *gspec_twin = g_strdup_printf("geo:nodes=%s,jitter=0", geo_twin);
  const char *a3[] = {"--mode", "deadline:ms=80", "--latency", gspec, NULL};
  const char *b3[] = {"--mode", "deadline:ms=80", "--latency", gspec_twin, NULL};
  const char *deadline80[] = {"--mode", "deadline:ms=80", "--latency", "constant:ms=1", NULL};
  expect_network_twins(&f, a3, b3, deadline80);

  /* A sessions trace replayed by label: node 7 joins at round 2, 3 leaves
   * at round 3. */
  char *trace = test_write_file(f.dir, "trace.csv", "7,20,100\n20,0,100\n3,0,30\n6,0,100\n", -1);
  char *trace_twin = test_write_file(f.dir, "trace-twin.csv",
                                     "3,20,100\n0,0,100\n1,0,30\n2,0,100\n", -1);
  char *tspec = g_strdup_printf("churn:trace=%s,map=identity,scale=10", trace),
       *tspec_twin = g_strdup_printf("churn:trace=%s,map=identity,scale=10", trace_twin);
  const char *a4[] = {"--schedule", tspec, NULL};
  const char *b4[] = {"--schedule", tspec_twin, NULL};
  const char *none[] = {NULL};
  expect_network_twins(&f, a4, b4, none);

  /* A label the graph lacks is named with its file and line. */
  char *bad = test_write_file(f.dir, "bad-links.txt", "20 3 1\n3 1 1\n", -1);
  char *bad_spec = g_strdup_printf("links:file=%s,unit=ms", bad);
  CliRun r = cli_run("account", "--graph", f.labelled, "-T", "6", "--trust", "pndp", "-a", "20",
                     "--mode", "deadline:ms=10", "--latency", bad_spec);
  g_assert_cmpint(r.status, !=, 0);
  g_assert_nonnull(strstr(r.err, "bad-links.txt:2: node '1' is not in the graph"));
  cli_run_clear(&r);
  char *bad_geo = test_write_file(f.dir, "bad-geo.csv", "id,lat,lon\n20,1,1\n0,2,2\n", -1);
  char *bad_gspec = g_strdup_printf("geo:nodes=%s", bad_geo);
  r = cli_run("account", "--graph", f.labelled, "-T", "6", "--trust", "pndp", "-a", "20", "--mode",
              "deadline:ms=10", "--latency", bad_gspec);
  g_assert_cmpint(r.status, !=, 0);
  g_assert_nonnull(strstr(r.err, "bad-geo.csv:3: node '0' is not in the graph"));
  cli_run_clear(&r);
  char *bad_trace = test_write_file(f.dir, "bad-trace.csv",
                                    "20,0,9\n3,0,9\n6,0,9\n7,0,9\n"
                                    "# a node the graph lacks\n8,0,9\n",
                                    -1);
  char *bad_tspec = g_strdup_printf("churn:trace=%s,map=identity", bad_trace);
  r = cli_run("account", "--graph", f.labelled, "-T", "6", "--trust", "pndp", "-a", "20",
              "--schedule", bad_tspec);
  g_assert_cmpint(r.status, !=, 0);
  g_assert_nonnull(strstr(r.err, "bad-trace.csv:6: node '8' is not in the graph (its nodes go by "
                                 "the labels of its file, such as 20)"));
  cli_run_clear(&r);
  r = cli_run("account", "--graph", f.labelled, "-T", "6", "--trust", "pndp", "-a", "20", "--mode",
              "deadline:ms=10", "--link", "20:0=down");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--link: node '0' is not in the graph (its nodes go by the "
                                 "labels of its file: 20, 3, ...)"));
  cli_run_clear(&r);
  char *frees[] = {links, links_twin, spec,    spec_twin,  geo,       geo_twin,
                   gspec, gspec_twin, trace,   trace_twin, tspec,     tspec_twin,
                   bad,   bad_spec,   bad_geo, bad_gspec,  bad_trace, bad_tspec};
  for (guint i = 0; i < G_N_ELEMENTS(frees); i++)
    g_free(frees[i]);
  files_free(&f);
}

/* train's tables: metrics.csv's node (column 1) and the privacy table's
 * victim (2) name nodes by label, as the twin's by id, so that pandas
 * joins them (metrics.node == privacy.victim); the means have no node. */
static void test_train_tables(void) {
  Files f = files_new();
  char *out = g_build_filename(f.dir, "r.csv", NULL),
       *out_twin = g_build_filename(f.dir, "t.csv", NULL);
  CliRun a = cli_run("train", "--graph", f.labelled, "-d", "synthetic:linear,n=80", "-T", "3",
                     "--eval-every", "1", "--trust", "pndp", "-a", "20", "-o", out);
  CliRun b = cli_run("train", "--graph", f.twin, "-d", "synthetic:linear,n=80", "-T", "3",
                     "--eval-every", "1", "--trust", "pndp", "-a", "0", "-o", out_twin);
  g_assert_cmpint(a.status, ==, 0);
  g_assert_cmpint(b.status, ==, 0);
  static const char *const suffix[] = {".csv", "_mean.csv", "_privacy.csv"};
  static const int metrics_cols[] = {1, -1}, none[] = {-1}, privacy_cols[] = {0, 2, 10, -1};
  const int *cols[] = {metrics_cols, none, privacy_cols};
  for (guint k = 0; k < G_N_ELEMENTS(suffix); k++) {
    char *pa = g_strconcat(f.dir, "/r", suffix[k], NULL),
         *pb = g_strconcat(f.dir, "/t", suffix[k], NULL);
    char *ta = NULL, *tb = NULL;
    g_assert_true(g_file_get_contents(pa, &ta, NULL, NULL));
    g_assert_true(g_file_get_contents(pb, &tb, NULL, NULL));
    char *want = relabel_csv(tb, cols[k]);
    g_assert_cmpstr(ta, ==, want);
    if (k == 0) /* not the ids: round 1, the graph's first node is 20 */
      g_assert_nonnull(strstr(ta, "\n1,20,"));
    g_free(want);
    g_free(ta);
    g_free(tb);
    g_free(pa);
    g_free(pb);
  }
  cli_run_clear(&a);
  cli_run_clear(&b);
  /* train's default (ldp, every node) on a labelled file: main resolved
   * its internal sets {0} and {1} as labels and refused the run. */
  a = cli_run("train", "--graph", f.labelled, "-d", "synthetic:linear,n=80", "-T", "1", "-o", out);
  if (a.status != 0)
    g_printerr("%s\n", a.err);
  g_assert_cmpint(a.status, ==, 0);
  g_assert_nonnull(strstr(a.out, "privacy: ldp (every node), 4 nodes"));
  cli_run_clear(&a);
  g_free(out);
  g_free(out_twin);
  files_free(&f);
}

/* audit: -a and --victim by label, rows by label. */
static void test_audit(void) {
  Files f = files_new();
  CliRun a = cli_run("audit", "--graph", f.labelled, "-T", "4", "--trust", "pndp", "-a", "20",
                     "--victim", "6", "--victim", "7", "--trials", "200", "--format", "csv");
  CliRun b = cli_run("audit", "--graph", f.twin, "-T", "4", "--trust", "pndp", "-a", "0",
                     "--victim", "2", "--victim", "3", "--trials", "200", "--format", "csv");
  static const int cols[] = {0, 2, -1};
  expect_twins(&a, &b, cols);
  g_assert_nonnull(strstr(a.out, "\n20,pndp,6,"));
  cli_run_clear(&a);
  cli_run_clear(&b);
  a = cli_run("audit", "--graph", f.labelled, "-T", "4", "--trust", "pndp", "-a", "20", "--victim",
              "1", "--trials", "200");
  g_assert_cmpint(a.status, ==, 2);
  g_assert_nonnull(strstr(a.err, "--victim: node '1' is not in the graph (its nodes go by the "
                                 "labels of its file: 20, 3, ...)"));
  cli_run_clear(&a);
  files_free(&f);
}

/* The last word of each victim row of account's table (the bound column),
 * in order: the lines after the column header up to the blank line. */
static GPtrArray *table_bounds(const char *out) {
  GPtrArray *w = g_ptr_array_new_with_free_func(g_free);
  char **lines = g_strsplit(out, "\n", -1);
  gboolean in = FALSE;
  for (guint l = 0; lines[l]; l++) {
    if (g_str_has_prefix(lines[l], "  node distance")) {
      in = TRUE;
    } else if (in && *lines[l] == '\0') {
      in = FALSE;
    } else if (in) {
      const char *last = strrchr(g_strstrip(lines[l]), ' ');
      g_ptr_array_add(w, g_strdup(last ? last + 1 : lines[l]));
    }
  }
  g_strfreev(lines);
  return w;
}

/* privacy tables' bound column: the word of account's table, row for row
 * (thm5.2 by default, exact with --sensitivity exact, local on the local
 * path; ldp-cap where the cap applies). */
static void test_bound_column(void) {
  const char *const extra[][3] = {{"--sensitivity", "bound", NULL},
                                  {"--sensitivity", "exact", NULL},
                                  {"--path", "local", "--radius=2"}};
  const char *const want[] = {"thm5.2", "exact", "local"};
  for (guint k = 0; k < G_N_ELEMENTS(extra); k++) {
    const char *last_arg = extra[k][2] ? extra[k][2] : "--seed=0";
    CliRun csv = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a",
                         "0", extra[k][0], extra[k][1], last_arg, "--format", "csv");
    CliRun table = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp",
                           "-a", "0", extra[k][0], extra[k][1], last_arg);
    if (csv.status != 0)
      g_printerr("%s\n", csv.err);
    g_assert_cmpint(csv.status, ==, 0);
    g_assert_cmpint(table.status, ==, 0);
    GPtrArray *words = table_bounds(table.out);
    char **lines = g_strsplit(csv.out, "\n", -1);
    g_assert_true(g_str_has_suffix(lines[0], ",mu_lower,bound"));
    guint rows = 0, wanted = 0;
    for (guint l = 1; lines[l] && *lines[l]; l++, rows++) {
      const char *last = strrchr(lines[l], ',') + 1;
      g_assert_cmpuint(rows, <, words->len);
      g_assert_cmpstr(last, ==, g_ptr_array_index(words, rows));
      g_assert_true(g_str_equal(last, want[k]) || g_str_equal(last, "ldp-cap"));
      wanted += g_str_equal(last, want[k]);
    }
    g_assert_cmpuint(rows, ==, words->len);
    g_assert_cmpuint(rows, >, 0);
    g_assert_cmpuint(wanted, >, 0);
    g_ptr_array_unref(words);
    g_strfreev(lines);
    cli_run_clear(&csv);
    cli_run_clear(&table);
  }
}

/* account's table sizes its node column to the longest label it prints
 * ("Lamberteschi", 12 characters): every row's node ends where the header's
 * "node" ends, the distance column right after it. */
static void test_table_width(void) {
  char *path = cli_test_data_path("topo-florentine.graphml");
  CliRun a = cli_run("account", "--graph", path, "-T", "4", "--trust", "pndp", "-a", "Medici");
  g_assert_cmpint(a.status, ==, 0);
  char **lines = g_strsplit(a.out, "\n", -1);
  gint width = -1;
  guint rows = 0;
  for (guint l = 0; lines[l]; l++) {
    const char *head = strstr(lines[l], "node distance");
    if (head != NULL) {
      width = (gint)(head - lines[l]) + 4;
      g_assert_cmpint(width, ==, 12); /* "Lamberteschi" */
    } else if (width > 0 && *lines[l] == '\0') {
      break;
    } else if (width > 0) {
      /* "  Acciaiuoli        1 ...": the label ends at the column's edge. */
      g_assert_cmpint((gint)strlen(lines[l]), >, width);
      g_assert_true(lines[l][width] == ' ' && lines[l][width - 1] != ' ');
      g_assert_true(lines[l][0] == ' ' || g_str_has_prefix(lines[l], "Lamberteschi "));
      rows++;
    }
  }
  g_assert_cmpuint(rows, ==, 14);
  g_assert_nonnull(strstr(a.out, "\n  Acciaiuoli        1 "));
  g_strfreev(lines);
  cli_run_clear(&a);
  /* audit's table: the attackers and victim columns fit their labels,
   * "Lamberteschi" (12) right-aligned under "victim". */
  a = cli_run("audit", "--graph", path, "-T", "3", "--trust", "pndp", "-a", "Medici", "--victim",
              "Acciaiuoli", "--victim", "Lamberteschi", "--trials", "40", "--attack", "np");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_nonnull(strstr(a.out, "attackers  trust        victim attack"));
  g_assert_nonnull(strstr(a.out, "\nMedici     pndp     Acciaiuoli np "));
  g_assert_nonnull(strstr(a.out, "\nMedici     pndp   Lamberteschi np "));
  cli_run_clear(&a);
  /* graph --format json writes the mapping: node id u is labels[u]. */
  a = cli_run("graph", "--graph", path, "--format", "json");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_nonnull(strstr(a.out, "\"labels\" : [\n    \"Acciaiuoli\",\n    \"Medici\","));
  cli_run_clear(&a);
  a = cli_run("graph", "--generate", "florentine", "--format", "json");
  g_assert_null(strstr(a.out, "\"labels\""));
  cli_run_clear(&a);
  /* Ids keep the width of before labels (the golden tables): 6. */
  a = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "1");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_nonnull(strstr(a.out, "\n  node distance "));
  g_assert_nonnull(strstr(a.out, "\n     0        1 "));
  cli_run_clear(&a);
  g_free(path);
}

/* The Florentine families (tests/data/topo-florentine.*, networkx's
 * florentine_families_graph) in the node order of --generate florentine. */
static const char *const FAMILY[] = {"Acciaiuoli", "Medici",    "Castellani",  "Peruzzi",
                                     "Strozzi",    "Barbadori", "Ridolfi",     "Tornabuoni",
                                     "Albizzi",    "Salviati",  "Pazzi",       "Bischeri",
                                     "Guadagni",   "Ginori",    "Lamberteschi"};

/* GraphML (node ids), GML (a label next to ids 0..n-1, as networkx writes
 * it), Pajek (vertex labels) and CSV (names in the columns) name their
 * nodes: every one of them gives
 * the numbers of the embedded graph on the families its ids stand for, and
 * a family the graph lacks is refused by name. */
static void test_igraph_formats(void) {
  static const char *const files[] = {"topo-florentine.graphml", "topo-florentine.gml",
                                      "topo-florentine.net", "topo-florentine.csv"};
  CliRun b = cli_run("account", "--generate", "florentine", "-T", "6", "--trust", "ldp,pndp", "-a",
                     "1,4+12", "--format", "csv");
  label_of = FAMILY;
  n_labels = G_N_ELEMENTS(FAMILY);
  for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
    char *path = cli_test_data_path(files[i]);
    CliRun a = cli_run("account", "--graph", path, "-T", "6", "--trust", "ldp,pndp", "-a",
                       "Medici,Strozzi+Guadagni", "--format", "csv");
    expect_twins(&a, &b, ACCOUNT_NODES);
    g_assert_nonnull(strstr(a.out, "\nStrozzi+Guadagni,pndp,Medici,"));
    g_assert_nonnull(strstr(a.err, "node labels are not 0..n-1: kept as the nodes' names"));
    cli_run_clear(&a);
    a = cli_run("audit", "--graph", path, "-T", "4", "--trust", "pndp", "-a", "Medici", "--victim",
                "Pucci", "--trials", "20");
    g_assert_cmpint(a.status, ==, 2);
    g_assert_nonnull(strstr(a.err, "--victim: node 'Pucci' is not in the graph (its nodes go by "
                                   "the labels of its file: Acciaiuoli, Medici, ...)"));
    cli_run_clear(&a);
    g_free(path);
  }
  label_of = LABEL_OF;
  n_labels = G_N_ELEMENTS(LABEL_OF);
  cli_run_clear(&b);

  /* Names exactly 0..n-1, in another order than the file's, are ids (as an
   * edge list's): node 2 is the one named 2, whatever its position. */
  char *dir = test_tmpdir("labels-ids");
  char *ids = test_write_file(dir, "ids.graphml",
                         "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                         "<graph edgedefault=\"undirected\">\n"
                         "<node id=\"2\"/><node id=\"0\"/><node id=\"1\"/>\n"
                         "<edge source=\"2\" target=\"0\"/><edge source=\"0\" target=\"1\"/>\n"
                         "</graph></graphml>\n", -1);
  char *edges = test_write_file(dir, "ids.txt", "2 0\n0 1\n", -1);
  CliRun a = cli_run("account", "--graph", ids, "-T", "4", "--trust", "pndp", "-a", "2", "--format",
                     "csv");
  b = cli_run("account", "--graph", edges, "-T", "4", "--trust", "pndp", "-a", "2", "--format",
              "csv");
  static const int none[] = {-1};
  expect_twins(&a, &b, none);
  g_assert_null(strstr(a.err, "node labels"));
  cli_run_clear(&a);
  cli_run_clear(&b);
  test_rmtree(dir);
  g_free(dir);
  g_free(ids);
  g_free(edges);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/labels/account", test_account);
  g_test_add_func("/cli/labels/churn", test_churn);
  g_test_add_func("/cli/labels/network", test_network);
  g_test_add_func("/cli/labels/train-tables", test_train_tables);
  g_test_add_func("/cli/labels/audit", test_audit);
  g_test_add_func("/cli/labels/bound-column", test_bound_column);
  g_test_add_func("/cli/labels/table-width", test_table_width);
  g_test_add_func("/cli/labels/igraph-formats", test_igraph_formats);
  return g_test_run();
}
