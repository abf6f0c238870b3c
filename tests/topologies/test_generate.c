/* tests/topologies/test_generate.c: graph generators and their specs. */
#include <stdio.h>
#include <string.h>

#include "topologies/topologies.h"
#include "tests/common/checks.h"

static TopoGraph *gen(const char *spec) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate(spec, &error);
  g_assert_no_error(error);
  g_assert_nonnull(g);
  return g;
}

static void check_size(const char *spec, guint n, guint m) {
  TopoGraph *g = gen(spec);
  if (topo_graph_n_nodes(g) != n || topo_graph_n_edges(g) != m)
    g_error("%s: %u nodes %u edges, expected %u and %u", spec, topo_graph_n_nodes(g),
            topo_graph_n_edges(g), n, m);
  topo_graph_free(g);
}

static void check_all_degrees(const TopoGraph *g, guint d) {
  for (guint u = 0; u < topo_graph_n_nodes(g); u++)
    g_assert_cmpuint(topo_graph_degree(g, u), ==, d);
}

static gboolean same_edges(const TopoGraph *a, const TopoGraph *b) {
  gsize ma, mb;
  guint *ea = topo_graph_edges(a, &ma), *eb = topo_graph_edges(b, &mb);
  gboolean same = topo_graph_n_nodes(a) == topo_graph_n_nodes(b) && ma == mb &&
                  (ma == 0 || memcmp(ea, eb, 2 * ma * sizeof(guint)) == 0);
  g_free(ea);
  g_free(eb);
  return same;
}

static void test_closed_forms(void) {
  check_size("ring:n=10", 10, 10);
  check_size("ring:n=3", 3, 3);
  check_size("path:n=7", 7, 6);
  check_size("star:n=9", 9, 8);
  check_size("complete:n=9", 9, 36);
  check_size("complete:n=2", 2, 1);
  check_size("grid:rows=4,cols=5", 20, 4 * 4 + 5 * 3);
  check_size("grid:rows=4,cols=5,torus=true", 20, 2 * 20);
  check_size("grid:rows=1,cols=6", 6, 5);
  check_size("hypercube:dim=1", 2, 1);
  check_size("hypercube:dim=4", 16, 4 * 8);
  check_size("hypercube:dim=7", 128, 7 * 64);
  check_size("karate", 34, 78);
  check_size("florentine", 15, 20);
  check_size(" ring : n = 5 ", 5, 5); /* whitespace around names, keys, values */
}

static void test_structure(void) {
  TopoGraph *g = gen("ring:n=10");
  check_all_degrees(g, 2);
  g_assert_true(topo_graph_has_edge(g, 9, 0));
  g_assert_true(topo_graph_is_connected(g));
  topo_graph_free(g);

  g = gen("star:n=9");
  g_assert_cmpuint(topo_graph_degree(g, 0), ==, 8);
  for (guint u = 1; u < 9; u++)
    g_assert_cmpuint(topo_graph_degree(g, u), ==, 1);
  topo_graph_free(g);

  g = gen("path:n=7");
  g_assert_cmpuint(topo_graph_degree(g, 0), ==, 1);
  g_assert_cmpuint(topo_graph_degree(g, 6), ==, 1);
  g_assert_true(topo_graph_has_edge(g, 2, 3));
  g_assert_false(topo_graph_has_edge(g, 0, 6));
  topo_graph_free(g);

  /* Node r*cols + c. */
  g = gen("grid:rows=4,cols=5");
  g_assert_true(topo_graph_has_edge(g, 0, 1));
  g_assert_true(topo_graph_has_edge(g, 0, 5));
  g_assert_false(topo_graph_has_edge(g, 4, 5));
  g_assert_cmpuint(topo_graph_degree(g, 0), ==, 2);
  g_assert_cmpuint(topo_graph_degree(g, 6), ==, 4);
  topo_graph_free(g);
  g = gen("grid:rows=4,cols=5,torus=yes");
  check_all_degrees(g, 4);
  g_assert_true(topo_graph_has_edge(g, 0, 4));
  g_assert_true(topo_graph_has_edge(g, 0, 15));
  topo_graph_free(g);

  g = gen("hypercube:dim=5");
  check_all_degrees(g, 5);
  gsize m;
  guint *e = topo_graph_edges(g, &m);
  for (gsize i = 0; i < m; i++) {
    guint x = e[2 * i] ^ e[2 * i + 1];
    g_assert_cmpuint(x & (x - 1), ==, 0); /* one bit apart */
  }
  g_free(e);
  topo_graph_free(g);

  /* Zachary: the instructor (0) has 16 ties, the president (33) 17. */
  g = gen("karate");
  g_assert_cmpuint(topo_graph_degree(g, 0), ==, 16);
  g_assert_cmpuint(topo_graph_degree(g, 33), ==, 17);
  g_assert_true(topo_graph_is_connected(g));
  topo_graph_free(g);
}

