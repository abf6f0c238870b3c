/*
 * tests/protocols/test_account_decor_async.c: DECOR (edge secrets) in
 * deadline and stale mode on the structured path, on the run's delivery
 * record (proto_deliveries_record), against the observer path on the same
 * run (docs/accounting-at-scale.md, "DECOR on a delivery record").
 *
 * The model: node u adds, at step t, its local noise and the secret of
 * every edge of the schedule's W_t (+ at the smaller id) to its model before
 * sending it; the gathers then average what came in time (deadline) or the
 * freshest stored inputs (stale). So the injection is the synchronous one,
 * covariance sigma^2 D + sigma_s^2 L'_t with L'_t the Laplacian of the
 * schedule's unknown-secret edges, whatever arrives; only the propagation
 * (the record's W_r) and what is seen (the messages delivered, late ones
 * included, or every message sent) come from the run. A late or lost
 * message's secret is not cancelled: its sender's model carries it, and its
 * partner's opposite one enters wherever the partner's model goes.
 *
 * Checked, block by block and report by report (b = 1 and 2), statuses
 * included: random graphs of 20 to 100 nodes, log-normal latency (median
 * e^3 = 20 ms against a 25 ms deadline: about a third of the messages
 * late) and 5% loss, deadline and stale:s=2, PNDP, LDP and SecLDP, one
 * attacker and a collusion set, sigma_secret != sigma; the Kalman engine
 * and, where every node sends (LDP, SecLDP), AUTO's closed form. The
 * record's own W_r as the secrets' edges (what the structured path did
 * before, and why `--path auto` refused DECOR on a record) gives other
 * blocks (checked, so the comparison can fail). Through `account`'s job:
 * the case the refusal cited (Florentine, T = 4, PNDP, attacker 0, every
 * message late; log-normal latency and 5% loss) is now taken by
 * `--path auto` and prints the observer path's mu.
 *
 * Tolerance: as /account-observer/deadline/deliveries: eps x cond x N of
 * the largest entry, N = n T messages, cond the largest condition number of
 * a round's innovation covariance the Kalman engine measured on the same
 * record (PrivBlocks.cond); for the closed form, which factors Q_t instead,
 * cond is at least Q_t's bound 1 + 2 (sigma_s / sigma)^2 d_max (Gershgorin,
 * d_max the largest degree of the schedule's W_t).
 */
#include <math.h>
#include <string.h>

#include "observe_test.h"
#include "privacy/structured.h"
#include "protocols/protocols.h"
#include "tests/common/tolerance.h"

#define SIGMA 0.8
#define SIGMA_S 1.3
#define T_STEPS 4

/* One run of @cfg with the views attached; the blocks of each view. */
static PrivBlocks **observe(const ProtoRunConfig *cfg, const ObsView *views, guint n_views,
                            ProtoRunStats *stats) {
  ObsRun o = obs_run_config(cfg, views, n_views, NULL);
  proto_run_get_stats(o.run, stats);
  PrivBlocks **out = obs_run_blocks(&o);
  obs_run_clear(&o);
  return out;
}

static double max_abs(const double *x, gsize len) {
  double m = 0.0;
  for (gsize i = 0; i < len; i++)
    m = MAX(m, fabs(x[i]));
  return m;
}

/* The largest |a - b| over the blocks, relative to @b's largest entry. */
static double blocks_diff(const PrivBlocks *a, const PrivBlocks *b) {
  gsize len = (gsize)a->n * a->T * a->T;
  double d = 0.0;
  for (gsize i = 0; i < len; i++)
    d = MAX(d, fabs(a->X[i] - b->X[i]));
  double scale = max_abs(b->X, len);
  return scale > 0 ? d / scale : d;
}

/* Same statuses; blocks equal to @tol relative to the largest entry. */
static void assert_blocks_equal(const PrivBlocks *a, const PrivBlocks *b, double tol) {
  g_assert_cmpuint(a->n, ==, b->n);
  g_assert_cmpuint(a->T, ==, b->T);
  for (guint u = 0; u < a->n; u++)
    g_assert_cmpint(a->status[u], ==, b->status[u]);
  double d = blocks_diff(a, b);
  g_test_message("blocks differ by %.3e of the largest entry (tolerance %.3e)", d, tol);
  dpg_test_assert_le(d, tol, "eps x cond(innovation covariances) x n T messages");
}

