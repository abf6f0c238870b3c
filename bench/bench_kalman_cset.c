/*
 * bench/bench_kalman_cset.c: MF-D-SGD with a C per class of nodes on the
 * structured path's Kalman engine (each noisy node carrying its own class's
 * noise state) against the W-power engine, on the whole graph: PNDP, one
 * attacker (node 0), b = 1, two classes (even nodes BSR of band 4, a state
 * of 3 values; odd nodes BSR of band 2, 1 value). Each engine runs in its
 * own child process, so its CPU time and peak RSS are its own (wait4); the
 * blocks' sums are compared (relative difference printed).
 * Usage: bench_kalman_cset [GRAPH [T]] (default regular:n=2000,d=8,seed=1,
 * T = 100). docs/accounting-at-scale.md, "A C per class of nodes", gives
 * the measured figures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mf/mf.h"
#include "privacy/privacy.h"
#include "privacy/structured.h"
#include "topologies/topologies.h"

/* The blocks' sum for @engine, written to @fd; the child's _exit status 1
 * on an error. */
static void run(const char *spec, guint T, PrivEngine engine, int fd) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(spec, &err);
  TopoGossip *w = g ? topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err) : NULL;
  if (!w) {
    fprintf(stderr, "bench_kalman_cset: %s\n", err->message);
    _exit(1);
  }
  guint n = topo_graph_n_nodes(g);
  double *Cs = g_new(double, 2 * (gsize)T * T);
  const guint bands[] = {4, 2};
  for (guint c = 0; c < 2; c++) {
    double *C = mf_baseline(MF_BASELINE_BSR, T, bands[c], &err);
    memcpy(Cs + (gsize)c * T * T, C, sizeof(double) * T * T);
    g_free(C);
  }
  guint *cls = g_new(guint, n);
  for (guint v = 0; v < n; v++)
    cls[v] = v % 2;
  const TopoGossip *ws[] = {w};
  const guint att[] = {0};
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_MFDSGD,
                             .C_set = Cs,
                             .C_class = cls,
                             .n_C = 2,
                             .T = T,
                             .b = 1,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = att,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .engine = engine};
  PrivBlocks *b = priv_structured_blocks(&p, &err);
  if (!b) {
    fprintf(stderr, "bench_kalman_cset: %s\n", err->message);
    _exit(1);
  }
  double sum = 0.0;
  for (gsize i = 0; i < (gsize)n * T * T; i++)
    sum += b->X[i];
  if (write(fd, &sum, sizeof sum) != sizeof sum)
    _exit(1);
  _exit(0);
}

int main(int argc, char **argv) {
  const char *spec = argc > 1 ? argv[1] : "regular:n=2000,d=8,seed=1";
  guint T = argc > 2 ? (guint)atoi(argv[2]) : 100;
  const PrivEngine engines[] = {PRIV_ENGINE_KALMAN, PRIV_ENGINE_POWERS};
  const char *names[] = {"kalman", "powers"};
  double sums[2] = {NAN, NAN};
  int status = 0;
  printf("graph %s, T = %u, PNDP, attacker 0, classes: even BSR band 4, odd BSR band 2\n", spec, T);
  for (guint e = 0; e < 2; e++) {
    int fds[2];
    if (pipe(fds) != 0)
      return 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fflush(stdout); /* the child leaves by _exit: nothing printed twice */
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      run(spec, T, engines[e], fds[1]);
    }
    close(fds[1]);
    int st = 0;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (read(fds[0], &sums[e], sizeof(double)) != sizeof(double))
      status = 1;
    close(fds[0]);
    printf("%s: %.1f + %.1f CPU s, %.1f s wall, peak RSS %.2f GB%s\n", names[e],
           ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec,
           ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec,
           (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec), ru.ru_maxrss / 1048576.0,
           WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "" : " (failed)");
  }
  printf("blocks' sums: kalman %.17g, powers %.17g, relative difference %.3g\n", sums[0], sums[1],
         fabs(sums[0] - sums[1]) / fabs(sums[1]));
  return status;
}
