/*
 * tests/protocols/test_provenance.c: every message's provenance equals the
 * paper's closed forms (appendix B, C), coefficient by coefficient:
 *   D-SGD      message (u, t) = row (t, u) of -eta W_T (G + nu Z), static and
 *              time-varying W_t (matching, directed exponential graph);
 *   Muffliato  rows of -eta W_{KT} (I_T kron [I; 0]) (G + nu Z);
 *   AntiPGD    noise of step t = z_t - z_{t-1}, nu = sigma Delta sens(C);
 *   MF-D-SGD   random lower-triangular C (direct, blocked and recursive
 *              streaming): noise = C^-1 Z, computed here by Gauss-Jordan;
 *   DECOR      local noise and edge secrets at their exact coefficients,
 *              secrets of each step summing to zero over the network;
 *   Zip-DL     per-receiver noise (I - w w^T / w^T w) y, whose
 *              gossip-weighted sum over receivers is zero;
 *   messages   every message the runtime sends carries its linvec in the
 *              typed provenance slot (also its payload, for ABI-1 readers),
 *              and the observer accounts for nothing else: a message with
 *              an opaque payload is ignored, not cast to a linvec.
 * Runs are accounting-only (d = 0): the provenance is the object under test.
 */
#include "mf/mf.h"
#include "proto_test.h"
#include "tests/common/graphs.h"
#include "tests/common/files.h"

#define TOL 1e-12

static ProtoRun *make_run(const ProtoRunConfig *cfg) {
  GError *err = NULL;
  ProtoRun *run = proto_run_new(cfg, &err);
  g_assert_no_error(err);
  g_assert_nonnull(run);
  return run;
}

static void run_ok(ProtoRun *run) {
  GError *err = NULL;
  g_assert_true(proto_run_run(run, &err));
  g_assert_no_error(err);
}

/* A run on Florentine recorded from the bus: the messages sent, and the
 * dense W_r of its R gossip rounds (from the graph or the schedule it ran
 * on) with their products P. */
typedef struct {
  TopoGraph *g;
  TopoSchedule *s; /* NULL: static gossip */
  guint n;
  ProtoRun *run;
  Recorder *rec;
  double **W;
  Products P;
  guint R;
} Traced;

/* Runs @cfg to the end on Florentine (@cfg's topology is set here), under
 * the schedule @schedule_spec (uniform gossip, seed @seed) unless NULL. */
static Traced traced_run(ProtoRunConfig *cfg, const char *schedule_spec, guint64 seed, guint R) {
  Traced t = {.g = test_graph("florentine"), .R = R};
  t.n = topo_graph_n_nodes(t.g);
  if (schedule_spec != NULL) {
    GError *err = NULL;
    t.s = topo_schedule_new(schedule_spec, t.g, TOPO_GOSSIP_UNIFORM, seed, &err);
    g_assert_no_error(err);
  }
  cfg->graph = t.s ? NULL : t.g;
  cfg->schedule = t.s;
  t.run = make_run(cfg);
  t.rec = recorder_attach(t.run);
  run_ok(t.run);
  t.W = dense_rounds(t.g, TOPO_GOSSIP_UNIFORM, t.s, R);
  t.P = products_new(t.W, t.n, R);
  return t;
}

static void traced_clear(Traced *t) {
  products_free(&t->P);
  dense_rounds_free(t->W, t->R);
  recorder_free(t->rec);
  proto_run_free(t->run);
  topo_schedule_free(t->s);
  topo_graph_free(t->g);
}

/*
 * The expected coefficients of message (u, r): gradient slot (v, s) is
 * injected at round s K, so its coefficient is -eta P(r, sK)[u, v] when
 * sK <= r; noise variable (v, s') enters through the noise of every step s
 * with weight N[s][s'] (N = I without correlation), in units of nu.
 */
typedef struct {
  guint K;
  double eta, nu;
  const double *N; /* T x T, NULL = identity */
} Expect;

