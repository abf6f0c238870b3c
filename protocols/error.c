/* protocols/error.c: the PROTO_ERROR domain. */
#include "protocols/protocols.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-protocols-error-quark, proto_error)
/* clang-format on */
