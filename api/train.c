/*
 * api/train.c: dpg_train, `dpgossip train` as three tables: the same checks
 * and messages, the same run, the same privacy accounting (the structured
 * path when proto_account_plan says it describes the run exactly, else an
 * observer on the training run itself), the same numbers. Like
 * api/account.c it calls the modules' API, not the command line's code;
 * tests/python compares both outputs.
 */
#include <math.h>
#include <string.h>

#include "api/internal.h"
#include "learning/learning.h"
#include "privacy/privacy.h"
#include "protocols/protocols.h"
#include "scenarios/scenarios.h"
#include "spec/spec.h"

void dpg_train_options_init(DpgTrainOptions *o) {
  *o = (DpgTrainOptions){.epochs = 1,
                         .batches = 1,
                         .lr = 0.1,
                         .sigma = NAN,
                         .clip = 1.0,
                         .test_fraction = LEARN_DEFAULT_TEST_FRACTION,
                         .threads = 1,
                         .alpha = 2.0,
                         .delta = 1e-6,
                         .eval_nodes = 0,
                         .eval_rows = 0};
}

size_t dpg_train_options_size(void) {
  return sizeof(DpgTrainOptions);
}

typedef struct {
  const DpgTrainOptions *o;
  const DpgTask *task;        /* NULL: the options' dataset and model */
  ProtoExternalTask external; /* @task as the runtime takes it */
  ProtoTrainOptions run; /* as proto_train_validate resolved it */
  guint T, n;
  TopoGraph *g;
  TopoSchedule *sched;
  ProtoAccountJob *privacy; /* NULL: trust "none", nothing accounted */
  ProtoRunStats stats;
  guint64 progress_done; /* the last count told DpgTrainOptions.progress */
  gboolean progress_end; /* the phase after the last step told */
} Job;

/* --eval-nodes or --eval-rows of @v: 0 the default, DPG_EVAL_ALL every
 * one, else a positive count; the command line's message for the rest. */
static gboolean eval_count(const char *option, int v, guint *out, DpgError *err) {
  *out = v == DPG_EVAL_ALL ? PROTO_EVAL_ALL : (guint)v;
  if (v >= 0 || v == DPG_EVAL_ALL)
    return TRUE;
  dpg_usage(err, "%s: '%d' is neither a positive integer below 2^32 - 1 nor all", option, v);
  return FALSE;
}

/* The checks of cli_cmd_train before the graph, in its order and words. */
static gboolean check_options(Job *j, DpgError *err) {
  const DpgTrainOptions *o = j->o;
  GError *error = NULL;
  if (j->task != NULL && (o->dataset != NULL || o->model != NULL))
    return dpg_usage(err, "a task of the caller's takes no dataset or model option"), FALSE;
  if (j->task == NULL && o->dataset == NULL)
    return dpg_usage(err, "--dataset is required"), FALSE;
  if (j->task != NULL && j->task->partition_offsets != NULL && o->partition != NULL)
    return dpg_usage(err, "a partition rule (%s) and the task's partition lists: give one",
                     o->partition),
           FALSE;
  j->run = (ProtoTrainOptions){.protocol = o->protocol,
                               .epochs = o->epochs,
                               .batches = o->batches,
                               .eval_every = o->eval_every,
                               .threads = o->threads,
                               .seed = o->seed,
                               .sigma = o->sigma,
                               .clip = o->clip,
                               .lr = o->lr,
                               .mode = o->mode,
                               .latency = o->latency,
                               .loss = o->loss,
                               .task = {.dataset = o->dataset,
                                        .model = o->model,
                                        .partition = o->partition,
                                        .test_fraction = o->test_fraction,
                                        .compute_ms = o->compute_ms},
                               .schedule = o->schedule,
                               .trust = o->trust,
                               .attackers = o->attackers,
                               .alpha = o->alpha,
                               .delta = o->delta};
  if (!eval_count("--eval-nodes", o->eval_nodes, &j->run.task.eval_nodes, err) ||
      !eval_count("--eval-rows", o->eval_rows, &j->run.task.eval_rows, err))
    return FALSE;
  ProtoAccountRefusal refusal;
  if (!proto_train_validate(&j->run, &refusal, &error))
    return dpg_fail(err, error, proto_refusal_status(error, refusal)), FALSE;
  if (!dpg_graph_gossip(&o->graph, &j->run.gossip, &error))
    return dpg_fail(err, error, 2), FALSE;
  j->T = (guint)(o->epochs * o->batches);
  return TRUE;
}

