/*
 * api/account.c: dpg_account, `dpgossip account` as a table: the same
 * checks and messages, the same two paths (proto_account_plan decides), the
 * same numbers. It calls the protocols' and the privacy modules' API, not
 * the command line's code; tests/python compares both outputs.
 */
#include <math.h>
#include <string.h>

#include "api/internal.h"
#include "privacy/privacy.h"
#include "protocols/protocols.h"
#include "scenarios/scenarios.h"
#include "spec/spec.h"

typedef enum { PATH_AUTO, PATH_STRUCTURED, PATH_OBSERVER, PATH_LOCAL } Path;
static const char *const path_names[] = {"auto", "structured", "observer", "local"};

/* One accounting: attacker set @set under @trust. */
typedef struct {
  PrivTrust trust;
  guint set;
  PrivReport *report;
  double *muff;
} Accounting;

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

/* Everything the two paths share. */
typedef struct {
  const DpgAccountOptions *o;
  ProtoAccountProtocol proto;
  TopoGossipKind gossip;
  MfSensitivity sensitivity;
  guint T, b, n;
  SpecAttackers sets;
  Accounting *acs;
  guint n_acs;
  TopoGraph *g;
  TopoSchedule *sched;
  double *C_local;
  gboolean muffliato;
  guint64 seed;
  SimLinStorage storage;
  gboolean streaming;
  GArray *links; /* ProtoAccountLink */
  ProtoRunStats stats;
  guint radius; /* path local, else 0 */
} Job;

static const guint *members(const Job *j, guint set, guint *size) {
  return spec_attackers_members(&j->sets, set, NULL, size);
}

static gboolean muffliato_bound(Job *j, const TopoGossip *wm, Accounting *ac, GError **error) {
  if (!j->muffliato || ac->trust != PRIV_TRUST_PNDP)
    return TRUE;
  guint size;
  const guint *m = members(j, ac->set, &size);
  ac->muff = priv_muffliato_rdp(wm, j->T, m, size, j->o->alpha, j->o->sigma, error);
  return ac->muff != NULL;
}

static gboolean run_structured(Job *j, const PrivAccountOptions *opt, GError **error) {
  if (j->proto.structured && j->proto.protocol == PRIV_PROTOCOL_MFDSGD) {
    ProtoCRecipe r = {
        .spec = j->proto.c_spec, .T = j->T, .k = j->T / j->b, .b = j->b, .band = j->proto.band};
    if (!(j->C_local = proto_c_local(&r, error)))
      return FALSE;
  }
  TopoGossip *w = j->sched ? NULL : topo_gossip_new(j->g, j->gossip, error);
  TopoGossip *wm = NULL;
  gboolean ok = j->sched || w;
  if (ok && j->muffliato)
    ok = (wm = topo_gossip_new(j->g, j->gossip, error)) != NULL;
  for (guint a = 0; a < j->n_acs && ok; a++) {
    Accounting *ac = &j->acs[a];
    guint size;
    const guint *m = members(j, ac->set, &size);
    PrivStructuredProblem p = {.protocol = j->proto.protocol,
                               .K = j->proto.K,
                               .C_local = j->C_local,
                               .T = j->T,
                               .trust = ac->trust,
                               .attackers = m,
                               .n_attackers = size,
                               .sigma = j->o->sigma,
                               .b = j->b,
                               .engine = PRIV_ENGINE_AUTO};
    /* Between accountings: the privacy module has no cancel hook inside one. */
    ok = dpg_check_cancel(error);
    if (ok && j->radius) {
      ok = (ac->report = proto_account_local(&p, w, j->sched, j->radius, opt, NULL, error)) &&
           muffliato_bound(j, wm, ac, error);
      continue;
    }
    PrivBlocks *blocks = ok ? proto_account_structured(&p, w, j->sched, error) : NULL;
    ok = blocks && (ac->report = priv_account_report(blocks, j->g, opt, error)) != NULL &&
         muffliato_bound(j, wm, ac, error);
    priv_blocks_free(blocks);
  }
  topo_gossip_free(w);
  topo_gossip_free(wm);
  return ok;
}

