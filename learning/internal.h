/*
 * learning/internal.h: helpers shared inside learning/ only (never include
 * from another module).
 */
#ifndef DPG_LEARNING_INTERNAL_H
#define DPG_LEARNING_INTERNAL_H

#include <gsl/gsl_rng.h>

#include "learning/learning.h"

/* --- random streams ---------------------------------------------------- */

/* One purpose per kind of draw, so that the same user seed gives independent
 * streams to the split, the partition, the initialisation and generation. */
enum {
  LEARN_PURPOSE_SPLIT = 1,
  LEARN_PURPOSE_PARTITION = 2,
  LEARN_PURPOSE_INIT = 3,
  LEARN_PURPOSE_SYNTHETIC = 4,
  LEARN_PURPOSE_DIRICHLET = 5,
};

/* A Mersenne Twister seeded by hashing (seed, purpose). Free with gsl_rng_free. */
gsl_rng *learn_rng_new(guint64 seed, guint64 purpose);

/* Fisher-Yates shuffle of a gsize array with gsl_rng_uniform_int draws. */
void learn_shuffle(gsl_rng *rng, gsize *a, gsize n);

/* --- specs -------------------------------------------------------------- */

/* A parsed "name[:head][,key=value]..." spec. head is the first item after
 * ':' when the caller asks for one (a path, a generator kind). */
typedef struct {
  char *name;
  char *head;        /* NULL when not requested or absent */
  GPtrArray *keys;   /* char*, in spec order */
  GPtrArray *values; /* char*, parallel to keys */
} LearnSpec;

/* Parse text; what names the thing ("dataset", "model") in messages. When
 * want_head is TRUE the first item after ':' is taken verbatim as head and
 * is required. */
LearnSpec *learn_spec_parse(const char *text, const char *what, gboolean want_head, GError **error);
void learn_spec_free(LearnSpec *spec);
const char *learn_spec_get(const LearnSpec *spec, const char *key);

/* Fail with LEARN_ERROR_PARSE when a key is not in the NULL-terminated valid. */
gboolean learn_spec_check(const LearnSpec *spec, const char *what, const char *const *valid,
                          GError **error);

/* Typed getters: dflt when the key is absent; PARSE / INVALID_ARGUMENT errors
 * name the spec, the key and the accepted range. */
gboolean learn_spec_uint(const LearnSpec *spec, const char *key, guint64 dflt, guint64 min,
                         guint64 max, guint64 *out, GError **error);
gboolean learn_spec_double(const LearnSpec *spec, const char *key, double dflt, double min,
                           double max, double *out, GError **error);
gboolean learn_spec_bool(const LearnSpec *spec, const char *key, gboolean dflt, gboolean *out,
                         GError **error);

/* --- datasets ----------------------------------------------------------- */

/* Like learn_dataset_new but never fails on n*d overflow silently: returns
 * NULL and sets LEARN_ERROR_INVALID_ARGUMENT. */
LearnDataset *learn_dataset_alloc(gsize n, gsize n_features, guint n_classes, GError **error);

#endif /* DPG_LEARNING_INTERNAL_H */
