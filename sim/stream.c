/*
 * sim/stream.c: the event stream publisher (docs/events.md).
 *
 * The socket is an XPUB rather than a PUB for two reasons: with
 * ZMQ_XPUB_NODROP a send to a full subscriber fails with EAGAIN instead of
 * vanishing silently, so drops can be counted and reported; and XPUB hands
 * us the subscriptions, so we can wait for a first viewer and send the run
 * start again to viewers that join mid-run.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <zmq.h>

#include "sim/stream_internal.h"

#define DEFAULT_HWM 10000
#define LINGER_MS 1000
/* Subscriptions are looked for every this many publications. */
#define POLL_EVERY 256

/* The bus subscription's user data. It outlives neither side: whichever goes
 * first unhooks the other (see sim_stream_attach). */
typedef struct {
  SimStream *stream;
} StreamLink;

struct SimStream {
  void *ctx, *sock;
  char *endpoint;
  SimTraceWriter *trace;
  char *trace_path;
  GError *deferred; /* first trace error met on the bus path */
  guint every;      /* message sampling: 1 all, 0 none */
  guint block_ms;
  guint64 seq;
  SimTime last_t;
  guint64 msg_counter;
  /* A SENT without arrival is followed by its DROPPED (same engine seq):
   * the sampling decision taken at SENT is applied there. */
  gboolean drop_pending;
  guint64 drop_seq;
  SimStreamStats stats;
  guint since_poll;
  char *start_body; /* the current run's start, for late subscribers */
  gsize start_len;
  SimEngine *engine;
  StreamLink *link;
  guint bus_id;
  GString *buf;
  gboolean finished;
};

/* ---- Sampling ---- */

gboolean sim_stream_parse_sampling(const char *spec, guint *every, GError **error) {
  g_return_val_if_fail(every != NULL, FALSE);
  if (spec == NULL || strcmp(spec, "all") == 0) {
    *every = 1;
    return TRUE;
  }
  if (strcmp(spec, "none") == 0) {
    *every = 0;
    return TRUE;
  }
  if (g_str_has_prefix(spec, "every:")) {
    const char *num = spec + 6;
    char *end = NULL;
    errno = 0;
    guint64 n = g_ascii_strtoull(num, &end, 10);
    if (*num >= '0' && *num <= '9' && end != num && *end == '\0' && errno == 0 && n >= 1 &&
        n <= G_MAXUINT) {
      *every = (guint)n;
      return TRUE;
    }
  }
  g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
              "message sampling '%s' is not one of: all, every:N (N >= 1), none", spec);
  return FALSE;
}

/* ---- Socket ---- */

static void handle_subscriptions(SimStream *s);

static gboolean open_socket(SimStream *s, const SimStreamOptions *o, GError **error) {
  s->ctx = zmq_ctx_new();
  if (s->ctx == NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY, "cannot create a ZeroMQ context: %s",
                zmq_strerror(errno));
    return FALSE;
  }
  s->sock = zmq_socket(s->ctx, ZMQ_XPUB);
  if (s->sock == NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY, "cannot create a ZeroMQ socket: %s",
                zmq_strerror(errno));
    return FALSE;
  }
  int hwm = o->hwm ? (int)MIN(o->hwm, (guint)G_MAXINT) : DEFAULT_HWM;
  int one = 1, linger = LINGER_MS;
  int timeo = o->block_ms ? (int)MIN(o->block_ms, (guint)G_MAXINT) : 0;
  zmq_setsockopt(s->sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(s->sock, ZMQ_XPUB_NODROP, &one, sizeof one);
  zmq_setsockopt(s->sock, ZMQ_XPUB_VERBOSE, &one, sizeof one);
  zmq_setsockopt(s->sock, ZMQ_LINGER, &linger, sizeof linger);
  if (timeo)
    zmq_setsockopt(s->sock, ZMQ_SNDTIMEO, &timeo, sizeof timeo);
  if (zmq_bind(s->sock, o->publish) != 0) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "cannot publish on '%s': %s (an endpoint looks like tcp://127.0.0.1:5556; "
                "use port * for any free port)",
                o->publish, zmq_strerror(errno));
    return FALSE;
  }
  char last[256] = "";
  size_t len = sizeof last;
  if (zmq_getsockopt(s->sock, ZMQ_LAST_ENDPOINT, last, &len) == 0 && last[0])
    s->endpoint = g_strdup(last);
  else
    s->endpoint = g_strdup(o->publish);
  if (o->wait_ms) {
    gint64 deadline = g_get_monotonic_time() + (gint64)o->wait_ms * 1000;
    while (s->stats.subscribers_joined == 0) {
      gint64 left = (deadline - g_get_monotonic_time()) / 1000;
      if (left <= 0)
        break;
      zmq_pollitem_t item = {.socket = s->sock, .events = ZMQ_POLLIN};
      if (zmq_poll(&item, 1, (long)left) < 0 && errno != EINTR)
        break;
      handle_subscriptions(s);
    }
  }
  return TRUE;
}

