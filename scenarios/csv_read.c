/*
 * scenarios/csv_read.c: the CSV files the scenario runner writes, read back
 * (RFC 4180: a protocol spec such as mfdsgd:C=bsr,band=4 is one quoted
 * field) by the figures of a sweep and by `dpgossip run`'s summary.
 */
#include <string.h>

#include "scenarios/scenarios.h"

GPtrArray *scen_csv_parse(const char *text) {
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

GPtrArray *scen_csv_read(const char *dir, const char *name) {
  g_return_val_if_fail(dir != NULL && name != NULL, NULL);
  char *path = g_build_filename(dir, name, NULL);
  char *text = NULL;
  gboolean ok = g_file_get_contents(path, &text, NULL, NULL);
  g_free(path);
  GPtrArray *rows = ok ? scen_csv_parse(text) : NULL;
  g_free(text);
  return rows;
}

int scen_csv_column(char *const *header, const char *name) {
  for (int i = 0; header != NULL && header[i] != NULL; i++)
    if (strcmp(header[i], name) == 0)
      return i;
  return -1;
}

const char *scen_csv_cell(char *const *row, int c) {
  if (c < 0)
    return "";
  for (int i = 0; i < c; i++)
    if (row[i] == NULL)
      return "";
  return row[c] != NULL ? row[c] : "";
}
