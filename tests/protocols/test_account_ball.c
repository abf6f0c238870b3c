/*
 * tests/protocols/test_account_ball.c: --path local on the observer path's
 * ball (protocols/account_ball.c; docs/local-bounds.md, "The observer
 * path's ball"): the whole run simulated, its provenance kept over the
 * ball (sim_lin_space_keep_nodes), observed by the attackers and, under
 * PNDP, by what the shell sends beyond itself.
 *
 * - Zip-DL (PNDP, SecLDP, LDP; one attacker and a pair; b = 1 and 2; sync,
 *   deadline and stale modes; 16 to 200 nodes) and DECOR's secrets alone:
 *   the local interval [mu_lower, mu] of every victim holds the observer
 *   path's exact value on the whole graph at every radius, and both ends
 *   equal it once the ball covers the graph; mu_lower equals it already
 *   when the ball and its shell do (account_ball_lower.c: the shell kept,
 *   no outer layer to project out), and is > 0 for the attackers'
 *   neighbours at every radius (the outer layer's messages as nuisance,
 *   projected out).
 * - D-SGD, a second method: the ball on the observer path equals the
 *   structured local path at every radius under SecLDP. Under PNDP the
 *   ball hears only what the shell sends beyond itself, the structured path
 *   the shell's states or receptions: the ball lies between the exact value
 *   and the structured one, strictly below it for some victims. Under LDP
 *   the ball lies
 *   between the exact value and the structured one (the structured ball
 *   gives the attackers their own noise too, docs/local-bounds.md).
 * - A time-varying schedule within the graph's edges (matching).
 * - The refusals: a run whose ball node sends beyond the shell (a
 *   protocol or a schedule off the graph's edges); the lower bound's, a
 *   node beyond the outer layer sending into the ball (mu_lower 0, the reason in
 *   the ball's note, the upper bound kept); its run stopped early for
 *   memory (mu_lower from the attackers' first rounds, still below exact).
 * - --tightness on these balls, its stop for time and its estimate.
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
  const char *accountant;  /* NULL: streaming */
  const char *schedule;    /* NULL: static */
  gboolean no_local_noise; /* sigma 0 (DECOR's secrets alone), else SIGMA */
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
  r.sigma = c->no_local_noise ? 0.0 : SIGMA;
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

/* mu_lower (a primal point of the exact sensitivity SDP, at most 1e-7
 * max(1, sens^2) below its optimum: mf_sdp_max's stopping gap, as
 * privacy/local_lower.c prices it) against the exact value (a dual, 1e-9
 * above), both after whitening at pivots >= 1e-10. */
