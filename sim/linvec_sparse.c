/*
 * sim/linvec_sparse.c: sparse provenance rows, sorted (column, coefficient)
 * lists without zeros.
 *
 * axpy updates the columns x shares with y in place and merges the rest
 * from the back: no temporary buffer, no allocation once a row has reached
 * its size, and no entry moved when x's columns are all in y already.
 */
#define G_LOG_DOMAIN "dpg-sim"

#include "sim/linvec_internal.h"

#include <string.h>

static void sparse_reserve(LinRow *r, gsize len) {
  if (len <= r->cap)
    return;
  gsize cap = MAX(len, MAX(r->cap * 2, (gsize)8));
  r->val = g_renew(double, r->val, cap);
  r->idx = g_renew(guint32, r->idx, cap);
  r->cap = cap;
}

/* First position whose column is >= col. */
static gsize lower_bound(const LinRow *r, guint32 col) {
  /* Provenance mostly grows at its end (the newest slot or noise). */
  if (r->len == 0 || r->idx[r->len - 1] < col)
    return r->len;
  return sim_sorted_search(r->idx, 0, r->len, col);
}

static void erase_at(LinRow *r, gsize p) {
  gsize tail = r->len - p - 1;
  memmove(r->idx + p, r->idx + p + 1, tail * sizeof(guint32));
  memmove(r->val + p, r->val + p + 1, tail * sizeof(double));
  r->len--;
}

void lin_sparse_add(LinRow *r, guint32 col, double c) {
  gsize p = lower_bound(r, col);
  if (p < r->len && r->idx[p] == col) {
    double v = lin_madd(r->val[p], 1.0, c);
    if (v == 0.0)
      erase_at(r, p);
    else
      r->val[p] = v;
    return;
  }
  /* Dense computes 0 + c here: the same nonzero, or a zero not stored. */
  if (c == 0.0)
    return;
  sparse_reserve(r, r->len + 1);
  gsize tail = r->len - p;
  memmove(r->idx + p + 1, r->idx + p, tail * sizeof(guint32));
  memmove(r->val + p + 1, r->val + p, tail * sizeof(double));
  r->idx[p] = col;
  r->val[p] = c;
  r->len++;
}

/* Drops the zeros of a row in one pass. */
static void compact(LinRow *r) {
  gsize w = 0;
  for (gsize i = 0; i < r->len; i++)
    if (r->val[i] != 0.0) {
      r->idx[w] = r->idx[i];
      r->val[w] = r->val[i];
      w++;
    }
  r->len = w;
}

/*
 * Merges x[j0 .. len) into y[i0 .. len), both suffixes starting past every
 * column handled so far, from the back: with room for the union, the write
 * cursor stays ahead of the unread part of y.
 */
static void merge_tail(LinRow *y, gsize i0, double a, const LinRow *x, gsize j0) {
  gsize m = y->len, p = x->len - j0;
  sparse_reserve(y, m + p);
  guint32 *yi = y->idx;
  double *yv = y->val;
  const guint32 *xi = x->idx;
  const double *xv = x->val;
  /* Cursors are one past the next element, to stay unsigned. */
  gsize i = m, j = x->len, w = m + p;
  while (j > j0) {
    guint32 col;
    double v;
    if (i > i0 && yi[i - 1] > xi[j - 1]) {
      i--;
      col = yi[i];
      v = yv[i]; /* dense: y + a * 0 == y for a finite, y nonzero */
    } else if (i > i0 && yi[i - 1] == xi[j - 1]) {
      i--;
      j--;
      col = yi[i];
      v = lin_madd(yv[i], a, xv[j]);
    } else {
      j--;
      col = xi[j];
      v = lin_madd(0.0, a, xv[j]); /* dense: 0 + a x */
    }
    if (v != 0.0) {
      w--;
      yi[w] = col;
      yv[w] = v;
    }
  }
  /* y[0 .. i) is in place; the merged tail is [w, m + p). */
  gsize tail = m + p - w;
  if (w > i) {
    memmove(yi + i, yi + w, tail * sizeof(guint32));
    memmove(yv + i, yv + w, tail * sizeof(double));
  }
  y->len = i + tail;
}

void lin_sparse_axpy(LinRow *y, double a, const LinRow *x) {
  if (x == y) {
    for (gsize i = 0; i < y->len; i++)
      y->val[i] = lin_madd(y->val[i], a, y->val[i]);
    compact(y);
    return;
  }
  /*
   * After a few gossip rounds most of x's columns are already in y: update
   * those in place, front to back, and merge only from the first column of x
   * that y lacks. Zeros from cancellation are swept once at the end.
   */
  gsize i = 0, j = 0, m = y->len, p = x->len;
  gboolean zeros = FALSE;
  guint32 *yi = y->idx;
  double *yv = y->val;
  const guint32 *xi = x->idx;
  const double *xv = x->val;
  while (j < p) {
    while (i < m && yi[i] < xi[j])
      i++;
    /* A run of shared columns: find its end, then update it in one loop the
     * compiler can vectorize. */
    gsize run = 0, lim = MIN(m - i, p - j);
    while (run + 64 <= lim && memcmp(yi + i + run, xi + j + run, 64 * sizeof(guint32)) == 0)
      run += 64;
    while (run < lim && yi[i + run] == xi[j + run])
      run++;
    if (run == 0)
      break;
    double *restrict yr = yv + i;
    const double *xr = xv + j;
    gsize nz = 0;
    for (gsize k = 0; k < run; k++) {
      yr[k] = lin_madd(yr[k], a, xr[k]);
      nz += yr[k] == 0.0;
    }
    zeros |= nz > 0;
    i += run;
    j += run;
  }
  if (j < p)
    merge_tail(y, i, a, x, j);
  if (zeros)
    compact(y);
}

void lin_sparse_scale(LinRow *r, double a) {
  if (a == 0.0) {
    r->len = 0;
    return;
  }
  for (gsize i = 0; i < r->len; i++)
    r->val[i] *= a;
  compact(r); /* underflow */
}

void lin_sparse_copy(LinRow *dst, const LinRow *src) {
  if (dst == src)
    return;
  sparse_reserve(dst, src->len);
  if (src->len > 0) {
    memcpy(dst->idx, src->idx, src->len * sizeof(guint32));
    memcpy(dst->val, src->val, src->len * sizeof(double));
  }
  dst->len = src->len;
}

double lin_sparse_get(const LinRow *r, guint32 col) {
  gsize p = lower_bound(r, col);
  return p < r->len && r->idx[p] == col ? r->val[p] : 0.0;
}

double lin_sparse_dot(const LinRow *x, const LinRow *y) {
  double s = 0.0;
  gsize i = 0, j = 0;
  while (i < x->len && j < y->len) {
    if (x->idx[i] < y->idx[j])
      i++;
    else if (x->idx[i] > y->idx[j])
      j++;
    else {
      s = lin_madd(s, x->val[i], y->val[j]);
      i++;
      j++;
    }
  }
  return s;
}

gboolean lin_sparse_next(const LinRow *r, gsize *pos, guint32 *col, double *c) {
  if (*pos >= r->len)
    return FALSE;
  *col = r->idx[*pos];
  *c = r->val[*pos];
  (*pos)++;
  return TRUE;
}
