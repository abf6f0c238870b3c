/*
 * api/plugins.c: protocol plugins in libdpgossip: what every call that
 * runs a protocol (account, train, audit, run) loads, finds and shows
 * (dpg_plugins_begin in api/internal.h).
 */
#include <dlfcn.h> /* dladdr, RTLD_NOLOAD: _GNU_SOURCE */

#include "api/internal.h"

/* How a library caller names a plugin file (DpgAccountOptions.plugins and
 * the others; the Python package's plugins= argument). */
#define PLUGINS_HINT "plugins=['FILE.so']"

/* Once per process: reopens this library with RTLD_GLOBAL (RTLD_NOLOAD: the
 * copy already loaded), so that its exported plugin API resolves the
 * plugins' calls, and makes it the plugins' host (proto_plugin_set_host),
 * so that the search path's installation folder is this library's. The
 * handle is kept: the library must stay global while plugins live. */
static gboolean make_global(GError **error) {
  static gsize done = 0;
  static gboolean ok = FALSE;
  static char *why = NULL;
  if (g_once_init_enter(&done)) {
    Dl_info info;
    if (dladdr((void *)dpg_audit, &info) == 0 || info.dli_fname == NULL) {
      why = g_strdup("libdpgossip cannot find its own file (dladdr)");
    } else {
      proto_plugin_set_host(info.dli_fname);
      if (dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == NULL)
        why = g_strdup_printf("libdpgossip cannot make its plugin API global: %s", dlerror());
      else
        ok = TRUE;
    }
    g_once_init_leave(&done, 1);
  }
  if (!ok)
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "%s", why);
  return ok;
}

gboolean dpg_plugins_begin(DpgPlugins *p, const char *const *paths, DpgError *err) {
  p->single = NULL;
  GError *error = NULL;
  /* Plugins of DPGOSSIP_PLUGIN_PATH are opened later, when a protocol name
   * is looked up: the library is global before any call may open one. A
   * failure matters only to plugins, which then say why they cannot load. */
  gboolean given = paths != NULL && paths[0] != NULL;
  gboolean global = make_global(given ? &error : NULL);
  p->scope = proto_plugin_scope_begin(PLUGINS_HINT);
  if (!given)
    return TRUE;
  if (global)
    proto_plugin_load_paths(paths, &p->single, &error);
  if (error != NULL) {
    g_prefix_error(&error, "plugins: ");
    dpg_plugins_end(p);
    return dpg_fail(err, error, 2), FALSE;
  }
  return TRUE;
}

void dpg_plugins_end(DpgPlugins *p) {
  proto_plugin_scope_end(p->scope);
  p->scope = NULL;
  g_clear_pointer(&p->single, g_free);
}
