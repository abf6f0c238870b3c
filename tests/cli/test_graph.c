/*
 * tests/cli/test_graph.c: the dpgossip command end to end: --version, help,
 * `graph` on embedded, generated and loaded graphs, and every bad input.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <sys/wait.h>

#include "tests/common/files.h"
#include "tests/common/run_json.h"
#include "tests/common/checks.h"
#include "tests/common/tolerance.h"

static void test_version(void) {
  CliRun r = cli_run("--version");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(g_str_has_prefix(r.out, "dpgossip "));
  cli_run_clear(&r);
}

static void test_help(void) {
  CliRun r = cli_run("help");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "graph"));
  cli_run_clear(&r);
  r = cli_run("help", "graph");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "--generate"));
  g_assert_nonnull(strstr(r.out, "--format"));
  cli_run_clear(&r);
}

static void test_no_command(void) {
  const char *none[] = {NULL};
  CliRun r = cli_run_v(none);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "Usage"));
  cli_run_clear(&r);
}

static void test_unknown_command(void) {
  CliRun r = cli_run("grpah");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "did you mean 'graph'"));
  cli_run_clear(&r);
}

static double member_double(JsonObject *o, const char *name) {
  return json_node_get_double(json_object_get_member(o, name));
}

/* Florentine: 15 nodes, 20 edges, degrees 1..6 (mean 8/3), diameter 5 (BFS by
 * hand); spectral gap of uniform W = 1 - 0.870733837492986, from a Jacobi
 * eigen-solve of D^{-1/2}(A+I)D^{-1/2} done outside the project. */
static void test_florentine_json(void) {
  CliRun r = cli_run("graph", "--generate", "florentine", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "nodes"), ==, 15);
  g_assert_cmpint(json_object_get_int_member(o, "edges"), ==, 20);
  g_assert_cmpint(json_object_get_int_member(o, "diameter"), ==, 5);
  g_assert_true(json_object_get_boolean_member(o, "connected"));
  JsonObject *deg = json_object_get_object_member(o, "degree");
  g_assert_cmpint(json_object_get_int_member(deg, "min"), ==, 1);
  g_assert_cmpint(json_object_get_int_member(deg, "max"), ==, 6);
  /* Exact: 2m / n = 40 / 15 is one division, the same real as 8 / 3. */
  g_assert_cmpfloat(member_double(deg, "mean"), ==, 8.0 / 3.0);
  /* A symmetric eigenvalue of the 15 x 15 S (||S|| = 1) to n eps, here and
   * in the outside reference: 2 n eps. */
  dpg_test_assert_le(fabs(member_double(o, "spectral_gap") - 0.12926616250701395),
                     2 * dpg_tol(1, 15),
                     "the JSON round-trips: dsyevd's n eps (||S|| = 1), and the reference's");
  g_object_unref(p);
  cli_run_clear(&r);

  r = cli_run("graph", "--generate", "florentine", "--gossip", "metropolis", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  o = cli_run_json(&r, &p);
  dpg_test_assert_le(fabs(member_double(o, "spectral_gap") - 0.05744130078034204),
                     2 * dpg_tol(1, 15),
                     "the JSON round-trips: dsyevd's n eps (||S|| = 1), and the reference's");
  g_object_unref(p);
  cli_run_clear(&r);
}

/* Ring of n with uniform W: eigenvalues (1 + 2 cos(2 pi k / n)) / 3, so the
 * second largest modulus is (1 + 2 cos(2 pi / n)) / 3 for even n >= 4 (checked
 * against k = n/2, whose value is -1/3). Diameter n/2. */
static void test_ring_closed_form(void) {
  CliRun r = cli_run("graph", "--generate", "ring:n=12", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "nodes"), ==, 12);
  g_assert_cmpint(json_object_get_int_member(o, "edges"), ==, 12);
  g_assert_cmpint(json_object_get_int_member(o, "diameter"), ==, 6);
  double lambda2 = (1.0 + 2.0 * cos(2.0 * G_PI / 12.0)) / 3.0;
  dpg_test_assert_le(fabs(member_double(o, "spectral_gap") - (1.0 - lambda2)),
                     dpg_tol(1, 12) + 4 * DBL_EPSILON,
                     "dsyevd's n eps (||S|| = 1), 4 eps for the closed form's cos");
  g_object_unref(p);
  cli_run_clear(&r);
}

