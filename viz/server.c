/*
 * viz/server.c: the HTTP side of the visualizer: static files from the web
 * folder, and the event stream to browsers as Server-Sent Events.
 *
 * Memory: events other than messages go into one shared history of the
 * current run (capped at history_bytes, oldest first out); each browser is a
 * cursor into it, fed only while its own unsent queue is under
 * client_buffer bytes, so a slow browser costs a cursor, not a copy.
 * Message events are live only: a browser that is behind or whose queue is
 * full is not sent them, and is told how many it missed.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "viz/viz_internal.h"

#define DEFAULT_CLIENT_BUFFER ((gsize)1 << 20)
#define DEFAULT_HISTORY ((gsize)64 << 20)
#define DEFAULT_KEEPALIVE_MS 5000
#define DEFAULT_MAX_CONNECTIONS 256
#define DEFAULT_TIMEOUT_S 30

typedef struct VizClient VizClient;

/* One of the server's two answers (files or the event stream), called only
 * for requests that passed the host and method checks. */
typedef void (*VizServe)(VizServer *s, SoupServerMessage *msg);
typedef struct {
  VizServer *srv;
  VizServe serve;
} VizRoute;

struct VizServer {
  SoupServer *soup;
  VizListener *listener;
  GMainContext *context;
  char *web_dir, *host, *subscribe;
  gboolean allow_remote;
  guint16 port;
  VizSubscriber *sub;
  gsize client_buffer, history_cap;
  GSource *keepalive;
  GPtrArray *history; /* GBytes of SSE text, oldest first */
  guint64 hist_base;  /* absolute index of history[0] */
  gsize hist_bytes;
  GBytes *start; /* SSE text of the current run start */
  char *start_body;
  gsize start_len;
  gboolean run_open;
  guint64 gen; /* bumped by every new run start */
  GPtrArray *clients;
  VizServerStats stats;
  gint64 last_event_us;
  VizRoute files, events; /* the data of the two libsoup handlers */
};

struct VizClient {
  VizServer *srv;
  SoupServerMessage *msg;
  gsize pending; /* bytes handed to libsoup, not yet written */
  guint64 gen;   /* the run whose history pos indexes */
  guint64 pos;   /* next history event to send */
  guint64 skipped;
  guint64 live_gen; /* gen + 1 of the run this browser was told it caught up with; 0: none */
  gboolean in_handler;
};

/* ---- Sending to one browser ---- */

static void client_append(VizClient *c, GBytes *bytes) {
  SoupMessageBody *body = soup_server_message_get_response_body(c->msg);
  soup_message_body_append_bytes(body, bytes);
  c->pending += g_bytes_get_size(bytes);
  if (c->pending > c->srv->stats.max_client_queue)
    c->srv->stats.max_client_queue = c->pending;
}

static void client_wake(VizClient *c) {
  if (!c->in_handler)
    soup_server_message_unpause(c->msg);
}

/* Sends the client what it has not seen of the current run, while its
 * queue has room. */
static gboolean client_caught_up(const VizClient *c);
static GBytes *status_event(VizServer *s, const VizClient *c);

static void client_pump(VizClient *c) {
  VizServer *s = c->srv;
  gboolean wrote = FALSE;
  while (c->pending < s->client_buffer) {
    if (c->gen != s->gen) {
      c->gen = s->gen;
      c->pos = s->hist_base;
      if (s->start != NULL) {
        client_append(c, s->start);
        wrote = TRUE;
      }
      continue;
    }
    if (c->pos < s->hist_base) { /* evicted before this client read it */
      c->skipped += s->hist_base - c->pos;
      s->stats.skipped += s->hist_base - c->pos;
      c->pos = s->hist_base;
    }
    if (c->pos >= s->hist_base + s->history->len)
      break;
    client_append(c, g_ptr_array_index(s->history, c->pos - s->hist_base));
    c->pos++;
    wrote = TRUE;
  }
  /* Tell the page once per run when it has the whole history: the gaps in
   * seq before that are the message events sent before it joined (never
   * kept), after it events it really missed. */
  if (s->start != NULL && client_caught_up(c) && c->live_gen != s->gen + 1) {
    GBytes *b = status_event(s, c);
    client_append(c, b);
    g_bytes_unref(b);
    c->live_gen = s->gen + 1;
    wrote = TRUE;
  }
  if (wrote)
    client_wake(c);
}

