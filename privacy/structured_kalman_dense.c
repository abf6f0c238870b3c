/*
 * privacy/structured_kalman_dense.c: the reference for structured_kalman.c
 * (PRIV_ENGINE_KALMAN_DENSE): the per-victim Fisher information of an
 * attacker set for white-noise protocols (D-SGD, Muffliato), from the Kalman
 * innovations of the messages it sees.
 *
 * Why it works. Subtract what the attackers know (their gradients, their
 * noise, public constants): the unknown part of the state follows
 * x_{r+1} = W_r x_r + D (g + z) at injection rounds (D keeps the nodes
 * whose noise the attackers do not know),
 * and the attackers observe y_r = E_r x_r (E_r selects recv(r)). The
 * observations are jointly Gaussian with mean linear in g, so
 * X = M^T (M M^T)^+ M (the X = (B^+ A)^T (B^+ A) of the generic path, with
 * A = B up to the noise scale) is the Fisher information of g, which the
 * innovations e_r = y_r - E[y_r | y_<r] split into independent terms:
 *   X = sum_r Gamma_r^T Sigma_r^+ Gamma_r,  Gamma_r = d e_r / d g.
 * With the prior covariance P_r, Sigma_r = E_r P_r E_r^T, the gain
 * G_r = P_r E_r^T Sigma_r^+, the error propagator F_r = W_r (I - G_r E_r),
 * the innovation's dependence on injection s <= r is
 *   Gamma_{r,s} = E_r F_{r-1} ... F_s D.
 * Whitening with L_r (L_r Sigma_r L_r^T = I on Sigma_r's range; directions of
 * zero variance are messages that repeat earlier ones), the rows
 * Omega_{r,s} = L_r E_r F_{r-1} ... F_s (q = |recv(r)| rows of n) are built
 * backwards from s = r, the rows of a chunk of rounds stacked so that each
 * step is one tall product with F_s, and victim u's column of them is its
 * contribution: X_u += Omega_{r,.}[:, u]^T Omega_{r,.}[:, u]. Nothing of size
 * nT x nT is formed; time-varying W_r costs nothing extra.
 */
#include "privacy/structured_internal.h"

#include <math.h>
#include <string.h>

/* Rows (innovations of consecutive rounds) carried backwards together: one
 * dgemm of this height per step instead of many small ones, and one
 * rank-CHUNK_ROWS update of each X_u per chunk. */
#define CHUNK_ROWS 256u

/* The engine's state: the propagators and seeds of the forward pass, the
 * stack and buffers of the backward one. */
typedef struct {
  const PrivStructCtx *c;
  guint rows_cap;   /* the stack's height */
  guint *om_start;  /* R + 1: round r's rows of Om0 are om_start[r] .. om_start[r + 1] */
  double *F;        /* F_0 .. F_{R-2}, n x n each */
  double *Om0;      /* the Omega_{r,r}, rows of n */
  double *St, *St2; /* rows_cap x n: Omega in the first `filled` rows, and scratch */
  double *buf;      /* each victim's rows_cap x T block of its columns */
  double scale;
  PrivBlocks *blocks;
} Dense;

/* The filter: F_r and Omega_{r,r} = L_r E_r into @d. */
static gboolean forward(Dense *d, GError **error) {
  const PrivStructCtx *c = d->c;
  guint n = c->n, R = c->R, K = c->K, qm = MAX(c->max_recv, 1);
  gsize nn = (gsize)n * n;
  gboolean ok = FALSE;
  double *P = NULL, *Pn = NULL, *Wd = NULL;
  PrivKalmanScratch w;
  priv_kalman_scratch_init(&w, n, qm);
  double *Lw = w.Lw, *Y = g_new(double, (gsize)n *qm), *G = g_new(double, (gsize)n *qm);
  double *WG = g_new(double, (gsize)n *qm);
  if (!(P = priv_matrix_new(n, n, error)) || !(Pn = priv_matrix_new(n, n, error)))
    goto out;
  /* Round 0: the first injection, unit variance on the noisy nodes. */
  priv_struct_inject(c, 0, P);
  for (guint r = 0; r < R; r++) {
    if (c->n_gossip != 1 || r == 0) {
      g_free(Wd);
      Wd = topo_gossip_dense(priv_struct_gossip(c, r));
    }
    const guint *rv = c->recv + c->recv_start[r];
    guint q0 = c->recv_start[r + 1] - c->recv_start[r], q;
    double *Fr = r + 1 < R ? d->F + (gsize)r * nn : NULL;
    gint kept = priv_struct_whiten(P, n, rv, q0, r, w.S, w.lam, Lw, error);
    if (kept < 0)
      goto out;
    q = (guint)kept;
    priv_struct_note_cond(&d->blocks->cond, w.lam, q0, q);
    d->om_start[r + 1] = d->om_start[r] + q;
    if (q > 0) {
      /* P+ = P - Y Y^T; G = Y Lw (n x q0). P is symmetric here, so the
       * gain read from its lower triangle is the sparse engine's. */
      priv_struct_gain(P, n, rv, q0, q, Lw, w.PR, Y);
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)n, (int)q, -1.0, Y, (int)q, 1.0, P,
                  (int)n);
      mf_fill_upper_from_lower(P, n);
      if (Fr) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)q0, (int)q, 1.0, Y,
                    (int)q, Lw, (int)q0, 0.0, G, (int)q0);
        /* F_r = W_r - (W_r G) E_R. */
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)q0, (int)n, 1.0, Wd,
                    (int)n, G, (int)q0, 0.0, WG, (int)q0);
        memcpy(Fr, Wd, sizeof(double) * nn);
        for (guint v = 0; v < n; v++)
          for (guint j = 0; j < q0; j++)
            Fr[(gsize)v * n + rv[j]] -= WG[(gsize)v * q0 + j];
      }
      double *Om = d->Om0 + (gsize)d->om_start[r] * n;
      for (guint i = 0; i < q; i++)
        for (guint j = 0; j < q0; j++)
          Om[(gsize)i * n + rv[j]] = Lw[(gsize)i * q0 + j];
    } else if (Fr) {
      memcpy(Fr, Wd, sizeof(double) * nn); /* nothing observed: F_r = W_r */
    }
    if (r + 1 < R) {
      /* P_{r+1} = W_r P+ W_r^T (+ the next injection). */
      cblas_dsymm(CblasRowMajor, CblasRight, CblasLower, (int)n, (int)n, 1.0, P, (int)n, Wd, (int)n,
                  0.0, Pn, (int)n);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)n, 1.0, Pn, (int)n,
                  Wd, (int)n, 0.0, P, (int)n);
      for (guint v = 0; v < n; v++)
        for (guint w = v + 1; w < n; w++) {
          double m = 0.5 * (P[(gsize)v * n + w] + P[(gsize)w * n + v]);
          P[(gsize)v * n + w] = P[(gsize)w * n + v] = m;
        }
      if ((r + 1) % K == 0)
        priv_struct_inject(c, r + 1, P);
    }
  }
  ok = TRUE;
