/*
 * mf/banded.c: the MF objective f(X) = tr(H X^{-1}) and its gradient
 * -(X^{-1} H X^{-1}) on the band, for a banded X (X[s,t] = 0 for |s-t| >= W),
 * without any dense X^{-1} or T^3 work (docs/design.md, "Mafalda").
 *
 * With H = Rt Rt^T (Rt lower, the Cholesky factor of H, computed once per
 * optimization) and X = L L^T (L banded lower, LAPACK's dpbtrf, O(T W^2)):
 *   Z = L^{-1} Rt (lower triangular),   f = ||Z||_F^2,
 *   V = L^{-T} Z = X^{-1} Rt (dense),   X^{-1} H X^{-1} = V V^T,
 * of which only the band is formed. With blocks of nb >= W - 1 rows, L is
 * block lower bidiagonal (diagonal blocks L_ii lower triangular, L_{i+1,i}
 * below them), so both solves are block substitutions: one dgemm and one
 * dtrsm per block row, O(T^2 nb) flops at BLAS-3 speed, instead of the
 * column-by-column band solves (dtbsv, BLAS-2). The forward solve stops at
 * the diagonal (Z is lower triangular): ~1.5 nb T^2 flops for f, ~6 nb T^2
 * more for the gradient, against ~7 T^3 for the dense evaluation.
 *
 * Matrices are column-major (entry (i, j) at i + j*ld), as in mf_optimize.c.
 */
#include "mf/banded_internal.h"

#include <math.h>
#include <string.h>

/* Smallest block: BLAS-3 calls on blocks much smaller than this run at
 * BLAS-2 speed; a larger block only adds zeros to L_{i+1,i}. */
#define NB_MIN 32

static guint block_rows(const MfBanded *B, guint i) {
  return MIN(B->nb, B->T - i * B->nb);
}

gboolean mf_banded_init(MfBanded *B, const double *Rt, guint T, guint W, GError **error) {
  memset(B, 0, sizeof *B);
  g_return_val_if_fail(Rt != NULL && W >= 1 && W <= T, FALSE);
  B->T = T;
  B->W = W;
  B->Rt = Rt;
  B->nb = MIN(T, MAX(W > 1 ? W - 1 : 1, NB_MIN));
  B->nblk = (T + B->nb - 1) / B->nb;
  gsize nb2 = (gsize)B->nb * B->nb;
  if (!(B->AB = mf_matrix_new(W, T, error)) || !(B->Ld = mf_matrix_new(B->nblk, nb2, error)) ||
      !(B->Ls = mf_matrix_new(B->nblk, nb2, error)) || !(B->Z = mf_matrix_new(T, T, error)) ||
      !(B->Gd = mf_matrix_new(B->nblk, nb2, error)) ||
      !(B->Gs = mf_matrix_new(B->nblk, nb2, error)) ||
      !(B->Sd = mf_matrix_new(B->nblk, nb2, error)) ||
      !(B->Ss = mf_matrix_new(B->nblk, nb2, error)) || !(B->Sw = mf_matrix_new(2, nb2, error))) {
    mf_banded_clear(B);
    return FALSE;
  }
  return TRUE;
}

void mf_banded_clear(MfBanded *B) {
  g_free(B->AB);
  g_free(B->Ld);
  g_free(B->Ls);
  g_free(B->Z);
  g_free(B->Gd);
  g_free(B->Gs);
  g_free(B->Sd);
  g_free(B->Ss);
  g_free(B->Sw);
  memset(B, 0, sizeof *B);
}

/* The blocks L_ii and L_{i+1,i} of the band factor in AB (zeros elsewhere). */
static void extract_blocks(MfBanded *B) {
  guint T = B->T, W = B->W, nb = B->nb;
  gsize nb2 = (gsize)nb * nb;
  memset(B->Ld, 0, B->nblk * nb2 * sizeof(double));
  memset(B->Ls, 0, B->nblk * nb2 * sizeof(double));
  for (guint c = 0; c < T; c++) {
    guint i = c / nb, cl = c % nb;
    for (guint d = 0; d < W && c + d < T; d++) {
      guint r = c + d, j = r / nb, rl = r % nb;
      double *blk = j == i ? B->Ld + i * nb2 : B->Ls + i * nb2;
      blk[rl + (gsize)cl * nb] = B->AB[d + (gsize)c * W];
    }
  }
}

