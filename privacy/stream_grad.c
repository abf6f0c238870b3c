/*
 * privacy/stream_grad.c: the streaming accountant's gradient side
 * (docs/accounting-at-scale.md, "Observer path").
 *
 * The noise side (privacy/stream.c) runs forward, period by period: it
 * conditions the view's state on what the view observed and leaves, per
 * period, a record (PrivStreamRec) of the linear maps that carry the
 * gradients: the observed rows A_p = Sc (Cs Gamma_p + c Go), their whitening
 * Y_p = L^-1 (P^T A_p)_top, and the next state Gamma_{p+1} = Ct Gamma_p +
 * c Gs - bq1 Y_p. Gamma_p (state x n T gradient columns) is dense after a
 * few gossip rounds: carrying it forward (PRIV_STREAM_FORWARD, the
 * reference) costs O(n^2 T) memory and O(n T (nnz + n q)) time per period.
 *
 * The backward engine never forms Gamma. A chunk of periods' observed rows
 * is a stack of functionals of the state, Omega (rows x state), stepped
 * back one period at a time to period 0:
 *
 *     Omega Gamma_{p+1} = (Omega Ct - V^T Sc Cs_top) Gamma_p
 *                         + c (Omega Gs - V^T Sc Go_top),
 *     V = L^-T bq1^T Omega^T,
 *
 * the second term being the rows' coefficients on the gradients injected
 * at period p. After the walk every row of the chunk is complete over the
 * n T gradient columns; the range decisions and X_u then run on each
 * period in order, exactly as the forward engine does. Cost per row and
 * period stepped: O(nnz(Ct) + s2v rank); memory: the records, O(n q) per
 * period, and the chunk's rows (n T x rows). A period with many more rows
 * than state (a SecLDP view of DECOR: k = n) goes through the walk packed
 * (privacy/stream_pack.c): 3 sv + k - rank rows, the rest summed at once.
 */
#include "privacy/stream_internal.h"

#include "privacy/knowledge_internal.h"

#include <math.h>
#include <string.h>

struct PrivStreamGrad {
  guint n, T;
  gsize ld; /* n T */
  double clip, range_tol;
  gsize max_bytes;
  PrivStreamEngine engine;
  guint chunk_rows;    /* 0: automatic */
  gboolean *is_member; /* n */
  gboolean *unprot;    /* n */
  double *ref2;        /* n: squared norm of each victim's columns over every period */
  PrivBlocks *blocks;  /* X accumulated in the upper triangles */
  /* Backward: every period's record, the first @done accounted. */
  GPtrArray *recs;
  guint done;
  gsize rec_bytes;
  guint max_s;  /* largest state of any record */
  guint packed; /* periods packed for the walk (privacy/stream_pack.c) */
  /* Forward: Gamma (sv x ld, row-major), columns >= gam_cols not yet valid. */
  double *gam, *gam2;
  gsize gam_cap, gam2_cap, gam_cols;
  guint sv;
  double *buf[6];
  gsize cap[6];
};

void priv_stream_rec_free(PrivStreamRec *r) {
  if (!r)
    return;
  g_free(r->cs_start);
  g_free(r->cs_col);
  g_free(r->cs_val);
  g_free(r->go_start);
  g_free(r->go_col);
  g_free(r->go_val);
  g_free(r->ct_start);
  g_free(r->ct_col);
  g_free(r->ct_val);
  g_free(r->gs_start);
  g_free(r->gs_col);
  g_free(r->gs_val);
  g_free(r->rt);
  g_free(r->bq1);
  g_free(r->jpvt);
  g_free(r->sc);
  g_free(r->rn);
  g_free(r->wt);
  g_free(r->rel);
  priv_stream_pack_free(r->pack);
  g_free(r);
}

gsize priv_stream_rec_bytes(const PrivStreamRec *r) {
  gsize entry = sizeof(guint) + sizeof(double);
  gsize b = sizeof *r + 2 * (r->k + 1) * sizeof(guint);
  b += (r->cs_start[r->k] + r->go_start[r->k]) * entry;
  b += (gsize)r->k * (sizeof(lapack_int) + sizeof(double));
  if (r->rt)
    b += (gsize)r->k * r->rank * sizeof(double);
  if (r->rn) /* what only the period's own accounting reads */
    b += (gsize)r->k * 3 * sizeof(double);
  b += priv_stream_pack_bytes(r->pack);
  if (r->transition) {
    b += 2 * ((gsize)r->s2v + 1) * sizeof(guint);
    b += (r->ct_start[r->s2v] + r->gs_start[r->s2v]) * entry;
    b += (gsize)r->s2v * r->rank * sizeof(double);
  }
  return b;
}

