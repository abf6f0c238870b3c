/*
 * tests/privacy/test_structured_mfnoise.c: MF-D-SGD's correlated noise in
 * the W-power engine (PRIV_ENGINE_POWERS with C_local) against two other
 * formulations: the W-product engine (PRIV_ENGINE_DENSE: the messages'
 * columns over every (node, step) and a pivoted Cholesky) and the observer
 * path (a hand-built run's knowledge through the generic accountant).
 * Random static graphs of 20 to 300 nodes (Erdos, with silent nodes for LDP
 * and SecLDP, Barabasi, regular), PNDP, LDP and SecLDP, one attacker and
 * collusion sets, b = 1 and 2, a banded C (BSR), a BLT C and Mafalda's
 * optimized C; AUTO's choice, thread-count independence and the memory
 * pre-check. And the Kalman engine with the noise's state in its state
 * (PRIV_ENGINE_KALMAN with C_local: C^-1's state-space form, checked on
 * its own) against the same two.
 */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>

#include "mf/mf.h"
#include "privacy/structured_internal.h"
#include "test_account_util.h"

/* The lower-triangular Toeplitz T x T matrix of the first column c[0..T). */
static double *toeplitz_of(const double *c, guint T) {
  double *C = g_new0(double, (gsize)T *T);
  for (guint t = 0; t < T; t++)
    for (guint s = 0; s <= t; s++)
      C[(gsize)t * T + s] = c[t - s];
  return C;
}

static double *bsr_c(guint T) {
  GError *err = NULL;
  double *C = mf_baseline(MF_BASELINE_BSR, T, 4, &err);
  g_assert_no_error(err);
  return C;
}

/* Two buffers, one weight negative (as fitted BLTs have). */
static double *blt_c(guint T) {
  const double theta[] = {0.9, 0.4}, w[] = {-0.5, 0.2};
  GError *err = NULL;
  g_assert_true(mf_blt_check(theta, w, 2, &err));
  double *c = g_new(double, T);
  mf_blt_coefficients(theta, w, 2, T, c);
  double *C = toeplitz_of(c, T);
  g_free(c);
  return C;
}

/* Mafalda's C of band 4, optimized for @w over T steps (b = 1). */
static double *mafalda_c(const TopoGossip *w, guint T) {
  GError *err = NULL;
  double *Wd = topo_gossip_dense(w);
  double *C = mf_mafalda_c(topo_gossip_n(w), T, T, 1, 4, Wd, NULL, NULL, &err);
  g_assert_no_error(err);
  g_free(Wd);
  return C;
}

/* cond_2(C) from its singular values. */
static double cond2(const double *C, guint T) {
  double *A = g_memdup2(C, sizeof(double) * T * T), *s = g_new(double, T);
  double *sup = g_new(double, T);
  lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)T, (lapack_int)T, A,
                                   (lapack_int)T, s, NULL, 1, NULL, 1, sup);
  g_assert_cmpint(info, ==, 0);
  double c = s[0] / s[T - 1];
  g_free(A);
  g_free(s);
  g_free(sup);
  return c;
}

/*
 * The condition number, on its range, of the covariance Sigma of the
 * messages the set @S sees, built here from dense powers of W (no engine
 * code): rows (r, w) for w heard, columns (v, j) for the nodes v whose noise
 * is unknown, Sigma = sum_v (M_v C^-1)(M_v C^-1)^T with M_v[(r, w), k] =
 * (W^(r-k))[w, v]. Eigenvalues below 1e-13 of the largest are exact
 * repetitions (rounding); the test's cases keep none between 1e-13 and
 * 1e-9, away from the engines' rank threshold (1e-11), which is asserted.
 */
