/*
 * stream/stream.h: the event stream (ZeroMQ publisher) and trace files.
 *
 * A module of its own, above sim/, topologies/ and privacy/: it turns the
 * engine's bus into message, topology and round events, and what the upper
 * layers know (metrics, privacy results, schedule changes) into events of
 * their own, typed with those layers' types (PrivTrust, TopoChange). The
 * simulation core knows nothing of it. Public names carry the stream_ prefix
 * (types Stream*); errors travel in the STREAM_ERROR domain.
 *
 * The event stream: what a run shows the outside world, live over ZeroMQ
 * and/or recorded to a trace file, in one format (docs/events.md, a public
 * interface). Each event is a pair [topic, body]: topic is one of run,
 * topology, round, message, metric, privacy; body is one line of JSON that
 * carries `v` (STREAM_VERSION), `seq` (0, 1, 2, ... in publication order)
 * and `t_ns` (simulated time, never decreasing).
 *
 * Who publishes what:
 *   - the engine's bus, once stream_attach'ed: message (one event per
 *     transmission, at send time, sampled), topology (link up/down, graph
 *     changes) and round (SIM_BUS_ROUND events upper layers publish on the
 *     engine's bus with sim_bus_publish);
 *   - the caller: run (stream_begin_run / stream_end_run: scenario
 *     summary, graph and node positions), metric, privacy, and richer
 *     topology changes (churn, edge sets).
 *
 * Publishing never blocks the simulation: the caller's thread only formats
 * a body (about 0.1 us for a message event) and hands it to the stream's
 * sender thread, which sends it on an XPUB socket with a bounded high-water
 * mark and non-blocking sends, and writes the trace. What a slow subscriber
 * cannot take is dropped and counted (reported in the run's end body and by
 * stream_get_stats). Sequence numbers are given before sending, so a
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
 *   StreamOptions o = {.publish = "tcp://127.0.0.1:5556", .record = "run.trace",
 *                         .messages = "every:10", .wait_ms = 1000};
 *   Stream *s = stream_new(&o, &error);
 *   stream_attach(s, engine, &error);
 *   stream_begin_run(s, &run_info, &error);   (graph + layout)
 *   ... sim_engine_run; upper layers publish SIM_BUS_ROUND on the engine bus,
 *       stream_publish_metrics / _privacy as values become known ...
 *   stream_end_run(s, sim_engine_now(engine), "ok", &error);
 *   stream_finish(s, &error); stream_free(s);
 *
 * Not thread-safe: call everything from the thread that runs the engine.
 * Trace write errors (disk full...) surface at stream_end_run or
 * stream_finish: the run goes on, and the unfinished trace is removed (it
 * is written beside its path, as PATH.XXXXXX.partial, and renamed to the
 * path only once complete).
 */
#ifndef DPG_STREAM_H
#define DPG_STREAM_H

#include "privacy/privacy.h"
#include "sim/sim.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

#define STREAM_ERROR (stream_error_quark())
GQuark stream_error_quark(void);

typedef enum {
  STREAM_ERROR_INVALID_ARGUMENT, /* an argument out of range; a file or
                                    endpoint that cannot be opened or written */
  STREAM_ERROR_PARSE,            /* a sampling spec or a trace that does not parse */
  STREAM_ERROR_CAPACITY,         /* a socket or compressor that cannot be allocated */
} StreamError;

/** The `v` every body carries. Adding fields or topics keeps it; removing or
 * changing the meaning of a field bumps it (docs/events.md). */
#define STREAM_VERSION 1
/** The version in a trace file's header line (DPGTRACE 1 ...). */
#define STREAM_TRACE_VERSION 1

typedef struct Stream Stream;

/** Where and how to publish. Zero-initialize, then set what you need. */
typedef struct {
  /* ZeroMQ endpoint to bind, e.g. "tcp://127.0.0.1:5556"; "tcp://127.0.0.1:*"
   * picks a free port (stream_endpoint tells which). NULL: no socket. */
  const char *publish;
  /* Trace file to write (gzip-compressed; see docs/events.md). NULL: none. */
  const char *record;
  /* Message sampling: NULL or "all", "every:N" (the 1st, N+1st, ...
   * transmission), "none". See stream_parse_sampling. */
  const char *messages;
  /* Socket high-water mark in messages (ZMQ_SNDHWM); 0: 10,000. */
  guint hwm;
  /* stream_new waits up to this long for a first subscriber (so a short
   * run is not over before a viewer connects); 0: do not wait. */
  guint wait_ms;
  /* Block on a full socket instead of dropping, for up to this long per
   * event (0: never block: drop). For replays and tests, not live runs. */
  guint block_ms;
} StreamOptions;

