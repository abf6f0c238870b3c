/*
 * protocols/account_request.c: a validated accounting request planned on a
 * graph and executed: the one path from any front end's request to the
 * per-victim reports (protocols.h, "The accounting request"). The two
 * paths are the shared pipeline's (account_plan.c, observed_run.c); what
 * this file adds is their one assembly: the accountings, the run's
 * configuration, the Muffliato comparison, progress and cancellation.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include "protocols/internal.h"

void proto_account_job_free(ProtoAccountJob *j) {
  if (j == NULL)
    return;
  for (guint a = 0; a < j->n_acs; a++) {
    g_free(j->acs[a].muff);
    g_free(j->acs[a].timing_fallback);
    priv_report_free(j->acs[a].report);
  }
  g_free(j->acs);
  g_free(j->tightness_stop);
  g_free(j->protocol);
  g_free(j->label);
  proto_account_protocol_clear(&j->proto);
  spec_attackers_clear(&j->sets);
  g_array_unref(j->trusts);
  g_array_unref(j->links);
  g_strfreev(j->link_specs);
  g_strfreev(j->set_names);
  g_free(j->mode_spec);
  g_free(j->latency_spec);
  g_free(j->loss_spec);
  g_free(j->schedule_spec);
  if (j->schedule != j->schedule_given)
    topo_schedule_free(j->schedule);
  g_free(j->C_local);
  mf_cset_clear(&j->cset);
  proto_deliveries_free(j->deliveries);
  g_free(j->views);
  topo_gossip_free(j->w);
  topo_gossip_free(j->wm);
  g_free(j);
}

const char *proto_account_job_path_name(const ProtoAccountJob *j) {
  g_return_val_if_fail(j != NULL, NULL);
  return j->radius ? "local" : j->path == PROTO_ACCOUNT_STRUCTURED ? "structured" : "observer";
}

const char *proto_account_job_bound_name(const ProtoAccountJob *j, const PrivVictim *v) {
  g_return_val_if_fail(j != NULL && v != NULL, NULL);
  if (v->ldp_capped)
    return "ldp-cap";
  if (j->radius)
    return "local";
  return j->sensitivity == MF_SENSITIVITY_EXACT ? "exact" : "thm5.2";
}

const char *proto_account_job_sensitivity_reason(const ProtoAccountJob *j) {
  g_return_val_if_fail(j != NULL, NULL);
  if (j->sensitivity_asked != MF_SENSITIVITY_AUTO)
    return j->sensitivity == MF_SENSITIVITY_EXACT ? "asked: --sensitivity exact"
                                                  : "asked: --sensitivity bound";
  return j->sensitivity == MF_SENSITIVITY_EXACT
             ? "auto: exact costs under 1 CPU s, estimated"
             : "auto: exact would cost over 1 CPU s, estimated; --sensitivity exact forces it";
}

/* MF-D-SGD in stale mode: whether @j's C has the noise state the Kalman
 * engine carries beside the delayed slots (a C it cannot build here, the
 * path will say why). O(T^4 / 12). */
static gboolean stale_noise_fits(const ProtoAccountJob *j) {
  if (j->C_given)
    return priv_structured_noise_state_fits(j->C_given, j->T, NULL);
  if (proto_c_spec_is_cset(j->proto.c_spec)) {
    /* A C per class: each node carries its own class's state, so every
     * class's C needs one (a file the path cannot read, it will say why). */
    MfCSet set = {0};
    gboolean fits = TRUE;
    if (proto_cmatrix_load_cset(j->proto.c_spec, j->T, j->n, &set, NULL))
      for (guint c = 0; c < set.n_classes && fits; c++)
        fits = priv_structured_noise_state_fits(set.C + (gsize)c * j->T * j->T, j->T, NULL);
    mf_cset_clear(&set);
    return fits;
  }
  ProtoCRecipe r = {.spec = j->proto.c_spec,
                    .T = j->T,
                    .k = j->T / MAX(j->run_b, 1u),
                    .b = MAX(j->run_b, 1u),
                    .band = j->proto.band};
  GError *err = NULL;
  double *C = proto_c_local(&r, &err);
  gboolean fits = C == NULL || priv_structured_noise_state_fits(C, j->T, NULL);
  g_clear_error(&err);
  g_free(C);
  return fits;
}

gboolean proto_account_job_recordable(const ProtoAccountJob *j) {
  /* Which protocols in which modes: proto_account_recordable; MF-D-SGD in
   * stale mode when its C's noise has a low-order state. */
  if (j->no_record || !j->proto.structured ||
      !proto_account_recordable(j->proto.protocol, j->mode.kind))
    return FALSE;
  return j->proto.protocol != PRIV_PROTOCOL_MFDSGD || j->mode.kind != PROTO_MODE_STALE ||
         stale_noise_fits(j);
}

const char *proto_account_job_distance_graph(const ProtoAccountJob *j) {
  g_return_val_if_fail(j != NULL, NULL);
  if (j->schedule == NULL)
    return "static graph";
  return topo_schedule_within_base(j->schedule) ? "static support" : "static graph, not the rounds";
}

gboolean proto_accounting_observed_nothing(const ProtoAccounting *ac) {
  g_return_val_if_fail(ac != NULL, FALSE);
  const PrivReport *r = ac->report;
  if (ac->trust == PRIV_TRUST_LDP || r == NULL || r->n_victims == 0)
    return FALSE;
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    if (v->unprotected || v->unresolved || !(v->mu == 0.0))
      return FALSE;
  }
  return TRUE;
}

