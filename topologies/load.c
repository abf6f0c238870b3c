/*
 * topologies/load.c: graph files. Edge lists (SNAP style: whitespace or
 * commas, '#' comments, an optional third weight column; CSV with an
 * optional header) are parsed here, with FILE:LINE errors; GraphML, GML and
 * Pajek go through igraph's readers, their nodes named by the file's name,
 * label or id attribute (vertex_names).
 *
 * Nodes labelled exactly 0..n-1 keep their labels; any other labelling is
 * renumbered by first appearance so that a file's numbering is reproducible
 * without a separate node list; the reference figures of the paper use
 * exactly that numbering (facebook-ego-414-lcc.edges from the raw SNAP file).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "topologies/internal.h"

/* Fields of an edge list are separated by blanks or commas (CSV). */
static gboolean is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == ',';
}

/* Parse one token [s, s+len) as a label; FALSE with a message on failure. */
static gboolean parse_label(const char *path, gsize line, const char *s, gsize len, guint64 *out,
                            GError **error) {
  guint64 v = 0;
  for (gsize i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return spec_error_token(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line, "node label", s,
                              (gssize)MIN(len, 64), " is not a non-negative integer");
    guint d = (guint)(s[i] - '0');
    if (v > (G_MAXUINT64 - d) / 10)
      return spec_error_token(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line, "node label", s,
                              (gssize)MIN(len, 64), " is larger than 2^64-1");
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
    spec_error_at(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line, "too many nodes");
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

static const struct {
  const char *name;
  TopoGraphFormat format;
} format_names[] = {{"auto", TOPO_FORMAT_AUTO}, {"edges", TOPO_FORMAT_EDGES},
                    {"csv", TOPO_FORMAT_CSV},   {"graphml", TOPO_FORMAT_GRAPHML},
                    {"gml", TOPO_FORMAT_GML},   {"pajek", TOPO_FORMAT_PAJEK}};

gboolean topo_graph_format_parse(const char *name, TopoGraphFormat *out, GError **error) {
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS(format_names); i++)
    if (g_ascii_strcasecmp(name, format_names[i].name) == 0) {
      *out = format_names[i].format;
      return TRUE;
    }
  char *shown = spec_escape(name ? name : "", -1);
  const char *choices[G_N_ELEMENTS(format_names)];
  for (guint i = 0; i < G_N_ELEMENTS(format_names); i++)
    choices[i] = format_names[i].name;
  char *hint = spec_did_you_mean(name, choices, G_N_ELEMENTS(choices));
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
              "unknown graph format '%s' (valid: auto, edges, csv, graphml, gml, pajek)%s", shown,
              hint);
  g_free(hint);
  g_free(shown);
  return FALSE;
}

const char *topo_graph_format_name(TopoGraphFormat format) {
  for (guint i = 0; i < G_N_ELEMENTS(format_names); i++)
    if (format_names[i].format == format)
      return format_names[i].name;
  return "?";
}

/* The format a file's extension names; edges for any other. */
static TopoGraphFormat format_of_path(const char *path) {
  static const struct {
    const char *ext;
    TopoGraphFormat format;
  } exts[] = {{".graphml", TOPO_FORMAT_GRAPHML}, {".xml", TOPO_FORMAT_GRAPHML},
              {".gml", TOPO_FORMAT_GML},         {".net", TOPO_FORMAT_PAJEK},
              {".paj", TOPO_FORMAT_PAJEK},       {".pajek", TOPO_FORMAT_PAJEK},
              {".csv", TOPO_FORMAT_CSV}};
  char *lower = g_ascii_strdown(path, -1);
  if (g_str_has_suffix(lower, ".gz")) /* edge lists may be gzipped: x.csv.gz is CSV */
    lower[strlen(lower) - 3] = '\0';
  TopoGraphFormat f = TOPO_FORMAT_EDGES;
  for (guint i = 0; i < G_N_ELEMENTS(exts); i++)
    if (g_str_has_suffix(lower, exts[i].ext))
      f = exts[i].format;
  g_free(lower);
  return f;
}

