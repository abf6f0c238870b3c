/*
 * tests/learning/test_model.c: model specs and layout, initialisation,
 * hand-computed predictions and losses, gradients against central finite
 * differences, per-example clipping against an explicit per-example
 * computation, and thread safety.
 */
#include <math.h>
#include <string.h>

#include "learning/learning.h"
#include "tests/common/tolerance.h"

static LearnModel *model(const char *spec, gsize d, guint classes) {
  GError *error = NULL;
  LearnModel *m = learn_model_new(spec, d, classes, &error);
  g_assert_no_error(error);
  return m;
}

static void test_spec(void) {
  struct {
    const char *spec;
    gsize d;
    guint classes;
    gsize n_params, n_out;
    const char *canonical;
  } ok[] = {
      {"linear", 8, 0, 9, 1, "linear"},
      {"softmax", 5, 3, 18, 3, "softmax"},
      {"logistic", 5, 2, 12, 2, "softmax"},
      {"mlp:hidden=64", 8, 0, 8 * 64 + 64 + 64 + 1, 1, "mlp:hidden=64"}, /* the paper's 641 */
      {"mlp", 784, 10, 784 * 64 + 64 + 10 * 64 + 10, 10, "mlp:hidden=64"},
      {"mlp:hidden=3", 2, 4, 6 + 3 + 12 + 4, 4, "mlp:hidden=3"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(ok); i++) {
    LearnModel *m = model(ok[i].spec, ok[i].d, ok[i].classes);
    g_assert_cmpuint(learn_model_n_params(m), ==, ok[i].n_params);
    g_assert_cmpuint(learn_model_n_outputs(m), ==, ok[i].n_out);
    g_assert_cmpstr(learn_model_spec(m), ==, ok[i].canonical);
    learn_model_free(m);
  }
  struct {
    const char *spec;
    gsize d;
    guint classes;
    int code;
  } bad[] = {
      {"linear", 3, 2, LEARN_ERROR_INVALID_ARGUMENT},
      {"softmax", 3, 0, LEARN_ERROR_INVALID_ARGUMENT},
      {"mlp:hidden=0", 3, 0, LEARN_ERROR_INVALID_ARGUMENT},
      {"mlp:hidden=x", 3, 0, LEARN_ERROR_PARSE},
      {"mlp:width=3", 3, 0, LEARN_ERROR_PARSE},
      {"linear:hidden=3", 3, 0, LEARN_ERROR_PARSE},
      {"resnet", 3, 0, LEARN_ERROR_PARSE},
      {"cnn", 3, 0, LEARN_ERROR_INVALID_ARGUMENT}, /* not square images */
      {"", 3, 0, LEARN_ERROR_PARSE},
      {"linear", 0, 0, LEARN_ERROR_INVALID_ARGUMENT},
      {"mlp", 3, 1, LEARN_ERROR_INVALID_ARGUMENT},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    GError *error = NULL;
    g_assert_null(learn_model_new(bad[i].spec, bad[i].d, bad[i].classes, &error));
    g_assert_error(error, LEARN_ERROR, bad[i].code);
    g_error_free(error);
  }
}

/* Bounds and statistics of the initialisation; determinism. */
static void test_init(void) {
  LearnModel *m = model("mlp:hidden=200", 100, 0);
  gsize np = learn_model_n_params(m);
  double *a = g_new(double, np), *b = g_new(double, np), *c = g_new(double, np);
  learn_model_init(m, a, 5);
  learn_model_init(m, b, 5);
  learn_model_init(m, c, 6);
  g_assert_cmpmem(a, np * sizeof(double), b, np * sizeof(double));
  g_assert_true(memcmp(a, c, np * sizeof(double)) != 0);
  /* W1: 200 x 100 He-uniform, limit sqrt(6/100); variance limit^2/3 = 0.02. */
  double lim1 = sqrt(6.0 / 100), s = 0, ss = 0;
  for (gsize i = 0; i < 200 * 100; i++) {
    g_assert_cmpfloat(fabs(a[i]), <=, lim1);
    s += a[i];
    ss += a[i] * a[i];
  }
  g_assert_cmpfloat(fabs(s / 20000), <, 0.005);
  g_assert_cmpfloat(fabs(ss / 20000 / 0.02 - 1.0), <, 0.05);
  for (gsize i = 20000; i < 20200; i++)
    g_assert_cmpfloat(a[i], ==, 0.0); /* b1 */
  double lim2 = sqrt(6.0 / 201);
  for (gsize i = 20200; i < 20400; i++)
    g_assert_cmpfloat(fabs(a[i]), <=, lim2);
  g_assert_cmpfloat(a[20400], ==, 0.0); /* b2 */
  g_assert_cmpuint(np, ==, 20401);
  g_free(a);
  g_free(b);
  g_free(c);
  learn_model_free(m);
}

/* Outputs computed by hand. */
static void test_predict(void) {
  double out[2], scratch[16];
  LearnModel *lin = model("linear", 2, 0);
  const double wl[] = {1, 2, 3}, x[] = {4, 5};
  learn_model_predict(lin, wl, x, out, scratch);
  g_assert_cmpfloat(out[0], ==, 17.0); /* 1*4 + 2*5 + 3 */
  learn_model_free(lin);

  LearnModel *sm = model("softmax", 2, 2);
  const double ws[] = {1, 0, 0, 1, 0, 0}, xs[] = {log(2.0), 0};
  learn_model_predict(sm, ws, xs, out, NULL);
  /* log, exp (each within an ulp, exp(log 2) within 2), a sum of 2 and a
   * division: 4 eps relative, against one rounding of the want. */
  dpg_test_assert_close(out[0], 2.0 / 3.0, dpg_tol(1, 5), "log, exp, a sum of 2, a division");
  dpg_test_assert_close(out[1], 1.0 / 3.0, dpg_tol(1, 5), "log, exp, a sum of 2, a division");
  learn_model_free(sm);

  /* Hidden unit 0 weighs inputs (1, -1), unit 1 weighs (2, 1); stored
   * input-major: input 0 -> (1, 2), input 1 -> (-1, 1). b1 = (0, -1),
   * W2 = (3, -2), b2 = 0.5, x = (1, 2): pre-activations (-1, 3) -> ReLU
   * (0, 3) -> 3*0 - 2*3 + 0.5 = -5.5. */
  LearnModel *mlp = model("mlp:hidden=2", 2, 0);
  const double wm[] = {1, 2, -1, 1, 0, -1, 3, -2, 0.5}, xm[] = {1, 2};
  g_assert_cmpuint(learn_model_scratch_size(mlp), <=, 16);
  learn_model_predict(mlp, wm, xm, out, scratch);
  g_assert_cmpfloat(out[0], ==, -5.5);
  learn_model_free(mlp);
}

/* MSE, cross-entropy and accuracy by hand, and the loss returned by
 * learn_model_clipped_grad agrees. */
static void test_evaluate(void) {
  LearnModel *lin = model("linear", 2, 0);
  const double wl[] = {1, 2, 3};
  LearnDataset *ds = learn_dataset_new(3, 2, 0);
  const double xl[] = {0, 0, 1, 1, 2, 0}, yl[] = {3, 5, 1};
  memcpy(ds->features, xl, sizeof xl);
  memcpy(ds->targets, yl, sizeof yl);
  double loss, acc, grad[3];
  learn_model_evaluate(lin, wl, ds, NULL, 0, &loss, &acc);
  g_assert_cmpfloat(loss, ==, 17.0 / 3.0); /* errors 0, 1, 4 */
  g_assert_true(isnan(acc));
  const gsize all[] = {0, 1, 2}, two[] = {2};
  g_assert_cmpfloat(learn_model_clipped_grad(lin, wl, ds, all, 3, INFINITY, grad, NULL), ==,
                    17.0 / 3.0);
  /* Mean of 2 (f - y) (x, 1): (0 + 2*(1,1,1) + 8*(2,0,1)) / 3. */
  /* Integer products and a sum of 3 with one division by 3 (or 3 divisions
   * then a sum): <= 4 roundings of a sum of positive terms. */
  dpg_test_assert_close(grad[0], 18.0 / 3, dpg_tol(1, 4), "a mean of 3 exact integers");
  dpg_test_assert_close(grad[1], 2.0 / 3, dpg_tol(1, 4), "a mean of 3 exact integers");
  dpg_test_assert_close(grad[2], 10.0 / 3, dpg_tol(1, 4), "a mean of 3 exact integers");
  learn_model_evaluate(lin, wl, ds, two, 1, &loss, NULL);
  g_assert_cmpfloat(loss, ==, 16.0);
  learn_model_evaluate(lin, wl, ds, two, 0, &loss, &acc);
  g_assert_true(isnan(loss) && isnan(acc));
  learn_dataset_free(ds);
  learn_model_free(lin);

  LearnModel *sm = model("softmax", 2, 2);
  const double ws[] = {1, 0, 0, 1, 0, 0};
  ds = learn_dataset_new(2, 2, 2);
  const double xs[] = {log(3.0), 0, 0, log(3.0)};
  memcpy(ds->features, xs, sizeof xs);
  /* Both labelled 0: p0 = 3/4 (right) and 1/4 (wrong). */
  learn_model_evaluate(sm, ws, ds, NULL, 0, &loss, &acc);
  /* -log p has absolute error = p's relative error (log, exp, a sum of 2,
   * a division: 4 eps) plus log's ulp of |log p| <= 1.4; the same on the
   * want's side, the mean of 2 one more rounding. */
  dpg_test_assert_le(fabs(loss - (log(4.0 / 3.0) + log(4.0)) / 2), dpg_tol(1, 12),
                     "-log of a softmax probability: absolute error <= its relative error + "
                     "an ulp, both sides");
  g_assert_cmpfloat(acc, ==, 0.5);
  learn_dataset_free(ds);
  learn_model_free(sm);
}

/* --- gradients and clipping on the four model kinds ------------------------- */

typedef struct {
  const char *spec;
  guint classes;
} Kind;

static const Kind kinds[] = {
    {"linear", 0}, {"softmax", 3}, {"mlp:hidden=7", 0}, {"mlp:hidden=5", 4}};

enum { D = 6, N = 40 };

static LearnDataset *data_for(guint classes) {
  LearnDataset *ds = classes == 0
                         ? learn_dataset_synthetic_linear(N, D, 0.3, 2, NULL, NULL)
                         : learn_dataset_synthetic_logistic(N, D, classes, 1.0, FALSE, 2, NULL);
  g_assert_nonnull(ds);
  return ds;
}

/* Initialised parameters plus a perturbation, so biases are not 0. */
static double *params_for(const LearnModel *m, guint32 seed) {
  gsize np = learn_model_n_params(m);
  double *p = g_new(double, np);
  learn_model_init(m, p, seed);
  GRand *r = g_rand_new_with_seed(seed);
  for (gsize i = 0; i < np; i++)
    p[i] += g_rand_double_range(r, -0.3, 0.3);
  g_rand_free(r);
  return p;
}

static double norm(const double *v, gsize n) {
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += v[i] * v[i];
  return sqrt(s);
}

/* The evaluation kernel (4 examples per pass, for MLPs whose width is a
 * multiple of 8) against the per-example forward pass of
 * learn_model_predict: bit-identical MSE, cross-entropy to rounding (predict
 * gives probabilities, evaluate works from the logits) and the same
 * accuracy; record counts and index subsets that leave a partial block, and
 * exact zeros among the features (which the per-example pass skips). */
static void test_evaluate_blocked(void) {
  const struct {
    const char *spec;
    guint classes;
  } cases[] = {{"mlp:hidden=64", 0}, {"mlp:hidden=16", 3}, {"mlp:hidden=12", 0}};
  enum { NR = 43, DF = 5 };
  const gsize subset[] = {42, 0, 7, 7, 13, 21, 22, 23, 40, 41, 1};
  for (gsize c = 0; c < G_N_ELEMENTS(cases); c++) {
    guint classes = cases[c].classes;
    LearnDataset *ds = classes == 0
                           ? learn_dataset_synthetic_linear(NR, DF, 0.3, 5, NULL, NULL)
                           : learn_dataset_synthetic_logistic(NR, DF, classes, 1.0, FALSE, 5, NULL);
    g_assert_nonnull(ds);
    for (gsize r = 0; r < NR; r += 3)
      ds->features[r * DF + r % DF] = (r % 2) ? 0.0 : -0.0;
    LearnModel *m = model(cases[c].spec, DF, classes);
    double *p = params_for(m, 31 + (guint32)c);
    gsize o = learn_model_n_outputs(m);
    double *out = g_new(double, o);
    for (int use_subset = 0; use_subset <= 1; use_subset++) {
      gsize count = use_subset ? G_N_ELEMENTS(subset) : NR;
      double total = 0.0;
      gsize correct = 0;
      for (gsize i = 0; i < count; i++) {
        gsize r = use_subset ? subset[i] : i;
        learn_model_predict(m, p, ds->features + r * DF, out, NULL);
        if (classes == 0) {
          double e = out[0] - ds->targets[r];
          total += e * e;
          continue;
        }
        gsize best = 0, label = (gsize)ds->targets[r];
        for (gsize k = 1; k < o; k++)
          if (out[k] > out[best])
            best = k;
        total += -log(out[label]);
        correct += best == label;
      }
      double loss = NAN, acc = NAN;
      learn_model_evaluate(m, p, ds, use_subset ? subset : NULL, use_subset ? count : 0, &loss,
                           &acc);
      if (classes == 0) {
        g_assert_cmpfloat(loss, ==, total / (double)count);
      } else {
        g_assert_cmpfloat_with_epsilon(loss, total / (double)count, 1e-12);
        g_assert_cmpfloat(acc, ==, (double)correct / (double)count);
      }
    }
    g_free(out);
    g_free(p);
    learn_model_free(m);
    learn_dataset_free(ds);
  }
}

/* Gradient of the mean batch loss against central differences of the loss
 * from learn_model_evaluate (a separate forward/loss code path). */
static void test_finite_differences(void) {
  const gsize batch[] = {0, 3, 5, 7, 11, 19, 23};
  for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++) {
    LearnDataset *ds = data_for(kinds[k].classes);
    LearnModel *m = model(kinds[k].spec, D, kinds[k].classes);
    gsize np = learn_model_n_params(m);
    double *p = params_for(m, 10 + (guint32)k), *g = g_new(double, np), *fd = g_new(double, np);
    double *scratch = g_new(double, learn_model_scratch_size(m));
    gsize nb = G_N_ELEMENTS(batch);
    double loss = learn_model_clipped_grad(m, p, ds, batch, nb, INFINITY, g, scratch), ev;
    learn_model_evaluate(m, p, ds, batch, nb, &ev, NULL);
    g_assert_cmpfloat_with_epsilon(loss, ev, 1e-14 * ev);
    const double h = 1e-5;
    for (gsize i = 0; i < np; i++) {
      double save = p[i], up, down;
      p[i] = save + h;
      learn_model_evaluate(m, p, ds, batch, nb, &up, NULL);
      p[i] = save - h;
      learn_model_evaluate(m, p, ds, batch, nb, &down, NULL);
      p[i] = save;
      fd[i] = (up - down) / (2 * h);
    }
    double diff = 0;
    for (gsize i = 0; i < np; i++)
      diff += (fd[i] - g[i]) * (fd[i] - g[i]);
    double rel = sqrt(diff) / norm(g, np);
    g_test_message("%s (%u classes): %" G_GSIZE_FORMAT " params, |g| %.3g, rel err %.2e",
                   kinds[k].spec, kinds[k].classes, np, norm(g, np), rel);
    g_assert_cmpfloat(rel, <, 1e-6);
    /* Each example's gradient too (count = 1). */
    for (gsize e = 0; e < 3; e++) {
      learn_model_clipped_grad(m, p, ds, batch + e, 1, INFINITY, g, scratch);
      for (gsize i = 0; i < np; i++) {
        double save = p[i], up, down;
        p[i] = save + h;
        learn_model_evaluate(m, p, ds, batch + e, 1, &up, NULL);
        p[i] = save - h;
        learn_model_evaluate(m, p, ds, batch + e, 1, &down, NULL);
        p[i] = save;
        fd[i] = (up - down) / (2 * h);
      }
      diff = 0;
      for (gsize i = 0; i < np; i++)
        diff += (fd[i] - g[i]) * (fd[i] - g[i]);
      g_assert_cmpfloat(sqrt(diff) / norm(g, np), <, 1e-6);
    }
    g_free(p);
    g_free(g);
    g_free(fd);
    g_free(scratch);
    learn_model_free(m);
    learn_dataset_free(ds);
  }
}

