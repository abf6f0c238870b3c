/*
 * tests/common/run_json.h: tests/common/run.h and a run's stdout parsed as
 * JSON. Header-only. Apart from run.h because json-glib's header brings
 * GIO's with it: the 23 test sources that read no JSON compiled in 8.0 CPU
 * s without them, 10.7 s with them (Release flags).
 */
#ifndef DPG_TESTS_COMMON_RUN_JSON_H
#define DPG_TESTS_COMMON_RUN_JSON_H

#include <json-glib/json-glib.h>

#include "tests/common/run.h"

/* Parses r->out as a JSON object; the returned parser owns the node. */
static inline JsonObject *cli_run_json(const CliRun *r, JsonParser **parser) {
  GError *error = NULL;
  *parser = json_parser_new();
  json_parser_load_from_data(*parser, r->out, -1, &error);
  g_assert_no_error(error);
  JsonNode *root = json_parser_get_root(*parser);
  g_assert_true(JSON_NODE_HOLDS_OBJECT(root));
  return json_node_get_object(root);
}

#endif
