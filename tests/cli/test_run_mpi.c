/*
 * tests/cli/test_run_mpi.c: `mpirun -n 3 dpgossip run`: every
 * output file byte for byte the one-process run's (the shipped default
 * sweep; a Mafalda sweep whose correlation file the other ranks read back;
 * rank 0 as a pure dispatcher), stdout from rank 0 only, resume, a failing
 * point reported while the others finish, a killed rank (the job fails
 * naming the point in flight; the rerun completes the same bytes), a hung
 * rank (lost after --mpi-timeout, never a hang), and the refusal of a binary
 * built without MPI to run as N copies; `figure privacy-vs-distance
 * --attackers all` and `account` with the attacker sets shared out, the
 * same bytes.
 *
 * mpirun runs on loopback only (the environment comes from
 * tests/cli/CMakeLists.txt: OMPI_MCA_*_if_include=lo, root allowed).
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <unistd.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/common/checks.h"
#include "tests/common/files.h"
#include "tests/common/run.h"

#if TEST_UNDER_ASAN
#define SLOW_EPOCHS "epochs = 10\n"
#else
#define SLOW_EPOCHS "epochs = 30\n"
#endif

#ifndef DPG_TEST_HAVE_MPI
#define DPG_TEST_HAVE_MPI 0
#endif

/* Every file under @a and @b (relative names, sorted), with its bytes. */
static void list_tree(const char *root, const char *rel, GPtrArray *names) {
  char *dir = rel[0] ? g_build_filename(root, rel, NULL) : g_strdup(root);
  GDir *d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    char *r = rel[0] ? g_build_filename(rel, name, NULL) : g_strdup(name);
    char *full = g_build_filename(root, r, NULL);
    if (g_file_test(full, G_FILE_TEST_IS_DIR))
      list_tree(root, r, names);
    else
      g_ptr_array_add(names, g_strdup(r));
    g_free(full);
    g_free(r);
  }
  g_dir_close(d);
  g_free(dir);
}

