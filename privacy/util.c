/* privacy/util.c: size arithmetic and memory budgets for privacy/. */
#include "privacy/internal.h"
#include "spec/spec.h"

#include <math.h>
#include <stdlib.h>

gboolean priv_size_mul(gsize a, gsize b, gsize *out) {
  if (a != 0 && b > G_MAXSIZE / a)
    return FALSE;
  *out = a * b;
  return TRUE;
}

gsize priv_doubles_bytes(gsize count) {
  gsize bytes;
  return priv_size_mul(count, sizeof(double), &bytes) ? bytes : G_MAXSIZE;
}

gsize priv_physical_memory(void) {
  return spec_memory_limit(); /* one budget for every module (spec/limits.c) */
}

char *priv_format_bytes(gsize bytes) {
  return spec_format_bytes(bytes);
}

gboolean priv_check_budget(gsize bytes, gsize max_bytes, const char *what, GError **error) {
  gsize limit = max_bytes ? max_bytes : priv_physical_memory();
  if (bytes <= limit)
    return TRUE;
  char *need = priv_format_bytes(bytes);
  char *have = priv_format_bytes(limit);
  g_set_error(error, PRIV_ERROR, PRIV_ERROR_MEMORY,
              "%s would need %s of memory but only %s is available; "
              "use fewer rounds (T = epochs x batches) or a smaller graph",
              what, need, have);
  g_free(need);
  g_free(have);
  return FALSE;
}

double *priv_matrix_new(gsize rows, gsize cols, GError **error) {
  gsize count;
  double *m = NULL;
  if (priv_size_mul(rows, cols, &count) && priv_doubles_bytes(count) != G_MAXSIZE)
    m = g_try_malloc0(MAX(priv_doubles_bytes(count), 1));
  if (!m) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_MEMORY,
                "cannot allocate a %" G_GSIZE_FORMAT " x %" G_GSIZE_FORMAT " matrix", rows, cols);
  }
  return m;
}

void priv_fill_upper_from_lower(double *A, guint n) {
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      A[(gsize)i * n + j] = A[(gsize)j * n + i];
}

gboolean priv_workload_parse(const char *name, PrivWorkload *out, GError **error) {
  if (name && g_str_equal(name, "post-average")) {
    *out = PRIV_WORKLOAD_POST_AVERAGE;
    return TRUE;
  }
  if (name && g_str_equal(name, "messages")) {
    *out = PRIV_WORKLOAD_MESSAGES;
    return TRUE;
  }
  const char *const workloads[] = {"post-average", "messages"};
  char *hint = spec_did_you_mean(name, workloads, G_N_ELEMENTS(workloads));
  g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
              "unknown workload '%s' (expected post-average or messages)%s", name ? name : "(null)",
              hint);
  g_free(hint);
  return FALSE;
}

const char *priv_workload_name(PrivWorkload w) {
  return w == PRIV_WORKLOAD_MESSAGES ? "messages" : "post-average";
}

gboolean priv_matrix_write_csv(const char *path, const double *M, guint rows, guint cols,
                               GError **error) {
  g_return_val_if_fail(path != NULL && (M != NULL || rows * cols == 0), FALSE);
  GString *s = g_string_sized_new((gsize)rows * cols * 24 + 1);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (guint i = 0; i < rows; i++) {
    for (guint j = 0; j < cols; j++) {
      if (j)
        g_string_append_c(s, ',');
      g_string_append(s, g_ascii_formatd(buf, sizeof buf, "%.17g", M[(gsize)i * cols + j]));
    }
    g_string_append_c(s, '\n');
  }
  gboolean ok = g_file_set_contents_full(path, s->str, (gssize)s->len,
                                         G_FILE_SET_CONTENTS_CONSISTENT, 0666, error);
  g_string_free(s, TRUE);
  return ok;
}

gboolean priv_scale_exponents(double a, double b, gboolean *scale, int *ea, int *eb,
                              GError **error) {
  *scale = FALSE;
  *ea = *eb = 0;
  if (!(a > 0 && b > 0 && isfinite(a) && isfinite(b)))
    return TRUE;
  frexp(a, ea);
  frexp(b, eb);
  if (abs(*ea) <= 200 && abs(*eb) <= 200 && abs(*ea - *eb) <= 100)
    return TRUE;
  if (abs(*ea - *eb) > 1000) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the noise coefficients are 2^%d times the gradients' (noise std %g x Delta): "
                "mu = 1/std leaves the range of doubles; the structured path (--path "
                "structured) handles any sigma",
                *eb - *ea, b / a);
    return FALSE;
  }
  *scale = TRUE;
  return TRUE;
}