/* The largest |mu_a - mu_b| of two reports of blocks agreeing to @tau of
 * their largest entry @xmax (as test_account_observer.c): s2 sums at most
 * k^2 entries; |dmu| = |ds2| / (mu_a + mu_b), never more than sqrt(|ds2|). */
static double mu_tol(double tau, double xmax, guint k, double mu_a, double mu_b) {
  double ds2 = MAX(1.0, (double)k * k) * tau * xmax;
  return mu_a + mu_b > 0 ? MIN(ds2 / (mu_a + mu_b), sqrt(ds2)) : sqrt(ds2);
}

/* The reports of @obs and @sb at b = 1 and 2: same victims and statuses,
 * mu to mu_tol of the blocks' agreement @tau. */
static void assert_reports_agree(const PrivBlocks *obs, const PrivBlocks *sb, const TopoGraph *g,
                                 double tau) {
  GError *err = NULL;
  for (guint b = 1; b <= 2; b++) {
    PrivAccountOptions ao = {.b = b, .sensitivity = MF_SENSITIVITY_BOUND};
    PrivReport *ro = priv_account_report(obs, g, &ao, &err);
    g_assert_no_error(err);
    PrivReport *rs = priv_account_report(sb, g, &ao, &err);
    g_assert_no_error(err);
    g_assert_cmpuint(ro->n_victims, ==, rs->n_victims);
    for (guint i = 0; i < ro->n_victims; i++) {
      const PrivVictim *x = &ro->victims[i], *y = &rs->victims[i];
      g_assert_cmpuint(x->node, ==, y->node);
      g_assert_cmpint(x->unprotected, ==, y->unprotected);
      g_assert_cmpint(x->unresolved, ==, y->unresolved);
      gsize TT = (gsize)T_STEPS * T_STEPS;
      dpg_test_assert_le(
          fabs(x->mu - y->mu),
          mu_tol(tau, max_abs(priv_blocks_get(sb, y->node), TT), T_STEPS / b, x->mu, y->mu),
          "blocks' tolerance through mu = sqrt(s2)");
    }
    priv_report_free(ro);
    priv_report_free(rs);
  }
}

/* The structured blocks of view @v on record @d, the secrets (of
 * multiplier @sigma_s) on @secrets. */
static PrivBlocks *on_record(const ProtoDeliveries *d, const TopoGossip *const *secrets,
                             guint n_secrets, double sigma_s, const ObsView *v, PrivEngine engine) {
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DECOR,
                             .T = T_STEPS,
                             .gossip = proto_deliveries_gossip(d),
                             .n_gossip = proto_deliveries_rounds(d),
                             .messages = proto_deliveries_messages(d),
                             .n_delayed = proto_deliveries_delayed(d),
                             .secret_gossip = secrets,
                             .n_secret_gossip = n_secrets,
                             .trust = v->trust,
                             .attackers = v->members,
                             .n_attackers = v->n_members,
                             .sigma = SIGMA,
                             .sigma_secret = sigma_s,
                             .engine = engine};
  GError *err = NULL;
  PrivBlocks *b = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  return b;
}

typedef struct {
  const char *graph, *mode, *latency;
  const char *schedule; /* over the graph (churn); NULL: static */
  gboolean every_trust; /* LDP and SecLDP too, else PNDP */
  guint a;              /* the single attacker */
  guint set[3];         /* a collusion set */
  guint n_set;
} Case;

/*
 * One run of @c observed by its views; its record; each view's structured
 * blocks equal the observer's. @differs counts the views where a wrong
 * model gives other blocks (by more than 1e-6, far above the tolerance: a
 * decision, not a rounding): in deadline mode the record's W_r as the
 * secrets' edges (a late or lost message's secret dropped); in stale mode,
 * whose W_r act on the delay-augmented state, no secrets (D-SGD on the
 * same record).
 */
