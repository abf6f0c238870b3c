/*
 * audit/stats.c: the audit's canary, its estimates and the learned
 * attack's discriminant (audit/internal.h).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <gsl/gsl_cdf.h>
#include <lapacke.h>

#include "audit/internal.h"
#include "sim/rng.h"
#include "spec/spec.h"

/* z_{0.975}: the two-sided 95% normal quantile. */
#define Z95 1.959963984540054

guint audit_canary_width(guint T) {
  return MIN(T, (guint)ceil(sqrt(2.0 * T)) + 1);
}

guint audit_default_dim(guint T) {
  return MAX(audit_canary_width(MAX(T, 1)), 2) - 1;
}

/* Rounding-level entries of @X (T x T) made exact zeros, in a copy
 * (g_free): below 8 T ulps of its largest diagonal entry, the rounding of a
 * T-term inner product. An entry that is zero in exact arithmetic computes
 * to about 1e-17 with a sign set by the BLAS kernel, and the mixing method,
 * which normalises each row's update, follows that sign as if it were
 * data: a step coupled to the others only by such entries got an
 * orientation that moved with the kernel, and with it every empirical
 * column of the audit (3% on the guide's Florentine audit). */
static double *clear_rounding(const double *X, guint T) {
  double xmax = 0.0;
  for (guint t = 0; t < T; t++)
    xmax = MAX(xmax, fabs(X[(gsize)t * T + t]));
  double zero = 8.0 * T * DBL_EPSILON * xmax;
  double *Z = g_memdup2(X, (gsize)T * T * sizeof(double));
  for (gsize i = 0; i < (gsize)T * T; i++)
    if (fabs(Z[i]) <= zero)
      Z[i] = 0.0;
  return Z;
}

static guint find_root(guint *parent, guint t) {
  while (parent[t] != t)
    t = parent[t] = parent[parent[t]];
  return t;
}

/*
 * Steps s, t with X[s,t] = 0 do not interact in <X, U>: each group of
 * steps connected by nonzero entries of @X can be reflected on its own and
 * the canary stays optimal. Group by group (in the order of their first
 * step), a reflection turns the group's sum of gradients (rows of @V,
 * T x q) against the running sum of the groups before it, so the canary's
 * gradients sum to at most the longest group's sum: to zero for an even
 * number of lone steps, as under LDP. Among canaries that are all optimal
 * for the claimed noise, this is one in which noise repeated across steps
 * cannot cancel with the signal, so the np test sees a provenance that
 * reuses its draws (docs/audits.md). One group is left as it is. A running
 * sum within 1e-12 of the groups' total length is taken as zero: its
 * direction would be rounding.
 */
static void oppose_groups(const double *X, double *V, guint T, guint q) {
  guint *parent = g_new(guint, MAX(T, 1));
  for (guint t = 0; t < T; t++)
    parent[t] = t;
  for (guint s = 0; s < T; s++)
    for (guint t = s + 1; t < T; t++)
      if (X[(gsize)s * T + t] != 0.0)
        parent[find_root(parent, s)] = find_root(parent, t);
  double *sum = g_new0(double, q), *v = g_new(double, q), *w = g_new(double, q), total = 0.0;
  gboolean *done = g_new0(gboolean, MAX(T, 1));
  for (guint first = 0; first < T; first++) {
    guint root = find_root(parent, first);
    if (done[root])
      continue;
    done[root] = TRUE;
    memset(v, 0, q * sizeof(double));
    for (guint t = first; t < T; t++)
      if (find_root(parent, t) == root)
        cblas_daxpy((int)q, 1.0, V + (gsize)t * q, 1, v, 1);
    double vn = cblas_dnrm2((int)q, v, 1), sn = cblas_dnrm2((int)q, sum, 1);
    total += vn;
    if (vn > 0.0 && sn > 1e-12 * total) {
      /* a = v / |v| to b = -sum / |sum|: the reflection I - 2 w w^T / |w|^2, w = a - b */
      for (guint j = 0; j < q; j++)
        w[j] = v[j] / vn + sum[j] / sn;
      double wn2 = cblas_ddot((int)q, w, 1, w, 1);
      for (guint t = first; t < T && wn2 > 0.0; t++)
        if (find_root(parent, t) == root) {
          double c = 2.0 * cblas_ddot((int)q, w, 1, V + (gsize)t * q, 1) / wn2;
          cblas_daxpy((int)q, -c, w, 1, V + (gsize)t * q, 1);
        }
    }
    for (guint t = first; t < T; t++)
      if (find_root(parent, t) == root)
        cblas_daxpy((int)q, 1.0, V + (gsize)t * q, 1, sum, 1);
  }
  g_free(done);
  g_free(sum);
  g_free(v);
  g_free(w);
  g_free(parent);
}

