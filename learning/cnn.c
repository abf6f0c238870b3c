/*
 * learning/cnn.c: the paper's small CNN for 28x28 images (Figure 4; the
 * FEMNIST_tiny_CNN of its public code): conv 3x3 (c1 filters, padding 1),
 * ReLU, 2x2 max-pool, conv 3x3 (c2 filters, padding 1), ReLU, 2x2 max-pool,
 * group normalization (G groups, affine), one fully connected layer, softmax
 * cross-entropy.
 *
 * Examples are processed in chunks of CNN_CHUNK. Each convolution is one
 * im2col plus one GEMM for the whole chunk (the columns of all its examples
 * side by side), and so is the backpropagation to the first layer's output
 * (W^T dY, then col2im). Per-example gradients cannot share one GEMM: each
 * example's weight gradient dY_b cols_b^T is its own GEMM on the same
 * buffers (a strided sub-block per example), written straight into that
 * example's row of a chunk x n_params matrix, whose rows are then clipped
 * and summed by one GEMV. Unlike the MLP's rank-1 factors, a convolution's
 * per-example gradient norm has no cheap closed form (the "ghost" Gram trick
 * costs P^2 (K + C_out) per example, more than the GEMM itself here), so the
 * gradients are materialized.
 *
 * Layouts. A layer's GEMM output is channel-major over the chunk: element
 * (c, b, p) at c * (B P) + b P + p. Pooled maps are example-major (b, c, p),
 * the layout of a record and of PyTorch's Flatten, so the next im2col and
 * the group norm read one example contiguously.
 *
 * Workspace: one buffer per thread (GPrivate), grown on demand and freed
 * when the thread exits, so that a node's scratch stays small (a simulation
 * holds one per node) while a chunk needs about a megabyte per example.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "learning/model_internal.h"

#define CNN_CHUNK 16
#define CNN_GN_EPS 1e-5

struct LearnCnn {
  gsize side;           /* S: input S x S, one channel */
  gsize c1, c2, groups; /* filters of the two layers; group norm groups (divides c2) */
  gsize p1, s2, p2, q2; /* conv1 positions S^2; conv2 side S/2 and positions; pooled side^2 */
  gsize flat;           /* c2 * q2: the input of the fully connected layer */
  gsize k1, k2;         /* GEMM depths: 9 and 9 c1 */
  gsize classes;
  /* offsets of the parameter blocks in the flat vector */
  gsize w1, b1, w2, b2, gamma, beta, wf, bf;
};

/* ------------------------------------------------------------ the spec */

LearnModel *learn_cnn_model_new(const Spec *spec, gsize n_features, guint n_classes,
                                GError **error) {
  static const char *const valid[] = {"c1", "c2", "groups", NULL};
  guint64 c1, c2, groups;
  if (!spec_check(spec, "model cnn", valid, NULL, error) ||
      !spec_uint(spec, "c1", 16, 1, 4096, &c1, error) ||
      !spec_uint(spec, "c2", 32, 1, 4096, &c2, error) ||
      !spec_uint(spec, "groups", 8, 1, 4096, &groups, error))
    return NULL;
  if (c2 % groups != 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "model cnn: groups=%" G_GUINT64_FORMAT " does not divide c2=%" G_GUINT64_FORMAT
                " (group normalization splits the c2 channels into equal groups)",
                groups, c2);
    return NULL;
  }
  if (n_features == 0)
    return NULL; /* spec check only (learn_model_spec_check) */
  gsize side = (gsize)llround(sqrt((double)n_features));
  if (n_classes < 2 || side * side != n_features || side < 4 || side > 4096) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "model cnn classifies square single-channel images of side >= 4 "
                "(n_features = side^2, >= 2 classes); got %" G_GSIZE_FORMAT
                " features and %u classes",
                n_features, n_classes);
    return NULL;
  }
  LearnCnn *n = g_new0(LearnCnn, 1);
  n->side = side;
  n->c1 = (gsize)c1;
  n->c2 = (gsize)c2;
  n->groups = (gsize)groups;
  n->p1 = side * side;
  n->s2 = side / 2;
  n->q2 = (n->s2 / 2) * (n->s2 / 2);
  n->flat = n->c2 * n->q2;
  n->k1 = 9;
  n->k2 = 9 * n->c1;
  n->classes = n_classes;
  gsize o = 0;
  n->w1 = o, o += n->c1 * n->k1;
  n->b1 = o, o += n->c1;
  n->w2 = o, o += n->c2 * n->k2;
  n->b2 = o, o += n->c2;
  n->gamma = o, o += n->c2;
  n->beta = o, o += n->c2;
  n->wf = o, o += n->classes * n->flat;
  n->bf = o, o += n->classes;
  LearnModel *m = g_new0(LearnModel, 1);
  m->d = n_features;
  m->n_out = n_classes;
  m->n_classes = n_classes;
  m->n_params = o;
  m->cnn = n;
  m->spec = g_strdup_printf("cnn:c1=%" G_GSIZE_FORMAT ",c2=%" G_GSIZE_FORMAT
                            ",groups=%" G_GSIZE_FORMAT,
                            n->c1, n->c2, n->groups);
  return m;
}