/* What a file gives before the graph is built: n nodes, edges as pairs
 * (loops already counted and dropped), the weights seen. */
typedef struct {
  guint n;
  GArray *edges;  /* guint pairs */
  guint64 *label; /* edge lists: each node's label in the file (n), or NULL */
  char **names;   /* igraph formats: each node's name in the file (n), or NULL */
  TopoLoadReport report;
  gboolean weighted; /* a weight was given */
  double weight;     /* the first weight */
  gsize weight_line; /* where (0: not a line: an igraph format) */
  double other;      /* a weight != weight, when weights_differ */
  gsize other_line;
  gboolean weights_differ;
  guint64 missing; /* igraph formats: edges without a weight (read as NaN) */
} Parsed;

/* A weight: every weight is recorded, the first different one with its line. */
static void note_weight(Parsed *p, double w, gsize line) {
  if (!p->weighted) {
    p->weighted = TRUE;
    p->weight = w;
    p->weight_line = line;
  } else if (w != p->weight && !p->weights_differ) {
    p->weights_differ = TRUE;
    p->other = w;
    p->other_line = line;
  }
}

/* Parses one weight token [s, s+len): a positive finite number (a zero or
 * negative weight is no link the gossip matrices could honour). */
static gboolean parse_weight(const char *path, gsize line, const char *s, gsize len, double *out,
                             GError **error) {
  char *t = g_strndup(s, len), *end = NULL;
  double w = g_ascii_strtod(t, &end);
  gboolean ok = end != t && *end == '\0' && isfinite(w);
  if (!ok)
    spec_error_token(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line, "edge weight", t, -1,
                     " is not a finite number");
  else if (!(w > 0))
    ok = spec_error_token(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line, "edge weight", t, -1,
                          " is not positive: give positive weights, or drop the edge");
  g_free(t);
  *out = w;
  return ok;
}

/* A latency token [s, s+len): a finite number >= 0 (sim/ reads its value). */
static gboolean parse_latency(const char *path, gsize line, const char *s, gsize len,
                              GError **error) {
  char *t = g_strndup(s, len), *end = NULL;
  double v = g_ascii_strtod(t, &end);
  gboolean ok = end != t && *end == '\0' && isfinite(v) && v >= 0;
  if (!ok)
    spec_error_token(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line, "latency", t, -1,
                     " is not a finite number >= 0");
  g_free(t);
  return ok;
}

/* Whether token [s, s+len) is a number (decimal digits): a label
 * parse_label reads; anything else in a CSV file is a name. */
static gboolean is_number(const char *s, gsize len) {
  for (gsize i = 0; i < len; i++)
    if (s[i] < '0' || s[i] > '9')
      return FALSE;
  return len > 0;
}

/* A CSV node named by text (not a number): its id in @names (text ->
 * id + 1), the next one on first sight; surrounding double quotes go
 * ("alice" names alice). */
static gboolean intern_name(GHashTable *names, const char *s, gsize len, guint *next, guint *out,
                            const char *path, gsize line, GError **error) {
  if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
    s++;
    len -= 2;
  }
  if (len == 0)
    return spec_error_at(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line,
                         "an empty node name (\"\"): name every node");
  char *key = g_strndup(s, len);
  gpointer val = g_hash_table_lookup(names, key);
  if (val != NULL) {
    g_free(key);
    *out = GPOINTER_TO_UINT(val) - 1;
    return TRUE;
  }
  if (*next >= G_MAXUINT / 2) {
    g_free(key);
    spec_error_at(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line, "too many nodes");
    return FALSE;
  }
  g_hash_table_insert(names, key, GUINT_TO_POINTER(*next + 1));
  *out = (*next)++;
  return TRUE;
}

/* One node token of an edge list: a number (its label), or in a CSV file a
 * name (networkx and pandas write their nodes' names: "alice,bob"). */
