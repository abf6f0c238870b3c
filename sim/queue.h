/*
 * sim/queue.h: the event queue the engine schedules on (implementation notes:
 * sim/queue_internal.h).
 *
 * A priority queue of events keyed by (time, sequence number). Sequence numbers
 * are handed out in push order, so events at equal times come out in the order
 * they were pushed: a run is a pure function of its inputs. The heap is 4-ary
 * over 16-byte entries (one cache line per level); payloads sit in a slot
 * array that is recycled, so a steady state of pushes and pops allocates
 * nothing. Cancel is lazy (generation-checked), see sim_queue_cancel.
 * Not thread-safe.
 */
#ifndef DPG_SIM_QUEUE_H
#define DPG_SIM_QUEUE_H

#include "sim/base.h"

G_BEGIN_DECLS

/** Identifies a scheduled event: slot index and slot generation. Never 0. */
typedef guint64 SimEventId;
#define SIM_EVENT_ID_NONE ((SimEventId)0)

/** Largest payload a queue entry may carry, in bytes. */
#define SIM_QUEUE_MAX_PAYLOAD 1024

typedef struct SimQueue SimQueue;

/**
 * sim_queue_new: an empty queue whose events carry @payload_size bytes each.
 * @payload_size: 0 .. SIM_QUEUE_MAX_PAYLOAD.
 * Errors: SIM_ERROR_INVALID_ARGUMENT when @payload_size is too large.
 * Returns: (transfer full) the queue (free with sim_queue_free), or NULL.
 * Complexity: O(1).
 */
SimQueue *sim_queue_new(gsize payload_size, GError **error);

/** sim_queue_free: frees @queue and its pending events (NULL is ignored). */
void sim_queue_free(SimQueue *queue);

/**
 * sim_queue_push: schedules an event at @time.
 * @payload: payload_size bytes to copy (may be NULL when payload_size is 0).
 * Errors: SIM_ERROR_CAPACITY when 2^32 - 1 events are already pending or memory
 * runs out. Returns: the event's id, or SIM_EVENT_ID_NONE on error.
 * Complexity: O(log_4 n) comparisons; amortized O(1) allocation (none once the
 * queue has reached its peak size).
 */
SimEventId sim_queue_push(SimQueue *queue, SimTime time, const void *payload, GError **error);

/**
 * sim_queue_pop: removes the earliest event (smallest (time, seq)).
 * @time, @seq, @id, @payload: (out) (optional) where to copy the event's time,
 * sequence number, id and payload_size payload bytes.
 * Returns: FALSE when the queue is empty (outputs untouched).
 * Complexity: O(log_4 n).
 */
gboolean sim_queue_pop(SimQueue *queue, SimTime *time, guint64 *seq, SimEventId *id, void *payload);

/**
 * sim_queue_peek: like sim_queue_pop without removing the event (it may drop
 * cancelled entries that reached the top, hence the non-const queue).
 * Returns: FALSE when the queue is empty. Complexity: O(1) amortized.
 */
gboolean sim_queue_peek(SimQueue *queue, SimTime *time, guint64 *seq, SimEventId *id);

/**
 * sim_queue_cancel: removes a pending event.
 * @id: any id; ids of events already popped or cancelled, or never issued, are
 * recognized (slot generation check) and leave the queue untouched.
 * @payload: (out) (optional) receives the cancelled event's payload.
 * Returns: TRUE if the event was pending and is now removed.
 * Complexity: O(1) amortized: the entry is only marked, and dropped when it
 * reaches the top or when cancelled entries outnumber pending ones (an O(n)
 * rebuild). A slot's generation wraps after 2^32 - 1 reuses, so an id kept
 * that long could name a newer event.
 */
gboolean sim_queue_cancel(SimQueue *queue, SimEventId id, void *payload);

/** sim_queue_is_pending: whether @id names an event still in @queue. O(1). */
gboolean sim_queue_is_pending(const SimQueue *queue, SimEventId id);

/** sim_queue_size: number of pending events. O(1). */
gsize sim_queue_size(const SimQueue *queue);

G_END_DECLS

#endif /* DPG_SIM_QUEUE_H */
