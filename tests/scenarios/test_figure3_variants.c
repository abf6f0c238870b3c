/*
 * tests/scenarios/test_figure3_variants.c: the Figure 3 variants: the
 * paper's preprocessing (dataset option standardize=all: the features
 * scaled with statistics of all records before the split) against the
 * default (train split only), both checked against statistics this test
 * computes itself from the raw records; the paper's initial model (mlp
 * init=fanin); and the appendix scenario
 * figure3-housing-florentine.ini shortened, whose non-private points must
 * equal a run built directly through the protocols API (an independent path
 * from the scenario's graph, dataset spec and seed to the final test loss),
 * and whose outputs are byte-identical when run twice.
 */
#include "learning/learning.h"
#include "plot/plot.h"
#include "protocols/protocols.h"
#include "shipped.h"
#include "topologies/topologies.h"

static char *housing_spec(const char *option) {
  char *data = scen_test_data("california/cal_housing.data");
  char *spec = g_strdup_printf("california:%s%s%s", data, option ? "," : "", option ? option : "");
  g_free(data);
  return spec;
}

static void load(const char *option, guint64 seed, LearnDataset **tr, LearnDataset **te) {
  char *spec = housing_spec(option);
  GError *error = NULL;
  g_assert_true(learn_data_load(spec, 0.2, seed, tr, te, &error));
  g_assert_no_error(error);
  g_free(spec);
}

/* Column means and population standard deviations over the records of @a
 * and (nullable) @b, in long double with Welford's one-pass update: a
 * different method from the library's two double passes. */
static void column_stats(const LearnDataset *a, const LearnDataset *b, double *mean, double *sd) {
  gsize d = a->n_features;
  for (gsize j = 0; j < d; j++) {
    long double m = 0, s = 0, k = 0;
    for (int part = 0; part < 2; part++) {
      const LearnDataset *ds = part == 0 ? a : b;
      for (gsize i = 0; ds != NULL && i < ds->n; i++) {
        long double x = ds->features[i * d + j], delta = x - m;
        k += 1;
        m += delta / k;
        s += delta * (x - m);
      }
    }
    mean[j] = (double)m;
    sd[j] = (double)sqrtl(s / k);
  }
}

/* Every feature of @got is (raw - mean) / sd, to a relative 1e-10 of the
 * largest standardized magnitude (AveOccup reaches ~240). */
static void assert_scaled(const LearnDataset *got, const LearnDataset *raw, const double *mean,
                          const double *sd) {
  gsize d = raw->n_features;
  g_assert_cmpuint(got->n, ==, raw->n);
  double worst = 0;
  for (gsize i = 0; i < raw->n; i++) {
    g_assert_cmpfloat(got->targets[i], ==, raw->targets[i]); /* same split, same order */
    for (gsize j = 0; j < d; j++) {
      double want = (raw->features[i * d + j] - mean[j]) / sd[j];
      worst = MAX(worst, fabs(got->features[i * d + j] - want) / MAX(1.0, fabs(want)));
    }
  }
  g_assert_cmpfloat(worst, <, 1e-10);
}

static void test_standardize_all(void) {
  guint64 seed = 7;
  LearnDataset *tr0, *te0, *trA, *teA, *trT, *teT;
  load("standardize=no", seed, &tr0, &te0);
  load("standardize=all", seed, &trA, &teA);
  load(NULL, seed, &trT, &teT); /* the default: train statistics */
  g_assert_cmpuint(tr0->n, ==, 16512);
  g_assert_cmpuint(te0->n, ==, 4128);
  double mean_all[8], sd_all[8], mean_tr[8], sd_tr[8];
  column_stats(tr0, te0, mean_all, sd_all);
  column_stats(tr0, NULL, mean_tr, sd_tr);
  assert_scaled(trA, tr0, mean_all, sd_all);
  assert_scaled(teA, te0, mean_all, sd_all);
  assert_scaled(trT, tr0, mean_tr, sd_tr);
  assert_scaled(teT, te0, mean_tr, sd_tr);
  /* The two statistics do differ (else the checks above could not tell the
   * options apart): AveOccup's spread moves with where its outliers land. */
  g_assert_cmpfloat(fabs(sd_all[5] / sd_tr[5] - 1), >, 1e-3);
  /* Whole-dataset scaling: mean 0 and sd 1 over train and test together. */
  double m[8], s[8];
  column_stats(trA, teA, m, s);
  for (int j = 0; j < 8; j++) {
    g_assert_cmpfloat(fabs(m[j]), <, 1e-10);
    g_assert_cmpfloat(fabs(s[j] - 1), <, 1e-10);
  }
  /* Determinism: loading again gives the same bytes. */
  LearnDataset *trB, *teB;
  load("standardize=all", seed, &trB, &teB);
  g_assert_cmpint(memcmp(trA->features, trB->features, trA->n * 8 * sizeof(double)), ==, 0);
  g_assert_cmpint(memcmp(teA->features, teB->features, teA->n * 8 * sizeof(double)), ==, 0);
  LearnDataset *all[] = {tr0, te0, trA, teA, trT, teT, trB, teB};
  for (guint i = 0; i < G_N_ELEMENTS(all); i++)
    learn_dataset_free(all[i]);
}

