/*
 * privacy/knowledge_internal.h: the layout of PrivKnowledge, shared by
 * knowledge.c (building it), reduce.c (the generic accountant) and
 * observer.c. Not public.
 */
#ifndef DPG_PRIVACY_KNOWLEDGE_INTERNAL_H
#define DPG_PRIVACY_KNOWLEDGE_INTERNAL_H

#include "privacy/internal.h"

/* The observed rows (coefficients as given: gradient ones in units of
 * Delta); repeated columns add up. */
struct PrivKnowledge {
  guint n;
  PrivRows rows;
  guint steps_seen;        /* 1 + the largest step of a gradient column */
  gboolean *attacker;      /* n */
  GHashTable *known_slots; /* column + 1 */
  GHashTable *known_noise; /* noise id + 1 */
};

/* Whether gradient column @col is known (an attacker's slot, or listed). */
gboolean priv_knowledge_slot_known(const PrivKnowledge *k, guint32 col);
/* Whether noise variable @id is known. */
gboolean priv_knowledge_noise_known(const PrivKnowledge *k, guint32 id);

/* ---- The range decision (privacy/range.c), shared by the accountants ---- */

/*
 * What a factorization in double precision knows about one victim u, whose
 * columns of A (units of Delta) are A_u, after a maximal set of independent
 * rows of B was selected (the rest: "dependent rows", each expressed as a
 * combination of the selected ones plus a noise remainder).
 */
typedef struct {
  /* ||A_u||_F over the rows kept. */
  double norm;
  /* ||part of A_u the selected rows do not explain||_F: the gradient part of
   * the dependent rows minus their combinations of the selected ones. */
  double residual;
  /* The largest noise remainder of a dependent row that carries part of the
   * residual, relative to that row's own noise norm: ~1e-16 for an exact
   * dependency seen through rounding, larger for a near-dependency (0 when
   * no residual, or for rows without noise). */
  double noise_left;
  /* ||Y_u||_F / ||D^-1 A_u||_F, Y_u = R11^-T A1_u, D the rows' noise
   * norms: how much the solve amplifies the victim's view, about 1 for
   * orthogonal rows and at most the condition number of the row-equilibrated
   * R11 (the part of it the victim's view actually uses). Y_u does not
   * change when rows are scaled, nor does this ratio. */
  double amplification;
} PrivRangeEvidence;

/* The thresholds of priv_range_decide (zeros select the defaults). */
typedef struct {
  double range_tol;   /* residual <= range_tol * norm: in range (1e-8) */
  double range_loose; /* residual > range_loose * norm: out of range... (1e-5) */
  double clean;       /* ...if noise_left <= clean, rounding level (1e-13) */
  double amp_max;     /* amplification beyond it: not supportable (1e8) */
} PrivRangeTolerances;

/* Fills @tol with the defaults above. */
void priv_range_tolerances_default(PrivRangeTolerances *tol);
/* The rounding level of a noise remainder for a factorization over
 * @n_noise noise columns, 8 eps sqrt(n_noise): what a caller that knows its
 * size puts in PrivRangeTolerances.clean. */
double priv_range_clean_floor(gsize n_noise);

/*
 * priv_range_decide: the verdict for one victim: PRIV_NODE_PROTECTED (its
 * view is in range(B) and the solve is well conditioned for it: X_u is a
 * reliable finite number), PRIV_NODE_UNPROTECTED (a clearly noise-free
 * combination of its gradients is seen: residual above range_loose, carried
 * by exact dependencies), or PRIV_NODE_UNRESOLVED (everything else: residual
 * between the two thresholds, a near-dependency, amplification above
 * amp_max, a NaN): no protection can be claimed and no number given.
 * A view of norm 0 is PROTECTED (X_u = 0). @tol: (nullable) defaults.
 * O(1); never fails.
 */
PrivNodeStatus priv_range_decide(const PrivRangeEvidence *e, const PrivRangeTolerances *tol);

#endif /* DPG_PRIVACY_KNOWLEDGE_INTERNAL_H */
