/*
 * tests/learning/test_cnn.c: the CNN model (learning/cnn.c). Its spec and
 * layout; per-example gradients against central finite differences of the
 * loss (a small network, every parameter) and against a second, direct
 * implementation written here (nested-loop convolutions and pooling, no
 * im2col, no BLAS) on the paper's network; clipping against the clipped mean
 * assembled from single-example gradients over batches that span several
 * chunks; evaluation against prediction; and threads.
 */
#include <math.h>
#include <string.h>

#include "learning/learning.h"

static LearnModel *model(const char *spec, gsize d, guint classes) {
  GError *error = NULL;
  LearnModel *m = learn_model_new(spec, d, classes, &error);
  g_assert_no_error(error);
  return m;
}

/* n random images (pixels in [0, 1], a third of them exactly 0 like the
 * background of a scan) with random labels. */
static LearnDataset *images(gsize n, gsize side, guint classes, guint32 seed) {
  LearnDataset *ds = learn_dataset_new(n, side * side, classes);
  GRand *r = g_rand_new_with_seed(seed);
  for (gsize i = 0; i < n * side * side; i++)
    ds->features[i] = g_rand_double(r) < 0.33 ? 0.0 : g_rand_double(r);
  for (gsize i = 0; i < n; i++)
    ds->targets[i] = (double)g_rand_int_range(r, 0, (gint32)classes);
  g_rand_free(r);
  return ds;
}

