/*
 * bench/bench_learning.c: the learning hot path at the scale of the paper's
 * housing experiment: 148 nodes, the 8-64-1 MLP, b = 19 batches per node,
 * T = 320 local steps (148 x 320 clipped-gradient calls on ~6-record
 * batches, each followed by a local SGD step), plus test-set evaluation.
 * Uses data/california/cal_housing.data (bench_data_dir): a benchmark that
 * silently fell back to other data would report another workload.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "bench_common.h"
#include "learning/learning.h"

enum { NODES = 148, BATCHES = 19, STEPS = 320 };

int main(void) {
  char *path = bench_data_file("california/cal_housing.data");
  char *spec = g_strdup_printf("california:%s", path);
  LearnDataset *tr, *te;
  GError *error = NULL;
  gint64 t0 = g_get_monotonic_time();
  if (!learn_data_load(spec, LEARN_DEFAULT_TEST_FRACTION, 1, &tr, &te, &error)) {
    fprintf(stderr, "bench_learning: %s\n", error->message);
    return 1;
  }
  double load_s = (g_get_monotonic_time() - t0) / 1e6;
  LearnModel *m = learn_model_new("mlp:hidden=64", tr->n_features, 0, &error);
  LearnPartition *part = learn_partition_uniform(tr->n, NODES, BATCHES, 1, &error);
  if (m == NULL || part == NULL) {
    fprintf(stderr, "bench_learning: %s\n", error->message);
    return 1;
  }
  gsize np = learn_model_n_params(m);
  double *params = g_new(double, (gsize)NODES *np), *grad = g_new(double, np);
  double *scratch = g_new(double, learn_model_scratch_size(m));
  for (guint u = 0; u < NODES; u++)
    learn_model_init(m, params + u * np, 1);

  gsize examples = 0;
  double sink = 0, c0 = bench_cpu_seconds();
  t0 = g_get_monotonic_time();
  for (guint64 t = 0; t < STEPS; t++)
    for (guint u = 0; u < NODES; u++) {
      gsize count;
      const gsize *batch = learn_partition_batch(part, u, t, &count);
      double *p = params + u * np;
      sink += learn_model_clipped_grad(m, p, tr, batch, count, 1.0, grad, scratch);
      for (gsize i = 0; i < np; i++)
        p[i] -= 0.05 * grad[i];
      examples += count;
    }
  double grad_s = (g_get_monotonic_time() - t0) / 1e6, grad_cpu_s = bench_cpu_seconds() - c0;

  enum { EVALS = 20 };
  double mse = 0;
  t0 = g_get_monotonic_time();
  for (int e = 0; e < EVALS; e++) {
    double l;
    learn_model_evaluate(m, params + (gsize)e * np, te, NULL, 0, &l, NULL);
    mse += l / EVALS;
  }
  double eval_s = (g_get_monotonic_time() - t0) / 1e6 / EVALS;

  printf("learning.housing_load_s %.4f\n", load_s);
  printf("learning.housing_148x320_clipped_grad_s %.4f\n", grad_s);
  printf("learning.housing_148x320_clipped_grad_cpu_s %.4f\n", grad_cpu_s);
  printf("learning.mlp8_64_1_clipped_examples_per_cpu_s %.3e\n", examples / grad_cpu_s);
  printf("learning.mlp8_64_1_grad_calls_per_cpu_s %.3e\n", NODES * (double)STEPS / grad_cpu_s);
  printf("learning.housing_eval_test_s %.5f\n", eval_s);
  printf("learning.housing_local_sgd_test_mse %.4f\n", mse);
  if (!isfinite(sink))
    printf("learning.warning non-finite batch loss\n");
  g_free(params);
  g_free(grad);
  g_free(scratch);
  g_free(spec);
  g_free(path);
  learn_partition_free(part);
  learn_model_free(m);
  learn_dataset_free(tr);
  learn_dataset_free(te);
  return 0;
}
