/*
 * topologies/graph.c: TopoGraph construction, accessors and edge output.
 *
 * Every graph goes through topo_graph_build, which canonicalises the edge
 * list (u < v, sorted, no loops or duplicates) before handing it to igraph:
 * igraph's edge ids, and everything derived from them, then depend only on
 * the edge set, never on how the graph was produced.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topologies/internal.h"

static GRecMutex igraph_lock;

void topo_igraph_guard_begin(TopoIgraphGuard *guard) {
  g_rec_mutex_lock(&igraph_lock);
  guard->err = igraph_set_error_handler(igraph_error_handler_ignore);
  guard->warn = igraph_set_warning_handler(igraph_warning_handler_ignore);
}

void topo_igraph_guard_end(TopoIgraphGuard *guard) {
  igraph_set_error_handler(guard->err);
  igraph_set_warning_handler(guard->warn);
  g_rec_mutex_unlock(&igraph_lock);
}

void topo_set_igraph_error(GError **error, const char *what, igraph_error_t code) {
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_FAILED, "igraph failed while %s: %s", what,
              igraph_strerror(code));
}

static int cmp_u64(const void *a, const void *b) {
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return (x > y) - (x < y);
}

TopoGraph *topo_graph_build(guint n, const guint *edges, gsize m, GError **error) {
  guint64 *keys = g_new(guint64, m > 0 ? m : 1);
  gsize k = 0;
  for (gsize i = 0; i < m; i++) {
    guint u = edges[2 * i], v = edges[2 * i + 1];
    if (u == v)
      continue;
    if (u > v) {
      guint t = u;
      u = v;
      v = t;
    }
    keys[k++] = ((guint64)u << 32) | v;
  }
  qsort(keys, k, sizeof *keys, cmp_u64);
  gsize mm = 0;
  for (gsize i = 0; i < k; i++)
    if (mm == 0 || keys[mm - 1] != keys[i])
      keys[mm++] = keys[i];

  TopoGraph *g = g_new0(TopoGraph, 1);
  g->n = n;
  g->m = (guint)mm;
  g->adj_ptr = g_new0(guint, (gsize)n + 1);
  g->adj = g_new(guint, 2 * mm + 1);
  for (gsize i = 0; i < mm; i++) {
    g->adj_ptr[(keys[i] >> 32) + 1]++;
    g->adj_ptr[(keys[i] & 0xffffffffu) + 1]++;
  }
  for (guint u = 0; u < n; u++)
    g->adj_ptr[u + 1] += g->adj_ptr[u];
  /* Each list must come out sorted: with keys sorted by (u, v), a first pass
   * appending u to v's list gives every node its smaller neighbours in
   * increasing order, a second pass appending v to u's list then adds the
   * larger ones, also increasing. */
  guint *fill = g_memdup2(g->adj_ptr, sizeof(guint) * ((gsize)n + 1));
  for (gsize i = 0; i < mm; i++) { /* pass 1: smaller neighbours, increasing */
    guint u = (guint)(keys[i] >> 32), v = (guint)(keys[i] & 0xffffffffu);
    g->adj[fill[v]++] = u;
  }
  for (gsize i = 0; i < mm; i++) { /* pass 2: larger neighbours, increasing */
    guint u = (guint)(keys[i] >> 32), v = (guint)(keys[i] & 0xffffffffu);
    g->adj[fill[u]++] = v;
  }
  g_free(fill);

  igraph_vector_int_t ev;
  TopoIgraphGuard guard;
  topo_igraph_guard_begin(&guard);
  igraph_error_t rc = igraph_vector_int_init(&ev, (igraph_integer_t)(2 * mm));
  if (rc == IGRAPH_SUCCESS) {
    for (gsize i = 0; i < mm; i++) {
      VECTOR(ev)[2 * i] = (igraph_integer_t)(keys[i] >> 32);
      VECTOR(ev)[2 * i + 1] = (igraph_integer_t)(keys[i] & 0xffffffffu);
    }
    rc = igraph_create(&g->graph, &ev, (igraph_integer_t)n, IGRAPH_UNDIRECTED);
    igraph_vector_int_destroy(&ev);
  }
  topo_igraph_guard_end(&guard);
  g_free(keys);
  if (rc != IGRAPH_SUCCESS) {
    topo_set_igraph_error(error, "creating a graph", rc);
    g_free(g->adj_ptr);
    g_free(g->adj);
    g_free(g);
    return NULL;
  }
  return g;
}

TopoGraph *topo_graph_new_from_edges(guint n, const guint *edges, gsize n_edges, GError **error) {
  if (n == 0 || n > G_MAXUINT / 2) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "a graph needs between 1 and %u nodes, not %u", G_MAXUINT / 2, n);
    return NULL;
  }
  if (n_edges > 0 && edges == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "edges is NULL");
    return NULL;
  }
  for (gsize i = 0; i < 2 * n_edges; i++) {
    if (edges[i] >= n) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                  "edge %" G_GSIZE_FORMAT " has endpoint %u, outside 0..%u", i / 2, edges[i],
                  n - 1);
      return NULL;
    }
  }
  return topo_graph_build(n, edges, n_edges, error);
}

