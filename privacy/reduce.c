/*
 * privacy/reduce.c: the generic accountant: from an attacker knowledge
 * O = A G + B Z to the per-victim blocks X_u of X = (B^+ A)^T (B^+ A).
 *
 * Choice of factorization. X = A^T (B B^T)^+ A could be formed from an
 * eigendecomposition of B B^T, but that squares the condition number of B and
 * needs a rank decision on squared singular values. A QR factorization with
 * column pivoting of B^T (LAPACK dgeqp3) works on B itself and is exactly the
 * proof of the paper's main theorem: the pivot order selects a maximal set of
 * linearly independent observations (its Algorithm "rows selection"; the other
 * rows are combinations of them), and R^T is the LQ factor of the selected
 * rows. With B^T P = Q R, R = [R11 R12; 0 ~0] (R11 r x r):
 *   B = P [R11^T; R12^T] Q1^T,  A in range(B)  <=>  P^T A = [A1; A2] with
 *   A2 = R12^T R11^{-T} A1,  and then  B^+ A = Q1 R11^{-T} A1,
 * so X = Y^T Y with Y = R11^{-T} A1: one triangular solve, and B^+ is never
 * formed. The range condition is checked per victim (its own columns of A),
 * since a victim's guarantee only depends on how its own gradients are seen.
 *
 * Decisions in double precision (privacy/range.c). The rank cut is relative
 * to |R_00|, the largest row; when it drops a row that is independent at its
 * own scale (rows of disparate norms), the factorization is redone with every
 * row scaled to unit noise norm by a power of two (exact), where the two
 * criteria agree; otherwise the arithmetic is left as it was, so results away
 * from any threshold do not change. Each victim then gets its evidence (the
 * residual of its view, the noise remainder of the dependent rows carrying
 * it, the amplification of the solve) and priv_range_decide's verdict:
 * PROTECTED, UNPROTECTED, or UNRESOLVED when double precision cannot tell a
 * near-dependency from an exact one or cannot support the number.
 *
 * Known noise variables are removed as columns of B rather than added as rows
 * [0 | e_k]: both give the same X and the same range test, because the
 * invertible row operation that subtracts B[:, K] Z_K from the other rows maps
 * one knowledge onto the other (and X = C^T B^+ B C only depends on the row
 * space of B); removing them keeps B smaller.
 */
#include "privacy/knowledge_internal.h"

#include <math.h>
#include <string.h>

#define UNUSED G_MAXUINT32

/* The dense matrices below: B^T (noise columns x rows), A and its permuted
 * copy (rows x gradient columns each). */
static gsize dense_doubles(gsize rows, gsize grad_cols, gsize noise_cols) {
  return priv_size_sum3(MAX(noise_cols, 1), rows, 2 * rows, grad_cols, 0, 0);
}

gboolean priv_knowledge_check_memory(gsize rows, gsize grad_cols, gsize noise_cols, gsize max_bytes,
                                     GError **error) {
  return priv_check_budget(mf_doubles_bytes(dense_doubles(rows, grad_cols, noise_cols)), max_bytes,
                           "accounting the attacker knowledge", error);
}

/* Bt (m x r column-major: column q is kept row q of B) and A (r x c
 * row-major, units of Delta) from the knowledge; kept row q is knowledge row
 * row_of[q], multiplied by sc[q] when @sc is given. */
static void fill(const PrivKnowledge *k, const gsize *row_of, gsize r, guint n, guint T,
                 const guint32 *gidx, const guint32 *nidx, gsize m, gsize c, double clip,
                 const double *sc, double *Bt, double *A) {
  const gsize *rs = (const gsize *)k->rows.start->data;
  const guint32 *ng = (const guint32 *)k->rows.ngrad->data;
  const guint32 *cols = (const guint32 *)k->rows.cols->data;
  const double *vals = (const double *)k->rows.vals->data;
  gsize ld = MAX(m, 1);
  memset(Bt, 0, sizeof(double) * ld * r);
  memset(A, 0, sizeof(double) * r * c);
  for (gsize row = 0; row < r; row++) {
    gsize i = row_of[row];
    for (gsize e = rs[i]; e < rs[i + 1]; e++) {
      if (e < rs[i] + ng[i]) {
        if (priv_knowledge_slot_known(k, cols[e]))
          continue;
        guint32 j = gidx[(gsize)(cols[e] % n) * T + cols[e] / n];
        if (j != UNUSED)
          A[row * c + j] += clip * vals[e];
      } else if (!priv_knowledge_noise_known(k, cols[e])) {
        guint32 j = nidx[cols[e]];
        if (j != UNUSED)
          Bt[row * ld + j] += vals[e];
      }
    }
    if (sc) {
      cblas_dscal((int)m, sc[row], Bt + row * ld, 1);
      cblas_dscal((int)c, sc[row], A + row * c, 1);
    }
  }
}

