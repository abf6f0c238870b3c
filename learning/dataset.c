/*
 * learning/dataset.c: dataset storage, subsets, train/test split and
 * train-only standardization.
 */
#include <math.h>
#include <string.h>

#include "learning/internal.h"

gsize learn_dataset_bytes(gsize n, gsize n_features) {
  /* Features and targets, and the train/test copies made right after
   * loading (learn_dataset_split): twice, with the split's permutation of
   * the records (one gsize each) alive at the same time. */
  gsize values = spec_size_mul(2, spec_size_mul(n, spec_size_add(n_features, 1)));
  return spec_size_add(spec_size_mul(sizeof(double), values), spec_size_mul(sizeof(gsize), n));
}

gboolean learn_check_shape(const char *what, gsize n_features, guint n_classes, GError **error) {
  if (n_features > 0 && n_classes != 1)
    return TRUE;
  g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
              "a %s needs at least one feature and 0 (regression) or >= 2 classes "
              "(got %" G_GSIZE_FORMAT " features, %u classes)",
              what, n_features, n_classes);
  return FALSE;
}

LearnDataset *learn_dataset_alloc(gsize n, gsize n_features, guint n_classes, GError **error) {
  if (!learn_check_shape("dataset", n_features, n_classes, error))
    return NULL;
  if (n > G_MAXSIZE / sizeof(double) / n_features) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "dataset of %" G_GSIZE_FORMAT " x %" G_GSIZE_FORMAT " features is too large", n,
                n_features);
    return NULL;
  }
  char *what = g_strdup_printf(
      "a dataset of %" G_GSIZE_FORMAT " records x %" G_GSIZE_FORMAT " features", n, n_features);
  gboolean fits = spec_check_memory(learn_dataset_bytes(n, n_features), what,
                                    "use fewer records or features", LEARN_ERROR,
                                    LEARN_ERROR_INVALID_ARGUMENT, error);
  g_free(what);
  if (!fits)
    return NULL;
  LearnDataset *ds = g_new0(LearnDataset, 1);
  ds->n = n;
  ds->n_features = n_features;
  ds->n_classes = n_classes;
  if (n > 0) {
    ds->features = g_new0(double, n *n_features);
    ds->targets = g_new0(double, n);
  }
  return ds;
}

LearnDataset *learn_dataset_new(gsize n, gsize n_features, guint n_classes) {
  g_return_val_if_fail(n_features > 0 && n_classes != 1, NULL);
  return learn_dataset_alloc(n, n_features, n_classes, NULL);
}

void learn_dataset_free(LearnDataset *ds) {
  if (ds == NULL)
    return;
  g_free(ds->features);
  g_free(ds->targets);
  g_free(ds->users);
  g_free(ds);
}

LearnDataset *learn_dataset_subset(const LearnDataset *ds, const gsize *idx, gsize count) {
  g_return_val_if_fail(ds != NULL && (idx != NULL || count == 0), NULL);
  LearnDataset *out = learn_dataset_alloc(count, ds->n_features, ds->n_classes, NULL);
  gsize d = ds->n_features;
  for (gsize i = 0; i < count; i++) {
    g_return_val_if_fail(idx[i] < ds->n, (learn_dataset_free(out), NULL));
    memcpy(out->features + i * d, ds->features + idx[i] * d, d * sizeof(double));
    out->targets[i] = ds->targets[idx[i]];
  }
  if (ds->users != NULL && out != NULL) {
    out->users = g_new(guint, MAX(count, 1));
    out->n_users = ds->n_users;
    for (gsize i = 0; i < count; i++)
      out->users[i] = ds->users[idx[i]];
  }
  return out;
}

static int cmp_gsize(const void *a, const void *b) {
  gsize x = *(const gsize *)a, y = *(const gsize *)b;
  return (x > y) - (x < y);
}

gboolean learn_dataset_split(const LearnDataset *ds, double test_fraction, guint64 seed,
                             LearnDataset **train, LearnDataset **test, GError **error) {
  g_return_val_if_fail(ds != NULL && train != NULL && test != NULL, FALSE);
  if (!(test_fraction >= 0.0 && test_fraction < 1.0)) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "test fraction %g is not in [0, 1)", test_fraction);
    return FALSE;
  }
  gsize n_test = (gsize)floor(test_fraction * (double)ds->n + 0.5);
  if (n_test >= ds->n) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "a test fraction of %g leaves no training record out of %" G_GSIZE_FORMAT,
                test_fraction, ds->n);
    return FALSE;
  }
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_SPLIT);
  gsize *perm = learn_permutation(rng, ds->n);
  gsl_rng_free(rng);
  /* Sorting each side keeps file order inside a split, which makes splits
   * easy to inspect; the partition shuffles again anyway. */
  qsort(perm, n_test, sizeof(gsize), cmp_gsize);
  qsort(perm + n_test, ds->n - n_test, sizeof(gsize), cmp_gsize);
  *test = learn_dataset_subset(ds, perm, n_test);
  *train = learn_dataset_subset(ds, perm + n_test, ds->n - n_test);
  g_free(perm);
  return TRUE;
}

static void apply_scaling(LearnDataset *ds, const double *mean, const double *inv) {
  if (ds == NULL)
    return;
  gsize d = ds->n_features;
  for (gsize i = 0; i < ds->n; i++) {
    double *x = ds->features + i * d;
    for (gsize j = 0; j < d; j++)
      x[j] = (x[j] - mean[j]) * inv[j];
  }
}

void learn_dataset_standardize(LearnDataset *train, LearnDataset *test, double *mean, double *std) {
  g_return_if_fail(train != NULL && train->n >= 1);
  g_return_if_fail(test == NULL || test->n_features == train->n_features);
  gsize d = train->n_features, n = train->n;
  double *mu = g_new0(double, d), *sd = g_new0(double, d), *inv = g_new(double, d);
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < d; j++)
      mu[j] += train->features[i * d + j];
  for (gsize j = 0; j < d; j++)
    mu[j] /= (double)n;
  /* Two passes: the centered sum of squares keeps precision for features
   * with a large mean (Population ~ 1e3, longitudes ~ -120). */
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < d; j++) {
      double c = train->features[i * d + j] - mu[j];
      sd[j] += c * c;
    }
  for (gsize j = 0; j < d; j++) {
    sd[j] = sqrt(sd[j] / (double)n);
    inv[j] = sd[j] > 0.0 ? 1.0 / sd[j] : 1.0;
  }
  apply_scaling(train, mu, inv);
  apply_scaling(test, mu, inv);
  if (mean != NULL)
    memcpy(mean, mu, d * sizeof(double));
  if (std != NULL)
    memcpy(std, sd, d * sizeof(double));
  g_free(mu);
  g_free(sd);
  g_free(inv);
}
