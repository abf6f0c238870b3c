/*
 * learning/kernels.c: forward pass, per-example gradients with clipping,
 * prediction and evaluation — the hot path of every simulated node.
 *
 * Per-example gradients are never materialized. Every layer's gradient is an
 * outer product delta in^T (plus the bias delta), whose squared Frobenius
 * norm is ||delta||^2 (||in||^2 + 1); so the example's norm is known from
 * the backpropagated deltas alone, and its clipped contribution is added to
 * the batch mean as scaled rank-1 updates.
 */
#include <math.h>
#include <string.h>

#include "learning/model_internal.h"

/* The entry points are compiled twice, for AVX2 and for baseline x86-64,
 * and the loader picks one (GCC function multiversioning): AVX2 doubles the
 * vector width of every loop below (about 1.6x on the housing MLP). Results
 * are bit-identical: ISO C mode disables FMA contraction and nothing is
 * reassociated, so both versions perform the same IEEE operations. The
 * helpers are always inlined so each version gets its own copy. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LEARN_HOT __attribute__((target_clones("avx2", "default")))
#else
#define LEARN_HOT
#endif
#define LEARN_INLINE static inline __attribute__((always_inline))

/* Four partial sums: lets the compiler vectorize without -ffast-math and
 * keeps the summation order (hence results) fixed. */
LEARN_INLINE double dot(const double *restrict a, const double *restrict b, gsize n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  gsize i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; i++)
    s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

LEARN_INLINE void axpy(double a, const double *restrict x, double *restrict y, gsize n) {
  for (gsize i = 0; i < n; i++)
    y[i] += a * x[i];
}

/* Outputs z (n_out) of x; fills hact (hidden) for an MLP. Returns the input
 * of the output layer (x or hact). */
LEARN_INLINE const double *forward(const LearnModel *m, const double *params, const double *x,
                                   double *hact, double *z) {
  gsize d = m->d, h = m->hidden, o = m->n_out;
  const double *in = x, *w = params;
  gsize n_in = d;
  if (h > 0) {
    /* W1 is stored input-major (row k = the weights of input k), so the
     * pre-activations are d contiguous axpys of length h, and zero inputs
     * (most MNIST pixels) cost nothing. */
    memcpy(hact, params + h * d, h * sizeof(double));
    for (gsize k = 0; k < d; k++)
      if (x[k] != 0.0)
        axpy(x[k], params + k * h, hact, h);
    for (gsize j = 0; j < h; j++)
      hact[j] = hact[j] > 0.0 ? hact[j] : 0.0;
    in = hact;
    n_in = h;
    w = params + h * (d + 1);
  }
  const double *b = w + o * n_in;
  for (gsize k = 0; k < o; k++)
    z[k] = dot(w + k * n_in, in, n_in) + b[k];
  return in;
}

/* Loss of outputs z for target y; overwrites z with dloss/dz. */
LEARN_INLINE double loss_and_delta(const LearnModel *m, double *z, double y) {
  if (m->n_classes == 0) {
    double r = z[0] - y;
    z[0] = 2.0 * r;
    return r * r;
  }
  return learn_softmax_xent(z, m->n_out, (gsize)y);
}

