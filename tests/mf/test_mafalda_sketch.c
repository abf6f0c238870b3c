/*
 * tests/mf/test_mafalda_sketch.c: the sketched (Hutchinson) Gram matrix of a
 * time-varying workload, mf_gram_sketch (docs/design.md, "Mafalda over a
 * changing network"), against mf_gram_time_varying: exactly with the basis
 * probes sqrt(n) e_i, whose mean is H itself; and with Rademacher probes,
 * whose mean and spread are checked against the exact law of a probe's
 * loss, enumerated over the 2^5 sign vectors of a 5-node graph, and whose
 * interval's coverage is checked against a band from the binomial law.
 * And the classes' Gram matrices (mf_gram_time_varying_classes, one C per
 * class of nodes): they sum to H; one class is H to the bit; the basis
 * probes restricted to a class's nodes give that class's exact Gram matrix.
 * A static W's sketch (mf_gram_sketch_static): the same estimates as
 * mf_gram_sketch on T copies of W, H itself with the basis probes, and its
 * Frobenius form the spectral form's traces and gradients.
 */
#include <gsl/gsl_cdf.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "mf/mf.h"
#include "tests/common/checks.h"
#include "tests/common/tolerance.h"
#include "topologies/topologies.h"

#define N 5
#define T 6

/* Edge failure (p = 0.3) on a 5-node graph: a path 0-1-2-3, a pendant 4 on
 * 2 and a chord 1-3; the T rounds of seed 3, dense. */
typedef struct {
  double *W[T];
} Trace;

static void trace_init(Trace *tr) {
  static const guint edges[] = {0, 1, 1, 2, 2, 3, 2, 4, 1, 3};
  GError *err = NULL;
  TopoGraph *g = topo_graph_new_from_edges(N, edges, 5, &err);
  g_assert_no_error(err);
  TopoSchedule *s = topo_schedule_new("edge-failure:p=0.3", g, TOPO_GOSSIP_METROPOLIS, 3, &err);
  g_assert_no_error(err);
  for (guint t = 0; t < T; t++) {
    TopoGossip *w = topo_schedule_gossip(s, t, &err);
    g_assert_no_error(err);
    tr->W[t] = topo_gossip_dense(w);
    topo_gossip_free(w);
  }
  topo_schedule_free(s);
  topo_graph_free(g);
}

static void trace_clear(Trace *tr) {
  for (guint t = 0; t < T; t++)
    g_free(tr->W[t]);
}

static const double *trace_at(guint t, gpointer data) {
  return ((Trace *)data)->W[t];
}

/* y = W_t x, a dense loop (mafalda_schedule.c applies the sparse rows). */
static void trace_apply(guint t, const double *x, double *y, guint d, gsize ld, gpointer data) {
  const double *W = ((Trace *)data)->W[t];
  for (guint u = 0; u < N; u++)
    for (guint c = 0; c < d; c++) {
      double sum = 0.0;
      for (guint v = 0; v < N; v++)
        sum += W[u * N + v] * x[v * ld + c];
      y[u * ld + c] = sum;
    }
}

static double *mean_of(double **H, guint K) {
  double *m = g_new0(double, T *T);
  for (guint k = 0; k < K; k++) {
    for (guint i = 0; i < T * T; i++)
      m[i] += H[k][i] / K;
    g_free(H[k]);
  }
  g_free(H);
  return m;
}

/* Probes sqrt(n) e_i, i < n: (1/n) sum_i z_i z_i^T = I, so the mean of the
 * n estimates is H, whatever the gossip. */