/* Why attackers @m (@k of them) observed nothing, as far as @j tells. */
static const char *observed_nothing_cause(const ProtoAccountJob *j, const guint *m, guint k) {
  gboolean isolated = TRUE;
  for (guint i = 0; i < k && isolated; i++)
    isolated = m[i] < j->n && topo_graph_degree(j->graph, m[i]) == 0;
  if (isolated)
    return k == 1 ? "it has no edge in the graph" : "none of them has an edge in the graph";
  if (j->schedule != NULL)
    return "no round of the schedule linked the set to a victim while both were online "
           "(churn, matchings or failed edges)";
  if (j->path == PROTO_ACCOUNT_OBSERVER)
    return "every message to the set was lost or arrived too late";
  return "no message carries a victim's data to the set";
}

GPtrArray *proto_account_job_warnings(const ProtoAccountJob *j) {
  g_return_val_if_fail(j != NULL, NULL);
  GPtrArray *w = g_ptr_array_new_with_free_func(g_free);
  for (guint a = 0; a < j->n_acs; a++) {
    const ProtoAccounting *ac = &j->acs[a];
    if (!proto_accounting_observed_nothing(ac))
      continue;
    char *label = topo_graph_attackers_label(j->graph, &j->sets, ac->set);
    g_ptr_array_add(
        w, g_strdup_printf("trust %s, attacker%s %s received no message carrying a victim's "
                           "data in the whole run: %s; every victim's eps = 0 says %s saw "
                           "nothing, not that the gossip protects",
                           priv_trust_name(ac->trust), ac->n_attackers == 1 ? "" : "s", label,
                           observed_nothing_cause(j, ac->attackers, ac->n_attackers),
                           ac->n_attackers == 1 ? "it" : "they"));
    g_free(label);
  }
  return w;
}

GPtrArray *proto_account_job_notes(const ProtoAccountJob *j) {
  g_return_val_if_fail(j != NULL, NULL);
  GPtrArray *notes = g_ptr_array_new_with_free_func(g_free);
  const ProtoAccounting *first = NULL;
  guint fell = 0, tied = 0;
  guint64 most = 0;
  for (guint a = 0; a < j->n_acs; a++) {
    const ProtoAccounting *ac = &j->acs[a];
    if (ac->timing_fallback != NULL && fell++ == 0)
      first = ac;
    if (ac->timing_ties > 0) {
      tied++;
      most = MAX(most, ac->timing_ties);
    }
  }
  /* One sentence each for all the accountings: with --attackers all, one a
   * set would bury the output. */
  if (fell > 0 && j->n_acs == 1) {
    g_ptr_array_add(notes, g_strdup_printf("%s; the ball's deliveries come from the engine's "
                                           "timing run",
                                           first->timing_fallback));
  } else if (fell > 0) {
    char *label = topo_graph_attackers_label(j->graph, &j->sets, first->set);
    g_ptr_array_add(notes, g_strdup_printf("%u of %u balls' deliveries come from the engine's "
                                           "timing run; the first's (trust %s, attacker%s %s): "
                                           "%s",
                                           fell, j->n_acs, priv_trust_name(first->trust),
                                           first->n_attackers == 1 ? "" : "s", label,
                                           first->timing_fallback));
    g_free(label);
  }
  /* What the timing pass counted (account_timing.c): deadline mode's
   * messages at a deadline, stale mode's gathers with simultaneous events. */
  const char *what = j->mode.kind == PROTO_MODE_STALE
                         ? "gathers completed at the nanosecond of other messages or loss notices"
                         : "messages arrived at the nanosecond of their receiver's deadline";
  if (tied > 0 && j->n_acs == 1)
    g_ptr_array_add(notes, g_strdup_printf("%" G_GUINT64_FORMAT " %s, none in the ball: its "
                                           "record does not depend on their order",
                                           most, what));
  else if (tied > 0)
    g_ptr_array_add(notes, g_strdup_printf("up to %" G_GUINT64_FORMAT " %s in %u of %u "
                                           "accountings, none in the ball: no record depends on "
                                           "their order",
                                           most, what, tied, j->n_acs));
  return notes;
}

/* The path asked for, or the plan's (proto_account_plan). */
static void plan_path(ProtoAccountJob *j) {
  if (j->path_auto) {
    ProtoAccountCase pc = {.known = j->proto.structured,
                           .mode = j->mode.kind,
                           .loss = j->loss,
                           .n_links = j->links->len,
                           .run_options = j->run_options,
                           .recordable = proto_account_job_recordable(j)};
    j->path = proto_account_plan(&pc, &j->path_reason);
  } else {
    j->path_reason = j->radius && j->path == PROTO_ACCOUNT_OBSERVER
                         ? "asked: --path local, on the observer path's ball: the whole run "
                           "simulated, its provenance kept over the ball"
                     : j->radius                           ? "asked: --path local"
                     : j->path == PROTO_ACCOUNT_STRUCTURED ? "asked: --path structured"
                                                           : "asked: --path observer";
  }
}

/* The structured path's least memory (the blocks; a time-varying
 * schedule's K T gossip matrices and KALMAN's n x n pair) against the
 * budget, before anything is built: at 10^6 nodes with --schedule matching
 * it failed after 22 s and 4 GB (issue 37). The synchronous path only (an
 * asynchronous one's record is estimated by proto_deliveries_record); the
 * local path accounts balls, never all n nodes. */
