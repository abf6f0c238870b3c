/*
 * sim/sim.h: the public interface of dpgossip's simulation core.
 *
 * The core knows nothing of learning or privacy: it schedules events in
 * simulated time, delivers reference-counted messages over links with latency
 * and loss, hands out per-(node, purpose) random streams, publishes what
 * happens on an event bus, and keeps the linear provenance ("linvec") of every
 * vector a protocol builds.
 *
 * Conventions: public names carry the sim_ prefix (types Sim*); errors travel
 * as GError in the SIM_ERROR domain; library code never prints or exits.
 * Each function owns what it allocates unless its comment says otherwise.
 */
#ifndef DPG_SIM_H
#define DPG_SIM_H

#include <glib.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stddef.h>

G_BEGIN_DECLS

/* ===================================================================== */
/* Common                                                                 */
/* ===================================================================== */

/** Simulated time: an unsigned count of nanoseconds since the run began. */
typedef uint64_t SimTime;

#define SIM_TIME_NS ((SimTime)1)
#define SIM_TIME_US ((SimTime)1000)
#define SIM_TIME_MS ((SimTime)1000000)
#define SIM_TIME_S ((SimTime)1000000000)
#define SIM_TIME_NEVER UINT64_MAX

#define SIM_ERROR (sim_error_quark())
GQuark sim_error_quark(void);

typedef enum {
  SIM_ERROR_INVALID_ARGUMENT, /* a parameter out of its documented range */
  SIM_ERROR_PARSE,            /* a textual spec that does not parse */
  SIM_ERROR_CAPACITY,         /* a size that cannot be represented or allocated */
} SimError;

/* ===================================================================== */
/* Event bus (owned by: engine)                                           */
/* ===================================================================== */

/* SECTION-ENGINE-BEGIN */

/** "No node": the sender of a run event, or the node of a global RNG stream.
 * (The linvec section defines it identically; keep both definitions equal.) */
#define SIM_NODE_NONE G_MAXUINT

/* ---- Event queue --------------------------------------------------------
 * A priority queue of events keyed by (time, sequence number). Sequence numbers
 * are handed out in push order, so events at equal times come out in the order
 * they were pushed: a run is a pure function of its inputs. The heap is 4-ary
 * over 16-byte entries (one cache line per level); payloads sit in a slot
 * array that is recycled, so a steady state of pushes and pops allocates
 * nothing. Cancel is lazy (generation-checked), see sim_queue_cancel.
 * Not thread-safe. */

/** Identifies a scheduled event: slot index and slot generation. Never 0. */
typedef guint64 SimEventId;
#define SIM_EVENT_ID_NONE ((SimEventId)0)

/** Largest payload a queue entry may carry, in bytes. */
#define SIM_QUEUE_MAX_PAYLOAD 1024

typedef struct SimQueue SimQueue;

/**
 * sim_queue_new: an empty queue whose events carry @payload_size bytes each.
 * @payload_size: 0 .. SIM_QUEUE_MAX_PAYLOAD.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @payload_size is too large.
 * Returns: (transfer full) the queue (free with sim_queue_free), or NULL.
 * Complexity: O(1).
 */
SimQueue *sim_queue_new(gsize payload_size, GError **error);

/** sim_queue_free: frees @queue and its pending events (NULL is ignored). */
void sim_queue_free(SimQueue *queue);

/**
 * sim_queue_push: schedules an event at @time.
 * @payload: payload_size bytes to copy (may be NULL when payload_size is 0).
 * Errors: SIM_ERROR_CAPACITY when 2^32 - 1 events are already pending or memory
 * runs out. Returns: the event's id, or SIM_EVENT_ID_NONE on error.
 * Complexity: O(log_4 n) comparisons; amortized O(1) allocation (none once the
 * queue has reached its peak size).
 */
SimEventId sim_queue_push(SimQueue *queue, SimTime time, const void *payload, GError **error);

/**
 * sim_queue_pop: removes the earliest event (smallest (time, seq)).
 * @time, @seq, @id, @payload: (out) (optional) where to copy the event's time,
 * sequence number, id and payload_size payload bytes.
 * Returns: FALSE when the queue is empty (outputs untouched).
 * Complexity: O(log_4 n).
 */
gboolean sim_queue_pop(SimQueue *queue, SimTime *time, guint64 *seq, SimEventId *id,
                       void *payload);

/**
 * sim_queue_peek: like sim_queue_pop without removing the event (it may drop
 * cancelled entries that reached the top, hence the non-const queue).
 * Returns: FALSE when the queue is empty. Complexity: O(1) amortized.
 */
gboolean sim_queue_peek(SimQueue *queue, SimTime *time, guint64 *seq, SimEventId *id);

/**
 * sim_queue_cancel: removes a pending event.
 * @id: any id; ids of events already popped or cancelled, or never issued, are
 * recognized (slot generation check) and leave the queue untouched.
 * @payload: (out) (optional) receives the cancelled event's payload.
 * Returns: TRUE if the event was pending and is now removed.
 * Complexity: O(1) amortized: the entry is only marked, and dropped when it
 * reaches the top or when cancelled entries outnumber pending ones (an O(n)
 * rebuild). A slot's generation wraps after 2^32 - 1 reuses, so an id kept
 * that long could name a newer event.
 */
gboolean sim_queue_cancel(SimQueue *queue, SimEventId id, void *payload);

/** sim_queue_is_pending: whether @id names an event still in @queue. O(1). */
gboolean sim_queue_is_pending(const SimQueue *queue, SimEventId id);

/** sim_queue_size: number of pending events. O(1). */
gsize sim_queue_size(const SimQueue *queue);

/* ---- Random streams -----------------------------------------------------
 * One GSL generator per (node, purpose), seeded by hashing (global seed, node,
 * purpose) with splitmix64. A stream's draws depend only on that triple and on
 * how many draws its owner made: never on event order or on other nodes. */

/** What a stream is used for; user purposes are SIM_RNG_USER + k. */
typedef enum {
  SIM_RNG_NOISE = 0,    /* privacy noise */
  SIM_RNG_DATA = 1,     /* local data: sampling, shuffling, batches */
  SIM_RNG_LATENCY = 2,  /* link latency of messages the node sends */
  SIM_RNG_LOSS = 3,     /* message loss of messages the node sends */
  SIM_RNG_TOPOLOGY = 4, /* random graphs, peer sampling */
  SIM_RNG_PROTOCOL = 5, /* protocol decisions (e.g. a random neighbour) */
  SIM_RNG_INIT = 6,     /* model initialization */
  SIM_RNG_USER = 16,    /* first user purpose */
  SIM_RNG_N_PURPOSES = 64 /* purposes are < SIM_RNG_N_PURPOSES in a SimRngSet */
} SimRngPurpose;

/**
 * sim_rng_stream_seed: the 64-bit seed of stream (@seed, @node, @purpose).
 * For a fixed @seed, distinct (@node, @purpose) pairs get distinct seeds (the
 * mixing is a bijection of the packed pair). @node may be SIM_NODE_NONE for a
 * global stream. Complexity: O(1).
 */
guint64 sim_rng_stream_seed(guint64 seed, guint32 node, guint32 purpose);

/**
 * sim_rng_default_type: the generator every engine stream uses: xoshiro256**
 * (Blackman & Vigna) wrapped as a gsl_rng_type, so every gsl_ran_* function
 * works on it. Chosen over gsl_rng_mt19937 because its state is 32 bytes (MT's
 * is 5 KB: 100,000 nodes x 3 purposes would take 1.5 GB) and it is seeded from
 * all 64 bits of the stream seed (GSL's stock generators keep 32 bits, so
 * among 10^5 streams some would coincide). gsl_rng_get returns 32 bits;
 * gsl_rng_uniform uses 53.
 */
const gsl_rng_type *sim_rng_default_type(void);

/**
 * sim_rng_normals: fills @z with @n independent standard normals from @r.
 * On the default type (xoshiro256**) a 256-layer ziggurat drawn straight
 * from the generator's state (one 64-bit draw for ~99% of samples, 53-bit
 * abscissae); on any other type, gsl_ran_gaussian_ziggurat(r, 1) n times.
 * The values depend only on the stream's state: a stream gives the same
 * samples whether they are drawn n at a time or one by one.
 * Complexity: O(n).
 */
void sim_rng_normals(gsl_rng *r, double *z, gsize n);

/**
 * sim_rng_stream_new: a new generator for stream (@seed, @node, @purpose).
 * @type: (nullable) a GSL generator type; NULL means sim_rng_default_type().
 * Stock GSL types are seeded with gsl_rng_set(sim_rng_stream_seed(...)), which
 * most of them truncate to 32 bits.
 * Errors: SIM_ERROR_CAPACITY when GSL cannot allocate the generator.
 * Returns: (transfer full) the generator (free with gsl_rng_free), or NULL.
 */
gsl_rng *sim_rng_stream_new(guint64 seed, guint32 node, guint32 purpose,
                            const gsl_rng_type *type, GError **error);

/** The streams of n nodes, created on first use. */
typedef struct SimRngSet SimRngSet;

/**
 * sim_rng_set_new: streams for nodes 0..@n_nodes-1 (and SIM_NODE_NONE) under
 * global @seed, of generator @type (NULL: sim_rng_default_type()).
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @n_nodes is 0 or SIM_NODE_NONE.
 * Returns: (transfer full) the set (free with sim_rng_set_free), or NULL.
 */