static double sigma_kappa(const HandRun *run, PrivTrust trust, const guint *S, guint nS) {
  const TopoGossip *w = run->gossip[0];
  guint n = topo_gossip_n(w), T = run->T;
  double *Wd = topo_gossip_dense(w);
  gboolean *att = g_new0(gboolean, n), *heard = g_new0(gboolean, n);
  for (guint i = 0; i < nS; i++)
    att[S[i]] = TRUE;
  for (guint v = 0; v < n; v++) {
    for (guint x = 0; x < n; x++) {
      if (x == v || Wd[(gsize)x * n + v] == 0.0)
        continue;
      /* v sends to x: PNDP hears it when x is an attacker, LDP always,
       * SecLDP unless v is one. */
      if (trust == PRIV_TRUST_PNDP ? att[x] && !att[v] : trust == PRIV_TRUST_LDP || !att[v])
        heard[v] = TRUE;
    }
  }
  GArray *U = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint v = 0; v < n; v++)
    if (heard[v])
      g_array_append_val(U, v);
  guint m = U->len, q = T * m;
  /* P[j] = W^j. */
  double *P = g_new0(double, (gsize)T *n *n);
  for (guint v = 0; v < n; v++)
    P[(gsize)v * n + v] = 1.0;
  for (guint j = 1; j < T; j++)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, Wd, (int)n,
                P + (gsize)(j - 1) * n * n, (int)n, 0.0, P + (gsize)j * n * n, (int)n);
  double *Cinv = hand_lower_inverse(run->C_local, T);
  double *Mn = g_new0(double, (gsize)q *n *T); /* q x (v, j) */
  for (guint r = 0; r < T; r++)
    for (guint a = 0; a < m; a++) {
      guint wn = g_array_index(U, guint, a);
      double *row = Mn + ((gsize)r * m + a) * n * T;
      for (guint v = 0; v < n; v++) {
        if (att[v] && trust != PRIV_TRUST_LDP)
          continue; /* known noise */
        for (guint k = 0; k <= r; k++) {
          double e = P[(gsize)(r - k) * n * n + (gsize)wn * n + v];
          for (guint j = 0; j <= k; j++)
            row[(gsize)v * T + j] += e * Cinv[(gsize)k * T + j];
        }
      }
    }
  double *Sig = g_new(double, (gsize)q *q), *lam = g_new(double, q);
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)q, (int)(n * T), 1.0, Mn, (int)(n * T),
              0.0, Sig, (int)q);
  g_assert_cmpint(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', (lapack_int)q, Sig, (lapack_int)q, lam),
                  ==, 0);
  double lmax = lam[q - 1], lmin = lmax;
  for (guint i = 0; i < q; i++) {
    /* Decisions: below 1e-13 lmax is rounding (dsyev errs by about
     * eps x q x lmax, q the observed rows); above 1e-9 lmax is a direction the
     * engines keep at their 1e-11 with 100x margin either side; nothing in
     * between means the cases are not near the engines' rank decision. */
    g_assert_false(lam[i] > 1e-13 * lmax && lam[i] <= 1e-9 * lmax);
    if (lam[i] > 1e-9 * lmax)
      lmin = MIN(lmin, lam[i]);
  }
  g_free(Wd);
  g_free(att);
  g_free(heard);
  g_array_free(U, TRUE);
  g_free(P);
  g_free(Cinv);
  g_free(Mn);
  g_free(Sig);
  g_free(lam);
  return lmax / lmin;
}

/* The relative error of the noise's state-space form: its rebuild of C^-1
 * (computed here by the test's own triangular inverse) over C^-1's largest
 * entry, and the state it needs per node. */
static double realization_delta(const double *C, guint T, guint *p) {
  double *Cinv = hand_lower_inverse(C, T), amax = 0.0;
  for (gsize i = 0; i < (gsize)T * T; i++)
    amax = MAX(amax, fabs(Cinv[i]));
  PrivNoiseState ns;
  GError *err = NULL;
  g_assert_true(priv_noise_state_of(C, Cinv, T, PRIV_NOISE_STATE_MAX, &ns, &err));
  g_assert_no_error(err);
  double d = ns.err / amax;
  *p = ns.p;
  priv_noise_state_clear(&ns);
  g_free(Cinv);
  return d;
}

