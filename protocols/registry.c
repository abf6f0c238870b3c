/*
 * protocols/registry.c: the process-wide protocol registry. Built-ins
 * register through the same public call as plugins.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <string.h>

#include "protocols/internal.h"

static GMutex registry_lock;
static GPtrArray *registry; /* const ProtoVTable*, sorted by name */

static gint by_name(gconstpointer a, gconstpointer b) {
  const ProtoVTable *x = *(const ProtoVTable *const *)a, *y = *(const ProtoVTable *const *)b;
  return strcmp(x->name, y->name);
}

/* Adds @vt; the caller holds the lock. */
static gboolean add_locked(const ProtoVTable *vt, GError **error) {
  if (!proto_vtable_check(vt, error))
    return FALSE;
  for (guint i = 0; i < registry->len; i++)
    if (strcmp(((const ProtoVTable *)registry->pdata[i])->name, vt->name) == 0) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "protocol '%s' is already registered", vt->name);
      return FALSE;
    }
  g_ptr_array_add(registry, (gpointer)vt);
  g_ptr_array_sort(registry, by_name);
  return TRUE;
}

static const ProtoVTable *const builtins[] = {
    &proto_dsgd_vtable,    &proto_muffliato_vtable, &proto_mfdsgd_vtable, &proto_antipgd_vtable,
    &proto_mafalda_vtable, &proto_decor_vtable,     &proto_zipdl_vtable};

gboolean proto_registry_is_builtin(const ProtoVTable *vt) {
  for (guint i = 0; i < G_N_ELEMENTS(builtins); i++)
    if (builtins[i] == vt)
      return TRUE;
  return FALSE;
}

/* Creates the registry with the built-ins; the caller holds the lock. */
static void ensure_locked(void) {
  if (registry != NULL)
    return;
  registry = g_ptr_array_new();
  for (guint i = 0; i < G_N_ELEMENTS(builtins); i++) {
    GError *error = NULL;
    if (!add_locked(builtins[i], &error)) {
      /* A built-in that fails its own check is a bug of this module. */
      g_critical("built-in protocol rejected: %s", error->message);
      g_error_free(error);
    }
  }
}

gboolean proto_registry_register(const ProtoVTable *vt, GError **error) {
  g_mutex_lock(&registry_lock);
  ensure_locked();
  gboolean ok = add_locked(vt, error);
  g_mutex_unlock(&registry_lock);
  return ok;
}

const ProtoVTable *proto_registry_lookup_any(const char *name) {
  if (name == NULL)
    return NULL;
  const ProtoVTable *found = NULL;
  g_mutex_lock(&registry_lock);
  ensure_locked();
  for (guint i = 0; i < registry->len && found == NULL; i++)
    if (strcmp(((const ProtoVTable *)registry->pdata[i])->name, name) == 0)
      found = registry->pdata[i];
  g_mutex_unlock(&registry_lock);
  return found;
}

const ProtoVTable *proto_registry_lookup(const char *name) {
  const ProtoVTable *found = proto_registry_lookup_any(name);
  return found != NULL && proto_plugin_scope_shows(found) ? found : NULL;
}

const ProtoVTable **proto_registry_list(guint *n) {
  g_mutex_lock(&registry_lock);
  ensure_locked();
  const ProtoVTable **out = g_new(const ProtoVTable *, registry->len + 1);
  guint k = 0;
  for (guint i = 0; i < registry->len; i++)
    if (proto_plugin_scope_shows(registry->pdata[i]))
      out[k++] = registry->pdata[i];
  out[k] = NULL;
  if (n != NULL)
    *n = k;
  g_mutex_unlock(&registry_lock);
  return out;
}

char *proto_registry_names(void) {
  guint n = 0;
  const ProtoVTable **all = proto_registry_list(&n);
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(s, "%s%s", i ? ", " : "", all[i]->name);
  g_free(all);
  return g_string_free(s, FALSE);
}
