/*
 * tests/cli/test_inputs_outputs.c: what a command checks before its work:
 * every output path (--out, --data, --write-edges) refused at once with
 * exit 1 and a message naming the option and the reason, never after a
 * full run; nodes without an edge warned about as attackers and as
 * victims; and an edge list that gives each edge in both directions told
 * apart from one that repeats edges.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"
#include "tests/common/checks.h"

static char *dir;

static char *path_in(const char *name) {
  return g_build_filename(dir, name, NULL);
}

/* @r failed with status 1, printing exactly @line first and nothing on stdout. */
static void expect_refused(CliRun *r, const char *line) {
  g_assert_cmpint(r->status, ==, 1);
  char *first = g_strndup(r->err, strcspn(r->err, "\n"));
  g_assert_cmpstr(first, ==, line);
  g_assert_cmpstr(r->out, ==, "");
  g_free(first);
  cli_run_clear(r);
}

static void test_output_paths(void) {
  char *missing = path_in("missing/x.csv");
  char *line = g_strdup_printf("--out %s: folder %s/missing does not exist", missing, dir);
  /* Long enough that a check after the training would show. */
  CliRun r = cli_run("train", "--generate", "florentine", "-d", "synthetic:linear", "-k", "400",
                     "-b", "8", "-q", "-o", missing);
  char *want = g_strdup_printf("dpgossip train: %s", line);
  expect_refused(&r, want);
  g_free(want);
  r = cli_run("mafalda", "--generate", "florentine", "-k", "2", "-b", "4", "-o", missing);
  want = g_strdup_printf("dpgossip mafalda: %s", line);
  expect_refused(&r, want);
  g_free(want);
  char *svg = path_in("missing/f.svg");
  r = cli_run("figure", "privacy-vs-distance", "--generate", "florentine", "-a", "0", "-T", "5",
              "-o", svg);
  want = g_strdup_printf("dpgossip figure: --out %s: folder %s/missing does not exist", svg, dir);
  expect_refused(&r, want);
  g_free(want);
  char *ok_svg = path_in("f.svg");
  r = cli_run("figure", "privacy-vs-distance", "--generate", "florentine", "-a", "0", "-T", "5",
              "-o", ok_svg, "--data", missing);
  want = g_strdup_printf("dpgossip figure: --data %s: folder %s/missing does not exist", missing,
                         dir);
  expect_refused(&r, want);
  g_assert_false(g_file_test(ok_svg, G_FILE_TEST_EXISTS));
  g_free(want);
  r = cli_run("graph", "--generate", "florentine", "--write-edges", missing);
  want = g_strdup_printf("dpgossip graph: --write-edges %s: folder %s/missing does not exist",
                         missing, dir);
  expect_refused(&r, want);
  g_free(want);
  /* A folder where a file is wanted. */
  r = cli_run("train", "--generate", "florentine", "-d", "synthetic:linear", "-q", "-o", dir);
  want = g_strdup_printf("dpgossip train: --out %s: is a folder, not a file", dir);
  expect_refused(&r, want);
  g_free(want);
  g_free(ok_svg);
  g_free(svg);
  g_free(line);
  g_free(missing);
}

