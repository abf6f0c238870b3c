/*
 * stream/stream.c: the event stream publisher (docs/events.md).
 *
 * The socket is an XPUB rather than a PUB for two reasons: with
 * ZMQ_XPUB_NODROP a send to a full subscriber fails with EAGAIN instead of
 * vanishing silently, so drops can be counted and reported; and XPUB hands
 * us the subscriptions, so we can wait for a first viewer and send the run
 * start again to viewers that join mid-run.
 *
 * This file is the simulation thread's side: it formats bodies and gives
 * them their seq; sender.c sends and records them on its own thread.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <zmq.h>

#include "stream/internal.h"

#define DEFAULT_HWM 10000
#define LINGER_MS 1000

/* The bus subscription's user data. It outlives neither side: whichever goes
 * first unhooks the other (see stream_attach). */
typedef struct {
  Stream *stream;
} StreamLink;

struct Stream {
  StreamSender *sender; /* NULL without socket and trace */
  char *endpoint;
  GError *deferred; /* first error met on the bus path */
  guint every;      /* message sampling: 1 all, 0 none */
  guint block_ms;
  guint64 seq;
  SimTime last_t;
  /* A SENT without arrival is followed by its DROPPED (same engine seq),
   * which carries the reason: the message event is published then. */
  gboolean drop_pending;
  guint64 drop_seq;
  StreamStats stats; /* dropped, recorded, subscribers_joined: see get_stats */
  /* The engine samples (sim_bus_subscribe_sampled), so the stream never
   * hears of a transmission it does not publish; it counts them from the
   * engine's messages_sent instead: sent_base at attach, and the counts of
   * engines followed before. */
  guint64 sent_base;
  guint64 seen_before, sampled_out_before;
  /* The digits of the last message time formatted: a broadcast's
   * transmissions share their time. */
  SimTime time_cached;
  guint time_digits;
  char time_text[24];
  SimEngine *engine;
  StreamLink *link;
  guint bus_id;
  GString *buf;
  gboolean finished;
};

/* ---- Sampling ---- */

gboolean stream_parse_sampling(const char *spec, guint *every, GError **error) {
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
  g_set_error(error, STREAM_ERROR, STREAM_ERROR_PARSE,
              "message sampling '%s' is not one of: all, every:N (N >= 1), none", spec);
  return FALSE;
}

/* ---- Socket ---- */

/* Counts the subscriptions waiting on a fresh socket. */
static guint64 count_subscriptions(void *sock) {
  guint64 n = 0;
  for (;;) {
    char frame[256];
    int len = zmq_recv(sock, frame, sizeof frame, ZMQ_DONTWAIT);
    if (len < 0)
      return n;
    n += len >= 1 && frame[0] == 1;
  }
}

/* Binds the socket (and waits for a first subscriber); on success the
 * context and socket are the caller's. */
static gboolean open_socket(const StreamOptions *o, void **ctx_out, void **sock_out,
                            char **endpoint, guint64 *joined, GError **error) {
  void *ctx = zmq_ctx_new();
  void *sock = ctx != NULL ? zmq_socket(ctx, ZMQ_XPUB) : NULL;
  if (sock == NULL) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_CAPACITY, "cannot create a ZeroMQ socket: %s",
                zmq_strerror(errno));
    if (ctx != NULL)
      zmq_ctx_term(ctx);
    return FALSE;
  }
  int hwm = o->hwm ? (int)MIN(o->hwm, (guint)G_MAXINT) : DEFAULT_HWM;
  int one = 1, linger = LINGER_MS;
  int timeo = o->block_ms ? (int)MIN(o->block_ms, (guint)G_MAXINT) : 0;
  zmq_setsockopt(sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(sock, ZMQ_XPUB_NODROP, &one, sizeof one);
  zmq_setsockopt(sock, ZMQ_XPUB_VERBOSE, &one, sizeof one);
  zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
  if (timeo)
    zmq_setsockopt(sock, ZMQ_SNDTIMEO, &timeo, sizeof timeo);
  if (zmq_bind(sock, o->publish) != 0) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "cannot publish on '%s': %s (an endpoint looks like tcp://127.0.0.1:5556; "
                "use port * for any free port)",
                o->publish, zmq_strerror(errno));
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return FALSE;
  }
  char last[256] = "";
  size_t len = sizeof last;
  if (zmq_getsockopt(sock, ZMQ_LAST_ENDPOINT, last, &len) == 0 && last[0])
    *endpoint = g_strdup(last);
  else
    *endpoint = g_strdup(o->publish);
  *joined = 0;
  if (o->wait_ms) {
    gint64 deadline = g_get_monotonic_time() + (gint64)o->wait_ms * 1000;
    while (*joined == 0) {
      gint64 left = (deadline - g_get_monotonic_time()) / 1000;
      if (left <= 0)
        break;
      zmq_pollitem_t item = {.socket = sock, .events = ZMQ_POLLIN};
      if (zmq_poll(&item, 1, (long)left) < 0 && errno != EINTR)
        break;
      *joined += count_subscriptions(sock);
    }
  }
  *ctx_out = ctx;
  *sock_out = sock;
  return TRUE;
}

