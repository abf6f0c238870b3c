/*
 * tests/privacy/test_account_knowledge.c: the generic accountant on small
 * knowledges whose answer is known by hand (one noisy observation, noise-free
 * combinations, differences that cancel the noise, known noise and gradients,
 * redundant rows), and on random ones against X = A^T (B B^T)^+ A computed
 * independently from an eigendecomposition of B B^T.
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "privacy/privacy.h"

/* Column of gradient slot (u, t) in an n-node network. */
#define COL(n, u, t) ((guint32)((t) * (n) + (u)))

static void add(PrivKnowledge *k, guint ng, const guint32 *gc, const double *gv, guint nn,
                const guint32 *nc, const double *nv) {
  GError *err = NULL;
  g_assert_true(priv_knowledge_add_row(k, ng, gc, gv, nn, nc, nv, &err));
  g_assert_no_error(err);
}

static PrivBlocks *blocks(const PrivKnowledge *k, guint T, double clip) {
  PrivKnowledgeOptions o = {.T = T, .clip = clip};
  GError *err = NULL;
  PrivBlocks *b = priv_knowledge_blocks(k, &o, &err);
  g_assert_no_error(err);
  g_assert_nonnull(b);
  return b;
}

/* One observation g_{u,0} + 2 z: X_u = Delta^2 / 4; other nodes see nothing. */
static void test_single_observation(void) {
  PrivKnowledge *k = priv_knowledge_new(3, NULL);
  guint32 gc[] = {COL(3, 1, 0)}, nc[] = {0};
  double gv[] = {1.0}, nv[] = {2.0};
  add(k, 1, gc, gv, 1, nc, nv);
  PrivBlocks *b = blocks(k, 1, 3.0);
  g_assert_cmpint(b->status[1], ==, PRIV_NODE_PROTECTED);
  g_assert_cmpfloat(fabs(priv_blocks_get(b, 1)[0] - 9.0 / 4.0), <, 1e-14);
  g_assert_cmpfloat(priv_blocks_get(b, 0)[0], ==, 0.0);
  g_assert_cmpfloat(priv_blocks_get(b, 2)[0], ==, 0.0);
  priv_blocks_free(b);
  b = blocks(k, 1, 0.0); /* clip 0 selects the default clipping norm 1 */
  g_assert_cmpfloat(fabs(priv_blocks_get(b, 1)[0] - 1.0 / 4.0), <, 1e-15);
  priv_blocks_free(b);
  priv_knowledge_free(k);
}

/* r1 = g_u + g_v + z, r2 = g_v + z: r1 - r2 = g_u without noise (u is
 * unprotected) while v's column (1, 1) lies in range(B) (X_v = 1). */
static void test_noise_cancels(void) {
  PrivKnowledge *k = priv_knowledge_new(2, NULL);
  guint32 g12[] = {COL(2, 0, 0), COL(2, 1, 0)}, g2[] = {COL(2, 1, 0)}, z[] = {5};
  double one2[] = {1.0, 1.0}, one[] = {1.0};
  add(k, 2, g12, one2, 1, z, one);
  add(k, 1, g2, one, 1, z, one);
  PrivBlocks *b = blocks(k, 0, 1.0);
  g_assert_cmpuint(b->T, ==, 1);
  g_assert_cmpint(b->status[0], ==, PRIV_NODE_UNPROTECTED);
  g_assert_cmpint(b->status[1], ==, PRIV_NODE_PROTECTED);
  g_assert_cmpfloat(fabs(priv_blocks_get(b, 1)[0] - 1.0), <, 1e-14);
  PrivReport *rep = priv_account_report(b, NULL, NULL, NULL);
  g_assert_true(rep->victims[0].unprotected && isinf(rep->victims[0].mu) &&
                isinf(rep->victims[0].epsilon) && isinf(rep->victims[0].rdp));
  g_assert_false(rep->victims[1].unprotected);
  g_assert_cmpfloat(fabs(rep->victims[1].mu - 1.0), <, 1e-14);
  priv_report_free(rep);
  priv_blocks_free(b);
  priv_knowledge_free(k);

  /* A noise-free row alone: unprotected. */
  k = priv_knowledge_new(2, NULL);
  add(k, 1, g2, one, 0, NULL, NULL);
  b = blocks(k, 1, 1.0);
  g_assert_cmpint(b->status[1], ==, PRIV_NODE_UNPROTECTED);
  g_assert_cmpint(b->status[0], ==, PRIV_NODE_PROTECTED);
  priv_blocks_free(b);
  priv_knowledge_free(k);
}

