/*
 * tests/protocols/test_account_ball.c: --path local on the observer path's
 * ball (protocols/account_ball.c; docs/local-bounds.md, "The observer
 * path's ball"): the whole run simulated, its provenance kept over the
 * ball (sim_lin_space_keep_nodes), the attackers and the shell observing.
 *
 * - Zip-DL (PNDP, SecLDP, LDP; one attacker and a pair; b = 1 and 2; sync,
 *   deadline and stale modes): the local value of every victim is >= the
 *   observer path's exact value on the whole graph at every radius, and
 *   equal once the ball covers the graph.
 * - D-SGD, a second method: the ball on the observer path equals the
 *   structured local path at every radius under SecLDP. Under PNDP the
 *   ball hears every shell node through its state (what it sends), the
 *   structured path only those its cost rule gives a relay: the ball lies
 *   between the exact value and the structured one, and equals it where
 *   every shell node hearing several ball nodes has a relay (one hearing a
 *   single ball node tells the same either way). Under LDP the ball lies
 *   between the exact value and the structured one (the structured ball
 *   gives the attackers their own noise too, docs/local-bounds.md).
 * - A time-varying schedule within the graph's edges (matching).
 * - The refusals: --tightness (no mu_lower); a run whose ball node sends
 *   beyond the shell (a protocol or a schedule off the graph's edges).
 * Built a second time in tests/plugins (exporting the plugin API): the
 * example plugin gossip-pairs (point-to-point messages, proto_node_send)
 * against the observer path, in sync and deadline modes.
 */
#include <math.h>
#include <string.h>

#include "protocols/internal.h"
#include "tests/common/tolerance.h"

#define SIGMA 0.9

typedef struct {
  const char *graph, *protocol, *trust, *attackers;
  guint T, b;
  const char *mode, *latency, *loss;
  const char *accountant; /* NULL: streaming */
  const char *schedule;   /* NULL: static */
} Case;

/* Validated, planned and executed; the path must be @path. */
static ProtoAccountJob *job(const Case *c, const TopoGraph *g, const char *path, gint radius,
                            ProtoAccountPath want) {
  const char *att[] = {c->attackers, NULL};
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = (gint)c->T;
  r.interval = (gint)c->b;
  r.trust = c->trust;
  r.attackers = att;
  r.protocol = c->protocol;
  r.path = path;
  r.radius = radius;
  r.sensitivity = "exact";
  r.sigma = SIGMA;
  r.seed = "7";
  r.mode = c->mode;
  r.latency = c->latency;
  r.loss = c->loss;
  r.accountant = c->accountant;
  r.schedule = c->schedule;
  GError *e = NULL;
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_no_error(e);
  g_assert_true(proto_account_job_plan(j, g, "graph", NULL, &e));
  g_assert_no_error(e);
  g_assert_cmpint(j->path, ==, want);
  g_assert_true(proto_account_job_execute(j, &e));
  g_assert_no_error(e);
  return j;
}

/* mu of each node in @r (NAN: not a victim). */
static double *mu_by_node(const PrivReport *r, guint n) {
  double *mu = g_new(double, n);
  for (guint u = 0; u < n; u++)
    mu[u] = NAN;
  for (guint i = 0; i < r->n_victims; i++)
    mu[r->victims[i].node] = r->victims[i].mu;
  return mu;
}

/* The slack between two reports of one guarantee (on mu^2): each mu is a
 * certified SDP dual, at most 1e-9 max(1, sens^2) above its optimum
 * (mf_sdp_max's gap, sens = mu sigma), and each accountant whitens with
 * pivots down to its rank tolerance, 1e-10 of the largest, which amplifies
 * rounding by up to 1 / sqrt(1e-10) = 1e5 over sums of @terms terms. */
static double tol2(double mu2, gsize terms) {
  double s2 = mu2 * SIGMA * SIGMA;
  return 2 * 1e-9 * MAX(1.0, s2) / (SIGMA * SIGMA) + dpg_tol(1e5, (double)terms) * mu2;
}

/* @got >= @want - tol (inf >= anything; nothing finite >= inf). */
static void assert_geq(double got, double want, gsize terms) {
  if (isinf(want)) {
    g_assert_true(isinf(got));
    return;
  }
  if (isinf(got))
    return;
  dpg_test_assert_le(want * want - got * got, tol2(want * want, terms),
                     "two certified SDP duals (1e-9 gap each) and whitening at pivots >= 1e-10");
}

static void assert_equal(double got, double want, gsize terms) {
  if (isinf(want) || isinf(got)) {
    g_assert_true(isinf(want) && isinf(got));
    return;
  }
  dpg_test_assert_le(fabs(want * want - got * got), tol2(want * want, terms),
                     "two certified SDP duals (1e-9 gap each) and whitening at pivots >= 1e-10");
}