void learn_cnn_free(LearnCnn *n) {
  g_free(n);
}

static void uniform_fill(gsl_rng *rng, double *w, gsize count, double limit) {
  for (gsize i = 0; i < count; i++)
    w[i] = (2.0 * gsl_rng_uniform(rng) - 1.0) * limit;
}

void learn_cnn_init(const LearnModel *m, double *p, gsl_rng *rng) {
  const LearnCnn *n = m->cnn;
  /* He-uniform for the ReLU convolutions, Glorot for the softmax layer,
   * biases 0, the group norm's scale 1 and shift 0 (PyTorch's). */
  memset(p, 0, m->n_params * sizeof(double));
  uniform_fill(rng, p + n->w1, n->c1 * n->k1, sqrt(6.0 / (double)n->k1));
  uniform_fill(rng, p + n->w2, n->c2 * n->k2, sqrt(6.0 / (double)n->k2));
  for (gsize c = 0; c < n->c2; c++)
    p[n->gamma + c] = 1.0;
  uniform_fill(rng, p + n->wf, n->classes * n->flat, sqrt(6.0 / (double)(n->flat + n->classes)));
}

/* ----------------------------------------------------------- workspace */

/* The chunk buffers, carved from one allocation (doubles unless noted). */
typedef struct {
  double *cols1; /* k1 x B p1 */
  double *a1;    /* c1 x B p1: conv1 + ReLU; backward: its gradient */
  double *m1;    /* B x c1 x p2 (p2 = s2^2): pool1; backward: its gradient */
  double *cols2; /* k2 x B p2; backward: W2^T dA2 */
  double *a2;    /* c2 x B p2; backward: its gradient */
  double *xhat;  /* B x flat: normalized pool2 */
  double *h;     /* B x flat: group norm output (the FC input); backward: dH */
  double *inv;   /* B x groups: 1 / sqrt(var + eps) */
  double *z;     /* B x classes: logits, then dloss/dz */
  double *g;     /* B x n_params: per-example gradients */
  double *coef;  /* B */
  gint32 *arg1;  /* B x c1 x p2: offset in a1 of the max, -1 when it is not > 0 */
  gint32 *arg2;  /* B x flat */
} Work;

typedef struct {
  gsize cap;
  double *buf;
} WorkBuf;

static void workbuf_free(gpointer data) {
  WorkBuf *w = data;
  g_free(w->buf);
  g_free(w);
}

static GPrivate work_key = G_PRIVATE_INIT(workbuf_free);

static gsize work_doubles(const LearnModel *m, gsize B, gboolean backward) {
  const LearnCnn *n = m->cnn;
  gsize p2 = n->s2 * n->s2;
  gsize fwd = B * (n->k1 * n->p1 + n->c1 * n->p1 + n->c1 * p2 + n->k2 * p2 + n->c2 * p2 +
                   2 * n->flat + n->groups + n->classes);
  /* the gint32 arrays, rounded up to doubles */
  fwd += (B * (n->c1 * p2 + n->flat) + 1) / 2;
  return fwd + (backward ? B * (m->n_params + 1) : 0);
}

