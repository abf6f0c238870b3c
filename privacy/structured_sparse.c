/*
 * privacy/structured_sparse.c: the sparse products the structured engines
 * share (structured_kalman.c, structured_powers.c): a gossip matrix as CSR
 * and a row-parallel product whose output rows are split across threads in
 * fixed ranges, each entry one thread's sum in a fixed order, so the result
 * does not depend on the thread count.
 */
#include "privacy/structured_internal.h"

#include <math.h>
#include <string.h>

/* Below this many multiply-adds a product is not worth a thread. */
#define PAR_MIN_WORK 200000u
/* Most threads one product is split across. */
#define PAR_MAX_THREADS 64u

void priv_csr_clear(PrivCsr *m) {
  g_clear_pointer(&m->ptr, g_free);
  g_clear_pointer(&m->col, g_free);
  g_clear_pointer(&m->val, g_free);
}

void priv_csr_of(const TopoGossip *w, gboolean transpose, PrivCsr *m) {
  guint n = topo_gossip_n(w);
  gsize nnz = topo_gossip_nnz(w);
  priv_csr_clear(m);
  m->n = n;
  m->ptr = g_new0(guint, (gsize)n + 1);
  m->col = g_new(guint, MAX(nnz, 1));
  m->val = g_new(double, MAX(nnz, 1));
  if (!transpose) {
    for (guint u = 0; u < n; u++) {
      const guint *cols;
      const double *vals;
      guint len = topo_gossip_row(w, u, &cols, &vals);
      m->ptr[u + 1] = m->ptr[u] + len;
      memcpy(m->col + m->ptr[u], cols, sizeof(guint) * len);
      memcpy(m->val + m->ptr[u], vals, sizeof(double) * len);
    }
    return;
  }
  for (guint u = 0; u < n; u++) {
    const guint *cols;
    const double *vals;
    guint len = topo_gossip_row(w, u, &cols, &vals);
    for (guint j = 0; j < len; j++)
      m->ptr[cols[j] + 1]++;
  }
  for (guint v = 0; v < n; v++)
    m->ptr[v + 1] += m->ptr[v];
  guint *fill = g_memdup2(m->ptr, sizeof(guint) * n);
  /* Rows u in increasing order: each row of W^T comes out sorted. */
  for (guint u = 0; u < n; u++) {
    const guint *cols;
    const double *vals;
    guint len = topo_gossip_row(w, u, &cols, &vals);
    for (guint j = 0; j < len; j++) {
      guint k = fill[cols[j]]++;
      m->col[k] = u;
      m->val[k] = vals[j];
    }
  }
  g_free(fill);
}

/* ---- Row-parallel kernels ---- */

/* Rows of x that RIGHT takes together. */
#define RIGHT_ROWS 4u

/* RIGHT over rows [lo, hi): RIGHT_ROWS rows of x at a time, interleaved in
 * a buffer so that each entry of M reads their RIGHT_ROWS values from one
 * place (one load of M's entry and one cache line for the rows, instead of
 * RIGHT_ROWS scattered reads). Each output is still the sum over M's row in
 * its order. The buffer: RIGHT_ROWS ldx doubles. */
static void kernel_right(const PrivKernel *k) {
  const PrivCsr *m = k->m;
  guint nx = k->ldx;
  double *buf = g_new(double, (gsize)nx *RIGHT_ROWS);
  for (guint a0 = k->lo; a0 < k->hi; a0 += RIGHT_ROWS) {
    guint rows = MIN(RIGHT_ROWS, k->hi - a0);
    if (rows < RIGHT_ROWS)
      memset(buf, 0, sizeof(double) * nx * RIGHT_ROWS);
    for (guint i = 0; i < rows; i++) {
      const double *xa = k->x + (gsize)(a0 + i) * k->ldx;
      for (guint j = 0; j < nx; j++)
        buf[(gsize)j * RIGHT_ROWS + i] = xa[j];
    }
    double *y = k->y + (gsize)a0 * k->ldy;
    for (guint b = 0; b < m->n; b++) {
      double s[RIGHT_ROWS] = {0};
      for (guint i = m->ptr[b]; i < m->ptr[b + 1]; i++) {
        const double *xb = buf + (gsize)m->col[i] * RIGHT_ROWS;
        double w = m->val[i];
        for (guint t = 0; t < RIGHT_ROWS; t++)
          s[t] += w * xb[t];
      }
      for (guint t = 0; t < rows; t++)
        y[(gsize)t * k->ldy + b] = s[t];
    }
  }
  g_free(buf);
}

/* RIGHT_LOWER reads row a of x from cache while the rows of M are walked. */
static void kernel_run(const PrivKernel *k) {
  const PrivCsr *m = k->m;
  if (k->kind == PRIV_K_RIGHT) {
    kernel_right(k);
    return;
  }
  for (guint a = k->lo; a < k->hi; a++) {
    double *ya = k->y + (gsize)a * k->ldy;
    if (k->kind == PRIV_K_APPLY || k->kind == PRIV_K_APPLY_LOWER) {
      guint width = k->kind == PRIV_K_APPLY ? k->width : a + 1;
      memset(ya, 0, sizeof(double) * width);
      for (guint i = m->ptr[a]; i < m->ptr[a + 1]; i++) {
        const double *xv = k->x + (gsize)m->col[i] * k->ldx;
        double w = m->val[i];
        for (guint j = 0; j < width; j++)
          ya[j] += w * xv[j];
      }
    } else {
      const double *xa = k->x + (gsize)a * k->ldx;
      for (guint b = 0; b <= a; b++) {
        double s = 0.0;
        for (guint i = m->ptr[b]; i < m->ptr[b + 1]; i++)
          s += m->val[i] * xa[m->col[i]];
        ya[b] = s;
      }
    }
  }
}

static gpointer kernel_thread(gpointer data) {
  kernel_run(data);
  return NULL;
}

/* Each thread a fixed contiguous range of about equal work (RIGHT_LOWER's
 * row a costs about a). */
void priv_kernel_par(PrivKernel base, guint rows, guint threads) {
  double nnz = base.m->ptr[base.m->n];
  double work = base.kind == PRIV_K_APPLY   ? nnz * base.width
                : base.kind == PRIV_K_RIGHT ? nnz * rows
                                            : 0.5 * nnz * rows; /* the lower ones */
  guint nt = work < PAR_MIN_WORK ? 1 : MIN(MAX(threads, 1u), PAR_MAX_THREADS);
  nt = MIN(nt, MAX(rows, 1u));
  if (nt <= 1) {
    base.lo = 0;
    base.hi = rows;
    kernel_run(&base);
    return;
  }
  PrivKernel ks[PAR_MAX_THREADS];
  GThread *th[PAR_MAX_THREADS];
  guint lo = 0;
  for (guint t = 0; t < nt; t++) {
    guint hi;
    if (t + 1 == nt)
      hi = rows;
    else if (base.kind == PRIV_K_APPLY || base.kind == PRIV_K_RIGHT)
      hi = (guint)((guint64)rows * (t + 1) / nt);
    else /* equal areas of the triangle: a^2 / 2 = (t+1)/nt of the total */
      hi = (guint)(rows * sqrt((double)(t + 1) / nt));
    hi = CLAMP(hi, lo, rows);
    ks[t] = base;
    ks[t].lo = lo;
    ks[t].hi = hi;
    lo = hi;
  }
  for (guint t = 1; t < nt; t++)
    th[t] = g_thread_new("dpg-sparse", kernel_thread, &ks[t]);
  kernel_run(&ks[0]);
  for (guint t = 1; t < nt; t++)
    g_thread_join(th[t]);
}
