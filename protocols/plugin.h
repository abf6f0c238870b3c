/*
 * protocols/plugin.h: the public, versioned interface of a protocol.
 *
 * Every protocol, built-in or third-party, is a ProtoVTable: a name, typed
 * parameters and event handlers. The runtime (protocols/runtime*.c) owns the
 * simulation: the engine, the gossip exchange and its modes (sync, deadline,
 * bounded staleness), the learning task, noise registration and evaluation.
 * A protocol only decides what each node computes, through the proto_node_*
 * calls below, on linvecs, so every message it sends carries its exact
 * provenance and the privacy observer accounts for it without knowing which
 * protocol ran (docs/design.md, "Protocols", "Linear provenance").
 *
 * What a plugin may use: this header, and the public sim/sim.h it includes:
 * the linvec operations (sim_linvec_new/dup/free/copy/scale/axpy/
 * add_gradient/add_noise/add_public/data and the coefficient getters) and
 * the SimNoiseRegistry getters. Nothing else of dpgossip is needed: noise is
 * registered and drawn through proto_node_noise_local/proto_node_edge_secret,
 * gradients through proto_node_local_step, and messages go through
 * proto_node_exchange*.
 *
 * Loading (docs/plugins.md): a shared object defines
 *     G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void);
 * (symbol name PROTO_PLUGIN_SYMBOL) returning a static vtable whose
 * abi_version is PROTO_PLUGIN_ABI_VERSION; proto_plugin_load
 * (protocols/protocols.h) opens it with GModule, checks it and passes it to
 * proto_registry_register. The proto_* and sim_* functions it calls are
 * resolved from the host executable when it is opened, so the host must
 * export them (link with -Wl,--export-dynamic / ENABLE_EXPORTS; dpgossip
 * does).
 *
 * Lifetime of one run: init (once) -> node_init (each node, in id order) ->
 * events: on_start (each node at time 0, in id order), then on_timer,
 * on_message, on_topology_change, on_gathered as they happen -> node_free
 * (each node) -> finish. Handlers run one at a time (the engine is
 * single-threaded); they report failures by returning FALSE with @error set,
 * which stops the run with that error.
 *
 * The skeleton is the runtime's: most protocols are D-SGD with something
 * changed, so a handler left NULL does what D-SGD does, and a protocol
 * writes only what differs. Start takes step 0; a completed gather is
 * averaged (proto_average_inputs) and followed by step round + 1, or by
 * proto_node_done after T steps; a step is proto_node_local_step, the step's
 * noise (D-SGD's: proto_node_add_local_noise) and the exchange of a copy of
 * the model. DP-D-SGD is the vtable with nothing but its name
 * (protocols/dsgd.c); DECOR and MF-D-SGD write only their noise, Zip-DL its
 * step, Muffliato its step and gather.
 *
 * ABI rules: fields are only ever appended to ProtoVTable and the version is
 * bumped on any change. The runtime refuses a vtable of another version,
 * except version 1 (before the defaults), which still loads: its vtable is
 * read up to finish and its NULL handlers keep version 1's meaning (none).
 */
#ifndef DPG_PROTOCOLS_PLUGIN_H
#define DPG_PROTOCOLS_PLUGIN_H

#include <glib.h>

#include "sim/sim.h"

G_BEGIN_DECLS

#define PROTO_PLUGIN_ABI_VERSION 3
/** The oldest version still loaded: 1, the ProtoVTable up to finish, whose
 * NULL handlers have no default (init and on_start mandatory). */
#define PROTO_PLUGIN_ABI_VERSION_OLDEST 1

/** The symbol a plugin .so exports: const ProtoVTable *proto_plugin_vtable(void). */
#define PROTO_PLUGIN_SYMBOL "proto_plugin_vtable"

/* ===================================================================== */
/* Parameters                                                             */
/* ===================================================================== */

