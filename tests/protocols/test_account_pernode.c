/*
 * tests/protocols/test_account_pernode.c: MF-D-SGD with one C per class of
 * nodes (a C-set file, `mfdsgd:C=FILE`), run and accounted.
 *   - The observer path (a real run of the protocol, each node streaming its
 *     own class's noise, read from the provenance) equals the structured
 *     path (the job's own problem: its C-set as prepared from the file; the
 *     W-power and dense engines and AUTO) block by block, statuses
 *     identical, on random graphs of 20 to 300 nodes, two classes (BSR of
 *     band 2 and SR), PNDP, LDP and SecLDP, one attacker and a set, b = 1
 *     and 2. Not vacuous: the blocks differ from those of either class's C
 *     given to every node by far more than the tolerance.
 *   - The Kalman engine, each node carrying its own class's noise state
 *     (classes of different orders), equals the observer path on static
 *     and time-varying W, on a deadline run's delivery record and on a
 *     stale run's (the delayed slots beside the noise states).
 *   - The Kalman engine's memory follows each node's own class's order.
 *   - One class is today's single C: the same run and the same accounting,
 *     bit for bit (the job, and the Kalman and dense engines themselves).
 *   - The local path with a C-set: each ball node keeps its own class's C,
 *     never below the exact values, equal once the ball covers the graph,
 *     in synchronous runs and on deadline and stale runs' delivery records.
 *   - What cannot take a C per node says so: the Kalman engine with a class
 *     whose C has no low-order state (and stale mode's plan then takes the
 *     observer path), a family by formula that needs one C.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "mf/blt.h"
#include "mf/mf.h"
#include "observe_test.h"
#include "protocols/protocols.h"
#include "tests/common/files.h"
#include "tests/common/tolerance.h"

static TopoGraph *graph(const char *spec) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(spec, &err);
  g_assert_no_error(err);
  return g;
}

static double *baseline(MfBaseline which, guint T, guint band) {
  GError *err = NULL;
  double *C = mf_baseline(which, T, band, &err);
  g_assert_no_error(err);
  return C;
}

/* Writes the C-set of the @K T x T matrices @Cs and the classes @cls of
 * @n nodes to @path. */
static void write_cset(const char *path, double *const *Cs, guint K, guint T, const guint *cls,
                       guint n) {
  MfCSet set = {.n_classes = K, .n_nodes = n, .T = T};
  set.C = g_new(double, (gsize)K *T *T);
  for (guint k = 0; k < K; k++)
    memcpy(set.C + (gsize)k * T * T, Cs[k], sizeof(double) * T * T);
  set.node_class = g_memdup2(cls, sizeof(guint) * n);
  GError *err = NULL;
  g_assert_true(mf_cset_write(path, &set, &err));
  g_assert_no_error(err);
  mf_cset_clear(&set);
}

/* Each node's class: a pseudo-random half of the nodes in class 1. */
static guint *random_classes(guint n, guint32 seed) {
  GRand *r = g_rand_new_with_seed(seed);
  guint *cls = g_new(guint, n);
  for (guint v = 0; v < n; v++)
    cls[v] = (guint)g_rand_int_range(r, 0, 2);
  cls[0] = 0;
  cls[n - 1] = 1; /* both classes have nodes */
  g_rand_free(r);
  return cls;
}

/* A request for @protocol at T, b, against @attackers under @trust. */
static ProtoAccountRequest request(const char *protocol, guint T, guint b, const char *trust,
                                   const char *const *attackers, const char *path) {
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = protocol;
  r.rounds = (gint)T;
  r.interval = (gint)b;
  r.trust = trust;
  r.attackers = attackers;
  r.sigma = 0.7;
  r.path = path;
  return r;
}

static ProtoAccountJob *planned(const ProtoAccountRequest *r, const TopoGraph *g) {
  GError *e = NULL;
  ProtoAccountJob *j = proto_account_validate(r, NULL, &e);
  g_assert_no_error(e);
  g_assert_true(proto_account_job_plan(j, g, "the graph", NULL, &e));
  g_assert_no_error(e);
  return j;
}

static double max_abs(const double *x, gsize len) {
  double m = 0.0;
  for (gsize i = 0; i < len; i++)
    m = MAX(m, fabs(x[i]));
  return m;
}

/* The largest entry difference of two blocks over their largest entry. */
static double rel_diff(const PrivBlocks *a, const PrivBlocks *b) {
  gsize len = (gsize)a->n * a->T * a->T;
  double d = 0.0;
  for (gsize i = 0; i < len; i++)
    d = MAX(d, fabs(a->X[i] - b->X[i]));
  double s = max_abs(b->X, len);
  return s > 0 ? d / s : d;
}

