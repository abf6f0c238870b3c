/*
 * cli/account_json.c: `dpgossip account --format json`: the request, the
 * run (observer path), the assumptions and one object per accounting (the
 * accounting's fields at the top level when there is one).
 */
#include "cli/account_output.h"

/* trust, attackers, unprotected, victims: the per-accounting fields
 * ("unresolved" and each such victim's "status" and "note" only when some
 * victim is). */
static void json_accounting(JsonBuilder *jb, const ProtoAccountJob *j, const ProtoAccounting *ac,
                            guint radius) {
  cli_json_string(jb, "trust", priv_trust_name(ac->trust));
  cli_json_begin_array(jb, "attackers");
  for (guint i = 0; i < ac->n_attackers; i++)
    cli_json_node(jb, NULL, j->graph, ac->attackers[i]);
  json_builder_end_array(jb);
  const PrivReport *r = ac->report;
  cli_json_begin_array(jb, "unprotected");
  for (guint i = 0; i < r->n_victims; i++)
    if (r->victims[i].unprotected)
      cli_json_node(jb, NULL, j->graph, r->victims[i].node);
  json_builder_end_array(jb);
  if (cli_account_count_unresolved(r) > 0) {
    /* Only when there are some: outputs without any stay as they were. */
    cli_json_begin_array(jb, "unresolved");
    for (guint i = 0; i < r->n_victims; i++)
      if (r->victims[i].unresolved)
        cli_json_node(jb, NULL, j->graph, r->victims[i].node);
    json_builder_end_array(jb);
  }
  if (radius) {
    cli_json_begin_object(jb, "ball");
    cli_json_int(jb, "radius", radius);
    cli_json_int(jb, "nodes", ac->local.ball);
    cli_json_int(jb, "shell", ac->local.shell);
    cli_json_bool(jb, "covered", ac->local.covered);
    /* The observer path's ball when its lower bound was not computed
     * (every mu_lower 0): why. */
    if (ac->local.lower_note[0] != '\0')
      cli_json_string(jb, "mu_lower_note", ac->local.lower_note);
    /* Its run stopped early for memory: the rounds its mu_lower saw. */
    if (ac->local.lower_rounds > 0)
      cli_json_int(jb, "mu_lower_rounds", ac->local.lower_rounds);
    json_builder_end_object(jb);
  }
  cli_json_begin_array(jb, "victims");
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    json_builder_begin_object(jb);
    cli_json_node(jb, "node", j->graph, v->node);
    cli_json_string(jb, "bound", cli_account_bound_name(j, v));
    if (radius)
      cli_json_int(jb, "radius", radius);
    if (v->unresolved) {
      cli_json_string(jb, "status", "unresolved");
      cli_json_string(jb, "note", PRIV_UNRESOLVED_NOTE);
    }
    if (v->distance >= 0)
      cli_json_int(jb, "distance", v->distance);
    else
      cli_json_null(jb, "distance"); /* not connected to any attacker */
    cli_json_number(jb, "sensitivity", v->sensitivity);
    cli_json_number(jb, "mu", v->mu);
    if (radius)
      cli_json_number(jb, "mu_lower", v->mu_lower);
    cli_json_number(jb, "rdp", v->rdp);
    cli_json_number(jb, "epsilon", v->epsilon);
    if (ac->muff)
      cli_json_number(jb, "muffliato_rdp", ac->muff[v->node]);
    json_builder_end_object(jb);
  }
  json_builder_end_array(jb);
}

