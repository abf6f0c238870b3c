/*
 * protocols/runtime_eval.c: evaluation of every node's model at chosen steps.
 *
 * A node's model is snapshot right before its local step t (it is then
 * theta_t, the model after t full steps) and when it is done (theta_T).
 * With several threads the snapshots are evaluated by a pool while the
 * simulation goes on; each result lands in its own (step, node) slot, so the
 * output does not depend on the number of threads or on their timing.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include "protocols/internal.h"

static void evaluate(ProtoContext *ctx, guint e, guint u, const double *params) {
  ProtoMetric *m = &ctx->metrics[(gsize)e * ctx->n + u];
  gsize count = 0;
  const gsize *records = learn_partition_node(ctx->partition, u, &count);
  learn_model_evaluate(ctx->model, params, ctx->train, records, count, &m->train_loss, NULL);
  if (ctx->test != NULL && ctx->test->n > 0)
    learn_model_evaluate(ctx->model, params, ctx->test, NULL, 0, &m->test_loss,
                         &m->test_accuracy);
}

static void worker(gpointer data, gpointer user_data) {
  (void)user_data;
  ProtoEvalJob *job = data;
  evaluate(job->ctx, job->eval_index, job->node, job->params);
  g_free(job->params);
  g_free(job);
}

gboolean proto_eval_setup(ProtoContext *ctx, GError **error) {
  if (ctx->model == NULL)
    return TRUE;
  guint every = ctx->eval_every;
  guint n_mid = every > 0 ? (ctx->T - 1) / every : 0; /* steps every, 2 every, ... < T */
  ctx->n_evals = n_mid + 1;
  ctx->eval_steps = g_new(guint, ctx->n_evals);
  for (guint e = 0; e < n_mid; e++)
    ctx->eval_steps[e] = (e + 1) * every;
  ctx->eval_steps[n_mid] = ctx->T;
  gsize rows = (gsize)ctx->n_evals * ctx->n;
  ctx->metrics = g_new(ProtoMetric, rows);
  for (gsize i = 0; i < rows; i++)
    ctx->metrics[i] = (ProtoMetric){.step = ctx->eval_steps[i / ctx->n],
                                    .node = (guint)(i % ctx->n),
                                    .train_loss = NAN,
                                    .test_loss = NAN,
                                    .test_accuracy = NAN};
  if (ctx->threads > 1) {
    ctx->pool = g_thread_pool_new(worker, NULL, (gint)ctx->threads, TRUE, error);
    if (ctx->pool == NULL)
      return FALSE;
  }
  return TRUE;
}

/* Index of @step among the evaluation steps, or G_MAXUINT. */
static guint eval_index(const ProtoContext *ctx, guint step) {
  if (step == ctx->T)
    return ctx->n_evals - 1;
  if (ctx->eval_every == 0 || step == 0 || step % ctx->eval_every != 0 || step > ctx->T)
    return G_MAXUINT;
  return step / ctx->eval_every - 1;
}

void proto_eval_maybe(ProtoContext *ctx, ProtoNode *node, guint step) {
  if (ctx->model == NULL)
    return;
  guint e = eval_index(ctx, step);
  if (e == G_MAXUINT)
    return;
  const double *params = sim_linvec_const_data(node->model);
  if (ctx->pool == NULL) {
    evaluate(ctx, e, node->id, params);
    return;
  }
  ProtoEvalJob *job = g_new(ProtoEvalJob, 1);
  *job = (ProtoEvalJob){ctx, e, node->id, g_memdup2(params, ctx->dim * sizeof(double))};
  g_thread_pool_push(ctx->pool, job, NULL);
}

void proto_eval_finish(ProtoContext *ctx) {
  if (ctx->pool != NULL) {
    g_thread_pool_free(ctx->pool, FALSE, TRUE);
    ctx->pool = NULL;
  }
}

const ProtoMetric *proto_run_metrics(const ProtoRun *run, gsize *n) {
  g_return_val_if_fail(run != NULL, NULL);
  const ProtoContext *ctx = proto_run_context((ProtoRun *)run);
  if (ctx->metrics == NULL || !ctx->ran) {
    if (n != NULL)
      *n = 0;
    return NULL;
  }
  if (n != NULL)
    *n = (gsize)ctx->n_evals * ctx->n;
  return ctx->metrics;
}

double proto_run_mean_test_loss(const ProtoRun *run, guint step) {
  g_return_val_if_fail(run != NULL, NAN);
  const ProtoContext *ctx = proto_run_context((ProtoRun *)run);
  if (ctx->metrics == NULL || !ctx->ran)
    return NAN;
  guint e = eval_index(ctx, step);
  if (e == G_MAXUINT)
    return NAN;
  double s = 0.0;
  for (guint u = 0; u < ctx->n; u++)
    s += ctx->metrics[(gsize)e * ctx->n + u].test_loss;
  return s / ctx->n;
}