static Work work_get(const LearnModel *m, gsize B, gboolean backward) {
  const LearnCnn *n = m->cnn;
  gsize need = work_doubles(m, B, backward);
  WorkBuf *wb = g_private_get(&work_key);
  if (wb == NULL) {
    wb = g_new0(WorkBuf, 1);
    g_private_set(&work_key, wb);
  }
  if (wb->cap < need) {
    g_free(wb->buf);
    wb->buf = g_new(double, need);
    wb->cap = need;
  }
  gsize p2 = n->s2 * n->s2;
  double *q = wb->buf;
  Work w;
  w.cols1 = q, q += B * n->k1 * n->p1;
  w.a1 = q, q += B * n->c1 * n->p1;
  w.m1 = q, q += B * n->c1 * p2;
  w.cols2 = q, q += B * n->k2 * p2;
  w.a2 = q, q += B * n->c2 * p2;
  w.xhat = q, q += B * n->flat;
  w.h = q, q += B * n->flat;
  w.inv = q, q += B * n->groups;
  w.z = q, q += B * n->classes;
  w.arg1 = (gint32 *)q;
  w.arg2 = w.arg1 + B * n->c1 * p2;
  q += (B * (n->c1 * p2 + n->flat) + 1) / 2;
  w.g = backward ? q : NULL;
  w.coef = backward ? q + B * m->n_params : NULL;
  return w;
}

/* ------------------------------------------------------------- kernels */

/* Columns b P .. (b+1) P of cols (ld = row length) from a cin x side x side
 * map x: row (ci, ky, kx) holds x[ci][y + ky - 1][x + kx - 1], 0 outside. */
static void im2col(const double *x, gsize cin, gsize side, double *cols, gsize ld) {
  gsize P = side * side;
  for (gsize ci = 0; ci < cin; ci++)
    for (gsize ky = 0; ky < 3; ky++)
      for (gsize kx = 0; kx < 3; kx++) {
        double *r = cols + (ci * 9 + ky * 3 + kx) * ld;
        const double *in = x + ci * P;
        for (gsize y = 0; y < side; y++) {
          double *ro = r + y * side;
          gssize sy = (gssize)y + (gssize)ky - 1;
          if (sy < 0 || sy >= (gssize)side) {
            memset(ro, 0, side * sizeof(double));
            continue;
          }
          const double *row = in + (gsize)sy * side;
          /* kx = 0 reads x - 1, kx = 2 reads x + 1: one border zero each */
          if (kx == 0) {
            ro[0] = 0.0;
            memcpy(ro + 1, row, (side - 1) * sizeof(double));
          } else if (kx == 1) {
            memcpy(ro, row, side * sizeof(double));
          } else {
            memcpy(ro, row + 1, (side - 1) * sizeof(double));
            ro[side - 1] = 0.0;
          }
        }
      }
}

/* The adjoint of im2col: dx (cin x side x side, zeroed here) += the
 * columns' contributions. */
static void col2im(const double *cols, gsize ld, gsize cin, gsize side, double *dx) {
  gsize P = side * side;
  memset(dx, 0, cin * P * sizeof(double));
  for (gsize ci = 0; ci < cin; ci++)
    for (gsize ky = 0; ky < 3; ky++)
      for (gsize kx = 0; kx < 3; kx++) {
        const double *r = cols + (ci * 9 + ky * 3 + kx) * ld;
        double *out = dx + ci * P;
        for (gsize y = 0; y < side; y++) {
          gssize sy = (gssize)y + (gssize)ky - 1;
          if (sy < 0 || sy >= (gssize)side)
            continue;
          const double *ri = r + y * side;
          double *row = out + (gsize)sy * side;
          if (kx == 0) {
            for (gsize x = 1; x < side; x++)
              row[x - 1] += ri[x];
          } else if (kx == 1) {
            for (gsize x = 0; x < side; x++)
              row[x] += ri[x];
          } else {
            for (gsize x = 0; x + 1 < side; x++)
              row[x + 1] += ri[x];
          }
        }
      }
}

