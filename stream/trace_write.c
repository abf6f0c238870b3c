/*
 * stream/trace_write.c: writes the event stream to a trace file.
 *
 * A trace is gzip-compressed text, one event per line, each with the CRC-32
 * of its body: gzip's own checksum covers a whole member and is only checked
 * at its end, so a damaged record would otherwise be found (if at all) after
 * it had been replayed. zlib writes a gzip header without a timestamp, so
 * the same run gives the same bytes.
 *
 * The trace is written to PATH.XXXXXX.partial next to PATH and renamed to
 * PATH when it is closed complete: a run whose trace cannot be finished (a
 * full disk) removes the partial file and leaves PATH as it was, and a
 * killed run leaves a file named partial, never a PATH that looks whole.
 * A PATH that exists and is not a regular file (a FIFO, /dev/stdout) is
 * written directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <zlib.h>

#include "stream/internal.h"

struct StreamTraceWriter {
  gzFile gz;
  char *path;
  char *tmp; /* the file written until close renames it to path; NULL: path itself */
  guint64 records;
  GString *line;
};

static gboolean write_error(StreamTraceWriter *w, GError **error) {
  int zerr = Z_OK;
  const char *msg = gzerror(w->gz, &zerr);
  g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT, "cannot write trace '%s': %s%s",
              w->path, zerr == Z_ERRNO ? g_strerror(errno) : msg,
              w->tmp != NULL ? " (nothing was written there)" : "");
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
  struct stat st;
  gboolean direct = g_stat(path, &st) == 0 && !S_ISREG(st.st_mode);
  char *tmp = direct ? NULL : g_strconcat(path, ".XXXXXX.partial", NULL);
  errno = 0;
  gzFile gz = NULL;
  if (direct) {
    gz = gzopen(path, "wb6");
  } else {
    int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0 && (gz = gzdopen(fd, "wb6")) == NULL) {
      close(fd);
      g_unlink(tmp);
    }
  }
  if (gz == NULL) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT, "cannot create trace '%s': %s",
                path, errno ? g_strerror(errno) : "out of memory");
    g_free(tmp);
    return NULL;
  }
  gzbuffer(gz, 1 << 17);
  StreamTraceWriter *w = g_new0(StreamTraceWriter, 1);
  w->gz = gz;
  w->path = g_strdup(path);
  w->tmp = tmp;
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
  g_free(w->tmp);
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
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "cannot write trace '%s': %s%s", w->path,
                rc == Z_ERRNO && errno ? g_strerror(errno) : "closing failed",
                w->tmp != NULL ? " (nothing was written there)" : "");
    ok = FALSE;
  }
  if (w->tmp != NULL && ok && g_rename(w->tmp, w->path) != 0) {
    int e = errno;
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "cannot write trace '%s': renaming %s to it: %s", w->path, w->tmp, g_strerror(e));
    ok = FALSE;
  }
  if (w->tmp != NULL && !ok)
    g_unlink(w->tmp);
  writer_free(w);
  return ok;
}

void stream_trace_writer_abandon(StreamTraceWriter *w) {
  if (w == NULL)
    return;
  gzclose(w->gz);
  if (w->tmp != NULL)
    g_unlink(w->tmp);
  writer_free(w);
}
