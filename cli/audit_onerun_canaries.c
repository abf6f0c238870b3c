/*
 * cli/audit_onerun_canaries.c: the canaries of the one-run audit, the
 * gradient hook that inserts them into a real training run, and the LDP
 * attacker that scores them from what their nodes send
 * (cli/audit_onerun.h).
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "cli/audit_onerun.h"
#include "learning/learning.h"
#include "protocols/plugin.h"
#include "sim/bus.h"
#include "sim/linvec.h"
#include "sim/message.h"
#include "sim/rng.h"

/* The canaries' stream: apart from every stream the run draws. */
#define CANARY_PURPOSE (SIM_RNG_USER + 47)

CliOnerunCanaries *cli_onerun_canaries_new(guint m, gsize d, guint n, guint b, guint64 seed) {
  g_return_val_if_fail(m > 0 && d > 0 && n > 0 && b > 0, NULL);
  gsl_rng *r = sim_rng_stream_new(seed, SIM_NODE_NONE, CANARY_PURPOSE, NULL, NULL);
  g_return_val_if_fail(r != NULL, NULL);
  CliOnerunCanaries *c = g_new0(CliOnerunCanaries, 1);
  c->m = m;
  c->d = d;
  c->node = g_new(guint, m);
  c->slot = g_new(guint, m);
  c->in = g_new(gboolean, m);
  c->dir = g_new(double, (gsize)m * d);
  c->score = g_new0(double, m);
  for (guint i = 0; i < m; i++) {
    c->node[i] = (guint)gsl_rng_uniform_int(r, n);
    c->slot[i] = (guint)gsl_rng_uniform_int(r, b);
    c->in[i] = gsl_rng_uniform_int(r, 2) == 1;
    /* A uniform direction: normalized Gaussian draws. */
    double *v = c->dir + (gsize)i * d, norm = 0;
    do {
      sim_rng_normals(r, v, d);
      norm = 0;
      for (gsize j = 0; j < d; j++)
        norm += v[j] * v[j];
    } while (norm == 0);
    norm = sqrt(norm);
    for (gsize j = 0; j < d; j++)
      v[j] /= norm;
  }
  gsl_rng_free(r);
  return c;
}

void cli_onerun_canaries_free(CliOnerunCanaries *c) {
  if (c == NULL)
    return;
  g_free(c->node);
  g_free(c->slot);
  g_free(c->in);
  g_free(c->dir);
  g_free(c->score);
  g_free(c);
}

struct CliOnerunHook {
  ProtoRun *run;
  CliOnerunCanaries *c;
  guint n, b;
  gsize d;
  double clip, step;
  guint *first;   /* n + 1: node u's canaries are order[first[u] .. first[u+1]) */
  guint *order;   /* m canary indices grouped by node */
  double **pre;   /* n: the model a canary node averaged before its step (or NULL) */
  gint64 *when;   /* n: the step whose sent model is awaited, or -1 */
  double *scratch;
};

static double dot(const double *a, const double *b, gsize d) {
  double s = 0;
  for (gsize j = 0; j < d; j++)
    s += a[j] * b[j];
  return s;
}

/* The runtime's gradient slot (the sum of the batch's clipped gradients),
 * plus the node's included canaries of this slot. */
static void canary_gradient(guint node, guint t, double *g, gsize d, gpointer data) {
  CliOnerunHook *h = data;
  const double *params = sim_linvec_const_data(proto_run_node_model(h->run, node));
  gsize count = 0;
  const gsize *batch = learn_partition_batch(proto_run_partition(h->run), node, t, &count);
  learn_model_clipped_grad(proto_run_learn_model(h->run), params, proto_run_train_set(h->run),
                           batch, count, h->clip, g, h->scratch);
  for (gsize j = 0; j < d; j++)
    g[j] *= (double)count;
  if (h->pre[node] == NULL)
    return;
  for (guint i = h->first[node]; i < h->first[node + 1]; i++) {
    guint c = h->order[i];
    if (h->c->in[c] && h->c->slot[c] == t % h->b)
      for (gsize j = 0; j < d; j++)
        g[j] += h->clip * h->c->dir[(gsize)c * d + j];
  }
  memcpy(h->pre[node], params, d * sizeof(double));
  h->when[node] = t;
}

