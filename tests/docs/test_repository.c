/*
 * tests/docs/test_repository.c: a clone works on its own. No tracked file
 * points outside the repository (the project's former data folder beside it,
 * or the design notes that lived there); every file in data/ is described
 * in data/README.md; every shipped scenario validates; docs/scenarios.md is
 * what scripts/scenarios-doc.sh writes from the built binary's schema.
 */
#include <string.h>

#include "tests/common/checks.h"
#include "tests/common/run.h"

/* Split so that this file does not match its own search. */
static const char *const forbidden[] = {"../sha"
                                        "red",
                                        "DESIGN"
                                        ".md",
                                        NULL};

static char *source_path(const char *rel) {
  const char *dir = g_getenv("DPG_SOURCE_DIR");
  g_assert_nonnull(dir);
  return g_build_filename(dir, rel, NULL);
}

/* Appends the regular files under @dir (relative names, from @rel) to @out,
 * skipping hidden folders, build trees (a CMakeCache.txt) and node_modules. */
static void walk(const char *root, const char *rel, GPtrArray *out) {
  char *dir = g_build_filename(root, rel, NULL);
  char *cache = g_build_filename(dir, "CMakeCache.txt", NULL);
  gboolean skip = g_file_test(cache, G_FILE_TEST_EXISTS);
  g_free(cache);
  GDir *d = skip ? NULL : g_dir_open(dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
    if (name[0] == '.' || g_str_equal(name, "node_modules"))
      continue;
    char *child = rel[0] ? g_build_filename(rel, name, NULL) : g_strdup(name);
    char *full = g_build_filename(root, child, NULL);
    if (g_file_test(full, G_FILE_TEST_IS_SYMLINK))
      g_free(child);
    else if (g_file_test(full, G_FILE_TEST_IS_DIR)) {
      walk(root, child, out);
      g_free(child);
    } else
      g_ptr_array_add(out, child);
    g_free(full);
  }
  if (d != NULL)
    g_dir_close(d);
  g_free(dir);
}

/* The tracked files (git ls-files), or every source file when the tree is
 * not a git checkout (an unpacked archive). */
static GPtrArray *tracked_files(void) {
  const char *root = g_getenv("DPG_SOURCE_DIR");
  g_assert_nonnull(root);
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  const char *argv[] = {"git", "-C", root, "-c", "core.quotePath=off", "ls-files", NULL};
  char *out = NULL;
  int wait_status = 0;
  if (g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                   NULL, NULL, &out, NULL, &wait_status, NULL) &&
      WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
    char **lines = g_strsplit(out, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++)
      if (lines[i][0] != '\0')
        g_ptr_array_add(files, g_strdup(lines[i]));
    g_strfreev(lines);
  }
  g_free(out);
  if (files->len == 0)
    walk(root, "", files);
  return files;
}

static void test_self_contained(void) {
  GPtrArray *files = tracked_files();
  g_assert_cmpuint(files->len, >, 100);
  GString *bad = g_string_new(NULL);
  for (guint i = 0; i < files->len; i++) {
    const char *rel = g_ptr_array_index(files, i);
    char *path = source_path(rel), *text = NULL;
    gsize n = 0;
    /* A tracked file deleted in the work tree is not shipped: skip it. */
    if (!g_file_get_contents(path, &text, &n, NULL)) {
      g_free(path);
      continue;
    }
    for (guint f = 0; forbidden[f] != NULL; f++) {
      const char *hit = memmem(text, n, forbidden[f], strlen(forbidden[f]));
      if (hit == NULL)
        continue;
      guint line = 1;
      for (const char *p = text; p < hit; p++)
        line += *p == '\n';
      g_string_append_printf(bad, "%s:%u: names %s\n", rel, line, forbidden[f]);
    }
    g_free(text);
    g_free(path);
  }
  if (bad->len > 0)
    g_error("files that point outside the repository:\n%s", bad->str);
  g_string_free(bad, TRUE);
  g_ptr_array_unref(files);
}

static void test_data_described(void) {
  char *readme_path = source_path("data/README.md"), *readme = NULL;
  g_assert_true(g_file_get_contents(readme_path, &readme, NULL, NULL));
  char *data = source_path("data");
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  walk(data, "", files);
  g_assert_cmpuint(files->len, >=, 4);
  for (guint i = 0; i < files->len; i++) {
    const char *rel = g_ptr_array_index(files, i);
    if (g_str_equal(rel, "README.md"))
      continue;
    char *quoted = g_strdup_printf("`%s`", rel);
    if (strstr(readme, quoted) == NULL)
      g_error("data/%s is not described in data/README.md (as %s)", rel, quoted);
    g_free(quoted);
  }
  g_ptr_array_unref(files);
  g_free(data);
  g_free(readme);
  g_free(readme_path);
}

static void test_shipped_scenarios_validate(void) {
  /* What this guards is the repository (every shipped file and key
   * resolves in a clone), which the release run settles; validate's own
   * memory is checked under the sanitizers by cli_test_validate and
   * scenarios_test_validate. Here the sanitizers would spend 33 CPU s,
   * most of it reading the overlay and Fashion-MNIST files. */
  if (TEST_UNDER_ASAN) {
    g_test_skip("the shipped scenarios are validated by the release build's run");
    return;
  }
  char *dir = source_path("scenarios");
  GDir *d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  guint n = 0;
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    if (!g_str_has_suffix(name, ".ini"))
      continue;
    char *path = g_build_filename(dir, name, NULL);
    /* validate reads and partitions each point's dataset; points that
     * differ only by seed repeat the same checks, so one seed stands for a
     * seed sweep (figure4-cnn-ego's 20 Fashion-MNIST loads take minutes
     * under the sanitizers). What this test guards is that every file and
     * key resolves in a clone. */
    GKeyFile *kf = g_key_file_new();
    gboolean seeds = g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL) &&
                     g_key_file_has_key(kf, "sweep", "simulation.seed", NULL);
    g_key_file_free(kf);
    CliRun r = seeds ? cli_run("validate", path, "--set", "sweep.simulation.seed=1")
                     : cli_run("validate", path);
    if (r.status != 0)
      g_error("dpgossip validate %s: status %d\n%s", path, r.status, r.err);
    cli_run_clear(&r);
    g_free(path);
    n++;
  }
  g_dir_close(d);
  g_assert_cmpuint(n, >=, 10);
  g_free(dir);
}

static void test_scenarios_doc_current(void) {
  char *script = source_path("scripts/scenarios-doc.sh");
  char *doc = source_path("docs/scenarios.md"), *want = NULL;
  g_assert_true(g_file_get_contents(doc, &want, NULL, NULL));
  const char *argv[] = {"sh", script, g_getenv("DPGOSSIP"), NULL};
  char *got = NULL, *err = NULL;
  int wait_status = 0;
  GError *error = NULL;
  g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &got, &err, &wait_status,
               &error);
  g_assert_no_error(error);
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  if (!g_str_equal(got, want))
    g_error("docs/scenarios.md differs from `dpgossip validate --keys`: run `make docs`");
  g_assert_nonnull(strstr(got, "[topology]"));
  g_free(got);
  g_free(err);
  g_free(want);
  g_free(doc);
  g_free(script);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/docs/self-contained", test_self_contained);
  g_test_add_func("/docs/data-described", test_data_described);
  g_test_add_func("/docs/shipped-scenarios-validate", test_shipped_scenarios_validate);
  g_test_add_func("/docs/scenarios-md-current", test_scenarios_doc_current);
  return g_test_run();
}
