/*
 * tests/protocols/test_mafalda_delivery.c: Mafalda's objective under stale
 * mode (docs/design.md, "Mafalda under stale mode"). A late message enters
 * a later round's gather, so the noise reaches the models through the
 * delay-augmented state of the delivery record (the nodes, then slots
 * holding the late messages); proto_delivery_gram's H is the Gram matrix of
 * that recursion read on the nodes alone. Checked here against:
 *   - a second method that never builds the augmented state: the run's
 *     gathers as a message list (sender, the round of its message, weight),
 *     the noise-only linear system simulated message by message from every
 *     unit noise (step s, node i), and H summed from the models it leaves;
 *   - the sketch (mf_gram_sketch_state) with basis probes, which is H to
 *     rounding, and with Rademacher probes, whose interval covers the exact
 *     loss at the rate the binomial band below states;
 *   - stale:s=0 with every message in time: the synchronous objective, so
 *     the static path (the synchronous C).
 * And `-p mafalda` in deadline and stale modes (proto_c_local, the recipe
 * of the run, account and audit) fits the C that `dpgossip mafalda --mode
 * ... --seed S --samples N [--probes K]` writes, to the bit.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <gsl/gsl_cdf.h>

#include <glib/gstdio.h>

#include "protocols/protocols.h"
#include "tests/common/checks.h"
#include "tests/common/run.h"
#include "tests/common/tolerance.h"

#define STEPS 8
#define STALENESS 2
#define SEED 4
#define LATENCY "lognormal:mu=3,sigma=0.5"

static TopoGraph *florentine(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &e);
  g_assert_no_error(e);
  return g;
}

/* The run whose record proto_delivery_gram draws as record @i of @seed:
 * D-SGD, one gossip round a step, @mode and the lognormal latency. */
static ProtoRunConfig record_config(const TopoGraph *g, const char *mode, const char *latency,
                                    guint64 seed, guint i) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.mode = mode;
  cfg.latency = latency;
  cfg.rounds = STEPS;
  cfg.protocol = "dsgd";
  cfg.storage = SIM_LIN_NONE;
  cfg.seed = proto_delivery_record_seed(seed, i);
  return cfg;
}

/* One gather input: node u's round-r gather took @w times @from's message
 * of round @round. */
typedef struct {
  guint u, r, from, round;
  double w;
} Input;

static void on_gather(guint u, guint r, guint n_inputs, const ProtoInput *in, gpointer data) {
  for (guint i = 0; i < n_inputs; i++) {
    Input x = {u, r, in[i].from, in[i].round, in[i].weight};
    g_array_append_val((GArray *)data, x);
  }
}

/* The run's message list, from the engine's gathers. */
static GArray *message_list(const ProtoRunConfig *cfg) {
  GError *e = NULL;
  ProtoRun *run = proto_run_new(cfg, &e);
  g_assert_no_error(e);
  GArray *list = g_array_new(FALSE, FALSE, sizeof(Input));
  proto_run_set_gather_func(run, on_gather, list);
  g_assert_true(proto_run_run(run, &e));
  g_assert_no_error(e);
  proto_run_free(run);
  return list;
}

/* The workload Gram matrix by simulating the noise-only system: for a unit
 * noise at step s on node i, the message of round r is m_r = x_r + e_i [r
 * = s], and x_{r+1}[u] = sum of w m_{round}[from] over u's round-r inputs
 * (x_0 = 0). Post-average reads the models after round t's gather,
 * x_{t+1}; messages reads m_t. H[s,s'] = sum_t sum_i the product of the
 * two responses. */
