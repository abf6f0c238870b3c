/*
 * mf/gram_expected.c: the expected workload Gram matrix E[H] over a random
 * gossip schedule (docs/design.md, "Mafalda over a changing network"), and
 * the loss of a strategy estimated from sampled Gram matrices.
 *
 * The loss sens^2 tr(H (C^T C)^{-1}) is linear in H, so the expected loss
 * of any C is the loss on E[H]: Mafalda's optimizer fits C to E[H] as it
 * fits it to H for a fixed W.
 */
#include "mf/internal.h"

#include <math.h>
#include <string.h>

double *mf_gram_iid(guint n, guint T, MfWorkload workload, const double *M, const double *Q,
                    gsize max_bytes, GError **error) {
  g_return_val_if_fail(M != NULL && Q != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (n == 0 || T == 0 || (guint64)n * n > G_MAXINT) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "expected workload Gram matrix: n = %u nodes and T = %u rounds must be positive "
                "(and n^2 fit an int)",
                n, T);
    return NULL;
  }
  if (workload != MF_WORKLOAD_POST_AVERAGE && workload != MF_WORKLOAD_MESSAGES) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "unknown workload %d", (int)workload);
    return NULL;
  }
  gsize nn = (gsize)n * n;
  for (gsize i = 0; i < nn; i++)
    if (!isfinite(M[i])) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "expected workload Gram matrix: E[W] has a non-finite entry");
      return NULL;
    }
  /* The T powers of M, G, a temporary and H. */
  gsize count = (gsize)T * nn;
  gsize need = count / nn == T ? mf_doubles_bytes(count) : G_MAXSIZE;
  gsize more = mf_doubles_bytes(2 * nn + (gsize)T * T);
  need = need > G_MAXSIZE - more ? G_MAXSIZE : need + more;
  if (!mf_check_budget(need, max_bytes, "the expected workload Gram matrix (T powers of E[W])",
                       error))
    return NULL;
  double *P = mf_matrix_new(count, 1, error);
  double *G = P ? mf_matrix_new(n, n, error) : NULL;
  double *Y = G ? mf_matrix_new(n, n, error) : NULL;
  double *H = Y ? mf_matrix_new(T, T, error) : NULL;
  if (H == NULL)
    goto fail;
  /* P[d] = M^d: E[W_{s+d-1} ... W_s] for independent rounds. */
  for (guint i = 0; i < n; i++)
    P[(gsize)i * n + i] = 1.0;
  for (guint d = 1; d < T; d++)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, M, (int)n,
                P + (gsize)(d - 1) * nn, (int)n, 0.0, P + (gsize)d * nn, (int)n);
  gboolean post = workload == MF_WORKLOAD_POST_AVERAGE;
  /* G = E[G_s], G_s = sum_{t >= s} P(t,s)^T P(t,s) as in mf_gram_time_varying:
   * W_s is independent of G_{s+1}, so E[W_s^T G_{s+1} W_s] = Phi(E[G_{s+1}])
   * with Phi(Y) = E[W^T Y W], whose vec is Q^T vec(Y). */
  for (guint s2 = T; s2-- > 0;) {
    memcpy(Y, G, nn * sizeof(double));
    if (post)
      for (guint i = 0; i < n; i++)
        Y[(gsize)i * n + i] += 1.0;
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)nn, (int)nn, 1.0, Q, (int)nn, Y, 1, 0.0, G, 1);
    if (!post)
      for (guint i = 0; i < n; i++)
        G[(gsize)i * n + i] += 1.0;
    /* H[s,s2] = E <W_{s2-1} ... W_s, G_{s2}>_F = <M^{s2-s}, E[G_{s2}]>_F:
     * the product is independent of G_{s2}. */
    for (guint s = 0; s <= s2; s++)
      H[(gsize)s * T + s2] = H[(gsize)s2 * T + s] = cblas_ddot((int)nn, P + (gsize)(s2 - s) * nn, 1,
                                                               G, 1);
  }
  for (gsize i = 0; i < (gsize)T * T; i++)
    if (!isfinite(H[i])) {
      g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                  "expected workload Gram matrix: overflow (E[W] or E[W kron W] too large)");
      goto fail;
    }
  g_free(P);
  g_free(G);
  g_free(Y);
  return H;
fail:
  g_free(P);
  g_free(G);
  g_free(Y);
  g_free(H);
  return NULL;
}

gboolean mf_loss_samples(const double *const *H, guint S, const double *C, guint T, guint k,
                         guint b, double *mean, double *std_error, GError **error) {
  g_return_val_if_fail(H != NULL && C != NULL && mean != NULL && std_error != NULL, FALSE);
  if (S < 2) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "a loss estimated from sampled schedules needs at least 2 samples for its "
                "standard error (got %u)",
                S);
    return FALSE;
  }
  /* Welford's running mean and sum of squared deviations: no cancellation
   * when the losses are large and close. */
  double m = 0.0, m2 = 0.0;
  for (guint i = 0; i < S; i++) {
    double f = mf_loss(H[i], C, T, k, b, error);
    if (isnan(f))
      return FALSE;
    double delta = f - m;
    m += delta / (i + 1);
    m2 += delta * (f - m);
  }
  *mean = m;
  *std_error = sqrt(m2 / (S - 1) / S);
  return TRUE;
}
