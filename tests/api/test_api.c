/*
 * tests/api/test_api.c: libdpgossip through its public header only, as a
 * foreign caller sees it: values against the reference accounting and the
 * Mafalda reference of tests/data/reference (their numbers copied here), the command
 * line's error messages and statuses, cancellation, the header text the
 * library carries for bindings, and (under the sanitizers) no leak on any path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "api/dpgossip.h"
#include "tests/common/tolerance.h"

static int col(const DpgTable *t, const char *name) {
  for (unsigned j = 0; j < dpg_table_n_cols(t); j++)
    if (strcmp(dpg_table_col_name(t, j), name) == 0)
      return (int)j;
  g_assert_not_reached();
  return -1;
}

static const char *attr(const DpgTable *t, const char *key) {
  for (unsigned i = 0; i < dpg_table_n_attrs(t); i++)
    if (strcmp(dpg_table_attr_key(t, i), key) == 0)
      return dpg_table_attr_value(t, i);
  return NULL;
}

/* tests/data/reference/pndp-florentine-T10-attacker0.json, nodes 1 and 2. */
static void test_account_reference(void) {
  DpgAccountOptions o;
  dpg_account_options_init(&o);
  const char *att[] = {"0", NULL};
  o.graph.generate = "florentine";
  o.rounds = 10;
  o.trust = "pndp";
  o.attackers = att;
  o.compare = "muffliato";
  o.sensitivity = "bound"; /* the reference is the paper's Thm 5.2 */
  DpgError err = {0};
  DpgTable *t = dpg_account(&o, &err);
  g_assert_nonnull(t);
  g_assert_cmpint(err.status, ==, 0);
  g_assert_cmpuint(dpg_table_n_rows(t), ==, 14);
  const int64_t *node = dpg_table_col_int(t, (unsigned)col(t, "victim"));
  const int64_t *dist = dpg_table_col_int(t, (unsigned)col(t, "distance"));
  const double *sens = dpg_table_col_double(t, (unsigned)col(t, "sensitivity"));
  const double *rdp = dpg_table_col_double(t, (unsigned)col(t, "rdp"));
  const double *muff = dpg_table_col_double(t, (unsigned)col(t, "muffliato_rdp"));
  g_assert_cmpint(node[0], ==, 1);
  g_assert_cmpint(dist[0], ==, 1);
  /* Thm 5.2 gives 3.30317322412629 (RDP 10.911), above the LDP cap sqrt(T) / sigma
   * = sqrt(10) (RDP 10): the cap is printed (docs/design.md, "The LDP cap"). */
  /* The cap is a closed form of a few flops: sqrt(T) / sigma, and alpha mu^2
   * / 2 of it, <= 4 roundings each. */
  const char *why = "the LDP cap's closed form, a few flops";
  dpg_test_assert_close(sens[0], sqrt(10.0), dpg_tol(1, 4), why);
  dpg_test_assert_close(rdp[0], 10.0, dpg_tol(1, 4), why);
  dpg_test_assert_close(muff[0], 10.0, dpg_tol(1, 4), why);
  g_assert_cmpint(node[1], ==, 2);
  g_assert_cmpint(dist[1], ==, 3);
  g_assert_cmpfloat_with_epsilon(sens[1], 0.3606833580890629, 1e-13);
  g_assert_cmpstr(attr(t, "path"), ==, "structured");
  g_assert_cmpstr(dpg_table_col_string(t, (unsigned)col(t, "status"), 0), ==, "protected");
  dpg_table_free(t);
}

/* The observer path on the same run gives the structured path's numbers. */
static void test_account_observer_equals_structured(void) {
  DpgAccountOptions o;
  dpg_account_options_init(&o);
  const char *att[] = {"0+5", "3", NULL};
  o.graph.generate = "florentine";
  o.rounds = 4;
  o.trust = "pndp,ldp";
  o.attackers = att;
  DpgError err = {0};
  o.path = "structured";
  DpgTable *a = dpg_account(&o, &err);
  o.path = "observer";
  DpgTable *b = dpg_account(&o, &err);
  g_assert_nonnull(a);
  g_assert_nonnull(b);
  g_assert_cmpuint(dpg_table_n_rows(a), ==, 2 * (13 + 14));
  g_assert_cmpuint(dpg_table_n_rows(b), ==, dpg_table_n_rows(a));
  g_assert_cmpstr(attr(b, "path"), ==, "observer");
  g_assert_nonnull(attr(b, "messages_sent"));
  const double *sa = dpg_table_col_double(a, (unsigned)col(a, "mu"));
  const double *sb = dpg_table_col_double(b, (unsigned)col(b, "mu"));
  for (size_t i = 0; i < dpg_table_n_rows(a); i++)
    g_assert_cmpfloat_with_epsilon(sa[i], sb[i], 1e-9 * MAX(1.0, fabs(sa[i])));
  dpg_table_free(a);
  dpg_table_free(b);
}

