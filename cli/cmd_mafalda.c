/*
 * cli/cmd_mafalda.c: `dpgossip mafalda`: the Mafalda noise correlation for a
 * graph and a (k,b)-participation (docs/design.md, "Mafalda"), compared with the
 * fixed baselines and DMF on the same objective sens^2 tr(H (C^T C)^{-1}).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "cli/cli.h"
#include "mf/mf.h"
#include "privacy/privacy.h"

/* --schedule: the spec and seed as given, and the expected Gram matrix
 * (proto_schedule_gram: the one `-p mafalda` fits its C to). */
typedef struct {
  const char *spec;
  guint64 seed;        /* the schedule's seed (sample i: seed + i) */
  gboolean bad_spec;   /* the failure was the spec's (prefixed "--schedule: ") */
  gboolean is_static;  /* every round gives the static W */
  ProtoScheduleGram g; /* in: samples, workload (seed: set from @seed) */
  TopoSchedule *s;     /* built by schedule_gram (owned) */
  /* --mode deadline:ms=D (NULL: none): C fitted to the mean Gram matrix of
   * the delivery records' W_r (proto_delivery_gram) instead. */
  const char *mode, *latency, *loss;
  ProtoDeliveryGram d; /* in: samples, probes, workload */
} CliSchedule;

/* --classes: one C per class of nodes, each fitted to its class's Gram
 * matrix (docs/design.md "Per-class C"). */
typedef struct {
  const char *spec;                          /* online:K or a map file */
  guint K;                                   /* classes */
  guint *node_class;                         /* n */
  double *online;                            /* n: fraction of the rounds each node is present */
  double *C;                                 /* K T x T: each class's C */
  guint *size;                               /* K: nodes */
  double *online_mean;                       /* K: mean of @online over the class */
  double *loss, *loss_mafalda, *loss_static; /* K: own C, mafalda's, mafalda-static's */
  double *sens;                              /* K: sens(C_c) */
  double total, total_mafalda, total_static;
  gboolean scored_apart; /* sketched: scored on probes independent of the fit */
} CliClasses;

typedef struct {
  TopoGossipKind gossip;
  MfMafaldaReportOptions opt;
  const MfMafaldaReport *rep;
  /* Wall-clock seconds. The optimize and baselines timings come from the
   * report (they run side by side, so total < the sum of the parts). */
  double seconds_load, seconds_write, seconds_total;
  CliProgress *progress; /* Mafalda's iterations (NULL: -q) */
  /* --schedule (NULL: none, today's output): the expected Gram matrix, and
   * the static graph's C scored on it as the strategy mafalda-static. */
  CliSchedule *sched;
  double static_loss, static_sensitivity, static_cpu, static_se;
  double se[MF_MAFALDA_N_STRATEGIES]; /* --samples: standard errors, else NaN */
  double *static_C;                   /* --schedule: the static graph's C (owned) */
  CliClasses *classes;                /* --classes, else NULL */
} Report;

static void print_classes(const CliClasses *c);
static void add_classes(JsonBuilder *jb, const CliClasses *c);

static double seconds_since(gint64 start) {
  return (double)(g_get_monotonic_time() - start) / 1e6;
}

/* @stat: mafalda-static's value, after mafalda's, when @with_static
 * (--schedule). */
static void add_strategies(JsonBuilder *jb, const char *name, const double *v, gboolean with_static,
                           double stat) {
  cli_json_begin_object(jb, name);
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++) {
    if (isnan(v[i]))
      cli_json_null(jb, mf_mafalda_strategy_name(i)); /* not computed (--skip-dense) */
    else
      cli_json_number(jb, mf_mafalda_strategy_name(i), v[i]);
    if (i == MF_MAFALDA_MAFALDA && with_static && isnan(stat))
      cli_json_null(jb, "mafalda-static");
    else if (i == MF_MAFALDA_MAFALDA && with_static)
      cli_json_number(jb, "mafalda-static", stat);
  }
  json_builder_end_object(jb);
}

/* The schedule's JSON object: its spec, how the expectation was taken. */
static void add_schedule(JsonBuilder *jb, const CliSchedule *ms) {
  if (ms->mode != NULL) {
    cli_json_begin_object(jb, "deliveries");
    cli_json_string(jb, "mode", ms->mode);
    cli_json_string(jb, "latency", ms->latency ? ms->latency : "constant:ms=0");
    cli_json_string(jb, "loss", ms->loss ? ms->loss : "0");
    cli_json_int(jb, "records", ms->d.samples);
    cli_json_int(jb, "probes", ms->d.probes);
    cli_json_number(jb, "delivered_fraction", ms->d.delivered);
    cli_json_bool(jb, "in_time", ms->d.in_time);
    cli_json_number(jb, "seconds", ms->d.seconds);
    json_builder_end_object(jb);
  }
  cli_json_begin_object(jb, "schedule");
  cli_json_string(jb, "spec", ms->spec);
  cli_json_string(jb, "expectation",
                  ms->mode != NULL && ms->g.how != PROTO_EXPECT_STATIC
                      ? "deliveries"
                      : proto_expectation_name(ms->g.how));
  cli_json_int(jb, "seed", (gint64)ms->seed);
  if (ms->g.how == PROTO_EXPECT_IID)
    cli_json_int(jb, "round_outcomes", (gint64)ms->g.outcomes);
  if (ms->g.how == PROTO_EXPECT_SAMPLED && ms->g.samples > 0)
    cli_json_int(jb, "samples", ms->g.samples);
  if (ms->g.probes > 0 && ms->g.how == PROTO_EXPECT_SAMPLED)
    cli_json_int(jb, "probes", ms->g.probes);
  cli_json_number(jb, "seconds", ms->g.seconds);
  json_builder_end_object(jb);
}

static void print_json(const Report *r) {
  const MfMafaldaReport *p = r->rep;
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  cli_json_int(jb, "nodes", p->n);
  cli_json_string(jb, "gossip", topo_gossip_kind_name(r->gossip));
  cli_json_string(jb, "workload", mf_workload_name(r->opt.workload));
  if (r->sched)
    add_schedule(jb, r->sched);
  cli_json_int(jb, "rounds", p->T);
  cli_json_int(jb, "epochs", p->k);
  cli_json_int(jb, "batches", p->b);
  if (p->band)
    cli_json_int(jb, "band", p->band);
  else
    cli_json_null(jb, "band"); /* no band: C_local is full lower triangular */
  cli_json_int(jb, "toeplitz_band", p->toeplitz_band);
  cli_json_int(jb, "blt_buffers", p->blt_buffers);
  cli_json_number(jb, "trace_H", p->trace_H);
  gboolean st = r->sched != NULL;
  add_strategies(jb, "loss", p->loss, st, r->static_loss);
  if (st && r->sched->g.how == PROTO_EXPECT_SAMPLED)
    add_strategies(jb, "loss_std_error", r->se, st, r->static_se);
  add_strategies(jb, "sensitivity", p->sensitivity, st, r->static_sensitivity);
  add_strategies(jb, "strategy_seconds", p->cpu_seconds, st, r->static_cpu);
  if (r->classes)
    add_classes(jb, r->classes);
  cli_json_int(jb, "iterations", p->iterations);
  /* The optimizer's convergence: its objective at the start and after each
   * accepted step, on the Gram matrix Mafalda is fitted to (under --probes,
   * the fitting probes': loss.mafalda is then scored on the others). */
  cli_json_begin_array(jb, "objective_per_iteration");
  for (guint i = 0; i < p->n_objective_history; i++)
    json_builder_add_double_value(jb, p->objective_history[i]);
  json_builder_end_array(jb);
  cli_json_begin_object(jb, "seconds");
  const struct {
    const char *key;
    double value;
  } seconds[] = {{"load", r->seconds_load},         {"gram", p->seconds_gram},
                 {"optimize", p->seconds_optimize}, {"baselines", p->seconds_baselines},
                 {"write", r->seconds_write},       {"total", r->seconds_total}};
  for (guint i = 0; i < G_N_ELEMENTS(seconds); i++) {
    cli_json_number(jb, seconds[i].key, seconds[i].value);
  }
  json_builder_end_object(jb);
  json_builder_end_object(jb);
  cli_json_print(jb);
}

