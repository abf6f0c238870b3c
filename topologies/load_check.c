/*
 * topologies/load_check.c: checks of a graph file made by streaming it
 * before it is read: what igraph's readers would take quadratic time on
 * (long quoted strings) or assume silently (GraphML edges to undeclared
 * nodes, a second graph), and the memory an edge list will need.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <libxml/xmlreader.h>
#include <zlib.h>

#include "topologies/internal.h"

#define CHUNK (64 << 10)

static FILE *open_file(const char *path, GError **error) {
  FILE *f = g_fopen(path, "rb");
  if (f == NULL) {
    int saved = errno;
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_IO, "cannot read graph: %s: %s", path,
                g_strerror(saved));
  }
  return f;
}

gboolean topo_check_quoted_strings(const char *path, gboolean multiline, GError **error) {
  g_return_val_if_fail(path != NULL, FALSE);
  FILE *f = open_file(path, error);
  if (f == NULL)
    return FALSE;
  char *buf = g_malloc(CHUNK);
  gsize line = 1, start_line = 0, len = 0, got;
  gboolean in_string = FALSE, comment = FALSE, ok = TRUE;
  while (ok && (got = fread(buf, 1, CHUNK, f)) > 0) {
    for (gsize i = 0; i < got; i++) {
      char c = buf[i];
      if (c == '\n') {
        line++;
        comment = FALSE;
        if (!multiline)
          in_string = FALSE;
      }
      if (in_string) {
        if (c == '"')
          in_string = FALSE;
        else if (++len > TOPO_STRING_MAX) {
          g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                      "%s:%" G_GSIZE_FORMAT ": a quoted string longer than %d bytes: labels "
                      "that long are refused (reading them takes time quadratic in their "
                      "length); shorten the label or give the graph as an edge list",
                      path, start_line, TOPO_STRING_MAX);
          ok = FALSE;
          break;
        }
      } else if (!comment) {
        /* GML comments run from '#' to the end of the line. */
        if (c == '#' && multiline)
          comment = TRUE;
        else if (c == '"') {
          in_string = TRUE;
          start_line = line;
          len = 0;
        }
      }
    }
  }
  if (ok && ferror(f)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_IO, "cannot read graph: %s: read error", path);
    ok = FALSE;
  }
  g_free(buf);
  fclose(f);
  return ok;
}

/* Per line of an edge list: its pair of ids (the array doubling: 16), its
 * edge in the graph build and two labels in the label table (48 each). */
#define EDGE_LIST_BYTES_PER_LINE (16.0 + TOPO_BYTES_PER_EDGE + 2 * 48.0)

gboolean topo_check_edge_list_memory(const char *path, GError **error) {
  g_return_val_if_fail(path != NULL, FALSE);
  GStatBuf st;
  if (g_stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return TRUE; /* the reader says why it cannot read it */
  /* Over the reader's size limit, raw or inflated, the reader refuses the
   * file by its size without parsing it: counting its lines here first
   * would read gigabytes (a 5 GB file took 38 s) for a message about
   * memory that never applies. */
  if ((guint64)st.st_size > SPEC_FILE_MAX)
    return TRUE;
  /* zlib reads a plain file as it is and a gzip file inflated: the text's
   * size and lines either way. */
  gzFile f = gzopen(path, "rb");
  if (f == NULL) {
    int saved = errno;
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_IO, "cannot read graph: %s: %s", path,
                g_strerror(saved));
    return FALSE;
  }
  char *buf = g_malloc(CHUNK);
  gsize size = 0;
  int got;
  guint64 lines = 1;
  while ((got = gzread(f, buf, CHUNK)) > 0) {
    size += (gsize)got;
    if (size > SPEC_FILE_MAX) {
      g_free(buf);
      gzclose(f);
      return TRUE;
    }
    for (const char *p = buf, *end = buf + got; (p = memchr(p, '\n', (gsize)(end - p))) != NULL;
         p++)
      lines++;
  }
  g_free(buf);
  gzclose(f); /* a corrupt stream: the reader says why */
  double bytes = (double)size + EDGE_LIST_BYTES_PER_LINE * (double)lines;
  char *what = g_strdup_printf("reading the edge list %s (%" G_GUINT64_FORMAT " lines)", path,
                               lines);
  gboolean ok = spec_check_memory(bytes >= (double)G_MAXSIZE ? G_MAXSIZE : (gsize)bytes, what,
                                  "use a smaller graph or a machine with more memory", TOPO_ERROR,
                                  TOPO_ERROR_INVALID_ARGUMENT, error);
  g_free(what);
  return ok;
}

/* igraph's Pajek reader allocates its vertex vectors and attribute slots
 * for the declared count before any vertex line (measured: 45 bytes per
 * declared vertex, graph summary included); the graph build then needs
 * TOPO_BYTES_PER_NODE more. */
#define PAJEK_READER_BYTES_PER_VERTEX 64.0

