/*
 * tests/sim/test_linvec.c: linear provenance.
 *
 * Every test taking a storage runs once per storage through the same code;
 * the randomized test runs both side by side and compares them bit for bit.
 */
#include "sim/sim.h"

#include <math.h>
#include <string.h>
#include "tests/common/tolerance.h"

#define STORAGE(data) ((SimLinStorage)GPOINTER_TO_INT(data))
#define EXPECT_CRITICAL() g_test_expect_message("dpg-sim", G_LOG_LEVEL_CRITICAL, "*failed*")

static SimLinSpace *make_space(guint n, gsize dim, SimLinStorage storage, guint max_rounds) {
  GError *err = NULL;
  SimNoiseRegistry *reg = sim_noise_registry_new(n, &err);
  g_assert_no_error(err);
  SimLinSpace *s = sim_lin_space_new(reg, dim, storage, max_rounds, &err);
  g_assert_no_error(err);
  sim_noise_registry_unref(reg);
  return s;
}

/* ------------------------------------------------------------------------
 * One D-SGD run by hand: 3 nodes on a path, 2 rounds,
 *   theta_{t+1}[u] = sum_v W[u,v] (theta_t[v] - eta (g_{v,t} + sigma z_{v,t})).
 * Unrolled: theta_2 = W^2 theta_0 - eta W^2 (g_0 + sigma z_0) - eta W (g_1 + sigma z_1).
 * W and W^2 below are written out by hand (dyadic: every product is exact).
 */
static const double W[3][3] = {{0.5, 0.5, 0.0}, {0.25, 0.5, 0.25}, {0.0, 0.5, 0.5}};
static const double W2[3][3] = {
    {0.375, 0.5, 0.125}, /* 1/2*1/2+1/2*1/4, 1/2*1/2+1/2*1/2, 1/2*1/4 */
    {0.25, 0.5, 0.25},
    {0.125, 0.5, 0.375},
};
static const double ETA = 0.5, SIGMA = 2.0;
static const double THETA0[2] = {1.0, -1.0};
/* g[t][u] and z[t][u], 2 coordinates each, small integers. */
static const double G[2][3][2] = {{{1, 2}, {-3, 0}, {4, -1}}, {{0, 5}, {2, 2}, {-1, -6}}};
static const double Z[2][3][2] = {{{1, -1}, {0, 2}, {-2, 1}}, {{3, 0}, {-1, -1}, {1, 4}}};

