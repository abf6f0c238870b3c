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

/* splitmix64: the probes' signs, a function of (seed, probe, node) alone,
 * so that a probe's vector does not depend on the block it is computed in. */
static guint64 splitmix64(guint64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static double probe_entry(const double *Z, guint K, guint64 seed, guint k, guint u) {
  if (Z != NULL)
    return Z[(gsize)u * K + k];
  guint64 h = splitmix64(splitmix64(seed ^ splitmix64(k)) + u);
  return h >> 63 ? 1.0 : -1.0;
}

double mf_probe_sign(guint64 seed, guint k, guint u) {
  return probe_entry(NULL, 0, seed, k, u);
}

/* Probes computed together: their vectors for every start s, x and W x
 * (2 n T B doubles), besides one probe's gathered columns (n T). */
#define SKETCH_BLOCK 16

static double **gram_sketch(guint n, guint N, guint T, MfWorkload workload,
                            MfGossipApplyFunc apply, gpointer user_data, guint K, guint64 seed,
                            const double *Z, gsize max_bytes, GError **error);

double **mf_gram_sketch(guint n, guint T, MfWorkload workload, MfGossipApplyFunc apply,
                        gpointer user_data, guint K, guint64 seed, const double *Z,
                        gsize max_bytes, GError **error) {
  return gram_sketch(n, n, T, workload, apply, user_data, K, seed, Z, max_bytes, error);
}

double **mf_gram_sketch_state(guint n, guint N, guint T, MfWorkload workload,
                              MfGossipApplyFunc apply, gpointer user_data, guint K, guint64 seed,
                              const double *Z, gsize max_bytes, GError **error) {
  if (N < n) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "a state of %u coordinates cannot hold the %u models", N, n);
    return NULL;
  }
  return gram_sketch(n, N, T, workload, apply, user_data, K, seed, Z, max_bytes, error);
}

/* The models are the state's first @n coordinates of @N (mf_gram_sketch:
 * N = n): the probes start there, the carried state starts at 0, and the
 * estimate sums over the models' rows. */
static double **gram_sketch(guint n, guint N, guint T, MfWorkload workload,
                            MfGossipApplyFunc apply, gpointer user_data, guint K, guint64 seed,
                            const double *Z, gsize max_bytes, GError **error) {
  g_return_val_if_fail(apply != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (n == 0 || T == 0 || K == 0 || (guint64)T * T > G_MAXINT) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "sketched workload Gram matrix: n = %u nodes, T = %u rounds and %u probes must "
                "be positive",
                n, T, K);
    return NULL;
  }
  if (workload != MF_WORKLOAD_POST_AVERAGE && workload != MF_WORKLOAD_MESSAGES) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "unknown workload %d", (int)workload);
    return NULL;
  }
  guint B = MIN(K, SKETCH_BLOCK);
  double work = 2.0 * B * N * T + (double)n * T + (double)K * T * T;
  gsize need = work < (double)G_MAXSIZE / 16 ? mf_doubles_bytes((gsize)work) : G_MAXSIZE;
  if (!mf_check_budget(need, max_bytes, "the sketched workload Gram matrix", error))
    return NULL;
  gsize ld = (gsize)T * B;
  double *X = g_new0(double, (gsize)N * ld), *Y = g_new0(double, (gsize)N * ld);
  double *A = g_new(double, (gsize)n * T);
  double **H = g_new0(double *, K);
  for (guint k = 0; k < K; k++)
    H[k] = g_new0(double, (gsize)T * T);
  gboolean post = workload == MF_WORKLOAD_POST_AVERAGE;
  for (guint k0 = 0; k0 < K; k0 += B) {
    guint nb = MIN(B, K - k0);
    /* Row u of X: x_{t,s}[u] for s <= t, probe k0 + j at s * nb + j.
     * x_{t,s} = P(t,s) z (post-average) or P(t-1,s) z (messages). */
    for (guint t = 0; t < T; t++) {
      gsize d = (gsize)t * nb; /* the columns of the starts s < t */
      if (!post && t > 0) {
        apply(t - 1, X, Y, (guint)d, ld, user_data);
        double *swap = X;
        X = Y;
        Y = swap;
      }
      for (guint u = 0; u < N; u++)
        for (guint j = 0; j < nb; j++)
          X[u * ld + d + j] = u < n ? probe_entry(Z, K, seed, k0 + j, u) : 0.0;
      if (post) {
        apply(t, X, Y, (guint)(d + nb), ld, user_data);
        double *swap = X;
        X = Y;
        Y = swap;
      }
      /* H_k[s,s'] += x_{t,s} . x_{t,s'} over the t + 1 starts, one probe at
       * a time (its columns gathered: BLAS needs them contiguous). */
      for (guint j = 0; j < nb; j++) {
        for (guint u = 0; u < n; u++)
          for (guint s = 0; s <= t; s++)
            A[(gsize)u * (t + 1) + s] = X[u * ld + (gsize)s * nb + j];
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)(t + 1), (int)n, 1.0, A,
                    (int)(t + 1), 1.0, H[k0 + j], (int)T);
      }
    }
  }
  g_free(X);
  g_free(Y);
  g_free(A);
  for (guint k = 0; k < K; k++) {
    double *Hk = H[k];
    for (guint s = 0; s < T; s++)
      for (guint s2 = s + 1; s2 < T; s2++)
        Hk[(gsize)s2 * T + s] = Hk[(gsize)s * T + s2];
    for (gsize i = 0; i < (gsize)T * T; i++)
      if (!isfinite(Hk[i])) {
        g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                    "sketched workload Gram matrix: overflow (gossip entries too large)");
        for (guint i2 = 0; i2 < K; i2++)
          g_free(H[i2]);
        g_free(H);
        return NULL;
      }
  }
  return H;
}

