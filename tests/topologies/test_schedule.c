/* tests/topologies/test_schedule.c: time-varying gossip schedules. */
#include <math.h>
#include <string.h>

#include "topologies/topologies.h"
#include "tests/common/checks.h"
#include "tests/common/tolerance.h"

static TopoGraph *gen(const char *spec) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate(spec, &error);
  g_assert_no_error(error);
  return g;
}

static TopoSchedule *sched(const char *spec, const TopoGraph *base, guint64 seed) {
  GError *error = NULL;
  TopoSchedule *s = topo_schedule_new(spec, base, TOPO_GOSSIP_UNIFORM, seed, &error);
  g_assert_no_error(error);
  g_assert_nonnull(s);
  return s;
}

static char *data_path(const char *name) {
  const char *dir = g_getenv("DPG_TEST_DATA");
  g_assert_nonnull(dir);
  return g_build_filename(dir, name, NULL);
}

/* Round t's edge list as text, for equality checks. */
static char *round_edges(TopoSchedule *s, guint t) {
  GError *error = NULL;
  TopoGraph *g = topo_schedule_graph(s, t, &error);
  g_assert_no_error(error);
  gsize m;
  guint *e = topo_graph_edges(g, &m);
  GString *str = g_string_new(NULL);
  for (gsize i = 0; i < m; i++)
    g_string_append_printf(str, "%u-%u ", e[2 * i], e[2 * i + 1]);
  g_free(e);
  topo_graph_free(g);
  return g_string_free(str, FALSE);
}

/* W_t as text (exact doubles), to compare whole matrices. */
static char *round_matrix(TopoSchedule *s, guint t) {
  GError *error = NULL;
  TopoGossip *w = topo_schedule_gossip(s, t, &error);
  g_assert_no_error(error);
  GString *str = g_string_new(NULL);
  for (guint u = 0; u < topo_gossip_n(w); u++) {
    const guint *c;
    const double *v;
    guint len = topo_gossip_row(w, u, &c, &v);
    for (guint i = 0; i < len; i++)
      g_string_append_printf(str, "%u:%u:%a ", u, c[i], v[i]);
  }
  topo_gossip_free(w);
  return g_string_free(str, FALSE);
}

/* Two schedules with one seed, queried in opposite orders, agree; another
 * seed differs somewhere. */
static void check_determinism(const char *spec, const TopoGraph *base, guint rounds) {
  TopoSchedule *a = sched(spec, base, 11), *b = sched(spec, base, 11), *c = sched(spec, base, 12);
  char **fwd = g_new0(char *, rounds + 1);
  for (guint t = 0; t < rounds; t++)
    fwd[t] = round_matrix(a, t);
  gboolean differs = FALSE, varies = FALSE;
  for (guint t = rounds; t-- > 0;) {
    char *x = round_matrix(b, t), *y = round_matrix(c, t);
    g_assert_cmpstr(x, ==, fwd[t]);
    differs = differs || strcmp(x, y) != 0;
    varies = varies || (t > 0 && strcmp(fwd[t], fwd[t - 1]) != 0);
    g_free(x);
    g_free(y);
  }
  char *again = round_matrix(a, 0); /* asking again changes nothing */
  g_assert_cmpstr(again, ==, fwd[0]);
  g_free(again);
  if (!differs || !varies)
    g_error("%s: seed changes nothing (%d) or rounds never vary (%d)", spec, !differs, !varies);
  g_strfreev(fwd);
  topo_schedule_free(a);
  topo_schedule_free(b);
  topo_schedule_free(c);
}

