/*
 * learning/load.c: dataset specs ("csv:PATH,...", "idx:DIR", ...) to a
 * train/test pair.
 */
#include <string.h>

#include "learning/internal.h"

/* The options of a csv spec, checked without reading the file. */
static gboolean csv_options(const Spec *spec, LearnCsvOptions *out, GError **error) {
  static const char *const valid[] = {"target", "header", "classes", "standardize", NULL};
  if (!spec_check(spec, "dataset", valid, NULL, error))
    return FALSE;
  LearnCsvOptions opt = {
      .target = spec_get(spec, "target"), .header = LEARN_CSV_HEADER_AUTO, .n_classes = 0};
  const char *header = spec_get(spec, "header");
  if (header != NULL) {
    if (strcmp(header, "auto") == 0)
      opt.header = LEARN_CSV_HEADER_AUTO;
    else if (strcmp(header, "yes") == 0 || strcmp(header, "true") == 0)
      opt.header = LEARN_CSV_HEADER_YES;
    else if (strcmp(header, "no") == 0 || strcmp(header, "false") == 0)
      opt.header = LEARN_CSV_HEADER_NO;
    else {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                  "csv: option header='%s' is not auto, yes or no", header);
      return FALSE;
    }
  }
  const char *classes = spec_get(spec, "classes");
  if (classes != NULL && strcmp(classes, "auto") == 0) {
    opt.n_classes = -1;
  } else {
    guint64 c;
    if (!spec_uint(spec, "classes", 0, 0, G_MAXINT32, &c, error))
      return FALSE;
    if (c == 1) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                  "csv: classes=1 (use 0 for regression, auto, or >= 2)");
      return FALSE;
    }
    opt.n_classes = (gint)c;
  }
  *out = opt;
  return TRUE;
}

static LearnDataset *load_csv(const Spec *spec, GError **error) {
  LearnCsvOptions opt;
  if (!csv_options(spec, &opt, error))
    return NULL;
  return learn_dataset_load_csv(spec->head, &opt, error);
}

typedef struct {
  gboolean logistic, argmax;
  guint64 n, d, seed, classes;
  double noise, scale;
} Synthetic;

/* The options of a synthetic spec, checked without generating anything. */
static gboolean synthetic_options(const Spec *spec, Synthetic *s, GError **error) {
  if (!spec_uint(spec, "n", 1000, 1, G_MAXUINT32, &s->n, error) ||
      !spec_uint(spec, "d", 10, 1, 1 << 20, &s->d, error) ||
      !spec_uint(spec, "seed", 1, 0, G_MAXUINT64, &s->seed, error))
    return FALSE;
  /* The records' memory is known from the spec: refuse before generating. */
  char *what = g_strdup_printf("dataset synthetic:%s of %" G_GUINT64_FORMAT
                               " records x %" G_GUINT64_FORMAT " features",
                               spec->head, s->n, s->d);
  gboolean fits = spec_check_memory(learn_dataset_bytes(s->n, s->d), what, "use a smaller n or d",
                                    LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT, error);
  g_free(what);
  if (!fits)
    return FALSE;
  if (strcmp(spec->head, "linear") == 0) {
    static const char *const valid[] = {"n", "d", "noise", "seed", "standardize", NULL};
    s->logistic = FALSE;
    return spec_check(spec, "synthetic:linear", valid, NULL, error) &&
           spec_double(spec, "noise", 0.1, 0.0, G_MAXDOUBLE, &s->noise, error);
  }
  if (strcmp(spec->head, "logistic") == 0) {
    static const char *const valid[] = {"n",      "d",    "classes",     "scale",
                                        "labels", "seed", "standardize", NULL};
    s->logistic = TRUE;
    if (!spec_check(spec, "synthetic:logistic", valid, NULL, error) ||
        !spec_uint(spec, "classes", 2, 2, 1 << 16, &s->classes, error) ||
        !spec_double(spec, "scale", 1.0, G_MINDOUBLE, G_MAXDOUBLE, &s->scale, error))
      return FALSE;
    const char *labels = spec_get(spec, "labels");
    s->argmax = labels != NULL && strcmp(labels, "argmax") == 0;
    if (labels != NULL && !s->argmax && strcmp(labels, "sample") != 0) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                  "synthetic:logistic: option labels='%s' is not sample or argmax", labels);
      return FALSE;
    }
    return TRUE;
  }
  g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
              "unknown synthetic dataset '%s' (valid: linear, logistic)", spec->head);
  return FALSE;
}

