/*
 * protocols/account_ball_lower.c: the certified LOWER bound of the observer
 * path's ball (docs/local-bounds.md, "The observer path's ball: the lower
 * bound"): mu_lower <= exact for every victim of the ball, for any linear
 * protocol, mode and trust model the ball accounts.
 *
 * An attacker that knows less than the true one: it observes only what the
 * attackers themselves observe, and the content of every message a node
 * beyond the shell (hops R + 2, the outer layer) sends is a fresh unknown
 * (a nuisance variable, sim_lin_space_nuisance_from): it depends on
 * everything, the victims included. The WHOLE graph is simulated again with
 * the run's seed, links and delivery record (the same as the upper bound's
 * run: draws are keyed by link and message), its provenance kept over the
 * ball and the shell (B_{R+1}: the shell's noise is noise, unknown to the
 * attackers, as in the true run); the view's rows are then
 * Y = M g + M_z z + N phi exactly, and the nuisance is projected out
 * (priv_knowledge_project_out): Q^T Y with Q^T N = 0 is a function of the
 * true view free of phi, so its information is below the exact one. With
 * no outer layer (B_{R+1} holds every node connected to the attackers)
 * there is no nuisance: the run is the attackers' true view, accounted by
 * the run's own accountant, so mu_lower is the exact value. Where the
 * shell cannot be kept (memory, or a message from beyond the outer layer),
 * the same one layer in: the ball kept, the shell's messages nuisance.
 * Each victim's mu_lower is priced with a primal point of the exact
 * sensitivity SDP (priv_sens2_lower), never with Thm 5.2.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include "protocols/internal.h"
#include "spec/spec.h"

/* Sets @info's note (why mu_lower is 0), once. */
static void note(PrivLocalInfo *info, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void note(PrivLocalInfo *info, const char *fmt, ...) {
  if (info->lower_note[0] != '\0')
    return;
  va_list ap;
  va_start(ap, fmt);
  g_vsnprintf(info->lower_note, sizeof info->lower_note, fmt, ap);
  va_end(ap);
}

/* The run's provenance is never rebased (the projection needs the rows
 * whole), so it grows with the rounds. Its live linvecs' bytes are summed
 * (PROVENANCE_ENTRY_BYTES a sparse entry) every
 * WATCH_SENDS messages sent, the peak of a round kept (a round's messages,
 * copies of their senders' models, are its peak); at each round's end the
 * next round's peak is extrapolated (provenance grows linearly with the
 * rounds), and over the budget, or the budget reached at any sum, the run
 * stops. The rows observed so far are a subset of the attackers' view:
 * their projection is a lower bound all the same, from fewer rounds. */
#define WATCH_SENDS 4096
/* A sparse entry's index and value are 12 bytes, the arrays' doubling up
 * to 24; the freed rows of each round's messages fragment the heap:
 * regular:n=10000,d=8, radius 3, T = 20 peaked at 4.9 GB of RSS for 3 GB
 * counted at 24 bytes, so 40. */
#define PROVENANCE_ENTRY_BYTES 40.0

typedef struct {
  ProtoRun *run;
  SimLinSpace *space;
  gsize budget;
  guint stopped; /* the round it stopped at (0: it did not) */
  guint round;   /* the round under way */
  guint64 sends; /* messages sent since the last sum */
  double peak;   /* the largest sum in this round */
} Watch;

static double live_bytes(const SimLinSpace *space) {
  double bytes = 0;
  for (guint i = 0; i < sim_lin_space_n_live(space); i++)
    bytes += PROVENANCE_ENTRY_BYTES *
             (double)sim_linvec_nnz(sim_lin_space_live(space, i), SIM_LIN_BOTH);
  return bytes;
}

static void watch_stop(Watch *w) {
  w->stopped = MAX(w->round, 1u);
  proto_run_cancel(w->run);
}

/* The lower bound's default budget. The projection keeps little past the
 * first ~R + 1 rounds (docs/local-bounds.md, "How tight"), so more memory
 * buys time, not tightness: on regular:n=1000,d=8, T = 20, Zip-DL, radius
 * 2, 3 GB stopped the run after 7 rounds in 13 CPU s, half the memory
 * limit after 17 rounds in 103 CPU s and 12.9 GB, every mu_lower the same
 * to 2e-15. */
#define LOWER_BUDGET_DEFAULT ((gsize)3000000000u)

/* The budget of the lower bound's provenance: $DPGOSSIP_LOWER_MEMORY bytes
 * (tests set it small to see the run stop), else LOWER_BUDGET_DEFAULT or
 * half the memory limit if less (the projection and the dense accountant
 * come after). */
static gsize lower_budget(void) {
  const char *env = g_getenv("DPGOSSIP_LOWER_MEMORY");
  if (env != NULL) {
    char *end = NULL;
    guint64 b = g_ascii_strtoull(env, &end, 10);
    if (end != env && *end == '\0')
      return (gsize)b;
  }
  return MIN(spec_memory_limit() / 2, LOWER_BUDGET_DEFAULT);
}

static void on_watch(const SimBusEvent *ev, gpointer data) {
  Watch *w = data;
  if (w->stopped)
    return;
  if (ev->kind == SIM_BUS_MESSAGE_SENT) {
    if (++w->sends < WATCH_SENDS)
      return;
    w->sends = 0;
    w->peak = MAX(w->peak, live_bytes(w->space));
    if (w->peak > (double)w->budget)
      watch_stop(w);
    return;
  }
  if (ev->kind != SIM_BUS_ROUND || ev->round < 1)
    return;
  w->peak = MAX(w->peak, live_bytes(w->space));
  if (w->peak * (ev->round + 1) / ev->round > (double)w->budget) {
    w->round = ev->round;
    watch_stop(w);
    return;
  }
  w->round = ev->round;
  w->peak = 0;
}

static gboolean is_nuisance(guint32 id, gpointer data) {
  return sim_noise_kind(data, id) == SIM_NOISE_KIND_NUISANCE;
}

/* Progress of the lower bound's run of accounting @a. */
typedef struct {
  const ProtoAccountJob *j;
  guint a;
} LowerProgress;

static void on_fraction(double fraction, gpointer data) {
  const LowerProgress *lp = data;
  const ProtoAccountJob *j = lp->j;
  char *what = j->n_acs > 1
                   ? g_strdup_printf("steps simulated (the lower bound's run), attacker set %u/%u",
                                     lp->a + 1, j->n_acs)
                   : g_strdup("steps simulated (the lower bound's run)");
  ProtoAccountProgress p = {(lp->a + fraction) / j->n_acs, (guint64)llround(fraction * j->T), j->T,
                            what};
  j->progress(&p, j->progress_data);
  g_free(what);
}

/* The lower bound's blocks over @kept's indices (the nodes within @level
 * hops): the run with the @outer layer's messages (hops @level + 1) as
 * nuisance, observed by the attackers alone, the nuisance projected out;
 * with no outer layer, the attackers' true view by the job's accountant.
 * @dist: hops up to the outer layer. Adds its simulation's wall time to
 * @simulated. NULL with @error. */
static PrivBlocks *lower_blocks(ProtoAccountJob *j, guint a, const ProtoRunConfig *cfg,
                                const guint *dist, guint level, const GArray *kept,
                                const GArray *outer, guint *rank, gint64 *simulated,
                                PrivLocalInfo *info, GError **error) {
  const ProtoAccounting *ac = &j->acs[a];
  gboolean nuisance = outer->len > 0;
  ProtoObservedView view = {
      .trust = ac->trust, .members = ac->attackers, .n_members = ac->n_attackers};
  /* With nuisance, the dense accountant whatever the job's (the streaming
   * one's rebase would fold the nuisance into its states): the attackers'
   * view alone is small under PNDP (their receptions), and its memory is
   * checked before the run. Sparse rows. */
  ProtoObserveOptions oo = {
      .views = &view, .n_views = 1, .T = j->T, .streaming = !nuisance && j->streaming};
  ProtoRunConfig rc = *cfg;
  rc.kept = (const guint *)(void *)kept->data;
  rc.n_kept = kept->len;
  rc.heard = NULL; /* nothing known is heard: the outer layer's messages are nuisance */
  rc.n_heard = 0;
  if (nuisance) {
    rc.nuisance_from = (const guint *)(void *)outer->data;
    rc.n_nuisance_from = outer->len;
    rc.storage = SIM_LIN_SPARSE;
  }
  /* The lower bound's one assumption about the run: nothing but the outer
   * layer sends into @kept (the graph's edges), so that every message
   * entering it carries a nuisance; a message from beyond the outer layer
   * to a kept node would be taken as known. */
  ProtoLayerGuard inflow = {
      .dist = dist, .n = topo_graph_n_nodes(j->graph), .radius = level, .inward = TRUE};
  LowerProgress lp = {j, a};
  PrivBlocks *blocks = NULL;
  ProtoObservedRun *o = proto_observed_run_new(&rc, &oo, error);
  if (o == NULL)
    return NULL;
  ProtoRun *run = proto_observed_run_proto(o);
  SimBus *bus = sim_engine_bus(proto_run_engine(run));
  guint sub = sim_bus_subscribe_kinds(bus, SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT),
                                      proto_layer_guard_on_sent, &inflow, NULL, error);
  /* Only a run whose provenance is never rebased grows with the rounds. */
  gboolean watched = !oo.streaming;
  Watch watch = {
      .run = run, .space = proto_context_space(proto_run_context(run)), .budget = lower_budget()};
  guint sub_round = sub != 0 && watched
                        ? sim_bus_subscribe_kinds(bus,
                                                  SIM_BUS_KIND_BIT(SIM_BUS_ROUND) |
                                                      SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT),
                                                  on_watch, &watch, NULL, error)
                        : 0;
  if (sub != 0 && (!watched || sub_round != 0) &&
      proto_account_job_set_links(j, proto_run_engine(run), error)) {
    if (j->progress != NULL)
      proto_run_set_progress(run, on_fraction, &lp);
    if (j->on_run)
      j->on_run(run, TRUE, j->on_run_data);
    gint64 s0 = g_get_monotonic_time();
    gboolean ran = proto_observed_run_run(o, error);
    *simulated += g_get_monotonic_time() - s0;
    if (!ran && watched && watch.stopped && error != NULL && *error != NULL &&
        g_error_matches(*error, PROTO_ERROR, PROTO_ERROR_CANCELLED)) {
      /* Stopped for memory: the rows seen so far. */
      g_clear_error(error);
      ran = TRUE;
      info->lower_rounds = watch.stopped;
    }
    if (j->on_run)
      j->on_run(run, FALSE, j->on_run_data);
    SimLinSpace *space = proto_context_space(proto_run_context(run));
    if (ran && inflow.broken) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "node %u (more than %u hops from the attackers) sent a message to node %u "
                  "(at most %u from them)",
                  inflow.from, level + 1, inflow.to, level);
      ran = FALSE;
    }
    if (ran && sim_lin_space_nuisance_failures(space) > 0) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                  "%" G_GUINT64_FORMAT " nuisance variables could not be registered",
                  sim_lin_space_nuisance_failures(space));
      ran = FALSE;
    }
    if (ran && oo.streaming)
      blocks = proto_observed_run_blocks(o, 0, error);
    PrivKnowledge *k = ran && !oo.streaming ? proto_observed_run_knowledge(o, 0, error) : NULL;
    PrivKnowledge *kp = k != NULL ? priv_knowledge_project_out(
                                        k, is_nuisance, sim_lin_space_noise(space), 0, rank, error)
                                  : NULL;
    PrivKnowledgeOptions ko = {.T = j->T, .clip = cfg->clip};
    if (kp != NULL)
      blocks = priv_knowledge_blocks_scaled(kp, &ko, error);
    priv_knowledge_free(kp);
    priv_knowledge_free(k);
  }
  if (sub_round != 0)
    sim_bus_unsubscribe(bus, sub_round);
  if (sub != 0)
    sim_bus_unsubscribe(bus, sub);
  proto_observed_run_free(o);
  return blocks;
}

