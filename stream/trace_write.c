/*
 * stream/trace_write.c: writes the event stream to a trace file.
 *
 * A trace is gzip-compressed text, one event per line, each with the CRC-32
 * of its body: gzip's own checksum covers a whole member and is only checked
 * at its end, so a damaged record would otherwise be found (if at all) after
 * it had been replayed. zlib writes a gzip header without a timestamp, so
 * the same run gives the same bytes.
 */
#include <errno.h>
#include <string.h>

#include <zlib.h>

#include "stream/internal.h"

struct StreamTraceWriter {
  gzFile gz;
  char *path;
  guint64 records;
  GString *line;
};

static gboolean write_error(StreamTraceWriter *w, GError **error) {
  int zerr = Z_OK;
  const char *msg = gzerror(w->gz, &zerr);
  g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT, "cannot write trace '%s': %s",
              w->path, zerr == Z_ERRNO ? g_strerror(errno) : msg);
  return FALSE;
}

static gboolean write_line(StreamTraceWriter *w, const char *head, const char *body, gsize len,
                           GError **error) {
  GString *l = w->line;
  g_string_truncate(l, 0);
  g_string_append(l, head);
  g_string_append_printf(l, " %08lx ", (unsigned long)crc32(0L, (const Bytef *)body, (uInt)len));
  g_string_append_len(l, body, (gssize)len);
  g_string_append_c(l, '\n');
  if (gzwrite(w->gz, l->str, (unsigned)l->len) != (int)l->len)
    return write_error(w, error);
  return TRUE;
}

StreamTraceWriter *stream_trace_writer_open(const char *path, GError **error) {
  g_return_val_if_fail(path != NULL, NULL);
  errno = 0;
  gzFile gz = gzopen(path, "wb6");
  if (gz == NULL) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT, "cannot create trace '%s': %s",
                path, errno ? g_strerror(errno) : "out of memory");
    return NULL;
  }
  gzbuffer(gz, 1 << 17);
  StreamTraceWriter *w = g_new0(StreamTraceWriter, 1);
  w->gz = gz;
  w->path = g_strdup(path);
  w->line = g_string_sized_new(512);
  char header[64];
  g_snprintf(header, sizeof header, "DPGTRACE %d {\"stream_v\":%d}\n", STREAM_TRACE_VERSION,
             STREAM_VERSION);
  if (gzputs(gz, header) < 0) {
    write_error(w, error);
    stream_trace_writer_abandon(w);
    return NULL;
  }
  return w;
}

gboolean stream_trace_writer_append(StreamTraceWriter *w, const char *topic, const char *body,
                                    gsize len, GError **error) {
  g_return_val_if_fail(w != NULL && topic != NULL && body != NULL, FALSE);
  if (len > G_MAXUINT32 / 2) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_CAPACITY,
                "trace '%s': a %zu-byte event is too large to record", w->path, len);
    return FALSE;
  }
  if (!write_line(w, topic, body, len, error))
    return FALSE;
  w->records++;
  return TRUE;
}

static void writer_free(StreamTraceWriter *w) {
  g_string_free(w->line, TRUE);
  g_free(w->path);
  g_free(w);
}

gboolean stream_trace_writer_close(StreamTraceWriter *w, GError **error) {
  g_return_val_if_fail(w != NULL, FALSE);
  char end[64];
  g_snprintf(end, sizeof end, "{\"records\":%" G_GUINT64_FORMAT "}", w->records);
  gboolean ok = write_line(w, "END", end, strlen(end), error);
  errno = 0;
  int rc = gzclose(w->gz);
  if (ok && rc != Z_OK) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT, "cannot write trace '%s': %s",
                w->path, rc == Z_ERRNO && errno ? g_strerror(errno) : "closing failed");
    ok = FALSE;
  }
  writer_free(w);
  return ok;
}

void stream_trace_writer_abandon(StreamTraceWriter *w) {
  if (w == NULL)
    return;
  gzclose(w->gz);
  writer_free(w);
}