/* The clipped batch gradient equals the explicit computation: per-example
 * gradients (count = 1, no clipping), each scaled by min(1, clip/||g_i||)
 * with the norm of the materialized vector, averaged. clip is the median
 * norm, so about half the examples are clipped. */
static void test_clipping_explicit(void) {
  enum { B = 9 };
  const gsize batch[B] = {1, 2, 4, 8, 16, 32, 33, 34, 39};
  for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++) {
    LearnDataset *ds = data_for(kinds[k].classes);
    LearnModel *m = model(kinds[k].spec, D, kinds[k].classes);
    gsize np = learn_model_n_params(m);
    double *p = params_for(m, 20 + (guint32)k), *gi = g_new(double, (gsize)B *np);
    double *want = g_new0(double, np), *got = g_new(double, np), norms[B], sorted[B];
    for (gsize e = 0; e < B; e++) {
      learn_model_clipped_grad(m, p, ds, batch + e, 1, INFINITY, gi + e * np, NULL);
      sorted[e] = norms[e] = norm(gi + e * np, np);
    }
    for (gsize a = 0; a < B; a++) /* insertion sort: B is tiny */
      for (gsize b = a + 1; b < B; b++)
        if (sorted[b] < sorted[a]) {
          double t = sorted[a];
          sorted[a] = sorted[b];
          sorted[b] = t;
        }
    double clip = sorted[B / 2];
    gsize clipped = 0;
    for (gsize e = 0; e < B; e++) {
      double s = norms[e] > clip ? clip / norms[e] : 1.0;
      clipped += norms[e] > clip;
      for (gsize i = 0; i < np; i++)
        want[i] += s * gi[e * np + i] / B;
    }
    g_assert_cmpuint(clipped, ==, B / 2);
    learn_model_clipped_grad(m, p, ds, batch, B, clip, got, NULL);
    double diff = 0;
    for (gsize i = 0; i < np; i++)
      diff = MAX(diff, fabs(got[i] - want[i]));
    g_assert_cmpfloat(diff, <, 1e-13 * norm(want, np));
    /* A single clipped example comes out with norm exactly clip and the
     * direction of its gradient. */
    for (gsize e = 0; e < B; e++) {
      double c = norms[e] / 2;
      learn_model_clipped_grad(m, p, ds, batch + e, 1, c, got, NULL);
      /* got = g c / ||g||_model; the model's norm and ours (np squares) differ
       * by np eps relative; the scale and the products add a few roundings. */
      dpg_test_assert_close(norm(got, np), c, dpg_tol(1, 2.0 * np + 4),
                            "two norms of np terms (model's, ours), the scale, products");
      for (gsize i = 0; i < np; i++)
        dpg_test_assert_le(fabs(got[i] - gi[e * np + i] / 2), dpg_tol(1, np + 4.0) * norms[e],
                           "the scale c / ||g|| within (np + 3) eps of 1/2, times |g_i| <= ||g||");
    }
    g_free(p);
    g_free(gi);
    g_free(want);
    g_free(got);
    learn_model_free(m);
    learn_dataset_free(ds);
  }
}

