/*
 * cli/cmd_graph.c: `dpgossip graph`: load or generate a graph, print its
 * summary (size, degrees, diameter, connectivity, spectral gap of W).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/graph_churn.h"
#include "cli/graph_latency.h"

/* Connected components of @g (union-find over its edges). O(m alpha(n)). */
static guint n_components(const TopoGraph *g) {
  guint n = topo_graph_n_nodes(g), k = n;
  guint *parent = g_new(guint, n);
  for (guint u = 0; u < n; u++)
    parent[u] = u;
  gsize m = 0;
  guint *e = topo_graph_edges(g, &m);
  for (gsize i = 0; i < m; i++) {
    guint a = e[2 * i], b = e[2 * i + 1];
    while (parent[a] != a)
      a = parent[a] = parent[parent[a]];
    while (parent[b] != b)
      b = parent[b] = parent[parent[b]];
    if (a != b) {
      parent[MAX(a, b)] = MIN(a, b);
      k--;
    }
  }
  g_free(e);
  g_free(parent);
  return k;
}

/* A disconnected graph's W has eigenvalue 1 once per component: its gap is
 * exactly 0, whatever rounding the eigensolver left (2.2e-16). */
static char *disconnected_note(guint components) {
  return g_strdup_printf("disconnected: %u components, gossip never mixes across them; --lcc "
                         "keeps the largest",
                         components);
}

static void print_json(const TopoSummary *s, TopoGossipKind kind, const TopoGraph *g,
                       const TopoChurnStats *churn, const char *schedule,
                       const CliGraphLatency *latency) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  cli_json_int(b, "nodes", s->nodes);
  cli_json_int(b, "edges", s->edges);
  cli_json_begin_object(b, "degree");
  cli_json_int(b, "min", s->deg_min);
  cli_json_number(b, "mean", s->deg_mean);
  cli_json_int(b, "max", s->deg_max);
  json_builder_end_object(b);
  if (s->connected && s->diameter_status == TOPO_SUMMARY_COMPUTED)
    cli_json_int(b, "diameter", s->diameter);
  else
    cli_json_null(b, "diameter"); /* infinite, or not computed (see the note) */
  if (s->diameter_status != TOPO_SUMMARY_COMPUTED) {
    char *note = topo_summary_status_note(s->diameter_status);
    cli_json_string(b, "diameter_note", note);
    g_free(note);
  }
  cli_json_bool(b, "connected", s->connected);
  guint components = n_components(g);
  cli_json_int(b, "components", components);
  cli_json_string(b, "gossip", topo_gossip_kind_name(kind));
  if (!s->connected) {
    char *note = disconnected_note(components);
    cli_json_number(b, "spectral_gap", 0.0);
    cli_json_string(b, "spectral_gap_note", note);
    g_free(note);
  } else if (s->gap_status == TOPO_SUMMARY_COMPUTED) {
    cli_json_number(b, "spectral_gap", s->spectral_gap);
  } else {
    char *note = topo_summary_status_note(s->gap_status);
    cli_json_null(b, "spectral_gap");
    cli_json_string(b, "spectral_gap_note", note);
    g_free(note);
  }
  /* What loading the file dropped or renamed (null: not from a file). */
  const TopoLoadReport *r = topo_graph_load_report(g);
  if (r != NULL) {
    cli_json_begin_object(b, "load");
    cli_json_int(b, "self_loops_dropped", (gint64)r->self_loops);
    cli_json_int(b, "duplicate_edges_dropped", (gint64)r->duplicates);
    cli_json_bool(b, "renumbered", r->renumbered);
    json_builder_end_object(b);
  } else {
    cli_json_null(b, "load");
  }
  /* The mapping: node id u (what seeds and the viewer's events use) is
   * labels[u]; only for a graph whose nodes have labels. */
  if (topo_graph_has_labels(g)) {
    cli_json_begin_array(b, "labels");
    for (guint u = 0; u < topo_graph_n_nodes(g); u++)
      json_builder_add_string_value(b, topo_graph_node_label(g, u));
    json_builder_end_array(b);
  }
  if (churn != NULL)
    cli_graph_churn_json(b, churn, schedule);
  if (latency->spec != NULL)
    cli_graph_latency_json(b, latency);
  json_builder_end_object(b);
  cli_json_print(b);
}

static void print_table(const TopoSummary *s, TopoGossipKind kind, const TopoGraph *g) {
  printf("nodes          %u\n", s->nodes);
  printf("edges          %u\n", s->edges);
  printf("degree         min %u  mean %.4f  max %u\n", s->deg_min, s->deg_mean, s->deg_max);
  if (s->diameter_status != TOPO_SUMMARY_COMPUTED) {
    char *note = topo_summary_status_note(s->diameter_status);
    printf("diameter       %s\n", note);
    g_free(note);
  } else if (s->connected) {
    printf("diameter       %d\n", s->diameter);
  } else {
    printf("diameter       infinite\n");
  }
  printf("connected      %s\n", s->connected ? "yes" : "no");
  if (!s->connected) {
    char *note = disconnected_note(n_components(g));
    printf("spectral gap   0 (%s)\n", note);
    g_free(note);
  } else if (s->gap_status != TOPO_SUMMARY_COMPUTED) {
    char *note = topo_summary_status_note(s->gap_status);
    printf("spectral gap   %s\n", note);
    g_free(note);
  } else {
    printf("spectral gap   %.6g  (1 - |lambda_2(W)|, %s gossip)\n", s->spectral_gap,
           topo_gossip_kind_name(kind));
  }
}

