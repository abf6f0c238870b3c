/*
 * cli/cmd_account.c: `dpgossip account`: per-victim privacy guarantees of a
 * decentralized protocol against attacker sets under trust models
 * (docs/design.md, "Privacy accounting"), accounting only (no dataset):
 * sensitivity, mu-GDP, RDP and (eps, delta) for every node outside each set,
 * optionally next to Muffliato's original bound.
 *
 * Two paths compute the per-victim blocks X_u, everything after them is
 * shared:
 *   structured  the W-product structure of a synchronous D-SGD, Muffliato or
 *               MF-D-SGD run on static or time-varying W_t (no simulation);
 *   observer    the protocol is simulated (any registered protocol, any
 *               mode, latency, loss, schedule) with one PrivObserver on the
 *               engine's bus, one view per (attacker set, trust model): one
 *               simulation for all of them; the blocks come from what each
 *               view saw (priv_knowledge_blocks).
 * --path auto takes the structured path whenever it describes the run
 * exactly (proto_account_plan: a protocol it knows, synchronous, no loss, no
 * link override; any schedule, churn included).
 *
 * The command reads options (as typed) -> validate (a Request: every value
 * checked, before any graph) -> plan (the graph, schedule, path and one
 * Accounting per attacker set x trust model) -> execute (the path's
 * reports) -> print (table, JSON or CSV). Each step returns an exit status
 * and has printed why when it is not CLI_EXIT_OK.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/account_common.h"
#include "cli/cli.h"
#include "privacy/privacy.h"
#include "protocols/protocols.h"
#include "scenarios/scenarios.h"

#define CMD "account"

/* --path's words for the protocols' plan (proto_account_plan). */
static const char *path_name(ProtoAccountPath p) {
  return p == PROTO_ACCOUNT_STRUCTURED ? "structured" : "observer";
}

/* One accounting: attacker set @set under @trust. */
typedef struct {
  PrivTrust trust;
  guint set;
  PrivBlocks *blocks;
  PrivReport *report;
  double *muff;        /* --compare muffliato, PNDP accountings only */
  PrivLocalInfo local; /* --path local: the ball accounted */
} Accounting;

/* Everything the output needs besides the accountings. */
typedef struct {
  const CliAccountSetup *s;
  guint n;
  ProtoAccountPath path;
  const char *path_reason;
  const char *schedule; /* NULL: static */
  guint64 seed;
  gboolean seed_given;
  const CliObserverRun *run; /* the observer path's run, else NULL */
  const char *storage;
  const char *accountant;
  double loss;         /* the simulated run's message loss probability */
  gboolean nonprivate; /* --protocol nonprivate: dsgd with sigma = 0 */
  const char *const *link_specs;
  const ProtoRunStats *stats;
  const PrivTrust *trusts;
  guint n_trusts;
  guint radius; /* --path local (certified bounds), else 0 */
} Context;

/* The path's word in outputs. */
static const char *context_path(const Context *c) {
  return c->radius ? "local" : path_name(c->path);
}

/* ---- Parsing ---- */

#define usage_error(...) cli_usage_error(CMD, __VA_ARGS__)

/* ---- Output ---- */

static const char *trust_assumption(PrivTrust t, ProtoAccountPath path) {
  gboolean obs = path == PROTO_ACCOUNT_OBSERVER;
  switch (t) {
  case PRIV_TRUST_LDP:
    return obs ? "trust ldp: the attackers see every message sent (dropped ones included) and "
                 "know nothing else"
               : "trust ldp: the attackers see every message and know nothing else";
  case PRIV_TRUST_PNDP:
    return obs ? "trust pndp: the attackers see every message delivered to them (late ones "
                 "included) and know their own gradients and every noise variable they own "
                 "(their noise; edge secrets on their edges)"
               : "trust pndp: the attackers see the messages they receive and know their own "
                 "gradients and noise";
  case PRIV_TRUST_SECLDP:
    return obs ? "trust secldp: the attackers see every message sent and know their own "
                 "gradients and every noise variable they own (their noise; edge secrets on "
                 "their edges)"
               : "trust secldp: the attackers see every message and know their own gradients, "
                 "noise and edge secrets";
  }
  return "";
}

static GPtrArray *assumptions(const Context *c) {
  const CliAccountSetup *s = c->s;
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(a, g_strdup_printf("gradients clipped to norm Delta = %g; sensitivities in "
                                     "units of Delta",
                                     s->clip));
  if (c->path == PROTO_ACCOUNT_OBSERVER)
    g_ptr_array_add(a, g_strdup_printf("noise as protocol %s draws it (Gaussian, sigma = %g; "
                                       "docs/design.md \"Noise units\"), read off the "
                                       "provenance of every message",
                                       s->protocol_label, s->sigma));
  else if (s->protocol == PRIV_PROTOCOL_MFDSGD)
    g_ptr_array_add(
        a, g_strdup_printf("Gaussian noise nu * C_local^-1 z per node, nu = sigma * Delta * "
                           "sens_Pi(C_local) (Thm 5.2 bound at b = %u), sigma = %g",
                           s->b, s->sigma));
  else
    g_ptr_array_add(a, g_strdup_printf("Gaussian noise of std sigma * Delta, sigma = %g, "
                                       "independent across nodes and steps",
                                       s->sigma));
  if (c->nonprivate)
    g_ptr_array_add(a, g_strdup("nonprivate: no noise at all, so no protection: mu = inf for "
                                "every victim whose gradients reach the attackers"));
  for (guint i = 0; i < c->n_trusts; i++)
    g_ptr_array_add(a, g_strdup(trust_assumption(c->trusts[i], c->path)));
  g_ptr_array_add(a,
                  g_strdup_printf("participation: cyclic (k,b): each record is used k = %u "
                                  "times, once every b = %u steps%s",
                                  s->T / s->b, s->b, s->b == 1 ? " (user level: every step)" : ""));
  g_ptr_array_add(a, g_strdup("gradients may be chosen adaptively (paper Thm 5.1: the "
                              "knowledge of a causal run is column-echelon)"));
  g_ptr_array_add(a, g_strdup(s->sensitivity == PRIV_SENSITIVITY_EXACT
                                  ? "sensitivity exact: max over patterns of the SDP "
                                    "max <X_u[pi], U>, U psd, diag(U) <= 1 (certified)"
                                  : "sensitivity bound: max over patterns of sum |X_u[pi]| "
                                    "(paper Thm 5.2)"));
  char *topo = c->schedule ? g_strdup_printf("the gossip matrices W_r of schedule %s (seed "
                                             "%" G_GUINT64_FORMAT ")",
                                             c->schedule, c->seed)
                           : g_strdup("a static gossip matrix");
  if (c->path == PROTO_ACCOUNT_OBSERVER) {
    const CliObserverRun *r = c->run;
    g_ptr_array_add(
        a, g_strdup_printf("observer path: one simulated run on %s, mode %s, latency %s, loss "
                           "%s%s, seed %" G_GUINT64_FORMAT ", learning rate %g; the accounting "
                           "is exactly what each attacker set saw in that run (it may differ "
                           "in another run of a random mode, latency, loss or schedule)",
                           topo, r->mode ? r->mode : "sync",
                           r->latency ? r->latency : "constant:ms=0", r->loss ? r->loss : "0",
                           r->n_links ? " with per-link overrides" : "", r->seed, r->lr));
  } else {
    g_ptr_array_add(a, g_strdup_printf("structured path: synchronous run on %s, every message "
                                       "delivered",
                                       topo));
  }
  if (c->radius)
    g_ptr_array_add(
        a, g_strdup_printf("local bounds, radius %u: every node more than %u hops from the "
                           "attackers colludes with them (under ldp, knowing its own noise), "
                           "so each value is a certified upper bound of the exact one (equal "
                           "when the ball covers the graph); only the victims within %u hops "
                           "are reported (docs/local-bounds.md)",
                           c->radius, c->radius, c->radius));
  g_free(topo);
  g_ptr_array_add(a, g_strdup_printf("epsilon from mu-GDP at delta = %g (Dong, Roth & Su 2022, "
                                     "Cor. 1); rdp at alpha = %g",
                                     s->delta, s->alpha));
  if (s->compare_muffliato)
    g_ptr_array_add(a, g_strdup("muffliato_rdp: Muffliato's original bound (Cyffers et al. "
                                "2022, corrected Thm 11) for a synchronous run on the static W, "
                                "user level, clipped at T, for the PNDP accountings"));
  return a;
}

