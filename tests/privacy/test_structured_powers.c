/*
 * tests/privacy/test_structured_powers.c: the W-power engine
 * (PRIV_ENGINE_POWERS) against the Kalman engine and the W-product (dense)
 * engine, two other formulations, on random static graphs of 20 to 300
 * nodes: Erdos (with silent nodes, so that LDP and SecLDP reach the
 * engines), Barabasi, regular, complete; PNDP, LDP and SecLDP; single
 * attackers and collusion sets; D-SGD and Muffliato; the reports for b > 1;
 * thread-count independence; an UNRESOLVED victim where a rank decision is
 * at the rounding level; AUTO's choice; the memory pre-check.
 */
#include "test_account_util.h"

/* POWERS equals KALMAN and DENSE (statuses included) to the rounding of the
 * message covariances the three factor: relative to the blocks' largest
 * entry, eps x cond x n as in test_structured_kalman.c, cond the largest
 * condition number any of the three measured (PrivBlocks.cond). POWERS's
 * own is the larger one where it matters: it forms each round's innovations
 * by subtracting from the messages' covariance, so its cond is the largest
 * message variance over the smallest kept innovation eigenvalue (KALMAN's
 * is that eigenvalue's ratio to the largest innovation one). With KALMAN's
 * cond alone the Nehalem kernel missed by 37x (Muffliato, K = 2, T = 4, LDP
 * on erdos:n=30 with isolated nodes). */
static void check_engines(const HandRun *run, PrivTrust trust, const guint *S, guint nS) {
  PrivBlocks *pow = fast_blocks(run, trust, S, nS, PRIV_ENGINE_POWERS);
  PrivBlocks *kal = fast_blocks(run, trust, S, nS, PRIV_ENGINE_KALMAN);
  PrivBlocks *den = fast_blocks(run, trust, S, nS, PRIV_ENGINE_DENSE);
  double cond = MAX(pow->cond, MAX(kal->cond, den->cond));
  g_assert_cmpfloat(pow->cond, >=, 1.0); /* measured, not a default */
  g_assert_cmpfloat(kal->cond, >=, 1.0);
  double tol = dpg_tol(cond, pow->n);
  const char *why = "eps x cond(message covariances, POWERS: variance / innovation) x n";
  g_test_message("cond %.3e (POWERS %.3e) n %u: POWERS-KALMAN %.3e POWERS-DENSE %.3e tol %.3e",
                 cond, pow->cond, pow->n, blocks_rel_diff(pow, kal), blocks_rel_diff(pow, den),
                 tol);
  dpg_test_assert_le(blocks_rel_diff(pow, kal), tol, why);
  dpg_test_assert_le(blocks_rel_diff(pow, den), tol, why);
  /* Not a vacuous comparison: some victim learns something. */
  double mx = 0.0;
  for (gsize i = 0; i < (gsize)pow->n * pow->T * pow->T; i++)
    mx = MAX(mx, fabs(pow->X[i]));
  g_assert_cmpfloat(mx, >, 1e-3);
  priv_blocks_free(pow);
  priv_blocks_free(kal);
  priv_blocks_free(den);
}

static void test_static_graphs(void) {
  run_static_cases(check_engines);
}

/* LDP and SecLDP take an engine on a static W only when some node sends
 * nothing: sparse Erdos graphs with isolated nodes. */
