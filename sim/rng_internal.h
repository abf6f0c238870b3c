/*
 * sim/rng_internal.h: the stream table's layout, so the engine can fetch a
 * sender's stream with two loads on the hot path. Internal to sim/.
 */
#ifndef DPG_SIM_RNG_INTERNAL_H
#define DPG_SIM_RNG_INTERNAL_H

#include "sim/rng.h"

/* streams[purpose] is NULL until that purpose is first used, then n_nodes + 1
 * records (index n_nodes: the SIM_NODE_NONE stream) of `stride` bytes: a
 * gsl_rng header followed by its state, so reaching a stream costs one cache
 * miss rather than three (pointer, gsl_rng, state). A record whose type is
 * NULL has not been seeded yet. */
struct SimRngSet {
  guint64 seed;
  guint32 n_nodes;
  const gsl_rng_type *type;
  gsize stride;
  guint8 *streams[SIM_RNG_N_PURPOSES];
};

/* Seeds (and if need be allocates) stream (node, purpose), both in range;
 * NULL only when allocation fails. */
gsl_rng *sim_rng_set_create(SimRngSet *set, guint32 node, guint32 purpose, GError **error);

/* Stream of a real node (< n_nodes, not SIM_NODE_NONE) and a purpose in range. */
static inline gsl_rng *sim_rng_set_get_inline(SimRngSet *set, guint32 node, guint32 purpose) {
  guint8 *a = set->streams[purpose];
  if (G_LIKELY(a != NULL)) {
    gsl_rng *r = (gsl_rng *)(a + (gsize)node * set->stride);
    if (G_LIKELY(r->type != NULL))
      return r;
  }
  return sim_rng_set_create(set, node, purpose, NULL);
}

#endif /* DPG_SIM_RNG_INTERNAL_H */
