/*
 * bench/bench_linvec.c: linvec provenance throughput, dense vs sparse, at the
 * size of the paper's Facebook-ego runs (n = 148 nodes, T = 320 rounds).
 *
 *   linvec.<storage>.axpy_per_s      y += a x on fully mixed rows (n*T gradient
 *                                    columns + n*T local noises)
 *   linvec.<storage>.axpy_cols_per_s the same, in provenance columns per second
 *   linvec.<storage>.dsgd_T<T>_s     wall time of an accounting-only D-SGD run
 *                                    (d = 0) on a random 8-regular-ish graph
 */
#include "sim/sim.h"

#include <stdio.h>

#define N 148
#define T 320

static SimLinvec *mixed_row(SimLinSpace *s, const SimNoiseId *ids, double seed) {
  SimLinvec *v = sim_linvec_new(s);
  for (guint t = 0; t < T; t++)
    for (guint u = 0; u < N; u++) {
      double c = 1.0 / (1.0 + seed + u + 0.5 * t);
      sim_linvec_add_gradient(v, c, u, t, NULL, NULL);
      sim_linvec_add_noise(v, -c, ids[t * N + u], NULL, NULL);
    }
  return v;
}

static void bench_axpy(SimLinStorage st, const char *name) {
  SimNoiseRegistry *reg = sim_noise_registry_new(N, NULL);
  SimNoiseId *ids = g_new(SimNoiseId, N * T);
  for (guint t = 0; t < T; t++)
    for (guint u = 0; u < N; u++)
      ids[t * N + u] = sim_noise_register_local(reg, 1.0, u, t, NULL);
  SimLinSpace *s = sim_lin_space_new(reg, 0, st, 0, NULL);
  SimLinvec *x = mixed_row(s, ids, 0.0), *y = mixed_row(s, ids, 1.0);
  int reps = 0;
  gint64 t0 = g_get_monotonic_time(), t1;
  do {
    for (int i = 0; i < 50; i++)
      sim_linvec_axpy(y, (i & 1) ? -0.5 : 0.5, x, NULL);
    reps += 50;
    t1 = g_get_monotonic_time();
  } while (t1 - t0 < 1000000);
  double secs = (t1 - t0) / 1e6;
  double cols = (double)sim_linvec_nnz(x, SIM_LIN_BOTH);
  printf("linvec.%s.axpy_per_s %.3e\n", name, reps / secs);
  printf("linvec.%s.axpy_cols_per_s %.3e\n", name, reps * cols / secs);
  sim_linvec_free(x);
  sim_linvec_free(y);
  sim_lin_space_unref(s);
  sim_noise_registry_unref(reg);
  g_free(ids);
}

/* D-SGD, accounting only: half = theta - eta (g + sigma z); theta = W half. */
static void bench_dsgd(SimLinStorage st, const char *name, guint rounds) {
  GRand *rng = g_rand_new_with_seed(42);
  gboolean adj[N][N] = {{0}};
  for (guint u = 0; u < N; u++) {
    adj[u][u] = adj[u][(u + 1) % N] = adj[(u + 1) % N][u] = TRUE;
    for (int e = 0; e < 3; e++) {
      guint v = g_rand_int_range(rng, 0, N);
      adj[u][v] = adj[v][u] = TRUE;
    }
  }
  SimNoiseRegistry *reg = sim_noise_registry_new(N, NULL);
  SimLinSpace *s = sim_lin_space_new(reg, 0, st, 0, NULL);
  SimLinvec *theta[N], *half[N];
  for (guint u = 0; u < N; u++) {
    theta[u] = sim_linvec_new(s);
    half[u] = sim_linvec_new(s);
  }
  gint64 t0 = g_get_monotonic_time();
  for (guint t = 0; t < rounds; t++) {
    for (guint u = 0; u < N; u++) {
      sim_linvec_copy(half[u], theta[u], NULL);
      sim_linvec_add_gradient(half[u], -0.1, u, t, NULL, NULL);
      SimNoiseId k = sim_noise_register_local(reg, 1.0, u, t, NULL);
      sim_linvec_add_noise(half[u], -0.1, k, NULL, NULL);
    }
    for (guint u = 0; u < N; u++) {
      guint deg = 0;
      for (guint v = 0; v < N; v++)
        deg += adj[u][v];
      sim_linvec_zero(theta[u]);
      for (guint v = 0; v < N; v++)
        if (adj[u][v])
          sim_linvec_axpy(theta[u], 1.0 / deg, half[v], NULL);
    }
  }
  double secs = (g_get_monotonic_time() - t0) / 1e6;
  printf("linvec.%s.dsgd_T%u_s %.3f\n", name, rounds, secs);
  for (guint u = 0; u < N; u++) {
    sim_linvec_free(theta[u]);
    sim_linvec_free(half[u]);
  }
  sim_lin_space_unref(s);
  sim_noise_registry_unref(reg);
  g_rand_free(rng);
}

int main(void) {
  bench_axpy(SIM_LIN_DENSE, "dense");
  bench_axpy(SIM_LIN_SPARSE, "sparse");
  bench_dsgd(SIM_LIN_DENSE, "dense", T);
  bench_dsgd(SIM_LIN_SPARSE, "sparse", T);
  return 0;
}
