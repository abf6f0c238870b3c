/*
 * tests/sim/test_rng.c: per-(node, purpose) streams: the generator matches
 * xoshiro256** test vectors and an independent (Python) computation of the
 * seeding, streams are reproducible, distinct triples give distinct streams,
 * a node's draws do not depend on other nodes' draws or on creation order,
 * and two streams are uncorrelated.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static gsl_rng *stream(guint64 seed, guint32 node, guint32 purpose) {
  GError *err = NULL;
  gsl_rng *r = sim_rng_stream_new(seed, node, purpose, NULL, &err);
  g_assert_no_error(err);
  return r;
}

/* State {1, 2, 3, 4}: the 64-bit outputs of the reference xoshiro256** are
 * 11520 (= rotl(2*5, 7) * 9 by hand), 0, 1509978240, 1215971899390074240.
 * gsl_rng_uniform returns output >> 11 scaled by 2^-53. */
static void test_xoshiro_vectors(void) {
  gsl_rng *r = gsl_rng_alloc(sim_rng_default_type());
  g_assert_cmpstr(gsl_rng_name(r), ==, "xoshiro256**");
  g_assert_cmpuint(gsl_rng_size(r), ==, 4 * sizeof(guint64));
  g_assert_cmpuint(gsl_rng_max(r), ==, 0xffffffffUL);
  const guint64 state[4] = {1, 2, 3, 4};
  memcpy(gsl_rng_state(r), state, sizeof state);
  const guint64 out[4] = {11520, 0, 1509978240, UINT64_C(1215971899390074240)};
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat(gsl_rng_uniform(r), ==, (double)(out[i] >> 11) * 0x1.0p-53);
  memcpy(gsl_rng_state(r), state, sizeof state);
  for (int i = 0; i < 4; i++)
    g_assert_cmpuint(gsl_rng_get(r), ==, out[i] >> 32);
  gsl_rng_free(r);
}

/* Expected values computed outside the project (Python, from the splitmix64
 * and xoshiro256** definitions): stream seed of (42, 7, 3), then the high 32
 * bits of the first three outputs after splitmix64 seeding. */
static void test_seeding_reference(void) {
  g_assert_cmpuint(sim_rng_stream_seed(42, 7, 3), ==, UINT64_C(0xf22897ca0765642d));
  g_assert_cmpuint(sim_rng_stream_seed(0, 0, 0), ==, UINT64_C(0x7fc37233dfca105f));
  gsl_rng *r = stream(42, 7, 3);
  g_assert_cmpuint(gsl_rng_get(r), ==, 2188119448UL);
  g_assert_cmpuint(gsl_rng_get(r), ==, 2955022085UL);
  g_assert_cmpuint(gsl_rng_get(r), ==, 1011993619UL);
  gsl_rng_free(r);
}

/* Message seeds: reference values computed outside the project (Python,
 * the same splitmix64 mixing as sim_rng_stream_seed, chained over (to,
 * round) and tag), and every key of a small grid, the link reversed
 * included, gets its own seed. */
static void test_message_seed(void) {
  g_assert_cmpuint(sim_rng_message_seed(42, 7, 3, 5, 0, SIM_RNG_LATENCY), ==,
                   UINT64_C(0xd29e6797e194203d));
  g_assert_cmpuint(sim_rng_message_seed(0, 0, 0, 0, 0, 0), ==, UINT64_C(0xa093752749b96149));
  g_assert_cmpuint(sim_rng_message_seed(1, 3, 7, 5, 0, SIM_RNG_LOSS), ==,
                   UINT64_C(0xa0d8d546d9299315));
  GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
  static guint64 keys[6 * 6 * 5 * 3 * 2];
  guint n = 0;
  for (guint32 from = 0; from < 6; from++)
    for (guint32 to = 0; to < 6; to++)
      for (guint32 round = 0; round < 5; round++)
        for (guint32 tag = 0; tag < 3; tag++)
          for (guint32 p = SIM_RNG_LATENCY; p <= SIM_RNG_LOSS; p++) {
            keys[n] = sim_rng_message_seed(9, from, to, round, tag, p);
            g_assert_false(g_hash_table_contains(seen, &keys[n]));
            g_hash_table_add(seen, &keys[n]);
            n++;
          }
  g_assert_cmpuint(n, ==, G_N_ELEMENTS(keys));
  g_hash_table_destroy(seen);
}

