/* mf/matrix_csv.c: reading a matrix back from CSV (e.g. Mafalda's
 * C_local), and the checks every noise-correlation file must pass. */
#include "mf/internal.h"
#include "spec/spec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* mf_matrix_read_csv, also giving each row's line in the file (g_free). */
static double *read_csv(const char *path, guint *rows, guint *cols, guint **row_lines,
                        GError **error) {
  char *text = NULL;
  gsize len = 0;
  if (!spec_file_read(path, &text, &len, error))
    return NULL;
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  GArray *lines_of = g_array_new(FALSE, FALSE, sizeof(guint));
  guint nrows = 0, ncols = 0, line = 0;
  gboolean ok = TRUE;
  char **lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l && ok; l++) {
    line++;
    char *s = g_strstrip(*l); /* also drops a '\r' of CRLF files */
    if (*s == '\0')
      continue;
    char **fields = g_strsplit(s, ",", -1);
    guint nf = g_strv_length(fields);
    for (guint i = 0; i < nf && ok; i++) {
      char *f = g_strstrip(fields[i]), *end = NULL;
      errno = 0;
      double v = g_ascii_strtod(f, &end);
      if (*f == '\0' || end == f || *end != '\0' || !isfinite(v)) {
        char *shown = spec_escape(f, -1); /* file bytes: no raw escapes */
        g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                    "%s:%u:%u: not a finite number: '%s'", path, line, i + 1, shown);
        g_free(shown);
        ok = FALSE;
      }
      g_array_append_val(vals, v);
    }
    if (ok && nrows > 0 && nf != ncols) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "%s:%u: %u values where the rows above have %u", path, line, nf, ncols);
      ok = FALSE;
    }
    g_array_append_val(lines_of, line);
    ncols = nf;
    nrows++;
    g_strfreev(fields);
  }
  g_strfreev(lines);
  g_free(text);
  if (ok && nrows == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "%s:1: no matrix in the file (it is empty)", path);
    ok = FALSE;
  }
  if (!ok) {
    g_array_unref(vals);
    g_array_unref(lines_of);
    return NULL;
  }
  *rows = nrows;
  *cols = ncols;
  if (row_lines != NULL)
    *row_lines = (guint *)g_array_free(lines_of, FALSE);
  else
    g_array_unref(lines_of);
  return (double *)g_array_free(vals, FALSE);
}

double *mf_matrix_read_csv(const char *path, guint *rows, guint *cols, GError **error) {
  g_return_val_if_fail(path != NULL && rows != NULL && cols != NULL, NULL);
  return read_csv(path, rows, cols, NULL, error);
}

static gboolean check_c(const char *path, const char *what, double *C, guint T, const guint *line,
                        GError **error);

double *mf_read_c(const char *path, guint T, GError **error) {
  g_return_val_if_fail(path != NULL && T > 0, NULL);
  guint rows = 0, cols = 0, *line = NULL;
  double *C = read_csv(path, &rows, &cols, &line, error);
  if (C == NULL)
    return NULL;
  if (rows != T || cols != T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "%s: C is %u x %u, expected %u x %u (one row and column per step: T = %u)", path,
                rows, cols, T, T, T);
    g_free(line);
    g_free(C);
    return NULL;
  }
  gboolean ok = check_c(path, "", C, T, line, error);
  g_free(line);
  if (!ok) {
    g_free(C);
    return NULL;
  }
  return C;
}

/* The checks of mf_read_c on the T x T @C read from @path, row s on line
 * @line[s] (@what prefixes the messages, e.g. "class 1's "), then C divided
 * by its largest |entry|. FALSE with @error set. O(T^2). */
