/*
 * cli/json.c: the one way the commands build JSON: members added by key
 * (NULL: an array element) on a JsonBuilder, text through sim_json_write
 * (shortest round-trip numbers, null for what is not finite). Before, each
 * command had its own add_number/JSTR/JNUM twins around json-glib.
 */
#include <math.h>

#include "cli/cli.h"

static void key(JsonBuilder *b, const char *k) {
  if (k != NULL)
    json_builder_set_member_name(b, k);
}

void cli_json_int(JsonBuilder *b, const char *k, gint64 v) {
  key(b, k);
  json_builder_add_int_value(b, v);
}

void cli_json_node(JsonBuilder *b, const char *k, const TopoGraph *g, guint id) {
  const char *label = g != NULL ? topo_graph_node_label(g, id) : NULL;
  if (label != NULL)
    cli_json_string(b, k, label);
  else
    cli_json_int(b, k, id);
}

void cli_json_number(JsonBuilder *b, const char *k, double v) {
  key(b, k);
  if (isfinite(v))
    json_builder_add_double_value(b, v);
  else
    json_builder_add_null_value(b); /* inf (unprotected) and NaN: never a number */
}

void cli_json_string(JsonBuilder *b, const char *k, const char *v) {
  key(b, k);
  if (v != NULL)
    json_builder_add_string_value(b, v);
  else
    json_builder_add_null_value(b);
}

void cli_json_bool(JsonBuilder *b, const char *k, gboolean v) {
  key(b, k);
  json_builder_add_boolean_value(b, v);
}

void cli_json_null(JsonBuilder *b, const char *k) {
  key(b, k);
  json_builder_add_null_value(b);
}

void cli_json_begin_object(JsonBuilder *b, const char *k) {
  key(b, k);
  json_builder_begin_object(b);
}

void cli_json_begin_array(JsonBuilder *b, const char *k) {
  key(b, k);
  json_builder_begin_array(b);
}

char *cli_json_text(JsonBuilder *b, guint indent) {
  JsonNode *root = json_builder_get_root(b);
  char *text = sim_json_write(root, indent);
  json_node_unref(root);
  g_object_unref(b);
  return text;
}

void cli_json_print(JsonBuilder *b) {
  char *text = cli_json_text(b, 2);
  fputs(text, stdout);
  fputc('\n', stdout);
  g_free(text);
}
