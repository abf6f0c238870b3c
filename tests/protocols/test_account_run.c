/*
 * tests/protocols/test_account_run.c: the run an accounting request
 * describes (proto_account_request_run_config), the one filling of a
 * ProtoRunConfig every front end starts from: each field from the request,
 * T as T/b epochs of b batches that the runtime accepts with and without a
 * dataset, the observer path simulating exactly that run, the training
 * run (proto_train_run_config), its one validation (proto_train_validate)
 * and its privacy (proto_account_job_for_run).
 */
#include <math.h>

#include "protocols/protocols.h"

static const char *const node0[] = {"0", NULL};

/* Every field the request carries lands in the run; the rest are the
 * run's defaults. */
static void test_fields(void) {
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = "muffliato:K=2";
  r.rounds = 6;
  r.interval = 2;
  r.sigma = 0.5;
  r.clip = 2.0;
  r.gossip = TOPO_GOSSIP_METROPOLIS;
  r.mode = "deadline:ms=5";
  r.latency = "constant:ms=1";
  r.loss = "0.1";
  r.seed = "17";
  r.storage = "dense";
  ProtoRunConfig cfg, def;
  proto_run_config_init(&def);
  proto_account_request_run_config(&r, &cfg);
  g_assert_cmpstr(cfg.protocol, ==, "muffliato:K=2");
  g_assert_cmpint(cfg.gossip, ==, TOPO_GOSSIP_METROPOLIS);
  g_assert_cmpfloat(cfg.sigma, ==, 0.5);
  g_assert_cmpfloat(cfg.clip, ==, 2.0);
  g_assert_cmpfloat(cfg.lr, ==, def.lr); /* NaN: not given */
  g_assert_cmpuint(cfg.rounds, ==, 6);
  g_assert_cmpuint(cfg.epochs, ==, 3);
  g_assert_cmpuint(cfg.batches, ==, 2);
  g_assert_cmpstr(cfg.mode, ==, "deadline:ms=5");
  g_assert_cmpstr(cfg.latency, ==, "constant:ms=1");
  g_assert_cmpstr(cfg.loss, ==, "0.1");
  g_assert_cmpuint(cfg.seed, ==, 17);
  g_assert_cmpint(cfg.storage, ==, SIM_LIN_DENSE);
  g_assert_null(cfg.graph);
  g_assert_null(cfg.dataset);
  g_assert_cmpuint(cfg.threads, ==, def.threads);
  proto_account_request_init(&r);
  r.lr = 0.3;
  proto_account_request_run_config(&r, &cfg);
  g_assert_cmpstr(cfg.protocol, ==, "dsgd");
  g_assert_cmpfloat(cfg.lr, ==, 0.3);
  g_assert_cmpuint(cfg.seed, ==, 0);
  g_assert_cmpint(cfg.storage, ==, SIM_LIN_SPARSE);
}

/* A training run is the request's run with the task's fields, over the
 * schedule when there is one, and keeps provenance only for an observer. */
