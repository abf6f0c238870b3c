/*
 * protocols/runtime_eval.c: evaluation of every node's model at chosen steps,
 * the round events, and the metrics handed out while the run goes on.
 *
 * A node's model is snapshot right before its local step t (it is then
 * theta_t, the model after t full steps) and when it is done (theta_T).
 * With several threads the snapshots are evaluated by a pool while the
 * simulation goes on; each result lands in its own (step, node) slot, so the
 * output does not depend on the number of threads or on their timing.
 *
 * Round R completes when the last node reaches step R, so a round event and
 * the last snapshot of that step coincide. Metrics are handed out at round
 * boundaries chosen by the simulation alone (step s after round s + lag);
 * if the pool has not finished that step yet the sim thread waits for it,
 * which is what keeps the stream identical whatever the thread count.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "protocols/internal.h"

/* Node @u's index among the evaluated nodes, or G_MAXUINT. */
static guint slot_of(const ProtoContext *ctx, guint u) {
  return ctx->eval_slot != NULL ? ctx->eval_slot[u] : u;
}

static void evaluate(ProtoContext *ctx, guint e, guint u, const double *params) {
  ProtoMetric *m = &ctx->metrics[(gsize)e * ctx->n_eval + slot_of(ctx, u)];
  gsize count = 0;
  const gsize *records = learn_partition_node(ctx->partition, u, &count);
  if (ctx->external != NULL) {
    if (ctx->external->evaluate != NULL)
      ctx->external->evaluate(u, ctx->eval_steps[e], params, ctx->dim, records, count,
                              ctx->test_rows, ctx->n_test_rows, &m->train_loss, &m->test_loss,
                              &m->test_accuracy, ctx->external->user_data);
    return;
  }
  learn_model_evaluate(ctx->model, params, ctx->train, records, count, &m->train_loss, NULL);
  if (ctx->test != NULL && ctx->test->n > 0)
    learn_model_evaluate(ctx->model, params, ctx->test, ctx->test_rows, ctx->n_test_rows,
                         &m->test_loss, &m->test_accuracy);
}

/* @k of 0..@n-1 drawn uniformly without replacement from @r, increasing
 * (gsl_ran_choose keeps the order). O(n). */
static gsize *choose(gsl_rng *r, gsize k, gsize n) {
  gsize *all = g_new(gsize, n), *some = g_new(gsize, k);
  for (gsize i = 0; i < n; i++)
    all[i] = i;
  gsl_ran_choose(r, some, k, all, n, sizeof(gsize));
  g_free(all);
  return some;
}

/* Resolves ProtoRunConfig.eval_nodes and eval_rows against the defaults
 * and draws the samples: first the nodes, then the test rows, from one
 * stream of the run's seed, so that the draw depends on the seed and the
 * sizes only. Errors: SIM_ERROR (the generator). O(n + test rows). */
static gboolean draw_samples(ProtoContext *ctx, GError **error) {
  gboolean big = ctx->n > PROTO_EVAL_FULL_NODES;
  gsize n_test = ctx->test != NULL ? ctx->test->n : 0;
  guint nodes = ctx->eval_nodes_asked ? ctx->eval_nodes_asked
                : big                 ? PROTO_EVAL_SAMPLE_NODES
                                      : PROTO_EVAL_ALL;
  gsize rows = ctx->eval_rows_asked ? ctx->eval_rows_asked
               : big                ? PROTO_EVAL_SAMPLE_ROWS
                                    : (gsize)PROTO_EVAL_ALL;
  ctx->n_eval = MIN(nodes, ctx->n);
  ctx->n_test_rows = MIN(rows, n_test);
  if (ctx->n_eval == ctx->n && ctx->n_test_rows == n_test) {
    ctx->n_test_rows = 0; /* every row: learn_model_evaluate's NULL */
    return TRUE;
  }
  gsl_rng *r = sim_rng_stream_new(ctx->eval_seed, SIM_NODE_NONE, 0, NULL, error);
  if (r == NULL)
    return FALSE;
  if (ctx->n_eval < ctx->n) {
    gsize *picked = choose(r, ctx->n_eval, ctx->n);
    ctx->eval_slot = g_new(guint, ctx->n);
    for (guint u = 0; u < ctx->n; u++)
      ctx->eval_slot[u] = G_MAXUINT;
    for (guint i = 0; i < ctx->n_eval; i++)
      ctx->eval_slot[picked[i]] = i;
    g_free(picked);
  }
  if (ctx->n_test_rows < n_test)
    ctx->test_rows = choose(r, ctx->n_test_rows, n_test);
  else
    ctx->n_test_rows = 0;
  gsl_rng_free(r);
  return TRUE;
}

