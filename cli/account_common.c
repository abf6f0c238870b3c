/*
 * cli/account_common.c: the accounting setup shared by `dpgossip account`
 * and `dpgossip figure` (see account_common.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/account_common.h"

void cli_account_setup_clear(CliAccountSetup *s) {
  if (!s)
    return;
  g_clear_pointer(&s->protocol_label, g_free);
  g_clear_pointer(&s->C_local, g_free);
  g_clear_pointer(&s->attackers, g_free);
  s->n_attackers = 0;
}

gboolean cli_parse_uint(const char *s, guint *out) {
  if (!s || !g_ascii_isdigit(*s))
    return FALSE;
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull(s, &end, 10);
  if (errno || *end != '\0' || v > G_MAXUINT - 1)
    return FALSE;
  *out = (guint)v;
  return TRUE;
}

gboolean cli_account_parse_protocol(const char *spec, CliAccountSetup *s, char **c_path,
                                    GError **error) {
  const char *colon = strchr(spec, ':');
  char *name = colon ? g_strndup(spec, (gsize)(colon - spec)) : g_strdup(spec);
  const char *params = colon ? colon + 1 : NULL;
  gboolean ok = FALSE;
  s->K = 1;
  if (g_str_equal(name, "dsgd") || g_str_equal(name, "antipgd")) {
    if (params) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--protocol: %s takes no parameter (got '%s')", name, params);
      goto out;
    }
    s->protocol = g_str_equal(name, "dsgd") ? PRIV_PROTOCOL_DSGD : PRIV_PROTOCOL_MFDSGD;
    s->protocol_label = g_strdup(name);
    ok = TRUE;
  } else if (g_str_equal(name, "muffliato")) {
    s->protocol = PRIV_PROTOCOL_MUFFLIATO;
    s->K = 1;
    if (params && (!g_str_has_prefix(params, "K=") || !cli_parse_uint(params + 2, &s->K) ||
                   s->K == 0 || s->K > 100000)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--protocol: muffliato takes K=<gossip rounds per step, 1 to 100000>, got "
                  "'%s'",
                  params);
      goto out;
    }
    s->protocol_label = g_strdup_printf("muffliato:K=%u", s->K);
    ok = TRUE;
  } else if (g_str_equal(name, "mfdsgd")) {
    if (!params || !g_str_has_prefix(params, "C=") || params[2] == '\0') {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--protocol: mfdsgd needs its correlation matrix: mfdsgd:C=FILE (a T x T CSV "
                  "such as 'dpgossip mafalda --out' writes)");
      goto out;
    }
    s->protocol = PRIV_PROTOCOL_MFDSGD;
    *c_path = g_strdup(params + 2);
    s->protocol_label = g_strdup(spec);
    ok = TRUE;
  } else {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--protocol: unknown protocol '%s' (valid: dsgd, muffliato:K=k, antipgd, "
                "mfdsgd:C=FILE)",
                name);
  }
out:
  g_free(name);
  return ok;
}

gboolean cli_account_check_numbers(double sigma, double clip, double alpha, double delta,
                                   GError **error) {
  return proto_account_check_numbers(sigma, clip, alpha, delta, error);
}

/* The structured problem of @s (its gossip is proto_account_structured's). */
static PrivStructuredProblem structured_problem(const CliAccountSetup *s) {
  return (PrivStructuredProblem){.protocol = s->protocol,
                                 .K = s->K,
                                 .C_local = s->C_local,
                                 .T = s->T,
                                 .trust = s->trust,
                                 .attackers = s->attackers,
                                 .n_attackers = s->n_attackers,
                                 .sigma = s->sigma,
                                 .b = s->b,
                                 .engine = PRIV_ENGINE_AUTO,
                                 .threads = s->threads,
                                 .progress = s->progress,
                                 .progress_data = s->progress_data};
}

/* A numerical failure on the user's C_local names the protocol spec that
 * gave it (a file or a family) and what to change. */
static PrivBlocks *name_c(const CliAccountSetup *s, const PrivStructuredProblem *p,
                          PrivBlocks *blocks, GError **error) {
  if (blocks == NULL && p->C_local != NULL && error != NULL && *error != NULL &&
      g_error_matches(*error, PRIV_ERROR, PRIV_ERROR_NUMERICAL)) {
    char *msg = g_strdup_printf("--protocol %s: %s; give a better-conditioned C (no diagonal "
                                "entry negligible against the entries below it)",
                                s->protocol_label, (*error)->message);
    g_free((*error)->message);
    (*error)->message = msg;
  }
  return blocks;
}

PrivBlocks *cli_account_blocks_structured(const CliAccountSetup *s, const TopoGossip *w,
                                          GError **error) {
  PrivStructuredProblem p = structured_problem(s);
  return name_c(s, &p, proto_account_structured(&p, w, NULL, error), error);
}

PrivBlocks *cli_account_blocks_schedule(const CliAccountSetup *s, TopoSchedule *sched,
                                        GError **error) {
  PrivStructuredProblem p = structured_problem(s);
  return name_c(s, &p, proto_account_structured(&p, NULL, sched, error), error);
}

