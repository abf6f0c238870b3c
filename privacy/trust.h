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

/* What an attacker set observes on the network. */
typedef enum {
  PRIV_SEES_SENT,     /* every message sent (dropped ones included) */
  PRIV_SEES_RECEIVED, /* the messages delivered to a member (late ones included) */
} PrivSees;

/*
 * One trust model, described once (privacy/trust.c's table): the observer
 * (privacy/observer.c), the audit's view (audit/view.c), the stream, the
 * account's assumption lines, the run summary and the help read this row;
 * adding a model is adding a row and its PrivTrust value.
 */
typedef struct {
  PrivTrust trust;
  const char *name;         /* as typed: --trust NAME, trust = NAME */
  PrivSees sees;            /* the messages the attackers observe */
  gboolean knows_own_noise; /* the noise variables a member owns (its noise, edge secrets) */
  const char *meaning;      /* one line: the run summary's reading */
  const char *observer;     /* the assumption line of the observer path (a simulated run) */
  const char *structured;   /* the assumption line of the structured path (a synchronous run) */
} PrivTrustModel;

/* The trust models, in the order of the help lists; @n (out) their count. */
const PrivTrustModel *priv_trust_models(guint *n);
/* The row of @trust, or NULL for a value no row has. O(models). */
const PrivTrustModel *priv_trust_model(PrivTrust trust);
/* The names as a help text lists them: "ldp, pndp or secldp" with @last
 * " or ", "ldp|pndp|secldp" with both separators "|" (g_free). */
char *priv_trust_list(const char *sep, const char *last);

/* Parses a name of the table. Errors: PRIV_ERROR_INVALID_ARGUMENT. */
gboolean priv_trust_parse(const char *name, PrivTrust *out, GError **error);
/* The name priv_trust_parse accepts for @trust (static string), "unknown"
 * for a value no row has. */
const char *priv_trust_name(PrivTrust trust);

G_END_DECLS

#endif /* DPG_PRIVACY_TRUST_H */
