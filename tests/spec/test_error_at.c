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

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spec/error-at", test_error_at);
  return g_test_run();
}
