/*
 * learning/csv.c: numeric CSV tables (optional header, chosen target column).
 *
 * A UTF-8 byte order mark (spreadsheets write one) is skipped: read as
 * text, it made the first row a header. Values are refused where a column's
 * sum of squares, or a row's, overflows: standardizing and every gradient
 * go through such sums, and a table of values near 1e308 trained to NaN.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "learning/internal.h"

typedef struct {
  const char *start; /* first byte of the line */
  gsize len;         /* without "\n" / "\r\n" */
  guint number;      /* 1-based line number */
} Line;

typedef struct {
  const char *start; /* trimmed cell text */
  gsize len;
  guint column; /* 1-based byte column of the raw cell in its line */
} Cell;

static gboolean is_blank(const char *s, gsize len) {
  for (gsize i = 0; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t')
      return FALSE;
  return TRUE;
}

/* Cells of a line, trimmed of blanks and of one pair of double quotes. */
static void split_cells(const Line *line, GArray *cells) {
  g_array_set_size(cells, 0);
  gsize pos = 0;
  for (;;) {
    gsize end = pos;
    while (end < line->len && line->start[end] != ',')
      end++;
    Cell c = {line->start + pos, end - pos, (guint)pos + 1};
    while (c.len > 0 && (c.start[0] == ' ' || c.start[0] == '\t')) {
      c.start++;
      c.len--;
    }
    while (c.len > 0 && (c.start[c.len - 1] == ' ' || c.start[c.len - 1] == '\t'))
      c.len--;
    if (c.len >= 2 && c.start[0] == '"' && c.start[c.len - 1] == '"') {
      c.start++;
      c.len -= 2;
    }
    g_array_append_val(cells, c);
    if (end >= line->len)
      break;
    pos = end + 1;
  }
}

/* Whether the whole cell reads as a number (finite or not) into *@out. */
static gboolean cell_strtod(const Cell *c, double *out) {
  char buf[128];
  if (c->len == 0 || c->len >= sizeof buf)
    return FALSE;
  memcpy(buf, c->start, c->len);
  buf[c->len] = '\0';
  char *end = NULL;
  *out = g_ascii_strtod(buf, &end);
  return end == buf + c->len;
}

/* Whether a whole cell has the syntax of a number (finite or not): the
 * header test, so that a row with an out-of-range value is an error, not a
 * header. */
static gboolean cell_is_numeric(const Cell *c) {
  double v;
  return cell_strtod(c, &v);
}

/* Parse a whole cell as a finite double. */
static gboolean cell_number(const Cell *c, double *out) {
  double v;
  if (!cell_strtod(c, &v) || !isfinite(v))
    return FALSE;
  *out = v;
  return TRUE;
}

/* Lines of text; trailing blank lines dropped, an inner blank line is an error. */
static GArray *split_lines(const char *path, const char *text, gsize size, GError **error) {
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(Line));
  gsize pos = 0;
  guint number = 0;
  while (pos < size) {
    const char *nl = memchr(text + pos, '\n', size - pos);
    gsize end = nl != NULL ? (gsize)(nl - text) : size;
    Line l = {text + pos, end - pos, ++number};
    if (l.len > 0 && l.start[l.len - 1] == '\r')
      l.len--;
    g_array_append_val(lines, l);
    pos = end + 1;
  }
  guint keep = lines->len;
  while (keep > 0) {
    const Line *l = &g_array_index(lines, Line, keep - 1);
    if (!is_blank(l->start, l->len))
      break;
    keep--;
  }
  g_array_set_size(lines, keep);
  for (guint i = 0; i < lines->len; i++) {
    const Line *l = &g_array_index(lines, Line, i);
    if (is_blank(l->start, l->len)) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                  "%s:%u: blank line inside the data (only trailing blank lines are allowed)", path,
                  l->number);
      g_array_unref(lines);
      return NULL;
    }
  }
  return lines;
}

/* The file's text must fit in memory before it is read. */
static gboolean text_fits(const char *path, gsize size, GError **error) {
  char *what = g_strdup_printf("reading the CSV file %s", path);
  gboolean ok = spec_check_memory(size, what, NULL, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                                  error);
  g_free(what);
  return ok;
}

/* Before the lines are split: the text, its line table, the records (as
 * many as lines, as many values as the first line has cells) and their
 * line numbers must fit in memory. O(size), no allocation. */
