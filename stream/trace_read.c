/*
 * stream/trace_read.c: reads a trace back, record by record, checking each one
 * before handing it out, so a damaged trace replays up to its first bad
 * record and the error says exactly where that is.
 *
 * zlib's inflate is driven by hand rather than through gzread: gzread may
 * discard what it decompressed when it then meets an error, and it cannot
 * tell a truncated file from a complete one as precisely. Plain-text traces
 * (a gunzipped trace) are read as they are.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-glib/json-glib.h>
#include <zlib.h>

#include "stream/internal.h"
#include "spec/spec.h"

#define CHUNK (1 << 16)
/* Longest record line: metric events carry one value per node (about 40
 * bytes each), so this admits runs of over a million nodes while a device or
 * a binary file given by mistake stops here instead of exhausting memory. */
#define TRACE_LINE_MAX ((gsize)64 << 20)

struct StreamTraceReader {
  FILE *file;
  char *path;
  gboolean gzip;
  z_stream z;
  gboolean z_live;     /* inflateInit2 done */
  gboolean member_end; /* the last inflate ended a gzip member */
  unsigned char in[CHUNK];
  gboolean file_eof;
  GByteArray *text;    /* decompressed bytes not yet consumed */
  gsize pos;           /* start of the next line in text */
  guint64 text_offset; /* uncompressed offset of text->data[0] */
  gboolean text_eof;   /* no more decompressed bytes will come */
  char *header;
  guint64 index; /* records returned */
  gboolean have_prev;
  guint64 prev_seq;
  SimTime prev_t;
  gboolean done, failed;
  JsonParser *parser;
  char *topic;          /* the current record's topic */
  GError *stream_error; /* a decompression error, reported once its data is used */
  gboolean too_long;    /* next_line met a line over TRACE_LINE_MAX */
};

static void fail(StreamTraceReader *r, GError **error, guint64 offset, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

static void fail(StreamTraceReader *r, GError **error, guint64 offset, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *what = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, STREAM_ERROR, STREAM_ERROR_PARSE,
              "%s: record %" G_GUINT64_FORMAT " (byte %" G_GUINT64_FORMAT
              " of the uncompressed trace): %s; the %" G_GUINT64_FORMAT
              " records before it are valid",
              r->path, r->index, offset, what, r->index);
  g_free(what);
  r->failed = TRUE;
}

/* Reads more raw bytes from the file into z.next_in. */
static gboolean read_input(StreamTraceReader *r) {
  if (r->file_eof)
    return FALSE;
  size_t n = fread(r->in, 1, CHUNK, r->file);
  if (n < CHUNK)
    r->file_eof = TRUE;
  r->z.next_in = r->in;
  r->z.avail_in = (uInt)n;
  return n > 0;
}

/* Appends more decompressed text; FALSE when nothing more will come (then
 * text_eof is set, and stream_error if the data ended badly). */
static gboolean fill(StreamTraceReader *r) {
  if (r->text_eof)
    return FALSE;
  /* Drop consumed bytes first so text stays about one line long. */
  if (r->pos > 0) {
    r->text_offset += r->pos;
    g_byte_array_remove_range(r->text, 0, (guint)r->pos);
    r->pos = 0;
  }
  if (!r->gzip) {
    guint8 buf[CHUNK];
    size_t n = r->file_eof ? 0 : fread(buf, 1, sizeof buf, r->file);
    if (n < sizeof buf)
      r->file_eof = TRUE;
    if (n == 0) {
      r->text_eof = TRUE;
      if (ferror(r->file))
        r->stream_error = g_error_new(STREAM_ERROR, STREAM_ERROR_PARSE, "read error: %s",
                                      g_strerror(errno));
      return FALSE;
    }
    g_byte_array_append(r->text, buf, (guint)n);
    return TRUE;
  }
  guint8 out[CHUNK];
  for (;;) {
    if (r->z.avail_in == 0 && !read_input(r)) {
      r->text_eof = TRUE;
      if (ferror(r->file))
        r->stream_error = g_error_new(STREAM_ERROR, STREAM_ERROR_PARSE, "read error: %s",
                                      g_strerror(errno));
      else if (!r->member_end)
        r->stream_error = g_error_new_literal(
            STREAM_ERROR, STREAM_ERROR_PARSE,
            "the file is truncated (it ends in the middle of its compressed data)");
      return FALSE;
    }
    if (r->member_end) { /* another gzip member follows (concatenated files) */
      inflateReset(&r->z);
      r->member_end = FALSE;
    }
    r->z.next_out = out;
    r->z.avail_out = sizeof out;
    int rc = inflate(&r->z, Z_NO_FLUSH);
    gsize produced = sizeof out - r->z.avail_out;
    if (produced)
      g_byte_array_append(r->text, out, (guint)produced);
    if (rc == Z_STREAM_END) {
      r->member_end = TRUE;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      r->text_eof = TRUE;
      r->stream_error = g_error_new(STREAM_ERROR, STREAM_ERROR_PARSE,
                                    "the compressed data is corrupt (zlib: %s)",
                                    r->z.msg ? r->z.msg : zError(rc));
      return produced > 0;
    }
    if (produced)
      return TRUE;
  }
}

