/*
 * bench/bench_local.c: how tight the certified local bounds are
 * (priv_local_report, docs/local-bounds.md). D-SGD under PNDP, attacker 0,
 * user level, on graphs where the exact accountant still runs
 * (barabasi:n=1000,m=3 and regular:n=1000,d=8, seed 1): for T in argv
 * (default 20), the exact mu of every victim (structured path, exact
 * sensitivity), then for radii 2, 3, 4 the local bound with the exact and
 * with the Thm 5.2 sensitivity, printed as the ratio bound / exact by hop
 * distance (mean and max over the victims at that distance) with the CPU
 * seconds of each accounting. Usage: bench_local [T ...].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/bench_common.h"
#include "privacy/privacy.h"

static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#define MAX_D 5

/* Ratio of @r's mu to @mu0 by distance (1 .. MAX_D) into the rows. */
static void ratios(const PrivReport *r, const double *mu0, double *mean, double *max,
                   guint *count) {
  double sum[MAX_D + 1] = {0};
  for (guint d = 0; d <= MAX_D; d++) {
    max[d] = 0;
    count[d] = 0;
  }
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    if (v->distance < 1 || v->distance > MAX_D || !(mu0[v->node] > 0))
      continue;
    double q = v->mu / mu0[v->node];
    sum[v->distance] += q;
    max[v->distance] = MAX(max[v->distance], q);
    count[v->distance]++;
  }
  for (guint d = 1; d <= MAX_D; d++)
    mean[d] = count[d] ? sum[d] / count[d] : NAN;
}

static int run(const char *spec, guint T) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(spec, &err);
  TopoGossip *w = g ? topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err) : NULL;
  if (!w) {
    fprintf(stderr, "bench_local: %s\n", err->message);
    return 1;
  }
  guint n = topo_graph_n_nodes(g), attacker = 0;
  const TopoGossip *ws[] = {w};
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = T,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = &attacker,
                             .n_attackers = 1,
                             .sigma = 1.0};
  PrivAccountOptions exact = {.sensitivity = MF_SENSITIVITY_EXACT};
  PrivAccountOptions bound = {.sensitivity = MF_SENSITIVITY_BOUND};
  double t0 = cpu();
  PrivBlocks *bl = priv_structured_blocks(&p, &err);
  PrivReport *r0 = bl ? priv_account_report(bl, g, &exact, &err) : NULL;
  if (!r0) {
    fprintf(stderr, "bench_local: %s\n", err->message);
    return 1;
  }
  double t_exact = cpu() - t0;
  double *mu0 = g_new0(double, n);
  for (guint i = 0; i < r0->n_victims; i++)
    mu0[r0->victims[i].node] = r0->victims[i].mu;
  printf("%s T=%u exact (structured, exact sensitivity): %.1f CPU s\n", spec, T, t_exact);
  printf("%-6s %-11s %6s %8s %8s %10s %10s %8s\n", "radius", "sensitivity", "ball", "distance",
         "victims", "mean", "max", "cpu_s");
  for (guint radius = 2; radius <= 4; radius++)
    for (guint s = 0; s < 2; s++) {
      PrivLocalInfo info;
      t0 = cpu();
      PrivReport *r = priv_local_report(&p, radius, s ? &bound : &exact, &info, &err);
      double t = cpu() - t0;
      if (!r) {
        fprintf(stderr, "bench_local: %s\n", err->message);
        return 1;
      }
      double mean[MAX_D + 1], max[MAX_D + 1];
      guint count[MAX_D + 1];
      ratios(r, mu0, mean, max, count);
      for (guint d = 1; d <= radius; d++)
        printf("%-6u %-11s %6u %8u %8u %10.4g %10.4g %8.1f\n", radius, s ? "bound" : "exact",
               info.ball, d, count[d], mean[d], max[d], t);
      priv_report_free(r);
    }
  printf("\n");
  g_free(mu0);
  priv_report_free(r0);
  priv_blocks_free(bl);
  topo_gossip_free(w);
  topo_graph_free(g);
  return 0;
}

int main(int argc, char **argv) {
  const char *graphs[] = {"barabasi:n=1000,m=3,seed=1", "regular:n=1000,d=8,seed=1"};
  guint Ts[16] = {20}, nT = 1;
  if (argc > 1) {
    nT = 0;
    for (int i = 1; i < argc && nT < G_N_ELEMENTS(Ts); i++)
      Ts[nT++] = (guint)atoi(argv[i]);
  }
  printf("bench_local: D-SGD, PNDP, attacker 0, b = 1, sigma = 1; ratio = local mu / exact mu "
         "(exact sensitivity), by hop distance\n\n");
  for (guint t = 0; t < nT; t++)
    for (guint i = 0; i < G_N_ELEMENTS(graphs); i++)
      if (run(graphs[i], Ts[t]) != 0)
        return 1;
  return 0;
}
