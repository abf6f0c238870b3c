/*
 * api/dpgossip.h: libdpgossip, the library behind the Python package
 * (python/dpgossip). It sits on top of the modules as cli/ does: each
 * function is one command (graph, account, mafalda, train, run) with its options
 * as a struct and its results as a table instead of printed text.
 *
 * The header uses plain C types only (no GLib), so that a foreign function
 * interface (cffi in ABI mode) can declare it as is: dpg_api_header gives
 * it this text.
 *
 * Errors: every call takes a DpgError (zero it first). On failure it gets
 * the message the command line prints after "dpgossip CMD: " and the exit
 * status the command line would return (2: a bad option value, 1: the run
 * failed); free the message with dpg_free. A cancelled call (dpg_cancel)
 * fails with status 1 and a message saying so.
 *
 * Threads: calls are independent except for the cancel flag, which is
 * process-wide: dpg_cancel stops every call in flight.
 *
 * Protocol plugins: a call that runs a protocol (account, train, audit,
 * run) sees the built-in protocols, the plugin files of its own @plugins
 * and those its protocol name finds in $DPGOSSIP_PLUGIN_PATH or the
 * installation's plugin folder; never one that only an earlier call
 * loaded (plugins stay loaded in the process, but not visible). Conventions:
 * public names carry the dpg_ prefix; the library never prints or exits.
 */
#ifndef DPG_API_DPGOSSIP_H
#define DPG_API_DPGOSSIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a struct below changes layout. */
#define DPG_API_VERSION 4

typedef struct {
  int status;    /* 0 ok, 1 failure, 2 bad option value (the CLI's exit status) */
  char *message; /* the error's message (dpg_free), or NULL */
} DpgError;

/* ---- Tables: the results ---- */

typedef enum { DPG_COL_INT = 0, DPG_COL_DOUBLE = 1, DPG_COL_STRING = 2 } DpgColType;

/* Columns of equal length, string attributes ("path", "path_reason", ...)
 * and optionally one row-major matrix (mafalda's C). */
typedef struct DpgTable DpgTable;

size_t dpg_table_n_rows(const DpgTable *t);
unsigned dpg_table_n_cols(const DpgTable *t);
const char *dpg_table_col_name(const DpgTable *t, unsigned j);
int dpg_table_col_type(const DpgTable *t, unsigned j); /* DpgColType */
/* Column @j's values (NULL when it is not of that type). Missing values:
 * INT64_MIN in an int column, NaN in a double column, NULL strings. */
const int64_t *dpg_table_col_int(const DpgTable *t, unsigned j);
const double *dpg_table_col_double(const DpgTable *t, unsigned j);
const char *dpg_table_col_string(const DpgTable *t, unsigned j, size_t i);
unsigned dpg_table_n_attrs(const DpgTable *t);
const char *dpg_table_attr_key(const DpgTable *t, unsigned i);
const char *dpg_table_attr_value(const DpgTable *t, unsigned i);
/* The matrix (NULL when none); *@rows, *@cols its size. */
const double *dpg_table_matrix(const DpgTable *t, unsigned *rows, unsigned *cols);
void dpg_table_free(DpgTable *t);

void dpg_free(void *p);

/* ---- Graphs ---- */

/* Exactly one of @path, @generate, @edges (the command line's --graph,
 * --generate, or an edge list in memory). */
typedef struct {
  const char *path;      /* SNAP edge list ('u v' per line, '#' comments) */
  const char *generate;  /* generator spec: florentine, erdos:n=100,p=0.05,seed=3, ... */
  const unsigned *edges; /* 2 * n_edges node ids: edges[2i] -- edges[2i+1] */
  size_t n_edges;
  unsigned n_nodes;   /* with @edges: nodes 0..n_nodes-1 (0: max id + 1) */
  int lcc;            /* keep the largest connected component */
  const char *gossip; /* uniform (NULL), metropolis or maxdegree */
  /* With @edges, optional: the users' names of nodes 0..n_nodes-1 (n_nodes
   * distinct non-empty strings; NULL: node u is "u"). Attackers, victims
   * and churn files name nodes by them; tables print them. --lcc keeps the
   * labels of the nodes it keeps. */
  const char *const *labels;
} DpgGraphSpec;

