/* tests/topologies/test_load.c: the SNAP edge-list loader. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/files.h"
#include "topologies/topologies.h"
#include "tests/common/checks.h"

static char *data_path(const char *name) {
  const char *dir = g_getenv("DPG_TEST_DATA");
  g_assert_nonnull(dir);
  return g_build_filename(dir, name, NULL);
}

static char *data_graph(const char *name) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  return g_build_filename(dir, "graphs", name, NULL);
}

/* Edge list (u<v sorted) as "u v\n" text, for exact comparisons. */
static char *edges_text(const TopoGraph *g) {
  gsize m;
  guint *e = topo_graph_edges(g, &m);
  GString *s = g_string_new(NULL);
  for (gsize i = 0; i < m; i++)
    g_string_append_printf(s, "%u %u\n", e[2 * i], e[2 * i + 1]);
  g_free(e);
  return g_string_free(s, FALSE);
}

/* A reference file's data lines (comments dropped), verbatim. */
static char *data_lines(const char *path) {
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  char **lines = g_strsplit(text, "\n", -1);
  GString *s = g_string_new(NULL);
  for (char **l = lines; *l != NULL; l++)
    if (**l != '\0' && **l != '#')
      g_string_append_printf(s, "%s\n", *l);
  g_strfreev(lines);
  g_free(text);
  return g_string_free(s, FALSE);
}

static void test_snap_format(void) {
  char *path = data_path("topo-snap.edges");
  GError *error = NULL;
  TopoGraph *g = topo_graph_load(path, FALSE, &error);
  g_assert_no_error(error);
  /* 30->0, 7->1, 100->2, 42->3, 999->4 (only a self-loop: isolated);
   * "7 30" duplicates "30 7", "0007" is 7. */
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 5);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 4);
  char *t = edges_text(g);
  g_assert_cmpstr(t, ==, "0 1\n0 2\n1 2\n1 3\n");
  g_free(t);
  g_assert_cmpuint(topo_graph_degree(g, 4), ==, 0);
  g_assert_false(topo_graph_is_connected(g));
  topo_graph_free(g);

  g = topo_graph_load(path, TRUE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 4);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 4);
  g_assert_true(topo_graph_is_connected(g));
  topo_graph_free(g);
  g_free(path);
}

static void test_lcc_tie_and_renumbering(void) {
  char *path = data_path("topo-components.edges");
  GError *error = NULL;
  TopoGraph *g = topo_graph_load(path, FALSE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 8);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 5);
  topo_graph_free(g);
  /* Two 3-node components tie; the one seen first (9 8 7) wins and is
   * renumbered 9->0, 8->1, 7->2. */
  g = topo_graph_load(path, TRUE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 3);
  char *t = edges_text(g);
  g_assert_cmpstr(t, ==, "0 1\n1 2\n");
  g_free(t);
  topo_graph_free(g);
  g_free(path);
}

/* A 0-indexed file keeps its ids: florentine.edges loads to the embedded
 * generator's graph, and the ego LCC file loads back to itself. */
static void test_dense_labels_kept(void) {
  GError *error = NULL;
  char *flo = data_graph("florentine.edges");
  TopoGraph *loaded = topo_graph_load(flo, FALSE, &error);
  g_assert_no_error(error);
  TopoGraph *embedded = topo_graph_generate("florentine", &error);
  g_assert_no_error(error);
  char *a = edges_text(loaded), *b = edges_text(embedded);
  g_assert_cmpstr(a, ==, b);
  g_free(a);
  g_free(b);
  topo_graph_free(loaded);
  topo_graph_free(embedded);
  g_free(flo);

  char *ego = data_graph("facebook-ego-414-lcc.edges");
  TopoGraph *g = topo_graph_load(ego, TRUE, &error);
  g_assert_no_error(error);
  char *got = edges_text(g), *want = data_lines(ego);
  g_assert_cmpstr(got, ==, want);
  g_free(got);
  g_free(want);
  topo_graph_free(g);
  g_free(ego);

  /* Labels 0..3 given out of order are kept; a gap (0,1,3) renumbers. */
  char *dir = test_tmpdir("topo");
  char *p = g_build_filename(dir, "x.edges", NULL);
  g_assert_true(g_file_set_contents(p, "3 1\n1 0\n2 3\n", -1, NULL));
  g = topo_graph_load(p, FALSE, &error);
  g_assert_no_error(error);
  got = edges_text(g);
  g_assert_cmpstr(got, ==, "0 1\n1 3\n2 3\n");
  g_free(got);
  topo_graph_free(g);
  g_assert_true(g_file_set_contents(p, "3 1\n1 0\n", -1, NULL));
  g = topo_graph_load(p, FALSE, &error);
  g_assert_no_error(error);
  got = edges_text(g); /* 3->0, 1->1, 0->2 */
  g_assert_cmpstr(got, ==, "0 1\n1 2\n");
  g_free(got);
  topo_graph_free(g);
  g_unlink(p);
  g_rmdir(dir);
  g_free(p);
  g_free(dir);
}

