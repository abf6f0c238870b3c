/*
 * cli/graph_options.c: --graph/--generate/--lcc/--gossip, shared by every
 * subcommand that works on a graph.
 */
#include <stdio.h>

#include "cli/cli.h"

void cli_graph_options_add(GOptionContext *ctx, CliGraphOptions *o) {
  GOptionEntry entries[] = {
      {"graph", 0, 0, G_OPTION_ARG_FILENAME, &o->graph_path,
       "Graph file: an edge list ('u v [weight]' per line, blanks or commas, '#' comments), "
       "CSV, GraphML, GML or Pajek, by extension (.csv, .graphml, .gml, .net; else edge list)",
       "FILE"},
      {"graph-format", 0, 0, G_OPTION_ARG_STRING, &o->format,
       "Format of --graph: auto (default: by extension), edges, csv, graphml, gml, pajek",
       "FORMAT"},
      {"ignore-weights", 0, 0, G_OPTION_ARG_NONE, &o->ignore_weights,
       "Load a weighted graph's structure alone (unequal weights are refused otherwise: the "
       "gossip matrices cannot use them)",
       NULL},
      {"generate", 0, 0, G_OPTION_ARG_STRING, &o->generate,
       "Generate a graph, e.g. erdos:n=100,p=0.05,seed=3, regular:n=64,d=4, florentine, karate",
       "SPEC"},
      {"lcc", 0, 0, G_OPTION_ARG_NONE, &o->lcc,
       "Keep only the largest connected component (nodes renumbered 0..k-1 in order)", NULL},
      {"gossip", 0, 0, G_OPTION_ARG_STRING, &o->gossip,
       "Gossip matrix: uniform (default), metropolis or maxdegree", "KIND"},
      G_OPTION_ENTRY_NULL};
  GOptionGroup *group = g_option_group_new("graph", "Graph options:", "Show graph options", NULL,
                                           NULL);
  g_option_group_add_entries(group, entries);
  /* Graph options are the point of most commands: they are the main group, so
   * plain --help lists them beside the command's own options. */
  g_option_context_set_main_group(ctx, group);
}

TopoGraph *cli_graph_options_build(const CliGraphOptions *o, GError **error) {
  TopoGraphSource src = {.path = o->graph_path,
                         .format = o->format,
                         .ignore_weights = o->ignore_weights,
                         .generate = o->generate,
                         .lcc = o->lcc};
  TopoGraph *g = topo_graph_from_source(&src, error);
  if (g != NULL && o->graph_path != NULL)
    cli_graph_load_notice(o->graph_path, g);
  return g;
}

void cli_graph_load_notice(const char *path, const TopoGraph *g) {
  const TopoLoadReport *r = topo_graph_load_report(g);
  if (r == NULL)
    return;
  if (r->weights_ignored)
    fprintf(stderr,
            "dpgossip: %s: edge weights ignored (--ignore-weights): the gossip matrix "
            "is built from the structure\n",
            path);
  if (r->latency_column)
    fprintf(stderr,
            "dpgossip: %s: directed links with a latency column: each link read as an "
            "undirected edge for gossip, the latencies not as weights (--latency "
            "links:file=%s,unit=ms gives each direction its own, a direction not listed its "
            "reverse's)\n",
            path, path);
  else if (r->directed)
    fprintf(stderr,
            "dpgossip: %s: the file declares a directed graph: each arc read as an undirected "
            "edge (gossip is symmetric)\n",
            path);
  if (r->self_loops == 0 && r->duplicates == 0 && !r->renumbered)
    return;
  GString *s = g_string_new(NULL);
  if (r->self_loops > 0)
    g_string_append_printf(s, "%" G_GUINT64_FORMAT " self-loop%s", r->self_loops,
                           r->self_loops == 1 ? "" : "s");
  guint64 repeated = r->duplicates - r->both_directions;
  if (repeated > 0)
    g_string_append_printf(s, "%s%" G_GUINT64_FORMAT " duplicate edge%s", s->len ? " and " : "",
                           repeated, repeated == 1 ? "" : "s");
  /* Each edge once per direction is how directed listings of undirected
   * graphs look (SNAP): no repetition, and said apart from one. */
  char *both = NULL;
  if (r->both_directions > 0)
    both = g_strdup_printf("%" G_GUINT64_FORMAT " edge%s listed in both directions ('u v' and "
                           "'v u'): read as undirected",
                           r->both_directions, r->both_directions == 1 ? "" : "s");
  fprintf(stderr, "dpgossip: %s: %s%s%s%s%s%s\n", path, s->len ? "dropped " : "", s->str,
          s->len && both ? "; " : "", both ? both : "",
          (s->len || both) && r->renumbered ? "; " : "",
          r->renumbered ? "node labels are not 0..n-1: kept as the nodes' names (options, "
                          "churn files and tables use them)"
                        : "");
  g_free(both);
  g_string_free(s, TRUE);
}

gboolean cli_graph_options_gossip(const CliGraphOptions *o, TopoGossipKind *kind, GError **error) {
  return topo_gossip_kind_parse(o->gossip != NULL ? o->gossip : "uniform", kind, error);
}

void cli_graph_options_clear(CliGraphOptions *o) {
  g_clear_pointer(&o->graph_path, g_free);
  g_clear_pointer(&o->generate, g_free);
  g_clear_pointer(&o->gossip, g_free);
  g_clear_pointer(&o->format, g_free);
}

const char *cli_graph_options_label(const CliGraphOptions *o) {
  return o->graph_path != NULL ? o->graph_path : o->generate != NULL ? o->generate : "the graph";
}

int cli_graph_options_status(const CliGraphOptions *o, const GError *e) {
  return proto_error_status(e, o->graph_path != NULL ? PROTO_FAILED_FILE : PROTO_FAILED_INPUT);
}
