/*
 * stream/sender.c: the stream's sender thread.
 *
 * A ZeroMQ send costs a microsecond or more (it wakes ZeroMQ's I/O thread),
 * and a gzip write a few: too much to pay on the thread that runs the
 * simulation for every event. So the simulation thread only formats an event
 * and appends it to a batch; batches go to this thread through a queue, and
 * this thread sends them, records them, and watches the subscriptions.
 *
 * Message events are batched (up to BATCH_EVENTS or BATCH_BYTES, or
 * BATCH_US of wall time); every other event is handed over at once, so a
 * viewer sees round boundaries and metrics when they happen. The queue is
 * bounded (QUEUE_BYTES): when it is full, a batch is dropped and counted,
 * unless the stream records a trace or blocks (replays), which must be
 * lossless: then the simulation thread waits.
 *
 * Batches are recycled: this thread hands processed ones back (up to
 * SPARE_ITEMS), so a long run allocates none on the simulation thread once
 * started. A fresh 64 KiB allocation there is not just its own cost: glibc
 * consolidates its free lists before any request of 1 KiB or more, which
 * costs more than formatting a thousand events.
 */
#include <errno.h>
#include <string.h>

#include <zmq.h>

#include "stream/internal.h"

#define BATCH_EVENTS 256
#define BATCH_BYTES (64 * 1024)
#define BATCH_US 20000
#define QUEUE_BYTES ((gsize)32 << 20)
#define POLL_MS 10
#define SPARE_ITEMS 8

/* A queue item: a batch of records, or a synchronization point. */
typedef struct {
  char *data; /* records: flags (1), topic length (1), topic, body length (4), body */
  gsize len, cap;
  guint n;
  gboolean sync; /* no data: signal once everything before is done */
  gboolean stop;
} Item;

struct StreamSender {
  void *ctx, *sock;
  StreamTraceWriter *trace;
  guint block_ms;
  gboolean lossless;
  GAsyncQueue *queue;
  GAsyncQueue *spare; /* processed batches, back for reuse */
  GThread *thread;
  /* producer side */
  Item *batch;
  gint64 batch_t0;
  gsize record; /* offset in batch of the record being written (reserve/commit) */
  /* shared */
  gint64 queued;                     /* bytes handed over, not yet processed (atomic) */
  guint64 dropped, recorded, joined; /* atomic */
  GMutex lock;
  GCond cond;
  guint64 syncs_done;
  GError *error; /* first trace error (under lock) */
  /* sender thread side */
  char *start; /* the current run start, for late subscribers */
  gsize start_len;
};

static void add64(guint64 *x, guint64 v) {
  __atomic_fetch_add(x, v, __ATOMIC_RELAXED);
}
static guint64 get64(const guint64 *x) {
  return __atomic_load_n(x, __ATOMIC_RELAXED);
}

/* A batch with room for BATCH_BYTES of message events. */
static Item *item_new(void) {
  Item *it = g_new0(Item, 1);
  it->cap = BATCH_BYTES + 4096;
  it->data = g_malloc(it->cap);
  return it;
}

static void item_free(gpointer data) {
  Item *it = data;
  g_free(it->data);
  g_free(it);
}

/* ---- The sender thread ---- */

static gboolean send_pair(StreamSender *s, const char *topic, gsize tlen, const char *body,
                          gsize len) {
  int flags = s->block_ms ? 0 : ZMQ_DONTWAIT;
  if (zmq_send(s->sock, topic, tlen, flags | ZMQ_SNDMORE) < 0)
    return FALSE;
  /* Once the first part is in, the rest of a multipart message always is. */
  zmq_send(s->sock, body, len, flags);
  return TRUE;
}

static void watch_subscriptions(StreamSender *s) {
  if (s->sock == NULL)
    return;
  for (;;) {
    char frame[256];
    int n = zmq_recv(s->sock, frame, sizeof frame, ZMQ_DONTWAIT);
    if (n < 0)
      return;
    if (n >= 1 && frame[0] == 1) {
      add64(&s->joined, 1);
      if (s->start != NULL)
        send_pair(s, "run", 3, s->start, s->start_len);
    }
  }
}

