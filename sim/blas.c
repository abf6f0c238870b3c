/*
 * sim/blas.c: the slow-kernel check (sim/blas.h). OpenBLAS 0.3.21 (Debian
 * 12) serves processors it does not recognise (an Intel Xeon with AVX-512,
 * issue #38) with its generic Prescott kernel, about twice as slow on the
 * dense algebra of an accounting; the user is told once, and chooses.
 */
#include "sim/blas.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* The factor measured on `account --generate barabasi:n=1000,m=3,seed=1
 * -T 320 --trust pndp -a 0`: CPU seconds under OPENBLAS_CORETYPE=Prescott
 * over the default (Haswell) kernel, 121.6 / 82.6 on the 2-core AMD EPYC VM
 * (docs/performance.md, "OpenBLAS kernels"; issue #38 measured 106 / 52.8 =
 * 2.0 on a Xeon with AVX-512 against SkylakeX). */
#define SIM_BLAS_PRESCOTT_FACTOR "1.5-2"

gboolean sim_blas_kernel_is_avx2(const char *corename) {
  static const char *const fast[] = {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"};
  if (corename == NULL)
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS(fast); i++)
    if (g_ascii_strcasecmp(corename, fast[i]) == 0)
      return TRUE;
  return FALSE;
}

static char *kernel_note(void) {
  const char *off = getenv("DPGOSSIP_BLAS_NOTE");
  if (off != NULL && strcmp(off, "0") == 0)
    return NULL;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  const char *cpu = __builtin_cpu_supports("avx512f") ? "AVX-512"
                    : __builtin_cpu_supports("avx2")  ? "AVX2"
                                                      : NULL;
  const char *core = openblas_get_corename();
  if (cpu == NULL || core == NULL || sim_blas_kernel_is_avx2(core))
    return NULL;
  const char *forced = getenv("OPENBLAS_CORETYPE");
  char *why = forced != NULL && forced[0] != '\0'
                  ? g_strdup_printf(" (chosen by OPENBLAS_CORETYPE=%s in the environment)", forced)
                  : g_strdup("");
  char *note = g_strdup_printf(
      "dpgossip: note: OpenBLAS runs its %s kernel%s on a CPU with %s: dense algebra is slower "
      "than this CPU allows (%sx the CPU time on the accounting benchmark with Prescott); "
      "docs/performance.md, section \"OpenBLAS kernels\", says how to choose a kernel with "
      "OPENBLAS_CORETYPE and its risk",
      core, why, cpu, SIM_BLAS_PRESCOTT_FACTOR);
  g_free(why);
  return note;
#else
  return NULL;
#endif
}

const char *sim_blas_kernel_note(void) {
  static gsize once = 0;
  static char *note = NULL;
  if (g_once_init_enter(&once)) {
    note = kernel_note();
    g_once_init_leave(&once, 1);
  }
  return note;
}
