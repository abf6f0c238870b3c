/*
 * viz/subscriber.c: the ZeroMQ side of the visualizer: a SUB socket read
 * from the GLib main loop.
 *
 * ZMQ_FD signals edge-style ("something changed", not "a message is
 * ready"), so each wake-up drains the socket while ZMQ_EVENTS says so, in
 * bounded batches (an idle source continues a long backlog, so the HTTP side
 * keeps being served), and a slow timer re-checks in case an edge was
 * missed.
 */
#include <errno.h>
#include <string.h>

#include <glib-unix.h>
#include <zmq.h>

#include "viz/viz_internal.h"

#define BATCH 2000
#define RECHECK_MS 200
/* Larger messages are refused by ZeroMQ itself (a 10,000-node run start is
 * about 1 MB). */
#define MAX_MESSAGE (64 << 20)

struct VizSubscriber {
  void *ctx, *sock;
  GMainContext *context; /* the thread-default one at creation */
  GSource *fd_source, *timer_source, *idle_source;
  VizEventFunc func;
  gpointer data;
  guint64 malformed;
  zmq_msg_t topic, body;
};

static gboolean drain(gpointer data);

/* Attaches @src (taken) to the subscriber's context. */
static GSource *attach(VizSubscriber *s, GSource *src, GSourceFunc func) {
  g_source_set_callback(src, func, s, NULL);
  g_source_attach(src, s->context);
  return src;
}

static void schedule_idle(VizSubscriber *s) {
  if (s->idle_source == NULL)
    s->idle_source = attach(s, g_idle_source_new(), drain);
}

static void clear_source(GSource **src) {
  if (*src != NULL) {
    g_source_destroy(*src);
    g_source_unref(*src);
    *src = NULL;
  }
}

/* Reads one multipart message; FALSE when none is waiting. */
static gboolean read_one(VizSubscriber *s) {
  if (zmq_msg_recv(&s->topic, s->sock, ZMQ_DONTWAIT) < 0)
    return FALSE;
  gboolean ok = zmq_msg_more(&s->topic);
  int parts = 1;
  if (ok) {
    zmq_msg_recv(&s->body, s->sock, 0); /* the rest of a multipart is already here */
    parts++;
  }
  /* Skip any extra parts: a well-formed event has exactly two. */
  while (zmq_msg_more(parts == 1 ? &s->topic : &s->body)) {
    zmq_msg_recv(&s->body, s->sock, 0);
    parts++;
    ok = FALSE;
  }
  if (!ok) {
    s->malformed++;
    return TRUE;
  }
  gsize tlen = zmq_msg_size(&s->topic);
  char topic[40];
  if (tlen == 0 || tlen >= sizeof topic) {
    s->malformed++;
    return TRUE;
  }
  memcpy(topic, zmq_msg_data(&s->topic), tlen);
  topic[tlen] = '\0';
  s->func(topic, zmq_msg_data(&s->body), zmq_msg_size(&s->body), s->data);
  return TRUE;
}

static gboolean drain(gpointer data) {
  VizSubscriber *s = data;
  if (s->idle_source != NULL && g_main_current_source() == s->idle_source)
    g_clear_pointer(&s->idle_source, g_source_unref);
  for (int i = 0; i < BATCH; i++) {
    int events = 0;
    size_t len = sizeof events;
    if (zmq_getsockopt(s->sock, ZMQ_EVENTS, &events, &len) != 0 || !(events & ZMQ_POLLIN))
      return G_SOURCE_REMOVE;
    if (!read_one(s))
      return G_SOURCE_REMOVE;
  }
  schedule_idle(s); /* more may be waiting: continue after other sources ran */
  return G_SOURCE_REMOVE;
}

/* The fd and the timer only start a drain; a backlog continues from idle. */
static gboolean on_wake(gpointer data) {
  VizSubscriber *s = data;
  if (s->idle_source == NULL)
    drain(s);
  return G_SOURCE_CONTINUE;
}

static gboolean on_fd(gint fd, GIOCondition cond, gpointer data) {
  (void)fd;
  (void)cond;
  return on_wake(data);
}

VizSubscriber *viz_subscriber_new(const char *endpoint, VizEventFunc func, gpointer data,
                                  GError **error) {
  VizSubscriber *s = g_new0(VizSubscriber, 1);
  s->func = func;
  s->data = data;
  s->context = g_main_context_ref_thread_default();
  zmq_msg_init(&s->topic);
  zmq_msg_init(&s->body);
  s->ctx = zmq_ctx_new();
  s->sock = s->ctx ? zmq_socket(s->ctx, ZMQ_SUB) : NULL;
  if (s->sock == NULL) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_SUBSCRIBE, "cannot create a ZeroMQ socket: %s",
                zmq_strerror(errno));
    viz_subscriber_free(s);
    return NULL;
  }
  int zero = 0, hwm = 100000;
  int64_t max = MAX_MESSAGE;
  zmq_setsockopt(s->sock, ZMQ_LINGER, &zero, sizeof zero);
  zmq_setsockopt(s->sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
  zmq_setsockopt(s->sock, ZMQ_MAXMSGSIZE, &max, sizeof max);
  zmq_setsockopt(s->sock, ZMQ_SUBSCRIBE, "", 0);
  if (zmq_connect(s->sock, endpoint) != 0) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT,
                "cannot subscribe to '%s': %s (an endpoint looks like tcp://127.0.0.1:5556)",
                endpoint, zmq_strerror(errno));
    viz_subscriber_free(s);
    return NULL;
  }
  int fd = -1;
  size_t len = sizeof fd;
  if (zmq_getsockopt(s->sock, ZMQ_FD, &fd, &len) != 0) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_SUBSCRIBE, "cannot poll the ZeroMQ socket: %s",
                zmq_strerror(errno));
    viz_subscriber_free(s);
    return NULL;
  }
  s->fd_source = attach(s, g_unix_fd_source_new(fd, G_IO_IN), (GSourceFunc)(void (*)(void))on_fd);
  s->timer_source = attach(s, g_timeout_source_new(RECHECK_MS), on_wake);
  return s;
}

void viz_subscriber_free(VizSubscriber *s) {
  if (s == NULL)
    return;
  clear_source(&s->fd_source);
  clear_source(&s->timer_source);
  clear_source(&s->idle_source);
  g_main_context_unref(s->context);
  zmq_msg_close(&s->topic);
  zmq_msg_close(&s->body);
  if (s->sock)
    zmq_close(s->sock);
  if (s->ctx)
    zmq_ctx_term(s->ctx);
  g_free(s);
}

guint64 viz_subscriber_malformed(const VizSubscriber *s) {
  return s->malformed;
}
