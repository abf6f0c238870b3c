/*
 * cli/command_options.c: how a command's options become a parsed command
 * line: one GOptionContext built in the same order for every command (the
 * graph group, the command's own options, the shared groups), parsed and
 * freed in one place.
 */
#include <stdio.h>

#include "cli/cli.h"

gboolean cli_options_parse(const CliOptionsSpec *spec, int *argc, char ***argv) {
  g_return_val_if_fail(spec != NULL && spec->parameter != NULL, FALSE);
  g_return_val_if_fail(argc != NULL && argv != NULL && *argc >= 1, FALSE);
  g_return_val_if_fail(spec->entries_data == NULL || spec->graph == NULL, FALSE);
  GOptionContext *ctx = g_option_context_new(spec->parameter);
  if (spec->graph != NULL)
    cli_graph_options_add(ctx, spec->graph);
  if (spec->entries_data != NULL) {
    /* Callbacks get their data from the group they stand in. */
    GOptionGroup *group = g_option_group_new((*argv)[0], "Options:", "Show the options",
                                             spec->entries_data, NULL);
    g_option_group_add_entries(group, spec->entries);
    g_option_context_set_main_group(ctx, group);
  } else if (spec->entries != NULL) {
    g_option_context_add_main_entries(ctx, spec->entries, NULL);
  }
  if (spec->plugins != NULL)
    cli_plugin_options_add(ctx, spec->plugins);
  if (spec->stream != NULL)
    cli_stream_options_add(ctx, spec->stream);
  if (spec->stream != NULL && spec->pace)
    cli_stream_options_add_pace(ctx, spec->stream);
  if (spec->description != NULL)
    g_option_context_set_description(ctx, spec->description);
  gboolean parsed;
  if (spec->operands) {
    GError *error = NULL;
    parsed = g_option_context_parse(ctx, argc, argv, &error);
    if (!parsed) {
      cli_parse_error(ctx, (*argv)[0], error);
      g_error_free(error);
    }
  } else {
    parsed = cli_parse(ctx, argc, argv);
  }
  g_option_context_free(ctx);
  return parsed;
}

const char *cli_protocols_help(const char *head, const char *tail) {
  char *names = proto_registry_names();
  char *text = g_strconcat(head, names, tail, NULL);
  const char *interned = g_intern_string(text);
  g_free(text);
  g_free(names);
  return interned;
}

const char *cli_trust_help(const char *head, const char *sep, const char *last, const char *tail) {
  char *models = priv_trust_list(sep, last);
  char *text = g_strconcat(head, models, tail, NULL);
  const char *interned = g_intern_string(text);
  g_free(text);
  g_free(models);
  return interned;
}

const char *cli_schedule_help(const char *tail) {
  char *text = g_strconcat("Time-varying gossip over the graph (default static): ",
                           topo_schedule_kinds_text(TRUE), tail != NULL ? "; " : NULL, tail, NULL);
  const char *interned = g_intern_string(text);
  g_free(text);
  return interned;
}