/* Row sums 1 and support inside u + round t's neighbours. */
static void check_rows(TopoSchedule *s, guint t) {
  GError *error = NULL;
  TopoGossip *w = topo_schedule_gossip(s, t, &error);
  TopoGraph *g = topo_schedule_graph(s, t, &error);
  g_assert_no_error(error);
  for (guint u = 0; u < topo_gossip_n(w); u++) {
    const guint *c;
    const double *v;
    guint len = topo_gossip_row(w, u, &c, &v);
    double sum = 0;
    for (guint i = 0; i < len; i++) {
      sum += v[i];
      if (v[i] > 0)
        g_assert_true(c[i] == u || topo_graph_has_edge(g, u, c[i]));
    }
    dpg_test_assert_le(fabs(sum - 1.0), 2 * dpg_tol(1, len),
                       "weights in [0, 1], each within an ulp, the diagonal 1 minus <= len "
                       "others, summed again here: twice a sum of len terms of magnitude 1");
  }
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* Applying changes(t) to graph(t-1) gives graph(t); node events match
 * presence. */
static void check_changes(TopoSchedule *s, guint rounds) {
  GError *error = NULL;
  GArray *c0 = topo_schedule_changes(s, 0, &error);
  g_assert_cmpuint(c0->len, ==, 0);
  g_array_unref(c0);
  guint n = topo_schedule_n(s);
  for (guint t = 1; t < rounds; t++) {
    TopoGraph *prev = topo_schedule_graph(s, t - 1, &error);
    TopoGraph *cur = topo_schedule_graph(s, t, &error);
    GArray *ch = topo_schedule_changes(s, t, &error);
    g_assert_no_error(error);
    guint8 *adj = g_new0(guint8, n * n);
    gsize m;
    guint *e = topo_graph_edges(prev, &m);
    for (gsize i = 0; i < m; i++)
      adj[e[2 * i] * n + e[2 * i + 1]] = 1;
    g_free(e);
    guint left = 0, joined = 0;
    for (guint i = 0; i < ch->len; i++) {
      TopoChange *c = &g_array_index(ch, TopoChange, i);
      if (i > 0)
        g_assert_cmpint(c->kind, >=, g_array_index(ch, TopoChange, i - 1).kind);
      switch (c->kind) {
      case TOPO_CHANGE_EDGE_ADDED:
        g_assert_cmpuint(c->u, <, c->v);
        g_assert_false(adj[c->u * n + c->v]);
        adj[c->u * n + c->v] = 1;
        break;
      case TOPO_CHANGE_EDGE_REMOVED:
        g_assert_true(adj[c->u * n + c->v]);
        adj[c->u * n + c->v] = 0;
        break;
      case TOPO_CHANGE_NODE_LEFT:
        g_assert_true(topo_schedule_node_present(s, t - 1, c->u));
        g_assert_false(topo_schedule_node_present(s, t, c->u));
        left++;
        break;
      case TOPO_CHANGE_NODE_JOINED:
        g_assert_false(topo_schedule_node_present(s, t - 1, c->u));
        g_assert_true(topo_schedule_node_present(s, t, c->u));
        joined++;
        break;
      }
    }
    guint want_left = 0, want_joined = 0;
    for (guint u = 0; u < n; u++) {
      gboolean a = topo_schedule_node_present(s, t - 1, u), b = topo_schedule_node_present(s, t, u);
      want_left += a && !b;
      want_joined += !a && b;
    }
    g_assert_cmpuint(left, ==, want_left);
    g_assert_cmpuint(joined, ==, want_joined);
    e = topo_graph_edges(cur, &m);
    gsize count = 0;
    for (guint i = 0; i < n * n; i++)
      count += adj[i];
    g_assert_cmpuint(count, ==, m);
    for (gsize i = 0; i < m; i++)
      g_assert_true(adj[e[2 * i] * n + e[2 * i + 1]]);
    g_free(e);
    g_free(adj);
    g_array_unref(ch);
    topo_graph_free(prev);
    topo_graph_free(cur);
  }
}

static void test_static(void) {
  TopoGraph *base = gen("florentine");
  TopoSchedule *s = sched("static", base, 0);
  g_assert_true(topo_schedule_is_static(s));
  g_assert_cmpuint(topo_schedule_n(s), ==, 15);
  GError *error = NULL;
  TopoGossip *w0 = topo_gossip_new(base, TOPO_GOSSIP_UNIFORM, &error);
  double *d0 = topo_gossip_dense(w0);
  for (guint t = 0; t < 100; t += 37) {
    TopoGossip *w = topo_schedule_gossip(s, t, &error);
    double *d = topo_gossip_dense(w);
    g_assert_cmpmem(d, 15 * 15 * sizeof(double), d0, 15 * 15 * sizeof(double));
    g_free(d);
    topo_gossip_free(w);
  }
  check_changes(s, 3);
  g_free(d0);
  topo_gossip_free(w0);
  topo_schedule_free(s);
  topo_graph_free(base);
}

static void test_resample(void) {
  check_determinism("resample:erdos:n=30,p=0.2", NULL, 6);
  TopoSchedule *s = sched("resample:gnm:n=25,m=40,connected=true", NULL, 3);
  g_assert_false(topo_schedule_is_static(s));
  g_assert_cmpuint(topo_schedule_n(s), ==, 25);
  GError *error = NULL;
  for (guint t = 0; t < 5; t++) {
    TopoGraph *g = topo_schedule_graph(s, t, &error);
    g_assert_cmpuint(topo_graph_n_edges(g), ==, 40);
    g_assert_true(topo_graph_is_connected(g));
    topo_graph_free(g);
    check_rows(s, t);
  }
  check_changes(s, 5);
  topo_schedule_free(s);
  /* Deterministic generators resample to the same graph. */
  s = sched("resample:ring:n=7", NULL, 0);
  char *a = round_edges(s, 0), *b = round_edges(s, 9);
  g_assert_cmpstr(a, ==, b);
  g_free(a);
  g_free(b);
  topo_schedule_free(s);
}

static void test_matching(void) {
  /* complete=true: a perfect matching of all the nodes, on a base whose
   * edges it never needs (a path: most pairs are not neighbours). */
  TopoGraph *base = gen("path:n=10");
  check_determinism("matching:complete=true", base, 6);
  TopoSchedule *s = sched("matching:complete=true", base, 5);
  GError *error = NULL;
  for (guint t = 0; t < 10; t++) {
    TopoGraph *g = topo_schedule_graph(s, t, &error);
    g_assert_cmpuint(topo_graph_n_edges(g), ==, 5);
    for (guint u = 0; u < 10; u++)
      g_assert_cmpuint(topo_graph_degree(g, u), ==, 1); /* perfect */
    TopoGossip *w = topo_schedule_gossip(s, t, &error);
    for (guint u = 0; u < 10; u++) {
      guint deg;
      const guint *nb = topo_graph_neighbors(g, u, &deg);
      g_assert_cmpfloat(topo_gossip_get(w, u, u), ==, 0.5);
      g_assert_cmpfloat(topo_gossip_get(w, u, nb[0]), ==, 0.5);
    }
    g_assert_true(topo_gossip_is_symmetric(w, 0.0));
    topo_gossip_free(w);
    topo_graph_free(g);
  }
  check_changes(s, 4);
  topo_schedule_free(s);
  topo_graph_free(base);

  /* Odd n: exactly one idle node, weight 1 on itself. */
  base = gen("ring:n=9");
  s = sched("matching:complete=true", base, 1);
  for (guint t = 0; t < 5; t++) {
    TopoGraph *g = topo_schedule_graph(s, t, &error);
    TopoGossip *w = topo_schedule_gossip(s, t, &error);
    g_assert_cmpuint(topo_graph_n_edges(g), ==, 4);
    guint idle = 0;
    for (guint u = 0; u < 9; u++) {
      g_assert_cmpuint(topo_graph_degree(g, u), <=, 1);
      if (topo_graph_degree(g, u) == 0) {
        idle++;
        g_assert_cmpfloat(topo_gossip_get(w, u, u), ==, 1.0);
      }
    }
    g_assert_cmpuint(idle, ==, 1);
    topo_gossip_free(w);
    topo_graph_free(g);
  }
  topo_schedule_free(s);
  topo_graph_free(base);

  /* The default: a maximal matching among the base's edges (gossip over
   * the graph pairs neighbours only). */
  base = gen("florentine");
  check_determinism("matching", base, 6);
  s = sched("matching", base, 2);
  for (guint t = 0; t < 8; t++) {
    TopoGraph *g = topo_schedule_graph(s, t, &error);
    gsize m;
    guint *e = topo_graph_edges(g, &m);
    for (gsize i = 0; i < m; i++)
      g_assert_true(topo_graph_has_edge(base, e[2 * i], e[2 * i + 1]));
    g_free(e);
    e = topo_graph_edges(base, &m);
    for (gsize i = 0; i < m; i++) /* maximal: no base edge joins two free nodes */
      g_assert_true(topo_graph_degree(g, e[2 * i]) + topo_graph_degree(g, e[2 * i + 1]) > 0);
    g_free(e);
    for (guint u = 0; u < 15; u++)
      g_assert_cmpuint(topo_graph_degree(g, u), <=, 1);
    topo_graph_free(g);
  }
  topo_schedule_free(s);
  topo_graph_free(base);
}

static void test_exponential(void) {
  TopoGraph *base = gen("ring:n=8");
  TopoSchedule *s = sched("exponential", base, 0);
  GError *error = NULL;
  const guint hops[] = {1, 2, 4, 1, 2, 4, 1};
  for (guint t = 0; t < G_N_ELEMENTS(hops); t++) {
    TopoGossip *w = topo_schedule_gossip(s, t, &error);
    double *d = topo_gossip_dense(w);
    for (guint i = 0; i < 8; i++) {
      double col = 0;
      for (guint j = 0; j < 8; j++) {
        double want = (j == i || j == (i + hops[t]) % 8) ? 0.5 : 0.0;
        g_assert_cmpfloat(d[i * 8 + j], ==, want);
        col += d[j * 8 + i];
      }
      g_assert_cmpfloat(col, ==, 1.0); /* doubly stochastic */
    }
    g_free(d);
    topo_gossip_free(w);
  }
  /* With n = 2^tau, tau rounds average exactly: W_2 W_1 W_0 = J/n. */
  double prod[64], tmp[64];
  for (guint i = 0; i < 64; i++)
    prod[i] = (i % 9 == 0);
  for (guint t = 0; t < 3; t++) {
    TopoGossip *w = topo_schedule_gossip(s, t, &error);
    double *d = topo_gossip_dense(w);
    for (guint i = 0; i < 8; i++)
      for (guint j = 0; j < 8; j++) {
        double x = 0;
        for (guint k = 0; k < 8; k++)
          x += d[i * 8 + k] * prod[k * 8 + j];
        tmp[i * 8 + j] = x;
      }
    memcpy(prod, tmp, sizeof prod);
    g_free(d);
    topo_gossip_free(w);
  }
  for (guint i = 0; i < 64; i++)
    g_assert_cmpfloat(prod[i], ==, 1.0 / 8); /* exact: sums of products of binary fractions */
  /* Topology: the undirected support {i, i+h}; for h = n/2 pairs coincide. */
  TopoGraph *g = topo_schedule_graph(s, 2, &error);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 4);
  g_assert_true(topo_graph_has_edge(g, 1, 5));
  topo_graph_free(g);
  g = topo_schedule_graph(s, 1, &error);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 8);
  g_assert_true(topo_graph_has_edge(g, 6, 0));
  topo_graph_free(g);
  check_changes(s, 5);
  topo_schedule_free(s);
  topo_graph_free(base);

  /* n = 6: tau = ceil(log2 6) = 3, hops 1, 2, 4. */
  base = gen("path:n=6");
  s = sched("exponential", base, 0);
  TopoGossip *w = topo_schedule_gossip(s, 5, &error);
  g_assert_cmpfloat(topo_gossip_get(w, 3, 1), ==, 0.5); /* 3 + 4 = 7 = 1 mod 6 */
  g_assert_cmpfloat(topo_gossip_get(w, 3, 3), ==, 0.5);
  g_assert_false(topo_gossip_is_symmetric(w, 0.1));
  /* i -> i+4 mod 6 splits into two 3-cycles: lambda = 1 twice, gap 0. */
  double gap;
  g_assert_true(topo_gossip_spectral_gap(w, &gap, &error)); /* general (dgeev) path */
  dpg_test_assert_le(gap, 2 * dpg_tol(1, 6),
                     "dgeev backward error n eps ||W|| (||W|| = 1), W normal so the "
                     "eigenvalues move by no more (Bauer-Fike), plus the modulus");
  topo_gossip_free(w);
  /* Hop 1: W = (I + P)/2 for the cyclic shift P, eigenvalues (1 + w^k)/2 of
   * modulus |cos(pi k / n)|: gap 1 - cos(pi/6). */
  w = topo_schedule_gossip(s, 3, &error);
  g_assert_true(topo_gossip_spectral_gap(w, &gap, &error));
  dpg_test_assert_le(fabs(gap - (1.0 - cos(G_PI / 6))), 2 * dpg_tol(1, 6) + 2 * DBL_EPSILON,
                     "dgeev on the normal W = (I + P)/2, ||W|| = 1: n eps (Bauer-Fike) plus "
                     "the modulus, and 2 eps for the closed form's cos");
  topo_gossip_free(w);
  topo_schedule_free(s);
  topo_graph_free(base);
}