static void test_basis_probes_exact(void) {
  Trace tr;
  trace_init(&tr);
  double Z[N * N] = {0};
  for (guint i = 0; i < N; i++)
    Z[i * N + i] = sqrt((double)N);
  for (int wl = 0; wl < 2; wl++) {
    GError *err = NULL;
    double *H = mf_gram_time_varying(N, T, wl, trace_at, &tr, &err);
    g_assert_no_error(err);
    double **Hk = mf_gram_sketch(N, T, wl, trace_apply, &tr, N, 0, Z, 0, &err);
    g_assert_no_error(err);
    double *m = mean_of(Hk, N);
    /* Every term is non-negative (W >= 0, z >= 0), so each entry carries a
     * relative error of at most (operations on its longest chain) x eps: the
     * sketch T products of n terms, a dot of n, T sums and a mean of n (plus
     * sqrt(n)^2); mf_gram_time_varying 2T products of n terms, T more on the
     * Y chain and a trace of n. */
    double ops = (double)T * N + N + T + N + 2 + 3.0 * T * N + N;
    for (guint i = 0; i < T * T; i++)
      dpg_test_assert_close(m[i], H[i], dpg_tol(1.0, ops),
                            "non-negative sums: (operations on a chain) x epsilon relative");
    g_free(m);
    g_free(H);
  }
  trace_clear(&tr);
}

/*
 * The classes' Gram matrices: one class is mf_gram_time_varying's H bit for
 * bit (the same sums in the same order); two classes {0, 2, 4} and {1, 3}
 * sum to H (each entry of H is the n-term trace of a non-negative Y, split
 * into two partial sums: one more addition, the chain bound of
 * test_basis_probes_exact plus 1); and the basis probes sqrt(n) e_i kept for
 * the class's nodes only (the others' rows zero) have mean H_c: (1/n) sum_{i
 * in c} n e_i e_i^T is the class's projector. Under both workloads.
 */
static void test_classes(void) {
  Trace tr;
  trace_init(&tr);
  const guint one[N] = {0}, two[N] = {0, 1, 0, 1, 0};
  double ops = (double)T * N + N + T + N + 2 + 3.0 * T * N + N + 1;
  for (int wl = 0; wl < 2; wl++) {
    GError *err = NULL;
    double *H = mf_gram_time_varying(N, T, wl, trace_at, &tr, &err);
    double *H1 = mf_gram_time_varying_classes(N, T, wl, trace_at, &tr, one, 1, &err);
    double *H2 = mf_gram_time_varying_classes(N, T, wl, trace_at, &tr, two, 2, &err);
    g_assert_no_error(err);
    g_assert_cmpmem(H1, sizeof(double) * T * T, H, sizeof(double) * T * T);
    for (guint i = 0; i < T * T; i++) {
      dpg_test_assert_close(H2[i] + H2[T * T + i], H[i], dpg_tol(1.0, ops),
                            "non-negative sums: (operations on a chain) x epsilon relative");
      /* Both classes carry some of every entry (W >= 0, every node's noise
       * stays with itself at least): not a split into H and 0. */
      g_assert_cmpfloat(H2[i], >, 0.0);
      g_assert_cmpfloat(H2[T * T + i], >, 0.0);
    }
    for (guint c = 0; c < 2; c++) {
      double Z[N * N] = {0};
      for (guint i = 0; i < N; i++)
        if (two[i] == c)
          Z[i * N + i] = sqrt((double)N);
      double **Hk = mf_gram_sketch(N, T, wl, trace_apply, &tr, N, 0, Z, 0, &err);
      g_assert_no_error(err);
      double *m = mean_of(Hk, N);
      for (guint i = 0; i < T * T; i++)
        dpg_test_assert_close(m[i], H2[c * T * T + i], dpg_tol(1.0, ops),
                              "non-negative sums: (operations on a chain) x epsilon relative");
      g_free(m);
    }
    /* A class out of range is refused. */
    const guint bad[N] = {0, 1, 2, 0, 0};
    g_assert_null(mf_gram_time_varying_classes(N, T, wl, trace_at, &tr, bad, 2, &err));
    g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
    g_clear_error(&err);
    g_free(H);
    g_free(H1);
    g_free(H2);
  }
  trace_clear(&tr);
}

/* The loss of @C (k = 3, b = 2) on one probe's estimate: q(z) = z^T B z. */
static double probe_loss(Trace *tr, const double *C, const double *z, MfWorkload wl) {
  GError *err = NULL;
  double **Hk = mf_gram_sketch(N, T, wl, trace_apply, tr, 1, 0, z, 0, &err);
  g_assert_no_error(err);
  double f = mf_loss(Hk[0], C, T, 3, 2, &err);
  g_assert_no_error(err);
  g_free(Hk[0]);
  g_free(Hk);
  return f;
}