static void worker(gpointer data, gpointer user_data) {
  (void)user_data;
  ProtoEvalJob *job = data;
  ProtoContext *ctx = job->ctx;
  evaluate(ctx, job->eval_index, job->node, job->params);
  g_mutex_lock(&ctx->eval_lock);
  if (++ctx->eval_done[job->eval_index] == ctx->n_eval)
    g_cond_broadcast(&ctx->eval_cond);
  g_mutex_unlock(&ctx->eval_lock);
  g_free(job->params);
  g_free(job);
}

gboolean proto_eval_setup(ProtoContext *ctx, GError **error) {
  if (ctx->model == NULL && ctx->external == NULL)
    return TRUE;
  guint every = ctx->eval_every;
  guint n_mid = every > 0 ? (ctx->T - 1) / every : 0; /* steps every, 2 every, ... < T */
  ctx->n_evals = n_mid + 1;
  ctx->eval_steps = g_new(guint, ctx->n_evals);
  for (guint e = 0; e < n_mid; e++)
    ctx->eval_steps[e] = (e + 1) * every;
  ctx->eval_steps[n_mid] = ctx->T;
  if (!draw_samples(ctx, error))
    return FALSE;
  gsize rows = (gsize)ctx->n_evals * ctx->n_eval;
  ctx->metrics = g_new(ProtoMetric, rows);
  for (guint u = 0; u < ctx->n; u++) {
    guint i = slot_of(ctx, u);
    for (guint e = 0; i != G_MAXUINT && e < ctx->n_evals; e++)
      ctx->metrics[(gsize)e * ctx->n_eval + i] = (ProtoMetric){.step = ctx->eval_steps[e],
                                                               .node = u,
                                                               .train_loss = NAN,
                                                               .test_loss = NAN,
                                                               .test_accuracy = NAN};
  }
  /* The caller's evaluation runs on the simulation thread (a Python
   * callback would only contend for its interpreter lock). */
  if (ctx->threads > 1 && ctx->external == NULL) {
    ctx->eval_done = g_new0(guint, ctx->n_evals);
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
  if (ctx->model == NULL && ctx->external == NULL)
    return;
  guint e = eval_index(ctx, step);
  if (e == G_MAXUINT || slot_of(ctx, node->id) == G_MAXUINT)
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

/* ---------------------------------------------------- rounds and metrics */

void proto_run_set_metrics_func(ProtoRun *run, guint lag, ProtoMetricsFunc func,
                                gpointer user_data) {
  g_return_if_fail(run != NULL);
  ProtoContext *ctx = proto_run_context(run);
  ctx->metrics_func = func;
  ctx->metrics_data = user_data;
  ctx->metrics_lag = lag;
}

static void publish_round(ProtoContext *ctx, guint round) {
  SimBus *bus = sim_engine_bus(ctx->engine);
  if (!sim_bus_has_subscribers(bus))
    return;
  SimBusEvent ev = {.kind = SIM_BUS_ROUND,
                    .time = sim_engine_now(ctx->engine),
                    .seq = round,
                    .from = SIM_NODE_NONE,
                    .to = SIM_NODE_NONE,
                    .round = round,
                    .arrival = SIM_TIME_NEVER};
  sim_bus_publish(bus, &ev);
}

void proto_rounds_start(ProtoContext *ctx) {
  if (ctx->started)
    return;
  ctx->started = TRUE;
  publish_round(ctx, 0);
}

/* Blocks until the pool has evaluated every node at evaluation @e. The
 * caller knows all n snapshots of @e were taken, so this ends. */
static void wait_evaluated(ProtoContext *ctx, guint e) {
  if (ctx->pool == NULL)
    return;
  g_mutex_lock(&ctx->eval_lock);
  while (ctx->eval_done[e] < ctx->n_eval)
    g_cond_wait(&ctx->eval_cond, &ctx->eval_lock);
  g_mutex_unlock(&ctx->eval_lock);
}

/* Hands evaluation @e to metrics_func. FALSE (and @error) when it failed. */
static gboolean hand(ProtoContext *ctx, guint e, GError **error) {
  ctx->n_handed = e + 1;
  return ctx->metrics_func(ctx->run, sim_engine_now(ctx->engine), ctx->eval_steps[e],
                           ctx->metrics + (gsize)e * ctx->n_eval, ctx->n_eval, ctx->metrics_data,
                           error);
}

/* At the boundary of round rounds_done: the steps s with s + lag <= it. */
static void hand_due(ProtoContext *ctx) {
  while (ctx->metrics_func != NULL && ctx->n_handed < ctx->n_evals && ctx->error == NULL) {
    guint e = ctx->n_handed;
    if ((guint64)ctx->eval_steps[e] + ctx->metrics_lag > ctx->rounds_done)
      return;
    wait_evaluated(ctx, e);
    GError *error = NULL;
    if (!hand(ctx, e, &error))
      proto_context_fail(ctx, error != NULL ? error
                                            : g_error_new(PROTO_ERROR, PROTO_ERROR_FAILED,
                                                          "the metrics callback failed at step %u",
                                                          ctx->eval_steps[e]));
  }
}

void proto_step_reached(ProtoContext *ctx, guint step) {
  if (step == 0) /* round 0 is the start */
    return;
  if (ctx->reached->len <= step)
    g_array_set_size(ctx->reached, step + 1);
  if (++g_array_index(ctx->reached, guint, step) < ctx->n)
    return;
  /* The last node to reach a step reached every earlier one before: rounds
   * complete one by one, in order. */
  ctx->rounds_done = step;
  publish_round(ctx, step);
  hand_due(ctx);
}

gboolean proto_metrics_flush(ProtoContext *ctx, GError **error) {
  proto_eval_finish(ctx);
  while (ctx->metrics_func != NULL && ctx->n_handed < ctx->n_evals) {
    guint e = ctx->n_handed;
    if (!hand(ctx, e, error)) {
      if (error != NULL && *error == NULL)
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                    "the metrics callback failed at step %u", ctx->eval_steps[e]);
      return FALSE;
    }
  }
  return TRUE;
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
    *n = (gsize)ctx->n_evals * ctx->n_eval;
  return ctx->metrics;
}

void proto_run_eval_sample(const ProtoRun *run, ProtoEvalSample *out) {
  g_return_if_fail(run != NULL && out != NULL);
  const ProtoContext *ctx = proto_run_context((ProtoRun *)run);
  *out = (ProtoEvalSample){0};
  if (ctx->model == NULL && ctx->external == NULL)
    return;
  gsize n_test = ctx->test != NULL ? ctx->test->n : 0;
  *out = (ProtoEvalSample){.nodes = ctx->n_eval,
                           .n_nodes = ctx->n,
                           .rows = ctx->test_rows != NULL ? ctx->n_test_rows : n_test,
                           .n_rows = n_test,
                           .sampled = ctx->eval_slot != NULL || ctx->test_rows != NULL,
                           .seed = ctx->seed};
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
  for (guint i = 0; i < ctx->n_eval; i++)
    s += ctx->metrics[(gsize)e * ctx->n_eval + i].test_loss;
  return s / ctx->n_eval;
}
