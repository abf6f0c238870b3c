/*
 * learning/model_internal.h: the LearnModel structure, shared by model.c
 * and kernels.c only.
 */
#ifndef DPG_LEARNING_MODEL_INTERNAL_H
#define DPG_LEARNING_MODEL_INTERNAL_H

#include "learning/internal.h"

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
};

#endif /* DPG_LEARNING_MODEL_INTERNAL_H */