static double *brute_force_gram(const GArray *list, guint n, MfWorkload wl) {
  double *resp = g_new0(double, (gsize)STEPS *n *STEPS *n); /* [s][i][t][u] */
  double *x = g_new(double, (gsize)(STEPS + 1) * n), *m = g_new(double, (gsize)STEPS *n);
  for (guint s = 0; s < STEPS; s++)
    for (guint i = 0; i < n; i++) {
      memset(x, 0, sizeof(double) * (STEPS + 1) * n);
      for (guint r = 0; r < STEPS; r++) {
        for (guint v = 0; v < n; v++)
          m[r * n + v] = x[r * n + v] + (r == s && v == i ? 1.0 : 0.0);
        for (guint k = 0; k < list->len; k++) {
          const Input *in = &g_array_index(list, Input, k);
          if (in->r == r)
            x[(r + 1) * n + in->u] += in->w * m[in->round * n + in->from];
        }
      }
      double *out = resp + ((gsize)s * n + i) * STEPS * n;
      for (guint t = 0; t < STEPS; t++)
        for (guint u = 0; u < n; u++)
          out[t * n + u] = wl == MF_WORKLOAD_POST_AVERAGE ? x[(t + 1) * n + u] : m[t * n + u];
    }
  double *H = g_new0(double, (gsize)STEPS *STEPS);
  for (guint s = 0; s < STEPS; s++)
    for (guint s2 = 0; s2 < STEPS; s2++)
      for (guint i = 0; i < n; i++) {
        const double *a = resp + ((gsize)s * n + i) * STEPS * n,
                     *b = resp + ((gsize)s2 * n + i) * STEPS * n;
        for (guint j = 0; j < STEPS * n; j++)
          H[s * STEPS + s2] += a[j] * b[j];
      }
  g_free(resp);
  g_free(x);
  g_free(m);
  return H;
}

static ProtoDeliveryGram stale_gram(const TopoGraph *g, const char *mode, const char *latency,
                                    guint S, MfWorkload wl, guint probes) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.mode = mode;
  cfg.latency = latency;
  cfg.seed = SEED;
  ProtoDeliveryGram dg = {.samples = S, .probes = probes, .workload = wl};
  GError *e = NULL;
  g_assert_true(proto_delivery_gram(&dg, &cfg, STEPS, &e));
  g_assert_no_error(e);
  return dg;
}

/* Florentine, stale:s=2, lognormal latency (median 20 ms): some gathers
 * take a neighbour's message of an earlier round (the list shows it), and
 * the record's exact H (the augmented recursion) is the brute force's, for
 * both workloads. Every term of either computation is a product of
 * non-negative weights summed without cancellation, so each entry agrees
 * to a relative error of the chain's length: T rounds of sums of at most N
 * = n (s + 1) terms (the augmented state's bound), with the traces' n. */
static void test_exact_is_brute_force(void) {
  TopoGraph *g = florentine();
  guint n = topo_graph_n_nodes(g);
  ProtoRunConfig cfg = record_config(g, "stale:s=2", LATENCY, SEED, 0);
  GArray *list = message_list(&cfg);
  guint stale = 0;
  for (guint k = 0; k < list->len; k++) {
    const Input *in = &g_array_index(list, Input, k);
    stale += in->round < in->r;
  }
  g_test_message("%u inputs, %u from an earlier round", list->len, stale);
  g_assert_cmpuint(stale, >, 0);
  const MfWorkload wls[] = {MF_WORKLOAD_POST_AVERAGE, MF_WORKLOAD_MESSAGES};
  double rtol = dpg_tol(1.0, 2.0 * STEPS * (n * (STALENESS + 1.0) + n));
  for (guint w = 0; w < G_N_ELEMENTS(wls); w++) {
    ProtoDeliveryGram dg = stale_gram(g, "stale:s=2", LATENCY, 1, wls[w], 0);
    g_assert_false(dg.in_time);
    double *B = brute_force_gram(list, n, wls[w]);
    for (guint j = 0; j < STEPS * STEPS; j++)
      dpg_test_assert_close(dg.H[j], B[j], rtol,
                            "non-negative terms: a chain of T sums of <= n (s + 1) + n terms");
    g_free(B);
    g_free(dg.H);
  }
  g_array_unref(list);
  topo_graph_free(g);
}

/* The record's augmented W_r, applied to the N rows of a block of probes. */
static void record_apply(guint t, const double *x, double *y, guint d, gsize ld, gpointer data) {
  const TopoGossip *w = proto_deliveries_gossip(data)[t];
  for (guint u = 0; u < topo_gossip_n(w); u++) {
    const guint *cols;
    const double *vals;
    guint len = topo_gossip_row(w, u, &cols, &vals);
    double *yu = y + (gsize)u * ld;
    memset(yu, 0, d * sizeof(double));
    for (guint e = 0; e < len; e++)
      for (guint c = 0; c < d; c++)
        yu[c] += vals[e] * x[(gsize)cols[e] * ld + c];
  }
}

static ProtoDeliveries *stale_record(const TopoGraph *g) {
  ProtoRunConfig cfg = record_config(g, "stale:s=2", LATENCY, SEED, 0);
  GError *e = NULL;
  ProtoDeliveries *d = proto_deliveries_record(&cfg, STEPS, NULL, NULL, &e);
  g_assert_no_error(e);
  g_assert_cmpuint(proto_deliveries_delayed(d), >, 0); /* slots: N > n */
  return d;
}

