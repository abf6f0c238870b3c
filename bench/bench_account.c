/*
 * bench/bench_account.c: PNDP accounting of DP-D-SGD through the structured
 * fast path (Kalman engine): one attacker (node 0, degree 21) and all 147
 * victims of the Facebook-ego graph (148 nodes), T = 320 steps, user level
 * (b = 1), bound sensitivity, mu / RDP / eps per victim.
 * Goal: < 30 s and < 1 GB peak RSS. Also the Florentine reference setting
 * (T = 10) for scale. The graph comes from DPG_SHARED_DIR (default: ../shared
 * next to the source tree), or argv[1].
 */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

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
  char *bench = g_path_get_dirname(__FILE__);
  char *dir = g_build_filename(bench, "..", "..", "shared", NULL);
  g_free(bench);
  return dir;
}

/* Accounts attacker 0 on @g over T steps; prints name.* lines. */
static gboolean run_case(const char *name, TopoGraph *g, guint T, GError **error) {
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, error);
  if (!w) return FALSE;
  const TopoGossip *ws[] = {w};
  guint attackers[] = {0};
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = T,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = attackers,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .engine = PRIV_ENGINE_KALMAN};
  double t0 = now();
  PrivBlocks *b = priv_structured_blocks(&p, error);
  double t1 = now();
  PrivReport *r = b ? priv_account_report(b, g, NULL, error) : NULL;
  double t2 = now();
  gboolean ok = r != NULL;
  if (ok) {
    double lo = INFINITY, hi = 0.0;
    for (guint i = 0; i < r->n_victims; i++) {
      lo = MIN(lo, r->victims[i].rdp);
      hi = MAX(hi, r->victims[i].rdp);
    }
    printf("%s.nodes %u\n", name, topo_graph_n_nodes(g));
    printf("%s.victims %u\n", name, r->n_victims);
    printf("%s.steps %u\n", name, T);
    printf("%s.blocks_seconds %.3f\n", name, t1 - t0);
    printf("%s.report_seconds %.3f\n", name, t2 - t1);
    printf("%s.total_seconds %.3f\n", name, t2 - t0);
    printf("%s.rdp_alpha2_min %.6g\n", name, lo);
    printf("%s.rdp_alpha2_max %.6g\n", name, hi);
    printf("%s.peak_rss_mb %.1f\n", name, peak_rss_mb());
  }
  priv_report_free(r);
  priv_blocks_free(b);
  topo_gossip_free(w);
  return ok;
}

int main(int argc, char **argv) {
  GError *err = NULL;
  TopoGraph *flo = topo_graph_generate("florentine", &err);
  if (!flo || !run_case("account.florentine_T10", flo, 10, &err)) goto fail;
  topo_graph_free(flo);
  flo = NULL;

  char *dir = shared_dir();
  char *path = argc > 1
                   ? g_strdup(argv[1])
                   : g_build_filename(dir, "data", "graphs", "facebook-ego-414-lcc.edges", NULL);
  g_free(dir);
  TopoGraph *fb = topo_graph_load(path, TRUE, &err);
  g_free(path);
  if (!fb) goto fail;
  gboolean ok = run_case("account.pndp_fb_T320", fb, 320, &err);
  topo_graph_free(fb);
  if (!ok) goto fail;
  return 0;
fail:
  topo_graph_free(flo);
  fprintf(stderr, "bench_account: %s\n", err ? err->message : "failed");
  g_clear_error(&err);
  return 1;
}
