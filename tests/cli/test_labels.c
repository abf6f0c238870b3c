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
  g_test_add_func("/cli/labels/audit", test_audit);
  g_test_add_func("/cli/labels/bound-column", test_bound_column);
  g_test_add_func("/cli/labels/igraph-formats", test_igraph_formats);
  return g_test_run();
}