static void check(const Case *c, guint *differs) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(c->graph, &err);
  g_assert_no_error(err);
  guint n = topo_graph_n_nodes(g);
  /* The schedule's gossip, as the run draws the secrets on it. */
  TopoSchedule *sched = NULL;
  guint n_ws = 1;
  TopoGossip *ws[T_STEPS];
  if (c->schedule) {
    sched = topo_schedule_new(c->schedule, g, TOPO_GOSSIP_UNIFORM, 5, &err);
    g_assert_no_error(err);
    n_ws = T_STEPS;
    for (guint r = 0; r < T_STEPS; r++) {
      ws[r] = topo_schedule_gossip(sched, r, &err);
      g_assert_no_error(err);
    }
  } else {
    ws[0] = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
    g_assert_no_error(err);
  }
  const TopoGossip *const *secrets = (const TopoGossip *const *)ws;
  ObsView views[] = {{PRIV_TRUST_PNDP, &c->a, 1},
                     {PRIV_TRUST_PNDP, c->set, c->n_set},
                     {PRIV_TRUST_SECLDP, &c->a, 1},
                     {PRIV_TRUST_SECLDP, c->set, c->n_set},
                     {PRIV_TRUST_LDP, &c->a, 1}};
  guint nv = c->every_trust ? G_N_ELEMENTS(views) : 2;
  char *proto = g_strdup_printf("decor:sigma_secret=%.17g", SIGMA_S);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = sched ? NULL : g;
  cfg.schedule = sched;
  cfg.protocol = proto;
  cfg.rounds = T_STEPS;
  cfg.sigma = SIGMA;
  cfg.lr = 0.3;
  cfg.mode = c->mode;
  cfg.latency = c->latency;
  cfg.loss = "0.05";
  cfg.seed = 11;
  ProtoRunStats st;
  PrivBlocks **obs = observe(&cfg, views, nv, &st);
  ProtoDeliveries *d = proto_deliveries_record(&cfg, T_STEPS, NULL, NULL, &err);
  g_assert_no_error(err);
  guint64 late, partial, lost;
  proto_deliveries_counts(d, &late, &partial, &lost);
  /* The record is the observed run's, and not the nominal gossip. */
  g_assert_cmpuint(late, ==, st.late_discarded);
  g_assert_cmpuint(partial, ==, st.partial_gathers);
  g_assert_cmpuint(lost, ==, st.engine.dropped_loss);
  g_assert_cmpuint(lost, >, 0);
  if (g_str_has_prefix(c->mode, "stale"))
    g_assert_cmpuint(proto_deliveries_delayed(d), >, 0);
  else
    g_assert_cmpuint(partial, >, 0);
  /* Q_t's condition bound for the closed form: 1 + 2 rho^2 d_max. */
  guint dmax = 0;
  for (guint r = 0; r < n_ws; r++)
    for (guint u = 0; u < n; u++) {
      const guint *cols;
      const double *vals;
      dmax = MAX(dmax, topo_gossip_row(ws[r], u, &cols, &vals));
    }
  double q_cond = 1.0 + 2.0 * (SIGMA_S / SIGMA) * (SIGMA_S / SIGMA) * dmax;
  for (guint v = 0; v < nv; v++) {
    PrivBlocks *kb = on_record(d, secrets, n_ws, SIGMA_S, &views[v], PRIV_ENGINE_KALMAN);
    double tau = dpg_tol(MAX(kb->cond, obs[v]->cond), (double)n * T_STEPS);
    assert_blocks_equal(obs[v], kb, tau);
    assert_reports_agree(obs[v], kb, g, tau);
    if (views[v].trust != PRIV_TRUST_PNDP) {
      /* AUTO: the closed form where every node sends in every round (not
       * under churn: the Kalman engine again). */
      PrivBlocks *ab = on_record(d, secrets, n_ws, SIGMA_S, &views[v], PRIV_ENGINE_AUTO);
      assert_blocks_equal(obs[v], ab, dpg_tol(MAX(kb->cond, q_cond), (double)n * T_STEPS));
      priv_blocks_free(ab);
    }
    PrivBlocks *rb = proto_deliveries_delayed(d) == 0
                         ? on_record(d, proto_deliveries_gossip(d), proto_deliveries_rounds(d),
                                     SIGMA_S, &views[v], PRIV_ENGINE_KALMAN)
                         : on_record(d, secrets, n_ws, 0.0, &views[v], PRIV_ENGINE_KALMAN);
    *differs += blocks_diff(rb, obs[v]) > 1e-6;
    priv_blocks_free(rb);
    priv_blocks_free(kb);
  }
  for (guint v = 0; v < nv; v++)
    priv_blocks_free(obs[v]);
  g_free(obs);
  proto_deliveries_free(d);
  g_free(proto);
  for (guint r = 0; r < n_ws; r++)
    topo_gossip_free(ws[r]);
  if (sched)
    topo_schedule_free(sched);
  topo_graph_free(g);
}

#define LOGNORMAL "lognormal:mu=3,sigma=0.5"

