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
  double n = c->n, qm = MAX(c->max_recv, 1), R = c->R, T = c->T;
  double seen = c->recv_start[c->R], nv = c->n_victims;
  double nnz = (double)topo_gossip_nnz(priv_struct_gossip(c, 0));
  *fwd_round = PRIV_SPARSE_WEIGHT * 2.0 * n * nnz + n * n * qm / 2.0;
  *row_step = PRIV_SPARSE_WEIGHT * nnz + 2.0 * n * qm;
  return R * *fwd_round + seen * (R / 2.0) * *row_step + seen * nv * (T * T / 3.0) + 1.0;
}

double priv_struct_kalman_work(const PrivStructCtx *c) {
  double f, s;
  return kalman_work(c, &f, &s);
}

gboolean priv_struct_kalman(const PrivStructCtx *c, double scale, PrivBlocks *blocks,
                            GError **error) {
  guint n = c->n, R = c->R, T = c->T, K = c->K, nv = c->n_victims;
  guint qm = MAX(c->max_recv, 1);
  guint rc = MAX(qm, CLAMP(T, CHUNK_MIN, CHUNK_MAX));
  gsize seen = c->recv_start[R];
  /* Memory: the result (n T x T, already reserved by the caller) and the
   * gains (sum_r q_r <= seen columns of n, plus L_r) live throughout; the
   * forward pass adds P and W P (n x n each), the backward one the stack
   * (2 n x rc) and the victims' buffers (nv T x rc). */
  gsize keep = priv_size_sum3(seen, n, seen, qm, (gsize)n * T, T);
  gsize fwd = priv_size_sum3(2, (gsize)n * n, 2, (gsize)n * qm, 1, (gsize)qm * qm);
  gsize bwd = priv_size_sum3(2, (gsize)n * rc, nv, (gsize)T * rc, 2, (gsize)qm * rc);
  gsize count = keep + MAX(fwd, bwd);
  if (count < keep)
    count = G_MAXSIZE;
  if (!priv_check_budget(mf_doubles_bytes(count), c->max_bytes,
                         "the structured (Kalman) accounting", error))
    return FALSE;

  gboolean ok = FALSE;
  RoundGain *gain = g_new0(RoundGain, R);
  guint *q_start = g_new0(guint, R + 1);
  double *P = NULL, *A = NULL, *St = NULL, *St2 = NULL, *buf = NULL;
  double *S = g_new(double, (gsize)qm *qm), *lam = g_new(double, qm);
  double *Lw = g_new(double, (gsize)qm *qm), *PR = g_new(double, (gsize)n *qm);
  double *B1 = g_new(double, (gsize)qm *rc), *B2 = g_new(double, (gsize)qm *rc);
  PrivCsr csr = {0};
  const TopoGossip *csr_src = NULL;
  double fwd_round, row_step, total = kalman_work(c, &fwd_round, &row_step), done = 0.0;

  if (!(P = priv_matrix_new(n, n, error)) || !(A = priv_matrix_new(n, n, error)))
    goto out;

  /* ---- Forward ---- */
  priv_struct_inject(c, P);
  for (guint r = 0; r < R; r++) {
    const guint *rv = c->recv + c->recv_start[r];
    guint q0 = c->recv_start[r + 1] - c->recv_start[r], q;
    gint kept = priv_struct_whiten(P, n, rv, q0, r, S, lam, Lw, error);
    if (kept < 0)
      goto out;
    q = (guint)kept;
    q_start[r + 1] = q_start[r] + q;
    if (q > 0) {
      /* P+ = P - Y Y^T (lower). */
      RoundGain *g = &gain[r];
      g->Lw = g_memdup2(Lw, sizeof(double) * q * q0);
      if (!(g->Y = priv_matrix_new(n, q, error)))
        goto out;
      priv_struct_gain(P, n, rv, q0, q, Lw, PR, g->Y);
      if (r + 1 < R)
        cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)n, (int)q, -1.0, g->Y, (int)q,
                    1.0, P, (int)n);
    }
    if (r + 1 < R) {
      /* P_{r+1} = W_r P+ W_r^T (+ the next injection): A = W P on the full
       * P, then the lower triangle of A W^T. */
      const TopoGossip *w = priv_struct_gossip(c, r);
      if (w != csr_src) {
        priv_csr_of(w, FALSE, &csr);
        csr_src = w;
      }
      mf_fill_upper_from_lower(P, n);
      priv_kernel_par(
          (PrivKernel){
              .kind = PRIV_K_APPLY, .m = &csr, .x = P, .y = A, .width = n, .ldx = n, .ldy = n},
          n, c->threads);
      priv_kernel_par(
          (PrivKernel){.kind = PRIV_K_RIGHT_LOWER, .m = &csr, .x = A, .y = P, .ldx = n, .ldy = n},
          n, c->threads);
      if ((r + 1) % K == 0)
        priv_struct_inject(c, P);
    }
    done += fwd_round;
    report(c, done, total);
  }
  g_clear_pointer(&P, g_free);
  g_clear_pointer(&A, g_free);
  csr_src = NULL;

  /* ---- Backward, by chunks of rounds [r0, r1). St (n x rc, transposed)
   * holds Omega_{r,s}^T for the chunk's rounds r >= s in its first `filled`
   * columns; buf holds each victim's T x rc block of its columns. ---- */
  if (!(St = priv_matrix_new(n, rc, error)) || !(St2 = priv_matrix_new(n, rc, error)) ||
      !(buf = priv_matrix_new((gsize)MAX(nv, 1) * T, rc, error)))
    goto out;
  for (guint r0 = 0, r1; r0 < R; r0 = r1) {
    guint rows;
    r1 = priv_struct_chunk(q_start, R, r0, rc, &rows);
    if (rows == 0)
      continue;
    guint filled = 0;
    for (guint s = r1; s-- > 0;) {
      guint q = q_start[s + 1] - q_start[s];
      if (s >= r0 && q > 0) {
        /* Omega_{s,s}^T = E_s^T L_s^T: new columns [filled, filled + q). */
        const guint *rv = c->recv + c->recv_start[s];
        guint q0 = c->recv_start[s + 1] - c->recv_start[s];
        for (guint v = 0; v < n; v++)
          memset(St + (gsize)v * rc + filled, 0, sizeof(double) * q);
        for (guint i = 0; i < q; i++)
          for (guint j = 0; j < q0; j++)
            St[(gsize)rv[j] * rc + filled + i] = gain[s].Lw[(gsize)i * q0 + j];
        filled += q;
      }
      if (filled > 0 && s % K == 0) {
        guint k = s / K;
        for (guint vi = 0; vi < nv; vi++)
          memcpy(buf + ((gsize)vi * T + k) * rc, St + (gsize)c->victims[vi] * rc,
                 sizeof(double) * filled);
      }
      if (s == 0 || filled == 0)
        continue;
      /* St <- F_{s-1}^T St. */
      guint p = s - 1;
      const TopoGossip *w = priv_struct_gossip(c, p);
      if (w != csr_src) {
        priv_csr_of(w, TRUE, &csr);
        csr_src = w;
      }
      priv_kernel_par((PrivKernel){.kind = PRIV_K_APPLY,
                                   .m = &csr,
                                   .x = St,
                                   .y = St2,
                                   .width = filled,
                                   .ldx = rc,
                                   .ldy = rc},
                      n, c->threads);
      const RoundGain *g = &gain[p];
      guint gq = q_start[p + 1] - q_start[p];
      if (gq > 0) {
        const guint *rv = c->recv + c->recv_start[p];
        guint q0 = c->recv_start[p + 1] - c->recv_start[p];
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)gq, (int)filled, (int)n, 1.0,
                    g->Y, (int)gq, St2, (int)rc, 0.0, B1, (int)filled);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)q0, (int)filled, (int)gq, 1.0,
                    g->Lw, (int)q0, B1, (int)filled, 0.0, B2, (int)filled);
        for (guint j = 0; j < q0; j++)
          cblas_daxpy((int)filled, -1.0, B2 + (gsize)j * filled, 1, St2 + (gsize)rv[j] * rc, 1);
      }
      double *t = St;
      St = St2;
      St2 = t;
      done += filled * row_step;
      if (s % 64 == 0)
        report(c, done, total);
    }
    /* X_u += b b^T over the chunk's rows (steps up to (r1-1)/K). */
    guint kn = (r1 - 1) / K + 1;
    for (guint vi = 0; vi < nv; vi++) {
      double *b = buf + (gsize)vi * T * rc;
      double *X = blocks->X + (gsize)c->victims[vi] * T * T;
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)kn, (int)rows, scale, b, (int)rc,
                  1.0, X, (int)T);
      memset(b, 0, sizeof(double) * kn * rc);
    }
    done += (double)rows * nv * kn * kn / 2.0;
    report(c, done, total);
  }
  for (guint vi = 0; vi < nv; vi++)
    mf_fill_upper_from_lower(blocks->X + (gsize)c->victims[vi] * T * T, T);
  report(c, total, total);
  ok = TRUE;
out:
  for (guint r = 0; r < R; r++) {
    g_free(gain[r].Y);
    g_free(gain[r].Lw);
  }
  g_free(gain);
  g_free(q_start);
  priv_csr_clear(&csr);
  g_free(P);
  g_free(A);
  g_free(St);
  g_free(St2);
  g_free(buf);
  g_free(S);
  g_free(lam);
  g_free(Lw);
  g_free(PR);
  g_free(B1);
  g_free(B2);
  return ok;
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

void priv_struct_inject(const PrivStructCtx *c, double *P) {
  for (guint i = 0; i < c->n_noisy; i++)
    P[(gsize)c->noisy_nodes[i] * (c->n + 1)] += 1.0;
}

guint priv_struct_chunk(const guint *start, guint R, guint r0, guint cap, guint *rows) {
  guint r1 = r0;
  while (r1 < R && start[r1 + 1] - start[r0] <= cap)
    r1++;
  *rows = start[r1] - start[r0];
  return r1;
}