static void print_schedule(const Report *r) {
  const CliSchedule *ms = r->sched;
  if (ms->mode != NULL) {
    printf("%-14s %s, latency %s, loss %s: ",
           g_str_has_prefix(ms->mode, "stale") ? "stale mode" : "deadline mode", ms->mode,
           ms->latency ? ms->latency : "constant:ms=0", ms->loss ? ms->loss : "0");
    if (ms->d.in_time)
      printf("every message in time, every W_r the scheduled one\n");
    else
      printf("C fitted to the mean Gram matrix of %u delivery record%s (of seed %" G_GUINT64_FORMAT
             "), %s, %s\n",
             ms->d.samples, ms->d.samples > 1 ? "s" : "", ms->seed,
             ms->d.probes ? "each sketched" : "each exact",
             ms->d.samples > 1 ? "every strategy scored on as many others" : "and scored on it");
    if (g_str_has_prefix(ms->mode, "stale"))
      printf("delivered      every gather reads one input per in-neighbour, a late one from an "
             "earlier round\n");
    else
      printf("delivered      %.4f of the gossip messages used by their gather\n", ms->d.delivered);
    if (ms->d.probes > 0)
      printf("sketch         each record's Gram matrix from %u probes\n", ms->d.probes);
    printf("schedule       %s (seed %" G_GUINT64_FORMAT ")\n", ms->spec, ms->seed);
    printf("expectation    %.3f s\n", ms->d.seconds);
    return;
  }
  printf("schedule       %s (seed %" G_GUINT64_FORMAT "): ", ms->spec, ms->seed);
  switch (ms->g.how) {
  case PROTO_EXPECT_STATIC:
    printf("every round gives the static W: today's objective\n");
    break;
  case PROTO_EXPECT_TRACE:
    printf("one sequence W_0 .. W_T-1: its exact objective\n");
    break;
  case PROTO_EXPECT_IID:
    printf("independent rounds, exact expectation over %" G_GUINT64_FORMAT " outcomes each\n",
           ms->g.outcomes);
    break;
  case PROTO_EXPECT_SAMPLED:
    if (ms->g.samples > 0)
      printf("expectation estimated: C fitted on %u sampled schedules, every strategy scored on "
             "%u others (loss: mean +- standard error)\n",
             ms->g.samples, ms->g.samples);
    else
      printf("%s, its Gram matrix sketched: C fitted on %u probes, every strategy scored on %u "
             "others (loss: mean +- standard error)\n",
             ms->is_static ? "the static W" : "one sequence W_0 .. W_T-1", ms->g.probes,
             ms->g.probes);
    break;
  }
  if (ms->g.probes > 0 && ms->g.samples > 0 && ms->mode == NULL)
    printf("sketch         each schedule's Gram matrix from %u probes\n", ms->g.probes);
  printf("expectation    %.3f s\n", ms->g.seconds);
}

static void print_schedule_row(const Report *r, const char *key, double loss, double err,
                               double sens, double cpu, gboolean se) {
  if (isnan(loss)) {
    printf("%-14s %18s\n", key, "(skipped)");
    return;
  }
  printf("%-14s %18.10g", key, loss);
  if (se)
    printf(" %11.4g", err);
  printf(" %12.6g %10.4f %10.3f\n", sens, loss / r->rep->loss[MF_MAFALDA_MAFALDA], cpu);
}

/* The strategies under --schedule: mafalda-static after mafalda; with
 * --samples, each loss's standard error. */
static void print_schedule_strategies(const Report *r) {
  const MfMafaldaReport *p = r->rep;
  gboolean se = r->sched->g.how == PROTO_EXPECT_SAMPLED;
  printf("\n%-14s %18s%s %12s %10s %10s\n", "strategy", "expected loss", se ? "   std error" : "",
         "sensitivity", "vs mafalda", "seconds");
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++) {
    print_schedule_row(r, mf_mafalda_strategy_name(i), p->loss[i], r->se[i], p->sensitivity[i],
                       p->cpu_seconds[i], se);
    if (i == MF_MAFALDA_MAFALDA)
      print_schedule_row(r, "mafalda-static", r->static_loss, r->static_se, r->static_sensitivity,
                         r->static_cpu, se);
  }
}

static void print_table(const Report *r) {
  const MfMafaldaReport *p = r->rep;
  const double *loss = p->loss;
  printf("nodes          %u (%s gossip)\n", p->n, topo_gossip_kind_name(r->gossip));
  printf("workload       %s\n", mf_workload_name(r->opt.workload));
  if (r->sched)
    print_schedule(r);
  printf("rounds         %u = %u epochs x %u batches\n", p->T, p->k, p->b);
  if (p->band)
    printf("band           %u\n", p->band);
  printf("trace(H)       %.10g\n", p->trace_H);
  if (r->opt.skip_dense)
    printf("optimizer      skipped (--skip-dense)\n");
  else
    printf("optimizer      %u iterations, %.3f s\n", p->iterations, p->seconds_optimize);
  printf("toeplitz band  %u\n", p->toeplitz_band);
  if (p->blt_buffers)
    printf("blt buffers    %u\n", p->blt_buffers);
  printf("seconds        %.3f total: load %.3f, Gram matrix %.3f, baselines %.3f "
         "(alongside the optimizer), write %.3f\n",
         r->seconds_total, r->seconds_load, p->seconds_gram, p->seconds_baselines,
         r->seconds_write);
  if (r->sched) {
    print_schedule_strategies(r);
    if (r->classes)
      print_classes(r->classes);
    return;
  }
  printf("\n%-10s %18s %12s %10s %10s\n", "strategy", "loss", "sensitivity", "vs mafalda",
         "seconds");
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++) {
    const char *key = mf_mafalda_strategy_name(i);
    if (isnan(loss[i]))
      printf("%-10s %18s\n", key, "(skipped)");
    else if (isnan(loss[MF_MAFALDA_MAFALDA]))
      printf("%-10s %18.10g %12.6g %10s %10.3f\n", key, loss[i], p->sensitivity[i], "-",
             p->cpu_seconds[i]);
    else
      printf("%-10s %18.10g %12.6g %10.4f %10.3f\n", key, loss[i], p->sensitivity[i],
             loss[i] / loss[MF_MAFALDA_MAFALDA], p->cpu_seconds[i]);
  }
}

