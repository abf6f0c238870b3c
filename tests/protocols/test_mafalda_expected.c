/*
 * tests/protocols/test_mafalda_expected.c: `-p mafalda` under a schedule
 * that varies fits C to the expected objective over the schedule's
 * randomness (proto_c_local, the recipe account, train, audit, scenarios and
 * the Python package share), not to the rounds the run draws: for random
 * matchings the C is the same to the bit for every seed and differs from
 * the C fitted to one seed's own matchings (the oracle main used); a fixed
 * sequence (exponential graph) is known in advance and its C is the one
 * fitted to its exact trace, computed here by mf_mafalda_c's own
 * time-varying path; a random schedule without a finite law is refused;
 * the sampled expectation is the mean of the reseeded schedules' traces.
 * (tests/cli/test_mafalda_schedule.c: the same C as `dpgossip mafalda
 * --schedule`, through account.)
 */
#include <string.h>

#include "protocols/protocols.h"

#define EPOCHS 2
#define BATCHES 4
#define ROUNDS (EPOCHS * BATCHES)

static TopoGraph *graph(const char *spec) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate(spec, &e);
  g_assert_no_error(e);
  return g;
}

static TopoSchedule *schedule(const char *spec, const TopoGraph *g, guint64 seed) {
  GError *e = NULL;
  TopoSchedule *s = topo_schedule_new(spec, g, TOPO_GOSSIP_UNIFORM, seed, &e);
  g_assert_no_error(e);
  return s;
}

/* proto_c_local's C=mafalda for the run's schedule @s. */
static double *c_of(TopoSchedule *s) {
  GError *e = NULL;
  ProtoCRecipe r = {.spec = "mafalda", .T = ROUNDS, .k = EPOCHS, .b = BATCHES, .schedule = s};
  double *C = proto_c_local(&r, &e);
  g_assert_no_error(e);
  return C;
}

/* Gives mf_mafalda_c the dense W_t that @data (a schedule) draws. */
typedef struct {
  TopoSchedule *s;
  double *W;
} Rounds;

static const double *round_at(guint t, gpointer data) {
  Rounds *r = data;
  GError *e = NULL;
  g_free(r->W);
  TopoGossip *w = topo_schedule_gossip(r->s, t, &e);
  g_assert_no_error(e);
  r->W = topo_gossip_dense(w);
  topo_gossip_free(w);
  return r->W;
}

/* The C fitted to the W_t that @s draws (what main's -p mafalda did). */
static double *c_of_trace(TopoSchedule *s) {
  GError *e = NULL;
  Rounds r = {s, NULL};
  double *C = mf_mafalda_c(topo_schedule_n(s), ROUNDS, EPOCHS, BATCHES, 0, NULL, round_at, &r, &e);
  g_assert_no_error(e);
  g_free(r.W);
  return C;
}

static void test_matching_seed_free(void) {
  TopoGraph *g = graph("florentine");
  TopoSchedule *s1 = schedule("matching", g, 1), *s2 = schedule("matching", g, 2);
  double *C1 = c_of(s1), *C2 = c_of(s2), *oracle = c_of_trace(s1);
  gsize bytes = (gsize)ROUNDS * ROUNDS * sizeof(double);
  /* Exact over the round's law: no draw of either run plays a part. */
  g_assert_cmpint(memcmp(C1, C2, bytes), ==, 0);
  /* ... and not the C of seed 1's own matchings. */
  g_assert_cmpint(memcmp(C1, oracle, bytes), !=, 0);
  g_free(C1);
  g_free(C2);
  g_free(oracle);
  topo_schedule_free(s1);
  topo_schedule_free(s2);
  topo_graph_free(g);
}

/* The C of `dpgossip mafalda --schedule matching` (its path: the expected
 * Gram matrix of proto_schedule_gram given to mf_mafalda_report) and the C
 * of -p mafalda under the same schedule: the same doubles, with and
 * without a band. */
static void test_same_c_as_report(void) {
  TopoGraph *g = graph("florentine");
  TopoSchedule *s = schedule("matching", g, 7);
  for (guint band = 0; band <= 3; band += 3) {
    GError *e = NULL;
    ProtoScheduleGram sg = {.workload = MF_WORKLOAD_POST_AVERAGE};
    g_assert_true(proto_schedule_gram(&sg, s, ROUNDS, &e));
    g_assert_cmpint(sg.how, ==, PROTO_EXPECT_IID);
    MfMafaldaReportOptions o;
    mf_mafalda_report_options_init(&o);
    o.k = EPOCHS;
    o.b = BATCHES;
    o.band = band;
    o.H = sg.H;
    o.baselines = 0;
    MfMafaldaReport *rep = NULL;
    g_assert_true(mf_mafalda_report(NULL, topo_schedule_n(s), &o, &rep, &e));
    g_assert_no_error(e);
    ProtoCRecipe r = {
        .spec = "mafalda", .T = ROUNDS, .k = EPOCHS, .b = BATCHES, .band = band, .schedule = s};
    double *C = proto_c_local(&r, &e);
    g_assert_no_error(e);
    g_assert_cmpint(memcmp(C, rep->C, (gsize)ROUNDS * ROUNDS * sizeof(double)), ==, 0);
    g_free(C);
    mf_mafalda_report_free(rep);
    proto_schedule_gram_clear(&sg);
  }
  topo_schedule_free(s);
  topo_graph_free(g);
}

