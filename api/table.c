/*
 * api/table.c: DpgTable, the column table every call returns: typed
 * columns (so that Python makes numpy arrays without parsing text),
 * string attributes and an optional matrix.
 */
#include <math.h>
#include <stdarg.h>

#include "api/internal.h"
#include "learning/learning.h"

typedef struct {
  char *name;
  DpgColType type;
  GArray *values; /* gint64, double or char * (owned) */
} Column;

struct DpgTable {
  GPtrArray *cols; /* Column * */
  gsize n_rows;
  GPtrArray *keys, *values; /* attributes, parallel */
  double *matrix;
  guint rows, cols_m;
};

static void column_free(gpointer p) {
  Column *c = p;
  if (c->type == DPG_COL_STRING)
    for (guint i = 0; i < c->values->len; i++)
      g_free(g_array_index(c->values, char *, i));
  g_array_unref(c->values);
  g_free(c->name);
  g_free(c);
}

DpgTable *dpg_table_new(void) {
  DpgTable *t = g_new0(DpgTable, 1);
  t->cols = g_ptr_array_new_with_free_func(column_free);
  t->keys = g_ptr_array_new_with_free_func(g_free);
  t->values = g_ptr_array_new_with_free_func(g_free);
  return t;
}

void dpg_table_free(DpgTable *t) {
  if (t == NULL)
    return;
  g_ptr_array_unref(t->cols);
  g_ptr_array_unref(t->keys);
  g_ptr_array_unref(t->values);
  g_free(t->matrix);
  g_free(t);
}

void dpg_free(void *p) {
  g_free(p);
}

guint dpg_table_add_col(DpgTable *t, const char *name, DpgColType type) {
  g_return_val_if_fail(t->n_rows == 0, 0);
  Column *c = g_new0(Column, 1);
  c->name = g_strdup(name);
  c->type = type;
  gsize size = type == DPG_COL_INT      ? sizeof(gint64)
               : type == DPG_COL_DOUBLE ? sizeof(double)
                                        : sizeof(char *);
  c->values = g_array_new(FALSE, FALSE, (guint)size);
  g_ptr_array_add(t->cols, c);
  return t->cols->len - 1;
}

static Column *col(const DpgTable *t, guint j) {
  return j < t->cols->len ? g_ptr_array_index(t->cols, j) : NULL;
}

void dpg_table_push_int(DpgTable *t, guint j, gint64 v) {
  Column *c = col(t, j);
  g_return_if_fail(c && c->type == DPG_COL_INT);
  g_array_append_val(c->values, v);
}

void dpg_table_push_double(DpgTable *t, guint j, double v) {
  Column *c = col(t, j);
  g_return_if_fail(c && c->type == DPG_COL_DOUBLE);
  g_array_append_val(c->values, v);
}

void dpg_table_push_string(DpgTable *t, guint j, const char *v) {
  Column *c = col(t, j);
  g_return_if_fail(c && c->type == DPG_COL_STRING);
  char *s = g_strdup(v);
  g_array_append_val(c->values, s);
}

void dpg_table_end_row(DpgTable *t) {
  t->n_rows++;
  for (guint j = 0; j < t->cols->len; j++)
    g_return_if_fail(col(t, j)->values->len == t->n_rows);
}

void dpg_table_set_attr(DpgTable *t, const char *key, const char *value) {
  g_ptr_array_add(t->keys, g_strdup(key));
  g_ptr_array_add(t->values, g_strdup(value));
}

void dpg_table_set_attr_printf(DpgTable *t, const char *key, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_ptr_array_add(t->keys, g_strdup(key));
  g_ptr_array_add(t->values, g_strdup_vprintf(fmt, ap));
  va_end(ap);
}

void dpg_table_take_matrix(DpgTable *t, double *m, guint rows, guint cols) {
  g_free(t->matrix);
  t->matrix = m;
  t->rows = rows;
  t->cols_m = cols;
}

size_t dpg_table_n_rows(const DpgTable *t) {
  return t->n_rows;
}
unsigned dpg_table_n_cols(const DpgTable *t) {
  return t->cols->len;
}

const char *dpg_table_col_name(const DpgTable *t, unsigned j) {
  const Column *c = col(t, j);
  return c ? c->name : NULL;
}

int dpg_table_col_type(const DpgTable *t, unsigned j) {
  const Column *c = col(t, j);
  return c ? (int)c->type : -1;
}

const int64_t *dpg_table_col_int(const DpgTable *t, unsigned j) {
  const Column *c = col(t, j);
  return c && c->type == DPG_COL_INT ? (const int64_t *)(void *)c->values->data : NULL;
}

const double *dpg_table_col_double(const DpgTable *t, unsigned j) {
  const Column *c = col(t, j);
  return c && c->type == DPG_COL_DOUBLE ? (const double *)(void *)c->values->data : NULL;
}

const char *dpg_table_col_string(const DpgTable *t, unsigned j, size_t i) {
  const Column *c = col(t, j);
  return c && c->type == DPG_COL_STRING && i < c->values->len ? g_array_index(c->values, char *, i)
                                                              : NULL;
}

unsigned dpg_table_n_attrs(const DpgTable *t) {
  return t->keys->len;
}

const char *dpg_table_attr_key(const DpgTable *t, unsigned i) {
  return i < t->keys->len ? g_ptr_array_index(t->keys, i) : NULL;
}

const char *dpg_table_attr_value(const DpgTable *t, unsigned i) {
  return i < t->values->len ? g_ptr_array_index(t->values, i) : NULL;
}

const double *dpg_table_matrix(const DpgTable *t, unsigned *rows, unsigned *cols) {
  if (rows)
    *rows = t->matrix ? t->rows : 0;
  if (cols)
    *cols = t->matrix ? t->cols_m : 0;
  return t->matrix;
}

/* ---- Errors ---- */

gpointer dpg_fail(DpgError *err, GError *error, int status) {
  if (err != NULL) {
    g_free(err->message);
    err->message = g_strdup(error != NULL ? error->message : "failed");
    err->status = status;
  }
  g_clear_error(&error);
  return NULL;
}

gpointer dpg_usage(DpgError *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err != NULL) {
    g_free(err->message);
    err->message = g_strdup_vprintf(fmt, ap);
    err->status = 2;
  }
  va_end(ap);
  return NULL;
}