static void test_silent_nodes(void) {
  const char *specs[] = {"erdos:n=30,p=0.06,seed=1", "erdos:n=60,p=0.03,seed=4"};
  for (guint i = 0; i < G_N_ELEMENTS(specs); i++) {
    GError *err = NULL;
    TopoGraph *g = topo_graph_generate(specs[i], &err);
    g_assert_no_error(err);
    guint isolated = 0;
    for (guint u = 0; u < topo_graph_n_nodes(g); u++)
      isolated += topo_graph_degree(g, u) == 0;
    g_assert_cmpuint(isolated, >, 0);
    TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
    g_assert_no_error(err);
    const TopoGossip *ws[] = {w};
    const guint S[] = {1, 7};
    for (guint K = 1; K <= 2; K++) {
      HandRun run = {.protocol = K == 1 ? PRIV_PROTOCOL_DSGD : PRIV_PROTOCOL_MUFFLIATO,
                     .K = K,
                     .T = 4,
                     .gossip = ws,
                     .n_gossip = 1,
                     .sigma = 1.3,
                     .clip = 1.0};
      check_engines(&run, PRIV_TRUST_LDP, S, 1);
      check_engines(&run, PRIV_TRUST_SECLDP, S, 2);
      check_engines(&run, PRIV_TRUST_PNDP, S, 2);
    }
    topo_gossip_free(w);
    topo_graph_free(g);
  }
}

/* b > 1 and both sensitivities: the reports agree victim by victim. */
static void test_reports_b(void) {
  assert_reports_agree(PRIV_ENGINE_POWERS, PRIV_ENGINE_KALMAN);
}

static PrivBlocks *powers_blocks(const TopoGossip *const *ws, guint T, const guint *S, guint nS,
                                 PrivEngine engine, guint threads, gsize max_bytes,
                                 GError **error) {
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = T,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = S,
                             .n_attackers = nS,
                             .sigma = 1.0,
                             .engine = engine,
                             .threads = threads,
                             .max_bytes = max_bytes};
  return priv_structured_blocks(&p, error);
}

/* Several chunks of victims, shared out across 1, 2 and 3 threads: the
 * same bytes. */
