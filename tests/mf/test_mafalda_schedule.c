/*
 * tests/mf/test_mafalda_schedule.c: Mafalda's objective over a random gossip
 * schedule (docs/design.md, "Mafalda over a changing network"). The exact
 * expected Gram matrix E[H] of i.i.d. rounds (mf_gram_iid on
 * topo_schedule_round_moments) against brute-force enumeration of every
 * schedule of a few rounds on 5-node graphs; the round laws against an
 * independent enumeration (every edge order of the greedy matching), a
 * closed form (matching among all pairs) and the sampler itself; the
 * sampled estimate's 95% interval against the exact value, its coverage
 * checked against a band from the binomial law.
 */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

#include "mf/mf.h"
#include "tests/common/checks.h"
#include "tests/common/tolerance.h"
#include "topologies/topologies.h"

/* A 5-node graph: a path 0-1-2-3 with a pendant 4 on 2 and a chord 1-3. */
static const guint g5_edges[] = {0, 1, 1, 2, 2, 3, 2, 4, 1, 3};
#define G5_M 5

static TopoGraph *graph5(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_new_from_edges(5, g5_edges, G5_M, &err);
  g_assert_no_error(err);
  return g;
}

static TopoSchedule *schedule(const char *spec, const TopoGraph *g, guint64 seed) {
  GError *err = NULL;
  TopoSchedule *s = topo_schedule_new(spec, g, TOPO_GOSSIP_METROPOLIS, seed, &err);
  g_assert_no_error(err);
  return s;
}

/* Dense Metropolis W of @g's subgraph with the @k edges @e. */
static double *dense_of_edges(guint n, const guint *e, gsize k) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_new_from_edges(n, e, k, &err);
  g_assert_no_error(err);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_METROPOLIS, &err);
  g_assert_no_error(err);
  double *W = topo_gossip_dense(w);
  topo_gossip_free(w);
  topo_graph_free(g);
  return W;
}

/* A finite law: K dense outcomes with probabilities. */
typedef struct {
  guint n, K;
  double **W;
  double *p;
} Law;

static void law_free(Law *l) {
  for (guint i = 0; i < l->K; i++)
    g_free(l->W[i]);
  g_free(l->W);
  g_free(l->p);
}

/* Adds outcome @W with probability @p, merging an equal matrix. */
static void law_add(Law *l, double *W, double p) {
  gsize nn = (gsize)l->n * l->n;
  for (guint i = 0; i < l->K; i++)
    if (memcmp(l->W[i], W, nn * sizeof(double)) == 0) {
      l->p[i] += p;
      g_free(W);
      return;
    }
  l->W = g_renew(double *, l->W, l->K + 1);
  l->p = g_renew(double, l->p, l->K + 1);
  l->W[l->K] = W;
  l->p[l->K++] = p;
}

typedef struct {
  const double *const *Wt;
} Seq;

static const double *seq_at(guint t, gpointer data) {
  return ((Seq *)data)->Wt[t];
}

/* E[H] by brute force: every sequence of T outcomes of @l, weighted by the
 * product of their probabilities, through mf_gram_time_varying. */
static double *brute_expected_gram(const Law *l, guint T, MfWorkload wl) {
  double *EH = g_new0(double, (gsize)T *T);
  guint *idx = g_new0(guint, T);
  const double **Wt = g_new(const double *, T);
  for (;;) {
    double p = 1.0;
    for (guint t = 0; t < T; t++) {
      Wt[t] = l->W[idx[t]];
      p *= l->p[idx[t]];
    }
    Seq seq = {Wt};
    GError *err = NULL;
    double *H = mf_gram_time_varying(l->n, T, wl, seq_at, &seq, &err);
    g_assert_no_error(err);
    for (gsize i = 0; i < (gsize)T * T; i++)
      EH[i] += p * H[i];
    g_free(H);
    guint t = 0;
    while (t < T && ++idx[t] == l->K)
      idx[t++] = 0;
    if (t == T)
      break;
  }
  g_free(idx);
  g_free(Wt);
  return EH;
}

/* Entrywise relative difference: every entry here is a sum of products of
 * non-negative numbers (W >= 0), so each is computed to a relative error
 * of (terms summed) x epsilon, whatever its size. */
