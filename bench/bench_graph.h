/*
 * bench/bench_graph.h: a benchmark's graph as the dense uniform gossip
 * matrix the MF design takes. Header only (static inline), as
 * bench_common.h.
 */
#ifndef DPG_BENCH_GRAPH_H
#define DPG_BENCH_GRAPH_H

#include "topologies/topologies.h"

/* The uniform gossip of @g as a dense n x n array (g_free), *@n = n; @g is
 * freed. NULL with @error set when the gossip cannot be built. O(n^2). */
static inline double *bench_dense_gossip(TopoGraph *g, guint *n, GError **error) {
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, error);
  *n = topo_graph_n_nodes(g);
  topo_graph_free(g);
  if (w == NULL)
    return NULL;
  double *W = topo_gossip_dense(w);
  topo_gossip_free(w);
  return W;
}

/* The dense uniform gossip of the graph in @file, or of the one @spec
 * generates when @file is NULL; *@n its nodes. NULL with @error set when
 * the graph or its gossip cannot be had. */
static inline double *bench_load_gossip(const char *file, const char *spec, guint *n,
                                        GError **error) {
  TopoGraph *g = file ? topo_graph_load(file, TRUE, error) : topo_graph_generate(spec, error);
  return g ? bench_dense_gossip(g, n, error) : NULL;
}

#endif
