/*
 * tests/spec/test_attackers.c: the one attacker-set grammar of the command
 * line and scenario files: every accepted form with the sets it gives,
 * every refused form with its message, the older ';' of scenario files, the
 * graph check and the expansion of "all".
 */
#include <string.h>

#include "spec/spec.h"

#define DOMAIN g_quark_from_static_string("attackers-test")
enum { CODE = 5 };

/* The sets of @a on a graph of @n nodes, as "0|3+11|..." (g_free). */
static char *sets_text(const SpecAttackers *a, guint n) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < spec_attackers_n_sets(a, n); i++) {
    char *l = spec_attackers_label(a, i);
    g_string_append_printf(s, "%s%s", i ? "|" : "", l);
    g_free(l);
  }
  return g_string_free(s, FALSE);
}

static void good(const char *text, guint flags, const char *want) {
  SpecAttackers a;
  GError *err = NULL;
  spec_attackers_init(&a);
  g_assert_true(spec_attackers_parse(&a, text, flags, DOMAIN, CODE, &err));
  g_assert_no_error(err);
  char *got = sets_text(&a, 4);
  g_assert_cmpstr(got, ==, want);
  g_free(got);
  spec_attackers_clear(&a);
}

static void bad(const char *text, guint flags, const char *needle) {
  SpecAttackers a;
  GError *err = NULL;
  spec_attackers_init(&a);
  g_assert_false(spec_attackers_parse(&a, text, flags, DOMAIN, CODE, &err));
  g_assert_error(err, DOMAIN, CODE);
  if (strstr(err->message, needle) == NULL)
    g_error("'%s': '%s' lacks '%s'", text, err->message, needle);
  spec_attackers_clear(&a);
  g_error_free(err);
}

/* Parsed (it may be a label), refused without a labelled graph. */
static void bad_id(const char *text, guint flags, const char *needle) {
  SpecAttackers a;
  GError *err = NULL;
  spec_attackers_init(&a);
  g_assert_true(spec_attackers_parse(&a, text, flags, DOMAIN, CODE, &err));
  g_assert_false(spec_attackers_resolve(&a, NULL, NULL, NULL, flags, DOMAIN, CODE, &err));
  g_assert_error(err, DOMAIN, CODE);
  if (strstr(err->message, needle) == NULL)
    g_error("'%s': '%s' lacks '%s'", text, err->message, needle);
  g_clear_error(&err);
  /* spec_attackers_check says the same to a caller that never resolved. */
  g_assert_false(spec_attackers_check(&a, 10, NULL, DOMAIN, CODE, &err));
  g_assert_nonnull(strstr(err->message, "is not a node id"));
  spec_attackers_clear(&a);
  g_error_free(err);
}

static void test_forms(void) {
  good("0", 0, "0");
  good("0,5", 0, "0|5");
  good("5+0", 0, "0+5"); /* members sorted */
  good(" 3 + 11 , 7 ", 0, "3+11|7");
  good("0+5,0", 0, "0+5|0"); /* a node may be in several sets */
  good("all", 0, "0|1|2|3"); /* every node in turn, on a 4-node graph */
  good(" all ", 0, "0|1|2|3");
  /* Scenario files: ';' joins like '+', one trailing ';' is a GKeyFile list's. */
  good("0;8", SPEC_ATTACKERS_SEMICOLON, "0+8");
  good("8;0;", SPEC_ATTACKERS_SEMICOLON, "0+8");
  good("0;8,3+4", SPEC_ATTACKERS_SEMICOLON, "0+8|3+4");
  good("all;", SPEC_ATTACKERS_SEMICOLON, "0|1|2|3");
}

