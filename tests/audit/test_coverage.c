/*
 * tests/audit/test_coverage.c: the distinguishing audit brackets the
 * accounted mu for every built-in protocol and noise strategy (D-SGD,
 * Muffliato, AntiPGD, MF-D-SGD with a dense C, banded Mafalda, the
 * Toeplitz and BLT strategies, DECOR, Zip-DL), under LDP, PNDP and SecLDP,
 * one attacker and a collusion set, synchronous and deadline mode, at
 * small sizes (Florentine, T = 4):
 *   - np: the interval reaches the accounted mu or lies below it within
 *     10% (mu_test >= 0.9 mu), and never lies above it;
 *   - learned: never lies above the accounted mu;
 *   - the canary attains the accounted mu (the SDP's optimum), within the
 *     gap its dual certificate proves (audit_slack), and the np test's own
 *     mu stays below it within the view's rounding;
 *   - without noise, the reconstruction of every victim the accountant
 *     calls unprotected is exact (relative error < 1e-8; over the steps
 *     that reach the attackers when some do not);
 *   - DECOR under PNDP and SecLDP with a collusion set: the test's view
 *     holds the values of the edge secrets the set knows, as the accountant
 *     assumes, so the test attains the accounted mu exactly;
 *   - under participation b = 2 (the victim's record every other step) and
 *     time-varying schedules, the canary on the participation pattern of
 *     the exact sensitivity attains the accounted mu, and the np interval
 *     reaches it or lies below it within 10%.
 * The intervals are widened to a family-wise 95% (Bonferroni over every
 * check of the file), so the assertions hold for any seed with probability
 * at least 95% when the protocols and the accountant are right; the seed is
 * fixed.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "audit/audit.h"
#include "audit/internal.h"
#include "mf/sensitivity.h"
#include "protocols/protocols.h"
#include "tests/common/tolerance.h"

typedef struct {
  const char *protocol;
  PrivTrust trust;
  gboolean collusion; /* attackers {0, 5}, else {0} */
  gboolean deadline;  /* deadline:ms=5 behind 10 ms links, else sync */
  guint trials;
} Case;

static const Case cases[] = {
    {"dsgd", PRIV_TRUST_PNDP, FALSE, FALSE, 200},
    {"dsgd", PRIV_TRUST_LDP, TRUE, TRUE, 200},
    {"dsgd", PRIV_TRUST_SECLDP, FALSE, FALSE, 200},
    {"muffliato:K=2", PRIV_TRUST_PNDP, TRUE, FALSE, 200},
    {"muffliato:K=2", PRIV_TRUST_LDP, FALSE, TRUE, 200},
    {"antipgd", PRIV_TRUST_PNDP, FALSE, TRUE, 200},
    {"antipgd", PRIV_TRUST_LDP, TRUE, FALSE, 200},
    {"mfdsgd:C=sr", PRIV_TRUST_PNDP, TRUE, FALSE, 200},
    {"mfdsgd:C=sr", PRIV_TRUST_LDP, FALSE, TRUE, 200},
    {"mafalda:band=2", PRIV_TRUST_PNDP, FALSE, FALSE, 200},
    {"mafalda:band=2", PRIV_TRUST_LDP, TRUE, TRUE, 200},
    {"mfdsgd:C=toeplitz,band=2", PRIV_TRUST_PNDP, TRUE, TRUE, 200},
    {"mfdsgd:C=toeplitz,band=2", PRIV_TRUST_LDP, FALSE, FALSE, 200},
    /* The BLT fit runs at every run's set-up: fewer trials. */
    {"mfdsgd:C=blt,buffers=2", PRIV_TRUST_PNDP, FALSE, FALSE, 60},
    {"decor", PRIV_TRUST_PNDP, TRUE, TRUE, 200},
    {"decor", PRIV_TRUST_LDP, FALSE, FALSE, 200},
    {"decor", PRIV_TRUST_SECLDP, FALSE, FALSE, 200},
    {"zipdl", PRIV_TRUST_PNDP, FALSE, FALSE, 200},
    {"zipdl", PRIV_TRUST_LDP, TRUE, TRUE, 200},
    {"zipdl", PRIV_TRUST_SECLDP, FALSE, FALSE, 200},
};

