/*
 * tests/cli/test_consistency.c: one consistent command line: `help help`, "did you mean" for misspelled options, one
 * exit-status policy (usage errors 2, run errors 1), graphs named in
 * messages, nonprivate in train/account/protocols, figure's protocol list,
 * numbers (not strings) in JSON, what --out wrote, replay's speed unit.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tests/common/run_json.h"
#include "tests/common/files.h"

#define FLORENTINE "--generate", "florentine"
#define TRAIN_ARGS                                                                                 \
  "--dataset", "synthetic:linear,n=120,d=3,seed=1", "--model", "linear", "--epochs", "1",          \
      "--batches", "2"

static void assert_has(const char *text, const char *fragment) {
  if (strstr(text, fragment) == NULL)
    g_error("lacks '%s':\n%s", fragment, text);
}

static void test_help_help(void) {
  CliRun r = cli_run("help", "help");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "Usage: dpgossip COMMAND");
  /* The policy is documented where a user looks first. */
  assert_has(r.out, "Exit status: 0 success, 1 the run failed");
  assert_has(r.out, "2 a usage error");
  cli_run_clear(&r);
}

/* A misspelled long option gets the nearest one, whatever the command
 * (cli_parse or its own parser), its group (graph options) included. */
static void test_did_you_mean(void) {
  static const char *const cases[][3] = {
      {"account", "--generatee", "'--generate'"},
      {"graph", "--lc", "'--lcc'"},
      {"run", "--sed", "'--seed'"},
      {"train", "--epoch", "'--epochs'"},
      {"figure", "--rounds2", "'--rounds'"},
      {"protocols", "--formt", "'--format'"},
      {"replay", "--sped", "'--speed'"},
      {"validate", "--key", "'--keys'"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    CliRun r = cli_run(cases[i][0], cases[i][1]);
    g_assert_cmpint(r.status, ==, 2);
    char *want = g_strdup_printf("did you mean %s?", cases[i][2]);
    assert_has(r.err, want);
    g_free(want);
    cli_run_clear(&r);
  }
  /* Nothing close: no guess. */
  CliRun r = cli_run("graph", "--zzzzzzzzzz");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_null(strstr(r.err, "did you mean"));
  cli_run_clear(&r);
}

static void expect_status(int want, const char *fragment, const char *const *args) {
  CliRun r = cli_run_v(args);
  if (r.status != want || strstr(r.err, fragment) == NULL)
    g_error("%s %s: want status %d and '%s' on stderr, got %d: %s", args[0], args[1], want,
            fragment, r.status, r.err);
  cli_run_clear(&r);
}

/* The same kind of error, the same status, in every command. */
static void test_exit_policy(void) {
  char *dir = test_tmpdir("cli-consistency");
  char *out = g_build_filename(dir, "t.csv", NULL);
  /* A --generate spec that does not parse: a usage error everywhere. */
  expect_status(2, "unknown generator",
                (const char *const[]){"graph", "--generate", "nosuch", NULL});
  expect_status(2, "unknown generator",
                (const char *const[]){"account", "--generate", "nosuch", "-T", "4", "--trust",
                                      "pndp", "-a", "0", NULL});
  expect_status(
      2, "unknown generator",
      (const char *const[]){"mafalda", "--generate", "nosuch", "-k", "1", "-b", "2", NULL});
  expect_status(
      2, "unknown generator",
      (const char *const[]){"train", "--generate", "nosuch", TRAIN_ARGS, "--out", out, NULL});
  expect_status(2, "unknown generator",
                (const char *const[]){"figure", "privacy-vs-distance", "--generate", "nosuch", "-T",
                                      "4", "--trust", "pndp", "-a", "0", "--out", "x.svg", NULL});
  /* A graph file that does not exist: a failed run everywhere. */
  const char *missing = "/nonexistent/g.edges";
  expect_status(1, missing, (const char *const[]){"graph", "--graph", missing, NULL});
  expect_status(1, missing,
                (const char *const[]){"account", "--graph", missing, "-T", "4", "--trust", "pndp",
                                      "-a", "0", NULL});
  expect_status(1, missing,
                (const char *const[]){"mafalda", "--graph", missing, "-k", "1", "-b", "2", NULL});
  expect_status(1, missing,
                (const char *const[]){"train", "--graph", missing, TRAIN_ARGS, "--out", out, NULL});
  expect_status(1, missing,
                (const char *const[]){"figure", "privacy-vs-distance", "--graph", missing, "-T",
                                      "4", "--trust", "pndp", "-a", "0", "--out", "x.svg", NULL});
  /* A numeric option out of range: 2 (train used to say 1 for --sigma -1). */
  expect_status(
      2, "--sigma",
      (const char *const[]){"train", FLORENTINE, TRAIN_ARGS, "--sigma", "-1", "--out", out, NULL});
  expect_status(2, "--sigma",
                (const char *const[]){"account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a",
                                      "0", "--sigma", "-1", NULL});
  /* An unknown protocol: 2 in train and account alike. */
  expect_status(2, "unknown protocol",
                (const char *const[]){"train", FLORENTINE, TRAIN_ARGS, "--protocol", "nosuch",
                                      "--out", out, NULL});
  expect_status(2, "unknown protocol",
                (const char *const[]){"account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a",
                                      "0", "--protocol", "nosuch", NULL});
  /* An unknown command: 2. */
  expect_status(2, "did you mean 'graph'", (const char *const[]){"grpah", NULL});
  g_free(out);
  g_rmdir(dir);
  g_free(dir);
}

/* "node 20 is out of range for graph 'the graph'" named no graph. */
static void test_graph_named(void) {
  CliRun r = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "20");
  g_assert_cmpint(r.status, ==, 2);
  assert_has(r.err, "graph 'florentine' has 15 nodes");
  g_assert_null(strstr(r.err, "the graph"));
  cli_run_clear(&r);
  char *path = cli_data_path("graphs/florentine.edges");
  r = cli_run("account", "--graph", path, "-T", "4", "--trust", "pndp", "-a", "20");
  g_assert_cmpint(r.status, ==, 2);
  char *want = g_strdup_printf("graph '%s' has 15 nodes", path);
  assert_has(r.err, want);
  g_free(want);
  g_free(path);
  cli_run_clear(&r);
}