/* Every radius until the ball covers the graph: local >= the observer
 * path's exact value, equal once covered. */
static void check_against_observer(gconstpointer data) {
  const Case *c = data;
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate(c->graph, &e);
  g_assert_no_error(e);
  guint n = topo_graph_n_nodes(g);
  gsize terms = (gsize)n * c->T * 16; /* rows a victim's columns meet, at most */
  ProtoAccountJob *x = job(c, g, "observer", -1, PROTO_ACCOUNT_OBSERVER);
  double *exact = mu_by_node(x->acs[0].report, n);
  gboolean covered = FALSE;
  guint checked = 0;
  for (gint radius = 1; !covered; radius++) {
    ProtoAccountJob *l = job(c, g, "local", radius, PROTO_ACCOUNT_OBSERVER);
    const ProtoAccounting *ac = &l->acs[0];
    covered = ac->local.covered;
    g_assert_cmpuint(ac->local.radius, ==, (guint)radius);
    g_assert_cmpuint(ac->report->n_victims, ==, ac->local.ball - ac->n_attackers);
    for (guint i = 0; i < ac->report->n_victims; i++) {
      const PrivVictim *v = &ac->report->victims[i];
      g_assert_false(isnan(exact[v->node]));
      g_assert_cmpint(v->distance, <=, radius);
      if (covered) {
        assert_equal(v->mu, exact[v->node], terms);
        g_assert_cmpfloat(v->mu_lower, ==, v->mu);
      } else {
        assert_geq(v->mu, exact[v->node], terms);
        g_assert_cmpfloat(v->mu_lower, ==, 0.0); /* not computed */
      }
      checked++;
    }
    proto_account_job_free(l);
    g_assert_cmpint(radius, <, 64);
  }
  g_assert_cmpuint(checked, >, 0);
  g_free(exact);
  proto_account_job_free(x);
  topo_graph_free(g);
}

#ifndef DPG_TEST_PLUGIN_DIR
/* D-SGD: the observer path's ball against the structured local path on
 * the same job (its reports capped at the LDP value, as the job caps
 * them); LDP: between the exact value and the structured ball. */
static void check_against_structured(gconstpointer data) {
  const Case *c = data;
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate(c->graph, &e);
  g_assert_no_error(e);
  guint n = topo_graph_n_nodes(g);
  gsize terms = (gsize)n * c->T * 16;
  gboolean ldp = g_str_equal(c->trust, "ldp");
  ProtoAccountJob *x = job(c, g, "observer", -1, PROTO_ACCOUNT_OBSERVER);
  double *exact = mu_by_node(x->acs[0].report, n);
  gboolean covered = FALSE;
  guint relayed = 0, equal = 0, tighter = 0;
  for (gint radius = 1; !covered; radius++) {
    ProtoAccountJob *s = job(c, g, "local", radius, PROTO_ACCOUNT_STRUCTURED);
    ProtoRunConfig cfg = s->run;
    cfg.graph = g;
    PrivAccountOptions opt = {.b = s->b, .sensitivity = s->sensitivity, .alpha = 2, .delta = 1e-6};
    PrivLocalInfo info;
    PrivReport *ball = proto_account_ball(s, 0, &cfg, &opt, &info, &e);
    g_assert_no_error(e);
    const ProtoAccounting *ac = &s->acs[0];
    covered = info.covered;
    g_assert_cmpuint(info.ball, ==, ac->local.ball);
    g_assert_cmpuint(info.shell, ==, ac->local.shell);
    g_assert_cmpint(info.covered, ==, ac->local.covered);
    g_assert_cmpuint(ball->n_victims, ==, ac->report->n_victims);
    double cap = s->ldp_cap_known && !ldp ? s->ldp_cap : INFINITY;
    for (guint i = 0; i < ball->n_victims; i++) {
      const PrivVictim *v = &ball->victims[i], *w = &ac->report->victims[i];
      g_assert_cmpuint(v->node, ==, w->node);
      g_assert_cmpint(v->distance, ==, w->distance);
      double mine = isnan(cap) ? v->mu : fmin(v->mu, cap);
      if (ldp && !covered) {
        assert_geq(mine, exact[v->node], terms);
        assert_geq(w->mu, mine, terms);
      } else if (g_str_equal(c->trust, "pndp") && !covered) {
        /* PNDP: this ball hears every shell node through what it sends;
         * the structured ball hears the shell nodes its cost rule gives
         * no relay through what they receive, the others through their
         * rows of W: never less. */
        assert_geq(mine, exact[v->node], terms);
        assert_geq(w->mu, mine, terms);
        tighter += w->mu * w->mu - mine * mine > tol2(w->mu * w->mu, terms);
        relayed++;
      } else {
        assert_equal(mine, w->mu, terms);
        equal++;
      }
    }
    priv_report_free(ball);
    proto_account_job_free(s);
  }
  /* SecLDP: some victims are compared for equality short of the covered
   * ball; PNDP: hearing the shell's states is strictly tighter for some. */
  g_assert_cmpuint(equal, >, 0);
  if (g_str_equal(c->trust, "pndp"))
    g_assert_cmpuint(tighter, >, 0);
  if (g_test_verbose())
    g_test_message("%u victims equal, %u between exact and the structured ball (%u below it)",
                   equal, relayed, tighter);
  g_free(exact);
  proto_account_job_free(x);
  topo_graph_free(g);
}

