/*
 * tests/scenarios/test_parse.c: the syntax layer and the key table alone:
 * trailing comments and escapes, lists, line numbers, overrides, edit
 * distance, sweep expansion and point order, number formatting that reads
 * back exactly.
 */
#include <math.h>

#include "scenarios/internal.h"

static void test_comments_escapes(void) {
  const char *text = "# head\n[simulation]\nname = a#b   # trailing\nseed = 7# not a comment\n"
                     "mode = x \\# y\n  [topology]  # c\ngenerate=florentine\r\n";
  ScenDoc *doc = scen_doc_load_data(text, strlen(text), "/d/t.ini", NULL);
  g_assert_cmpuint(scen_problems_count(doc->syntax), ==, 0);
  g_assert_cmpstr(scen_doc_get_raw(doc, "simulation", "name", NULL), ==, "a#b");
  g_assert_cmpstr(scen_doc_get_raw(doc, "simulation", "seed", NULL), ==, "7# not a comment");
  char *v = scen_unescape(scen_doc_get_raw(doc, "simulation", "mode", NULL));
  g_assert_cmpstr(v, ==, "x # y");
  g_free(v);
  g_assert_cmpstr(scen_doc_get_raw(doc, "topology", "generate", NULL), ==, "florentine");
  g_assert_cmpuint(scen_doc_key_line(doc, "simulation", "mode"), ==, 5);
  g_assert_cmpuint(scen_doc_section_line(doc, "topology"), ==, 6);
  g_assert_cmpstr(doc->dir, ==, "/d");
  /* Overrides win and carry their own location. */
  GError *error = NULL;
  g_assert_true(scen_doc_add_override(doc, "simulation.seed = 9", &error));
  ScenLoc loc;
  g_assert_cmpstr(scen_doc_get_raw(doc, "simulation", "seed", &loc), ==, "9");
  g_assert_cmpstr(loc.file, ==, "--set");
  g_assert_cmpuint(loc.line, ==, 1);
  scen_doc_free(doc);
}

static void test_lists(void) {
  char **l = scen_split_list("a; b ;c\\;d;");
  g_assert_cmpuint(g_strv_length(l), ==, 3);
  g_assert_cmpstr(l[0], ==, "a");
  g_assert_cmpstr(l[1], ==, "b");
  g_assert_cmpstr(l[2], ==, "c;d");
  g_strfreev(l);
  l = scen_split_list("");
  g_assert_cmpuint(g_strv_length(l), ==, 1);
  g_strfreev(l);
  char *u = scen_unescape("p\\\\q\\sx\\z");
  g_assert_cmpstr(u, ==, "p\\q x\\z");
  g_free(u);
}

static void test_split_key(void) {
  char *s, *k;
  g_assert_true(scen_doc_split_key("collusion.pair.nodes", &s, &k));
  g_assert_cmpstr(s, ==, "collusion.pair");
  g_assert_cmpstr(k, ==, "nodes");
  g_free(s);
  g_free(k);
  g_assert_true(scen_doc_split_key("sweep.protocol.mu", &s, &k));
  g_assert_cmpstr(s, ==, "sweep");
  g_assert_cmpstr(k, ==, "protocol.mu");
  g_free(s);
  g_free(k);
  g_assert_false(scen_doc_split_key("nodot", &s, &k));
  g_assert_false(scen_doc_split_key("a.", &s, &k));
}

static void test_edit_distance(void) {
  g_assert_cmpuint(scen_edit_distance("rounds", "rouns"), ==, 1);
  g_assert_cmpuint(scen_edit_distance("kitten", "sitting"), ==, 3);
  g_assert_cmpuint(scen_edit_distance("", "abc"), ==, 3);
  g_assert_cmpuint(scen_edit_distance("same", "same"), ==, 0);
  char *h = scen_schema_suggest_key("privacy", "particpation_interval");
  g_assert_cmpstr(h, ==, " (did you mean 'participation_interval'?)");
  g_free(h);
  h = scen_schema_suggest_section("netwrk");
  g_assert_cmpstr(h, ==, " (did you mean [network]?)");
  g_free(h);
}

