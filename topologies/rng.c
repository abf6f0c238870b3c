/*
 * topologies/rng.c: the seed hashing that makes random graphs and schedules
 * deterministic: one private generator per (seed, round, purpose).
 */
#include "topologies/internal.h"

static guint64 mix64(guint64 z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

guint64 topo_hash3(guint64 a, guint64 b, guint64 c) {
  return mix64(mix64(mix64(a) ^ b) ^ c);
}

gsl_rng *topo_rng_new(guint64 seed, guint64 round, guint64 purpose) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, (unsigned long)topo_hash3(seed, round, purpose));
  return r;
}