/* Victims: 1, a neighbour of attacker 0; 8, three hops away. */
static const guint victims[] = {1, 8};

static AuditConfig config(const TopoGraph *g, const Case *c, const guint *att, double sigma) {
  return (AuditConfig){.graph = g,
                       .protocol = c->protocol,
                       .mode = c->deadline ? "deadline:ms=5" : NULL,
                       .latency = c->deadline ? "constant:ms=10" : NULL,
                       .sigma = sigma,
                       .T = 4,
                       .trust = c->trust,
                       .attackers = att,
                       .n_attackers = c->collusion ? 2 : 1,
                       .trials = c->trials,
                       .seed = 11,
                       .threads = 2};
}

/*
 * What the numbers of an audit may differ by, measured on its own view:
 * - canary: how far mu_canary may lie below mu. The canary V is a primal
 *   point, c = <X, V V^T> <= opt, and mf_sdp_certify gives u >= opt; the
 *   accountant's mu^2 is mf_sdp_max's certified upper bound, within 1e-9 x
 *   max(1, value) of its primal on X scaled to entries in [1/2, 1), where
 *   the value is >= 1/2 (X is psd, so its largest entry is diagonal):
 *   mu^2 <= opt (1 + 2e-9). So (mu - mu_canary) / mu <= (u - c) / c + 2e-9,
 *   plus the rounding of the k-term sums (k^2 ulps);
 * - view_cond: the condition of the test's noise basis, B's largest over
 *   its smallest kept squared singular value. mu_test is computed through
 *   that pseudo-inverse, mu through the accountant's; each carries rounding
 *   relative to about cond x eps.
 */
typedef struct {
  double canary; /* relative: mu_canary >= mu (1 - canary) */
  double view_cond;
  double terms; /* r p: the received values the test sums */
} AuditSlack;

static AuditSlack audit_slack(const AuditConfig *a0) {
  GError *err = NULL;
  AuditConfig resolved = *a0, *a = &resolved; /* the model size audit_run uses */
  if (resolved.dim == 0)
    resolved.dim = audit_default_dim(resolved.T);
  guint n = topo_graph_n_nodes(a->graph);
  gboolean *is_member = g_new0(gboolean, n);
  for (guint i = 0; i < a->n_attackers; i++)
    is_member[a->attackers[i]] = TRUE;
  TopoSchedule *sched = NULL;
  AuditView v = {0};
  if (!audit_schedule_new(a, &sched, &err) || !audit_view_new(a, sched, is_member, &v, &err))
    g_error("audit_slack: %s", err->message);
  guint b = MAX(v.b, 1), k;
  double *sub = audit_pattern_block(&v, &k);
  guint q = audit_canary_width(k);
  double *V = g_new(double, (gsize)k * q);
  double *D = audit_canary_pattern(&v, q);
  for (guint i = 0; i < k; i++)
    memcpy(V + (gsize)i * q, D + (gsize)(v.offset + i * b) * q, q * sizeof(double));
  double c = 0.0, u = 0.0;
  for (guint i = 0; i < k; i++)
    for (guint j = 0; j < k; j++) {
      double dot = 0.0;
      for (guint l = 0; l < q; l++)
        dot += V[(gsize)i * q + l] * V[(gsize)j * q + l];
      c += sub[i * k + j] * dot;
    }
  if (!mf_sdp_certify(sub, k, V, q, &u, &err))
    g_error("audit_slack: %s", err->message);
  AuditSlack slack = {
      .canary = (u > c ? (u - c) / c : 0.0) + 2e-9 + dpg_tol(1.0, (double)k * k),
      .view_cond = v.k > 0 && v.lam[v.k - 1] > 0 ? v.smax * v.smax / v.lam[v.k - 1] : 1.0,
      .terms = (double)v.r * (double)v.p};
  g_free(D);
  g_free(V);
  g_free(sub);
  audit_view_clear(&v);
  topo_schedule_free(sched);
  g_free(is_member);
  return slack;
}

