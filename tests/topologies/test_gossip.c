/* tests/topologies/test_gossip.c: gossip matrices, spectral gap, summary. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topologies/topologies.h"
#include "tests/common/tolerance.h"

static TopoGraph *gen(const char *spec) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate(spec, &error);
  g_assert_no_error(error);
  return g;
}

static TopoGossip *gossip(const TopoGraph *g, TopoGossipKind kind) {
  GError *error = NULL;
  TopoGossip *w = topo_gossip_new(g, kind, &error);
  g_assert_no_error(error);
  return w;
}

static double gap_of(const char *spec, TopoGossipKind kind) {
  TopoGraph *g = gen(spec);
  TopoGossip *w = gossip(g, kind);
  double gap = -1;
  GError *error = NULL;
  g_assert_true(topo_gossip_spectral_gap(w, &gap, &error));
  g_assert_no_error(error);
  topo_gossip_free(w);
  topo_graph_free(g);
  return gap;
}

static const TopoGossipKind kinds[] = {TOPO_GOSSIP_UNIFORM, TOPO_GOSSIP_METROPOLIS,
                                       TOPO_GOSSIP_MAXDEGREE};

static void test_stochastic(void) {
  const char *specs[] = {"florentine", "karate", "erdos:n=60,p=0.08,seed=1", "star:n=7",
                         "gnm:n=20,m=12,seed=2" /* isolated nodes likely */};
  for (gsize s = 0; s < G_N_ELEMENTS(specs); s++) {
    TopoGraph *g = gen(specs[s]);
    guint n = topo_graph_n_nodes(g);
    for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++) {
      TopoGossip *w = gossip(g, kinds[k]);
      g_assert_cmpuint(topo_gossip_n(w), ==, n);
      g_assert_cmpuint(topo_gossip_nnz(w), ==, n + 2 * topo_graph_n_edges(g));
      double *d = topo_gossip_dense(w);
      for (guint u = 0; u < n; u++) {
        double row = 0, col = 0;
        for (guint v = 0; v < n; v++) {
          double x = d[u * n + v];
          g_assert_cmpfloat(x, >=, 0.0);
          g_assert_cmpfloat(x, ==, topo_gossip_get(w, u, v));
          /* support = u and its neighbours */
          if (x > 0)
            g_assert_true(u == v || topo_graph_has_edge(g, u, v));
          row += x;
          col += d[v * n + u];
        }
        /* Weights in [0, 1] each within an ulp, the diagonal 1 minus <= n others,
         * summed again here: twice a sum of n terms of magnitude <= 1. */
        double tol = 2 * dpg_tol(1, n);
        dpg_test_assert_le(fabs(row - 1.0), tol, "two sums of n weights in [0, 1]");
        if (kinds[k] != TOPO_GOSSIP_UNIFORM) {
          /* doubly stochastic; symmetric, so the column is a row */
          dpg_test_assert_le(fabs(col - 1.0), tol, "two sums of n weights in [0, 1]");
          for (guint v = 0; v < n; v++)
            g_assert_cmpfloat(d[u * n + v], ==, d[v * n + u]);
        }
        const guint *cols;
        const double *vals;
        guint len = topo_gossip_row(w, u, &cols, &vals);
        g_assert_cmpuint(len, ==, topo_graph_degree(g, u) + 1);
        for (guint i = 0; i < len; i++) {
          if (i > 0)
            g_assert_cmpuint(cols[i], >, cols[i - 1]);
          g_assert_cmpfloat(vals[i], ==, d[u * n + cols[i]]);
        }
      }
      if (kinds[k] != TOPO_GOSSIP_UNIFORM)
        g_assert_true(topo_gossip_is_symmetric(w, 0.0));
      else if (s < 4) /* these have edges between unequal degrees */
        g_assert_false(topo_gossip_is_symmetric(w, 1e-3));
      g_free(d);
      topo_gossip_free(w);
    }
    topo_graph_free(g);
  }
}

