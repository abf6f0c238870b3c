/* protocols/error.c: the PROTO_ERROR domain, and which errors of the
 * modules below are the user's input. */
#include "protocols/protocols.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-protocols-error-quark, proto_error)
/* clang-format on */

gboolean proto_error_is_usage(const GError *e) {
  if (e == NULL)
    return FALSE;
  if (e->domain == G_OPTION_ERROR)
    return TRUE;
  if (e->domain == PROTO_ERROR)
    return e->code == PROTO_ERROR_PARSE || e->code == PROTO_ERROR_UNKNOWN;
  if (e->domain == LEARN_ERROR)
    return e->code == LEARN_ERROR_PARSE;
  if (e->domain == SIM_ERROR)
    return e->code == SIM_ERROR_PARSE;
  if (e->domain == TOPO_ERROR)
    return e->code == TOPO_ERROR_PARSE;
  return FALSE;
}