/*
 * The Gram matrix attaining max {<X, U> : U psd, diag(U) <= 1}, as V V^T
 * with rows of unit norm (q columns): the mixing method (Wang, Chang and
 * Kolter 2017), the factorization mf_sdp_max certifies, on X without its
 * rounding-level entries (clear_rounding), its groups of steps turned
 * against each other (oppose_groups). The canary's gradient at step t is
 * row t of V, of norm Delta = 1.
 */
double *audit_canary(const double *X0, guint T, guint q, gsize p) {
  double *X = clear_rounding(X0, T);
  double *V = g_new0(double, (gsize)T *q), *g = g_new(double, q);
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
  oppose_groups(X, V, T, q);
  double *D = g_new0(double, (gsize)T *p);
  for (guint t = 0; t < T; t++)
    memcpy(D + (gsize)t * p, V + (gsize)t * q, q * sizeof(double));
  g_free(V);
  g_free(g);
  g_free(X);
  return D;
}

double *audit_pattern_block(const AuditView *v, guint *k_out) {
  guint T = v->T, b = MAX(v->b, 1), k = T / b;
  double *sub = g_new(double, (gsize)k * k);
  for (guint i = 0; i < k; i++)
    for (guint j = 0; j < k; j++)
      sub[(gsize)i * k + j] = v->Xv[(gsize)(v->offset + i * b) * T + (v->offset + j * b)];
  *k_out = k;
  return sub;
}

double *audit_canary_pattern(const AuditView *v, gsize p) {
  guint T = v->T, b = MAX(v->b, 1), k;
  double *sub = audit_pattern_block(v, &k);
  double *Dk = audit_canary(sub, k, audit_canary_width(k), p);
  double *D = g_new0(double, (gsize)T * p);
  for (guint i = 0; i < k; i++)
    memcpy(D + (gsize)(v->offset + i * b) * p, Dk + (gsize)i * p, p * sizeof(double));
  g_free(sub);
  g_free(Dk);
  return D;
}

