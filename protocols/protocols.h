/*
 * protocols/protocols.h: decentralized learning protocols over the engine.
 *
 * A ProtoRun is one simulated run: n nodes on a graph (static gossip matrix)
 * or a TopoSchedule (time-varying W_r), running one protocol from the
 * registry (D-SGD, Muffliato, MF-D-SGD with any local correlation C —
 * AntiPGD and Mafalda among them —, DECOR, Zip-DL, or a plugin registered
 * through protocols/plugin.h), in a gossip mode (synchronous, deadline,
 * bounded staleness) over links with latency and loss, optionally training
 * a learning task (dataset, model, (k,b)-participation) and evaluating every
 * node's model. Every model and message is a linvec: with provenance on
 * (storage dense or sparse), each message's exact linear combination of
 * gradient slots and noise variables can be read on the engine's bus
 * (docs/design.md, "Protocols", "Linear provenance"); with storage SIM_LIN_NONE
 * only the numbers are kept (training runs).
 *
 * Gossip exchange (the runtime owns it; protocols call proto_node_exchange).
 * At round r node u sends its payload to every v != u with W_r[v,u] > 0 (the
 * column support, so directed matrices such as the one-peer exponential
 * graph work) and gathers the round-r payloads of its in-neighbours (the row
 * support of W_r), its own included with weight W_r[u,u]. Modes:
 *   sync            the gather completes when every in-neighbour's round-r
 *                   message is in (refused when links lose messages: a lost
 *                   message would block the network forever);
 *   deadline:ms=D   at every in-neighbour's message or D ms after the node's
 *                   own send, whichever first; missing neighbours are
 *                   skipped and the weights renormalised over the inputs
 *                   (own included); late messages are discarded;
 *   stale:s=S       per in-neighbour the freshest message of a round in
 *                   [r-S, r]; the gather waits until every in-neighbour has
 *                   one; weights of W_r. A node may run up to S rounds ahead.
 *                   A lost round-r message (known to the receiver when it
 *                   is sent) ends the wait for its sender: its freshest
 *                   stored message in [r-S, r] replaces it, or, when there
 *                   is none, the sender is skipped and the weights are
 *                   renormalised over the inputs (own included), as in
 *                   deadline mode; so lossy links never stall a run.
 * Messages of future rounds are buffered. Message round = gossip round
 * (Muffliato: t*K + k); message tag 0. Local compute time (compute_ms) delays
 * the exchange that follows each local step.
 *
 * Noise units (docs/design.md, "Noise units"): D-SGD, Muffliato, Zip-DL: std sigma*Delta;
 * MF-D-SGD, AntiPGD, Mafalda: sigma*Delta*sens_Pi(C_local); DECOR:
 * sigma*Delta local noise, sigma_secret*Delta edge secrets.
 *
 * Conventions: public names carry the proto_ prefix (types Proto*); errors
 * travel as GError in the PROTO_ERROR domain (or the domain of the module
 * that failed: LEARN_ERROR for a dataset, TOPO_ERROR for a schedule, ...);
 * library code never prints or exits. Determinism: a run is a pure function
 * of its configuration and seed, whatever the number of threads.
 */
#ifndef DPG_PROTOCOLS_H
#define DPG_PROTOCOLS_H

#include "learning/learning.h"
#include "mf/mf.h"
#include "privacy/privacy.h"
#include "protocols/plugin.h"
#include "spec/spec.h"

G_BEGIN_DECLS

#define PROTO_ERROR (proto_error_quark())
GQuark proto_error_quark(void);

typedef enum {
  PROTO_ERROR_INVALID_ARGUMENT, /* a configuration value out of range */
  PROTO_ERROR_PARSE,            /* a protocol or mode spec that does not parse */
  PROTO_ERROR_UNKNOWN,          /* an unknown protocol or parameter */
  PROTO_ERROR_IO,               /* a file that cannot be read */
  PROTO_ERROR_FORMAT,           /* a malformed file (FILE:LINE) */
  PROTO_ERROR_STALLED,          /* the run stopped with nodes still waiting */
  PROTO_ERROR_CANCELLED,        /* proto_run_cancel was called */
  PROTO_ERROR_FAILED,           /* another module failed (message says which) */
} ProtoError;

/**
 * proto_error_is_usage: whether @e is the user's input rather than a run
 * that failed: an option value (G_OPTION_ERROR), or a spec that does not
 * parse or names nothing known (PROTO_ERROR_PARSE or _UNKNOWN, LEARN_,
 * SIM_ and TOPO_ERROR_PARSE, TOPO_ERROR_RANGE: a schedule parameter out of
 * range). The front ends map it to their usage status
 * (exit status 2) and everything else, a NULL @e included, to a failure
 * (1), so the command line and libdpgossip agree. O(1).
 */
gboolean proto_error_is_usage(const GError *e);

/**
 * proto_error_is_unreadable: whether @e says that a file the user named
 * cannot be read (missing, a folder, a device, no permission): SIM_ERROR_IO
 * (a latency model's geo, links or country file), TOPO_ERROR_IO (a graph,
 * churn or trace file), PROTO_ERROR_IO, G_FILE_ERROR. Never a usage error:
 * a check that meets one where it otherwise refuses the user's typing (a
 * spec parsed among the options) exits 1 by it, as the run that reads the
 * file would. O(1).
 */
gboolean proto_error_is_unreadable(const GError *e);

/* What failed, for proto_error_status: the one place where a front end's
 * step says which rule applies to its error. */
typedef enum {
  PROTO_FAILED_INPUT,    /* an option, a spec or a run: proto_error_is_usage decides */
  PROTO_FAILED_PROTOCOL, /* the protocol registry or a protocol's own run: a parameter it
                            refuses (PROTO_ERROR_INVALID_ARGUMENT) is the user's too */
  PROTO_FAILED_FILE,     /* loading a file the user named (a graph): its content is the
                            run's, only an option error (G_OPTION_ERROR) the user's */
  PROTO_FAILED_RUN,      /* a computation after every check (the structured path): the run's */
} ProtoFailure;

/**
 * proto_error_status: the exit status of @e raised by the step @what: 2
 * (the user's input: the command line's usage error, Python's UsageError)
 * or 1 (the run failed). The single rule behind every front end (cli/,
 * api/, so Python too): a command line and the library give one status for
 * one error. A NULL @e is 1. O(1).
 */
int proto_error_status(const GError *e, ProtoFailure what);

/* ProtoAccountRefusal is declared with the accounting request below. */

/* ===================================================================== */
/* Registry and specs                                                     */
/* ===================================================================== */

/**
 * proto_registry_register: adds @vt (borrowed: it must outlive every run that
 * uses it, e.g. a static vtable) to the process-wide registry. Built-ins
 * (dsgd, muffliato, mfdsgd, antipgd, mafalda, decor, zipdl) are registered
 * on first use of the registry. Thread-safe.
 * Errors: PROTO_ERROR_INVALID_ARGUMENT for an ABI version other than
 * PROTO_PLUGIN_ABI_VERSION_OLDEST .. PROTO_PLUGIN_ABI_VERSION, a missing init
 * or on_start handler (version 1 only) or name, a bad name, a parameter of an
 * unknown type, a parameter spec whose default does not parse or is out of
 * range, or a name already registered.
 * Complexity: O(registered + parameters).
 */
gboolean proto_registry_register(const ProtoVTable *vt, GError **error);

/** proto_registry_lookup: the protocol called @name, or NULL. Thread-safe. */
const ProtoVTable *proto_registry_lookup(const char *name);

/**
 * proto_registry_list: every registered protocol, sorted by name.
 * Returns: (transfer container) a g_free-able array of *@n pointers.
 */
const ProtoVTable **proto_registry_list(guint *n);

/**
 * proto_registry_names: the registered protocols' names in name order,
 * joined by ", " (the list an unknown protocol's error offers). Thread-safe.
 * Returns: (transfer full) a g_free-able string.
 * Complexity: O(registered).
 */
char *proto_registry_names(void);

/**
 * proto_vtable_describe: a help text for @vt: "name: summary" then one line
 * per parameter "  key=TYPE (default D, range [a, b]): help". (g_free)
 */
char *proto_vtable_describe(const ProtoVTable *vt);

/**
 * proto_spec_parse: parses "name[:key=value,...]" (e.g. "muffliato:K=3",
 * "mfdsgd:C=antipgd", "mfdsgd:C=/path/to/C.csv").
 * @vt: (out) the protocol. @params: (out) (transfer full) its parameters,
 *   every declared one with a value (given, else the default).
 * Errors: PROTO_ERROR_UNKNOWN for an unknown protocol (listing the
 * registered ones) or parameter (listing the protocol's); PROTO_ERROR_PARSE
 * for a malformed item, a repeated key, a value of the wrong type;
 * PROTO_ERROR_INVALID_ARGUMENT for a value out of range; PROTO_ERROR_IO for
 * a FILE parameter that is not a readable file. Nothing is returned on error.
 * Complexity: O(spec length x parameters).
 */
gboolean proto_spec_parse(const char *spec, const ProtoVTable **vt, ProtoParams **params,
                          GError **error);

/** proto_params_free: frees @params (NULL ignored). */
void proto_params_free(ProtoParams *params);

/* ===================================================================== */
/* Modes                                                                  */
/* ===================================================================== */

typedef enum {
  PROTO_MODE_SYNC,
  PROTO_MODE_DEADLINE,
  PROTO_MODE_STALE,
} ProtoModeKind;

typedef struct {
  ProtoModeKind kind;
  double deadline_ms; /* DEADLINE: > 0, finite */
  guint staleness;    /* STALE: S >= 0 (stale:s=0 behaves as sync) */
} ProtoMode;

/**
 * proto_mode_parse: "sync", "deadline:ms=D" (D > 0) or "stale:s=S" (S >= 0).
 * Errors: PROTO_ERROR_PARSE naming the unknown mode or bad key/value.
 */
gboolean proto_mode_parse(const char *spec, ProtoMode *out, GError **error);

/* ===================================================================== */
/* Runs                                                                   */
/* ===================================================================== */

/** Called with the fraction of local steps done (0..1), at most ~100 times. */
typedef void (*ProtoProgressFunc)(double fraction, gpointer user_data);

/*
 * A task computed by the caller (the Python package's torch models): the
 * runtime deals the record indices 0..n_train-1 to the nodes by the
 * partition rules (the label-aware ones read @train_labels), starts every
 * node from @init, and at each local step takes the gradient slot (the SUM
 * of the batch's per-example gradients, each clipped to the run's clip) from
 * @gradient, given the node's parameters and its batch's record indices.
 * Everything else (the protocol, its noise and provenance, delivery,
 * accounting) is the runtime's. @gradient returning FALSE (with @error set)
 * stops the run with that error. @evaluate fills a metric's three values
 * (NAN where it has none) for the node's training rows and the test rows
 * (NULL: all @n_test); it runs on the simulation thread (no pool).
 */
typedef gboolean (*ProtoExternalGradFunc)(guint node, guint t, const double *params,
                                          const gsize *batch, gsize count, double *g, gsize d,
                                          gpointer user_data, GError **error);
typedef void (*ProtoExternalEvalFunc)(guint node, guint step, const double *params, gsize d,
                                      const gsize *train_rows, gsize n_train_rows,
                                      const gsize *test_rows, gsize n_test_rows, double *train_loss,
                                      double *test_loss, double *test_accuracy, gpointer user_data);
typedef struct ProtoExternalTask {
  gsize n_train, n_test;      /* records; n_train >= nodes, n_test >= 1 */
  guint n_classes;            /* 0: regression (no label-aware partition) */
  const double *train_labels; /* n_train labels 0..n_classes-1, or NULL */
  gsize dim;                  /* the flattened model, >= 1 */
  const double *init;         /* dim doubles: every node's start */
  ProtoExternalGradFunc gradient;
  ProtoExternalEvalFunc evaluate; /* nullable: metrics stay NAN */
  gpointer user_data;
  /* The caller's partition, built and checked by the caller
   * (learn_partition_lists, once: its errors are the caller's input) for
   * the run's nodes and batches, copied by proto_run_new; or NULL for the
   * run's partition rule (which must then be the only one given). */
  const LearnPartition *partition;
} ProtoExternalTask;