static gboolean structured_fits(const ProtoAccountJob *j, GError **error) {
  if (j->path != PROTO_ACCOUNT_STRUCTURED || j->radius != 0 || !j->proto.structured ||
      j->mode.kind != PROTO_MODE_SYNC)
    return TRUE;
  guint K = j->proto.protocol == PRIV_PROTOCOL_MUFFLIATO ? MAX(j->proto.K, 1u) : 1u;
  gboolean varying = j->schedule != NULL && !topo_schedule_is_static(j->schedule);
  guint64 n_gossip = varying ? (guint64)K * j->T : 1;
  gsize bytes = priv_structured_bytes_least(
      j->n, j->T, n_gossip > G_MAXUINT ? G_MAXUINT : (guint)n_gossip, j->proto.protocol, j->sigma);
  if (varying)
    bytes = spec_size_add(bytes, proto_schedule_gossips_bytes(n_gossip, j->n));
  char *what = g_strdup_printf("--path structured on %u nodes over T = %u steps%s", j->n, j->T,
                               varying ? " of a time-varying schedule" : "");
  gboolean ok = spec_check_memory(
      bytes, what, "use --path local (a ball around each victim), fewer nodes or fewer steps (-T)",
      PRIV_ERROR, PRIV_ERROR_MEMORY, error);
  g_free(what);
  return ok;
}

/* The victims within @radius hops of @m's @k attackers on @g (the local
 * path's ball less its attackers). O(n + the ball's edges). */
static guint64 ball_victims(const TopoGraph *g, const guint *m, guint k, guint radius) {
  guint n = topo_graph_n_nodes(g);
  guint *dist = topo_graph_hops(g, m, k, radius);
  guint64 count = 0;
  for (guint u = 0; u < n; u++)
    count += dist[u] != 0 && dist[u] <= radius;
  g_free(dist);
  return count;
}

/* --sensitivity auto: the one rule (mf_sensitivity_choose) on every
 * victim block the job will price: n less the attackers per accounting,
 * the ball's victims on the local path (at the plan's radius; --tightness's
 * larger radii keep the choice). Stops counting once exact is out of
 * budget. O(accountings) (local: a BFS per accounting). */
static void choose_sensitivity(ProtoAccountJob *j) {
  guint64 n_blocks = 0, stop = G_MAXUINT64;
  double per_block = mf_sensitivity_exact_seconds(1, j->T, j->b);
  if (per_block > 0)
    stop = (guint64)(MF_SENSITIVITY_AUTO_SECONDS / per_block) + 1;
  for (guint a = 0; a < j->n_acs && n_blocks < stop; a++) {
    const ProtoAccounting *ac = &j->acs[a];
    guint64 victims = j->n - MIN(j->n, ac->n_attackers);
    if (j->radius)
      victims = ball_victims(j->graph, ac->attackers, ac->n_attackers, j->radius);
    n_blocks += victims;
  }
  j->sensitivity = mf_sensitivity_choose(j->sensitivity_asked, n_blocks, j->T, j->b,
                                         &j->sensitivity_seconds);
}

gboolean proto_account_job_plan(ProtoAccountJob *j, const TopoGraph *g, const char *label,
                                ProtoAccountRefusal *refusal, GError **error) {
  ProtoAccountRefusal scratch;
  if (refusal == NULL)
    refusal = &scratch;
  *refusal = PROTO_REFUSED_VALUE;
  g_return_val_if_fail(j != NULL && g != NULL && j->graph == NULL, FALSE);
  j->graph = g;
  j->n = topo_graph_n_nodes(g);
  if (j->every_node && j->n < 2) {
    *refusal = PROTO_REFUSED_RULE;
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--trust ldp: the graph has a single node, nobody to observe it");
    return FALSE;
  }
  /* Every node's sets {0} and {1} are ids, whatever the graph's labels. */
  if (!topo_graph_resolve_attackers(j->every_node ? NULL : g, &j->sets, label, 0, G_OPTION_ERROR,
                                    G_OPTION_ERROR_BAD_VALUE, error) ||
      !spec_attackers_check(&j->sets, j->n, label, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            error)) {
    g_prefix_error(error, "--attackers: ");
    return FALSE;
  }
  spec_attackers_expand(&j->sets, j->n);
  for (guint i = 0; i < j->links->len; i++) {
    /* The link's ends by the graph's labels (ids on a graph without). */
    ProtoAccountLink *l = &g_array_index(j->links, ProtoAccountLink, i);
    if (!topo_graph_node_parse(g, l->from_label, "--link", G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                               &l->from, error) ||
        !topo_graph_node_parse(g, l->to_label, "--link", G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                               &l->to, error)) {
      *refusal = PROTO_REFUSED_RULE;
      return FALSE;
    }
    if (l->from == l->to) {
      *refusal = PROTO_REFUSED_RULE;
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--link %s:%s: a link joins two distinct nodes", l->from_label, l->to_label);
      return FALSE;
    }
  }
  j->schedule = j->schedule_given;
  if (j->schedule == NULL && j->schedule_spec) {
    j->schedule = topo_schedule_new(j->schedule_spec, g, j->gossip, j->seed, error);
    if (j->schedule == NULL) {
      *refusal = PROTO_REFUSED_SCHEDULE;
      g_prefix_error(error, "--schedule: ");
      return FALSE;
    }
  }
  plan_path(j);
  if (!structured_fits(j, error)) {
    *refusal = PROTO_REFUSED_MEMORY;
    return FALSE;
  }
  guint n_sets = spec_attackers_n_sets(&j->sets, j->n), n_trusts = j->trusts->len;
  j->n_acs = n_sets * n_trusts;
  j->acs = g_new0(ProtoAccounting, MAX(j->n_acs, 1));
  for (guint i = 0; i < n_sets; i++) {
    guint size;
    const guint *m = spec_attackers_members(&j->sets, i, NULL, &size);
    for (guint k = 0; k < n_trusts; k++)
      j->acs[j->trust_major ? k * n_sets + i : i * n_trusts + k] = (ProtoAccounting){
          .trust = g_array_index(j->trusts, PrivTrust, k), .set = i, .attackers = m,
          .n_attackers = size};
  }
  choose_sensitivity(j);
  return TRUE;
}

