/*
 * learning/sgd.c: the centralized SGD baseline (one node holding the whole
 * training set), against which decentralized runs are compared.
 */
#include <math.h>

#include "learning/model_internal.h"

gboolean learn_sgd_train(const LearnModel *m, double *params, const LearnDataset *train,
                         const LearnSgdConfig *config, LearnSgdStepFunc on_step, gpointer user_data,
                         GError **error) {
  g_return_val_if_fail(m != NULL && params != NULL && train != NULL && config != NULL, FALSE);
  if (train->n_features != m->d || train->n_classes != m->n_classes) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "dataset (%" G_GSIZE_FORMAT " features, %u classes) does not match model %s "
                "(%" G_GSIZE_FORMAT " features, %u classes)",
                train->n_features, train->n_classes, m->spec, m->d, m->n_classes);
    return FALSE;
  }
  if (config->epochs == 0 || !(config->lr > 0.0 && isfinite(config->lr)) || isnan(config->clip)) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "SGD needs epochs >= 1 and a finite learning rate > 0 (got %u epochs, lr %g, "
                "clip %g)",
                config->epochs, config->lr, config->clip);
    return FALSE;
  }
  /* One node of a partition: the same shuffle-then-cut batches as a node of
   * a decentralized run. */
  LearnPartition *p = learn_partition_uniform(train->n, 1, config->n_batches, config->seed, error);
  if (p == NULL)
    return FALSE;
  gsize np = m->n_params;
  double *grad = g_new(double, np), *scratch = g_new(double, learn_model_scratch_size(m));
  guint64 steps = (guint64)config->epochs * config->n_batches;
  for (guint64 t = 0; t < steps; t++) {
    gsize count;
    const gsize *batch = learn_partition_batch(p, 0, t, &count);
    double loss = learn_model_clipped_grad(m, params, train, batch, count, config->clip, grad,
                                           scratch);
    for (gsize i = 0; i < np; i++)
      params[i] -= config->lr * grad[i];
    if (on_step != NULL)
      on_step(t, params, loss, user_data);
  }
  g_free(grad);
  g_free(scratch);
  learn_partition_free(p);
  return TRUE;
}
