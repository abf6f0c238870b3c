/*
 * tests/privacy/test_account_util.h: helpers shared by the accounting tests:
 * a hand-written synchronous D-SGD / Muffliato / MF-D-SGD loop driving
 * SimLinvec operations exactly as docs/design.md's equations say (no engine, no
 * structured shortcut), which collects an attacker set's knowledge for the
 * generic accountant; and block comparisons.
 */
#ifndef DPG_TESTS_ACCOUNT_UTIL_H
#define DPG_TESTS_ACCOUNT_UTIL_H

#include <math.h>
#include <string.h>

#include "privacy/privacy.h"
#include "tests/common/tolerance.h"
#include "tests/privacy/blocks_diff.h"

typedef struct {
  PrivProtocol protocol;
  guint K;               /* Muffliato rounds per step (1 otherwise) */
  const double *C_local; /* MF-D-SGD: T x T lower triangular, invertible */
  guint b;               /* MF-D-SGD calibration interval */
  guint T;
  const TopoGossip *const *gossip;
  guint n_gossip; /* 1 or K*T */
  double sigma, clip;
} HandRun;

/* Inverse of a lower-triangular T x T matrix by forward substitution. */
static inline double *hand_lower_inverse(const double *C, guint T) {
  double *inv = g_new0(double, (gsize)T *T);
  for (guint j = 0; j < T; j++) {
    for (guint i = j; i < T; i++) {
      double s = i == j ? 1.0 : 0.0;
      for (guint k = j; k < i; k++)
        s -= C[(gsize)i * T + k] * inv[(gsize)k * T + j];
      inv[(gsize)i * T + j] = s / C[(gsize)i * T + i];
    }
  }
  return inv;
}

/* sens_Pi(C)^2 (bound form) computed directly from C^T C. */
static inline double hand_sens2(const double *C, guint T, guint b) {
  double best = 0.0;
  for (guint j = 0; j < b; j++) {
    double s = 0.0;
    for (guint a = j; a < T; a += b)
      for (guint c = j; c < T; c += b) {
        double x = 0.0;
        for (guint r = 0; r < T; r++)
          x += C[(gsize)r * T + a] * C[(gsize)r * T + c];
        s += fabs(x);
      }
    best = MAX(best, s);
  }
  return best;
}

static inline void hand_ok(gboolean ok, GError *err) {
  g_assert_no_error(err);
  g_assert_true(ok);
}

/*
 * Runs @run with linvecs and returns attacker set @S's knowledge under
 * @trust: PNDP sees every message a member receives (from its W_r-row,
 * members included), LDP and SecLDP every message sent (each receiver's copy:
 * duplicates on purpose). PNDP and SecLDP know the members' gradients and
 * noises.
 */