PrivStructuredProblem proto_account_job_problem(const ProtoAccountJob *j, guint a) {
  const ProtoAccounting *ac = &j->acs[a];
  return (PrivStructuredProblem){
      .protocol = j->proto.protocol,
      .K = j->proto.K,
      .C_local = j->C_given ? j->C_given : j->C_local,
      .C_set = j->cset.C,
      .C_class = j->cset.node_class,
      .n_C = j->cset.n_classes,
      .T = j->T,
      .trust = ac->trust,
      .attackers = ac->attackers,
      .n_attackers = ac->n_attackers,
      .sigma = j->sigma,
      .sigma_secret = isnan(j->proto.sigma_secret) ? j->sigma : j->proto.sigma_secret,
      .b = j->run_b,
      .engine = PRIV_ENGINE_AUTO,
      .threads = j->threads};
}

static ProtoRunConfig run_config(const ProtoAccountJob *j);

/* The delivery record's simulation, as rounds recorded (10 min of silence
 * on the static overlay before, issue 37). */
static void on_recorded(guint done, guint R, gpointer data) {
  const ProtoAccountJob *j = data;
  ProtoAccountProgress p = {(double)done / MAX(R, 1u), done, R, "rounds of deliveries recorded"};
  j->progress(&p, j->progress_data);
}

gboolean proto_account_job_prepare(ProtoAccountJob *j, GError **error) {
  g_return_val_if_fail(j != NULL && j->graph != NULL, FALSE);
  if (j->prepared)
    return TRUE;
  if (j->path == PROTO_ACCOUNT_STRUCTURED && j->proto.structured &&
      j->proto.protocol == PRIV_PROTOCOL_MFDSGD && j->C_given == NULL) {
    /* A C by formula or a file needs no graph; a fitted C reaches the
     * structured path only sketched (probes=K): fitted here, once, on the
     * sparse gossip of the whole graph (or its schedule), from the run's
     * seed, so the same C as the run's own (proto_cmatrix_build). */
    ProtoCRecipe r = {.spec = j->proto.c_spec,
                      .T = j->T,
                      .k = j->T / j->run_b,
                      .b = j->run_b,
                      .band = j->proto.band,
                      .buffers = j->proto.buffers,
                      .graph = j->graph,
                      .schedule = j->schedule,
                      .gossip = j->gossip,
                      .probes = j->proto.probes,
                      .seed = j->seed,
                      .mode = j->mode_spec, /* mafalda in deadline or stale mode: */
                      .latency = j->latency_spec, /* the run's delivery records */
                      .loss = j->loss_spec,
                      .samples = j->proto.samples};
    if (proto_c_spec_is_cset(j->proto.c_spec)) {
      if (!proto_cmatrix_load_cset(j->proto.c_spec, j->T, j->n, &j->cset, error))
        return FALSE;
      if (j->cset.n_classes == 1) {
        /* One class is the one C: the same accounting to the bit. */
        j->C_local = g_steal_pointer(&j->cset.C);
        mf_cset_clear(&j->cset);
      }
    } else {
      if (j->progress != NULL && r.probes > 0) { /* a minute at n = 10^6 */
        ProtoAccountProgress p = {0.0, 0, 0, "fitting C from a sketch of the gossip"};
        j->progress(&p, j->progress_data);
      }
      if ((j->C_local = proto_c_local(&r, error)) == NULL)
        return FALSE;
    }
  }
  if (j->path == PROTO_ACCOUNT_STRUCTURED && j->mode.kind != PROTO_MODE_SYNC && !j->radius) {
    /* The run's deliveries: one provenance-free simulation of it. */
    ProtoRunConfig cfg = run_config(j);
    guint K = j->proto.protocol == PRIV_PROTOCOL_MUFFLIATO ? MAX(j->proto.K, 1u) : 1u;
    if ((j->deliveries = proto_deliveries_record(&cfg, K * j->T, j->progress ? on_recorded : NULL,
                                                 j, error)) == NULL)
      return FALSE;
    /* DECOR's secrets: on the static W's edges (a schedule's are built
     * when accounted, proto_account_structured). */
    if (j->proto.protocol == PRIV_PROTOCOL_DECOR && j->schedule == NULL &&
        (j->w = topo_gossip_new(j->graph, j->gossip, error)) == NULL)
      return FALSE;
  } else if (j->path == PROTO_ACCOUNT_STRUCTURED && j->schedule == NULL &&
             (j->w = topo_gossip_new(j->graph, j->gossip, error)) == NULL)
    return FALSE;
  if (j->compare_muffliato && (j->wm = topo_gossip_new(j->graph, j->gossip, error)) == NULL)
    return FALSE;
  j->prepared = TRUE;
  return TRUE;
}

/* PROTO_ERROR_CANCELLED when the request's flag is set. */
static gboolean check_cancel(const ProtoAccountJob *j, GError **error) {
  if (j->cancel == NULL || g_atomic_int_get(j->cancel) == 0)
    return TRUE;
  g_set_error(error, PROTO_ERROR, PROTO_ERROR_CANCELLED, "cancelled (interrupted)");
  return FALSE;
}

/* The progress of accounting @item, as a fraction of the job. */
typedef struct {
  const ProtoAccountJob *j;
  guint item;
} ItemProgress;