/* One huge example among small ones: its share of the batch gradient is
 * exactly clip/B in norm and points along its own gradient; the small ones
 * are untouched (bitwise). clip <= 0 and infinity both mean no clipping. */
static void test_clipping_huge_example(void) {
  LearnModel *m = model("mlp:hidden=8", D, 0);
  LearnDataset *ds = data_for(0);
  ds->targets[5] = 1e6;
  gsize np = learn_model_n_params(m);
  double *p = params_for(m, 3), *batch_g = g_new(double, np), *g = g_new(double, np);
  double *rest = g_new0(double, np), *huge = g_new(double, np);
  const gsize batch[] = {0, 1, 5, 2};
  const double clip = 200.0; /* above every small example's norm (checked) */
  for (gsize e = 0; e < 4; e++) {
    learn_model_clipped_grad(m, p, ds, batch + e, 1, INFINITY, g, NULL);
    if (batch[e] == 5) {
      memcpy(huge, g, np * sizeof(double));
      continue;
    }
    g_assert_cmpfloat(norm(g, np), <, clip);
    /* Below clip: bitwise the unclipped gradient. */
    double *g2 = g_new(double, np);
    learn_model_clipped_grad(m, p, ds, batch + e, 1, clip, g2, NULL);
    g_assert_cmpmem(g, np * sizeof(double), g2, np * sizeof(double));
    g_free(g2);
    for (gsize i = 0; i < np; i++)
      rest[i] += g[i];
  }
  double hn = norm(huge, np);
  g_assert_cmpfloat(hn, >, 1e5);
  learn_model_clipped_grad(m, p, ds, batch, 4, clip, batch_g, NULL);
  double dot = 0;
  for (gsize i = 0; i < np; i++) {
    g[i] = 4 * batch_g[i] - rest[i]; /* the huge example's contribution */
    dot += g[i] * huge[i];
  }
  /* g = 4 batch_g - rest recovers the clipped huge gradient up to the
   * roundings of a sum of 4 terms, the / 4 and x 4 (exact) and the
   * subtraction, relative to |rest| + |h|; the clipping adds the model's
   * norm (np eps) and the scale; our norm np eps more. */
  double rn = norm(rest, np);
  double tol = dpg_tol(1, 6) * (rn + clip) + dpg_tol(1, 2.0 * np + 3) * clip;
  dpg_test_assert_le(fabs(norm(g, np) - clip), tol,
                     "a sum of 4 with cancellation against |rest| + clip, two norms of np");
  /* 1 - cos <= ||error|| / ||g||, plus a dot and two norms of np terms. */
  dpg_test_assert_le(fabs(dot / (norm(g, np) * hn) - 1.0), tol / clip + dpg_tol(1, 3.0 * np),
                     "the error above relative to clip, a dot and two norms of np terms");

  double *none = g_new(double, np), *zero = g_new(double, np), *neg = g_new(double, np);
  learn_model_clipped_grad(m, p, ds, batch, 4, INFINITY, none, NULL);
  learn_model_clipped_grad(m, p, ds, batch, 4, 0.0, zero, NULL);
  learn_model_clipped_grad(m, p, ds, batch, 4, -1.0, neg, NULL);
  g_assert_cmpmem(none, np * sizeof(double), zero, np * sizeof(double));
  g_assert_cmpmem(none, np * sizeof(double), neg, np * sizeof(double));
  g_assert_cmpfloat(norm(none, np), >, 1e4);
  /* Empty batch: zero gradient, NAN loss. */
  g_assert_true(isnan(learn_model_clipped_grad(m, p, ds, batch, 0, clip, none, NULL)));
  g_assert_cmpfloat(norm(none, np), ==, 0.0);
  g_free(none);
  g_free(zero);
  g_free(neg);
  g_free(p);
  g_free(batch_g);
  g_free(g);
  g_free(rest);
  g_free(huge);
  learn_model_free(m);
  learn_dataset_free(ds);
}

