/*
 * topologies/load.c: graph files. Edge lists (SNAP style: whitespace or
 * commas, '#' comments, an optional third weight column; CSV with an
 * optional header) are parsed here, with FILE:LINE errors; GraphML, GML and
 * Pajek go through igraph's readers.
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

/* The edge-list formats (edges, csv): "u v" or "u v weight" per line. A CSV
 * file may start with a header line ("source,target,weight"). */
static gboolean parse_edge_list(const char *path, const char *text, gsize size, gboolean csv,
                                Parsed *p, GError **error) {
  GHashTable *ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  guint next = 0;
  gsize line = 0;
  gboolean ok = TRUE, content = FALSE;
  int fields = 0; /* 2 or 3, from the first edge */
  gboolean latency = FALSE; /* the third column is a latency */
  gsize fields_line = 0;
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
    if (first && csv && (tok[0][0] < '0' || tok[0][0] > '9')) {
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
    guint64 a, b;
    guint ia, ib;
    double w = 0;
    ok = parse_label(path, line, tok[0], len[0], &a, error) &&
         parse_label(path, line, tok[1], len[1], &b, error) &&
         (nt < 3 || (latency ? parse_latency(path, line, tok[2], len[2], error)
                             : parse_weight(path, line, tok[2], len[2], &w, error))) &&
         intern_label(ids, a, &next, &ia, path, line, error) &&
         intern_label(ids, b, &next, &ib, path, line, error);
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
  if (ok) {
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
  if (g != NULL && p.label != NULL) {
    gboolean identity = TRUE;
    for (guint u = 0; identity && u < g->n; u++)
      identity = p.label[old_of ? old_of[u] : u] == u;
    if (!identity) {
      char **labels = g_new0(char *, g->n + 1);
      for (guint u = 0; u < g->n; u++)
        labels[u] = g_strdup_printf("%" G_GUINT64_FORMAT, p.label[old_of ? old_of[u] : u]);
      if (!topo_graph_take_labels(g, labels, error)) {
        topo_graph_free(g);
        g = NULL;
      }
    }
  }
  g_free(old_of);
  g_free(p.label);
  g_array_unref(p.edges);
  return g;
}

TopoGraph *topo_graph_load(const char *path, gboolean lcc, GError **error) {
  return topo_graph_load_format(path, TOPO_FORMAT_AUTO, lcc, FALSE, error);
}