/** Counters of a stream (stream_get_stats). */
typedef struct {
  guint64 published;            /* events given a seq (sent or dropped) */
  guint64 dropped;              /* events the socket could not take (slow subscribers) */
  guint64 recorded;             /* events written to the trace */
  guint64 messages_seen;        /* the engine's transmissions while attached */
  guint64 messages_sampled_out; /* of those, the ones sampling left out */
  guint64 subscribers_joined;   /* subscriptions seen on the socket */
  guint64 bytes;                /* body bytes published */
} StreamStats;

/**
 * stream_parse_sampling: reads a message sampling spec.
 * @spec: "all" (or NULL), "every:N" with N >= 1, or "none".
 * @every: (out) N: 1 for all, 0 for none.
 * Errors: STREAM_ERROR_PARSE naming the spec and the valid forms.
 */
gboolean stream_parse_sampling(const char *spec, guint *every, GError **error);

/**
 * stream_new: opens the socket and/or the trace file.
 * @options: see StreamOptions; both publish and record may be NULL (a
 *   stream that only counts, for tests and benchmarks).
 * Errors: STREAM_ERROR_PARSE for a bad sampling spec; STREAM_ERROR_INVALID_ARGUMENT
 *   for an endpoint ZeroMQ cannot bind ("Address already in use", bad
 *   transport: the message names the endpoint) or a trace file that cannot be
 *   created (naming the file and the OS error).
 * Returns: (transfer full) the stream (stream_free), or NULL.
 * Complexity: O(1) plus up to wait_ms of waiting; starts the sender thread
 * when there is a socket or a trace.
 */
Stream *stream_new(const StreamOptions *options, GError **error);

/**
 * stream_free: closes everything (as stream_finish, ignoring errors)
 * and frees @stream; detaches it from its engine. NULL is ignored. Pending
 * socket messages get up to one second to leave (ZMQ_LINGER).
 */
void stream_free(Stream *stream);

/**
 * stream_finish: sends what is pending, stops the sender thread, closes
 * the trace file (writing its END line) and the socket. Later publications
 * are counted but go nowhere.
 * Errors: STREAM_ERROR_INVALID_ARGUMENT when the trace could not be written
 *   completely (disk full, I/O error), naming the file.
 */
gboolean stream_finish(Stream *stream, GError **error);

/** stream_endpoint: the bound endpoint with its actual port
 * ("tcp://127.0.0.1:41234"), or NULL without a socket. (transfer none) */
const char *stream_endpoint(const Stream *stream);

/** stream_message_every: the sampling period (1 all, 0 none). */
guint stream_message_every(const Stream *stream);

/** stream_get_stats: copies the counters into @stats (dropped, recorded
 * and subscribers_joined as the sender thread has them now). */
void stream_get_stats(const Stream *stream, StreamStats *stats);

/**
 * stream_attach: subscribes @stream to @engine's bus: transmissions
 * become message events (sampled), topology changes topology events and
 * SIM_BUS_ROUND events round events; the end body reports the engine's
 * counters. A stream follows one engine at a time; freeing either first is
 * safe (the engine's destroy notify unhooks the stream).
 * Errors: STREAM_ERROR_INVALID_ARGUMENT when already attached.
 * Complexity: O(1). The engine samples for the stream
 * (sim_bus_subscribe_sampled): a transmission left out costs it one
 * decrement, deliveries and timers nothing; a published message costs
 * formatting (~0.1 us). The stream reads its message counts off the
 * engine's counters.
 */
gboolean stream_attach(Stream *stream, SimEngine *engine, GError **error);

/** stream_detach: undoes stream_attach (no-op when not attached). */
void stream_detach(Stream *stream);

