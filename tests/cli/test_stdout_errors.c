/*
 * tests/cli/test_stdout_errors.c: output that cannot be written is a failure
 * (`account --format csv > /dev/full` exited 0, as did graph,
 * replay --check and validate --keys).
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

static void to_dev_full(gpointer data) {
  cli_run_die_with_test(data);
  int fd = open("/dev/full", O_WRONLY);
  if (fd >= 0) {
    dup2(fd, STDOUT_FILENO);
    close(fd);
  }
}

/* Runs `dpgossip ARGS...` with stdout on /dev/full; returns the exit status
 * and (in *err) stderr. */
static int run_full(const char *const *args, char **err) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)g_getenv("DPGOSSIP"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  int wait_status = 0;
  GError *error = NULL;
  g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, to_dev_full, NULL, NULL, err,
               &wait_status, &error);
  g_assert_no_error(error);
  g_ptr_array_free(argv, TRUE);
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

static void test_dev_full(void) {
  if (!g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
    g_test_skip("no /dev/full");
    return;
  }
  char *dir = test_tmpdir("cli-full");
  char *csv = g_build_filename(dir, "t.csv", NULL), *trace = g_build_filename(dir, "t.trace", NULL);
  /* A small trace for replay --check (written normally). */
  CliRun r = cli_run("train", "--generate", "florentine", "--dataset", "synthetic:linear,n=60,d=2",
                     "--epochs", "1", "--batches", "1", "--out", csv, "--record", trace);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  const char *const *cases[] = {
      (const char *const[]){"account", "--generate", "florentine", "--rounds", "4", "--trust",
                            "pndp", "-a", "0", "--format", "csv", NULL},
      (const char *const[]){"graph", "--generate", "florentine", NULL},
      (const char *const[]){"validate", "--keys", NULL},
      (const char *const[]){"replay", "--check", trace, NULL},
      (const char *const[]){"--version", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *err = NULL;
    int status = run_full(cases[i], &err);
    if (status != 1 || strstr(err, "cannot write the output: No space left on device") == NULL)
      g_error("dpgossip %s > /dev/full: status %d, stderr: %s", cases[i][0], status, err);
    g_free(err);
  }
  /* The same commands on a working stdout still succeed. */
  r = cli_run("graph", "--generate", "florentine");
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  g_unlink(csv);
  g_unlink(trace);
  g_rmdir(dir);
  g_free(csv);
  g_free(trace);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/stdout-errors/dev-full", test_dev_full);
  return g_test_run();
}
