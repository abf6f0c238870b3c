/*
 * spec/gzread.c: text inputs that may be gzip-compressed (the measured
 * network tables ship as the .gz files their authors published).
 */
#include <string.h>
#include <zlib.h>

#include "spec/spec.h"

/* Inflates the whole of @raw (one or more gzip members) into a NUL-terminated
 * buffer; NULL and an error naming @path when the stream is cut short,
 * corrupt or larger than @max bytes. */
static char *inflate_all(const char *path, const guint8 *raw, gsize raw_len, gsize max,
                         gsize *out_len, GError **error) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 16) != Z_OK) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "%s: cannot start zlib", path);
    return NULL;
  }
  gsize cap = MIN(MAX(raw_len * 4, (gsize)4096), max), len = 0;
  char *buf = g_try_malloc(cap + 1);
  gsize in_done = 0;
  int rc = Z_OK;
  const char *why = NULL;
  char too_large[96];
  g_snprintf(too_large, sizeof too_large,
             "inflates to more than %" G_GSIZE_FORMAT " MB, the most this table can need",
             max >> 20);
  while (buf != NULL && why == NULL) {
    if (len == cap) {
      if (cap >= max) {
        why = max < SPEC_FILE_MAX ? too_large
                                  : "inflates to more than the limit for files read whole";
        break;
      }
      cap = MIN(cap * 2, max);
      char *grown = g_try_realloc(buf, cap + 1);
      if (grown == NULL) {
        why = "inflates to more than the memory available";
        break;
      }
      buf = grown;
    }
    /* zlib counts in uInt: feed and fill at most 1 GiB at a time. */
    z.next_in = (Bytef *)(raw + in_done);
    z.avail_in = (uInt)MIN(raw_len - in_done, (gsize)1 << 30);
    z.next_out = (Bytef *)(buf + len);
    z.avail_out = (uInt)MIN(cap - len, (gsize)1 << 30);
    uInt in_before = z.avail_in, out_before = z.avail_out;
    rc = inflate(&z, Z_NO_FLUSH);
    in_done += in_before - z.avail_in;
    len += out_before - z.avail_out;
    if (rc == Z_STREAM_END) {
      if (in_done == raw_len)
        break;
      /* Another member follows (gzip files may be concatenated). */
      if (inflateReset(&z) != Z_OK)
        why = "is corrupt";
    } else if (rc == Z_BUF_ERROR && in_done == raw_len && z.avail_out > 0) {
      why = "is cut short (the gzip stream ends before its last block)";
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      why = z.msg != NULL ? z.msg : "is corrupt";
    }
  }
  inflateEnd(&z);
  if (buf == NULL || why != NULL) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: gzip file %s", path,
                buf == NULL ? "cannot be inflated: out of memory" : why);
    g_free(buf);
    return NULL;
  }
  buf[len] = '\0';
  *out_len = len;
  return buf;
}

gboolean spec_file_read_text(const char *path, char **contents, gsize *length, GError **error) {
  return spec_file_read_text_max(path, SPEC_FILE_MAX, contents, length, error);
}

gboolean spec_file_read_text_max(const char *path, gsize max, char **contents, gsize *length,
                                 GError **error) {
  g_return_val_if_fail(path != NULL && contents != NULL && max > 0, FALSE);
  *contents = NULL;
  char *raw = NULL;
  gsize raw_len = 0;
  if (!spec_file_read_lines(path, G_MAXSIZE, &raw, &raw_len, error))
    return FALSE;
  gboolean gzipped = raw_len >= 2 && (guint8)raw[0] == 0x1f && (guint8)raw[1] == 0x8b;
  if (!gzipped && raw_len > max) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s: %" G_GSIZE_FORMAT " bytes, more than %" G_GSIZE_FORMAT
                " MB, the most this table can need",
                path, raw_len, max >> 20);
    g_free(raw);
    return FALSE;
  }
  char *text = raw;
  gsize len = raw_len;
  if (gzipped) {
    text = inflate_all(path, (const guint8 *)raw, raw_len, MIN(max, SPEC_FILE_MAX), &len, error);
    g_free(raw);
    if (text == NULL)
      return FALSE;
  }
  if (!spec_check_lines(path, text, len, error)) {
    g_free(text);
    return FALSE;
  }
  /* A UTF-8 byte order mark (spreadsheet exports) is no part of the first
   * line: left in, it hides a header's first column name or makes the first
   * row look like a header. */
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    memmove(text, text + 3, len - 3 + 1);
    len -= 3;
  }
  *contents = text;
  if (length != NULL)
    *length = len;
  return TRUE;
}