/* Add coef * clip(gradient of one example) to grad; returns its loss. */
LEARN_INLINE double example(const LearnModel *m, const double *params, const double *x, double y,
                            double clip, double coef, double *grad, double *scratch) {
  gsize d = m->d, h = m->hidden, o = m->n_out;
  double *hact = scratch, *delta1 = scratch + h, *z = scratch + 2 * h;
  const double *in = forward(m, params, x, hact, z);
  double loss = loss_and_delta(m, z, y);
  gsize n_in = h > 0 ? h : d;
  double norm2 = dot(z, z, o) * (dot(in, in, n_in) + 1.0);
  if (h > 0) {
    const double *w2 = params + h * (d + 1);
    memset(delta1, 0, h * sizeof(double));
    for (gsize k = 0; k < o; k++)
      axpy(z[k], w2 + k * h, delta1, h);
    for (gsize j = 0; j < h; j++)
      if (!(hact[j] > 0.0))
        delta1[j] = 0.0;
    norm2 += dot(delta1, delta1, h) * (dot(x, x, d) + 1.0);
  }
  double c = coef;
  if (clip > 0.0 && isfinite(clip) && norm2 > clip * clip)
    c *= clip / sqrt(norm2);
  double *gw = grad;
  if (h > 0) {
    for (gsize k = 0; k < d; k++)
      if (x[k] != 0.0)
        axpy(c * x[k], delta1, grad + k * h, h);
    axpy(c, delta1, grad + h * d, h);
    gw = grad + h * (d + 1);
  }
  double *gb = gw + o * n_in;
  for (gsize k = 0; k < o; k++) {
    double a = c * z[k];
    axpy(a, in, gw + k * n_in, n_in);
    gb[k] += a;
  }
  return loss;
}

LEARN_INLINE gboolean target_ok(const LearnModel *m, double y) {
  return m->n_classes == 0 || (y >= 0.0 && y < (double)m->n_classes);
}

LEARN_HOT double learn_model_clipped_grad(const LearnModel *m, const double *params,
                                          const LearnDataset *ds, const gsize *idx, gsize count,
                                          double clip, double *grad_out, double *scratch) {
  g_return_val_if_fail(m != NULL && params != NULL && ds != NULL && grad_out != NULL, NAN);
  g_return_val_if_fail(idx != NULL || count == 0, NAN);
  g_return_val_if_fail(ds->n_features == m->d && ds->n_classes == m->n_classes, NAN);
  g_return_val_if_fail(!isnan(clip), NAN);
  memset(grad_out, 0, m->n_params * sizeof(double));
  if (count == 0)
    return NAN;
  if (m->cnn != NULL) {
    for (gsize i = 0; i < count; i++)
      g_return_val_if_fail(idx[i] < ds->n && target_ok(m, ds->targets[idx[i]]), NAN);
    return learn_cnn_clipped_grad(m, params, ds, idx, count, clip, grad_out);
  }
  double *own = NULL;
  if (scratch == NULL)
    scratch = own = g_new(double, learn_model_scratch_size(m));
  double coef = 1.0 / (double)count, total = 0.0;
  for (gsize i = 0; i < count; i++) {
    gsize r = idx[i];
    if (G_UNLIKELY(r >= ds->n || !target_ok(m, ds->targets[r]))) {
      g_free(own);
      g_return_val_if_fail(r < ds->n && target_ok(m, ds->targets[r]), NAN);
    }
    total += example(m, params, ds->features + r * m->d, ds->targets[r], clip, coef, grad_out,
                     scratch);
  }
  g_free(own);
  return total / (double)count;
}

LEARN_HOT void learn_model_predict(const LearnModel *m, const double *params, const double *x,
                                   double *out, double *scratch) {
  g_return_if_fail(m != NULL && params != NULL && x != NULL && out != NULL);
  if (m->cnn != NULL) {
    learn_cnn_predict(m, params, x, out);
    return;
  }
  double *own = NULL;
  if (scratch == NULL)
    scratch = own = g_new(double, learn_model_scratch_size(m));
  double *z = scratch + 2 * m->hidden;
  forward(m, params, x, scratch, z);
  if (m->n_classes == 0) {
    out[0] = z[0];
  } else {
    double mx = z[0], s = 0.0;
    for (gsize k = 1; k < m->n_out; k++)
      mx = MAX(mx, z[k]);
    for (gsize k = 0; k < m->n_out; k++)
      s += out[k] = exp(z[k] - mx);
    for (gsize k = 0; k < m->n_out; k++)
      out[k] /= s;
  }
  g_free(own);
}

