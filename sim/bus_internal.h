/*
 * sim/bus_internal.h: the bus layout. The engine embeds a SimBus and tests
 * `n_active` before building any event, which is the whole cost of the bus
 * when nobody listens. Internal to sim/.
 */
#ifndef DPG_SIM_BUS_INTERNAL_H
#define DPG_SIM_BUS_INTERNAL_H

#include "sim/sim.h"

typedef struct {
  guint id; /* 0 once unsubscribed (the entry then waits to be compacted) */
  SimBusCallback callback;
  gpointer user_data;
  GDestroyNotify destroy;
  guint32 kinds; /* SIM_BUS_KIND_BIT mask of the events it receives */
} SimBusSubscriber;

struct SimBus {
  guint n_active; /* subscribed and not unsubscribed */
  guint32 wanted; /* union of the active subscribers' kinds: the engine builds
                     an event only when some subscriber wants its kind */
  SimBusSubscriber *subs;
  guint n_subs; /* entries in subs, including unsubscribed ones */
  guint cap;
  guint next_id;
  guint dispatching; /* nesting depth of sim_bus_publish */
  guint64 n_published;
};

/* For a bus embedded in another struct. */
void sim_bus_init(SimBus *bus);
void sim_bus_clear(SimBus *bus);

#endif /* DPG_SIM_BUS_INTERNAL_H */