static gboolean check_c(const char *path, const char *what, double *C, guint T, const guint *line,
                        GError **error) {
  gboolean ok = TRUE;
  double big = 0.0;
  for (gsize i = 0; ok && i < (gsize)T * T; i++)
    big = MAX(big, fabs(C[i]));
  /* Upper entries must vanish (up to rounding of a computed factor), and
   * the diagonal must not: C is lower triangular and invertible, so a node
   * can stream its noise sum_s C^-1[t,s] z_s from the past only. */
  for (guint s = 0; ok && s < T; s++) {
    for (guint t = s + 1; ok && t < T; t++)
      if (fabs(C[(gsize)s * T + t]) > 1e-12 * big) {
        g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                    "%s:%u:%u: %sC[%u,%u] = %g lies above the diagonal: C must be lower "
                    "triangular",
                    path, line[s], t + 1, what, s, t, C[(gsize)s * T + t]);
        ok = FALSE;
      }
    if (ok && C[(gsize)s * T + s] == 0.0) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "%s:%u:%u: %sC[%u,%u] = 0: C must have a nonzero diagonal (invertible)", path,
                  line[s], s + 1, what, s, s);
      ok = FALSE;
    }
  }
  if (!ok)
    return FALSE;
  for (guint s = 0; s < T; s++) /* drop rounding residue above the diagonal */
    for (guint t = s + 1; t < T; t++)
      C[(gsize)s * T + t] = 0.0;
  /* C and c C (c > 0) are the same mechanism: the noise nu C^-1 z has
   * nu = sigma Delta sens(C). Dividing by the largest entry gives every
   * reader (accounting, training, the observer) the same matrix for both,
   * bit for bit when c C is exact (1e154 or 1e-300 times a matrix of ones),
   * and keeps C^T C and sens(C) far from overflow (1e154) and underflow
   * (1e-300, which would read as zero sensitivity). */
  for (gsize i = 0; i < (gsize)T * T; i++)
    C[i] /= big;
  for (guint s = 0; s < T; s++)
    if (C[(gsize)s * T + s] == 0.0) {
      /* Below 2^-1074 of the largest entry: singular in doubles. */
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "%s: %sC[%u,%u] is below 1e-323 times the largest entry: C is singular in "
                  "double precision",
                  path, what, s, s);
      return FALSE;
    }
  return TRUE;
}

gboolean mf_matrix_write_csv(const char *path, const double *M, guint rows, guint cols,
                             GError **error) {
  g_return_val_if_fail(path != NULL && (M != NULL || rows * cols == 0), FALSE);
  GString *s = g_string_sized_new((gsize)rows * cols * 24 + 1);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (guint i = 0; i < rows; i++) {
    for (guint j = 0; j < cols; j++) {
      if (j)
        g_string_append_c(s, ',');
      g_string_append(s, g_ascii_formatd(buf, sizeof buf, "%.17g", M[(gsize)i * cols + j]));
    }
    g_string_append_c(s, '\n');
  }
  gboolean ok = g_file_set_contents_full(path, s->str, (gssize)s->len,
                                         G_FILE_SET_CONTENTS_CONSISTENT, 0666, error);
  g_string_free(s, TRUE);
  return ok;
}

/* ---- C-sets: one C per class of nodes and the node-to-class map ---- */

void mf_cset_clear(MfCSet *set) {
  if (set == NULL)
    return;
  g_clear_pointer(&set->C, g_free);
  g_clear_pointer(&set->node_class, g_free);
  set->n_classes = set->n_nodes = set->T = 0;
}

/* The first line of @text that is neither blank nor a '#' comment
 * (stripped, in @buf of @size bytes), or "" when none. */
static const char *first_line(const char *text, char *buf, gsize size) {
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, '\n');
    gsize len = e ? (gsize)(e - p) : strlen(p);
    gsize k = MIN(len, size - 1);
    memcpy(buf, p, k);
    buf[k] = '\0';
    g_strstrip(buf);
    if (*buf != '\0' && *buf != '#')
      return buf;
    p = e ? e + 1 : p + len;
  }
  *buf = '\0';
  return buf;
}

gboolean mf_cset_is_file(const char *path) {
  g_return_val_if_fail(path != NULL, FALSE);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return FALSE;
  char head[4096], buf[64];
  size_t got = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[got] = '\0';
  const char *l = first_line(head, buf, sizeof buf);
  return g_str_has_prefix(l, "cset,") || g_str_equal(l, "cset");
}

/* Parses the decimal @f (stripped) into @out, below @limit; FALSE if not. */
static gboolean parse_index(const char *f, guint64 limit, guint *out) {
  guint64 v = 0;
  if (f == NULL || !g_ascii_string_to_unsigned(f, 10, 0, limit - 1, &v, NULL))
    return FALSE;
  *out = (guint)v;
  return TRUE;
}

/* Whether @f starts like a number (a row of C rather than a keyword). */
static gboolean looks_numeric(const char *f) {
  char *end = NULL;
  g_ascii_strtod(f, &end);
  return end != f;
}