static LearnDataset *load_synthetic(const Spec *spec, GError **error) {
  Synthetic s;
  if (!synthetic_options(spec, &s, error))
    return NULL;
  if (s.logistic)
    return learn_dataset_synthetic_logistic(s.n, s.d, (guint)s.classes, s.scale, s.argmax, s.seed,
                                            error);
  return learn_dataset_synthetic_linear(s.n, s.d, s.noise, s.seed, NULL, error);
}

/* Whose statistics standardize the features: none, the train split's (the
 * default for california: the test split never leaks into the scaling), or
 * all records' before the split ("all": what the paper's code does). */
typedef enum { STANDARDIZE_NONE, STANDARDIZE_TRAIN, STANDARDIZE_ALL } Standardize;

static gboolean standardize_option(const Spec *spec, Standardize dflt, Standardize *out,
                                   GError **error) {
  const char *s = spec_get(spec, "standardize");
  gboolean on;
  if (s == NULL) {
    *out = dflt;
  } else if (strcmp(s, "all") == 0) {
    *out = STANDARDIZE_ALL;
  } else if (spec_bool(spec, "standardize", FALSE, &on, NULL)) {
    *out = on ? STANDARDIZE_TRAIN : STANDARDIZE_NONE;
  } else {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                "%s: option standardize='%s' is not yes (train statistics), no or all", spec->name,
                s);
    return FALSE;
  }
  return TRUE;
}

gboolean learn_data_spec_check(const char *spec_text, GError **error) {
  g_return_val_if_fail(spec_text != NULL, FALSE);
  Spec *spec = spec_parse(spec_text, "dataset", TRUE, LEARN_ERROR, LEARN_ERROR_PARSE,
                          LEARN_ERROR_INVALID_ARGUMENT, error);
  if (spec == NULL)
    return FALSE;
  static const char *const std_only[] = {"standardize", NULL};
  static const char *const idx_valid[] = {"limit", "test_limit", "standardize", NULL};
  const char *name = spec->name;
  gboolean ok;
  Standardize standardize;
  guint64 limit;
  if (strcmp(name, "csv") == 0) {
    LearnCsvOptions opt;
    ok = csv_options(spec, &opt, error);
  } else if (strcmp(name, "synthetic") == 0) {
    Synthetic s;
    ok = synthetic_options(spec, &s, error);
  } else if (strcmp(name, "california") == 0) {
    ok = spec_check(spec, "dataset", std_only, NULL, error);
  } else if (strcmp(name, "leaf") == 0) {
    static const char *const leaf_valid[] = {"limit", "standardize", NULL};
    ok = spec_check(spec, "dataset", leaf_valid, NULL, error) &&
         spec_uint(spec, "limit", 0, 0, G_MAXUINT32, &limit, error);
  } else if (strcmp(name, "idx") == 0) {
    ok = spec_check(spec, "dataset", idx_valid, NULL, error) &&
         spec_uint(spec, "limit", 0, 0, G_MAXUINT32, &limit, error) &&
         spec_uint(spec, "test_limit", 0, 0, G_MAXUINT32, &limit, error);
  } else {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                "unknown dataset kind '%s' in '%s' (valid: csv, idx, leaf, synthetic, california)",
                name, spec_text);
    ok = FALSE;
  }
  ok = ok && standardize_option(spec, STANDARDIZE_NONE, &standardize, error);
  spec_free(spec);
  return ok;
}

