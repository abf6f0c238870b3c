/*
 * tests/common/tolerance.h: the one way the tests compare floating values.
 * A tolerance follows from the computation, never from what passed on one
 * CPU: dpg_tol() builds it as machine epsilon x a condition estimate x a
 * size factor (the usual forward error bound of a backward-stable
 * factorization or a sum of @size terms), and the assertions print, on
 * failure, the measured difference, the tolerance and why the tolerance is
 * what it is, so that a failure on another BLAS kernel says by how much it
 * missed and what it assumed. Header-only (GLib).
 */
#ifndef DPG_TESTS_TOLERANCE_H
#define DPG_TESTS_TOLERANCE_H

#include <float.h>
#include <math.h>

#include <glib.h>

/* DBL_EPSILON * max(cond, 1) * max(size, 1): the forward error bound of a
 * computation of @size terms at condition number @cond, relative to the
 * largest value it produces. */
static inline double dpg_tol(double cond, double size) {
  return DBL_EPSILON * MAX(cond, 1.0) * MAX(size, 1.0);
}

/* Fails (with file, line, both values, the difference, the tolerance and
 * @why) unless @diff <= @tol; NaN fails. */
static inline void dpg_test_assert_le_impl(const char *file, int line, const char *func,
                                           const char *expr, double diff, double tol,
                                           const char *why) {
  if (diff <= tol)
    return;
  char *msg = g_strdup_printf("%s = %.3e exceeds the tolerance %.3e (%.2fx); tolerance: %s", expr,
                              diff, tol, diff / tol, why);
  g_assertion_message(G_LOG_DOMAIN, file, line, func, msg);
  g_free(msg);
}

/* Fails unless |@got - @want| <= @rtol * |@want| (relative), printing as
 * above with both values. */
static inline void dpg_test_assert_close_impl(const char *file, int line, const char *func,
                                              const char *expr, double got, double want,
                                              double rtol, const char *why) {
  double diff = fabs(got - want), tol = rtol * fabs(want);
  if (diff <= tol || got == want) /* got == want: both inf */
    return;
  char *msg = g_strdup_printf("%s: got %.17g, want %.17g: relative difference %.3e exceeds the "
                              "tolerance %.3e (%.2fx); tolerance: %s",
                              expr, got, want, diff / fabs(want), rtol, diff / tol, why);
  g_assertion_message(G_LOG_DOMAIN, file, line, func, msg);
  g_free(msg);
}

/* dpg_test_assert_le(diff, tol, why): a measured difference within a derived
 * tolerance. */
#define dpg_test_assert_le(diff, tol, why)                                                         \
  dpg_test_assert_le_impl(__FILE__, __LINE__, G_STRFUNC, #diff, (diff), (tol), (why))
/* dpg_test_assert_close(got, want, rtol, why): relative closeness. */
#define dpg_test_assert_close(got, want, rtol, why)                                                \
  dpg_test_assert_close_impl(__FILE__, __LINE__, G_STRFUNC, #got " vs " #want, (got), (want),      \
                             (rtol), (why))

#endif /* DPG_TESTS_TOLERANCE_H */
