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
#include <signal.h>
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

/* What the SIGINT handler may touch: a run to cancel, a file to remove. */
static ProtoRun *volatile interrupt_run;
static char *volatile interrupt_tmp[3];
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
  if (interrupt_tmp[0] != NULL) {
    /* Writing the output: drop the partial files and leave at once. */
    for (int i = 0; i < 3; i++)
      if (interrupt_tmp[i] != NULL)
        unlink(interrupt_tmp[i]);
    _exit(130);
  }
  if (interrupt_run != NULL)
    proto_run_cancel(interrupt_run);
}

#define usage_error(...) cli_usage_error("train", __VA_ARGS__)

/* The runtime reports each percent of the steps (proto_run_set_progress). */
typedef struct {
  CliProgress *printer;
  guint steps;
} TrainProgress;

static void on_progress(double fraction, gpointer data) {
  TrainProgress *tp = data;
  cli_progress_update(tp->printer, (guint64)llround(fraction * tp->steps), tp->steps, "steps");
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
static gboolean write_tables(const char *path, const ProtoMetric *rows, gsize n_rows,
                             const CliTrainPrivacy *priv, guint64 seed, GError **error) {
  char *paths[3] = {sibling_path(path, "_privacy.csv"), sibling_path(path, "_mean.csv"),
                    g_strdup(path)};
  GString *text[3] = {g_string_new(SCEN_PRIVACY_CSV_COLUMNS "\n"),
                      g_string_new(SCEN_METRICS_MEAN_CSV_COLUMNS "\n"),
                      g_string_new(SCEN_METRICS_CSV_COLUMNS "\n")};
  cli_train_privacy_csv_rows(priv, text[0]);
  scen_metrics_csv_rows(text[2], text[1], seed, rows, n_rows);
  char *tmp[3] = {NULL, NULL, NULL};
  guint failed = 3; /* the table that failed */
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < 3; i++) {
    ok = write_tmp(paths[i], text[i], &tmp[i]);
    interrupt_tmp[i] = tmp[i];
    failed = ok ? failed : i;
  }
  for (guint i = 0; ok && i < 3; i++) {
    ok = g_rename(tmp[i], paths[i]) == 0;
    failed = ok ? failed : i;
    if (ok) {
      interrupt_tmp[i] = NULL;
      g_clear_pointer(&tmp[i], g_free);
    }
  }
  int saved = errno;
  for (guint i = 0; i < 3; i++) {
    if (tmp[i] != NULL)
      g_unlink(tmp[i]);
    interrupt_tmp[i] = NULL;
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

/* Each evaluation step as one metric event, while the run goes on. */
static gboolean publish_metrics(ProtoRun *run, SimTime t, guint step, const ProtoMetric *rows,
                                guint n_nodes, gpointer data, GError **error) {
  (void)run;
  (void)step;
  return cli_stream_publish_metric_rows(data, t, rows, n_nodes, error);
}

/* Spec errors are the user's options: exit status 2, as for bad flags. */
static gboolean check_specs(const char *protocol, const char *mode, const char *latency,
                            const char *loss, GError **error) {
  const ProtoVTable *vt;
  ProtoParams *params = NULL;
  ProtoMode m;
  SimLatency lat;
  double p;
  if (!proto_spec_parse(protocol, &vt, &params, error))
    return FALSE;
  proto_params_free(params);
  if (!proto_mode_parse(mode, &m, error))
    return FALSE;
  if (latency != NULL && !sim_latency_parse(latency, &lat, error)) {
    g_prefix_error(error, "--latency: ");
    return FALSE;
  }
  if (loss != NULL && !sim_loss_parse(loss, &p, error)) {
    g_prefix_error(error, "--loss: ");
    return FALSE;
  }
  return TRUE;
}

int cli_cmd_train(int argc, char **argv) {
  CliGraphOptions gopt = {0};
  CliPluginOptions popt = {0};
  CliStreamOptions so = {0};
  CliStream *stream = NULL;
  char *protocol = NULL, *dataset = NULL, *model = NULL, *mode = NULL, *latency = NULL,
       *loss = NULL, *out_path = NULL, *schedule = NULL, *trust = NULL, *partition = NULL;
  char **attackers = NULL;
  gdouble alpha = 2.0, delta = 1e-6;
  gint epochs = CLI_UNSET, batches = CLI_UNSET, rounds = CLI_UNSET, eval_every = 0, threads = 1;
  gdouble lr = 0.1, sigma = NAN, clip = 1.0, test_fraction = LEARN_DEFAULT_TEST_FRACTION,
          compute_ms = 0.0;
  guint64 seed = 0;
  char *seed_text = NULL, *sigma_text = NULL;
  gboolean list = FALSE, quiet = FALSE;
  GOptionEntry entries[] = {
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &protocol,
       "Protocol spec, default dsgd or the plugin's (see --list-protocols); nonprivate: "
       "dsgd without noise",
       "SPEC"},
      {"list-protocols", 0, 0, G_OPTION_ARG_NONE, &list,
       "List the protocols and their parameters, then exit", NULL},
      {"schedule", 0, 0, G_OPTION_ARG_STRING, &schedule,
       "Time-varying gossip over the graph: static (default), matching, exponential, "
       "edge-failure:p=P, churn:...",
       "SPEC"},
      {"dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset,
       "Dataset (required): california:PATH, csv:PATH[,...], idx:DIR, synthetic:linear|logistic"
       "[,...]",
       "SPEC"},
      {"model", 'm', 0, G_OPTION_ARG_STRING, &model,
       "Model: linear, softmax, mlp[:hidden=H], cnn[:groups=G] (default linear or softmax by "
       "task)",
       "SPEC"},
      {"partition", 0, 0, G_OPTION_ARG_STRING, &partition,
       "Records to nodes: uniform (default), dirichlet:alpha=A, classes:k=K", "SPEC"},
      {"epochs", 'k', 0, G_OPTION_ARG_INT, &epochs, "Epochs k (default 1)", "K"},
      {"batches", 'b', 0, G_OPTION_ARG_INT, &batches,
       "Batches per node b (default 1); T = k*b local steps", "B"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &rounds,
       "Local steps T = k*b: with -k or -b, the other is derived (alone: one epoch of T "
       "batches)",
       "T"},
      {"lr", 0, 0, G_OPTION_ARG_DOUBLE, &lr, "Learning rate eta (default 0.1)", "ETA"},
      {"sigma", 0, 0, G_OPTION_ARG_STRING, &sigma_text, "Noise multiplier sigma (default 1)", "S"},
      {"clip", 0, 0, G_OPTION_ARG_DOUBLE, &clip, "Per-example clipping norm Delta (default 1)",
       "D"},
      {"mode", 0, 0, G_OPTION_ARG_STRING, &mode,
       "Gossip mode: sync (default), deadline:ms=D, stale:s=S", "MODE"},
      {"latency", 0, 0, G_OPTION_ARG_STRING, &latency,
       "Link latency: constant:ms=X (default 0), uniform:min=A,max=B, lognormal:mu=M,sigma=S, "
       "links:file=PATH,unit=ms|s, country:rtt=PATH,seed=S[,intra=PATH]",
       "SPEC"},
      {"loss", 0, 0, G_OPTION_ARG_STRING, &loss, "Message loss probability (not with --mode sync)",
       "P"},
      {"compute-ms", 0, 0, G_OPTION_ARG_DOUBLE, &compute_ms,
       "Local compute time per step in ms (default 0)", "MS"},
      {"eval-every", 0, 0, G_OPTION_ARG_INT, &eval_every,
       "Evaluate every N steps (and at the end; default: at the end only)", "N"},
      {"test-fraction", 0, 0, G_OPTION_ARG_DOUBLE, &test_fraction,
       "Fraction of the records held out for testing, in (0, 1) (default 0.2)", "F"},
      {"seed", 's', 0, G_OPTION_ARG_STRING, &seed_text, "Seed of every random choice (default 0)",
       "N"},
      {"threads", 'j', 0, G_OPTION_ARG_INT, &threads,
       "Evaluation threads (default 1; results do not depend on it)", "N"},
      {"trust", 0, 0, G_OPTION_ARG_STRING, &trust,
       "Privacy reported per node: ldp (default: every node), pndp or secldp (need "
       "--attackers), a comma-separated list, or none (no accounting: its time and memory "
       "saved)",
       "MODEL"},
      {"attackers", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &attackers,
       "Attacker sets of the privacy columns, as for dpgossip account: 0,5 (each alone) or "
       "0+5 (a collusion set); repeatable",
       "IDS"},
      {"delta", 0, 0, G_OPTION_ARG_DOUBLE, &delta, "delta of the epsilon column (default 1e-6)",
       "DELTA"},
      {"alpha", 0, 0, G_OPTION_ARG_DOUBLE, &alpha, "Renyi order used by the accounting (default 2)",
       "ALPHA"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out_path,
       "Output CSV of the metrics (required); FILE_mean.csv and FILE_privacy.csv beside it",
       "FILE"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
       "No progress line (on a terminal: refreshed; elsewhere: every 10 s)", NULL},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx = g_option_context_new("- train a model with a decentralized protocol");
  cli_graph_options_add(ctx, &gopt);
  g_option_context_add_main_entries(ctx, entries, NULL);
  cli_plugin_options_add(ctx, &popt);
  cli_stream_options_add(ctx, &so);
  cli_stream_options_add_pace(ctx, &so);
  g_option_context_set_description(
      ctx, "Output: three CSV tables. FILE: one row per (evaluated round, node): round,\n"
           "node, train_loss (on the node's own records), test_loss, test_accuracy (empty\n"
           "for regression), seed. FILE_mean.csv: one row per evaluated round, the means\n"
           "over the nodes. FILE_privacy.csv: one row per accounting (--trust x\n"
           "--attackers; default: LDP of every node) and victim, the guarantee for the\n"
           "whole run as dpgossip account --format csv writes it: collusion, trust,\n"
           "victim, distance, sensitivity, mu (mu-GDP), rdp, epsilon at delta,\n"
           "muffliato_rdp, status (protected, unprotected, unresolved), attackers, alpha,\n"
           "delta, path, seed. FILE's .csv is dropped before _mean.csv and _privacy.csv.\n"
           "The summary line gives the range of epsilon and says when it offers no\n"
           "meaningful protection.\n"
           "\n"
           "Example (the paper's housing setup):\n"
           "  dpgossip train --graph facebook-ego-414-lcc.edges --protocol dsgd \\\n"
           "    --dataset california:cal_housing.data --model mlp:hidden=64 --epochs 20 \\\n"
           "    --batches 16 --lr 0.2 --sigma 1 --clip 1 --seed 1 --out results.csv\n");

  int status = CLI_EXIT_USAGE;
  TopoGraph *g = NULL;
  TopoSchedule *sched = NULL;
  ProtoRun *run = NULL;
  ProtoObservedRun *orun = NULL;
  CliTrainPrivacy *priv = NULL;
  GError *error = NULL;
  TopoGossipKind kind = TOPO_GOSSIP_UNIFORM;
  struct sigaction old_action;
  gboolean handler = FALSE;

  if (!cli_parse(ctx, &argc, &argv))
    goto out;
  if (!cli_number_option("--sigma", sigma_text, &sigma, &error)) {
    status = cli_fail("train", error, CLI_EXIT_USAGE);
    goto out;
  }
  if (!cli_plugin_options_load(&popt, &error)) {
    status = cli_fail("train", error, CLI_EXIT_USAGE);
    goto out;
  }
  if (protocol == NULL)
    protocol = g_strdup(popt.single ? popt.single : "dsgd");
  if (list) {
    print_protocols();
    status = CLI_EXIT_OK;
    goto out;
  }
  if (dataset == NULL) {
    status = usage_error("--dataset is required");
    goto out;
  }
  if (out_path == NULL) {
    status = usage_error("--out is required");
    goto out;
  }
  /* Before the training: a run is no use if its CSV cannot be written. */
  if (!cli_output_check("--out", out_path, FALSE, &error)) {
    status = cli_fail("train", error, CLI_EXIT_FAILURE);
    goto out;
  }
  if (rounds != CLI_UNSET && rounds <= 0) {
    status = usage_error("--rounds T must be positive (got %d)", rounds);
    goto out;
  }
  if (!cli_horizon_resolve(&rounds, &epochs, &batches, &error)) {
    status = cli_fail("train", error, CLI_EXIT_USAGE);
    goto out;
  }
  /* Defaults: one epoch; of T batches when -T alone is given. */
  if (epochs == CLI_UNSET)
    epochs = 1;
  if (batches == CLI_UNSET)
    batches = rounds != CLI_UNSET ? rounds : 1;
  if (epochs <= 0 || batches <= 0 || (guint64)epochs * (guint64)batches > G_MAXINT32) {
    status = usage_error("--epochs and --batches must be positive (got %d and %d)", epochs,
                         batches);
    goto out;
  }
  if (eval_every < 0 || threads <= 0) {
    status = usage_error("--eval-every must be >= 0 and --threads >= 1");
    goto out;
  }
  /* GLib's int64 option would turn -1 into 2^64 - 1. */
  if (seed_text != NULL &&
      !g_ascii_string_to_unsigned(seed_text, 10, 0, G_MAXUINT64, &seed, NULL)) {
    status = usage_error("--seed: '%s' is not an integer in [0, 2^64 - 1]", seed_text);
    goto out;
  }
  /* An empty test set makes every test loss NaN: refuse it rather than
   * report "nan" as a result. */
  if (!(test_fraction > 0.0 && test_fraction < 1.0)) {
    status = usage_error("--test-fraction must be in (0, 1) (got %g): the test loss needs test "
                         "records",
                         test_fraction);
    goto out;
  }
  if (!cli_stream_options_check(&so, &error)) {
    status = usage_error("%s", error->message);
    g_clear_error(&error);
    goto out;
  }
  gboolean nonprivate = cli_is_nonprivate(protocol);
  if (nonprivate && !isnan(sigma) && sigma != 0) {
    status = usage_error("--protocol nonprivate adds no noise: drop --sigma %g", sigma);
    goto out;
  }
  if (nonprivate) {
    g_free(protocol);
    protocol = g_strdup("dsgd");
    sigma = 0.0;
  } else if (isnan(sigma)) {
    sigma = 1.0;
  }
  /* Checked here, not by the runtime, so that a bad value is a usage error
   * (exit status 2) like a bad flag. */
  if (!(isfinite(sigma) && sigma >= 0) || !(isfinite(clip) && clip > 0) ||
      !(isfinite(lr) && lr > 0) || !(isfinite(compute_ms) && compute_ms >= 0)) {
    status = usage_error("--sigma must be >= 0, --clip and --lr > 0, --compute-ms >= 0, all "
                         "finite (got %g, %g, %g, %g)",
                         sigma, clip, lr, compute_ms);
    goto out;
  }
  if (!check_specs(protocol, mode, latency, loss, &error) ||
      !cli_graph_options_gossip(&gopt, &kind, &error)) {
    status = cli_fail("train", error, CLI_EXIT_USAGE);
    goto out;
  }
  /* From here on, SIGINT cancels the run (or the output being written). */
  struct sigaction action = {0};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  interrupted = 0;
  handler = sigaction(SIGINT, &action, &old_action) == 0;
  g = cli_graph_options_build(&gopt, &error);
  if (g == NULL) {
    status = cli_fail("train", error, cli_graph_options_status(&gopt, error));
    goto out;
  }
  if (schedule != NULL && strcmp(schedule, "static") != 0) {
    sched = topo_schedule_new(schedule, g, kind, (guint64)seed, &error);
    if (sched == NULL) {
      status = cli_fail("train", error, cli_error_status(error));
      goto out;
    }
  }

  CliTrainPrivacyConfig pc = {.protocol = protocol,
                              .graph = g,
                              .schedule = schedule,
                              .gossip = kind,
                              .mode = mode,
                              .latency = latency,
                              .loss = loss,
                              .sigma = sigma,
                              .clip = clip,
                              .T = (guint)(epochs * batches),
                              .b = (guint)batches,
                              .seed = seed,
                              .trust = trust,
                              .attackers = (const char *const *)attackers,
                              .alpha = alpha,
                              .delta = delta};
  priv = cli_train_privacy_plan(&pc, &error);
  if (priv == NULL) {
    status = cli_fail("train", error,
                      error->domain == G_OPTION_ERROR || error->domain == PROTO_ERROR
                          ? CLI_EXIT_USAGE
                          : CLI_EXIT_FAILURE);
    goto out;
  }
  const ProtoObserveOptions *observe = cli_train_privacy_observe(priv);

  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = sched ? NULL : g;
  cfg.schedule = sched;
  cfg.gossip = kind;
  cfg.protocol = protocol;
  cfg.sigma = sigma;
  cfg.clip = clip;
  cfg.lr = lr;
  cfg.epochs = (guint)epochs;
  cfg.batches = (guint)batches;
  cfg.mode = mode;
  cfg.latency = latency;
  cfg.loss = loss;
  cfg.compute_ms = compute_ms;
  cfg.seed = (guint64)seed;
  cfg.dataset = dataset;
  cfg.model = model;
  cfg.partition = partition;
  cfg.test_fraction = test_fraction;
  cfg.eval_every = (guint)eval_every;
  cfg.threads = (guint)threads;
  cfg.storage = observe != NULL ? SIM_LIN_SPARSE : SIM_LIN_NONE;
  gint64 start = g_get_monotonic_time();
  orun = proto_observed_run_new(&cfg, observe, &error);
  if (orun == NULL) {
    if (observe != NULL && g_error_matches(error, PRIV_ERROR, PRIV_ERROR_MEMORY))
      g_prefix_error(&error, "privacy accounting (--trust none skips it): ");
    status = cli_fail("train", error, cli_error_status(error));
    goto out;
  }
  run = proto_observed_run_proto(orun);

  if (cli_stream_options_enabled(&so)) {
    /* Attached before the run: the stream hears every transmission and the
     * runtime's round boundaries on the engine's bus. */
    char *json = scenario_json(&cfg, schedule);
    stream = cli_stream_start(&so, "train", proto_run_engine(run), g, "train", (guint64)seed,
                              proto_context_steps(proto_run_context(run)), json, &error);
    g_free(json);
    if (stream == NULL) {
      status = cli_fail("train", error, CLI_EXIT_FAILURE);
      goto out;
    }
    proto_run_set_metrics_func(run, PROTO_METRICS_LAG_DEFAULT, publish_metrics, stream);
  }

  TrainProgress progress = {cli_progress_new("train", quiet),
                            proto_context_steps(proto_run_context(run))};
  if (progress.printer != NULL)
    proto_run_set_progress(run, on_progress, &progress);
  interrupt_run = run;
  gboolean ok = !interrupted && proto_observed_run_run(orun, &error);
  cli_progress_free(progress.printer);
  if (stream != NULL) {
    /* The metrics went out during the run (publish_metrics). */
    GError *stream_error = NULL;
    const char *how = ok ? "ok" : interrupted ? "interrupted" : "error";
    if (!cli_stream_end(stream, how, &stream_error) && ok) {
      status = cli_fail("train", stream_error, CLI_EXIT_FAILURE);
      goto out;
    }
    g_clear_error(&stream_error);
  }
  if (!ok) {
    if (interrupted || g_error_matches(error, PROTO_ERROR, PROTO_ERROR_CANCELLED)) {
      g_clear_error(&error);
      fprintf(stderr, "dpgossip train: interrupted; no output written\n");
      status = 130;
    } else {
      status = cli_fail("train", error, CLI_EXIT_FAILURE);
    }
    goto out;
  }
  if (!cli_train_privacy_account(priv, orun, &error)) {
    if (g_error_matches(error, PRIV_ERROR, PRIV_ERROR_MEMORY))
      g_prefix_error(&error, "(--trust none skips the accounting) ");
    status = cli_fail("train", error, CLI_EXIT_FAILURE);
    goto out;
  }
  gsize n_rows = 0;
  const ProtoMetric *rows = proto_run_metrics(run, &n_rows);
  if (!write_tables(out_path, rows, n_rows, priv, seed, &error)) {
    status = cli_fail("train", error, CLI_EXIT_FAILURE);
    goto out;
  }
  ProtoRunStats st;
  proto_run_get_stats(run, &st);
  guint T = proto_context_steps(proto_run_context(run));
  /* Classification: the mean test accuracy at the last evaluation (T). */
  double acc = 0;
  guint n_acc = 0;
  for (gsize i = 0; i < n_rows; i++)
    if (rows[i].step == T && !isnan(rows[i].test_accuracy)) {
      acc += rows[i].test_accuracy;
      n_acc++;
    }
  char *acc_text = n_acc ? g_strdup_printf(", accuracy %.4g", acc / n_acc) : g_strdup("");
  char *priv_text = cli_train_privacy_summary(priv);
  double eps = cli_train_privacy_max_epsilon(priv);
  char *eps_text = isnan(eps) ? g_strdup("privacy not accounted (--trust none)")
                              : g_strdup_printf("epsilon up to %.4g at delta = %g", eps,
                                                cli_train_privacy_delta(priv));
  char *mean_path = sibling_path(out_path, "_mean.csv");
  char *priv_path = sibling_path(out_path, "_privacy.csv");
  printf("train: %s, %u nodes, %u rounds, final mean test loss %.6g%s, %s, simulated time "
         "%.3f s, %" G_GUINT64_FORMAT " messages, wall time %.2f s\n%stables: %s, %s, %s\n",
         nonprivate ? CLI_NONPRIVATE : proto_run_protocol(run)->name,
         proto_context_n_nodes(proto_run_context(run)), T, proto_run_mean_test_loss(run, T),
         acc_text, eps_text, st.sim_time / (double)SIM_TIME_S, st.engine.messages_sent,
         (g_get_monotonic_time() - start) / 1e6, priv_text, out_path, mean_path, priv_path);
  g_free(mean_path);
  g_free(priv_path);
  g_free(acc_text);
  g_free(eps_text);
  g_free(priv_text);
  status = CLI_EXIT_OK;
out:
  if (handler)
    sigaction(SIGINT, &old_action, NULL);
  interrupt_run = NULL;
  cli_stream_free(stream);
  proto_observed_run_free(orun);
  cli_train_privacy_free(priv);
  topo_schedule_free(sched);
  topo_graph_free(g);
  g_free(protocol);
  g_free(dataset);
  g_free(model);
  g_free(partition);
  g_free(mode);
  g_free(latency);
  g_free(loss);
  g_free(out_path);
  g_free(seed_text);
  g_free(schedule);
  g_free(sigma_text);
  g_free(trust);
  g_strfreev(attackers);
  cli_graph_options_clear(&gopt);
  cli_plugin_options_clear(&popt);
  cli_stream_options_clear(&so);
  g_option_context_free(ctx);
  return status;
}
