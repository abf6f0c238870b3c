/*
 * cli/cmd_train.c: `dpgossip train`: one decentralized training run (any
 * registered protocol, gossip mode, links) on a dataset, writing three tidy
 * tables, the columns of a scenario point's: --out FILE (metrics.csv's: one
 * row per evaluated round and node: round, node, train_loss, test_loss,
 * test_accuracy (empty for regression), seed), FILE_mean.csv
 * (metrics_mean.csv's: per round, the means over the nodes) and
 * FILE_privacy.csv (privacy.csv's: each node's guarantee for the whole run,
 * cli/train_privacy.c: LDP by default, each --trust x --attackers
 * accounting on request), accounted as `dpgossip account` does. FILE's
 * ".csv" is dropped before the suffixes. The structured path needs no
 * provenance (storage SIM_LIN_NONE); otherwise an observer records the run
 * itself.
 *
 * The tables are written to temporary files next to --out and renamed at
 * the end, so a failed or interrupted run never leaves a file that looks
 * complete. Progress goes to stderr (cli/progress.c; -q: none); a summary
 * line ends the run on stdout.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cli/cli.h"
#include "cli/train_privacy.h"
#include "protocols/protocols.h"
#include "scenarios/scenarios.h"

#define usage_error(...) cli_usage_error("train", __VA_ARGS__)

/* The runtime reports each percent of the steps (proto_run_set_progress). */
typedef struct {
  CliProgress *printer;
  guint steps;
} TrainProgress;

static void on_progress(double fraction, gpointer data) {
  TrainProgress *tp = data;
  cli_progress_update(tp->printer, (guint64)llround(fraction * tp->steps), tp->steps, "steps");
  /* What follows the last step (evaluating every node, the observer's last
   * messages, the accounting) is not measured: no "ETA 0:00" meanwhile. */
  if (fraction >= 1)
    cli_progress_phase(tp->printer, "after the last step: evaluation and privacy accounting");
}

static void print_protocols(void) {
  /* Every plugin of the search path too, as `dpgossip protocols` does. */
  GPtrArray *failures = proto_plugin_load_all();
  for (guint i = 0; i < failures->len; i++)
    fprintf(stderr, "dpgossip train: warning: %s\n",
            ((ProtoPluginFailure *)failures->pdata[i])->error->message);
  g_ptr_array_unref(failures);
  guint n = 0;
  const ProtoVTable **all = proto_registry_list(&n);
  printf("Protocols (--protocol NAME[:key=value,...]):\n\n");
  for (guint i = 0; i < n; i++) {
    char *d = proto_vtable_describe(all[i]);
    printf("%s\n", d);
    g_free(d);
  }
  g_free(all);
  printf("%s: %s\n", CLI_NONPRIVATE, CLI_NONPRIVATE_SUMMARY);
}

/* The tables beside --out: FILE without its ".csv", then @suffix. */
static char *sibling_path(const char *path, const char *suffix) {
  gsize len = strlen(path);
  if (g_str_has_suffix(path, ".csv"))
    len -= 4;
  return g_strdup_printf("%.*s%s", (int)len, path, suffix);
}

/* Writes @s to a new temporary file next to @path (*@tmp, g_free). errno
 * on failure, with nothing left behind. */
