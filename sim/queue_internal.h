/*
 * sim/queue_internal.h: the event queue's layout and its hot operations, inline
 * so the engine's loop compiles to straight-line code with a constant payload
 * size. Internal to sim/.
 *
 * Heap: a 4-ary min-heap of 16-byte entries (time, tie << 32 | slot). Four
 * siblings fill exactly one 64-byte cache line (the array is offset so that
 * sibling groups are line-aligned), so a level of sift-down costs one line.
 * `tie` is a 32-bit push counter: ties in time break in push order. When it
 * would wrap, the pending entries are renumbered in order (once every 2^32
 * pushes, O(n log n)); the 64-bit sequence number users see lives in the slot.
 *
 * Slots: one record per event (generation, state, 64-bit seq, payload),
 * recycled through a free list. An id is (generation << 32 | slot).
 *
 * Cancel is lazy: it marks the slot CANCELLED and bumps its generation; the
 * heap entry stays until it reaches the top (then it is dropped) or until
 * cancelled entries outnumber live ones (then the heap is rebuilt in O(n)).
 * This keeps moving entries free of any write elsewhere, which an indexed heap
 * (a position per slot, updated at every move) would pay on every level.
 */
#ifndef DPG_SIM_QUEUE_INTERNAL_H
#define DPG_SIM_QUEUE_INTERNAL_H

#include <string.h>

#include "sim/queue.h"

typedef struct {
  SimTime time;
  guint64 lo; /* tie << 32 | slot */
} SimQueueEntry;

typedef struct {
  guint32 gen;  /* bumped when the event is popped or cancelled; never 0 */
  guint32 link; /* SIM_QUEUE_LIVE, SIM_QUEUE_CANCELLED, or next free slot */
  guint64 seq;
  /* payload_size bytes follow */
} SimQueueSlot;

#define SIM_QUEUE_NO_SLOT G_MAXUINT32
#define SIM_QUEUE_LIVE (G_MAXUINT32 - 1)
#define SIM_QUEUE_CANCELLED (G_MAXUINT32 - 2)
#define SIM_QUEUE_MAX_SLOTS (G_MAXUINT32 - 16)
#define SIM_QUEUE_HEAP_PAD 3        /* entries before heap[0], for line alignment */
#define SIM_QUEUE_PREFETCH_MIN 8192 /* heap entries (128 KB) */

struct SimQueue {
  SimQueueEntry *heap; /* heap[i] for i < size; allocation starts at heap - PAD */
  guint32 size;        /* heap entries, cancelled ones included */
  guint32 n_cancelled; /* cancelled entries still in the heap */
  guint32 cap;         /* capacity of the heap and of the slot array */
  guint32 n_slots;     /* slots ever used */
  guint32 free_head;
  guint32 next_tie;
  guint8 *slots;
  gsize stride; /* bytes per slot record */
  gsize payload_size;
  guint64 next_seq;
};

/* Out of line: growth (one more event must fit), renumbering of ties, and the
 * rebuild that drops cancelled entries. */
gboolean sim_queue_reserve_one(SimQueue *q);
void sim_queue_renumber(SimQueue *q);
void sim_queue_purge(SimQueue *q);

static inline SimQueueSlot *sim_queue_slot(const SimQueue *q, guint32 slot) {
  return (SimQueueSlot *)(q->slots + (gsize)slot * q->stride);
}

static inline void *sim_queue_slot_payload(SimQueueSlot *s) {
  return s + 1;
}

/* (time, lo) as one 128-bit number: comparisons compile to cmp/sbb and
 * selections to cmov, which matters because heap comparisons are
 * unpredictable branches. */
__extension__ typedef unsigned __int128 SimQueueKey;

static inline SimQueueKey sim_queue_key(const SimQueueEntry *e) {
  return ((SimQueueKey)e->time << 64) | e->lo;
}

static inline gboolean sim_queue_entry_less(const SimQueueEntry *a, const SimQueueEntry *b) {
  return sim_queue_key(a) < sim_queue_key(b);
}

static inline void sim_queue_sift_up(SimQueueEntry *h, guint32 i, SimQueueEntry x) {
  const SimQueueKey kx = sim_queue_key(&x);
  while (i > 0) {
    guint32 p = (i - 1) >> 2;
    if (!(kx < sim_queue_key(&h[p])))
      break;
    h[i] = h[p];
    i = p;
  }
  h[i] = x;
}

static inline void sim_queue_sift_down(SimQueueEntry *h, guint32 n, guint32 i, SimQueueEntry x) {
  const SimQueueKey kx = sim_queue_key(&x);
  for (;;) {
    guint32 c = 4 * i + 1;
    if (c >= n)
      break;
    guint32 best;
    SimQueueKey kb;
    /* The 16 grandchildren are 4 adjacent lines; fetching them now overlaps
     * the next level's misses with this level's comparisons. Small heaps sit
     * in L1/L2 and would only pay for the instructions. */
    if (n > SIM_QUEUE_PREFETCH_MIN && 4 * c + 1 < n) {
      const char *g = (const char *)&h[4 * c + 1];
      __builtin_prefetch(g);
      __builtin_prefetch(g + 64);
      __builtin_prefetch(g + 128);
      __builtin_prefetch(g + 192);
    }
    if (G_LIKELY(c + 3 < n)) {
      SimQueueKey k0 = sim_queue_key(&h[c]), k1 = sim_queue_key(&h[c + 1]);
      SimQueueKey k2 = sim_queue_key(&h[c + 2]), k3 = sim_queue_key(&h[c + 3]);
      gboolean l01 = k1 < k0, l23 = k3 < k2;
      guint32 b01 = c + (guint32)l01, b23 = c + 2 + (guint32)l23;
      SimQueueKey m01 = l01 ? k1 : k0, m23 = l23 ? k3 : k2;
      gboolean l = m23 < m01;
      best = l ? b23 : b01;
      kb = l ? m23 : m01;
    } else {
      best = c;
      kb = sim_queue_key(&h[c]);
      for (guint32 j = c + 1; j < n; j++) {
        SimQueueKey kj = sim_queue_key(&h[j]);
        if (kj < kb) {
          best = j;
          kb = kj;
        }
      }
    }
    if (!(kb < kx))
      break;
    h[i] = h[best];
    i = best;
  }
  h[i] = x;
}

