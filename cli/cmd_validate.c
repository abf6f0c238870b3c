/*
 * cli/cmd_validate.c: `dpgossip validate FILE`: every problem of a scenario
 * file at once, one per line as FILE:LINE: section.key: what is wrong (with
 * did-you-mean hints), on stderr; exit status 1 when there is any. It never
 * loads code: a scenario's plugin is only checked to exist (a note says so).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "scenarios/scenarios.h"

int cli_cmd_validate(int argc, char **argv) {
  char **sets = NULL;
  gboolean keys = FALSE;
  GOptionEntry entries[] = {
      {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
       "Override a key as `run` would: section.key=value (repeatable)", "KEY=VALUE"},
      {"keys", 0, 0, G_OPTION_ARG_NONE, &keys, "List every scenario key and exit", NULL},
      G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "FILE - check a scenario file",
      .entries = entries,
      .operands = TRUE,
      .description =
          "Reports every problem at once (syntax, unknown sections and keys, types,\n"
          "ranges, missing files, collusion nodes out of range, unknown specs, sweeps\n"
          "over unknown keys, ...), one per line on stderr; then, for a valid file,\n"
          "every check `run` makes before its first step, by the same code: the output\n"
          "folder, each point's dataset read and partitioned, memory estimates. Exit\n"
          "status 0 when the file is valid, 1 when it has problems, 2 on a usage error.\n"};
  int status = CLI_EXIT_USAGE;
  ScenScenario *sc = NULL;
  GError *error = NULL;
  if (!cli_options_parse(&spec, &argc, &argv))
    goto out;
  if (keys) {
    char *text = scen_keys_describe();
    fputs(text, stdout);
    g_free(text);
    status = CLI_EXIT_OK;
    goto out;
  }
  if (argc != 2) {
    fprintf(stderr,
            "dpgossip validate: give one scenario file (got %d arguments)\n"
            "(run 'dpgossip validate --help' for the options)\n",
            argc - 1);
    goto out;
  }
  if ((sc = scen_scenario_load(argv[1], &error)) == NULL) {
    status = cli_fail("validate", error, CLI_EXIT_FAILURE);
    goto out;
  }
  for (guint i = 0; sets && sets[i]; i++)
    if (!scen_scenario_set(sc, sets[i], &error)) {
      status = cli_fail("validate", error, CLI_EXIT_USAGE);
      goto out;
    }
  /* Every problem; for a valid file, then what `run` checks before its
   * first step, by the same code (output folder, each point's data, sizes):
   * one pass over the points, whatever their number. */
  char **problems = NULL;
  gboolean ok = scen_scenario_check(sc, NULL, &problems, &error);
  guint n = g_strv_length(problems);
  for (guint i = 0; i < n; i++)
    fprintf(stderr, "%s\n", problems[i]);
  g_strfreev(problems);
  if (!ok && n == 0) {
    fprintf(stderr, "%s\n", error->message);
    n = 1;
  }
  g_clear_error(&error);
  char **notes = scen_scenario_notes(sc);
  for (guint i = 0; notes[i] != NULL; i++)
    fprintf(stderr, "note: %s\n", notes[i]);
  g_strfreev(notes);
  if (n > 0) {
    fprintf(stderr, "%s: %u problem%s\n", argv[1], n, n == 1 ? "" : "s");
    status = CLI_EXIT_FAILURE;
  } else {
    guint64 pts = scen_scenario_n_points(sc);
    printf("%s: valid (%" G_GUINT64_FORMAT " point%s)\n", argv[1], pts, pts == 1 ? "" : "s");
    status = CLI_EXIT_OK;
  }
out:
  scen_scenario_free(sc);
  g_strfreev(sets);
  return status;
}
