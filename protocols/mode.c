/*
 * protocols/mode.c: gossip mode specs: sync, deadline:ms=D, stale:s=S.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "protocols/internal.h"
#include "spec/spec.h"

/* The value of the single key @key in "name:key=value", or NULL with an error. */
static const char *single_value(const char *spec, const char *name, const char *key,
                                GError **error) {
  const char *colon = strchr(spec, ':');
  gsize klen = strlen(key);
  if (colon == NULL || strncmp(colon + 1, key, klen) != 0 || colon[1 + klen] != '=' ||
      strchr(colon + 1, ',') != NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE, "mode '%s': expected %s:%s=VALUE (one key)",
                spec, name, key);
    return NULL;
  }
  return colon + 2 + klen;
}

gboolean proto_mode_parse(const char *spec, ProtoMode *out, GError **error) {
  g_return_val_if_fail(out != NULL, FALSE);
  if (spec == NULL || strcmp(spec, "sync") == 0) {
    *out = (ProtoMode){.kind = PROTO_MODE_SYNC};
    return TRUE;
  }
  if (g_str_has_prefix(spec, "deadline")) {
    const char *v = single_value(spec, "deadline", "ms", error);
    if (v == NULL)
      return FALSE;
    char *end = NULL;
    double ms = g_ascii_strtod(v, &end);
    if (*v == '\0' || *end != '\0' || !isfinite(ms) || ms <= 0.0) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE,
                  "mode '%s': the deadline must be a number of milliseconds > 0", spec);
      return FALSE;
    }
    *out = (ProtoMode){.kind = PROTO_MODE_DEADLINE, .deadline_ms = ms};
    return TRUE;
  }
  if (g_str_has_prefix(spec, "stale")) {
    const char *v = single_value(spec, "stale", "s", error);
    if (v == NULL)
      return FALSE;
    char *end = NULL;
    errno = 0;
    guint64 s = g_ascii_strtoull(v, &end, 10);
    if (*v == '\0' || *v == '-' || *end != '\0' || errno != 0 || s > 1000000) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE,
                  "mode '%s': the staleness bound must be an integer in [0, 1000000]", spec);
      return FALSE;
    }
    *out = (ProtoMode){.kind = PROTO_MODE_STALE, .staleness = (guint)s};
    return TRUE;
  }
  const char *const kinds[] = {"sync", "deadline", "stale"};
  char *name = g_strndup(spec, strcspn(spec, ":"));
  char *hint = spec_did_you_mean(name, kinds, G_N_ELEMENTS(kinds));
  g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE,
              "unknown mode '%s' (valid: sync, deadline:ms=D, stale:s=S)%s", spec, hint);
  g_free(hint);
  g_free(name);
  return FALSE;
}