static void test_deadline(void) {
  static const Case cases[] = {
      {"florentine", "deadline:ms=25", LOGNORMAL, NULL, TRUE, 0, {1, 5, 7}, 3},
      {"erdos:n=20,p=0.3,seed=4,connected=true",
       "deadline:ms=25",
       LOGNORMAL,
       NULL,
       TRUE,
       2,
       {1, 5, 7},
       3},
      {"regular:n=60,d=4,seed=3", "deadline:ms=25", LOGNORMAL, NULL, TRUE, 9, {0, 30}, 2},
      {"barabasi:n=100,m=2,seed=5", "deadline:ms=25", LOGNORMAL, NULL, FALSE, 17, {3, 50, 99}, 3},
      /* Markov churn: an offline node neither sends nor gathers, and has no
       * edge (so no secret) in the schedule's W_t. */
      {"regular:n=40,d=4,seed=3",
       "deadline:ms=25",
       LOGNORMAL,
       "churn:leave=0.2,join=0.5",
       TRUE,
       0,
       {0, 30},
       2},
      /* Every message late: each gather keeps its own model only. */
      {"florentine", "deadline:ms=25", "constant:ms=100", NULL, TRUE, 0, {1, 5, 7}, 3},
  };
  guint differs = 0;
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    check(&cases[i], &differs);
  g_assert_cmpuint(differs, >=, 1);
}

static void test_stale(void) {
  static const Case cases[] = {
      {"erdos:n=20,p=0.3,seed=4,connected=true",
       "stale:s=2",
       LOGNORMAL,
       NULL,
       TRUE,
       2,
       {1, 5, 7},
       3},
      {"regular:n=60,d=4,seed=3", "stale:s=2", LOGNORMAL, NULL, FALSE, 9, {0, 30}, 2},
      {"regular:n=40,d=4,seed=3",
       "stale:s=2",
       LOGNORMAL,
       "churn:leave=0.2,join=0.5",
       FALSE,
       0,
       {0, 30},
       2},
  };
  guint differs = 0;
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    check(&cases[i], &differs);
  g_assert_cmpuint(differs, >=, 1);
}

/* A record without the schedule's gossip, or with gossip on other nodes:
 * refused, saying what is missing. */
static void test_refusals(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  TopoGraph *h = topo_graph_generate("ring:n=5", &err);
  g_assert_no_error(err);
  TopoGossip *wh = topo_gossip_new(h, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "decor";
  cfg.rounds = T_STEPS;
  cfg.mode = "deadline:ms=25";
  cfg.latency = LOGNORMAL;
  ProtoDeliveries *d = proto_deliveries_record(&cfg, T_STEPS, NULL, NULL, &err);
  g_assert_no_error(err);
  const guint a = 0;
  const ObsView v = {PRIV_TRUST_PNDP, &a, 1};
  const TopoGossip *const other[] = {wh};
  const struct {
    const TopoGossip *const *secrets;
    const char *msg;
  } cases[] = {
      {NULL, "DECOR on a run's messages needs the schedule's gossip (secret_gossip): the secrets "
             "are on its edges, late and lost messages' included, not on the W_r the gathers "
             "applied"},
      {other, "DECOR's secret gossip must be on the run's nodes (the gossip matrices' dimension "
              "less the delayed slots)"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DECOR,
                               .T = T_STEPS,
                               .gossip = proto_deliveries_gossip(d),
                               .n_gossip = proto_deliveries_rounds(d),
                               .messages = proto_deliveries_messages(d),
                               .secret_gossip = cases[i].secrets,
                               .n_secret_gossip = cases[i].secrets ? 1 : 0,
                               .trust = v.trust,
                               .attackers = v.members,
                               .n_attackers = v.n_members,
                               .sigma = SIGMA,
                               .sigma_secret = SIGMA_S};
    g_assert_null(priv_structured_blocks(&p, &err));
    g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
    g_assert_cmpstr(err->message, ==, cases[i].msg);
    g_clear_error(&err);
  }
  proto_deliveries_free(d);
  topo_gossip_free(wh);
  topo_graph_free(h);
  topo_graph_free(g);
}

/* `account`'s job for DECOR on Florentine, T = 4, PNDP, attacker 0, with
 * @latency and 5% loss, deadline 25 ms, on @path (local: at @radius > 0).
 * (transfer full) */
static ProtoAccountJob *account(const char *path, const char *latency, gint radius) {
  static const char *const node0[] = {"0", NULL};
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = "decor";
  r.rounds = T_STEPS;
  r.trust = "pndp";
  r.attackers = node0;
  r.sensitivity = "exact";
  r.mode = "deadline:ms=25";
  r.latency = latency;
  r.loss = "0.05";
  r.seed = "3";
  r.path = path;
  if (radius > 0)
    r.radius = radius;
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &e);
  g_assert_no_error(e);
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_no_error(e);
  g_assert_true(proto_account_job_plan(j, g, "florentine", NULL, &e));
  g_assert_no_error(e);
  g_assert_true(proto_account_job_execute(j, &e));
  g_assert_no_error(e);
  topo_graph_free(g);
  return j;
}

