/*
 * protocols/params.c: typed protocol parameters and "name:key=value,..."
 * specs, with errors that list what is valid.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "protocols/internal.h"
#include "spec/spec.h"

const char *proto_param_type_name(ProtoParamType t) {
  switch (t) {
  case PROTO_PARAM_INT:
    return "int";
  case PROTO_PARAM_DOUBLE:
    return "number";
  case PROTO_PARAM_STRING:
    return "string";
  case PROTO_PARAM_BOOL:
    return "bool";
  case PROTO_PARAM_FILE:
    return "file";
  }
  return "?";
}

static gboolean has_range(const ProtoParamSpec *p) {
  return (p->type == PROTO_PARAM_INT || p->type == PROTO_PARAM_DOUBLE) && p->min <= p->max;
}

/* Parses @text as a value of @p into @v. @what names the protocol for messages. */
static gboolean parse_value(const ProtoParamSpec *p, const char *text, ProtoParamValue *v,
                            const char *what, GError **error) {
  switch (p->type) {
  case PROTO_PARAM_INT: {
    char *end = NULL;
    errno = 0;
    gint64 x = g_ascii_strtoll(text, &end, 10);
    if (*text == '\0' || end == NULL || *end != '\0' || errno != 0) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE,
                  "%s: parameter %s must be an integer, not '%s'", what, p->name, text);
      return FALSE;
    }
    if (has_range(p) && ((double)x < p->min || (double)x > p->max)) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "%s: parameter %s=%" G_GINT64_FORMAT " is out of range [%.17g, %.17g]", what,
                  p->name, x, p->min, p->max);
      return FALSE;
    }
    v->i = x;
    v->d = (double)x;
    break;
  }
  case PROTO_PARAM_DOUBLE: {
    char *end = NULL;
    double x = g_ascii_strtod(text, &end);
    if (*text == '\0' || end == NULL || *end != '\0' || !isfinite(x)) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE,
                  "%s: parameter %s must be a finite number, not '%s'", what, p->name, text);
      return FALSE;
    }
    if (has_range(p) && (x < p->min || x > p->max)) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "%s: parameter %s=%g is out of range [%.17g, %.17g]", what, p->name, x, p->min,
                  p->max);
      return FALSE;
    }
    v->d = x;
    break;
  }
  case PROTO_PARAM_BOOL: {
    static const char *const yes[] = {"true", "yes", "1"}, *const no[] = {"false", "no", "0"};
    gboolean found = FALSE;
    for (guint i = 0; i < 3 && !found; i++) {
      if (g_ascii_strcasecmp(text, yes[i]) == 0) {
        v->b = TRUE;
        found = TRUE;
      } else if (g_ascii_strcasecmp(text, no[i]) == 0) {
        v->b = FALSE;
        found = TRUE;
      }
    }
    if (!found) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE,
                  "%s: parameter %s must be true/false/yes/no/1/0, not '%s'", what, p->name, text);
      return FALSE;
    }
    break;
  }
  case PROTO_PARAM_FILE:
    if (!g_file_test(text, G_FILE_TEST_IS_REGULAR) || g_access(text, R_OK) != 0) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_IO,
                  "%s: parameter %s: '%s' is not a readable file", what, p->name, text);
      return FALSE;
    }
    g_free(v->s);
    v->s = g_strdup(text);
    break;
  case PROTO_PARAM_STRING:
    g_free(v->s);
    v->s = g_strdup(text);
    break;
  default:
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "%s: parameter %s has an unknown type %d", what, p->name, (int)p->type);
    return FALSE;
  }
  v->has = TRUE;
  return TRUE;
}

gboolean proto_name_valid(const char *name) {
  if (name == NULL || *name == '\0')
    return FALSE;
  for (const char *c = name; *c; c++)
    if (!g_ascii_isalnum(*c) && *c != '_' && *c != '-')
      return FALSE;
  return TRUE;
}

gsize proto_vtable_size(guint v) {
  switch (v) {
  case 1:
    return PROTO_VTABLE_V1_SIZE;
  case 2:
    return G_STRUCT_OFFSET(ProtoVTable, accounting_shape);
  default:
    return sizeof(ProtoVTable);
  }
}