/* Every kind of failure: message, status, nothing leaked. */
static void test_errors(void) {
  DpgAccountOptions o;
  dpg_account_options_init(&o);
  const char *att[] = {"0", NULL}, *bad[] = {"99", NULL}, *links[] = {"1:0=down", NULL};
  o.graph.generate = "florentine";
  o.trust = "pndp";
  o.attackers = att;
  DpgError err = {0};
  g_assert_null(dpg_account(&o, &err)); /* rounds not given */
  g_assert_cmpint(err.status, ==, 2);
  g_assert_cmpstr(err.message, ==, "--rounds T must be given and positive (got 0)");
  dpg_free(err.message);
  err = (DpgError){0};
  o.rounds = 4;
  o.attackers = bad;
  g_assert_null(dpg_account(&o, &err)); /* after the graph was built */
  g_assert_cmpint(err.status, ==, 2);
  g_assert_true(g_str_has_prefix(err.message, "--attackers: "));
  dpg_free(err.message);
  err = (DpgError){0};
  o.attackers = att;
  o.links = links; /* a sync run behind a down link stalls: a run failure */
  o.path = "observer";
  g_assert_null(dpg_account(&o, &err));
  g_assert_cmpint(err.status, ==, 1);
  g_assert_nonnull(err.message);
  dpg_free(err.message);
  err = (DpgError){0};
  DpgGraphSpec none = {0};
  g_assert_null(dpg_graph(&none, 0, &err));
  g_assert_cmpstr(err.message, ==, "give exactly one of --graph FILE or --generate SPEC");
  dpg_free(err.message);
  err = (DpgError){0};
  DpgMafaldaOptions m = {.graph = {.generate = "florentine"},
                         .epochs = 2,
                         .batches = 2,
                         .workload = "nope",
                         .band = -1};
  g_assert_null(dpg_mafalda(&m, &err));
  g_assert_cmpint(err.status, ==, 2);
  dpg_free(err.message);
  err = (DpgError){0};
  g_assert_null(dpg_run("/nonexistent.ini", NULL, NULL, 1, 0, NULL, NULL, &err));
  g_assert_cmpint(err.status, ==, 1);
  dpg_free(err.message);
}

/* tests/data/reference/mafalda-florentine-k3-b4.json. */
static void test_mafalda_reference(void) {
  DpgMafaldaOptions m = {
      .graph = {.generate = "florentine"}, .epochs = 3, .batches = 4, .band = -1};
  DpgError err = {0};
  DpgTable *t = dpg_mafalda(&m, &err);
  g_assert_nonnull(t);
  unsigned rows, cols;
  const double *C = dpg_table_matrix(t, &rows, &cols);
  g_assert_cmpuint(rows, ==, 12);
  g_assert_cmpuint(cols, ==, 12);
  g_assert_cmpfloat(C[1], ==, 0.0); /* lower triangular */
  const double *loss = dpg_table_col_double(t, (unsigned)col(t, "loss"));
  g_assert_cmpstr(dpg_table_col_string(t, 0, 0), ==, "mafalda");
  g_assert_cmpfloat_with_epsilon(loss[0], 319.7714127795614, 319.77 * 1e-6);
  g_assert_cmpfloat_with_epsilon(loss[1], 532.9330277007997, 532.93 * 1e-12);
  /* Printed round-trip (g_ascii_dtostr). tr H is a sum of T = 12 nonnegative
   * diagonal terms, each from <= T gossip products of n = 15 term dots (n T eps
   * relative), times kappa <= sqrt((dmax + 1) / (dmin + 1)) = sqrt(7/2) for
   * an eigen path on a reversible W; the reference carries the same error. */
  dpg_test_assert_close(g_ascii_strtod(attr(t, "trace_H"), NULL), 177.64434256693326,
                        2 * dpg_tol(sqrt(7.0 / 2), (15 + 2) * 12),
                        "T nonnegative terms of (n + 1) T eps relative, kappa of W's "
                        "eigenvectors, on both sides");
  dpg_table_free(t);
}

