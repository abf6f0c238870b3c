/*
 * privacy/structured_mfstate.c: the state-space form of MF-D-SGD's noise
 * nu = C^-1 z of one node over its T steps, so that the Kalman engine can
 * carry it in its state (docs/accounting-at-scale.md, "Correlated noise on
 * the Kalman engine").
 *
 * L = C^-1 is lower triangular. Its Hankel blocks H_k = L[k:T, 0:k] (what the
 * noises z_0 .. z_{k-1} still do to the steps k ..) have a rank p_k: that is
 * the least state a causal recursion needs at step k. With R_k the p_k x k
 * orthonormal row basis of H_k (its right singular vectors above the rounding
 * level), the state s_k = R_k z_{0:k} gives
 *
 *   nu_k    = h_k . s_k + d_k z_k,     h_k = L[k, 0:k] R_k^T, d_k = L[k, k]
 *   s_{k+1} = A_k s_k + b_k z_k,       A_k = R_{k+1}[:, 0:k] R_k^T,
 *                                      b_k = R_{k+1}[:, k]
 *
 * exactly when the ranks are exact: L[k, 0:k] is H_k's first row and
 * H_{k+1}[:, 0:k] = H_k[1:, :], so both lie in R_k's row space. A banded C of
 * band w (BSR) has p_k <= w - 1 (its inverse is semiseparable: C nu = z is an
 * autoregression over w - 1 earlier values), a BLT C with d buffers (C^-1 is
 * a BLT with d buffers) p_k <= d; a general dense C has p_k up to
 * min(k, T - k), and the realization is refused when its order exceeds the
 * caller's limit. The realization is checked by rebuilding L from it.
 */
#include "privacy/structured_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

void priv_noise_state_clear(PrivNoiseState *s) {
  g_free(s->A);
  g_free(s->b);
  g_free(s->h);
  g_free(s->d);
  memset(s, 0, sizeof(*s));
}

/* ||M||_1 (max column sum of |M|) of the T x T row-major @M. O(T^2). */
static double norm1(const double *M, guint T) {
  double best = 0.0;
  for (guint j = 0; j < T; j++) {
    double s = 0.0;
    for (guint i = 0; i < T; i++)
      s += fabs(M[(gsize)i * T + j]);
    best = MAX(best, s);
  }
  return best;
}