static gboolean intern_token(GHashTable *ids, GHashTable *names, const char *s, gsize len,
                             guint *next, guint *out, const char *path, gsize line,
                             GError **error) {
  guint64 label;
  if (names != NULL && !is_number(s, len))
    return intern_name(names, s, len, next, out, path, line, error);
  return parse_label(path, line, s, len, &label, error) &&
         intern_label(ids, label, next, out, path, line, error);
}

/* Whether @s (@len bytes, quotes around it dropped) is a column name a CSV
 * header gives its node columns (case-insensitive): source, target, from,
 * to, src, dst, u, v, node1, node2, node_1, node_2. Only these make a first
 * line a header: with names allowed as nodes, "alice,bob" is an edge. */
static gboolean is_node_column(const char *s, gsize len) {
  static const char *const names[] = {"source", "target", "from",  "to",    "src",    "dst",
                                      "u",      "v",      "node1", "node2", "node_1", "node_2"};
  if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
    s++;
    len -= 2;
  }
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (strlen(names[i]) == len && g_ascii_strncasecmp(s, names[i], len) == 0)
      return TRUE;
  return FALSE;
}

/* The edge-list formats (edges, csv): "u v" or "u v weight" per line. A CSV
 * file may start with a header line, one whose first two fields are node
 * column names (is_node_column: "source,target,weight"); its nodes may be
 * names as well as numbers. */