/*
 * dpg_graph: `dpgossip graph`: one row (nodes, edges, degree_min,
 * degree_mean, degree_max, diameter, diameter_note, connected, gossip,
 * components, spectral_gap (0 when disconnected), spectral_gap_note,
 * self_loops_dropped,
 * duplicate_edges_dropped, renumbered). @exact: --exact.
 * Errors: the graph's (loading, generating), the summary's.
 * Complexity: that of topo_graph_summary_exact.
 */
DpgTable *dpg_graph(const DpgGraphSpec *graph, int exact, DpgError *err);

/*
 * dpg_graph_edges: the graph as --write-edges writes it: *@n_edges pairs
 * (u < v, sorted), *@n_nodes nodes. Returns: (dpg_free) 2 * n_edges ids, or
 * NULL (an error, or no edge: then err->status is 0). O(n + m log m).
 */
unsigned *dpg_graph_edges(const DpgGraphSpec *graph, unsigned *n_nodes, size_t *n_edges,
                          DpgError *err);

/* ---- Accounting ---- */

/* `dpgossip account`'s options (dpg_account_options_init: its defaults). */
typedef struct {
  DpgGraphSpec graph;
  const char *protocol;         /* NULL: dsgd */
  int rounds;                   /* T, required */
  int participation_interval;   /* b, default 1 */
  const char *trust;            /* "pndp" or "ldp,secldp", required */
  const char *const *attackers; /* NULL-terminated, each as --attackers */
  const char *sensitivity;      /* NULL: auto (exact when cheap, else bound) */
  double sigma, clip, alpha, delta;
  const char *compare;  /* NULL or "muffliato" */
  const char *path;     /* NULL: auto */
  const char *schedule; /* NULL: static */
  const char *seed;     /* NULL: 0 */
  const char *mode, *latency, *loss;
  const char *const *links; /* NULL-terminated FROM:TO=SPEC, or NULL */
  double lr;                /* NaN: default 0.1 (and not "given") */
  const char *storage, *accountant;
  int radius; /* path "local": hops around the attackers (>= 1); -1: not given */
  /* NULL-terminated protocol plugin files to load first (--protocol-plugin;
   * runs their code); with one, @protocol defaults to its protocol. */
  const char *const *plugins;
  /* path "local" without a radius: grow it until every victim's
   * mu / mu_lower <= tightness (>= 1); 0: not given. */
  double tightness;
} DpgAccountOptions;

void dpg_account_options_init(DpgAccountOptions *o);
size_t dpg_account_options_size(void); /* sizeof, for a foreign declaration's check */

/*
 * dpg_account: one row per (attacker set, trust model, victim), the rows
 * and columns of `dpgossip account --format csv` (the tidy privacy table
 * of scenarios/scenarios.h, SCEN_PRIVACY_CSV_COLUMNS): collusion and
 * attackers (the set's members, "0+5"), trust, victim, distance (missing
 * when no attacker is reachable), sensitivity, mu, rdp, epsilon (+inf:
 * unprotected), muffliato_rdp (NaN without compare or outside PNDP),
 * status (protected, unprotected, unresolved), alpha, delta, path
 * ("local:radius=R" for certified local bounds), seed.
 * Attributes: nodes, gossip,
 * protocol, rounds, participation_interval, sensitivity (the one used:
 * bound or exact), sensitivity_reason, sigma, clip,
 * alpha, delta, path, path_reason, schedule, seed; local path: radius;
 * observer path: mode,
 * latency, loss, lr, storage, accountant, messages_sent,
 * messages_delivered, messages_dropped, late_discarded, partial_gathers,
 * noise_variables.
 * Errors: those of `dpgossip account`, same messages and statuses;
 * cancellation. Complexity: the command's.
 */
DpgTable *dpg_account(const DpgAccountOptions *o, DpgError *err);

/* ---- Audits ---- */

