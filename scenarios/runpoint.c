/*
 * scenarios/runpoint.c: one run of a resolved configuration: the protocols
 * module's ProtoRun (its own engine), with a privacy observer on its bus when
 * the accounting comes from what the attackers saw, then the accounting.
 */
#include <math.h>

#include "scenarios/internal.h"

void scen_run_output_free(ScenRunOutput *o) {
  if (o == NULL)
    return;
  g_free(o->metrics);
  if (o->privacy_csv)
    g_string_free(o->privacy_csv, TRUE);
  if (o->audit_csv)
    g_string_free(o->audit_csv, TRUE);
  if (o->privacy_summary)
    json_node_unref(o->privacy_summary);
  if (o->victims)
    g_array_unref(o->victims);
  g_free(o);
}

typedef struct {
  ProtoRun *run;
  const ScenRunContext *ctx;
} Progress;

static void on_progress(double fraction, gpointer data) {
  Progress *p = data;
  /* The cancel flag is set from a signal handler; the run is cancelled from
   * its own thread here, at the next progress step. */
  if (scen_cancelled())
    proto_run_cancel(p->run);
  if (p->ctx && p->ctx->progress)
    p->ctx->progress(p->ctx->point, fraction, p->ctx->progress_data);
}

/* What the run hook is told of @run at noise @sigma, before it starts. */
static ScenRunHookInfo hook_info(const ScenConfig *c, const ScenRunContext *ctx, ProtoRun *run,
                                 double sigma) {
  return (ScenRunHookInfo){.point = ctx->point,
                           .run = run,
                           .graph = c->g,
                           .name = c->name,
                           .protocol = c->protocol,
                           .seed = c->seed,
                           .sigma = sigma};
}

/* The hook after the accounting: out->victims grouped by (collusion, trust),
 * contiguous since scen_account appends them in that order. */
static gboolean hook_finished(const ScenConfig *c, const ScenRunContext *ctx, ProtoRun *run,
                              const ScenRunOutput *out, GError **error) {
  GArray *res = g_array_new(FALSE, TRUE, sizeof(ScenPrivacyResult));
  GArray *v = out->victims;
  guint n = v ? v->len : 0;
  guint *victims = g_new(guint, MAX(n, 1));
  gint *distance = g_new(gint, MAX(n, 1));
  double *mu = g_new(double, MAX(n, 1)), *eps = g_new(double, MAX(n, 1));
  for (guint i = 0; i < n;) {
    const ScenVictimRow *r0 = &g_array_index(v, ScenVictimRow, i);
    guint k = i;
    for (; k < n; k++) {
      const ScenVictimRow *r = &g_array_index(v, ScenVictimRow, k);
      if (r->collusion != r0->collusion || r->trust != r0->trust)
        break;
      victims[k] = r->victim;
      distance[k] = r->distance;
      mu[k] = r->mu;
      eps[k] = r->epsilon;
    }
    const ScenCollusion *col = &c->collusions[r0->collusion];
    ScenPrivacyResult p = {.collusion = col->name,
                           .attackers = col->nodes,
                           .n_attackers = col->n_nodes,
                           .trust = c->trust[r0->trust],
                           .delta = c->delta,
                           .n_victims = k - i,
                           .victims = victims + i,
                           .mu = mu + i,
                           .epsilon = eps + i,
                           .distance = distance + i};
    g_array_append_val(res, p);
    i = k;
  }
  ScenRunHookInfo info = hook_info(c, ctx, run, out->sigma_used);
  info.finished = TRUE;
  info.privacy = (const ScenPrivacyResult *)res->data;
  info.n_privacy = res->len;
  gboolean ok = ctx->run_hook(&info, ctx->run_hook_data, error);
  g_array_unref(res);
  g_free(victims);
  g_free(distance);
  g_free(mu);
  g_free(eps);
  return ok;
}

/* A run set up and not yet started: what scen_run_config runs, and what
 * scen_run_config_check builds and frees. */
typedef struct {
  double *C_own;
  TopoSchedule *sched;
  ProtoAccountJob *job; /* NULL: privacy.path = none, or a check of a run without observer */
  ProtoObservedRun *orun;
  double sigma;
} Setup;

static void setup_clear(Setup *su) {
  proto_observed_run_free(su->orun);
  proto_account_job_free(su->job);
  topo_schedule_free(su->sched);
  g_free(su->C_own);
  *su = (Setup){0};
}

/* The run of the request @q (proto_account_request_run_config) with the
 * task's fields, the job of its privacy (with @check, only the observer's
 * views), and the run with those views on its bus. */
static gboolean run_and_privacy(const ScenConfig *c, gboolean check, const ScenAccountRequest *q,
                                Setup *su, GError **error) {
  ProtoRunConfig rc;
  proto_account_request_run_config(&q->r, &rc);
  if (!c->schedule_static &&
      (su->sched = topo_schedule_new(c->schedule, c->g, c->gossip, c->seed, error)) == NULL)
    return FALSE;
  rc.graph = su->sched ? NULL : c->g;
  rc.schedule = su->sched;
  rc.compute_ms = c->compute_ms;
  rc.threads = 1;
  rc.storage = c->path == SCEN_PATH_OBSERVER ? SIM_LIN_SPARSE : SIM_LIN_NONE;
  if (c->has_task) {
    rc.dataset = c->dataset;
    rc.model = c->model;
    rc.test_fraction = c->test_fraction;
    rc.partition = c->partition;
    rc.eval_every = c->eval_every;
    rc.eval_nodes = c->eval_nodes;
    rc.eval_rows = c->eval_rows;
  }
  gboolean observer = c->path == SCEN_PATH_OBSERVER;
  if ((observer || (!check && c->path != SCEN_PATH_NONE)) &&
      (su->job = scen_account_job(c, q, error)) == NULL)
    return FALSE;
  /* The views in the job's order: collusion set by collusion set, then trust. */
  su->orun = proto_observed_run_new(&rc, observer ? proto_account_job_observe(su->job) : NULL,
                                    error);
  return su->orun != NULL;
}

