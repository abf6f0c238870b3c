/*
 * cli/cmd_train.c: `dpgossip train`: one decentralized training run (any
 * registered protocol, gossip mode, links) on a dataset, writing one CSV row
 * per (evaluated round, node): round, node, train_loss, test_loss,
 * test_accuracy (empty for regression). Training keeps no provenance
 * (storage SIM_LIN_NONE): accounting is `dpgossip account`'s job.
 *
 * The CSV is written to a temporary file next to --out and renamed at the
 * end, so a failed or interrupted run never leaves a file that looks
 * complete. A progress bar goes to stderr when stdout is a terminal; a
 * summary line ends the run on stdout.
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
#include "protocols/protocols.h"


/* What the SIGINT handler may touch: a run to cancel, a file to remove. */
static ProtoRun *volatile interrupt_run;
static char *volatile interrupt_tmp;
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
  if (interrupt_tmp != NULL) {
    /* Writing the output: drop the partial file and leave at once. */
    unlink(interrupt_tmp);
    _exit(130);
  }
  if (interrupt_run != NULL)
    proto_run_cancel(interrupt_run);
}

#define usage_error(...) cli_usage_error("train", __VA_ARGS__)

static void progress_bar(double fraction, gpointer data) {
  (void)data;
  int width = 40, filled = (int)(fraction * width + 0.5);
  fprintf(stderr, "\r[");
  for (int i = 0; i < width; i++)
    fputc(i < filled ? '#' : ' ', stderr);
  fprintf(stderr, "] %3d%%", (int)(fraction * 100.0 + 0.5));
  fflush(stderr);
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
}

/* Appends a number, or nothing for NAN (an empty CSV cell). */
static void append_value(GString *s, double x) {
  if (!isnan(x)) {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append(s, g_ascii_formatd(buf, sizeof buf, "%.10g", x));
  }
}

