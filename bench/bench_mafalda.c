/*
 * bench/bench_mafalda.c: Mafalda end to end (load or generate the graph,
 * gossip matrix, workload Gram H, L-BFGS optimum, C_local written as CSV),
 * then the DMF baseline that `dpgossip mafalda` also computes (the same
 * optimizer on the prefix-sum workload, whose Gram matrix is the harder one):
 *   - the Facebook-ego graph (148 nodes), k = 20, b = 16, T = 320
 *     (goal: < 10 s, < 200 MB peak RSS; the paper's Python reference needs
 *     8.8 GB at T = 160);
 *   - a 1,000-node random graph, k = 10, b = 8, T = 80 (goal: < 60 s).
 * total_s is Mafalda end to end; with_dmf_s adds DMF one after the other
 * (the command runs the two side by side). BLAS is single-threaded, as in the
 * command, so the figures are CPU seconds of one core. The graphs come from
 * DPG_SHARED_DIR (default: ../shared next to the source tree). Peak RSS is
 * getrusage's ru_maxrss, cumulative over the process, so each case is
 * reported in increasing order of memory.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib/gstdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "privacy/privacy.h"

static double now(void) { return (double)g_get_monotonic_time() / 1e6; }

static double peak_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* kB on Linux */
}

static char *shared_dir(void) {
  const char *env = g_getenv("DPG_SHARED_DIR");
  if (env) return g_strdup(env);
  /* __FILE__ is bench/bench_mafalda.c under the source dir; shared is its sibling. */
  char *bench = g_path_get_dirname(__FILE__);
  char *dir = g_build_filename(bench, "..", "..", "shared", NULL);
  g_free(bench);
  return dir;
}

static gboolean run_case(const char *name, const char *file, const char *spec, guint k, guint b,
                         GError **error) {
  double t0 = now();
  TopoGraph *g = file ? topo_graph_load(file, TRUE, error) : topo_graph_generate(spec, error);
  if (!g) return FALSE;
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, error);
  guint n = topo_graph_n_nodes(g), T = k * b;
  topo_graph_free(g);
  if (!w) return FALSE;
  double *W = topo_gossip_dense(w);
  topo_gossip_free(w);
  double t1 = now();
  double *H = priv_gram_static(W, n, T, PRIV_WORKLOAD_POST_AVERAGE, PRIV_GRAM_AUTO, 0, error);
  g_free(W);
  if (!H) return FALSE;
  double t2 = now();
  PrivMfResult *r = NULL;
  gboolean ok = priv_mf_optimize(H, T, k, b, NULL, &r, error);
  double t3 = now();
  char *csv = NULL;
  if (ok) {
    int fd = g_file_open_tmp("bench-mafalda-XXXXXX.csv", &csv, error);
    ok = fd >= 0;
    if (ok) {
      close(fd);
      ok = priv_matrix_write_csv(csv, r->C, T, T, error);
      g_unlink(csv);
    }
  }
  double t4 = now();
  PrivMfResult *dmf = NULL;
  double *P = ok ? priv_gram_prefix_sum(T, error) : NULL;
  ok = P && priv_mf_optimize(P, T, k, b, NULL, &dmf, error);
  double t5 = now();
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
    printf("mafalda.%s.with_dmf_s %.3f\n", name, t5 - t0);
    printf("mafalda.%s.peak_rss_mb %.1f\n", name, peak_rss_mb());
  }
  g_free(csv);
  priv_mf_result_free(dmf);
  g_free(P);
  priv_mf_result_free(r);
  g_free(H);
  return ok;
}

int main(void) {
  openblas_set_num_threads(1);
  char *shared = shared_dir();
  char *fb = g_build_filename(shared, "data", "graphs", "facebook-ego-414-lcc.edges", NULL);
  GError *error = NULL;
  int status = 0;
  if (!run_case("facebook_k20_b16", fb, NULL, 20, 16, &error) ||
      !run_case("erdos1000_k10_b8", NULL, "erdos:n=1000,p=0.01,seed=1,connected=true", 10, 8,
                &error)) {
    fprintf(stderr, "bench_mafalda: %s\n", error->message);
    g_error_free(error);
    status = 1;
  }
  g_free(fb);
  g_free(shared);
  return status;
}