static void test_florentine_is_the_data_file(void) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  char *path = g_build_filename(dir, "graphs", "florentine.edges", NULL);
  FILE *f = fopen(path, "r");
  g_assert_nonnull(f);
  char line[256];
  GString *want = g_string_new(NULL);
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned u, v;
    if (line[0] == '#' || sscanf(line, "%u %u", &u, &v) != 2)
      continue;
    g_string_append_printf(want, "%u %u\n", MIN(u, v), MAX(u, v));
  }
  fclose(f);
  TopoGraph *g = gen("florentine");
  gsize m;
  guint *e = topo_graph_edges(g, &m);
  GString *got = g_string_new(NULL);
  for (gsize i = 0; i < m; i++)
    g_string_append_printf(got, "%u %u\n", e[2 * i], e[2 * i + 1]);
  g_assert_cmpstr(got->str, ==, want->str); /* the file is sorted, u < v */
  g_assert_cmpuint(topo_graph_degree(g, 1), ==, 6);
  g_free(e);
  g_string_free(got, TRUE);
  g_string_free(want, TRUE);
  topo_graph_free(g);
  g_free(path);
}

static void test_random_determinism(void) {
  TopoGraph *a = gen("erdos:n=200,p=0.05,seed=3");
  /* Disturb igraph's global RNG: the private RNG must not care. */
  igraph_rng_seed(igraph_rng_default(), 12345);
  (void)igraph_rng_get_integer(igraph_rng_default(), 0, 1000);
  TopoGraph *other = gen("erdos:n=200,p=0.05,seed=5");
  TopoGraph *b = gen("erdos:n=200,p=0.05,seed=3");
  g_assert_true(same_edges(a, b));
  g_assert_false(same_edges(a, other));
  /* E[m] = p n(n-1)/2 = 995, sd ~ 30.8: 5 sd. */
  g_assert_cmpuint(topo_graph_n_edges(a), >, 995 - 155);
  g_assert_cmpuint(topo_graph_n_edges(a), <, 995 + 155);
  topo_graph_free(a);
  topo_graph_free(b);
  topo_graph_free(other);

  /* Default seed is 0. */
  a = gen("erdos:n=50,p=0.1");
  b = gen("erdos:n=50,p=0.1,seed=0");
  g_assert_true(same_edges(a, b));
  topo_graph_free(a);
  topo_graph_free(b);

  /* The seeded variant: a function of (spec seed, extra seed). */
  GError *error = NULL;
  a = topo_graph_generate_seeded("gnm:n=30,m=40", 7, &error);
  b = topo_graph_generate_seeded("gnm:n=30,m=40", 7, &error);
  other = topo_graph_generate_seeded("gnm:n=30,m=40", 8, &error);
  g_assert_no_error(error);
  g_assert_true(same_edges(a, b));
  g_assert_false(same_edges(a, other));
  topo_graph_free(a);
  topo_graph_free(b);
  topo_graph_free(other);
}

static void test_random_shapes(void) {
  TopoGraph *g = gen("gnm:n=50,m=100,seed=1");
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 50);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 100);
  topo_graph_free(g);
  check_size("gnm:n=6,m=15", 6, 15); /* complete */

  g = gen("regular:n=64,d=4,seed=2");
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 128);
  check_all_degrees(g, 4);
  topo_graph_free(g);
  g = gen("regular:n=9,d=8");
  check_all_degrees(g, 8);
  topo_graph_free(g);

  /* Node i < m can only reach i earlier nodes: m(n-1) - sum_{i<m} (m-i). */
  g = gen("barabasi:n=100,m=2,seed=4");
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 2 * 99 - 1);
  g_assert_true(topo_graph_is_connected(g));
  topo_graph_free(g);
  check_size("barabasi:n=50,m=3", 50, 3 * 49 - (2 + 1));

  /* k neighbours on each side: degree 2k, n k edges. */
  g = gen("watts:n=20,k=2,p=0");
  check_all_degrees(g, 4);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 40);
  g_assert_true(topo_graph_has_edge(g, 0, 2));
  g_assert_true(topo_graph_has_edge(g, 0, 18));
  g_assert_false(topo_graph_has_edge(g, 0, 3));
  topo_graph_free(g);
  g = gen("watts:n=20,k=2,p=0.3,seed=9");
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 40); /* rewiring keeps the count */
  TopoGraph *ring = gen("watts:n=20,k=2,p=0");
  g_assert_false(same_edges(g, ring));
  topo_graph_free(ring);
  topo_graph_free(g);
}