static gboolean parse_edge_list(const char *path, const char *text, gsize size, gboolean csv,
                                Parsed *p, GError **error) {
  GHashTable *ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  GHashTable *names = csv ? g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) : NULL;
  guint next = 0;
  gsize line = 0;
  gboolean ok = TRUE, content = FALSE;
  int fields = 0; /* 2 or 3, from the first edge */
  gboolean latency = FALSE; /* the third column is a latency */
  gsize fields_line = 0;
  /* A first line of names read as an edge, in a file whose other lines
   * are all numbers: a header with names dpgossip does not know. */
  gboolean first_named = FALSE, later_named = FALSE;
  gsize first_line = 0;
  const char *q = text, *end = text + size;
  while (ok && q < end) {
    line++;
    const char *eol = memchr(q, '\n', (gsize)(end - q));
    if (eol == NULL)
      eol = end;
    const char *hash = memchr(q, '#', (gsize)(eol - q));
    const char *stop = hash != NULL ? hash : eol;
    const char *tok[3];
    gsize len[3];
    int nt = 0;
    for (const char *c = q; c < stop;) {
      while (c < stop && is_space(*c))
        c++;
      if (c == stop)
        break;
      const char *t = c;
      while (c < stop && !is_space(*c))
        c++;
      if (nt < 3) {
        tok[nt] = t;
        len[nt] = (gsize)(c - t);
      }
      nt++;
    }
    q = eol + 1;
    if (nt == 0)
      continue;
    gboolean first = !content;
    content = TRUE;
    /* A CSV header names its columns: its first field is no node label. A
     * third column named latency or delay holds directed links' latencies
     * (the measured overlays), not weights. */
    if (first && csv && nt >= 2 && is_node_column(tok[0], len[0]) &&
        is_node_column(tok[1], len[1])) {
      latency = nt == 3 && ((len[2] == 7 && g_ascii_strncasecmp(tok[2], "latency", 7) == 0) ||
                            (len[2] == 5 && g_ascii_strncasecmp(tok[2], "delay", 5) == 0));
      p->report.latency_column = latency;
      p->report.directed = latency;
      continue;
    }
    if (nt == 1) {
      ok = spec_error_token(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line, "only one token",
                            tok[0], (gssize)MIN(len[0], 64),
                            ", expected two node labels 'u v' (and an optional weight)");
      break;
    }
    if (nt > 3) {
      spec_error_at(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line,
                    "%d tokens, expected 'u v' or 'u v weight'", nt);
      ok = FALSE;
      break;
    }
    /* Weights on some lines only: a file cut and pasted from two sources. */
    if (fields == 0) {
      fields = nt;
      fields_line = line;
    } else if (nt != fields) {
      spec_error_at(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, line,
                    "%d tokens, but line %" G_GSIZE_FORMAT " has %d: "
                    "give every edge a weight ('u v weight') or none ('u v')",
                    nt, fields_line, fields);
      ok = FALSE;
      break;
    }
    if (csv && nt >= 2) {
      gboolean named = !is_number(tok[0], len[0]) || !is_number(tok[1], len[1]);
      if (first) {
        first_named = named;
        first_line = line;
      } else {
        later_named |= named;
      }
    }
    guint ia, ib;
    double w = 0;
    ok = (names != NULL || (parse_label(path, line, tok[0], len[0], &(guint64){0}, error) &&
                            parse_label(path, line, tok[1], len[1], &(guint64){0}, error))) &&
         (nt < 3 || (latency ? parse_latency(path, line, tok[2], len[2], error)
                             : parse_weight(path, line, tok[2], len[2], &w, error))) &&
         intern_token(ids, names, tok[0], len[0], &next, &ia, path, line, error) &&
         intern_token(ids, names, tok[1], len[1], &next, &ib, path, line, error);
    if (!ok)
      break;
    if (nt == 3 && !latency)
      note_weight(p, w, line);
    if (ia != ib) {
      g_array_append_val(p->edges, ia);
      g_array_append_val(p->edges, ib);
    } else {
      p->report.self_loops++;
    }
  }
  if (ok && first_named && !later_named && p->edges->len + 2 * p->report.self_loops > 2) {
    ok = spec_error_at(error, TOPO_ERROR, TOPO_ERROR_PARSE, path, first_line,
                       "this line names its nodes by words, every other line by numbers: "
                       "if it is a header, name its node columns source,target (or from,to, "
                       "src,dst, u,v, node1,node2), the names a header is known by");
  }
  gboolean named = ok && names != NULL && g_hash_table_size(names) > 0;
  if (named) {
    /* Names and numbers: every node is named by its text, numbers in
     * decimal (leading zeros dropped, as an edge list's). */
    p->n = next;
    p->report.renumbered = TRUE;
    p->names = g_new0(char *, next + 1);
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, names);
    while (g_hash_table_iter_next(&it, &key, &val))
      p->names[GPOINTER_TO_UINT(val) - 1] = g_strdup(key);
    g_hash_table_iter_init(&it, ids);
    while (g_hash_table_iter_next(&it, &key, &val))
      p->names[GPOINTER_TO_UINT(val)] = g_strdup_printf("%" G_GUINT64_FORMAT,
                                                        *(const guint64 *)key);
  } else if (ok) {
    p->n = next;
    gboolean kept = p->edges->len > 0 && keep_dense_labels(ids, next, p->edges);
    p->report.renumbered = p->edges->len > 0 && !kept;
    /* The file's labels, by id: once keep_dense_labels kept them, label u is u. */
    p->label = g_new(guint64, next + 1);
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, ids);
    while (g_hash_table_iter_next(&it, &key, &val)) {
      guint64 label = *(const guint64 *)key;
      p->label[kept ? (guint)label : GPOINTER_TO_UINT(val)] = label;
    }
  }
  g_hash_table_unref(ids);
  if (names != NULL)
    g_hash_table_unref(names);
  return ok;
}

/* The last igraph error's text, for the reader's message (igraph's parsers
 * say what and where: "Parse error in GML file, line 3 ..."). Written under
 * the module's igraph lock only. */
static char igraph_reason[256];

static void capture_error(const char *reason, const char *file, int line, igraph_error_t code) {
  (void)file;
  (void)line;
  (void)code;
  g_strlcpy(igraph_reason, reason ? reason : "", sizeof igraph_reason);
  IGRAPH_FINALLY_FREE();
}