/* Mafalda's optimizer, at each iteration (from its thread). */
static void on_iteration(guint iteration, double fraction, gpointer data) {
  char what[64];
  g_snprintf(what, sizeof what, "Mafalda's optimizer, iteration %u", iteration);
  cli_progress_update_fraction(data, fraction, what);
}

/* DMF's optimizer, alongside Mafalda's (from this thread). */
static void on_dmf_iteration(guint iteration, double fraction, gpointer data) {
  char what[64];
  g_snprintf(what, sizeof what, "DMF's optimizer, iteration %u", iteration);
  cli_progress_update_fraction(data, fraction, what);
}

static gboolean asked(const Report *r, MfMafaldaStrategy s) {
  return (r->opt.baselines >> s) & 1u;
}

/* Each stage names the next one, which the heartbeat repeats while it
 * reports nothing itself (the fits; the fixed strategies' scores). */
static gboolean on_stage(MfMafaldaStage stage, gpointer data, GError **error) {
  (void)error;
  const Report *r = data;
  gboolean toeplitz = asked(r, MF_MAFALDA_TOEPLITZ),
           blt = asked(r, MF_MAFALDA_BLT) && r->opt.blt_buffers > 0;
  const char *next = NULL;
  if (stage == MF_MAFALDA_STAGE_GRAM)
    next = r->opt.skip_dense            ? "scoring the fixed strategies"
           : asked(r, MF_MAFALDA_DMF) ? "Mafalda's and DMF's optimizers"
                                        : "Mafalda's optimizer";
  else if (stage == MF_MAFALDA_STAGE_OPTIMIZED && (toeplitz || blt))
    next = toeplitz ? "fitting the Toeplitz strategy" : "fitting the BLT strategy";
  else if (stage == MF_MAFALDA_STAGE_TOEPLITZ && blt)
    next = "fitting the BLT strategy";
  if (next != NULL)
    cli_progress_phase(r->progress, next);
  return TRUE;
}

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The static graph's C, exactly as mf_mafalda_report fits it on @W's H
 * (same Gram path, same optimizer options); with --probes, on the sketch
 * of the static W from the schedule's seed (proto_sketch_gram: no n x n
 * matrix, no eigendecomposition; the C of `-p mafalda:probes=K` on the
 * static graph with that seed). */
static double *static_c(const Report *r, const double *W, const TopoGraph *g, GError **error) {
  const MfMafaldaReportOptions *o = &r->opt;
  guint T = o->k * o->b, n = topo_graph_n_nodes(g);
  double *H = NULL;
  if (r->sched->g.probes > 0) {
    TopoSchedule *s = topo_schedule_new("static", g, r->gossip, r->sched->seed, error);
    if (s != NULL)
      proto_sketch_gram(s, T, o->workload, r->sched->g.probes, r->sched->seed, &H, NULL, error);
    topo_schedule_free(s);
  } else {
    H = mf_gram_static(W, n, T, o->workload, MF_GRAM_AUTO, 0, error);
  }
  double *C = H != NULL ? mf_mafalda_c_gram(H, T, o->k, o->b, o->band, error) : NULL;
  g_free(H);
  return C;
}

/* --schedule: mafalda-static (the static graph's C) scored on the expected
 * objective; with --samples, every strategy rescored on the scoring
 * samples (mean and standard error). @W: the static graph's gossip. */
static gboolean score_schedule(Report *r, MfMafaldaReport *p, const double *W, const TopoGraph *g,
                               GError **error) {
  const ProtoScheduleGram *ms = &r->sched->g;
  guint T = p->T, k = p->k, b = p->b;
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++)
    r->se[i] = NAN;
  r->static_se = NAN;
  if (ms->how == PROTO_EXPECT_STATIC) { /* the static C is Mafalda's own */
    r->static_C = p->C ? g_memdup2(p->C, (gsize)T * T * sizeof(double)) : NULL;
    r->static_loss = p->loss[MF_MAFALDA_MAFALDA];
    r->static_sensitivity = p->sensitivity[MF_MAFALDA_MAFALDA];
    r->static_cpu = p->cpu_seconds[MF_MAFALDA_MAFALDA];
    return TRUE;
  }
  double cpu = thread_cpu();
  double *Cs = static_c(r, W, g, error);
  if (Cs == NULL)
    return FALSE;
  r->static_sensitivity = sqrt(mf_sensitivity2(Cs, T, k, b));
  const double *const *score = (const double *const *)ms->score;
  gboolean ok;
  if (ms->how != PROTO_EXPECT_SAMPLED) {
    r->static_loss = mf_loss(ms->H, Cs, T, k, b, error);
    ok = !isnan(r->static_loss);
  } else {
    ok = mf_loss_samples(score, ms->n_score, Cs, T, k, b, &r->static_loss, &r->static_se, error);
  }
  r->static_C = Cs;
  r->static_cpu = thread_cpu() - cpu;
  if (ms->how != PROTO_EXPECT_SAMPLED || !ok)
    return ok;
  /* The report scored on the fitted mean: rescore on the other samples. */
  static const MfBaseline fixed[MF_MAFALDA_N_STRATEGIES] = {
      [MF_MAFALDA_DPDSGD] = MF_BASELINE_IDENTITY,
      [MF_MAFALDA_ANTIPGD] = MF_BASELINE_ANTIPGD,
      [MF_MAFALDA_SR] = MF_BASELINE_SR,
      [MF_MAFALDA_BSR] = MF_BASELINE_BSR};
  for (int i = 0; ok && i < MF_MAFALDA_N_STRATEGIES; i++) {
    if (isnan(p->loss[i]))
      continue;
    double *C = i == MF_MAFALDA_MAFALDA
                    ? g_memdup2(p->C, (gsize)T * T * sizeof(double))
                    : mf_baseline(fixed[i], T, i == MF_MAFALDA_BSR ? b : 0, error);
    ok = C != NULL &&
         mf_loss_samples(score, ms->n_score, C, T, k, b, &p->loss[i], &r->se[i], error);
    g_free(C);
  }
  return ok;
}

/* --mode: the mean Gram matrix of @ms->d.samples delivery records of the
 * run over @g (or @ms->s when it varies), into @ms->g as a fixed objective
 * (fitted and scored on the same mean); when every W_r of every record is
 * the static W, today's static path (the synchronous C, to the bit). */
