/*
 * cli/cmd_mafalda.c: `dpgossip mafalda`: the Mafalda noise correlation for a
 * graph and a (k,b)-participation (DESIGN.md, "Mafalda"), compared with the
 * fixed baselines and DMF on the same objective sens^2 tr(H (C^T C)^{-1}).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"
#include "privacy/privacy.h"

/* The strategies in output order: JSON key, table label. */
enum { S_MAFALDA, S_DPDSGD, S_ANTIPGD, S_SR, S_BSR, S_DMF, S_COUNT };
static const char *const strategy_keys[S_COUNT] = {"mafalda", "dp-d-sgd", "antipgd",
                                                   "sr",      "bsr",      "dmf"};

typedef struct {
  guint n, T, k, b, band;
  PrivWorkload workload;
  TopoGossipKind gossip;
  double trace_H;
  double loss[S_COUNT], sens[S_COUNT];
  guint iterations;
  /* Wall-clock seconds. optimize (Mafalda) and baselines (DMF's optimization
   * and every score) run side by side, so total < the sum of the parts. */
  double seconds_load, seconds_gram, seconds_optimize, seconds_baselines, seconds_write;
  double seconds_total;
  CliProgress *progress; /* Mafalda's iterations (NULL: -q) */
} Report;

static double seconds_since(gint64 start) {
  return (double)(g_get_monotonic_time() - start) / 1e6;
}

