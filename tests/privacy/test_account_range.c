/*
 * tests/privacy/test_account_range.c: the three-way range decision
 * (privacy/range.c) on evidences whose verdict follows from its definition,
 * and the generic accountant on knowledges where double precision used to
 * decide wrongly:
 *   - rows of disparate scales: an independent row 1e-12 the size of the
 *     others was cut by the rank test relative to |R_00| and its victim
 *     reported unprotected; exactly, X = 1;
 *   - a near-dependency (two observations whose noises differ by 1e-12 of
 *     their size): exactly a finite X of 4e24, neither a number double
 *     precision supports nor "unprotected" (what it was): UNRESOLVED;
 *   - an exact dependency (the same noise twice) stays UNPROTECTED, a
 *     moderate one (1e-3) a number, 4/d^2.
 */
#include <float.h>
#include <math.h>

#include "privacy/knowledge_internal.h"
#include "tests/common/tolerance.h"

#define COL(n, u, t) ((guint32)((t) * (n) + (u)))

static PrivNodeStatus decide(double norm, double residual, double left, double amp) {
  PrivRangeEvidence e = {
      .norm = norm, .residual = residual, .noise_left = left, .amplification = amp};
  return priv_range_decide(&e, NULL);
}

static void test_decide(void) {
  /* Nothing seen: X = 0, protected. */
  g_assert_cmpint(decide(0, 0, 0, 0), ==, PRIV_NODE_PROTECTED);
  /* In range to 1e-8, well conditioned. */
  g_assert_cmpint(decide(2, 1.9e-8, 0, 1e3), ==, PRIV_NODE_PROTECTED);
  g_assert_cmpint(decide(2, 2.1e-8, 0, 1e3), ==, PRIV_NODE_UNRESOLVED);
  /* In range but amplified beyond 1e8: no number. */
  g_assert_cmpint(decide(2, 0, 0, 1e8), ==, PRIV_NODE_PROTECTED);
  g_assert_cmpint(decide(2, 0, 0, 1.01e8), ==, PRIV_NODE_UNRESOLVED);
  /* Clearly out of range through an exact (rounding-level) dependency. */
  g_assert_cmpint(decide(2, 1, 1e-16, 2), ==, PRIV_NODE_UNPROTECTED);
  g_assert_cmpint(decide(2, 2.1e-5, 1e-13, 2), ==, PRIV_NODE_UNPROTECTED);
  /* ... through a near-dependency, or barely: undecidable. */
  g_assert_cmpint(decide(2, 1, 2e-13, 2), ==, PRIV_NODE_UNRESOLVED);
  g_assert_cmpint(decide(2, 1.9e-5, 0, 2), ==, PRIV_NODE_UNRESOLVED);
  /* ... or from an ill-conditioned solve. */
  g_assert_cmpint(decide(2, 1, 0, 1e9), ==, PRIV_NODE_UNRESOLVED);
  /* NaN: nothing can be claimed. */
  g_assert_cmpint(decide(2, NAN, 0, 1), ==, PRIV_NODE_UNRESOLVED);
  g_assert_cmpint(decide(2, 0, 0, NAN), ==, PRIV_NODE_UNRESOLVED);
  /* Tolerances: zeros are defaults, others replace them. */
  PrivRangeEvidence e = {.norm = 1, .residual = 1e-6, .noise_left = 0, .amplification = 1};
  PrivRangeTolerances t = {.range_loose = 1e-7};
  g_assert_cmpint(priv_range_decide(&e, &t), ==, PRIV_NODE_UNPROTECTED);
  t = (PrivRangeTolerances){.range_tol = 1e-5};
  g_assert_cmpint(priv_range_decide(&e, &t), ==, PRIV_NODE_PROTECTED);
  e.noise_left = 1e-14;
  e.residual = 1;
  t = (PrivRangeTolerances){.clean = 1e-15};
  g_assert_cmpint(priv_range_decide(&e, &t), ==, PRIV_NODE_UNRESOLVED);
  g_assert_cmpfloat(priv_range_clean_floor(100), ==, 80 * DBL_EPSILON);
  g_assert_cmpfloat(priv_range_clean_floor(0), ==, 8 * DBL_EPSILON);
}

static void add(PrivKnowledge *k, guint ng, const guint32 *gc, const double *gv, guint nn,
                const guint32 *nc, const double *nv) {
  GError *err = NULL;
  g_assert_true(priv_knowledge_add_row(k, ng, gc, gv, nn, nc, nv, &err));
  g_assert_no_error(err);
}