static void assert_entries_close(const double *got, const double *want, gsize len, double rtol,
                                 const char *why) {
  for (gsize i = 0; i < len; i++)
    dpg_test_assert_close(got[i], want[i], rtol, why);
}

static void check_expected_gram(TopoSchedule *s, const Law *l, guint T) {
  guint n = l->n;
  double *M, *Q;
  GError *err = NULL;
  g_assert_true(topo_schedule_round_moments(s, 1u << 20, 0, &M, &Q, NULL, &err));
  g_assert_no_error(err);
  for (int wl = 0; wl < 2; wl++) {
    double *EH = mf_gram_iid(n, T, wl, M, Q, 0, &err);
    g_assert_no_error(err);
    double *ref = brute_expected_gram(l, T, wl);
    /* Non-negative sums: the brute force adds K^T schedules of (2T + 1) n-term
     * products; mf_gram_iid adds K outcomes into Q, T applications of n^2
     * terms, T powers of n terms and a dot of n^2. */
    double terms = pow(l->K, T) + (2.0 * T + 1) * n + l->K + (T + 1.0) * n * n + 2.0 * T * n;
    assert_entries_close(EH, ref, (gsize)T * T, dpg_tol(1.0, terms),
                         "non-negative sums: (number of terms) x epsilon relative");
    g_free(EH);
    g_free(ref);
  }
  g_free(M);
  g_free(Q);
}

/* Edge failure with p = 0.3 on the 5-node graph, T = 3: E[H] equals the sum
 * over all 2^(5*3) = 32768 failure patterns of the three rounds. */
static void test_edge_failure_brute_force(void) {
  TopoGraph *g = graph5();
  TopoSchedule *s = schedule("edge-failure:p=0.3", g, 1);
  Law l = {5, 0, NULL, NULL};
  guint *up = g_new(guint, 2 * G5_M);
  for (guint pattern = 0; pattern < 1u << G5_M; pattern++) {
    gsize k = 0;
    double p = 1.0;
    for (guint i = 0; i < G5_M; i++) {
      gboolean down = (pattern >> i) & 1u;
      p *= down ? 0.3 : 0.7;
      if (!down) {
        up[2 * k] = g5_edges[2 * i];
        up[2 * k + 1] = g5_edges[2 * i + 1];
        k++;
      }
    }
    /* Kept distinct (no merging) so that every pattern is its own term. */
    l.W = g_renew(double *, l.W, l.K + 1);
    l.p = g_renew(double, l.p, l.K + 1);
    l.W[l.K] = dense_of_edges(5, up, k);
    l.p[l.K++] = p;
  }
  g_free(up);
  check_expected_gram(s, &l, 3);
  law_free(&l);
  topo_schedule_free(s);
  topo_graph_free(g);
}

/* The greedy matching's law by every order of the edges (5! = 120, each
 * equally likely): the matching of the first free edges. */
static void greedy_law_by_orders(Law *l) {
  guint order[G5_M] = {0, 1, 2, 3, 4}, c[G5_M] = {0};
  double p = 1.0 / 120.0;
  /* Heap's algorithm: every permutation once. */
  for (guint i = 0;;) {
    guint8 used[5] = {0};
    guint pairs[2 * G5_M];
    gsize k = 0;
    for (guint j = 0; j < G5_M; j++) {
      guint u = g5_edges[2 * order[j]], v = g5_edges[2 * order[j] + 1];
      if (!used[u] && !used[v]) {
        used[u] = used[v] = 1;
        pairs[2 * k] = u;
        pairs[2 * k + 1] = v;
        k++;
      }
    }
    law_add(l, dense_of_edges(5, pairs, k), p);
    while (i < G5_M && c[i] >= i) {
      c[i] = 0;
      i++;
    }
    if (i == G5_M)
      break;
    guint a = i % 2 ? c[i] : 0, tmp = order[a];
    order[a] = order[i];
    order[i] = tmp;
    c[i]++;
    i = 0;
  }
}

static void collect(double prob, const TopoGossip *w, gpointer data) {
  law_add(data, topo_gossip_dense(w), prob);
}

/* Matching over the graph's edges: the law topo_schedule_round_law
 * enumerates equals the one of every edge order, and E[H] (T = 4) equals
 * the brute force over every sequence of matchings. */
