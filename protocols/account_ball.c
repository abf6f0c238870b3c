/*
 * protocols/account_ball.c: the local path on the observer path
 * (docs/local-bounds.md, "The observer path's ball"): certified local
 * bounds for every protocol the observer path accounts, Zip-DL and plugins
 * included.
 *
 * For one accounting (attackers A, radius R): the hops from A on the graph
 * give the ball B_R and its shell S_{R+1}. The WHOLE graph is simulated
 * with the run's seed (a ball node's weights may read its neighbours'
 * degrees, Zip-DL's noise spans its whole neighbourhood, a plugin may read
 * anything of the topology, and an asynchronous run's deliveries are the
 * whole run's), its provenance kept over the ball only
 * (sim_lin_space_keep_nodes: the randomness of every node beyond the ball
 * known, the messages of the nodes beyond the shell too), and observed by
 * one view: under PNDP, A's receptions and what the shell sends beyond
 * itself; under LDP and SecLDP, A and the shell as members. Its blocks are
 * the ball's |B_R| T gradient columns, the local bound of each victim in
 * the ball.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include "protocols/internal.h"

/* Hops from the @k attackers @m on @g, up to @radius + 2 (G_MAXUINT
 * beyond: the lower bound's outer layer is the last it reads); the ball
 * (<= @radius) and the shell (@radius + 1) appended to @ball and @shell in
 * node order. O(n + the edges within @radius + 2 hops). */
static guint *ball_hops(const TopoGraph *g, const guint *m, guint k, guint radius, GArray *ball,
                        GArray *shell) {
  guint n = topo_graph_n_nodes(g);
  guint *dist = topo_graph_hops(g, m, k, radius + 2);
  for (guint u = 0; u < n; u++) {
    if (dist[u] <= radius)
      g_array_append_val(ball, u);
    else if (dist[u] == radius + 1)
      g_array_append_val(shell, u);
  }
  return dist;
}

void proto_layer_guard_on_sent(const SimBusEvent *ev, gpointer data) {
  ProtoLayerGuard *g = data;
  if (g->broken || ev->message == NULL || sim_message_provenance(ev->message) == NULL ||
      ev->from >= g->n || ev->to >= g->n)
    return;
  guint inner = g->inward ? ev->to : ev->from, outer = g->inward ? ev->from : ev->to;
  if (g->dist[inner] <= g->radius && g->dist[outer] > g->radius + 1) {
    g->broken = TRUE;
    g->from = ev->from;
    g->to = ev->to;
  }
}

/* Progress of accounting @a's ball run, as its share of the job. */
typedef struct {
  const ProtoAccountJob *j;
  guint a;
  const char *what;
} BallProgress;

static void ball_report(const BallProgress *bp, double fraction, guint64 done, guint64 total) {
  const ProtoAccountJob *j = bp->j;
  char *what = j->n_acs > 1
                   ? g_strdup_printf("%s, attacker set %u/%u", bp->what, bp->a + 1, j->n_acs)
                   : g_strdup(bp->what);
  ProtoAccountProgress p = {(bp->a + fraction) / j->n_acs, done, total, what};
  j->progress(&p, j->progress_data);
  g_free(what);
}

/* The streaming accountant's checkpoints. */
static void on_steps(guint steps, guint T, gpointer data) {
  ball_report(data, (double)steps / MAX(T, 1u), steps, T);
}

/* The dense accountant's simulation. */
static void on_fraction(double fraction, gpointer data) {
  const BallProgress *bp = data;
  ball_report(bp, fraction, (guint64)llround(fraction * bp->j->T), bp->j->T);
}

