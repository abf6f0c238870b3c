/*
 * privacy/structured_powers.c: the per-victim Fisher information of an
 * attacker set for D-SGD, Muffliato and MF-D-SGD (correlated noise) on a
 * static gossip matrix, from the powers of W applied to the few nodes the
 * attackers hear (docs/accounting-at-scale.md, "Few rounds on a large
 * graph: the W-power engine" and "Correlated noise").
 *
 * With W static, the attackers hear the same m nodes U in every round, and
 * message (r, w) (node w in U, round r) is, what the attackers know
 * subtracted, sum_{k : kK <= r} ((W^T)^{r-kK} e_w)^T D (g_k + z_k). So the
 * columns of the q x nT matrix M (q = R m rows) are entries of the R m
 * vectors V_{w,j} = (W^T)^j e_w, j < R, and
 *   Sigma = M M^T,  Sigma[(r,w),(r',w')] = sum_k G[(r-kK, w), (r'-kK, w')],
 *   G = the Gram of the vectors V over the noisy nodes (MF-D-SGD's noise
 *   C^-1 z per node weighs every pair of steps (k, l) by Q = C^-1 C^-T:
 *   Sigma[(r,w),(r',w')] = sum_{k,l} Q[k,l] G[(r-kK, w), (r'-lK, w')]),
 *   X_u = M_u^T Sigma^+ M_u,  M_u[(r,w), k] = V_{w,r-kK}[u].
 * Sigma^+ is applied as the innovations of the rounds in order: round r's
 * messages less their projection on the earlier ones have the covariance
 * S_r (a Schur complement of Sigma), whitened by priv_struct_whiten as the
 * Kalman engine whitens its Sigma_r (the same matrix in exact arithmetic, the
 * same rank threshold); the whitened rows Omega = L M give
 * X_u[k, l] = sum_rows Omega[row, (k, u)] Omega[row, (l, u)].
 * A direction whose variance is within a factor 100 of the threshold (or a
 * round whose innovations are at the rounding level of its messages) is a
 * decision double precision does not support: a victim that direction
 * carries more than PRIV_POWERS_AMBIGUOUS of its information is UNRESOLVED.
 *
 * No n x n matrix: memory O(n R m + q^2 + n T^2), time
 * O(R m nnz + n (R m)^2 + q^3 + n q^2 T + n q T^2) (q = R m), so it wins
 * over the Kalman engine's O(R n^2 m) when q is small against n (few rounds,
 * few neighbours): the figure of every attacker of a 10,000-node graph at
 * T = 10. Victims are processed by fixed chunks of nodes shared out across
 * threads; each victim's block is computed by one thread in a fixed order,
 * so the result does not depend on the thread count.
 */
#include "privacy/structured_internal.h"

#include <math.h>
#include <string.h>

/* Width of the ambiguous band around PRIV_STRUCT_RANK_TOL (either side). */
#define BAND 100.0
/* Share of a victim's information in ambiguous directions above which its
 * number is not supported. */
#define PRIV_POWERS_AMBIGUOUS 1e-6
/* Per-thread chunk buffers are sized to about this many doubles. */
#define CHUNK_DOUBLES (1u << 19)

gboolean priv_struct_powers_applies(const PrivStructCtx *c) {
  if (c->n_gossip != 1)
    return FALSE;
  guint m = c->recv_start[1] - c->recv_start[0];
  for (guint r = 1; r < c->R; r++)
    if (c->recv_start[r + 1] - c->recv_start[r] != m ||
        (m > 0 && memcmp(c->recv + c->recv_start[r], c->recv, sizeof(guint) * m) != 0))
      return FALSE;
  return TRUE;
}

double priv_struct_powers_work(const PrivStructCtx *c, gboolean correlated) {
  double n = c->n, T = c->T, m = c->recv_start[1] - c->recv_start[0];
  double q = (double)c->R * m, nnz = (double)topo_gossip_nnz(c->gossip[0]);
  /* Sigma's lower triangle: every pair of injections (k, l) adds a shifted
   * copy of G's (q - max(k, l) K m)^2 / 2 entries, about q^2 T^2 / 12 in
   * all; only the pairs k = l for white noise (q^2 T / 6). */
  double sigma = correlated ? q * q * T * T / 12.0 : q * q * T / 6.0;
  return q * nnz * PRIV_SPARSE_WEIGHT + n * q * q / 2.0 + sigma + q * q * q / 3.0 +
         n * q * q * T / 3.0 + n * q * T * T / 2.0 + 1.0;
}