/* Victims reported UNRESOLVED (no protection, no number). */
static guint count_unresolved(const PrivReport *r) {
  guint k = 0;
  for (guint i = 0; i < r->n_victims; i++)
    k += r->victims[i].unresolved;
  return k;
}

/* trust, attackers, unprotected, victims: the issue's per-accounting fields
 * ("unresolved" and each such victim's "status" and "note" only when some
 * victim is). */
static void json_accounting(JsonBuilder *jb, const CliAttackerSets *sets, const Accounting *ac,
                            guint radius) {
  cli_json_string(jb, "trust", priv_trust_name(ac->trust));
  cli_json_begin_array(jb, "attackers");
  for (guint i = 0; i < cli_attacker_sets_size(sets, ac->set); i++)
    cli_json_int(jb, NULL, cli_attacker_sets_members(sets, ac->set)[i]);
  json_builder_end_array(jb);
  const PrivReport *r = ac->report;
  cli_json_begin_array(jb, "unprotected");
  for (guint i = 0; i < r->n_victims; i++)
    if (r->victims[i].unprotected)
      cli_json_int(jb, NULL, r->victims[i].node);
  json_builder_end_array(jb);
  if (count_unresolved(r) > 0) {
    /* Only when there are some: outputs without any stay as they were. */
    cli_json_begin_array(jb, "unresolved");
    for (guint i = 0; i < r->n_victims; i++)
      if (r->victims[i].unresolved)
        cli_json_int(jb, NULL, r->victims[i].node);
    json_builder_end_array(jb);
  }
  if (radius) {
    cli_json_begin_object(jb, "ball");
    cli_json_int(jb, "radius", radius);
    cli_json_int(jb, "nodes", ac->local.ball);
    cli_json_int(jb, "shell", ac->local.shell);
    cli_json_bool(jb, "covered", ac->local.covered);
    json_builder_end_object(jb);
  }
  cli_json_begin_array(jb, "victims");
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    json_builder_begin_object(jb);
    cli_json_int(jb, "node", v->node);
    if (radius) {
      cli_json_string(jb, "bound", "local");
      cli_json_int(jb, "radius", radius);
    }
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
    cli_json_number(jb, "rdp", v->rdp);
    cli_json_number(jb, "epsilon", v->epsilon);
    if (ac->muff)
      cli_json_number(jb, "muffliato_rdp", ac->muff[v->node]);
    json_builder_end_object(jb);
  }
  json_builder_end_array(jb);
}

static void print_json(const Context *c, const CliAttackerSets *sets, const Accounting *acs,
                       guint n_acs) {
  const CliAccountSetup *s = c->s;
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  cli_json_int(jb, "nodes", c->n);
  cli_json_string(jb, "gossip", topo_gossip_kind_name(s->gossip));
  cli_json_string(jb, "protocol", s->protocol_label);
  cli_json_int(jb, "rounds", s->T);
  cli_json_int(jb, "participation_interval", s->b);
  cli_json_string(jb, "sensitivity", priv_sensitivity_name(s->sensitivity));
  cli_json_number(jb, "sigma", s->sigma);
  cli_json_number(jb, "clip", s->clip);
  cli_json_number(jb, "alpha", s->alpha);
  cli_json_number(jb, "delta", s->delta);
  cli_json_string(jb, "path", context_path(c));
  if (c->radius)
    cli_json_int(jb, "radius", c->radius);
  cli_json_string(jb, "path_reason", c->path_reason);
  cli_json_string(jb, "schedule", c->schedule ? c->schedule : "static");
  if (c->schedule || c->run)
    cli_json_int(jb, "seed", (gint64)c->seed);
  if (c->run) {
    const CliObserverRun *r = c->run;
    cli_json_begin_object(jb, "run");
    cli_json_string(jb, "mode", r->mode ? r->mode : "sync");
    cli_json_string(jb, "latency", r->latency ? r->latency : "constant:ms=0");
    cli_json_number(jb, "loss", c->loss);
    cli_json_number(jb, "lr", r->lr);
    cli_json_string(jb, "storage", c->storage);
    cli_json_string(jb, "accountant", c->accountant);
    cli_json_begin_array(jb, "links");
    for (guint i = 0; c->link_specs && c->link_specs[i]; i++)
      cli_json_string(jb, NULL, c->link_specs[i]);
    json_builder_end_array(jb);
    cli_json_int(jb, "messages_sent", (gint64)c->stats->engine.messages_sent);
    cli_json_int(jb, "messages_delivered", (gint64)c->stats->engine.messages_delivered);
    cli_json_int(jb, "messages_dropped", (gint64)c->stats->engine.messages_dropped);
    cli_json_int(jb, "late_discarded", (gint64)c->stats->late_discarded);
    cli_json_int(jb, "partial_gathers", (gint64)c->stats->partial_gathers);
    cli_json_int(jb, "noise_variables", c->stats->n_noise);
    json_builder_end_object(jb);
  }
  cli_json_begin_array(jb, "assumptions");
  GPtrArray *as = assumptions(c);
  for (guint i = 0; i < as->len; i++)
    cli_json_string(jb, NULL, g_ptr_array_index(as, i));
  g_ptr_array_unref(as);
  json_builder_end_array(jb);
  if (n_acs == 1) {
    json_accounting(jb, sets, &acs[0], c->radius);
  } else {
    cli_json_begin_array(jb, "accountings");
    for (guint i = 0; i < n_acs; i++) {
      json_builder_begin_object(jb);
      json_accounting(jb, sets, &acs[i], c->radius);
      json_builder_end_object(jb);
    }
    json_builder_end_array(jb);
  }
  json_builder_end_object(jb);
  cli_json_print(jb);
}

