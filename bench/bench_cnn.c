/*
 * bench/bench_cnn.c: the Figure 4 CNN (cnn: 28x28 inputs, 16 and 32 3x3
 * filters, group norm, 10 classes) on one core: examples per CPU second of
 * learn_model_clipped_grad (forward, backward, per-example gradients, their
 * clipping and mean) on batches of 16 and 25 records (a node's batch in the
 * reduced and the full Fashion-MNIST Figure 4 runs), and of the forward pass
 * alone (learn_model_evaluate).
 *
 * The GEMM-bound limit: the same chunk of 16 examples costs these OpenBLAS
 * dgemm calls (the shapes cnn.c issues, with its leading dimensions), each
 * timed here on its own; the limit is examples per second if the kernels
 * did nothing but those GEMMs at the measured speed, i.e. 16 / (sum of the
 * GEMM times of a chunk). The report gives achieved / limit, and also the
 * FLOP rate of one large square dgemm (the machine's practical peak) and of
 * sgemm at the same shapes, for scale.
 *
 * Uses /usr/share/datasets/fashion-mnist when present, else random images.
 * One OpenBLAS thread; CPU time, since the machine may be shared.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "learning/learning.h"

void openblas_set_num_threads(int num_threads);

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum { CHUNK = 16 }; /* cnn.c's CNN_CHUNK */

typedef struct {
  const char *what;
  gboolean ta, tb;
  int m, n, k, lda, ldb, ldc;
  int calls; /* per chunk */
} Shape;

/* CPU seconds of one call of the shape (in double or single precision) and
 * its FLOPs. */
static double time_gemm(const Shape *s, gboolean single, double *flops) {
  gsize na = (gsize)(s->ta ? s->k : s->m) * s->lda, nb = (gsize)(s->tb ? s->n : s->k) * s->ldb,
        nc = (gsize)s->m * s->ldc;
  double *a = g_new(double, na), *b = g_new(double, nb), *c = g_new0(double, nc);
  float *af = g_new(float, na), *bf = g_new(float, nb), *cf = g_new0(float, nc);
  for (gsize i = 0; i < na; i++)
    af[i] = (float)(a[i] = sin((double)i));
  for (gsize i = 0; i < nb; i++)
    bf[i] = (float)(b[i] = cos((double)i));
  CBLAS_TRANSPOSE ta = s->ta ? CblasTrans : CblasNoTrans, tb = s->tb ? CblasTrans : CblasNoTrans;
  long reps = 0;
  double t0 = cpu_s(), t;
  do {
    for (int r = 0; r < 16; r++) {
      if (single)
        cblas_sgemm(CblasRowMajor, ta, tb, s->m, s->n, s->k, 1.0f, af, s->lda, bf, s->ldb, 0.0f, cf,
                    s->ldc);
      else
        cblas_dgemm(CblasRowMajor, ta, tb, s->m, s->n, s->k, 1.0, a, s->lda, b, s->ldb, 0.0, c,
                    s->ldc);
    }
    reps += 16;
    t = cpu_s() - t0;
  } while (t < 0.25);
  *flops = 2.0 * s->m * s->n * s->k;
  g_free(a), g_free(b), g_free(c), g_free(af), g_free(bf), g_free(cf);
  return t / (double)reps;
}

static LearnDataset *random_images(gsize n) {
  LearnDataset *ds = learn_dataset_new(n, 784, 10);
  GRand *r = g_rand_new_with_seed(1);
  for (gsize i = 0; i < n * 784; i++)
    ds->features[i] = g_rand_double(r) < 0.5 ? 0.0 : g_rand_double(r);
  for (gsize i = 0; i < n; i++)
    ds->targets[i] = g_rand_int_range(r, 0, 10);
  g_rand_free(r);
  return ds;
}