double mf_banded_objective(MfBanded *B, const double *Xb) {
  guint T = B->T, W = B->W, nb = B->nb;
  gsize nb2 = (gsize)nb * nb;
  memcpy(B->AB, Xb, (gsize)W * T * sizeof(double));
  if (LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)T, (lapack_int)(W - 1), B->AB,
                          (lapack_int)W) != 0)
    return INFINITY;
  extract_blocks(B);
  /* Z = Rt, then block row i: Z_i = L_ii^{-1} (Z_i - L_{i,i-1} Z_{i-1}), on
   * the columns left of the block's end (Z_{i-1} vanishes past its own). */
  memcpy(B->Z, B->Rt, (gsize)T * T * sizeof(double));
  double f = 0.0;
  for (guint i = 0; i < B->nblk; i++) {
    guint i0 = i * nb, m = block_rows(B, i), e = i0 + m;
    double *Zi = B->Z + i0;
    if (i > 0)
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)i0, (int)nb, -1.0,
                  B->Ls + (i - 1) * nb2, (int)nb, B->Z + (i0 - nb), (int)T, 1.0, Zi, (int)T);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)m, (int)e,
                1.0, B->Ld + i * nb2, (int)nb, Zi, (int)T);
    for (guint c = 0; c < e; c++)
      f += cblas_ddot((int)m, Zi + (gsize)c * T, 1, Zi + (gsize)c * T, 1);
  }
  return isfinite(f) ? f : INFINITY;
}

/* The band (W x T band storage) of the symmetric matrix whose diagonal blocks
 * (lower triangles read) are @Dd and first subdiagonal blocks @Ds. */
static void read_band(const MfBanded *B, const double *Dd, const double *Ds, double *Ob) {
  guint T = B->T, W = B->W, nb = B->nb;
  gsize nb2 = (gsize)nb * nb;
  for (guint c = 0; c < T; c++) {
    guint i = c / nb, cl = c % nb;
    for (guint d = 0; d < W; d++) {
      guint r = c + d;
      if (r >= T) {
        Ob[d + (gsize)c * W] = 0.0;
        continue;
      }
      guint j = r / nb, rl = r % nb;
      const double *blk = j == i ? Dd + i * nb2 : Ds + i * nb2;
      Ob[d + (gsize)c * W] = blk[rl + (gsize)cl * nb];
    }
  }
}

void mf_banded_gradient(MfBanded *B, double *Gb) {
  guint T = B->T, W = B->W, nb = B->nb;
  gsize nb2 = (gsize)nb * nb;
  /* V = L^{-T} Z in place, from the last block row up:
   * V_i = L_ii^{-T} (Z_i - L_{i+1,i}^T V_{i+1}), all T columns. */
  for (guint i = B->nblk; i-- > 0;) {
    guint i0 = i * nb, m = block_rows(B, i);
    double *Vi = B->Z + i0;
    if (i + 1 < B->nblk)
      cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)T,
                  (int)block_rows(B, i + 1), -1.0, B->Ls + i * nb2, (int)nb, B->Z + i0 + nb, (int)T,
                  1.0, Vi, (int)T);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, (int)m, (int)T, 1.0,
                B->Ld + i * nb2, (int)nb, Vi, (int)T);
  }
  /* The band of V V^T: G_ii = V_i V_i^T, G_{i+1,i} = V_{i+1} V_i^T. */
  for (guint i = 0; i < B->nblk; i++) {
    guint i0 = i * nb, m = block_rows(B, i);
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)m, (int)T, 1.0, B->Z + i0, (int)T,
                0.0, B->Gd + i * nb2, (int)nb);
    if (i + 1 < B->nblk && W > 1)
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)block_rows(B, i + 1), (int)m,
                  (int)T, 1.0, B->Z + i0 + nb, (int)T, B->Z + i0, (int)T, 0.0, B->Gs + i * nb2,
                  (int)nb);
  }
  read_band(B, B->Gd, B->Gs, Gb);
}

