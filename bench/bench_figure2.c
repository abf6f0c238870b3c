/*
 * bench/bench_figure2.c: the cost of ONE attacker of the 10,000-node
 * Figure 2 (docs/figure2.md, "A 10,000-node graph"): PNDP, D-SGD, T = 10,
 * attacker 0, every victim's block, on regular:n=N,d=8,seed=1 for N in
 * 1000, 2000, 5000, 10000, with the structured engines POWERS (what AUTO
 * takes there), KALMAN and DENSE (DENSE up to N = 2000 unless
 * DPG_BENCH_DENSE_ALL=1: it forms the seen messages' columns by W
 * products, minutes at N = 10,000). One thread, CPU seconds of the process
 * (clock_gettime), so that ratios hold on a loaded machine; the largest
 * relative difference of each engine's blocks from POWERS's; the fitted
 * exponents of POWERS and KALMAN in N. Arguments: the N to run (default
 * the four above).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_common.h"
#include "bench/bench_structured.h"

static PrivBlocks *blocks(const TopoGossip *w, PrivEngine engine, double *seconds) {
  GError *err = NULL;
  double t0 = bench_cpu_seconds();
  PrivBlocks *b = bench_pndp_blocks(w, 10, engine, 1, &err);
  *seconds = bench_cpu_seconds() - t0;
  if (!b) {
    fprintf(stderr, "bench_figure2: %s\n", err->message);
    exit(1);
  }
  return b;
}

/* Largest over the victims of max |a - b| / max |b| on the victim's block. */
static double rel_diff(const PrivBlocks *a, const PrivBlocks *b) {
  gsize TT = (gsize)a->T * a->T;
  double worst = 0.0;
  for (guint u = 0; u < a->n; u++) {
    double num = 0.0, den = 0.0;
    for (gsize i = 0; i < TT; i++) {
      num = MAX(num, fabs(a->X[u * TT + i] - b->X[u * TT + i]));
      den = MAX(den, fabs(b->X[u * TT + i]));
    }
    if (den > 0)
      worst = MAX(worst, num / den);
  }
  return worst;
}

int main(int argc, char **argv) {
  guint ns[16] = {1000, 2000, 5000, 10000}, k = 4;
  if (argc > 1) {
    k = 0;
    for (int i = 1; i < argc && k < 16; i++)
      ns[k++] = (guint)strtoul(argv[i], NULL, 10);
  }
  gboolean dense_all = g_strcmp0(g_getenv("DPG_BENCH_DENSE_ALL"), "1") == 0;
  double x[16], tp[16], tk[16];
  printf("| n | POWERS CPU s | KALMAN CPU s | DENSE CPU s | KALMAN / POWERS | max rel. diff "
         "(KALMAN, DENSE) |\n|---|---|---|---|---|---|\n");
  for (guint i = 0; i < k; i++) {
    char *spec = g_strdup_printf("regular:n=%u,d=8,seed=1", ns[i]);
    GError *err = NULL;
    TopoGraph *g = topo_graph_generate(spec, &err);
    TopoGossip *w = g ? topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err) : NULL;
    if (!w) {
      fprintf(stderr, "bench_figure2: %s\n", err->message);
      return 1;
    }
    double sp, sk, sd = NAN, dd = NAN;
    PrivBlocks *bp = blocks(w, PRIV_ENGINE_POWERS, &sp);
    PrivBlocks *bk = blocks(w, PRIV_ENGINE_KALMAN, &sk);
    double dk = rel_diff(bk, bp);
    if (dense_all || ns[i] <= 2000) {
      PrivBlocks *bd = blocks(w, PRIV_ENGINE_DENSE, &sd);
      dd = rel_diff(bd, bp);
      priv_blocks_free(bd);
    }
    printf("| %u | %.3f | %.2f | %.2f | %.0f | %.1e, %.1e |\n", ns[i], sp, sk, sd, sk / sp, dk, dd);
    fflush(stdout);
    x[i] = ns[i];
    tp[i] = sp;
    tk[i] = sk;
    priv_blocks_free(bp);
    priv_blocks_free(bk);
    topo_gossip_free(w);
    topo_graph_free(g);
    g_free(spec);
  }
  if (k > 1)
    printf("\none attacker, T = 10, in n: POWERS time ~ n^%.2f, KALMAN time ~ n^%.2f\n",
           bench_loglog_slope(x, tp, k), bench_loglog_slope(x, tk, k));
  return 0;
}
