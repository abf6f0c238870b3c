/*
 * bench/bench_linvec.c: linvec provenance throughput, dense vs sparse, at the
 * size of the paper's Facebook-ego runs (n = 148 nodes, T = 320 rounds).
 * Times are process CPU time.
 *
 *   linvec.<storage>.axpy_per_s      y += a x on fully mixed rows (n*T gradient
 *                                    columns + n*T local noises)
 *   linvec.<storage>.axpy_cols_per_s the same, in provenance columns per second
 *   linvec.<storage>.dsgd_T<T>_s     CPU seconds of an accounting-only D-SGD run
 *                                    (d = 0) on a random 8-regular-ish graph
 */
#include "sim/sim.h"

#include <stdio.h>
#include <time.h>

/* CPU time of this process, in microseconds: other jobs on a shared machine
 * then disturb the figures less than wall time would. */
static gint64 cpu_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (gint64)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#define N 148
#define T 320
#define DSGD_T 160

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
  gint64 t0 = cpu_us(), t1;
  do {
    for (int i = 0; i < 50; i++)
      sim_linvec_axpy(y, (i & 1) ? -0.5 : 0.5, x, NULL);
    reps += 50;
    t1 = cpu_us();
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
  gint64 t0 = cpu_us();
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
  double secs = (cpu_us() - t0) / 1e6;
  printf("linvec.%s.dsgd_T%u_s %.3f\n", name, rounds, secs);
  for (guint u = 0; u < N; u++) {
    sim_linvec_free(theta[u]);
    sim_linvec_free(half[u]);
  }
  sim_lin_space_unref(s);
  sim_noise_registry_unref(reg);
  g_rand_free(rng);
}

/* Usage: bench_linvec [axpy|dsgd] (default: both). */
int main(int argc, char **argv) {
  gboolean axpy = argc < 2 || g_str_equal(argv[1], "axpy");
  gboolean dsgd = argc < 2 || g_str_equal(argv[1], "dsgd");
  if (axpy) {
    bench_axpy(SIM_LIN_DENSE, "dense");
    bench_axpy(SIM_LIN_SPARSE, "sparse");
  }
  if (dsgd) {
    bench_dsgd(SIM_LIN_DENSE, "dense", DSGD_T);
    bench_dsgd(SIM_LIN_SPARSE, "sparse", DSGD_T);
  }
  return 0;
}
