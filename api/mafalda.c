/*
 * api/mafalda.c: dpg_mafalda, `dpgossip mafalda` as a table: the strategies'
 * losses and sensitivities and Mafalda's C_local as a matrix. The same
 * computation as the command's (Mafalda on a second thread beside DMF and
 * the fixed baselines), without its timings.
 */
#include <math.h>

#include "api/internal.h"
#include "privacy/privacy.h"

enum { S_MAFALDA, S_DPDSGD, S_ANTIPGD, S_SR, S_BSR, S_DMF, S_TOEPLITZ, S_COUNT };
static const char *const strategy_keys[S_COUNT] = {"mafalda", "dp-d-sgd", "antipgd", "sr",
                                                   "bsr",     "dmf",      "toeplitz"};

typedef struct {
  guint n, T, k, b, band, toeplitz_band;
  double loss[S_COUNT], sens[S_COUNT];
  const PrivGramSpectral *spectral; /* NULL: W not reversible, dense scoring */
} Scores;

size_t dpg_mafalda_options_size(void) {
  return sizeof(DpgMafaldaOptions);
}

/* As `dpgossip mafalda` scores a Toeplitz baseline (cli/cmd_mafalda.c): from
 * the spectral form of H and C's first column when W is reversible, else on
 * the dense H and C; the same arithmetic, so the same bits. */
static gboolean score(const double *H, PrivBaseline which, guint band, Scores *r, int slot,
                      GError **error) {
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
  return !isnan(r->loss[slot]);
}

/* The banded Toeplitz strategy fitted to this graph, as the command does. */
static gboolean fit_toeplitz(const double *W, Scores *r, GError **error) {
  double *c = g_new(double, r->toeplitz_band);
  gboolean ok = priv_mafalda_toeplitz(W, r->n, r->k, r->b, r->toeplitz_band, c,
                                      &r->loss[S_TOEPLITZ], error);
  if (ok)
    r->sens[S_TOEPLITZ] = sqrt(
        priv_mf_sensitivity2_toeplitz(c, r->toeplitz_band, r->T, r->k, r->b));
  g_free(c);
  return ok;
}

typedef struct {
  const double *H;
  guint T, k, b;
  PrivMfOptions opt;
  PrivMfResult *result;
  GError *error;
  gboolean ok;
} OptimizeJob;

static gpointer optimize_job(gpointer data) {
  OptimizeJob *job = data;
  job->ok = priv_mf_optimize(job->H, job->T, job->k, job->b, &job->opt, &job->result, &job->error);
  return NULL;
}

static gboolean baselines(const double *H, const PrivMfOptions *opt, Scores *r, GError **error) {
  PrivMfResult *dmf = NULL;
  PrivMfOptions dopt = *opt;
  dopt.ftol = 1e-10; /* as the command: DMF stops once its objective settles */
  double *P = priv_gram_prefix_sum(r->T, error);
  gboolean ok = P && priv_mf_optimize(P, r->T, r->k, r->b, &dopt, &dmf, error);
  if (ok) {
    r->loss[S_DMF] = priv_mf_loss(H, dmf->C, r->T, r->k, r->b, error);
    r->sens[S_DMF] = sqrt(priv_mf_sensitivity2(dmf->C, r->T, r->k, r->b));
    ok = !isnan(r->loss[S_DMF]);
  }
  ok = ok && score(H, PRIV_BASELINE_IDENTITY, 0, r, S_DPDSGD, error) &&
       score(H, PRIV_BASELINE_ANTIPGD, 0, r, S_ANTIPGD, error) &&
       score(H, PRIV_BASELINE_SR, 0, r, S_SR, error) &&
       score(H, PRIV_BASELINE_BSR, r->b, r, S_BSR, error);
  priv_mf_result_free(dmf);
  g_free(P);
  return ok;
}