/* mu_canary <= mu up to rounding (the canary is a feasible point of the SDP
 * whose certified upper bound mu^2 is), and >= mu less the slack. */
static void assert_canary(const AuditResult *r, double mu, const AuditSlack *s) {
  dpg_test_assert_le(r->mu_canary - mu, mu * dpg_tol(1.0, 16.0),
                     "a feasible point of the SDP, rounded");
  dpg_test_assert_le(mu - r->mu_canary, mu * s->canary,
                     "the canary's certified gap plus the accountant's 2e-9 (audit_slack)");
}

/* mu_test <= mu_canary: the test reads the canary through the view's kept
 * noise directions, a subset of the accountant's; each side rounds within
 * cond x eps of the view (r p terms). */
static void assert_test(const AuditResult *r, double mu, const AuditSlack *s) {
  dpg_test_assert_le(r->mu_test - mu, mu * dpg_tol(s->view_cond, s->terms),
                     "the view's condition x eps x its r p terms");
}

static void test_distinguishing(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  /* Two rows (np, learned) per victim and case. */
  guint family = 2 * G_N_ELEMENTS(cases) * G_N_ELEMENTS(victims);
  double z = gsl_cdf_ugaussian_Qinv(0.05 / (2.0 * family));
  const guint att[] = {0, 5};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    for (guint j = 0; j < G_N_ELEMENTS(victims); j++) {
      const Case *c = &cases[i];
      AuditConfig a = config(g, c, att, 1.0);
      a.victim = victims[j];
      AuditReport rep;
      if (!audit_run(&a, AUDIT_ATTACK_NP | AUDIT_ATTACK_LEARNED, &rep, &err))
        g_error("%s: %s", c->protocol, err->message);
      g_assert_cmpint(rep.victim_status, ==, PRIV_NODE_PROTECTED);
      g_assert_cmpuint(rep.n_rows, ==, 2);
      double mu = rep.mu;
      AuditSlack slack = audit_slack(&a);
      for (guint k = 0; k < 2; k++) {
        const AuditResult *r = &rep.rows[k];
        double lo = r->mu_emp - z * r->mu_emp_se, hi = r->mu_emp + z * r->mu_emp_se;
        assert_canary(r, mu, &slack);
        if (lo > mu)
          g_error("%s trust %d %s victim %u %s: [%g, %g] above the accounted %g", c->protocol,
                  c->trust, c->deadline ? "deadline" : "sync", a.victim,
                  audit_attack_name(r->attack), lo, hi, mu);
        if (r->attack != AUDIT_ATTACK_NP)
          continue;
        assert_test(r, mu, &slack);
        if (r->mu_test < 0.9 * mu)
          g_error("%s trust %d victim %u: the test attains %g of the accounted %g", c->protocol,
                  c->trust, a.victim, r->mu_test, mu);
        if (hi < 0.9 * mu)
          g_error("%s trust %d %s victim %u: [%g, %g] below 0.9 x the accounted %g", c->protocol,
                  c->trust, c->deadline ? "deadline" : "sync", a.victim, lo, hi, mu);
      }
      audit_report_clear(&rep);
    }
  topo_graph_free(g);
}

/* DECOR, colluders {0, 5}: every secret on an edge of 0 or 5 is known to
 * the set; the test subtracts them as the accountant does, so its own mu is
 * the accounted one (without their values it was 87 to 89% of it). */
