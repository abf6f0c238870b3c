/*
 * api/enter.c: what every call does first, as the command line's main does.
 */
#include <cblas.h>

#include "api/internal.h"
#include "sim/blas.h"

void dpg_enter(void) {
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
