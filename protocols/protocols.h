/* protocols/protocols.h: decentralized learning protocols over the engine. */
#ifndef DPG_PROTOCOLS_H
#define DPG_PROTOCOLS_H

#include "privacy/privacy.h"
#include "learning/learning.h"

G_BEGIN_DECLS

#define PROTO_ERROR (proto_error_quark())
GQuark proto_error_quark(void);

G_END_DECLS

#endif /* DPG_PROTOCOLS_H */
