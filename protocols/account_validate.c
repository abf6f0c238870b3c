/*
 * protocols/account_validate.c: proto_account_validate, every check of an
 * accounting request that needs no graph, once for every front end. The
 * order is the order of the messages a user fixes (what is accounted, the
 * protocol and its numbers, the simulated run, what excludes what), and
 * every message names the command line's option, which dpg_account and the
 * Python package name alike.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "protocols/internal.h"

void proto_account_request_init(ProtoAccountRequest *r) {
  g_return_if_fail(r != NULL);
  *r = (ProtoAccountRequest){.interval = 1,
                             .sigma = 1.0,
                             .clip = 1.0,
                             .alpha = 2.0,
                             .delta = 1e-6,
                             .gossip = TOPO_GOSSIP_UNIFORM,
                             .radius = -1,
                             .lr = NAN};
}

void proto_account_request_run_config(const ProtoAccountRequest *r, ProtoRunConfig *cfg) {
  g_return_if_fail(r != NULL && cfg != NULL);
  proto_run_config_init(cfg);
  cfg->protocol = r->protocol ? r->protocol : "dsgd";
  cfg->gossip = r->gossip;
  cfg->sigma = r->sigma;
  cfg->clip = r->clip;
  if (!isnan(r->lr))
    cfg->lr = r->lr;
  if (r->rounds > 0 && r->interval > 0) {
    cfg->rounds = (guint)r->rounds;
    cfg->batches = r->batches ? r->batches : (guint)r->interval;
    cfg->epochs = cfg->rounds / cfg->batches;
  }
  cfg->mode = r->mode;
  cfg->latency = r->latency;
  cfg->loss = r->loss;
  if (r->seed == NULL || !g_ascii_string_to_unsigned(r->seed, 10, 0, G_MAXUINT64, &cfg->seed, NULL))
    cfg->seed = 0;
  cfg->storage = r->storage && g_str_equal(r->storage, "dense") ? SIM_LIN_DENSE : SIM_LIN_SPARSE;
}

void proto_train_run_config(const ProtoAccountRequest *r, const ProtoTrainTask *task,
                            const TopoGraph *graph, TopoSchedule *schedule, gboolean observed,
                            ProtoRunConfig *cfg) {
  g_return_if_fail(r != NULL && task != NULL && cfg != NULL);
  proto_account_request_run_config(r, cfg);
  cfg->graph = schedule != NULL ? NULL : graph;
  cfg->schedule = schedule;
  cfg->dataset = task->dataset;
  cfg->model = task->model;
  cfg->partition = task->partition;
  if (task->test_fraction != 0)
    cfg->test_fraction = task->test_fraction;
  cfg->compute_ms = task->compute_ms;
  cfg->eval_every = task->eval_every;
  if (task->threads != 0)
    cfg->threads = task->threads;
  cfg->eval_nodes = task->eval_nodes;
  cfg->eval_rows = task->eval_rows;
  /* The observer's views read the provenance; without them nothing does. */
  cfg->storage = observed ? SIM_LIN_SPARSE : SIM_LIN_NONE;
}

ProtoAccountJob *proto_account_job_for_run(const ProtoAccountRequest *r, const TopoGraph *g,
                                           gboolean *usage, GError **error) {
  g_return_val_if_fail(r != NULL && g != NULL && usage != NULL, NULL);
  ProtoAccountRequest priv = *r;
  priv.trust = r->trust ? r->trust : "ldp";
  priv.every_node = TRUE;
  /* The views in the order training runs always had them. */
  priv.trust_major = TRUE;
  ProtoMode mode;
  if (!proto_account_parse_run_options(r->mode, r->latency, r->loss, &mode, NULL, NULL))
    priv.mode = priv.latency = priv.loss = NULL;
  ProtoAccountRefusal refusal;
  GError *e = NULL;
  ProtoAccountJob *j = proto_account_validate(&priv, &refusal, &e);
  /* A training run's timing has its compute time and data: a delivery
   * record of the accounting run alone would not be its own. */
  if (j != NULL)
    j->no_record = TRUE;
  if (j != NULL && proto_account_job_plan(j, g, "the graph", &refusal, &e))
    return j;
  /* Usage errors all, but a protocol or its file that failed. */
  *usage = refusal == PROTO_REFUSED_RULE || refusal == PROTO_REFUSED_VALUE ||
           e->domain == G_OPTION_ERROR || e->domain == PROTO_ERROR;
  g_propagate_error(error, e);
  proto_account_job_free(j);
  return NULL;
}