/* %.17g with a '.' decimal point, "inf" when not finite. */
static const char *fmt_num(char *buf, gsize len, const char *fmt, double v) {
  if (!isfinite(v))
    return "inf";
  return g_ascii_formatd(buf, (int)len, fmt, v);
}

/* The tidy privacy table: the scenario runner's columns and writer
 * (SCEN_PRIVACY_CSV_COLUMNS), a set being named by its members. */
static void print_csv(const Context *c, const CliAttackerSets *sets, const Accounting *acs,
                      guint n_acs) {
  GString *s = g_string_new(SCEN_PRIVACY_CSV_COLUMNS "\n");
  /* Local bounds: the path column says so, with the radius. */
  char *path = c->radius ? g_strdup_printf("local:radius=%u", c->radius)
                         : g_strdup(path_name(c->path));
  for (guint a = 0; a < n_acs; a++) {
    char *label = cli_attacker_sets_label(sets, acs[a].set);
    ScenPrivacyCsvSet set = {.collusion = label,
                             .attackers = label,
                             .trust = acs[a].trust,
                             .path = path,
                             .seed = c->seed};
    scen_privacy_csv_rows(s, &set, acs[a].report, acs[a].muff);
    g_free(label);
  }
  g_free(path);
  fputs(s->str, stdout);
  g_string_free(s, TRUE);
}

static void print_table(const Context *c, const CliAttackerSets *sets, const Accounting *acs,
                        guint n_acs) {
  const CliAccountSetup *s = c->s;
  char b[5][G_ASCII_DTOSTR_BUF_SIZE];
  printf("graph          %u nodes, %s gossip, schedule %s\n", c->n,
         topo_gossip_kind_name(s->gossip), c->schedule ? c->schedule : "static");
  printf("protocol       %s, %u steps, sigma = %g, clip = %g\n", s->protocol_label, s->T, s->sigma,
         s->clip);
  if (c->nonprivate)
    printf("note           nonprivate adds no noise: no protection (mu = inf) for any victim "
           "the attackers hear from\n");
  printf("path           %s (%s)\n", context_path(c), c->path_reason);
  if (c->run)
    printf("run            mode %s, latency %s, loss %s, seed %" G_GUINT64_FORMAT
           ", %" G_GUINT64_FORMAT " messages sent, %" G_GUINT64_FORMAT
           " dropped, %" G_GUINT64_FORMAT " late\n",
           c->run->mode ? c->run->mode : "sync",
           c->run->latency ? c->run->latency : "constant:ms=0", c->run->loss ? c->run->loss : "0",
           c->seed, c->stats->engine.messages_sent, c->stats->engine.messages_dropped,
           c->stats->late_discarded);
  printf("participation  every %u step%s (k = %u), %s sensitivity\n", s->b, s->b == 1 ? "" : "s",
         s->T / s->b, priv_sensitivity_name(s->sensitivity));
  for (guint a = 0; a < n_acs; a++) {
    const PrivReport *r = acs[a].report;
    const double *muff = acs[a].muff;
    char *label = cli_attacker_sets_label(sets, acs[a].set);
    printf("\ntrust          %s, attackers %s\n", priv_trust_name(acs[a].trust), label);
    g_free(label);
    guint unprotected = 0;
    for (guint i = 0; i < r->n_victims; i++)
      unprotected += r->victims[i].unprotected;
    printf("unprotected    %u victim%s\n", unprotected, unprotected == 1 ? "" : "s");
    if (c->radius)
      printf("ball           %u nodes within %u hops, %u colluding at %u hops: %s\n",
             acs[a].local.ball, c->radius, acs[a].local.shell, c->radius + 1,
             acs[a].local.covered ? "covers the graph, exact values"
                                  : "certified upper bounds (mu <=)");
    guint unresolved = count_unresolved(r);
    if (unresolved)
      printf("unresolved     %u victim%s (%s)\n", unresolved, unresolved == 1 ? "" : "s",
             PRIV_UNRESOLVED_NOTE);
    printf("\n");
    printf("%6s %8s %12s %12s %12s %12s", "node", "distance", "sensitivity", "mu", "rdp",
           "epsilon");
    if (muff)
      printf(" %14s", "muffliato_rdp");
    printf("\n");
    for (guint i = 0; i < r->n_victims; i++) {
      const PrivVictim *v = &r->victims[i];
      char dist[16] = "-";
      if (v->distance >= 0)
        g_snprintf(dist, sizeof dist, "%d", v->distance);
      char mu[G_ASCII_DTOSTR_BUF_SIZE + 3];
      g_snprintf(mu, sizeof mu, "%s%s", c->radius && !acs[a].local.covered ? "<=" : "",
                 fmt_num(b[1], sizeof b[1], "%.6g", v->mu));
      printf("%6u %8s %12s %12s %12s %12s", v->node, dist,
             fmt_num(b[0], sizeof b[0], "%.6g", v->sensitivity), mu,
             fmt_num(b[2], sizeof b[2], "%.6g", v->rdp),
             fmt_num(b[3], sizeof b[3], "%.6g", v->epsilon));
      if (muff)
        printf(" %14s", fmt_num(b[4], sizeof b[4], "%.6g", muff[v->node]));
      if (v->unresolved)
        printf("  unresolved");
      printf("\n");
    }
  }
  printf("\n(rdp at alpha = %g; epsilon at delta = %g)\n", s->alpha, s->delta);
}

/* One stderr line per accounting with unresolved victims: whatever the
 * format, a user must not miss that no number could be given for them. */
static void warn_unresolved(const CliAttackerSets *sets, const Accounting *acs, guint n_acs) {
  for (guint a = 0; a < n_acs; a++) {
    const PrivReport *r = acs[a].report;
    if (count_unresolved(r) == 0)
      continue;
    GString *nodes = g_string_new(NULL);
    for (guint i = 0; i < r->n_victims; i++)
      if (r->victims[i].unresolved)
        g_string_append_printf(nodes, "%s%u", nodes->len ? ", " : "", r->victims[i].node);
    char *label = cli_attacker_sets_label(sets, acs[a].set);
    fprintf(stderr,
            "dpgossip " CMD ": warning: trust %s, attackers %s: victim%s %s: %s (status "
            "unresolved)\n",
            priv_trust_name(acs[a].trust), label, count_unresolved(r) == 1 ? "" : "s", nodes->str,
            PRIV_UNRESOLVED_NOTE);
    g_free(label);
    g_string_free(nodes, TRUE);
  }
}

/* ---- The command ---- */

/* Exit status of an error from the protocol registry or a spec parser:
 * the user's option (2), or a file or run that failed (1). */