/* The numeric edge attribute igraph read the weights into, or NULL. */
static const char *weight_attribute(const igraph_t *g) {
  static const char *const names[] = {"weight", "value"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_EDGE, names[i]))
      return names[i];
  return NULL;
}

/* The type of vertex attribute @attr; IGRAPH_ATTRIBUTE_UNSPECIFIED when
 * @g has none (igraph 0.10's C handler lists them, it has no getter). */
static igraph_attribute_type_t vertex_attribute_type(const igraph_t *g, const char *attr) {
  igraph_attribute_type_t type = IGRAPH_ATTRIBUTE_UNSPECIFIED;
  igraph_strvector_t names;
  igraph_vector_int_t types;
  if (igraph_strvector_init(&names, 0) != IGRAPH_SUCCESS)
    return type;
  if (igraph_vector_int_init(&types, 0) == IGRAPH_SUCCESS) {
    if (igraph_cattribute_list(g, NULL, NULL, &names, &types, NULL, NULL) == IGRAPH_SUCCESS)
      for (igraph_integer_t i = 0; i < igraph_strvector_size(&names); i++)
        if (strcmp(igraph_strvector_get(&names, i), attr) == 0)
          type = (igraph_attribute_type_t)VECTOR(types)[i];
    igraph_vector_int_destroy(&types);
  }
  igraph_strvector_destroy(&names);
  return type;
}

/* Vertex attribute @attr of @g as text, one string per node (NULL ended,
 * g_strfreev), or NULL when some node has none (an empty string, igraph's
 * NaN) or two nodes share one: such an attribute names no node. A numeric
 * value prints as the integer it is (GML ids), else with every digit. */
static char **vertex_attribute_names(const igraph_t *g, const char *attr) {
  igraph_attribute_type_t type = vertex_attribute_type(g, attr);
  if (type != IGRAPH_ATTRIBUTE_STRING && type != IGRAPH_ATTRIBUTE_NUMERIC)
    return NULL;
  igraph_integer_t n = igraph_vcount(g);
  char **names = g_new0(char *, n + 1);
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  gboolean ok = TRUE;
  for (igraph_integer_t v = 0; ok && v < n; v++) {
    if (type == IGRAPH_ATTRIBUTE_STRING) {
      const char *s = VAS(g, attr, v);
      names[v] = g_strdup(s ? s : "");
    } else {
      double x = VAN(g, attr, v);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      if (isfinite(x) && x == floor(x) && fabs(x) < 0x1p53)
        g_snprintf(buf, sizeof buf, "%.0f", x);
      else if (isfinite(x))
        g_ascii_formatd(buf, sizeof buf, "%.17g", x);
      else
        buf[0] = '\0';
      names[v] = g_strdup(buf);
    }
    ok = names[v][0] != '\0' && g_hash_table_add(seen, names[v]);
  }
  g_hash_table_unref(seen);
  if (!ok)
    g_clear_pointer(&names, g_strfreev);
  return names;
}

/*
 * The names a GraphML, GML or Pajek file gives its nodes: igraph's "name",
 * else "label" (GML and GraphML files written by networkx carry the node in
 * it, next to an id 0..n-1), else "id" (GraphML node ids, Pajek vertex
 * labels, GML ids); the first attribute that names every node once. NULL
 * when none does (nodes are then the file's order 0..n-1).
 */
static char **vertex_names(const igraph_t *g) {
  static const char *const attrs[] = {"name", "label", "id"};
  char **names = NULL;
  for (guint i = 0; names == NULL && i < G_N_ELEMENTS(attrs); i++)
    names = vertex_attribute_names(g, attrs[i]);
  return names;
}

/* Names that are exactly 0..n-1 in some order (decimal, no sign or leading
 * zero) are the nodes' ids, as an edge list's are: the edges are renumbered
 * so that node u is the one named u and the names go. FALSE (nothing
 * changed) for any other naming. O(n + m). */
