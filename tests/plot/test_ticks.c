/* tests/plot/test_ticks.c: nice tick positions and labels. */
#include <math.h>
#include <string.h>

#include "plot/plot.h"

#define MINUS "\xe2\x88\x92"
#define TIMES "\xc3\x97"

static void check_majors(const PlotTicks *t, const double *want, gsize n) {
  g_assert_cmpuint(t->n_major, ==, n);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpfloat(t->major[i], ==, want[i]);
}

static void check_labels(const PlotTicks *t, const char *const *want) {
  for (gsize i = 0; i < t->n_major; i++)
    g_assert_cmpstr(t->labels[i], ==, want[i]);
  g_assert_null(t->labels[t->n_major]);
}

static void test_unit_range(void) {
  PlotTicks t;
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, 0, 1, 8, FALSE, &t, NULL));
  /* 0.1 steps would give 11 ticks > 8; 0.2 gives 6. Values equal the
   * literals exactly (k*2/10, not accumulated 0.2 + 0.2 + ...). */
  const double want[] = {0, 0.2, 0.4, 0.6, 0.8, 1.0};
  check_majors(&t, want, 6);
  const char *labels[] = {"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"};
  check_labels(&t, labels);
  g_assert_cmpuint(t.n_minor, ==, 0);
  g_assert_cmpfloat(t.lo, ==, 0);
  g_assert_cmpfloat(t.hi, ==, 1);
  plot_ticks_clear(&t);
  g_assert_null(t.major);

  /* With room for 11 ticks the step drops to 0.1. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, 0, 1, 11, FALSE, &t, NULL));
  g_assert_cmpuint(t.n_major, ==, 11);
  g_assert_cmpfloat(t.major[3], ==, 0.3);
  g_assert_cmpfloat(t.major[7], ==, 0.7);
  plot_ticks_clear(&t);
}

static void test_3_97(void) {
  PlotTicks t;
  /* Loose: step 10 needs 0..100 = 11 ticks; step 20 gives 6. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, 3, 97, 8, TRUE, &t, NULL));
  const double loose[] = {0, 20, 40, 60, 80, 100};
  check_majors(&t, loose, 6);
  const char *labels[] = {"0", "20", "40", "60", "80", "100"};
  check_labels(&t, labels);
  g_assert_cmpfloat(t.lo, ==, 0);
  g_assert_cmpfloat(t.hi, ==, 100);
  plot_ticks_clear(&t);
  /* Inside only: 10..90 is 9 ticks > 8, so step 20 again: 20..80. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, 3, 97, 8, FALSE, &t, NULL));
  const double inside[] = {20, 40, 60, 80};
  check_majors(&t, inside, 4);
  g_assert_cmpfloat(t.lo, ==, 0);
  g_assert_cmpfloat(t.hi, ==, 100);
  plot_ticks_clear(&t);
  /* With 10 allowed, step 10 fits inside (9 ticks). */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, 3, 97, 10, FALSE, &t, NULL));
  g_assert_cmpuint(t.n_major, ==, 9);
  g_assert_cmpfloat(t.major[0], ==, 10);
  g_assert_cmpfloat(t.major[8], ==, 90);
  plot_ticks_clear(&t);
}