static gint cmp_str(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Asserts @a and @b hold the same files with the same bytes; returns their number. */
static guint assert_same_tree(const char *a, const char *b) {
  GPtrArray *na = g_ptr_array_new_with_free_func(g_free);
  GPtrArray *nb = g_ptr_array_new_with_free_func(g_free);
  list_tree(a, "", na);
  list_tree(b, "", nb);
  g_ptr_array_sort(na, cmp_str);
  g_ptr_array_sort(nb, cmp_str);
  for (guint i = 0; i < MIN(na->len, nb->len); i++)
    g_assert_cmpstr(g_ptr_array_index(na, i), ==, g_ptr_array_index(nb, i));
  g_assert_cmpuint(na->len, ==, nb->len);
  for (guint i = 0; i < na->len; i++) {
    char *pa = g_build_filename(a, g_ptr_array_index(na, i), NULL);
    char *pb = g_build_filename(b, g_ptr_array_index(na, i), NULL);
    char *ta = NULL, *tb = NULL;
    gsize la = 0, lb = 0;
    g_assert_true(g_file_get_contents(pa, &ta, &la, NULL));
    g_assert_true(g_file_get_contents(pb, &tb, &lb, NULL));
    if (la != lb || memcmp(ta, tb, la) != 0)
      g_error("%s and %s differ", pa, pb);
    g_free(ta);
    g_free(tb);
    g_free(pa);
    g_free(pb);
  }
  guint n = na->len;
  g_ptr_array_unref(na);
  g_ptr_array_unref(nb);
  return n;
}

/*
 * Whether the next mpirun's ranks run LeakSanitizer at exit (sanitizer
 * build). Its check of a rank, with the full stacks it needs to tell Open
 * MPI's allocations from ours, costs far more than the run: the 6 points of
 * the Mafalda dispatcher test, 3 ranks, took 159 s with it and 19 s without
 * (ASan build, 2 cores at load 15), and hardly less for 2 points of T = 4:
 * most of it is each rank's exit, where LeakSanitizer matches every leaked
 * stack against the suppressions. So the ranks are leak checked once,
 * where the MPI code runs to a normal end with both roles: the dispatcher
 * test (rank 0 hands points out, ranks 1 and 2 run them and read back the
 * C rank 0 wrote). Not in the other runs: test_identical's (rank 0 runs
 * points as the workers do, and hands them out as the dispatcher does),
 * the failure paths (their ranks die or are killed before any exit check),
 * the resumes (the same code as a first run), and the figure, account and
 * audit workloads, whose code the single-process tests leak check under
 * the same sanitizers. Every run keeps AddressSanitizer's other checks.
 */
static gboolean rank_leak_check = FALSE;

/* The environment of mpirun: under the sanitizers, with rank_leak_check,
 * full stacks on malloc, so that LeakSanitizer can tell Open MPI's
 * allocations (suppressed: tests/cli/mpi-lsan.supp; its libraries have no
 * frame pointers) from ours; without it no leak check, and the fast
 * unwinder: a full stack on every malloc made this test's other mpiruns
 * several times slower, for stacks nothing reads. (g_strfreev) */
static char **mpi_env(void) {
  char **env = g_get_environ();
  const char *asan = g_environ_getenv(env, "ASAN_OPTIONS");
  char *v = g_strdup_printf("%s%s%s", asan ? asan : "", asan ? ":" : "",
                            rank_leak_check ? "fast_unwind_on_malloc=0" : "detect_leaks=0");
  env = g_environ_setenv(env, "ASAN_OPTIONS", v, TRUE);
  g_free(v);
  return env;
}

/* `mpirun --oversubscribe -n N dpgossip ARGS...` (NULL-terminated). */
static CliRun mpi_run_v(guint n, const char *const *args) {
  const char *mpiexec = g_getenv("DPG_MPIEXEC");
  g_assert_nonnull(mpiexec);
  char *ns = g_strdup_printf("%u", n);
  GPtrArray *argv = g_ptr_array_new();
  const char *pre[] = {
      mpiexec, "--oversubscribe",   "--allow-run-as-root", "--mca", "btl", "self,vader,tcp", "-n",
      ns,      g_getenv("DPGOSSIP")};
  for (guint i = 0; i < G_N_ELEMENTS(pre); i++)
    g_ptr_array_add(argv, (gpointer)pre[i]);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  CliRun r = {0};
  int ws = 0;
  GError *error = NULL;
  char **env = mpi_env();
  g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, env, G_SPAWN_DEFAULT, cli_run_die_with_test, NULL, &r.out,
                             &r.err, &ws, &error));
  g_assert_no_error(error);
  r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
  g_strfreev(env);
  g_ptr_array_free(argv, TRUE);
  g_free(ns);
  return r;
}

#define mpi_run(n, ...) mpi_run_v(n, (const char *const[]){__VA_ARGS__, NULL})

static guint count(const char *hay, const char *needle) {
  guint k = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
    k++;
  return k;
}

static char *write_tmp(const char *dir, const char *name, const char *text) {
  char *p = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(p, text, -1, NULL));
  return p;
}

/* What follows the first line of a run's stdout, with @dir written OUT and
 * without the line of CPU and wall times (they differ from run to run). */
static char *summary_part(const char *out, const char *dir) {
  const char *nl = strchr(out, '\n');
  g_assert_nonnull(nl);
  char **parts = g_strsplit(nl + 1, dir, -1);
  char *s = g_strjoinv("OUT", parts);
  g_strfreev(parts);
  char *line = g_str_has_prefix(s, "cpu: ") ? s : strstr(s, "\ncpu: ");
  if (line != NULL && line != s)
    line++;
  char *end = line != NULL ? strchr(line, '\n') : NULL;
  if (end != NULL)
    memmove(line, end + 1, strlen(end + 1) + 1);
  return s;
}