double **mf_gram_sketch_static(guint n, guint T, MfWorkload workload, MfGossipApplyFunc apply,
                               gpointer user_data, guint K, guint64 seed, const double *Z,
                               gsize max_bytes, GError **error) {
  g_return_val_if_fail(apply != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (n == 0 || T == 0 || K == 0 || (guint64)n * T > G_MAXINT) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "sketched static workload Gram matrix: n = %u nodes, T = %u rounds and %u "
                "probes must be positive (and n T fit an int)",
                n, T, K);
    return NULL;
  }
  if (workload != MF_WORKLOAD_POST_AVERAGE && workload != MF_WORKLOAD_MESSAGES) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT, "unknown workload %d", (int)workload);
    return NULL;
  }
  /* One probe's T + 1 vectors W^a z, and the K results. */
  double work = (T + 1.0) * n + (double)K * T * T;
  gsize need = work < (double)G_MAXSIZE / 16 ? mf_doubles_bytes((gsize)work) : G_MAXSIZE;
  if (!mf_check_budget(need, max_bytes, "the sketched workload Gram matrix", error))
    return NULL;
  gboolean post = workload == MF_WORKLOAD_POST_AVERAGE;
  /* Row a of V is W^{a+e} z; z itself in @z (post-average: not a row). */
  double *V = g_new(double, (gsize)T * n), *z = g_new(double, n);
  double **F = g_new0(double *, K);
  for (guint k = 0; k < K; k++) {
    F[k] = g_new(double, (gsize)T * T);
    for (guint u = 0; u < n; u++)
      z[u] = probe_entry(Z, K, seed, k, u);
    if (post)
      apply(0, z, V, 1, 1, user_data);
    else
      memcpy(V, z, n * sizeof(double));
    for (guint a = 1; a < T; a++)
      apply(0, V + (gsize)(a - 1) * n, V + (gsize)a * n, 1, 1, user_data);
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)T, (int)n, 1.0, V, (int)n, 0.0, F[k],
                (int)T);
    mf_fill_upper_from_lower(F[k], T);
  }
  g_free(V);
  g_free(z);
  for (guint k = 0; k < K; k++)
    for (gsize i = 0; i < (gsize)T * T; i++)
      if (!isfinite(F[k][i])) {
        g_set_error(error, MF_ERROR, MF_ERROR_NUMERICAL,
                    "sketched workload Gram matrix: overflow (gossip entries too large)");
        for (guint i2 = 0; i2 < K; i2++)
          g_free(F[i2]);
        g_free(F);
        return NULL;
      }
  return F;
}