/* The caller's DpgTrainOptions.progress told @phase (no count). */
static void phase(const Job *j, const char *what) {
  if (j->o->progress != NULL)
    j->o->progress(what, 0, 0, j->o->progress_data);
}

/* The runtime's progress (each percent of the node steps, and 1 again
 * at the end) as steps of T, as `dpgossip train` prints it
 * (cli/cmd_train.c's on_progress); each count told once, so that a caller
 * in another language is not called a hundred times for T = 2. */
static void run_progress(double fraction, gpointer data) {
  Job *j = data;
  guint64 done = (guint64)llround(fraction * j->T);
  if (done != j->progress_done) {
    j->progress_done = done;
    j->o->progress("steps", done, j->T, j->o->progress_data);
  }
  /* The count reaches T before the last node's step (rounding). */
  if (fraction >= 1 && !j->progress_end) {
    j->progress_end = TRUE;
    phase(j, "after the last step: evaluation and privacy accounting");
  }
}

/* The caller's gradient (DpgTask.gradient), checked finite: a NaN would
 * spread through the gossip to every node without a word. O(d). */
static gboolean task_gradient(guint node, guint t, const double *params, const gsize *batch,
                              gsize count, double *g, gsize d, gpointer data, GError **error) {
  const Job *j = data;
  if (j->task->gradient(node, t, params, batch, count, j->run.clip, g, d, j->task->user_data) !=
      0) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "the gradient of node %u at step %u failed",
                node, t);
    return FALSE;
  }
  for (gsize i = 0; i < d; i++)
    if (!isfinite(g[i])) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                  "the gradient of node %u at step %u is not finite (parameter %" G_GSIZE_FORMAT
                  " is %g)",
                  node, t, i, g[i]);
      return FALSE;
    }
  return TRUE;
}

static void task_evaluate(guint node, guint step, const double *params, gsize d,
                          const gsize *train_rows, gsize n_train_rows, const gsize *test_rows,
                          gsize n_test_rows, double *train_loss, double *test_loss,
                          double *test_accuracy, gpointer data) {
  const Job *j = data;
  double out[3] = {NAN, NAN, NAN};
  j->task->evaluate(node, step, params, d, train_rows, n_train_rows, test_rows, n_test_rows, out,
                    j->task->user_data);
  *train_loss = out[0];
  *test_loss = out[1];
  *test_accuracy = out[2];
}

/* The per-victim reports, from the structured path or from @run's views. */
static gboolean account(Job *j, ProtoObservedRun *run, GError **error) {
  if (j->privacy == NULL || proto_account_job_execute_observed(j->privacy, run, error))
    return TRUE;
  if (!g_error_matches(*error, PROTO_ERROR, PROTO_ERROR_CANCELLED))
    g_prefix_error(error, "privacy accounting: ");
  return FALSE;
}

/* The metrics (SCEN_METRICS_CSV_COLUMNS) and their means per round
 * (SCEN_METRICS_MEAN_CSV_COLUMNS), typed; the means summed in node order as
 * scen_metrics_csv_rows sums them. */
