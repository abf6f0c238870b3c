/*
 * cli/cmd_run.c: `dpgossip run FILE`: runs a scenario (every point of its
 * sweep, in parallel), writing its outputs into a folder. The scenario is
 * validated first and nothing starts from an invalid file. Ctrl-C cancels:
 * the running points stop, no file is left looking complete (each point's
 * summary.json is written last), and running again resumes.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "plot/plot.h"
#include "scenarios/scenarios.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  interrupted = 1;
  scen_cancel();
  /* A second Ctrl-C stops at once (temporary files only are left). */
  signal(sig, SIG_DFL);
}

typedef struct {
  gint last; /* last permille printed */
} Bar;

static void progress_bar(guint done, guint total, double fraction, gpointer data) {
  Bar *bar = data;
  gint pm = (gint)(fraction * 1000.0);
  if (pm == bar->last)
    return;
  bar->last = pm;
  int width = 40, filled = (int)(fraction * width + 0.5);
  fprintf(stderr, "\r[");
  for (int i = 0; i < width; i++)
    fputc(i < filled ? '#' : ' ', stderr);
  fprintf(stderr, "] %5.1f%%  %u/%u point%s", fraction * 100.0, done, total, total == 1 ? "" : "s");
  fflush(stderr);
}

int cli_cmd_run(int argc, char **argv) {
  char **sets = NULL, *out_dir = NULL;
  gint64 seed = -1;
  gint threads = 0;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
      {"seed", 's', 0, G_OPTION_ARG_INT64, &seed,
       "Set simulation.seed (replaces a sweep over seeds)", "N"},
      {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
       "Override a key: section.key=value; sweep.section.key=a;b sets a sweep axis "
       "(repeatable)",
       "KEY=VALUE"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir,
       "Output folder (default: [output] dir, else results/NAME next to the file)", "DIR"},
      {"threads", 'j', 0, G_OPTION_ARG_INT, &threads,
       "Sweep points run in parallel (default: number of cores; results do not depend on it)",
       "N"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress bar", NULL},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx = g_option_context_new("FILE - run a scenario");
  g_option_context_add_main_entries(ctx, entries, NULL);
  CliPluginOptions popt = {0};
  cli_plugin_options_add(ctx, &popt);
  g_option_context_set_description(
      ctx, "Writes summary.json (last), metrics.csv, privacy.csv, scenario.resolved.ini\n"
           "(every default filled in: running it reproduces the run byte for byte) and SVG\n"
           "figures; a sweep writes each point under points/ and the aggregates over seeds\n"
           "(points.csv, groups.csv, aggregate.csv, loss.svg, loss_vs_epsilon.svg). Points\n"
           "already finished are skipped, so an interrupted sweep resumes.\n"
           "\n"
           "Examples:\n"
           "  dpgossip run scenarios/default.ini\n"
           "  dpgossip run scenarios/figure2-florentine.ini --set simulation.rounds=20\n"
           "  dpgossip run scenarios/figure3-housing-ego.ini --set sweep.simulation.seed=1..2 "
           "-j 2\n");
  int status = CLI_EXIT_USAGE;
  ScenScenario *sc = NULL;
  GError *error = NULL;
  ScenRunReport report = {0};
  struct sigaction old_action;
  gboolean handler = FALSE;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    fprintf(stderr, "dpgossip run: %s\n(run 'dpgossip run --help' for the options)\n",
            error->message);
    g_clear_error(&error);
    goto out;
  }
  if (argc != 2) {
    fprintf(stderr, "dpgossip run: give one scenario file (got %d arguments)\n"
                    "(run 'dpgossip run --help' for the options)\n",
            argc - 1);
    goto out;
  }
  if (!cli_plugin_options_load(&popt, &error)) {
    status = cli_fail("run", error, CLI_EXIT_USAGE);
    goto out;
  }
  if (threads < 0) {
    fprintf(stderr, "dpgossip run: --threads must be >= 1 (0: number of cores)\n");
    goto out;
  }
  if ((sc = scen_scenario_load(argv[1], &error)) == NULL) {
    status = cli_fail("run", error, CLI_EXIT_FAILURE);
    goto out;
  }
  for (guint i = 0; sets && sets[i]; i++)
    if (!scen_scenario_set(sc, sets[i], &error)) {
      status = cli_fail("run", error, CLI_EXIT_USAGE);
      goto out;
    }
  if (seed >= 0) {
    char *item = g_strdup_printf("simulation.seed=%" G_GINT64_FORMAT, seed);
    scen_scenario_set(sc, item, NULL);
    g_free(item);
  }
  struct sigaction action = {0};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  interrupted = 0;
  scen_cancel_reset();
  handler = sigaction(SIGINT, &action, &old_action) == 0;
  Bar bar = {-1};
  gboolean tty = !quiet && isatty(STDOUT_FILENO);
  ScenRunOptions opt = {.out_dir = out_dir,
                        .threads = (guint)threads,
                        .progress = tty ? progress_bar : NULL,
                        .progress_data = &bar};
  gboolean ok = scen_scenario_run(sc, &opt, &report, &error);
  if (tty && bar.last >= 0)
    fputc('\n', stderr);
  if (!ok) {
    if (g_error_matches(error, SCEN_ERROR, SCEN_ERROR_INVALID)) {
      fprintf(stderr, "%s\ndpgossip run: %s is invalid; nothing was run\n", error->message,
              argv[1]);
      g_clear_error(&error);
      status = CLI_EXIT_FAILURE;
    } else if (interrupted || g_error_matches(error, PROTO_ERROR, PROTO_ERROR_CANCELLED)) {
      fprintf(stderr, "dpgossip run: interrupted: %s\n", error ? error->message : "");
      g_clear_error(&error);
      status = 130;
    } else {
      status = cli_fail("run", error, CLI_EXIT_FAILURE);
    }
    goto out;
  }
  printf("%s: %u point%s (%u run, %u already finished) on %u thread%s\n", argv[1], report.points,
         report.points == 1 ? "" : "s", report.ran, report.skipped, report.threads,
         report.threads == 1 ? "" : "s");
  printf("results: %s\n", report.out_dir);
  for (guint i = 0; i < report.figures->len; i++)
    printf("figure:  %s\n", (char *)g_ptr_array_index(report.figures, i));
  status = CLI_EXIT_OK;
out:
  if (handler)
    sigaction(SIGINT, &old_action, NULL);
  scen_run_report_clear(&report);
  cli_plugin_options_clear(&popt);
  scen_scenario_free(sc);
  g_strfreev(sets);
  g_free(out_dir);
  g_option_context_free(ctx);
  plot_shutdown();
  return status;
}