#define CSET_FAIL(...)                                                                             \
  do {                                                                                             \
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, __VA_ARGS__);                          \
    goto out;                                                                                      \
  } while (0)

gboolean mf_cset_read(const char *path, guint T, guint n_nodes, MfCSet *set, GError **error) {
  g_return_val_if_fail(path != NULL && T > 0 && set != NULL, FALSE);
  memset(set, 0, sizeof *set);
  char *text = NULL;
  gsize len = 0;
  if (!spec_file_read(path, &text, &len, error))
    return FALSE;
  gboolean ok = FALSE;
  char **lines = g_strsplit(text, "\n", -1);
  guint K = 0, cls = G_MAXUINT, row = 0, line = 0, *rows_line = NULL;
  gboolean header = FALSE;
  guint *filled = NULL; /* rows read per class */
  guint *class_line = NULL, *node_line = NULL;
  for (char **l = lines; *l; l++) {
    line++;
    char *s = g_strstrip(*l);
    if (*s == '\0' || *s == '#')
      continue;
    char **f = g_strsplit(s, ",", -1);
    guint nf = g_strv_length(f);
    for (guint i = 0; i < nf; i++)
      g_strstrip(f[i]);
    gboolean fine = FALSE;
    if (!header) {
      guint t = 0;
      if (nf != 3 || !g_str_equal(f[0], "cset") || !parse_index(f[1], G_MAXUINT, &K) || K == 0 ||
          !parse_index(f[2], G_MAXUINT, &t) || t == 0) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: a C-set starts with 'cset,CLASSES,T' (CLASSES and T positive), "
                  "not '%.40s'",
                  path, line, s);
      }
      if (t != T) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: the C-set's C are for T = %u steps, the run has T = %u", path, line, t,
                  T);
      }
      if ((gsize)K * T * T > G_MAXSIZE / sizeof(double) / 2) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: %u classes of %u x %u matrices do not fit in memory", path, line, K, T,
                  T);
      }
      set->C = g_try_new(double, (gsize)K *T *T);
      if (set->C == NULL) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: cannot allocate %" G_GSIZE_FORMAT " bytes for %u classes' C", path, line,
                  (gsize)K * T * T * sizeof(double), K);
      }
      filled = g_new0(guint, K);
      class_line = g_new0(guint, K);
      rows_line = g_new0(guint, (gsize)K * T);
      set->node_class = g_new(guint, MAX(n_nodes, 1));
      node_line = g_new0(guint, MAX(n_nodes, 1));
      header = fine = TRUE;
    } else if (g_str_equal(f[0], "class")) {
      if (cls != G_MAXUINT && row < T) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: class %u has %u rows of C, T = %u are needed", path, line, cls, row, T);
      }
      if (nf != 2 || !parse_index(f[1], K, &cls)) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: 'class,C' needs a class C from 0 to %u (the header's CLASSES = %u)", path,
                  line, K - 1, K);
      }
      if (class_line[cls]) {
        guint was = class_line[cls];
        g_strfreev(f);
        CSET_FAIL("%s:%u: class %u's C again (first at line %u)", path, line, cls, was);
      }
      class_line[cls] = line;
      row = 0;
      fine = TRUE;
    } else if (g_str_equal(f[0], "node")) {
      guint v = 0, c = 0;
      if (cls != G_MAXUINT && row < T) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: class %u has %u rows of C, T = %u are needed", path, line, cls, row, T);
      }
      cls = G_MAXUINT;
      if (nf != 3 || !parse_index(f[1], G_MAXUINT, &v) || !parse_index(f[2], G_MAXUINT, &c)) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: a node's line is 'node,NODE,CLASS' (non-negative integers)", path, line);
      }
      if (v >= n_nodes) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: node %u, but the graph has %u nodes (0 to %u)", path, line, v, n_nodes,
                  n_nodes - 1);
      }
      if (c >= K) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: node %u's class %u has no C (the C-set has %u classes, 0 to %u)", path,
                  line, v, c, K, K - 1);
      }
      if (node_line[v]) {
        guint was = node_line[v];
        g_strfreev(f);
        CSET_FAIL("%s:%u: node %u's class again (first at line %u)", path, line, v, was);
      }
      node_line[v] = line;
      set->node_class[v] = c;
      fine = TRUE;
    } else if (cls != G_MAXUINT && (row < T || looks_numeric(f[0]))) {
      if (row >= T) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: class %u has more than T = %u rows of C", path, line, cls, T);
      }
      if (nf != T) {
        g_strfreev(f);
        CSET_FAIL("%s:%u: class %u's row %u has %u values, T = %u are needed", path, line, cls, row,
                  nf, T);
      }
      double *dst = set->C + ((gsize)cls * T + row) * T;
      for (guint i = 0; i < nf; i++) {
        char *end = NULL;
        double v = g_ascii_strtod(f[i], &end);
        if (*f[i] == '\0' || end == f[i] || *end != '\0' || !isfinite(v)) {
          char *shown = spec_escape(f[i], -1);
          g_strfreev(f);
          g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                      "%s:%u:%u: not a finite number: '%s'", path, line, i + 1, shown);
          g_free(shown);
          goto out;
        }
        dst[i] = v;
      }
      rows_line[(gsize)cls * T + row] = line;
      filled[cls] = ++row;
      fine = TRUE;
    }
    if (!fine) {
      char *shown = spec_escape(f[0], -1);
      g_strfreev(f);
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "%s:%u: '%s': a C-set line is 'class,C', a row of class C's matrix after it, "
                  "or 'node,NODE,CLASS'",
                  path, line, shown);
      g_free(shown);
      goto out;
    }
    g_strfreev(f);
  }
  if (!header)
    CSET_FAIL("%s:1: no C-set in the file (a C-set starts with 'cset,CLASSES,T')", path);
  if (cls != G_MAXUINT && row < T)
    CSET_FAIL("%s:%u: class %u has %u rows of C, T = %u are needed", path, line, cls, row, T);
  for (guint c = 0; c < K; c++)
    if (filled[c] < T)
      CSET_FAIL("%s: class %u has no C (no 'class,%u' followed by %u rows)", path, c, c, T);
  for (guint v = 0; v < n_nodes; v++)
    if (!node_line[v])
      CSET_FAIL("%s: node %u has no class (no 'node,%u,CLASS' line; the graph has %u nodes)", path,
                v, v, n_nodes);
  for (guint c = 0; c < K; c++) {
    char *what = g_strdup_printf("class %u's ", c);
    gboolean good = check_c(path, what, set->C + (gsize)c * T * T, T, rows_line + (gsize)c * T,
                            error);
    g_free(what);
    if (!good)
      goto out;
  }
  set->n_classes = K;
  set->n_nodes = n_nodes;
  set->T = T;
  ok = TRUE;