static DpgTable *metrics_tables(const Job *j, const ProtoMetric *rows, gsize n_rows,
                                DpgTable **means) {
  DpgTable *t = dpg_table_new(), *m = dpg_table_new();
  guint c_round = dpg_table_add_col(t, "round", DPG_COL_INT);
  /* The node as privacy's victim column names it: its label (a string)
   * on a labelled graph, else its id. */
  gboolean labelled = topo_graph_has_labels(j->g);
  guint c_node = dpg_table_add_col(t, "node", labelled ? DPG_COL_STRING : DPG_COL_INT);
  guint c_v[3] = {dpg_table_add_col(t, "train_loss", DPG_COL_DOUBLE),
                  dpg_table_add_col(t, "test_loss", DPG_COL_DOUBLE),
                  dpg_table_add_col(t, "test_accuracy", DPG_COL_DOUBLE)};
  guint c_seed = dpg_table_add_col(t, "seed", DPG_COL_INT);
  guint m_round = dpg_table_add_col(m, "round", DPG_COL_INT);
  guint m_v[3] = {dpg_table_add_col(m, "train_loss", DPG_COL_DOUBLE),
                  dpg_table_add_col(m, "test_loss", DPG_COL_DOUBLE),
                  dpg_table_add_col(m, "test_accuracy", DPG_COL_DOUBLE)};
  guint m_seed = dpg_table_add_col(m, "seed", DPG_COL_INT);
  for (gsize i = 0; i < n_rows;) {
    guint step = rows[i].step, n = 0;
    double sum[3] = {0, 0, 0};
    for (; i < n_rows && rows[i].step == step; i++, n++) {
      const double v[3] = {rows[i].train_loss, rows[i].test_loss, rows[i].test_accuracy};
      dpg_table_push_int(t, c_round, step);
      if (labelled)
        dpg_table_push_string(t, c_node, topo_graph_node_label(j->g, rows[i].node));
      else
        dpg_table_push_int(t, c_node, rows[i].node);
      for (guint c = 0; c < 3; c++) {
        dpg_table_push_double(t, c_v[c], v[c]);
        sum[c] += v[c];
      }
      dpg_table_push_int(t, c_seed, (gint64)j->run.seed_value);
      dpg_table_end_row(t);
    }
    dpg_table_push_int(m, m_round, step);
    for (guint c = 0; c < 3; c++)
      dpg_table_push_double(m, m_v[c], sum[c] / n);
    dpg_table_push_int(m, m_seed, (gint64)j->run.seed_value);
    dpg_table_end_row(m);
  }
  *means = m;
  return t;
}

/* One privacy row of victim @v (the columns of dpg_account's table). */
static void privacy_row(DpgTable *t, const guint *c, const char *label, PrivTrust trust,
                        const PrivVictim *v, gboolean all, const PrivReport *r, const Job *j) {
  dpg_table_push_string(t, c[0], label);
  dpg_table_push_string(t, c[1], priv_trust_name(trust));
  const char *name = topo_graph_node_label(j->privacy->graph, v->node);
  if (name != NULL)
    dpg_table_push_string(t, c[2], name);
  else
    dpg_table_push_int(t, c[2], v->node);
  dpg_table_push_int(t, c[3], v->distance >= 0 && !all ? v->distance : G_MININT64);
  const double cells[] = {v->sensitivity, v->mu, v->rdp, v->epsilon, NAN};
  for (guint k = 0; k < G_N_ELEMENTS(cells); k++)
    dpg_table_push_double(t, c[4 + k], cells[k]);
  dpg_table_push_string(t, c[9], scen_privacy_victim_status(v));
  dpg_table_push_string(t, c[10], label);
  dpg_table_push_double(t, c[11], r->alpha);
  dpg_table_push_double(t, c[12], r->delta);
  dpg_table_push_string(t, c[13], proto_account_job_path_name(j->privacy));
  dpg_table_push_int(t, c[14], (gint64)j->run.seed_value);
  dpg_table_push_double(t, c[15], v->mu_lower);
  dpg_table_push_string(t, c[16], proto_account_job_bound_name(j->privacy, v));
  dpg_table_end_row(t);
}

/* The privacy table (SCEN_PRIVACY_CSV_COLUMNS), the rows `train` writes to
 * FILE_privacy.csv: per accounting, its victims in node order; every node
 * under LDP without attackers (no set, no distance: missing). */