SimRngSet *sim_rng_set_new(guint64 seed, guint32 n_nodes, const gsl_rng_type *type,
                           GError **error);

/** sim_rng_set_free: frees @set and every stream it created (NULL ignored). */
void sim_rng_set_free(SimRngSet *set);

/**
 * sim_rng_set_get: stream (@node, @purpose), created (and seeded) on first use.
 * @node: < n_nodes, or SIM_NODE_NONE for a global stream.
 * @purpose: < SIM_RNG_N_PURPOSES.
 * Errors: SIM_ERROR_INVALID_ARGUMENT on a node or purpose out of range;
 * SIM_ERROR_CAPACITY when allocation fails.
 * Returns: (transfer none) the generator, owned by @set (never gsl_rng_free
 * it; gsl_rng_clone gives an independent copy), or NULL.
 * Complexity: O(1). The streams of a purpose are allocated together on its
 * first use (48 bytes per node for the default type; pages never touched cost
 * nothing).
 */
gsl_rng *sim_rng_set_get(SimRngSet *set, guint32 node, guint32 purpose, GError **error);

/* ---- Links: latency and loss --------------------------------------------
 * Specs are `model:key=value,...`; times in milliseconds:
 *   constant:ms=10            every message takes 10 ms
 *   uniform:min=1,max=20      uniform on [1, 20] ms
 *   lognormal:mu=2,sigma=0.5  ln(latency in ms) ~ N(mu, sigma^2)
 * Loss specs: `bernoulli:p=0.1` or a bare probability `0.1`. */

typedef enum {
  SIM_LATENCY_CONSTANT,
  SIM_LATENCY_UNIFORM,
  SIM_LATENCY_LOGNORMAL,
} SimLatencyKind;

/** A latency model; only the fields of its kind are read. */
typedef struct {
  SimLatencyKind kind;
  double ms;             /* constant */
  double min_ms, max_ms; /* uniform */
  double mu, sigma;      /* lognormal, of ln(ms) */
} SimLatency;

/** Latencies are clamped to this (about 146 years) so arrival times never wrap. */
#define SIM_LATENCY_MAX ((SimTime)1 << 62)

/**
 * sim_latency_parse: reads a latency spec (see above) into @out.
 * Errors: SIM_ERROR_PARSE naming the unknown model, the missing, unknown or
 * repeated key, or the value that is not a number or out of range (negative
 * or non-finite times, min > max, sigma < 0). @out is untouched on error.
 */
gboolean sim_latency_parse(const char *spec, SimLatency *out, GError **error);

/** sim_latency_check: SIM_ERROR_INVALID_ARGUMENT unless @latency is valid. */
gboolean sim_latency_check(const SimLatency *latency, GError **error);

/** sim_latency_to_string: @latency as a spec sim_latency_parse reads back. */
char *sim_latency_to_string(const SimLatency *latency);

/** sim_latency_mean_ms: the model's mean: ms, (min+max)/2, exp(mu + sigma^2/2). */
double sim_latency_mean_ms(const SimLatency *latency);

/**
 * sim_latency_sample: one latency in nanoseconds (rounded to nearest, clamped
 * to SIM_LATENCY_MAX). Constant draws nothing from @rng; uniform and
 * lognormal draw one gsl_rng_uniform / gsl_ran_lognormal. O(1).
 */
SimTime sim_latency_sample(const SimLatency *latency, gsl_rng *rng);

/**
 * sim_loss_parse: reads a loss spec into @p in [0, 1].
 * Errors: SIM_ERROR_PARSE as for sim_latency_parse.
 */
gboolean sim_loss_parse(const char *spec, double *p, GError **error);

/**
 * sim_loss_sample: TRUE when a message is lost. p <= 0 and p >= 1 draw
 * nothing; otherwise one gsl_rng_uniform(@rng) < p. O(1).
 */
gboolean sim_loss_sample(double p, gsl_rng *rng);

/** What one directed link does to a message. */
typedef struct {
  SimLatency latency;
  double loss; /* Bernoulli drop probability in [0, 1] */
} SimLinkParams;

/* ---- Messages -----------------------------------------------------------
 * Reference counted, so a broadcast to k neighbours shares one payload: the
 * payload's destroy function runs once, when the last reference goes. Not
 * thread-safe (the engine is single-threaded). */

typedef struct SimMessage SimMessage;

/**
 * sim_message_new: a message from node @from with one reference.
 * @payload: (transfer full) (nullable) freed by @destroy (nullable) with the message.
 * @bytes: the size the message would take on the wire (for statistics).
 * Returns: (transfer full) the message; release with sim_message_unref.
 */
SimMessage *sim_message_new(guint32 from, guint32 round, guint32 tag, gpointer payload,
                            guint64 bytes, GDestroyNotify destroy);
/** sim_message_ref: adds a reference; returns @msg. */
SimMessage *sim_message_ref(SimMessage *msg);
/** sim_message_unref: drops a reference; the last one frees payload and message. */
void sim_message_unref(SimMessage *msg);
guint32 sim_message_from(const SimMessage *msg);
guint32 sim_message_round(const SimMessage *msg);
guint32 sim_message_tag(const SimMessage *msg);
guint64 sim_message_bytes(const SimMessage *msg);
/** sim_message_payload: (transfer none) the payload, owned by the message. */
gpointer sim_message_payload(const SimMessage *msg);
/** sim_message_ref_count: current number of references (for tests, checks). */
guint sim_message_ref_count(const SimMessage *msg);

/* ---- Topology changes ----------------------------------------------------- */

typedef enum {
  SIM_TOPOLOGY_GRAPH,     /* the graph changed: every node is told */
  SIM_TOPOLOGY_LINK_DOWN, /* link u-v goes down (both directions); u and v are told */
  SIM_TOPOLOGY_LINK_UP,   /* link u-v comes back up; u and v are told */
} SimTopologyChangeKind;

typedef struct {
  SimTopologyChangeKind kind;
  guint32 u, v;  /* the link, for LINK_DOWN / LINK_UP */
  guint64 epoch; /* the upper layer's label, e.g. the index in a schedule */
} SimTopologyChange;

/* ---- Event bus ------------------------------------------------------------
 * A list of callbacks that see everything the engine does (and the round
 * boundaries upper layers publish). When nobody is subscribed the engine pays
 * one predictable branch per event and builds nothing. */

typedef enum {
  SIM_BUS_RUN_START,         /* sim_engine_run begins (time = clock) */
  SIM_BUS_RUN_END,           /* sim_engine_run returns */
  SIM_BUS_MESSAGE_SENT,      /* one transmission from -> to; arrival set if scheduled */
  SIM_BUS_MESSAGE_DELIVERED, /* delivered to `to` (same seq as its SENT) */
  SIM_BUS_MESSAGE_DROPPED,   /* lost or sent on a down link (same seq as its SENT) */
  SIM_BUS_TIMER,             /* a timer of node `to` fires; tag = timer tag */
  SIM_BUS_TOPOLOGY_CHANGE,   /* from/to = u/v or SIM_NODE_NONE; tag = epoch */
  SIM_BUS_ROUND,             /* a round boundary, published by upper layers */
  SIM_BUS_N_KINDS
} SimBusEventKind;

typedef enum {
  SIM_DROP_NONE,
  SIM_DROP_LOSS,      /* Bernoulli loss on the link */
  SIM_DROP_LINK_DOWN, /* the link was down at send time */
} SimDropReason;

/** One bus event; pointers are borrowed for the duration of the callback. */
typedef struct {
  SimBusEventKind kind;
  SimDropReason reason;      /* DROPPED only */
  SimTime time;              /* simulated time the event happens */
  guint64 seq;               /* sequence number of the underlying event: a
                              * message's SENT, DELIVERED and DROPPED share it;
                              * 0 for run events; ROUND: the publisher's choice */
  guint32 from, to;          /* nodes, SIM_NODE_NONE when not applicable */
  guint32 round;             /* message round, or the round of a ROUND event */
  guint64 tag;               /* message tag, timer tag, topology epoch */
  guint64 bytes;             /* message size */
  SimTime arrival;           /* SENT: scheduled delivery time, else SIM_TIME_NEVER */
  const SimMessage *message; /* message events, else NULL */
  const SimTopologyChange *change; /* TOPOLOGY_CHANGE, else NULL */
} SimBusEvent;

typedef struct SimBus SimBus;
typedef void (*SimBusCallback)(const SimBusEvent *event, gpointer user_data);

/** sim_bus_new: a bus without subscribers (an engine has its own: sim_engine_bus). */
SimBus *sim_bus_new(void);
/** sim_bus_free: frees @bus, calling every subscriber's destroy (NULL ignored). */
void sim_bus_free(SimBus *bus);

/**
 * sim_bus_subscribe: calls @callback(event, @user_data) for every event
 * published from now on, after the subscribers already there.
 * @destroy: (nullable) called on @user_data when unsubscribed or the bus dies.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @callback is NULL.
 * Returns: a subscription id > 0, or 0 on error. O(1) amortized.
 * Callbacks may subscribe and unsubscribe (themselves included) while called.
 */
guint sim_bus_subscribe(SimBus *bus, SimBusCallback callback, gpointer user_data,
                        GDestroyNotify destroy, GError **error);

