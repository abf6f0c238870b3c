/*
 * cli/attacker_sets.c: the --attackers grammar of `account` and `figure`:
 * ',' separates attacker sets, '+' joins the members of a collusion set.
 * "0,5" accounts node 0 and node 5 each on its own, "0+5" their collusion.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/account_common.h"

#define GRAMMAR                                                                                  \
  "node ids separated by ',' (each accounted alone) or joined by '+' (one collusion set): "    \
  "0,5 or 0+5"

void cli_attacker_sets_init(CliAttackerSets *s) {
  s->ids = g_array_new(FALSE, FALSE, sizeof(guint));
  s->off = g_array_new(FALSE, FALSE, sizeof(guint));
  guint zero = 0;
  g_array_append_val(s->off, zero);
}

void cli_attacker_sets_clear(CliAttackerSets *s) {
  if (s->ids) g_array_unref(s->ids);
  if (s->off) g_array_unref(s->off);
  s->ids = s->off = NULL;
}

guint cli_attacker_sets_n(const CliAttackerSets *s) { return s->off->len - 1; }

const guint *cli_attacker_sets_members(const CliAttackerSets *s, guint i) {
  return &g_array_index(s->ids, guint, g_array_index(s->off, guint, i));
}

guint cli_attacker_sets_size(const CliAttackerSets *s, guint i) {
  return g_array_index(s->off, guint, i + 1) - g_array_index(s->off, guint, i);
}

char *cli_attacker_sets_label(const CliAttackerSets *s, guint i) {
  GString *b = g_string_new(NULL);
  for (guint j = 0; j < cli_attacker_sets_size(s, i); j++)
    g_string_append_printf(b, "%s%u", j ? "+" : "", cli_attacker_sets_members(s, i)[j]);
  return g_string_free(b, FALSE);
}

static int cmp_guint(gconstpointer a, gconstpointer b) {
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* Appends one collusion set "a+b+..." (sorted); on error nothing is kept. */
static gboolean parse_one(CliAttackerSets *s, const char *item, GError **error) {
  guint start = s->ids->len;
  if (*item == '\0') { /* "1," or ",1": g_strsplit would give no member at all */
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--attackers: '' is not a node id (expected " GRAMMAR ")");
    return FALSE;
  }
  char **members = g_strsplit(item, "+", -1);
  gboolean ok = TRUE;
  for (guint j = 0; members[j] && ok; j++) {
    char *m = g_strstrip(members[j]);
    guint id;
    if (!cli_parse_uint(m, &id)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--attackers: '%s' is not a node id (expected " GRAMMAR ")", m);
      ok = FALSE;
      break;
    }
    for (guint k = start; k < s->ids->len && ok; k++)
      if (g_array_index(s->ids, guint, k) == id) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--attackers: node %u appears twice in the collusion set '%s'", id, item);
        ok = FALSE;
      }
    g_array_append_val(s->ids, id);
  }
  g_strfreev(members);
  guint len = s->ids->len - start;
  guint *set = &g_array_index(s->ids, guint, start);
  if (ok) qsort(set, len, sizeof(guint), cmp_guint);
  /* The same set twice would print (or weigh) the same accounting twice. */
  for (guint i = 0; ok && i < cli_attacker_sets_n(s); i++)
    if (cli_attacker_sets_size(s, i) == len &&
        memcmp(cli_attacker_sets_members(s, i), set, len * sizeof(guint)) == 0) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--attackers: the set '%s' is given twice", item);
      ok = FALSE;
    }
  if (!ok) {
    g_array_set_size(s->ids, start);
    return FALSE;
  }
  guint end = s->ids->len;
  g_array_append_val(s->off, end);
  return TRUE;
}

gboolean cli_attacker_sets_parse(CliAttackerSets *s, const char *spec, GError **error) {
  char *copy = g_strstrip(g_strdup(spec ? spec : ""));
  gboolean ok = TRUE;
  if (*copy == '\0') {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--attackers: give at least one node id (" GRAMMAR ")");
    ok = FALSE;
  }
  char **items = ok ? g_strsplit(copy, ",", -1) : NULL;
  for (guint i = 0; ok && items[i]; i++) ok = parse_one(s, g_strstrip(items[i]), error);
  g_strfreev(items);
  g_free(copy);
  return ok;
}

gboolean cli_attacker_sets_check(const CliAttackerSets *s, guint n, const char *graph,
                                 GError **error) {
  for (guint i = 0; i < s->ids->len; i++) {
    guint id = g_array_index(s->ids, guint, i);
    if (id >= n) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--attackers: node %u is out of range for graph '%s' (%u nodes, 0 to %u)", id,
                  graph, n, n - 1);
      return FALSE;
    }
  }
  for (guint i = 0; i < cli_attacker_sets_n(s); i++)
    if (cli_attacker_sets_size(s, i) >= n) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--attackers: a collusion set holds every node of graph '%s': no victim left",
                  graph);
      return FALSE;
    }
  return TRUE;
}