static gboolean table_fits(const char *path, const char *text, gsize size, GError **error) {
  gsize lines = 1, cols = 1;
  const char *p = text, *end = text + size, *nl = memchr(text, '\n', size);
  for (const char *q = text; q < (nl ? nl : end); q++)
    cols += *q == ',';
  while ((p = memchr(p, '\n', end - p)) != NULL) {
    lines++;
    p++;
  }
  gsize bytes = spec_size_add(size, spec_size_mul(lines, 2 * sizeof(Line) + sizeof(guint)));
  bytes = spec_size_add(bytes, learn_dataset_bytes(lines, cols));
  char *what = g_strdup_printf("the CSV file %s (%" G_GSIZE_FORMAT " lines of %" G_GSIZE_FORMAT
                               " values)",
                               path, lines, cols);
  gboolean ok = spec_check_memory(bytes, what, "use fewer rows or columns", LEARN_ERROR,
                                  LEARN_ERROR_INVALID_ARGUMENT, error);
  g_free(what);
  return ok;
}

/* A column's sum of squares, or a row's, that overflows: FALSE with
 * FILE:LINE:COLUMN of the value where it first does. O(n d). */
static gboolean check_magnitudes(const char *path, const LearnDataset *ds, const guint *line_of,
                                 guint target, GError **error) {
  gsize d = ds->n_features;
  double *col = g_new0(double, d + 1);
  gboolean ok = TRUE;
  for (gsize i = 0; i < ds->n && ok; i++) {
    double row = 0.0;
    for (gsize j = 0; j <= d && ok; j++) {
      double v = j < d ? ds->features[i * d + j] : ds->targets[i];
      col[j] += v * v;
      row += v * v;
      if (isfinite(col[j]) && isfinite(row))
        continue;
      /* the file's field: features skip the target column */
      guint field = j == d ? target + 1 : (guint)j + (j >= target ? 2 : 1);
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                  "%s:%u: field %u (%g) is too large: the sum of squares of its %s overflows "
                  "double precision (training would give NaN); rescale the data",
                  path, line_of[i], field, v, isfinite(col[j]) ? "row" : "column");
      ok = FALSE;
    }
  }
  g_free(col);
  return ok;
}

/* Resolve options->target to a 0-based column. */
static gboolean resolve_target(const char *path, const char *target, GArray *header, guint n_cols,
                               guint *col, GError **error) {
  if (target == NULL || *target == '\0') {
    *col = n_cols - 1;
    return TRUE;
  }
  char *end = NULL;
  errno = 0;
  gint64 v = g_ascii_strtoll(target, &end, 10);
  if (end != target && *end == '\0' && errno == 0) {
    gint64 c = v < 0 ? (gint64)n_cols + v : v;
    if (c < 0 || c >= (gint64)n_cols) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                  "%s: target column %s is out of range (the table has %u columns, "
                  "indices 0..%u or -1..-%u)",
                  path, target, n_cols, n_cols - 1, n_cols);
      return FALSE;
    }
    *col = (guint)c;
    return TRUE;
  }
  if (header != NULL) {
    for (guint i = 0; i < header->len; i++) {
      const Cell *c = &g_array_index(header, Cell, i);
      if (strlen(target) == c->len && strncmp(target, c->start, c->len) == 0) {
        *col = i;
        return TRUE;
      }
    }
  }
  char *shown = spec_escape(target, -1);
  g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
              header != NULL ? "%s: no column named '%s' in the header"
                             : "%s: target '%s' is not a column index and the file has no header",
              path, shown);
  g_free(shown);
  return FALSE;
}

/* Check (and, for n_classes -1, infer) classification labels. */
static gboolean check_labels(const char *path, LearnDataset *ds, const guint *line_of,
                             gint n_classes, GError **error) {
  double max = 0.0;
  for (gsize i = 0; i < ds->n; i++) {
    double y = ds->targets[i];
    gboolean bad = y < 0.0 || y != floor(y) || y > (double)G_MAXINT32 ||
                   (n_classes > 0 && y >= (double)n_classes);
    if (bad) {
      if (n_classes > 0)
        g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                    "%s:%u: label %g is not an integer in 0..%d", path, line_of[i], y,
                    n_classes - 1);
      else
        g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                    "%s:%u: label %g is not a non-negative integer", path, line_of[i], y);
      return FALSE;
    }
    max = MAX(max, y);
  }
  if (n_classes > 0) {
    ds->n_classes = (guint)n_classes;
    return TRUE;
  }
  if (max < 1.0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                "%s: every label is 0; classification needs at least 2 classes", path);
    return FALSE;
  }
  ds->n_classes = (guint)max + 1;
  return TRUE;
}

/* A regression target of two integer values (0/1 labels, say) is most
 * likely a class label: trained as asked, with a warning naming the option
 * that asks for classification. O(n). */