/** The bit of one event kind in a subscription mask, and every kind. */
#define SIM_BUS_KIND_BIT(kind) (1u << (kind))
#define SIM_BUS_ALL_KINDS ((1u << SIM_BUS_N_KINDS) - 1u)

/**
 * sim_bus_subscribe_kinds: as sim_bus_subscribe, for the events whose kind is
 * in @kinds only (a mask of SIM_BUS_KIND_BIT). The engine builds an event only
 * when some subscriber wants its kind, so a subscriber that ignores, say,
 * deliveries and timers costs nothing on them.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @callback is NULL or @kinds names no
 * kind. Returns: a subscription id > 0, or 0 on error. O(1) amortized.
 */
guint sim_bus_subscribe_kinds(SimBus *bus, guint32 kinds, SimBusCallback callback,
                              gpointer user_data, GDestroyNotify destroy, GError **error);

/**
 * sim_bus_subscribe_sampled: as sim_bus_subscribe_kinds, but of the engine's
 * transmissions the subscriber takes one in @every: the 1st, (@every+1)st,
 * (2 @every+1)st, ... transmission counted from the subscription. It sees
 * the SENT event of each transmission it takes (if in @kinds) and, when
 * that transmission is lost, its DROPPED event (if in @kinds), and nothing
 * of the others: the engine builds no event for a transmission no
 * subscriber takes, so skipping one costs a decrement. Other kinds are not
 * sampled. Sampling applies to the engine's transmissions only: events
 * given to sim_bus_publish reach every subscriber that wants their kind.
 * @every: >= 1; 1 is sim_bus_subscribe_kinds.
 * Errors: SIM_ERROR_INVALID_ARGUMENT as sim_bus_subscribe_kinds, when
 *   @every is 0, or when @every > 1 and @kinds has SIM_BUS_MESSAGE_DELIVERED
 *   (deliveries are not sampled: subscribe to them separately).
 * Returns: a subscription id > 0, or 0 on error.
 * Complexity: O(subscribers); then O(subscribers) per transmission taken by
 * some subscriber, O(1) per other transmission.
 */
guint sim_bus_subscribe_sampled(SimBus *bus, guint32 kinds, guint every,
                                SimBusCallback callback, gpointer user_data,
                                GDestroyNotify destroy, GError **error);

/** sim_bus_unsubscribe: TRUE if @id was subscribed. O(subscribers). */
gboolean sim_bus_unsubscribe(SimBus *bus, guint id);

/** sim_bus_has_subscribers: check this before building an event to publish. */
gboolean sim_bus_has_subscribers(const SimBus *bus);

/**
 * sim_bus_publish: hands @event to every subscriber that wants its kind, in
 * subscription order (unsampled: see sim_bus_subscribe_sampled). Upper
 * layers use it for SIM_BUS_ROUND events. O(subscribers).
 */
void sim_bus_publish(SimBus *bus, const SimBusEvent *event);

/**
 * sim_bus_n_published: how many events were published (handed to
 * sim_bus_publish, or built by the engine for a transmission some
 * subscriber takes), heard or not. The engine builds an event only when
 * someone listens, so with no subscriber this stays 0: a check that nothing
 * is built for nobody.
 */
guint64 sim_bus_n_published(const SimBus *bus);

/** sim_bus_event_kind_name: "run_start", "sent", "delivered", ... */
const char *sim_bus_event_kind_name(SimBusEventKind kind);
/** sim_drop_reason_name: "none", "loss", "link_down". */
const char *sim_drop_reason_name(SimDropReason reason);

/**
 * sim_bus_event_append: appends @event to @out as one line of text, e.g.
 * `sent t=1000000 seq=3 from=0 to=1 round=0 tag=0 bytes=8 arrival=11000000`.
 * The format is stable: byte-identical runs give byte-identical logs.
 */
void sim_bus_event_append(GString *out, const SimBusEvent *event);

/* ---- Engine ----------------------------------------------------------------
 * n nodes reacting to events in simulated time. Handlers run one at a time, in
 * (time, seq) order; inside a handler, sim_engine_now() is the event's time. */

typedef struct SimEngine SimEngine;

/**
 * What a node does; any handler may be NULL. @state is the node's state
 * (sim_engine_set_node). @msg is borrowed: sim_message_ref it to keep it.
 * @timer is the id sim_engine_set_timer returned (no longer pending when the
 * handler runs). Handlers may send, set and cancel timers, notify, subscribe
 * and stop; they may not call sim_engine_run or free the engine.
 */
typedef struct {
  void (*on_start)(SimEngine *engine, guint32 node, gpointer state);
  void (*on_timer)(SimEngine *engine, guint32 node, gpointer state, SimEventId timer,
                   guint64 tag);
  void (*on_message)(SimEngine *engine, guint32 node, gpointer state, SimMessage *msg);
  void (*on_topology_change)(SimEngine *engine, guint32 node, gpointer state,
                             const SimTopologyChange *change);
} SimNodeHandlers;

typedef enum {
  SIM_RUN_ERROR = -1, /* see the GError */
  SIM_RUN_IDLE,       /* no event left */
  SIM_RUN_HORIZON,    /* the next event is after `until` */
  SIM_RUN_STOPPED,    /* sim_engine_stop was called */
} SimRunStatus;

typedef struct {
  guint64 events;             /* queue events processed (timers, deliveries, topology) */
  guint64 timers;             /* timers fired */
  guint64 messages_sent;      /* transmissions (a broadcast to k counts k) */
  guint64 messages_delivered;
  guint64 messages_dropped;   /* = dropped_loss + dropped_link_down */
  guint64 dropped_loss;
  guint64 dropped_link_down;
  guint64 bytes_sent;
  guint64 bytes_delivered;
} SimEngineStats;

/**
 * sim_engine_new: an engine of @n_nodes nodes at time 0.
 * @seed: global seed of every RNG stream (sim_engine_rng).
 * @handlers: (nullable) copied; every node's handlers until sim_engine_set_node.
 * @user_data: returned by sim_engine_get_user_data.
 * Links default to constant:ms=0 and no loss (sim_engine_set_default_link).
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @n_nodes is 0 or SIM_NODE_NONE.
 * Returns: (transfer full) the engine (free with sim_engine_free), or NULL.
 * Complexity: O(n_nodes).
 */
SimEngine *sim_engine_new(guint32 n_nodes, guint64 seed, const SimNodeHandlers *handlers,
                          gpointer user_data, GError **error);

/**
 * sim_engine_free: frees @engine, its pending events (releasing their
 * messages), streams and bus (calling subscribers' destroy). Node states
 * belong to the caller. NULL is ignored.
 */
void sim_engine_free(SimEngine *engine);

/**
 * sim_engine_set_node: gives @node its own @handlers (NULL: the engine's
 * defaults; not copied, must outlive the engine) and @state.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @node is out of range.
 */
gboolean sim_engine_set_node(SimEngine *engine, guint32 node, const SimNodeHandlers *handlers,
                             gpointer state, GError **error);

/** sim_engine_node_state: the state of @node (NULL when out of range). */
gpointer sim_engine_node_state(const SimEngine *engine, guint32 node);
gpointer sim_engine_get_user_data(const SimEngine *engine);
guint32 sim_engine_n_nodes(const SimEngine *engine);
guint64 sim_engine_seed(const SimEngine *engine);
/** sim_engine_now: the simulated clock (the current event's time in handlers). */
SimTime sim_engine_now(const SimEngine *engine);
/** sim_engine_pending: number of scheduled events. */
gsize sim_engine_pending(const SimEngine *engine);
/** sim_engine_get_stats: copies the counters into @stats. */
void sim_engine_get_stats(const SimEngine *engine, SimEngineStats *stats);
/** sim_engine_bus: (transfer none) the engine's event bus. */
SimBus *sim_engine_bus(SimEngine *engine);

/**
 * sim_engine_rng: stream (@node, @purpose) of the engine's seed; see
 * sim_rng_set_get for arguments and errors. (transfer none)
 */
gsl_rng *sim_engine_rng(SimEngine *engine, guint32 node, guint32 purpose, GError **error);

/**
 * sim_engine_set_default_link: the parameters of every link without an
 * override. Errors: SIM_ERROR_INVALID_ARGUMENT on an invalid latency or a loss
 * outside [0, 1]. O(1).
 */
gboolean sim_engine_set_default_link(SimEngine *engine, const SimLinkParams *params,
                                     GError **error);

/**
 * sim_engine_set_link: overrides the directed link @from -> @to (call twice
 * for both directions); @params NULL reverts it to the default.
 * Errors: as sim_engine_set_default_link, and nodes out of range. O(1).
 */
gboolean sim_engine_set_link(SimEngine *engine, guint32 from, guint32 to,
                             const SimLinkParams *params, GError **error);

/**
 * sim_engine_set_link_down: marks the directed link @from -> @to down (or up
 * again). A message sent on a down link is dropped (SIM_DROP_LINK_DOWN) without
 * any draw; messages already in flight still arrive.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when a node is out of range. O(1).
 */
gboolean sim_engine_set_link_down(SimEngine *engine, guint32 from, guint32 to, gboolean down,
                                  GError **error);

/** sim_engine_link_is_down: whether @from -> @to is down (FALSE when out of range). */
gboolean sim_engine_link_is_down(const SimEngine *engine, guint32 from, guint32 to);

