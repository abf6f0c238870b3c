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

struct CliTrainPrivacy {
  ProtoAccountJob *job; /* NULL: --trust none, nothing accounted */
  /* No --attackers: LDP of every node, from the sets {0} and {1}: under LDP
   * the attackers see every message and nothing else, so a node's value
   * does not depend on the set, which only removes its members from the
   * victims; node 0's value comes from the second set. */
  gboolean every_node;
  guint n;
  guint n_tables;              /* trust-major: trust models x sets (every node: x 1) */
  const PrivVictim ***by_node; /* per table, each node's row; NULL: an attacker */
  double delta;
};

static const char *const sets01[] = {"0", "1", NULL};

void cli_train_privacy_free(CliTrainPrivacy *p) {
  if (p == NULL)
    return;
  for (guint i = 0; p->by_node != NULL && i < p->n_tables; i++)
    g_free(p->by_node[i]);
  g_free(p->by_node);
  proto_account_job_free(p->job);
  g_free(p);
}

/* Without --attackers only LDP (the first unparsable model is the
 * request's to name), and a graph with someone to observe. */
static gboolean check_every_node(const CliTrainPrivacyConfig *c, guint n, GError **error) {
  char **trusts = g_strsplit(c->trust ? c->trust : "ldp", ",", -1);
  gboolean ok = TRUE;
  for (guint t = 0; ok && trusts[t]; t++) {
    PrivTrust trust;
    if (!priv_trust_parse(trusts[t], &trust, NULL))
      break;
    if (trust != PRIV_TRUST_LDP) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--trust %s: say who observes with --attackers (e.g. --attackers 0, or 0+5 "
                  "for a collusion set); only ldp needs none",
                  trusts[t]);
      ok = FALSE;
    } else if (n < 2) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--trust ldp: the graph has a single node, nobody to observe it");
      ok = FALSE;
    }
  }
  g_strfreev(trusts);
  return ok;
}

/* The run as an accounting request; the run's options only when they
 * parse (the run itself refuses the others, loss in sync mode included). */
static ProtoAccountRequest request(const CliTrainPrivacyConfig *c, gboolean every_node,
                                   const char *seed) {
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = c->protocol;
  r.rounds = (gint)c->T;
  r.interval = (gint)c->b;
  r.trust = c->trust ? c->trust : "ldp";
  r.attackers = every_node ? sets01 : c->attackers;
  r.sigma = c->sigma;
  r.clip = c->clip;
  r.alpha = c->alpha;
  r.delta = c->delta;
  r.gossip = c->gossip;
  r.schedule = c->schedule;
  r.seed = seed;
  r.trust_major = TRUE;
  ProtoMode mode;
  if (proto_account_parse_run_options(c->mode, c->latency, c->loss, &mode, NULL, NULL)) {
    r.mode = c->mode;
    r.latency = c->latency;
    r.loss = c->loss;
  }
  return r;
}

CliTrainPrivacy *cli_train_privacy_plan(const CliTrainPrivacyConfig *c, gboolean *usage,
                                        GError **error) {
  CliTrainPrivacy *p = g_new0(CliTrainPrivacy, 1);
  *usage = TRUE;
  p->n = topo_graph_n_nodes(c->graph);
  p->delta = c->delta;
  if (c->trust != NULL && g_str_equal(c->trust, "none"))
    return p;
  p->every_node = c->attackers == NULL || c->attackers[0] == NULL;
  if (p->every_node) {
    SpecAttackers none;
    spec_attackers_init(&none);
    cli_attacker_sets_warn_isolated(&none, c->graph, "train");
    spec_attackers_clear(&none);
    if (!check_every_node(c, p->n, error)) {
      cli_train_privacy_free(p);
      return NULL;
    }
  }
  char *seed = g_strdup_printf("%" G_GUINT64_FORMAT, c->seed);
  ProtoAccountRequest r = request(c, p->every_node, seed);
  ProtoAccountRefusal refusal;
  p->job = proto_account_validate(&r, &refusal, error);
  g_free(seed);
  if (p->job == NULL || !proto_account_job_plan(p->job, c->graph, "the graph", &refusal, error)) {
    /* Usage errors all, but a protocol or its file that failed. */
    *usage = refusal == PROTO_REFUSED_RULE || refusal == PROTO_REFUSED_VALUE ||
             (*error)->domain == G_OPTION_ERROR || (*error)->domain == PROTO_ERROR;
    cli_train_privacy_free(p);
    return NULL;
  }
  if (!p->every_node)
    cli_attacker_sets_warn_isolated(&p->job->sets, c->graph, "train");
  guint n_sets = p->every_node ? 1 : spec_attackers_n_sets(&p->job->sets, p->n);
  p->n_tables = p->job->trusts->len * n_sets;
  return p;
}

const ProtoObserveOptions *cli_train_privacy_observe(CliTrainPrivacy *p) {
  return p->job ? proto_account_job_observe(p->job) : NULL;
}

/* Table @i's trust model and its accountings (the second: every node's
 * set {1}, else NULL). */
