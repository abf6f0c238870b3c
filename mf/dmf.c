/*
 * mf/dmf.c: DMF, the multi-epoch MF optimum for the centralized
 * prefix-sum workload (Choquette-Choo et al. 2023), the baseline that
 * `dpgossip mafalda` scores on the graph's H.
 *
 * Why a file of its own: the prefix sum's Gram H[s,t] = T - max(s,t) is the
 * worst conditioned workload the optimizer meets, and from its generic start
 * (H^{1/2} tapered) it needs twice Mafalda's iterations at T = 1024, most of
 * them far from the optimum where the metric is poor. But the optimum is
 * nearly stationary: normalized by its diagonal, a row's correlations at each
 * lag barely change across the interior, and the diagonal varies slowly with
 * the epoch. So the optimum at k/2 epochs, stretched over k epochs (lags
 * kept, epochs mapped proportionally), starts within a fraction of a percent
 * of the optimum at k, and the levels below cost 1/8 + 1/64 + ... of the
 * top one. The problem solved at the top level is unchanged (same H, same
 * constraints, same stopping rule), only the start differs.
 */
#include "mf/internal.h"

#include <math.h>

/* Below this many epochs solve directly: the warm start saves a few
 * iterations there (69 instead of 73 at k = 20, b = 16), less than the
 * shorter problems cost. */
#define DMF_MIN_EPOCHS 32

/*
 * The optimum @Xh of the problem with @kh epochs of @b rounds, stretched to
 * @k epochs: diagonal of round s = e b + r from round e' b + r of the short
 * problem, e' = floor(e kh / k), each class then summing to 1; off-diagonal
 * (s, s + d) keeps the short problem's correlation at lag d from the same
 * mapped row (moved back by whole epochs when s' + d falls past the short
 * horizon; 0 for lags it does not have). Lags and residues are kept, so the
 * zero pattern is the long problem's. Often barely positive definite, or
 * not: mf_optimize takes the best point between it and its own start.
 */
static void stretch(const double *Xh, guint kh, guint k, guint b, double *X) {
  guint T = k * b, Th = kh * b;
  guint *map = g_new(guint, T);
  double *diag = g_new0(double, T);
  for (guint s = 0; s < T; s++) {
    guint e = s / b, r = s % b;
    map[s] = (guint)(((guint64)e * kh) / k) * b + r;
  }
  for (guint r = 0; r < b; r++) {
    double sum = 0.0;
    for (guint s = r; s < T; s += b)
      sum += diag[s] = Xh[(gsize)map[s] * Th + map[s]];
    for (guint s = r; s < T; s += b)
      diag[s] /= sum;
  }
  for (guint s = 0; s < T; s++) {
    X[(gsize)s * T + s] = diag[s];
    for (guint t = s + 1; t < T; t++) {
      guint d = t - s;
      double v = 0.0;
      guint a = map[s];
      if (a + d >= Th) {
        guint back = ((a + d - Th) / b + 1) * b;
        a = back <= a ? a - back : Th; /* Th: no such lag in the short problem */
      }
      if (a < Th) {
        double xa = Xh[(gsize)a * Th + a], xb = Xh[(gsize)(a + d) * Th + a + d];
        v = Xh[(gsize)a * Th + a + d] / sqrt(xa * xb) * sqrt(diag[s] * diag[t]);
      }
      X[(gsize)s * T + t] = X[(gsize)t * T + s] = v;
    }
  }
  g_free(map);
  g_free(diag);
}

gboolean mf_dmf(guint k, guint b, const MfOptions *opt, MfResult **result, GError **error) {
  g_return_val_if_fail(result != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  *result = NULL;
  if (k == 0 || b == 0 || (guint64)k * b > G_MAXUINT) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "DMF: epochs x batches = %u x %u must be positive and fit a guint", k, b);
    return FALSE;
  }
  MfOptions o;
  if (opt)
    o = *opt;
  else
    mf_options_init(&o);
  guint T = k * b;
  double *X0 = NULL;
  if (o.x0 == NULL && k >= DMF_MIN_EPOCHS) {
    /* The shorter problem: silent, uncancelled by its own progress. */
    guint kh = k / 2;
    MfOptions ho = o;
    ho.band = o.band < kh * b ? o.band : 0; /* a band >= T/2 constrains nothing there */
    ho.progress = NULL;
    ho.progress_data = NULL;
    MfResult *half = NULL;
    GError *sub = NULL;
    mf_dmf(kh, b, &ho, &half, &sub);
    /* Only a start: a short problem that did not converge still helps, one
     * that failed outright leaves the generic start. Cancellation is
     * reported by the full problem, which polls the same flag. */
    g_clear_error(&sub);
    if (half != NULL) {
      X0 = mf_matrix_new(T, T, error);
      if (!X0) {
        mf_result_free(half);
        return FALSE;
      }
      stretch(half->X, kh, k, b, X0);
      o.x0 = X0;
    }
    mf_result_free(half);
  }
  double *H = mf_gram_prefix_sum(T, error);
  gboolean ok = H != NULL && mf_optimize(H, T, k, b, &o, result, error);
  g_free(H);
  g_free(X0);
  return ok;
}
