/*
 * api/graph.c: graphs from a DpgGraphSpec (a file, a generator spec or an
 * edge list in memory, e.g. from networkx) and dpg_graph, `dpgossip graph`.
 */
#include <igraph.h>

#include "api/internal.h"
#include "sim/json.h"

TopoGraph *dpg_graph_build(const DpgGraphSpec *spec, GError **error) {
  TopoGraphSource src = {.path = spec->path,
                         .generate = spec->generate,
                         .edges = spec->edges,
                         .n_edges = spec->n_edges,
                         .n_nodes = spec->n_nodes,
                         .labels = spec->labels,
                         .lcc = spec->lcc != 0};
  return topo_graph_from_source(&src, error);
}

int dpg_graph_status(const DpgGraphSpec *spec, const GError *e) {
  return proto_error_status(e, spec->path != NULL ? PROTO_FAILED_FILE : PROTO_FAILED_INPUT);
}

gboolean dpg_graph_gossip(const DpgGraphSpec *spec, TopoGossipKind *kind, GError **error) {
  return topo_gossip_kind_parse(spec->gossip != NULL ? spec->gossip : "uniform", kind, error);
}

/* Connected components of @g (igraph's weak components). O(n + m). */
static gint64 n_components(const TopoGraph *g) {
  igraph_integer_t k = 0;
  if (igraph_connected_components(topo_graph_igraph(g), NULL, NULL, &k, IGRAPH_WEAK) !=
      IGRAPH_SUCCESS)
    return G_MININT64;
  return (gint64)k;
}

DpgTable *dpg_graph(const DpgGraphSpec *spec, int exact, DpgError *err) {
  dpg_enter();
  GError *error = NULL;
  TopoGossipKind kind;
  TopoSummary s;
  if (!dpg_graph_gossip(spec, &kind, &error))
    return dpg_fail(err, error, 2);
  TopoGraph *g = dpg_graph_build(spec, &error);
  if (g == NULL)
    return dpg_fail(err, error, dpg_graph_status(spec, error));
  if (!topo_graph_summary_exact(g, kind, exact, &s, &error)) {
    topo_graph_free(g);
    return dpg_fail(err, error, 1);
  }
  DpgTable *t = dpg_table_new();
  dpg_table_push_int(t, dpg_table_add_col(t, "nodes", DPG_COL_INT), s.nodes);
  dpg_table_push_int(t, dpg_table_add_col(t, "edges", DPG_COL_INT), s.edges);
  dpg_table_push_int(t, dpg_table_add_col(t, "degree_min", DPG_COL_INT), s.deg_min);
  dpg_table_push_double(t, dpg_table_add_col(t, "degree_mean", DPG_COL_DOUBLE), s.deg_mean);
  dpg_table_push_int(t, dpg_table_add_col(t, "degree_max", DPG_COL_INT), s.deg_max);
  gboolean diam = s.connected && s.diameter_status == TOPO_SUMMARY_COMPUTED;
  dpg_table_push_int(t, dpg_table_add_col(t, "diameter", DPG_COL_INT),
                     diam ? s.diameter : G_MININT64);
  char *note = s.diameter_status != TOPO_SUMMARY_COMPUTED
                   ? topo_summary_status_note(s.diameter_status)
                   : NULL;
  dpg_table_push_string(t, dpg_table_add_col(t, "diameter_note", DPG_COL_STRING), note);
  g_free(note);
  dpg_table_push_int(t, dpg_table_add_col(t, "connected", DPG_COL_INT), s.connected);
  dpg_table_push_string(t, dpg_table_add_col(t, "gossip", DPG_COL_STRING),
                        topo_gossip_kind_name(kind));
  gint64 components = n_components(g);
  dpg_table_push_int(t, dpg_table_add_col(t, "components", DPG_COL_INT), components);
  /* The command line's rule: a disconnected graph's W has eigenvalue 1 once
   * per component, its gap is exactly 0 whatever the eigensolver's rounding. */
  gboolean gap = s.gap_status == TOPO_SUMMARY_COMPUTED;
  dpg_table_push_double(t, dpg_table_add_col(t, "spectral_gap", DPG_COL_DOUBLE),
                        !s.connected ? 0.0
                        : gap        ? s.spectral_gap
                                     : NAN);
  note = !s.connected ? g_strdup_printf("disconnected: %" G_GINT64_FORMAT " components, gossip "
                                        "never mixes across them; --lcc keeps the largest",
                                        components)
         : gap        ? NULL
                      : topo_summary_status_note(s.gap_status);
  dpg_table_push_string(t, dpg_table_add_col(t, "spectral_gap_note", DPG_COL_STRING), note);
  g_free(note);
  const TopoLoadReport *r = topo_graph_load_report(g);
  dpg_table_push_int(t, dpg_table_add_col(t, "self_loops_dropped", DPG_COL_INT),
                     r ? (gint64)r->self_loops : G_MININT64);
  dpg_table_push_int(t, dpg_table_add_col(t, "duplicate_edges_dropped", DPG_COL_INT),
                     r ? (gint64)r->duplicates : G_MININT64);
  dpg_table_push_int(t, dpg_table_add_col(t, "renumbered", DPG_COL_INT),
                     r ? r->renumbered : G_MININT64);
  dpg_table_end_row(t);
  /* The command's "labels" (node id u is labels[u]), as a JSON array:
   * labels are any text. Only for a graph whose nodes have labels. */
  if (topo_graph_has_labels(g)) {
    GString *j = g_string_new("[");
    for (guint u = 0; u < topo_graph_n_nodes(g); u++) {
      if (u)
        g_string_append_c(j, ',');
      sim_json_append_string(j, topo_graph_node_label(g, u));
    }
    g_string_append_c(j, ']');
    dpg_table_set_attr(t, "labels", j->str);
    g_string_free(j, TRUE);
  }
  topo_graph_free(g);
  return t;
}

unsigned *dpg_graph_edges(const DpgGraphSpec *spec, unsigned *n_nodes, size_t *n_edges,
                          DpgError *err) {
  dpg_enter();
  GError *error = NULL;
  *n_nodes = 0;
  *n_edges = 0;
  TopoGraph *g = dpg_graph_build(spec, &error);
  if (g == NULL)
    return dpg_fail(err, error, dpg_graph_status(spec, error));
  gsize m = 0;
  guint *e = topo_graph_edges(g, &m);
  *n_nodes = topo_graph_n_nodes(g);
  *n_edges = m;
  topo_graph_free(g);
  return e;
}
