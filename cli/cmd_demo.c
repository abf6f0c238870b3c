/*
 * cli/cmd_demo.c: `dpgossip demo`, what `make run` shows: private gossip
 * averaging on the embedded Florentine graph, run on the event engine over
 * links with log-normal latency, with every model's provenance checked
 * against the closed form W^T. Needs no file.
 *
 * Each node u holds a private value x_u (gradient slot (u, 0)), adds its own
 * Gaussian noise once, then runs T synchronous gossip rounds: broadcast its
 * model, wait for every neighbour's model of the same round, average with the
 * uniform gossip weights. After T rounds node u's model is
 * sum_v (W^T)[u,v] (x_v + sigma z_v) exactly, which the provenance must show.
 *
 * With --publish / --record the run is also an event stream (docs/events.md):
 * the graph with a Fruchterman-Reingold layout, every transmission, round
 * events (0 before any message, then r once every node has finished r
 * rounds), and after each of them per-node metrics: the
 * "test loss" of node u is its squared distance to the average of the
 * private values, (theta_u - mean x)^2, which gossip drives to sigma-noise
 * level. --pace slows the run down in wall-clock time so a viewer can watch.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "cli/cli.h"
#include "sim/sim.h"

typedef struct DemoRun DemoRun;

typedef struct {
  DemoRun *run;
  guint32 id;
  double x;           /* the private value */
  guint round;        /* rounds completed */
  SimLinvec *model;   /* theta_round */
  SimMessage **inbox; /* [round % 2][neighbour index]: a neighbour is at most one round ahead */
  guint *n_received;  /* [round % 2] */
} DemoNode;

struct DemoRun {
  TopoGraph *graph;
  TopoGossip *gossip;
  SimLinSpace *space;
  SimEngine *engine;
  DemoNode *nodes;
  guint rounds;
  GError *error; /* first error raised inside a handler */
  /* Event stream (NULL without --publish/--record). */
  CliStream *stream;
  guint pace_ms;
  double mean_x;
  double *loss;      /* [(rounds + 1) * n]: (theta_u - mean x)^2 after each round */
  guint *round_done; /* [rounds + 1]: nodes that finished each round */
};

static guint neighbour_index(const TopoGraph *g, guint u, guint v) {
  guint deg = 0;
  const guint *nb = topo_graph_neighbors(g, u, &deg);
  for (guint i = 0; i < deg; i++)
    if (nb[i] == v)
      return i;
  return G_MAXUINT;
}

static void demo_fail(DemoRun *run, GError *error) {
  if (run->error == NULL)
    run->error = error;
  else
    g_error_free(error);
  sim_engine_stop(run->engine);
}

/* ---- Event stream ---- */

/* A round boundary, on the engine's bus where the stream and any other
 * listener hear it: @r rounds completed (docs/events.md). */
static void demo_publish_round(SimEngine *engine, guint r) {
  SimBusEvent ev = {.kind = SIM_BUS_ROUND,
                    .time = sim_engine_now(engine),
                    .seq = r,
                    .from = SIM_NODE_NONE,
                    .to = SIM_NODE_NONE,
                    .round = r,
                    .arrival = SIM_TIME_NEVER};
  sim_bus_publish(sim_engine_bus(engine), &ev);
}

/* Records node's loss after its round; when every node is done with a round,
 * publishes the round boundary (round 0 went out before any message) and
 * the round's per-node metrics. */
static void demo_round_done(SimEngine *engine, DemoNode *node) {
  DemoRun *run = node->run;
  guint n = sim_engine_n_nodes(engine);
  guint r = node->round;
  double dev = sim_linvec_const_data(node->model)[0] - run->mean_x;
  run->loss[(gsize)r * n + node->id] = dev * dev;
  if (++run->round_done[r] < n)
    return;
  if (r > 0)
    demo_publish_round(engine, r);
  GError *error = NULL;
  if (!stream_publish_metrics(cli_stream_sim(run->stream), sim_engine_now(engine), r, n, NULL, NULL,
                              run->loss + (gsize)r * n, NULL, &error))
    demo_fail(run, error);
  else if (run->pace_ms > 0)
    g_usleep((gulong)run->pace_ms * 1000);
}

