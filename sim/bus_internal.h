/*
 * sim/bus_internal.h: the bus layout. The engine embeds a SimBus and, per
 * event, tests one word of it before building anything: `wanted` for
 * timers, deliveries and topology changes, `tx_countdown` for
 * transmissions. That test is the whole cost of the bus for an event nobody
 * listens to. Internal to sim/.
 */
#ifndef DPG_SIM_BUS_INTERNAL_H
#define DPG_SIM_BUS_INTERNAL_H

#include "sim/bus.h"

/* The tx_countdown of a bus without transmission subscribers: 2^64 - 1
 * transmissions never happen, so it never reaches 0. */
#define SIM_BUS_TX_NEVER G_MAXUINT64

typedef struct {
  guint id; /* 0 once unsubscribed (the entry then waits to be compacted) */
  SimBusCallback callback;
  gpointer user_data;
  GDestroyNotify destroy;
  guint32 kinds; /* SIM_BUS_KIND_BIT mask of the events it receives */
  /* Transmission sampling, for subscribers of SENT or DROPPED (every >= 1;
   * 0 for the others): the subscriber takes one transmission in `every`,
   * the next one being `countdown` transmissions after the bus's last
   * reset (see SimBus.tx_span). */
  guint every;
  guint64 countdown;
} SimBusSubscriber;

struct SimBus {
  /* Transmissions until the next one some subscriber takes: the engine
   * decrements it once per transmission and calls sim_bus_transmit when it
   * reaches 0, so a transmission nobody samples builds no event. */
  guint64 tx_countdown;
  guint32 wanted;  /* union of the active subscribers' kinds: the engine builds
                     an event only when some subscriber wants its kind */
  guint n_active;  /* subscribed and not unsubscribed */
  guint64 tx_span; /* tx_countdown's value at its last reset */
  SimBusSubscriber *subs;
  guint n_subs; /* entries in subs, including unsubscribed ones */
  guint cap;
  guint next_id;
  guint dispatching; /* nesting depth of publish / transmit */
  guint64 n_published;
};

/* For a bus embedded in another struct. */
void sim_bus_init(SimBus *bus);
void sim_bus_clear(SimBus *bus);

/* Counts one transmission; TRUE when some subscriber takes it: the caller
 * then builds its SENT event and hands it to sim_bus_transmit. */
static inline gboolean sim_bus_count_transmission(SimBus *bus) {
  return G_UNLIKELY(--bus->tx_countdown == 0);
}

/* The transmission sim_bus_count_transmission announced: hands @sent (a
 * SENT event) to the subscribers that take it, then, when @reason is not
 * SIM_DROP_NONE, its DROPPED event (@sent turned into it in place) to the
 * same subscribers. O(subscribers). */
void sim_bus_transmit(SimBus *bus, SimBusEvent *sent, SimDropReason reason);

#endif /* DPG_SIM_BUS_INTERNAL_H */
