/*
 * privacy/trust.h: trust models: what an attacker set knows.
 */
#ifndef DPG_PRIVACY_TRUST_H
#define DPG_PRIVACY_TRUST_H

#include <glib.h>

#include "privacy/base.h"

G_BEGIN_DECLS

/* Trust models: what an attacker set S (one node or a collusion set) knows. */
typedef enum {
  PRIV_TRUST_LDP,    /* every message on the network; nothing else */
  PRIV_TRUST_PNDP,   /* the messages delivered to S; S's gradients and noise */
  PRIV_TRUST_SECLDP, /* every message; S's gradients, noise, and edge secrets */
} PrivTrust;

/* Parses "ldp", "pndp" or "secldp". Errors: PRIV_ERROR_INVALID_ARGUMENT. */
gboolean priv_trust_parse(const char *name, PrivTrust *out, GError **error);
/* The name priv_trust_parse accepts for @trust (static string). */
const char *priv_trust_name(PrivTrust trust);

G_END_DECLS

#endif /* DPG_PRIVACY_TRUST_H */