static void test_connected_option(void) {
  /* n p = 4.5: about 1 isolated node expected, P(connected) ~ 1/3. */
  for (guint seed = 0; seed < 5; seed++) {
    char *spec = g_strdup_printf("erdos:n=100,p=0.045,seed=%u,connected=true", seed);
    TopoGraph *g = gen(spec);
    g_assert_true(topo_graph_is_connected(g));
    topo_graph_free(g);
    g_free(spec);
  }
  gboolean some_disconnected = FALSE;
  for (guint seed = 0; seed < 20; seed++) {
    char *spec = g_strdup_printf("erdos:n=100,p=0.045,seed=%u", seed);
    TopoGraph *g = gen(spec);
    some_disconnected = some_disconnected || !topo_graph_is_connected(g);
    topo_graph_free(g);
    g_free(spec);
  }
  g_assert_true(some_disconnected); /* the option is doing something */

  GError *error = NULL;
  TopoGraph *g = topo_graph_generate("gnm:n=50,m=3,connected=true,tries=4", &error);
  g_assert_null(g);
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_DISCONNECTED);
  g_assert_nonnull(strstr(error->message, "4 tries"));
  g_error_free(error);
}

static void expect_generate_error(const char *spec, int code, const char *const *needles) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate(spec, &error);
  g_assert_null(g);
  test_expect_error(error, TOPO_ERROR, code, spec, needles);
}

static void test_errors(void) {
  expect_generate_error(
      "torus:n=3", TOPO_ERROR_PARSE,
      TEST_NEEDLES("unknown generator 'torus'", "erdos", "florentine", "hypercube"));
  expect_generate_error("erdos:n=10,q=0.1", TOPO_ERROR_PARSE,
                        TEST_NEEDLES("'q'", "n, p, seed, connected, tries"));
  expect_generate_error("erdos:n=10", TOPO_ERROR_PARSE,
                        TEST_NEEDLES("requires parameter 'p'", "n, p"));
  expect_generate_error("erdos:n=10,p=1.5", TOPO_ERROR_RANGE,
                        TEST_NEEDLES("p=1.5", "[0, 1]"));
  expect_generate_error("erdos:n=ten,p=0.5", TOPO_ERROR_PARSE, TEST_NEEDLES("n='ten'"));
  expect_generate_error("erdos:n=10,p=0.5,p=0.1", TOPO_ERROR_PARSE,
                        TEST_NEEDLES("'p' given twice"));
  expect_generate_error("erdos:n=10,p", TOPO_ERROR_PARSE, TEST_NEEDLES("key=value"));
  expect_generate_error("ring:n=2", TOPO_ERROR_RANGE, TEST_NEEDLES("n=2", "[3,"));
  expect_generate_error("ring:n=-4", TOPO_ERROR_PARSE, TEST_NEEDLES("n='-4'"));
  expect_generate_error("regular:n=9,d=3", TOPO_ERROR_INVALID_ARGUMENT, TEST_NEEDLES("even"));
  expect_generate_error("regular:n=9,d=9", TOPO_ERROR_RANGE, TEST_NEEDLES("d=9"));
  expect_generate_error("gnm:n=5,m=11", TOPO_ERROR_RANGE,
                        TEST_NEEDLES("m=11", "[0, 10]"));
  expect_generate_error("watts:n=10,k=5,p=0.1", TOPO_ERROR_RANGE, TEST_NEEDLES("k=5"));
  expect_generate_error("grid:rows=3", TOPO_ERROR_PARSE, TEST_NEEDLES("requires parameter 'cols'"));
  expect_generate_error("grid:rows=3,cols=3,torus=maybe", TOPO_ERROR_PARSE,
                        TEST_NEEDLES("torus", "boolean"));
  expect_generate_error("hypercube:dim=0", TOPO_ERROR_RANGE, TEST_NEEDLES("dim=0"));
  expect_generate_error("karate:n=3", TOPO_ERROR_PARSE, TEST_NEEDLES("'n'", "none"));
  expect_generate_error("ring:seed=3,n=5", TOPO_ERROR_PARSE, TEST_NEEDLES("'seed'"));
  expect_generate_error("", TOPO_ERROR_PARSE, TEST_NEEDLES("empty"));
  expect_generate_error(":n=3", TOPO_ERROR_PARSE, TEST_NEEDLES("no name"));
}