/* Complete graph, uniform W = J/n: every other eigenvalue is 0, gap 1. */
static void test_complete_gap_one(void) {
  CliRun r = cli_run("graph", "--generate", "complete:n=9", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "edges"), ==, 36);
  g_assert_cmpint(json_object_get_int_member(o, "diameter"), ==, 1);
  dpg_test_assert_le(fabs(member_double(o, "spectral_gap") - 1.0), dpg_tol(1, 9),
                     "dsyevd's n eps (||S|| = 1)");
  g_object_unref(p);
  cli_run_clear(&r);
}

/* The raw SNAP ego network: its LCC is 148 nodes, 1692 edges, diameter 7
 * (BFS by hand), and written back it is exactly the shared reference file. */
static void test_facebook_lcc(void) {
  char *raw = cli_data_path("graphs/facebook-414.edges");
  char *ref = cli_data_path("graphs/facebook-ego-414-lcc.edges");
  char *dir = test_tmpdir("cli");
  char *out = g_build_filename(dir, "lcc.edges", NULL);
  CliRun r = cli_run("graph", "--graph", raw, "--lcc", "--format", "json", "--write-edges", out);
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "nodes"), ==, 148);
  g_assert_cmpint(json_object_get_int_member(o, "edges"), ==, 1692);
  g_assert_cmpint(json_object_get_int_member(o, "diameter"), ==, 7);
  g_object_unref(p);
  cli_run_clear(&r);

  /* Same edge set, line for line, once comments are set aside. */
  char *got = NULL, *want = NULL;
  g_assert_true(g_file_get_contents(out, &got, NULL, NULL));
  g_assert_true(g_file_get_contents(ref, &want, NULL, NULL));
  GString *want_edges = g_string_new(NULL), *got_edges = g_string_new(NULL);
  char **lines = g_strsplit(want, "\n", -1);
  for (char **l = lines; *l; l++)
    if (**l != '#' && **l != '\0')
      g_string_append_printf(want_edges, "%s\n", *l);
  g_strfreev(lines);
  lines = g_strsplit(got, "\n", -1);
  for (char **l = lines; *l; l++)
    if (**l != '#' && **l != '\0')
      g_string_append_printf(got_edges, "%s\n", *l);
  g_strfreev(lines);
  g_assert_cmpstr(got_edges->str, ==, want_edges->str);
  g_string_free(want_edges, TRUE);
  g_string_free(got_edges, TRUE);
  g_free(got);
  g_free(want);
  g_unlink(out);
  g_rmdir(dir);
  g_free(out);
  g_free(dir);
  g_free(raw);
  g_free(ref);
}

static void test_table_output(void) {
  CliRun r = cli_run("graph", "--generate", "karate");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "nodes          34\n"));
  g_assert_nonnull(strstr(r.out, "edges          78\n"));
  g_assert_nonnull(strstr(r.out, "diameter       5\n"));
  cli_run_clear(&r);
}

static void test_disconnected(void) {
  char *dir = test_tmpdir("cli");
  char *path = g_build_filename(dir, "two-components.edges", NULL);
  g_assert_true(g_file_set_contents(path, "0 1\n2 3\n", -1, NULL));
  CliRun r = cli_run("graph", "--graph", path, "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_false(json_object_get_boolean_member(o, "connected"));
  g_assert_true(json_object_get_null_member(o, "diameter"));
  /* The gap of a disconnected W is exactly 0 (it printed 2.22e-16), and
   * the output says why and how many components. */
  g_assert_cmpint(json_object_get_int_member(o, "components"), ==, 2);
  g_assert_cmpfloat(json_object_get_double_member(o, "spectral_gap"), ==, 0.0);
  g_assert_nonnull(
      strstr(json_object_get_string_member(o, "spectral_gap_note"), "disconnected: 2 components"));
  g_object_unref(p);
  cli_run_clear(&r);
  r = cli_run("graph", "--graph", path);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "spectral gap   0 (disconnected: 2 components, gossip never "
                                 "mixes across them; --lcc keeps the largest)\n"));
  g_assert_null(strstr(r.out, "e-16"));
  cli_run_clear(&r);
  r = cli_run("graph", "--graph", path, "--lcc", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  o = cli_run_json(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "nodes"), ==, 2);
  g_assert_true(json_object_get_boolean_member(o, "connected"));
  g_object_unref(p);
  cli_run_clear(&r);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

