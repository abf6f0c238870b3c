/*
 * tests/privacy/test_account_sensitivity.c: the exact sensitivity the
 * accountant reports, checked on several graphs by a second method that
 * shares no code with mf/sdp.c, and the auto rule's closed form.
 *
 * For a psd pattern block X (k x k), the SDP value s = max {<X, U> : U psd,
 * diag(U) <= 1} satisfies
 *     c = max over sign vectors z of z^T X z   <=  s  <=  (pi / 2) c
 * (rank-one feasible points below; Nesterov 1998's pi/2 theorem for psd X
 * above) and s <= sum |X| (Thm 5.2's bound). With k <= 8 the 2^(k-1) sign
 * vectors are enumerated, so each victim's reported exact value is pinned
 * from both sides: never below a value some U attains (sound), never above
 * the bound nor pi/2 times the cut (tight).
 */
#include <float.h>
#include <math.h>

#include "tests/privacy/test_account_util.h"

/* The pattern j of @X (T x T) as a k x k row-major matrix. */
static void pattern(const double *X, guint T, guint b, guint j, double *sub) {
  guint k = T / b;
  for (guint a = 0; a < k; a++)
    for (guint c = 0; c < k; c++)
      sub[(gsize)a * k + c] = X[(gsize)(j + a * b) * T + (j + c * b)];
}

/* max over sign vectors z (z_0 = 1: z and -z give the same value) of
 * z^T S z, and sum |S|, of a k x k @S. O(2^k k^2). */
static void cut_and_abs(const double *S, guint k, double *cut, double *abs_sum) {
  *cut = -INFINITY;
  *abs_sum = 0.0;
  for (gsize i = 0; i < (gsize)k * k; i++)
    *abs_sum += fabs(S[i]);
  for (guint mask = 0; mask < (1u << (k - 1)); mask++) {
    double v = 0.0;
    for (guint a = 0; a < k; a++) {
      double za = a > 0 && (mask >> (a - 1)) & 1 ? -1.0 : 1.0;
      for (guint c = 0; c < k; c++) {
        double zc = c > 0 && (mask >> (c - 1)) & 1 ? -1.0 : 1.0;
        v += za * zc * S[(gsize)a * k + c];
      }
    }
    *cut = MAX(*cut, v);
  }
}

typedef struct {
  const char *graph;
  PrivProtocol protocol;
  guint K, T, b;
  PrivTrust trust;
  guint attacker;
} Case;