static void test_fixed_sequence_exact(void) {
  TopoGraph *g = graph("ring:n=8");
  TopoSchedule *s = schedule("exponential", g, 3);
  double *C = c_of(s), *ref = c_of_trace(s);
  /* mf_mafalda_c's default options are mf_mafalda_options_init's at band 0. */
  g_assert_cmpint(memcmp(C, ref, (gsize)ROUNDS * ROUNDS * sizeof(double)), ==, 0);
  g_free(C);
  g_free(ref);
  topo_schedule_free(s);
  topo_graph_free(g);
}

static void test_random_refused(void) {
  TopoGraph *g = graph("ring:n=6");
  TopoSchedule *s = schedule("churn:leave=0.1,join=0.5", g, 1);
  GError *e = NULL;
  ProtoCRecipe r = {.spec = "mafalda", .T = ROUNDS, .k = EPOCHS, .b = BATCHES, .schedule = s};
  g_assert_null(proto_c_local(&r, &e));
  g_assert_error(e, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(e->message, "--samples S --out C.csv` and give C=C.csv"));
  g_error_free(e);
  topo_schedule_free(s);
  topo_graph_free(g);
}

/* The sampled expectation is the mean of the traces of the schedules
 * reseeded seed .. seed+S-1, its scoring set the S next ones: each checked
 * against mf_gram_time_varying on topo_schedule_new with that seed. The
 * mean divides each term by S before adding, as the sampler does, so the
 * comparison is to the bit. */
static void test_sampled_reseeded(void) {
  TopoGraph *g = graph("ring:n=6");
  TopoSchedule *s = schedule("churn:leave=0.2,join=0.5", g, 99);
  enum { S = 2, SEED = 5 };
  ProtoScheduleGram sg = {.samples = S, .seed = SEED, .workload = MF_WORKLOAD_POST_AVERAGE};
  GError *e = NULL;
  g_assert_true(proto_schedule_gram(&sg, s, ROUNDS, &e));
  g_assert_no_error(e);
  g_assert_cmpint(sg.how, ==, PROTO_EXPECT_SAMPLED);
  g_assert_cmpstr(proto_expectation_name(sg.how), ==, "sampled");
  double mean[ROUNDS * ROUNDS] = {0};
  for (guint i = 0; i < 2 * S; i++) {
    TopoSchedule *si = schedule("churn:leave=0.2,join=0.5", g, SEED + i);
    Rounds r = {si, NULL};
    double *H = mf_gram_time_varying(6, ROUNDS, MF_WORKLOAD_POST_AVERAGE, round_at, &r, &e);
    g_assert_no_error(e);
    if (i < S)
      for (guint j = 0; j < ROUNDS * ROUNDS; j++)
        mean[j] += H[j] / S;
    else
      g_assert_cmpint(memcmp(H, sg.score[i - S], sizeof mean), ==, 0);
    g_free(H);
    g_free(r.W);
    topo_schedule_free(si);
  }
  g_assert_cmpint(memcmp(mean, sg.H, sizeof mean), ==, 0);
  proto_schedule_gram_clear(&sg);
  topo_schedule_free(s);
  topo_graph_free(g);
}

/* A graph whose dense fit cannot fit in memory (n = 200,000: the n x n W
 * and the eigendecomposition's work are 4 n^2 doubles, 1.28 TB): the exact
 * fits of mafalda, toeplitz and blt are refused before anything of that
 * size is allocated, the refusal naming the memory and probes= as the way;
 * with probes=2 each fits from the sketch of the sparse W (no n x n
 * matrix), a lower-triangular C with a positive diagonal, the same to the
 * bit for the same seed and another C for another seed (mafalda). */
