/*
 * tests/viz/test_train_stream.c: `dpgossip train --record/--publish`, a
 * decentralized training run as an event stream (docs/events.md).
 *
 * D-SGD on a 6-node ring, synthetic regression, T = 2 epochs x 2 batches =
 * 4 synchronous rounds, evaluated every 2 steps. What the trace must hold is
 * known by hand: a run start with the 6-node ring and its layout, each node
 * sending to its 2 neighbours every round (6 * 2 * 4 = 48 message events,
 * the engine's own count in the run end), round events 0 (the start) to 4,
 * and one metric event per evaluation (steps 2 and 4) with the 6 nodes'
 * losses equal to the CSV train writes; both come after round 4 (the lag of
 * docs/events.md is 4 rounds), at the run's final time.
 *
 * Live metrics: the same ring with 1 ms links and T = 12 (steps 2, 4, ...,
 * 12 evaluated). Round R comes at R ms; the metric of step s right after
 * round s + 4 (so before round s + 5) at its time, steps 10 and 12 after
 * round 12 at the final time; values equal the CSV. With --threads 1 and
 * --threads 3 the traces are byte-identical, and a live subscriber of the
 * 3-thread run receives exactly what the trace holds.
 */
#include <math.h>
#include <stdlib.h>

#include "sim/sim.h"
#include "stream/stream.h"
#include "tests/common/checks.h"
#include "tests/common/files.h"
#include "tests/viz/viz_test_util.h"

typedef struct {
  char *topic, *body;
} Rec;

static void rec_clear(gpointer p) {
  Rec *r = p;
  g_free(r->topic);
  g_free(r->body);
}

/* Every record of @path, checked by the trace reader (seq, time, crc). */
static GArray *read_trace(const char *path) {
  GError *error = NULL;
  StreamTraceReader *r = stream_trace_reader_open(path, &error);
  g_assert_no_error(error);
  GArray *out = g_array_new(FALSE, TRUE, sizeof(Rec));
  g_array_set_clear_func(out, rec_clear);
  StreamTraceRecord rec;
  int rc;
  while ((rc = stream_trace_reader_next(r, &rec, &error)) == 1) {
    Rec x = {g_strdup(rec.topic), g_strdup(rec.body)};
    g_array_append_val(out, x);
  }
  g_assert_no_error(error);
  g_assert_cmpint(rc, ==, 0);
  stream_trace_reader_free(r);
  return out;
}

/* csv[step][node] = test_loss, from train's CSV (steps 2 and 4). */
static void read_csv(const char *path, double test_loss[5][6]) {
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  char **lines = g_strsplit(text, "\n", -1);
  guint rows = 0;
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    char **f = g_strsplit(lines[i], ",", -1);
    guint step = (guint)atoi(f[0]), node = (guint)atoi(f[1]);
    g_assert_true((step == 2 || step == 4) && node < 6);
    test_loss[step][node] = g_ascii_strtod(f[3], NULL);
    rows++;
    g_strfreev(f);
  }
  g_assert_cmpuint(rows, ==, 12);
  g_strfreev(lines);
  g_free(text);
}

typedef struct {
  char *dir, *trace, *csv;
} Fixture;

static void fixture_setup(Fixture *f, gconstpointer data) {
  (void)data;
  f->dir = test_tmpdir("train-stream");
  f->trace = g_build_filename(f->dir, "train.trace", NULL);
  f->csv = g_build_filename(f->dir, "train.csv", NULL);
}

static void fixture_teardown(Fixture *f, gconstpointer data) {
  (void)data;
  g_unlink(f->trace);
  g_unlink(f->csv);
  g_rmdir(f->dir);
  g_free(f->trace);
  g_free(f->csv);
  g_free(f->dir);
}

#define TRAIN_ARGS                                                                                 \
  "train", "--generate", "ring:n=6", "--dataset", "synthetic:linear", "--epochs", "2",             \
      "--batches", "2", "--eval-every", "2", "--seed", "3"

static int run_train(const char *const *args, char **err) {
  return vt_wait(vt_spawn_v(args), err);
}