static void test_train_fields(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=4", &e);
  g_assert_no_error(e);
  TopoSchedule *sched = topo_schedule_new("matching", g, TOPO_GOSSIP_UNIFORM, 3, &e);
  g_assert_no_error(e);
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 6;
  r.interval = 3;
  r.sigma = 0.5;
  r.seed = "17";
  const ProtoTrainTask task = {.dataset = "synthetic:linear,n=40,d=2,seed=1",
                               .model = "linear",
                               .partition = "dirichlet:alpha=0.5",
                               .test_fraction = 0.25,
                               .compute_ms = 2.5,
                               .eval_every = 2,
                               .threads = 3,
                               .eval_nodes = 2,
                               .eval_rows = 5};
  ProtoRunConfig cfg, want;
  proto_account_request_run_config(&r, &want);
  proto_train_run_config(&r, &task, g, NULL, TRUE, &cfg);
  g_assert_true(cfg.graph == g);
  g_assert_null(cfg.schedule);
  g_assert_cmpfloat(cfg.sigma, ==, 0.5);
  g_assert_cmpuint(cfg.seed, ==, 17);
  g_assert_cmpuint(cfg.epochs, ==, want.epochs);
  g_assert_cmpuint(cfg.batches, ==, 3);
  g_assert_cmpstr(cfg.dataset, ==, task.dataset);
  g_assert_cmpstr(cfg.model, ==, "linear");
  g_assert_cmpstr(cfg.partition, ==, "dirichlet:alpha=0.5");
  g_assert_cmpfloat(cfg.test_fraction, ==, 0.25);
  g_assert_cmpfloat(cfg.compute_ms, ==, 2.5);
  g_assert_cmpuint(cfg.eval_every, ==, 2);
  g_assert_cmpuint(cfg.threads, ==, 3);
  g_assert_cmpuint(cfg.eval_nodes, ==, 2);
  g_assert_cmpuint(cfg.eval_rows, ==, 5);
  g_assert_cmpint(cfg.storage, ==, SIM_LIN_SPARSE);
  const ProtoTrainTask bare = {.dataset = task.dataset};
  proto_train_run_config(&r, &bare, g, sched, FALSE, &cfg);
  g_assert_null(cfg.graph);
  g_assert_true(cfg.schedule == sched);
  g_assert_cmpint(cfg.storage, ==, SIM_LIN_NONE);
  g_assert_cmpfloat(cfg.test_fraction, ==, want.test_fraction); /* 0: the default */
  g_assert_cmpuint(cfg.threads, ==, want.threads);
  ProtoRun *run = proto_run_new(&cfg, &e);
  g_assert_no_error(e);
  g_assert_cmpuint(proto_context_steps(proto_run_context(run)), ==, 6);
  proto_run_free(run);
  topo_schedule_free(sched);
  topo_graph_free(g);
}

/* T = 6 with b = 2 is 3 epochs of 2 batches for the runtime, accounting
 * only or training on a dataset. */
static void test_participation(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=4", &e);
  g_assert_no_error(e);
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 6;
  r.interval = 2;
  for (guint task = 0; task < 2; task++) {
    ProtoRunConfig cfg;
    proto_account_request_run_config(&r, &cfg);
    cfg.graph = g;
    cfg.storage = SIM_LIN_NONE;
    cfg.dataset = task ? "synthetic:linear,n=40,d=2,seed=1" : NULL;
    ProtoRun *run = proto_run_new(&cfg, &e);
    g_assert_no_error(e);
    ProtoContext *ctx = proto_run_context(run);
    g_assert_cmpuint(proto_context_steps(ctx), ==, 6);
    g_assert_cmpuint(proto_context_epochs(ctx), ==, 3);
    g_assert_cmpuint(proto_context_batches(ctx), ==, 2);
    proto_run_free(run);
  }
  topo_graph_free(g);
}

/* The observer path simulates the request's run, with strings of its own
 * (the request's are borrowed only until validation returns). */
static void test_observer_run(void) {
  GError *e = NULL;
  char *mode = g_strdup("deadline:ms=5");
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 4;
  r.trust = "pndp";
  r.attackers = node0;
  r.mode = mode;
  r.seed = "9";
  r.lr = 0.2;
  ProtoRunConfig want;
  proto_account_request_run_config(&r, &want);
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_no_error(e);
  g_free(mode);
  g_assert_cmpstr(j->run.protocol, ==, "dsgd");
  g_assert_cmpstr(j->run.mode, ==, "deadline:ms=5");
  g_assert_true(j->run.mode == j->mode_spec);
  g_assert_cmpuint(j->run.seed, ==, want.seed);
  g_assert_cmpfloat(j->run.lr, ==, want.lr);
  g_assert_cmpuint(j->run.rounds, ==, want.rounds);
  g_assert_cmpuint(j->run.epochs, ==, want.epochs);
  g_assert_cmpuint(j->run.batches, ==, want.batches);
  g_assert_cmpint(j->run.storage, ==, want.storage);
  proto_account_job_free(j);
}

/* A training run's privacy: LDP of every node by default, trust-major;
 * a mode, latency or loss the run would refuse is left to the run (its
 * message), and a rule on the options is a usage error. */
