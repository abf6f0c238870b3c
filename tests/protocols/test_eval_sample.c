/*
 * tests/protocols/test_eval_sample.c: sampled evaluation.
 *   - a sample of nodes gives, for each drawn node, the very row the full
 *     evaluation gives, drawn increasing and distinct, the same for 1 and 3
 *     evaluation threads, the same again for the same seed;
 *   - a sample of test rows gives a node's mean loss over that many rows:
 *     with all rows but one, the full mean with exactly one row's loss taken
 *     out (found among the node's per-row losses, computed here);
 *   - the defaults: every node on every row up to PROTO_EVAL_FULL_NODES
 *     nodes, PROTO_EVAL_SAMPLE_NODES nodes beyond; PROTO_EVAL_ALL is every
 *     node on every row.
 */
#include "proto_test.h"
#include "tests/common/tolerance.h"

static ProtoRun *train_on(const char *graph, const char *dataset, guint nodes, guint rows,
                          guint threads, guint64 seed) {
  ProtoRunConfig cfg;
  train_config(&cfg, threads, seed, SIM_LIN_NONE);
  cfg.epochs = 2;
  cfg.batches = 2;
  cfg.dataset = dataset;
  cfg.model = "linear";
  cfg.eval_every = 2;
  cfg.eval_nodes = nodes;
  cfg.eval_rows = rows;
  ProtoRun *run = run_on_graph(&cfg, graph);
  GError *err = NULL;
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  return run;
}

static ProtoRun *train(guint nodes, guint rows, guint threads, guint64 seed) {
  return train_on(TRAIN_GRAPH, TRAIN_DATA, nodes, rows, threads, seed);
}

static void test_nodes(void) {
  ProtoRun *full = train(0, 0, 1, 5), *some = train(5, 0, 1, 5), *some3 = train(5, 0, 3, 5),
           *again = train(5, 0, 1, 5);
  gsize nf = 0, ns = 0, n3 = 0, na = 0;
  const ProtoMetric *f = proto_run_metrics(full, &nf), *s = proto_run_metrics(some, &ns),
                    *s3 = proto_run_metrics(some3, &n3), *a = proto_run_metrics(again, &na);
  g_assert_cmpuint(nf, ==, 12 * 2); /* steps 2 and T = 4 */
  g_assert_cmpuint(ns, ==, 5 * 2);
  g_assert_cmpmem(s, ns * sizeof *s, s3, n3 * sizeof *s3);
  g_assert_cmpmem(s, ns * sizeof *s, a, na * sizeof *a);
  for (gsize i = 0; i < ns; i++) {
    if (i % 5 > 0)
      g_assert_cmpuint(s[i].node, >, s[i - 1].node);
    g_assert_cmpuint(s[i].node, <, 12);
    /* The full evaluation's row of the same (step, node). */
    const ProtoMetric *r = &f[(i / 5) * 12 + s[i].node];
    g_assert_cmpmem(&s[i], sizeof s[i], r, sizeof *r);
  }
  ProtoEvalSample es;
  proto_run_eval_sample(some, &es);
  g_assert_true(es.sampled);
  g_assert_cmpuint(es.nodes, ==, 5);
  g_assert_cmpuint(es.n_nodes, ==, 12);
  g_assert_cmpuint(es.rows, ==, es.n_rows);
  g_assert_cmpuint(es.seed, ==, 5);
  /* The mean over the drawn nodes. */
  double m = 0;
  for (gsize i = 5; i < 10; i++)
    m += s[i].test_loss;
  g_assert_cmpfloat(proto_run_mean_test_loss(some, 4), ==, m / 5);
  proto_run_eval_sample(full, &es);
  g_assert_false(es.sampled);
  g_assert_cmpuint(es.nodes, ==, 12);
  proto_run_free(full);
  proto_run_free(some);
  proto_run_free(some3);
  proto_run_free(again);
}

static void test_rows(void) {
  ProtoRun *full = train(0, 0, 1, 5);
  const LearnDataset *test = proto_run_test_set(full);
  gsize n = test->n;
  ProtoRun *some = train(0, (guint)n - 1, 1, 5);
  gsize nf = 0, ns = 0;
  const ProtoMetric *f = proto_run_metrics(full, &nf), *s = proto_run_metrics(some, &ns);
  g_assert_cmpuint(ns, ==, nf);
  const LearnModel *model = proto_run_learn_model(full);
  for (guint u = 0; u < 12; u++) {
    const ProtoMetric *fr = &f[12 + u], *sr = &s[12 + u]; /* step T */
    g_assert_cmpfloat(sr->train_loss, ==, fr->train_loss);
    g_assert_cmpfloat(sr->test_loss, !=, fr->test_loss);
    const double *params = sim_linvec_const_data(proto_run_node_model(full, u));
    guint matches = 0;
    for (gsize r = 0; r < n; r++) {
      double lr = 0;
      learn_model_evaluate(model, params, test, &r, 1, &lr, NULL);
      double without = (fr->test_loss * (double)n - lr) / (double)(n - 1);
      /* The losses are nonnegative: the full mean sums n terms (n eps
       * relative), n x mean - lr cancels at most to that absolute error
       * scaled by n / (n - 1), and the sampled mean sums n - 1 terms: within
       * (2n + 4) eps of the full mean, scaled. */
      double tol = dpg_tol(1.0, 2.0 * n + 4.0) * fr->test_loss * (double)n / (double)(n - 1);
      matches += fabs(without - sr->test_loss) <= tol;
    }
    g_assert_cmpuint(matches, >=, 1);
  }
  ProtoEvalSample es;
  proto_run_eval_sample(some, &es);
  g_assert_true(es.sampled);
  g_assert_cmpuint(es.rows, ==, n - 1);
  g_assert_cmpuint(es.n_rows, ==, n);
  proto_run_free(full);
  proto_run_free(some);
}

static void test_defaults(void) {
  const char *ring = "ring:n=10001";
  const char *data = "synthetic:linear,n=25100,d=2,noise=0.1,seed=3";
  ProtoRun *big = train_on(ring, data, 0, 0, 1, 1);
  ProtoEvalSample es;
  proto_run_eval_sample(big, &es);
  g_assert_true(es.sampled);
  g_assert_cmpuint(es.nodes, ==, PROTO_EVAL_SAMPLE_NODES);
  g_assert_cmpuint(es.n_nodes, ==, 10001);
  g_assert_cmpuint(es.rows, ==, MIN(es.n_rows, PROTO_EVAL_SAMPLE_ROWS));
  gsize n = 0;
  proto_run_metrics(big, &n);
  g_assert_cmpuint(n, ==, 2 * PROTO_EVAL_SAMPLE_NODES);
  proto_run_free(big);
  ProtoRun *small = train(0, 0, 1, 1), *all = train(PROTO_EVAL_ALL, PROTO_EVAL_ALL, 1, 1);
  proto_run_eval_sample(small, &es);
  g_assert_false(es.sampled);
  gsize ns = 0, na = 0;
  const ProtoMetric *s = proto_run_metrics(small, &ns), *a = proto_run_metrics(all, &na);
  g_assert_cmpmem(s, ns * sizeof *s, a, na * sizeof *a);
  proto_run_free(small);
  proto_run_free(all);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/eval_sample/nodes", test_nodes);
  g_test_add_func("/eval_sample/rows", test_rows);
  g_test_add_func("/eval_sample/defaults", test_defaults);
  return g_test_run();
}
