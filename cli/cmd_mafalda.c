/*
 * cli/cmd_mafalda.c: `dpgossip mafalda`: the Mafalda noise correlation for a
 * graph and a (k,b)-participation (DESIGN.md, "Mafalda"), compared with the
 * fixed baselines and DMF on the same objective sens^2 tr(H (C^T C)^{-1}).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "cli/cli.h"
#include "privacy/privacy.h"

/* The strategies in output order: JSON key, table label. */
enum { S_MAFALDA, S_DPDSGD, S_ANTIPGD, S_SR, S_BSR, S_DMF, S_TOEPLITZ, S_COUNT };
static const char *const strategy_keys[S_COUNT] = {"mafalda", "dp-d-sgd", "antipgd", "sr",
                                                   "bsr",     "dmf",      "toeplitz"};

typedef struct {
  guint n, T, k, b, band;
  guint toeplitz_band; /* band of the fitted Toeplitz strategy (<= b) */
  gboolean skip_dense; /* no dense H: Mafalda and DMF are skipped (NaN) */
  PrivWorkload workload;
  TopoGossipKind gossip;
  double trace_H;
  double loss[S_COUNT], sens[S_COUNT];
  guint iterations;
  /* Wall-clock seconds. optimize (Mafalda) and baselines (DMF's optimization
   * and every score) run side by side, so total < the sum of the parts. */
  double seconds_load, seconds_gram, seconds_optimize, seconds_baselines, seconds_write;
  double seconds_total, seconds_cpu_optimize;
  /* CPU seconds of each strategy on its own (the thread that computed it):
   * Mafalda's optimization and scoring, DMF's likewise, the Toeplitz fit,
   * each fixed strategy's scoring. */
  double seconds_strategy[S_COUNT];
  const PrivGramSpectral *spectral; /* NULL: W not reversible, dense scoring */
  CliProgress *progress;            /* Mafalda's iterations (NULL: -q) */
} Report;

static double seconds_since(gint64 start) {
  return (double)(g_get_monotonic_time() - start) / 1e6;
}

/* CPU seconds of the calling thread: the strategies run side by side on a
 * loaded machine, where wall clocks mostly measure the neighbours. */
static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void add_strategies(JsonBuilder *jb, const char *name, const double *v) {
  cli_json_begin_object(jb, name);
  for (int i = 0; i < S_COUNT; i++) {
    if (isnan(v[i]))
      cli_json_null(jb, strategy_keys[i]); /* not computed (--skip-dense) */
    else
      cli_json_number(jb, strategy_keys[i], v[i]);
  }
  json_builder_end_object(jb);
}

static void print_json(const Report *r) {
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  cli_json_int(jb, "nodes", r->n);
  cli_json_string(jb, "gossip", topo_gossip_kind_name(r->gossip));
  cli_json_string(jb, "workload", priv_workload_name(r->workload));
  cli_json_int(jb, "rounds", r->T);
  cli_json_int(jb, "epochs", r->k);
  cli_json_int(jb, "batches", r->b);
  if (r->band)
    cli_json_int(jb, "band", r->band);
  else
    cli_json_null(jb, "band"); /* no band: C_local is full lower triangular */
  cli_json_int(jb, "toeplitz_band", r->toeplitz_band);
  cli_json_number(jb, "trace_H", r->trace_H);
  add_strategies(jb, "loss", r->loss);
  add_strategies(jb, "sensitivity", r->sens);
  add_strategies(jb, "strategy_seconds", r->seconds_strategy);
  cli_json_int(jb, "iterations", r->iterations);
  cli_json_begin_object(jb, "seconds");
  const struct {
    const char *key;
    double value;
  } seconds[] = {{"load", r->seconds_load},         {"gram", r->seconds_gram},
                 {"optimize", r->seconds_optimize}, {"baselines", r->seconds_baselines},
                 {"write", r->seconds_write},       {"total", r->seconds_total}};
  for (guint i = 0; i < G_N_ELEMENTS(seconds); i++) {
    cli_json_number(jb, seconds[i].key, seconds[i].value);
  }
  json_builder_end_object(jb);
  json_builder_end_object(jb);
  cli_json_print(jb);
}

