/*
 * spec/spec.c: parsing "name[:head][,key=value]..." and reading typed values.
 */
#include <math.h>
#include <string.h>

#include "spec/spec.h"

void spec_free(Spec *spec) {
  if (spec == NULL)
    return;
  g_free(spec->name);
  g_free(spec->head);
  g_ptr_array_unref(spec->keys);
  g_ptr_array_unref(spec->values);
  g_free(spec);
}

const char *spec_get(const Spec *spec, const char *key) {
  for (guint i = 0; i < spec->keys->len; i++)
    if (strcmp(g_ptr_array_index(spec->keys, i), key) == 0)
      return g_ptr_array_index(spec->values, i);
  return NULL;
}

Spec *spec_parse(const char *text, const char *what, gboolean want_head, GQuark domain,
                 gint parse_code, gint range_code, GError **error) {
  if (text == NULL || *text == '\0') {
    g_set_error(error, domain, parse_code, "empty %s spec", what);
    return NULL;
  }
  Spec *spec = g_new0(Spec, 1);
  spec->keys = g_ptr_array_new_with_free_func(g_free);
  spec->values = g_ptr_array_new_with_free_func(g_free);
  spec->domain = domain;
  spec->parse_code = parse_code;
  spec->range_code = range_code;
  char **items = NULL;
  const char *colon = strchr(text, ':');
  spec->name = colon != NULL ? g_strndup(text, (gsize)(colon - text)) : g_strdup(text);
  g_strstrip(spec->name);
  if (spec->name[0] == '\0') {
    g_set_error(error, domain, parse_code, "%s spec '%s' has no name before ':'", what, text);
    goto fail;
  }
  if (colon == NULL) {
    if (want_head) {
      g_set_error(error, domain, parse_code, "%s spec '%s' needs '%s:' followed by a path or kind",
                  what, text, spec->name);
      goto fail;
    }
    return spec;
  }
  items = g_strsplit(colon + 1, ",", -1);
  char **it = items;
  if (want_head) {
    if (*it == NULL || g_strstrip(*it)[0] == '\0') {
      g_set_error(error, domain, parse_code,
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
      g_set_error(error, domain, parse_code, "%s '%s': parameter '%s' is not of the form key=value",
                  what, spec->name, item);
      goto fail;
    }
    char *key = g_strstrip(g_strndup(item, (gsize)(eq - item)));
    if (spec_get(spec, key) != NULL) {
      g_set_error(error, domain, parse_code, "%s '%s': parameter '%s' given twice", what,
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
  spec_free(spec);
  return NULL;
}

static char *join_keys(const char *const *keys) {
  if (keys == NULL || keys[0] == NULL)
    return g_strdup("none");
  return g_strjoinv(", ", (char **)keys);
}

gboolean spec_check(const Spec *spec, const char *what, const char *const *valid,
                    const char *const *required, GError **error) {
  for (guint i = 0; i < spec->keys->len; i++) {
    const char *key = g_ptr_array_index(spec->keys, i);
    gboolean ok = FALSE;
    for (const char *const *v = valid; v != NULL && *v != NULL; v++)
      ok = ok || strcmp(*v, key) == 0;
    if (!ok) {
      char *list = join_keys(valid);
      g_set_error(error, spec->domain, spec->parse_code,
                  "%s '%s' has no parameter '%s' (valid parameters: %s)", what, spec->name, key,
                  list);
      g_free(list);
      return FALSE;
    }
  }
  for (const char *const *r = required; r != NULL && *r != NULL; r++)
    if (spec_get(spec, *r) == NULL) {
      char *list = join_keys(valid);
      g_set_error(error, spec->domain, spec->parse_code,
                  "%s '%s' requires parameter '%s' (valid parameters: %s)", what, spec->name, *r,
                  list);
      g_free(list);
      return FALSE;
    }
  return TRUE;
}

gboolean spec_uint(const Spec *spec, const char *key, guint64 dflt, guint64 min, guint64 max,
                   guint64 *out, GError **error) {
  const char *s = spec_get(spec, key);
  if (s == NULL) {
    *out = dflt;
    return TRUE;
  }
  guint64 v;
  if (!g_ascii_string_to_unsigned(s, 10, 0, G_MAXUINT64, &v, NULL)) {
    g_set_error(error, spec->domain, spec->parse_code,
                "%s: parameter %s='%s' is not a non-negative integer", spec->name, key, s);
    return FALSE;
  }
  if (v < min || v > max) {
    g_set_error(error, spec->domain, spec->range_code,
                "%s: parameter %s=%" G_GUINT64_FORMAT " is out of range [%" G_GUINT64_FORMAT
                ", %" G_GUINT64_FORMAT "]",
                spec->name, key, v, min, max);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean spec_double(const Spec *spec, const char *key, double dflt, double min, double max,
                     double *out, GError **error) {
  const char *s = spec_get(spec, key);
  if (s == NULL) {
    *out = dflt;
    return TRUE;
  }
  char *end = NULL;
  double v = g_ascii_strtod(s, &end);
  if (*s == '\0' || end == NULL || *end != '\0' || !isfinite(v)) {
    g_set_error(error, spec->domain, spec->parse_code, "%s: parameter %s='%s' is not a number",
                spec->name, key, s);
    return FALSE;
  }
  if (v < min || v > max) {
    g_set_error(error, spec->domain, spec->range_code,
                "%s: parameter %s=%g is out of range [%g, %g]", spec->name, key, v, min, max);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean spec_bool(const Spec *spec, const char *key, gboolean dflt, gboolean *out,
                   GError **error) {
  const char *s = spec_get(spec, key);
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
  g_set_error(error, spec->domain, spec->parse_code,
              "%s: parameter %s='%s' is not a boolean (true/false/yes/no/1/0)", spec->name, key, s);
  return FALSE;
}