/*
 * A run's configuration; proto_run_config_init fills the defaults. Strings
 * and objects are borrowed for the duration of proto_run_new only (the run
 * copies what it keeps), except @schedule: see below.
 */
/* A memo of C_local fits shared by runs (proto_c_cache_new, below). */
typedef struct ProtoCCache ProtoCCache;

typedef struct {
  /* Topology: exactly one of @graph (static W = topo_gossip_new(graph,
   * gossip)) or @schedule (W_r = topo_schedule_gossip(schedule, r), r the
   * gossip round; borrowed, must outlive the run). */
  const TopoGraph *graph;
  TopoGossipKind gossip; /* default uniform */
  TopoSchedule *schedule;

  const char *protocol; /* spec, default "dsgd" */
  double sigma;         /* noise multiplier >= 0, default 1 */
  double clip;          /* Delta > 0, default 1 */
  double lr;            /* eta > 0, default 0.1 */
  /* T local steps: epochs * batches (k, b, both >= 1). Without a task,
   * @rounds (when > 0) sets T with b = 1, k = T (user-level participation)
   * unless epochs/batches are given with k * b = T. */
  guint epochs, batches, rounds;
  const char *mode;    /* NULL: sync */
  const char *latency; /* NULL: constant:ms=0 (sim_latency_parse spec) */
  const char *loss;    /* NULL: 0 (sim_loss_parse spec) */
  double compute_ms;   /* local compute time per step, >= 0, default 0 */
  guint64 seed;
  /* Nullable, borrowed: the memo of C_local fits this run shares with the
   * other runs of its topology (ProtoCCache); NULL: the run fits its own. */
  ProtoCCache *c_cache;
  /* With @delivery_seed_set, every latency and loss draw comes from the
   * streams of @delivery_seed (sim_engine_set_delivery_seed), every other
   * draw from @seed's: runs of several seeds then share one delivery
   * pattern (the runs of an audit). Otherwise @seed draws them too. */
  gboolean delivery_seed_set;
  guint64 delivery_seed;

  /* Optional learning task: without @dataset (or @external) the run is
   * accounting-only (d = 0). */
  const char *dataset;   /* learn_data_load spec */
  /* Or a task whose data and model the caller holds (borrowed, must
   * outlive the run; @dataset and @model must then be NULL). */
  const struct ProtoExternalTask *external;
  const char *model;     /* learn_model_new spec, default "linear" (regression) or
                         * "softmax" (classification) */
  double test_fraction;  /* default LEARN_DEFAULT_TEST_FRACTION */
  const char *partition; /* learn_partition_new spec; NULL: uniform */
  guint eval_every;      /* evaluate every N steps (and at T); 0: at T only */
  guint threads;         /* evaluation threads, >= 1, default 1 */
  /* Sampled evaluation: how many nodes are evaluated and on how many test
   * rows, both drawn uniformly without replacement from the run's seed (a
   * stream of its own). 0: the default (proto_eval_default); PROTO_EVAL_ALL,
   * or a count at least the total: every one. */
  guint eval_nodes;
  guint eval_rows;

  SimLinStorage storage; /* provenance: default SIM_LIN_SPARSE; SIM_LIN_NONE: off */
  /* Nullable, borrowed: provenance over these @n_kept nodes only (increasing
   * ids), every other node known to the attackers (sim_lin_space_keep_nodes:
   * the local path's ball, docs/local-bounds.md). NULL: every node. */
  const guint *kept;
  guint n_kept;
  /* Nullable, borrowed: of the known nodes, those whose messages keep their
   * provenance (sim_lin_space_hear_nodes: the ball's shell; increasing
   * ids, none kept). Only with @kept. */
  const guint *heard;
  guint n_heard;
  /* Nullable, borrowed, with @kept: the messages these nodes (not kept)
   * send carry one fresh nuisance variable each, and a noise variable is
   * known only when none of its owners is kept (sim_lin_space_nuisance_from:
   * the local path's lower bound, docs/local-bounds.md). */
  const guint *nuisance_from;
  guint n_nuisance_from;
  /* A streaming observer rebases the provenance at every round (privacy/
   * stream.c): a linvec's coefficients then span one round, not the run.
   * Only the memory pre-check of proto_run_new reads it. */
  gboolean rebased;
} ProtoRunConfig;

/** Every node, or every test row, in ProtoRunConfig.eval_nodes / eval_rows. */
#define PROTO_EVAL_ALL G_MAXUINT
/* The default evaluation: up to PROTO_EVAL_FULL_NODES nodes, every node on
 * every test row; beyond, PROTO_EVAL_SAMPLE_NODES nodes on
 * PROTO_EVAL_SAMPLE_ROWS test rows, 10^7 predictions per evaluation step
 * whatever the graph (on a million nodes a round of D-SGD alone sends 8 x
 * 10^6 messages). */
#define PROTO_EVAL_FULL_NODES 10000u
#define PROTO_EVAL_SAMPLE_NODES 1000u
#define PROTO_EVAL_SAMPLE_ROWS 10000u

/** proto_run_config_init: the defaults above (every other field zero/NULL). */
void proto_run_config_init(ProtoRunConfig *cfg);

/** One evaluation: node @node's model after @step local steps. */
typedef struct {
  guint step;
  guint node;
  double train_loss;    /* mean loss on the node's own training records */
  double test_loss;     /* on the test split (MSE for regression); NAN if empty */
  double test_accuracy; /* NAN for regression or an empty test split */
} ProtoMetric;

typedef struct {
  SimTime sim_time;        /* simulated time at the end */
  SimEngineStats engine;   /* messages sent, delivered, dropped, ... */
  guint64 gathers;         /* completed gathers (node-rounds) */
  guint64 partial_gathers; /* deadline mode: gathers completed by the timer */
  guint64 late_discarded;  /* messages that arrived too late to be used */
  guint64 stale_inputs;    /* stale mode: inputs older than the gathered round */
  guint n_noise;           /* noise variables registered (rebase state variables,
                             * SIM_NOISE_KIND_STATE, not counted) */
} ProtoRunStats;

typedef struct ProtoRun ProtoRun;

/**
 * proto_run_new: builds a run without starting it: parses the protocol and
 * mode, loads and partitions the dataset, creates the engine (links from
 * @latency/@loss), the noise registry, the linvec space, the nodes (each
 * starting at the same public initial model), and calls the protocol's init
 * and node_init. Subscribe to proto_run_engine()'s bus before proto_run_run
 * to observe every message.
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (no or two topologies, sigma < 0,
 * clip or lr <= 0, T = 0, k * b != T, sync mode with loss > 0, threads 0,
 * more nodes than training records, or nodes' models and provenance that
 * would exceed spec_memory_limit(): estimated before any is allocated, the
 * message giving the size needed), spec errors (proto_spec_parse,
 * proto_mode_parse, sim_latency_parse, sim_loss_parse), dataset and model
 * errors (LEARN_ERROR), schedule errors (TOPO_ERROR), protocol init errors.
 * Returns: (transfer full) the run, or NULL.
 * Complexity: loading the data + O(n + m) + the protocol's init (Mafalda:
 * the optimizer, O(T^3) per iteration).
 */
ProtoRun *proto_run_new(const ProtoRunConfig *cfg, GError **error);

/**
 * proto_task_data: the training and test records a run with @dataset,
 * @test_fraction and @seed trains and tests on (the same split and
 * standardization as proto_run_new's), and the initial parameters of
 * built-in @model (NULL: linear or softmax by task) from that seed, so a
 * caller's own model (ProtoExternalTask) can be given the very same data
 * and, for the same model, start. Outputs owned by the caller.
 * Errors: those of learn_data_load and learn_model_new. O(loading).
 */
gboolean proto_task_data(const char *dataset, const char *model, double test_fraction, guint64 seed,
                         LearnDataset **train, LearnDataset **test, double **init, gsize *dim,
                         GError **error);

/** proto_run_free: frees @run (NULL ignored); the engine's bus subscribers are destroyed. */
void proto_run_free(ProtoRun *run);

/**
 * proto_run_run: runs the simulation until every node is done and no event
 * is left, then waits for the evaluations. Only once per run.
 * Errors: PROTO_ERROR_STALLED when the engine ran out of events with nodes
 * still waiting (names the first such node, its round and the missing
 * neighbours: lost messages in sync mode, e.g. behind a down link, a protocol
 * that never finishes);
 * PROTO_ERROR_CANCELLED; errors raised by the protocol's handlers.
 * Complexity: O(events x log pending + per-step work).
 */
gboolean proto_run_run(ProtoRun *run, GError **error);

/** proto_run_cancel: makes a running proto_run_run stop with
 * PROTO_ERROR_CANCELLED; async-signal-safe (only sets a flag). */
void proto_run_cancel(ProtoRun *run);

/** proto_run_set_progress: @func (nullable) is called from proto_run_run. */
void proto_run_set_progress(ProtoRun *run, ProtoProgressFunc func, gpointer user_data);

/* The values of gradient slot (@node, @t): fill the @d doubles of @g. */
typedef void (*ProtoGradientFunc)(guint node, guint t, double *g, gsize d, gpointer user_data);
/**
 * proto_run_set_gradient_func: with a task, every local step takes its
 * gradient slot's values from @func (nullable: the task's clipped batch
 * gradient again) instead of the data, so that an audit sets a victim's
 * gradients to a canary and everyone else's to fixed values while the
 * protocol's own code draws and adds the noise. Call before proto_run_run. O(1).
 */
void proto_run_set_gradient_func(ProtoRun *run, ProtoGradientFunc func, gpointer user_data);

/* What gather (@node, @round) applied: its @n_inputs inputs (sender, the
 * round of the sender's message, and the weight the runtime gave it, after
 * deadline mode's renormalisation; payloads borrowed for the call). */
typedef void (*ProtoGatherFunc)(guint node, guint round, guint n_inputs, const ProtoInput *inputs,
                                gpointer user_data);
/**
 * proto_run_set_gather_func: @func (nullable) is called for every completed
 * gather, before the protocol's on_gathered, with the very weights the
 * protocol averages with: the accounting of asynchronous runs reads the
 * gossip matrices a run applied off it (proto_account_deliveries). Call
 * before proto_run_run. O(1).
 */
void proto_run_set_gather_func(ProtoRun *run, ProtoGatherFunc func, gpointer user_data);

/** Accessors (transfer none), valid while @run lives. O(1). The run's size,
 * horizon (T, k, b), space and noise registry are read off its context with
 * the proto_context_* getters of protocols/plugin.h, one family for the
 * runtime, the protocols and the plugins alike. */
SimEngine *proto_run_engine(ProtoRun *run);
ProtoContext *proto_run_context(ProtoRun *run);
const ProtoVTable *proto_run_protocol(const ProtoRun *run);
/** Node @u's model (u < n). */
const SimLinvec *proto_run_node_model(ProtoRun *run, guint u);
/** The task (NULL in accounting-only runs). */
const LearnDataset *proto_run_train_set(const ProtoRun *run);
const LearnDataset *proto_run_test_set(const ProtoRun *run);
const LearnModel *proto_run_learn_model(const ProtoRun *run);
/** Which training records each node holds (NULL in accounting-only runs). */
const LearnPartition *proto_run_partition(const ProtoRun *run);
/** The initial model every node starts from (d doubles; NULL without task). */
const double *proto_run_initial_params(const ProtoRun *run);

/**
 * proto_run_metrics: the evaluations, sorted by (step, node): one row per
 * evaluated node (every node unless sampled: proto_run_eval_sample) and
 * evaluation step (every eval_every steps, and T). NULL (and *@n = 0)
 * without a task or before the run.
 */
const ProtoMetric *proto_run_metrics(const ProtoRun *run, gsize *n);
/** Mean test loss over the evaluated nodes at evaluation step @step (NAN if none). O(n). */
double proto_run_mean_test_loss(const ProtoRun *run, guint step);

/** What a run evaluates (ProtoRunConfig.eval_nodes and eval_rows resolved). */
typedef struct {
  guint nodes;      /* nodes evaluated, of n_nodes */
  guint n_nodes;
  gsize rows;       /* test rows each is evaluated on, of n_rows */
  gsize n_rows;
  gboolean sampled; /* fewer nodes or rows than all: drawn from @seed */
  guint64 seed;     /* the run's seed */
} ProtoEvalSample;