gboolean topo_check_pajek_vertices(const char *path, GError **error) {
  g_return_val_if_fail(path != NULL, FALSE);
  FILE *f = open_file(path, error);
  if (f == NULL)
    return FALSE;
  /* The count is on the first line that is not blank, a '%' comment or
   * the optional "*Network" title; any other first line is igraph's to
   * refuse. Lines longer than the buffer are read in pieces: only a
   * line's first piece can start the header. */
  char buf[256];
  gsize line = 0;
  gboolean ok = TRUE, at_line_start = TRUE;
  while (fgets(buf, sizeof buf, f) != NULL) {
    gboolean start = at_line_start;
    at_line_start = strchr(buf, '\n') != NULL;
    if (!start)
      continue;
    line++;
    const char *s = buf;
    while (*s == ' ' || *s == '\t' || *s == '\r')
      s++;
    if (*s == '\0' || *s == '\n' || *s == '%' || g_ascii_strncasecmp(s, "*network", 8) == 0)
      continue;
    if (g_ascii_strncasecmp(s, "*vertices", 9) != 0)
      break;
    char *end = NULL;
    errno = 0;
    guint64 n = g_ascii_strtoull(s + 9, &end, 10);
    if (end == s + 9)
      break; /* no count: igraph says why */
    if (errno == ERANGE || n > G_MAXUINT / 2) {
      char shown[32];
      if (errno == ERANGE)
        g_strlcpy(shown, "more than 2^64", sizeof shown);
      else
        g_snprintf(shown, sizeof shown, "%" G_GUINT64_FORMAT, n);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                  "%s:%" G_GSIZE_FORMAT ": *Vertices declares %s nodes; at most %u are supported",
                  path, line, shown, G_MAXUINT / 2);
      ok = FALSE;
      break;
    }
    double bytes = (PAJEK_READER_BYTES_PER_VERTEX + TOPO_BYTES_PER_NODE) * (double)n;
    char *what = g_strdup_printf("%s:%" G_GSIZE_FORMAT ": reading the %" G_GUINT64_FORMAT
                                 " nodes that *Vertices declares",
                                 path, line, n);
    ok = spec_check_memory(bytes >= (double)G_MAXSIZE ? G_MAXSIZE : (gsize)bytes, what,
                           "check the count on that line, or use a machine with more memory",
                           TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, error);
    g_free(what);
    break;
  }
  fclose(f);
  return ok;
}

/* The line where the reader's current element starts (the parser's own
 * line is ahead of it: it reads by blocks). */
static int element_line(xmlTextReaderPtr r) {
  xmlNodePtr n = xmlTextReaderCurrentNode(r);
  return n != NULL ? (int)xmlGetLineNo(n) : xmlTextReaderGetParserLineNumber(r);
}

/* An edge endpoint not declared when its edge was read. */
typedef struct {
  char *id;
  const char *role; /* "source" or "target" */
  int line;
} Pending;

static void pending_clear(gpointer p) {
  g_free(((Pending *)p)->id);
}

gboolean topo_check_graphml(const char *path, GError **error) {
  g_return_val_if_fail(path != NULL, FALSE);
  /* No entity substitution, no DTD loading, no network: as igraph reads it. */
  xmlTextReaderPtr r =
      xmlReaderForFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (r == NULL)
    return TRUE; /* igraph's reader says why */
  GHashTable *nodes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  GArray *pending = g_array_new(FALSE, FALSE, sizeof(Pending));
  g_array_set_clear_func(pending, pending_clear);
  guint graphs = 0;
  int graph_depth = -1; /* depth of the first graph's element */
  gboolean ok = TRUE;
  while (ok && xmlTextReaderRead(r) == 1) {
    if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
      continue;
    const char *name = (const char *)xmlTextReaderConstLocalName(r);
    int depth = xmlTextReaderDepth(r);
    if (strcmp(name, "graph") == 0 && depth == 1) {
      if (++graphs == 2) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                    "%s:%d: a second <graph>: only the first would be read; give one graph per "
                    "file",
                    path, element_line(r));
        ok = FALSE;
      } else {
        graph_depth = depth;
      }
      continue;
    }
    if (graphs != 1 || depth != graph_depth + 1)
      continue;
    if (strcmp(name, "node") == 0) {
      char *id = (char *)xmlTextReaderGetAttribute(r, (const xmlChar *)"id");
      if (id != NULL) {
        g_hash_table_add(nodes, g_strdup(id));
        xmlFree(id);
      }
    } else if (strcmp(name, "edge") == 0) {
      static const char *const roles[] = {"source", "target"};
      for (guint k = 0; k < 2; k++) {
        char *id = (char *)xmlTextReaderGetAttribute(r, (const xmlChar *)roles[k]);
        if (id != NULL && !g_hash_table_contains(nodes, id)) {
          Pending p = {g_strdup(id), roles[k], element_line(r)};
          g_array_append_val(pending, p);
        }
        xmlFree(id);
      }
    }
  }
  /* A node may be declared after its edges: only those never declared. */
  for (guint i = 0; ok && i < pending->len; i++) {
    const Pending *p = &g_array_index(pending, Pending, i);
    if (g_hash_table_contains(nodes, p->id))
      continue;
    char *shown = spec_escape(p->id, (gssize)MIN(strlen(p->id), 64));
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                "%s:%d: edge %s '%s' is no <node> of the graph: declare every node (it would "
                "be added silently)",
                path, p->line, p->role, shown);
    g_free(shown);
    ok = FALSE;
  }
  g_array_unref(pending);
  g_hash_table_unref(nodes);
  xmlFreeTextReader(r);
  return ok; /* a document libxml2 cannot parse: igraph's reader says why */
}
