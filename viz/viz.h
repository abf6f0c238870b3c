/*
 * viz/viz.h: the live visualizer's public interface.
 *
 * A VizServer subscribes to a dpgossip event stream (ZeroMQ SUB: it knows
 * only the wire format of docs/events.md, nothing of the simulator) and
 * serves a web page (viz/web/) that draws it, pushing the events to every
 * browser with Server-Sent Events (GET /events).
 *
 * What it guarantees:
 *   - it binds only to loopback unless allow_remote is set, and answers only
 *     requests whose Host is a loopback name (localhost, 127.0.0.0/8,
 *     [::1]; with allow_remote, any IP literal), so a web page cannot read
 *     the stream by DNS rebinding (a name of its own resolving to
 *     127.0.0.1); others get 403;
 *   - it serves only regular
 *     files under its web folder (no "..", no encoded dot segments or
 *     slashes, no hidden files, no symlink leading outside);
 *   - memory per browser is bounded: a client whose connection is slow is
 *     sent no message events (the skipped count is reported to it) while its
 *     queue is above client_buffer bytes; the run's other events come from
 *     one shared, bounded history that a late or slow client reads at its
 *     own pace;
 *   - publishers may come and go (ZeroMQ reconnects; a new run start resets
 *     the history) and so may browsers (a new one gets the current run's
 *     start and history first).
 *
 * Not thread-safe: a server lives in the GMainContext that was the
 * thread-default when it was created, and must be used from that thread.
 */
#ifndef DPG_VIZ_H
#define DPG_VIZ_H

#include <glib.h>

G_BEGIN_DECLS

#define VIZ_ERROR (viz_error_quark())
GQuark viz_error_quark(void);

typedef enum {
  VIZ_ERROR_INVALID_ARGUMENT, /* a bad option value (listen address, endpoint) */
  VIZ_ERROR_LISTEN,           /* the HTTP address could not be bound */
  VIZ_ERROR_SUBSCRIBE,        /* the ZeroMQ subscription could not be set up */
  VIZ_ERROR_NOT_FOUND,        /* no such file under the web folder */
  VIZ_ERROR_FORBIDDEN,        /* a path that tries to leave the web folder */
} VizError;

/** Default addresses. */
#define VIZ_DEFAULT_LISTEN "127.0.0.1:8080"
#define VIZ_DEFAULT_SUBSCRIBE "tcp://127.0.0.1:5556"

typedef struct {
  const char *listen;    /* "HOST:PORT" (IPv6: "[::1]:PORT"); NULL: VIZ_DEFAULT_LISTEN;
                          * port 0 picks a free port (viz_server_port tells which) */
  const char *subscribe; /* ZeroMQ endpoint to connect to; NULL: VIZ_DEFAULT_SUBSCRIBE */
  const char *web_dir;   /* folder with index.html; NULL: viz_web_dir_find() */
  gsize client_buffer;   /* bytes queued per browser before message events are
                          * skipped for it; 0: 1 MiB */
  gsize history_bytes;   /* cap on the shared history of the current run
                          * (every event but messages); 0: 64 MiB */
  guint keepalive_ms;    /* status event / keep-alive period; 0: 5000 */
  gboolean allow_remote; /* listen on a non-loopback address (anyone who can reach it
                          * can watch the runs); FALSE: such a listen is refused */
  guint max_connections; /* open HTTP connections at once, more are answered 503;
                          * 0: 256, or half the descriptor limit when lower */
  guint timeout_s;       /* a connection making no progress this long (a request not
                          * sent, a browser not reading) is closed; 0: 30 */
} VizServerOptions;

typedef struct {
  guint64 received;        /* stream events received from ZeroMQ */
  guint64 malformed;       /* received messages that were not [topic, JSON object] */
  guint64 runs;            /* run starts seen (repeats for late subscribers excluded) */
  guint clients;           /* browsers connected now */
  guint64 clients_total;   /* browsers that ever connected */
  guint64 skipped;         /* events skipped for slow browsers, all clients */
  gsize max_client_queue;  /* largest unsent queue any browser had, in bytes
                             * (at most client_buffer + one event) */
  guint64 history_dropped; /* history events evicted by history_bytes */
  gsize history_size;      /* bytes of history held now */
  guint connections;       /* HTTP connections open now (pages, assets, streams) */
  guint64 refused;         /* connections answered 503 over max_connections */
  guint64 accept_failures; /* accepts that failed (descriptors exhausted): each
                            * paused accepting briefly */
} VizServerStats;

