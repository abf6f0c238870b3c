/*
 * stream/json.c: the checks the stream applies to JSON from outside (a
 * trace, a replayed body) before json-glib parses it. The bodies it writes
 * go through sim/json.h's sim_json_append_* writers.
 */
#include <string.h>

#include "stream/internal.h"
#include "spec/spec.h"

gboolean stream_topic_is_valid(const char *topic, gsize len) {
  if (len == 0 || len > 32)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!((topic[i] >= 'a' && topic[i] <= 'z') || topic[i] == '_'))
      return FALSE;
  return TRUE;
}

gboolean stream_json_body_bounded(const char *body, gsize len, const char **why) {
  if (len > STREAM_JSON_MAX_BODY) {
    *why = "the body is larger than 64 MiB";
    return FALSE;
  }
  if (!spec_json_depth_ok(body, len, STREAM_JSON_MAX_DEPTH)) {
    *why = "the body nests arrays and objects more than 64 deep";
    return FALSE;
  }
  return TRUE;
}

const char *stream_json_string_member(JsonObject *o, const char *key) {
  JsonNode *n = json_object_get_member(o, key);
  const char *v = n != NULL && json_node_get_value_type(n) == G_TYPE_STRING
                      ? json_node_get_string(n)
                      : NULL;
  return v != NULL ? v : "";
}
