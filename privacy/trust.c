/*
 * privacy/trust.c: the trust models' table: each model's name, what its
 * attackers observe and know, and the words the front ends print. Every
 * reader of a trust model goes through a row (privacy/trust.h).
 */
#include "privacy/internal.h"
#include "spec/spec.h"

static const PrivTrustModel models[] = {
    {PRIV_TRUST_LDP, "ldp", PRIV_SEES_SENT, FALSE,
     "every message is public, the attackers know no noise",
     "trust ldp: the attackers see every message sent (dropped ones included) and know nothing "
     "else",
     "trust ldp: the attackers see every message and know nothing else"},
    {PRIV_TRUST_PNDP, "pndp", PRIV_SEES_RECEIVED, TRUE,
     "the attackers see the messages they receive and know their own noise",
     "trust pndp: the attackers see every message delivered to them (late ones included) and "
     "know their own gradients and every noise variable they own (their noise; edge secrets on "
     "their edges)",
     "trust pndp: the attackers see the messages they receive and know their own gradients and "
     "noise"},
    {PRIV_TRUST_SECLDP, "secldp", PRIV_SEES_SENT, TRUE,
     "every message is public, the attackers know their noise and their edges' secrets",
     "trust secldp: the attackers see every message sent and know their own gradients and every "
     "noise variable they own (their noise; edge secrets on their edges)",
     "trust secldp: the attackers see every message and know their own gradients, noise and edge "
     "secrets"},
};

const PrivTrustModel *priv_trust_models(guint *n) {
  *n = G_N_ELEMENTS(models);
  return models;
}

const PrivTrustModel *priv_trust_model(PrivTrust trust) {
  for (guint i = 0; i < G_N_ELEMENTS(models); i++)
    if (models[i].trust == trust)
      return &models[i];
  return NULL;
}

char *priv_trust_list(const char *sep, const char *last) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < G_N_ELEMENTS(models); i++) {
    if (i > 0)
      g_string_append(s, i + 1 == G_N_ELEMENTS(models) ? last : sep);
    g_string_append(s, models[i].name);
  }
  return g_string_free(s, FALSE);
}

gboolean priv_trust_parse(const char *name, PrivTrust *out, GError **error) {
  const char *names[G_N_ELEMENTS(models)];
  for (guint i = 0; i < G_N_ELEMENTS(models); i++)
    names[i] = models[i].name;
  guint i;
  if (!spec_choose(name, "trust model", names, G_N_ELEMENTS(names), &i, PRIV_ERROR,
                   PRIV_ERROR_INVALID_ARGUMENT, error))
    return FALSE;
  *out = models[i].trust;
  return TRUE;
}

const char *priv_trust_name(PrivTrust trust) {
  const PrivTrustModel *m = priv_trust_model(trust);
  return m != NULL ? m->name : "unknown";
}
