/*
 * bench/bench_account.c: PNDP accounting of DP-D-SGD against one attacker
 * (node 0, degree 21) for all 147 victims of the Facebook-ego graph (148
 * nodes), user level (b = 1), bound sensitivity, mu / RDP / eps per victim,
 * through the two paths of `dpgossip account`:
 *   structured  the structured fast path (Kalman engine), T = 320.
 *               Goal: < 30 s and < 1 GB peak RSS.
 *   observer    the protocol simulated on the engine (accounting only,
 *               provenance only), one PrivObserver view, then the generic
 *               accountant priv_knowledge_blocks (a pivoted QR of the noise
 *               part of everything the attacker received). No goal: its
 *               time and memory are reported. It grows about as T^3 in
 *               time and T^2 in memory, so by default it runs at T = 40, 80
 *               and 160 and extrapolates T = 320 from the last two (printed
 *               as *_extrapolated); DPG_BENCH_OBSERVER_T320=1 runs T = 320
 *               for real (about 12 GB on this graph).
 *   stream      the observer path with the streaming accountant (per-round
 *               rebase, Kalman-form state), D-SGD PNDP and Zip-DL SecLDP at
 *               T = 40, 80, 160, 320 with the fitted exponents of time and
 *               peak RSS, then DECOR (SecLDP, PNDP) and Zip-DL (PNDP, LDP)
 *               at T = 320.
 *               Goals: D-SGD within 10x of the structured path and < 1 GB;
 *               DECOR and Zip-DL < 120 s and < 4 GB.
 *               DPG_BENCH_DENSE=0 skips the dense observer cases.
 * Each case runs in its own child process, so each peak RSS is that case's
 * own (wait4). The observer's rdp are checked against the structured path's
 * at the same T (max relative difference printed). Also the Florentine
 * reference setting (T = 10) for scale. The graph comes from DPG_DATA_DIR
 * (default: the source tree's data/), or argv[1].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench_common.h"
#include "bench/bench_structured.h"
#include "protocols/protocols.h"

/* The per-victim rdp of @b on @g (n entries, NaN for the attacker). */
static double *rdps(const PrivBlocks *b, const TopoGraph *g, double *report_s, guint *n_victims,
                    GError **error) {
  double t0 = bench_now();
  PrivReport *r = priv_account_report(b, g, NULL, error);
  if (!r)
    return NULL;
  *report_s = bench_now() - t0;
  *n_victims = r->n_victims;
  double *out = g_new(double, b->n);
  for (guint u = 0; u < b->n; u++)
    out[u] = NAN;
  for (guint i = 0; i < r->n_victims; i++)
    out[r->victims[i].node] = r->victims[i].rdp;
  priv_report_free(r);
  return out;
}

static PrivBlocks *structured_blocks(const TopoGraph *g, guint T, GError **error) {
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, error);
  if (!w)
    return NULL;
  PrivBlocks *b = bench_pndp_blocks(w, T, PRIV_ENGINE_KALMAN, 0, error);
  topo_gossip_free(w);
  return b;
}

static void print_range(const char *name, const double *rdp, guint n) {
  double lo = INFINITY, hi = 0.0;
  for (guint u = 0; u < n; u++)
    if (!isnan(rdp[u])) {
      lo = MIN(lo, rdp[u]);
      hi = MAX(hi, rdp[u]);
    }
  printf("%s.rdp_alpha2_min %.6g\n", name, lo);
  printf("%s.rdp_alpha2_max %.6g\n", name, hi);
}

/* The structured path: blocks, then the report. */
static gboolean run_structured(const char *name, const TopoGraph *g, guint T, GError **error) {
  double t0 = bench_now();
  PrivBlocks *b = structured_blocks(g, T, error);
  double t1 = bench_now(), report_s = 0;
  guint nv = 0;
  double *rdp = b ? rdps(b, g, &report_s, &nv, error) : NULL;
  if (rdp) {
    printf("%s.nodes %u\n", name, topo_graph_n_nodes(g));
    printf("%s.victims %u\n", name, nv);
    printf("%s.steps %u\n", name, T);
    printf("%s.blocks_seconds %.3f\n", name, t1 - t0);
    printf("%s.report_seconds %.3f\n", name, report_s);
    printf("%s.total_seconds %.3f\n", name, t1 - t0 + report_s);
    print_range(name, rdp, b->n);
  }
  g_free(rdp);
  priv_blocks_free(b);
  return rdp != NULL;
}