static void test_identical(void) {
  char *tmp = test_tmpdir("mpi");
  char *ini = g_build_filename(g_getenv("DPG_SOURCE_DIR"), "scenarios", "default.ini", NULL);
  char *ref = g_build_filename(tmp, "ref", NULL), *mpi = g_build_filename(tmp, "mpi", NULL);
  CliRun a = cli_run("run", ini, "-o", ref, "-j", "2");
  g_assert_cmpint(a.status, ==, 0);
  CliRun b = mpi_run(3, "run", ini, "-o", mpi, "-j", "1");
  if (b.status != 0)
    g_error("mpirun failed (%d): %s", b.status, b.err);
  /* The default sweep: 2 methods x 4 seeds, each point's files, the aggregates and tidy tables,
   * loss.svg, privacy_vs_distance.svg and Mafalda's cached C_local. */
  g_assert_cmpuint(assert_same_tree(ref, mpi), ==, 8 * 5 + 11);
  g_assert_nonnull(strstr(b.out, ": 8 points (8 run, 0 already finished) on 3 ranks x 1 thread\n"));
  /* One copy of the report (rank 0's), the same as one process prints. */
  g_assert_cmpuint(count(b.out, "results: "), ==, 1);
  char *sa = summary_part(a.out, ref), *sb = summary_part(b.out, mpi);
  g_assert_cmpstr(sa, ==, sb);
  g_free(sa);
  g_free(sb);
  cli_run_clear(&b);

  /* Resume: two points lost their summary (interrupted): only they run. */
  const char *lost[] = {"points/name=dsgd_seed=1/summary.json",
                        "points/name=mafalda_seed=3/summary.json", "summary.json"};
  for (guint i = 0; i < G_N_ELEMENTS(lost); i++) {
    char *p = g_build_filename(mpi, lost[i], NULL);
    g_assert_cmpint(g_unlink(p), ==, 0);
    g_free(p);
  }
  b = mpi_run(3, "run", ini, "-o", mpi, "-j", "1", "-q");
  g_assert_cmpint(b.status, ==, 0);
  g_assert_nonnull(strstr(b.out, "8 points (2 run, 6 already finished) on 3 ranks"));
  assert_same_tree(ref, mpi);
  cli_run_clear(&b);
  b = mpi_run(2, "run", ini, "-o", mpi, "-q");
  g_assert_cmpint(b.status, ==, 0);
  g_assert_nonnull(strstr(b.out, "(0 run, 8 already finished)"));
  cli_run_clear(&b);
  cli_run_clear(&a);
  test_rmtree(tmp);
  g_free(ref);
  g_free(mpi);
  g_free(ini);
  g_free(tmp);
}

/* Mafalda: rank 0 computes C once into .cache; the other ranks read it back
 * (the exact doubles) for their points. Rank 0 only dispatches here. */
static void test_mafalda_dispatcher(void) {
  char *tmp = test_tmpdir("mpi");
  char *ini = write_tmp(tmp, "m.ini",
                        "[topology]\ngenerate = florentine\n[protocol]\nname = dsgd\nmu = 1\n"
                        "[task]\ndataset = synthetic:linear,n=400,d=5,seed=1\nepochs = 2\n"
                        "batches = 4\n[privacy]\ntrust = ldp\n[output]\nplots = false\n"
                        "[sweep]\nprotocol.name = dsgd;mafalda\nsimulation.seed = 1..3\n");
  char *ref = g_build_filename(tmp, "ref", NULL), *mpi = g_build_filename(tmp, "mpi", NULL);
  CliRun a = cli_run("run", ini, "-o", ref, "-j", "1", "-q");
  g_assert_cmpint(a.status, ==, 0);
  char *logs = g_build_filename(tmp, "logs", NULL);
  rank_leak_check = TRUE;
  CliRun b = mpi_run(3, "run", ini, "-o", mpi, "-j", "2", "-q", "--dispatcher", "--rank-logs",
                     logs);
  rank_leak_check = FALSE;
  if (b.status != 0)
    g_error("mpirun failed (%d): %s", b.status, b.err);
  g_assert_cmpuint(assert_same_tree(ref, mpi), ==, 6 * 5 + 8 + 1); /* + .cache/C-*.csv */
  /* Rank 0 ran nothing: the other two ran the 6 points between them. */
  char *l0 = g_build_filename(logs, "rank-0.log", NULL), *text = NULL;
  g_assert_true(g_file_get_contents(l0, &text, NULL, NULL));
  g_assert_cmpuint(count(text, "rank 0 runs"), ==, 0);
  g_assert_cmpuint(count(text, "rank 0 hands"), ==, 6);
  g_assert_cmpuint(count(text, " finished points/"), ==, 6);
  g_free(text);
  g_free(l0);
  cli_run_clear(&a);
  cli_run_clear(&b);
  test_rmtree(tmp);
  g_free(logs);
  g_free(ref);
  g_free(mpi);
  g_free(ini);
  g_free(tmp);
}

