/*
 * tests/plugins/plugin_test.h: what the plugin tests share: running a
 * protocol with the privacy observer attached (PNDP views, one per
 * attacker), rebuilding the gossip matrices a pairwise protocol actually
 * used from the messages it sent, and comparing the observer's accounting
 * with privacy/'s structured formula. Header-only.
 */
#ifndef DPG_TESTS_PLUGIN_TEST_H
#define DPG_TESTS_PLUGIN_TEST_H

#include <math.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "protocols/protocols.h"
#include "tests/common/files.h"
#include "tests/privacy/blocks_diff.h"

typedef struct {
  guint from, to, round;
  guint64 tag;
} PtMsg;

/* A run observed: the observer's views are PNDP views of single attackers. */
typedef struct {
  ProtoRun *run;
  PrivObserver *obs;
  GArray *delivered; /* PtMsg */
  guint n, T;
} PtObserved;

static inline void pt_record(const SimBusEvent *ev, gpointer data) {
  if (ev->kind != SIM_BUS_MESSAGE_DELIVERED)
    return;
  PtMsg m = {ev->from, ev->to, ev->round, ev->tag};
  g_array_append_val((GArray *)data, m);
}

/* Runs @spec on @g for @T steps, accounting-only, sigma 1, latency 1 ms,
 * message loss @loss (nullable; the deadline mode then, as the runtime
 * refuses sync mode with loss). */
static inline PtObserved pt_run_observed(const TopoGraph *g, const char *spec, guint T,
                                         const guint *attackers, guint n_attackers, guint64 seed,
                                         const char *loss) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = spec;
  cfg.rounds = T;
  cfg.sigma = 1.0;
  cfg.seed = seed;
  cfg.latency = "constant:ms=1";
  cfg.loss = loss;
  cfg.mode = loss != NULL ? "deadline:ms=1000" : NULL;
  GError *err = NULL;
  PtObserved o = {0};
  o.run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  o.n = proto_context_n_nodes(proto_run_context(o.run));
  o.T = T;
  o.obs = priv_observer_new(proto_context_space(proto_run_context(o.run)), &err);
  g_assert_no_error(err);
  for (guint i = 0; i < n_attackers; i++)
    g_assert_cmpuint(priv_observer_add_view(o.obs, PRIV_TRUST_PNDP, &attackers[i], 1, &err), ==, i);
  SimBus *bus = sim_engine_bus(proto_run_engine(o.run));
  g_assert_true(priv_observer_attach(o.obs, bus, &err));
  o.delivered = g_array_new(FALSE, FALSE, sizeof(PtMsg));
  g_assert_cmpuint(sim_bus_subscribe(bus, pt_record, o.delivered, NULL, &err), >, 0);
  g_assert_true(proto_run_run(o.run, &err));
  g_assert_no_error(err);
  return o;
}

static inline void pt_observed_clear(PtObserved *o) {
  priv_observer_free(o->obs);
  proto_run_free(o->run);
  g_array_unref(o->delivered);
}

/* The observer's blocks for view @view (units of Delta: clip is 1). */
static inline PrivBlocks *pt_observer_blocks(const PtObserved *o, guint view) {
  GError *err = NULL;
  PrivKnowledge *k = priv_observer_knowledge(o->obs, view, &err);
  g_assert_no_error(err);
  PrivKnowledgeOptions opt = {.T = o->T, .clip = 1.0};
  PrivBlocks *b = priv_knowledge_blocks(k, &opt, &err);
  g_assert_no_error(err);
  priv_knowledge_free(k);
  return b;
}

/*
 * The gossip matrices a pairwise run used, rebuilt from the messages of tag
 * @tag it delivered: W_t[u,u] = W_t[u,p] = 1/2 when u received its
 * partner p's round-t message, W_t[u,u] = 1 otherwise (unmatched, or the
 * message was lost). Asserts one partner per node and round, and, when
 * @symmetric (no loss), that partners swapped messages: a matching.
 * Returns T matrices (free each with topo_gossip_free, then g_free).
 */
