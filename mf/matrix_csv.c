/* mf/matrix_csv.c: reading a matrix back from CSV (e.g. Mafalda's
 * C_local), and the checks every noise-correlation file must pass. */
#include "mf/internal.h"
#include "spec/spec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* mf_matrix_read_csv, also giving each row's line in the file (g_free). */
static double *read_csv(const char *path, guint *rows, guint *cols, guint **row_lines,
                        GError **error) {
  char *text = NULL;
  gsize len = 0;
  if (!spec_file_read(path, &text, &len, error))
    return NULL;
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  GArray *lines_of = g_array_new(FALSE, FALSE, sizeof(guint));
  guint nrows = 0, ncols = 0, line = 0;
  gboolean ok = TRUE;
  char **lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l && ok; l++) {
    line++;
    char *s = g_strstrip(*l); /* also drops a '\r' of CRLF files */
    if (*s == '\0')
      continue;
    char **fields = g_strsplit(s, ",", -1);
    guint nf = g_strv_length(fields);
    for (guint i = 0; i < nf && ok; i++) {
      char *f = g_strstrip(fields[i]), *end = NULL;
      errno = 0;
      double v = g_ascii_strtod(f, &end);
      if (*f == '\0' || end == f || *end != '\0' || !isfinite(v)) {
        char *shown = spec_escape(f, -1); /* file bytes: no raw escapes */
        g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                    "%s:%u:%u: not a finite number: '%s'", path, line, i + 1, shown);
        g_free(shown);
        ok = FALSE;
      }
      g_array_append_val(vals, v);
    }
    if (ok && nrows > 0 && nf != ncols) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "%s:%u: %u values where the rows above have %u", path, line, nf, ncols);
      ok = FALSE;
    }
    g_array_append_val(lines_of, line);
    ncols = nf;
    nrows++;
    g_strfreev(fields);
  }
  g_strfreev(lines);
  g_free(text);
  if (ok && nrows == 0) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "%s:1: no matrix in the file (it is empty)", path);
    ok = FALSE;
  }
  if (!ok) {
    g_array_unref(vals);
    g_array_unref(lines_of);
    return NULL;
  }
  *rows = nrows;
  *cols = ncols;
  if (row_lines != NULL)
    *row_lines = (guint *)g_array_free(lines_of, FALSE);
  else
    g_array_unref(lines_of);
  return (double *)g_array_free(vals, FALSE);
}

double *mf_matrix_read_csv(const char *path, guint *rows, guint *cols, GError **error) {
  g_return_val_if_fail(path != NULL && rows != NULL && cols != NULL, NULL);
  return read_csv(path, rows, cols, NULL, error);
}

double *mf_read_c(const char *path, guint T, GError **error) {
  g_return_val_if_fail(path != NULL && T > 0, NULL);
  guint rows = 0, cols = 0, *line = NULL;
  double *C = read_csv(path, &rows, &cols, &line, error);
  if (C == NULL)
    return NULL;
  gboolean ok = TRUE;
  if (rows != T || cols != T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "%s: C is %u x %u, expected %u x %u (one row and column per step: T = %u)", path,
                rows, cols, T, T, T);
    ok = FALSE;
  }
  double big = 0.0;
  for (gsize i = 0; ok && i < (gsize)T * T; i++)
    big = MAX(big, fabs(C[i]));
  /* Upper entries must vanish (up to rounding of a computed factor), and
   * the diagonal must not: C is lower triangular and invertible, so a node
   * can stream its noise sum_s C^-1[t,s] z_s from the past only. */
  for (guint s = 0; ok && s < T; s++) {
    for (guint t = s + 1; ok && t < T; t++)
      if (fabs(C[(gsize)s * T + t]) > 1e-12 * big) {
        g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                    "%s:%u:%u: C[%u,%u] = %g lies above the diagonal: C must be lower "
                    "triangular",
                    path, line[s], t + 1, s, t, C[(gsize)s * T + t]);
        ok = FALSE;
      }
    if (ok && C[(gsize)s * T + s] == 0.0) {
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "%s:%u:%u: C[%u,%u] = 0: C must have a nonzero diagonal (invertible)", path,
                  line[s], s + 1, s, s);
      ok = FALSE;
    }
  }
  g_free(line);
  if (!ok) {
    g_free(C);
    return NULL;
  }
  for (guint s = 0; s < T; s++) /* drop rounding residue above the diagonal */
    for (guint t = s + 1; t < T; t++)
      C[(gsize)s * T + t] = 0.0;
  /* C and c C (c > 0) are the same mechanism: the noise nu C^-1 z has
   * nu = sigma Delta sens(C). Dividing by the largest entry gives every
   * reader (accounting, training, the observer) the same matrix for both,
   * bit for bit when c C is exact (1e154 or 1e-300 times a matrix of ones),
   * and keeps C^T C and sens(C) far from overflow (1e154) and underflow
   * (1e-300, which would read as zero sensitivity). */
  for (gsize i = 0; i < (gsize)T * T; i++)
    C[i] /= big;
  for (guint s = 0; s < T; s++)
    if (C[(gsize)s * T + s] == 0.0) {
      /* Below 2^-1074 of the largest entry: singular in doubles. */
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "%s: C[%u,%u] is below 1e-323 times the largest entry: C is singular in "
                  "double precision",
                  path, s, s);
      g_free(C);
      return NULL;
    }
  return C;
}

gboolean mf_matrix_write_csv(const char *path, const double *M, guint rows, guint cols,
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