/* Rademacher probes: the exact law of a probe's loss q(z) is the uniform
 * law over the 32 sign vectors (enumerated: mean E, variance V, range
 * [lo, hi]). Over K = 4000 seeded probes, Hoeffding bounds the mean's
 * deviation by (hi - lo) sqrt(ln(2/1e-6) / 2K) and the mean of (q - E)^2,
 * values in [0, D^2] with D = max |q - E|, by D^2 sqrt(ln(2/1e-6) / 2K), each
 * with a false-failure chance under 1e-6; the sample variance is that mean
 * minus (mean - E)^2 times K/(K-1), whose shift is allowed for. The mean of
 * the 32 is also the exact loss (the basis test's identity, (1/32) sum z
 * z^T = I). A probe generator that is not +-1 with independent fair signs
 * (a constant vector, a bias) moves the mean or the spread past these. */
static void test_rademacher_law(void) {
  Trace tr;
  trace_init(&tr);
  const guint K = 4000;
  GError *err = NULL;
  for (int wl = 0; wl < 2; wl++) {
    for (int which = 0; which < 2; which++) {
      double *C = mf_baseline(which ? MF_BASELINE_ANTIPGD : MF_BASELINE_IDENTITY, T, 0, &err);
      g_assert_no_error(err);
      double q[32], E = 0.0, lo = INFINITY, hi = -INFINITY;
      for (guint p = 0; p < 32; p++) {
        double z[N];
        for (guint u = 0; u < N; u++)
          z[u] = (p >> u) & 1u ? -1.0 : 1.0;
        q[p] = probe_loss(&tr, C, z, wl);
        E += q[p] / 32;
        lo = MIN(lo, q[p]);
        hi = MAX(hi, q[p]);
      }
      double V = 0.0, D = 0.0;
      for (guint p = 0; p < 32; p++) {
        V += (q[p] - E) * (q[p] - E) / 32;
        D = MAX(D, fabs(q[p] - E));
      }
      double *H = mf_gram_time_varying(N, T, wl, trace_at, &tr, &err);
      g_assert_no_error(err);
      double exact = mf_loss(H, C, T, 3, 2, &err);
      g_assert_no_error(err);
      /* mf_loss's own error: a T x T solve; C^T C's condition number is
       * under 1e3 for I and AntiPGD's ones at T = 6. */
      dpg_test_assert_close(E, exact, dpg_tol(1e3, 32.0 * T * T),
                            "32 losses of T x T solves (condition of C^T C under 1e3)");
      double **Hk = mf_gram_sketch(N, T, wl, trace_apply, &tr, K, 42, NULL, 0, &err);
      g_assert_no_error(err);
      double mean, se;
      g_assert_true(mf_loss_samples((const double *const *)Hk, K, C, T, 3, 2, &mean, &se, &err));
      double h = sqrt(log(2.0 / 1e-6) / (2.0 * K));
      dpg_test_assert_le(fabs(mean - E), (hi - lo) * h,
                         "Hoeffding on the mean of K losses in [lo, hi], 1e-6");
      double s2 = se * se * K; /* the sample variance */
      double shift = (hi - lo) * h;
      dpg_test_assert_le(fabs(s2 * (K - 1.0) / K - V), D * D * h + shift * shift,
                         "Hoeffding on the mean of (q - E)^2 in [0, D^2], 1e-6, plus the "
                         "sample mean's shift");
      g_test_message("workload %d, C %d: mean %.6g (exact %.6g), sd %.4g (exact %.4g)", wl, which,
                     mean, E, sqrt(s2), sqrt(V));
      for (guint k = 0; k < K; k++)
        g_free(Hk[k]);
      g_free(Hk);
      g_free(H);
      g_free(C);
    }
  }
  trace_clear(&tr);
}