static void test_negative_and_scientific(void) {
  PlotTicks t;
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, -7.3, -0.2, 8, FALSE, &t, NULL));
  const double want[] = {-7, -6, -5, -4, -3, -2, -1};
  check_majors(&t, want, 7);
  g_assert_cmpstr(t.labels[0], ==, MINUS "7");
  g_assert_cmpstr(t.labels[6], ==, MINUS "1");
  plot_ticks_clear(&t);

  /* Across zero: no "-0". */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, -1, 1, 5, FALSE, &t, NULL));
  const double sym[] = {-1, -0.5, 0, 0.5, 1};
  check_majors(&t, sym, 5);
  const char *sl[] = {MINUS "1.0", MINUS "0.5", "0.0", "0.5", "1.0"};
  check_labels(&t, sl);
  plot_ticks_clear(&t);

  /* Millions: one exponent for the whole axis. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, 0, 3e6, 8, TRUE, &t, NULL));
  const double big[] = {0, 5e5, 1e6, 1.5e6, 2e6, 2.5e6, 3e6};
  check_majors(&t, big, 7);
  const char *bl[] = {"0",
                      "0.5" TIMES "10^6",
                      "1.0" TIMES "10^6",
                      "1.5" TIMES "10^6",
                      "2.0" TIMES "10^6",
                      "2.5" TIMES "10^6",
                      "3.0" TIMES "10^6"};
  check_labels(&t, bl);
  plot_ticks_clear(&t);

  /* Step below 10^-3. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, 0, 4e-4, 5, FALSE, &t, NULL));
  const double small[] = {0, 1e-4, 2e-4, 3e-4, 4e-4};
  check_majors(&t, small, 5);
  g_assert_cmpstr(t.labels[1], ==, "1" TIMES "10^" MINUS "4");
  g_assert_cmpstr(t.labels[4], ==, "4" TIMES "10^" MINUS "4");
  plot_ticks_clear(&t);

  /* Small but not tiny: plain decimals. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LINEAR, 0.001, 0.0093, 6, FALSE, &t, NULL));
  const double dec[] = {0.002, 0.004, 0.006, 0.008};
  check_majors(&t, dec, 4);
  g_assert_cmpstr(t.labels[0], ==, "0.002");
  plot_ticks_clear(&t);
}

static void test_log_decades(void) {
  PlotTicks t;
  /* [1e-3, 20] rounds out to the decades 1e-3 .. 1e2. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LOG10, 1e-3, 20, 8, TRUE, &t, NULL));
  const double want[] = {1e-3, 1e-2, 1e-1, 1, 10, 100};
  check_majors(&t, want, 6);
  const char *labels[] = {"10^" MINUS "3", "10^" MINUS "2", "10^" MINUS "1",
                          "10^0",          "10^1",          "10^2"};
  check_labels(&t, labels);
  g_assert_cmpfloat(t.lo, ==, 1e-3);
  g_assert_cmpfloat(t.hi, ==, 100);
  /* 2..9 x 10^k in each of the 5 decades. */
  g_assert_cmpuint(t.n_minor, ==, 40);
  g_assert_cmpfloat(t.minor[0], ==, 2e-3);
  g_assert_cmpfloat(t.minor[39], ==, 90);
  plot_ticks_clear(&t);

  /* Inside only: 1e-3 .. 1e1, minors up to 20 inclusive. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LOG10, 1e-3, 20, 8, FALSE, &t, NULL));
  check_majors(&t, want, 5);
  g_assert_cmpuint(t.n_minor, ==, 33);
  g_assert_cmpfloat(t.minor[32], ==, 20);
  plot_ticks_clear(&t);

  /* 16 decades with at most 8 ticks: every third decade (every second
   * would need 1e-12..1e4, 9 ticks); skipped decades become minors. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LOG10, 1e-12, 1e3, 8, TRUE, &t, NULL));
  const double sparse[] = {1e-12, 1e-9, 1e-6, 1e-3, 1, 1e3};
  check_majors(&t, sparse, 6);
  g_assert_cmpuint(t.n_minor, ==, 10);
  g_assert_cmpfloat(t.minor[0], ==, 1e-11);
  g_assert_cmpfloat(t.minor[9], ==, 1e2);
  plot_ticks_clear(&t);
}

static void test_log_narrow(void) {
  PlotTicks t;
  /* No decade inside [2, 8]: label 2 and 5, minors at the other digits. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LOG10, 2, 8, 8, FALSE, &t, NULL));
  const double want[] = {2, 5};
  check_majors(&t, want, 2);
  const char *labels[] = {"2", "5"};
  check_labels(&t, labels);
  const double minor[] = {3, 4, 6, 7, 8};
  g_assert_cmpuint(t.n_minor, ==, 5);
  for (int i = 0; i < 5; i++)
    g_assert_cmpfloat(t.minor[i], ==, minor[i]);
  g_assert_cmpfloat(t.lo, ==, 1);
  g_assert_cmpfloat(t.hi, ==, 10);
  plot_ticks_clear(&t);

  /* Across one decade: 0.05, 0.1, 0.2 labelled as decimals. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LOG10, 0.04, 0.3, 8, FALSE, &t, NULL));
  const double across[] = {0.05, 0.1, 0.2};
  check_majors(&t, across, 3);
  const char *al[] = {"0.05", "0.1", "0.2"};
  check_labels(&t, al);
  plot_ticks_clear(&t);

  /* Not even two of 1, 2, 5: linear ticks. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LOG10, 2.1, 4.9, 8, FALSE, &t, NULL));
  const double lin[] = {2.5, 3.0, 3.5, 4.0, 4.5};
  check_majors(&t, lin, 5);
  g_assert_cmpstr(t.labels[0], ==, "2.5");
  plot_ticks_clear(&t);

  /* Loose always rounds to decades. */
  g_assert_true(plot_ticks_compute(PLOT_SCALE_LOG10, 2, 8, 8, TRUE, &t, NULL));
  const double dec[] = {1, 10};
  check_majors(&t, dec, 2);
  plot_ticks_clear(&t);
}

