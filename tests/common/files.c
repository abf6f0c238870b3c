/* tests/common/files.c: temporary folders for tests. */
#include <unistd.h>

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

char *test_repository_root(const char *src, const char *bin) {
  GError *error = NULL;
  char *dir = test_tmpdir("root");
  char *data = g_build_filename(src, "data", NULL), *link = g_build_filename(dir, "data", NULL);
  g_assert_cmpint(symlink(data, link), ==, 0);
  g_free(data);
  g_free(link);
  char *build = g_path_get_dirname(bin);
  link = g_build_filename(dir, "build", NULL);
  g_assert_cmpint(symlink(build, link), ==, 0);
  g_free(build);
  g_free(link);
  char *figures = g_build_filename(dir, "docs", "figures", NULL);
  g_assert_cmpint(g_mkdir_with_parents(figures, 0755), ==, 0);
  g_free(figures);
  char *from = g_build_filename(src, "scenarios", NULL);
  char *to = g_build_filename(dir, "scenarios", NULL);
  g_assert_cmpint(g_mkdir(to, 0755), ==, 0);
  GDir *d = g_dir_open(from, 0, &error);
  g_assert_no_error(error);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    if (!g_str_has_suffix(name, ".ini"))
      continue;
    char *a = g_build_filename(from, name, NULL), *b = g_build_filename(to, name, NULL), *text;
    gsize n;
    g_assert_true(g_file_get_contents(a, &text, &n, NULL));
    g_assert_true(g_file_set_contents(b, text, (gssize)n, NULL));
    g_free(text);
    g_free(a);
    g_free(b);
  }
  g_dir_close(d);
  g_free(from);
  g_free(to);
  return dir;
}
