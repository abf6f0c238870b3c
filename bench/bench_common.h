/*
 * bench/bench_common.h: what every benchmark measures the same way: the
 * data folder, the peak resident memory and the wall clock. Header
 * only (static inline): each bench/bench_*.c is its own program.
 */
#ifndef DPG_BENCH_COMMON_H
#define DPG_BENCH_COMMON_H

#include <glib.h>
#include <math.h>
#include <sys/resource.h>
#include <time.h>

/* DPG_DATA_DIR, else the source tree's data/ (DPG_BENCH_DATA_DIR, an
 * absolute path bench/CMakeLists.txt compiles in: __FILE__ would be relative
 * under ccache's CCACHE_BASEDIR, and a benchmark must find its data from any
 * working directory). g_free the result. */
static inline char *bench_data_dir(void) {
  const char *env = g_getenv("DPG_DATA_DIR");
  return g_strdup(env ? env : DPG_BENCH_DATA_DIR);
}

/* The file @rel (e.g. "graphs/karate.edges") of the data folder
 * (bench_data_dir). g_free the result. */
static inline char *bench_data_file(const char *rel) {
  char *dir = bench_data_dir();
  char *path = g_build_filename(dir, rel, NULL);
  g_free(dir);
  return path;
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

/* The least-squares slope of log @y against log @x (@k points): the
 * exponent of a power law; NaN when the x are all equal. */
static inline double bench_loglog_slope(const double *x, const double *y, guint k) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (guint i = 0; i < k; i++) {
    sx += log(x[i]);
    sy += log(y[i]);
    sxx += log(x[i]) * log(x[i]);
    sxy += log(x[i]) * log(y[i]);
  }
  double d = k * sxx - sx * sx;
  return d > 0 ? (k * sxy - sx * sy) / d : NAN;
}

#endif