/* Basis probes sqrt(n) e_i (K = n): the sketch's mean is the exact H up to
 * rounding (each probe's vectors are columns of the exact products), on
 * the augmented state; the same non-negative chains as above. */
static void test_sketch_basis_is_exact(void) {
  TopoGraph *g = florentine();
  guint n = topo_graph_n_nodes(g);
  ProtoDeliveries *d = stale_record(g);
  guint N = topo_gossip_n(proto_deliveries_gossip(d)[0]);
  double *Z = g_new0(double, (gsize)n *n);
  for (guint i = 0; i < n; i++)
    Z[(gsize)i * n + i] = sqrt((double)n);
  GError *e = NULL;
  double **Hk = mf_gram_sketch_state(n, N, STEPS, MF_WORKLOAD_POST_AVERAGE, record_apply, d, n, 0,
                                     Z, 0, &e);
  g_assert_no_error(e);
  ProtoDeliveryGram dg = stale_gram(g, "stale:s=2", LATENCY, 1, MF_WORKLOAD_POST_AVERAGE, 0);
  double rtol = dpg_tol(1.0, 2.0 * STEPS * (N + n) + n);
  for (guint j = 0; j < STEPS * STEPS; j++) {
    double mean = 0.0;
    for (guint k = 0; k < n; k++)
      mean += Hk[k][j] / n;
    dpg_test_assert_close(mean, dg.H[j], rtol, "non-negative terms: chains of T sums of N + n");
  }
  for (guint k = 0; k < n; k++)
    g_free(Hk[k]);
  g_free(Hk);
  g_free(Z);
  g_free(dg.H);
  proto_deliveries_free(d);
  topo_graph_free(g);
}

/* The sketch's interval on the stale record: R estimates of K = 30
 * Rademacher probes each (seeds 1 .. R) of DP-D-SGD's loss, each mean +-
 * t_{0.975,29} SE against the exact loss. The misses are Binomial(R, q), q
 * the interval's true miss rate: 5% if the mean of 30 probe losses were
 * normal; measured over 20,000 repetitions (seeds 1 .. 20000,
 * STALE_COVERAGE_R=20000) q = 5.6% (1116 misses, standard deviation
 * 0.16%), so the band allows q in [4%, 8%]: from the binomial law, [lo, hi]
 * = [14, 125] for R = 1000 leaves any such q outside with probability under
 * 1e-6 (0.5e-6 a tail). An interval too narrow by sqrt(2) or a biased
 * estimate fails. */
#define P_LO 0.04
#define P_HI 0.08
#define LO_BAND 14
#define HI_BAND 125
static void test_sketch_coverage(void) {
  guint R = 1000, K = 30;
  const char *env = g_getenv("STALE_COVERAGE_R");
  if (env != NULL)
    R = (guint)g_ascii_strtoull(env, NULL, 10);
  TopoGraph *g = florentine();
  guint n = topo_graph_n_nodes(g);
  ProtoDeliveries *d = stale_record(g);
  guint N = topo_gossip_n(proto_deliveries_gossip(d)[0]);
  ProtoDeliveryGram dg = stale_gram(g, "stale:s=2", LATENCY, 1, MF_WORKLOAD_POST_AVERAGE, 0);
  GError *e = NULL;
  double *C = mf_baseline(MF_BASELINE_IDENTITY, STEPS, 0, &e);
  double exact = mf_loss(dg.H, C, STEPS, 4, 2, &e);
  g_assert_no_error(e);
  double z = gsl_cdf_tdist_Pinv(0.975, K - 1);
  guint misses = 0;
  for (guint r = 0; r < R; r++) {
    double **Hk = mf_gram_sketch_state(n, N, STEPS, MF_WORKLOAD_POST_AVERAGE, record_apply, d, K,
                                       r + 1, NULL, 0, &e);
    g_assert_no_error(e);
    double mean, se;
    g_assert_true(mf_loss_samples((const double *const *)Hk, K, C, STEPS, 4, 2, &mean, &se, &e));
    misses += fabs(mean - exact) > z * se;
    for (guint k = 0; k < K; k++)
      g_free(Hk[k]);
    g_free(Hk);
  }
  guint lo, hi;
  test_binomial_band(R, P_LO, P_HI, 0.5e-6, &lo, &hi);
  if (env == NULL) {
    g_assert_cmpuint(lo, ==, LO_BAND); /* the band the comment above states */
    g_assert_cmpuint(hi, ==, HI_BAND);
  }
  g_test_message("%u misses of %u (%.4f; accepted %u to %u)", misses, R, (double)misses / R, lo,
                 hi);
  g_assert_cmpuint(misses, >=, lo);
  g_assert_cmpuint(misses, <=, hi);
  g_free(C);
  g_free(dg.H);
  proto_deliveries_free(d);
  topo_graph_free(g);
}