static void warn_two_valued(const char *path, const LearnDataset *ds, const GArray *header,
                            guint target) {
  double v[2];
  guint k = 0;
  for (gsize i = 0; i < ds->n; i++) {
    double y = ds->targets[i];
    if (y != floor(y))
      return;
    if ((k >= 1 && y == v[0]) || (k == 2 && y == v[1]))
      continue;
    if (k == 2)
      return;
    v[k++] = y;
  }
  if (k != 2)
    return;
  char *column = header != NULL
                     ? g_strdup_printf("'%.*s'", (int)g_array_index(header, Cell, target).len,
                                       g_array_index(header, Cell, target).start)
                     : g_strdup_printf("%u", target);
  learn_warning("%s: the target column %s holds two integer values (%g and %g) and is trained "
                "as a regression target; if they are class labels, ask for classification with "
                "classes=auto in the dataset spec (csv:%s,classes=auto)",
                path, column, MIN(v[0], v[1]), MAX(v[0], v[1]), path);
  g_free(column);
}

LearnDataset *learn_dataset_load_csv(const char *path, const LearnCsvOptions *options,
                                     GError **error) {
  g_return_val_if_fail(path != NULL, NULL);
  LearnCsvOptions defaults = {0};
  const LearnCsvOptions *opt = options != NULL ? options : &defaults;
  if (opt->n_classes == 1 || opt->n_classes < -1) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "%s: %d classes requested (use 0 for regression, -1 to infer, or >= 2)", path,
                opt->n_classes);
    return NULL;
  }
  struct stat st;
  if (stat(path, &st) == 0 && !text_fits(path, (gsize)st.st_size, error))
    return NULL;
  char *text = NULL;
  gsize size = 0;
  GError *local = NULL;
  /* Plain or gzip, as every other reader of a file the user names
   * (a gzipped CSV read raw was "1 column", issue 37). */
  if (!spec_file_read_text(path, &text, &size, &local)) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_IO, "cannot read CSV file: %s", local->message);
    g_error_free(local);
    return NULL;
  }
  LearnDataset *ds = NULL;
  GArray *header = NULL;
  GArray *cells = g_array_new(FALSE, FALSE, sizeof(Cell));
  guint *line_of = NULL;
  GArray *lines = NULL;
  gsize bom = size >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
  if (!table_fits(path, text + bom, size - bom, error))
    goto out;
  lines = split_lines(path, text + bom, size - bom, error);
  if (lines == NULL)
    goto out;
  if (lines->len == 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_EMPTY, "%s: empty file (no data rows)", path);
    goto out;
  }

  const Line *first = &g_array_index(lines, Line, 0);
  split_cells(first, cells);
  guint n_cols = cells->len;
  gboolean has_header = opt->header == LEARN_CSV_HEADER_YES;
  if (opt->header == LEARN_CSV_HEADER_AUTO) {
    for (guint c = 0; c < cells->len && !has_header; c++)
      has_header = !cell_is_numeric(&g_array_index(cells, Cell, c));
  }
  if (has_header) {
    header = cells;
    cells = g_array_new(FALSE, FALSE, sizeof(Cell));
  }
  if (n_cols < 2) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "%s:%u: %u column; a table needs at least one feature and the target", path,
                first->number, n_cols);
    goto out;
  }
  guint target;
  if (!resolve_target(path, opt->target, header, n_cols, &target, error))
    goto out;
  guint first_row = has_header ? 1 : 0;
  gsize n = lines->len - first_row;
  if (n == 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_EMPTY, "%s: no data rows after the header", path);
    goto out;
  }
  ds = learn_dataset_alloc(n, n_cols - 1, 0, error);
  if (ds == NULL)
    goto out;
  line_of = g_new(guint, n);
  for (gsize i = 0; i < n; i++) {
    const Line *l = &g_array_index(lines, Line, first_row + i);
    line_of[i] = l->number;
    split_cells(l, cells);
    if (cells->len != n_cols) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                  "%s:%u: expected %u fields (as on line %u), got %u", path, l->number, n_cols,
                  first->number, cells->len);
      goto fail;
    }
    double *x = ds->features + i * (n_cols - 1);
    for (guint c = 0; c < n_cols; c++) {
      const Cell *cell = &g_array_index(cells, Cell, c);
      double v;
      if (!cell_number(cell, &v)) {
        char *shown = spec_escape(cell->start, (gssize)MIN(cell->len, 40)); /* file bytes */
        g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                    "%s:%u:%u: field %u ('%s') is not a finite number", path, l->number,
                    cell->column, c + 1, shown);
        g_free(shown);
        goto fail;
      }
      if (c == target)
        ds->targets[i] = v;
      else
        *x++ = v;
    }
  }
  if (!check_magnitudes(path, ds, line_of, target, error))
    goto fail;
  if (opt->n_classes != 0 && !check_labels(path, ds, line_of, opt->n_classes, error))
    goto fail;
  if (opt->n_classes == 0)
    warn_two_valued(path, ds, header, target);
  goto out;
fail:
  learn_dataset_free(ds);
  ds = NULL;
out:
  g_free(line_of);
  if (header != NULL)
    g_array_unref(header);
  g_array_unref(cells);
  if (lines != NULL)
    g_array_unref(lines);
  g_free(text);
  return ds;
}