/* Doubles the engine allocates (the vectors n x q; G, Sigma and the two sets
 * of rows q x q each; Q; the threads' chunk buffers): the result is the
 * caller's. */
static gsize powers_count(const PrivStructCtx *c) {
  guint m = c->recv_start[1] - c->recv_start[0];
  gsize q = (gsize)c->R * m;
  gsize per_node = q + (gsize)c->T * (2 * q + c->T) + 2;
  return priv_size_sum3(c->n, q, 4, q * q + (gsize)c->T * c->T, MAX(c->threads, 1u),
                        CHUNK_DOUBLES + 8 * per_node);
}

gsize priv_struct_powers_bytes(const PrivStructCtx *c) {
  return mf_doubles_bytes(powers_count(c));
}

/* The whitened rows: kept (they make X) and ambiguous dropped ones (their
 * information is only measured), each a row over the q messages. */
typedef struct {
  guint q;
  double *L;     /* rows x q, row-major */
  guint rows;    /* kept rows */
  guint *first;  /* R + 1: kept rows of round r start at first[r] */
  gboolean *amb; /* rows: kept but ambiguous */
  double *D;     /* dropped ambiguous rows x q */
  guint drows;   /* their number */
  guint *dfirst; /* R + 1 */
  /* Largest message variance over smallest kept innovation eigenvalue of a
   * round: the innovations are formed by subtracting from the messages'
   * covariance (S = Sigma_rr - C^T C), so their rounding relative to what
   * is kept is eps times this (PrivBlocks.cond). */
  double cond;
} Whitened;

static void whitened_clear(Whitened *w) {
  g_free(w->L);
  g_free(w->first);
  g_free(w->amb);
  g_free(w->D);
  g_free(w->dfirst);
}

/* Appends to @dst (rows x q) the row f (v^T e_c - (C v)^T Lk) for round
 * columns c = [c0, c0 + m): v an eigenvector (stride @vs), C the nk x m
 * cross-covariance of the earlier whitened rows Lk with round r's messages. */
static void append_row(double *dst, guint q, guint c0, guint m, const double *v, guint vs, double f,
                       const double *C, const double *Lk, guint nk, double *h) {
  memset(dst, 0, sizeof(double) * q);
  for (guint j = 0; j < m; j++)
    dst[c0 + j] = f * v[(gsize)j * vs];
  for (guint i = 0; i < nk; i++) {
    double s = 0.0;
    for (guint j = 0; j < m; j++)
      s += C[(gsize)i * m + j] * v[(gsize)j * vs];
    h[i] = -f * s;
  }
  if (nk > 0 && c0 > 0)
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)nk, (int)c0, 1.0, Lk, (int)q, h, 1, 1.0, dst, 1);
}

/* Round by round: the innovations of round r's m messages against the kept
 * rows of the earlier rounds, whitened as the Kalman engine does. */
