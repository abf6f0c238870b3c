/*
 * tests/mf/mf_test.h: the workload Gram matrix of a test graph, which the
 * optimizer tests start from. Header only (static inline).
 */
#ifndef DPG_TESTS_MF_TEST_H
#define DPG_TESTS_MF_TEST_H

#include "mf/mf.h"
#include "tests/common/graphs.h"

/* H of the uniform gossip on the generator spec or data/graphs file
 * @spec_or_file (@is_file), T rounds, workload @wl (g_free). */
static inline double *mf_test_gram(const char *spec_or_file, gboolean is_file, guint T,
                                   MfWorkload wl) {
  TopoGraph *g = is_file ? test_graph_file(spec_or_file) : test_graph(spec_or_file);
  guint n;
  double *W = test_gossip_dense(g, &n);
  topo_graph_free(g);
  GError *err = NULL;
  double *H = mf_gram_static(W, n, T, wl, MF_GRAM_AUTO, 0, &err);
  g_assert_no_error(err);
  g_free(W);
  return H;
}

#endif
