/* learning/util.c: seeded random streams and shuffling. */
#include "learning/internal.h"

static guint64 mix64(guint64 z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

gsl_rng *learn_rng_new(guint64 seed, guint64 purpose) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  /* MT keeps 32 bits of the seed; hashing first spreads all 64 bits of seed
   * and the purpose over them. */
  guint64 h = mix64(mix64(seed) ^ (purpose * 0xd1b54a32d192ed03ULL));
  gsl_rng_set(r, (unsigned long)(h ^ (h >> 32)));
  return r;
}

void learn_shuffle(gsl_rng *rng, gsize *a, gsize n) {
  for (gsize i = n; i > 1; i--) {
    gsize j = (gsize)gsl_rng_uniform_int(rng, (unsigned long)i);
    gsize t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
  }
}

gsize *learn_permutation(gsl_rng *rng, gsize n) {
  g_return_val_if_fail(rng != NULL, NULL);
  gsize *perm = g_new(gsize, n);
  for (gsize i = 0; i < n; i++)
    perm[i] = i;
  learn_shuffle(rng, perm, n);
  return perm;
}
