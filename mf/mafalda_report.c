/*
 * mf/mafalda_report.c: Mafalda compared with the fixed baselines, DMF
 * and the fitted Toeplitz and BLT strategies on one graph: the computation behind
 * `dpgossip mafalda` and dpg_mafalda (libdpgossip, the Python package), so
 * that the two print the very same numbers.
 */
#include "mf/internal.h"
#include "spec/spec.h"

#include <math.h>
#include <time.h>

static const char *const strategy_names[MF_MAFALDA_N_STRATEGIES] = {
    "mafalda", "dp-d-sgd", "antipgd", "sr", "bsr", "dmf", "toeplitz", "blt"};

const char *mf_mafalda_strategy_name(MfMafaldaStrategy s) {
  g_return_val_if_fail(s < MF_MAFALDA_N_STRATEGIES, NULL);
  return strategy_names[s];
}

void mf_mafalda_report_free(MfMafaldaReport *r) {
  if (r == NULL)
    return;
  g_free(r->C);
  g_free(r->objective_history);
  g_free(r);
}

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

/* What the stages share; @r is the report being filled. */
typedef struct {
  MfMafaldaReport *r;
  const MfGramSpectral *spectral; /* NULL: W not reversible, dense scoring */
  guint baselines;                /* MfMafaldaReportOptions.baselines */
} Work;

/* Loss and sensitivity of the Toeplitz baseline @which: from the spectral
 * form of H and C's first column when W is reversible (O(n^2 T + T w), no
 * T x T matrix), else on the dense H and C (O(T^3)). */
static gboolean score(const Work *wk, const double *H, MfBaseline which, guint band,
                      MfMafaldaStrategy slot, GError **error) {
  MfMafaldaReport *r = wk->r;
  double start = thread_cpu();
  if (wk->spectral) {
    guint width = 0;
    double *c = mf_baseline_coefficients(which, r->T, band, &width, error);
    if (!c)
      return FALSE;
    r->loss[slot] = mf_loss_toeplitz(wk->spectral, c, width, r->k, r->b, error);
    r->sensitivity[slot] = sqrt(mf_sensitivity2_toeplitz(c, width, r->T, r->k, r->b));
    g_free(c);
  } else {
    double *C = mf_baseline(which, r->T, band, error);
    if (!C)
      return FALSE;
    r->loss[slot] = mf_loss(H, C, r->T, r->k, r->b, error);
    r->sensitivity[slot] = sqrt(mf_sensitivity2(C, r->T, r->k, r->b));
    g_free(C);
  }
  r->cpu_seconds[slot] = thread_cpu() - start;
  return !isnan(r->loss[slot]);
}

static gboolean asked(const Work *wk, MfMafaldaStrategy s) {
  return (wk->baselines >> s) & 1u;
}

/* The fixed strategies asked for. */
static gboolean score_fixed(const Work *wk, const double *H, GError **error) {
  static const struct {
    MfBaseline which;
    MfMafaldaStrategy slot;
  } fixed[] = {{MF_BASELINE_IDENTITY, MF_MAFALDA_DPDSGD},
               {MF_BASELINE_ANTIPGD, MF_MAFALDA_ANTIPGD},
               {MF_BASELINE_SR, MF_MAFALDA_SR},
               {MF_BASELINE_BSR, MF_MAFALDA_BSR}};
  for (guint i = 0; i < G_N_ELEMENTS(fixed); i++) {
    guint band = fixed[i].which == MF_BASELINE_BSR ? wk->r->b : 0;
    if (asked(wk, fixed[i].slot) && !score(wk, H, fixed[i].which, band, fixed[i].slot, error))
      return FALSE;
  }
  return TRUE;
}

/* One mf_optimize call, run on its own thread. */
typedef struct {
  const double *H;
  guint T, k, b;
  MfOptions opt;
  MfResult *result;
  GError *error;
  gboolean ok;
  double seconds, cpu;
} OptimizeJob;

static gpointer optimize_job(gpointer data) {
  OptimizeJob *job = data;
  gint64 start = g_get_monotonic_time();
  double cpu = thread_cpu();
  job->ok = mf_optimize(job->H, job->T, job->k, job->b, &job->opt, &job->result, &job->error);
  job->seconds = seconds_since(start);
  job->cpu = thread_cpu() - cpu;
  return NULL;
}