/* ---- Publication ---- */

static void defer_error(Stream *s, GError *error) {
  if (s->deferred == NULL)
    s->deferred = error;
  else
    g_error_free(error);
}

/* Starts a body at time @t: {"v":..,"seq":..,"t_ns":.. (no closing brace). */
static GString *body_begin(Stream *s, SimTime t) {
  GString *b = s->buf;
  g_string_truncate(b, 0);
  if (t < s->last_t)
    t = s->last_t;
  s->last_t = t;
  g_string_append(b, "{\"v\":" G_STRINGIFY(STREAM_VERSION) ",\"seq\":");
  sim_json_append_u64(b, s->seq++);
  g_string_append(b, ",\"t_ns\":");
  sim_json_append_u64(b, t);
  return b;
}

static gboolean deliver_flags(Stream *s, const char *topic, const char *body, gsize len,
                              guint flags, GError **error) {
  (void)error; /* write errors surface at the next sync (end_run, finish) */
  s->stats.published++;
  s->stats.bytes += len;
  if (s->sender != NULL)
    stream_sender_post(s->sender, topic, body, len, flags);
  return TRUE;
}

/* Message events are batched; anything else goes out at once. */
static gboolean deliver(Stream *s, const char *topic, const char *body, gsize len, GError **error) {
  guint flags = strcmp(topic, "message") == 0 ? 0 : STREAM_SENDER_URGENT;
  return deliver_flags(s, topic, body, len, flags, error);
}

/* Closes the body being built and publishes it. */
static gboolean body_emit(Stream *s, const char *topic, GError **error) {
  g_string_append_c(s->buf, '}');
  return deliver(s, topic, s->buf->str, s->buf->len, error);
}

/* ---- Life cycle ---- */

Stream *stream_new(const StreamOptions *o, GError **error) {
  g_return_val_if_fail(o != NULL, NULL);
  guint every = 1;
  if (!stream_parse_sampling(o->messages, &every, error))
    return NULL;
  StreamTraceWriter *trace = NULL;
  if (o->record != NULL && (trace = stream_trace_writer_open(o->record, error)) == NULL)
    return NULL;
  void *ctx = NULL, *sock = NULL;
  char *endpoint = NULL;
  guint64 joined = 0;
  if (o->publish != NULL && !open_socket(o, &ctx, &sock, &endpoint, &joined, error)) {
    if (trace != NULL) {
      /* Do not leave a header-only trace behind for a run that never ran. */
      stream_trace_writer_abandon(trace);
      g_unlink(o->record);
    }
    return NULL;
  }
  Stream *s = g_new0(Stream, 1);
  s->every = every;
  s->buf = g_string_sized_new(256);
  s->endpoint = endpoint;
  s->stats.subscribers_joined = joined;
  if (sock != NULL || trace != NULL)
    s->sender = stream_sender_new(ctx, sock, trace, o->block_ms, joined);
  return s;
}

