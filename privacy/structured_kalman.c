/*
 * privacy/structured_kalman.c: the per-victim Fisher information of an
 * attacker set for white-noise protocols (D-SGD, Muffliato), from the Kalman
 * innovations of the messages it sees, with a cost that follows the edges of
 * the gossip graph (docs/accounting-at-scale.md derives it).
 *
 * Model (what the attackers know subtracted): x_{r+1} = W_r x_r + D (g + z)
 * at injection rounds (D keeps the nodes whose noise the attackers do not
 * know), y_r = E_r x_r (E_r selects recv(r)). The innovations
 * e_r = y_r - E[y_r | y_<r] are independent, so
 *   X = sum_r Gamma_r^T Sigma_r^+ Gamma_r,  Gamma_{r,s} = E_r F_{r-1} ... F_s D,
 * with the prior covariance P_r, Sigma_r = E_r P_r E_r^T, the gain
 * G_r = P_r E_r^T Sigma_r^+ and the closed-loop propagator
 * F_r = W_r (I - G_r E_r).
 *
 * Forward, one n x n matrix: P_r (lower triangle authoritative) is
 * conditioned by a rank-q update P -= Y Y^T, Y = P E^T L^T (L whitens
 * Sigma_r on its range, q = its rank), then propagated as W P W^T with W
 * sparse (O(n nnz)). Per round only Y_r (n x q) and L_r (q x q0) are kept:
 * G_r = Y_r L_r, so F_r never exists as a matrix.
 * Backward, by chunks of consecutive rounds: the rows
 * Omega_{r,s} = L_r E_r F_{r-1} ... F_s are kept transposed (n x rows) and
 * stepped back with
 *   (Omega F_s)^T = W_s^T Omega^T - E_s^T L_s^T (Y_s^T (W_s^T Omega^T)),
 * O(rows (nnz + n q)) per step; at injection rounds s each victim's row of
 * the stack is its column for step s/K. X_u += (that T x rows block) times
 * its transpose at the end of the chunk.
 * Memory O(n^2 + R n q + n T^2), time
 * O(R n nnz + R n^2 q + R^2 q (nnz + n q) + n q R T^2).
 *
 * The sparse kernels split their output rows across threads in a fixed
 * way; each output entry is one thread's sum in a fixed order, so the
 * result does not depend on the thread count.
 */
#include "privacy/structured_internal.h"

#include <math.h>
#include <string.h>

/* Rows carried back together: at least q (one round), else T clamped to
 * [CHUNK_MIN, CHUNK_MAX]. Larger chunks make the products more efficient
 * (about 10% from 64 to 256 rows) but cost n_victims x T x rows doubles of
 * buffers, which T rows keeps within the size of the result. */
#define CHUNK_MIN 64u
#define CHUNK_MAX 256u

/* ---- The engine ---- */

/* What the forward pass keeps of round r (NULL when nothing is seen; its q
 * is q_start[r + 1] - q_start[r]). */
typedef struct {
  double *Y;  /* n x q: P_r E_r^T L_r^T */
  double *Lw; /* q x q0: L_r */
} RoundGain;

static void report(const PrivStructCtx *c, double done, double total) {
  if (c->progress)
    c->progress(total > 0 ? MIN(1.0, done / total) : 1.0, "structured accounting",
                c->progress_data);
}

/* Estimated multiply-adds, a sparse one (memory-bound) counted as
 * PRIV_SPARSE_WEIGHT dense ones: forward rounds (*@fwd_round each),
 * backward steps of each row (about R / 2 of *@row_step each), the
 * victims' updates (about T^2 / 3 per row). */