static void test_for_run(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=5", &e);
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 4;
  r.loss = "0.2"; /* in sync mode: the run refuses it */
  gboolean usage = FALSE;
  ProtoAccountJob *j = proto_account_job_for_run(&r, g, &usage, &e);
  g_assert_no_error(e);
  g_assert_true(j->every_node && j->trust_major);
  g_assert_cmpuint(j->trusts->len, ==, 1);
  g_assert_cmpint(g_array_index(j->trusts, PrivTrust, 0), ==, PRIV_TRUST_LDP);
  g_assert_null(j->loss_spec);
  g_assert_cmpint(j->path, ==, PROTO_ACCOUNT_STRUCTURED);
  proto_account_job_free(j);
  r.trust = "pndp";
  g_assert_null(proto_account_job_for_run(&r, g, &usage, &e));
  g_assert_true(usage);
  g_assert_true(g_str_has_prefix(e->message, "--trust pndp: say who observes with --attackers"));
  g_clear_error(&e);
  topo_graph_free(g);
}

/* A training run's accounting reads the schedule the run was built with
 * (borrowed: freeing the job leaves it to its owner) and prices the run
 * exactly as a job building its own schedule from the same spec does. */
static void test_for_run_built_schedule(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=6", &e);
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 6;
  r.interval = 2;
  r.seed = "3";
  r.schedule = "churn:leave=0.2,join=0.5";
  gboolean usage = FALSE;
  ProtoAccountJob *own = proto_account_job_for_run(&r, g, &usage, &e);
  g_assert_no_error(e);
  r.built_schedule = topo_schedule_new(r.schedule, g, r.gossip, 3, &e);
  g_assert_no_error(e);
  ProtoAccountJob *borrowed = proto_account_job_for_run(&r, g, &usage, &e);
  g_assert_no_error(e);
  g_assert_true(borrowed->schedule == r.built_schedule);
  g_assert_true(own->schedule != NULL && own->schedule != r.built_schedule);
  g_assert_true(proto_account_job_execute(own, &e));
  g_assert_true(proto_account_job_execute(borrowed, &e));
  g_assert_no_error(e);
  g_assert_cmpuint(own->n_acs, ==, borrowed->n_acs);
  for (guint a = 0; a < own->n_acs; a++) {
    const PrivReport *x = own->acs[a].report, *y = borrowed->acs[a].report;
    g_assert_cmpuint(x->n_victims, ==, y->n_victims);
    for (guint v = 0; v < x->n_victims; v++)
      g_assert_cmpfloat(x->victims[v].mu, ==, y->victims[v].mu);
  }
  proto_account_job_free(own);
  proto_account_job_free(borrowed);
  g_assert_cmpuint(topo_schedule_n(r.built_schedule), ==, 6); /* still its owner's */
  topo_schedule_free(r.built_schedule);
  topo_graph_free(g);
}

static const char *const TRAIN_ATTACKERS[] = {"0", "3+11", NULL};

/* A valid training run, every field given. */
static ProtoTrainOptions good_train(void) {
  return (ProtoTrainOptions){.protocol = "dsgd",
                             .epochs = 2,
                             .batches = 3,
                             .eval_every = 1,
                             .threads = 2,
                             .seed = "7",
                             .sigma = NAN,
                             .clip = 1.0,
                             .lr = 0.1,
                             .mode = "deadline:ms=5",
                             .latency = "constant:ms=1",
                             .loss = "0.1",
                             .task = {.dataset = "synthetic:linear", .test_fraction = 0.2},
                             .gossip = TOPO_GOSSIP_METROPOLIS,
                             .schedule = "matching",
                             .trust = "pndp,ldp",
                             .attackers = TRAIN_ATTACKERS,
                             .alpha = 3.0,
                             .delta = 1e-5};
}

/* Refuses @o with @refusal and exactly @message. */
static void assert_train_refused(ProtoTrainOptions o, ProtoAccountRefusal refusal,
                                 const char *message) {
  GError *error = NULL;
  ProtoAccountRefusal got = (ProtoAccountRefusal)-1;
  g_assert_false(proto_train_validate(&o, &got, &error));
  g_assert_nonnull(error);
  g_assert_cmpint(got, ==, refusal);
  if (refusal == PROTO_REFUSED_RULE)
    g_assert_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
  if (message != NULL)
    g_assert_cmpstr(error->message, ==, message);
  g_error_free(error);
}

/* Each rule of a training run refuses one bad value at a time with the
 * command line's message; a spec that does not parse is a value refusal. */