static void check_messages(ProtoRun *run, Recorder *rec, const Products *P, const Expect *e) {
  guint n = proto_context_n_nodes(proto_run_context(run)),
        T = proto_context_steps(proto_run_context(run));
  SimNoiseRegistry *reg = proto_context_noise(proto_run_context(run));
  guint n_noise = sim_noise_registry_count(reg);
  double *grad = g_new(double, (gsize)n *T), *noise = g_new(double, MAX(n_noise, 1));
  for (guint i = 0; i < rec->sent->len; i++) {
    const RecMsg *m = &g_array_index(rec->sent, RecMsg, i);
    GError *err = NULL;
    g_assert_true(sim_linvec_row(rec_payload(m), SIM_LIN_GRAD, grad, (gsize)n * T, &err));
    g_assert_true(sim_linvec_row(rec_payload(m), SIM_LIN_NOISE, noise, n_noise, &err));
    g_assert_no_error(err);
    guint u = m->from, r = m->round;
    for (guint s = 0; s < T; s++)
      for (guint v = 0; v < n; v++) {
        double want = s * e->K <= r ? -e->eta * products_get(P, r, s * e->K, u, v) : 0.0;
        assert_close(grad[s * n + v], want, TOL, "gradient coefficient");
      }
    for (SimNoiseId k = 0; k < n_noise; k++) {
      guint v = sim_noise_node(reg, k), s1 = sim_noise_round(reg, k);
      g_assert_cmpfloat(sim_noise_std(reg, k), ==, e->nu);
      double sum = 0.0;
      for (guint s = 0; s < T && s * e->K <= r; s++) {
        double c = e->N ? e->N[s * T + s1] : s == s1;
        if (c != 0.0)
          sum += products_get(P, r, s * e->K, u, v) * c;
      }
      assert_close(noise[k], -e->eta * e->nu * sum, TOL, "noise coefficient");
    }
  }
  g_free(grad);
  g_free(noise);
}

/* Number of transmissions of a run where every node sends its payload of
 * each round to the column support of W_r (minus itself). */
static guint expected_sends(double **W, guint n, guint R) {
  guint count = 0;
  for (guint r = 0; r < R; r++)
    for (guint u = 0; u < n; u++)
      for (guint v = 0; v < n; v++)
        count += v != u && W[r][v * n + u] > 0.0;
  return count;
}

/* D-SGD under a topology: static graph or schedule spec. */
static void dsgd_case(const char *schedule_spec) {
  const guint T = 6;
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.protocol = "dsgd";
  cfg.sigma = 0.8;
  cfg.clip = 1.5;
  cfg.lr = 0.3;
  cfg.rounds = T;
  cfg.seed = 5;
  Traced tr = traced_run(&cfg, schedule_spec, 11, T);
  guint n = tr.n;
  g_assert_cmpuint(tr.rec->sent->len, ==, expected_sends(tr.W, n, T));
  g_assert_cmpuint(tr.rec->rounds_published, ==, T + 1); /* rounds 0 (the start) to T */
  g_assert_cmpuint(sim_noise_registry_count(proto_context_noise(proto_run_context(tr.run))), ==,
                   n * T);
  Expect e = {1, 0.3, 0.8 * 1.5, NULL};
  check_messages(tr.run, tr.rec, &tr.P, &e);

  /* The final models are W_{T-1} times the last messages: row (T, u). */
  guint n_noise = sim_noise_registry_count(proto_context_noise(proto_run_context(tr.run)));
  for (guint u = 0; u < n; u++) {
    const SimLinvec *x = proto_run_node_model(tr.run, u);
    for (guint t = 0; t < T; t++)
      for (guint v = 0; v < n; v++)
        assert_close(sim_linvec_grad_coeff(x, v, t), -0.3 * products_get(&tr.P, T, t, u, v), TOL,
                     "final model");
    g_assert_cmpuint(sim_linvec_nnz(x, SIM_LIN_NOISE), <=, n_noise);
  }
  traced_clear(&tr);
}

static void test_dsgd_static(void) {
  dsgd_case(NULL);
}

static void test_dsgd_matching(void) {
  dsgd_case("matching");
}

static void test_dsgd_exponential(void) {
  dsgd_case("exponential");
}