static double kalman_work(const PrivStructCtx *c, double *fwd_round, double *row_step) {
  double n = priv_struct_kalman_state(c), qm = MAX(c->max_recv, 1), R = c->R, T = c->T;
  double seen = c->recv_start[c->R], nv = c->n_victims;
  /* The rounds' mean: a delivery record's W_r differ (stale mode's first
   * rounds read no delayed slot, later ones do). */
  double nnz = 0.0;
  for (guint r = 0; r < c->n_gossip; r++)
    nnz += (double)topo_gossip_nnz(c->gossip[r]);
  nnz /= MAX(c->n_gossip, 1u);
  double noise = 0.0; /* each noisy node's h_k and A_k (a sum of integers: exact) */
  for (guint i = 0; c->noise && i < c->n_noisy; i++) {
    double p = priv_struct_noise_of(c, c->noisy_nodes[i])->p;
    noise += p * (p + 1);
  }
  nnz += noise;
  *fwd_round = PRIV_SPARSE_WEIGHT * 2.0 * n * nnz + n * n * qm / 2.0;
  *row_step = PRIV_SPARSE_WEIGHT * nnz + 2.0 * n * qm;
  return R * *fwd_round + seen * (R / 2.0) * *row_step + seen * nv * (T * T / 3.0) + 1.0;
}

guint priv_struct_kalman_state(const PrivStructCtx *c) {
  return c->n + (c->noise ? c->noise_slot[c->n_noisy] : 0);
}

double priv_struct_kalman_work(const PrivStructCtx *c) {
  double f, s;
  return kalman_work(c, &f, &s);
}

/* The engine's state: what the forward pass keeps and the backward pass's
 * stack, buffers and progress. */
typedef struct {
  const PrivStructCtx *c;
  guint ns;        /* the state: the n entries, then the noise's (c->noise) */
  RoundGain *gain; /* R */
  guint *q_start;  /* R + 1: round r's rows are q_start[r] .. q_start[r + 1] */
  PrivCsr csr;     /* W_r or W_r^T of csr_src */
  const TopoGossip *csr_src;
  guint rc;         /* the stack's width */
  double *St, *St2; /* n x rc: Omega^T in the first `filled` columns, and scratch */
  double *buf;      /* each victim's T x rc block of its columns */
  double *B1, *B2;  /* qm x rc scratch */
  double scale;
  PrivBlocks *blocks;
  double done, total, fwd_round, row_step;
} Kalman;

/*
 * @m = the transition from round @r to r + 1 of the state with the noise's
 * (c->noise): rows of the n entries are W_r's, plus, at an injection round
 * r + 1 = k K and for a noisy node, its class's noise's h_k on its p state
 * columns (x_{r+1} = W_r x_r + h_k . s_k + ...); the p rows of a noisy
 * node's state are its A_k's (identity between injections). Transposed
 * when @transpose. O(n + nnz(W_r) + sum of p^2 over the noisy nodes).
 */