PrivReport *proto_account_ball(ProtoAccountJob *j, guint a, const ProtoRunConfig *cfg,
                               const PrivAccountOptions *opt, PrivLocalInfo *info, GError **error) {
  g_return_val_if_fail(j != NULL && a < j->n_acs && cfg != NULL && opt != NULL, NULL);
  const ProtoAccounting *ac = &j->acs[a];
  /* The wall time of the whole-graph simulations (the same at every
   * radius) apart from the rest (the accountants, growing with the ball):
   * --tightness's estimate (account_tightness.c). */
  gint64 t0 = g_get_monotonic_time(), simulated = 0;
  GArray *ball = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *shell = g_array_new(FALSE, FALSE, sizeof(guint));
  guint *dist = ball_hops(j->graph, ac->attackers, ac->n_attackers, j->radius, ball, shell);
  gboolean covered = shell->len == 0;
  /* The view. Under PNDP: the attackers' receptions, and what the shell
   * sends beyond itself, which is all the nodes beyond the shell receive:
   * their messages are then known functions of the view (empty
   * provenances), while the shell's keep theirs over the ball, its own
   * randomness known (docs/local-bounds.md, "Why the bound is sound").
   * LDP and SecLDP views see every message sent, the ball's to the shell
   * included: there the shell are members. */
  gboolean by_state = ac->trust == PRIV_TRUST_PNDP && !covered;
  guint n = topo_graph_n_nodes(j->graph), n_members = 0, n_beyond = 0;
  guint *members = g_new(guint, ac->n_attackers + shell->len), *beyond = NULL;
  for (guint u = 0; u < n; u++)
    if (dist[u] == 0 || (!by_state && dist[u] == j->radius + 1))
      members[n_members++] = u;
  ProtoObservedView view = {.trust = ac->trust, .members = members, .n_members = n_members};
  if (by_state) {
    beyond = g_new(guint, n - ball->len - shell->len);
    for (guint u = 0; u < n; u++)
      if (dist[u] > j->radius + 1)
        beyond[n_beyond++] = u;
  }
  if (n_beyond > 0) {
    view.hears_sent = (const guint *)(void *)shell->data;
    view.n_hears_sent = shell->len;
    view.hears_sent_to = beyond;
    view.n_hears_sent_to = n_beyond;
  }
  ProtoObserveOptions oo = {.views = &view, .n_views = 1, .T = j->T, .streaming = j->streaming};
  BallProgress bp = {j, a,
                     j->streaming ? "steps accounted on the ball (whole run simulated)"
                                  : "steps simulated (the ball's provenance)"};
  if (j->progress != NULL && j->streaming) {
    oo.progress = on_steps;
    oo.progress_data = &bp;
  }
  ProtoRunConfig rc = *cfg;
  rc.kept = (const guint *)(void *)ball->data;
  rc.n_kept = ball->len;
  if (by_state) {
    rc.heard = (const guint *)(void *)shell->data;
    rc.n_heard = shell->len;
  }
  PrivReport *report = NULL;
  PrivBlocks *blocks = NULL;
  /* The ball's one assumption about the run, checked on it: a ball node's
   * messages go to the ball or the shell (the graph's edges), so that the
   * view hears everything the ball tells the outside. A plugin may send to
   * any node (proto_node_send), a schedule may pair nodes the graph does
   * not join (matching:complete=true, resample:). */
  ProtoLayerGuard guard = {.dist = dist, .n = n, .radius = j->radius, .inward = FALSE};
  ProtoObservedRun *o = proto_observed_run_new(&rc, &oo, error);
  SimBus *bus = o != NULL ? sim_engine_bus(proto_run_engine(proto_observed_run_proto(o))) : NULL;
  guint sub = bus != NULL ? sim_bus_subscribe_kinds(bus, SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT),
                                                    proto_layer_guard_on_sent, &guard, NULL, error)
                          : 0;
  if (sub != 0 &&
      proto_account_job_set_links(j, proto_run_engine(proto_observed_run_proto(o)), error)) {
    ProtoRun *run = proto_observed_run_proto(o);
    if (j->progress != NULL && !j->streaming)
      proto_run_set_progress(run, on_fraction, &bp);
    if (j->on_run)
      j->on_run(run, TRUE, j->on_run_data);
    gint64 s0 = g_get_monotonic_time();
    gboolean ran = proto_observed_run_run(o, error);
    simulated += g_get_monotonic_time() - s0;
    if (j->on_run)
      j->on_run(run, FALSE, j->on_run_data);
    if (ran && guard.broken) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "--path local: ball node %u sent a message to node %u, more than %u hops from "
                  "the attackers (beyond the shell): the ball, counted on the graph's edges, does "
                  "not hold what its victims tell the outside ('%s'%s%s sends off the graph's "
                  "edges; use --path observer)",
                  guard.from, guard.to, j->radius + 1, j->protocol,
                  j->schedule_spec ? " on --schedule " : "",
                  j->schedule_spec ? j->schedule_spec : "");
      ran = FALSE;
    }
    if (ran) {
      proto_run_get_stats(run, &j->stats);
      blocks = proto_observed_run_blocks(o, 0, error);
    }
  }
  if (sub != 0)
    sim_bus_unsubscribe(bus, sub);
  proto_observed_run_free(o);
  if (blocks == NULL && error != NULL && *error != NULL && (*error)->code == PRIV_ERROR_MEMORY &&
      (*error)->domain == PRIV_ERROR)
    g_prefix_error(error,
                   "the ball of radius %u (%u nodes; a smaller radius needs less): ", j->radius,
                   ball->len);
  if (blocks != NULL)
    report = priv_account_report(blocks, NULL, opt, error);
  for (guint i = 0; report && i < report->n_victims; i++) {
    PrivVictim *v = &report->victims[i];
    v->node = g_array_index(ball, guint, v->node);
    v->distance = (gint)dist[v->node];
  }
  PrivLocalInfo local = {0};
  if (report != NULL) {
    local = (PrivLocalInfo){.radius = j->radius,
                            .ball = ball->len,
                            .shell = shell->len,
                            .sub_nodes = ball->len,
                            .covered = covered,
                            .cond = blocks->cond};
    /* mu_lower: a second run, an attacker that knows less
     * (account_ball_lower.c); never fails the upper bound. */
    simulated += proto_account_ball_lower(j, a, cfg, dist, ball, shell, blocks, report, &local);
  }
  j->acs[a].ball_seconds = (double)MAX(g_get_monotonic_time() - t0 - simulated, (gint64)0) /
                           G_USEC_PER_SEC;
  if (report != NULL && info != NULL)
    *info = local;
  priv_blocks_free(blocks);
  g_free(members);
  g_free(beyond);
  g_free(dist);
  g_array_free(ball, TRUE);
  g_array_free(shell, TRUE);
  return report;
}