static void print_table(const Report *r) {
  printf("nodes          %u (%s gossip)\n", r->n, topo_gossip_kind_name(r->gossip));
  printf("workload       %s\n", priv_workload_name(r->workload));
  printf("rounds         %u = %u epochs x %u batches\n", r->T, r->k, r->b);
  if (r->band)
    printf("band           %u\n", r->band);
  printf("trace(H)       %.10g\n", r->trace_H);
  if (r->skip_dense)
    printf("optimizer      skipped (--skip-dense)\n");
  else
    printf("optimizer      %u iterations, %.3f s\n", r->iterations, r->seconds_optimize);
  printf("toeplitz band  %u\n", r->toeplitz_band);
  printf("seconds        %.3f total: load %.3f, Gram matrix %.3f, baselines %.3f "
         "(alongside the optimizer), write %.3f\n",
         r->seconds_total, r->seconds_load, r->seconds_gram, r->seconds_baselines,
         r->seconds_write);
  printf("\n%-10s %18s %12s %10s %10s\n", "strategy", "loss", "sensitivity", "vs mafalda",
         "seconds");
  for (int i = 0; i < S_COUNT; i++) {
    if (isnan(r->loss[i]))
      printf("%-10s %18s\n", strategy_keys[i], "(skipped)");
    else if (isnan(r->loss[S_MAFALDA]))
      printf("%-10s %18.10g %12.6g %10s %10.3f\n", strategy_keys[i], r->loss[i], r->sens[i], "-",
             r->seconds_strategy[i]);
    else
      printf("%-10s %18.10g %12.6g %10.4f %10.3f\n", strategy_keys[i], r->loss[i], r->sens[i],
             r->loss[i] / r->loss[S_MAFALDA], r->seconds_strategy[i]);
  }
}

/* Loss and sensitivity of the Toeplitz baseline @which: from the spectral
 * form of H and C's first column when W is reversible (O(n^2 T + T w), no
 * T x T matrix), else on the dense H and C (O(T^3)). */
static gboolean score(const double *H, PrivBaseline which, guint band, Report *r, int slot,
                      GError **error) {
  double start = thread_cpu();
  if (r->spectral) {
    guint width = 0;
    double *c = priv_mf_baseline_coefficients(which, r->T, band, &width, error);
    if (!c)
      return FALSE;
    r->loss[slot] = priv_mf_loss_toeplitz(r->spectral, c, width, r->k, r->b, error);
    r->sens[slot] = sqrt(priv_mf_sensitivity2_toeplitz(c, width, r->T, r->k, r->b));
    g_free(c);
  } else {
    double *C = priv_mf_baseline(which, r->T, band, error);
    if (!C)
      return FALSE;
    r->loss[slot] = priv_mf_loss(H, C, r->T, r->k, r->b, error);
    r->sens[slot] = sqrt(priv_mf_sensitivity2(C, r->T, r->k, r->b));
    g_free(C);
  }
  r->seconds_strategy[slot] = thread_cpu() - start;
  return !isnan(r->loss[slot]);
}

/* One priv_mf_optimize call, run on its own thread. */
typedef struct {
  const double *H;
  guint T, k, b;
  PrivMfOptions opt;
  PrivMfResult *result;
  GError *error;
  gboolean ok;
  double seconds, cpu;
} OptimizeJob;

static gpointer optimize_job(gpointer data) {
  OptimizeJob *job = data;
  gint64 start = g_get_monotonic_time();
  double cpu = thread_cpu();
  job->ok = priv_mf_optimize(job->H, job->T, job->k, job->b, &job->opt, &job->result, &job->error);
  job->seconds = seconds_since(start);
  job->cpu = thread_cpu() - cpu;
  return NULL;
}

