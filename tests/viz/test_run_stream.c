/*
 * tests/viz/test_run_stream.c: `dpgossip run FILE --record/--publish`: a
 * one-point scenario as an event stream, with its accounting as privacy
 * events.
 *
 * D-SGD on a 6-node ring, T = 4 synchronous rounds, one attacker (node 0)
 * under PNDP and LDP. The trace must hold the run start (the scenario's
 * name, the ring), 6 * 2 * 4 = 48 message events, round events 0 to 4, 2
 * metric events (steps 2 and 4, after round 4: the lag of docs/events.md is
 * 4 rounds) whose values are metrics.csv's to the bit, one privacy event per
 * trust model whose mu and epsilon per victim are those of the run's own
 * privacy.csv, and the run end. With T = 12 (--set), the metric of step s
 * comes right after round s + 4 while the run goes on. A sweep is refused
 * with a message naming the point count.
 */
#include <math.h>
#include <stdlib.h>

#include "sim/sim.h"
#include "stream/stream.h"
#include "tests/common/files.h"
#include "tests/viz/viz_test_util.h"

static const char scenario[] = "[simulation]\n"
                               "name = tiny\n"
                               "seed = 2\n"
                               "[topology]\n"
                               "generate = ring:n=6\n"
                               "[protocol]\n"
                               "name = dsgd\n"
                               "sigma = 1\n"
                               "[task]\n"
                               "dataset = synthetic:linear,n=300,d=3,noise=0.1,seed=1\n"
                               "epochs = 2\n"
                               "batches = 2\n"
                               "eval_every = 2\n"
                               "[privacy]\n"
                               "trust = pndp;ldp\n"
                               "[collusion.zero]\n"
                               "nodes = 0\n"
                               "[output]\n"
                               "plots = false\n";

typedef struct {
  char *dir, *ini, *out, *trace;
} Fixture;

static void fixture_setup(Fixture *f, gconstpointer data) {
  (void)data;
  f->dir = test_tmpdir("run-stream");
  f->ini = g_build_filename(f->dir, "tiny.ini", NULL);
  f->out = g_build_filename(f->dir, "out", NULL);
  f->trace = g_build_filename(f->dir, "run.trace", NULL);
  g_assert_true(g_file_set_contents(f->ini, scenario, -1, NULL));
}

static void fixture_teardown(Fixture *f, gconstpointer data) {
  (void)data;
  test_rmtree(f->dir);
  g_free(f->dir);
  g_free(f->ini);
  g_free(f->out);
  g_free(f->trace);
}

/* metrics.csv's (train_loss, test_loss) of (@step, @node). */
static void csv_metric(const char *out_dir, guint step, guint node, double *train, double *test) {
  char *path = g_build_filename(out_dir, "metrics.csv", NULL), *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  char **lines = g_strsplit(text, "\n", -1);
  gboolean found = FALSE;
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    char **c = g_strsplit(lines[i], ",", -1);
    if ((guint)atoi(c[0]) == step && g_ascii_isdigit(c[1][0]) && (guint)atoi(c[1]) == node) {
      *train = g_ascii_strtod(c[2], NULL);
      *test = g_ascii_strtod(c[3], NULL);
      found = TRUE;
    }
    g_strfreev(c);
  }
  g_assert_true(found);
  g_strfreev(lines);
  g_free(text);
  g_free(path);
}

/* A metric event's values are metrics.csv's, exactly (both round-trip). */
static void check_metric_values(JsonObject *o, const char *out_dir, guint step) {
  JsonArray *nodes = json_object_get_array_member(o, "nodes");
  JsonArray *train = json_object_get_array_member(o, "train_loss");
  JsonArray *test = json_object_get_array_member(o, "test_loss");
  g_assert_cmpuint(json_array_get_length(nodes), ==, 6);
  for (guint k = 0; k < 6; k++) {
    double want_train, want_test;
    csv_metric(out_dir, step, (guint)json_array_get_int_element(nodes, k), &want_train, &want_test);
    g_assert_cmpfloat(json_array_get_double_element(train, k), ==, want_train);
    g_assert_cmpfloat(json_array_get_double_element(test, k), ==, want_test);
  }
}

/* privacy.csv's mu and epsilon of @victim under @trust. */
static void csv_privacy(const char *out_dir, const char *trust, guint victim, double *mu,
                        double *eps) {
  char *path = g_build_filename(out_dir, "privacy.csv", NULL), *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  char **lines = g_strsplit(text, "\n", -1);
  gboolean found = FALSE;
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    char **c = g_strsplit(lines[i], ",", -1);
    if (strcmp(c[1], trust) == 0 && (guint)atoi(c[2]) == victim) {
      *mu = g_ascii_strtod(c[5], NULL);
      *eps = g_ascii_strtod(c[7], NULL);
      found = TRUE;
    }
    g_strfreev(c);
  }
  g_assert_true(found);
  g_strfreev(lines);
  g_free(text);
  g_free(path);
}

