/*
 * sim/stream_internal.h: pieces shared by the stream publisher and the trace
 * writer/reader. Internal to sim/.
 */
#ifndef DPG_SIM_STREAM_INTERNAL_H
#define DPG_SIM_STREAM_INTERNAL_H

#include <json-glib/json-glib.h>

#include "sim/sim.h"

/* ---- JSON text, written by hand: the bus path formats millions of small
 * bodies and json-glib's tree would cost more than the simulation. Every
 * writer is locale-independent and deterministic. ---- */

/* Appends @s as a JSON string literal (quotes included); invalid UTF-8 bytes
 * become U+FFFD so the body stays valid JSON. */
void sim_json_append_string(GString *out, const char *s);
/* Appends @x as the shortest decimal that reads back to the same double;
 * non-finite values become null. */
void sim_json_append_double(GString *out, double x);
/* Appends an unsigned integer. */
void sim_json_append_u64(GString *out, guint64 x);

/* Bounds on a body read from outside (a trace, a subscriber) before it goes
 * to json-glib, which parses recursively: depth beyond SIM_JSON_MAX_DEPTH
 * would overflow the stack, and a tree costs many times its text. The
 * stream's own bodies nest at most 4 deep (docs/events.md); a free-form run
 * scenario a little more. */
#define SIM_JSON_MAX_DEPTH 64
#define SIM_JSON_MAX_BODY ((gsize)64 << 20)
/* Whether @body (@len bytes) is within both bounds; else @why (static text)
 * says which is exceeded. O(@len). */
gboolean sim_json_body_bounded(const char *body, gsize len, const char **why);

/* The string member @key of @o, or "" when absent or not a string (json-glib's
 * _with_default getter gives NULL, or a critical, for other types). */
const char *sim_json_string_member(JsonObject *o, const char *key);

/* ---- Trace writer ---- */

typedef struct SimTraceWriter SimTraceWriter;

/* Creates @path (truncating it) and writes the header line. Errors:
 * SIM_ERROR_INVALID_ARGUMENT naming the file and the OS error. */
SimTraceWriter *sim_trace_writer_open(const char *path, GError **error);
/* Appends one record line. Errors: write failures (naming the file). */
gboolean sim_trace_writer_append(SimTraceWriter *w, const char *topic, const char *body,
                                 gsize len, GError **error);
/* Writes the END line, flushes and closes; frees @w in every case. */
gboolean sim_trace_writer_close(SimTraceWriter *w, GError **error);
/* Closes without the END line (the trace then reads as truncated); frees @w. */
void sim_trace_writer_abandon(SimTraceWriter *w);

/* ---- Sender thread (stream_sender.c): sends, records and watches
 * subscriptions off the simulation thread. ---- */

typedef struct SimStreamSender SimStreamSender;

enum {
  SIM_SENDER_RUN_START = 1, /* remember the body to resend to late subscribers */
  SIM_SENDER_RUN_END = 2,   /* forget it */
  SIM_SENDER_URGENT = 4,    /* hand the batch over now (non-message events) */
};

/* Starts the thread; takes @ctx/@sock (nullable) and @trace (nullable).
 * @joined: subscriptions already seen. */
SimStreamSender *sim_stream_sender_new(void *ctx, void *sock, SimTraceWriter *trace,
                                       guint block_ms, guint64 joined);
/* Queues one event (copied). */
void sim_stream_sender_post(SimStreamSender *s, const char *topic, const char *body, gsize len,
                            guint flags);
/* Queues one event written in place, saving the copy on the hot path:
 * reserve returns where to write its body (room for @max_len bytes; @topic
 * is @tlen < 256 bytes), commit says how many bytes were written. Nothing
 * else may be posted in between. */
char *sim_stream_sender_reserve(SimStreamSender *s, const char *topic, gsize tlen,
                                gsize max_len);
void sim_stream_sender_commit(SimStreamSender *s, gsize len, guint flags);
/* Hands the current batch over. */
void sim_stream_sender_flush(SimStreamSender *s);
/* Waits until everything posted so far is sent and recorded; returns (and
 * clears) a trace write error met meanwhile. */
gboolean sim_stream_sender_sync(SimStreamSender *s, GError **error);
void sim_stream_sender_counts(SimStreamSender *s, guint64 *dropped, guint64 *recorded,
                              guint64 *joined);
/* Syncs, stops the thread, closes the trace (END line) and the socket;
 * frees @s. Errors: trace write errors. */
gboolean sim_stream_sender_finish(SimStreamSender *s, GError **error);

/* Every topic a body may carry: lower-case letters and '_', 1..32 bytes. */
gboolean sim_stream_topic_is_valid(const char *topic, gsize len);

#endif /* DPG_SIM_STREAM_INTERNAL_H */
