/*
 * sim/queue.c: the event queue (see queue_internal.h for the layout). The hot
 * operations are inline in the header; this file holds growth, renumbering,
 * purging and the public wrappers.
 */
#include <stdlib.h>

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
  q->stride = sizeof(SimQueueSlot) + ((payload_size + 7) & ~(gsize)7);
  q->free_head = SIM_QUEUE_NO_SLOT;
  return q;
}

static void free_heap(SimQueueEntry *heap) {
  if (heap)
    free(heap - SIM_QUEUE_HEAP_PAD);
}

void sim_queue_free(SimQueue *q) {
  if (!q)
    return;
  free_heap(q->heap);
  g_free(q->slots);
  g_free(q);
}

/* Doubling growth of both arrays (the heap never holds more entries than there
 * are slots in use). */
gboolean sim_queue_reserve_one(SimQueue *q) {
  if (q->n_slots == q->cap) {
    if (q->cap >= SIM_QUEUE_MAX_SLOTS)
      return FALSE;
    guint64 cap = q->cap ? (guint64)q->cap * 2 : 64;
    if (cap > SIM_QUEUE_MAX_SLOTS)
      cap = SIM_QUEUE_MAX_SLOTS;
    void *block = NULL;
    if (posix_memalign(&block, 64, (cap + SIM_QUEUE_HEAP_PAD) * sizeof(SimQueueEntry)) != 0)
      return FALSE;
    guint8 *slots = g_try_realloc_n(q->slots, cap, q->stride);
    if (!slots) {
      free(block);
      return FALSE;
    }
    q->slots = slots;
    SimQueueEntry *heap = (SimQueueEntry *)block + SIM_QUEUE_HEAP_PAD;
    if (q->size)
      memcpy(heap, q->heap, q->size * sizeof(SimQueueEntry));
    free_heap(q->heap);
    q->heap = heap;
    q->cap = (guint32)cap;
  }
  if (q->free_head == SIM_QUEUE_NO_SLOT) {
    guint32 slot = q->n_slots++;
    SimQueueSlot *s = sim_queue_slot(q, slot);
    s->gen = 1;
    s->link = SIM_QUEUE_NO_SLOT;
    q->free_head = slot;
  }
  return TRUE;
}

/* Drops cancelled entries (freeing their slots); returns the new size. */
static guint32 drop_cancelled(SimQueue *q) {
  guint32 k = 0;
  for (guint32 i = 0; i < q->size; i++) {
    guint32 slot = (guint32)q->heap[i].lo;
    SimQueueSlot *s = sim_queue_slot(q, slot);
    if (s->link == SIM_QUEUE_CANCELLED)
      sim_queue_free_slot(q, slot, s);
    else
      q->heap[k++] = q->heap[i];
  }
  q->n_cancelled = 0;
  q->size = k;
  return k;
}

void sim_queue_purge(SimQueue *q) {
  guint32 n = drop_cancelled(q);
  if (n < 2)
    return;
  /* Floyd's bottom-up heap construction, O(n). */
  for (guint32 i = (n - 2) / 4 + 1; i-- > 0;)
    sim_queue_sift_down(q->heap, n, i, q->heap[i]);
}

static int entry_cmp(const void *pa, const void *pb) {
  const SimQueueEntry *a = pa, *b = pb;
  return sim_queue_entry_less(a, b) ? -1 : sim_queue_entry_less(b, a);
}

/* Ties restart at 0 in the current (time, tie) order, which keeps every
 * comparison between pending entries as it was. A sorted array is a heap. */
void sim_queue_renumber(SimQueue *q) {
  guint32 n = drop_cancelled(q);
  qsort(q->heap, n, sizeof(SimQueueEntry), entry_cmp);
  for (guint32 i = 0; i < n; i++)
    q->heap[i].lo = ((guint64)i << 32) | (q->heap[i].lo & G_MAXUINT32);
  q->next_tie = n;
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
                "event queue cannot grow beyond %u entries (out of memory or slot limit)", q->size);
  return id;
}

gboolean sim_queue_pop(SimQueue *q, SimTime *time, guint64 *seq, SimEventId *id, void *payload) {
  g_return_val_if_fail(q != NULL, FALSE);
  if (!sim_queue_top_inline(q))
    return FALSE;
  sim_queue_pop_top_inline(q, time, seq, id, payload, q->payload_size);
  return TRUE;
}

gboolean sim_queue_peek(SimQueue *q, SimTime *time, guint64 *seq, SimEventId *id) {
  g_return_val_if_fail(q != NULL, FALSE);
  const SimQueueEntry *top = sim_queue_top_inline(q);
  if (!top)
    return FALSE;
  guint32 slot = (guint32)top->lo;
  SimQueueSlot *s = sim_queue_slot(q, slot);
  if (time)
    *time = top->time;
  if (seq)
    *seq = s->seq;
  if (id)
    *id = sim_queue_make_id(slot, s->gen);
  return TRUE;
}

gboolean sim_queue_cancel(SimQueue *q, SimEventId id, void *payload) {
  g_return_val_if_fail(q != NULL, FALSE);
  SimQueueSlot *s = sim_queue_pending(q, id);
  if (!s)
    return FALSE;
  sim_queue_cancel_slot(q, s, payload, q->payload_size);
  return TRUE;
}

gboolean sim_queue_is_pending(const SimQueue *q, SimEventId id) {
  g_return_val_if_fail(q != NULL, FALSE);
  return sim_queue_pending(q, id) != NULL;
}

gsize sim_queue_size(const SimQueue *q) {
  g_return_val_if_fail(q != NULL, 0);
  return sim_queue_live(q);
}