/* out (cout x N) = W (cout x K) cols (K x N) + bias, then ReLU. */
static void conv_forward(const double *W, const double *bias, gsize cout, gsize K,
                         const double *cols, gsize N, double *out) {
  for (gsize c = 0; c < cout; c++)
    for (gsize j = 0; j < N; j++)
      out[c * N + j] = bias[c];
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)cout, (int)N, (int)K, 1.0, W, (int)K,
              cols, (int)N, 1.0, out, (int)N);
  for (gsize i = 0; i < cout * N; i++)
    out[i] = out[i] > 0.0 ? out[i] : 0.0;
}

/* 2x2 max-pool (stride 2, floor) of the ReLU'd map a (c x B P, channel-major)
 * into pooled (B x c x (side/2)^2, example-major); arg gets each window's
 * first maximum's offset in a, or -1 when that maximum is not > 0 (ReLU
 * passes no gradient there). */
static void maxpool(const double *a, gsize c, gsize B, gsize side, double *pooled, gint32 *arg) {
  gsize P = side * side, ps = side / 2, Q = ps * ps;
  for (gsize b = 0; b < B; b++)
    for (gsize ch = 0; ch < c; ch++) {
      gsize base = ch * B * P + b * P;
      double *out = pooled + (b * c + ch) * Q;
      gint32 *ar = arg + (b * c + ch) * Q;
      for (gsize y = 0; y < ps; y++) {
        gsize row = base + 2 * y * side;
        const double *r0 = a + row, *r1 = r0 + side;
        for (gsize x = 0; x < ps; x++) {
          /* the first maximum in window order, as PyTorch */
          gsize best = 2 * x;
          double v = r0[2 * x];
          if (r0[2 * x + 1] > v)
            v = r0[2 * x + 1], best = 2 * x + 1;
          if (r1[2 * x] > v)
            v = r1[2 * x], best = side + 2 * x;
          if (r1[2 * x + 1] > v)
            v = r1[2 * x + 1], best = side + 2 * x + 1;
          out[y * ps + x] = v;
          ar[y * ps + x] = v > 0.0 ? (gint32)(row + best) : -1;
        }
      }
    }
}

/* The adjoint of maxpool (with the ReLU): da (c x B P, zeroed here). */
static void maxpool_backward(const double *dpooled, const gint32 *arg, gsize count, double *da,
                             gsize da_size) {
  memset(da, 0, da_size * sizeof(double));
  for (gsize i = 0; i < count; i++)
    if (arg[i] >= 0)
      da[arg[i]] = dpooled[i];
}

/* The forward pass of B examples x[b] up to the logits w->z (B x classes). */
static void forward(const LearnModel *m, const double *p, const double *const *x, gsize B,
                    const Work *w) {
  const LearnCnn *n = m->cnn;
  gsize p2 = n->s2 * n->s2, N1 = B * n->p1, N2 = B * p2;
  for (gsize b = 0; b < B; b++)
    im2col(x[b], 1, n->side, w->cols1 + b * n->p1, N1);
  conv_forward(p + n->w1, p + n->b1, n->c1, n->k1, w->cols1, N1, w->a1);
  maxpool(w->a1, n->c1, B, n->side, w->m1, w->arg1);
  for (gsize b = 0; b < B; b++)
    im2col(w->m1 + b * n->c1 * p2, n->c1, n->s2, w->cols2 + b * p2, N2);
  conv_forward(p + n->w2, p + n->b2, n->c2, n->k2, w->cols2, N2, w->a2);
  maxpool(w->a2, n->c2, B, n->s2, w->xhat, w->arg2); /* pooled into xhat, normalized below */
  gsize G = n->groups, cpg = n->c2 / G, len = cpg * n->q2;
  const double *gamma = p + n->gamma, *beta = p + n->beta;
  for (gsize b = 0; b < B; b++)
    for (gsize g = 0; g < G; g++) {
      double *v = w->xhat + b * n->flat + g * len;
      double mean = 0.0, var = 0.0;
      for (gsize i = 0; i < len; i++)
        mean += v[i];
      mean /= (double)len;
      for (gsize i = 0; i < len; i++)
        var += (v[i] - mean) * (v[i] - mean);
      double inv = 1.0 / sqrt(var / (double)len + CNN_GN_EPS);
      w->inv[b * G + g] = inv;
      double *h = w->h + b * n->flat + g * len;
      for (gsize i = 0; i < len; i++) {
        gsize c = g * cpg + i / n->q2;
        v[i] = (v[i] - mean) * inv;
        h[i] = gamma[c] * v[i] + beta[c];
      }
    }
  for (gsize b = 0; b < B; b++)
    memcpy(w->z + b * n->classes, p + n->bf, n->classes * sizeof(double));
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)B, (int)n->classes, (int)n->flat, 1.0,
              w->h, (int)n->flat, p + n->wf, (int)n->flat, 1.0, w->z, (int)n->classes);
}