/* Florentine, uniform W against the shared edge file read independently. */
static void test_uniform_florentine_entries(void) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  char *path = g_build_filename(dir, "graphs", "florentine.edges", NULL);
  FILE *f = fopen(path, "r");
  g_assert_nonnull(f);
  int adj[15][15] = {{0}};
  char line[128];
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned u, v;
    if (line[0] != '#' && sscanf(line, "%u %u", &u, &v) == 2)
      adj[u][v] = adj[v][u] = 1;
  }
  fclose(f);
  g_free(path);
  TopoGraph *g = gen("florentine");
  TopoGossip *w = gossip(g, TOPO_GOSSIP_UNIFORM);
  for (int u = 0; u < 15; u++) {
    int deg = 0;
    for (int v = 0; v < 15; v++)
      deg += adj[u][v];
    for (int v = 0; v < 15; v++) {
      double want = (u == v || adj[u][v]) ? 1.0 / (deg + 1) : 0.0;
      g_assert_cmpfloat(topo_gossip_get(w, u, v), ==, want);
    }
  }
  /* A few by hand: node 0 has one neighbour (1), node 1 has six. */
  g_assert_cmpfloat(topo_gossip_get(w, 0, 0), ==, 0.5);
  g_assert_cmpfloat(topo_gossip_get(w, 0, 1), ==, 0.5);
  g_assert_cmpfloat(topo_gossip_get(w, 1, 0), ==, 1.0 / 7);
  g_assert_cmpfloat(topo_gossip_get(w, 1, 2), ==, 0.0);
  topo_gossip_free(w);

  /* Metropolis: W[0,1] = 1/(1+max(1,6)); maxdegree: dmax = 6. */
  w = gossip(g, TOPO_GOSSIP_METROPOLIS);
  /* Off-diagonals are one correctly rounded division 1/(1 + d): exact. The
   * diagonal is 1 minus <= 6 of them: a sum of 7 terms of magnitude <= 1. */
  const char *why = "diagonal = 1 - sum of <= dmax = 6 off-diagonal weights";
  g_assert_cmpfloat(topo_gossip_get(w, 0, 1), ==, 1.0 / 7);
  dpg_test_assert_le(fabs(topo_gossip_get(w, 0, 0) - 6.0 / 7), dpg_tol(1, 7), why);
  /* node 12 (deg 4): neighbours 7 (3), 8 (3), 11 (3), 14 (1) -> all 1/5 */
  g_assert_cmpfloat(topo_gossip_get(w, 12, 14), ==, 1.0 / 5);
  dpg_test_assert_le(fabs(topo_gossip_get(w, 12, 12) - 1.0 / 5), dpg_tol(1, 7), why);
  topo_gossip_free(w);
  w = gossip(g, TOPO_GOSSIP_MAXDEGREE);
  dpg_test_assert_le(fabs(topo_gossip_get(w, 1, 1) - 1.0 / 7), dpg_tol(1, 7), why);
  dpg_test_assert_le(fabs(topo_gossip_get(w, 0, 0) - 6.0 / 7), dpg_tol(1, 7), why);
  dpg_test_assert_le(fabs(topo_gossip_get(w, 12, 12) - 3.0 / 7), dpg_tol(1, 7), why);
  topo_gossip_free(w);
  topo_graph_free(g);
}