/* Sends [topic, body]; TRUE if the socket took it. */
static gboolean send_pair(SimStream *s, const char *topic, const char *body, gsize len) {
  int flags = s->block_ms ? 0 : ZMQ_DONTWAIT;
  if (zmq_send(s->sock, topic, strlen(topic), flags | ZMQ_SNDMORE) < 0)
    return FALSE;
  /* Once the first part is in, the rest of a multipart message always is. */
  zmq_send(s->sock, body, len, flags);
  return TRUE;
}

/* Reads pending (un)subscriptions; each new subscription mid-run gets the
 * run start again. */
static void handle_subscriptions(SimStream *s) {
  s->since_poll = 0;
  if (s->sock == NULL)
    return;
  for (;;) {
    char frame[256];
    int n = zmq_recv(s->sock, frame, sizeof frame, ZMQ_DONTWAIT);
    if (n < 0)
      return;
    if (n >= 1 && frame[0] == 1) {
      s->stats.subscribers_joined++;
      if (s->start_body != NULL)
        send_pair(s, "run", s->start_body, s->start_len);
    }
  }
}

/* ---- Publication ---- */

static void defer_error(SimStream *s, GError *error) {
  if (s->deferred == NULL)
    s->deferred = error;
  else
    g_error_free(error);
}

/* Starts a body at time @t: {"v":..,"seq":..,"t_ns":.. (no closing brace). */
static GString *body_begin(SimStream *s, SimTime t) {
  GString *b = s->buf;
  g_string_truncate(b, 0);
  if (t < s->last_t)
    t = s->last_t;
  s->last_t = t;
  g_string_append(b, "{\"v\":" G_STRINGIFY(SIM_STREAM_VERSION) ",\"seq\":");
  sim_json_append_u64(b, s->seq++);
  g_string_append(b, ",\"t_ns\":");
  sim_json_append_u64(b, t);
  return b;
}

static gboolean deliver(SimStream *s, const char *topic, const char *body, gsize len,
                        GError **error) {
  s->stats.published++;
  s->stats.bytes += len;
  if (s->sock != NULL) {
    if (++s->since_poll >= POLL_EVERY)
      handle_subscriptions(s);
    if (!send_pair(s, topic, body, len))
      s->stats.dropped++;
  }
  if (s->trace != NULL) {
    if (!sim_trace_writer_append(s->trace, topic, body, len, error)) {
      /* A trace that cannot be written is closed as truncated: the rest of
       * the run goes on and its reader will say where the trace stops. */
      sim_trace_writer_abandon(s->trace);
      s->trace = NULL;
      return FALSE;
    }
    s->stats.recorded++;
  }
  return TRUE;
}

/* Closes the body being built and publishes it. */
static gboolean body_emit(SimStream *s, const char *topic, GError **error) {
  g_string_append_c(s->buf, '}');
  return deliver(s, topic, s->buf->str, s->buf->len, error);
}

/* ---- Life cycle ---- */

SimStream *sim_stream_new(const SimStreamOptions *o, GError **error) {
  g_return_val_if_fail(o != NULL, NULL);
  guint every = 1;
  if (!sim_stream_parse_sampling(o->messages, &every, error))
    return NULL;
  SimStream *s = g_new0(SimStream, 1);
  s->every = every;
  s->block_ms = o->block_ms;
  s->buf = g_string_sized_new(256);
  if (o->record != NULL) {
    s->trace = sim_trace_writer_open(o->record, error);
    if (s->trace == NULL) {
      sim_stream_free(s);
      return NULL;
    }
    s->trace_path = g_strdup(o->record);
  }
  if (o->publish != NULL && !open_socket(s, o, error)) {
    if (s->trace != NULL) {
      /* Do not leave a header-only trace behind for a run that never ran. */
      sim_trace_writer_abandon(s->trace);
      s->trace = NULL;
      g_unlink(o->record);
    }
    sim_stream_free(s);
    return NULL;
  }
  return s;
}