/* The next line (without '\n', NUL-terminated in place); NULL at the end of
 * the text or for a last line without '\n' (*partial then set). */
static char *next_line(StreamTraceReader *r, gsize *len, guint64 *offset, gboolean *partial) {
  *partial = FALSE;
  gsize scanned = 0;
  for (;;) {
    guint8 *start = r->text->data + r->pos;
    gsize avail = r->text->len - r->pos;
    guint8 *nl = scanned < avail ? memchr(start + scanned, '\n', avail - scanned) : NULL;
    if (nl != NULL) {
      *nl = '\0';
      *len = (gsize)(nl - start);
      *offset = r->text_offset + r->pos;
      r->pos += *len + 1;
      return (char *)start;
    }
    scanned = avail;
    if (avail > TRACE_LINE_MAX) {
      r->too_long = TRUE;
      *offset = r->text_offset + r->pos;
      return NULL;
    }
    gsize before = r->pos;
    if (!fill(r)) {
      if (r->text->len > r->pos) {
        *partial = TRUE;
        *offset = r->text_offset + r->pos;
      }
      return NULL;
    }
    /* fill() may have moved the data to the front */
    if (before != r->pos)
      scanned = 0;
  }
}

StreamTraceReader *stream_trace_reader_open(const char *path, GError **error) {
  g_return_val_if_fail(path != NULL, NULL);
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT, "cannot open trace '%s': %s",
                path, g_strerror(errno));
    return NULL;
  }
  StreamTraceReader *r = g_new0(StreamTraceReader, 1);
  r->file = f;
  r->path = g_strdup(path);
  r->text = g_byte_array_sized_new(CHUNK);
  r->parser = json_parser_new();
  int c1 = fgetc(f), c2 = fgetc(f);
  rewind(f);
  r->gzip = c1 == 0x1f && c2 == 0x8b;
  if (r->gzip) {
    if (inflateInit2(&r->z, 15 + 16) != Z_OK) {
      g_set_error(error, STREAM_ERROR, STREAM_ERROR_CAPACITY, "cannot read trace '%s': zlib failed",
                  path);
      stream_trace_reader_free(r);
      return NULL;
    }
    r->z_live = TRUE;
  }
  gsize len = 0;
  guint64 offset = 0;
  gboolean partial = FALSE;
  char *line = next_line(r, &len, &offset, &partial);
  /* "DPGTRACE <version> <header>": the version read with an overflow
   * check, so a huge one is reported as written, never as a wrapped value. */
  static const char magic[] = "DPGTRACE ";
  gsize digits = 0, consumed = 0;
  if (line != NULL && strncmp(line, magic, sizeof magic - 1) == 0) {
    const char *v = line + sizeof magic - 1;
    digits = strspn(v, "0123456789");
    consumed = sizeof magic - 1 + digits;
    if (digits > 0 && line[consumed] != '\0' && !g_ascii_isspace(line[consumed]))
      digits = 0;
    while (line[consumed] != '\0' && g_ascii_isspace(line[consumed]))
      consumed++;
  }
  if (digits == 0) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_PARSE,
                "'%s' is not a dpgossip trace (it should start with a 'DPGTRACE 1' line%s%s)", path,
                r->stream_error ? "; "
                : r->too_long   ? "; its first line is longer "
                                  "than 64 MiB"
                                : "",
                r->stream_error ? r->stream_error->message : "");
    stream_trace_reader_free(r);
    return NULL;
  }
  char *vtext = g_strndup(line + sizeof magic - 1, digits);
  guint64 version = 0;
  if (!g_ascii_string_to_unsigned(vtext, 10, 0, G_MAXUINT64, &version, NULL) ||
      version != STREAM_TRACE_VERSION) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_PARSE,
                "trace '%s' has format version %s; this dpgossip reads version %d", path, vtext,
                STREAM_TRACE_VERSION);
    g_free(vtext);
    stream_trace_reader_free(r);
    return NULL;
  }
  g_free(vtext);
  r->header = g_strdup(line + consumed);
  return r;
}

