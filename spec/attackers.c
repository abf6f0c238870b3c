/*
 * spec/attackers.c: the attacker-set grammar shared by the command line and
 * scenario files (see spec.h). One parser, so that "0+5" means the same
 * collusion set wherever a user writes it and every place names the same
 * grammar in its errors.
 */
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"

void spec_attackers_init(SpecAttackers *a) {
  a->all = FALSE;
  a->ids = g_array_new(FALSE, FALSE, sizeof(guint));
  a->off = g_array_new(FALSE, FALSE, sizeof(guint));
  a->tokens = g_ptr_array_new_with_free_func(g_free);
  guint zero = 0;
  g_array_append_val(a->off, zero);
}

void spec_attackers_clear(SpecAttackers *a) {
  if (a->ids)
    g_array_unref(a->ids);
  if (a->off)
    g_array_unref(a->off);
  if (a->tokens)
    g_ptr_array_unref(a->tokens);
  a->ids = a->off = NULL;
  a->tokens = NULL;
  a->all = FALSE;
}

static guint n_listed(const SpecAttackers *a) {
  return a->off->len - 1;
}

static guint listed_size(const SpecAttackers *a, guint i) {
  return g_array_index(a->off, guint, i + 1) - g_array_index(a->off, guint, i);
}

static const guint *listed_members(const SpecAttackers *a, guint i) {
  return &g_array_index(a->ids, guint, g_array_index(a->off, guint, i));
}

guint spec_attackers_n_sets(const SpecAttackers *a, guint n_nodes) {
  return a->all ? n_nodes : n_listed(a);
}

const guint *spec_attackers_members(const SpecAttackers *a, guint i, guint *scratch, guint *size) {
  if (a->all) {
    *scratch = i;
    *size = 1;
    return scratch;
  }
  *size = listed_size(a, i);
  return listed_members(a, i);
}

char *spec_attackers_label(const SpecAttackers *a, guint i) {
  guint scratch, size;
  const guint *m = spec_attackers_members(a, i, &scratch, &size);
  GString *b = g_string_new(NULL);
  for (guint j = 0; j < size; j++)
    g_string_append_printf(b, "%s%u", j ? "+" : "", m[j]);
  return g_string_free(b, FALSE);
}

/* A member as written: its id when it is one (decimal digits below
 * G_MAXUINT), else G_MAXUINT until spec_attackers_resolve; the text. */
typedef struct {
  guint id;
  char *token; /* NULL: given as an id (spec_attackers_expand, callers' arrays) */
} Member;

static int cmp_member(const void *x, const void *y) {
  const Member *a = x, *b = y;
  if (a->id != b->id)
    return (a->id > b->id) - (a->id < b->id);
  return strcmp(a->token ? a->token : "", b->token ? b->token : "");
}

static const char *member_token(const SpecAttackers *a, guint k) {
  return k < a->tokens->len ? g_ptr_array_index(a->tokens, k) : NULL;
}

/* Two members name the same node: equal ids, or (one not an id yet) equal
 * text. */
static gboolean same_member(const SpecAttackers *a, guint k, guint l) {
  guint x = g_array_index(a->ids, guint, k), y = g_array_index(a->ids, guint, l);
  if (x != G_MAXUINT && y != G_MAXUINT)
    return x == y;
  const char *s = member_token(a, k), *t = member_token(a, l);
  return s != NULL && t != NULL && strcmp(s, t) == 0;
}

/* Sorts ids[start, start + len) (their texts along). */
static void sort_set(SpecAttackers *a, guint start, guint len) {
  g_ptr_array_set_size(a->tokens, MAX(a->tokens->len, a->ids->len));
  Member *m = g_new(Member, MAX(len, 1));
  for (guint k = 0; k < len; k++)
    m[k] = (Member){g_array_index(a->ids, guint, start + k), a->tokens->pdata[start + k]};
  qsort(m, len, sizeof(Member), cmp_member);
  for (guint k = 0; k < len; k++) {
    g_array_index(a->ids, guint, start + k) = m[k].id;
    a->tokens->pdata[start + k] = m[k].token;
  }
  g_free(m);
}

/* A node id: decimal digits only (no sign, no space: "-1" must not wrap to
 * a huge id), below G_MAXUINT (which callers use as "no node"). */
static gboolean parse_id(const char *s, guint *out) {
  if (*s == '\0')
    return FALSE;
  guint64 v = 0;
  for (const char *p = s; *p; p++) {
    if (!g_ascii_isdigit(*p))
      return FALSE;
    v = v * 10 + (guint64)(*p - '0');
    if (v >= G_MAXUINT)
      return FALSE;
  }
  *out = (guint)v;
  return TRUE;
}