/* Opens the stream, attaches it to the engine and publishes the run start. */
static gboolean demo_stream_begin(DemoRun *run, const CliStreamOptions *so, GError **error) {
  guint n = topo_graph_n_nodes(run->graph);
  run->stream = cli_stream_start(
      so, "demo", run->engine, run->graph, "demo", sim_engine_seed(run->engine), run->rounds,
      "{\"graph\":\"florentine\",\"gossip\":\"uniform\","
      "\"latency\":\"lognormal:mu=2,sigma=0.5\",\"sigma\":1,"
      "\"test_loss\":\"squared distance to the average of the private values\"}",
      error);
  if (run->stream == NULL)
    return FALSE;
  run->loss = g_new0(double, (gsize)(run->rounds + 1) * n);
  run->round_done = g_new0(guint, run->rounds + 1);
  return TRUE;
}

static void broadcast_model(SimEngine *engine, DemoNode *node) {
  DemoRun *run = node->run;
  guint deg = 0;
  const guint *nb = topo_graph_neighbors(run->graph, node->id, &deg);
  SimLinvec *copy = sim_linvec_dup(node->model);
  SimMessage *msg = sim_message_new(node->id, node->round, 0, copy, sizeof(double),
                                    (GDestroyNotify)sim_linvec_free);
  GError *error = NULL;
  if (!sim_engine_broadcast(engine, msg, (const guint32 *)nb, deg, &error))
    demo_fail(run, error);
  sim_message_unref(msg);
}

/* Averages once every neighbour's model of the current round is in. */
static void try_average(SimEngine *engine, DemoNode *node) {
  DemoRun *run = node->run;
  guint deg = 0;
  const guint *nb = topo_graph_neighbors(run->graph, node->id, &deg);
  while (node->round < run->rounds && node->n_received[node->round % 2] == deg) {
    guint slot = node->round % 2;
    GError *error = NULL;
    double w_self = topo_gossip_get(run->gossip, node->id, node->id);
    if (!sim_linvec_scale(node->model, w_self, &error)) {
      demo_fail(run, error);
      return;
    }
    for (guint i = 0; i < deg; i++) {
      SimMessage *m = node->inbox[slot * deg + i];
      const SimLinvec *theta_v = sim_message_payload(m);
      if (!sim_linvec_axpy(node->model, topo_gossip_get(run->gossip, node->id, nb[i]), theta_v,
                           &error)) {
        demo_fail(run, error);
        return;
      }
      sim_message_unref(m);
      node->inbox[slot * deg + i] = NULL;
    }
    node->n_received[slot] = 0;
    node->round++;
    if (run->stream != NULL)
      demo_round_done(engine, node);
    if (node->round < run->rounds)
      broadcast_model(engine, node);
  }
}

static void on_start(SimEngine *engine, guint32 u, gpointer state) {
  DemoNode *node = state;
  DemoRun *run = node->run;
  GError *error = NULL;
  /* The private value and the noise come from the node's own streams. */
  gsl_rng *data_rng = sim_engine_rng(engine, u, SIM_RNG_DATA, &error);
  gsl_rng *noise_rng = data_rng ? sim_engine_rng(engine, u, SIM_RNG_NOISE, &error) : NULL;
  if (noise_rng == NULL) {
    demo_fail(run, error);
    return;
  }
  if (run->stream != NULL && u == 0)
    demo_publish_round(engine, 0); /* the initial state, before any message */
  node->x = 10.0 * gsl_rng_uniform(data_rng);
  double z = gsl_ran_gaussian_ziggurat(noise_rng, 1.0);
  SimNoiseId k = sim_noise_register_local(sim_lin_space_noise(run->space), 1.0, u, 0, &error);
  if (k == SIM_NOISE_ID_INVALID ||
      !sim_linvec_add_gradient(node->model, 1.0, u, 0, &node->x, &error) ||
      !sim_linvec_add_noise(node->model, 1.0, k, &z, &error)) {
    demo_fail(run, error);
    return;
  }
  if (run->stream != NULL && u + 1 == sim_engine_n_nodes(engine)) {
    /* Every node now holds x_u + z_u: the state of round 0. */
    guint n = sim_engine_n_nodes(engine);
    run->mean_x = 0.0;
    for (guint v = 0; v < n; v++)
      run->mean_x += run->nodes[v].x / n;
    for (guint v = 0; v < n; v++) {
      run->nodes[v].round = 0;
      demo_round_done(engine, &run->nodes[v]);
    }
  }
  broadcast_model(engine, node);
}

static void on_message(SimEngine *engine, guint32 u, gpointer state, SimMessage *msg) {
  DemoNode *node = state;
  DemoRun *run = node->run;
  guint deg = 0;
  topo_graph_neighbors(run->graph, u, &deg);
  guint i = neighbour_index(run->graph, u, sim_message_from(msg));
  guint slot = sim_message_round(msg) % 2;
  g_assert(i != G_MAXUINT && node->inbox[slot * deg + i] == NULL);
  node->inbox[slot * deg + i] = sim_message_ref(msg);
  node->n_received[slot]++;
  try_average(engine, node);
}