/* A point that fails (its dataset has a bad value) is reported with its
 * error; the others finish, with the same files as in one process. */
static void test_failing_point(void) {
  char *tmp = test_tmpdir("mpi");
  GString *good = g_string_new("x1,x2,y\n");
  for (guint i = 0; i < 100; i++)
    g_string_append_printf(good, "%u,%u,%u\n", i % 7, i % 5, 3 * (i % 7) + (i % 5));
  g_free(write_tmp(tmp, "good.csv", good->str));
  g_string_free(good, TRUE);
  g_free(write_tmp(tmp, "bad.csv", "x1,x2,y\n1,2,3\n4,oops,6\n"));
  char *ini = write_tmp(tmp, "f.ini",
                        "[topology]\ngenerate = florentine\n[protocol]\nsigma = 1\n[task]\n"
                        "dataset = csv:good.csv\nepochs = 2\nbatches = 4\n[privacy]\n"
                        "trust = pndp\n[output]\nplots = false\n[sweep]\n"
                        "task.dataset = csv:good.csv;csv:bad.csv\nsimulation.seed = 1..2\n");
  char *ref = g_build_filename(tmp, "ref", NULL), *mpi = g_build_filename(tmp, "mpi", NULL);
  CliRun a = cli_run("run", ini, "-o", ref, "-j", "1", "-q");
  g_assert_cmpint(a.status, ==, 1);
  CliRun b = mpi_run(3, "run", ini, "-o", mpi, "-j", "1", "-q");
  g_assert_cmpint(b.status, !=, 0);
  g_assert_cmpstr(b.out, ==, "");
  g_assert_nonnull(strstr(b.err, "dpgossip run: 2 of 4 points failed:\n"));
  g_assert_cmpuint(count(b.err, "bad.csv:3:3: field 2 ('oops') is not a finite number"), ==, 2);
  g_assert_cmpuint(count(b.err, "points failed"), ==, 1); /* rank 0 reports, once */
  g_assert_cmpuint(assert_same_tree(ref, mpi), ==, 2 * 5);
  cli_run_clear(&a);
  cli_run_clear(&b);
  test_rmtree(tmp);
  g_free(ref);
  g_free(mpi);
  g_free(ini);
  g_free(tmp);
}

/* A sweep of points lasting a fraction of a second each: a third of the
 * steps under the sanitizers, which make each step several times slower. */
static const char slow_ini[] =
    "[topology]\ngenerate = erdos:n=60,p=0.1,seed=2,connected=true\n[protocol]\nsigma = 0.1\n"
    "[task]\ndataset = synthetic:linear,n=20000,d=40,seed=1\nbatches = 10\n" SLOW_EPOCHS
    "[privacy]\npath = none\n[output]\nplots = false\n[sweep]\nsimulation.seed = 1..6\n";

/* Starts mpirun -n 3 on @ini with rank logs in @logs, waits until rank 1
 * runs a point, sends it @sig; returns the point's name, the exit status
 * and stderr. Open MPI's mpirun sometimes lingers after its ranks are all
 * gone (seen after MPI_Abort with a stopped rank): once rank 0 has written
 * @last (its last words) and 15 s passed, mpirun is killed (status -1). */
