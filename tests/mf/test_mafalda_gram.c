/*
 * tests/mf/test_mafalda_gram.c: the structured workload Gram matrix H
 * against closed forms (complete graph, ring), a brute-force nT x nT
 * construction, the other computation paths, and the reference values of
 * tests/data/reference/mafalda-florentine-*.json.
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "mf/mf.h"
#include "tests/common/graphs.h"
#include "topologies/topologies.h"
#include "tests/common/checks.h"
#include "tests/common/tolerance.h"

/* ---- helpers ---- */

/* Max over entries of |A - B| / max|B|. */
static double mat_rel_err(const double *A, const double *B, gsize len) {
  double num = 0.0, den = 0.0;
  for (gsize i = 0; i < len; i++) {
    num = MAX(num, fabs(A[i] - B[i]));
    den = MAX(den, fabs(B[i]));
  }
  return num / den;
}

static double trace(const double *H, guint T) {
  double t = 0.0;
  for (guint s = 0; s < T; s++)
    t += H[(gsize)s * T + s];
  return t;
}

static JsonParser *load_reference(const char *file) {
  char *path = g_build_filename(g_getenv("DPG_TEST_DATA"), "reference", file, NULL);
  JsonParser *p = json_parser_new();
  GError *err = NULL;
  json_parser_load_from_file(p, path, &err);
  g_assert_no_error(err);
  g_free(path);
  return p;
}

/* Uniform gossip on a hand-made graph given by its adjacency pairs. */
static double *uniform_from_edges(guint n, const guint *edges, guint m) {
  double *W = g_new0(double, (gsize)n *n);
  guint *deg = g_new0(guint, n);
  for (guint e = 0; e < m; e++) {
    deg[edges[2 * e]]++;
    deg[edges[2 * e + 1]]++;
  }
  for (guint u = 0; u < n; u++)
    W[(gsize)u * n + u] = 1.0 / (deg[u] + 1);
  for (guint e = 0; e < m; e++) {
    guint u = edges[2 * e], v = edges[2 * e + 1];
    W[(gsize)u * n + v] = 1.0 / (deg[u] + 1);
    W[(gsize)v * n + u] = 1.0 / (deg[v] + 1);
  }
  g_free(deg);
  return W;
}

/* A random row-stochastic matrix with a random sparsity pattern: not
 * reversible, not symmetric. */
static double *random_stochastic(GRand *r, guint n) {
  double *W = g_new0(double, (gsize)n *n);
  for (guint i = 0; i < n; i++) {
    double sum = 0.0;
    for (guint j = 0; j < n; j++) {
      if (i == j || g_rand_double(r) < 0.5)
        W[(gsize)i * n + j] = g_rand_double_range(r, 0.1, 1);
      sum += W[(gsize)i * n + j];
    }
    for (guint j = 0; j < n; j++)
      W[(gsize)i * n + j] /= sum;
  }
  return W;
}

/* Brute force: the nT x nT workload A with block (t, s) = W_t ... W_s
 * (post-average) or W_{t-1} ... W_s (messages), then H[s,s'] = sum_i sum_rows
 * A[r, s n + i] A[r, s' n + i]. Wt[t] is round t's matrix. */
