/*
 * privacy/rowset.c: stores of sparse rows: the plain one (PrivRows, an
 * attacker knowledge's) and a pool in which identical rows are stored
 * once. The observer pools the payloads the views observe (a message seen by
 * several views, or resent unchanged, is one row); the streaming accountant
 * pools a checkpoint's transition rows (a node's payloads in flight share
 * their model's row). Rows are compared bit for bit: two rows are one only
 * when every coefficient is the same double.
 */
#include "privacy/stream_internal.h"

#include <string.h>

void priv_rows_init(PrivRows *r) {
  r->start = g_array_new(FALSE, FALSE, sizeof(gsize));
  gsize zero = 0;
  g_array_append_val(r->start, zero);
  r->ngrad = g_array_new(FALSE, FALSE, sizeof(guint32));
  r->cols = g_array_new(FALSE, FALSE, sizeof(guint32));
  r->vals = g_array_new(FALSE, FALSE, sizeof(double));
}

void priv_rows_clear(PrivRows *r) {
  g_array_unref(r->start);
  g_array_unref(r->ngrad);
  g_array_unref(r->cols);
  g_array_unref(r->vals);
}

void priv_rows_reset(PrivRows *r) {
  g_array_set_size(r->start, 1);
  g_array_set_size(r->ngrad, 0);
  g_array_set_size(r->cols, 0);
  g_array_set_size(r->vals, 0);
}

void priv_rows_extend(PrivRows *r, const guint32 *cols, const double *vals, gsize len) {
  g_array_append_vals(r->cols, cols, (guint)len);
  g_array_append_vals(r->vals, vals, (guint)len);
}

guint priv_rows_end(PrivRows *r, guint32 ngrad) {
  guint id = r->ngrad->len;
  g_array_append_val(r->ngrad, ngrad);
  gsize end = r->cols->len;
  g_array_append_val(r->start, end);
  return id;
}

PrivRowPool priv_rows_pool(const PrivRows *r) {
  return (PrivRowPool){(const gsize *)r->start->data, (const guint32 *)r->ngrad->data,
                       (const guint32 *)r->cols->data, (const double *)r->vals->data};
}

void priv_row_set_init(PrivRowSet *r) {
  priv_rows_init(&r->rows);
  r->index = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                   (GDestroyNotify)g_array_unref);
  r->scratch_cols = g_array_new(FALSE, FALSE, sizeof(guint32));
  r->scratch_vals = g_array_new(FALSE, FALSE, sizeof(double));
}

void priv_row_set_clear(PrivRowSet *r) {
  priv_rows_clear(&r->rows);
  g_hash_table_unref(r->index);
  g_array_unref(r->scratch_cols);
  g_array_unref(r->scratch_vals);
}

void priv_row_set_reset(PrivRowSet *r) {
  priv_rows_reset(&r->rows);
  g_hash_table_remove_all(r->index);
}

/* FNV-1a over the entries' bits: identical rows hash alike (exact doubles). */
static gint64 row_hash(const guint32 *cols, const double *vals, gsize len, guint32 ngrad) {
  guint64 h = 1469598103934665603ull ^ ngrad;
  for (gsize i = 0; i < len; i++) {
    guint64 bits;
    memcpy(&bits, &vals[i], sizeof bits);
    h = (h ^ cols[i]) * 1099511628211ull;
    h = (h ^ bits) * 1099511628211ull;
  }
  return (gint64)h;
}

/* The id of the row in @bucket equal to (cols, vals), or G_MAXUINT. */
static guint bucket_find(const PrivRowSet *r, const GArray *bucket, const guint32 *cols,
                         const double *vals, gsize len, guint32 ngrad) {
  PrivRowPool p = priv_rows_pool(&r->rows);
  for (guint i = 0; bucket && i < bucket->len; i++) {
    guint id = g_array_index(bucket, guint, i);
    if (p.start[id + 1] - p.start[id] == len && p.ngrad[id] == ngrad &&
        memcmp(p.cols + p.start[id], cols, len * sizeof(guint32)) == 0 &&
        memcmp(p.vals + p.start[id], vals, len * sizeof(double)) == 0)
      return id;
  }
  return G_MAXUINT;
}

guint priv_row_set_find(const PrivRowSet *r, const guint32 *cols, const double *vals, gsize len,
                        guint32 ngrad) {
  gint64 h = row_hash(cols, vals, len, ngrad);
  return bucket_find(r, g_hash_table_lookup(r->index, &h), cols, vals, len, ngrad);
}

guint priv_row_set_add(PrivRowSet *r, const guint32 *cols, const double *vals, gsize len,
                       guint32 ngrad) {
  gint64 h = row_hash(cols, vals, len, ngrad);
  GArray *bucket = g_hash_table_lookup(r->index, &h);
  guint found = bucket_find(r, bucket, cols, vals, len, ngrad);
  if (found != G_MAXUINT)
    return found;
  priv_rows_extend(&r->rows, cols, vals, len);
  guint id = priv_rows_end(&r->rows, ngrad);
  if (!bucket) {
    bucket = g_array_new(FALSE, FALSE, sizeof(guint));
    g_hash_table_insert(r->index, g_memdup2(&h, sizeof h), bucket);
  }
  g_array_append_val(bucket, id);
  return id;
}

guint32 priv_linvec_entries(const SimLinvec *v, GArray *cols, GArray *vals) {
  g_array_set_size(cols, 0);
  g_array_set_size(vals, 0);
  SimLinvecIter it;
  SimLinPart part;
  guint32 col, ngrad = 0;
  double c;
  sim_linvec_iter_init(&it, v, SIM_LIN_BOTH);
  while (sim_linvec_iter_next(&it, &part, &col, &c)) {
    if (c == 0.0)
      continue;
    g_array_append_val(cols, col);
    g_array_append_val(vals, c);
    if (part == SIM_LIN_GRAD)
      ngrad++;
  }
  return ngrad;
}

guint priv_row_set_add_linvec(PrivRowSet *r, const SimLinvec *v) {
  GArray *sc = r->scratch_cols, *sv = r->scratch_vals;
  guint32 ngrad = priv_linvec_entries(v, sc, sv);
  return priv_row_set_add(r, (const guint32 *)sc->data, (const double *)sv->data, sc->len, ngrad);
}

PrivRowPool priv_row_set_pool(const PrivRowSet *r) {
  return priv_rows_pool(&r->rows);
}
