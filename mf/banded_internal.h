/*
 * mf/banded_internal.h: the banded evaluation of the MF objective
 * (mf/banded.c), used by mf/optimize.c when the band is
 * narrow. Not public.
 *
 * A banded X (X[s,t] = 0 for |s - t| >= W) is kept in LAPACK's lower band
 * storage with leading dimension W: entry (s + d, s), 0 <= d < W, at
 * Xb[d + s W]. The gradient's band comes back in the same layout.
 */
#ifndef DPG_PRIVACY_MF_BANDED_INTERNAL_H
#define DPG_PRIVACY_MF_BANDED_INTERNAL_H

#include "mf/internal.h"

typedef struct {
  guint T, W;
  guint nb;         /* block size: >= W - 1, so that L is block bidiagonal */
  guint nblk;       /* number of blocks; the last one may be smaller */
  const double *Rt; /* T x T lower, H = Rt Rt^T (not owned) */
  double *AB;       /* W x T: the band Cholesky factor L of the trial X */
  double *Ld;       /* nblk blocks nb x nb: the diagonal blocks L_ii (lower) */
  double *Ls;       /* nblk - 1 blocks nb x nb: L_{i+1,i} */
  double *Z;        /* T x T: L^{-1} Rt after objective(), X^{-1} Rt after gradient() */
  double *Gd, *Gs;  /* the band blocks of X^{-1} H X^{-1} */
  double *Sd, *Ss;  /* the band blocks of X^{-1} */
  double *Sw;       /* 2 nb^2 work */
} MfBanded;

/* Sets up the evaluation for T x T problems of band @W (1 <= W <= T) with
 * H = @Rt Rt^T (@Rt lower, column-major, kept by the caller). Memory: T^2 +
 * O(T W) doubles. FALSE with MF_ERROR_MEMORY. */
gboolean mf_banded_init(MfBanded *B, const double *Rt, guint T, guint W, GError **error);

void mf_banded_clear(MfBanded *B);

/* f = tr(H X^{-1}) = ||L^{-1} Rt||_F^2 for the band @Xb (W x T band storage),
 * +inf when X is not positive definite. One band Cholesky (O(T W^2)) and a
 * block-bidiagonal forward solve (~1.5 nb T^2 flops, BLAS-3). */
double mf_banded_objective(MfBanded *B, const double *Xb);

/* The band of G = X^{-1} H X^{-1} (@Gb, W x T band storage) at the point the
 * last objective() call saw (finite). A backward block solve and the band of
 * V V^T, V = X^{-1} Rt: ~6 nb T^2 flops. */
void mf_banded_gradient(MfBanded *B, double *Gb);

/* The band of X^{-1} (@Sb, W x T band storage) at the point the last
 * objective() call saw (finite): block selected inversion of the band
 * Cholesky factor, O(T nb^2). For the diagonal preconditioner. */
void mf_banded_inverse_band(MfBanded *B, double *Sb);

/* The lower-triangular C with C^T C = X for the band @Xb: C = J chol(J X J)^T J,
 * banded (C[t,s] = 0 for t - s >= W), as a dense T x T row-major matrix.
 * O(T W^2) + O(T^2) to fill. NULL with MF_ERROR_NUMERICAL when X is not
 * positive definite, MF_ERROR_MEMORY. */
double *mf_factor_from_band(const double *Xb, guint T, guint W, GError **error);

#endif /* DPG_PRIVACY_MF_BANDED_INTERNAL_H */
