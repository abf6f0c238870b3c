/*
 * cli/cli.h: internal to the dpgossip command. Each subcommand lives in
 * cli/cmd_<name>.c and is registered in cli/main.c.
 *
 * Exit statuses, one policy for every command (docs/guide.md "Commands",
 * `dpgossip help`): 0 success; 1 the run failed (a file that cannot be read
 * or written or does not parse, a numerical failure, a stalled run); 2 a
 * usage error (an unknown option or command, a missing or bad option value,
 * a spec that does not parse or names nothing known, a node id out of
 * range: what the command checks before any work); 130 interrupted (SIGINT);
 * 143 stopped by SIGTERM (run, which resumes like after a Ctrl-C).
 */
#ifndef DPG_CLI_H
#define DPG_CLI_H

#include <signal.h>
#include <stdio.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "protocols/protocols.h"
#include "sim/sim.h"
#include "stream/stream.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2 };

/* A subcommand: argv[0] is the subcommand's name. Returns an exit status. */
typedef int (*CliCommandFunc)(int argc, char **argv);

int cli_cmd_graph(int argc, char **argv);
int cli_cmd_demo(int argc, char **argv);
int cli_cmd_mafalda(int argc, char **argv);
int cli_cmd_account(int argc, char **argv);
int cli_cmd_audit(int argc, char **argv);
int cli_cmd_train(int argc, char **argv);
int cli_cmd_viz(int argc, char **argv);
int cli_cmd_replay(int argc, char **argv);
int cli_cmd_figure(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_protocols(int argc, char **argv);
/* cli_run_print_summary: after `run`, a few lines read back from @out_dir's files. */
void cli_run_print_summary(const char *out_dir);
/* cli_run_graph_notice: after `run`, one line on stderr when loading the graph
 * file dropped self-loops or duplicate edges or renumbered its labels, as
 * @out_dir's summary.json (a sweep: its first point's) records it. */
void cli_run_graph_notice(const char *out_dir);

/* ---- MPI (cli/mpi_options.c) ----
 * cli_mpi_join: under mpirun or srun (ranks_launcher_size > 1) joins the
 * MPI job; ranks other than 0 then print nothing (stdout and stderr to
 * /dev/null: rank 0 reports for all). Returns FALSE after printing why
 * ("dpgossip CMD: ...") when this binary was built without MPI (it would
 * run as N copies) or MPI cannot start. *@mpi: joined (call
 * ranks_finalize before exiting). */
gboolean cli_mpi_join(const char *cmd, gboolean *mpi, guint *rank, guint *size, guint *local);
/* --rank-logs DIR: opens DIR/rank-R.log (also the stderr of ranks other
 * than 0), or prints why not and returns NULL. */
FILE *cli_mpi_rank_log(const char *cmd, const char *dir, guint rank);

/* ---- Graph options shared by every subcommand that takes a graph ---- */

typedef struct {
  char *graph_path;        /* --graph FILE */
  char *generate;          /* --generate SPEC */
  gboolean lcc;            /* --lcc */
  char *gossip;            /* --gossip uniform|metropolis|maxdegree (default uniform) */
  char *format;            /* --graph-format auto|edges|csv|graphml|gml|pajek (default auto) */
  gboolean ignore_weights; /* --ignore-weights: load a weighted file's structure */
} CliGraphOptions;

/* Adds --graph, --graph-format, --ignore-weights, --generate, --lcc and
 * --gossip to @ctx as its main group (which does not own @o). */
void cli_graph_options_add(GOptionContext *ctx, CliGraphOptions *o);
/* The graph the options name (topo_graph_from_source, where the library's
 * DpgGraphSpec lands too), with cli_graph_load_notice for a file. Errors:
 * those of topo_graph_from_source. */
TopoGraph *cli_graph_options_build(const CliGraphOptions *o, GError **error);
gboolean cli_graph_options_gossip(const CliGraphOptions *o, TopoGossipKind *kind, GError **error);
/* One line on stderr, "dpgossip: PATH: dropped ...; labels renumbered ...",
 * when loading @g from @path dropped self-loops or duplicate edges or
 * renumbered its labels (topo_graph_load_report); nothing otherwise, or for a
 * graph not loaded from a file. cli_graph_options_build calls it. */
void cli_graph_load_notice(const char *path, const TopoGraph *g);
/* How messages name the graph: the --graph file or the --generate spec. */
const char *cli_graph_options_label(const CliGraphOptions *o);
/* The exit status of a cli_graph_options_build error: a file that cannot be
 * read or parsed is a failed run (1), a bad --generate spec or --gossip a
 * usage error (2). */
int cli_graph_options_status(const CliGraphOptions *o, const GError *e);
void cli_graph_options_clear(CliGraphOptions *o);

/* ---- Options that mean the same in every command: one text each ----
 * Each expands to one GOptionEntry storing into @var (a pointer to the
 * command's variable, of the type the entry's G_OPTION_ARG says). */

/* -q: cli_progress_new's @quiet (run adds that it prints no summary). */
#define CLI_QUIET_HELP "No progress line (on a terminal: refreshed; elsewhere: every 10 s)"
#define CLI_OPTION_QUIET(var) {"quiet", 'q', 0, G_OPTION_ARG_NONE, (var), CLI_QUIET_HELP, NULL}
/* Delta: each example's gradient clipped to this norm (a double). */
#define CLI_OPTION_CLIP(var)                                                                       \
  {"clip", 0, 0, G_OPTION_ARG_DOUBLE, (var),                                                       \
   "Per-example gradient clipping norm Delta (default 1)", "DELTA"}
/* alpha of the reported Renyi DP (a double). */
#define CLI_OPTION_ALPHA(var)                                                                      \
  {"alpha", 0, 0, G_OPTION_ARG_DOUBLE, (var), "Renyi order alpha of the RDP reported (default 2)", \
   "ALPHA"}
/* delta of the reported (epsilon, delta) guarantee (a double). */
#define CLI_OPTION_DELTA(var)                                                                      \
  {"delta", 0, 0, G_OPTION_ARG_DOUBLE, (var), "delta of the epsilon column (default 1e-6)",        \
   "DELTA"}
/* --radius of --path local (an int; the request's radius). */
#define CLI_OPTION_RADIUS(var)                                                                     \
  {"radius", 0, 0, G_OPTION_ARG_INT, (var),                                                        \
   "--path local: hops around the attackers whose victims are bounded (>= 1); every node "         \
   "farther away colludes with the attackers",                                                     \
   "R"}
/* The gossip modes proto_mode_parse reads, for --mode's help. */
#define CLI_MODE_GRAMMAR "sync (default), deadline:ms=D or stale:s=S"
/* --mode, --latency and --loss: the network of the run a command simulates
 * (strings as typed, checked by the request or the run), each help text
 * after @where, e.g. "Observer path: " (a string literal). Three entries. */
#define CLI_OPTIONS_NETWORK(where, mode, latency, loss)                                            \
  {"mode", 0, 0, G_OPTION_ARG_STRING, (mode), where "gossip mode " CLI_MODE_GRAMMAR, "MODE"},      \
  {"latency", 0, 0, G_OPTION_ARG_STRING, (latency), where "link latency " SIM_LATENCY_GRAMMAR,     \
   "SPEC"},                                                                                        \
  {"loss", 0, 0, G_OPTION_ARG_STRING, (loss),                                                      \
   where "message loss probability (needs an asynchronous --mode)", "P"}

/* --schedule: time-varying gossip (topo_schedule_new's spec, a string); its
 * help lists the schedule table's kinds (cli_schedule_help). */
#define CLI_OPTION_SCHEDULE(var)                                                                   \
  {"schedule", 0, 0, G_OPTION_ARG_STRING, (var), cli_schedule_help(NULL), "SPEC"}

/* cli_schedule_help: "Time-varying gossip over the graph (default static): "
 * and every kind of topologies/'s schedule table (topo_schedule_kinds_text),
 * then "; @tail" when @tail is not NULL. An interned string: never freed. */
const char *cli_schedule_help(const char *tail);

/* cli_protocols_help: @head, the names of the protocol registry
 * (proto_registry_names), then @tail. An interned string: never freed. */
const char *cli_protocols_help(const char *head, const char *tail);

/* cli_trust_help: @head, the names of privacy/'s trust table joined by @sep
 * and, before the last, @last (priv_trust_list), then @tail: a --trust help
 * that lists every model of the table. An interned string: never freed. */
const char *cli_trust_help(const char *head, const char *sep, const char *last, const char *tail);
/* -d, -m and --partition: the learning task of a training run, into the
 * ProtoTrainTask @task (GOption's copies of the strings). Three entries. */
#define CLI_OPTIONS_TASK(task)                                                                     \
  {"dataset", 'd', 0, G_OPTION_ARG_STRING, &(task)->dataset,                                       \
   "Dataset (required): california:PATH, csv:PATH[,target=COL][,header=auto|yes|no]"               \
   "[,classes=N|auto][,standardize=yes|no|all] (target: the last column unless named or "          \
   "numbered; classes=0, the default: regression), idx:DIR, synthetic:linear|logistic[,...]",      \
   "SPEC"},                                                                                        \
  {"model", 'm', 0, G_OPTION_ARG_STRING, &(task)->model,                                           \
   "Model: linear, softmax, mlp[:hidden=H], cnn[:groups=G] (default linear or softmax by "         \
   "task)",                                                                                        \
   "SPEC"},                                                                                        \
  {"partition", 0, 0, G_OPTION_ARG_STRING, &(task)->partition,                                     \
   "Records to nodes: uniform (default), dirichlet:alpha=A, classes:k=K", "SPEC"}
/* --test-fraction of the ProtoTrainTask @task. */
#define CLI_OPTION_TEST_FRACTION(task)                                                             \
  {"test-fraction", 0, 0, G_OPTION_ARG_DOUBLE, &(task)->test_fraction,                             \
   "Fraction of the records held out for testing, in (0, 1) (default 0.2)", "F"}
/* -k of a training run (an int, default 1) and its learning rate (a double). */
#define CLI_OPTION_EPOCHS(var)                                                                     \
  {"epochs", 'k', 0, G_OPTION_ARG_INT, (var), "Epochs k (default 1)", "K"}
#define CLI_OPTION_LR(var)                                                                         \
  {"lr", 0, 0, G_OPTION_ARG_DOUBLE, (var), "Learning rate eta (default 0.1)", "ETA"}

/* ---- nonprivate: D-SGD without noise, the baseline every figure compares with ----
 * Scenarios run it (protocol.name = nonprivate); `train`, `account` and
 * `protocols` know it under the same name: dsgd with sigma = 0, whose
 * accounting is no protection at all (mu = inf). */
#define CLI_NONPRIVATE PROTO_NONPRIVATE
#define CLI_NONPRIVATE_SUMMARY                                                                     \
  "D-SGD without noise (dsgd with sigma = 0): the non-private baseline; no protection, "           \
  "mu = inf"
/* TRUE when @spec names nonprivate (it takes no parameter). */
gboolean cli_is_nonprivate(const char *spec);
/* cli_number_option: the number @text that @option (e.g. "--sigma") gave,
 * or NAN when @text is NULL (the option was not given). A NaN cannot then
 * pass for "not given": "nan", an empty value or trailing text is a
 * G_OPTION_ERROR_BAD_VALUE naming @option (a usage error); infinities are
 * left to the caller's range check. O(|text|). */
gboolean cli_number_option(const char *option, const char *text, double *out, GError **error);
/* cli_count_option: the count @text that @option (e.g. "--eval-nodes")
 * gave: a positive integer, or "all" (PROTO_EVAL_ALL); 0 when @text is NULL
 * (not given: the default). Anything else is a G_OPTION_ERROR_BAD_VALUE
 * naming @option. O(|text|). */
gboolean cli_count_option(const char *option, const char *text, guint *out, GError **error);
/* cli_eval_sample_text: "evaluation: N of M nodes (drawn with seed S) on
 * R of Q test rows ..." when @s is sampled, else NULL (g_free). O(1). */
char *cli_eval_sample_text(const ProtoEvalSample *s);

/* ---- Interruption (cli/interrupt.c) ----
 * One handler of SIGINT and SIGTERM for the commands that stop cleanly:
 * between cli_interrupt_begin and cli_interrupt_end a signal records its
 * number, cancels the run set by cli_interrupt_set_run and calls @cancel
 * (nullable; it runs in the signal handler, so it may only set flags, like
 * scen_cancel). While a temporary output file is set (cli_interrupt_set_file),
 * a signal removes every one set and exits at once with 128 + its number:
 * no set of tables is left half-renamed. A second signal kills (default
 * action). Not reentrant: one command at a time. */
typedef struct {
  struct sigaction old_int, old_term;
  gboolean int_set, term_set;
} CliInterrupt;
void cli_interrupt_begin(CliInterrupt *saved, void (*cancel)(void));
void cli_interrupt_end(CliInterrupt *saved);
/* The signal caught since cli_interrupt_begin, 0 if none. */
int cli_interrupted(void);
/* The exit status of an interrupted command: 128 + the signal (SIGINT's when
 * the work was cancelled otherwise). */
int cli_interrupt_status(void);
/* The run a signal cancels (NULL: none); set after a signal, it is
 * cancelled at once. */
void cli_interrupt_set_run(ProtoRun *run);
/* Slot @i (< 4) of the temporary files a signal removes (@path borrowed
 * until reset to NULL). */
void cli_interrupt_set_file(guint i, const char *path);

/* ---- Progress of long work (cli/progress.c) ----
 * On a terminal (stderr) one refreshing line with done/total, elapsed time
 * and ETA; elsewhere one line every $DPGOSSIP_PROGRESS_INTERVAL seconds
 * (default 10); nothing with -q. Updates are thread-safe and cheap (they
 * print at most at that rate). */
typedef struct CliProgress CliProgress;
/* A printer for "dpgossip @cmd: ..."; NULL when @quiet (every call takes
 * NULL and does nothing). */
CliProgress *cli_progress_new(const char *cmd, gboolean quiet);
/* @done of @total @unit ("steps", "points", ...). */
void cli_progress_update(CliProgress *p, guint64 done, guint64 total, const char *unit);
/* Work measured by an estimate @fraction in [0, 1], described by @what. */
void cli_progress_update_fraction(CliProgress *p, double fraction, const char *what);
/* An accounting request's progress (ProtoAccountProgressFunc; @printer a
 * CliProgress, or NULL): counted steps where the path counts them, else
 * the request's fraction. */
void cli_progress_account(const ProtoAccountProgress *pr, gpointer printer);
/* A phase with no measure of its own (a fit, an optimizer that reports
 * nothing): from now on, whenever nothing else was printed for one
 * interval, a line "@what, M:SS elapsed, ETA ?" says the command is still
 * at work (a thread of @p's, stopped by cli_progress_free). Updates still
 * print as usual. */
void cli_progress_phase(CliProgress *p, const char *what);
/* Work whose updates can pause for long (a sweep's point reading its graph
 * or accounting after its last step): whenever nothing was printed for one
 * interval, the last update's line is printed again with the time elapsed
 * and its ETA recomputed at the rate so far (a heartbeat thread, as for
 * cli_progress_phase, whose phase takes precedence). */
void cli_progress_keepalive(CliProgress *p);
/* Ends a terminal line (the next output goes below it) and frees @p. */
void cli_progress_free(CliProgress *p);

/* ---- Horizon (cli/horizon.c) ----
 * -T (rounds), -k (epochs, participations per record) and -b (batches:
 * rounds between two participations), T = k b, in account, train and
 * mafalda alike. */

/* An int option not given (its variable's initial value). */
#define CLI_UNSET G_MININT

/* cli_horizon_resolve: with -T given, the missing one of -k and -b is
 * T divided by the other, or all three must agree; without -T, T = k b
 * when both are given. Values not positive and the ones still CLI_UNSET
 * are left to the caller (its defaults and its "must be positive").
 * Errors: G_OPTION_ERROR_BAD_VALUE (three that disagree, a divisor that
 * does not divide T, k b beyond G_MAXINT32). O(1). */
gboolean cli_horizon_resolve(gint *T, gint *k, gint *b, GError **error);

/* ---- Output ---- */

typedef enum { CLI_FORMAT_TABLE, CLI_FORMAT_JSON, CLI_FORMAT_CSV } CliFormat;

/* Parses --format; @allowed is a bitmask of (1 << CliFormat). */
gboolean cli_format_parse(const char *name, guint allowed, CliFormat *out, GError **error);
/* ---- JSON (cli/json.c): every command builds its JSON with these ----
 * Each adds one value under key @k of the object being built, or as the
 * next element of the array being built when @k is NULL. */
void cli_json_int(JsonBuilder *b, const char *k, gint64 v);
/* cli_json_node: node @id of @g as users name it: its label (a string)
 * when @g has a label table, else the id (a number, as before labels). */
void cli_json_node(JsonBuilder *b, const char *k, const TopoGraph *g, guint id);
/* A number; null when @v is not finite (inf: unprotected; NaN). */
void cli_json_number(JsonBuilder *b, const char *k, double v);
/* A string; null when @v is NULL. */
void cli_json_string(JsonBuilder *b, const char *k, const char *v);
void cli_json_bool(JsonBuilder *b, const char *k, gboolean v);
void cli_json_null(JsonBuilder *b, const char *k);
/* Opens an object or array (close with json_builder_end_object/_array). */
void cli_json_begin_object(JsonBuilder *b, const char *k);
void cli_json_begin_array(JsonBuilder *b, const char *k);
/* The builder's root as text (sim_json_write; @indent 0: one line); frees
 * @b. */
char *cli_json_text(JsonBuilder *b, guint indent);
/* cli_json_text with indent 2 on stdout, a newline after; frees @b. */
void cli_json_print(JsonBuilder *b);

/* Parses argv with @ctx; on failure prints the error and a hint, returns FALSE. */
gboolean cli_parse(GOptionContext *ctx, int *argc, char ***argv);
/* Prints a g_option_context_parse @error of @cmd on stderr, with "did you
 * mean '--x'?" for a misspelled long option (two edits at most) and the
 * --help hint. */
void cli_parse_error(GOptionContext *ctx, const char *cmd, const GError *error);
/* Levenshtein distance of two strings. O(|a| |b|). */
guint cli_edit_distance(const char *a, const char *b);
/* The exit status of @e under the policy above: CLI_EXIT_USAGE for
 * G_OPTION_ERROR and a spec that does not parse or names nothing known (the
 * PARSE and UNKNOWN codes of the library domains), else CLI_EXIT_FAILURE
 * (what a library refuses after parsing: a value out of its range, a memory
 * limit, data that do not fit). A file's own parse errors (TOPO_ERROR_PARSE
 * with FILE:LINE) are the caller's to map: see cli_graph_options_status.
 * proto_error_status decides (PROTO_FAILED_INPUT), for libdpgossip too. */
int cli_error_status(const GError *e);
/* Prints "dpgossip <cmd>: <message>" and the --help hint on stderr; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* cli_output_check: whether the file @path that @option names (e.g.
 * "--out") can be written when the work is done, checked before it starts:
 * not a directory, its folder an existing writable folder, itself writable
 * when it exists. With @is_dir, @path is a folder the command creates
 * (with its parents): its nearest existing ancestor must be a writable
 * folder. Errors: G_FILE_ERROR, "OPTION PATH: why". O(path depth). */
gboolean cli_output_check(const char *option, const char *path, gboolean is_dir, GError **error);
/* Prints "dpgossip <cmd>: <message>" on stderr, frees @error, returns @status. */
int cli_fail(const char *cmd, GError *error, int status);

/* ---- Plugin options (cli/plugin_options.c) ----
 * --protocol-plugin PATH.so, repeatable, for any command that runs a
 * protocol: loads each plugin (protocols/protocols.h, proto_plugin_load) so
 * that --protocol can name its protocol. */

typedef struct {
  char **paths; /* --protocol-plugin FILE (repeatable) */
  char *single; /* the protocol of the only plugin given, after loading */
} CliPluginOptions;

/* Adds --protocol-plugin to @ctx's main group (@o must outlive parsing). */
void cli_plugin_options_add(GOptionContext *ctx, CliPluginOptions *o);
/*
 * Loads every plugin given, in order. When exactly one was given,
 * o->single receives its protocol name: commands use it as the default
 * --protocol. Errors: those of proto_plugin_load (exit status 2: the file
 * is the user's option).
 */
gboolean cli_plugin_options_load(CliPluginOptions *o, GError **error);
void cli_plugin_options_clear(CliPluginOptions *o);

/* ---- Stream options (cli/stream_options.c) ----
 * --publish, --record, --publish-messages and --publish-wait for any command
 * that runs on an engine, and a small API over sim/'s Stream: start
 * (graph + topo_graph_layout), metrics, end. Prints nothing on stdout;
 * progress and the final counters go to stderr as "dpgossip <cmd>: ...". */

typedef struct {
  char *publish;  /* --publish ENDPOINT (ZeroMQ, e.g. tcp://127.0.0.1:5556) */
  char *record;   /* --record FILE.trace */
  char *messages; /* --publish-messages all|every:N|none */
  double wait_s;  /* --publish-wait SECONDS (default 1) */
  int pace_ms;    /* --pace MS (run, train; cli_stream_options_add_pace): 0 none */
} CliStreamOptions;

/* Adds the four options to @ctx's main group and sets the defaults in @o
 * (which must outlive parsing). */
void cli_stream_options_add(GOptionContext *ctx, CliStreamOptions *o);
/* Adds --pace MS (a wall-clock pause after each round while publishing, so a
 * viewer sees the run unfold; demo has its own) to @ctx's main group. */
void cli_stream_options_add_pace(GOptionContext *ctx, CliStreamOptions *o);
/* TRUE when --publish or --record was given. */
gboolean cli_stream_options_enabled(const CliStreamOptions *o);
/* Checks the values after parsing: the sampling spec, --publish-wait in
 * [0, 3600], --pace in [0, 60000] and only with --publish. Errors: STREAM_ERROR_PARSE (a usage error: exit status 2). */
gboolean cli_stream_options_check(const CliStreamOptions *o, GError **error);
void cli_stream_options_clear(CliStreamOptions *o);

typedef struct CliStream CliStream;

/*
 * cli_stream_start: opens the stream of @o (waiting for a subscriber as
 * --publish-wait says), attaches it to @engine's bus and publishes the run
 * start: @name, @cmd, @seed, @rounds (0: unknown), @scenario_json
 * (nullable, one JSON object), @graph with its topo_graph_layout (fixed
 * seed: a graph is always drawn the same way).
 * Errors: those of stream_new, stream_attach, topo_graph_layout and
 *   stream_begin_run (nothing is left open on error).
 * Returns: (transfer full) the stream (cli_stream_free), or NULL.
 */
CliStream *cli_stream_start(const CliStreamOptions *o, const char *cmd, SimEngine *engine,
                            const TopoGraph *graph, const char *name, guint64 seed, guint rounds,
                            const char *scenario_json, GError **error);
/* The underlying stream (transfer none), for direct publications. */
Stream *cli_stream_sim(CliStream *s);
/*
 * cli_stream_publish_metric_rows: one metric event per evaluated step of
 * @rows (n_rows ProtoMetric, sorted by (step, node) as proto_run_metrics
 * gives them), each at time @t. Errors: those of stream_publish_metrics.
 * O(n_rows).
 */
gboolean cli_stream_publish_metric_rows(CliStream *s, SimTime t, const ProtoMetric *rows,
                                        gsize n_rows, GError **error);
/* cli_stream_publish_metrics: a ProtoMetricsFunc whose @stream is the
 * CliStream: each evaluation step as one metric event while the run goes
 * on (`run` and `train`). Errors and complexity:
 * cli_stream_publish_metric_rows'. */
gboolean cli_stream_publish_metrics(ProtoRun *run, SimTime t, guint step, const ProtoMetric *rows,
                                    guint n_nodes, gpointer stream, GError **error);
/*
 * cli_stream_end: publishes the run end with @status ("ok", "error",
 * "interrupted") at the engine's current time (or, once the engine is freed,
 * the last time its bus showed), closes the stream and reports its counters
 * (published, dropped, sampled out) on stderr.
 * Errors: a trace that could not be written completely.
 */
gboolean cli_stream_end(CliStream *s, const char *status, GError **error);
/* cli_stream_free: frees @s (NULL ignored), closing what is still open. */
void cli_stream_free(CliStream *s);

/* ---- A command's options (cli/command_options.c) ----
 * What cli_options_parse puts in the one GOptionContext it builds, in
 * --help in this order. Every pointer is borrowed and must outlive the
 * parse (the values land in the variables the entries name). */
typedef struct {
  const char *parameter;       /* after "Usage: CMD [OPTION...]": "FILE - run a scenario" */
  CliGraphOptions *graph;      /* nullable: the graph options, as the main group */
  const GOptionEntry *entries; /* nullable: the command's own, NULL-terminated */
  /* Nullable: the data of the entries' callbacks (G_OPTION_ARG_CALLBACK);
   * only without @graph (both would be the main group). */
  gpointer entries_data;
  CliPluginOptions *plugins; /* nullable: --protocol-plugin */
  CliStreamOptions *stream;  /* nullable: --publish and the rest (defaults set in it) */
  gboolean pace;             /* with @stream: --pace too */
  const char *description;   /* nullable: the text below the options */
  /* Operands (FILE, NAME) may follow the options: the caller checks them.
   * Otherwise any is an "unexpected argument" (cli_parse). */
  gboolean operands;
} CliOptionsSpec;
/*
 * cli_options_parse: builds @spec's context (the graph group, the entries,
 * the plugin and stream options), parses argv with it and frees it. --help
 * prints and exits as GLib does. On failure prints the error with its hint
 * (cli_parse_error) and returns FALSE: a usage error. Nothing to free:
 * the parsed values are the caller's variables. O(options + argc).
 */
gboolean cli_options_parse(const CliOptionsSpec *spec, int *argc, char ***argv);

G_END_DECLS

#endif /* DPG_CLI_H */
