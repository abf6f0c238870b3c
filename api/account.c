/*
 * api/account.c: dpg_account, `dpgossip account` as a table: the same
 * accounting request (ProtoAccountRequest, protocols.h) with the same
 * checks, messages, paths and numbers; only the translation of the options
 * and of the report into a typed table is this file's.
 */
#include <math.h>
#include <string.h>

#include "api/internal.h"
#include "mf/mf.h"
#include "privacy/privacy.h"
#include "protocols/protocols.h"
#include "scenarios/scenarios.h"
#include "spec/spec.h"

void dpg_account_options_init(DpgAccountOptions *o) {
  *o = (DpgAccountOptions){.participation_interval = 1,
                           .sigma = 1.0,
                           .clip = 1.0,
                           .alpha = 2.0,
                           .delta = 1e-6,
                           .lr = NAN,
                           .radius = -1};
}

size_t dpg_account_options_size(void) {
  return sizeof(DpgAccountOptions);
}

/* The tidy privacy table's columns (SCEN_PRIVACY_CSV_COLUMNS, what
 * `dpgossip account --format csv` and a scenario's privacy.csv hold), typed. */
static DpgTable *tabulate(const ProtoAccountJob *j) {
  DpgTable *t = dpg_table_new();
  guint c_coll = dpg_table_add_col(t, "collusion", DPG_COL_STRING);
  guint c_trust = dpg_table_add_col(t, "trust", DPG_COL_STRING);
  gboolean labelled = topo_graph_has_labels(j->graph);
  guint c_node = dpg_table_add_col(t, "victim", labelled ? DPG_COL_STRING : DPG_COL_INT);
  guint c_dist = dpg_table_add_col(t, "distance", DPG_COL_INT);
  guint c_sens = dpg_table_add_col(t, "sensitivity", DPG_COL_DOUBLE);
  guint c_mu = dpg_table_add_col(t, "mu", DPG_COL_DOUBLE);
  guint c_rdp = dpg_table_add_col(t, "rdp", DPG_COL_DOUBLE);
  guint c_eps = dpg_table_add_col(t, "epsilon", DPG_COL_DOUBLE);
  guint c_muff = dpg_table_add_col(t, "muffliato_rdp", DPG_COL_DOUBLE);
  guint c_status = dpg_table_add_col(t, "status", DPG_COL_STRING);
  guint c_att = dpg_table_add_col(t, "attackers", DPG_COL_STRING);
  guint c_alpha = dpg_table_add_col(t, "alpha", DPG_COL_DOUBLE);
  guint c_delta = dpg_table_add_col(t, "delta", DPG_COL_DOUBLE);
  guint c_path = dpg_table_add_col(t, "path", DPG_COL_STRING);
  guint c_seed = dpg_table_add_col(t, "seed", DPG_COL_INT);
  guint c_low = dpg_table_add_col(t, "mu_lower", DPG_COL_DOUBLE);
  guint c_bound = dpg_table_add_col(t, "bound", DPG_COL_STRING);
  /* Local bounds say so in the path column, with their radius. */
  const char *path = proto_account_job_path_name(j);
  char *path_label = j->radius ? g_strdup_printf("local:radius=%u", j->radius) : g_strdup(path);
  for (guint a = 0; a < j->n_acs; a++) {
    const ProtoAccounting *ac = &j->acs[a];
    const PrivReport *r = ac->report;
    char *label = topo_graph_attackers_label(j->graph, &j->sets, ac->set);
    for (guint i = 0; i < r->n_victims; i++) {
      const PrivVictim *v = &r->victims[i];
      dpg_table_push_string(t, c_coll, label); /* a set is named by its members */
      dpg_table_push_string(t, c_trust, priv_trust_name(ac->trust));
      if (labelled)
        dpg_table_push_string(t, c_node, topo_graph_node_label(j->graph, v->node));
      else
        dpg_table_push_int(t, c_node, v->node);
      dpg_table_push_int(t, c_dist, v->distance >= 0 ? v->distance : G_MININT64);
      dpg_table_push_double(t, c_sens, v->sensitivity);
      dpg_table_push_double(t, c_mu, v->mu);
      dpg_table_push_double(t, c_rdp, v->rdp);
      dpg_table_push_double(t, c_eps, v->epsilon);
      /* NaN where the command line leaves the cell empty. */
      dpg_table_push_double(t, c_muff, ac->muff ? ac->muff[v->node] : NAN);
      dpg_table_push_string(t, c_status, scen_privacy_victim_status(v));
      dpg_table_push_string(t, c_att, label);
      dpg_table_push_double(t, c_alpha, r->alpha);
      dpg_table_push_double(t, c_delta, r->delta);
      dpg_table_push_string(t, c_path, path_label);
      dpg_table_push_int(t, c_seed, (gint64)j->seed);
      dpg_table_push_double(t, c_low, v->mu_lower); /* NaN (empty) but on the local path */
      dpg_table_push_string(t, c_bound, proto_account_job_bound_name(j, v));
      dpg_table_end_row(t);
    }
    g_free(label);
  }
  g_free(path_label);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  dpg_table_set_attr_printf(t, "nodes", "%u", j->n);
  dpg_table_set_attr(t, "gossip", topo_gossip_kind_name(j->gossip));
  dpg_table_set_attr(t, "protocol", j->label);
  dpg_table_set_attr_printf(t, "rounds", "%u", j->T);
  dpg_table_set_attr_printf(t, "participation_interval", "%u", j->b);
  dpg_table_set_attr(t, "sensitivity", mf_sensitivity_name(j->sensitivity));
  dpg_table_set_attr(t, "sensitivity_reason", proto_account_job_sensitivity_reason(j));
  dpg_table_set_attr(t, "sigma", g_ascii_dtostr(buf, sizeof buf, j->sigma));
  dpg_table_set_attr(t, "clip", g_ascii_dtostr(buf, sizeof buf, j->clip));
  dpg_table_set_attr(t, "alpha", g_ascii_dtostr(buf, sizeof buf, j->alpha));
  dpg_table_set_attr(t, "delta", g_ascii_dtostr(buf, sizeof buf, j->delta));
  dpg_table_set_attr(t, "path", path);
  dpg_table_set_attr(t, "path_reason", j->path_reason);
  if (j->radius)
    dpg_table_set_attr_printf(t, "radius", "%u", j->radius);
  if (j->tightness > 0) {
    dpg_table_set_attr(t, "tightness", g_ascii_dtostr(buf, sizeof buf, j->tightness));
    dpg_table_set_attr(t, "tightness_met", j->tightness_met ? "true" : "false");
    if (!j->tightness_met)
      dpg_table_set_attr(t, "tightness_stopped", j->tightness_stop);
  }
  dpg_table_set_attr(t, "schedule", j->schedule ? j->schedule_spec : "static");
  dpg_table_set_attr(t, "distance_graph", proto_account_job_distance_graph(j));
  dpg_table_set_job_warnings(t, j);
  dpg_table_set_attr_printf(t, "seed", "%" G_GUINT64_FORMAT, j->seed);
  if (j->path == PROTO_ACCOUNT_OBSERVER) {
    dpg_table_set_attr(t, "mode", j->mode_spec ? j->mode_spec : "sync");
    dpg_table_set_attr(t, "latency", j->latency_spec ? j->latency_spec : "constant:ms=0");
    dpg_table_set_attr(t, "loss", j->loss_spec ? j->loss_spec : "0");
    dpg_table_set_attr(t, "lr", g_ascii_dtostr(buf, sizeof buf, j->lr));
    dpg_table_set_attr(t, "storage", j->storage == SIM_LIN_DENSE ? "dense" : "sparse");
    dpg_table_set_attr(t, "accountant", j->streaming ? "streaming" : "dense");
    const ProtoRunStats *s = &j->stats;
    dpg_table_set_attr_printf(t, "messages_sent", "%" G_GUINT64_FORMAT, s->engine.messages_sent);
    dpg_table_set_attr_printf(t, "messages_delivered", "%" G_GUINT64_FORMAT,
                              s->engine.messages_delivered);
    dpg_table_set_attr_printf(t, "messages_dropped", "%" G_GUINT64_FORMAT,
                              s->engine.messages_dropped);
    dpg_table_set_attr_printf(t, "late_discarded", "%" G_GUINT64_FORMAT,
                              (guint64)s->late_discarded);
    dpg_table_set_attr_printf(t, "partial_gathers", "%" G_GUINT64_FORMAT,
                              (guint64)s->partial_gathers);
    dpg_table_set_attr_printf(t, "noise_variables", "%" G_GUINT64_FORMAT, (guint64)s->n_noise);
  }
  return t;
}