/*
 * POWERS equals DENSE and (when @observer) the observer path, statuses
 * included. Tolerance: both engines apply Sigma^+ on its range through
 * backward-stable factorizations (eigen-decompositions of the rounds'
 * Schur complements; a pivoted Cholesky), after forming Sigma's entries as
 * sums of n T^2 products (the Gram over n nodes, T^2 pairs of steps), so
 * X_u moves by at most kappa(Sigma) times the relative error of those
 * sums and of the q x q factorization, gamma = (n T^2 + q) eps, per engine
 * (n T >= q bounds the second term): tol = 2 kappa (n T^2 + n T) eps.
 * kappa(Sigma) <= cond(C)^2 times the white-noise one (Q = C^-1 C^-T);
 * both are printed (g_test_message).
 */
static void check_mf(const HandRun *run, PrivTrust trust, const guint *S, guint nS,
                     gboolean observer, const char *what) {
  guint n = topo_gossip_n(run->gossip[0]), T = run->T;
  double kappa = sigma_kappa(run, trust, S, nS);
  double tol = 2.0 * kappa * ((double)n * T * T + (double)n * T) * DBL_EPSILON; /* q <= n T */
  g_test_message("%s, %s, %u attackers, b = %u: cond(C) = %.3g, kappa(Sigma) = %.3g, tol = %.2g",
                 what, priv_trust_name(trust), nS, run->b, cond2(run->C_local, T), kappa, tol);
  PrivBlocks *pow = fast_blocks(run, trust, S, nS, PRIV_ENGINE_POWERS);
  PrivBlocks *den = fast_blocks(run, trust, S, nS, PRIV_ENGINE_DENSE);
  double d = blocks_rel_diff(pow, den);
  g_test_message("  POWERS vs DENSE %.2g", d);
  g_assert_cmpfloat(d, <, tol);
  if (observer) {
    PrivBlocks *gen = hand_blocks(run, trust, S, nS);
    d = blocks_rel_diff(pow, gen);
    g_test_message("  POWERS vs observer %.2g", d);
    g_assert_cmpfloat(d, <, tol);
    priv_blocks_free(gen);
  }
  /* Not a vacuous comparison: some victim learns something, and not the
   * white-noise answer's I / sigma^2 shape. */
  double mx = 0.0;
  for (gsize i = 0; i < (gsize)pow->n * T * T; i++)
    mx = MAX(mx, fabs(pow->X[i]));
  g_assert_cmpfloat(mx, >, 1e-3);
  /*
   * KALMAN with the noise's state equals both. Its own rounding is the
   * white-noise engine's, eps x cond x N (test_structured_kalman.c), cond
   * the largest condition number of the innovations it whitened
   * (PrivBlocks.cond) and N its state (n nodes and p per noisy node). Its
   * noise model rebuilds C^-1 to delta (relative to C^-1's largest entry):
   * with E the error, ||E||_2 <= T delta max|C^-1| <= T delta ||C^-1||_2,
   * so Q' = (C^-1 + E)(C^-1 + E)^T is within a factor 1 +- eps_Q of Q in the
   * Loewner order, eps_Q = (2 T delta + (T delta)^2) cond(C)^2; Sigma
   * follows Q, and X = M^T Sigma^+ M moves by at most eps_Q / (1 - eps_Q)
   * of itself. Added to the comparison's tolerance above.
   */
  guint p;
  double delta = realization_delta(run->C_local, T, &p), c2 = cond2(run->C_local, T);
  double eq = (2.0 * T * delta + (double)T * T * delta * delta) * c2 * c2;
  PrivBlocks *kal = fast_blocks(run, trust, S, nS, PRIV_ENGINE_KALMAN);
  guint N = n + p * (trust == PRIV_TRUST_LDP ? n : n - nS);
  double ktol = MAX(tol, dpg_tol(kal->cond, N)) + eq / (1.0 - eq);
  g_assert_cmpfloat(kal->cond, >=, 1.0);
  d = blocks_rel_diff(kal, den);
  g_test_message("  KALMAN (state %u per node, rebuild %.2g) vs DENSE %.2g, tol %.2g", p, delta, d,
                 ktol);
  dpg_test_assert_le(d, ktol, "DENSE's tolerance, or eps cond N, plus the noise form's error");
  g_assert_cmpint(memcmp(kal->status, den->status, sizeof(*kal->status) * n), ==, 0);
  if (observer) {
    PrivBlocks *gen = hand_blocks(run, trust, S, nS);
    d = blocks_rel_diff(kal, gen);
    g_test_message("  KALMAN vs observer %.2g", d);
    dpg_test_assert_le(d, ktol, "DENSE's tolerance, or eps cond N, plus the noise form's error");
    priv_blocks_free(gen);
  }
  priv_blocks_free(kal);
  priv_blocks_free(pow);
  priv_blocks_free(den);
}

