/*
 * tests/topologies/test_load_formats.c: topo_graph_load_format on the
 * formats users have graphs in: the Florentine
 * graph written as a plain edge list, a comma-separated list, a CSV with a
 * header, GML, Pajek and GraphML (with isolated nodes, directed edges, a
 * self-loop and duplicates in some) must load to the same n, m and spectral
 * gap as the plain list; weights are refused unless equal or
 * ignore_weights; errors name the file (and the line where we parse).
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tests/common/files.h"
#include "spec/spec.h"
#include "topologies/topologies.h"
#include "tests/common/checks.h"

/* Florentine families (Padgett), 15 nodes, 20 edges, as
 * data/graphs/florentine.edges numbers them. */
static const guint florentine[][2] = {
    {0, 8}, {1, 5},  {1, 6},  {1, 8},  {2, 4},  {2, 8},  {3, 6},   {3, 10},  {4, 8},   {4, 10},
    {6, 7}, {6, 12}, {8, 13}, {8, 14}, {9, 11}, {9, 12}, {10, 13}, {11, 13}, {12, 13}, {12, 14}};
#define N_NODES 15
#define N_EDGES G_N_ELEMENTS(florentine)

static char *dir;

static double gap_of(const TopoGraph *g) {
  GError *error = NULL;
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &error);
  g_assert_no_error(error);
  double gap = NAN;
  g_assert_true(topo_gossip_spectral_gap(w, &gap, &error));
  g_assert_no_error(error);
  topo_gossip_free(w);
  return gap;
}

/* The reference: the plain edge list. */
static double reference_gap(void) {
  GString *s = g_string_new("# florentine\n");
  for (guint i = 0; i < N_EDGES; i++)
    g_string_append_printf(s, "%u %u\n", florentine[i][0], florentine[i][1]);
  char *path = test_write_file(dir, "plain.edges", s->str, (gssize)s->len);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load(path, FALSE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, N_NODES);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, N_EDGES);
  double gap = gap_of(g);
  g_assert_cmpfloat(gap, >, 0.01); /* connected: a real gap */
  topo_graph_free(g);
  g_string_free(s, TRUE);
  g_free(path);
  return gap;
}

/* Loads @name (written from @s) as @format and compares with the plain list:
 * same n, m and gap (and the same edge set: u-v of the plain list is u-v). */
static TopoGraph *expect_same(const char *name, GString *s, TopoGraphFormat format, double gap) {
  char *path = test_write_file(dir, name, s->str, (gssize)s->len);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load_format(path, format, FALSE, FALSE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, N_NODES);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, N_EDGES);
  for (guint i = 0; i < N_EDGES; i++)
    g_assert_true(topo_graph_has_edge(g, florentine[i][0], florentine[i][1]));
  g_assert_cmpfloat(fabs(gap_of(g) - gap), <, 1e-12);
  g_string_free(s, TRUE);
  g_free(path);
  return g;
}

