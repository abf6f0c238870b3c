/*
 * tests/cli/test_protocols.c: `dpgossip protocols [NAME]` (table and json:
 * built-ins, --protocol-plugin, plugins of $DPGOSSIP_PLUGIN_PATH, files
 * that fail to load) and `train --protocol-plugin`. The plugins come from
 * tests/plugins (built next to the binary, in BUILD/tests/plugins).
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "protocols/plugin.h"
#include "tests/common/files.h"
#include "tests/common/run_json.h"

static char *plugin(const char *name) {
  char *bindir = g_path_get_dirname(g_getenv("DPGOSSIP"));
  char *file = g_strdup_printf("%s.so", name);
  char *path = g_build_filename(bindir, "tests", "plugins", file, NULL);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  g_free(file);
  g_free(bindir);
  return path;
}

static void assert_has(const char *text, const char *fragment) {
  if (strstr(text, fragment) == NULL)
    g_error("output lacks '%s':\n%s", fragment, text);
}

static void test_list_table(void) {
  CliRun r = cli_run("protocols");
  g_assert_cmpint(r.status, ==, 0);
  const char *frags[] = {"dsgd (built-in)",
                         "muffliato (built-in)",
                         "zipdl (built-in)",
                         "nonprivate (built-in)\n  D-SGD without noise",
                         "PARAMETER  TYPE  DEFAULT  RANGE",
                         "no parameters",
                         "(8 built-in, ",
                         "; plugin folders: "};
  for (guint i = 0; i < G_N_ELEMENTS(frags); i++)
    assert_has(r.out, frags[i]);
  cli_run_clear(&r);

  r = cli_run("protocols", "muffliato");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "muffliato (built-in)\n");
  assert_has(r.out, "  K          int   1        [1, 1000000]  gossip rounds per gradient step");
  g_assert_null(strstr(r.out, "dsgd"));
  cli_run_clear(&r);
}

static void test_one_json(void) {
  char *path = plugin("gossip-pairs");
  CliRun r = cli_run("protocols", "--protocol-plugin", path, "gossip-pairs", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *parser = NULL;
  JsonObject *o = cli_run_json(&r, &parser);
  g_assert_cmpstr(json_object_get_string_member(o, "name"), ==, "gossip-pairs");
  g_assert_cmpstr(json_object_get_string_member(o, "origin"), ==, "plugin");
  g_assert_true(g_str_has_suffix(json_object_get_string_member(o, "path"), "/gossip-pairs.so"));
  g_assert_cmpint(json_object_get_int_member(o, "abi_version"), ==, PROTO_PLUGIN_ABI_VERSION);
  JsonArray *params = json_object_get_array_member(o, "parameters");
  g_assert_cmpuint(json_array_get_length(params), ==, 2);
  JsonObject *mode = json_array_get_object_element(params, 0);
  g_assert_cmpstr(json_object_get_string_member(mode, "name"), ==, "mode");
  g_assert_cmpstr(json_object_get_string_member(mode, "type"), ==, "string");
  g_assert_cmpstr(json_object_get_string_member(mode, "default"), ==, "pairs");
  g_assert_true(json_object_get_null_member(mode, "range"));
  JsonObject *timeout = json_array_get_object_element(params, 1);
  g_assert_cmpstr(json_object_get_string_member(timeout, "type"), ==, "number");
  JsonObject *range = json_object_get_object_member(timeout, "range");
  g_assert_cmpfloat(json_object_get_double_member(range, "min"), ==, 0.0);
  g_assert_cmpfloat(json_object_get_double_member(range, "max"), ==, 1e9);
  g_object_unref(parser);
  cli_run_clear(&r);

  /* Built-in, json: integer ranges stay integers. */
  r = cli_run("protocols", "muffliato", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  o = cli_run_json(&r, &parser);
  g_assert_cmpstr(json_object_get_string_member(o, "origin"), ==, "built-in");
  g_assert_true(json_object_get_null_member(o, "path"));
  range = json_object_get_object_member(
      json_array_get_object_element(json_object_get_array_member(o, "parameters"), 0), "range");
  g_assert_cmpint(json_object_get_int_member(range, "max"), ==, 1000000);
  g_object_unref(parser);
  cli_run_clear(&r);
  g_free(path);
}