TopoGraph *topo_graph_from_igraph(igraph_t *ig, GError **error) {
  if (ig == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "igraph graph is NULL");
    return NULL;
  }
  igraph_integer_t n = igraph_vcount(ig);
  igraph_integer_t m = igraph_ecount(ig);
  if (n > (igraph_integer_t)(G_MAXUINT / 2)) {
    igraph_destroy(ig);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "graph has %" IGRAPH_PRId " nodes, more than %u", n, G_MAXUINT / 2);
    return NULL;
  }
  guint *edges = g_new(guint, 2 * (gsize)m + 1);
  igraph_vector_int_t ev;
  TopoIgraphGuard guard;
  topo_igraph_guard_begin(&guard);
  igraph_error_t rc = igraph_vector_int_init(&ev, 0);
  if (rc == IGRAPH_SUCCESS) {
    rc = igraph_get_edgelist(ig, &ev, 0);
    if (rc == IGRAPH_SUCCESS)
      for (igraph_integer_t i = 0; i < 2 * m; i++)
        edges[i] = (guint)VECTOR(ev)[i];
    igraph_vector_int_destroy(&ev);
  }
  topo_igraph_guard_end(&guard);
  igraph_destroy(ig);
  TopoGraph *g = NULL;
  if (rc != IGRAPH_SUCCESS)
    topo_set_igraph_error(error, "reading an edge list", rc);
  else if (n == 0)
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "graph has no node");
  else
    g = topo_graph_build((guint)n, edges, (gsize)m, error);
  g_free(edges);
  return g;
}

TopoGraph *topo_graph_copy(const TopoGraph *g, GError **error) {
  g_return_val_if_fail(g != NULL, NULL);
  gsize m;
  guint *edges = topo_graph_edges(g, &m);
  TopoGraph *c = topo_graph_build(g->n, edges, m, error);
  g_free(edges);
  if (c != NULL && g->labels != NULL && !topo_graph_take_labels(c, g_strdupv(g->labels), error)) {
    topo_graph_free(c);
    return NULL;
  }
  return c;
}

void topo_graph_free(TopoGraph *g) {
  if (g == NULL)
    return;
  igraph_destroy(&g->graph);
  g_free(g->adj_ptr);
  g_free(g->adj);
  g_strfreev(g->labels);
  if (g->by_label != NULL)
    g_hash_table_unref(g->by_label);
  g_free(g);
}

guint topo_graph_n_nodes(const TopoGraph *g) {
  g_return_val_if_fail(g != NULL, 0);
  return g->n;
}

guint topo_graph_n_edges(const TopoGraph *g) {
  g_return_val_if_fail(g != NULL, 0);
  return g->m;
}

const igraph_t *topo_graph_igraph(const TopoGraph *g) {
  g_return_val_if_fail(g != NULL, NULL);
  return &g->graph;
}

guint topo_graph_degree(const TopoGraph *g, guint u) {
  g_return_val_if_fail(g != NULL && u < g->n, 0);
  return g->adj_ptr[u + 1] - g->adj_ptr[u];
}

const guint *topo_graph_neighbors(const TopoGraph *g, guint u, guint *n_out) {
  g_return_val_if_fail(g != NULL && u < g->n && n_out != NULL, NULL);
  *n_out = g->adj_ptr[u + 1] - g->adj_ptr[u];
  return g->adj + g->adj_ptr[u];
}

gboolean topo_graph_has_edge(const TopoGraph *g, guint u, guint v) {
  g_return_val_if_fail(g != NULL, FALSE);
  if (u >= g->n || v >= g->n || u == v)
    return FALSE;
  guint lo = (guint)sim_sorted_search(g->adj, g->adj_ptr[u], g->adj_ptr[u + 1], v);
  return lo < g->adj_ptr[u + 1] && g->adj[lo] == v;
}

guint *topo_graph_edges(const TopoGraph *g, gsize *n_edges) {
  g_return_val_if_fail(g != NULL && n_edges != NULL, NULL);
  *n_edges = g->m;
  if (g->m == 0)
    return NULL;
  guint *out = g_new(guint, 2 * (gsize)g->m);
  gsize k = 0;
  for (guint u = 0; u < g->n; u++)
    for (guint i = g->adj_ptr[u]; i < g->adj_ptr[u + 1]; i++)
      if (g->adj[i] > u) {
        out[k++] = u;
        out[k++] = g->adj[i];
      }
  return out;
}

gboolean topo_graph_is_connected(const TopoGraph *g) {
  g_return_val_if_fail(g != NULL, FALSE);
  if (g->n == 0)
    return FALSE;
  /* A BFS on the adjacency cache: cheaper than igraph and cannot fail. */
  guint *queue = g_new(guint, g->n);
  guint8 *seen = g_new0(guint8, g->n);
  guint head = 0, tail = 0;
  queue[tail++] = 0;
  seen[0] = 1;
  while (head < tail) {
    guint u = queue[head++];
    for (guint i = g->adj_ptr[u]; i < g->adj_ptr[u + 1]; i++)
      if (!seen[g->adj[i]]) {
        seen[g->adj[i]] = 1;
        queue[tail++] = g->adj[i];
      }
  }
  g_free(queue);
  g_free(seen);
  return tail == g->n;
}