/* stale:s=0 with zero latency: every gather has all its round's inputs, so
 * every W_r is the static W bit for bit and the objective is the
 * synchronous one (the callers then take the static path: the synchronous
 * C exactly). stale:s=2 with zero latency is not: a gather that holds an
 * older message of a neighbour does not wait for its newer one. */
static void test_in_time(void) {
  TopoGraph *g = florentine();
  ProtoDeliveryGram dg = stale_gram(g, "stale:s=0", "constant:ms=0", 2, MF_WORKLOAD_POST_AVERAGE,
                                    0);
  g_assert_true(dg.in_time);
  g_assert_cmpfloat(dg.delivered, ==, 1.0);
  g_free(dg.H);
  dg = stale_gram(g, "stale:s=2", "constant:ms=0", 1, MF_WORKLOAD_POST_AVERAGE, 0);
  g_assert_false(dg.in_time);
  g_free(dg.H);
  topo_graph_free(g);
}

/* No record is the run's own: record i's seed is a hash of the run's seed
 * and i, distinct from the seed and from the other records'. */
static void test_record_seeds(void) {
  const guint64 seeds[] = {0, 1, 4, G_MAXUINT64};
  for (guint j = 0; j < G_N_ELEMENTS(seeds); j++) {
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    guint64 *v = g_new(guint64, 64);
    for (guint i = 0; i < 64; i++) {
      v[i] = proto_delivery_record_seed(seeds[j], i);
      g_assert_cmpuint(v[i], !=, seeds[j]);
      g_assert_false(g_hash_table_contains(seen, &v[i]));
      g_hash_table_add(seen, &v[i]);
    }
    g_hash_table_unref(seen);
    g_free(v);
  }
  /* The documented derivation. */
  g_assert_cmpuint(proto_delivery_record_seed(4, 3), ==,
                   sim_rng_stream_seed(4, 3, SIM_RNG_USER + 45));
}

/* proto_c_local's Mafalda C of the run on Florentine (k = 2, b = 4) in
 * @mode with @latency, seed @seed, @samples records and @probes. */
static double *run_c(const TopoGraph *g, const char *mode, const char *latency, guint64 seed,
                     guint samples, guint probes) {
  ProtoCRecipe r = {.spec = "mafalda",
                    .T = STEPS,
                    .k = 2,
                    .b = 4,
                    .graph = g,
                    .gossip = TOPO_GOSSIP_UNIFORM,
                    .probes = probes,
                    .seed = seed,
                    .mode = mode,
                    .latency = latency,
                    .samples = samples};
  GError *e = NULL;
  double *C = proto_c_local(&r, &e);
  g_assert_no_error(e);
  return C;
}

/* The T x T C that `dpgossip mafalda ... --out` wrote to @path (%.17g:
 * each double read back exactly). */
static double *read_c(const char *path) {
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  double *C = g_new(double, STEPS *STEPS);
  char *p = text;
  for (guint i = 0; i < STEPS * STEPS; i++) {
    C[i] = g_ascii_strtod(p, &p);
    g_assert_true(*p == ',' || *p == '\n');
    p++;
  }
  g_free(text);
  return C;
}

/* `-p mafalda:samples=3[,probes=2]` with --seed 7 in deadline and stale
 * modes fits the C `dpgossip mafalda --mode ... --seed 7 --samples 3
 * [--probes 2]` writes, bit for bit: the same records (of seed 7, none the
 * run's own), the same Gram matrices and the same fit. The test can fail:
 * the C of seed 8's records differs (a recipe that took the records of
 * another seed, or the run's own, would not match). */