static int spec_status(const GError *e) {
  if (e->domain == G_OPTION_ERROR)
    return CLI_EXIT_USAGE;
  if (e->domain == PROTO_ERROR)
    return e->code == PROTO_ERROR_IO || e->code == PROTO_ERROR_FORMAT ||
                   e->code == PROTO_ERROR_STALLED || e->code == PROTO_ERROR_FAILED
               ? CLI_EXIT_FAILURE
               : CLI_EXIT_USAGE;
  return CLI_EXIT_FAILURE;
}

/* ---- The structured path, one accounting at a time (shared out under mpirun) ---- */

typedef struct {
  const CliAccountSetup *s;
  const CliAttackerSets *sets;
  const Accounting *acs;
  TopoSchedule *sched;
  TopoGossip *w, *wm; /* wm: --compare muffliato */
  const TopoGraph *g;
  guint n;
  PrivAccountOptions opt;
  guint radius;          /* --path local, else 0 */
  CliProgress *progress; /* NULL: -q, or not rank 0 */
  guint n_items;
} AccountJob;

/* The progress of accounting @item out of @n_items on the job's line. */
typedef struct {
  const AccountJob *job;
  guint item;
} ItemProgress;

static void item_progress(double fraction, const char *what, gpointer data) {
  const ItemProgress *ip = data;
  char *line = ip->job->n_items > 1
                   ? g_strdup_printf("%s, attacker set %u/%u", what, ip->item + 1, ip->job->n_items)
                   : g_strdup(what);
  cli_progress_update_fraction(ip->job->progress, (ip->item + fraction) / ip->job->n_items, line);
  g_free(line);
}

/* A report and its Muffliato bound as they travel between MPI ranks. */
typedef struct {
  guint32 T, b, sensitivity, n_victims, has_muff;
  double alpha, delta;
  PrivLocalInfo local;
} ReportHeader;

/* Accounting @a (its blocks, report and Muffliato bound) as bytes. */
static GBytes *account_one(guint a, gpointer data, GError **error) {
  const AccountJob *j = data;
  CliAccountSetup one = *j->s; /* shallow: borrows the set */
  one.trust = j->acs[a].trust;
  one.attackers = (guint *)cli_attacker_sets_members(j->sets, j->acs[a].set);
  one.n_attackers = cli_attacker_sets_size(j->sets, j->acs[a].set);
  ItemProgress ip = {j, a};
  if (j->progress && !j->radius) {
    one.progress = item_progress;
    one.progress_data = &ip;
  }
  PrivLocalInfo local = {0};
  PrivBlocks *blocks = NULL;
  PrivReport *r = NULL;
  if (j->radius) {
    /* One accounting names its ball first (the structured engine has no
     * progress hook inside a local accounting); several advance the line. */
    r = cli_account_report_local(&one, j->w, j->sched, j->radius, &j->opt, &local,
                                 j->progress && j->n_items == 1 ? CMD : NULL, error);
    if (r != NULL && j->progress)
      item_progress(1.0, "local bounds", &ip);
  } else if ((blocks = j->sched ? cli_account_blocks_schedule(&one, j->sched, error)
                                : cli_account_blocks_structured(&one, j->w, error)))
    r = priv_account_report(blocks, j->g, &j->opt, error);
  gboolean muff_wanted = j->s->compare_muffliato && one.trust == PRIV_TRUST_PNDP;
  double *muff = r && muff_wanted
                     ? priv_muffliato_rdp(j->wm, j->s->T, one.attackers, one.n_attackers,
                                          j->s->alpha, j->s->sigma, error)
                     : NULL;
  GBytes *out = NULL;
  if (r != NULL && (muff != NULL || !muff_wanted)) {
    ReportHeader h = {r->T,         r->b,     r->sensitivity, r->n_victims,
                      muff != NULL, r->alpha, r->delta,       local};
    GByteArray *b = g_byte_array_new();
    g_byte_array_append(b, (const guint8 *)&h, sizeof h);
    g_byte_array_append(b, (const guint8 *)r->victims, r->n_victims * sizeof *r->victims);
    if (muff != NULL)
      g_byte_array_append(b, (const guint8 *)muff, j->n * sizeof *muff);
    out = g_byte_array_free_to_bytes(b);
  }
  g_free(muff);
  priv_report_free(r);
  priv_blocks_free(blocks);
  return out;
}

/* account_one's bytes back into @ac's report and Muffliato bound. */
static void account_unpack(GBytes *bytes, guint n, Accounting *ac) {
  gsize len;
  const guint8 *p = g_bytes_get_data(bytes, &len);
  ReportHeader h;
  memcpy(&h, p, sizeof h);
  PrivReport *r = g_new0(PrivReport, 1);
  *r = (PrivReport){h.T, h.b, h.sensitivity, h.alpha, h.delta, h.n_victims, NULL};
  r->victims = g_memdup2(p + sizeof h, h.n_victims * sizeof *r->victims);
  ac->report = r;
  ac->local = h.local;
  if (h.has_muff)
    ac->muff = g_memdup2(p + sizeof h + h.n_victims * sizeof *r->victims, n * sizeof(double));
}

/* ---- Options -> request -> plan -> accountings -> output ---- */

/* The command line as typed (owned strings, freed by options_clear). */
typedef struct {
  CliGraphOptions graph;
  CliPluginOptions plugins;
  gint rounds, interval, epochs, radius; /* epochs: CLI_UNSET when not given */
  double clip, alpha, delta, lr;
  char *sigma_text; /* NULL: not given (sigma 1) */
  char *protocol, *trust, *sensitivity, *compare, *format, *path, *mode, *latency, *loss, *schedule,
      *seed, *storage, *accountant;
  char **attackers, **links;
  gboolean quiet;
} Options;

/* What the options ask for, every value checked (before any graph). */
typedef struct {
  CliAccountSetup s;
  CliAccountProtocol proto;
  gboolean nonprivate; /* --protocol nonprivate: dsgd with sigma = 0 */
  CliAttackerSets sets;
  GArray *trusts;        /* PrivTrust, distinct */
  GArray *links;         /* ProtoAccountLink */
  gboolean path_auto;    /* --path auto (default): proto_account_plan decides */
  ProtoAccountPath path; /* else the path asked for */
  guint radius;          /* --path local (the structured path's bounds), else 0 */
  ProtoMode mode;
  double loss;
  SimLinStorage storage;
  gboolean streaming;
  guint64 seed;
  CliFormat format;
} Request;

/* The accountings to compute, on the graph and schedule of the request. */
typedef struct {
  TopoGraph *g;
  guint n;
  TopoSchedule *sched; /* NULL: static */
  ProtoAccountPath path;
  const char *path_reason;
  CliObserverRun run; /* the observer path's simulation */
  ProtoRunStats stats;
  Accounting *acs; /* every attacker set under every trust model, set-major */
  guint n_acs;
} Plan;

