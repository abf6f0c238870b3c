/*
 * sim/message.c: reference-counted messages. The count is a plain integer:
 * the engine runs on one thread, and atomics would tax every delivery.
 */
#include "sim/linvec_internal.h"
#include "sim/message_internal.h"

SimMessage *sim_message_new(guint32 from, guint32 round, guint32 tag, gpointer payload,
                            guint64 bytes, GDestroyNotify destroy) {
  SimMessage *m = g_new(SimMessage, 1);
  m->ref_count = 1;
  m->from = from;
  m->round = round;
  m->tag = tag;
  m->bytes = bytes;
  m->payload = payload;
  m->destroy = destroy;
  m->provenance = NULL;
  return m;
}

SimMessage *sim_message_new_linvec(guint32 from, guint32 round, guint32 tag, SimLinvec *linvec,
                                   guint64 bytes) {
  SimMessage *m = sim_message_new(from, round, tag, linvec, bytes, (GDestroyNotify)sim_linvec_free);
  if (linvec != NULL)
    lin_forget_if_known(linvec, from, round); /* sim_lin_space_keep_nodes */
  m->provenance = linvec;
  return m;
}

SimMessage *sim_message_ref(SimMessage *m) {
  g_return_val_if_fail(m != NULL && m->ref_count > 0, NULL);
  m->ref_count++;
  return m;
}

void sim_message_unref(SimMessage *m) {
  if (!m)
    return;
  g_return_if_fail(m->ref_count > 0);
  if (--m->ref_count > 0)
    return;
  if (m->destroy)
    m->destroy(m->payload);
  g_free(m);
}

guint32 sim_message_from(const SimMessage *m) {
  g_return_val_if_fail(m != NULL, SIM_NODE_NONE);
  return m->from;
}

guint32 sim_message_round(const SimMessage *m) {
  g_return_val_if_fail(m != NULL, 0);
  return m->round;
}

guint32 sim_message_tag(const SimMessage *m) {
  g_return_val_if_fail(m != NULL, 0);
  return m->tag;
}

guint64 sim_message_bytes(const SimMessage *m) {
  g_return_val_if_fail(m != NULL, 0);
  return m->bytes;
}

gpointer sim_message_payload(const SimMessage *m) {
  g_return_val_if_fail(m != NULL, NULL);
  return m->payload;
}

const SimLinvec *sim_message_provenance(const SimMessage *m) {
  g_return_val_if_fail(m != NULL, NULL);
  return m->provenance;
}

guint sim_message_ref_count(const SimMessage *m) {
  g_return_val_if_fail(m != NULL, 0);
  return m->ref_count;
}