static void check_trace(GArray *ev, const char *csv_path, guint expect_messages) {
  double csv[5][6] = {{0}};
  read_csv(csv_path, csv);
  g_assert_cmpuint(ev->len, >=, 2);
  Rec *first = &g_array_index(ev, Rec, 0), *last = &g_array_index(ev, Rec, ev->len - 1);
  JsonParser *p = NULL;

  /* Run start: the ring with a layout. */
  g_assert_cmpstr(first->topic, ==, "run");
  JsonObject *o = vt_json(first->body, &p);
  g_assert_cmpstr(json_object_get_string_member(o, "event"), ==, "start");
  g_assert_cmpstr(json_object_get_string_member(o, "command"), ==, "train");
  g_assert_cmpint(vt_int(o, "rounds"), ==, 4);
  g_assert_cmpint(vt_int(o, "seed"), ==, 3);
  JsonObject *sc = json_object_get_object_member(o, "scenario");
  g_assert_cmpstr(json_object_get_string_member(sc, "protocol"), ==, "dsgd");
  JsonObject *graph = json_object_get_object_member(o, "graph");
  g_assert_cmpint(vt_int(graph, "n"), ==, 6);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(graph, "edges")), ==, 6);
  JsonArray *pos = json_object_get_array_member(graph, "positions");
  g_assert_cmpuint(json_array_get_length(pos), ==, 6);
  g_assert_false(json_object_has_member(graph, "labels")); /* ids: as before labels */
  for (guint u = 0; u < 6; u++) {
    JsonArray *xy = json_array_get_array_element(pos, u);
    g_assert_true(isfinite(json_array_get_double_element(xy, 0)));
    g_assert_true(isfinite(json_array_get_double_element(xy, 1)));
  }
  g_object_unref(p);

  guint messages = 0, rounds = 0, metrics = 0;
  gint64 last_t = -1;
  for (guint i = 1; i + 1 < ev->len; i++) {
    Rec *e = &g_array_index(ev, Rec, i);
    o = vt_json(e->body, &p);
    if (strcmp(e->topic, "message") == 0) {
      gint64 from = vt_int(o, "from"), to = vt_int(o, "to");
      g_assert_true((from + 1) % 6 == to || (to + 1) % 6 == from); /* ring neighbours */
      messages++;
    } else if (strcmp(e->topic, "round") == 0) {
      g_assert_cmpint(vt_int(o, "round"), ==, rounds); /* 0, 1, ..., T: rounds completed */
      if (rounds == 0)                                 /* the initial state, before any message */
        g_assert_cmpuint(i, ==, 1);
      rounds++;
    } else if (strcmp(e->topic, "metric") == 0) {
      guint step = metrics == 0 ? 2 : 4;
      g_assert_cmpuint(rounds, ==, 5); /* 2 + 4 > T: after the simulation */
      if (metrics == 0)
        last_t = vt_int(o, "t_ns");
      g_assert_cmpint(vt_int(o, "t_ns"), ==, last_t);
      g_assert_cmpint(vt_int(o, "round"), ==, step);
      JsonArray *nodes = json_object_get_array_member(o, "nodes");
      JsonArray *test = json_object_get_array_member(o, "test_loss");
      g_assert_cmpuint(json_array_get_length(nodes), ==, 6);
      g_assert_cmpuint(json_array_get_length(test), ==, 6);
      g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "train_loss")), ==, 6);
      g_assert_false(json_object_has_member(o, "accuracy")); /* regression */
      for (guint k = 0; k < 6; k++) {
        guint u = (guint)json_array_get_int_element(nodes, k);
        double got = json_array_get_double_element(test, k), want = csv[step][u];
        g_assert_cmpfloat(want, >, 0.0);
        g_assert_cmpfloat(fabs(got - want), <=, 1e-9 * want); /* CSV has 10 digits */
      }
      metrics++;
    } else {
      g_error("unexpected topic %s", e->topic);
    }
    g_object_unref(p);
  }
  g_assert_cmpuint(messages, ==, expect_messages);
  g_assert_cmpuint(rounds, ==, 5);
  g_assert_cmpuint(metrics, ==, 2);

  /* Run end: ok, with the engine's count of what was sent. */
  g_assert_cmpstr(last->topic, ==, "run");
  o = vt_json(last->body, &p);
  g_assert_cmpstr(json_object_get_string_member(o, "event"), ==, "end");
  g_assert_cmpint(vt_int(o, "t_ns"), ==, last_t);
  g_assert_cmpstr(json_object_get_string_member(o, "status"), ==, "ok");
  g_assert_cmpint(vt_int(json_object_get_object_member(o, "engine"), "messages_sent"), ==, 48);
  g_assert_cmpint(vt_int(json_object_get_object_member(o, "stream"), "messages_sampled_out"), ==,
                  48 - expect_messages);
  g_object_unref(p);
}