/* An edge list in memory is the generated graph with those edges. */
static void test_graph_edges(void) {
  DpgGraphSpec gen = {.generate = "florentine"};
  DpgError err = {0};
  unsigned n;
  size_t m;
  unsigned *e = dpg_graph_edges(&gen, &n, &m, &err);
  g_assert_nonnull(e);
  g_assert_cmpuint(n, ==, 15);
  g_assert_cmpuint(m, ==, 20);
  DpgGraphSpec mem = {.edges = e, .n_edges = m};
  DpgTable *a = dpg_graph(&gen, 0, &err), *b = dpg_graph(&mem, 0, &err);
  g_assert_nonnull(a);
  g_assert_nonnull(b);
  g_assert_cmpint(dpg_table_col_int(b, (unsigned)col(b, "edges"))[0], ==, 20);
  g_assert_cmpint(dpg_table_col_int(b, (unsigned)col(b, "diameter"))[0], ==,
                  dpg_table_col_int(a, (unsigned)col(a, "diameter"))[0]);
  g_assert_cmpfloat(dpg_table_col_double(b, (unsigned)col(b, "spectral_gap"))[0], ==,
                    dpg_table_col_double(a, (unsigned)col(a, "spectral_gap"))[0]);
  g_assert_cmpint(dpg_table_col_int(b, (unsigned)col(b, "renumbered"))[0], ==, INT64_MIN);
  dpg_table_free(a);
  dpg_table_free(b);
  dpg_free(e);
}

/* A cancel before the call: it fails at once, and after the reset runs. */
static void test_cancel_flag(void) {
  DpgAccountOptions o;
  dpg_account_options_init(&o);
  const char *att[] = {"0", NULL};
  o.graph.generate = "florentine";
  o.rounds = 4;
  o.trust = "pndp";
  o.attackers = att;
  DpgError err = {0};
  dpg_cancel();
  for (int i = 0; i < 2; i++) {
    o.path = i == 0 ? "structured" : "observer";
    g_assert_null(dpg_account(&o, &err));
    g_assert_cmpint(err.status, ==, 1);
    g_assert_nonnull(strstr(err.message, "cancelled"));
    dpg_free(err.message);
    err = (DpgError){0};
  }
  dpg_cancel_reset();
  DpgTable *t = dpg_account(&o, &err);
  g_assert_nonnull(t);
  dpg_table_free(t);
}

/* dpg_train: the three tables, LDP's closed form mu = sqrt(k) / sigma for
 * every node, the means the nodes' means (summed in node order), and an
 * asynchronous run's observer accounting equal to the structured one of
 * the synchronous run (no message late: the same knowledge). */
