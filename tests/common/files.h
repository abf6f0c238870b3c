/*
 * tests/common/files.h: temporary folders for tests: made fresh, removed
 * with everything in them.
 */
#ifndef DPG_TESTS_COMMON_FILES_H
#define DPG_TESTS_COMMON_FILES_H

#include <glib.h>

/* A new empty folder "dpg-@what-XXXXXX" in the temporary directory
 * (g_free); the test fails when it cannot be made. */
char *test_tmpdir(const char *what);

/* Removes @path: a file, or a folder and everything below it. Missing is
 * fine. Links are removed, not followed. */
void test_rmtree(const char *path);

/* A new folder laid out as the repository root for commands a document
 * shows (g_free; test_rmtree when done): data/ linked to @src's, build/
 * linked to the folder of the binary @bin, the scenarios copied (results
 * of `run` land in the folder, not in @src) and an empty docs/figures/ for
 * commands that write figures. The test fails when it cannot be made. */
char *test_repository_root(const char *src, const char *bin);

#endif