PrivStreamGrad *priv_stream_grad_new(const PrivStreamGradOptions *opt, GError **error) {
  PrivBlocks *b = priv_blocks_new(opt->n, opt->T, error);
  if (!b)
    return NULL;
  PrivStreamGrad *g = g_new0(PrivStreamGrad, 1);
  g->n = opt->n;
  g->T = opt->T;
  g->ld = (gsize)opt->n * opt->T;
  g->clip = opt->clip;
  g->range_tol = opt->range_tol;
  g->max_bytes = opt->max_bytes;
  g->engine = opt->engine;
  g->chunk_rows = opt->chunk_rows;
  g->is_member = g_memdup2(opt->is_member, opt->n * sizeof(gboolean));
  g->unprot = g_new0(gboolean, opt->n);
  g->ref2 = g_new0(double, opt->n);
  g->blocks = b;
  for (guint u = 0; u < opt->n; u++)
    if (opt->is_member[u])
      b->status[u] = PRIV_NODE_ATTACKER;
  g->recs = g_ptr_array_new_with_free_func((GDestroyNotify)priv_stream_rec_free);
  return g;
}

void priv_stream_grad_free(PrivStreamGrad *g) {
  if (!g)
    return;
  g_free(g->is_member);
  g_free(g->unprot);
  g_free(g->ref2);
  priv_blocks_free(g->blocks);
  g_ptr_array_unref(g->recs);
  g_free(g->gam);
  g_free(g->gam2);
  for (guint i = 0; i < G_N_ELEMENTS(g->buf); i++)
    g_free(g->buf[i]);
  g_free(g);
}

const PrivBlocks *priv_stream_grad_blocks(const PrivStreamGrad *g) {
  return g->blocks;
}

const gboolean *priv_stream_grad_unprot(const PrivStreamGrad *g) {
  return g->unprot;
}

guint priv_stream_grad_packed(const PrivStreamGrad *g) {
  return g->packed;
}

/* Scratch buffer @i of at least @count doubles (contents undefined), kept
 * from period to period: the rows' gradient parts would otherwise be mapped
 * and faulted in afresh every time. NULL with PRIV_ERROR_MEMORY. */
static double *scratch(PrivStreamGrad *g, guint i, gsize count, GError **error) {
  count = MAX(count, 1);
  if (g->cap[i] < count) {
    g_free(g->buf[i]);
    g->buf[i] = g_try_new(double, count);
    g->cap[i] = g->buf[i] ? count : 0;
    if (!g->buf[i]) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_MEMORY,
                  "the streaming accountant could not allocate %" G_GSIZE_FORMAT " MB of scratch",
                  count * sizeof(double) >> 20);
      return NULL;
    }
  }
  return g->buf[i];
}

/* Rows of the backward engine's chunks: about 128 MB of gradient columns,
 * 64 to 512 rows (below 64 the products lose their BLAS efficiency). */
static gsize chunk_target(const PrivStreamGrad *g) {
  if (g->chunk_rows > 0)
    return g->chunk_rows;
  return CLAMP(((gsize)128 << 20) / (sizeof(double) * MAX(g->ld, 1)), 64, 512);
}

gsize priv_stream_grad_bytes(const PrivStreamGrad *g) {
  gsize b = mf_doubles_bytes((gsize)g->n * g->T * g->T);
  b += mf_doubles_bytes((g->gam_cap + g->gam2_cap) * g->ld);
  return b + g->rec_bytes;
}

/* The rows period @r puts on the stack: its pack's, or its own (before it
 * is packed: what its pack would have, priv_stream_pack_new's rule). */
static guint stack_rows(const PrivStreamRec *r) {
  if (r->pack)
    return r->pack->nrow;
  guint packed = 3 * MIN(r->sv, r->rank) + (r->k - r->rank);
  return r->k > 0 && packed < r->k ? packed : r->k;
}

