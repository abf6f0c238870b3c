/*
 * topologies/layout.c: node positions for viewers (the event stream's run
 * start, docs/events.md). Fruchterman-Reingold from igraph, driven by a
 * private RNG seeded by the caller, so the same graph and seed are always
 * drawn the same way whatever else igraph did before.
 */
#include <math.h>

#include "topologies/internal.h"

double *topo_graph_layout(const TopoGraph *g, guint64 seed, GError **error) {
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (g == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "layout: no graph");
    return NULL;
  }
  igraph_integer_t n = g->n;
  igraph_rng_t rng;
  igraph_matrix_t xy;
  TopoIgraphGuard guard;
  /* One guard around everything: the default RNG is process-global, and the
   * lock keeps other threads' igraph calls off our swapped-in generator. */
  topo_igraph_guard_begin(&guard);
  igraph_error_t rc = igraph_rng_init(&rng, &igraph_rngtype_pcg64);
  if (rc != IGRAPH_SUCCESS) {
    topo_igraph_guard_end(&guard);
    topo_set_igraph_error(error, "initialising the layout's RNG", rc);
    return NULL;
  }
  gboolean have_xy = FALSE;
  rc = igraph_rng_seed(&rng, seed);
  if (rc == IGRAPH_SUCCESS) {
    rc = igraph_matrix_init(&xy, n, 2);
    have_xy = rc == IGRAPH_SUCCESS;
  }
  if (rc == IGRAPH_SUCCESS) {
    igraph_rng_t saved = *igraph_rng_default();
    igraph_rng_set_default(&rng);
    /* Fewer iterations on large graphs: a viewer's layout, not a figure;
     * start temperature sqrt(n) is igraph's own default. */
    rc = igraph_layout_fruchterman_reingold(&g->graph, &xy, 0, n > 2000 ? 150 : 500,
                                            sqrt((double)n), IGRAPH_LAYOUT_AUTOGRID, NULL,
                                            NULL, NULL, NULL, NULL);
    igraph_rng_set_default(&saved);
  }
  igraph_rng_destroy(&rng);
  double *out = NULL;
  if (rc == IGRAPH_SUCCESS) {
    out = g_new(double, 2 * (gsize)n);
    for (igraph_integer_t u = 0; u < n; u++) {
      out[2 * u] = MATRIX(xy, u, 0);
      out[2 * u + 1] = MATRIX(xy, u, 1);
    }
  }
  if (have_xy)
    igraph_matrix_destroy(&xy);
  topo_igraph_guard_end(&guard);
  if (rc != IGRAPH_SUCCESS)
    topo_set_igraph_error(error, "computing a Fruchterman-Reingold layout", rc);
  return out;
}