/*
 * QR with column pivoting of B^T (overwritten by R and the reflectors), rank
 * by |R_qq| relative to |R_00|, then Ap = P^T A (r x c column-major) with
 * Y = R11^-T A1 in its first *rank rows and the residual A2 - R12^T Y below.
 */
static gboolean factor(double *Bt, gsize m, gsize r, const double *A, gsize c, double *Ap,
                       lapack_int *jpvt, double *tau, double rank_tol, gsize *rank_out,
                       GError **error) {
  gsize rank = 0;
  memset(jpvt, 0, sizeof(lapack_int) * r);
  if (m > 0) {
    lapack_int info = LAPACKE_dgeqp3(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)r, Bt,
                                     (lapack_int)m, jpvt, tau);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the QR factorization of the noise matrix failed (LAPACK info %d)", (int)info);
      return FALSE;
    }
    double r00 = fabs(Bt[0]);
    while (rank < MIN(m, r) && fabs(Bt[rank * m + rank]) > rank_tol * r00 && r00 > 0)
      rank++;
  } else {
    for (gsize i = 0; i < r; i++)
      jpvt[i] = (lapack_int)(i + 1);
  }
  for (gsize i = 0; i < r; i++) {
    const double *src = A + (gsize)(jpvt[i] - 1) * c;
    for (gsize j = 0; j < c; j++)
      Ap[j * r + i] = src[j];
  }
  if (rank > 0)
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, (int)rank, (int)c,
                1.0, Bt, (int)m, Ap, (int)r);
  if (rank < r && rank > 0)
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)(r - rank), (int)c, (int)rank, -1.0,
                Bt + rank * m, (int)m, Ap, (int)r, 1.0, Ap + rank, (int)r);
  *rank_out = rank;
  return TRUE;
}

/*
 * Whether the rank cut (relative to |R_00|, the largest row) dropped a row
 * that is independent at its own scale: its noise remainder after the
 * selected rows (the norm of its column of R below row rank) above
 * rank_tol times its own noise norm. Rows of disparate scales do that; the
 * caller then factors again with every row scaled to unit noise norm, where
 * both criteria agree. O(r m).
 */
static gboolean trailing_independent(const double *Bt, gsize m, gsize r, gsize rank,
                                     const lapack_int *jpvt, const double *rn, double rank_tol) {
  if (m <= rank)
    return FALSE;
  for (gsize q = rank; q < r; q++) {
    double pn = cblas_dnrm2((int)(MIN(q, m - 1) + 1 - rank), Bt + q * m + rank, 1);
    if (pn > rank_tol * rn[jpvt[q] - 1])
      return TRUE;
  }
  return FALSE;
}

/* The options with their defaults filled in (zeros select them) and the
 * number of steps T the accounting covers, or FALSE with an error naming the
 * value out of range. */
static gboolean resolve_options(const PrivKnowledge *k, const PrivKnowledgeOptions *opt,
                                PrivKnowledgeOptions *o, guint *T, GError **error) {
  *o = opt ? *opt : (PrivKnowledgeOptions){0};
  if (!priv_options_resolve(&o->clip, &o->rank_tol, &o->range_tol)) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the clipping norm and the tolerances must be positive and finite "
                "(clip = %g, rank_tol = %g, range_tol = %g)",
                o->clip, o->rank_tol, o->range_tol);
    return FALSE;
  }
  *T = o->T ? o->T : MAX(k->steps_seen, 1u);
  if (k->steps_seen > *T) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "an observed message involves gradient step %u but the accounting covers "
                "only T = %u steps",
                k->steps_seen - 1, *T);
    return FALSE;
  }
  return TRUE;
}