int cli_cmd_graph(int argc, char **argv) {
  CliGraphOptions gopt = {0};
  char *format = NULL;
  char *write_edges = NULL, *schedule = NULL, *latency = NULL;
  gboolean exact = FALSE, quiet = FALSE;
  gint rounds = 100;
  guint64 seed = 0;
  GOptionEntry entries[] = {
      {"exact", 0, 0, G_OPTION_ARG_NONE, &exact,
       "Compute the diameter and spectral gap of a large graph however long it takes (without "
       "it, graphs beyond a few seconds of work get a note instead)",
       NULL},
      {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Output format: table (default) or json",
       "FORMAT"},
      {"write-edges", 0, 0, G_OPTION_ARG_FILENAME, &write_edges,
       "Also write the graph as an edge list ('u v', u < v, sorted)", "FILE"},
      {"schedule", 0, 0, G_OPTION_ARG_STRING, &schedule,
       "Also show a schedule's churn over --rounds: the fraction of nodes online over time and "
       "session lengths (e.g. churn:trace=FILE,format=stunner,scale=600)",
       "SPEC"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &rounds, "Rounds --schedule is shown over (default 100)",
       "T"},
      {"seed", 0, 0, G_OPTION_ARG_INT64, &seed, "The run's seed for --schedule (default 0)", "N"},
      CLI_OPTION_QUIET(&quiet),
      {"latency", 0, 0, G_OPTION_ARG_STRING, &latency,
       "Also show a measured latency model's delays on the graph's links and the nodes it "
       "places (links:, country: or geo:nodes=FILE)",
       "SPEC"},
      G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "- print a graph's summary",
      .graph = &gopt,
      .entries = entries,
      .description =
          "Examples:\n"
          "  dpgossip graph --generate florentine\n"
          "  dpgossip graph --graph facebook-414.edges --lcc --format json\n"
          "  dpgossip graph --generate ring:n=100 --rounds 168 --schedule \\\n"
          "      churn:trace=data/real/stunner-sessions-100.txt.gz,format=stunner,scale=3600\n"
          "  dpgossip graph --graph data/real/pseudo-mainnet-edges-v1.csv.gz \\\n"
          "      --latency geo:nodes=data/real/pseudo-mainnet-nodes-v1.csv.gz\n"};

  int status = CLI_EXIT_USAGE;
  TopoGraph *g = NULL;
  GError *error = NULL;
  CliFormat fmt = CLI_FORMAT_TABLE;
  TopoGossipKind kind;
  TopoSummary summary;
  TopoChurnStats churn = {0};
  CliGraphLatency links = {0};
  CliProgress *progress = NULL;

  if (!cli_options_parse(&spec, &argc, &argv))
    goto out;
  if (format != NULL &&
      !cli_format_parse(format, (1u << CLI_FORMAT_TABLE) | (1u << CLI_FORMAT_JSON), &fmt, &error)) {
    status = cli_fail("graph", error, CLI_EXIT_USAGE);
    goto out;
  }
  if (!cli_graph_options_gossip(&gopt, &kind, &error)) {
    status = cli_fail("graph", error, CLI_EXIT_USAGE);
    goto out;
  }
  if (rounds <= 0) {
    fprintf(stderr, "dpgossip graph: --rounds must be positive, got %d\n", rounds);
    goto out;
  }
  if (write_edges != NULL && !cli_output_check("--write-edges", write_edges, FALSE, &error)) {
    status = cli_fail("graph", error, CLI_EXIT_FAILURE);
    goto out;
  }
  /* Reading the 10,000-node overlay, its diameter and gap, a trace or a
   * latency model each take seconds: the phase is named as they pass. */
  progress = cli_progress_new("graph", quiet);
  cli_progress_phase(progress, "building the graph");
  g = cli_graph_options_build(&gopt, &error);
  cli_progress_phase(progress, "the diameter and the spectral gap");
  if (g == NULL) {
    status = cli_fail("graph", error, cli_graph_options_status(&gopt, error));
    goto out;
  }
  if (!topo_graph_summary_exact(g, kind, exact, &summary, &error)) {
    status = cli_fail("graph", error, CLI_EXIT_FAILURE);
    goto out;
  }
  if (schedule != NULL)
    cli_progress_phase(progress, "the schedule's churn");
  if (schedule != NULL &&
      !cli_graph_churn_stats(g, schedule, kind, seed, (guint)rounds, &churn, &error)) {
    g_prefix_error(&error, "--schedule: ");
    status = cli_fail("graph", error, cli_error_status(error));
    goto out;
  }
  if (latency != NULL)
    cli_progress_phase(progress, "the latency model's delays");
  if (latency != NULL && !cli_graph_latency_stats(g, latency, &links, &error)) {
    g_prefix_error(&error, "--latency: ");
    status = cli_fail("graph", error, cli_error_status(error));
    goto out;
  }
  if (write_edges != NULL)
    cli_progress_phase(progress, "writing the edges");
  if (write_edges != NULL && !topo_graph_write_edges(g, write_edges, &error)) {
    status = cli_fail("graph", error, CLI_EXIT_FAILURE);
    goto out;
  }
  g_clear_pointer(&progress, cli_progress_free); /* its line ends before the output */
  if (fmt == CLI_FORMAT_JSON) {
    print_json(&summary, kind, g, schedule != NULL ? &churn : NULL, schedule, &links);
  } else {
    print_table(&summary, kind, g);
    if (schedule != NULL)
      cli_graph_churn_table(&churn, schedule);
    if (latency != NULL)
      cli_graph_latency_table(&links);
  }
  status = CLI_EXIT_OK;

out:
  cli_progress_free(progress);
  if (g != NULL)
    topo_graph_free(g);
  g_free(format);
  g_free(write_edges);
  g_free(schedule);
  g_free(latency);
  topo_churn_stats_clear(&churn);
  cli_graph_latency_clear(&links);
  cli_graph_options_clear(&gopt);
  return status;
}
