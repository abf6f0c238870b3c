/*
 * topologies/summary.c: the graph summary printed by `dpgossip graph`.
 */
#include <math.h>

#include "topologies/internal.h"

int topo_graph_diameter(const TopoGraph *g) {
  g_return_val_if_fail(g != NULL, -1);
  if (g->n == 0 || !topo_graph_is_connected(g))
    return -1;
  igraph_real_t d = 0;
  TopoIgraphGuard guard;
  topo_igraph_guard_begin(&guard);
  igraph_error_t rc = igraph_diameter(&g->graph, &d, NULL, NULL, NULL, NULL, IGRAPH_UNDIRECTED, 0);
  topo_igraph_guard_end(&guard);
  if (rc != IGRAPH_SUCCESS || !isfinite(d))
    return -1;
  return (int)d;
}

/* Bounds of a plain summary: a few seconds each on a laptop core. */
#define SUMMARY_BFS_WORK 4e9            /* n (n + m) for the diameter */
#define SUMMARY_GAP_WORK ((guint64)1e9) /* ARPACK entry operations */

gboolean topo_graph_summary_exact(const TopoGraph *g, TopoGossipKind kind, gboolean exact,
                                  TopoSummary *out, GError **error) {
  if (g == NULL || out == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "topo_graph_summary: graph and output are required");
    return FALSE;
  }
  TopoGossip *w = topo_gossip_new(g, kind, error);
  if (w == NULL)
    return FALSE;
  TopoSummary s = {0};
  s.nodes = g->n;
  s.edges = g->m;
  s.deg_min = G_MAXUINT;
  for (guint u = 0; u < g->n; u++) {
    guint d = topo_graph_degree(g, u);
    s.deg_min = MIN(s.deg_min, d);
    s.deg_max = MAX(s.deg_max, d);
  }
  if (g->n == 0)
    s.deg_min = 0;
  s.deg_mean = g->n > 0 ? 2.0 * g->m / g->n : 0.0;
  s.connected = topo_graph_is_connected(g);
  s.diameter = -1;
  if (s.connected && !exact && (double)g->n * ((double)g->n + g->m) > SUMMARY_BFS_WORK)
    s.diameter_status = TOPO_SUMMARY_SKIPPED_WORK;
  else if (s.connected)
    s.diameter = topo_graph_diameter(g);
  s.spectral_gap = NAN;
  gboolean ok = topo_gossip_gap(w, exact ? TOPO_GAP_EXACT_WORK : SUMMARY_GAP_WORK, &s.spectral_gap,
                                &s.gap_status, error);
  if (ok && s.gap_status != TOPO_SUMMARY_COMPUTED)
    s.spectral_gap = NAN;
  topo_gossip_free(w);
  if (ok)
    *out = s;
  return ok;
}

gboolean topo_graph_summary(const TopoGraph *g, TopoGossipKind kind, TopoSummary *out,
                            GError **error) {
  return topo_graph_summary_exact(g, kind, FALSE, out, error);
}