/*
 * The tolerance of two solves of the same Fisher information (as
 * test_account_observer.c's blocks_tol): a backward-stable solve over @N
 * messages errs by eps x cond x N of the largest entry, cond the largest
 * condition number of the message covariances the engine measured
 * (PrivBlocks.cond; at least 1). Each node's noise enters through its own
 * class's C, so the covariance's entries are the same sums as with one C
 * (n T^2 products), and the same bound holds.
 */
static double blocks_tol(const PrivBlocks *a, const PrivBlocks *b, double N) {
  return dpg_tol(MAX(MAX(a->cond, b->cond), 1.0), N);
}

/*
 * The observer's blocks of the run of `mfdsgd:C=CSET` against the job's
 * structured problem on every engine, for the sets @a and @c under every
 * trust model, b = 1 and 2.
 */
static void check_pernode(const char *gspec, guint T, const char *a, const char *c, guint32 seed) {
  TopoGraph *g = graph(gspec);
  guint n = topo_graph_n_nodes(g);
  char *dir = test_tmpdir("pernode");
  char *path = g_build_filename(dir, "cset.csv", NULL);
  double *Cs[] = {baseline(MF_BASELINE_BSR, T, 2), baseline(MF_BASELINE_SR, T, 0)};
  guint *cls = random_classes(n, seed);
  write_cset(path, Cs, 2, T, cls, n);
  char *proto = g_strdup_printf("mfdsgd:C=%s", path);
  const char *trusts[] = {"ldp", "pndp", "secldp"};
  const char *const sets[] = {a, c};
  for (guint b = 1; b <= 2; b++) {
    /* One observed run, one view per (trust, set). */
    const guint *members[2];
    guint sizes[2];
    ProtoAccountJob *jm[3][2];
    ObsView views[6];
    for (guint t = 0; t < 3; t++)
      for (guint s = 0; s < 2; s++) {
        const char *att[] = {sets[s], NULL};
        ProtoAccountRequest r = request(proto, T, b, trusts[t], att, "structured");
        jm[t][s] = planned(&r, g);
        GError *e = NULL;
        g_assert_true(proto_account_job_prepare(jm[t][s], &e));
        g_assert_no_error(e);
        /* The file's two classes reached the job. */
        g_assert_cmpuint(jm[t][s]->cset.n_classes, ==, 2);
        members[s] = jm[t][s]->acs[0].attackers;
        sizes[s] = jm[t][s]->acs[0].n_attackers;
        views[2 * t + s] = (ObsView){jm[t][s]->acs[0].trust, members[s], sizes[s]};
      }
    ProtoRunConfig cfg;
    proto_run_config_init(&cfg);
    cfg.graph = g;
    cfg.protocol = proto;
    cfg.rounds = T;
    cfg.batches = b;
    cfg.sigma = 0.7;
    cfg.lr = 0.3;
    ObsRun o = obs_run_config(&cfg, views, 6, NULL);
    PrivBlocks **obs = obs_run_blocks(&o);
    obs_run_clear(&o);
    for (guint v = 0; v < 6; v++) {
      ProtoAccountJob *j = jm[v / 2][v % 2];
      PrivStructuredProblem p = proto_account_job_problem(j, 0);
      g_assert_nonnull(p.C_class);
      const PrivEngine engines[] = {PRIV_ENGINE_AUTO, PRIV_ENGINE_POWERS, PRIV_ENGINE_DENSE};
      for (guint e = 0; e < G_N_ELEMENTS(engines); e++) {
        p.engine = engines[e];
        GError *err = NULL;
        PrivBlocks *st = proto_account_structured(&p, j->w, NULL, &err);
        g_assert_no_error(err);
        double tol = blocks_tol(obs[v], st, (double)n * T); /* n messages a round */
        double d = rel_diff(obs[v], st);
        g_test_message("%s, %s, set %s, b = %u, engine %u: blocks differ by %.3g (tol %.3g)", gspec,
                       trusts[v / 2], sets[v % 2], b, (guint)engines[e], d, tol);
        g_assert_cmpmem(obs[v]->status, sizeof(*st->status) * n, st->status,
                        sizeof(*st->status) * n);
        dpg_test_assert_le(d, tol, "eps x cond(message covariances) x N messages");
        if (e == 0) {
          /* Each class's C given to every node: far from the per-node blocks. */
          for (guint k = 0; k < 2; k++) {
            PrivStructuredProblem q = p;
            q.C_set = NULL;
            q.C_class = NULL;
            q.n_C = 0;
            q.C_local = Cs[k];
            PrivBlocks *one = proto_account_structured(&q, j->w, NULL, &err);
            g_assert_no_error(err);
            g_assert_cmpfloat(rel_diff(one, st), >, 1e3 * tol);
            priv_blocks_free(one);
          }
        }
        priv_blocks_free(st);
      }
    }
    /* The jobs execute on both paths (reports, the LDP cap of the classes). */
    for (guint t = 0; t < 3; t++) {
      GError *e = NULL;
      g_assert_true(proto_account_job_execute(jm[t][0], &e));
      g_assert_no_error(e);
      g_assert_nonnull(jm[t][0]->acs[0].report);
    }
    obs_blocks_free(obs, 6);
    for (guint t = 0; t < 3; t++)
      for (guint s = 0; s < 2; s++)
        proto_account_job_free(jm[t][s]);
  }
  g_remove(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
  g_free(proto);
  g_free(cls);
  g_free(Cs[0]);
  g_free(Cs[1]);
  topo_graph_free(g);
}

static void test_observer_equals_structured(void) {
  check_pernode("erdos:n=20,p=0.2,seed=5,connected=true", 4, "0", "3+11+17", 1);
  /* Isolated nodes send nothing: LDP and SecLDP reach the engines. */
  check_pernode("erdos:n=30,p=0.06,seed=1", 4, "1", "1+7", 2);
  check_pernode("barabasi:n=80,m=2,seed=4", 4, "0", "5+9", 3);
  check_pernode("regular:n=300,d=4,seed=1", 4, "0", "2+40", 4);
}

/* One class: the run and the accounting of the single C, bit for bit. */
static void test_one_class_is_one_c(void) {
  TopoGraph *g = graph("erdos:n=25,p=0.2,seed=9,connected=true");
  guint n = topo_graph_n_nodes(g), T = 6;
  char *dir = test_tmpdir("pernode1");
  char *cset = g_build_filename(dir, "cset.csv", NULL),
       *plain = g_build_filename(dir, "C.csv", NULL);
  double *C = baseline(MF_BASELINE_BSR, T, 2);
  guint *cls = g_new0(guint, n);
  write_cset(cset, &C, 1, T, cls, n);
  GError *err = NULL;
  g_assert_true(mf_matrix_write_csv(plain, C, T, T, &err));
  char *p1 = g_strdup_printf("mfdsgd:C=%s", cset), *p2 = g_strdup_printf("mfdsgd:C=%s", plain);
  const char *att[] = {"0", "2+5", NULL};
  const char *paths[] = {"structured", "observer"};
  for (guint b = 1; b <= 2; b++)
    for (guint ip = 0; ip < 2; ip++) {
      ProtoAccountRequest r1 = request(p1, T, b, "ldp,pndp,secldp", att, paths[ip]);
      ProtoAccountRequest r2 = request(p2, T, b, "ldp,pndp,secldp", att, paths[ip]);
      ProtoAccountJob *j1 = planned(&r1, g), *j2 = planned(&r2, g);
      g_assert_true(proto_account_job_execute(j1, &err));
      g_assert_true(proto_account_job_execute(j2, &err));
      g_assert_no_error(err);
      g_assert_cmpuint(j1->n_acs, ==, j2->n_acs);
      for (guint a = 0; a < j1->n_acs; a++) {
        const PrivReport *x = j1->acs[a].report, *y = j2->acs[a].report;
        g_assert_cmpuint(x->n_victims, ==, y->n_victims);
        for (guint i = 0; i < x->n_victims; i++) {
          g_assert_cmpuint(x->victims[i].node, ==, y->victims[i].node);
          g_assert_cmpfloat(x->victims[i].mu, ==, y->victims[i].mu);
          g_assert_cmpint(x->victims[i].unprotected, ==, y->victims[i].unprotected);
        }
      }
      proto_account_job_free(j1);
      proto_account_job_free(j2);
    }
  g_remove(cset);
  g_remove(plain);
  g_rmdir(dir);
  g_free(p1);
  g_free(p2);
  g_free(cset);
  g_free(plain);
  g_free(dir);
  g_free(cls);
  g_free(C);
  topo_graph_free(g);
}

static double *blt2_c(guint T);

/* What takes one C for every node refuses a C-set, saying why. */
static void test_refusals(void) {
  TopoGraph *g = graph("erdos:n=20,p=0.2,seed=5,connected=true");
  guint n = topo_graph_n_nodes(g), T = 4;
  char *dir = test_tmpdir("pernode2");
  char *path = g_build_filename(dir, "cset.csv", NULL);
  double *Cs[] = {baseline(MF_BASELINE_BSR, T, 2), baseline(MF_BASELINE_SR, T, 0)};
  guint *cls = random_classes(n, 7);
  write_cset(path, Cs, 2, T, cls, n);
  char *proto = g_strdup_printf("mfdsgd:C=%s", path);
  const char *att[] = {"0", NULL};
  GError *err = NULL;
  /* The Kalman engine: class 1's C, a generic dense one at T = 40, has no
   * state of at most 16 values (its Hankel blocks have rank min(k, T - k)),
   * named in the refusal; AUTO takes another engine. */
  guint T2 = 40;
  double *C2 = g_new0(double, 2 * (gsize)T2 * T2), *bsr = baseline(MF_BASELINE_BSR, T2, 2);
  memcpy(C2, bsr, sizeof(double) * T2 * T2);
  GRand *rnd = g_rand_new_with_seed(3);
  for (guint i = 0; i < T2; i++)
    for (guint k = 0; k <= i; k++)
      C2[(gsize)T2 * T2 + (gsize)i * T2 + k] = k == i ? g_rand_double_range(rnd, 0.5, 1.5)
                                                      : g_rand_double_range(rnd, -0.6, 0.6);
  g_rand_free(rnd);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  const TopoGossip *ws[] = {w};
  const guint a0[] = {0};
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_MFDSGD,
                             .C_set = C2,
                             .C_class = cls,
                             .n_C = 2,
                             .T = T2,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = a0,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .engine = PRIV_ENGINE_KALMAN};
  g_assert_null(priv_structured_blocks(&p, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "the Kalman engine cannot carry MF-D-SGD's noise: class 1: "
                                        "C_local^-1 needs a state of"));
  g_clear_error(&err);
  p.engine = PRIV_ENGINE_AUTO;
  PrivBlocks *blocks = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  priv_blocks_free(blocks);
  /* Stale mode's record on the structured path needs every class's state
   * (proto_account_job_recordable): with it the plan takes the structured
   * path, without it the observer path. */
  for (guint k = 0; k < 2; k++) {
    double *two[] = {bsr, k ? C2 + (gsize)T2 * T2 : bsr};
    if (k == 0)
      two[1] = blt2_c(T2);
    write_cset(path, two, 2, T2, cls, n);
    if (k == 0)
      g_free(two[1]);
    ProtoAccountRequest r = request(proto, T2, 1, "pndp", att, NULL);
    r.mode = "stale:s=2";
    ProtoAccountJob *j = planned(&r, g);
    g_assert_cmpint(proto_account_job_recordable(j), ==, k == 0);
    g_assert_cmpint(j->path, ==, k == 0 ? PROTO_ACCOUNT_STRUCTURED : PROTO_ACCOUNT_OBSERVER);
    proto_account_job_free(j);
  }
  write_cset(path, Cs, 2, T, cls, n);
  g_free(C2);
  g_free(bsr);
  topo_gossip_free(w);
  /* Where one C is needed (a scenario's recipe). */
  ProtoCRecipe rec = {.spec = path, .T = T, .k = T, .b = 1};
  g_assert_null(proto_c_local(&rec, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "is a C-set"));
  g_clear_error(&err);
  /* A run on a graph of another size: the node the file lacks. */
  TopoGraph *g2 = graph("ring:n=21");
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g2;
  cfg.protocol = proto;
  cfg.rounds = T;
  g_assert_null(proto_run_new(&cfg, &err));
  g_assert_error(err, PROTO_ERROR, PROTO_ERROR_FORMAT);
  g_assert_nonnull(strstr(err->message, "node 20 has no class"));
  g_clear_error(&err);
  topo_graph_free(g2);
  g_remove(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
  g_free(proto);
  g_free(cls);
  g_free(Cs[0]);
  g_free(Cs[1]);
  topo_graph_free(g);
}

/* A BLT C of two buffers (a state of order 2), one weight negative (as
 * fitted BLTs have), as its dense lower-triangular Toeplitz T x T matrix. */
static double *blt2_c(guint T) {
  const double theta[] = {0.9, 0.4}, wt[] = {-0.5, 0.2};
  GError *err = NULL;
  g_assert_true(mf_blt_check(theta, wt, 2, &err));
  double *c = g_new(double, T), *C = g_new0(double, (gsize)T *T);
  mf_blt_coefficients(theta, wt, 2, T, c);
  for (guint t = 0; t < T; t++)
    for (guint s = 0; s <= t; s++)
      C[(gsize)t * T + s] = c[t - s];
  g_free(c);
  return C;
}

/*
 * The Kalman engine with a C per class (BSR of band 2: a state of order 1;
 * a BLT of 2 buffers: order 2; so the nodes' slots differ in size) against
 * the observer path on the run of `mfdsgd:C=CSET` on @gspec (@sched: a
 * schedule of time-varying W_r, NULL static; @mode NULL synchronous, else
 * an asynchronous mode accounted on the run's delivery record: deadline,
 * its gathers' W_r; stale, the delayed slots beside the noise states):
 * blocks within eps x cond x (n T^2 + n T) (the state's covariance sums
 * n T^2 products a round, as check_mf_stale in test_account_observer.c),
 * statuses identical, PNDP, LDP and SecLDP (@every_trust; else PNDP only),
 * one attacker @a and the set @c, b = 1 and 2. The dense engine agrees too where it applies (not
 * stale). *@differs counts the PNDP accountings whose blocks differ from
 * class 0's C at every node by more than 1e-6, far above the tolerance.
 */
static void check_kalman(const char *gspec, const char *sched, const char *mode,
                         gboolean every_trust, guint a, const guint *c, guint nc, guint32 seed,
                         guint *differs) {
  TopoGraph *g = graph(gspec);
  guint n = topo_graph_n_nodes(g), T = 4;
  char *dir = test_tmpdir("pernode-kalman");
  char *path = g_build_filename(dir, "cset.csv", NULL);
  double *Cs[] = {baseline(MF_BASELINE_BSR, T, 2), blt2_c(T)};
  guint *cls = random_classes(n, seed);
  write_cset(path, Cs, 2, T, cls, n);
  char *proto = g_strdup_printf("mfdsgd:C=%s", path);
  GError *err = NULL;
  MfCSet set = {0};
  /* The engines take the classes as the file gives them (bit for bit). */
  g_assert_true(proto_cmatrix_load_cset(path, T, n, &set, &err));
  g_assert_no_error(err);
  TopoSchedule *sc = sched ? topo_schedule_new(sched, g, TOPO_GOSSIP_UNIFORM, seed, &err) : NULL;
  g_assert_no_error(err);
  const guint one[] = {a};
  ObsView views[] = {{PRIV_TRUST_PNDP, one, 1}, {PRIV_TRUST_PNDP, c, nc},
                     {PRIV_TRUST_LDP, one, 1},  {PRIV_TRUST_SECLDP, c, nc},
                     {PRIV_TRUST_LDP, c, nc},   {PRIV_TRUST_SECLDP, one, 1}};
  guint nv = every_trust ? G_N_ELEMENTS(views) : 2;
  for (guint b = 1; b <= 2; b++) {
    ProtoRunConfig cfg;
    proto_run_config_init(&cfg);
    cfg.graph = sc ? NULL : g;
    cfg.schedule = sc;
    cfg.protocol = proto;
    cfg.rounds = T;
    cfg.batches = b;
    cfg.sigma = 0.7;
    cfg.lr = 0.3;
    cfg.mode = mode;
    if (mode) {
      cfg.latency = "lognormal:mu=3,sigma=0.5";
      cfg.loss = "0.05";
    }
    cfg.seed = seed + b;
    ObsRun o = obs_run_config(&cfg, views, nv, NULL);
    ProtoRunStats st;
    proto_run_get_stats(o.run, &st);
    PrivBlocks **obs = obs_run_blocks(&o);
    obs_run_clear(&o);
    ProtoDeliveries *d = NULL;
    TopoGossip **ws = NULL;
    guint n_ws = 1;
    if (mode) {
      d = proto_deliveries_record(&cfg, T, NULL, NULL, &err);
      g_assert_no_error(err);
      if (g_str_has_prefix(mode, "stale")) {
        g_assert_cmpuint(st.stale_inputs, >, 0);
        g_assert_cmpuint(proto_deliveries_delayed(d), >, 0);
      } else {
        g_assert_cmpuint(st.partial_gathers, >, 0);
      }
    } else {
      n_ws = sc ? T : 1;
      ws = g_new(TopoGossip *, n_ws);
      for (guint r = 0; r < n_ws; r++) {
        ws[r] = sc ? topo_schedule_gossip(sc, r, &err) : topo_gossip_new(g, cfg.gossip, &err);
        g_assert_no_error(err);
      }
    }
    for (guint v = 0; v < nv; v++) {
      PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_MFDSGD,
                                 .C_set = set.C,
                                 .C_class = set.node_class,
                                 .n_C = set.n_classes,
                                 .T = T,
                                 .b = b,
                                 .gossip = d ? proto_deliveries_gossip(d)
                                             : (const TopoGossip *const *)ws,
                                 .n_gossip = d ? proto_deliveries_rounds(d) : n_ws,
                                 .messages = d ? proto_deliveries_messages(d) : NULL,
                                 .n_delayed = d ? proto_deliveries_delayed(d) : 0,
                                 .trust = views[v].trust,
                                 .attackers = views[v].members,
                                 .n_attackers = views[v].n_members,
                                 .sigma = 0.7,
                                 .engine = PRIV_ENGINE_KALMAN};
      PrivBlocks *kb = priv_structured_blocks(&p, &err);
      g_assert_no_error(err);
      double tol = blocks_tol(obs[v], kb, (double)n * T * T + (double)n * T);
      double diff = rel_diff(obs[v], kb);
      g_test_message("%s%s%s%s, view %u, b = %u: Kalman blocks differ by %.3g (tol %.3g)", gspec,
                     sched ? ", " : "", sched ? sched : "", mode ? mode : "", v, b, diff, tol);
      g_assert_cmpmem(obs[v]->status, sizeof(*kb->status) * n, kb->status, sizeof(*kb->status) * n);
      dpg_test_assert_le(diff, tol, "eps x cond(message covariances) x (n T^2 + n T)");
      if (p.n_delayed == 0) {
        p.engine = PRIV_ENGINE_DENSE;
        PrivBlocks *db = priv_structured_blocks(&p, &err);
        g_assert_no_error(err);
        dpg_test_assert_le(rel_diff(db, kb), blocks_tol(db, kb, (double)n * T * T + (double)n * T),
                           "eps x cond(message covariances) x (n T^2 + n T)");
        priv_blocks_free(db);
        p.engine = PRIV_ENGINE_KALMAN;
      }
      if (views[v].trust == PRIV_TRUST_PNDP) {
        PrivStructuredProblem q = p;
        q.C_set = NULL;
        q.C_class = NULL;
        q.n_C = 0;
        q.C_local = Cs[0];
        PrivBlocks *one_c = priv_structured_blocks(&q, &err);
        g_assert_no_error(err);
        double dd = 0.0;
        for (gsize i = 0; i < (gsize)n * T * T; i++)
          dd = MAX(dd, fabs(one_c->X[i] - kb->X[i]));
        *differs += dd > 1e-6;
        priv_blocks_free(one_c);
      }
      priv_blocks_free(kb);
    }
    for (guint r = 0; ws && r < n_ws; r++)
      topo_gossip_free(ws[r]);
    g_free(ws);
    proto_deliveries_free(d);
    obs_blocks_free(obs, nv);
  }
  mf_cset_clear(&set);
  topo_schedule_free(sc);
  g_remove(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
  g_free(proto);
  g_free(cls);
  g_free(Cs[0]);
  g_free(Cs[1]);
  topo_graph_free(g);
}

static void test_kalman_equals_observer(void) {
  guint differs = 0;
  const guint c1[] = {3, 11, 17}, c2[] = {5, 9}, c3[] = {2, 40};
  check_kalman("erdos:n=20,p=0.2,seed=5,connected=true", NULL, NULL, TRUE, 0, c1, 3, 1, &differs);
  check_kalman("barabasi:n=80,m=2,seed=4", "matching", NULL, TRUE, 0, c2, 2, 3, &differs);
  check_kalman("erdos:n=30,p=0.15,seed=2,connected=true", NULL, "deadline:ms=25", TRUE, 1, c1, 3, 5,
               &differs);
  check_kalman("erdos:n=20,p=0.3,seed=4,connected=true", NULL, "stale:s=2", TRUE, 2, c1, 3, 7,
               &differs);
  check_kalman("regular:n=300,d=4,seed=1", NULL, "stale:s=2", FALSE, 0, c3, 2, 9, &differs);
  g_assert_cmpuint(differs, >=, 4);
}

/*
 * One class is the one C on the engines themselves, bit for bit: a C-set
 * of one class, and one of two classes whose every node is in class 0 (r_0
 * = 1: the factors and the Kalman realization are class 0's unscaled),
 * against C_local = class 0's C, on the Kalman and dense engines.
 */
static void test_kalman_one_class_bits(void) {
  TopoGraph *g = graph("erdos:n=25,p=0.2,seed=9,connected=true");
  guint n = topo_graph_n_nodes(g), T = 6;
  GError *err = NULL;
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  const TopoGossip *ws[] = {w};
  double *Cs = g_new(double, 2 * (gsize)T * T), *B = baseline(MF_BASELINE_BSR, T, 3),
         *L = blt2_c(T);
  memcpy(Cs, B, sizeof(double) * T * T);
  memcpy(Cs + (gsize)T * T, L, sizeof(double) * T * T);
  guint *zero = g_new0(guint, n);
  const guint att[] = {0, 4};
  const PrivEngine engines[] = {PRIV_ENGINE_KALMAN, PRIV_ENGINE_DENSE};
  const PrivTrust trusts[] = {PRIV_TRUST_PNDP, PRIV_TRUST_SECLDP};
  for (guint e = 0; e < 2; e++)
    for (guint t = 0; t < 2; t++)
      for (guint k = 1; k <= 2; k++) {
        PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_MFDSGD,
                                   .C_local = B,
                                   .T = T,
                                   .b = 2,
                                   .gossip = ws,
                                   .n_gossip = 1,
                                   .trust = trusts[t],
                                   .attackers = att,
                                   .n_attackers = 2,
                                   .sigma = 0.7,
                                   .engine = engines[e]};
        PrivBlocks *one = priv_structured_blocks(&p, &err);
        g_assert_no_error(err);
        p.C_local = NULL;
        p.C_set = Cs;
        p.C_class = zero;
        p.n_C = k;
        PrivBlocks *set = priv_structured_blocks(&p, &err);
        g_assert_no_error(err);
        g_assert_cmpmem(one->X, sizeof(double) * n * T * T, set->X, sizeof(double) * n * T * T);
        g_assert_cmpmem(one->status, sizeof(*one->status) * n, set->status,
                        sizeof(*set->status) * n);
        priv_blocks_free(one);
        priv_blocks_free(set);
      }
  g_free(zero);
  g_free(Cs);
  g_free(B);
  g_free(L);
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* The least memory budget (PrivStructuredProblem.max_bytes) under which
 * @p runs: the Kalman engine's pre-check refuses below its need with
 * PRIV_ERROR_MEMORY before allocating. Bisection over [1, 2^40]. */
static gsize least_budget(PrivStructuredProblem p) {
  gsize lo = 1, hi = (gsize)1 << 40;
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    p.max_bytes = mid;
    GError *err = NULL;
    PrivBlocks *b = priv_structured_blocks(&p, &err);
    if (b != NULL) {
      hi = mid;
    } else {
      g_assert_error(err, PRIV_ERROR, PRIV_ERROR_MEMORY);
      g_clear_error(&err);
      lo = mid + 1;
    }
    priv_blocks_free(b);
  }
  return lo;
}