/* The observer path's run, cancellable by dpg_cancel while it runs. */
static void on_run(ProtoRun *run, gboolean running, gpointer data) {
  (void)data;
  if (running)
    dpg_cancel_register(run);
  else
    dpg_cancel_unregister(run);
}

/* @o as the request; strings borrowed from @o. */
static ProtoAccountRequest request(const DpgAccountOptions *o) {
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = o->protocol;
  r.rounds = o->rounds;
  r.interval = o->participation_interval;
  r.trust = o->trust;
  r.attackers = o->attackers;
  r.sensitivity = o->sensitivity;
  r.sigma = o->sigma;
  r.clip = o->clip;
  r.alpha = o->alpha;
  r.delta = o->delta;
  r.compare = o->compare;
  r.schedule = o->schedule;
  r.seed = o->seed;
  r.path = o->path;
  r.radius = o->radius;
  r.tightness = o->tightness;
  r.mode = o->mode;
  r.latency = o->latency;
  r.loss = o->loss;
  r.links = o->links;
  r.lr = o->lr;
  r.storage = o->storage;
  r.accountant = o->accountant;
  /* Between accountings: the privacy module has no cancel hook inside one. */
  r.cancel = dpg_cancel_flag();
  r.on_run = on_run;
  return r;
}

void dpg_table_set_job_warnings(DpgTable *t, const ProtoAccountJob *j) {
  dpg_table_set_warnings(t, NULL, j);
}

