/*
 * topologies/source.c: a graph from where a front end's options say it
 * comes from (a file and its format, a generator spec, an edge list in
 * memory, the largest component or all). The command line's --graph,
 * --graph-format, --ignore-weights, --generate and --lcc and the library's
 * DpgGraphSpec both land here, so that both accept the same inputs and
 * say the same things about bad ones.
 */
#include "topologies/topologies.h"
#include "spec/spec.h"

/* Peak bytes per node and per edge of building a graph, the generators'
 * estimate (topologies/generate.c): igraph's vectors and adjacency cache. */
#define SOURCE_BYTES_PER_NODE 64
#define SOURCE_BYTES_PER_EDGE 96

/* An edge list's graph must fit before igraph allocates its n nodes: an
 * allocation failure aborts the process (and a Python interpreter). */
static gboolean check_edges_memory(guint n, gsize m, GError **error) {
  gsize bytes = spec_size_add(spec_size_mul(n, SOURCE_BYTES_PER_NODE),
                              spec_size_mul(m, SOURCE_BYTES_PER_EDGE));
  char *what = g_strdup_printf("a graph of %u nodes and %" G_GSIZE_FORMAT " edges", n, m);
  gboolean ok = spec_check_memory(bytes, what, "give fewer nodes", G_OPTION_ERROR,
                                  G_OPTION_ERROR_BAD_VALUE, error);
  g_free(what);
  return ok;
}

/* The graph file @src->path in the format @src->format names. */
static TopoGraph *load(const TopoGraphSource *src, GError **error) {
  TopoGraphFormat format = TOPO_FORMAT_AUTO;
  if (src->format != NULL && !topo_graph_format_parse(src->format, &format, NULL)) {
    const char *const formats[] = {"auto", "edges", "csv", "graphml", "gml", "pajek"};
    char *hint = spec_did_you_mean(src->format, formats, G_N_ELEMENTS(formats));
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--graph-format: unknown format '%s' (valid: auto, edges, csv, graphml, gml, "
                "pajek)%s",
                src->format, hint);
    g_free(hint);
    return NULL;
  }
  return topo_graph_load_format(src->path, format, src->lcc, src->ignore_weights, error);
}

TopoGraph *topo_graph_from_source(const TopoGraphSource *src, GError **error) {
  guint given = (src->path != NULL) + (src->generate != NULL) + (src->edges != NULL);
  if (given != 1) {
    /* The command line's words: the library's edge list is a third way. */
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "give exactly one of --graph FILE or --generate SPEC");
    return NULL;
  }
  if (src->path != NULL)
    return load(src, error);
  TopoGraph *g = NULL;
  if (src->generate != NULL) {
    g = topo_graph_generate(src->generate, error);
  } else {
    guint n = src->n_nodes;
    if (n == 0)
      for (gsize i = 0; i < 2 * src->n_edges; i++)
        n = MAX(n, src->edges[i] + 1);
    if (!check_edges_memory(n, src->n_edges, error))
      return NULL;
    g = topo_graph_new_from_edges(n, src->edges, src->n_edges, error);
    if (g != NULL && src->labels != NULL) {
      char **labels = g_new0(char *, (gsize)n + 1);
      for (guint u = 0; u < n; u++)
        labels[u] = g_strdup(src->labels[u] != NULL ? src->labels[u] : "");
      gboolean ok = topo_graph_set_labels(g, (const char *const *)labels, error);
      g_strfreev(labels);
      if (!ok) {
        g_prefix_error(error, "graph labels: ");
        g_clear_pointer(&g, topo_graph_free);
      }
    }
  }
  if (g != NULL && src->lcc) {
    TopoGraph *l = topo_graph_largest_component(g, error); /* keeps the labels */
    topo_graph_free(g);
    g = l;
  }
  return g;
}
