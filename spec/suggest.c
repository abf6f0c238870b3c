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