/* `dpgossip audit`'s options (dpg_audit_options_init: its defaults). */
typedef struct {
  DpgGraphSpec graph;
  const char *protocol;         /* NULL: dsgd */
  int rounds;                   /* T, default 5 */
  const char *trust;            /* NULL: pndp; or "ldp,pndp" */
  const char *const *attackers; /* NULL-terminated, each as --attackers (required) */
  const char *const *victims;   /* NULL-terminated node ids or "all" (required) */
  double sigma;                 /* default 1 */
  int trials;                   /* per world, default 1000, >= 20 */
  int64_t seed;                 /* default 1 */
  const char *attack;           /* np, learned, reconstruction or all (NULL) */
  int dim;                      /* 0: what the canary needs */
  int threads;                  /* default 1; results do not depend on it */
  const char *mode, *latency;   /* NULL: sync; constant:ms=0 (any latency model) */
  const char *figure;           /* NULL, or the trade-off figure's file */
  /* NULL-terminated protocol plugin files to load first (--protocol-plugin;
   * runs their code); with one, @protocol defaults to its protocol. */
  const char *const *plugins;
  int participation_interval; /* b (divides T), default 1 */
  const char *schedule;       /* NULL: static; seeded by @seed */
  /* NULL: no loss. The latencies and losses of every run are drawn from
   * @seed (the same deliveries in every trial, those of dpg_account's run
   * of that seed). */
  const char *loss;
  /* 0: the protocol's default step size, as dpg_account's; else the run's
   * (Zip-DL's noise is in units of it): the audit tests the run it accounts. */
  double lr;
} DpgAuditOptions;

void dpg_audit_options_init(DpgAuditOptions *o);
size_t dpg_audit_options_size(void); /* sizeof, for a foreign declaration's check */

/*
 * dpg_audit: `dpgossip audit --format csv` as a table: @trust is a model
 * or a comma-separated list of them, as the command's --trust (a model
 * twice is refused in its words); one row per (attacker set, trust model,
 * victim, attack), in that order: attackers, trust, victim, attack, mu, mu_canary,
 * mu_test, mu_empirical, mu_empirical_low, mu_empirical_high,
 * mu_clopper_pearson_low, trials, reconstruction_error, status.
 * Attributes: protocol, trust, rounds, sigma, seed, confidence, overstated
 * (how many rows are: where the command exits 1, this call succeeds with
 * the count, so that the caller sees the rows), warnings when any (what
 * the command prints on stderr, one a line: attacks refused on an
 * unresolved victim or out of the double range, an attacker set that
 * receives nothing).
 * Errors: those of `dpgossip audit`, same messages and statuses;
 * cancellation (at the next trial). Complexity: the command's.
 */
DpgTable *dpg_audit(const DpgAuditOptions *o, DpgError *err);

/* ---- Mafalda ---- */

typedef struct {
  DpgGraphSpec graph;
  int epochs, batches;  /* k, b (required): T = k b */
  const char *workload; /* NULL: post-average */
  int band;             /* -1: no band */
} DpgMafaldaOptions;

size_t dpg_mafalda_options_size(void);

/*
 * dpg_mafalda: `dpgossip mafalda`: one row per strategy (strategy, loss,
 * sensitivity) in the command's order, the optimized C_local as the
 * matrix (T x T, what --out writes), attributes nodes, gossip, workload,
 * rounds, epochs, batches, band, trace_H, iterations.
 * Errors: the command's, same messages and statuses; cancellation (checked
 * at every iteration of the optimizers). Complexity: the command's.
 */
DpgTable *dpg_mafalda(const DpgMafaldaOptions *o, DpgError *err);

/* ---- Training ---- */

/*
 * The progress of a long call, as `dpgossip train` prints it (-q: none):
 * @phase names what runs ("building the graph", "setting up the run
 * (schedule, dataset, models)", "steps", "after the last step: evaluation
 * and privacy accounting", "after the last step: privacy accounting"); for
 * "steps", @done of @total steps (at each percent), else both 0: a phase
 * that reports nothing itself until the next call. Called on the calling
 * thread; the library prints nothing.
 */
typedef void (*DpgProgressFunc)(const char *phase, uint64_t done, uint64_t total, void *user_data);

/* `dpgossip train`'s options (dpg_train_options_init: its defaults). */
typedef struct {
  DpgGraphSpec graph;
  const char *protocol;          /* NULL: dsgd; "nonprivate": dsgd without noise */
  const char *schedule;          /* NULL: static */
  const char *dataset;           /* required: california:PATH, csv:PATH, idx:DIR, synthetic:... */
  const char *model, *partition; /* NULL: by task; uniform */
  int epochs, batches;           /* k, b (default 1, 1): T = k b */
  double lr, sigma, clip;        /* 0.1; NaN: 1 (0 for nonprivate); 1 */
  const char *mode, *latency, *loss;
  double compute_ms;            /* 0 */
  int eval_every;               /* 0: at the end only */
  double test_fraction;         /* 0.2 */
  const char *seed;             /* NULL: 0 */
  int threads;                  /* evaluation threads, 1 */
  const char *trust;            /* NULL: ldp (every node); "none": no accounting */
  const char *const *attackers; /* NULL-terminated, each as --attackers, or NULL */
  double alpha, delta;          /* 2, 1e-6 */
  /* --eval-nodes and --eval-rows: the nodes evaluated and the test rows
   * each evaluation uses, drawn with the seed; 0: the command's default
   * (all up to 10000 nodes, else 1000 nodes and 10000 rows); DPG_EVAL_ALL:
   * every one. */
  int eval_nodes, eval_rows;
  /* NULL-terminated protocol plugin files to load first (--protocol-plugin;
   * runs their code); with one, @protocol defaults to its protocol. */
  const char *const *plugins;
  /* Progress (nullable: none), with its @user_data. */
  DpgProgressFunc progress;
  void *progress_data;
} DpgTrainOptions;