static gboolean delivery_gram(CliSchedule *ms, const TopoGraph *g, TopoGossipKind kind, guint T,
                              GError **error) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  if (ms->is_static) {
    cfg.graph = g;
    cfg.gossip = kind;
  } else {
    cfg.schedule = ms->s;
  }
  cfg.mode = ms->mode;
  cfg.latency = ms->latency;
  cfg.loss = ms->loss;
  cfg.seed = ms->seed;
  ms->d.samples = MAX(ms->g.samples, 1u);
  ms->d.probes = ms->g.probes;
  ms->d.workload = ms->g.workload;
  if (!proto_delivery_gram(&ms->d, &cfg, T, error))
    return FALSE;
  if (ms->d.in_time && ms->is_static) {
    ms->g.how = PROTO_EXPECT_STATIC;
    TopoGossip *w = topo_schedule_gossip(ms->s, 0, error);
    ms->g.W = w != NULL ? topo_gossip_dense(w) : NULL;
    topo_gossip_free(w);
    return ms->g.W != NULL;
  }
  ms->g.H = g_steal_pointer(&ms->d.H);
  if (ms->d.samples < 2) { /* one record: fitted and scored on it */
    ms->g.how = PROTO_EXPECT_TRACE;
    return TRUE;
  }
  /* Scored on S other records (records S .. 2S - 1 of --seed,
   * proto_delivery_record_seed), as --samples does for a schedule: the
   * fitted C's score is then unbiased, not the optimistic in-sample one. */
  guint S = ms->d.samples;
  ms->g.how = PROTO_EXPECT_SAMPLED;
  ms->g.score = g_new0(double *, S);
  ms->g.n_score = S;
  for (guint i = 0; i < S; i++) {
    ProtoDeliveryGram one = {
        .samples = 1, .first = S + i, .probes = ms->d.probes, .workload = ms->d.workload};
    if (!proto_delivery_gram(&one, &cfg, T, error))
      return FALSE;
    ms->g.score[i] = one.H;
    ms->d.seconds += one.seconds;
  }
  return TRUE;
}

/* @ms's expected Gram matrix for the graph @g, gossip @kind and T rounds.
 * Errors: a spec topo_schedule_new refuses, prefixed "--schedule: " with
 * @ms->bad_spec set (its status: cli_error_status, as account's); a random
 * schedule without a finite law, or a law too large to enumerate, asks for
 * --samples; proto_schedule_gram's. */
static gboolean schedule_gram(CliSchedule *ms, const TopoGraph *g, TopoGossipKind kind, guint T,
                              GError **error) {
  TopoSchedule *s = topo_schedule_new(ms->spec, g, kind, ms->seed, error);
  if (s == NULL) {
    ms->bad_spec = TRUE;
    g_prefix_error(error, "--schedule: ");
    return FALSE;
  }
  gboolean ok = FALSE;
  ms->g.seed = ms->seed;
  ms->is_static = topo_schedule_is_static(s);
  ms->s = s; /* --classes reads it again */
  if (ms->mode != NULL)
    return delivery_gram(ms, g, kind, T, error);
  if (ms->g.samples == 0 && !topo_schedule_is_static(s) &&
      topo_schedule_randomness(s) == TOPO_SCHEDULE_RANDOM)
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "--schedule %s: a random schedule without a finite per-round law; estimate "
                "its expectation with --samples S (e.g. --samples 100)",
                ms->spec);
  else if (!(ok = proto_schedule_gram(&ms->g, s, T, error)) && error != NULL && *error != NULL &&
           (*error)->domain == TOPO_ERROR && topo_schedule_randomness(s) == TOPO_SCHEDULE_IID) {
    char *msg = g_strdup_printf("--schedule %s: %s (--samples S)", ms->spec, (*error)->message);
    g_free((*error)->message);
    (*error)->message = msg;
  }
  return ok;
}

/* The map file @path: "NODE,CLASS" lines (blank lines, '#' comments and a
 * "node,class" header skipped), every node 0 .. n-1 once, the classes
 * 0 .. K-1 each with a node. Errors: FILE:LINE for a bad line, a node out
 * of range or twice; FILE for a node without a class or an empty class. */
static gboolean read_class_map(const char *path, guint n, CliClasses *c, GError **error) {
  char *text = NULL;
  if (!spec_file_read(path, &text, NULL, error))
    return FALSE;
  char **lines = g_strsplit(text, "\n", -1);
  guint *line_of = g_new0(guint, n), K = 0;
  gboolean ok = TRUE;
  c->node_class = g_new0(guint, n);
  for (guint i = 0; ok && lines[i]; i++) {
    char *l = g_strstrip(lines[i]);
    if (*l == '\0' || *l == '#' || g_ascii_strcasecmp(l, "node,class") == 0)
      continue;
    char **f = g_strsplit(l, ",", -1);
    guint64 v = 0, k = 0;
    if (g_strv_length(f) != 2 ||
        !g_ascii_string_to_unsigned(g_strstrip(f[0]), 10, 0, G_MAXUINT - 1, &v, NULL) ||
        !g_ascii_string_to_unsigned(g_strstrip(f[1]), 10, 0, 1u << 20, &k, NULL)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--classes %s:%u: a line is NODE,CLASS (non-negative integers, classes below "
                  "2^20)",
                  path, i + 1);
      ok = FALSE;
    } else if (v >= n) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--classes %s:%u: node %u, but the graph has %u nodes", path, i + 1, (guint)v, n);
      ok = FALSE;
    } else if (line_of[v]) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--classes %s:%u: node %u's class again (first at line %u)", path, i + 1,
                  (guint)v, line_of[v]);
      ok = FALSE;
    } else {
      line_of[v] = i + 1;
      c->node_class[v] = (guint)k;
      K = MAX(K, (guint)k + 1);
    }
    g_strfreev(f);
  }
  for (guint v = 0; ok && v < n; v++)
    if (!line_of[v]) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--classes %s: node %u has no class (no line %u,CLASS; the graph has %u nodes)",
                  path, v, v, n);
      ok = FALSE;
    }
  if (ok) {
    guint *count = g_new0(guint, K);
    for (guint v = 0; v < n; v++)
      count[c->node_class[v]]++;
    for (guint k = 0; ok && k < K; k++)
      if (count[k] == 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--classes %s: class %u has no node (classes are numbered 0 to %u)", path, k,
                    K - 1);
        ok = FALSE;
      }
    g_free(count);
  }
  c->K = K;
  g_strfreev(lines);
  g_free(line_of);
  g_free(text);
  return ok;
}

/* --classes: the nodes' classes, each class's Gram matrix (fit and score),
 * its C, and the losses of it, of mafalda's C and of mafalda-static's on
 * every class. @p: the report (mafalda's C). */
