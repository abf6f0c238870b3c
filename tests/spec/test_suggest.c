/*
 * tests/spec/test_suggest.c: the edit distance (reference values), the
 * typo rule (at most two edits, or a third of the word) and the nearest
 * valid name, the one "did you mean" of options, keys and values, and the
 * parse of a name from a closed list.
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

/* A name from a closed list: its index, or every choice in the message,
 * joined "a, b or c", with the closest one suggested. */
static void test_choose(void) {
  const char *const trusts[] = {"ldp", "pndp", "secldp"};
  guint i = 99;
  g_assert_true(
      spec_choose("secldp", "trust model", trusts, 3, &i, G_FILE_ERROR, G_FILE_ERROR_INVAL, NULL));
  g_assert_cmpuint(i, ==, 2);
  GError *error = NULL;
  g_assert_false(
      spec_choose("pnpd", "trust model", trusts, 3, &i, G_FILE_ERROR, G_FILE_ERROR_INVAL, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_cmpstr(error->message, ==,
                  "unknown trust model 'pnpd' (expected ldp, pndp or secldp); did you mean "
                  "'pndp'?");
  g_clear_error(&error);
  g_assert_false(
      spec_choose(NULL, "workload", trusts, 2, &i, G_FILE_ERROR, G_FILE_ERROR_NOENT, &error));
  g_assert_cmpstr(error->message, ==, "unknown workload '(null)' (expected ldp or pndp)");
  g_clear_error(&error);
  /* The given name is input: a control byte is escaped, not printed. */
  g_assert_false(
      spec_choose("x\033[2J", "workload", trusts, 1, &i, G_FILE_ERROR, G_FILE_ERROR_NOENT, &error));
  g_assert_cmpstr(error->message, ==, "unknown workload 'x\\x1b[2J' (expected ldp)");
  g_clear_error(&error);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spec/suggest/distance", test_distance);
  g_test_add_func("/spec/suggest/closest", test_closest);
  g_test_add_func("/spec/suggest/choose", test_choose);
  return g_test_run();
}