/* Knowing z_k is the same as observing a row [0 | e_k]: g + z_1 + 0.5 z_2
 * with z_1 known, and the rows {g + z_1 + 0.5 z_2, z_1}, both give
 * X = 1 / 0.5^2 = 4. */
static void test_known_noise_is_a_row(void) {
  guint32 g[] = {COL(1, 0, 0)}, z12[] = {1, 2}, z1[] = {1};
  double one[] = {1.0}, a[] = {1.0, 0.5}, e1[] = {1.0};
  PrivKnowledge *known = priv_knowledge_new(1, NULL), *row = priv_knowledge_new(1, NULL);
  add(known, 1, g, one, 2, z12, a);
  add(row, 1, g, one, 2, z12, a);
  priv_knowledge_know_noise(known, 1);
  add(row, 0, NULL, NULL, 1, z1, e1); /* [0 | e_1] */
  PrivBlocks *bk = blocks(known, 1, 1.0), *br = blocks(row, 1, 1.0);
  /* Left: g + 0.5 z_2, X = 4. */
  g_assert_cmpfloat(fabs(priv_blocks_get(bk, 0)[0] - 4.0), <, 1e-13);
  g_assert_cmpfloat(fabs(priv_blocks_get(br, 0)[0] - 4.0), <, 1e-13);
  priv_blocks_free(bk);
  priv_blocks_free(br);
  /* Knowing every noise leaves the gradient bare. */
  priv_knowledge_know_noise(known, 2);
  bk = blocks(known, 1, 1.0);
  g_assert_cmpint(bk->status[0], ==, PRIV_NODE_UNPROTECTED);
  priv_blocks_free(bk);
  priv_knowledge_free(known);
  priv_knowledge_free(row);
}

