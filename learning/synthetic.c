/*
 * learning/synthetic.c: seeded synthetic regression and classification data.
 */
#include <gsl/gsl_randist.h>
#include <math.h>

#include "learning/internal.h"

static gboolean check_shape(gsize n, gsize d, GError **error) {
  if (n == 0 || d == 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "synthetic data needs n >= 1 records and d >= 1 features (got n=%" G_GSIZE_FORMAT
                ", d=%" G_GSIZE_FORMAT ")",
                n, d);
    return FALSE;
  }
  return TRUE;
}

LearnDataset *learn_dataset_synthetic_linear(gsize n, gsize d, double noise, guint64 seed,
                                             double *w_star, GError **error) {
  if (!check_shape(n, d, error))
    return NULL;
  if (!(noise >= 0.0 && isfinite(noise))) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "synthetic linear: noise %g is not a finite non-negative number", noise);
    return NULL;
  }
  LearnDataset *ds = learn_dataset_alloc(n, d, 0, error);
  if (ds == NULL)
    return NULL;
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_SYNTHETIC);
  double *w = g_new(double, d);
  for (gsize j = 0; j < d; j++)
    w[j] = gsl_ran_gaussian(rng, 1.0);
  for (gsize i = 0; i < n; i++) {
    double *x = ds->features + i * d, y = 0.0;
    for (gsize j = 0; j < d; j++) {
      x[j] = gsl_ran_gaussian(rng, 1.0);
      y += x[j] * w[j];
    }
    ds->targets[i] = y + noise * gsl_ran_gaussian(rng, 1.0);
  }
  if (w_star != NULL)
    for (gsize j = 0; j < d; j++)
      w_star[j] = w[j];
  g_free(w);
  gsl_rng_free(rng);
  return ds;
}

LearnDataset *learn_dataset_synthetic_logistic(gsize n, gsize d, guint n_classes, double scale,
                                               gboolean argmax, guint64 seed, GError **error) {
  if (!check_shape(n, d, error))
    return NULL;
  if (n_classes < 2 || !(scale > 0.0 && isfinite(scale))) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "synthetic logistic: needs classes >= 2 and a finite scale > 0 (got %u, %g)",
                n_classes, scale);
    return NULL;
  }
  LearnDataset *ds = learn_dataset_alloc(n, d, n_classes, error);
  if (ds == NULL)
    return NULL;
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_SYNTHETIC);
  double *w = g_new(double, (gsize)n_classes *d), *z = g_new(double, n_classes);
  for (gsize k = 0; k < (gsize)n_classes * d; k++)
    w[k] = scale * gsl_ran_gaussian(rng, 1.0);
  for (gsize i = 0; i < n; i++) {
    double *x = ds->features + i * d;
    for (gsize j = 0; j < d; j++)
      x[j] = gsl_ran_gaussian(rng, 1.0);
    guint best = 0;
    for (guint c = 0; c < n_classes; c++) {
      double s = 0.0;
      for (gsize j = 0; j < d; j++)
        s += w[c * d + j] * x[j];
      z[c] = s;
      if (s > z[best])
        best = c;
    }
    guint label = best;
    if (!argmax) {
      /* Inverse-CDF draw from softmax(z), shifted by the max for stability. */
      double total = 0.0;
      for (guint c = 0; c < n_classes; c++)
        total += z[c] = exp(z[c] - z[best]);
      double u = gsl_rng_uniform(rng) * total, acc = 0.0;
      label = n_classes - 1;
      for (guint c = 0; c < n_classes; c++) {
        acc += z[c];
        if (u < acc) {
          label = c;
          break;
        }
      }
    }
    ds->targets[i] = label;
  }
  g_free(w);
  g_free(z);
  gsl_rng_free(rng);
  return ds;
}