static void item_progress(double fraction, const char *what, gpointer data) {
  const ItemProgress *ip = data;
  guint n = ip->j->n_acs;
  char *line = n > 1 ? g_strdup_printf("%s, attacker set %u/%u", what, ip->item + 1, n)
                     : g_strdup(what);
  ProtoAccountProgress p = {.fraction = (ip->item + fraction) / n, .what = line};
  ip->j->progress(&p, ip->j->progress_data);
  g_free(line);
}

/* A numerical failure on the user's C_local names the protocol spec that
 * gave it (a file or a family) and what to change. */
static void name_c(const ProtoAccountJob *j, GError **error) {
  if ((j->C_local != NULL || j->cset.C != NULL) && error != NULL && *error != NULL &&
      g_error_matches(*error, PRIV_ERROR, PRIV_ERROR_NUMERICAL)) {
    char *msg = g_strdup_printf("--protocol %s: %s; give a better-conditioned C (no diagonal "
                                "entry negligible against the entries below it)",
                                j->label, (*error)->message);
    g_free((*error)->message);
    (*error)->message = msg;
  }
}

/* Muffliato's bound of accounting @ac (PNDP only; else nothing). */
static gboolean muffliato(const ProtoAccountJob *j, ProtoAccounting *ac, GError **error) {
  if (!j->compare_muffliato || ac->trust != PRIV_TRUST_PNDP)
    return TRUE;
  ac->muff = priv_muffliato_rdp(j->wm, j->T, ac->attackers, ac->n_attackers, j->alpha, j->sigma,
                                error);
  return ac->muff != NULL;
}

/* The LDP cap of @j's PNDP and SecLDP values (priv_release_mu): D-SGD,
 * Muffliato and MF-D-SGD with a known C, whose every message is a
 * function of the nodes' releases; NaN (no cap) for any other protocol:
 * DECOR's and Zip-DL's attackers know secrets no release carries
 * (docs/design.md "The LDP cap"). Computed once per job. */
static gboolean ldp_cap(ProtoAccountJob *j, const PrivAccountOptions *opt, double *cap,
                        GError **error) {
  if (!j->ldp_cap_known) {
    j->ldp_cap = NAN;
    /* A plugin's shape is its own claim: the structured path accounts it
     * on that claim alone, so the cap adds no trust there; the observer
     * path reads its real messages, and the cap rests on what they are
     * made of, which only the built-ins guarantee. */
    if (j->proto.structured && j->cset.C != NULL) {
      /* A C per class: each node's own class's LDP value; the largest
       * caps them all (never below any node's own). */
      guint T = j->T;
      for (guint c = 0; c < j->cset.n_classes && (error == NULL || *error == NULL); c++) {
        double mu = priv_release_mu(j->proto.protocol, j->cset.C + (gsize)c * T * T, T, j->run_b,
                                    j->sigma, opt, error);
        j->ldp_cap = c == 0 || isnan(mu) || mu > j->ldp_cap ? mu : j->ldp_cap;
        if (isnan(mu))
          break;
      }
    } else if (j->proto.structured &&
               (proto_registry_is_builtin(j->proto.vt) || j->path == PROTO_ACCOUNT_STRUCTURED))
      j->ldp_cap = priv_release_mu(j->proto.protocol, j->C_given ? j->C_given : j->C_local, j->T,
                                   j->run_b, j->sigma, opt, error);
    if (error != NULL && *error != NULL)
      return FALSE;
    j->ldp_cap_known = TRUE;
  }
  *cap = j->ldp_cap;
  return TRUE;
}

/* Accounting @ac's victims never above the LDP cap (PNDP, SecLDP). */
static gboolean cap_report(ProtoAccountJob *j, ProtoAccounting *ac, const PrivAccountOptions *opt,
                           GError **error) {
  double cap;
  if (ac->trust == PRIV_TRUST_LDP || ac->report == NULL)
    return TRUE;
  if (!ldp_cap(j, opt, &cap, error))
    return FALSE;
  priv_report_cap_ldp(ac->report, cap, opt);
  return TRUE;
}

static PrivAccountOptions report_options(const ProtoAccountJob *j) {
  return (PrivAccountOptions){
      .b = j->b,
      .sensitivity = j->sensitivity,
      .alpha = j->alpha,
      .delta = j->delta,
      .no_epsilon = j->no_epsilon};
}

/* report_options for accounting @ip->item, its progress reported through
 * @ip (the caller's, alive while the options are used) when the job has a
 * progress callback. */
static PrivAccountOptions item_options(const ProtoAccountJob *j, ItemProgress *ip) {
  PrivAccountOptions opt = report_options(j);
  if (j->progress) {
    opt.progress = item_progress;
    opt.progress_data = ip;
  }
  return opt;
}

/* The ball's deliveries, as the first half of the accounting's progress:
 * the timing pass's, then, where it gave way, the engine's run of them,
 * which starts again from 0 under its own name (the two cost differently,
 * so no fraction of one carries over to the other honestly). */
typedef struct {
  ItemProgress *ip;
  const char *what;
  double reached; /* the last fraction reported */
} TimingProgress;

static void timing_progress(double fraction, gpointer data) {
  TimingProgress *tp = data;
  tp->reached = fraction;
  item_progress(fraction / 2, tp->what, tp->ip);
}

/* The accounting's own progress, as the second half. */
static void ball_progress(double fraction, const char *what, gpointer data) {
  item_progress(0.5 + fraction / 2, what, data);
}