static void assert_lower_equal(double lower, double exact, gsize terms) {
  if (isinf(exact) || isinf(lower)) {
    g_assert_true(isinf(exact) && isinf(lower));
    return;
  }
  double s2 = exact * exact * SIGMA * SIGMA;
  dpg_test_assert_le(fabs(exact * exact - lower * lower),
                     1e-7 * MAX(1.0, s2) / (SIGMA * SIGMA) + tol2(exact * exact, terms),
                     "a primal SDP point (1e-7 gap), a dual (1e-9) and whitening at pivots >= "
                     "1e-10");
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
  guint checked = 0, near = 0;
  gboolean pairs = g_str_has_prefix(c->protocol, "gossip-pairs");
  guint shell_last = 0; /* radii whose shell is the last layer */
  for (gint radius = 1; !covered; radius++) {
    ProtoAccountJob *l = job(c, g, "local", radius, PROTO_ACCOUNT_OBSERVER);
    g_assert_cmpstr(l->acs[0].local.lower_note, ==, "");
    const ProtoAccounting *ac = &l->acs[0];
    covered = ac->local.covered;
    /* Nothing beyond the shell: the lower bound's run is the attackers'
     * true view. */
    guint *hops = topo_graph_hops(g, ac->attackers, ac->n_attackers, n);
    gboolean last = TRUE; /* (G_MAXUINT: not connected to the attackers) */
    for (guint u = 0; u < n; u++)
      last = last && (hops[u] <= (guint)radius + 1 || hops[u] == G_MAXUINT);
    g_free(hops);
    shell_last += last && !covered;
    g_assert_cmpuint(ac->local.radius, ==, (guint)radius);
    g_assert_cmpuint(ac->report->n_victims, ==, ac->local.ball - ac->n_attackers);
    for (guint i = 0; i < ac->report->n_victims; i++) {
      const PrivVictim *v = &ac->report->victims[i];
      g_assert_false(isnan(exact[v->node]));
      g_assert_cmpint(v->distance, <=, radius);
      /* The interval [mu_lower, mu] holds the exact value, */
      if (covered) {
        assert_equal(v->mu, exact[v->node], terms);
        assert_lower_equal(v->mu_lower, exact[v->node], terms);
      } else {
        assert_geq(v->mu, exact[v->node], terms);
        if (last)
          assert_lower_equal(v->mu_lower, exact[v->node], terms);
        else
          assert_geq(exact[v->node], v->mu_lower, terms);
      }
      g_assert_cmpfloat(v->mu_lower, <=, v->mu);
      /* and the lower bound is useful next to the attackers: a
       * neighbour's round-0 message reaches them before any inflow (with
       * gossip-pairs, a neighbour may first meet them later: some). */
      if (v->distance == 1 && exact[v->node] > 0) {
        if (!pairs)
          g_assert_cmpfloat(v->mu_lower, >, 0.0);
        near += v->mu_lower > 0;
      }
      checked++;
    }
    proto_account_job_free(l);
    g_assert_cmpint(radius, <, 64);
  }
  g_assert_cmpuint(checked, >, 0);
  g_assert_cmpuint(near, >, 0);
  g_assert_cmpuint(shell_last, ==, 1);
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
        /* PNDP: this ball hears what the shell sends beyond itself; the
         * structured ball hears the shell nodes its cost rule gives no
         * relay through what they receive, the others through their rows
         * of W: never less. */
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
   * ball; PNDP: hearing only what the shell sends beyond itself is
   * strictly tighter for some. */
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
    /* Few inflows, each seen by the attacker within T: the lower bound is
     * close to the exact value, and taking one inflow message as known
     * puts it above. */
    {.graph = "ring:n=16", .protocol = "zipdl", .trust = "pndp", .attackers = "0", .T = 3, .b = 1},
    /* The lower bound on a larger graph, and DECOR's secrets alone (a
     * ball-shell secret stays unknown noise to the lower bound's attacker). */
    {.graph = "erdos:n=200,p=0.03,seed=3",
     .protocol = "zipdl",
     .trust = "pndp",
     .attackers = "0",
     .T = 3,
     .b = 1},
    {.graph = "regular:n=24,d=3,seed=2",
     .protocol = "decor:sigma_secret=1",
     .trust = "pndp",
     .attackers = "0",
     .T = 4,
     .b = 1,
     .no_local_noise = TRUE},
    {.graph = "barabasi:n=24,m=2,seed=3",
     .protocol = "decor:sigma_secret=1",
     .trust = "secldp",
     .attackers = "2+5",
     .T = 4,
     .b = 2,
     .no_local_noise = TRUE,
     .mode = "deadline:ms=8",
     .latency = "lognormal:mu=1.5,sigma=0.6",
     .loss = "0.1"},
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

/* D-SGD where node n / 2 also tells its model to node @to: from beyond
 * the outer layer of attacker 0 at radius 1 on a ring, the upper bound
 * holds (the message leaves no ball node). To node 0, the lower bound's
 * assumption (only the outer layer sends into the ball and the shell)
 * fails with the shell kept and with the ball alone; to node 2, a shell
 * node, only with the shell kept. */
static gboolean far_in_send(ProtoNode *node, guint t, guint to, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  SimLinvec *model = proto_node_model(node);
  return proto_node_local_step(node, t, error) && proto_node_add_local_noise(node, t, error) &&
         (proto_node_id(node) != proto_context_n_nodes(ctx) / 2 ||
          proto_node_send(node, to, t, 1, sim_linvec_dup(model), error)) &&
         proto_node_exchange(node, t, sim_linvec_dup(model), error);
}

static gboolean far_in_step(ProtoNode *node, guint t, GError **error) {
  return far_in_send(node, t, 0, error);
}

static gboolean far_shell_step(ProtoNode *node, guint t, GError **error) {
  return far_in_send(node, t, 2, error);
}

static const ProtoVTable far_in_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "test-far-in",
    .summary = "D-SGD whose middle node also sends its model to node 0 (test)",
    .step = far_in_step,
    .on_message = far_message,
};

