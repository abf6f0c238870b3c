/*
 * learning/model.c: model specs, parameter layout and initialisation.
 * The numeric kernels are in kernels.c.
 */
#include <math.h>
#include <string.h>

#include "learning/model_internal.h"

LearnModel *learn_model_new(const char *spec_text, gsize n_features, guint n_classes,
                            GError **error) {
  if (!learn_check_shape("model", n_features, n_classes, error))
    return NULL;
  Spec *spec = spec_parse(spec_text, "model", FALSE, LEARN_ERROR, LEARN_ERROR_PARSE,
                          LEARN_ERROR_INVALID_ARGUMENT, error);
  if (spec == NULL)
    return NULL;
  LearnModel *m = NULL;
  guint64 hidden = 0;
  gboolean fanin = FALSE;
  const char *name = spec->name;
  gboolean classify = n_classes >= 2;
  if (strcmp(name, "linear") == 0 || strcmp(name, "softmax") == 0 ||
      strcmp(name, "logistic") == 0) {
    if (!spec_check(spec, "model", NULL, NULL, error))
      goto out;
    gboolean wants_classes = strcmp(name, "linear") != 0;
    if (wants_classes != classify) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                  wants_classes ? "model '%s' is for classification but the dataset is a "
                                  "regression one (use linear or mlp)"
                                : "model '%s' is for regression but the dataset has classes "
                                  "(use softmax or mlp)",
                  name);
      goto out;
    }
  } else if (strcmp(name, "cnn") == 0) {
    m = learn_cnn_model_new(spec, n_features, n_classes, error);
    goto out;
  } else if (strcmp(name, "mlp") == 0) {
    static const char *const valid[] = {"hidden", "init", NULL};
    if (!spec_check(spec, "model", valid, NULL, error) ||
        !spec_uint(spec, "hidden", 64, 1, 1 << 20, &hidden, error))
      goto out;
    const char *init = spec_get(spec, "init");
    fanin = init != NULL && strcmp(init, "fanin") == 0;
    if (init != NULL && !fanin && strcmp(init, "he") != 0) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                  "model mlp: option init='%s' is not he (the default) or fanin", init);
      goto out;
    }
  } else {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                "unknown model '%s' (valid: linear, softmax, logistic, mlp:hidden=H, "
                "cnn[:groups=G,c1=F1,c2=F2])",
                name);
    goto out;
  }
  gsize h = (gsize)hidden, d = n_features, o = classify ? n_classes : 1;
  gsize in = h > 0 ? h : d;
  /* Overflow guard: the parameter count must fit comfortably in a gsize. */
  if (d > (G_MAXSIZE / 8) / (MAX(h, o) + 1) || in > (G_MAXSIZE / 8) / (o + 1)) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "model too large for %" G_GSIZE_FORMAT " features", d);
    goto out;
  }
  gsize n_params = (h > 0 ? h * (d + 1) : 0) + o * (in + 1);
  {
    /* One copy of the parameters: callers hold several (a node's model,
     * gradient...) and check those; this refuses a model that cannot exist
     * at all, e.g. softmax over classes=auto with a stray label 2e9. */
    char *what = g_strdup_printf("model '%s' (%" G_GSIZE_FORMAT " outputs, %" G_GSIZE_FORMAT
                                 " features: %" G_GSIZE_FORMAT " parameters)",
                                 name, o, d, n_params);
    gboolean fits = spec_check_memory(spec_size_mul(n_params, sizeof(double)), what,
                                      "use fewer classes or features (classes=auto counts "
                                      "1 + the largest label)",
                                      LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT, error);
    g_free(what);
    if (!fits)
      goto out;
  }
  m = g_new0(LearnModel, 1);
  m->d = d;
  m->hidden = h;
  m->n_out = o;
  m->n_classes = n_classes;
  m->n_params = n_params;
  m->init_fanin = fanin;
  m->spec = h > 0
                ? g_strdup_printf("mlp:hidden=%" G_GSIZE_FORMAT "%s", h, fanin ? ",init=fanin" : "")
                : g_strdup(classify ? "softmax" : "linear");