/**
 * sim_engine_send: transmits @msg (the engine takes its own reference) from
 * sim_message_from(@msg) to @to. Down link: dropped. Otherwise, from the
 * SENDER's streams: loss drawn from SIM_RNG_LOSS, then latency from
 * SIM_RNG_LATENCY; delivered at now + latency (after the events already
 * scheduled at that time). Publishes SENT, then DROPPED if dropped.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when sender or @to is out of range;
 * SIM_ERROR_CAPACITY when the queue cannot grow. O(log_4 pending).
 */
gboolean sim_engine_send(SimEngine *engine, SimMessage *msg, guint32 to, GError **error);

/**
 * sim_engine_broadcast: sim_engine_send of the same @msg to @to[0..@n_to-1] in
 * order (one shared payload). Every destination is checked before anything is
 * sent. Errors: as sim_engine_send. O(n_to log_4 pending).
 */
gboolean sim_engine_broadcast(SimEngine *engine, SimMessage *msg, const guint32 *to,
                              gsize n_to, GError **error);

/**
 * sim_engine_set_timer: fires on_timer(@node, id, @tag) at now + @delay.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @node is out of range or the time
 * would pass SIM_TIME_NEVER; SIM_ERROR_CAPACITY when the queue cannot grow.
 * Returns: the timer's id (for sim_engine_cancel), or SIM_EVENT_ID_NONE.
 * Complexity: O(log_4 pending), no allocation in steady state.
 */
SimEventId sim_engine_set_timer(SimEngine *engine, guint32 node, SimTime delay, guint64 tag,
                                GError **error);

/** sim_engine_set_timer_at: as sim_engine_set_timer at absolute time @at >= now. */
SimEventId sim_engine_set_timer_at(SimEngine *engine, guint32 node, SimTime at, guint64 tag,
                                   GError **error);

/**
 * sim_engine_cancel: cancels a pending timer or topology notification.
 * Returns: TRUE if it was pending; FALSE for ids already fired, cancelled or
 * unknown. O(1) amortized (see sim_queue_cancel).
 */
gboolean sim_engine_cancel(SimEngine *engine, SimEventId id);

/**
 * sim_engine_notify_topology_change: at time @at (>= now), applies @change
 * (LINK_DOWN / LINK_UP set both directions of u-v) and calls
 * on_topology_change on u then v, or on every node in order for
 * SIM_TOPOLOGY_GRAPH; publishes TOPOLOGY_CHANGE first.
 * Errors: SIM_ERROR_INVALID_ARGUMENT on @at < now or a node out of range.
 * Returns: the event's id (cancellable), or SIM_EVENT_ID_NONE.
 */
SimEventId sim_engine_notify_topology_change(SimEngine *engine, SimTime at,
                                             const SimTopologyChange *change, GError **error);

/**
 * sim_engine_run: processes events with time <= @until (SIM_TIME_NEVER: until
 * none is left). The first run first publishes RUN_START and calls on_start on
 * every node in order at time 0; every run publishes RUN_START and RUN_END.
 * Unless stopped, the clock reads @until afterwards (when finite), so runs
 * compose: run(a) then run(b) processes the events run(b) alone would.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when called from a handler.
 * Returns: why it returned. Complexity: O(events x log_4 pending).
 */
SimRunStatus sim_engine_run(SimEngine *engine, SimTime until, GError **error);

/** sim_engine_stop: the current run returns after the current handler. */
void sim_engine_stop(SimEngine *engine);

/* SECTION-ENGINE-END */

/* ===================================================================== */
/* Linear provenance: linvec (owned by: linvec)                           */
/* ===================================================================== */

/* SECTION-LINVEC-BEGIN */
/*
 * Every vector a protocol builds is a linvec: numeric data in R^d (d = 0 in
 * accounting-only runs) together with its provenance, the exact coefficients
 * of the linear combination of gradient slots and noise variables it equals,
 * up to public constants such as the initial model (DESIGN.md, "Linear
 * provenance"). Every operation updates data and provenance together, so any
 * protocol written with linvecs is a linear DL algorithm (paper, Def. 4.2) by
 * construction and its observed quantities are rows of O = A G + B Z
 * (paper, Def. "Attacker knowledge").
 *
 * Columns of A (gradient slots): slot (u, t) is node u's clipped gradient at
 * its t-th local step, column t * n + u (time-major, as in the paper).
 * Coefficients are per unit of the gradient vector itself; A in units of the
 * clipping norm Delta (DESIGN.md, "Units") is Delta times these coefficients.
 * Columns of B (noise variables): variable k of the noise registry, one
 * standard-normal draw z_k per coordinate. Provenance is kept in units of
 * standard normals: adding coeff * N_k with N_k = std_k z_k stores coefficient
 * coeff * std_k on column k.
 *
 * None of these objects is thread-safe; a run owns its space and registry.
 */

/** Id of a noise variable: its column in B, dense from 0 in registration order. */
typedef guint32 SimNoiseId;
/** Returned by the registration functions on error. */
#define SIM_NOISE_ID_INVALID G_MAXUINT32
/** Metadata value for a noise variable attached to no single node. */
#define SIM_NODE_NONE G_MAXUINT

/**
 * Kind tags for noise variables. The library gives them no meaning; protocols
 * and the privacy observer use them to tell noises apart. Values from
 * SIM_NOISE_KIND_USER on are free for protocol-specific tags.
 */
enum {
  SIM_NOISE_KIND_LOCAL = 0,       /* drawn by one node */
  SIM_NOISE_KIND_EDGE_SECRET = 1, /* shared by the two ends of an edge (DECOR) */
  SIM_NOISE_KIND_STATE = 2,       /* a rebase state variable (sim_lin_space_rebase):
                                     std 1, no owner */
  SIM_NOISE_KIND_USER = 16,
};

/** An append-only, reference-counted table of the noise variables of a run. */
typedef struct SimNoiseRegistry SimNoiseRegistry;

/**
 * sim_noise_registry_new: an empty registry for a network of n_nodes nodes.
 * @n_nodes: number of nodes, >= 1 (owners and metadata nodes are checked
 *   against it).
 * @error: SIM_ERROR_INVALID_ARGUMENT when n_nodes is 0.
 * Returns: (transfer full) a registry with reference count 1, or NULL.
 * Complexity: O(1).
 */
SimNoiseRegistry *sim_noise_registry_new(guint n_nodes, GError **error);
/** sim_noise_registry_ref: adds a reference; returns @reg. O(1). */
SimNoiseRegistry *sim_noise_registry_ref(SimNoiseRegistry *reg);
/** sim_noise_registry_unref: drops a reference, freeing at zero. NULL is a no-op. */
void sim_noise_registry_unref(SimNoiseRegistry *reg);
/** sim_noise_registry_n_nodes: the network size given at creation. O(1). */
guint sim_noise_registry_n_nodes(const SimNoiseRegistry *reg);
/** sim_noise_registry_count: number of variables registered so far (ids are
 * 0 .. count-1). O(1). */
guint sim_noise_registry_count(const SimNoiseRegistry *reg);

/**
 * sim_noise_register: appends a noise variable N_k = std * z_k.
 * @std: its standard deviation, finite and >= 0 (0 is allowed: the variable
 *   then never appears in any provenance).
 * @owners: the nodes that know its realization, in the caller's order (kept:
 *   e.g. owners[0] is the end that adds +v_e of an edge secret); each < n_nodes,
 *   no duplicates.
 * @n_owners: >= 1.
 * @node, @round: metadata for protocols and the observer (the node that drew
 *   it, or the edge end it is filed under; its local step or gossip round).
 *   node is < n_nodes or SIM_NODE_NONE; round is free.
 * @kind: a SIM_NOISE_KIND_* tag or a protocol's own (>= SIM_NOISE_KIND_USER).
 * @error: SIM_ERROR_INVALID_ARGUMENT for a negative or non-finite std, no
 *   owner, an owner or node out of range, a duplicate owner;
 *   SIM_ERROR_CAPACITY when 2^32 - 1 variables exist already.
 * Returns: the new id (= previous count), or SIM_NOISE_ID_INVALID on error.
 * Complexity: amortized O(n_owners^2) (duplicate check); owners are few.
 */
SimNoiseId sim_noise_register(SimNoiseRegistry *reg, double std, const guint *owners,
                              guint n_owners, guint node, guint round, gint kind,
                              GError **error);
/**
 * sim_noise_register_state: a state variable of sim_lin_space_rebase: std 1,
 * no owner, node SIM_NODE_NONE, kind SIM_NOISE_KIND_STATE. It stands for the
 * linear combination a rebased linvec held, not for a fresh draw.
 * Errors: SIM_ERROR_CAPACITY when the registry is full. O(1) amortized.
 */
SimNoiseId sim_noise_register_state(SimNoiseRegistry *reg, GError **error);
/**
 * sim_noise_retain, sim_noise_release: a protocol that will add variable @k
 * to a linvec again later (a ring of past samples, an edge secret only one
 * end has used so far) retains it until its last use. A rebase
 * (sim_lin_space_rebase) carries every retained variable over as state under
 * its own id, so the streaming accountant can still resolve it. Retaining
 * twice is retaining once. O(1).
 */
void sim_noise_retain(SimNoiseRegistry *reg, SimNoiseId k);
void sim_noise_release(SimNoiseRegistry *reg, SimNoiseId k);
/** sim_noise_retained: the retained ids, increasing (free with g_array_unref).
 * O(r log r) for r retained. */