static void augmented_csr(const PrivStructCtx *c, guint r, gboolean transpose, PrivCsr *m) {
  guint n = c->n, N = priv_struct_kalman_state(c);
  gboolean inj = (r + 1) % c->K == 0 && (r + 1) / c->K < c->T;
  guint k = (r + 1) / c->K;
  PrivCsr a = {0};
  priv_csr_of(priv_struct_gossip(c, r), FALSE, &a);
  gsize nnz = a.ptr[n];
  for (guint i = 0; i < c->n_noisy; i++) {
    gsize p = c->noise_slot[i + 1] - c->noise_slot[i];
    nnz += p * (p + 1);
  }
  PrivCsr t = {.n = N,
               .ptr = g_new0(guint, (gsize)N + 1),
               .col = g_new(guint, MAX(nnz, 1)),
               .val = g_new(double, MAX(nnz, 1))};
  guint *slot = g_new(guint, n); /* noisy node -> its index among them */
  for (guint v = 0; v < n; v++)
    slot[v] = G_MAXUINT;
  for (guint i = 0; i < c->n_noisy; i++)
    slot[c->noisy_nodes[i]] = i;
  gsize e = 0;
  for (guint v = 0; v < n; v++) {
    for (guint j = a.ptr[v]; j < a.ptr[v + 1]; j++, e++) {
      t.col[e] = a.col[j];
      t.val[e] = a.val[j];
    }
    if (inj && slot[v] != G_MAXUINT) {
      const PrivNoiseState *ns = priv_struct_noise_of(c, v);
      guint s0 = n + c->noise_slot[slot[v]], pp = MAX(ns->p, 1u);
      for (guint i = 0; i < ns->p; i++, e++) {
        t.col[e] = s0 + i;
        t.val[e] = ns->h[(gsize)k * pp + i];
      }
    }
    t.ptr[v + 1] = (guint)e;
  }
  for (guint i = 0; i < c->n_noisy; i++) {
    const PrivNoiseState *ns = priv_struct_noise_of(c, c->noisy_nodes[i]);
    guint p = ns->p, pp = MAX(p, 1u), s0 = n + c->noise_slot[i];
    for (guint x = 0; x < p; x++) {
      guint row = s0 + x;
      for (guint y = 0; y < p; y++) {
        double val = inj ? ns->A[((gsize)k * pp + x) * pp + y] : (double)(x == y);
        if (val == 0.0)
          continue;
        t.col[e] = s0 + y;
        t.val[e++] = val;
      }
      t.ptr[row + 1] = (guint)e;
    }
  }
  g_free(slot);
  priv_csr_clear(&a);
  priv_csr_clear(m);
  if (!transpose) {
    *m = t;
    return;
  }
  /* Rows of t in increasing order: each row of the transpose comes out
   * sorted. */
  PrivCsr u = {.n = N,
               .ptr = g_new0(guint, (gsize)N + 1),
               .col = g_new(guint, MAX(e, 1)),
               .val = g_new(double, MAX(e, 1))};
  for (gsize j = 0; j < e; j++)
    u.ptr[t.col[j] + 1]++;
  for (guint v = 0; v < N; v++)
    u.ptr[v + 1] += u.ptr[v];
  guint *fill = g_memdup2(u.ptr, sizeof(guint) * N);
  for (guint v = 0; v < N; v++)
    for (guint j = t.ptr[v]; j < t.ptr[v + 1]; j++) {
      guint q = fill[t.col[j]]++;
      u.col[q] = v;
      u.val[q] = t.val[j];
    }
  g_free(fill);
  priv_csr_clear(&t);
  *m = u;
}

/* The injection of step @k into the prior @P (N x N, both triangles), N the
 * state: each noisy node's noise d_k z at its entry and b_k z into its
 * state (its class's d_k, b_k), rank one per node; white noise:
 * priv_struct_inject. O(sum of p^2 over the noisy nodes). */
static void inject(const PrivStructCtx *c, guint k, double *P) {
  if (!c->noise) {
    priv_struct_inject(c, k * c->K, P);
    return;
  }
  gsize N = priv_struct_kalman_state(c);
  guint n = c->n;
  for (guint i = 0; i < c->n_noisy; i++) {
    const PrivNoiseState *ns = priv_struct_noise_of(c, c->noisy_nodes[i]);
    guint p = ns->p, pp = MAX(p, 1u);
    double d = ns->d[k];
    const double *b = ns->b + (gsize)k * pp;
    gsize v = c->noisy_nodes[i], s0 = n + (gsize)c->noise_slot[i];
    P[v * (N + 1)] += d * d;
    for (guint x = 0; x < p; x++) {
      P[(s0 + x) * N + v] += b[x] * d;
      P[v * N + s0 + x] += b[x] * d;
      for (guint y = 0; y < p; y++)
        P[(s0 + x) * N + s0 + y] += b[x] * b[y];
    }
  }
}

/* @k->csr = W (@transpose FALSE) or W^T of round @r's gossip (with the
 * noise's state: its transition, rebuilt every round), when not already. */
static void csr_for(Kalman *k, guint r, gboolean transpose) {
  if (k->c->noise) {
    augmented_csr(k->c, r, transpose, &k->csr);
    k->csr_src = NULL;
    return;
  }
  const TopoGossip *w = priv_struct_gossip(k->c, r);
  if (w != k->csr_src) {
    priv_csr_of(w, transpose, &k->csr);
    k->csr_src = w;
  }
}

