/*
 * tests/cli/test_die_with_test.c: a dpgossip a test started dies with the
 * test (tests/common/run.h, cli_run_die_with_test). ctest kills a test that
 * outlives its TIMEOUT but not the processes the test started; one left
 * running holds a core through the rest of the suite.
 *
 * A forked stand-in for a test starts `dpgossip viz` (it serves until it is
 * stopped) through cli_run and is killed with SIGKILL, as ctest does; the
 * viz process must be gone soon after. It is found by its --subscribe
 * endpoint, unique to this test process.
 */
#include <string.h>

#include "tests/common/run.h"

/* The pids whose command line has @arg as one of its arguments. */
static GArray *pids_with_arg(const char *arg) {
  GArray *pids = g_array_new(FALSE, FALSE, sizeof(pid_t));
  GDir *dir = g_dir_open("/proc", 0, NULL);
  g_assert_nonnull(dir);
  const char *name;
  while ((name = g_dir_read_name(dir)) != NULL) {
    if (!g_ascii_isdigit(name[0]))
      continue;
    char *path = g_build_filename("/proc", name, "cmdline", NULL);
    char *text = NULL;
    gsize len = 0;
    if (g_file_get_contents(path, &text, &len, NULL))
      for (gsize at = 0; at < len; at += strlen(text + at) + 1)
        if (g_str_equal(text + at, arg)) {
          pid_t pid = (pid_t)g_ascii_strtoll(name, NULL, 10);
          g_array_append_val(pids, pid);
          break;
        }
    g_free(text);
    g_free(path);
  }
  g_dir_close(dir);
  return pids;
}

/* Waits up to 30 s for the number of processes with @arg to be (@alive)
 * non-zero or (!@alive) zero; returns whether it came. */
static gboolean wait_for(const char *arg, gboolean alive) {
  for (guint i = 0; i < 3000; i++) {
    GArray *pids = pids_with_arg(arg);
    gboolean some = pids->len > 0;
    g_array_free(pids, TRUE);
    if (some == alive)
      return TRUE;
    g_usleep(10 * 1000);
  }
  return FALSE;
}

static void test_killed_test(void) {
  char *endpoint = g_strdup_printf("tcp://127.0.0.1:%d", 20000 + (int)(getpid() % 20000));
  pid_t stand_in = fork();
  g_assert_cmpint(stand_in, >=, 0);
  if (stand_in == 0) {
    CliRun r = cli_run("viz", "--listen", "127.0.0.1:0", "--subscribe", endpoint);
    cli_run_clear(&r);
    _exit(0);
  }
  g_assert_true(wait_for(endpoint, TRUE));
  g_assert_cmpint(kill(stand_in, SIGKILL), ==, 0);
  int status = 0;
  g_assert_cmpint(waitpid(stand_in, &status, 0), ==, stand_in);
  g_assert_true(WIFSIGNALED(status));
  gboolean gone = wait_for(endpoint, FALSE);
  if (!gone) { /* leave nothing behind, then fail */
    GArray *pids = pids_with_arg(endpoint);
    for (guint i = 0; i < pids->len; i++)
      kill(g_array_index(pids, pid_t, i), SIGKILL);
    g_array_free(pids, TRUE);
  }
  g_assert_true(gone);
  g_free(endpoint);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/die_with_test/killed_test", test_killed_test);
  return g_test_run();
}