static void test_refused(void) {
  bad("", 0, "give at least one node id (" SPEC_ATTACKERS_GRAMMAR ")");
  bad("  ", 0, "give at least one node id");
  bad(NULL, 0, "give at least one node id");
  bad_id("x", 0, "'x' is not a node id (expected " SPEC_ATTACKERS_GRAMMAR ")");
  bad("0,", 0, "'' is not a node id");
  bad(",0", 0, "'' is not a node id");
  bad("0++5", 0, "'' is not a node id");
  bad_id("-1", 0, "'-1' is not a node id");
  bad("+1", 0, "'' is not a node id");
  bad_id("1.5", 0, "'1.5' is not a node id");
  bad_id("4294967295", 0, "'4294967295' is not a node id"); /* G_MAXUINT: "no node" */
  bad_id("99999999999999999999", 0, "is not a node id");
  bad("0 5", 0, "'0 5' is not a node id");
  bad("3+3", 0, "node 3 appears twice in the collusion set '3+3'");
  bad("0+5,5+0", 0, "the set '5+0' is given twice");
  bad("all,3", 0, "'all' stands alone");
  bad("3+all", 0, "'all' stands alone");
  bad_id("ALL", 0, "'ALL' is not a node id");
  /* ';' is the scenario files' alone: on the command line it is an error. */
  bad_id("0;8", 0, "'0;8' is not a node id (expected " SPEC_ATTACKERS_GRAMMAR ")");
  bad_id("0;x", SPEC_ATTACKERS_SEMICOLON,
         "'x' is not a node id (expected " SPEC_ATTACKERS_GRAMMAR
         "; ';' joins like '+' (the older form 0;8))");
  bad("2;2", SPEC_ATTACKERS_SEMICOLON, "node 2 appears twice in the collusion set '2;2'");
  bad(";", SPEC_ATTACKERS_SEMICOLON, "give at least one node id");
  bad("0;;8", SPEC_ATTACKERS_SEMICOLON, "'' is not a node id");
  /* Control bytes are escaped in the message. */
  bad("0+\x1b[31m", 0, "'\\x1b[31m' is not a node id");
}

/* Repeated options append; a set repeated across calls and "all" next to a
 * listed set are refused, and the sets before the bad one are kept. */
static void test_append(void) {
  SpecAttackers a;
  GError *err = NULL;
  spec_attackers_init(&a);
  g_assert_true(spec_attackers_parse(&a, "0,3+1", 0, DOMAIN, CODE, &err));
  g_assert_true(spec_attackers_parse(&a, "2", 0, DOMAIN, CODE, &err));
  g_assert_false(spec_attackers_parse(&a, "7,1+3", 0, DOMAIN, CODE, &err));
  g_assert_error(err, DOMAIN, CODE);
  g_assert_nonnull(strstr(err->message, "the set '1+3' is given twice"));
  g_clear_error(&err);
  char *t = sets_text(&a, 9);
  g_assert_cmpstr(t, ==, "0|1+3|2|7");
  g_free(t);
  g_assert_false(spec_attackers_parse(&a, "all", 0, DOMAIN, CODE, &err));
  g_assert_nonnull(strstr(err->message, "'all' stands alone"));
  g_clear_error(&err);
  spec_attackers_clear(&a);
  spec_attackers_clear(&a); /* twice: zeroed */

  spec_attackers_init(&a);
  g_assert_true(spec_attackers_parse(&a, "all", 0, DOMAIN, CODE, &err));
  g_assert_false(spec_attackers_parse(&a, "1", 0, DOMAIN, CODE, &err));
  g_assert_nonnull(strstr(err->message, "'all' stands alone"));
  g_clear_error(&err);
  spec_attackers_clear(&a);
}

static void check_fails(const char *text, guint n, const char *graph, const char *msg) {
  SpecAttackers a;
  GError *err = NULL;
  spec_attackers_init(&a);
  g_assert_true(spec_attackers_parse(&a, text, 0, DOMAIN, CODE, &err));
  g_assert_false(spec_attackers_check(&a, n, graph, DOMAIN, CODE, &err));
  g_assert_error(err, DOMAIN, CODE);
  g_assert_cmpstr(err->message, ==, msg);
  g_error_free(err);
  spec_attackers_clear(&a);
}