static void test_muffliato(void) {
  const guint T = 3, K = 3;
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.protocol = "muffliato:K=3";
  cfg.sigma = 2.0;
  cfg.clip = 0.5;
  cfg.lr = 0.2;
  cfg.rounds = T;
  Traced tr = traced_run(&cfg, NULL, 0, K * T);
  g_assert_cmpuint(tr.rec->sent->len, ==, expected_sends(tr.W, tr.n, K * T));
  Expect e = {K, 0.2, 2.0 * 0.5, NULL};
  check_messages(tr.run, tr.rec, &tr.P, &e);
  traced_clear(&tr);
}

/* Muffliato with K = 1 sends exactly D-SGD's messages. */
static void test_muffliato_k1_is_dsgd(void) {
  TopoGraph *g = test_graph("florentine");
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.rounds = 4;
  cfg.seed = 9;
  Recorder *rec[2];
  ProtoRun *run[2];
  const char *specs[2] = {"dsgd", "muffliato:K=1"};
  for (int i = 0; i < 2; i++) {
    cfg.protocol = specs[i];
    run[i] = make_run(&cfg);
    rec[i] = recorder_attach(run[i]);
    run_ok(run[i]);
  }
  g_assert_cmpuint(rec[0]->sent->len, ==, rec[1]->sent->len);
  for (guint i = 0; i < rec[0]->sent->len; i++) {
    const RecMsg *a = &g_array_index(rec[0]->sent, RecMsg, i);
    const RecMsg *b = &g_array_index(rec[1]->sent, RecMsg, i);
    g_assert_cmpuint(a->from, ==, b->from);
    g_assert_cmpuint(a->to, ==, b->to);
    g_assert_cmpuint(a->round, ==, b->round);
    for (int part = SIM_LIN_GRAD; part <= SIM_LIN_NOISE; part++)
      g_assert_cmpfloat(sim_linvec_dot(rec_payload(a), rec_payload(a), part), ==,
                        sim_linvec_dot(rec_payload(b), rec_payload(b), part));
  }
  for (int i = 0; i < 2; i++) {
    recorder_free(rec[i]);
    proto_run_free(run[i]);
  }
  topo_graph_free(g);
}

/* sens^2 = max_j sum_{s,t in pi_j} |(C^T C)[s,t]|, written out here. */
static double sens2_by_hand(const double *C, guint T, guint k, guint b) {
  double worst = 0.0;
  for (guint j = 0; j < b; j++) {
    double sum = 0.0;
    for (guint p = 0; p < k; p++)
      for (guint q = 0; q < k; q++) {
        guint s = j + p * b, t = j + q * b;
        double x = 0.0;
        for (guint i = 0; i < T; i++)
          x += C[i * T + s] * C[i * T + t];
        sum += fabs(x);
      }
    worst = MAX(worst, sum);
  }
  return worst;
}

/* An MF run: check against C^-1 (given, or computed here). */
static void mf_case(const char *protocol, const double *C, const double *N, guint k, guint b,
                    const char *schedule_spec) {
  guint T = k * b;
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.protocol = protocol;
  cfg.sigma = 1.3;
  cfg.clip = 0.7;
  cfg.lr = 0.25;
  cfg.epochs = k;
  cfg.batches = b;
  Traced tr = traced_run(&cfg, schedule_spec, 3, T);
  guint n = tr.n;
  double *Ninv = N ? NULL : dense_inverse(C, T);
  Expect e = {1, 0.25, 1.3 * 0.7 * sqrt(sens2_by_hand(C, T, k, b)), N ? N : Ninv};
  /* The registered std carries sens(C): compare at rounding precision. */
  SimNoiseRegistry *reg = proto_context_noise(proto_run_context(tr.run));
  g_assert_cmpuint(sim_noise_registry_count(reg), ==, n * T);
  assert_close(sim_noise_std(reg, 0), e.nu, 1e-12 * e.nu, "nu");
  e.nu = sim_noise_std(reg, 0);
  check_messages(tr.run, tr.rec, &tr.P, &e);
  g_free(Ninv);
  traced_clear(&tr);
}