/* The local bound of an asynchronous run (docs/local-bounds.md,
 * "Asynchronous runs"): the ball and shell from the graph's hops, one run
 * of the whole graph without models recording the ball's deliveries
 * (proto_deliveries_record_ball: the same engine, seed and draws, so the
 * ball's rows of W_r are the full run's), then priv_local_report_record
 * (DECOR: with the static W on the record's nodes for its secrets).
 * @p: the accounting's problem (gossip unset). Returns the report with
 * graph node ids, or NULL with @error set. */
static PrivReport *local_recorded(const ProtoAccountJob *j, ProtoAccounting *ac,
                                  const PrivStructuredProblem *p, PrivAccountOptions *opt,
                                  GError **error) {
  PrivStructuredProblem q = *p;
  const TopoGossip *ws[] = {j->w};
  q.gossip = ws;
  q.n_gossip = 1;
  GArray *ball = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *shell = g_array_new(FALSE, FALSE, sizeof(guint));
  guint *dist = priv_local_distances(&q, j->radius, ball, shell, error);
  PrivReport *report = NULL;
  if (dist == NULL)
    goto out;
  /* The record's nodes: ball and shell, in node order. */
  guint m = ball->len + shell->len, *node = g_new(guint, m), *keep = g_new(guint, j->n);
  guint *dist_rec = g_new(guint, m), *att = g_new(guint, MAX(p->n_attackers, 1u));
  guint8 *rows = g_new(guint8, m);
  memset(keep, 0xff, sizeof(guint) * j->n);
  for (guint i = 0, x = 0, y = 0; i < m; i++) {
    gboolean from_ball = y >= shell->len || (x < ball->len && g_array_index(ball, guint, x) <
                                                                  g_array_index(shell, guint, y));
    node[i] = from_ball ? g_array_index(ball, guint, x++) : g_array_index(shell, guint, y++);
    keep[node[i]] = i;
    rows[i] = (guint8)from_ball;
    dist_rec[i] = dist[node[i]];
  }
  for (guint i = 0; i < p->n_attackers; i++)
    att[i] = keep[p->attackers[i]];
  /* A C per class: the map is by graph node, the record's problem by
   * record index (priv_local_report_record reads it through the ball's
   * list in turn). */
  guint *cls = NULL;
  if (p->C_class != NULL) {
    cls = g_new(guint, m);
    for (guint i = 0; i < m; i++)
      cls[i] = p->C_class[node[i]];
    q.C_class = cls;
  }
  ProtoRunConfig cfg = run_config(j);
  guint K = j->proto.protocol == PRIV_PROTOCOL_MUFFLIATO ? MAX(j->proto.K, 1u) : 1u;
  /* The timing pass first (option (b)); the engine's run (a) where it does
   * not apply or meets a tie the engine's event order decides. */
  char *fallback = NULL, *phase = NULL;
  TimingProgress tp = {opt->progress_data,
                       "timing pass over the whole graph (the ball's deliveries)", 0};
  ProtoProgressFunc progress = opt->progress ? timing_progress : NULL;
  ProtoDeliveries *d = proto_deliveries_time_ball(&cfg, K * j->T, keep, m, rows, progress, &tp,
                                                  &fallback, error);
  if (d == NULL && fallback != NULL) {
    /* Both asynchronous modes have the pass: its refusal is news. */
    if (j->mode.kind == PROTO_MODE_DEADLINE || j->mode.kind == PROTO_MODE_STALE)
      ac->timing_fallback = g_steal_pointer(&fallback);
    tp.what = "engine's timing run of the whole graph (the ball's deliveries)";
    if (tp.reached > 0) /* only a tie stops the pass after its first round */
      tp.what = phase = g_strdup_printf(
          "engine's timing run of the whole graph, from the start (the timing pass stopped at "
          "a tie at a ball node after %u of %u rounds)",
          (guint)llround(tp.reached * K * j->T), K * j->T);
    d = proto_deliveries_record_ball(&cfg, K * j->T, keep, m, rows, progress, &tp, error);
  }
  g_free(fallback);
  g_free(phase);
  /* DECOR's secrets: on the static W's edges among the record's nodes,
   * whatever the deliveries. */
  TopoGossip *sw = NULL;
  const TopoGossip *sws[1];
  if (d != NULL && p->protocol == PRIV_PROTOCOL_DECOR && p->sigma_secret > 0) {
    if ((sw = priv_local_record_gossip(j->w, node, m, keep, error)) == NULL)
      g_clear_pointer(&d, proto_deliveries_free);
    sws[0] = sw;
    q.secret_gossip = sws;
    q.n_secret_gossip = 1;
  }
  if (d != NULL) {
    ac->timing_ties = proto_deliveries_ties(d);
    q.gossip = proto_deliveries_gossip(d);
    q.n_gossip = proto_deliveries_rounds(d);
    q.messages = proto_deliveries_messages(d);
    q.n_delayed = proto_deliveries_delayed(d);
    q.attackers = att;
    if (q.progress)
      q.progress = ball_progress;
    gint64 t0 = g_get_monotonic_time();
    report = priv_local_report_record(&q, dist_rec, j->radius, opt, &ac->local, error);
    ac->ball_seconds = (double)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC;
  }
  for (guint i = 0; report && i < report->n_victims; i++)
    report->victims[i].node = node[report->victims[i].node];
  proto_deliveries_free(d);
  topo_gossip_free(sw);
  g_free(node);
  g_free(keep);
  g_free(dist_rec);
  g_free(att);
  g_free(cls);
  g_free(rows);
out:
  g_free(dist);
  g_array_free(ball, TRUE);
  g_array_free(shell, TRUE);
  return report;
}

