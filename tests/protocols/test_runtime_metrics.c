/*
 * tests/protocols/test_runtime_metrics.c: the runtime's round events and the
 * metrics it hands out while a run goes on (proto_run_set_metrics_func).
 *
 *   - round numbering (docs/events.md: "rounds completed: 0 is the initial
 *     state, T the last"): on a 6-node ring with 1 ms links, D-SGD's round
 *     R comes at R ms, Muffliato's (K = 3 gossip rounds per step) at 3R ms;
 *     rounds 0..T, one each, round 0 before any message;
 *   - the moment of each metrics call: step s right after round s + lag, at
 *     that round's time, or after the simulation (at its final time) when
 *     s + lag > T; every evaluation step once, in order, with the rows
 *     proto_run_metrics gives afterwards; for lags 0, 1, 3 and 20, in sync,
 *     stale and deadline modes, D-SGD, Muffliato and Zip-DL;
 *   - the log of round events and metrics calls (times, values to the bit)
 *     is identical with 1 and 3 evaluation threads;
 *   - a failing callback stops the run with its error (or one naming the
 *     step when it sets none), live or in the final flush, and is not
 *     called again; runs without a task never call it.
 */
#include "proto_test.h"

#define VIEWER_ERROR (g_quark_from_static_string("test-viewer-error"))

typedef enum { ENTRY_ROUND, ENTRY_METRICS, ENTRY_SENT } EntryKind;

typedef struct {
  EntryKind kind;
  guint value; /* round, or step */
  SimTime t;
} Entry;

typedef struct {
  ProtoRun *run;
  GArray *entries; /* Entry, in the order things happened */
  GString *text;   /* the same with the rows' bits: compared across thread counts */
  GPtrArray *rows; /* ProtoMetric copies, one array per call */
  guint fail_at;   /* step at which the callback fails (G_MAXUINT: never) */
  gboolean set_error;
  gboolean first_sent_logged;
} Log;

static void on_bus(const SimBusEvent *ev, gpointer data) {
  Log *log = data;
  if (ev->kind == SIM_BUS_ROUND) {
    Entry e = {ENTRY_ROUND, ev->round, ev->time};
    g_assert_cmpuint(ev->seq, ==, ev->round);
    g_array_append_val(log->entries, e);
    g_string_append_printf(log->text, "round %u t=%" G_GUINT64_FORMAT "\n", ev->round, ev->time);
  } else if (ev->kind == SIM_BUS_MESSAGE_SENT && !log->first_sent_logged) {
    log->first_sent_logged = TRUE; /* only the first: where round 0 stands */
    Entry e = {ENTRY_SENT, 0, ev->time};
    g_array_append_val(log->entries, e);
  }
}

static gboolean on_metrics(ProtoRun *run, SimTime t, guint step, const ProtoMetric *rows,
                           guint n_nodes, gpointer data, GError **error) {
  Log *log = data;
  g_assert_true(run == log->run);
  g_assert_cmpuint(n_nodes, ==, proto_context_n_nodes(proto_run_context(run)));
  Entry e = {ENTRY_METRICS, step, t};
  g_array_append_val(log->entries, e);
  g_ptr_array_add(log->rows, g_memdup2(rows, n_nodes * sizeof *rows));
  g_string_append_printf(log->text, "metrics %u t=%" G_GUINT64_FORMAT, step, t);
  for (guint u = 0; u < n_nodes; u++) {
    g_assert_cmpuint(rows[u].node, ==, u);
    g_assert_cmpuint(rows[u].step, ==, step);
    g_string_append_printf(log->text, " %a %a", rows[u].train_loss, rows[u].test_loss);
  }
  g_string_append_c(log->text, '\n');
  if (step == log->fail_at) {
    if (log->set_error)
      g_set_error(error, VIEWER_ERROR, 7, "the viewer went away at %u", step);
    return FALSE;
  }
  return TRUE;
}