double *mf_factor_from_band(const double *Xb, guint T, guint W, GError **error) {
  g_return_val_if_fail(Xb != NULL, NULL);
  if (T == 0 || W == 0 || W > T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "a band Gram matrix needs 1 <= W <= T (T = %u, W = %u)", T, W);
    return NULL;
  }
  double *AB = mf_matrix_new(W, T, error);
  double *C = AB ? mf_matrix_new(T, T, error) : NULL;
  if (!C) {
    g_free(AB);
    return NULL;
  }
  /* J X J in band storage: (J X J)[j+d, j] = X[T-1-j, T-1-j-d] = Xb[d + (T-1-j-d) W]. */
  for (guint j = 0; j < T; j++)
    for (guint d = 0; d < W && j + d < T; d++)
      AB[d + (gsize)j * W] = Xb[d + (gsize)(T - 1 - j - d) * W];
  lapack_int info = LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)T, (lapack_int)(W - 1),
                                        AB, (lapack_int)W);
  if (info != 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                "the Gram matrix C^T C is not positive definite (band Cholesky fails at row %d)",
                (int)info);
    g_free(AB);
    g_free(C);
    return NULL;
  }
  /* C = J L^T J: C(i, j) = L(T-1-j, T-1-i) for 0 <= i - j < W; row-major. */
  for (guint i = 0; i < T; i++)
    for (guint j = i >= W ? i - W + 1 : 0; j <= i; j++) {
      guint c = T - 1 - i, d = i - j; /* L(c + d, c) */
      C[(gsize)i * T + j] = AB[d + (gsize)c * W];
    }
  g_free(AB);
  return C;
}

void mf_banded_inverse_band(MfBanded *B, double *Sb) {
  guint nb = B->nb, N = B->nblk;
  gsize nb2 = (gsize)nb * nb;
  /* Sigma = X^{-1} = L^{-T} L^{-1}, from the last block row up (D_i = L_ii,
   * E_i = L_{i+1,i}, both from the last objective()):
   *   Sigma_{i+1,i} = -Sigma_{i+1,i+1} E_i D_i^{-1},
   *   Sigma_ii = D_i^{-T} (D_i^{-1} - E_i^T Sigma_{i+1,i}).
   * Sd holds Sigma_ii (full), Ss Sigma_{i+1,i}: reuses Gd, Gs' layout in
   * B->Sd, B->Ss. */
  double *Dinv = B->Sw, *A = B->Sw + nb2;
  for (guint i = N; i-- > 0;) {
    guint m = block_rows(B, i);
    double *Sii = B->Sd + i * nb2, *Sni = B->Ss + i * nb2;
    memcpy(Dinv, B->Ld + i * nb2, nb2 * sizeof(double));
    LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', (lapack_int)m, Dinv, (lapack_int)nb);
    for (guint c = 0; c < m; c++)
      for (guint r = 0; r < c; r++)
        Dinv[r + (gsize)c * nb] = 0.0;
    memcpy(A, Dinv, nb2 * sizeof(double));
    if (i + 1 < N) {
      guint mn = block_rows(B, i + 1);
      /* Sni = -(Sigma_{i+1,i+1} E_i) D_i^{-1} */
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)mn, (int)m, (int)mn, -1.0,
                  B->Sd + (i + 1) * nb2, (int)nb, B->Ls + i * nb2, (int)nb, 0.0, Sni, (int)nb);
      cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, (int)mn,
                  (int)m, 1.0, Dinv, (int)nb, Sni, (int)nb);
      cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)m, (int)mn, -1.0,
                  B->Ls + i * nb2, (int)nb, Sni, (int)nb, 1.0, A, (int)nb);
    }
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)m, (int)m, 1.0, Dinv, (int)nb,
                A, (int)nb, 0.0, Sii, (int)nb);
  }
  read_band(B, B->Sd, B->Ss, Sb);
}