static char *mpi_signal_rank1(const char *ini, const char *out, const char *logs, int sig,
                              const char *extra, const char *last, int *status, char **err) {
  const char *mpiexec = g_getenv("DPG_MPIEXEC");
  const char *argv[] = {mpiexec,
                        "--oversubscribe",
                        "--allow-run-as-root",
                        "--mca",
                        "btl",
                        "self,vader,tcp",
                        "-n",
                        "3",
                        g_getenv("DPGOSSIP"),
                        "run",
                        ini,
                        "-o",
                        out,
                        "-j",
                        "1",
                        "-q",
                        "--rank-logs",
                        logs,
                        extra,
                        extra ? "2" : NULL,
                        NULL};
  char *err_path = g_strdup_printf("%s.stderr", logs);
  int err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int null_fd = open("/dev/null", O_RDWR);
  g_assert_cmpint(err_fd, >=, 0);
  GPid pid;
  GError *error = NULL;
  char **env = mpi_env();
  g_assert_true(g_spawn_async_with_fds(NULL, (char **)argv, env, G_SPAWN_DO_NOT_REAP_CHILD,
                                       cli_run_die_with_test, NULL, &pid, null_fd, null_fd,
                                       err_fd, &error));
  g_assert_no_error(error);
  g_strfreev(env);
  close(err_fd);
  close(null_fd);
  char *log1 = g_build_filename(logs, "rank-1.log", NULL), *text = NULL, *point = NULL;
  int rank1 = 0;
  for (guint i = 0; i < 600 && point == NULL; i++) {
    g_usleep(20000);
    g_free(text);
    text = NULL;
    if (!g_file_get_contents(log1, &text, NULL, NULL))
      continue;
    const char *p = strstr(text, "(pid "), *r = strstr(text, " runs ");
    if (p == NULL || r == NULL)
      continue;
    rank1 = atoi(p + 5);
    const char *e = strchr(r + 6, '\n');
    point = e ? g_strndup(r + 6, e - r - 6) : g_strdup(r + 6);
  }
  g_assert_nonnull(point);
  g_assert_cmpint(rank1, >, 0);
  kill(rank1, sig);
  int ws = 0;
  gint64 said = 0;
  *status = -2;
  for (guint i = 0; i < 6000 && *status == -2; i++) {
    if (waitpid(pid, &ws, WNOHANG) == pid) {
      *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
      break;
    }
    g_usleep(10000);
    char *e = NULL;
    if (said == 0 && g_file_get_contents(err_path, &e, NULL, NULL) && strstr(e, last))
      said = g_get_monotonic_time();
    g_free(e);
    if (said && g_get_monotonic_time() - said > 15 * G_USEC_PER_SEC) {
      g_test_message("mpirun still there 15 s after rank 0's last words: killed");
      kill(pid, SIGKILL);
      waitpid(pid, &ws, 0);
      *status = -1;
    }
  }
  g_assert_cmpint(*status, !=, -2);
  g_spawn_close_pid(pid);
  kill(rank1, SIGKILL); /* a stopped rank is gone with the job; never leave it behind */
  g_assert_true(g_file_get_contents(err_path, err, NULL, NULL));
  g_free(err_path);
  g_free(text);
  g_free(log1);
  return point;
}

/* Rank 1 is killed while it runs a point: Open MPI ends the job; rank 0
 * says which points were in flight (stderr, and OUT/.mpi-inflight), and the
 * rerun runs what is left: the same bytes as one process. */
