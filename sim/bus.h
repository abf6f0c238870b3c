/*
 * sim/bus.h: the event bus.
 *
 * A list of callbacks that see everything the engine does (and the round
 * boundaries upper layers publish). When nobody is subscribed the engine pays
 * one predictable branch per event and builds nothing.
 */
#ifndef DPG_SIM_BUS_H
#define DPG_SIM_BUS_H

#include "sim/base.h"
#include "sim/message.h"
#include "sim/topology.h"

G_BEGIN_DECLS

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
  SimDropReason reason;            /* DROPPED only */
  SimTime time;                    /* simulated time the event happens */
  guint64 seq;                     /* sequence number of the underlying event: a
                              * message's SENT, DELIVERED and DROPPED share it;
                              * 0 for run events; ROUND: the publisher's choice */
  guint32 from, to;                /* nodes, SIM_NODE_NONE when not applicable */
  guint32 round;                   /* message round, or the round of a ROUND event */
  guint64 tag;                     /* message tag, timer tag, topology epoch */
  guint64 bytes;                   /* message size */
  SimTime arrival;                 /* SENT: scheduled delivery time, else SIM_TIME_NEVER */
  const SimMessage *message;       /* message events, else NULL */
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
guint sim_bus_subscribe_sampled(SimBus *bus, guint32 kinds, guint every, SimBusCallback callback,
                                gpointer user_data, GDestroyNotify destroy, GError **error);

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

G_END_DECLS

#endif /* DPG_SIM_BUS_H */
