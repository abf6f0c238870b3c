/*
 * learning/internal.h: helpers shared inside learning/ only (never include
 * from another module).
 */
#ifndef DPG_LEARNING_INTERNAL_H
#define DPG_LEARNING_INTERNAL_H

#include <gsl/gsl_rng.h>

#include "learning/learning.h"
#include "spec/spec.h"

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

/* learn_warning: one warning to the layer's channel (learning.h,
 * learn_set_warning_handler). */
void learn_warning(const char *format, ...) G_GNUC_PRINTF(1, 2);

/* A uniformly random permutation of 0..@n-1: the identity put through
 * learn_shuffle with @rng (so the same draws). Newly allocated (g_free);
 * O(n). */
gsize *learn_permutation(gsl_rng *rng, gsize n);

/* --- datasets ----------------------------------------------------------- */

/* Like learn_dataset_new but never fails on n*d overflow silently: returns
 * NULL and sets LEARN_ERROR_INVALID_ARGUMENT. */
LearnDataset *learn_dataset_alloc(gsize n, gsize n_features, guint n_classes, GError **error);

/* FALSE (LEARN_ERROR_INVALID_ARGUMENT, "a @what needs ...") unless there is
 * a feature and 0 (regression) or at least 2 classes: the shape a dataset
 * and a model share. O(1). */
gboolean learn_check_shape(const char *what, gsize n_features, guint n_classes, GError **error);

#endif /* DPG_LEARNING_INTERNAL_H */
