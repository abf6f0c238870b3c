/*
 * cli/run_busy.c: how busy `dpgossip run` kept the machine: the process's
 * CPU time over its wall time, and where the threads of a sweep waited.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "cli/run_summary.h"

double cli_cpu_seconds(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return 0.0;
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void cli_run_print_busy(const ScenRunReport *r, double cpu0, gint64 wall0_us) {
  g_return_if_fail(r != NULL);
  double cpu = cli_cpu_seconds() - cpu0, wall = (g_get_monotonic_time() - wall0_us) / 1e6;
  printf("cpu: %.1f s over %.1f s wall, %.2f cores busy", cpu, wall, wall > 0 ? cpu / wall : 0.0);
  /* Idle threads: what the sweep itself waited on, not the machine's load. */
  if (r->points_s > 0 && r->threads > 0) {
    double idle = r->threads * r->points_s - r->busy_s;
    printf("; points %.1f s on %u thread%s, idle %.1f s per thread (before %.1f s, after %.1f s)",
           r->points_s, r->threads, r->threads == 1 ? "" : "s", MAX(idle, 0.0) / r->threads,
           r->prepare_s, r->finish_s);
  }
  printf("\n");
}
