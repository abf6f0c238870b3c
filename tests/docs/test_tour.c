/*
 * tests/docs/test_tour.c: the tour of docs/guide.md works as printed. Every
 * command of a ```sh block under its "## Tour" heading runs with /bin/sh in a
 * fresh folder laid out as the repository root (data/ and build/ linked,
 * scenarios/ copied so that results land in the folder), and must exit 0.
 * Blocks fenced ```sh norun (the live viewer's server and its clients) are
 * shown to the reader and not run.
 */
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

typedef struct {
  GPtrArray *commands; /* char*: one shell command each, continuations joined */
  guint skipped_blocks;
} Tour;

static void tour_clear(Tour *t) {
  g_ptr_array_unref(t->commands);
}

/* The commands of the "## Tour" section of @text. */
static Tour tour_parse(const char *text) {
  Tour t = {g_ptr_array_new_with_free_func(g_free), 0};
  char **lines = g_strsplit(text, "\n", -1);
  gboolean in_tour = FALSE, in_block = FALSE, run = FALSE;
  GString *cmd = g_string_new(NULL);
  for (guint i = 0; lines[i] != NULL; i++) {
    const char *l = lines[i];
    if (!in_block && g_str_has_prefix(l, "## ")) {
      in_tour = g_str_equal(l, "## Tour");
      continue;
    }
    if (!in_tour)
      continue;
    if (!in_block && g_str_has_prefix(l, "```")) {
      in_block = TRUE;
      run = g_str_equal(l, "```sh");
      t.skipped_blocks += g_str_has_prefix(l, "```sh ");
      continue;
    }
    if (in_block && g_str_equal(l, "```")) {
      g_assert_cmpuint(cmd->len, ==, 0); /* no dangling continuation */
      in_block = FALSE;
      continue;
    }
    if (!in_block || !run)
      continue;
    gsize n = strlen(l);
    if (cmd->len == 0 && (n == 0 || l[0] == '#'))
      continue;
    if (n > 0 && l[n - 1] == '\\') {
      g_string_append_len(cmd, l, n - 1);
      continue;
    }
    g_string_append(cmd, l);
    g_ptr_array_add(t.commands, g_strdup(cmd->str));
    g_string_truncate(cmd, 0);
  }
  g_string_free(cmd, TRUE);
  g_strfreev(lines);
  return t;
}

static void test_parse(void) {
  Tour t = tour_parse("# Guide\n## Tour\n```sh\nbuild/dpgossip a \\\n    --b c\n# note\n\n"
                      "build/dpgossip d   # comment\n```\n```sh norun\nbuild/dpgossip viz &\n```\n"
                      "```text\nnot a command\n```\n## Next\n```sh\nbuild/dpgossip e\n```\n");
  g_assert_cmpuint(t.commands->len, ==, 2);
  g_assert_cmpstr(g_ptr_array_index(t.commands, 0), ==, "build/dpgossip a     --b c");
  g_assert_cmpstr(g_ptr_array_index(t.commands, 1), ==, "build/dpgossip d   # comment");
  g_assert_cmpuint(t.skipped_blocks, ==, 1);
  tour_clear(&t);
}

static void test_tour(void) {
  const char *src = g_getenv("DPG_SOURCE_DIR"), *bin = g_getenv("DPGOSSIP");
  g_assert_nonnull(src);
  g_assert_nonnull(bin);
  char *guide = g_build_filename(src, "docs", "guide.md", NULL), *text = NULL;
  g_assert_true(g_file_get_contents(guide, &text, NULL, NULL));
  Tour t = tour_parse(text);
  /* The tour covers every command; a renamed heading must not pass empty. */
  g_assert_cmpuint(t.commands->len, >=, 15);
  g_assert_cmpuint(t.skipped_blocks, >=, 1);
  char *root = test_repository_root(src, bin);
  for (guint i = 0; i < t.commands->len; i++) {
    const char *cmd = g_ptr_array_index(t.commands, i);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    char *out = NULL, *err = NULL;
    int wait_status = 0;
    GError *error = NULL;
    g_spawn_sync(root, (char **)argv, NULL, G_SPAWN_DEFAULT, cli_run_die_with_test, NULL, &out, &err, &wait_status,
                 &error);
    g_assert_no_error(error);
    if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
      test_rmtree(root);
      g_error("docs/guide.md tour: `%s` failed (wait status %d):\n%s", cmd, wait_status, err);
    }
    g_free(out);
    g_free(err);
  }
  test_rmtree(root);
  g_free(root);
  tour_clear(&t);
  g_free(text);
  g_free(guide);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/docs/tour/parse", test_parse);
  g_test_add_func("/docs/tour/run", test_tour);
  return g_test_run();
}
