/*
 * cli/audit_stats.c: the audit's canary and its distribution-free bound
 * (cli/audit_internal.h).
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <gsl/gsl_cdf.h>

#include "cli/audit_internal.h"
#include "sim/rng.h"

/*
 * The Gram matrix attaining max {<X, U> : U psd, diag(U) <= 1}, as V V^T
 * with rows of unit norm (q columns): the mixing method (Wang, Chang and
 * Kolter 2017), the factorization mf_sdp_max certifies. The canary's
 * gradient at step t is row t of V, of norm Delta = 1. O(sweeps T^2 q).
 */
double *cli_audit_canary(const double *X, guint T, guint q, gsize p) {
  double *V = g_new0(double, (gsize)T * q), *g = g_new(double, q);
  gsl_rng *rng = sim_rng_stream_new(7, 0, 0, NULL, NULL);
  for (guint t = 0; t < T; t++) {
    sim_rng_normals(rng, V + (gsize)t * q, q);
    cblas_dscal((int)q, 1.0 / cblas_dnrm2((int)q, V + (gsize)t * q, 1), V + (gsize)t * q, 1);
  }
  gsl_rng_free(rng);
  for (guint sweep = 0; sweep < 2000; sweep++) {
    double change = 0.0;
    for (guint t = 0; t < T; t++) {
      memset(g, 0, q * sizeof(double));
      for (guint s = 0; s < T; s++)
        if (s != t)
          cblas_daxpy((int)q, X[(gsize)t * T + s], V + (gsize)s * q, 1, g, 1);
      double nrm = cblas_dnrm2((int)q, g, 1);
      if (nrm <= 0.0)
        continue;
      for (guint j = 0; j < q; j++) {
        double x = g[j] / nrm;
        change = MAX(change, fabs(x - V[(gsize)t * q + j]));
        V[(gsize)t * q + j] = x;
      }
    }
    if (change < 1e-12)
      break;
  }
  double *D = g_new0(double, (gsize)T * p);
  for (guint t = 0; t < T; t++)
    memcpy(D + (gsize)t * p, V + (gsize)t * q, q * sizeof(double));
  g_free(V);
  g_free(g);
  return D;
}

static int cmp_double(gconstpointer x, gconstpointer y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* One-sided upper 1 - alpha Clopper-Pearson bound of x successes in n. */
static double cp_upper(guint x, guint n, double alpha) {
  return x >= n ? 1.0 : gsl_cdf_beta_Pinv(1.0 - alpha, x + 1.0, (double)(n - x));
}

/*
 * The GDP lower bound of the optimal test at a threshold chosen on the
 * first half of each world's scores (s > tau: "canary"), evaluated with
 * Clopper-Pearson upper bounds on FPR and FNR of the second half, each at
 * 97.5% so that both hold together with 95% probability (Bonferroni).
 */
double cli_audit_cp_mu_low(const double *s0, const double *s1, guint N) {
  guint h = N / 2, n2 = N - h;
  double *sorted = g_memdup2(s0, sizeof(double) * h);
  qsort(sorted, h, sizeof(double), cmp_double);
  double best = -INFINITY, tau = sorted[h / 2];
  for (guint c = 0; c < h; c++) {
    double t = sorted[c];
    guint fp = 0, fn = 0;
    for (guint i = 0; i < h; i++) {
      fp += s0[i] > t;
      fn += s1[i] <= t;
    }
    double fpr = CLAMP((double)fp / h, 0.5 / h, 1.0 - 0.5 / h);
    double fnr = CLAMP((double)fn / h, 0.5 / h, 1.0 - 0.5 / h);
    double mu = gsl_cdf_ugaussian_Pinv(1.0 - fpr) - gsl_cdf_ugaussian_Pinv(fnr);
    if (mu > best) {
      best = mu;
      tau = t;
    }
  }
  g_free(sorted);
  guint fp = 0, fn = 0;
  for (guint i = h; i < N; i++) {
    fp += s0[i] > tau;
    fn += s1[i] <= tau;
  }
  double fpr = cp_upper(fp, n2, 0.025), fnr = cp_upper(fn, n2, 0.025);
  if (fpr >= 1.0 || fnr >= 1.0)
    return 0.0;
  return MAX(0.0, gsl_cdf_ugaussian_Pinv(1.0 - fpr) - gsl_cdf_ugaussian_Pinv(fnr));
}