static void test_train(void) {
  DpgTrainOptions o;
  dpg_train_options_init(&o);
  o.graph.generate = "ring:n=6";
  o.dataset = "synthetic:linear,n=300,d=3,seed=4";
  o.epochs = 2;
  o.batches = 3;
  o.eval_every = 3;
  o.sigma = 0.5;
  DpgError err = {0};
  DpgTable *means = NULL, *priv = NULL;
  DpgTable *m = dpg_train(&o, &means, &priv, &err);
  g_assert_nonnull(m);
  g_assert_cmpint(err.status, ==, 0);
  g_assert_cmpuint(dpg_table_n_rows(m), ==, 2 * 6);
  g_assert_cmpuint(dpg_table_n_rows(means), ==, 2);
  const int64_t *round = dpg_table_col_int(m, (unsigned)col(m, "round"));
  const int64_t *node = dpg_table_col_int(m, (unsigned)col(m, "node"));
  const double *test = dpg_table_col_double(m, (unsigned)col(m, "test_loss"));
  const double *mean = dpg_table_col_double(means, (unsigned)col(means, "test_loss"));
  for (unsigned r = 0; r < 2; r++) {
    double sum = 0;
    for (unsigned u = 0; u < 6; u++) {
      g_assert_cmpint(round[6 * r + u], ==, 3 * (r + 1));
      g_assert_cmpint(node[6 * r + u], ==, u);
      sum += test[6 * r + u];
    }
    g_assert_cmpfloat(mean[r], ==, sum / 6);
  }
  g_assert_true(isnan(dpg_table_col_double(m, (unsigned)col(m, "test_accuracy"))[0]));
  g_assert_cmpuint(dpg_table_n_rows(priv), ==, 6);
  const double *mu = dpg_table_col_double(priv, (unsigned)col(priv, "mu"));
  for (unsigned u = 0; u < 6; u++) {
    g_assert_cmpint(dpg_table_col_int(priv, (unsigned)col(priv, "victim"))[u], ==, u);
    g_assert_cmpint(dpg_table_col_int(priv, (unsigned)col(priv, "distance"))[u], ==, INT64_MIN);
    g_assert_null(dpg_table_col_string(priv, (unsigned)col(priv, "collusion"), u));
    dpg_test_assert_close(mu[u], sqrt(2.0) / 0.5, dpg_tol(1, 2),
                          "the LDP value sqrt(T) / sigma: a sqrt and a division");
  }
  g_assert_cmpstr(attr(m, "path"), ==, "structured");
  dpg_table_free(m);
  dpg_table_free(means);
  dpg_table_free(priv);

  const char *att[] = {"0", NULL};
  o.trust = "pndp";
  o.attackers = att;
  DpgTable *sp = NULL, *ap = NULL;
  m = dpg_train(&o, &means, &sp, &err);
  dpg_table_free(m);
  dpg_table_free(means);
  o.mode = "deadline:ms=5";
  o.latency = "constant:ms=1";
  m = dpg_train(&o, &means, &ap, &err);
  g_assert_nonnull(m);
  g_assert_cmpstr(attr(m, "path"), ==, "observer");
  g_assert_cmpuint(dpg_table_n_rows(sp), ==, 5);
  g_assert_cmpuint(dpg_table_n_rows(ap), ==, 5);
  const double *a = dpg_table_col_double(sp, (unsigned)col(sp, "mu"));
  const double *b = dpg_table_col_double(ap, (unsigned)col(ap, "mu"));
  for (unsigned i = 0; i < 5; i++) {
    g_assert_cmpfloat(a[i], >, 0);
    g_assert_cmpfloat(a[i], <, sqrt(2.0) / 0.5);
    g_assert_cmpfloat_with_epsilon(a[i], b[i], 1e-9 * a[i]);
  }
  dpg_table_free(m);
  dpg_table_free(means);
  dpg_table_free(sp);
  dpg_table_free(ap);
}

/* dpg_train's sampled evaluation: eval_nodes = K evaluates K distinct
 * nodes per round, each with the losses the full evaluation gives it (the
 * sample draws from a stream of its own, so the training is the same run);
 * eval_rows = DPG_EVAL_ALL is every row; a count below -1 is the command
 * line's message for --eval-nodes -2. */
static void test_train_eval_sample(void) {
  DpgTrainOptions o;
  dpg_train_options_init(&o);
  o.graph.generate = "ring:n=8";
  o.dataset = "synthetic:linear,n=300,d=3,seed=4";
  o.epochs = 2;
  o.batches = 2;
  o.trust = "none";
  DpgError err = {0};
  DpgTable *means = NULL, *priv = NULL;
  DpgTable *full = dpg_train(&o, &means, &priv, &err);
  g_assert_nonnull(full);
  dpg_table_free(means);
  dpg_table_free(priv);
  o.eval_nodes = 3;
  o.eval_rows = DPG_EVAL_ALL;
  DpgTable *some = dpg_train(&o, &means, &priv, &err);
  g_assert_nonnull(some);
  g_assert_cmpuint(dpg_table_n_rows(full), ==, 8);
  g_assert_cmpuint(dpg_table_n_rows(some), ==, 3);
  const int64_t *node = dpg_table_col_int(some, (unsigned)col(some, "node"));
  const char *losses[] = {"train_loss", "test_loss"};
  for (unsigned i = 0; i < 3; i++) {
    g_assert_cmpint(node[i], >=, 0);
    g_assert_cmpint(node[i], <, 8);
    if (i > 0)
      g_assert_cmpint(node[i], >, node[i - 1]);
    for (unsigned c = 0; c < G_N_ELEMENTS(losses); c++)
      g_assert_cmpfloat(dpg_table_col_double(some, (unsigned)col(some, losses[c]))[i], ==,
                        dpg_table_col_double(full, (unsigned)col(full, losses[c]))[node[i]]);
  }
  dpg_table_free(full);
  dpg_table_free(some);
  dpg_table_free(means);
  dpg_table_free(priv);
  o.eval_nodes = -2;
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_cmpint(err.status, ==, 2);
  g_assert_cmpstr(err.message, ==,
                  "--eval-nodes: '-2' is neither a positive integer below 2^32 - 1 nor all");
  dpg_free(err.message);
  err = (DpgError){0};
  o.eval_nodes = 0;
  o.eval_rows = -7;
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_cmpint(err.status, ==, 2);
  g_assert_cmpstr(err.message, ==,
                  "--eval-rows: '-7' is neither a positive integer below 2^32 - 1 nor all");
  dpg_free(err.message);
}