/*
 * Stale mode's propagation (a state with copy rows: the delay slots, the
 * noise's state between injections): P <- M P M^T in place on the full
 * (both triangles) N x N @P, M = the augmented W_r in @k->csr. A row of M
 * that is e_a keeps its entry (a slot holding its message), one that is e_v
 * with v's row general copies v (a slot starting to hold v's message); the
 * others are general (the nodes; a copy of a copy is taken as general). So
 * with G the general rows and Mg their rows of M,
 *   Zt = P Mg^T (N x |G|),  P'[G, G] = Mg Zt,
 *   P'[a, G] = Zt[src(a), :] for a copy row a of source src(a),
 *   P'[a, b] = P[src(a), src(b)] between copy rows,
 * and the block between slots that keep their messages is not touched: the
 * work is O(N nnz(Mg) + |G| nnz(Mg) + N^2 - L_keep^2), not the O(N nnz + N^2)
 * passes of W P W^T over the whole state (docs/accounting-at-scale.md,
 * "Stale mode"). @s holds the classification and Zt, Bg (|G| x |G|), grown
 * as needed. Each entry is one thread's sum in a fixed order.
 * Errors: PRIV_ERROR_MEMORY (Zt or Bg over the budget).
 */
typedef struct {
  guint *src;       /* N: the copied row, or G_MAXUINT (general) */
  guint *gen, *cpy; /* the general rows, the copy rows, increasing */
  guint *fresh;     /* the copy rows whose source is not themselves */
  PrivCsr mg;       /* Mg */
  double *Zt, *Bg;
  gsize cap; /* |G| the buffers hold */
} CopyScratch;

#define GENERAL G_MAXUINT
/* General rows whose copy columns propagate_copies fills together. */
#define TRANSPOSE_ROWS 256u

static void copy_scratch_clear(CopyScratch *s) {
  g_free(s->src);
  g_free(s->gen);
  g_free(s->cpy);
  g_free(s->fresh);
  priv_csr_clear(&s->mg);
  g_free(s->Zt);
  g_free(s->Bg);
}