static void test_antipgd(void) {
  enum { T = 4 };
  double C[T * T] = {0}, N[T * T] = {0};
  for (guint t = 0; t < T; t++) {
    for (guint s = 0; s <= t; s++)
      C[t * T + s] = 1.0; /* lower-triangular ones */
    N[t * T + t] = 1.0;   /* its inverse: noise z_t - z_{t-1} */
    if (t > 0)
      N[t * T + t - 1] = -1.0;
  }
  /* User-level participation: sens^2 = sum_m (T - m)(2m + 1) = 4 + 9 + 10 + 7. */
  g_assert_cmpfloat(sens2_by_hand(C, T, T, 1), ==, 30.0);
  mf_case("antipgd", C, N, T, 1, NULL);
  mf_case("mfdsgd:C=antipgd", C, N, T, 1, NULL);
}

/* Divides C by its largest |entry|: mf_read_c returns a C file so
 * normalized (the same mechanism), so the expected noise uses that C. */
static void normalize_c(double *C, guint T) {
  double big = 0.0;
  for (guint i = 0; i < T * T; i++)
    big = MAX(big, fabs(C[i]));
  for (guint i = 0; i < T * T; i++)
    C[i] /= big;
}

/* Writes C to a CSV file in a fresh directory; returns its path. */
static char *write_c(const double *C, guint T) {
  GError *err = NULL;
  char *dir = test_tmpdir("proto-c");
  char *path = g_build_filename(dir, "C.csv", NULL);
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j < T; j++) {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append_printf(s, "%s%c", g_ascii_dtostr(buf, sizeof buf, C[i * T + j]),
                             j + 1 < T ? ',' : '\n');
    }
  g_assert_true(g_file_set_contents(path, s->str, -1, &err));
  g_string_free(s, TRUE);
  g_free(dir);
  return path;
}

static void remove_c(char *path) {
  char *dir = g_path_get_dirname(path);
  g_remove(path);
  g_rmdir(dir);
  g_free(dir);
  g_free(path);
}

/* A random dense lower-triangular C: streamed directly (C^-1 is dense too),
 * and a random bidiagonal C: streamed recursively (C^-1 is dense, C is not). */
static void test_mfdsgd_random_c(void) {
  enum { T = 6 };
  GRand *rng = g_rand_new_with_seed(7);
  for (int banded = 0; banded <= 1; banded++) {
    double C[T * T] = {0};
    for (guint t = 0; t < T; t++)
      for (guint s = 0; s <= t; s++)
        if (!banded || t - s <= 1)
          C[t * T + s] = s == t ? g_rand_double_range(rng, 0.5, 2.0)
                                : g_rand_double_range(rng, -1.0, 1.0);
    normalize_c(C, T);
    char *path = write_c(C, T);
    char *spec = g_strdup_printf("mfdsgd:C=%s", path);
    mf_case(spec, C, NULL, 2, 3, NULL);
    mf_case(spec, C, NULL, 2, 3, "matching");
    g_free(spec);
    remove_c(path);
  }
  g_rand_free(rng);
}

/* Noises combined a block of steps at a time (block=4) keep every term:
 * a dense C^-1 in blocks of 4 over T = 6 (one partial block), and a C^-1
 * of band 2 over T = 12, whose 6 kept samples wrap around their ring. */
static void test_mfdsgd_blocked(void) {
  {
    enum { T = 6 };
    GError *err = NULL;
    double *C = mf_baseline(MF_BASELINE_SR, T, 0, &err);
    g_assert_no_error(err);
    mf_case("mfdsgd:C=sr,block=4", C, NULL, 2, 3, NULL);
    g_free(C);
  }
  enum { T = 12 };
  GRand *rng = g_rand_new_with_seed(11);
  double N[T * T] = {0};
  for (guint t = 0; t < T; t++)
    for (guint s = t > 2 ? t - 2 : 0; s <= t; s++)
      N[t * T + s] = s == t ? g_rand_double_range(rng, 0.5, 2.0)
                            : g_rand_double_range(rng, -1.0, 1.0);
  double *C = dense_inverse(N, T); /* dense, so the run streams C^-1 = N directly */
  normalize_c(C, T);
  char *path = write_c(C, T);
  char *spec = g_strdup_printf("mfdsgd:C=%s,block=4", path);
  mf_case(spec, C, NULL, 3, 4, NULL);
  mf_case(spec, C, NULL, 3, 4, "matching");
  g_free(spec);
  remove_c(path);
  g_free(C);
  g_rand_free(rng);
}