/* Plugins of $DPGOSSIP_PLUGIN_PATH are listed; broken files are reported. */
static void test_search_path(void) {
  char *dir = test_tmpdir("cli-plugins");
  char *src = plugin("tiny-dsgd"), *copy = g_build_filename(dir, "my-tiny.so", NULL);
  char *data = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(src, &data, &len, NULL));
  g_assert_true(g_file_set_contents(copy, data, (gssize)len, NULL));
  g_free(data);
  char *broken = g_build_filename(dir, "broken.so", NULL);
  g_assert_true(g_file_set_contents(broken, "garbage", -1, NULL));
  g_setenv("DPGOSSIP_PLUGIN_PATH", dir, TRUE);

  CliRun r = cli_run("protocols");
  g_assert_cmpint(r.status, ==, 0);
  char *line = g_strdup_printf("tiny-dsgd (plugin: %s/my-tiny.so)", dir);
  assert_has(r.out, line);
  assert_has(r.out, "(8 built-in, ");
  assert_has(r.err, "warning: skipped plugin ");
  assert_has(r.err, "broken.so cannot be loaded as a shared object");
  cli_run_clear(&r);

  r = cli_run("protocols", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpstr(r.err, ==, "");
  JsonParser *parser = NULL;
  JsonObject *o = cli_run_json(&r, &parser);
  JsonArray *protos = json_object_get_array_member(o, "protocols");
  gboolean found = FALSE;
  for (guint i = 0; i < json_array_get_length(protos); i++)
    found |= g_strcmp0(
                 json_object_get_string_member(json_array_get_object_element(protos, i), "name"),
                 "tiny-dsgd") == 0;
  g_assert_true(found);
  JsonArray *path = json_object_get_array_member(o, "search_path");
  g_assert_cmpstr(json_array_get_string_element(path, 0), ==, dir);
  JsonArray *skipped = json_object_get_array_member(o, "skipped");
  g_assert_cmpuint(json_array_get_length(skipped), ==, 1);
  g_assert_true(g_str_has_suffix(
      json_object_get_string_member(json_array_get_object_element(skipped, 0), "path"),
      "broken.so"));
  g_object_unref(parser);
  cli_run_clear(&r);

  /* train --protocol NAME finds it on the search path. */
  char *out = g_build_filename(dir, "out.csv", NULL);
  r = cli_run("train", "--generate", "ring:n=6", "--protocol", "tiny-dsgd", "--dataset",
              "synthetic:linear,n=120,d=3,seed=1", "--out", out);
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "train: tiny-dsgd, 6 nodes");
  cli_run_clear(&r);

  g_unsetenv("DPGOSSIP_PLUGIN_PATH");
  g_unlink(out);
  g_unlink(copy);
  g_unlink(broken);
  g_rmdir(dir);
  g_free(out);
  g_free(line);
  g_free(broken);
  g_free(copy);
  g_free(src);
  g_free(dir);
}

static void test_errors(void) {
  CliRun r = cli_run("protocols", "nope");
  g_assert_cmpint(r.status, ==, 2);
  assert_has(r.err, "unknown protocol 'nope' (valid: antipgd, decor, dsgd");
  assert_has(r.err, "no plugin provides protocol 'nope'");
  cli_run_clear(&r);
  r = cli_run("protocols", "--format", "csv");
  g_assert_cmpint(r.status, ==, 2);
  assert_has(r.err, "unknown format 'csv' (valid: table, json)");
  cli_run_clear(&r);
  r = cli_run("protocols", "dsgd", "muffliato");
  g_assert_cmpint(r.status, ==, 2);
  cli_run_clear(&r);
  char *bad = plugin("bad-no-start");
  r = cli_run("protocols", "--protocol-plugin", bad);
  g_assert_cmpint(r.status, ==, 2);
  assert_has(r.err, "--protocol-plugin: plugin ");
  assert_has(r.err, "has no on_start handler");
  cli_run_clear(&r);
  g_free(bad);
}

