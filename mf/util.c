/* mf/util.c: size arithmetic and memory budgets for mf/. */
#include "mf/internal.h"
#include "spec/spec.h"

gsize mf_doubles_bytes(gsize count) {
  return spec_size_mul(count, sizeof(double));
}

gboolean mf_check_budget(gsize bytes, gsize max_bytes, const char *what, GError **error) {
  return spec_check_memory_within(bytes, max_bytes, what,
                                  "use fewer rounds (T = epochs x batches) or a smaller graph",
                                  MF_ERROR, MF_ERROR_MEMORY, error);
}

double *mf_matrix_new(gsize rows, gsize cols, GError **error) {
  return spec_doubles_new(rows, cols, MF_ERROR, MF_ERROR_MEMORY, error);
}

/* By tiles: the plain loop reads a column per row, one cache miss per entry. */
void mf_fill_upper_from_lower(double *A, guint n) {
  const guint B = 64;
  for (guint i0 = 0; i0 < n; i0 += B)
    for (guint j0 = i0; j0 < n; j0 += B)
      for (guint i = i0; i < MIN(i0 + B, n); i++)
        for (guint j = MAX(j0, i + 1); j < MIN(j0 + B, n); j++)
          A[(gsize)i * n + j] = A[(gsize)j * n + i];
}
