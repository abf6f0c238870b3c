/*
 * sim/stream_json.c: the few JSON writers the stream needs. Bodies are built
 * with these rather than json-glib because the bus path formats one body per
 * sampled transmission; the output is the same JSON a generator would give,
 * byte-deterministic and independent of the C locale.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/stream_internal.h"
#include "spec/spec.h"

void sim_json_append_u64(GString *out, guint64 x) {
  char buf[24];
  int i = (int)sizeof buf;
  do {
    buf[--i] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  g_string_append_len(out, buf + i, (gssize)sizeof buf - i);
}

void sim_json_append_double(GString *out, double x) {
  if (!isfinite(x)) {
    g_string_append(out, "null");
    return;
  }
  if (x == 0.0) { /* -0 reads back as 0 in JSON consumers anyway */
    g_string_append_c(out, '0');
    return;
  }
  /* Shortest of %.15g..%.17g that round-trips: short for values like 0.1,
   * exact for every double. */
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int prec = 15; prec <= 17; prec++) {
    char fmt[8];
    g_snprintf(fmt, sizeof fmt, "%%.%dg", prec);
    g_ascii_formatd(buf, sizeof buf, fmt, x);
    if (prec == 17 || g_ascii_strtod(buf, NULL) == x)
      break;
  }
  g_string_append(out, buf);
}

void sim_json_append_string(GString *out, const char *s) {
  static const char hex[] = "0123456789abcdef";
  g_string_append_c(out, '"');
  const char *p = s;
  const char *end = s + strlen(s);
  while (p < end) {
    unsigned char c = (unsigned char)*p;
    if (c < 0x80) {
      switch (c) {
      case '"':
        g_string_append(out, "\\\"");
        break;
      case '\\':
        g_string_append(out, "\\\\");
        break;
      case '\n':
        g_string_append(out, "\\n");
        break;
      case '\r':
        g_string_append(out, "\\r");
        break;
      case '\t':
        g_string_append(out, "\\t");
        break;
      default:
        if (c < 0x20) {
          g_string_append(out, "\\u00");
          g_string_append_c(out, hex[c >> 4]);
          g_string_append_c(out, hex[c & 15]);
        } else {
          g_string_append_c(out, (char)c);
        }
      }
      p++;
      continue;
    }
    gunichar u = g_utf8_get_char_validated(p, end - p);
    if (u == (gunichar)-1 || u == (gunichar)-2) {
      g_string_append(out, "\\ufffd");
      p++;
    } else {
      const char *next = g_utf8_next_char(p);
      g_string_append_len(out, p, next - p);
      p = next;
    }
  }
  g_string_append_c(out, '"');
}

gboolean sim_stream_topic_is_valid(const char *topic, gsize len) {
  if (len == 0 || len > 32)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!((topic[i] >= 'a' && topic[i] <= 'z') || topic[i] == '_'))
      return FALSE;
  return TRUE;
}

gboolean sim_json_body_bounded(const char *body, gsize len, const char **why) {
  if (len > SIM_JSON_MAX_BODY) {
    *why = "the body is larger than 64 MiB";
    return FALSE;
  }
  if (!spec_json_depth_ok(body, len, SIM_JSON_MAX_DEPTH)) {
    *why = "the body nests arrays and objects more than 64 deep";
    return FALSE;
  }
  return TRUE;
}

const char *sim_json_string_member(JsonObject *o, const char *key) {
  JsonNode *n = json_object_get_member(o, key);
  const char *v = n != NULL && json_node_get_value_type(n) == G_TYPE_STRING
                      ? json_node_get_string(n)
                      : NULL;
  return v != NULL ? v : "";
}