guint *topo_graph_hops(const TopoGraph *g, const guint *sources, guint k, guint max_hops) {
  g_return_val_if_fail(g != NULL && (sources != NULL || k == 0), NULL);
  for (guint i = 0; i < k; i++)
    g_return_val_if_fail(sources[i] < g->n, NULL);
  guint *dist = g_new(guint, g->n), *queue = g_new(guint, g->n);
  guint head = 0, tail = 0;
  memset(dist, 0xff, sizeof(guint) * g->n);
  for (guint i = 0; i < k; i++)
    if (dist[sources[i]] != 0) {
      dist[sources[i]] = 0;
      queue[tail++] = sources[i];
    }
  while (head < tail) {
    guint u = queue[head++];
    if (dist[u] >= max_hops)
      continue;
    for (guint i = g->adj_ptr[u]; i < g->adj_ptr[u + 1]; i++)
      if (dist[g->adj[i]] == G_MAXUINT) {
        dist[g->adj[i]] = dist[u] + 1;
        queue[tail++] = g->adj[i];
      }
  }
  g_free(queue);
  return dist;
}

TopoGraph *topo_graph_largest_component(const TopoGraph *g, GError **error) {
  return topo_graph_largest_component_map(g, NULL, error);
}

TopoGraph *topo_graph_largest_component_map(const TopoGraph *g, guint **old_of, GError **error) {
  g_return_val_if_fail(g != NULL, NULL);
  /* Label components by BFS from the smallest unlabelled node, so component
   * ids increase with their smallest node: the first largest one wins ties. */
  guint *comp = g_new(guint, g->n);
  guint *queue = g_new(guint, g->n);
  for (guint u = 0; u < g->n; u++)
    comp[u] = G_MAXUINT;
  guint best = 0, best_size = 0, nc = 0;
  for (guint s = 0; s < g->n; s++) {
    if (comp[s] != G_MAXUINT)
      continue;
    guint head = 0, tail = 0;
    queue[tail++] = s;
    comp[s] = nc;
    while (head < tail) {
      guint u = queue[head++];
      for (guint i = g->adj_ptr[u]; i < g->adj_ptr[u + 1]; i++)
        if (comp[g->adj[i]] == G_MAXUINT) {
          comp[g->adj[i]] = nc;
          queue[tail++] = g->adj[i];
        }
    }
    if (tail > best_size) {
      best_size = tail;
      best = nc;
    }
    nc++;
  }
  /* Increasing old index keeps the relative order of first appearance. */
  guint *newid = queue;
  guint k = 0;
  for (guint u = 0; u < g->n; u++)
    newid[u] = comp[u] == best ? k++ : G_MAXUINT;
  guint *edges = g_new(guint, 2 * (gsize)g->m + 1);
  gsize m = 0;
  for (guint u = 0; u < g->n; u++) {
    if (comp[u] != best)
      continue;
    for (guint i = g->adj_ptr[u]; i < g->adj_ptr[u + 1]; i++)
      if (g->adj[i] > u) {
        edges[2 * m] = newid[u];
        edges[2 * m + 1] = newid[g->adj[i]];
        m++;
      }
  }
  TopoGraph *out = topo_graph_build(k, edges, m, error);
  if (out != NULL && g->labels != NULL) {
    /* The kept nodes keep their names. */
    char **labels = g_new0(char *, (gsize)k + 1);
    for (guint u = 0; u < g->n; u++)
      if (newid[u] != G_MAXUINT)
        labels[newid[u]] = g_strdup(g->labels[u]);
    if (!topo_graph_take_labels(out, labels, error))
      g_clear_pointer(&out, topo_graph_free);
  }
  if (out != NULL && old_of != NULL) {
    *old_of = g_new(guint, k + 1);
    for (guint u = 0; u < g->n; u++)
      if (newid[u] != G_MAXUINT)
        (*old_of)[newid[u]] = u;
  }
  g_free(edges);
  g_free(comp);
  g_free(queue);
  return out;
}

gboolean topo_graph_write_edges(const TopoGraph *g, const char *path, GError **error) {
  if (g == NULL || path == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "topo_graph_write_edges: graph and path are required");
    return FALSE;
  }
  GString *s = g_string_sized_new(16 * (gsize)g->m + 1);
  for (guint u = 0; u < g->n; u++)
    for (guint i = g->adj_ptr[u]; i < g->adj_ptr[u + 1]; i++)
      if (g->adj[i] > u)
        g_string_append_printf(s, "%u %u\n", u, g->adj[i]);
  GError *local = NULL;
  gboolean ok = g_file_set_contents(path, s->str, (gssize)s->len, &local);
  g_string_free(s, TRUE);
  if (!ok) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_IO, "cannot write edge list %s: %s", path,
                local->message);
    g_error_free(local);
  }
  return ok;
}