static double *brute_force_gram(double **Wt, guint n, guint T, MfWorkload wl) {
  gsize N = (gsize)n * T;
  double *A = g_new0(double, N *N);
  double *P = g_new(double, (gsize)n *n), *Q = g_new(double, (gsize)n *n);
  for (guint s = 0; s < T; s++) {
    /* P = product for t = s, then P <- W_{t} P moving t forward. */
    memset(P, 0, (gsize)n * n * sizeof(double));
    for (guint i = 0; i < n; i++)
      P[(gsize)i * n + i] = 1.0;
    for (guint t = s; t < T; t++) {
      if (wl == MF_WORKLOAD_POST_AVERAGE) {
        /* P <- W_t P */
        for (guint i = 0; i < n; i++)
          for (guint j = 0; j < n; j++) {
            double v = 0.0;
            for (guint l = 0; l < n; l++)
              v += Wt[t][(gsize)i * n + l] * P[(gsize)l * n + j];
            Q[(gsize)i * n + j] = v;
          }
        memcpy(P, Q, (gsize)n * n * sizeof(double));
      }
      for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
          A[((gsize)t * n + i) * N + (gsize)s * n + j] = P[(gsize)i * n + j];
      if (wl == MF_WORKLOAD_MESSAGES) {
        for (guint i = 0; i < n; i++)
          for (guint j = 0; j < n; j++) {
            double v = 0.0;
            for (guint l = 0; l < n; l++)
              v += Wt[t][(gsize)i * n + l] * P[(gsize)l * n + j];
            Q[(gsize)i * n + j] = v;
          }
        memcpy(P, Q, (gsize)n * n * sizeof(double));
      }
    }
  }
  double *H = g_new0(double, (gsize)T *T);
  for (guint s = 0; s < T; s++)
    for (guint s2 = 0; s2 < T; s2++) {
      double v = 0.0;
      for (guint i = 0; i < n; i++)
        for (gsize r = 0; r < N; r++)
          v += A[r * N + (gsize)s * n + i] * A[r * N + (gsize)s2 * n + i];
      H[(gsize)s * T + s2] = v;
    }
  g_free(A);
  g_free(P);
  g_free(Q);
  return H;
}

typedef struct {
  double **Wt;
  guint calls;
} Schedule;

static const double *schedule_at(guint t, gpointer data) {
  Schedule *s = data;
  s->calls++;
  return s->Wt[t];
}

/* ---- closed forms ---- */

/* Complete graph, uniform gossip: W = 11^T/n, W^a = W (a >= 1), ||W||_F = 1,
 * <I, W> = 1, <I, I> = n. Post-average: H[s,s'] = T - max(s,s').
 * Messages: the same plus (n - 1) on the diagonal. */
static void test_complete_closed_form(void) {
  const guint n = 6, T = 9;
  double *W = g_new(double, n *n);
  for (guint i = 0; i < n * n; i++)
    W[i] = 1.0 / n;
  for (int method = MF_GRAM_AUTO; method <= MF_GRAM_POWERS; method++) {
    for (int wl = 0; wl < 2; wl++) {
      GError *err = NULL;
      double *H = mf_gram_static(W, n, T, wl, method, 0, &err);
      g_assert_no_error(err);
      for (guint s = 0; s < T; s++)
        for (guint t = 0; t < T; t++) {
          double want = T - MAX(s, t) + (wl == MF_WORKLOAD_MESSAGES && s == t ? n - 1.0 : 0.0);
          /* Terms are nonnegative, <= 1 (plus the exact n - 1): each a chain of
           * <= T products of n-term dots (or eigenvalue powers, each known to
           * n eps), so n T eps relative; their sum of <= T terms adds T eps. */
          dpg_test_assert_close(H[s * T + t], want, dpg_tol(1, (n + 2.0) * T),
                                "nonnegative terms: (n + 1) T eps relative, plus a sum of T");
        }
      g_free(H);
    }
  }
  g_free(W);
}

/* Ring C_n, uniform gossip: W circulant symmetric with eigenvalues
 * l_j = (1 + 2 cos(2 pi j / n)) / 3, so <W^a, W^c>_F = sum_j l_j^{a+c}. */
static void test_ring_closed_form(void) {
  const guint n = 7, T = 11;
  guint edges[2 * 7];
  for (guint i = 0; i < n; i++) {
    edges[2 * i] = i;
    edges[2 * i + 1] = (i + 1) % n;
  }
  double *W = uniform_from_edges(n, edges, n);
  GError *err = NULL;
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_EIGEN, 0, &err);
  g_assert_no_error(err);
  for (guint s = 0; s < T; s++)
    for (guint s2 = 0; s2 < T; s2++) {
      double want = 0.0;
      for (guint t = MAX(s, s2); t < T; t++)
        for (guint j = 0; j < n; j++) {
          double l = (1.0 + 2.0 * cos(2.0 * G_PI * j / n)) / 3.0;
          want += pow(l, (double)(t - s + 1) + (t - s2 + 1));
        }
      g_assert_cmpfloat(test_rel_diff(H[s * T + s2], want), <, 1e-12);
    }
  g_free(H);
  g_free(W);
}

