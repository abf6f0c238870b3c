/*
 * sim/json_write.c: the one JSON writer behind every JSON file and output of
 * dpgossip (summaries, `--format json`, the stream's scenario). json-glib's
 * generator is not used because version 1.6 appends ".0" to any double
 * printed without a dot, so 1e20 becomes the invalid `1e+20.0`, and it
 * prints NaN and infinities as bare words; both make files no JSON reader
 * accepts, ours included.
 */
#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "sim/json.h"
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
  g_string_append_c(out, '"');
  spec_escape_append(out, s, strlen(s), SPEC_ESCAPE_JSON);
  g_string_append_c(out, '"');
}

void sim_json_format_double(char buf[SIM_JSON_DOUBLE_BUF], double x) {
  if (!isfinite(x)) {
    g_strlcpy(buf, "null", SIM_JSON_DOUBLE_BUF);
    return;
  }
  /* Shortest of %.15g..%.17g that reads back to the same double: short for
   * values like 0.1, exact for every double. */
  for (int prec = 15; prec <= 17; prec++) {
    char fmt[8];
    g_snprintf(fmt, sizeof fmt, "%%.%dg", prec);
    g_ascii_formatd(buf, SIM_JSON_DOUBLE_BUF - 2, fmt, x);
    if (prec == 17 || g_ascii_strtod(buf, NULL) == x)
      break;
  }
  /* An integral value keeps a fraction so readers that type numbers (Python,
   * jq) still see a double; an exponent already makes it one. */
  if (strpbrk(buf, ".e") == NULL)
    strcat(buf, ".0");
}

static void newline(GString *out, guint indent, guint level) {
  if (indent == 0)
    return;
  g_string_append_c(out, '\n');
  for (guint i = 0; i < indent * level; i++)
    g_string_append_c(out, ' ');
}

static void write_node(GString *out, JsonNode *node, guint indent, guint level);

static void write_value(GString *out, JsonNode *node) {
  switch (json_node_get_value_type(node)) {
  case G_TYPE_INT64: {
    gint64 v = json_node_get_int(node);
    g_string_append_printf(out, "%" G_GINT64_FORMAT, v);
    break;
  }
  case G_TYPE_DOUBLE: {
    char buf[SIM_JSON_DOUBLE_BUF];
    sim_json_format_double(buf, json_node_get_double(node));
    g_string_append(out, buf);
    break;
  }
  case G_TYPE_BOOLEAN:
    g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
    break;
  case G_TYPE_STRING:
    sim_json_append_string(out, json_node_get_string(node));
    break;
  default: /* json-glib holds no other value types */
    g_string_append(out, "null");
  }
}

static void write_node(GString *out, JsonNode *node, guint indent, guint level) {
  switch (node ? JSON_NODE_TYPE(node) : JSON_NODE_NULL) {
  case JSON_NODE_OBJECT: {
    JsonObjectIter it;
    const char *key;
    JsonNode *member;
    gboolean first = TRUE;
    g_string_append_c(out, '{');
    /* Insertion order, as the builders give it: the files read like their
     * documentation and stay byte-identical between runs. */
    json_object_iter_init_ordered(&it, json_node_get_object(node));
    while (json_object_iter_next_ordered(&it, &key, &member)) {
      if (!first)
        g_string_append_c(out, ',');
      first = FALSE;
      newline(out, indent, level + 1);
      sim_json_append_string(out, key);
      g_string_append(out, indent ? " : " : ":");
      write_node(out, member, indent, level + 1);
    }
    if (!first)
      newline(out, indent, level);
    g_string_append_c(out, '}');
    break;
  }
  case JSON_NODE_ARRAY: {
    JsonArray *a = json_node_get_array(node);
    guint n = json_array_get_length(a);
    g_string_append_c(out, '[');
    for (guint i = 0; i < n; i++) {
      if (i)
        g_string_append_c(out, ',');
      newline(out, indent, level + 1);
      write_node(out, json_array_get_element(a, i), indent, level + 1);
    }
    if (n)
      newline(out, indent, level);
    g_string_append_c(out, ']');
    break;
  }
  case JSON_NODE_VALUE:
    write_value(out, node);
    break;
  case JSON_NODE_NULL:
  default:
    g_string_append(out, "null");
  }
}

char *sim_json_write(JsonNode *root, guint indent) {
  GString *out = g_string_new(NULL);
  write_node(out, root, indent, 0);
  return g_string_free(out, FALSE);
}