static void put32(GByteArray *b, guint32 v) {
  guint8 x[4] = {v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255};
  g_byte_array_append(b, x, 4);
}

/* A 2x2-pixel idx pair of @n images under @dir/@prefix-*-idx?-ubyte. */
static void write_idx(const char *dir, const char *prefix, guint n) {
  GByteArray *img = g_byte_array_new(), *lab = g_byte_array_new();
  put32(img, 0x803);
  put32(img, n);
  put32(img, 2);
  put32(img, 2);
  put32(lab, 0x801);
  put32(lab, n);
  for (guint i = 0; i < n; i++) {
    guint8 px[4] = {(guint8)i, (guint8)(3 * i), 7, (guint8)(255 - i)}, l = (guint8)(i % 2);
    g_byte_array_append(img, px, 4);
    g_byte_array_append(lab, &l, 1);
  }
  char *name = g_strdup_printf("%s-images-idx3-ubyte", prefix);
  char *path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, (const char *)img->data, img->len, NULL));
  g_free(path);
  g_free(name);
  name = g_strdup_printf("%s-labels-idx1-ubyte", prefix);
  path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, (const char *)lab->data, lab->len, NULL));
  g_free(path);
  g_free(name);
  g_byte_array_unref(img);
  g_byte_array_unref(lab);
}