static const ProtoAccounting *table(const CliTrainPrivacy *p, guint i,
                                    const ProtoAccounting **second) {
  /* Tables and accountings are trust-major; every node's are two sets. */
  const ProtoAccountJob *j = p->job;
  *second = p->every_node ? &j->acs[2 * i + 1] : NULL;
  return &j->acs[p->every_node ? 2 * i : i];
}

gboolean cli_train_privacy_account(CliTrainPrivacy *p, ProtoObservedRun *run, GError **error) {
  if (p->job == NULL)
    return TRUE;
  if (!proto_account_job_execute_observed(p->job, run, error)) {
    g_prefix_error(error, "privacy accounting: ");
    return FALSE;
  }
  p->by_node = g_new0(const PrivVictim **, MAX(p->n_tables, 1));
  for (guint i = 0; i < p->n_tables; i++) {
    const ProtoAccounting *second, *a = table(p, i, &second);
    p->by_node[i] = g_new0(const PrivVictim *, p->n);
    for (guint v = 0; v < a->report->n_victims; v++)
      p->by_node[i][a->report->victims[v].node] = &a->report->victims[v];
    for (guint v = 0; second && v < second->report->n_victims; v++)
      if (second->report->victims[v].node == 0)
        p->by_node[i][0] = &second->report->victims[v];
  }
  return TRUE;
}

/* Table @i's label: the set's members, "" for every node (g_free). */
static char *table_label(const CliTrainPrivacy *p, guint i) {
  const ProtoAccounting *second, *a = table(p, i, &second);
  return p->every_node ? g_strdup("") : spec_attackers_label(&p->job->sets, a->set);
}

void cli_train_privacy_csv_rows(const CliTrainPrivacy *p, GString *s) {
  for (guint i = 0; p->job != NULL && i < p->n_tables; i++) {
    const ProtoAccounting *second, *a = table(p, i, &second);
    char *label = table_label(p, i);
    ScenPrivacyCsvSet set = {.collusion = label,
                             .attackers = label,
                             .trust = a->trust,
                             .path = proto_account_job_path_name(p->job),
                             .seed = p->job->seed};
    if (!p->every_node) {
      scen_privacy_csv_rows(s, &set, a->report, NULL);
      g_free(label);
      continue;
    }
    /* Every node, node 0 from the second report: one table in node order,
     * without the distance to an attacker set that is only a device. */
    PrivReport merged = *a->report;
    merged.victims = g_new(PrivVictim, p->n);
    merged.n_victims = 0;
    for (guint u = 0; u < p->n; u++)
      if (p->by_node[i][u] != NULL) {
        merged.victims[merged.n_victims] = *p->by_node[i][u];
        merged.victims[merged.n_victims++].distance = -1;
      }
    scen_privacy_csv_rows(s, &set, &merged, NULL);
    g_free(merged.victims);
    g_free(label);
  }
}

double cli_train_privacy_max_epsilon(const CliTrainPrivacy *p) {
  double worst = p->job == NULL ? NAN : 0;
  for (guint i = 0; p->job != NULL && i < p->n_tables; i++)
    for (guint u = 0; u < p->n; u++)
      if (p->by_node[i][u] != NULL)
        worst = MAX(worst, p->by_node[i][u]->epsilon);
  return worst;
}

double cli_train_privacy_delta(const CliTrainPrivacy *p) {
  return p->delta;
}

/* Table @i's line: its worst and best victims. */
static void summary_line(const CliTrainPrivacy *p, guint i, GString *s, double *worst) {
  const ProtoAccounting *second, *a = table(p, i, &second);
  double lo = INFINITY, hi = -INFINITY;
  guint lo_node = 0, hi_node = 0, victims = 0;
  for (guint u = 0; u < p->n; u++) {
    const PrivVictim *v = p->by_node[i][u];
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
  *worst = MAX(*worst, hi);
  char *hs = g_strdup_printf("%.4g", hi), *ls = g_strdup_printf("%.4g", lo);
  char *label = table_label(p, i);
  if (p->every_node)
    g_string_append_printf(s, "privacy: %s (every node), %u nodes", priv_trust_name(a->trust),
                           victims);
  else
    g_string_append_printf(s, "privacy: %s, attackers %s, %u victims", priv_trust_name(a->trust),
                           label, victims);
  g_string_append_printf(s, ": epsilon at delta = %g from %s (node %u) to %s (node %u)\n",
                         p->delta, ls, lo_node, hs, hi_node);
  g_free(label);
  g_free(hs);
  g_free(ls);
}

char *cli_train_privacy_summary(const CliTrainPrivacy *p) {
  GString *s = g_string_new(NULL);
  if (p->job == NULL)
    return g_string_free(s, FALSE);
  double worst_all = 0;
  for (guint i = 0; i < p->n_tables; i++)
    summary_line(p, i, s, &worst_all);
  char *note = scen_privacy_epsilon_note(worst_all, p->delta);
  if (note != NULL)
    g_string_append_printf(s, "privacy: %s\n", note);
  g_free(note);
  return g_string_free(s, FALSE);
}