static void test_matching_brute_force(void) {
  TopoGraph *g = graph5();
  TopoSchedule *s = schedule("matching", g, 1);
  Law orders = {5, 0, NULL, NULL}, law = {5, 0, NULL, NULL};
  greedy_law_by_orders(&orders);
  GError *err = NULL;
  g_assert_true(topo_schedule_round_law(s, 1000, collect, &law, &err));
  g_assert_no_error(err);
  g_assert_cmpuint(law.K, ==, orders.K);
  for (guint i = 0; i < law.K; i++) {
    guint j = 0;
    while (j < orders.K && memcmp(orders.W[j], law.W[i], 25 * sizeof(double)) != 0)
      j++;
    g_assert_cmpuint(j, <, orders.K);
    /* The DP sums at most (levels) products of 1/|free edges|; the orders
     * add 120 terms of 1/120. */
    dpg_test_assert_close(law.p[i], orders.p[j], dpg_tol(1.0, 120 + 2 * G5_M),
                          "sums of at most 120 positive terms");
  }
  check_expected_gram(s, &orders, 4);
  law_free(&orders);
  law_free(&law);
  topo_schedule_free(s);
  topo_graph_free(g);
}

/* Matching among all pairs: closed forms. n even: i is paired with j with
 * probability 1/(n-1), so E[W_ij] = 1/(2(n-1)), E[W_ii] = 1/2. n odd: i idles
 * with probability 1/n; i and j both pair (probability (n-2)/n) and then
 * with each other with probability 1/(n-2): E[W_ij] = 1/(2n),
 * E[W_ii] = 1/n + (n-1)/(2n). Each row sums to 1. */
static void test_matching_complete_closed_form(void) {
  for (guint n = 5; n <= 6; n++) {
    GError *err = NULL;
    TopoGraph *g = topo_graph_generate(n == 5 ? "ring:n=5" : "ring:n=6", &err);
    g_assert_no_error(err);
    TopoSchedule *s = schedule("matching:complete=true", g, 1);
    double *M, *Q;
    g_assert_true(topo_schedule_round_moments(s, 1000, 0, &M, &Q, NULL, &err));
    g_assert_no_error(err);
    double off = n % 2 ? 1.0 / (2.0 * n) : 1.0 / (2.0 * (n - 1.0));
    double diag = n % 2 ? 1.0 / n + (n - 1.0) / (2.0 * n) : 0.5;
    for (guint i = 0; i < n; i++)
      for (guint j = 0; j < n; j++)
        dpg_test_assert_close(M[i * n + j], i == j ? diag : off, dpg_tol(1.0, 15 + 1),
                              "a sum of at most 15 equal positive terms");
    g_free(M);
    g_free(Q);
    topo_schedule_free(s);
    topo_graph_free(g);
  }
}

/* The enumerated law is the sampler's: over R = 50000 rounds of
 * topo_schedule_gossip, the mean of every entry of W and W kron W (values
 * in [0, 1]) is within t of the law's moment. Hoeffding: P(|mean - E| > t)
 * <= 2 exp(-2 R t^2); over the 650 entries, t = 0.0145 keeps the chance of
 * a false failure under 2 * 650 * exp(-21.0) = 1e-6. */
static void test_law_is_the_samplers(void) {
  const char *specs[] = {"edge-failure:p=0.3", "matching"};
  const guint R = 50000, n = 5;
  const double t = sqrt(log(2.0 * 650 / 1e-6) / (2.0 * R));
  TopoGraph *g = graph5();
  for (guint k = 0; k < G_N_ELEMENTS(specs); k++) {
    TopoSchedule *s = schedule(specs[k], g, 77);
    double *M, *Q;
    GError *err = NULL;
    g_assert_true(topo_schedule_round_moments(s, 1000, 0, &M, &Q, NULL, &err));
    double *m = g_new0(double, n *n), *q = g_new0(double, n *n *n *n);
    for (guint r = 0; r < R; r++) {
      TopoGossip *w = topo_schedule_gossip(s, r, &err);
      g_assert_no_error(err);
      double *W = topo_gossip_dense(w);
      for (guint c = 0; c < n; c++)
        for (guint a = 0; a < n; a++) {
          m[c * n + a] += W[c * n + a] / R;
          for (guint d = 0; d < n; d++)
            for (guint b = 0; b < n; b++)
              q[((c * n + d) * n + a) * n + b] += W[c * n + a] * W[d * n + b] / R;
        }
      g_free(W);
      topo_gossip_free(w);
    }
    for (guint i = 0; i < n * n; i++)
      dpg_test_assert_le(fabs(m[i] - M[i]), t, "Hoeffding, 1e-6 over all entries");
    for (guint i = 0; i < n * n * n * n; i++)
      dpg_test_assert_le(fabs(q[i] - Q[i]), t, "Hoeffding, 1e-6 over all entries");
    g_free(m);
    g_free(q);
    g_free(M);
    g_free(Q);
    topo_schedule_free(s);
  }
  topo_graph_free(g);
}

