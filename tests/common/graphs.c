/* tests/common/graphs.c: the small graphs the tests share. */
#include "tests/common/graphs.h"

TopoGraph *test_graph(const char *spec) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate(spec, &error);
  g_assert_no_error(error);
  return g;
}

TopoGraph *test_graph_file(const char *name) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  char *path = g_build_filename(dir, "graphs", name, NULL);
  GError *error = NULL;
  TopoGraph *g = topo_graph_load(path, FALSE, &error);
  g_assert_no_error(error);
  g_free(path);
  return g;
}

double *test_gossip_dense(const TopoGraph *g, guint *n) {
  GError *error = NULL;
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &error);
  g_assert_no_error(error);
  *n = topo_gossip_n(w);
  double *W = topo_gossip_dense(w);
  topo_gossip_free(w);
  return W;
}

double *test_dense_gossip(const char *spec, guint *n) {
  TopoGraph *g = test_graph(spec);
  double *W = test_gossip_dense(g, n);
  topo_graph_free(g);
  return W;
}