static gboolean write_tmp(const char *path, const GString *s, char **tmp) {
  *tmp = g_strdup_printf("%s.tmp-XXXXXX", path);
  int fd = g_mkstemp(*tmp);
  if (fd < 0) {
    g_clear_pointer(tmp, g_free);
    return FALSE;
  }
  /* mkstemp makes the file private; give it the usual permissions. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  gboolean ok = TRUE;
  gsize done = 0;
  while (ok && done < s->len) {
    ssize_t w = write(fd, s->str + done, s->len - done);
    if (w < 0 && errno == EINTR)
      continue;
    ok = w > 0;
    done += ok ? (gsize)w : 0;
  }
  ok = (fsync(fd) == 0 || errno == EINVAL) && ok;
  ok = close(fd) == 0 && ok;
  if (!ok) {
    int saved = errno;
    g_unlink(*tmp);
    g_clear_pointer(tmp, g_free);
    errno = saved;
  }
  return ok;
}

/*
 * Writes the three tables: @path (the metrics, one row per evaluated round
 * and node), its _mean.csv (per round, the means over the nodes) and its
 * _privacy.csv (per accounting and victim), in the columns of a scenario
 * point's metrics.csv, metrics_mean.csv and privacy.csv. All go to
 * temporary files first and are renamed together, @path last, so that a
 * failure never leaves one table that looks complete beside stale others.
 */
static gboolean write_tables(const char *path, const TopoGraph *g, const ProtoMetric *rows,
                             gsize n_rows, const CliTrainPrivacy *priv, guint64 seed,
                             GError **error) {
  char *paths[3] = {sibling_path(path, "_privacy.csv"), sibling_path(path, "_mean.csv"),
                    g_strdup(path)};
  GString *text[3] = {g_string_new(SCEN_PRIVACY_CSV_COLUMNS "\n"),
                      g_string_new(SCEN_METRICS_MEAN_CSV_COLUMNS "\n"),
                      g_string_new(SCEN_METRICS_CSV_COLUMNS "\n")};
  cli_train_privacy_csv_rows(priv, text[0]);
  scen_metrics_csv_rows(text[2], text[1], seed, rows, n_rows, g);
  char *tmp[3] = {NULL, NULL, NULL};
  guint failed = 3; /* the table that failed */
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < 3; i++) {
    ok = write_tmp(paths[i], text[i], &tmp[i]);
    cli_interrupt_set_file(i, tmp[i]);
    failed = ok ? failed : i;
  }
  for (guint i = 0; ok && i < 3; i++) {
    ok = g_rename(tmp[i], paths[i]) == 0;
    failed = ok ? failed : i;
    if (ok) {
      cli_interrupt_set_file(i, NULL);
      g_clear_pointer(&tmp[i], g_free);
    }
  }
  int saved = errno;
  for (guint i = 0; i < 3; i++) {
    if (tmp[i] != NULL)
      g_unlink(tmp[i]);
    cli_interrupt_set_file(i, NULL);
  }
  if (!ok)
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "cannot write %s: %s",
                paths[failed], g_strerror(saved));
  for (guint i = 0; i < 3; i++) {
    g_free(tmp[i]);
    g_free(paths[i]);
    g_string_free(text[i], TRUE);
  }
  return ok;
}

/* The run's settings for the stream's run start ("scenario" in docs/events.md). */
static char *scenario_json(const ProtoRunConfig *cfg, const char *schedule) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  cli_json_string(b, "protocol", cfg->protocol);
  cli_json_string(b, "dataset", cfg->dataset);
  cli_json_string(b, "model", cfg->model);
  cli_json_string(b, "schedule", schedule != NULL ? schedule : "static");
  cli_json_string(b, "mode", cfg->mode != NULL ? cfg->mode : "sync");
  cli_json_string(b, "latency", cfg->latency);
  cli_json_string(b, "loss", cfg->loss);
  cli_json_number(b, "sigma", cfg->sigma);
  cli_json_number(b, "clip", cfg->clip);
  cli_json_number(b, "lr", cfg->lr);
  cli_json_int(b, "epochs", cfg->epochs);
  cli_json_int(b, "batches", cfg->batches);
  cli_json_int(b, "eval_every", cfg->eval_every);
  json_builder_end_object(b);
  return cli_json_text(b, 0);
}

/* The command line as typed (owned strings, freed by options_clear), and
 * what validate makes of it. */