static void test_reproducible(void) {
  gsl_rng *a = stream(7, 3, SIM_RNG_NOISE), *b = stream(7, 3, SIM_RNG_NOISE);
  for (int i = 0; i < 1000; i++)
    g_assert_cmpfloat(gsl_rng_uniform(a), ==, gsl_rng_uniform(b));
  gsl_rng_free(a);
  gsl_rng_free(b);

  /* A stock GSL type is seeded through gsl_rng_set with the stream seed. */
  GError *err = NULL;
  gsl_rng *mt = sim_rng_stream_new(7, 3, SIM_RNG_DATA, gsl_rng_mt19937, &err);
  g_assert_no_error(err);
  gsl_rng *manual = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(manual, (unsigned long)sim_rng_stream_seed(7, 3, SIM_RNG_DATA));
  for (int i = 0; i < 100; i++)
    g_assert_cmpuint(gsl_rng_get(mt), ==, gsl_rng_get(manual));
  gsl_rng_free(mt);
  gsl_rng_free(manual);
}

static int cmp_u64(const void *a, const void *b) {
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* For one global seed, every (node, purpose) pair gets its own seed; and
 * changing any one of seed, node, purpose changes the first draws. */
static void test_distinct(void) {
  const guint n_nodes = 2000, n_purposes = SIM_RNG_N_PURPOSES;
  guint64 *s = g_new(guint64, n_nodes * n_purposes);
  for (guint u = 0; u < n_nodes; u++)
    for (guint p = 0; p < n_purposes; p++)
      s[u * n_purposes + p] = sim_rng_stream_seed(12345, u, p);
  qsort(s, n_nodes * n_purposes, sizeof *s, cmp_u64);
  for (guint i = 1; i < n_nodes * n_purposes; i++)
    g_assert_cmpuint(s[i - 1], <, s[i]);
  g_free(s);

  const guint64 triples[][3] = {
      {1, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1}, {1, 1, 1}, {1, SIM_NODE_NONE, 0}, {0, 0, 0}};
  const guint n = G_N_ELEMENTS(triples);
  guint32 first[G_N_ELEMENTS(triples)][4];
  for (guint i = 0; i < n; i++) {
    gsl_rng *r = stream(triples[i][0], (guint32)triples[i][1], (guint32)triples[i][2]);
    for (int k = 0; k < 4; k++)
      first[i][k] = (guint32)gsl_rng_get(r);
    gsl_rng_free(r);
  }
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      g_assert_true(memcmp(first[i], first[j], sizeof first[i]) != 0);
}

/* Node 5's NOISE draws are the same whether it draws alone or interleaved
 * with other nodes and purposes, and whichever stream was created first. */
static void test_independent_of_others(void) {
  GError *err = NULL;
  SimRngSet *alone = sim_rng_set_new(99, 10, NULL, &err);
  SimRngSet *busy = sim_rng_set_new(99, 10, NULL, &err);
  g_assert_no_error(err);
  /* Create other streams first in `busy`. */
  for (guint u = 0; u < 10; u++)
    gsl_rng_uniform(sim_rng_set_get(busy, 9 - u, SIM_RNG_LATENCY, NULL));
  double mine[500];
  gsl_rng *r = sim_rng_set_get(alone, 5, SIM_RNG_NOISE, &err);
  g_assert_no_error(err);
  for (int i = 0; i < 500; i++)
    mine[i] = gsl_ran_gaussian(r, 1.0);
  GRand *pick = g_rand_new_with_seed(3);
  for (int i = 0; i < 500; i++) {
    for (int k = g_rand_int_range(pick, 0, 4); k > 0; k--) {
      guint32 u = g_rand_int_range(pick, 0, 10);
      guint32 p = g_rand_int_range(pick, 0, 8);
      if (u == 5 && p == SIM_RNG_NOISE)
        continue;
      gsl_rng_uniform(sim_rng_set_get(busy, u, p, NULL));
    }
    g_assert_cmpfloat(gsl_ran_gaussian(sim_rng_set_get(busy, 5, SIM_RNG_NOISE, NULL), 1.0), ==,
                      mine[i]);
  }
  /* The same pointer comes back on every call (streams are kept, not reseeded). */
  g_assert_true(sim_rng_set_get(busy, 5, SIM_RNG_NOISE, NULL) ==
                sim_rng_set_get(busy, 5, SIM_RNG_NOISE, NULL));
  g_rand_free(pick);
  sim_rng_set_free(alone);
  sim_rng_set_free(busy);
}

/* Pearson correlation of 200,000 uniform pairs from streams that differ in
 * one coordinate; under independence r ~ N(0, 1/n), so |r| < 5/sqrt(n). Each
 * mean within 5 standard errors of 1/2. */
static void test_uncorrelated(void) {
  const int n = 200000;
  const guint64 pairs[][2][3] = {
      {{1, 0, SIM_RNG_NOISE}, {1, 1, SIM_RNG_NOISE}},
      {{1, 0, SIM_RNG_NOISE}, {2, 0, SIM_RNG_NOISE}},
      {{1, 0, SIM_RNG_NOISE}, {1, 0, SIM_RNG_DATA}},
  };
  for (guint k = 0; k < G_N_ELEMENTS(pairs); k++) {
    gsl_rng *a = stream(pairs[k][0][0], (guint32)pairs[k][0][1], (guint32)pairs[k][0][2]);
    gsl_rng *b = stream(pairs[k][1][0], (guint32)pairs[k][1][1], (guint32)pairs[k][1][2]);
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
      double x = gsl_rng_uniform(a), y = gsl_rng_uniform(b);
      sx += x;
      sy += y;
      sxx += x * x;
      syy += y * y;
      sxy += x * y;
    }
    double mx = sx / n, my = sy / n;
    double r = (sxy / n - mx * my) / sqrt((sxx / n - mx * mx) * (syy / n - my * my));
    g_test_message("pair %u: r = %.5f, means %.5f %.5f", k, r, mx, my);
    g_assert_cmpfloat(fabs(r), <, 5.0 / sqrt(n));
    double se = sqrt(1.0 / 12 / n);
    g_assert_cmpfloat(fabs(mx - 0.5), <, 5 * se);
    g_assert_cmpfloat(fabs(my - 0.5), <, 5 * se);
    gsl_rng_free(a);
    gsl_rng_free(b);
  }
}

