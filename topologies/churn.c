/*
 * topologies/churn.c: churn files, "node leave_round [join_round]" per line.
 */
#include <string.h>

#include "topologies/internal.h"

static gboolean parse_round(const char *path, gsize line, const char *what, const char *tok,
                            guint *out, GError **error) {
  guint64 v;
  if (!g_ascii_string_to_unsigned(tok, 10, 0, G_MAXUINT - 1, &v, NULL))
    return spec_error_token(error, TOPO_ERROR, TOPO_ERROR_FILE, path, line, what, tok, -1,
                            " is not a non-negative integer below %u", G_MAXUINT);
  *out = (guint)v;
  return TRUE;
}

/* The node a churn file's first token names: its label when @g has a
 * label table (the file speaks the graph file's language), else its id. */
static gboolean parse_node(const char *path, gsize line, const TopoGraph *g, const char *tok,
                           guint *out, GError **error) {
  guint n = topo_graph_n_nodes(g);
  if (topo_graph_has_labels(g)) {
    if (topo_graph_node_find(g, tok, out))
      return TRUE;
    return spec_error_token(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, path, line, "node", tok,
                            -1,
                            " is not in the graph (its nodes go by the labels of its file, "
                            "such as %s)",
                            topo_graph_node_label(g, 0));
  }
  if (!parse_round(path, line, "node", tok, out, error))
    return FALSE;
  if (*out >= n)
    return spec_error_at(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, path, line,
                         "node %u is not in the graph (nodes 0..%u)", *out, n - 1);
  return TRUE;
}

GArray *topo_churn_load(const char *path, const TopoGraph *g, GError **error) {
  char *text = NULL;
  GError *local = NULL;
  /* Plain or gzip, as every other reader of a file the user names (a
   * gzipped churn file read raw was "only one token", issue 37). */
  if (!spec_file_read_text(path, &text, NULL, &local)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_IO, "cannot read churn file: %s", local->message);
    g_error_free(local);
    return NULL;
  }
  GArray *out = g_array_new(FALSE, FALSE, sizeof(TopoChurnInterval));
  char **lines = g_strsplit(text, "\n", -1);
  g_free(text);
  gboolean ok = TRUE;
  for (gsize i = 0; ok && lines[i] != NULL; i++) {
    gsize line = i + 1;
    char *hash = strchr(lines[i], '#');
    if (hash != NULL)
      *hash = '\0';
    char **tok = g_strsplit_set(g_strstrip(lines[i]), " \t\r", -1);
    guint nt = 0;
    char *t[4] = {NULL};
    for (char **p = tok; *p != NULL; p++)
      if (**p != '\0') {
        if (nt < 4)
          t[nt] = *p;
        nt++;
      }
    if (nt == 1) {
      ok = spec_error_token(error, TOPO_ERROR, TOPO_ERROR_FILE, path, line, "only one token", t[0],
                            -1, ", expected 'node leave_round [join_round]'");
    } else if (nt > 3) {
      spec_error_at(error, TOPO_ERROR, TOPO_ERROR_FILE, path, line,
                    "%u tokens, expected 'node leave_round [join_round]'", nt);
      ok = FALSE;
    } else if (nt >= 2) {
      TopoChurnInterval iv = {0, 0, G_MAXUINT};
      ok = parse_node(path, line, g, t[0], &iv.node, error) &&
           parse_round(path, line, "leave round", t[1], &iv.leave, error) &&
           (nt == 2 || strcmp(t[2], "-") == 0 ||
            parse_round(path, line, "join round", t[2], &iv.join, error));
      if (ok && iv.join <= iv.leave) {
        spec_error_at(error, TOPO_ERROR, TOPO_ERROR_FILE, path, line,
                      "join round %u is not after leave round %u", iv.join, iv.leave);
        ok = FALSE;
      }
      if (ok)
        g_array_append_val(out, iv);
    }
    g_strfreev(tok);
  }
  g_strfreev(lines);
  if (!ok) {
    g_array_unref(out);
    return NULL;
  }
  return out;
}