typedef enum {
  PROTO_PARAM_INT,    /* a decimal integer (gint64), range [min, max] */
  PROTO_PARAM_DOUBLE, /* a finite number, range [min, max] */
  PROTO_PARAM_STRING, /* any text without ',' */
  PROTO_PARAM_BOOL,   /* true/false/yes/no/1/0 */
  PROTO_PARAM_FILE,   /* a path that must name a readable regular file */
} ProtoParamType;

/**
 * One parameter of a protocol spec "name:key=value,...".
 * @default_value: the text used when the key is absent (parsed and checked
 *   like a given value when the vtable is registered), or NULL: the key is
 *   then optional without a value (proto_params_is_set says whether it was
 *   given; the getters return 0, NAN, NULL or FALSE) and the protocol
 *   derives its default from the run in init.
 * @min, @max: inclusive range of INT and DOUBLE values, checked when
 *   min <= max (min > max: no range).
 */
typedef struct {
  const char *name;
  ProtoParamType type;
  const char *default_value;
  double min, max;
  const char *help;
} ProtoParamSpec;

/** Parsed parameter values: every declared parameter has a value (given or default). */
typedef struct ProtoParams ProtoParams;

/*
 * Getters. @name must be a parameter the vtable declares with that type: any
 * other name or type is a programming error (g_critical; the fallback is 0,
 * NAN, NULL or FALSE). O(number of parameters).
 */
gint64 proto_params_get_int(const ProtoParams *params, const char *name);
double proto_params_get_double(const ProtoParams *params, const char *name);
/** STRING and FILE values (transfer none: owned by @params). */
const char *proto_params_get_string(const ProtoParams *params, const char *name);
gboolean proto_params_get_bool(const ProtoParams *params, const char *name);
/** Whether the user gave @name explicitly (FALSE when the default applies). */
gboolean proto_params_is_set(const ProtoParams *params, const char *name);

/* ===================================================================== */
/* The run and its nodes, as a protocol sees them                          */
/* ===================================================================== */

/** The run (opaque): configuration, task, engine, noise registry. */
typedef struct ProtoContext ProtoContext;
/** One node of the run (opaque). */
typedef struct ProtoNode ProtoNode;

/** One input of a completed gather (see on_gathered). */
typedef struct {
  guint32 from;             /* the sender (the node itself for its own payload) */
  guint32 round;            /* the round the payload was sent in (< the gathered
                             * round only in stale mode) */
  double weight;            /* W_r[u, from], renormalised in deadline mode */
  const SimLinvec *payload; /* borrowed for the duration of on_gathered */
} ProtoInput;

/*
 * How the accountant may see a protocol without simulating it (the
 * structured and local paths of proto_account_*; docs/accounting-at-scale.md).
 * Every kind is the paper's O = A G + B Z with a known structure; a protocol
 * whose messages follow none of them stays on the observer path, which
 * accounts any linear protocol from the provenance of a simulated run.
 */
typedef enum {
  PROTO_SHAPE_NONE,       /* the observer path only */
  PROTO_SHAPE_DSGD,       /* D-SGD: one noisy local step (std sigma Delta, white in
                           * time), then one gossip average */
  PROTO_SHAPE_MUFFLIATO,  /* one noisy local step, then K gossip averages */
  PROTO_SHAPE_CORRELATED, /* MF-D-SGD: the step's noise is sum_s (C^-1)[t,s] z_s of the
                           * node's own z, C the T x T matrix named by C */
  PROTO_SHAPE_SECRETS,    /* DECOR: D-SGD's noise plus, on each edge of the step's
                           * gossip support, a secret of std sigma_secret Delta added
                           * with + at the smaller id and - at the larger */
} ProtoShapeKind;

