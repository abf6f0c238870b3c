/*
 * cli/cli.h: internal to the dpgossip command. Each subcommand lives in
 * cli/cmd_<name>.c and is registered in cli/main.c.
 *
 * Exit statuses: 0 success, 1 the run failed (bad input file, numerical
 * failure), 2 a usage error (unknown option, bad option value).
 */
#ifndef DPG_CLI_H
#define DPG_CLI_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include "topologies/topologies.h"

G_BEGIN_DECLS

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2 };

/* A subcommand: argv[0] is the subcommand's name. Returns an exit status. */
typedef int (*CliCommandFunc)(int argc, char **argv);

int cli_cmd_graph(int argc, char **argv);
int cli_cmd_demo(int argc, char **argv);
int cli_cmd_mafalda(int argc, char **argv);
int cli_cmd_account(int argc, char **argv);
int cli_cmd_train(int argc, char **argv);
int cli_cmd_viz(int argc, char **argv);
int cli_cmd_replay(int argc, char **argv);
int cli_cmd_figure(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_protocols(int argc, char **argv);

/* ---- Graph options shared by every subcommand that takes a graph ---- */

typedef struct {
  char *graph_path; /* --graph FILE */
  char *generate;   /* --generate SPEC */
  gboolean lcc;     /* --lcc */
  char *gossip;     /* --gossip uniform|metropolis|maxdegree (default uniform) */
} CliGraphOptions;

/* Adds --graph, --generate, --lcc and --gossip to @group (which does not own @o). */
void cli_graph_options_add(GOptionContext *ctx, CliGraphOptions *o);
/* Loads or generates the graph; exactly one of --graph/--generate must be given. */
TopoGraph *cli_graph_options_build(const CliGraphOptions *o, GError **error);
gboolean cli_graph_options_gossip(const CliGraphOptions *o, TopoGossipKind *kind,
                                  GError **error);
void cli_graph_options_clear(CliGraphOptions *o);

/* ---- Output ---- */

typedef enum { CLI_FORMAT_TABLE, CLI_FORMAT_JSON, CLI_FORMAT_CSV } CliFormat;

/* Parses --format; @allowed is a bitmask of (1 << CliFormat). */
gboolean cli_format_parse(const char *name, guint allowed, CliFormat *out, GError **error);
/* Pretty-prints @root (taken) on stdout followed by a newline. */
void cli_print_json(JsonNode *root);

/* Parses argv with @ctx; on failure prints the error and a hint, returns FALSE. */
gboolean cli_parse(GOptionContext *ctx, int *argc, char ***argv);
/* Prints "dpgossip <cmd>: <message>" on stderr, frees @error, returns @status. */
int cli_fail(const char *cmd, GError *error, int status);

/* ---- BEGIN plugin options (issue 8; cli/plugin_options.c) ----
 * --protocol-plugin PATH.so, repeatable, for any command that runs a
 * protocol: loads each plugin (protocols/protocols.h, proto_plugin_load) so
 * that --protocol can name its protocol. */

typedef struct {
  char **paths; /* --protocol-plugin FILE (repeatable) */
  char *single; /* the protocol of the only plugin given, after loading */
} CliPluginOptions;

/* Adds --protocol-plugin to @ctx's main group (@o must outlive parsing). */
void cli_plugin_options_add(GOptionContext *ctx, CliPluginOptions *o);
/*
 * Loads every plugin given, in order. When exactly one was given,
 * o->single receives its protocol name: commands use it as the default
 * --protocol. Errors: those of proto_plugin_load (exit status 2: the file
 * is the user's option).
 */
gboolean cli_plugin_options_load(CliPluginOptions *o, GError **error);
/* cli_plugin_load_paths: the same for a NULL-terminated list of paths
 * (nullable), e.g. from a scenario; *@single as above (nullable, g_free). */
gboolean cli_plugin_load_paths(char *const *paths, char **single, GError **error);
void cli_plugin_options_clear(CliPluginOptions *o);

/* ---- END plugin options ---- */

G_END_DECLS

#endif /* DPG_CLI_H */