static void test_record(Fixture *f, gconstpointer data) {
  (void)data;
  char *err = NULL;
  int status = vt_wait(vt_spawn("run", f->ini, "--out", f->out, "--record", f->trace, "--quiet"),
                       &err);
  if (status != 0)
    g_error("run --record failed: %s", err);
  g_assert_nonnull(strstr(err, "0 dropped"));
  g_free(err);

  GError *error = NULL;
  StreamTraceReader *r = stream_trace_reader_open(f->trace, &error);
  g_assert_no_error(error);
  StreamTraceRecord rec;
  guint index = 0, messages = 0, rounds = 0, metrics = 0, privacy = 0;
  gboolean ended = FALSE;
  int rc;
  while ((rc = stream_trace_reader_next(r, &rec, &error)) == 1) {
    JsonParser *p = NULL;
    JsonObject *o = vt_json(rec.body, &p);
    g_assert_false(ended); /* nothing after the run end */
    if (index == 0) {
      g_assert_cmpstr(rec.topic, ==, "run");
      g_assert_cmpstr(json_object_get_string_member(o, "event"), ==, "start");
      g_assert_cmpstr(json_object_get_string_member(o, "name"), ==, "tiny");
      g_assert_cmpstr(json_object_get_string_member(o, "command"), ==, "run");
      g_assert_cmpint(vt_int(o, "seed"), ==, 2);
      g_assert_cmpint(vt_int(o, "rounds"), ==, 4);
      g_assert_cmpint(vt_int(json_object_get_object_member(o, "graph"), "n"), ==, 6);
    } else if (strcmp(rec.topic, "message") == 0) {
      messages++;
    } else if (strcmp(rec.topic, "round") == 0) {
      g_assert_cmpint(vt_int(o, "round"), ==, rounds); /* rounds completed: 0 .. T */
      rounds++;
    } else if (strcmp(rec.topic, "metric") == 0) {
      g_assert_cmpint(vt_int(o, "round"), ==, metrics == 0 ? 2 : 4);
      g_assert_cmpuint(rounds, ==, 5); /* s + 4 > T: after the simulation */
      g_assert_cmpuint(privacy, ==, 0);
      check_metric_values(o, f->out, metrics == 0 ? 2 : 4);
      metrics++;
    } else if (strcmp(rec.topic, "privacy") == 0) {
      const char *trust = json_object_get_string_member(o, "trust");
      g_assert_cmpstr(trust, ==, privacy == 0 ? "pndp" : "ldp");
      g_assert_cmpstr(json_object_get_string_member(o, "collusion"), ==, "zero");
      g_assert_cmpint(vt_int(o, "round"), ==, 4);
      JsonArray *att = json_object_get_array_member(o, "attackers");
      g_assert_cmpuint(json_array_get_length(att), ==, 1);
      g_assert_cmpint(json_array_get_int_element(att, 0), ==, 0);
      JsonArray *v = json_object_get_array_member(o, "victims");
      JsonArray *mu = json_object_get_array_member(o, "mu");
      JsonArray *eps = json_object_get_array_member(o, "epsilon");
      g_assert_cmpuint(json_array_get_length(v), ==, 5); /* every node but the attacker */
      for (guint k = 0; k < 5; k++) {
        guint victim = (guint)json_array_get_int_element(v, k);
        double want_mu, want_eps;
        csv_privacy(f->out, trust, victim, &want_mu, &want_eps);
        /* Exact: the run's one report, printed %.17g in the CSV and
         * round-trip in the stream's JSON. */
        g_assert_cmpfloat(json_array_get_double_element(mu, k), ==, want_mu);
        g_assert_cmpfloat(json_array_get_double_element(eps, k), ==, want_eps);
      }
      privacy++;
    } else {
      g_assert_cmpstr(rec.topic, ==, "run");
      g_assert_cmpstr(json_object_get_string_member(o, "event"), ==, "end");
      g_assert_cmpstr(json_object_get_string_member(o, "status"), ==, "ok");
      g_assert_cmpint(vt_int(json_object_get_object_member(o, "engine"), "messages_sent"), ==, 48);
      ended = TRUE;
    }
    g_object_unref(p);
    index++;
  }
  g_assert_no_error(error);
  g_assert_cmpint(rc, ==, 0);
  stream_trace_reader_free(r);
  g_assert_true(ended);
  g_assert_cmpuint(messages, ==, 48);
  g_assert_cmpuint(rounds, ==, 5);
  g_assert_cmpuint(metrics, ==, 2);
  g_assert_cmpuint(privacy, ==, 2);
}

