/*
 * tests/viz/test_replay.c: `dpgossip demo --publish --record` and
 * `dpgossip replay`, through the binary, with a libzmq subscriber.
 *
 * The live stream of the demo is checked against what the demo is known to
 * do (15 Florentine nodes, 20 edges, 10 synchronous rounds: 40 messages a
 * round, 400 in all, rounds 0 (before any message) to 10, per-node losses
 * shrinking); then each replay of its trace (as fast as possible, paced,
 * from a round, and of a truncated copy) must publish exactly the live
 * bodies, in the same order: all of them, the suffix from that round (after
 * the run start), or the prefix before the damage (and then fail, naming
 * the record).
 */
#include <glib/gstdio.h>
#include <math.h>
#include <zlib.h>

#include "tests/common/files.h"
#include "tests/viz/viz_test_util.h"

static char *endpoint_new(void) {
  return g_strdup_printf("tcp://127.0.0.1:%u", vt_free_port());
}

/* Runs `dpgossip ARGS` while a subscriber collects what it publishes on
 * @endpoint; returns the exit status, fills @events and @err. */
static int run_collect(const char *endpoint, GArray *events, char **err, const char *const *args) {
  VtSub sub = vt_sub_new(endpoint);
  int status = vt_run_collect(&sub, events, err, args);
  vt_sub_free(&sub);
  return status;
}

static void assert_same(GArray *got, GArray *want, guint want_from, guint want_len) {
  g_assert_cmpuint(got->len, ==, want_len);
  for (guint i = 0; i < want_len; i++) {
    VtEvent *a = &g_array_index(got, VtEvent, i);
    VtEvent *b = &g_array_index(want, VtEvent, want_from + i);
    g_assert_cmpstr(a->topic, ==, b->topic);
    g_assert_cmpstr(a->body, ==, b->body);
  }
}

typedef struct {
  char *dir, *trace;
  GArray *live;
} Fixture;

static void fixture_setup(Fixture *f, gconstpointer data) {
  (void)data;
  f->dir = test_tmpdir("replay");
  f->trace = g_build_filename(f->dir, "demo.trace", NULL);
  f->live = vt_events_new();
  char *ep = endpoint_new();
  char *err = NULL;
  int status = run_collect(ep, f->live, &err,
                           (const char *const[]){"demo", "--publish", ep, "--publish-wait", "30",
                                                 "--record", f->trace, NULL});
  if (status != 0)
    g_error("demo failed: %s", err);
  g_assert_nonnull(strstr(err, "publishing on tcp://127.0.0.1:"));
  g_assert_nonnull(strstr(err, "0 dropped"));
  g_free(err);
  g_free(ep);
}

static void fixture_teardown(Fixture *f, gconstpointer data) {
  (void)data;
  g_array_unref(f->live);
  g_unlink(f->trace);
  g_rmdir(f->dir);
  g_free(f->trace);
  g_free(f->dir);
}

static double json_double(JsonArray *a, guint i) {
  JsonNode *n = json_array_get_element(a, i);
  g_assert_false(JSON_NODE_HOLDS_NULL(n));
  return json_node_get_double(n);
}