/* Per-example gradients of the chunk into w->g (row b: example b), from the
 * deltas w->z. */
static void backward(const LearnModel *m, const double *p, gsize B, const Work *w) {
  const LearnCnn *n = m->cnn;
  gsize np = m->n_params, C = n->classes, F = n->flat;
  gsize p2 = n->s2 * n->s2, N1 = B * n->p1, N2 = B * p2;
  /* fully connected: dWf_b = dz_b h_b^T, dbf_b = dz_b; dH = dZ Wf */
  for (gsize b = 0; b < B; b++) {
    double *g = w->g + b * np;
    const double *dz = w->z + b * C, *h = w->h + b * F;
    for (gsize k = 0; k < C; k++) {
      double *row = g + n->wf + k * F;
      for (gsize j = 0; j < F; j++)
        row[j] = dz[k] * h[j];
      g[n->bf + k] = dz[k];
    }
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)B, (int)F, (int)C, 1.0, w->z, (int)C,
              p + n->wf, (int)F, 0.0, w->h, (int)F);
  /* group norm: dgamma, dbeta, then dx = inv (dxhat - mean dxhat - xhat
   * mean(dxhat xhat)) per group, into h (dH is read first at each i) */
  gsize G = n->groups, cpg = n->c2 / G, len = cpg * n->q2;
  const double *gamma = p + n->gamma;
  for (gsize b = 0; b < B; b++) {
    double *g = w->g + b * np;
    for (gsize c = 0; c < n->c2; c++) {
      const double *dh = w->h + b * F + c * n->q2, *xh = w->xhat + b * F + c * n->q2;
      double sg = 0.0, sb = 0.0;
      for (gsize i = 0; i < n->q2; i++) {
        sg += dh[i] * xh[i];
        sb += dh[i];
      }
      g[n->gamma + c] = sg;
      g[n->beta + c] = sb;
    }
    for (gsize gi = 0; gi < G; gi++) {
      double *dh = w->h + b * F + gi * len;
      const double *xh = w->xhat + b * F + gi * len;
      double s1 = 0.0, s2 = 0.0;
      for (gsize i = 0; i < len; i++) {
        double dxh = dh[i] * gamma[gi * cpg + i / n->q2];
        s1 += dxh;
        s2 += dxh * xh[i];
      }
      s1 /= (double)len;
      s2 /= (double)len;
      double inv = w->inv[b * G + gi];
      for (gsize i = 0; i < len; i++) {
        double dxh = dh[i] * gamma[gi * cpg + i / n->q2];
        dh[i] = inv * (dxh - s1 - xh[i] * s2);
      }
    }
  }
  /* pool2 + ReLU, then conv2's per-example weight and bias gradients */
  maxpool_backward(w->h, w->arg2, B * F, w->a2, n->c2 * N2);
  for (gsize b = 0; b < B; b++) {
    double *g = w->g + b * np;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n->c2, (int)n->k2, (int)p2, 1.0,
                w->a2 + b * p2, (int)N2, w->cols2 + b * p2, (int)N2, 0.0, g + n->w2, (int)n->k2);
    for (gsize c = 0; c < n->c2; c++) {
      const double *r = w->a2 + c * N2 + b * p2;
      double s = 0.0;
      for (gsize i = 0; i < p2; i++)
        s += r[i];
      g[n->b2 + c] = s;
    }
  }
  /* to conv2's input: dCols2 = W2^T dA2 (over cols2), col2im into m1 */
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n->k2, (int)N2, (int)n->c2, 1.0,
              p + n->w2, (int)n->k2, w->a2, (int)N2, 0.0, w->cols2, (int)N2);
  for (gsize b = 0; b < B; b++)
    col2im(w->cols2 + b * p2, N2, n->c1, n->s2, w->m1 + b * n->c1 * p2);
  maxpool_backward(w->m1, w->arg1, B * n->c1 * p2, w->a1, n->c1 * N1);
  for (gsize b = 0; b < B; b++) {
    double *g = w->g + b * np;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n->c1, (int)n->k1, (int)n->p1, 1.0,
                w->a1 + b * n->p1, (int)N1, w->cols1 + b * n->p1, (int)N1, 0.0, g + n->w1,
                (int)n->k1);
    for (gsize c = 0; c < n->c1; c++) {
      const double *r = w->a1 + c * N1 + b * n->p1;
      double s = 0.0;
      for (gsize i = 0; i < n->p1; i++)
        s += r[i];
      g[n->b1 + c] = s;
    }
  }
}

