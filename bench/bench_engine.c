/*
 * bench/bench_engine.c: throughput of the event engine on one core.
 *
 *  1. null events: every node re-arms a timer from its timer handler, so each
 *     event is one pop, one dispatch and one push with nothing else to do
 *     (also the raw queue, push+pop, at the same size);
 *  2. message events: a random 4-regular graph of 100,000 nodes (igraph), one
 *     message per node hopping forever: each delivery forwards a new message
 *     to a uniformly random neighbour, latency uniform on [1, 20] ms drawn
 *     from the sender's stream.
 *
 * Usage: bench_engine [null_nodes [null_events [graph_nodes [message_events]]]]
 */
#include <igraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/sim.h"

/* Rates use the process's CPU time: on a loaded machine wall time would
 * measure the other processes too. Wall time is printed alongside. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, GError *err) {
  fprintf(stderr, "bench_engine: %s: %s\n", what, err ? err->message : "failed");
  exit(1);
}

/* ---- 1. Null events ---- */

typedef struct {
  guint64 fired;
  guint64 target;
} NullCount;

static void null_start(SimEngine *e, guint32 node, gpointer state) {
  (void)state;
  sim_engine_set_timer(e, node, 1 + node % 997, 0, NULL);
}

static void null_timer(SimEngine *e, guint32 node, gpointer state, SimEventId id, guint64 tag) {
  (void)state, (void)id, (void)tag;
  NullCount *c = sim_engine_get_user_data(e);
  if (++c->fired == c->target)
    sim_engine_stop(e);
  /* Delays vary by node so the heap sees a mix of positions, not a FIFO. */
  sim_engine_set_timer(e, node, 1000 + node % 997, 0, NULL);
}

static void bench_null(guint32 n_nodes, guint64 n_events) {
  NullCount c = {0, n_events};
  SimNodeHandlers h = {.on_start = null_start, .on_timer = null_timer};
  GError *err = NULL;
  SimEngine *e = sim_engine_new(n_nodes, 1, &h, &c, &err);
  if (!e)
    die("engine", err);
  double t0 = cpu_s(), w0 = wall_s();
  if (sim_engine_run(e, SIM_TIME_NEVER, &err) == SIM_RUN_ERROR)
    die("run", err);
  double dt = cpu_s() - t0, dw = wall_s() - w0;
  SimEngineStats st;
  sim_engine_get_stats(e, &st);
  printf("engine.null_nodes %u\n", n_nodes);
  printf("engine.null_events %" G_GUINT64_FORMAT "\n", st.events);
  printf("engine.null_cpu_seconds %.3f\n", dt);
  printf("engine.null_wall_seconds %.3f\n", dw);
  printf("engine.null_events_per_s %.4g\n", st.events / dt);
  sim_engine_free(e);

  /* The queue alone, same size and same pattern. */
  SimQueue *q = sim_queue_new(16, &err);
  guint64 payload[2] = {0, 0};
  for (guint32 i = 0; i < n_nodes; i++)
    sim_queue_push(q, 1 + i % 997, payload, NULL);
  t0 = cpu_s();
  for (guint64 k = 0; k < n_events; k++) {
    SimTime t;
    sim_queue_pop(q, &t, NULL, NULL, payload);
    sim_queue_push(q, t + 1000 + k % 997, payload, NULL);
  }
  dt = cpu_s() - t0;
  printf("engine.queue_push_pop_per_s %.4g\n", n_events / dt);
  sim_queue_free(q);
}

/* ---- 2. Message events on a random 4-regular graph ---- */

#define DEGREE 4

typedef struct {
  guint32 *nbr; /* nbr[DEGREE * u + k] */
  guint64 target;
} Forward;

static void forward(SimEngine *e, guint32 node) {
  Forward *f = sim_engine_get_user_data(e);
  gsl_rng *r = sim_engine_rng(e, node, SIM_RNG_PROTOCOL, NULL);
  guint32 to = f->nbr[DEGREE * node + gsl_rng_uniform_int(r, DEGREE)];
  SimMessage *m = sim_message_new(node, 0, 0, NULL, 8, NULL);
  sim_engine_send(e, m, to, NULL);
  sim_message_unref(m);
}