static void test_live(Fixture *f, gconstpointer data) {
  (void)data;
  GArray *ev = f->live;
  g_assert_cmpuint(ev->len, ==, 1 + 400 + 11 + 11 + 1);
  guint per_round[10] = {0}, rounds = 0, metrics = 0;
  double first_mean = 0, last_mean = 0;
  gint64 prev_t = 0;
  for (guint i = 0; i < ev->len; i++) {
    VtEvent *e = &g_array_index(ev, VtEvent, i);
    JsonParser *p;
    JsonObject *o = vt_json(e->body, &p);
    g_assert_cmpint(vt_int(o, "v"), ==, 1);
    g_assert_cmpint(vt_int(o, "seq"), ==, i);
    g_assert_cmpint(vt_int(o, "t_ns"), >=, prev_t);
    prev_t = vt_int(o, "t_ns");
    if (i == 0) {
      g_assert_cmpstr(e->topic, ==, "run");
      g_assert_cmpstr(json_object_get_string_member(o, "event"), ==, "start");
      g_assert_cmpint(vt_int(o, "rounds"), ==, 10);
      g_assert_cmpint(vt_int(o, "seed"), ==, 421);
      JsonObject *g = json_object_get_object_member(o, "graph");
      g_assert_cmpint(vt_int(g, "n"), ==, 15);
      g_assert_cmpuint(json_array_get_length(json_object_get_array_member(g, "edges")), ==, 20);
      JsonArray *pos = json_object_get_array_member(g, "positions");
      g_assert_cmpuint(json_array_get_length(pos), ==, 15);
      /* a real layout: not every node at one place */
      double x0 = json_double(json_array_get_array_element(pos, 0), 0);
      gboolean spread = FALSE;
      for (guint u = 1; u < 15; u++)
        spread |= fabs(json_double(json_array_get_array_element(pos, u), 0) - x0) > 0.5;
      g_assert_true(spread);
    } else if (strcmp(e->topic, "message") == 0) {
      gint64 r = vt_int(o, "round");
      g_assert_cmpint(r, <, 10);
      per_round[r]++;
      g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(o, "dropped")));
      g_assert_cmpint(vt_int(o, "arrival_ns"), >, vt_int(o, "sent_ns"));
    } else if (strcmp(e->topic, "round") == 0) {
      g_assert_cmpint(vt_int(o, "round"), ==, rounds);
      if (rounds == 0) /* the initial state, before any message */
        g_assert_cmpuint(i, ==, 1);
      rounds++;
    } else if (strcmp(e->topic, "metric") == 0) {
      g_assert_cmpint(vt_int(o, "round"), ==, metrics);
      /* the metric of round r follows the round event of round r */
      g_assert_cmpuint(rounds, ==, metrics + 1);
      JsonArray *loss = json_object_get_array_member(o, "test_loss");
      g_assert_cmpuint(json_array_get_length(loss), ==, 15);
      double mean = 0;
      for (guint u = 0; u < 15; u++) {
        double x = json_double(loss, u);
        g_assert_cmpfloat(x, >=, 0);
        mean += x / 15;
      }
      if (metrics == 0)
        first_mean = mean;
      last_mean = mean;
      metrics++;
    } else {
      g_assert_cmpuint(i, ==, ev->len - 1);
      g_assert_cmpstr(json_object_get_string_member(o, "event"), ==, "end");
      JsonObject *eng = json_object_get_object_member(o, "engine");
      g_assert_cmpint(vt_int(eng, "messages_sent"), ==, 400);
      g_assert_cmpint(vt_int(eng, "messages_delivered"), ==, 400);
      g_assert_cmpint(vt_int(json_object_get_object_member(o, "stream"), "dropped"), ==, 0);
    }
    g_object_unref(p);
  }
  for (guint r = 0; r < 10; r++)
    g_assert_cmpuint(per_round[r], ==, 40); /* 20 edges, both ways */
  g_assert_cmpuint(rounds, ==, 11);
  g_assert_cmpuint(metrics, ==, 11);
  /* gossip averaging drives every node towards the mean of the private values */
  g_assert_cmpfloat(last_mean, <, first_mean / 100);
}

static void test_replay_max(Fixture *f, gconstpointer data) {
  (void)data;
  char *ep = endpoint_new(), *err = NULL;
  GArray *got = vt_events_new();
  int status = run_collect(ep, got, &err,
                           (const char *const[]){"replay", f->trace, "--publish", ep, "--speed",
                                                 "max", "--publish-wait", "30", NULL});
  g_assert_cmpint(status, ==, 0);
  assert_same(got, f->live, 0, f->live->len);
  g_assert_nonnull(strstr(err, "424 events published (rounds 0 to 10)"));
  g_free(err);
  g_array_unref(got);
  g_free(ep);
}

static void test_replay_paced(Fixture *f, gconstpointer data) {
  (void)data;
  char *ep = endpoint_new(), *err = NULL;
  GArray *got = vt_events_new();
  int status = run_collect(ep, got, &err,
                           (const char *const[]){"replay", f->trace, "--publish", ep, "--speed",
                                                 "500", "--publish-wait", "30", NULL});
  g_assert_cmpint(status, ==, 0);
  assert_same(got, f->live, 0, f->live->len);
  g_free(err);
  g_array_unref(got);
  g_free(ep);
}