/* DMF (the optimum for the centralized prefix sum, same participation and
 * band, scored on the decentralized H; mf_dmf, warm started from
 * shorter horizons; it does not depend on the graph) and the fixed
 * strategies. DMF stops once its objective settles (ftol 1e-10 over 10
 * iterations), about half the iterations of the full gradient tolerance: its
 * loss on H, scored exactly, is then within about 1e-7 relative of the
 * converged optimum's (measured in tests/mf/test_mafalda_opt.c). */
static gboolean baselines(const Work *wk, const double *H, const MfOptions *opt, GError **error) {
  MfMafaldaReport *r = wk->r;
  MfResult *dmf = NULL;
  gboolean ok = TRUE;
  if (asked(wk, MF_MAFALDA_DMF)) {
    double start = thread_cpu();
    MfOptions dopt = *opt;
    dopt.ftol = 1e-10;
    ok = mf_dmf(r->k, r->b, &dopt, &dmf, error);
    if (ok) {
      r->loss[MF_MAFALDA_DMF] = mf_loss(H, dmf->C, r->T, r->k, r->b, error);
      r->sensitivity[MF_MAFALDA_DMF] = sqrt(mf_sensitivity2(dmf->C, r->T, r->k, r->b));
      ok = !isnan(r->loss[MF_MAFALDA_DMF]);
    }
    r->cpu_seconds[MF_MAFALDA_DMF] = thread_cpu() - start;
  }
  ok = ok && score_fixed(wk, H, error);
  mf_result_free(dmf);
  return ok;
}

/*
 * Mafalda and DMF are independent problems of the same size: Mafalda runs on
 * a second thread while this one runs DMF and scores the fixed strategies.
 * Returns FALSE with @error set (Mafalda's error first: it is the one asked
 * for); *@maf is set when Mafalda converged.
 */
static gboolean optimize_all(const Work *wk, const double *H, const MfMafaldaReportOptions *o,
                             MfResult **maf, double *cpu_optimize, GError **error) {
  MfMafaldaReport *r = wk->r;
  OptimizeJob job = {.H = H, .T = r->T, .k = r->k, .b = r->b};
  /* Banded: stop once f settles, as DMF (scored exactly on H anyway). */
  mf_mafalda_options_init(&job.opt, r->band);
  job.opt.cancel = o->cancel;
  MfOptions base_opt = job.opt; /* DMF's optimizer alongside */
  base_opt.progress = o->dmf_progress;
  base_opt.progress_data = o->dmf_progress_data;
  job.opt.progress = o->progress;
  job.opt.progress_data = o->progress_data;
  GThread *thread = g_thread_try_new("mafalda", optimize_job, &job, NULL);
  if (!thread)
    optimize_job(&job); /* no thread: one after the other */
  GError *base_error = NULL;
  gint64 start = g_get_monotonic_time();
  gboolean base_ok = baselines(wk, H, &base_opt, &base_error);
  r->seconds_baselines = seconds_since(start);
  if (thread)
    g_thread_join(thread);
  r->seconds_optimize = job.seconds;
  *cpu_optimize = job.cpu;
  if (!job.ok) {
    g_propagate_error(error, job.error);
    g_clear_error(&base_error);
    mf_result_free(job.result);
    return FALSE;
  }
  if (!base_ok) {
    g_propagate_error(error, base_error);
    mf_result_free(job.result);
    return FALSE;
  }
  *maf = job.result;
  return TRUE;
}

/* The banded Toeplitz strategy fitted to this graph (O(n^2 T) per
 * evaluation, warm started from shorter horizons): needs a reversible W. */
static gboolean fit_toeplitz(MfMafaldaReport *r, const MfGramSpectral *spectral,
                             GError **error) {
  double cpu = thread_cpu();
  double *c = g_new(double, r->toeplitz_band);
  gboolean ok = mf_mafalda_toeplitz_spectral(spectral, r->k, r->b, r->toeplitz_band, c,
                                             &r->loss[MF_MAFALDA_TOEPLITZ], error);
  if (ok)
    r->sensitivity[MF_MAFALDA_TOEPLITZ] = sqrt(
        mf_sensitivity2_toeplitz(c, r->toeplitz_band, r->T, r->k, r->b));
  g_free(c);
  r->cpu_seconds[MF_MAFALDA_TOEPLITZ] = thread_cpu() - cpu;
  return ok;
}

/* The BLT strategy fitted to this graph (d buffers, O(n^2 T + b k^2 d^2)
 * per evaluation): needs a reversible W. */