static void test_formats(void) {
  double gap = reference_gap();
  TopoGraph *g;

  /* Comma-separated, weights all equal, a duplicate in the other orientation. */
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < N_EDGES; i++)
    g_string_append_printf(s, "%u,%u,1.5\n", florentine[i][0], florentine[i][1]);
  g_string_append(s, "8,0,1.5\n");
  g = expect_same("comma.txt", s, TOPO_FORMAT_AUTO, gap);
  g_assert_cmpuint(topo_graph_load_report(g)->duplicates, ==, 1);
  g_assert_false(topo_graph_load_report(g)->weights_ignored);
  topo_graph_free(g);

  /* CSV with a header, by extension. */
  s = g_string_new("source,target,weight\r\n");
  for (guint i = 0; i < N_EDGES; i++)
    g_string_append_printf(s, "%u,%u,1\r\n", florentine[i][0], florentine[i][1]);
  topo_graph_free(expect_same("f.csv", s, TOPO_FORMAT_AUTO, gap));

  /* GML: ids not 0-based, node order kept; a self-loop dropped and counted. */
  s = g_string_new("graph [\n  directed 0\n");
  for (guint i = 0; i < N_NODES; i++)
    g_string_append_printf(s, "  node [ id %u label \"n%u\" ]\n", 100 + i, i);
  for (guint i = 0; i < N_EDGES; i++)
    g_string_append_printf(s, "  edge [ source %u target %u ]\n", 100 + florentine[i][0],
                           100 + florentine[i][1]);
  g_string_append(s, "  edge [ source 103 target 103 ]\n]\n");
  g = expect_same("f.gml", s, TOPO_FORMAT_AUTO, gap);
  g_assert_cmpuint(topo_graph_load_report(g)->self_loops, ==, 1);
  g_assert_false(topo_graph_load_report(g)->directed);
  topo_graph_free(g);

  /* Pajek: 1-based, arcs (directed) made undirected, both directions once. */
  s = g_string_new(NULL);
  g_string_append_printf(s, "*Vertices %u\n", N_NODES);
  for (guint i = 0; i < N_NODES; i++)
    g_string_append_printf(s, "%u \"v%u\"\n", i + 1, i);
  g_string_append(s, "*Arcs\n");
  for (guint i = 0; i < N_EDGES; i++)
    g_string_append_printf(s, "%u %u\n%u %u\n", florentine[i][0] + 1, florentine[i][1] + 1,
                           florentine[i][1] + 1, florentine[i][0] + 1);
  g = expect_same("f.net", s, TOPO_FORMAT_AUTO, gap);
  g_assert_true(topo_graph_load_report(g)->directed); /* said, not silent */
  topo_graph_free(g);

  /* GraphML, named explicitly (the extension says nothing). */
  s = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                   "<key id=\"w\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>\n"
                   "<graph id=\"G\" edgedefault=\"undirected\">\n");
  for (guint i = 0; i < N_NODES; i++)
    g_string_append_printf(s, "<node id=\"n%u\"/>\n", i);
  for (guint i = 0; i < N_EDGES; i++)
    g_string_append_printf(s,
                           "<edge source=\"n%u\" target=\"n%u\"><data key=\"w\">2</data></edge>\n",
                           florentine[i][0], florentine[i][1]);
  g_string_append(s, "</graph>\n</graphml>\n");
  g = expect_same("florentine.txt", s, TOPO_FORMAT_GRAPHML, gap);
  g_assert_false(topo_graph_load_report(g)->directed);
  topo_graph_free(g);
}

static void expect_load_error(const char *name, const char *text, TopoGraphFormat format,
                              gboolean ignore_weights, gint code, const char *const *needles) {
  GString *s = g_string_new(text);
  char *path = test_write_file(dir, name, s->str, (gssize)s->len);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load_format(path, format, FALSE, ignore_weights, &error);
  g_assert_null(g);
  g_assert_nonnull(error);
  g_assert_nonnull(strstr(error->message, path));
  test_expect_error(error, TOPO_ERROR, code, path, needles);
  g_string_free(s, TRUE);
  g_free(path);
}

static void test_weights(void) {
  /* Unequal weights: refused where they differ, with the way out. */
  expect_load_error("w.edges", "0 1 1\n1 2 1\n2 0 2.5\n", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("w.edges:3:", "weight 2.5 differs from 1", "--ignore-weights"));
  /* ... or loaded as structure when asked, and said so in the report. */
  GString *s = g_string_new("0 1 1\n1 2 1\n2 0 2.5\n");
  char *path = test_write_file(dir, "w2.edges", s->str, (gssize)s->len);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load_format(path, TOPO_FORMAT_AUTO, FALSE, TRUE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 3);
  g_assert_true(topo_graph_load_report(g)->weights_ignored);
  /* A triangle's uniform W = J/3: gap exactly 1. */
  g_assert_cmpfloat(fabs(gap_of(g) - 1.0), <, 1e-12);
  topo_graph_free(g);
  g_string_free(s, TRUE);
  g_free(path);
  /* GraphML weights too (no line: igraph's reader). */
  expect_load_error(
      "w.graphml",
      "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">"
      "<key id=\"w\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>"
      "<graph edgedefault=\"undirected\"><node id=\"a\"/><node id=\"b\"/><node "
      "id=\"c\"/><edge source=\"a\" target=\"b\"><data key=\"w\">1</data></edge>"
      "<edge source=\"b\" target=\"c\"><data key=\"w\">3</data></edge></graph>"
      "</graphml>\n",
      TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE, TEST_NEEDLES("weight 3 differs from 1"));
  /* A weight that is no number, weights on some lines only. */
  expect_load_error("bad.edges", "0 1 1\n1 2 heavy\n", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("bad.edges:2:", "'heavy' is not a finite number"));
  expect_load_error("mixed.edges", "0 1 1\n1 2\n", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("mixed.edges:2:", "2 tokens, but line 1 has 3"));
  expect_load_error("four.edges", "0 1 1 7\n", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("four.edges:1:", "4 tokens"));
}