static gboolean client_caught_up(const VizClient *c) {
  const VizServer *s = c->srv;
  return c->gen == s->gen && c->pos == s->hist_base + s->history->len;
}

static GBytes *status_event(VizServer *s, const VizClient *c) {
  GString *t = g_string_new("event: viz\ndata: {\"clients\":");
  g_string_append_printf(
      t,
      "%u,\"received\":%" G_GUINT64_FORMAT ",\"malformed\":%" G_GUINT64_FORMAT
      ",\"skipped\":%" G_GUINT64_FORMAT
      ",\"caught_up\":%s,\"run_open\":%s,\"idle_ms\":%" G_GINT64_FORMAT ",\"subscribe\":",
      s->clients->len, s->stats.received, s->stats.malformed, c != NULL ? c->skipped : 0,
      c != NULL && client_caught_up(c) ? "true" : "false", s->run_open ? "true" : "false",
      s->last_event_us ? (g_get_monotonic_time() - s->last_event_us) / 1000 : -1);
  JsonNode *str = json_node_new(JSON_NODE_VALUE);
  json_node_set_string(str, s->subscribe);
  char *quoted = json_to_string(str, FALSE);
  json_node_unref(str);
  g_string_append(t, quoted);
  g_free(quoted);
  g_string_append(t, "}\n\n");
  return g_string_free_to_bytes(t);
}

/* ---- Events from the stream ---- */

static void history_push(VizServer *s, GBytes *sse) {
  g_ptr_array_add(s->history, sse);
  s->hist_bytes += g_bytes_get_size(sse);
  guint drop = 0;
  while (s->hist_bytes > s->history_cap && s->history->len - drop > 1) {
    s->hist_bytes -= g_bytes_get_size(g_ptr_array_index(s->history, drop));
    drop++;
  }
  if (drop) {
    g_ptr_array_remove_range(s->history, 0, drop);
    s->hist_base += drop;
    s->stats.history_dropped += drop;
  }
  s->stats.history_size = s->hist_bytes;
}

static GBytes *sse_event(const char *topic, const char *body, gsize len) {
  GString *t = g_string_sized_new(len + strlen(topic) + 20);
  g_string_append(t, "event: ");
  g_string_append(t, topic);
  g_string_append(t, "\ndata: ");
  g_string_append_len(t, body, (gssize)len);
  g_string_append(t, "\n\n");
  return g_string_free_to_bytes(t);
}

static void on_event(const char *topic, const char *body, gsize len, gpointer data) {
  VizServer *s = data;
  s->stats.received++;
  s->last_event_us = g_get_monotonic_time();
  if (!viz_event_body_ok(topic, body, len)) {
    s->stats.malformed++;
    return;
  }
  if (strcmp(topic, "message") == 0) {
    GBytes *sse = sse_event(topic, body, len);
    for (guint i = 0; i < s->clients->len; i++) {
      VizClient *c = g_ptr_array_index(s->clients, i);
      if (client_caught_up(c) && c->pending < s->client_buffer) {
        client_append(c, sse);
        client_wake(c);
      } else {
        c->skipped++;
        s->stats.skipped++;
      }
    }
    g_bytes_unref(sse);
    return;
  }
  if (strcmp(topic, "run") == 0) {
    char buf[16];
    const char *ev = viz_run_event_kind(body, len, buf, sizeof buf);
    if (ev == NULL) {
      s->stats.malformed++;
      return;
    }
    if (strcmp(ev, "start") == 0) {
      /* The publisher sends the start again to late subscribers: the same
       * bytes during an open run are that repeat, not a new run. */
      if (s->run_open && s->start_body != NULL && len == s->start_len &&
          memcmp(body, s->start_body, len) == 0)
        return;
      s->stats.runs++;
      s->gen++;
      s->hist_base += s->history->len;
      g_ptr_array_set_size(s->history, 0);
      s->hist_bytes = 0;
      s->stats.history_size = 0;
      g_clear_pointer(&s->start, g_bytes_unref);
      g_free(s->start_body);
      s->start = sse_event(topic, body, len);
      s->start_body = g_strndup(body, len);
      s->start_len = len;
      s->run_open = TRUE;
      for (guint i = 0; i < s->clients->len; i++)
        client_pump(g_ptr_array_index(s->clients, i));
      return;
    }
    if (strcmp(ev, "end") == 0)
      s->run_open = FALSE;
  }
  history_push(s, sse_event(topic, body, len));
  for (guint i = 0; i < s->clients->len; i++)
    client_pump(g_ptr_array_index(s->clients, i));
}

