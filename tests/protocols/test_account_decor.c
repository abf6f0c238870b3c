/*
 * tests/protocols/test_account_decor.c: DECOR (edge secrets) on the
 * structured path against the observer path (simulation + streaming
 * accountant, an independent formulation: the square-root filter over the
 * run's provenance, secrets as noise variables).
 *
 * The structured path's model: a step's unknown injection noise has
 * covariance Q_t = sigma^2 D + sigma_s^2 L'_t (D: the nodes whose noise the
 * attackers do not know, L'_t: the Laplacian of W_t's edges whose secret
 * they do not know). PNDP goes through the Kalman engine with Q_t added to
 * the prior at each injection; LDP and SecLDP on gossip where every node
 * sends in every round through the closed form X_u[t,t] = (Q_t^-1)_{uu},
 * checked here against the Kalman engine too.
 *
 * Random graphs of 20 to 300 nodes, static and edge-failure gossip, the
 * three trust models, one attacker and a collusion set, b = 1 and 2 (the
 * reports), sigma_secret != sigma; the same statuses everywhere;
 * sigma_secret = 0 gives D-SGD's blocks.
 *
 * Tolerance. Both sides are backward-stable factorizations (the Kalman
 * engine's eigen-whitening per round, the observer's pivoted QR) of the
 * covariance of the messages seen, whose condition number on the kept
 * range is at most PRIV_STRUCT_RANK_TOL^-1 = 1e11 by the engines'
 * threshold and in these runs far less: the innovations' covariance of a
 * round is P-conditioned by the injection (eigenvalues of Q_t in [sigma^2,
 * sigma^2 + 2 sigma_s^2 d_max] by Gershgorin) against the propagated
 * prior. The test measures kappa = lambda_max / lambda_min of every round's
 * innovation covariance with a dense Kalman filter of its own (see
 * innovation_kappa), and accepts |X - X'| <= 16 R kappa eps max|X'|: a
 * forward error of kappa eps per factorization, accumulated over R rounds,
 * with a factor 16 for the two methods' constant factors (both O(1) per
 * Householder step / eigensolve).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "observe_test.h"
#include "privacy/structured.h"
#include "protocols/protocols.h"

typedef struct {
  const char *graph, *schedule; /* schedule NULL: static */
  guint T;
  double sigma, sigma_s;
} Case;

static const guint set_a[] = {0}, set_b[] = {2, 5, 7};
static const ObsView views[] = {
    {PRIV_TRUST_LDP, set_a, 1},  {PRIV_TRUST_LDP, set_b, 3},    {PRIV_TRUST_PNDP, set_a, 1},
    {PRIV_TRUST_PNDP, set_b, 3}, {PRIV_TRUST_SECLDP, set_a, 1}, {PRIV_TRUST_SECLDP, set_b, 3},
};
#define N_VIEWS G_N_ELEMENTS(views)

/* The run's gossip matrices, as the simulation uses them (1 or T). */
typedef struct {
  TopoGraph *g;
  TopoSchedule *s;
  TopoGossip **ws;
  guint n_ws;
} Gossip;

static Gossip gossip_of(const Case *c) {
  GError *err = NULL;
  Gossip G = {0};
  G.g = topo_graph_generate(c->graph, &err);
  g_assert_no_error(err);
  if (c->schedule) {
    G.s = topo_schedule_new(c->schedule, G.g, TOPO_GOSSIP_UNIFORM, 3, &err);
    g_assert_no_error(err);
    G.n_ws = c->T;
    G.ws = g_new(TopoGossip *, c->T);
    for (guint r = 0; r < c->T; r++) {
      G.ws[r] = topo_schedule_gossip(G.s, r, &err);
      g_assert_no_error(err);
    }
  } else {
    G.n_ws = 1;
    G.ws = g_new(TopoGossip *, 1);
    G.ws[0] = topo_gossip_new(G.g, TOPO_GOSSIP_UNIFORM, &err);
    g_assert_no_error(err);
  }
  return G;
}

static void gossip_clear(Gossip *G) {
  for (guint r = 0; r < G->n_ws; r++)
    topo_gossip_free(G->ws[r]);
  g_free(G->ws);
  if (G->s)
    topo_schedule_free(G->s);
  topo_graph_free(G->g);
}

