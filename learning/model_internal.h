/*
 * learning/model_internal.h: the LearnModel structure, shared by model.c
 * and kernels.c only.
 */
#ifndef DPG_LEARNING_MODEL_INTERNAL_H
#define DPG_LEARNING_MODEL_INTERNAL_H

#include <math.h>

#include "learning/internal.h"

typedef struct LearnCnn LearnCnn;

/* hidden == 0: one affine layer (linear, softmax); else W1, b1, ReLU, W2, b2.
 * n_classes == 0: squared error on the single output; else cross-entropy of
 * the softmax of the n_out = n_classes outputs. */
struct LearnModel {
  gsize d;
  gsize hidden;
  gsize n_out;
  guint n_classes;
  gsize n_params;
  gboolean init_fanin; /* mlp init=fanin: U(+-1/sqrt(fan_in)) for weights and biases */
  char *spec;
  LearnCnn *cnn; /* non-NULL for the CNN (cnn.c), which has its own kernels */
};

/* Cross-entropy of the softmax of the logits @z (@C of them) for label @y
 * (log-sum-exp shifted by the largest logit, so no exp overflows);
 * overwrites @z with dloss/dz = softmax(z) - e_y. Always inlined: kernels.c
 * compiles its callers once per instruction set. O(C). */
static inline __attribute__((always_inline)) double learn_softmax_xent(double *z, gsize C,
                                                                       gsize y) {
  double mx = z[0];
  for (gsize k = 1; k < C; k++)
    mx = MAX(mx, z[k]);
  double s = 0.0;
  for (gsize k = 0; k < C; k++)
    s += exp(z[k] - mx);
  double loss = log(s) + mx - z[y];
  for (gsize k = 0; k < C; k++)
    z[k] = exp(z[k] - mx) / s;
  z[y] -= 1.0;
  return loss;
}

/* cnn.c. learn_cnn_model_new: the model of a parsed "cnn" spec;
 * n_features == 0 checks the options only and returns NULL without error. */
LearnModel *learn_cnn_model_new(const Spec *spec, gsize n_features, guint n_classes,
                                GError **error);
void learn_cnn_free(LearnCnn *cnn);
void learn_cnn_init(const LearnModel *m, double *params, gsl_rng *rng);
/* The entry points of kernels.c for a CNN, after their argument checks
 * (count >= 1). */
double learn_cnn_clipped_grad(const LearnModel *m, const double *params, const LearnDataset *ds,
                              const gsize *idx, gsize count, double clip, double *grad_out);
void learn_cnn_predict(const LearnModel *m, const double *params, const double *x, double *out);
void learn_cnn_evaluate(const LearnModel *m, const double *params, const LearnDataset *ds,
                        const gsize *idx, gsize count, double *loss, double *accuracy);

#endif /* DPG_LEARNING_MODEL_INTERNAL_H */