/**
 * proto_run_eval_sample: fills @out with what @run evaluates (all zero
 * without a task). Which nodes are the node column of proto_run_metrics.
 * O(1).
 */
void proto_run_eval_sample(const ProtoRun *run, ProtoEvalSample *out);

/*
 * Rounds and live metrics. Round R is complete when every node has taken R
 * local steps, each with the gossip that follows it (Muffliato: K gossip
 * rounds per step), i.e. when the last node holds theta_R: that is when its
 * model is evaluated at step R. The runtime then publishes a SIM_BUS_ROUND
 * event (round = R, seq = R) on the engine's bus; round 0, the initial
 * state, is published when the run starts (time 0, before any message).
 * Rounds complete in increasing order; a node that stops early (done before
 * T steps) holds the later rounds back.
 */

/**
 * ProtoMetricsFunc: evaluation step @step is known for every evaluated node.
 * @rows: the @n_nodes metrics of that step, one per evaluated node (every
 *   node unless sampled), sorted by node (the rows
 *   proto_run_metrics will give; valid during the call only).
 * @t: the simulated time of the call (see proto_run_set_metrics_func).
 * Called from the thread running proto_run_run, once per evaluation step,
 * in increasing step order. Returning FALSE (with @error set) stops the run,
 * which then fails with that error.
 */
typedef gboolean (*ProtoMetricsFunc)(ProtoRun *run, SimTime t, guint step, const ProtoMetric *rows,
                                     guint n_nodes, gpointer user_data, GError **error);

/* The lag `dpgossip train` and `run` publish metrics with (docs/events.md):
 * on the paper's housing run (148 nodes, evaluation every 16 steps, two
 * threads) it cuts the simulation's waiting for evaluations from about
 * 0.9 s to 0.1 s, while a viewer's loss curve stays a few rounds behind. */
#define PROTO_METRICS_LAG_DEFAULT 4

/**
 * proto_run_set_metrics_func: hands every evaluation step to @func while the
 * run goes on: the metrics of step s right after the round event of round
 * s + @lag (at its simulated time), or, for steps whose round s + @lag never
 * completes (the last ones when @lag > 0), when the simulation is over (at
 * its final time, before proto_run_run returns, only if the run succeeded).
 * The choice of the moment depends on the simulation only: with evaluation
 * threads, the sim thread waits there for the step's evaluations if they are
 * not finished, so calls, values and their order do not depend on the
 * number of threads or their timing. A larger @lag gives the threads that
 * many rounds of simulation to evaluate a step before anyone waits. Nothing
 * is called without a task. Call before proto_run_run; @func NULL removes it.
 * Complexity: O(1); each call then costs O(n).
 */
void proto_run_set_metrics_func(ProtoRun *run, guint lag, ProtoMetricsFunc func,
                                gpointer user_data);
/**
 * proto_edge_secret_sample: the @d standard-normal values of the edge
 * secret of nodes {@a, @b} (either order) at @round in a run of seed @seed:
 * the sample proto_node_edge_secret gives both ends, a pure function of its
 * arguments, so that an audit can give a colluding end the values it knows.
 * Errors: SIM_ERROR from the generator. O(d).
 */
gboolean proto_edge_secret_sample(guint64 seed, guint a, guint b, guint round, double *z, gsize d,
                                  GError **error);

/** proto_run_get_stats: counters of the run so far. */
void proto_run_get_stats(ProtoRun *run, ProtoRunStats *stats);

/* ===================================================================== */
/* Plugins loaded at run time (plugin_load.c)                             */
/* ===================================================================== */

/** The environment variable listing plugin folders, ':'-separated. */
#define PROTO_PLUGIN_PATH_ENV "DPGOSSIP_PLUGIN_PATH"

/**
 * proto_plugin_load: loads the protocol plugin @path with GModule and
 * registers its protocol (docs/plugins.md). The shared object must export
 * PROTO_PLUGIN_SYMBOL returning a ProtoVTable of version
 * PROTO_PLUGIN_ABI_VERSION, or of version 1 (read up to finish into a whole
 * vtable that keeps abi_version 1, whose NULL handlers keep their version-1
 * meaning), that passes proto_registry_register's checks (valid name;
 * version 1: mandatory handlers init and on_start; parameter specs with
 * known types, defaults that parse and lie in range, distinct names) and
 * whose name is not registered yet. Every symbol the plugin uses must be
 * resolvable when it is opened (RTLD_NOW): a plugin calling a function this
 * program does not export is refused, never run. Loading the same file
 * again (same canonical path) returns the vtable loaded the first time. A
 * loaded plugin stays resident for the life of the process (the registry
 * keeps pointers into it). Thread-safe.
 * @vtable: (out) (optional): the registered protocol.
 * Errors (the message names @path and says what to do):
 *   PROTO_ERROR_IO: missing, unreadable, or a directory;
 *   PROTO_ERROR_FORMAT: not a loadable shared object (dlopen's reason,
 *     e.g. an undefined symbol), or no PROTO_PLUGIN_SYMBOL (not a plugin);
 *   PROTO_ERROR_INVALID_ARGUMENT: the entry point returned NULL, another
 *     ABI version, a missing mandatory handler, a parameter spec that does
 *     not parse, a name clashing with a built-in or an already loaded
 *     protocol.
 * Nothing stays loaded on error. Complexity: dlopen + O(registered + params).
 */
gboolean proto_plugin_load(const char *path, const ProtoVTable **vtable, GError **error);

/**
 * proto_plugin_load_paths: loads each plugin of @paths (NULL-terminated,
 * nullable) in order with proto_plugin_load, stopping at the first that
 * fails: what a front end does with the plugin files its options name
 * (the command line's --protocol-plugin, the library's plugins=), in one
 * place. With exactly one path, *@single receives its protocol's name, the
 * default protocol of a command given one plugin; otherwise NULL.
 * @single: (out) (optional) (transfer full): its old value is freed.
 * Errors: those of proto_plugin_load; the plugins loaded before the one
 * that failed stay loaded. Complexity: that of each load.
 */
gboolean proto_plugin_load_paths(const char *const *paths, char **single, GError **error);

/**
 * proto_plugin_search_path: the folders searched for plugins, in order:
 * the entries of $DPGOSSIP_PLUGIN_PATH (':'-separated, empty entries
 * skipped), then LIBDIR/dpgossip/plugins of the installation this program
 * runs from (when it runs from PREFIX/bin, or its host library from
 * PREFIX/LIBDIR: proto_plugin_set_host), then the configured install
 * folder ${CMAKE_INSTALL_FULL_LIBDIR}/dpgossip/plugins; duplicates removed.
 * Folders need not exist. Returns: (transfer full) a NULL-terminated array
 * (g_strfreev). O(length of the variable).
 */
char **proto_plugin_search_path(void);

/**
 * proto_plugin_find: the protocol called @name: the registered one if any,
 * else the first plugin of the search path that provides it: each folder's
 * NAME.so first (in search-path order), then every other *.so of each
 * folder (by file name) until one exports a protocol called @name. Plugins
 * loaded on the way stay registered; files that fail to load are skipped
 * in the second pass (and listed in the error when nothing is found).
 * proto_spec_parse calls this for names it does not know, so "--protocol
 * NAME" finds installed plugins. Thread-safe.
 * @vtable: (out) (optional).
 * Errors: PROTO_ERROR_UNKNOWN when no plugin provides @name (the message
 * lists the folders searched); the errors of proto_plugin_load for a
 * NAME.so that exists but does not load.
 * Complexity: one dlopen per candidate file.
 */
gboolean proto_plugin_find(const char *name, const ProtoVTable **vtable, GError **error);

/*
 * proto_plugin_locate: the file NAME.so of the first plugin folder that has
 * one (proto_plugin_search_path), found without loading anything, for
 * callers that must never run plugin code (validate). NULL when none.
 * Returns: (transfer full) the path. Complexity: one stat per folder.
 */
char *proto_plugin_locate(const char *name);

/** A plugin file that could not be loaded. */
typedef struct {
  char *path;
  GError *error;
} ProtoPluginFailure;

/**
 * proto_plugin_load_all: loads every *.so of the search-path folders (in
 * search-path order, then by file name), e.g. to list every protocol
 * available. Never fails as a whole.
 * Returns: (transfer full) the files that could not be loaded (possibly
 * empty; g_ptr_array_unref frees the elements too). Thread-safe.
 */
GPtrArray *proto_plugin_load_all(void);

/**
 * proto_plugin_origin: the canonical path of the plugin file @vt was loaded
 * from, or NULL for a protocol registered in-process (built-ins, or
 * proto_registry_register). (transfer none: valid for the process.) O(loaded).
 */
const char *proto_plugin_origin(const ProtoVTable *vt);

/*
 * Plugin scopes, for a library that runs several calls in one process
 * (libdpgossip, api/): a plugin loaded for one call must not be found by
 * the next one, although its code stays loaded (plugins never unload).
 *
 * proto_plugin_scope_begin: from now on, on the calling thread, the
 * registry (proto_registry_lookup, _list, _names, proto_spec_parse) shows
 * the built-in protocols and only the plugins loaded or found on the
 * search path on this thread since the scope began (proto_plugin_load,
 * proto_plugin_find: a plugin loaded earlier by another call is shown again
 * when this call loads or finds it too). Threads without a scope (the
 * command line, and the worker threads of a call, which only run protocols
 * its own thread has already resolved) see every registered protocol.
 * @hint: how the caller names a plugin file in errors (the command line's
 * "--protocol-plugin FILE.so"; the library's "plugins=['FILE.so']"); copied.
 * Scopes nest (the inner one is current until it ends).
 * Returns: (transfer full) the scope, for proto_plugin_scope_end. O(1).
 */
typedef struct ProtoPluginScope ProtoPluginScope;
ProtoPluginScope *proto_plugin_scope_begin(const char *hint);
/* proto_plugin_scope_end: ends and frees @scope (NULL: nothing), the outer
 * scope (or none) current again. Must be called on the thread that began it. */
void proto_plugin_scope_end(ProtoPluginScope *scope);

/*
 * proto_plugin_set_host: the file of the shared library that hosts the
 * plugin API (libdpgossip), process-wide, once before any search. Its
 * installation, PREFIX when the file is in PREFIX/LIBDIR, gives the
 * search path's installation folder instead of the program's (the
 * program is then e.g. python3, whose prefix is not dpgossip's).
 * @file: copied; NULL: the program's again. Thread-safe. O(length).
 */
void proto_plugin_set_host(const char *file);

/** proto_registry_is_builtin: TRUE for the protocols dpgossip ships (dsgd, ...). O(1). */
gboolean proto_registry_is_builtin(const ProtoVTable *vt);

/** proto_param_type_name: "int", "number", "string", "bool", "file" ("?" otherwise). */
const char *proto_param_type_name(ProtoParamType type);

/* ===================================================================== */
/* The accounting pipeline (account_plan.c, observed_run.c): what        */
/* `dpgossip account` and the scenarios share                            */
/* ===================================================================== */

/* How the per-victim blocks X_u of a run are computed. */
typedef enum {
  PROTO_ACCOUNT_STRUCTURED, /* the W-product structure of a synchronous run, no simulation */
  PROTO_ACCOUNT_OBSERVER,   /* simulate, record what each attacker set sees */
} ProtoAccountPath;

/* What decides the path. */
typedef struct {
  gboolean known;       /* the structured path knows the protocol and its C_local */
  ProtoModeKind mode;   /* the gossip mode */
  double loss;          /* message loss probability */
  guint n_links;        /* per-link overrides of the simulated run */
  gboolean run_options; /* options only a simulation reads were given (latency, lr, storage) */
  /* The caller accounts an asynchronous run on its delivery record
   * (proto_deliveries_record) and proto_account_recordable says the
   * structured path takes this protocol in this mode. */
  gboolean recordable;
} ProtoAccountCase;

/*
 * The delivery record of an asynchronous run (account_deliveries.c): which
 * gossip messages of each round reached whom, and the W_r every gather
 * applied, from one simulation of the run without provenance.
 */
typedef struct ProtoDeliveries ProtoDeliveries;