static gboolean fit_classes(Report *r, const MfMafaldaReport *p, guint n, GError **error) {
  CliClasses *c = r->classes;
  CliSchedule *ms = r->sched;
  guint T = p->T, k = p->k, b = p->b;
  c->online = g_new(double, n);
  proto_schedule_online(ms->s, T, c->online);
  guint64 K = 0;
  if (g_str_has_prefix(c->spec, "online:")) {
    if (!g_ascii_string_to_unsigned(c->spec + 7, 10, 1, n, &K, NULL)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--classes %s: online:K needs K from 1 to the %u nodes", c->spec, n);
      return FALSE;
    }
    c->K = (guint)K;
    c->node_class = g_new(guint, n);
    proto_classes_by_rank(c->online, n, c->K, c->node_class);
  } else if (!read_class_map(c->spec, n, c, error)) {
    return FALSE;
  }
  K = c->K;
  double *fit = NULL, *score = NULL;
  if (!proto_schedule_gram_classes(&ms->g, ms->s, T, c->node_class, c->K, &fit, &score, error)) {
    g_prefix_error(error, "--classes: ");
    return FALSE;
  }
  c->scored_apart = score != NULL;
  const double *sc = score ? score : fit;
  c->C = g_new(double, K *T *T);
  c->size = g_new0(guint, K);
  c->online_mean = g_new0(double, K);
  c->loss = g_new(double, K);
  c->loss_mafalda = g_new(double, K);
  c->loss_static = g_new(double, K);
  c->sens = g_new(double, K);
  for (guint v = 0; v < n; v++) {
    c->size[c->node_class[v]]++;
    c->online_mean[c->node_class[v]] += c->online[v];
  }
  gboolean ok = TRUE;
  c->total = c->total_mafalda = c->total_static = 0.0;
  for (guint i = 0; ok && i < K; i++) {
    c->online_mean[i] /= MAX(c->size[i], 1u);
    const double *Hf = fit + (gsize)i * T * T, *Hs = sc + (gsize)i * T * T;
    double *Ci = mf_mafalda_c_gram(Hf, T, k, b, r->opt.band, error);
    if (Ci == NULL) {
      g_prefix_error(error, "--classes: class %u: ", i);
      ok = FALSE;
      break;
    }
    memcpy(c->C + (gsize)i * T * T, Ci, sizeof(double) * T * T);
    g_free(Ci);
    c->sens[i] = sqrt(mf_sensitivity2(c->C + (gsize)i * T * T, T, k, b));
    c->loss[i] = mf_loss(Hs, c->C + (gsize)i * T * T, T, k, b, error);
    c->loss_mafalda[i] = p->C ? mf_loss(Hs, p->C, T, k, b, error) : NAN;
    c->loss_static[i] = r->static_C ? mf_loss(Hs, r->static_C, T, k, b, error) : NAN;
    ok = error == NULL || *error == NULL;
    c->total += c->loss[i];
    c->total_mafalda += c->loss_mafalda[i];
    c->total_static += c->loss_static[i];
  }
  g_free(fit);
  g_free(score);
  return ok;
}

static void classes_free(CliClasses *c) {
  if (c == NULL)
    return;
  g_free(c->node_class);
  g_free(c->online);
  g_free(c->C);
  g_free(c->size);
  g_free(c->online_mean);
  g_free(c->loss);
  g_free(c->loss_mafalda);
  g_free(c->loss_static);
  g_free(c->sens);
}

static void print_classes(const CliClasses *c) {
  printf("\nclasses        %s: %u, each its own C fitted to its nodes' Gram matrix%s\n", c->spec,
         c->K,
         c->scored_apart ? " (sketched: fitted and scored on independent probes)" : " (exact)");
  printf("%-6s %7s %8s %12s %18s %18s %18s\n", "class", "nodes", "online", "sensitivity",
         "loss per-class C", "loss mafalda", "loss static");
  for (guint i = 0; i < c->K; i++)
    printf("%-6u %7u %8.4f %12.6g %18.10g %18.10g %18.10g\n", i, c->size[i], c->online_mean[i],
           c->sens[i], c->loss[i], c->loss_mafalda[i], c->loss_static[i]);
  printf("%-6s %7s %8s %12s %18.10g %18.10g %18.10g\n", "total", "", "", "", c->total,
         c->total_mafalda, c->total_static);
}

static void add_classes(JsonBuilder *jb, const CliClasses *c) {
  cli_json_begin_object(jb, "classes");
  cli_json_string(jb, "spec", c->spec);
  cli_json_int(jb, "count", c->K);
  cli_json_string(jb, "scored", c->scored_apart ? "independent probes" : "exact");
  json_builder_set_member_name(jb, "list");
  json_builder_begin_array(jb);
  for (guint i = 0; i < c->K; i++) {
    json_builder_begin_object(jb);
    cli_json_int(jb, "class", i);
    cli_json_int(jb, "nodes", c->size[i]);
    cli_json_number(jb, "online", c->online_mean[i]);
    cli_json_number(jb, "sensitivity", c->sens[i]);
    cli_json_number(jb, "loss", c->loss[i]);
    cli_json_number(jb, "loss_mafalda", c->loss_mafalda[i]);
    cli_json_number(jb, "loss_mafalda_static", c->loss_static[i]);
    json_builder_end_object(jb);
  }
  json_builder_end_array(jb);
  cli_json_begin_object(jb, "total");
  cli_json_number(jb, "per_class", c->total);
  cli_json_number(jb, "mafalda", c->total_mafalda);
  cli_json_number(jb, "mafalda_static", c->total_static);
  json_builder_end_object(jb);
  json_builder_end_object(jb);
}

/* @start: when the command began (the graph was built since). */
static gboolean run(const TopoGraph *g, gint64 start, Report *r, MfMafaldaReport **rep,
                    const char *out_path, GError **error) {
  gboolean ok = FALSE;
  guint n = topo_graph_n_nodes(g), T = r->opt.k * r->opt.b;
  /* --probes: every Gram matrix sketched on the sparse gossip, no n x n W
   * (mf_mafalda_report fits and scores the given H). */
  gboolean sketched = r->sched != NULL && r->sched->g.probes > 0;
  if (!r->opt.skip_dense && !sketched && !mf_gram_check_memory(n, T, 0, error))
    return FALSE;
  TopoGossip *w = topo_gossip_new(g, r->gossip, error);
  if (!w)
    return FALSE;
  double *W = sketched ? NULL : topo_gossip_dense(w);
  const double *W_fit = W;
  if (r->sched) {
    cli_progress_phase(r->progress, "the schedule's expected Gram matrix");
    r->sched->g.workload = r->opt.workload;
    if (!schedule_gram(r->sched, g, r->gossip, T, error))
      goto out;
    r->opt.H = r->sched->g.H; /* NULL when every round is one W */
    if (r->sched->g.W)
      W_fit = r->sched->g.W;
  }
  r->seconds_load = seconds_since(start);
  if (r->progress != NULL) {
    r->opt.progress = on_iteration;
    r->opt.progress_data = r->progress;
    r->opt.dmf_progress = on_dmf_iteration;
    r->opt.dmf_progress_data = r->progress;
  }
  r->opt.checkpoint = on_stage;
  r->opt.checkpoint_data = r;
  cli_progress_phase(r->progress, "the workload's Gram matrix");
  gboolean reported = mf_mafalda_report(W_fit, n, &r->opt, rep, error);
  if (reported && r->sched) {
    cli_progress_phase(r->progress, "the static graph's C on the expected objective");
    reported = score_schedule(r, *rep, W, g, error);
  }
  if (reported && r->classes) {
    cli_progress_phase(r->progress, "the classes' Gram matrices and C");
    reported = fit_classes(r, *rep, n, error);
  }
  g_clear_pointer(&r->progress, cli_progress_free); /* its line ends before any output */
  if (!reported)
    goto out;
  r->rep = *rep;

  /* Written through a temporary file and a rename: never half-written. */
  gint64 t = g_get_monotonic_time();
  const double *C = r->rep->C;
  if (out_path && r->classes) {
    MfCSet set = {.n_classes = r->classes->K,
                  .n_nodes = n,
                  .T = T,
                  .C = r->classes->C,
                  .node_class = r->classes->node_class};
    if (!mf_cset_write(out_path, &set, error))
      goto out;
    fprintf(stderr,
            "dpgossip mafalda: wrote %s (a C-set: %u classes' C_local, %u x %u, and each node's "
            "class; use it as --protocol mfdsgd:C=%s)\n",
            out_path, set.n_classes, T, T, out_path);
  } else if (out_path && C && !mf_matrix_write_csv(out_path, C, T, T, error))
    goto out;
  if (out_path && C && !r->classes)
    fprintf(stderr,
            "dpgossip mafalda: wrote %s (C_local, %u x %u; use it as --protocol "
            "mfdsgd:C=%s)\n",
            out_path, T, T, out_path);
  r->seconds_write = seconds_since(t);
  ok = TRUE;
out:
  r->seconds_total = seconds_since(start);
  g_free(W);
  topo_gossip_free(w);
  return ok;
}