static void process(StreamSender *s, Item *it) {
  const char *p = it->data, *end = p + it->len;
  while (p < end) {
    guint flags = (guchar)p[0];
    gsize tlen = (guchar)p[1];
    char topic[64];
    memcpy(topic, p + 2, tlen);
    topic[tlen] = '\0';
    guint32 len;
    memcpy(&len, p + 2 + tlen, 4);
    const char *body = p + 6 + tlen;
    p = body + len;
    if (flags & STREAM_SENDER_RUN_START) {
      g_free(s->start);
      s->start = g_strndup(body, len);
      s->start_len = len;
    }
    if (s->sock != NULL && !send_pair(s, topic, tlen, body, len))
      add64(&s->dropped, 1);
    if (flags & STREAM_SENDER_RUN_END)
      g_clear_pointer(&s->start, g_free);
    if (s->trace != NULL) {
      GError *error = NULL;
      if (stream_trace_writer_append(s->trace, topic, body, len, &error)) {
        add64(&s->recorded, 1);
      } else {
        /* The rest of the run goes on; the unfinished trace is removed. */
        stream_trace_writer_abandon(s->trace);
        s->trace = NULL;
        g_mutex_lock(&s->lock);
        if (s->error == NULL)
          s->error = error;
        else
          g_error_free(error);
        g_mutex_unlock(&s->lock);
      }
    }
  }
}

static gpointer sender_main(gpointer data) {
  StreamSender *s = data;
  for (;;) {
    Item *it = g_async_queue_timeout_pop(s->queue, POLL_MS * 1000);
    watch_subscriptions(s);
    if (it == NULL)
      continue;
    if (it->stop) {
      item_free(it);
      return NULL;
    }
    if (it->sync) {
      g_mutex_lock(&s->lock);
      s->syncs_done++;
      g_cond_broadcast(&s->cond);
      g_mutex_unlock(&s->lock);
    } else {
      process(s, it);
      __atomic_fetch_sub(&s->queued, (gint64)it->len, __ATOMIC_RELAXED);
      if (g_async_queue_length(s->spare) < SPARE_ITEMS) {
        it->len = 0;
        it->n = 0;
        g_async_queue_push(s->spare, it);
        continue;
      }
    }
    item_free(it);
  }
}

/* ---- The simulation thread's side ---- */

StreamSender *stream_sender_new(void *ctx, void *sock, StreamTraceWriter *trace, guint block_ms,
                                guint64 joined) {
  StreamSender *s = g_new0(StreamSender, 1);
  s->ctx = ctx;
  s->sock = sock;
  s->trace = trace;
  s->block_ms = block_ms;
  s->lossless = trace != NULL || block_ms > 0;
  s->joined = joined;
  s->queue = g_async_queue_new();
  s->spare = g_async_queue_new_full(item_free);
  for (int i = 0; i < SPARE_ITEMS; i++)
    g_async_queue_push(s->spare, item_new());
  g_mutex_init(&s->lock);
  g_cond_init(&s->cond);
  s->thread = g_thread_new("dpg-stream", sender_main, s);
  return s;
}

void stream_sender_flush(StreamSender *s) {
  Item *it = s->batch;
  if (it == NULL)
    return;
  s->batch = NULL;
  gsize len = it->len;
  if (__atomic_load_n(&s->queued, __ATOMIC_RELAXED) + (gint64)len > (gint64)QUEUE_BYTES) {
    if (!s->lossless) {
      add64(&s->dropped, it->n);
      item_free(it);
      return;
    }
    while (__atomic_load_n(&s->queued, __ATOMIC_RELAXED) > 0 &&
           __atomic_load_n(&s->queued, __ATOMIC_RELAXED) + (gint64)len > (gint64)QUEUE_BYTES)
      g_usleep(200);
  }
  __atomic_fetch_add(&s->queued, (gint64)len, __ATOMIC_RELAXED);
  g_async_queue_push(s->queue, it);
}