GArray *sim_noise_retained(const SimNoiseRegistry *reg);
/** sim_noise_register_local: sim_noise_register with the single owner @node
 * (also its metadata node) and kind SIM_NOISE_KIND_LOCAL. Same errors. */
SimNoiseId sim_noise_register_local(SimNoiseRegistry *reg, double std, guint node,
                                    guint round, GError **error);
/** sim_noise_register_edge: an edge secret known to @u and @v (u != v), in
 * that owner order, metadata node u, kind SIM_NOISE_KIND_EDGE_SECRET. Same
 * errors as sim_noise_register. */
SimNoiseId sim_noise_register_edge(SimNoiseRegistry *reg, double std, guint u, guint v,
                                   guint round, GError **error);

/*
 * Getters. @k must be a registered id: an unknown id is a programming error,
 * reported by g_return_val_if_fail (a GLib critical) with the fallback value
 * given. All O(1) except sim_noise_is_known_by, O(n_owners).
 */
double sim_noise_std(const SimNoiseRegistry *reg, SimNoiseId k);      /* NAN */
guint sim_noise_n_owners(const SimNoiseRegistry *reg, SimNoiseId k); /* 0 */
/** The i-th owner (i < n_owners) in registration order; SIM_NODE_NONE on error. */
guint sim_noise_owner(const SimNoiseRegistry *reg, SimNoiseId k, guint i);
/** Whether @node is among the owners of k (the SecLDP / PNDP "known noise"
 * test); FALSE on error. */
gboolean sim_noise_is_known_by(const SimNoiseRegistry *reg, SimNoiseId k, guint node);
gint sim_noise_kind(const SimNoiseRegistry *reg, SimNoiseId k);   /* -1 */
guint sim_noise_node(const SimNoiseRegistry *reg, SimNoiseId k);  /* SIM_NODE_NONE */
guint sim_noise_round(const SimNoiseRegistry *reg, SimNoiseId k); /* G_MAXUINT */

/** How a space stores provenance. Both give bit-identical coefficients. */
typedef enum {
  SIM_LIN_DENSE,  /* arrays over every column seen so far: fastest once
                     provenance is mixed over the network (gossip makes it so) */
  SIM_LIN_SPARSE, /* sorted (column, coefficient) lists, merged on axpy:
                     compact while few slots are involved */
  SIM_LIN_NONE,   /* numeric data only, no provenance: for training runs that
                     do no accounting (provenance over every gradient slot and
                     noise of a long run costs far more than the numbers).
                     Every operation updates the data and checks its
                     arguments as in the other storages; the provenance
                     updates are no-ops. Queries: sim_linvec_grad_coeff,
                     sim_linvec_noise_coeff and sim_linvec_dot return NAN,
                     sim_linvec_nnz returns 0, sim_linvec_row fails with
                     SIM_ERROR_INVALID_ARGUMENT, iterators yield nothing.
                     sim_lin_space_n_rounds is still maintained. */
} SimLinStorage;

/** The two halves of a provenance row; bit flags, combinable where stated. */
typedef enum {
  SIM_LIN_GRAD = 1,  /* gradient slots: a row of A */
  SIM_LIN_NOISE = 2, /* noise variables: a row of B */
  SIM_LIN_BOTH = 3,
} SimLinPart;

/**
 * A space: the network size and dimension shared by a family of linvecs, their
 * storage, the noise registry they draw on, and the rounds used so far.
 * Reference-counted; each linvec holds a reference to its space.
 */
typedef struct SimLinSpace SimLinSpace;
typedef struct SimLinvec SimLinvec;

/**
 * sim_lin_space_new: creates a space.
 * @noise: the run's noise registry (a reference is taken); the network size
 *   is the registry's.
 * @dim: d, the numeric dimension; 0 for accounting-only runs (no numeric data).
 * @storage: SIM_LIN_DENSE, SIM_LIN_SPARSE or SIM_LIN_NONE (data only).
 * @max_rounds: highest number of local steps a gradient slot may use, or 0
 *   for unbounded growth. Storage grows on demand either way; a bound only
 *   turns a runaway round counter into a SIM_ERROR_CAPACITY error. Whatever
 *   the bound, columns t * n + u must fit in 32 bits, so t < 2^32 / n.
 * @error: SIM_ERROR_INVALID_ARGUMENT for a NULL registry or unknown storage;
 *   SIM_ERROR_CAPACITY for a dim whose data could not be addressed.
 * Returns: (transfer full) the space (reference count 1), or NULL.
 * Complexity: O(1).
 */
SimLinSpace *sim_lin_space_new(SimNoiseRegistry *noise, gsize dim, SimLinStorage storage,
                               guint max_rounds, GError **error);
SimLinSpace *sim_lin_space_ref(SimLinSpace *space);
/** Drops a reference, freeing at zero (linvecs keep their space alive). */
void sim_lin_space_unref(SimLinSpace *space);
guint sim_lin_space_n_nodes(const SimLinSpace *space);
gsize sim_lin_space_dim(const SimLinSpace *space);
SimLinStorage sim_lin_space_storage(const SimLinSpace *space);
/** The registry (transfer none). */
SimNoiseRegistry *sim_lin_space_noise(const SimLinSpace *space);
/** The bound given at creation (0 = unbounded). */
guint sim_lin_space_max_rounds(const SimLinSpace *space);
/** 1 + the largest round t passed to sim_linvec_add_gradient so far (0 if
 * none): A needs n * n_rounds columns. O(1). */
guint sim_lin_space_n_rounds(const SimLinSpace *space);
/** Column t * n + u of gradient slot (u, t); no range check. */
guint32 sim_lin_space_grad_column(const SimLinSpace *space, guint u, guint t);
/** Inverse of sim_lin_space_grad_column: u = column % n, t = column / n. */
void sim_lin_space_grad_slot(const SimLinSpace *space, guint32 column, guint *u, guint *t);

/**
 * sim_lin_space_n_live: linvecs of @space currently allocated (every
 * sim_linvec_new/dup not yet freed): the space keeps a registry of them for
 * sim_lin_space_rebase. O(1).
 */
guint sim_lin_space_n_live(const SimLinSpace *space);

/**
 * sim_lin_space_live: live linvec @i (0 <= @i < sim_lin_space_n_live), in
 * the registry's order, for reading (a rebase's planning). O(1).
 */
const SimLinvec *sim_lin_space_live(const SimLinSpace *space, guint i);

/**
 * SimLinRebaseFunc: one transition row of a rebase. State variable @state
 * now stands for @before's provenance (gradient slots and noise variables,
 * possibly earlier state variables); @before is NULL for a retained noise
 * variable carried over under its own id (state == that id: an identity
 * row). Return FALSE with @error set to stop the rebase.
 */
typedef gboolean (*SimLinRebaseFunc)(SimNoiseId state, const SimLinvec *before,
                                     gpointer user_data, GError **error);

/**
 * sim_lin_space_rebase: a checkpoint of the streaming accountant (DESIGN.md,
 * "Streaming accountant"). Every live linvec with a nonzero provenance gets a
 * fresh state variable k (sim_noise_register_state): @func sees its
 * provenance, then the provenance becomes 1.0 z_k (gradient part empty).
 * Numeric data are untouched. Then @func sees one identity row per retained
 * noise variable (sim_noise_retained). After a rebase a provenance holds
 * only state variables, retained ones, and what was added since: the
 * simulation no longer carries the whole past.
 * Linvecs are visited in the registry's order (a pure function of the
 * run's sequence of new/free).
 * Errors: SIM_ERROR_INVALID_ARGUMENT unless the storage is SIM_LIN_SPARSE
 *   (a dense row would span every id ever registered); SIM_ERROR_CAPACITY
 *   from the registry; @func's errors (then the linvecs already visited are
 *   rebased, the others not: the space is unusable for accounting).
 * Complexity: O(sum of the live provenance lengths + retained).
 */
gboolean sim_lin_space_rebase(SimLinSpace *space, SimLinRebaseFunc func, gpointer user_data,
                              GError **error);

/**
 * SimLinKeepFunc: whether noise variable @id stays in the provenances as it
 * is through a rebase (sim_lin_space_rebase_keeping) instead of being folded
 * into a state variable. Never TRUE for a state or retained variable.
 */
typedef gboolean (*SimLinKeepFunc)(SimNoiseId id, gpointer user_data);

/**
 * sim_lin_space_rebase_keeping: sim_lin_space_rebase, except that the noise
 * terms @keep selects stay in each provenance, beside the state variable
 * that stands for the rest (@func sees that rest; a linvec whose provenance
 * is all kept gets no state). The streaming accountant keeps fresh noise no
 * observation has touched yet: it is independent of the past, so it can
 * enter the next period as fresh noise rather than as state, which keeps
 * the state small for a protocol with many noisy payloads in flight
 * (Zip-DL). @keep NULL keeps nothing (= sim_lin_space_rebase).
 * Errors: as sim_lin_space_rebase.
 * Complexity: O(sum of the live provenance lengths + retained) calls.
 */
gboolean sim_lin_space_rebase_keeping(SimLinSpace *space, SimLinKeepFunc keep,
                                      SimLinRebaseFunc func, gpointer user_data,
                                      GError **error);

/**
 * sim_linvec_new: the zero vector with empty provenance.
 * Returns: (transfer full) a linvec holding a reference to @space; free with
 *   sim_linvec_free. Complexity: O(d).
 */