int main(void) {
  openblas_set_num_threads(1);
  LearnDataset *tr = NULL, *te = NULL;
  GError *error = NULL;
  const char *dir = "/usr/share/datasets/fashion-mnist";
  char *spec = g_strdup_printf("idx:%s,limit=4000", dir);
  gboolean real = g_file_test(dir, G_FILE_TEST_IS_DIR) &&
                  learn_data_load(spec, LEARN_DEFAULT_TEST_FRACTION, 1, &tr, &te, &error);
  g_clear_error(&error);
  if (!real) {
    learn_dataset_free(tr);
    learn_dataset_free(te);
    tr = random_images(4000);
    te = random_images(1000);
  }
  LearnModel *m = learn_model_new("cnn", 784, tr->n_classes, &error);
  g_assert_no_error(error);
  gsize np = learn_model_n_params(m), C = tr->n_classes;
  double *params = g_new(double, np), *grad = g_new(double, np);
  learn_model_init(m, params, 1);
  printf("cnn.data %s\n", real ? "fashion-mnist" : "random-images");
  printf("cnn.params %zu\n", np);

  double achieved16 = 0.0;
  const gsize sizes[] = {16, 25};
  for (gsize si = 0; si < G_N_ELEMENTS(sizes); si++) {
    gsize bs = sizes[si], idx[64], examples = 0, next = 0;
    double sink = 0.0, t0 = cpu_s(), t;
    do {
      for (gsize i = 0; i < bs; i++, next = (next + 1) % tr->n)
        idx[i] = next;
      sink += learn_model_clipped_grad(m, params, tr, idx, bs, 1.0, grad, NULL);
      for (gsize i = 0; i < np; i++)
        params[i] -= 0.05 * grad[i];
      examples += bs;
      t = cpu_s() - t0;
    } while (t < 3.0);
    double rate = (double)examples / t;
    if (bs == 16)
      achieved16 = rate;
    printf("cnn.clipped_grad_batch%zu_examples_per_cpu_s %.1f\n", bs, rate);
    if (!isfinite(sink))
      printf("cnn.warning non-finite batch loss\n");
  }
  {
    double t0 = cpu_s(), t, l;
    gsize examples = 0;
    do {
      learn_model_evaluate(m, params, te, NULL, 0, &l, NULL);
      examples += te->n;
      t = cpu_s() - t0;
    } while (t < 2.0);
    printf("cnn.forward_examples_per_cpu_s %.1f\n", (double)examples / t);
  }

  /* The GEMMs of one chunk of B = 16 examples, as cnn.c issues them. */
  const int B = CHUNK, P1 = 784, P2 = 196, F = 32 * 49, c = (int)C;
  const Shape shapes[] = {
      {"conv1 forward W1 cols1", 0, 0, 16, B * P1, 9, 9, B * P1, B * P1, 1},
      {"conv2 forward W2 cols2", 0, 0, 32, B * P2, 144, 144, B * P2, B * P2, 1},
      {"fc forward H Wf^T", 0, 1, B, c, F, F, F, c, 1},
      {"fc backward dZ Wf", 0, 0, B, F, c, c, F, F, 1},
      {"conv2 per-example dA2_b cols2_b^T", 0, 1, 32, 144, P2, B * P2, B * P2, 144, B},
      {"conv2 input W2^T dA2", 1, 0, 144, B * P2, 32, 144, B * P2, B * P2, 1},
      {"conv1 per-example dA1_b cols1_b^T", 0, 1, 16, 9, P1, B * P1, B * P1, 9, B},
  };
  double t_chunk = 0.0, t_chunk_s = 0.0, flops_chunk = 0.0;
  for (gsize i = 0; i < G_N_ELEMENTS(shapes); i++) {
    double fl, td = time_gemm(&shapes[i], FALSE, &fl), ts = time_gemm(&shapes[i], TRUE, &fl);
    t_chunk += shapes[i].calls * td;
    t_chunk_s += shapes[i].calls * ts;
    flops_chunk += shapes[i].calls * fl;
    printf("cnn.gemm %-34s m=%-4d n=%-5d k=%-4d x%-2d dgemm %.2f GFLOP/s, sgemm %.2f GFLOP/s\n",
           shapes[i].what, shapes[i].m, shapes[i].n, shapes[i].k, shapes[i].calls, fl / td / 1e9,
           fl / ts / 1e9);
  }
  /* the FC per-example outer products dz_b h_b^T (no GEMM: C F multiplies) */
  double flops_example = flops_chunk / B + (double)(C * F);
  printf("cnn.flops_per_example %.0f\n", flops_example);
  double limit = B / t_chunk;
  printf("cnn.gemm_mean_dgemm_GFLOP_per_s %.2f\n", flops_chunk / t_chunk / 1e9);
  printf("cnn.gemm_bound_examples_per_cpu_s %.1f\n", limit);
  printf("cnn.gemm_bound_sgemm_examples_per_cpu_s %.1f\n", B / t_chunk_s);
  printf("cnn.achieved_over_gemm_bound %.3f (goal >= 0.333)\n", achieved16 / limit);
  Shape big = {"square", 0, 0, 1024, 1024, 1024, 1024, 1024, 1024, 1};
  double fl, tb = time_gemm(&big, FALSE, &fl);
  printf("cnn.dgemm_1024_GFLOP_per_s %.2f\n", fl / tb / 1e9);
  printf("cnn.peak_bound_examples_per_cpu_s %.1f (flops_per_example at the 1024 dgemm rate)\n",
         fl / tb / flops_example);

  g_free(params);
  g_free(grad);
  g_free(spec);
  learn_model_free(m);
  learn_dataset_free(tr);
  learn_dataset_free(te);
  return 0;
}