static void test_known_secrets(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  const guint att[] = {0, 5};
  const PrivTrust trusts[] = {PRIV_TRUST_PNDP, PRIV_TRUST_SECLDP};
  guint family = G_N_ELEMENTS(trusts) * G_N_ELEMENTS(victims);
  double z = gsl_cdf_ugaussian_Qinv(0.05 / (2.0 * family));
  for (guint i = 0; i < G_N_ELEMENTS(trusts); i++)
    for (guint j = 0; j < G_N_ELEMENTS(victims); j++) {
      Case c = {"decor", trusts[i], TRUE, FALSE, 400};
      AuditConfig a = config(g, &c, att, 1.0);
      a.victim = victims[j];
      AuditReport rep;
      if (!audit_run(&a, AUDIT_ATTACK_NP, &rep, &err))
        g_error("%s", err->message);
      const AuditResult *r = &rep.rows[0];
      double mu = rep.mu, lo = r->mu_emp - z * r->mu_emp_se, hi = r->mu_emp + z * r->mu_emp_se;
      g_assert_cmpfloat(mu, >, 0.1);
      AuditSlack slack = audit_slack(&a);
      dpg_test_assert_le(fabs(r->mu_test - mu), mu * dpg_tol(slack.view_cond, slack.terms),
                         "the view's condition x eps x its r p terms");
      if (lo > mu || hi < 0.9 * mu)
        g_error("trust %d victim %u: [%g, %g] against the accounted %g", c.trust, a.victim, lo, hi,
                mu);
      audit_report_clear(&rep);
    }
  topo_graph_free(g);
}

/* Participation b = 2 at T = 4 (k = 2 uses of the victim's record), on the
 * static graph and on time-varying schedules: the np row as above. */
static void test_participation(void) {
  static const struct {
    const char *protocol, *schedule;
    PrivTrust trust;
  } pcases[] = {
      {"dsgd", NULL, PRIV_TRUST_PNDP},
      {"dsgd", "exponential", PRIV_TRUST_LDP},
      {"mfdsgd:C=bsr", "matching", PRIV_TRUST_PNDP}, /* C calibrated for b */
      {"muffliato:K=2", "edge-failure:p=0.3", PRIV_TRUST_PNDP},
      {"decor", "matching", PRIV_TRUST_LDP},
  };
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  guint family = G_N_ELEMENTS(pcases) * G_N_ELEMENTS(victims);
  double z = gsl_cdf_ugaussian_Qinv(0.05 / (2.0 * family));
  const guint att[] = {0, 5};
  for (guint i = 0; i < G_N_ELEMENTS(pcases); i++)
    for (guint j = 0; j < G_N_ELEMENTS(victims); j++) {
      Case c = {pcases[i].protocol, pcases[i].trust, TRUE, FALSE, 400};
      AuditConfig a = config(g, &c, att, 1.0);
      a.b = 2;
      a.schedule = pcases[i].schedule;
      a.victim = victims[j];
      AuditReport rep;
      if (!audit_run(&a, AUDIT_ATTACK_NP, &rep, &err))
        g_error("%s: %s", c.protocol, err->message);
      g_assert_cmpint(rep.victim_status, ==, PRIV_NODE_PROTECTED);
      const AuditResult *r = &rep.rows[0];
      double mu = rep.mu, lo = r->mu_emp - z * r->mu_emp_se, hi = r->mu_emp + z * r->mu_emp_se;
      AuditSlack slack = audit_slack(&a);
      assert_canary(r, mu, &slack);
      assert_test(r, mu, &slack);
      if (r->mu_test < 0.9 * mu || lo > mu || hi < 0.9 * mu)
        g_error("%s %s victim %u: test %g, [%g, %g] against the accounted %g", c.protocol,
                a.schedule ? a.schedule : "static", a.victim, r->mu_test, lo, hi, mu);
      audit_report_clear(&rep);
    }
  /* b must divide T. */
  Case c = {"dsgd", PRIV_TRUST_PNDP, FALSE, FALSE, 20};
  AuditConfig a = config(g, &c, att, 1.0);
  a.b = 3;
  a.victim = 1;
  AuditReport rep;
  g_assert_false(audit_run(&a, AUDIT_ATTACK_NP, &rep, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "b = 3 does not divide T = 4"));
  g_clear_error(&err);
  audit_report_clear(&rep);
  topo_graph_free(g);
}