static void test_check_expand(void) {
  check_fails("0,15", 15, "florentine",
              "node 15 is out of range: graph 'florentine' has 15 nodes (0 to 14)");
  check_fails("3", 2, NULL, "node 3 is out of range: the graph has 2 nodes (0 to 1)");
  check_fails("0", 0, NULL, "node 0 is out of range: the graph has no node");
  check_fails("0+1+2", 3, "k3",
              "the collusion set '0+1+2' holds every node of graph 'k3': no victim left");
  check_fails("all", 1, "dot", "graph 'dot' has 1 node: with 'all' no victim is left");

  SpecAttackers a;
  GError *err = NULL;
  spec_attackers_init(&a);
  g_assert_true(spec_attackers_parse(&a, "all", 0, DOMAIN, CODE, &err));
  g_assert_true(spec_attackers_check(&a, 3, "k3", DOMAIN, CODE, &err));
  g_assert_cmpuint(spec_attackers_n_sets(&a, 3), ==, 3);
  guint scratch = 99, size = 0;
  const guint *m = spec_attackers_members(&a, 2, &scratch, &size);
  g_assert_cmpuint(size, ==, 1);
  g_assert_cmpuint(m[0], ==, 2);
  g_assert_true(m == &scratch);
  spec_attackers_expand(&a, 3);
  g_assert_false(a.all);
  char *t = sets_text(&a, 100); /* explicit now: the graph size no longer matters */
  g_assert_cmpstr(t, ==, "0|1|2");
  g_free(t);
  m = spec_attackers_members(&a, 1, NULL, &size);
  g_assert_cmpuint(size, ==, 1);
  g_assert_cmpuint(m[0], ==, 1);
  spec_attackers_expand(&a, 7); /* listed sets: nothing */
  g_assert_cmpuint(spec_attackers_n_sets(&a, 7), ==, 3);
  spec_attackers_clear(&a);
  g_assert_no_error(err);
}

/* A graph whose nodes 0, 1, 2 are labelled "n0", "20", "x". */
static const char *const LABELS[] = {"n0", "20", "x"};

static gboolean find_label(gconstpointer data, const char *label, guint *id) {
  (void)data;
  for (guint u = 0; u < G_N_ELEMENTS(LABELS); u++)
    if (g_str_equal(LABELS[u], label)) {
      *id = u;
      return TRUE;
    }
  return FALSE;
}

/* Labels resolve to ids, sets sorted by id; a label no node has is refused
 * naming it; a digit string is a label, not an id, on a labelled graph. */
static void test_labels(void) {
  SpecAttackers a;
  GError *err = NULL;
  spec_attackers_init(&a);
  g_assert_true(spec_attackers_parse(&a, "x+n0,20", 0, DOMAIN, CODE, &err));
  g_assert_true(spec_attackers_resolve(&a, find_label, NULL, "g", 0, DOMAIN, CODE, &err));
  g_assert_true(spec_attackers_check(&a, 3, "g", DOMAIN, CODE, &err));
  char *t = sets_text(&a, 3);
  g_assert_cmpstr(t, ==, "0+2|1"); /* {n0, x} by id, then {20} = node 1 */
  g_free(t);
  spec_attackers_clear(&a);

  spec_attackers_init(&a);
  g_assert_true(spec_attackers_parse(&a, "1", 0, DOMAIN, CODE, &err));
  g_assert_false(spec_attackers_resolve(&a, find_label, NULL, "g", 0, DOMAIN, CODE, &err));
  g_assert_cmpstr(err->message, ==,
                  "no node of graph 'g' is labelled '1' (its nodes go by their labels, not by "
                  "0..n-1)");
  g_clear_error(&err);
  spec_attackers_clear(&a);

  /* The same label twice in a set, or a set twice, is refused at parse. */
  spec_attackers_init(&a);
  g_assert_false(spec_attackers_parse(&a, "n0+n0", 0, DOMAIN, CODE, &err));
  g_assert_cmpstr(err->message, ==, "node n0 appears twice in the collusion set 'n0+n0'");
  g_clear_error(&err);
  g_assert_false(spec_attackers_parse(&a, "x+n0,n0+x", 0, DOMAIN, CODE, &err));
  g_assert_nonnull(strstr(err->message, "the set 'n0+x' is given twice"));
  g_clear_error(&err);
  spec_attackers_clear(&a);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spec/attackers/forms", test_forms);
  g_test_add_func("/spec/attackers/refused", test_refused);
  g_test_add_func("/spec/attackers/append", test_append);
  g_test_add_func("/spec/attackers/check-expand", test_check_expand);
  g_test_add_func("/spec/attackers/labels", test_labels);
  return g_test_run();
}
