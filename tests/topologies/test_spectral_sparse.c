/*
 * tests/topologies/test_spectral_sparse.c: the sparse (ARPACK) spectral gap
 * against the dense LAPACK one and closed forms; the summary's time bounds;
 * generators refused before allocating more than the memory budget.
 */
#include <math.h>
#include <string.h>

#include "topologies/internal.h"

static TopoGraph *gen(const char *spec) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate(spec, &error);
  g_assert_no_error(error);
  return g;
}

static double sparse_gap(const TopoGossip *w) {
  GError *error = NULL;
  TopoSummaryStatus status;
  double gap = -1.0;
  g_assert_true(topo_gossip_gap_sparse(w, TOPO_GAP_EXACT_WORK, &gap, &status, &error));
  g_assert_no_error(error);
  g_assert_cmpint(status, ==, TOPO_SUMMARY_COMPUTED);
  return gap;
}

/* The values below 2,048 nodes are LAPACK's, as before; ARPACK on the same
 * matrices must agree with them, for every kind of W. */
static void test_sparse_matches_dense(void) {
  const char *specs[] = {"florentine",
                         "karate",
                         "barabasi:n=200,m=2,seed=5",
                         "erdos:n=300,p=0.03,seed=3",
                         "watts:n=150,k=2,p=0.1,seed=1",
                         "gnm:n=80,m=60,seed=2" /* disconnected: gap 0 */};
  const TopoGossipKind kinds[] = {TOPO_GOSSIP_UNIFORM, TOPO_GOSSIP_METROPOLIS,
                                  TOPO_GOSSIP_MAXDEGREE};
  for (gsize s = 0; s < G_N_ELEMENTS(specs); s++)
    for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++) {
      TopoGraph *g = gen(specs[s]);
      GError *error = NULL;
      TopoGossip *w = topo_gossip_new(g, kinds[k], &error);
      g_assert_no_error(error);
      double dense;
      g_assert_true(topo_gossip_spectral_gap(w, &dense, &error));
      double sparse = sparse_gap(w);
      if (fabs(sparse - dense) > 1e-9)
        g_error("%s, %s: ARPACK gap %.17g, LAPACK %.17g", specs[s], topo_gossip_kind_name(kinds[k]),
                sparse, dense);
      topo_gossip_free(w);
      topo_graph_free(g);
    }
}

/* Closed forms, through the public function (above 2,048 nodes it is the
 * sparse path). Ring C_n, uniform W = (I + A)/3: eigenvalues
 * (1 + 2 cos(2 pi k/n))/3, gap 2(1 - cos(2 pi/n))/3. Hypercube Q_d: gap
 * 2/(d+1). Star, uniform: 1/2 (|1/n - 1/2| < 1/2). Complete, uniform: W = J/n,
 * gap 1. */
static void test_closed_forms(void) {
  struct {
    const char *spec;
    double gap;
  } cases[] = {
      {"ring:n=60", 2.0 * (1.0 - cos(2.0 * G_PI / 60)) / 3.0},
      {"hypercube:dim=12", 2.0 / 13.0},
      {"star:n=5000", 0.5},
      {"complete:n=2100", 1.0},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    TopoGraph *g = gen(cases[i].spec);
    GError *error = NULL;
    TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &error);
    g_assert_no_error(error);
    double gap = i == 0 ? sparse_gap(w) : -1.0;
    if (i > 0)
      g_assert_true(topo_gossip_spectral_gap(w, &gap, &error));
    g_assert_no_error(error);
    if (fabs(gap - cases[i].gap) > 1e-9 * MAX(1.0, cases[i].gap))
      g_error("%s: gap %.17g, expected %.17g", cases[i].spec, gap, cases[i].gap);
    topo_gossip_free(w);
    topo_graph_free(g);
  }
}

/* A summary of a large graph stays bounded: it used to build the n x n W
 * (80 GB for 100,000 nodes) and run one BFS per node. */
static void test_summary_bounded(void) {
  TopoGraph *g = gen("ring:n=100000");
  TopoSummary s;
  GError *error = NULL;
  gint64 t0 = g_get_monotonic_time();
  g_assert_true(topo_graph_summary(g, TOPO_GOSSIP_UNIFORM, &s, &error));
  g_assert_no_error(error);
  g_assert_cmpint(s.diameter_status, ==, TOPO_SUMMARY_SKIPPED_WORK);
  g_assert_cmpint(s.diameter, ==, -1);
  g_assert_true(s.connected);
  /* A gap of 4e-10 is out of reach of a bounded Lanczos run: said, not guessed. */
  g_assert_cmpint(s.gap_status, ==, TOPO_SUMMARY_NO_CONVERGENCE);
  g_assert_true(isnan(s.spectral_gap));
  g_assert_cmpint(g_get_monotonic_time() - t0, <, 30 * G_USEC_PER_SEC);
  /* The note names the reason, and --exact only where a time bound stood in the way. */
  char *note = topo_summary_status_note(s.diameter_status);
  g_assert_cmpstr(note, ==,
                  "not computed: the graph is too large for the summary's time bound; rerun "
                  "with --exact to compute it without a time bound");
  g_free(note);
  note = topo_summary_status_note(TOPO_SUMMARY_SKIPPED_MEMORY);
  g_assert_cmpstr(note, ==, "not computed: the eigensolver would not fit in the memory budget");
  g_free(note);
  topo_graph_free(g);

  /* Small graphs: both computed, as before. */
  g = gen("karate");
  g_assert_true(topo_graph_summary(g, TOPO_GOSSIP_UNIFORM, &s, &error));
  g_assert_cmpint(s.diameter_status, ==, TOPO_SUMMARY_COMPUTED);
  g_assert_cmpint(s.gap_status, ==, TOPO_SUMMARY_COMPUTED);
  g_assert_cmpint(s.diameter, ==, 5);
  topo_graph_free(g);
}

/* Generators whose graph cannot fit are refused before igraph allocates. */
static void test_generator_budget(void) {
  const char *specs[] = {"erdos:n=10000000,p=0.5", "gnm:n=67108864,m=1000000000000000",
                         "barabasi:n=67108864,m=67108863", "watts:n=67108864,k=33554431,p=0"};
  for (gsize i = 0; i < G_N_ELEMENTS(specs); i++) {
    GError *error = NULL;
    TopoGraph *g = topo_graph_generate(specs[i], &error);
    g_assert_null(g);
    g_assert_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(error->message, "would need"));
    g_assert_nonnull(strstr(error->message, specs[i]));
    g_error_free(error);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/topologies/spectral/sparse-matches-dense", test_sparse_matches_dense);
  g_test_add_func("/topologies/spectral/closed-forms", test_closed_forms);
  g_test_add_func("/topologies/summary/bounded", test_summary_bounded);
  g_test_add_func("/topologies/generate/memory-budget", test_generator_budget);
  return g_test_run();
}