/* Sets @refusal and a G_OPTION_ERROR_BAD_VALUE of @fmt. FALSE. */
static gboolean refuse(ProtoAccountRefusal *refusal, ProtoAccountRefusal kind, GError **error,
                       const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static gboolean refuse(ProtoAccountRefusal *refusal, ProtoAccountRefusal kind, GError **error,
                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  proto_bad_valuev(error, fmt, ap);
  va_end(ap);
  *refusal = kind;
  return FALSE;
}

/* @ok, else the refusal @kind of the error already set. */
static gboolean kind_of(gboolean ok, ProtoAccountRefusal *refusal, ProtoAccountRefusal kind) {
  if (!ok)
    *refusal = kind;
  return ok;
}

/* A spec's refusal: a value its parser refused (the user's typing), or a
 * file it names that cannot be read (the run's). */
static gboolean spec_kind(gboolean ok, const GError *e, ProtoAccountRefusal *refusal) {
  return kind_of(ok, refusal,
                 !ok && proto_error_is_unreadable(e) ? PROTO_REFUSED_FILE : PROTO_REFUSED_VALUE);
}

/* Every node's LDP guarantee: the sets {0} and {1} (see every_node). */
static gboolean every_node(ProtoAccountJob *j, ProtoAccountRefusal *refusal, GError **error) {
  for (guint i = 0; i < j->trusts->len; i++) {
    PrivTrust t = g_array_index(j->trusts, PrivTrust, i);
    if (t != PRIV_TRUST_LDP)
      return refuse(refusal, PROTO_REFUSED_RULE, error,
                    "--trust %s: say who observes with --attackers (e.g. --attackers 0, or 0+5 "
                    "for a collusion set); only ldp needs none",
                    priv_trust_name(t));
  }
  j->every_node = TRUE;
  return spec_attackers_parse(&j->sets, "0", 0, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, error) &&
         spec_attackers_parse(&j->sets, "1", 0, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, error);
}

static int cmp_guint(const void *a, const void *b) {
  guint x = *(const guint *)a, y = *(const guint *)b;
  return (x > y) - (x < y);
}

/* The caller's named sets, each sorted, in their order. */
static gboolean named_sets(const ProtoAccountRequest *r, ProtoAccountJob *j,
                           ProtoAccountRefusal *refusal, GError **error) {
  if (r->attackers && r->attackers[0])
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--attackers: give attacker ids or named sets, not both");
  j->set_names = g_new0(char *, r->n_sets + 1);
  for (guint i = 0; i < r->n_sets; i++) {
    const ProtoAccountSet *set = &r->sets[i];
    const char *name = set->name ? set->name : "";
    if (set->nodes == NULL || set->n_nodes == 0)
      return refuse(refusal, PROTO_REFUSED_VALUE, error, "--attackers: the set '%s' has no member",
                    name);
    guint start = j->sets.ids->len;
    g_array_append_vals(j->sets.ids, set->nodes, set->n_nodes);
    guint *m = &g_array_index(j->sets.ids, guint, start);
    qsort(m, set->n_nodes, sizeof(guint), cmp_guint);
    for (guint k = 1; k < set->n_nodes; k++)
      if (m[k] == m[k - 1])
        return refuse(refusal, PROTO_REFUSED_VALUE, error,
                      "--attackers: node %u appears twice in the set '%s'", m[k], name);
    guint end = j->sets.ids->len;
    g_array_append_val(j->sets.off, end);
    j->set_names[i] = g_strdup(name);
  }
  return TRUE;
}

/* T, b, the trust models and the attacker sets. */
static gboolean check_what(const ProtoAccountRequest *r, ProtoAccountJob *j,
                           ProtoAccountRefusal *refusal, GError **error) {
  if (!proto_account_check_horizon(r->rounds, r->interval, error))
    return kind_of(FALSE, refusal, PROTO_REFUSED_RULE);
  j->T = (guint)r->rounds;
  j->b = (guint)r->interval;
  if (r->batches && j->T % r->batches != 0)
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--batches %u must divide --rounds T = %u (the run's T/batches epochs)",
                  r->batches, j->T);
  j->run_b = r->batches ? r->batches : j->b;
  if (!r->trust) {
    char *models = priv_trust_list(", ", " or ");
    refuse(refusal, PROTO_REFUSED_RULE, error, "--trust is required: %s", models);
    g_free(models);
    return FALSE;
  }
  if (!proto_account_parse_trusts(r->trust, j->trusts, error))
    return kind_of(FALSE, refusal, PROTO_REFUSED_VALUE);
  if (r->n_sets > 0)
    return named_sets(r, j, refusal, error);
  if ((!r->attackers || !r->attackers[0]) && r->every_node)
    return every_node(j, refusal, error);
  if (!r->attackers || !r->attackers[0])
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--attackers: give at least one node id, e.g. --attackers 0, 0,5 (each alone), "
                  "0+5 (a collusion set) or all");
  for (guint i = 0; r->attackers[i]; i++)
    if (!spec_attackers_parse(&j->sets, r->attackers[i], 0, G_OPTION_ERROR,
                              G_OPTION_ERROR_BAD_VALUE, error)) {
      g_prefix_error(error, "--attackers: ");
      return kind_of(FALSE, refusal, PROTO_REFUSED_VALUE);
    }
  return TRUE;
}