/* gsl_ran_* functions work on the wrapped type: N(0, 1) mean and variance. */
static void test_gsl_distributions(void) {
  gsl_rng *r = stream(5, 0, SIM_RNG_NOISE);
  const int n = 100000;
  double s = 0, ss = 0;
  for (int i = 0; i < n; i++) {
    double z = gsl_ran_gaussian_ziggurat(r, 1.0);
    s += z;
    ss += z * z;
  }
  double mean = s / n, var = ss / n - mean * mean;
  g_assert_cmpfloat(fabs(mean), <, 5 / sqrt(n));
  g_assert_cmpfloat(fabs(var - 1), <, 5 * sqrt(2.0 / n));
  unsigned long counts[6] = {0};
  for (int i = 0; i < 60000; i++)
    counts[gsl_rng_uniform_int(r, 6)]++;
  for (int k = 0; k < 6; k++) /* binomial(60000, 1/6): sd ~ 91 */
    g_assert_cmpfloat(fabs((double)counts[k] - 10000), <, 5 * 91.3);
  gsl_rng_free(r);
}

static void test_set_errors(void) {
  GError *err = NULL;
  g_assert_null(sim_rng_set_new(1, 0, NULL, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  SimRngSet *set = sim_rng_set_new(1, 4, NULL, &err);
  g_assert_no_error(err);
  g_assert_null(sim_rng_set_get(set, 4, SIM_RNG_NOISE, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "node 4"));
  g_clear_error(&err);
  g_assert_null(sim_rng_set_get(set, 0, SIM_RNG_N_PURPOSES, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "purpose 64"));
  g_clear_error(&err);
  /* The global stream is the SIM_NODE_NONE stream of sim_rng_stream_new. */
  gsl_rng *g = sim_rng_set_get(set, SIM_NODE_NONE, SIM_RNG_USER + 3, &err);
  g_assert_no_error(err);
  gsl_rng *ref = stream(1, SIM_NODE_NONE, SIM_RNG_USER + 3);
  for (int i = 0; i < 10; i++)
    g_assert_cmpuint(gsl_rng_get(g), ==, gsl_rng_get(ref));
  gsl_rng_free(ref);
  sim_rng_set_free(set);
}

/* sim_rng_normals against the normal law, by independent checks on 10^6
 * samples of one stream: mean and variance (4.5 standard errors), the
 * Kolmogorov-Smirnov distance to gsl_cdf_ugaussian_P (below its 0.1% critical
 * value 1.95/sqrt(n)), the mass beyond the ziggurat's base |x| > R = 3.654
 * (tail sampler) and beyond 2 (wedges) within 4.5 binomial standard errors,
 * and symmetry. Draws n at a time equal draws one at a time; a non-default
 * generator gets GSL's ziggurat, sample for sample. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void test_normals(void) {
  enum { N = 1000000 };
  double *z = g_new(double, N);
  gsl_rng *r = stream(99, 3, SIM_RNG_NOISE);
  sim_rng_normals(r, z, N);
  double sum = 0, sum2 = 0;
  gsize tail = 0, beyond2 = 0, neg = 0;
  for (gsize i = 0; i < N; i++) {
    g_assert_true(isfinite(z[i]));
    sum += z[i];
    sum2 += z[i] * z[i];
    tail += fabs(z[i]) > 3.6541528853610088;
    beyond2 += fabs(z[i]) > 2.0;
    neg += z[i] < 0;
  }
  double mean = sum / N, var = sum2 / N - mean * mean;
  g_assert_cmpfloat(fabs(mean), <, 4.5 / sqrt(N));
  g_assert_cmpfloat(fabs(var - 1.0), <, 4.5 * sqrt(2.0 / N));
  const double p_tail = 2 * gsl_cdf_ugaussian_Q(3.6541528853610088),
               p2 = 2 * gsl_cdf_ugaussian_Q(2);
  g_assert_cmpfloat(fabs((double)tail - N * p_tail), <, 4.5 * sqrt(N * p_tail));
  g_assert_cmpfloat(fabs((double)beyond2 - N * p2), <, 4.5 * sqrt(N * p2 * (1 - p2)));
  g_assert_cmpfloat(fabs((double)neg - N / 2.0), <, 4.5 * sqrt(N / 4.0));
  qsort(z, N, sizeof(double), cmp_double);
  double ks = 0;
  for (gsize i = 0; i < N; i++) {
    double F = gsl_cdf_ugaussian_P(z[i]);
    ks = MAX(ks, MAX(F - (double)i / N, (double)(i + 1) / N - F));
  }
  g_assert_cmpfloat(ks, <, 1.95 / sqrt(N));
  gsl_rng_free(r);

  gsl_rng *a = stream(5, 1, SIM_RNG_NOISE), *b = stream(5, 1, SIM_RNG_NOISE);
  double one[64], many[64];
  for (int i = 0; i < 64; i++)
    sim_rng_normals(a, &one[i], 1);
  sim_rng_normals(b, many, 64);
  g_assert_cmpmem(one, sizeof one, many, sizeof many);
  gsl_rng_free(a);
  gsl_rng_free(b);

  gsl_rng *m = gsl_rng_alloc(gsl_rng_mt19937), *ref = gsl_rng_alloc(gsl_rng_mt19937);
  sim_rng_normals(m, many, 64);
  for (int i = 0; i < 64; i++)
    g_assert_cmpfloat(many[i], ==, gsl_ran_gaussian_ziggurat(ref, 1.0));
  gsl_rng_free(m);
  gsl_rng_free(ref);
  g_free(z);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sim/rng/xoshiro-vectors", test_xoshiro_vectors);
  g_test_add_func("/sim/rng/seeding-reference", test_seeding_reference);
  g_test_add_func("/sim/rng/message-seed", test_message_seed);
  g_test_add_func("/sim/rng/reproducible", test_reproducible);
  g_test_add_func("/sim/rng/distinct", test_distinct);
  g_test_add_func("/sim/rng/independent-of-others", test_independent_of_others);
  g_test_add_func("/sim/rng/uncorrelated", test_uncorrelated);
  g_test_add_func("/sim/rng/gsl-distributions", test_gsl_distributions);
  g_test_add_func("/sim/rng/set-errors", test_set_errors);
  g_test_add_func("/sim/rng/normals", test_normals);
  return g_test_run();
}
