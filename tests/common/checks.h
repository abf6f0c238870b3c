/*
 * tests/common/checks.h: the small helpers the tests of every module kept
 * redefining, once: writing a test file, the relative difference of two
 * numbers, checking a GError's domain, code and message, and the binomial
 * acceptance band of a count of misses.
 */
#ifndef DPG_TESTS_COMMON_CHECKS_H
#define DPG_TESTS_COMMON_CHECKS_H

#include <glib.h>

/* TEST_UNDER_ASAN: 1 in the sanitizer build (make test-sanitize), else 0.
 * A test whose cost is one code path repeated (a slow run to interrupt,
 * many points of one sweep) may take a smaller size there: the sanitizers
 * check the path's memory once, the release run checks its scale. GCC says
 * __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer). */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_UNDER_ASAN 1
#endif
#endif
#ifndef TEST_UNDER_ASAN
#define TEST_UNDER_ASAN 0
#endif

/* A NULL-terminated list of message fragments for test_expect_error. */
#define TEST_NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

/**
 * test_write_file: writes @len bytes of @data (@len -1: the text up to its
 * NUL) to @dir/@name (@dir NULL: @name is the path), through gzip when
 * @name ends in ".gz", making missing parent folders. No fsync: some tests
 * write hundreds of files. The test fails on any error.
 * Returns: (transfer full) the path (g_free). Cost: O(@len).
 */
char *test_write_file(const char *dir, const char *name, const void *data, gssize len);

/* |a - b| / max(|a|, |b|) (0 when both are 0; the denominator is at least
 * 1e-300 so that a zero beside a subnormal stays finite). O(1). */
double test_rel_diff(double a, double b);

/**
 * test_expect_error: fails the test unless @error is set, of @domain and
 * @code, and its message holds each of @needles (TEST_NEEDLES(...), or
 * NULL for none); frees @error. @what names the case in the failure
 * message (a spec, a file). Cost: O(message length x needles).
 */
void test_expect_error(GError *error, GQuark domain, int code, const char *what,
                       const char *const *needles);

/**
 * test_binomial_band: the acceptance band of a count of misses in @R trials
 * whose miss rate lies in [@p_lo, @p_hi]: [*@lo, *@hi] with P(X < lo) <=
 * @tail for X ~ Binomial(R, p_lo) and P(X > hi) <= @tail for X ~
 * Binomial(R, p_hi). The binomial's tails are monotone in p, so for any
 * rate in between the count falls outside with probability at most
 * 2 @tail. Cost: O(R) evaluations of GSL's binomial distribution function.
 */
void test_binomial_band(guint R, double p_lo, double p_hi, double tail, guint *lo, guint *hi);

#endif