gboolean proto_account_job_execute_one(ProtoAccountJob *j, guint a, GError **error) {
  g_return_val_if_fail(j != NULL && j->prepared && a < j->n_acs, FALSE);
  g_return_val_if_fail(j->path == PROTO_ACCOUNT_STRUCTURED, FALSE);
  j->at = a;
  if (!check_cancel(j, error))
    return FALSE;
  ProtoAccounting *ac = &j->acs[a];
  g_clear_pointer(&ac->timing_fallback, g_free);
  ac->timing_ties = 0;
  ac->ball_seconds = 0;
  PrivStructuredProblem p = proto_account_job_problem(j, a);
  ItemProgress ip = {j, a};
  PrivAccountOptions opt = item_options(j, &ip);
  if (j->progress) {
    /* A local bound reports through the engine that accounts its ball. */
    p.progress = item_progress;
    p.progress_data = &ip;
  }
  if (j->radius && j->mode.kind != PROTO_MODE_SYNC) {
    ac->report = local_recorded(j, ac, &p, &opt, error);
  } else if (j->radius) {
    gint64 t0 = g_get_monotonic_time();
    ac->report = proto_account_local(&p, j->w, j->schedule, j->radius, &opt, &ac->local, error);
    ac->ball_seconds = (double)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC;
  } else {
    PrivBlocks *blocks = NULL;
    if (j->deliveries != NULL) {
      p.gossip = proto_deliveries_gossip(j->deliveries);
      p.n_gossip = proto_deliveries_rounds(j->deliveries);
      p.messages = proto_deliveries_messages(j->deliveries);
      p.n_delayed = proto_deliveries_delayed(j->deliveries);
      /* DECOR's secrets are on the schedule's edges, not the record's. */
      blocks = j->proto.protocol == PRIV_PROTOCOL_DECOR
                   ? proto_account_structured(&p, j->w, j->schedule, error)
                   : priv_structured_blocks(&p, error);
    } else {
      blocks = proto_account_structured(&p, j->w, j->schedule, error);
    }
    name_c(j, error);
    if (blocks != NULL)
      ac->report = priv_account_report(blocks, j->graph, &opt, error);
    priv_blocks_free(blocks);
  }
  opt.progress = NULL;
  return ac->report != NULL && cap_report(j, ac, &opt, error) && muffliato(j, ac, error);
}

/* Long observer accountings take minutes: the streaming accountant reports
 * each checkpoint, the dense one's simulation each percent of its steps. */
static void on_checkpoint(guint steps, guint T, gpointer data) {
  const ProtoAccountJob *j = data;
  ProtoAccountProgress p = {(double)steps / MAX(T, 1u), steps, T, "steps accounted"};
  j->progress(&p, j->progress_data);
}

static void on_step(double fraction, gpointer data) {
  const ProtoAccountJob *j = data;
  ProtoAccountProgress p = {fraction, (guint64)llround(fraction * j->T), j->T, "steps simulated"};
  j->progress(&p, j->progress_data);
}

/* The accounting-only run of the observer path, on the graph or the
 * schedule. */
static ProtoRunConfig run_config(const ProtoAccountJob *j) {
  ProtoRunConfig cfg = j->run;
  cfg.graph = j->schedule ? NULL : j->graph;
  cfg.schedule = j->schedule;
  return cfg;
}

gboolean proto_account_job_set_links(const ProtoAccountJob *j, SimEngine *engine, GError **error) {
  for (guint i = 0; i < j->links->len; i++) {
    const ProtoAccountLink *l = &g_array_index(j->links, ProtoAccountLink, i);
    gboolean ok = l->down ? sim_engine_set_link_down(engine, l->from, l->to, TRUE, error)
                          : sim_engine_set_link(engine, l->from, l->to,
                                                &(SimLinkParams){.latency = l->latency}, error);
    if (!ok) {
      g_prefix_error(error, "--link %s:%s: ", l->from_label, l->to_label);
      return FALSE;
    }
  }
  return TRUE;
}

/* Every node: each trust model's accountings of {0} and {1} (adjacent,
 * {0} first) as one, node 0's row from {1}, in node order. */
static void merge_every_node(ProtoAccountJob *j) {
  if (!j->every_node)
    return;
  guint n_trusts = j->n_acs / 2;
  for (guint t = 0; t < n_trusts; t++) {
    ProtoAccounting *a0 = &j->acs[j->trust_major ? 2 * t : t];
    ProtoAccounting *a1 = &j->acs[j->trust_major ? 2 * t + 1 : n_trusts + t];
    PrivReport *m = g_new0(PrivReport, 1);
    *m = *a0->report;
    m->victims = g_new(PrivVictim, j->n);
    m->n_victims = 0;
    for (guint v = 0; v < a1->report->n_victims; v++)
      if (a1->report->victims[v].node == 0)
        m->victims[m->n_victims++] = a1->report->victims[v];
    for (guint v = 0; v < a0->report->n_victims; v++)
      m->victims[m->n_victims++] = a0->report->victims[v];
    for (guint v = 0; v < m->n_victims; v++)
      m->victims[v].distance = -1;
    ProtoAccounting merged = {.trust = a0->trust, .report = m};
    priv_report_free(a0->report);
    priv_report_free(a1->report);
    g_free(a0->muff);
    g_free(a1->muff);
    j->acs[t] = merged;
  }
  j->n_acs = n_trusts;
}

const ProtoObserveOptions *proto_account_job_observe(ProtoAccountJob *j) {
  g_return_val_if_fail(j != NULL && j->graph != NULL, NULL);
  if (j->path != PROTO_ACCOUNT_OBSERVER || j->radius)
    return NULL; /* a ball's run is its own (proto_account_ball) */
  if (j->views == NULL) {
    j->views = g_new(ProtoObservedView, MAX(j->n_acs, 1));
    for (guint a = 0; a < j->n_acs; a++)
      j->views[a] =
          (ProtoObservedView){.trust = j->acs[a].trust,
                              .members = j->acs[a].attackers,
                              .n_members = j->acs[a].n_attackers};
    j->observe = (ProtoObserveOptions){
        .views = j->views, .n_views = j->n_acs, .T = j->T, .streaming = j->streaming};
  }
  return &j->observe;
}