/**
 * proto_deliveries_record: simulates @cfg (the accounted run: same graph or
 * schedule, protocol, mode, latency, loss and seed) with models of numbers
 * only and records, for its @R gossip rounds, the weights of every gather
 * (ProtoGatherFunc: the runtime's own renormalisation) and every message
 * sent and lost. Link overrides are not applied (the plan keeps them on the
 * observer path).
 * Stale mode: an input of an earlier round is read from a slot of a
 * delay-augmented state (proto_deliveries_delayed), held from the round
 * after its own through its last use.
 * Errors: those of proto_run_new and proto_run_run; PROTO_ERROR_FAILED
 * when the record is inconsistent (a node that never gathered a round, a
 * gather of a future message, more than @R rounds).
 * The record's memory is estimated before the run (every node sending to
 * each neighbour every round) and refused over the budget with the bytes
 * (PRIV_ERROR_MEMORY). @progress (nullable) is called from the simulation
 * with the rounds simulated so far of @R.
 * Returns: (transfer full) the record (proto_deliveries_free), or NULL.
 * Complexity: the run's events, O(messages log messages) to sort them;
 * memory O(n + messages) (about 40 bytes a message).
 */
typedef void (*ProtoDeliveriesProgressFunc)(guint done, guint R, gpointer data);
ProtoDeliveries *proto_deliveries_record(const ProtoRunConfig *cfg, guint R,
                                         ProtoDeliveriesProgressFunc progress,
                                         gpointer progress_data, GError **error);

/**
 * proto_deliveries_record_ball: proto_deliveries_record's run, the whole
 * graph's (the timing of every node decides what a ball receives:
 * docs/local-bounds.md, "Asynchronous runs"), recording only a ball's part:
 * the nodes v with @keep[v] != G_MAXUINT, renumbered @keep[v] (0 to
 * @n_kept - 1), the gathers of the kept nodes i with @rows[i] (the ball:
 * their rows of W_r are the run's, bit for bit; every other kept row is the
 * identity), and the messages between kept nodes with at least one end in
 * @rows. Stale mode: slots only for the late messages those gathers read.
 * @keep: n entries, @rows: @n_kept (both the caller's, read during the
 * call). @progress (nullable): the run's steps, as proto_run_set_progress.
 * Errors: proto_deliveries_record's, and PROTO_ERROR_FAILED when a recorded
 * gather reads a node that is not kept (@keep is not closed over the
 * graph's links).
 * Complexity: the whole run's events (O(messages log n) time), O(n) memory
 * for the run plus about 40 bytes a recorded message.
 */
ProtoDeliveries *proto_deliveries_record_ball(const ProtoRunConfig *cfg, guint R, const guint *keep,
                                              guint n_kept, const guint8 *rows,
                                              ProtoProgressFunc progress, gpointer progress_data,
                                              GError **error);
/**
 * proto_deliveries_time_ball: proto_deliveries_record_ball's record, bit for
 * bit, from a timing-only pass over the whole graph instead of the engine's
 * run (protocols/account_timing.c; docs/local-bounds.md, "Asynchronous
 * runs"): per round and node the send time, each message's loss and
 * arrival drawn by the engine's own code (sim_engine_draw_transmission),
 * each gather's completion, inputs and weights; no event queue, no models.
 * D-SGD, Muffliato, MF-D-SGD, AntiPGD, Mafalda (any C) and DECOR in
 * deadline or stale mode on a static graph. Where the engine's order of simultaneous
 * events would decide the record (deadline: a message to a ball node
 * arriving at the nanosecond of its deadline; stale: a ball node's gather
 * completing at the nanosecond of another message or loss notice it may
 * use), it stops; such a tie elsewhere leaves the record unchanged
 * (proto_deliveries_ties).
 * Returns: (transfer full) the record; or NULL with *@fallback (g_free) set
 * to why the pass does not apply (another mode or protocol, or that tie)
 * and no error: run proto_deliveries_record_ball then; or NULL with @error
 * (the run's configuration; PRIV_ERROR_MEMORY over the budget, with the
 * bytes). @keep, @rows, @progress: as proto_deliveries_record_ball.
 * Complexity: O(R n d) draws (stale:s=S: O(R n d S) steps), O(n d) memory
 * (the run's W, two arrays of n send times; stale mode S + 1 arrivals and
 * a round per link, 8 S + 12 bytes) plus about 40 bytes a recorded message.
 */
ProtoDeliveries *proto_deliveries_time_ball(const ProtoRunConfig *cfg, guint R, const guint *keep,
                                            guint n_kept, const guint8 *rows,
                                            ProtoProgressFunc progress, gpointer progress_data,
                                            char **fallback, GError **error);
void proto_deliveries_free(ProtoDeliveries *d);
/* The R applied gossip matrices and the R rounds' messages (transfer none,
 * valid while @d lives), for PrivStructuredProblem.gossip and .messages. */
guint proto_deliveries_rounds(const ProtoDeliveries *d);
/* Stale mode: the slots of the delay-augmented state (messages a gather
 * uses after their round; the gossip matrices are (n + slots) square), for
 * PrivStructuredProblem.n_delayed; 0 in the other modes. O(1). */
guint proto_deliveries_delayed(const ProtoDeliveries *d);
const TopoGossip *const *proto_deliveries_gossip(const ProtoDeliveries *d);
const PrivRoundMessages *proto_deliveries_messages(const ProtoDeliveries *d);
/* A timing pass's ties outside the ball's rows (proto_deliveries_time_ball):
 * deadline mode: messages that arrived at the nanosecond of their
 * receiver's deadline, used or late by the engine's event order; the run's
 * late and partial counts hold each as late (so may exceed the engine's by
 * up to this many each). Stale mode: gathers whose inputs that order
 * decides; the counts take every message at the completion as used (they
 * may differ from the engine's by a few per tie). The record does not
 * depend on them. 0 for the engine's record. O(1). */
guint64 proto_deliveries_ties(const ProtoDeliveries *d);
/* The run's late messages, partial gathers and lost messages (nullable outs). */
void proto_deliveries_counts(const ProtoDeliveries *d, guint64 *late, guint64 *partial,
                             guint64 *lost);

/**
 * proto_account_plan: the path `--path auto` (and a scenario's
 * privacy.path = auto) takes: structured whenever it describes the run
 * exactly, i.e. a protocol it knows in sync mode with no loss and no link
 * override, or (@c->recordable, proto_account_recordable) D-SGD,
 * Muffliato or DECOR in deadline or stale mode, MF-D-SGD in deadline mode
 * and, with a C whose noise has a low-order state, in stale mode, with or
 * without loss, no link override: the structured path then takes the run's
 * delivery record. Any schedule qualifies, churn included: the structured path
 * multiplies the time-varying W_{t-1} ... W_s, and an absent node's W_t row
 * and column are e_u (it neither sends nor receives, keeps its model,
 * steps and adds its noise as the simulated run does).
 * @why: (out) (transfer none) a static sentence saying why ("auto: ...").
 * Returns: the path. O(1).
 */
ProtoAccountPath proto_account_plan(const ProtoAccountCase *c, const char **why);

/*
 * The checks of an accounting request on typed values, shared by `dpgossip
 * account` and dpg_account (libdpgossip) so that both refuse the same
 * requests with the same words. Each fails with G_OPTION_ERROR_BAD_VALUE
 * (a usage error), its message naming the command line's options; callers
 * run them in the order of their messages. All O(1).
 */

/* T = @rounds > 0 and b = @interval > 0 dividing T. */
gboolean proto_account_check_horizon(gint rounds, gint interval, GError **error);

/* sigma >= 0, clip > 0, alpha > 1, 0 < delta < 1, all finite. */
gboolean proto_account_check_numbers(double sigma, double clip, double alpha, double delta,
                                     GError **error);

/* A learning rate @lr given (not NaN) is finite and > 0. */
gboolean proto_account_check_lr(double lr, GError **error);

/* The streaming accountant rebases sparse provenance: not with dense storage. */
gboolean proto_account_check_accountant(gboolean streaming, SimLinStorage storage, GError **error);

/* What a request asking for the structured path gave (TRUE: given). */
typedef struct {
  gboolean known;       /* the structured path knows the protocol and its C */
  const char *protocol; /* the protocol's spec, for the message */
  gboolean async_mode;  /* a mode other than sync */
  gboolean latency, loss, links, lr, storage, accountant;
  /* The run's delivery record describes it (proto_account_recordable):
   * --mode, --latency and --loss are taken. */
  gboolean recordable;
  gboolean local; /* --path local: synchronous runs, or recordable ones on the ball's record */
} ProtoAccountStructuredAsk;

/* Whether the structured path accounts a run of @protocol in @mode on its
 * delivery record (proto_deliveries_record): D-SGD, Muffliato and DECOR
 * (its secrets on the schedule's edges, PrivStructuredProblem.secret_gossip)
 * in deadline and stale mode, MF-D-SGD (and so Mafalda with a given C) in
 * deadline and stale mode (stale: the Kalman engine, for a C whose noise has
 * a state-space form of order <= 16, priv_structured_noise_state_fits, which
 * `dpgossip account` and dpg_account check on the job's C; scenarios keep
 * that case on the observer path, scen_account_recordable). The one answer
 * `dpgossip account`, dpg_account and the scenarios use. O(1). */
gboolean proto_account_recordable(PrivProtocol protocol, ProtoModeKind mode);

/* --path structured: a protocol it knows, and nothing it cannot take from
 * the run: --lr, --storage, --accountant, --link, and --mode, --latency or
 * --loss unless @recordable (--latency also in sync mode); --path local
 * takes none of them (the first message lists every such option given). */
gboolean proto_account_check_structured(const ProtoAccountStructuredAsk *a, GError **error);

/* --compare muffliato: @compare names it, the protocol @protocol_name is
 * dsgd, one of the trust models is PNDP (@has_pndp), and @schedule (NULL:
 * static) is static. */
gboolean proto_account_check_compare(const char *compare, const char *protocol_name,
                                     gboolean has_pndp, const char *schedule, GError **error);

/*
 * The option strings of an accounting request (account_options.c), parsed
 * alike for every caller. Errors are G_OPTION_ERROR_BAD_VALUE (usage
 * errors) whose messages name the command line's options.
 */

/**
 * proto_account_parse_trusts: appends to @out (a GArray of PrivTrust) the
 * trust models of @spec, "ldp", "pndp", "secldp" or a comma-separated list
 * of distinct ones ("pndp,secldp"; spaces around names are ignored).
 * Errors: an empty list, priv_trust_parse's (prefixed "--trust: "), a model
 * listed twice; @out's content is then unspecified.
 * Complexity: O(length of @spec).
 */
gboolean proto_account_parse_trusts(const char *spec, GArray *out, GError **error);

/* A per-link override of the simulated run (--link FROM:TO=SPEC). */
typedef struct {
  guint from, to;                    /* the directed link from -> to (ids, once planned) */
  const char *from_label, *to_label; /* as given: node labels (interned) */
  gboolean down;      /* SPEC "down": every message on it is dropped */
  SimLatency latency; /* otherwise: its latency model */
} ProtoAccountLink;

/**
 * proto_account_parse_link: "FROM:TO=down" or "FROM:TO=LATENCY" (a
 * sim_latency_parse spec, e.g. 8:1=constant:ms=1000) into @out. FROM and
 * TO are node labels (no blank or control byte; a graph without labels
 * names node u "u"), looked up in the graph by proto_account_job_plan
 * (topo_graph_node_parse: the one resolver of -a, victims and files).
 * Errors: the expected form, quoting @spec (NULL allowed) and
 * sim_latency_parse's reason. Complexity: O(length of @spec).
 */
gboolean proto_account_parse_link(const char *spec, ProtoAccountLink *out, GError **error);

/**
 * proto_account_parse_run_options: the simulated run's --mode, --latency
 * and --loss (each NULL when not given): proto_mode_parse,
 * sim_latency_parse (checked, the run parses it again) and sim_loss_parse;
 * a loss above 0 needs an asynchronous mode, since a lost message would
 * block a synchronous run forever. @pmode receives the mode (sync when
 * @mode is NULL), @loss_p (nullable) the loss probability (0 when @loss is
 * NULL).
 * Errors: the parsers', prefixed with the option's name ("--mode: "), and a
 * loss under the synchronous mode. Complexity: O(spec lengths).
 */
gboolean proto_account_parse_run_options(const char *mode, const char *latency, const char *loss,
                                         ProtoMode *pmode, double *loss_p, GError **error);

