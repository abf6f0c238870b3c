/*
 * tests/mf/test_cancel.c: MfOptions.cancel, the hook through which
 * dpg_cancel (Ctrl-C in Python) stops the Mafalda and DMF optimizers: a
 * raised flag stops before the first iteration with an error saying so
 * (and, under the sanitizers, nothing leaked); a lowered one changes
 * nothing (the same optimum, bit for bit, as without the hook).
 */
#include <string.h>

#include <glib.h>

#include "mf/mf.h"

static void test_raised_flag_stops(void) {
  const guint T = 12, k = 3, b = 4;
  GError *error = NULL;
  double *P = mf_gram_prefix_sum(T, &error);
  g_assert_no_error(error);
  gint flag = 1;
  MfOptions opt;
  mf_options_init(&opt);
  g_assert_null(opt.cancel);
  opt.cancel = &flag;
  MfResult *r = NULL;
  g_assert_false(mf_optimize(P, T, k, b, &opt, &r, &error));
  g_assert_error(error, MF_ERROR, MF_ERROR_NOT_CONVERGED);
  g_assert_cmpstr(error->message, ==, "the MF optimizer was cancelled after 0 iterations");
  g_clear_error(&error);
  mf_result_free(r);

  flag = 0;
  MfResult *a = NULL, *c = NULL;
  g_assert_true(mf_optimize(P, T, k, b, &opt, &a, &error));
  opt.cancel = NULL;
  g_assert_true(mf_optimize(P, T, k, b, &opt, &c, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(a->iterations, ==, c->iterations);
  g_assert_cmpint(memcmp(a->C, c->C, sizeof(double) * T * T), ==, 0);
  g_assert_cmpuint(a->iterations, >, 0);
  mf_result_free(a);
  mf_result_free(c);
  g_free(P);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mf/cancel", test_raised_flag_stops);
  return g_test_run();
}