static inline PrivKnowledge *hand_knowledge(const HandRun *run, PrivTrust trust, const guint *S,
                                            guint nS) {
  GError *err = NULL;
  guint n = topo_gossip_n(run->gossip[0]), T = run->T, K = run->K ? run->K : 1, R = K * T;
  gboolean *member = g_new0(gboolean, n);
  for (guint i = 0; i < nS; i++)
    member[S[i]] = TRUE;
  SimNoiseRegistry *reg = sim_noise_registry_new(n, &err);
  g_assert_no_error(err);
  SimLinSpace *space = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, &err);
  g_assert_no_error(err);
  double std = run->sigma * run->clip;
  double *Cinv = NULL;
  if (run->protocol == PRIV_PROTOCOL_MFDSGD) {
    Cinv = hand_lower_inverse(run->C_local, T);
    std *= sqrt(hand_sens2(run->C_local, T, run->b ? run->b : 1));
  }
  SimNoiseId *z = g_new(SimNoiseId, (gsize)T * n);
  for (guint k = 0; k < T; k++)
    for (guint u = 0; u < n; u++) {
      z[(gsize)k * n + u] = sim_noise_register_local(reg, std, u, k, &err);
      g_assert_no_error(err);
    }
  PrivKnowledge *kn = priv_knowledge_new(n, &err);
  g_assert_no_error(err);
  SimLinvec **theta = g_new(SimLinvec *, n), **x = g_new(SimLinvec *, n),
            **y = g_new(SimLinvec *, n);
  for (guint u = 0; u < n; u++) {
    theta[u] = sim_linvec_new(space);
    x[u] = sim_linvec_new(space);
    y[u] = sim_linvec_new(space);
  }
  for (guint r = 0; r < R; r++) {
    if (r % K == 0) {
      guint k = r / K;
      /* theta_{t+1/2} = theta_t - eta (g_t + noise_t), eta = 1 */
      for (guint u = 0; u < n; u++) {
        hand_ok(sim_linvec_copy(x[u], theta[u], &err), err);
        hand_ok(sim_linvec_add_gradient(x[u], -1.0, u, k, NULL, &err), err);
        if (Cinv) {
          for (guint s = 0; s <= k; s++)
            if (Cinv[(gsize)k * T + s] != 0.0)
              hand_ok(sim_linvec_add_noise(x[u], -Cinv[(gsize)k * T + s], z[(gsize)s * n + u], NULL,
                                           &err),
                      err);
        } else {
          hand_ok(sim_linvec_add_noise(x[u], -1.0, z[(gsize)k * n + u], NULL, &err), err);
        }
      }
    }
    const TopoGossip *w = run->gossip[run->n_gossip == 1 ? 0 : r];
    /* Messages: v receives x[w] from every other w of its row of W_r. */
    for (guint v = 0; v < n; v++) {
      const guint *cols;
      const double *vals;
      guint len = topo_gossip_row(w, v, &cols, &vals);
      for (guint j = 0; j < len; j++) {
        if (cols[j] == v)
          continue;
        gboolean seen = trust == PRIV_TRUST_PNDP ? member[v] : TRUE;
        if (seen)
          hand_ok(priv_knowledge_add_linvec(kn, x[cols[j]], &err), err);
      }
    }
    /* Gossip: y_u = sum_v W_r[u,v] x_v. */
    for (guint u = 0; u < n; u++) {
      const guint *cols;
      const double *vals;
      guint len = topo_gossip_row(w, u, &cols, &vals);
      sim_linvec_zero(y[u]);
      for (guint j = 0; j < len; j++)
        hand_ok(sim_linvec_axpy(y[u], vals[j], x[cols[j]], &err), err);
    }
    for (guint u = 0; u < n; u++)
      hand_ok(sim_linvec_copy((r + 1) % K == 0 ? theta[u] : x[u], y[u], &err), err);
  }
  for (guint i = 0; i < nS; i++) {
    hand_ok(priv_knowledge_add_attacker(kn, S[i], &err), err);
    if (trust != PRIV_TRUST_LDP)
      for (guint k = 0; k < T; k++)
        priv_knowledge_know_noise(kn, z[(gsize)k * n + S[i]]);
  }
  for (guint u = 0; u < n; u++) {
    sim_linvec_free(theta[u]);
    sim_linvec_free(x[u]);
    sim_linvec_free(y[u]);
  }
  g_free(theta);
  g_free(x);
  g_free(y);
  g_free(z);
  g_free(Cinv);
  g_free(member);
  sim_lin_space_unref(space);
  sim_noise_registry_unref(reg);
  return kn;
}

/* The generic accountant's blocks for hand_knowledge(...). */
static inline PrivBlocks *hand_blocks(const HandRun *run, PrivTrust trust, const guint *S,
                                      guint nS) {
  PrivKnowledge *kn = hand_knowledge(run, trust, S, nS);
  PrivKnowledgeOptions o = {.T = run->T, .clip = run->clip};
  GError *err = NULL;
  PrivBlocks *b = priv_knowledge_blocks(kn, &o, &err);
  g_assert_no_error(err);
  g_assert_nonnull(b);
  priv_knowledge_free(kn);
  return b;
}

