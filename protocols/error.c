/* protocols/error.c: the PROTO_ERROR domain. */
#include "protocols/protocols.h"

G_DEFINE_QUARK(dpgossip-protocols-error-quark, proto_error)