/* DpgTrainOptions.eval_nodes and eval_rows: every node, every test row. */
#define DPG_EVAL_ALL (-1)

void dpg_train_options_init(DpgTrainOptions *o);
size_t dpg_train_options_size(void);

/*
 * dpg_train: `dpgossip train`: one training run and its privacy, as the
 * three tables the command writes. Returns the metrics (round, node,
 * train_loss, test_loss, test_accuracy (NaN for regression), seed: one row
 * per evaluated round and node); *@means gets the means over the nodes per
 * round (round, train_loss, test_loss, test_accuracy, seed), *@privacy each
 * victim's guarantee for the whole run per accounting, the columns of
 * dpg_account's table (collusion and attackers missing, distance missing,
 * for LDP over every node; no row with trust "none"). Attributes of the
 * metrics: protocol, nodes, rounds, epochs, batches, gossip, schedule, mode,
 * sigma, clip, lr, seed, path (structured, observer, none), sim_time_s,
 * messages_sent, messages_delivered, messages_dropped.
 * Errors: those of `dpgossip train`, same messages and statuses (2: a bad
 * option value); cancellation (the run at its next event, the accounting
 * between attacker sets). Then all three are NULL.
 * Complexity: the command's.
 */
DpgTable *dpg_train(const DpgTrainOptions *o, DpgTable **means, DpgTable **privacy, DpgError *err);

/*
 * A task whose model and data the caller holds (the Python package's
 * torch.nn.Module). The runtime deals the record indices 0..n_train-1 to
 * the nodes by DpgTrainOptions.partition (the label-aware rules read
 * train_labels), starts every node from @init and at each local step calls
 * @gradient with the node's current parameters and its batch's record
 * indices: it must write into @grad the SUM over the batch of the
 * per-example gradients, each clipped to L2 norm <= @clip (the clip the
 * accountant uses), and return 0; nonzero stops the run (status 1, the
 * message naming the node and step; the caller keeps its own reason).
 * The protocol, its noise (added by the runtime to that sum), delivery and
 * the accounting are the library's, as in dpg_train. @evaluate (nullable)
 * fills out[0..2] (train loss on @train_rows, test loss and accuracy on
 * @test_rows, NULL meaning all n_test; NaN where none) for the metrics
 * table. Both are called on the calling thread, one node at a time.
 */
typedef int (*DpgGradientFunc)(unsigned node, unsigned step, const double *params,
                               const size_t *batch, size_t count, double clip, double *grad,
                               size_t d, void *user_data);
typedef void (*DpgEvalFunc)(unsigned node, unsigned step, const double *params, size_t d,
                            const size_t *train_rows, size_t n_train_rows, const size_t *test_rows,
                            size_t n_test_rows, double *out, void *user_data);
typedef struct {
  size_t n_train, n_test;     /* records: n_train >= nodes, n_test >= 1 */
  unsigned n_classes;         /* 0: regression */
  const double *train_labels; /* n_train labels 0..n_classes-1, or NULL */
  size_t dim;                 /* parameters, >= 1 */
  const double *init;         /* dim doubles */
  DpgGradientFunc gradient;
  DpgEvalFunc evaluate;
  void *user_data;
  /* The caller's partition, or both NULL for DpgTrainOptions.partition (then
   * NULL too when these are given): node u holds the training records
   * partition_records[partition_offsets[u] .. partition_offsets[u+1]), in
   * that order (batch j: positions [j m/b, (j+1) m/b) of its m records);
   * a record may be held by several nodes, not twice by one. */
  const size_t *partition_offsets; /* nodes + 1, from 0 */
  const size_t *partition_records;
} DpgTask;