static void test_edge_failure(void) {
  TopoGraph *base = gen("complete:n=40");
  check_determinism("edge-failure:p=0.1", base, 5);
  TopoSchedule *s = sched("edge-failure:p=0.1", base, 9);
  GError *error = NULL;
  guint rounds = 20, up = 0;
  for (guint t = 0; t < rounds; t++) {
    TopoGraph *g = topo_schedule_graph(s, t, &error);
    gsize m;
    guint *e = topo_graph_edges(g, &m);
    for (gsize i = 0; i < m; i++)
      g_assert_true(topo_graph_has_edge(base, e[2 * i], e[2 * i + 1]));
    g_free(e);
    up += (guint)m;
    topo_graph_free(g);
    check_rows(s, t);
  }
  /* 15600 Bernoulli(0.1) trials: sd of the rate 0.0024; allow 5 sd. */
  double rate = 1.0 - (double)up / (rounds * 780.0);
  g_assert_cmpfloat(fabs(rate - 0.1), <, 0.012);
  check_changes(s, 4);
  topo_schedule_free(s);

  s = sched("edge-failure:p=0", base, 9);
  char *a = round_edges(s, 3);
  topo_schedule_free(s);
  s = sched("static", base, 9);
  char *b = round_edges(s, 3);
  g_assert_cmpstr(a, ==, b);
  g_free(a);
  g_free(b);
  topo_schedule_free(s);
  s = sched("edge-failure:p=1", base, 9);
  TopoGossip *w = topo_schedule_gossip(s, 4, &error);
  g_assert_cmpuint(topo_gossip_nnz(w), ==, 40); /* identity */
  g_assert_cmpfloat(topo_gossip_get(w, 7, 7), ==, 1.0);
  topo_gossip_free(w);
  topo_schedule_free(s);
  topo_graph_free(base);
}