/* T = 12: metric events while the run goes on, step s right after round s + 4. */
static void test_live_metrics(Fixture *f, gconstpointer data) {
  (void)data;
  char *err = NULL;
  int status = vt_wait(vt_spawn("run", f->ini, "--out", f->out, "--record", f->trace, "--quiet",
                                "--set", "task.epochs=3", "--set", "task.batches=4"),
                       &err);
  if (status != 0)
    g_error("run --record failed: %s", err);
  g_free(err);
  GError *error = NULL;
  StreamTraceReader *r = stream_trace_reader_open(f->trace, &error);
  g_assert_no_error(error);
  StreamTraceRecord rec;
  guint rounds = 0, metrics = 0;
  gboolean prev_round = FALSE;
  gint64 round_t[13];
  int rc;
  while ((rc = stream_trace_reader_next(r, &rec, &error)) == 1) {
    JsonParser *p = NULL;
    JsonObject *o = vt_json(rec.body, &p);
    gboolean is_round = strcmp(rec.topic, "round") == 0;
    if (is_round) {
      g_assert_cmpint(vt_int(o, "round"), ==, rounds);
      round_t[rounds++] = vt_int(o, "t_ns");
    } else if (strcmp(rec.topic, "metric") == 0) {
      guint s = 2 * (metrics + 1);
      g_assert_cmpint(vt_int(o, "round"), ==, s);
      if (s + 4 <= 12) {
        g_assert_true(prev_round);
        g_assert_cmpuint(rounds, ==, s + 4 + 1);
        g_assert_cmpint(vt_int(o, "t_ns"), ==, round_t[s + 4]);
      } else {
        g_assert_cmpuint(rounds, ==, 13);
      }
      check_metric_values(o, f->out, s);
      metrics++;
    }
    prev_round = is_round;
    g_object_unref(p);
  }
  g_assert_no_error(error);
  g_assert_cmpint(rc, ==, 0);
  stream_trace_reader_free(r);
  g_assert_cmpuint(rounds, ==, 13);
  g_assert_cmpuint(metrics, ==, 6);
}

/* --pace 150: the rounds reach a live subscriber at least ~150 ms apart
 * (without it the 5 rounds of this run take a few ms); --pace needs
 * --publish and is bounded. */
static void test_pace(Fixture *f, gconstpointer data) {
  (void)data;
  vt_check_paced(
      (const char *const[]){"run", f->ini, "--out", f->out, "--quiet", "--pace", "150", NULL}, 5,
      120.0);
  const char *bad[][3] = {{"--pace", "100", "--publish"}, {"--pace", "-1", "--pace"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *err = NULL;
    int status = vt_wait(
        vt_spawn("run", f->ini, "--out", f->out, "--record", f->trace, bad[i][0], bad[i][1]), &err);
    g_assert_cmpint(status, ==, 2);
    if (strstr(err, bad[i][2]) == NULL)
      g_error("stderr '%s' does not name %s", err, bad[i][2]);
    g_free(err);
  }
}

/* A sweep is refused before anything runs or is written. */
static void test_sweep_refused(Fixture *f, gconstpointer data) {
  (void)data;
  char *err = NULL;
  int status = vt_wait(vt_spawn("run", f->ini, "--out", f->out, "--record", f->trace, "--set",
                                "sweep.simulation.seed=1..3"),
                       &err);
  g_assert_cmpint(status, ==, 2);
  if (strstr(err, "sweeps 3 points") == NULL)
    g_error("stderr '%s' does not say the sweep has 3 points", err);
  g_assert_false(g_file_test(f->trace, G_FILE_TEST_EXISTS));
  g_assert_false(g_file_test(f->out, G_FILE_TEST_EXISTS));
  g_free(err);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add("/viz/run-stream/record", Fixture, NULL, fixture_setup, test_record, fixture_teardown);
  g_test_add("/viz/run-stream/live-metrics", Fixture, NULL, fixture_setup, test_live_metrics,
             fixture_teardown);
  g_test_add("/viz/run-stream/pace", Fixture, NULL, fixture_setup, test_pace, fixture_teardown);
  g_test_add("/viz/run-stream/sweep-refused", Fixture, NULL, fixture_setup, test_sweep_refused,
             fixture_teardown);
  return g_test_run();
}