static gboolean propagate_copies(Kalman *k, double *P, CopyScratch *s, GError **error) {
  const PrivCsr *m = &k->csr;
  guint N = k->ns, ng = 0, nc = 0, nf = 0;
  if (!s->src) {
    s->src = g_new(guint, N);
    s->gen = g_new(guint, N);
    s->cpy = g_new(guint, N);
    s->fresh = g_new(guint, N);
  }
  for (guint a = 0; a < N; a++)
    s->src[a] = m->ptr[a + 1] - m->ptr[a] == 1 && m->val[m->ptr[a]] == 1.0 ? m->col[m->ptr[a]]
                                                                           : GENERAL;
  /* A copy of another copy row: general (rows only turn general here, so
   * one pass leaves every copy row reading itself or a general row). */
  for (guint a = 0; a < N; a++)
    if (s->src[a] != GENERAL && s->src[a] != a && s->src[s->src[a]] != GENERAL)
      s->src[a] = GENERAL;
  for (guint a = 0; a < N; a++) {
    if (s->src[a] == GENERAL) {
      s->gen[ng++] = a;
    } else {
      s->cpy[nc++] = a;
      if (s->src[a] != a)
        s->fresh[nf++] = a;
    }
  }
  if (ng > s->cap) {
    g_clear_pointer(&s->Zt, g_free);
    g_clear_pointer(&s->Bg, g_free);
    if (!(s->Zt = priv_matrix_new(N, ng, error)) || !(s->Bg = priv_matrix_new(ng, ng, error)))
      return FALSE;
    s->cap = ng;
  }
  /* Mg, and the general rows' index into G (reusing gen's order). */
  PrivCsr *mg = &s->mg;
  priv_csr_clear(mg);
  gsize nnz = 0;
  for (guint i = 0; i < ng; i++)
    nnz += m->ptr[s->gen[i] + 1] - m->ptr[s->gen[i]];
  mg->n = ng;
  mg->ptr = g_new0(guint, (gsize)ng + 1);
  mg->col = g_new(guint, MAX(nnz, 1));
  mg->val = g_new(double, MAX(nnz, 1));
  for (guint i = 0; i < ng; i++) {
    guint a = s->gen[i], len = m->ptr[a + 1] - m->ptr[a];
    memcpy(mg->col + mg->ptr[i], m->col + m->ptr[a], sizeof(guint) * len);
    memcpy(mg->val + mg->ptr[i], m->val + m->ptr[a], sizeof(double) * len);
    mg->ptr[i + 1] = mg->ptr[i] + len;
  }
  double *Zt = s->Zt, *Bg = s->Bg;
  guint threads = k->c->threads;
  priv_kernel_par((PrivKernel){.kind = PRIV_K_RIGHT, .m = mg, .x = P, .y = Zt, .ldx = N, .ldy = ng},
                  N, threads);
  /* Bg = Mg Zt, symmetric: its lower triangle. */
  priv_kernel_par(
      (PrivKernel){.kind = PRIV_K_APPLY_LOWER, .m = mg, .x = Zt, .y = Bg, .ldx = ng, .ldy = ng}, ng,
      threads);
  /* Copy rows: their copy columns first (reading general columns of their
   * own row or a general row, none written yet), then their general ones. */
  for (guint x = 0; x < nc; x++) {
    guint a = s->cpy[x], v = s->src[a];
    double *pa = P + (gsize)a * N;
    if (v == a) {
      for (guint y = 0; y < nf; y++) {
        guint b = s->fresh[y];
        pa[b] = pa[s->src[b]];
      }
    } else {
      const double *pv = P + (gsize)v * N;
      for (guint y = 0; y < nc; y++) {
        guint b = s->cpy[y];
        pa[b] = pv[s->src[b]];
      }
    }
    const double *z = Zt + (gsize)v * ng;
    for (guint i = 0; i < ng; i++)
      pa[s->gen[i]] = z[i];
  }
  /* General rows: Mg Zt (its lower triangle, so that P stays symmetric),
   * and their copy columns from the copy rows just written, by blocks of
   * TRANSPOSE_ROWS rows: each copy row is read TRANSPOSE_ROWS entries at a
   * time (a run of cache lines, not one from every row), and the block's
   * rows take one entry each, their open lines fitting the L1/L2 cache. */
  for (guint i0 = 0; i0 < ng; i0 += TRANSPOSE_ROWS) {
    guint i1 = MIN(ng, i0 + TRANSPOSE_ROWS);
    for (guint i = i0; i < i1; i++) {
      double *pg = P + (gsize)s->gen[i] * N;
      for (guint j = 0; j < ng; j++)
        pg[s->gen[j]] = j <= i ? Bg[(gsize)i * ng + j] : Bg[(gsize)j * ng + i];
    }
    for (guint x = 0; x < nc; x++) {
      const double *pb = P + (gsize)s->cpy[x] * N;
      for (guint i = i0; i < i1; i++)
        P[(gsize)s->gen[i] * N + s->cpy[x]] = pb[s->gen[i]];
    }
  }
  return TRUE;
}

/* The filter: each round's whitening L_r and gain factor Y_r into k->gain. */
static gboolean forward(Kalman *k, GError **error) {
  const PrivStructCtx *c = k->c;
  guint n = k->ns, R = c->R, qm = MAX(c->max_recv, 1);
  gboolean ok = FALSE;
  double *P = NULL, *A = NULL;
  PrivKalmanScratch w;
  priv_kalman_scratch_init(&w, n, qm);
  /* Stale mode's slots: propagate_copies on P alone. */
  gboolean copies = c->n > c->n_nodes;
  CopyScratch cs = {0};
  if (!(P = priv_matrix_new(n, n, error)) || (!copies && !(A = priv_matrix_new(n, n, error))))
    goto out;
  inject(c, 0, P);
  for (guint r = 0; r < R; r++) {
    const guint *rv = c->recv + c->recv_start[r];
    guint q0 = c->recv_start[r + 1] - c->recv_start[r], q;
    gint kept = priv_struct_whiten(P, n, rv, q0, r, w.S, w.lam, w.Lw, error);
    if (kept < 0)
      goto out;
    q = (guint)kept;
    priv_struct_note_cond(&k->blocks->cond, w.lam, q0, q);
    k->q_start[r + 1] = k->q_start[r] + q;
    if (q > 0) {
      /* P+ = P - Y Y^T (lower). */
      RoundGain *g = &k->gain[r];
      g->Lw = g_memdup2(w.Lw, sizeof(double) * q * q0);
      if (!(g->Y = priv_matrix_new(n, q, error)))
        goto out;
      priv_struct_gain(P, n, rv, q0, q, w.Lw, w.PR, g->Y);
      if (r + 1 < R && copies)
        /* Both triangles: the propagation reads whole rows. */
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)q, -1.0, g->Y,
                    (int)q, g->Y, (int)q, 1.0, P, (int)n);
      else if (r + 1 < R)
        cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)n, (int)q, -1.0, g->Y, (int)q,
                    1.0, P, (int)n);
    }
    if (r + 1 < R && copies) {
      csr_for(k, r, FALSE);
      if (!propagate_copies(k, P, &cs, error))
        goto out;
      if ((r + 1) % c->K == 0)
        inject(c, (r + 1) / c->K, P);
    } else if (r + 1 < R) {
      /* P_{r+1} = W_r P+ W_r^T (+ the next injection): A = W P on the full
       * P, then the lower triangle of A W^T. */
      csr_for(k, r, FALSE);
      mf_fill_upper_from_lower(P, n);
      priv_kernel_par(
          (PrivKernel){
              .kind = PRIV_K_APPLY, .m = &k->csr, .x = P, .y = A, .width = n, .ldx = n, .ldy = n},
          n, c->threads);
      priv_kernel_par(
          (PrivKernel){
              .kind = PRIV_K_RIGHT_LOWER, .m = &k->csr, .x = A, .y = P, .ldx = n, .ldy = n},
          n, c->threads);
      if ((r + 1) % c->K == 0)
        inject(c, (r + 1) / c->K, P);
    }
    k->done += k->fwd_round;
    report(c, k->done, k->total);
  }
  ok = TRUE;
