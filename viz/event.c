/*
 * viz/event.c: the checks an event from the stream passes before the server
 * relays it. Kept apart from the server so the fuzz target
 * (tests/fuzz/fuzz_trace.c) can drive them without a server.
 */
#include <string.h>

#include <json-glib/json-glib.h>

#include "spec/spec.h"
#include "viz/viz_internal.h"

gboolean viz_event_body_ok(const char *topic, const char *body, gsize len) {
  gsize tl = strlen(topic);
  if (tl == 0 || tl > 32)
    return FALSE;
  for (gsize i = 0; i < tl; i++)
    if (!((topic[i] >= 'a' && topic[i] <= 'z') || topic[i] == '_'))
      return FALSE;
  return len >= 2 && body[0] == '{' && body[len - 1] == '}' && memchr(body, '\n', len) == NULL &&
         memchr(body, '\r', len) == NULL && g_utf8_validate(body, (gssize)len, NULL);
}

const char *viz_run_event_kind(const char *body, gsize len, char *buf, gsize buf_len) {
  if (!spec_json_depth_ok(body, len, VIZ_EVENT_MAX_DEPTH))
    return NULL;
  JsonParser *p = json_parser_new();
  const char *out = NULL;
  if (json_parser_load_from_data(p, body, (gssize)len, NULL)) {
    JsonNode *root = json_parser_get_root(p);
    if (root != NULL && JSON_NODE_HOLDS_OBJECT(root)) {
      /* Not the _with_default getter: it gives NULL for a non-string. */
      JsonNode *ev = json_object_get_member(json_node_get_object(root), "event");
      const char *s = ev != NULL && json_node_get_value_type(ev) == G_TYPE_STRING
                          ? json_node_get_string(ev)
                          : NULL;
      g_strlcpy(buf, s != NULL ? s : "", buf_len);
      out = buf;
    }
  }
  g_object_unref(p);
  return out;
}