DpgTable *dpg_mafalda(const DpgMafaldaOptions *o, DpgError *err) {
  dpg_enter();
  GError *error = NULL;
  if (o->epochs <= 0 || o->batches <= 0)
    return dpg_usage(err,
                     "--epochs and --batches must both be given and positive "
                     "(got k = %d, b = %d)",
                     o->epochs, o->batches);
  if ((guint64)o->epochs * (guint64)o->batches > G_MAXUINT)
    return dpg_usage(err, "T = epochs x batches = %u x %u is too large", (guint)o->epochs,
                     (guint)o->batches);
  Scores r = {.k = (guint)o->epochs, .b = (guint)o->batches};
  r.T = r.k * r.b;
  for (int i = 0; i < S_COUNT; i++)
    r.loss[i] = r.sens[i] = NAN;
  r.toeplitz_band = r.b; /* the command's default (--toeplitz-band 0) */
  if (o->band != -1 && (o->band < 1 || (guint)o->band > r.T))
    return dpg_usage(err, "--band: infeasible band %d: it must be between 1 and T = %u", o->band,
                     r.T);
  r.band = o->band == -1 ? 0 : (guint)o->band;
  PrivWorkload workload = PRIV_WORKLOAD_POST_AVERAGE;
  if (o->workload && !priv_workload_parse(o->workload, &workload, &error))
    return dpg_fail(err, error, 2);
  TopoGossipKind gossip;
  if (!dpg_graph_gossip(&o->graph, &gossip, &error))
    return dpg_fail(err, error, 2);
  if (!priv_mf_check_memory(r.T, 16, 0, &error))
    return dpg_fail(err, error, 1);
  TopoGraph *g = dpg_graph_build(&o->graph, &error);
  if (!g)
    return dpg_fail(err, error, dpg_graph_status(&o->graph, error));
  guint n = topo_graph_n_nodes(g);
  r.n = n;
  if (!topo_graph_is_connected(g)) {
    topo_graph_free(g);
    error = g_error_new(TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                        "the graph is not connected (%u nodes): gossip cannot mix across "
                        "components; keep the largest one with --lcc",
                        n);
    return dpg_fail(err, error, 1);
  }
  DpgTable *t = NULL;
  double *W = NULL, *H = NULL;
  PrivMfResult *maf = NULL;
  PrivGramSpectral *spectral = NULL;
  TopoGossip *w = NULL;
  OptimizeJob job = {.T = r.T, .k = r.k, .b = r.b};
  gboolean ok = priv_gram_check_memory(n, r.T, 0, &error) &&
                (w = topo_gossip_new(g, gossip, &error)) != NULL && dpg_check_cancel(&error);
  if (ok) {
    W = topo_gossip_dense(w);
    GError *sub = NULL; /* no spectral form (W not reversible): dense scoring */
    r.spectral = spectral = priv_gram_spectral_new(W, n, r.T, workload, &sub);
    g_clear_error(&sub);
    H = priv_gram_static(W, n, r.T, workload, PRIV_GRAM_AUTO, 0, &error);
    ok = H != NULL && dpg_check_cancel(&error);
  }
  double trace_H = 0.0;
  if (ok) {
    for (guint s = 0; s < r.T; s++)
      trace_H += H[(gsize)s * r.T + s];
    /* Mafalda and DMF are independent problems of the same size: Mafalda
     * on a second thread while this one runs DMF and the baselines. */
    job.H = H;
    priv_mf_options_init(&job.opt);
    job.opt.band = r.band;
    job.opt.cancel = dpg_cancel_flag(); /* both optimizers (Mafalda, DMF) stop on Ctrl-C */
    GThread *thread = g_thread_try_new("mafalda", optimize_job, &job, NULL);
    if (!thread)
      optimize_job(&job);
    GError *base_error = NULL;
    gboolean base_ok = baselines(H, &job.opt, &r, &base_error);
    if (thread)
      g_thread_join(thread);
    maf = job.result;
    if (!job.ok) {
      g_propagate_error(&error, job.error);
      g_clear_error(&base_error);
      ok = FALSE;
    } else if (!base_ok) {
      g_propagate_error(&error, base_error);
      ok = FALSE;
    }
  }
  ok = ok && dpg_check_cancel(&error);
  if (ok) {
    r.loss[S_MAFALDA] = priv_mf_loss(H, maf->C, r.T, r.k, r.b, &error);
    r.sens[S_MAFALDA] = sqrt(priv_mf_sensitivity2(maf->C, r.T, r.k, r.b));
    ok = !isnan(r.loss[S_MAFALDA]);
  }
  if (ok && spectral && workload == PRIV_WORKLOAD_POST_AVERAGE)
    ok = fit_toeplitz(W, &r, &error) && dpg_check_cancel(&error);
  if (!ok) {
    dpg_fail(err, error, 1);
  } else {
    t = dpg_table_new();
    guint cs = dpg_table_add_col(t, "strategy", DPG_COL_STRING);
    guint cl = dpg_table_add_col(t, "loss", DPG_COL_DOUBLE);
    guint cn = dpg_table_add_col(t, "sensitivity", DPG_COL_DOUBLE);
    for (int i = 0; i < S_COUNT; i++) {
      dpg_table_push_string(t, cs, strategy_keys[i]);
      dpg_table_push_double(t, cl, r.loss[i]);
      dpg_table_push_double(t, cn, r.sens[i]);
      dpg_table_end_row(t);
    }
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    dpg_table_set_attr_printf(t, "nodes", "%u", n);
    dpg_table_set_attr(t, "gossip", topo_gossip_kind_name(gossip));
    dpg_table_set_attr(t, "workload", priv_workload_name(workload));
    dpg_table_set_attr_printf(t, "rounds", "%u", r.T);
    dpg_table_set_attr_printf(t, "epochs", "%u", r.k);
    dpg_table_set_attr_printf(t, "batches", "%u", r.b);
    if (r.band)
      dpg_table_set_attr_printf(t, "band", "%u", r.band);
    dpg_table_set_attr(t, "trace_H", g_ascii_dtostr(buf, sizeof buf, trace_H));
    dpg_table_set_attr_printf(t, "iterations", "%u", maf->iterations);
    dpg_table_take_matrix(t, g_steal_pointer(&maf->C), r.T, r.T);
  }
  priv_mf_result_free(maf);
  g_free(H);
  priv_gram_spectral_free(spectral);
  g_free(W);
  topo_gossip_free(w);
  topo_graph_free(g);
  return t;
}