static gboolean names_are_ids(char **names, guint n, GArray *edges) {
  guint *id_of = g_new(guint, MAX(n, 1));
  gboolean *seen = g_new0(gboolean, MAX(n, 1));
  gboolean ok = TRUE;
  for (guint u = 0; ok && u < n; u++) {
    guint64 v;
    const char *s = names[u];
    ok = g_ascii_isdigit(s[0]) && (s[0] != '0' || s[1] == '\0') &&
         g_ascii_string_to_unsigned(s, 10, 0, n - 1, &v, NULL) && !seen[v];
    if (ok) {
      seen[v] = TRUE;
      id_of[u] = (guint)v;
    }
  }
  if (ok) {
    guint *e = (guint *)(void *)edges->data;
    for (guint i = 0; i < edges->len; i++)
      e[i] = id_of[e[i]];
  }
  g_free(seen);
  g_free(id_of);
  return ok;
}

/* GraphML, GML and Pajek through igraph's readers, with the C attribute
 * handler set for the read alone so that edge weights can be seen (and the
 * graph destroyed before it is unset). Nodes keep igraph's ids: the file's
 * node order. */
static gboolean read_igraph(const char *path, TopoGraphFormat format, Parsed *p, GError **error) {
  FILE *f = g_fopen(path, "rb");
  if (f == NULL) {
    int saved = errno;
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_IO, "cannot read graph: %s: %s", path,
                g_strerror(saved));
    return FALSE;
  }
  TopoIgraphGuard guard;
  topo_igraph_guard_begin(&guard);
  igraph_set_error_handler(capture_error);
  igraph_reason[0] = '\0';
  igraph_attribute_table_t *old = igraph_set_attribute_table(&igraph_cattribute_table);
  igraph_t g;
  igraph_error_t rc = format == TOPO_FORMAT_GRAPHML ? igraph_read_graph_graphml(&g, f, 0)
                      : format == TOPO_FORMAT_GML   ? igraph_read_graph_gml(&g, f)
                                                    : igraph_read_graph_pajek(&g, f);
  char reason[sizeof igraph_reason];
  g_strlcpy(reason, igraph_reason, sizeof reason);
  if (rc == IGRAPH_SUCCESS) {
    const char *wname = weight_attribute(&g);
    igraph_integer_t m = igraph_ecount(&g);
    if (igraph_vcount(&g) > (igraph_integer_t)(G_MAXUINT / 2)) {
      rc = IGRAPH_EOVERFLOW;
      g_strlcpy(reason, "too many nodes", sizeof reason);
    }
    p->report.directed = igraph_is_directed(&g);
    for (igraph_integer_t e = 0; rc == IGRAPH_SUCCESS && e < m; e++) {
      guint u = (guint)IGRAPH_FROM(&g, e), v = (guint)IGRAPH_TO(&g, e);
      if (wname != NULL) {
        double w = EAN(&g, wname, e);
        if (isnan(w)) {
          /* No value for this edge (igraph's missing value; a written "NaN"
           * cannot be told apart and means no weight either). */
          p->missing++;
        } else if (!(isfinite(w) && w > 0)) {
          char shown[G_ASCII_DTOSTR_BUF_SIZE];
          g_ascii_formatd(shown, sizeof shown, "%.17g", w);
          g_snprintf(reason, sizeof reason,
                     "edge %" IGRAPH_PRId " (between nodes %u and %u, numbered in the file's "
                     "order) has %s %s: weights must be positive finite numbers",
                     e, MIN(u, v), MAX(u, v), wname, shown);
          rc = IGRAPH_EINVAL;
          break;
        } else {
          note_weight(p, w, 0);
        }
      }
      if (u == v) {
        p->report.self_loops++;
        continue;
      }
      g_array_append_val(p->edges, u);
      g_array_append_val(p->edges, v);
    }
    /* Weights on some edges only: not one weighting of all edges. */
    if (p->missing > 0 && p->weighted && !p->weights_differ) {
      p->weights_differ = TRUE;
      p->other = NAN; /* no other weight: edges without one */
    }
    p->n = (guint)igraph_vcount(&g);
    /* The file's names for its nodes, kept unless they are 0..n-1. */
    if (rc == IGRAPH_SUCCESS) {
      p->names = vertex_names(&g);
      if (p->names != NULL && names_are_ids(p->names, p->n, p->edges))
        g_clear_pointer(&p->names, g_strfreev);
      p->report.renumbered = p->names != NULL;
    }
    igraph_destroy(&g);
  }
  igraph_set_attribute_table(old);
  topo_igraph_guard_end(&guard);
  fclose(f);
  if (rc != IGRAPH_SUCCESS) {
    const char *what = format == TOPO_FORMAT_GRAPHML ? "GraphML"
                       : format == TOPO_FORMAT_GML   ? "GML"
                                                     : "Pajek";
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "%s: not a valid %s file: %s", path, what,
                reason[0] ? reason : igraph_strerror(rc));
    return FALSE;
  }
  return TRUE;
}