/* The protocol, its sensitivity and numbers. */
static gboolean check_protocol(const ProtoAccountRequest *r, ProtoAccountJob *j,
                               ProtoAccountRefusal *refusal, GError **error) {
  j->protocol = g_strdup(r->protocol ? r->protocol : "dsgd");
  if (!proto_account_resolve_protocol(j->protocol, &j->proto, error))
    return kind_of(FALSE, refusal, PROTO_REFUSED_PROTOCOL);
  j->label = g_strdup(r->label ? r->label : j->protocol);
  if (r->C_local) {
    const char *name = j->proto.vt->name;
    if (!g_str_equal(name, "mfdsgd") && !g_str_equal(name, "mafalda") &&
        !g_str_equal(name, "antipgd"))
      return refuse(refusal, PROTO_REFUSED_RULE, error,
                    "--protocol %s: a given C_local is MF-D-SGD's (mfdsgd, mafalda, antipgd)",
                    j->label);
    /* The caller's C: the structured path needs nothing of the spec. */
    j->C_given = r->C_local;
    j->proto.protocol = PRIV_PROTOCOL_MFDSGD;
    j->proto.structured = TRUE;
  }
  if (r->sensitivity && !mf_sensitivity_parse(r->sensitivity, &j->sensitivity, error)) {
    g_prefix_error(error, "--sensitivity: ");
    return kind_of(FALSE, refusal, PROTO_REFUSED_VALUE);
  }
  j->sensitivity_asked = j->sensitivity;
  if (!proto_account_check_numbers(r->sigma, r->clip, r->alpha, r->delta, error))
    return kind_of(FALSE, refusal, PROTO_REFUSED_VALUE);
  j->sigma = r->sigma;
  /* DECOR's secrets without local noise: the structured path accounts in
   * units of the local noise, the observer path does it. */
  if (j->proto.protocol == PRIV_PROTOCOL_DECOR && j->sigma == 0 && !isnan(j->proto.sigma_secret) &&
      j->proto.sigma_secret > 0)
    j->proto.structured = FALSE;
  j->clip = r->clip;
  j->alpha = r->alpha;
  j->delta = r->delta;
  return TRUE;
}

/* The path and the radius of the local path. */
static gboolean check_path(const ProtoAccountRequest *r, ProtoAccountJob *j,
                           ProtoAccountRefusal *refusal, GError **error) {
  gboolean local = r->path && g_str_equal(r->path, "local");
  if (r->path && !g_str_equal(r->path, "auto")) {
    if (!g_str_equal(r->path, "structured") && !g_str_equal(r->path, "observer") && !local)
      return refuse(refusal, PROTO_REFUSED_RULE, error,
                    "--path: unknown path '%s' (valid: auto, structured, observer, local)",
                    r->path);
    j->path_auto = FALSE;
    j->path = g_str_equal(r->path, "observer") ? PROTO_ACCOUNT_OBSERVER : PROTO_ACCOUNT_STRUCTURED;
  }
  if (r->radius != -1 && !local)
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--radius %d: the radius is for --path local (certified bounds around the "
                  "attackers)",
                  r->radius);
  if (r->tightness != 0 && !local)
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--tightness %g: the target mu / mu_lower is for --path local (certified "
                  "bounds around the attackers)",
                  r->tightness);
  if (r->tightness != 0 && r->radius != -1)
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--tightness and --radius %d: give one (--tightness grows the radius from 1 "
                  "until every victim's mu / mu_lower is at most the target)",
                  r->radius);
  if (r->tightness != 0 && !(r->tightness >= 1 && isfinite(r->tightness)))
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--tightness must be a finite number >= 1 (got %g): the target ratio "
                  "mu / mu_lower of each victim's certified interval",
                  r->tightness);
  if (local && r->radius == -1 && r->tightness == 0)
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--path local needs --radius R (the hops around the attackers whose victims "
                  "are bounded, R >= 1; larger is tighter and slower) or --tightness X (grow "
                  "the radius until every victim's mu / mu_lower <= X)");
  if (local && r->tightness == 0 && r->radius < 1)
    return refuse(refusal, PROTO_REFUSED_RULE, error,
                  "--radius must be at least 1 (got %d): radius 0 holds no victim", r->radius);
  j->tightness = local ? r->tightness : 0;
  j->radius = !local ? 0 : r->tightness != 0 ? 1 : (guint)r->radius;
  return TRUE;
}