static gboolean whiten_rounds(const double *Sig, guint R, guint m, Whitened *w, GError **error) {
  guint q = R * m;
  w->q = q;
  w->L = g_new0(double, (gsize)q *q);
  w->D = g_new0(double, (gsize)q *q);
  w->first = g_new0(guint, R + 1);
  w->dfirst = g_new0(guint, R + 1);
  w->amb = g_new0(gboolean, q);
  double *C = g_new(double, (gsize)q *m), *S = g_new(double, (gsize)m *m);
  double *V = g_new(double, (gsize)m *m), *lam = g_new(double, m);
  double *Lw = g_new(double, (gsize)m *m), *h = g_new(double, q);
  guint *id = g_new(guint, m);
  for (guint j = 0; j < m; j++)
    id[j] = j;
  gboolean ok = TRUE;
  for (guint r = 0; r < R && ok; r++) {
    guint c0 = r * m, nk = w->rows;
    w->first[r] = nk;
    w->dfirst[r] = w->drows;
    /* C = Lk[:, 0:c0] Sigma[0:c0, c]; S = Sigma[c, c] - C^T C. */
    if (nk > 0)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nk, (int)m, (int)c0, 1.0, w->L,
                  (int)q, Sig + c0, (int)q, 0.0, C, (int)m);
    double dmax = 0.0;
    for (guint i = 0; i < m; i++) {
      for (guint j = 0; j < m; j++)
        S[(gsize)i * m + j] = Sig[(gsize)(c0 + i) * q + c0 + j];
      dmax = MAX(dmax, S[(gsize)i * m + i]);
    }
    if (nk > 0)
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)m, (int)nk, -1.0, C, (int)m, 1.0, S,
                  (int)m);
    gint kept = priv_struct_whiten(S, m, id, m, r, V, lam, Lw, error);
    if (kept < 0) {
      ok = FALSE;
      break;
    }
    if (kept > 0 && lam[m - kept] > 0.0)
      w->cond = MAX(w->cond, MAX(dmax, lam[m - 1]) / lam[m - kept]);
    double lmax = m > 0 ? lam[m - 1] : 0.0, tol = PRIV_STRUCT_RANK_TOL * lmax;
    /* Innovations at the rounding level of the messages themselves: every
     * direction of the round is a guess. */
    gboolean round_amb = lmax > 0 && !(lmax > BAND * PRIV_STRUCT_RANK_TOL * dmax);
    /* Eigenpairs in decreasing order, as priv_struct_whiten keeps them. */
    for (guint e = m; e-- > 0;) {
      double l = lam[e];
      if (!(l > tol / BAND))
        break;
      gboolean keep = (guint)(m - 1 - e) < (guint)kept;
      double *dst = keep ? w->L + (gsize)w->rows * q : w->D + (gsize)w->drows * q;
      append_row(dst, q, c0, m, V + e, m, 1.0 / sqrt(l), C, w->L, nk, h);
      if (keep)
        w->amb[w->rows++] = round_amb || !(l > tol * BAND);
      else
        w->drows++;
    }
  }
  w->first[R] = w->rows;
  w->dfirst[R] = w->drows;
  g_free(C);
  g_free(S);
  g_free(V);
  g_free(lam);
  g_free(Lw);
  g_free(h);
  g_free(id);
  return ok;
}

/* What the victims' threads share. */
typedef struct {
  const PrivStructCtx *c;
  const Whitened *w;
  const double *Vall; /* n x q */
  guint m, cw, n_chunks, nt;
  double scale;
  PrivBlocks *blocks;
  gint done; /* chunks finished (atomic) */
} Victims;

typedef struct {
  Victims *v;
  guint t;
} VictimsThread;

/* Omega_k (rows x cw) = L[rows of rounds >= kK, columns >= kK m] times the
 * chunk's vectors of lags 0 .. R - 1 - kK; rows below first[kK] stay 0. */
static void omega_of(const Victims *v, const double *L, const guint *first, guint rows,
                     const double *Vc, guint cw, double *Om) {
  const PrivStructCtx *c = v->c;
  guint q = v->w->q, m = v->m;
  for (guint k = 0; k < c->T; k++) {
    guint s0 = k * c->K, r0 = first[s0];
    double *Ok = Om + (gsize)k * rows * cw;
    memset(Ok, 0, sizeof(double) * r0 * cw);
    if (rows > r0)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(rows - r0), (int)cw,
                  (int)((c->R - s0) * m), 1.0, L + (gsize)r0 * q + (gsize)s0 * m, (int)q, Vc,
                  (int)cw, 0.0, Ok + (gsize)r0 * cw, (int)cw);
  }
}

/* Sum over @rows' rows of Om_k[row, u]^2 for all k (only the rows @sel
 * marks when it is not NULL), added to acc[u]. */
static void add_mass(const double *Om, guint T, guint rows, guint cw, const gboolean *sel,
                     double *acc) {
  for (guint k = 0; k < T; k++)
    for (guint i = 0; i < rows; i++) {
      if (sel && !sel[i])
        continue;
      const double *o = Om + ((gsize)k * rows + i) * cw;
      for (guint u = 0; u < cw; u++)
        acc[u] += o[u] * o[u];
    }
}