/* Accounting @a's report and Muffliato's bound from its blocks (NULL: the
 * error already set), which it frees. */
static gboolean view_report(ProtoAccountJob *j, guint a, PrivBlocks *blocks, GError **error) {
  ItemProgress ip = {j, a};
  PrivAccountOptions opt = item_options(j, &ip);
  j->at = a;
  gboolean ok = blocks != NULL &&
                (j->acs[a].report = priv_account_report(blocks, j->graph, &opt, error)) != NULL &&
                cap_report(j, &j->acs[a], &opt, error) && muffliato(j, &j->acs[a], error);
  priv_blocks_free(blocks);
  return ok;
}

/* The reports of every view of the observed run @o. A run of the caller's
 * own stays alive: one accounting's blocks at a time. Ours (@own) is
 * freed once every block is out, before the reports: its provenance is
 * the larger. */
static gboolean observed_reports(ProtoAccountJob *j, ProtoObservedRun *o, gboolean own,
                                 GError **error) {
  gboolean ok = proto_account_job_prepare(j, error);
  if (!own) {
    for (guint a = 0; ok && a < j->n_acs; a++)
      ok = view_report(j, a, proto_observed_run_blocks(o, a, error), error);
    return ok;
  }
  PrivBlocks **blocks = g_new0(PrivBlocks *, MAX(j->n_acs, 1));
  for (guint a = 0; ok && a < j->n_acs; a++) {
    j->at = a;
    ok = (blocks[a] = proto_observed_run_blocks(o, a, error)) != NULL;
  }
  proto_observed_run_free(o);
  for (guint a = 0; a < j->n_acs; a++) {
    if (ok)
      ok = view_report(j, a, blocks[a], error);
    else
      priv_blocks_free(blocks[a]);
  }
  g_free(blocks);
  return ok;
}

/* The observer path: one simulated run records every view. */
static gboolean execute_observer(ProtoAccountJob *j, GError **error) {
  ProtoRunConfig cfg = run_config(j);
  ProtoObserveOptions oo = *proto_account_job_observe(j);
  if (j->progress != NULL && j->streaming) {
    oo.progress = on_checkpoint;
    oo.progress_data = j;
  }
  ProtoObservedRun *o = check_cancel(j, error) ? proto_observed_run_new(&cfg, &oo, error) : NULL;
  if (o == NULL)
    return FALSE;
  ProtoRun *run = proto_observed_run_proto(o);
  if (j->progress != NULL && !j->streaming)
    proto_run_set_progress(run, on_step, j);
  gboolean ok = proto_account_job_set_links(j, proto_run_engine(run), error);
  if (ok) {
    if (j->on_run)
      j->on_run(run, TRUE, j->on_run_data);
    ok = proto_observed_run_run(o, error);
    if (j->on_run)
      j->on_run(run, FALSE, j->on_run_data);
  }
  if (ok)
    proto_run_get_stats(run, &j->stats);
  if (!ok) {
    proto_observed_run_free(o);
    return FALSE;
  }
  return observed_reports(j, o, TRUE, error);
}

gboolean proto_account_job_execute_observed(ProtoAccountJob *j, ProtoObservedRun *run,
                                            GError **error) {
  g_return_val_if_fail(j != NULL && j->graph != NULL, FALSE);
  if (j->path != PROTO_ACCOUNT_OBSERVER || j->radius)
    return proto_account_job_execute(j, error);
  g_return_val_if_fail(run != NULL, FALSE);
  proto_run_get_stats(proto_observed_run_proto(run), &j->stats);
  if (!observed_reports(j, run, FALSE, error))
    return FALSE;
  merge_every_node(j);
  return TRUE;
}

/* The local path on the observer path: one run per accounting, its
 * provenance over the accounting's ball (protocols/account_ball.c). */
static gboolean execute_balls(ProtoAccountJob *j, GError **error) {
  if (!proto_account_job_prepare(j, error))
    return FALSE;
  ProtoRunConfig cfg = run_config(j);
  for (guint a = 0; a < j->n_acs; a++) {
    ProtoAccounting *ac = &j->acs[a];
    ItemProgress ip = {j, a};
    PrivAccountOptions opt = item_options(j, &ip);
    j->at = a;
    if (!check_cancel(j, error) ||
        (ac->report = proto_account_ball(j, a, &cfg, &opt, &ac->local, error)) == NULL ||
        !cap_report(j, ac, &opt, error) || !muffliato(j, ac, error))
      return FALSE;
  }
  return TRUE;
}

gboolean proto_account_job_execute(ProtoAccountJob *j, GError **error) {
  g_return_val_if_fail(j != NULL && j->graph != NULL, FALSE);
  if (j->path == PROTO_ACCOUNT_OBSERVER && j->radius) {
    if (!execute_balls(j, error))
      return FALSE;
  } else if (j->path == PROTO_ACCOUNT_OBSERVER) {
    if (!execute_observer(j, error))
      return FALSE;
  } else {
    if (!proto_account_job_prepare(j, error))
      return FALSE;
    for (guint a = 0; a < j->n_acs; a++)
      if (!proto_account_job_execute_one(j, a, error))
        return FALSE;
  }
  merge_every_node(j);
  return TRUE;
}
