/*
 * tests/protocols/test_stream_observer.c: the streaming accountant against the
 * dense one (priv_knowledge_blocks on the observer's knowledge), on the same
 * simulated run (same spec and seed, two runs: the streaming one rebases its
 * space). Every block entry must agree to 1e-9 of the block's largest entry
 * and every status must be the same, for the built-in protocols, every trust
 * model, collusion sets, b > 1, asynchronous modes with loss, time-varying
 * schedules and a plugin, for both engines of the streaming accountant
 * (backward, one chunk per period, and the forward reference); the two
 * engines again on random graphs of 20 to 300 nodes with chunks of 7 rows.
 * A second check: the streaming run's provenance really stays short (the
 * state size does not grow with T).
 */
#include <gmodule.h>
#include <math.h>
#include <string.h>

#include "observe_test.h"
#include "privacy/privacy.h"
#include "protocols/protocols.h"
#include "topologies/topologies.h"

typedef struct {
  const char *graph; /* generator spec */
  const char *protocol;
  const char *schedule; /* NULL: static */
  const char *mode, *latency, *loss;
  guint T, b;
} Case;

/* Views: attacker sets {0}, {2, 5}, under each of the three trust models. */
static const guint set_a[] = {0}, set_b[] = {2, 5};
static const ObsView views[] = {
    {PRIV_TRUST_LDP, set_a, 1},  {PRIV_TRUST_LDP, set_b, 2},    {PRIV_TRUST_PNDP, set_a, 1},
    {PRIV_TRUST_PNDP, set_b, 2}, {PRIV_TRUST_SECLDP, set_a, 1}, {PRIV_TRUST_SECLDP, set_b, 2},
};
#define N_VIEWS G_N_ELEMENTS(views)

/* How a run is accounted: the dense accountant, or the streaming one with
 * its engine and rows per backward chunk. */
static const ObsAccountant dense = {FALSE, PRIV_STREAM_BACKWARD, 0, 0, FALSE};
/* A chunk per period at most: every period's rows walk back on their own. */
static const ObsAccountant backward = {TRUE, PRIV_STREAM_BACKWARD, 1, 0, FALSE};
static const ObsAccountant forward = {TRUE, PRIV_STREAM_FORWARD, 0, 0, FALSE};

/* Runs @c once with accountant @acc; returns the views' blocks. */
static PrivBlocks **account(const Case *c, const ObsAccountant *acc) {
  ObsSpec spec = {.graph = c->graph,
                  .schedule = c->schedule,
                  .schedule_seed = 7,
                  .protocol = c->protocol,
                  .mode = c->mode,
                  .latency = c->latency,
                  .loss = c->loss,
                  .sigma = 1.3,
                  .clip = 1.0,
                  .T = c->T,
                  .b = c->b,
                  .seed = 11};
  ObsRun o = obs_run_spec(&spec, views, N_VIEWS, acc);
  PrivBlocks **out = obs_run_blocks(&o);
  obs_run_clear(&o);
  return out;
}

/* The streaming accountant (both engines) against the dense one: every
 * view's statuses equal and every block entry within 1e-9 of the block's
 * largest, with numbers to compare. */
static void compare(gconstpointer data) {
  const Case *c = data;
  PrivBlocks **d = account(c, &dense), **s = account(c, &backward);
  PrivBlocks **f = account(c, &forward);
  g_assert_cmpuint(obs_blocks_assert_same(d, s, N_VIEWS), >, 0);
  g_assert_cmpuint(obs_blocks_assert_same(f, s, N_VIEWS), >, 0);
  obs_blocks_free(d, N_VIEWS);
  obs_blocks_free(s, N_VIEWS);
  obs_blocks_free(f, N_VIEWS);
}

/* The backward engine against the forward reference on larger graphs (the
 * dense accountant would dominate the suite's time there). */
static void compare_engines(gconstpointer data) {
  const Case *c = data;
  const ObsAccountant chunked = {TRUE, PRIV_STREAM_BACKWARD, 7, 0, FALSE};
  PrivBlocks **s = account(c, &chunked), **f = account(c, &forward);
  g_assert_cmpuint(obs_blocks_assert_same(f, s, N_VIEWS), >, 0);
  obs_blocks_free(s, N_VIEWS);
  obs_blocks_free(f, N_VIEWS);
}