static gboolean run_observer(Job *j, const PrivAccountOptions *opt, GError **error) {
  const DpgAccountOptions *o = j->o;
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = j->sched ? NULL : j->g;
  cfg.schedule = j->sched;
  cfg.gossip = j->gossip;
  cfg.protocol = o->protocol ? o->protocol : "dsgd";
  cfg.sigma = o->sigma;
  cfg.clip = o->clip;
  cfg.lr = isnan(o->lr) ? 0.1 : o->lr;
  cfg.rounds = j->T;
  cfg.batches = j->b; /* MF-D-SGD calibrates its noise for (T/b, b)-participation */
  cfg.mode = o->mode;
  cfg.latency = o->latency;
  cfg.loss = o->loss;
  cfg.seed = j->seed;
  cfg.storage = j->storage;
  ProtoObservedView *views = g_new(ProtoObservedView, j->n_acs);
  for (guint a = 0; a < j->n_acs; a++) {
    guint size;
    const guint *m = members(j, j->acs[a].set, &size);
    views[a] = (ProtoObservedView){j->acs[a].trust, m, size};
  }
  ProtoObserveOptions oo = {
      .views = views, .n_views = j->n_acs, .T = j->T, .streaming = j->streaming};
  gboolean ok = dpg_check_cancel(error);
  ProtoObservedRun *run = ok ? proto_observed_run_new(&cfg, &oo, error) : NULL;
  ok = run != NULL;
  ProtoRun *pr = run ? proto_observed_run_proto(run) : NULL;
  SimEngine *engine = pr ? proto_run_engine(pr) : NULL;
  for (guint i = 0; ok && i < j->links->len; i++) {
    const ProtoAccountLink *l = &g_array_index(j->links, ProtoAccountLink, i);
    ok = l->down ? sim_engine_set_link_down(engine, l->from, l->to, TRUE, error)
                 : sim_engine_set_link(engine, l->from, l->to,
                                       &(SimLinkParams){.latency = l->latency}, error);
    if (!ok)
      g_prefix_error(error, "--link %u:%u: ", l->from, l->to);
  }
  if (ok) {
    dpg_cancel_register(pr);
    ok = proto_observed_run_run(run, error);
    dpg_cancel_unregister(pr);
  }
  if (ok)
    proto_run_get_stats(pr, &j->stats);
  TopoGossip *wm = NULL;
  if (ok && j->muffliato)
    ok = (wm = topo_gossip_new(j->g, j->gossip, error)) != NULL;
  for (guint a = 0; ok && a < j->n_acs; a++) {
    PrivBlocks *blocks = proto_observed_run_blocks(run, a, error);
    ok = blocks && (j->acs[a].report = priv_account_report(blocks, j->g, opt, error)) != NULL &&
         muffliato_bound(j, wm, &j->acs[a], error);
    priv_blocks_free(blocks);
  }
  topo_gossip_free(wm);
  proto_observed_run_free(run);
  g_free(views);
  return ok;
}

/* The tidy privacy table's columns (SCEN_PRIVACY_CSV_COLUMNS, what
 * `dpgossip account --format csv` and a scenario's privacy.csv hold), typed. */