gboolean stream_finish(Stream *s, GError **error) {
  g_return_val_if_fail(s != NULL, FALSE);
  gboolean ok = TRUE;
  GError *local = NULL;
  if (s->sender != NULL) {
    guint64 dropped, recorded, joined;
    stream_sender_counts(s->sender, &dropped, &recorded, &joined);
    ok = stream_sender_sync(s->sender, &local);
    /* the final counts, now that everything has been sent */
    stream_sender_counts(s->sender, &s->stats.dropped, &s->stats.recorded,
                         &s->stats.subscribers_joined);
    ok = stream_sender_finish(s->sender, ok ? &local : NULL) && ok;
    s->sender = NULL;
  }
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

void stream_free(Stream *s) {
  if (s == NULL)
    return;
  stream_detach(s);
  if (!s->finished) {
    GError *ignored = NULL;
    stream_finish(s, &ignored);
    g_clear_error(&ignored);
  }
  g_clear_error(&s->deferred);
  g_free(s->endpoint);
  g_string_free(s->buf, TRUE);
  g_free(s);
}

const char *stream_endpoint(const Stream *s) {
  g_return_val_if_fail(s != NULL, NULL);
  return s->endpoint;
}

guint stream_message_every(const Stream *s) {
  g_return_val_if_fail(s != NULL, 0);
  return s->every;
}

/* Transmissions since attach and those sampling left out. The engine takes
 * the 1st, (every+1)st, ... transmission after the subscription, so of n it
 * took ceil(n / every). */
static void message_counts(const Stream *s, guint64 *seen, guint64 *sampled_out) {
  *seen = s->seen_before;
  *sampled_out = s->sampled_out_before;
  if (s->engine == NULL)
    return;
  SimEngineStats es;
  sim_engine_get_stats(s->engine, &es);
  guint64 n = es.messages_sent - s->sent_base;
  guint64 taken = s->every ? n / s->every + (n % s->every != 0) : 0;
  *seen += n;
  *sampled_out += n - taken;
}

/* The engine is about to go away (detach or its destruction). */
static void freeze_message_counts(Stream *s) {
  message_counts(s, &s->seen_before, &s->sampled_out_before);
}

void stream_get_stats(const Stream *s, StreamStats *stats) {
  g_return_if_fail(s != NULL && stats != NULL);
  *stats = s->stats;
  message_counts(s, &stats->messages_seen, &stats->messages_sampled_out);
  if (s->sender != NULL) /* the sender thread's counters, as of now */
    stream_sender_counts(s->sender, &stats->dropped, &stats->recorded, &stats->subscribers_joined);
}

void stream_poll(Stream *s) {
  g_return_if_fail(s != NULL);
  /* The sender thread watches subscriptions every few milliseconds; handing
   * it what is batched is all a caller about to sleep needs. */
  if (s->sender != NULL)
    stream_sender_flush(s->sender);
}

/* ---- Engine events ---- */

/* Message bodies are by far the most frequent: they are written straight
 * into the sender's batch with no GString, no strlen, no library call and
 * no locale, several times faster than the generic path (same bytes). */
#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* The longest message body: 112 bytes of text and 9 numbers of at most 20
 * digits, with room for put_time's fixed-size copy. */
#define MESSAGE_MAX 400

static const char DIGITS2[] = "00010203040506070809101112131415161718192021222324252627282930"
                              "31323334353637383940414243444546474849505152535455565758596061"
                              "6263646566676869707172737475767778798081828384858687888990919293"
                              "949596979899";

/* Decimal digits of @x < 2^32: floor(log10) from the bit length (1233/4096
 * ~ log10(2)), corrected by one comparison. */
static inline guint n_digits32(guint32 x) {
  static const guint32 pow10[10] = {0,      10,      100,      1000,      10000,
                                    100000, 1000000, 10000000, 100000000, 1000000000};
  guint t = ((32u - (guint)__builtin_clz(x | 1)) * 1233u) >> 12;
  return t + 1 - (x < pow10[t]);
}

/* Writes @x in place, from its last digit back, two digits per step; 32-bit
 * arithmetic is the cheaper kind and node ids, rounds, sizes fit in it. */
static inline char *put_u32(char *p, guint32 x) {
  char *end = p + n_digits32(x), *q = end;
  while (x >= 100) {
    guint32 r = x % 100;
    x /= 100;
    q -= 2;
    memcpy(q, DIGITS2 + 2 * r, 2);
  }
  if (x >= 10)
    memcpy(q - 2, DIGITS2 + 2 * x, 2);
  else
    q[-1] = (char)('0' + x);
  return end;
}

/* Writes @x < 10^8 as exactly 8 digits (leading zeros). */
static inline char *put_8digits(char *p, guint32 x) {
  guint32 hi = x / 10000, lo = x % 10000;
  memcpy(p, DIGITS2 + 2 * (hi / 100), 2);
  memcpy(p + 2, DIGITS2 + 2 * (hi % 100), 2);
  memcpy(p + 4, DIGITS2 + 2 * (lo / 100), 2);
  memcpy(p + 6, DIGITS2 + 2 * (lo % 100), 2);
  return p + 8;
}

/* Times in ns have 10 to 13 digits: one 64-bit division splits them into a
 * 32-bit head and 8 fixed digits. */
static inline char *put_u64(char *p, guint64 x) {
  if (x <= G_MAXUINT32)
    return put_u32(p, (guint32)x);
  guint64 hi = x / 100000000u;
  guint32 lo = (guint32)(x % 100000000u);
  if (hi <= G_MAXUINT32) {
    p = put_u32(p, (guint32)hi);
  } else { /* beyond 4.3e17: 20 digits at most, so hi / 10^8 < 2^32 */
    p = put_u32(p, (guint32)(hi / 100000000u));
    p = put_8digits(p, (guint32)(hi % 100000000u));
  }
  return put_8digits(p, lo);
}

/* Times have 10 to 13 digits and repeat (t_ns and sent_ns, a broadcast's
 * transmissions): formatted once, then copied with one fixed-size copy
 * (the destination has room beyond the digits). */
static inline char *put_time(Stream *s, char *p, SimTime t) {
  if (t != s->time_cached || s->time_digits == 0) {
    s->time_digits = (guint)(put_u64(s->time_text, t) - s->time_text);
    s->time_cached = t;
  }
  memcpy(p, s->time_text, sizeof s->time_text);
  return p + s->time_digits;
}

static void publish_message(Stream *s, const SimBusEvent *ev) {
  char local[MESSAGE_MAX];
  char *const buf = s->sender != NULL ? stream_sender_reserve(s->sender, "message", 7, MESSAGE_MAX)
                                      : local;
  char *p = buf;
  SimTime t = ev->time < s->last_t ? s->last_t : ev->time;
  s->last_t = t;
  p = PUT(p, "{\"v\":" G_STRINGIFY(STREAM_VERSION) ",\"seq\":");
  p = put_u64(p, s->seq++);
  p = PUT(p, ",\"t_ns\":");
  p = put_time(s, p, t);
  p = PUT(p, ",\"from\":");
  p = put_u32(p, ev->from);
  p = PUT(p, ",\"to\":");
  p = put_u32(p, ev->to);
  p = PUT(p, ",\"round\":");
  p = put_u32(p, ev->round);
  p = PUT(p, ",\"tag\":");
  p = put_u64(p, ev->tag);
  p = PUT(p, ",\"bytes\":");
  p = put_u64(p, ev->bytes);
  p = PUT(p, ",\"sent_ns\":");
  p = put_time(s, p, ev->time);
  if (ev->kind == SIM_BUS_MESSAGE_SENT) {
    p = PUT(p, ",\"arrival_ns\":");
    p = put_u64(p, ev->arrival);
    p = PUT(p, ",\"dropped\":null}");
  } else {
    p = PUT(p, ",\"arrival_ns\":null,\"dropped\":\"");
    const char *why = sim_drop_reason_name(ev->reason);
    gsize n = strlen(why);
    memcpy(p, why, n);
    p += n;
    p = PUT(p, "\"}");
  }
  gsize len = (gsize)(p - buf);
  s->stats.published++;
  s->stats.bytes += len;
  if (s->sender != NULL)
    stream_sender_commit(s->sender, len, 0);
}

static void append_pair(GString *b, guint32 u, guint32 v) {
  g_string_append_c(b, '[');
  sim_json_append_u64(b, u);
  g_string_append_c(b, ',');
  sim_json_append_u64(b, v);
  g_string_append_c(b, ']');
}

static void publish_engine_topology(Stream *s, const SimBusEvent *ev) {
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
  Stream *s = ((StreamLink *)data)->stream;
  if (s == NULL)
    return;
  switch (ev->kind) {
  case SIM_BUS_MESSAGE_SENT: {           /* one the engine sampled for us */
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
    if (!stream_publish_round(s, ev->time, ev->round, &error))
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
  if (link->stream != NULL) { /* the engine went first (its counters still hold) */
    freeze_message_counts(link->stream);
    link->stream->link = NULL;
    link->stream->engine = NULL;
    link->stream->bus_id = 0;
  }
  g_free(link);
}

gboolean stream_attach(Stream *s, SimEngine *engine, GError **error) {
  g_return_val_if_fail(s != NULL && engine != NULL, FALSE);
  if (s->engine != NULL) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "stream_attach: the stream already follows an engine");
    return FALSE;
  }
  StreamLink *link = g_new0(StreamLink, 1);
  link->stream = s;
  /* Only the kinds on_bus handles, and only the transmissions it publishes:
   * the engine then builds no delivery, timer or sampled-out event for the
   * stream, the bulk of a run's events. */
  guint32 kinds = SIM_BUS_KIND_BIT(SIM_BUS_ROUND) | SIM_BUS_KIND_BIT(SIM_BUS_TOPOLOGY_CHANGE);
  if (s->every != 0)
    kinds |= SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) | SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED);
  guint id = sim_bus_subscribe_sampled(sim_engine_bus(engine), kinds, MAX(s->every, 1), on_bus,
                                       link, link_destroy, error);
  if (id == 0) {
    g_free(link);
    return FALSE;
  }
  SimEngineStats es;
  sim_engine_get_stats(engine, &es);
  s->sent_base = es.messages_sent;
  s->drop_pending = FALSE;
  s->engine = engine;
  s->link = link;
  s->bus_id = id;
  return TRUE;
}