static int cmp_double(gconstpointer x, gconstpointer y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

double *audit_sorted(const double *x, guint n) {
  double *y = g_memdup2(x, sizeof(double) * n);
  qsort(y, n, sizeof(double), cmp_double);
  return y;
}

guint audit_count_le(const double *sorted, guint n, double t) {
  guint lo = 0, hi = n;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (sorted[mid] <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* One-sided upper 1 - alpha Clopper-Pearson bound of x successes in n:
 * the p with Beta(x + 1, n - x)'s CDF at p equal to 1 - alpha, by bisection
 * (gsl_cdf_beta_Pinv fails to converge for some (x, n): GSL then aborts). */
static double cp_upper(guint x, guint n, double alpha) {
  if (x >= n)
    return 1.0;
  if (x == 0) /* closed form: (1 - p)^n = alpha */
    return -expm1(log(alpha) / n);
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
    double mid = 0.5 * (lo + hi);
    if (gsl_cdf_beta_P(mid, x + 1.0, (double)(n - x)) < 1.0 - alpha)
      lo = mid;
    else
      hi = mid;
  }
  return hi; /* the bisection's upper end: never below the bound */
}

/*
 * The GDP lower bound of the optimal test at a threshold chosen on the
 * first half of each world's scores (s > tau: "canary"), evaluated with
 * Clopper-Pearson upper bounds on FPR and FNR of the second half, each at
 * 97.5% so that both hold together with 95% probability (Bonferroni).
 */
double audit_cp_mu_low(const double *s0, const double *s1, guint N) {
  guint h = N / 2, n2 = N - h;
  double *z0 = audit_sorted(s0, h), *z1 = audit_sorted(s1, h);
  double best = -INFINITY, tau = z0[h / 2];
  for (guint c = 0; c < h; c++) {
    double t = z0[c];
    guint fp = h - audit_count_le(z0, h, t), fn = audit_count_le(z1, h, t);
    double fpr = CLAMP((double)fp / h, 0.5 / h, 1.0 - 0.5 / h);
    double fnr = CLAMP((double)fn / h, 0.5 / h, 1.0 - 0.5 / h);
    double mu = gsl_cdf_ugaussian_Pinv(1.0 - fpr) - gsl_cdf_ugaussian_Pinv(fnr);
    if (mu > best) {
      best = mu;
      tau = t;
    }
  }
  g_free(z0);
  g_free(z1);
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

void audit_estimate(const double *s0, const double *s1, guint N, AuditResult *r) {
  double m0 = 0.0, m1 = 0.0, v0 = 0.0, v1 = 0.0;
  for (guint i = 0; i < N; i++) {
    m0 += s0[i] / N;
    m1 += s1[i] / N;
  }
  for (guint i = 0; i < N; i++) {
    v0 += (s0[i] - m0) * (s0[i] - m0) / (N - 1);
    v1 += (s1[i] - m1) * (s1[i] - m1) / (N - 1);
  }
  /* Both worlds' scores are Gaussian with one variance (a score is linear
   * in the Gaussian noise; only the mean moves), so the standardized shift
   * is the mu of this test. */
  double pooled = sqrt((v0 + v1) / 2.0);
  /* Scores without spread: the victim never reaches the attackers (both
   * worlds alike: mu = 0) or reaches them noise-free (mu = +inf). */
  double mu = pooled > 0.0 ? (m1 - m0) / pooled : m1 == m0 ? 0.0 : INFINITY;
  double se = sqrt(2.0 / N + mu * mu / (4.0 * N));
  r->mu_emp = mu;
  r->mu_emp_se = se;
  r->mu_emp_low = mu - Z95 * se;
  r->mu_emp_high = mu + Z95 * se;
  r->mu_cp_low = N >= 4 ? audit_cp_mu_low(s0, s1, N) : NAN;
  r->trials = N;
}

/* Centers the @N rows of @X (D values) on their mean, into @mean. */
static void center_rows(double *X, guint N, gsize D, double *mean) {
  memset(mean, 0, D * sizeof(double));
  for (guint i = 0; i < N; i++)
    cblas_daxpy((int)D, 1.0 / N, X + (gsize)i * D, 1, mean, 1);
  for (guint i = 0; i < N; i++)
    cblas_daxpy((int)D, -1.0, mean, 1, X + (gsize)i * D, 1);
}

double *audit_lda(const double *X0, guint N0, const double *X1, guint N1, gsize D, GError **error) {
  g_return_val_if_fail(X0 != NULL && X1 != NULL && N0 >= 2 && N1 >= 2 && D > 0, NULL);
  /* The centred copies, the D x D covariance and three vectors. */
  gsize bytes = spec_size_add(spec_size_mul(N0 + (gsize)N1, D), spec_size_mul(D, D + 3));
  char *what = g_strdup_printf("the learned attack on %" G_GSIZE_FORMAT " received values", D);
  gboolean fits = spec_check_memory(spec_size_mul(bytes, sizeof(double)), what,
                                    "use fewer parameters (--dim) or leave out the learned attack "
                                    "(--attack np)",
                                    PRIV_ERROR, PRIV_ERROR_MEMORY, error);
  g_free(what);
  if (!fits)
    return NULL;
  double *C0 = g_memdup2(X0, sizeof(double) * N0 * D), *C1 = g_memdup2(X1, sizeof(double) * N1 * D);
  double *w = g_new(double, D), *m1 = g_new(double, D), *S = g_new0(double, D *D);
  center_rows(C0, N0, D, w);
  center_rows(C1, N1, D, m1);
  cblas_daxpy((int)D, -1.0, w, 1, m1, 1);
  memcpy(w, m1, D * sizeof(double));
  double scale = 1.0 / (N0 + N1 - 2.0);
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)D, (int)N0, scale, C0, (int)D, 0.0, S,
              (int)D);
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)D, (int)N1, scale, C1, (int)D, 1.0, S,
              (int)D);
  double tr = 0.0;
  for (gsize i = 0; i < D; i++)
    tr += S[i * D + i];
  double lambda = tr > 0.0 ? 1e-6 * tr / D : 1.0;
  for (gsize i = 0; i < D; i++)
    S[i * D + i] += lambda;
  lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)D, 1, S, (lapack_int)D, w, 1);
  g_free(C0);
  g_free(C1);
  g_free(m1);
  g_free(S);
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "audit: the learned attack's covariance is not positive definite (LAPACK info %d)",
                (int)info);
    g_free(w);
    return NULL;
  }
  return w;
}