SimLinvec *sim_linvec_new(SimLinSpace *space);
/** sim_linvec_dup: a new linvec equal to @x (data and provenance). O(d + nnz)
 * (dense: O(d + columns seen by x)). */
SimLinvec *sim_linvec_dup(const SimLinvec *x);
/** Frees @v and drops its space reference; NULL is a no-op. */
void sim_linvec_free(SimLinvec *v);
/** The space of @v (transfer none). */
SimLinSpace *sim_linvec_space(const SimLinvec *v);

/*
 * Operations. Each updates the numeric data and the provenance together.
 * Errors (SIM_ERROR_INVALID_ARGUMENT unless stated) are for values that may
 * come from configuration or protocol arithmetic; on error nothing changes.
 * NULL linvecs are programming errors (g_return_val_if_fail, returns FALSE).
 * Cancellation: a coefficient that becomes exactly 0 (or -0) is dropped by
 * sparse storage and kept as a stored 0 by dense storage; nonzero counts,
 * iteration and getters hide the difference (a getter may return -0.0, which
 * compares equal to 0). Every nonzero coefficient is the
 * same double in both storages: both evaluate y + a * x once per column.
 */

/** sim_linvec_zero: v = 0 (data and provenance). O(d). */
void sim_linvec_zero(SimLinvec *v);
/**
 * sim_linvec_copy: dst = src (set-from / assign); dst == src is a no-op.
 * @error: dst and src from different spaces.
 * Complexity: O(d + nnz(src)) (dense: columns seen by src).
 */
gboolean sim_linvec_copy(SimLinvec *dst, const SimLinvec *src, GError **error);
/**
 * sim_linvec_scale: v = a v.
 * @a: finite; 0 clears the provenance.
 * @error: a non-finite.
 * Complexity: O(d + nnz) (dense: columns seen).
 */
gboolean sim_linvec_scale(SimLinvec *v, double a, GError **error);
/**
 * sim_linvec_axpy: y = y + a x. x == y is allowed (y = y + a y, evaluated per
 * column as above). a == 0 leaves y untouched.
 * @error: a non-finite; x and y from different spaces.
 * Complexity: dense O(d + columns seen by x); sparse O(d + nnz(x) + nnz(y)):
 * columns x shares with y are updated in place, the rest merged from the
 * back without a temporary (no entry moves when y already has all of x's
 * columns, the usual case once gossip has mixed the network).
 */
gboolean sim_linvec_axpy(SimLinvec *y, double a, const SimLinvec *x, GError **error);
/**
 * sim_linvec_combine: y = sum_i a[i] x[i] (a gossip average), with the
 * numbers and provenance of sim_linvec_zero followed by n sim_linvec_axpy
 * calls in order, bit for bit, but one pass over y's data per 4 inputs
 * instead of one per input.
 * @a, @x: @n weights (finite) and linvecs of y's space, none of them y.
 * @error: a weight non-finite, an input of another space or equal to y;
 *   y is unchanged then.
 * Complexity: O(n d) arithmetic, O(n d / 4 + n d) memory traffic; provenance
 * as n sim_linvec_axpy calls.
 */
gboolean sim_linvec_combine(SimLinvec *y, guint n, const double *a, const SimLinvec *const *x,
                            GError **error);
/**
 * sim_linvec_add_gradient: v = v + coeff g_{u,t}: one gradient-slot term of
 * paper eq. (MF-D-SGD), column t * n + u of A.
 * @coeff: finite.
 * @u: node, < n. @t: node u's local step (grows the space's n_rounds).
 * @g: the clipped gradient (d values); NULL exactly when d = 0.
 * @error: SIM_ERROR_INVALID_ARGUMENT for coeff, u, or g inconsistent with d;
 *   SIM_ERROR_CAPACITY for t >= max_rounds (when bounded) or a column that
 *   does not fit in 32 bits.
 * Complexity: O(d) + dense O(1) amortized (growth) / sparse O(log nnz + moved
 * entries) (O(log nnz) when appending the newest slot, the usual case).
 */
gboolean sim_linvec_add_gradient(SimLinvec *v, double coeff, guint u, guint t,
                                 const double *g, GError **error);
/**
 * sim_linvec_add_noise: v = v + coeff N_k = v + (coeff std_k) z_k. The
 * provenance gains coeff * std_k on column k of B; the data gains
 * (coeff * std_k) * z.
 * @coeff: finite.
 * @k: a registered noise id.
 * @z: the realized standard-normal sample of z_k (d values; the caller must
 *   pass the same sample every time it uses k); NULL exactly when d = 0.
 * @error: coeff non-finite, k unknown, z inconsistent with d.
 * Complexity: as sim_linvec_add_gradient.
 */
gboolean sim_linvec_add_noise(SimLinvec *v, double coeff, SimNoiseId k, const double *z,
                              GError **error);
/**
 * sim_linvec_add_noise_sum: v = v + sum_i coeffs[i] N_{ids[i]}, with the
 * numeric part given already combined: the data gains @scale * @sum, where
 * the caller guarantees @scale * @sum = sum_i coeffs[i] std_i z_i (the same
 * samples it would pass to sim_linvec_add_noise). The provenance gains
 * coeffs[i] std_i on each column ids[i], as @count calls of
 * sim_linvec_add_noise would give. For protocols that combine many past
 * noises at once (MF-D-SGD's C^-1 z, computed a block of steps at a time
 * with one matrix product instead of one d-long pass per past noise).
 * @coeffs, @ids: @count entries (may repeat an id; NULL when count = 0).
 * @sum: d values; NULL exactly when d = 0.
 * @error: a coefficient or @scale non-finite, an id unknown, sum
 *   inconsistent with d.
 * Complexity: O(d + count) dense; sparse as count sim_linvec_add_noise calls
 * without their O(d) parts.
 */
gboolean sim_linvec_add_noise_sum(SimLinvec *v, guint count, const double *coeffs,
                                  const SimNoiseId *ids, double scale, const double *sum,
                                  GError **error);
/**
 * sim_linvec_add_public: data = data + a c, provenance unchanged: for public
 * constants only (initial model, public offsets) that the attacker knows and
 * that therefore belong to neither A nor B. With d = 0 it is a no-op and c
 * may be NULL.
 * @error: a non-finite, or c NULL while d > 0. Complexity: O(d).
 */
gboolean sim_linvec_add_public(SimLinvec *v, double a, const double *c, GError **error);

/*
 * Read access.
 */
/** The numeric data, d doubles (NULL when d = 0). Writing through it is
 * allowed for public constants only. */
double *sim_linvec_data(SimLinvec *v);
const double *sim_linvec_const_data(const SimLinvec *v);
gsize sim_linvec_dim(const SimLinvec *v);
/** Coefficient of gradient slot (u, t); 0 if absent (also for t beyond any
 * round seen). u >= n is a programming error (critical, returns 0).
 * Complexity: dense O(1), sparse O(log nnz). */
double sim_linvec_grad_coeff(const SimLinvec *v, guint u, guint t);
/** Coefficient of noise variable k, in units of the standard normal z_k (that
 * is, coeff * std_k summed over additions); 0 if absent. Same complexity. */
double sim_linvec_noise_coeff(const SimLinvec *v, SimNoiseId k);
/** Number of nonzero coefficients in @part (GRAD, NOISE or BOTH). Dense
 * O(columns seen), sparse O(1). */
gsize sim_linvec_nnz(const SimLinvec *v, SimLinPart part);
/**
 * sim_linvec_dot: inner product of two provenance rows restricted to @part
 * (GRAD: <A_x, A_y>; NOISE: <B_x, B_y>; BOTH: their sum, GRAD first). Summed in
 * increasing column order over the nonzero products, identically in both
 * storages. Returns NAN (and a critical) for linvecs of different spaces.
 * Complexity: dense O(min columns seen), sparse O(nnz(x) + nnz(y)).
 */
double sim_linvec_dot(const SimLinvec *x, const SimLinvec *y, SimLinPart part);
/**
 * sim_linvec_row: writes the provenance row of @part (GRAD or NOISE, not
 * BOTH) into row[0 .. n_cols): the coefficients of columns < n_cols, zeros
 * elsewhere, e.g. to fill a row of A (n_cols = n * n_rounds) or B (n_cols =
 * noise count).
 * @error: SIM_ERROR_INVALID_ARGUMENT for part BOTH; SIM_ERROR_CAPACITY if a
 *   nonzero coefficient lies at a column >= n_cols (the row is then filled
 *   up to n_cols anyway).
 * Complexity: O(n_cols + nnz) (dense: + columns seen).
 */
gboolean sim_linvec_row(const SimLinvec *v, SimLinPart part, double *row, gsize n_cols,
                        GError **error);

/**
 * Iterator over the nonzero coefficients of a linvec, in increasing column
 * order, gradient part first when both are requested. The linvec must not be
 * modified while iterating. Fields are private.
 */
typedef struct {
  /*< private >*/
  const SimLinvec *v;
  gsize pos;
  gint part;
  gint parts;
} SimLinvecIter;

