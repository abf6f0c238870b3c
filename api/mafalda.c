/*
 * api/mafalda.c: dpg_mafalda, `dpgossip mafalda` as a table: the strategies'
 * losses and sensitivities and Mafalda's C_local as a matrix, from the same
 * computation as the command's (mf_mafalda_report), without its timings.
 */
#include <math.h>

#include "api/internal.h"
#include "mf/mf.h"
#include "privacy/privacy.h"

size_t dpg_mafalda_options_size(void) {
  return sizeof(DpgMafaldaOptions);
}

/* Ctrl-C between two stages (the optimizers poll the flag themselves). */
static gboolean check_cancel(MfMafaldaStage stage, gpointer data, GError **error) {
  (void)stage;
  (void)data;
  return dpg_check_cancel(error);
}

static DpgTable *to_table(MfMafaldaReport *r, TopoGossipKind gossip, MfWorkload workload) {
  DpgTable *t = dpg_table_new();
  guint cs = dpg_table_add_col(t, "strategy", DPG_COL_STRING);
  guint cl = dpg_table_add_col(t, "loss", DPG_COL_DOUBLE);
  guint cn = dpg_table_add_col(t, "sensitivity", DPG_COL_DOUBLE);
  for (int i = 0; i < MF_MAFALDA_N_STRATEGIES; i++) {
    dpg_table_push_string(t, cs, mf_mafalda_strategy_name(i));
    dpg_table_push_double(t, cl, r->loss[i]);
    dpg_table_push_double(t, cn, r->sensitivity[i]);
    dpg_table_end_row(t);
  }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  dpg_table_set_attr_printf(t, "nodes", "%u", r->n);
  dpg_table_set_attr(t, "gossip", topo_gossip_kind_name(gossip));
  dpg_table_set_attr(t, "workload", mf_workload_name(workload));
  dpg_table_set_attr_printf(t, "rounds", "%u", r->T);
  dpg_table_set_attr_printf(t, "epochs", "%u", r->k);
  dpg_table_set_attr_printf(t, "batches", "%u", r->b);
  if (r->band)
    dpg_table_set_attr_printf(t, "band", "%u", r->band);
  dpg_table_set_attr(t, "trace_H", g_ascii_dtostr(buf, sizeof buf, r->trace_H));
  dpg_table_set_attr_printf(t, "iterations", "%u", r->iterations);
  dpg_table_take_matrix(t, g_steal_pointer(&r->C), r->T, r->T);
  return t;
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
  MfMafaldaReportOptions opt;
  mf_mafalda_report_options_init(&opt);
  opt.k = (guint)o->epochs;
  opt.b = (guint)o->batches;
  guint T = opt.k * opt.b;
  if (o->band != -1 && (o->band < 1 || (guint)o->band > T))
    return dpg_usage(err, "--band: infeasible band %d: it must be between 1 and T = %u", o->band,
                     T);
  opt.band = o->band == -1 ? 0 : (guint)o->band;
  if (o->workload && !mf_workload_parse(o->workload, &opt.workload, &error))
    return dpg_fail(err, error, 2);
  TopoGossipKind gossip;
  if (!dpg_graph_gossip(&o->graph, &gossip, &error))
    return dpg_fail(err, error, 2);
  if (!mf_check_memory_band(T, opt.b, opt.band, 16, 0, &error))
    return dpg_fail(err, error, 1);
  TopoGraph *g = dpg_graph_build(&o->graph, &error);
  if (!g)
    return dpg_fail(err, error, dpg_graph_status(&o->graph, error));
  guint n = topo_graph_n_nodes(g);
  if (!topo_graph_is_connected(g)) {
    topo_graph_free(g);
    error = g_error_new(TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                        "the graph is not connected (%u nodes): gossip cannot mix across "
                        "components; keep the largest one with --lcc",
                        n);
    return dpg_fail(err, error, 1);
  }
  DpgTable *t = NULL;
  double *W = NULL;
  MfMafaldaReport *r = NULL;
  TopoGossip *w = NULL;
  opt.cancel = dpg_cancel_flag(); /* both optimizers (Mafalda, DMF) stop on Ctrl-C */
  opt.checkpoint = check_cancel;
  if (mf_gram_check_memory(n, T, 0, &error) && (w = topo_gossip_new(g, gossip, &error)) != NULL &&
      dpg_check_cancel(&error) && mf_mafalda_report(W = topo_gossip_dense(w), n, &opt, &r, &error))
    t = to_table(r, gossip, opt.workload);
  else
    dpg_fail(err, error, 1);
  mf_mafalda_report_free(r);
  g_free(W);
  topo_gossip_free(w);
  topo_graph_free(g);
  return t;
}