/* Returns the victims whose exact value is strictly below the bound. */
static guint check_case(const Case *c) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(c->graph, &err);
  g_assert_no_error(err);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  guint K = c->K ? c->K : 1, n_gossip = 1;
  const TopoGossip **ws = g_new(const TopoGossip *, K * c->T);
  for (guint i = 0; i < K * c->T; i++)
    ws[i] = w;
  HandRun run = {.protocol = c->protocol,
                 .K = K,
                 .T = c->T,
                 .gossip = ws,
                 .n_gossip = n_gossip,
                 .sigma = 1.0,
                 .clip = 1.0};
  guint S[] = {c->attacker};
  PrivBlocks *blocks = fast_blocks(&run, c->trust, S, 1, PRIV_ENGINE_AUTO);
  PrivAccountOptions exact = {.b = c->b, .sensitivity = MF_SENSITIVITY_EXACT};
  PrivReport *r = priv_account_report(blocks, g, &exact, &err);
  g_assert_no_error(err);
  g_assert_cmpint(r->sensitivity, ==, MF_SENSITIVITY_EXACT);
  guint T = c->T, b = c->b, k = T / b;
  g_assert_cmpuint(k, <=, 8);
  double *sub = g_new(double, (gsize)k *k);
  guint checked = 0, below_bound = 0;
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    if (v->unprotected || v->unresolved)
      continue;
    const double *X = priv_blocks_get(blocks, v->node);
    double cut = 0.0, bound = 0.0, amax = 0.0;
    for (guint j = 0; j < b; j++) {
      double cj, bj;
      pattern(X, T, b, j, sub);
      cut_and_abs(sub, k, &cj, &bj);
      cut = MAX(cut, cj);
      bound = MAX(bound, bj);
    }
    for (gsize e = 0; e < (gsize)T * T; e++)
      amax = MAX(amax, fabs(X[e]));
    /* The reported squared sensitivity, back in the blocks' units. */
    double s2 = v->sensitivity * blocks->scale * v->sensitivity * blocks->scale;
    /* Rounding: each side is a sum of N = k^2 terms of size <= amax
     * (recursive summation: error <= N eps sum|terms| <= N^2 eps amax), the
     * SDP's certificate adds an eigenvalue of a k x k matrix of norm
     * <= N amax, backward stable to k eps of it times k (its weight),
     * and mu = sqrt(s2) / scale squared back costs 4 eps s2. The SDP's own
     * stopping gap is on the safe side (the certified upper value). */
    double N = (double)k * k;
    double tol = (2.0 * N * N + k * k * N) * DBL_EPSILON * amax + 4.0 * DBL_EPSILON * s2;
    dpg_test_assert_le(cut - s2, tol, "exact never below a feasible point's value (sound)");
    dpg_test_assert_le(s2 - bound, tol, "exact never above Thm 5.2's bound");
    dpg_test_assert_le(s2 - M_PI / 2 * cut, tol, "exact within pi/2 of the cut (Nesterov)");
    below_bound += s2 < bound - tol;
    checked++;
  }
  g_assert_cmpuint(checked, >, 0);
  g_free(sub);
  priv_report_free(r);
  priv_blocks_free(blocks);
  g_free(ws);
  topo_gossip_free(w);
  topo_graph_free(g);
  return below_bound;
}

static void test_exact_sandwich(void) {
  const Case cases[] = {
      {"path:n=8", PRIV_PROTOCOL_MUFFLIATO, 3, 8, 1, PRIV_TRUST_PNDP, 0},
      {"florentine", PRIV_PROTOCOL_DSGD, 1, 8, 1, PRIV_TRUST_PNDP, 0},
      {"florentine", PRIV_PROTOCOL_DSGD, 1, 8, 2, PRIV_TRUST_PNDP, 3},
      {"erdos:n=12,p=0.3,seed=8,connected=true", PRIV_PROTOCOL_DSGD, 1, 6, 1, PRIV_TRUST_PNDP, 2},
      {"regular:n=20,d=4,seed=1", PRIV_PROTOCOL_MUFFLIATO, 2, 8, 1, PRIV_TRUST_PNDP, 5},
      {"regular:n=20,d=4,seed=1", PRIV_PROTOCOL_DSGD, 1, 8, 1, PRIV_TRUST_SECLDP, 5},
  };
  guint below = 0;
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    guint m = check_case(&cases[i]);
    g_test_message("%s T=%u b=%u: %u victims strictly below the bound", cases[i].graph, cases[i].T,
                   cases[i].b, m);
    below += m;
  }
  /* Not a check that cannot fail: PNDP blocks have negative entries, so
   * exact is strictly below the bound somewhere (the reason it is the
   * default where cheap). */
  g_assert_cmpuint(below, >, 0);
}