/* What only a simulated run has: mode, latency, loss, links, lr, storage,
 * accountant; and the seed. */
static gboolean check_run(const ProtoAccountRequest *r, ProtoAccountJob *j,
                          ProtoAccountRefusal *refusal, GError **error) {
  if (!proto_account_parse_run_options(r->mode, r->latency, r->loss, &j->mode, &j->loss, error))
    /* The loss rule and the parsers' option errors are usage rules. */
    return (*error)->domain == G_OPTION_ERROR ? kind_of(FALSE, refusal, PROTO_REFUSED_RULE)
                                              : spec_kind(FALSE, *error, refusal);
  j->mode_spec = g_strdup(r->mode);
  j->latency_spec = g_strdup(r->latency);
  j->loss_spec = g_strdup(r->loss);
  GPtrArray *specs = g_ptr_array_new();
  for (guint i = 0; r->links && r->links[i]; i++) {
    ProtoAccountLink l;
    if (!proto_account_parse_link(r->links[i], &l, error)) {
      g_ptr_array_free(specs, TRUE);
      return kind_of(FALSE, refusal, PROTO_REFUSED_VALUE);
    }
    g_array_append_val(j->links, l);
    g_ptr_array_add(specs, g_strdup(r->links[i]));
  }
  g_ptr_array_add(specs, NULL);
  j->link_specs = (char **)g_ptr_array_free(specs, FALSE);
  if (!proto_account_check_lr(r->lr, error))
    return kind_of(FALSE, refusal, PROTO_REFUSED_RULE);
  j->lr = isnan(r->lr) ? 0.1 : r->lr;
  j->run_options = r->latency || !isnan(r->lr) || r->storage;
  if (r->storage) {
    if (g_str_equal(r->storage, "dense"))
      j->storage = SIM_LIN_DENSE;
    else if (!g_str_equal(r->storage, "sparse"))
      return refuse(refusal, PROTO_REFUSED_RULE, error,
                    "--storage: unknown provenance storage '%s' (valid: sparse, dense)",
                    r->storage);
  }
  /* Streaming is the default; sparse storage is what it rebases, so an
   * explicit dense storage keeps the dense accountant. */
  j->streaming = j->storage != SIM_LIN_DENSE;
  if (r->accountant) {
    if (!g_str_equal(r->accountant, "streaming") && !g_str_equal(r->accountant, "dense"))
      return refuse(refusal, PROTO_REFUSED_RULE, error,
                    "--accountant: unknown accountant '%s' (valid: dense, streaming)",
                    r->accountant);
    j->streaming = g_str_equal(r->accountant, "streaming");
  }
  if (!proto_account_check_accountant(j->streaming, j->storage, error))
    return kind_of(FALSE, refusal, PROTO_REFUSED_RULE);
  if (r->seed && !g_ascii_string_to_unsigned(r->seed, 10, 0, G_MAXUINT64, &j->seed, error)) {
    g_prefix_error(error, "--seed: ");
    return kind_of(FALSE, refusal, PROTO_REFUSED_VALUE);
  }
  return TRUE;
}

/* An asked structured or local path accounts a synchronous run it does not
 * simulate; --compare. */