static void test_dsgd_by_hand(gconstpointer data) {
  SimLinSpace *s = make_space(3, 2, STORAGE(data), 0);
  SimNoiseRegistry *reg = sim_lin_space_noise(s);
  GError *err = NULL;
  SimLinvec *theta[3], *half[3];
  SimNoiseId zid[2][3];
  for (guint u = 0; u < 3; u++) {
    theta[u] = sim_linvec_new(s);
    g_assert_true(sim_linvec_add_public(theta[u], 1.0, THETA0, &err));
  }
  for (guint t = 0; t < 2; t++) {
    for (guint u = 0; u < 3; u++) {
      half[u] = sim_linvec_dup(theta[u]);
      g_assert_true(sim_linvec_add_gradient(half[u], -ETA, u, t, G[t][u], &err));
      zid[t][u] = sim_noise_register_local(reg, SIGMA, u, t, &err);
      g_assert_true(sim_linvec_add_noise(half[u], -ETA, zid[t][u], Z[t][u], &err));
      g_assert_no_error(err);
    }
    for (guint u = 0; u < 3; u++) {
      sim_linvec_zero(theta[u]);
      for (guint v = 0; v < 3; v++)
        g_assert_true(sim_linvec_axpy(theta[u], W[u][v], half[v], &err));
    }
    for (guint u = 0; u < 3; u++)
      sim_linvec_free(half[u]);
  }
  g_assert_no_error(err);
  g_assert_cmpuint(sim_lin_space_n_rounds(s), ==, 2);
  g_assert_cmpuint(sim_noise_registry_count(reg), ==, 6);

  for (guint u = 0; u < 3; u++) {
    gsize nnz_grad = 0;
    for (guint v = 0; v < 3; v++) {
      g_assert_cmpfloat(sim_linvec_grad_coeff(theta[u], v, 0), ==, -ETA * W2[u][v]);
      g_assert_cmpfloat(sim_linvec_grad_coeff(theta[u], v, 1), ==, -ETA * W[u][v]);
      /* Noise in units of z: -eta * sigma * weight. */
      g_assert_cmpfloat(sim_linvec_noise_coeff(theta[u], zid[0][v]), ==, -ETA * SIGMA * W2[u][v]);
      g_assert_cmpfloat(sim_linvec_noise_coeff(theta[u], zid[1][v]), ==, -ETA * SIGMA * W[u][v]);
      nnz_grad += (W2[u][v] != 0) + (W[u][v] != 0);
    }
    g_assert_cmpfloat(sim_linvec_grad_coeff(theta[u], 0, 2), ==, 0.0); /* future round */
    g_assert_cmpuint(sim_linvec_nnz(theta[u], SIM_LIN_GRAD), ==, nnz_grad);
    g_assert_cmpuint(sim_linvec_nnz(theta[u], SIM_LIN_NOISE), ==, nnz_grad);
    g_assert_cmpuint(sim_linvec_nnz(theta[u], SIM_LIN_BOTH), ==, 2 * nnz_grad);

    /* Numeric part against the unrolled closed form. */
    const double *x = sim_linvec_const_data(theta[u]);
    for (int i = 0; i < 2; i++) {
      double want = THETA0[i]; /* W is row-stochastic: W^2 theta_0 = theta_0 */
      for (guint v = 0; v < 3; v++)
        want += -ETA * W2[u][v] * (G[0][v][i] + SIGMA * Z[0][v][i]) -
                ETA * W[u][v] * (G[1][v][i] + SIGMA * Z[1][v][i]);
      g_assert_cmpfloat(x[i], ==, want); /* dyadic: exact */
    }
  }
  /* theta_2[0][0] = 1 - 0.5 (3/8*3 + 1/2*(-3) + 1/8*0) - 0.5 (1/2*6 + 1/2*0) = -0.3125 */
  g_assert_cmpfloat(sim_linvec_const_data(theta[0])[0], ==, -0.3125);

  /* Iteration of node 0's gradient row: columns t*n+u in increasing order,
   * slot (2, 1) absent because W[0][2] = 0. */
  static const guint32 cols[5] = {0, 1, 2, 3, 4};
  SimLinvecIter it;
  sim_linvec_iter_init(&it, theta[0], SIM_LIN_GRAD);
  SimLinPart part;
  guint32 col;
  double c;
  for (int i = 0; i < 5; i++) {
    g_assert_true(sim_linvec_iter_next(&it, &part, &col, &c));
    g_assert_cmpint(part, ==, SIM_LIN_GRAD);
    g_assert_cmpuint(col, ==, cols[i]);
    guint u, t;
    sim_lin_space_grad_slot(s, col, &u, &t);
    g_assert_cmpuint(sim_lin_space_grad_column(s, u, t), ==, col);
    g_assert_cmpfloat(c, ==, t == 0 ? -ETA * W2[0][u] : -ETA * W[0][u]);
  }
  g_assert_false(sim_linvec_iter_next(&it, NULL, NULL, NULL));

  /* Rows of A and B. */
  double row[6];
  g_assert_true(sim_linvec_row(theta[2], SIM_LIN_GRAD, row, 6, &err));
  for (guint v = 0; v < 3; v++) {
    g_assert_cmpfloat(row[v], ==, -ETA * W2[2][v]);
    g_assert_cmpfloat(row[3 + v], ==, -ETA * W[2][v]);
  }
  g_assert_true(sim_linvec_row(theta[2], SIM_LIN_NOISE, row, 6, &err));
  for (guint v = 0; v < 3; v++) {
    g_assert_cmpfloat(row[zid[0][v]], ==, -ETA * SIGMA * W2[2][v]);
    g_assert_cmpfloat(row[zid[1][v]], ==, -ETA * SIGMA * W[2][v]);
  }
  g_assert_false(sim_linvec_row(theta[2], SIM_LIN_GRAD, row, 4, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_CAPACITY);
  g_clear_error(&err);
  g_assert_false(sim_linvec_row(theta[2], SIM_LIN_BOTH, row, 6, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);

  /* <A_0, A_2> = eta^2 (<W2[0], W2[2]> + <W[0], W[2]>) = 1/4 (22/64 + 16/64). */
  g_assert_cmpfloat(sim_linvec_dot(theta[0], theta[2], SIM_LIN_GRAD), ==, 38.0 / 256);
  g_assert_cmpfloat(sim_linvec_dot(theta[0], theta[2], SIM_LIN_NOISE), ==, 4 * 38.0 / 256);
  g_assert_cmpfloat(sim_linvec_dot(theta[0], theta[2], SIM_LIN_BOTH), ==, 5 * 38.0 / 256);

  for (guint u = 0; u < 3; u++)
    sim_linvec_free(theta[u]);
  sim_lin_space_unref(s);
}

/* ------------------------------------------------------------------------
 * Randomized: the same operations on a dense and a sparse pool must give
 * identical coefficients, and the numeric part must equal the provenance
 * applied to the recorded gradients and noise samples. A third, data-only
 * pool must carry the same numbers and no provenance at all.
 */
#define POOL 8
#define RN 5 /* nodes */
#define RD 3 /* dimension */
#define RMAX_T 48

/* The same operations run on three pools: dense, sparse and data-only
 * (SIM_LIN_NONE), whose numbers must match the others bit for bit. */
#define NSTORE 3
static const SimLinStorage storages[NSTORE] = {SIM_LIN_DENSE, SIM_LIN_SPARSE, SIM_LIN_NONE};

typedef struct {
  SimNoiseRegistry *reg;
  SimLinSpace *space[NSTORE];
  SimLinvec *pool[NSTORE][POOL];
  GArray *zsamples;          /* RD doubles per noise id */
  double g[RMAX_T * RN][RD]; /* g(u, t) at column t*n+u */
  guint cur_round;
} Rand;

static const double *grad_of(Rand *r, guint32 col) {
  return r->g[col];
}

static const double *z_of(Rand *r, SimNoiseId k) {
  return &g_array_index(r->zsamples, double, (gsize)k *RD);
}

static double rand_coeff(GRand *rng) {
  static const double fixed[] = {1.0, -1.0, 0.5, -0.25, 0.75, 2.0};
  if (g_rand_boolean(rng))
    return fixed[g_rand_int_range(rng, 0, G_N_ELEMENTS(fixed))];
  return g_rand_double_range(rng, -1.5, 1.5);
}

static void compare_pools(Rand *r) {
  guint n_noise = sim_noise_registry_count(r->reg);
  guint32 n_grad = RN * (r->cur_round + 1);
  for (int i = 0; i < POOL; i++) {
    SimLinvec *dv = r->pool[0][i], *sv = r->pool[1][i];
    for (guint t = 0; t <= r->cur_round + 1; t++)
      for (guint u = 0; u < RN; u++)
        g_assert_cmpfloat(sim_linvec_grad_coeff(dv, u, t), ==, sim_linvec_grad_coeff(sv, u, t));
    for (SimNoiseId k = 0; k < n_noise + 2; k++)
      g_assert_cmpfloat(sim_linvec_noise_coeff(dv, k), ==, sim_linvec_noise_coeff(sv, k));
    g_assert_cmpuint(sim_linvec_nnz(dv, SIM_LIN_GRAD), ==, sim_linvec_nnz(sv, SIM_LIN_GRAD));
    g_assert_cmpuint(sim_linvec_nnz(dv, SIM_LIN_NOISE), ==, sim_linvec_nnz(sv, SIM_LIN_NOISE));
    /* Numeric parts go through identical code: bit-identical. */
    g_assert_cmpmem(sim_linvec_const_data(dv), RD * sizeof(double), sim_linvec_const_data(sv),
                    RD * sizeof(double));
    SimLinvec *nv = r->pool[2][i];
    g_assert_cmpmem(sim_linvec_const_data(dv), RD * sizeof(double), sim_linvec_const_data(nv),
                    RD * sizeof(double));
    g_assert_cmpuint(sim_linvec_nnz(nv, SIM_LIN_BOTH), ==, 0);
    g_assert_true(isnan(sim_linvec_grad_coeff(nv, 0, 0)));
    g_assert_true(isnan(sim_linvec_noise_coeff(nv, 0)));
    g_assert_true(isnan(sim_linvec_dot(nv, r->pool[2][(i + 1) % POOL], SIM_LIN_BOTH)));
    SimLinvecIter ni;
    sim_linvec_iter_init(&ni, nv, SIM_LIN_BOTH);
    g_assert_false(sim_linvec_iter_next(&ni, NULL, NULL, NULL));

    /* Iterations agree term by term; the sparse one never shows a zero. */
    SimLinvecIter di, si;
    sim_linvec_iter_init(&di, dv, SIM_LIN_BOTH);
    sim_linvec_iter_init(&si, sv, SIM_LIN_BOTH);
    SimLinPart dp, sp;
    guint32 dc, sc;
    double dx, sx;
    gsize count = 0;
    /* Second, independent evaluation of the numeric part. */
    double eval[RD] = {0}, mag[RD] = {0};
    while (sim_linvec_iter_next(&di, &dp, &dc, &dx)) {
      g_assert_true(sim_linvec_iter_next(&si, &sp, &sc, &sx));
      g_assert_cmpint(dp, ==, sp);
      g_assert_cmpuint(dc, ==, sc);
      g_assert_cmpfloat(dx, ==, sx);
      g_assert_cmpfloat(sx, !=, 0.0);
      const double *w = dp == SIM_LIN_GRAD ? grad_of(r, dc) : z_of(r, dc);
      if (dp == SIM_LIN_GRAD)
        g_assert_cmpuint(dc, <, n_grad);
      else
        g_assert_cmpuint(dc, <, n_noise);
      for (int j = 0; j < RD; j++) {
        eval[j] += dx * w[j];
        mag[j] += fabs(dx * w[j]);
      }
      count++;
    }
    g_assert_false(sim_linvec_iter_next(&si, NULL, NULL, NULL));
    g_assert_cmpuint(count, ==, sim_linvec_nnz(sv, SIM_LIN_BOTH));
    const double *x = sim_linvec_const_data(dv);
    for (int j = 0; j < RD; j++)
      g_assert_cmpfloat_with_epsilon(x[j], eval[j], 1e-11 * (mag[j] + 1.0));

    /* Dots with every other member, both parts. */
    for (int k = 0; k < POOL; k++)
      for (int p = SIM_LIN_GRAD; p <= SIM_LIN_BOTH; p++)
        g_assert_cmpfloat(sim_linvec_dot(dv, r->pool[0][k], p), ==,
                          sim_linvec_dot(sv, r->pool[1][k], p));
  }
}

/* Keeps magnitudes bounded: repeated axpy would otherwise grow geometrically. */
static void renormalize(Rand *r) {
  for (int i = 0; i < POOL; i++) {
    SimLinvecIter it;
    double c, big = 0.0;
    sim_linvec_iter_init(&it, r->pool[1][i], SIM_LIN_BOTH);
    while (sim_linvec_iter_next(&it, NULL, NULL, &c))
      big = MAX(big, fabs(c));
    if (big > 1e6)
      for (int s = 0; s < NSTORE; s++)
        g_assert_true(sim_linvec_scale(r->pool[s][i], 0x1p-24, NULL));
  }
}

static void run_random(guint32 seed, int n_ops) {
  GRand *rng = g_rand_new_with_seed(seed);
  Rand *r = g_new0(Rand, 1);
  r->reg = sim_noise_registry_new(RN, NULL);
  r->zsamples = g_array_new(FALSE, FALSE, sizeof(double));
  for (int s = 0; s < NSTORE; s++) {
    r->space[s] = sim_lin_space_new(r->reg, RD, storages[s], 0, NULL);
    for (int i = 0; i < POOL; i++)
      r->pool[s][i] = sim_linvec_new(r->space[s]);
  }
  for (int c = 0; c < RMAX_T * RN; c++)
    for (int j = 0; j < RD; j++)
      r->g[c][j] = g_rand_double_range(rng, -1, 1);

  int counts[10] = {0};
  for (int op = 0; op < n_ops; op++) {
    int kind = g_rand_int_range(rng, 0, 10);
    int i = g_rand_int_range(rng, 0, POOL), j = g_rand_int_range(rng, 0, POOL);
    double a = rand_coeff(rng);
    counts[kind]++;
    if (kind == 0 && r->cur_round + 1 < RMAX_T && g_rand_int_range(rng, 0, 8) == 0)
      r->cur_round++;
    switch (kind) {
    case 0:
    case 1: { /* gradient slot, mostly recent rounds, sometimes old ones */
      guint u = g_rand_int_range(rng, 0, RN);
      guint t = g_rand_boolean(rng) ? r->cur_round
                                    : (guint)g_rand_int_range(rng, 0, r->cur_round + 1);
      guint32 col = sim_lin_space_grad_column(r->space[0], u, t);
      for (int s = 0; s < NSTORE; s++)
        g_assert_true(sim_linvec_add_gradient(r->pool[s][i], a, u, t, grad_of(r, col), NULL));
      break;
    }
    case 2: { /* noise: a fresh variable or an existing one */
      guint count = sim_noise_registry_count(r->reg);
      SimNoiseId k;
      if (count == 0 || g_rand_int_range(rng, 0, 3) == 0) {
        static const double stds[] = {1.0, 0.5, 3.0, 0.0, 1.7};
        double std = stds[g_rand_int_range(rng, 0, G_N_ELEMENTS(stds))];
        guint u = g_rand_int_range(rng, 0, RN), v = (u + 1 + g_rand_int_range(rng, 0, RN - 1)) % RN;
        k = g_rand_boolean(rng) ? sim_noise_register_local(r->reg, std, u, r->cur_round, NULL)
                                : sim_noise_register_edge(r->reg, std, u, v, r->cur_round, NULL);
        g_assert_cmpuint(k, ==, count);
        for (int d = 0; d < RD; d++) {
          double z = g_rand_double_range(rng, -2, 2);
          g_array_append_val(r->zsamples, z);
        }
      } else {
        k = g_rand_int_range(rng, 0, count);
      }
      for (int s = 0; s < NSTORE; s++)
        g_assert_true(sim_linvec_add_noise(r->pool[s][i], a, k, z_of(r, k), NULL));
      break;
    }
    case 3:
    case 4:
    case 5: /* gossip-like mixing, self-axpy included when i == j */
      for (int s = 0; s < NSTORE; s++)
        g_assert_true(sim_linvec_axpy(r->pool[s][i], a, r->pool[s][j], NULL));
      break;
    case 6: { /* exact cancellation: y - y through a copy, or y = y + (-1) y */
      gboolean self = g_rand_boolean(rng);
      for (int s = 0; s < NSTORE; s++) {
        if (self) {
          g_assert_true(sim_linvec_axpy(r->pool[s][i], -1.0, r->pool[s][i], NULL));
        } else {
          g_autoptr(SimLinvec) tmp = sim_linvec_dup(r->pool[s][i]);
          g_assert_true(sim_linvec_add_gradient(tmp, 1.0, 0, r->cur_round,
                                                grad_of(r, RN * r->cur_round), NULL));
          g_assert_true(sim_linvec_axpy(r->pool[s][i], -1.0, tmp, NULL));
        }
      }
      break;
    }
    case 7:
      if (g_rand_int_range(rng, 0, 6) == 0)
        a = 0.0;
      for (int s = 0; s < NSTORE; s++)
        g_assert_true(sim_linvec_scale(r->pool[s][i], a, NULL));
      break;
    case 8:
      for (int s = 0; s < NSTORE; s++)
        g_assert_true(sim_linvec_copy(r->pool[s][i], r->pool[s][j], NULL));
      break;
    case 9: {
      gboolean zero = g_rand_int_range(rng, 0, 4) == 0;
      for (int s = 0; s < NSTORE; s++) {
        if (zero) {
          sim_linvec_zero(r->pool[s][i]);
        } else {
          SimLinvec *d = sim_linvec_dup(r->pool[s][j]); /* before the free: i may be j */
          sim_linvec_free(r->pool[s][i]);
          r->pool[s][i] = d;
        }
      }
      break;
    }
    }
    if (op % 64 == 63) {
      renormalize(r);
      compare_pools(r);
    }
  }
  renormalize(r);
  compare_pools(r);
  /* The mix did exercise what it claims to. */
  g_assert_cmpuint(sim_noise_registry_count(r->reg), >, 50);
  g_assert_cmpuint(sim_lin_space_n_rounds(r->space[0]), >, 10);
  g_assert_cmpuint(sim_lin_space_n_rounds(r->space[2]), ==, sim_lin_space_n_rounds(r->space[0]));
  for (int k = 0; k < 9; k++)
    g_assert_cmpint(counts[k], >, n_ops / 20);

  for (int s = 0; s < NSTORE; s++) {
    for (int i = 0; i < POOL; i++)
      sim_linvec_free(r->pool[s][i]);
    sim_lin_space_unref(r->space[s]);
  }
  sim_noise_registry_unref(r->reg);
  g_array_free(r->zsamples, TRUE);
  g_free(r);
  g_rand_free(rng);
}

static void test_random_dense_vs_sparse(void) {
  for (guint32 seed = 1; seed <= 4; seed++)
    run_random(seed, 3000);
}

/* ------------------------------------------------------------------------ */

static void test_operations(gconstpointer data) {
  SimLinSpace *s = make_space(2, 2, STORAGE(data), 0);
  SimNoiseRegistry *reg = sim_lin_space_noise(s);
  GError *err = NULL;
  const double g00[2] = {1, 2}, g11[2] = {-1, 4}, z0[2] = {0.5, -0.5};
  SimNoiseId k0 = sim_noise_register_local(reg, 4.0, 0, 0, NULL);
  g_autoptr(SimLinvec) x = sim_linvec_new(s);
  g_assert_cmpuint(sim_linvec_dim(x), ==, 2);
  g_assert_cmpuint(sim_linvec_nnz(x, SIM_LIN_BOTH), ==, 0);
  g_assert_true(sim_linvec_add_gradient(x, 3.0, 0, 0, g00, &err));
  g_assert_true(sim_linvec_add_gradient(x, 0.5, 1, 1, g11, &err));
  g_assert_true(sim_linvec_add_noise(x, -0.25, k0, z0, &err));
  g_assert_no_error(err);
  /* x = 3 g00 + 0.5 g11 - 0.25 * 4 z0 = (3 - 0.5 - 0.5, 6 + 2 + 0.5) */
  g_assert_cmpfloat(sim_linvec_data(x)[0], ==, 2.0);
  g_assert_cmpfloat(sim_linvec_data(x)[1], ==, 8.5);
  g_assert_cmpfloat(sim_linvec_noise_coeff(x, k0), ==, -1.0);

  /* Repeated slot accumulates; a cancelling addition removes the term. */
  g_assert_true(sim_linvec_add_gradient(x, 1.0, 0, 0, g00, NULL));
  g_assert_cmpfloat(sim_linvec_grad_coeff(x, 0, 0), ==, 4.0);
  g_assert_true(sim_linvec_add_gradient(x, -0.5, 1, 1, g11, NULL));
  g_assert_cmpfloat(sim_linvec_grad_coeff(x, 1, 1), ==, 0.0);
  g_assert_cmpuint(sim_linvec_nnz(x, SIM_LIN_GRAD), ==, 1);

  g_autoptr(SimLinvec) y = sim_linvec_dup(x);
  g_assert_cmpfloat(sim_linvec_dot(x, y, SIM_LIN_GRAD), ==, 16.0);
  g_assert_true(sim_linvec_axpy(y, 0.5, y, NULL)); /* y = 1.5 x */
  g_assert_cmpfloat(sim_linvec_grad_coeff(y, 0, 0), ==, 6.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(y, k0), ==, -1.5);
  g_assert_cmpfloat(sim_linvec_data(y)[0], ==, 1.5 * sim_linvec_data(x)[0]);
  g_assert_true(sim_linvec_axpy(y, 0.0, x, NULL)); /* no-op */
  g_assert_cmpfloat(sim_linvec_grad_coeff(y, 0, 0), ==, 6.0);
  g_assert_true(sim_linvec_scale(y, -2.0, NULL));
  g_assert_cmpfloat(sim_linvec_grad_coeff(y, 0, 0), ==, -12.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(y, k0), ==, 3.0);
  g_assert_true(sim_linvec_axpy(y, 3.0, x, NULL)); /* -3 x + 3 x = 0 */
  g_assert_cmpuint(sim_linvec_nnz(y, SIM_LIN_BOTH), ==, 0);
  g_assert_cmpfloat(sim_linvec_data(y)[0], ==, 0.0);

  /* Underflow to zero drops the terms too. */
  g_assert_true(sim_linvec_copy(y, x, NULL));
  g_assert_true(sim_linvec_copy(y, y, NULL));
  g_assert_cmpuint(sim_linvec_nnz(y, SIM_LIN_BOTH), ==, 2);
  g_assert_true(sim_linvec_scale(y, 1e-300, NULL));
  g_assert_true(sim_linvec_scale(y, 1e-300, NULL));
  g_assert_cmpuint(sim_linvec_nnz(y, SIM_LIN_BOTH), ==, 0);

  /* Noise with std 0 never shows in provenance. */
  SimNoiseId kz = sim_noise_register_local(reg, 0.0, 1, 0, NULL);
  g_assert_true(sim_linvec_add_noise(y, 5.0, kz, z0, NULL));
  g_assert_cmpuint(sim_linvec_nnz(y, SIM_LIN_NOISE), ==, 0);

  /* Iteration over BOTH: gradient part first, then noise, each in order. */
  g_assert_true(sim_linvec_add_gradient(x, 1.0, 1, 0, g00, NULL));
  SimNoiseId k2 = sim_noise_register_edge(reg, 1.0, 1, 0, 0, NULL);
  g_assert_true(sim_linvec_add_noise(x, 2.0, k2, z0, NULL));
  SimLinvecIter it;
  sim_linvec_iter_init(&it, x, SIM_LIN_BOTH);
  static const struct {
    SimLinPart p;
    guint32 col;
    double c;
  } want[] = {{SIM_LIN_GRAD, 0, 4.0},
              {SIM_LIN_GRAD, 1, 1.0},
              {SIM_LIN_NOISE, 0, -1.0},
              {SIM_LIN_NOISE, 2, 2.0}};
  for (gsize i = 0; i < G_N_ELEMENTS(want); i++) {
    SimLinPart p;
    guint32 col;
    double c;
    g_assert_true(sim_linvec_iter_next(&it, &p, &col, &c));
    g_assert_cmpint(p, ==, want[i].p);
    g_assert_cmpuint(col, ==, want[i].col);
    g_assert_cmpfloat(c, ==, want[i].c);
  }
  g_assert_false(sim_linvec_iter_next(&it, NULL, NULL, NULL));
  sim_linvec_iter_init(&it, x, SIM_LIN_NOISE);
  guint32 col;
  g_assert_true(sim_linvec_iter_next(&it, NULL, &col, NULL));
  g_assert_cmpuint(col, ==, 0);

  /* Zero clears data and provenance; public constants touch data only. */
  sim_linvec_zero(x);
  g_assert_cmpuint(sim_linvec_nnz(x, SIM_LIN_BOTH), ==, 0);
  g_assert_cmpfloat(sim_linvec_data(x)[1], ==, 0.0);
  g_assert_true(sim_linvec_add_public(x, 2.0, g11, NULL));
  g_assert_cmpfloat(sim_linvec_data(x)[1], ==, 8.0);
  g_assert_cmpuint(sim_linvec_nnz(x, SIM_LIN_BOTH), ==, 0);
  g_assert_true(sim_linvec_space(x) == s);
  sim_lin_space_unref(s); /* x and y keep it alive */
}

/*
 * Long shared runs of columns (the gossip case the sparse merge updates in
 * place), a column only y has, one only x has, and cancellation inside the
 * shared run. One node, so gradient column = round.
 *   x = sum_{c < 1000} (c % 7 + 1) g_c
 *   y = sum_{c < 1000, c != 500} w_c g_c + 4 g_1500, w_c = -(c % 7 + 1) for c < 300, 0.5 after
 * y + x: columns < 300 cancel exactly, 300..999 except 500 give c % 7 + 1.5,
 * column 500 gives 500 % 7 + 1 = 4, column 1500 keeps 4.
 */
static void test_long_runs(gconstpointer data) {
  SimLinSpace *s = make_space(1, 0, STORAGE(data), 0);
  g_autoptr(SimLinvec) x = sim_linvec_new(s);
  g_autoptr(SimLinvec) y = sim_linvec_new(s);
  for (guint c = 0; c < 1000; c++) {
    g_assert_true(sim_linvec_add_gradient(x, c % 7 + 1.0, 0, c, NULL, NULL));
    if (c != 500)
      g_assert_true(sim_linvec_add_gradient(y, c < 300 ? -(c % 7 + 1.0) : 0.5, 0, c, NULL, NULL));
  }
  g_assert_true(sim_linvec_add_gradient(y, 4.0, 0, 1500, NULL, NULL));
  g_autoptr(SimLinvec) y0 = sim_linvec_dup(y);
  g_assert_true(sim_linvec_axpy(y, 1.0, x, NULL));
  g_assert_cmpuint(sim_linvec_nnz(y, SIM_LIN_GRAD), ==, 701);
  for (guint c = 0; c < 1600; c++) {
    double want = c < 300 || (c >= 1000 && c != 1500) ? 0.0
                  : c == 500 || c == 1500             ? 4.0
                                                      : c % 7 + 1.5;
    g_assert_cmpfloat(sim_linvec_grad_coeff(y, 0, c), ==, want);
  }
  /* Identical patterns: the whole merge is in place. y0 - y0 / 2 * 2 = 0. */
  g_autoptr(SimLinvec) z = sim_linvec_dup(y0);
  g_assert_true(sim_linvec_scale(z, -0.5, NULL));
  g_assert_true(sim_linvec_axpy(z, 0.5, y0, NULL));
  g_assert_cmpuint(sim_linvec_nnz(z, SIM_LIN_BOTH), ==, 0);
  /* x's pattern inside y's: no entry moves, values add. */
  g_assert_true(sim_linvec_copy(z, x, NULL));
  g_assert_true(sim_linvec_add_gradient(z, 1.0, 0, 2000, NULL, NULL));
  g_assert_true(sim_linvec_axpy(z, -2.0, x, NULL));
  g_assert_cmpuint(sim_linvec_nnz(z, SIM_LIN_GRAD), ==, 1001);
  g_assert_cmpfloat(sim_linvec_grad_coeff(z, 0, 999), ==, -(999 % 7 + 1.0));
  g_assert_cmpfloat(sim_linvec_grad_coeff(z, 0, 2000), ==, 1.0);
  sim_lin_space_unref(s);
}

/* d = 0: provenance only, no numeric data anywhere. */
static void test_accounting_only(gconstpointer data) {
  SimLinSpace *s = make_space(4, 0, STORAGE(data), 0);
  GError *err = NULL;
  SimNoiseId k = sim_noise_register_local(sim_lin_space_noise(s), 2.0, 3, 0, NULL);
  g_autoptr(SimLinvec) v = sim_linvec_new(s);
  g_assert_null(sim_linvec_data(v));
  g_assert_cmpuint(sim_linvec_dim(v), ==, 0);
  g_assert_true(sim_linvec_add_gradient(v, 0.5, 3, 2, NULL, &err));
  g_assert_true(sim_linvec_add_noise(v, 0.5, k, NULL, &err));
  g_assert_true(sim_linvec_add_public(v, 1.0, NULL, &err));
  g_assert_no_error(err);
  g_autoptr(SimLinvec) w = sim_linvec_dup(v);
  g_assert_true(sim_linvec_axpy(w, 1.0, v, &err));
  g_assert_cmpfloat(sim_linvec_grad_coeff(w, 3, 2), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(w, k), ==, 2.0);
  g_assert_cmpuint(sim_lin_space_n_rounds(s), ==, 3);
  /* A numeric vector in an accounting-only space is a caller bug. */
  const double g[1] = {1.0};
  g_assert_false(sim_linvec_add_gradient(v, 1.0, 0, 0, g, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_cmpuint(sim_linvec_nnz(v, SIM_LIN_BOTH), ==, 2);
  sim_lin_space_unref(s);
}

/* SIM_LIN_NONE: the numbers of a D-SGD step, no provenance, same checks. */
static void test_data_only(void) {
  SimLinSpace *s = make_space(3, 2, SIM_LIN_NONE, 4);
  g_assert_cmpint(sim_lin_space_storage(s), ==, SIM_LIN_NONE);
  SimNoiseRegistry *reg = sim_lin_space_noise(s);
  GError *err = NULL;
  SimNoiseId k = sim_noise_register_local(reg, SIGMA, 1, 0, &err);
  g_assert_no_error(err);
  g_autoptr(SimLinvec) v = sim_linvec_new(s);
  g_assert_true(sim_linvec_add_public(v, 1.0, THETA0, &err));
  g_assert_true(sim_linvec_add_gradient(v, -ETA, 1, 0, G[0][1], &err));
  g_assert_true(sim_linvec_add_noise(v, -ETA, k, Z[0][1], &err));
  g_assert_no_error(err);
  /* theta0 - eta (g + sigma z) = (1, -1) - 0.5 ((-3, 0) + 2 (0, 2)) = (2.5, -3). */
  const double *x = sim_linvec_const_data(v);
  g_assert_cmpfloat(x[0], ==, 2.5);
  g_assert_cmpfloat(x[1], ==, -3.0);
  g_autoptr(SimLinvec) w = sim_linvec_dup(v);
  g_assert_true(sim_linvec_axpy(w, 0.5, v, &err));
  g_assert_true(sim_linvec_scale(w, 2.0, &err));
  g_assert_cmpfloat(sim_linvec_const_data(w)[0], ==, 7.5);
  g_assert_cmpfloat(sim_linvec_const_data(w)[1], ==, -9.0);
  g_assert_cmpuint(sim_lin_space_n_rounds(s), ==, 1);

  /* No provenance to read. */
  g_assert_true(isnan(sim_linvec_grad_coeff(v, 1, 0)));
  g_assert_true(isnan(sim_linvec_noise_coeff(v, k)));
  g_assert_true(isnan(sim_linvec_dot(v, w, SIM_LIN_GRAD)));
  g_assert_cmpuint(sim_linvec_nnz(v, SIM_LIN_BOTH), ==, 0);
  double row[6];
  g_assert_false(sim_linvec_row(v, SIM_LIN_GRAD, row, 6, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);

  /* Arguments are still checked, and nothing changes on error. */
  g_assert_false(sim_linvec_add_gradient(v, -ETA, 0, 4, G[0][0], &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_CAPACITY);
  g_clear_error(&err);
  g_assert_false(sim_linvec_add_noise(v, 1.0, k + 1, Z[0][0], &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(sim_linvec_add_gradient(v, NAN, 0, 0, G[0][0], &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_cmpfloat(x[0], ==, 2.5);
  g_assert_cmpfloat(x[1], ==, -3.0);
  sim_linvec_zero(v);
  g_assert_cmpfloat(x[0], ==, 0.0);
  sim_lin_space_unref(s);
}

/* Rounds beyond any initial guess, the declared bound, the 32-bit bound. */
static void test_growth(gconstpointer data) {
  SimLinStorage st = STORAGE(data);
  GError *err = NULL;
  SimLinSpace *s = make_space(3, 1, st, 0);
  g_assert_cmpuint(sim_lin_space_max_rounds(s), ==, 0);
  g_autoptr(SimLinvec) v = sim_linvec_new(s);
  const double one[1] = {1.0};
  g_assert_true(sim_linvec_add_gradient(v, 1.0, 2, 0, one, &err));
  g_assert_true(sim_linvec_add_gradient(v, 2.0, 1, 1000, one, &err));
  g_assert_true(sim_linvec_add_gradient(v, 3.0, 0, 5, one, &err));
  g_assert_no_error(err);
  g_assert_cmpuint(sim_lin_space_n_rounds(s), ==, 1001);
  g_assert_cmpfloat(sim_linvec_grad_coeff(v, 2, 0), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_grad_coeff(v, 1, 1000), ==, 2.0);
  g_assert_cmpfloat(sim_linvec_grad_coeff(v, 0, 5), ==, 3.0);
  g_assert_cmpfloat(sim_linvec_grad_coeff(v, 0, 1000), ==, 0.0);
  g_assert_cmpuint(sim_linvec_nnz(v, SIM_LIN_GRAD), ==, 3);
  /* Noise columns grow with the registry: 300 variables, coefficient on each. */
  SimNoiseRegistry *reg = sim_lin_space_noise(s);
  for (guint k = 0; k < 300; k++) {
    SimNoiseId id = sim_noise_register_local(reg, 1.0, k % 3, k, NULL);
    g_assert_true(sim_linvec_add_noise(v, k + 1.0, id, one, NULL));
  }
  g_assert_cmpuint(sim_linvec_nnz(v, SIM_LIN_NOISE), ==, 300);
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, 299), ==, 300.0);
  g_assert_cmpfloat(sim_linvec_const_data(v)[0], ==, 6.0 + 300.0 * 301.0 / 2.0);
  sim_lin_space_unref(s);

  /* Declared capacity: a clear error and no change. */
  SimLinSpace *b = make_space(3, 1, st, 4);
  g_autoptr(SimLinvec) w = sim_linvec_new(b);
  g_assert_true(sim_linvec_add_gradient(w, 1.0, 0, 3, one, &err));
  g_assert_false(sim_linvec_add_gradient(w, 1.0, 0, 4, one, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_CAPACITY);
  g_assert_nonnull(strstr(err->message, "max_rounds"));
  g_clear_error(&err);
  g_assert_cmpuint(sim_linvec_nnz(w, SIM_LIN_GRAD), ==, 1);
  g_assert_cmpfloat(sim_linvec_const_data(w)[0], ==, 1.0);
  g_assert_cmpuint(sim_lin_space_n_rounds(b), ==, 4);
  sim_lin_space_unref(b);

  /* 32-bit columns: n = 1000 allows t < floor((2^32 - 1) / 1000) = 4294967. */
  SimLinSpace *big = make_space(1000, 0, st, 0);
  g_autoptr(SimLinvec) x = sim_linvec_new(big);
  g_assert_false(sim_linvec_add_gradient(x, 1.0, 999, 4294967, NULL, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_CAPACITY);
  g_clear_error(&err);
  if (st == SIM_LIN_SPARSE) { /* dense would allocate all 4.29e9 columns */
    g_assert_true(sim_linvec_add_gradient(x, 1.0, 999, 4294966, NULL, &err));
    g_assert_no_error(err);
    SimLinvecIter it;
    guint32 col;
    guint u, t;
    sim_linvec_iter_init(&it, x, SIM_LIN_GRAD);
    g_assert_true(sim_linvec_iter_next(&it, NULL, &col, NULL));
    g_assert_cmpuint(col, ==, 4294966999u);
    sim_lin_space_grad_slot(big, col, &u, &t);
    g_assert_cmpuint(u, ==, 999);
    g_assert_cmpuint(t, ==, 4294966);
    g_assert_cmpfloat(sim_linvec_grad_coeff(x, 999, 4294966), ==, 1.0);
  }
  g_assert_cmpfloat(sim_linvec_grad_coeff(x, 0, 4294967), ==, 0.0);
  sim_lin_space_unref(big);
}

static void test_invalid_arguments(gconstpointer data) {
  SimLinStorage st = STORAGE(data);
  GError *err = NULL;
  SimLinSpace *s = make_space(3, 2, st, 0);
  SimLinSpace *other = make_space(3, 2, st, 0);
  g_autoptr(SimLinvec) v = sim_linvec_new(s);
  g_autoptr(SimLinvec) w = sim_linvec_new(other);
  const double g[2] = {1, 1};
  SimNoiseId k = sim_noise_register_local(sim_lin_space_noise(s), 1.0, 0, 0, NULL);
  g_assert_true(sim_linvec_add_gradient(v, 1.0, 1, 0, g, NULL));
  g_assert_true(sim_linvec_add_noise(v, 1.0, k, g, NULL));

#define EXPECT_FAIL(call, code)                                                                    \
  do {                                                                                             \
    g_assert_false(call);                                                                          \
    g_assert_error(err, SIM_ERROR, code);                                                          \
    g_clear_error(&err);                                                                           \
  } while (0)
  EXPECT_FAIL(sim_linvec_add_gradient(v, 1.0, 3, 0, g, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_add_gradient(v, NAN, 0, 0, g, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_add_gradient(v, 1.0, 0, 0, NULL, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_add_noise(v, 1.0, k + 1, g, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_add_noise(v, INFINITY, k, g, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_add_noise(v, 1.0, k, NULL, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_axpy(v, 1.0, w, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_axpy(v, NAN, v, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_copy(v, w, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_scale(v, -INFINITY, &err), SIM_ERROR_INVALID_ARGUMENT);
  EXPECT_FAIL(sim_linvec_add_public(v, 1.0, NULL, &err), SIM_ERROR_INVALID_ARGUMENT);
  /* None of the failures touched v. */
  g_assert_cmpuint(sim_linvec_nnz(v, SIM_LIN_BOTH), ==, 2);
  g_assert_cmpfloat(sim_linvec_grad_coeff(v, 1, 0), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_data(v)[0], ==, 2.0);

  g_assert_null(sim_lin_space_new(NULL, 1, st, 0, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(sim_lin_space_new(sim_lin_space_noise(s), 1, (SimLinStorage)7, 0, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);

  /* Programming errors: criticals and documented fallbacks. */
  EXPECT_CRITICAL();
  g_assert_cmpfloat(sim_linvec_grad_coeff(v, 3, 0), ==, 0.0);
  EXPECT_CRITICAL();
  g_assert_true(isnan(sim_linvec_dot(v, w, SIM_LIN_BOTH)));
  EXPECT_CRITICAL();
  g_assert_false(sim_linvec_axpy(NULL, 1.0, v, NULL));
  EXPECT_CRITICAL();
  g_assert_null(sim_linvec_new(NULL));
  g_test_assert_expected_messages();

  sim_lin_space_unref(s);
  sim_lin_space_unref(other);
}

/* sim_linvec_combine = zero + n axpys, bit for bit (data and provenance),
 * for 0..9 inputs (groups of 4 and their remainders) with zero weights
 * among them; refused when the result is an input, which is left as is.
 * sim_linvec_add_noise_sum = count add_noise calls: the same provenance,
 * the data to rounding (the caller's sum is formed in another order). */
static void test_combine(gconstpointer data) {
  enum { NN = 4, DIM = 37, NX = 9 };
  SimLinSpace *sp = make_space(NN, DIM, STORAGE(data), 0);
  SimNoiseRegistry *reg = sim_lin_space_noise(sp);
  GRand *rng = g_rand_new_with_seed(17);
  GError *err = NULL;
  double g[DIM], z[6][DIM];
  SimNoiseId ids[6];
  for (guint k = 0; k < 6; k++) {
    ids[k] = sim_noise_register_local(reg, 0.5 + k, k % NN, k, &err);
    g_assert_no_error(err);
    for (guint i = 0; i < DIM; i++)
      z[k][i] = g_rand_double_range(rng, -2, 2);
  }
  SimLinvec *x[NX];
  for (guint j = 0; j < NX; j++) {
    x[j] = sim_linvec_new(sp);
    for (guint i = 0; i < DIM; i++)
      g[i] = g_rand_double_range(rng, -1, 1);
    g_assert_true(sim_linvec_add_gradient(x[j], g_rand_double(rng), j % NN, j / NN, g, &err));
    g_assert_true(sim_linvec_add_noise(x[j], g_rand_double(rng), ids[j % 6], z[j % 6], &err));
  }
  double w[NX];
  for (guint j = 0; j < NX; j++)
    w[j] = j % 4 == 2 ? 0.0 : g_rand_double_range(rng, -1, 1);
  for (guint n = 0; n <= NX; n++) {
    SimLinvec *a = sim_linvec_new(sp), *b = sim_linvec_new(sp);
    g_assert_true(sim_linvec_add_noise(a, 1.0, ids[0], z[0], &err)); /* overwritten */
    g_assert_true(sim_linvec_combine(a, n, w, (const SimLinvec *const *)x, &err));
    g_assert_no_error(err);
    for (guint j = 0; j < n; j++)
      g_assert_true(sim_linvec_axpy(b, w[j], x[j], &err));
    g_assert_cmpmem(sim_linvec_const_data(a), DIM * sizeof(double), sim_linvec_const_data(b),
                    DIM * sizeof(double));
    for (guint j = 0; j < NX; j++)
      g_assert_cmpfloat(sim_linvec_grad_coeff(a, j % NN, j / NN), ==,
                        sim_linvec_grad_coeff(b, j % NN, j / NN));
    for (guint k = 0; k < 6; k++)
      g_assert_cmpfloat(sim_linvec_noise_coeff(a, ids[k]), ==, sim_linvec_noise_coeff(b, ids[k]));
    sim_linvec_free(a);
    sim_linvec_free(b);
  }
  double before[DIM];
  memcpy(before, sim_linvec_const_data(x[1]), sizeof before);
  g_assert_false(sim_linvec_combine(x[1], 3, w, (const SimLinvec *const *)x, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_cmpmem(before, sizeof before, sim_linvec_const_data(x[1]), DIM * sizeof(double));

  /* add_noise_sum against add_noise */
  double coeffs[5] = {0.3, -1.25, 2.0, 0.0, 0.7}, sum[DIM] = {0}, mag[DIM] = {0};
  SimNoiseId terms[5] = {ids[1], ids[3], ids[1], ids[4], ids[5]};
  SimLinvec *a = sim_linvec_new(sp), *b = sim_linvec_new(sp);
  for (guint t = 0; t < 5; t++) {
    double c = coeffs[t] * sim_noise_std(reg, terms[t]) / 3.0;
    for (guint i = 0; i < DIM; i++) {
      sum[i] += c * z[terms[t]][i];
      mag[i] += fabs(3.0 * c * z[terms[t]][i]);
    }
    g_assert_true(sim_linvec_add_noise(b, coeffs[t], terms[t], z[terms[t]], &err));
  }
  g_assert_true(sim_linvec_add_noise_sum(a, 5, coeffs, terms, 3.0, sum, &err));
  g_assert_no_error(err);
  for (guint i = 0; i < DIM; i++)
    /* Two sums of 5 products (each a few roundings: coeff x std, / 3, x z,
     * x 3), both bounded by 8 eps per term: 2 x 8 eps x sum |terms|. */
    dpg_test_assert_le(fabs(sim_linvec_const_data(a)[i] - sim_linvec_const_data(b)[i]),
                       2 * dpg_tol(1, 8) * mag[i],
                       "two sums of 5 terms, <= 8 roundings each, of total magnitude mag");
  for (guint k = 0; k < 6; k++)
    g_assert_cmpfloat(sim_linvec_noise_coeff(a, ids[k]), ==, sim_linvec_noise_coeff(b, ids[k]));
  SimNoiseId unknown = 99;
  g_assert_false(sim_linvec_add_noise_sum(a, 1, coeffs, &unknown, 1.0, sum, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  sim_linvec_free(a);
  sim_linvec_free(b);
  for (guint j = 0; j < NX; j++)
    sim_linvec_free(x[j]);
  g_rand_free(rng);
  sim_lin_space_unref(sp);
}

/* The column search of sparse rows against a linear scan: every value
 * below, between, on and above the entries, in whole and partial ranges. */
static void test_sorted_search(void) {
  const guint a[] = {2, 3, 3, 7, 10, 40};
  const gsize n = G_N_ELEMENTS(a);
  for (gsize lo = 0; lo <= n; lo++)
    for (gsize hi = lo; hi <= n; hi++)
      for (guint v = 0; v <= 41; v++) {
        gsize want = lo;
        while (want < hi && a[want] < v)
          want++;
        g_assert_cmpuint(sim_sorted_search(a, lo, hi, v), ==, want);
      }
  g_assert_cmpuint(sim_sorted_search(NULL, 0, 0, 5), ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  static const struct {
    const char *name;
    GTestDataFunc fn;
  } per_storage[] = {
      {"dsgd_by_hand", test_dsgd_by_hand},
      {"operations", test_operations},
      {"long_runs", test_long_runs},
      {"accounting_only", test_accounting_only},
      {"growth", test_growth},
      {"invalid_arguments", test_invalid_arguments},
      {"combine", test_combine},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(per_storage); i++) {
    g_autofree char *d = g_strdup_printf("/linvec/dense/%s", per_storage[i].name);
    g_autofree char *s = g_strdup_printf("/linvec/sparse/%s", per_storage[i].name);
    g_test_add_data_func(d, GINT_TO_POINTER(SIM_LIN_DENSE), per_storage[i].fn);
    g_test_add_data_func(s, GINT_TO_POINTER(SIM_LIN_SPARSE), per_storage[i].fn);
  }
  g_test_add_func("/linvec/random_dense_vs_sparse", test_random_dense_vs_sparse);
  g_test_add_func("/linvec/none/data_only", test_data_only);
  g_test_add_func("/linvec/sorted_search", test_sorted_search);
  return g_test_run();
}