static void victims_chunk(Victims *v, guint ci, double *Vc, double *Om, double *Od, double *acc,
                          double *amb, double *tot) {
  const PrivStructCtx *c = v->c;
  const Whitened *w = v->w;
  guint T = c->T, q = w->q, rows = w->rows, u0 = ci * v->cw;
  guint cw = MIN(v->cw, c->n - u0);
  for (guint j = 0; j < q; j++)
    for (guint u = 0; u < cw; u++)
      Vc[(gsize)j * cw + u] = v->Vall[(gsize)(u0 + u) * q + j];
  omega_of(v, w->L, w->first, rows, Vc, cw, Om);
  memset(acc, 0, sizeof(double) * T * T * cw);
  for (guint k = 0; k < T; k++)
    for (guint l = k; l < T; l++) {
      const double *ok = Om + (gsize)k * rows * cw, *ol = Om + (gsize)l * rows * cw;
      double *a = acc + ((gsize)k * T + l) * cw;
      for (guint i = w->first[l * c->K]; i < rows; i++)
        for (guint u = 0; u < cw; u++)
          a[u] += ok[(gsize)i * cw + u] * ol[(gsize)i * cw + u];
    }
  memset(amb, 0, sizeof(double) * cw);
  memset(tot, 0, sizeof(double) * cw);
  add_mass(Om, T, rows, cw, w->amb, amb);
  if (w->drows > 0) {
    omega_of(v, w->D, w->dfirst, w->drows, Vc, cw, Od);
    add_mass(Od, T, w->drows, cw, NULL, amb);
    add_mass(Od, T, w->drows, cw, NULL, tot);
  }
  for (guint u = 0; u < cw; u++) {
    guint node = u0 + u;
    if (c->attacker[node] || (c->relay && c->relay[node]))
      continue;
    double *X = v->blocks->X + (gsize)node * T * T;
    for (guint k = 0; k < T; k++) {
      tot[u] += acc[((gsize)k * T + k) * cw + u];
      for (guint l = k; l < T; l++)
        X[(gsize)k * T + l] = X[(gsize)l * T + k] = v->scale * acc[((gsize)k * T + l) * cw + u];
    }
    if (amb[u] > PRIV_POWERS_AMBIGUOUS * tot[u])
      v->blocks->status[node] = PRIV_NODE_UNRESOLVED;
  }
}

static gpointer victims_thread(gpointer data) {
  VictimsThread *vt = data;
  Victims *v = vt->v;
  const PrivStructCtx *c = v->c;
  guint T = c->T, q = v->w->q, cw = v->cw;
  double *Vc = g_new(double, (gsize)q *cw);
  double *Om = g_new(double, (gsize)T *MAX(v->w->rows, 1) * cw);
  double *Od = g_new(double, (gsize)T *MAX(v->w->drows, 1) * cw);
  double *acc = g_new(double, (gsize)T *T *cw), *amb = g_new(double, cw);
  double *tot = g_new(double, cw);
  for (guint ci = vt->t; ci < v->n_chunks; ci += v->nt) {
    victims_chunk(v, ci, Vc, Om, Od, acc, amb, tot);
    gint done = g_atomic_int_add(&v->done, 1) + 1;
    if (vt->t == 0 && c->progress)
      c->progress(0.5 + 0.5 * done / v->n_chunks, "structured accounting (W powers)",
                  c->progress_data);
  }
  g_free(Vc);
  g_free(Om);
  g_free(Od);
  g_free(acc);
  g_free(amb);
  g_free(tot);
  return NULL;
}

