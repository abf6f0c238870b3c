/*
 * tests/audit/test_async.c: audits of asynchronous runs with random latency
 * and loss (issue 41, item 4). Every run of an audit draws its latencies
 * and losses from the audit's seed (the delivery seed) and only its noise
 * from its trial's seed, so:
 *   - the audit's accounted mu is the one `account` prints for the run of
 *     that seed with the same options (D-SGD in deadline and stale mode,
 *     Mafalda and DECOR in deadline mode, log-normal latency, 5% loss), to
 *     the tolerance derived below;
 *   - the deliveries matter: another seed gives another accounted mu for
 *     some victim (so the equality above is not that of a run whose
 *     deliveries change nothing);
 *   - the np attack on those trials is sound (its interval never lies
 *     above the accounted mu) and tight (the interval reaches 0.9 mu, and
 *     the test's own mu is the accounted one).
 * Florentine, T = 4, attacker 0, victims 1 (a neighbour) and 8 (three hops
 * away), PNDP, 200 trials per world; the intervals are widened to a
 * family-wise 95% (Bonferroni over the file's checks).
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "audit/internal.h"
#include "protocols/protocols.h"
#include "tests/common/tolerance.h"

#define LATENCY "lognormal:mu=3,sigma=0.5" /* median 20 ms */
#define LOSS "0.05"
#define SEED 3
#define T_STEPS 4

typedef struct {
  const char *protocol, *mode;
} Case;

static const Case cases[] = {
    {"dsgd", "deadline:ms=25"},
    {"dsgd", "stale:s=2"},
    {"mafalda:band=2", "deadline:ms=25"},
    {"decor", "deadline:ms=25"},
};

static const guint victims[] = {1, 8};
static const guint attackers[] = {0};

static AuditConfig config(const TopoGraph *g, const Case *c, guint victim) {
  return (AuditConfig){.graph = g,
                       .protocol = c->protocol,
                       .mode = c->mode,
                       .latency = LATENCY,
                       .loss = LOSS,
                       .sigma = 1.0,
                       .T = T_STEPS,
                       .trust = PRIV_TRUST_PNDP,
                       .attackers = attackers,
                       .n_attackers = 1,
                       .victim = victim,
                       .trials = 200,
                       .seed = SEED,
                       .threads = 2};
}

/* `account`'s report for @c at @seed: PNDP against node 0, the exact
 * sensitivity (the audit's), the same network options. (transfer full) */
static ProtoAccountJob *account(const TopoGraph *g, const Case *c, const char *seed) {
  static const char *const node0[] = {"0", NULL};
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = c->protocol;
  r.rounds = T_STEPS;
  r.trust = "pndp";
  r.attackers = node0;
  r.sensitivity = "exact";
  r.mode = c->mode;
  r.latency = LATENCY;
  r.loss = LOSS;
  r.seed = seed;
  GError *e = NULL;
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  if (j == NULL || !proto_account_job_plan(j, g, "florentine", NULL, &e) ||
      !proto_account_job_execute(j, &e))
    g_error("account %s %s: %s", c->protocol, c->mode, e->message);
  return j;
}

static double victim_mu(const ProtoAccountJob *j, guint v) {
  const PrivReport *rep = j->acs[0].report;
  for (guint i = 0; i < rep->n_victims; i++)
    if (rep->victims[i].node == v)
      return rep->victims[i].mu;
  g_error("victim %u not in the report", v);
  return NAN;
}

/* The relative tolerance between two computations of mu from the same
 * view O = A G + B Z. mu^2 is the optimum of max <X, U> (U psd, diag U <= 1)
 * with X = A^T (B B^T)^+ A; each side returns a certified upper bound within
 * 1e-9 max(1, mu^2) of its own optimum (mf_sdp_max's stopping rule), and
 * |U_st| <= 1 gives |opt(X1) - opt(X2)| <= T^2 max |X1 - X2|. Each X is a
 * backward-stable factorization's product of r rows: its forward error is
 * at most eps cond(B B^T) r |X| (dpg_tol), cond read off the view's
 * eigenvalues of B B^T. So |mu1^2 - mu2^2| / mu^2 <= 2e-9 + T^2 dpg_tol,
 * and mu's relative error is at most half of that (plus the square root's
 * rounding, below eps). */