/* The H of the schedule of seed @seed over T rounds. */
static double *sampled_gram(const char *spec, const TopoGraph *g, guint64 seed, guint T) {
  TopoSchedule *s = schedule(spec, g, seed);
  guint n = topo_graph_n_nodes(g);
  double **Wt = g_new(double *, T);
  GError *err = NULL;
  for (guint t = 0; t < T; t++) {
    TopoGossip *w = topo_schedule_gossip(s, t, &err);
    g_assert_no_error(err);
    Wt[t] = topo_gossip_dense(w);
    topo_gossip_free(w);
  }
  Seq seq = {(const double *const *)Wt};
  double *H = mf_gram_time_varying(n, T, MF_WORKLOAD_POST_AVERAGE, seq_at, &seq, &err);
  g_assert_no_error(err);
  for (guint t = 0; t < T; t++)
    g_free(Wt[t]);
  g_free(Wt);
  topo_schedule_free(s);
  return H;
}

/* The estimator's interval: R = 600 estimates of S = 30 sampled schedules
 * each (seeds 1000 r + i) of DP-D-SGD's and AntiPGD's loss under edge
 * failure (p = 0.3, T = k b = 3 x 2), each interval mean +- t_{0.975,29} SE
 * against the exact expected loss. The misses are Binomial(600, q), q the
 * interval's true miss rate: 5% if the mean of 30 losses were normal; the
 * losses are skewed, and over R = 4000 repetitions the rate measured 6.5%
 * (dp-d-sgd, 259 misses, standard deviation 0.4%) and 5.8% (antipgd, 231),
 * so the band allows q in [4%, 8%]: from the binomial law, [lo, hi] =
 * [5, 83] leaves a count of any such q outside with probability under 1e-6
 * (0.5e-6 a tail). An interval too narrow by sqrt(2) fails (tried: 103
 * misses), as does a biased estimate; so does one too wide (q under 4%). */
static void test_estimator_coverage(void) {
  const guint T = 6, k = 3, b = 2, R = 600, S = 30;
  TopoGraph *g = graph5();
  TopoSchedule *s = schedule("edge-failure:p=0.3", g, 1);
  double *M, *Q;
  GError *err = NULL;
  g_assert_true(topo_schedule_round_moments(s, 1000, 0, &M, &Q, NULL, &err));
  double *EH = mf_gram_iid(5, T, MF_WORKLOAD_POST_AVERAGE, M, Q, 0, &err);
  g_assert_no_error(err);
  guint lo, hi;
  test_binomial_band(R, 0.04, 0.08, 0.5e-6, &lo, &hi);
  g_assert_cmpuint(lo, ==, 5); /* the band the comment above states */
  g_assert_cmpuint(hi, ==, 83);
  const MfBaseline which[] = {MF_BASELINE_IDENTITY, MF_BASELINE_ANTIPGD};
  double z = gsl_cdf_tdist_Pinv(0.975, S - 1), exact[2], *C[2];
  guint misses[2] = {0, 0};
  for (guint w = 0; w < 2; w++) {
    C[w] = mf_baseline(which[w], T, 0, &err);
    g_assert_no_error(err);
    exact[w] = mf_loss(EH, C[w], T, k, b, &err);
    g_assert_no_error(err);
  }
  for (guint r = 0; r < R; r++) {
    double **H = g_new(double *, S);
    for (guint i = 0; i < S; i++)
      H[i] = sampled_gram("edge-failure:p=0.3", g, 1000 * (guint64)r + i, T);
    for (guint w = 0; w < 2; w++) {
      double mean, se;
      g_assert_true(mf_loss_samples((const double *const *)H, S, C[w], T, k, b, &mean, &se, &err));
      g_assert_cmpfloat(se, >, 0.0);
      misses[w] += fabs(mean - exact[w]) > z * se;
    }
    for (guint i = 0; i < S; i++)
      g_free(H[i]);
    g_free(H);
  }
  for (guint w = 0; w < 2; w++) {
    g_test_message("%s: %u misses of %u (accepted %u to %u)", w ? "antipgd" : "dp-d-sgd", misses[w],
                   R, lo, hi);
    g_assert_cmpuint(misses[w], >=, lo);
    g_assert_cmpuint(misses[w], <=, hi);
    g_free(C[w]);
  }
  g_free(EH);
  g_free(M);
  g_free(Q);
  topo_schedule_free(s);
  topo_graph_free(g);
}