static void test_spec(void) {
  LearnModel *m = model("cnn", 784, 10);
  /* 16*9+16 + 32*144+32 + 2*32 + 10*(32*49)+10 */
  g_assert_cmpuint(learn_model_n_params(m), ==, 160 + 4640 + 64 + 15690);
  g_assert_cmpuint(learn_model_n_params(m), ==, 20554);
  g_assert_cmpuint(learn_model_n_outputs(m), ==, 10);
  g_assert_cmpstr(learn_model_spec(m), ==, "cnn:c1=16,c2=32,groups=8");
  learn_model_free(m);
  m = model("cnn:groups=4,c1=2,c2=4", 64, 3); /* 8x8 -> 4x4 -> 2x2 */
  g_assert_cmpuint(learn_model_n_params(m), ==, 2 * 10 + 4 * 19 + 8 + 3 * 17);
  g_assert_cmpstr(learn_model_spec(m), ==, "cnn:c1=2,c2=4,groups=4");
  learn_model_free(m);
  m = model("cnn", 81, 2); /* odd sides floor as PyTorch: 9 -> 4 -> 2 */
  g_assert_cmpuint(learn_model_n_params(m), ==, 160 + 4640 + 64 + 2 * (32 * 4 + 1));
  learn_model_free(m);

  struct {
    const char *spec;
    gsize d;
    guint classes;
    gint code;
    const char *part;
  } bad[] = {
      {"cnn", 783, 10, LEARN_ERROR_INVALID_ARGUMENT, "square"},
      {"cnn", 9, 10, LEARN_ERROR_INVALID_ARGUMENT, "side >= 4"},
      {"cnn", 784, 0, LEARN_ERROR_INVALID_ARGUMENT, "classes"},
      {"cnn:groups=5", 784, 10, LEARN_ERROR_INVALID_ARGUMENT, "does not divide c2=32"},
      {"cnn:groups=0", 784, 10, LEARN_ERROR_INVALID_ARGUMENT, "groups"},
      {"cnn:width=3", 784, 10, LEARN_ERROR_PARSE, "width"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    GError *error = NULL;
    g_assert_null(learn_model_new(bad[i].spec, bad[i].d, bad[i].classes, &error));
    g_assert_error(error, LEARN_ERROR, bad[i].code);
    g_assert_nonnull(strstr(error->message, bad[i].part));
    g_error_free(error);
  }
  /* The data-free check accepts the CNN's options and refuses bad ones. */
  GError *error = NULL;
  g_assert_true(learn_model_spec_check("cnn:groups=4", &error));
  g_assert_true(learn_model_spec_check("mlp:hidden=8", &error));
  g_assert_true(learn_model_spec_check("softmax", &error));
  g_assert_no_error(error);
  g_assert_false(learn_model_spec_check("cnn:groups=3", &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  g_assert_false(learn_model_spec_check("cnn:depth=3", &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_PARSE);
  g_clear_error(&error);
  g_assert_false(learn_model_spec_check("convnet", &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_PARSE);
  g_clear_error(&error);

  /* Initialisation: deterministic, He/Glorot ranges, gamma 1, biases 0. */
  m = model("cnn", 784, 10);
  gsize np = learn_model_n_params(m);
  double *a = g_new(double, np), *b = g_new(double, np);
  learn_model_init(m, a, 7);
  learn_model_init(m, b, 7);
  g_assert_cmpmem(a, np * sizeof(double), b, np * sizeof(double));
  for (gsize i = 0; i < 144; i++)
    g_assert_cmpfloat(fabs(a[i]), <=, sqrt(6.0 / 9.0));
  for (gsize i = 144; i < 160; i++)
    g_assert_cmpfloat(a[i], ==, 0.0);
  for (gsize i = 4800; i < 4832; i++)
    g_assert_cmpfloat(a[i], ==, 1.0);
  for (gsize i = 4832; i < 4864; i++)
    g_assert_cmpfloat(a[i], ==, 0.0);
  g_free(a);
  g_free(b);
  learn_model_free(m);
}

/* ------------------------------------------- the direct implementation */

typedef struct {
  gsize S, c1, c2, G, C;
} Net;

/* Same-padded 3x3 convolution of in (cin x s x s) into out (cout x s x s),
 * then ReLU. */
static void dconv(const double *in, gsize cin, gsize s, const double *W, const double *bias,
                  gsize cout, double *out) {
  for (gsize co = 0; co < cout; co++)
    for (gsize y = 0; y < s; y++)
      for (gsize x = 0; x < s; x++) {
        double v = bias[co];
        for (gsize ci = 0; ci < cin; ci++)
          for (gsize ky = 0; ky < 3; ky++)
            for (gsize kx = 0; kx < 3; kx++) {
              long iy = (long)y + (long)ky - 1, ix = (long)x + (long)kx - 1;
              if (iy >= 0 && ix >= 0 && iy < (long)s && ix < (long)s)
                v += W[(co * cin + ci) * 9 + ky * 3 + kx] *
                     in[(ci * s + (gsize)iy) * s + (gsize)ix];
            }
        out[(co * s + y) * s + x] = v > 0.0 ? v : 0.0;
      }
}

/* Backward of dconv: dout is dloss/d(ReLU output); accumulates dW, db and
 * (when din != NULL) din. */
static void dconv_back(const double *in, gsize cin, gsize s, const double *W, const double *out,
                       const double *dout, gsize cout, double *dW, double *db, double *din) {
  for (gsize co = 0; co < cout; co++)
    for (gsize y = 0; y < s; y++)
      for (gsize x = 0; x < s; x++) {
        gsize o = (co * s + y) * s + x;
        if (!(out[o] > 0.0))
          continue;
        double d = dout[o];
        db[co] += d;
        for (gsize ci = 0; ci < cin; ci++)
          for (gsize ky = 0; ky < 3; ky++)
            for (gsize kx = 0; kx < 3; kx++) {
              long iy = (long)y + (long)ky - 1, ix = (long)x + (long)kx - 1;
              if (iy < 0 || ix < 0 || iy >= (long)s || ix >= (long)s)
                continue;
              gsize ii = (ci * s + (gsize)iy) * s + (gsize)ix,
                    wi = (co * cin + ci) * 9 + ky * 3 + kx;
              dW[wi] += d * in[ii];
              if (din != NULL)
                din[ii] += d * W[wi];
            }
      }
}

static void dpool(const double *in, gsize c, gsize s, double *out, gsize *where) {
  gsize t = s / 2;
  for (gsize ch = 0; ch < c; ch++)
    for (gsize y = 0; y < t; y++)
      for (gsize x = 0; x < t; x++) {
        gsize best = (ch * s + 2 * y) * s + 2 * x;
        for (gsize dy = 0; dy < 2; dy++)
          for (gsize dx = 0; dx < 2; dx++) {
            gsize i = (ch * s + 2 * y + dy) * s + 2 * x + dx;
            if (in[i] > in[best])
              best = i;
          }
        out[(ch * t + y) * t + x] = in[best];
        where[(ch * t + y) * t + x] = best;
      }
}

/* Loss and gradient (into g, zeroed here) of one example, directly. */
static double direct_grad(const Net *n, const double *p, const double *x, gsize label, double *g,
                          gsize np) {
  gsize S = n->S, s2 = S / 2, t = s2 / 2, c1 = n->c1, c2 = n->c2, C = n->C, F = c2 * t * t;
  const double *W1 = p, *b1 = W1 + c1 * 9, *W2 = b1 + c1, *b2 = W2 + c2 * c1 * 9, *gam = b2 + c2,
               *bet = gam + c2, *Wf = bet + c2, *bf = Wf + C * F;
  double *a1 = g_new0(double, c1 *S *S), *m1 = g_new0(double, c1 *s2 *s2);
  double *a2 = g_new0(double, c2 *s2 *s2), *m2 = g_new0(double, F), *h = g_new0(double, F);
  double *xh = g_new0(double, F), *z = g_new0(double, C);
  gsize *w1 = g_new0(gsize, c1 * s2 * s2), *w2 = g_new0(gsize, F);
  dconv(x, 1, S, W1, b1, c1, a1);
  dpool(a1, c1, S, m1, w1);
  dconv(m1, c1, s2, W2, b2, c2, a2);
  dpool(a2, c2, s2, m2, w2);
  gsize len = F / n->G;
  double *inv = g_new0(double, n->G);
  for (gsize gi = 0; gi < n->G; gi++) {
    double mean = 0, var = 0;
    for (gsize i = 0; i < len; i++)
      mean += m2[gi * len + i] / (double)len;
    for (gsize i = 0; i < len; i++)
      var += (m2[gi * len + i] - mean) * (m2[gi * len + i] - mean) / (double)len;
    inv[gi] = 1.0 / sqrt(var + 1e-5);
    for (gsize i = 0; i < len; i++) {
      gsize k = gi * len + i, c = k / (t * t);
      xh[k] = (m2[k] - mean) * inv[gi];
      h[k] = gam[c] * xh[k] + bet[c];
    }
  }
  double mx = -INFINITY, sum = 0;
  for (gsize k = 0; k < C; k++) {
    z[k] = bf[k];
    for (gsize j = 0; j < F; j++)
      z[k] += Wf[k * F + j] * h[j];
    mx = MAX(mx, z[k]);
  }
  for (gsize k = 0; k < C; k++)
    sum += exp(z[k] - mx);
  double loss = log(sum) + mx - z[label];
  /* backward */
  memset(g, 0, np * sizeof(double));
  double *gW1 = g, *gb1 = gW1 + c1 * 9, *gW2 = gb1 + c1, *gb2 = gW2 + c2 * c1 * 9, *ggam = gb2 + c2,
         *gbet = ggam + c2, *gWf = gbet + c2, *gbf = gWf + C * F;
  double *dh = g_new0(double, F), *dm2 = g_new0(double, F), *da2 = g_new0(double, c2 *s2 *s2);
  double *dm1 = g_new0(double, c1 *s2 *s2), *da1 = g_new0(double, c1 *S *S);
  for (gsize k = 0; k < C; k++) {
    double dz = exp(z[k] - mx) / sum - (k == label ? 1.0 : 0.0);
    gbf[k] = dz;
    for (gsize j = 0; j < F; j++) {
      gWf[k * F + j] = dz * h[j];
      dh[j] += dz * Wf[k * F + j];
    }
  }
  for (gsize k = 0; k < F; k++) {
    gsize c = k / (t * t);
    ggam[c] += dh[k] * xh[k];
    gbet[c] += dh[k];
  }
  for (gsize gi = 0; gi < n->G; gi++) {
    /* d m2_k = sum_j dxh_j d xh_j / d m2_k, d xh_j / d m2_k =
     * inv (delta_jk - 1/len - xh_j xh_k / len) */
    for (gsize k = 0; k < len; k++) {
      double acc = 0;
      for (gsize j = 0; j < len; j++) {
        gsize jj = gi * len + j, kk = gi * len + k;
        double dxh = dh[jj] * gam[jj / (t * t)];
        acc += dxh * inv[gi] *
               ((j == k ? 1.0 : 0.0) - 1.0 / (double)len - xh[jj] * xh[kk] / (double)len);
      }
      dm2[gi * len + k] = acc;
    }
  }
  for (gsize k = 0; k < F; k++)
    da2[w2[k]] += dm2[k];
  dconv_back(m1, c1, s2, W2, a2, da2, c2, gW2, gb2, dm1);
  for (gsize k = 0; k < c1 * s2 * s2; k++)
    da1[w1[k]] += dm1[k];
  dconv_back(x, 1, S, W1, a1, da1, c1, gW1, gb1, NULL);
  g_free(a1), g_free(m1), g_free(a2), g_free(m2), g_free(h), g_free(xh), g_free(z);
  g_free(w1), g_free(w2), g_free(inv), g_free(dh), g_free(dm2), g_free(da2), g_free(dm1);
  g_free(da1);
  return loss;
}

static double max_rel_diff(const double *a, const double *b, gsize n) {
  double scale = 0, diff = 0;
  for (gsize i = 0; i < n; i++) {
    scale = MAX(scale, fabs(b[i]));
    diff = MAX(diff, fabs(a[i] - b[i]));
  }
  return diff / scale;
}

/* Random parameters with a spread-out group norm scale and nonzero biases,
 * so that every block of the gradient is exercised. */
static void random_params(const LearnModel *m, double *p, guint64 seed) {
  learn_model_init(m, p, seed);
  GRand *r = g_rand_new_with_seed((guint32)seed);
  gsize np = learn_model_n_params(m);
  for (gsize i = 0; i < np; i++)
    p[i] += g_rand_double_range(r, -0.1, 0.1);
  g_rand_free(r);
}

static void test_vs_direct(void) {
  Net n = {28, 16, 32, 8, 10};
  LearnModel *m = model("cnn", 784, 10);
  LearnDataset *ds = images(5, 28, 10, 3);
  gsize np = learn_model_n_params(m);
  double *p = g_new(double, np), *g = g_new(double, np), *ref = g_new(double, np);
  random_params(m, p, 11);
  for (gsize i = 0; i < ds->n; i++) {
    double loss = learn_model_clipped_grad(m, p, ds, &i, 1, 0.0, g, NULL);
    double want = direct_grad(&n, p, ds->features + i * 784, learn_dataset_label(ds, i), ref, np);
    g_assert_cmpfloat_with_epsilon(loss, want, 1e-12 * MAX(1.0, want));
    g_assert_cmpfloat(max_rel_diff(g, ref, np), <, 1e-11);
    /* every block is live: conv1 weights, group norm scale, FC bias */
    double w1 = 0, gam = 0;
    for (gsize k = 0; k < 144; k++)
      w1 += fabs(ref[k]);
    for (gsize k = 4800; k < 4832; k++)
      gam += fabs(ref[k]);
    g_assert_cmpfloat(w1, >, 1e-3);
    g_assert_cmpfloat(gam, >, 1e-3);
    g_assert_cmpfloat(fabs(ref[np - 1]), >, 0.0);
  }
  g_free(p), g_free(g), g_free(ref);
  learn_dataset_free(ds);
  learn_model_free(m);
}

static void test_finite_differences(void) {
  /* Small enough to difference every parameter: 8x8 images, 3 classes. */
  LearnModel *m = model("cnn:c1=3,c2=4,groups=2", 64, 3);
  LearnDataset *ds = images(3, 8, 3, 5);
  gsize np = learn_model_n_params(m);
  double *p = g_new(double, np), *g = g_new(double, np), *fd = g_new(double, np);
  random_params(m, p, 4);
  gsize all[3] = {0, 1, 2};
  learn_model_clipped_grad(m, p, ds, all, 3, 0.0, g, NULL);
  const double h = 1e-6;
  for (gsize k = 0; k < np; k++) {
    double keep = p[k], lp, lm;
    p[k] = keep + h;
    learn_model_evaluate(m, p, ds, NULL, 0, &lp, NULL);
    p[k] = keep - h;
    learn_model_evaluate(m, p, ds, NULL, 0, &lm, NULL);
    p[k] = keep;
    fd[k] = (lp - lm) / (2 * h);
  }
  for (gsize k = 0; k < np; k++)
    g_assert_cmpfloat(fabs(g[k] - fd[k]), <, 1e-6 * MAX(1.0, fabs(fd[k])));
  g_assert_cmpfloat(max_rel_diff(g, fd, np), <, 1e-6);
  g_free(p), g_free(g), g_free(fd);
  learn_dataset_free(ds);
  learn_model_free(m);
}

static void test_clipping(void) {
  LearnModel *m = model("cnn", 784, 10);
  /* 37 examples: two full chunks and a partial one */
  LearnDataset *ds = images(40, 28, 10, 9);
  gsize np = learn_model_n_params(m), count = 37;
  gsize idx[37];
  for (gsize i = 0; i < count; i++)
    idx[i] = (i * 7 + 3) % ds->n; /* out of order */
  double *p = g_new(double, np), *g = g_new(double, np), *one = g_new(double, np);
  double *want = g_new0(double, np), *norms = g_new(double, count);
  random_params(m, p, 2);
  double loss_sum = 0;
  for (gsize i = 0; i < count; i++) {
    loss_sum += learn_model_clipped_grad(m, p, ds, &idx[i], 1, 0.0, one, NULL);
    double s = 0;
    for (gsize k = 0; k < np; k++)
      s += one[k] * one[k];
    norms[i] = sqrt(s);
  }
  /* a clip between the norms, so some are clipped and some are not */
  double sorted[37];
  memcpy(sorted, norms, sizeof(sorted));
  for (gsize i = 0; i < count; i++)
    for (gsize j = i + 1; j < count; j++)
      if (sorted[j] < sorted[i]) {
        double t = sorted[i];
        sorted[i] = sorted[j];
        sorted[j] = t;
      }
  double clip = sorted[count / 2];
  g_assert_cmpfloat(sorted[0], <, clip);
  g_assert_cmpfloat(sorted[count - 1], >, clip);
  for (gsize i = 0; i < count; i++) {
    learn_model_clipped_grad(m, p, ds, &idx[i], 1, clip, one, NULL);
    double s = 0;
    for (gsize k = 0; k < np; k++)
      s += one[k] * one[k];
    /* a clipped example has norm clip; the others keep theirs */
    g_assert_cmpfloat(fabs(sqrt(s) - MIN(norms[i], clip)), <, 1e-12 * clip);
    for (gsize k = 0; k < np; k++)
      want[k] += one[k] / (double)count;
  }
  double loss = learn_model_clipped_grad(m, p, ds, idx, count, clip, g, NULL);
  g_assert_cmpfloat(fabs(loss - loss_sum / (double)count), <, 1e-12);
  g_assert_cmpfloat(max_rel_diff(g, want, np), <, 1e-12);
  /* no clipping: clip 0 and infinity agree and differ from the clipped mean */
  double *g2 = g_new(double, np);
  learn_model_clipped_grad(m, p, ds, idx, count, 0.0, g, NULL);
  learn_model_clipped_grad(m, p, ds, idx, count, INFINITY, g2, NULL);
  g_assert_cmpmem(g, np * sizeof(double), g2, np * sizeof(double));
  g_assert_cmpfloat(max_rel_diff(g, want, np), >, 1e-3);
  g_free(g2);
  g_free(p), g_free(g), g_free(one), g_free(want), g_free(norms);
  learn_dataset_free(ds);
  learn_model_free(m);
}

static void test_evaluate(void) {
  LearnModel *m = model("cnn:groups=4", 784, 10);
  LearnDataset *ds = images(21, 28, 10, 13);
  gsize np = learn_model_n_params(m);
  double *p = g_new(double, np), out[10];
  random_params(m, p, 5);
  double loss = 0;
  gsize hits = 0;
  for (gsize i = 0; i < ds->n; i++) {
    learn_model_predict(m, p, ds->features + i * 784, out, NULL);
    double s = 0;
    gsize best = 0;
    for (gsize k = 0; k < 10; k++) {
      s += out[k];
      if (out[k] > out[best])
        best = k;
    }
    g_assert_cmpfloat(fabs(s - 1.0), <, 1e-12);
    loss -= log(out[learn_dataset_label(ds, i)]);
    hits += best == learn_dataset_label(ds, i);
  }
  double l, a;
  learn_model_evaluate(m, p, ds, NULL, 0, &l, &a);
  g_assert_cmpfloat(fabs(l - loss / (double)ds->n), <, 1e-10);
  g_assert_cmpfloat(a, ==, (double)hits / (double)ds->n);
  g_free(p);
  learn_dataset_free(ds);
  learn_model_free(m);
}

/* Threads get their own workspaces: concurrent gradients equal serial ones. */
typedef struct {
  const LearnModel *m;
  const double *p;
  const LearnDataset *ds;
  gsize first;
  double *g;
} Job;

static gpointer job_run(gpointer data) {
  Job *j = data;
  gsize idx[20];
  for (gsize r = 0; r < 20; r++) {
    for (gsize i = 0; i < 20; i++)
      idx[i] = (j->first + i) % j->ds->n;
    learn_model_clipped_grad(j->m, j->p, j->ds, idx, 20, 1.0, j->g, NULL);
  }
  return NULL;
}

static void test_threads(void) {
  LearnModel *m = model("cnn", 784, 10);
  LearnDataset *ds = images(30, 28, 10, 17);
  gsize np = learn_model_n_params(m);
  double *p = g_new(double, np);
  random_params(m, p, 8);
  Job jobs[3];
  GThread *t[3];
  for (int i = 0; i < 3; i++) {
    jobs[i] = (Job){m, p, ds, (gsize)i * 5, g_new(double, np)};
    t[i] = g_thread_new("cnn", job_run, &jobs[i]);
  }
  for (int i = 0; i < 3; i++)
    g_thread_join(t[i]);
  double *serial = g_new(double, np);
  for (int i = 0; i < 3; i++) {
    job_run(&(Job){m, p, ds, (gsize)i * 5, serial});
    g_assert_cmpmem(serial, np * sizeof(double), jobs[i].g, np * sizeof(double));
    g_free(jobs[i].g);
  }
  g_free(serial);
  g_free(p);
  learn_dataset_free(ds);
  learn_model_free(m);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/learning/cnn/spec", test_spec);
  g_test_add_func("/learning/cnn/vs-direct", test_vs_direct);
  g_test_add_func("/learning/cnn/finite-differences", test_finite_differences);
  g_test_add_func("/learning/cnn/clipping", test_clipping);
  g_test_add_func("/learning/cnn/evaluate", test_evaluate);
  g_test_add_func("/learning/cnn/threads", test_threads);
  return g_test_run();
}