/* dpg_train's failures: the command's message and status, NULL tables,
 * nothing leaked (before the graph, after it, after the run). */
static void test_train_errors(void) {
  DpgTrainOptions o;
  dpg_train_options_init(&o);
  o.graph.generate = "ring:n=4";
  DpgError err = {0};
  DpgTable *means = (DpgTable *)1, *priv = (DpgTable *)1;
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_null(means);
  g_assert_null(priv);
  g_assert_cmpint(err.status, ==, 2);
  g_assert_cmpstr(err.message, ==, "--dataset is required");
  dpg_free(err.message);
  err = (DpgError){0};
  const char *bad[] = {"9", NULL};
  o.dataset = "synthetic:linear,n=100";
  o.trust = "pndp";
  o.attackers = bad;
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_cmpint(err.status, ==, 2);
  g_assert_true(g_str_has_prefix(err.message, "--attackers: "));
  dpg_free(err.message);
  err = (DpgError){0};
  o.trust = "pndp";
  o.attackers = NULL;
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_cmpint(err.status, ==, 2);
  g_assert_true(g_str_has_prefix(err.message, "--trust pndp: say who observes"));
  dpg_free(err.message);
  err = (DpgError){0};
  o.trust = NULL;
  o.dataset = "csv:/nonexistent.csv";
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_cmpint(err.status, ==, 1);
  g_assert_nonnull(strstr(err.message, "/nonexistent.csv"));
  dpg_free(err.message);
  err = (DpgError){0};
  /* A schedule's file that cannot be read is a failed run (1), as for the
   * command line; a schedule spec that does not parse is a usage error. */
  o.dataset = "synthetic:linear,n=100";
  o.schedule = "churn:trace=/nonexistent-trace.txt";
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_cmpint(err.status, ==, 1);
  g_assert_nonnull(strstr(err.message, "/nonexistent-trace.txt"));
  dpg_free(err.message);
  err = (DpgError){0};
  o.schedule = "wobbly";
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_cmpint(err.status, ==, 2);
  dpg_free(err.message);
  err = (DpgError){0};
  o.schedule = NULL;
  dpg_cancel();
  g_assert_null(dpg_train(&o, &means, &priv, &err));
  g_assert_cmpint(err.status, ==, 1);
  g_assert_nonnull(strstr(err.message, "cancelled"));
  dpg_free(err.message);
  dpg_cancel_reset();
}

/* The declarations a binding reads at run time are the header's, byte for
 * byte, and they declare every function of the header (this one included). */
static void test_api_header(void) {
  const char *src = g_getenv("DPG_SOURCE_DIR");
  g_assert_nonnull(src);
  char *path = g_build_filename(src, "api", "dpgossip.h", NULL), *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_assert_cmpstr(dpg_api_header(), ==, text);
  g_assert_nonnull(strstr(dpg_api_header(), "const char *dpg_api_header(void);"));
  g_assert_nonnull(strstr(dpg_api_header(), "DpgTable *dpg_account(const DpgAccountOptions *o"));
  g_free(text);
  g_free(path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/api/header", test_api_header);
  g_test_add_func("/api/account/reference", test_account_reference);
  g_test_add_func("/api/account/observer-equals-structured",
                  test_account_observer_equals_structured);
  g_test_add_func("/api/errors", test_errors);
  g_test_add_func("/api/mafalda/reference", test_mafalda_reference);
  g_test_add_func("/api/graph/edges", test_graph_edges);
  g_test_add_func("/api/cancel", test_cancel_flag);
  g_test_add_func("/api/train", test_train);
  g_test_add_func("/api/train/errors", test_train_errors);
  g_test_add_func("/api/train/eval_sample", test_train_eval_sample);
  return g_test_run();
}