static void close_socket(SimStream *s) {
  if (s->sock != NULL) {
    zmq_close(s->sock);
    s->sock = NULL;
  }
  if (s->ctx != NULL) {
    zmq_ctx_term(s->ctx);
    s->ctx = NULL;
  }
}

gboolean sim_stream_finish(SimStream *s, GError **error) {
  g_return_val_if_fail(s != NULL, FALSE);
  gboolean ok = TRUE;
  GError *local = NULL;
  if (s->trace != NULL) {
    ok = sim_trace_writer_close(s->trace, &local);
    s->trace = NULL;
  }
  close_socket(s);
  s->finished = TRUE;
  if (s->deferred != NULL) {
    g_propagate_error(error, s->deferred);
    s->deferred = NULL;
    g_clear_error(&local);
    return FALSE;
  }
  if (!ok)
    g_propagate_error(error, local);
  return ok;
}

void sim_stream_free(SimStream *s) {
  if (s == NULL)
    return;
  sim_stream_detach(s);
  if (!s->finished) {
    GError *ignored = NULL;
    sim_stream_finish(s, &ignored);
    g_clear_error(&ignored);
  }
  g_clear_error(&s->deferred);
  g_free(s->endpoint);
  g_free(s->trace_path);
  g_free(s->start_body);
  g_string_free(s->buf, TRUE);
  g_free(s);
}

const char *sim_stream_endpoint(const SimStream *s) {
  g_return_val_if_fail(s != NULL, NULL);
  return s->endpoint;
}

guint sim_stream_message_every(const SimStream *s) {
  g_return_val_if_fail(s != NULL, 0);
  return s->every;
}

void sim_stream_get_stats(const SimStream *s, SimStreamStats *stats) {
  g_return_if_fail(s != NULL && stats != NULL);
  *stats = s->stats;
}

void sim_stream_poll(SimStream *s) {
  g_return_if_fail(s != NULL);
  handle_subscriptions(s);
}

/* ---- Engine events ---- */

static void publish_message(SimStream *s, const SimBusEvent *ev) {
  GString *b = body_begin(s, ev->time);
  g_string_append(b, ",\"from\":");
  sim_json_append_u64(b, ev->from);
  g_string_append(b, ",\"to\":");
  sim_json_append_u64(b, ev->to);
  g_string_append(b, ",\"round\":");
  sim_json_append_u64(b, ev->round);
  g_string_append(b, ",\"tag\":");
  sim_json_append_u64(b, ev->tag);
  g_string_append(b, ",\"bytes\":");
  sim_json_append_u64(b, ev->bytes);
  g_string_append(b, ",\"sent_ns\":");
  sim_json_append_u64(b, ev->time);
  if (ev->kind == SIM_BUS_MESSAGE_SENT) {
    g_string_append(b, ",\"arrival_ns\":");
    sim_json_append_u64(b, ev->arrival);
    g_string_append(b, ",\"dropped\":null");
  } else {
    g_string_append(b, ",\"arrival_ns\":null,\"dropped\":");
    sim_json_append_string(b, sim_drop_reason_name(ev->reason));
  }
  GError *error = NULL;
  if (!body_emit(s, "message", &error))
    defer_error(s, error);
}

static void append_pair(GString *b, guint32 u, guint32 v) {
  g_string_append_c(b, '[');
  sim_json_append_u64(b, u);
  g_string_append_c(b, ',');
  sim_json_append_u64(b, v);
  g_string_append_c(b, ']');
}