static void test_replay_from(Fixture *f, gconstpointer data) {
  (void)data;
  guint start = 0;
  for (guint i = 0; i < f->live->len && !start; i++) {
    VtEvent *e = &g_array_index(f->live, VtEvent, i);
    if (strcmp(e->topic, "round") == 0 && strstr(e->body, "\"round\":6}") != NULL)
      start = i;
  }
  g_assert_cmpuint(start, >, 0);
  char *ep = endpoint_new(), *err = NULL;
  GArray *got = vt_events_new();
  int status = run_collect(ep, got, &err,
                           (const char *const[]){"replay", f->trace, "--publish", ep, "--speed",
                                                 "max", "--from", "6", "--publish-wait", "30",
                                                 NULL});
  g_assert_cmpint(status, ==, 0);
  g_assert_cmpuint(got->len, ==, 1 + f->live->len - start);
  VtEvent *first = &g_array_index(got, VtEvent, 0);
  g_assert_cmpstr(first->body, ==, g_array_index(f->live, VtEvent, 0).body);
  g_array_remove_index(got, 0);
  assert_same(got, f->live, start, f->live->len - start);
  g_free(err);
  g_array_unref(got);
  g_free(ep);
}

static void test_replay_damaged(Fixture *f, gconstpointer data) {
  (void)data;
  char *bytes = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(f->trace, &bytes, &len, NULL));
  char *cut = g_build_filename(f->dir, "cut.trace", NULL);
  g_assert_true(g_file_set_contents(cut, bytes, (gssize)(len * 6 / 10), NULL));
  g_free(bytes);
  char *ep = endpoint_new(), *err = NULL;
  GArray *got = vt_events_new();
  int status = run_collect(ep, got, &err,
                           (const char *const[]){"replay", cut, "--publish", ep, "--speed", "max",
                                                 "--publish-wait", "30", NULL});
  g_assert_cmpint(status, ==, 1);
  g_assert_cmpuint(got->len, >, 10);
  g_assert_cmpuint(got->len, <, f->live->len);
  assert_same(got, f->live, 0, got->len);
  char *want = g_strdup_printf("record %u (byte ", got->len);
  if (strstr(err, want) == NULL || strstr(err, "truncated") == NULL)
    g_error("stderr '%s' lacks '%s' / 'truncated'", err, want);
  g_free(want);
  g_free(err);
  /* --check says the same without publishing */
  GSubprocess *p = vt_spawn("replay", cut, "--check");
  status = vt_wait(p, &err);
  g_assert_cmpint(status, ==, 1);
  g_assert_nonnull(strstr(err, "truncated"));
  g_free(err);
  g_unlink(cut);
  g_free(cut);
  g_array_unref(got);
  g_free(ep);
}

static void test_usage(void) {
  const char *const *cases[] = {
      (const char *const[]){"replay", NULL},
      (const char *const[]){"replay", "x.trace", NULL},
      (const char *const[]){"replay", "x.trace", "--publish", "tcp://127.0.0.1:1", "--speed",
                            "fast", NULL},
      (const char *const[]){"replay", "x.trace", "--publish", "tcp://127.0.0.1:1", "--speed", "0",
                            NULL},
      (const char *const[]){"replay", "x.trace", "--publish", "tcp://127.0.0.1:1", "--from", "-1",
                            NULL},
      (const char *const[]){"demo", "--publish-messages", "every:0", NULL},
      (const char *const[]){"demo", "--pace", "-5", NULL},
      (const char *const[]){"viz", "--listen", "8080", NULL},
      (const char *const[]){"viz", "--listen", "example.org:80", NULL},
      /* beyond loopback without --allow-remote: refused before binding */
      (const char *const[]){"viz", "--listen", "0.0.0.0:8080", NULL},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *err = NULL;
    int status = vt_wait(vt_spawn_v(cases[i]), &err);
    if (status != 2)
      g_error("case %zu exited %d: %s", i, status, err);
    g_free(err);
  }
  char *err = NULL;
  int status = vt_wait(vt_spawn("replay", "/nonexistent.trace", "--check"), &err);
  g_assert_cmpint(status, ==, 1);
  g_assert_nonnull(strstr(err, "/nonexistent.trace"));
  g_free(err);
  /* the address is taken: a clear error, exit 1 */
  char *ep = endpoint_new();
  void *ctx = zmq_ctx_new(), *sock = zmq_socket(ctx, ZMQ_PUB);
  g_assert_cmpint(zmq_bind(sock, ep), ==, 0);
  status = vt_wait(vt_spawn("demo", "--publish", ep, "--publish-wait", "0"), &err);
  g_assert_cmpint(status, ==, 1);
  g_assert_nonnull(strstr(err, "cannot publish on"));
  g_free(err);
  zmq_close(sock);
  zmq_ctx_term(ctx);
  g_free(ep);
}

