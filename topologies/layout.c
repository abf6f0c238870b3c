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
    if (n >= 3 && n <= TOPO_LAYOUT_KK_MAX) {
      /* Kamada-Kawai places nodes at their graph distances: on graphs with
       * communities (an ego network) Fruchterman-Reingold pushes a loosely
       * tied community far out and the fitted drawing squashes the rest.
       * Its start is random from the seed (else every seed draws the same),
       * maxiter 50 n and kkconst n are igraph's documented defaults. */
      for (igraph_integer_t u = 0; u < n; u++) {
        MATRIX(xy, u, 0) = igraph_rng_get_unif(&rng, 0, sqrt((double)n));
        MATRIX(xy, u, 1) = igraph_rng_get_unif(&rng, 0, sqrt((double)n));
      }
      rc = igraph_layout_kamada_kawai(&g->graph, &xy, 1, 50 * n, 0, (igraph_real_t)n, NULL, NULL,
                                      NULL, NULL, NULL);
    } else {
      /* Fewer iterations on large graphs: a viewer's layout, not a figure;
       * start temperature sqrt(n) is igraph's own default. */
      rc = igraph_layout_fruchterman_reingold(&g->graph, &xy, 0, n > 2000 ? 150 : 500,
                                              sqrt((double)n), IGRAPH_LAYOUT_AUTOGRID, NULL, NULL,
                                              NULL, NULL, NULL);
    }
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
    topo_set_igraph_error(error, "computing a graph layout", rc);
  return out;
}
