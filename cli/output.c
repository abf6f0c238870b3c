/*
 * cli/output.c: option parsing and output helpers shared by subcommands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char *const format_names[] = {"table", "json", "csv"};

gboolean cli_format_parse(const char *name, guint allowed, CliFormat *out, GError **error) {
  for (guint f = 0; f < G_N_ELEMENTS(format_names); f++) {
    if ((allowed & (1u << f)) && strcmp(name, format_names[f]) == 0) {
      *out = (CliFormat)f;
      return TRUE;
    }
  }
  GString *valid = g_string_new(NULL);
  for (guint f = 0; f < G_N_ELEMENTS(format_names); f++)
    if (allowed & (1u << f))
      g_string_append_printf(valid, "%s%s", valid->len ? ", " : "", format_names[f]);
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
              "--format: unknown format '%s' (valid: %s)", name, valid->str);
  g_string_free(valid, TRUE);
  return FALSE;
}

void cli_print_json(JsonNode *root) {
  gchar *text = sim_json_write(root, 2);
  fputs(text, stdout);
  fputc('\n', stdout);
  g_free(text);
  json_node_unref(root);
}

gboolean cli_parse(GOptionContext *ctx, int *argc, char ***argv) {
  GError *error = NULL;
  if (!g_option_context_parse(ctx, argc, argv, &error)) {
    fprintf(stderr, "dpgossip %s: %s\n(run 'dpgossip %s --help' for the options)\n",
            (*argv)[0], error->message, (*argv)[0]);
    g_error_free(error);
    return FALSE;
  }
  if (*argc > 1) {
    fprintf(stderr, "dpgossip %s: unexpected argument '%s'\n", (*argv)[0], (*argv)[1]);
    return FALSE;
  }
  return TRUE;
}

int cli_fail(const char *cmd, GError *error, int status) {
  fprintf(stderr, "dpgossip %s: %s\n", cmd, error != NULL ? error->message : "failed");
  g_clear_error(&error);
  return status;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "dpgossip %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(run 'dpgossip %s --help' for the options)\n", cmd);
  va_end(ap);
  return CLI_EXIT_USAGE;
}
