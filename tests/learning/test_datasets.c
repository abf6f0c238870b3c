/*
 * tests/learning/test_datasets.c: synthetic generators, the train/test split,
 * train-only standardization, dataset specs, and California housing against
 * rows computed by hand from the raw file.
 */
#include <math.h>
#include <string.h>

#include "learning/learning.h"
#include "tests/common/tolerance.h"

static gboolean same_dataset(const LearnDataset *a, const LearnDataset *b) {
  return a->n == b->n && a->n_features == b->n_features && a->n_classes == b->n_classes &&
         memcmp(a->features, b->features, a->n * a->n_features * sizeof(double)) == 0 &&
         memcmp(a->targets, b->targets, a->n * sizeof(double)) == 0;
}

/* y - x.w* is the noise: mean ~ 0 and std ~ noise; x ~ N(0, 1). Same seed
 * gives the same bytes, another seed other data. */
static void test_synthetic_linear(void) {
  enum { N = 20000, D = 4 };
  double w[D], w2[D];
  GError *error = NULL;
  LearnDataset *ds = learn_dataset_synthetic_linear(N, D, 0.5, 11, w, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n_classes, ==, 0);
  double s = 0, ss = 0, xs = 0, xss = 0;
  for (gsize i = 0; i < N; i++) {
    double r = ds->targets[i];
    for (gsize j = 0; j < D; j++) {
      double x = ds->features[i * D + j];
      r -= x * w[j];
      xs += x;
      xss += x * x;
    }
    s += r;
    ss += r * r;
  }
  /* Standard errors: mean 0.5/sqrt(N) = 0.0035, std about 0.5/sqrt(2N). */
  g_assert_cmpfloat(fabs(s / N), <, 0.02);
  g_assert_cmpfloat(fabs(sqrt(ss / N) - 0.5), <, 0.015);
  g_assert_cmpfloat(fabs(xs / (N * D)), <, 0.02);
  g_assert_cmpfloat(fabs(xss / (N * D) - 1.0), <, 0.03);

  LearnDataset *again = learn_dataset_synthetic_linear(N, D, 0.5, 11, w2, &error);
  g_assert_true(same_dataset(ds, again));
  g_assert_cmpmem(w, sizeof w, w2, sizeof w2);
  LearnDataset *other = learn_dataset_synthetic_linear(N, D, 0.5, 12, w2, &error);
  g_assert_false(same_dataset(ds, other));
  g_assert_cmpfloat(w[0], !=, w2[0]);
  /* noise 0: exactly linear. */
  LearnDataset *exact = learn_dataset_synthetic_linear(50, D, 0.0, 3, w, &error);
  for (gsize i = 0; i < 50; i++) {
    double y = 0;
    for (gsize j = 0; j < D; j++)
      y += exact->features[i * D + j] * w[j];
    g_assert_cmpfloat(exact->targets[i], ==, y);
  }
  g_assert_null(learn_dataset_synthetic_linear(10, D, -1.0, 1, NULL, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  g_assert_null(learn_dataset_synthetic_linear(0, D, 0.1, 1, NULL, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  learn_dataset_free(ds);
  learn_dataset_free(again);
  learn_dataset_free(other);
  learn_dataset_free(exact);
}

/* Labels in 0..C-1, every class present, deterministic. With argmax labels
 * and d = 1, C = 2 the model is sign(w1 - w0) x: the classes split at 0, so
 * the label is a threshold function of x (separable). */
static void test_synthetic_logistic(void) {
  GError *error = NULL;
  LearnDataset *ds = learn_dataset_synthetic_logistic(3000, 5, 4, 1.0, FALSE, 5, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n_classes, ==, 4);
  gsize count[4] = {0};
  for (gsize i = 0; i < ds->n; i++) {
    double y = ds->targets[i];
    g_assert_true(y == floor(y) && y >= 0 && y < 4);
    count[(gsize)y]++;
  }
  for (int c = 0; c < 4; c++)
    g_assert_cmpuint(count[c], >, 100);
  LearnDataset *again = learn_dataset_synthetic_logistic(3000, 5, 4, 1.0, FALSE, 5, &error);
  g_assert_true(same_dataset(ds, again));
  learn_dataset_free(ds);
  learn_dataset_free(again);

  ds = learn_dataset_synthetic_logistic(500, 1, 2, 1.0, TRUE, 9, &error);
  g_assert_no_error(error);
  guint pos_label = learn_dataset_label(ds, 0) ^ (ds->features[0] < 0);
  for (gsize i = 0; i < ds->n; i++)
    g_assert_cmpuint(learn_dataset_label(ds, i), ==, pos_label ^ (ds->features[i] < 0));
  learn_dataset_free(ds);

  g_assert_null(learn_dataset_synthetic_logistic(10, 2, 1, 1.0, FALSE, 1, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
}

/* Record i carries feature i: the split is a partition of 0..n-1. */
static void test_split(void) {
  enum { N = 1003 };
  LearnDataset *ds = learn_dataset_new(N, 2, 0);
  for (gsize i = 0; i < N; i++) {
    ds->features[2 * i] = (double)i;
    ds->features[2 * i + 1] = -(double)i;
    ds->targets[i] = 3.0 * (double)i;
  }
  LearnDataset *tr, *te, *tr2, *te2, *tr3, *te3;
  GError *error = NULL;
  g_assert_true(learn_dataset_split(ds, 0.2, 42, &tr, &te, &error));
  g_assert_cmpuint(te->n, ==, 201); /* round(200.6) */
  g_assert_cmpuint(tr->n, ==, N - 201);
  guint8 *seen = g_new0(guint8, N);
  const LearnDataset *parts[2] = {tr, te};
  for (int p = 0; p < 2; p++)
    for (gsize i = 0; i < parts[p]->n; i++) {
      gsize id = (gsize)parts[p]->features[2 * i];
      g_assert_cmpfloat(parts[p]->features[2 * i + 1], ==, -(double)id);
      g_assert_cmpfloat(parts[p]->targets[i], ==, 3.0 * (double)id);
      if (i > 0)
        g_assert_cmpfloat(parts[p]->features[2 * i - 2], <, (double)id); /* file order */
      seen[id]++;
    }
  for (gsize i = 0; i < N; i++)
    g_assert_cmpuint(seen[i], ==, 1);
  g_free(seen);
  g_assert_true(learn_dataset_split(ds, 0.2, 42, &tr2, &te2, &error));
  g_assert_true(same_dataset(te, te2));
  g_assert_true(learn_dataset_split(ds, 0.2, 43, &tr3, &te3, &error));
  g_assert_false(same_dataset(te, te3));
  learn_dataset_free(tr);
  learn_dataset_free(te);
  learn_dataset_free(tr2);
  learn_dataset_free(te2);
  learn_dataset_free(tr3);
  learn_dataset_free(te3);

  g_assert_true(learn_dataset_split(ds, 0.0, 1, &tr, &te, &error));
  g_assert_cmpuint(te->n, ==, 0);
  g_assert_true(same_dataset(tr, ds));
  learn_dataset_free(tr);
  learn_dataset_free(te);
  const double bad[] = {1.0, -0.1, NAN, 0.9996};
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_false(learn_dataset_split(ds, bad[i], 1, &tr, &te, &error));
    g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
    g_clear_error(&error);
  }
  learn_dataset_free(ds);
}

/* Train statistics only: train gets mean 0 / std 1, test is mapped with the
 * TRAIN mean and std (checked by hand on a 3-record example). */
static void test_standardize(void) {
  LearnDataset *tr = learn_dataset_new(3, 2, 0), *te = learn_dataset_new(1, 2, 0);
  const double xtr[] = {1, 5, 2, 5, 6, 5}; /* feature 0: mean 3, var 14/3; feature 1 constant */
  memcpy(tr->features, xtr, sizeof xtr);
  te->features[0] = 10;
  te->features[1] = 7;
  te->targets[0] = 123;
  double mean[2], sd[2];
  learn_dataset_standardize(tr, te, mean, sd);
  g_assert_cmpfloat(mean[0], ==, 3.0);
  g_assert_cmpfloat(mean[1], ==, 5.0);
  /* The deviations (mean exact) and their squares sum exactly to 14; one
   * division and one sqrt on each side: 4 roundings. */
  const char *why = "a few flops on exact integers: <= 3 roundings on each side";
  dpg_test_assert_close(sd[0], sqrt(14.0 / 3.0), dpg_tol(1, 6), why);
  g_assert_cmpfloat(sd[1], ==, 0.0);
  dpg_test_assert_close(tr->features[0], -2.0 / sqrt(14.0 / 3.0), dpg_tol(1, 6), why);
  dpg_test_assert_close(tr->features[4], 3.0 / sqrt(14.0 / 3.0), dpg_tol(1, 6), why);
  g_assert_cmpfloat(tr->features[1], ==, 0.0); /* constant: centered only */
  dpg_test_assert_close(te->features[0], 7.0 / sqrt(14.0 / 3.0), dpg_tol(1, 6), why);
  g_assert_cmpfloat(te->features[1], ==, 2.0);
  g_assert_cmpfloat(te->targets[0], ==, 123);
  learn_dataset_free(tr);
  learn_dataset_free(te);
}

static void test_spec_errors(void) {
  const char *bad[] = {"",
                       "csv",
                       "csv:",
                       "parquet:x.pq",
                       "synthetic:quadratic",
                       "synthetic:linear,n=0",
                       "synthetic:linear,n=ten",
                       "synthetic:linear,noise=-1",
                       "synthetic:linear,classes=3",
                       "synthetic:logistic,classes=1",
                       "synthetic:logistic,labels=max",
                       "synthetic:linear,n=5,n=6",
                       "synthetic:linear,oops",
                       "california:/nonexistent/cal.data",
                       "idx:/nonexistent"};
  const int codes[] = {LEARN_ERROR_PARSE, LEARN_ERROR_PARSE,
                       LEARN_ERROR_PARSE, LEARN_ERROR_PARSE,
                       LEARN_ERROR_PARSE, LEARN_ERROR_INVALID_ARGUMENT,
                       LEARN_ERROR_PARSE, LEARN_ERROR_INVALID_ARGUMENT,
                       LEARN_ERROR_PARSE, LEARN_ERROR_INVALID_ARGUMENT,
                       LEARN_ERROR_PARSE, LEARN_ERROR_PARSE,
                       LEARN_ERROR_PARSE, LEARN_ERROR_IO,
                       LEARN_ERROR_IO};
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    LearnDataset *tr = (LearnDataset *)1, *te = (LearnDataset *)1;
    GError *error = NULL;
    g_assert_false(learn_data_load(bad[i], 0.2, 1, &tr, &te, &error));
    if (error == NULL || error->code != codes[i])
      g_error("spec '%s': expected code %d, got %s", bad[i], codes[i],
              error != NULL ? error->message : "success");
    g_assert_null(tr);
    g_assert_null(te);
    g_error_free(error);
  }
}

/* A synthetic spec equals the direct call followed by the split. */
static void test_spec_synthetic(void) {
  LearnDataset *tr, *te, *all, *tr2, *te2;
  GError *error = NULL;
  g_assert_true(
      learn_data_load("synthetic:linear,n=100,d=3,noise=0.2,seed=4", 0.3, 8, &tr, &te, &error));
  g_assert_no_error(error);
  all = learn_dataset_synthetic_linear(100, 3, 0.2, 4, NULL, &error);
  g_assert_true(learn_dataset_split(all, 0.3, 8, &tr2, &te2, &error));
  g_assert_true(same_dataset(tr, tr2));
  g_assert_true(same_dataset(te, te2));
  learn_dataset_free(tr);
  learn_dataset_free(te);
  learn_dataset_free(tr2);
  learn_dataset_free(te2);
  learn_dataset_free(all);

  g_assert_true(learn_data_load("synthetic:logistic,n=200,d=2,classes=3,standardize=yes", 0.5, 1,
                                &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(tr->n_classes, ==, 3);
  g_assert_cmpuint(te->n, ==, 100);
  double m = 0;
  for (gsize i = 0; i < tr->n; i++)
    m += tr->features[2 * i];
  g_assert_cmpfloat(fabs(m / tr->n), <, 1e-12);
  learn_dataset_free(tr);
  learn_dataset_free(te);
}

/* The data ships in the repository (data/california): missing is a broken
 * checkout, a failure, not a reason to skip. */
static char *housing_path(void) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  char *p = g_build_filename(dir != NULL ? dir : "data", "california", "cal_housing.data", NULL);
  if (!g_file_test(p, G_FILE_TEST_IS_REGULAR))
    g_error("%s: not found (the repository's data/ folder; DPG_DATA_DIR)", p);
  return p;
}

/* Rows 1 and 20640 of cal_housing.data, by hand:
 * -122.23,37.88,41,880,129,322,126,8.3252,452600 -> MedInc 8.3252, HouseAge 41,
 * AveRooms 880/126, AveBedrms 129/126, Population 322, AveOccup 322/126,
 * Latitude 37.88, Longitude -122.23; target 4.526.
 * -121.24,39.37,16,2785,616,1387,530,2.3886,89400 -> 2.3886, 16, 2785/530,
 * 616/530, 1387, 1387/530, 39.37, -121.24; target 0.894. */
static void test_california(void) {
  char *path = housing_path();
  GError *error = NULL;
  LearnDataset *ds = learn_dataset_load_california(path, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 20640);
  g_assert_cmpuint(ds->n_features, ==, 8);
  g_assert_cmpuint(ds->n_classes, ==, 0);
  const double first[8] = {
      8.3252, 41, 6.984126984126984, 1.0238095238095237, 322, 2.5555555555555554, 37.88, -122.23};
  const double last[8] = {2.3886, 16,           2785.0 / 530, 616.0 / 530,
                          1387,   1387.0 / 530, 39.37,        -121.24};
  const double *xl = ds->features + (ds->n - 1) * 8;
  for (int j = 0; j < 8; j++) {
    /* strtod is correctly rounded, a ratio of two parsed integers is one
     * rounding, and the 16-digit literals above are within an ulp of theirs. */
    const char *why = "a parse and at most one division, against a literal: 2 ulps";
    dpg_test_assert_close(ds->features[j], first[j], dpg_tol(1, 2), why);
    dpg_test_assert_close(xl[j], last[j], dpg_tol(1, 2), why);
  }
  /* The target is the parsed value / 100000: two roundings. */
  dpg_test_assert_close(ds->targets[0], 4.526, dpg_tol(1, 2), "a parse and one division");
  dpg_test_assert_close(ds->targets[ds->n - 1], 0.894, dpg_tol(1, 2), "a parse and one division");

  /* Through the spec: 80/20 split, standardized with train statistics. */
  char *spec = g_strdup_printf("california:%s", path);
  LearnDataset *tr, *te;
  g_assert_true(learn_data_load(spec, LEARN_DEFAULT_TEST_FRACTION, 1, &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(tr->n, ==, 16512);
  g_assert_cmpuint(te->n, ==, 4128);
  double test_mean_dev = 0;
  for (int j = 0; j < 8; j++) {
    double m = 0, v = 0, mt = 0;
    for (gsize i = 0; i < tr->n; i++)
      m += tr->features[i * 8 + j];
    m /= tr->n;
    for (gsize i = 0; i < tr->n; i++)
      v += (tr->features[i * 8 + j] - m) * (tr->features[i * 8 + j] - m);
    g_assert_cmpfloat(fabs(m), <, 1e-12);
    g_assert_cmpfloat(fabs(v / tr->n - 1.0), <, 1e-12);
    for (gsize i = 0; i < te->n; i++)
      mt += te->features[i * 8 + j];
    test_mean_dev = MAX(test_mean_dev, fabs(mt / te->n));
  }
  /* Test features use train statistics: close to, but not exactly, 0 mean. */
  g_assert_cmpfloat(test_mean_dev, >, 1e-6);
  g_assert_cmpfloat(test_mean_dev, <, 0.1);
  /* Targets are not standardized: the same multiset of values split in two. */
  double sum = 0, sum_split = 0;
  for (gsize i = 0; i < ds->n; i++)
    sum += ds->targets[i];
  for (gsize i = 0; i < tr->n; i++)
    sum_split += tr->targets[i];
  for (gsize i = 0; i < te->n; i++)
    sum_split += te->targets[i];
  /* Two sums of the same n positive values in different orders. */
  dpg_test_assert_close(sum, sum_split, 2 * dpg_tol(1, ds->n),
                        "two sums of n positive terms: n eps relative each");
  learn_dataset_free(tr);
  learn_dataset_free(te);
  g_free(spec);

  spec = g_strdup_printf("california:%s,standardize=no", path);
  g_assert_true(learn_data_load(spec, 0.0, 1, &tr, &te, &error));
  g_assert_true(same_dataset(tr, ds));
  learn_dataset_free(tr);
  learn_dataset_free(te);
  g_free(spec);
  learn_dataset_free(ds);
  g_free(path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/learning/datasets/synthetic-linear", test_synthetic_linear);
  g_test_add_func("/learning/datasets/synthetic-logistic", test_synthetic_logistic);
  g_test_add_func("/learning/datasets/split", test_split);
  g_test_add_func("/learning/datasets/standardize", test_standardize);
  g_test_add_func("/learning/datasets/spec-errors", test_spec_errors);
  g_test_add_func("/learning/datasets/spec-synthetic", test_spec_synthetic);
  g_test_add_func("/learning/datasets/california", test_california);
  return g_test_run();
}