/* What survives the reduction of a knowledge, and the dense factorization of
 * the kept rows. */
typedef struct {
  guint n, T;
  guint32 *gidx;       /* gradient slot (u-major, u * T + t) -> column of A, or UNUSED */
  guint32 *nidx;       /* noise variable -> column of B, or UNUSED */
  gboolean *keep;      /* knowledge row -> kept */
  gsize *cstart;       /* victim u's columns of A are [cstart[u], cstart[u+1]) */
  gsize r, c, m;       /* kept rows, gradient columns, noise columns */
  double *Bt, *A, *Ap; /* B^T, A and Y over the residual (fill, factor) */
  double *rn;          /* kept row -> its noise norm (after scaling, if scaled) */
  double *sc;          /* kept row -> its power-of-two scale, or NULL (unscaled) */
  double *tau;         /* dgeqp3's reflectors */
  lapack_int *jpvt;    /* dgeqp3's pivots */
  gsize *row_of;       /* kept row -> knowledge row */
  gsize rank;          /* rows selected by the rank cut */
} Reduction;

static void reduction_clear(Reduction *x) {
  g_free(x->gidx);
  g_free(x->nidx);
  g_free(x->keep);
  g_free(x->cstart);
  g_free(x->Bt);
  g_free(x->A);
  g_free(x->Ap);
  g_free(x->tau);
  g_free(x->jpvt);
  g_free(x->rn);
  g_free(x->sc);
  g_free(x->row_of);
}

/* Numbers the rows, gradient columns and noise columns that survive the
 * reduction (nonzero, not known to the attacker). Gradient columns are
 * numbered victim by victim so that each victim's columns are contiguous.
 * O(nnz + n T). */
static void reduction_index(const PrivKnowledge *k, Reduction *x) {
  guint n = x->n, T = x->T;
  const gsize *rs = (const gsize *)k->rows.start->data;
  const guint32 *ng = (const guint32 *)k->rows.ngrad->data;
  const guint32 *cols = (const guint32 *)k->rows.cols->data;
  const double *vals = (const double *)k->rows.vals->data;
  gsize n_rows = k->rows.ngrad->len, nT = (gsize)n * T;
  x->gidx = g_new(guint32, nT);
  for (gsize i = 0; i < nT; i++)
    x->gidx[i] = UNUSED;
  guint32 max_noise = 0;
  gboolean any_noise = FALSE;
  for (gsize i = 0; i < n_rows; i++)
    for (gsize e = rs[i] + ng[i]; e < rs[i + 1]; e++) {
      if (priv_knowledge_noise_known(k, cols[e]))
        continue;
      max_noise = MAX(max_noise, cols[e]);
      any_noise = TRUE;
    }
  gsize noise_len = any_noise ? (gsize)max_noise + 1 : 0;
  x->nidx = g_new(guint32, MAX(noise_len, 1));
  for (gsize i = 0; i < noise_len; i++)
    x->nidx[i] = UNUSED;
  x->keep = g_new0(gboolean, MAX(n_rows, 1));
  for (gsize i = 0; i < n_rows; i++) {
    for (gsize e = rs[i]; e < rs[i + 1]; e++) {
      gboolean grad = e < rs[i] + ng[i];
      if (vals[e] == 0.0)
        continue;
      if (grad && !priv_knowledge_slot_known(k, cols[e])) {
        x->gidx[(gsize)(cols[e] % n) * T + cols[e] / n] = 0; /* mark used (u-major) */
        x->keep[i] = TRUE;
      } else if (!grad && !priv_knowledge_noise_known(k, cols[e])) {
        x->nidx[cols[e]] = 0;
        x->keep[i] = TRUE;
      }
    }
    if (x->keep[i])
      x->r++;
  }
  for (gsize i = 0; i < nT; i++)
    if (x->gidx[i] != UNUSED)
      x->gidx[i] = (guint32)x->c++;
  for (gsize i = 0; i < noise_len; i++)
    if (x->nidx[i] != UNUSED)
      x->nidx[i] = (guint32)x->m++;
  x->cstart = g_new0(gsize, n + 1);
  for (guint u = 0; u < n; u++) {
    gsize cnt = 0;
    for (guint t = 0; t < T; t++)
      cnt += x->gidx[(gsize)u * T + t] != UNUSED;
    x->cstart[u + 1] = x->cstart[u] + cnt;
  }
}