static void test_facebook_lcc_matches_reference(void) {
  char *raw = data_graph("facebook-414.edges");
  char *ref = data_graph("facebook-ego-414-lcc.edges");
  GError *error = NULL;
  TopoGraph *full = topo_graph_load(raw, FALSE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(full), ==, 150);
  g_assert_cmpuint(topo_graph_n_edges(full), ==, 1693);
  topo_graph_free(full);

  TopoGraph *g = topo_graph_load(raw, TRUE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 148);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 1692);
  g_assert_true(topo_graph_is_connected(g));
  char *got = edges_text(g);
  char *want = data_lines(ref);
  g_assert_cmpstr(got, ==, want);

  /* write_edges produces the same bytes. */
  char *tmp = NULL;
  int fd = g_file_open_tmp("topo-XXXXXX.edges", &tmp, &error);
  g_assert_no_error(error);
  close(fd);
  g_assert_true(topo_graph_write_edges(g, tmp, &error));
  g_assert_no_error(error);
  char *written = NULL;
  g_assert_true(g_file_get_contents(tmp, &written, NULL, NULL));
  g_assert_cmpstr(written, ==, want);
  g_unlink(tmp);
  g_free(tmp);
  g_free(written);
  g_free(got);
  g_free(want);
  topo_graph_free(g);
  g_free(raw);
  g_free(ref);
}

static void expect_load_error(const char *file, int code, const char *const *needles) {
  char *path = data_path(file);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load(path, FALSE, &error);
  g_assert_null(g);
  test_expect_error(error, TOPO_ERROR, code, path, needles);
  g_free(path);
}

static void test_malformed(void) {
  expect_load_error("topo-one-token.edges", TOPO_ERROR_PARSE,
                    (const char *const[]){"topo-one-token.edges:3:", "one token", NULL});
  expect_load_error("topo-three-tokens.edges", TOPO_ERROR_PARSE,
                    (const char *const[]){"topo-three-tokens.edges:3:", "3 tokens", NULL});
  expect_load_error(
      "topo-nonnumeric.edges", TOPO_ERROR_PARSE,
      (const char *const[]){"topo-nonnumeric.edges:3:", "'x3'", "not a non-negative", NULL});
  expect_load_error("topo-negative.edges", TOPO_ERROR_PARSE,
                    (const char *const[]){"topo-negative.edges:2:", "'-3'", NULL});
  expect_load_error("topo-empty.edges", TOPO_ERROR_EMPTY,
                    (const char *const[]){"topo-empty.edges", "no edge", NULL});
}

static void test_missing_file(void) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_load("/nonexistent/dir/graph.edges", TRUE, &error);
  g_assert_null(g);
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_IO);
  g_assert_nonnull(strstr(error->message, "/nonexistent/dir/graph.edges"));
  g_error_free(error);
}