gboolean priv_stream_grad_fits(const PrivStreamGrad *g, const PrivStreamRec *rec, guint s2v,
                               gsize views_bytes, gsize noise_bytes, GError **error) {
  guint tsteps = rec->tsteps;
  double blocks = 8.0 * g->n * g->T * g->T;
  double need = (double)views_bytes + 2 * blocks + (double)noise_bytes;
  gsize nt = (gsize)g->n * tsteps;
  char *what;
  if (g->engine == PRIV_STREAM_FORWARD) {
    need += 8.0 * ((double)g->gam_cap + MAX(g->gam2_cap, s2v)) * g->ld;
    what = g_strdup_printf("the streaming accountant's state at step %u (%u state variables "
                           "for this view, each n T = %" G_GSIZE_FORMAT " gradient slots wide)",
                           tsteps, s2v, g->ld);
  } else {
    /* The chunk this record may close: the pending rows and its own. */
    gsize rows = stack_rows(rec);
    for (guint p = g->done; p < g->recs->len; p++)
      rows += stack_rows(g_ptr_array_index(g->recs, p));
    need += (double)g->rec_bytes + (double)priv_stream_rec_bytes(rec) + 8.0 * (double)s2v * rec->k;
    need += 8.0 * (double)nt * (double)rows;
    what = g_strdup_printf("the streaming accountant's state at step %u (the noise of %u state "
                           "variables for this view, %" G_GSIZE_FORMAT " MB; periods kept: %u; "
                           "a chunk of %" G_GSIZE_FORMAT " rows of n t = %" G_GSIZE_FORMAT
                           " gradient slots)",
                           tsteps, s2v, noise_bytes >> 20, g->recs->len + 1, rows, nt);
  }
  gsize n_b = need < (double)G_MAXSIZE / 2 ? (gsize)need : G_MAXSIZE;
  gboolean ok = priv_check_budget(n_b, g->max_bytes, what, error);
  g_free(what);
  return ok;
}

/* The gradient coefficient of a provenance value @x. */
static double gcoef(const PrivStreamGrad *g, double x, int ea) {
  return g->clip * ldexp(x, -ea);
}

/* ------------------------------------------------------------ one period */

static void decide(PrivStreamGrad *g, const PrivStreamRec *r, const double *norm2,
                   const double *res2, const double *y2, const double *scaled2, const double *left,
                   const double *Y, guint nY, gsize ld, const GArray *xl, int xe);

/*
 * The victims' norms into the run's reference (none for members and leaked
 * victims), then the noise left: a dependent row (@D, k - rank rows of @ld
 * gradient columns, divided by their scales with @divide) counts for it
 * when the victim's part of it is above the share of its norm that rounding
 * may carry. @q2: n scratch.
 */
static void noise_left(PrivStreamGrad *g, const PrivStreamRec *r, const double *D, gsize ld,
                       gboolean divide, double *norm2, double *left, double *q2) {
  guint n = g->n, n_trail = r->k - r->rank;
  for (guint u = 0; u < n; u++) {
    if (g->is_member[u] || g->unprot[u])
      norm2[u] = 0.0;
    g->ref2[u] += norm2[u];
  }
  for (guint j = 0; j < n_trail; j++) {
    double fr = divide ? r->sc[r->jpvt[r->rank + j] - 1] : 1.0;
    memset(q2, 0, n * sizeof(double));
    for (guint t = 0; t < r->tsteps; t++) {
      const double *b = D + (gsize)j * ld + (gsize)t * n;
      for (guint u = 0; u < n; u++)
        q2[u] += (b[u] / fr) * (b[u] / fr);
    }
    for (guint u = 0; u < n; u++) {
      double carry2 = g->range_tol * g->range_tol * g->ref2[u] / (double)MAX(n_trail, 1);
      if (norm2[u] != 0.0 && q2[u] > carry2)
        left[u] = MAX(left[u], r->rel[j]);
    }
  }
}

/*
 * The period's range decisions and X_u += Y_u^T Y_u from its complete rows
 * @A (k x n tsteps, rows scaled): the dense accountant's rules
 * (privacy/reduce.c, privacy/range.c) on the period's evidence; see
 * privacy/stream.c. @Ap (k x n tsteps) receives the whitened rows.
 */