/* The sketch's interval: R = 2000 estimates of K = 30 probes each (seeds
 * 1 .. R) of DP-D-SGD's and AntiPGD's loss on the trace, each mean +-
 * t_{0.975,29} SE against the exact loss. The misses are Binomial(R, q), q
 * the interval's true miss rate: 5% if the mean of 30 probe losses were
 * normal; a probe's loss z^T B z is skewed, and over 8000 repetitions q
 * measured 6.9% (dp-d-sgd, 549 misses, standard deviation 0.3%) and 5.1%
 * (antipgd, 409), so the band allows q in [4%, 9%]: from the binomial law,
 * [lo, hi] = [41, 246] leaves any such q outside with probability under 1e-6
 * (0.5e-6 a tail). An interval too narrow by sqrt(2) or a biased estimate
 * fails. */
static void test_sketch_coverage(void) {
  const guint R = 2000, K = 30;
  guint lo, hi;
  test_binomial_band(R, 0.04, 0.09, 0.5e-6, &lo, &hi);
  g_assert_cmpuint(lo, ==, 41); /* the band the comment above states */
  g_assert_cmpuint(hi, ==, 246);
  Trace tr;
  trace_init(&tr);
  GError *err = NULL;
  double *H = mf_gram_time_varying(N, T, MF_WORKLOAD_POST_AVERAGE, trace_at, &tr, &err);
  g_assert_no_error(err);
  double z = gsl_cdf_tdist_Pinv(0.975, K - 1), exact[2], *C[2];
  guint misses[2] = {0, 0};
  for (guint w = 0; w < 2; w++) {
    C[w] = mf_baseline(w ? MF_BASELINE_ANTIPGD : MF_BASELINE_IDENTITY, T, 0, &err);
    exact[w] = mf_loss(H, C[w], T, 3, 2, &err);
    g_assert_no_error(err);
  }
  for (guint r = 0; r < R; r++) {
    double **Hk = mf_gram_sketch(N, T, MF_WORKLOAD_POST_AVERAGE, trace_apply, &tr, K, r + 1, NULL,
                                 0, &err);
    g_assert_no_error(err);
    for (guint w = 0; w < 2; w++) {
      double mean, se;
      g_assert_true(mf_loss_samples((const double *const *)Hk, K, C[w], T, 3, 2, &mean, &se, &err));
      misses[w] += fabs(mean - exact[w]) > z * se;
    }
    for (guint k = 0; k < K; k++)
      g_free(Hk[k]);
    g_free(Hk);
  }
  for (guint w = 0; w < 2; w++) {
    g_test_message("%s: %u misses of %u (accepted %u to %u)", w ? "antipgd" : "dp-d-sgd", misses[w],
                   R, lo, hi);
    g_assert_cmpuint(misses[w], >=, lo);
    g_assert_cmpuint(misses[w], <=, hi);
    g_free(C[w]);
  }
  g_free(H);
  trace_clear(&tr);
}

/* Each estimate is a sum of Gram matrices X^T X: positive semidefinite, so
 * the optimizer can fit C to any mean of them. And bad sizes are refused. */