static void publish_engine_topology(SimStream *s, const SimBusEvent *ev) {
  GString *b = body_begin(s, ev->time);
  g_string_append(b, ",\"round\":null,\"epoch\":");
  sim_json_append_u64(b, ev->tag);
  const SimTopologyChange *c = ev->change;
  gboolean reset = c == NULL || c->kind == SIM_TOPOLOGY_GRAPH;
  g_string_append(b, reset ? ",\"reset\":true" : ",\"reset\":false");
  g_string_append(b, ",\"left\":[],\"joined\":[],\"removed\":[");
  if (!reset && c->kind == SIM_TOPOLOGY_LINK_DOWN)
    append_pair(b, c->u, c->v);
  g_string_append(b, "],\"added\":[");
  if (!reset && c->kind == SIM_TOPOLOGY_LINK_UP)
    append_pair(b, c->u, c->v);
  g_string_append_c(b, ']');
  GError *error = NULL;
  if (!body_emit(s, "topology", &error))
    defer_error(s, error);
}

static void on_bus(const SimBusEvent *ev, gpointer data) {
  SimStream *s = ((StreamLink *)data)->stream;
  if (s == NULL)
    return;
  switch (ev->kind) {
  case SIM_BUS_MESSAGE_SENT: {
    s->stats.messages_seen++;
    gboolean take = s->every != 0 && s->msg_counter++ % s->every == 0;
    if (!take) {
      s->stats.messages_sampled_out++;
      return;
    }
    if (ev->arrival == SIM_TIME_NEVER) { /* its DROPPED comes next */
      s->drop_pending = TRUE;
      s->drop_seq = ev->seq;
      return;
    }
    publish_message(s, ev);
    return;
  }
  case SIM_BUS_MESSAGE_DROPPED:
    if (s->drop_pending && ev->seq == s->drop_seq) {
      s->drop_pending = FALSE;
      publish_message(s, ev);
    }
    return;
  case SIM_BUS_ROUND: {
    GError *error = NULL;
    if (!sim_stream_publish_round(s, ev->time, ev->round, &error))
      defer_error(s, error);
    return;
  }
  case SIM_BUS_TOPOLOGY_CHANGE:
    publish_engine_topology(s, ev);
    return;
  default:
    return;
  }
}

static void link_destroy(gpointer data) {
  StreamLink *link = data;
  if (link->stream != NULL) { /* the engine went first */
    link->stream->link = NULL;
    link->stream->engine = NULL;
    link->stream->bus_id = 0;
  }
  g_free(link);
}

gboolean sim_stream_attach(SimStream *s, SimEngine *engine, GError **error) {
  g_return_val_if_fail(s != NULL && engine != NULL, FALSE);
  if (s->engine != NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_stream_attach: the stream already follows an engine");
    return FALSE;
  }
  StreamLink *link = g_new0(StreamLink, 1);
  link->stream = s;
  guint id = sim_bus_subscribe(sim_engine_bus(engine), on_bus, link, link_destroy, error);
  if (id == 0) {
    g_free(link);
    return FALSE;
  }
  s->engine = engine;
  s->link = link;
  s->bus_id = id;
  return TRUE;
}

void sim_stream_detach(SimStream *s) {
  g_return_if_fail(s != NULL);
  if (s->link == NULL)
    return;
  s->link->stream = NULL; /* the link may outlive us until the bus compacts */
  s->link = NULL;
  SimEngine *e = s->engine;
  s->engine = NULL;
  guint id = s->bus_id;
  s->bus_id = 0;
  sim_bus_unsubscribe(sim_engine_bus(e), id);
}

/* ---- Caller events ---- */

static gboolean scenario_text(const char *json, char **out, GError **error) {
  JsonParser *parser = json_parser_new();
  GError *local = NULL;
  gboolean ok = json_parser_load_from_data(parser, json, -1, &local);
  JsonNode *root = ok ? json_parser_get_root(parser) : NULL;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_stream_begin_run: scenario_json is not a JSON object%s%s",
                local ? ": " : "", local ? local->message : "");
    g_clear_error(&local);
    g_object_unref(parser);
    return FALSE;
  }
  JsonGenerator *gen = json_generator_new();
  json_generator_set_root(gen, root);
  *out = json_generator_to_data(gen, NULL);
  g_object_unref(gen);
  g_object_unref(parser);
  return TRUE;
}