/* The structured path's blocks for the same run. */
static inline PrivBlocks *fast_blocks(const HandRun *run, PrivTrust trust, const guint *S, guint nS,
                                      PrivEngine engine) {
  PrivStructuredProblem p = {.protocol = run->protocol,
                             .K = run->K,
                             .C_local = run->C_local,
                             .T = run->T,
                             .gossip = run->gossip,
                             .n_gossip = run->n_gossip,
                             .trust = trust,
                             .attackers = S,
                             .n_attackers = nS,
                             .sigma = run->sigma,
                             .b = run->b,
                             .engine = engine};
  GError *err = NULL;
  PrivBlocks *b = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  g_assert_nonnull(b);
  return b;
}

static inline TopoGossip *gossip_of(const char *spec, TopoGossipKind kind) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(spec, &err);
  g_assert_no_error(err);
  TopoGossip *w = topo_gossip_new(g, kind, &err);
  g_assert_no_error(err);
  topo_graph_free(g);
  return w;
}

/* A comparison of engines on one run (a PNDP set @S of @nS nodes). */
typedef void (*CheckEngines)(const HandRun *run, PrivTrust trust, const guint *S, guint nS);

/* The static graphs of 8 to 300 nodes both structured-engine tests run
 * @check on, under D-SGD, then Muffliato (K = 3 rounds per step, T = 3):
 * Erdos, Barabasi, regular and complete, uniform, Metropolis and
 * max-degree gossip, single attackers and collusion sets. */
static inline void run_static_cases(CheckEngines check) {
  const struct {
    const char *spec;
    TopoGossipKind kind;
    guint T;
    guint S[3], nS;
  } cases[] = {
      {"erdos:n=20,p=0.2,seed=5,connected=true", TOPO_GOSSIP_UNIFORM, 8, {0}, 1},
      {"erdos:n=40,p=0.1,seed=2,connected=true", TOPO_GOSSIP_METROPOLIS, 6, {3, 17, 30}, 3},
      {"barabasi:n=80,m=2,seed=4", TOPO_GOSSIP_UNIFORM, 6, {0}, 1},
      {"barabasi:n=120,m=3,seed=9", TOPO_GOSSIP_MAXDEGREE, 5, {7, 50}, 2},
      {"regular:n=300,d=4,seed=1", TOPO_GOSSIP_UNIFORM, 4, {0}, 1},
      {"regular:n=200,d=6,seed=3", TOPO_GOSSIP_METROPOLIS, 5, {1, 2}, 2},
      /* Every message of a Muffliato gossip-only round repeats earlier ones. */
      {"complete:n=8", TOPO_GOSSIP_UNIFORM, 4, {0}, 1},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    TopoGossip *w = gossip_of(cases[i].spec, cases[i].kind);
    const TopoGossip *ws[] = {w};
    HandRun run = {.protocol = PRIV_PROTOCOL_DSGD,
                   .K = 1,
                   .T = cases[i].T,
                   .gossip = ws,
                   .n_gossip = 1,
                   .sigma = 0.9,
                   .clip = 1.0};
    check(&run, PRIV_TRUST_PNDP, cases[i].S, cases[i].nS);
    run.protocol = PRIV_PROTOCOL_MUFFLIATO;
    run.K = 3;
    run.T = 3;
    check(&run, PRIV_TRUST_PNDP, cases[i].S, cases[i].nS);
    topo_gossip_free(w);
  }
}

/* The largest |entry| of victim @u's block in @x: the scale that
 * blocks_rel_diff's tolerance and report_mu_tol refer to. */
static inline double blocks_victim_max(const PrivBlocks *x, guint u) {
  const double *X = priv_blocks_get(x, u);
  double xmax = 0.0;
  for (guint e = 0; e < x->T * x->T; e++)
    xmax = MAX(xmax, fabs(X[e]));
  return xmax;
}

