/*
 * scenarios/account.c: the privacy of a point, for each collusion set and
 * each trust model, as the accounting request (ProtoAccountRequest) every
 * front end asks: the point's configuration translated into it (collusion
 * sets by name, a fitted C), the structured or local path's accountings or
 * the reports of what the observer on the run's bus recorded, and the
 * point's privacy.csv rows and summary.
 */
#include <math.h>
#include <string.h>

#include "scenarios/internal.h"

void scen_account_request_init(ScenAccountRequest *q, const ScenConfig *c, const char *spec,
                               double sigma, const double *C) {
  ProtoAccountRequest *r = &q->r;
  proto_account_request_init(r);
  GString *trust = g_string_new(NULL);
  for (guint i = 0; i < c->n_trust; i++)
    g_string_append_printf(trust, "%s%s", i ? "," : "", priv_trust_name(c->trust[i]));
  q->trust = g_string_free(trust, FALSE);
  g_snprintf(q->seed, sizeof q->seed, "%" G_GUINT64_FORMAT, c->seed);
  q->sets = g_new(ProtoAccountSet, MAX(c->n_collusions, 1));
  for (guint i = 0; i < c->n_collusions; i++)
    q->sets[i] = (ProtoAccountSet){c->collusions[i].name, c->collusions[i].nodes,
                                   c->collusions[i].n_nodes};
  gboolean pndp = FALSE;
  for (guint i = 0; i < c->n_trust; i++)
    pndp |= c->trust[i] == PRIV_TRUST_PNDP;
  r->protocol = spec;
  r->rounds = (gint)c->rounds;
  r->interval = (gint)c->b;
  /* A task's noise is calibrated for its batches, whatever b is accounted. */
  r->batches = c->has_task ? c->batches : 0;
  r->trust = q->trust;
  r->sets = q->sets;
  r->n_sets = c->n_collusions;
  r->sensitivity = mf_sensitivity_name(c->sensitivity);
  r->sigma = sigma;
  r->clip = c->clip;
  r->alpha = c->alpha;
  r->delta = c->delta;
  /* Muffliato's bound is D-SGD's under PNDP on a static gossip. */
  r->compare = c->compare_muffliato && pndp && c->shape.kind == PRIV_PROTOCOL_DSGD &&
                       c->schedule_static && sigma > 0
                   ? "muffliato"
                   : NULL;
  r->gossip = c->gossip;
  r->schedule = c->schedule_static ? NULL : c->schedule;
  r->seed = q->seed;
  r->path = c->path == SCEN_PATH_LOCAL        ? "local"
            : c->path == SCEN_PATH_STRUCTURED ? "structured"
            : c->path == SCEN_PATH_OBSERVER   ? "observer"
                                              : NULL;
  r->radius = c->path == SCEN_PATH_LOCAL && c->tightness == 0 ? (gint)c->radius : -1;
  r->tightness = c->path == SCEN_PATH_LOCAL ? c->tightness : 0;
  r->mode = c->mode;
  r->latency = c->latency;
  r->loss = c->loss;
  r->lr = c->lr;
  r->accountant = c->dense_accountant ? "dense" : NULL;
  r->C_local = c->shape.kind == PRIV_PROTOCOL_MFDSGD ? C : NULL;
  r->cancel = scen_cancel_flag();
}

void scen_account_request_clear(ScenAccountRequest *q) {
  g_free(q->trust);
  g_free(q->sets);
  memset(q, 0, sizeof *q);
}

gboolean scen_account_recordable(const ScenConfig *c) {
  /* Not MF-D-SGD in stale mode: whether its C (Mafalda's is fitted in the
   * run) has the noise state the Kalman engine carries beside the delayed
   * slots is known only to the job (proto_account_job_recordable), so a
   * scenario keeps such a run on the observer path. */
  if (c->shape.kind < 0 ||
      (c->shape.kind == PRIV_PROTOCOL_MFDSGD && c->mode_parsed.kind == PROTO_MODE_STALE))
    return FALSE;
  return proto_account_recordable((PrivProtocol)c->shape.kind, c->mode_parsed.kind);
}