/** What a run start says (stream_begin_run). Pointers are borrowed. */
typedef struct {
  const char *name;    /* run or scenario name (required) */
  const char *command; /* "demo", "train", "run", ... (nullable) */
  guint64 seed;
  guint rounds;              /* planned number of rounds T (0: unknown) */
  const char *scenario_json; /* (nullable) a JSON object copied verbatim as
                              * "scenario": protocol, sigma, trust models... */
  guint32 n_nodes;
  const guint32 *edges; /* 2 * n_edges node ids, u-v pairs (undirected) */
  gsize n_edges;
  const double *positions; /* (nullable) 2 * n_nodes: x, y per node, any scale */
  const char *layout;      /* (nullable) how positions were made, e.g.
                            * "fruchterman_reingold" */
  /* (nullable) n_nodes labels: the names users give the nodes (a graph
   * file's), sent as graph.labels beside the ids every event uses; NULL
   * (nodes named by their ids) sends none. */
  const char *const *labels;
} StreamRun;

/**
 * stream_begin_run: publishes the run start (topic run, event "start")
 * at simulated time 0 with the graph and layout, and remembers it to send
 * again to subscribers that join later.
 * Errors: STREAM_ERROR_INVALID_ARGUMENT for a missing name, n_nodes 0, an edge
 *   endpoint >= n_nodes, non-finite positions, scenario_json that is not one
 *   JSON object; trace write errors. Nothing is published on error.
 * Complexity: O(n_nodes + n_edges).
 */
gboolean stream_begin_run(Stream *stream, const StreamRun *run, GError **error);

/**
 * stream_end_run: publishes the run end (topic run, event "end") at
 * time @t with @status ("ok", "stopped", "error": free text), the engine's
 * counters when attached, and the stream's (published, dropped, sampled
 * out). It first waits until everything before it is sent, so its
 * `dropped` is the final count of events dropped before it.
 * Errors: a trace write error met since the last check (the end is still
 * published).
 */
gboolean stream_end_run(Stream *stream, SimTime t, const char *status, GError **error);

/**
 * stream_publish_round: a round event (the run has completed @round
 * rounds; round 0 is the initial state) at time @t. Upper layers usually
 * publish SIM_BUS_ROUND on the engine bus instead, which reaches every bus
 * subscriber; this is for streams without an engine.
 * O(1).
 */
gboolean stream_publish_round(Stream *stream, SimTime t, guint round, GError **error);

/**
 * stream_publish_metrics: one metric event: per-node values after
 * @round rounds, at time @t.
 * @nodes: (nullable) the @n node ids the arrays describe; NULL: 0..n-1.
 * @train_loss, @test_loss, @accuracy: (nullable) n values each; NaN
 *   publishes null (not measured); a NULL array is left out of the body.
 * Errors: STREAM_ERROR_INVALID_ARGUMENT when @n is 0 or all arrays are NULL.
 * Complexity: O(n).
 */
gboolean stream_publish_metrics(Stream *stream, SimTime t, guint round, gsize n,
                                const guint32 *nodes, const double *train_loss,
                                const double *test_loss, const double *accuracy, GError **error);

/** Privacy loss of victims towards one attacker set (stream_publish_privacy). */
typedef struct {
  const char *collusion;    /* name of the attacker set, e.g. "alone", "pair" (required) */
  const guint32 *attackers; /* the set's nodes */
  gsize n_attackers;        /* >= 1 */
  PrivTrust trust;          /* published as its priv_trust_name */
  guint round;              /* the horizon the values hold for (rounds seen) */
  double delta;             /* of epsilon(delta); NaN: no epsilon */
  gsize n_victims;          /* >= 1 */
  const guint32 *victims;
  const double *mu;       /* GDP mu per victim; +inf: unprotected (null in JSON) */
  const double *epsilon;  /* (nullable) epsilon(delta) per victim; +inf as mu */
  const gint32 *distance; /* (nullable) hop distance to the set, -1 unknown */
} StreamPrivacy;

/**
 * stream_publish_privacy: one privacy event at time @t.
 * Errors: STREAM_ERROR_INVALID_ARGUMENT for missing names, an unknown trust
 *   model, empty sets, NULL victims or mu, a NaN or negative mu/epsilon.
 * Complexity: O(n_attackers + n_victims).
 */
