/*
 * sim/bus.c: the event bus, a list of callbacks.
 *
 * Unsubscribing while events are being dispatched only marks the entry; the
 * array is compacted (and user data destroyed) once the outermost publish
 * returns, so a callback can remove itself or others without the dispatch
 * loop reading freed memory.
 */
#include <string.h>

#include "sim/bus_internal.h"

void sim_bus_init(SimBus *bus) {
  memset(bus, 0, sizeof *bus);
  bus->next_id = 1;
  bus->tx_countdown = bus->tx_span = SIM_BUS_TX_NEVER;
}

SimBus *sim_bus_new(void) {
  SimBus *bus = g_new(SimBus, 1);
  sim_bus_init(bus);
  return bus;
}

void sim_bus_clear(SimBus *bus) {
  for (guint i = 0; i < bus->n_subs; i++)
    if (bus->subs[i].destroy)
      bus->subs[i].destroy(bus->subs[i].user_data);
  g_free(bus->subs);
  bus->subs = NULL;
  bus->n_subs = bus->cap = bus->n_active = 0;
  bus->wanted = 0;
  bus->tx_countdown = bus->tx_span = SIM_BUS_TX_NEVER;
}

void sim_bus_free(SimBus *bus) {
  if (!bus)
    return;
  sim_bus_clear(bus);
  g_free(bus);
}

/* ---- Transmission sampling ----
 * Each transmission subscriber's countdown is kept relative to the last
 * reset of the shared tx_countdown, so a transmission costs the engine one
 * decrement whatever the number of subscribers; the subscribers' own
 * countdowns are brought up to date only when the shared one reaches 0 or
 * the set of subscribers changes. */

#define TX_KINDS                                                                                   \
  (SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) | SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED))

/* Brings every countdown up to date with the transmissions counted since the
 * last reset, then restarts the shared countdown at their minimum. None
 * reaches 0 on the way: the shared countdown is >= 1 between transmissions
 * and started at the minimum. */
static void tx_resync(SimBus *bus) {
  guint64 elapsed = bus->tx_span - bus->tx_countdown;
  guint64 next = SIM_BUS_TX_NEVER;
  for (guint i = 0; i < bus->n_subs; i++) {
    SimBusSubscriber *s = &bus->subs[i];
    if (s->id == 0 || s->every == 0)
      continue;
    s->countdown -= elapsed;
    next = MIN(next, s->countdown);
  }
  bus->tx_countdown = bus->tx_span = next;
}

static void update_wanted(SimBus *bus) {
  guint32 w = 0;
  for (guint i = 0; i < bus->n_subs; i++)
    if (bus->subs[i].id)
      w |= bus->subs[i].kinds;
  bus->wanted = w;
}

guint sim_bus_subscribe(SimBus *bus, SimBusCallback callback, gpointer user_data,
                        GDestroyNotify destroy, GError **error) {
  return sim_bus_subscribe_sampled(bus, SIM_BUS_ALL_KINDS, 1, callback, user_data, destroy, error);
}

guint sim_bus_subscribe_kinds(SimBus *bus, guint32 kinds, SimBusCallback callback,
                              gpointer user_data, GDestroyNotify destroy, GError **error) {
  return sim_bus_subscribe_sampled(bus, kinds, 1, callback, user_data, destroy, error);
}