static gboolean account_rows(PrivStreamGrad *g, const PrivStreamRec *r, const double *A, double *Ap,
                             GError **error) {
  guint n = g->n, k = r->k, rank = r->rank, tt = r->tsteps;
  gsize nt = (gsize)n * tt;
  if (k == 0)
    return TRUE;
  for (guint i = 0; i < k; i++)
    memcpy(Ap + (gsize)i * nt, A + (gsize)(r->jpvt[i] - 1) * nt, nt * sizeof(double));
  if (rank > 0 && nt > 0)
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)rank,
                (int)nt, 1.0, r->rt, (int)rank, Ap, (int)nt);
  if (rank > 0 && rank < k && nt > 0)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(k - rank), (int)nt, (int)rank,
                -1.0, r->rt + (gsize)rank * rank, (int)rank, Ap, (int)nt, 1.0,
                Ap + (gsize)rank * nt, (int)nt);
  double *ev = scratch(g, 4, 6 * (gsize)n + (gsize)rank * tt, error); /* then decide's rows */
  if (!ev)
    return FALSE;
  /* Per victim: the norms of its columns (in the rows' own units: a scaled
   * pass divides its factor back out, exact), the residual of the dependent
   * rows, Y's norm and the amplification's reference; victims innermost, so
   * that the rows are read in order. */
  double *norm2 = ev, *res2 = norm2 + n, *y2 = res2 + n, *scaled2 = y2 + n,
         *left = scaled2 + n, *q2 = left + n;
  memset(norm2, 0, 5 * (gsize)n * sizeof(double));
  const double *sc = r->sc, *rn = r->rn, *wt = r->wt;
  for (guint i = 0; i < k; i++) {
    double own = rn[i], f = sc ? sc[i] : 1.0, w = wt[i];
    double fr = sc && i >= rank ? sc[r->jpvt[i] - 1] : 1.0;
    for (guint t = 0; t < tt; t++) {
      const double *a = A + (gsize)i * nt + (gsize)t * n, *b = Ap + (gsize)i * nt + (gsize)t * n;
      for (guint u = 0; u < n; u++) {
        norm2[u] += w * (a[u] / f) * (a[u] / f);
        if (own > 0)
          scaled2[u] += w * (a[u] / own) * (a[u] / own);
        if (i >= rank)
          res2[u] += (b[u] / fr) * (b[u] / fr);
        else
          y2[u] += b[u] * b[u];
      }
    }
  }
  noise_left(g, r, Ap + (gsize)rank * nt, nt, sc != NULL, norm2, left, q2);
  decide(g, r, norm2, res2, y2, scaled2, left, Ap, rank, nt, NULL, 0);
  return TRUE;
}

/*
 * The period's decisions from its evidence per victim (n each: the norm of
 * its columns, the dependent rows' residual, Y's norm, the amplification's
 * reference, the noise left), then X_u += Y_u^T Y_u for the victims that
 * keep a number: Y is @nY rows of @ld gradient columns, plus the entries
 * @xl (a packed period's rows left out, times 4^@xe).
 */