static void test_churn_file(void) {
  TopoGraph *base = gen("ring:n=6");
  char *path = data_path("topo-churn.txt");
  char *spec = g_strdup_printf("churn:%s", path);
  TopoSchedule *s = sched(spec, base, 0);
  /* Absent: node 0 in round 1; node 2 in rounds 3..5; node 4 from round 5. */
  for (guint t = 0; t < 9; t++)
    for (guint u = 0; u < 6; u++) {
      gboolean absent = (u == 0 && t == 1) || (u == 2 && t >= 3 && t < 6) || (u == 4 && t >= 5);
      g_assert_cmpint(topo_schedule_node_present(s, t, u), ==, !absent);
    }
  GError *error = NULL;
  TopoGraph *g = topo_schedule_graph(s, 5, &error);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 2); /* 0-1, 0-5 */
  g_assert_true(topo_graph_has_edge(g, 0, 1));
  g_assert_true(topo_graph_has_edge(g, 0, 5));
  topo_graph_free(g);
  TopoGossip *w = topo_schedule_gossip(s, 5, &error);
  g_assert_cmpfloat(topo_gossip_get(w, 2, 2), ==, 1.0);
  g_assert_cmpfloat(topo_gossip_get(w, 3, 3), ==, 1.0);
  g_assert_cmpfloat(topo_gossip_get(w, 0, 5), ==, 1.0 / 3); /* exact: one division 1/(1 + 2) */
  topo_gossip_free(w);

  GArray *ch = topo_schedule_changes(s, 1, &error);
  g_assert_cmpuint(ch->len, ==, 3);
  TopoChange *c = (TopoChange *)(void *)ch->data;
  g_assert_cmpint(c[0].kind, ==, TOPO_CHANGE_NODE_LEFT);
  g_assert_cmpuint(c[0].u, ==, 0);
  g_assert_cmpuint(c[0].v, ==, G_MAXUINT);
  g_assert_cmpint(c[1].kind, ==, TOPO_CHANGE_EDGE_REMOVED);
  g_assert_cmpuint(c[1].u, ==, 0);
  g_assert_cmpuint(c[1].v, ==, 1);
  g_assert_cmpint(c[2].kind, ==, TOPO_CHANGE_EDGE_REMOVED);
  g_assert_cmpuint(c[2].v, ==, 5);
  g_array_unref(ch);
  ch = topo_schedule_changes(s, 2, &error);
  g_assert_cmpuint(ch->len, ==, 3);
  c = (TopoChange *)(void *)ch->data;
  g_assert_cmpint(c[0].kind, ==, TOPO_CHANGE_EDGE_ADDED);
  g_assert_cmpint(c[2].kind, ==, TOPO_CHANGE_NODE_JOINED);
  g_array_unref(ch);
  ch = topo_schedule_changes(s, 6, &error); /* 2 is back (4 is not) */
  g_assert_cmpuint(ch->len, ==, 3);
  c = (TopoChange *)(void *)ch->data;
  g_assert_cmpint(c[0].kind, ==, TOPO_CHANGE_EDGE_ADDED);
  g_assert_cmpuint(c[0].u, ==, 1);
  g_assert_cmpuint(c[1].u, ==, 2);
  g_assert_cmpuint(c[1].v, ==, 3);
  g_assert_cmpint(c[2].kind, ==, TOPO_CHANGE_NODE_JOINED);
  g_assert_cmpuint(c[2].u, ==, 2);
  g_array_unref(ch);
  ch = topo_schedule_changes(s, 7, &error);
  g_assert_cmpuint(ch->len, ==, 0);
  g_array_unref(ch);
  check_changes(s, 9);
  topo_schedule_free(s);
  g_free(spec);
  g_free(path);
  topo_graph_free(base);
}

