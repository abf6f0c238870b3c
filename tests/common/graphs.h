/*
 * tests/common/graphs.h: the small graphs the tests share and their uniform
 * gossip matrices, as dense row-major n x n arrays.
 */
#ifndef DPG_TESTS_COMMON_GRAPHS_H
#define DPG_TESTS_COMMON_GRAPHS_H

#include "topologies/topologies.h"

/* The graph of a generator spec ("florentine", "ring:n=8", ...); the test
 * fails on an error. topo_graph_free it. */
TopoGraph *test_graph(const char *spec);

/* The graph of file @name in the vendored data/graphs ($DPG_DATA_DIR). */
TopoGraph *test_graph_file(const char *name);

/* The uniform gossip matrix of @g as a dense n x n array (g_free); *@n
 * receives n. */
double *test_gossip_dense(const TopoGraph *g, guint *n);

/* test_gossip_dense of test_graph(@spec). */
double *test_dense_gossip(const char *spec, guint *n);

#endif