static void test_sketch_large_graph(void) {
  TopoGraph *g = graph("regular:n=200000,d=4,seed=1");
  const char *specs[] = {"mafalda", "toeplitz", "blt"};
  for (guint i = 0; i < G_N_ELEMENTS(specs); i++) {
    ProtoCRecipe r = {.spec = specs[i],
                      .T = ROUNDS,
                      .k = EPOCHS,
                      .b = BATCHES,
                      .buffers = 2,
                      .graph = g,
                      .gossip = TOPO_GOSSIP_UNIFORM,
                      .seed = 1};
    GError *e = NULL;
    g_assert_null(proto_c_local(&r, &e));
    g_assert_error(e, PROTO_ERROR, PROTO_ERROR_FAILED);
    g_assert_nonnull(strstr(e->message, "would need 1.3 TB of memory"));
    g_assert_nonnull(strstr(e->message, "give probes=K (e.g. "));
    g_clear_error(&e);
    r.probes = 2;
    double *C = proto_c_local(&r, &e);
    g_assert_no_error(e);
    for (guint t = 0; t < ROUNDS; t++) {
      g_assert_cmpfloat(C[t * ROUNDS + t], >, 0.0);
      for (guint s = t + 1; s < ROUNDS; s++)
        g_assert_cmpfloat(C[t * ROUNDS + s], ==, 0.0);
    }
    if (i == 0) {
      double *again = proto_c_local(&r, &e);
      g_assert_no_error(e);
      r.seed = 2;
      double *other = proto_c_local(&r, &e);
      g_assert_no_error(e);
      gsize bytes = (gsize)ROUNDS * ROUNDS * sizeof(double);
      g_assert_cmpint(memcmp(C, again, bytes), ==, 0);
      g_assert_cmpint(memcmp(C, other, bytes), !=, 0);
      g_free(again);
      g_free(other);
    }
    g_free(C);
  }
  topo_graph_free(g);
}

/* The fits of @protocol over runs of seeds @seeds sharing one C memo (an
 * audit's trials share theirs), with or without one delivery seed. */
static guint fits_of(const char *protocol, const guint64 *seeds, guint n, gboolean delivery) {
  TopoGraph *g = graph("ring:n=8");
  ProtoCCache *cache = proto_c_cache_new();
  for (guint i = 0; i < n; i++) {
    ProtoAccountRequest r;
    proto_account_request_init(&r);
    r.rounds = ROUNDS;
    r.interval = BATCHES;
    ProtoRunConfig cfg;
    proto_account_request_run_config(&r, &cfg);
    cfg.graph = g;
    cfg.protocol = protocol;
    cfg.seed = seeds[i];
    cfg.delivery_seed_set = delivery;
    cfg.delivery_seed = 1;
    cfg.c_cache = cache;
    GError *e = NULL;
    ProtoRun *run = proto_run_new(&cfg, &e);
    g_assert_no_error(e);
    proto_run_free(run);
  }
  guint fits = proto_c_cache_fits(cache);
  proto_c_cache_free(cache);
  topo_graph_free(g);
  return fits;
}

/* probes=K draws its probes from the run's public randomness: a run's own
 * seed (another seed, another C), or the delivery seed an audit's trials
 * share (one C for every trial, the one `account --seed` fits); the exact
 * fit depends on no seed. */
static void test_sketch_seed(void) {
  const guint64 seeds[] = {5, 9};
  g_assert_cmpuint(fits_of("mafalda:probes=2", seeds, 2, FALSE), ==, 2);
  g_assert_cmpuint(fits_of("mafalda:probes=2", seeds, 2, TRUE), ==, 1);
  g_assert_cmpuint(fits_of("mfdsgd:C=blt,buffers=2,probes=2", seeds, 2, TRUE), ==, 1);
  g_assert_cmpuint(fits_of("mafalda", seeds, 2, FALSE), ==, 1);
}

/* proto_delivery_gram over Florentine in deadline mode (25 ms) with
 * @latency, @S records of seed @seed from record @first. */
static ProtoDeliveryGram deliveries_from(const TopoGraph *g, const char *latency, guint S,
                                         guint first, guint64 seed, guint probes) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.mode = "deadline:ms=25";
  cfg.latency = latency;
  cfg.seed = seed;
  ProtoDeliveryGram dg = {
      .samples = S, .first = first, .probes = probes, .workload = MF_WORKLOAD_POST_AVERAGE};
  GError *e = NULL;
  g_assert_true(proto_delivery_gram(&dg, &cfg, ROUNDS, &e));
  g_assert_no_error(e);
  return dg;
}

static ProtoDeliveryGram deliveries(const TopoGraph *g, const char *latency, guint S, guint64 seed,
                                    guint probes) {
  return deliveries_from(g, latency, S, 0, seed, probes);
}

/* Deadline mode's objective is the mean of the delivery records' H: with
 * S = 3 records, H is bit for bit the mean (in record order, as documented)
 * of the three single records' H (records 0, 1, 2 of seed 4), and the delivered
 * fraction their mean; lognormal latency (median 20 ms) against a 25 ms
 * deadline leaves some messages late and uses most, so the records differ
 * from the static W and from one another. */