static void test_killed_rank(void) {
  char *tmp = test_tmpdir("mpi");
  char *ini = write_tmp(tmp, "slow.ini", slow_ini);
  char *ref = g_build_filename(tmp, "ref", NULL), *mpi = g_build_filename(tmp, "mpi", NULL);
  char *logs = g_build_filename(tmp, "logs", NULL);
  int status = 0;
  char *err = NULL;
  char *point = mpi_signal_rank1(ini, mpi, logs, SIGKILL, NULL, "points in flight", &status, &err);
  g_assert_cmpint(status, !=, 0);
  char *journal = g_build_filename(mpi, ".mpi-inflight", NULL), *text = NULL;
  g_assert_true(g_file_get_contents(journal, &text, NULL, NULL));
  char *want = g_strdup_printf(" %s (rank 1)", point);
  g_assert_nonnull(strstr(text, "points in flight:"));
  if (strstr(strstr(text, "points in flight:"), want) == NULL)
    g_error("%s does not say '%s': %s", journal, want, text);
  g_assert_nonnull(strstr(text, "run the same command again"));
  g_free(text);
  char *sum = g_build_filename(mpi, point, "summary.json", NULL);
  g_assert_false(g_file_test(sum, G_FILE_TEST_EXISTS));
  g_free(sum);
  CliRun a = cli_run("run", ini, "-o", ref, "-j", "2", "-q");
  g_assert_cmpint(a.status, ==, 0);
  CliRun b = mpi_run(2, "run", ini, "-o", mpi, "-j", "1", "-q");
  g_assert_cmpint(b.status, ==, 0);
  g_assert_nonnull(strstr(b.out, " already finished) on 2 ranks"));
  g_assert_null(strstr(b.out, "(0 run,"));
  assert_same_tree(ref, mpi); /* the journal went with the rerun */
  cli_run_clear(&a);
  cli_run_clear(&b);
  test_rmtree(tmp);
  g_free(want);
  g_free(journal);
  g_free(point);
  g_free(err);
  g_free(logs);
  g_free(ref);
  g_free(mpi);
  g_free(ini);
  g_free(tmp);
}

/* Rank 1 hangs (SIGSTOP): after --mpi-timeout rank 0 gives its point up,
 * hands out nothing more, reports which points to rerun and ends the job. */
static void test_hung_rank(void) {
  char *tmp = test_tmpdir("mpi");
  char *ini = write_tmp(tmp, "slow.ini", slow_ini);
  char *mpi = g_build_filename(tmp, "mpi", NULL), *logs = g_build_filename(tmp, "logs", NULL);
  int status = 0;
  char *err = NULL;
  gint64 t0 = g_get_monotonic_time();
  char *point = mpi_signal_rank1(ini, mpi, logs, SIGSTOP, "--mpi-timeout",
                                 "points failed:", &status, &err);
  g_assert_cmpint(status, !=, 0);
  g_assert_cmpfloat((g_get_monotonic_time() - t0) / 1e6, <, 60);
  char *want = g_strdup_printf("%s: rank 1 stopped answering for 2 s (died or hung) while "
                               "running it; run the same command again to rerun it",
                               point);
  if (strstr(err, want) == NULL)
    g_error("stderr does not say '%s': %s", want, err);
  g_assert_nonnull(strstr(err, "points failed:"));
  test_rmtree(tmp);
  g_free(want);
  g_free(point);
  g_free(err);
  g_free(logs);
  g_free(mpi);
  g_free(ini);
  g_free(tmp);
}

/* figure privacy-vs-distance --attackers all: the attackers shared out across
 * 3 ranks give the same figure, data and table as one process. */