/* Weights the gossip matrices cannot use are refused, unless the caller
 * asked for the structure alone: dropping them silently would account and
 * train on another matrix than the user's. Equal weights are no weighting. */
/* An edge's endpoints in order and whether the file listed it reversed. */
typedef struct {
  guint lo, hi;
  gboolean reversed;
} Oriented;

static gint compare_oriented(gconstpointer a, gconstpointer b) {
  const Oriented *x = a, *y = b;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi)
    return x->hi < y->hi ? -1 : 1;
  return (x->reversed > y->reversed) - (x->reversed < y->reversed);
}

/* The edges of @edges (pairs, no self-loop) listed exactly once in each
 * direction. O(m log m). */
static guint64 count_both_directions(const GArray *edges) {
  gsize m = edges->len / 2;
  const guint *e = (const guint *)(void *)edges->data;
  Oriented *o = g_new(Oriented, MAX(m, 1));
  for (gsize i = 0; i < m; i++)
    o[i] = (Oriented){MIN(e[2 * i], e[2 * i + 1]), MAX(e[2 * i], e[2 * i + 1]),
                      e[2 * i] > e[2 * i + 1]};
  qsort(o, m, sizeof *o, (int (*)(const void *, const void *))compare_oriented);
  guint64 both = 0;
  for (gsize i = 0; i < m;) {
    gsize j = i, forward = 0;
    while (j < m && o[j].lo == o[i].lo && o[j].hi == o[i].hi)
      forward += !o[j++].reversed;
    both += j - i == 2 && forward == 1;
    i = j;
  }
  g_free(o);
  return both;
}

static gboolean check_weights(const char *path, Parsed *p, gboolean ignore_weights,
                              GError **error) {
  p->report.weights_ignored = p->weights_differ;
  if (!p->weights_differ || ignore_weights)
    return TRUE;
  /* Every digit: 1 and 1.0000000000000002 must not print alike. */
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(a, sizeof a, "%.17g", p->weight);
  g_ascii_formatd(b, sizeof b, "%.17g", p->other);
  char *where = p->other_line > 0 ? g_strdup_printf("%s:%" G_GSIZE_FORMAT, path, p->other_line)
                                  : g_strdup(path);
  char *what = isnan(p->other)
                   ? g_strdup_printf("%" G_GUINT64_FORMAT " edge%s without a weight, others with "
                                     "weight %s",
                                     p->missing, p->missing == 1 ? "" : "s", a)
                   : g_strdup_printf("edge weight %s differs from %s", b, a);
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
              "%s: %s: the gossip matrices (uniform, metropolis, "
              "maxdegree) are built from the graph's structure and cannot use edge weights; "
              "load the structure alone (dpgossip: --ignore-weights), or give equal weights",
              where, what);
  g_free(what);
  g_free(where);
  return FALSE;
}