static const Case zip_cases[] = {
    {.graph = "regular:n=24,d=3,seed=2",
     .protocol = "zipdl",
     .trust = "pndp",
     .attackers = "0",
     .T = 4,
     .b = 1},
    {.graph = "erdos:n=30,p=0.1,seed=5",
     .protocol = "zipdl",
     .trust = "pndp",
     .attackers = "3+8",
     .T = 4,
     .b = 2},
    {.graph = "barabasi:n=20,m=2,seed=1",
     .protocol = "zipdl",
     .trust = "secldp",
     .attackers = "0",
     .T = 4,
     .b = 1},
    {.graph = "erdos:n=30,p=0.1,seed=5",
     .protocol = "zipdl",
     .trust = "pndp",
     .attackers = "3+8",
     .T = 4,
     .b = 1,
     .accountant = "dense"},
    {.graph = "regular:n=24,d=3,seed=2",
     .protocol = "zipdl:units=gradient",
     .trust = "ldp",
     .attackers = "1+2",
     .T = 4,
     .b = 2},
    {.graph = "regular:n=30,d=3,seed=4",
     .protocol = "zipdl",
     .trust = "pndp",
     .attackers = "0",
     .T = 4,
     .b = 1,
     .mode = "deadline:ms=8",
     .latency = "lognormal:mu=1.5,sigma=0.6",
     .loss = "0.1"},
    {.graph = "barabasi:n=24,m=2,seed=3",
     .protocol = "zipdl",
     .trust = "secldp",
     .attackers = "2+5",
     .T = 4,
     .b = 2,
     .mode = "stale:s=1",
     .latency = "lognormal:mu=1.5,sigma=0.6",
     .loss = "0.1"},
    {.graph = "regular:n=24,d=4,seed=6",
     .protocol = "zipdl",
     .trust = "pndp",
     .attackers = "0",
     .T = 4,
     .b = 1,
     .schedule = "matching"},
    /* Long enough (T = 10) for what the ball tells the shell to come back
     * through the nodes beyond it (5 hops at radius 1): only the shell's
     * sent messages, heard, make clearing those nodes' messages sound. */
    {.graph = "regular:n=40,d=3,seed=3",
     .protocol = "zipdl",
     .trust = "pndp",
     .attackers = "0",
     .T = 10,
     .b = 1},
};

static const Case dsgd_cases[] = {
    {.graph = "erdos:n=22,p=0.15,seed=9",
     .protocol = "dsgd",
     .trust = "pndp",
     .attackers = "0",
     .T = 4,
     .b = 1},
    {.graph = "barabasi:n=24,m=2,seed=7",
     .protocol = "dsgd",
     .trust = "secldp",
     .attackers = "1+4",
     .T = 4,
     .b = 2},
    {.graph = "regular:n=24,d=3,seed=2",
     .protocol = "dsgd",
     .trust = "ldp",
     .attackers = "0",
     .T = 4,
     .b = 1},
};

/* A protocol that also tells its model to the node n / 2 ids away, off
 * the graph's edges: the ball's assumption broken. */
static gboolean far_step(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  guint n = proto_context_n_nodes(ctx), far = (proto_node_id(node) + n / 2) % n;
  SimLinvec *model = proto_node_model(node);
  return proto_node_local_step(node, t, error) && proto_node_add_local_noise(node, t, error) &&
         proto_node_send(node, far, t, 1, sim_linvec_dup(model), error) &&
         proto_node_exchange(node, t, sim_linvec_dup(model), error);
}

static gboolean far_message(ProtoNode *node, SimMessage *msg, GError **error) {
  (void)node;
  (void)msg;
  (void)error;
  return TRUE;
}

static const ProtoVTable far_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "test-far-talk",
    .summary = "D-SGD that also sends its model off the graph's edges (test)",
    .step = far_step,
    .on_message = far_message,
};