#define usage_error(...) cli_usage_error("mafalda", __VA_ARGS__)

/* The command line as typed (owned strings, freed by options_clear). */
typedef struct {
  CliGraphOptions graph;
  gint epochs, batches, rounds, band, toeplitz_band, blt_buffers;
  gboolean skip_dense, quiet;
  char *workload, *format, *out_path, *baselines;
  char *schedule, *seed; /* --schedule SPEC, --seed N */
  char *classes;         /* --classes online:K|MAP.csv */
  gint samples;          /* --samples S */
  gint probes;           /* --probes K */
  char *mode, *latency, *loss; /* --mode deadline:ms=D, --latency, --loss */
} Options;

/* Parses the command line into @o (cli_options_parse). */
static gboolean options_parse(Options *o, int *argc, char ***argv) {
  GOptionEntry entries[] = {
      {"epochs", 'k', 0, G_OPTION_ARG_INT, &o->epochs, "Participations per record, k (required)",
       "K"},
      {"batches", 'b', 0, G_OPTION_ARG_INT, &o->batches,
       "Rounds between two participations of a record, b (required); T = k*b rounds", "B"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &o->rounds,
       "Rounds T = k*b, with -k or -b instead of both", "T"},
      {"workload", 0, 0, G_OPTION_ARG_STRING, &o->workload,
       "What the loss measures: post-average (models after averaging, default) or messages",
       "NAME"},
      {"band", 0, 0, G_OPTION_ARG_INT, &o->band,
       "Banded C_local: each node keeps its last W noises (1 <= W <= T; default: no band)", "W"},
      {"toeplitz-band", 0, 0, G_OPTION_ARG_INT, &o->toeplitz_band,
       "Band w <= T of the fitted Toeplitz strategy (w - 1 past noises per node; default b)", "W"},
      {"blt-buffers", 0, 0, G_OPTION_ARG_INT, &o->blt_buffers,
       "Buffers d of the fitted BLT strategy (d noise vectors per node whatever T; 1..8, "
       "default 4; 0: no BLT strategy)",
       "D"},
      {"baselines", 0, 0, G_OPTION_ARG_STRING, &o->baselines,
       "Strategies compared with Mafalda, comma-separated: dp-d-sgd, antipgd, sr, bsr, dmf, "
       "toeplitz, blt, or all, default, none (default: all but dmf, whose optimization costs "
       "more than Mafalda's)",
       "LIST"},
      {"skip-dense", 0, 0, G_OPTION_ARG_NONE, &o->skip_dense,
       "No dense T x T work: skip Mafalda's optimizer and DMF, keep the structured "
       "strategies (long horizons; needs a reversible gossip)",
       NULL},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out_path,
       "Write C_local as CSV (T rows of T values, %.17g)", "FILE"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &o->format, "Output format: table (default) or json",
       "FORMAT"},
      CLI_OPTION_SCHEDULE(&o->schedule),
      {"samples", 0, 0, G_OPTION_ARG_INT, &o->samples,
       "With --schedule: estimate the expected objective from S sampled schedules (C fitted on "
       "S, every strategy scored on S others, with standard errors; S >= 2) instead of "
       "exactly",
       "S"},
      {"probes", 0, 0, G_OPTION_ARG_INT, &o->probes,
       "With --schedule: estimate each schedule's Gram matrix from K random probes over the "
       "sparse gossip (Hutchinson; unbiased, for graphs too large for the dense O(n^3 T^2) "
       "one); a fixed sequence or a static W is fitted on K probes and scored on K others "
       "(K >= 2), mafalda-static fitted on the static W's K probes (no n x n matrix); the C "
       "of -p mafalda:probes=K --seed N",
       "K"},
      {"classes", 0, 0, G_OPTION_ARG_STRING, &o->classes,
       "With --schedule: one C per class of nodes, each fitted to its class's Gram matrix: "
       "online:K (nodes ranked by their fraction of rounds online, K classes of equal size) "
       "or a file of NODE,CLASS lines; --out then writes a C-set for mfdsgd:C=FILE",
       "SPEC"},
      CLI_OPTIONS_NETWORK("Deadline and stale modes' objective (with or without --schedule): ", &o->mode,
                          &o->latency, &o->loss),
      {"seed", 's', 0, G_OPTION_ARG_STRING, &o->seed,
       "The schedule's seed (default 1; sample i uses seed + i); with --mode, delivery record "
       "i's run seed",
       "N"},
      CLI_OPTION_QUIET(&o->quiet),
      G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "- optimize Mafalda's noise correlation C_local for a graph",
      .graph = &o->graph,
      .entries = entries,
      .description =
          "Strategies compared (loss = sens^2 tr(H (C^T C)^-1), H the workload Gram matrix):\n"
          "  mafalda   the optimum for H (L-BFGS), sensitivity 1\n"
          "  dp-d-sgd  C = I (independent noise)\n"
          "  antipgd   C = lower-triangular ones (noise z_t - z_{t-1})\n"
          "  sr        square root of the prefix sum; bsr its band-b version\n"
          "  dmf       the optimum for the centralized prefix sum, scored on H (only\n"
          "            with --baselines dmf or all: it costs more than Mafalda)\n"
          "  toeplitz  banded Toeplitz C (band --toeplitz-band, default b) fitted to H: each\n"
          "            node keeps w - 1 past noises whatever T (reversible gossip,\n"
          "            post-average workload)\n"
          "  blt       buffered-linear-Toeplitz C (c_0 = 1, c_j = sum_i w_i theta_i^(j-1), d =\n"
          "            --blt-buffers) fitted to H: each node keeps d noise buffers whatever T\n"
          "            (same conditions as toeplitz)\n"
          "\n"
          "With --schedule SPEC the objective is the expected one over the schedule's\n"
          "randomness, sens^2 tr(E[H] (C^T C)^-1): exact for a fixed sequence (its trace)\n"
          "and for independent rounds (matching, edge-failure: their law enumerated),\n"
          "estimated with --samples S otherwise. --probes K estimates each sequence's\n"
          "Gram matrix from K random probes instead of its n x n products (large graphs;\n"
          "--schedule static sketches the static W, as -p mafalda:probes=K does).\n"
          "mafalda is fitted to E[H]; the strategy\n"
          "mafalda-static is the static graph's C scored on the same E[H]. The toeplitz\n"
          "and blt fits need a static W and are not run.\n"
          "\n"
          "With --mode deadline:ms=D or stale:s=S (--latency, --loss; with or without\n"
          "--schedule) the objective is that of the gossip the nodes really apply: H is\n"
          "the mean over --samples S delivery records (default 1; records 0 .. S-1 of\n"
          "--seed, each seeded by a hash of the seed and its index, never the seed\n"
          "itself) of each record's Gram matrix over its W_0 .. W_T-1 (deadline: late\n"
          "and lost inputs left out, the rows renormalised; stale: late inputs taken\n"
          "in a later round, over the delay-augmented state), exact or sketched with\n"
          "--probes K; C is fitted to that mean and, with S >= 2, every strategy scored\n"
          "on S other records (records S .. 2S-1; mean +- standard error;\n"
          "mafalda-static: the synchronous C). When every message arrives in time on a\n"
          "static graph, the synchronous C exactly. -p mafalda in train, account,\n"
          "audit and scenarios with such a mode fits this same C (samples=S, probes=K,\n"
          "the run's --seed).\n"
          "\n"
          "With --classes, node v's noise enters only its own term of the error, so\n"
          "E||error||^2 = sum_c sens(C_c)^2 tr(H_c (C_c^T C_c)^-1), H_c the Gram matrix of\n"
          "class c's columns (sum_c H_c = E[H]): each class gets the optimum for its own\n"
          "H_c, at the same per-node sensitivity; the table scores it, mafalda's C and\n"
          "mafalda-static's on every class (one class: mafalda's C).\n"
          "\n"
          "Timings (JSON \"seconds\", wall clock): load (graph and gossip matrix), gram,\n"
          "optimize (Mafalda), baselines (DMF and every score, run alongside optimize),\n"
          "write (--out) and total; \"strategy_seconds\" (table: last column): the CPU\n"
          "seconds of each strategy on its own. DP-D-SGD, AntiPGD, SR and BSR are\n"
          "Toeplitz: they are scored from C's first column and H's spectral form\n"
          "(O(n^2 T), no T x T matrix) when the gossip is reversible. BLAS runs\n"
          "single-threaded so that the output does not depend on the number of cores.\n"
          "\n"
          "Examples:\n"
          "  dpgossip mafalda --generate florentine --epochs 5 --batches 16\n"
          "  dpgossip mafalda --generate florentine -k 5 -b 16 --baselines all\n"
          "  dpgossip mafalda --graph facebook-414.edges --lcc -k 20 -b 16 --out C.csv "
          "--format json\n"
          "  dpgossip mafalda --graph facebook-414.edges --lcc -k 625 -b 16 --skip-dense "
          "--toeplitz-band 32\n"};
  return cli_options_parse(&spec, argc, argv);
}