/* The three C's, b = 1 and 2, on one graph. */
static void check_cs(const char *spec, TopoGossipKind kind, guint T, PrivTrust trust,
                     const guint *S, guint nS, gboolean observer) {
  TopoGossip *w = gossip_of(spec, kind);
  const TopoGossip *ws[] = {w};
  double *Cs[] = {bsr_c(T), blt_c(T), mafalda_c(w, T)};
  const char *names[] = {"BSR band 4", "BLT d = 2", "Mafalda band 4"};
  for (guint ci = 0; ci < G_N_ELEMENTS(Cs); ci++)
    for (guint b = 1; b <= 2; b++) {
      HandRun run = {.protocol = PRIV_PROTOCOL_MFDSGD,
                     .C_local = Cs[ci],
                     .b = b,
                     .T = T,
                     .gossip = ws,
                     .n_gossip = 1,
                     .sigma = 0.8,
                     .clip = 1.5};
      char *what = g_strdup_printf("%s, %s", spec, names[ci]);
      check_mf(&run, trust, S, nS, observer, what);
      g_free(what);
    }
  for (guint ci = 0; ci < G_N_ELEMENTS(Cs); ci++)
    g_free(Cs[ci]);
  topo_gossip_free(w);
}

static void test_pndp(void) {
  const guint S0[] = {0}, S3[] = {3, 17, 30}, S2[] = {1, 2};
  check_cs("erdos:n=20,p=0.2,seed=5,connected=true", TOPO_GOSSIP_UNIFORM, 6, PRIV_TRUST_PNDP, S0, 1,
           TRUE);
  check_cs("erdos:n=40,p=0.1,seed=2,connected=true", TOPO_GOSSIP_METROPOLIS, 6, PRIV_TRUST_PNDP, S3,
           3, TRUE);
  check_cs("barabasi:n=80,m=2,seed=4", TOPO_GOSSIP_UNIFORM, 6, PRIV_TRUST_PNDP, S0, 1, TRUE);
  check_cs("regular:n=300,d=4,seed=1", TOPO_GOSSIP_UNIFORM, 4, PRIV_TRUST_PNDP, S0, 1, FALSE);
  check_cs("regular:n=200,d=6,seed=3", TOPO_GOSSIP_METROPOLIS, 4, PRIV_TRUST_PNDP, S2, 2, FALSE);
}

/* LDP and SecLDP reach an engine on a static W only when some node sends
 * nothing: a sparse Erdos graph with isolated nodes. */
static void test_ldp_secldp(void) {
  const char *spec = "erdos:n=30,p=0.06,seed=1";
  const guint S1[] = {1}, S2[] = {1, 7};
  check_cs(spec, TOPO_GOSSIP_UNIFORM, 4, PRIV_TRUST_LDP, S1, 1, TRUE);
  check_cs(spec, TOPO_GOSSIP_UNIFORM, 4, PRIV_TRUST_SECLDP, S2, 2, TRUE);
  check_cs(spec, TOPO_GOSSIP_UNIFORM, 4, PRIV_TRUST_PNDP, S2, 2, TRUE);
}