/* @r on @graph: refused after the run with @msg. */
static void refused_after_run(const ProtoAccountRequest *r, const char *graph, const char *msg) {
  GError *e = NULL;
  ProtoAccountJob *j = proto_account_validate(r, NULL, &e);
  g_assert_no_error(e);
  TopoGraph *g = topo_graph_generate(graph, &e);
  g_assert_no_error(e);
  g_assert_true(proto_account_job_plan(j, g, "graph", NULL, &e));
  g_assert_false(proto_account_job_execute(j, &e));
  g_assert_cmpstr(e->message, ==, msg);
  g_clear_error(&e);
  proto_account_job_free(j);
  topo_graph_free(g);
}

static void test_refusals(void) {
  const char *att[] = {"0", NULL};
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 4;
  r.trust = "pndp";
  r.attackers = att;
  r.protocol = "zipdl";
  r.path = "local";
  r.tightness = 2;
  GError *e = NULL;
  g_assert_null(proto_account_validate(&r, NULL, &e));
  g_assert_cmpstr(e->message, ==,
                  "--tightness 2: 'zipdl' is bounded on the observer path's ball, which computes "
                  "no mu_lower; give --radius R");
  g_clear_error(&e);
  /* Off the graph's edges, the ball does not hold what it tells the
   * outside: refused after the run. A protocol that sends beyond its
   * neighbours, */
  g_assert_true(proto_registry_register(&far_vtable, &e));
  g_assert_no_error(e);
  r.protocol = "test-far-talk";
  r.tightness = 0;
  r.radius = 1;
  refused_after_run(&r, "ring:n=12",
                    "--path local: ball node 0 sent a message to node 6, more than 2 hops from the "
                    "attackers (beyond the shell): the ball, counted on the graph's edges, does "
                    "not hold what its victims tell the outside ('test-far-talk' sends off the "
                    "graph's edges; use --path observer)");
  /* and a schedule that pairs nodes the graph does not join. */
  r.protocol = "zipdl";
  r.schedule = "matching:complete=true";
  refused_after_run(&r, "ring:n=12",
                    "--path local: ball node 1 sent a message to node 7, more than 2 hops from the "
                    "attackers (beyond the shell): the ball, counted on the graph's edges, does "
                    "not hold what its victims tell the outside ('zipdl' on --schedule "
                    "matching:complete=true sends off the graph's edges; use --path observer)");
}
#endif

#ifdef DPG_TEST_PLUGIN_DIR
static const Case plugin_cases[] = {
    {.graph = "regular:n=24,d=3,seed=2",
     .protocol = "gossip-pairs",
     .trust = "pndp",
     .attackers = "0",
     .T = 6,
     .b = 1},
    {.graph = "barabasi:n=24,m=2,seed=3",
     .protocol = "gossip-pairs:timeout_ms=6",
     .trust = "pndp",
     .attackers = "2+5",
     .T = 6,
     .b = 2,
     .mode = "deadline:ms=10",
     .latency = "lognormal:mu=1.5,sigma=0.6",
     .loss = "0.1"},
};
#endif

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#ifdef DPG_TEST_PLUGIN_DIR
  const ProtoVTable *vt = NULL;
  GError *err = NULL;
  char *path = g_build_filename(DPG_TEST_PLUGIN_DIR, "gossip-pairs." G_MODULE_SUFFIX, NULL);
  g_assert_true(proto_plugin_load(path, &vt, &err));
  g_assert_no_error(err);
  g_free(path);
  g_test_add_data_func("/account-ball/plugin/sync", &plugin_cases[0], check_against_observer);
  g_test_add_data_func("/account-ball/plugin/deadline", &plugin_cases[1], check_against_observer);
#else
  static const char *const zip_names[] = {"pndp-one",        "pndp-pair-b2", "secldp-one",
                                          "pndp-pair-dense", "ldp-pair-b2",  "deadline",
                                          "stale",           "matching",     "pndp-long"};
  for (guint i = 0; i < G_N_ELEMENTS(zip_cases); i++) {
    char *name = g_strdup_printf("/account-ball/zipdl/%s", zip_names[i]);
    g_test_add_data_func(name, &zip_cases[i], check_against_observer);
    g_free(name);
  }
  static const char *const dsgd_names[] = {"pndp", "secldp-pair-b2", "ldp"};
  for (guint i = 0; i < G_N_ELEMENTS(dsgd_cases); i++) {
    char *name = g_strdup_printf("/account-ball/dsgd-structured/%s", dsgd_names[i]);
    g_test_add_data_func(name, &dsgd_cases[i], check_against_structured);
    g_free(name);
  }
  g_test_add_func("/account-ball/refusals", test_refusals);
#endif
  return g_test_run();
}
