/*
 * cli/cmd_run.c: `dpgossip run FILE`: runs a scenario (every point of its
 * sweep, in parallel), writing its outputs into a folder. The scenario is
 * validated first and nothing starts from an invalid file. Ctrl-C cancels:
 * the running points stop, no file is left looking complete (each point's
 * summary.json is written last), and running again resumes.
 */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run_summary.h"
#include "plot/plot.h"
#include "ranks/ranks.h"
#include "scenarios/scenarios.h"

/* Points done of the sweep; @fraction weighs them by their work. */
static void on_progress(guint done, guint total, double fraction, double steps, gpointer data) {
  char what[128];
  if (isnan(steps))
    g_snprintf(what, sizeof what, "%u/%u point%s", done, total, total == 1 ? "" : "s");
  else
    g_snprintf(what, sizeof what, "%u/%u point%s, the running ones %d%% through their steps", done,
               total, total == 1 ? "" : "s", (int)floor(CLAMP(steps, 0, 1) * 100));
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
    proto_run_set_metrics_func(info->run, PROTO_METRICS_LAG_DEFAULT, cli_stream_publish_metrics,
                               rs->stream);
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

/* The command line as typed (owned strings, freed by options_clear). */
typedef struct {
  char **sets, *out_dir, *rank_logs, *seed;
  gint threads;
  gboolean quiet, dispatcher, allow_plugins;
  double mpi_timeout;
  CliPluginOptions plugins;
  CliStreamOptions stream;
} Options;

/* Where the run is: the MPI job's rank, the scenario, the report. */
typedef struct {
  gboolean mpi;
  guint rank, size, local;
  FILE *log;
  const char *file; /* the scenario file, as given */
  ScenScenario *sc;
  ScenRunReport report;
  double cpu0;  /* CPU seconds and monotonic time at the start, for the busy line */
  gint64 wall0;
  RunStream rstream;
} Run;

/* Parses the command line into @o (cli_options_parse). */
static gboolean options_parse(Options *o, int *argc, char ***argv) {
  GOptionEntry entries[] = {
      {"seed", 's', 0, G_OPTION_ARG_STRING, &o->seed,
       "Set simulation.seed (replaces a sweep over seeds)", "N"},
      {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->sets,
       "Override a key: section.key=value; sweep.section.key=a;b sets a sweep axis "
       "(repeatable)",
       "KEY=VALUE"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out_dir,
       "Output folder (default: [output] dir, else results/NAME next to the file)", "DIR"},
      {"threads", 'j', 0, G_OPTION_ARG_INT, &o->threads,
       "Sweep points run in parallel (default: number of cores; results do not depend on it)", "N"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, CLI_QUIET_HELP " and no summary", NULL},
      {"allow-plugins", 0, 0, G_OPTION_ARG_NONE, &o->allow_plugins,
       "Load the scenario's [protocol] plugin (a shared object: its code runs with your "
       "rights; without this flag such a scenario is refused)",
       NULL},
      {"rank-logs", 0, 0, G_OPTION_ARG_FILENAME, &o->rank_logs,
       "Under MPI: each rank logs its points (and other ranks their stderr) to DIR/rank-R.log",
       "DIR"},
      {"dispatcher", 0, 0, G_OPTION_ARG_NONE, &o->dispatcher,
       "Under MPI: rank 0 only hands points out and runs none itself", NULL},
      {"mpi-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->mpi_timeout,
       "Under MPI: a rank silent this long is lost and its points failed (default 300)", "SECONDS"},
      G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "FILE - run a scenario",
      .entries = entries,
      .plugins = &o->plugins,
      .stream = &o->stream,
      .pace = TRUE,
      .operands = TRUE,
      .description =
          "Writes summary.json (last), metrics.csv (per round and node), metrics_mean.csv\n"
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
          "  mpirun -n 4 dpgossip run scenarios/figure3-housing-ego.ini -j 8\n"};
  return cli_options_parse(&spec, argc, argv);
}

static void options_clear(Options *o) {
  cli_plugin_options_clear(&o->plugins);
  cli_stream_options_clear(&o->stream);
  g_strfreev(o->sets);
  g_free(o->seed);
  g_free(o->out_dir);
  g_free(o->rank_logs);
}

/* The options alone: the file, plugins, threads, MPI's, the stream's. */
static int validate(int argc, Options *o, Run *r) {
  GError *error = NULL;
  if (argc != 2) {
    fprintf(stderr,
            "dpgossip run: give one scenario file (got %d arguments)\n"
            "(run 'dpgossip run --help' for the options)\n",
            argc - 1);
    return CLI_EXIT_USAGE;
  }
  if (!cli_plugin_options_load(&o->plugins, &error))
    return cli_fail("run", error, CLI_EXIT_USAGE);
  if (o->threads < 0) {
    fprintf(stderr, "dpgossip run: --threads must be >= 1 (0: number of cores)\n");
    return CLI_EXIT_USAGE;
  }
  if (o->mpi_timeout < 0) {
    fprintf(stderr, "dpgossip run: --mpi-timeout must be > 0 seconds\n");
    return CLI_EXIT_USAGE;
  }
  if (o->rank_logs != NULL && (r->log = cli_mpi_rank_log("run", o->rank_logs, r->rank)) == NULL)
    return CLI_EXIT_FAILURE;
  if (r->mpi && o->threads == 0)
    o->threads = (gint)MAX(1, g_get_num_processors() / r->local);
  if (!cli_stream_options_check(&o->stream, &error)) {
    fprintf(stderr, "dpgossip run: %s\n(run 'dpgossip run --help' for the options)\n",
            error->message);
    g_clear_error(&error);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* The scenario with its --set and --seed, and what a stream allows. */
static int load(const Options *o, Run *r) {
  GError *error = NULL;
  if ((r->sc = scen_scenario_load(r->file, &error)) == NULL)
    return cli_fail("run", error, CLI_EXIT_FAILURE);
  for (guint i = 0; o->sets && o->sets[i]; i++)
    if (!scen_scenario_set(r->sc, o->sets[i], &error))
      return cli_fail("run", error, CLI_EXIT_USAGE);
  if (o->seed != NULL) {
    /* Any value, -1 included, is the user's: validation judges it like one
     * written in the file (it used to be dropped silently). */
    char *item = g_strdup_printf("simulation.seed=%s", o->seed);
    gboolean set = scen_scenario_set(r->sc, item, &error);
    g_free(item);
    if (!set)
      return cli_fail("run", error, CLI_EXIT_USAGE);
  }
  guint64 n_points = scen_scenario_n_points(r->sc);
  if (cli_stream_options_enabled(&o->stream) && r->size > 1) {
    fprintf(stderr, "dpgossip run: --publish and --record follow one run in one process; run "
                    "without mpirun or srun\n");
    return CLI_EXIT_USAGE;
  }
  if (cli_stream_options_enabled(&o->stream) && n_points > 1) {
    fprintf(stderr,
            "dpgossip run: --publish and --record follow one run, but %s sweeps %" G_GUINT64_FORMAT
            " points; pick one with --set (e.g. --seed N for a sweep over seeds, or "
            "--set section.key=value for the swept key)\n",
            r->file, n_points);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* Why the run failed, and its exit status. */
static int failed(const Run *r, GError *error) {
  if (g_error_matches(error, SCEN_ERROR, SCEN_ERROR_INVALID)) {
    fprintf(stderr, "%s\ndpgossip run: %s is invalid; nothing was run\n", error->message, r->file);
    g_clear_error(&error);
    return CLI_EXIT_FAILURE;
  }
  if (cli_interrupted() || g_error_matches(error, SCEN_ERROR, SCEN_ERROR_CANCELLED)) {
    fprintf(stderr, "dpgossip run: interrupted%s: %s\n",
            cli_interrupted() == SIGTERM ? " (SIGTERM)" : "", error ? error->message : "");
    g_clear_error(&error);
    return cli_interrupt_status();
  }
  return cli_fail("run", error, CLI_EXIT_FAILURE);
}

/* The points run on this rank (all of them alone), with a progress line. */
static int execute(const Options *o, Run *r) {
  GError *error = NULL;
  /* Under MPI the line would only follow rank 0's own points. */
  CliProgress *progress = cli_progress_new("run", o->quiet || r->mpi);
  /* A point's setup (reading a large graph) and its accounting after its
   * last step report nothing: the line is repeated meanwhile. */
  cli_progress_keepalive(progress);
  ScenRunOptions opt = {.out_dir = o->out_dir,
                        .threads = (guint)o->threads,
                        .progress = progress ? on_progress : NULL,
                        .progress_data = progress,
                        .run_hook = cli_stream_options_enabled(&o->stream) ? run_hook : NULL,
                        .run_hook_data = &r->rstream,
                        .allow_plugins = o->allow_plugins};
  ScenMpiOptions mopt = {.dispatcher = o->dispatcher,
                         .timeout_s = o->mpi_timeout,
                         .log = r->log ? rank_log : NULL,
                         .log_data = r->log};
  gboolean ok = r->mpi ? scen_scenario_run_mpi(r->sc, &opt, &mopt, &r->report, &error)
                       : scen_scenario_run(r->sc, &opt, &r->report, &error);
  cli_progress_free(progress);
  if (r->rank != 0) {
    /* Rank 0 reports the points and the problems of every rank. */
    if (!ok && !g_error_matches(error, SCEN_ERROR, SCEN_ERROR_INVALID))
      fprintf(stderr, "dpgossip run (rank %u): %s\n", r->rank, error->message);
    g_clear_error(&error);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
  }
  if (r->rstream.stream != NULL && !r->rstream.ended) /* the run failed or was cancelled */
    cli_stream_end(r->rstream.stream, cli_interrupted() ? "interrupted" : "error", NULL);
  else if (ok && cli_stream_options_enabled(&o->stream) && r->rstream.stream == NULL)
    fprintf(stderr,
            "dpgossip run: the run was already finished in %s, so nothing was "
            "published; give another --out to run it again\n",
            r->report.out_dir);
  return ok ? CLI_EXIT_OK : failed(r, error);
}

/* Rank 0: what ran, where the results are, the summary. */
static void print_report(const Options *o, const Run *r) {
  const ScenRunReport *rep = &r->report;
  for (guint i = 0; rep->rerun != NULL && i < rep->rerun->len; i++)
    fprintf(stderr, "dpgossip run: ran a point again: %s\n",
            (char *)g_ptr_array_index(rep->rerun, i));
  if (rep->ranks > 1)
    printf("%s: %u point%s (%u run, %u already finished) on %u ranks x %u thread%s\n", r->file,
           rep->points, rep->points == 1 ? "" : "s", rep->ran, rep->skipped, rep->ranks,
           rep->threads, rep->threads == 1 ? "" : "s");
  else
    printf("%s: %u point%s (%u run, %u already finished) on %u thread%s\n", r->file, rep->points,
           rep->points == 1 ? "" : "s", rep->ran, rep->skipped, rep->threads,
           rep->threads == 1 ? "" : "s");
  printf("results: %s\n", rep->out_dir);
  cli_run_print_busy(rep, r->cpu0, r->wall0);
  for (guint i = 0; i < rep->figures->len; i++)
    printf("figure:  %s\n", (char *)g_ptr_array_index(rep->figures, i));
  cli_run_graph_notice(rep->out_dir);
  if (!o->quiet)
    cli_run_print_summary(rep->out_dir);
}

int cli_cmd_run(int argc, char **argv) {
  Options o = {0};
  Run r = {.rstream = {.o = &o.stream}, .cpu0 = cli_cpu_seconds(), .wall0 = g_get_monotonic_time()};
  if (!cli_mpi_join("run", &r.mpi, &r.rank, &r.size, &r.local))
    return CLI_EXIT_FAILURE;
  CliInterrupt saved = {0};
  int status = CLI_EXIT_USAGE;
  if (options_parse(&o, &argc, &argv))
    status = validate(argc, &o, &r);
  r.file = argc > 1 ? argv[1] : NULL;
  if (status == CLI_EXIT_OK)
    status = load(&o, &r);
  if (status == CLI_EXIT_OK) {
    /* Ctrl-C and SIGTERM end the run alike: the points running stop,
     * what finished stays and the message says how to resume. */
    scen_cancel_reset();
    cli_interrupt_begin(&saved, scen_cancel);
    status = execute(&o, &r);
    if (status == CLI_EXIT_OK && r.rank == 0)
      print_report(&o, &r);
  }
  cli_interrupt_end(&saved);
  scen_run_report_clear(&r.report);
  cli_stream_free(r.rstream.stream);
  options_clear(&o);
  scen_scenario_free(r.sc);
  plot_shutdown();
  if (r.log != NULL)
    fclose(r.log);
  return r.mpi ? ranks_finalize(status) : status;
}