void viz_server_inject(VizServer *s, const char *topic, const char *body, gsize len) {
  g_return_if_fail(s != NULL && topic != NULL && body != NULL);
  on_event(topic, body, len, s);
}

/* ---- HTTP handlers ---- */

static void set_common_headers(SoupServerMessage *msg) {
  SoupMessageHeaders *h = soup_server_message_get_response_headers(msg);
  soup_message_headers_replace(h, "Cache-Control", "no-cache");
  soup_message_headers_replace(h, "X-Content-Type-Options", "nosniff");
  soup_message_headers_replace(h, "Referrer-Policy", "no-referrer");
  soup_message_headers_replace(h, "X-Frame-Options", "DENY");
  /* The page loads nothing from elsewhere: the browser enforces it. */
  soup_message_headers_replace(h, "Content-Security-Policy",
                               "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                               "base-uri 'none'; frame-ancestors 'none'");
}

static void respond_text(SoupServerMessage *msg, guint status, const char *text) {
  set_common_headers(msg);
  soup_server_message_set_status(msg, status, NULL);
  soup_server_message_set_response(msg, "text/plain; charset=utf-8", SOUP_MEMORY_COPY, text,
                                   strlen(text));
}

static const char *content_type(const char *file) {
  static const struct {
    const char *ext, *type;
  } types[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".json", "application/json"},
      {".txt", "text/plain; charset=utf-8"},
      {".md", "text/plain; charset=utf-8"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(types); i++)
    if (g_str_has_suffix(file, types[i].ext))
      return types[i].type;
  return "application/octet-stream";
}

/* Only requests addressed to a loopback name (viz_host_allowed): the Host
 * header, and the host of an absolute-form target, both checked. More than
 * one Host header is a bad request (RFC 7230, 5.4): which one a proxy
 * or a cache would have used is unknown. */
static gboolean host_ok(VizServer *s, SoupServerMessage *msg) {
  SoupMessageHeaders *rh = soup_server_message_get_request_headers(msg);
  SoupMessageHeadersIter it;
  const char *name, *value;
  guint hosts = 0;
  soup_message_headers_iter_init(&it, rh);
  while (soup_message_headers_iter_next(&it, &name, &value))
    hosts += g_ascii_strcasecmp(name, "Host") == 0;
  const char *host = soup_message_headers_get_one(rh, "Host");
  if (hosts > 1 || (host != NULL && strchr(host, ',') != NULL)) {
    respond_text(msg, SOUP_STATUS_BAD_REQUEST, "bad request: more than one Host header\n");
    return FALSE;
  }
  const char *uri_host = g_uri_get_host(soup_server_message_get_uri(msg));
  if (viz_host_allowed(host, s->allow_remote) &&
      (uri_host == NULL || viz_host_allowed(uri_host, s->allow_remote)))
    return TRUE;
  respond_text(msg, SOUP_STATUS_FORBIDDEN,
               "forbidden host: this server answers only requests to localhost, 127.0.0.1 or "
               "[::1] (open the address dpgossip viz printed)\n");
  return FALSE;
}

static gboolean method_ok(SoupServerMessage *msg) {
  const char *m = soup_server_message_get_method(msg);
  if (m == SOUP_METHOD_GET || m == SOUP_METHOD_HEAD)
    return TRUE;
  soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Allow", "GET, HEAD");
  respond_text(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
  return FALSE;
}

static void handle_status(VizServer *s, SoupServerMessage *msg) {
  VizServerStats st = {0};
  viz_server_get_stats(s, &st);
  char *text = g_strdup_printf(
      "{\"received\":%" G_GUINT64_FORMAT ",\"malformed\":%" G_GUINT64_FORMAT
      ",\"runs\":%" G_GUINT64_FORMAT ",\"clients\":%u,\"clients_total\":%" G_GUINT64_FORMAT
      ",\"skipped\":%" G_GUINT64_FORMAT ",\"history_dropped\":%" G_GUINT64_FORMAT
      ",\"history_bytes\":%zu,\"run_open\":%s}\n",
      st.received, st.malformed, st.runs, st.clients, st.clients_total, st.skipped,
      st.history_dropped, st.history_size, s->run_open ? "true" : "false");
  set_common_headers(msg);
  soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response(msg, "application/json", SOUP_MEMORY_TAKE, text, strlen(text));
}

static void serve_file(VizServer *s, SoupServerMessage *msg) {
  /* The path as sent (still percent-encoded), not libsoup's decoded one. */
  const char *raw = g_uri_get_path(soup_server_message_get_uri(msg));
  if (strcmp(raw, "/status") == 0) {
    handle_status(s, msg);
    return;
  }
  GError *error = NULL;
  char *file = viz_resolve_path(s->web_dir, raw, &error);
  if (file == NULL) {
    gboolean forbid = g_error_matches(error, VIZ_ERROR, VIZ_ERROR_FORBIDDEN);
    respond_text(msg, forbid ? SOUP_STATUS_FORBIDDEN : SOUP_STATUS_NOT_FOUND,
                 forbid ? "forbidden\n" : "not found\n");
    g_error_free(error);
    return;
  }
  char *contents = NULL;
  gsize len = 0;
  if (!g_file_get_contents(file, &contents, &len, NULL)) {
    respond_text(msg, SOUP_STATUS_NOT_FOUND, "not found\n");
    g_free(file);
    return;
  }
  set_common_headers(msg);
  soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response(msg, content_type(file), SOUP_MEMORY_TAKE, contents, len);
  g_free(file);
}

static void client_free(VizClient *c) {
  g_free(c);
}

static void on_wrote(SoupServerMessage *msg, guint size, gpointer data) {
  (void)msg;
  VizClient *c = data;
  c->pending = size < c->pending ? c->pending - size : 0;
  client_pump(c);
}

static void on_finished(SoupServerMessage *msg, gpointer data) {
  VizClient *c = data;
  g_signal_handlers_disconnect_by_data(msg, c);
  g_ptr_array_remove_fast(c->srv->clients, c);
  c->srv->stats.clients = c->srv->clients->len;
  client_free(c);
}

static void serve_events(VizServer *s, SoupServerMessage *msg) {
  if (strcmp(g_uri_get_path(soup_server_message_get_uri(msg)), "/events") != 0) {
    respond_text(msg, SOUP_STATUS_NOT_FOUND, "not found\n");
    return;
  }
  set_common_headers(msg);
  SoupMessageHeaders *h = soup_server_message_get_response_headers(msg);
  soup_message_headers_replace(h, "Content-Type", "text/event-stream; charset=utf-8");
  soup_message_headers_replace(h, "Cache-Control", "no-store");
  soup_message_headers_set_encoding(h, SOUP_ENCODING_CHUNKED);
  soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
  soup_message_body_set_accumulate(soup_server_message_get_response_body(msg), FALSE);
  if (soup_server_message_get_method(msg) == SOUP_METHOD_HEAD) {
    soup_message_body_complete(soup_server_message_get_response_body(msg));
    return;
  }

  VizClient *c = g_new0(VizClient, 1);
  c->srv = s;
  c->msg = msg;
  c->in_handler = TRUE;
  /* A new browser starts with the current run's start, if any. */
  c->gen = s->start != NULL ? s->gen - 1 : s->gen;
  c->pos = s->hist_base;
  g_ptr_array_add(s->clients, c);
  s->stats.clients = s->clients->len;
  s->stats.clients_total++;
  g_signal_connect(msg, "wrote-body-data", G_CALLBACK(on_wrote), c);
  g_signal_connect(msg, "finished", G_CALLBACK(on_finished), c);
  static const char hello[] = "retry: 1000\n: dpgossip viz\n\n";
  GBytes *b = g_bytes_new_static(hello, sizeof hello - 1);
  client_append(c, b);
  g_bytes_unref(b);
  b = status_event(s, c);
  client_append(c, b);
  g_bytes_unref(b);
  client_pump(c);
  c->in_handler = FALSE;
}

/* The libsoup handler of every path: the checks every request gets, then
 * the route's answer. */
static void handle_checked(SoupServer *server, SoupServerMessage *msg, const char *path,
                           GHashTable *query, gpointer data) {
  (void)server;
  (void)query;
  (void)path;
  const VizRoute *route = data;
  if (host_ok(route->srv, msg) && method_ok(msg))
    route->serve(route->srv, msg);
}

static gboolean on_keepalive(gpointer data) {
  VizServer *s = data;
  for (guint i = 0; i < s->clients->len; i++) {
    VizClient *c = g_ptr_array_index(s->clients, i);
    if (c->pending >= s->client_buffer)
      continue;
    GBytes *b = status_event(s, c);
    client_append(c, b);
    g_bytes_unref(b);
    client_wake(c);
  }
  return G_SOURCE_CONTINUE;
}

/* ---- Life cycle ---- */

/* The cap on connections: the option, else the default, lowered to half
 * the descriptor limit so that the subscription and the files served keep
 * descriptors. */
static guint max_connections(const VizServerOptions *o) {
  if (o->max_connections > 0)
    return o->max_connections;
  struct rlimit rl;
  guint cap = DEFAULT_MAX_CONNECTIONS;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    cap = (guint)MIN((rlim_t)cap, MAX(rl.rlim_cur / 2, (rlim_t)8));
  return cap;
}

VizServer *viz_server_new(const VizServerOptions *options, GError **error) {
  VizServerOptions defaults = {0};
  const VizServerOptions *o = options != NULL ? options : &defaults;
  guint16 port = 0;
  char *host = viz_parse_listen(o->listen != NULL ? o->listen : VIZ_DEFAULT_LISTEN, &port, error);
  if (host == NULL)
    return NULL;
  GInetAddress *bind_addr = g_inet_address_new_from_string(host);
  gboolean loopback = g_inet_address_get_is_loopback(bind_addr);
  g_object_unref(bind_addr);
  if (!loopback && !o->allow_remote) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT,
                "listen address '%s' is not loopback: anyone who can reach it could watch your "
                "runs; listen on 127.0.0.1 or [::1], or force it with --allow-remote",
                o->listen);
    g_free(host);
    return NULL;
  }
  char *web_dir = NULL;
  if (o->web_dir != NULL) {
    char *real = realpath(o->web_dir, NULL);
    char *index = real != NULL ? g_build_filename(real, "index.html", NULL) : NULL;
    if (index != NULL && g_file_test(index, G_FILE_TEST_IS_REGULAR))
      web_dir = g_strdup(real);
    else
      g_set_error(error, VIZ_ERROR, VIZ_ERROR_NOT_FOUND, "web folder '%s' has no index.html",
                  o->web_dir);
    g_free(index);
    free(real);
  } else {
    web_dir = viz_web_dir_find(error);
  }
  if (web_dir == NULL) {
    g_free(host);
    return NULL;
  }
  VizServer *s = g_new0(VizServer, 1);
  s->host = host;
  s->web_dir = web_dir;
  s->allow_remote = o->allow_remote;
  s->subscribe = g_strdup(o->subscribe != NULL ? o->subscribe : VIZ_DEFAULT_SUBSCRIBE);
  s->client_buffer = o->client_buffer ? o->client_buffer : DEFAULT_CLIENT_BUFFER;
  s->history_cap = o->history_bytes ? o->history_bytes : DEFAULT_HISTORY;
  s->history = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  s->clients = g_ptr_array_new();
  s->context = g_main_context_ref_thread_default();

  s->soup = soup_server_new("server-header", "dpgossip-viz ", NULL);
  s->files = (VizRoute){s, serve_file};
  s->events = (VizRoute){s, serve_events};
  soup_server_add_handler(s->soup, NULL, handle_checked, &s->files, NULL);
  soup_server_add_handler(s->soup, "/events", handle_checked, &s->events, NULL);
  GError *local = NULL;
  s->listener = viz_listener_new(s->soup, host, port, max_connections(o),
                                 o->timeout_s ? o->timeout_s : DEFAULT_TIMEOUT_S, &local);
  if (s->listener == NULL) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_LISTEN,
                "cannot listen on %s:%u: %s (choose another address with --listen; port 0 "
                "picks a free one)",
                host, port, local->message);
    g_error_free(local);
    viz_server_free(s);
    return NULL;
  }
  s->port = viz_listener_port(s->listener);

  s->sub = viz_subscriber_new(s->subscribe, on_event, s, error);
  if (s->sub == NULL) {
    viz_server_free(s);
    return NULL;
  }
  s->keepalive = g_timeout_source_new(o->keepalive_ms ? o->keepalive_ms : DEFAULT_KEEPALIVE_MS);
  g_source_set_callback(s->keepalive, on_keepalive, s, NULL);
  g_source_attach(s->keepalive, s->context);
  return s;
}

