/*
 * tests/topologies/test_untrusted.c: bytes of an edge list or a churn file
 * that an error quotes are escaped: an ESC sequence, other
 * control bytes or invalid UTF-8 in the file never reach the message raw.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/files.h"
#include "topologies/topologies.h"

static char *write_tmp(const char *dir, const char *name, const char *text) {
  char *path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

/* The message has no control byte and no invalid UTF-8, and holds @want. */
static void assert_clean(const GError *err, const char *want) {
  g_assert_nonnull(err);
  for (const char *p = err->message; *p != '\0'; p++)
    g_assert_cmpint((unsigned char)*p, >=, 0x20);
  g_assert_true(g_utf8_validate(err->message, -1, NULL));
  if (strstr(err->message, want) == NULL)
    g_error("'%s' lacks '%s'", err->message, want);
}

static void test_edge_list(void) {
  char *dir = test_tmpdir("topo-esc");
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"0 1\n\x1b[2J\x1b]0;pwned\x07 2\n", ":2: node label '\\x1b[2J\\x1b]0;pwned\\x07'"},
      {"0 1\n1 \xff\xfe\n", ":2: node label '\\xff\\xfe'"},
      {"0 1\n\x1b[31mred\n", ":2: only one token '\\x1b[31mred'"},
      {"0 1\n99999999999999999999\x1b 2\n", "node label '99999999999999999999\\x1b'"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *path = write_tmp(dir, "esc.edges", cases[i].text);
    GError *err = NULL;
    g_assert_null(topo_graph_load(path, FALSE, &err));
    g_assert_error(err, TOPO_ERROR, TOPO_ERROR_PARSE);
    assert_clean(err, cases[i].want);
    g_error_free(err);
    g_unlink(path);
    g_free(path);
  }
  g_rmdir(dir);
  g_free(dir);
}

static void test_churn(void) {
  char *dir = test_tmpdir("topo-esc");
  GError *err = NULL;
  TopoGraph *base = topo_graph_generate("ring:n=5", &err);
  g_assert_no_error(err);
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"1 2\n\x1b[2J\n", ":2: only one token '\\x1b[2J'"},
      {"1 \x1b[1m3\n", "'\\x1b[1m3' is not a non-negative integer"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *path = write_tmp(dir, "churn.txt", cases[i].text);
    char *spec = g_strdup_printf("churn:%s", path);
    g_assert_null(topo_schedule_new(spec, base, TOPO_GOSSIP_UNIFORM, 0, &err));
    g_assert_error(err, TOPO_ERROR, TOPO_ERROR_FILE);
    assert_clean(err, cases[i].want);
    g_clear_error(&err);
    g_unlink(path);
    g_free(path);
    g_free(spec);
  }
  topo_graph_free(base);
  g_rmdir(dir);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/topo/untrusted/edge-list", test_edge_list);
  g_test_add_func("/topo/untrusted/churn", test_churn);
  return g_test_run();
}