/* The structured path's rdp at the same T against @rdp (@n entries):
 * *@seconds its wall time (blocks and report), *@cpu_s its blocks' CPU
 * time, *@maxrel the largest relative difference over the victims. */
static gboolean vs_structured(const TopoGraph *g, guint T, const double *rdp, guint n,
                              double *seconds, double *cpu_s, double *maxrel, GError **error) {
  double s0 = bench_now(), sc0 = bench_cpu_seconds();
  PrivBlocks *sb = structured_blocks(g, T, error);
  if (!sb)
    return FALSE;
  double s1 = bench_now(), sc1 = bench_cpu_seconds(), sreport_s = 0;
  guint snv = 0;
  double *srdp = rdps(sb, g, &sreport_s, &snv, error);
  priv_blocks_free(sb);
  if (!srdp)
    return FALSE;
  *maxrel = 0.0;
  for (guint u = 0; u < n; u++)
    if (!isnan(srdp[u]) && srdp[u] > 1e-9)
      *maxrel = MAX(*maxrel, fabs(rdp[u] - srdp[u]) / srdp[u]);
  *seconds = s1 - s0 + sreport_s;
  *cpu_s = sc1 - sc0;
  g_free(srdp);
  return TRUE;
}

/* vs_structured, printed under @name: the structured path's seconds and the
 * largest relative difference; with @cpu_s >= 0 (this case's CPU seconds)
 * also the structured path's CPU seconds and the ratio of the two. */
static gboolean print_vs_structured(const char *name, const TopoGraph *g, guint T,
                                    const double *rdp, guint n, double cpu_s, GError **error) {
  double structured_s, structured_cpu, maxrel;
  if (!vs_structured(g, T, rdp, n, &structured_s, &structured_cpu, &maxrel, error))
    return FALSE;
  printf("%s.structured_seconds %.3f\n", name, structured_s);
  if (cpu_s >= 0) {
    printf("%s.structured_cpu_seconds %.3f\n", name, structured_cpu);
    printf("%s.cpu_time_ratio_vs_structured %.2f\n", name, cpu_s / structured_cpu);
  }
  printf("%s.max_rel_diff_vs_structured %.3g\n", name, maxrel);
  return TRUE;
}

/* Runs @protocol on @g for @T rounds (@storage) under one observer view:
 * attacker 0 under @trust, streaming when @so is not NULL. The observer,
 * with the run in *@run (the caller frees both); NULL with @error set. */
static PrivObserver *observed_run(const TopoGraph *g, const char *protocol, guint T,
                                  SimLinStorage storage, PrivTrust trust,
                                  const PrivStreamOptions *so, ProtoRun **run, GError **error) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = protocol;
  cfg.rounds = T;
  cfg.storage = storage;
  guint a = 0;
  PrivObserver *obs = NULL;
  if (!(*run = proto_run_new(&cfg, error)) ||
      !(obs = priv_observer_new(proto_context_space(proto_run_context(*run)), error)))
    return NULL;
  if (priv_observer_add_view(obs, trust, &a, 1, error) == G_MAXUINT ||
      (so && !priv_observer_set_streaming(obs, so, error)) ||
      !priv_observer_attach(obs, sim_engine_bus(proto_run_engine(*run)), error) ||
      !proto_run_run(*run, error)) {
    priv_observer_free(obs);
    return NULL;
  }
  return obs;
}