/* --- threads -------------------------------------------------------------- */

typedef struct {
  const LearnModel *m;
  const double *p;
  const LearnDataset *ds;
  guint offset;
  double *out; /* 10 gradients */
} Job;

static gpointer run_job(gpointer data) {
  Job *j = data;
  gsize np = learn_model_n_params(j->m);
  double *scratch = g_new(double, learn_model_scratch_size(j->m));
  for (guint r = 0; r < 10; r++) {
    gsize idx[4];
    for (int e = 0; e < 4; e++)
      idx[e] = (j->offset + r * 4 + (guint)e) % N;
    learn_model_clipped_grad(j->m, j->p, j->ds, idx, 4, 0.5, j->out + r * np, scratch);
  }
  g_free(scratch);
  return NULL;
}

/* One const model and parameter vector shared by 4 threads give the same
 * bytes as a serial run. */
static void test_threads(void) {
  LearnModel *m = model("mlp:hidden=16", D, 3);
  LearnDataset *ds = data_for(3);
  double *p = params_for(m, 9);
  gsize np = learn_model_n_params(m);
  Job jobs[4], serial[4];
  GThread *threads[4];
  for (guint t = 0; t < 4; t++) {
    jobs[t] = (Job){m, p, ds, t * 7, g_new(double, 10 * np)};
    serial[t] = (Job){m, p, ds, t * 7, g_new(double, 10 * np)};
    run_job(&serial[t]);
  }
  for (guint t = 0; t < 4; t++)
    threads[t] = g_thread_new("grad", run_job, &jobs[t]);
  for (guint t = 0; t < 4; t++) {
    g_thread_join(threads[t]);
    g_assert_cmpmem(jobs[t].out, 10 * np * sizeof(double), serial[t].out, 10 * np * sizeof(double));
    g_free(jobs[t].out);
    g_free(serial[t].out);
  }
  g_free(p);
  learn_model_free(m);
  learn_dataset_free(ds);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/learning/model/spec", test_spec);
  g_test_add_func("/learning/model/init", test_init);
  g_test_add_func("/learning/model/predict", test_predict);
  g_test_add_func("/learning/model/evaluate", test_evaluate);
  g_test_add_func("/learning/model/evaluate-blocked", test_evaluate_blocked);
  g_test_add_func("/learning/model/finite-differences", test_finite_differences);
  g_test_add_func("/learning/model/clipping-explicit", test_clipping_explicit);
  g_test_add_func("/learning/model/clipping-huge-example", test_clipping_huge_example);
  g_test_add_func("/learning/model/threads", test_threads);
  return g_test_run();
}