/* The first message a canary node sends after its step t: its update. */
static void on_sent(const SimBusEvent *ev, gpointer data) {
  CliOnerunHook *h = data;
  if (ev->message == NULL || ev->from >= h->n || h->when[ev->from] < 0)
    return;
  const SimLinvec *sent = sim_message_provenance(ev->message);
  if (sent == NULL || sim_linvec_dim(sent) != h->d)
    return;
  guint u = ev->from, t = (guint)h->when[u];
  h->when[u] = -1;
  const double *after = sim_linvec_const_data(sent);
  double *upd = h->pre[u];
  for (gsize j = 0; j < h->d; j++)
    upd[j] = (upd[j] - after[j]) / h->step;
  for (guint i = h->first[u]; i < h->first[u + 1]; i++) {
    guint c = h->order[i];
    if (h->c->slot[c] == t % h->b)
      h->c->score[c] += dot(upd, h->c->dir + (gsize)c * h->d, h->d);
  }
}

CliOnerunHook *cli_onerun_attach(ProtoRun *run, CliOnerunCanaries *c, GError **error) {
  g_return_val_if_fail(run != NULL && c != NULL, NULL);
  ProtoContext *ctx = proto_run_context(run);
  CliOnerunHook *h = g_new0(CliOnerunHook, 1);
  h->run = run;
  h->c = c;
  h->n = proto_context_n_nodes(ctx);
  h->b = proto_context_batches(ctx);
  h->d = proto_context_dim(ctx);
  h->clip = proto_context_clip(ctx);
  h->step = proto_context_step_size(ctx);
  h->first = g_new0(guint, h->n + 1);
  h->order = g_new(guint, c->m);
  h->pre = g_new0(double *, h->n);
  h->when = g_new(gint64, h->n);
  h->scratch = g_new(double, learn_model_scratch_size(proto_run_learn_model(run)));
  for (guint i = 0; i < c->m; i++)
    h->first[c->node[i] + 1]++;
  for (guint u = 0; u < h->n; u++) {
    h->first[u + 1] += h->first[u];
    h->when[u] = -1;
  }
  guint *fill = g_memdup2(h->first, h->n * sizeof(guint));
  for (guint i = 0; i < c->m; i++) {
    h->order[fill[c->node[i]]++] = i;
    if (h->pre[c->node[i]] == NULL)
      h->pre[c->node[i]] = g_new(double, h->d);
  }
  g_free(fill);
  memset(c->score, 0, c->m * sizeof(double));
  proto_run_set_gradient_func(run, canary_gradient, h);
  if (sim_bus_subscribe_kinds(sim_engine_bus(proto_run_engine(run)),
                              SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT), on_sent, h, NULL,
                              error) == 0) {
    proto_run_set_gradient_func(run, NULL, NULL);
    cli_onerun_hook_free(h);
    return NULL;
  }
  return h;
}

void cli_onerun_hook_free(CliOnerunHook *h) {
  if (h == NULL)
    return;
  for (guint u = 0; u < h->n; u++)
    g_free(h->pre[u]);
  g_free(h->pre);
  g_free(h->when);
  g_free(h->first);
  g_free(h->order);
  g_free(h->scratch);
  g_free(h);
}

static gint by_score(gconstpointer a, gconstpointer b, gpointer data) {
  const CliOnerunCanaries *c = data;
  guint i = *(const guint *)a, j = *(const guint *)b;
  double si = c->score[i], sj = c->score[j];
  if (si != sj)
    return si > sj ? -1 : 1;
  return i < j ? -1 : i > j;
}

guint cli_onerun_guess(const CliOnerunCanaries *c, guint k) {
  g_return_val_if_fail(c != NULL && 2 * (guint64)k <= c->m, 0);
  guint *idx = g_new(guint, c->m);
  for (guint i = 0; i < c->m; i++)
    idx[i] = i;
  g_qsort_with_data(idx, (gint)c->m, sizeof(guint), by_score, (gpointer)c);
  guint right = 0;
  for (guint i = 0; i < k; i++)
    right += (c->in[idx[i]] ? 1 : 0) + (c->in[idx[c->m - 1 - i]] ? 0 : 1);
  g_free(idx);
  return right;
}