/* @q validated as @c's path asks, on the one function `dpgossip account`
 * decides with (proto_account_validate). The structured path takes an
 * asynchronous run's mode, latency and loss where it accounts it on the
 * run's delivery record (scen_account_recordable); otherwise it accounts a
 * synchronous run, whose messages do not depend on them. The local path
 * takes an asynchronous run's options as `account --path local` does, and
 * the job decides: the ball's part of the run's delivery record, the
 * observer path's ball (Zip-DL, plugins, DECOR's secrets without local
 * noise: a simulated run, which also takes the run's lr and accountant), or
 * a refusal saying why. */
static ProtoAccountJob *validate(const ScenConfig *c, const ProtoAccountRequest *q,
                                 GError **error) {
  ProtoAccountRequest r = *q;
  gboolean async = c->mode_parsed.kind != PROTO_MODE_SYNC;
  gboolean by_record = async && (c->path == SCEN_PATH_LOCAL ||
                                 (c->path == SCEN_PATH_STRUCTURED && scen_account_recordable(c)));
  if (c->path != SCEN_PATH_OBSERVER) {
    if (!by_record)
      r.mode = r.latency = r.loss = NULL;
    r.accountant = NULL, r.lr = NAN;
  }
  ProtoAccountJob *j = proto_account_validate(&r, NULL, error);
  if (j != NULL && c->path == SCEN_PATH_LOCAL && j->path == PROTO_ACCOUNT_OBSERVER) {
    proto_account_job_free(j);
    j = proto_account_validate(q, NULL, error);
  }
  return j;
}

gboolean scen_account_check_path(const ScenConfig *c, GError **error) {
  /* What the run passes but cannot be known before it: MF-D-SGD's C
   * (built or fitted by the run), for which D-SGD stands in, as in
   * `validate` (runpoint.c): the path's choices are the same for both but
   * for the noise state of a C in stale mode, which the run's job checks;
   * mu's sigma (any noise: the path does not depend on it). */
  gboolean mf = c->shape.kind == PRIV_PROTOCOL_MFDSGD;
  ScenAccountRequest q;
  scen_account_request_init(&q, c, c->nonprivate || mf ? "dsgd" : c->protocol,
                            c->nonprivate ? 0.0
                            : c->has_mu   ? 1.0
                                          : c->sigma,
                            NULL);
  ProtoAccountJob *j = validate(c, &q.r, error);
  scen_account_request_clear(&q);
  proto_account_job_free(j);
  return j != NULL;
}

ProtoAccountJob *scen_account_job(const ScenConfig *c, const ScenAccountRequest *q,
                                  GError **error) {
  ProtoAccountJob *j = validate(c, &q->r, error);
  /* The record's run has the training run's timing: its compute time (the
   * only part of a step's duration a run adds; data never sets a time). */
  if (j != NULL)
    j->run.compute_ms = c->compute_ms;
  if (j != NULL && !proto_account_job_plan(j, c->g, NULL, NULL, error))
    g_clear_pointer(&j, proto_account_job_free);
  return j;
}

gboolean scen_account_ldp_worst_mu(const ScenConfig *c, const double *C, double *mu1,
                                   GError **error) {
  /* Under LDP the attackers see every message and nothing else: a node's
   * value does not depend on who observes, so {0} and {1} cover every node. */
  static const guint node0[] = {0}, node1[] = {1};
  const ProtoAccountSet sets[] = {{"0", node0, 1}, {"1", node1, 1}};
  ScenAccountRequest q;
  scen_account_request_init(&q, c, c->protocol, 1.0, C);
  /* Calibration is exact whatever the scenario's path (a bound is not the
   * worst node's mu), at the participation the noise is calibrated for. */
  q.r.path = "structured";
  q.r.radius = -1;
  q.r.interval = (gint)(c->has_task ? c->batches : c->b);
  q.r.batches = 0;
  q.r.trust = "ldp";
  q.r.sets = sets;
  q.r.n_sets = G_N_ELEMENTS(sets);
  q.r.alpha = 2.0;
  q.r.compare = NULL;
  q.r.no_epsilon = TRUE;
  q.r.mode = q.r.latency = q.r.loss = q.r.accountant = NULL;
  q.r.lr = NAN;
  ProtoAccountJob *j = proto_account_validate(&q.r, NULL, error);
  scen_account_request_clear(&q);
  gboolean ok = j != NULL && proto_account_job_plan(j, c->g, NULL, NULL, error) &&
                proto_account_job_execute(j, error);
  *mu1 = 0.0;
  for (guint a = 0; ok && a < j->n_acs; a++)
    for (guint v = 0; v < j->acs[a].report->n_victims; v++)
      *mu1 = MAX(*mu1, j->acs[a].report->victims[v].mu); /* +inf when unprotected or unresolved */
  proto_account_job_free(j);
  return ok;
}