/* DMF (the optimum for the centralized prefix sum, same participation and
 * band, scored on the decentralized H) and the fixed strategies. DMF stops
 * once its objective settles (ftol 1e-10 over 10 iterations: its loss is
 * then within ~1e-11 of the optimum's, and scored exactly on H), about half
 * the iterations of the full gradient tolerance. */
static gboolean baselines(const double *H, const PrivMfOptions *opt, Report *r, GError **error) {
  PrivMfResult *dmf = NULL;
  double start = thread_cpu();
  PrivMfOptions dopt = *opt;
  dopt.ftol = 1e-10;
  double *P = priv_gram_prefix_sum(r->T, error);
  gboolean ok = P && priv_mf_optimize(P, r->T, r->k, r->b, &dopt, &dmf, error);
  if (ok) {
    r->loss[S_DMF] = priv_mf_loss(H, dmf->C, r->T, r->k, r->b, error);
    r->sens[S_DMF] = sqrt(priv_mf_sensitivity2(dmf->C, r->T, r->k, r->b));
    ok = !isnan(r->loss[S_DMF]);
  }
  r->seconds_strategy[S_DMF] = thread_cpu() - start;
  ok = ok && score(H, PRIV_BASELINE_IDENTITY, 0, r, S_DPDSGD, error) &&
       score(H, PRIV_BASELINE_ANTIPGD, 0, r, S_ANTIPGD, error) &&
       score(H, PRIV_BASELINE_SR, 0, r, S_SR, error) &&
       score(H, PRIV_BASELINE_BSR, r->b, r, S_BSR, error);
  priv_mf_result_free(dmf);
  g_free(P);
  return ok;
}

/*
 * Mafalda and DMF are independent problems of the same size: Mafalda runs on
 * a second thread while this one runs DMF and scores the fixed strategies.
 * Returns FALSE with @error set (Mafalda's error first: it is the one asked
 * for); *@maf is set when Mafalda converged.
 */
/* Mafalda's optimizer, at each iteration (from its thread). */
static void on_iteration(guint iteration, double fraction, gpointer data) {
  char what[64];
  g_snprintf(what, sizeof what, "Mafalda's optimizer, iteration %u", iteration);
  cli_progress_update_fraction(data, fraction, what);
}

static gboolean optimize_all(const double *H, Report *r, PrivMfResult **maf, GError **error) {
  OptimizeJob job = {.H = H, .T = r->T, .k = r->k, .b = r->b};
  priv_mf_options_init(&job.opt);
  job.opt.band = r->band;
  PrivMfOptions base_opt = job.opt; /* DMF's optimizer alongside: silent */
  if (r->progress != NULL) {
    job.opt.progress = on_iteration;
    job.opt.progress_data = r->progress;
  }
  GThread *thread = g_thread_try_new("mafalda", optimize_job, &job, NULL);
  if (!thread)
    optimize_job(&job); /* no thread: one after the other */
  GError *base_error = NULL;
  gint64 start = g_get_monotonic_time();
  gboolean base_ok = baselines(H, &base_opt, r, &base_error);
  r->seconds_baselines = seconds_since(start);
  if (thread)
    g_thread_join(thread);
  r->seconds_optimize = job.seconds;
  r->seconds_cpu_optimize = job.cpu;
  if (!job.ok) {
    g_propagate_error(error, job.error);
    g_clear_error(&base_error);
    priv_mf_result_free(job.result);
    return FALSE;
  }
  if (!base_ok) {
    g_propagate_error(error, base_error);
    priv_mf_result_free(job.result);
    return FALSE;
  }
  *maf = job.result;
  return TRUE;
}

/* The banded Toeplitz strategy fitted to this graph (O(n^2 T) per
 * evaluation, warm started from shorter horizons): needs a reversible W. */