static void test_record(Fixture *f, gconstpointer data) {
  (void)data;
  char *err = NULL;
  int status = run_train(
      (const char *const[]){TRAIN_ARGS, "--record", f->trace, "--out", f->csv, NULL}, &err);
  if (status != 0)
    g_error("train --record failed: %s", err);
  g_assert_nonnull(strstr(err, "0 dropped"));
  g_free(err);
  GArray *ev = read_trace(f->trace);
  check_trace(ev, f->csv, 48);
  g_array_unref(ev);
}

static void test_sampling(Fixture *f, gconstpointer data) {
  (void)data;
  const char *specs[] = {"none", "every:5"};
  guint expect[] = {0, 10}; /* the 1st, 6th, ..., 46th of 48 */
  for (guint i = 0; i < G_N_ELEMENTS(specs); i++) {
    char *err = NULL;
    int status = run_train((const char *const[]){TRAIN_ARGS, "--record", f->trace,
                                                 "--publish-messages", specs[i], "--out", f->csv,
                                                 NULL},
                           &err);
    if (status != 0)
      g_error("train --publish-messages %s failed: %s", specs[i], err);
    g_free(err);
    GArray *ev = read_trace(f->trace);
    check_trace(ev, f->csv, expect[i]);
    g_array_unref(ev);
  }
}

/* What a subscriber receives live is what the trace holds, in order. */
static void test_live(Fixture *f, gconstpointer data) {
  (void)data;
  char *ep = g_strdup_printf("tcp://127.0.0.1:%u", vt_free_port());
  VtSub sub = vt_sub_new(ep);
  GArray *live = vt_events_new();
  char *err = NULL;
  int status = vt_run_collect(&sub, live, &err,
                              (const char *const[]){TRAIN_ARGS, "--publish", ep, "--publish-wait",
                                                    "30", "--record", f->trace, "--out", f->csv,
                                                    NULL});
  vt_sub_free(&sub);
  if (status != 0)
    g_error("train --publish failed: %s", err);
  g_assert_nonnull(strstr(err, "publishing on tcp://127.0.0.1:"));
  g_assert_nonnull(strstr(err, "0 dropped"));
  GArray *rec = read_trace(f->trace);
  g_assert_cmpuint(live->len, ==, rec->len);
  for (guint i = 0; i < rec->len; i++) {
    g_assert_cmpstr(g_array_index(live, VtEvent, i).topic, ==, g_array_index(rec, Rec, i).topic);
    g_assert_cmpstr(g_array_index(live, VtEvent, i).body, ==, g_array_index(rec, Rec, i).body);
  }
  check_trace(rec, f->csv, 48);
  g_array_unref(rec);
  g_array_unref(live);
  g_free(err);
  g_free(ep);
}

#define LIVE_ARGS                                                                                  \
  "train", "--generate", "ring:n=6", "--dataset", "synthetic:linear", "--epochs", "3",             \
      "--batches", "4", "--eval-every", "2", "--seed", "3", "--latency", "constant:ms=1"
#define LIVE_T 12
#define LAG 4 /* docs/events.md */

/* csv[step][node] = (train_loss, test_loss) of a T = 12 run, every 2 steps. */
static void read_csv_live(const char *path, double csv[LIVE_T + 1][6][2]) {
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  char **lines = g_strsplit(text, "\n", -1);
  guint rows = 0;
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    char **f = g_strsplit(lines[i], ",", -1);
    guint step = (guint)atoi(f[0]), node = (guint)atoi(f[1]);
    g_assert_true(step % 2 == 0 && step >= 2 && step <= LIVE_T && node < 6);
    csv[step][node][0] = g_ascii_strtod(f[2], NULL);
    csv[step][node][1] = g_ascii_strtod(f[3], NULL);
    rows++;
    g_strfreev(f);
  }
  g_assert_cmpuint(rows, ==, 6 * LIVE_T / 2);
  g_strfreev(lines);
  g_free(text);
}

