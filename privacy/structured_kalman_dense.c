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

gboolean priv_struct_kalman_dense(const PrivStructCtx *c, double scale, PrivBlocks *blocks,
                                  GError **error) {
  guint n = c->n, R = c->R, T = c->T, K = c->K, nv = c->n_victims;
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
  double *F = NULL, *P = NULL, *Pn = NULL, *Wd = NULL, *Om0 = NULL, *St = NULL, *St2 = NULL;
  double *buf = NULL, *S = NULL, *lam = NULL, *Lw = NULL, *PR = NULL, *Y = NULL, *G = NULL,
         *WG = NULL;
  guint *om_start = g_new0(guint, R + 1);
  guint qm = MAX(c->max_recv, 1);
  if (!(F = priv_matrix_new(MAX(R - 1, 1), nn, error)) || !(P = priv_matrix_new(n, n, error)) ||
      !(Pn = priv_matrix_new(n, n, error)) || !(Om0 = priv_matrix_new((gsize)R * qm, n, error)) ||
      !(St = priv_matrix_new(rows_cap, n, error)) || !(St2 = priv_matrix_new(rows_cap, n, error)) ||
      !(buf = priv_matrix_new((gsize)nv * rows_cap, T, error)))
    goto out;
  S = g_new(double, (gsize)qm *qm);
  lam = g_new(double, qm);
  Lw = g_new(double, (gsize)qm *qm);
  PR = g_new(double, (gsize)n *qm);
  Y = g_new(double, (gsize)n *qm);
  G = g_new(double, (gsize)n *qm);
  WG = g_new(double, (gsize)n *qm);

  /* ---- Forward: the filter, F_r and Omega_{r,r} = L_r E_r. ---- */
  /* Round 0: the first injection, unit variance on the noisy nodes. */
  priv_struct_inject(c, P);
  for (guint r = 0; r < R; r++) {
    if (c->n_gossip != 1 || r == 0) {
      g_free(Wd);
      Wd = topo_gossip_dense(priv_struct_gossip(c, r));
    }
    const guint *rv = c->recv + c->recv_start[r];
    guint q0 = c->recv_start[r + 1] - c->recv_start[r], q;
    double *Fr = r + 1 < R ? F + (gsize)r * nn : NULL;
    gint kept = priv_struct_whiten(P, n, rv, q0, r, S, lam, Lw, error);
    if (kept < 0)
      goto out;
    q = (guint)kept;
    om_start[r + 1] = om_start[r] + q;
    if (q > 0) {
      /* P+ = P - Y Y^T; G = Y Lw (n x q0). P is symmetric here, so the
       * gain read from its lower triangle is the sparse engine's. */
      priv_struct_gain(P, n, rv, q0, q, Lw, PR, Y);
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
      double *Om = Om0 + (gsize)om_start[r] * n;
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
        priv_struct_inject(c, P);
    }
  }

  /* ---- Backward, by chunks of rounds [r0, r1): the stack holds
   * Omega_{r,s} for the chunk's rounds r >= s; at injection rounds s its
   * victim columns are step s/K of the victims' rows. ---- */
  for (guint r0 = 0, r1; r0 < R; r0 = r1) {
    guint rows;
    r1 = priv_struct_chunk(om_start, R, r0, rows_cap, &rows);
    if (rows == 0)
      continue;
    guint filled = 0;
    for (guint s = r1; s-- > 0;) {
      if (s >= r0) {
        guint q = om_start[s + 1] - om_start[s];
        memcpy(St + (gsize)filled * n, Om0 + (gsize)om_start[s] * n, sizeof(double) * q * n);
        filled += q;
      }
      if (filled > 0 && s % K == 0) {
        guint k = s / K;
        for (guint vi = 0; vi < nv; vi++) {
          double *b = buf + (gsize)vi * rows_cap * T + k;
          guint u = c->victims[vi];
          for (guint i = 0; i < filled; i++)
            b[(gsize)i * T] = St[(gsize)i * n + u];
        }
      }
      if (s == 0 || filled == 0)
        continue;
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)filled, (int)n, (int)n, 1.0, St,
                  (int)n, F + (gsize)(s - 1) * nn, (int)n, 0.0, St2, (int)n);
      double *t = St;
      St = St2;
      St2 = t;
    }
    /* X_u += Omega^T Omega over the chunk's rows (steps up to (r1-1)/K). */
    guint kn = (r1 - 1) / K + 1;
    for (guint vi = 0; vi < nv; vi++) {
      double *b = buf + (gsize)vi * rows_cap * T;
      double *X = blocks->X + (gsize)c->victims[vi] * T * T;
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)kn, (int)rows, scale, b, (int)T, 1.0,
                  X, (int)T);
      memset(b, 0, sizeof(double) * rows * T);
    }
  }
  for (guint vi = 0; vi < nv; vi++)
    mf_fill_upper_from_lower(blocks->X + (gsize)c->victims[vi] * T * T, T);
  ok = TRUE;
out:
  g_free(om_start);
  g_free(F);
  g_free(P);
  g_free(Pn);
  g_free(Wd);
  g_free(Om0);
  g_free(St);
  g_free(St2);
  g_free(buf);
  g_free(S);
  g_free(lam);
  g_free(Lw);
  g_free(PR);
  g_free(Y);
  g_free(G);
  g_free(WG);
  return ok;
}