static void test_psd_and_refusals(void) {
  Trace tr;
  trace_init(&tr);
  GError *err = NULL;
  double **Hk = mf_gram_sketch(N, T, MF_WORKLOAD_POST_AVERAGE, trace_apply, &tr, 3, 7, NULL, 0,
                               &err);
  g_assert_no_error(err);
  for (guint k = 0; k < 3; k++) {
    double A[T * T], w[T];
    memcpy(A, Hk[k], sizeof A);
    g_assert_cmpint(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', T, A, T, w), ==, 0);
    /* A Gram matrix's smallest eigenvalue is >= 0 up to the eigensolver's
     * backward error, T eps ||H||_2. */
    dpg_test_assert_le(-w[0], dpg_tol(1.0, 10.0 * T) * w[T - 1], "eigensolver: T eps ||H||");
    g_free(Hk[k]);
  }
  g_free(Hk);
  g_assert_null(mf_gram_sketch(N, T, MF_WORKLOAD_POST_AVERAGE, trace_apply, &tr, 0, 7, NULL, 0,
                               &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(mf_gram_sketch(N, T, MF_WORKLOAD_POST_AVERAGE, trace_apply, &tr, 4, 7, NULL, 100,
                               &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_MEMORY);
  g_clear_error(&err);
  trace_clear(&tr);
}

/* Round 0's W as a static gossip: applied whatever the round. */
static void static_apply(guint t, const double *x, double *y, guint d, gsize ld, gpointer data) {
  (void)t;
  trace_apply(0, x, y, d, ld, data);
}

static const double *static_at(guint t, gpointer data) {
  (void)t;
  return ((Trace *)data)->W[0];
}

/* mf_gram_sketch_static's estimates are mf_gram_sketch's for the same
 * seed, probe by probe: the static path's T products per probe give the
 * time-varying path's H_k on T copies of W. W >= 0 has rows summing to 1,
 * so every entry of W^a z (|z| = 1) is at most 1 in magnitude and an entry
 * of H_k a sum of at most T dots of n terms: absolute error at most
 * (T n + n + T) eps T n for each path (the powers' n-term sums, the dot,
 * the sum over t). */
static void test_static_sketch_same_estimates(void) {
  Trace tr;
  trace_init(&tr);
  for (int wl = 0; wl < 2; wl++) {
    GError *err = NULL;
    double **F = mf_gram_sketch_static(N, T, wl, static_apply, &tr, 3, 11, NULL, 0, &err);
    g_assert_no_error(err);
    double **Hk = mf_gram_sketch(N, T, wl, static_apply, &tr, 3, 11, NULL, 0, &err);
    g_assert_no_error(err);
    double tol = dpg_tol(1.0, 2.0 * (T * N + N + T)) * T * N;
    for (guint k = 0; k < 3; k++) {
      double *H = mf_gram_from_frobenius(F[k], T, &err);
      g_assert_no_error(err);
      for (guint i = 0; i < T * T; i++)
        dpg_test_assert_le(fabs(H[i] - Hk[k][i]), tol,
                           "entries of W^a z at most 1: (T n + n + T) eps T n per path");
      g_free(H);
      g_free(F[k]);
      g_free(Hk[k]);
    }
    g_free(F);
    g_free(Hk);
  }
  trace_clear(&tr);
}

/* The static sketch with the basis probes sqrt(n) e_i is H exactly (as
 * test_basis_probes_exact, on T copies of W): non-negative sums, each
 * entry within (operations on its longest chain) x eps relative. */
static void test_static_basis_exact(void) {
  Trace tr;
  trace_init(&tr);
  double Z[N * N] = {0};
  for (guint i = 0; i < N; i++)
    Z[i * N + i] = sqrt((double)N);
  for (int wl = 0; wl < 2; wl++) {
    GError *err = NULL;
    double *H = mf_gram_time_varying(N, T, wl, static_at, &tr, &err);
    g_assert_no_error(err);
    double **F = mf_gram_sketch_static(N, T, wl, static_apply, &tr, N, 0, Z, 0, &err);
    g_assert_no_error(err);
    double *Fm = g_new0(double, T * T);
    for (guint k = 0; k < N; k++) {
      for (guint i = 0; i < T * T; i++)
        Fm[i] += F[k][i] / N;
      g_free(F[k]);
    }
    g_free(F);
    double *m = mf_gram_from_frobenius(Fm, T, &err);
    g_assert_no_error(err);
    /* The sketch: T products of n terms, a dot of n, a mean of n, T sums
     * (gram_from_frobenius); the reference: 2T products of n terms, T more
     * on the Y chain and a trace of n. */
    double ops = (double)T * N + N + N + 2 + T + 3.0 * T * N + N;
    for (guint i = 0; i < T * T; i++)
      dpg_test_assert_close(m[i], H[i], dpg_tol(1.0, ops),
                            "non-negative sums: (operations on a chain) x epsilon relative");
    g_free(Fm);
    g_free(m);
    g_free(H);
  }
  trace_clear(&tr);
}

/* The Frobenius form (mf_gram_spectral_from_frobenius) gives the spectral
 * form's Toeplitz trace and gradient: F[a,c] = <W^{a+1}, W^{c+1}>_F from
 * dense powers here (non-negative), the spectral form from dsyevd on the
 * symmetric Metropolis W. dsyevd's backward error is about n eps ||W||,
 * carried through at most T + 1 powers (||W|| = 1) into F's products of n x
 * n matrices: each F entry within 4 (T + 1) n^2 eps of its magnitude (F >=
 * 1: W doubly stochastic), so the trace within that times S = sum_m (T - m)
 * sum |a_j a_j'| F[m-j, m-j'] and each gradient entry within that times
 * its own sum of magnitudes. */
static void test_frobenius_form(void) {
  Trace tr;
  trace_init(&tr);
  const double *W = tr.W[0];
  double P[T + 1][N * N];
  for (guint i = 0; i < N * N; i++)
    P[0][i] = W[i];
  for (guint a = 1; a <= T; a++)
    for (guint i = 0; i < N; i++)
      for (guint j = 0; j < N; j++) {
        double s = 0.0;
        for (guint l = 0; l < N; l++)
          s += P[a - 1][i * N + l] * W[l * N + j];
        P[a][i * N + j] = s;
      }
  double F[T * T];
  for (guint a = 0; a < T; a++)
    for (guint c = 0; c < T; c++) {
      double s = 0.0;
      for (guint i = 0; i < N * N; i++)
        s += P[a][i] * P[c][i];
      F[a * T + c] = s;
    }
  GError *err = NULL;
  MfGramSpectral *gs = mf_gram_spectral_new(W, N, T, MF_WORKLOAD_POST_AVERAGE, &err);
  g_assert_no_error(err);
  MfGramSpectral *gf = mf_gram_spectral_from_frobenius(F, T, MF_WORKLOAD_POST_AVERAGE, &err);
  g_assert_no_error(err);
  double a[T], ga_s[T], ga_f[T];
  for (guint j = 0; j < T; j++)
    a[j] = pow(-0.6, j);
  double S = 0.0, G[T] = {0};
  for (guint m = 0; m < T; m++)
    for (guint x = 0; x <= m; x++)
      for (guint y = 0; y <= m; y++) {
        S += (T - m) * fabs(a[m - x] * a[m - y]) * F[x * T + y];
        G[m - y] += 2.0 * (T - m) * fabs(a[m - x]) * F[x * T + y];
      }
  double rel = dpg_tol(1.0, 4.0 * (T + 1) * N * N);
  const char *why = "dsyevd's n eps backward error through T + 1 powers: 4 (T + 1) n^2 eps of "
                    "the sum of magnitudes";
  dpg_test_assert_le(fabs(mf_toeplitz_trace(gf, a) - mf_toeplitz_trace(gs, a)), rel * S, why);
  double ts = mf_toeplitz_trace_grad(gs, a, ga_s), tf = mf_toeplitz_trace_grad(gf, a, ga_f);
  dpg_test_assert_le(fabs(tf - ts), rel * S, why);
  for (guint j = 0; j < T; j++)
    dpg_test_assert_le(fabs(ga_f[j] - ga_s[j]), rel * G[j], why);
  /* The dense H of the form is gram_from_frobenius's. */
  double *Hs = mf_gram_spectral_dense(gs, &err), *Hf = mf_gram_spectral_dense(gf, &err);
  g_assert_no_error(err);
  for (guint i = 0; i < T * T; i++)
    dpg_test_assert_close(Hf[i], Hs[i], rel * T, "as above, T sums of F");
  g_free(Hs);
  g_free(Hf);
  mf_gram_spectral_free(gs);
  mf_gram_spectral_free(gf);
  trace_clear(&tr);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mafalda-sketch/basis-probes-exact", test_basis_probes_exact);
  g_test_add_func("/mafalda-sketch/classes", test_classes);
  g_test_add_func("/mafalda-sketch/rademacher-law", test_rademacher_law);
  g_test_add_func("/mafalda-sketch/coverage", test_sketch_coverage);
  g_test_add_func("/mafalda-sketch/psd-and-refusals", test_psd_and_refusals);
  g_test_add_func("/mafalda-sketch/static-same-estimates", test_static_sketch_same_estimates);
  g_test_add_func("/mafalda-sketch/static-basis-exact", test_static_basis_exact);
  g_test_add_func("/mafalda-sketch/frobenius-form", test_frobenius_form);
  return g_test_run();
}
