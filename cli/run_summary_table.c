/*
 * cli/run_summary_table.c: the console tables of `run`'s summary: columns
 * as wide as their widest cell.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/run_summary.h"

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