#ifndef DPG_TEST_PLUGIN_DIR
/* The state stays bounded: a checkpoint per round creates the same number of
 * state variables whatever T (about the live linvecs), and a model's
 * provenance after the run is a handful of state variables, not the whole
 * past. */
static void test_state_bounded(void) {
  double per_round[2];
  const guint Ts[2] = {10, 40};
  const ObsView pndp = {PRIV_TRUST_PNDP, set_a, 1};
  const ObsAccountant streaming = {TRUE, PRIV_STREAM_BACKWARD, 0, 0, FALSE};
  for (guint i = 0; i < 2; i++) {
    ObsSpec spec = {
        .graph = "florentine", .protocol = "dsgd", .sigma = 1.0, .clip = 1.0, .T = Ts[i]};
    ObsRun o = obs_run_spec(&spec, &pndp, 1, &streaming);
    SimNoiseRegistry *reg = sim_lin_space_noise(proto_context_space(proto_run_context(o.run)));
    guint states = 0;
    for (guint k = 0; k < sim_noise_registry_count(reg); k++)
      states += sim_noise_kind(reg, k) == SIM_NOISE_KIND_STATE;
    per_round[i] = (double)states / (Ts[i] - 1);
    g_assert_cmpfloat(per_round[i], >, 0.0);
    GError *err = NULL;
    PrivBlocks *b = obs_run_view_blocks(&o, 0, &err);
    g_assert_no_error(err);
    /* Node 1 is a neighbour of the attacker (Florentine): seen every step. */
    g_assert_cmpfloat(priv_blocks_get(b, 1)[0], >, 0.0);
    priv_blocks_free(b);
    obs_run_clear(&o);
  }
  g_assert_cmpfloat(fabs(per_round[1] / per_round[0] - 1.0), <, 0.2);
}

