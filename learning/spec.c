/*
 * learning/spec.c: "name[:head][,key=value]..." specs of datasets and models.
 */
#include <math.h>
#include <string.h>

#include "learning/internal.h"

void learn_spec_free(LearnSpec *spec) {
  if (spec == NULL)
    return;
  g_free(spec->name);
  g_free(spec->head);
  g_ptr_array_unref(spec->keys);
  g_ptr_array_unref(spec->values);
  g_free(spec);
}

const char *learn_spec_get(const LearnSpec *spec, const char *key) {
  for (guint i = 0; i < spec->keys->len; i++)
    if (strcmp(g_ptr_array_index(spec->keys, i), key) == 0)
      return g_ptr_array_index(spec->values, i);
  return NULL;
}

LearnSpec *learn_spec_parse(const char *text, const char *what, gboolean want_head,
                            GError **error) {
  if (text == NULL || *text == '\0') {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE, "empty %s spec", what);
    return NULL;
  }
  LearnSpec *spec = g_new0(LearnSpec, 1);
  spec->keys = g_ptr_array_new_with_free_func(g_free);
  spec->values = g_ptr_array_new_with_free_func(g_free);
  char **items = NULL;
  const char *colon = strchr(text, ':');
  spec->name = colon != NULL ? g_strndup(text, (gsize)(colon - text)) : g_strdup(text);
  g_strstrip(spec->name);
  if (spec->name[0] == '\0') {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE, "%s spec '%s' has no name before ':'", what,
                text);
    goto fail;
  }
  if (colon == NULL) {
    if (want_head) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                  "%s spec '%s' needs '%s:' followed by a path or kind", what, text, spec->name);
      goto fail;
    }
    return spec;
  }
  items = g_strsplit(colon + 1, ",", -1);
  char **it = items;
  if (want_head) {
    if (*it == NULL || g_strstrip(*it)[0] == '\0') {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                  "%s spec '%s': nothing after '%s:' (expected a path or kind)", what, text,
                  spec->name);
      goto fail;
    }
    spec->head = g_strdup(*it);
    it++;
  }
  for (; *it != NULL; it++) {
    char *item = g_strstrip(*it);
    char *eq = strchr(item, '=');
    if (eq == NULL || eq == item) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                  "%s '%s': option '%s' is not of the form key=value", what, spec->name, item);
      goto fail;
    }
    char *key = g_strstrip(g_strndup(item, (gsize)(eq - item)));
    if (learn_spec_get(spec, key) != NULL) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE, "%s '%s': option '%s' given twice", what,
                  spec->name, key);
      g_free(key);
      goto fail;
    }
    g_ptr_array_add(spec->keys, key);
    g_ptr_array_add(spec->values, g_strstrip(g_strdup(eq + 1)));
  }
  g_strfreev(items);
  return spec;
fail:
  g_strfreev(items);
  learn_spec_free(spec);
  return NULL;
}

gboolean learn_spec_check(const LearnSpec *spec, const char *what, const char *const *valid,
                          GError **error) {
  for (guint i = 0; i < spec->keys->len; i++) {
    const char *key = g_ptr_array_index(spec->keys, i);
    gboolean ok = FALSE;
    for (const char *const *v = valid; v != NULL && *v != NULL; v++)
      ok = ok || strcmp(*v, key) == 0;
    if (!ok) {
      char *list =
          valid != NULL && valid[0] != NULL ? g_strjoinv(", ", (char **)valid) : g_strdup("none");
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                  "%s '%s' has no option '%s' (valid options: %s)", what, spec->name, key, list);
      g_free(list);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean learn_spec_uint(const LearnSpec *spec, const char *key, guint64 dflt, guint64 min,
                         guint64 max, guint64 *out, GError **error) {
  const char *s = learn_spec_get(spec, key);
  if (s == NULL) {
    *out = dflt;
    return TRUE;
  }
  guint64 v;
  if (!g_ascii_string_to_unsigned(s, 10, 0, G_MAXUINT64, &v, NULL)) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                "%s: option %s='%s' is not a non-negative integer", spec->name, key, s);
    return FALSE;
  }
  if (v < min || v > max) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "%s: option %s=%" G_GUINT64_FORMAT " is out of range [%" G_GUINT64_FORMAT
                ", %" G_GUINT64_FORMAT "]",
                spec->name, key, v, min, max);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean learn_spec_double(const LearnSpec *spec, const char *key, double dflt, double min,
                           double max, double *out, GError **error) {
  const char *s = learn_spec_get(spec, key);
  if (s == NULL) {
    *out = dflt;
    return TRUE;
  }
  char *end = NULL;
  double v = g_ascii_strtod(s, &end);
  if (*s == '\0' || end == NULL || *end != '\0' || !isfinite(v)) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE, "%s: option %s='%s' is not a number",
                spec->name, key, s);
    return FALSE;
  }
  if (v < min || v > max) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "%s: option %s=%g is out of range [%g, %g]", spec->name, key, v, min, max);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean learn_spec_bool(const LearnSpec *spec, const char *key, gboolean dflt, gboolean *out,
                         GError **error) {
  const char *s = learn_spec_get(spec, key);
  if (s == NULL) {
    *out = dflt;
    return TRUE;
  }
  if (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0 || strcmp(s, "1") == 0) {
    *out = TRUE;
    return TRUE;
  }
  if (strcmp(s, "false") == 0 || strcmp(s, "no") == 0 || strcmp(s, "0") == 0) {
    *out = FALSE;
    return TRUE;
  }
  g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
              "%s: option %s='%s' is not a boolean (yes/no/true/false/1/0)", spec->name, key, s);
  return FALSE;
}