gboolean sim_stream_begin_run(SimStream *s, const SimStreamRun *r, GError **error) {
  g_return_val_if_fail(s != NULL && r != NULL, FALSE);
  if (r->name == NULL || r->n_nodes == 0 || (r->n_edges > 0 && r->edges == NULL)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_stream_begin_run: a run needs a name, at least one node and its edges");
    return FALSE;
  }
  for (gsize i = 0; i < 2 * r->n_edges; i++) {
    if (r->edges[i] >= r->n_nodes) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                  "sim_stream_begin_run: edge %zu has endpoint %u, beyond the %u nodes", i / 2,
                  r->edges[i], r->n_nodes);
      return FALSE;
    }
  }
  if (r->positions != NULL) {
    for (gsize i = 0; i < 2 * (gsize)r->n_nodes; i++) {
      if (!isfinite(r->positions[i])) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                    "sim_stream_begin_run: node %zu has a non-finite position", i / 2);
        return FALSE;
      }
    }
  }
  char *scenario = NULL;
  if (r->scenario_json != NULL && !scenario_text(r->scenario_json, &scenario, error))
    return FALSE;

  handle_subscriptions(s);
  GString *b = body_begin(s, 0);
  g_string_append(b, ",\"event\":\"start\",\"name\":");
  sim_json_append_string(b, r->name);
  if (r->command != NULL) {
    g_string_append(b, ",\"command\":");
    sim_json_append_string(b, r->command);
  }
  g_string_append(b, ",\"seed\":");
  sim_json_append_u64(b, r->seed);
  g_string_append(b, ",\"rounds\":");
  sim_json_append_u64(b, r->rounds);
  g_string_append(b, ",\"messages_every\":");
  sim_json_append_u64(b, s->every);
  if (scenario != NULL) {
    g_string_append(b, ",\"scenario\":");
    g_string_append(b, scenario);
    g_free(scenario);
  }
  g_string_append(b, ",\"graph\":{\"n\":");
  sim_json_append_u64(b, r->n_nodes);
  g_string_append(b, ",\"edges\":[");
  for (gsize i = 0; i < r->n_edges; i++) {
    if (i)
      g_string_append_c(b, ',');
    append_pair(b, r->edges[2 * i], r->edges[2 * i + 1]);
  }
  g_string_append_c(b, ']');
  if (r->positions != NULL) {
    g_string_append(b, ",\"layout\":");
    sim_json_append_string(b, r->layout != NULL ? r->layout : "given");
    g_string_append(b, ",\"positions\":[");
    for (gsize u = 0; u < r->n_nodes; u++) {
      if (u)
        g_string_append_c(b, ',');
      g_string_append_c(b, '[');
      sim_json_append_double(b, r->positions[2 * u]);
      g_string_append_c(b, ',');
      sim_json_append_double(b, r->positions[2 * u + 1]);
      g_string_append_c(b, ']');
    }
    g_string_append_c(b, ']');
  }
  g_string_append(b, "}}");
  g_free(s->start_body);
  s->start_body = g_strndup(b->str, b->len);
  s->start_len = b->len;
  return deliver(s, "run", b->str, b->len, error);
}

gboolean sim_stream_end_run(SimStream *s, SimTime t, const char *status, GError **error) {
  g_return_val_if_fail(s != NULL, FALSE);
  GString *b = body_begin(s, t);
  g_string_append(b, ",\"event\":\"end\",\"status\":");
  sim_json_append_string(b, status != NULL ? status : "ok");
  if (s->engine != NULL) {
    SimEngineStats es;
    sim_engine_get_stats(s->engine, &es);
    const struct {
      const char *key;
      guint64 value;
    } fields[] = {
        {"events", es.events},
        {"timers", es.timers},
        {"messages_sent", es.messages_sent},
        {"messages_delivered", es.messages_delivered},
        {"messages_dropped", es.messages_dropped},
        {"dropped_loss", es.dropped_loss},
        {"dropped_link_down", es.dropped_link_down},
        {"bytes_sent", es.bytes_sent},
        {"bytes_delivered", es.bytes_delivered},
    };
    g_string_append(b, ",\"engine\":{");
    for (gsize i = 0; i < G_N_ELEMENTS(fields); i++) {
      g_string_append_printf(b, "%s\"%s\":", i ? "," : "", fields[i].key);
      sim_json_append_u64(b, fields[i].value);
    }
    g_string_append_c(b, '}');
  }
  g_string_append(b, ",\"stream\":{\"published\":");
  sim_json_append_u64(b, s->stats.published);
  g_string_append(b, ",\"dropped\":");
  sim_json_append_u64(b, s->stats.dropped);
  g_string_append(b, ",\"messages_every\":");
  sim_json_append_u64(b, s->every);
  g_string_append(b, ",\"messages_seen\":");
  sim_json_append_u64(b, s->stats.messages_seen);
  g_string_append(b, ",\"messages_sampled_out\":");
  sim_json_append_u64(b, s->stats.messages_sampled_out);
  g_string_append(b, "}");
  gboolean ok = body_emit(s, "run", error);
  g_clear_pointer(&s->start_body, g_free);
  s->start_len = 0;
  if (ok && s->deferred != NULL) {
    g_propagate_error(error, s->deferred);
    s->deferred = NULL;
    ok = FALSE;
  }
  return ok;
}

