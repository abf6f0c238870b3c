/*
 * tests/spec/test_spec.c: the "name[:head][,key=value]..." parser and its
 * typed getters: values, defaults, every malformed form, and errors raised
 * in the domain and codes the caller gave.
 */
#include <string.h>

#include "spec/spec.h"

#define DOMAIN g_quark_from_static_string("spec-test")
enum { PARSE = 7, RANGE = 9 };

static Spec *ok(const char *text, gboolean head) {
  GError *err = NULL;
  Spec *s = spec_parse(text, "thing", head, DOMAIN, PARSE, RANGE, &err);
  g_assert_no_error(err);
  g_assert_nonnull(s);
  return s;
}

static void bad(const char *text, gboolean head, const char *needle) {
  GError *err = NULL;
  g_assert_null(spec_parse(text, "thing", head, DOMAIN, PARSE, RANGE, &err));
  g_assert_error(err, DOMAIN, PARSE);
  if (strstr(err->message, needle) == NULL)
    g_error("'%s' lacks '%s'", err->message, needle);
  g_error_free(err);
}

static void test_parse(void) {
  Spec *s = ok(" erdos : n = 100 ,p=0.05,connected=yes", FALSE);
  g_assert_cmpstr(s->name, ==, "erdos");
  g_assert_null(s->head);
  g_assert_cmpuint(s->keys->len, ==, 3);
  g_assert_cmpstr(spec_get(s, "n"), ==, "100");
  g_assert_cmpstr(spec_get(s, "p"), ==, "0.05");
  g_assert_null(spec_get(s, "q"));
  spec_free(s);
  s = ok("csv:data/x.csv,label=3", TRUE);
  g_assert_cmpstr(s->head, ==, "data/x.csv");
  g_assert_cmpstr(spec_get(s, "label"), ==, "3");
  spec_free(s);
  s = ok("ring", FALSE);
  g_assert_cmpuint(s->keys->len, ==, 0);
  spec_free(s);
  bad("", FALSE, "empty thing spec");
  bad(":n=3", FALSE, "has no name before ':'");
  bad("csv", TRUE, "needs 'csv:' followed by a path or kind");
  bad("csv:", TRUE, "nothing after 'csv:'");
  bad("ring:n", FALSE, "parameter 'n' is not of the form key=value");
  bad("ring:=3", FALSE, "parameter '=3' is not of the form key=value");
  bad("ring:n=3,n=4", FALSE, "parameter 'n' given twice");
}

static void test_values(void) {
  Spec *s = ok("g:n=12,p=0.25,b=no,big=18446744073709551615,neg=-1,x=1e400,w=maybe", FALSE);
  GError *err = NULL;
  guint64 u = 0;
  double d = 0;
  gboolean b = TRUE;
  g_assert_true(spec_uint(s, "n", 5, 1, 100, &u, &err) && u == 12);
  g_assert_true(spec_uint(s, "absent", 5, 1, 100, &u, &err) && u == 5);
  g_assert_true(spec_uint(s, "big", 0, 0, G_MAXUINT64, &u, &err) && u == G_MAXUINT64);
  g_assert_true(spec_double(s, "p", 0, 0, 1, &d, &err) && d == 0.25);
  g_assert_true(spec_bool(s, "b", TRUE, &b, &err) && !b);
  g_assert_no_error(err);
  g_assert_false(spec_uint(s, "n", 5, 20, 100, &u, &err));
  g_assert_error(err, DOMAIN, RANGE);
  g_assert_nonnull(strstr(err->message, "g: parameter n=12 is out of range [20, 100]"));
  g_clear_error(&err);
  g_assert_false(spec_uint(s, "neg", 0, 0, 9, &u, &err));
  g_assert_error(err, DOMAIN, PARSE);
  g_assert_nonnull(strstr(err->message, "neg='-1' is not a non-negative integer"));
  g_clear_error(&err);
  g_assert_false(spec_double(s, "x", 0, 0, 1, &d, &err));
  g_assert_error(err, DOMAIN, PARSE);
  g_clear_error(&err);
  g_assert_false(spec_double(s, "p", 0, 0.5, 1, &d, &err));
  g_assert_error(err, DOMAIN, RANGE);
  g_clear_error(&err);
  g_assert_false(spec_bool(s, "w", TRUE, &b, &err));
  g_assert_error(err, DOMAIN, PARSE);
  g_assert_nonnull(strstr(err->message, "w='maybe' is not a boolean"));
  g_clear_error(&err);
  spec_free(s);
}

