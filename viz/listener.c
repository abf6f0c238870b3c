/*
 * viz/listener.c: the HTTP server's listening socket, accepted here rather
 * than by libsoup so that no client can starve the server of descriptors.
 *
 * libsoup's own listener stops accepting for good after one failed accept
 * (EMFILE when descriptors run out), and keeps a connection that never
 * finishes its request open forever: about a thousand half-open
 * connections took every descriptor under `ulimit -n 1024` and the server
 * never answered again, even after they closed. Here:
 *   - each connection gets a socket timeout: a request (or the next one on a
 *     kept-alive connection) that makes no progress for that long, and a
 *     browser that stops reading its event stream, is dropped;
 *   - connections beyond a cap are answered 503 and closed at once;
 *   - a failed accept (descriptors exhausted) pauses accepting for a moment
 *     and then resumes, so the server answers again once descriptors free up.
 */
#include <libsoup/soup.h>

#include "viz/viz_internal.h"

/* Pause after a failed accept before trying again (descriptor pressure
 * lasts until some connection closes). */
#define RETRY_MS 100
/* Connections accepted per wake-up, so a flood cannot hold the main loop. */
#define ACCEPT_BATCH 64

struct VizListener {
  SoupServer *soup; /* borrowed */
  GMainContext *context;
  GSocket *socket;
  GSource *watch; /* waiting for connections; NULL while paused */
  GSource *retry; /* the pause after a failed accept */
  GHashTable *live; /* GSocketConnection * handed to libsoup and not yet finalized */
  guint max_connections, timeout_s;
  guint64 refused, accept_failures;
};

static gboolean on_incoming(GSocket *socket, GIOCondition condition, gpointer data);

static void watch_start(VizListener *l) {
  l->watch = g_socket_create_source(l->socket, G_IO_IN, NULL);
  g_source_set_callback(l->watch, G_SOURCE_FUNC(on_incoming), l, NULL);
  g_source_attach(l->watch, l->context);
}

static gboolean on_retry(gpointer data) {
  VizListener *l = data;
  g_clear_pointer(&l->retry, g_source_unref);
  watch_start(l);
  return G_SOURCE_REMOVE;
}

static void on_connection_gone(gpointer data, GObject *gone) {
  VizListener *l = data;
  g_hash_table_remove(l->live, gone);
}

/* Over the cap: a short 503 (best effort, never waiting) and close. */
static void refuse(GSocket *c) {
  static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
                             "Content-Type: text/plain; charset=utf-8\r\n"
                             "Content-Length: 37\r\nConnection: close\r\nRetry-After: 1\r\n\r\n"
                             "too many connections; try again soon\n";
  g_socket_set_blocking(c, FALSE);
  g_socket_send(c, busy, sizeof busy - 1, NULL, NULL);
  g_socket_close(c, NULL);
}

static void hand_to_soup(VizListener *l, GSocket *c) {
  g_socket_set_timeout(c, l->timeout_s);
  GSocketConnection *conn = g_socket_connection_factory_create_connection(c);
  GSocketAddress *local = g_socket_get_local_address(c, NULL);
  GSocketAddress *remote = g_socket_get_remote_address(c, NULL);
  if (soup_server_accept_iostream(l->soup, G_IO_STREAM(conn), local, remote, NULL)) {
    g_hash_table_add(l->live, conn);
    g_object_weak_ref(G_OBJECT(conn), on_connection_gone, l);
  } else {
    g_io_stream_close(G_IO_STREAM(conn), NULL, NULL);
  }
  g_clear_object(&local);
  g_clear_object(&remote);
  g_object_unref(conn); /* libsoup holds it while the connection lives */
}

static gboolean on_incoming(GSocket *socket, GIOCondition condition, gpointer data) {
  (void)socket;
  (void)condition;
  VizListener *l = data;
  for (guint i = 0; i < ACCEPT_BATCH; i++) {
    GError *error = NULL;
    GSocket *c = g_socket_accept(l->socket, NULL, &error);
    if (c == NULL) {
      gboolean idle = g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
      g_error_free(error);
      if (idle)
        return G_SOURCE_CONTINUE;
      /* Descriptors exhausted (or an aborted connection): the pending
       * connection stays queued; polling now would spin on it. */
      l->accept_failures++;
      g_clear_pointer(&l->watch, g_source_unref);
      l->retry = g_timeout_source_new(RETRY_MS);
      g_source_set_callback(l->retry, on_retry, l, NULL);
      g_source_attach(l->retry, l->context);
      return G_SOURCE_REMOVE;
    }
    if (g_hash_table_size(l->live) >= l->max_connections) {
      l->refused++;
      refuse(c);
    } else {
      hand_to_soup(l, c);
    }
    g_object_unref(c);
  }
  return G_SOURCE_CONTINUE;
}

VizListener *viz_listener_new(SoupServer *soup, const char *host, guint16 port,
                              guint max_connections, guint timeout_s, GError **error) {
  g_return_val_if_fail(soup != NULL && host != NULL && max_connections > 0 && timeout_s > 0, NULL);
  GInetAddress *addr = g_inet_address_new_from_string(host);
  if (addr == NULL) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT, "'%s' is not an IP address", host);
    return NULL;
  }
  GSocketAddress *sa = g_inet_socket_address_new(addr, port);
  GSocket *sock = g_socket_new(g_inet_address_get_family(addr), G_SOCKET_TYPE_STREAM,
                               G_SOCKET_PROTOCOL_TCP, error);
  g_object_unref(addr);
  gboolean ok = sock != NULL;
  if (ok) {
    g_socket_set_blocking(sock, FALSE);
    g_socket_set_listen_backlog(sock, 128);
    ok = g_socket_bind(sock, sa, TRUE, error) && g_socket_listen(sock, error);
  }
  g_object_unref(sa);
  if (!ok) {
    g_clear_object(&sock);
    return NULL;
  }
  VizListener *l = g_new0(VizListener, 1);
  l->soup = soup;
  l->context = g_main_context_ref_thread_default();
  l->socket = sock;
  l->live = g_hash_table_new(g_direct_hash, g_direct_equal);
  l->max_connections = max_connections;
  l->timeout_s = timeout_s;
  watch_start(l);
  return l;
}

guint16 viz_listener_port(const VizListener *l) {
  g_return_val_if_fail(l != NULL, 0);
  GSocketAddress *sa = g_socket_get_local_address(l->socket, NULL);
  guint16 port = sa != NULL ? g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(sa)) : 0;
  g_clear_object(&sa);
  return port;
}

void viz_listener_stats(const VizListener *l, guint *connections, guint64 *refused,
                        guint64 *accept_failures) {
  g_return_if_fail(l != NULL);
  *connections = g_hash_table_size(l->live);
  *refused = l->refused;
  *accept_failures = l->accept_failures;
}

void viz_listener_free(VizListener *l) {
  if (l == NULL)
    return;
  if (l->watch != NULL) {
    g_source_destroy(l->watch);
    g_source_unref(l->watch);
  }
  if (l->retry != NULL) {
    g_source_destroy(l->retry);
    g_source_unref(l->retry);
  }
  /* Connections libsoup still holds outlive this listener. */
  GHashTableIter it;
  gpointer conn;
  g_hash_table_iter_init(&it, l->live);
  while (g_hash_table_iter_next(&it, &conn, NULL))
    g_object_weak_unref(conn, on_connection_gone, l);
  g_hash_table_destroy(l->live);
  g_socket_close(l->socket, NULL);
  g_object_unref(l->socket);
  g_main_context_unref(l->context);
  g_free(l);
}