/* A member that may be a node's label (resolved against the graph by
 * spec_attackers_resolve): non-empty, no blank or control byte ("0 5" is
 * a typo, not a name). */
static gboolean is_token(const char *s) {
  if (*s == '\0')
    return FALSE;
  for (const char *p = s; *p; p++)
    if (g_ascii_isspace(*p) || g_ascii_iscntrl(*p))
      return FALSE;
  return TRUE;
}

/* The grammar as the messages name it (with the older ';' when accepted). */
static const char *grammar(guint flags) {
  return (flags & SPEC_ATTACKERS_SEMICOLON) ? SPEC_ATTACKERS_GRAMMAR
             "; ';' joins like '+' (the older form 0;8)"
                                            : SPEC_ATTACKERS_GRAMMAR;
}

/* Whether listed set @i holds the members ids[start, start + len). */
static gboolean same_set(const SpecAttackers *a, guint i, guint start, guint len) {
  if (listed_size(a, i) != len)
    return FALSE;
  guint first = g_array_index(a->off, guint, i);
  for (guint k = 0; k < len; k++)
    if (!same_member(a, first + k, start + k))
      return FALSE;
  return TRUE;
}

/* Appends one collusion set @item ("a+b+...", sorted); on error nothing of
 * it is kept. */
static gboolean parse_set(SpecAttackers *a, const char *item, guint flags, GQuark domain, gint code,
                          GError **error) {
  guint start = a->ids->len;
  g_ptr_array_set_size(a->tokens, start);
  char **members = g_strsplit_set(item, (flags & SPEC_ATTACKERS_SEMICOLON) ? "+;" : "+", -1);
  gboolean ok = TRUE;
  for (guint j = 0; members[j] && ok; j++) {
    char *m = g_strstrip(members[j]);
    guint id = G_MAXUINT;
    if (g_str_equal(m, "all") || !is_token(m)) {
      char *shown = spec_escape(m, -1);
      if (g_str_equal(m, "all"))
        g_set_error(error, domain, code,
                    "'all' stands alone: it already takes every node in turn (expected %s)",
                    grammar(flags));
      else
        g_set_error(error, domain, code, "'%s' is not a node id (expected %s)", shown,
                    grammar(flags));
      g_free(shown);
      ok = FALSE;
      break;
    }
    if (!parse_id(m, &id))
      id = G_MAXUINT; /* a label, or nothing: spec_attackers_resolve says */
    g_array_append_val(a->ids, id);
    g_ptr_array_add(a->tokens, g_strdup(m));
    for (guint k = start; k + 1 < a->ids->len && ok; k++)
      if (same_member(a, k, a->ids->len - 1)) {
        char *shown = spec_escape(item, -1), *node = spec_escape(m, -1);
        g_set_error(error, domain, code, "node %s appears twice in the collusion set '%s'", node,
                    shown);
        g_free(node);
        g_free(shown);
        ok = FALSE;
      }
  }
  g_strfreev(members);
  if (!ok) {
    g_array_set_size(a->ids, start);
    g_ptr_array_set_size(a->tokens, start);
    return FALSE;
  }
  guint len = a->ids->len - start; /* >= 1: g_strsplit_set gives a member at least */
  sort_set(a, start, len);
  /* The same set twice would print (or weigh) the same accounting twice. */
  for (guint i = 0; ok && i < n_listed(a); i++)
    if (same_set(a, i, start, len)) {
      char *shown = spec_escape(item, -1);
      g_set_error(error, domain, code, "the set '%s' is given twice", shown);
      g_free(shown);
      ok = FALSE;
    }
  if (!ok) {
    g_array_set_size(a->ids, start);
    g_ptr_array_set_size(a->tokens, start);
    return FALSE;
  }
  guint end = a->ids->len;
  g_array_append_val(a->off, end);
  return TRUE;
}

/* Without labels: every member must be an id. */
static gboolean all_ids(const SpecAttackers *a, guint flags, GQuark domain, gint code,
                        GError **error) {
  for (guint k = 0; !a->all && k < a->ids->len; k++) {
    const char *t = member_token(a, k);
    if (t == NULL || g_array_index(a->ids, guint, k) != G_MAXUINT)
      continue;
    char *shown = spec_escape(t, -1);
    g_set_error(error, domain, code, "'%s' is not a node id (expected %s)", shown, grammar(flags));
    g_free(shown);
    return FALSE;
  }
  return TRUE;
}

