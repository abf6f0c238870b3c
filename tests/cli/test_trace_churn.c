/*
 * tests/cli/test_trace_churn.c: churn from a session trace is accounted
 * exactly like the same departures written as a churn file, on the
 * structured path (sync) and the observer path (deadline mode), from the
 * command line and from a scenario file naming the trace relative to itself.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/run_json.h"
#include "tests/common/files.h"

/* `dpgossip account` on ring:n=4, T = 10, attackers @attackers, as CSV. */
static char *account(const char *schedule, const char *mode, const char *attackers) {
  CliRun r = cli_run("account", "--generate", "ring:n=4", "-T", "10", "--sigma", "1", "--trust",
                     "pndp", "-a", attackers, "--schedule", schedule, "--mode", mode, "--format",
                     "csv");
  if (r.status != 0)
    g_error("account --schedule %s --mode %s: exit %d: %s", schedule, mode, r.status, r.err);
  char *out = g_steal_pointer(&r.out);
  cli_run_clear(&r);
  return out;
}

static void test_account_equals_churn_file(void) {
  char *trace = cli_test_data_path("topo-trace-sessions.txt");
  char *churn = cli_test_data_path("topo-trace-sessions-churn.txt");
  char *trace_spec = g_strdup_printf("churn:trace=%s,map=identity", trace);
  char *churn_spec = g_strdup_printf("churn:%s", churn);
  const char *const modes[] = {"sync", "deadline:ms=5"};
  for (guint i = 0; i < G_N_ELEMENTS(modes); i++) {
    char *a = account(trace_spec, modes[i], "all"), *b = account(churn_spec, modes[i], "all"),
         *c = account("static", modes[i], "all");
    g_assert_cmpstr(a, ==, b);
    g_assert_cmpstr(a, !=, c); /* the departures matter */
    /* Deadline mode too: the structured path on the run's delivery record. */
    g_assert_nonnull(strstr(a, ",structured,"));
    g_free(a);
    g_free(b);
    g_free(c);
  }
  g_free(trace_spec);
  g_free(churn_spec);
  g_free(churn);
  g_free(trace);
}

/* @text without the first field of each line (the set's name). */
static char *drop_first_column(const char *text) {
  GString *s = g_string_new(NULL);
  char **lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    const char *comma = strchr(lines[i], ',');
    if (comma != NULL)
      g_string_append_printf(s, "%s\n", comma + 1);
  }
  g_strfreev(lines);
  return g_string_free(s, FALSE);
}

static void test_scenario(void) {
  char *dir = test_tmpdir("dpg-trace");
  char *src = cli_test_data_path("topo-trace-sessions.txt");
  char *text = NULL;
  g_assert_true(g_file_get_contents(src, &text, NULL, NULL));
  char *trace = g_build_filename(dir, "trace.txt", NULL);
  g_assert_true(g_file_set_contents(trace, text, -1, NULL));
  g_free(text);
  char *ini = g_build_filename(dir, "s.ini", NULL);
  g_assert_true(g_file_set_contents(
      ini,
      "[simulation]\nrounds = 10\nseed = 0\n[topology]\ngenerate = ring:n=4\n"
      "schedule = churn:trace=trace.txt,map=identity\n[protocol]\nsigma = 1\n[privacy]\n"
      "trust = pndp\n[collusion.a]\nnodes = 0\n[output]\nplots = false\n",
      -1, NULL));
  char *out = g_build_filename(dir, "out", NULL);
  CliRun r = cli_run("run", ini, "-o", out, "-q", "-j", "1");
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  char *csv = g_build_filename(out, "privacy.csv", NULL);
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  char *spec = g_strdup_printf("churn:trace=%s,map=identity", src);
  char *want = account(spec, "sync", "0");
  char *x = drop_first_column(text), *y = drop_first_column(want);
  g_assert_cmpstr(x, ==, y);
  g_free(x);
  g_free(y);
  g_free(want);
  g_free(spec);
  g_free(text);
  /* Without the trace beside it, the scenario names the file it looked for. */
  g_unlink(trace);
  r = cli_run("validate", ini);
  g_assert_cmpint(r.status, !=, 0);
  char *needle = g_strdup_printf("trace file not found: %s", trace);
  if (strstr(r.err, needle) == NULL && strstr(r.out, needle) == NULL)
    g_error("validate: '%s' lacks '%s'", r.err, needle);
  g_free(needle);
  cli_run_clear(&r);
  g_unlink(csv);
  g_free(csv);
  const char *const names[] = {"metrics.csv", "metrics_mean.csv", "scenario.resolved.ini",
                               "summary.json"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    char *p = g_build_filename(out, names[i], NULL);
    g_unlink(p);
    g_free(p);
  }
  g_rmdir(out);
  g_unlink(ini);
  g_rmdir(dir);
  g_free(out);
  g_free(ini);
  g_free(trace);
  g_free(src);
  g_free(dir);
}

/* `dpgossip graph --schedule --rounds`: the statistics of the hand-counted
 * table (tests/topologies/test_trace_churn.c) in the JSON output. */
static void test_graph_stats(void) {
  char *trace = cli_test_data_path("topo-trace-sessions.txt");
  char *spec = g_strdup_printf("churn:trace=%s,map=identity", trace);
  CliRun r = cli_run("graph", "--generate", "ring:n=4", "--schedule", spec, "--rounds", "12",
                     "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *parser = NULL;
  JsonObject *o = json_object_get_object_member(cli_run_json(&r, &parser), "churn");
  g_assert_cmpint(json_object_get_int_member(o, "rounds"), ==, 12);
  JsonArray *online = json_object_get_array_member(o, "online");
  g_assert_cmpuint(json_array_get_length(online), ==, 12);
  g_assert_cmpfloat(json_array_get_double_element(online, 8), ==, 0.25);
  JsonObject *on = json_object_get_object_member(o, "online_sessions");
  g_assert_cmpint(json_object_get_int_member(on, "count"), ==, 7);
  g_assert_cmpint(json_object_get_int_member(on, "median_rounds"), ==, 3);
  g_assert_cmpint(json_object_get_int_member(o, "always_online"), ==, 1);
  g_object_unref(parser);
  cli_run_clear(&r);
  r = cli_run("graph", "--generate", "ring:n=4", "--schedule", spec, "--rounds", "0");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--rounds must be positive"));
  cli_run_clear(&r);
  g_free(spec);
  g_free(trace);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/trace-churn/account-equals-churn-file", test_account_equals_churn_file);
  g_test_add_func("/cli/trace-churn/scenario", test_scenario);
  g_test_add_func("/cli/trace-churn/graph-stats", test_graph_stats);
  return g_test_run();
}
