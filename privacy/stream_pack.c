/*
 * privacy/stream_pack.c: a period's observed rows packed for the backward
 * walk when they far outnumber the view's state (docs/accounting-at-scale.md,
 * "Observer path": a SecLDP view of DECOR sees every node's model, k = n
 * rows a period, through a state of a few variables).
 *
 * The period's rows are A = Sc (Cs Gamma + c Go): Cs (k x sv) on the state,
 * Go on the period's own gradient columns J. Everything the period adds is
 * a sum of squares over rows, per victim, of four row sets linear in A:
 *   1. diag(sqrt(wt)) (Cs Gamma + c Go)       (the victims' norms, norm2)
 *   2. diag(sqrt(wt) / rn) A, rn > 0          (the amplification's reference)
 *   3. Y = L^-1 (P^T A)_top                   (X_u = Y_u^T Y_u, and y2)
 *   4. the dependent rows' residuals / fr     (res2, and each row's own q2)
 * Sums of squares over rows do not change under an orthogonal map of the
 * rows. Each of sets 1 to 3 is [M | N] over (state, J); the QR M = U [R; 0]
 * makes U^T [M | N] = [R, N1; 0, N2]: sv rows that still read the state
 * (walked back to period 0 as any row), and rows N2 over J alone, whose
 * sums are local to the period and computed here. Set 4 is kept row by row
 * (each dependent row has its own decision). The walk then carries
 * 3 sv + (k - rank) rows instead of k, and no k x n T matrix is formed.
 */
#include "privacy/stream_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void priv_stream_pack_free(PrivStreamPack *pk) {
  if (!pk)
    return;
  g_free(pk->jcol);
  g_free(pk->st);
  g_free(pk->dir);
  g_free(pk->loc);
  if (pk->xl)
    g_array_unref(pk->xl);
  g_free(pk);
}

gsize priv_stream_pack_bytes(const PrivStreamPack *pk) {
  if (!pk)
    return 0;
  gsize b = sizeof *pk + pk->nj * sizeof(guint32);
  b += (gsize)pk->nrow * (pk->sv + pk->nj) * sizeof(double);
  b += 3 * (gsize)pk->n * sizeof(double);
  return b + (pk->xl ? pk->xl->len * sizeof(PrivStreamPackEntry) : 0);
}

static int cmp_u32(const void *a, const void *b) {
  guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
  return x < y ? -1 : x > y;
}

/* The period's direct gradient columns, increasing, without repeats. */
static guint32 *direct_columns(const PrivStreamRec *r, guint *nj) {
  gsize total = r->go_start[r->k];
  guint32 *c = g_new(guint32, MAX(total, 1));
  /* A period may hold no direct gradient column: go_col is then NULL,
   * which memcpy and qsort must not be given, even for 0 bytes. */
  if (total > 0) {
    memcpy(c, r->go_col, total * sizeof(guint32));
    qsort(c, total, sizeof(guint32), cmp_u32);
  }
  guint m = 0;
  for (gsize i = 0; i < total; i++)
    if (m == 0 || c[m - 1] != c[i])
      c[m++] = c[i];
  *nj = m;
  return c;
}

static guint column_index(const guint32 *jcol, guint nj, guint32 col) {
  const guint32 *p = bsearch(&col, jcol, nj, sizeof(guint32), cmp_u32);
  return (guint)(p - jcol);
}

/* Rows Sc [Cs | c Go] (k x (sv + nj), row-major), in the rows' order. */
static double *scaled_rows(const PrivStreamRec *r, const PrivStreamPack *pk, double clip, int ea) {
  guint ld = pk->sv + pk->nj;
  double *B = g_new0(double, MAX((gsize)r->k * ld, 1));
  for (guint i = 0; i < r->k; i++) {
    double f = r->sc ? r->sc[i] : 1.0, *row = B + (gsize)i * ld;
    for (guint e = r->cs_start[i]; e < r->cs_start[i + 1]; e++)
      row[r->cs_col[e]] += f * r->cs_val[e];
    for (guint e = r->go_start[i]; e < r->go_start[i + 1]; e++)
      row[pk->sv + column_index(pk->jcol, pk->nj, r->go_col[e])] += f * clip *
                                                                    ldexp(r->go_val[e], -ea);
  }
  return B;
}