out:
  g_free(P);
  g_free(A);
  copy_scratch_clear(&cs);
  priv_kalman_scratch_clear(&w);
  return ok;
}

/* ---- The backward pass (priv_struct_walk_back), on the transposed stack ---- */

/* Omega_{s,s}^T = E_s^T L_s^T: new columns [filled, filled + q). */
static void back_seed(void *data, guint s, guint filled, guint q) {
  Kalman *k = data;
  const PrivStructCtx *c = k->c;
  const guint *rv = c->recv + c->recv_start[s];
  guint q0 = c->recv_start[s + 1] - c->recv_start[s];
  for (guint v = 0; v < k->ns; v++)
    memset(k->St + (gsize)v * k->rc + filled, 0, sizeof(double) * q);
  for (guint i = 0; i < q; i++)
    for (guint j = 0; j < q0; j++)
      k->St[(gsize)rv[j] * k->rc + filled + i] = k->gain[s].Lw[(gsize)i * q0 + j];
}

static void back_collect(void *data, guint step, guint filled) {
  Kalman *k = data;
  const PrivStructCtx *c = k->c;
  for (guint vi = 0; vi < c->n_victims; vi++)
    memcpy(k->buf + ((gsize)vi * c->T + step) * k->rc, k->St + (gsize)c->victims[vi] * k->rc,
           sizeof(double) * filled);
}

/* St <- F_p^T St: W_p^T St, less E_p^T L_p^T (Y_p^T (W_p^T St)). */
static void back_step(void *data, guint p, guint filled) {
  Kalman *k = data;
  const PrivStructCtx *c = k->c;
  guint n = k->ns, rc = k->rc;
  csr_for(k, p, TRUE);
  priv_kernel_par((PrivKernel){.kind = PRIV_K_APPLY,
                               .m = &k->csr,
                               .x = k->St,
                               .y = k->St2,
                               .width = filled,
                               .ldx = rc,
                               .ldy = rc},
                  n, c->threads);
  const RoundGain *g = &k->gain[p];
  guint gq = k->q_start[p + 1] - k->q_start[p];
  if (gq > 0) {
    const guint *rv = c->recv + c->recv_start[p];
    guint q0 = c->recv_start[p + 1] - c->recv_start[p];
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)gq, (int)filled, (int)n, 1.0, g->Y,
                (int)gq, k->St2, (int)rc, 0.0, k->B1, (int)filled);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)q0, (int)filled, (int)gq, 1.0, g->Lw,
                (int)q0, k->B1, (int)filled, 0.0, k->B2, (int)filled);
    for (guint j = 0; j < q0; j++)
      cblas_daxpy((int)filled, -1.0, k->B2 + (gsize)j * filled, 1, k->St2 + (gsize)rv[j] * rc, 1);
  }
  double *t = k->St;
  k->St = k->St2;
  k->St2 = t;
  k->done += filled * k->row_step;
  if ((p + 1) % 64 == 0)
    report(c, k->done, k->total);
}