/* The observer path: simulate, observe, account; compared with structured. */
static gboolean run_observer(const char *name, const TopoGraph *g, guint T, SimLinStorage storage,
                             GError **error) {
  PrivKnowledge *k = NULL;
  PrivBlocks *b = NULL;
  double *rdp = NULL;
  gboolean ok = FALSE;
  double t0 = bench_now();
  ProtoRun *run = NULL;
  PrivObserver *obs = observed_run(g, "dsgd", T, storage, PRIV_TRUST_PNDP, NULL, &run, error);
  if (!obs)
    goto out;
  double t1 = bench_now();
  gsize rows = priv_observer_n_rows(obs, 0);
  proto_run_free(run); /* the observer keeps its rows; the run is no longer needed */
  run = NULL;
  if (!(k = priv_observer_knowledge(obs, 0, error)))
    goto out;
  priv_observer_free(obs);
  obs = NULL;
  PrivKnowledgeOptions ko = {.T = T, .clip = 1.0};
  if (!(b = priv_knowledge_blocks(k, &ko, error)))
    goto out;
  double t2 = bench_now(), report_s = 0;
  guint nv = 0;
  if (!(rdp = rdps(b, g, &report_s, &nv, error)))
    goto out;
  printf("%s.storage %s\n", name, storage == SIM_LIN_DENSE ? "dense" : "sparse");
  printf("%s.victims %u\n", name, nv);
  printf("%s.steps %u\n", name, T);
  printf("%s.rows_observed %zu\n", name, rows);
  printf("%s.simulate_seconds %.3f\n", name, t1 - t0);
  printf("%s.account_seconds %.3f\n", name, t2 - t1);
  printf("%s.report_seconds %.3f\n", name, report_s);
  printf("%s.total_seconds %.3f\n", name, t2 - t0 + report_s);
  print_range(name, rdp, b->n);
  if (!print_vs_structured(name, g, T, rdp, b->n, -1, error))
    goto out;
  ok = TRUE;
out:
  g_free(rdp);
  priv_blocks_free(b);
  priv_knowledge_free(k);
  priv_observer_free(obs);
  proto_run_free(run);
  return ok;
}

/* The streaming case's protocol and trust model (set before the fork). */
static const char *stream_protocol = "dsgd";
/* The child's streaming CPU seconds (shared page: the child writes it). */
static double *stream_cpu;
static PrivTrust stream_trust = PRIV_TRUST_PNDP;

/* The observer path with the streaming accountant (privacy/stream.c): the
 * run rebases its provenance every round, the accountant keeps only the
 * state's conditional law. D-SGD is compared with the structured path. */
static gboolean run_stream(const char *name, const TopoGraph *g, guint T, SimLinStorage storage,
                           GError **error) {
  (void)storage;
  guint nv = 0;
  PrivBlocks *b = NULL;
  double *rdp = NULL, report_s = 0;
  gboolean ok = FALSE;
  double t0 = bench_now(), c0 = bench_cpu_seconds();
  ProtoRun *run = NULL;
  PrivStreamOptions so = {.T = T, .clip = 1.0};
  PrivObserver *obs = observed_run(g, stream_protocol, T, SIM_LIN_SPARSE, stream_trust, &so, &run,
                                   error);
  if (!obs || !(b = priv_observer_stream_blocks(obs, 0, error)))
    goto out;
  double t1 = bench_now(), c1 = bench_cpu_seconds();
  if (!(rdp = rdps(b, g, &report_s, &nv, error)))
    goto out;
  printf("%s.protocol %s\n", name, stream_protocol);
  printf("%s.simulate_and_account_cpu_seconds %.3f\n", name, c1 - c0);
  if (stream_cpu)
    *stream_cpu = c1 - c0;
  printf("%s.trust %s\n", name, priv_trust_name(stream_trust));
  printf("%s.victims %u\n", name, nv);
  printf("%s.steps %u\n", name, T);
  printf("%s.simulate_and_account_seconds %.3f\n", name, t1 - t0);
  printf("%s.total_seconds %.3f\n", name, t1 - t0 + report_s);
  print_range(name, rdp, b->n);
  if (g_str_equal(stream_protocol, "dsgd") && stream_trust == PRIV_TRUST_PNDP &&
      !print_vs_structured(name, g, T, rdp, b->n, c1 - c0, error))
    goto out;
  ok = TRUE;
out:
  g_free(rdp);
  priv_blocks_free(b);
  priv_observer_free(obs);
  proto_run_free(run);
  return ok;
}

typedef struct {
  double seconds, rss_mb, cpu_seconds;
} Measure;

