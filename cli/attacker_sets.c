/*
 * cli/attacker_sets.c: --attackers of `account` and `figure`: spec/'s
 * attacker-set grammar (one parser for the command line and scenario
 * files), its errors raised as usage errors naming the option.
 */
#include <stdio.h>

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

/* "3, 7 and 9" of the first nodes of @ids (at most 10 named), by their
 * labels in @g. */
static char *id_list(const TopoGraph *g, const GArray *ids) {
  GString *s = g_string_new(NULL);
  guint shown = MIN(ids->len, 10);
  for (guint i = 0; i < shown; i++) {
    char *name = topo_graph_node_name(g, g_array_index(ids, guint, i));
    g_string_append_printf(s, "%s%s", i == 0 ? "" : i + 1 == ids->len ? " and " : ", ", name);
    g_free(name);
  }
  if (shown < ids->len)
    g_string_append_printf(s, " and %u more", ids->len - shown);
  return g_string_free(s, FALSE);
}

void cli_attacker_sets_warn_isolated(const CliAttackerSets *s, const TopoGraph *g,
                                     const char *cmd) {
  guint n = topo_graph_n_nodes(g);
  gboolean *attacker = g_new0(gboolean, MAX(n, 1));
  for (guint i = 0; s != NULL && i < cli_attacker_sets_n(s); i++) {
    const guint *m = cli_attacker_sets_members(s, i);
    for (guint j = 0; j < cli_attacker_sets_size(s, i); j++)
      if (m[j] < n)
        attacker[m[j]] = TRUE;
  }
  /* Isolated attackers are warned about after the run, by the one rule
   * for attackers that received nothing (proto_account_job_warnings),
   * whatever the cause: no edge, churn, the schedule, losses. */
  GArray *vic = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint u = 0; u < n; u++)
    if (topo_graph_degree(g, u) == 0 && !attacker[u])
      g_array_append_val(vic, u);
  if (vic->len > 0) {
    char *ids = id_list(g, vic);
    fprintf(stderr,
            "dpgossip %s: warning: node%s %s %s no edge: %s nothing, so %s guarantee is "
            "trivial (mu = 0) and %s no part in the gossip (--lcc keeps the largest "
            "component)\n",
            cmd, vic->len == 1 ? "" : "s", ids, vic->len == 1 ? "has" : "have",
            vic->len == 1 ? "it shares" : "they share", vic->len == 1 ? "its" : "their",
            vic->len == 1 ? "it takes" : "they take");
    g_free(ids);
  }
  g_array_unref(vic);
  g_free(attacker);
}

gboolean cli_attacker_sets_check(CliAttackerSets *s, guint n, const char *graph, GError **error) {
  if (!spec_attackers_check(s, n, graph, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, error)) {
    g_prefix_error(error, "--attackers: ");
    return FALSE;
  }
  spec_attackers_expand(s, n);
  return TRUE;
}

void cli_account_warn_job(const ProtoAccountJob *j, const char *cmd) {
  GPtrArray *w = proto_account_job_warnings(j);
  for (guint i = 0; i < w->len; i++)
    fprintf(stderr, "dpgossip %s: warning: %s\n", cmd, (const char *)g_ptr_array_index(w, i));
  g_ptr_array_unref(w);
}
