/*
 * topologies/spec.c: "name:key=value,..." specs shared by generators and
 * schedules, and the seed hashing that makes random objects deterministic.
 */
#include <math.h>
#include <string.h>

#include "topologies/internal.h"

void topo_spec_free(TopoSpec *spec) {
  if (spec == NULL)
    return;
  g_free(spec->name);
  g_ptr_array_unref(spec->keys);
  g_ptr_array_unref(spec->values);
  g_free(spec);
}

TopoSpec *topo_spec_parse(const char *text, const char *what, GError **error) {
  if (text == NULL || *text == '\0') {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "empty %s spec", what);
    return NULL;
  }
  TopoSpec *spec = g_new0(TopoSpec, 1);
  spec->keys = g_ptr_array_new_with_free_func(g_free);
  spec->values = g_ptr_array_new_with_free_func(g_free);
  const char *colon = strchr(text, ':');
  spec->name = colon != NULL ? g_strndup(text, (gsize)(colon - text)) : g_strdup(text);
  g_strstrip(spec->name);
  if (spec->name[0] == '\0') {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "%s spec '%s' has no name before ':'",
                what, text);
    topo_spec_free(spec);
    return NULL;
  }
  if (colon == NULL)
    return spec;
  char **items = g_strsplit(colon + 1, ",", -1);
  for (char **it = items; *it != NULL; it++) {
    char *item = g_strstrip(*it);
    char *eq = strchr(item, '=');
    if (eq == NULL || eq == item) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                  "%s '%s': parameter '%s' is not of the form key=value", what, spec->name,
                  item);
      goto fail;
    }
    char *key = g_strndup(item, (gsize)(eq - item));
    g_strstrip(key);
    if (topo_spec_get(spec, key) != NULL) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "%s '%s': parameter '%s' given twice",
                  what, spec->name, key);
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
  topo_spec_free(spec);
  return NULL;
}

const char *topo_spec_get(const TopoSpec *spec, const char *key) {
  for (guint i = 0; i < spec->keys->len; i++)
    if (strcmp(g_ptr_array_index(spec->keys, i), key) == 0)
      return g_ptr_array_index(spec->values, i);
  return NULL;
}

static char *join_keys(const char *const *keys) {
  if (keys == NULL || keys[0] == NULL)
    return g_strdup("none");
  return g_strjoinv(", ", (char **)keys);
}

gboolean topo_spec_check(const TopoSpec *spec, const char *what, const char *const *valid,
                         const char *const *required, GError **error) {
  for (guint i = 0; i < spec->keys->len; i++) {
    const char *key = g_ptr_array_index(spec->keys, i);
    gboolean ok = FALSE;
    for (const char *const *v = valid; v != NULL && *v != NULL; v++)
      ok = ok || strcmp(*v, key) == 0;
    if (!ok) {
      char *list = join_keys(valid);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                  "%s '%s' has no parameter '%s' (valid parameters: %s)", what, spec->name, key,
                  list);
      g_free(list);
      return FALSE;
    }
  }
  for (const char *const *r = required; r != NULL && *r != NULL; r++) {
    if (topo_spec_get(spec, *r) == NULL) {
      char *list = join_keys(valid);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                  "%s '%s' requires parameter '%s' (valid parameters: %s)", what, spec->name,
                  *r, list);
      g_free(list);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean topo_spec_uint(const TopoSpec *spec, const char *key, guint64 dflt, guint64 min,
                        guint64 max, guint64 *out, GError **error) {
  const char *s = topo_spec_get(spec, key);
  if (s == NULL) {
    *out = dflt;
    return TRUE;
  }
  guint64 v;
  GError *local = NULL;
  if (!g_ascii_string_to_unsigned(s, 10, 0, G_MAXUINT64, &v, &local)) {
    g_error_free(local);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                "%s: parameter %s='%s' is not a non-negative integer", spec->name, key, s);
    return FALSE;
  }
  if (v < min || v > max) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "%s: parameter %s=%" G_GUINT64_FORMAT " is out of range [%" G_GUINT64_FORMAT
                ", %" G_GUINT64_FORMAT "]",
                spec->name, key, v, min, max);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean topo_spec_double(const TopoSpec *spec, const char *key, double dflt, double min,
                          double max, double *out, GError **error) {
  const char *s = topo_spec_get(spec, key);
  if (s == NULL) {
    *out = dflt;
    return TRUE;
  }
  char *end = NULL;
  double v = g_ascii_strtod(s, &end);
  if (*s == '\0' || end == NULL || *end != '\0' || !isfinite(v)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "%s: parameter %s='%s' is not a number",
                spec->name, key, s);
    return FALSE;
  }
  if (v < min || v > max) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "%s: parameter %s=%g is out of range [%g, %g]", spec->name, key, v, min, max);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean topo_spec_bool(const TopoSpec *spec, const char *key, gboolean dflt, gboolean *out,
                        GError **error) {
  const char *s = topo_spec_get(spec, key);
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
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
              "%s: parameter %s='%s' is not a boolean (true/false/yes/no/1/0)", spec->name, key,
              s);
  return FALSE;
}

static guint64 mix64(guint64 z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

guint64 topo_hash3(guint64 a, guint64 b, guint64 c) {
  return mix64(mix64(mix64(a) ^ b) ^ c);
}

gsl_rng *topo_rng_new(guint64 seed, guint64 round, guint64 purpose) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, (unsigned long)topo_hash3(seed, round, purpose));
  return r;
}