/** sim_linvec_iter_init: starts iterating @parts (GRAD, NOISE or BOTH) of @v. O(1). */
void sim_linvec_iter_init(SimLinvecIter *it, const SimLinvec *v, SimLinPart parts);
/**
 * sim_linvec_iter_next: the next nonzero coefficient.
 * @part: (out) (nullable) SIM_LIN_GRAD or SIM_LIN_NOISE.
 * @column: (out) (nullable) its column: t * n + u for a gradient slot (see
 *   sim_lin_space_grad_slot), the noise id for a noise variable.
 * @coeff: (out) (nullable) the coefficient.
 * Returns: FALSE when exhausted. Complexity: sparse O(1); dense O(1) amortized
 * over the columns seen.
 */
gboolean sim_linvec_iter_next(SimLinvecIter *it, SimLinPart *part, guint32 *column,
                              double *coeff);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimNoiseRegistry, sim_noise_registry_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimLinSpace, sim_lin_space_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimLinvec, sim_linvec_free)
/* SECTION-LINVEC-END */

/* ===================================================================== */
/* Event stream: ZeroMQ publisher, trace record/replay (owned by: stream) */
/* ===================================================================== */

/* SECTION-STREAM-BEGIN */
/*
 * The event stream: what a run shows the outside world, live over ZeroMQ
 * and/or recorded to a trace file, in one format (docs/events.md, a public
 * interface). Each event is a pair [topic, body]: topic is one of run,
 * topology, round, message, metric, privacy; body is one line of JSON that
 * carries `v` (SIM_STREAM_VERSION), `seq` (0, 1, 2, ... in publication order)
 * and `t_ns` (simulated time, never decreasing).
 *
 * Who publishes what:
 *   - the engine's bus, once sim_stream_attach'ed: message (one event per
 *     transmission, at send time, sampled), topology (link up/down, graph
 *     changes) and round (SIM_BUS_ROUND events upper layers publish on the
 *     engine's bus with sim_bus_publish);
 *   - the caller: run (sim_stream_begin_run / sim_stream_end_run: scenario
 *     summary, graph and node positions), metric, privacy, and richer
 *     topology changes (churn, edge sets).
 *
 * Publishing never blocks the simulation: the caller's thread only formats
 * a body (about 0.1 us for a message event) and hands it to the stream's
 * sender thread, which sends it on an XPUB socket with a bounded high-water
 * mark and non-blocking sends, and writes the trace. What a slow subscriber
 * cannot take is dropped and counted (reported in the run's end body and by
 * sim_stream_get_stats). Sequence numbers are given before sending, so a
 * subscriber sees a gap where something was dropped. The trace gets every
 * event, dropped on the socket or not (if the disk cannot keep up, the
 * simulation waits rather than lose a record). Message events reach the
 * socket in batches, within about 20 ms; other events at once.
 *
 * A subscriber that connects mid-run is sent the run's start body again
 * (same bytes, same seq) so it can draw the graph; consumers ignore a run
 * start identical to the one they hold until that run ends.
 *
 * Typical use (a protocol run):
 *   SimStreamOptions o = {.publish = "tcp://127.0.0.1:5556", .record = "run.trace",
 *                         .messages = "every:10", .wait_ms = 1000};
 *   SimStream *s = sim_stream_new(&o, &error);
 *   sim_stream_attach(s, engine, &error);
 *   sim_stream_begin_run(s, &run_info, &error);   (graph + layout)
 *   ... sim_engine_run; upper layers publish SIM_BUS_ROUND on the engine bus,
 *       sim_stream_publish_metrics / _privacy as values become known ...
 *   sim_stream_end_run(s, sim_engine_now(engine), "ok", &error);
 *   sim_stream_finish(s, &error); sim_stream_free(s);
 *
 * Not thread-safe: call everything from the thread that runs the engine.
 * Trace write errors (disk full...) surface at sim_stream_end_run or
 * sim_stream_finish: the run goes on, and the trace reads as truncated where
 * the writing failed.
 */

/** The `v` every body carries. Adding fields or topics keeps it; removing or
 * changing the meaning of a field bumps it (docs/events.md). */
#define SIM_STREAM_VERSION 1
/** The version in a trace file's header line (DPGTRACE 1 ...). */
#define SIM_TRACE_VERSION 1

typedef struct SimStream SimStream;

/** Where and how to publish. Zero-initialize, then set what you need. */
typedef struct {
  /* ZeroMQ endpoint to bind, e.g. "tcp://127.0.0.1:5556"; "tcp://127.0.0.1:*"
   * picks a free port (sim_stream_endpoint tells which). NULL: no socket. */
  const char *publish;
  /* Trace file to write (gzip-compressed; see docs/events.md). NULL: none. */
  const char *record;
  /* Message sampling: NULL or "all", "every:N" (the 1st, N+1st, ...
   * transmission), "none". See sim_stream_parse_sampling. */
  const char *messages;
  /* Socket high-water mark in messages (ZMQ_SNDHWM); 0: 10,000. */
  guint hwm;
  /* sim_stream_new waits up to this long for a first subscriber (so a short
   * run is not over before a viewer connects); 0: do not wait. */
  guint wait_ms;
  /* Block on a full socket instead of dropping, for up to this long per
   * event (0: never block: drop). For replays and tests, not live runs. */
  guint block_ms;
} SimStreamOptions;

/** Counters of a stream (sim_stream_get_stats). */
typedef struct {
  guint64 published;            /* events given a seq (sent or dropped) */
  guint64 dropped;              /* events the socket could not take (slow subscribers) */
  guint64 recorded;             /* events written to the trace */
  guint64 messages_seen;        /* the engine's transmissions while attached */
  guint64 messages_sampled_out; /* of those, the ones sampling left out */
  guint64 subscribers_joined;   /* subscriptions seen on the socket */
  guint64 bytes;                /* body bytes published */
} SimStreamStats;

/**
 * sim_stream_parse_sampling: reads a message sampling spec.
 * @spec: "all" (or NULL), "every:N" with N >= 1, or "none".
 * @every: (out) N: 1 for all, 0 for none.
 * Errors: SIM_ERROR_PARSE naming the spec and the valid forms.
 */
gboolean sim_stream_parse_sampling(const char *spec, guint *every, GError **error);

/**
 * sim_stream_new: opens the socket and/or the trace file.
 * @options: see SimStreamOptions; both publish and record may be NULL (a
 *   stream that only counts, for tests and benchmarks).
 * Errors: SIM_ERROR_PARSE for a bad sampling spec; SIM_ERROR_INVALID_ARGUMENT
 *   for an endpoint ZeroMQ cannot bind ("Address already in use", bad
 *   transport: the message names the endpoint) or a trace file that cannot be
 *   created (naming the file and the OS error).
 * Returns: (transfer full) the stream (sim_stream_free), or NULL.
 * Complexity: O(1) plus up to wait_ms of waiting; starts the sender thread
 * when there is a socket or a trace.
 */
SimStream *sim_stream_new(const SimStreamOptions *options, GError **error);

/**
 * sim_stream_free: closes everything (as sim_stream_finish, ignoring errors)
 * and frees @stream; detaches it from its engine. NULL is ignored. Pending
 * socket messages get up to one second to leave (ZMQ_LINGER).
 */
void sim_stream_free(SimStream *stream);

/**
 * sim_stream_finish: sends what is pending, stops the sender thread, closes
 * the trace file (writing its END line) and the socket. Later publications
 * are counted but go nowhere.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when the trace could not be written
 *   completely (disk full, I/O error), naming the file.
 */
gboolean sim_stream_finish(SimStream *stream, GError **error);

/** sim_stream_endpoint: the bound endpoint with its actual port
 * ("tcp://127.0.0.1:41234"), or NULL without a socket. (transfer none) */
const char *sim_stream_endpoint(const SimStream *stream);

/** sim_stream_message_every: the sampling period (1 all, 0 none). */
guint sim_stream_message_every(const SimStream *stream);

/** sim_stream_get_stats: copies the counters into @stats (dropped, recorded
 * and subscribers_joined as the sender thread has them now). */
void sim_stream_get_stats(const SimStream *stream, SimStreamStats *stats);

/**
 * sim_stream_attach: subscribes @stream to @engine's bus: transmissions
 * become message events (sampled), topology changes topology events and
 * SIM_BUS_ROUND events round events; the end body reports the engine's
 * counters. A stream follows one engine at a time; freeing either first is
 * safe (the engine's destroy notify unhooks the stream).
 * Errors: SIM_ERROR_INVALID_ARGUMENT when already attached.
 * Complexity: O(1). The engine samples for the stream
 * (sim_bus_subscribe_sampled): a transmission left out costs it one
 * decrement, deliveries and timers nothing; a published message costs
 * formatting (~0.1 us). The stream reads its message counts off the
 * engine's counters.
 */
gboolean sim_stream_attach(SimStream *stream, SimEngine *engine, GError **error);

/** sim_stream_detach: undoes sim_stream_attach (no-op when not attached). */
void sim_stream_detach(SimStream *stream);

/** What a run start says (sim_stream_begin_run). Pointers are borrowed. */
typedef struct {
  const char *name;         /* run or scenario name (required) */
  const char *command;      /* "demo", "train", "run", ... (nullable) */
  guint64 seed;
  guint rounds;             /* planned number of rounds T (0: unknown) */
  const char *scenario_json;/* (nullable) a JSON object copied verbatim as
                             * "scenario": protocol, sigma, trust models... */
  guint32 n_nodes;
  const guint32 *edges;     /* 2 * n_edges node ids, u-v pairs (undirected) */
  gsize n_edges;
  const double *positions;  /* (nullable) 2 * n_nodes: x, y per node, any scale */
  const char *layout;       /* (nullable) how positions were made, e.g.
                             * "fruchterman_reingold" */
} SimStreamRun;

