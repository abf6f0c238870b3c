/*
 * cli/attacker_sets.c: --attackers of `account` and `figure`: spec/'s
 * attacker-set grammar (one parser for the command line and scenario
 * files), its errors raised as usage errors naming the option.
 */
#include "cli/account_common.h"

void cli_attacker_sets_init(CliAttackerSets *s) {
  spec_attackers_init(s);
}

void cli_attacker_sets_clear(CliAttackerSets *s) {
  spec_attackers_clear(s);
}

guint cli_attacker_sets_n(const CliAttackerSets *s) {
  return spec_attackers_n_sets(s, 0);
}

const guint *cli_attacker_sets_members(const CliAttackerSets *s, guint i) {
  g_return_val_if_fail(!s->all, NULL); /* "all" is made explicit by the check */
  guint size;
  return spec_attackers_members(s, i, NULL, &size);
}

guint cli_attacker_sets_size(const CliAttackerSets *s, guint i) {
  guint scratch, size;
  spec_attackers_members(s, i, &scratch, &size);
  return size;
}

char *cli_attacker_sets_label(const CliAttackerSets *s, guint i) {
  return spec_attackers_label(s, i);
}

gboolean cli_attacker_sets_parse(CliAttackerSets *s, const char *spec, GError **error) {
  if (spec_attackers_parse(s, spec, 0, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, error))
    return TRUE;
  g_prefix_error(error, "--attackers: ");
  return FALSE;
}

gboolean cli_attacker_sets_check(CliAttackerSets *s, guint n, const char *graph, GError **error) {
  if (!spec_attackers_check(s, n, graph, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, error)) {
    g_prefix_error(error, "--attackers: ");
    return FALSE;
  }
  spec_attackers_expand(s, n);
  return TRUE;
}