typedef struct VizServer VizServer;

/**
 * viz_server_new: starts serving and subscribing in the thread-default main
 * context (run a GMainLoop on it).
 * @options: (nullable) NULL for every default.
 * Errors: VIZ_ERROR_INVALID_ARGUMENT for a listen address that is not
 *   HOST:PORT with an IP literal or "localhost", or not loopback without
 *   @options->allow_remote, or a ZeroMQ endpoint it
 *   cannot connect to; VIZ_ERROR_LISTEN when the address is taken;
 *   VIZ_ERROR_NOT_FOUND when no web folder with index.html is found.
 * Returns: (transfer full) the server (viz_server_free), or NULL.
 */
VizServer *viz_server_new(const VizServerOptions *options, GError **error);

/** viz_server_free: disconnects every browser, closes the subscription,
 * frees @server (NULL ignored). */
void viz_server_free(VizServer *server);

/** viz_server_port: the HTTP port actually bound. */
guint16 viz_server_port(const VizServer *server);

/** viz_server_url: "http://HOST:PORT/" of the page (g_free). */
char *viz_server_url(const VizServer *server);

/** viz_server_web_dir: the folder served. (transfer none) */
const char *viz_server_web_dir(const VizServer *server);

/** viz_server_get_stats: copies the counters into @stats. */
void viz_server_get_stats(const VizServer *server, VizServerStats *stats);

/**
 * viz_server_inject: hands the server one event as if received from
 * ZeroMQ (for tests and for embedding in a process that has the events).
 * Malformed events are counted and dropped. O(clients).
 */
void viz_server_inject(VizServer *server, const char *topic, const char *body, gsize len);

/**
 * viz_web_dir_find: the web folder: $DPG_VIZ_WEB if set; else
 * <executable>/../share/dpgossip/web (an installed dpgossip); else the
 * install prefix's and the source tree's viz/web as configured at build
 * time. The first that holds an index.html wins.
 * Errors: VIZ_ERROR_NOT_FOUND listing the folders tried.
 * Returns: (transfer full) the folder's canonical path.
 */
char *viz_web_dir_find(GError **error);

/**
 * viz_resolve_path: maps a request path (as sent, percent-encoded) to a
 * file under @web_dir. "/" and folders map to their index.html.
 * @web_dir: a canonical folder path (as viz_web_dir_find gives).
 * Errors: VIZ_ERROR_FORBIDDEN for a path that is not absolute, has a bad
 *   escape, an encoded '/', '\\' or NUL, an empty, ".", ".." or hidden
 *   (".name") segment, or resolves (through symlinks) outside @web_dir;
 *   VIZ_ERROR_NOT_FOUND when no regular file is there.
 * Returns: (transfer full) the file's path, or NULL.
 * Complexity: O(path length) plus one realpath().
 */
char *viz_resolve_path(const char *web_dir, const char *path, GError **error);

/**
 * viz_parse_listen: splits "HOST:PORT" ("[v6]:PORT", "localhost:PORT") into
 * an IP literal and a port (0..65535).
 * Errors: VIZ_ERROR_INVALID_ARGUMENT saying what is wrong.
 * Returns: (transfer full) the host as an IP literal, or NULL.
 */
char *viz_parse_listen(const char *listen, guint16 *port, GError **error);

/**
 * viz_host_allowed: whether a request's Host (header value, or a URI's
 * host) names this machine's loopback: "localhost", an IPv4 literal in
 * 127.0.0.0/8 or [::1], each with or without ":PORT". With @any_ip, any IP
 * literal too (a server told to listen beyond loopback). DNS names other
 * than localhost are never allowed: DNS rebinding points such a name at
 * 127.0.0.1 to let a web page read the server.
 * Complexity: O(length).
 */
gboolean viz_host_allowed(const char *host, gboolean any_ip);

G_END_DECLS

#endif /* DPG_VIZ_H */