void stream_detach(Stream *s) {
  g_return_if_fail(s != NULL);
  if (s->link == NULL)
    return;
  freeze_message_counts(s);
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
  const char *why = NULL;
  if (!stream_json_body_bounded(json, strlen(json), &why)) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "stream_begin_run: scenario_json is refused: %s", why);
    return FALSE;
  }
  JsonParser *parser = json_parser_new();
  GError *local = NULL;
  gboolean ok = json_parser_load_from_data(parser, json, -1, &local);
  JsonNode *root = ok ? json_parser_get_root(parser) : NULL;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "stream_begin_run: scenario_json is not a JSON object%s%s", local ? ": " : "",
                local ? local->message : "");
    g_clear_error(&local);
    g_object_unref(parser);
    return FALSE;
  }
  *out = sim_json_write(root, 0);
  g_object_unref(parser);
  return TRUE;
}

gboolean stream_begin_run(Stream *s, const StreamRun *r, GError **error) {
  g_return_val_if_fail(s != NULL && r != NULL, FALSE);
  if (r->name == NULL || r->n_nodes == 0 || (r->n_edges > 0 && r->edges == NULL)) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "stream_begin_run: a run needs a name, at least one node and its edges");
    return FALSE;
  }
  for (gsize i = 0; i < 2 * r->n_edges; i++) {
    if (r->edges[i] >= r->n_nodes) {
      g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                  "stream_begin_run: edge %zu has endpoint %u, beyond the %u nodes", i / 2,
                  r->edges[i], r->n_nodes);
      return FALSE;
    }
  }
  if (r->positions != NULL) {
    for (gsize i = 0; i < 2 * (gsize)r->n_nodes; i++) {
      if (!isfinite(r->positions[i])) {
        g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                    "stream_begin_run: node %zu has a non-finite position", i / 2);
        return FALSE;
      }
    }
  }
  char *scenario = NULL;
  if (r->scenario_json != NULL && !scenario_text(r->scenario_json, &scenario, error))
    return FALSE;

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
  if (r->labels != NULL) {
    g_string_append(b, ",\"labels\":[");
    for (guint32 u = 0; u < r->n_nodes; u++) {
      if (u)
        g_string_append_c(b, ',');
      sim_json_append_string(b, r->labels[u] != NULL ? r->labels[u] : "");
    }
    g_string_append_c(b, ']');
  }
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
  return deliver_flags(s, "run", b->str, b->len, STREAM_SENDER_URGENT | STREAM_SENDER_RUN_START,
                       error);
}

