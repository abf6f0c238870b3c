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

#endif