guint sim_bus_subscribe_sampled(SimBus *bus, guint32 kinds, guint every, SimBusCallback callback,
                                gpointer user_data, GDestroyNotify destroy, GError **error) {
  g_return_val_if_fail(bus != NULL, 0);
  if ((kinds & SIM_BUS_ALL_KINDS) == 0) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_bus_subscribe_kinds: the kind mask 0x%x names no event kind", kinds);
    return 0;
  }
  if (!callback) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_bus_subscribe: the callback is NULL");
    return 0;
  }
  if (every == 0) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_bus_subscribe_sampled: every is 0 (to take no transmission, leave "
                "SENT and DROPPED out of the kinds)");
    return 0;
  }
  if (every > 1 && (kinds & SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DELIVERED))) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_bus_subscribe_sampled: deliveries cannot be sampled (every %u): subscribe "
                "to DELIVERED separately",
                every);
    return 0;
  }
  kinds &= SIM_BUS_ALL_KINDS;
  if (bus->n_subs == bus->cap) {
    bus->cap = bus->cap ? 2 * bus->cap : 4;
    bus->subs = g_renew(SimBusSubscriber, bus->subs, bus->cap);
  }
  guint id = bus->next_id++;
  if (bus->next_id == 0) /* wrapped after 2^32 subscriptions: keep 0 invalid */
    bus->next_id = 1;
  gboolean tx = (kinds & TX_KINDS) != 0;
  if (tx) /* bring the others up to the present before joining them */
    tx_resync(bus);
  bus->subs[bus->n_subs++] = (SimBusSubscriber){.id = id,
                                                .callback = callback,
                                                .user_data = user_data,
                                                .destroy = destroy,
                                                .kinds = kinds,
                                                .every = tx ? every : 0,
                                                .countdown = 1 /* the next transmission */};
  bus->n_active++;
  bus->wanted |= kinds;
  if (tx)
    tx_resync(bus);
  return id;
}

static void compact(SimBus *bus) {
  guint k = 0;
  for (guint i = 0; i < bus->n_subs; i++) {
    if (bus->subs[i].id == 0) {
      if (bus->subs[i].destroy)
        bus->subs[i].destroy(bus->subs[i].user_data);
    } else {
      bus->subs[k++] = bus->subs[i];
    }
  }
  bus->n_subs = k;
}

gboolean sim_bus_unsubscribe(SimBus *bus, guint id) {
  g_return_val_if_fail(bus != NULL, FALSE);
  if (id == 0)
    return FALSE;
  for (guint i = 0; i < bus->n_subs; i++) {
    if (bus->subs[i].id != id)
      continue;
    bus->subs[i].id = 0;
    if (bus->subs[i].every) /* the others up to the present, the shared countdown without it */
      tx_resync(bus);
    bus->n_active--;
    update_wanted(bus);
    if (!bus->dispatching)
      compact(bus);
    return TRUE;
  }
  return FALSE;
}

gboolean sim_bus_has_subscribers(const SimBus *bus) {
  g_return_val_if_fail(bus != NULL, FALSE);
  return bus->n_active != 0;
}

void sim_bus_publish(SimBus *bus, const SimBusEvent *event) {
  g_return_if_fail(bus != NULL && event != NULL);
  bus->n_published++;
  if (bus->n_active == 0)
    return;
  bus->dispatching++;
  /* Subscribers added by a callback start with the next event. */
  guint n = bus->n_subs;
  for (guint i = 0; i < n; i++) {
    SimBusSubscriber *s = &bus->subs[i];
    if (s->id && (s->kinds & SIM_BUS_KIND_BIT(event->kind)))
      s->callback(event, s->user_data);
  }
  if (--bus->dispatching == 0 && bus->n_subs != bus->n_active)
    compact(bus);
}

