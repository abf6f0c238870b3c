/*
 * bench/bench_mafalda.c: Mafalda end to end (load or generate the graph,
 * gossip matrix, workload Gram H, L-BFGS optimum, C_local written as CSV),
 * then the DMF baseline that `dpgossip mafalda` also computes (the same
 * optimizer on the prefix-sum workload, whose Gram matrix is the harder one:
 * mf_dmf, warm started from shorter horizons, and for comparison the
 * same problem from the optimizer's default start):
 *   - the Facebook-ego graph (148 nodes), k = 20, b = 16, T = 320
 *     (goal: < 10 s, < 200 MB peak RSS; the paper's Python reference needs
 *     8.8 GB at T = 160);
 *   - a 1,000-node random graph, k = 10, b = 8, T = 80 (goal: < 60 s);
 *   - the structured strategies on the Facebook-ego graph without any T x T
 *     matrix: every Toeplitz baseline scored from H's spectral form, and the
 *     banded Toeplitz strategy fitted to H (band 16 = b, and 32) and the
 *     BLT strategy (4 buffers, mf_mafalda_blt), at
 *     T = 2048 (goal: banded strategy < 60 s, < 1 GB) and, with
 *     DPG_BENCH_MAFALDA_LONG=1, T = 10,000 (goal: < 10 min, each); CPU seconds
 *     of this thread (clock()).
 * total_s is Mafalda end to end; with_dmf_s adds DMF one after the other
 * (the command runs the two side by side). BLAS is single-threaded, as in the
 * command, so the figures are CPU seconds of one core. The graphs come from
 * DPG_DATA_DIR (default: the source tree's data/). Peak RSS is
 * getrusage's ru_maxrss, cumulative over the process, so each case is
 * reported in increasing order of memory.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <glib/gstdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/bench_common.h"
#include "bench/bench_graph.h"
#include "mf/mf.h"
#include "privacy/privacy.h"

static gboolean run_case(const char *name, const char *file, const char *spec, guint k, guint b,
                         GError **error) {
  double t0 = bench_now();
  guint n, T = k * b;
  double *W = bench_load_gossip(file, spec, &n, error);
  if (!W)
    return FALSE;
  double t1 = bench_now();
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, error);
  g_free(W);
  if (!H)
    return FALSE;
  double t2 = bench_now();
  MfResult *r = NULL;
  gboolean ok = mf_optimize(H, T, k, b, NULL, &r, error);
  double t3 = bench_now();
  char *csv = NULL;
  if (ok) {
    int fd = g_file_open_tmp("bench-mafalda-XXXXXX.csv", &csv, error);
    ok = fd >= 0;
    if (ok) {
      close(fd);
      ok = mf_matrix_write_csv(csv, r->C, T, T, error);
      g_unlink(csv);
    }
  }
  double t4 = bench_now();
  /* DMF as the command runs it (mf_dmf, ftol 1e-10), then the same
   * problem from the optimizer's default start (the path before the warm
   * start), for comparison. */
  MfResult *dmf = NULL, *dmf_cold = NULL;
  MfOptions dopt;
  mf_options_init(&dopt);
  dopt.ftol = 1e-10;
  ok = ok && mf_dmf(k, b, &dopt, &dmf, error);
  double t5 = bench_now();
  double *P = ok ? mf_gram_prefix_sum(T, error) : NULL;
  ok = P && mf_optimize(P, T, k, b, &dopt, &dmf_cold, error);
  double t6 = bench_now();
  if (ok) {
    printf("mafalda.%s.nodes %u\n", name, n);
    printf("mafalda.%s.rounds %u\n", name, T);
    printf("mafalda.%s.load_s %.3f\n", name, t1 - t0);
    printf("mafalda.%s.gram_s %.3f\n", name, t2 - t1);
    printf("mafalda.%s.optimize_s %.3f\n", name, t3 - t2);
    printf("mafalda.%s.write_s %.3f\n", name, t4 - t3);
    printf("mafalda.%s.total_s %.3f\n", name, t4 - t0);
    printf("mafalda.%s.iterations %u\n", name, r->iterations);
    printf("mafalda.%s.loss %.10g\n", name, r->objective);
    printf("mafalda.%s.dmf_optimize_s %.3f\n", name, t5 - t4);
    printf("mafalda.%s.dmf_iterations %u\n", name, dmf->iterations);
    printf("mafalda.%s.dmf_objective %.12g\n", name, dmf->objective);
    printf("mafalda.%s.dmf_default_start_s %.3f\n", name, t6 - t5);
    printf("mafalda.%s.dmf_default_start_iterations %u\n", name, dmf_cold->iterations);
    printf("mafalda.%s.dmf_default_start_objective %.12g\n", name, dmf_cold->objective);
    printf("mafalda.%s.with_dmf_s %.3f\n", name, t5 - t0);
    printf("mafalda.%s.peak_rss_mb %.1f\n", name, bench_peak_rss_mb());
  }
  g_free(csv);
  mf_result_free(dmf);
  mf_result_free(dmf_cold);
  g_free(P);
  mf_result_free(r);
  g_free(H);
  return ok;
}

