/*
 * sim/message.h: reference-counted messages.
 *
 * Reference counted, so a broadcast to k neighbours shares one payload: the
 * payload's destroy function runs once, when the last reference goes. Not
 * thread-safe (the engine is single-threaded).
 */
#ifndef DPG_SIM_MESSAGE_H
#define DPG_SIM_MESSAGE_H

#include "sim/base.h"

G_BEGIN_DECLS

typedef struct SimMessage SimMessage;

/**
 * sim_message_new: a message from node @from with one reference.
 * @payload: (transfer full) (nullable) freed by @destroy (nullable) with the message.
 * @bytes: the size the message would take on the wire (for statistics).
 * Returns: (transfer full) the message; release with sim_message_unref.
 */
SimMessage *sim_message_new(guint32 from, guint32 round, guint32 tag, gpointer payload,
                            guint64 bytes, GDestroyNotify destroy);
/** sim_message_ref: adds a reference; returns @msg. */
SimMessage *sim_message_ref(SimMessage *msg);
/** sim_message_unref: drops a reference; the last one frees payload and message. */
void sim_message_unref(SimMessage *msg);
guint32 sim_message_from(const SimMessage *msg);
guint32 sim_message_round(const SimMessage *msg);
guint32 sim_message_tag(const SimMessage *msg);
guint64 sim_message_bytes(const SimMessage *msg);
/** sim_message_payload: (transfer none) the payload, owned by the message. */
gpointer sim_message_payload(const SimMessage *msg);
/** sim_message_ref_count: current number of references (for tests, checks). */
guint sim_message_ref_count(const SimMessage *msg);

G_END_DECLS

#endif /* DPG_SIM_MESSAGE_H */