static DpgTable *privacy_table(const Job *j) {
  static const char *const names[] = {
      "collusion", "trust",   "victim",        "distance", "sensitivity", "mu",
      "rdp",       "epsilon", "muffliato_rdp", "status",   "attackers",   "alpha",
      "delta",     "path",    "seed",          "mu_lower", "bound"};
  DpgColType types[] = {DPG_COL_STRING, DPG_COL_STRING, DPG_COL_INT,    DPG_COL_INT,
                        DPG_COL_DOUBLE, DPG_COL_DOUBLE, DPG_COL_DOUBLE, DPG_COL_DOUBLE,
                        DPG_COL_DOUBLE, DPG_COL_STRING, DPG_COL_STRING, DPG_COL_DOUBLE,
                        DPG_COL_DOUBLE, DPG_COL_STRING, DPG_COL_INT,    DPG_COL_DOUBLE,
                        DPG_COL_STRING};
  G_STATIC_ASSERT(G_N_ELEMENTS(names) == G_N_ELEMENTS(types));
  /* A labelled graph's victims go by their labels, strings. */
  if (j->privacy != NULL && topo_graph_has_labels(j->privacy->graph))
    types[2] = DPG_COL_STRING;
  DpgTable *t = dpg_table_new();
  guint c[G_N_ELEMENTS(names)];
  for (guint k = 0; k < G_N_ELEMENTS(names); k++)
    c[k] = dpg_table_add_col(t, names[k], types[k]);
  for (guint i = 0; j->privacy != NULL && i < j->privacy->n_acs; i++) {
    const ProtoAccounting *a = &j->privacy->acs[i];
    gboolean all = j->privacy->every_node;
    char *label = all ? NULL
                      : topo_graph_attackers_label(j->privacy->graph, &j->privacy->sets, a->set);
    for (guint v = 0; v < a->report->n_victims; v++)
      privacy_row(t, c, label, a->trust, &a->report->victims[v], all, a->report, j);
    g_free(label);
  }
  return t;
}

/* What the summary line of the command says, as attributes. */
static void set_attrs(DpgTable *t, const Job *j) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  const DpgTrainOptions *o = j->o;
  dpg_table_set_attr(t, "protocol", j->run.nonprivate ? PROTO_NONPRIVATE : j->run.protocol);
  dpg_table_set_attr_printf(t, "nodes", "%u", j->n);
  dpg_table_set_attr_printf(t, "rounds", "%u", j->T);
  dpg_table_set_attr_printf(t, "epochs", "%d", o->epochs);
  dpg_table_set_attr_printf(t, "batches", "%d", o->batches);
  dpg_table_set_attr(t, "gossip", topo_gossip_kind_name(j->run.gossip));
  dpg_table_set_attr(t, "schedule", o->schedule ? o->schedule : "static");
  dpg_table_set_attr(t, "mode", o->mode ? o->mode : "sync");
  dpg_table_set_attr(t, "sigma", g_ascii_dtostr(buf, sizeof buf, j->run.sigma));
  dpg_table_set_attr(t, "clip", g_ascii_dtostr(buf, sizeof buf, o->clip));
  dpg_table_set_attr(t, "lr", g_ascii_dtostr(buf, sizeof buf, o->lr));
  dpg_table_set_attr_printf(t, "seed", "%" G_GUINT64_FORMAT, j->run.seed_value);
  dpg_table_set_attr(t, "path",
                     j->privacy == NULL ? "none" : proto_account_job_path_name(j->privacy));
  dpg_table_set_attr(t, "sim_time_s",
                     g_ascii_dtostr(buf, sizeof buf, j->stats.sim_time / (double)SIM_TIME_S));
  dpg_table_set_attr_printf(t, "messages_sent", "%" G_GUINT64_FORMAT,
                            j->stats.engine.messages_sent);
  dpg_table_set_attr_printf(t, "messages_delivered", "%" G_GUINT64_FORMAT,
                            j->stats.engine.messages_delivered);
  dpg_table_set_attr_printf(t, "messages_dropped", "%" G_GUINT64_FORMAT,
                            j->stats.engine.messages_dropped);
}

