/*
 * spec/escape.c: quoting untrusted text in messages, and a nesting bound
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

char *spec_escape(const char *text, gssize len) {
  if (text == NULL)
    return g_strdup("(null)");
  gsize n = len < 0 ? strlen(text) : (gsize)len;
  GString *out = g_string_sized_new(n + 8);
  const char *p = text, *end = text + n;
  while (p < end) {
    unsigned char c = (unsigned char)*p;
    if (c < 0x80) {
      switch (c) {
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
        if (c < 0x20 || c == 0x7f)
          g_string_append_printf(out, "\\x%02x", c);
        else
          g_string_append_c(out, (char)c);
      }
      p++;
      continue;
    }
    gunichar u = g_utf8_get_char_validated(p, end - p);
    if (u == (gunichar)-1 || u == (gunichar)-2) { /* not UTF-8: the byte itself */
      g_string_append_printf(out, "\\x%02x", c);
      p++;
      continue;
    }
    const char *next = g_utf8_next_char(p);
    if (unicode_hidden(u))
      g_string_append_printf(out, "\\u{%04x}", (unsigned)u);
    else
      g_string_append_len(out, p, next - p);
    p = next;
  }
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