static void test_deadline_mean_of_records(void) {
  TopoGraph *g = graph("florentine");
  ProtoDeliveryGram all = deliveries(g, "lognormal:mu=3,sigma=0.5", 3, 4, 0);
  double mean[ROUNDS * ROUNDS] = {0}, delivered = 0.0;
  gboolean differ = FALSE;
  ProtoDeliveryGram first = deliveries(g, "lognormal:mu=3,sigma=0.5", 1, 4, 0);
  for (guint i = 0; i < 3; i++) {
    ProtoDeliveryGram one = deliveries_from(g, "lognormal:mu=3,sigma=0.5", 1, i, 4, 0);
    g_assert_false(one.in_time);
    for (guint j = 0; j < ROUNDS * ROUNDS; j++) {
      mean[j] += one.H[j] / 3;
      differ |= one.H[j] != first.H[j];
    }
    delivered += one.delivered / 3;
    g_free(one.H);
  }
  g_assert_true(differ);
  g_assert_false(all.in_time);
  g_assert_cmpmem(all.H, sizeof mean, mean, sizeof mean);
  g_assert_cmpfloat(all.delivered, ==, delivered);
  g_assert_cmpfloat(all.delivered, >, 0.3);
  g_assert_cmpfloat(all.delivered, <, 0.95);
  g_free(all.H);
  g_free(first.H);
  topo_graph_free(g);
}

/* Every message later than the deadline (50 ms against 25): each gather
 * keeps its own model alone, W_r = I, so H[s][s'] = n (T - max(s, s'))
 * (post-average: P(t, s) = I and G_s = (T - s) I), exact (integers), and
 * nothing is delivered in time; the sketch's basis-free probes of I give
 * the same H exactly too (z^T z = n for +-1 signs). */
static void test_deadline_all_late(void) {
  TopoGraph *g = graph("florentine");
  guint n = topo_graph_n_nodes(g);
  for (guint probes = 0; probes <= 2; probes += 2) {
    ProtoDeliveryGram dg = deliveries(g, "constant:ms=50", 2, 1, probes);
    g_assert_false(dg.in_time);
    g_assert_cmpfloat(dg.delivered, ==, 0.0);
    for (guint s = 0; s < ROUNDS; s++)
      for (guint t = 0; t < ROUNDS; t++)
        g_assert_cmpfloat(dg.H[s * ROUNDS + t], ==, (double)n * (ROUNDS - MAX(s, t)));
    g_free(dg.H);
  }
  topo_graph_free(g);
}

/* Every message in time (1 ms against 25, no loss): every W_r is the
 * static W bit for bit (no gather renormalises), and all are delivered. */
static void test_deadline_in_time(void) {
  TopoGraph *g = graph("florentine");
  ProtoDeliveryGram dg = deliveries(g, "constant:ms=1", 2, 1, 0);
  g_assert_true(dg.in_time);
  g_assert_cmpfloat(dg.delivered, ==, 1.0);
  g_free(dg.H);
  topo_graph_free(g);
}

/* Sync mode is refused with the reason (stale mode:
 * tests/protocols/test_mafalda_delivery.c). */
static void test_deadline_modes_refused(void) {
  TopoGraph *g = graph("florentine");
  const char *modes[] = {"sync", NULL};
  for (guint i = 0; i < G_N_ELEMENTS(modes); i++) {
    ProtoRunConfig cfg;
    proto_run_config_init(&cfg);
    cfg.graph = g;
    cfg.mode = modes[i];
    ProtoDeliveryGram dg = {.samples = 1};
    GError *e = NULL;
    g_assert_false(proto_delivery_gram(&dg, &cfg, ROUNDS, &e));
    g_assert_error(e, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(e->message, "needs deadline or stale mode"));
    g_assert_null(dg.H);
    g_error_free(e);
  }
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/protocols/mafalda-expected/matching-seed-free", test_matching_seed_free);
  g_test_add_func("/protocols/mafalda-expected/same-c-as-report", test_same_c_as_report);
  g_test_add_func("/protocols/mafalda-expected/fixed-sequence-exact", test_fixed_sequence_exact);
  g_test_add_func("/protocols/mafalda-expected/random-refused", test_random_refused);
  g_test_add_func("/protocols/mafalda-expected/sampled-reseeded", test_sampled_reseeded);
  g_test_add_func("/protocols/mafalda-expected/sketch-large-graph", test_sketch_large_graph);
  g_test_add_func("/protocols/mafalda-expected/sketch-seed", test_sketch_seed);
  g_test_add_func("/protocols/mafalda-expected/deadline-mean-of-records",
                  test_deadline_mean_of_records);
  g_test_add_func("/protocols/mafalda-expected/deadline-all-late", test_deadline_all_late);
  g_test_add_func("/protocols/mafalda-expected/deadline-in-time", test_deadline_in_time);
  g_test_add_func("/protocols/mafalda-expected/deadline-modes-refused",
                  test_deadline_modes_refused);
  return g_test_run();
}