static void test_protocol_same_c(void) {
  TopoGraph *g = florentine();
  char *dir = g_dir_make_tmp("dpg-mdeliv-XXXXXX", NULL);
  char *csv = g_build_filename(dir, "C.csv", NULL);
  const struct {
    const char *mode, *probes;
  } cases[] = {{"deadline:ms=25", "0"}, {"stale:s=2", "0"}, {"stale:s=2", "2"}};
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    CliRun m = cases[c].probes[0] == '0'
                   ? cli_run("mafalda", "--generate", "florentine", "-k", "2", "-b", "4", "-q",
                             "--baselines", "none", "--mode", cases[c].mode, "--latency", LATENCY,
                             "--seed", "7", "--samples", "3", "--out", csv)
                   : cli_run("mafalda", "--generate", "florentine", "-k", "2", "-b", "4", "-q",
                             "--baselines", "none", "--mode", cases[c].mode, "--latency", LATENCY,
                             "--seed", "7", "--samples", "3", "--probes", cases[c].probes, "--out",
                             csv);
    if (m.status != 0)
      g_error("exit %d: %s", m.status, m.err);
    guint probes = (guint)g_ascii_strtoull(cases[c].probes, NULL, 10);
    double *want = read_c(csv);
    double *C = run_c(g, cases[c].mode, LATENCY, 7, 3, probes);
    g_assert_cmpmem(C, STEPS * STEPS * sizeof(double), want, STEPS * STEPS * sizeof(double));
    double *other = run_c(g, cases[c].mode, LATENCY, 8, 3, probes);
    g_assert_true(memcmp(other, want, STEPS * STEPS * sizeof(double)) != 0);
    g_free(other);
    g_free(C);
    g_free(want);
    g_remove(csv);
    cli_run_clear(&m);
  }
  g_rmdir(dir);
  g_free(csv);
  g_free(dir);
  topo_graph_free(g);
}

/* stale:s=0 with zero latency: every record in time, so `-p mafalda` fits
 * the synchronous C, the same to the bit as without a mode. */
static void test_in_time_sync_c(void) {
  TopoGraph *g = florentine();
  double *sync = run_c(g, NULL, NULL, 7, 0, 0);
  double *stale = run_c(g, "stale:s=0", "constant:ms=0", 7, 2, 0);
  g_assert_cmpmem(stale, STEPS * STEPS * sizeof(double), sync, STEPS * STEPS * sizeof(double));
  g_free(sync);
  g_free(stale);
  topo_graph_free(g);
}

/* samples= outside its use is refused with the reason: in a synchronous
 * run, and with a C not fitted to the records. */
static void test_samples_refused(void) {
  TopoGraph *g = florentine();
  const struct {
    const char *protocol, *mode, *needle;
  } bad[] = {{"mafalda:samples=3", NULL, "this run is synchronous"},
             {"mfdsgd:C=sr,samples=3", "deadline:ms=25", "this C is not fitted to them"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    ProtoRunConfig cfg;
    proto_run_config_init(&cfg);
    cfg.graph = g;
    cfg.protocol = bad[i].protocol;
    cfg.mode = bad[i].mode;
    cfg.rounds = STEPS;
    GError *e = NULL;
    ProtoRun *run = proto_run_new(&cfg, &e);
    if (run != NULL) {
      g_assert_false(proto_run_run(run, &e));
      proto_run_free(run);
    }
    g_assert_error(e, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(e->message, "samples=3: the delivery records"));
    g_assert_nonnull(strstr(e->message, bad[i].needle));
    g_error_free(e);
  }
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  /* Single-threaded BLAS, as every dpgossip command runs it (cli/main.c):
   * the bit-for-bit comparison with `dpgossip mafalda` needs the same
   * rounding, which OpenBLAS's thread count changes. */
  openblas_set_num_threads(1);
  g_test_add_func("/protocols/mafalda-delivery/exact-is-brute-force", test_exact_is_brute_force);
  g_test_add_func("/protocols/mafalda-delivery/sketch-basis-is-exact", test_sketch_basis_is_exact);
  g_test_add_func("/protocols/mafalda-delivery/sketch-coverage", test_sketch_coverage);
  g_test_add_func("/protocols/mafalda-delivery/in-time", test_in_time);
  g_test_add_func("/protocols/mafalda-delivery/record-seeds", test_record_seeds);
  g_test_add_func("/protocols/mafalda-delivery/protocol-same-c", test_protocol_same_c);
  g_test_add_func("/protocols/mafalda-delivery/in-time-sync-c", test_in_time_sync_c);
  g_test_add_func("/protocols/mafalda-delivery/samples-refused", test_samples_refused);
  return g_test_run();
}