/* Properties over many ranges (deterministic pseudo-random). */
static void test_properties(void) {
  guint64 state = 12345;
  for (int iter = 0; iter < 3000; iter++) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    double u1 = (double)(state >> 11) / 9007199254740992.0;
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    double u2 = (double)(state >> 11) / 9007199254740992.0;
    guint max_ticks = 3 + iter % 8;
    gboolean log = iter % 3 == 0, loose = iter % 2 == 0;
    double lo, hi;
    if (log) {
      lo = pow(10, -8 + 12 * u1);
      hi = lo * pow(10, 0.05 + 10 * u2);
    } else {
      double mag = pow(10, -6 + 12 * u1);
      lo = (u2 - 0.5) * mag * 10;
      hi = lo + mag * (0.01 + u2);
    }
    PlotTicks t;
    g_assert_true(plot_ticks_compute(log ? PLOT_SCALE_LOG10 : PLOT_SCALE_LINEAR, lo, hi, max_ticks,
                                     loose, &t, NULL));
    g_assert_cmpfloat(t.lo, <=, lo * (1 + 1e-12) + 1e-300);
    g_assert_cmpfloat(t.hi, >=, hi * (1 - 1e-12) - 1e-300);
    if (loose || !log)
      g_assert_cmpuint(t.n_major, <=, max_ticks);
    g_assert_cmpuint(t.n_major, >=, loose ? 2 : 1);
    double span = hi - lo;
    for (gsize i = 0; i < t.n_major; i++) {
      g_assert_nonnull(t.labels[i]);
      g_assert_true(g_utf8_validate(t.labels[i], -1, NULL));
      if (i > 0)
        g_assert_cmpfloat(t.major[i], >, t.major[i - 1]);
      if (!loose) {
        g_assert_cmpfloat(t.major[i], >=, lo - 1e-8 * span);
        g_assert_cmpfloat(t.major[i], <=, hi + 1e-8 * span);
      }
    }
    if (loose) {
      g_assert_cmpfloat(t.major[0], ==, t.lo);
      g_assert_cmpfloat(t.major[t.n_major - 1], ==, t.hi);
    }
    if (!log && t.n_major >= 2) {
      /* A constant step of the form {1, 2, 5} x 10^k. */
      double step = t.major[1] - t.major[0];
      double e = floor(log10(step) + 1e-9), m = step / pow(10, e);
      g_assert_true(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6);
      for (gsize i = 1; i < t.n_major; i++)
        g_assert_cmpfloat(fabs(t.major[i] - t.major[i - 1] - step), <, 1e-6 * step);
    }
    if (log && loose) {
      for (gsize i = 0; i < t.n_major; i++) {
        double k = log10(t.major[i]);
        g_assert_cmpfloat(fabs(k - round(k)), <, 1e-9);
      }
    }
    for (gsize i = 0; i < t.n_minor; i++)
      if (i > 0)
        g_assert_cmpfloat(t.minor[i], >, t.minor[i - 1]);
    plot_ticks_clear(&t);
  }
}

static void test_errors(void) {
  PlotTicks t;
  GError *err = NULL;
  g_assert_false(plot_ticks_compute(PLOT_SCALE_LINEAR, 1, 1, 8, FALSE, &t, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(plot_ticks_compute(PLOT_SCALE_LINEAR, NAN, 1, 8, FALSE, &t, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(plot_ticks_compute(PLOT_SCALE_LOG10, 0, 1, 8, FALSE, &t, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "log"));
  g_clear_error(&err);
  g_assert_false(plot_ticks_compute(PLOT_SCALE_LINEAR, 0, 1, 1, FALSE, &t, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(t.major);
  plot_ticks_clear(NULL);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plot/ticks/unit-range", test_unit_range);
  g_test_add_func("/plot/ticks/3-97", test_3_97);
  g_test_add_func("/plot/ticks/negative-scientific", test_negative_and_scientific);
  g_test_add_func("/plot/ticks/log-decades", test_log_decades);
  g_test_add_func("/plot/ticks/log-narrow", test_log_narrow);
  g_test_add_func("/plot/ticks/properties", test_properties);
  g_test_add_func("/plot/ticks/errors", test_errors);
  return g_test_run();
}
