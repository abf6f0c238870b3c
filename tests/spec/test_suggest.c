/*
 * tests/spec/test_suggest.c: the edit distance (reference values), the
 * typo rule (at most two edits, or a third of the word) and the nearest
 * valid name, the one "did you mean" of options, keys and values.
 */
#include "spec/spec.h"

static void test_distance(void) {
  g_assert_cmpuint(spec_edit_distance("kitten", "sitting"), ==, 3);
  g_assert_cmpuint(spec_edit_distance("", "abc"), ==, 3);
  g_assert_cmpuint(spec_edit_distance("pnpd", "pndp"), ==, 2);
  g_assert_cmpuint(spec_edit_distance("florentin", "florentine"), ==, 1);
  g_assert_cmpuint(spec_edit_distance("same", "same"), ==, 0);
}

static void test_closest(void) {
  const char *const trusts[] = {"ldp", "pndp", "secldp", NULL};
  g_assert_cmpstr(spec_closest("pnpd", trusts, -1), ==, "pndp");
  g_assert_cmpstr(spec_closest("secdlp", trusts, -1), ==, "secldp");
  g_assert_null(spec_closest("pndp", trusts, -1)); /* exact: no suggestion */
  g_assert_null(spec_closest("zzzzzzz", trusts, -1));
  const char *const protocols[] = {"dsgd", "muffliato", "mafalda"};
  g_assert_cmpstr(spec_closest("mufliato", protocols, 3), ==, "muffliato");
  g_assert_null(spec_closest("mufliato", protocols, 1)); /* only the first entry */
  char *s = spec_did_you_mean("mufliato", protocols, 3);
  g_assert_cmpstr(s, ==, "; did you mean 'muffliato'?");
  g_free(s);
  s = spec_did_you_mean("xyz", protocols, 3);
  g_assert_cmpstr(s, ==, "");
  g_free(s);
  /* Three edits of a long word are a typo, of a short one not. */
  g_assert_true(spec_typo_distance(3, "metropoliss"));
  g_assert_false(spec_typo_distance(3, "ring"));
  g_assert_false(spec_typo_distance(0, "ring"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spec/suggest/distance", test_distance);
  g_test_add_func("/spec/suggest/closest", test_closest);
  return g_test_run();
}
