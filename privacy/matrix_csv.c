/* privacy/matrix_csv.c: reading a matrix back from CSV (e.g. Mafalda's C_local). */
#include "privacy/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void csv_error(GError **error, const char *path, guint line, const char *what,
                      const char *token) {
  g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "%s:%u: %s%s%s%s", path, line, what,
              token ? " '" : "", token ? token : "", token ? "'" : "");
}

double *priv_matrix_read_csv(const char *path, guint *rows, guint *cols, GError **error) {
  g_return_val_if_fail(path != NULL && rows != NULL && cols != NULL, NULL);
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, error)) return NULL;
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  guint nrows = 0, ncols = 0, line = 0;
  gboolean ok = TRUE;
  char **lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l && ok; l++) {
    line++;
    char *s = g_strstrip(*l); /* also drops a '\r' of CRLF files */
    if (*s == '\0') continue;
    char **fields = g_strsplit(s, ",", -1);
    guint nf = g_strv_length(fields);
    for (guint i = 0; i < nf && ok; i++) {
      char *f = g_strstrip(fields[i]), *end = NULL;
      errno = 0;
      double v = g_ascii_strtod(f, &end);
      if (*f == '\0' || end == f || *end != '\0' || !isfinite(v)) {
        csv_error(error, path, line, "not a finite number:", f);
        ok = FALSE;
      }
      g_array_append_val(vals, v);
    }
    if (ok && nrows > 0 && nf != ncols) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  "%s:%u: %u values where the rows above have %u", path, line, nf, ncols);
      ok = FALSE;
    }
    ncols = nf;
    nrows++;
    g_strfreev(fields);
  }
  g_strfreev(lines);
  g_free(text);
  if (ok && nrows == 0) {
    csv_error(error, path, 1, "no matrix in the file (it is empty)", NULL);
    ok = FALSE;
  }
  if (!ok) {
    g_array_unref(vals);
    return NULL;
  }
  *rows = nrows;
  *cols = ncols;
  return (double *)g_array_free(vals, FALSE);
}