/* The observer path's blocks of every view (streaming, backward engine). */
static PrivBlocks **observer(const Case *c, guint b) {
  char *proto = g_strdup_printf("decor:sigma_secret=%.17g", c->sigma_s);
  ObsSpec spec = {.graph = c->graph,
                  .schedule = c->schedule,
                  .schedule_seed = 3,
                  .protocol = proto,
                  .sigma = c->sigma,
                  .clip = 1.0,
                  .T = c->T,
                  .b = b,
                  .seed = 5};
  const ObsAccountant acc = {TRUE, PRIV_STREAM_BACKWARD, 0, 0, FALSE};
  ObsRun o = obs_run_spec(&spec, views, N_VIEWS, &acc);
  PrivBlocks **out = obs_run_blocks(&o);
  obs_run_clear(&o);
  g_free(proto);
  return out;
}

static PrivBlocks *structured(const Case *c, const Gossip *G, const ObsView *v,
                              PrivProtocol protocol, double sigma_s, PrivEngine engine) {
  PrivStructuredProblem p = {.protocol = protocol,
                             .T = c->T,
                             .gossip = (const TopoGossip *const *)G->ws,
                             .n_gossip = G->n_ws,
                             .trust = v->trust,
                             .attackers = v->members,
                             .n_attackers = v->n_members,
                             .sigma = c->sigma,
                             .sigma_secret = sigma_s,
                             .engine = engine};
  GError *err = NULL;
  PrivBlocks *blocks = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  return blocks;
}

/*
 * The largest condition number of a round's innovation covariance
 * Sigma_r = E_r P_r E_r^T (on its range above the engines' threshold) for
 * view @v: a dense Kalman filter over the n node states with DECOR's Q_t
 * (unit local noise), written here from the model, independently of the
 * engines. O(T n^3).
 */
static double innovation_kappa(const Case *c, const Gossip *G, const ObsView *v) {
  guint n = topo_graph_n_nodes(G->g), T = c->T;
  double s2 = (c->sigma_s / c->sigma) * (c->sigma_s / c->sigma);
  gboolean *att = g_new0(gboolean, n);
  for (guint i = 0; i < v->n_members; i++)
    att[v->members[i]] = TRUE;
  double *P = g_new0(double, (gsize)n *n), *Pn = g_new0(double, (gsize)n *n);
  double kappa = 1.0;
  for (guint t = 0; t < T; t++) {
    double *W = topo_gossip_dense(G->ws[G->n_ws == 1 ? 0 : t]);
    /* The injection Q_t. */
    for (guint u = 0; u < n; u++) {
      if (v->trust == PRIV_TRUST_LDP || !att[u])
        P[(gsize)u * n + u] += 1.0;
      for (guint w = u + 1; w < n; w++) {
        gboolean edge = W[(gsize)u * n + w] != 0 || W[(gsize)w * n + u] != 0;
        gboolean known = v->trust != PRIV_TRUST_LDP && (att[u] || att[w]);
        if (!edge || known)
          continue;
        P[(gsize)u * n + u] += s2;
        P[(gsize)w * n + w] += s2;
        P[(gsize)u * n + w] -= s2;
        P[(gsize)w * n + u] -= s2;
      }
    }
    /* The messages seen: PNDP the attackers' in-neighbours, else every
     * sender (less the attackers under SecLDP). */
    guint *rv = g_new(guint, n), q = 0;
    for (guint u = 0; u < n; u++) {
      gboolean sends = FALSE, to_attacker = FALSE;
      for (guint w = 0; w < n; w++)
        if (w != u && W[(gsize)w * n + u] != 0) {
          sends = TRUE;
          to_attacker |= att[w];
        }
      gboolean seen = v->trust == PRIV_TRUST_LDP      ? sends
                      : v->trust == PRIV_TRUST_SECLDP ? sends && !att[u]
                                                      : to_attacker && !att[u];
      if (seen)
        rv[q++] = u;
    }
    if (q > 0) {
      double *S = g_new(double, (gsize)q *q), *lam = g_new(double, q);
      for (guint i = 0; i < q; i++)
        for (guint j = 0; j < q; j++)
          S[(gsize)i * q + j] = P[(gsize)rv[i] * n + rv[j]];
      g_assert_cmpint(
          LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)q, S, (lapack_int)q, lam), ==, 0);
      double lmax = lam[q - 1], lmin = lmax;
      /* A decision, the engines' own (PRIV_STRUCT_RANK_TOL = 1e-11): the
       * eigensolver's rounding is eps q lmax ~ 1e-14 lmax, so a kept
       * direction is at least ~1000x above it, and the reference keeps what
       * the engines keep. */
      for (guint i = 0; i < q; i++)
        if (lam[i] > 1e-11 * lmax)
          lmin = MIN(lmin, lam[i]);
      kappa = MAX(kappa, lmax / lmin);
      /* Condition: P -= P E^T Sigma^+ E P over the kept eigenpairs. */
      double *Y = g_new0(double, (gsize)n *q);
      guint k = 0;
      for (guint e = q; e-- > 0;) {
        if (!(lam[e] > 1e-11 * lmax)) /* the same decision as above */
          break;
        for (guint x = 0; x < n; x++) {
          double acc = 0.0;
          for (guint j = 0; j < q; j++)
            acc += P[(gsize)x * n + rv[j]] * S[(gsize)j * q + e];
          Y[(gsize)x * q + k] = acc / sqrt(lam[e]);
        }
        k++;
      }
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)k, -1.0, Y, (int)q,
                  Y, (int)q, 1.0, P, (int)n);
      g_free(Y);
      g_free(S);
      g_free(lam);
    }
    g_free(rv);
    /* P <- W P W^T. */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, W, (int)n,
                P, (int)n, 0.0, Pn, (int)n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)n, 1.0, Pn, (int)n, W,
                (int)n, 0.0, P, (int)n);
    g_free(W);
  }
  g_free(P);
  g_free(Pn);
  g_free(att);
  return kappa;
}

