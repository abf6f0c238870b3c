/*
 * tests/cli/test_blas_note.c: the slow-kernel note (sim/blas.h, issue #38).
 * Under OPENBLAS_CORETYPE=Prescott on a CPU with AVX2 or AVX-512, a command
 * prints the note on stderr exactly once, naming the kernel and the variable
 * that chose it; under the environment's own kernel it prints it only when
 * that kernel lacks AVX2 (the machine of the issue: a Xeon that OpenBLAS
 * 0.3.21 serves with Prescott); DPGOSSIP_BLAS_NOTE=0 and --help silence it.
 */
#include <cblas.h>
#include <string.h>

#include "sim/blas.h"
#include "tests/common/run.h"

#define NOTE "OpenBLAS runs its "

static guint count(const char *haystack, const char *needle) {
  guint n = 0;
  for (const char *p = strstr(haystack, needle); p != NULL; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* stderr of a cheap accounting on Florentine, with OPENBLAS_CORETYPE set to
 * @core (NULL: as the environment has it), the note enabled unless @off. */
static CliRun account(const char *core, gboolean off, gboolean help) {
  char *saved = g_strdup(g_getenv("OPENBLAS_CORETYPE"));
  if (core != NULL)
    g_setenv("OPENBLAS_CORETYPE", core, TRUE);
  if (off)
    g_setenv("DPGOSSIP_BLAS_NOTE", "0", TRUE);
  else
    g_unsetenv("DPGOSSIP_BLAS_NOTE");
  CliRun r = help ? cli_run("account", "--help")
                  : cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp",
                            "-a", "0");
  if (saved != NULL)
    g_setenv("OPENBLAS_CORETYPE", saved, TRUE);
  else
    g_unsetenv("OPENBLAS_CORETYPE");
  g_free(saved);
  g_unsetenv("DPGOSSIP_BLAS_NOTE");
  g_assert_cmpint(r.status, ==, 0);
  return r;
}

static gboolean cpu_has_avx2(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") || __builtin_cpu_supports("avx512f");
}

static void test_prescott(void) {
  if (!cpu_has_avx2()) {
    g_test_skip("this CPU has neither AVX2 nor AVX-512: Prescott is not slower than it allows");
    return;
  }
  CliRun r = account("Prescott", FALSE, FALSE);
  g_test_message("stderr: %s", r.err);
  g_assert_cmpuint(count(r.err, NOTE), ==, 1);
  g_assert_nonnull(strstr(r.err, NOTE "Prescott kernel"));
  g_assert_nonnull(strstr(r.err, "OPENBLAS_CORETYPE=Prescott in the environment"));
  g_assert_nonnull(strstr(r.err, "docs/performance.md"));
  g_assert_nonnull(strstr(r.out, "victim")); /* the command still ran */
  cli_run_clear(&r);
  /* Silenced by DPGOSSIP_BLAS_NOTE=0 (what the suite sets) and for --help. */
  r = account("Prescott", TRUE, FALSE);
  g_assert_cmpuint(count(r.err, NOTE), ==, 0);
  cli_run_clear(&r);
  r = account("Prescott", FALSE, TRUE);
  g_assert_cmpuint(count(r.err, NOTE), ==, 0);
  cli_run_clear(&r);
}

/* The environment's kernel (this process runs the same OpenBLAS under the
 * same environment as the child): the note only if it lacks AVX2. */
static void test_default_kernel(void) {
  if (!cpu_has_avx2()) {
    g_test_skip("this CPU has neither AVX2 nor AVX-512: no kernel is slower than it allows");
    return;
  }
  const char *core = openblas_get_corename();
  guint want = sim_blas_kernel_is_avx2(core) ? 0 : 1;
  g_test_message("the environment's kernel: %s, note expected %u time(s)", core, want);
  CliRun r = account(NULL, FALSE, FALSE);
  g_assert_cmpuint(count(r.err, NOTE), ==, want);
  cli_run_clear(&r);
}

static void test_kernel_names(void) {
  g_assert_false(sim_blas_kernel_is_avx2("Prescott"));
  g_assert_false(sim_blas_kernel_is_avx2("Nehalem"));
  g_assert_false(sim_blas_kernel_is_avx2("Sandybridge"));
  g_assert_false(sim_blas_kernel_is_avx2(NULL));
  g_assert_true(sim_blas_kernel_is_avx2("Haswell"));
  g_assert_true(sim_blas_kernel_is_avx2("Zen"));
  g_assert_true(sim_blas_kernel_is_avx2("SKYLAKEX"));
  g_assert_true(sim_blas_kernel_is_avx2("Cooperlake"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/blas-note/prescott", test_prescott);
  g_test_add_func("/cli/blas-note/default-kernel", test_default_kernel);
  g_test_add_func("/cli/blas-note/kernel-names", test_kernel_names);
  return g_test_run();
}
