/*
 * tests/privacy/test_account_structured.c: the structured fast path (Kalman
 * and dense engines) against the paper's Figure 2 reference values and
 * against the generic accountant fed with knowledge built by hand with
 * linvecs: D-SGD, Muffliato(K), MF-D-SGD (AntiPGD, random C), static and
 * time-varying gossip, single attackers and collusion sets, b > 1, the three
 * trust models; plus the consistency properties of the accounting.
 */
#include <json-glib/json-glib.h>

#include "test_account_util.h"

/* The embedded generator keeps the labels of data/graphs/
 * florentine.edges (the reference's node ids); loading the file would
 * renumber them by first appearance. */
static TopoGossip *florentine_gossip(TopoGraph **graph_out) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  if (graph_out)
    *graph_out = g;
  else
    topo_graph_free(g);
  return w;
}

/* The paper's Figure 2 setting: every path must give the reference values. */
static void test_florentine_reference(void) {
  TopoGraph *g;
  TopoGossip *w = florentine_gossip(&g);
  const TopoGossip *ws[] = {w};
  HandRun run = {.protocol = PRIV_PROTOCOL_DSGD,
                 .K = 1,
                 .T = 10,
                 .gossip = ws,
                 .n_gossip = 1,
                 .sigma = 1.0,
                 .clip = 1.0};
  guint S[] = {0};
  PrivBlocks *kal = fast_blocks(&run, PRIV_TRUST_PNDP, S, 1, PRIV_ENGINE_KALMAN);
  PrivBlocks *den = fast_blocks(&run, PRIV_TRUST_PNDP, S, 1, PRIV_ENGINE_DENSE);
  PrivBlocks *gen = hand_blocks(&run, PRIV_TRUST_PNDP, S, 1);
  /* The three factor the same message covariances; the generic path does
   * not measure their conditioning, the fast engines do (PrivBlocks.cond),
   * and it factors the knowledge of all n T messages jointly: size n T. */
  double cond = MAX(kal->cond, den->cond);
  g_assert_cmpfloat(cond, >=, 1.0); /* measured, not a default */
  double tau = dpg_tol(cond, (double)kal->n * kal->T);
  const char *why = "eps x cond(message covariances) x n T";
  dpg_test_assert_le(blocks_rel_diff(kal, gen), tau, why);
  dpg_test_assert_le(blocks_rel_diff(den, gen), tau, why);

  char *path = g_build_filename(g_getenv("DPG_TEST_DATA"), "reference",
                                "pndp-florentine-T10-attacker0.json", NULL);
  JsonParser *p = json_parser_new();
  GError *err = NULL;
  json_parser_load_from_file(p, path, &err);
  g_assert_no_error(err);
  JsonObject *ref = json_node_get_object(json_parser_get_root(p));
  JsonArray *rows = json_object_get_array_member(ref, "rows");
  g_assert_cmpuint(json_array_get_length(rows), ==, 14);

  PrivAccountOptions opt = {.b = 1, .sensitivity = MF_SENSITIVITY_BOUND, .alpha = 2, .delta = 1e-6};
  PrivBlocks *all[] = {kal, den, gen};
  double *muff = priv_muffliato_rdp(w, 10, S, 1, 2.0, 1.0, &err);
  g_assert_no_error(err);
  g_assert_true(isnan(muff[0]));
  for (guint which = 0; which < G_N_ELEMENTS(all); which++) {
    PrivReport *rep = priv_account_report(all[which], g, &opt, &err);
    g_assert_no_error(err);
    g_assert_cmpuint(rep->n_victims, ==, 14);
    for (guint i = 0; i < 14; i++) {
      JsonObject *row = json_array_get_object_element(rows, i);
      const PrivVictim *v = &rep->victims[i];
      g_assert_cmpuint(v->node, ==, (guint)json_object_get_int_member(row, "node"));
      g_assert_cmpint(v->distance, ==, (gint)json_object_get_int_member(row, "distance"));
      g_assert_false(v->unprotected);
      /* The reference (JSON, shortest round-trip digits: read back exactly)
       * was computed in double from the same covariances, so it carries an
       * error of the same order as ours: twice report_mu_tol on the bound
       * sensitivity (k = T = 10), and rdp = alpha s2 / 2 = s2 doubles the
       * relative error of mu = sqrt(s2). */
      double want = json_object_get_double_member(row, "sensitivity");
      double dmu = 2.0 * report_mu_tol(tau, blocks_victim_max(all[which], v->node), 10, FALSE,
                                       v->sensitivity, want);
      const char *why_mu = "2 x (blocks to eps x cond x n, through mu = sqrt(s2)): ours and the "
                           "reference's";
      dpg_test_assert_close(v->sensitivity, want, dmu / want, why_mu);
      dpg_test_assert_close(v->rdp, json_object_get_double_member(row, "rdp_alpha2"),
                            2.0 * dmu / want + DBL_EPSILON, why_mu);
      g_assert_cmpfloat(v->mu, ==, v->sensitivity);
      /* The same function of the same mu: bit-equal. */
      g_assert_cmpfloat(v->epsilon, ==, priv_gdp_epsilon(v->mu, 1e-6));
      /* Muffliato's bound sums T terms (T - s) (W^s)[u, w] / ||(W^s) e_w||^2
       * of nonnegative W: no cancellation, so each W^s entry is within
       * s n eps relative and each norm within (s + 1) n eps; ours and the
       * reference's each stay within 3 n T eps: 2 x dpg_tol(1, 3 n T). */
      dpg_test_assert_close(muff[v->node],
                            json_object_get_double_member(row, "muffliato_rdp_alpha2"),
                            2.0 * dpg_tol(1.0, 3.0 * kal->n * 10),
                            "nonnegative sums: 3 n T eps, ours and the reference's");
    }
    priv_report_free(rep);
  }
  g_free(muff);
  g_object_unref(p);
  g_free(path);
  priv_blocks_free(kal);
  priv_blocks_free(den);
  priv_blocks_free(gen);
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* Whether some victim's block is neither 0 nor a multiple of I: the
 * comparison then tests the W-product structure, not a closed form. */
static gboolean nontrivial(const PrivBlocks *b) {
  guint T = b->T;
  for (guint u = 0; u < b->n; u++) {
    const double *X = priv_blocks_get(b, u);
    for (guint s = 0; s < T; s++)
      for (guint t = 0; t < T; t++)
        /* A decision, not a comparison: structure at 1e-6 of the diagonal
         * is far above any rounding (the eps x cond x n the comparisons below allow). */
        if ((s != t && fabs(X[s * T + t]) > 1e-6) ||
            (s == t && fabs(X[s * T + t] - X[0]) > 1e-6 * fabs(X[0])))
          return TRUE;
  }
  return FALSE;
}

/* Kalman, dense and hand-built generic agree on random graphs and sets. */
static void check_all_paths(const HandRun *run, PrivTrust trust, const guint *S, guint nS,
                            gboolean kalman) {
  PrivBlocks *gen = hand_blocks(run, trust, S, nS);
  if (trust == PRIV_TRUST_PNDP)
    g_assert_true(nontrivial(gen));
  PrivBlocks *den = fast_blocks(run, trust, S, nS, PRIV_ENGINE_DENSE);
  PrivBlocks *kal = kalman ? fast_blocks(run, trust, S, nS, PRIV_ENGINE_KALMAN) : NULL;
  PrivBlocks *aut = fast_blocks(run, trust, S, nS, PRIV_ENGINE_AUTO);
  /* eps x cond x n T, cond the largest any fast engine measured on the
   * covariances all of them (and the generic path) factor, n T the
   * messages the generic path factors jointly. */
  double cond = MAX(den->cond, aut->cond);
  if (kal)
    cond = MAX(cond, kal->cond);
  double tau = dpg_tol(cond, (double)den->n * den->T);
  const char *why = "eps x cond(message covariances) x n T";
  dpg_test_assert_le(blocks_rel_diff(den, gen), tau, why);
  if (kal) {
    dpg_test_assert_le(blocks_rel_diff(kal, gen), tau, why);
    priv_blocks_free(kal);
  }
  dpg_test_assert_le(blocks_rel_diff(aut, gen), tau, why);
  priv_blocks_free(aut);
  priv_blocks_free(gen);
  priv_blocks_free(den);
}

static void test_random_dsgd(void) {
  const char *specs[] = {"erdos:n=12,p=0.3,seed=1,connected=true",
                         "erdos:n=10,p=0.4,seed=7,connected=true", "ring:n=9",
                         "barabasi:n=11,m=2,seed=3"};
  const guint sets[][3] = {{0}, {3}, {1, 5}, {2, 4, 8}};
  const guint set_len[] = {1, 1, 2, 3};
  for (guint gi = 0; gi < G_N_ELEMENTS(specs); gi++) {
    TopoGossip *w = gossip_of(specs[gi], gi % 2 ? TOPO_GOSSIP_METROPOLIS : TOPO_GOSSIP_UNIFORM);
    const TopoGossip *ws[] = {w};
    for (guint si = 0; si < G_N_ELEMENTS(sets); si++) {
      HandRun run = {.protocol = PRIV_PROTOCOL_DSGD,
                     .K = 1,
                     .T = 6,
                     .gossip = ws,
                     .n_gossip = 1,
                     .sigma = 0.7 + gi,
                     .clip = 1.5};
      check_all_paths(&run, PRIV_TRUST_PNDP, sets[si], set_len[si], TRUE);
    }
    topo_gossip_free(w);
  }
}

static void test_muffliato(void) {
  /* Sparse enough that K rounds of messages do not pin every victim down. */
  TopoGossip *w = gossip_of("erdos:n=14,p=0.2,seed=4,connected=true", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S1[] = {0}, S2[] = {0, 12};
  for (guint K = 2; K <= 3; K++) {
    HandRun run = {.protocol = PRIV_PROTOCOL_MUFFLIATO,
                   .K = K,
                   .T = 4,
                   .gossip = ws,
                   .n_gossip = 1,
                   .sigma = 1.3,
                   .clip = 1.0};
    check_all_paths(&run, PRIV_TRUST_PNDP, S1, 1, TRUE);
    check_all_paths(&run, PRIV_TRUST_PNDP, S2, 2, TRUE);
    check_all_paths(&run, PRIV_TRUST_LDP, S1, 1, TRUE);
  }
  topo_gossip_free(w);
}

static double *antipgd(guint T) {
  double *C = g_new0(double, (gsize)T *T);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j <= i; j++)
      C[(gsize)i * T + j] = 1.0;
  return C;
}

static double *random_lower(guint T, guint seed) {
  GRand *r = g_rand_new_with_seed(seed);
  double *C = g_new0(double, (gsize)T *T);
  for (guint i = 0; i < T; i++) {
    for (guint j = 0; j < i; j++)
      C[(gsize)i * T + j] = g_rand_double_range(r, -0.6, 0.6);
    C[(gsize)i * T + i] = g_rand_double_range(r, 0.5, 1.5);
  }
  g_rand_free(r);
  return C;
}

static void test_mfdsgd(void) {
  TopoGossip *w = gossip_of("erdos:n=10,p=0.35,seed=11,connected=true", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S1[] = {4}, S2[] = {1, 7};
  guint T = 6;
  double *Cs[] = {antipgd(T), random_lower(T, 5)};
  for (guint ci = 0; ci < G_N_ELEMENTS(Cs); ci++) {
    for (guint b = 1; b <= 2; b++) {
      HandRun run = {.protocol = PRIV_PROTOCOL_MFDSGD,
                     .C_local = Cs[ci],
                     .b = b,
                     .T = T,
                     .gossip = ws,
                     .n_gossip = 1,
                     .sigma = 0.8,
                     .clip = 2.0};
      check_all_paths(&run, PRIV_TRUST_PNDP, S1, 1, FALSE);
      check_all_paths(&run, PRIV_TRUST_PNDP, S2, 2, FALSE);
      /* LDP: the closed form C^T C / nu'^2 equals the generic answer, and
       * the bound sensitivity is 1/sigma for every victim. */
      check_all_paths(&run, PRIV_TRUST_LDP, S1, 1, FALSE);
      check_all_paths(&run, PRIV_TRUST_SECLDP, S2, 2, FALSE);
      PrivBlocks *bl = fast_blocks(&run, PRIV_TRUST_LDP, S1, 1, PRIV_ENGINE_AUTO);
      for (guint u = 0; u < bl->n; u++) {
        if (u == S1[0])
          continue;
        double s2;
        GError *err = NULL;
        g_assert_true(
            mf_gram_sensitivity2(priv_blocks_get(bl, u), T, b, MF_SENSITIVITY_BOUND, &s2, &err));
        /* The block C^T C / nu'^2 is a sum of T products: eps x T relative to
         * its largest entry (x cond where the engine factored), then through
         * mu = sqrt(s2) as report_mu_tol. */
        double mu = sqrt(s2), tau = dpg_tol(bl->cond, T);
        dpg_test_assert_le(
            fabs(mu - 1.0 / 0.8),
            report_mu_tol(tau, blocks_victim_max(bl, u), T / b, FALSE, mu, 1.0 / 0.8),
            "C^T C to eps x T (x cond), through mu = sqrt(s2)");
      }
      priv_blocks_free(bl);
    }
  }
  /* The dense-propagator Kalman engine refuses correlated noise (the
   * sparse one carries its state: test_structured_mfnoise.c). */
  HandRun run = {.protocol = PRIV_PROTOCOL_MFDSGD,
                 .C_local = Cs[0],
                 .T = T,
                 .gossip = ws,
                 .n_gossip = 1,
                 .sigma = 1.0,
                 .clip = 1.0};
  PrivStructuredProblem p = {.protocol = run.protocol,
                             .C_local = run.C_local,
                             .T = T,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = S1,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .engine = PRIV_ENGINE_KALMAN_DENSE};
  GError *err = NULL;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  /* A singular C_local is refused. */
  double *Z = g_new0(double, (gsize)T *T);
  Z[0] = 1.0;
  p.C_local = Z;
  p.engine = PRIV_ENGINE_AUTO;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_nonnull(err);
  g_clear_error(&err);
  g_free(Z);
  for (guint ci = 0; ci < G_N_ELEMENTS(Cs); ci++)
    g_free(Cs[ci]);
  topo_gossip_free(w);
}

/* Time-varying W_t (appendix C): products instead of powers. */
static void test_time_varying(void) {
  GError *err = NULL;
  TopoGraph *base = topo_graph_generate("erdos:n=10,p=0.4,seed=2,connected=true", &err);
  g_assert_no_error(err);
  const char *specs[] = {"edge-failure:p=0.3", "matching", "exponential"};
  for (guint si = 0; si < G_N_ELEMENTS(specs); si++) {
    TopoSchedule *sch = topo_schedule_new(specs[si], base, TOPO_GOSSIP_UNIFORM, 9, &err);
    g_assert_no_error(err);
    for (guint K = 1; K <= 2; K++) {
      guint T = 5, R = K * T;
      TopoGossip **ws = g_new(TopoGossip *, R);
      for (guint r = 0; r < R; r++) {
        ws[r] = topo_schedule_gossip(sch, r, &err);
        g_assert_no_error(err);
      }
      HandRun run = {.protocol = K == 1 ? PRIV_PROTOCOL_DSGD : PRIV_PROTOCOL_MUFFLIATO,
                     .K = K,
                     .T = T,
                     .gossip = (const TopoGossip *const *)ws,
                     .n_gossip = R,
                     .sigma = 1.1,
                     .clip = 1.0};
      const guint S1[] = {3}, S2[] = {0, 8};
      check_all_paths(&run, PRIV_TRUST_PNDP, S1, 1, TRUE);
      check_all_paths(&run, PRIV_TRUST_PNDP, S2, 2, TRUE);
      check_all_paths(&run, PRIV_TRUST_LDP, S1, 1, TRUE);
      check_all_paths(&run, PRIV_TRUST_SECLDP, S2, 2, TRUE);
      if (K == 1) {
        double *C = random_lower(T, 21 + si);
        HandRun mf = run;
        mf.protocol = PRIV_PROTOCOL_MFDSGD;
        mf.C_local = C;
        check_all_paths(&mf, PRIV_TRUST_PNDP, S2, 2, FALSE);
        g_free(C);
      }
      for (guint r = 0; r < R; r++)
        topo_gossip_free(ws[r]);
      g_free(ws);
    }
    topo_schedule_free(sch);
  }
  topo_graph_free(base);
}

/* LDP for D-SGD: X = I / sigma^2, mu = sqrt(k) / sigma, from the generic path. */
static void test_ldp_closed_form(void) {
  TopoGossip *w = gossip_of("erdos:n=8,p=0.4,seed=5,connected=true", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  double sigma = 2.0;
  guint T = 6, S[] = {0};
  HandRun run = {.protocol = PRIV_PROTOCOL_DSGD,
                 .K = 1,
                 .T = T,
                 .gossip = ws,
                 .n_gossip = 1,
                 .sigma = sigma,
                 .clip = 3.0};
  PrivBlocks *gen = hand_blocks(&run, PRIV_TRUST_LDP, S, 1);
  for (guint u = 1; u < gen->n; u++) {
    const double *X = priv_blocks_get(gen, u);
    for (guint s = 0; s < T; s++)
      for (guint t = 0; t < T; t++)
        /* The messages' covariance is sigma^2 I (cond 1), factored jointly
         * over all n T messages by the generic path: eps x n T of the
         * largest entry 1 / sigma^2. */
        dpg_test_assert_le(fabs(X[s * T + t] - (s == t ? 1.0 / (sigma * sigma) : 0.0)),
                           dpg_tol(1.0, (double)gen->n * T) / (sigma * sigma), "eps x n T, cond 1");
  }
  for (guint b = 1; b <= T; b++) {
    if (T % b)
      continue;
    PrivAccountOptions opt = {.b = b, .sensitivity = MF_SENSITIVITY_EXACT};
    GError *err = NULL;
    PrivReport *rep = priv_account_report(gen, NULL, &opt, &err);
    g_assert_no_error(err);
    for (guint i = 0; i < rep->n_victims; i++) {
      /* Blocks to eps x n T (cond 1) plus the SDP's stopping gap. */
      double want = sqrt((double)(T / b)) / sigma, mu = rep->victims[i].mu;
      dpg_test_assert_le(fabs(mu - want),
                         report_mu_tol(dpg_tol(1.0, (double)gen->n * T), 1.0 / (sigma * sigma),
                                       T / b, TRUE, mu, want),
                         "eps x n T and the SDP's stopping gap, through mu = sqrt(s2)");
      g_assert_cmpint(rep->victims[i].distance, ==, -1); /* no graph given */
    }
    priv_report_free(rep);
  }
  priv_blocks_free(gen);
  topo_gossip_free(w);
}

/* A noiseless run: every node whose gradient reaches the attacker in time is
 * unprotected (the neighbours first of all), on both paths. */
static void test_noiseless(void) {
  TopoGraph *g;
  TopoGossip *w = florentine_gossip(&g);
  const TopoGossip *ws[] = {w};
  guint S[] = {1};
  for (guint T = 1; T <= 3; T++) {
    HandRun run = {.protocol = PRIV_PROTOCOL_DSGD,
                   .K = 1,
                   .T = T,
                   .gossip = ws,
                   .n_gossip = 1,
                   .sigma = 0.0,
                   .clip = 1.0};
    PrivBlocks *gen = hand_blocks(&run, PRIV_TRUST_PNDP, S, 1);
    PrivBlocks *fast = fast_blocks(&run, PRIV_TRUST_PNDP, S, 1, PRIV_ENGINE_AUTO);
    g_assert_cmpfloat(blocks_rel_diff(gen, fast), ==, 0.0);
    PrivAccountOptions opt = {0};
    GError *err = NULL;
    PrivReport *rep = priv_account_report(gen, g, &opt, &err);
    g_assert_no_error(err);
    for (guint i = 0; i < rep->n_victims; i++) {
      const PrivVictim *v = &rep->victims[i];
      /* The message of round t carries gradients from t hops away. */
      gboolean exposed = v->distance >= 1 && (guint)v->distance <= T;
      g_assert_cmpint(v->unprotected, ==, exposed);
      if (exposed) {
        g_assert_true(isinf(v->mu) && isinf(v->rdp) && isinf(v->epsilon));
      } else {
        g_assert_cmpfloat(v->mu, ==, 0.0);
        g_assert_cmpfloat(v->epsilon, ==, 0.0);
      }
    }
    priv_report_free(rep);
    priv_blocks_free(gen);
    priv_blocks_free(fast);
  }
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* Exact <= bound; a collusion set's exact loss dominates each member's;
 * relabelling the nodes relabels the answers. */
static void test_consistency(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("erdos:n=11,p=0.3,seed=8,connected=true", &err);
  g_assert_no_error(err);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  const TopoGossip *ws[] = {w};
  guint T = 6, b = 2;
  HandRun run = {.protocol = PRIV_PROTOCOL_DSGD,
                 .K = 1,
                 .T = T,
                 .gossip = ws,
                 .n_gossip = 1,
                 .sigma = 1.0,
                 .clip = 1.0};
  guint S[] = {2, 9};
  PrivAccountOptions exact = {.b = b, .sensitivity = MF_SENSITIVITY_EXACT};
  PrivAccountOptions bound = {.b = b, .sensitivity = MF_SENSITIVITY_BOUND};
  PrivBlocks *both = fast_blocks(&run, PRIV_TRUST_PNDP, S, 2, PRIV_ENGINE_AUTO);
  PrivReport *rb = priv_account_report(both, g, &exact, &err);
  PrivReport *rbb = priv_account_report(both, g, &bound, &err);
  g_assert_no_error(err);
  /* The exact value is returned as min(certified upper, the pattern bound of
   * the same entries): above the report's bound only by the two sums'
   * rounding, k^2 terms each, 2 k^2 eps of the largest entry in s2. */
  guint k = T / b;
  for (guint i = 0; i < rb->n_victims; i++) {
    double e = rb->victims[i].sensitivity, bo = rbb->victims[i].sensitivity;
    double xm = blocks_victim_max(both, rb->victims[i].node);
    dpg_test_assert_le(e - bo, report_mu_tol(2.0 * DBL_EPSILON, xm, k, FALSE, e, bo),
                       "two k^2-term sums of the same entries, through mu = sqrt(s2)");
  }
  for (guint m = 0; m < 2; m++) {
    PrivBlocks *one = fast_blocks(&run, PRIV_TRUST_PNDP, &S[m], 1, PRIV_ENGINE_AUTO);
    PrivReport *r1 = priv_account_report(one, g, &exact, &err);
    g_assert_no_error(err);
    /* More colluders know more (larger X in Loewner order), so the true
     * value only grows; each computed one is its certified upper bound,
     * within the SDP's stopping gap and the blocks' rounding of the truth. */
    double tau = dpg_tol(MAX(MAX(one->cond, both->cond), 1.0), one->n);
    for (guint i = 0, j = 0; i < r1->n_victims; i++) {
      guint u = r1->victims[i].node;
      if (u == S[0] || u == S[1])
        continue;
      while (rb->victims[j].node != u)
        j++;
      double s_both = rb->victims[j].sensitivity, s_one = r1->victims[i].sensitivity;
      double xm = MAX(blocks_victim_max(one, u), blocks_victim_max(both, u));
      dpg_test_assert_le(s_one - s_both, report_mu_tol(tau, xm, k, TRUE, s_one, s_both),
                         "blocks to eps x cond x n and the SDP's stopping gap");
    }
    priv_report_free(r1);
    priv_blocks_free(one);
  }

  /* Relabel: node u becomes perm[u]. */
  guint n = topo_graph_n_nodes(g);
  guint perm[11] = {4, 0, 7, 10, 1, 9, 3, 6, 2, 8, 5};
  gsize m;
  guint *edges = topo_graph_edges(g, &m);
  for (gsize i = 0; i < 2 * m; i++)
    edges[i] = perm[edges[i]];
  TopoGraph *pg = topo_graph_new_from_edges(n, edges, m, &err);
  g_assert_no_error(err);
  TopoGossip *pw = topo_gossip_new(pg, TOPO_GOSSIP_UNIFORM, &err);
  const TopoGossip *pws[] = {pw};
  HandRun prun = run;
  prun.gossip = pws;
  guint pS[] = {perm[S[0]], perm[S[1]]};
  PrivBlocks *pb = fast_blocks(&prun, PRIV_TRUST_PNDP, pS, 2, PRIV_ENGINE_AUTO);
  PrivReport *pr = priv_account_report(pb, pg, &exact, &err);
  PrivReport *prb = priv_account_report(pb, pg, &bound, &err);
  g_assert_no_error(err);
  /* The same covariances up to a permutation: eps x cond x n in the blocks,
   * through mu (and the SDP's stopping gap for the exact kind). */
  double ptau = dpg_tol(MAX(MAX(pb->cond, both->cond), 1.0), pb->n);
  for (guint i = 0; i < rb->n_victims; i++) {
    guint u = rb->victims[i].node;
    const PrivVictim *a = NULL, *ab = NULL;
    for (guint j = 0; j < pr->n_victims; j++)
      if (pr->victims[j].node == perm[u]) {
        a = &pr->victims[j];
        ab = &prb->victims[j];
      }
    g_assert_nonnull(a);
    g_assert_cmpint(a->distance, ==, rb->victims[i].distance);
    double xm = MAX(blocks_victim_max(both, u), blocks_victim_max(pb, perm[u]));
    double se = rb->victims[i].sensitivity, sb = rbb->victims[i].sensitivity;
    dpg_test_assert_le(fabs(a->sensitivity - se),
                       report_mu_tol(ptau, xm, k, TRUE, a->sensitivity, se),
                       "blocks to eps x cond x n and the SDP's stopping gap");
    dpg_test_assert_le(fabs(ab->sensitivity - sb),
                       report_mu_tol(ptau, xm, k, FALSE, ab->sensitivity, sb),
                       "blocks to eps x cond x n, through mu = sqrt(s2)");
  }
  priv_report_free(pr);
  priv_report_free(prb);
  priv_blocks_free(pb);
  topo_gossip_free(pw);
  topo_graph_free(pg);
  g_free(edges);
  priv_report_free(rb);
  priv_report_free(rbb);
  priv_blocks_free(both);
  topo_gossip_free(w);
  topo_graph_free(g);
}

static void test_errors(void) {
  TopoGossip *w = gossip_of("ring:n=5", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w, w};
  guint S[] = {0, 0}, out[] = {7};
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = 4,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = S,
                             .n_attackers = 2,
                             .sigma = 1.0};
  GError *err = NULL;
  g_assert_null(priv_structured_blocks(&p, &err)); /* duplicate member */
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  /* A trust model without a closed form here (a row added to the trust
   * table) is sent to the observer path. */
  p.trust = (PrivTrust)(PRIV_TRUST_SECLDP + 1);
  p.n_attackers = 1;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "has no structured accounting"));
  g_assert_nonnull(strstr(err->message, "--path observer"));
  g_clear_error(&err);
  p.trust = PRIV_TRUST_PNDP;
  p.n_attackers = 2;
  p.attackers = out;
  p.n_attackers = 1;
  g_assert_null(priv_structured_blocks(&p, &err)); /* out of range */
  g_assert_nonnull(strstr(err->message, "out of range"));
  g_clear_error(&err);
  p.n_attackers = 0;
  g_assert_null(priv_structured_blocks(&p, &err)); /* empty */
  g_clear_error(&err);
  p.attackers = S;
  p.n_attackers = 1;
  p.n_gossip = 2; /* neither 1 nor K*T */
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_nonnull(strstr(err->message, "K x T"));
  g_clear_error(&err);
  p.n_gossip = 1;
  p.K = 2; /* K is Muffliato's */
  g_assert_null(priv_structured_blocks(&p, &err));
  g_clear_error(&err);
  p.K = 1;
  p.sigma = -1;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_clear_error(&err);
  p.sigma = 1;
  p.protocol = PRIV_PROTOCOL_MFDSGD; /* no C_local */
  g_assert_null(priv_structured_blocks(&p, &err));
  g_clear_error(&err);
  p.protocol = PRIV_PROTOCOL_DSGD;
  p.max_bytes = 1000; /* too little memory */
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
  g_clear_error(&err);
  topo_gossip_free(w);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/structured/florentine-reference", test_florentine_reference);
  g_test_add_func("/privacy/account/structured/random-dsgd", test_random_dsgd);
  g_test_add_func("/privacy/account/structured/muffliato", test_muffliato);
  g_test_add_func("/privacy/account/structured/mfdsgd", test_mfdsgd);
  g_test_add_func("/privacy/account/structured/time-varying", test_time_varying);
  g_test_add_func("/privacy/account/structured/ldp-closed-form", test_ldp_closed_form);
  g_test_add_func("/privacy/account/structured/noiseless", test_noiseless);
  g_test_add_func("/privacy/account/structured/consistency", test_consistency);
  g_test_add_func("/privacy/account/structured/errors", test_errors);
  return g_test_run();
}