static void test_nonprivate(void) {
  /* protocols lists it and describes it. */
  CliRun r = cli_run("protocols", "nonprivate");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "nonprivate (built-in)");
  assert_has(r.out, "sigma = 0");
  cli_run_clear(&r);
  r = cli_run("protocols", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "\"name\" : \"nonprivate\"");
  cli_run_clear(&r);

  /* account: no protection, said so; every reachable victim mu = inf. */
  r = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--protocol",
              "nonprivate", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *parser;
  JsonObject *o = cli_run_json(&r, &parser);
  g_assert_cmpstr(json_object_get_string_member(o, "protocol"), ==, "nonprivate");
  g_assert_cmpfloat(json_object_get_double_member(o, "sigma"), ==, 0.0);
  JsonArray *victims = json_object_get_array_member(o, "victims");
  g_assert_cmpuint(json_array_get_length(victims), ==, 14);
  for (guint i = 0; i < json_array_get_length(victims); i++) {
    JsonObject *v = json_array_get_object_element(victims, i);
    g_assert_true(json_object_get_null_member(v, "mu")); /* inf: no protection */
  }
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "unprotected")), ==, 14);
  JsonArray *as = json_object_get_array_member(o, "assumptions");
  gboolean noted = FALSE;
  for (guint i = 0; i < json_array_get_length(as); i++)
    noted |= g_str_has_prefix(json_array_get_string_element(as, i), "nonprivate: no noise");
  g_assert_true(noted);
  g_object_unref(parser);
  cli_run_clear(&r);
  r = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--protocol",
              "nonprivate");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "protocol       nonprivate, 4 steps, sigma = 0");
  assert_has(r.out, "no protection");
  cli_run_clear(&r);
  r = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--protocol",
              "nonprivate", "--sigma", "2");
  g_assert_cmpint(r.status, ==, 2);
  assert_has(r.err, "nonprivate adds no noise");
  cli_run_clear(&r);

  /* train: runs D-SGD without noise, the same numbers as dsgd --sigma 0. */
  char *dir = test_tmpdir("cli-consistency");
  char *a = g_build_filename(dir, "a.csv", NULL), *b = g_build_filename(dir, "b.csv", NULL);
  r = cli_run("train", FLORENTINE, TRAIN_ARGS, "--protocol", "nonprivate", "--out", a);
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "train: nonprivate, 15 nodes");
  cli_run_clear(&r);
  r = cli_run("train", FLORENTINE, TRAIN_ARGS, "--protocol", "dsgd", "--sigma", "0", "--out", b);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  char *ta, *tb;
  g_assert_true(g_file_get_contents(a, &ta, NULL, NULL));
  g_assert_true(g_file_get_contents(b, &tb, NULL, NULL));
  g_assert_cmpstr(ta, ==, tb);
  g_free(ta);
  g_free(tb);
  g_unlink(a);
  g_unlink(b);
  g_rmdir(dir);
  g_free(a);
  g_free(b);
  g_free(dir);
}