static DpgTable *tabulate(Job *j, Path path, const char *reason) {
  const DpgAccountOptions *o = j->o;
  DpgTable *t = dpg_table_new();
  guint c_coll = dpg_table_add_col(t, "collusion", DPG_COL_STRING);
  guint c_trust = dpg_table_add_col(t, "trust", DPG_COL_STRING);
  guint c_node = dpg_table_add_col(t, "victim", DPG_COL_INT);
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
  /* Local bounds say so in the path column, with their radius. */
  char *path_label = path == PATH_LOCAL ? g_strdup_printf("local:radius=%u", j->radius)
                                        : g_strdup(path_names[path]);
  for (guint a = 0; a < j->n_acs; a++) {
    const Accounting *ac = &j->acs[a];
    const PrivReport *r = ac->report;
    char *label = spec_attackers_label(&j->sets, ac->set);
    for (guint i = 0; i < r->n_victims; i++) {
      const PrivVictim *v = &r->victims[i];
      dpg_table_push_string(t, c_coll, label); /* a set is named by its members */
      dpg_table_push_string(t, c_trust, priv_trust_name(ac->trust));
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
      dpg_table_end_row(t);
    }
    g_free(label);
  }
  g_free(path_label);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  dpg_table_set_attr_printf(t, "nodes", "%u", j->n);
  dpg_table_set_attr(t, "gossip", topo_gossip_kind_name(j->gossip));
  dpg_table_set_attr(t, "protocol", o->protocol ? o->protocol : "dsgd");
  dpg_table_set_attr_printf(t, "rounds", "%u", j->T);
  dpg_table_set_attr_printf(t, "participation_interval", "%u", j->b);
  dpg_table_set_attr(t, "sensitivity", mf_sensitivity_name(j->sensitivity));
  dpg_table_set_attr(t, "sigma", g_ascii_dtostr(buf, sizeof buf, o->sigma));
  dpg_table_set_attr(t, "clip", g_ascii_dtostr(buf, sizeof buf, o->clip));
  dpg_table_set_attr(t, "alpha", g_ascii_dtostr(buf, sizeof buf, o->alpha));
  dpg_table_set_attr(t, "delta", g_ascii_dtostr(buf, sizeof buf, o->delta));
  dpg_table_set_attr(t, "path", path_names[path]);
  dpg_table_set_attr(t, "path_reason", reason);
  if (path == PATH_LOCAL)
    dpg_table_set_attr_printf(t, "radius", "%u", j->radius);
  dpg_table_set_attr(t, "schedule", j->sched ? o->schedule : "static");
  dpg_table_set_attr_printf(t, "seed", "%" G_GUINT64_FORMAT, j->seed);
  if (path == PATH_OBSERVER) {
    dpg_table_set_attr(t, "mode", o->mode ? o->mode : "sync");
    dpg_table_set_attr(t, "latency", o->latency ? o->latency : "constant:ms=0");
    dpg_table_set_attr(t, "loss", o->loss ? o->loss : "0");
    dpg_table_set_attr(t, "lr", g_ascii_dtostr(buf, sizeof buf, isnan(o->lr) ? 0.1 : o->lr));
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

/* A usage error (status 2) from a check's @error (freed). FALSE. */
static gboolean usage(DpgError *err, GError *error) {
  dpg_usage(err, "%s", error->message);
  g_error_free(error);
  return FALSE;
}

/* The checks of cli_cmd_account, in its order, with its messages. */
static gboolean check_options(Job *j, Path *path, ProtoMode *pmode, double *loss_p, GArray *trusts,
                              DpgError *err) {
  const DpgAccountOptions *o = j->o;
  GError *error = NULL;
  if (!proto_account_check_horizon(o->rounds, o->participation_interval, &error))
    return usage(err, error);
  j->T = (guint)o->rounds;
  j->b = (guint)o->participation_interval;
  if (!o->trust)
    return dpg_usage(err, "--trust is required: ldp, pndp or secldp"), FALSE;
  if (!proto_account_parse_trusts(o->trust, trusts, &error))
    return dpg_fail(err, error, 2), FALSE;
  if (!o->attackers || !o->attackers[0])
    return dpg_usage(err, "--attackers: give at least one node id, e.g. --attackers 0, 0,5 "
                          "(each alone), 0+5 (a collusion set) or all"),
           FALSE;
  for (guint i = 0; o->attackers[i]; i++)
    if (!spec_attackers_parse(&j->sets, o->attackers[i], 0, G_OPTION_ERROR,
                              G_OPTION_ERROR_BAD_VALUE, &error)) {
      g_prefix_error(&error, "--attackers: ");
      return dpg_fail(err, error, 2), FALSE;
    }
  if (!proto_account_resolve_protocol(o->protocol ? o->protocol : "dsgd", &j->proto, &error))
    return dpg_fail(err, error, dpg_spec_status(error)), FALSE;
  j->sensitivity = MF_SENSITIVITY_BOUND;
  if (o->sensitivity && !mf_sensitivity_parse(o->sensitivity, &j->sensitivity, &error)) {
    g_prefix_error(&error, "--sensitivity: ");
    return dpg_fail(err, error, 2), FALSE;
  }
  if (!proto_account_check_numbers(o->sigma, o->clip, o->alpha, o->delta, &error))
    return usage(err, error);
  if (o->path) {
    gboolean found = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS(path_names); i++)
      if (g_str_equal(o->path, path_names[i])) {
        *path = (Path)i;
        found = TRUE;
      }
    if (!found)
      return dpg_usage(err, "--path: unknown path '%s' (valid: auto, structured, observer, local)",
                       o->path),
             FALSE;
  }
  if (o->radius != -1 && *path != PATH_LOCAL)
    return dpg_usage(err,
                     "--radius %d: the radius is for --path local (certified bounds around "
                     "the attackers)",
                     o->radius),
           FALSE;
  if (*path == PATH_LOCAL && o->radius == -1)
    return dpg_usage(err, "--path local needs --radius R: the hops around the attackers whose "
                          "victims are bounded (R >= 1; larger is tighter and slower)"),
           FALSE;
  if (*path == PATH_LOCAL && o->radius < 1)
    return dpg_usage(err, "--radius must be at least 1 (got %d): radius 0 holds no victim",
                     o->radius),
           FALSE;
  j->radius = *path == PATH_LOCAL ? (guint)o->radius : 0;
  if (!proto_account_parse_run_options(o->mode, o->latency, o->loss, pmode, loss_p, &error))
    return dpg_fail(err, error, 2), FALSE;
  for (guint i = 0; o->links && o->links[i]; i++) {
    ProtoAccountLink l;
    if (!proto_account_parse_link(o->links[i], &l, &error))
      return dpg_fail(err, error, 2), FALSE;
    g_array_append_val(j->links, l);
  }
  if (!proto_account_check_lr(o->lr, &error))
    return usage(err, error);
  j->storage = SIM_LIN_SPARSE;
  if (o->storage) {
    if (g_str_equal(o->storage, "dense"))
      j->storage = SIM_LIN_DENSE;
    else if (!g_str_equal(o->storage, "sparse"))
      return dpg_usage(err, "--storage: unknown provenance storage '%s' (valid: sparse, dense)",
                       o->storage),
             FALSE;
  }
  /* Streaming is the default; sparse storage is what it rebases. */
  j->streaming = j->storage != SIM_LIN_DENSE;
  if (o->accountant) {
    if (g_str_equal(o->accountant, "streaming") || g_str_equal(o->accountant, "dense"))
      j->streaming = g_str_equal(o->accountant, "streaming");
    else
      return dpg_usage(err, "--accountant: unknown accountant '%s' (valid: dense, streaming)",
                       o->accountant),
             FALSE;
  }
  if (!proto_account_check_accountant(j->streaming, j->storage, &error))
    return usage(err, error);
  if (o->seed && !g_ascii_string_to_unsigned(o->seed, 10, 0, G_MAXUINT64, &j->seed, &error)) {
    g_prefix_error(&error, "--seed: ");
    return dpg_fail(err, error, 2), FALSE;
  }
  if (*path == PATH_LOCAL && !j->proto.structured)
    return dpg_usage(err,
                     "--path local bounds the structured path's accounting: it knows dsgd, "
                     "muffliato, antipgd and mfdsgd/mafalda with a given C, not '%s' (use "
                     "--path observer or auto)",
                     o->protocol ? o->protocol : "dsgd"),
           FALSE;
  if (*path == PATH_STRUCTURED || *path == PATH_LOCAL) {
    ProtoAccountStructuredAsk ask = {.known = j->proto.structured,
                                     .protocol = o->protocol ? o->protocol : "dsgd",
                                     .async_mode = o->mode && pmode->kind != PROTO_MODE_SYNC,
                                     .latency = o->latency != NULL,
                                     .loss = o->loss != NULL,
                                     .links = o->links && o->links[0],
                                     .lr = !isnan(o->lr),
                                     .storage = o->storage != NULL,
                                     .accountant = o->accountant != NULL};
    if (!proto_account_check_structured(&ask, &error)) {
      if (*path == PATH_LOCAL)
        g_prefix_error(&error, "--path local: ");
      return usage(err, error);
    }
  }
  if (o->compare) {
    gboolean pndp = FALSE;
    for (guint i = 0; i < trusts->len; i++)
      pndp |= g_array_index(trusts, PrivTrust, i) == PRIV_TRUST_PNDP;
    if (!proto_account_check_compare(o->compare, j->proto.vt->name, pndp, o->schedule, &error))
      return usage(err, error);
    j->muffliato = TRUE;
  }
  if (!dpg_graph_gossip(&o->graph, &j->gossip, &error))
    return dpg_fail(err, error, 2), FALSE;
  j->g = dpg_graph_build(&o->graph, &error);
  if (!j->g)
    return dpg_fail(err, error, dpg_graph_status(&o->graph, error)), FALSE;
  j->n = topo_graph_n_nodes(j->g);
  /* Named as the command line names it: the file or the generator spec. */
  const char *label = o->graph.path ? o->graph.path : o->graph.generate;
  if (!spec_attackers_check(&j->sets, j->n, label, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            &error)) {
    g_prefix_error(&error, "--attackers: ");
    return dpg_fail(err, error, 2), FALSE;
  }
  spec_attackers_expand(&j->sets, j->n);
  for (guint i = 0; i < j->links->len; i++) {
    const ProtoAccountLink *l = &g_array_index(j->links, ProtoAccountLink, i);
    if (l->from >= j->n || l->to >= j->n || l->from == l->to)
      return dpg_usage(err, "--link %u:%u: nodes must be distinct and below %u", l->from, l->to,
                       j->n),
             FALSE;
  }
  if (o->schedule && !g_str_equal(o->schedule, "static")) {
    j->sched = topo_schedule_new(o->schedule, j->g, j->gossip, j->seed, &error);
    if (!j->sched) {
      g_prefix_error(&error, "--schedule: ");
      gboolean io = error->domain == TOPO_ERROR && error->code == TOPO_ERROR_IO;
      return dpg_fail(err, error, io ? 1 : 2), FALSE;
    }
  }
  return TRUE;
}

DpgTable *dpg_account(const DpgAccountOptions *o, DpgError *err) {
  dpg_enter();
  Job j = {.o = o, .links = g_array_new(FALSE, FALSE, sizeof(ProtoAccountLink))};
  spec_attackers_init(&j.sets);
  GArray *trusts = g_array_new(FALSE, FALSE, sizeof(PrivTrust));
  Path path = PATH_AUTO;
  ProtoMode pmode;
  double loss_p = 0.0;
  const char *reason = NULL;
  DpgTable *t = NULL;
  GError *error = NULL;
  if (!check_options(&j, &path, &pmode, &loss_p, trusts, err))
    goto out;
  if (path == PATH_AUTO) {
    ProtoAccountCase pc = {.known = j.proto.structured,
                           .mode = pmode.kind,
                           .loss = loss_p,
                           .n_links = j.links->len,
                           .run_options = o->latency || !isnan(o->lr) || o->storage};
    path = proto_account_plan(&pc, &reason) == PROTO_ACCOUNT_STRUCTURED ? PATH_STRUCTURED
                                                                        : PATH_OBSERVER;
  } else {
    reason = path == PATH_LOCAL        ? "asked: --path local"
             : path == PATH_STRUCTURED ? "asked: --path structured"
                                       : "asked: --path observer";
  }
  guint n_sets = spec_attackers_n_sets(&j.sets, j.n);
  j.n_acs = n_sets * trusts->len;
  j.acs = g_new0(Accounting, j.n_acs);
  for (guint i = 0; i < n_sets; i++)
    for (guint k = 0; k < trusts->len; k++)
      j.acs[i * trusts->len + k] = (Accounting){.set = i,
                                                .trust = g_array_index(trusts, PrivTrust, k)};
  PrivAccountOptions opt = {
      .b = j.b, .sensitivity = j.sensitivity, .alpha = o->alpha, .delta = o->delta};
  gboolean structured = path == PATH_STRUCTURED || path == PATH_LOCAL;
  gboolean ok = structured ? run_structured(&j, &opt, &error) : run_observer(&j, &opt, &error);
  if (!ok) {
    dpg_fail(err, error, structured ? 1 : dpg_spec_status(error));
    goto out;
  }
  t = tabulate(&j, path, reason);
out:
  for (guint a = 0; a < j.n_acs; a++) {
    g_free(j.acs[a].muff);
    priv_report_free(j.acs[a].report);
  }
  g_free(j.acs);
  g_free(j.C_local);
  proto_account_protocol_clear(&j.proto);
  spec_attackers_clear(&j.sets);
  g_array_unref(trusts);
  g_array_unref(j.links);
  topo_schedule_free(j.sched);
  topo_graph_free(j.g);
  return t;
}