static void test_apply(void) {
  TopoGraph *g = gen("karate");
  TopoGossip *w = gossip(g, TOPO_GOSSIP_METROPOLIS);
  guint n = 34, d = 3;
  double *x = g_new(double, n *d), *y = g_new(double, n *d);
  for (guint i = 0; i < n * d; i++)
    x[i] = sin(1.0 + i);
  topo_gossip_apply(w, x, y, d);
  double *dense = topo_gossip_dense(w);
  for (guint u = 0; u < n; u++)
    for (guint j = 0; j < d; j++) {
      double s = 0;
      for (guint v = 0; v < n; v++)
        s += dense[u * n + v] * x[v * d + j];
      /* Both are sums of <= n products w x with sum w = 1, |x| <= 1. */
      dpg_test_assert_le(fabs(y[u * d + j] - s), 2 * dpg_tol(1, n),
                         "two dot products of n terms, sum |w x| <= 1");
    }
  /* Doubly stochastic: the column sums (network average) are preserved. */
  for (guint j = 0; j < d; j++) {
    double sx = 0, sy = 0, ax = 0;
    for (guint u = 0; u < n; u++) {
      ax += fabs(x[u * d + j]);
      sx += x[u * d + j];
      sy += y[u * d + j];
    }
    /* sum(Wx) = sum(x) up to: the two sums (n terms each, |y| <= max|x|),
     * the rounding of each y (n terms), and W's column sums (1 within
     * n eps each), each at most n eps sum|x|. */
    dpg_test_assert_le(fabs(sx - sy), 3 * dpg_tol(1, n) * ax,
                       "3 x n eps x sum |x|: two sums, W x, W's column sums");
  }
  g_free(dense);
  g_free(x);
  g_free(y);
  topo_gossip_free(w);
  topo_graph_free(g);
}

