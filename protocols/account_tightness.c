/*
 * protocols/account_tightness.c: --tightness X (docs/local-bounds.md): the
 * local path's accountings at radius 1, 2, ... until every victim's
 * certified interval [mu_lower, mu] is that narrow, or a stop with its
 * where and why. Shared by `dpgossip account` and dpg_account.
 */
#include <math.h>

#include "protocols/internal.h"

/* Above this estimated wall time for the next radius, --tightness stops. */
#define TIGHTNESS_MAX_SECONDS 600.0

/* The limit: $DPGOSSIP_TIGHTNESS_SECONDS (tests set it tiny to see a stop
 * for time), else TIGHTNESS_MAX_SECONDS. */
static double max_seconds(void) {
  const char *env = g_getenv("DPGOSSIP_TIGHTNESS_SECONDS");
  if (env != NULL) {
    char *end = NULL;
    double s = g_ascii_strtod(env, &end);
    if (end != env && *end == '\0' && isfinite(s) && s >= 0)
      return s;
  }
  return TIGHTNESS_MAX_SECONDS;
}

/* @s seconds in @buf: whole above 100 s, else three digits (a tiny limit
 * of the tests prints as given). */
static const char *secs_str(double s, char buf[32]) {
  g_snprintf(buf, 32, s >= 100 ? "%.0f" : "%.3g", s);
  return buf;
}

/* The nodes within @hops hops of accounting @a's attackers. O(n + edges). */
static guint nodes_within(const ProtoAccountJob *j, guint a, guint hops) {
  const ProtoAccounting *ac = &j->acs[a];
  guint n = topo_graph_n_nodes(j->graph), count = 0;
  guint *dist = topo_graph_hops(j->graph, ac->attackers, ac->n_attackers, hops);
  for (guint u = 0; u < n; u++)
    count += dist[u] <= hops;
  g_free(dist);
  return count;
}

/* Whether the next radius's estimate @est (of @next_ball nodes; this
 * radius's @secs, of which @grows scaled by (@next / @now)^2) is over the
 * limit: then j->tightness_stop says so. */
static gboolean stop_for_time(ProtoAccountJob *j, double worst, guint node, guint next_ball,
                              double est, double secs, double grows, guint next, guint now) {
  double limit = max_seconds();
  if (!(est > limit))
    return FALSE;
  char b[5][32];
  j->tightness_stop = g_strdup_printf(
      "radius %u: widest mu / mu_lower %.6g (victim %u); radius %u (%u nodes) would "
      "take about %s s (this radius's %s s: its balls' accounting %s s x (%u / %u)^2, "
      "the nodes accounted, the rest %s s as is), over the %s s limit",
      j->radius, worst, node, j->radius + 1, next_ball, secs_str(est, b[0]), secs_str(secs, b[1]),
      secs_str(grows, b[2]), next, now, secs_str(secs - grows, b[3]), secs_str(limit, b[4]));
  return TRUE;
}

/* The widest interval of the job's reports: max over victims of
 * mu / mu_lower (1 where both are equal: 0, inf or a covered exact value),
 * its victim in @node. */
static double widest(const ProtoAccountJob *j, guint *node) {
  double worst = 1.0;
  *node = G_MAXUINT;
  for (guint a = 0; a < j->n_acs; a++) {
    const PrivReport *r = j->acs[a].report;
    for (guint i = 0; i < r->n_victims; i++) {
      const PrivVictim *v = &r->victims[i];
      double q = v->mu == v->mu_lower ? 1.0 : v->mu_lower > 0 ? v->mu / v->mu_lower : INFINITY;
      if (v->unresolved || isnan(q))
        q = INFINITY;
      if (q > worst) {
        worst = q;
        *node = v->node;
      }
    }
  }
  return worst;
}

/* The reports of one radius, kept while the next one is tried. */
typedef struct {
  PrivReport *report;
  double *muff;
  PrivLocalInfo local;
} Kept;

static void keep(ProtoAccountJob *j, Kept *k) {
  for (guint a = 0; a < j->n_acs; a++) {
    k[a] = (Kept){j->acs[a].report, j->acs[a].muff, j->acs[a].local};
    j->acs[a].report = NULL;
    j->acs[a].muff = NULL;
  }
}

static void drop_kept(Kept *k, guint n) {
  for (guint a = 0; a < n; a++) {
    priv_report_free(k[a].report);
    g_free(k[a].muff);
    k[a].report = NULL;
    k[a].muff = NULL;
  }
}

/* The kept reports back in the job (the ones of the failed radius freed). */
static void restore(ProtoAccountJob *j, Kept *k) {
  for (guint a = 0; a < j->n_acs; a++) {
    priv_report_free(j->acs[a].report);
    g_free(j->acs[a].muff);
    j->acs[a].report = k[a].report;
    j->acs[a].muff = k[a].muff;
    j->acs[a].local = k[a].local;
    k[a] = (Kept){0};
  }
}

