/*
 * cli/main.c: the dpgossip command: dispatches to subcommands.
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "cli/cli.h"
#include "sim/blas.h"

#ifndef DPG_VERSION
#define DPG_VERSION "unknown"
#endif

typedef struct {
  const char *name;
  CliCommandFunc func;
  const char *summary;
} CliCommand;

static const CliCommand commands[] = {
    {"account", cli_cmd_account, "per-victim privacy of a protocol against an attacker set"},
    {"audit", cli_cmd_audit,
     "attack simulated runs (or, --attack onerun, a training run) to test the guarantees"},
    {"demo", cli_cmd_demo, "run the default demo on embedded data"},
    {"figure", cli_cmd_figure, "draw one of the paper's figures (privacy-vs-distance)"},
    {"graph", cli_cmd_graph, "load or generate a graph and print its summary"},
    {"mafalda", cli_cmd_mafalda, "optimize Mafalda's noise correlation for a graph"},
    {"protocols", cli_cmd_protocols,
     "list the protocols (built-in and plugins) and their parameters"},
    {"replay", cli_cmd_replay, "publish a recorded event trace again"},
    {"run", cli_cmd_run, "run a scenario file (a single run or a sweep)"},
    {"train", cli_cmd_train, "train a model with a decentralized protocol"},
    {"validate", cli_cmd_validate, "check a scenario file and report every problem"},
    {"viz", cli_cmd_viz, "watch runs live in a web browser"},
};

static void print_usage(FILE *out) {
  fprintf(out, "Usage: dpgossip COMMAND [OPTIONS]\n"
               "\n"
               "A discrete-event simulator of differentially private decentralized learning.\n"
               "\n"
               "Commands:\n");
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out,
          "  %-10s %s\n"
          "\n"
          "Options:\n"
          "  --version  print the version and exit\n"
          "\n"
          "Run 'dpgossip COMMAND --help' for a command's options.\n"
          "\n"
          "Horizon (account, audit, train, mafalda): -T rounds, -k epochs (uses of each\n"
          "record) and -b batches (rounds between two uses of a record), T = k x b: give\n"
          "two of them and the third is derived, or all three and they must agree.\n"
          "\n"
          "Exit status: 0 success, 1 the run failed (a file that cannot be read, written\n"
          "or parsed; a numerical failure), 2 a usage error (unknown command or option,\n"
          "bad option value or spec), 130 interrupted (Ctrl-C), 143 stopped by SIGTERM\n"
          "(run: both keep the finished points; running again resumes).\n",
          "help", "show this help, or 'help COMMAND' for one command");
}

static const CliCommand *find_command(const char *name) {
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static int unknown_command(const char *name) {
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) {
    guint d = cli_edit_distance(name, commands[i].name);
    if (d < best_d) {
      best_d = d;
      best = commands[i].name;
    }
  }
  if (best != NULL && best_d <= 2)
    fprintf(stderr, "dpgossip: unknown command '%s'; did you mean '%s'?\n", name, best);
  else
    fprintf(stderr, "dpgossip: unknown command '%s'; run 'dpgossip help' for the list\n", name);
  return CLI_EXIT_USAGE;
}

static int run_command(int argc, char **argv);

/* Output that never reached its file (a full disk, /dev/full, a closed pipe)
 * is a failure, not a success: stdout is flushed and closed here and any
 * error turns a 0 status into 1, with a message. */
static int close_stdout(int status) {
  errno = 0;
  gboolean failed = fflush(stdout) != 0;
  int saved = errno;
  if (ferror(stdout) && saved == 0) {
    /* The write failed earlier, when the buffer filled (output past 4 KiB),
     * and its errno is gone: one more byte on the broken stream finds it. */
    failed = TRUE;
    clearerr(stdout);
    errno = 0;
    if (fputc('\n', stdout) == EOF || fflush(stdout) != 0)
      saved = errno;
  }
  failed |= ferror(stdout) != 0;
  if (fclose(stdout) != 0 && !failed) {
    failed = TRUE;
    saved = errno;
  }
  if (!failed)
    return status;
  fprintf(stderr, "dpgossip: cannot write the output: %s\n",
          saved ? g_strerror(saved) : "write error");
  return status == CLI_EXIT_OK ? CLI_EXIT_FAILURE : status;
}

/* sim_blas_kernel_note's line, once on stderr before a command computes:
 * not for --help, and under mpirun only by rank 0 (every rank runs the same
 * OpenBLAS on the same kind of machine). */
static void print_blas_note(int argc, char **argv) {
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
      return;
  static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
  for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
    const char *r = getenv(rank_vars[i]);
    if (r != NULL && strcmp(r, "0") != 0)
      return;
  }
  const char *note = sim_blas_kernel_note();
  if (note != NULL)
    fprintf(stderr, "%s\n", note);
}

/* The learning layer's warnings, as every command's: on stderr, named, each
 * distinct message once per process. A sweep's points each load their data
 * (run's 40 points said the same dataset warning 40 times); the points run
 * on worker threads, hence the lock. dpgossip.run() says them once too,
 * with the count (api/enter.c). */
static void print_warning(const char *message, gpointer command) {
  static GMutex lock;
  static GHashTable *said; /* the messages printed; lives until exit */
  g_mutex_lock(&lock);
  if (said == NULL)
    said = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  if (g_hash_table_add(said, g_strdup(message)))
    fprintf(stderr, "dpgossip %s: warning: %s\n", (const char *)command, message);
  g_mutex_unlock(&lock);
}

int main(int argc, char **argv) {
  return close_stdout(run_command(argc, argv));
}

static int run_command(int argc, char **argv) {
  setlocale(LC_ALL, "");
  /* Numbers are always printed with a '.' decimal point, whatever the locale. */
  setlocale(LC_NUMERIC, "C");
  /* Single-threaded BLAS for every command, whatever OPENBLAS_NUM_THREADS
   * says. OpenBLAS splits products and factorizations differently with the
   * thread count, which changes their rounding (hence Mafalda's optimizer
   * path and the last digits of C and of every result built on it): outputs
   * must not depend on the machine's core count. The cores are used one
   * level up instead (sweep points, evaluation pool, Mafalda beside DMF),
   * where BLAS worker threads would only spin against them. */
  openblas_set_num_threads(1);

  if (argc < 2) {
    print_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
    printf("dpgossip %s\n", DPG_VERSION);
    return CLI_EXIT_OK;
  }
  if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
    if (argc >= 3 && strcmp(name, "help") == 0 && strcmp(argv[2], "help") != 0) {
      const CliCommand *cmd = find_command(argv[2]);
      if (cmd == NULL)
        return unknown_command(argv[2]);
      char *sub_argv[] = {(char *)cmd->name, "--help", NULL};
      return cmd->func(2, sub_argv);
    }
    print_usage(stdout);
    return CLI_EXIT_OK;
  }
  const CliCommand *cmd = find_command(name);
  if (cmd == NULL)
    return unknown_command(name);
  print_blas_note(argc, argv);
  learn_set_warning_handler(print_warning, (gpointer)cmd->name);
  return cmd->func(argc - 1, argv + 1);
}