static void json_num(JsonBuilder *jb, const char *key, double x) {
  json_builder_set_member_name(jb, key);
  if (isfinite(x))
    json_builder_add_double_value(jb, x);
  else
    json_builder_add_null_value(jb); /* unprotected: never a finite number */
}

/* One accounting's summary: its set, the worst and mean values. */
static void summary(JsonBuilder *jb, const ScenCollusion *col, PrivTrust trust, const char *path,
                    const PrivReport *rep, const ProtoAccountJob *job, ScenRunOutput *out) {
  double max_eps = 0, sum_eps = 0, max_mu = 0, max_rdp = 0;
  guint unprotected = 0, unresolved = 0;
  for (guint v = 0; v < rep->n_victims; v++) {
    const PrivVictim *pv = &rep->victims[v];
    unresolved += pv->unresolved;
    unprotected += pv->unprotected;
    max_eps = MAX(max_eps, pv->epsilon);
    max_mu = MAX(max_mu, pv->mu);
    max_rdp = MAX(max_rdp, pv->rdp);
    sum_eps += pv->epsilon;
  }
  json_builder_begin_object(jb);
  json_builder_set_member_name(jb, "collusion");
  json_builder_add_string_value(jb, col->name);
  json_builder_set_member_name(jb, "nodes");
  json_builder_begin_array(jb);
  for (guint m = 0; m < col->n_nodes; m++)
    json_builder_add_int_value(jb, col->nodes[m]);
  json_builder_end_array(jb);
  json_builder_set_member_name(jb, "trust");
  json_builder_add_string_value(jb, priv_trust_name(trust));
  json_builder_set_member_name(jb, "path");
  json_builder_add_string_value(jb, path);
  if (job->tightness > 0) {
    /* privacy.tightness: whether every mu / mu_lower met it, else why not. */
    json_builder_set_member_name(jb, "tightness");
    json_builder_begin_object(jb);
    json_builder_set_member_name(jb, "target");
    json_builder_add_double_value(jb, job->tightness);
    json_builder_set_member_name(jb, "radius");
    json_builder_add_int_value(jb, job->radius);
    json_builder_set_member_name(jb, "met");
    json_builder_add_boolean_value(jb, job->tightness_met);
    json_builder_set_member_name(jb, "stopped");
    if (job->tightness_met)
      json_builder_add_null_value(jb);
    else
      json_builder_add_string_value(jb, job->tightness_stop);
    json_builder_end_object(jb);
  }
  json_builder_set_member_name(jb, "victims");
  json_builder_add_int_value(jb, rep->n_victims);
  json_builder_set_member_name(jb, "unprotected");
  json_builder_add_int_value(jb, unprotected);
  if (unresolved) {
    /* Only when there are some (PRIV_UNRESOLVED_NOTE). */
    json_builder_set_member_name(jb, "unresolved");
    json_builder_add_int_value(jb, unresolved);
    json_builder_set_member_name(jb, "note");
    json_builder_add_string_value(jb, PRIV_UNRESOLVED_NOTE);
    out->privacy_unresolved = TRUE;
  }
  json_num(jb, "max_mu", max_mu);
  json_num(jb, "max_rdp", max_rdp);
  json_num(jb, "max_epsilon", max_eps);
  json_num(jb, "mean_epsilon", rep->n_victims ? sum_eps / rep->n_victims : NAN);
  json_builder_end_object(jb);
}