static void test_csr_and_kinds(void) {
  GError *error = NULL;
  const guint rp[] = {0, 2, 3, 5};
  const guint cols[] = {0, 2, 1, 0, 2};
  const double vals[] = {0.25, 0.75, 1.0, 0.5, 0.5};
  TopoGossip *w = topo_gossip_new_csr(3, rp, cols, vals, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(topo_gossip_get(w, 0, 2), ==, 0.75);
  g_assert_cmpfloat(topo_gossip_get(w, 1, 0), ==, 0.0);
  g_assert_false(topo_gossip_is_symmetric(w, 0.1));
  topo_gossip_free(w);

  const double bad_sum[] = {0.25, 0.7, 1.0, 0.5, 0.5};
  g_assert_null(topo_gossip_new_csr(3, rp, cols, bad_sum, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "row 0"));
  g_clear_error(&error);
  const guint bad_cols[] = {2, 0, 1, 0, 2};
  g_assert_null(topo_gossip_new_csr(3, rp, bad_cols, vals, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  const double neg[] = {1.25, -0.25, 1.0, 0.5, 0.5};
  g_assert_null(topo_gossip_new_csr(3, rp, cols, neg, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);

  TopoGossipKind k;
  g_assert_true(topo_gossip_kind_parse("metropolis", &k, &error));
  g_assert_cmpint(k, ==, TOPO_GOSSIP_METROPOLIS);
  g_assert_true(topo_gossip_kind_parse("maxdegree", &k, &error));
  g_assert_cmpint(k, ==, TOPO_GOSSIP_MAXDEGREE);
  g_assert_true(topo_gossip_kind_parse("uniform", &k, &error));
  g_assert_cmpint(k, ==, TOPO_GOSSIP_UNIFORM);
  g_assert_cmpstr(topo_gossip_kind_name(TOPO_GOSSIP_MAXDEGREE), ==, "maxdegree");
  g_assert_false(topo_gossip_kind_parse("Uniform", &k, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_PARSE);
  g_assert_nonnull(strstr(error->message, "uniform, metropolis, maxdegree"));
  g_clear_error(&error);
}

static void test_spectral_closed_forms(void) {
  /* Complete graph, uniform: W = J/n, eigenvalues 1, 0, ..., 0. */
  /* dsyevd on the symmetrised W (||S|| = 1): eigenvalues within n eps. */
  const char *why = "symmetric eigenvalue of n x n S with ||S|| = 1: n eps";
  dpg_test_assert_le(fabs(gap_of("complete:n=8", TOPO_GOSSIP_UNIFORM) - 1.0), dpg_tol(1, 8), why);
  /* Ring, uniform: eigenvalues (1 + 2 cos(2 pi k / n)) / 3; |lambda_2| at k=1. */
  for (guint n = 5; n <= 13; n += 4) {
    char *spec = g_strdup_printf("ring:n=%u", n);
    double want = 1.0 - (1.0 + 2.0 * cos(2.0 * G_PI / n)) / 3.0;
    for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++) /* regular: all kinds equal */
      dpg_test_assert_le(fabs(gap_of(spec, kinds[k]) - want), dpg_tol(1, n) + 4 * DBL_EPSILON,
                         "n eps for dsyevd (||S|| = 1), 4 eps for the closed form's cos");
    g_free(spec);
  }
  /* Hypercube Q_d: A has eigenvalues d - 2j, W = (I + A)/(d+1): gap 2/(d+1). */
  dpg_test_assert_le(fabs(gap_of("hypercube:dim=4", TOPO_GOSSIP_MAXDEGREE) - 2.0 / 5),
                     dpg_tol(1, 16), why);
  /* Star S_n, uniform: leaf differences (centre 0, leaves summing to 0) have
   * eigenvalue 1/2 (multiplicity n-2); on (centre, common leaf value) W acts
   * as [[1/n, (n-1)/n], [1/2, 1/2]], eigenvalues 1 and 1/n - 1/2. */
  double n = 7;
  double want = 1.0 - MAX(0.5, fabs(1.0 / n - 0.5));
  dpg_test_assert_le(fabs(gap_of("star:n=7", TOPO_GOSSIP_UNIFORM) - want), dpg_tol(1, 7), why);
  /* Disconnected: lambda_2 = 1. */
  GError *error = NULL;
  const guint e[] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3};
  TopoGraph *g = topo_graph_new_from_edges(6, e, 6, &error);
  TopoGossip *w = gossip(g, TOPO_GOSSIP_UNIFORM);
  double gap;
  g_assert_true(topo_gossip_spectral_gap(w, &gap, &error));
  dpg_test_assert_le(gap, dpg_tol(1, 6), why);
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* The reversible (dsyevd) path against the general (dgeev) one. */
static void test_spectral_two_methods(void) {
  const char *specs[] = {"florentine", "karate", "barabasi:n=40,m=2,seed=5"};
  for (gsize s = 0; s < G_N_ELEMENTS(specs); s++) {
    TopoGraph *g = gen(specs[s]);
    TopoGossip *w = gossip(g, TOPO_GOSSIP_UNIFORM);
    guint n = topo_gossip_n(w);
    guint *rp = g_new(guint, n + 1);
    rp[0] = 0;
    for (guint u = 0; u < n; u++)
      rp[u + 1] = rp[u] + topo_gossip_row(w, u, NULL, NULL);
    const guint *cols;
    const double *vals;
    topo_gossip_row(w, 0, &cols, &vals); /* row 0 starts the CSR arrays */
    GError *error = NULL;
    TopoGossip *general = topo_gossip_new_csr(n, rp, cols, vals, &error);
    g_assert_no_error(error);
    double g1, g2;
    g_assert_true(topo_gossip_spectral_gap(w, &g1, &error));
    g_assert_true(topo_gossip_spectral_gap(general, &g2, &error));
    /* W = (D+I)^-1 (A+I) is similar to the symmetric S by (D+I)^1/2, so
     * dgeev's eigenvalues move by at most kappa((D+I)^1/2) x its backward
     * error n eps ||W||_2 (Bauer-Fike), ||W||_2 <= sqrt(||W||_1 ||W||_inf),
     * ||W||_inf = 1; dsyevd adds n eps. */
    guint dmin = G_MAXUINT, dmax = 0;
    double norm1 = 0;
    for (guint v = 0; v < n; v++) {
      dmin = MIN(dmin, topo_graph_degree(g, v));
      dmax = MAX(dmax, topo_graph_degree(g, v));
      double col = 0;
      for (guint u = 0; u < n; u++)
        col += topo_gossip_get(w, u, v);
      norm1 = MAX(norm1, col);
    }
    double kappa = sqrt((dmax + 1.0) / (dmin + 1.0));
    dpg_test_assert_le(fabs(g1 - g2), dpg_tol(kappa, n) * sqrt(norm1) + dpg_tol(1, n),
                       "dgeev: kappa(V) n eps ||W||_2 (Bauer-Fike); dsyevd: n eps");
    g_assert_cmpfloat(g1, >, 0.0);
    g_assert_cmpfloat(g1, <, 1.0);
    g_free(rp);
    topo_gossip_free(general);
    topo_gossip_free(w);
    topo_graph_free(g);
  }
}

static void test_summary(void) {
  GError *error = NULL;
  TopoSummary s;
  TopoGraph *g = gen("florentine");
  g_assert_true(topo_graph_summary(g, TOPO_GOSSIP_UNIFORM, &s, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(s.nodes, ==, 15);
  g_assert_cmpuint(s.edges, ==, 20);
  g_assert_cmpuint(s.deg_min, ==, 1);
  g_assert_cmpuint(s.deg_max, ==, 6);
  g_assert_cmpfloat(s.deg_mean, ==, 40.0 / 15); /* exact: 2m / n, one division */
  g_assert_cmpint(s.diameter, ==, 5);
  g_assert_true(s.connected);
  topo_graph_free(g);

  g = gen("path:n=9");
  g_assert_cmpint(topo_graph_diameter(g), ==, 8);
  g_assert_true(topo_graph_summary(g, TOPO_GOSSIP_METROPOLIS, &s, &error));
  g_assert_cmpint(s.diameter, ==, 8);
  topo_graph_free(g);
  g = gen("ring:n=11");
  g_assert_cmpint(topo_graph_diameter(g), ==, 5);
  topo_graph_free(g);
  g = gen("hypercube:dim=6");
  g_assert_cmpint(topo_graph_diameter(g), ==, 6);
  topo_graph_free(g);
  g = gen("karate");
  g_assert_cmpint(topo_graph_diameter(g), ==, 5);
  topo_graph_free(g);
  g = gen("grid:rows=4,cols=6");
  g_assert_cmpint(topo_graph_diameter(g), ==, 3 + 5);
  topo_graph_free(g);

  g = gen("gnm:n=10,m=2");
  g_assert_true(topo_graph_summary(g, TOPO_GOSSIP_UNIFORM, &s, &error));
  g_assert_false(s.connected);
  g_assert_cmpint(s.diameter, ==, -1);
  g_assert_cmpuint(s.deg_min, ==, 0);
  dpg_test_assert_le(s.spectral_gap, dpg_tol(1, topo_graph_n_nodes(g)),
                     "symmetric eigenvalue, ||S|| = 1: n eps");
  topo_graph_free(g);

  g = gen("complete:n=5");
  g_assert_true(topo_graph_summary(g, TOPO_GOSSIP_UNIFORM, &s, &error));
  g_assert_cmpint(s.diameter, ==, 1);
  dpg_test_assert_le(fabs(s.spectral_gap - 1.0), dpg_tol(1, 5),
                     "symmetric eigenvalue, ||S|| = 1: n eps");
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/topo/gossip/stochastic", test_stochastic);
  g_test_add_func("/topo/gossip/florentine-entries", test_uniform_florentine_entries);
  g_test_add_func("/topo/gossip/apply", test_apply);
  g_test_add_func("/topo/gossip/csr-and-kinds", test_csr_and_kinds);
  g_test_add_func("/topo/gossip/spectral-closed-forms", test_spectral_closed_forms);
  g_test_add_func("/topo/gossip/spectral-two-methods", test_spectral_two_methods);
  g_test_add_func("/topo/gossip/summary", test_summary);
  return g_test_run();
}
