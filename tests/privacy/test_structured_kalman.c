/*
 * tests/privacy/test_structured_kalman.c: the sparse Kalman engine
 * (PRIV_ENGINE_KALMAN) against the dense-propagator Kalman engine and the
 * W-product (dense) engine, two independent formulations, on random graphs
 * of 20 to 300 nodes: Erdos, Barabasi, regular; PNDP, LDP and SecLDP;
 * single attackers and collusion sets; static and time-varying W
 * (matching, resample, edge failures, exponential); D-SGD and Muffliato;
 * the reports for b > 1; thread-count independence; the memory pre-check.
 */
#include "test_account_util.h"

/* KALMAN equals KALMAN_DENSE and DENSE (statuses included) to the rounding
 * of the message covariances they factor: relative to the blocks' largest
 * entry, eps x cond x n, cond the largest condition number of a covariance
 * any of the three engines factored (PrivBlocks.cond: eigenvalues kept by
 * the Kalman whitenings, pivots of the dense engine's Cholesky), n the
 * dimension of the n x n state covariance each round updates. Measured on
 * these cases: cond from 1.2 to 2.5e6, differences up to 8.5 eps cond
 * (OpenBLAS Haswell and Prescott kernels), inside the bound's n >= 8. */
static void check_engines(const HandRun *run, PrivTrust trust, const guint *S, guint nS) {
  PrivBlocks *kal = fast_blocks(run, trust, S, nS, PRIV_ENGINE_KALMAN);
  PrivBlocks *ref = fast_blocks(run, trust, S, nS, PRIV_ENGINE_KALMAN_DENSE);
  PrivBlocks *den = fast_blocks(run, trust, S, nS, PRIV_ENGINE_DENSE);
  double cond = MAX(kal->cond, MAX(ref->cond, den->cond));
  g_assert_cmpfloat(kal->cond, >=, 1.0); /* measured, not a default */
  g_test_message("cond %.3e n %u", cond, kal->n);
  const char *why = "eps x cond(message covariances) x n";
  dpg_test_assert_le(blocks_rel_diff(kal, ref), dpg_tol(cond, kal->n), why);
  dpg_test_assert_le(blocks_rel_diff(kal, den), dpg_tol(cond, kal->n), why);
  /* Not a vacuous comparison: some victim learns something. */
  double mx = 0.0;
  for (gsize i = 0; i < (gsize)kal->n * kal->T * kal->T; i++)
    mx = MAX(mx, fabs(kal->X[i]));
  g_assert_cmpfloat(mx, >, 1e-3);
  priv_blocks_free(kal);
  priv_blocks_free(ref);
  priv_blocks_free(den);
}

static void test_static_graphs(void) {
  run_static_cases(check_engines);
}

/* Time-varying W: LDP and SecLDP then need an engine (silent nodes). */
static void test_time_varying(void) {
  const struct {
    const char *base, *sched;
    guint S[2], nS;
  } cases[] = {
      {"erdos:n=30,p=0.15,seed=3,connected=true", "matching:complete=true", {0}, 1},
      {"regular:n=60,d=4,seed=2", "matching", {5, 9}, 2},
      {"barabasi:n=50,m=2,seed=8", "edge-failure:p=0.4", {0}, 1},
      {NULL, "resample:erdos:n=40,p=0.08", {2}, 1},
      {"ring:n=24", "exponential", {1, 13}, 2},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    GError *err = NULL;
    TopoGraph *base = cases[i].base ? topo_graph_generate(cases[i].base, &err) : NULL;
    g_assert_no_error(err);
    TopoSchedule *sch = topo_schedule_new(cases[i].sched, base, TOPO_GOSSIP_UNIFORM, 17, &err);
    g_assert_no_error(err);
    for (guint K = 1; K <= 2; K++) {
      guint T = 4, R = K * T;
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
                     .sigma = 1.2,
                     .clip = 1.0};
      check_engines(&run, PRIV_TRUST_PNDP, cases[i].S, cases[i].nS);
      check_engines(&run, PRIV_TRUST_SECLDP, cases[i].S, cases[i].nS);
      if (i < 2)
        check_engines(&run, PRIV_TRUST_LDP, cases[i].S, cases[i].nS);
      for (guint r = 0; r < R; r++)
        topo_gossip_free(ws[r]);
      g_free(ws);
    }
    topo_schedule_free(sch);
    topo_graph_free(base);
  }
}