gboolean spec_attackers_resolve(SpecAttackers *a, SpecNodeFind find, gconstpointer data,
                                const char *graph, guint flags, GQuark domain, gint code,
                                GError **error) {
  if (find == NULL)
    return all_ids(a, flags, domain, code, error);
  if (a->all)
    return TRUE;
  for (guint k = 0; k < a->ids->len; k++) {
    const char *t = member_token(a, k);
    if (t == NULL)
      continue; /* given as an id */
    if (!find(data, t, &g_array_index(a->ids, guint, k))) {
      char *shown = spec_escape(t, -1), *g = graph ? spec_escape(graph, -1) : NULL;
      char *which = g ? g_strdup_printf("graph '%s'", g) : g_strdup("the graph");
      g_set_error(error, domain, code,
                  "no node of %s is labelled '%s' (its nodes go by their labels, not by 0..n-1)",
                  which, shown);
      g_free(which);
      g_free(g);
      g_free(shown);
      return FALSE;
    }
  }
  /* Distinct labels name distinct nodes: only the order changes. */
  for (guint i = 0; i < n_listed(a); i++)
    sort_set(a, g_array_index(a->off, guint, i), listed_size(a, i));
  return TRUE;
}

gboolean spec_attackers_parse(SpecAttackers *a, const char *text, guint flags, GQuark domain,
                              gint code, GError **error) {
  char *copy = g_strstrip(g_strdup(text ? text : ""));
  gsize len = strlen(copy);
  if ((flags & SPEC_ATTACKERS_SEMICOLON) && len > 0 && copy[len - 1] == ';') {
    copy[len - 1] = '\0';
    g_strstrip(copy);
  }
  gboolean ok = TRUE;
  if (*copy == '\0') {
    g_set_error(error, domain, code, "give at least one node id (%s)", grammar(flags));
    ok = FALSE;
  } else if (g_str_equal(copy, "all") || a->all) {
    /* "all" already holds every single node: next to other sets it would
     * repeat some, and a collusion set beside it belongs in its own list. */
    if (a->all || n_listed(a) > 0) {
      g_set_error(error, domain, code,
                  "'all' stands alone: it already takes every node in turn (expected %s)",
                  grammar(flags));
      ok = FALSE;
    } else {
      a->all = TRUE;
    }
  } else {
    char **items = g_strsplit(copy, ",", -1);
    for (guint i = 0; ok && items[i]; i++) {
      char *item = g_strstrip(items[i]);
      if (*item == '\0') { /* "1," or ",1": no member at all */
        g_set_error(error, domain, code, "'' is not a node id (expected %s)", grammar(flags));
        ok = FALSE;
      } else {
        ok = parse_set(a, item, flags, domain, code, error);
      }
    }
    g_strfreev(items);
  }
  g_free(copy);
  return ok;
}

gboolean spec_attackers_check(const SpecAttackers *a, guint n_nodes, const char *graph,
                              GQuark domain, gint code, GError **error) {
  char *shown = graph ? spec_escape(graph, -1) : NULL;
  char *which = shown ? g_strdup_printf("graph '%s'", shown) : g_strdup("the graph");
  /* A label never looked up (a caller without a labelled graph). */
  gboolean ok = all_ids(a, 0, domain, code, error);
  if (ok && a->all && n_nodes < 2) {
    g_set_error(error, domain, code, "%s has %u node%s: with 'all' no victim is left", which,
                n_nodes, n_nodes == 1 ? "" : "s");
    ok = FALSE;
  }
  for (guint i = 0; ok && !a->all && i < a->ids->len; i++) {
    guint id = g_array_index(a->ids, guint, i);
    if (id >= n_nodes) {
      if (n_nodes == 0)
        g_set_error(error, domain, code, "node %u is out of range: %s has no node", id, which);
      else
        g_set_error(error, domain, code, "node %u is out of range: %s has %u nodes (0 to %u)", id,
                    which, n_nodes, n_nodes - 1);
      ok = FALSE;
    }
  }
  for (guint i = 0; ok && !a->all && i < n_listed(a); i++)
    if (listed_size(a, i) >= n_nodes) {
      char *label = spec_attackers_label(a, i);
      g_set_error(error, domain, code,
                  "the collusion set '%s' holds every node of %s: no victim left", label, which);
      g_free(label);
      ok = FALSE;
    }
  g_free(which);
  g_free(shown);
  return ok;
}

void spec_attackers_expand(SpecAttackers *a, guint n_nodes) {
  if (!a->all)
    return;
  a->all = FALSE;
  g_array_set_size(a->ids, 0);
  g_array_set_size(a->off, 1);
  g_ptr_array_set_size(a->tokens, 0);
  for (guint i = 0; i < n_nodes; i++) {
    guint end = i + 1;
    g_array_append_val(a->ids, i);
    g_ptr_array_add(a->tokens, NULL);
    g_array_append_val(a->off, end);
  }
}