/* The observer path's simulated run and its counters. */
static void json_run(JsonBuilder *jb, const ProtoAccountJob *j) {
  const ProtoRunStats *s = &j->stats;
  cli_json_begin_object(jb, "run");
  cli_json_string(jb, "mode", j->mode_spec ? j->mode_spec : "sync");
  cli_json_string(jb, "latency", j->latency_spec ? j->latency_spec : "constant:ms=0");
  cli_json_number(jb, "loss", j->loss);
  cli_json_number(jb, "lr", j->lr);
  cli_json_string(jb, "storage", j->storage == SIM_LIN_DENSE ? "dense" : "sparse");
  cli_json_string(jb, "accountant", j->streaming ? "streaming" : "dense");
  cli_json_begin_array(jb, "links");
  for (guint i = 0; j->link_specs[i]; i++)
    cli_json_string(jb, NULL, j->link_specs[i]);
  json_builder_end_array(jb);
  cli_json_int(jb, "messages_sent", (gint64)s->engine.messages_sent);
  cli_json_int(jb, "messages_delivered", (gint64)s->engine.messages_delivered);
  cli_json_int(jb, "messages_dropped", (gint64)s->engine.messages_dropped);
  cli_json_int(jb, "late_discarded", (gint64)s->late_discarded);
  cli_json_int(jb, "partial_gathers", (gint64)s->partial_gathers);
  cli_json_int(jb, "noise_variables", s->n_noise);
  json_builder_end_object(jb);
}

void cli_account_print_json(const CliAccountOutput *c) {
  const ProtoAccountJob *j = c->job;
  gboolean observer = j->path == PROTO_ACCOUNT_OBSERVER;
  const char *sched = cli_account_schedule(j);
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  cli_json_int(jb, "nodes", j->n);
  cli_json_string(jb, "gossip", topo_gossip_kind_name(j->gossip));
  cli_json_string(jb, "protocol", j->label);
  cli_json_int(jb, "rounds", j->T);
  cli_json_int(jb, "participation_interval", j->b);
  cli_json_string(jb, "sensitivity", mf_sensitivity_name(j->sensitivity));
  cli_json_string(jb, "sensitivity_reason", proto_account_job_sensitivity_reason(j));
  cli_json_number(jb, "sigma", j->sigma);
  cli_json_number(jb, "clip", j->clip);
  cli_json_number(jb, "alpha", j->alpha);
  cli_json_number(jb, "delta", j->delta);
  cli_json_string(jb, "path", proto_account_job_path_name(j));
  if (j->radius)
    cli_json_int(jb, "radius", j->radius);
  if (j->tightness > 0) {
    /* --tightness: the target, the radius reached, whether every victim's
     * mu / mu_lower meets it, and where and why it stopped when not. */
    cli_json_begin_object(jb, "tightness");
    cli_json_number(jb, "target", j->tightness);
    cli_json_int(jb, "radius", j->radius);
    cli_json_bool(jb, "met", j->tightness_met);
    if (j->tightness_met)
      cli_json_null(jb, "stopped");
    else
      cli_json_string(jb, "stopped", j->tightness_stop);
    json_builder_end_object(jb);
  }
  cli_json_string(jb, "path_reason", j->path_reason);
  cli_json_string(jb, "schedule", sched ? sched : "static");
  if (sched || observer)
    cli_json_int(jb, "seed", (gint64)j->seed);
  if (observer)
    json_run(jb, j);
  cli_json_begin_array(jb, "assumptions");
  GPtrArray *as = cli_account_assumptions(c);
  for (guint i = 0; i < as->len; i++)
    cli_json_string(jb, NULL, g_ptr_array_index(as, i));
  g_ptr_array_unref(as);
  json_builder_end_array(jb);
  /* What stderr warns about, for a reader of the JSON alone. */
  cli_json_begin_array(jb, "warnings");
  GPtrArray *ws = proto_account_job_warnings(j);
  for (guint i = 0; i < ws->len; i++)
    cli_json_string(jb, NULL, g_ptr_array_index(ws, i));
  g_ptr_array_unref(ws);
  json_builder_end_array(jb);
  cli_json_string(jb, "distance_graph", proto_account_job_distance_graph(j));
  if (j->n_acs == 1) {
    json_accounting(jb, j, &j->acs[0], j->radius);
  } else {
    cli_json_begin_array(jb, "accountings");
    for (guint i = 0; i < j->n_acs; i++) {
      json_builder_begin_object(jb);
      json_accounting(jb, j, &j->acs[i], j->radius);
      json_builder_end_object(jb);
    }
    json_builder_end_array(jb);
  }
  json_builder_end_object(jb);
  cli_json_print(jb);
}