gboolean learn_data_load(const char *spec_text, double test_fraction, guint64 seed,
                         LearnDataset **train, LearnDataset **test, GError **error) {
  g_return_val_if_fail(train != NULL && test != NULL, FALSE);
  *train = *test = NULL;
  Spec *spec = spec_parse(spec_text, "dataset", TRUE, LEARN_ERROR, LEARN_ERROR_PARSE,
                          LEARN_ERROR_INVALID_ARGUMENT, error);
  if (spec == NULL)
    return FALSE;
  LearnDataset *all = NULL, *tr = NULL, *te = NULL;
  Standardize standardize = STANDARDIZE_NONE;
  gboolean ok = FALSE;
  const char *name = spec->name;
  if (strcmp(name, "csv") == 0) {
    all = load_csv(spec, error);
  } else if (strcmp(name, "synthetic") == 0) {
    all = load_synthetic(spec, error);
  } else if (strcmp(name, "california") == 0) {
    static const char *const valid[] = {"standardize", NULL};
    if (spec_check(spec, "dataset", valid, NULL, error))
      all = learn_dataset_load_california(spec->head, error);
    standardize = STANDARDIZE_TRAIN;
  } else if (strcmp(name, "leaf") == 0) {
    /* LEAF's layout: PATH/train and PATH/test folders are the splits;
     * otherwise PATH (a file or folder) is split by test_fraction. */
    static const char *const valid[] = {"limit", "standardize", NULL};
    guint64 limit;
    if (!spec_check(spec, "dataset", valid, NULL, error) ||
        !spec_uint(spec, "limit", 0, 0, G_MAXUINT32, &limit, error))
      goto out;
    char *trd = g_build_filename(spec->head, "train", NULL);
    char *ted = g_build_filename(spec->head, "test", NULL);
    if (g_file_test(trd, G_FILE_TEST_IS_DIR) && g_file_test(ted, G_FILE_TEST_IS_DIR)) {
      tr = learn_dataset_load_leaf(trd, limit, NULL, NULL, error);
      te = tr ? learn_dataset_load_leaf(ted, limit, NULL, NULL, error) : NULL;
      if (te != NULL && te->n_features != tr->n_features) {
        g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                    "%s: %" G_GSIZE_FORMAT " features per record but %s has %" G_GSIZE_FORMAT, ted,
                    te->n_features, trd, tr->n_features);
        learn_dataset_free(te);
        te = NULL;
      }
      if (te != NULL) /* the larger label range for both */
        tr->n_classes = te->n_classes = MAX(tr->n_classes, te->n_classes);
      else
        learn_dataset_free(tr), tr = NULL;
    } else {
      all = learn_dataset_load_leaf(spec->head, limit, NULL, NULL, error);
    }
    g_free(trd);
    g_free(ted);
  } else if (strcmp(name, "idx") == 0) {
    static const char *const valid[] = {"limit", "test_limit", "standardize", NULL};
    guint64 limit, test_limit;
    if (!spec_check(spec, "dataset", valid, NULL, error) ||
        !spec_uint(spec, "limit", 0, 0, G_MAXUINT32, &limit, error) ||
        !spec_uint(spec, "test_limit", 0, 0, G_MAXUINT32, &test_limit, error) ||
        !learn_dataset_load_idx_dir(spec->head, limit, &all, &te, error))
      goto out;
    if (te != NULL) {
      tr = all;
      all = NULL;
      /* Every node is evaluated on the whole test split: a smaller one makes
       * evaluation affordable for a large graph (first records kept). */
      if (test_limit > 0 && te->n > test_limit) {
        gsize *first = g_new(gsize, test_limit);
        for (gsize i = 0; i < test_limit; i++)
          first[i] = i;
        LearnDataset *cut = learn_dataset_subset(te, first, (gsize)test_limit);
        g_free(first);
        learn_dataset_free(te);
        te = cut;
      }
    }
  } else {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                "unknown dataset kind '%s' in '%s' (valid: csv, idx, leaf, synthetic, california)",
                name, spec_text);
    goto out;
  }
  if (all == NULL && tr == NULL)
    goto out;
  if (!standardize_option(spec, standardize, &standardize, error))
    goto out;
  if (standardize == STANDARDIZE_ALL) {
    if (all == NULL) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                  "%s: standardize=all scales with the statistics of all records before the "
                  "split, but this dataset comes already split (an idx t10k pair or LEAF's train "
                  "and test folders); use "
                  "standardize=yes",
                  spec_text);
      goto out;
    }
    learn_dataset_standardize(all, NULL, NULL, NULL);
  }
  if (tr == NULL && !learn_dataset_split(all, test_fraction, seed, &tr, &te, error))
    goto out;
  if (standardize == STANDARDIZE_TRAIN)
    learn_dataset_standardize(tr, te, NULL, NULL);
  ok = TRUE;
out:
  learn_dataset_free(all);
  if (!ok) {
    learn_dataset_free(tr);
    learn_dataset_free(te);
  } else {
    *train = tr;
    *test = te;
  }
  spec_free(spec);
  return ok;
}