void sim_bus_transmit(SimBus *bus, SimBusEvent *ev, SimDropReason reason) {
  /* Which subscribers take this transmission, settled before any callback
   * runs: a callback may subscribe, unsubscribe or even transmit. */
  guint stack[16];
  guint n = bus->n_subs, n_due = 0;
  guint *due = n <= G_N_ELEMENTS(stack) ? stack : g_new(guint, n);
  guint64 elapsed = bus->tx_span, next = SIM_BUS_TX_NEVER;
  guint32 due_kinds = 0;
  for (guint i = 0; i < n; i++) {
    SimBusSubscriber *s = &bus->subs[i];
    if (s->id == 0 || s->every == 0)
      continue;
    s->countdown -= elapsed;
    if (s->countdown == 0) {
      s->countdown = s->every;
      due[n_due++] = i;
      due_kinds |= s->kinds;
    }
    next = MIN(next, s->countdown);
  }
  bus->tx_countdown = bus->tx_span = next;
  const guint32 sent_bit = SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT);
  const guint32 drop_bit = SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED);
  gboolean dropped = reason != SIM_DROP_NONE;
  /* As if built only when wanted: a SENT for subscribers of SENT, both
   * events of a lost one for subscribers of either. */
  if ((due_kinds & sent_bit) || (dropped && (due_kinds & drop_bit))) {
    bus->n_published += dropped ? 2 : 1;
    bus->dispatching++;
    ev->kind = SIM_BUS_MESSAGE_SENT;
    for (guint k = 0; k < n_due; k++) {
      SimBusSubscriber *s = &bus->subs[due[k]];
      if (s->id && (s->kinds & sent_bit))
        s->callback(ev, s->user_data);
    }
    if (dropped) {
      ev->kind = SIM_BUS_MESSAGE_DROPPED;
      ev->reason = reason;
      for (guint k = 0; k < n_due; k++) {
        SimBusSubscriber *s = &bus->subs[due[k]];
        if (s->id && (s->kinds & drop_bit))
          s->callback(ev, s->user_data);
      }
    }
    if (--bus->dispatching == 0 && bus->n_subs != bus->n_active)
      compact(bus);
  }
  if (due != stack)
    g_free(due);
}

guint64 sim_bus_n_published(const SimBus *bus) {
  g_return_val_if_fail(bus != NULL, 0);
  return bus->n_published;
}

static const char *const kind_names[SIM_BUS_N_KINDS] = {
    [SIM_BUS_RUN_START] = "run_start",      [SIM_BUS_RUN_END] = "run_end",
    [SIM_BUS_MESSAGE_SENT] = "sent",        [SIM_BUS_MESSAGE_DELIVERED] = "delivered",
    [SIM_BUS_MESSAGE_DROPPED] = "dropped",  [SIM_BUS_TIMER] = "timer",
    [SIM_BUS_TOPOLOGY_CHANGE] = "topology", [SIM_BUS_ROUND] = "round",
};

const char *sim_bus_event_kind_name(SimBusEventKind kind) {
  return (guint)kind < SIM_BUS_N_KINDS ? kind_names[kind] : "unknown";
}

const char *sim_drop_reason_name(SimDropReason reason) {
  switch (reason) {
  case SIM_DROP_NONE:
    return "none";
  case SIM_DROP_LOSS:
    return "loss";
  case SIM_DROP_LINK_DOWN:
    return "link_down";
  }
  return "unknown";
}

static void append_node(GString *out, const char *key, guint32 node) {
  if (node == SIM_NODE_NONE)
    g_string_append_printf(out, " %s=-", key);
  else
    g_string_append_printf(out, " %s=%u", key, node);
}

void sim_bus_event_append(GString *out, const SimBusEvent *ev) {
  g_return_if_fail(out != NULL && ev != NULL);
  g_string_append_printf(out, "%s t=%" G_GUINT64_FORMAT " seq=%" G_GUINT64_FORMAT,
                         sim_bus_event_kind_name(ev->kind), ev->time, ev->seq);
  append_node(out, "from", ev->from);
  append_node(out, "to", ev->to);
  g_string_append_printf(out, " round=%u tag=%" G_GUINT64_FORMAT " bytes=%" G_GUINT64_FORMAT,
                         ev->round, ev->tag, ev->bytes);
  if (ev->kind == SIM_BUS_MESSAGE_SENT)
    g_string_append_printf(out, " arrival=%" G_GUINT64_FORMAT, ev->arrival);
  if (ev->kind == SIM_BUS_MESSAGE_DROPPED)
    g_string_append_printf(out, " reason=%s", sim_drop_reason_name(ev->reason));
  g_string_append_c(out, '\n');
}