void dpg_table_set_warnings(DpgTable *t, const char *first, const ProtoAccountJob *j) {
  GPtrArray *ws = j != NULL ? proto_account_job_warnings(j)
                            : g_ptr_array_new_with_free_func(g_free);
  if (first != NULL && *first != '\0')
    g_ptr_array_insert(ws, 0, g_strdup(first));
  if (ws->len > 0) {
    g_ptr_array_add(ws, NULL);
    char *all = g_strjoinv("\n", (char **)ws->pdata);
    dpg_table_set_attr(t, "warnings", all);
    g_free(all);
  }
  g_ptr_array_unref(ws);
}

/* One radius of a --tightness job. */
static gboolean execute_once(ProtoAccountJob *j, gpointer data, GError **error) {
  (void)data;
  return proto_account_job_execute(j, error);
}

/* dpg_account once the plugins are loaded: @single the only one's protocol. */
static DpgTable *account(const DpgAccountOptions *o, const char *single, DpgError *err) {
  ProtoAccountRequest r = request(o);
  if (r.protocol == NULL)
    r.protocol = single;
  ProtoAccountRefusal refusal;
  GError *error = NULL;
  TopoGraph *g = NULL;
  DpgTable *t = NULL;
  GError *gossip_error = NULL;
  gboolean gossip_ok = dpg_graph_gossip(&o->graph, &r.gossip, &gossip_error);
  ProtoAccountJob *j = proto_account_validate(&r, &refusal, &error);
  if (j == NULL) {
    dpg_fail(err, error, proto_refusal_status(error, refusal));
    goto out;
  }
  if (!gossip_ok) {
    dpg_fail(err, g_steal_pointer(&gossip_error), 2);
    goto out;
  }
  if ((g = dpg_graph_build(&o->graph, &error)) == NULL) {
    dpg_fail(err, error, dpg_graph_status(&o->graph, error));
    goto out;
  }
  /* Named as the command line names it: the file or the generator spec. */
  const char *label = o->graph.path ? o->graph.path : o->graph.generate;
  if (!proto_account_job_plan(j, g, label, &refusal, &error)) {
    dpg_fail(err, error, proto_refusal_status(error, refusal));
    goto out;
  }
  if (j->tightness > 0 ? !proto_account_job_execute_tightness(j, execute_once, NULL, NULL, &error)
                       : !proto_account_job_execute(j, &error)) {
    dpg_fail(err, error,
             proto_error_status(error, j->path == PROTO_ACCOUNT_STRUCTURED
                                           ? PROTO_FAILED_RUN
                                           : PROTO_FAILED_PROTOCOL));
    goto out;
  }
  t = tabulate(j);
out:
  g_clear_error(&gossip_error);
  proto_account_job_free(j);
  topo_graph_free(g);
  return t;
}

DpgTable *dpg_account(const DpgAccountOptions *o, DpgError *err) {
  dpg_enter();
  DpgPlugins plugins;
  if (!dpg_plugins_begin(&plugins, o->plugins, err))
    return NULL;
  DpgTable *t = account(o, plugins.single, err);
  dpg_plugins_end(&plugins);
  return t;
}