static double mu_rtol(const AuditConfig *a, double mu, GError **err) {
  gboolean *member = g_new0(gboolean, topo_graph_n_nodes(a->graph));
  member[attackers[0]] = TRUE;
  AuditView v = {0};
  AuditConfig c = *a;
  c.dim = audit_default_dim(c.T);
  if (!audit_view_new(&c, NULL, member, &v, err))
    g_error("view: %s", (*err)->message);
  double lmax = 0.0, lmin = INFINITY;
  for (guint i = 0; i < v.k; i++) {
    lmax = MAX(lmax, v.lam[i]);
    lmin = MIN(lmin, v.lam[i]);
  }
  double cond = v.k > 0 ? lmax / lmin : 1.0;
  double sdp = 2e-9 * MAX(1.0, mu * mu) / MAX(mu * mu, 1e-300);
  double rtol = 0.5 * (sdp + (double)a->T * a->T * dpg_tol(cond, v.r)) + DBL_EPSILON;
  audit_view_clear(&v);
  g_free(member);
  return rtol;
}

static void test_account_equals_audit(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  guint family = G_N_ELEMENTS(cases) * G_N_ELEMENTS(victims);
  double z = gsl_cdf_ugaussian_Qinv(0.05 / (2.0 * family));
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const Case *c = &cases[i];
    ProtoAccountJob *j = account(g, c, G_STRINGIFY(SEED));
    ProtoAccountJob *other = account(g, c, "4");
    gboolean moved = FALSE;
    for (guint k = 0; k < G_N_ELEMENTS(victims); k++) {
      AuditConfig a = config(g, c, victims[k]);
      AuditReport rep;
      if (!audit_run(&a, AUDIT_ATTACK_NP, &rep, &err))
        g_error("%s %s victim %u: %s", c->protocol, c->mode, a.victim, err->message);
      g_assert_cmpint(rep.victim_status, ==, PRIV_NODE_PROTECTED);
      double want = victim_mu(j, a.victim);
      char *why = g_strdup_printf("%s %s victim %u: the SDP's certified gap and the view's "
                                  "forward error (mu_rtol)",
                                  c->protocol, c->mode, a.victim);
      dpg_test_assert_close(rep.mu, want, mu_rtol(&a, want, &err), why);
      g_free(why);
      moved |= fabs(victim_mu(other, a.victim) - want) > 1e-6 * want;
      /* np: sound, and tight on the same trials. */
      const AuditResult *r = &rep.rows[0];
      double lo = r->mu_emp - z * r->mu_emp_se, hi = r->mu_emp + z * r->mu_emp_se;
      g_assert_cmpfloat(r->mu_test, <=, rep.mu * (1.0 + 1e-9) + 1e-12);
      if (lo > rep.mu || hi < 0.9 * rep.mu || r->mu_test < 0.9 * rep.mu)
        g_error("%s %s victim %u: test %g, [%g, %g] against the accounted %g", c->protocol, c->mode,
                a.victim, r->mu_test, lo, hi, rep.mu);
      audit_report_clear(&rep);
    }
    if (!moved)
      g_error("%s %s: seeds 3 and 4 account the same mu for every victim: the deliveries "
              "change nothing, the comparison proves nothing",
              c->protocol, c->mode);
    proto_account_job_free(j);
    proto_account_job_free(other);
  }
  topo_graph_free(g);
}

/* The trials' deliveries are the audit seed's whatever the thread count:
 * one thread and two give byte-identical scores. */
static void test_threads(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  AuditConfig a = config(g, &cases[1], 1);
  a.trials = 40;
  AuditReport one, two;
  a.threads = 1;
  g_assert_true(audit_run(&a, AUDIT_ATTACK_NP, &one, &err));
  a.threads = 2;
  g_assert_true(audit_run(&a, AUDIT_ATTACK_NP, &two, &err));
  g_assert_no_error(err);
  g_assert_cmpuint(one.n_scores, ==, two.n_scores);
  g_assert_cmpmem(one.scores, 2 * one.n_scores * sizeof(double), two.scores,
                  2 * two.n_scores * sizeof(double));
  audit_report_clear(&one);
  audit_report_clear(&two);
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/audit/async/account-equals-audit", test_account_equals_audit);
  g_test_add_func("/audit/async/threads", test_threads);
  return g_test_run();
}
