/*
 * cli/stream_options.c: --publish / --record / --publish-messages /
 * --publish-wait and the start-metrics-end sequence of an event stream
 * (docs/events.md) shared by demo, train and run.
 */
#include <math.h>
#include <stdio.h>

#include "cli/cli.h"

/* Seed of the viewer's layout: fixed, so one graph is always drawn the same
 * way whatever the run's seed (a viewer compares runs on one graph). */
#define CLI_STREAM_LAYOUT_SEED 421

struct CliStream {
  Stream *stream;
  SimEngine *engine; /* borrowed; NULL once freed */
  guint bus_id;      /* our clock on its bus */
  SimTime last_t;    /* latest bus event time: the end time if the engine is gone */
  char *cmd;
  guint pace_ms; /* pause after each round */
};

/* The run may end in failure after its engine is freed (a scenario point's
 * engine dies with its run); the run end still needs a time not before the
 * events published, so follow the bus's clock. */
static void on_bus_event(const SimBusEvent *ev, gpointer data) {
  CliStream *s = data;
  if (ev->time != SIM_TIME_NEVER && ev->time > s->last_t)
    s->last_t = ev->time;
  /* The stream subscribed first, so this round is already on its way to the
   * viewer when the run pauses. */
  if (ev->kind == SIM_BUS_ROUND && s->pace_ms > 0)
    g_usleep((gulong)s->pace_ms * 1000);
}

static void on_bus_gone(gpointer data) {
  CliStream *s = data;
  if (s->engine != NULL)
    s->last_t = MAX(s->last_t, sim_engine_now(s->engine));
  s->engine = NULL;
  s->bus_id = 0;
}

void cli_stream_options_add(GOptionContext *ctx, CliStreamOptions *o) {
  o->wait_s = 1.0;
  GOptionEntry entries[] = {
      {"publish", 0, 0, G_OPTION_ARG_STRING, &o->publish,
       "publish the run's events on a ZeroMQ endpoint (see 'dpgossip viz')",
       "tcp://127.0.0.1:5556"},
      {"record", 0, 0, G_OPTION_ARG_FILENAME, &o->record,
       "record the run's events to a trace file (see 'dpgossip replay')", "FILE.trace"},
      {"publish-messages", 0, 0, G_OPTION_ARG_STRING, &o->messages,
       "which transmissions become message events: all, every:N, none (default all)", "SPEC"},
      {"publish-wait", 0, 0, G_OPTION_ARG_DOUBLE, &o->wait_s,
       "with --publish, wait up to this long for a first subscriber (default 1)", "SECONDS"},
      G_OPTION_ENTRY_NULL};
  g_option_context_add_main_entries(ctx, entries, NULL);
}

void cli_stream_options_add_pace(GOptionContext *ctx, CliStreamOptions *o) {
  GOptionEntry entries[] = {
      {"pace", 0, 0, G_OPTION_ARG_INT, &o->pace_ms,
       "with --publish, pause this long (wall clock) after each round, to watch the run live",
       "MS"},
      G_OPTION_ENTRY_NULL};
  g_option_context_add_main_entries(ctx, entries, NULL);
}

gboolean cli_stream_options_enabled(const CliStreamOptions *o) {
  return o->publish != NULL || o->record != NULL;
}

gboolean cli_stream_options_check(const CliStreamOptions *o, GError **error) {
  guint every;
  if (!stream_parse_sampling(o->messages, &every, error))
    return FALSE;
  if (!(o->wait_s >= 0 && o->wait_s <= 3600)) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_PARSE,
                "--publish-wait must be in [0, 3600] seconds (got %g)", o->wait_s);
    return FALSE;
  }
  if (o->pace_ms < 0 || o->pace_ms > 60000) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_PARSE, "--pace must be in [0, 60000] ms (got %d)",
                o->pace_ms);
    return FALSE;
  }
  if (o->pace_ms > 0 && o->publish == NULL) {
    g_set_error(error, STREAM_ERROR, STREAM_ERROR_PARSE,
                "--pace slows the run down for a live viewer: give --publish ENDPOINT too");
    return FALSE;
  }
  return TRUE;
}

void cli_stream_options_clear(CliStreamOptions *o) {
  g_clear_pointer(&o->publish, g_free);
  g_clear_pointer(&o->record, g_free);
  g_clear_pointer(&o->messages, g_free);
}

