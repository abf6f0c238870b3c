/*
 * bench/bench_common.h: what every benchmark measures the same way: the
 * data folder, the peak resident memory and the wall clock. Header
 * only (static inline): each bench/bench_*.c is its own program.
 */
#ifndef DPG_BENCH_COMMON_H
#define DPG_BENCH_COMMON_H

#include <glib.h>
#include <sys/resource.h>
#include <time.h>

/* DPG_DATA_DIR, else the source tree's data/ (this header is
 * bench/bench_common.h in it). g_free the result. */
static inline char *bench_data_dir(void) {
  const char *env = g_getenv("DPG_DATA_DIR");
  if (env)
    return g_strdup(env);
  char *bench = g_path_get_dirname(__FILE__);
  char *dir = g_build_filename(bench, "..", "data", NULL);
  g_free(bench);
  return dir;
}

/* Peak RSS of the process so far, in MB: getrusage's ru_maxrss, cumulative,
 * so a program reports its cases in increasing order of memory. */
static inline double bench_peak_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* kB on Linux */
}

/* Wall seconds, monotonic. */
static inline double bench_now(void) {
  return (double)g_get_monotonic_time() / 1e6;
}

/* CPU seconds of the process (every thread): on a shared machine the wall
 * time also counts the waits for a core, so ratios are taken on this. */
static inline double bench_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