/* What --protocol names, as the accounting sees it. */
typedef struct {
  const ProtoVTable *vt; /* the registered protocol */
  /* TRUE when the structured path knows the protocol: dsgd, muffliato:K=k,
   * decor (with local noise when it has secrets), antipgd, mfdsgd and mafalda with C a family by formula (identity,
   * antipgd, sr, bsr) or a CSV file; then protocol is set and c_spec/band
   * say how to build C_local. The families fitted to the run's gossip
   * (proto_c_spec_fits_graph) are accounted on the observer path, unless
   * fitted from a sketch (probes > 0): then the structured and local
   * paths fit the same C on the sparse gossip of the whole graph. */
  gboolean structured;
  PrivProtocol protocol;
  guint K;       /* Muffliato's gossip rounds per step, else 1 */
  char *c_spec;  /* MF-D-SGD: C family name or CSV path; else NULL (owned) */
  guint band;    /* bsr's band (0: the participation interval b) */
  guint buffers; /* blt's buffers */
  guint probes;  /* a fitted C's sketch: probes (0: exact, on the dense W) */
  guint samples; /* mafalda in deadline or stale mode: its delivery records (0: the default) */
  /* DECOR: the secrets' noise multiplier given as sigma_secret=, NAN when
   * not given (then sigma, DECOR's default). */
  double sigma_secret;
} ProtoAccountProtocol;

/** Frees p->c_spec (NULL @p allowed). O(1). */
void proto_account_protocol_clear(ProtoAccountProtocol *p);

/**
 * proto_account_resolve_protocol: parses @spec with the protocol registry
 * (proto_spec_parse: built-ins, registered and installed plugins) into @p
 * and decides whether the structured path knows it.
 * Errors: proto_spec_parse's, prefixed with "--protocol: ";
 * G_OPTION_ERROR_BAD_VALUE for an empty C= of mfdsgd or mafalda. On error
 * @p owns nothing. Complexity: O(spec length x parameters).
 */
gboolean proto_account_resolve_protocol(const char *spec, ProtoAccountProtocol *p, GError **error);

/**
 * proto_shape_of: the accounting shape of @vt with @params, the one answer
 * to "how may the accountant see this protocol": its accounting_shape
 * (ProtoVTable, version 3), K 1 and sigma_secret NAN unless it says
 * otherwise; PROTO_SHAPE_NONE (observer path only) for a vtable without one.
 * O(1).
 */
void proto_shape_of(const ProtoVTable *vt, const ProtoParams *params, ProtoShape *shape);

/**
 * proto_account_structured: priv_structured_blocks of @p on the run's
 * gossip: the static @w (@schedule NULL), else W_r =
 * topo_schedule_gossip(@schedule, r) for the K T gossip rounds r a simulated
 * run uses (K = p->K for Muffliato, else 1), so both paths see the same
 * matrices. p->gossip and p->n_gossip are ignored, except on a delivery
 * record (p->messages set): there p->gossip is the record's W_r and the
 * run's gossip goes to p->secret_gossip (DECOR's edges).
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (more than G_MAXUINT / 2 gossip
 * rounds), the schedule's, priv_structured_blocks'.
 * Complexity: O(K T (n + m)) for the matrices, then priv_structured_blocks.
 */
PrivBlocks *proto_account_structured(const PrivStructuredProblem *p, const TopoGossip *w,
                                     TopoSchedule *schedule, GError **error);

/**
 * proto_account_local: priv_local_report of @p at @radius hops on the same
 * gossip as proto_account_structured (the static @w, or the K T rounds of
 * @schedule), with the report options @opt. @info: (out) (optional).
 * Errors: those of proto_account_structured's matrices and priv_local_report.
 * Complexity: O(K T (n + m)) for the matrices, then priv_local_report.
 */
PrivReport *proto_account_local(const PrivStructuredProblem *p, const TopoGossip *w,
                                TopoSchedule *schedule, guint radius, const PrivAccountOptions *opt,
                                PrivLocalInfo *info, GError **error);

/**
 * proto_c_spec_fits_graph: TRUE when the C_local family @spec is fitted to
 * the run's gossip (mafalda, toeplitz, blt), so that proto_c_local needs
 * the recipe's graph or schedule; FALSE for the families by formula, a CSV
 * file and NULL. The one list every caller asks. O(1).
 */
gboolean proto_c_spec_fits_graph(const char *spec);

/*
 * proto_c_spec_is_cset: TRUE when @spec names a file that is a C-set (one C
 * per class of nodes, mf_cset_read), not a single C: mfdsgd:C=FILE then
 * gives each node its own class's C. FALSE for the families and NULL. O(1).
 */
gboolean proto_c_spec_is_cset(const char *spec);

/*
 * proto_cmatrix_load_cset: mf_cset_read of @path for @T steps and @n nodes
 * into @set, its errors as PROTO_ERROR_IO (unreadable) or
 * PROTO_ERROR_FORMAT (FILE:LINE). O(classes T^2 + n).
 */
gboolean proto_cmatrix_load_cset(const char *path, guint T, guint n, MfCSet *set, GError **error);

/* How C_local (MF-D-SGD's local noise correlation) is made. */
typedef struct {
  const char *spec;       /* identity, antipgd, sr, bsr, mafalda, toeplitz, blt, or a CSV file */
  guint T, k, b;          /* steps, epochs, participation interval (T = k b) */
  guint band;             /* bsr's band (0: b); Mafalda's band (0: none) */
  guint buffers;          /* blt's buffers, 1..MF_BLT_MAX_BUFFERS (0: an error) */
  const TopoGraph *graph; /* fitted families: the static topology, or NULL with... */
  TopoSchedule *schedule; /* ...a schedule (borrowed; static or time-varying) */
  TopoGossipKind gossip;  /* fitted families: the gossip weights on @graph */
  /* Fitted families: 0, the exact fit on the dense n x n W (O(n^2) memory,
   * an O(n^3) spectral form); K >= 1, the fit on the mean of K Hutchinson
   * probes of the workload's Gram matrix over the sparse W_t
   * (proto_sketch_gram; O(n T + T^2) memory), the probes' signs drawn from
   * @seed: a run uses its own seed, the one its schedule is drawn with, so
   * `dpgossip mafalda --schedule SPEC --seed S --probes K` prints the C of
   * a run with --seed S. */
  guint probes;
  guint64 seed;
  /* Mafalda in deadline or stale mode (@mode, with the run's @latency and
   * @loss; NULL or "sync": the scheduled gossip's objective): C fitted to
   * the mean Gram matrix of @samples delivery records of @seed
   * (proto_delivery_gram: records proto_delivery_record_seed(seed, i),
   * never the run's own), each exact or, with @probes, sketched; the C of
   * `dpgossip mafalda --mode MODE --latency L --loss P --seed S --samples N
   * [--probes K]` to the bit. Every record in time on a static graph: the
   * synchronous C. */
  const char *mode, *latency, *loss;
  guint samples;
} ProtoCRecipe;

/*
 * A memo of the C_local fits (mafalda, toeplitz, blt: optimizations on the
 * gossip) shared by runs of one topology (the same graph and gossip, or
 * schedule), so that a batch of runs (an audit's trials) fits once: set
 * ProtoRunConfig.c_cache. Entries are keyed by the recipe's spec, T, k, b,
 * band and buffers; the caller guarantees the topology. Thread-safe.
 * (The type is declared before ProtoRunConfig.)
 */

/** proto_c_cache_new: an empty memo. O(1). */
ProtoCCache *proto_c_cache_new(void);
/** proto_c_cache_free: frees @c and its entries (NULL ignored). */
void proto_c_cache_free(ProtoCCache *c);
/** proto_c_cache_fits: the fits @c computed (not counting hits). O(1). */
guint proto_c_cache_fits(const ProtoCCache *c);

/**
 * proto_c_local: the T x T lower-triangular C_local of @r (g_free): the
 * families by formula (mf_baseline), Mafalda's optimum for the
 * post-average workload of the run's static gossip (paper Alg. 2) or, under
 * a schedule that varies, for its expectation over the schedule
 * (proto_schedule_gram: never the rounds this run draws; a random schedule
 * without a finite law is refused), or the T x T CSV file @r->spec names. The one recipe the
 * protocol, `dpgossip account` and the scenarios use, so all see the same C.
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (empty spec; a family fitted to
 * the gossip, proto_c_spec_fits_graph, with neither graph nor schedule;
 * C=mafalda under resample or Markov churn), PROTO_ERROR_FAILED
 * (a family's or Mafalda's failure, a gossip matrix of the schedule),
 * PROTO_ERROR_IO (neither a family nor an existing file, unreadable file),
 * PROTO_ERROR_FORMAT (FILE:LINE of a malformed CSV).
 * Complexity: O(T^2) for a family or a file; Mafalda: that of
 * mf_mafalda_c (static) or of proto_schedule_gram, plus the optimizer's.
 */
double *proto_c_local(const ProtoCRecipe *r, GError **error);

/* How proto_schedule_gram took the expectation over a schedule. */
typedef enum {
  PROTO_EXPECT_STATIC,  /* every round is one W: today's static Gram matrix */
  PROTO_EXPECT_TRACE,   /* a fixed sequence W_0 .. W_{T-1}: its Gram matrix */
  PROTO_EXPECT_IID,     /* independent rounds: exact, from one round's law */
  PROTO_EXPECT_SAMPLED, /* the mean over sampled schedules */
} ProtoExpectation;

/* The expected workload Gram matrix of a schedule (proto_schedule_gram). */
typedef struct {
  /* In. */
  guint samples; /* 0: exact; >= 2: S schedules fitted, S others scored */
  guint64 seed;  /* sampled: schedule i is the schedule reseeded with seed + i */
  /* 0: each schedule's Gram matrix exact (dense, O(n^3 T^2)); K >= 1: its
   * Hutchinson estimate from K probes over the sparse W_t (mf_gram_sketch,
   * O(K (T^2 nnz + T^3 n))). A fixed or static schedule without samples: C
   * fitted on K one-probe estimates (seed), every strategy scored on K
   * others (seed + 1), K >= 2; a static W from its Frobenius products
   * (proto_sketch_gram). */
  guint probes;
  MfWorkload workload;
  /* Out. */
  ProtoExpectation how;
  guint64 outcomes; /* PROTO_EXPECT_IID: outcomes of a round */
  double *W;        /* PROTO_EXPECT_STATIC: the one W (n x n), else NULL */
  double *H;        /* the T x T Gram matrix to fit (NULL when STATIC) */
  double **score;   /* PROTO_EXPECT_SAMPLED: the S scoring Gram matrices */
  guint n_score;    /* how many: samples, or probes for a sketched trace */
  double seconds;   /* wall seconds to compute the above */
} ProtoScheduleGram;

/**
 * proto_schedule_gram: fills @sg's outputs for the schedule @s over T
 * rounds (docs/design.md, "Mafalda over a changing network"). Exact unless
 * @sg->samples: the one W of a schedule whose rounds all give it (static,
 * or a law of one outcome), the Gram matrix of the fixed sequence @s draws
 * (its own seed: a trace known in advance), the expectation over i.i.d.
 * rounds from their law (mf_gram_iid; @s's seed plays no part). With
 * @sg->samples = S, the mean over the schedules topo_schedule_reseeded(@s,
 * seed + i), i < S, and the S next ones as a scoring set. The one
 * computation behind `dpgossip mafalda --schedule` and `-p mafalda`.
 * Errors: TOPO_ERROR_INVALID_ARGUMENT for a random schedule without a
 * finite law (and no samples) or a law of more than 2^22 outcomes, the
 * schedule's errors, MF_ERROR_MEMORY naming the bytes.
 * Complexity: trace and sampled O(n^3 T^2) per sequence; i.i.d.
 * O(outcomes nnz^2 + T n^4) time, O(n^4 + T n^2) memory.
 */
gboolean proto_schedule_gram(ProtoScheduleGram *sg, TopoSchedule *s, guint T, GError **error);