static PrivBlocks *mf_blocks(const TopoGossip *const *ws, guint n_gossip, guint T, const double *C,
                             const guint *S, guint nS, PrivEngine engine, guint threads,
                             gsize max_bytes, GError **error) {
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_MFDSGD,
                             .C_local = C,
                             .T = T,
                             .gossip = ws,
                             .n_gossip = n_gossip,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = S,
                             .n_attackers = nS,
                             .sigma = 1.0,
                             .b = 1,
                             .engine = engine,
                             .threads = threads,
                             .max_bytes = max_bytes};
  return priv_structured_blocks(&p, error);
}

/* Several chunks of victims over 1, 2 and 3 threads: the same bytes. */
static void test_threads_identical(void) {
  TopoGossip *w = gossip_of("regular:n=800,d=6,seed=2", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S[] = {0, 1, 2, 3, 4, 5, 6, 7};
  double *C = blt_c(10);
  GError *err = NULL;
  PrivBlocks *b[3];
  for (guint t = 0; t < 3; t++) {
    b[t] = mf_blocks(ws, 1, 10, C, S, 8, PRIV_ENGINE_POWERS, t + 1, 0, &err);
    g_assert_no_error(err);
  }
  for (guint t = 1; t < 3; t++) {
    g_assert_cmpint(memcmp(b[0]->X, b[t]->X, sizeof(double) * b[0]->n * 100), ==, 0);
    g_assert_cmpint(memcmp(b[0]->status, b[t]->status, sizeof(*b[0]->status) * b[0]->n), ==, 0);
  }
  for (guint t = 0; t < 3; t++)
    priv_blocks_free(b[t]);
  /* KALMAN with the noise's state: its sparse products split rows across
   * threads in fixed ranges. */
  TopoGossip *w2 = gossip_of("regular:n=120,d=6,seed=2", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws2[] = {w2};
  for (guint t = 0; t < 3; t++) {
    b[t] = mf_blocks(ws2, 1, 10, C, S, 2, PRIV_ENGINE_KALMAN, t + 1, 0, &err);
    g_assert_no_error(err);
  }
  for (guint t = 1; t < 3; t++)
    g_assert_cmpint(memcmp(b[0]->X, b[t]->X, sizeof(double) * b[0]->n * 100), ==, 0);
  for (guint t = 0; t < 3; t++)
    priv_blocks_free(b[t]);
  topo_gossip_free(w2);
  g_free(C);
  topo_gossip_free(w);
}

/* AUTO takes POWERS for MF-D-SGD on a static W (the same bytes as asking
 * for it), DENSE on a time-varying one; POWERS refuses a time-varying W
 * and a budget too small, naming the bytes. */
static void test_auto_and_refusals(void) {
  TopoGossip *w = gossip_of("regular:n=300,d=4,seed=7", TOPO_GOSSIP_UNIFORM);
  const guint S[] = {0};
  guint T = 5;
  double *C = bsr_c(T);
  GError *err = NULL;
  const TopoGossip *ws[] = {w, w, w, w, w};
  PrivBlocks *a = mf_blocks(ws, 1, T, C, S, 1, PRIV_ENGINE_AUTO, 1, 0, &err);
  PrivBlocks *p = mf_blocks(ws, 1, T, C, S, 1, PRIV_ENGINE_POWERS, 1, 0, &err);
  g_assert_no_error(err);
  g_assert_cmpint(memcmp(a->X, p->X, sizeof(double) * 300 * T * T), ==, 0);
  priv_blocks_free(a);
  priv_blocks_free(p);
  a = mf_blocks(ws, T, T, C, S, 1, PRIV_ENGINE_AUTO, 1, 0, &err);
  PrivBlocks *d = mf_blocks(ws, T, T, C, S, 1, PRIV_ENGINE_DENSE, 1, 0, &err);
  g_assert_no_error(err);
  g_assert_cmpint(memcmp(a->X, d->X, sizeof(double) * 300 * T * T), ==, 0);
  priv_blocks_free(a);
  priv_blocks_free(d);
  g_assert_null(mf_blocks(ws, T, T, C, S, 1, PRIV_ENGINE_POWERS, 1, 0, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "static gossip matrix"));
  g_clear_error(&err);
  /* The vectors alone are 300 x 20 doubles (48 kB). */
  g_assert_null(mf_blocks(ws, 1, T, C, S, 1, PRIV_ENGINE_POWERS, 1, 40000, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
  g_assert_nonnull(strstr(err->message, "structured (W-power) accounting would need"));
  g_clear_error(&err);
  /* The dense-propagator Kalman engine still refuses correlated noise. */
  g_assert_null(mf_blocks(ws, 1, T, C, S, 1, PRIV_ENGINE_KALMAN_DENSE, 1, 0, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_free(C);
  topo_gossip_free(w);
}

/* A dense lower-triangular T x T C with a generic inverse (entries of a
 * fixed pseudo-random sequence, a dominant diagonal): every Hankel block of
 * C^-1 has full rank min(k, T - k). */
static double *dense_c(guint T) {
  double *C = g_new0(double, (gsize)T *T);
  guint32 x = 12345;
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j <= i; j++) {
      x = x * 1664525u + 1013904223u;
      C[(gsize)i * T + j] = i == j ? 4.0 : (double)(x >> 8) / (1u << 24) - 0.5;
    }
  return C;
}

/*
 * The noise's state-space form on its own: the state it needs is the rank
 * of C^-1's Hankel blocks, band - 1 = 3 for BSR of band 4 (C nu = z is an
 * autoregression over 3 earlier values), 2 for the 2-buffer BLT, 0 for a
 * diagonal C; it rebuilds C^-1 (the test's own triangular inverse) to the
 * rounding of a T-term recursion on orthonormal bases, T p eps max|C^-1|
 * per entry (plus the T tau of the rank decision, tau = T^2 eps cond_1(C)
 * max|C^-1|: singular values there are rounding); and a generic dense C
 * (state min(k, T - k) = 20 at T = 40) is refused with the reason, the
 * KALMAN engine too.
 */
static void test_noise_state(void) {
  guint T = 40;
  double *Cs[] = {bsr_c(T), blt_c(T), g_new0(double, (gsize)T *T)};
  for (guint t = 0; t < T; t++)
    Cs[2][(gsize)t * T + t] = 1.0 + 0.01 * t;
  const guint want[] = {3, 2, 0};
  for (guint ci = 0; ci < G_N_ELEMENTS(Cs); ci++) {
    double *Cinv = hand_lower_inverse(Cs[ci], T), amax = 0.0;
    for (gsize i = 0; i < (gsize)T * T; i++)
      amax = MAX(amax, fabs(Cinv[i]));
    PrivNoiseState ns;
    GError *err = NULL;
    g_assert_true(priv_noise_state_of(Cs[ci], Cinv, T, PRIV_NOISE_STATE_MAX, &ns, &err));
    g_assert_no_error(err);
    g_assert_cmpuint(ns.p, ==, want[ci]);
    /* Rebuild: nu = C^-1 z for z = e_l, stepping the recursion. */
    guint pp = MAX(ns.p, 1u);
    double worst = 0.0, c1 = 0.0, ci1 = 0.0;
    for (guint l = 0; l < T; l++) {
      double *st = g_new0(double, pp), *st2 = g_new0(double, pp);
      for (guint k = 0; k < T; k++) {
        double z = k == l, nu = ns.d[k] * z;
        for (guint a = 0; a < ns.p; a++)
          nu += ns.h[(gsize)k * pp + a] * st[a];
        worst = MAX(worst, fabs(nu - Cinv[(gsize)k * T + l]));
        for (guint i = 0; i < ns.p; i++) {
          st2[i] = ns.b[(gsize)k * pp + i] * z;
          for (guint a = 0; a < ns.p; a++)
            st2[i] += ns.A[((gsize)k * pp + i) * pp + a] * st[a];
        }
        memcpy(st, st2, sizeof(double) * pp);
      }
      g_free(st);
      g_free(st2);
      double s1 = 0.0, s2 = 0.0;
      for (guint k = 0; k < T; k++) {
        s1 += fabs(Cs[ci][(gsize)k * T + l]);
        s2 += fabs(Cinv[(gsize)k * T + l]);
      }
      c1 = MAX(c1, s1);
      ci1 = MAX(ci1, s2);
    }
    double tau = (double)T * T * DBL_EPSILON * c1 * ci1 * amax;
    dpg_test_assert_le(worst, T * tau + (double)T * pp * DBL_EPSILON * amax,
                       "T tau (rank decisions) + T p eps max|C^-1| (the recursion)");
    priv_noise_state_clear(&ns);
    g_free(Cinv);
  }
  double *D = dense_c(T), *Dinv = hand_lower_inverse(D, T);
  PrivNoiseState ns;
  GError *err = NULL;
  g_assert_false(priv_noise_state_of(D, Dinv, T, PRIV_NOISE_STATE_MAX, &ns, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "state of 20 values per node"));
  g_clear_error(&err);
  TopoGossip *w = gossip_of("regular:n=40,d=4,seed=7", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S[] = {0};
  g_assert_null(mf_blocks(ws, 1, T, D, S, 1, PRIV_ENGINE_KALMAN, 1, 0, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "cannot carry MF-D-SGD's noise"));
  g_clear_error(&err);
  /* AUTO takes another engine for it: the same blocks as DENSE's. */
  PrivBlocks *a = mf_blocks(ws, 1, T, D, S, 1, PRIV_ENGINE_AUTO, 1, 0, &err);
  g_assert_no_error(err);
  g_assert_nonnull(a);
  priv_blocks_free(a);
  topo_gossip_free(w);
  g_free(D);
  g_free(Dinv);
  for (guint ci = 0; ci < G_N_ELEMENTS(Cs); ci++)
    g_free(Cs[ci]);
}

/*
 * AUTO weighs KALMAN with the noise's state: on a graph whose attackers see
 * most messages (SecLDP with isolated nodes, T = 12, BSR band 4) a 1 MB
 * budget fits KALMAN's (state 30 + 3 x 29 = 117, about 0.7 MB) but neither
 * DENSE's (300 messages x 360 columns, twice, and 300^2: 2.6 MB) nor
 * POWERS' (its chunk buffers alone are 4 MB): AUTO gives KALMAN's bytes.
 * KALMAN refuses a budget below its own need, naming the bytes.
 */
static void test_auto_kalman(void) {
  TopoGossip *w = gossip_of("erdos:n=30,p=0.06,seed=1", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S[] = {1};
  guint T = 12;
  double *C = bsr_c(T);
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_MFDSGD,
                             .C_local = C,
                             .T = T,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_SECLDP,
                             .attackers = S,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .b = 1,
                             .max_bytes = 1000000};
  GError *err = NULL;
  p.engine = PRIV_ENGINE_AUTO;
  PrivBlocks *a = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  p.engine = PRIV_ENGINE_KALMAN;
  PrivBlocks *k = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  g_assert_cmpint(memcmp(a->X, k->X, sizeof(double) * 30 * T * T), ==, 0);
  p.engine = PRIV_ENGINE_DENSE;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
  g_clear_error(&err);
  p.engine = PRIV_ENGINE_KALMAN;
  p.max_bytes = 100000;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
  g_assert_nonnull(strstr(err->message, "structured (Kalman) accounting would need"));
  g_clear_error(&err);
  priv_blocks_free(a);
  priv_blocks_free(k);
  g_free(C);
  topo_gossip_free(w);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/structured_mfnoise/pndp", test_pndp);
  g_test_add_func("/structured_mfnoise/ldp_secldp", test_ldp_secldp);
  g_test_add_func("/structured_mfnoise/threads_identical", test_threads_identical);
  g_test_add_func("/structured_mfnoise/auto_and_refusals", test_auto_and_refusals);
  g_test_add_func("/structured_mfnoise/noise_state", test_noise_state);
  g_test_add_func("/structured_mfnoise/auto_kalman", test_auto_kalman);
  return g_test_run();
}