/* The static schedule's law is its one W; the other laws refuse what they
 * cannot enumerate with an error naming the way out. */
static void test_laws_and_refusals(void) {
  TopoGraph *g = graph5();
  GError *err = NULL;
  TopoSchedule *s = schedule("static", g, 1);
  Law l = {5, 0, NULL, NULL};
  g_assert_true(topo_schedule_round_law(s, 1, collect, &l, &err));
  g_assert_cmpuint(l.K, ==, 1);
  g_assert_cmpfloat(l.p[0], ==, 1.0);
  double *W = dense_of_edges(5, g5_edges, G5_M);
  g_assert_cmpmem(l.W[0], 25 * sizeof(double), W, 25 * sizeof(double));
  g_free(W);
  law_free(&l);
  g_assert_cmpint(topo_schedule_randomness(s), ==, TOPO_SCHEDULE_FIXED);
  topo_schedule_free(s);

  s = schedule("edge-failure:p=0.3", g, 1);
  g_assert_cmpint(topo_schedule_randomness(s), ==, TOPO_SCHEDULE_IID);
  double *M = NULL, *Q = NULL;
  g_assert_false(topo_schedule_round_moments(s, 31, 0, &M, &Q, NULL, &err));
  g_assert_error(err, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "32 outcomes"));
  g_assert_nonnull(strstr(err->message, "sampled schedules"));
  g_clear_error(&err);
  g_assert_false(topo_schedule_round_moments(s, 1000, 100, &M, &Q, NULL, &err));
  g_assert_nonnull(strstr(err->message, "5200 bytes"));
  g_clear_error(&err);
  topo_schedule_free(s);

  s = schedule("churn:leave=0.1,join=0.5", g, 1);
  g_assert_cmpint(topo_schedule_randomness(s), ==, TOPO_SCHEDULE_RANDOM);
  g_assert_false(topo_schedule_round_law(s, 1000, collect, &l, &err));
  g_assert_nonnull(strstr(err->message, "Markov chain"));
  g_clear_error(&err);
  topo_schedule_free(s);
  topo_graph_free(g);

  double I[1] = {1.0};
  g_assert_null(mf_gram_iid(0, 3, MF_WORKLOAD_POST_AVERAGE, I, I, 0, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  const double *one[1] = {I};
  double mean, se;
  g_assert_false(mf_loss_samples(one, 1, I, 1, 1, 1, &mean, &se, &err));
  g_assert_nonnull(strstr(err->message, "at least 2 samples"));
  g_clear_error(&err);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mafalda-schedule/edge-failure-brute-force", test_edge_failure_brute_force);
  g_test_add_func("/mafalda-schedule/matching-brute-force", test_matching_brute_force);
  g_test_add_func("/mafalda-schedule/matching-complete-closed-form",
                  test_matching_complete_closed_form);
  g_test_add_func("/mafalda-schedule/law-is-the-samplers", test_law_is_the_samplers);
  g_test_add_func("/mafalda-schedule/estimator-coverage", test_estimator_coverage);
  g_test_add_func("/mafalda-schedule/laws-and-refusals", test_laws_and_refusals);
  return g_test_run();
}