/* Same statuses; every entry within @tol of @want's largest one. Returns
 * the pairs (victim, protected, nonzero block) compared. */
static guint assert_same(const PrivBlocks *want, const PrivBlocks *got, double tol) {
  guint T = want->T, seen = 0;
  g_assert_cmpuint(got->n, ==, want->n);
  g_assert_cmpuint(got->T, ==, T);
  for (guint u = 0; u < want->n; u++) {
    g_assert_cmpint(got->status[u], ==, want->status[u]);
    const double *x = priv_blocks_get(want, u), *y = priv_blocks_get(got, u);
    double scale = 0.0;
    for (gsize i = 0; i < (gsize)T * T; i++)
      scale = MAX(scale, fabs(x[i]));
    for (gsize i = 0; i < (gsize)T * T; i++)
      if (!(fabs(x[i] - y[i]) <= tol * scale))
        g_error("node %u entry (%zu,%zu): %.17g vs %.17g (tolerance %.3g of %.3g)", u,
                (size_t)(i / T), (size_t)(i % T), x[i], y[i], tol, scale);
    seen += want->status[u] == PRIV_NODE_PROTECTED && scale > 0;
  }
  return seen;
}

static void compare(gconstpointer data) {
  const Case *c = data;
  Gossip G = gossip_of(c);
  guint n = topo_graph_n_nodes(G.g);
  const guint bs[] = {1, 2};
  PrivBlocks **obs = observer(c, 1);
  for (guint v = 0; v < N_VIEWS; v++) {
    double kappa = innovation_kappa(c, &G, &views[v]);
    double tol = 16.0 * c->T * kappa * DBL_EPSILON;
    g_test_message("%s%s%s view %u: kappa %.3g, tolerance %.3g", c->graph, c->schedule ? " " : "",
                   c->schedule ? c->schedule : "", v, kappa, tol);
    PrivBlocks *st = structured(c, &G, &views[v], PRIV_PROTOCOL_DECOR, c->sigma_s,
                                PRIV_ENGINE_AUTO);
    g_assert_cmpuint(assert_same(obs[v], st, tol), >, 0);
    /* The closed form (LDP, SecLDP) against the Kalman engine it bypasses;
     * PNDP: the sparse Kalman engine against the dense-propagator one. */
    if (n <= 120) {
      PrivEngine e = views[v].trust == PRIV_TRUST_PNDP ? PRIV_ENGINE_KALMAN_DENSE
                                                       : PRIV_ENGINE_KALMAN;
      PrivBlocks *k = structured(c, &G, &views[v], PRIV_PROTOCOL_DECOR, c->sigma_s, e);
      assert_same(st, k, tol);
      priv_blocks_free(k);
    }
    /* The reports under (T/b, b)-participation agree too. */
    for (guint ib = 0; ib < G_N_ELEMENTS(bs); ib++) {
      if (c->T % bs[ib])
        continue;
      PrivAccountOptions ao = {.b = bs[ib]};
      GError *err = NULL;
      PrivReport *ro = priv_account_report(obs[v], G.g, &ao, &err);
      g_assert_no_error(err);
      PrivReport *rs = priv_account_report(st, G.g, &ao, &err);
      g_assert_no_error(err);
      g_assert_cmpuint(ro->n_victims, ==, rs->n_victims);
      for (guint i = 0; i < ro->n_victims; i++) {
        g_assert_cmpint(ro->victims[i].unprotected, ==, rs->victims[i].unprotected);
        /* rdp is linear in the sensitivity, a sum of at most T^2 entries
         * of the block. */
        g_assert_cmpfloat(fabs(ro->victims[i].rdp - rs->victims[i].rdp), <=,
                          tol * c->T * c->T * MAX(1.0, rs->victims[i].rdp));
      }
      priv_report_free(ro);
      priv_report_free(rs);
    }
    priv_blocks_free(st);
  }
  obs_blocks_free(obs, N_VIEWS);
  gossip_clear(&G);
}