static DpgTable *train(const DpgTrainOptions *o, const DpgTask *task, DpgTable **means,
                       DpgTable **privacy, DpgError *err) {
  Job j = {.o = o, .task = task, .progress_done = G_MAXUINT64};
  GError *error = NULL;
  ProtoObservedRun *run = NULL;
  LearnPartition *lists = NULL; /* the caller's partition lists, dealt once */
  DpgTable *t = NULL;
  /* The dataset loader's warnings join the privacy table's (Python warns). */
  GString *notes = g_string_new(NULL);
  dpg_warnings_collect(notes);
  if (!dpg_check_cancel(&error)) {
    dpg_fail(err, error, 1);
    goto out;
  }
  if (!check_options(&j, err))
    goto out;
  phase(&j, "building the graph");
  if ((j.g = dpg_graph_build(&o->graph, &error)) == NULL) {
    dpg_fail(err, error, dpg_graph_status(&o->graph, error));
    goto out;
  }
  j.n = topo_graph_n_nodes(j.g);
  phase(&j, "setting up the run (schedule, dataset, models)");
  /* The caller's lists are the caller's input (status 2): dealt and checked
   * here, once, before the run (which would only report a start that
   * failed), and handed to the run as they are. */
  if (task != NULL && task->partition_offsets != NULL &&
      (lists = learn_partition_lists(task->n_train, j.n, o->batches, task->partition_offsets,
                                     task->partition_records, &error)) == NULL) {
    dpg_fail(err, error, 2);
    goto out;
  }
  if (o->schedule != NULL && strcmp(o->schedule, "static") != 0 &&
      (j.sched = topo_schedule_new(o->schedule, j.g, j.run.gossip, j.run.seed_value, &error)) ==
          NULL) {
    dpg_fail(err, error, proto_error_status(error, PROTO_FAILED_INPUT));
    goto out;
  }
  ProtoAccountRequest r;
  proto_train_request(&j.run, &r);
  r.cancel = dpg_cancel_flag();
  r.built_schedule = j.sched;
  gboolean usage = TRUE;
  if ((o->trust == NULL || !g_str_equal(o->trust, "none")) &&
      (j.privacy = proto_account_job_for_run(&r, j.g, &usage, &error)) == NULL) {
    dpg_fail(err, error, usage ? 2 : 1);
    goto out;
  }
  const ProtoObserveOptions *observe = j.privacy ? proto_account_job_observe(j.privacy) : NULL;
  ProtoRunConfig cfg;
  proto_train_run_config(&r, &j.run.task, j.g, j.sched, observe != NULL, &cfg);
  if (task != NULL) {
    j.external = (ProtoExternalTask){.n_train = task->n_train,
                                     .n_test = task->n_test,
                                     .n_classes = task->n_classes,
                                     .train_labels = task->train_labels,
                                     .dim = task->dim,
                                     .init = task->init,
                                     .gradient = task_gradient,
                                     .evaluate = task->evaluate ? task_evaluate : NULL,
                                     .user_data = &j,
                                     .partition = lists};
    cfg.external = &j.external;
  }
  if ((run = proto_observed_run_new(&cfg, observe, &error)) == NULL) {
    if (observe != NULL && g_error_matches(error, PRIV_ERROR, PRIV_ERROR_MEMORY))
      g_prefix_error(&error, "privacy accounting (--trust none skips it): ");
    dpg_fail(err, error, proto_error_status(error, PROTO_FAILED_INPUT));
    goto out;
  }
  ProtoRun *pr = proto_observed_run_proto(run);
  if (o->progress != NULL)
    proto_run_set_progress(pr, run_progress, &j);
  dpg_cancel_register(pr);
  gboolean ok = proto_observed_run_run(run, &error);
  dpg_cancel_unregister(pr);
  if (ok)
    phase(&j, "after the last step: privacy accounting");
  if (!ok || !account(&j, run, &error)) {
    if (g_error_matches(error, PRIV_ERROR, PRIV_ERROR_MEMORY))
      g_prefix_error(&error, "(--trust none skips the accounting) ");
    dpg_fail(err, error, 1);
    goto out;
  }
  proto_run_get_stats(pr, &j.stats);
  gsize n_rows = 0;
  const ProtoMetric *rows = proto_run_metrics(pr, &n_rows);
  t = metrics_tables(&j, rows, n_rows, means);
  *privacy = privacy_table(&j);
  dpg_table_set_warnings(*privacy, notes->str, j.privacy);
  set_attrs(t, &j);
out:
  dpg_warnings_collect(NULL);
  g_string_free(notes, TRUE);
  proto_observed_run_free(run);
  learn_partition_free(lists);
  proto_account_job_free(j.privacy);
  topo_schedule_free(j.sched);
  topo_graph_free(j.g);
  return t;
}

/* train with the plugins of @o loaded and shown, the protocol defaulting
 * to the only plugin's, as the command's --protocol-plugin. */