gboolean sim_stream_publish_round(SimStream *s, SimTime t, guint round, GError **error) {
  g_return_val_if_fail(s != NULL, FALSE);
  /* Round boundaries are rare and a natural time to look for viewers. */
  handle_subscriptions(s);
  GString *b = body_begin(s, t);
  g_string_append(b, ",\"round\":");
  sim_json_append_u64(b, round);
  return body_emit(s, "round", error);
}

static void append_doubles(GString *b, const char *key, const double *x, gsize n) {
  if (x == NULL)
    return;
  g_string_append_printf(b, ",\"%s\":[", key);
  for (gsize i = 0; i < n; i++) {
    if (i)
      g_string_append_c(b, ',');
    sim_json_append_double(b, x[i]);
  }
  g_string_append_c(b, ']');
}

static void append_nodes(GString *b, const char *key, const guint32 *ids, gsize n) {
  g_string_append_printf(b, ",\"%s\":[", key);
  for (gsize i = 0; i < n; i++) {
    if (i)
      g_string_append_c(b, ',');
    sim_json_append_u64(b, ids != NULL ? ids[i] : i);
  }
  g_string_append_c(b, ']');
}

gboolean sim_stream_publish_metrics(SimStream *s, SimTime t, guint round, gsize n,
                                    const guint32 *nodes, const double *train_loss,
                                    const double *test_loss, const double *accuracy,
                                    GError **error) {
  g_return_val_if_fail(s != NULL, FALSE);
  if (n == 0 || (train_loss == NULL && test_loss == NULL && accuracy == NULL)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_stream_publish_metrics: no node or no value to publish");
    return FALSE;
  }
  GString *b = body_begin(s, t);
  g_string_append(b, ",\"round\":");
  sim_json_append_u64(b, round);
  append_nodes(b, "nodes", nodes, n);
  append_doubles(b, "train_loss", train_loss, n);
  append_doubles(b, "test_loss", test_loss, n);
  append_doubles(b, "accuracy", accuracy, n);
  return body_emit(s, "metric", error);
}

static gboolean check_losses(const double *x, gsize n, const char *what, GError **error) {
  for (gsize i = 0; x != NULL && i < n; i++) {
    if (isnan(x[i]) || x[i] < 0) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                  "sim_stream_publish_privacy: %s[%zu] = %g (must be >= 0 or +inf)", what, i,
                  x[i]);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean sim_stream_publish_privacy(SimStream *s, SimTime t, const SimStreamPrivacy *p,
                                    GError **error) {
  g_return_val_if_fail(s != NULL && p != NULL, FALSE);
  if (p->collusion == NULL || p->trust == NULL || p->n_attackers == 0 ||
      p->attackers == NULL || p->n_victims == 0 || p->victims == NULL || p->mu == NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_stream_publish_privacy: needs a collusion name, a trust model, "
                "attackers, victims and their mu");
    return FALSE;
  }
  if (!check_losses(p->mu, p->n_victims, "mu", error) ||
      !check_losses(p->epsilon, p->n_victims, "epsilon", error))
    return FALSE;
  GString *b = body_begin(s, t);
  g_string_append(b, ",\"round\":");
  sim_json_append_u64(b, p->round);
  g_string_append(b, ",\"collusion\":");
  sim_json_append_string(b, p->collusion);
  append_nodes(b, "attackers", p->attackers, p->n_attackers);
  g_string_append(b, ",\"trust\":");
  sim_json_append_string(b, p->trust);
  g_string_append(b, ",\"delta\":");
  sim_json_append_double(b, p->delta);
  append_nodes(b, "victims", p->victims, p->n_victims);
  append_doubles(b, "mu", p->mu, p->n_victims);
  append_doubles(b, "epsilon", p->epsilon, p->n_victims);
  if (p->distance != NULL) {
    g_string_append(b, ",\"distance\":[");
    for (gsize i = 0; i < p->n_victims; i++) {
      if (i)
        g_string_append_c(b, ',');
      if (p->distance[i] < 0)
        g_string_append(b, "null");
      else
        sim_json_append_u64(b, (guint64)p->distance[i]);
    }
    g_string_append_c(b, ']');
  }
  return body_emit(s, "privacy", error);
}

