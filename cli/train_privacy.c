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
  double delta;
};

void cli_train_privacy_free(CliTrainPrivacy *p) {
  if (p == NULL)
    return;
  proto_account_job_free(p->job);
  g_free(p);
}

CliTrainPrivacy *cli_train_privacy_plan(const ProtoAccountRequest *r, const TopoGraph *g,
                                        gboolean *usage, GError **error) {
  CliTrainPrivacy *p = g_new0(CliTrainPrivacy, 1);
  *usage = TRUE;
  p->delta = r->delta;
  if (r->trust != NULL && g_str_equal(r->trust, "none"))
    return p;
  gboolean sets = r->attackers != NULL && r->attackers[0] != NULL;
  if (!sets) {
    /* The isolated nodes are noted whoever observes. */
    SpecAttackers none;
    spec_attackers_init(&none);
    cli_attacker_sets_warn_isolated(&none, g, "train");
    spec_attackers_clear(&none);
  }
  if ((p->job = proto_account_job_for_run(r, g, usage, error)) == NULL) {
    cli_train_privacy_free(p);
    return NULL;
  }
  if (sets)
    cli_attacker_sets_warn_isolated(&p->job->sets, g, "train");
  return p;
}

const ProtoObserveOptions *cli_train_privacy_observe(CliTrainPrivacy *p) {
  return p->job ? proto_account_job_observe(p->job) : NULL;
}

gboolean cli_train_privacy_account(CliTrainPrivacy *p, ProtoObservedRun *run, GError **error) {
  if (p->job == NULL)
    return TRUE;
  if (proto_account_job_execute_observed(p->job, run, error)) {
    cli_account_warn_job(p->job, "train");
    return TRUE;
  }
  g_prefix_error(error, "privacy accounting: ");
  return FALSE;
}

/* Accounting @a's set: its members, "" for every node (g_free). */
static char *label(const CliTrainPrivacy *p, const ProtoAccounting *a) {
  return p->job->every_node ? g_strdup("")
                            : topo_graph_attackers_label(p->job->graph, &p->job->sets, a->set);
}

void cli_train_privacy_csv_rows(const CliTrainPrivacy *p, GString *s) {
  for (guint i = 0; p->job != NULL && i < p->job->n_acs; i++) {
    const ProtoAccounting *a = &p->job->acs[i];
    char *set_label = label(p, a);
    ScenPrivacyCsvSet set = {.collusion = set_label,
                             .attackers = set_label,
                             .trust = a->trust,
                             .path = proto_account_job_path_name(p->job),
                             .seed = p->job->seed,
                             .job = p->job};
    scen_privacy_csv_rows(s, &set, a->report, NULL);
    g_free(set_label);
  }
}

double cli_train_privacy_max_epsilon(const CliTrainPrivacy *p) {
  double worst = p->job == NULL ? NAN : 0;
  for (guint i = 0; p->job != NULL && i < p->job->n_acs; i++) {
    const PrivReport *r = p->job->acs[i].report;
    for (guint v = 0; v < r->n_victims; v++)
      worst = MAX(worst, r->victims[v].epsilon);
  }
  return worst;
}

const PrivVictim *cli_train_privacy_victim(const CliTrainPrivacy *p, guint accounting, guint u) {
  if (p == NULL || p->job == NULL || accounting >= p->job->n_acs)
    return NULL;
  const PrivReport *r = p->job->acs[accounting].report;
  for (guint v = 0; r != NULL && v < r->n_victims; v++)
    if (r->victims[v].node == u)
      return &r->victims[v];
  return NULL;
}

double cli_train_privacy_delta(const CliTrainPrivacy *p) {
  return p->delta;
}

/* Accounting @a's line: its worst and best victims (the first in node
 * order on a tie). */
static void summary_line(const CliTrainPrivacy *p, const ProtoAccounting *a, GString *s,
                         double *worst) {
  const PrivReport *r = a->report;
  double lo = INFINITY, hi = -INFINITY;
  guint lo_node = 0, hi_node = 0;
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    if (v->epsilon > hi || hi == -INFINITY) {
      hi = v->epsilon;
      hi_node = v->node;
    }
    if (v->epsilon < lo) {
      lo = v->epsilon;
      lo_node = v->node;
    }
  }
  *worst = MAX(*worst, hi);
  char *hs = g_strdup_printf("%.4g", hi), *ls = g_strdup_printf("%.4g", lo);
  char *set_label = label(p, a);
  if (p->job->every_node)
    g_string_append_printf(s, "privacy: %s (every node), %u nodes", priv_trust_name(a->trust),
                           r->n_victims);
  else
    g_string_append_printf(s, "privacy: %s, attackers %s, %u victims", priv_trust_name(a->trust),
                           set_label, r->n_victims);
  /* One value (LDP, a vertex-transitive graph): said once, not as a range
   * from a node to itself. */
  if (g_str_equal(ls, hs))
    g_string_append_printf(s, ": epsilon at delta = %g is %s for every %s\n", p->delta, hs,
                           p->job->every_node ? "node" : "victim");
  else {
    char *lo_name = topo_graph_node_name(p->job->graph, lo_node);
    char *hi_name = topo_graph_node_name(p->job->graph, hi_node);
    g_string_append_printf(s, ": epsilon at delta = %g from %s (node %s) to %s (node %s)\n",
                           p->delta, ls, lo_name, hs, hi_name);
    g_free(lo_name);
    g_free(hi_name);
  }
  g_free(set_label);
  g_free(hs);
  g_free(ls);
}

char *cli_train_privacy_summary(const CliTrainPrivacy *p) {
  GString *s = g_string_new(NULL);
  if (p->job == NULL)
    return g_string_free(s, FALSE);
  double worst_all = 0;
  for (guint i = 0; i < p->job->n_acs; i++)
    summary_line(p, &p->job->acs[i], s, &worst_all);
  char *note = scen_privacy_epsilon_note(worst_all, p->delta);
  if (note != NULL)
    g_string_append_printf(s, "privacy: %s\n", note);
  g_free(note);
  return g_string_free(s, FALSE);
}
