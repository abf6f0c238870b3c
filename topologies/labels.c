/*
 * topologies/labels.c: node labels, the one home of the mapping between
 * the names users give their nodes (a graph file's labels) and the ids
 * 0..n-1 the simulator computes with (topologies.h, "Node labels").
 */
#include <string.h>

#include "topologies/internal.h"

gboolean topo_graph_take_labels(TopoGraph *g, char **labels, GError **error) {
  GHashTable *by = g_hash_table_new(g_str_hash, g_str_equal);
  guint n = labels ? g_strv_length(labels) : 0;
  gboolean ok = n == g->n;
  if (!ok)
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "%u node labels for a graph of %u nodes", n, g->n);
  for (guint u = 0; ok && u < n; u++) {
    if (labels[u][0] == '\0') {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "node %u has an empty label", u);
      ok = FALSE;
    } else if (g_hash_table_contains(by, labels[u])) {
      char *shown = spec_escape(labels[u], -1);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                  "two nodes are labelled '%s': labels must name one node each", shown);
      g_free(shown);
      ok = FALSE;
    } else {
      g_hash_table_insert(by, labels[u], GUINT_TO_POINTER(u + 1));
    }
  }
  if (!ok) {
    g_hash_table_unref(by);
    g_strfreev(labels);
    return FALSE;
  }
  g_strfreev(g->labels);
  if (g->by_label != NULL)
    g_hash_table_unref(g->by_label);
  g->labels = labels;
  g->by_label = by;
  return TRUE;
}

gboolean topo_graph_set_labels(TopoGraph *g, const char *const *labels, GError **error) {
  g_return_val_if_fail(g != NULL, FALSE);
  return topo_graph_take_labels(g, g_strdupv((char **)labels), error);
}

gboolean topo_graph_has_labels(const TopoGraph *g) {
  g_return_val_if_fail(g != NULL, FALSE);
  return g->labels != NULL;
}

const char *topo_graph_node_label(const TopoGraph *g, guint id) {
  g_return_val_if_fail(g != NULL && id < g->n, NULL);
  return g->labels != NULL ? g->labels[id] : NULL;
}

char *topo_graph_node_name(const TopoGraph *g, guint id) {
  const char *label = topo_graph_node_label(g, id);
  return label != NULL ? g_strdup(label) : g_strdup_printf("%u", id);
}

gboolean topo_graph_node_find(const TopoGraph *g, const char *label, guint *id) {
  g_return_val_if_fail(g != NULL && label != NULL && id != NULL, FALSE);
  if (g->by_label != NULL) {
    gpointer v = g_hash_table_lookup(g->by_label, label);
    if (v == NULL)
      return FALSE;
    *id = GPOINTER_TO_UINT(v) - 1;
    return TRUE;
  }
  /* Node u is called u: decimal digits only, no sign or blank. */
  guint64 v = 0;
  if (label[0] == '\0')
    return FALSE;
  for (const char *p = label; *p; p++) {
    if (!g_ascii_isdigit(*p) || v >= g->n)
      return FALSE;
    v = v * 10 + (guint64)(*p - '0');
  }
  if (v >= g->n)
    return FALSE;
  *id = (guint)v;
  return TRUE;
}

gboolean topo_graph_node_find_cb(gconstpointer g, const char *label, guint *id) {
  return topo_graph_node_find(g, label, id);
}

gboolean topo_graph_resolve_attackers(const TopoGraph *g, SpecAttackers *a, const char *graph,
                                      guint flags, GQuark domain, gint code, GError **error) {
  g_return_val_if_fail(a != NULL, FALSE);
  return spec_attackers_resolve(a, g != NULL && g->labels != NULL ? topo_graph_node_find_cb : NULL,
                                g, graph, flags, domain, code, error);
}

char *topo_graph_attackers_label(const TopoGraph *g, const SpecAttackers *a, guint i) {
  if (g == NULL || g->labels == NULL)
    return spec_attackers_label(a, i);
  guint scratch, size;
  const guint *m = spec_attackers_members(a, i, &scratch, &size);
  GString *b = g_string_new(NULL);
  for (guint j = 0; j < size; j++) {
    if (j)
      g_string_append_c(b, '+');
    g_string_append(b, m[j] < g->n ? g->labels[m[j]] : "?");
  }
  return g_string_free(b, FALSE);
}

gboolean topo_graph_node_parse(const TopoGraph *g, const char *text, const char *what,
                               GQuark domain, gint code, guint *id, GError **error) {
  g_return_val_if_fail(g != NULL && text != NULL && id != NULL, FALSE);
  if (topo_graph_node_find(g, text, id))
    return TRUE;
  char *shown = spec_escape(text, -1);
  if (g->labels == NULL)
    g_set_error(error, domain, code, "%s: node '%s' is not in the graph (its %u nodes are 0 to %u)",
                what, shown, g->n, g->n ? g->n - 1 : 0);
  else
    g_set_error(error, domain, code,
                "%s: node '%s' is not in the graph (its nodes go by the labels of its file: "
                "%s, %s%s)",
                what, shown, g->labels[0], g->n > 1 ? g->labels[1] : "", g->n > 2 ? ", ..." : "");
  g_free(shown);
  return FALSE;
}