/*
 * The Kalman engine's memory with a C per class follows each node's own
 * class's order: the least budget it runs under with classes of orders 1
 * (BSR band 2) and 2 (a 2-buffer BLT) lies strictly between those with
 * every class of order 1 and every class of order 2 (padding each node's
 * state to the largest order would make it the latter's).
 */
static void test_kalman_memory(void) {
  TopoGraph *g = graph("erdos:n=40,p=0.15,seed=3,connected=true");
  guint n = topo_graph_n_nodes(g), T = 6;
  GError *err = NULL;
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  const TopoGossip *ws[] = {w};
  double *lo = baseline(MF_BASELINE_BSR, T, 2), *hi = blt2_c(T);
  double *sets[3][2] = {{lo, lo}, {lo, hi}, {hi, hi}};
  guint *cls = random_classes(n, 5);
  const guint att[] = {0};
  gsize need[3];
  for (guint k = 0; k < 3; k++) {
    double *Cs = g_new(double, 2 * (gsize)T * T);
    memcpy(Cs, sets[k][0], sizeof(double) * T * T);
    memcpy(Cs + (gsize)T * T, sets[k][1], sizeof(double) * T * T);
    PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_MFDSGD,
                               .C_set = Cs,
                               .C_class = cls,
                               .n_C = 2,
                               .T = T,
                               .gossip = ws,
                               .n_gossip = 1,
                               .trust = PRIV_TRUST_PNDP,
                               .attackers = att,
                               .n_attackers = 1,
                               .sigma = 1.0,
                               .engine = PRIV_ENGINE_KALMAN};
    need[k] = least_budget(p);
    g_free(Cs);
  }
  g_test_message("least budgets: orders 1: %zu, 1 and 2: %zu, 2: %zu bytes", need[0], need[1],
                 need[2]);
  g_assert_cmpuint(need[0], <, need[1]);
  g_assert_cmpuint(need[1], <, need[2]);
  g_free(cls);
  g_free(lo);
  g_free(hi);
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* mu by node of @r (NaN: not a victim). */
static double *mu_of(const PrivReport *r, guint n) {
  double *mu = g_new(double, n);
  for (guint u = 0; u < n; u++)
    mu[u] = NAN;
  for (guint i = 0; i < r->n_victims; i++)
    mu[r->victims[i].node] = r->victims[i].mu;
  return mu;
}