static gboolean fit_toeplitz(const double *W, Report *r, GError **error) {
  double cpu = thread_cpu();
  double *c = g_new(double, r->toeplitz_band);
  gboolean ok = priv_mafalda_toeplitz(W, r->n, r->k, r->b, r->toeplitz_band, c,
                                      &r->loss[S_TOEPLITZ], error);
  if (ok)
    r->sens[S_TOEPLITZ] = sqrt(
        priv_mf_sensitivity2_toeplitz(c, r->toeplitz_band, r->T, r->k, r->b));
  g_free(c);
  r->seconds_strategy[S_TOEPLITZ] = thread_cpu() - cpu;
  return ok;
}

/* The fixed strategies alone (--skip-dense), from the spectral form. */
static gboolean fixed_only(Report *r, GError **error) {
  gint64 start = g_get_monotonic_time();
  gboolean ok = score(NULL, PRIV_BASELINE_IDENTITY, 0, r, S_DPDSGD, error) &&
                score(NULL, PRIV_BASELINE_ANTIPGD, 0, r, S_ANTIPGD, error) &&
                score(NULL, PRIV_BASELINE_SR, 0, r, S_SR, error) &&
                score(NULL, PRIV_BASELINE_BSR, r->b, r, S_BSR, error);
  r->seconds_baselines = seconds_since(start);
  return ok;
}

/* @start: when the command began (the graph was built since). */
static gboolean run(const TopoGraph *g, gint64 start, Report *r, const char *out_path,
                    GError **error) {
  gboolean ok = FALSE;
  double *W = NULL, *H = NULL;
  PrivMfResult *maf = NULL;
  PrivGramSpectral *spectral = NULL;
  for (int i = 0; i < S_COUNT; i++)
    r->loss[i] = r->sens[i] = r->seconds_strategy[i] = NAN;
  r->n = topo_graph_n_nodes(g);
  if (!r->skip_dense && !priv_gram_check_memory(r->n, r->T, 0, error))
    return FALSE;
  TopoGossip *w = topo_gossip_new(g, r->gossip, error);
  if (!w)
    return FALSE;
  W = topo_gossip_dense(w);
  r->seconds_load = seconds_since(start);

  gint64 t = g_get_monotonic_time();
  /* The fixed strategies are scored from the spectral form when W is
   * reversible; --skip-dense needs it (no dense H at all). */
  GError *sub = NULL;
  r->spectral = spectral = priv_gram_spectral_new(W, r->n, r->T, r->workload, &sub);
  if (!spectral && r->skip_dense) {
    g_propagate_prefixed_error(error, sub, "--skip-dense: ");
    goto out;
  }
  g_clear_error(&sub);
  if (!r->skip_dense) {
    H = priv_gram_static(W, r->n, r->T, r->workload, PRIV_GRAM_AUTO, 0, error);
    if (!H)
      goto out;
    r->trace_H = 0.0;
    for (guint s = 0; s < r->T; s++)
      r->trace_H += H[(gsize)s * r->T + s];
  } else {
    double *e0 = g_new0(double, r->T);
    e0[0] = 1.0;
    r->trace_H = priv_mf_toeplitz_trace(spectral, e0);
    g_free(e0);
  }
  r->seconds_gram = seconds_since(t);

  gboolean optimized = r->skip_dense ? fixed_only(r, error) : optimize_all(H, r, &maf, error);
  g_clear_pointer(&r->progress, cli_progress_free); /* its line ends before any output */
  if (!optimized)
    goto out;
  t = g_get_monotonic_time();
  if (spectral && r->workload == PRIV_WORKLOAD_POST_AVERAGE && !fit_toeplitz(W, r, error))
    goto out;
  r->seconds_baselines += seconds_since(t);
  if (maf) {
    t = g_get_monotonic_time();
    double cpu = thread_cpu();
    r->iterations = maf->iterations;
    r->loss[S_MAFALDA] = priv_mf_loss(H, maf->C, r->T, r->k, r->b, error);
    r->sens[S_MAFALDA] = sqrt(priv_mf_sensitivity2(maf->C, r->T, r->k, r->b));
    r->seconds_baselines += seconds_since(t); /* scoring Mafalda too */
    r->seconds_strategy[S_MAFALDA] = r->seconds_cpu_optimize + thread_cpu() - cpu;
    if (isnan(r->loss[S_MAFALDA]))
      goto out;
  }

  /* Written through a temporary file and a rename: never half-written. */
  t = g_get_monotonic_time();
  if (out_path && maf && !priv_matrix_write_csv(out_path, maf->C, r->T, r->T, error))
    goto out;
  if (out_path && maf)
    fprintf(stderr,
            "dpgossip mafalda: wrote %s (C_local, %u x %u; use it as --protocol "
            "mfdsgd:C=%s)\n",
            out_path, r->T, r->T, out_path);
  r->seconds_write = seconds_since(t);
  ok = TRUE;
out:
  r->seconds_total = seconds_since(start);
  priv_mf_result_free(maf);
  priv_gram_spectral_free(spectral);
  g_free(H);
  g_free(W);
  topo_gossip_free(w);
  return ok;
}