static gboolean check_exclusions(const ProtoAccountRequest *r, ProtoAccountJob *j,
                                 ProtoAccountRefusal *refusal, GError **error) {
  if (!j->path_auto && j->path == PROTO_ACCOUNT_STRUCTURED && j->radius && !j->proto.structured) {
    /* What the structured path cannot account (Zip-DL, plugins, DECOR's
     * secrets without local noise, a C fitted exactly inside the run):
     * the ball on the observer path, the whole run simulated
     * (protocols/account_ball.c, docs/local-bounds.md), its mu_lower
     * too (account_ball_lower.c), so --tightness grows it. */
    j->path = PROTO_ACCOUNT_OBSERVER;
  }
  if (!j->path_auto && j->path == PROTO_ACCOUNT_STRUCTURED) {
    gboolean async = r->mode && j->mode.kind != PROTO_MODE_SYNC;
    if (j->radius && async && j->proto.structured && proto_account_job_recordable(j)) {
      /* The ball's part of the run's record (docs/local-bounds.md). */
      /* MF-D-SGD's record is D-SGD's (its noise never times a message);
       * the ball is accounted with its one C or each ball node with its
       * own class's C, as in the synchronous case
       * (tests/protocols/test_account_observer.c, local/deliveries;
       * test_account_pernode.c, local-async); DECOR's ball takes the
       * ball-shell secrets on the schedule's edges (docs/local-bounds.md). */
      if (j->schedule_spec)
        return refuse(refusal, PROTO_REFUSED_RULE, error,
                      "--path local with --mode %s counts hops on the static graph: drop "
                      "--schedule %s, or use --path structured or auto",
                      r->mode, j->schedule_spec);
    }
    ProtoAccountStructuredAsk ask = {.known = j->proto.structured,
                                     .protocol = j->protocol,
                                     .async_mode = async,
                                     .latency = r->latency != NULL,
                                     .loss = r->loss != NULL,
                                     .links = r->links && r->links[0],
                                     .lr = !isnan(r->lr),
                                     .storage = r->storage != NULL,
                                     .accountant = r->accountant != NULL,
                                     .recordable = proto_account_job_recordable(j),
                                     .local = j->radius > 0};
    if (!proto_account_check_structured(&ask, error))
      return kind_of(FALSE, refusal, PROTO_REFUSED_RULE);
  }
  if (r->compare) {
    gboolean pndp = FALSE;
    for (guint i = 0; i < j->trusts->len; i++)
      pndp |= g_array_index(j->trusts, PrivTrust, i) == PRIV_TRUST_PNDP;
    if (!proto_account_check_compare(r->compare, j->proto.vt->name, pndp, j->schedule_spec, error))
      return kind_of(FALSE, refusal, PROTO_REFUSED_RULE);
    j->compare_muffliato = TRUE;
  }
  return TRUE;
}

