/*
 * protocols/runtime_noise.c: registering and drawing noise for protocols.
 *
 * Local noise comes from the node's SIM_RNG_NOISE stream. An edge secret
 * must be the same sample at both ends whatever the order they ask in, so it
 * comes from its own stream seeded by (run seed, edge, round), and the first
 * end to ask registers it; the entry is dropped once both ends have it.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include "protocols/internal.h"

/* Purpose tag of the edge-secret streams (any 32-bit value works here: it
 * only feeds the seed hash). */
#define EDGE_SECRET_PURPOSE (SIM_RNG_USER + 41)

typedef struct {
  guint a, b, round; /* a < b */
} EdgeKey;

typedef struct {
  SimNoiseId id;
  double std;
  double *z;
  guint8 fetched; /* bit 0: end a, bit 1: end b */
} EdgeSecret;

static guint edge_hash(gconstpointer p) {
  const EdgeKey *k = p;
  guint64 x = ((guint64)k->a << 32 | k->b) ^
              ((guint64)k->round * G_GUINT64_CONSTANT(0x9E3779B97F4A7C15));
  x ^= x >> 29;
  x *= G_GUINT64_CONSTANT(0xBF58476D1CE4E5B9);
  return (guint)(x >> 32);
}

static gboolean edge_equal(gconstpointer p, gconstpointer q) {
  const EdgeKey *x = p, *y = q;
  return x->a == y->a && x->b == y->b && x->round == y->round;
}

static void edge_secret_free(gpointer p) {
  EdgeSecret *s = p;
  g_free(s->z);
  g_free(s);
}

void proto_secrets_free(ProtoContext *ctx) {
  if (ctx->secrets != NULL) {
    g_hash_table_destroy(ctx->secrets);
    ctx->secrets = NULL;
  }
}

SimNoiseId proto_node_noise_register_local(ProtoNode *node, double std, guint round,
                                           GError **error) {
  return sim_noise_register_local(node->ctx->noise, std, node->id, round, error);
}

gboolean proto_node_noise_draw(ProtoNode *node, double *z, guint count, GError **error) {
  ProtoContext *ctx = node->ctx;
  if (ctx->dim == 0 || count == 0)
    return TRUE;
  if (z == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: a buffer of %u x %" G_GSIZE_FORMAT " noise samples is required", node->id,
                count, ctx->dim);
    return FALSE;
  }
  gsl_rng *rng = sim_engine_rng(ctx->engine, node->id, SIM_RNG_NOISE, error);
  if (rng == NULL)
    return FALSE;
  sim_rng_normals(rng, z, (gsize)count * ctx->dim);
  return TRUE;
}

SimNoiseId proto_node_noise_local(ProtoNode *node, double std, guint round, double *z,
                                  GError **error) {
  ProtoContext *ctx = node->ctx;
  if (ctx->dim > 0 && z == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: a noise sample buffer of %" G_GSIZE_FORMAT " values is required",
                node->id, ctx->dim);
    return SIM_NOISE_ID_INVALID;
  }
  SimNoiseId k = proto_node_noise_register_local(node, std, round, error);
  if (k != SIM_NOISE_ID_INVALID && !proto_node_noise_draw(node, z, 1, error))
    return SIM_NOISE_ID_INVALID;
  return k;
}

gboolean proto_edge_secret_sample(guint64 seed, guint a, guint b, guint round, double *z, gsize d,
                                  GError **error) {
  g_return_val_if_fail(z != NULL || d == 0, FALSE);
  guint64 s = sim_rng_stream_seed(sim_rng_stream_seed(seed, MIN(a, b), EDGE_SECRET_PURPOSE),
                                  MAX(a, b), round);
  gsl_rng *rng = sim_rng_stream_new(s, 0, 0, NULL, error);
  if (rng == NULL)
    return FALSE;
  sim_rng_normals(rng, z, d);
  gsl_rng_free(rng);
  return TRUE;
}

SimNoiseId proto_node_edge_secret(ProtoNode *node, guint peer, guint round, double std, double *z,
                                  double *sign, GError **error) {
  ProtoContext *ctx = node->ctx;
  guint u = node->id;
  if (peer == u || peer >= ctx->n || (ctx->dim > 0 && z == NULL) || sign == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: an edge secret needs another node < %u as peer (got %u), a sample "
                "buffer and a sign",
                u, ctx->n, peer);
    return SIM_NOISE_ID_INVALID;
  }
  if (ctx->secrets == NULL)
    ctx->secrets = g_hash_table_new_full(edge_hash, edge_equal, g_free, edge_secret_free);
  EdgeKey key = {MIN(u, peer), MAX(u, peer), round};
  guint8 bit = u == key.a ? 1 : 2;
  EdgeSecret *s = g_hash_table_lookup(ctx->secrets, &key);
  if (s == NULL) {
    SimNoiseId id = sim_noise_register_edge(ctx->noise, std, key.a, key.b, round, error);
    if (id == SIM_NOISE_ID_INVALID)
      return id;
    s = g_new0(EdgeSecret, 1);
    s->id = id;
    s->std = std;
    if (ctx->dim > 0) {
      s->z = g_new(double, ctx->dim);
      if (!proto_edge_secret_sample(ctx->seed, key.a, key.b, round, s->z, ctx->dim, error)) {
        g_free(s->z);
        g_free(s);
        return SIM_NOISE_ID_INVALID;
      }
    }
    g_hash_table_insert(ctx->secrets, g_memdup2(&key, sizeof key), s);
    /* The other end adds it later, maybe after a rebase of the space. */
    sim_noise_retain(ctx->noise, id);
  } else if (s->std != std || (s->fetched & bit)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: edge secret {%u, %u} of round %u %s", u, key.a, key.b, round,
                (s->fetched & bit) ? "asked twice by the same end"
                                   : "asked with two different standard deviations");
    return SIM_NOISE_ID_INVALID;
  }
  SimNoiseId id = s->id;
  if (ctx->dim > 0)
    memcpy(z, s->z, ctx->dim * sizeof(double));
  *sign = u == key.a ? 1.0 : -1.0;
  s->fetched |= bit;
  if (s->fetched == 3) {
    sim_noise_release(ctx->noise, id);
    g_hash_table_remove(ctx->secrets, &key);
  }
  return id;
}