/*
 * dpg_train_task: dpg_train with the caller's @task instead of
 * DpgTrainOptions.dataset and model (both must be NULL); the same tables
 * and attributes, and the same privacy table as dpg_train for the same
 * protocol, graph, schedule, epochs, batches, clip, sigma, seed and
 * attackers (the accounting does not read the model). threads is ignored
 * (evaluation runs on the calling thread).
 * Errors: dpg_train's; a bad @task (status 2); @gradient failing (status 1).
 */
DpgTable *dpg_train_task(const DpgTrainOptions *o, const DpgTask *task, DpgTable **means,
                         DpgTable **privacy, DpgError *err);

/*
 * dpg_task_data: the records dpg_train trains and tests on for @dataset,
 * @test_fraction (0: 0.2) and @seed (NULL: 0): the same split and
 * standardization. Returns the training records as a table of one column
 * "target" and a matrix of their features (rows x features, row-major),
 * attribute n_classes (0: regression); *@test the same for the test
 * records; *@init one column "param": the initial parameters of built-in
 * @model (NULL: by task) from that seed, flattened as the model holds them.
 * Errors: `dpgossip train`'s for the dataset, model and seed (status 2 for
 * a bad spec). Then all three are NULL. Complexity: loading the data.
 */
DpgTable *dpg_task_data(const char *dataset, const char *model, double test_fraction,
                        const char *seed, DpgTable **test, DpgTable **init, DpgError *err);

/* ---- Scenarios ---- */

/*
 * dpg_run: `dpgossip run SCENARIO --set ITEM... [--out DIR]`: @sets
 * NULL-terminated (nullable), @out_dir nullable ([output] dir), @threads
 * (0: the cores), @allow_plugins (--allow-plugins: the scenario's own
 * [protocol] plugin), @plugins NULL-terminated plugin files to load first
 * (nullable; --protocol-plugin). @warnings (out, nullable): on success, the
 * points' warnings (a dataset's: what `dpgossip train` says on stderr), one
 * a line, each said once with " (N of the sweep's P points)" in a sweep
 * (dpg_free), or NULL when none.
 * Returns: (dpg_free) the results folder (absolute), or NULL.
 * Errors: loading the scenario, a bad --set item (status 2), those of
 * scen_scenario_run (an invalid scenario lists its problems, status 2).
 */
char *dpg_run(const char *scenario, const char *const *sets, const char *out_dir, unsigned threads,
              int allow_plugins, const char *const *plugins, char **warnings, DpgError *err);

/* ---- Cancellation ---- */

/* dpg_cancel: the calls in flight stop as soon as they check (simulated
 * runs at their next event, scenario points, accountings between attacker
 * sets, mafalda's optimizers at every iteration); calls made later fail at once until
 * dpg_cancel_reset. Thread-safe (call it from another thread than the
 * one waiting in the call), not async-signal-safe (it takes a lock). */
void dpg_cancel(void);
void dpg_cancel_reset(void);

/* ---- The API itself ---- */

/* dpg_api_header: this header's text as the library was built with it, so
 * that a binding declaring the API at run time (the Python package's cffi
 * in ABI mode) reads the declarations of the very library it loaded instead
 * of a copy that could drift. Returns: a static string (never free it). O(1). */
const char *dpg_api_header(void);

/* dpg_blas_note: the line the command line prints on stderr when OpenBLAS
 * runs a kernel without AVX2 on a CPU that has AVX2 or AVX-512 (slower than
 * the CPU allows; docs/performance.md, "OpenBLAS kernels"), or NULL. The
 * Python package raises it as a warning once, on import. Never sets
 * OPENBLAS_CORETYPE. Returns: a static string (never free it) or NULL. O(1). */
const char *dpg_blas_note(void);

/* dpg_schedule_kinds: the schedule specs a schedule option takes, one per
 * kind of the schedule table, as the command's --schedule help lists them
 * ("static, resample:GENSPEC, ..."); dpg_trust_models: the trust models of
 * the trust table ("ldp, pndp or secldp"). The Python package writes its
 * help from them, so a kind or a model added to its table needs no edit
 * there. Returns: a static string (never free it). O(1) after the first call. */
const char *dpg_schedule_kinds(void);
const char *dpg_trust_models(void);

#ifdef __cplusplus
}
#endif

#endif /* DPG_API_DPGOSSIP_H */