static const ProtoVTable far_shell_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "test-far-shell",
    .summary = "D-SGD whose middle node also sends its model to node 2 (test)",
    .step = far_shell_step,
    .on_message = far_message,
};

/* Where the shell cannot be kept, the lower bound keeps the ball alone
 * (the shell's messages as nuisance): still below the exact value, and
 * positive next to the attacker. */
static void test_lower_coarser(void) {
  GError *e = NULL;
  g_assert_true(proto_registry_register(&far_shell_vtable, &e));
  g_assert_no_error(e);
  const Case c = {.graph = "ring:n=12",
                  .protocol = "test-far-shell",
                  .trust = "pndp",
                  .attackers = "0",
                  .T = 4,
                  .b = 1};
  TopoGraph *g = topo_graph_generate(c.graph, &e);
  g_assert_no_error(e);
  guint n = topo_graph_n_nodes(g);
  ProtoAccountJob *x = job(&c, g, "observer", -1, PROTO_ACCOUNT_OBSERVER);
  double *exact = mu_by_node(x->acs[0].report, n);
  ProtoAccountJob *l = job(&c, g, "local", 1, PROTO_ACCOUNT_OBSERVER);
  const ProtoAccounting *ac = &l->acs[0];
  g_assert_cmpstr(ac->local.lower_note, ==, "");
  g_assert_cmpuint(ac->report->n_victims, ==, 2);
  for (guint i = 0; i < ac->report->n_victims; i++) {
    const PrivVictim *v = &ac->report->victims[i];
    assert_geq(v->mu, exact[v->node], (gsize)n * c.T * 16);
    assert_geq(exact[v->node], v->mu_lower, (gsize)n * c.T * 16);
    g_assert_cmpfloat(v->mu_lower, >, 0.0);
  }
  g_free(exact);
  proto_account_job_free(l);
  proto_account_job_free(x);
  topo_graph_free(g);
}

/* Where the lower bound cannot be computed, mu_lower is 0 and the ball
 * says why; the upper bound stands. */
static void test_lower_refused(void) {
  const char *att[] = {"0", NULL};
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 4;
  r.trust = "pndp";
  r.attackers = att;
  r.protocol = "test-far-in";
  r.path = "local";
  r.radius = 1;
  r.sensitivity = "exact";
  GError *e = NULL;
  g_assert_true(proto_registry_register(&far_in_vtable, &e));
  g_assert_no_error(e);
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_no_error(e);
  TopoGraph *g = topo_graph_generate("ring:n=12", &e);
  g_assert_true(proto_account_job_plan(j, g, "graph", NULL, &e));
  g_assert_true(proto_account_job_execute(j, &e));
  g_assert_no_error(e);
  const ProtoAccounting *ac = &j->acs[0];
  g_assert_cmpstr(ac->local.lower_note, ==,
                  "not computed: node 6 (more than 2 hops from the attackers) sent a message "
                  "to node 0 (at most 1 from them)");
  g_assert_cmpuint(ac->report->n_victims, ==, 2);
  for (guint i = 0; i < ac->report->n_victims; i++) {
    g_assert_cmpfloat(ac->report->victims[i].mu_lower, ==, 0.0);
    g_assert_cmpfloat(ac->report->victims[i].mu, >, 0.0);
  }
  proto_account_job_free(j);
  topo_graph_free(g);
}

/* Over its memory budget ($DPGOSSIP_LOWER_MEMORY, tiny here) the lower
 * bound's run stops after a round: mu_lower from the attackers' first
 * rounds, still below the exact value, still positive next to them. */