/**
 * proto_schedule_gram_classes: the classes' Gram matrices H_c of the
 * schedule @s whose expectation @sg (proto_schedule_gram) took, for the
 * classes @node_class (n entries, < @K) of the nodes whose noise they carry
 * (mf_gram_time_varying_classes: sum_c H_c = H). A static W or a fixed
 * sequence: exact (@score NULL on return); a sketched sequence (probes):
 * @fit from the probes seeded sg->seed and @score from those seeded
 * sg->seed + 1, both restricted to each class's nodes (unbiased for H_c).
 * Independent rounds and sampled schedules are refused for now.
 * @fit, @score: (out) K T x T matrices, class after class (g_free).
 * Errors: MF_ERROR_INVALID_ARGUMENT (refused), MF_ERROR_MEMORY, the
 * schedule's. Complexity: O(n^3 T^2) exact, O(K probes (T^2 nnz + T^3 n)).
 */
gboolean proto_schedule_gram_classes(const ProtoScheduleGram *sg, TopoSchedule *s, guint T,
                                     const guint *node_class, guint K, double **fit, double **score,
                                     GError **error);

/**
 * proto_schedule_online: @frac[u] = the fraction of the rounds 0 .. T-1 in
 * which node u is present under @s (1 for a static schedule). O(n T).
 */
gboolean proto_schedule_online(TopoSchedule *s, guint T, double *frac);

/**
 * proto_classes_by_rank: @K classes of equal size (within one) from the
 * nodes ranked by @frac increasing (ties by node id): class 0 the least
 * online. O(n log n).
 */
void proto_classes_by_rank(const double *frac, guint n, guint K, guint *node_class);

/**
 * proto_sketch_gram: the workload Gram matrix of @s over @T rounds
 * estimated from @K >= 1 Hutchinson probes (signs from @seed) over its
 * sparse gossip, never an n x n matrix: *@H (T x T, g_free) is the mean of
 * the K probes' estimates, unbiased. A static @s: from W's Frobenius
 * products (mf_gram_sketch_static), and when @form is not NULL their mean
 * as a Frobenius form in *@form (mf_gram_spectral_free) for the Toeplitz
 * and BLT fits. A fixed sequence (no @form): mf_gram_sketch over its T W_t.
 * The one sketch behind `-p mafalda:probes=K`, `C=blt,probes=K` and
 * `dpgossip mafalda --probes K` (whose fit it is: the same C to the bit).
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (a random schedule; @form of a
 * time-varying one), the schedule's, MF_ERROR_MEMORY naming the bytes.
 * Complexity: static O(K (T nnz + T^2 n)) time, O(n T + K T^2) memory;
 * fixed sequence O(K (T^2 nnz + T^3 n)) time.
 */
gboolean proto_sketch_gram(TopoSchedule *s, guint T, MfWorkload wl, guint K, guint64 seed,
                           double **H, MfGramSpectral **form, GError **error);

/**
 * proto_delivery_record_seed: the seed of delivery record @i of the
 * records a C is fitted to for a deadline or stale run of seed @seed
 * (proto_delivery_gram; `dpgossip mafalda --mode ... --seed S`, `-p
 * mafalda` in such a run with seed S, or delivery seed S in an audit):
 * sim_rng_stream_seed(@seed, @i, SIM_RNG_USER + 45), or ~@seed should that
 * hash be @seed itself, so that no record is the run's own (its latency
 * and loss draws: a C fitted to them would know the run's late messages in
 * advance). O(1).
 */
guint64 proto_delivery_record_seed(guint64 seed, guint i);

/* The delivery records `-p mafalda` (and mfdsgd:C=mafalda) fits its C to
 * in deadline and stale modes when samples= is not given: the mean of 16
 * records has a quarter of one record's spread, at 16 records' cost (on
 * Florentine, T = 80: 0.3 s in deadline mode, 1.5 s in stale mode). */
#define PROTO_DELIVERY_SAMPLES 16

/* The expected Gram matrix of a deadline or stale run's delivery
 * statistics (proto_delivery_gram). */
typedef struct {
  /* In. */
  guint samples; /* records S >= 1: proto_delivery_record_seed(seed, first + i), i < S */
  guint first;   /* the first record's index (0; the CLI's scoring set: S) */
  guint probes;  /* 0: each record's H exact (dense); K >= 1: from K probes */
  MfWorkload workload;
  /* Out. */
  gboolean in_time; /* every record's every W_r is the gossip's W, bit for bit */
  double *H;        /* T x T: the mean of the records' H (g_free) */
  double delivered; /* mean over the records of the fraction of messages used */
  double seconds;   /* wall seconds */
} ProtoDeliveryGram;

/**
 * proto_delivery_gram: the workload Gram matrix of the gossip a deadline
 * or stale run really applies (docs/design.md, "Mafalda under deadline
 * mode" and "Mafalda under stale mode"): the mean over @dg->samples
 * delivery records (proto_deliveries_time_ball over every node when it
 * applies, else proto_deliveries_record: the engine's own timing, late and
 * lost inputs left out or, in stale mode, taken from a later round) of
 * each record's H over its W_0 .. W_{T-1}, exact
 * (mf_gram_time_varying_state: in stale mode over the delay-augmented
 * state) or from @dg->probes probes seeded with the record's seed
 * (mf_gram_sketch_state). Record i runs @cfg (D-SGD, one gossip round a
 * step, @T steps) with seed proto_delivery_record_seed(@cfg->seed,
 * @dg->first + i), and a schedule reseeded to it: never @cfg->seed's own
 * draws. @dg->delivered: the gossip messages the gathers used over those
 * sent, averaged over the records.
 * Errors: PROTO_ERROR_INVALID_ARGUMENT for sync mode, the run's and the
 * record's errors, MF_ERROR_MEMORY naming the bytes.
 * Complexity: S records (O(T n d) each), then O(N^3 T^2) exact or
 * O(K (T^2 nnz + T^3 n)) sketched per record, N = n + stale mode's slots.
 */
gboolean proto_delivery_gram(ProtoDeliveryGram *dg, const ProtoRunConfig *cfg, guint T,
                             GError **error);

/** proto_schedule_gram_clear: frees @sg's outputs (not @sg). */
void proto_schedule_gram_clear(ProtoScheduleGram *sg);

/** proto_expectation_name: "static", "trace", "iid" or "sampled". */
const char *proto_expectation_name(ProtoExpectation how);

/* One attacker view of an observed run (members borrowed, sorted). */
typedef struct {
  PrivTrust trust;
  const guint *members;
  guint n_members;
  /* Nullable: nodes whose sent messages the view observes too, those to
   * hears_sent_to's nodes (NULL: to any node; priv_observer_view_hear_sent;
   * both sorted, distinct). */
  const guint *hears_sent;
  guint n_hears_sent;
  const guint *hears_sent_to;
  guint n_hears_sent_to;
} ProtoObservedView;

/* The observation of a run: the views and the accountant. */
typedef struct {
  const ProtoObservedView *views;
  guint n_views;
  guint T;            /* gradient steps accounted */
  gboolean streaming; /* streaming accountant (needs SIM_LIN_SPARSE), else dense */
  void (*progress)(guint steps, guint T, gpointer data); /* streaming: optional */
  gpointer progress_data;
} ProtoObserveOptions;

typedef struct _ProtoObservedRun ProtoObservedRun;

/**
 * proto_observed_run_new: the ProtoRun of @cfg with, when @obs is non-NULL,
 * one PrivObserver on its bus holding one view per @obs->views entry
 * (cfg->rebased is set to @obs->streaming). Before anything is simulated,
 * the dense accountant's largest view is checked against the memory limit
 * (rows at most T x (members + their round-0 degrees), n T gradient and
 * noise columns). Set links, hooks or progress through
 * proto_observed_run_proto, then call proto_observed_run_run.
 * Errors: PRIV_ERROR_MEMORY (pre-check, streaming state), those of
 * proto_run_new, priv_observer_new, priv_observer_add_view,
 * priv_observer_set_streaming, priv_observer_attach.
 * Complexity: O(n + m) plus proto_run_new's.
 */
ProtoObservedRun *proto_observed_run_new(const ProtoRunConfig *cfg, const ProtoObserveOptions *obs,
                                         GError **error);
/** proto_observed_run_proto: (transfer none) the run, to configure before running. O(1). */
ProtoRun *proto_observed_run_proto(ProtoObservedRun *o);
/**
 * proto_observed_run_run: simulates the run, then detaches the observer.
 * Errors: those of proto_run_run. Complexity: the simulation's.
 */
gboolean proto_observed_run_run(ProtoObservedRun *o, GError **error);
/**
 * proto_observed_run_blocks: the per-victim blocks X_u of view @view after
 * the run (A in units of Delta = cfg->clip), from the streaming accountant
 * or from the dense knowledge (priv_knowledge_blocks_scaled).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (no observer), those of
 * priv_observer_stream_blocks, priv_observer_knowledge and
 * priv_knowledge_blocks_scaled. Complexity: theirs.
 */
PrivBlocks *proto_observed_run_blocks(ProtoObservedRun *o, guint view, GError **error);
/**
 * proto_observed_run_knowledge: the dense knowledge of view @view after the
 * run (priv_observer_knowledge), for an accountant of the caller's (the
 * local path's lower bound projects its nuisance out of it).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (no observer, or a streaming one),
 * priv_observer_knowledge's. Complexity: O(the view's entries).
 */
PrivKnowledge *proto_observed_run_knowledge(ProtoObservedRun *o, guint view, GError **error);
/** proto_observed_run_free: frees @o, its observer and its run (NULL allowed). */
void proto_observed_run_free(ProtoObservedRun *o);

/* ===================================================================== */
/* The accounting request (account_request.c, account_validate.c): the   */
/* one typed path from a front end's options to per-victim reports        */
/* ===================================================================== */

/*
 * Every front end (`dpgossip account`, `figure`, `train`, `audit`, the
 * scenarios and dpg_account) fills a ProtoAccountRequest with what its user
 * gave, and the request does the rest: validate (every range check, once,
 * in the order of the messages a user fixes, each naming the command
 * line's option), plan (the graph's checks, the schedule, the path, one
 * accounting per attacker set x trust model), execute (the structured
 * path's closed forms or one observed simulation), and the reports. The
 * request lives here because it needs the runtime (the observer path
 * simulates the protocol) and privacy/ (the accountants); scenarios/, cli/
 * and api/ sit above and only translate.
 */

/* Which refusal a failed validate or plan is: a front end maps it to its
 * exit status (and a command line adds its --help hint to a rule). */
typedef enum {
  PROTO_REFUSED_RULE,     /* a rule on the values (usage error) */
  PROTO_REFUSED_VALUE,    /* a value its parser refused (usage error) */
  PROTO_REFUSED_PROTOCOL, /* the protocol registry's: usage or failure by the error */
  PROTO_REFUSED_SCHEDULE, /* the schedule's: a bad spec or a file that failed */
  PROTO_REFUSED_MEMORY,   /* the path's estimate is over the memory budget (the run's) */
  PROTO_REFUSED_FILE,     /* a file a spec names (--latency's geo, links, country) cannot be
                             read: the run's, as a graph or churn file */
} ProtoAccountRefusal;

/**
 * proto_refusal_status: the exit status (2 or 1, as proto_error_status) of
 * @e refused by a request's validate or plan as @refusal: a rule or value
 * is the user's; the protocol's by PROTO_FAILED_PROTOCOL; the schedule's
 * by PROTO_FAILED_INPUT (a spec that does not parse is the user's, a churn
 * or trace file that is missing or malformed the run's); a memory estimate
 * over the budget and a file a spec names that cannot be read the run's
 * (1). O(1).
 */
int proto_refusal_status(const GError *e, ProtoAccountRefusal refusal);

/* Progress of a request: the fraction of the whole request and what is at
 * work; @done/@total count steps when the path counts them (observer),
 * else both are 0. */
typedef struct {
  double fraction;
  guint64 done, total;
  const char *what;
} ProtoAccountProgress;

typedef void (*ProtoAccountProgressFunc)(const ProtoAccountProgress *p, gpointer data);

/* An attacker set its caller resolved itself (a scenario's collusion set):
 * its name in the caller's outputs and messages, and its members. */
typedef struct {
  const char *name;
  const guint *nodes;
  guint n_nodes;
} ProtoAccountSet;

/*
 * What a front end asks, as its user gave it (strings borrowed until
 * proto_account_validate returns; the job copies what it keeps).
 * proto_account_request_init sets the defaults noted.
 */
