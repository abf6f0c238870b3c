/*
 * spec/suggest.c: "did you mean" for a mistyped name: the edit distance and
 * the nearest of a list of valid names, shared by the command's options, the
 * scenario keys and every enumerated value the libraries parse (trust
 * models, generators, protocols, gossip kinds, modes, formats).
 */
#include <string.h>

#include "spec/spec.h"

guint spec_edit_distance(const char *a, const char *b) {
  g_return_val_if_fail(a != NULL && b != NULL, G_MAXUINT);
  gsize la = strlen(a), lb = strlen(b);
  guint *row = g_new(guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint)j;
  for (gsize i = 1; i <= la; i++) {
    guint diag = row[0];
    row[0] = (guint)i;
    for (gsize j = 1; j <= lb; j++) {
      guint up = row[j];
      guint cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = MIN(MIN(row[j] + 1, row[j - 1] + 1), diag + cost);
      diag = up;
    }
  }
  guint d = row[lb];
  g_free(row);
  return d;
}

gboolean spec_typo_distance(guint d, const char *word) {
  return d > 0 && (d <= 2 || d <= strlen(word) / 3);
}

const char *spec_closest(const char *given, const char *const *choices, gssize n) {
  if (given == NULL || choices == NULL)
    return NULL;
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (gssize i = 0; n < 0 ? choices[i] != NULL : i < n; i++) {
    if (choices[i] == NULL)
      continue;
    guint d = spec_edit_distance(given, choices[i]);
    if (d < best_d) {
      best_d = d;
      best = choices[i];
    }
  }
  return best != NULL && spec_typo_distance(best_d, given) ? best : NULL;
}

char *spec_did_you_mean(const char *given, const char *const *choices, gssize n) {
  const char *best = spec_closest(given, choices, n);
  return best != NULL ? g_strdup_printf("; did you mean '%s'?", best) : g_strdup("");
}

gboolean spec_choose(const char *name, const char *what, const char *const *names, guint n,
                     guint *index, GQuark domain, gint code, GError **error) {
  g_return_val_if_fail(what != NULL && names != NULL && n > 0 && index != NULL, FALSE);
  for (guint i = 0; name != NULL && i < n; i++)
    if (g_str_equal(name, names[i])) {
      *index = i;
      return TRUE;
    }
  GString *list = g_string_new(names[0]);
  for (guint i = 1; i < n; i++)
    g_string_append_printf(list, "%s%s", i + 1 < n ? ", " : " or ", names[i]);
  char *shown = spec_escape(name, -1), *hint = spec_did_you_mean(name, names, n);
  g_set_error(error, domain, code, "unknown %s '%s' (expected %s)%s", what, shown, list->str, hint);
  g_free(hint);
  g_free(shown);
  g_string_free(list, TRUE);
  return FALSE;
}