static void test_lower_stopped(void) {
  const Case c = {.graph = "regular:n=40,d=3,seed=2",
                  .protocol = "zipdl",
                  .trust = "pndp",
                  .attackers = "0",
                  .T = 6,
                  .b = 1};
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate(c.graph, &e);
  g_assert_no_error(e);
  guint n = topo_graph_n_nodes(g);
  ProtoAccountJob *x = job(&c, g, "observer", -1, PROTO_ACCOUNT_OBSERVER);
  double *exact = mu_by_node(x->acs[0].report, n);
  g_setenv("DPGOSSIP_LOWER_MEMORY", "20000", TRUE);
  ProtoAccountJob *l = job(&c, g, "local", 2, PROTO_ACCOUNT_OBSERVER);
  g_unsetenv("DPGOSSIP_LOWER_MEMORY");
  const ProtoAccounting *ac = &l->acs[0];
  g_assert_cmpstr(ac->local.lower_note, ==, "");
  g_assert_cmpuint(ac->local.lower_rounds, >=, 1);
  g_assert_cmpuint(ac->local.lower_rounds, <, c.T);
  guint near = 0;
  for (guint i = 0; i < ac->report->n_victims; i++) {
    const PrivVictim *v = &ac->report->victims[i];
    assert_geq(exact[v->node], v->mu_lower, (gsize)n * c.T * 16);
    if (v->distance == 1) {
      g_assert_cmpfloat(v->mu_lower, >, 0.0);
      near++;
    }
  }
  g_assert_cmpuint(near, ==, 3);
  g_free(exact);
  proto_account_job_free(l);
  proto_account_job_free(x);
  topo_graph_free(g);
}

static gboolean once(ProtoAccountJob *j, gpointer data, GError **error) {
  (void)data;
  return proto_account_job_execute(j, error);
}

/* --tightness on the observer path's ball: with a limit of 0 s it stops
 * after radius 1, its estimate scaling the accounting by the growth of the
 * nodes within radius + 1 hops (ring:n=16 from node 0: 5 at radius 1, 7 at
 * radius 2) and keeping the two simulations as they are. */
static void test_tightness(void) {
  const char *att[] = {"0", NULL};
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 3;
  r.trust = "pndp";
  r.attackers = att;
  r.protocol = "zipdl";
  r.path = "local";
  r.tightness = 1.01;
  r.sensitivity = "exact";
  GError *e = NULL;
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_no_error(e);
  TopoGraph *g = topo_graph_generate("ring:n=16", &e);
  g_assert_true(proto_account_job_plan(j, g, "graph", NULL, &e));
  g_assert_cmpint(j->path, ==, PROTO_ACCOUNT_OBSERVER);
  g_setenv("DPGOSSIP_TIGHTNESS_SECONDS", "0", TRUE);
  g_assert_true(proto_account_job_execute_tightness(j, once, NULL, NULL, &e));
  g_unsetenv("DPGOSSIP_TIGHTNESS_SECONDS");
  g_assert_no_error(e);
  g_assert_false(j->tightness_met);
  g_assert_cmpuint(j->radius, ==, 1);
  g_assert_nonnull(strstr(j->tightness_stop, "radius 2 (5 nodes) would take about"));
  g_assert_nonnull(strstr(j->tightness_stop, " x (7 / 5)^2, the nodes accounted"));
  const PrivReport *rep = j->acs[0].report;
  for (guint i = 0; i < rep->n_victims; i++)
    g_assert_cmpfloat(rep->victims[i].mu_lower, >, 0.0);
  proto_account_job_free(j);
  topo_graph_free(g);
}

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
  GError *e = NULL;
  /* Off the graph's edges, the ball does not hold what it tells the
   * outside: refused after the run. A protocol that sends beyond its
   * neighbours, */
  g_assert_true(proto_registry_register(&far_vtable, &e));
  g_assert_no_error(e);
  r.protocol = "test-far-talk";
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
  static const char *const zip_names[] = {
      "pndp-one", "pndp-pair-b2", "secldp-one",     "pndp-pair-dense", "ldp-pair-b2",
      "deadline", "stale",        "matching",       "pndp-long",       "pndp-ring",
      "pndp-200", "pndp",         "secldp-deadline"};
  G_STATIC_ASSERT(G_N_ELEMENTS(zip_names) == G_N_ELEMENTS(zip_cases));
  for (guint i = 0; i < G_N_ELEMENTS(zip_cases); i++) {
    const char *family = g_str_has_prefix(zip_cases[i].protocol, "decor") ? "decor" : "zipdl";
    char *name = g_strdup_printf("/account-ball/%s/%s", family, zip_names[i]);
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
  g_test_add_func("/account-ball/lower-refused", test_lower_refused);
  g_test_add_func("/account-ball/lower-coarser", test_lower_coarser);
  g_test_add_func("/account-ball/lower-stopped", test_lower_stopped);
  g_test_add_func("/account-ball/tightness", test_tightness);
#endif
  return g_test_run();
}