/* Allocates B^T (m x r), A and its permuted copy (r x c each) within the
 * budget, then factors: with unscaled rows first; rows again scaled to unit
 * noise norm (by powers of two: exact) only if the first one cut a row that
 * is independent at its own scale (trailing_independent). After a scaled
 * pass, rn holds the scaled rows' norms. O(m r^2 + r^2 c). */
static gboolean reduction_factor(const PrivKnowledge *k, const PrivKnowledgeOptions *o,
                                 Reduction *x, GError **error) {
  gsize r = x->r, c = x->c, m = x->m;
  if (!priv_knowledge_check_memory(r, c, m, o->max_bytes, error))
    return FALSE;
  if (!(x->Bt = priv_matrix_new(MAX(m, 1), r, error)) || !(x->A = priv_matrix_new(r, c, error)) ||
      !(x->Ap = priv_matrix_new(r, c, error)))
    return FALSE;
  x->row_of = g_new(gsize, r);
  for (gsize i = 0, row = 0; i < k->rows.ngrad->len; i++)
    if (x->keep[i])
      x->row_of[row++] = i;
  x->rn = g_new(double, r);
  x->jpvt = g_new0(lapack_int, r);
  if (m > 0)
    x->tau = g_new(double, MIN(m, r));
  for (int pass = 0; pass < 2; pass++) {
    fill(k, x->row_of, r, x->n, x->T, x->gidx, x->nidx, m, c, o->clip, x->sc, x->Bt, x->A);
    for (gsize i = 0; i < r; i++)
      x->rn[i] = cblas_dnrm2((int)m, x->Bt + i * MAX(m, 1), 1);
    if (!factor(x->Bt, m, r, x->A, c, x->Ap, x->jpvt, x->tau, o->rank_tol, &x->rank, error))
      return FALSE;
    if (pass == 1 || !trailing_independent(x->Bt, m, r, x->rank, x->jpvt, x->rn, o->rank_tol))
      break;
    x->sc = g_new(double, r);
    for (gsize i = 0; i < r; i++) {
      int e = 0;
      if (x->rn[i] > 0)
        frexp(x->rn[i], &e);
      x->sc[i] = ldexp(1.0, -e);
    }
  }
  return TRUE;
}

/* Victim @u's evidence for priv_range_decide into @ev: the norm of its view,
 * the residual outside range(B), the noise remainder of the dependent rows
 * that carry the residual (@rel: per dependent row, relative to its own
 * noise norm) and the amplification of the solve; FALSE when the kept rows
 * hold nothing of @u. O(r cu). */
static gboolean victim_evidence(const Reduction *x, guint u, const double *rel, double range_tol,
                                PrivRangeEvidence *ev) {
  gsize r = x->r, c = x->c, rank = x->rank, n_trail = r - rank;
  gsize c0 = x->cstart[u], cu = x->cstart[u + 1] - c0;
  const double *A = x->A, *Ap = x->Ap, *rn = x->rn;
  double norm2 = 0.0, res2 = 0.0, y2 = 0.0, left = 0.0, scaled2 = 0.0;
  for (gsize i = 0; i < r; i++)
    for (gsize j = c0; j < c0 + cu; j++) {
      norm2 += A[i * c + j] * A[i * c + j];
      if (rn[i] > 0)
        scaled2 += (A[i * c + j] / rn[i]) * (A[i * c + j] / rn[i]);
    }
  if (norm2 == 0.0)
    return FALSE;
  for (gsize j = c0; j < c0 + cu; j++) {
    for (gsize i = 0; i < rank; i++)
      y2 += Ap[j * r + i] * Ap[j * r + i];
    for (gsize i = rank; i < r; i++)
      res2 += Ap[j * r + i] * Ap[j * r + i];
  }
  /* Exact dependencies leave a rounding-level noise remainder, near ones more. */
  double carry2 = range_tol * range_tol * norm2 / (double)MAX(n_trail, 1);
  for (gsize i = rank; i < r; i++) {
    double ri2 = 0.0;
    for (gsize j = c0; j < c0 + cu; j++)
      ri2 += Ap[j * r + i] * Ap[j * r + i];
    if (ri2 > carry2)
      left = MAX(left, rel[i - rank]);
  }
  *ev = (PrivRangeEvidence){.norm = sqrt(norm2),
                            .residual = sqrt(res2),
                            .noise_left = left,
                            .amplification = scaled2 > 0 ? sqrt(y2 / scaled2) : 0.0};
  return TRUE;
}

