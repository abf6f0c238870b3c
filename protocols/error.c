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
  /* A file the user named that cannot be read (SIM_ERROR_IO, TOPO_ERROR_IO,
   * PROTO_ERROR_IO) or does not parse (_FILE, _FORMAT) is the run's, as
   * every other data file: only a spec's own text is the user's typing. */
  if (e->domain == SIM_ERROR)
    return e->code == SIM_ERROR_PARSE;
  if (e->domain == TOPO_ERROR)
    return e->code == TOPO_ERROR_PARSE || e->code == TOPO_ERROR_RANGE;
  return FALSE;
}

gboolean proto_error_is_unreadable(const GError *e) {
  return e != NULL &&
         (g_error_matches(e, SIM_ERROR, SIM_ERROR_IO) ||
          g_error_matches(e, TOPO_ERROR, TOPO_ERROR_IO) ||
          g_error_matches(e, PROTO_ERROR, PROTO_ERROR_IO) || e->domain == G_FILE_ERROR);
}

int proto_error_status(const GError *e, ProtoFailure what) {
  if (e == NULL)
    return 1;
  if (e->domain == G_OPTION_ERROR)
    return 2;
  switch (what) {
  case PROTO_FAILED_INPUT:
    return proto_error_is_usage(e) ? 2 : 1;
  case PROTO_FAILED_PROTOCOL:
    /* The registry checks a spec's values against the parameter table:
     * out of range there is the user's typing, as a spec that does not
     * parse. What reads a file or runs is the run's. */
    if (e->domain != PROTO_ERROR)
      return 1;
    return e->code == PROTO_ERROR_IO || e->code == PROTO_ERROR_FORMAT ||
                   e->code == PROTO_ERROR_STALLED || e->code == PROTO_ERROR_FAILED ||
                   e->code == PROTO_ERROR_CANCELLED
               ? 1
               : 2;
  case PROTO_FAILED_FILE:
  case PROTO_FAILED_RUN:
    return 1;
  }
  return 1;
}

int proto_refusal_status(const GError *e, ProtoAccountRefusal refusal) {
  switch (refusal) {
  case PROTO_REFUSED_RULE:
  case PROTO_REFUSED_VALUE:
    return 2;
  case PROTO_REFUSED_PROTOCOL:
    return proto_error_status(e, PROTO_FAILED_PROTOCOL);
  case PROTO_REFUSED_SCHEDULE:
    return proto_error_status(e, PROTO_FAILED_INPUT);
  case PROTO_REFUSED_MEMORY:
  case PROTO_REFUSED_FILE:
    return 1;
  }
  return 1;
}