/*
 * Evaluation runs the forward pass over whole datasets (every node's model on
 * the test set at every evaluation step), where the per-example pass above is
 * bound by its loads and stores (each of the d axpys streams the hidden
 * vector through memory) and by the latency of the output dot. Here
 * EVAL_BLOCK examples share each pass over W1, 8 hidden units of each stay
 * in registers, and their output terms join per-lane partial sums at once.
 * The arithmetic is forward()'s, operation for operation: each hidden unit
 * sums b1[j] + x_0 W1[0,j] + x_1 W1[1,j] + ... in input order (the terms
 * forward() skips are exact zeros), and lane l of an output's partial sums
 * adds the terms j = l mod 4 in order, as dot()'s s_l; so losses are
 * bit-identical to the per-example path. Needs h a multiple of 8.
 */
#define EVAL_BLOCK 4 /* forward_block names its 4 examples */
typedef double v4d __attribute__((vector_size(32)));
typedef gint64 v4i __attribute__((vector_size(32)));

/* Macros, not functions: a v4d argument or result would change the ABI of
 * the baseline clone. */
#define LOAD4(v, p) memcpy(&(v), (p), sizeof(v4d))
/* The comparison's lanes are all-ones where v > 0 (false for NaN, as in
 * forward()), zero elsewhere: relu keeps v there and gives +0 elsewhere. */
#define RELU4(v) ((v4d)((v4i)(v) & ((v) > (v4d){0.0, 0.0, 0.0, 0.0})))

/* Outputs z[e * o + k] of examples x[e], e < EVAL_BLOCK, as forward(). */
LEARN_INLINE void forward_block(const LearnModel *m, const double *params,
                                const double *const x[EVAL_BLOCK], v4d *restrict part,
                                double *restrict z) {
  gsize d = m->d, h = m->hidden, o = m->n_out;
  const double *W1 = params, *b1 = params + h * d, *w2 = b1 + h, *b2 = w2 + o * h;
  const double *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
  /* Named accumulators, not arrays: they stay in registers. */
  v4d p0 = {0.0, 0.0, 0.0, 0.0}, p1 = p0, p2 = p0, p3 = p0; /* the single output's */
  if (o > 1)
    memset(part, 0, EVAL_BLOCK * o * sizeof(v4d));
  for (gsize j = 0; j < h; j += 8) {
    v4d l0, h0;
    LOAD4(l0, b1 + j);
    LOAD4(h0, b1 + j + 4);
    v4d l1 = l0, l2 = l0, l3 = l0, h1 = h0, h2 = h0, h3 = h0;
    for (gsize k = 0; k < d; k++) {
      v4d wl, wh;
      LOAD4(wl, W1 + k * h + j);
      LOAD4(wh, W1 + k * h + j + 4);
      l0 += x0[k] * wl;
      h0 += x0[k] * wh;
      l1 += x1[k] * wl;
      h1 += x1[k] * wh;
      l2 += x2[k] * wl;
      h2 += x2[k] * wh;
      l3 += x3[k] * wl;
      h3 += x3[k] * wh;
    }
    l0 = RELU4(l0), l1 = RELU4(l1), l2 = RELU4(l2), l3 = RELU4(l3);
    h0 = RELU4(h0), h1 = RELU4(h1), h2 = RELU4(h2), h3 = RELU4(h3);
    if (o == 1) {
      v4d ol, oh;
      LOAD4(ol, w2 + j);
      LOAD4(oh, w2 + j + 4);
      p0 += ol * l0;
      p0 += oh * h0;
      p1 += ol * l1;
      p1 += oh * h1;
      p2 += ol * l2;
      p2 += oh * h2;
      p3 += ol * l3;
      p3 += oh * h3;
      continue;
    }
    for (gsize k = 0; k < o; k++) {
      v4d ol, oh;
      LOAD4(ol, w2 + k * h + j);
      LOAD4(oh, w2 + k * h + j + 4);
      part[0 * o + k] += ol * l0;
      part[0 * o + k] += oh * h0;
      part[1 * o + k] += ol * l1;
      part[1 * o + k] += oh * h1;
      part[2 * o + k] += ol * l2;
      part[2 * o + k] += oh * h2;
      part[3 * o + k] += ol * l3;
      part[3 * o + k] += oh * h3;
    }
  }
  if (o == 1)
    part[0] = p0, part[1] = p1, part[2] = p2, part[3] = p3;
  for (int e = 0; e < EVAL_BLOCK; e++)
    for (gsize k = 0; k < o; k++) {
      const v4d p = part[e * o + k];
      z[e * o + k] = ((p[0] + p[1]) + (p[2] + p[3])) + b2[k];
    }
}