static void decide(PrivStreamGrad *g, const PrivStreamRec *r, const double *norm2,
                   const double *res2, const double *y2, const double *scaled2, const double *left,
                   const double *Y, guint nY, gsize ld, const GArray *xl, int xe) {
  guint n = g->n, tt = r->tsteps, T = g->T;
  PrivRangeTolerances tol;
  priv_range_tolerances_default(&tol);
  tol.range_tol = g->range_tol;
  tol.clean = priv_range_clean_floor(r->q);
  double *Yv = g->buf[4] + 6 * (gsize)n; /* account_rows' scratch, after its n-arrays */
  for (guint u = 0; u < n; u++) {
    if (norm2[u] == 0.0)
      continue;
    PrivRangeEvidence ev = {.norm = sqrt(g->ref2[u]),
                            .residual = sqrt(res2[u]),
                            .noise_left = left[u],
                            .amplification = scaled2[u] > 0 ? sqrt(y2[u] / scaled2[u]) : 0.0};
    PrivNodeStatus st = priv_range_decide(&ev, &tol);
    if (st == PRIV_NODE_UNPROTECTED) {
      g->unprot[u] = TRUE;
      g->blocks->status[u] = PRIV_NODE_UNPROTECTED;
      continue;
    }
    /* Unresolved stays so (only an exact leak later overrides it): no
     * number is accumulated for it. */
    if (st == PRIV_NODE_UNRESOLVED)
      g->blocks->status[u] = PRIV_NODE_UNRESOLVED;
    if (r->rank == 0 || g->blocks->status[u] == PRIV_NODE_UNRESOLVED)
      continue;
    for (guint i = 0; i < nY; i++)
      for (guint t = 0; t < tt; t++)
        Yv[(gsize)i * tt + t] = Y[(gsize)i * ld + (gsize)t * n + u];
    if (nY > 0)
      cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)tt, (int)nY, 1.0, Yv, (int)tt, 1.0,
                  g->blocks->X + (gsize)u * T * T, (int)T);
  }
  for (guint i = 0; xl && i < xl->len; i++) {
    const PrivStreamPackEntry *e = &g_array_index(xl, PrivStreamPackEntry, i);
    if (norm2[e->u] != 0.0 && !g->unprot[e->u] && g->blocks->status[e->u] != PRIV_NODE_UNRESOLVED)
      g->blocks->X[(gsize)e->u * T * T + (gsize)e->t1 * T + e->t2] += ldexp(e->x, 2 * xe);
  }
}

/*
 * A packed period (privacy/stream_pack.c): the evidence and X from its
 * walked rows @A (pack->nrow rows of n tsteps gradient columns) and the
 * sums the pack kept, as account_rows has them from the k rows.
 */
static gboolean account_packed(PrivStreamGrad *g, const PrivStreamRec *r, const double *A, int ea,
                               GError **error) {
  const PrivStreamPack *pk = r->pack;
  guint n = g->n, tt = r->tsteps;
  gsize nt = (gsize)n * tt;
  int xe = pk->ea - ea;
  double *ev = scratch(g, 4, 6 * (gsize)n + (gsize)pk->rows[2] * tt, error);
  if (!ev)
    return FALSE;
  double *norm2 = ev, *res2 = norm2 + n, *y2 = res2 + n, *scaled2 = y2 + n, *left = scaled2 + n,
         *q2 = left + n;
  memset(norm2, 0, 5 * (gsize)n * sizeof(double));
  for (guint u = 0; u < n; u++) {
    norm2[u] = ldexp(pk->loc[u], 2 * xe);
    scaled2[u] = ldexp(pk->loc[n + u], 2 * xe);
    y2[u] = ldexp(pk->loc[2 * (gsize)n + u], 2 * xe);
  }
  double *sums[4] = {norm2, scaled2, y2, res2};
  const double *row = A;
  for (guint set = 0; set < 4; set++)
    for (guint i = 0; i < pk->rows[set]; i++, row += nt)
      for (gsize c = 0; c < nt; c++)
        sums[set][c % n] += row[c] * row[c];
  const double *Y = A + (gsize)(pk->rows[0] + pk->rows[1]) * nt;
  noise_left(g, r, Y + (gsize)pk->rows[2] * nt, nt, FALSE, norm2, left, q2);
  decide(g, r, norm2, res2, y2, scaled2, left, Y, pk->rows[2], nt, pk->xl, xe);
  return TRUE;
}

/* ------------------------------------------------------------ forward */

/* out (rows x nt, leading dimension ldo) += M (CSR over gamma's rows) Gamma
 * + c G (CSR over gradient columns). */
static void apply_rows(const PrivStreamGrad *g, guint rows, const guint *m_start, const guint *m_col,
                       const double *m_val, const guint *g_start, const guint32 *g_col,
                       const double *g_val, gsize nt, int ea, double *out, gsize ldo) {
  for (guint i = 0; i < rows; i++) {
    double *o = out + (gsize)i * ldo;
    for (guint e = m_start[i]; e < m_start[i + 1] && nt > 0; e++)
      cblas_daxpy((int)nt, m_val[e], g->gam + (gsize)m_col[e] * g->ld, 1, o, 1);
    for (guint e = g_start[i]; e < g_start[i + 1]; e++)
      o[g_col[e]] += gcoef(g, g_val[e], ea);
  }
}