/*
 * Everything a run does before its first step, in one place for `run` and
 * `validate`: the noise correlation and the calibration of sigma, the
 * schedule, the dataset loaded and partitioned (batches against each node's
 * records), the memory estimates of the models and the observer. With
 * @check, what only costs time is not computed (Mafalda's optimizer, the
 * calibration itself) but its size is checked, and an MF-D-SGD run is set
 * up as D-SGD (its C is checked with the scenario's keys); the rest is the
 * run's own code.
 */
static gboolean setup(const ScenConfig *c, const ScenRunContext *ctx, gboolean check, Setup *su,
                      GError **error) {
  *su = (Setup){.sigma = c->sigma};
  const double *C = ctx ? ctx->C : NULL;
  gboolean mf = c->shape.kind == PRIV_PROTOCOL_MFDSGD && !c->nonprivate;
  /* A C-set: the run and its accounting read the file themselves (one C
   * per class of nodes); its node map is checked against the graph here,
   * in `validate` too, so that a mismatch names the file before a run. */
  gboolean cset = mf && scen_cmatrix_is_cset(c);
  if (cset && c->g != NULL && !scen_cmatrix_check_cset(c, error)) /* no graph: resolve says why */
    return FALSE;
  if (mf && C == NULL && !check && !cset) {
    if ((su->C_own = scen_cmatrix_build(c, error)) == NULL)
      return FALSE;
    C = su->C_own;
  }
  if (c->nonprivate)
    su->sigma = 0.0;
  else if (c->has_mu && check)
    su->sigma = 1.0; /* any noise: the run's shape does not depend on it */
  if (c->has_mu && !c->nonprivate && !scen_calibrate_check(c, error))
    return FALSE;
  if (c->has_mu && !c->nonprivate && !check && !scen_calibrate_sigma(c, C, &su->sigma, error))
    return FALSE;

  char *spec;
  if (c->nonprivate || (check && mf))
    spec = g_strdup("dsgd");
  else if (ctx && ctx->C_file && c->shape.C && g_str_equal(c->shape.C, "mafalda"))
    spec = g_strdup_printf("%s:C=%s", c->proto_name, ctx->C_file);
  else
    spec = g_strdup(c->protocol);

  ScenAccountRequest q;
  scen_account_request_init(&q, c, spec, su->sigma, mf && !check ? C : NULL);
  gboolean ok = run_and_privacy(c, check, &q, su, error);
  scen_account_request_clear(&q);
  g_free(spec);
  return ok;
}

char *scen_run_config_check_key(const ScenConfig *c) {
  /* What setup() reads in its check mode: the noise (sigma or mu) is not,
   * and an MF-D-SGD or non-private run is set up as D-SGD. */
  ScenConfig k = *c;
  k.sigma = 0.0;
  k.mu = 0.0;
  if (c->nonprivate || c->shape.kind == PRIV_PROTOCOL_MFDSGD)
    k.protocol = (char *)"dsgd";
  return scen_config_to_ini(&k);
}

gboolean scen_run_config_check(const ScenConfig *c, GError **error) {
  Setup su;
  gboolean ok = setup(c, NULL, TRUE, &su, error);
  setup_clear(&su);
  return ok;
}

ScenRunOutput *scen_run_config(const ScenConfig *c, const ScenRunContext *ctx, GError **error) {
  ScenRunOutput *out = g_new0(ScenRunOutput, 1);
  Setup su = {0};
  ProtoRun *run = NULL;
  gboolean ok = FALSE;

  if (scen_cancelled()) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_CANCELLED, "cancelled");
    goto out;
  }
  if (!setup(c, ctx, FALSE, &su, error))
    goto out;
  double sigma = su.sigma;
  out->sigma_used = sigma;
  ProtoObservedRun *orun = su.orun;
  run = proto_observed_run_proto(orun);
  if (ctx && ctx->run_hook) {
    ScenRunHookInfo info = hook_info(c, ctx, run, sigma);
    if (!ctx->run_hook(&info, ctx->run_hook_data, error))
      goto out;
  }
  Progress prog = {run, ctx};
  proto_run_set_progress(run, on_progress, &prog);
  if (!proto_observed_run_run(orun, error))
    goto out;
  proto_run_get_stats(run, &out->stats);
  out->T = proto_context_steps(proto_run_context(run));
  out->k = proto_context_epochs(proto_run_context(run));
  out->b = proto_context_batches(proto_run_context(run));
  out->has_task = c->has_task;
  proto_run_eval_sample(run, &out->eval);
  gsize nm = 0;
  const ProtoMetric *m = proto_run_metrics(run, &nm);
  if (nm > 0) {
    out->metrics = g_memdup2(m, nm * sizeof *m);
    out->n_metrics = (guint)nm;
  }
  if (!scen_account(c, su.job, orun, out, error) || !scen_audit(c, sigma, out, error))
    goto out;
  if (ctx && ctx->run_hook && !hook_finished(c, ctx, run, out, error))
    goto out;
  ok = TRUE;
out:
  if (!ok && error && g_error_matches(*error, PROTO_ERROR, PROTO_ERROR_CANCELLED)) {
    /* The run stopped at scen_cancel's request: the scenarios' own code. */
    g_clear_error(error);
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_CANCELLED, "cancelled");
  }
  setup_clear(&su);
  if (!ok) {
    scen_run_output_free(out);
    return NULL;
  }
  return out;
}