/* Where each metric event stands, its time and its values. */
static void check_live_metrics(GArray *ev, const char *csv_path) {
  static double csv[LIVE_T + 1][6][2];
  read_csv_live(csv_path, csv);
  gint64 round_t[LIVE_T + 1];
  guint rounds = 0, metrics = 0;
  JsonParser *p = NULL;
  JsonObject *o = vt_json(g_array_index(ev, Rec, ev->len - 1).body, &p);
  gint64 end_t = vt_int(o, "t_ns");
  g_object_unref(p);
  for (guint i = 1; i + 1 < ev->len; i++) {
    Rec *e = &g_array_index(ev, Rec, i);
    o = vt_json(e->body, &p);
    if (strcmp(e->topic, "round") == 0) {
      g_assert_cmpint(vt_int(o, "round"), ==, rounds);
      g_assert_cmpint(vt_int(o, "t_ns"), ==, (gint64)rounds * 1000000); /* 1 ms a round */
      round_t[rounds++] = vt_int(o, "t_ns");
    } else if (strcmp(e->topic, "metric") == 0) {
      guint s = 2 * (metrics + 1);
      g_assert_cmpint(vt_int(o, "round"), ==, s);
      if (s + LAG <= LIVE_T) {
        /* right after round s + LAG, at its time: before round s + LAG + 1 */
        Rec *prev = &g_array_index(ev, Rec, i - 1);
        g_assert_cmpstr(prev->topic, ==, "round");
        g_assert_cmpuint(rounds, ==, s + LAG + 1);
        g_assert_cmpint(vt_int(o, "t_ns"), ==, round_t[s + LAG]);
      } else {
        g_assert_cmpuint(rounds, ==, LIVE_T + 1);
        g_assert_cmpint(vt_int(o, "t_ns"), ==, end_t);
      }
      JsonArray *nodes = json_object_get_array_member(o, "nodes");
      JsonArray *train = json_object_get_array_member(o, "train_loss");
      JsonArray *test = json_object_get_array_member(o, "test_loss");
      g_assert_cmpuint(json_array_get_length(nodes), ==, 6);
      for (guint k = 0; k < 6; k++) {
        guint u = (guint)json_array_get_int_element(nodes, k);
        for (guint c = 0; c < 2; c++) {
          double got = json_array_get_double_element(c == 0 ? train : test, k);
          double want = csv[s][u][c];
          g_assert_cmpfloat(want, >, 0.0);
          g_assert_cmpfloat(fabs(got - want), <=, 1e-9 * want); /* CSV has 10 digits */
        }
      }
      metrics++;
    }
    g_object_unref(p);
  }
  g_assert_cmpuint(rounds, ==, LIVE_T + 1);
  g_assert_cmpuint(metrics, ==, LIVE_T / 2);
}

static void test_live_metrics(Fixture *f, gconstpointer data) {
  (void)data;
  char *trace3 = g_build_filename(f->dir, "train3.trace", NULL);
  char *csv3 = g_build_filename(f->dir, "train3.csv", NULL);
  char *err = NULL;
  int status = run_train((const char *const[]){LIVE_ARGS, "--threads", "1", "--record", f->trace,
                                               "--out", f->csv, NULL},
                         &err);
  if (status != 0)
    g_error("train --threads 1 failed: %s", err);
  g_free(err);

  char *ep = g_strdup_printf("tcp://127.0.0.1:%u", vt_free_port());
  VtSub sub = vt_sub_new(ep);
  GArray *live = vt_events_new();
  status = vt_run_collect(&sub, live, &err,
                          (const char *const[]){LIVE_ARGS, "--threads", "3", "--publish", ep,
                                                "--publish-wait", "30", "--record", trace3, "--out",
                                                csv3, NULL});
  vt_sub_free(&sub);
  if (status != 0)
    g_error("train --threads 3 --publish failed: %s", err);
  g_assert_nonnull(strstr(err, "0 dropped"));
  g_free(err);

  /* Same bytes whatever the thread count (the CSV too). */
  char *a = NULL, *b = NULL;
  gsize la = 0, lb = 0;
  g_assert_true(g_file_get_contents(f->trace, &a, &la, NULL));
  g_assert_true(g_file_get_contents(trace3, &b, &lb, NULL));
  g_assert_cmpmem(a, la, b, lb);
  g_free(a);
  g_free(b);
  g_assert_true(g_file_get_contents(f->csv, &a, &la, NULL));
  g_assert_true(g_file_get_contents(csv3, &b, &lb, NULL));
  g_assert_cmpmem(a, la, b, lb);
  g_free(a);
  g_free(b);

  GArray *rec = read_trace(f->trace);
  g_assert_cmpuint(live->len, ==, rec->len);
  for (guint i = 0; i < rec->len; i++) {
    g_assert_cmpstr(g_array_index(live, VtEvent, i).topic, ==, g_array_index(rec, Rec, i).topic);
    g_assert_cmpstr(g_array_index(live, VtEvent, i).body, ==, g_array_index(rec, Rec, i).body);
  }
  check_live_metrics(rec, f->csv);
  g_array_unref(rec);
  g_array_unref(live);
  g_free(ep);
  g_unlink(trace3);
  g_unlink(csv3);
  g_free(trace3);
  g_free(csv3);
}