static void test_write_error(void) {
  TopoGraph *g = topo_graph_generate("path:n=3", NULL);
  GError *error = NULL;
  g_assert_false(topo_graph_write_edges(g, "/nonexistent/dir/out.edges", &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_IO);
  g_assert_nonnull(strstr(error->message, "/nonexistent/dir/out.edges"));
  g_error_free(error);
  topo_graph_free(g);
}

/* What the loader drops or renames is reported, not silent. */
static void test_load_report(void) {
  char *path = data_path("topo-dropped.edges");
  GError *err = NULL;
  for (int lcc = 0; lcc < 2; lcc++) {
    TopoGraph *g = topo_graph_load(path, lcc, &err);
    g_assert_no_error(err);
    char *t = edges_text(g);
    g_assert_cmpstr(t, ==, "0 1\n1 2\n2 3\n"); /* 10 20 30 40 by first appearance */
    g_free(t);
    const TopoLoadReport *r = topo_graph_load_report(g);
    g_assert_nonnull(r);
    g_assert_cmpuint(r->self_loops, ==, 2);
    g_assert_cmpuint(r->duplicates, ==, 2);
    g_assert_true(r->renumbered);
    topo_graph_free(g);
  }
  /* A clean 0-indexed file: nothing to report, but a report. */
  char *dir = test_tmpdir("topo");
  char *clean = g_build_filename(dir, "clean.edges", NULL);
  g_assert_true(g_file_set_contents(clean, "0 1\n2 1\n", -1, NULL));
  TopoGraph *g = topo_graph_load(clean, FALSE, &err);
  g_assert_no_error(err);
  const TopoLoadReport *r = topo_graph_load_report(g);
  g_assert_nonnull(r);
  g_assert_cmpuint(r->self_loops, ==, 0);
  g_assert_cmpuint(r->duplicates, ==, 0);
  g_assert_false(r->renumbered);
  topo_graph_free(g);
  /* Graphs not loaded from a file have none. */
  g = topo_graph_generate("ring:n=5", &err);
  g_assert_no_error(err);
  g_assert_null(topo_graph_load_report(g));
  topo_graph_free(g);
  g_unlink(clean);
  g_rmdir(dir);
  g_free(clean);
  g_free(dir);
  g_free(path);
}

/* The file's labels are kept (issue 36): a file labelled 20, 3, 6, ...
 * gets ids by first appearance and a label table mapping them back; lcc
 * keeps the kept nodes' labels (also of a 0..n-1 file whose component is
 * renumbered); a file labelled 0..n-1 and generated graphs have no table
 * and name node u "u". */
static void test_labels_kept(void) {
  char *dir = test_tmpdir("topo-labels");
  char *path = g_build_filename(dir, "labelled.edges", NULL);
  /* 20-3-6-20 triangle, 6-41; a separate edge 7-8 (dropped by lcc). */
  g_assert_true(g_file_set_contents(path, "20 3\n3 6\n6 20\n006 41\n7 8\n", -1, NULL));
  GError *err = NULL;
  const char *want[] = {"20", "3", "6", "41", "7", "8"};
  for (int lcc = 0; lcc < 2; lcc++) {
    TopoGraph *g = topo_graph_load(path, lcc, &err);
    g_assert_no_error(err);
    guint n = lcc ? 4 : 6;
    g_assert_cmpuint(topo_graph_n_nodes(g), ==, n);
    g_assert_true(topo_graph_has_labels(g));
    for (guint u = 0; u < n; u++) {
      g_assert_cmpstr(topo_graph_node_label(g, u), ==, want[u]);
      guint id = G_MAXUINT;
      g_assert_true(topo_graph_node_find(g, want[u], &id));
      g_assert_cmpuint(id, ==, u);
      char *name = topo_graph_node_name(g, u);
      g_assert_cmpstr(name, ==, want[u]);
      g_free(name);
    }
    guint id = G_MAXUINT;
    g_assert_false(topo_graph_node_find(g, "0", &id));   /* an id, not a label */
    g_assert_false(topo_graph_node_find(g, "006", &id)); /* labels are canonical decimals */
    g_assert_cmpuint(id, ==, G_MAXUINT);
    char *t = edges_text(g);
    g_assert_cmpstr(t, ==, lcc ? "0 1\n0 2\n1 2\n2 3\n" : "0 1\n0 2\n1 2\n2 3\n4 5\n");
    g_free(t);
    TopoGraph *c = topo_graph_copy(g, &err);
    g_assert_no_error(err);
    g_assert_cmpstr(topo_graph_node_label(c, 3), ==, "41");
    topo_graph_free(c);
    topo_graph_free(g);
  }
  /* 0..n-1 labels: no table; lcc dropping node 0 keeps the labels 1..3. */
  g_assert_true(g_file_set_contents(path, "1 2\n2 3\n3 1\n0 4\n", -1, NULL));
  TopoGraph *g = topo_graph_load(path, FALSE, &err);
  g_assert_no_error(err);
  g_assert_false(topo_graph_has_labels(g));
  g_assert_null(topo_graph_node_label(g, 4));
  guint id = 0;
  g_assert_true(topo_graph_node_find(g, "4", &id) && id == 4);
  g_assert_false(topo_graph_node_find(g, "5", &id) || topo_graph_node_find(g, "-1", &id));
  topo_graph_free(g);
  g = topo_graph_load(path, TRUE, &err);
  g_assert_no_error(err);
  g_assert_cmpstr(topo_graph_node_label(g, 0), ==, "1");
  g_assert_cmpstr(topo_graph_node_label(g, 2), ==, "3");
  topo_graph_free(g);
  /* Labels given by a caller: checked. */
  g = topo_graph_generate("path:n=3", &err);
  g_assert_no_error(err);
  g_assert_false(topo_graph_has_labels(g));
  const char *dup[] = {"a", "b", "a", NULL};
  g_assert_false(topo_graph_set_labels(g, dup, &err));
  g_assert_error(err, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "two nodes are labelled 'a'"));
  g_clear_error(&err);
  const char *few[] = {"a", "b", NULL};
  g_assert_false(topo_graph_set_labels(g, few, &err));
  g_assert_nonnull(strstr(err->message, "2 node labels for a graph of 3 nodes"));
  g_clear_error(&err);
  const char *ok[] = {"n0", "n1", "n2", NULL};
  g_assert_true(topo_graph_set_labels(g, ok, &err));
  g_assert_true(topo_graph_node_find(g, "n2", &id) && id == 2);
  g_assert_false(topo_graph_node_find(g, "2", &id));
  topo_graph_free(g);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/topo/load/snap-format", test_snap_format);
  g_test_add_func("/topo/load/lcc-tie-renumbering", test_lcc_tie_and_renumbering);
  g_test_add_func("/topo/load/dense-labels-kept", test_dense_labels_kept);
  g_test_add_func("/topo/load/facebook-lcc", test_facebook_lcc_matches_reference);
  g_test_add_func("/topo/load/malformed", test_malformed);
  g_test_add_func("/topo/load/missing-file", test_missing_file);
  g_test_add_func("/topo/load/write-error", test_write_error);
  g_test_add_func("/topo/load/report", test_load_report);
  g_test_add_func("/topo/load/labels", test_labels_kept);
  return g_test_run();
}