/*
 * The case proto_account_recordable cited when it refused DECOR on a record
 * (victim 1 with every message late: 2 on the record's W_r against the
 * observer's 0.816; log-normal latency and 5% loss): `--path auto` takes the
 * structured path and prints the observer's mu for every victim (0.816497
 * and 0.890878 for victim 1). Tolerance: both reports solve the exact sensitivity's SDP
 * to its certified gap 1e-9 max(1, mu^2) on blocks that agree to about
 * 1e-14 (test_deadline, same graph and record model), so 1e-9 relative.
 */
static void test_account_job(void) {
  const char *latencies[] = {"constant:ms=100", LOGNORMAL}; /* every message late; a third */
  for (guint l = 0; l < G_N_ELEMENTS(latencies); l++) {
    ProtoAccountJob *a = account(NULL, latencies[l], 0), *o = account("observer", latencies[l], 0);
    g_assert_cmpint(a->path, ==, PROTO_ACCOUNT_STRUCTURED);
    const PrivReport *ra = a->acs[0].report, *ro = o->acs[0].report;
    g_assert_cmpuint(ra->n_victims, ==, ro->n_victims);
    for (guint i = 0; i < ra->n_victims; i++) {
      g_assert_cmpuint(ra->victims[i].node, ==, ro->victims[i].node);
      g_assert_cmpint(ra->victims[i].unprotected, ==, ro->victims[i].unprotected);
      dpg_test_assert_close(ra->victims[i].mu, ro->victims[i].mu,
                            1e-9 * MAX(1.0, ro->victims[i].mu * ro->victims[i].mu),
                            "the exact SDP's certified gap on blocks equal to 1e-14");
      if (ra->victims[i].node == 1 && l == 0) /* not D-SGD's sqrt(T) / sigma = 2 */
        g_assert_cmpfloat(fabs(ra->victims[i].mu - 0.816), <, 5e-4);
    }
    proto_account_job_free(a);
    proto_account_job_free(o);
  }
  /* The local path (a ball's part of the record, the secrets on the
   * static W's edges among its nodes): >= the structured path's value for
   * every victim of the ball, equal once the ball holds every node joined
   * to the attacker (radius 4 on Florentine: the same victims). Same
   * tolerance. */
  for (guint l = 0; l < G_N_ELEMENTS(latencies); l++) {
    ProtoAccountJob *a = account(NULL, latencies[l], 0);
    const PrivReport *ra = a->acs[0].report;
    const gint radii[] = {1, 4};
    for (guint k = 0; k < G_N_ELEMENTS(radii); k++) {
      ProtoAccountJob *b = account("local", latencies[l], radii[k]);
      const PrivReport *rb = b->acs[0].report;
      g_assert_cmpint(b->acs[0].local.covered, ==, k == 1);
      g_assert_cmpuint(rb->n_victims, >, 0);
      if (k == 1)
        g_assert_cmpuint(rb->n_victims, ==, ra->n_victims);
      for (guint i = 0; i < rb->n_victims; i++) {
        const PrivVictim *y = &rb->victims[i], *x = NULL;
        for (guint q = 0; q < ra->n_victims && !x; q++)
          if (ra->victims[q].node == y->node)
            x = &ra->victims[q];
        g_assert_nonnull(x);
        double tol = 1e-9 * MAX(1.0, x->mu * x->mu);
        if (k == 1)
          dpg_test_assert_close(y->mu, x->mu, tol, "covered: the exact value, to the SDP's gap");
        else
          dpg_test_assert_le(x->mu - y->mu, tol, "local >= exact, to the SDP's gap");
      }
      proto_account_job_free(b);
    }
    proto_account_job_free(a);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/account-decor-async/deadline", test_deadline);
  g_test_add_func("/account-decor-async/stale", test_stale);
  g_test_add_func("/account-decor-async/account-job", test_account_job);
  g_test_add_func("/account-decor-async/refusals", test_refusals);
  return g_test_run();
}