static void test_standardize_spec(ScenTestFix *f, gconstpointer data) {
  (void)data;
  GError *error = NULL;
  const char *ok[] = {"california:x.data,standardize=all", "california:x.data,standardize=no",
                      "synthetic:linear,standardize=all", "csv:x.csv,standardize=all"};
  for (guint i = 0; i < G_N_ELEMENTS(ok); i++) {
    g_assert_true(learn_data_spec_check(ok[i], &error));
    g_assert_no_error(error);
  }
  g_assert_false(learn_data_spec_check("california:x.data,standardize=some", &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_PARSE);
  g_assert_nonnull(strstr(error->message, "standardize='some'"));
  g_clear_error(&error);
  LearnDataset *tr = NULL, *te = NULL;
  char *spec = housing_spec("standardize=sometimes");
  g_assert_false(learn_data_load(spec, 0.2, 1, &tr, &te, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_PARSE);
  g_clear_error(&error);
  g_free(spec);
  g_assert_null(tr);
  /* Synthetic: whole-dataset scaling gives mean 0 over both splits. */
  g_assert_true(
      learn_data_load("synthetic:linear,n=50,d=3,standardize=all", 0.2, 1, &tr, &te, &error));
  g_assert_no_error(error);
  double m[3], s[3];
  column_stats(tr, te, m, s);
  for (int j = 0; j < 3; j++)
    g_assert_cmpfloat(fabs(m[j]), <, 1e-10);
  learn_dataset_free(tr);
  learn_dataset_free(te);
  /* An idx t10k pair is split already: no statistics "before the split". */
  write_idx(f->dir, "train", 6);
  write_idx(f->dir, "t10k", 3);
  spec = g_strdup_printf("idx:%s,standardize=all", f->dir);
  g_assert_false(learn_data_load(spec, 0.2, 1, &tr, &te, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "standardize=yes"));
  g_clear_error(&error);
  g_assert_null(tr);
  g_assert_null(te);
  g_free(spec);
  spec = g_strdup_printf("idx:%s,standardize=yes", f->dir);
  g_assert_true(learn_data_load(spec, 0.2, 1, &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(te->n, ==, 3);
  learn_dataset_free(tr);
  learn_dataset_free(te);
  g_free(spec);
}

/* Largest magnitude of p[0..n) and its mean square. */
static double block_max(const double *p, gsize n, double *mean_sq) {
  double mx = 0, s = 0;
  for (gsize i = 0; i < n; i++) {
    mx = MAX(mx, fabs(p[i]));
    s += p[i] * p[i];
  }
  *mean_sq = s / (double)n;
  return mx;
}

/* mlp init=fanin (the paper's PyTorch default): every weight and bias of a
 * layer in U(-1/sqrt(fan_in), 1/sqrt(fan_in)), with the uniform's second
 * moment a^2/3; the default (He, zero biases) is left as it was. */
static void test_init_fanin(void) {
  GError *error = NULL;
  LearnModel *f = learn_model_new("mlp:hidden=64,init=fanin", 8, 0, &error);
  g_assert_no_error(error);
  LearnModel *h = learn_model_new("mlp:hidden=64,init=he", 8, 0, &error);
  g_assert_no_error(error);
  g_assert_cmpstr(learn_model_spec(f), ==, "mlp:hidden=64,init=fanin");
  g_assert_cmpstr(learn_model_spec(h), ==, "mlp:hidden=64");
  g_assert_null(learn_model_new("mlp:hidden=64,init=xavier", 8, 0, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_PARSE);
  g_assert_nonnull(strstr(error->message, "init='xavier'"));
  g_clear_error(&error);
  g_assert_cmpuint(learn_model_n_params(f), ==, 641);
  double pf[641], pf2[641], ph[641], ms;
  learn_model_init(f, pf, 5);
  learn_model_init(f, pf2, 5);
  learn_model_init(h, ph, 5);
  g_assert_cmpint(memcmp(pf, pf2, sizeof pf), ==, 0);
  double a1 = 1 / sqrt(8.0), a2 = 1 / 8.0;
  double m1 = block_max(pf, 8 * 64 + 64, &ms); /* W1 and b1 */
  g_assert_cmpfloat(m1, <=, a1);
  g_assert_cmpfloat(m1, >, 0.95 * a1);
  g_assert_cmpfloat(fabs(ms / (a1 * a1 / 3) - 1), <, 0.15);
  double mb = block_max(pf + 8 * 64, 64, &ms); /* b1 alone: random, not 0 */
  g_assert_cmpfloat(mb, >, 0.5 * a1);
  double m2 = block_max(pf + 8 * 64 + 64, 65, &ms); /* W2 and b2 */
  g_assert_cmpfloat(m2, <=, a2);
  g_assert_cmpfloat(m2, >, 0.8 * a2);
  /* He: W1 up to sqrt(6/8) (well above 1/sqrt(8)), b1 zero. */
  g_assert_cmpfloat(block_max(ph, 8 * 64, &ms), >, 2 * a1);
  g_assert_cmpfloat(block_max(ph + 8 * 64, 64, &ms), ==, 0);
  learn_model_free(f);
  learn_model_free(h);
}

/* Final mean test MSE of non-private D-SGD on Florentine, built directly. */
static double direct_final(const char *option, guint64 seed, guint epochs, guint batches) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &error);
  g_assert_no_error(error);
  char *spec = housing_spec(option);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "dsgd";
  cfg.sigma = 0;
  cfg.clip = 1;
  cfg.lr = 0.1;
  cfg.epochs = epochs;
  cfg.batches = batches;
  cfg.dataset = spec;
  cfg.model = "mlp:hidden=64";
  cfg.seed = seed;
  cfg.storage = SIM_LIN_NONE;
  ProtoRun *run = proto_run_new(&cfg, &error);
  g_assert_no_error(error);
  g_assert_true(proto_run_run(run, &error));
  g_assert_no_error(error);
  double loss = proto_run_mean_test_loss(run, epochs * batches);
  proto_run_free(run);
  topo_graph_free(g);
  g_free(spec);
  return loss;
}

/* points.csv's final test loss (column 8) of the non-private point of @seed. */
static double nonprivate_final(const char *dir, const char *seed) {
  GPtrArray *p = scen_test_csv(dir, "points.csv");
  g_assert_cmpstr(shipped_cell(p, 0, 2), ==, "name");
  g_assert_cmpstr(shipped_cell(p, 0, 4), ==, "seed");
  g_assert_cmpstr(shipped_cell(p, 0, 8), ==, "final_test_loss");
  double v = NAN;
  for (guint r = 1; r < p->len; r++) {
    g_assert_cmpstr(shipped_cell(p, r, 5), ==, "done");
    if (g_str_equal(shipped_cell(p, r, 2), "nonprivate") &&
        g_str_equal(shipped_cell(p, r, 4), seed))
      v = shipped_num(p, r, 8);
  }
  g_ptr_array_unref(p);
  g_assert_true(isfinite(v));
  return v;
}

/* The outputs a sweep writes at its top, and every point's metrics.csv. */
static void assert_same_outputs(const char *a, const char *b) {
  const char *top[] = {"points.csv", "groups.csv", "aggregate.csv"};
  for (guint i = 0; i < G_N_ELEMENTS(top); i++) {
    char *x = scen_test_read(a, top[i]), *y = scen_test_read(b, top[i]);
    g_assert_cmpstr(x, ==, y);
    g_free(x);
    g_free(y);
  }
  GPtrArray *p = scen_test_csv(a, "points.csv");
  for (guint r = 1; r < p->len; r++) {
    char *da = g_build_filename(a, shipped_cell(p, r, 1), NULL);
    char *db = g_build_filename(b, shipped_cell(p, r, 1), NULL);
    char *x = scen_test_read(da, "metrics.csv"), *y = scen_test_read(db, "metrics.csv");
    g_assert_cmpstr(x, ==, y);
    g_free(x);
    g_free(y);
    g_free(da);
    g_free(db);
  }
  g_ptr_array_unref(p);
}

static void test_florentine(ScenTestFix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"task.epochs=1",       "task.batches=4",     "sweep.simulation.seed=1..2",
                        "sweep.protocol.mu=1", "output.plots=false", NULL};
  char *out1 = g_build_filename(f->dir, "a", NULL), *out2 = g_build_filename(f->dir, "b", NULL);
  ScenRunReport rep = shipped_run("figure3-housing-florentine", sets, out1);
  g_assert_cmpuint(rep.points, ==, 8);
  scen_run_report_clear(&rep);
  GPtrArray *g = scen_test_csv(out1, "groups.csv");
  g_assert_cmpuint(g->len, ==, 5);
  for (guint r = 1; r < 5; r++) {
    g_assert_cmpstr(shipped_cell(g, r, 3), ==, "2"); /* seeds */
    if (r > 1) /* mu = 1 under LDP whatever the graph: eps(1e-6) = 4.88655 */
      dpg_test_assert_le(fabs(shipped_num(g, r, 5) - SHIPPED_EPS_MU1), SHIPPED_EPS_MU1_TOL,
                         SHIPPED_EPS_MU1_WHY);
  }
  g_ptr_array_unref(g);
  /* 15 nodes, each with 16512 / 15 records: the scenario's Florentine run is
   * the direct one, to the last bit of its printed value. */
  for (guint s = 1; s <= 2; s++) {
    char seed[4];
    g_snprintf(seed, sizeof seed, "%u", s);
    double got = nonprivate_final(out1, seed), want = direct_final(NULL, s, 1, 4);
    g_test_message("florentine seed %u: scenario %.17g, direct %.17g", s, got, want);
    g_assert_cmpfloat(fabs(got - want), <=, 1e-12 * want);
  }
  rep = shipped_run("figure3-housing-florentine", sets, out2);
  scen_run_report_clear(&rep);
  assert_same_outputs(out1, out2);
  g_free(out1);
  g_free(out2);
}

/* standardize=all through a scenario override reaches the run: its
 * non-private loss is the direct run's with that spec, not the default's. */
static void test_florentine_standardize_all(ScenTestFix *f, gconstpointer data) {
  (void)data;
  char *spec = housing_spec("standardize=all");
  char *set = g_strdup_printf("task.dataset=%s", spec);
  const char *sets[] = {"task.epochs=1",
                        "task.batches=4",
                        "sweep.simulation.seed=3",
                        "sweep.protocol.mu=1",
                        "sweep.protocol.name=nonprivate",
                        "output.plots=false",
                        set,
                        NULL};
  ScenRunReport rep = shipped_run("figure3-housing-florentine", sets, f->dir);
  g_assert_cmpuint(rep.points, ==, 1);
  scen_run_report_clear(&rep);
  double got = nonprivate_final(f->dir, "3"), all = direct_final("standardize=all", 3, 1, 4),
         train = direct_final(NULL, 3, 1, 4);
  g_test_message("seed 3: scenario %.17g, direct all %.17g, direct train-only %.17g", got, all,
                 train);
  g_assert_cmpfloat(fabs(got - all), <=, 1e-12 * all);
  g_assert_cmpfloat(fabs(got - train), >, 1e-6 * train);
  g_free(set);
  g_free(spec);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/scenarios/figure3-variants/standardize-all", test_standardize_all);
  g_test_add_func("/scenarios/figure3-variants/init-fanin", test_init_fanin);
#define ADD(name, fn) SCEN_TEST_ADD("/scenarios/figure3-variants/" name, fn)
  ADD("standardize-spec", test_standardize_spec);
  ADD("florentine", test_florentine);
  ADD("florentine-standardize-all", test_florentine_standardize_all);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