static void test_train_validate_refusals(void) {
  ProtoTrainOptions o = good_train();
  o.epochs = 0;
  assert_train_refused(o, PROTO_REFUSED_RULE,
                       "--epochs and --batches must be positive (got 0 and 3)");
  o = good_train();
  o.batches = -1;
  assert_train_refused(o, PROTO_REFUSED_RULE,
                       "--epochs and --batches must be positive (got 2 and -1)");
  o = good_train();
  o.epochs = 65536;
  o.batches = 32768; /* k b = 2^31 > G_MAXINT32 */
  assert_train_refused(o, PROTO_REFUSED_RULE,
                       "--epochs and --batches must be positive (got 65536 and 32768)");
  o = good_train();
  o.eval_every = -1;
  assert_train_refused(o, PROTO_REFUSED_RULE, "--eval-every must be >= 0 and --threads >= 1");
  o = good_train();
  o.threads = 0;
  assert_train_refused(o, PROTO_REFUSED_RULE, "--eval-every must be >= 0 and --threads >= 1");
  o = good_train();
  o.seed = "-1";
  assert_train_refused(o, PROTO_REFUSED_RULE, "--seed: '-1' is not an integer in [0, 2^64 - 1]");
  o = good_train();
  o.seed = "18446744073709551616"; /* 2^64 */
  assert_train_refused(o, PROTO_REFUSED_RULE,
                       "--seed: '18446744073709551616' is not an integer in [0, 2^64 - 1]");
  const double fractions[] = {0.0, 1.0, NAN};
  const char *const fraction_messages[] = {
      "--test-fraction must be in (0, 1) (got 0): the test loss needs test records",
      "--test-fraction must be in (0, 1) (got 1): the test loss needs test records",
      "--test-fraction must be in (0, 1) (got nan): the test loss needs test records"};
  for (guint i = 0; i < G_N_ELEMENTS(fractions); i++) {
    o = good_train();
    o.task.test_fraction = fractions[i];
    assert_train_refused(o, PROTO_REFUSED_RULE, fraction_messages[i]);
  }
  o = good_train();
  o.protocol = PROTO_NONPRIVATE;
  o.sigma = 0.5;
  assert_train_refused(o, PROTO_REFUSED_RULE,
                       "--protocol nonprivate adds no noise: drop --sigma 0.5");
  /* sigma, clip, lr, compute_ms: each out of its range alone. */
  const struct {
    double sigma, clip, lr, compute_ms;
    const char *message;
  } ranges[] = {
      {-1, 1, 0.1, 0, "(got -1, 1, 0.1, 0)"}, {INFINITY, 1, 0.1, 0, "(got inf, 1, 0.1, 0)"},
      {1, 0, 0.1, 0, "(got 1, 0, 0.1, 0)"},   {1, NAN, 0.1, 0, "(got 1, nan, 0.1, 0)"},
      {1, 1, -0.1, 0, "(got 1, 1, -0.1, 0)"}, {1, 1, INFINITY, 0, "(got 1, 1, inf, 0)"},
      {1, 1, 0.1, -1, "(got 1, 1, 0.1, -1)"}, {1, 1, 0.1, INFINITY, "(got 1, 1, 0.1, inf)"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(ranges); i++) {
    o = good_train();
    o.sigma = ranges[i].sigma;
    o.clip = ranges[i].clip;
    o.lr = ranges[i].lr;
    o.task.compute_ms = ranges[i].compute_ms;
    char *message = g_strconcat("--sigma must be >= 0, --clip and --lr > 0, --compute-ms >= 0, "
                                "all finite ",
                                ranges[i].message, NULL);
    assert_train_refused(o, PROTO_REFUSED_RULE, message);
    g_free(message);
  }
  o = good_train();
  o.protocol = "no-such-protocol";
  assert_train_refused(o, PROTO_REFUSED_VALUE, NULL);
  o = good_train();
  o.mode = "sometimes";
  assert_train_refused(o, PROTO_REFUSED_VALUE, NULL);
  /* The option's name before the parser's own message. */
  GError *error = NULL;
  ProtoAccountRefusal refusal;
  o = good_train();
  o.latency = "fast";
  g_assert_false(proto_train_validate(&o, &refusal, &error));
  g_assert_cmpint(refusal, ==, PROTO_REFUSED_VALUE);
  g_assert_true(g_str_has_prefix(error->message, "--latency: "));
  g_clear_error(&error);
  o = good_train();
  o.loss = "2";
  g_assert_false(proto_train_validate(&o, &refusal, &error));
  g_assert_cmpint(refusal, ==, PROTO_REFUSED_VALUE);
  g_assert_true(g_str_has_prefix(error->message, "--loss: "));
  g_clear_error(&error);
}

/* A valid run resolves in place: sigma NaN is 1, nonprivate is dsgd with
 * sigma 0 (and a NULL protocol dsgd), the seed's value, the task's
 * evaluation; the request carries the run. */
static void test_train_validate_resolves(void) {
  GError *error = NULL;
  ProtoAccountRefusal refusal;
  ProtoTrainOptions o = good_train();
  g_assert_true(proto_train_validate(&o, &refusal, &error));
  g_assert_no_error(error);
  g_assert_cmpfloat(o.sigma, ==, 1.0);
  g_assert_cmpstr(o.protocol, ==, "dsgd");
  g_assert_false(o.nonprivate);
  g_assert_cmpuint(o.seed_value, ==, 7);
  g_assert_cmpuint(o.task.eval_every, ==, 1);
  g_assert_cmpuint(o.task.threads, ==, 2);
  ProtoAccountRequest r;
  proto_train_request(&o, &r);
  g_assert_cmpstr(r.protocol, ==, "dsgd");
  g_assert_cmpint(r.rounds, ==, 6);
  g_assert_cmpint(r.interval, ==, 3);
  g_assert_cmpfloat(r.sigma, ==, 1.0);
  g_assert_cmpfloat(r.clip, ==, 1.0);
  g_assert_cmpfloat(r.lr, ==, 0.1);
  g_assert_cmpstr(r.mode, ==, "deadline:ms=5");
  g_assert_cmpstr(r.latency, ==, "constant:ms=1");
  g_assert_cmpstr(r.loss, ==, "0.1");
  g_assert_cmpstr(r.seed, ==, "7");
  g_assert_cmpint(r.gossip, ==, TOPO_GOSSIP_METROPOLIS);
  g_assert_cmpstr(r.schedule, ==, "matching");
  g_assert_cmpstr(r.trust, ==, "pndp,ldp");
  g_assert_true(r.attackers == TRAIN_ATTACKERS);
  g_assert_cmpfloat(r.alpha, ==, 3.0);
  g_assert_cmpfloat(r.delta, ==, 1e-5);
  o = good_train();
  o.protocol = PROTO_NONPRIVATE;
  g_assert_true(proto_train_validate(&o, &refusal, &error));
  g_assert_cmpstr(o.protocol, ==, "dsgd");
  g_assert_cmpfloat(o.sigma, ==, 0.0);
  g_assert_true(o.nonprivate);
  o = good_train();
  o.protocol = PROTO_NONPRIVATE;
  o.sigma = 0.0; /* an explicit 0 is no noise either */
  g_assert_true(proto_train_validate(&o, &refusal, &error));
  g_assert_cmpfloat(o.sigma, ==, 0.0);
  o = good_train();
  o.protocol = NULL;
  o.seed = NULL;
  o.sigma = 2.5;
  o.mode = o.latency = o.loss = NULL;
  g_assert_true(proto_train_validate(&o, &refusal, &error));
  g_assert_cmpstr(o.protocol, ==, "dsgd");
  g_assert_cmpfloat(o.sigma, ==, 2.5);
  g_assert_cmpuint(o.seed_value, ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/protocols/account_run/fields", test_fields);
  g_test_add_func("/protocols/account_run/train_fields", test_train_fields);
  g_test_add_func("/protocols/account_run/participation", test_participation);
  g_test_add_func("/protocols/account_run/observer_run", test_observer_run);
  g_test_add_func("/protocols/account_run/for_run", test_for_run);
  g_test_add_func("/protocols/account_run/for_run_built_schedule", test_for_run_built_schedule);
  g_test_add_func("/protocols/account_run/train_validate_refusals", test_train_validate_refusals);
  g_test_add_func("/protocols/account_run/train_validate_resolves", test_train_validate_resolves);
  return g_test_run();
}
