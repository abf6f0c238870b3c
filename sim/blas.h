/*
 * sim/blas.h: the BLAS that every dense computation of dpgossip runs on
 * (OpenBLAS), as far as the program needs to know it: which kernel OpenBLAS
 * chose, and whether that kernel is much slower than the CPU allows.
 */
#ifndef DPG_SIM_BLAS_H
#define DPG_SIM_BLAS_H

#include <glib.h>

G_BEGIN_DECLS

/*
 * sim_blas_kernel_note: one line (no newline) saying that OpenBLAS runs a
 * kernel without AVX2 (its generic Prescott kernel, or an older
 * generation's) on a CPU that has AVX2 or AVX-512, with the slowdown
 * measured in docs/performance.md and a pointer to its section on
 * OPENBLAS_CORETYPE; NULL when the kernel fits the CPU (or the CPU has
 * neither), or when DPGOSSIP_BLAS_NOTE=0 is set (the test suite sets it: its
 * outputs do not depend on the kernel). When OPENBLAS_CORETYPE chose the
 * kernel the line says so, since a stale setting is the likeliest cause.
 * Never sets OPENBLAS_CORETYPE. Callers print it once per process (the
 * command line on stderr, the Python package as a warning).
 * Returns: a static string or NULL. Cost: O(1) (computed once, thread-safe).
 */
const char *sim_blas_kernel_note(void);

/*
 * sim_blas_kernel_is_avx2: whether OpenBLAS's kernel named @corename
 * (openblas_get_corename(), case-insensitive) uses AVX2 or AVX-512:
 * Haswell, Zen, SkylakeX, Cooperlake, SapphireRapids. Exposed for tests.
 */
gboolean sim_blas_kernel_is_avx2(const char *corename);

G_END_DECLS

#endif /* DPG_SIM_BLAS_H */
