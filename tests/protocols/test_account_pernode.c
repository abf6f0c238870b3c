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
 *   - One class is today's single C: the same run and the same accounting,
 *     bit for bit.
 *   - What cannot take a C per node says so: the Kalman engine, the local
 *     path, a family by formula that needs one C.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

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
  /* The Kalman engine carries one noise state for every node. */
  ProtoAccountRequest r = request(proto, T, 1, "pndp", att, "structured");
  ProtoAccountJob *j = planned(&r, g);
  g_assert_true(proto_account_job_prepare(j, &err));
  PrivStructuredProblem p = proto_account_job_problem(j, 0);
  p.engine = PRIV_ENGINE_KALMAN;
  g_assert_null(proto_account_structured(&p, j->w, NULL, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "a C per class of nodes"));
  g_clear_error(&err);
  proto_account_job_free(j);
  /* The local path. */
  r = request(proto, T, 1, "pndp", att, "local");
  r.radius = 2;
  j = planned(&r, g);
  g_assert_false(proto_account_job_execute(j, &err));
  g_assert_nonnull(strstr(err->message, "the local path takes one C for every node"));
  g_clear_error(&err);
  proto_account_job_free(j);
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

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/account/pernode/observer-equals-structured", test_observer_equals_structured);
  g_test_add_func("/account/pernode/one-class", test_one_class_is_one_c);
  g_test_add_func("/account/pernode/refusals", test_refusals);
  return g_test_run();
}