/* The auto rule in closed form: n b k^3 x 1.2e-7 s against 1 s. */
static void test_auto_rule(void) {
  double s;
  /* Florentine, 14 victims, T = 20: 14 x 8000 x 1.2e-7 = 0.01344 s. */
  g_assert_cmpint(mf_sensitivity_choose(MF_SENSITIVITY_AUTO, 14, 20, 1, &s), ==,
                  MF_SENSITIVITY_EXACT);
  dpg_test_assert_close(s, 0.01344, 4 * DBL_EPSILON, "three products");
  /* Florentine, T = 100: 14 x 10^6 x 1.2e-7 = 1.68 s: the bound. */
  g_assert_cmpint(mf_sensitivity_choose(MF_SENSITIVITY_AUTO, 14, 100, 1, &s), ==,
                  MF_SENSITIVITY_BOUND);
  dpg_test_assert_close(s, 1.68, 4 * DBL_EPSILON, "three products");
  /* b splits T into b patterns of k = T / b: 1000 x 2 x 10^3 x 1.2e-7. */
  mf_sensitivity_choose(MF_SENSITIVITY_AUTO, 1000, 20, 2, &s);
  dpg_test_assert_close(s, 0.24, 4 * DBL_EPSILON, "three products");
  /* The edge: 10^7 / 1.2 blocks of k = 1 cost exactly the budget (up to
   * rounding of 1.2e-7): 8333333 blocks is exact, 8333334 the bound. */
  g_assert_cmpint(mf_sensitivity_choose(MF_SENSITIVITY_AUTO, 8333333, 1, 1, NULL), ==,
                  MF_SENSITIVITY_EXACT);
  g_assert_cmpint(mf_sensitivity_choose(MF_SENSITIVITY_AUTO, 8333334, 1, 1, NULL), ==,
                  MF_SENSITIVITY_BOUND);
  /* An asked kind is kept whatever the cost. */
  g_assert_cmpint(mf_sensitivity_choose(MF_SENSITIVITY_EXACT, 1000000, 100, 1, NULL), ==,
                  MF_SENSITIVITY_EXACT);
  g_assert_cmpint(mf_sensitivity_choose(MF_SENSITIVITY_BOUND, 1, 2, 1, NULL), ==,
                  MF_SENSITIVITY_BOUND);
  MfSensitivity kind;
  GError *err = NULL;
  g_assert_true(mf_sensitivity_parse("auto", &kind, &err));
  g_assert_cmpint(kind, ==, MF_SENSITIVITY_AUTO);
  g_assert_false(mf_sensitivity_parse("exactly", &kind, &err));
  g_assert_nonnull(strstr(err->message, "expected auto, bound or exact"));
  g_clear_error(&err);
}

/* priv_account_report under auto picks for its own victims and records the
 * kind it used: the 7 victims of path:n=8 at T = 8 cost 7 x 512 x 1.2e-7 s. */
static void test_report_auto(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("path:n=8", &err);
  g_assert_no_error(err);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  const TopoGossip *ws[] = {w};
  HandRun run = {.protocol = PRIV_PROTOCOL_DSGD,
                 .K = 1,
                 .T = 8,
                 .gossip = ws,
                 .n_gossip = 1,
                 .sigma = 1.0,
                 .clip = 1.0};
  guint S[] = {0};
  PrivBlocks *blocks = fast_blocks(&run, PRIV_TRUST_PNDP, S, 1, PRIV_ENGINE_AUTO);
  PrivAccountOptions aut = {.sensitivity = MF_SENSITIVITY_AUTO};
  PrivAccountOptions exact = {.sensitivity = MF_SENSITIVITY_EXACT};
  PrivReport *ra = priv_account_report(blocks, g, &aut, &err);
  PrivReport *re = priv_account_report(blocks, g, &exact, &err);
  g_assert_no_error(err);
  g_assert_cmpint(ra->sensitivity, ==, MF_SENSITIVITY_EXACT);
  for (guint i = 0; i < ra->n_victims; i++)
    g_assert_cmpfloat(ra->victims[i].mu, ==, re->victims[i].mu); /* the same computation */
  priv_report_free(ra);
  priv_report_free(re);
  priv_blocks_free(blocks);
  topo_gossip_free(w);
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/sensitivity/exact-sandwich", test_exact_sandwich);
  g_test_add_func("/privacy/account/sensitivity/auto-rule", test_auto_rule);
  g_test_add_func("/privacy/account/sensitivity/report-auto", test_report_auto);
  return g_test_run();
}
