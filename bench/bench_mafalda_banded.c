/*
 * bench/bench_mafalda_banded.c: banded Mafalda (mf_optimize with a band,
 * the banded evaluation of mf/banded.c) on the Facebook-ego graph,
 * b = 16, the goal: T = 2048 under 60 CPU s and 1 GB with a loss
 * within 10% of the dense optimum.
 *   - T = 1024 (k = 64), bands 16, 32, 48, 64: the gap to the dense
 *     (unbanded) optimum 4.894e6 (`dpgossip mafalda -k 64 -b 16`);
 *   - T = 2048 (k = 128), bands 16, 32, 64.
 * Each case runs in a child process (`bench_mafalda_banded K B W [cold]`,
 * also usable by hand), so that its peak RSS (getrusage's ru_maxrss) is its
 * own. optimize_cpu_s: CPU seconds of mf_optimize (clock(); BLAS
 * single-threaded), warm start from the shorter horizons and C included;
 * gram_cpu_s: the Gram matrix H before it. The graph comes from
 * DPG_DATA_DIR (default: the source tree's data/).
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/bench_common.h"
#include "bench/bench_graph.h"
#include "mf/mf.h"
#include "privacy/privacy.h"

/* The dense optimum at T = 1024 (current main, `dpgossip mafalda --graph
 * facebook-ego-414-lcc.edges -k 64 -b 16`). */
#define DENSE_OPTIMUM_T1024 4.894e6
/* As `dpgossip mafalda --band W` runs it (mf/mafalda_report.c): stop
 * once f settles (within ~1e-10 of the optimum), not at gtol 1e-10. */
#define FTOL 1e-10

static double cpu(void) {
  return (double)clock() / CLOCKS_PER_SEC;
}

static gboolean run_case(guint k, guint b, guint band, gboolean cold, GError **error) {
  char *file = bench_data_file("graphs/facebook-ego-414-lcc.edges");
  guint n, T = k * b;
  double *W = bench_load_gossip(file, NULL, &n, error);
  g_free(file);
  if (!W)
    return FALSE;
  double c0 = cpu();
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, error);
  g_free(W);
  if (!H)
    return FALSE;
  double c1 = cpu();
  MfOptions o;
  mf_options_init(&o);
  o.band = band;
  o.cold_start = cold;
  o.ftol = FTOL;
  MfResult *r = NULL;
  gboolean ok = mf_optimize(H, T, k, b, &o, &r, error);
  double c2 = cpu();
  if (ok) {
    char *name = g_strdup_printf("facebook_T%u_band%u%s", T, band, cold ? "_cold" : "");
    printf("mafalda_banded.%s.gram_cpu_s %.3f\n", name, c1 - c0);
    printf("mafalda_banded.%s.optimize_cpu_s %.3f\n", name, c2 - c1);
    printf("mafalda_banded.%s.iterations %u\n", name, r->iterations);
    printf("mafalda_banded.%s.evaluations %u\n", name, r->evaluations);
    printf("mafalda_banded.%s.loss %.10g\n", name, r->objective);
    if (T == 1024)
      printf("mafalda_banded.%s.vs_dense %.4f\n", name, r->objective / DENSE_OPTIMUM_T1024);
    printf("mafalda_banded.%s.peak_rss_mb %.1f\n", name, bench_peak_rss_mb());
    g_free(name);
  }
  mf_result_free(r);
  g_free(H);
  return ok;
}

int main(int argc, char **argv) {
  openblas_set_num_threads(1);
  GError *error = NULL;
  if (argc >= 4) {
    gboolean cold = argc >= 5 && g_strcmp0(argv[4], "cold") == 0;
    if (!run_case((guint)atoi(argv[1]), (guint)atoi(argv[2]), (guint)atoi(argv[3]), cold, &error)) {
      fprintf(stderr, "bench_mafalda_banded: %s\n", error->message);
      g_error_free(error);
      return 1;
    }
    return 0;
  }
  static const guint cases[][2] = {{64, 16},  {64, 32},  {64, 48}, {64, 64},
                                   {128, 16}, {128, 32}, {128, 64}};
  int status = 0;
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *k = g_strdup_printf("%u", cases[i][0]), *w = g_strdup_printf("%u", cases[i][1]);
    char *args[] = {argv[0], k, "16", w, NULL};
    int wait = 0;
    if (!g_spawn_sync(NULL, args, NULL, G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL, NULL, &wait,
                      &error) ||
        !g_spawn_check_wait_status(wait, &error)) {
      fprintf(stderr, "bench_mafalda_banded: %s\n", error->message);
      g_clear_error(&error);
      status = 1;
    }
    fflush(stdout);
    g_free(k);
    g_free(w);
  }
  return status;
}