/* X_u += b b^T over the chunk's rows (steps up to kn - 1). */
static void back_flush(void *data, guint rows, guint kn) {
  Kalman *k = data;
  const PrivStructCtx *c = k->c;
  guint T = c->T, nv = c->n_victims;
  for (guint vi = 0; vi < nv; vi++) {
    double *b = k->buf + (gsize)vi * T * k->rc;
    double *X = k->blocks->X + (gsize)c->victims[vi] * T * T;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)kn, (int)rows, k->scale, b,
                (int)k->rc, 1.0, X, (int)T);
    memset(b, 0, sizeof(double) * kn * k->rc);
  }
  k->done += (double)rows * nv * kn * kn / 2.0;
  report(c, k->done, k->total);
}

static const PrivKalmanWalk backward = {
    .seed = back_seed, .collect = back_collect, .step = back_step, .flush = back_flush};

/* Doubles the engine needs, the result (n T x T, reserved by the caller)
 * included; @rc_out the stack's width. */
static gsize kalman_count(const PrivStructCtx *c, guint *rc_out) {
  guint n = priv_struct_kalman_state(c), R = c->R, T = c->T, nv = c->n_victims;
  guint qm = MAX(c->max_recv, 1);
  guint rc = MAX(qm, CLAMP(T, CHUNK_MIN, CHUNK_MAX));
  gsize seen = c->recv_start[R];
  /* The result and the gains (sum_r q_r <= seen columns of the state,
   * plus L_r) live throughout; the forward pass adds P and W P (N x N each, N the state),
   * the backward one the stack (2 N x rc) and the victims' buffers
   * (nv T x rc). */
  gsize keep = priv_size_sum3(seen, n, seen, qm, (gsize)c->n * T, T);
  gsize fwd = priv_size_sum3(2, (gsize)n * n, 2, (gsize)n * qm, 1, (gsize)qm * qm);
  if (c->n > c->n_nodes) {
    /* Stale mode (propagate_copies): P, Zt and Bg, G the nodes and the
     * noise's state (a slot row is a copy). */
    gsize g = (gsize)n - (c->n - c->n_nodes);
    fwd = priv_size_sum3(1, (gsize)n * n, g, n + g, 2, (gsize)n * qm + (gsize)qm * qm);
  }
  gsize bwd = priv_size_sum3(2, (gsize)n * rc, nv, (gsize)T * rc, 2, (gsize)qm * rc);
  gsize count = keep + MAX(fwd, bwd);
  if (rc_out)
    *rc_out = rc;
  return count < keep ? G_MAXSIZE : count;
}

gsize priv_struct_kalman_bytes(const PrivStructCtx *c) {
  return mf_doubles_bytes(kalman_count(c, NULL));
}

gboolean priv_struct_kalman(const PrivStructCtx *c, double scale, PrivBlocks *blocks,
                            GError **error) {
  guint n = priv_struct_kalman_state(c), R = c->R, T = c->T, nv = c->n_victims;
  guint qm = MAX(c->max_recv, 1), rc;
  gsize count = kalman_count(c, &rc);
  if (!priv_check_budget(mf_doubles_bytes(count), c->max_bytes,
                         "the structured (Kalman) accounting", error))
    return FALSE;

  gboolean ok = FALSE;
  Kalman k = {.c = c,
              .ns = n,
              .gain = g_new0(RoundGain, R),
              .q_start = g_new0(guint, R + 1),
              .rc = rc,
              .B1 = g_new(double, (gsize)qm *rc),
              .B2 = g_new(double, (gsize)qm *rc),
              .scale = scale,
              .blocks = blocks};
  k.total = kalman_work(c, &k.fwd_round, &k.row_step);
  if (!forward(&k, error))
    goto out;
  k.csr_src = NULL;
  if (!(k.St = priv_matrix_new(n, rc, error)) || !(k.St2 = priv_matrix_new(n, rc, error)) ||
      !(k.buf = priv_matrix_new((gsize)MAX(nv, 1) * T, rc, error)))
    goto out;
  priv_struct_walk_back(c, k.q_start, rc, &backward, &k, blocks);
  report(c, k.total, k.total);
  ok = TRUE;
out:
  for (guint r = 0; r < R; r++) {
    g_free(k.gain[r].Y);
    g_free(k.gain[r].Lw);
  }
  g_free(k.gain);
  g_free(k.q_start);
  priv_csr_clear(&k.csr);
  g_free(k.St);
  g_free(k.St2);
  g_free(k.buf);
  g_free(k.B1);
  g_free(k.B2);
  return ok;
}