/* Adds the squares of @rows rows of @G (over the direct columns, leading
 * dimension @ld) per victim into @acc (n). */
static void local_norms(const PrivStreamPack *pk, const double *G, guint rows, guint ld,
                        double *acc) {
  for (guint i = 0; i < rows; i++)
    for (guint j = 0; j < pk->nj; j++) {
      double x = G[(gsize)i * ld + pk->sv + j];
      acc[pk->jcol[j] % pk->n] += x * x;
    }
}

/* The bottom rows' X entries: per victim, the inner products of its
 * direct columns over the rows (t1 <= t2: the blocks' upper triangles). */
static void local_blocks(PrivStreamPack *pk, const double *G, guint rows, guint ld) {
  for (guint a = 0; a < pk->nj; a++)
    for (guint b = a; b < pk->nj; b++) {
      if (pk->jcol[a] % pk->n != pk->jcol[b] % pk->n)
        continue;
      double s = 0.0;
      for (guint i = 0; i < rows; i++)
        s += G[(gsize)i * ld + pk->sv + a] * G[(gsize)i * ld + pk->sv + b];
      PrivStreamPackEntry e = {pk->jcol[a] % pk->n, pk->jcol[a] / pk->n, pk->jcol[b] / pk->n, s};
      g_array_append_val(pk->xl, e);
    }
}

/* Compresses the row set @G (@rows x (sv + nj)) as the file's comment says:
 * its first min(rows, sv) rows go to the pack's pushed rows from @at, the
 * others to the local sums @acc (and the X entries with @blocks). */
static gboolean compress_set(PrivStreamPack *pk, double *G, guint rows, guint at, double *acc,
                             gboolean blocks, GError **error) {
  guint sv = pk->sv, ld = sv + pk->nj, top = MIN(rows, sv);
  if (top > 0) {
    double *tau = g_new(double, top);
    lapack_int info = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)sv, G,
                                     (lapack_int)ld, tau);
    if (info == 0 && pk->nj > 0)
      info = LAPACKE_dormqr(LAPACK_ROW_MAJOR, 'L', 'T', (lapack_int)rows, (lapack_int)pk->nj,
                            (lapack_int)top, G, (lapack_int)ld, tau, G + sv, (lapack_int)ld);
    g_free(tau);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "packing a period's rows failed (LAPACK info %d)", (int)info);
      return FALSE;
    }
    for (guint i = 0; i < top; i++)
      for (guint l = 0; l < i && l < sv; l++)
        G[(gsize)i * ld + l] = 0.0; /* below R's diagonal: the reflectors */
    for (guint i = 0; i < top; i++) {
      memcpy(pk->st + (gsize)(at + i) * sv, G + (gsize)i * ld, sv * sizeof(double));
      memcpy(pk->dir + (gsize)(at + i) * pk->nj, G + (gsize)i * ld + sv, pk->nj * sizeof(double));
    }
  }
  const double *bottom = G + (gsize)top * ld;
  local_norms(pk, bottom, rows - top, ld, acc);
  if (blocks)
    local_blocks(pk, bottom, rows - top, ld);
  return TRUE;
}