/* The named families give the privacy module's matrices. */
static void test_mfdsgd_families(void) {
  enum { T = 6 };
  const struct {
    const char *spec;
    MfBaseline which;
    guint band;
  } cases[] = {{"mfdsgd:C=identity", MF_BASELINE_IDENTITY, 0},
               {"mfdsgd:C=sr", MF_BASELINE_SR, 0},
               {"mfdsgd:C=bsr", MF_BASELINE_BSR, 3}, /* band defaults to b = 3 */
               {"mfdsgd:C=bsr,band=2", MF_BASELINE_BSR, 2}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    GError *err = NULL;
    double *C = mf_baseline(cases[i].which, T, cases[i].band, &err);
    g_assert_no_error(err);
    mf_case(cases[i].spec, C, NULL, 2, 3, NULL);
    g_free(C);
  }
}

/* The C fitted to the run's graph (the privacy module's optimizers on the
 * same uniform gossip) and streamed: every noise coefficient of every
 * message (the provenance linvecs) is the dense C^-1's and the std the
 * dense sensitivity's, to rounding. T = 24 so that the fit warm starts
 * (k = 8). C=toeplitz (@data FALSE): the banded Toeplitz C
 * (mf_mafalda_toeplitz_c), streamed from band - 1 past noises; C=blt
 * (@data TRUE): the BLT C (mf_mafalda_blt_c), streamed from d buffers per
 * node. */
static void test_mfdsgd_fitted(gconstpointer data) {
  gboolean blt = GPOINTER_TO_INT(data);
  GError *err = NULL;
  guint n;
  double *W = test_dense_gossip("florentine", &n);
  const struct {
    const char *spec;
    gboolean blt;
    guint param; /* band (Toeplitz) or buffers (BLT) */
  } cases[] = {{"mfdsgd:C=toeplitz", FALSE, 3},
               {"mafalda:C=toeplitz,band=2", FALSE, 2},
               {"mfdsgd:C=blt,buffers=2", TRUE, 2},
               {"mafalda:C=blt", TRUE, 4}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    if (cases[i].blt != blt)
      continue;
    guint p = cases[i].param;
    double *C = blt ? mf_mafalda_blt_c(W, n, 24, 8, 3, p, NULL, NULL, &err)
                    : mf_mafalda_toeplitz_c(W, n, 24, 8, 3, p, &err);
    g_assert_no_error(err);
    if (blt)
      g_assert_cmpfloat(C[23 * 24], !=, 0.0); /* not banded: C^-1 is full too */
    else
      g_assert_cmpfloat(C[(gsize)p * 24], ==, 0.0); /* banded */
    mf_case(cases[i].spec, C, NULL, 8, 3, NULL);
    g_free(C);
  }
  g_free(W);
}

