/*
 * cli/account_table.c: `dpgossip account`'s table (the default format):
 * the request in a few lines, then one table of victims per accounting;
 * and the unresolved victims' warnings every format gives.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/account_output.h"

/* %.6g with a '.' decimal point, "inf" when not finite. */
static const char *fmt_num(char *buf, gsize len, double v) {
  if (!isfinite(v))
    return "inf";
  return g_ascii_formatd(buf, (int)len, "%.6g", v);
}

/* The lines above the tables: graph, protocol, path, run, participation. */
static void print_header(const CliAccountOutput *c) {
  const ProtoAccountJob *j = c->job;
  const char *sched = cli_account_schedule(j);
  printf("graph          %u nodes, %s gossip, schedule %s\n", j->n,
         topo_gossip_kind_name(j->gossip), sched ? sched : "static");
  printf("protocol       %s, %u steps, sigma = %g, clip = %g\n", j->label, j->T, j->sigma, j->clip);
  if (c->nonprivate)
    printf("note           nonprivate adds no noise: no protection (mu = inf) for any victim "
           "the attackers hear from\n");
  printf("path           %s (%s)\n", proto_account_job_path_name(j), j->path_reason);
  if (j->path == PROTO_ACCOUNT_OBSERVER)
    printf("run            mode %s, latency %s, loss %s, seed %" G_GUINT64_FORMAT
           ", %" G_GUINT64_FORMAT " messages sent, %" G_GUINT64_FORMAT
           " dropped, %" G_GUINT64_FORMAT " late\n",
           j->mode_spec ? j->mode_spec : "sync",
           j->latency_spec ? j->latency_spec : "constant:ms=0", j->loss_spec ? j->loss_spec : "0",
           j->seed, j->stats.engine.messages_sent, j->stats.engine.messages_dropped,
           j->stats.late_discarded);
  if (j->tightness > 0) {
    if (j->tightness_met)
      printf("tightness      every mu / mu_lower <= %g at radius %u\n", j->tightness, j->radius);
    else
      printf("tightness      mu / mu_lower <= %g not met: %s\n", j->tightness, j->tightness_stop);
  }
  printf("participation  every %u step%s (k = %u), %s sensitivity", j->b, j->b == 1 ? "" : "s",
         j->T / j->b, mf_sensitivity_name(j->sensitivity));
  /* Only the default says why: an asked sensitivity is the user's own. */
  if (j->sensitivity_asked == MF_SENSITIVITY_AUTO)
    printf(" (%s)", proto_account_job_sensitivity_reason(j));
  printf("\n");
  /* Under a schedule, which graph the distance column counts hops in. */
  if (sched)
    printf("distance       hops in the %s\n", proto_account_job_distance_graph(j));
}

/* @text's width in characters (UTF-8: "Médici" is 6, in 7 bytes). */
static guint text_width(const char *text) {
  return g_utf8_validate(text, -1, NULL) ? (guint)g_utf8_strlen(text, -1) : (guint)strlen(text);
}

/* @text right-aligned in @width characters, never cut. */
static void print_right(const char *text, guint width) {
  for (guint k = text_width(text); k < width; k++)
    putchar(' ');
  fputs(text, stdout);
}

/* The node column's width: every victim's name fits, and 6 at least (the
 * tables' width before labels, kept for ids). O(victims). */
static guint node_width(const ProtoAccountJob *j, const PrivReport *r) {
  guint width = 6;
  for (guint i = 0; i < r->n_victims; i++) {
    char *name = topo_graph_node_name(j->graph, r->victims[i].node);
    width = MAX(width, text_width(name));
    g_free(name);
  }
  return width;
}

/* One victim's row. */
static void print_victim(const ProtoAccountJob *j, const ProtoAccounting *ac, const PrivVictim *v,
                         guint width) {
  char b[5][G_ASCII_DTOSTR_BUF_SIZE];
  char dist[16] = "-";
  if (v->distance >= 0)
    g_snprintf(dist, sizeof dist, "%d", v->distance);
  char mu[G_ASCII_DTOSTR_BUF_SIZE + 3];
  g_snprintf(mu, sizeof mu, "%s%s", j->radius && !ac->local.covered ? "<=" : "",
             fmt_num(b[1], sizeof b[1], v->mu));
  char *node = topo_graph_node_name(j->graph, v->node);
  print_right(node, width);
  printf(" %8s %12s %12s", dist, fmt_num(b[0], sizeof b[0], v->sensitivity), mu);
  g_free(node);
  if (j->radius) {
    char lo[G_ASCII_DTOSTR_BUF_SIZE];
    printf(" %12s", fmt_num(lo, sizeof lo, v->mu_lower));
  }
  printf(" %12s %12s", fmt_num(b[2], sizeof b[2], v->rdp), fmt_num(b[3], sizeof b[3], v->epsilon));
  if (ac->muff)
    printf(" %14s", fmt_num(b[4], sizeof b[4], ac->muff[v->node]));
  printf(" %8s", cli_account_bound_name(j, v));
  if (v->unresolved)
    printf("  unresolved");
  printf("\n");
}