static Log *log_new(ProtoRun *run, guint lag) {
  Log *log = g_new0(Log, 1);
  log->run = run;
  log->entries = g_array_new(FALSE, FALSE, sizeof(Entry));
  log->text = g_string_new(NULL);
  log->rows = g_ptr_array_new_with_free_func(g_free);
  log->fail_at = G_MAXUINT;
  GError *err = NULL;
  g_assert_cmpuint(
      sim_bus_subscribe(sim_engine_bus(proto_run_engine(run)), on_bus, log, NULL, &err), >, 0);
  g_assert_no_error(err);
  proto_run_set_metrics_func(run, lag, on_metrics, log);
  return log;
}

static void log_free(Log *log) {
  g_array_unref(log->entries);
  g_string_free(log->text, TRUE);
  g_ptr_array_unref(log->rows);
  g_free(log);
}

/* Rounds 0..T, once each, in order, at non-decreasing times; round 0 before
 * the first transmission. Returns the index of each round in the log. */
static guint *check_rounds(const Log *log, guint T) {
  guint *at = g_new(guint, T + 1), next = 0;
  SimTime last = 0;
  gboolean sent = FALSE;
  for (guint i = 0; i < log->entries->len; i++) {
    const Entry *e = &g_array_index(log->entries, Entry, i);
    if (e->kind == ENTRY_SENT)
      sent = TRUE;
    if (e->kind != ENTRY_ROUND)
      continue;
    g_assert_cmpuint(e->value, ==, next);
    g_assert_cmpuint(e->t, >=, last);
    if (next == 0)
      g_assert_false(sent);
    last = e->t;
    at[next++] = i;
  }
  g_assert_cmpuint(next, ==, T + 1);
  return at;
}

static ProtoRun *ring_run(const char *protocol, guint T, GError **err) {
  TopoGraph *g = topo_graph_generate("ring:n=6", err);
  g_assert_no_error(*err);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = protocol;
  cfg.latency = "constant:ms=1";
  cfg.rounds = T;
  cfg.seed = 4;
  ProtoRun *run = proto_run_new(&cfg, err);
  topo_graph_free(g);
  return run;
}

/* Round R at R * (gossip rounds per step) ms: each gossip round takes one
 * link latency. No task: the callback is never called. */
static void rounds_case(const char *protocol, guint T, guint per_step) {
  GError *err = NULL;
  ProtoRun *run = ring_run(protocol, T, &err);
  g_assert_no_error(err);
  Log *log = log_new(run, 0);
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  guint *at = check_rounds(log, T);
  for (guint R = 0; R <= T; R++)
    g_assert_cmpuint(g_array_index(log->entries, Entry, at[R]).t, ==,
                     (SimTime)R * per_step * SIM_TIME_MS);
  g_assert_cmpuint(log->rows->len, ==, 0);
  g_free(at);
  log_free(log);
  proto_run_free(run);
}

static void test_rounds_dsgd(void) {
  rounds_case("dsgd", 5, 1);
}

static void test_rounds_muffliato(void) {
  rounds_case("muffliato:K=3", 4, 3);
}

/* A training run: 12 nodes, T = 12, evaluation every 2 steps. */
static ProtoRun *train_run(const char *protocol, const char *mode, guint threads) {
  ProtoRunConfig cfg;
  train_config(&cfg, threads, 6, SIM_LIN_NONE);
  cfg.protocol = protocol;
  cfg.mode = mode;
  cfg.latency = "uniform:min=1,max=4";
  cfg.epochs = 3;
  cfg.batches = 4;
  cfg.eval_every = 2;
  return run_on_graph(&cfg, TRAIN_GRAPH);
}

