/*
 * viz/viz_internal.h: the pieces of viz/ that talk to each other. Internal.
 */
#ifndef DPG_VIZ_INTERNAL_H
#define DPG_VIZ_INTERNAL_H

#include "viz/viz.h"

/* Called for every [topic, body] received (body not NUL-terminated). */
typedef void (*VizEventFunc)(const char *topic, const char *body, gsize len, gpointer data);

typedef struct VizSubscriber VizSubscriber;

/* Connects a SUB socket to @endpoint (subscribed to everything) and reads it
 * from the thread-default main context. Errors: VIZ_ERROR_INVALID_ARGUMENT for
 * an endpoint ZeroMQ rejects, VIZ_ERROR_SUBSCRIBE otherwise. */
VizSubscriber *viz_subscriber_new(const char *endpoint, VizEventFunc func, gpointer data,
                                  GError **error);
void viz_subscriber_free(VizSubscriber *s);
/* Messages that were not two frames with a short topic. */
guint64 viz_subscriber_malformed(const VizSubscriber *s);

/* ---- Events from the stream (event.c): untrusted bytes from whoever can
 * publish to the subscribed endpoint, so checked before anything else. ---- */

/* Whether [@topic, @body] can be relayed as a Server-Sent Event: a short
 * lowercase topic and a one-line UTF-8 JSON object. O(@len). */
gboolean viz_event_body_ok(const char *topic, const char *body, gsize len);

/* The "event" member of a run body ("start", "end", ...) copied into @buf,
 * or NULL when the body is not a JSON object or nests deeper than
 * VIZ_EVENT_MAX_DEPTH (json-glib parses recursively: a body nested 300,000
 * deep would overflow the stack). O(@len). */
#define VIZ_EVENT_MAX_DEPTH 64
const char *viz_run_event_kind(const char *body, gsize len, char *buf, gsize buf_len);

/* ---- The listening socket (listener.c) ---- */

typedef struct _SoupServer SoupServer;
typedef struct VizListener VizListener;

/* Listens on @host (an IP literal) : @port (0: a free one) in the
 * thread-default main context and hands each accepted connection to @soup
 * with a socket timeout of @timeout_s seconds; beyond @max_connections open
 * ones, a connection is answered 503 and closed; a failed accept (no
 * descriptor left) pauses accepting briefly instead of stopping it.
 * Errors: VIZ_ERROR_INVALID_ARGUMENT for a @host that is not an IP
 * address; G_IO_ERROR from bind or listen. */
VizListener *viz_listener_new(SoupServer *soup, const char *host, guint16 port,
                              guint max_connections, guint timeout_s, GError **error);
guint16 viz_listener_port(const VizListener *l);
/* Connections open now, refused over the cap, and failed accepts. */
void viz_listener_stats(const VizListener *l, guint *connections, guint64 *refused,
                        guint64 *accept_failures);
/* Stops listening; connections libsoup still holds are left to it. */
void viz_listener_free(VizListener *l);

#endif /* DPG_VIZ_INTERNAL_H */