static GOptionContext *options_context(Options *o) {
  GOptionEntry entries[] = {
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &o->protocol,
       "Any registered protocol spec: dsgd (default), nonprivate, muffliato:K=k, antipgd, "
       "mfdsgd:C=FAMILY|FILE, mafalda, decor[:sigma_secret=S], zipdl[:units=gradient], or a "
       "plugin's (dpgossip protocols lists them)",
       "SPEC"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &o->rounds,
       "Gradient steps T (required; Muffliato gossips K rounds per step)", "T"},
      {"participation-interval", 'b', 0, G_OPTION_ARG_INT, &o->interval,
       "Steps between two uses of a record, b (divides T; default 1: user level)", "B"},
      {"epochs", 'k', 0, G_OPTION_ARG_INT, &o->epochs,
       "Uses of each record, k: T = k b (instead of -T, or checked against it)", "K"},
      {"trust", 0, 0, G_OPTION_ARG_STRING, &o->trust,
       "Trust model: ldp, pndp or secldp, or a comma-separated list (required)", "MODEL"},
      {"attackers", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &o->attackers,
       "Attacker sets: all (every node in turn, alone), ids separated by ',' are accounted "
       "each alone, ids joined by '+' form one collusion set: 0,5 or 0+5 (required; "
       "repeatable: every set is accounted, under every trust model, from one run)",
       "IDS"},
      {"sensitivity", 0, 0, G_OPTION_ARG_STRING, &o->sensitivity,
       "bound (default, paper Thm 5.2) or exact (SDP, never above the bound)", "KIND"},
      {"sigma", 0, 0, G_OPTION_ARG_STRING, &o->sigma_text,
       "Noise multiplier: noise std sigma * clip (default 1)", "SIGMA"},
      {"clip", 0, 0, G_OPTION_ARG_DOUBLE, &o->clip, "Gradient clipping norm Delta (default 1)",
       "DELTA"},
      {"alpha", 0, 0, G_OPTION_ARG_DOUBLE, &o->alpha, "Renyi order of the rdp column (default 2)",
       "ALPHA"},
      {"delta", 0, 0, G_OPTION_ARG_DOUBLE, &o->delta, "delta of the epsilon column (default 1e-6)",
       "DELTA"},
      {"compare", 0, 0, G_OPTION_ARG_STRING, &o->compare,
       "Add another accounting: muffliato (Cyffers et al. 2022, D-SGD under PNDP)", "NAME"},
      {"path", 0, 0, G_OPTION_ARG_STRING, &o->path,
       "How to account: auto (default: structured when it describes the run exactly), "
       "structured (W-product structure, no simulation), observer (simulate the protocol, "
       "account from what the attackers saw) or local (certified upper bounds for the "
       "victims within --radius hops, from that ball alone)",
       "PATH"},
      {"radius", 0, 0, G_OPTION_ARG_INT, &o->radius,
       "--path local: hops around the attackers whose victims are bounded (>= 1); every node "
       "farther away colludes with the attackers",
       "R"},
      {"schedule", 0, 0, G_OPTION_ARG_STRING, &o->schedule,
       "Time-varying gossip over the graph: static (default), matching, exponential, "
       "edge-failure:p=P, churn:...",
       "SPEC"},
      {"seed", 's', 0, G_OPTION_ARG_STRING, &o->seed,
       "Seed of the schedule and of the simulated run (default 0)", "N"},
      {"mode", 0, 0, G_OPTION_ARG_STRING, &o->mode,
       "Observer path: gossip mode sync (default), deadline:ms=D or stale:s=S", "MODE"},
      {"latency", 0, 0, G_OPTION_ARG_STRING, &o->latency,
       "Observer path: link latency constant:ms=X (default 0), uniform:min=A,max=B, "
       "lognormal:mu=M,sigma=S, links:file=PATH,unit=ms|s, country:rtt=PATH,seed=S[,intra=PATH]",
       "SPEC"},
      {"loss", 0, 0, G_OPTION_ARG_STRING, &o->loss,
       "Observer path: message loss probability (needs an asynchronous --mode)", "P"},
      {"link", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->links,
       "Observer path: override the directed link FROM -> TO: FROM:TO=down or "
       "FROM:TO=LATENCY (repeatable)",
       "FROM:TO=SPEC"},
      {"lr", 0, 0, G_OPTION_ARG_DOUBLE, &o->lr,
       "Observer path: learning rate eta (default 0.1; matters only for noise added to the "
       "model, as zipdl's default units)",
       "ETA"},
      {"storage", 0, 0, G_OPTION_ARG_STRING, &o->storage,
       "Observer path: provenance storage sparse (default) or dense", "KIND"},
      {"accountant", 0, 0, G_OPTION_ARG_STRING, &o->accountant,
       "Observer path: streaming (default: per round, flat memory; needs sparse storage) or "
       "dense (every row, factorized at the end: the reference)",
       "KIND"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &o->format, "Output: table (default), json or csv",
       "FORMAT"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet,
       "No progress line (on a terminal: refreshed; elsewhere: every 10 s)", NULL},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx = g_option_context_new(
      "- per-victim privacy of a decentralized protocol (accounting only)");
  cli_graph_options_add(ctx, &o->graph);
  g_option_context_add_main_entries(ctx, entries, NULL);
  cli_plugin_options_add(ctx, &o->plugins);
  g_option_context_set_description(
      ctx, "Every node outside an attacker set is a victim; for each: its distance to the\n"
           "attackers, the sensitivity of what they learn of its gradients, mu (mu-GDP),\n"
           "the Renyi DP at alpha and epsilon at delta. Victims the attackers see without\n"
           "noise are 'unprotected' (null in JSON, inf in CSV and tables). Victims double\n"
           "precision cannot account (mu > 1e8, or a range decision too close to call) are\n"
           "'unresolved': no protection, no number (null/inf, a warning on stderr, status\n"
           "and note fields in JSON, the status column in CSV).\n"
           "\n"
           "Several --attackers sets and --trust models give one accounting per pair (JSON:\n"
           "an 'accountings' array; CSV: one row per accounting and victim, the columns of\n"
           "`dpgossip run`'s privacy.csv), all from one run.\n"
           "\n"
           "Examples:\n"
           "  dpgossip account --generate florentine --rounds 10 --trust pndp --attackers 0 "
           "--compare muffliato\n"
           "  dpgossip account --graph fb.edges --lcc -T 320 --trust pndp -a 0+5 --sensitivity "
           "exact --format json\n"
           "  dpgossip account --generate florentine -T 8 --trust ldp,secldp -a 0 -a 3 "
           "--protocol decor\n"
           "  dpgossip account --generate florentine -T 8 --trust pndp -a 0 --mode deadline:ms=5 "
           "--latency constant:ms=1 --link 8:1=constant:ms=1000\n"
           "  dpgossip account --generate regular:n=1000000,d=8,seed=1 -T 100 --trust pndp -a 0 "
           "--path local --radius 3\n");
  return ctx;
}

static void options_clear(Options *o) {
  cli_graph_options_clear(&o->graph);
  cli_plugin_options_clear(&o->plugins);
  char **strings[] = {&o->sigma_text, &o->protocol, &o->trust,   &o->sensitivity, &o->compare, &o->format,
                      &o->path,     &o->mode,    &o->latency,     &o->loss,    &o->schedule,
                      &o->seed,     &o->storage, &o->accountant};
  for (guint i = 0; i < G_N_ELEMENTS(strings); i++)
    g_clear_pointer(strings[i], g_free);
  g_clear_pointer(&o->attackers, g_strfreev);
  g_clear_pointer(&o->links, g_strfreev);
}

