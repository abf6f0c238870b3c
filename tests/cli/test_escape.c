/*
 * tests/cli/test_escape.c: what the commands print about a hostile input
 * file holds none of its raw bytes: an ESC sequence, other
 * control bytes or invalid UTF-8 quoted from an edge list (graph --graph),
 * a scenario (validate) or a CSV dataset (train) are shown escaped, so a
 * file cannot clear or retitle the user's terminal or fake output.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

/* No control byte but '\n' and no invalid UTF-8 in @text; @want is there. */
static void assert_clean(const char *text, const char *want) {
  for (const char *p = text; *p != '\0'; p++)
    if ((unsigned char)*p < 0x20 && *p != '\n')
      g_error("raw control byte 0x%02x in: %s", (unsigned char)*p, text);
  g_assert_true(g_utf8_validate(text, -1, NULL));
  if (strstr(text, want) == NULL)
    g_error("'%s' lacks '%s'", text, want);
}

static char *write_tmp(const char *dir, const char *name, const char *text) {
  char *path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static void test_graph(void) {
  char *dir = test_tmpdir("cli-esc");
  char *path = write_tmp(dir, "esc.edges", "0 1\n1 \x1b[2J\x1b]0;pwned\x07\xff\n");
  CliRun r = cli_run("graph", "--graph", path);
  g_assert_cmpint(r.status, !=, 0);
  assert_clean(r.err, "esc.edges:2: node label '\\x1b[2J\\x1b]0;pwned\\x07\\xff'");
  cli_run_clear(&r);
  g_unlink(path);
  g_free(path);
  g_rmdir(dir);
  g_free(dir);
}

static void test_validate(void) {
  char *dir = test_tmpdir("cli-esc");
  /* Values are quoted (keys and section names with control bytes, and
   * lines that are not UTF-8, are refused without quoting them). */
  char *path = write_tmp(dir, "esc.ini",
                         "[simulation]\nseed = \x1b[31m\nname = a\xe2\x80\xae/b\n"
                         "[topology]\ngenerate = \x1b]0;pwned\x07\n"
                         "[protocol]\nname = \xc2\x9b"
                         "2J\n");
  CliRun r = cli_run("validate", path);
  g_assert_cmpint(r.status, ==, 1);
  assert_clean(r.err, "esc.ini:2: simulation.seed: '\\x1b[31m'");
  assert_clean(r.err, "esc.ini:3: simulation.name: 'a\\u{202e}/b'");
  assert_clean(r.err, "esc.ini:5: topology.generate:");
  assert_clean(r.err, "\\x1b]0;pwned\\x07");
  assert_clean(r.err, "esc.ini:7: protocol.name:");
  assert_clean(r.err, "\\u{009b}2J");
  g_assert_null(strstr(r.err, "\xc2\x9b")); /* C1 CSI: a terminal acts on it too */
  cli_run_clear(&r);
  g_unlink(path);
  g_free(path);
  g_rmdir(dir);
  g_free(dir);
}

static void test_csv(void) {
  char *dir = test_tmpdir("cli-esc");
  char *path = write_tmp(dir, "esc.csv", "a,b,y\n1,2,3\n4,\x1b[2J\x1b[H,6\n7,8,9\n");
  char *dataset = g_strdup_printf("csv:%s", path);
  char *out = g_build_filename(dir, "out.csv", NULL);
  CliRun r = cli_run("train", "--generate", "florentine", "--dataset", dataset, "--epochs", "1",
                     "--batches", "1", "--out", out);
  g_assert_cmpint(r.status, !=, 0);
  assert_clean(r.err, "esc.csv:3:3: field 2 ('\\x1b[2J\\x1b[H') is not a finite number");
  cli_run_clear(&r);
  g_unlink(path);
  g_unlink(out);
  g_free(out);
  g_free(dataset);
  g_free(path);
  g_rmdir(dir);
  g_free(dir);
}

/* A noise-correlation file (mfdsgd:C=FILE) and a trace's checksum field. */
static void test_c_file_and_trace(void) {
  char *dir = test_tmpdir("cli-esc");
  char *path = write_tmp(dir, "c.csv", "1,0\n\x1b[2J,1\n");
  char *proto = g_strdup_printf("mfdsgd:C=%s", path);
  CliRun r = cli_run("account", "--generate", "florentine", "--rounds", "2", "--trust", "pndp",
                     "--protocol", proto, "-a", "0");
  g_assert_cmpint(r.status, !=, 0);
  assert_clean(r.err, "c.csv:2:1: not a finite number: '\\x1b[2J'");
  cli_run_clear(&r);
  g_unlink(path);
  g_free(path);
  g_free(proto);
  path = write_tmp(dir, "t.trace", "DPGTRACE 1 {}\nround \x1b[2Jxxxx {\"v\":1}\n");
  r = cli_run("replay", path, "--check");
  g_assert_cmpint(r.status, ==, 1);
  assert_clean(r.err, "bad checksum field '\\x1b[2Jxxxx'");
  cli_run_clear(&r);
  g_unlink(path);
  g_free(path);
  g_rmdir(dir);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/escape/graph", test_graph);
  g_test_add_func("/cli/escape/validate", test_validate);
  g_test_add_func("/cli/escape/csv", test_csv);
  g_test_add_func("/cli/escape/c-file-and-trace", test_c_file_and_trace);
  return g_test_run();
}
