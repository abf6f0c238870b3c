/*
 * api/enter.c: what every call does first, as the command line's main does.
 */
#include <cblas.h>

#include "api/internal.h"
#include "sim/blas.h"

/* The learning layer's warnings of the call running on this thread. */
static __thread GString *collected;

void dpg_warnings_collect(GString *into) {
  collected = into;
}

static void on_learn_warning(const char *message, gpointer data) {
  (void)data;
  if (collected == NULL) {
    g_log(LEARN_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "warning: %s", message);
    return;
  }
  if (collected->len > 0)
    g_string_append_c(collected, '\n');
  g_string_append(collected, message);
}

void dpg_enter(void) {
  static gsize handler = 0;
  if (g_once_init_enter(&handler)) {
    learn_set_warning_handler(on_learn_warning, NULL);
    g_once_init_leave(&handler, 1);
  }
  /* Single-threaded BLAS, as cli/main.c sets it: OpenBLAS splits products
   * and factorizations differently with the thread count, which changes
   * their rounding; results must equal the command line's, whatever the
   * machine's core count. Process-wide: numpy on the same OpenBLAS runs
   * single-threaded from then on too. */
  openblas_set_num_threads(1);
}

const char *dpg_blas_note(void) {
  return sim_blas_kernel_note();
}