static void request_init(Request *q) {
  *q = (Request){.trusts = g_array_new(FALSE, FALSE, sizeof(PrivTrust)),
                 .links = g_array_new(FALSE, FALSE, sizeof(ProtoAccountLink)),
                 .path_auto = TRUE,
                 .mode = {.kind = PROTO_MODE_SYNC},
                 .storage = SIM_LIN_SPARSE,
                 .format = CLI_FORMAT_TABLE};
  cli_attacker_sets_init(&q->sets);
}

static void request_clear(Request *q) {
  cli_attacker_sets_clear(&q->sets);
  g_array_unref(q->trusts);
  g_array_unref(q->links);
  cli_account_setup_clear(&q->s);
  cli_account_protocol_clear(&q->proto);
}

static void plan_clear(Plan *p) {
  for (guint a = 0; a < p->n_acs; a++) {
    g_free(p->acs[a].muff);
    priv_report_free(p->acs[a].report);
    priv_blocks_free(p->acs[a].blocks);
  }
  g_free(p->acs);
  topo_schedule_free(p->sched);
  topo_graph_free(p->g);
}

/* A usage error from a check's @error (freed): its message, the --help hint. */
static int usage_fail(GError *error) {
  int status = usage_error("%s", error->message);
  g_error_free(error);
  return status;
}

/* The options of a schedule other than static, or NULL. */
static const char *schedule_spec(const Options *o) {
  return o->schedule && !g_str_equal(o->schedule, "static") ? o->schedule : NULL;
}

/* ---- Validate: every option alone, then the ones that exclude each other.
 * Each step returns CLI_EXIT_OK to go on, else the exit status (the message
 * printed). The order is the order of the messages a user fixes. ---- */

