/* sim/message_internal.h: the message layout, read directly by the engine. */
#ifndef DPG_SIM_MESSAGE_INTERNAL_H
#define DPG_SIM_MESSAGE_INTERNAL_H

#include "sim/message.h"

struct SimMessage {
  guint ref_count;
  guint32 from;
  guint32 round;
  guint32 tag;
  guint64 bytes;
  gpointer payload;
  GDestroyNotify destroy;
};

#endif /* DPG_SIM_MESSAGE_INTERNAL_H */