typedef struct {
  CliGraphOptions graph;
  CliPluginOptions plugins;
  CliStreamOptions stream;
  char *protocol, *mode, *latency, *loss, *out, *seed_text, *sigma_text, *eval_nodes_text,
      *eval_rows_text;
  /* The run's numbers, schedule and privacy options, parsed into it, and
   * its task: the dataset, model and partition (GOption's copies, like the
   * schedule, trust and attackers), the test split, the compute time and
   * the evaluation. Validate borrows the strings above (which
   * proto_train_validate may resolve to constants) and resolves it. */
  ProtoTrainOptions run;
  gint rounds;
  gboolean list, quiet;
} Options;

/* The run and what it needs, from plan to report. */
typedef struct {
  TopoGraph *g;
  TopoSchedule *sched;
  CliTrainPrivacy *priv;
  ProtoObservedRun *orun;
  ProtoRun *run; /* orun's */
  CliStream *stream;
  gint64 start;
  CliProgress *printer; /* from the graph's building to the accounting's end */
} Train;

/* Parses the command line into @o (cli_options_parse). */
static gboolean options_parse(Options *o, int *argc, char ***argv) {
  GOptionEntry entries[] = {
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &o->protocol,
       "Protocol spec, default dsgd or the plugin's (see --list-protocols); nonprivate: "
       "dsgd without noise",
       "SPEC"},
      {"list-protocols", 0, 0, G_OPTION_ARG_NONE, &o->list,
       "List the protocols and their parameters, then exit", NULL},
      CLI_OPTION_SCHEDULE(&o->run.schedule),
      CLI_OPTIONS_TASK(&o->run.task),
      CLI_OPTION_EPOCHS(&o->run.epochs),
      {"batches", 'b', 0, G_OPTION_ARG_INT, &o->run.batches,
       "Batches per node b (default 1); T = k*b local steps", "B"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &o->rounds,
       "Local steps T = k*b: with -k or -b, the other is derived (alone: one epoch of T "
       "batches)",
       "T"},
      CLI_OPTION_LR(&o->run.lr),
      {"sigma", 0, 0, G_OPTION_ARG_STRING, &o->sigma_text, "Noise multiplier sigma (default 1)",
       "S"},
      CLI_OPTION_CLIP(&o->run.clip),
      CLI_OPTIONS_NETWORK("Network: ", &o->mode, &o->latency, &o->loss),
      {"compute-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o->run.task.compute_ms,
       "Local compute time per step in ms (default 0)", "MS"},
      {"eval-every", 0, 0, G_OPTION_ARG_INT, &o->run.eval_every,
       "Evaluate every N steps (and at the end; default: at the end only)", "N"},
      {"eval-nodes", 0, 0, G_OPTION_ARG_STRING, &o->eval_nodes_text,
       "Nodes evaluated, drawn with the seed, or all (default: all up to 10000 nodes, else "
       "1000)",
       "N"},
      {"eval-rows", 0, 0, G_OPTION_ARG_STRING, &o->eval_rows_text,
       "Test rows each evaluation uses, drawn with the seed, or all (default: all up to 10000 "
       "nodes, else 10000)",
       "N"},
      CLI_OPTION_TEST_FRACTION(&o->run.task),
      {"seed", 's', 0, G_OPTION_ARG_STRING, &o->seed_text,
       "Seed of every random choice (default 0)", "N"},
      {"threads", 'j', 0, G_OPTION_ARG_INT, &o->run.threads,
       "Evaluation threads (default 1; results do not depend on it)", "N"},
      {"trust", 0, 0, G_OPTION_ARG_STRING, &o->run.trust,
       cli_trust_help("Privacy reported per node: ", ", ", " or ",
                      " (ldp, the default, reports every node; the others need --attackers), a "
                      "comma-separated list, or none (no accounting: its time and memory saved)"),
       "MODEL"},
      {"attackers", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &o->run.attackers,
       "Attacker sets of the privacy columns, as for dpgossip account: 0,5 (each alone) or "
       "0+5 (a collusion set); repeatable",
       "IDS"},
      CLI_OPTION_DELTA(&o->run.delta),
      CLI_OPTION_ALPHA(&o->run.alpha),
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out,
       "Output CSV of the metrics (required; .csv is added to a name without an extension); "
       "FILE_mean.csv and FILE_privacy.csv beside it",
       "FILE"},
      CLI_OPTION_QUIET(&o->quiet),
      G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "- train a model with a decentralized protocol",
      .graph = &o->graph,
      .entries = entries,
      .plugins = &o->plugins,
      .stream = &o->stream,
      .pace = TRUE,
      .description =
          "Output: three CSV tables. FILE: one row per (evaluated round, node): round,\n"
          "node, train_loss (on the node's own records), test_loss, test_accuracy (empty\n"
          "for regression), seed. FILE_mean.csv: one row per evaluated round, the means\n"
          "over the nodes. FILE_privacy.csv: one row per accounting (--trust x\n"
          "--attackers; default: LDP of every node) and victim, the guarantee for the\n"
          "whole run as dpgossip account --format csv writes it: collusion, trust,\n"
          "victim, distance, sensitivity, mu (mu-GDP), rdp, epsilon at delta,\n"
          "muffliato_rdp, status (protected, unprotected, unresolved), attackers, alpha,\n"
          "delta, path, seed, mu_lower (local path), bound (thm5.2, exact, local or\n"
          "ldp-cap). FILE's .csv is dropped before _mean.csv and _privacy.csv.\n"
          "The summary line gives the range of epsilon and says when it offers no\n"
          "meaningful protection.\n"
          "\n"
          "Example (the paper's housing setup):\n"
          "  dpgossip train --graph facebook-ego-414-lcc.edges --protocol dsgd \\\n"
          "    --dataset california:cal_housing.data --model mlp:hidden=64 --epochs 20 \\\n"
          "    --batches 16 --lr 0.2 --sigma 1 --clip 1 --seed 1 --out results.csv\n"};
  return cli_options_parse(&spec, argc, argv);
}