/* ---- independent methods ---- */

/* A path with a pendant triangle: uniform W is reversible but not symmetric
 * (degrees differ), so the similarity correction matters. Every path must
 * agree with the brute force, for both workloads. */
static void test_brute_force_static(void) {
  const guint n = 6, T = 7;
  const guint edges[] = {0, 1, 1, 2, 2, 3, 3, 4, 3, 5, 4, 5};
  double *W = uniform_from_edges(n, edges, 6);
  double **Wt = g_new(double *, T);
  for (guint t = 0; t < T; t++)
    Wt[t] = W;
  for (int wl = 0; wl < 2; wl++) {
    double *ref = brute_force_gram(Wt, n, T, wl);
    for (int method = MF_GRAM_AUTO; method <= MF_GRAM_POWERS; method++) {
      GError *err = NULL;
      double *H = mf_gram_static(W, n, T, wl, method, 0, &err);
      g_assert_no_error(err);
      g_assert_cmpfloat(mat_rel_err(H, ref, T * T), <, 1e-13);
      g_free(H);
    }
    Schedule sch = {Wt, 0};
    GError *err = NULL;
    double *H = mf_gram_time_varying(n, T, wl, schedule_at, &sch, &err);
    g_assert_no_error(err);
    g_assert_cmpfloat(mat_rel_err(H, ref, T * T), <, 1e-13);
    g_assert_cmpuint(sch.calls, ==, T + T * (T - 1) / 2);
    g_free(H);
    /* The per-node Gram matrices sum to H. */
    double *sum = g_new0(double, T *T);
    for (guint i = 0; i < n; i++) {
      double *Hi = mf_gram_node(W, n, i, T, wl, 0, &err);
      g_assert_no_error(err);
      for (guint j = 0; j < T * T; j++)
        sum[j] += Hi[j];
      g_free(Hi);
    }
    g_assert_cmpfloat(mat_rel_err(sum, ref, T * T), <, 1e-13);
    g_free(sum);
    g_free(ref);
  }
  g_free(Wt);
  g_free(W);
}

/* Non-reversible W: AUTO falls back to the powers, EIGEN refuses. */
static void test_non_reversible(void) {
  const guint n = 5, T = 6;
  GRand *r = g_rand_new_with_seed(7);
  double *W = random_stochastic(r, n);
  double **Wt = g_new(double *, T);
  for (guint t = 0; t < T; t++)
    Wt[t] = W;
  for (int wl = 0; wl < 2; wl++) {
    double *ref = brute_force_gram(Wt, n, T, wl);
    GError *err = NULL;
    double *H = mf_gram_static(W, n, T, wl, MF_GRAM_AUTO, 0, &err);
    g_assert_no_error(err);
    g_assert_cmpfloat(mat_rel_err(H, ref, T * T), <, 1e-13);
    g_free(H);
    g_free(ref);
  }
  GError *err = NULL;
  g_assert_null(mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_EIGEN, 0, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "not reversible"));
  g_error_free(err);
  g_free(Wt);
  g_free(W);
  g_rand_free(r);
}

/* Time-varying: a different random W_t each round against the brute force. */
static void test_time_varying(void) {
  const guint n = 4, T = 6;
  GRand *r = g_rand_new_with_seed(11);
  double **Wt = g_new(double *, T);
  for (guint t = 0; t < T; t++)
    Wt[t] = random_stochastic(r, n);
  for (int wl = 0; wl < 2; wl++) {
    double *ref = brute_force_gram(Wt, n, T, wl);
    Schedule sch = {Wt, 0};
    GError *err = NULL;
    double *H = mf_gram_time_varying(n, T, wl, schedule_at, &sch, &err);
    g_assert_no_error(err);
    g_assert_cmpfloat(mat_rel_err(H, ref, T * T), <, 1e-13);
    g_free(H);
    g_free(ref);
  }
  for (guint t = 0; t < T; t++)
    g_free(Wt[t]);
  g_free(Wt);
  g_rand_free(r);
}