static void test_train_plugin(void) {
  char *path = plugin("gossip-pairs");
  char *dir = test_tmpdir("cli-train");
  char *out = g_build_filename(dir, "out.csv", NULL);
  /* With one plugin, --protocol defaults to its protocol. */
  CliRun r = cli_run("train", "--protocol-plugin", path, "--generate", "ring:n=6", "--dataset",
                     "synthetic:linear,n=120,d=3,seed=1", "--epochs", "2", "--out", out);
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "train: gossip-pairs, 6 nodes, 2 rounds");
  cli_run_clear(&r);
  r = cli_run("train", "--protocol-plugin", path, "--list-protocols");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "gossip-pairs: randomized pairwise gossip");
  assert_has(r.out, "timeout_ms=number (default 0, range [0, 1e+09])");
  cli_run_clear(&r);
  char *missing = g_build_filename(dir, "missing.so", NULL);
  r = cli_run("train", "--protocol-plugin", missing, "--generate", "ring:n=6", "--dataset",
              "synthetic:linear,n=120", "--out", out);
  g_assert_cmpint(r.status, ==, 2);
  char *want = g_strdup_printf("dpgossip train: --protocol-plugin: plugin %s: no such file",
                               missing);
  assert_has(r.err, want);
  cli_run_clear(&r);
  g_free(want);
  g_free(missing);
  g_unlink(out);
  g_rmdir(dir);
  g_free(out);
  g_free(dir);
  g_free(path);
}

/* The victims' mu of an accounting (JSON) and the path it took. */
static GArray *account_mu(const char *protocol, const char *plugin_path, char **path) {
  CliRun r = cli_run("account", "--generate", "regular:n=16,d=4,seed=3", "-T", "6", "--trust",
                     "pndp", "-a", "0", "--format", "json", "--protocol", protocol,
                     plugin_path ? "--protocol-plugin" : NULL, plugin_path);
  if (r.status != 0)
    g_error("account --protocol %s: %s", protocol, r.err);
  JsonParser *parser = NULL;
  JsonObject *o = cli_run_json(&r, &parser);
  *path = g_strdup(json_object_get_string_member(o, "path"));
  JsonArray *victims = json_object_get_array_member(o, "victims");
  GArray *mu = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint i = 0; i < json_array_get_length(victims); i++) {
    double m = json_object_get_double_member(json_array_get_object_element(victims, i), "mu");
    g_array_append_val(mu, m);
  }
  g_object_unref(parser);
  cli_run_clear(&r);
  return mu;
}

/* A plugin that declares its accounting shape (ProtoVTable.accounting_shape)
 * is accounted by the structured path, to the bit as the built-in it says
 * it is; the same protocol without the declaration goes to the observer
 * path (a simulation), which agrees to rounding. */
static void test_plugin_shape(void) {
  char *shaped = plugin("tiny-shaped"), *plain = plugin("tiny-dsgd");
  char *p_builtin = NULL, *p_shaped = NULL, *p_plain = NULL;
  GArray *builtin = account_mu("dsgd", NULL, &p_builtin);
  GArray *with_shape = account_mu("tiny-shaped", shaped, &p_shaped);
  GArray *without = account_mu("tiny-dsgd", plain, &p_plain);
  g_assert_cmpstr(p_builtin, ==, "structured");
  g_assert_cmpstr(p_shaped, ==, "structured");
  g_assert_cmpstr(p_plain, ==, "observer");
  g_assert_cmpuint(builtin->len, ==, 15);
  g_assert_cmpuint(with_shape->len, ==, builtin->len);
  g_assert_cmpuint(without->len, ==, builtin->len);
  for (guint i = 0; i < builtin->len; i++) {
    double want = g_array_index(builtin, double, i);
    g_assert_cmpfloat(g_array_index(with_shape, double, i), ==, want);
    /* Two engines on a 16-node, 6-step problem: a few hundred flops per
     * entry at condition numbers below 1e3 (the printed JSON keeps 17
     * digits): 1e-9 relative is far above their rounding. */
    g_assert_cmpfloat(fabs(g_array_index(without, double, i) - want), <=, 1e-9 * want);
  }
  g_array_unref(builtin);
  g_array_unref(with_shape);
  g_array_unref(without);
  g_free(p_builtin);
  g_free(p_shaped);
  g_free(p_plain);
  g_free(shaped);
  g_free(plain);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  /* Only the plugins the tests put on the path. */
  g_setenv("DPGOSSIP_PLUGIN_PATH", "", TRUE);
  g_test_add_func("/cli/protocols/list-table", test_list_table);
  g_test_add_func("/cli/protocols/one-json", test_one_json);
  g_test_add_func("/cli/protocols/search-path", test_search_path);
  g_test_add_func("/cli/protocols/errors", test_errors);
  g_test_add_func("/cli/protocols/train-plugin", test_train_plugin);
  g_test_add_func("/cli/protocols/plugin-shape", test_plugin_shape);
  return g_test_run();
}