static gboolean fit_blt(MfMafaldaReport *r, const MfGramSpectral *spectral, GError **error) {
  double cpu = thread_cpu();
  guint d = r->blt_buffers;
  gboolean ok = mf_mafalda_blt_spectral(spectral, r->k, r->b, d, r->blt_theta, r->blt_w,
                                        &r->loss[MF_MAFALDA_BLT], error);
  if (ok)
    r->sensitivity[MF_MAFALDA_BLT] = sqrt(
        mf_sensitivity2_blt(r->blt_theta, r->blt_w, d, r->T, r->k, r->b, NULL));
  r->cpu_seconds[MF_MAFALDA_BLT] = thread_cpu() - cpu;
  return ok;
}

static gboolean checkpoint(const MfMafaldaReportOptions *o, MfMafaldaStage stage, GError **error) {
  return o->checkpoint == NULL || o->checkpoint(stage, o->checkpoint_data, error);
}

void mf_mafalda_report_options_init(MfMafaldaReportOptions *opt) {
  *opt = (MfMafaldaReportOptions){.workload = MF_WORKLOAD_POST_AVERAGE,
                                  .blt_buffers = MF_MAFALDA_BLT_BUFFERS,
                                  .baselines = MF_MAFALDA_DEFAULT_BASELINES};
}

gboolean mf_mafalda_baselines_parse(const char *list, guint *baselines, GError **error) {
  g_return_val_if_fail(list != NULL && baselines != NULL, FALSE);
  guint set = 0;
  gboolean ok = TRUE;
  char **items = g_strsplit(list, ",", -1);
  for (guint i = 0; ok && items[i] != NULL; i++) {
    const char *item = g_strstrip(items[i]);
    if (g_str_equal(item, "all")) {
      set |= MF_MAFALDA_ALL_BASELINES;
      continue;
    }
    if (g_str_equal(item, "default")) {
      set |= MF_MAFALDA_DEFAULT_BASELINES;
      continue;
    }
    if (g_str_equal(item, "none") && items[1] == NULL && i == 0)
      continue;
    int found = -1;
    for (int s = 0; s < MF_MAFALDA_N_STRATEGIES; s++)
      if (s != MF_MAFALDA_MAFALDA && g_str_equal(item, strategy_names[s]))
        found = s;
    if (found < 0) {
      const char *names[MF_MAFALDA_N_STRATEGIES + 3] = {"all", "default", "none"};
      for (int s = 1; s < MF_MAFALDA_N_STRATEGIES; s++)
        names[s + 2] = strategy_names[s];
      char *hint = spec_did_you_mean(item, names, G_N_ELEMENTS(names));
      g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                  "unknown baseline '%s' (valid: dp-d-sgd, antipgd, sr, bsr, dmf, toeplitz, "
                  "blt, or all, default, none)%s",
                  item, hint);
      g_free(hint);
      ok = FALSE;
    } else {
      set |= 1u << found;
    }
  }
  g_strfreev(items);
  if (ok)
    *baselines = set;
  return ok;
}

