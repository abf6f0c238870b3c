/*
 * sim/rng.h: random streams, one per (node, purpose).
 *
 * One GSL generator per (node, purpose), seeded by hashing (global seed, node,
 * purpose) with splitmix64. A stream's draws depend only on that triple and on
 * how many draws its owner made: never on event order or on other nodes.
 */
#ifndef DPG_SIM_RNG_H
#define DPG_SIM_RNG_H

#include <gsl/gsl_rng.h>

#include "sim/base.h"

G_BEGIN_DECLS

/** What a stream is used for; user purposes are SIM_RNG_USER + k. */
typedef enum {
  SIM_RNG_NOISE = 0,      /* privacy noise */
  SIM_RNG_DATA = 1,       /* local data: sampling, shuffling, batches */
  SIM_RNG_LATENCY = 2,    /* link latency (a key of sim_rng_message_seed) */
  SIM_RNG_LOSS = 3,       /* message loss (a key of sim_rng_message_seed) */
  SIM_RNG_TOPOLOGY = 4,   /* random graphs, peer sampling */
  SIM_RNG_PROTOCOL = 5,   /* protocol decisions (e.g. a random neighbour) */
  SIM_RNG_INIT = 6,       /* model initialization */
  SIM_RNG_USER = 16,      /* first user purpose */
  SIM_RNG_N_PURPOSES = 64 /* purposes are < SIM_RNG_N_PURPOSES in a SimRngSet */
} SimRngPurpose;

/**
 * sim_rng_stream_seed: the 64-bit seed of stream (@seed, @node, @purpose).
 * For a fixed @seed, distinct (@node, @purpose) pairs get distinct seeds (the
 * mixing is a bijection of the packed pair). @node may be SIM_NODE_NONE for a
 * global stream. Complexity: O(1).
 */
guint64 sim_rng_stream_seed(guint64 seed, guint32 node, guint32 purpose);

/**
 * sim_rng_message_seed: the 64-bit seed of the draws of one message, for
 * purpose @purpose (SIM_RNG_LATENCY, SIM_RNG_LOSS) under global @seed: a
 * counter-based hash of the link (@from, @to, original node ids), the message
 * (@round, @tag) and @purpose. The engine seeds a generator with it for each
 * transmission, so a message's latency and loss are the same whatever else is
 * sent, in whatever order: a simulation of part of a graph (the nodes near
 * the attackers, privacy/local.c) draws, on its links, the values of the full
 * run. Distinct keys of one @seed collide with probability about 2^-64 per
 * pair (mix64 of a xor of mixed words; the packed (@from, @purpose) word is
 * sim_rng_stream_seed's). Complexity: O(1).
 */
guint64 sim_rng_message_seed(guint64 seed, guint32 from, guint32 to, guint32 round, guint32 tag,
                             guint32 purpose);

/**
 * sim_rng_default_type: the generator every engine stream uses: xoshiro256**
 * (Blackman & Vigna) wrapped as a gsl_rng_type, so every gsl_ran_* function
 * works on it. Chosen over gsl_rng_mt19937 because its state is 32 bytes (MT's
 * is 5 KB: 100,000 nodes x 3 purposes would take 1.5 GB) and it is seeded from
 * all 64 bits of the stream seed (GSL's stock generators keep 32 bits, so
 * among 10^5 streams some would coincide). gsl_rng_get returns 32 bits;
 * gsl_rng_uniform uses 53.
 */
const gsl_rng_type *sim_rng_default_type(void);

/**
 * sim_rng_normals: fills @z with @n independent standard normals from @r.
 * On the default type (xoshiro256**) a 256-layer ziggurat drawn straight
 * from the generator's state (one 64-bit draw for ~99% of samples, 53-bit
 * abscissae); on any other type, gsl_ran_gaussian_ziggurat(r, 1) n times.
 * The values depend only on the stream's state: a stream gives the same
 * samples whether they are drawn n at a time or one by one.
 * Complexity: O(n).
 */
void sim_rng_normals(gsl_rng *r, double *z, gsize n);

/**
 * sim_rng_stream_new: a new generator for stream (@seed, @node, @purpose).
 * @type: (nullable) a GSL generator type; NULL means sim_rng_default_type().
 * Stock GSL types are seeded with gsl_rng_set(sim_rng_stream_seed(...)), which
 * most of them truncate to 32 bits.
 * Errors: SIM_ERROR_CAPACITY when GSL cannot allocate the generator.
 * Returns: (transfer full) the generator (free with gsl_rng_free), or NULL.
 */
gsl_rng *sim_rng_stream_new(guint64 seed, guint32 node, guint32 purpose, const gsl_rng_type *type,
                            GError **error);

/** The streams of n nodes, created on first use. */
typedef struct SimRngSet SimRngSet;

/**
 * sim_rng_set_new: streams for nodes 0..@n_nodes-1 (and SIM_NODE_NONE) under
 * global @seed, of generator @type (NULL: sim_rng_default_type()).
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @n_nodes is 0 or SIM_NODE_NONE.
 * Returns: (transfer full) the set (free with sim_rng_set_free), or NULL.
 */
SimRngSet *sim_rng_set_new(guint64 seed, guint32 n_nodes, const gsl_rng_type *type, GError **error);

/** sim_rng_set_free: frees @set and every stream it created (NULL ignored). */
void sim_rng_set_free(SimRngSet *set);

/**
 * sim_rng_set_get: stream (@node, @purpose), created (and seeded) on first use.
 * @node: < n_nodes, or SIM_NODE_NONE for a global stream.
 * @purpose: < SIM_RNG_N_PURPOSES.
 * Errors: SIM_ERROR_INVALID_ARGUMENT on a node or purpose out of range;
 * SIM_ERROR_CAPACITY when allocation fails.
 * Returns: (transfer none) the generator, owned by @set (never gsl_rng_free
 * it; gsl_rng_clone gives an independent copy), or NULL.
 * Complexity: O(1). The streams of a purpose are allocated together on its
 * first use (48 bytes per node for the default type; pages never touched cost
 * nothing).
 */
gsl_rng *sim_rng_set_get(SimRngSet *set, guint32 node, guint32 purpose, GError **error);

G_END_DECLS

#endif /* DPG_SIM_RNG_H */
