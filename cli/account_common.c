/*
 * cli/account_common.c: what `dpgossip figure` parses of an accounting
 * (see account_common.h); the accounting itself is the protocols' request.
 */
#include <errno.h>
#include <string.h>

#include "cli/account_common.h"

void cli_account_setup_clear(CliAccountSetup *s) {
  if (!s)
    return;
  g_clear_pointer(&s->protocol_label, g_free);
}

gboolean cli_parse_uint(const char *s, guint *out) {
  if (!s || !g_ascii_isdigit(*s))
    return FALSE;
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull(s, &end, 10);
  if (errno || *end != '\0' || v > G_MAXUINT - 1)
    return FALSE;
  *out = (guint)v;
  return TRUE;
}

gboolean cli_account_parse_protocol(const char *spec, CliAccountSetup *s, char **c_path,
                                    GError **error) {
  const char *colon = strchr(spec, ':');
  char *name = colon ? g_strndup(spec, (gsize)(colon - spec)) : g_strdup(spec);
  const char *params = colon ? colon + 1 : NULL;
  gboolean ok = FALSE;
  s->K = 1;
  if (g_str_equal(name, "dsgd") || g_str_equal(name, "antipgd")) {
    if (params) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--protocol: %s takes no parameter (got '%s')", name, params);
      goto out;
    }
    s->protocol = g_str_equal(name, "dsgd") ? PRIV_PROTOCOL_DSGD : PRIV_PROTOCOL_MFDSGD;
    s->protocol_label = g_strdup(name);
    ok = TRUE;
  } else if (g_str_equal(name, "muffliato")) {
    s->protocol = PRIV_PROTOCOL_MUFFLIATO;
    s->K = 1;
    if (params && (!g_str_has_prefix(params, "K=") || !cli_parse_uint(params + 2, &s->K) ||
                   s->K == 0 || s->K > 100000)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--protocol: muffliato takes K=<gossip rounds per step, 1 to 100000>, got "
                  "'%s'",
                  params);
      goto out;
    }
    s->protocol_label = g_strdup_printf("muffliato:K=%u", s->K);
    ok = TRUE;
  } else if (g_str_equal(name, "mfdsgd")) {
    if (!params || !g_str_has_prefix(params, "C=") || params[2] == '\0') {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--protocol: mfdsgd needs its correlation matrix: mfdsgd:C=FILE (a T x T CSV "
                  "such as 'dpgossip mafalda --out' writes)");
      goto out;
    }
    s->protocol = PRIV_PROTOCOL_MFDSGD;
    *c_path = g_strdup(params + 2);
    s->protocol_label = g_strdup(spec);
    ok = TRUE;
  } else {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--protocol: unknown protocol '%s' (valid: dsgd, muffliato:K=k, antipgd, "
                "mfdsgd:C=FILE)",
                name);
  }
out:
  g_free(name);
  return ok;
}

gboolean cli_account_check_numbers(double sigma, double clip, double alpha, double delta,
                                   GError **error) {
  return proto_account_check_numbers(sigma, clip, alpha, delta, error);
}