/* b > 1: the reports of the two Kalman engines agree victim by victim. */
static void test_reports_b2(void) {
  assert_reports_agree(PRIV_ENGINE_KALMAN, PRIV_ENGINE_KALMAN_DENSE);
}

static PrivBlocks *kalman_threads(const TopoGossip *const *ws, guint T, const guint *S, guint nS,
                                  guint threads) {
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = T,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = S,
                             .n_attackers = nS,
                             .sigma = 1.0,
                             .engine = PRIV_ENGINE_KALMAN,
                             .threads = threads};
  GError *err = NULL;
  PrivBlocks *b = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  return b;
}

/* Large enough that the sparse products are split across threads. */
static void test_threads_identical(void) {
  TopoGossip *w = gossip_of("regular:n=800,d=6,seed=2", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S[] = {0, 1, 2, 3, 4, 5, 6, 7};
  PrivBlocks *one = kalman_threads(ws, 40, S, 8, 1);
  PrivBlocks *three = kalman_threads(ws, 40, S, 8, 3);
  g_assert_cmpint(memcmp(one->X, three->X, sizeof(double) * one->n * 40 * 40), ==, 0);
  g_assert_cmpint(memcmp(one->status, three->status, sizeof(*one->status) * one->n), ==, 0);
  priv_blocks_free(one);
  priv_blocks_free(three);
  topo_gossip_free(w);
}

/* The pre-check refuses before allocating and says how much is needed. */
static void test_memory_budget(void) {
  TopoGossip *w = gossip_of("regular:n=100,d=4,seed=1", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S[] = {0};
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = 10,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = S,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .engine = PRIV_ENGINE_KALMAN,
                             /* the blocks (n T^2) fit, P and W P do not */
                             .max_bytes = 100 * 100 * 8 + 100 * 100 * 8};
  GError *err = NULL;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
  g_assert_nonnull(strstr(err->message, "structured (Kalman) accounting would need"));
  g_clear_error(&err);
  p.max_bytes = 8u << 20;
  PrivBlocks *b = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  priv_blocks_free(b);
  topo_gossip_free(w);
}

/* The progress callback goes from 0 to 1, never backwards. */
static void on_progress(double f, const char *what, gpointer data) {
  double *last = data;
  g_assert_nonnull(what);
  g_assert_cmpfloat(f, >=, *last);
  g_assert_cmpfloat(f, <=, 1.0);
  *last = f;
}

static void test_progress(void) {
  TopoGossip *w = gossip_of("barabasi:n=60,m=2,seed=1", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  const guint S[] = {0};
  double last = 0.0;
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = 12,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = S,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .progress = on_progress,
                             .progress_data = &last};
  GError *err = NULL;
  PrivBlocks *b = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(last, ==, 1.0);
  priv_blocks_free(b);
  topo_gossip_free(w);
}

/* The generic accountant on knowledge built by hand with linvecs (no
 * structure used) agrees on a 100-node graph. */
static void test_generic(void) {
  TopoGossip *w = gossip_of("barabasi:n=100,m=2,seed=12", TOPO_GOSSIP_UNIFORM);
  const TopoGossip *ws[] = {w};
  HandRun run = {.protocol = PRIV_PROTOCOL_MUFFLIATO,
                 .K = 2,
                 .T = 3,
                 .gossip = ws,
                 .n_gossip = 1,
                 .sigma = 1.0,
                 .clip = 1.0};
  const guint S[] = {0, 40};
  PrivBlocks *gen = hand_blocks(&run, PRIV_TRUST_PNDP, S, 2);
  PrivBlocks *kal = fast_blocks(&run, PRIV_TRUST_PNDP, S, 2, PRIV_ENGINE_KALMAN);
  g_assert_cmpfloat(blocks_rel_diff(kal, gen), <, 1e-9);
  priv_blocks_free(gen);
  priv_blocks_free(kal);
  topo_gossip_free(w);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/structured/kalman/static-graphs", test_static_graphs);
  g_test_add_func("/privacy/structured/kalman/time-varying", test_time_varying);
  g_test_add_func("/privacy/structured/kalman/generic", test_generic);
  g_test_add_func("/privacy/structured/kalman/reports-b2", test_reports_b2);
  g_test_add_func("/privacy/structured/kalman/threads-identical", test_threads_identical);
  g_test_add_func("/privacy/structured/kalman/memory-budget", test_memory_budget);
  g_test_add_func("/privacy/structured/kalman/progress", test_progress);
  return g_test_run();
}