/* sigma_secret = 0: D-SGD's blocks, on both paths. */
static void test_no_secret(void) {
  Case c = {"erdos:n=30,p=0.15,seed=8", NULL, 4, 0.7, 0.0};
  Gossip G = gossip_of(&c);
  PrivBlocks **obs = observer(&c, 1);
  for (guint v = 0; v < N_VIEWS; v++) {
    PrivBlocks *d = structured(&c, &G, &views[v], PRIV_PROTOCOL_DSGD, 0.0, PRIV_ENGINE_AUTO);
    PrivBlocks *s = structured(&c, &G, &views[v], PRIV_PROTOCOL_DECOR, 0.0, PRIV_ENGINE_AUTO);
    g_assert_cmpuint(assert_same(d, s, 0.0), >, 0);
    assert_same(d, obs[v], 1e-9);
    priv_blocks_free(d);
    priv_blocks_free(s);
  }
  obs_blocks_free(obs, N_VIEWS);
  gossip_clear(&G);
}

/* What the structured path refuses for DECOR, with the reason. */
static void test_refusals(void) {
  Case c = {"regular:n=20,d=4,seed=1", NULL, 2, 1.0, 1.0};
  Gossip G = gossip_of(&c);
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DECOR,
                             .T = 2,
                             .gossip = (const TopoGossip *const *)G.ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = set_a,
                             .n_attackers = 1,
                             .sigma = 0.0,
                             .sigma_secret = 1.0};
  GError *err = NULL;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "sigma = 0 < sigma_secret"));
  g_clear_error(&err);
  p.sigma = 1.0;
  p.engine = PRIV_ENGINE_POWERS;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  p.engine = PRIV_ENGINE_AUTO;
  p.sigma_secret = NAN;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  /* The closed form's n x n covariance is checked against the budget. */
  p.sigma_secret = 1.0;
  p.trust = PRIV_TRUST_SECLDP;
  p.max_bytes = 1000;
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
  g_assert_nonnull(strstr(err->message, "DECOR"));
  g_clear_error(&err);
  gossip_clear(&G);
}

static const Case cases[] = {
    {"erdos:n=20,p=0.2,seed=3", NULL, 5, 0.7, 1.3},
    {"barabasi:n=40,m=2,seed=7", NULL, 4, 1.0, 0.5},
    {"regular:n=60,d=4,seed=2", NULL, 4, 0.7, 2.0},
    {"erdos:n=30,p=0.15,seed=8", "edge-failure:p=0.3", 4, 0.8, 1.0},
    {"regular:n=300,d=6,seed=4", NULL, 2, 1.0, 1.0},
};

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *name = g_strdup_printf("/account/decor/structured-%u", i);
    g_test_add_data_func(name, &cases[i], compare);
    g_free(name);
  }
  g_test_add_func("/account/decor/no-secret", test_no_secret);
  g_test_add_func("/account/decor/refusals", test_refusals);
  return g_test_run();
}