/* Adds example (z, y)'s loss to *total and its hit to *correct. */
LEARN_INLINE void score(const LearnModel *m, const double *z, double y, double *total,
                        gsize *correct) {
  if (m->n_classes == 0) {
    double e = z[0] - y;
    *total += e * e;
    return;
  }
  gsize best = 0, label = (gsize)y;
  for (gsize k = 1; k < m->n_out; k++)
    if (z[k] > z[best])
      best = k;
  double s = 0.0;
  for (gsize k = 0; k < m->n_out; k++)
    s += exp(z[k] - z[best]);
  *total += log(s) + z[best] - z[label];
  *correct += best == label;
}

LEARN_HOT void learn_model_evaluate(const LearnModel *m, const double *params,
                                    const LearnDataset *ds, const gsize *idx, gsize count,
                                    double *loss, double *accuracy) {
  if (loss != NULL)
    *loss = NAN;
  if (accuracy != NULL)
    *accuracy = NAN;
  g_return_if_fail(m != NULL && params != NULL && ds != NULL);
  g_return_if_fail(ds->n_features == m->d && ds->n_classes == m->n_classes);
  if (idx == NULL)
    count = ds->n;
  if (count == 0)
    return;
  for (gsize i = 0; i < count; i++) {
    gsize r = idx != NULL ? idx[i] : i;
    g_return_if_fail(r < ds->n && target_ok(m, ds->targets[r]));
  }
  if (m->cnn != NULL) {
    double l, a;
    learn_cnn_evaluate(m, params, ds, idx, count, &l, &a);
    if (loss != NULL)
      *loss = l;
    if (accuracy != NULL)
      *accuracy = a;
    return;
  }
  gsize h = m->hidden, o = m->n_out;
  double *scratch = g_new(double, learn_model_scratch_size(m) + EVAL_BLOCK * o);
  double *z = scratch + 2 * h, *Z = scratch + learn_model_scratch_size(m);
  v4d *part = g_aligned_alloc(EVAL_BLOCK * o, sizeof(v4d), sizeof(v4d));
  double total = 0.0;
  gsize correct = 0, i = 0;
  if (h > 0 && h % 8 == 0)
    for (; i + EVAL_BLOCK <= count; i += EVAL_BLOCK) {
      const double *x[EVAL_BLOCK];
      for (int e = 0; e < EVAL_BLOCK; e++)
        x[e] = ds->features + (idx != NULL ? idx[i + e] : i + e) * m->d;
      forward_block(m, params, x, part, Z);
      for (int e = 0; e < EVAL_BLOCK; e++)
        score(m, Z + e * o, ds->targets[idx != NULL ? idx[i + e] : i + e], &total, &correct);
    }
  g_aligned_free(part);
  for (; i < count; i++) {
    gsize r = idx != NULL ? idx[i] : i;
    forward(m, params, ds->features + r * m->d, scratch, z);
    score(m, z, ds->targets[r], &total, &correct);
  }
  g_free(scratch);
  if (loss != NULL)
    *loss = total / (double)count;
  if (accuracy != NULL && m->n_classes > 0)
    *accuracy = (double)correct / (double)count;
}