static inline guint32 sim_queue_next_gen(guint32 gen) {
  return gen == G_MAXUINT32 ? 1 : gen + 1;
}

static inline SimEventId sim_queue_make_id(guint32 slot, guint32 gen) {
  return ((SimEventId)gen << 32) | slot;
}

/* The slot record of a pending event named by @id, or NULL. */
static inline SimQueueSlot *sim_queue_pending(const SimQueue *q, SimEventId id) {
  guint32 slot = (guint32)(id & G_MAXUINT32);
  if (slot >= q->n_slots)
    return NULL;
  SimQueueSlot *s = sim_queue_slot(q, slot);
  if (s->gen != (guint32)(id >> 32) || s->link != SIM_QUEUE_LIVE)
    return NULL;
  return s;
}

static inline void sim_queue_free_slot(SimQueue *q, guint32 slot, SimQueueSlot *s) {
  s->link = q->free_head;
  q->free_head = slot;
}

/* Removes heap[0] (whatever it is). */
static inline void sim_queue_remove_top(SimQueue *q) {
  q->size--;
  if (q->size > 0)
    sim_queue_sift_down(q->heap, q->size, 0, q->heap[q->size]);
}

/* The earliest live entry, dropping cancelled ones on the way; NULL if none. */
static inline const SimQueueEntry *sim_queue_top_inline(SimQueue *q) {
  while (q->size > 0) {
    guint32 slot = (guint32)q->heap[0].lo;
    SimQueueSlot *s = sim_queue_slot(q, slot);
    if (G_LIKELY(s->link == SIM_QUEUE_LIVE))
      return &q->heap[0];
    sim_queue_remove_top(q);
    sim_queue_free_slot(q, slot, s);
    q->n_cancelled--;
  }
  return NULL;
}

/* Push with the payload size known at the call site. Returns SIM_EVENT_ID_NONE
 * when memory runs out; *seq_out (optional) receives the sequence number. */
static inline SimEventId sim_queue_push_inline(SimQueue *q, SimTime time, const void *payload,
                                               gsize payload_size, guint64 *seq_out) {
  if (G_UNLIKELY(q->free_head == SIM_QUEUE_NO_SLOT || q->size == q->cap))
    if (!sim_queue_reserve_one(q))
      return SIM_EVENT_ID_NONE;
  if (G_UNLIKELY(q->next_tie == G_MAXUINT32))
    sim_queue_renumber(q);
  guint32 slot = q->free_head;
  SimQueueSlot *s = sim_queue_slot(q, slot);
  q->free_head = s->link;
  s->link = SIM_QUEUE_LIVE;
  s->seq = q->next_seq++;
  if (payload_size)
    memcpy(sim_queue_slot_payload(s), payload, payload_size);
  if (seq_out)
    *seq_out = s->seq;
  SimQueueEntry x = {time, ((guint64)q->next_tie++ << 32) | slot};
  sim_queue_sift_up(q->heap, q->size++, x);
  return sim_queue_make_id(slot, s->gen);
}

/* Pops the top entry, which sim_queue_top_inline has just returned (so it is live). */
static inline void sim_queue_pop_top_inline(SimQueue *q, SimTime *time, guint64 *seq,
                                            SimEventId *id, void *payload, gsize payload_size) {
  SimQueueEntry top = q->heap[0];
  guint32 slot = (guint32)top.lo;
  SimQueueSlot *s = sim_queue_slot(q, slot);
  sim_queue_remove_top(q);
  if (time)
    *time = top.time;
  if (seq)
    *seq = s->seq;
  if (id)
    *id = sim_queue_make_id(slot, s->gen);
  if (payload && payload_size)
    memcpy(payload, sim_queue_slot_payload(s), payload_size);
  s->gen = sim_queue_next_gen(s->gen);
  sim_queue_free_slot(q, slot, s);
}

/* Cancels the pending event whose record is @s (from sim_queue_pending). */
static inline void sim_queue_cancel_slot(SimQueue *q, SimQueueSlot *s, void *payload,
                                         gsize payload_size) {
  if (payload && payload_size)
    memcpy(payload, sim_queue_slot_payload(s), payload_size);
  s->link = SIM_QUEUE_CANCELLED;
  s->gen = sim_queue_next_gen(s->gen);
  q->n_cancelled++;
  if (G_UNLIKELY(q->n_cancelled > 64 && q->n_cancelled > q->size / 2))
    sim_queue_purge(q);
}

/* Takes a sequence number without scheduling anything (a dropped message's). */
static inline guint64 sim_queue_take_seq(SimQueue *q) {
  return q->next_seq++;
}

/* Number of pending (live) events. */
static inline gsize sim_queue_live(const SimQueue *q) {
  return q->size - q->n_cancelled;
}

#endif /* DPG_SIM_QUEUE_INTERNAL_H */