gboolean stream_publish_privacy(Stream *stream, SimTime t, const StreamPrivacy *p, GError **error);

/**
 * stream_publish_topology: one topology event: the changes that take
 * effect at round @round (time @t), e.g. topo_schedule_changes' array as
 * it is. No command publishes it yet (the engine-level topology events of
 * links going down and up come from the bus); it is the event a consumer
 * of a time-varying schedule gives the viewer, which draws churn from it.
 * @changes: (nullable when @n_changes is 0) in any order; a node event's v
 *   is ignored.
 * @reset: TRUE when the whole gossip matrix changed beyond the listed edges
 *   (e.g. re-weighting), so consumers should not assume W_t is W_{t-1}.
 * Errors: STREAM_ERROR_INVALID_ARGUMENT for an unknown kind.
 * Complexity: O(n_changes).
 */
gboolean stream_publish_topology(Stream *stream, SimTime t, guint round, const TopoChange *changes,
                                 gsize n_changes, gboolean reset, GError **error);

/**
 * stream_publish_raw: publishes @body (one JSON object, @len bytes, no
 * newline) under @topic verbatim, without touching it or the stream's seq:
 * how a replay sends recorded events again. Counted as published.
 * Errors: STREAM_ERROR_INVALID_ARGUMENT for an empty topic or a body with a
 *   newline.
 */
gboolean stream_publish_raw(Stream *stream, const char *topic, const char *body, gsize len,
                            GError **error);

/**
 * stream_poll: hands batched message events to the sender thread now,
 * e.g. before the caller sleeps. (The sender thread itself notices new
 * subscribers, and sends them the run start, within 10 ms.) O(1).
 */
void stream_poll(Stream *stream);

/* ---- Trace files --------------------------------------------------------
 * A trace is gzip-compressed text (plain text is read too): a header line
 * `DPGTRACE <version> <json>`, one line per event `<topic> <crc32> <body>`
 * (crc32 of the body, 8 lowercase hex digits), and a last line
 * `END <crc32> {"records":N}`. See docs/events.md. */

typedef struct StreamTraceReader StreamTraceReader;

/** One event read back; pointers are valid until the next read. */
typedef struct {
  const char *topic;
  const char *body; /* NUL-terminated, body_len bytes */
  gsize body_len;
  guint64 index;  /* 0-based record number */
  guint64 offset; /* byte offset of its line in the uncompressed text */
  guint64 seq;    /* the body's seq, t_ns and round (round: -1 if none) */
  SimTime t_ns;
  gint64 round;
  gboolean run_start; /* topic run with event "start" */
} StreamTraceRecord;

/**
 * stream_trace_reader_open: opens @path and checks its header line.
 * Errors: STREAM_ERROR_INVALID_ARGUMENT when the file cannot be opened;
 *   STREAM_ERROR_PARSE for something that is not a dpgossip trace or has an
 *   unsupported version (naming the file and what was found).
 * Returns: (transfer full) the reader (stream_trace_reader_free), or NULL.
 */
StreamTraceReader *stream_trace_reader_open(const char *path, GError **error);

/**
 * stream_trace_reader_next: reads and checks the next record: checksum, known
 * line shape, body a JSON object with v, seq (greater than the previous
 * record's) and t_ns (not smaller than the previous one).
 * Returns: 1 with @rec filled, 0 at a well-formed end (the END line, whose
 *   count must match), -1 on error: STREAM_ERROR_PARSE naming the file, the
 *   record index, its byte offset in the uncompressed text and what is wrong
 *   (corrupt compressed data, truncated file, checksum mismatch, bad JSON,
 *   seq or time going backwards, missing END line). After -1 every call
 *   returns -1 again; the records returned before stay valid events.
 * Complexity: O(record length).
 */
int stream_trace_reader_next(StreamTraceReader *reader, StreamTraceRecord *rec, GError **error);

/** stream_trace_reader_header: the header's JSON object text. (transfer none) */
const char *stream_trace_reader_header(const StreamTraceReader *reader);

/** stream_trace_reader_free: closes @reader (NULL ignored). */
void stream_trace_reader_free(StreamTraceReader *reader);

G_END_DECLS

#endif /* DPG_STREAM_H */
