/* tests/topologies/test_layout.c: topo_graph_layout (Kamada-Kawai or
 * Fruchterman-Reingold positions for viewers). */
#include <math.h>
#include <string.h>

#include "topologies/topologies.h"

static TopoGraph *gen(const char *spec) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate(spec, &error);
  g_assert_no_error(error);
  return g;
}

static double *layout(const TopoGraph *g, guint64 seed) {
  GError *error = NULL;
  double *xy = topo_graph_layout(g, seed, &error);
  g_assert_no_error(error);
  g_assert_nonnull(xy);
  return xy;
}

static double dist(const double *xy, guint u, guint v) {
  return hypot(xy[2 * u] - xy[2 * v], xy[2 * u + 1] - xy[2 * v + 1]);
}

/* Same graph and seed: the same bytes, even when igraph's default RNG was
 * used in between; another seed: another drawing. */
static void test_determinism(void) {
  TopoGraph *g = gen("florentine");
  guint n = topo_graph_n_nodes(g);
  double *a = layout(g, 421);
  igraph_rng_seed(igraph_rng_default(), 7);
  for (int i = 0; i < 100; i++)
    (void)igraph_rng_get_unif01(igraph_rng_default());
  double *b = layout(g, 421);
  double *c = layout(g, 422);
  g_assert_cmpmem(a, 2 * n * sizeof(double), b, 2 * n * sizeof(double));
  g_assert_true(memcmp(a, c, 2 * n * sizeof(double)) != 0);
  g_free(a);
  g_free(b);
  g_free(c);
  topo_graph_free(g);
}

/* n rows of finite values, no two nodes on the same spot, and the shape a
 * force-directed layout must give: neighbours closer than non-neighbours on
 * average, a star's hub nearest the centre of mass. */
static void test_shape(void) {
  const char *specs[] = {"ring:n=20",
                         "star:n=9",
                         "karate",
                         "grid:rows=5,cols=6",
                         "erdos:n=300,p=0.02,seed=3",
                         "erdos:n=40,p=0.03,seed=1",
                         "erdos:n=700,p=0.01,seed=2"};
  for (gsize s = 0; s < G_N_ELEMENTS(specs); s++) {
    TopoGraph *g = gen(specs[s]);
    guint n = topo_graph_n_nodes(g);
    double *xy = layout(g, 1);
    double adj = 0, non = 0;
    guint n_adj = 0, n_non = 0;
    for (guint u = 0; u < n; u++) {
      g_assert_true(isfinite(xy[2 * u]) && isfinite(xy[2 * u + 1]));
      for (guint v = u + 1; v < n; v++) {
        double d = dist(xy, u, v);
        g_assert_cmpfloat(d, >, 0.0);
        if (topo_graph_has_edge(g, u, v)) {
          adj += d;
          n_adj++;
        } else {
          non += d;
          n_non++;
        }
      }
    }
    if (adj / n_adj >= non / n_non)
      g_error("%s: mean edge length %g not below mean non-edge distance %g", specs[s], adj / n_adj,
              non / n_non);
    if (strcmp(specs[s], "star:n=9") == 0) {
      double cx = 0, cy = 0;
      for (guint u = 0; u < n; u++) {
        cx += xy[2 * u] / n;
        cy += xy[2 * u + 1] / n;
      }
      for (guint u = 1; u < n; u++)
        g_assert_cmpfloat(hypot(xy[0] - cx, xy[1] - cy), <,
                          hypot(xy[2 * u] - cx, xy[2 * u + 1] - cy));
    }
    g_free(xy);
    topo_graph_free(g);
  }
}

/* The 148-node Facebook ego network (three communities, one loosely tied):
 * the drawing fitted to its bounding box must spread the nodes. Under
 * Fruchterman-Reingold (seed 421, the viewer's) only 35 of the 148 nodes had
 * their nearest neighbour at >= 2.5% of the drawing's extent (a community
 * pushed far out, the others squashed); Kamada-Kawai gives 105. */
static void test_spread(void) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  char *path = g_build_filename(dir, "graphs", "facebook-ego-414-lcc.edges", NULL);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load(path, TRUE, &error);
  g_assert_no_error(error);
  guint n = topo_graph_n_nodes(g);
  g_assert_cmpuint(n, ==, 148);
  double *xy = layout(g, 421);
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (guint u = 0; u < n; u++) {
    x0 = MIN(x0, xy[2 * u]), x1 = MAX(x1, xy[2 * u]);
    y0 = MIN(y0, xy[2 * u + 1]), y1 = MAX(y1, xy[2 * u + 1]);
  }
  double extent = MAX(x1 - x0, y1 - y0);
  double *nn = g_new(double, n);
  for (guint u = 0; u < n; u++) {
    nn[u] = INFINITY;
    for (guint v = 0; v < n; v++)
      if (v != u)
        nn[u] = MIN(nn[u], dist(xy, u, v) / extent);
  }
  /* the median by counting: at least half the nodes have room around them */
  guint far = 0;
  for (guint u = 0; u < n; u++)
    far += nn[u] >= 0.025;
  if (far < n / 2)
    g_error("ego network squashed: only %u of %u nodes have their nearest neighbour at >= "
            "2.5%% of the drawing's extent",
            far, n);
  g_free(nn);
  g_free(xy);
  topo_graph_free(g);
  g_free(path);
}

/* Layouts from several threads at once equal the serial ones (the module's
 * igraph lock serializes use of igraph's global RNG). */
static gpointer thread_layout(gpointer data) {
  return topo_graph_layout(data, 5, NULL);
}

static void test_threads(void) {
  TopoGraph *g = gen("karate");
  gsize bytes = 2 * topo_graph_n_nodes(g) * sizeof(double);
  double *serial = layout(g, 5);
  GThread *t[4];
  for (int i = 0; i < 4; i++)
    t[i] = g_thread_new("layout", thread_layout, g);
  for (int i = 0; i < 4; i++) {
    double *xy = g_thread_join(t[i]);
    g_assert_nonnull(xy);
    g_assert_cmpmem(serial, bytes, xy, bytes);
    g_free(xy);
  }
  g_free(serial);
  topo_graph_free(g);
}

static void test_errors(void) {
  GError *error = NULL;
  g_assert_null(topo_graph_layout(NULL, 1, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
  g_error_free(error);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/topo/layout/determinism", test_determinism);
  g_test_add_func("/topo/layout/shape", test_shape);
  g_test_add_func("/topo/layout/threads", test_threads);
  g_test_add_func("/topo/layout/spread", test_spread);
  g_test_add_func("/topo/layout/errors", test_errors);
  return g_test_run();
}