void viz_server_free(VizServer *s) {
  if (s == NULL)
    return;
  if (s->keepalive != NULL) {
    g_source_destroy(s->keepalive);
    g_source_unref(s->keepalive);
  }
  viz_subscriber_free(s->sub);
  /* Browsers are let go first, so nothing calls back into a half-freed server. */
  for (guint i = 0; i < s->clients->len; i++) {
    VizClient *c = g_ptr_array_index(s->clients, i);
    g_signal_handlers_disconnect_by_data(c->msg, c);
    client_free(c);
  }
  g_ptr_array_set_size(s->clients, 0);
  viz_listener_free(s->listener);
  if (s->soup != NULL) {
    soup_server_disconnect(s->soup);
    g_object_unref(s->soup);
  }
  g_ptr_array_unref(s->clients);
  g_ptr_array_unref(s->history);
  g_clear_pointer(&s->start, g_bytes_unref);
  g_free(s->start_body);
  g_main_context_unref(s->context);
  g_free(s->subscribe);
  g_free(s->web_dir);
  g_free(s->host);
  g_free(s);
}

guint16 viz_server_port(const VizServer *s) {
  g_return_val_if_fail(s != NULL, 0);
  return s->port;
}

char *viz_server_url(const VizServer *s) {
  g_return_val_if_fail(s != NULL, NULL);
  gboolean v6 = strchr(s->host, ':') != NULL;
  return g_strdup_printf("http://%s%s%s:%u/", v6 ? "[" : "", s->host, v6 ? "]" : "", s->port);
}

const char *viz_server_web_dir(const VizServer *s) {
  g_return_val_if_fail(s != NULL, NULL);
  return s->web_dir;
}

void viz_server_get_stats(const VizServer *s, VizServerStats *stats) {
  g_return_if_fail(s != NULL && stats != NULL);
  *stats = s->stats;
  stats->clients = s->clients->len;
  stats->history_size = s->hist_bytes;
  if (s->listener != NULL)
    viz_listener_stats(s->listener, &stats->connections, &stats->refused,
                       &stats->accept_failures);
  if (s->sub != NULL)
    stats->malformed += viz_subscriber_malformed(s->sub);
}