gboolean proto_account_job_execute_tightness(ProtoAccountJob *j, ProtoAccountOnce once,
                                             ProtoAccountSay say, gpointer data, GError **error) {
  g_return_val_if_fail(j != NULL && j->tightness > 0 && j->radius >= 1 && once != NULL, FALSE);
  Kept *kept = g_new0(Kept, MAX(j->n_acs, 1));
  gboolean ok = TRUE, have = FALSE;
  for (;;) {
    GTimer *timer = g_timer_new();
    GError *err = NULL;
    gboolean done = once(j, data, &err);
    double secs = g_timer_elapsed(timer, NULL);
    g_timer_destroy(timer);
    if (!done) {
      if (have && g_error_matches(err, PRIV_ERROR, PRIV_ERROR_MEMORY)) {
        j->tightness_stop = g_strdup_printf("radius %u refused: %s; radius %u printed", j->radius,
                                            err->message, j->radius - 1);
        g_error_free(err);
        restore(j, kept);
        j->radius--;
        break;
      }
      g_propagate_error(error, err);
      ok = FALSE;
      break;
    }
    drop_kept(kept, j->n_acs);
    have = FALSE;
    guint node, ball = 0, sub = 0;
    double worst = widest(j, &node);
    gboolean covered = TRUE;
    for (guint a = 0; a < j->n_acs; a++) {
      covered = covered && j->acs[a].local.covered;
      ball = MAX(ball, j->acs[a].local.ball);
      sub = MAX(sub, j->acs[a].local.sub_nodes);
    }
    if (say != NULL) {
      char *line = g_strdup_printf("--tightness %g: radius %u (%u nodes, %.1f s): widest "
                                   "mu / mu_lower %.3g%s",
                                   j->tightness, j->radius, ball, secs, worst,
                                   worst <= j->tightness ? ", target met" : "");
      say(line, data);
      g_free(line);
    }
    if (worst <= j->tightness) {
      j->tightness_met = TRUE;
      break;
    }
    if (covered) {
      j->tightness_stop = g_strdup_printf(
          "radius %u covers the graph (exact values up to rounding and the sensitivity's "
          "slack); widest mu / mu_lower %.6g (victim %u)",
          j->radius, worst, node);
      break;
    }
    /* The next radius's time (static gossip): the balls' accounting grows
     * as the square of the nodes it accounts (the ball, its merged shell
     * and relays); the rest of this radius's wall time (an asynchronous
     * run's timing pass over the whole graph, which every radius redoes at
     * the same cost; the gossip matrix, built once) does not grow. Under
     * mpirun the accountings' seconds are summed over the ranks, so their
     * part is capped at the wall time: then it is all scaled, an estimate
     * only larger. */
    if (j->path == PROTO_ACCOUNT_OBSERVER) {
      /* The observer path's ball: each radius simulates the whole graph
       * twice (the upper and the lower bound's runs), the same at every
       * radius; what grows is the accountants', over the ball's columns
       * and the rows its shell hears: scaled by the growth squared of the
       * nodes within radius + 1 hops (the ball and its shell). */
      guint now = 0, next = 0, next_ball = 0;
      for (guint a = 0; a < j->n_acs; a++) {
        now = MAX(now, j->acs[a].local.ball + j->acs[a].local.shell);
        next = MAX(next, nodes_within(j, a, j->radius + 2));
        next_ball = MAX(next_ball, nodes_within(j, a, j->radius + 1));
      }
      double grows = 0.0;
      for (guint a = 0; a < j->n_acs; a++)
        grows += j->acs[a].ball_seconds;
      grows = MIN(grows, secs);
      double f = (double)next / MAX(now, 1u), est = secs - grows + grows * f * f;
      if (stop_for_time(j, worst, node, next_ball, est, secs, grows, next, now))
        break;
    } else if (j->w != NULL && sub > 0) {
      const TopoGossip *ws[] = {j->w};
      PrivStructuredProblem q = proto_account_job_problem(j, 0);
      q.gossip = ws;
      q.n_gossip = 1;
      PrivLocalInfo next;
      if (priv_local_ball(&q, j->radius + 1, &next, NULL)) {
        /* A delivery record's ball has no relays (priv_local_report_record). */
        if (j->mode.kind != PROTO_MODE_SYNC)
          next.sub_nodes -= next.relays;
        double grows = 0.0;
        for (guint a = 0; a < j->n_acs; a++)
          grows += j->acs[a].ball_seconds;
        grows = MIN(grows, secs);
        double f = (double)next.sub_nodes / sub, est = secs - grows + grows * f * f;
        if (stop_for_time(j, worst, node, next.ball, est, secs, grows, next.sub_nodes, sub))
          break;
      }
    }
    keep(j, kept);
    have = TRUE;
    j->radius++;
  }
  drop_kept(kept, j->n_acs);
  g_free(kept);
  return ok;
}