static void test_churn_markov(void) {
  TopoGraph *base = gen("erdos:n=200,p=0.05,seed=1");
  check_determinism("churn:leave=0.2,join=0.5", base, 6);
  TopoSchedule *s = sched("churn:leave=0.2,join=0.5", base, 4);
  /* Asked out of order first: a fresh schedule asked in order agrees. */
  TopoSchedule *r = sched("churn:leave=0.2,join=0.5", base, 4);
  (void)topo_schedule_node_present(r, 300, 0);
  guint absent = 0, total = 0;
  GError *error = NULL;
  for (guint t = 0; t <= 300; t++) {
    for (guint u = 0; u < 200; u++) {
      gboolean p = topo_schedule_node_present(s, t, u);
      g_assert_cmpint(p, ==, topo_schedule_node_present(r, t, u));
      if (t == 0)
        g_assert_true(p);
      if (t >= 50) {
        absent += !p;
        total++;
      }
    }
    if (t % 100 == 7) {
      TopoGraph *g = topo_schedule_graph(s, t, &error);
      for (guint u = 0; u < 200; u++)
        if (!topo_schedule_node_present(s, t, u))
          g_assert_cmpuint(topo_graph_degree(g, u), ==, 0);
      topo_graph_free(g);
    }
  }
  /* Stationary absent fraction leave/(leave+join) = 2/7; 50k correlated
   * samples, a generous 0.03. */
  g_assert_cmpfloat(fabs((double)absent / total - 2.0 / 7), <, 0.03);
  check_changes(s, 5);
  topo_schedule_free(r);
  topo_schedule_free(s);
  topo_graph_free(base);
}