/*
 * The local path of a job with a C-set (`--path local --radius R`) against
 * the attackers @set under @trust: every victim of the ball at every
 * radius never below the structured path's exact value (exact
 * sensitivity), equal once the ball covers the graph (the ball's classes
 * read by node id of the whole graph), and mu_lower never above it. With
 * @mode (deadline or stale, log-normal latency, 5% loss) the exact value is
 * the structured path on the whole run's delivery record and the local one
 * the ball's part of the same run's record (its classes read through the
 * record's node list). Tolerance: the two solves' rounding, relative, as
 * test_account_local.c's (1e-9: eps x the whitening's 1 / sqrt(1e-11) x
 * the messages, about 1e3). Returns the victims of uncovered balls.
 */
static guint check_local(const char *gspec, const char *mode, const char *trust, const char *set,
                         guint32 seed) {
  TopoGraph *g = graph(gspec);
  guint n = topo_graph_n_nodes(g), T = 4;
  char *dir = test_tmpdir("pernode-local");
  char *path = g_build_filename(dir, "cset.csv", NULL);
  double *Cs[] = {baseline(MF_BASELINE_BSR, T, 2), blt2_c(T)};
  guint *cls = random_classes(n, seed);
  write_cset(path, Cs, 2, T, cls, n);
  char *proto = g_strdup_printf("mfdsgd:C=%s", path);
  const char *att[] = {set, NULL};
  GError *err = NULL;
  ProtoAccountRequest r = request(proto, T, 1, trust, att, "structured");
  r.sensitivity = "exact";
  r.mode = mode;
  if (mode) {
    r.latency = "lognormal:mu=3,sigma=0.5";
    r.loss = "0.05";
  }
  ProtoAccountJob *je = planned(&r, g);
  g_assert_true(proto_account_job_execute(je, &err));
  g_assert_no_error(err);
  g_assert_true(mode == NULL || je->deliveries != NULL); /* the whole run's record */
  double *exact = mu_of(je->acs[0].report, n);
  gboolean covered = FALSE;
  guint bounded = 0;
  for (guint radius = 1; !covered; radius++) {
    r.path = "local";
    r.radius = (gint)radius;
    ProtoAccountJob *jl = planned(&r, g);
    g_assert_true(proto_account_job_execute(jl, &err));
    g_assert_no_error(err);
    g_assert_cmpuint(jl->cset.n_classes, ==, 2);
    covered = jl->acs[0].local.covered;
    const PrivReport *rep = jl->acs[0].report;
    g_assert_cmpuint(rep->n_victims, >, 0);
    for (guint i = 0; i < rep->n_victims; i++) {
      const PrivVictim *v = &rep->victims[i];
      double e = exact[v->node];
      g_assert_false(isnan(e));
      g_assert_cmpfloat(v->mu, >=, e * (1 - 1e-9));
      g_assert_cmpfloat(v->mu_lower, <=, e * (1 + 1e-9));
      if (covered)
        g_assert_cmpfloat(fabs(v->mu - e), <=, 1e-9 * e);
    }
    bounded += covered ? 0 : rep->n_victims;
    proto_account_job_free(jl);
    g_assert_cmpuint(radius, <, 20);
  }
  g_free(exact);
  proto_account_job_free(je);
  g_remove(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
  g_free(proto);
  g_free(cls);
  g_free(Cs[0]);
  g_free(Cs[1]);
  topo_graph_free(g);
  return bounded;
}

static void test_local(void) {
  check_local("erdos:n=24,p=0.15,seed=3,connected=true", NULL, "pndp", "0", 11);
  check_local("watts:n=30,k=1,p=0.2,seed=6", NULL, "secldp", "0", 12);
  check_local("erdos:n=20,p=0.2,seed=5,connected=true", NULL, "ldp", "0", 13);
}

/*
 * The same in deadline and stale mode (the ball's part of the run's
 * delivery record, docs/local-bounds.md "Asynchronous runs"): random graphs
 * of 20 to 100 nodes, PNDP and SecLDP, one attacker and a pair.
 */
static void test_local_async(void) {
  const char *modes[] = {"deadline:ms=25", "stale:s=2"};
  const struct {
    const char *graph, *trust, *set;
  } cases[] = {
      {"erdos:n=20,p=0.3,seed=4,connected=true", "pndp", "2"},
      {"erdos:n=20,p=0.3,seed=4,connected=true", "secldp", "2+7"},
      {"regular:n=60,d=4,seed=3", "secldp", "9"},
      {"regular:n=60,d=4,seed=3", "pndp", "9+30"},
      {"barabasi:n=100,m=2,seed=5", "pndp", "0"},
      {"watts:n=100,k=2,p=0.1,seed=8", "secldp", "4+50"},
  };
  guint bounded = 0;
  for (guint m = 0; m < G_N_ELEMENTS(modes); m++)
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
      bounded += check_local(cases[i].graph, modes[m], cases[i].trust, cases[i].set, 20 + i);
  /* Not vacuous: most victims are bounded by a ball short of the graph. */
  g_test_message("%u victims of uncovered balls", bounded);
  g_assert_cmpuint(bounded, >, 200);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/account/pernode/observer-equals-structured", test_observer_equals_structured);
  g_test_add_func("/account/pernode/one-class", test_one_class_is_one_c);
  g_test_add_func("/account/pernode/kalman-equals-observer", test_kalman_equals_observer);
  g_test_add_func("/account/pernode/one-class-bits", test_kalman_one_class_bits);
  g_test_add_func("/account/pernode/kalman-memory", test_kalman_memory);
  g_test_add_func("/account/pernode/local", test_local);
  g_test_add_func("/account/pernode/local-async", test_local_async);
  g_test_add_func("/account/pernode/refusals", test_refusals);
  return g_test_run();
}