static void test_figure_attackers(void) {
  char *tmp = test_tmpdir("mpi");
  char *svg[2], *csv[2];
  CliRun r[2];
  for (guint k = 0; k < 2; k++) {
    svg[k] = g_strdup_printf("%s/fig%u.svg", tmp, k);
    csv[k] = g_strdup_printf("%s/fig%u.csv", tmp, k);
  }
  const char *args[] = {"figure",      "privacy-vs-distance",
                        "--generate",  "florentine",
                        "--generate",  "erdos:n=40,p=0.15,seed=3,connected=true",
                        "--rounds",    "12",
                        "--trust",     "pndp",
                        "--attackers", "all",
                        "--out",       svg[0],
                        "--data",      csv[0],
                        NULL};
  r[0] = cli_run_v(args);
  g_assert_cmpint(r[0].status, ==, 0);
  args[13] = svg[1];
  args[15] = csv[1];
  r[1] = mpi_run_v(3, args);
  if (r[1].status != 0)
    g_error("mpirun failed (%d): %s", r[1].status, r[1].err);
  char *t[2][2];
  for (guint k = 0; k < 2; k++) {
    g_assert_true(g_file_get_contents(svg[k], &t[k][0], NULL, NULL));
    g_assert_true(g_file_get_contents(csv[k], &t[k][1], NULL, NULL));
  }
  g_assert_cmpstr(t[0][0], ==, t[1][0]);
  g_assert_cmpstr(t[0][1], ==, t[1][1]);
  /* 14 + 40 attackers, each with its victims at their distances. */
  g_assert_nonnull(strstr(t[0][1], "florentine,1,"));
  char *s0 = summary_part(r[0].out, svg[0]), *s1 = summary_part(r[1].out, svg[1]);
  g_assert_cmpstr(s0, ==, s1);
  g_assert_cmpuint(count(r[1].out, "graph "), ==, count(r[0].out, "graph "));
  g_free(s0);
  g_free(s1);
  for (guint k = 0; k < 2; k++) {
    g_free(t[k][0]);
    g_free(t[k][1]);
    g_free(svg[k]);
    g_free(csv[k]);
    cli_run_clear(&r[k]);
  }
  test_rmtree(tmp);
  g_free(tmp);
}

/* account with several attacker sets and two trust models: the accountings
 * shared out across 3 ranks print the same bytes as one process, in each
 * format; the observer path (one run records every view) stays on rank 0. */
static void test_account_attackers(void) {
  const char *formats[] = {"table", "json", "csv"};
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    const char *args[] = {"account",   "--generate", "florentine",  "-T",         "8",
                          "--trust",   "pndp,ldp",   "--attackers", "0,3,5+7,11", "--compare",
                          "muffliato", "--format",   formats[f],    NULL};
    CliRun a = cli_run_v(args), b = mpi_run_v(3, args);
    g_assert_cmpint(a.status, ==, 0);
    if (b.status != 0)
      g_error("mpirun failed (%d): %s", b.status, b.err);
    g_assert_cmpstr(a.out, ==, b.out);
    cli_run_clear(&a);
    cli_run_clear(&b);
  }
  CliRun a = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp",
                     "--attackers", "0,3", "--path", "observer", "--format", "csv");
  CliRun b = mpi_run(3, "account", "--generate", "florentine", "-T", "4", "--trust", "pndp",
                     "--attackers", "0,3", "--path", "observer", "--format", "csv");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_cmpint(b.status, ==, 0);
  g_assert_cmpstr(a.out, ==, b.out);
  g_assert_nonnull(strstr(a.out, "\n")); /* a header and rows */
  cli_run_clear(&a);
  cli_run_clear(&b);
}

/* Local bounds in deadline mode whose timing pass meets a tie in every
 * ball (latency = deadline): ranks 1 and 2 account sets too, but only rank
 * 0 speaks, once, for all three (the note's count is every rank's). */
static void test_account_timing_notes(void) {
  const char *args[] = {"account",   "--generate",     "florentine", "-T",      "4",
                        "--trust",   "pndp",           "-a",         "0,3,5+7", "--path",
                        "local",     "--radius",       "2",          "--mode",  "deadline:ms=25",
                        "--latency", "constant:ms=25", "--format",   "csv",     NULL};
  CliRun a = cli_run_v(args), b = mpi_run_v(3, args);
  g_assert_cmpint(a.status, ==, 0);
  if (b.status != 0)
    g_error("mpirun failed (%d): %s", b.status, b.err);
  g_assert_cmpstr(a.out, ==, b.out);
  const char *note = "dpgossip account: 3 of 3 balls' deliveries come from the engine's timing run";
  g_assert_cmpuint(count(a.err, note), ==, 1);
  g_assert_cmpuint(count(b.err, note), ==, 1);
  g_assert_cmpuint(count(b.err, "dpgossip"), ==, count(a.err, "dpgossip"));
  cli_run_clear(&a);
  cli_run_clear(&b);
}

