/*
 * sim/queue_internal.h: the event queue's layout and its hot operations, inline
 * so the engine's loop compiles to straight-line code with a constant payload
 * size. Internal to sim/.
 *
 * Layout: `heap` is a 4-ary min-heap of 24-byte entries (time, seq, slot);
 * `slots[s]` holds the heap position and generation of slot s, and its payload
 * lives at payload + s * payload_size. Moving an entry in the heap updates its
 * slot's position, which is what makes cancel O(log n). Free slots form a
 * singly linked list threaded through their `pos` fields; a slot is pending iff
 * heap[slots[s].pos].slot == s, which a free slot can never satisfy.
 */
#ifndef DPG_SIM_QUEUE_INTERNAL_H
#define DPG_SIM_QUEUE_INTERNAL_H

#include <string.h>

#include "sim/sim.h"

typedef struct {
  SimTime time;
  guint64 seq;
  guint32 slot;
  guint32 unused;
} SimQueueEntry;

typedef struct {
  guint32 pos; /* heap index when pending, next free slot when free */
  guint32 gen; /* bumped every time the slot is released; never 0 */
} SimQueueSlot;

#define SIM_QUEUE_NO_SLOT G_MAXUINT32

struct SimQueue {
  SimQueueEntry *heap;
  guint32 size;
  guint32 heap_cap;
  SimQueueSlot *slots;
  guint8 *payload;
  guint32 n_slots; /* slots ever used */
  guint32 slots_cap;
  guint32 free_head; /* SIM_QUEUE_NO_SLOT when empty */
  gsize payload_size;
  guint64 next_seq;
};

/* Grows the heap and the slot array so one more event fits. */
gboolean sim_queue_reserve_one(SimQueue *q);

static inline gboolean sim_queue_entry_less(const SimQueueEntry *a, const SimQueueEntry *b) {
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static inline void sim_queue_sift_up(SimQueue *q, guint32 i, SimQueueEntry x) {
  SimQueueEntry *h = q->heap;
  while (i > 0) {
    guint32 p = (i - 1) >> 2;
    if (!sim_queue_entry_less(&x, &h[p]))
      break;
    h[i] = h[p];
    q->slots[h[i].slot].pos = i;
    i = p;
  }
  h[i] = x;
  q->slots[x.slot].pos = i;
}

static inline void sim_queue_sift_down(SimQueue *q, guint32 i, SimQueueEntry x) {
  SimQueueEntry *h = q->heap;
  const guint32 n = q->size;
  for (;;) {
    guint32 c = 4 * i + 1;
    if (c >= n)
      break;
    guint32 best = c;
    guint32 end = c + 4 < n ? c + 4 : n;
    for (guint32 j = c + 1; j < end; j++)
      if (sim_queue_entry_less(&h[j], &h[best]))
        best = j;
    if (!sim_queue_entry_less(&h[best], &x))
      break;
    h[i] = h[best];
    q->slots[h[i].slot].pos = i;
    i = best;
  }
  h[i] = x;
  q->slots[x.slot].pos = i;
}

static inline SimEventId sim_queue_make_id(guint32 slot, guint32 gen) {
  return ((SimEventId)gen << 32) | slot;
}

/* The slot an id names if that slot's generation matches, else SIM_QUEUE_NO_SLOT. */
static inline guint32 sim_queue_pending_slot(const SimQueue *q, SimEventId id) {
  guint32 slot = (guint32)(id & G_MAXUINT32);
  guint32 gen = (guint32)(id >> 32);
  if (slot >= q->n_slots || q->slots[slot].gen != gen)
    return SIM_QUEUE_NO_SLOT;
  guint32 pos = q->slots[slot].pos;
  if (pos >= q->size || q->heap[pos].slot != slot)
    return SIM_QUEUE_NO_SLOT;
  return slot;
}

static inline void sim_queue_release_slot(SimQueue *q, guint32 slot) {
  SimQueueSlot *s = &q->slots[slot];
  s->gen = s->gen == G_MAXUINT32 ? 1 : s->gen + 1;
  s->pos = q->free_head;
  q->free_head = slot;
}

/* Push with the payload size known at the call site. Returns SIM_EVENT_ID_NONE
 * when memory runs out; *seq_out (optional) receives the sequence number. */
static inline SimEventId sim_queue_push_inline(SimQueue *q, SimTime time, const void *payload,
                                               gsize payload_size, guint64 *seq_out) {
  if (G_UNLIKELY(q->free_head == SIM_QUEUE_NO_SLOT || q->size == q->heap_cap))
    if (!sim_queue_reserve_one(q))
      return SIM_EVENT_ID_NONE;
  guint32 slot = q->free_head;
  q->free_head = q->slots[slot].pos;
  if (payload_size)
    memcpy(q->payload + (gsize)slot * payload_size, payload, payload_size);
  SimQueueEntry x = {time, q->next_seq++, slot, 0};
  if (seq_out)
    *seq_out = x.seq;
  sim_queue_sift_up(q, q->size++, x);
  return sim_queue_make_id(slot, q->slots[slot].gen);
}

/* Pop of a non-empty queue. */
static inline void sim_queue_pop_inline(SimQueue *q, SimTime *time, guint64 *seq, SimEventId *id,
                                        void *payload, gsize payload_size) {
  SimQueueEntry top = q->heap[0];
  q->size--;
  if (q->size > 0)
    sim_queue_sift_down(q, 0, q->heap[q->size]);
  if (time)
    *time = top.time;
  if (seq)
    *seq = top.seq;
  if (id)
    *id = sim_queue_make_id(top.slot, q->slots[top.slot].gen);
  if (payload && payload_size)
    memcpy(payload, q->payload + (gsize)top.slot * payload_size, payload_size);
  sim_queue_release_slot(q, top.slot);
}

/* Removes the pending event of @slot (see sim_queue_pending_slot). */
static inline void sim_queue_remove_slot(SimQueue *q, guint32 slot, void *payload,
                                         gsize payload_size) {
  guint32 i = q->slots[slot].pos;
  SimQueueEntry removed = q->heap[i];
  q->size--;
  if (i != q->size) {
    SimQueueEntry last = q->heap[q->size];
    if (sim_queue_entry_less(&last, &removed))
      sim_queue_sift_up(q, i, last);
    else
      sim_queue_sift_down(q, i, last);
  }
  if (payload && payload_size)
    memcpy(payload, q->payload + (gsize)slot * payload_size, payload_size);
  sim_queue_release_slot(q, slot);
}

/* Takes a sequence number without scheduling anything (a dropped message's). */
static inline guint64 sim_queue_take_seq(SimQueue *q) {
  return q->next_seq++;
}

#endif /* DPG_SIM_QUEUE_INTERNAL_H */