#define GRAPHML_HEAD                                                                               \
  "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"          \
  "<key id=\"w\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>\n"

/* Weights the gossip matrices cannot mean, in every format, all equal so
 * that the equal-weights rule does not catch them; and differences shown
 * with every digit. */
static void test_bad_weights(void) {
  expect_load_error("zero.edges", "0 1 0\n1 2 0\n", TOPO_FORMAT_AUTO, TRUE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("zero.edges:1:", "edge weight '0' is not positive"));
  expect_load_error("neg.edges", "0 1 -2\n1 2 -2\n", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("neg.edges:1:", "'-2' is not positive"));
  expect_load_error("inf.edges", "0 1 inf\n1 2 inf\n", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("inf.edges:1:", "'inf' is not a finite number"));
  expect_load_error("ulp.edges", "0 1 1\n1 2 1.0000000000000002\n", TOPO_FORMAT_AUTO, FALSE,
                    TOPO_ERROR_PARSE,
                    TEST_NEEDLES("ulp.edges:2:", "weight 1.0000000000000002 differs from 1"));
  static const char *const bad[] = {"-1", "0", "INF", "-inf"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *text = g_strdup_printf(GRAPHML_HEAD "<graph edgedefault=\"undirected\"><node id=\"a\"/>"
                                 "<node id=\"b\"/><node id=\"c\"/><edge source=\"a\" "
                                 "target=\"b\"><data key=\"w\">%s</data></edge><edge "
                                 "source=\"b\" target=\"c\"><data key=\"w\">%s</data></edge>"
                                 "</graph></graphml>\n",
                                 bad[i], bad[i]);
    expect_load_error("w.graphml", text, TOPO_FORMAT_AUTO, TRUE, TOPO_ERROR_PARSE,
                      TEST_NEEDLES("weights must be positive finite numbers"));
    g_free(text);
  }
  /* Weights on some edges only (igraph reads a missing one as NaN). */
  expect_load_error(
      "some.graphml",
      GRAPHML_HEAD "<graph edgedefault=\"undirected\"><node id=\"a\"/><node id=\"b\"/>"
                   "<node id=\"c\"/><edge source=\"a\" target=\"b\"><data key=\"w\">2"
                   "</data></edge><edge source=\"b\" target=\"c\"/></graph></graphml>\n",
      TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
      TEST_NEEDLES("1 edge without a weight, others with weight 2", "--ignore-weights"));
  expect_load_error(
      "w.gml",
      "graph [\n node [ id 0 ]\n node [ id 1 ]\n node [ id 2 ]\n"
      " edge [ source 0 target 1 weight -3 ]\n edge [ source 1 target 2 weight -3 ]\n]\n",
      TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
      TEST_NEEDLES("edge 0 (between nodes 0 and 1", "weight -3", "positive finite"));
}

/* What igraph would assume silently: directed files are read as undirected
 * and said so; GraphML edges to undeclared nodes and a second graph are
 * refused where they are. */