gboolean sim_stream_publish_topology(SimStream *s, SimTime t, guint round,
                                     const SimStreamChange *changes, gsize n_changes,
                                     gboolean reset, GError **error) {
  g_return_val_if_fail(s != NULL && (changes != NULL || n_changes == 0), FALSE);
  for (gsize i = 0; i < n_changes; i++) {
    if ((guint)changes[i].kind > SIM_STREAM_NODE_JOINED) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                  "sim_stream_publish_topology: change %zu has unknown kind %d", i,
                  (int)changes[i].kind);
      return FALSE;
    }
  }
  static const char *const keys[] = {"left", "joined", "removed", "added"};
  static const SimStreamChangeKind kinds[] = {SIM_STREAM_NODE_LEFT, SIM_STREAM_NODE_JOINED,
                                              SIM_STREAM_EDGE_REMOVED, SIM_STREAM_EDGE_ADDED};
  GString *b = body_begin(s, t);
  g_string_append(b, ",\"round\":");
  sim_json_append_u64(b, round);
  g_string_append(b, ",\"epoch\":null");
  g_string_append(b, reset ? ",\"reset\":true" : ",\"reset\":false");
  for (gsize k = 0; k < G_N_ELEMENTS(keys); k++) {
    g_string_append_printf(b, ",\"%s\":[", keys[k]);
    gboolean first = TRUE;
    for (gsize i = 0; i < n_changes; i++) {
      if (changes[i].kind != kinds[k])
        continue;
      if (!first)
        g_string_append_c(b, ',');
      first = FALSE;
      if (k < 2)
        sim_json_append_u64(b, changes[i].u);
      else
        append_pair(b, changes[i].u, changes[i].v);
    }
    g_string_append_c(b, ']');
  }
  return body_emit(s, "topology", error);
}

/* Whether a recorded run body is a start (replays remember it for late
 * subscribers). Run bodies are rare, so a real parse is affordable. */
static gboolean body_is_run_start(const char *body, gsize len) {
  JsonParser *parser = json_parser_new();
  gboolean start = FALSE;
  if (json_parser_load_from_data(parser, body, (gssize)len, NULL)) {
    JsonNode *root = json_parser_get_root(parser);
    if (root != NULL && JSON_NODE_HOLDS_OBJECT(root)) {
      const char *ev = json_object_get_string_member_with_default(json_node_get_object(root),
                                                                  "event", "");
      start = strcmp(ev, "start") == 0;
    }
  }
  g_object_unref(parser);
  return start;
}

gboolean sim_stream_publish_raw(SimStream *s, const char *topic, const char *body, gsize len,
                                GError **error) {
  g_return_val_if_fail(s != NULL && topic != NULL && body != NULL, FALSE);
  if (!sim_stream_topic_is_valid(topic, strlen(topic)) || memchr(body, '\n', len) != NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_stream_publish_raw: bad topic '%s' or a body with a newline", topic);
    return FALSE;
  }
  if (strcmp(topic, "run") == 0) {
    g_clear_pointer(&s->start_body, g_free);
    s->start_len = 0;
    if (body_is_run_start(body, len)) {
      handle_subscriptions(s);
      s->start_body = g_strndup(body, len);
      s->start_len = len;
    }
  }
  return deliver(s, topic, body, len, error);
}