/* A random graph the other tests have not seen, through the topologies API:
 * eigen and powers agree (reversible uniform W on ~40 nodes, T = 30). */
static void test_random_graph_paths_agree(void) {
  GError *err = NULL;
  guint n, T = 30;
  double *W = test_dense_gossip("erdos:n=40,p=0.15,seed=5,connected=true", &n);
  for (int wl = 0; wl < 2; wl++) {
    double *He = mf_gram_static(W, n, T, wl, MF_GRAM_EIGEN, 0, &err);
    g_assert_no_error(err);
    double *Hp = mf_gram_static(W, n, T, wl, MF_GRAM_POWERS, 0, &err);
    g_assert_no_error(err);
    g_assert_cmpfloat(mat_rel_err(He, Hp, T * T), <, 1e-12);
    /* The spectral form's H is the EIGEN method's to the bit. */
    MfGramSpectral *sp = mf_gram_spectral_new(W, n, T, wl, &err);
    g_assert_no_error(err);
    double *Hs = mf_gram_spectral_dense(sp, &err);
    g_assert_no_error(err);
    g_assert_true(memcmp(Hs, He, sizeof(double) * T * T) == 0);
    g_free(Hs);
    mf_gram_spectral_free(sp);
    g_free(He);
    g_free(Hp);
  }
  g_free(W);
}

/* ---- reference values ---- */

static void test_florentine_reference_k3_b4(void) {
  guint n;
  TopoGraph *g = test_graph_file("florentine.edges");
  double *W = test_gossip_dense(g, &n);
  topo_graph_free(g);
  g_assert_cmpuint(n, ==, 15);
  JsonParser *p = load_reference("mafalda-florentine-k3-b4.json");
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  guint T = json_object_get_int_member(o, "rounds_T");
  g_assert_cmpuint(T, ==, 12);
  GError *err = NULL;
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, &err);
  g_assert_no_error(err);
  JsonArray *rows = json_object_get_array_member(o, "H");
  g_assert_cmpuint(json_array_get_length(rows), ==, T);
  for (guint s = 0; s < T; s++) {
    JsonArray *row = json_array_get_array_element(rows, s);
    for (guint t = 0; t < T; t++)
      g_assert_cmpfloat(test_rel_diff(H[s * T + t], json_array_get_double_element(row, t)), <,
                        1e-10);
  }
  g_assert_cmpfloat(test_rel_diff(trace(H, T), json_object_get_double_member(o, "trace_H")), <,
                    1e-10);
  g_free(H);
  H = mf_gram_static(W, n, T, MF_WORKLOAD_MESSAGES, MF_GRAM_AUTO, 0, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(
      test_rel_diff(trace(H, T), json_object_get_double_member(o, "trace_H_messages")), <, 1e-10);
  /* Messages: the last round only sees its own gradient, H[T-1,T-1] = <I,I> = n. */
  g_assert_cmpfloat(test_rel_diff(H[T * T - 1], n), <, 1e-13);
  g_free(H);
  g_object_unref(p);
  g_free(W);
}

static void test_florentine_reference_k5_b16(void) {
  guint n;
  TopoGraph *g = test_graph_file("florentine.edges");
  double *W = test_gossip_dense(g, &n);
  topo_graph_free(g);
  JsonParser *p = load_reference("mafalda-florentine-k5-b16.json");
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  guint T = json_object_get_int_member(o, "rounds_T");
  g_assert_cmpuint(T, ==, 80);
  GError *err = NULL;
  for (int method = MF_GRAM_EIGEN; method <= MF_GRAM_POWERS; method++) {
    double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, method, 0, &err);
    g_assert_no_error(err);
    g_assert_cmpfloat(test_rel_diff(trace(H, T), json_object_get_double_member(o, "trace_H")), <,
                      1e-10);
    g_assert_cmpfloat(test_rel_diff(H[0], json_object_get_double_member(o, "H_first")), <, 1e-10);
    g_assert_cmpfloat(test_rel_diff(H[T * T - 1], json_object_get_double_member(o, "H_last")), <,
                      1e-10);
    g_free(H);
    H = mf_gram_static(W, n, T, MF_WORKLOAD_MESSAGES, method, 0, &err);
    g_assert_no_error(err);
    g_assert_cmpfloat(
        test_rel_diff(trace(H, T), json_object_get_double_member(o, "trace_H_messages")), <, 1e-10);
    g_free(H);
  }
  g_object_unref(p);
  g_free(W);
}