static void test_from_igraph_and_edges(void) {
  /* A directed multigraph with a loop becomes undirected and simple. */
  igraph_t ig;
  igraph_vector_int_t ev;
  igraph_vector_int_init_int(&ev, 8, 0, 1, 1, 0, 2, 2, 1, 2);
  igraph_create(&ig, &ev, 4, IGRAPH_DIRECTED);
  igraph_vector_int_destroy(&ev);
  GError *error = NULL;
  TopoGraph *g = topo_graph_from_igraph(&ig, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 4);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 2);
  g_assert_false(igraph_is_directed(topo_graph_igraph(g)));
  g_assert_cmpint(igraph_ecount(topo_graph_igraph(g)), ==, 2);
  topo_graph_free(g);

  const guint edges[] = {3, 1, 1, 3, 2, 2, 0, 1};
  g = topo_graph_new_from_edges(4, edges, 4, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 2);
  guint deg;
  const guint *nb = topo_graph_neighbors(g, 1, &deg);
  g_assert_cmpuint(deg, ==, 2);
  g_assert_cmpuint(nb[0], ==, 0);
  g_assert_cmpuint(nb[1], ==, 3);
  TopoGraph *c = topo_graph_copy(g, &error);
  g_assert_cmpuint(topo_graph_n_edges(c), ==, 2);
  g_assert_true(same_edges(g, c));
  topo_graph_free(c);
  topo_graph_free(g);

  const guint bad[] = {0, 4};
  g = topo_graph_new_from_edges(4, bad, 1, &error);
  g_assert_null(g);
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
}

/* topo_graph_hops on the path 0-1-...-7: hops from one source and from two
 * (a repeat among them), G_MAXUINT beyond max_hops. */
static void test_hops(void) {
  GError *e = NULL;
  TopoGraph *path = topo_graph_generate("path:n=8", &e);
  g_assert_no_error(e);
  guint src[] = {0};
  guint *d = topo_graph_hops(path, src, 1, 3);
  const guint want[] = {0, 1, 2, 3, G_MAXUINT, G_MAXUINT, G_MAXUINT, G_MAXUINT};
  for (guint u = 0; u < 8; u++)
    g_assert_cmpuint(d[u], ==, want[u]);
  g_free(d);
  guint two[] = {6, 1, 6};
  d = topo_graph_hops(path, two, 3, G_MAXUINT);
  const guint want2[] = {1, 0, 1, 2, 2, 1, 0, 1};
  for (guint u = 0; u < 8; u++)
    g_assert_cmpuint(d[u], ==, want2[u]);
  g_free(d);
  d = topo_graph_hops(path, two, 3, 0); /* the sources alone */
  for (guint u = 0; u < 8; u++)
    g_assert_cmpuint(d[u], ==, u == 1 || u == 6 ? 0 : G_MAXUINT);
  g_free(d);
  topo_graph_free(path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/topo/generate/closed-forms", test_closed_forms);
  g_test_add_func("/topo/generate/hops", test_hops);
  g_test_add_func("/topo/generate/structure", test_structure);
  g_test_add_func("/topo/generate/florentine", test_florentine_is_the_data_file);
  g_test_add_func("/topo/generate/determinism", test_random_determinism);
  g_test_add_func("/topo/generate/random-shapes", test_random_shapes);
  g_test_add_func("/topo/generate/connected", test_connected_option);
  g_test_add_func("/topo/generate/errors", test_errors);
  g_test_add_func("/topo/generate/from-igraph", test_from_igraph_and_edges);
  return g_test_run();
}