static void fwd_start(SimEngine *e, guint32 node, gpointer state) {
  (void)state;
  forward(e, node);
}

static guint64 delivered;

static void fwd_message(SimEngine *e, guint32 node, gpointer state, SimMessage *m) {
  (void)state, (void)m;
  Forward *f = sim_engine_get_user_data(e);
  if (++delivered == f->target)
    sim_engine_stop(e);
  forward(e, node);
}

static void bench_messages(guint32 n_nodes, guint64 n_events) {
  igraph_t g;
  igraph_rng_seed(igraph_rng_default(), 42);
  double t0 = cpu_s();
  if (igraph_k_regular_game(&g, n_nodes, DEGREE, IGRAPH_UNDIRECTED, false) != IGRAPH_SUCCESS)
    die("igraph_k_regular_game", NULL);
  igraph_vector_int_t edges;
  igraph_vector_int_init(&edges, 0);
  igraph_get_edgelist(&g, &edges, false);
  Forward f = {g_new(guint32, (gsize)DEGREE * n_nodes), n_events};
  guint32 *fill = g_new0(guint32, n_nodes);
  for (igraph_integer_t i = 0; i < igraph_vector_int_size(&edges); i += 2) {
    guint32 u = VECTOR(edges)[i], v = VECTOR(edges)[i + 1];
    f.nbr[DEGREE * u + fill[u]++] = v;
    f.nbr[DEGREE * v + fill[v]++] = u;
  }
  for (guint32 u = 0; u < n_nodes; u++)
    if (fill[u] != DEGREE)
      die("graph is not 4-regular", NULL);
  double t_graph = cpu_s() - t0;
  g_free(fill);
  igraph_vector_int_destroy(&edges);
  igraph_destroy(&g);

  SimNodeHandlers h = {.on_start = fwd_start, .on_message = fwd_message};
  GError *err = NULL;
  SimEngine *e = sim_engine_new(n_nodes, 1, &h, &f, &err);
  if (!e)
    die("engine", err);
  SimLinkParams p = {.loss = 0};
  if (!sim_latency_parse("uniform:min=1,max=20", &p.latency, &err) ||
      !sim_engine_set_default_link(e, &p, &err))
    die("link", err);
  t0 = cpu_s();
  double w0 = wall_s();
  if (sim_engine_run(e, SIM_TIME_NEVER, &err) == SIM_RUN_ERROR)
    die("run", err);
  double dt = cpu_s() - t0, dw = wall_s() - w0;
  SimEngineStats st;
  sim_engine_get_stats(e, &st);
  printf("engine.message_nodes %u\n", n_nodes);
  printf("engine.message_degree %d\n", DEGREE);
  printf("engine.message_latency uniform:min=1,max=20\n");
  printf("engine.message_graph_seconds %.3f\n", t_graph);
  printf("engine.message_events %" G_GUINT64_FORMAT "\n", st.messages_delivered);
  printf("engine.message_sim_seconds %.3f\n", sim_engine_now(e) / 1e9);
  printf("engine.message_cpu_seconds %.3f\n", dt);
  printf("engine.message_wall_seconds %.3f\n", dw);
  printf("engine.message_events_per_s %.4g\n", st.messages_delivered / dt);
  sim_engine_free(e);
  g_free(f.nbr);
}

int main(int argc, char **argv) {
  guint32 null_nodes = argc > 1 ? (guint32)atol(argv[1]) : 1000;
  guint64 null_events = argc > 2 ? (guint64)atoll(argv[2]) : 50000000;
  guint32 graph_nodes = argc > 3 ? (guint32)atol(argv[3]) : 100000;
  guint64 message_events = argc > 4 ? (guint64)atoll(argv[4]) : 10000000;
  bench_null(null_nodes, null_events);
  bench_messages(graph_nodes, message_events);
  return 0;
}