/* The reference: the rows from Gamma, then Gamma' (docs: O(n^2 T) memory). */
static gboolean forward_period(PrivStreamGrad *g, const PrivStreamRec *r, int ea, GError **error) {
  gsize nt = (gsize)g->n * r->tsteps;
  if (g->gam_cols < nt) {
    for (guint i = 0; i < g->sv; i++)
      memset(g->gam + (gsize)i * g->ld + g->gam_cols, 0, (nt - g->gam_cols) * sizeof(double));
    g->gam_cols = nt;
  }
  double *A = scratch(g, 0, (gsize)r->k * nt, error);
  double *Ap = A ? scratch(g, 1, (gsize)r->k * nt, error) : NULL;
  if (!Ap)
    return FALSE;
  memset(A, 0, (gsize)r->k * nt * sizeof(double));
  apply_rows(g, r->k, r->cs_start, r->cs_col, r->cs_val, r->go_start, r->go_col, r->go_val, nt, ea,
             A, nt);
  for (guint i = 0; r->sc && i < r->k; i++)
    cblas_dscal((int)nt, r->sc[i], A + (gsize)i * nt, 1);
  if (!account_rows(g, r, A, Ap, error))
    return FALSE;
  if (!r->transition)
    return TRUE;
  if (g->gam2_cap < r->s2v) {
    g_free(g->gam2);
    g->gam2 = priv_matrix_new(MAX(r->s2v, 1), g->ld, error);
    g->gam2_cap = g->gam2 ? r->s2v : 0;
    if (!g->gam2)
      return FALSE;
  }
  for (guint i = 0; i < r->s2v; i++)
    memset(g->gam2 + (gsize)i * g->ld, 0, nt * sizeof(double));
  apply_rows(g, r->s2v, r->ct_start, r->ct_col, r->ct_val, r->gs_start, r->gs_col, r->gs_val, nt,
             ea, g->gam2, g->ld);
  if (r->rank > 0 && nt > 0)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)r->s2v, (int)nt, (int)r->rank,
                -1.0, r->bq1, (int)r->rank, Ap, (int)nt, 1.0, g->gam2, (int)g->ld);
  double *tmp = g->gam;
  gsize tcap = g->gam_cap;
  g->gam = g->gam2;
  g->gam_cap = g->gam2_cap;
  g->gam2 = tmp;
  g->gam2_cap = tcap;
  g->sv = r->s2v;
  return TRUE;
}

/* ------------------------------------------------------------ backward */

/*
 * One period back: @om (t->s2v x @w, leading dimension @W) holds rows as
 * functionals of the state after transition @t; @om2 (t->sv x w) receives
 * them as functionals of the state before it, and @H (gradient columns x W)
 * their coefficients on the gradients the transition injects.
 */
static gboolean step_back(PrivStreamGrad *g, const PrivStreamRec *t, const double *om, double *om2,
                          gsize W, gsize w, double *H, int ea, GError **error) {
  for (guint l = 0; l < t->sv; l++)
    memset(om2 + (gsize)l * W, 0, w * sizeof(double));
  for (guint m = 0; m < t->s2v; m++) {
    const double *o = om + (gsize)m * W;
    for (guint e = t->ct_start[m]; e < t->ct_start[m + 1]; e++)
      cblas_daxpy((int)w, t->ct_val[e], o, 1, om2 + (gsize)t->ct_col[e] * W, 1);
    for (guint e = t->gs_start[m]; e < t->gs_start[m + 1]; e++)
      cblas_daxpy((int)w, gcoef(g, t->gs_val[e], ea), o, 1, H + (gsize)t->gs_col[e] * W, 1);
  }
  if (t->rank == 0)
    return TRUE;
  double *V = scratch(g, 2, (gsize)t->rank * w, error);
  if (!V)
    return FALSE;
  /* V = L^-T bq1^T Omega^T (or bq1 already holds bq1 L^-1: solved_gain). */
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)t->rank, (int)w, (int)t->s2v, 1.0,
              t->bq1, (int)t->rank, om, (int)W, 0.0, V, (int)w);
  if (!t->gain_solved)
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, (int)t->rank,
                (int)w, 1.0, t->rt, (int)t->rank, V, (int)w);
  for (guint i = 0; i < t->rank; i++) {
    guint j = (guint)t->jpvt[i] - 1;
    double f = t->sc ? t->sc[j] : 1.0;
    const double *vi = V + (gsize)i * w;
    for (guint e = t->cs_start[j]; e < t->cs_start[j + 1]; e++)
      cblas_daxpy((int)w, -f * t->cs_val[e], vi, 1, om2 + (gsize)t->cs_col[e] * W, 1);
    for (guint e = t->go_start[j]; e < t->go_start[j + 1]; e++)
      cblas_daxpy((int)w, -f * gcoef(g, t->go_val[e], ea), vi, 1, H + (gsize)t->go_col[e] * W, 1);
  }
  return TRUE;
}