static void options_clear(Options *o) {
  g_free(o->workload);
  g_free(o->format);
  g_free(o->out_path);
  g_free(o->baselines);
  g_free(o->schedule);
  g_free(o->seed);
  g_free(o->classes);
  g_free(o->mode);
  g_free(o->latency);
  g_free(o->loss);
  cli_graph_options_clear(&o->graph);
}

/* k, b and T; the bands and buffers of the strategies. */
static int validate_horizon(Options *o, Report *r) {
  GError *error = NULL;
  if (o->rounds != CLI_UNSET && o->rounds <= 0)
    return usage_error("--rounds T must be positive (got %d)", o->rounds);
  if (!cli_horizon_resolve(&o->rounds, &o->epochs, &o->batches, &error))
    return cli_fail("mafalda", error, CLI_EXIT_USAGE);
  if (o->epochs <= 0 || o->batches <= 0)
    return usage_error("--epochs and --batches must both be given and positive%s (got k = "
                       "%d, b = %d)",
                       o->rounds != CLI_UNSET ? ", or one of them with --rounds" : "",
                       o->epochs == CLI_UNSET ? 0 : o->epochs,
                       o->batches == CLI_UNSET ? 0 : o->batches);
  if ((guint64)o->epochs * (guint64)o->batches > G_MAXUINT)
    return usage_error("T = epochs x batches = %u x %u is too large", (guint)o->epochs,
                       (guint)o->batches);
  mf_mafalda_report_options_init(&r->opt);
  r->opt.k = (guint)o->epochs;
  r->opt.b = (guint)o->batches;
  guint T = r->opt.k * r->opt.b;
  if (o->band != CLI_UNSET && (o->band < 1 || (guint)o->band > T))
    /* band 0 would leave no invertible C; a band beyond T is no band at all. */
    return usage_error("--band: infeasible band %d: it must be between 1 and T = %u", o->band, T);
  r->opt.band = o->band == CLI_UNSET ? 0 : (guint)o->band;
  if (o->toeplitz_band < 0 || (guint)o->toeplitz_band > T)
    return usage_error("--toeplitz-band: %d must be between 1 and T = %u (0: b)", o->toeplitz_band,
                       T);
  r->opt.toeplitz_band = (guint)o->toeplitz_band;
  if (o->blt_buffers < 0 || o->blt_buffers > MF_BLT_MAX_BUFFERS)
    return usage_error("--blt-buffers: %d must be between 1 and %d (0: no BLT strategy)",
                       o->blt_buffers, MF_BLT_MAX_BUFFERS);
  r->opt.blt_buffers = (guint)o->blt_buffers;
  r->opt.skip_dense = o->skip_dense;
  return CLI_EXIT_OK;
}

