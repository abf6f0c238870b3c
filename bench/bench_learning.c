/*
 * bench/bench_learning.c: the learning hot path at the scale of the paper's
 * housing experiment: 148 nodes, the 8-64-1 MLP, b = 19 batches per node,
 * T = 320 local steps (148 x 320 clipped-gradient calls on ~6-record
 * batches, each followed by a local SGD step), plus test-set evaluation.
 * Uses data/california/cal_housing.data when present, else synthetic data of
 * the same shape.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "learning/learning.h"

enum { NODES = 148, BATCHES = 19, STEPS = 320 };

/* Process CPU time: the machines this runs on are often shared, and wall
 * time then mostly measures the neighbours. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  char *path = g_build_filename(dir != NULL ? dir : "data", "california", "cal_housing.data", NULL);
  char *spec = g_file_test(path, G_FILE_TEST_IS_REGULAR)
                   ? g_strdup_printf("california:%s", path)
                   : g_strdup("synthetic:linear,n=20640,d=8,noise=0.5,seed=1,standardize=yes");
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
  double sink = 0, c0 = cpu_s();
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
  double grad_s = (g_get_monotonic_time() - t0) / 1e6, grad_cpu_s = cpu_s() - c0;

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