/* Runs one case in a child process; its wall time and own peak RSS. */
static gboolean in_child(const char *name,
                         gboolean (*fn)(const char *, const TopoGraph *, guint, SimLinStorage,
                                        GError **),
                         const TopoGraph *g, guint T, SimLinStorage storage, Measure *m) {
  fflush(stdout);
  double t0 = bench_now();
  pid_t pid = fork();
  if (pid < 0)
    return FALSE;
  if (pid == 0) {
    GError *err = NULL;
    gboolean ok = fn(name, g, T, storage, &err);
    if (!ok)
      fprintf(stderr, "bench_account: %s: %s\n", name, err ? err->message : "failed");
    g_clear_error(&err);
    fflush(stdout);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return FALSE;
  m->seconds = bench_now() - t0;
  m->rss_mb = (double)ru.ru_maxrss / 1024.0; /* kB on Linux */
  printf("%s.peak_rss_mb %.1f\n", name, m->rss_mb);
  /* On a shared machine wall time includes waiting for a core. */
  m->cpu_seconds = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                   (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  printf("%s.cpu_seconds %.3f\n", name, m->cpu_seconds);
  return TRUE;
}

/* The streaming accountant on @protocol under @trust at each of @Ts (in
 * children), then the least-squares exponents of the simulation and
 * accounting's CPU time and of the peak RSS against T. */
static gboolean stream_series(const char *protocol, PrivTrust trust, const char *prefix,
                              const TopoGraph *fb, const guint *Ts, guint nT) {
  Measure st[8];
  g_assert(nT <= G_N_ELEMENTS(st));
  stream_protocol = protocol;
  stream_trust = trust;
  for (guint i = 0; i < nT; i++) {
    char *name = g_strdup_printf("%s_T%u", prefix, Ts[i]);
    gboolean ok = in_child(name, run_stream, fb, Ts[i], SIM_LIN_SPARSE, &st[i]);
    if (ok && stream_cpu)
      st[i].cpu_seconds = *stream_cpu; /* the accounting alone */
    if (ok)
      printf("%s.wall_seconds %.3f\n", name, st[i].seconds);
    g_free(name);
    if (!ok)
      return FALSE;
  }
  double x[G_N_ELEMENTS(st)], cpu_s[G_N_ELEMENTS(st)], rss[G_N_ELEMENTS(st)];
  for (guint i = 0; i < nT; i++) {
    x[i] = Ts[i];
    cpu_s[i] = st[i].cpu_seconds;
    rss[i] = st[i].rss_mb;
  }
  printf("%s.cpu_time_exponent %.2f\n", prefix, bench_loglog_slope(x, cpu_s, nT));
  printf("%s.rss_exponent %.2f\n", prefix, bench_loglog_slope(x, rss, nT));
  return TRUE;
}

static gboolean structured_case(const char *name, const TopoGraph *g, guint T, SimLinStorage s,
                                GError **error) {
  (void)s;
  return run_structured(name, g, T, error);
}

int main(int argc, char **argv) {
  GError *err = NULL;
  Measure m;
  TopoGraph *flo = topo_graph_generate("florentine", &err);
  if (!flo || !in_child("account.florentine_T10", structured_case, flo, 10, SIM_LIN_SPARSE, &m))
    goto fail;
  if (!in_child("account.observer_florentine_T10", run_observer, flo, 10, SIM_LIN_SPARSE, &m))
    goto fail;
  topo_graph_free(flo);
  flo = NULL;

  char *path = argc > 1 ? g_strdup(argv[1]) : bench_data_file("graphs/facebook-ego-414-lcc.edges");
  TopoGraph *fb = topo_graph_load(path, TRUE, &err);
  g_free(path);
  if (!fb)
    goto fail;
  gboolean ok = in_child("account.pndp_fb_T320", structured_case, fb, 320, SIM_LIN_SPARSE, &m);
  gboolean t320 = g_strcmp0(g_getenv("DPG_BENCH_OBSERVER_T320"), "1") == 0;
  const guint Ts[] = {40, 80, 160, 320};
  Measure ms[G_N_ELEMENTS(Ts)];
  guint done = 0;
  gboolean dense = g_strcmp0(g_getenv("DPG_BENCH_DENSE"), "0") != 0;
  for (guint i = 0; ok && dense && i < G_N_ELEMENTS(Ts); i++) {
    if (Ts[i] == 320 && !t320)
      break;
    char *name = g_strdup_printf("account.observer_pndp_fb_T%u", Ts[i]);
    ok = in_child(name, run_observer, fb, Ts[i], SIM_LIN_SPARSE, &ms[i]);
    if (ok)
      printf("%s.wall_seconds %.3f\n", name, ms[i].seconds);
    g_free(name);
    done = i + 1;
  }
  if (ok && !t320 && done >= 2) {
    /* Power laws through the last two points. */
    const Measure *a = &ms[done - 2], *b = &ms[done - 1];
    double r = log(320.0 / Ts[done - 1]) / log((double)Ts[done - 1] / Ts[done - 2]);
    double te = log(b->seconds / a->seconds), me = log(b->rss_mb / a->rss_mb);
    printf("account.observer_pndp_fb_T320.time_exponent %.2f\n", te / log(2.0));
    printf("account.observer_pndp_fb_T320.rss_exponent %.2f\n", me / log(2.0));
    printf("account.observer_pndp_fb_T320.extrapolated_seconds %.0f\n", b->seconds * exp(te * r));
    printf("account.observer_pndp_fb_T320.extrapolated_peak_rss_mb %.0f\n",
           b->rss_mb * exp(me * r));
  }
  /* The streaming accountant, D-SGD under PNDP and Zip-DL under SecLDP:
   * T = 40 .. 320, then the least-squares exponents of time and peak RSS
   * against T. */
  stream_cpu = mmap(NULL, sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                    0);
  if (stream_cpu == MAP_FAILED)
    stream_cpu = NULL;
  if (ok)
    ok = stream_series("dsgd", PRIV_TRUST_PNDP, "account.stream_pndp_fb", fb, Ts, G_N_ELEMENTS(Ts));
  if (ok)
    ok = stream_series("zipdl", PRIV_TRUST_SECLDP, "account.stream_zipdl_secldp_fb", fb, Ts,
                       G_N_ELEMENTS(Ts));
  /* DECOR (SecLDP, PNDP) at the paper's horizon (DPG_BENCH_STREAM_T,
   * default 320) and Zip-DL (PNDP, LDP) at DPG_BENCH_ZIPDL_T (default the
   * same): its payloads in flight stay out of the state while no view has
   * seen them (privacy/stream.c, keep_fresh), and are constants to a view
   * that has (LDP, SecLDP: one row per sender and pure-noise differences,
   * reduce_rows), so the state is the models and the unsent self-payloads,
   * not n (deg + 1) = 3680. */
  const char *st_env = g_getenv("DPG_BENCH_STREAM_T"), *zt_env = g_getenv("DPG_BENCH_ZIPDL_T");
  guint T2 = st_env ? (guint)g_ascii_strtoull(st_env, NULL, 10) : 320;
  guint Tz = zt_env ? (guint)g_ascii_strtoull(zt_env, NULL, 10) : T2;
  const struct {
    const char *protocol;
    PrivTrust trust;
    guint T;
  } more[] = {{"decor", PRIV_TRUST_SECLDP, T2},
              {"decor", PRIV_TRUST_PNDP, T2},
              {"zipdl", PRIV_TRUST_PNDP, Tz},
              {"zipdl", PRIV_TRUST_LDP, Tz}};
  for (guint i = 0; ok && i < G_N_ELEMENTS(more); i++) {
    if (more[i].T == 0)
      continue;
    stream_protocol = more[i].protocol;
    stream_trust = more[i].trust;
    char *name = g_strdup_printf("account.stream_%s_%s_fb_T%u", more[i].protocol,
                                 priv_trust_name(more[i].trust), more[i].T);
    ok = in_child(name, run_stream, fb, more[i].T, SIM_LIN_SPARSE, &m);
    if (ok)
      printf("%s.wall_seconds %.3f\n", name, m.seconds);
    g_free(name);
  }
  topo_graph_free(fb);
  if (!ok)
    goto fail;
  return 0;
fail:
  topo_graph_free(flo);
  fprintf(stderr, "bench_account: %s\n", err ? err->message : "failed");
  g_clear_error(&err);
  return 1;
}