/* C=blt refuses buffers out of 1..8 and a gossip that changes over time. */
static void test_mfdsgd_blt_errors(void) {
  TopoGraph *g = test_graph("florentine");
  GError *err = NULL;
  TopoSchedule *s = topo_schedule_new("matching", g, TOPO_GOSSIP_UNIFORM, 3, &err);
  g_assert_no_error(err);
  const struct {
    const char *spec;
    TopoSchedule *schedule;
    const char *message;
  } cases[] = {{"mfdsgd:C=blt,buffers=0", NULL, "buffers=0 is out of range [1, 8]"},
               {"mafalda:C=blt,buffers=9", NULL, "buffers=9 is out of range [1, 8]"},
               {"mfdsgd:C=blt", s, "needs a static gossip"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    ProtoRunConfig cfg;
    proto_run_config_init(&cfg);
    cfg.graph = cases[i].schedule ? NULL : g;
    cfg.schedule = cases[i].schedule;
    cfg.protocol = cases[i].spec;
    cfg.sigma = 1.0;
    cfg.epochs = 4;
    cfg.batches = 3;
    ProtoRun *run = proto_run_new(&cfg, &err);
    if (run != NULL) {
      g_assert_false(proto_run_run(run, &err));
      proto_run_free(run);
    }
    g_assert_nonnull(err);
    g_assert_nonnull(strstr(err->message, cases[i].message));
    g_clear_error(&err);
  }
  topo_schedule_free(s);
  topo_graph_free(g);
}

static void test_decor(void) {
  const guint T = 3;
  const double eta = 0.4, sigma = 0.5, secret = 2.0, clip = 1.25;
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.protocol = "decor:sigma_secret=2";
  cfg.sigma = sigma;
  cfg.clip = clip;
  cfg.lr = eta;
  cfg.rounds = T;
  Traced tr = traced_run(&cfg, NULL, 0, T);
  const TopoGraph *g = tr.g;
  guint n = tr.n, m = topo_graph_n_edges(g);
  SimNoiseRegistry *reg = proto_context_noise(proto_run_context(tr.run));
  guint n_noise = sim_noise_registry_count(reg);
  g_assert_cmpuint(n_noise, ==, T * (n + m));
  guint secrets = 0;
  for (SimNoiseId k = 0; k < n_noise; k++) {
    if (sim_noise_kind(reg, k) != SIM_NOISE_KIND_EDGE_SECRET)
      continue;
    secrets++;
    guint a = sim_noise_owner(reg, k, 0), b = sim_noise_owner(reg, k, 1);
    g_assert_cmpuint(sim_noise_n_owners(reg, k), ==, 2);
    g_assert_cmpuint(a, <, b);
    g_assert_true(topo_graph_has_edge(g, a, b));
    g_assert_cmpfloat(sim_noise_std(reg, k), ==, secret * clip);
  }
  g_assert_cmpuint(secrets, ==, T * m);

  double *noise = g_new(double, n_noise);
  double *total = g_new0(double, (gsize)T *n_noise); /* per round: sum over senders */
  for (guint i = 0; i < tr.rec->sent->len; i++) {
    const RecMsg *msg = &g_array_index(tr.rec->sent, RecMsg, i);
    g_assert_true(sim_linvec_row(rec_payload(msg), SIM_LIN_NOISE, noise, n_noise, NULL));
    guint u = msg->from, t = msg->round;
    /* Count each sender's payload once per round (a broadcast is one payload). */
    gboolean first = i == 0 || g_array_index(tr.rec->sent, RecMsg, i - 1).from != u ||
                     g_array_index(tr.rec->sent, RecMsg, i - 1).round != t;
    for (SimNoiseId k = 0; k < n_noise; k++) {
      guint s = sim_noise_round(reg, k);
      double want = 0.0;
      if (s <= t) {
        if (sim_noise_kind(reg, k) == SIM_NOISE_KIND_LOCAL) {
          want = -eta * sigma * clip * products_get(&tr.P, t, s, u, sim_noise_node(reg, k));
        } else {
          guint a = sim_noise_owner(reg, k, 0), b = sim_noise_owner(reg, k, 1);
          want = -eta * secret * clip *
                 (products_get(&tr.P, t, s, u, a) - products_get(&tr.P, t, s, u, b));
        }
      }
      assert_close(noise[k], want, TOL, "decor noise coefficient");
      if (first && sim_noise_kind(reg, k) == SIM_NOISE_KIND_EDGE_SECRET && s == t)
        total[(gsize)t * n_noise + k] += noise[k];
    }
  }
  /* Every node sends every round here (the graph is connected): the
   * secrets of step t cancel in the sum of the step-t messages. */
  for (guint t = 0; t < T; t++)
    for (SimNoiseId k = 0; k < n_noise; k++)
      g_assert_cmpfloat(total[(gsize)t * n_noise + k], ==, 0.0);
  g_free(total);
  g_free(noise);
  traced_clear(&tr);
}

/* DECOR with sigma = 0 and the default secret multiplier (= sigma): no noise. */
static void test_decor_defaults(void) {
  TopoGraph *g = test_graph("florentine");
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "decor";
  cfg.sigma = 0.0;
  cfg.rounds = 2;
  ProtoRun *run = make_run(&cfg);
  run_ok(run);
  g_assert_cmpuint(sim_noise_registry_count(proto_context_noise(proto_run_context(run))), ==, 0);
  proto_run_free(run);
  cfg.sigma = 0.5;
  run = make_run(&cfg);
  run_ok(run);
  SimNoiseRegistry *reg = proto_context_noise(proto_run_context(run));
  for (SimNoiseId k = 0; k < sim_noise_registry_count(reg); k++)
    g_assert_cmpfloat(sim_noise_std(reg, k), ==, 0.5);
  proto_run_free(run);
  topo_graph_free(g);
}

static void zipdl_case(guint T, const char *units, double scale) {
  const double sigma = 0.7, eta = 0.3;
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  char *spec = g_strdup_printf("zipdl:units=%s", units);
  cfg.protocol = spec;
  cfg.sigma = sigma;
  cfg.lr = eta;
  cfg.rounds = T;
  Traced tr = traced_run(&cfg, NULL, 0, T);
  guint n = tr.n;
  SimNoiseRegistry *reg = proto_context_noise(proto_run_context(tr.run));
  guint n_noise = sim_noise_registry_count(reg);
  /* One variable per (sender, receiver incl. itself, step). */
  g_assert_cmpuint(n_noise, ==, T * (n + 2 * topo_graph_n_edges(tr.g)));
  double *noise = g_new(double, n_noise), *grad = g_new(double, (gsize)n *T);
  /* c[i][j][k]: coefficient of y_{i,k} (round T-1) in m_ij. */
  double *c = g_new0(double, (gsize)n *n *n);
  guint t_last = T - 1;
  for (guint x = 0; x < tr.rec->sent->len; x++) {
    const RecMsg *msg = &g_array_index(tr.rec->sent, RecMsg, x);
    guint i = msg->from, j = msg->to, t = msg->round;
    g_assert_true(sim_linvec_row(rec_payload(msg), SIM_LIN_NOISE, noise, n_noise, NULL));
    g_assert_true(sim_linvec_row(rec_payload(msg), SIM_LIN_GRAD, grad, (gsize)n * T, NULL));
    /* Gradients as in D-SGD: m_ij = theta_i - eta g_i + zeta_ij. */
    for (guint s = 0; s < T; s++)
      for (guint v = 0; v < n; v++)
        assert_close(grad[s * n + v], s <= t ? -eta * products_get(&tr.P, t, s, i, v) : 0.0, TOL,
                     "zipdl gradient");
    /* The sender's own variables of this round: receivers in increasing
     * order; zeta_ij = sum_k (delta_jk - w_j w_k / w^T w) y_ik. */
    double ww = 0.0;
    for (guint v = 0; v < n; v++)
      ww += tr.W[t][v * n + i] * tr.W[t][v * n + i];
    guint kk = 0;
    for (SimNoiseId k = 0; k < n_noise; k++) {
      if (sim_noise_node(reg, k) != i || sim_noise_round(reg, k) != t)
        continue;
      while (kk != i && tr.W[t][kk * n + i] == 0.0) /* the k-th receiver */
        kk++;
      double want = scale * sigma * ((kk == j) - tr.W[t][j * n + i] * tr.W[t][kk * n + i] / ww);
      assert_close(noise[k], want, TOL, "zeta coefficient");
      if (t == t_last)
        c[((gsize)i * n + j) * n + kk] = noise[k];
      kk++;
    }
  }
  /* m_ii is never sent: read it off i's final model, theta_i = sum_j W[i,j] m_ji,
   * where only m_ii carries i's own y's of the last round. Then the
   * gossip-weighted sum over receivers vanishes. */
  for (guint i = 0; i < n; i++) {
    const SimLinvec *theta = proto_run_node_model(tr.run, i);
    guint kk = 0;
    for (SimNoiseId k = 0; k < n_noise; k++) {
      if (sim_noise_node(reg, k) != i || sim_noise_round(reg, k) != t_last)
        continue;
      while (kk != i && tr.W[t_last][kk * n + i] == 0.0)
        kk++;
      c[((gsize)i * n + i) * n + kk] = sim_linvec_noise_coeff(theta, k) / tr.W[t_last][i * n + i];
      double sum = 0.0;
      for (guint j = 0; j < n; j++)
        sum += tr.W[t_last][j * n + i] * c[((gsize)i * n + j) * n + kk];
      assert_close(sum, 0.0, TOL, "gossip-weighted zeta sum");
      kk++;
    }
  }
  g_free(c);
  g_free(grad);
  g_free(noise);
  g_free(spec);
  traced_clear(&tr);
}

static void test_zipdl(void) {
  zipdl_case(1, "model", 1.0);
  zipdl_case(3, "model", 1.0);
  zipdl_case(2, "gradient", -0.3);
}

/* The provenance slot: set by the runtime, read by the observer. */
static void test_message_slot(void) {
  TopoGraph *g = test_graph("florentine");
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "zipdl";
  cfg.rounds = 2;
  cfg.sigma = 1.0;
  ProtoRun *run = make_run(&cfg);
  Recorder *rec = recorder_attach(run);
  run_ok(run);
  g_assert_cmpuint(rec->sent->len, >, 0);
  SimLinSpace *space = proto_context_space(proto_run_context(run));
  for (guint i = 0; i < rec->sent->len; i++) {
    const RecMsg *m = &g_array_index(rec->sent, RecMsg, i);
    const SimLinvec *x = sim_message_provenance(m->msg);
    g_assert_nonnull(x);
    g_assert_true(sim_linvec_space(x) == space);
    g_assert_true(sim_message_payload(m->msg) == (gpointer)x);
    g_assert_cmpfloat(sim_linvec_grad_coeff(x, m->from, m->round), !=, 0.0);
  }

  /* An observer fed a message whose payload is not a linvec (here 64 bytes
   * of 0xff, nothing like one) ignores it, then accounts a linvec message. */
  GError *err = NULL;
  PrivObserver *obs = priv_observer_new(space, &err);
  g_assert_no_error(err);
  guint attacker = 2;
  g_assert_cmpuint(priv_observer_add_view(obs, PRIV_TRUST_LDP, &attacker, 1, &err), ==, 0);
  guint8 *opaque = g_malloc(64);
  memset(opaque, 0xff, 64);
  SimMessage *msg = sim_message_new(0, 0, 0, opaque, 64, g_free);
  g_assert_null(sim_message_provenance(msg));
  SimBusEvent ev = {.kind = SIM_BUS_MESSAGE_SENT, .from = 0, .to = 1, .message = msg};
  priv_observer_observe(obs, &ev);
  sim_message_unref(msg);
  g_assert_cmpuint(priv_observer_n_rows(obs, 0), ==, 0);
  const RecMsg *first = &g_array_index(rec->sent, RecMsg, 0);
  ev.message = first->msg;
  priv_observer_observe(obs, &ev);
  g_assert_cmpuint(priv_observer_n_rows(obs, 0), ==, 1);
  PrivKnowledge *k = priv_observer_knowledge(obs, 0, &err);
  g_assert_no_error(err); /* no "payload of another space" */
  g_assert_nonnull(k);
  priv_knowledge_free(k);
  priv_observer_free(obs);
  recorder_free(rec);
  proto_run_free(run);
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/provenance/dsgd/static", test_dsgd_static);
  g_test_add_func("/provenance/dsgd/matching", test_dsgd_matching);
  g_test_add_func("/provenance/dsgd/exponential", test_dsgd_exponential);
  g_test_add_func("/provenance/muffliato", test_muffliato);
  g_test_add_func("/provenance/muffliato_k1_is_dsgd", test_muffliato_k1_is_dsgd);
  g_test_add_func("/provenance/antipgd", test_antipgd);
  g_test_add_func("/provenance/mfdsgd/random_c", test_mfdsgd_random_c);
  g_test_add_func("/provenance/mfdsgd/families", test_mfdsgd_families);
  g_test_add_func("/provenance/mfdsgd/blocked", test_mfdsgd_blocked);
  g_test_add_data_func("/provenance/mfdsgd/toeplitz", GINT_TO_POINTER(FALSE), test_mfdsgd_fitted);
  g_test_add_data_func("/provenance/mfdsgd/blt", GINT_TO_POINTER(TRUE), test_mfdsgd_fitted);
  g_test_add_func("/provenance/mfdsgd/blt-errors", test_mfdsgd_blt_errors);
  g_test_add_func("/provenance/decor", test_decor);
  g_test_add_func("/provenance/decor/defaults", test_decor_defaults);
  g_test_add_func("/provenance/zipdl", test_zipdl);
  g_test_add_func("/provenance/message-slot", test_message_slot);
  return g_test_run();
}
