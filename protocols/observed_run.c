/*
 * protocols/observed_run.c: one simulated run with a privacy observer on
 * its bus, one view per (attacker set, trust model), and the per-victim
 * blocks of each view after it: the observer path of `dpgossip account` and
 * of the scenarios.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include "protocols/internal.h"

struct _ProtoObservedRun {
  ProtoRun *run;
  PrivObserver *obs; /* NULL: the run is not observed */
  gboolean streaming;
  guint T;
  double clip;
};

/* Before simulating: the largest view's dense accounting. Its rows are at
 * most T x (each member's own model and the messages of its neighbours in
 * round 0's topology); its columns at most n T gradient slots and as many
 * noise variables. */
static gboolean check_memory(const ProtoRunConfig *cfg, const ProtoObserveOptions *o,
                             GError **error) {
  TopoGraph *g = cfg->schedule ? topo_schedule_graph(cfg->schedule, 0, NULL) : NULL;
  const TopoGraph *graph = cfg->schedule ? g : cfg->graph;
  if (graph == NULL)
    return TRUE; /* the run reports the schedule's error */
  gsize n = topo_graph_n_nodes(graph), rows = 0;
  for (guint i = 0; i < o->n_views; i++) {
    gsize seen = 0;
    for (guint j = 0; j < o->views[i].n_members; j++)
      if (o->views[i].members[j] < n)
        seen += 1 + topo_graph_degree(graph, o->views[i].members[j]);
    for (guint j = 0; j < o->views[i].n_hears_sent; j++)
      if (o->views[i].hears_sent[j] < n)
        seen += 1 + topo_graph_degree(graph, o->views[i].hears_sent[j]);
    rows = MAX(rows, seen);
  }
  topo_graph_free(g);
  /* A ball's run (cfg->kept) has columns for the ball's nodes only. */
  gsize cols = (cfg->kept ? cfg->n_kept : n) * (gsize)o->T;
  return priv_knowledge_check_memory(rows * (gsize)o->T, cols, cols, 0, error);
}

ProtoObservedRun *proto_observed_run_new(const ProtoRunConfig *cfg, const ProtoObserveOptions *obs,
                                         GError **error) {
  ProtoRunConfig rc = *cfg;
  if (obs != NULL) {
    rc.rebased = obs->streaming;
    /* The dense accountant's matrices; the streaming one checks its own
     * (per-victim blocks) when it is set up. */
    if (!obs->streaming && !check_memory(cfg, obs, error))
      return NULL;
  }
  ProtoObservedRun *o = g_new0(ProtoObservedRun, 1);
  o->clip = cfg->clip;
  if ((o->run = proto_run_new(&rc, error)) == NULL)
    goto fail;
  if (obs == NULL)
    return o;
  o->streaming = obs->streaming;
  o->T = obs->T;
  if ((o->obs = priv_observer_new(proto_context_space(proto_run_context(o->run)), error)) == NULL)
    goto fail;
  for (guint i = 0; i < obs->n_views; i++) {
    const ProtoObservedView *v = &obs->views[i];
    guint id = priv_observer_add_view(o->obs, v->trust, v->members, v->n_members, error);
    if (id == G_MAXUINT ||
        (v->hears_sent != NULL &&
         !priv_observer_view_hear_sent(o->obs, id, v->hears_sent, v->n_hears_sent, v->hears_sent_to,
                                       v->n_hears_sent_to, error)))
      goto fail;
  }
  PrivStreamOptions so = {.T = obs->T,
                          .clip = cfg->clip,
                          .progress = obs->progress,
                          .progress_data = obs->progress_data};
  if (obs->streaming && !priv_observer_set_streaming(o->obs, &so, error))
    goto fail;
  /* Before the first event: the observer must see every message. */
  if (!priv_observer_attach(o->obs, sim_engine_bus(proto_run_engine(o->run)), error))
    goto fail;
  return o;
fail:
  proto_observed_run_free(o);
  return NULL;
}

ProtoRun *proto_observed_run_proto(ProtoObservedRun *o) {
  return o->run;
}

gboolean proto_observed_run_run(ProtoObservedRun *o, GError **error) {
  if (!proto_run_run(o->run, error))
    return FALSE;
  if (o->obs != NULL)
    priv_observer_detach(o->obs);
  return TRUE;
}

PrivBlocks *proto_observed_run_blocks(ProtoObservedRun *o, guint view, GError **error) {
  if (o->obs == NULL) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "proto_observed_run_blocks: the run has no observer");
    return NULL;
  }
  if (o->streaming)
    return priv_observer_stream_blocks(o->obs, view, error);
  PrivKnowledge *k = priv_observer_knowledge(o->obs, view, error);
  PrivKnowledgeOptions ko = {.T = o->T, .clip = o->clip};
  PrivBlocks *blocks = k ? priv_knowledge_blocks_scaled(k, &ko, error) : NULL;
  priv_knowledge_free(k);
  return blocks;
}

PrivKnowledge *proto_observed_run_knowledge(ProtoObservedRun *o, guint view, GError **error) {
  if (o->obs == NULL || o->streaming) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "proto_observed_run_knowledge: the run has %s",
                o->obs == NULL ? "no observer" : "a streaming observer (no knowledge kept)");
    return NULL;
  }
  return priv_observer_knowledge(o->obs, view, error);
}

void proto_observed_run_free(ProtoObservedRun *o) {
  if (o == NULL)
    return;
  priv_observer_free(o->obs);
  proto_run_free(o->run);
  g_free(o);
}