/* Pushes period @r's rows onto the stack at columns [@w, @w + stack_rows). */
static void push_rows(const PrivStreamGrad *g, const PrivStreamRec *r, double *om, gsize W, gsize w,
                      double *H, int ea) {
  for (guint l = 0; l < r->sv; l++)
    memset(om + (gsize)l * W + w, 0, stack_rows(r) * sizeof(double));
  if (r->pack) {
    const PrivStreamPack *pk = r->pack;
    for (guint i = 0; i < pk->nrow; i++) {
      for (guint l = 0; l < pk->sv; l++)
        om[(gsize)l * W + w + i] = pk->st[(gsize)i * pk->sv + l];
      for (guint j = 0; j < pk->nj; j++)
        H[(gsize)pk->jcol[j] * W + w + i] += ldexp(pk->dir[(gsize)i * pk->nj + j], pk->ea - ea);
    }
    return;
  }
  for (guint i = 0; i < r->k; i++) {
    double f = r->sc ? r->sc[i] : 1.0;
    for (guint e = r->cs_start[i]; e < r->cs_start[i + 1]; e++)
      om[(gsize)r->cs_col[e] * W + w + i] += f * r->cs_val[e];
    for (guint e = r->go_start[i]; e < r->go_start[i + 1]; e++)
      H[(gsize)r->go_col[e] * W + w + i] += f * gcoef(g, r->go_val[e], ea);
  }
}

/* Frees what only the period's own accounting reads (the triangle, the
 * rows' norms, weights and remainders): later chunks step back through the
 * record with its gain, pivots and sparse maps alone. The triangle is k x
 * rank, the largest part of a record when the view sees many rows (a SecLDP
 * view of DECOR: every node's model, k = n, per period). */
static void trim_record(PrivStreamGrad *g, PrivStreamRec *r) {
  gsize before = priv_stream_rec_bytes(r);
  if (r->gain_solved || !r->transition)
    g_clear_pointer(&r->rt, g_free);
  g_clear_pointer(&r->rn, g_free);
  g_clear_pointer(&r->wt, g_free);
  g_clear_pointer(&r->rel, g_free);
  g_clear_pointer(&r->pack, priv_stream_pack_free);
  g->rec_bytes -= before - priv_stream_rec_bytes(r);
}

/* The backward engine's gain, where the triangle is the larger factor
 * (rank > s2v: a view that sees many rows and carries little state, as a
 * SecLDP view of DECOR): bq1 := bq1 L^-1 (s2v x rank), once per record
 * (O(s2v rank^2)), so that stepping a row back through it costs s2v rank,
 * not rank^2 more for a triangular solve. Elsewhere the solve stays per
 * row, the order whose rounding the ill-conditioned cases were measured
 * with (tests/protocols/test_stream_honesty.c). */
static void solved_gain(PrivStreamRec *r) {
  r->gain_solved = r->transition && r->rank > r->s2v;
  if (r->gain_solved && r->s2v > 0)
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, (int)r->s2v,
                (int)r->rank, 1.0, r->rt, (int)r->rank, r->bq1, (int)r->rank);
}

/* Accounts records [a, b): their rows stepped back to period 0, then each
 * period's decisions and X in order. */
