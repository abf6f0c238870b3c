/*
 * tests/sim/test_json_write.c: sim_json_write and sim_json_format_double, the
 * JSON writer behind every JSON output (json-glib 1.6 printed 1e20
 * as the invalid `1e+20.0` and NaN as a bare word). Numbers are checked
 * against a second reader (json-glib's parser) and strtod, the layout against
 * literal text.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "sim/sim.h"

static char *fmt(double x) {
  char buf[SIM_JSON_DOUBLE_BUF];
  sim_json_format_double(buf, x);
  return g_strdup(buf);
}

static void test_numbers(void) {
  const struct {
    double x;
    const char *text;
  } cases[] = {
      {1e20, "1e+20"},
      {1e21, "1e+21"},
      {0.1, "0.1"},
      {3.0, "3.0"},
      {-2.0, "-2.0"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1e-300, "1e-300"},
      {1.0 / 3, "0.3333333333333333"},
      {DBL_MAX, "1.7976931348623157e+308"},
      {5e-324, "4.94065645841247e-324"},
      {123456789012345.0, "123456789012345.0"},
      {NAN, "null"},
      {INFINITY, "null"},
      {-INFINITY, "null"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *t = fmt(cases[i].x);
    g_assert_cmpstr(t, ==, cases[i].text);
    g_free(t);
  }
}

/* Random doubles over the whole exponent range: each text is a JSON number
 * json-glib parses back to the very same double, and %.15g when that suffices. */
static void test_round_trip(void) {
  GRand *rng = g_rand_new_with_seed(12);
  for (guint i = 0; i < 20000; i++) {
    union {
      guint64 u;
      double d;
    } v;
    v.u = ((guint64)g_rand_int(rng) << 32) | g_rand_int(rng);
    if (!isfinite(v.d))
      continue;
    char *t = fmt(v.d);
    char *doc = g_strdup_printf("[%s]", t);
    JsonParser *p = json_parser_new();
    GError *error = NULL;
    json_parser_load_from_data(p, doc, -1, &error);
    g_assert_no_error(error);
    JsonNode *n = json_array_get_element(json_node_get_array(json_parser_get_root(p)), 0);
    g_assert_cmpint(json_node_get_value_type(n), ==, G_TYPE_DOUBLE);
    double back = json_node_get_double(n);
    g_assert_true(memcmp(&back, &v.d, sizeof back) == 0);
    /* Shortest: when %.15g already reads back, it is the text (plus ".0"
     * for an integral value). */
    char shorter[64];
    g_ascii_formatd(shorter, sizeof shorter, "%.15g", v.d);
    if (g_ascii_strtod(shorter, NULL) == v.d)
      g_assert_true(g_str_has_prefix(t, shorter) &&
                    (t[strlen(shorter)] == '\0' || g_str_equal(t + strlen(shorter), ".0")));
    g_object_unref(p);
    g_free(doc);
    g_free(t);
  }
  g_rand_free(rng);
}

static JsonNode *sample(void) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "sigma");
  json_builder_add_double_value(b, 1e20);
  json_builder_set_member_name(b, "eps");
  json_builder_add_double_value(b, NAN);
  json_builder_set_member_name(b, "n");
  json_builder_add_int_value(b, -7);
  json_builder_set_member_name(b, "e");
  json_builder_begin_array(b);
  json_builder_end_array(b);
  json_builder_set_member_name(b, "o");
  json_builder_begin_object(b);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "a\"\n");
  json_builder_begin_array(b);
  json_builder_add_boolean_value(b, TRUE);
  json_builder_add_null_value(b);
  json_builder_add_string_value(b, "x\x01\xff");
  json_builder_end_array(b);
  json_builder_end_object(b);
  JsonNode *root = json_builder_get_root(b);
  g_object_unref(b);
  return root;
}

static void test_layout(void) {
  JsonNode *root = sample();
  char *flat = sim_json_write(root, 0);
  g_assert_cmpstr(flat, ==,
                  "{\"sigma\":1e+20,\"eps\":null,\"n\":-7,\"e\":[],\"o\":{},"
                  "\"a\\\"\\n\":[true,null,\"x\\u0001\\ufffd\"]}");
  char *pretty = sim_json_write(root, 2);
  g_assert_cmpstr(pretty, ==,
                  "{\n  \"sigma\" : 1e+20,\n  \"eps\" : null,\n  \"n\" : -7,\n  \"e\" : [],\n"
                  "  \"o\" : {},\n  \"a\\\"\\n\" : [\n    true,\n    null,\n"
                  "    \"x\\u0001\\ufffd\"\n  ]\n}");
  /* Both read back, with the numbers intact. */
  for (guint i = 0; i < 2; i++) {
    JsonParser *p = json_parser_new();
    GError *error = NULL;
    json_parser_load_from_data(p, i ? pretty : flat, -1, &error);
    g_assert_no_error(error);
    JsonObject *o = json_node_get_object(json_parser_get_root(p));
    g_assert_cmpfloat(json_object_get_double_member(o, "sigma"), ==, 1e20);
    g_assert_true(json_object_get_null_member(o, "eps"));
    g_object_unref(p);
  }
  char *none = sim_json_write(NULL, 1);
  g_assert_cmpstr(none, ==, "null");
  g_free(none);
  g_free(pretty);
  g_free(flat);
  json_node_unref(root);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sim/json-write/numbers", test_numbers);
  g_test_add_func("/sim/json-write/round-trip", test_round_trip);
  g_test_add_func("/sim/json-write/layout", test_layout);
  return g_test_run();
}