/* Every victim's block from the whitened rows, by chunks of nodes. */
static void victims_blocks(const PrivStructCtx *c, const Whitened *w, const double *Vall, guint m,
                           double scale, PrivBlocks *blocks) {
  gsize per_node = (gsize)w->q + (gsize)c->T * (w->rows + w->drows + c->T) + 2;
  guint cw = (guint)CLAMP(CHUNK_DOUBLES / per_node, 8, 1024);
  Victims v = {.c = c,
               .w = w,
               .Vall = Vall,
               .m = m,
               .cw = cw,
               .n_chunks = (c->n + cw - 1) / cw,
               .scale = scale,
               .blocks = blocks};
  v.nt = MIN(MAX(c->threads, 1u), v.n_chunks);
  VictimsThread *vt = g_new(VictimsThread, v.nt);
  GThread **th = g_new(GThread *, v.nt);
  for (guint t = 0; t < v.nt; t++) {
    vt[t] = (VictimsThread){&v, t};
    if (t > 0)
      th[t] = g_thread_new("dpg-powers", victims_thread, &vt[t]);
  }
  victims_thread(&vt[0]);
  for (guint t = 1; t < v.nt; t++)
    g_thread_join(th[t]);
  g_free(vt);
  g_free(th);
}

/*
 * Sigma (q x q, zeroed on entry) from the Gram @G of the vectors:
 * Sigma[(r,a),(r',b)] = sum_{kK <= r, lK <= r'} Q[k,l] G[(r-kK, a), (r'-lK, b)],
 * Q = Cinv Cinv^T the covariance of a node's noise over its steps (@Q NULL:
 * white noise, only k = l). The lower triangle, one shifted axpy of G's rows
 * per pair (k, l) and row, each entry summed over k then l in increasing
 * order, then mirrored: Sigma is exactly symmetric. O(q^2 T^2 / 12), or
 * O(q^2 T / 6) for white noise.
 */
static void sigma_of(const PrivStructCtx *c, guint m, const double *G, const double *Q,
                     double *Sig) {
  guint T = c->T, K = c->K;
  gsize q = (gsize)c->R * m;
  for (guint k = 0; k < T; k++) {
    for (guint l = 0; l < T; l++) {
      double f = Q ? Q[(gsize)k * T + l] : (double)(k == l);
      if (f == 0.0)
        continue;
      gsize i0 = (gsize)k * K * m, j0 = (gsize)l * K * m;
      /* Row i reads G's row i - i0, columns 0 .. i - j0 (j0 <= j <= i). */
      for (gsize i = MAX(i0, j0); i < q; i++)
        cblas_daxpy((int)(i - j0 + 1), f, G + (i - i0) * q, 1, Sig + i * q + j0, 1);
    }
    if (c->progress && Q)
      c->progress(0.25 * (k + 1) / T, "structured accounting (W powers)", c->progress_data);
  }
  mf_fill_upper_from_lower(Sig, (guint)q);
}

/*
 * Sigma (q x q, zeroed on entry) for a C per class of nodes: for each class
 * c, the Gram @G (q x q scratch) of its nodes' rows of @Vall (n x q) and
 * sigma_of with Q_c = F_c F_c^T, F_c its noise factor. The class's rows are
 * packed into a copy (n_c x q doubles, checked against the budget).
 * O(classes q^2 T^2 / 12 + n q^2).
 */
static gboolean class_sigma(const PrivStructCtx *c, guint m, const double *Vall, double *G,
                            double *Sig, GError **error) {
  guint n = c->n, T = c->T;
  gsize q = (gsize)c->R * m;
  guint *count = g_new0(guint, c->n_cinv), most = 0;
  for (guint v = 0; v < n; v++)
    if (c->noisy[v])
      most = MAX(most, ++count[c->cinv_class[v]]);
  double *V = NULL, *Q = NULL;
  gboolean ok = FALSE;
  if (!priv_check_budget(mf_doubles_bytes(spec_size_add(spec_size_mul(most, q), (gsize)T * T)),
                         c->max_bytes, "the structured (W-power) accounting's classes of C",
                         error) ||
      !(V = priv_matrix_new(MAX(most, 1u), q, error)) || !(Q = priv_matrix_new(T, T, error)))
    goto out;
  for (guint k = 0; k < c->n_cinv; k++) {
    if (count[k] == 0)
      continue;
    guint rows = 0;
    for (guint v = 0; v < n; v++)
      if (c->noisy[v] && c->cinv_class[v] == k)
        memcpy(V + (gsize)rows++ * q, Vall + (gsize)v * q, sizeof(double) * q);
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)q, (int)rows, 1.0, V, (int)q, 0.0, G,
                (int)q);
    mf_fill_upper_from_lower(G, (guint)q);
    const double *F = c->cinv_set + (gsize)k * T * T;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)T, (int)T, 1.0, F, (int)T, 0.0, Q,
                (int)T);
    mf_fill_upper_from_lower(Q, T);
    sigma_of(c, m, G, Q, Sig); /* adds to the lower triangle, mirrors it */
  }
  ok = TRUE;
