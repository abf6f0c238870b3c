/*
 * api/audit_plugins.c: protocol plugins in libdpgossip (api/audit_plugins.h).
 */
#include <dlfcn.h> /* dladdr, RTLD_NOLOAD: _GNU_SOURCE */

#include "api/audit_plugins.h"
#include "api/internal.h"

/* Reopens this library with RTLD_GLOBAL (RTLD_NOLOAD: the copy already
 * loaded), so that its exported plugin API resolves the plugins' calls. The
 * handle is kept: the library must stay global while plugins live. */
static gboolean make_global(GError **error) {
  static gsize done = 0;
  static gboolean ok = FALSE;
  static char *why = NULL;
  if (g_once_init_enter(&done)) {
    Dl_info info;
    if (dladdr((void *)dpg_audit, &info) == 0 || info.dli_fname == NULL)
      why = g_strdup("libdpgossip cannot find its own file (dladdr)");
    else if (dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == NULL)
      why = g_strdup_printf("libdpgossip cannot make its plugin API global: %s", dlerror());
    else
      ok = TRUE;
    g_once_init_leave(&done, 1);
  }
  if (!ok)
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "%s", why);
  return ok;
}

gboolean dpg_plugins_load(const char *const *paths, char **single, GError **error) {
  if (single != NULL)
    *single = NULL;
  if (paths == NULL || paths[0] == NULL)
    return TRUE;
  if (!make_global(error))
    return FALSE;
  guint n = 0;
  const ProtoVTable *last = NULL;
  for (; paths[n] != NULL; n++)
    if (!proto_plugin_load(paths[n], &last, error))
      return FALSE;
  if (single != NULL && n == 1)
    *single = g_strdup(last->name);
  return TRUE;
}
