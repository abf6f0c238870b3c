/*
 * cli/train_privacy.c: the guarantee of each node of a `dpgossip train`
 * run, by the accounting `dpgossip account` uses: the structured path when
 * it describes the run exactly (proto_account_plan), else an observer on the
 * training run itself, so an asynchronous run is accounted from the very
 * messages it exchanged.
 */
#include <math.h>
#include <string.h>

#include "cli/account_common.h"
#include "cli/cli.h"
#include "cli/train_privacy.h"
#include "scenarios/scenarios.h"

/* One accounting: a trust model and an attacker set. "Every node" (LDP
 * without --attackers) takes two sets, {0} and {1}: under LDP the attackers
 * see every message and nothing else, so a node's value does not depend on
 * the set, which only removes its members from the victims. */
typedef struct {
  PrivTrust trust;
  guint *members; /* sorted */
  guint n_members;
  char *label; /* "3+11", or "" for every node */
  gboolean all;
  guint view;                   /* first observer view */
  PrivReport *report, *report0; /* report0: node 0's, when all */
  const PrivVictim **by_node;   /* NULL: an attacker */
} Accounting;

struct CliTrainPrivacy {
  CliTrainPrivacyConfig c;
  CliAccountSetup s;
  CliAccountProtocol proto;
  gboolean structured;
  gboolean none; /* --trust none: nothing accounted */
  guint n;
  GArray *acs;   /* Accounting */
  GArray *views; /* ProtoObservedView */
  ProtoObserveOptions observe;
};

static const guint node0[] = {0}, node1[] = {1};

void cli_train_privacy_free(CliTrainPrivacy *p) {
  if (p == NULL)
    return;
  for (guint i = 0; p->acs && i < p->acs->len; i++) {
    Accounting *a = &g_array_index(p->acs, Accounting, i);
    g_free(a->members);
    g_free(a->label);
    priv_report_free(a->report);
    priv_report_free(a->report0);
    g_free(a->by_node);
  }
  if (p->acs)
    g_array_unref(p->acs);
  if (p->views)
    g_array_unref(p->views);
  cli_account_setup_clear(&p->s);
  cli_account_protocol_clear(&p->proto);
  g_free(p);
}