/**
 * sim_stream_begin_run: publishes the run start (topic run, event "start")
 * at simulated time 0 with the graph and layout, and remembers it to send
 * again to subscribers that join later.
 * Errors: SIM_ERROR_INVALID_ARGUMENT for a missing name, n_nodes 0, an edge
 *   endpoint >= n_nodes, non-finite positions, scenario_json that is not one
 *   JSON object; trace write errors. Nothing is published on error.
 * Complexity: O(n_nodes + n_edges).
 */
gboolean sim_stream_begin_run(SimStream *stream, const SimStreamRun *run, GError **error);

/**
 * sim_stream_end_run: publishes the run end (topic run, event "end") at
 * time @t with @status ("ok", "stopped", "error": free text), the engine's
 * counters when attached, and the stream's (published, dropped, sampled
 * out). It first waits until everything before it is sent, so its
 * `dropped` is the final count of events dropped before it.
 * Errors: a trace write error met since the last check (the end is still
 * published).
 */
gboolean sim_stream_end_run(SimStream *stream, SimTime t, const char *status, GError **error);

/**
 * sim_stream_publish_round: a round event (the run has completed @round
 * rounds; round 0 is the initial state) at time @t. Upper layers usually
 * publish SIM_BUS_ROUND on the engine bus instead, which reaches every bus
 * subscriber; this is for streams without an engine.
 * O(1).
 */
gboolean sim_stream_publish_round(SimStream *stream, SimTime t, guint round, GError **error);

/**
 * sim_stream_publish_metrics: one metric event: per-node values after
 * @round rounds, at time @t.
 * @nodes: (nullable) the @n node ids the arrays describe; NULL: 0..n-1.
 * @train_loss, @test_loss, @accuracy: (nullable) n values each; NaN
 *   publishes null (not measured); a NULL array is left out of the body.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @n is 0 or all arrays are NULL.
 * Complexity: O(n).
 */
gboolean sim_stream_publish_metrics(SimStream *stream, SimTime t, guint round, gsize n,
                                    const guint32 *nodes, const double *train_loss,
                                    const double *test_loss, const double *accuracy,
                                    GError **error);

/** Privacy loss of victims towards one attacker set (sim_stream_publish_privacy). */
typedef struct {
  const char *collusion;    /* name of the attacker set, e.g. "alone", "pair" (required) */
  const guint32 *attackers; /* the set's nodes */
  gsize n_attackers;        /* >= 1 */
  const char *trust;        /* "ldp", "pndp", "secldp" (required) */
  guint round;              /* the horizon the values hold for (rounds seen) */
  double delta;             /* of epsilon(delta); NaN: no epsilon */
  gsize n_victims;          /* >= 1 */
  const guint32 *victims;
  const double *mu;         /* GDP mu per victim; +inf: unprotected (null in JSON) */
  const double *epsilon;    /* (nullable) epsilon(delta) per victim; +inf as mu */
  const gint32 *distance;   /* (nullable) hop distance to the set, -1 unknown */
} SimStreamPrivacy;

/**
 * sim_stream_publish_privacy: one privacy event at time @t.
 * Errors: SIM_ERROR_INVALID_ARGUMENT for missing names, empty sets, NULL
 *   victims or mu, a NaN or negative mu/epsilon.
 * Complexity: O(n_attackers + n_victims).
 */
gboolean sim_stream_publish_privacy(SimStream *stream, SimTime t, const SimStreamPrivacy *p,
                                    GError **error);

/** One topology change between rounds (mirrors topologies' TopoChangeKind). */
typedef enum {
  SIM_STREAM_NODE_LEFT,
  SIM_STREAM_EDGE_REMOVED,
  SIM_STREAM_EDGE_ADDED,
  SIM_STREAM_NODE_JOINED,
} SimStreamChangeKind;

typedef struct {
  SimStreamChangeKind kind;
  guint32 u, v; /* v ignored for node events */
} SimStreamChange;

/**
 * sim_stream_publish_topology: one topology event: the changes that take
 * effect at round @round (time @t), e.g. from topo_schedule_changes.
 * @changes: (nullable when @n_changes is 0) in any order.
 * @reset: TRUE when the whole gossip matrix changed beyond the listed edges
 *   (e.g. re-weighting), so consumers should not assume W_t is W_{t-1}.
 * Errors: SIM_ERROR_INVALID_ARGUMENT for an unknown kind.
 * Complexity: O(n_changes).
 */
gboolean sim_stream_publish_topology(SimStream *stream, SimTime t, guint round,
                                     const SimStreamChange *changes, gsize n_changes,
                                     gboolean reset, GError **error);

/**
 * sim_stream_publish_raw: publishes @body (one JSON object, @len bytes, no
 * newline) under @topic verbatim, without touching it or the stream's seq:
 * how a replay sends recorded events again. Counted as published.
 * Errors: SIM_ERROR_INVALID_ARGUMENT for an empty topic or a body with a
 *   newline.
 */
gboolean sim_stream_publish_raw(SimStream *stream, const char *topic, const char *body,
                                gsize len, GError **error);

/**
 * sim_stream_poll: hands batched message events to the sender thread now,
 * e.g. before the caller sleeps. (The sender thread itself notices new
 * subscribers, and sends them the run start, within 10 ms.) O(1).
 */
void sim_stream_poll(SimStream *stream);

/* ---- Trace files --------------------------------------------------------
 * A trace is gzip-compressed text (plain text is read too): a header line
 * `DPGTRACE <version> <json>`, one line per event `<topic> <crc32> <body>`
 * (crc32 of the body, 8 lowercase hex digits), and a last line
 * `END <crc32> {"records":N}`. See docs/events.md. */

typedef struct SimTraceReader SimTraceReader;

/** One event read back; pointers are valid until the next read. */
typedef struct {
  const char *topic;
  const char *body; /* NUL-terminated, body_len bytes */
  gsize body_len;
  guint64 index;    /* 0-based record number */
  guint64 offset;   /* byte offset of its line in the uncompressed text */
  guint64 seq;      /* the body's seq, t_ns and round (round: -1 if none) */
  SimTime t_ns;
  gint64 round;
  gboolean run_start; /* topic run with event "start" */
} SimTraceRecord;

/**
 * sim_trace_reader_open: opens @path and checks its header line.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when the file cannot be opened;
 *   SIM_ERROR_PARSE for something that is not a dpgossip trace or has an
 *   unsupported version (naming the file and what was found).
 * Returns: (transfer full) the reader (sim_trace_reader_free), or NULL.
 */
SimTraceReader *sim_trace_reader_open(const char *path, GError **error);

/**
 * sim_trace_reader_next: reads and checks the next record: checksum, known
 * line shape, body a JSON object with v, seq (greater than the previous
 * record's) and t_ns (not smaller than the previous one).
 * Returns: 1 with @rec filled, 0 at a well-formed end (the END line, whose
 *   count must match), -1 on error: SIM_ERROR_PARSE naming the file, the
 *   record index, its byte offset in the uncompressed text and what is wrong
 *   (corrupt compressed data, truncated file, checksum mismatch, bad JSON,
 *   seq or time going backwards, missing END line). After -1 every call
 *   returns -1 again; the records returned before stay valid events.
 * Complexity: O(record length).
 */
int sim_trace_reader_next(SimTraceReader *reader, SimTraceRecord *rec, GError **error);

/** sim_trace_reader_header: the header's JSON object text. (transfer none) */
const char *sim_trace_reader_header(const SimTraceReader *reader);

/** sim_trace_reader_free: closes @reader (NULL ignored). */
void sim_trace_reader_free(SimTraceReader *reader);
/* SECTION-STREAM-END */

/* ---- BEGIN JSON writer (issue 12; sim/json_write.c) ---- */

/* json-glib's node, declared rather than included: plugins build against
 * this header with GLib alone. (C11 allows the typedef to repeat.) */
typedef struct _JsonNode JsonNode;

/* Room for any double sim_json_format_double writes, NUL included. */
#define SIM_JSON_DOUBLE_BUF 32

/**
 * sim_json_format_double: @x as a JSON number: the shortest of %.15g, %.16g
 * and %.17g that reads back to the same double (C locale), with ".0" added
 * when it would otherwise read as an integer; NaN and infinities, which JSON
 * cannot hold, become `null`. Never an invalid token such as json-glib 1.6's
 * `1e+20.0`. O(1).
 */
void sim_json_format_double(char buf[SIM_JSON_DOUBLE_BUF], double x);

/**
 * sim_json_write: @root (nullable: `null`) as JSON text; the writer every
 * JSON file and `--format json` output goes through, instead of
 * JsonGenerator. Doubles as sim_json_format_double; integers in decimal;
 * strings escaped, invalid UTF-8 as U+FFFD; object members in insertion
 * order. @indent 0 writes one line; otherwise one value per line, @indent
 * spaces per level, `"key" : value`.
 * Returns: (transfer full) the text, without a final newline.
 * Complexity: O(size of the tree); recursion depth is the tree's depth.
 */
char *sim_json_write(JsonNode *root, guint indent);

/* ---- END JSON writer ---- */

G_END_DECLS

#endif /* DPG_SIM_H */