static void expect_schedule_error(const char *spec, const TopoGraph *base, int code,
                                  const char *const *needles) {
  GError *error = NULL;
  TopoSchedule *s = topo_schedule_new(spec, base, TOPO_GOSSIP_UNIFORM, 0, &error);
  g_assert_null(s);
  test_expect_error(error, TOPO_ERROR, code, spec, needles);
}

static void test_errors(void) {
  TopoGraph *base = gen("ring:n=6");
  expect_schedule_error("shuffle", base, TOPO_ERROR_PARSE,
                        TEST_NEEDLES("unknown schedule 'shuffle'", "matching", "exponential"));
  expect_schedule_error("edge-failure", base, TOPO_ERROR_PARSE,
                        TEST_NEEDLES("requires parameter 'p'"));
  expect_schedule_error("edge-failure:p=2", base, TOPO_ERROR_RANGE, TEST_NEEDLES("p=2"));
  expect_schedule_error("edge-failure:q=0.1", base, TOPO_ERROR_PARSE,
                        TEST_NEEDLES("'q'", "valid parameters: p"));
  expect_schedule_error("static", NULL, TOPO_ERROR_INVALID_ARGUMENT,
                        TEST_NEEDLES("needs a base graph"));
  expect_schedule_error("static:x=1", base, TOPO_ERROR_PARSE, TEST_NEEDLES("'x'"));
  expect_schedule_error("resample", NULL, TOPO_ERROR_PARSE, TEST_NEEDLES("generator spec"));
  expect_schedule_error("resample:erdos:n=6", NULL, TOPO_ERROR_PARSE, TEST_NEEDLES("'p'"));
  expect_schedule_error("resample:ring:n=7", base, TOPO_ERROR_INVALID_ARGUMENT,
                        TEST_NEEDLES("7", "6"));
  expect_schedule_error("churn", base, TOPO_ERROR_PARSE, TEST_NEEDLES("FILE"));
  expect_schedule_error("churn:/nonexistent/churn.txt", base, TOPO_ERROR_IO,
                        TEST_NEEDLES("/nonexistent/churn.txt"));
  expect_schedule_error("churn:leave=0.1", base, TOPO_ERROR_PARSE, TEST_NEEDLES("'join'"));
  char *p = data_path("topo-churn-range.txt");
  char *spec = g_strdup_printf("churn:%s", p);
  expect_schedule_error(spec, base, TOPO_ERROR_INVALID_ARGUMENT,
                        TEST_NEEDLES("topo-churn-range.txt:2:", "node 9"));
  g_free(spec);
  g_free(p);
  p = data_path("topo-churn-order.txt");
  spec = g_strdup_printf("churn:%s", p);
  expect_schedule_error(spec, base, TOPO_ERROR_FILE,
                        TEST_NEEDLES("topo-churn-order.txt:2:", "join round 4"));
  g_free(spec);
  g_free(p);
  p = data_path("topo-churn-tokens.txt");
  spec = g_strdup_printf("churn:%s", p);
  expect_schedule_error(spec, base, TOPO_ERROR_FILE,
                        TEST_NEEDLES("topo-churn-tokens.txt:2:", "only one token"));
  g_free(spec);
  g_free(p);
  topo_graph_free(base);

  GError *error = NULL;
  const guint none[] = {0, 0};
  TopoGraph *one = topo_graph_new_from_edges(1, none, 0, &error);
  g_assert_no_error(error);
  expect_schedule_error("matching", one, TOPO_ERROR_INVALID_ARGUMENT, TEST_NEEDLES("at least 2"));
  /* base= chose today's default: refused with both spellings to use. */
  expect_schedule_error("matching:base=true", one, TOPO_ERROR_INVALID_ARGUMENT,
                        TEST_NEEDLES("base= is no longer an option",
                                     "'matching' pairs the graph's "
                                     "neighbours",
                                     "matching:complete=true"));
  expect_schedule_error("exponential", one, TOPO_ERROR_INVALID_ARGUMENT,
                        TEST_NEEDLES("at least 2"));
  topo_graph_free(one);
}

