/*
 * topologies/load.c: SNAP-style edge-list loader.
 *
 * Nodes labelled exactly 0..n-1 keep their labels; any other labelling is
 * renumbered by first appearance so that a file's numbering is reproducible
 * without a separate node list; the reference figures of the paper use
 * exactly that numbering (facebook-ego-414-lcc.edges from the raw SNAP file).
 */
#include <string.h>

#include "topologies/internal.h"

static gboolean is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parse one token [s, s+len) as a label; FALSE with a message on failure. */
static gboolean parse_label(const char *path, gsize line, const char *s, gsize len,
                            guint64 *out, GError **error) {
  guint64 v = 0;
  for (gsize i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') {
      char *shown = spec_escape(s, (gssize)MIN(len, 64)); /* file bytes: no raw escapes */
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                  "%s:%" G_GSIZE_FORMAT ": node label '%s' is not a non-negative integer",
                  path, line, shown);
      g_free(shown);
      return FALSE;
    }
    guint d = (guint)(s[i] - '0');
    if (v > (G_MAXUINT64 - d) / 10) {
      char *shown = spec_escape(s, (gssize)MIN(len, 64));
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                  "%s:%" G_GSIZE_FORMAT ": node label '%s' is larger than 2^64-1", path, line,
                  shown);
      g_free(shown);
      return FALSE;
    }
    v = v * 10 + d;
  }
  *out = v;
  return TRUE;
}

/* The dense id of label, assigning the next one on first sight. */
static gboolean intern_label(GHashTable *ids, guint64 label, guint *next, guint *out,
                             const char *path, gsize line, GError **error) {
  gpointer val;
  if (g_hash_table_lookup_extended(ids, &label, NULL, &val)) {
    *out = GPOINTER_TO_UINT(val);
    return TRUE;
  }
  if (*next >= G_MAXUINT / 2) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "%s:%" G_GSIZE_FORMAT ": too many nodes",
                path, line);
    return FALSE;
  }
  guint64 *key = g_new(guint64, 1);
  *key = label;
  g_hash_table_insert(ids, key, GUINT_TO_POINTER(*next));
  *out = (*next)++;
  return TRUE;
}

/*
 * A file whose labels are exactly 0..n-1 already names its nodes the way the
 * user (and the paper's reference figures: florentine.edges) refer to them, so
 * those names are kept; any other labelling is renumbered by first appearance.
 */
static gboolean keep_dense_labels(GHashTable *ids, guint n, GArray *edges) {
  guint *label_of = g_new(guint, n);
  GHashTableIter it;
  gpointer key, val;
  g_hash_table_iter_init(&it, ids);
  while (g_hash_table_iter_next(&it, &key, &val)) {
    guint64 label = *(const guint64 *)key;
    if (label >= n) {
      g_free(label_of);
      return FALSE;
    }
    label_of[GPOINTER_TO_UINT(val)] = (guint)label;
  }
  /* n distinct labels all below n: a permutation of 0..n-1. */
  guint *e = (guint *)(void *)edges->data;
  for (guint i = 0; i < edges->len; i++)
    e[i] = label_of[e[i]];
  g_free(label_of);
  return TRUE;
}

const TopoLoadReport *topo_graph_load_report(const TopoGraph *g) {
  g_return_val_if_fail(g != NULL, NULL);
  return g->loaded ? &g->load : NULL;
}

TopoGraph *topo_graph_load(const char *path, gboolean lcc, GError **error) {
  if (path == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "edge list path is NULL");
    return NULL;
  }
  char *text = NULL;
  gsize size = 0;
  GError *local = NULL;
  if (!spec_file_read(path, &text, &size, &local)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_IO, "cannot read edge list: %s", local->message);
    g_error_free(local);
    return NULL;
  }
  GHashTable *ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  GArray *edges = g_array_new(FALSE, FALSE, sizeof(guint));
  guint next = 0;
  TopoGraph *g = NULL;
  TopoLoadReport report = {0};
  gsize line = 0;
  const char *p = text, *end = text + size;
  while (p < end) {
    line++;
    const char *eol = memchr(p, '\n', (gsize)(end - p));
    if (eol == NULL)
      eol = end;
    const char *hash = memchr(p, '#', (gsize)(eol - p));
    const char *stop = hash != NULL ? hash : eol;
    const char *tok[3];
    gsize len[3];
    int nt = 0;
    for (const char *q = p; q < stop;) {
      while (q < stop && is_space(*q))
        q++;
      if (q == stop)
        break;
      const char *t = q;
      while (q < stop && !is_space(*q))
        q++;
      if (nt < 3) {
        tok[nt] = t;
        len[nt] = (gsize)(q - t);
      }
      nt++;
    }
    if (nt == 1) {
      char *shown = spec_escape(tok[0], (gssize)MIN(len[0], 64));
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                  "%s:%" G_GSIZE_FORMAT ": only one token '%s', expected two node labels "
                  "'u v'",
                  path, line, shown);
      g_free(shown);
      goto out;
    }
    if (nt >= 3) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                  "%s:%" G_GSIZE_FORMAT ": %d tokens, expected two node labels 'u v' "
                  "(weighted edge lists are not supported)",
                  path, line, nt);
      goto out;
    }
    if (nt == 2) {
      guint64 a, b;
      guint ia, ib;
      if (!parse_label(path, line, tok[0], len[0], &a, error) ||
          !parse_label(path, line, tok[1], len[1], &b, error) ||
          !intern_label(ids, a, &next, &ia, path, line, error) ||
          !intern_label(ids, b, &next, &ib, path, line, error))
        goto out;
      if (ia != ib) {
        g_array_append_val(edges, ia);
        g_array_append_val(edges, ib);
      } else {
        report.self_loops++;
      }
    }
    p = eol + 1;
  }
  if (edges->len == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_EMPTY,
                "%s: no edge (only comments, blank lines or self-loops)", path);
    goto out;
  }
  report.renumbered = !keep_dense_labels(ids, next, edges);
  g = topo_graph_build(next, (const guint *)(void *)edges->data, edges->len / 2, error);
  if (g != NULL)
    report.duplicates = edges->len / 2 - g->m;
  if (g != NULL && lcc) {
    TopoGraph *c = topo_graph_largest_component(g, error);
    topo_graph_free(g);
    g = c;
  }
  if (g != NULL) {
    g->load = report;
    g->loaded = TRUE;
  }
out:
  g_array_unref(edges);
  g_hash_table_unref(ids);
  g_free(text);
  return g;
}
