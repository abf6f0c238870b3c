/*
 * sim/rng_internal.h: the stream table's layout, so the engine can fetch a
 * sender's stream with two loads on the hot path. Internal to sim/.
 */
#ifndef DPG_SIM_RNG_INTERNAL_H
#define DPG_SIM_RNG_INTERNAL_H

#include "sim/sim.h"

struct SimRngSet {
  guint64 seed;
  guint32 n_nodes;
  const gsl_rng_type *type;
  /* streams[purpose] is NULL until that purpose is first used, then an array
   * of n_nodes + 1 generators (index n_nodes: the SIM_NODE_NONE stream). */
  gsl_rng **streams[SIM_RNG_N_PURPOSES];
};

/* sim_rng_set_get for a node and purpose known to be in range; NULL only when
 * allocation fails. */
gsl_rng *sim_rng_set_create(SimRngSet *set, guint32 node, guint32 purpose, GError **error);

/* Stream of a real node (< n_nodes, not SIM_NODE_NONE) and a purpose in range. */
static inline gsl_rng *sim_rng_set_get_inline(SimRngSet *set, guint32 node, guint32 purpose) {
  gsl_rng **a = set->streams[purpose];
  if (G_LIKELY(a && a[node]))
    return a[node];
  return sim_rng_set_create(set, node, purpose, NULL);
}

#endif /* DPG_SIM_RNG_INTERNAL_H */
