/*
 * cli/interrupt.c: the one handler of SIGINT and SIGTERM for the commands
 * that stop cleanly (run, train, audit's one-run mode). Ctrl-C and a job
 * scheduler's or a service manager's SIGTERM mean the same: cancel the work
 * in flight, write nothing that looks complete, and exit 128 + the signal's
 * number. A second signal stops at once (the default action).
 *
 * Everything the handler touches is a flag or a pointer set before the
 * signal can arrive, so that it stays async-signal-safe: it records the
 * signal, cancels the registered run (proto_run_cancel only sets its flag),
 * calls the command's own cancel (scen_cancel sets a flag), and, while a
 * command is writing its outputs, removes the temporary files and _exits,
 * since a half-renamed set of tables must not survive.
 */
#include <signal.h>
#include <unistd.h>

#include "cli/cli.h"

#define MAX_FILES 4

static volatile sig_atomic_t caught;
static void (*volatile cancel_func)(void);
static ProtoRun *volatile cancel_run;
static const char *volatile files[MAX_FILES];

static void on_signal(int sig) {
  caught = sig;
  if (files[0] != NULL) {
    for (int i = 0; i < MAX_FILES; i++)
      if (files[i] != NULL)
        unlink(files[i]);
    _exit(128 + sig);
  }
  if (cancel_run != NULL)
    proto_run_cancel(cancel_run);
  if (cancel_func != NULL)
    cancel_func();
  signal(sig, SIG_DFL);
}

void cli_interrupt_begin(CliInterrupt *saved, void (*cancel)(void)) {
  caught = 0;
  cancel_run = NULL;
  for (int i = 0; i < MAX_FILES; i++)
    files[i] = NULL;
  cancel_func = cancel;
  struct sigaction action = {0};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  saved->int_set = sigaction(SIGINT, &action, &saved->old_int) == 0;
  saved->term_set = sigaction(SIGTERM, &action, &saved->old_term) == 0;
}

void cli_interrupt_end(CliInterrupt *saved) {
  if (saved->int_set)
    sigaction(SIGINT, &saved->old_int, NULL);
  if (saved->term_set)
    sigaction(SIGTERM, &saved->old_term, NULL);
  saved->int_set = saved->term_set = FALSE;
  cancel_run = NULL;
  cancel_func = NULL;
}

int cli_interrupted(void) {
  return caught;
}

int cli_interrupt_status(void) {
  return 128 + (caught != 0 ? (int)caught : SIGINT);
}

void cli_interrupt_set_run(ProtoRun *run) {
  cancel_run = run;
  /* A signal between the check and the registration must not be lost. */
  if (run != NULL && caught)
    proto_run_cancel(run);
}

void cli_interrupt_set_file(guint i, const char *path) {
  g_return_if_fail(i < MAX_FILES);
  files[i] = path;
}