static PrivBlocks *blocks(const PrivKnowledge *k, guint T) {
  PrivKnowledgeOptions o = {.T = T};
  GError *err = NULL;
  PrivBlocks *b = priv_knowledge_blocks(k, &o, &err);
  g_assert_no_error(err);
  return b;
}

/* Rows g_0 + z_0 + z_1 and s (g_1 + z_2): whatever the scale s, X_0 = 1/2,
 * X_1 = 1. At s = 1e-12 the old rank cut dropped the second row. */
static void test_disparate_scales(void) {
  for (int e = 0; e >= -14; e -= 2) {
    double s = pow(10.0, e);
    PrivKnowledge *k = priv_knowledge_new(2, NULL);
    guint32 g0[] = {COL(2, 0, 0)}, g1[] = {COL(2, 1, 0)}, n0[] = {0, 1}, n1[] = {2};
    double one[] = {1.0}, ones[] = {1.0, 1.0}, sv[] = {s};
    add(k, 1, g0, one, 2, n0, ones);
    add(k, 1, g1, sv, 1, n1, sv);
    PrivBlocks *b = blocks(k, 1);
    g_assert_cmpint(b->status[0], ==, PRIV_NODE_PROTECTED);
    g_assert_cmpint(b->status[1], ==, PRIV_NODE_PROTECTED);
    /* After the engine's row scaling the two rows' noises are orthogonal
     * (condition 1) and s cancels; a pivoted QR of m = 2 rows by r = 3 noise
     * columns and the triangular solve are backward stable to about
     * 4 m r eps (Higham, Thm 19.4 and 8.5). */
    const double tol = dpg_tol(1.0, 4.0 * 2 * 3);
    const char *why = "eps x 4 m r (QR of 2 x 3, condition 1 after row scaling)";
    dpg_test_assert_close(priv_blocks_get(b, 0)[0], 0.5, tol, why);
    dpg_test_assert_close(priv_blocks_get(b, 1)[0], 1.0, tol, why);
    priv_blocks_free(b);
    priv_knowledge_free(k);
  }
}

/* g_0 + z_0 and g_0 + 2 g_1 + z_0 + d z_1: the difference shows 2 g_1 with
 * noise d z_1. d = 0: victim 1 unprotected (exactly); d = 1e-3: X_1 = 4/d^2
 * (a number); d = 1e-12: X_1 = 4e24 exactly, out of double precision's reach
 * and far beyond any protection: UNRESOLVED, never a number (the rank cut
 * used to call it unprotected). */
static void test_near_dependency(void) {
  static const struct {
    double d;
    PrivNodeStatus want;
  } cases[] = {
      {0.0, PRIV_NODE_UNPROTECTED}, {1e-3, PRIV_NODE_PROTECTED}, {1e-12, PRIV_NODE_UNRESOLVED}};
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    double d = cases[c].d;
    PrivKnowledge *k = priv_knowledge_new(2, NULL);
    guint32 ga[] = {COL(2, 0, 0)}, gb[] = {COL(2, 0, 0), COL(2, 1, 0)}, na[] = {0}, nb[] = {0, 1};
    double one[] = {1.0}, gbv[] = {1.0, 2.0}, nbv[] = {1.0, d};
    add(k, 1, ga, one, 1, na, one);
    add(k, 2, gb, gbv, d == 0.0 ? 1 : 2, nb, nbv);
    PrivBlocks *b = blocks(k, 1);
    g_assert_cmpint(b->status[0], ==, PRIV_NODE_PROTECTED);
    g_assert_cmpint(b->status[1], ==, cases[c].want);
    if (cases[c].want == PRIV_NODE_PROTECTED)
      /* The row-scaled noise matrix [[1, 0], [1, d]] / norms has condition
       * about 2 / d; the whitened row's relative error is eps x cond x 4 m r
       * (QR of 2 x 2), and X_1 is its square: twice that. */
      dpg_test_assert_close(priv_blocks_get(b, 1)[0] * d * d / 4.0, 1.0,
                            2.0 * dpg_tol(2.0 / d, 4.0 * 2 * 2),
                            "2 x eps x cond(noise) x 4 m r, cond = 2 / d");
    else
      g_assert_cmpfloat(priv_blocks_get(b, 1)[0], ==, 0.0);
    priv_blocks_free(b);
    priv_knowledge_free(k);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/range/decide", test_decide);
  g_test_add_func("/privacy/account/range/disparate-scales", test_disparate_scales);
  g_test_add_func("/privacy/account/range/near-dependency", test_near_dependency);
  return g_test_run();
}