static void options_clear(Options *o) {
  char **strings[] = {
      &o->protocol, &o->mode, &o->latency, &o->loss, &o->out, &o->seed_text, &o->sigma_text,
      &o->eval_nodes_text, &o->eval_rows_text};
  for (guint i = 0; i < G_N_ELEMENTS(strings); i++)
    g_clear_pointer(strings[i], g_free);
  const char **run[] = {&o->run.task.dataset, &o->run.task.model, &o->run.task.partition,
                        &o->run.schedule, &o->run.trust};
  for (guint i = 0; i < G_N_ELEMENTS(run); i++) {
    g_free((char *)*run[i]); /* GOption's copies */
    *run[i] = NULL;
  }
  g_strfreev((char **)o->run.attackers);
  o->run.attackers = NULL;
  cli_graph_options_clear(&o->graph);
  cli_plugin_options_clear(&o->plugins);
  cli_stream_options_clear(&o->stream);
}

/* The required options, the output and the horizon. */
static int validate_run(Options *o) {
  GError *error = NULL;
  if (o->run.task.dataset == NULL)
    return usage_error("--dataset is required");
  if (o->out == NULL)
    return usage_error("--out is required");
  /* The metrics are a CSV table: "--out overlay" writes overlay.csv, as its
   * tables beside it end in .csv (a name with an extension is kept). */
  char *base = g_path_get_basename(o->out);
  gboolean bare = strchr(base, '.') == NULL && !g_str_has_suffix(o->out, G_DIR_SEPARATOR_S) &&
                  !g_file_test(o->out, G_FILE_TEST_IS_DIR); /* a folder: refused below */
  g_free(base);
  if (bare) {
    char *with = g_strconcat(o->out, ".csv", NULL);
    g_free(o->out);
    o->out = with;
  }
  /* Before the training: a run is no use if its CSV cannot be written. */
  if (!cli_output_check("--out", o->out, FALSE, &error))
    return cli_fail("train", error, CLI_EXIT_FAILURE);
  if (o->rounds != CLI_UNSET && o->rounds <= 0)
    return usage_error("--rounds T must be positive (got %d)", o->rounds);
  ProtoTrainOptions *run = &o->run;
  if (!cli_horizon_resolve(&o->rounds, &run->epochs, &run->batches, &error))
    return cli_fail("train", error, CLI_EXIT_USAGE);
  /* Defaults: one epoch; of T batches when -T alone is given. */
  if (run->epochs == CLI_UNSET)
    run->epochs = 1;
  if (run->batches == CLI_UNSET)
    run->batches = o->rounds != CLI_UNSET ? o->rounds : 1;
  return CLI_EXIT_OK;
}

