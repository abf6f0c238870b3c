/*
 * sim/rng.c: per-(node, purpose) random streams.
 *
 * Seeds: splitmix64's output function (a bijection of 64-bit words) mixes the
 * global seed and the packed (node, purpose) word separately, and once more
 * after XOR-ing them. For a fixed global seed the map from (node, purpose) to
 * stream seed is therefore injective: two streams of one run never share a seed.
 *
 * Generator: xoshiro256** (Blackman & Vigna, 2018) behind the gsl_rng_type
 * interface. Its 256-bit state is filled from a splitmix64 sequence started at
 * the stream seed, as its authors recommend, so no state is all zero and nearby
 * seeds give unrelated states.
 */
#include <stdlib.h>

#include "sim/rng_internal.h"

#define GOLDEN_GAMMA UINT64_C(0x9E3779B97F4A7C15)

static inline guint64 mix64(guint64 z) {
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static inline guint64 splitmix64_next(guint64 *x) {
  *x += GOLDEN_GAMMA;
  return mix64(*x);
}

guint64 sim_rng_stream_seed(guint64 seed, guint32 node, guint32 purpose) {
  guint64 key = ((guint64)node << 32) | purpose;
  return mix64(mix64(seed + GOLDEN_GAMMA) ^ mix64(key + 2 * GOLDEN_GAMMA));
}

/* ---- xoshiro256** as a gsl_rng_type ---- */

typedef struct {
  guint64 s[4];
} Xoshiro;

static inline guint64 rotl64(guint64 x, int k) { return (x << k) | (x >> (64 - k)); }

static inline guint64 xoshiro_next(Xoshiro *x) {
  guint64 *s = x->s;
  const guint64 result = rotl64(s[1] * 5, 7) * 9;
  const guint64 t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl64(s[3], 45);
  return result;
}

static void xoshiro_seed(Xoshiro *x, guint64 seed) {
  guint64 sm = seed;
  for (int i = 0; i < 4; i++)
    x->s[i] = splitmix64_next(&sm);
}

static void xoshiro_set(void *state, unsigned long int seed) { xoshiro_seed(state, (guint64)seed); }

/* The high 32 bits are the best ones; GSL's integer helpers assume a range
 * that fits an unsigned long, which 32 bits always do. */
static unsigned long int xoshiro_get(void *state) {
  return (unsigned long int)(xoshiro_next(state) >> 32);
}

static double xoshiro_get_double(void *state) {
  return (double)(xoshiro_next(state) >> 11) * 0x1.0p-53;
}

static const gsl_rng_type xoshiro_type = {
    "xoshiro256**", 0xffffffffUL, 0, sizeof(Xoshiro), xoshiro_set, xoshiro_get, xoshiro_get_double,
};

const gsl_rng_type *sim_rng_default_type(void) { return &xoshiro_type; }

static void seed_stream(gsl_rng *r, guint64 seed, guint32 node, guint32 purpose) {
  guint64 s = sim_rng_stream_seed(seed, node, purpose);
  if (r->type == &xoshiro_type)
    xoshiro_seed(r->state, s); /* all 64 bits, even where long is 32 */
  else
    gsl_rng_set(r, (unsigned long int)s);
}

gsl_rng *sim_rng_stream_new(guint64 seed, guint32 node, guint32 purpose, const gsl_rng_type *type,
                            GError **error) {
  if (!type)
    type = &xoshiro_type;
  /* Built by hand as gsl_rng_alloc would (gsl_rng_free releases both blocks
   * with free), because gsl_rng_alloc reports failure through GSL's global
   * error handler, which aborts by default. */
  gsl_rng *r = malloc(sizeof *r);
  void *state = r ? calloc(1, type->size ? type->size : 1) : NULL;
  if (!state) {
    free(r);
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                "cannot allocate a %s generator for stream (node %u, purpose %u)", type->name, node,
                purpose);
    return NULL;
  }
  r->type = type;
  r->state = state;
  seed_stream(r, seed, node, purpose);
  return r;
}

/* ---- SimRngSet ---- */

SimRngSet *sim_rng_set_new(guint64 seed, guint32 n_nodes, const gsl_rng_type *type,
                           GError **error) {
  if (n_nodes == 0 || n_nodes == SIM_NODE_NONE) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "random stream set: node count %u must be between 1 and %u", n_nodes,
                SIM_NODE_NONE - 1);
    return NULL;
  }
  SimRngSet *set = g_new0(SimRngSet, 1);
  set->seed = seed;
  set->n_nodes = n_nodes;
  set->type = type ? type : &xoshiro_type;
  /* Header then state, each rounded up to 16 bytes to keep states aligned. */
  set->stride = ((sizeof(gsl_rng) + 15) & ~(gsize)15) + ((set->type->size + 15) & ~(gsize)15);
  return set;
}

void sim_rng_set_free(SimRngSet *set) {
  if (!set)
    return;
  for (guint p = 0; p < SIM_RNG_N_PURPOSES; p++)
    g_free(set->streams[p]);
  g_free(set);
}

gsl_rng *sim_rng_set_create(SimRngSet *set, guint32 node, guint32 purpose, GError **error) {
  guint32 index = node == SIM_NODE_NONE ? set->n_nodes : node;
  if (!set->streams[purpose]) {
    /* Zeroed lazily by the system: untouched records cost no memory. */
    set->streams[purpose] = g_try_malloc0_n((gsize)set->n_nodes + 1, set->stride);
    if (!set->streams[purpose]) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                  "cannot allocate the streams of purpose %u for %u nodes (%" G_GSIZE_FORMAT
                  " bytes each)",
                  purpose, set->n_nodes, set->stride);
      return NULL;
    }
  }
  guint8 *rec = set->streams[purpose] + (gsize)index * set->stride;
  gsl_rng *r = (gsl_rng *)rec;
  if (!r->type) {
    r->type = set->type;
    r->state = rec + ((sizeof(gsl_rng) + 15) & ~(gsize)15);
    seed_stream(r, set->seed, node, purpose);
  }
  return r;
}

gsl_rng *sim_rng_set_get(SimRngSet *set, guint32 node, guint32 purpose, GError **error) {
  g_return_val_if_fail(set != NULL, NULL);
  if (node >= set->n_nodes && node != SIM_NODE_NONE) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "random stream: node %u out of range (the run has %u nodes)", node, set->n_nodes);
    return NULL;
  }
  if (purpose >= SIM_RNG_N_PURPOSES) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "random stream: purpose %u out of range (purposes are < %d)", purpose,
                SIM_RNG_N_PURPOSES);
    return NULL;
  }
  return sim_rng_set_create(set, node, purpose, error);
}