gboolean priv_stream_pack_new(const PrivStreamRec *r, guint n, double clip, int ea,
                              PrivStreamPack **out, GError **error) {
  *out = NULL;
  guint k = r->k, rank = r->rank, sv = r->sv;
  if (k == 0 || 3 * (gsize)sv + (k - rank) >= k)
    return TRUE; /* nothing to gain */
  PrivStreamPack *pk = g_new0(PrivStreamPack, 1);
  pk->n = n;
  pk->sv = sv;
  pk->ea = ea;
  pk->jcol = direct_columns(r, &pk->nj);
  pk->rows[0] = pk->rows[1] = pk->rows[2] = MIN(sv, rank);
  pk->rows[3] = k - rank;
  pk->nrow = 3 * MIN(sv, rank) + (k - rank);
  guint ld = sv + pk->nj;
  pk->st = g_new0(double, MAX((gsize)pk->nrow * sv, 1));
  pk->dir = g_new0(double, MAX((gsize)pk->nrow * pk->nj, 1));
  pk->loc = g_new0(double, 3 * (gsize)n);
  pk->xl = g_array_new(FALSE, FALSE, sizeof(PrivStreamPackEntry));
  double *B = scaled_rows(r, pk, clip, ea);
  double *G = g_new(double, MAX((gsize)k * ld, 1));
  /* Set 1: sqrt(wt) (Cs Gamma + c Go), the rows' scales divided out. */
  for (guint i = 0; i < k; i++) {
    double f = r->sc ? r->sc[i] : 1.0, s = sqrt(r->wt[i]) / f;
    for (guint c = 0; c < ld; c++)
      G[(gsize)i * ld + c] = s * B[(gsize)i * ld + c];
  }
  gboolean ok = compress_set(pk, G, k, 0, pk->loc, FALSE, error);
  /* Set 2: sqrt(wt) / rn A (rows without noise: none). */
  for (guint i = 0; ok && i < k; i++) {
    double s = r->rn[i] > 0 ? sqrt(r->wt[i]) / r->rn[i] : 0.0;
    for (guint c = 0; c < ld; c++)
      G[(gsize)i * ld + c] = s * B[(gsize)i * ld + c];
  }
  ok = ok && compress_set(pk, G, k, pk->rows[0], pk->loc + n, FALSE, error);
  /* Sets 3 and 4: the whitened rows, as account_rows forms them. */
  for (guint i = 0; ok && i < k; i++)
    memcpy(G + (gsize)i * ld, B + (gsize)(r->jpvt[i] - 1) * ld, ld * sizeof(double));
  if (ok && rank > 0)
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)rank,
                (int)ld, 1.0, r->rt, (int)rank, G, (int)ld);
  if (ok && rank > 0 && rank < k)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(k - rank), (int)ld, (int)rank,
                -1.0, r->rt + (gsize)rank * rank, (int)rank, G, (int)ld, 1.0, G + (gsize)rank * ld,
                (int)ld);
  guint at4 = pk->rows[0] + pk->rows[1] + pk->rows[2];
  for (guint i = rank; ok && i < k; i++) {
    double fr = r->sc ? r->sc[r->jpvt[i] - 1] : 1.0, *row = G + (gsize)i * ld;
    guint at = at4 + (i - rank);
    for (guint l = 0; l < sv; l++)
      pk->st[(gsize)at * sv + l] = row[l] / fr;
    for (guint j = 0; j < pk->nj; j++)
      pk->dir[(gsize)at * pk->nj + j] = row[sv + j] / fr;
  }
  ok = ok &&
       compress_set(pk, G, rank, pk->rows[0] + pk->rows[1], pk->loc + 2 * (gsize)n, TRUE, error);
  gboolean finite = TRUE; /* out of range at this scale: the rows as they are */
  for (gsize i = 0; ok && finite && i < 3 * (gsize)n; i++)
    finite = isfinite(pk->loc[i]);
  for (guint i = 0; ok && finite && i < pk->xl->len; i++)
    finite = isfinite(g_array_index(pk->xl, PrivStreamPackEntry, i).x);
  g_free(B);
  g_free(G);
  if (ok && finite)
    *out = pk;
  else
    priv_stream_pack_free(pk);
  return ok;
}