/* --graph-format and --ignore-weights: a weighted CSV given as what it is. */
static void test_formats(void) {
  char *dir = test_tmpdir("cli");
  char *path = g_build_filename(dir, "triangle.txt", NULL);
  g_assert_true(g_file_set_contents(path, "from,to,w\n0,1,1\n1,2,2\n2,0,1\n", -1, NULL));
  /* As an edge list (by extension) the header is an error at line 1. */
  CliRun r = cli_run("graph", "--graph", path);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "triangle.txt:1:"));
  cli_run_clear(&r);
  /* As CSV: the weights differ, refused with the way out... */
  r = cli_run("graph", "--graph", path, "--graph-format", "csv");
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "triangle.txt:3: edge weight 2 differs from 1"));
  g_assert_nonnull(strstr(r.err, "--ignore-weights"));
  cli_run_clear(&r);
  /* ... which loads the triangle (gap 1) and says what it dropped. */
  r = cli_run("graph", "--graph", path, "--graph-format", "csv", "--ignore-weights", "--format",
              "json");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, "edge weights ignored (--ignore-weights)"));
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "edges"), ==, 3);
  g_assert_cmpfloat(fabs(json_object_get_double_member(o, "spectral_gap") - 1.0), <, 1e-12);
  g_object_unref(p);
  cli_run_clear(&r);
  r = cli_run("graph", "--graph", path, "--graph-format", "dot");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--graph-format: unknown format 'dot'"));
  cli_run_clear(&r);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

/* Each bad input: one clear line on stderr, a non-zero status, no crash. */
static void expect_cli_error(int status, const char *needle, const char *const *args) {
  CliRun r = cli_run_v(args);
  if (r.status != status || strstr(r.err, needle) == NULL)
    g_error("expected status %d and '%s' in stderr, got %d: %s", status, needle, r.status, r.err);
  g_assert_cmpstr(r.out, ==, "");
  cli_run_clear(&r);
}

static void test_bad_inputs(void) {
  char *malformed = cli_test_data_path("cli-malformed.edges");
  expect_cli_error(1, "cli-malformed.edges:4",
                   (const char *const[]){"graph", "--graph", malformed, NULL});
  g_free(malformed);
  expect_cli_error(
      1, "no-such-file.edges",
      (const char *const[]){"graph", "--graph", "/nonexistent/no-such-file.edges", NULL});
  /* A --generate spec that does not parse is the user's option (docs/guide.md "Commands":
   * exit codes): 2, like --gossip nope. */
  expect_cli_error(2, "nosuch", (const char *const[]){"graph", "--generate", "nosuch:n=3", NULL});
  expect_cli_error(2, "q", (const char *const[]){"graph", "--generate", "ring:q=3", NULL});
  expect_cli_error(2, "exactly one",
                   (const char *const[]){"graph", "--generate", "ring:n=5", "--graph", "x", NULL});
  expect_cli_error(2, "exactly one", (const char *const[]){"graph", NULL});
  expect_cli_error(
      2, "gossip",
      (const char *const[]){"graph", "--generate", "florentine", "--gossip", "nope", NULL});
  expect_cli_error(
      2, "--format",
      (const char *const[]){"graph", "--generate", "florentine", "--format", "xml", NULL});
  expect_cli_error(2, "--bogus", (const char *const[]){"graph", "--bogus", NULL});
}

/* Dropped self-loops and duplicates and renumbered labels are said,
 * on stderr and in the JSON summary; a clean or generated graph says nothing. */