/* A guarantee that rests on a noise direction whose singular value is
 * 1e-5 of B's largest (Zip-DL under LDP in deadline mode, T = 10, victim 8:
 * mu = 1.47e5): the test keeps every direction the accountant keeps, so it
 * attains the accounted mu, and the simulated values carry that noise: the
 * interval reaches it. */
static void test_nearly_cancelled(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  const guint att[] = {0};
  Case c = {"zipdl", PRIV_TRUST_LDP, FALSE, TRUE, 200};
  AuditConfig a = config(g, &c, att, 1.0);
  a.T = 10;
  a.seed = 1;
  a.victim = 8;
  AuditReport rep;
  if (!audit_run(&a, AUDIT_ATTACK_NP, &rep, &err))
    g_error("%s", err->message);
  g_assert_cmpint(rep.victim_status, ==, PRIV_NODE_PROTECTED);
  g_assert_cmpuint(rep.n_rows, ==, 1);
  const AuditResult *r = &rep.rows[0];
  g_assert_cmpfloat(rep.mu, >, 1e5);
  AuditSlack slack = audit_slack(&a);
  dpg_test_assert_le(fabs(r->mu_test - rep.mu), rep.mu * dpg_tol(slack.view_cond, slack.terms),
                     "the view's condition (about 1e10 here) x eps x its r p terms");
  g_assert_cmpfloat(r->mu_emp_low, <=, rep.mu);
  g_assert_cmpfloat(r->mu_emp_high, >=, rep.mu);
  audit_report_clear(&rep);
  topo_graph_free(g);
}

/* Without noise: every victim the accountant calls unprotected is
 * reconstructed exactly (or partially, when some step never reaches). */
static void test_reconstruction(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  const guint att[] = {0, 5};
  guint exact = 0;
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    if (cases[i].trials < 200) /* the BLT fit needs noise to fit */
      continue;
    for (guint j = 0; j < G_N_ELEMENTS(victims); j++) {
      AuditConfig a = config(g, &cases[i], att, 0.0);
      a.victim = victims[j];
      AuditReport rep;
      if (!audit_run(&a, AUDIT_ATTACK_RECONSTRUCTION, &rep, &err))
        g_error("%s: %s", cases[i].protocol, err->message);
      g_assert_cmpuint(rep.n_rows, ==, 1);
      const AuditResult *r = &rep.rows[0];
      if (rep.victim_status == PRIV_NODE_UNPROTECTED) {
        g_assert_true(r->status == AUDIT_EXPOSED || r->status == AUDIT_PARTIAL);
        /* Partial: exact on the steps that reach the attackers. A decision,
         * not a comparison: noise-free messages either determine the
         * gradients (error = the least-squares solve's rounding, eps x
         * cond(view) x n T) or leave a direction free (error O(1)); 1e-8
         * sits between the two for any view with cond(view) x n T below
         * ~4e7. */
        if (!(r->reconstruction_error < 1e-8))
          g_error("%s victim %u: reconstruction error %g", cases[i].protocol, a.victim,
                  r->reconstruction_error);
        exact += r->status == AUDIT_EXPOSED;
      } else {
        g_assert_cmpint(r->status, ==, AUDIT_REFUSED);
      }
      audit_report_clear(&rep);
    }
  }
  g_assert_cmpuint(exact, >=, G_N_ELEMENTS(cases) / 2);
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/audit/coverage/distinguishing", test_distinguishing);
  g_test_add_func("/audit/coverage/nearly_cancelled", test_nearly_cancelled);
  g_test_add_func("/audit/coverage/participation", test_participation);
  g_test_add_func("/audit/coverage/known_secrets", test_known_secrets);
  g_test_add_func("/audit/coverage/reconstruction", test_reconstruction);
  return g_test_run();
}
