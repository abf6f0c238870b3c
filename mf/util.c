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

void mf_fill_upper_from_lower(double *A, guint n) {
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      A[(gsize)i * n + j] = A[(gsize)j * n + i];
}