static void test_structure(void) {
  const char *cases[][2] = {
      {"d.graphml", GRAPHML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"/><node "
                                 "id=\"b\"/><edge source=\"a\" target=\"b\"/></graph></graphml>\n"},
      {"d.gml", "graph [\n directed 1\n node [ id 0 ]\n node [ id 1 ]\n"
                " edge [ source 0 target 1 ]\n]\n"},
      {"d.net", "*Vertices 2\n*Arcs\n1 2\n"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    GString *s = g_string_new(cases[i][1]);
    char *path = test_write_file(dir, cases[i][0], s->str, (gssize)s->len);
    GError *error = NULL;
    TopoGraph *g = topo_graph_load_format(path, TOPO_FORMAT_AUTO, FALSE, FALSE, &error);
    g_assert_no_error(error);
    g_assert_true(topo_graph_load_report(g)->directed);
    g_assert_cmpuint(topo_graph_n_edges(g), ==, 1);
    topo_graph_free(g);
    g_string_free(s, TRUE);
    g_free(path);
  }
  expect_load_error("undeclared.graphml",
                    GRAPHML_HEAD "<graph edgedefault=\"undirected\">\n<node id=\"a\"/>\n"
                                 "<edge source=\"b\" target=\"a\"/>\n<node id=\"c\"/>\n"
                                 "<edge source=\"a\" target=\"c\"/>\n<edge source=\"a\" "
                                 "target=\"zz\"/>\n</graph></graphml>\n",
                    TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("undeclared.graphml:6:", "edge source 'b' is no <node>"));
  expect_load_error("two.graphml",
                    GRAPHML_HEAD "<graph edgedefault=\"undirected\"><node id=\"a\"/><node "
                                 "id=\"b\"/><edge source=\"a\" target=\"b\"/></graph>\n"
                                 "<graph edgedefault=\"undirected\"><node id=\"c\"/></graph>"
                                 "</graphml>\n",
                    TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("two.graphml:5:", "a second <graph>"));
}

/* Quoted strings over 64 KiB in GML and Pajek are refused where they start
 * (igraph's lexers are quadratic in them: 8 MB took 34 s); a '"' in a GML
 * comment opens no string; 64 KiB exactly is read. */
static void test_long_strings(void) {
  for (int over = 0; over < 2; over++) {
    gsize len = (64 << 10) + (gsize)over;
    GString *label = g_string_sized_new(len);
    for (gsize i = 0; i < len; i++)
      g_string_append_c(label, 'x');
    GString *gml = g_string_new("# a \" in a comment\ngraph [\n node [ id 0 ]\n");
    g_string_append_printf(gml, " node [ id 1 label \"%s\" ]\n edge [ source 0 target 1 ]\n]\n",
                           label->str);
    GString *net = g_string_new(NULL);
    g_string_append_printf(net, "*Vertices 2\n1 \"a\"\n2 \"%s\"\n*Edges\n1 2\n", label->str);
    if (over) {
      expect_load_error("long.gml", gml->str, TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                        TEST_NEEDLES("long.gml:4:", "quoted string longer than 65536 bytes"));
      expect_load_error("long.net", net->str, TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                        TEST_NEEDLES("long.net:3:", "quoted string longer than 65536 bytes"));
      g_string_free(gml, TRUE);
      g_string_free(net, TRUE);
    } else {
      GString *both[] = {gml, net};
      const char *names[] = {"ok.gml", "ok.net"};
      for (guint k = 0; k < 2; k++) {
        char *path = test_write_file(dir, names[k], both[k]->str, (gssize)both[k]->len);
        GError *error = NULL;
        TopoGraph *g = topo_graph_load_format(path, TOPO_FORMAT_AUTO, FALSE, FALSE, &error);
        g_assert_no_error(error);
        g_assert_cmpuint(topo_graph_n_edges(g), ==, 1);
        topo_graph_free(g);
        g_string_free(both[k], TRUE);
        g_free(path);
      }
    }
    g_string_free(label, TRUE);
  }
}

/* A Pajek "*Vertices N" header is checked before igraph's reader allocates
 * for N: a count beyond the supported node ids, or beyond any memory budget
 * (2^31 - 2 nodes at 128 bytes each is 275 GB; the check's own constant),
 * is refused at its line, after comments and the "*Network" title. */
static void test_pajek_vertex_count(void) {
  expect_load_error("ids.net", "*Vertices 99999999999999999999999\n*Edges\n1 2\n",
                    TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_INVALID_ARGUMENT,
                    TEST_NEEDLES("ids.net:1:", "more than 2^64", "at most 2147483647"));
  expect_load_error("over.net", "*vertices 2147483648\n*Edges\n1 2\n", TOPO_FORMAT_AUTO, FALSE,
                    TOPO_ERROR_INVALID_ARGUMENT,
                    TEST_NEEDLES("over.net:1:", "declares 2147483648 nodes"));
  if (spec_memory_limit() < (gsize)275e9)
    expect_load_error("mem.net", "% made by hand\n\n*Network big\n*Vertices 2147483646\n*Edges\n1 2\n",
                      TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_INVALID_ARGUMENT,
                      TEST_NEEDLES("mem.net:4:", "2147483646 nodes that *Vertices declares",
                                   "would need 274.9 GB"));
  /* A count that fits is read as before: two declared, one edge. */
  char *path = test_write_file(dir, "fits.net", "*Network x\n*Vertices 2\n*Edges\n1 2\n", -1);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load_format(path, TOPO_FORMAT_AUTO, FALSE, FALSE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 2);
  topo_graph_free(g);
  g_free(path);
}

/* A CSV file's first line is a header only when its node columns have a
 * header's names (source,target; from,to; ... any case): a file whose first
 * node is a word keeps that edge (main read it as a header and lost it),
 * and a line of unknown names over numbers is refused at line 1. */
static void test_csv_header_rule(void) {
  char *path = test_write_file(dir, "words.csv",
                               "Acciaiuoli,Medici\nMedici,Barbadori\nBarbadori,Acciaiuoli\n", -1);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load_format(path, TOPO_FORMAT_AUTO, FALSE, FALSE, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 3);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 3);
  g_assert_cmpstr(topo_graph_node_label(g, 0), ==, "Acciaiuoli");
  topo_graph_free(g);
  g_free(path);
  static const char *const headers[] = {"From,To\n", "\"source\",\"target\"\n",
                                        "node1,node2,weight\n", "Source,Target,Type,Id,Weight\n"};
  for (guint i = 0; i < G_N_ELEMENTS(headers); i++) {
    char *text = g_strconcat(headers[i],
                             i < 2    ? "0,1\n1,2\n"
                             : i == 2 ? "0,1,1\n1,2,1\n"
                                      : "0,1,Undirected,0,1\n1,2,Undirected,1,1\n",
                             NULL);
    path = test_write_file(dir, "h.csv", text, -1);
    g = topo_graph_load_format(path, TOPO_FORMAT_AUTO, FALSE, FALSE, &error);
    if (i < 3) {
      g_assert_no_error(error);
      g_assert_cmpuint(topo_graph_n_nodes(g), ==, 3);
      g_assert_cmpuint(topo_graph_n_edges(g), ==, 2);
      g_assert_false(topo_graph_has_labels(g));
      topo_graph_free(g);
    } else {
      /* Gephi's header is one, its five columns are not an edge list's. */
      g_assert_null(g);
      g_assert_nonnull(strstr(error->message, "h.csv:2: 5 tokens"));
      g_clear_error(&error);
    }
    g_free(path);
    g_free(text);
  }
  expect_load_error("unknown.csv", "person1,person2\n0,1\n1,2\n", TOPO_FORMAT_AUTO, FALSE,
                    TOPO_ERROR_PARSE,
                    TEST_NEEDLES("unknown.csv:1: this line names its nodes by words, every other "
                                 "line by numbers: if it is a header, name its node columns "
                                 "source,target"));
}