/* (W^T)[0, :] by repeated vector-matrix products: the closed form to check. */
static double *row_of_power(const TopoGossip *w, guint row, guint power) {
  guint n = topo_gossip_n(w);
  double *dense = topo_gossip_dense(w);
  double *r = g_new0(double, n), *next = g_new0(double, n);
  r[row] = 1.0;
  for (guint p = 0; p < power; p++) {
    memset(next, 0, n * sizeof(double));
    for (guint i = 0; i < n; i++)
      for (guint j = 0; j < n; j++)
        next[j] += r[i] * dense[i * n + j];
    double *tmp = r;
    r = next;
    next = tmp;
  }
  g_free(next);
  g_free(dense);
  return r;
}

static int demo_report(DemoRun *run, const TopoSummary *summary) {
  guint n = topo_graph_n_nodes(run->graph);
  SimEngineStats stats;
  sim_engine_get_stats(run->engine, &stats);
  double mean_x = 0.0;
  for (guint v = 0; v < n; v++)
    mean_x += run->nodes[v].x / n;
  double lo = INFINITY, hi = -INFINITY;
  for (guint u = 0; u < n; u++) {
    double m = sim_linvec_const_data(run->nodes[u].model)[0];
    lo = MIN(lo, m);
    hi = MAX(hi, m);
  }
  printf("graph: Florentine families (embedded), %u nodes, %u edges, diameter %d, "
         "spectral gap %.4f\n",
         summary->nodes, summary->edges, summary->diameter, summary->spectral_gap);
  printf("run: %u synchronous gossip rounds over links with log-normal latency "
         "(ln ms ~ N(2, 0.5^2)), seed %" G_GUINT64_FORMAT "\n",
         run->rounds, sim_engine_seed(run->engine));
  printf("  simulated time %.3f ms, %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT
         " messages delivered\n",
         sim_engine_now(run->engine) / (double)SIM_TIME_MS, stats.events, stats.messages_delivered);
  printf("  average of the private values %.4f; node models now in [%.4f, %.4f]\n", mean_x, lo, hi);

  /* Provenance of node 0 against (W^T)[0, :]. */
  double *expect = row_of_power(run->gossip, 0, run->rounds);
  double worst = 0.0;
  for (guint u = 0; u < n; u++) {
    double *e = u == 0 ? expect : row_of_power(run->gossip, u, run->rounds);
    for (guint v = 0; v < n; v++) {
      double coeff = sim_linvec_grad_coeff(run->nodes[u].model, v, 0);
      worst = MAX(worst, fabs(coeff - e[v]));
    }
    if (u != 0)
      g_free(e);
  }
  const SimLinvec *m0 = run->nodes[0].model;
  printf("provenance: node 0's model = ");
  for (guint v = 0; v < MIN(n, 3u); v++)
    printf("%.4f (x_%u + z_%u) + ", sim_linvec_grad_coeff(m0, v, 0), v, v);
  printf("... over %zu private values and %zu noise variables\n", sim_linvec_nnz(m0, SIM_LIN_GRAD),
         sim_linvec_nnz(m0, SIM_LIN_NOISE));
  printf("  every node's coefficients equal (W^%u)[u, :] to %.1e (max abs deviation)\n",
         run->rounds, worst);
  g_free(expect);
  printf("\nnext: 'dpgossip help' for the commands, e.g.\n"
         "  dpgossip graph --generate erdos:n=100,p=0.05,seed=3\n"
         "  dpgossip mafalda --generate florentine --epochs 3 --batches 4\n");
  return worst < 1e-12 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int cli_cmd_demo(int argc, char **argv) {
  CliStreamOptions so = {0};
  gint pace_ms = 0;
  GOptionEntry entries[] = {{"pace", 0, 0, G_OPTION_ARG_INT, &pace_ms,
                             "pause this long (wall clock) after each round, to watch the run live",
                             "MS"},
                            {NULL, 0, 0, 0, NULL, NULL, NULL}};
  GOptionContext *ctx = g_option_context_new("- private gossip averaging on embedded data");
  cli_stream_options_add(ctx, &so);
  g_option_context_add_main_entries(ctx, entries, NULL);
  gboolean parsed = cli_parse(ctx, &argc, &argv);
  g_option_context_free(ctx);
  GError *opt_error = NULL;
  if (parsed && (!cli_stream_options_check(&so, &opt_error) || pace_ms < 0 || pace_ms > 60000)) {
    fprintf(stderr, "dpgossip demo: %s\n",
            opt_error != NULL ? opt_error->message : "--pace must be in [0, 60000] ms");
    g_clear_error(&opt_error);
    parsed = FALSE;
  }
  if (!parsed) {
    cli_stream_options_clear(&so);
    return CLI_EXIT_USAGE;
  }

  DemoRun run = {.rounds = 10, .pace_ms = (guint)pace_ms};
  GError *error = NULL;
  int status = CLI_EXIT_FAILURE;
  SimNoiseRegistry *noise = NULL;
  TopoSummary summary;
  SimLinkParams link = {0};
  guint n = 0;

  run.graph = topo_graph_generate("florentine", &error);
  if (run.graph == NULL)
    goto out;
  n = topo_graph_n_nodes(run.graph);
  run.gossip = topo_gossip_new(run.graph, TOPO_GOSSIP_UNIFORM, &error);
  if (run.gossip == NULL || !topo_graph_summary(run.graph, TOPO_GOSSIP_UNIFORM, &summary, &error))
    goto out;
  noise = sim_noise_registry_new(n, &error);
  if (noise == NULL)
    goto out;
  run.space = sim_lin_space_new(noise, 1, SIM_LIN_SPARSE, 1, &error);
  if (run.space == NULL)
    goto out;
  SimNodeHandlers handlers = {.on_start = on_start, .on_message = on_message};
  run.engine = sim_engine_new(n, 421, &handlers, &run, &error);
  if (run.engine == NULL)
    goto out;
  if (!sim_latency_parse("lognormal:mu=2,sigma=0.5", &link.latency, &error) ||
      !sim_engine_set_default_link(run.engine, &link, &error))
    goto out;
  run.nodes = g_new0(DemoNode, n);
  for (guint u = 0; u < n; u++) {
    guint deg = 0;
    topo_graph_neighbors(run.graph, u, &deg);
    run.nodes[u] = (DemoNode){.run = &run,
                              .id = u,
                              .model = sim_linvec_new(run.space),
                              .inbox = g_new0(SimMessage *, 2 * deg),
                              .n_received = g_new0(guint, 2)};
    if (!sim_engine_set_node(run.engine, u, NULL, &run.nodes[u], &error))
      goto out;
  }
  if (cli_stream_options_enabled(&so) && !demo_stream_begin(&run, &so, &error))
    goto out;
  SimRunStatus rs = sim_engine_run(run.engine, SIM_TIME_NEVER, &error);
  if (run.stream != NULL) {
    GError *stream_error = NULL;
    const char *how = rs == SIM_RUN_ERROR || run.error != NULL ? "error" : "ok";
    if (!cli_stream_end(run.stream, how, &stream_error)) {
      if (error == NULL && run.error == NULL)
        error = stream_error;
      else
        g_error_free(stream_error);
    }
  }
  if (rs == SIM_RUN_ERROR || error != NULL)
    goto out;
  if (run.error != NULL) {
    error = run.error;
    run.error = NULL;
    goto out;
  }
  printf("dpgossip demo: private gossip averaging (embedded data, no files needed)\n\n");
  status = demo_report(&run, &summary);

out:
  if (error != NULL)
    status = cli_fail("demo", error, CLI_EXIT_FAILURE);
  cli_stream_free(run.stream);
  g_free(run.loss);
  g_free(run.round_done);
  cli_stream_options_clear(&so);
  sim_engine_free(run.engine);
  if (run.nodes != NULL) {
    for (guint u = 0; u < n; u++) {
      guint deg = 0;
      topo_graph_neighbors(run.graph, u, &deg);
      for (guint i = 0; i < 2 * deg; i++)
        if (run.nodes[u].inbox[i] != NULL)
          sim_message_unref(run.nodes[u].inbox[i]);
      g_free(run.nodes[u].inbox);
      g_free(run.nodes[u].n_received);
      sim_linvec_free(run.nodes[u].model);
    }
    g_free(run.nodes);
  }
  if (run.error != NULL)
    g_error_free(run.error);
  if (run.space != NULL)
    sim_lin_space_unref(run.space);
  if (noise != NULL)
    sim_noise_registry_unref(noise);
  if (run.gossip != NULL)
    topo_gossip_free(run.gossip);
  if (run.graph != NULL)
    topo_graph_free(run.graph);
  return status;
}
