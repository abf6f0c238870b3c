/*
 * cli/plugin_options.c: --protocol-plugin PATH.so, shared by the commands
 * that run a protocol (train; account and run once wired).
 */
#include "cli/cli.h"
#include "protocols/protocols.h"

void cli_plugin_options_add(GOptionContext *ctx, CliPluginOptions *o) {
  GOptionEntry entries[] = {
      {"protocol-plugin", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->paths,
       "Load a protocol plugin (a .so built against dpgossip's protocols/plugin.h; "
       "repeatable); with one plugin, --protocol defaults to its protocol",
       "FILE.so"},
      G_OPTION_ENTRY_NULL};
  g_option_context_add_main_entries(ctx, entries, NULL);
}

gboolean cli_plugin_options_load(CliPluginOptions *o, GError **error) {
  if (!proto_plugin_load_paths((const char *const *)o->paths, &o->single, error)) {
    g_prefix_error(error, "--protocol-plugin: ");
    return FALSE;
  }
  return TRUE;
}

void cli_plugin_options_clear(CliPluginOptions *o) {
  g_clear_pointer(&o->paths, g_strfreev);
  g_clear_pointer(&o->single, g_free);
}
