/*
 * sim/linvec_dense.c: dense provenance rows.
 *
 * A row covers the columns seen so far (len), not the whole registry or
 * round horizon: gossip makes provenance dense over time, but a row of round
 * t never needs the columns of later rounds, and growing on demand avoids
 * reallocating every linvec whenever a noise variable is registered.
 */
#define G_LOG_DOMAIN "dpg-sim"

#include "sim/linvec_internal.h"

#include <string.h>

void lin_row_free(LinRow *r) {
  g_free(r->val);
  g_free(r->idx);
  memset(r, 0, sizeof *r);
}

/* Makes room for len columns without changing the row. */
static void dense_reserve(LinRow *r, gsize len) {
  if (len <= r->cap)
    return;
  gsize cap = MAX(len, MAX(r->cap * 2, (gsize)16));
  r->val = g_renew(double, r->val, cap);
  r->cap = cap;
}

/* Extends the row to cover len columns, the new ones zero. */
static void dense_extend(LinRow *r, gsize len) {
  if (len <= r->len)
    return;
  dense_reserve(r, len);
  memset(r->val + r->len, 0, (len - r->len) * sizeof(double));
  r->len = len;
}

void lin_dense_add(LinRow *r, guint32 col, double c) {
  dense_extend(r, (gsize)col + 1);
  r->val[col] = lin_madd(r->val[col], 1.0, c);
}

void lin_dense_axpy(LinRow *y, double a, const LinRow *x) {
  dense_extend(y, x->len);
  double *restrict yv = y->val;
  const double *xv = x->val;
  if (x == y) {
    for (gsize i = 0; i < y->len; i++)
      yv[i] = lin_madd(yv[i], a, yv[i]);
    return;
  }
  for (gsize i = 0; i < x->len; i++)
    yv[i] = lin_madd(yv[i], a, xv[i]);
}

void lin_dense_scale(LinRow *r, double a) {
  if (a == 0.0) {
    r->len = 0;
    return;
  }
  for (gsize i = 0; i < r->len; i++)
    r->val[i] *= a;
}

void lin_dense_copy(LinRow *dst, const LinRow *src) {
  if (dst == src)
    return;
  dense_reserve(dst, src->len);
  if (src->len > 0)
    memcpy(dst->val, src->val, src->len * sizeof(double));
  dst->len = src->len;
}

double lin_dense_get(const LinRow *r, guint32 col) {
  return col < r->len ? r->val[col] : 0.0;
}

gsize lin_dense_nnz(const LinRow *r) {
  gsize n = 0;
  for (gsize i = 0; i < r->len; i++)
    n += r->val[i] != 0.0;
  return n;
}

double lin_dense_dot(const LinRow *x, const LinRow *y) {
  gsize len = MIN(x->len, y->len);
  double s = 0.0;
  /* Zero products are skipped so the sum sees exactly the sparse sequence. */
  for (gsize i = 0; i < len; i++)
    if (x->val[i] != 0.0 && y->val[i] != 0.0)
      s = lin_madd(s, x->val[i], y->val[i]);
  return s;
}

gboolean lin_dense_next(const LinRow *r, gsize *pos, guint32 *col, double *c) {
  for (gsize i = *pos; i < r->len; i++)
    if (r->val[i] != 0.0) {
      *col = (guint32)i;
      *c = r->val[i];
      *pos = i + 1;
      return TRUE;
    }
  *pos = r->len;
  return FALSE;
}