CliStream *cli_stream_start(const CliStreamOptions *o, const char *cmd, SimEngine *engine,
                            const TopoGraph *graph, const char *name, guint64 seed, guint rounds,
                            const char *scenario_json, GError **error) {
  StreamOptions so = {.publish = o->publish,
                      .record = o->record,
                      .messages = o->messages,
                      .wait_ms = o->publish != NULL ? (guint)(o->wait_s * 1000.0) : 0};
  if (o->publish != NULL && o->wait_s > 0)
    fprintf(stderr, "dpgossip %s: waiting up to %.1f s for a subscriber...\n", cmd, o->wait_s);
  Stream *stream = stream_new(&so, error);
  if (stream == NULL)
    return NULL;
  if (o->publish != NULL)
    fprintf(stderr, "dpgossip %s: publishing on %s\n", cmd, stream_endpoint(stream));
  CliStream *s = g_new0(CliStream, 1);
  s->stream = stream;
  s->engine = engine;
  s->cmd = g_strdup(cmd);
  s->pace_ms = (guint)MAX(o->pace_ms, 0);
  if (!stream_attach(stream, engine, error)) {
    cli_stream_free(s);
    return NULL;
  }
  /* The run end is enough to follow the clock (and the engine's time is read
   * while it lives): a subscription to every kind would make the engine
   * build an event per transmission, the very cost message sampling saves. */
  guint32 kinds = SIM_BUS_KIND_BIT(SIM_BUS_RUN_END);
  if (s->pace_ms > 0)
    kinds |= SIM_BUS_KIND_BIT(SIM_BUS_ROUND);
  s->bus_id = sim_bus_subscribe_kinds(sim_engine_bus(engine), kinds, on_bus_event, s, on_bus_gone,
                                      error);
  if (s->bus_id == 0) {
    cli_stream_free(s);
    return NULL;
  }
  double *xy = topo_graph_layout(graph, CLI_STREAM_LAYOUT_SEED, error);
  if (xy == NULL) {
    cli_stream_free(s);
    return NULL;
  }
  gsize n_edges = 0;
  guint *edges = topo_graph_edges(graph, &n_edges);
  /* The viewer names nodes as the tables do: by a labelled file's labels. */
  const char **labels = NULL;
  if (topo_graph_has_labels(graph)) {
    labels = g_new(const char *, topo_graph_n_nodes(graph));
    for (guint u = 0; u < topo_graph_n_nodes(graph); u++)
      labels[u] = topo_graph_node_label(graph, u);
  }
  StreamRun info = {
      .name = name,
      .command = cmd,
      .seed = seed,
      .rounds = rounds,
      .scenario_json = scenario_json,
      .n_nodes = topo_graph_n_nodes(graph),
      .edges = edges,
      .n_edges = n_edges,
      .positions = xy,
      .layout = topo_graph_n_nodes(graph) >= 3 && topo_graph_n_nodes(graph) <= TOPO_LAYOUT_KK_MAX
                    ? "kamada_kawai"
                    : "fruchterman_reingold",
      .labels = labels,
  };
  gboolean ok = stream_begin_run(stream, &info, error);
  g_free(labels);
  g_free(edges);
  g_free(xy);
  if (!ok) {
    cli_stream_free(s);
    return NULL;
  }
  return s;
}

Stream *cli_stream_sim(CliStream *s) {
  return s->stream;
}

gboolean cli_stream_publish_metrics(ProtoRun *run, SimTime t, guint step, const ProtoMetric *rows,
                                    guint n_nodes, gpointer stream, GError **error) {
  (void)run;
  (void)step;
  return cli_stream_publish_metric_rows(stream, t, rows, n_nodes, error);
}

gboolean cli_stream_publish_metric_rows(CliStream *s, SimTime t, const ProtoMetric *rows,
                                        gsize n_rows, GError **error) {
  gsize i = 0;
  while (i < n_rows) {
    gsize j = i;
    while (j < n_rows && rows[j].step == rows[i].step)
      j++;
    gsize n = j - i;
    guint32 *nodes = g_new(guint32, n);
    double *train = g_new(double, n), *test = g_new(double, n), *acc = g_new(double, n);
    gboolean any_acc = FALSE;
    for (gsize k = 0; k < n; k++) {
      nodes[k] = rows[i + k].node;
      train[k] = rows[i + k].train_loss;
      test[k] = rows[i + k].test_loss;
      acc[k] = rows[i + k].test_accuracy;
      any_acc = any_acc || !isnan(acc[k]);
    }
    /* Regression has no accuracy: leave the field out rather than n nulls. */
    gboolean ok = stream_publish_metrics(s->stream, t, rows[i].step, n, nodes, train, test,
                                         any_acc ? acc : NULL, error);
    g_free(nodes);
    g_free(train);
    g_free(test);
    g_free(acc);
    if (!ok)
      return FALSE;
    i = j;
  }
  return TRUE;
}

gboolean cli_stream_end(CliStream *s, const char *status, GError **error) {
  SimTime t = s->engine != NULL ? MAX(s->last_t, sim_engine_now(s->engine)) : s->last_t;
  gboolean ok = stream_end_run(s->stream, t, status, error);
  StreamStats st;
  stream_get_stats(s->stream, &st);
  ok = stream_finish(s->stream, ok ? error : NULL) && ok;
  fprintf(stderr,
          "dpgossip %s: stream: %" G_GUINT64_FORMAT " events published, %" G_GUINT64_FORMAT
          " dropped by slow subscribers, %" G_GUINT64_FORMAT " message events sampled out\n",
          s->cmd, st.published, st.dropped, st.messages_sampled_out);
  return ok;
}

void cli_stream_free(CliStream *s) {
  if (s == NULL)
    return;
  if (s->engine != NULL && s->bus_id != 0)
    sim_bus_unsubscribe(sim_engine_bus(s->engine), s->bus_id);
  stream_free(s->stream);
  g_free(s->cmd);
  g_free(s);
}
