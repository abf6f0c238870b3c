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
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

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

guint64 sim_rng_message_seed(guint64 seed, guint32 from, guint32 to, guint32 round, guint32 tag,
                             guint32 purpose) {
  /* The stream seed of (from, purpose), then the link's other end with the
   * round, then the tag, each word mixed on its own and xored in: a chain of
   * bijections of the running word for a fixed key prefix. */
  guint64 h = sim_rng_stream_seed(seed, from, purpose);
  h = mix64(h ^ mix64((((guint64)to << 32) | round) + 3 * GOLDEN_GAMMA));
  return mix64(h ^ mix64((guint64)tag + 4 * GOLDEN_GAMMA));
}

/* ---- xoshiro256** as a gsl_rng_type ---- */

typedef struct {
  guint64 s[4];
} Xoshiro;

static inline guint64 rotl64(guint64 x, int k) {
  return (x << k) | (x >> (64 - k));
}

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

static void xoshiro_set(void *state, unsigned long int seed) {
  xoshiro_seed(state, (guint64)seed);
}

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

const gsl_rng_type *sim_rng_default_type(void) {
  return &xoshiro_type;
}

/* ---- Standard normals ---- */

/*
 * The ziggurat method (Marsaglia & Tsang, J. Stat. Softw. 5(8), 2000) with
 * 256 layers of equal area V under f(x) = exp(-x^2/2), the base layer holding
 * the tail beyond R. One 64-bit draw gives the layer (8 bits), the sign (1)
 * and the abscissa (53); about 99% of samples need nothing else. Drawn
 * straight from the xoshiro state: GSL's gsl_ran_gaussian_ziggurat goes
 * through two indirect calls per sample and keeps 24 bits of abscissa.
 */
#define ZIG_LAYERS 256
#define ZIG_R 3.6541528853610088
#define ZIG_V 4.92867323399e-3

static double zig_x[ZIG_LAYERS + 1], zig_f[ZIG_LAYERS + 1];

static gpointer zig_init(gpointer unused) {
  (void)unused;
  /* Layer i spans heights f(x[i]) to f(x[i+1]) over [0, x[i]]: equal areas
   * x[i] (f(x[i+1]) - f(x[i])) = V give x[i+1] from x[i]; the base layer's
   * rectangle is V / f(R) wide (its part beyond R stands for the tail). */
  zig_x[0] = ZIG_V / exp(-0.5 * ZIG_R * ZIG_R);
  zig_x[1] = ZIG_R;
  for (int i = 1; i < ZIG_LAYERS - 1; i++)
    zig_x[i + 1] = sqrt(-2.0 * log(ZIG_V / zig_x[i] + exp(-0.5 * zig_x[i] * zig_x[i])));
  zig_x[ZIG_LAYERS] = 0.0;
  for (int i = 0; i <= ZIG_LAYERS; i++)
    zig_f[i] = exp(-0.5 * zig_x[i] * zig_x[i]);
  return NULL;
}

static inline double uniform_open(Xoshiro *x) { /* (0, 1] */
  return ((double)(xoshiro_next(x) >> 11) + 1.0) * 0x1.0p-53;
}

static inline double zig_normal(Xoshiro *st) {
  for (;;) {
    guint64 bits = xoshiro_next(st);
    guint i = (guint)(bits & 0xFF);
    double x = (double)(bits >> 11) * 0x1.0p-53 * zig_x[i];
    double sign = (bits & 0x100) ? -1.0 : 1.0;
    if (x < zig_x[i + 1])
      return sign * x;
    if (i == 0) { /* the tail beyond R (Marsaglia's exponential method) */
      double a, b;
      do {
        a = -log(uniform_open(st)) / ZIG_R;
        b = -log(uniform_open(st));
      } while (b + b < a * a);
      return sign * (ZIG_R + a);
    }
    double y = zig_f[i] + uniform_open(st) * (zig_f[i + 1] - zig_f[i]);
    if (y < exp(-0.5 * x * x))
      return sign * x;
  }
}

void sim_rng_normals(gsl_rng *r, double *z, gsize n) {
  g_return_if_fail(r != NULL && (z != NULL || n == 0));
  if (r->type != &xoshiro_type) {
    for (gsize i = 0; i < n; i++)
      z[i] = gsl_ran_gaussian_ziggurat(r, 1.0);
    return;
  }
  static GOnce once = G_ONCE_INIT;
  g_once(&once, zig_init, NULL);
  /* A local copy of the state stays in registers; through r->state every
   * sample would store it back (z might alias it, as far as C knows). */
  Xoshiro st = *(Xoshiro *)r->state;
  for (gsize i = 0; i < n; i++)
    z[i] = zig_normal(&st);
  *(Xoshiro *)r->state = st;
}

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