static void test_sweep_expansion(void) {
  const char *text = "[sweep]\nprotocol.name = dsgd;mafalda\nsimulation.seed = 421..423\n"
                     "collusion.x.nodes = 0;1 | 5\n";
  ScenDoc *doc = scen_doc_load_data(text, strlen(text), "t.ini", "/");
  ScenProblems *ps = scen_problems_new();
  GPtrArray *axes = scen_sweep_axes(doc, ps);
  g_assert_cmpuint(scen_problems_count(ps), ==, 0);
  g_assert_cmpuint(axes->len, ==, 3);
  g_assert_cmpuint(scen_sweep_count(axes), ==, 12);
  const ScenSweepAxis *seed = g_ptr_array_index(axes, 1);
  g_assert_cmpuint(seed->n_items, ==, 3);
  g_assert_cmpstr(seed->items[2], ==, "423");
  const ScenSweepAxis *nodes = g_ptr_array_index(axes, 2);
  g_assert_cmpstr(nodes->items[0], ==, "0;1");
  g_assert_cmpstr(nodes->section, ==, "collusion.x");
  /* The first axis varies slowest, the last fastest. */
  guint it[3];
  scen_sweep_point(axes, 0, it);
  g_assert_true(it[0] == 0 && it[1] == 0 && it[2] == 0);
  scen_sweep_point(axes, 1, it);
  g_assert_true(it[0] == 0 && it[1] == 0 && it[2] == 1);
  scen_sweep_point(axes, 7, it);
  g_assert_true(it[0] == 1 && it[1] == 0 && it[2] == 1);
  g_ptr_array_unref(axes);
  scen_problems_free(ps);
  scen_doc_free(doc);
}

static void test_format_double(void) {
  struct {
    double x;
    const char *s;
  } cases[] = {{0.1, "0.1"}, {10, "10"},      {1e-6, "1e-06"},          {2.5, "2.5"},
               {-3, "-3"},   {1e20, "1e+20"}, {123456789, "123456789"}, {0, "0"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *s = scen_format_double(cases[i].x);
    g_assert_cmpstr(s, ==, cases[i].s);
    g_free(s);
  }
  /* Every value reads back exactly. */
  double xs[] = {1.0 / 3, M_PI, 4.88655411746221e-07, 0.1 + 0.2, 1e300};
  for (guint i = 0; i < G_N_ELEMENTS(xs); i++) {
    char *s = scen_format_double(xs[i]);
    g_assert_cmpfloat(g_ascii_strtod(s, NULL), ==, xs[i]);
    g_free(s);
  }
  char *s = scen_format_double(INFINITY);
  g_assert_cmpstr(s, ==, "inf");
  g_free(s);
  s = scen_format_double(NAN);
  g_assert_cmpstr(s, ==, "nan");
  g_free(s);
}

static void test_schema_table(void) {
  guint n;
  const ScenKeyInfo *k = scen_schema_keys(&n);
  g_assert_cmpuint(n, >, 25);
  for (guint i = 0; i < n; i++) {
    /* Every default value passes its own checks. */
    if (k[i].def != NULL) {
      char *msg = NULL;
      if (!scen_value_check(&k[i], k[i].def, &msg))
        g_error("%s.%s default '%s': %s", k[i].section, k[i].key, k[i].def, msg);
    }
    g_assert_true(scen_schema_is_section(g_str_equal(k[i].section, "collusion.*") ? "collusion.x"
                                                                                  : k[i].section));
  }
  g_assert_nonnull(scen_schema_find("collusion.anything", "nodes"));
  g_assert_null(scen_schema_find("protocol", "nodes"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/scenarios/parse/comments-escapes", test_comments_escapes);
  g_test_add_func("/scenarios/parse/lists", test_lists);
  g_test_add_func("/scenarios/parse/split-key", test_split_key);
  g_test_add_func("/scenarios/parse/edit-distance", test_edit_distance);
  g_test_add_func("/scenarios/parse/sweep-expansion", test_sweep_expansion);
  g_test_add_func("/scenarios/parse/format-double", test_format_double);
  g_test_add_func("/scenarios/parse/schema-table", test_schema_table);
  return g_test_run();
}