static gboolean backward_chunk(PrivStreamGrad *g, guint a, guint b, int ea, GError **error) {
  PrivStreamRec **rec = (PrivStreamRec **)g->recs->pdata;
  gsize W = 0;
  for (guint p = a; p < b; p++)
    W += stack_rows(rec[p]);
  gboolean packed = FALSE; /* a pack of no rows still has its local sums */
  for (guint p = a; p < b; p++)
    packed = packed || rec[p]->pack;
  if (W == 0 && !packed) {
    g->done = b;
    return TRUE;
  }
  gsize nt = (gsize)g->n * rec[b - 1]->tsteps;
  gsize *off = g_new(gsize, b - a);
  /* Kept from chunk to chunk: mapped afresh, its pages would be faulted in
   * and zeroed by the system every time. */
  double *H = scratch(g, 5, nt * W, error);
  if (H)
    memset(H, 0, nt * W * sizeof(double));
  double *om = H ? scratch(g, 0, (gsize)g->max_s * W, error) : NULL;
  double *om2 = om ? scratch(g, 1, (gsize)g->max_s * W, error) : NULL;
  gboolean ok = om2 != NULL;
  gsize w = 0;
  for (guint p = b; ok && p-- > 0;) {
    if (p >= a) {
      push_rows(g, rec[p], om, W, w, H, ea);
      off[p - a] = w;
      w += stack_rows(rec[p]);
    }
    if (p == 0 || w == 0)
      continue;
    ok = step_back(g, rec[p - 1], om, om2, W, w, H, ea, error);
    double *tmp = om;
    om = om2;
    om2 = tmp;
  }
  for (guint p = a; ok && p < b; p++) {
    const PrivStreamRec *r = rec[p];
    gsize ntp = (gsize)g->n * r->tsteps;
    guint kr = stack_rows(r);
    double *A = scratch(g, 2, (gsize)kr * ntp, error);
    double *Ap = A && !r->pack ? scratch(g, 3, (gsize)kr * ntp, error) : A;
    ok = Ap != NULL;
    for (gsize c0 = 0; ok && c0 < ntp; c0 += 64) /* by blocks: both sides in cache */
      for (guint i = 0; i < kr; i++)
        for (gsize c = c0; c < MIN(c0 + 64, ntp); c++)
          A[(gsize)i * ntp + c] = H[c * W + off[p - a] + i];
    ok = ok && (r->pack ? account_packed(g, r, A, ea, error) : account_rows(g, r, A, Ap, error));
    if (ok)
      trim_record(g, rec[p]);
  }
  g_free(off);
  if (ok)
    g->done = b;
  return ok;
}

/* Accounts the pending records once they hold a chunk's rows (@all: any). */
static gboolean backward_flush(PrivStreamGrad *g, gboolean all, int ea, GError **error) {
  gsize rows = 0;
  for (guint p = g->done; p < g->recs->len; p++)
    rows += stack_rows(g_ptr_array_index(g->recs, p));
  if (g->done == g->recs->len || (!all && rows < chunk_target(g)))
    return TRUE;
  return backward_chunk(g, g->done, g->recs->len, ea, error);
}

gboolean priv_stream_grad_add(PrivStreamGrad *g, PrivStreamRec *rec, int ea, GError **error) {
  if (g->engine == PRIV_STREAM_FORWARD) {
    gboolean ok = forward_period(g, rec, ea, error);
    priv_stream_rec_free(rec);
    return ok;
  }
  solved_gain(rec);
  if (!priv_stream_pack_new(rec, g->n, g->clip, ea, &rec->pack, error)) {
    priv_stream_rec_free(rec);
    return FALSE;
  }
  g->packed += rec->pack != NULL;
  g->rec_bytes += priv_stream_rec_bytes(rec);
  g->max_s = MAX(g->max_s, MAX(rec->sv, rec->s2v));
  g_ptr_array_add(g->recs, rec);
  return backward_flush(g, FALSE, ea, error);
}

gboolean priv_stream_grad_finish(PrivStreamGrad *g, int ea, GError **error) {
  return g->engine == PRIV_STREAM_FORWARD || backward_flush(g, TRUE, ea, error);
}

void priv_stream_grad_rescale(PrivStreamGrad *g, int ea, int eb) {
  for (gsize i = 0; i < g->sv; i++)
    for (gsize j = 0; j < g->gam_cols; j++)
      g->gam[i * g->ld + j] = ldexp(g->gam[i * g->ld + j], -ea);
  for (guint u = 0; u < g->n; u++)
    g->ref2[u] = ldexp(g->ref2[u], -2 * ea);
  gsize nx = (gsize)g->n * g->T * g->T;
  for (gsize i = 0; i < nx; i++)
    g->blocks->X[i] = ldexp(g->blocks->X[i], 2 * (eb - ea));
}