static void test_load_notice(void) {
  char *path = cli_test_data_path("topo-dropped.edges");
  CliRun r = cli_run("graph", "--graph", path, "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, "topo-dropped.edges: dropped 2 self-loops and 2 duplicate "
                                 "edges; node labels are not 0..n-1: kept as the nodes' names"));
  char **lines = g_strsplit(r.err, "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 2); /* one line */
  g_strfreev(lines);
  JsonParser *parser = NULL;
  JsonObject *o = cli_run_json(&r, &parser);
  JsonObject *load = json_object_get_object_member(o, "load");
  g_assert_nonnull(load);
  g_assert_cmpint(json_object_get_int_member(load, "self_loops_dropped"), ==, 2);
  g_assert_cmpint(json_object_get_int_member(load, "duplicate_edges_dropped"), ==, 2);
  g_assert_true(json_object_get_boolean_member(load, "renumbered"));
  g_object_unref(parser);
  cli_run_clear(&r);
  r = cli_run("graph", "--generate", "florentine", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpstr(r.err, ==, "");
  o = cli_run_json(&r, &parser);
  g_assert_true(json_object_get_null_member(o, "load"));
  g_object_unref(parser);
  cli_run_clear(&r);
  g_free(path);
}

/* --latency geo: three nodes a quarter of a great circle apart (two on the
 * equator, one at the pole) make every link of a triangle pi R / 2 km long:
 * with base 0, per_km 1 and no jitter each of its 6 directed links takes
 * that many ms. A node the file does not place is refused, as a run would. */
static void test_latency(void) {
  char *dir = test_tmpdir("graph-latency");
  char *nodes = g_build_filename(dir, "nodes.csv", NULL);
  g_assert_true(g_file_set_contents(nodes, "id,lon,lat\n2,0,90\n0,0,0\n1,90,0\n", -1, NULL));
  char *spec = g_strdup_printf("geo:nodes=%s,base=0,per_km=1,jitter=0,max=1e9", nodes);
  CliRun r = cli_run("graph", "--generate", "ring:n=3", "--latency", spec, "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *lat = json_object_get_object_member(cli_run_json(&r, &p), "latency");
  double quarter = G_PI / 2 * 6371.0088;
  g_assert_cmpint(json_object_get_int_member(lat, "links"), ==, 6);
  g_assert_cmpint(json_object_get_int_member(lat, "located_nodes"), ==, 3);
  g_assert_cmpfloat(fabs(member_double(lat, "min_ms") - quarter), <=, 1e-6);
  g_assert_cmpfloat(fabs(member_double(lat, "max_ms") - quarter), <=, 1e-6);
  g_object_unref(p);
  cli_run_clear(&r);
  r = cli_run("graph", "--generate", "ring:n=3", "--latency", spec);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "locations      3 nodes placed"));
  cli_run_clear(&r);
  expect_cli_error(
      1, "link 0 -> 3 has no delay",
      (const char *const[]){"graph", "--generate", "ring:n=4", "--latency", spec, NULL});
  expect_cli_error(
      2, "give a measured model",
      (const char *const[]){"graph", "--generate", "ring:n=4", "--latency", "constant:ms=1", NULL});
  g_free(spec);
  g_free(nodes);
  test_rmtree(dir);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/version", test_version);
  g_test_add_func("/cli/help", test_help);
  g_test_add_func("/cli/no-command", test_no_command);
  g_test_add_func("/cli/unknown-command", test_unknown_command);
  g_test_add_func("/cli/graph/florentine-json", test_florentine_json);
  g_test_add_func("/cli/graph/ring-closed-form", test_ring_closed_form);
  g_test_add_func("/cli/graph/load-notice", test_load_notice);
  g_test_add_func("/cli/graph/complete", test_complete_gap_one);
  g_test_add_func("/cli/graph/facebook-lcc", test_facebook_lcc);
  g_test_add_func("/cli/graph/table", test_table_output);
  g_test_add_func("/cli/graph/disconnected", test_disconnected);
  g_test_add_func("/cli/graph/formats", test_formats);
  g_test_add_func("/cli/graph/bad-inputs", test_bad_inputs);
  g_test_add_func("/cli/graph/latency", test_latency);
  return g_test_run();
}