/* mu_lower of every victim of @report from @blocks (kept indices through
 * @pos: graph node -> index in the blocks), never above the victim's mu
 * (both enclose the exact value: the min only removes rounding). */
static gboolean price(const PrivBlocks *blocks, const guint *pos, PrivReport *report,
                      GError **error) {
  guint T = blocks->T, b = report->b ? report->b : 1;
  for (guint i = 0; i < report->n_victims; i++) {
    PrivVictim *v = &report->victims[i];
    guint k = pos[v->node];
    double low = 0.0;
    if (blocks->status[k] == PRIV_NODE_PROTECTED) {
      double s2 = 0.0;
      if (!priv_sens2_lower(blocks->X + (gsize)k * T * T, T, b, &s2, error))
        return FALSE;
      low = sqrt(s2) / blocks->scale;
    } else if (blocks->status[k] == PRIV_NODE_UNPROTECTED && isinf(v->mu)) {
      /* Less knowledge already sees the victim without noise. */
      low = INFINITY;
    }
    /* UNRESOLVED, or UNPROTECTED against a finite upper bound (rounding):
     * claim nothing. */
    if (!(low >= 0))
      low = 0.0;
    v->mu_lower = MIN(low, v->mu);
  }
  return TRUE;
}

gint64 proto_account_ball_lower(ProtoAccountJob *j, guint a, const ProtoRunConfig *cfg,
                                const guint *dist, const GArray *ball, const GArray *shell,
                                const PrivBlocks *upper, PrivReport *report, PrivLocalInfo *info) {
  g_return_val_if_fail(j != NULL && cfg != NULL && dist != NULL && report != NULL && info != NULL,
                       0);
  gint64 simulated = 0;
  info->lower_note[0] = '\0';
  info->lower_rounds = 0;
  for (guint i = 0; i < report->n_victims; i++)
    report->victims[i].mu_lower = 0.0;
  guint n = topo_graph_n_nodes(j->graph), *pos = g_new(guint, n);
  GError *err = NULL;
  PrivBlocks *lower = NULL;
  guint rank = 0;
  if (shell->len == 0) {
    /* The ball covers the graph: the upper bound's blocks are the exact
     * ones (nothing cut), priced from below. */
    for (guint i = 0; i < ball->len; i++)
      pos[g_array_index(ball, guint, i)] = i;
    if (!price(upper, pos, report, &err))
      note(info, "%s", err->message);
  } else {
    /* The ball and the shell kept, the outer layer's messages nuisance;
     * where that run cannot be had (its memory, checked before it starts,
     * or a message from beyond its outer layer), the ball alone, the
     * shell's messages nuisance: a coarser bound, a smaller run. */
    GArray *kept = g_array_new(FALSE, FALSE, sizeof(guint));
    GArray *outer = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint coarser = 0; lower == NULL && coarser < 2; coarser++) {
      guint level = j->radius + 1 - coarser;
      g_clear_error(&err);
      info->lower_rounds = 0;
      g_array_set_size(kept, 0);
      g_array_set_size(outer, 0);
      for (guint u = 0; u < n; u++)
        if (dist[u] <= level) {
          pos[u] = kept->len;
          g_array_append_val(kept, u);
        } else if (dist[u] == level + 1)
          g_array_append_val(outer, u);
      lower = lower_blocks(j, a, cfg, dist, level, kept, outer, &rank, &simulated, info, &err);
    }
    if (lower == NULL || !price(lower, pos, report, &err)) {
      note(info, "not computed: %s", err->message);
      for (guint i = 0; i < report->n_victims; i++)
        report->victims[i].mu_lower = 0.0;
    }
    g_array_free(kept, TRUE);
    g_array_free(outer, TRUE);
  }
  g_clear_error(&err);
  priv_blocks_free(lower);
  g_free(pos);
  return simulated;
}