static DpgTable *train_plugins(const DpgTrainOptions *o, const DpgTask *task, DpgTable **means,
                               DpgTable **privacy, DpgError *err) {
  DpgPlugins plugins;
  if (!dpg_plugins_begin(&plugins, o->plugins, err))
    return NULL;
  DpgTrainOptions with_plugins = *o;
  if (with_plugins.protocol == NULL)
    with_plugins.protocol = plugins.single;
  DpgTable *t = train(&with_plugins, task, means, privacy, err);
  dpg_plugins_end(&plugins);
  return t;
}

DpgTable *dpg_train(const DpgTrainOptions *o, DpgTable **means, DpgTable **privacy, DpgError *err) {
  dpg_enter();
  if (means != NULL)
    *means = NULL;
  if (privacy != NULL)
    *privacy = NULL;
  if (o == NULL || means == NULL || privacy == NULL)
    return dpg_usage(err, "dpg_train: options and both out tables are required");
  return train_plugins(o, NULL, means, privacy, err);
}

DpgTable *dpg_train_task(const DpgTrainOptions *o, const DpgTask *task, DpgTable **means,
                         DpgTable **privacy, DpgError *err) {
  dpg_enter();
  if (means != NULL)
    *means = NULL;
  if (privacy != NULL)
    *privacy = NULL;
  if (o == NULL || task == NULL || means == NULL || privacy == NULL)
    return dpg_usage(err, "dpg_train_task: options, task and both out tables are required");
  if (task->gradient == NULL || task->init == NULL || task->dim == 0)
    return dpg_usage(err, "dpg_train_task: the task needs a gradient, an initial model and "
                          "at least one parameter");
  if (task->n_test == 0)
    return dpg_usage(err, "dpg_train_task: the test loss needs test records (n_test is 0)");
  return train_plugins(o, task, means, privacy, err);
}

/* @ds as a table: its targets as a column, its features as the matrix. */
static DpgTable *records_table(const LearnDataset *ds) {
  DpgTable *t = dpg_table_new();
  guint c = dpg_table_add_col(t, "target", DPG_COL_DOUBLE);
  for (gsize i = 0; i < ds->n; i++) {
    dpg_table_push_double(t, c, ds->targets[i]);
    dpg_table_end_row(t);
  }
  gsize cells = ds->n * ds->n_features;
  dpg_table_take_matrix(t,
                        cells ? g_memdup2(ds->features, cells * sizeof(double)) : g_new(double, 1),
                        (guint)ds->n, (guint)ds->n_features);
  dpg_table_set_attr_printf(t, "n_classes", "%u", ds->n_classes);
  return t;
}

DpgTable *dpg_task_data(const char *dataset, const char *model, double test_fraction,
                        const char *seed, DpgTable **test, DpgTable **init, DpgError *err) {
  dpg_enter();
  if (test != NULL)
    *test = NULL;
  if (init != NULL)
    *init = NULL;
  if (dataset == NULL || test == NULL || init == NULL)
    return dpg_usage(err, "dpg_task_data: a dataset and both out tables are required");
  guint64 seed_value = 0;
  if (seed != NULL && !g_ascii_string_to_unsigned(seed, 10, 0, G_MAXUINT64, &seed_value, NULL))
    return dpg_usage(err, "--seed: '%s' is not an integer in [0, 2^64 - 1]", seed);
  if (test_fraction == 0)
    test_fraction = LEARN_DEFAULT_TEST_FRACTION;
  if (!(test_fraction > 0.0 && test_fraction < 1.0))
    return dpg_usage(err,
                     "--test-fraction must be in (0, 1) (got %g): the test loss needs test "
                     "records",
                     test_fraction);
  LearnDataset *train = NULL, *tst = NULL;
  double *params = NULL;
  gsize dim = 0;
  GError *error = NULL;
  if (!proto_task_data(dataset, model, test_fraction, seed_value, &train, &tst, &params, &dim,
                       &error))
    return dpg_fail(err, error, proto_error_status(error, PROTO_FAILED_INPUT));
  DpgTable *t = records_table(train);
  *test = records_table(tst);
  *init = dpg_table_new();
  guint c = dpg_table_add_col(*init, "param", DPG_COL_DOUBLE);
  for (gsize i = 0; i < dim; i++) {
    dpg_table_push_double(*init, c, params[i]);
    dpg_table_end_row(*init);
  }
  g_free(params);
  learn_dataset_free(train);
  learn_dataset_free(tst);
  return t;
}