/* ---- errors ---- */

static const double *null_at(guint t, gpointer data) {
  static const double one[1] = {1.0};
  (void)data;
  return t == 2 ? NULL : one;
}

static void test_errors(void) {
  double W[4] = {0.5, 0.5, 0.5, 0.5};
  GError *err = NULL;
  g_assert_null(mf_gram_static(W, 2, 0, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(mf_gram_static(W, 0, 3, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  double bad[4] = {0.5, NAN, 0.5, 0.5};
  g_assert_null(mf_gram_static(bad, 2, 3, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "(0, 1)"));
  g_clear_error(&err);
  /* Growing powers overflow: a clear numerical error, not inf in H. */
  double grow[1] = {1e30};
  g_assert_null(mf_gram_static(grow, 1, 40, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_NUMERICAL);
  g_clear_error(&err);
  /* A budget too small says how much it would need: H and 64 rows of F
   * (F is made by blocks of rows, never whole: it was 16.0 MB). */
  g_assert_null(mf_gram_static(W, 2, 1000, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 1000, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_MEMORY);
  g_assert_nonnull(strstr(err->message, "8.5 MB"));
  g_clear_error(&err);
  g_assert_true(mf_gram_check_memory(148, 320, 0, &err));
  g_assert_false(mf_gram_check_memory(1000, 80, 1000000, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_MEMORY);
  g_assert_nonnull(strstr(err->message, "would need 33.4 MB"));
  g_clear_error(&err);
  g_assert_null(mf_gram_node(W, 2, 2, 3, MF_WORKLOAD_POST_AVERAGE, 0, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(mf_gram_time_varying(1, 4, MF_WORKLOAD_MESSAGES, null_at, NULL, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "round 2"));
  g_clear_error(&err);
  MfWorkload wl;
  g_assert_true(mf_workload_parse("messages", &wl, NULL));
  g_assert_cmpint(wl, ==, MF_WORKLOAD_MESSAGES);
  g_assert_cmpstr(mf_workload_name(wl), ==, "messages");
  g_assert_false(mf_workload_parse("average", &wl, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  double *P = mf_gram_prefix_sum(4, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(P[0], ==, 4.0);
  g_assert_cmpfloat(P[1 * 4 + 3], ==, 1.0);
  g_assert_cmpfloat(P[2 * 4 + 1], ==, 2.0);
  g_free(P);
}

/* The lower triangle copied onto the upper one, across tile edges (n = 130
 * spans three tiles of 64), the lower triangle and diagonal untouched. */
static void test_fill_upper(void) {
  const guint n = 130;
  double *A = g_new(double, (gsize)n *n);
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < n; j++)
      A[(gsize)i * n + j] = j <= i ? 1000.0 * i + j : -1.0;
  mf_fill_upper_from_lower(A, n);
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < n; j++)
      g_assert_cmpfloat(A[(gsize)i * n + j], ==, 1000.0 * MAX(i, j) + MIN(i, j));
  g_free(A);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mf/gram/complete-closed-form", test_complete_closed_form);
  g_test_add_func("/mf/gram/ring-closed-form", test_ring_closed_form);
  g_test_add_func("/mf/gram/brute-force-static", test_brute_force_static);
  g_test_add_func("/mf/gram/non-reversible", test_non_reversible);
  g_test_add_func("/mf/gram/time-varying", test_time_varying);
  g_test_add_func("/mf/gram/random-graph-paths-agree", test_random_graph_paths_agree);
  g_test_add_func("/mf/gram/florentine-k3-b4", test_florentine_reference_k3_b4);
  g_test_add_func("/mf/gram/florentine-k5-b16", test_florentine_reference_k5_b16);
  g_test_add_func("/mf/gram/errors", test_errors);
  g_test_add_func("/mf/gram/fill-upper", test_fill_upper);
  return g_test_run();
}