/* Streaming is chosen before the first message, with sparse storage only. */
static void test_errors(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.rounds = 3;
  cfg.storage = SIM_LIN_DENSE;
  ProtoRun *run = proto_run_new(&cfg, &err);
  g_assert_no_error(err);
  PrivObserver *obs = priv_observer_new(proto_context_space(proto_run_context(run)), &err);
  PrivStreamOptions so = {.T = 3};
  g_assert_false(priv_observer_set_streaming(obs, &so, &err)); /* no view yet */
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  priv_observer_add_view(obs, PRIV_TRUST_LDP, set_a, 1, &err);
  g_assert_false(priv_observer_set_streaming(obs, &so, &err)); /* dense storage */
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(priv_observer_stream_blocks(obs, 0, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  priv_observer_free(obs);
  proto_run_free(run);
  topo_graph_free(g);
}

static const Case cases[] = {
    {"florentine", "dsgd", NULL, NULL, NULL, NULL, 6, 1},
    {"erdos:n=12,p=0.35,seed=4", "dsgd", NULL, NULL, NULL, NULL, 8, 2},
    {"erdos:n=10,p=0.4,seed=9", "muffliato:K=2", NULL, NULL, NULL, NULL, 6, 1},
    {"florentine", "decor", NULL, NULL, NULL, NULL, 6, 2},
    {"erdos:n=12,p=0.35,seed=4", "decor", NULL, NULL, NULL, NULL, 6, 1},
    {"florentine", "zipdl", NULL, NULL, NULL, NULL, 6, 1},
    {"erdos:n=10,p=0.4,seed=9", "zipdl", NULL, NULL, NULL, NULL, 8, 2},
    {"florentine", "antipgd", NULL, NULL, NULL, NULL, 6, 1},      /* ring of ids */
    {"florentine", "mfdsgd:C=bsr", NULL, NULL, NULL, NULL, 8, 2}, /* banded C */
    {"florentine", "mfdsgd:C=sr", NULL, NULL, NULL, NULL, 6, 1},  /* dense C */
    {"florentine", "dsgd", NULL, "deadline:ms=3", "uniform:min=1,max=5", "0.1", 6, 1},
    {"florentine", "decor", NULL, "deadline:ms=5", "lognormal:mu=1,sigma=0.5", "0.1", 6, 1},
    {"florentine", "zipdl", NULL, "stale:s=2", "uniform:min=1,max=8", NULL, 6, 1},
    {"florentine", "dsgd", "matching", NULL, NULL, NULL, 6, 1},
    {"florentine", "dsgd", "exponential", NULL, NULL, NULL, 6, 1},
    {"florentine", "decor", "edge-failure:p=0.3", NULL, NULL, NULL, 6, 1},
    {"florentine", "dsgd", "churn:leave=0.2,join=0.5", NULL, NULL, NULL, 6, 1},
};

/* Random graphs of 20 to 300 nodes, every protocol, static and time-varying
 * gossip, b > 1, asynchronous modes: backward against forward. */
static const Case engine_cases[] = {
    {"barabasi:n=300,m=2,seed=5", "dsgd", NULL, NULL, NULL, NULL, 4, 2},
    {"erdos:n=20,p=0.25,seed=3", "dsgd", "matching", NULL, NULL, NULL, 6, 1},
    {"regular:n=40,d=4,seed=2", "muffliato:K=2", NULL, NULL, NULL, NULL, 4, 2},
    {"erdos:n=30,p=0.2,seed=6", "decor", "edge-failure:p=0.3", NULL, NULL, NULL, 4, 1},
    {"barabasi:n=40,m=2,seed=1", "zipdl", NULL, NULL, NULL, NULL, 4, 1},
    {"erdos:n=25,p=0.25,seed=2", "antipgd", NULL, NULL, NULL, NULL, 4, 2},
    {"erdos:n=25,p=0.25,seed=2", "mfdsgd:C=sr", NULL, NULL, NULL, NULL, 4, 1},
    {"erdos:n=25,p=0.25,seed=2", "mafalda", NULL, NULL, NULL, NULL, 4, 2},
    {"barabasi:n=30,m=2,seed=4", "decor", NULL, "deadline:ms=3", "uniform:min=1,max=5", "0.1", 4,
     1},
    {"erdos:n=30,p=0.2,seed=6", "zipdl", NULL, "stale:s=2", "uniform:min=1,max=8", NULL, 4, 1},
};

#endif

#ifdef DPG_TEST_PLUGIN_DIR
/* Built a second time in tests/plugins (exporting the plugin API): the
 * plugin tiny-dsgd, in sync and deadline modes with loss. */
static const Case plugin_cases[] = {
    {"florentine", "tiny-dsgd", NULL, NULL, NULL, NULL, 6, 1},
    {"erdos:n=12,p=0.35,seed=4", "tiny-dsgd", NULL, "deadline:ms=3", "uniform:min=1,max=5", "0.1",
     6, 2},
    {"barabasi:n=60,m=2,seed=2", "tiny-dsgd", NULL, NULL, NULL, NULL, 4, 1},
};

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  GError *err = NULL;
  const ProtoVTable *vt = NULL;
  char *path = g_build_filename(DPG_TEST_PLUGIN_DIR, "tiny-dsgd." G_MODULE_SUFFIX, NULL);
  g_assert_true(proto_plugin_load(path, &vt, &err));
  g_assert_no_error(err);
  g_free(path);
  g_test_add_data_func("/stream/equals-dense/plugin-sync", &plugin_cases[0], compare);
  g_test_add_data_func("/stream/equals-dense/plugin-deadline", &plugin_cases[1], compare);
  g_test_add_data_func("/stream/engines/plugin-barabasi", &plugin_cases[2], compare_engines);
  return g_test_run();
}
#else
int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const Case *c = &cases[i];
    char *name = g_strdup_printf("/stream/equals-dense/%u-%s-%s%s%s", i, c->protocol,
                                 c->graph[0] == 'f' ? "florentine" : "erdos",
                                 c->mode ? "-async" : "", c->schedule ? "-schedule" : "");
    g_strdelimit(name + 1, ":=,", '_');
    g_test_add_data_func(name, c, compare);
    g_free(name);
  }
  for (guint i = 0; i < G_N_ELEMENTS(engine_cases); i++) {
    const Case *c = &engine_cases[i];
    char *name = g_strdup_printf("/stream/engines/%u-%s%s%s", i, c->protocol,
                                 c->mode ? "-async" : "", c->schedule ? "-schedule" : "");
    g_strdelimit(name + 1, ":=,", '_');
    g_test_add_data_func(name, c, compare_engines);
    g_free(name);
  }
  g_test_add_func("/stream/state-bounded", test_state_bounded);
  g_test_add_func("/stream/errors", test_errors);
  return g_test_run();
}
#endif