const char *stream_trace_reader_header(const StreamTraceReader *r) {
  g_return_val_if_fail(r != NULL, NULL);
  return r->header;
}

void stream_trace_reader_free(StreamTraceReader *r) {
  if (r == NULL)
    return;
  if (r->z_live)
    inflateEnd(&r->z);
  fclose(r->file);
  g_byte_array_unref(r->text);
  g_object_unref(r->parser);
  g_clear_error(&r->stream_error);
  g_free(r->topic);
  g_free(r->header);
  g_free(r->path);
  g_free(r);
}

/* Splits "<word> <8 hex> <body>" and checks the CRC. */
static gboolean split_line(StreamTraceReader *r, char *line, gsize len, guint64 offset, char **word,
                           char **body, gsize *body_len, GError **error) {
  char *sp = memchr(line, ' ', len);
  gsize wlen = sp != NULL ? (gsize)(sp - line) : 0;
  gboolean is_end = wlen == 3 && memcmp(line, "END", 3) == 0;
  if (sp == NULL || (!is_end && !stream_topic_is_valid(line, wlen))) {
    fail(r, error, offset, "not a record line (expected '<topic> <crc32> <json>')");
    return FALSE;
  }
  *sp = '\0';
  gsize rest = len - (gsize)(sp + 1 - line);
  char *crc_text = sp + 1;
  if (rest < 10 || crc_text[8] != ' ') {
    fail(r, error, offset, "not a record line (expected '<topic> <crc32> <json>')");
    return FALSE;
  }
  guint32 crc = 0;
  for (int i = 0; i < 8; i++) {
    int d = g_ascii_xdigit_value(crc_text[i]);
    if (d < 0) {
      char *shown = spec_escape(crc_text, 8);
      fail(r, error, offset, "bad checksum field '%s'", shown);
      g_free(shown);
      return FALSE;
    }
    crc = crc << 4 | (guint32)d;
  }
  *word = line;
  *body = crc_text + 9;
  *body_len = rest - 9;
  guint32 actual = (guint32)crc32(0L, (const Bytef *)*body, (uInt)*body_len);
  if (actual != crc) {
    fail(r, error, offset, "checksum mismatch (stored %08x, computed %08x): the record is corrupt",
         crc, actual);
    return FALSE;
  }
  return TRUE;
}

static gboolean get_uint(JsonObject *o, const char *key, guint64 *out) {
  JsonNode *n = json_object_get_member(o, key);
  if (n == NULL || json_node_get_value_type(n) != G_TYPE_INT64 || json_node_get_int(n) < 0)
    return FALSE;
  *out = (guint64)json_node_get_int(n);
  return TRUE;
}