static void test_check(void) {
  Spec *s = ok("g:n=3,p=0.5", FALSE);
  GError *err = NULL;
  const char *valid[] = {"n", "p", "seed", NULL}, *req[] = {"n", NULL}, *req2[] = {"seed", NULL};
  const char *narrow[] = {"n", NULL};
  g_assert_true(spec_check(s, "generator", valid, req, &err));
  g_assert_no_error(err);
  g_assert_false(spec_check(s, "generator", valid, req2, &err));
  g_assert_error(err, DOMAIN, PARSE);
  g_assert_nonnull(strstr(err->message, "generator 'g' requires parameter 'seed' (valid "
                                        "parameters: n, p, seed)"));
  g_clear_error(&err);
  g_assert_false(spec_check(s, "generator", narrow, NULL, &err));
  g_assert_nonnull(strstr(err->message, "has no parameter 'p' (valid parameters: n)"));
  g_clear_error(&err);
  g_assert_false(spec_check(s, "generator", NULL, NULL, &err));
  g_assert_nonnull(strstr(err->message, "(valid parameters: none)"));
  g_clear_error(&err);
  spec_free(s);
}

/* Input quoted in messages: printable UTF-8 kept, everything a terminal
 * would act on or that is not text shown as an escape. */
static void test_escape(void) {
  static const struct {
    const char *in;
    gssize len;
    const char *out;
  } cases[] = {
      {"plain text, caf\xc3\xa9", -1, "plain text, caf\xc3\xa9"},
      {"\x1b[2J\x1b]0;pwned\x07", -1, "\\x1b[2J\\x1b]0;pwned\\x07"},
      {"a\nb\tc\rd\x7f", -1, "a\\nb\\tc\\rd\\x7f"},
      {"bad \xff\xfe utf8 \xc3", -1, "bad \\xff\\xfe utf8 \\xc3"},
      {"c1 \xc2\x9b csi", -1, "c1 \\u{009b} csi"},
      {"rtl \xe2\x80\xae override", -1, "rtl \\u{202e} override"},
      {"nul\0inside", 10, "nul\\x00inside"},
      {"", -1, ""},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *got = spec_escape(cases[i].in, cases[i].len);
    g_assert_cmpstr(got, ==, cases[i].out);
    g_free(got);
  }
  char *n = spec_escape(NULL, -1);
  g_assert_cmpstr(n, ==, "(null)");
  g_free(n);
}

/* Offsets counted by hand: a second document, a brace inside a string, an
 * escaped quote, and text the parser must judge itself. */
static void test_json_first_value_end(void) {
  const char *two = "{\"a\": 1}\n [2]";
  g_assert_cmpuint(spec_json_first_value_end(two, strlen(two)), ==, 10);
  const char *one = " {\"a\": \"}\\\"{\"} \n\t";
  g_assert_cmpuint(spec_json_first_value_end(one, strlen(one)), ==, strlen(one));
  const char *tail = "[[1], [2]]x";
  g_assert_cmpuint(spec_json_first_value_end(tail, strlen(tail)), ==, 10);
  const char *scalar = "1 2";
  g_assert_cmpuint(spec_json_first_value_end(scalar, 3), ==, 3);
  const char *open = "{\"a\": [1}";
  g_assert_cmpuint(spec_json_first_value_end(open, strlen(open)), ==, strlen(open));
}

static void test_json_depth(void) {
  g_assert_true(spec_json_depth_ok("{\"a\":[1,{\"b\":2}]}", 17, 3));
  g_assert_false(spec_json_depth_ok("{\"a\":[1,{\"b\":2}]}", 17, 2));
  /* Brackets inside strings, escaped quotes included, do not count. */
  const char *s = "{\"k\":\"[[[{{\\\"[[\"}";
  g_assert_true(spec_json_depth_ok(s, strlen(s), 1));
  /* Depth is nesting, not the number of brackets. */
  GString *flat = g_string_new("[");
  for (int i = 0; i < 1000; i++)
    g_string_append(flat, "[],");
  g_string_append(flat, "[]]");
  g_assert_true(spec_json_depth_ok(flat->str, flat->len, 2));
  g_string_free(flat, TRUE);
  gsize deep = 300000;
  char *d = g_malloc(2 * deep);
  memset(d, '[', deep);
  memset(d + deep, ']', deep);
  g_assert_false(spec_json_depth_ok(d, 2 * deep, 64));
  g_assert_true(spec_json_depth_ok(d, 2 * deep, (guint)deep));
  g_free(d);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spec/parse", test_parse);
  g_test_add_func("/spec/values", test_values);
  g_test_add_func("/spec/check", test_check);
  g_test_add_func("/spec/escape", test_escape);
  g_test_add_func("/spec/json-depth", test_json_depth);
  g_test_add_func("/spec/json-first-value-end", test_json_first_value_end);
  return g_test_run();
}