/** A protocol's accounting shape for given parameters (ProtoVTable.accounting_shape). */
typedef struct {
  ProtoShapeKind kind;
  guint K;             /* MUFFLIATO: gossip rounds per step (>= 1) */
  const char *C;       /* CORRELATED: a C family (identity, antipgd, sr, bsr, mafalda,
                        * toeplitz, blt) or a CSV file; borrowed from the parameters */
  guint band, buffers; /* CORRELATED: the family's parameters */
  double sigma_secret; /* SECRETS: the secrets' std in units of Delta, NAN: the default */
  guint probes;        /* CORRELATED, a fitted C: the sketch's probes (0: the exact fit) */
} ProtoShape;

/*
 * The vtable. Every handler may be NULL: init, node_init, node_free and
 * finish then do nothing (no state); on_start, on_gathered, step and noise
 * do what D-SGD does (the defaults above); on_timer, on_message and
 * on_topology_change ignore their event, and proto_node_set_timer and
 * proto_node_send fail without the handler that would receive them.
 * @run_state is what init stored; @node_state what node_init stored
 * (proto_node_state returns it).
 */
typedef struct {
  guint abi_version;   /* PROTO_PLUGIN_ABI_VERSION */
  const char *name;    /* [a-z0-9_-]+, unique in the registry */
  const char *summary; /* one line for listings */
  const ProtoParamSpec *params;
  guint n_params;

  /* Once per run, before any node exists: validate parameters against the
   * run (proto_context_*), precompute shared data. NULL: no run state. */
  gboolean (*init)(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                   GError **error);
  /* Once per node, in id order, after init. */
  gboolean (*node_init)(ProtoNode *node, gpointer run_state, gpointer *node_state, GError **error);
  void (*node_free)(gpointer node_state);
  /* Time 0, each node in id order. NULL: proto_default_on_start (step 0). */
  gboolean (*on_start)(ProtoNode *node, GError **error);
  /* A timer set with proto_node_set_timer fired. */
  gboolean (*on_timer)(ProtoNode *node, guint64 tag, GError **error);
  /* A message sent with proto_node_send (tag != 0) arrived; @msg is borrowed
   * (sim_message_ref to keep it) and sim_message_provenance(@msg) is the
   * linvec sent. Gossip messages never come here: the runtime gathers them. */
  gboolean (*on_message)(ProtoNode *node, SimMessage *msg, GError **error);
  /* The engine announced a topology change (sim_engine_notify_topology_change). */
  gboolean (*on_topology_change)(ProtoNode *node, const SimTopologyChange *change, GError **error);
  /* The gather of round @round completed (mode rules: see protocols.h);
   * @inputs[0 .. n_inputs) are sorted by sender and include the node's own
   * payload. The handler computes the new model and normally exchanges round
   * round + 1 or calls proto_node_done. Returning without either leaves the
   * node idle until one of its timers fires. NULL: proto_default_on_gathered
   * (average, then step round + 1 or done). */
  gboolean (*on_gathered)(ProtoNode *node, guint round, guint n_inputs, const ProtoInput *inputs,
                          GError **error);
  /* Once, after every node_free: free @run_state. */
  void (*finish)(gpointer run_state);

  /* ---- Version 2: the parts of the default skeleton ---------------------- */

  /* Local step @t (< T) and the exchange that carries it, as the default
   * on_start (t = 0) and on_gathered (t = round + 1) call it. NULL:
   * proto_node_local_step, then noise, then proto_node_exchange of round t
   * with a copy of the model. */
  gboolean (*step)(ProtoNode *node, guint t, GError **error);
  /* Step @t's noise, added to the node's model right after its gradient by
   * the default step. NULL: proto_node_add_local_noise (D-SGD's). */
  gboolean (*noise)(ProtoNode *node, guint t, GError **error);

  /* ---- Version 3: the accounting shape ----------------------------------- */

  /* What the protocol is to the accountant for @params: fill @shape (it is
   * zeroed first: PROTO_SHAPE_NONE). A declared shape lets the structured
   * and local paths account the protocol at network scale, exactly, without
   * a simulation, so it must be exactly what the handlers do (the tests
   * compare both paths for the built-in protocols). NULL: observer path
   * only. */
  void (*accounting_shape)(const ProtoParams *params, ProtoShape *shape);
} ProtoVTable;

