/*
 * privacy/range.c: the per-victim decision of an accountant that factors the
 * attacker knowledge in double precision: is the victim's view A_u in the
 * range of B (a finite X_u), clearly outside it (a noise-free combination of
 * its gradients is seen), or neither decidable nor supportable in double
 * precision?
 *
 * Why three outcomes. In exact arithmetic the question has a yes/no answer,
 * but a factorization in doubles only sees B up to rounding: a combination of
 * observations whose noise is 1e-13 of its rows' scale is indistinguishable
 * from an exact dependency once the rounding error of the factorization
 * (about 1e-16 of the rows' scale, times the conditioning) reaches it. Such a
 * combination reveals the victim's gradients with a noise of that size, so the
 * exact mu is finite but enormous (Zip-DL under LDP with a row-stochastic W
 * grows mu like s_v^T, s_v the column sum of W). Neither a finite number nor
 * "unprotected" would be honest there; both mean no protection, so the victim
 * is reported as such, UNRESOLVED, and never with a number.
 *
 * Every threshold is relative: the residual to the size of the victim's view,
 * a dependent row's noise remainder to that row's own noise norm (not to the
 * largest row: rows of disparate scales must not hide an independent small
 * row), the amplification to the largest pivot.
 */
#include "privacy/knowledge_internal.h"

#include <float.h>
#include <math.h>

void priv_range_tolerances_default(PrivRangeTolerances *tol) {
  tol->range_tol = 1e-8;
  tol->range_loose = 1e-5;
  tol->clean = 1e-13;
  tol->amp_max = 1e8;
}

double priv_range_clean_floor(gsize n_noise) {
  /* Householder QR leaves about eps sqrt(m) of a column's norm in a column
   * that is exactly dependent (measured: 1.5e-15 to 2.5e-15 on Florentine,
   * m = 80 to 600); 8x that is "rounding level". */
  return 8.0 * DBL_EPSILON * sqrt((double)MAX(n_noise, 1));
}

PrivNodeStatus priv_range_decide(const PrivRangeEvidence *e, const PrivRangeTolerances *tol) {
  PrivRangeTolerances t;
  priv_range_tolerances_default(&t);
  if (tol) {
    if (tol->range_tol > 0)
      t.range_tol = tol->range_tol;
    if (tol->range_loose > 0)
      t.range_loose = tol->range_loose;
    if (tol->clean > 0)
      t.clean = tol->clean;
    if (tol->amp_max > 0)
      t.amp_max = tol->amp_max;
  }
  /* NaN anywhere: nothing can be claimed. */
  if (isnan(e->residual) || isnan(e->norm) || isnan(e->noise_left) || isnan(e->amplification))
    return PRIV_NODE_UNRESOLVED;
  if (e->norm == 0.0)
    return PRIV_NODE_PROTECTED; /* the attacker sees nothing of it */
  /* A garbage residual comes from an ill-conditioned solve as easily as a
   * garbage X: past amp_max neither side of the decision is supported. */
  if (!(e->amplification <= t.amp_max))
    return PRIV_NODE_UNRESOLVED;
  if (e->residual <= t.range_tol * e->norm)
    return PRIV_NODE_PROTECTED;
  if (e->residual > t.range_loose * e->norm && e->noise_left <= t.clean)
    return PRIV_NODE_UNPROTECTED;
  return PRIV_NODE_UNRESOLVED;
}