/* The run's values and specs (proto_train_validate), the stream, the
 * gossip. */
static int validate_values(Options *o) {
  GError *error = NULL;
  o->run.protocol = o->protocol;
  o->run.seed = o->seed_text;
  o->run.mode = o->mode;
  o->run.latency = o->latency;
  o->run.loss = o->loss;
  ProtoAccountRefusal refusal;
  if (!proto_train_validate(&o->run, &refusal, &error)) {
    if (refusal != PROTO_REFUSED_RULE)
      return cli_fail("train", error, proto_refusal_status(error, refusal));
    int status = usage_error("%s", error->message);
    g_error_free(error);
    return status;
  }
  if (!cli_stream_options_check(&o->stream, &error)) {
    int status = usage_error("%s", error->message);
    g_clear_error(&error);
    return status;
  }
  if (!cli_graph_options_gossip(&o->graph, &o->run.gossip, &error))
    return cli_fail("train", error, CLI_EXIT_USAGE);
  return CLI_EXIT_OK;
}

/* The graph, the schedule, the privacy's plan, the run and its stream. */
static int plan(const Options *o, Train *t) {
  GError *error = NULL;
  guint64 seed = o->run.seed_value;
  /* Reading a large graph (the 10,000-node overlay) or dataset takes
   * seconds: the phase is named as they pass. */
  t->printer = cli_progress_new("train", o->quiet);
  cli_progress_phase(t->printer, "building the graph");
  if ((t->g = cli_graph_options_build(&o->graph, &error)) == NULL)
    return cli_fail("train", error, cli_graph_options_status(&o->graph, error));
  cli_progress_phase(t->printer, "setting up the run (schedule, dataset, models)");
  if (o->run.schedule != NULL && strcmp(o->run.schedule, "static") != 0 &&
      (t->sched = topo_schedule_new(o->run.schedule, t->g, o->run.gossip, seed, &error)) == NULL)
    return cli_fail("train", error, cli_error_status(error));
  ProtoAccountRequest r;
  proto_train_request(&o->run, &r);
  r.built_schedule = t->sched;
  gboolean usage;
  if ((t->priv = cli_train_privacy_plan(&r, t->g, &usage, &error)) == NULL)
    return cli_fail("train", error, usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
  const ProtoObserveOptions *observe = cli_train_privacy_observe(t->priv);
  ProtoRunConfig cfg;
  proto_train_run_config(&r, &o->run.task, t->g, t->sched, observe != NULL, &cfg);
  t->start = g_get_monotonic_time();
  if ((t->orun = proto_observed_run_new(&cfg, observe, &error)) == NULL) {
    if (observe != NULL && g_error_matches(error, PRIV_ERROR, PRIV_ERROR_MEMORY))
      g_prefix_error(&error, "privacy accounting (--trust none skips it): ");
    return cli_fail("train", error, cli_error_status(error));
  }
  t->run = proto_observed_run_proto(t->orun);
  /* The run reports its steps; a long one (the last step's evaluation of
   * every node) repeats its line meanwhile. */
  cli_progress_phase(t->printer, NULL);
  cli_progress_keepalive(t->printer);
  if (!cli_stream_options_enabled(&o->stream))
    return CLI_EXIT_OK;
  /* Attached before the run: the stream hears every transmission and the
   * runtime's round boundaries on the engine's bus. */
  char *json = scenario_json(&cfg, o->run.schedule);
  t->stream = cli_stream_start(&o->stream, "train", proto_run_engine(t->run), t->g, "train", seed,
                               proto_context_steps(proto_run_context(t->run)), json, &error);
  g_free(json);
  if (t->stream == NULL)
    return cli_fail("train", error, CLI_EXIT_FAILURE);
  proto_run_set_metrics_func(t->run, PROTO_METRICS_LAG_DEFAULT, cli_stream_publish_metrics,
                             t->stream);
  return CLI_EXIT_OK;
}

/* The run (SIGINT cancels it), the stream's end, the privacy accounting. */
static int execute(Train *t) {
  GError *error = NULL;
  TrainProgress progress = {t->printer, proto_context_steps(proto_run_context(t->run))};
  if (progress.printer != NULL)
    proto_run_set_progress(t->run, on_progress, &progress);
  cli_interrupt_set_run(t->run);
  gboolean ok = !cli_interrupted() && proto_observed_run_run(t->orun, &error);
  /* The accounting after the last step reports nothing of its own. */
  cli_progress_phase(t->printer, "after the last step: privacy accounting");
  if (!ok)
    g_clear_pointer(&t->printer, cli_progress_free); /* before the error */
  if (t->stream != NULL) {
    /* The metrics went out during the run (cli_stream_publish_metrics). */
    GError *stream_error = NULL;
    const char *how = ok ? "ok" : cli_interrupted() ? "interrupted" : "error";
    if (!cli_stream_end(t->stream, how, &stream_error) && ok)
      return cli_fail("train", stream_error, CLI_EXIT_FAILURE);
    g_clear_error(&stream_error);
  }
  if (!ok) {
    if (cli_interrupted() || g_error_matches(error, PROTO_ERROR, PROTO_ERROR_CANCELLED)) {
      g_clear_error(&error);
      fprintf(stderr, "dpgossip train: interrupted; no output written\n");
      return cli_interrupt_status();
    }
    return cli_fail("train", error, CLI_EXIT_FAILURE);
  }
  gboolean accounted = cli_train_privacy_account(t->priv, t->orun, &error);
  g_clear_pointer(&t->printer, cli_progress_free); /* its line ends before the output */
  if (!accounted) {
    if (g_error_matches(error, PRIV_ERROR, PRIV_ERROR_MEMORY))
      g_prefix_error(&error, "(--trust none skips the accounting) ");
    return cli_fail("train", error, CLI_EXIT_FAILURE);
  }
  return CLI_EXIT_OK;
}

/* The three tables, then the summary line on stdout. */
static int report(const Options *o, const Train *t) {
  GError *error = NULL;
  gsize n_rows = 0;
  const ProtoMetric *rows = proto_run_metrics(t->run, &n_rows);
  if (!write_tables(o->out, t->g, rows, n_rows, t->priv, o->run.seed_value, &error))
    return cli_fail("train", error, CLI_EXIT_FAILURE);
  ProtoRunStats st;
  proto_run_get_stats(t->run, &st);
  guint T = proto_context_steps(proto_run_context(t->run));
  /* Classification: the mean test accuracy at the last evaluation (T). */
  double acc = 0;
  guint n_acc = 0;
  for (gsize i = 0; i < n_rows; i++)
    if (rows[i].step == T && !isnan(rows[i].test_accuracy)) {
      acc += rows[i].test_accuracy;
      n_acc++;
    }
  char *acc_text = n_acc ? g_strdup_printf(", accuracy %.4g", acc / n_acc) : g_strdup("");
  char *priv_text = cli_train_privacy_summary(t->priv);
  double eps = cli_train_privacy_max_epsilon(t->priv);
  char *eps_text = isnan(eps) ? g_strdup("privacy not accounted (--trust none)")
                              : g_strdup_printf("epsilon up to %.4g at delta = %g", eps,
                                                cli_train_privacy_delta(t->priv));
  ProtoEvalSample sample;
  proto_run_eval_sample(t->run, &sample);
  char *sample_text = cli_eval_sample_text(&sample);
  if (sample_text != NULL)
    printf("train: %s\n", sample_text);
  g_free(sample_text);
  char *mean_path = sibling_path(o->out, "_mean.csv");
  char *priv_path = sibling_path(o->out, "_privacy.csv");
  printf("train: %s, %u nodes, %u rounds, final mean test loss %.6g%s, %s, simulated time "
         "%.3f s, %" G_GUINT64_FORMAT " messages, wall time %.2f s\n%stables: %s, %s, %s\n",
         o->run.nonprivate ? CLI_NONPRIVATE : proto_run_protocol(t->run)->name,
         proto_context_n_nodes(proto_run_context(t->run)), T, proto_run_mean_test_loss(t->run, T),
         acc_text, eps_text, st.sim_time / (double)SIM_TIME_S, st.engine.messages_sent,
         (g_get_monotonic_time() - t->start) / 1e6, priv_text, o->out, mean_path, priv_path);
  g_free(mean_path);
  g_free(priv_path);
  g_free(acc_text);
  g_free(eps_text);
  g_free(priv_text);
  return CLI_EXIT_OK;
}

/* --sigma, the plugins, the protocol's default, --list-protocols. */
static int validate_options(Options *o) {
  GError *error = NULL;
  if (!cli_number_option("--sigma", o->sigma_text, &o->run.sigma, &error) ||
      !cli_count_option("--eval-nodes", o->eval_nodes_text, &o->run.task.eval_nodes, &error) ||
      !cli_count_option("--eval-rows", o->eval_rows_text, &o->run.task.eval_rows, &error))
    return cli_fail("train", error, CLI_EXIT_USAGE);
  if (!cli_plugin_options_load(&o->plugins, &error))
    return cli_fail("train", error, CLI_EXIT_USAGE);
  if (o->protocol == NULL)
    o->protocol = g_strdup(o->plugins.single ? o->plugins.single : "dsgd");
  return CLI_EXIT_OK;
}

int cli_cmd_train(int argc, char **argv) {
  Options o = {.rounds = CLI_UNSET,
               .run = {.epochs = CLI_UNSET,
                       .batches = CLI_UNSET,
                       .threads = 1,
                       .lr = 0.1,
                       .sigma = NAN,
                       .clip = 1.0,
                       .task = {.test_fraction = LEARN_DEFAULT_TEST_FRACTION},
                       .gossip = TOPO_GOSSIP_UNIFORM,
                       .alpha = 2.0,
                       .delta = 1e-6}};
  Train t = {0};
  CliInterrupt saved = {0};
  int status = options_parse(&o, &argc, &argv) ? validate_options(&o) : CLI_EXIT_USAGE;
  if (status == CLI_EXIT_OK && o.list) {
    print_protocols();
    goto out;
  }
  if (status == CLI_EXIT_OK)
    status = validate_run(&o);
  if (status == CLI_EXIT_OK)
    status = validate_values(&o);
  if (status == CLI_EXIT_OK) {
    /* From here on, SIGINT or SIGTERM cancels the run (or the output
     * being written). */
    cli_interrupt_begin(&saved, NULL);
    status = plan(&o, &t);
  }
  if (status == CLI_EXIT_OK)
    status = execute(&t);
  if (status == CLI_EXIT_OK)
    status = report(&o, &t);
out:
  cli_progress_free(t.printer);
  cli_interrupt_end(&saved);
  cli_stream_free(t.stream);
  proto_observed_run_free(t.orun);
  cli_train_privacy_free(t.priv);
  topo_schedule_free(t.sched);
  topo_graph_free(t.g);
  options_clear(&o);
  return status;
}
