/*
 * sim/engine.h: the discrete-event engine: nodes, timers, links, sends.
 *
 * n nodes reacting to events in simulated time. Handlers run one at a time, in
 * (time, seq) order; inside a handler, sim_engine_now() is the event's time.
 */
#ifndef DPG_SIM_ENGINE_H
#define DPG_SIM_ENGINE_H

#include <gsl/gsl_rng.h>

#include "sim/base.h"
#include "sim/bus.h"
#include "sim/link.h"
#include "sim/message.h"
#include "sim/queue.h"
#include "sim/rng.h"
#include "sim/topology.h"

G_BEGIN_DECLS

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
  void (*on_timer)(SimEngine *engine, guint32 node, gpointer state, SimEventId timer, guint64 tag);
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
  guint64 events;        /* queue events processed (timers, deliveries, topology) */
  guint64 timers;        /* timers fired */
  guint64 messages_sent; /* transmissions (a broadcast to k counts k) */
  guint64 messages_delivered;
  guint64 messages_dropped; /* = dropped_loss + dropped_link_down */
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
 * sim_engine_set_delivery_seed: draws every latency and loss under @seed
 * instead of the engine's seed (sim_rng_message_seed(@seed, ...)): the
 * delivery pattern of an engine of seed S with delivery seed D is that of an
 * engine of seed D (same sends), whatever S, while every other stream
 * (noise, data) stays S's. Audits use it to redraw the noise of a run while
 * keeping its deliveries (audit/audit.h). Call before sim_engine_run.
 * Errors: SIM_ERROR_INVALID_ARGUMENT once the engine has run. O(1).
 */
gboolean sim_engine_set_delivery_seed(SimEngine *engine, guint64 seed, GError **error);

/**
 * sim_engine_set_node_names: how the files of a measured latency set
 * afterwards name the nodes: by @find (topo_graph_node_find's signature)
 * on @graph, which must outlive the engine's loads (see
 * sim_latency_data_load_named); @find NULL: by ids (the default). O(1).
 */
void sim_engine_set_node_names(SimEngine *engine, SimNodeFind find, gconstpointer graph);

/**
 * sim_engine_set_default_link: the parameters of every link without an
 * override. A measured latency (links:, country:) loads its file here, once
 * per engine and spec. Errors: SIM_ERROR_INVALID_ARGUMENT on an invalid
 * latency or a loss outside [0, 1]; sim_latency_data_load's. O(1), and the
 * load's cost the first time a measured spec is given.
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
 * sim_engine_check_link: whether a message on @from -> @to gets a latency:
 * FALSE with SIM_ERROR_INVALID_ARGUMENT naming the link and the file when
 * its measured model has none (a send on it would fail the run), or a node
 * is out of range. Run setups check every edge of their graph with it.
 * O(log degree).
 */
gboolean sim_engine_check_link(const SimEngine *engine, guint32 from, guint32 to, GError **error);

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
 * sim_message_from(@msg) to @to. Down link: dropped. Otherwise loss, then
 * latency (a measured latency draws nothing: the link's own delay), each
 * from a generator seeded with sim_rng_message_seed(delivery seed, sender,
 * @to, round, tag, SIM_RNG_LOSS / SIM_RNG_LATENCY): a message's draws are a
 * function of its link and (round, tag) alone, never of the order of sends
 * or of other messages (two messages of one link with equal round and tag
 * draw the same values); delivered at now + latency (after the events
 * already scheduled at that time). Publishes SENT, then DROPPED if dropped.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when sender or @to is out of range, or
 * the link has no measured latency (sim_engine_check_link);
 * SIM_ERROR_CAPACITY when the queue cannot grow. O(log_4 pending).
 */
gboolean sim_engine_send(SimEngine *engine, SimMessage *msg, guint32 to, GError **error);

/**
 * sim_engine_draw_transmission: what sim_engine_send would draw for a
 * message of (@from, @round, @tag) to @to sent at time @now, without
 * sending anything or counting it: *@arrival = SIM_TIME_NEVER when it is
 * lost (or its link is down), else its delivery time (now + latency,
 * saturated). The same code as sim_engine_send's draws (a function of the
 * link and (round, tag) alone), for a timing pass that must see the run's
 * deliveries (protocols/account_timing.c). Not thread-safe (the engine's
 * one generator). Errors: as sim_engine_send's, SIM_ERROR_INVALID_ARGUMENT.
 * O(1) (O(log degree) for a measured latency).
 */
gboolean sim_engine_draw_transmission(SimEngine *engine, guint32 from, guint32 to, guint32 round,
                                      guint32 tag, SimTime now, SimTime *arrival, GError **error);

/**
 * sim_engine_broadcast: sim_engine_send of the same @msg to @to[0..@n_to-1] in
 * order (one shared payload). Every destination is checked before anything is
 * sent. Errors: as sim_engine_send. O(n_to log_4 pending).
 */
gboolean sim_engine_broadcast(SimEngine *engine, SimMessage *msg, const guint32 *to, gsize n_to,
                              GError **error);

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

G_END_DECLS

#endif /* DPG_SIM_ENGINE_H */