/* The largest |mu_a - mu_b| that two reports of victim blocks agreeing to
 * @tau relative to their largest entry @xmax can show, mu = sqrt(s2) with s2
 * the pattern value of k = T / b participations: s2 is a sum of at most k^2
 * entries (Thm 5.2 bound; the exact SDP value is linear in X with weights in
 * [-1, 1] summing to at most k^2 in absolute value), so |ds2| <= k^2 tau
 * xmax; the exact kind adds the SDP's stopping gap, 1e-9 max(1, v) on X
 * scaled to max |X| in [1/2, 1) (mf_sdp_max), hence at most 1e-9 k^2 2 xmax.
 * Then |dmu| = |ds2| / (mu_a + mu_b), and never more than sqrt(|ds2|). */
static inline double report_mu_tol(double tau, double xmax, guint k, gboolean exact, double mu_a,
                                   double mu_b) {
  double k2 = MAX(1.0, (double)k * k);
  double ds2 = k2 * tau * xmax + (exact ? 1e-9 * k2 * 2.0 * xmax : 0.0);
  return mu_a + mu_b > 0 ? MIN(ds2 / (mu_a + mu_b), sqrt(ds2)) : sqrt(ds2);
}

/* The reports (b = 1, 2, 4; bound and exact sensitivity) of engines @e1
 * and @e2 agree victim by victim, mu to report_mu_tol of the blocks'
 * derived tolerance eps x cond x n (as check_engines): D-SGD, T = 8, PNDP
 * collusion set {0, 4} on barabasi:n=100,m=2,seed=6. */
static inline void assert_reports_agree(PrivEngine e1, PrivEngine e2) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("barabasi:n=100,m=2,seed=6", &err);
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
  const guint S[] = {0, 4};
  PrivBlocks *x1 = fast_blocks(&run, PRIV_TRUST_PNDP, S, 2, e1);
  PrivBlocks *x2 = fast_blocks(&run, PRIV_TRUST_PNDP, S, 2, e2);
  /* Engines that do not measure cond (POWERS) report 0: the other's. */
  double tau = dpg_tol(MAX(x1->cond, x2->cond), x2->n);
  g_assert_cmpfloat(MAX(x1->cond, x2->cond), >=, 1.0);
  dpg_test_assert_le(blocks_rel_diff(x1, x2), tau, "eps x cond(message covariances) x n");
  for (guint b = 1; b <= 4; b *= 2)
    for (guint sens = 0; sens < 2; sens++) {
      PrivAccountOptions opt = {.b = b,
                                .sensitivity = sens ? MF_SENSITIVITY_EXACT
                                                    : MF_SENSITIVITY_BOUND,
                                .alpha = 2,
                                .delta = 1e-6};
      PrivReport *a = priv_account_report(x1, g, &opt, &err);
      g_assert_no_error(err);
      PrivReport *c = priv_account_report(x2, g, &opt, &err);
      g_assert_no_error(err);
      g_assert_cmpuint(a->n_victims, ==, 98);
      g_assert_cmpuint(a->n_victims, ==, c->n_victims);
      for (guint i = 0; i < a->n_victims; i++) {
        g_assert_cmpuint(a->victims[i].node, ==, c->victims[i].node);
        guint u = a->victims[i].node;
        const double *X = priv_blocks_get(x2, u);
        double xmax = 0.0;
        for (guint e = 0; e < x2->T * x2->T; e++)
          xmax = MAX(xmax, fabs(X[e]));
        double tol = report_mu_tol(tau, xmax, x2->T / b, sens, a->victims[i].mu, c->victims[i].mu);
        dpg_test_assert_le(fabs(a->victims[i].mu - c->victims[i].mu), tol,
                           "blocks to eps x cond x n, carried through mu = sqrt(s2)");
      }
      priv_report_free(a);
      priv_report_free(c);
    }
  priv_blocks_free(x1);
  priv_blocks_free(x2);
  topo_gossip_free(w);
  topo_graph_free(g);
}

#endif /* DPG_TESTS_ACCOUNT_UTIL_H */
