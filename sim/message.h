/*
 * sim/message.h: reference-counted messages.
 *
 * Reference counted, so a broadcast to k neighbours shares one payload: the
 * payload's destroy function runs once, when the last reference goes. Not
 * thread-safe (the engine is single-threaded).
 *
 * A message has two contents. Its payload is opaque: whatever its sender
 * put there, for its receivers. Its provenance is typed: the linvec whose
 * numbers and exact linear provenance it carries (sim/linvec.h), set only
 * by sim_message_new_linvec, which is how protocols send models. The
 * privacy observer reads the provenance and nothing else, so no reader has
 * to guess what a payload is: a message without provenance (a control
 * message, a benchmark's) is simply not a model.
 */
#ifndef DPG_SIM_MESSAGE_H
#define DPG_SIM_MESSAGE_H

#include "sim/base.h"
#include "sim/linvec.h"

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
/**
 * sim_message_new_linvec: a message from node @from carrying @linvec, its
 * provenance (sim_message_provenance), with one reference.
 * @linvec: (transfer full) freed with the message; never modified after
 *   (receivers and observers read it later).
 * @bytes: as sim_message_new.
 * In a space that keeps a set of nodes (sim_lin_space_keep_nodes), a
 * message of a node it does not keep carries an empty provenance.
 * The linvec is also the message's payload (sim_message_payload): code
 * written before the provenance slot existed (plugin ABI 1) reads it there.
 * Returns: (transfer full) the message. O(1).
 */
SimMessage *sim_message_new_linvec(guint32 from, guint32 round, guint32 tag, SimLinvec *linvec,
                                   guint64 bytes);
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
/**
 * sim_message_provenance: (transfer none) (nullable) the linvec of a message
 * made by sim_message_new_linvec, owned by the message; NULL for any other.
 * O(1).
 */
const SimLinvec *sim_message_provenance(const SimMessage *msg);
/** sim_message_ref_count: current number of references (for tests, checks). */
guint sim_message_ref_count(const SimMessage *msg);

G_END_DECLS

#endif /* DPG_SIM_MESSAGE_H */