/* Known gradients leave A (reduction lemma); attackers are no victims. */
static void test_known_gradients(void) {
  PrivKnowledge *k = priv_knowledge_new(3, NULL);
  guint32 g[] = {COL(3, 0, 0), COL(3, 2, 0), COL(3, 1, 1)}, z[] = {0};
  double gv[] = {1.0, 1.0, 1.0}, nv[] = {1.0};
  add(k, 3, g, gv, 1, z, nv); /* g_{0,0} + g_{2,0} + g_{1,1} + z */
  GError *err = NULL;
  g_assert_true(priv_knowledge_add_attacker(k, 2, &err));
  g_assert_true(priv_knowledge_know_gradient(k, 1, 1, &err));
  PrivBlocks *b = blocks(k, 2, 1.0);
  g_assert_cmpint(b->status[2], ==, PRIV_NODE_ATTACKER);
  g_assert_cmpfloat(fabs(priv_blocks_get(b, 0)[0] - 1.0), <, 1e-14);
  g_assert_cmpfloat(priv_blocks_get(b, 1)[3], ==, 0.0);
  PrivReport *rep = priv_account_report(b, NULL, NULL, NULL);
  g_assert_cmpuint(rep->n_victims, ==, 2);
  g_assert_cmpuint(rep->victims[1].node, ==, 1);
  priv_report_free(rep);
  priv_blocks_free(b);
  g_assert_false(priv_knowledge_add_attacker(k, 3, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  priv_knowledge_free(k);
}

/* Random knowledge vs X = A^T (B B^T)^+ A by eigendecomposition. */
static void reference_X(const double *A, const double *B, guint r, guint c, guint m, double *X) {
  double *K = g_new0(double, (gsize)r *r), *w = g_new(double, r);
  for (guint i = 0; i < r; i++)
    for (guint j = 0; j < r; j++)
      for (guint l = 0; l < m; l++)
        K[i * r + j] += B[i * m + l] * B[j * m + l];
  g_assert_cmpint(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', (int)r, K, (int)r, w), ==, 0);
  /* X = sum over eigenpairs (l > tol) of (v^T A)^T (v^T A) / l. */
  memset(X, 0, sizeof(double) * c * c);
  double lmax = w[r - 1];
  for (guint e = 0; e < r; e++) {
    if (w[e] <= 1e-12 * lmax) /* a decision: dsyev's rounding is eps r lmax ~ 1e-15 lmax,
                                 the cases' kept eigenvalues are O(lmax) or exactly 0 */
      continue;
    double *y = g_new0(double, c);
    for (guint j = 0; j < c; j++)
      for (guint i = 0; i < r; i++)
        y[j] += K[i * r + e] * A[i * c + j];
    for (guint a = 0; a < c; a++)
      for (guint b = 0; b < c; b++)
        X[a * c + b] += y[a] * y[b] / w[e];
    g_free(y);
  }
  g_free(K);
  g_free(w);
}

static void test_random_vs_pseudoinverse(void) {
  GRand *rnd = g_rand_new_with_seed(77);
  for (guint rep = 0; rep < 12; rep++) {
    guint n = 3, T = 2, c = n * T, m = 4 + rep % 5, r = 3 + rep % 4;
    /* A = B C so every victim lies in range(B); some rows repeat others. */
    double *B = g_new0(double, (gsize)r *m), *C = g_new(double, (gsize)m *c),
           *A = g_new0(double, (gsize)r *c);
    for (guint i = 0; i < r; i++)
      for (guint l = 0; l < m; l++)
        B[i * m + l] = g_rand_double_range(rnd, -1, 1);
    if (rep % 3 == 0) /* rank deficiency: row 2 = row 0 + 2 row 1 */
      for (guint l = 0; l < m; l++)
        B[2 * m + l] = B[l] + 2 * B[m + l];
    for (guint i = 0; i < m * c; i++)
      C[i] = g_rand_double_range(rnd, -1, 1);
    for (guint i = 0; i < r; i++)
      for (guint j = 0; j < c; j++)
        for (guint l = 0; l < m; l++)
          A[i * c + j] += B[i * m + l] * C[l * c + j];
    PrivKnowledge *k = priv_knowledge_new(n, NULL);
    guint32 gc[6], nc[16];
    for (guint j = 0; j < c; j++)
      gc[j] = j; /* column t*n + u = j */
    for (guint l = 0; l < m; l++)
      nc[l] = 10 + 3 * l; /* sparse noise ids */
    for (guint i = 0; i < r; i++)
      add(k, c, gc, A + i * c, m, nc, B + i * m);
    double clip = 1.7;
    PrivBlocks *b = blocks(k, T, clip);
    double *X = g_new(double, (gsize)c *c);
    reference_X(A, B, r, c, m, X);
    for (guint u = 0; u < n; u++) {
      g_assert_cmpint(b->status[u], ==, PRIV_NODE_PROTECTED);
      const double *Xu = priv_blocks_get(b, u);
      for (guint s = 0; s < T; s++)
        for (guint t = 0; t < T; t++) {
          double want = clip * clip * X[(s * n + u) * c + (t * n + u)];
          g_assert_cmpfloat(fabs(Xu[s * T + t] - want), <, 1e-9 * MAX(1.0, fabs(want)));
        }
    }
    priv_blocks_free(b);
    /* Perturb node 1's columns off range(B) in a redundant row: only node 1
     * becomes unprotected (when B has fewer independent rows than rows). */
    if (rep % 3 == 0) {
      /* Row 2 again (B part), with its A part shifted on node 1. */
      double *a2 = g_memdup2(A + 2 * c, sizeof(double) * c);
      a2[COL(3, 1, 0)] += 1e-3;
      add(k, c, gc, a2, m, nc, B + 2 * m);
      g_free(a2);
      b = blocks(k, T, clip);
      g_assert_cmpint(b->status[1], ==, PRIV_NODE_UNPROTECTED);
      g_assert_cmpint(b->status[0], ==, PRIV_NODE_PROTECTED);
      g_assert_cmpint(b->status[2], ==, PRIV_NODE_PROTECTED);
      priv_blocks_free(b);
    }
    priv_knowledge_free(k);
    g_free(A);
    g_free(B);
    g_free(C);
    g_free(X);
  }
  g_rand_free(rnd);
}

static void test_errors(void) {
  GError *err = NULL;
  g_assert_null(priv_knowledge_new(0, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  PrivKnowledge *k = priv_knowledge_new(2, NULL);
  guint32 g[] = {COL(2, 1, 4)}, z[] = {0};
  double v[] = {1.0}, bad[] = {NAN};
  g_assert_false(priv_knowledge_add_row(k, 1, g, bad, 0, NULL, NULL, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  add(k, 1, g, v, 1, z, v);
  g_assert_cmpuint(priv_knowledge_n_rows(k), ==, 1);
  PrivKnowledgeOptions o = {.T = 3};
  g_assert_null(priv_knowledge_blocks(k, &o, &err)); /* step 4 beyond T = 3 */
  g_assert_nonnull(strstr(err->message, "step 4"));
  g_clear_error(&err);
  o.T = 5;
  /* A clipping norm must be positive and finite, the tolerances positive. */
  const double clips[] = {-1, INFINITY, 1, 1}, tols[] = {0, 0, -1e-10, NAN};
  for (guint i = 0; i < G_N_ELEMENTS(clips); i++) {
    o.clip = clips[i];
    o.rank_tol = i == 2 ? tols[i] : 0;
    o.range_tol = i == 3 ? tols[i] : 0;
    g_assert_null(priv_knowledge_blocks(k, &o, &err));
    g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(err->message, "tolerances must be positive and finite"));
    g_clear_error(&err);
  }
  o.clip = 1;
  o.rank_tol = o.range_tol = 0;
  o.max_bytes = 8;
  g_assert_null(priv_knowledge_blocks(k, &o, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
  g_clear_error(&err);
  g_assert_false(priv_knowledge_know_gradient(k, 2, 0, &err));
  g_clear_error(&err);
  priv_knowledge_free(k);
}

/* Nuisance ids for priv_knowledge_project_out: those >= 100. */
static gboolean nuisance_100(guint32 id, gpointer data) {
  (void)data;
  return id >= 100;
}

/* Victim 0 of a 2-node network, T = 1, a nuisance phi (id 100) of
 * arbitrary law: r1 = g + z1 + phi, r2 = g + z2 + phi, r4 = 2 phi + z3,
 * so A = (1, 1, 0), unit white noise and N = (1, 1, 2). The functions free
 * of phi are those orthogonal to N: X_0 = |A|^2 - (A.N)^2 / |N|^2 = 2 -
 * 4/6 = 4/3 (phi as a unit Gaussian instead: A^T (I + N N^T)^-1 A = 10/7;
 * phi known: 2). With r3 = phi seen too, r1 - r3, r2 - r3 and r4 - 2 r3
 * are g + z1, g + z2, z3: X_0 = 2, the value with phi known. Then the
 * memory refusal. */
static void test_project_out(void) {
  guint32 g[] = {COL(2, 0, 0)}, n1[] = {1, 100}, n2[] = {2, 100}, n3[] = {100}, n4[] = {3, 100};
  double one[] = {1.0, 1.0}, two[] = {1.0, 2.0};
  for (guint seen = 0; seen < 2; seen++) {
    PrivKnowledge *k = priv_knowledge_new(2, NULL);
    add(k, 1, g, one, 2, n1, one);
    add(k, 1, g, one, 2, n2, one);
    add(k, 0, NULL, NULL, 2, n4, two);
    if (seen)
      add(k, 0, NULL, NULL, 1, n3, one);
    GError *err = NULL;
    guint rank = 0;
    PrivKnowledge *p = priv_knowledge_project_out(k, nuisance_100, NULL, 0, &rank, &err);
    g_assert_no_error(err);
    g_assert_cmpuint(rank, ==, 1);
    g_assert_cmpuint(priv_knowledge_n_rows(p), ==, 2 + seen);
    PrivBlocks *b = blocks(p, 1, 1.0);
    g_assert_cmpint(b->status[0], ==, PRIV_NODE_PROTECTED);
    /* One QR of a 3 or 4 row column and a 3 x 3 solve: a few eps. */
    g_assert_cmpfloat(fabs(priv_blocks_get(b, 0)[0] - (seen ? 2.0 : 4.0 / 3.0)), <, 1e-14);
    priv_blocks_free(b);
    priv_knowledge_free(p);
    if (seen) {
      g_assert_null(priv_knowledge_project_out(k, nuisance_100, NULL, 8, NULL, &err));
      g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
      g_assert_nonnull(strstr(err->message, "the lower bound's projection (4 observed messages x "
                                            "(1 unknowns entering the ball + 4 gradient and noise "
                                            "columns)) would need"));
      g_clear_error(&err);
    }
    priv_knowledge_free(k);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/knowledge/single-observation", test_single_observation);
  g_test_add_func("/privacy/account/knowledge/noise-cancels", test_noise_cancels);
  g_test_add_func("/privacy/account/knowledge/known-noise-is-a-row", test_known_noise_is_a_row);
  g_test_add_func("/privacy/account/knowledge/known-gradients", test_known_gradients);
  g_test_add_func("/privacy/account/knowledge/random-vs-pseudoinverse",
                  test_random_vs_pseudoinverse);
  g_test_add_func("/privacy/account/knowledge/errors", test_errors);
  g_test_add_func("/privacy/account/knowledge/project-out", test_project_out);
  return g_test_run();
}
