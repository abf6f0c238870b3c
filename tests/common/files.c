/* tests/common/files.c: temporary folders for tests. */
#include <glib/gstdio.h>

#include "tests/common/files.h"

char *test_tmpdir(const char *what) {
  char *tmpl = g_strdup_printf("dpg-%s-XXXXXX", what);
  GError *error = NULL;
  char *dir = g_dir_make_tmp(tmpl, &error);
  g_assert_no_error(error);
  g_free(tmpl);
  return dir;
}

void test_rmtree(const char *path) {
  if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
    GDir *d = g_dir_open(path, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
      char *p = g_build_filename(path, name, NULL);
      test_rmtree(p);
      g_free(p);
    }
    if (d != NULL)
      g_dir_close(d);
    g_rmdir(path);
  } else {
    g_unlink(path);
  }
}