int stream_trace_reader_next(StreamTraceReader *r, StreamTraceRecord *rec, GError **error) {
  g_return_val_if_fail(r != NULL && rec != NULL, -1);
  if (r->failed) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_PARSE, "%s: reading stopped at an earlier error",
                r->path);
    return -1;
  }
  if (r->done)
    return 0;
  gsize len = 0;
  guint64 offset = 0;
  gboolean partial = FALSE;
  char *line = next_line(r, &len, &offset, &partial);
  if (line == NULL) {
    guint64 at = partial ? offset : r->text_offset + r->text->len;
    if (r->too_long)
      fail(r, error, offset, "a line longer than 64 MiB: not a trace line (a corrupt file?)");
    else if (r->stream_error != NULL)
      fail(r, error, at, "%s", r->stream_error->message);
    else if (partial)
      fail(r, error, at, "the last line is cut short: the file is truncated");
    else
      fail(r, error, at,
           "the trace ends without its END line: it is truncated (was the recording "
           "interrupted?)");
    return -1;
  }
  char *word = NULL, *body = NULL;
  gsize body_len = 0;
  if (!split_line(r, line, len, offset, &word, &body, &body_len, error))
    return -1;
  const char *why = NULL;
  if (!stream_json_body_bounded(body, body_len, &why)) {
    fail(r, error, offset, "%s: not a dpgossip event", why);
    return -1;
  }
  GError *local = NULL;
  if (!json_parser_load_from_data(r->parser, body, (gssize)body_len, &local)) {
    char *shown = spec_escape(local->message, -1); /* json-glib quotes the bad bytes */
    fail(r, error, offset, "the body is not valid JSON (%s)", shown);
    g_free(shown);
    g_error_free(local);
    return -1;
  }
  JsonNode *root = json_parser_get_root(r->parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
    fail(r, error, offset, "the body is not a JSON object");
    return -1;
  }
  JsonObject *o = json_node_get_object(root);
  if (strcmp(word, "END") == 0) {
    guint64 n = 0;
    if (!get_uint(o, "records", &n) || n != r->index) {
      fail(r, error, offset,
           "the END line counts %" G_GUINT64_FORMAT " records, not %" G_GUINT64_FORMAT, n,
           r->index);
      return -1;
    }
    gboolean more = FALSE;
    char *extra = next_line(r, &len, &offset, &more);
    if (extra != NULL || more || r->too_long) {
      fail(r, error, offset, "data after the END line");
      return -1;
    }
    if (r->stream_error != NULL) {
      fail(r, error, offset, "%s", r->stream_error->message);
      return -1;
    }
    r->done = TRUE;
    return 0;
  }
  guint64 v = 0, seq = 0, t = 0;
  if (!get_uint(o, "v", &v) || !get_uint(o, "seq", &seq) || !get_uint(o, "t_ns", &t)) {
    fail(r, error, offset, "the body lacks an integer v, seq or t_ns");
    return -1;
  }
  if (v != STREAM_VERSION) {
    fail(r, error, offset, "event format version %" G_GUINT64_FORMAT " (this dpgossip reads %d)", v,
         STREAM_VERSION);
    return -1;
  }
  if (r->have_prev && seq <= r->prev_seq) {
    fail(r, error, offset, "seq %" G_GUINT64_FORMAT " does not follow %" G_GUINT64_FORMAT, seq,
         r->prev_seq);
    return -1;
  }
  if (r->have_prev && t < r->prev_t) {
    fail(r, error, offset, "t_ns %" G_GUINT64_FORMAT " goes back before %" G_GUINT64_FORMAT, t,
         r->prev_t);
    return -1;
  }
  r->have_prev = TRUE;
  r->prev_seq = seq;
  r->prev_t = t;
  g_free(r->topic);
  r->topic = g_strdup(word);
  *rec = (StreamTraceRecord){
      .topic = r->topic,
      .body = body,
      .body_len = body_len,
      .index = r->index,
      .offset = offset,
      .seq = seq,
      .t_ns = t,
      .round = -1,
  };
  guint64 round = 0;
  if (get_uint(o, "round", &round))
    rec->round = (gint64)round;
  rec->run_start = strcmp(word, "run") == 0 &&
                   g_strcmp0(stream_json_string_member(o, "event"), "start") == 0;
  r->index++;
  return 1;
}
