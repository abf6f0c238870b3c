/*
 * cli/run_summary_table.c: the scenario runner's CSV files read back
 * (quoted fields included: a protocol spec such as mfdsgd:C=bsr,band=4 is
 * one quoted field) and the console tables of `run`'s summary.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/run_summary.h"

GPtrArray *cli_csv_parse(const char *text) {
  g_return_val_if_fail(text != NULL, NULL);
  GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  GPtrArray *fields = g_ptr_array_new();
  GString *f = g_string_new(NULL);
  gboolean quoted = FALSE, touched = FALSE; /* touched: the record has a character */
  for (const char *p = text;; p++) {
    if (quoted) {
      if (*p == '\0')
        break; /* unterminated quote */
      if (*p == '"' && p[1] == '"')
        g_string_append_c(f, '"'), p++;
      else if (*p == '"')
        quoted = FALSE;
      else
        g_string_append_c(f, *p);
      continue;
    }
    if (*p == '"') {
      quoted = touched = TRUE;
    } else if (*p == ',') {
      g_ptr_array_add(fields, g_strdup(f->str));
      g_string_truncate(f, 0);
      touched = TRUE;
    } else if (*p == '\n' || *p == '\0') {
      if (f->len > 0 && f->str[f->len - 1] == '\r')
        g_string_truncate(f, f->len - 1);
      if (touched || f->len > 0) {
        g_ptr_array_add(fields, g_strdup(f->str));
        g_ptr_array_add(fields, NULL);
        g_ptr_array_add(rows, g_ptr_array_steal(fields, NULL));
      }
      g_string_truncate(f, 0);
      touched = FALSE;
      if (*p == '\0')
        break;
    } else {
      g_string_append_c(f, *p);
    }
  }
  g_string_free(f, TRUE);
  if (quoted) {
    for (guint i = 0; i < fields->len; i++)
      g_free(g_ptr_array_index(fields, i));
    g_ptr_array_unref(rows);
    rows = NULL;
  }
  g_ptr_array_unref(fields);
  if (rows != NULL && rows->len == 0) {
    g_ptr_array_unref(rows);
    return NULL;
  }
  return rows;
}

GPtrArray *cli_csv_read(const char *dir, const char *name) {
  g_return_val_if_fail(dir != NULL && name != NULL, NULL);
  char *path = g_build_filename(dir, name, NULL);
  char *text = NULL;
  gboolean ok = g_file_get_contents(path, &text, NULL, NULL);
  g_free(path);
  GPtrArray *rows = ok ? cli_csv_parse(text) : NULL;
  g_free(text);
  return rows;
}

int cli_csv_column(char *const *header, const char *name) {
  for (int i = 0; header != NULL && header[i] != NULL; i++)
    if (strcmp(header[i], name) == 0)
      return i;
  return -1;
}

const char *cli_csv_cell(char *const *row, int c) {
  if (c < 0)
    return "";
  for (int i = 0; i < c; i++)
    if (row[i] == NULL)
      return "";
  return row[c] != NULL ? row[c] : "";
}

struct CliTable {
  GPtrArray *rows; /* GPtrArray* of char* each */
  guint n_text;
};

CliTable *cli_table_new(guint n_text) {
  CliTable *t = g_new0(CliTable, 1);
  t->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  t->n_text = n_text;
  return t;
}

void cli_table_row(CliTable *t) {
  g_return_if_fail(t != NULL);
  g_ptr_array_add(t->rows, g_ptr_array_new_with_free_func(g_free));
}

void cli_table_cell(CliTable *t, const char *fmt, ...) {
  g_return_if_fail(t != NULL && t->rows->len > 0);
  va_list ap;
  va_start(ap, fmt);
  g_ptr_array_add(g_ptr_array_index(t->rows, t->rows->len - 1), g_strdup_vprintf(fmt, ap));
  va_end(ap);
}

void cli_table_print(const CliTable *t) {
  g_return_if_fail(t != NULL);
  GArray *w = g_array_new(FALSE, TRUE, sizeof(int));
  for (guint r = 0; r < t->rows->len; r++) {
    const GPtrArray *row = g_ptr_array_index(t->rows, r);
    if (row->len > w->len)
      g_array_set_size(w, row->len);
    for (guint c = 0; c < row->len; c++) {
      int len = (int)g_utf8_strlen(g_ptr_array_index(row, c), -1);
      g_array_index(w, int, c) = MAX(g_array_index(w, int, c), len);
    }
  }
  for (guint r = 0; r < t->rows->len; r++) {
    const GPtrArray *row = g_ptr_array_index(t->rows, r);
    GString *line = g_string_new(" ");
    for (guint c = 0; c < row->len; c++) {
      const char *v = g_ptr_array_index(row, c);
      int pad = g_array_index(w, int, c) - (int)g_utf8_strlen(v, -1);
      g_string_append_c(line, ' ');
      if (c >= t->n_text)
        g_string_append_printf(line, "%*s", pad, "");
      g_string_append(line, v);
      if (c < t->n_text)
        g_string_append_printf(line, "%*s", pad, "");
    }
    while (line->len > 0 && line->str[line->len - 1] == ' ')
      g_string_truncate(line, line->len - 1);
    printf("%s\n", line->str);
    g_string_free(line, TRUE);
  }
  g_array_unref(w);
}

void cli_table_free(CliTable *t) {
  if (t == NULL)
    return;
  g_ptr_array_unref(t->rows);
  g_free(t);
}
