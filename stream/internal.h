/*
 * stream/internal.h: pieces shared by the stream publisher and the trace
 * writer/reader. Internal to stream/.
 */
#ifndef DPG_STREAM_INTERNAL_H
#define DPG_STREAM_INTERNAL_H

#include <json-glib/json-glib.h>

#include "stream/stream.h"

/* Bounds on a body read from outside (a trace, a subscriber) before it goes
 * to json-glib, which parses recursively: depth beyond STREAM_JSON_MAX_DEPTH
 * would overflow the stack, and a tree costs many times its text. The
 * stream's own bodies nest at most 4 deep (docs/events.md); a free-form run
 * scenario a little more. */
#define STREAM_JSON_MAX_DEPTH 64
#define STREAM_JSON_MAX_BODY ((gsize)64 << 20)
/* Whether @body (@len bytes) is within both bounds; else @why (static text)
 * says which is exceeded. O(@len). */
gboolean stream_json_body_bounded(const char *body, gsize len, const char **why);

/* The string member @key of @o, or "" when absent or not a string (json-glib's
 * _with_default getter gives NULL, or a critical, for other types). */
const char *stream_json_string_member(JsonObject *o, const char *key);

/* ---- Trace writer ---- */

typedef struct StreamTraceWriter StreamTraceWriter;

/* Starts the trace @path: a temporary PATH.XXXXXX.partial beside it (a
 * @path that exists and is not a regular file is written directly), and
 * writes the header line. Errors: STREAM_ERROR_INVALID_ARGUMENT naming the
 * file and the OS error. */
StreamTraceWriter *stream_trace_writer_open(const char *path, GError **error);
/* Appends one record line. Errors: write failures (naming the file). */
gboolean stream_trace_writer_append(StreamTraceWriter *w, const char *topic, const char *body,
                                    gsize len, GError **error);
/* Writes the END line, flushes, closes and renames the trace to its path
 * (on failure the temporary file is removed and the path left as it was);
 * frees @w in every case. */
gboolean stream_trace_writer_close(StreamTraceWriter *w, GError **error);
/* Closes without the END line and removes the temporary file (a trace
 * written directly then reads as truncated); frees @w. */
void stream_trace_writer_abandon(StreamTraceWriter *w);

/* ---- Sender thread (stream_sender.c): sends, records and watches
 * subscriptions off the simulation thread. ---- */

typedef struct StreamSender StreamSender;

enum {
  STREAM_SENDER_RUN_START = 1, /* remember the body to resend to late subscribers */
  STREAM_SENDER_RUN_END = 2,   /* forget it */
  STREAM_SENDER_URGENT = 4,    /* hand the batch over now (non-message events) */
};

/* Starts the thread; takes @ctx/@sock (nullable) and @trace (nullable).
 * @joined: subscriptions already seen. */
StreamSender *stream_sender_new(void *ctx, void *sock, StreamTraceWriter *trace, guint block_ms,
                                guint64 joined);
/* Queues one event (copied). */
void stream_sender_post(StreamSender *s, const char *topic, const char *body, gsize len,
                        guint flags);
/* Queues one event written in place, saving the copy on the hot path:
 * reserve returns where to write its body (room for @max_len bytes; @topic
 * is @tlen < 256 bytes), commit says how many bytes were written. Nothing
 * else may be posted in between. */
char *stream_sender_reserve(StreamSender *s, const char *topic, gsize tlen, gsize max_len);
void stream_sender_commit(StreamSender *s, gsize len, guint flags);
/* Hands the current batch over. */
void stream_sender_flush(StreamSender *s);
/* Waits until everything posted so far is sent and recorded; returns (and
 * clears) a trace write error met meanwhile. */
gboolean stream_sender_sync(StreamSender *s, GError **error);
void stream_sender_counts(StreamSender *s, guint64 *dropped, guint64 *recorded, guint64 *joined);
/* Syncs, stops the thread, closes the trace (END line) and the socket;
 * frees @s. Errors: trace write errors. */
gboolean stream_sender_finish(StreamSender *s, GError **error);

/* Every topic a body may carry: lower-case letters and '_', 1..32 bytes. */
gboolean stream_topic_is_valid(const char *topic, gsize len);

#endif /* DPG_STREAM_INTERNAL_H */
