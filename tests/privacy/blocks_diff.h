/*
 * tests/privacy/blocks_diff.h: the one comparison of two accountings' blocks
 * X_u that the privacy and plugin tests share. Header-only.
 */
#ifndef DPG_TESTS_BLOCKS_DIFF_H
#define DPG_TESTS_BLOCKS_DIFF_H

#include <math.h>

#include <glib.h>

#include "privacy/privacy.h"

/* Largest |X1_u - X2_u| over max |X2_u| across victims; statuses must agree. */
static inline double blocks_rel_diff(const PrivBlocks *a, const PrivBlocks *b) {
  g_assert_cmpuint(a->n, ==, b->n);
  g_assert_cmpuint(a->T, ==, b->T);
  double worst = 0.0;
  gsize TT = (gsize)a->T * a->T;
  for (guint u = 0; u < a->n; u++) {
    g_assert_cmpint(a->status[u], ==, b->status[u]);
    const double *x = a->X + u * TT, *y = b->X + u * TT;
    double num = 0.0, den = 0.0;
    for (gsize i = 0; i < TT; i++) {
      num = MAX(num, fabs(x[i] - y[i]));
      den = MAX(den, MAX(fabs(x[i]), fabs(y[i])));
    }
    if (den > 0)
      worst = MAX(worst, num / den);
  }
  return worst;
}

#endif /* DPG_TESTS_BLOCKS_DIFF_H */