/* T, b, the trust models and the attacker sets. */
static int validate_what(const Options *o, Request *q) {
  GError *error = NULL;
  gint T = o->rounds, b = o->interval, k = o->epochs;
  if (k != CLI_UNSET) {
    if (k <= 0)
      return usage_error("--epochs k must be positive (got %d)", k);
    gint t = T == 0 ? CLI_UNSET : T;
    /* -b keeps its default 1 (user level) unless -T and -k fix it. */
    if (t == CLI_UNSET && b == CLI_UNSET)
      b = 1;
    if (!cli_horizon_resolve(&t, &k, &b, &error))
      return usage_fail(error);
    T = t == CLI_UNSET ? 0 : t;
  }
  if (b == CLI_UNSET)
    b = 1;
  if (!proto_account_check_horizon(T, b, &error))
    return usage_fail(error);
  q->s.T = (guint)T;
  q->s.b = (guint)b;
  if (!o->trust)
    return usage_error("--trust is required: ldp, pndp or secldp");
  if (!proto_account_parse_trusts(o->trust, q->trusts, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  if (!o->attackers || !o->attackers[0])
    return usage_error("--attackers: give at least one node id, e.g. --attackers 0, 0,5 "
                       "(each alone), 0+5 (a collusion set) or all");
  for (guint i = 0; o->attackers[i]; i++)
    if (!cli_attacker_sets_parse(&q->sets, o->attackers[i], &error))
      return cli_fail(CMD, error, CLI_EXIT_USAGE);
  return CLI_EXIT_OK;
}

/* The protocol (nonprivate: dsgd without noise), its sensitivity and numbers. */
static int validate_protocol(const Options *o, Request *q) {
  GError *error = NULL;
  double given;
  if (!cli_number_option("--sigma", o->sigma_text, &given, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  q->nonprivate = cli_is_nonprivate(o->protocol);
  if (q->nonprivate && !isnan(given) && given != 0)
    return usage_error("--protocol nonprivate adds no noise: drop --sigma %g", given);
  double sigma = q->nonprivate ? 0.0 : isnan(given) ? 1.0 : given;
  const char *spec = q->nonprivate       ? "dsgd"
                     : o->protocol       ? o->protocol
                     : o->plugins.single ? o->plugins.single
                                         : "dsgd";
  if (!cli_account_resolve_protocol(spec, &q->s, &q->proto, &error))
    return cli_fail(CMD, error, spec_status(error));
  if (q->nonprivate) {
    g_free(q->s.protocol_label);
    q->s.protocol_label = g_strdup(CLI_NONPRIVATE);
  }
  if (o->sensitivity && !priv_sensitivity_parse(o->sensitivity, &q->s.sensitivity, &error)) {
    g_prefix_error(&error, "--sensitivity: ");
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  }
  if (!cli_account_check_numbers(sigma, o->clip, o->alpha, o->delta, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  q->s.sigma = sigma;
  q->s.clip = o->clip;
  q->s.alpha = o->alpha;
  q->s.delta = o->delta;
  return CLI_EXIT_OK;
}

/* --path and what only a simulated run has: mode, latency, loss, links,
 * lr, storage, accountant; and the seed. */
static int validate_run(const Options *o, Request *q) {
  GError *error = NULL;
  if (o->path && !g_str_equal(o->path, "auto")) {
    if (!g_str_equal(o->path, "structured") && !g_str_equal(o->path, "observer") &&
        !g_str_equal(o->path, "local"))
      return usage_error("--path: unknown path '%s' (valid: auto, structured, observer, local)",
                         o->path);
    q->path_auto = FALSE;
    q->path = g_str_equal(o->path, "observer") ? PROTO_ACCOUNT_OBSERVER : PROTO_ACCOUNT_STRUCTURED;
  }
  gboolean local = o->path && g_str_equal(o->path, "local");
  if (o->radius != -1 && !local)
    return usage_error("--radius %d: the radius is for --path local (certified bounds around "
                       "the attackers)",
                       o->radius);
  if (local && o->radius == -1)
    return usage_error("--path local needs --radius R: the hops around the attackers whose "
                       "victims are bounded (R >= 1; larger is tighter and slower)");
  if (local && o->radius < 1)
    return usage_error("--radius must be at least 1 (got %d): radius 0 holds no victim", o->radius);
  q->radius = local ? (guint)o->radius : 0;
  if (!proto_account_parse_run_options(o->mode, o->latency, o->loss, &q->mode, &q->loss, &error)) {
    /* The parsers' errors as they are; the loss rule with the --help hint. */
    int status = error->domain == G_OPTION_ERROR ? usage_error("%s", error->message)
                                                 : cli_fail(CMD, error, CLI_EXIT_USAGE);
    g_clear_error(&error);
    return status;
  }
  for (guint i = 0; o->links && o->links[i]; i++) {
    ProtoAccountLink l;
    if (!proto_account_parse_link(o->links[i], &l, &error))
      return cli_fail(CMD, error, CLI_EXIT_USAGE);
    g_array_append_val(q->links, l);
  }
  if (!proto_account_check_lr(o->lr, &error))
    return usage_fail(error);
  if (o->storage) {
    if (g_str_equal(o->storage, "dense"))
      q->storage = SIM_LIN_DENSE;
    else if (!g_str_equal(o->storage, "sparse"))
      return usage_error("--storage: unknown provenance storage '%s' (valid: sparse, dense)",
                         o->storage);
  }
  /* Streaming is the default; sparse storage is what it rebases, so an
   * explicit --storage dense keeps the dense accountant. */
  q->streaming = q->storage != SIM_LIN_DENSE;
  if (o->accountant) {
    if (!g_str_equal(o->accountant, "streaming") && !g_str_equal(o->accountant, "dense"))
      return usage_error("--accountant: unknown accountant '%s' (valid: dense, streaming)",
                         o->accountant);
    q->streaming = g_str_equal(o->accountant, "streaming");
  }
  if (!proto_account_check_accountant(q->streaming, q->storage, &error))
    return usage_fail(error);
  if (o->seed && !g_ascii_string_to_unsigned(o->seed, 10, 0, G_MAXUINT64, &q->seed, &error)) {
    g_prefix_error(&error, "--seed: ");
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  }
  return CLI_EXIT_OK;
}

/* --path structured accounts a synchronous run it does not simulate. */
static int validate_structured(const Options *o, const Request *q) {
  if (q->path_auto || q->path != PROTO_ACCOUNT_STRUCTURED)
    return CLI_EXIT_OK;
  if (q->radius && !q->proto.structured)
    return usage_error("--path local bounds the structured path's accounting: it knows dsgd, "
                       "muffliato, antipgd and mfdsgd/mafalda with a given C, not '%s' (use "
                       "--path observer or auto)",
                       q->proto.run_spec);
  ProtoAccountStructuredAsk ask = {.known = q->proto.structured,
                                   .protocol = q->proto.run_spec,
                                   .async_mode = o->mode && q->mode.kind != PROTO_MODE_SYNC,
                                   .latency = o->latency != NULL,
                                   .loss = o->loss != NULL,
                                   .links = o->links != NULL,
                                   .lr = !isnan(o->lr),
                                   .storage = o->storage != NULL,
                                   .accountant = o->accountant != NULL};
  GError *error = NULL;
  if (proto_account_check_structured(&ask, &error))
    return CLI_EXIT_OK;
  if (q->radius)
    g_prefix_error(&error, "--path local: ");
  return usage_fail(error);
}

/* --compare, --format and --gossip. */
static int validate_output(Options *o, Request *q) {
  GError *error = NULL;
  if (o->compare) {
    gboolean pndp = FALSE;
    for (guint i = 0; i < q->trusts->len; i++)
      pndp |= g_array_index(q->trusts, PrivTrust, i) == PRIV_TRUST_PNDP;
    if (!proto_account_check_compare(o->compare, q->proto.name, pndp, schedule_spec(o), &error))
      return usage_fail(error);
    q->s.compare_muffliato = TRUE;
  }
  if (o->format &&
      !cli_format_parse(o->format,
                        (1u << CLI_FORMAT_TABLE) | (1u << CLI_FORMAT_JSON) | (1u << CLI_FORMAT_CSV),
                        &q->format, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  if (!cli_graph_options_gossip(&o->graph, &q->s.gossip, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  return CLI_EXIT_OK;
}

static int validate(Options *o, Request *q) {
  GError *error = NULL;
  if (!cli_plugin_options_load(&o->plugins, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  int status = validate_what(o, q);
  if (status == CLI_EXIT_OK)
    status = validate_protocol(o, q);
  if (status == CLI_EXIT_OK)
    status = validate_run(o, q);
  if (status == CLI_EXIT_OK)
    status = validate_structured(o, q);
  if (status == CLI_EXIT_OK)
    status = validate_output(o, q);
  return status;
}

/* ---- Plan: the graph and schedule, the checks that need them, the path
 * (proto_account_plan) and one Accounting per (attacker set, trust). ---- */

/* The graph, the schedule and the checks that need them (the attacker check
 * expands "all" to every node, hence q is not const). */
static int plan_graph(const Options *o, Request *q, Plan *p) {
  GError *error = NULL;
  p->g = cli_graph_options_build(&o->graph, &error);
  if (!p->g)
    return cli_fail(CMD, error, cli_graph_options_status(&o->graph, error));
  p->n = topo_graph_n_nodes(p->g);
  if (!cli_attacker_sets_check(&q->sets, p->n, cli_graph_options_label(&o->graph), &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  cli_attacker_sets_warn_isolated(&q->sets, p->g, CMD);
  for (guint i = 0; i < q->links->len; i++) {
    const ProtoAccountLink *l = &g_array_index(q->links, ProtoAccountLink, i);
    if (l->from >= p->n || l->to >= p->n || l->from == l->to)
      return usage_error("--link %u:%u: nodes must be distinct and below %u", l->from, l->to, p->n);
  }
  if (schedule_spec(o)) {
    p->sched = topo_schedule_new(o->schedule, p->g, q->s.gossip, q->seed, &error);
    if (!p->sched) {
      g_prefix_error(&error, "--schedule: ");
      return cli_fail(CMD, error, cli_error_status(error));
    }
  }
  return CLI_EXIT_OK;
}

/* The path (proto_account_plan, or the one asked for), the accountings and
 * the simulation the observer path would run. Cannot fail. */
static void plan_accountings(const Options *o, const Request *q, Plan *p) {
  if (q->path_auto) {
    ProtoAccountCase pc = {.known = q->proto.structured,
                           .mode = q->mode.kind,
                           .loss = q->loss,
                           .n_links = q->links->len,
                           .run_options = o->latency || !isnan(o->lr) || o->storage};
    p->path = proto_account_plan(&pc, &p->path_reason);
  } else {
    p->path = q->path;
    p->path_reason = q->radius                             ? "asked: --path local"
                     : q->path == PROTO_ACCOUNT_STRUCTURED ? "asked: --path structured"
                                                           : "asked: --path observer";
  }
  guint n_sets = cli_attacker_sets_n(&q->sets), n_trusts = q->trusts->len;
  p->n_acs = n_sets * n_trusts;
  p->acs = g_new0(Accounting, p->n_acs);
  for (guint i = 0; i < n_sets; i++)
    for (guint j = 0; j < n_trusts; j++) {
      p->acs[i * n_trusts + j].set = i;
      p->acs[i * n_trusts + j].trust = g_array_index(q->trusts, PrivTrust, j);
    }
  p->run = (CliObserverRun){.protocol = q->proto.run_spec,
                            .graph = p->g,
                            .schedule = p->sched,
                            .mode = o->mode,
                            .latency = o->latency,
                            .loss = o->loss,
                            .lr = isnan(o->lr) ? 0.1 : o->lr,
                            .seed = q->seed,
                            .storage = q->storage,
                            .streaming = q->streaming,
                            .links = (const ProtoAccountLink *)q->links->data,
                            .n_links = q->links->len};
}

/* ---- Execute: the per-victim reports of every accounting ---- */

/* The structured path, one accounting at a time (shared out under mpirun). */
static int execute_structured(Request *q, Plan *p, gboolean quiet, guint threads) {
  GError *error = NULL;
  q->s.threads = threads;
  if (!cli_account_build_c(&q->s, &q->proto, &error))
    return cli_fail(CMD, error, CLI_EXIT_FAILURE);
  AccountJob job = {
      &q->s,
      &q->sets,
      p->acs,
      p->sched,
      NULL,
      NULL,
      p->g,
      p->n,
      {.b = q->s.b, .sensitivity = q->s.sensitivity, .alpha = q->s.alpha, .delta = q->s.delta},
      q->radius,
      /* Rank 0's line stands for the job (items are dealt round-robin). */
      scen_mpi_rank() == 0 ? cli_progress_new(CMD, quiet) : NULL,
      p->n_acs};
  job.w = p->sched ? NULL : topo_gossip_new(p->g, q->s.gossip, &error);
  gboolean ok = p->sched || job.w;
  if (ok && q->s.compare_muffliato)
    ok = (job.wm = topo_gossip_new(p->g, q->s.gossip, &error)) != NULL;
  GBytes **res = NULL;
  ok = ok && scen_mpi_map(p->n_acs, account_one, &job, &res, &error);
  cli_progress_free(job.progress);
  for (guint a = 0; res != NULL && a < p->n_acs; a++) {
    account_unpack(res[a], p->n, &p->acs[a]);
    g_bytes_unref(res[a]);
  }
  g_free(res);
  topo_gossip_free(job.w);
  topo_gossip_free(job.wm);
  return ok ? CLI_EXIT_OK : cli_fail(CMD, error, CLI_EXIT_FAILURE);
}

/* The observer path: one simulated run records every view. */
static int execute_observer(const Options *o, const Request *q, Plan *p) {
  GError *error = NULL;
  const CliAccountSetup *s = &q->s;
  p->run.progress = cli_progress_new(CMD, o->quiet);
  ProtoObservedView *views = g_new(ProtoObservedView, p->n_acs);
  for (guint a = 0; a < p->n_acs; a++)
    views[a] = (ProtoObservedView){p->acs[a].trust,
                                   cli_attacker_sets_members(&q->sets, p->acs[a].set),
                                   cli_attacker_sets_size(&q->sets, p->acs[a].set)};
  PrivBlocks **bl = cli_account_blocks_observer(s, &p->run, views, p->n_acs, &p->stats, &error);
  g_clear_pointer(&p->run.progress, cli_progress_free);
  g_free(views);
  if (!bl)
    return cli_fail(CMD, error, spec_status(error));
  for (guint a = 0; a < p->n_acs; a++)
    p->acs[a].blocks = bl[a];
  g_free(bl);
  PrivAccountOptions opt = {
      .b = s->b, .sensitivity = s->sensitivity, .alpha = s->alpha, .delta = s->delta};
  TopoGossip *wm = s->compare_muffliato ? topo_gossip_new(p->g, s->gossip, &error) : NULL;
  gboolean ok = !s->compare_muffliato || wm;
  for (guint a = 0; a < p->n_acs && ok; a++) {
    Accounting *ac = &p->acs[a];
    ok = (ac->report = priv_account_report(ac->blocks, p->g, &opt, &error)) != NULL;
    if (ok && s->compare_muffliato && ac->trust == PRIV_TRUST_PNDP)
      ok = (ac->muff = priv_muffliato_rdp(wm, s->T, cli_attacker_sets_members(&q->sets, ac->set),
                                          cli_attacker_sets_size(&q->sets, ac->set), s->alpha,
                                          s->sigma, &error)) != NULL;
  }
  topo_gossip_free(wm);
  return ok ? CLI_EXIT_OK : cli_fail(CMD, error, CLI_EXIT_FAILURE);
}

/* ---- Print (rank 0 only: it holds everyone's accountings) ---- */

static void print(const Options *o, const Request *q, const Plan *p) {
  Context c = {.s = &q->s,
               .n = p->n,
               .path = p->path,
               .path_reason = p->path_reason,
               .schedule = p->sched ? o->schedule : NULL,
               .seed = q->seed,
               .run = p->path == PROTO_ACCOUNT_OBSERVER ? &p->run : NULL,
               .storage = q->storage == SIM_LIN_DENSE ? "dense" : "sparse",
               .accountant = q->streaming ? "streaming" : "dense",
               .loss = q->loss,
               .nonprivate = q->nonprivate,
               .link_specs = (const char *const *)o->links,
               .stats = &p->stats,
               .trusts = (const PrivTrust *)(void *)q->trusts->data,
               .n_trusts = q->trusts->len,
               .radius = q->radius};
  warn_unresolved(&q->sets, p->acs, p->n_acs);
  if (q->format == CLI_FORMAT_JSON)
    print_json(&c, &q->sets, p->acs, p->n_acs);
  else if (q->format == CLI_FORMAT_CSV)
    print_csv(&c, &q->sets, p->acs, p->n_acs);
  else
    print_table(&c, &q->sets, p->acs, p->n_acs);
}

int cli_cmd_account(int argc, char **argv) {
  /* Under mpirun or srun the accountings (structured path) are shared out;
   * the observer path's one simulation is rank 0's alone. */
  gboolean mpi = FALSE;
  guint rank = 0, mpi_size = 1, mpi_local = 1;
  if (!cli_mpi_join(CMD, &mpi, &rank, &mpi_size, &mpi_local))
    return CLI_EXIT_FAILURE;
  Options o = {.interval = CLI_UNSET,
               .epochs = CLI_UNSET,
               .radius = -1,
               .clip = 1.0,
               .alpha = 2.0,
               .delta = 1e-6,
               .lr = NAN};
  Request q;
  Plan p = {0};
  request_init(&q);
  GOptionContext *ctx = options_context(&o);
  int status = cli_parse(ctx, &argc, &argv) ? validate(&o, &q) : CLI_EXIT_USAGE;
  if (status == CLI_EXIT_OK)
    status = plan_graph(&o, &q, &p);
  if (status == CLI_EXIT_OK)
    plan_accountings(&o, &q, &p);
  if (status == CLI_EXIT_OK && p.path == PROTO_ACCOUNT_STRUCTURED)
    /* The processors of this machine, shared by its ranks (the blocks do
     * not depend on the thread count). */
    status = execute_structured(&q, &p, o.quiet, MAX(1u, g_get_num_processors() / mpi_local));
  else if (status == CLI_EXIT_OK && rank == 0)
    status = execute_observer(&o, &q, &p);
  if (status == CLI_EXIT_OK && rank == 0)
    print(&o, &q, &p);
  plan_clear(&p);
  request_clear(&q);
  options_clear(&o);
  g_option_context_free(ctx);
  return mpi ? scen_mpi_finalize(status) : status;
}
