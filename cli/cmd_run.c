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
#include "cli/run_summary.h"
#include "plot/plot.h"
#include "scenarios/scenarios.h"

/* The signal that interrupted the run (SIGINT or SIGTERM), 0 if none. */
static volatile sig_atomic_t interrupted;

/* Ctrl-C and SIGTERM (a job scheduler's or a service manager's stop) end the
 * run alike: the points running stop, what finished stays and the message
 * says how to resume; the exit status is 128 + the signal's number. */
static void on_interrupt(int sig) {
  interrupted = sig;
  scen_cancel();
  /* A second signal stops at once (temporary files only are left). */
  signal(sig, SIG_DFL);
}

/* Points done of the sweep; @fraction weighs them by their work. */
static void on_progress(guint done, guint total, double fraction, gpointer data) {
  char what[96];
  g_snprintf(what, sizeof what, "%u/%u point%s", done, total, total == 1 ? "" : "s");
  cli_progress_update_fraction(data, fraction, what);
}

/* ---- --publish / --record: the run of a one-point scenario as a stream ---- */

typedef struct {
  const CliStreamOptions *o;
  CliStream *stream;
  gboolean ended;
} RunStream;

static char *scenario_json(const ScenRunHookInfo *info) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  cli_json_string(b, "protocol", info->protocol);
  cli_json_number(b, "sigma", info->sigma);
  json_builder_end_object(b);
  return cli_json_text(b, 0);
}

/* Each evaluation step as one metric event, while the run goes on. */
static gboolean publish_metrics(ProtoRun *run, SimTime t, guint step, const ProtoMetric *rows,
                                guint n_nodes, gpointer data, GError **error) {
  (void)run;
  (void)step;
  return cli_stream_publish_metric_rows(((RunStream *)data)->stream, t, rows, n_nodes, error);
}

/* Before the run: open the stream on its engine, and have the runtime
 * publish the evaluations as they are known. After it (and its accounting):
 * each (collusion set, trust) privacy result and the run end, while the
 * engine still lives for the end's counters. */
static gboolean run_hook(const ScenRunHookInfo *info, gpointer data, GError **error) {
  RunStream *rs = data;
  SimEngine *engine = proto_run_engine(info->run);
  if (!info->finished) {
    char *json = scenario_json(info);
    rs->stream = cli_stream_start(rs->o, "run", engine, info->graph, info->name, info->seed,
                                  proto_context_steps(proto_run_context(info->run)), json, error);
    g_free(json);
    if (rs->stream == NULL)
      return FALSE;
    proto_run_set_metrics_func(info->run, PROTO_METRICS_LAG_DEFAULT, publish_metrics, rs);
    return TRUE;
  }
  SimTime t = sim_engine_now(engine);
  guint T = proto_context_steps(proto_run_context(info->run));
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < info->n_privacy; i++) {
    const ScenPrivacyResult *r = &info->privacy[i];
    if (r->n_victims == 0)
      continue;
    G_STATIC_ASSERT(sizeof(guint) == sizeof(guint32) && sizeof(gint) == sizeof(gint32));
    StreamPrivacy p = {.collusion = r->collusion,
                       .attackers = (const guint32 *)r->attackers,
                       .n_attackers = r->n_attackers,
                       .trust = r->trust,
                       .round = T,
                       .delta = r->delta,
                       .n_victims = r->n_victims,
                       .victims = (const guint32 *)r->victims,
                       .mu = r->mu,
                       .epsilon = r->epsilon,
                       .distance = (const gint32 *)r->distance};
    ok = stream_publish_privacy(cli_stream_sim(rs->stream), t, &p, error);
  }
  rs->ended = TRUE;
  ok = cli_stream_end(rs->stream, "ok", ok ? error : NULL) && ok;
  return ok;
}

/* ---- Under mpirun or srun (scenarios/sweep_mpi.c) ---- */

static void rank_log(const char *line, gpointer data) {
  fprintf(data, "%s\n", line);
  fflush(data);
}

