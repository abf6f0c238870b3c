/*
 * tests/protocols/observe_test.h: the set-up the accounting tests share: a
 * run (graph, optional schedule, protocol) observed by the privacy
 * observer's views, accounted by the dense accountant or the streaming one,
 * and the comparison of two accountings of the same views. Header-only;
 * every failure is a test assertion.
 */
#ifndef DPG_TESTS_OBSERVE_TEST_H
#define DPG_TESTS_OBSERVE_TEST_H

#include <math.h>

#include "protocols/protocols.h"

/* Attacker set @members (@n_members nodes) under @trust. */
typedef struct {
  PrivTrust trust;
  const guint *members;
  guint n_members;
} ObsView;

/* How the views are accounted: dense, priv_knowledge_blocks on each view's
 * knowledge (priv_knowledge_blocks_scaled with @scaled), or streaming with
 * @engine, @chunk_rows and @max_bytes (0: PrivStreamOptions' defaults). */
typedef struct {
  gboolean streaming;
  PrivStreamEngine engine;
  guint chunk_rows;
  gsize max_bytes;
  gboolean scaled;
} ObsAccountant;

/* What the streaming tests vary in a run; the rest is
 * proto_run_config_init's. */
typedef struct {
  const char *graph;    /* generator spec */
  const char *schedule; /* time-varying uniform gossip over the graph; NULL: static */
  guint64 schedule_seed;
  const char *protocol;
  const char *mode, *latency, *loss; /* NULL: the runtime's defaults */
  double sigma, clip;
  guint T, b;
  guint64 seed;
} ObsSpec;

/* A finished run and its observer (obs_run_clear frees everything). */
typedef struct {
  TopoGraph *graph;       /* obs_run_spec's; NULL from obs_run_config */
  TopoSchedule *schedule; /* obs_run_spec's, or NULL */
  ProtoRun *run;
  PrivObserver *obs;
  guint n_views, T; /* T: the run's gradient steps */
  double clip;
  gboolean streaming, scaled;
} ObsRun;

/*
 * Runs @cfg to the end with views @views[0 .. @n_views) attached (view i
 * has index i), accounted as @acc says (NULL: dense). The accountants cover
 * the run's T steps with @cfg's clip. The caller keeps @cfg's graph and
 * schedule. Complexity: the run's.
 */
static inline ObsRun obs_run_config(const ProtoRunConfig *cfg, const ObsView *views, guint n_views,
                                    const ObsAccountant *acc) {
  g_assert_nonnull(cfg);
  g_assert_true(views != NULL && n_views > 0);
  ObsRun o = {.n_views = n_views,
              .clip = cfg->clip,
              .streaming = acc != NULL && acc->streaming,
              .scaled = acc != NULL && acc->scaled};
  GError *err = NULL;
  o.run = proto_run_new(cfg, &err);
  g_assert_no_error(err);
  o.T = proto_context_steps(proto_run_context(o.run));
  o.obs = priv_observer_new(proto_context_space(proto_run_context(o.run)), &err);
  g_assert_no_error(err);
  for (guint v = 0; v < n_views; v++) {
    g_assert_cmpuint(
        priv_observer_add_view(o.obs, views[v].trust, views[v].members, views[v].n_members, &err),
        ==, v);
    g_assert_no_error(err);
  }
  if (o.streaming) {
    PrivStreamOptions so = {.T = o.T,
                            .clip = o.clip,
                            .engine = acc->engine,
                            .chunk_rows = acc->chunk_rows,
                            .max_bytes = acc->max_bytes};
    g_assert_true(priv_observer_set_streaming(o.obs, &so, &err));
    g_assert_no_error(err);
  }
  g_assert_true(priv_observer_attach(o.obs, sim_engine_bus(proto_run_engine(o.run)), &err));
  g_assert_no_error(err);
  g_assert_true(proto_run_run(o.run, &err));
  g_assert_no_error(err);
  return o;
}

/*
 * obs_run_config on the graph of @spec->graph (with the schedule
 * @spec->schedule over it, seed @spec->schedule_seed, when not NULL), whose
 * ObsRun owns both.
 */
