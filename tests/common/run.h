/*
 * tests/common/run.h: runs the built dpgossip binary (path in $DPGOSSIP) and
 * captures its exit status, stdout and stderr. Header-only.
 */
#ifndef DPG_TESTS_COMMON_RUN_H
#define DPG_TESTS_COMMON_RUN_H

#include <glib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  int status; /* exit status, or -1 if killed by a signal */
  char *out;
  char *err;
} CliRun;

/* A child setup (GSpawnChildSetupFunc, @data unused) for every process a
 * test spawns: the child is killed when the test dies. ctest kills a test
 * that outlives its TIMEOUT, but not what the test started, and a dpgossip
 * left running would hold a core through the rest of the suite. The
 * signal follows the spawning thread, which g_spawn_sync keeps blocked
 * until the child ends. A test killed between fork and this call leaves
 * the child's parent changed to init: it then exits at once. */
static inline void cli_run_die_with_test(gpointer data) {
  (void)data;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1)
    _exit(127);
}

/* The child's address-space limit (a gsize in @data; 0: none), and
 * cli_run_die_with_test. */
static inline void cli_run_limit_address_space(gpointer data) {
  cli_run_die_with_test(NULL);
  rlim_t bytes = (rlim_t)GPOINTER_TO_SIZE(data);
  struct rlimit rl = {bytes, bytes};
  if (bytes > 0)
    setrlimit(RLIMIT_AS, &rl);
}

/* Runs `dpgossip ARGS...` (NULL-terminated) under an address-space limit of
 * @bytes (0: none): dpgossip's memory budget honours it, so that a memory
 * refusal is exercised without a machine-sized input. */
static inline CliRun cli_run_limited_v(gsize bytes, const char *const *args) {
  const char *bin = g_getenv("DPGOSSIP");
  g_assert_nonnull(bin);
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)bin);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  CliRun r = {0};
  int wait_status = 0;
  GError *error = NULL;
  gboolean ok = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT,
                             cli_run_limit_address_space, GSIZE_TO_POINTER(bytes), &r.out,
                             &r.err, &wait_status, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  g_ptr_array_free(argv, TRUE);
  return r;
}

/* Runs `dpgossip ARGS...` (NULL-terminated). */
static inline CliRun cli_run_v(const char *const *args) {
  return cli_run_limited_v(0, args);
}

#define cli_run_limited(bytes, ...)                                                                \
  cli_run_limited_v((bytes), (const char *const[]){__VA_ARGS__, NULL})
#define cli_run(...) cli_run_v((const char *const[]){__VA_ARGS__, NULL})

static inline void cli_run_clear(CliRun *r) {
  g_clear_pointer(&r->out, g_free);
  g_clear_pointer(&r->err, g_free);
}

static inline char *cli_data_path(const char *rel) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  return g_build_filename(dir, rel, NULL);
}

static inline char *cli_test_data_path(const char *rel) {
  const char *dir = g_getenv("DPG_TEST_DATA");
  g_assert_nonnull(dir);
  return g_build_filename(dir, rel, NULL);
}

#endif