/* One accounting: its set, its counts, its victims. */
static void print_accounting(const ProtoAccountJob *j, const ProtoAccounting *ac) {
  const PrivReport *r = ac->report;
  char *label = topo_graph_attackers_label(j->graph, &j->sets, ac->set);
  printf("\ntrust          %s, attackers %s\n", priv_trust_name(ac->trust), label);
  g_free(label);
  guint unprotected = 0;
  for (guint i = 0; i < r->n_victims; i++)
    unprotected += r->victims[i].unprotected;
  printf("unprotected    %u victim%s\n", unprotected, unprotected == 1 ? "" : "s");
  if (j->radius)
    printf("ball           %u nodes within %u hops, %u colluding at %u hops: %s%s%s\n",
           ac->local.ball, j->radius, ac->local.shell, j->radius + 1,
           ac->local.covered                 ? "covers the graph, exact values"
           : ac->local.lower_note[0] != '\0' ? "certified bounds exact mu <= mu (mu_lower 0: "
                                              : "certified bounds mu_lower <= exact mu <= mu",
           ac->local.covered ? "" : ac->local.lower_note,
           !ac->local.covered && ac->local.lower_note[0] != '\0' ? ")" : "");
  if (j->radius && ac->local.lower_rounds > 0)
    printf("mu_lower       from the attackers' first %u of %u rounds (its run stopped there: "
           "its provenance would not fit in memory)\n",
           ac->local.lower_rounds, j->T);
  guint unresolved = cli_account_count_unresolved(r);
  if (unresolved)
    printf("unresolved     %u victim%s (%s)\n", unresolved, unresolved == 1 ? "" : "s",
           PRIV_UNRESOLVED_NOTE);
  printf("\n");
  guint width = node_width(j, r);
  print_right("node", width);
  printf(" %8s %12s %12s", "distance", "sensitivity", "mu");
  if (j->radius)
    printf(" %12s", "mu_lower");
  printf(" %12s %12s", "rdp", "epsilon");
  if (ac->muff)
    printf(" %14s", "muffliato_rdp");
  printf(" %8s\n", "bound");
  for (guint i = 0; i < r->n_victims; i++)
    print_victim(j, ac, &r->victims[i], width);
}

const char *cli_account_bound_name(const ProtoAccountJob *j, const PrivVictim *v) {
  return proto_account_job_bound_name(j, v);
}

void cli_account_print_table(const CliAccountOutput *c) {
  const ProtoAccountJob *j = c->job;
  print_header(c);
  for (guint a = 0; a < j->n_acs; a++)
    print_accounting(j, &j->acs[a]);
  printf("\n(rdp at alpha = %g; epsilon at delta = %g)\n", j->alpha, j->delta);
}

void cli_account_warn_unresolved(const ProtoAccountJob *j) {
  for (guint a = 0; a < j->n_acs; a++) {
    const PrivReport *r = j->acs[a].report;
    guint n = cli_account_count_unresolved(r);
    if (n == 0)
      continue;
    GString *nodes = g_string_new(NULL);
    for (guint i = 0; i < r->n_victims; i++)
      if (r->victims[i].unresolved) {
        char *name = topo_graph_node_name(j->graph, r->victims[i].node);
        g_string_append_printf(nodes, "%s%s", nodes->len ? ", " : "", name);
        g_free(name);
      }
    char *label = topo_graph_attackers_label(j->graph, &j->sets, j->acs[a].set);
    fprintf(stderr,
            "dpgossip account: warning: trust %s, attackers %s: victim%s %s: %s (status "
            "unresolved)\n",
            priv_trust_name(j->acs[a].trust), label, n == 1 ? "" : "s", nodes->str,
            PRIV_UNRESOLVED_NOTE);
    g_free(label);
    g_string_free(nodes, TRUE);
  }
}