gboolean proto_vtable_check(const ProtoVTable *vt, GError **error) {
  if (vt == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT, "protocol: NULL vtable");
    return FALSE;
  }
  if (vt->abi_version < PROTO_PLUGIN_ABI_VERSION_OLDEST ||
      vt->abi_version > PROTO_PLUGIN_ABI_VERSION) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "protocol '%s': plugin ABI version %u, this dpgossip speaks version %u "
                "and still runs version %u (rebuild the plugin against this "
                "protocols/plugin.h)",
                vt->name ? vt->name : "?", vt->abi_version, PROTO_PLUGIN_ABI_VERSION,
                PROTO_PLUGIN_ABI_VERSION_OLDEST);
    return FALSE;
  }
  if (!proto_name_valid(vt->name)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "protocol name '%s' is invalid (use letters, digits, '_' and '-')",
                vt->name ? vt->name : "(null)");
    return FALSE;
  }
  /* Version 1 has no defaults: without init the run has nothing to validate
   * parameters with, and without on_start no node ever acts (every run would
   * stall at time 0). The other handlers are checked when first needed
   * (proto_node_exchange needs on_gathered, proto_node_set_timer on_timer,
   * proto_node_send on_message). */
  if (vt->abi_version == 1 && (vt->init == NULL || vt->on_start == NULL)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "protocol '%s' has no %s handler (init and on_start are mandatory)", vt->name,
                vt->init == NULL ? "init" : "on_start");
    return FALSE;
  }
  if (vt->n_params > 0 && vt->params == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "protocol '%s' declares %u parameters but no array", vt->name, vt->n_params);
    return FALSE;
  }
  for (guint i = 0; i < vt->n_params; i++) {
    const ProtoParamSpec *p = &vt->params[i];
    if (!proto_name_valid(p->name)) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "protocol '%s': parameter %u has an invalid name", vt->name, i);
      return FALSE;
    }
    if ((guint)p->type > PROTO_PARAM_FILE) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "protocol '%s': parameter %s has an unknown type %d (valid: int, number, "
                  "string, bool, file)",
                  vt->name, p->name, (int)p->type);
      return FALSE;
    }
    for (guint j = 0; j < i; j++)
      if (strcmp(vt->params[j].name, p->name) == 0) {
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                    "protocol '%s': parameter %s is declared twice", vt->name, p->name);
        return FALSE;
      }
    /* File defaults are checked when used: the file may not exist yet. */
    if (p->default_value != NULL && p->type != PROTO_PARAM_FILE) {
      ProtoParamValue v = {0};
      GError *sub = NULL;
      gboolean ok = parse_value(p, p->default_value, &v, vt->name, &sub);
      g_free(v.s);
      if (!ok) {
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                    "protocol '%s': bad default: %s", vt->name, sub->message);
        g_error_free(sub);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* "a, b, c" of the parameter names, or "none". */
static char *param_names(const ProtoVTable *vt) {
  if (vt->n_params == 0)
    return g_strdup("it takes none");
  GString *s = g_string_new("valid: ");
  for (guint i = 0; i < vt->n_params; i++)
    g_string_append_printf(s, "%s%s", i ? ", " : "", vt->params[i].name);
  return g_string_free(s, FALSE);
}

static ProtoParams *params_new(const ProtoVTable *vt) {
  ProtoParams *p = g_new0(ProtoParams, 1);
  p->vt = vt;
  p->values = g_new0(ProtoParamValue, MAX(vt->n_params, 1));
  for (guint i = 0; i < vt->n_params; i++)
    p->values[i].spec = &vt->params[i];
  return p;
}

void proto_params_free(ProtoParams *params) {
  if (params == NULL)
    return;
  for (guint i = 0; i < params->vt->n_params; i++)
    g_free(params->values[i].s);
  g_free(params->values);
  g_free(params);
}

gboolean proto_spec_parse(const char *spec, const ProtoVTable **vt_out, ProtoParams **params_out,
                          GError **error) {
  g_return_val_if_fail(vt_out != NULL && params_out != NULL, FALSE);
  if (spec == NULL || *spec == '\0') {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE, "empty protocol spec");
    return FALSE;
  }
  const char *colon = strchr(spec, ':');
  char *name = colon ? g_strndup(spec, colon - spec) : g_strdup(spec);
  g_strstrip(name);
  const ProtoVTable *vt = proto_registry_lookup(name);
  if (vt == NULL) {
    /* Not registered: an installed plugin may provide it. */
    GError *sub = NULL;
    if (!proto_plugin_find(name, &vt, &sub)) {
      if (g_error_matches(sub, PROTO_ERROR, PROTO_ERROR_UNKNOWN)) {
        char *valid = proto_registry_names();
        char **choices = g_strsplit(valid, ", ", -1);
        const char *best = spec_closest(name, (const char *const *)choices, -1);
        if (best != NULL)
          g_set_error(error, PROTO_ERROR, PROTO_ERROR_UNKNOWN,
                      "unknown protocol '%s' (valid: %s); did you mean '%s'? (%s)", name, valid,
                      best, sub->message);
        else
          g_set_error(error, PROTO_ERROR, PROTO_ERROR_UNKNOWN,
                      "unknown protocol '%s' (valid: %s); %s", name, valid, sub->message);
        g_strfreev(choices);
        g_free(valid);
        g_error_free(sub);
      } else {
        g_propagate_error(error, sub);
      }
      g_free(name);
      return FALSE;
    }
  }
  g_free(name);
  ProtoParams *params = params_new(vt);
  gboolean ok = TRUE;
  if (colon != NULL) {
    char **items = g_strsplit(colon + 1, ",", -1);
    for (guint i = 0; ok && items[i] != NULL; i++) {
      char *item = g_strstrip(items[i]);
      char *eq = strchr(item, '=');
      if (eq == NULL || eq == item) {
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE,
                    "%s: expected key=value, got '%s' in '%s'", vt->name, item, spec);
        ok = FALSE;
        break;
      }
      *eq = '\0';
      char *key = g_strstrip(item), *value = g_strstrip(eq + 1);
      guint j = 0;
      while (j < vt->n_params && strcmp(vt->params[j].name, key) != 0)
        j++;
      if (j == vt->n_params) {
        char *valid = param_names(vt);
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_UNKNOWN, "%s: unknown parameter '%s' (%s)",
                    vt->name, key, valid);
        g_free(valid);
        ok = FALSE;
      } else if (params->values[j].set) {
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE, "%s: parameter %s given twice", vt->name,
                    key);
        ok = FALSE;
      } else {
        ok = parse_value(&vt->params[j], value, &params->values[j], vt->name, error);
        params->values[j].set = ok;
      }
    }
    g_strfreev(items);
  }
  for (guint j = 0; ok && j < vt->n_params; j++)
    if (!params->values[j].set && vt->params[j].default_value != NULL)
      ok = parse_value(&vt->params[j], vt->params[j].default_value, &params->values[j], vt->name,
                       error);
  if (!ok) {
    proto_params_free(params);
    return FALSE;
  }
  *vt_out = vt;
  *params_out = params;
  return TRUE;
}