static inline ObsRun obs_run_spec(const ObsSpec *spec, const ObsView *views, guint n_views,
                                  const ObsAccountant *acc) {
  g_assert_nonnull(spec);
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(spec->graph, &err);
  g_assert_no_error(err);
  TopoSchedule *sched = NULL;
  if (spec->schedule) {
    sched = topo_schedule_new(spec->schedule, g, TOPO_GOSSIP_UNIFORM, spec->schedule_seed, &err);
    g_assert_no_error(err);
  }
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = sched ? NULL : g;
  cfg.schedule = sched;
  cfg.protocol = spec->protocol;
  cfg.sigma = spec->sigma;
  cfg.clip = spec->clip;
  cfg.rounds = spec->T;
  cfg.batches = spec->b;
  cfg.mode = spec->mode;
  cfg.latency = spec->latency;
  cfg.loss = spec->loss;
  cfg.seed = spec->seed;
  ObsRun o = obs_run_config(&cfg, views, n_views, acc);
  o.graph = g;
  o.schedule = sched;
  return o;
}

/*
 * View @v's per-victim blocks (priv_blocks_free them) from the
 * accountant @o was run with; NULL and @error set when the accountant
 * fails (a streaming accountant past its memory budget: PRIV_ERROR_MEMORY).
 * Complexity: the accountant's.
 */
static inline PrivBlocks *obs_run_view_blocks(const ObsRun *o, guint v, GError **error) {
  g_assert_cmpuint(v, <, o->n_views);
  if (o->streaming)
    return priv_observer_stream_blocks(o->obs, v, error);
  PrivKnowledge *k = priv_observer_knowledge(o->obs, v, error);
  if (k == NULL)
    return NULL;
  PrivKnowledgeOptions ko = {.T = o->T, .clip = o->clip};
  PrivBlocks *b = o->scaled ? priv_knowledge_blocks_scaled(k, &ko, error)
                            : priv_knowledge_blocks(k, &ko, error);
  priv_knowledge_free(k);
  return b;
}

/* Every view's blocks (obs_blocks_free); none may fail. */
static inline PrivBlocks **obs_run_blocks(const ObsRun *o) {
  PrivBlocks **out = g_new0(PrivBlocks *, o->n_views);
  for (guint v = 0; v < o->n_views; v++) {
    GError *err = NULL;
    out[v] = obs_run_view_blocks(o, v, &err);
    g_assert_no_error(err);
    g_assert_nonnull(out[v]);
  }
  return out;
}

static inline void obs_run_clear(ObsRun *o) {
  g_clear_pointer(&o->obs, priv_observer_free);
  g_clear_pointer(&o->run, proto_run_free);
  g_clear_pointer(&o->schedule, topo_schedule_free);
  g_clear_pointer(&o->graph, topo_graph_free);
}

static inline void obs_blocks_free(PrivBlocks **b, guint n_views) {
  for (guint v = 0; v < n_views; v++)
    priv_blocks_free(b[v]);
  g_free(b);
}

/*
 * Two accountings of the same @n_views views agree: the same statuses, and
 * every entry of @got's block X_u within 1e-9 of the largest entry of
 * @want's. Returns how many (view, victim) pairs are protected with a
 * nonzero block, so that the caller can tell the comparison saw numbers.
 * Complexity: O(views n T^2).
 */
static inline guint obs_blocks_assert_same(PrivBlocks *const *want, PrivBlocks *const *got,
                                           guint n_views) {
  guint protected_seen = 0;
  for (guint v = 0; v < n_views; v++) {
    guint n = want[v]->n, T = want[v]->T;
    g_assert_cmpuint(got[v]->n, ==, n);
    g_assert_cmpuint(got[v]->T, ==, T);
    for (guint u = 0; u < n; u++) {
      g_assert_cmpint(got[v]->status[u], ==, want[v]->status[u]);
      const double *x = priv_blocks_get(want[v], u), *y = priv_blocks_get(got[v], u);
      double scale = 0.0;
      for (gsize i = 0; i < (gsize)T * T; i++)
        scale = MAX(scale, fabs(x[i]));
      for (gsize i = 0; i < (gsize)T * T; i++)
        g_assert_cmpfloat(fabs(x[i] - y[i]), <=, 1e-9 * scale);
      protected_seen += want[v]->status[u] == PRIV_NODE_PROTECTED && scale > 0;
    }
  }
  return protected_seen;
}

#endif