/* Runs one case and checks where and what each call was; returns its log text. */
static char *lag_case(const char *protocol, const char *mode, guint threads, guint lag) {
  const guint T = 12, every = 2, n_evals = T / every;
  ProtoRun *run = train_run(protocol, mode, threads);
  Log *log = log_new(run, lag);
  GError *err = NULL;
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
  ProtoRunStats st;
  proto_run_get_stats(run, &st);
  guint *at = check_rounds(log, T);

  gsize n_rows = 0;
  const ProtoMetric *rows = proto_run_metrics(run, &n_rows);
  guint n = proto_context_n_nodes(proto_run_context(run));
  g_assert_cmpuint(n_rows, ==, (gsize)n_evals * n);
  g_assert_cmpuint(log->rows->len, ==, n_evals);
  guint calls = 0;
  for (guint i = 0; i < log->entries->len; i++) {
    const Entry *e = &g_array_index(log->entries, Entry, i);
    if (e->kind != ENTRY_METRICS)
      continue;
    guint step = every * (calls + 1);
    g_assert_cmpuint(e->value, ==, step);
    if (step + lag <= T) {
      /* right after round step + lag (after the calls due there before it) */
      guint r = step + lag, j = i;
      while (g_array_index(log->entries, Entry, j - 1).kind == ENTRY_METRICS)
        j--;
      g_assert_cmpuint(j - 1, ==, at[r]);
      g_assert_cmpuint(e->t, ==, g_array_index(log->entries, Entry, at[r]).t);
    } else {
      g_assert_cmpuint(i, >, at[T]); /* after the simulation */
      g_assert_cmpuint(e->t, ==, st.sim_time);
    }
    g_assert_cmpmem(log->rows->pdata[calls], n * sizeof *rows, rows + (gsize)calls * n,
                    n * sizeof *rows);
    for (guint u = 0; u < n; u++)
      g_assert_true(isfinite(rows[(gsize)calls * n + u].test_loss));
    calls++;
  }
  g_assert_cmpuint(calls, ==, n_evals);
  char *text = g_strdup(log->text->str);
  g_free(at);
  log_free(log);
  proto_run_free(run);
  return text;
}

static void test_lag(void) {
  const char *cases[][2] = {
      {"dsgd", "sync"}, {"muffliato:K=2", "stale:s=2"}, {"zipdl", "deadline:ms=3"}};
  const guint lags[] = {0, 1, 3, 20};
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++)
    for (guint l = 0; l < G_N_ELEMENTS(lags); l++) {
      char *one = lag_case(cases[c][0], cases[c][1], 1, lags[l]);
      char *three = lag_case(cases[c][0], cases[c][1], 3, lags[l]);
      g_assert_cmpstr(one, ==, three);
      g_free(one);
      g_free(three);
    }
}

/* The callback fails at step @fail_at: the run fails with its error. */
static void fail_case(guint lag, guint fail_at, gboolean set_error) {
  ProtoRun *run = train_run("dsgd", "sync", 3);
  Log *log = log_new(run, lag);
  log->fail_at = fail_at;
  log->set_error = set_error;
  GError *err = NULL;
  g_assert_false(proto_run_run(run, &err));
  if (set_error) {
    g_assert_error(err, VIEWER_ERROR, 7);
  } else {
    g_assert_error(err, PROTO_ERROR, PROTO_ERROR_FAILED);
    char *want = g_strdup_printf("step %u", fail_at);
    g_assert_nonnull(strstr(err->message, want));
    g_free(want);
  }
  g_error_free(err);
  /* no call after the failing one */
  const Entry *last = NULL;
  for (guint i = 0; i < log->entries->len; i++)
    if (g_array_index(log->entries, Entry, i).kind == ENTRY_METRICS)
      last = &g_array_index(log->entries, Entry, i);
  g_assert_nonnull(last);
  g_assert_cmpuint(last->value, ==, fail_at);
  g_assert_cmpuint(log->rows->len, ==, fail_at / 2);
  log_free(log);
  proto_run_free(run);
}

static void test_failure(void) {
  fail_case(0, 4, TRUE);   /* live: the simulation stops */
  fail_case(0, 6, FALSE);  /* live, no error given */
  fail_case(20, 2, TRUE);  /* in the final flush */
  fail_case(20, 8, FALSE); /* in the final flush, no error given */
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/protocols/runtime-metrics/rounds-dsgd", test_rounds_dsgd);
  g_test_add_func("/protocols/runtime-metrics/rounds-muffliato", test_rounds_muffliato);
  g_test_add_func("/protocols/runtime-metrics/lag", test_lag);
  g_test_add_func("/protocols/runtime-metrics/failure", test_failure);
  return g_test_run();
}