#define usage_error(...) cli_usage_error("mafalda", __VA_ARGS__)

int cli_cmd_mafalda(int argc, char **argv) {
  CliGraphOptions gopt = {0};
  gint epochs = 0, batches = 0, band = -1, toeplitz_band = 0;
  gboolean skip_dense = FALSE;
  char *workload = NULL, *format = NULL, *out_path = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
      {"epochs", 'k', 0, G_OPTION_ARG_INT, &epochs, "Participations per record, k (required)", "K"},
      {"batches", 'b', 0, G_OPTION_ARG_INT, &batches,
       "Rounds between two participations of a record, b (required); T = k*b rounds", "B"},
      {"workload", 0, 0, G_OPTION_ARG_STRING, &workload,
       "What the loss measures: post-average (models after averaging, default) or messages",
       "NAME"},
      {"band", 0, 0, G_OPTION_ARG_INT, &band,
       "Banded C_local: each node keeps its last W noises (1 <= W <= T; default: no band)", "W"},
      {"toeplitz-band", 0, 0, G_OPTION_ARG_INT, &toeplitz_band,
       "Band w <= T of the fitted Toeplitz strategy (w - 1 past noises per node; default b)", "W"},
      {"skip-dense", 0, 0, G_OPTION_ARG_NONE, &skip_dense,
       "No dense T x T work: skip Mafalda's optimizer and DMF, keep the structured "
       "strategies (long horizons; needs a reversible gossip)",
       NULL},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out_path,
       "Write C_local as CSV (T rows of T values, %.17g)", "FILE"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Output format: table (default) or json",
       "FORMAT"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
       "No progress line (on a terminal: refreshed; elsewhere: every 10 s)", NULL},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx = g_option_context_new(
      "- optimize Mafalda's noise correlation C_local for a graph");
  cli_graph_options_add(ctx, &gopt);
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_description(
      ctx, "Strategies compared (loss = sens^2 tr(H (C^T C)^-1), H the workload Gram matrix):\n"
           "  mafalda   the optimum for H (L-BFGS), sensitivity 1\n"
           "  dp-d-sgd  C = I (independent noise)\n"
           "  antipgd   C = lower-triangular ones (noise z_t - z_{t-1})\n"
           "  sr        square root of the prefix sum; bsr its band-b version\n"
           "  dmf       the optimum for the centralized prefix sum, scored on H\n"
           "  toeplitz  banded Toeplitz C (band --toeplitz-band, default b) fitted to H: each\n"
           "            node keeps w - 1 past noises whatever T (reversible gossip,\n"
           "            post-average workload)\n"
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
           "  dpgossip mafalda --graph facebook-414.edges --lcc -k 20 -b 16 --out C.csv "
           "--format json\n"
           "  dpgossip mafalda --graph facebook-414.edges --lcc -k 625 -b 16 --skip-dense "
           "--toeplitz-band 32\n");

  int status = CLI_EXIT_USAGE;
  TopoGraph *g = NULL;
  GError *error = NULL;
  CliFormat fmt = CLI_FORMAT_TABLE;
  Report r = {0};

  if (!cli_parse(ctx, &argc, &argv))
    goto out;
  if (epochs <= 0 || batches <= 0) {
    status = usage_error("--epochs and --batches must both be given and positive "
                         "(got k = %d, b = %d)",
                         epochs, batches);
    goto out;
  }
  if ((guint64)epochs * (guint64)batches > G_MAXUINT) {
    status = usage_error("T = epochs x batches = %u x %u is too large", (guint)epochs,
                         (guint)batches);
    goto out;
  }
  r.k = (guint)epochs;
  r.b = (guint)batches;
  r.T = r.k * r.b;
  if (band != -1 && (band < 1 || (guint)band > r.T)) {
    /* band 0 would leave no invertible C; a band beyond T is no band at all. */
    status = usage_error("--band: infeasible band %d: it must be between 1 and T = %u", band, r.T);
    goto out;
  }
  r.band = band == -1 ? 0 : (guint)band;
  if (toeplitz_band < 0 || (guint)toeplitz_band > r.T) {
    status = usage_error("--toeplitz-band: %d must be between 1 and T = %u (0: b)", toeplitz_band,
                         r.T);
    goto out;
  }
  r.toeplitz_band = toeplitz_band ? (guint)toeplitz_band : r.b;
  r.skip_dense = skip_dense;
  if (skip_dense && out_path) {
    status = usage_error("--out writes Mafalda's C, which --skip-dense does not compute");
    goto out;
  }
  if (format &&
      !cli_format_parse(format, (1u << CLI_FORMAT_TABLE) | (1u << CLI_FORMAT_JSON), &fmt, &error)) {
    status = cli_fail("mafalda", error, CLI_EXIT_USAGE);
    goto out;
  }
  r.workload = PRIV_WORKLOAD_POST_AVERAGE;
  if (workload && !priv_workload_parse(workload, &r.workload, &error)) {
    status = cli_fail("mafalda", error, CLI_EXIT_USAGE);
    goto out;
  }
  if (!cli_graph_options_gossip(&gopt, &r.gossip, &error)) {
    status = cli_fail("mafalda", error, CLI_EXIT_USAGE);
    goto out;
  }
  /* Refuse a horizon that cannot fit before loading anything. */
  if (!skip_dense && !priv_mf_check_memory(r.T, 16, 0, &error)) {
    status = cli_fail("mafalda", error, CLI_EXIT_FAILURE);
    goto out;
  }
  gint64 start = g_get_monotonic_time();
  g = cli_graph_options_build(&gopt, &error);
  if (!g) {
    status = cli_fail("mafalda", error, cli_graph_options_status(&gopt, error));
    goto out;
  }
  if (!topo_graph_is_connected(g)) {
    fprintf(stderr,
            "dpgossip mafalda: the graph is not connected (%u nodes): gossip cannot mix "
            "across components; keep the largest one with --lcc\n",
            topo_graph_n_nodes(g));
    status = CLI_EXIT_FAILURE;
    goto out;
  }
  r.progress = cli_progress_new("mafalda", quiet);
  if (!run(g, start, &r, out_path, &error)) {
    status = cli_fail("mafalda", error, CLI_EXIT_FAILURE);
    goto out;
  }
  if (fmt == CLI_FORMAT_JSON)
    print_json(&r);
  else
    print_table(&r);
  status = CLI_EXIT_OK;
out:
  cli_progress_free(r.progress);
  topo_graph_free(g);
  g_free(workload);
  g_free(format);
  g_free(out_path);
  cli_graph_options_clear(&gopt);
  g_option_context_free(ctx);
  return status;
}