/* Writes the metrics through a temporary file renamed onto @path. */
static gboolean write_csv(const char *path, const ProtoMetric *rows, gsize n_rows,
                          GError **error) {
  GString *s = g_string_new("round,node,train_loss,test_loss,test_accuracy\n");
  for (gsize i = 0; i < n_rows; i++) {
    g_string_append_printf(s, "%u,%u,", rows[i].step, rows[i].node);
    append_value(s, rows[i].train_loss);
    g_string_append_c(s, ',');
    append_value(s, rows[i].test_loss);
    g_string_append_c(s, ',');
    append_value(s, rows[i].test_accuracy);
    g_string_append_c(s, '\n');
  }
  char *tmp = g_strdup_printf("%s.tmp-XXXXXX", path);
  int fd = g_mkstemp(tmp);
  gboolean ok = fd >= 0;
  if (ok) {
    interrupt_tmp = tmp;
    /* mkstemp makes the file private; give it the usual permissions. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
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
    ok = ok && g_rename(tmp, path) == 0;
    int saved = errno;
    if (!ok)
      g_unlink(tmp);
    interrupt_tmp = NULL;
    errno = saved;
  }
  if (!ok)
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot write %s: %s",
                path, g_strerror(errno));
  g_free(tmp);
  g_string_free(s, TRUE);
  return ok;
}

/* The run's settings for the stream's run start ("scenario" in docs/events.md). */
static char *scenario_json(const ProtoRunConfig *cfg, const char *schedule) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
#define JSTR(k, v)                                                                          \
  do {                                                                                     \
    json_builder_set_member_name(b, k);                                                    \
    if ((v) != NULL)                                                                       \
      json_builder_add_string_value(b, v);                                                 \
    else                                                                                   \
      json_builder_add_null_value(b);                                                      \
  } while (0)
#define JNUM(k, v)                                                                          \
  do {                                                                                     \
    json_builder_set_member_name(b, k);                                                    \
    json_builder_add_double_value(b, v);                                                   \
  } while (0)
  JSTR("protocol", cfg->protocol);
  JSTR("dataset", cfg->dataset);
  JSTR("model", cfg->model);
  JSTR("schedule", schedule != NULL ? schedule : "static");
  JSTR("mode", cfg->mode != NULL ? cfg->mode : "sync");
  JSTR("latency", cfg->latency);
  JSTR("loss", cfg->loss);
  JNUM("sigma", cfg->sigma);
  JNUM("clip", cfg->clip);
  JNUM("lr", cfg->lr);
  json_builder_set_member_name(b, "epochs");
  json_builder_add_int_value(b, cfg->epochs);
  json_builder_set_member_name(b, "batches");
  json_builder_add_int_value(b, cfg->batches);
  json_builder_set_member_name(b, "eval_every");
  json_builder_add_int_value(b, cfg->eval_every);
#undef JSTR
#undef JNUM
  json_builder_end_object(b);
  JsonNode *root = json_builder_get_root(b);
  char *text = sim_json_write(root, 0);
  json_node_unref(root);
  g_object_unref(b);
  return text;
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
       *loss = NULL, *out_path = NULL, *schedule = NULL, *partition = NULL;
  gint epochs = 1, batches = 1, eval_every = 0, threads = 1;
  gdouble lr = 0.1, sigma = 1.0, clip = 1.0, test_fraction = LEARN_DEFAULT_TEST_FRACTION,
          compute_ms = 0.0;
  guint64 seed = 0;
  char *seed_text = NULL;
  gboolean list = FALSE;
  GOptionEntry entries[] = {
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &protocol,
       "Protocol spec, default dsgd or the plugin's (see --list-protocols)", "SPEC"},
      {"list-protocols", 0, 0, G_OPTION_ARG_NONE, &list,
       "List the protocols and their parameters, then exit", NULL},
      {"schedule", 0, 0, G_OPTION_ARG_STRING, &schedule,
       "Time-varying gossip over the graph: static (default), matching, exponential, "
       "edge-failure:p=P, churn:...", "SPEC"},
      {"dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset,
       "Dataset (required): california:PATH, csv:PATH[,...], idx:DIR, synthetic:linear|logistic"
       "[,...]", "SPEC"},
      {"model", 'm', 0, G_OPTION_ARG_STRING, &model,
       "Model: linear, softmax, mlp[:hidden=H], cnn[:groups=G] (default linear or softmax by "
       "task)",
       "SPEC"},
      {"partition", 0, 0, G_OPTION_ARG_STRING, &partition,
       "Records to nodes: uniform (default), dirichlet:alpha=A, classes:k=K", "SPEC"},
      {"epochs", 'k', 0, G_OPTION_ARG_INT, &epochs, "Epochs k (default 1)", "K"},
      {"batches", 'b', 0, G_OPTION_ARG_INT, &batches,
       "Batches per node b (default 1); T = k*b local steps", "B"},
      {"lr", 0, 0, G_OPTION_ARG_DOUBLE, &lr, "Learning rate eta (default 0.1)", "ETA"},
      {"sigma", 0, 0, G_OPTION_ARG_DOUBLE, &sigma, "Noise multiplier sigma (default 1)", "S"},
      {"clip", 0, 0, G_OPTION_ARG_DOUBLE, &clip, "Per-example clipping norm Delta (default 1)",
       "D"},
      {"mode", 0, 0, G_OPTION_ARG_STRING, &mode,
       "Gossip mode: sync (default), deadline:ms=D, stale:s=S", "MODE"},
      {"latency", 0, 0, G_OPTION_ARG_STRING, &latency,
       "Link latency: constant:ms=X (default 0), uniform:min=A,max=B, lognormal:mu=M,sigma=S",
       "SPEC"},
      {"loss", 0, 0, G_OPTION_ARG_STRING, &loss,
       "Message loss probability (not with --mode sync)", "P"},
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
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, "Output CSV (required)", "FILE"},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx = g_option_context_new("- train a model with a decentralized protocol");
  cli_graph_options_add(ctx, &gopt);
  g_option_context_add_main_entries(ctx, entries, NULL);
  cli_plugin_options_add(ctx, &popt);
  cli_stream_options_add(ctx, &so);
  g_option_context_set_description(
      ctx, "Output: one CSV row per (evaluated round, node): round, node, train_loss (on the\n"
           "node's own records), test_loss, test_accuracy (empty for regression).\n"
           "\n"
           "Example (the paper's housing setup):\n"
           "  dpgossip train --graph facebook-ego-414-lcc.edges --protocol dsgd \\\n"
           "    --dataset california:cal_housing.data --model mlp:hidden=64 --epochs 20 \\\n"
           "    --batches 16 --lr 0.2 --sigma 1 --clip 1 --seed 1 --out results.csv\n");

  int status = CLI_EXIT_USAGE;
  TopoGraph *g = NULL;
  TopoSchedule *sched = NULL;
  ProtoRun *run = NULL;
  GError *error = NULL;
  TopoGossipKind kind = TOPO_GOSSIP_UNIFORM;
  struct sigaction old_action;
  gboolean handler = FALSE;

  if (!cli_parse(ctx, &argc, &argv))
    goto out;
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
    status = cli_fail("train", error,
                      error->domain == G_OPTION_ERROR ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
    goto out;
  }
  if (schedule != NULL && strcmp(schedule, "static") != 0) {
    sched = topo_schedule_new(schedule, g, kind, (guint64)seed, &error);
    if (sched == NULL) {
      status = cli_fail("train", error, CLI_EXIT_USAGE);
      goto out;
    }
  }

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
  cfg.storage = SIM_LIN_NONE;
  gint64 start = g_get_monotonic_time();
  run = proto_run_new(&cfg, &error);
  if (run == NULL) {
    status = cli_fail("train", error, CLI_EXIT_FAILURE);
    goto out;
  }

  if (cli_stream_options_enabled(&so)) {
    /* Attached before the run: the stream hears every transmission and the
     * runtime's round boundaries on the engine's bus. */
    char *json = scenario_json(&cfg, schedule);
    stream = cli_stream_start(&so, "train", proto_run_engine(run), g, "train", (guint64)seed,
                              proto_run_steps(run), json, &error);
    g_free(json);
    if (stream == NULL) {
      status = cli_fail("train", error, CLI_EXIT_FAILURE);
      goto out;
    }
    proto_run_set_metrics_func(run, PROTO_METRICS_LAG_DEFAULT, publish_metrics, stream);
  }

  gboolean tty = isatty(STDOUT_FILENO);
  if (tty)
    proto_run_set_progress(run, progress_bar, NULL);
  interrupt_run = run;
  gboolean ok = !interrupted && proto_run_run(run, &error);
  if (tty)
    fputc('\n', stderr);
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
  gsize n_rows = 0;
  const ProtoMetric *rows = proto_run_metrics(run, &n_rows);
  if (!write_csv(out_path, rows, n_rows, &error)) {
    status = cli_fail("train", error, CLI_EXIT_FAILURE);
    goto out;
  }
  ProtoRunStats st;
  proto_run_get_stats(run, &st);
  guint T = proto_run_steps(run);
  printf("train: %s, %u nodes, %u rounds, final mean test loss %.6g, simulated time %.3f s, "
         "%" G_GUINT64_FORMAT " messages, wall time %.2f s\n",
         proto_run_protocol(run)->name, proto_run_n_nodes(run), T,
         proto_run_mean_test_loss(run, T), st.sim_time / (double)SIM_TIME_S,
         st.engine.messages_sent, (g_get_monotonic_time() - start) / 1e6);
  status = CLI_EXIT_OK;
out:
  if (handler)
    sigaction(SIGINT, &old_action, NULL);
  interrupt_run = NULL;
  cli_stream_free(stream);
  proto_run_free(run);
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
  cli_graph_options_clear(&gopt);
  cli_plugin_options_clear(&popt);
  cli_stream_options_clear(&so);
  g_option_context_free(ctx);
  return status;
}