TopoGraph *topo_graph_load_format(const char *path, TopoGraphFormat format, gboolean lcc,
                                  gboolean ignore_weights, GError **error) {
  if (path == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "edge list path is NULL");
    return NULL;
  }
  if (format == TOPO_FORMAT_AUTO)
    format = format_of_path(path);
  Parsed p = {.edges = g_array_new(FALSE, FALSE, sizeof(guint))};
  TopoGraph *g = NULL;
  gboolean ok;
  if (format == TOPO_FORMAT_EDGES || format == TOPO_FORMAT_CSV) {
    char *text = NULL;
    gsize size = 0;
    GError *local = NULL;
    if (!topo_check_edge_list_memory(path, error)) {
      g_array_unref(p.edges);
      return NULL;
    }
    ok = spec_file_read_text(path, &text, &size, &local);
    if (!ok) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_IO, "cannot read edge list: %s", local->message);
      g_error_free(local);
    }
    ok = ok && parse_edge_list(path, text, size, format == TOPO_FORMAT_CSV, &p, error);
    g_free(text);
  } else {
    ok = (format == TOPO_FORMAT_GRAPHML ? topo_check_graphml(path, error)
                                        : topo_check_quoted_strings(path, format == TOPO_FORMAT_GML,
                                                                    error)) &&
         (format != TOPO_FORMAT_PAJEK || topo_check_pajek_vertices(path, error)) &&
         read_igraph(path, format, &p, error);
  }
  ok = ok && check_weights(path, &p, ignore_weights, error);
  if (ok && p.edges->len == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_EMPTY,
                "%s: no edge (only comments, blank lines or self-loops)", path);
    ok = FALSE;
  }
  if (ok) {
    /* The graph's build, counted exactly now that n and m are known. */
    double bytes = TOPO_BYTES_PER_EDGE * (double)(p.edges->len / 2) +
                   (TOPO_BYTES_PER_NODE + (p.report.renumbered ? TOPO_BYTES_PER_LABEL : 0)) * p.n;
    char *what = g_strdup_printf("the graph of %s (%u nodes, %u edges)", path, p.n,
                                 p.edges->len / 2);
    ok = spec_check_memory(bytes >= (double)G_MAXSIZE ? G_MAXSIZE : (gsize)bytes, what,
                           "use a smaller graph", TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, error);
    g_free(what);
  }
  if (ok)
    g = topo_graph_build(p.n, (const guint *)(void *)p.edges->data, p.edges->len / 2, error);
  if (g != NULL) {
    p.report.duplicates = p.edges->len / 2 - g->m;
    if (p.report.duplicates > 0)
      p.report.both_directions = count_both_directions(p.edges);
  }
  guint *old_of = NULL;
  if (g != NULL && lcc) {
    TopoGraph *c = topo_graph_largest_component_map(g, &old_of, error);
    topo_graph_free(g);
    g = c;
  }
  if (g != NULL) {
    g->load = p.report;
    g->loaded = TRUE;
  }
  /* The file's labels, unless node u is labelled u. */
  if (g != NULL && (p.label != NULL || p.names != NULL)) {
    gboolean identity = p.names == NULL;
    for (guint u = 0; identity && u < g->n; u++)
      identity = p.label[old_of ? old_of[u] : u] == u;
    if (!identity) {
      char **labels = g_new0(char *, g->n + 1);
      for (guint u = 0; u < g->n; u++) {
        guint old = old_of ? old_of[u] : u;
        labels[u] = p.names != NULL ? g_strdup(p.names[old])
                                    : g_strdup_printf("%" G_GUINT64_FORMAT, p.label[old]);
      }
      if (!topo_graph_take_labels(g, labels, error)) {
        topo_graph_free(g);
        g = NULL;
      }
    }
  }
  g_free(old_of);
  g_free(p.label);
  g_strfreev(p.names);
  g_array_unref(p.edges);
  return g;
}

TopoGraph *topo_graph_load(const char *path, gboolean lcc, GError **error) {
  return topo_graph_load_format(path, TOPO_FORMAT_AUTO, lcc, FALSE, error);
}
