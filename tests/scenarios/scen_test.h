/*
 * tests/scenarios/scen_test.h: helpers for scenario tests: temporary folders,
 * scenario files written from strings, problem lists.
 */
#ifndef DPG_TESTS_SCEN_TEST_H
#define DPG_TESTS_SCEN_TEST_H

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "scenarios/scenarios.h"
#include "tests/common/files.h"

/* Writes @text to DIR/NAME and returns the path. */
static inline char *scen_test_write(const char *dir, const char *name, const char *text) {
  char *path = g_build_filename(dir, name, NULL);
  GError *error = NULL;
  g_file_set_contents(path, text, -1, &error);
  g_assert_no_error(error);
  return path;
}

/* Validates DIR/test.ini holding @text; returns the problems (g_strfreev). */
static inline char **scen_test_problems(const char *dir, const char *text, const char *const *sets,
                                        char **path_out) {
  char *path = scen_test_write(dir, "test.ini", text);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  for (guint i = 0; sets && sets[i]; i++) {
    scen_scenario_set(sc, sets[i], &error);
    g_assert_no_error(error);
  }
  char **problems = scen_scenario_validate(sc);
  scen_scenario_free(sc);
  if (path_out)
    *path_out = path;
  else
    g_free(path);
  return problems;
}

/* Asserts that @problems holds exactly the line @expected. */
#define scen_assert_has(problems, expected)                                                        \
  do {                                                                                             \
    char *e_ = (expected);                                                                         \
    if (!g_strv_contains((const char *const *)(problems), e_)) {                                   \
      char *all_ = g_strjoinv("\n  ", (problems));                                                 \
      g_error("expected problem:\n  %s\ngot:\n  %s", e_, all_);                                    \
    }                                                                                              \
    g_free(e_);                                                                                    \
  } while (0)

/* Asserts that some problem starts with @prefix (taken) and contains @part. */
static inline void scen_assert_match(char **problems, char *prefix, const char *part) {
  for (guint i = 0; problems[i]; i++)
    if (g_str_has_prefix(problems[i], prefix) && strstr(problems[i], part) != NULL) {
      g_free(prefix);
      return;
    }
  char *all = g_strjoinv("\n  ", problems);
  g_error("expected a problem starting with '%s' containing '%s'; got:\n  %s", prefix, part, all);
}

static inline char *scen_test_data(const char *rel) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  return g_build_filename(dir, rel, NULL);
}

static inline char *scen_test_source(const char *rel) {
  const char *dir = g_getenv("DPG_SOURCE_DIR");
  g_assert_nonnull(dir);
  return g_build_filename(dir, rel, NULL);
}

static inline char *scen_test_read(const char *dir, const char *name) {
  char *p = g_build_filename(dir, name, NULL), *text = NULL;
  GError *error = NULL;
  g_file_get_contents(p, &text, NULL, &error);
  g_assert_no_error(error);
  g_free(p);
  return text;
}

/* The fixture of the tests that run scenarios: a fresh temporary folder,
 * the cancel flag cleared (a cancel test may have set it). */
typedef struct {
  char *dir;
} ScenTestFix;

static inline void scen_test_fix_setup(ScenTestFix *f, gconstpointer data) {
  (void)data;
  f->dir = test_tmpdir("scen");
  scen_cancel_reset();
}

static inline void scen_test_fix_teardown(ScenTestFix *f, gconstpointer data) {
  (void)data;
  test_rmtree(f->dir);
  g_free(f->dir);
}

/* Registers test @fn (void fn(ScenTestFix *, gconstpointer)) under @path. */
#define SCEN_TEST_ADD(path, fn)                                                                    \
  g_test_add(path, ScenTestFix, NULL, scen_test_fix_setup, fn, scen_test_fix_teardown)

/* Rows of DIR/NAME (header first, empty lines skipped), each split on ','. */
static inline GPtrArray *scen_test_csv(const char *dir, const char *name) {
  char *text = scen_test_read(dir, name);
  char **lines = g_strsplit(text, "\n", -1);
  GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  for (guint i = 0; lines[i]; i++)
    if (lines[i][0] != '\0')
      g_ptr_array_add(rows, g_strsplit(lines[i], ",", -1));
  g_strfreev(lines);
  g_free(text);
  return rows;
}

#endif
