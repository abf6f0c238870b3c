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

#endif /* DPG_VIZ_INTERNAL_H */