out:
  g_free(P);
  g_free(Pn);
  g_free(Wd);
  priv_kalman_scratch_clear(&w);
  g_free(Y);
  g_free(G);
  g_free(WG);
  return ok;
}

/* ---- The backward pass (priv_struct_walk_back), on a stack of rows ---- */

static void back_seed(void *data, guint s, guint filled, guint q) {
  Dense *d = data;
  guint n = d->c->n;
  memcpy(d->St + (gsize)filled * n, d->Om0 + (gsize)d->om_start[s] * n, sizeof(double) * q * n);
}

static void back_collect(void *data, guint step, guint filled) {
  Dense *d = data;
  const PrivStructCtx *c = d->c;
  guint n = c->n, T = c->T;
  for (guint vi = 0; vi < c->n_victims; vi++) {
    double *b = d->buf + (gsize)vi * d->rows_cap * T + step;
    guint u = c->victims[vi];
    for (guint i = 0; i < filled; i++)
      b[(gsize)i * T] = d->St[(gsize)i * n + u];
  }
}

static void back_step(void *data, guint p, guint filled) {
  Dense *d = data;
  guint n = d->c->n;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)filled, (int)n, (int)n, 1.0, d->St,
              (int)n, d->F + (gsize)p * n * n, (int)n, 0.0, d->St2, (int)n);
  double *t = d->St;
  d->St = d->St2;
  d->St2 = t;
}

/* X_u += Omega^T Omega over the chunk's rows (steps up to kn - 1). */
static void back_flush(void *data, guint rows, guint kn) {
  Dense *d = data;
  const PrivStructCtx *c = d->c;
  guint T = c->T;
  for (guint vi = 0; vi < c->n_victims; vi++) {
    double *b = d->buf + (gsize)vi * d->rows_cap * T;
    double *X = d->blocks->X + (gsize)c->victims[vi] * T * T;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)kn, (int)rows, d->scale, b, (int)T, 1.0,
                X, (int)T);
    memset(b, 0, sizeof(double) * rows * T);
  }
}

static const PrivKalmanWalk backward = {
    .seed = back_seed, .collect = back_collect, .step = back_step, .flush = back_flush};

gboolean priv_struct_kalman_dense(const PrivStructCtx *c, double scale, PrivBlocks *blocks,
                                  GError **error) {
  guint n = c->n, R = c->R, T = c->T, nv = c->n_victims;
  gsize nn = (gsize)n * n;
  guint rows_cap = MAX(CHUNK_ROWS, c->max_recv);
  /* Memory: F_0..F_{R-2}, the Omega_{r,r} (at most R max_recv rows of n),
   * P, P+, W, the stack (2 rows_cap x n), the per-victim buffers. */
  gsize count = priv_size_sum3((gsize)R + 4, nn,
                               (gsize)R * MAX(c->max_recv, 1) + 2 * (gsize)rows_cap, n,
                               (gsize)nv * rows_cap, T);
  if (!priv_check_budget(mf_doubles_bytes(count), c->max_bytes,
                         "the structured (Kalman) accounting", error))
    return FALSE;

  gboolean ok = FALSE;
  Dense d = {.c = c,
             .rows_cap = rows_cap,
             .om_start = g_new0(guint, R + 1),
             .scale = scale,
             .blocks = blocks};
  guint qm = MAX(c->max_recv, 1);
  if (!(d.F = priv_matrix_new(MAX(R - 1, 1), nn, error)) ||
      !(d.Om0 = priv_matrix_new((gsize)R * qm, n, error)) ||
      !(d.St = priv_matrix_new(rows_cap, n, error)) ||
      !(d.St2 = priv_matrix_new(rows_cap, n, error)) ||
      !(d.buf = priv_matrix_new((gsize)nv * rows_cap, T, error)) || !forward(&d, error))
    goto out;
  priv_struct_walk_back(c, d.om_start, rows_cap, &backward, &d, blocks);
  ok = TRUE;
out:
  g_free(d.om_start);
  g_free(d.F);
  g_free(d.Om0);
  g_free(d.St);
  g_free(d.St2);
  g_free(d.buf);
  return ok;
}