out:
  g_free(count);
  g_free(V);
  g_free(Q);
  return ok;
}

gboolean priv_struct_powers(const PrivStructCtx *c, const double *Cinv, double scale,
                            PrivBlocks *blocks, GError **error) {
  if (!priv_struct_powers_applies(c)) {
    g_set_error_literal(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                        "the W-power engine needs a static gossip matrix");
    return FALSE;
  }
  guint n = c->n, R = c->R;
  guint m = c->recv_start[1] - c->recv_start[0], q = R * m;
  if (m == 0)
    return TRUE; /* nothing is seen: every block stays 0 */
  if (!priv_check_budget(priv_struct_powers_bytes(c), c->max_bytes,
                         "the structured (W-power) accounting", error))
    return FALSE;
  gboolean ok = FALSE;
  double *Vall = NULL, *G = NULL, *Sig = NULL, *Q = NULL;
  Whitened w = {0};
  PrivCsr wt = {0};
  if (!(Vall = priv_matrix_new(n, q, error)) || !(G = priv_matrix_new(q, q, error)) ||
      !(Sig = priv_matrix_new(q, q, error)))
    goto out;

  /* V_{w,0} = e_w, V_{w,j+1} = W^T V_{w,j}: column j m + a of Vall. */
  const guint *U = c->recv;
  for (guint a = 0; a < m; a++)
    Vall[(gsize)U[a] * q + a] = 1.0;
  priv_csr_of(c->gossip[0], TRUE, &wt);
  for (guint j = 0; j + 1 < R; j++)
    priv_kernel_par((PrivKernel){.kind = PRIV_K_APPLY,
                                 .m = &wt,
                                 .x = Vall + (gsize)j * m,
                                 .y = Vall + (gsize)(j + 1) * m,
                                 .width = m,
                                 .ldx = q,
                                 .ldy = q},
                    n, c->threads);
  /* The known noise (the attackers' own) is no cover. */
  for (guint v = 0; v < n; v++)
    if (!c->noisy[v])
      memset(Vall + (gsize)v * q, 0, sizeof(double) * q);
  if (c->cinv_class) {
    /* A C per class: Sigma = sum_c sigma_of(G_c, Q_c) with G_c the Gram of
     * class c's rows of Vall only (each node's noise is independent of the
     * others' and has its own class's covariance Q_c). */
    if (!class_sigma(c, m, Vall, G, Sig, error))
      goto out;
    g_clear_pointer(&G, g_free);
    goto whiten;
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)q, (int)n, 1.0, Vall, (int)q, 0.0, G,
              (int)q);
  mf_fill_upper_from_lower(G, q);
  if (Cinv) {
    if (!(Q = priv_matrix_new(c->T, c->T, error)))
      goto out;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)c->T, (int)c->T, 1.0, Cinv, (int)c->T,
                0.0, Q, (int)c->T);
    mf_fill_upper_from_lower(Q, c->T);
  }
  sigma_of(c, m, G, Q, Sig);
  g_clear_pointer(&G, g_free);
whiten:
  if (c->progress)
    c->progress(0.25, "structured accounting (W powers)", c->progress_data);
  if (!whiten_rounds(Sig, R, m, &w, error))
    goto out;
  blocks->cond = MAX(blocks->cond, w.cond);
  if (c->progress)
    c->progress(0.5, "structured accounting (W powers)", c->progress_data);
  victims_blocks(c, &w, Vall, m, scale, blocks);
  ok = TRUE;
out:
  whitened_clear(&w);
  priv_csr_clear(&wt);
  g_free(Vall);
  g_free(G);
  g_free(Sig);
  g_free(Q);
  return ok;
}