CliTrainPrivacy *cli_train_privacy_plan(const CliTrainPrivacyConfig *c, GError **error) {
  CliTrainPrivacy *p = g_new0(CliTrainPrivacy, 1);
  p->c = *c;
  p->n = topo_graph_n_nodes(c->graph);
  p->acs = g_array_new(FALSE, TRUE, sizeof(Accounting));
  p->views = g_array_new(FALSE, FALSE, sizeof(ProtoObservedView));
  CliAttackerSets sets;
  cli_attacker_sets_init(&sets);
  p->none = c->trust != NULL && g_str_equal(c->trust, "none");
  /* none: no accounting at all (an empty list). */
  char **trusts = p->none ? g_new0(char *, 1) : g_strsplit(c->trust ? c->trust : "ldp", ",", -1);
  gboolean ok = TRUE;
  for (guint i = 0; ok && c->attackers && c->attackers[i]; i++)
    ok = cli_attacker_sets_parse(&sets, c->attackers[i], error);
  if (ok && cli_attacker_sets_n(&sets) > 0)
    ok = cli_attacker_sets_check(&sets, p->n, "the graph", error);
  if (ok && !p->none)
    cli_attacker_sets_warn_isolated(&sets, c->graph, "train");
  for (guint t = 0; ok && trusts[t]; t++) {
    PrivTrust trust;
    GError *sub = NULL;
    if (!priv_trust_parse(trusts[t], &trust, &sub)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--trust: %s", sub->message);
      g_error_free(sub);
      ok = FALSE;
    } else if (cli_attacker_sets_n(&sets) == 0 && trust != PRIV_TRUST_LDP) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--trust %s: say who observes with --attackers (e.g. --attackers 0, or 0+5 "
                  "for a collusion set); only ldp needs none",
                  trusts[t]);
      ok = FALSE;
    } else if (cli_attacker_sets_n(&sets) == 0 && p->n < 2) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--trust ldp: the graph has a single node, nobody to observe it");
      ok = FALSE;
    }
    for (guint i = 0; ok && i < MAX(cli_attacker_sets_n(&sets), 1); i++) {
      Accounting a = {.trust = trust, .view = p->views->len};
      if (cli_attacker_sets_n(&sets) == 0) {
        a.all = TRUE;
        a.label = g_strdup("");
        a.members = g_memdup2(node0, sizeof node0);
        a.n_members = 1;
        ProtoObservedView v0 = {trust, node0, 1}, v1 = {trust, node1, 1};
        g_array_append_val(p->views, v0);
        g_array_append_val(p->views, v1);
      } else {
        a.n_members = cli_attacker_sets_size(&sets, i);
        a.members = g_memdup2(cli_attacker_sets_members(&sets, i), a.n_members * sizeof(guint));
        a.label = cli_attacker_sets_label(&sets, i);
        ProtoObservedView v = {trust, NULL, a.n_members};
        g_array_append_val(p->views, v);
      }
      g_array_append_val(p->acs, a);
    }
  }
  g_strfreev(trusts);
  cli_attacker_sets_clear(&sets);
  /* The views borrow the accountings' members, now that the array is final. */
  for (guint i = 0; ok && i < p->acs->len; i++) {
    Accounting *a = &g_array_index(p->acs, Accounting, i);
    if (!a->all)
      g_array_index(p->views, ProtoObservedView, a->view).members = a->members;
  }
  ok = ok && cli_account_check_numbers(c->sigma, c->clip, c->alpha, c->delta, error);
  ok = ok && cli_account_resolve_protocol(c->protocol, &p->s, &p->proto, error);
  ProtoMode mode = {.kind = PROTO_MODE_SYNC};
  double loss_p = 0;
  /* Run options the run itself refuses (loss in sync mode): its error, not
   * ours; the observer path is planned and never reached. */
  if (ok && !proto_account_parse_run_options(c->mode, c->latency, c->loss, &mode, &loss_p, NULL))
    mode.kind = PROTO_MODE_DEADLINE;
  if (!ok) {
    cli_train_privacy_free(p);
    return NULL;
  }
  p->s.T = c->T;
  p->s.b = c->b;
  p->s.sigma = c->sigma;
  p->s.clip = c->clip;
  p->s.alpha = c->alpha;
  p->s.delta = c->delta;
  p->s.gossip = c->gossip;
  /* As `account --path auto` with the run's options: latency is one only
   * a simulation reads. */
  ProtoAccountCase pc = {.known = p->proto.structured,
                         .mode = mode.kind,
                         .loss = loss_p,
                         .run_options = c->latency != NULL};
  const char *why;
  p->structured = proto_account_plan(&pc, &why) == PROTO_ACCOUNT_STRUCTURED;
  p->observe = (ProtoObserveOptions){.views = (const ProtoObservedView *)p->views->data,
                                     .n_views = p->views->len,
                                     .T = c->T,
                                     .streaming = TRUE};
  return p;
}

const ProtoObserveOptions *cli_train_privacy_observe(CliTrainPrivacy *p) {
  return p->structured || p->none ? NULL : &p->observe;
}

/* Blocks of view @v (its trust and members). */
static PrivBlocks *blocks_of(CliTrainPrivacy *p, const ProtoObservedView *v, TopoGossip *w,
                             TopoSchedule *sched, ProtoObservedRun *run, guint view,
                             GError **error) {
  if (!p->structured)
    return proto_observed_run_blocks(run, view, error);
  CliAccountSetup one = p->s; /* shallow: borrows the members */
  one.trust = v->trust;
  one.attackers = (guint *)v->members;
  one.n_attackers = v->n_members;
  return sched ? cli_account_blocks_schedule(&one, sched, error)
               : cli_account_blocks_structured(&one, w, error);
}

gboolean cli_train_privacy_account(CliTrainPrivacy *p, ProtoObservedRun *run, GError **error) {
  if (p->none)
    return TRUE;
  TopoGossip *w = NULL;
  TopoSchedule *sched = NULL;
  gboolean ok = TRUE;
  if (p->structured) {
    ok = cli_account_build_c(&p->s, &p->proto, error);
    /* A schedule of its own: the run's has been stepped through. */
    if (ok && p->c.schedule && strcmp(p->c.schedule, "static") != 0)
      ok = (sched = topo_schedule_new(p->c.schedule, p->c.graph, p->c.gossip, p->c.seed, error)) !=
           NULL;
    else if (ok)
      ok = (w = topo_gossip_new(p->c.graph, p->c.gossip, error)) != NULL;
  }
  PrivAccountOptions opt = {
      .b = p->s.b, .sensitivity = p->s.sensitivity, .alpha = p->s.alpha, .delta = p->s.delta};
  for (guint i = 0; ok && i < p->acs->len; i++) {
    Accounting *a = &g_array_index(p->acs, Accounting, i);
    for (guint k = 0; ok && k < (a->all ? 2u : 1u); k++) {
      const ProtoObservedView *v = &g_array_index(p->views, ProtoObservedView, a->view + k);
      PrivBlocks *b = blocks_of(p, v, w, sched, run, a->view + k, error);
      PrivReport *r = b ? priv_account_report(b, p->c.graph, &opt, error) : NULL;
      priv_blocks_free(b);
      ok = r != NULL;
      *(k == 0 ? &a->report : &a->report0) = r;
    }
    if (!ok)
      break;
    a->by_node = g_new0(const PrivVictim *, p->n);
    for (guint v = 0; v < a->report->n_victims; v++)
      a->by_node[a->report->victims[v].node] = &a->report->victims[v];
    for (guint v = 0; a->all && v < a->report0->n_victims; v++)
      if (a->report0->victims[v].node == 0)
        a->by_node[0] = &a->report0->victims[v];
  }
  topo_gossip_free(w);
  topo_schedule_free(sched);
  if (!ok)
    g_prefix_error(error, "privacy accounting: ");
  return ok;
}

