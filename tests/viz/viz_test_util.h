/*
 * tests/viz/viz_test_util.h: helpers for the stream and visualizer tests:
 * free ports, a ZeroMQ subscriber that collects [topic, body] pairs, JSON
 * access and running the dpgossip binary in the background. Header-only.
 */
#ifndef DPG_TESTS_VIZ_UTIL_H
#define DPG_TESTS_VIZ_UTIL_H

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <zmq.h>

/* A TCP port that was free a moment ago on 127.0.0.1 (tests run in
 * parallel: never a fixed port). */
static inline guint16 vt_free_port(void) {
  GSocket *s = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                            NULL);
  g_assert_nonnull(s);
  GInetAddress *lo = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
  GSocketAddress *a = g_inet_socket_address_new(lo, 0);
  g_assert_true(g_socket_bind(s, a, FALSE, NULL));
  GSocketAddress *bound = g_socket_get_local_address(s, NULL);
  guint16 port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
  g_object_unref(bound);
  g_object_unref(a);
  g_object_unref(lo);
  g_socket_close(s, NULL);
  g_object_unref(s);
  return port;
}

typedef struct {
  char *topic;
  char *body;
} VtEvent;

static inline void vt_event_clear(gpointer p) {
  VtEvent *e = p;
  g_free(e->topic);
  g_free(e->body);
}

static inline GArray *vt_events_new(void) {
  GArray *a = g_array_new(FALSE, TRUE, sizeof(VtEvent));
  g_array_set_clear_func(a, vt_event_clear);
  return a;
}

typedef struct {
  void *ctx, *sock;
} VtSub;

static inline VtSub vt_sub_new(const char *endpoint) {
  VtSub s;
  s.ctx = zmq_ctx_new();
  s.sock = zmq_socket(s.ctx, ZMQ_SUB);
  int zero = 0, hwm = 1000000, timeo = 100;
  zmq_setsockopt(s.sock, ZMQ_LINGER, &zero, sizeof zero);
  zmq_setsockopt(s.sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
  zmq_setsockopt(s.sock, ZMQ_RCVTIMEO, &timeo, sizeof timeo);
  zmq_setsockopt(s.sock, ZMQ_SUBSCRIBE, "", 0);
  g_assert_cmpint(zmq_connect(s.sock, endpoint), ==, 0);
  return s;
}

static inline void vt_sub_free(VtSub *s) {
  zmq_close(s->sock);
  zmq_ctx_term(s->ctx);
}

/* Receives one event (100 ms timeout); FALSE on timeout. */
static inline gboolean vt_sub_recv(VtSub *s, VtEvent *out) {
  zmq_msg_t t, b;
  zmq_msg_init(&t);
  if (zmq_msg_recv(&t, s->sock, 0) < 0) {
    zmq_msg_close(&t);
    return FALSE;
  }
  g_assert_true(zmq_msg_more(&t));
  zmq_msg_init(&b);
  g_assert_cmpint(zmq_msg_recv(&b, s->sock, 0), >=, 0);
  g_assert_false(zmq_msg_more(&b));
  out->topic = g_strndup(zmq_msg_data(&t), zmq_msg_size(&t));
  out->body = g_strndup(zmq_msg_data(&b), zmq_msg_size(&b));
  g_assert_cmpuint(strlen(out->body), ==, zmq_msg_size(&b));
  zmq_msg_close(&t);
  zmq_msg_close(&b);
  return TRUE;
}

static inline gboolean vt_is_run_end(const VtEvent *e) {
  return strcmp(e->topic, "run") == 0 && strstr(e->body, "\"event\":\"end\"") != NULL;
}

/* Collects events until a run end or @timeout_s without it. @tick (nullable)
 * is called between receives (e.g. to let a publisher notice subscribers). */
static inline void vt_sub_collect(VtSub *s, GArray *events, double timeout_s,
                                  void (*tick)(gpointer), gpointer data) {
  gint64 deadline = g_get_monotonic_time() + (gint64)(timeout_s * 1e6);
  while (g_get_monotonic_time() < deadline) {
    if (tick)
      tick(data);
    VtEvent e;
    if (!vt_sub_recv(s, &e))
      continue;
    g_array_append_val(events, e);
    if (vt_is_run_end(&e))
      return;
  }
}

/* Parses @text as a JSON object (the parser keeps it alive). */
static inline JsonObject *vt_json(const char *text, JsonParser **parser) {
  GError *error = NULL;
  *parser = json_parser_new();
  json_parser_load_from_data(*parser, text, -1, &error);
  g_assert_no_error(error);
  JsonNode *root = json_parser_get_root(*parser);
  g_assert_true(JSON_NODE_HOLDS_OBJECT(root));
  return json_node_get_object(root);
}

static inline gint64 vt_int(JsonObject *o, const char *key) {
  JsonNode *n = json_object_get_member(o, key);
  g_assert_nonnull(n);
  g_assert_true(json_node_get_value_type(n) == G_TYPE_INT64);
  return json_node_get_int(n);
}

/* Starts `dpgossip ARGS...` in the background (stdout and stderr piped). */
static inline GSubprocess *vt_spawn_v(const char *const *args) {
  const char *bin = g_getenv("DPGOSSIP");
  g_assert_nonnull(bin);
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)bin);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  GError *error = NULL;
  GSubprocess *p = g_subprocess_newv(
      (const char *const *)argv->pdata,
      G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error(error);
  g_ptr_array_free(argv, TRUE);
  return p;
}
#define vt_spawn(...) vt_spawn_v((const char *const[]){__VA_ARGS__, NULL})