/** The entry point of a plugin shared object. */
typedef const ProtoVTable *(*ProtoPluginVTableFunc)(void);

/* ---- The run --------------------------------------------------------------
 * All getters are O(1) and never fail on a valid context. */

/** Number of nodes n. */
guint proto_context_n_nodes(const ProtoContext *ctx);
/** T, the number of local (gradient) steps of every node. */
guint proto_context_steps(const ProtoContext *ctx);
/** Epochs k and batches b of the participation pattern (k * b = T). */
guint proto_context_epochs(const ProtoContext *ctx);
guint proto_context_batches(const ProtoContext *ctx);
/** Noise multiplier sigma, clipping norm Delta, learning rate eta. */
double proto_context_sigma(const ProtoContext *ctx);
double proto_context_clip(const ProtoContext *ctx);
double proto_context_lr(const ProtoContext *ctx);
/**
 * proto_context_step_size: the coefficient of a gradient slot in a local
 * update, and the one a protocol must give the noise it adds at that step:
 * eta / B with B the expected batch size (training records / (n b)), or eta
 * in accounting-only runs. A gradient slot (u, t) is the SUM of the batch's
 * clipped per-example gradients (one record changes it by at most Delta) and
 * the local update is theta -= (eta / B) (sum + noise), as in Opacus.
 */
double proto_context_step_size(const ProtoContext *ctx);
/** Dimension d of models (0 in accounting-only runs). */
gsize proto_context_dim(const ProtoContext *ctx);
/** The run's linvec space and noise registry (transfer none). */
SimLinSpace *proto_context_space(const ProtoContext *ctx);
SimNoiseRegistry *proto_context_noise(const ProtoContext *ctx);
/** What the protocol's init stored (transfer none). */
gpointer proto_context_run_state(const ProtoContext *ctx);
/** The run's seed (for a protocol's own derived streams). */
guint64 proto_context_seed(const ProtoContext *ctx);
/** TRUE when the gossip matrix is the same at every round. */
gboolean proto_context_gossip_is_static(const ProtoContext *ctx);
/**
 * proto_context_gossip_dense: W_r as an n x n row-major array (g_free), e.g.
 * to precompute a noise correlation in init.
 * Errors: those of the schedule (PROTO_ERROR_FAILED wrapping them). O(n^2).
 */
double *proto_context_gossip_dense(ProtoContext *ctx, guint round, GError **error);
/** The node @u (transfer none), u < n. */
ProtoNode *proto_context_node(ProtoContext *ctx, guint u);

/* ---- A node ----------------------------------------------------------------
 * Getters are O(1). A ProtoNode is valid for the whole run. */

/** The node's id u in 0 .. n-1. */
guint proto_node_id(const ProtoNode *node);
/** The run (transfer none). */
ProtoContext *proto_node_context(const ProtoNode *node);
/** What node_init stored. */
gpointer proto_node_state(const ProtoNode *node);
/** Number of local steps taken so far (proto_node_local_step calls). */
guint proto_node_step(const ProtoNode *node);
/** The simulated time (the current event's). */
SimTime proto_node_now(const ProtoNode *node);
/**
 * proto_node_model: the node's model theta (transfer none), a linvec owned by
 * the runtime: it starts at the public initial model and is what
 * proto_node_local_step differentiates, what evaluation reads (right before
 * each local step and at proto_node_done), and what the protocol updates.
 */
SimLinvec *proto_node_model(ProtoNode *node);

/**
 * proto_node_in_neighbors: row u of W_round: the nodes whose payloads u
 * averages (u itself included, even at weight 0), increasing, with weights
 * W_round[u, v] > 0 (u's own may be 0). Arrays owned by the runtime, valid
 * until the node's gather of @round completes.
 * @round: the node's current exchange round or later.
 * Returns the count, or 0 with @error set (schedule errors, round already
 * gathered). O(1) amortized (W_round is built once for the whole network).
 */