typedef struct {
  const char *protocol;         /* registry spec; NULL: "dsgd" */
  const char *label;            /* how reports name it; NULL: the spec */
  gint rounds, interval;        /* T (required, > 0) and b (divides T; default 1) */
  /* The run's batches when they are not b: MF-D-SGD calibrates its noise
   * for (T/batches, batches)-participation (a training run accounted at
   * another participation interval); 0: b. */
  guint batches;
  const char *trust;            /* "ldp", "pndp", "secldp" or a list (required) */
  const char *const *attackers; /* SPEC_ATTACKERS_GRAMMAR, NULL-terminated (required unless
                                 * every_node) */
  /* No attackers: the LDP guarantee of every node (only ldp then). Under
   * LDP the attackers see every message and nothing else, so a node's value
   * does not depend on the set: the sets {0} and {1} are accounted, and
   * each trust model's one accounting is the first's victims with node 0
   * from the second (distances -1: no attacker set to measure from). */
  gboolean every_node;
  /* Instead of @attackers: @n_sets sets resolved by the caller (borrowed
   * until proto_account_validate returns), accounted in this order, the
   * same members twice allowed. */
  const ProtoAccountSet *sets;
  guint n_sets;
  const char *sensitivity;          /* auto (NULL), bound or exact */
  double sigma, clip, alpha, delta; /* defaults 1, 1, 2, 1e-6 */
  const char *compare;          /* NULL or "muffliato" */
  TopoGossipKind gossip;        /* default uniform */
  const char *schedule;         /* NULL or "static": static */
  /* Nullable: @schedule as the caller built it (topo_schedule_new) on the
   * graph the job is planned on, with @gossip and @seed (a training run's
   * own, which its accounting then describes by construction); borrowed,
   * must outlive the job. A schedule is a pure function of those and the
   * round, so the job reads it rather than building a copy. */
  TopoSchedule *built_schedule;
  const char *seed;             /* decimal; NULL: 0 */
  const char *path;             /* auto (NULL), structured, observer or local */
  gint radius;                  /* path local: hops (>= 1); -1: not given */
  /* path local without a radius: grow the radius from 1 until every
   * victim's mu / mu_lower <= tightness (>= 1; the caller's loop, see
   * ProtoAccountJob.tightness); 0: not given. */
  double tightness;
  /* The observer path's simulated run (NULL / NAN: not given). */
  const char *mode, *latency, *loss;
  const char *const *links; /* FROM:TO=down|LATENCY, NULL-terminated */
  double lr;                /* NAN: 0.1 */
  const char *storage;      /* sparse (default) or dense */
  const char *accountant;   /* streaming (default with sparse storage) or dense */
  guint threads;            /* the structured engine's sparse products (0: 1) */
  gboolean no_epsilon;      /* leave epsilon out of the reports (mu and RDP only) */
  /* The accountings trust model by trust model (then set by set) rather
   * than set by set: the observer's views in the order a caller's earlier
   * outputs were made in (their floating-point sums follow it). */
  gboolean trust_major;
  /* Nullable: MF-D-SGD's T x T C_local (row-major), built by the caller
   * (a scenario's C fitted to its gossip, which the protocol spec alone
   * does not give); borrowed, must outlive the job. NULL: the spec's
   * (proto_c_local). */
  const double *C_local;
  ProtoAccountProgressFunc progress; /* nullable; called from the executing thread */
  gpointer progress_data;
  const gint *cancel; /* nullable flag: set, the request stops between accountings */
  /* Nullable: called with the observer path's run before it starts
   * (@running TRUE) and after it ends (FALSE), to cancel it from outside. */
  void (*on_run)(ProtoRun *run, gboolean running, gpointer data);
  gpointer on_run_data;
} ProtoAccountRequest;

/* One accounting of a job: attacker set @set under @trust. */
typedef struct {
  PrivTrust trust;
  guint set;              /* index in the job's sets */
  const guint *attackers; /* its members, sorted (borrowed from the job) */
  guint n_attackers;
  PrivReport *report;  /* after execution (owned) */
  double *muff;        /* compare muffliato under PNDP: one value per node (owned), else NULL */
  PrivLocalInfo local; /* path local: the ball accounted */
  /* Path local in deadline mode (proto_account_job_notes): why the timing
   * pass gave way to the engine's run (owned; NULL: it did not), and the
   * pass's ties outside the ball (proto_deliveries_ties). */
  char *timing_fallback;
  guint64 timing_ties;
  /* Path local: the wall seconds of the ball's accounting, the part of
   * the work that grows with the radius (not the graph's gossip nor an
   * asynchronous run's whole-graph timing pass); --tightness's estimate. */
  double ball_seconds;
} ProtoAccounting;

/*
 * A validated request (proto_account_validate), planned on a graph
 * (proto_account_job_plan) and executed (proto_account_job_execute). The
 * fields are read-only for callers; the job owns every pointer but @graph.
 */
typedef struct {
  char *protocol;       /* the registry spec simulated */
  char *label;          /* how reports name the protocol */
  ProtoAccountProtocol proto;
  guint T, b;
  guint run_b; /* the b MF-D-SGD's noise is calibrated for (the request's batches, or b) */
  MfSensitivity sensitivity;       /* after proto_account_job_plan: bound or exact */
  MfSensitivity sensitivity_asked; /* as asked: auto (the default), bound or exact */
  double sensitivity_seconds;      /* the exact sensitivity's estimated extra CPU seconds
                                    * (mf_sensitivity_exact_seconds over every victim) */
  double sigma, clip, alpha, delta;
  gboolean compare_muffliato;
  TopoGossipKind gossip;
  SpecAttackers sets;
  char **set_names;     /* the request's named sets' names (NULL-terminated), else NULL */
  GArray *trusts;       /* PrivTrust, distinct, in the order given */
  GArray *links;        /* ProtoAccountLink */
  char **link_specs;    /* as given (NULL-terminated, possibly empty) */
  gboolean path_auto;   /* auto: the plan decides */
  ProtoAccountPath path;
  guint radius;         /* path local (the structured path's certified bounds), else 0 */
  /* --tightness: the target mu / mu_lower (0: none; radius then starts at
   * 1 and the caller re-executes with larger radii), whether the reports
   * held meet it, and why the caller stopped short (owned; NULL: met). */
  double tightness;
  gboolean tightness_met;
  char *tightness_stop;
  ProtoMode mode;
  char *mode_spec, *latency_spec, *loss_spec; /* as given, NULL: not */
  double loss;          /* the loss probability */
  double lr;            /* the simulated run's eta (0.1 unless given) */
  gboolean run_options; /* latency, lr or storage given: only a simulation reads them */
  SimLinStorage storage;
  gboolean streaming;
  guint64 seed;
  char *schedule_spec;  /* NULL: static */
  guint threads;
  gboolean no_epsilon;
  ProtoAccountProgressFunc progress;
  gpointer progress_data;
  const gint *cancel;
  void (*on_run)(ProtoRun *run, gboolean running, gpointer data);
  gpointer on_run_data;
  /* After proto_account_job_plan. */
  const TopoGraph *graph; /* borrowed */
  guint n;
  TopoSchedule *schedule; /* NULL: static */
  const char *path_reason;
  gboolean trust_major;
  gboolean every_node; /* one accounting per trust model, every node a victim */
  ProtoAccounting *acs; /* every attacker set under every trust model, set-major unless
                         * trust_major */
  guint n_acs;
  /* After execution on the observer path. */
  ProtoRunStats stats;
  guint at; /* the accounting executing; after an error, the one that failed */
  double ldp_cap;         /* the LDP cap of PNDP and SecLDP values, NaN: none */
  gboolean ldp_cap_known; /* ldp_cap computed */
  /* Private to the request. */
  const double *C_given; /* the request's C_local (borrowed) */
  TopoSchedule *schedule_given; /* the request's built_schedule (borrowed) */
  double *C_local;
  MfCSet cset;                 /* C=FILE a C-set of several classes (structured path), else empty */
  ProtoDeliveries *deliveries; /* deadline mode on the structured path, after prepare */
  gboolean no_record;          /* a training run's job: deadline mode stays on the observer path */
  TopoGossip *w, *wm;
  gboolean prepared;
  ProtoObservedView *views;
  ProtoObserveOptions observe;
  ProtoRunConfig run; /* the observer path's run, strings the job's; no graph */
} ProtoAccountJob;

/** proto_account_request_init: the defaults of ProtoAccountRequest. O(1). */
void proto_account_request_init(ProtoAccountRequest *r);

/**
 * proto_account_request_run_config: @cfg (initialized here) as the run @r
 * describes, the one filling of a ProtoRunConfig from a request: its
 * protocol ("dsgd" when NULL), gossip, sigma, clip, lr (the default when
 * NaN), T local steps as T/b epochs of b batches (MF-D-SGD calibrates its
 * noise for (T/b, b)-participation), mode, latency, loss, seed (0 when
 * NULL or not a decimal: proto_account_validate refuses those) and storage
 * (dense or sparse). Strings borrowed from @r. The caller sets the graph or
 * the schedule, and what only a training run has (dataset, model,
 * partition, evaluation, threads, compute time). O(length of the seed).
 */
void proto_account_request_run_config(const ProtoAccountRequest *r, ProtoRunConfig *cfg);

/* What a training run adds to the run its request describes: the learning
 * task and its evaluation, ProtoRunConfig's fields of the same names
 * (strings borrowed; test_fraction and threads 0: the run's defaults). */
typedef struct {
  const char *dataset, *model, *partition;
  double test_fraction, compute_ms;
  guint eval_every, threads, eval_nodes, eval_rows;
} ProtoTrainTask;

/* The name `train --protocol`, dpg_train and Python's train() give D-SGD
 * without noise (dsgd with sigma 0). */
#define PROTO_NONPRIVATE "nonprivate"

/*
 * A training run's options as its user gave them (strings borrowed), which
 * proto_train_validate checks and resolves in place. What only a front end
 * has stays with it: the required dataset and output, how -T, -k and -b
 * combine, the graph and its gossip, the stream.
 */
typedef struct {
  const char *protocol;     /* registry spec or PROTO_NONPRIVATE; NULL: "dsgd" */
  gint epochs, batches;     /* k and b: T = k b local steps */
  gint eval_every, threads; /* 0: at the end only; evaluation threads */
  const char *seed;         /* decimal; NULL: 0 */
  double sigma;             /* NaN: 1 (0 for nonprivate) */
  double clip, lr;
  const char *mode, *latency, *loss; /* NULL: sync, none, none */
  /* The learning task; test_fraction and compute_ms are checked, eval_every
   * and threads set from the fields above. */
  ProtoTrainTask task;
  /* Where it runs: the graph's gossip (the front end resolves it with the
   * graph) and the schedule spec (NULL or "static": static). */
  TopoGossipKind gossip;
  const char *schedule;
  /* What its privacy accounts, checked by proto_account_job_for_run: trust
   * models (NULL: ldp of every node), NULL-terminated attacker sets (or
   * NULL), the reported alpha and delta. */
  const char *trust;
  const char *const *attackers;
  double alpha, delta;
  /* Set by proto_train_validate. */
  gboolean nonprivate; /* protocol was PROTO_NONPRIVATE */
  guint64 seed_value;
} ProtoTrainOptions;

/**
 * proto_train_validate: checks the training run @o describes, once for
 * `train`, dpg_train and Python's train(), in the order of the messages a
 * user fixes, each naming the command line's option: epochs and batches
 * positive with k b <= G_MAXINT32, eval_every >= 0 and threads >= 1, the
 * seed a decimal in [0, 2^64 - 1], test_fraction in (0, 1) (an empty test
 * set makes every test loss NaN), no sigma but 0 with nonprivate, sigma
 * >= 0, clip and lr > 0, compute_ms >= 0, all finite, then the protocol
 * spec, mode, latency and loss as they parse. Then resolves @o in place:
 * protocol "dsgd" for NULL or nonprivate (nonprivate set), sigma 1 for NaN
 * and 0 for nonprivate, seed_value, task.eval_every and task.threads.
 * @refusal: (out) PROTO_REFUSED_RULE for a rule on the values (a command
 * line adds its --help hint), PROTO_REFUSED_VALUE for a spec that does not
 * parse, both usage errors (exit status 2); PROTO_REFUSED_FILE for a file
 * the latency spec names that cannot be read (SIM_ERROR_IO, exit status 1).
 * Errors: G_OPTION_ERROR_BAD_VALUE for the rules; those of
 * proto_spec_parse, proto_mode_parse, sim_latency_parse ("--latency: "
 * prefixed) and sim_loss_parse ("--loss: "). @o may be partly resolved then.
 * Complexity: O(length of the specs), plus a plugin protocol's parser.
 */