static void test_bad_files(void) {
  /* A header is a CSV's privilege: in a plain edge list it is an error. */
  expect_load_error("h.edges", "source target\n0 1\n", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("h.edges:1:", "'source'"));
  expect_load_error("broken.gml", "graph [\n  node [ id 0 ]\n  edge [ source 0 \n",
                    TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("not a valid GML file"));
  expect_load_error("broken.graphml", "<graphml><graph>", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_PARSE,
                    TEST_NEEDLES("not a valid GraphML file"));
  expect_load_error("noedge.net", "*Vertices 3\n", TOPO_FORMAT_AUTO, FALSE, TOPO_ERROR_EMPTY,
                    TEST_NEEDLES("no edge"));
  GError *error = NULL;
  g_assert_null(
      topo_graph_load_format("/nonexistent/g.gml", TOPO_FORMAT_AUTO, FALSE, FALSE, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_IO);
  g_assert_nonnull(strstr(error->message, "/nonexistent/g.gml"));
  g_clear_error(&error);
  TopoGraphFormat f;
  g_assert_true(topo_graph_format_parse("GraphML", &f, NULL));
  g_assert_cmpint(f, ==, TOPO_FORMAT_GRAPHML);
  g_assert_false(topo_graph_format_parse("dot", &f, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_PARSE);
  g_assert_nonnull(strstr(error->message, "graphml, gml, pajek"));
  g_clear_error(&error);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  dir = test_tmpdir("topo-formats");
  g_test_add_func("/topologies/load/formats", test_formats);
  g_test_add_func("/topologies/load/weights", test_weights);
  g_test_add_func("/topologies/load/bad-files", test_bad_files);
  g_test_add_func("/topologies/load/csv-header-rule", test_csv_header_rule);
  g_test_add_func("/topologies/load/bad-weights", test_bad_weights);
  g_test_add_func("/topologies/load/structure", test_structure);
  g_test_add_func("/topologies/load/long-strings", test_long_strings);
  g_test_add_func("/topologies/load/pajek-vertex-count", test_pajek_vertex_count);
  int rc = g_test_run();
  test_rmtree(dir);
  g_free(dir);
  return rc;
}
