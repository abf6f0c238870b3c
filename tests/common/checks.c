/* tests/common/checks.c: files, relative differences and expected errors
 * for the tests (checks.h). */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "tests/common/checks.h"

char *test_write_file(const char *dir, const char *name, const void *data, gssize len) {
  char *path = dir != NULL ? g_build_filename(dir, name, NULL) : g_strdup(name);
  gsize n = len < 0 ? strlen(data) : (gsize)len;
  char *parent = g_path_get_dirname(path);
  g_assert_cmpint(g_mkdir_with_parents(parent, 0700), ==, 0);
  g_free(parent);
  if (g_str_has_suffix(path, ".gz")) {
    gzFile f = gzopen(path, "wb9");
    g_assert_nonnull(f);
    /* gzwrite takes an unsigned count: test files stay far below 4 GiB. */
    g_assert_cmpuint(n, <=, G_MAXINT);
    g_assert_cmpint(n == 0 ? 0 : gzwrite(f, data, (unsigned)n), ==, (int)n);
    g_assert_cmpint(gzclose(f), ==, Z_OK);
  } else {
    FILE *f = fopen(path, "wb");
    if (f == NULL)
      g_error("cannot write %s", path);
    g_assert_cmpuint(fwrite(data, 1, n, f), ==, n);
    g_assert_cmpint(fclose(f), ==, 0);
  }
  return path;
}

double test_rel_diff(double a, double b) {
  return fabs(a - b) / MAX(1e-300, MAX(fabs(a), fabs(b)));
}

void test_expect_error(GError *error, GQuark domain, int code, const char *what,
                       const char *const *needles) {
  if (error == NULL)
    g_error("%s: should fail", what != NULL ? what : "the call");
  g_assert_error(error, domain, code);
  for (const char *const *n = needles; n != NULL && *n != NULL; n++)
    if (strstr(error->message, *n) == NULL)
      g_error("%s: message '%s' lacks '%s'", what != NULL ? what : "the call", error->message,
              *n);
  g_error_free(error);
}

void test_binomial_band(guint R, double p_lo, double p_hi, double tail, guint *lo, guint *hi) {
  *lo = 0;
  while (*lo < R && gsl_cdf_binomial_P(*lo, p_lo, R) <= tail) /* P(X <= lo) = P(X < lo + 1) */
    ++*lo;
  *hi = 0;
  while (*hi < R && gsl_cdf_binomial_Q(*hi, p_hi, R) > tail)
    ++*hi;
}