/* Hostile traces end in a clean error, not a crash: a record
 * nested 300,000 deep (json-glib would overflow the stack on it) and a
 * format version beyond 64 bits (once reported as "version -1"). */
static void test_replay_hostile(void) {
  char *dir = test_tmpdir("replay");
  char *path = g_build_filename(dir, "deep.trace", NULL);
  GString *body = g_string_new("{\"v\":1,\"seq\":0,\"t_ns\":0,\"event\":\"start\",\"x\":");
  for (int i = 0; i < 300000; i++)
    g_string_append_c(body, '[');
  for (int i = 0; i < 300000; i++)
    g_string_append_c(body, ']');
  g_string_append_c(body, '}');
  GString *t = g_string_new("DPGTRACE 1 {}\n");
  g_string_append_printf(t, "run %08lx %s\n",
                         (unsigned long)crc32(0, (const Bytef *)body->str, (uInt)body->len),
                         body->str);
  g_assert_true(g_file_set_contents(path, t->str, (gssize)t->len, NULL));
  char *err = NULL;
  int status = vt_wait(vt_spawn("replay", path, "--check"), &err);
  g_assert_cmpint(status, ==, 1);
  g_assert_nonnull(strstr(err, "record 0"));
  g_assert_nonnull(strstr(err, "more than 64 deep"));
  g_free(err);
  g_assert_true(g_file_set_contents(path, "DPGTRACE 99999999999999999999 {}\n", -1, NULL));
  status = vt_wait(vt_spawn("replay", path, "--check"), &err);
  g_assert_cmpint(status, ==, 1);
  g_assert_nonnull(strstr(err, "format version 99999999999999999999;"));
  g_free(err);
  /* A run body whose "event" is not a string (json-glib's getter gave NULL:
   * replay dereferenced it). */
  const char *ev5 = "{\"v\":1,\"seq\":0,\"t_ns\":0,\"event\":5}", *end = "{\"records\":1}";
  char *text = g_strdup_printf("DPGTRACE 1 {}\nrun %08lx %s\nEND %08lx %s\n",
                               (unsigned long)crc32(0, (const Bytef *)ev5, (uInt)strlen(ev5)), ev5,
                               (unsigned long)crc32(0, (const Bytef *)end, (uInt)strlen(end)), end);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  g_free(text);
  char *ep = endpoint_new();
  status = vt_wait(
      vt_spawn("replay", path, "--publish", ep, "--publish-wait", "0", "--speed", "max"), &err);
  if (status != 0)
    g_error("replay of a non-string event exited %d: %s", status, err);
  g_free(err);
  g_free(ep);
  g_string_free(t, TRUE);
  g_string_free(body, TRUE);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add("/replay/live", Fixture, NULL, fixture_setup, test_live, fixture_teardown);
  g_test_add("/replay/max", Fixture, NULL, fixture_setup, test_replay_max, fixture_teardown);
  g_test_add("/replay/paced", Fixture, NULL, fixture_setup, test_replay_paced, fixture_teardown);
  g_test_add("/replay/from", Fixture, NULL, fixture_setup, test_replay_from, fixture_teardown);
  g_test_add("/replay/damaged", Fixture, NULL, fixture_setup, test_replay_damaged,
             fixture_teardown);
  g_test_add_func("/replay/usage", test_usage);
  g_test_add_func("/replay/hostile", test_replay_hostile);
  return g_test_run();
}