/* The structured strategies at a long horizon: no T x T matrix anywhere. */
static gboolean run_structured(const char *file, guint k, guint b, guint band, GError **error) {
  guint n, T = k * b;
  double *W = bench_load_gossip(file, NULL, &n, error);
  if (!W)
    return FALSE;
  clock_t c0 = clock();
  MfGramSpectral *sp = mf_gram_spectral_new(W, n, T, MF_WORKLOAD_POST_AVERAGE, error);
  gboolean ok = sp != NULL;
  double losses[4] = {0};
  const MfBaseline which[] = {MF_BASELINE_IDENTITY, MF_BASELINE_ANTIPGD, MF_BASELINE_SR,
                              MF_BASELINE_BSR};
  for (guint i = 0; ok && i < G_N_ELEMENTS(which); i++) {
    guint width = 0;
    double *c = mf_baseline_coefficients(which[i], T, b, &width, error);
    ok = c != NULL;
    if (ok)
      losses[i] = mf_loss_toeplitz(sp, c, width, k, b, error);
    ok = ok && !isnan(losses[i]);
    g_free(c);
  }
  clock_t c1 = clock();
  double *c = g_new(double, band), loss = NAN;
  ok = ok && mf_mafalda_toeplitz(W, n, k, b, band, c, &loss, error);
  clock_t c2 = clock();
  if (ok) {
    char *name = g_strdup_printf("facebook_T%u", T);
    printf("mafalda.%s.baselines_cpu_s %.3f\n", name, (double)(c1 - c0) / CLOCKS_PER_SEC);
    printf("mafalda.%s.dpdsgd_loss %.10g\n", name, losses[0]);
    printf("mafalda.%s.bsr_loss %.10g\n", name, losses[3]);
    printf("mafalda.%s.toeplitz%u_cpu_s %.3f\n", name, band, (double)(c2 - c1) / CLOCKS_PER_SEC);
    printf("mafalda.%s.toeplitz%u_loss %.10g\n", name, band, loss);
    g_free(name);
  }
  /* The BLT strategy (MF_MAFALDA_BLT_BUFFERS buffers), once per horizon. */
  if (ok && band == b) {
    double theta[MF_BLT_MAX_BUFFERS], wb[MF_BLT_MAX_BUFFERS], blt = NAN;
    clock_t c3 = clock();
    ok = mf_mafalda_blt(W, n, k, b, MF_MAFALDA_BLT_BUFFERS, theta, wb, &blt, error);
    clock_t c4 = clock();
    if (ok) {
      printf("mafalda.facebook_T%u.blt%u_cpu_s %.3f\n", T, MF_MAFALDA_BLT_BUFFERS,
             (double)(c4 - c3) / CLOCKS_PER_SEC);
      printf("mafalda.facebook_T%u.blt%u_loss %.10g\n", T, MF_MAFALDA_BLT_BUFFERS, blt);
    }
  }
  if (ok)
    printf("mafalda.facebook_T%u.peak_rss_mb %.1f\n", T, bench_peak_rss_mb());
  g_free(c);
  g_free(W);
  mf_gram_spectral_free(sp);
  return ok;
}

int main(void) {
  openblas_set_num_threads(1);
  char *fb = bench_data_file("graphs/facebook-ego-414-lcc.edges");
  GError *error = NULL;
  int status = 0;
  if (!run_case("facebook_k20_b16", fb, NULL, 20, 16, &error) ||
      !run_case("erdos1000_k10_b8", NULL, "erdos:n=1000,p=0.01,seed=1,connected=true", 10, 8,
                &error) ||
      !run_structured(fb, 128, 16, 16, &error) || !run_structured(fb, 128, 16, 32, &error) ||
      (g_strcmp0(g_getenv("DPG_BENCH_MAFALDA_LONG"), "1") == 0 &&
       (!run_structured(fb, 625, 16, 16, &error) || !run_structured(fb, 625, 16, 32, &error)))) {
    fprintf(stderr, "bench_mafalda: %s\n", error->message);
    g_error_free(error);
    status = 1;
  }
  g_free(fb);
  return status;
}