void priv_struct_walk_back(const PrivStructCtx *c, const guint *start, guint cap,
                           const PrivKalmanWalk *walk, void *data, PrivBlocks *blocks) {
  guint R = c->R, K = c->K;
  for (guint r0 = 0, r1; r0 < R; r0 = r1) {
    /* The chunk [r0, r1): as many rounds as their rows fit in cap. */
    r1 = r0;
    while (r1 < R && start[r1 + 1] - start[r0] <= cap)
      r1++;
    guint rows = start[r1] - start[r0], filled = 0;
    if (rows == 0)
      continue;
    for (guint s = r1; s-- > 0;) {
      guint q = start[s + 1] - start[s];
      if (s >= r0 && q > 0) {
        walk->seed(data, s, filled, q);
        filled += q;
      }
      if (filled > 0 && s % K == 0)
        walk->collect(data, s / K, filled);
      if (s > 0 && filled > 0)
        walk->step(data, s - 1, filled);
    }
    walk->flush(data, rows, (r1 - 1) / K + 1);
  }
  for (guint vi = 0; vi < c->n_victims; vi++)
    mf_fill_upper_from_lower(blocks->X + (gsize)c->victims[vi] * c->T * c->T, c->T);
}

gint priv_struct_whiten(const double *P, guint n, const guint *rv, guint q0, guint r, double *S,
                        double *lam, double *Lw, GError **error) {
  if (q0 == 0)
    return 0;
  for (guint i = 0; i < q0; i++)
    for (guint j = 0; j <= i; j++)
      S[(gsize)i * q0 + j] = P[(gsize)rv[i] * n + rv[j]];
  lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)q0, S, (lapack_int)q0,
                                   lam);
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the eigensolver failed on the round-%u message covariance (LAPACK info %d)", r,
                (int)info);
    return -1;
  }
  double lmax = lam[q0 - 1];
  guint q = 0;
  for (guint i = q0; i-- > 0;) {
    if (!(lam[i] > PRIV_STRUCT_RANK_TOL * lmax))
      break;
    double f = 1.0 / sqrt(lam[i]);
    for (guint j = 0; j < q0; j++)
      Lw[(gsize)q * q0 + j] = f * S[(gsize)j * q0 + i];
    q++;
  }
  return (gint)q;
}

void priv_struct_gain(const double *P, guint n, const guint *rv, guint q0, guint q,
                      const double *Lw, double *PR, double *Y) {
  for (guint v = 0; v < n; v++)
    for (guint j = 0; j < q0; j++)
      PR[(gsize)v * q0 + j] = v >= rv[j] ? P[(gsize)v * n + rv[j]] : P[(gsize)rv[j] * n + v];
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)q, (int)q0, 1.0, PR, (int)q0,
              Lw, (int)q0, 0.0, Y, (int)q);
}

void priv_kalman_scratch_init(PrivKalmanScratch *s, guint n, guint qm) {
  s->S = g_new(double, (gsize)qm *qm);
  s->lam = g_new(double, qm);
  s->Lw = g_new(double, (gsize)qm *qm);
  s->PR = g_new(double, (gsize)n *qm);
}

void priv_kalman_scratch_clear(PrivKalmanScratch *s) {
  g_free(s->S);
  g_free(s->lam);
  g_free(s->Lw);
  g_free(s->PR);
}