ProtoAccountJob *proto_account_validate(const ProtoAccountRequest *r, ProtoAccountRefusal *refusal,
                                        GError **error) {
  ProtoAccountRefusal scratch;
  if (refusal == NULL)
    refusal = &scratch;
  *refusal = PROTO_REFUSED_RULE;
  g_return_val_if_fail(r != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  ProtoAccountJob *j = g_new0(ProtoAccountJob, 1);
  j->trusts = g_array_new(FALSE, FALSE, sizeof(PrivTrust));
  j->links = g_array_new(FALSE, FALSE, sizeof(ProtoAccountLink));
  spec_attackers_init(&j->sets);
  j->path_auto = TRUE;
  j->path = PROTO_ACCOUNT_STRUCTURED;
  j->mode = (ProtoMode){.kind = PROTO_MODE_SYNC};
  j->storage = SIM_LIN_SPARSE;
  j->sensitivity = MF_SENSITIVITY_AUTO;
  j->gossip = r->gossip;
  j->schedule_spec = r->schedule && !g_str_equal(r->schedule, "static") ? g_strdup(r->schedule)
                                                                        : NULL;
  j->schedule_given = j->schedule_spec ? r->built_schedule : NULL;
  j->threads = r->threads;
  j->no_epsilon = r->no_epsilon;
  j->trust_major = r->trust_major;
  j->progress = r->progress;
  j->progress_data = r->progress_data;
  j->cancel = r->cancel;
  j->on_run = r->on_run;
  j->on_run_data = r->on_run_data;
  GError *e = NULL;
  if (check_what(r, j, refusal, &e) && check_protocol(r, j, refusal, &e) &&
      check_path(r, j, refusal, &e) && check_run(r, j, refusal, &e) &&
      check_exclusions(r, j, refusal, &e)) {
    /* The observer path's run: the request's, with the job's strings. */
    proto_account_request_run_config(r, &j->run);
    j->run.protocol = j->protocol;
    j->run.mode = j->mode_spec;
    j->run.latency = j->latency_spec;
    j->run.loss = j->loss_spec;
    return j;
  }
  g_propagate_error(error, e);
  proto_account_job_free(j);
  return NULL;
}

/* The protocol spec, mode, latency and loss of a training run, as they
 * parse (the run refuses what parses but does not fit, e.g. loss in sync
 * mode, with its own message). */
static gboolean train_specs(const ProtoTrainOptions *o, GError **error) {
  const ProtoVTable *vt;
  ProtoParams *params = NULL;
  ProtoMode mode;
  SimLatency lat;
  double p;
  if (!proto_spec_parse(o->protocol, &vt, &params, error))
    return FALSE;
  proto_params_free(params);
  if (!proto_mode_parse(o->mode, &mode, error))
    return FALSE;
  if (o->latency != NULL && !sim_latency_parse(o->latency, &lat, error)) {
    g_prefix_error(error, "--latency: ");
    return FALSE;
  }
  if (o->loss != NULL && !sim_loss_parse(o->loss, &p, error)) {
    g_prefix_error(error, "--loss: ");
    return FALSE;
  }
  return TRUE;
}

gboolean proto_train_validate(ProtoTrainOptions *o, ProtoAccountRefusal *refusal, GError **error) {
  g_return_val_if_fail(o != NULL && refusal != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  ProtoAccountRefusal rule = PROTO_REFUSED_RULE;
  if (o->epochs <= 0 || o->batches <= 0 || (guint64)o->epochs * (guint64)o->batches > G_MAXINT32)
    return refuse(refusal, rule, error, "--epochs and --batches must be positive (got %d and %d)",
                  o->epochs, o->batches);
  if (o->eval_every < 0 || o->threads <= 0)
    return refuse(refusal, rule, error, "--eval-every must be >= 0 and --threads >= 1");
  o->task.eval_every = (guint)o->eval_every;
  o->task.threads = (guint)o->threads;
  o->seed_value = 0;
  /* GLib's int64 option would turn -1 into 2^64 - 1: the seed is text. */
  if (o->seed != NULL &&
      !g_ascii_string_to_unsigned(o->seed, 10, 0, G_MAXUINT64, &o->seed_value, NULL))
    return refuse(refusal, rule, error, "--seed: '%s' is not an integer in [0, 2^64 - 1]", o->seed);
  /* An empty test set makes every test loss NaN: refuse it rather than
   * report "nan" as a result. */
  if (!(o->task.test_fraction > 0.0 && o->task.test_fraction < 1.0))
    return refuse(refusal, rule, error,
                  "--test-fraction must be in (0, 1) (got %g): the test loss needs test records",
                  o->task.test_fraction);
  o->nonprivate = o->protocol != NULL && strcmp(o->protocol, PROTO_NONPRIVATE) == 0;
  if (o->nonprivate && !isnan(o->sigma) && o->sigma != 0)
    return refuse(refusal, rule, error, "--protocol nonprivate adds no noise: drop --sigma %g",
                  o->sigma);
  if (o->nonprivate || o->protocol == NULL)
    o->protocol = "dsgd";
  o->sigma = o->nonprivate ? 0.0 : isnan(o->sigma) ? 1.0 : o->sigma;
  /* Checked here, not by the runtime, so that a bad value is a usage error
   * like a bad flag. */
  if (!(isfinite(o->sigma) && o->sigma >= 0) || !(isfinite(o->clip) && o->clip > 0) ||
      !(isfinite(o->lr) && o->lr > 0) || !(isfinite(o->task.compute_ms) && o->task.compute_ms >= 0))
    return refuse(refusal, rule, error,
                  "--sigma must be >= 0, --clip and --lr > 0, --compute-ms >= 0, all finite (got "
                  "%g, %g, %g, %g)",
                  o->sigma, o->clip, o->lr, o->task.compute_ms);
  gboolean ok = train_specs(o, error);
  return spec_kind(ok, ok ? NULL : *error, refusal);
}

void proto_train_request(const ProtoTrainOptions *o, ProtoAccountRequest *r) {
  g_return_if_fail(o != NULL && r != NULL);
  proto_account_request_init(r);
  r->protocol = o->protocol;
  r->rounds = o->epochs * o->batches;
  r->interval = o->batches;
  r->sigma = o->sigma;
  r->clip = o->clip;
  r->lr = o->lr;
  r->mode = o->mode;
  r->latency = o->latency;
  r->loss = o->loss;
  r->seed = o->seed;
  r->gossip = o->gossip;
  r->schedule = o->schedule;
  r->trust = o->trust;
  r->attackers = o->attackers;
  r->alpha = o->alpha;
  r->delta = o->delta;
}
