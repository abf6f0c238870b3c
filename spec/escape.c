/*
 * spec/escape.c: quoting untrusted text in messages and in JSON strings
 * (one walk over the UTF-8, two styles), and a nesting bound
 * and a one-document check for JSON read from outside.
 *
 * Messages quote input files (a bad token, a bad line): raw, an escape
 * sequence in such a file would reach the user's terminal and could rewrite
 * what it shows. Escaping lives here, in the leaf module, so every loader
 * quotes the same way.
 *
 * json-glib parses recursively: a body nested a few hundred thousand levels
 * deep overflows the stack before the parser can say no, so callers bound
 * the depth with spec_json_depth_ok first.
 */
#include <string.h>

#include "spec/spec.h"

/* Code points a terminal would act on, or that hide or reorder text
 * (bidirectional overrides, zero-width marks): shown as \u{...}. */
static gboolean unicode_hidden(gunichar u) {
  if (!g_unichar_isprint(u))
    return TRUE;
  GUnicodeType t = g_unichar_type(u);
  return t == G_UNICODE_FORMAT || t == G_UNICODE_LINE_SEPARATOR ||
         t == G_UNICODE_PARAGRAPH_SEPARATOR;
}

/* One ASCII byte @c of @style; FALSE when it needs no escape. */
static gboolean escape_ascii(GString *out, unsigned char c, SpecEscapeStyle style) {
  static const char hex[] = "0123456789abcdef";
  gboolean json = style == SPEC_ESCAPE_JSON;
  switch (c) {
  case '\n':
    g_string_append(out, "\\n");
    return TRUE;
  case '\r':
    g_string_append(out, "\\r");
    return TRUE;
  case '\t':
    g_string_append(out, "\\t");
    return TRUE;
  case '"':
  case '\\':
    if (!json)
      return FALSE;
    g_string_append_c(out, '\\');
    g_string_append_c(out, (char)c);
    return TRUE;
  default:
    if (json && c < 0x20) {
      g_string_append(out, "\\u00");
      g_string_append_c(out, hex[c >> 4]);
      g_string_append_c(out, hex[c & 15]);
      return TRUE;
    }
    if (!json && (c < 0x20 || c == 0x7f)) {
      g_string_append_printf(out, "\\x%02x", c);
      return TRUE;
    }
    return FALSE;
  }
}

void spec_escape_append(GString *out, const char *text, gsize len, SpecEscapeStyle style) {
  const char *p = text, *end = text + len;
  while (p < end) {
    unsigned char c = (unsigned char)*p;
    if (c < 0x80) {
      if (!escape_ascii(out, c, style))
        g_string_append_c(out, (char)c);
      p++;
      continue;
    }
    gunichar u = g_utf8_get_char_validated(p, end - p);
    if (u == (gunichar)-1 || u == (gunichar)-2) { /* not UTF-8 */
      if (style == SPEC_ESCAPE_JSON)
        g_string_append(out, "\\ufffd");
      else
        g_string_append_printf(out, "\\x%02x", c); /* the byte itself */
      p++;
      continue;
    }
    const char *next = g_utf8_next_char(p);
    if (style == SPEC_ESCAPE_MESSAGE && unicode_hidden(u))
      g_string_append_printf(out, "\\u{%04x}", (unsigned)u);
    else
      g_string_append_len(out, p, next - p);
    p = next;
  }
}

char *spec_escape(const char *text, gssize len) {
  if (text == NULL)
    return g_strdup("(null)");
  gsize n = len < 0 ? strlen(text) : (gsize)len;
  GString *out = g_string_sized_new(n + 8);
  spec_escape_append(out, text, n, SPEC_ESCAPE_MESSAGE);
  return g_string_free(out, FALSE);
}

gboolean spec_json_depth_ok(const char *text, gsize len, guint max_depth) {
  guint depth = 0;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < len; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        i++; /* the escaped character cannot end the string */
      else if (c == '"')
        in_string = FALSE;
    } else if (c == '"') {
      in_string = TRUE;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return FALSE;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return TRUE;
}

gsize spec_json_first_value_end(const char *text, gsize len) {
  guint64 depth = 0;
  gboolean in_string = FALSE;
  gsize i = 0;
  while (i < len && g_ascii_isspace(text[i]))
    i++;
  if (i == len || (text[i] != '[' && text[i] != '{'))
    return len;
  for (; i < len; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = FALSE;
    } else if (c == '"') {
      in_string = TRUE;
    } else if (c == '[' || c == '{') {
      depth++;
    } else if ((c == ']' || c == '}') && depth > 0 && --depth == 0) {
      break;
    }
  }
  for (i++; i < len; i++)
    if (!g_ascii_isspace(text[i]))
      return i;
  return len;
}