static const ProtoParamValue *find(const ProtoParams *params, const char *name,
                                   ProtoParamType type) {
  g_return_val_if_fail(params != NULL && name != NULL, NULL);
  for (guint i = 0; i < params->vt->n_params; i++) {
    const ProtoParamValue *v = &params->values[i];
    if (strcmp(v->spec->name, name) != 0)
      continue;
    gboolean text = type == PROTO_PARAM_STRING || type == PROTO_PARAM_FILE;
    gboolean vtext = v->spec->type == PROTO_PARAM_STRING || v->spec->type == PROTO_PARAM_FILE;
    if (v->spec->type == type || (text && vtext))
      return v;
    g_critical("protocol '%s': parameter %s is a %s, not a %s", params->vt->name, name,
               proto_param_type_name(v->spec->type), proto_param_type_name(type));
    return NULL;
  }
  g_critical("protocol '%s' declares no parameter %s", params->vt->name, name);
  return NULL;
}

gint64 proto_params_get_int(const ProtoParams *params, const char *name) {
  const ProtoParamValue *v = find(params, name, PROTO_PARAM_INT);
  return v != NULL && v->has ? v->i : 0;
}

double proto_params_get_double(const ProtoParams *params, const char *name) {
  const ProtoParamValue *v = find(params, name, PROTO_PARAM_DOUBLE);
  return v != NULL && v->has ? v->d : NAN;
}

const char *proto_params_get_string(const ProtoParams *params, const char *name) {
  const ProtoParamValue *v = find(params, name, PROTO_PARAM_STRING);
  return v != NULL && v->has ? v->s : NULL;
}

gboolean proto_params_get_bool(const ProtoParams *params, const char *name) {
  const ProtoParamValue *v = find(params, name, PROTO_PARAM_BOOL);
  return v != NULL && v->has ? v->b : FALSE;
}

gboolean proto_params_is_set(const ProtoParams *params, const char *name) {
  g_return_val_if_fail(params != NULL && name != NULL, FALSE);
  for (guint i = 0; i < params->vt->n_params; i++)
    if (strcmp(params->values[i].spec->name, name) == 0)
      return params->values[i].set;
  g_critical("protocol '%s' declares no parameter %s", params->vt->name, name);
  return FALSE;
}

char *proto_vtable_describe(const ProtoVTable *vt) {
  g_return_val_if_fail(vt != NULL, NULL);
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "%s: %s\n", vt->name, vt->summary ? vt->summary : "");
  for (guint i = 0; i < vt->n_params; i++) {
    const ProtoParamSpec *p = &vt->params[i];
    g_string_append_printf(s, "  %s=%s", p->name, proto_param_type_name(p->type));
    if (p->default_value != NULL)
      g_string_append_printf(s, " (default %s", p->default_value);
    else
      g_string_append(s, " (optional");
    if (has_range(p))
      g_string_append_printf(s, ", range [%g, %g]", p->min, p->max);
    g_string_append_printf(s, "): %s\n", p->help ? p->help : "");
  }
  return g_string_free(s, FALSE);
}
