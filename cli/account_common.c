/*
 * cli/account_common.c: the accounting setup shared by `dpgossip account`
 * and `dpgossip figure` (see account_common.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "cli/account_common.h"

void cli_account_setup_clear(CliAccountSetup *s) {
  if (!s) return;
  g_clear_pointer(&s->protocol_label, g_free);
  g_clear_pointer(&s->C_local, g_free);
  g_clear_pointer(&s->attackers, g_free);
  s->n_attackers = 0;
}

gboolean cli_parse_uint(const char *s, guint *out) {
  if (!s || !g_ascii_isdigit(*s)) return FALSE;
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull(s, &end, 10);
  if (errno || *end != '\0' || v > G_MAXUINT - 1) return FALSE;
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

gboolean cli_account_load_c(CliAccountSetup *s, const char *c_path, GError **error) {
  if (s->protocol != PRIV_PROTOCOL_MFDSGD) return TRUE;
  if (!c_path) {
    s->C_local = priv_mf_baseline(PRIV_BASELINE_ANTIPGD, s->T, 0, error);
    return s->C_local != NULL;
  }
  guint rows, cols;
  s->C_local = priv_matrix_read_csv(c_path, &rows, &cols, error);
  if (!s->C_local) return FALSE;
  if (rows != s->T || cols != s->T) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "%s: C_local is %u x %u but --rounds asks for T = %u steps (T x T needed)", c_path,
                rows, cols, s->T);
    return FALSE;
  }
  return TRUE;
}

gboolean cli_account_check_numbers(double sigma, double clip, double alpha, double delta,
                                   GError **error) {
  if (!(sigma >= 0) || !isfinite(sigma) || !(clip > 0) || !isfinite(clip) || !(alpha > 1) ||
      !isfinite(alpha) || !(delta > 0 && delta < 1)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "need --sigma >= 0, --clip > 0, --alpha > 1 and 0 < --delta < 1 "
                "(got %g, %g, %g, %g)",
                sigma, clip, alpha, delta);
    return FALSE;
  }
  return TRUE;
}

PrivBlocks *cli_account_blocks_structured(const CliAccountSetup *s, const TopoGossip *w,
                                          GError **error) {
  const TopoGossip *ws[] = {w};
  PrivStructuredProblem p = {.protocol = s->protocol,
                             .K = s->K,
                             .C_local = s->C_local,
                             .T = s->T,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = s->trust,
                             .attackers = s->attackers,
                             .n_attackers = s->n_attackers,
                             .sigma = s->sigma,
                             .b = s->b,
                             .engine = PRIV_ENGINE_AUTO};
  return priv_structured_blocks(&p, error);
}