/* One radius of privacy.tightness. */
static gboolean execute_once(ProtoAccountJob *j, gpointer data, GError **error) {
  (void)data;
  return proto_account_job_execute(j, error);
}

/* The job's accountings: on its path, or from @obs's views. */
static gboolean execute(const ScenConfig *c, ProtoAccountJob *job, ProtoObservedRun *obs,
                        GError **error) {
  if (c->path == SCEN_PATH_OBSERVER ? proto_account_job_execute_observed(job, obs, error)
      : job->tightness > 0
          ? proto_account_job_execute_tightness(job, execute_once, NULL, NULL, error)
          : proto_account_job_execute(job, error))
    return TRUE;
  const ProtoAccounting *ac = &job->acs[job->at];
  if (ac->report == NULL)
    g_prefix_error(error, "accounting collusion.%s under %s: ", c->collusions[ac->set].name,
                   priv_trust_name(ac->trust));
  return FALSE;
}

gboolean scen_account(const ScenConfig *c, ProtoAccountJob *job, ProtoObservedRun *obs,
                      ScenRunOutput *out, GError **error) {
  out->privacy_csv = g_string_new(NULL);
  out->victims = g_array_new(FALSE, FALSE, sizeof(ScenVictimRow));
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_array(jb);
  gboolean ok = job == NULL || execute(c, job, obs, error);
  if (ok && job != NULL && job->deliveries != NULL) {
    /* The record is of the accounting's own simulation of the run: it must
     * be the trained run's (same late, partial and lost messages), or the
     * privacy printed would be another run's. */
    guint64 late, partial, lost;
    proto_deliveries_counts(job->deliveries, &late, &partial, &lost);
    if (late != out->stats.late_discarded || partial != out->stats.partial_gathers ||
        lost != out->stats.engine.dropped_loss) {
      g_set_error(error, SCEN_ERROR, SCEN_ERROR_FAILED,
                  "the delivery record the structured path accounted (%" G_GUINT64_FORMAT
                  " late, %" G_GUINT64_FORMAT " partial gathers, %" G_GUINT64_FORMAT
                  " lost) is not the trained run's (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                  ", %" G_GUINT64_FORMAT "): use privacy.path = observer",
                  late, partial, lost, out->stats.late_discarded, out->stats.partial_gathers,
                  out->stats.engine.dropped_loss);
      ok = FALSE;
    }
  }
  /* Local bounds say so in the path column, with their radius. */
  char *path = c->path == SCEN_PATH_LOCAL
                   ? g_strdup_printf("local:radius=%u", job != NULL ? job->radius : c->radius)
               : c->path == SCEN_PATH_STRUCTURED ? g_strdup("structured")
                                                 : g_strdup("observer");
  /* Set-major: collusion set i under its j-th trust model is a = i n_trust + j. */
  for (guint a = 0; ok && job != NULL && a < job->n_acs; a++) {
    const ProtoAccounting *ac = &job->acs[a];
    const ScenCollusion *col = &c->collusions[ac->set];
    const PrivReport *rep = ac->report;
    char *members = scen_privacy_members_label(job->graph, col->nodes, col->n_nodes);
    ScenPrivacyCsvSet set = {.collusion = col->name,
                             .attackers = members,
                             .trust = ac->trust,
                             .path = path,
                             .seed = c->seed,
                             .job = job};
    scen_privacy_csv_rows(out->privacy_csv, &set, rep, ac->muff);
    g_free(members);
    for (guint v = 0; v < rep->n_victims; v++) {
      const PrivVictim *pv = &rep->victims[v];
      ScenVictimRow row = {.collusion = ac->set,
                           .trust = a % c->n_trust,
                           .victim = pv->node,
                           .distance = pv->distance,
                           .rdp = pv->rdp,
                           .epsilon = pv->epsilon,
                           .muffliato_rdp = ac->muff ? ac->muff[pv->node] : NAN,
                           .mu = pv->mu};
      g_array_append_val(out->victims, row);
    }
    summary(jb, col, ac->trust, path, rep, job, out);
  }
  g_free(path);
  json_builder_end_array(jb);
  out->privacy_summary = json_builder_get_root(jb);
  g_object_unref(jb);
  return ok;
}