/* X_u = Y_u^T Y_u (via @G, cu x cu scratch) scattered to victim @u's
 * steps in the T x T block @X. O(rank cu^2 + cu^2). */
static void victim_block(const Reduction *x, guint u, double *G, double *X) {
  gsize r = x->r, T = x->T, c0 = x->cstart[u], cu = x->cstart[u + 1] - c0;
  cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, (int)cu, (int)x->rank, 1.0, x->Ap + c0 * r,
              (int)r, 0.0, G, (int)cu);
  guint *steps = g_new(guint, cu);
  gsize q = 0;
  for (guint t = 0; t < T; t++)
    if (x->gidx[(gsize)u * T + t] != UNUSED)
      steps[q++] = t;
  for (gsize a = 0; a < cu; a++)
    for (gsize b = a; b < cu; b++) {
      double v = G[b + a * cu]; /* lower triangle, column-major (b >= a) */
      X[(gsize)steps[a] * T + steps[b]] = v;
      X[(gsize)steps[b] * T + steps[a]] = v;
    }
  g_free(steps);
}

/* Each victim's verdict and, when protected, its block. O(n r cu + rank cu^2). */
static void victims(const PrivKnowledge *k, const Reduction *x, double range_tol,
                    PrivBlocks *blocks) {
  gsize r = x->r, m = x->m, rank = x->rank, n_trail = r - rank;
  PrivRangeTolerances tol;
  priv_range_tolerances_default(&tol);
  tol.range_tol = range_tol;
  tol.clean = priv_range_clean_floor(m);
  double *rel = g_new0(double, MAX(n_trail, 1));
  for (gsize q = rank; q < r; q++) {
    gsize i = (gsize)(x->jpvt[q] - 1);
    double pn = m > rank ? cblas_dnrm2((int)(MIN(q, m - 1) + 1 - rank), x->Bt + q * m + rank, 1)
                         : 0.0;
    rel[q - rank] = x->rn[i] > 0 ? pn / x->rn[i] : 0.0;
  }
  double *G = g_new(double, (gsize)x->T * x->T);
  for (guint u = 0; u < x->n; u++) {
    if (x->cstart[u + 1] == x->cstart[u] || k->attacker[u])
      continue;
    PrivRangeEvidence ev;
    if (!victim_evidence(x, u, rel, range_tol, &ev))
      continue;
    PrivNodeStatus st = priv_range_decide(&ev, &tol);
    if (st != PRIV_NODE_PROTECTED)
      blocks->status[u] = st;
    else if (rank > 0)
      victim_block(x, u, G, blocks->X + (gsize)u * x->T * x->T);
  }
  g_free(G);
  g_free(rel);
}

PrivBlocks *priv_knowledge_blocks(const PrivKnowledge *k, const PrivKnowledgeOptions *opt,
                                  GError **error) {
  g_return_val_if_fail(k != NULL, NULL);
  PrivKnowledgeOptions o;
  guint T;
  if (!resolve_options(k, opt, &o, &T, error))
    return NULL;
  PrivBlocks *blocks = priv_blocks_new(k->n, T, error);
  if (!blocks)
    return NULL;
  for (guint u = 0; u < k->n; u++)
    if (k->attacker[u])
      blocks->status[u] = PRIV_NODE_ATTACKER;
  Reduction x = {.n = k->n, .T = T};
  reduction_index(k, &x);
  /* Nothing about any victim observed: X = 0. */
  gboolean ok = x.r == 0 || x.c == 0 || reduction_factor(k, &o, &x, error);
  if (ok && x.r > 0 && x.c > 0)
    victims(k, &x, o.range_tol, blocks);
  reduction_clear(&x);
  if (!ok) {
    priv_blocks_free(blocks);
    return NULL;
  }
  return blocks;
}