/* Waits for @p; returns its exit status and its stderr (g_free). */
static inline int vt_wait(GSubprocess *p, char **err) {
  GError *error = NULL;
  char *out = NULL;
  g_subprocess_communicate_utf8(p, NULL, NULL, &out, err, &error);
  g_assert_no_error(error);
  g_free(out);
  int status = g_subprocess_get_if_exited(p) ? g_subprocess_get_exit_status(p) : -1;
  g_object_unref(p);
  return status;
}

/* Runs `dpgossip ARGS` to completion while @sub collects what it publishes
 * (and what is still in flight after it exits). Returns the exit status;
 * @err receives its stderr (g_free). */
typedef struct {
  gboolean done;
  char *out, *err;
  GError *error;
} VtComm;

static inline void vt_comm_done(GObject *src, GAsyncResult *res, gpointer data) {
  VtComm *c = data;
  g_subprocess_communicate_utf8_finish(G_SUBPROCESS(src), res, &c->out, &c->err, &c->error);
  c->done = TRUE;
}

static inline int vt_run_collect_timed(VtSub *sub, GArray *events, GArray *times, char **err,
                                       const char *const *args);
static inline int vt_run_collect(VtSub *sub, GArray *events, char **err, const char *const *args) {
  return vt_run_collect_timed(sub, events, NULL, err, args);
}

/* As vt_run_collect; @times (nullable, gint64) receives each event's arrival
 * (monotonic microseconds). */
static inline int vt_run_collect_timed(VtSub *sub, GArray *events, GArray *times, char **err,
                                       const char *const *args) {
  GSubprocess *p = vt_spawn_v(args);
  VtComm c = {0};
  g_subprocess_communicate_utf8_async(p, NULL, NULL, vt_comm_done, &c);
  int idle = 0;
  while (!c.done || idle < 3) {
    while (g_main_context_iteration(NULL, FALSE))
      ;
    VtEvent e;
    if (vt_sub_recv(sub, &e)) {
      g_array_append_val(events, e);
      if (times != NULL) {
        gint64 now = g_get_monotonic_time();
        g_array_append_val(times, now);
      }
      idle = 0;
    } else if (c.done) {
      idle++;
    }
  }
  g_assert_no_error(c.error);
  g_free(c.out);
  *err = c.err;
  int status = g_subprocess_get_if_exited(p) ? g_subprocess_get_exit_status(p) : -1;
  g_object_unref(p);
  return status;
}

/* Runs `dpgossip ARGS --publish EP` with a subscriber on EP and checks the
 * @want round events arrive, spanning at least (@want - 1) @min_gap_ms (--pace). */
static inline void vt_check_paced(const char *const *args, guint want, double min_gap_ms) {
  char *ep = g_strdup_printf("tcp://127.0.0.1:%u", vt_free_port());
  VtSub sub = vt_sub_new(ep);
  GPtrArray *argv = g_ptr_array_new();
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  const char *more[] = {"--publish", ep, "--publish-wait", "30"};
  for (guint i = 0; i < G_N_ELEMENTS(more); i++)
    g_ptr_array_add(argv, (gpointer)more[i]);
  g_ptr_array_add(argv, NULL);
  GArray *events = vt_events_new(), *times = g_array_new(FALSE, FALSE, sizeof(gint64));
  char *err = NULL;
  int status = vt_run_collect_timed(&sub, events, times, &err, (const char *const *)argv->pdata);
  vt_sub_free(&sub);
  if (status != 0)
    g_error("paced run failed: %s", err);
  /* The pace spaces the sends; an arrival can still be late when the
   * subscriber is descheduled, which shortens one gap and lengthens the next.
   * So the span from the first round event to the last is checked, which a
   * late event can shorten by its own delay only, not each gap alone. */
  gint64 first = -1, last = -1;
  guint rounds = 0;
  for (guint i = 0; i < events->len; i++) {
    if (strcmp(g_array_index(events, VtEvent, i).topic, "round") != 0)
      continue;
    gint64 t = g_array_index(times, gint64, i);
    if (first < 0)
      first = t;
    last = t;
    rounds++;
  }
  if (rounds > 1 && (double)(last - first) < min_gap_ms * 1000.0 * (rounds - 1))
    g_error("%u round events arrived over %.1f ms (want >= %g ms: %u gaps of %g)", rounds,
            (double)(last - first) / 1000.0, min_gap_ms * (rounds - 1), rounds - 1, min_gap_ms);
  g_assert_cmpuint(rounds, ==, want);
  g_array_unref(events);
  g_array_unref(times);
  g_ptr_array_free(argv, TRUE);
  g_free(err);
  g_free(ep);
}

#endif