static void test_isolated(void) {
  g_free(test_write_file(dir, "iso.edges", "0 1\n1 2\n2 0\n3 3\n", -1));
  char *graph = path_in("iso.edges");
  CliRun r = cli_run("account", "--graph", graph, "-T", "4", "--trust", "pndp", "-a", "3");
  g_assert_cmpint(r.status, ==, 0);
  const char *nothing = "dpgossip account: warning: trust pndp, attacker 3 received no message "
                        "carrying a victim's data in the whole run: it has no edge in the graph; "
                        "every victim's eps = 0 says it saw nothing, not that the gossip "
                        "protects\n";
  g_assert_nonnull(strstr(r.err, nothing));
  cli_run_clear(&r);
  /* JSON carries it too, for a reader of stdout alone. */
  r = cli_run("account", "--graph", graph, "-T", "4", "--trust", "pndp", "-a", "3", "--format",
              "json");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, nothing));
  g_assert_nonnull(strstr(r.out, "\"warnings\" : [\n    \"trust pndp, attacker 3 received no "
                                 "message"));
  cli_run_clear(&r);
  const char *victim = "warning: node 3 has no edge: it shares nothing, so its guarantee is "
                       "trivial (mu = 0) and it takes no part in the gossip (--lcc keeps the "
                       "largest component)\n";
  r = cli_run("account", "--graph", graph, "-T", "4", "--trust", "pndp", "-a", "0");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, victim));
  g_assert_null(strstr(r.err, "attacker"));
  cli_run_clear(&r);
  char *csv = path_in("iso.csv");
  r = cli_run("train", "--graph", graph, "-d", "synthetic:linear", "-q", "-o", csv);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, victim));
  cli_run_clear(&r);
  /* Not isolated, but offline for the whole run under churn (a measured
   * session trace): the same rule, every format, with the cause. */
  char *trace = cli_data_path("real/stunner-sessions-100.txt.gz");
  char *churn = g_strdup_printf("churn:trace=%s,format=stunner,scale=600", trace);
  const char *formats[] = {"table", "csv", "json"};
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    r = cli_run("account", "--generate", "regular:n=200,d=6,seed=1", "-T", "20", "-b", "10",
                "--schedule", churn, "--seed", "1", "-a", "0", "--trust", "pndp", "--format",
                formats[f]);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_nonnull(strstr(r.err, "dpgossip account: warning: trust pndp, attacker 0 received "
                                   "no message carrying a victim's data in the whole run: no "
                                   "round of the schedule linked the set to a victim while both "
                                   "were online"));
    cli_run_clear(&r);
  }
  /* Online but under LDP: every message is seen, nothing to warn about. */
  r = cli_run("account", "--generate", "regular:n=200,d=6,seed=1", "-T", "20", "-b", "10",
              "--schedule", churn, "--seed", "1", "-a", "0", "--trust", "ldp");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_null(strstr(r.err, "warning"));
  cli_run_clear(&r);
  g_free(churn);
  g_free(trace);
  /* A connected graph: no warning. */
  r = cli_run("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_null(strstr(r.err, "warning"));
  cli_run_clear(&r);
  g_free(csv);
  g_free(graph);
}

static void test_both_directions(void) {
  const struct {
    const char *text, *notice;
  } cases[] = {
      {"0 1\n1 0\n1 2\n2 1\n", "2 edges listed in both directions ('u v' and 'v u'): read as "
                               "undirected"},
      {"0 1\n0 1\n1 2\n", "dropped 1 duplicate edge"},
      /* {0,1} both ways; {1,2} twice the same way; {2,3} once one way and
       * twice the other: 3 copies dropped beyond the one listing. */
      {"0 1\n1 0\n1 2\n1 2\n2 3\n3 2\n3 2\n4 4\n",
       "dropped 1 self-loop and 3 duplicate edges; 1 edge listed in both directions ('u v' and "
       "'v u'): read as undirected"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_free(test_write_file(dir, "d.edges", cases[i].text, -1));
    char *graph = path_in("d.edges");
    CliRun r = cli_run("graph", "--graph", graph);
    g_assert_cmpint(r.status, ==, 0);
    char *want = g_strdup_printf("dpgossip: %s: %s\n", graph, cases[i].notice);
    g_assert_cmpstr(r.err, ==, want);
    g_free(want);
    g_free(graph);
    cli_run_clear(&r);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  dir = test_tmpdir("io");
  g_test_add_func("/cli/inputs-outputs/output-paths", test_output_paths);
  g_test_add_func("/cli/inputs-outputs/isolated", test_isolated);
  g_test_add_func("/cli/inputs-outputs/both-directions", test_both_directions);
  int rc = g_test_run();
  char *argv_rm[] = {"rm", "-rf", dir, NULL};
  g_spawn_sync(NULL, argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(dir);
  return rc;
}