/* The strategies, the outputs, the workload, the gossip and the memory. */
static int validate_rest(const Options *o, Report *r, CliFormat *fmt) {
  GError *error = NULL;
  if (o->baselines != NULL) {
    if (!mf_mafalda_baselines_parse(o->baselines, &r->opt.baselines, &error)) {
      g_prefix_error(&error, "--baselines: ");
      return cli_fail("mafalda", error, CLI_EXIT_USAGE);
    }
    if (o->blt_buffers == 0 && asked(r, MF_MAFALDA_BLT))
      return usage_error("--baselines names blt but --blt-buffers 0 asks for no BLT strategy");
  }
  if (o->mode == NULL && (o->latency != NULL || o->loss != NULL))
    return usage_error("%s shapes the delivery objective of an asynchronous mode; give --mode "
                       "deadline:ms=D or stale:s=S",
                       o->latency != NULL ? "--latency" : "--loss");
  if (o->mode != NULL) {
    ProtoMode mode;
    if (!proto_mode_parse(o->mode, &mode, &error)) {
      g_prefix_error(&error, "--mode: ");
      return cli_fail("mafalda", error, CLI_EXIT_USAGE);
    }
    if (mode.kind == PROTO_MODE_SYNC)
      return usage_error("--mode %s: only deadline and stale modes have a delivery objective "
                         "(sync is the default objective: drop --mode)",
                         o->mode);
    if (o->classes != NULL)
      return usage_error("--classes with --mode: not supported yet");
    if (o->samples != CLI_UNSET && o->samples < 1)
      return usage_error("--samples %d: at least 1 delivery record", o->samples);
    if (o->probes != CLI_UNSET && o->probes < 1)
      return usage_error("--probes %d: at least 1 probe per delivery record", o->probes);
    if (o->samples >= 2 && asked(r, MF_MAFALDA_DMF))
      return usage_error("--baselines dmf with --mode and --samples: not supported yet (DMF's C "
                         "is not rescored on the scoring records); drop one of the two");
    if (o->skip_dense)
      return usage_error("--skip-dense with --mode: the delivery objective needs the dense "
                         "Gram matrix (drop one of the two)");
  }
  gboolean sched = o->schedule != NULL || o->mode != NULL;
  if (o->samples != CLI_UNSET && !sched)
    return usage_error("--samples estimates the objective over a --schedule; give one");
  if (o->probes != CLI_UNSET && !sched)
    return usage_error("--probes sketches the Gram matrix of a --schedule; give one");
  if (o->seed != NULL && !sched)
    return usage_error("--seed draws a --schedule; give one");
  if (o->classes != NULL && o->schedule == NULL)
    return usage_error("--classes fits a C per class over a --schedule; give one (--schedule "
                       "static for the static graph)");
  if (o->classes != NULL && o->samples != CLI_UNSET)
    return usage_error("--classes with --samples: not supported yet (exact or --probes only)");
  if (sched) {
    if (o->mode == NULL && o->samples != CLI_UNSET && o->samples < 2)
      return usage_error("--samples %d: an estimate with a standard error needs at least 2 "
                         "samples",
                         o->samples);
    if (o->mode == NULL && o->probes != CLI_UNSET && o->probes < (o->samples != CLI_UNSET ? 1 : 2))
      return usage_error("--probes %d: at least %s", o->probes,
                         o->samples != CLI_UNSET ? "1 probe per sampled schedule"
                                                 : "2 probes (the standard error of the "
                                                   "sketch)");
    if (o->skip_dense)
      return usage_error("--skip-dense scores a static W's spectral form; --schedule needs "
                         "the dense expected Gram matrix (drop one of the two)");
    if (o->baselines == NULL)
      r->opt.baselines &= ~((1u << MF_MAFALDA_TOEPLITZ) | (1u << MF_MAFALDA_BLT));
    if (asked(r, MF_MAFALDA_TOEPLITZ) || asked(r, MF_MAFALDA_BLT))
      return usage_error("--baselines: toeplitz and blt are fitted to a static W's spectral "
                         "form, which --schedule does not have");
    if (o->mode == NULL && (o->samples != CLI_UNSET || o->probes != CLI_UNSET) &&
        asked(r, MF_MAFALDA_DMF))
      return usage_error("--baselines dmf with %s: not supported yet (DMF's C is not "
                         "rescored on the scoring samples); drop one of the two",
                         o->samples != CLI_UNSET ? "--samples" : "--probes");
  }
  if (o->skip_dense && asked(r, MF_MAFALDA_DMF))
    return usage_error("--baselines: dmf is a dense T x T optimization, which --skip-dense "
                       "skips (drop one of the two)");
  if (o->skip_dense && o->out_path)
    return usage_error("--out writes Mafalda's C, which --skip-dense does not compute");
  if (o->out_path && !cli_output_check("--out", o->out_path, FALSE, &error))
    return cli_fail("mafalda", error, CLI_EXIT_FAILURE);
  if (o->format && !cli_format_parse(o->format, (1u << CLI_FORMAT_TABLE) | (1u << CLI_FORMAT_JSON),
                                     fmt, &error))
    return cli_fail("mafalda", error, CLI_EXIT_USAGE);
  if (o->workload && !mf_workload_parse(o->workload, &r->opt.workload, &error))
    return cli_fail("mafalda", error, CLI_EXIT_USAGE);
  if (!cli_graph_options_gossip(&o->graph, &r->gossip, &error))
    return cli_fail("mafalda", error, CLI_EXIT_USAGE);
  /* Refuse a horizon that cannot fit before loading anything. */
  if (!o->skip_dense && !mf_check_memory_band(r->opt.k * r->opt.b, (guint)o->batches,
                                                    r->opt.band, 16, 0, &error))
    return cli_fail("mafalda", error, CLI_EXIT_FAILURE);
  return CLI_EXIT_OK;
}

/* The graph (connected), then the optimizer and the scores. */
static int execute(const Options *o, Report *r, TopoGraph **g, MfMafaldaReport **rep) {
  GError *error = NULL;
  gint64 start = g_get_monotonic_time();
  if ((*g = cli_graph_options_build(&o->graph, &error)) == NULL)
    return cli_fail("mafalda", error, cli_graph_options_status(&o->graph, error));
  if (!topo_graph_is_connected(*g)) {
    fprintf(stderr,
            "dpgossip mafalda: the graph is not connected (%u nodes): gossip cannot mix "
            "across components; keep the largest one with --lcc\n",
            topo_graph_n_nodes(*g));
    return CLI_EXIT_FAILURE;
  }
  r->progress = cli_progress_new("mafalda", o->quiet);
  if (!run(*g, start, r, rep, o->out_path, &error))
    return cli_fail("mafalda", error,
                    r->sched && r->sched->bad_spec ? cli_error_status(error) : CLI_EXIT_FAILURE);
  return CLI_EXIT_OK;
}

int cli_cmd_mafalda(int argc, char **argv) {
  Options o = {.samples = CLI_UNSET,
               .probes = CLI_UNSET,
               .epochs = CLI_UNSET,
               .batches = CLI_UNSET,
               .rounds = CLI_UNSET,
               .band = CLI_UNSET,
               .blt_buffers = MF_MAFALDA_BLT_BUFFERS};
  TopoGraph *g = NULL;
  CliFormat fmt = CLI_FORMAT_TABLE;
  Report r = {0};
  MfMafaldaReport *rep = NULL;
  CliSchedule sched = {0};
  CliClasses classes = {0};
  int status = options_parse(&o, &argc, &argv) ? validate_horizon(&o, &r) : CLI_EXIT_USAGE;
  if (status == CLI_EXIT_OK)
    status = validate_rest(&o, &r, &fmt);
  if (status == CLI_EXIT_OK && (o.schedule != NULL || o.mode != NULL)) {
    sched.spec = o.schedule ? o.schedule : "static";
    sched.mode = o.mode;
    sched.latency = o.latency;
    sched.loss = o.loss;
    sched.g.samples = o.samples == CLI_UNSET ? 0 : (guint)o.samples;
    sched.g.probes = o.probes == CLI_UNSET ? 0 : (guint)o.probes;
    sched.seed = 1;
    if (o.seed != NULL &&
        !g_ascii_string_to_unsigned(o.seed, 10, 0, G_MAXUINT64, &sched.seed, NULL))
      status = usage_error("--seed '%s': a non-negative integer", o.seed);
    r.sched = &sched;
    if (o.classes != NULL) {
      classes.spec = o.classes;
      r.classes = &classes;
    }
  }
  if (status == CLI_EXIT_OK)
    status = execute(&o, &r, &g, &rep);
  if (status == CLI_EXIT_OK && fmt == CLI_FORMAT_JSON)
    print_json(&r);
  else if (status == CLI_EXIT_OK)
    print_table(&r);
  cli_progress_free(r.progress);
  mf_mafalda_report_free(rep);
  proto_schedule_gram_clear(&sched.g);
  g_free(sched.d.H);
  topo_schedule_free(sched.s);
  classes_free(r.classes);
  g_free(r.static_C);
  topo_graph_free(g);
  options_clear(&o);
  return status;
}