/* The audit's scored trials, in two blocks over three ranks: the same
 * rows as one process, to the last bit. */
static void test_audit_trials(void) {
  const char *args[] = {"audit", "--generate", "florentine", "-T", "3", "-a", "0", "--victim",
                        "1", "--trials", "2100", "--attack", "np", "--format", "csv", NULL};
  CliRun a = cli_run_v(args), b = mpi_run_v(3, args);
  g_assert_cmpint(a.status, ==, 0);
  if (b.status != 0)
    g_error("mpirun failed (%d): %s", b.status, b.err);
  g_assert_cmpstr(a.out, ==, b.out);
  g_assert_nonnull(strstr(a.out, "\n0,pndp,1,np,"));
  cli_run_clear(&a);
  cli_run_clear(&b);
}

/* A binary built without MPI, started as one of 3 copies (the variables a
 * launcher sets), refuses instead of running the sweep 3 times. */
static void test_not_built_with_mpi(void) {
  if (DPG_TEST_HAVE_MPI) {
    g_test_skip("built with MPI (the -DDPG_MPI=OFF build runs this test)");
    return;
  }
  char *tmp = test_tmpdir("mpi");
  char *ini = g_build_filename(g_getenv("DPG_SOURCE_DIR"), "scenarios", "default.ini", NULL);
  char *out = g_build_filename(tmp, "out", NULL);
  const char *vars[][2] = {
      {"OMPI_COMM_WORLD_SIZE", "3"}, {"PMI_SIZE", "2"}, {"PMIX_RANK", "1"}, {"SLURM_PROCID", "0"}};
  for (guint i = 0; i < G_N_ELEMENTS(vars); i++) {
    char **env = g_get_environ();
    env = g_environ_setenv(env, vars[i][0], vars[i][1], TRUE);
    if (g_str_equal(vars[i][0], "SLURM_PROCID"))
      env = g_environ_setenv(env, "SLURM_STEP_NUM_TASKS", "4", TRUE);
    const char *argv[] = {g_getenv("DPGOSSIP"), "run", ini, "-o", out, NULL};
    char *o = NULL, *e = NULL;
    int ws = 0;
    g_assert_true(
        g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_DEFAULT, cli_run_die_with_test, NULL, &o, &e, &ws, NULL));
    g_assert_true(WIFEXITED(ws));
    g_assert_cmpint(WEXITSTATUS(ws), ==, 1);
    g_assert_cmpstr(o, ==, "");
    g_assert_nonnull(strstr(e, "but this dpgossip was built without MPI: each copy would run "
                               "the whole sweep"));
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    g_free(o);
    g_free(e);
    g_strfreev(env);
  }
  test_rmtree(tmp);
  g_free(out);
  g_free(ini);
  g_free(tmp);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/run-mpi/not-built-with-mpi", test_not_built_with_mpi);
  if (DPG_TEST_HAVE_MPI) {
    g_test_add_func("/run-mpi/identical-and-resume", test_identical);
    g_test_add_func("/run-mpi/mafalda-dispatcher", test_mafalda_dispatcher);
    g_test_add_func("/run-mpi/failing-point", test_failing_point);
    g_test_add_func("/run-mpi/killed-rank", test_killed_rank);
    g_test_add_func("/run-mpi/hung-rank", test_hung_rank);
    g_test_add_func("/run-mpi/figure-attackers", test_figure_attackers);
    g_test_add_func("/run-mpi/account-attackers", test_account_attackers);
    g_test_add_func("/run-mpi/account-timing-notes", test_account_timing_notes);
    g_test_add_func("/run-mpi/audit-trials", test_audit_trials);
  }
  return g_test_run();
}
