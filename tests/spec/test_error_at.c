/*
 * tests/spec/test_error_at.c: the one form of an error at a place in an
 * input file.
 */
#include "spec/spec.h"

/* An error at a place in a file: "PATH:LINE: what", "PATH: what" for the
 * whole file, the path escaped, FALSE returned. */
static void test_error_at(void) {
  GError *error = NULL;
  g_assert_false(spec_error_at(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "data/a.csv", 12,
                               "%u fields, expected %s", 2u, "'a b c'"));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_cmpstr(error->message, ==, "data/a.csv:12: 2 fields, expected 'a b c'");
  g_clear_error(&error);
  g_assert_false(spec_error_at(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "a\nb.json", 0, "empty"));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_cmpstr(error->message, ==, "a\\nb.json: empty");
  g_clear_error(&error);
  g_assert_false(spec_error_at(NULL, G_FILE_ERROR, G_FILE_ERROR_INVAL, "f", 1, "ignored"));
}

/* A wrong token quoted in its place, escaped and cut at the length given,
 * the words after it formatted. */
static void test_error_token(void) {
  GError *error = NULL;
  g_assert_false(spec_error_token(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "g.txt", 3,
                                  "edge weight", "x\033[2Jyz", 5, " is not below %u", 7u));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_cmpstr(error->message, ==, "g.txt:3: edge weight 'x\\x1b[2J' is not below 7");
  g_clear_error(&error);
  g_assert_false(spec_error_token(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "g.txt", 0,
                                  "only one token", "a\tb", -1, ", expected 'u v'"));
  g_assert_cmpstr(error->message, ==, "g.txt: only one token 'a\\tb', expected 'u v'");
  g_clear_error(&error);
  g_assert_false(
      spec_error_token(NULL, G_FILE_ERROR, G_FILE_ERROR_INVAL, "f", 1, "w", "t", -1, " ignored"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spec/error-at", test_error_at);
  g_test_add_func("/spec/error-token", test_error_token);
  return g_test_run();
}