PrivReport *cli_account_report_local(const CliAccountSetup *s, const TopoGossip *w,
                                     TopoSchedule *sched, guint radius,
                                     const PrivAccountOptions *opt, PrivLocalInfo *info,
                                     const char *announce, GError **error) {
  PrivStructuredProblem p = structured_problem(s);
  PrivLocalInfo ball;
  if (announce && w) {
    /* One accounting of a large ball is minutes without a progress hook
     * inside: say what it is about to do. */
    const TopoGossip *ws[] = {w};
    PrivStructuredProblem q = p;
    q.gossip = ws;
    q.n_gossip = 1;
    if (priv_local_ball(&q, radius, &ball, NULL))
      fprintf(stderr,
              "dpgossip %s: %u nodes within %u hops of the attackers, %u colluding at %u hops: "
              "accounting %u nodes over %u steps\n",
              announce, ball.ball, radius, ball.shell, radius + 1, ball.sub_nodes, s->T);
  }
  return proto_account_local(&p, w, sched, radius, opt, info, error);
}

/* ---- Any registered protocol ---- */

void cli_account_protocol_clear(CliAccountProtocol *p) {
  if (!p)
    return;
  g_clear_pointer(&p->run_spec, g_free);
  g_clear_pointer(&p->name, g_free);
  g_clear_pointer(&p->c_spec, g_free);
  p->structured = FALSE;
  p->band = 0;
}

gboolean cli_account_resolve_protocol(const char *spec, CliAccountSetup *s, CliAccountProtocol *p,
                                      GError **error) {
  ProtoAccountProtocol r = {0};
  if (!proto_account_resolve_protocol(spec, &r, error))
    return FALSE;
  p->run_spec = g_strdup(spec);
  p->name = g_strdup(r.vt->name);
  p->structured = r.structured;
  p->c_spec = g_steal_pointer(&r.c_spec);
  p->band = r.band;
  s->K = r.K;
  if (r.structured)
    s->protocol = r.protocol;
  g_free(s->protocol_label);
  s->protocol_label = g_strdup(spec);
  return TRUE;
}

gboolean cli_account_build_c(CliAccountSetup *s, const CliAccountProtocol *p, GError **error) {
  if (!p->structured || s->protocol != PRIV_PROTOCOL_MFDSGD)
    return TRUE;
  g_clear_pointer(&s->C_local, g_free);
  /* The structured path knows no Mafalda-optimized C: no graph needed. */
  ProtoCRecipe r = {.spec = p->c_spec, .T = s->T, .k = s->T / s->b, .b = s->b, .band = p->band};
  s->C_local = proto_c_local(&r, error);
  return s->C_local != NULL;
}

/* Long observer accountings take minutes: the streaming accountant reports
 * each checkpoint, the dense one's simulation each percent of its steps. */
static void on_checkpoint(guint steps, guint T, gpointer data) {
  cli_progress_update(data, steps, T, "steps accounted");
}

typedef struct {
  CliProgress *printer;
  guint T;
} StepProgress;

static void on_step(double fraction, gpointer data) {
  const StepProgress *sp = data;
  cli_progress_update(sp->printer, (guint64)llround(fraction * sp->T), sp->T, "steps simulated");
}

PrivBlocks **cli_account_blocks_observer(const CliAccountSetup *s, const CliObserverRun *run,
                                         const ProtoObservedView *views, guint n_views,
                                         ProtoRunStats *stats, GError **error) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = run->schedule ? NULL : run->graph;
  cfg.schedule = run->schedule;
  cfg.gossip = s->gossip;
  cfg.protocol = run->protocol;
  cfg.sigma = s->sigma;
  cfg.clip = s->clip;
  cfg.lr = run->lr;
  cfg.rounds = s->T;
  cfg.batches = s->b; /* MF-D-SGD calibrates its noise for (T/b, b)-participation */
  cfg.mode = run->mode;
  cfg.latency = run->latency;
  cfg.loss = run->loss;
  cfg.seed = run->seed;
  cfg.storage = run->storage;
  ProtoObserveOptions oo = {
      .views = views, .n_views = n_views, .T = s->T, .streaming = run->streaming};
  if (run->progress != NULL && run->streaming) {
    oo.progress = on_checkpoint;
    oo.progress_data = run->progress;
  }
  PrivBlocks **blocks = NULL;
  ProtoObservedRun *o = proto_observed_run_new(&cfg, &oo, error);
  if (!o)
    return NULL;
  StepProgress sp = {run->progress, s->T};
  if (run->progress != NULL && !run->streaming)
    proto_run_set_progress(proto_observed_run_proto(o), on_step, &sp);
  SimEngine *engine = proto_run_engine(proto_observed_run_proto(o));
  for (guint i = 0; i < run->n_links; i++) {
    const ProtoAccountLink *l = &run->links[i];
    gboolean ok = l->down ? sim_engine_set_link_down(engine, l->from, l->to, TRUE, error)
                          : sim_engine_set_link(engine, l->from, l->to,
                                                &(SimLinkParams){.latency = l->latency}, error);
    if (!ok) {
      g_prefix_error(error, "--link %u:%u: ", l->from, l->to);
      goto out;
    }
  }
  if (!proto_observed_run_run(o, error))
    goto out;
  if (stats)
    proto_run_get_stats(proto_observed_run_proto(o), stats);
  blocks = g_new0(PrivBlocks *, MAX(n_views, 1));
  for (guint i = 0; i < n_views; i++)
    if (!(blocks[i] = proto_observed_run_blocks(o, i, error))) {
      for (guint j = 0; j < i; j++)
        priv_blocks_free(blocks[j]);
      g_clear_pointer(&blocks, g_free);
      goto out;
    }
out:
  proto_observed_run_free(o);
  return blocks;
}
