/*
 * sim/queue.c: the event queue (see queue_internal.h for the layout). The hot
 * operations are inline in the header; this file holds growth and the public
 * wrappers.
 */
#include "sim/queue_internal.h"

SimQueue *sim_queue_new(gsize payload_size, GError **error) {
  if (payload_size > SIM_QUEUE_MAX_PAYLOAD) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "event payload of %" G_GSIZE_FORMAT " bytes exceeds the maximum of %d",
                payload_size, SIM_QUEUE_MAX_PAYLOAD);
    return NULL;
  }
  SimQueue *q = g_new0(SimQueue, 1);
  q->payload_size = payload_size;
  q->free_head = SIM_QUEUE_NO_SLOT;
  return q;
}

void sim_queue_free(SimQueue *q) {
  if (!q)
    return;
  g_free(q->heap);
  g_free(q->slots);
  g_free(q->payload);
  g_free(q);
}

/* Doubling growth; the heap never holds more entries than there are slots, so
 * both arrays share one capacity. Slot indices must stay below
 * SIM_QUEUE_NO_SLOT, which caps the queue at 2^32 - 2 pending events. */
gboolean sim_queue_reserve_one(SimQueue *q) {
  if (q->free_head != SIM_QUEUE_NO_SLOT && q->size < q->heap_cap)
    return TRUE;
  if (q->n_slots == q->slots_cap) {
    if (q->slots_cap >= SIM_QUEUE_NO_SLOT - 1)
      return FALSE;
    guint64 cap = q->slots_cap ? (guint64)q->slots_cap * 2 : 64;
    if (cap > SIM_QUEUE_NO_SLOT - 1)
      cap = SIM_QUEUE_NO_SLOT - 1;
    SimQueueSlot *slots = g_try_renew(SimQueueSlot, q->slots, cap);
    if (!slots)
      return FALSE;
    q->slots = slots;
    SimQueueEntry *heap = g_try_renew(SimQueueEntry, q->heap, cap);
    if (!heap)
      return FALSE;
    q->heap = heap;
    q->heap_cap = (guint32)cap;
    if (q->payload_size) {
      guint8 *payload = g_try_realloc_n(q->payload, cap, q->payload_size);
      if (!payload)
        return FALSE;
      q->payload = payload;
    }
    q->slots_cap = (guint32)cap;
  }
  if (q->free_head == SIM_QUEUE_NO_SLOT) {
    guint32 s = q->n_slots++;
    q->slots[s].gen = 1;
    q->slots[s].pos = SIM_QUEUE_NO_SLOT;
    q->free_head = s;
  }
  return TRUE;
}

SimEventId sim_queue_push(SimQueue *q, SimTime time, const void *payload, GError **error) {
  g_return_val_if_fail(q != NULL, SIM_EVENT_ID_NONE);
  if (q->payload_size && !payload) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_queue_push: payload is NULL but the queue's events carry %" G_GSIZE_FORMAT
                " bytes",
                q->payload_size);
    return SIM_EVENT_ID_NONE;
  }
  SimEventId id = sim_queue_push_inline(q, time, payload, q->payload_size, NULL);
  if (id == SIM_EVENT_ID_NONE)
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                "event queue cannot grow beyond %u pending events (out of memory or slot limit)",
                q->size);
  return id;
}

gboolean sim_queue_pop(SimQueue *q, SimTime *time, guint64 *seq, SimEventId *id, void *payload) {
  g_return_val_if_fail(q != NULL, FALSE);
  if (q->size == 0)
    return FALSE;
  sim_queue_pop_inline(q, time, seq, id, payload, q->payload_size);
  return TRUE;
}

gboolean sim_queue_peek(const SimQueue *q, SimTime *time, guint64 *seq, SimEventId *id) {
  g_return_val_if_fail(q != NULL, FALSE);
  if (q->size == 0)
    return FALSE;
  const SimQueueEntry *top = &q->heap[0];
  if (time)
    *time = top->time;
  if (seq)
    *seq = top->seq;
  if (id)
    *id = sim_queue_make_id(top->slot, q->slots[top->slot].gen);
  return TRUE;
}

gboolean sim_queue_cancel(SimQueue *q, SimEventId id, void *payload) {
  g_return_val_if_fail(q != NULL, FALSE);
  guint32 slot = sim_queue_pending_slot(q, id);
  if (slot == SIM_QUEUE_NO_SLOT)
    return FALSE;
  sim_queue_remove_slot(q, slot, payload, q->payload_size);
  return TRUE;
}

gboolean sim_queue_is_pending(const SimQueue *q, SimEventId id) {
  g_return_val_if_fail(q != NULL, FALSE);
  return sim_queue_pending_slot(q, id) != SIM_QUEUE_NO_SLOT;
}

gsize sim_queue_size(const SimQueue *q) {
  g_return_val_if_fail(q != NULL, 0);
  return q->size;
}