gboolean stream_end_run(Stream *s, SimTime t, const char *status, GError **error) {
  g_return_val_if_fail(s != NULL, FALSE);
  /* Everything before the end is sent first, so its drop count is final. */
  GError *write_error = NULL;
  if (s->sender != NULL) {
    stream_sender_sync(s->sender, &write_error);
    stream_sender_counts(s->sender, &s->stats.dropped, &s->stats.recorded,
                         &s->stats.subscribers_joined);
  }
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
  guint64 seen, sampled_out;
  message_counts(s, &seen, &sampled_out);
  g_string_append(b, ",\"messages_seen\":");
  sim_json_append_u64(b, seen);
  g_string_append(b, ",\"messages_sampled_out\":");
  sim_json_append_u64(b, sampled_out);
  g_string_append(b, "}}");
  deliver_flags(s, "run", b->str, b->len, STREAM_SENDER_URGENT | STREAM_SENDER_RUN_END, NULL);
  if (s->deferred != NULL) {
    g_clear_error(&write_error);
    g_propagate_error(error, s->deferred);
    s->deferred = NULL;
    return FALSE;
  }
  if (write_error != NULL) {
    g_propagate_error(error, write_error);
    return FALSE;
  }
  return TRUE;
}

gboolean stream_publish_round(Stream *s, SimTime t, guint round, GError **error) {
  g_return_val_if_fail(s != NULL, FALSE);
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

gboolean stream_publish_metrics(Stream *s, SimTime t, guint round, gsize n, const guint32 *nodes,
                                const double *train_loss, const double *test_loss,
                                const double *accuracy, GError **error) {
  g_return_val_if_fail(s != NULL, FALSE);
  if (n == 0 || (train_loss == NULL && test_loss == NULL && accuracy == NULL)) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "stream_publish_metrics: no node or no value to publish");
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
      g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                  "stream_publish_privacy: %s[%zu] = %g (must be >= 0 or +inf)", what, i, x[i]);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean stream_publish_privacy(Stream *s, SimTime t, const StreamPrivacy *p, GError **error) {
  g_return_val_if_fail(s != NULL && p != NULL, FALSE);
  if (p->collusion == NULL || priv_trust_model(p->trust) == NULL || p->n_attackers == 0 ||
      p->attackers == NULL || p->n_victims == 0 || p->victims == NULL || p->mu == NULL) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "stream_publish_privacy: needs a collusion name, a trust model, "
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
  sim_json_append_string(b, priv_trust_name(p->trust));
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

gboolean stream_publish_topology(Stream *s, SimTime t, guint round, const TopoChange *changes,
                                 gsize n_changes, gboolean reset, GError **error) {
  g_return_val_if_fail(s != NULL && (changes != NULL || n_changes == 0), FALSE);
  for (gsize i = 0; i < n_changes; i++) {
    if ((guint)changes[i].kind > TOPO_CHANGE_NODE_JOINED) {
      g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                  "stream_publish_topology: change %zu has unknown kind %d", i,
                  (int)changes[i].kind);
      return FALSE;
    }
  }
  static const char *const keys[] = {"left", "joined", "removed", "added"};
  static const TopoChangeKind kinds[] = {TOPO_CHANGE_NODE_LEFT, TOPO_CHANGE_NODE_JOINED,
                                         TOPO_CHANGE_EDGE_REMOVED, TOPO_CHANGE_EDGE_ADDED};
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
  const char *why = NULL;
  if (!stream_json_body_bounded(body, len, &why))
    return FALSE; /* no event of ours: the trace reader refuses it too */
  JsonParser *parser = json_parser_new();
  gboolean start = FALSE;
  if (json_parser_load_from_data(parser, body, (gssize)len, NULL)) {
    JsonNode *root = json_parser_get_root(parser);
    if (root != NULL && JSON_NODE_HOLDS_OBJECT(root)) {
      const char *ev = stream_json_string_member(json_node_get_object(root), "event");
      start = strcmp(ev, "start") == 0;
    }
  }
  g_object_unref(parser);
  return start;
}

gboolean stream_publish_raw(Stream *s, const char *topic, const char *body, gsize len,
                            GError **error) {
  g_return_val_if_fail(s != NULL && topic != NULL && body != NULL, FALSE);
  if (!stream_topic_is_valid(topic, strlen(topic)) || memchr(body, '\n', len) != NULL) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT,
                "stream_publish_raw: bad topic '%s' or a body with a newline", topic);
    return FALSE;
  }
  guint flags = strcmp(topic, "message") == 0 ? 0 : STREAM_SENDER_URGENT;
  if (strcmp(topic, "run") == 0)
    flags |= body_is_run_start(body, len) ? STREAM_SENDER_RUN_START : STREAM_SENDER_RUN_END;
  return deliver_flags(s, topic, body, len, flags, error);
}