guint proto_node_in_neighbors(ProtoNode *node, guint round, const guint **nodes,
                              const double **weights, GError **error);
/**
 * proto_node_out_neighbors: column u of W_round: the receivers v of u's round
 * payload (u itself included), increasing, with weights W_round[v, u]. Same
 * rules as proto_node_in_neighbors. The order is the one
 * proto_node_exchange_each expects.
 */
guint proto_node_out_neighbors(ProtoNode *node, guint round, const guint **nodes,
                               const double **weights, GError **error);

/**
 * proto_node_local_step: one local step t on the node's model: computes the
 * clipped mean gradient g of batch t mod b at the model's current numbers
 * (when the run has a task; accounting-only runs have none and pass NULL) and
 * adds -eta g as gradient slot (u, t): sim_linvec_add_gradient(model, -lr,
 * u, t, g) (paper Alg. 1, "Clipped gradient" and the gradient half of
 * "Local update"). Snapshots the model for evaluation first when t is an
 * evaluation step. Starts the local compute time: the next exchange leaves
 * after it.
 * @t: must equal proto_node_step(node) (steps are taken in order) and be < T.
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (t out of order or >= T), linvec errors.
 * Complexity: O(batch size x d) plus the linvec update.
 */
gboolean proto_node_local_step(ProtoNode *node, guint t, GError **error);

/**
 * proto_node_noise_local: registers a local noise variable of standard
 * deviation @std owned by the node, with metadata (node, @round), and draws
 * its standard-normal sample into @z (d values, from the node's SIM_RNG_NOISE
 * stream; @z NULL when d = 0). Add it with sim_linvec_add_noise(v, coeff,
 * id, z): the linvec gains coeff * std * z.
 * Errors: registry errors (std negative or not finite).
 * Returns: the id, or SIM_NOISE_ID_INVALID. O(d).
 */
SimNoiseId proto_node_noise_local(ProtoNode *node, double std, guint round, double *z,
                                  GError **error);
/**
 * proto_node_noise_register_local, proto_node_noise_draw: the two halves of
 * proto_node_noise_local, for protocols that draw their samples ahead (to
 * combine a block of steps' noises in one matrix product). _draw fills @z
 * with @count x d standard normals from the node's SIM_RNG_NOISE stream: the
 * samples the next @count calls of proto_node_noise_local would have drawn,
 * in order. _register_local registers the variable of @round, which is then
 * added with sim_linvec_add_noise or sim_linvec_add_noise_sum using the
 * sample drawn for it. Mixing the forms is allowed as long as every sample
 * is drawn once, in round order.
 * Errors: registry errors; _draw: @z NULL while d > 0 and @count > 0.
 * Complexity: O(1) amortized; O(count x d).
 */
SimNoiseId proto_node_noise_register_local(ProtoNode *node, double std, guint round,
                                           GError **error);
gboolean proto_node_noise_draw(ProtoNode *node, double *z, guint count, GError **error);
/**
 * proto_node_edge_secret: the secret of edge {u, @peer} for @round, of
 * standard deviation @std, known to both ends: the first end to ask
 * registers it (owners: smaller id first, then the larger) and both get the
 * same id and the same sample in @z (drawn from a stream keyed by the run
 * seed, the edge and the round, so neither the asking order nor any other
 * draw changes it). *@sign receives +1 at the smaller end and -1 at the
 * larger, so the two ends' terms cancel in the network sum (DECOR).
 * Both ends must ask with the same @std; each end may ask once per round.
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (peer == u or out of range, std
 * mismatch), registry errors. Returns the id, or SIM_NOISE_ID_INVALID. O(d).
 */
SimNoiseId proto_node_edge_secret(ProtoNode *node, guint peer, guint round, double std, double *z,
                                  double *sign, GError **error);