static inline TopoGossip **pt_matchings(const PtObserved *o, guint64 tag, gboolean symmetric) {
  guint n = o->n, T = o->T;
  guint *partner = g_new(guint, (gsize)n * T);
  for (gsize i = 0; i < (gsize)n * T; i++)
    partner[i] = G_MAXUINT;
  for (guint i = 0; i < o->delivered->len; i++) {
    const PtMsg *m = &g_array_index(o->delivered, PtMsg, i);
    if (m->tag != tag)
      continue;
    g_assert_cmpuint(m->round, <, T);
    /* partner[t n + u]: whose message u received in round t. */
    g_assert_cmpuint(partner[(gsize)m->round * n + m->to], ==, G_MAXUINT); /* one partner */
    partner[(gsize)m->round * n + m->to] = m->from;
  }
  TopoGossip **W = g_new(TopoGossip *, T);
  guint matched = 0;
  for (guint t = 0; t < T; t++) {
    guint *ptr = g_new(guint, n + 1), *cols = g_new(guint, 2 * n);
    double *vals = g_new(double, 2 * n);
    guint nnz = 0;
    for (guint u = 0; u < n; u++) {
      guint p = partner[(gsize)t * n + u];
      ptr[u] = nnz;
      if (p != G_MAXUINT) {
        if (symmetric)
          g_assert_cmpuint(partner[(gsize)t * n + p], ==, u);
        matched++;
        cols[nnz] = MIN(u, p);
        vals[nnz++] = 0.5;
        cols[nnz] = MAX(u, p);
        vals[nnz++] = 0.5;
      } else {
        cols[nnz] = u;
        vals[nnz++] = 1.0;
      }
    }
    ptr[n] = nnz;
    GError *err = NULL;
    W[t] = topo_gossip_new_csr(n, ptr, cols, vals, &err);
    g_assert_no_error(err);
    g_free(ptr);
    g_free(cols);
    g_free(vals);
  }
  g_assert_cmpuint(matched, >, 0);
  g_free(partner);
  return W;
}

/* Structured blocks of D-SGD (sigma 1) on @W (1 or T matrices), PNDP, one attacker. */
static inline PrivBlocks *pt_structured_dsgd(TopoGossip *const *W, guint n_gossip, guint T,
                                             guint attacker) {
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .K = 1,
                             .T = T,
                             .gossip = (const TopoGossip *const *)W,
                             .n_gossip = n_gossip,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = &attacker,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .engine = PRIV_ENGINE_AUTO};
  GError *err = NULL;
  PrivBlocks *b = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  g_assert_nonnull(b);
  return b;
}

/*
 * The PNDP reports (user-level, bound sensitivity) of both accountings
 * agree victim by victim; returns how many victims have a finite epsilon
 * (the others are unprotected in both or out of reach).
 */
static inline guint pt_reports_agree(const PrivBlocks *observed, const PrivBlocks *structured,
                                     const TopoGraph *g) {
  PrivAccountOptions opt = {.b = 1, .sensitivity = MF_SENSITIVITY_BOUND, .delta = 1e-6};
  GError *err = NULL;
  PrivReport *a = priv_account_report(observed, g, &opt, &err);
  g_assert_no_error(err);
  PrivReport *b = priv_account_report(structured, g, &opt, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(a->n_victims, ==, b->n_victims);
  guint finite = 0;
  for (guint i = 0; i < a->n_victims; i++) {
    const PrivVictim *x = &a->victims[i], *y = &b->victims[i];
    g_assert_cmpuint(x->node, ==, y->node);
    g_assert_cmpint(x->unprotected, ==, y->unprotected);
    if (isfinite(y->epsilon)) {
      g_assert_cmpfloat(fabs(x->epsilon - y->epsilon), <=, 1e-7 * MAX(1.0, y->epsilon));
      finite += y->epsilon > 0;
    } else {
      g_assert_false(isfinite(x->epsilon));
    }
  }
  priv_report_free(a);
  priv_report_free(b);
  return finite;
}

/*
 * Accounts the observed pairwise run (mode=pairs) under PNDP for every
 * view and checks it against the structured formula on the gossip
 * matrices the run used (pt_matchings). Returns the number of victims with
 * a finite, positive epsilon.
 */
static inline guint pt_check_pairs_accounting(const PtObserved *o, const TopoGraph *g,
                                              const guint *attackers, guint n_attackers,
                                              guint64 tag, gboolean symmetric) {
  TopoGossip **W = pt_matchings(o, tag, symmetric);
  guint finite = 0;
  for (guint i = 0; i < n_attackers; i++) {
    PrivBlocks *obs = pt_observer_blocks(o, i);
    PrivBlocks *fast = pt_structured_dsgd(W, o->T, o->T, attackers[i]);
    double diff = blocks_rel_diff(obs, fast);
    if (diff > 1e-8)
      g_error("attacker %u: observer and structured blocks differ by %g", attackers[i], diff);
    finite += pt_reports_agree(obs, fast, g);
    priv_blocks_free(obs);
    priv_blocks_free(fast);
  }
  for (guint t = 0; t < o->T; t++)
    topo_gossip_free(W[t]);
  g_free(W);
  return finite;
}

/* Copies file @from to @to (byte for byte). */
static inline void pt_copy(const char *from, const char *to) {
  char *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  g_assert_true(g_file_get_contents(from, &data, &len, &err));
  g_assert_true(g_file_set_contents(to, data, (gssize)len, &err));
  g_assert_no_error(err);
  g_free(data);
}

#endif /* DPG_TESTS_PLUGIN_TEST_H */