out:
  g_strfreev(lines);
  g_free(text);
  g_free(filled);
  g_free(class_line);
  g_free(rows_line);
  g_free(node_line);
  if (!ok)
    mf_cset_clear(set);
  return ok;
}

gboolean mf_cset_write(const char *path, const MfCSet *set, GError **error) {
  g_return_val_if_fail(path != NULL && set != NULL && set->C != NULL && set->T > 0, FALSE);
  guint T = set->T;
  GString *s = g_string_sized_new((gsize)set->n_classes * T * T * 24 + set->n_nodes * 16 + 64);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf(s,
                         "# dpgossip C-set: one C_local per class of nodes, then each node's "
                         "class (docs/design.md)\ncset,%u,%u\n",
                         set->n_classes, T);
  for (guint c = 0; c < set->n_classes; c++) {
    g_string_append_printf(s, "class,%u\n", c);
    const double *C = set->C + (gsize)c * T * T;
    for (guint i = 0; i < T; i++) {
      for (guint j = 0; j < T; j++) {
        if (j)
          g_string_append_c(s, ',');
        g_string_append(s, g_ascii_formatd(buf, sizeof buf, "%.17g", C[(gsize)i * T + j]));
      }
      g_string_append_c(s, '\n');
    }
  }
  for (guint v = 0; v < set->n_nodes; v++)
    g_string_append_printf(s, "node,%u,%u\n", v, set->node_class[v]);
  gboolean ok = g_file_set_contents_full(path, s->str, (gssize)s->len,
                                         G_FILE_SET_CONTENTS_CONSISTENT, 0666, error);
  g_string_free(s, TRUE);
  return ok;
}