static void count_outcome(double prob, const TopoGossip *w, gpointer data) {
  (void)prob;
  (void)w;
  (*(guint *)data)++;
}

/* A kind without a finite round law is refused with what its rounds are
 * instead, as its row says (or its randomness when the row is silent). */
static void test_no_law(void) {
  TopoGraph *base = gen("ring:n=6");
  const struct {
    const char *spec, *what;
  } cases[] = {{"exponential", "(a fixed sequence of graphs)"},
               {"resample:ring:n=6", "(a generated graph per round)"},
               {"churn:leave=0.1,join=0.5", "(a Markov chain)"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    TopoSchedule *s = sched(cases[i].spec, base, 1);
    GError *error = NULL;
    guint n = 0;
    g_assert_false(topo_schedule_round_law(s, 1000, count_outcome, &n, &error));
    g_assert_cmpuint(n, ==, 0);
    test_expect_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, cases[i].spec,
                      TEST_NEEDLES("its rounds are not independent draws of one finite law",
                                   cases[i].what, "from sampled schedules"));
    topo_schedule_free(s);
  }
  topo_graph_free(base);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/topo/schedule/static", test_static);
  g_test_add_func("/topo/schedule/resample", test_resample);
  g_test_add_func("/topo/schedule/matching", test_matching);
  g_test_add_func("/topo/schedule/exponential", test_exponential);
  g_test_add_func("/topo/schedule/edge-failure", test_edge_failure);
  g_test_add_func("/topo/schedule/churn-file", test_churn_file);
  g_test_add_func("/topo/schedule/churn-markov", test_churn_markov);
  g_test_add_func("/topo/schedule/errors", test_errors);
  g_test_add_func("/topo/schedule/no-law", test_no_law);
  return g_test_run();
}