gboolean priv_noise_state_of(const double *C, const double *Cinv, guint T, guint p_max,
                             PrivNoiseState *s, GError **error) {
  memset(s, 0, sizeof(*s));
  for (guint i = 0; i < T; i++)
    for (guint j = i + 1; j < T; j++)
      if (C[(gsize)i * T + j] != 0.0) {
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                    "C_local is not lower triangular (entry %u,%u): its noise has no causal "
                    "state-space form",
                    i, j);
        return FALSE;
      }
  double amax = 0.0;
  for (gsize i = 0; i < (gsize)T * T; i++)
    amax = MAX(amax, fabs(Cinv[i]));
  /* Rounding level of the computed C^-1: an LU inverse errs by about
   * T eps cond_1(C) |C^-1| per entry, so a Hankel block (at most T x T) by
   * T times that in the 2-norm. Singular values below it are rounding. */
  double kappa = norm1(C, T) * norm1(Cinv, T);
  double tau = (double)T * T * DBL_EPSILON * kappa * amax;
  /* R_k (p_k x k, row-major) for k = 0 .. T: the row bases. */
  double **Rk = g_new0(double *, T + 1);
  guint *pk = g_new0(guint, T + 1);
  double *H = g_new(double, (gsize)T *T), *sv = g_new(double, T), *sup = g_new(double, T);
  double *Vt = g_new(double, (gsize)T *T);
  gboolean ok = TRUE;
  guint p = 0;
  for (guint k = 1; k < T && ok; k++) {
    guint m = T - k;
    for (guint i = 0; i < m; i++)
      memcpy(H + (gsize)i * k, Cinv + (gsize)(k + i) * T, sizeof(double) * k);
    guint mn = MIN(m, k);
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'S', (lapack_int)m, (lapack_int)k, H,
                                     (lapack_int)k, sv, NULL, 1, Vt, (lapack_int)k, sup);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the SVD of C_local^-1's Hankel block %u failed (LAPACK info %d)", k, (int)info);
      ok = FALSE;
      break;
    }
    guint r = 0;
    while (r < mn && sv[r] > tau)
      r++;
    pk[k] = r;
    p = MAX(p, r);
    Rk[k] = g_memdup2(Vt, sizeof(double) * MAX(r, 1) * k);
  }
  g_free(H);
  g_free(sv);
  g_free(sup);
  g_free(Vt);
  if (ok && p > p_max) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "C_local^-1 needs a state of %u values per node (the rank of its Hankel blocks "
                "above rounding), more than the %u the Kalman engine takes: not a banded or "
                "buffered (BLT) C",
                p, p_max);
    ok = FALSE;
  }
  if (ok) {
    s->T = T;
    s->p = p;
    gsize pp = MAX(p, 1u);
    s->A = g_new0(double, (gsize)T *pp *pp);
    s->b = g_new0(double, (gsize)T *pp);
    s->h = g_new0(double, (gsize)T *pp);
    s->d = g_new0(double, T);
    for (guint k = 0; k < T; k++) {
      s->d[k] = Cinv[(gsize)k * T + k];
      /* h_k = L[k, 0:k] R_k^T. */
      for (guint a = 0; a < pk[k]; a++) {
        double acc = 0.0;
        for (guint j = 0; j < k; j++)
          acc += Cinv[(gsize)k * T + j] * Rk[k][(gsize)a * k + j];
        s->h[(gsize)k * pp + a] = acc;
      }
      if (k + 1 >= T)
        continue;
      /* A_k = R_{k+1}[:, 0:k] R_k^T, b_k = R_{k+1}[:, k]. */
      const double *Rn = Rk[k + 1];
      for (guint i = 0; i < pk[k + 1]; i++) {
        s->b[(gsize)k * pp + i] = Rn[(gsize)i * (k + 1) + k];
        for (guint a = 0; a < pk[k]; a++) {
          double acc = 0.0;
          for (guint j = 0; j < k; j++)
            acc += Rn[(gsize)i * (k + 1) + j] * Rk[k][(gsize)a * k + j];
          s->A[((gsize)k * pp + i) * pp + a] = acc;
        }
      }
    }
    /* The check: L'[k, l] = h_k A_{k-1} ... A_{l+1} b_l for k > l. The
     * dropped singular values are each at most tau and every A_k is a
     * product of orthonormal bases (norm <= 1), so each entry is within
     * T tau of L's in exact arithmetic; rebuilding adds T p eps amax. */
    double *v = g_new(double, pp), *v2 = g_new(double, pp), err = 0.0;
    for (guint l = 0; l + 1 < T; l++) {
      memcpy(v, s->b + (gsize)l * pp, sizeof(double) * pp);
      for (guint k = l + 1; k < T; k++) {
        double e = 0.0;
        for (guint a = 0; a < p; a++)
          e += s->h[(gsize)k * pp + a] * v[a];
        err = MAX(err, fabs(e - Cinv[(gsize)k * T + l]));
        for (guint i = 0; i < p; i++) {
          double acc = 0.0;
          for (guint a = 0; a < p; a++)
            acc += s->A[((gsize)k * pp + i) * pp + a] * v[a];
          v2[i] = acc;
        }
        memcpy(v, v2, sizeof(double) * pp);
      }
    }
    g_free(v);
    g_free(v2);
    s->err = err;
    if (!(err <= (double)T * tau + (double)T * MAX(p, 1u) * DBL_EPSILON * amax)) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the state-space form of C_local^-1 (%u values per node) rebuilds it only to "
                  "%.3g (C^-1's largest entry %.3g): not accounted on the Kalman engine",
                  p, err, amax);
      ok = FALSE;
    }
  }
  for (guint k = 0; k <= T; k++)
    g_free(Rk[k]);
  g_free(Rk);
  g_free(pk);
  if (!ok)
    priv_noise_state_clear(s);
  return ok;
}