gboolean mf_mafalda_report(const double *W, guint n, const MfMafaldaReportOptions *opt,
                           MfMafaldaReport **report, GError **error) {
  g_return_val_if_fail((W != NULL || opt->H != NULL) && opt != NULL && report != NULL, FALSE);
  *report = NULL;
  if (opt->H != NULL && opt->skip_dense) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "Mafalda's report: a given Gram matrix is dense; skip_dense has no spectral form "
                "to score on");
    return FALSE;
  }
  if (opt->k == 0 || opt->b == 0 || (guint64)opt->k * opt->b > G_MAXUINT) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "Mafalda's report: epochs x batches = %u x %u must be positive and fit a guint",
                opt->k, opt->b);
    return FALSE;
  }
  guint T = opt->k * opt->b;
  if (opt->toeplitz_band > T) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "Mafalda's report: Toeplitz band %u must be between 1 and T = %u (0: b)",
                opt->toeplitz_band, T);
    return FALSE;
  }
  if (opt->blt_buffers > MF_BLT_MAX_BUFFERS) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "Mafalda's report: %u BLT buffers, at most %d (0: no BLT strategy)",
                opt->blt_buffers, MF_BLT_MAX_BUFFERS);
    return FALSE;
  }
  MfMafaldaReport *r = g_new0(MfMafaldaReport, 1);
  *r = (MfMafaldaReport){.n = n,
                         .T = T,
                         .k = opt->k,
                         .b = opt->b,
                         .band = opt->band,
                         .toeplitz_band = opt->toeplitz_band ? opt->toeplitz_band : opt->b,
                         .blt_buffers = opt->blt_buffers};
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++)
    r->loss[i] = r->sensitivity[i] = r->cpu_seconds[i] = NAN;
  Work wk = {.r = r, .baselines = opt->baselines};
  gboolean ok = FALSE;
  double *H = NULL;
  MfResult *maf = NULL;

  gint64 t = g_get_monotonic_time();
  /* The fixed strategies are scored from the spectral form when W is
   * reversible; skip_dense needs it (no dense H at all). */
  GError *sub = NULL;
  MfGramSpectral *spectral = opt->H == NULL ? mf_gram_spectral_new(W, n, T, opt->workload, &sub)
                                            : NULL;
  wk.spectral = spectral;
  if (!spectral && opt->skip_dense) {
    g_propagate_prefixed_error(error, sub, "--skip-dense: ");
    goto out;
  }
  g_clear_error(&sub);
  if (!opt->skip_dense) {
    /* From the spectral form when there is one: W's eigendecomposition, the
     * O(n^3) of both, once. */
    H = opt->H != NULL     ? g_memdup2(opt->H, (gsize)T * T * sizeof(double))
        : spectral != NULL ? mf_gram_spectral_dense(spectral, error)
                           : mf_gram_static(W, n, T, opt->workload, MF_GRAM_AUTO, 0, error);
    if (!H)
      goto out;
    r->trace_H = 0.0;
    for (guint s = 0; s < T; s++)
      r->trace_H += H[(gsize)s * T + s];
  } else {
    double *e0 = g_new0(double, T);
    e0[0] = 1.0;
    r->trace_H = mf_toeplitz_trace(spectral, e0);
    g_free(e0);
  }
  r->seconds_gram = seconds_since(t);
  if (!checkpoint(opt, MF_MAFALDA_STAGE_GRAM, error))
    goto out;

  double cpu_optimize = 0.0;
  if (opt->skip_dense) {
    t = g_get_monotonic_time();
    ok = score_fixed(&wk, NULL, error);
    r->seconds_baselines = seconds_since(t);
  } else {
    ok = optimize_all(&wk, H, opt, &maf, &cpu_optimize, error);
  }
  ok = ok && checkpoint(opt, MF_MAFALDA_STAGE_OPTIMIZED, error);
  if (ok && maf) {
    t = g_get_monotonic_time();
    double cpu = thread_cpu();
    r->iterations = maf->iterations;
    r->n_objective_history = maf->n_history;
    r->objective_history = g_steal_pointer(&maf->history);
    r->loss[MF_MAFALDA_MAFALDA] = mf_loss(H, maf->C, T, r->k, r->b, error);
    r->sensitivity[MF_MAFALDA_MAFALDA] = sqrt(mf_sensitivity2(maf->C, T, r->k, r->b));
    r->seconds_baselines += seconds_since(t); /* scoring Mafalda too */
    r->cpu_seconds[MF_MAFALDA_MAFALDA] = cpu_optimize + thread_cpu() - cpu;
    ok = !isnan(r->loss[MF_MAFALDA_MAFALDA]);
  }
  if (ok && spectral && opt->workload == MF_WORKLOAD_POST_AVERAGE &&
      asked(&wk, MF_MAFALDA_TOEPLITZ)) {
    t = g_get_monotonic_time();
    ok = fit_toeplitz(r, spectral, error) && checkpoint(opt, MF_MAFALDA_STAGE_TOEPLITZ, error);
    r->seconds_baselines += seconds_since(t);
  }
  if (ok && spectral && opt->workload == MF_WORKLOAD_POST_AVERAGE && r->blt_buffers > 0 &&
      asked(&wk, MF_MAFALDA_BLT)) {
    t = g_get_monotonic_time();
    ok = fit_blt(r, spectral, error) && checkpoint(opt, MF_MAFALDA_STAGE_BLT, error);
    r->seconds_baselines += seconds_since(t);
  }
  if (ok && maf)
    r->C = g_steal_pointer(&maf->C);
out:
  mf_result_free(maf);
  mf_gram_spectral_free(spectral);
  g_free(H);
  if (ok)
    *report = r;
  else
    mf_mafalda_report_free(r);
  return ok;
}