static void test_threads_identical(void) {
  TopoGossip *w = gossip_of("regular:n=800,d=6,seed=2", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S[] = {0, 1, 2, 3, 4, 5, 6, 7};
  GError *err = NULL;
  PrivBlocks *b[3];
  for (guint t = 0; t < 3; t++) {
    b[t] = powers_blocks(ws, 10, S, 8, PRIV_ENGINE_POWERS, t + 1, 0, &err);
    g_assert_no_error(err);
  }
  for (guint t = 1; t < 3; t++) {
    g_assert_cmpint(memcmp(b[0]->X, b[t]->X, sizeof(double) * b[0]->n * 100), ==, 0);
    g_assert_cmpint(memcmp(b[0]->status, b[t]->status, sizeof(*b[0]->status) * b[0]->n), ==, 0);
  }
  for (guint t = 0; t < 3; t++)
    priv_blocks_free(b[t]);
  topo_gossip_free(w);
}

/* A 3-node path 0 - 1 - 2, attacker 0 hearing node 1 only, Muffliato with
 * K = 2: in the gossip-only round 1, node 1's message differs from what
 * the attacker can predict by delta x_0[2] (W[1,2] = delta), a variance
 * delta^2 against node 1's own 1/4. */
static TopoGossip *path_gossip(double delta) {
  const guint ptr[] = {0, 2, 5, 7}, cols[] = {0, 1, 0, 1, 2, 1, 2};
  const double vals[] = {0.5, 0.5, 0.5, 0.5 - delta, delta, 0.5, 0.5};
  GError *err = NULL;
  TopoGossip *w = topo_gossip_new_csr(3, ptr, cols, vals, &err);
  g_assert_no_error(err);
  return w;
}

/* delta = 1e-6: that innovation (1e-12) is within the rounding of the
 * round's messages (1e-9 of their variance), and it carries victim 2's
 * information: UNRESOLVED, never a number. delta = 1e-2: far from the
 * threshold, the same numbers as the Kalman engine. */
static void test_unresolved_near_threshold(void) {
  const guint S[] = {0};
  for (guint i = 0; i < 2; i++) {
    TopoGossip *w = path_gossip(i == 0 ? 1e-6 : 1e-2);
    const TopoGossip *ws[] = {w};
    HandRun run = {.protocol = PRIV_PROTOCOL_MUFFLIATO,
                   .K = 2,
                   .T = 2,
                   .gossip = ws,
                   .n_gossip = 1,
                   .sigma = 1.0,
                   .clip = 1.0};
    PrivBlocks *pow = fast_blocks(&run, PRIV_TRUST_PNDP, S, 1, PRIV_ENGINE_POWERS);
    PrivBlocks *kal = fast_blocks(&run, PRIV_TRUST_PNDP, S, 1, PRIV_ENGINE_KALMAN);
    g_assert_cmpint(pow->status[1], ==, PRIV_NODE_PROTECTED);
    if (i == 0) {
      g_assert_cmpint(pow->status[2], ==, PRIV_NODE_UNRESOLVED);
      PrivReport *r = priv_account_report(pow, NULL, NULL, NULL);
      g_assert_nonnull(r);
      g_assert_true(r->victims[1].unresolved);
      g_assert_false(isfinite(r->victims[1].mu));
      priv_report_free(r);
    } else {
      g_assert_cmpfloat(blocks_rel_diff(pow, kal), <, 1e-9);
      g_assert_cmpfloat(pow->X[2 * 4], >, 0.1);
    }
    priv_blocks_free(pow);
    priv_blocks_free(kal);
    topo_gossip_free(w);
  }
}

/* AUTO takes POWERS where it is cheaper (few rounds on a larger graph: the
 * same bytes as asking for it), KALMAN on a long horizon over a small one. */
static void test_auto_choice(void) {
  const guint S[] = {0};
  GError *err = NULL;
  TopoGossip *big = gossip_of("regular:n=600,d=4,seed=5", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *wb[] = {big};
  PrivBlocks *a = powers_blocks(wb, 3, S, 1, PRIV_ENGINE_AUTO, 1, 0, &err);
  PrivBlocks *p = powers_blocks(wb, 3, S, 1, PRIV_ENGINE_POWERS, 1, 0, &err);
  g_assert_no_error(err);
  g_assert_cmpint(memcmp(a->X, p->X, sizeof(double) * 600 * 9), ==, 0);
  priv_blocks_free(a);
  priv_blocks_free(p);
  TopoGossip *small = gossip_of("barabasi:n=30,m=3,seed=5", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {small};
  a = powers_blocks(ws, 60, S, 1, PRIV_ENGINE_AUTO, 1, 0, &err);
  PrivBlocks *k = powers_blocks(ws, 60, S, 1, PRIV_ENGINE_KALMAN, 1, 0, &err);
  g_assert_no_error(err);
  g_assert_cmpint(memcmp(a->X, k->X, sizeof(double) * 30 * 3600), ==, 0);
  priv_blocks_free(a);
  priv_blocks_free(k);
  topo_gossip_free(big);
  topo_gossip_free(small);
}

/* The pre-check refuses before allocating and names the engine; a
 * time-varying W is refused. */
static void test_refusals(void) {
  TopoGossip *w = gossip_of("regular:n=100,d=4,seed=1", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w, w, w, w};
  const guint S[] = {0};
  GError *err = NULL;
  g_assert_null(powers_blocks(ws, 4, S, 1, PRIV_ENGINE_POWERS, 1, 100 * 16 * 8 + 4096, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
  g_assert_nonnull(strstr(err->message, "structured (W-power) accounting would need"));
  g_clear_error(&err);
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = 4,
                             .gossip = ws,
                             .n_gossip = 4,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = S,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .engine = PRIV_ENGINE_POWERS};
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "static gossip matrix"));
  g_clear_error(&err);
  topo_gossip_free(w);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/structured_powers/static_graphs", test_static_graphs);
  g_test_add_func("/structured_powers/silent_nodes", test_silent_nodes);
  g_test_add_func("/structured_powers/reports_b", test_reports_b);
  g_test_add_func("/structured_powers/threads_identical", test_threads_identical);
  g_test_add_func("/structured_powers/unresolved_near_threshold", test_unresolved_near_threshold);
  g_test_add_func("/structured_powers/auto_choice", test_auto_choice);
  g_test_add_func("/structured_powers/refusals", test_refusals);
  return g_test_run();
}