static void test_figure_protocols(void) {
  CliRun r = cli_run("figure", "privacy-vs-distance", FLORENTINE, "-T", "4", "--trust", "pndp",
                     "-a", "0", "--protocol", "decor", "--out", "x.svg");
  g_assert_cmpint(r.status, ==, 2);
  assert_has(r.err, "supports dsgd only");
  g_assert_null(strstr(r.err, "unknown protocol"));
  cli_run_clear(&r);
}

/* Numbers are JSON numbers in their shortest round-trip form; the loss
 * probability is one (it was the string "0"). */
static void test_json_numbers(void) {
  CliRun r = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--path",
                     "observer", "--mode", "deadline:ms=5", "--loss", "0.1", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "\"delta\" : 1e-06,");
  assert_has(r.out, "\"loss\" : 0.1,");
  assert_has(r.out, "\"lr\" : 0.1,");
  g_assert_null(strstr(r.out, "9.9999999999999995e-07"));
  g_assert_null(strstr(r.out, "0.10000000000000001"));
  cli_run_clear(&r);
  r = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--path", "observer",
              "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.out, "\"loss\" : 0.0,");
  cli_run_clear(&r);
}

static void test_out_said(void) {
  char *dir = test_tmpdir("cli-consistency");
  char *c = g_build_filename(dir, "C.csv", NULL), *svg = g_build_filename(dir, "f.svg", NULL);
  CliRun r = cli_run("mafalda", FLORENTINE, "-k", "1", "-b", "2", "--out", c);
  g_assert_cmpint(r.status, ==, 0);
  char *want = g_strdup_printf("dpgossip mafalda: wrote %s (C_local, 2 x 2;", c);
  assert_has(r.err, want);
  g_free(want);
  g_assert_true(g_file_test(c, G_FILE_TEST_IS_REGULAR));
  cli_run_clear(&r);
  r = cli_run("figure", "privacy-vs-distance", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0",
              "--out", svg);
  g_assert_cmpint(r.status, ==, 0);
  want = g_strdup_printf("dpgossip figure: wrote %s (1 panel)\n", svg);
  g_assert_cmpstr(r.err, ==, want);
  g_free(want);
  cli_run_clear(&r);
  g_unlink(c);
  g_unlink(svg);
  g_rmdir(dir);
  g_free(c);
  g_free(svg);
  g_free(dir);
}

/* replay --speed 10 said "at 10": the unit is rounds per second. */
static void test_replay_speed_unit(void) {
  char *dir = test_tmpdir("cli-consistency");
  char *trace = g_build_filename(dir, "d.trace", NULL);
  CliRun r = cli_run("demo", "--record", trace);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  r = cli_run("replay", trace, "--publish", "tcp://127.0.0.1:0", "--publish-wait", "0", "--speed",
              "10");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.err, "at 10 rounds per second");
  cli_run_clear(&r);
  r = cli_run("replay", trace, "--publish", "tcp://127.0.0.1:0", "--publish-wait", "0", "--speed",
              "max");
  g_assert_cmpint(r.status, ==, 0);
  assert_has(r.err, "at full speed");
  cli_run_clear(&r);
  g_unlink(trace);
  g_rmdir(dir);
  g_free(trace);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/consistency/help-help", test_help_help);
  g_test_add_func("/cli/consistency/did-you-mean", test_did_you_mean);
  g_test_add_func("/cli/consistency/exit-policy", test_exit_policy);
  g_test_add_func("/cli/consistency/graph-named", test_graph_named);
  g_test_add_func("/cli/consistency/nonprivate", test_nonprivate);
  g_test_add_func("/cli/consistency/figure-protocols", test_figure_protocols);
  g_test_add_func("/cli/consistency/json-numbers", test_json_numbers);
  g_test_add_func("/cli/consistency/out-said", test_out_said);
  g_test_add_func("/cli/consistency/replay-speed-unit", test_replay_speed_unit);
  return g_test_run();
}