/* ------------------------------------------------------- entry points */

double learn_cnn_clipped_grad(const LearnModel *m, const double *params, const LearnDataset *ds,
                              const gsize *idx, gsize count, double clip, double *grad_out) {
  gsize np = m->n_params;
  double total = 0.0, inv_count = 1.0 / (double)count;
  gboolean clipping = clip > 0.0 && isfinite(clip);
  for (gsize i0 = 0; i0 < count; i0 += CNN_CHUNK) {
    gsize B = MIN((gsize)CNN_CHUNK, count - i0);
    Work w = work_get(m, B, TRUE);
    const double *x[CNN_CHUNK];
    for (gsize b = 0; b < B; b++)
      x[b] = ds->features + idx[i0 + b] * m->d;
    forward(m, params, x, B, &w);
    for (gsize b = 0; b < B; b++)
      total += learn_softmax_xent(w.z + b * m->n_out, m->n_out, (gsize)ds->targets[idx[i0 + b]]);
    backward(m, params, B, &w);
    for (gsize b = 0; b < B; b++) {
      const double *g = w.g + b * np;
      double norm2 = cblas_ddot((int)np, g, 1, g, 1), c = inv_count;
      if (clipping && norm2 > clip * clip)
        c *= clip / sqrt(norm2);
      w.coef[b] = c;
    }
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)B, (int)np, 1.0, w.g, (int)np, w.coef, 1, 1.0,
                grad_out, 1);
  }
  return total * inv_count;
}

void learn_cnn_predict(const LearnModel *m, const double *params, const double *x, double *out) {
  Work w = work_get(m, 1, FALSE);
  forward(m, params, &x, 1, &w);
  gsize C = m->n_out;
  double mx = w.z[0], s = 0.0;
  for (gsize k = 1; k < C; k++)
    mx = MAX(mx, w.z[k]);
  for (gsize k = 0; k < C; k++)
    s += out[k] = exp(w.z[k] - mx);
  for (gsize k = 0; k < C; k++)
    out[k] /= s;
}

void learn_cnn_evaluate(const LearnModel *m, const double *params, const LearnDataset *ds,
                        const gsize *idx, gsize count, double *loss, double *accuracy) {
  double total = 0.0;
  gsize correct = 0, C = m->n_out;
  for (gsize i0 = 0; i0 < count; i0 += CNN_CHUNK) {
    gsize B = MIN((gsize)CNN_CHUNK, count - i0);
    Work w = work_get(m, B, FALSE);
    const double *x[CNN_CHUNK];
    gsize rec[CNN_CHUNK];
    for (gsize b = 0; b < B; b++) {
      rec[b] = idx != NULL ? idx[i0 + b] : i0 + b;
      x[b] = ds->features + rec[b] * m->d;
    }
    forward(m, params, x, B, &w);
    for (gsize b = 0; b < B; b++) {
      const double *z = w.z + b * C;
      gsize best = 0, label = (gsize)ds->targets[rec[b]];
      for (gsize k = 1; k < C; k++)
        if (z[k] > z[best])
          best = k;
      double s = 0.0;
      for (gsize k = 0; k < C; k++)
        s += exp(z[k] - z[best]);
      total += log(s) + z[best] - z[label];
      correct += best == label;
    }
  }
  *loss = total / (double)count;
  *accuracy = (double)correct / (double)count;
}