static void add_strategies(JsonBuilder *jb, const char *name, const double *v) {
  cli_json_begin_object(jb, name);
  for (int i = 0; i < S_COUNT; i++) {
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
  cli_json_number(jb, "trace_H", r->trace_H);
  add_strategies(jb, "loss", r->loss);
  add_strategies(jb, "sensitivity", r->sens);
  cli_json_int(jb, "iterations", r->iterations);
  cli_json_begin_object(jb, "seconds");
  const struct {
    const char *key;
    double value;
  } seconds[] = {{"load", r->seconds_load},           {"gram", r->seconds_gram},
                 {"optimize", r->seconds_optimize},   {"baselines", r->seconds_baselines},
                 {"write", r->seconds_write},         {"total", r->seconds_total}};
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
  if (r->band) printf("band           %u\n", r->band);
  printf("trace(H)       %.10g\n", r->trace_H);
  printf("optimizer      %u iterations, %.3f s\n", r->iterations, r->seconds_optimize);
  printf("seconds        %.3f total: load %.3f, Gram matrix %.3f, baselines %.3f "
         "(alongside the optimizer), write %.3f\n",
         r->seconds_total, r->seconds_load, r->seconds_gram, r->seconds_baselines,
         r->seconds_write);
  printf("\n%-10s %18s %12s %10s\n", "strategy", "loss", "sensitivity", "vs mafalda");
  for (int i = 0; i < S_COUNT; i++)
    printf("%-10s %18.10g %12.6g %10.4f\n", strategy_keys[i], r->loss[i], r->sens[i],
           r->loss[i] / r->loss[S_MAFALDA]);
}

/* Loss and sensitivity of a fixed strategy C (taken). */
static gboolean score(const double *H, double *C, Report *r, int which, GError **error) {
  if (!C) return FALSE;
  r->loss[which] = priv_mf_loss(H, C, r->T, r->k, r->b, error);
  r->sens[which] = sqrt(priv_mf_sensitivity2(C, r->T, r->k, r->b));
  g_free(C);
  return !isnan(r->loss[which]);
}

/* One priv_mf_optimize call, run on its own thread. */
typedef struct {
  const double *H;
  guint T, k, b;
  PrivMfOptions opt;
  PrivMfResult *result;
  GError *error;
  gboolean ok;
  double seconds;
} OptimizeJob;

static gpointer optimize_job(gpointer data) {
  OptimizeJob *job = data;
  gint64 start = g_get_monotonic_time();
  job->ok = priv_mf_optimize(job->H, job->T, job->k, job->b, &job->opt, &job->result,
                             &job->error);
  job->seconds = seconds_since(start);
  return NULL;
}

/* DMF (the optimum for the centralized prefix sum, same participation and
 * band, scored on the decentralized H) and the fixed strategies. */
static gboolean baselines(const double *H, const PrivMfOptions *opt, Report *r,
                          GError **error) {
  PrivMfResult *dmf = NULL;
  double *P = priv_gram_prefix_sum(r->T, error);
  gboolean ok = P && priv_mf_optimize(P, r->T, r->k, r->b, opt, &dmf, error);
  if (ok) {
    r->loss[S_DMF] = priv_mf_loss(H, dmf->C, r->T, r->k, r->b, error);
    r->sens[S_DMF] = sqrt(priv_mf_sensitivity2(dmf->C, r->T, r->k, r->b));
    ok = !isnan(r->loss[S_DMF]);
  }
  ok = ok &&
       score(H, priv_mf_baseline(PRIV_BASELINE_IDENTITY, r->T, 0, error), r, S_DPDSGD, error) &&
       score(H, priv_mf_baseline(PRIV_BASELINE_ANTIPGD, r->T, 0, error), r, S_ANTIPGD, error) &&
       score(H, priv_mf_baseline(PRIV_BASELINE_SR, r->T, 0, error), r, S_SR, error) &&
       score(H, priv_mf_baseline(PRIV_BASELINE_BSR, r->T, r->b, error), r, S_BSR, error);
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
  if (!thread) optimize_job(&job); /* no thread: one after the other */
  GError *base_error = NULL;
  gint64 start = g_get_monotonic_time();
  gboolean base_ok = baselines(H, &base_opt, r, &base_error);
  r->seconds_baselines = seconds_since(start);
  if (thread) g_thread_join(thread);
  r->seconds_optimize = job.seconds;
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

/* @start: when the command began (the graph was built since). */
static gboolean run(const TopoGraph *g, gint64 start, Report *r, const char *out_path,
                    GError **error) {
  gboolean ok = FALSE;
  double *W = NULL, *H = NULL;
  PrivMfResult *maf = NULL;
  r->n = topo_graph_n_nodes(g);
  if (!priv_gram_check_memory(r->n, r->T, 0, error)) return FALSE;
  TopoGossip *w = topo_gossip_new(g, r->gossip, error);
  if (!w) return FALSE;
  W = topo_gossip_dense(w);
  r->seconds_load = seconds_since(start);

  gint64 t = g_get_monotonic_time();
  H = priv_gram_static(W, r->n, r->T, r->workload, PRIV_GRAM_AUTO, 0, error);
  r->seconds_gram = seconds_since(t);
  if (!H) goto out;
  r->trace_H = 0.0;
  for (guint s = 0; s < r->T; s++) r->trace_H += H[(gsize)s * r->T + s];

  gboolean optimized = optimize_all(H, r, &maf, error);
  g_clear_pointer(&r->progress, cli_progress_free); /* its line ends before any output */
  if (!optimized) goto out;
  t = g_get_monotonic_time();
  r->iterations = maf->iterations;
  r->loss[S_MAFALDA] = priv_mf_loss(H, maf->C, r->T, r->k, r->b, error);
  r->sens[S_MAFALDA] = sqrt(priv_mf_sensitivity2(maf->C, r->T, r->k, r->b));
  r->seconds_baselines += seconds_since(t); /* scoring Mafalda too */
  if (isnan(r->loss[S_MAFALDA])) goto out;

  /* Written through a temporary file and a rename: never half-written. */
  t = g_get_monotonic_time();
  if (out_path && !priv_matrix_write_csv(out_path, maf->C, r->T, r->T, error)) goto out;
  if (out_path)
    fprintf(stderr, "dpgossip mafalda: wrote %s (C_local, %u x %u; use it as --protocol "
                    "mfdsgd:C=%s)\n",
            out_path, r->T, r->T, out_path);
  r->seconds_write = seconds_since(t);
  ok = TRUE;
out:
  r->seconds_total = seconds_since(start);
  priv_mf_result_free(maf);
  g_free(H);
  g_free(W);
  topo_gossip_free(w);
  return ok;
}

#define usage_error(...) cli_usage_error("mafalda", __VA_ARGS__)

int cli_cmd_mafalda(int argc, char **argv) {
  CliGraphOptions gopt = {0};
  gint epochs = 0, batches = 0, band = -1;
  char *workload = NULL, *format = NULL, *out_path = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
      {"epochs", 'k', 0, G_OPTION_ARG_INT, &epochs,
       "Participations per record, k (required)", "K"},
      {"batches", 'b', 0, G_OPTION_ARG_INT, &batches,
       "Rounds between two participations of a record, b (required); T = k*b rounds", "B"},
      {"workload", 0, 0, G_OPTION_ARG_STRING, &workload,
       "What the loss measures: post-average (models after averaging, default) or messages",
       "NAME"},
      {"band", 0, 0, G_OPTION_ARG_INT, &band,
       "Banded C_local: each node keeps its last W noises (1 <= W <= T; default: no band)",
       "W"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out_path,
       "Write C_local as CSV (T rows of T values, %.17g)", "FILE"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Output format: table (default) or json",
       "FORMAT"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
       "No progress line (on a terminal: refreshed; elsewhere: every 10 s)", NULL},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx =
      g_option_context_new("- optimize Mafalda's noise correlation C_local for a graph");
  cli_graph_options_add(ctx, &gopt);
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_description(
      ctx, "Strategies compared (loss = sens^2 tr(H (C^T C)^-1), H the workload Gram matrix):\n"
           "  mafalda   the optimum for H (L-BFGS), sensitivity 1\n"
           "  dp-d-sgd  C = I (independent noise)\n"
           "  antipgd   C = lower-triangular ones (noise z_t - z_{t-1})\n"
           "  sr        square root of the prefix sum; bsr its band-b version\n"
           "  dmf       the optimum for the centralized prefix sum, scored on H\n"
           "\n"
           "Timings (JSON \"seconds\", wall clock): load (graph and gossip matrix), gram,\n"
           "optimize (Mafalda), baselines (DMF and every score, run alongside optimize),\n"
           "write (--out) and total. BLAS runs single-threaded so that the output does\n"
           "not depend on the number of cores.\n"
           "\n"
           "Examples:\n"
           "  dpgossip mafalda --generate florentine --epochs 5 --batches 16\n"
           "  dpgossip mafalda --graph facebook-414.edges --lcc -k 20 -b 16 --out C.csv "
           "--format json\n");

  int status = CLI_EXIT_USAGE;
  TopoGraph *g = NULL;
  GError *error = NULL;
  CliFormat fmt = CLI_FORMAT_TABLE;
  Report r = {0};

  if (!cli_parse(ctx, &argc, &argv)) goto out;
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
    status = usage_error("--band: infeasible band %d: it must be between 1 and T = %u",
                         band, r.T);
    goto out;
  }
  r.band = band == -1 ? 0 : (guint)band;
  if (format && !cli_format_parse(format, (1u << CLI_FORMAT_TABLE) | (1u << CLI_FORMAT_JSON),
                                  &fmt, &error)) {
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
  if (!priv_mf_check_memory(r.T, 16, 0, &error)) {
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