gboolean proto_train_validate(ProtoTrainOptions *o, ProtoAccountRefusal *refusal, GError **error);

/**
 * proto_train_request: @r (initialized here) as the run the validated @o
 * describes and its privacy: protocol, T = k b and b, sigma, clip, lr,
 * mode, latency, loss, seed, gossip, schedule, trust, attackers, alpha and
 * delta, strings borrowed from @o. The caller adds what only it has (a
 * built schedule to lend, a cancel flag). O(1).
 */
void proto_train_request(const ProtoTrainOptions *o, ProtoAccountRequest *r);

/**
 * proto_train_run_config: @cfg (initialized here) as the training run `train`
 * and dpg_train simulate: the run @r describes
 * (proto_account_request_run_config) over @schedule when not NULL, else over
 * @graph (both borrowed), with @task's fields, and the provenance its
 * privacy's observer views need: SIM_LIN_SPARSE when @observed, else none.
 * O(length of the seed).
 */
void proto_train_run_config(const ProtoAccountRequest *r, const ProtoTrainTask *task,
                            const TopoGraph *graph, TopoSchedule *schedule, gboolean observed,
                            ProtoRunConfig *cfg);

/**
 * proto_account_job_for_run: the privacy of the training run @r describes
 * (proto_account_request_run_config's, which carries the job's observer
 * views when the path is the observer's), validated and planned on @g
 * (borrowed, outlives the job): its trust models (NULL: ldp); every node's
 * LDP when no attackers are given; the accountings trust-major (the order
 * training runs always had); the run's mode, latency and loss only when
 * they parse, since the run refuses the others itself (loss in sync mode
 * included) and its message is the one a user sees.
 * @usage: (out) TRUE when the error is the user's options, FALSE when a
 * protocol or schedule file failed.
 * Errors: those of proto_account_validate and proto_account_job_plan (the
 * graph named "the graph").
 * Returns: (transfer full) the planned job, or NULL.
 * Complexity: theirs.
 */
ProtoAccountJob *proto_account_job_for_run(const ProtoAccountRequest *r, const TopoGraph *g,
                                           gboolean *usage, GError **error);

/**
 * proto_account_validate: checks every value of @r that needs no graph, in
 * the order of the messages a user fixes: T and b (and the run's batches
 * dividing T), the trust models, the attacker sets (ids, or named sets:
 * not both, none empty, no member twice in one), the protocol (the
 * registry; a given C_local only for MF-D-SGD's protocols), the
 * sensitivity, sigma, clip, alpha and delta, the path and radius, mode,
 * latency and loss, the links, lr, storage and accountant, the seed, what
 * the structured path cannot do, --compare. The job keeps the run
 * proto_account_request_run_config gives (its strings the job's).
 * @refusal: (out) (optional) which kind of refusal an error is.
 * Errors: G_OPTION_ERROR_BAD_VALUE naming the option ("--sigma ..."), the
 * parsers' errors (prefixed with the option), the registry's.
 * Returns: (transfer full) the job (proto_account_job_free), or NULL.
 * Complexity: O(length of the specs + attacker ids).
 */
ProtoAccountJob *proto_account_validate(const ProtoAccountRequest *r, ProtoAccountRefusal *refusal,
                                        GError **error);

/**
 * proto_account_job_plan: the checks that need the graph @g (borrowed, must
 * outlive the job; named @label in messages): attacker ids (and "all"
 * expanded), link ends; the schedule built with the seed; the path (the
 * one asked, or proto_account_plan's); one accounting per attacker set x
 * trust model, set-major (trust-major when asked). Once per job.
 * Errors: G_OPTION_ERROR_BAD_VALUE (PROTO_REFUSED_VALUE for the attackers,
 * PROTO_REFUSED_RULE for a link), the schedule's (PROTO_REFUSED_SCHEDULE,
 * prefixed "--schedule: ").
 * Complexity: O(n + attacker ids + the schedule's set-up).
 */
gboolean proto_account_job_plan(ProtoAccountJob *j, const TopoGraph *g, const char *label,
                                ProtoAccountRefusal *refusal, GError **error);

/**
 * proto_account_job_prepare: what every structured accounting shares: MF-D-SGD's
 * C_local (proto_c_local), the static gossip matrix, Muffliato's. Called
 * by proto_account_job_execute; call it once before
 * proto_account_job_execute_one when sharing the accountings out.
 * Errors: those of proto_c_local and topo_gossip_new. O(T^2 + n + m).
 */
gboolean proto_account_job_prepare(ProtoAccountJob *j, GError **error);

/**
 * proto_account_job_execute_one: accounting @a of a prepared structured
 * (or local) job: its blocks (proto_account_structured) and report
 * (priv_account_report), or its certified local report
 * (proto_account_local), and its Muffliato bound. Accountings are
 * independent: distinct @a may run on distinct threads or ranks.
 * Errors: PROTO_ERROR_CANCELLED (the request's flag), those of the
 * accountants; a numerical failure on the user's C_local names the protocol
 * spec. Complexity: priv_structured_blocks' (or priv_local_report's).
 */
gboolean proto_account_job_execute_one(ProtoAccountJob *j, guint a, GError **error);

/**
 * proto_account_job_execute: every accounting of a planned job, on its
 * path: structured or local (proto_account_job_execute_one in turn), or
 * observer (one simulated run of the protocol, link overrides set, one
 * view per accounting; j->stats then holds the run's counters).
 * Errors: those of proto_account_job_execute_one; on the observer path
 * those of proto_observed_run_new and _run (PROTO_ERROR_STALLED, ...),
 * of the links ("--link FROM:TO: ..."), the accountants'.
 * Complexity: the path's (see proto_account_structured, proto_observed_run_new).
 */
gboolean proto_account_job_execute(ProtoAccountJob *j, GError **error);

/**
 * proto_account_job_observe: the views of a planned observer-path job, one
 * per accounting in order, for a run of the caller's own (a training run:
 * proto_observed_run_new with storage SIM_LIN_SPARSE); NULL on the
 * structured path, which needs no observer, and on the local path's
 * observer ball, which simulates its own runs (proto_account_job_execute
 * does). Valid until the job is freed.
 * O(accountings) once.
 */
const ProtoObserveOptions *proto_account_job_observe(ProtoAccountJob *j);

/**
 * proto_account_job_execute_observed: the reports of a planned job whose
 * observer path is @run, the caller's run observed with
 * proto_account_job_observe's views and already run (borrowed; j->stats
 * are its counters); on the structured path and the local path's
 * observer ball, proto_account_job_execute (@run is not read).
 * Errors: those of proto_observed_run_blocks and the accountants.
 * Complexity: per view, that of proto_observed_run_blocks and the report.
 */
gboolean proto_account_job_execute_observed(ProtoAccountJob *j, ProtoObservedRun *run,
                                            GError **error);

/* One execution of a job's accountings (e.g. shared out under mpirun). */
typedef gboolean (*ProtoAccountOnce)(ProtoAccountJob *j, gpointer data, GError **error);
/* A line of progress (no newline). */
typedef void (*ProtoAccountSay)(const char *line, gpointer data);

/**
 * proto_account_job_execute_tightness: for a job with tightness > 0
 * (--path local without a radius): runs @once at radius 1, 2, ... until
 * every victim's mu / mu_lower <= tightness (tightness_met), or stops
 * short with the reports of the last radius that ran and tightness_stop
 * saying where and why: the ball covers the graph, the next radius is
 * estimated over 600 s ($DPGOSSIP_TIGHTNESS_SECONDS if set; static gossip:
 * this radius's balls' accounting, ProtoAccounting.ball_seconds, x the
 * ball's growth squared, plus the rest of its wall time as is, e.g. an
 * asynchronous run's whole-graph timing pass), or it fails for memory
 * (PRIV_ERROR_MEMORY: the previous radius is kept). @say (nullable) gets
 * one line per radius.
 * Errors: those of @once (but memory after a first radius).
 * Cost: the accountings of each radius tried.
 */
gboolean proto_account_job_execute_tightness(ProtoAccountJob *j, ProtoAccountOnce once,
                                             ProtoAccountSay say, gpointer data, GError **error);

/** proto_account_job_free: frees @j and its reports (NULL allowed). */
void proto_account_job_free(ProtoAccountJob *j);

/* The path's word in outputs: structured, observer or local. O(1). */
const char *proto_account_job_path_name(const ProtoAccountJob *j);

/*
 * proto_account_job_bound_name: which bound victim @v's numbers are, the
 * word of every output's bound column: "ldp-cap" (capped at the LDP
 * value, the smaller), "local" (--path local's certified upper bound),
 * "exact" (--sensitivity exact) or "thm5.2" (Theorem 5.2's sensitivity
 * bound). A static string. O(1).
 */
const char *proto_account_job_bound_name(const ProtoAccountJob *j, const PrivVictim *v);

/*
 * proto_account_job_sensitivity_reason: why @j prices with its sensitivity
 * (after proto_account_job_plan): "asked: ..." or "auto: ..." with
 * mf_sensitivity_choose's budget, MF_SENSITIVITY_AUTO_SECONDS. A static
 * string. O(1).
 */
const char *proto_account_job_sensitivity_reason(const ProtoAccountJob *j);

/* Whether the structured path accounts @j's run on its delivery record in
 * its asynchronous mode (proto_account_recordable), not a training run's
 * job. O(1). */
gboolean proto_account_job_recordable(const ProtoAccountJob *j);

/*
 * proto_account_job_distance_graph: what the victims' distance measures,
 * for every output to say: "static graph" (no schedule: the graph
 * gossiped on), "static support" (a schedule whose rounds keep edges of
 * the graph: matching, edge-failure, churn; hops there never exceed hops
 * in the union over rounds) or "static graph, not the rounds" (resample,
 * exponential, matching:complete=true draw other edges: the hops are the
 * given graph's, not those of any round). A static string. O(1).
 */
const char *proto_account_job_distance_graph(const ProtoAccountJob *j);

/*
 * proto_accounting_observed_nothing: TRUE when accounting @ac, under a
 * trust model other than LDP, learned nothing of any victim: every victim
 * protected with mu = 0 (its attackers received no message carrying a
 * victim's data in the whole run: no edge, offline under churn, never
 * paired by the schedule, every message lost or late). Such a run's eps =
 * 0 says the attackers saw nothing, not that the gossip protects: every
 * output warns (one rule, whatever the cause). O(victims).
 */
gboolean proto_accounting_observed_nothing(const ProtoAccounting *ac);

/*
 * proto_account_job_warnings: the sentences every output of an executed
 * job @j carries (stderr lines, JSON's "warnings", Python's warnings): one
 * per accounting whose attackers observed nothing
 * (proto_accounting_observed_nothing), naming the set, the trust model and
 * the cause when it is known (no edge in the graph; the schedule; losses
 * or deadlines of the simulated run). Returns: (transfer full) a
 * GPtrArray of strings, possibly empty. O(accountings x victims).
 */
GPtrArray *proto_account_job_warnings(const ProtoAccountJob *j);

/*
 * proto_account_job_notes: what an executed job @j's front end may tell
 * its user beside the outputs, which do not depend on it (stderr lines
 * under a progress line; the library prints nothing): in deadline mode on
 * the local path, that a ball's deliveries came from the engine's run
 * rather than the timing pass, and why, and the pass's ties outside the
 * balls; one sentence each, for all the accountings together. Returns:
 * (transfer full) a GPtrArray of strings, possibly empty. O(accountings).
 */
GPtrArray *proto_account_job_notes(const ProtoAccountJob *j);

/* proto_account_job_structured_problem: the structured problem of
 * accounting @a (gossip unset: proto_account_structured's). O(1). */
PrivStructuredProblem proto_account_job_problem(const ProtoAccountJob *j, guint a);

G_END_DECLS

#endif /* DPG_PROTOCOLS_H */