char *stream_sender_reserve(StreamSender *s, const char *topic, gsize tlen, gsize max_len) {
  Item *it = s->batch;
  if (it == NULL) {
    it = g_async_queue_try_pop(s->spare);
    if (it == NULL) /* the sender thread is behind */
      it = item_new();
    s->batch = it;
    s->batch_t0 = 0;
  }
  gsize need = it->len + 6 + tlen + max_len;
  if (need > it->cap) {
    it->cap = MAX(need, 2 * it->cap);
    it->data = g_realloc(it->data, it->cap);
  }
  s->record = it->len;
  char *p = it->data + it->len;
  p[1] = (char)tlen;
  memcpy(p + 2, topic, tlen);
  return p + 6 + tlen;
}

void stream_sender_commit(StreamSender *s, gsize len, guint flags) {
  Item *it = s->batch;
  char *p = it->data + s->record;
  gsize tlen = (guchar)p[1];
  guint32 l32 = (guint32)len;
  p[0] = (char)flags;
  memcpy(p + 2 + tlen, &l32, 4);
  it->len = s->record + 6 + tlen + len;
  it->n++;
  if (flags & STREAM_SENDER_URGENT || it->n >= BATCH_EVENTS || it->len >= BATCH_BYTES) {
    stream_sender_flush(s);
    return;
  }
  /* Bound the delay of a slow trickle of message events. Not while the
   * sender thread has no batch to give back: it is busy with earlier ones
   * then, so an early hand-over would only cost a new batch. */
  if (it->n % 16 == 1) {
    gint64 now = g_get_monotonic_time();
    if (s->batch_t0 == 0)
      s->batch_t0 = now;
    else if (now - s->batch_t0 >= BATCH_US && g_async_queue_length(s->spare) > 0)
      stream_sender_flush(s);
  }
}

void stream_sender_post(StreamSender *s, const char *topic, const char *body, gsize len,
                        guint flags) {
  char *p = stream_sender_reserve(s, topic, strlen(topic), len);
  memcpy(p, body, len);
  stream_sender_commit(s, len, flags);
}

gboolean stream_sender_sync(StreamSender *s, GError **error) {
  stream_sender_flush(s);
  Item *it = g_new0(Item, 1);
  it->sync = TRUE;
  g_mutex_lock(&s->lock);
  guint64 want = s->syncs_done + 1;
  g_mutex_unlock(&s->lock);
  g_async_queue_push(s->queue, it);
  g_mutex_lock(&s->lock);
  while (s->syncs_done < want)
    g_cond_wait(&s->cond, &s->lock);
  GError *e = s->error;
  s->error = NULL;
  g_mutex_unlock(&s->lock);
  if (e != NULL) {
    g_propagate_error(error, e);
    return FALSE;
  }
  return TRUE;
}

void stream_sender_counts(StreamSender *s, guint64 *dropped, guint64 *recorded, guint64 *joined) {
  *dropped = get64(&s->dropped);
  *recorded = get64(&s->recorded);
  *joined = get64(&s->joined);
}

gboolean stream_sender_finish(StreamSender *s, GError **error) {
  gboolean ok = stream_sender_sync(s, error);
  Item *stop = g_new0(Item, 1);
  stop->stop = TRUE;
  g_async_queue_push(s->queue, stop);
  g_thread_join(s->thread);
  GError *local = NULL;
  if (s->trace != NULL && !stream_trace_writer_close(s->trace, ok ? &local : NULL))
    ok = FALSE;
  if (local != NULL)
    g_propagate_error(error, local);
  if (s->sock != NULL)
    zmq_close(s->sock);
  if (s->ctx != NULL)
    zmq_ctx_term(s->ctx);
  g_async_queue_unref(s->queue);
  g_async_queue_unref(s->spare); /* frees the spare batches */
  g_mutex_clear(&s->lock);
  g_cond_clear(&s->cond);
  g_free(s->start);
  g_free(s);
  return ok;
}
