/*
 * api/audit_plugins.h: internal to libdpgossip: protocol plugins loaded for
 * dpg_audit (DpgAuditOptions.plugins), as the command's --protocol-plugin.
 */
#ifndef DPG_API_AUDIT_PLUGINS_H
#define DPG_API_AUDIT_PLUGINS_H

#include <glib.h>

G_BEGIN_DECLS

/*
 * dpg_plugins_load: loads the plugins of @paths (NULL-terminated,
 * nullable) with proto_plugin_load, in order; *@single (nullable) receives
 * the protocol name of the only plugin when exactly one was given, else
 * NULL (g_free). A foreign caller (Python's cffi) loads libdpgossip without
 * RTLD_GLOBAL, so that a plugin could not resolve the plugin API
 * (protocols/plugin.h, sim/sim.h: what libdpgossip.map exports besides
 * dpg_*) when it is opened; the library first makes itself global, once,
 * for the life of the process (plugins stay loaded too).
 * Errors: PROTO_ERROR_FAILED when the library cannot find or promote
 * itself; those of proto_plugin_load. O(one dlopen per plugin).
 */
gboolean dpg_plugins_load(const char *const *paths, char **single, GError **error);

G_END_DECLS

#endif /* DPG_API_AUDIT_PLUGINS_H */