out:
  spec_free(spec);
  return m;
}

void learn_model_free(LearnModel *m) {
  if (m == NULL)
    return;
  g_free(m->spec);
  learn_cnn_free(m->cnn);
  g_free(m);
}

const char *learn_model_spec(const LearnModel *m) {
  g_return_val_if_fail(m != NULL, NULL);
  return m->spec;
}

gsize learn_model_n_params(const LearnModel *m) {
  g_return_val_if_fail(m != NULL, 0);
  return m->n_params;
}

gsize learn_model_n_outputs(const LearnModel *m) {
  g_return_val_if_fail(m != NULL, 0);
  return m->n_out;
}

gsize learn_model_scratch_size(const LearnModel *m) {
  g_return_val_if_fail(m != NULL, 0);
  /* the CNN keeps its (chunk-sized) workspace per thread, see cnn.c */
  return 2 * m->hidden + m->n_out;
}

static void uniform_fill(gsl_rng *rng, double *w, gsize count, double limit) {
  for (gsize i = 0; i < count; i++)
    w[i] = (2.0 * gsl_rng_uniform(rng) - 1.0) * limit;
}

void learn_model_init(const LearnModel *m, double *params, guint64 seed) {
  g_return_if_fail(m != NULL && params != NULL);
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_INIT);
  if (m->cnn != NULL) {
    learn_cnn_init(m, params, rng);
    gsl_rng_free(rng);
    return;
  }
  gsize d = m->d, h = m->hidden, o = m->n_out;
  double *p = params;
  gsize in = d;
  if (h > 0 && m->init_fanin) {
    /* PyTorch's nn.Linear default, which the paper's code gets: smaller
     * weights than He and random biases. */
    uniform_fill(rng, p, h * (d + 1), 1.0 / sqrt((double)d));
    uniform_fill(rng, p + h * (d + 1), o * (h + 1), 1.0 / sqrt((double)h));
    gsl_rng_free(rng);
    return;
  }
  if (h > 0) {
    /* He: keeps the variance of ReLU activations independent of d. */
    uniform_fill(rng, p, h * d, sqrt(6.0 / (double)d));
    memset(p + h * d, 0, h * sizeof(double));
    p += h * (d + 1);
    in = h;
  }
  /* Glorot for the linear/softmax output layer. */
  uniform_fill(rng, p, o * in, sqrt(6.0 / (double)(in + o)));
  memset(p + o * in, 0, o * sizeof(double));
  gsl_rng_free(rng);
}

gboolean learn_model_spec_check(const char *spec_text, GError **error) {
  g_return_val_if_fail(spec_text != NULL, FALSE);
  Spec *spec = spec_parse(spec_text, "model", FALSE, LEARN_ERROR, LEARN_ERROR_PARSE,
                          LEARN_ERROR_INVALID_ARGUMENT, error);
  if (spec == NULL)
    return FALSE;
  gboolean ok;
  if (strcmp(spec->name, "cnn") == 0) {
    GError *e = NULL;
    learn_cnn_model_new(spec, 0, 0, &e);
    ok = e == NULL;
    if (e != NULL)
      g_propagate_error(error, e);
  } else {
    /* The other models accept regression or classification data (or
     * both) of any width: one of the two tasks must take the spec. */
    GError *e = NULL;
    LearnModel *m = learn_model_new(spec_text, 1, 0, &e);
    if (m == NULL)
      m = learn_model_new(spec_text, 1, 2, NULL);
    ok = m != NULL;
    if (!ok)
      g_propagate_error(error, e);
    else
      g_clear_error(&e);
    learn_model_free(m);
  }
  spec_free(spec);
  return ok;
}