void cli_train_privacy_csv_rows(const CliTrainPrivacy *p, GString *s) {
  for (guint i = 0; !p->none && i < p->acs->len; i++) {
    const Accounting *a = &g_array_index(p->acs, Accounting, i);
    ScenPrivacyCsvSet set = {.collusion = a->label,
                             .attackers = a->label,
                             .trust = a->trust,
                             .path = p->structured ? "structured" : "observer",
                             .seed = p->c.seed};
    if (!a->all) {
      scen_privacy_csv_rows(s, &set, a->report, NULL);
      continue;
    }
    /* Every node, node 0 from the second report: one table in node order,
     * without the distance to an attacker set that is only a device. */
    PrivReport merged = *a->report;
    merged.victims = g_new(PrivVictim, p->n);
    merged.n_victims = 0;
    for (guint u = 0; u < p->n; u++)
      if (a->by_node[u] != NULL) {
        merged.victims[merged.n_victims] = *a->by_node[u];
        merged.victims[merged.n_victims++].distance = -1;
      }
    scen_privacy_csv_rows(s, &set, &merged, NULL);
    g_free(merged.victims);
  }
}

double cli_train_privacy_max_epsilon(const CliTrainPrivacy *p) {
  double worst = p->none ? NAN : 0;
  for (guint i = 0; i < p->acs->len; i++) {
    const Accounting *a = &g_array_index(p->acs, Accounting, i);
    for (guint u = 0; u < p->n; u++)
      if (a->by_node[u] != NULL)
        worst = MAX(worst, a->by_node[u]->epsilon);
  }
  return worst;
}

const PrivVictim *cli_train_privacy_victim(const CliTrainPrivacy *p, guint accounting, guint u) {
  if (p == NULL || p->none || accounting >= p->acs->len || u >= p->n)
    return NULL;
  return g_array_index(p->acs, Accounting, accounting).by_node[u];
}

double cli_train_privacy_delta(const CliTrainPrivacy *p) {
  return p->s.delta;
}

char *cli_train_privacy_summary(const CliTrainPrivacy *p) {
  GString *s = g_string_new(NULL);
  if (p->none)
    return g_string_free(s, FALSE);
  double worst_all = 0;
  for (guint i = 0; i < p->acs->len; i++) {
    const Accounting *a = &g_array_index(p->acs, Accounting, i);
    double lo = INFINITY, hi = -INFINITY;
    guint lo_node = 0, hi_node = 0, victims = 0;
    for (guint u = 0; u < p->n; u++) {
      const PrivVictim *v = a->by_node[u];
      if (v == NULL)
        continue;
      victims++;
      if (v->epsilon > hi || hi == -INFINITY) {
        hi = v->epsilon;
        hi_node = u;
      }
      if (v->epsilon < lo) {
        lo = v->epsilon;
        lo_node = u;
      }
    }
    worst_all = MAX(worst_all, hi);
    char *hs = g_strdup_printf("%.4g", hi), *ls = g_strdup_printf("%.4g", lo);
    if (a->all)
      g_string_append_printf(s, "privacy: %s (every node), %u nodes", priv_trust_name(a->trust),
                             victims);
    else
      g_string_append_printf(s, "privacy: %s, attackers %s, %u victims", priv_trust_name(a->trust),
                             a->label, victims);
    g_string_append_printf(s, ": epsilon at delta = %g from %s (node %u) to %s (node %u)\n",
                           p->s.delta, ls, lo_node, hs, hi_node);
    g_free(hs);
    g_free(ls);
  }
  char *note = scen_privacy_epsilon_note(worst_all, p->s.delta);
  if (note != NULL)
    g_string_append_printf(s, "privacy: %s\n", note);
  g_free(note);
  return g_string_free(s, FALSE);
}