/**
 * proto_node_exchange: sends @payload (taken) as the node's message of gossip
 * round @round to every out-neighbour v != u of W_round (one shared,
 * reference-counted message), and starts gathering round @round; on_gathered
 * follows once the mode's rule is met (never from inside this call).
 * @round: must be the node's next round (0, 1, 2, ... in order).
 * @payload: a linvec of the run's space, never modified afterwards (the
 *   observer reads its provenance); the node's own input to the gather.
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (round out of order, NULL payload),
 * engine and schedule errors. On error @payload is freed.
 * Complexity: O(out-degree log pending).
 */
gboolean proto_node_exchange(ProtoNode *node, guint round, SimLinvec *payload, GError **error);
/**
 * proto_node_exchange_each: as proto_node_exchange with a distinct payload per
 * receiver (Zip-DL): @payloads[i] (all taken) goes to the i-th out-neighbour
 * of proto_node_out_neighbors(node, round), the node's own entry being its
 * own input. @n_payloads must equal that count.
 */
gboolean proto_node_exchange_each(ProtoNode *node, guint round, SimLinvec **payloads,
                                  guint n_payloads, GError **error);

/**
 * proto_node_send: a protocol-specific message (not part of the gossip
 * exchange) to @to, delivered to on_message. @tag must be != 0 (0 is the
 * exchange). @payload (taken) as for proto_node_exchange.
 *
 * Every linvec the three calls above send is its message's provenance
 * (sim_message_new_linvec): what receivers and the privacy observer read.
 */
gboolean proto_node_send(ProtoNode *node, guint to, guint round, guint64 tag, SimLinvec *payload,
                         GError **error);

/** proto_node_set_timer: on_timer(@tag) after @delay; @tag < 2^63. */
SimEventId proto_node_set_timer(ProtoNode *node, SimTime delay, guint64 tag, GError **error);
/** proto_node_cancel_timer: TRUE if it was pending. */
gboolean proto_node_cancel_timer(ProtoNode *node, SimEventId id);

/**
 * proto_node_done: the node has finished its T steps; its model is final (it
 * is evaluated as step T). A run succeeds when every node is done and no
 * event is left.
 */
void proto_node_done(ProtoNode *node);

/* ---- The default skeleton ---------------------------------------------------
 * What a NULL handler does, callable from a handler that does something of
 * its own first (the example plugin's on_start, in one of its modes). */

/**
 * proto_average_inputs: @model = sum_i inputs[i].weight inputs[i].payload,
 * numbers and provenance (sim_linvec_combine): the gossip average of a
 * gather.
 * Errors: a weight not finite, a payload of another space (model unchanged).
 * Complexity: O(n_inputs d) plus the provenance of n_inputs axpy.
 */
gboolean proto_average_inputs(SimLinvec *model, guint n_inputs, const ProtoInput *inputs,
                              GError **error);
/**
 * proto_node_add_local_noise: D-SGD's noise of step @t: with nu = sigma *
 * Delta > 0, registers a local noise variable of std nu (owner the node,
 * round @t), draws it and adds -proto_context_step_size * nu z to the
 * node's model; with nu = 0, nothing. The default noise handler.
 * Errors: registry errors. O(d).
 */
gboolean proto_node_add_local_noise(ProtoNode *node, guint t, GError **error);
/**
 * proto_default_on_start: the protocol's step 0 (its step handler, or the
 * default step). Errors: the step's.
 */
gboolean proto_default_on_start(ProtoNode *node, GError **error);
/**
 * proto_default_on_gathered: proto_average_inputs into the node's model,
 * then the protocol's step round + 1 when round + 1 < T, else
 * proto_node_done. Errors: the average's and the step's.
 */
gboolean proto_default_on_gathered(ProtoNode *node, guint round, guint n_inputs,
                                   const ProtoInput *inputs, GError **error);

G_END_DECLS

#endif /* DPG_PROTOCOLS_PLUGIN_H */