/* Bad stream options are usage errors, before anything runs. */
static void test_usage(Fixture *f, gconstpointer data) {
  (void)data;
  /* option, value, what the message must name */
  const char *bad[][3] = {{"--publish-messages", "every:0", "every:0"},
                          {"--publish-wait", "-1", "--publish-wait"},
                          {"--pace", "100", "--publish"},
                          {"--pace", "60001", "--pace"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *err = NULL;
    int status = run_train((const char *const[]){TRAIN_ARGS, "--record", f->trace, bad[i][0],
                                                 bad[i][1], "--out", f->csv, NULL},
                           &err);
    g_assert_cmpint(status, ==, 2);
    if (strstr(err, bad[i][2]) == NULL)
      g_error("%s %s: stderr '%s' does not name '%s'", bad[i][0], bad[i][1], err, bad[i][2]);
    g_assert_false(g_file_test(f->trace, G_FILE_TEST_EXISTS));
    g_free(err);
  }
}

/* --pace 150: the 5 round events reach a live subscriber ~150 ms apart. */
/* A labelled graph file's labels go to the viewer as graph.labels, node u
 * (the id every event uses) named labels[u]: the file's labels 20, 3, 6, 7
 * in order of first appearance, the names of metrics.csv's node column. */
static void test_labels(Fixture *f, gconstpointer data) {
  (void)data;
  char *graph = test_write_file(f->dir, "g.txt", "20 3\n3 6\n6 7\n7 20\n20 6\n", -1);
  char *err = NULL;
  int status = run_train((const char *const[]){"train", "--graph", graph, "--dataset",
                                               "synthetic:linear", "--epochs", "1", "--batches",
                                               "1", "--record", f->trace, "--out", f->csv, NULL},
                         &err);
  if (status != 0)
    g_error("train --record failed: %s", err);
  g_free(err);
  GArray *ev = read_trace(f->trace);
  JsonParser *p = NULL;
  JsonObject *o = vt_json(g_array_index(ev, Rec, 0).body, &p);
  JsonObject *g = json_object_get_object_member(o, "graph");
  JsonArray *labels = json_object_get_array_member(g, "labels");
  static const char *const want[] = {"20", "3", "6", "7"};
  g_assert_nonnull(labels);
  g_assert_cmpuint(json_array_get_length(labels), ==, G_N_ELEMENTS(want));
  for (guint u = 0; u < G_N_ELEMENTS(want); u++)
    g_assert_cmpstr(json_array_get_string_element(labels, u), ==, want[u]);
  g_object_unref(p);
  g_array_unref(ev);
  char *mean = g_strconcat(f->dir, "/train_mean.csv", NULL),
       *priv = g_strconcat(f->dir, "/train_privacy.csv", NULL);
  g_unlink(mean);
  g_unlink(priv);
  g_unlink(graph);
  g_free(mean);
  g_free(priv);
  g_free(graph);
}

static void test_pace(Fixture *f, gconstpointer data) {
  vt_check_paced((const char *const[]){TRAIN_ARGS, "--out", f->csv, "--pace", "150", NULL}, 5,
                 120.0);
  (void)data;
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD("/viz/train-stream/record", test_record);
  ADD("/viz/train-stream/sampling", test_sampling);
  ADD("/viz/train-stream/live", test_live);
  ADD("/viz/train-stream/live-metrics", test_live_metrics);
  ADD("/viz/train-stream/usage", test_usage);
  ADD("/viz/train-stream/pace", test_pace);
  ADD("/viz/train-stream/labels", test_labels);
  return g_test_run();
}