int cli_cmd_run(int argc, char **argv) {
  double cpu0 = cli_cpu_seconds();
  gint64 wall0 = g_get_monotonic_time();
  char **sets = NULL, *out_dir = NULL, *rank_logs = NULL, *seed = NULL;
  gint threads = 0;
  gboolean quiet = FALSE, dispatcher = FALSE, allow_plugins = FALSE;
  double mpi_timeout = 0;
  gboolean mpi = FALSE;
  guint rank = 0, size = 1, local = 1;
  FILE *log = NULL;
  if (!cli_mpi_join("run", &mpi, &rank, &size, &local))
    return CLI_EXIT_FAILURE;
  GOptionEntry entries[] = {
      {"seed", 's', 0, G_OPTION_ARG_STRING, &seed,
       "Set simulation.seed (replaces a sweep over seeds)", "N"},
      {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
       "Override a key: section.key=value; sweep.section.key=a;b sets a sweep axis "
       "(repeatable)",
       "KEY=VALUE"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir,
       "Output folder (default: [output] dir, else results/NAME next to the file)", "DIR"},
      {"threads", 'j', 0, G_OPTION_ARG_INT, &threads,
       "Sweep points run in parallel (default: number of cores; results do not depend on it)", "N"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
       "No progress line (on a terminal: refreshed; elsewhere: every 10 s) and no summary", NULL},
      {"allow-plugins", 0, 0, G_OPTION_ARG_NONE, &allow_plugins,
       "Load the scenario's [protocol] plugin (a shared object: its code runs with your "
       "rights; without this flag such a scenario is refused)",
       NULL},
      {"rank-logs", 0, 0, G_OPTION_ARG_FILENAME, &rank_logs,
       "Under MPI: each rank logs its points (and other ranks their stderr) to DIR/rank-R.log",
       "DIR"},
      {"dispatcher", 0, 0, G_OPTION_ARG_NONE, &dispatcher,
       "Under MPI: rank 0 only hands points out and runs none itself", NULL},
      {"mpi-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &mpi_timeout,
       "Under MPI: a rank silent this long is lost and its points failed (default 300)", "SECONDS"},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx = g_option_context_new("FILE - run a scenario");
  g_option_context_add_main_entries(ctx, entries, NULL);
  CliPluginOptions popt = {0};
  cli_plugin_options_add(ctx, &popt);
  CliStreamOptions so = {0};
  cli_stream_options_add(ctx, &so);
  cli_stream_options_add_pace(ctx, &so);
  RunStream rstream = {.o = &so};
  g_option_context_set_description(
      ctx, "Writes summary.json (last), metrics.csv (per round and node), metrics_mean.csv\n"
           "(per round: the means over the nodes), privacy.csv (per victim),\n"
           "scenario.resolved.ini (every default filled in: running it reproduces the run\n"
           "byte for byte) and SVG figures; a sweep writes each point under points/ and the\n"
           "aggregates over seeds (points.csv, groups.csv, aggregate.csv, loss.svg,\n"
           "loss_vs_epsilon.svg) and the tidy privacy.csv, metrics.csv and metrics_mean.csv\n"
           "of every point. Points already finished are skipped, so an interrupted sweep\n"
           "resumes.\n"
           "\n"
           "Examples:\n"
           "  dpgossip run scenarios/default.ini\n"
           "  dpgossip run scenarios/figure2-florentine.ini --set simulation.rounds=20\n"
           "  dpgossip run scenarios/figure3-housing-ego.ini --set sweep.simulation.seed=1..2 "
           "-j 2\n"
           "\n"
           "Under mpirun or srun (a build with Open MPI), the points are shared out across\n"
           "the ranks, each running -j at a time (default: the cores of its machine over its\n"
           "ranks there) into the shared output folder; the files are the same bytes:\n"
           "  mpirun -n 4 dpgossip run scenarios/figure3-housing-ego.ini -j 8\n");
  int status = CLI_EXIT_USAGE;
  ScenScenario *sc = NULL;
  GError *error = NULL;
  ScenRunReport report = {0};
  CliProgress *progress = NULL;
  struct sigaction old_int, old_term;
  gboolean handler_int = FALSE, handler_term = FALSE;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    cli_parse_error(ctx, "run", error);
    g_clear_error(&error);
    goto out;
  }
  if (argc != 2) {
    fprintf(stderr,
            "dpgossip run: give one scenario file (got %d arguments)\n"
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
  if (mpi_timeout < 0) {
    fprintf(stderr, "dpgossip run: --mpi-timeout must be > 0 seconds\n");
    goto out;
  }
  if (rank_logs != NULL && (log = cli_mpi_rank_log("run", rank_logs, rank)) == NULL) {
    status = CLI_EXIT_FAILURE;
    goto out;
  }
  if (mpi && threads == 0)
    threads = (gint)MAX(1, g_get_num_processors() / local);
  if (!cli_stream_options_check(&so, &error)) {
    fprintf(stderr, "dpgossip run: %s\n(run 'dpgossip run --help' for the options)\n",
            error->message);
    g_clear_error(&error);
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
  if (seed != NULL) {
    /* Any value, -1 included, is the user's: validation judges it like one
     * written in the file (it used to be dropped silently). */
    char *item = g_strdup_printf("simulation.seed=%s", seed);
    gboolean set = scen_scenario_set(sc, item, &error);
    g_free(item);
    if (!set) {
      status = cli_fail("run", error, CLI_EXIT_USAGE);
      goto out;
    }
  }
  guint64 n_points = scen_scenario_n_points(sc);
  if (cli_stream_options_enabled(&so) && size > 1) {
    fprintf(stderr, "dpgossip run: --publish and --record follow one run in one process; run "
                    "without mpirun or srun\n");
    goto out;
  }
  if (cli_stream_options_enabled(&so) && n_points > 1) {
    fprintf(stderr,
            "dpgossip run: --publish and --record follow one run, but %s sweeps %" G_GUINT64_FORMAT
            " points; pick one with --set (e.g. --seed N for a sweep over seeds, or "
            "--set section.key=value for the swept key)\n",
            argv[1], n_points);
    goto out;
  }
  struct sigaction action = {0};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  interrupted = 0;
  scen_cancel_reset();
  handler_int = sigaction(SIGINT, &action, &old_int) == 0;
  handler_term = sigaction(SIGTERM, &action, &old_term) == 0;
  /* Under MPI the line would only follow rank 0's own points. */
  progress = cli_progress_new("run", quiet || mpi);
  ScenRunOptions opt = {.out_dir = out_dir,
                        .threads = (guint)threads,
                        .progress = progress ? on_progress : NULL,
                        .progress_data = progress,
                        .run_hook = cli_stream_options_enabled(&so) ? run_hook : NULL,
                        .run_hook_data = &rstream,
                        .allow_plugins = allow_plugins};
  ScenMpiOptions mopt = {.dispatcher = dispatcher,
                         .timeout_s = mpi_timeout,
                         .log = log ? rank_log : NULL,
                         .log_data = log};
  gboolean ok = mpi ? scen_scenario_run_mpi(sc, &opt, &mopt, &report, &error)
                    : scen_scenario_run(sc, &opt, &report, &error);
  if (rank != 0) {
    /* Rank 0 reports the points and the problems of every rank. */
    if (!ok && !g_error_matches(error, SCEN_ERROR, SCEN_ERROR_INVALID))
      fprintf(stderr, "dpgossip run (rank %u): %s\n", rank, error->message);
    status = ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
    g_clear_error(&error);
    goto out;
  }
  g_clear_pointer(&progress, cli_progress_free);
  if (rstream.stream != NULL && !rstream.ended) /* the run failed or was cancelled */
    cli_stream_end(rstream.stream, interrupted ? "interrupted" : "error", NULL);
  else if (ok && cli_stream_options_enabled(&so) && rstream.stream == NULL)
    fprintf(stderr,
            "dpgossip run: the run was already finished in %s, so nothing was "
            "published; give another --out to run it again\n",
            report.out_dir);
  if (!ok) {
    if (g_error_matches(error, SCEN_ERROR, SCEN_ERROR_INVALID)) {
      fprintf(stderr, "%s\ndpgossip run: %s is invalid; nothing was run\n", error->message,
              argv[1]);
      g_clear_error(&error);
      status = CLI_EXIT_FAILURE;
    } else if (interrupted || g_error_matches(error, SCEN_ERROR, SCEN_ERROR_CANCELLED)) {
      fprintf(stderr, "dpgossip run: interrupted%s: %s\n",
              interrupted == SIGTERM ? " (SIGTERM)" : "", error ? error->message : "");
      g_clear_error(&error);
      status = 128 + (interrupted ? (int)interrupted : SIGINT);
    } else {
      status = cli_fail("run", error, CLI_EXIT_FAILURE);
    }
    goto out;
  }
  for (guint i = 0; report.rerun != NULL && i < report.rerun->len; i++)
    fprintf(stderr, "dpgossip run: ran a point again: %s\n",
            (char *)g_ptr_array_index(report.rerun, i));
  if (report.ranks > 1)
    printf("%s: %u point%s (%u run, %u already finished) on %u ranks x %u thread%s\n", argv[1],
           report.points, report.points == 1 ? "" : "s", report.ran, report.skipped, report.ranks,
           report.threads, report.threads == 1 ? "" : "s");
  else
    printf("%s: %u point%s (%u run, %u already finished) on %u thread%s\n", argv[1], report.points,
           report.points == 1 ? "" : "s", report.ran, report.skipped, report.threads,
           report.threads == 1 ? "" : "s");
  printf("results: %s\n", report.out_dir);
  cli_run_print_busy(&report, cpu0, wall0);
  for (guint i = 0; i < report.figures->len; i++)
    printf("figure:  %s\n", (char *)g_ptr_array_index(report.figures, i));
  cli_run_graph_notice(report.out_dir);
  if (!quiet)
    cli_run_print_summary(report.out_dir);
  status = CLI_EXIT_OK;
out:
  if (handler_int)
    sigaction(SIGINT, &old_int, NULL);
  if (handler_term)
    sigaction(SIGTERM, &old_term, NULL);
  cli_progress_free(progress);
  scen_run_report_clear(&report);
  cli_plugin_options_clear(&popt);
  cli_stream_free(rstream.stream);
  cli_stream_options_clear(&so);
  scen_scenario_free(sc);
  g_strfreev(sets);
  g_free(seed);
  g_free(out_dir);
  g_free(rank_logs);
  g_option_context_free(ctx);
  plot_shutdown();
  if (log != NULL)
    fclose(log);
  return mpi ? scen_mpi_finalize(status) : status;
}
