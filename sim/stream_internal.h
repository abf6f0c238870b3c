/*
 * sim/stream_internal.h: pieces shared by the stream publisher and the trace
 * writer/reader. Internal to sim/.
 */
#ifndef DPG_SIM_STREAM_INTERNAL_H
#define DPG_SIM_STREAM_INTERNAL_H

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

/* Every topic a body may carry: lower-case letters and '_', 1..32 bytes. */
gboolean sim_stream_topic_is_valid(const char *topic, gsize len);

#endif /* DPG_SIM_STREAM_INTERNAL_H */
