/*
 * tests/scenarios/test_aggregate.c: the statistics over seeds of a sweep's
 * tables (aggregate.csv, groups.csv) against values computed by hand from
 * the points' own results, and the figures' curves against the tables.
 * Three seeds of a run whose losses spread so far that the arithmetic 95%
 * t-interval runs below zero: the tables hold the log-scale interval
 * (positive), and the accuracy interval stays in [0, 1].
 */
#include <math.h>
#include <string.h>

#include "scen_test.h"
#include "scenarios/internal.h"

/* Student t's 0.975 quantile with 2 degrees of freedom, in closed form: its
 * CDF is 1/2 + t / (2 sqrt(2 + t^2)), so t = (2p - 1) sqrt(2 / (4p (1 - p))). */
static double t975_2df(void) {
  double a = 4 * 0.975 * (1 - 0.975);
  return (2 * 0.975 - 1) * sqrt(2 / a);
}

/* Column @name of the header row @h. */
static guint column(char **h, const char *name) {
  for (guint i = 0; h[i]; i++)
    if (g_str_equal(h[i], name))
      return i;
  g_error("no column %s", name);
  return 0;
}

static double num(char **row, guint c) {
  char *end = NULL;
  double x = g_ascii_strtod(row[c], &end);
  g_assert_true(row[c][0] != '\0' && *end == '\0');
  return x;
}

/* The tables use GSL's t quantile, the hand computation its closed form:
 * they agree to about 1e-10. */
static void assert_close(double got, double want) {
  g_assert_cmpfloat(fabs(got - want), <=, 1e-9 * fabs(want));
}

/* Hand-computed statistics of three values: arithmetic mean and the lower
 * end of its t-interval; geometric mean and log-scale interval; the
 * accuracy interval clipped to [0, 1]. */
typedef struct {
  double mean, arith_lo, gmean, lo, hi, unit_lo, unit_hi;
} Stats;

static Stats by_hand(const double v[3]) {
  double t = t975_2df(), m = (v[0] + v[1] + v[2]) / 3, ss = 0, lm = 0, lss = 0;
  for (int i = 0; i < 3; i++) {
    ss += (v[i] - m) * (v[i] - m);
    lm += log10(v[i]) / 3;
  }
  for (int i = 0; i < 3; i++)
    lss += (log10(v[i]) - lm) * (log10(v[i]) - lm);
  double half = t * sqrt(ss / 2) / sqrt(3), lhalf = t * sqrt(lss / 2) / sqrt(3);
  return (Stats){.mean = m,
                 .arith_lo = m - half,
                 .gmean = pow(10, lm),
                 .lo = pow(10, lm - lhalf),
                 .hi = pow(10, lm + lhalf),
                 .unit_lo = MAX(m - half, 0),
                 .unit_hi = MIN(m + half, 1)};
}

static void test_tables_log_interval(ScenTestFix *f, gconstpointer data) {
  (void)data;
  /* lr = 3 with sigma = 8: the three seeds' losses differ by a factor 3.
   * No figures: the curves are checked below, without fontconfig. */
  char *ini = scen_test_write(
      f->dir, "s.ini",
      "[topology]\ngenerate = ring:n=4\n[protocol]\nname = dsgd\nsigma = 8\nlr = 3\n"
      "[task]\ndataset = synthetic:logistic,n=200,d=3,seed=4\nepochs = 2\nbatches = 2\n"
      "eval_every = 1\n[privacy]\ntrust = ldp\n[output]\nplots = false\n"
      "[sweep]\nsimulation.seed = 1..3\n");
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(ini, &error);
  g_assert_no_error(error);
  char *out = g_build_filename(f->dir, "out", NULL);
  ScenRunOptions opt = {.out_dir = out, .threads = 1};
  ScenRunReport rep = {0};
  g_assert_true(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_no_error(error);

  /* The points' own results, read back as a resumed sweep would. */
  ScenPointResult *res[3];
  for (int s = 0; s < 3; s++) {
    char *name = g_strdup_printf("seed=%d", s + 1);
    char *dir = g_build_filename(out, "points", name, NULL);
    res[s] = scen_point_result_load(dir, 4, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(res[s]->n_rounds, ==, 4);
    g_free(dir);
    g_free(name);
  }

  GPtrArray *ac = scen_test_csv(out, "aggregate.csv");
  char **h = g_ptr_array_index(ac, 0);
  guint c_round = column(h, "round"), c_mean = column(h, "test_loss_mean"),
        c_gm = column(h, "test_loss_gmean"), c_lo = column(h, "test_loss_lo"),
        c_hi = column(h, "test_loss_hi"), c_am = column(h, "test_accuracy_mean"),
        c_alo = column(h, "test_accuracy_lo"), c_ahi = column(h, "test_accuracy_hi");
  g_assert_cmpuint(ac->len, ==, 1 + 4);
  guint below_zero = 0;
  for (guint k = 0; k < 4; k++) {
    char **row = g_ptr_array_index(ac, 1 + k);
    g_assert_cmpfloat(num(row, c_round), ==, res[0]->round[k]);
    const double v[3] = {res[0]->test[k], res[1]->test[k], res[2]->test[k]};
    const double a[3] = {res[0]->acc[k], res[1]->acc[k], res[2]->acc[k]};
    Stats sl = by_hand(v), sa = by_hand(a);
    below_zero += sl.arith_lo < 0;
    assert_close(num(row, c_mean), sl.mean);
    assert_close(num(row, c_gm), sl.gmean);
    assert_close(num(row, c_lo), sl.lo);
    assert_close(num(row, c_hi), sl.hi);
    g_assert_cmpfloat(num(row, c_lo), >, 0);
    g_assert_cmpfloat(num(row, c_lo), <, num(row, c_gm));
    assert_close(num(row, c_am), sa.mean);
    g_assert_cmpfloat(fabs(num(row, c_alo) - sa.unit_lo), <=, 1e-9);
    g_assert_cmpfloat(fabs(num(row, c_ahi) - sa.unit_hi), <=, 1e-9);
    g_assert_cmpfloat(num(row, c_alo), >=, 0);
    g_assert_cmpfloat(num(row, c_ahi), <=, 1);
  }
  /* The case of the issue: the old (arithmetic) interval went below zero. */
  g_assert_cmpuint(below_zero, >=, 1);

  /* groups.csv: the final values likewise. */
  GPtrArray *gc = scen_test_csv(out, "groups.csv");
  g_assert_cmpuint(gc->len, ==, 2);
  char **gh = g_ptr_array_index(gc, 0), **g1 = g_ptr_array_index(gc, 1);
  const double fv[3] = {res[0]->final_test, res[1]->final_test, res[2]->final_test};
  const double tv[3] = {res[0]->tail_test, res[1]->tail_test, res[2]->tail_test};
  const double fa[3] = {res[0]->final_acc, res[1]->final_acc, res[2]->final_acc};
  Stats sf = by_hand(fv), st = by_hand(tv), sfa = by_hand(fa);
  assert_close(num(g1, column(gh, "final_test_loss_mean")), sf.mean);
  assert_close(num(g1, column(gh, "final_test_loss_gmean")), sf.gmean);
  assert_close(num(g1, column(gh, "final_test_loss_lo")), sf.lo);
  assert_close(num(g1, column(gh, "final_test_loss_hi")), sf.hi);
  assert_close(num(g1, column(gh, "test_loss_last50_mean")), st.mean);
  assert_close(num(g1, column(gh, "test_loss_last50_gmean")), st.gmean);
  assert_close(num(g1, column(gh, "test_loss_last50_lo")), st.lo);
  assert_close(num(g1, column(gh, "test_loss_last50_hi")), st.hi);
  assert_close(num(g1, column(gh, "final_test_accuracy_mean")), sfa.mean);
  g_assert_cmpfloat(fabs(num(g1, column(gh, "final_test_accuracy_lo")) - sfa.unit_lo), <=, 1e-9);
  g_assert_cmpfloat(fabs(num(g1, column(gh, "final_test_accuracy_hi")) - sfa.unit_hi), <=, 1e-9);

  /* The figures draw what the table holds: the group's curves, built from
   * the same results, equal aggregate.csv's cells to the last bit (the CSV
   * writes the shortest form that reads back to the same double). */
  char *items[] = {"1", "2", "3", NULL};
  ScenSweepAxis seed = {.section = "simulation", .key = "seed", .items = items, .n_items = 3};
  GPtrArray *axes = g_ptr_array_new();
  g_ptr_array_add(axes, &seed);
  ScenAggregate *ag = scen_aggregate_new(axes, 3, res);
  g_assert_cmpuint(ag->groups->len, ==, 1);
  const ScenGroup *g = &g_array_index(ag->groups, ScenGroup, 0);
  ScenCurve *loss = scen_group_curve(g, FALSE, NULL), *acc = scen_group_curve(g, TRUE, NULL);
  g_assert_cmpuint(loss->n, ==, 4);
  for (guint k = 0; k < 4; k++) {
    char **row = g_ptr_array_index(ac, 1 + k);
    g_assert_cmpfloat(loss->x[k], ==, num(row, c_round));
    g_assert_cmpfloat(loss->y[k], ==, num(row, c_gm));
    g_assert_cmpfloat(loss->lo[k], ==, num(row, c_lo));
    g_assert_cmpfloat(loss->hi[k], ==, num(row, c_hi));
    g_assert_cmpfloat(acc->y[k], ==, num(row, c_am));
    g_assert_cmpfloat(acc->lo[k], ==, num(row, c_alo));
    g_assert_cmpfloat(acc->hi[k], ==, num(row, c_ahi));
  }
  /* The loss-vs-epsilon figure's point: groups.csv's final values. */
  g_assert_cmpfloat(g->final_gmean, ==, num(g1, column(gh, "final_test_loss_gmean")));
  g_assert_cmpfloat(g->final_lo, ==, num(g1, column(gh, "final_test_loss_lo")));
  g_assert_cmpfloat(g->final_hi, ==, num(g1, column(gh, "final_test_loss_hi")));

  scen_curve_clear(loss);
  g_free(loss);
  scen_curve_clear(acc);
  g_free(acc);
  scen_aggregate_free(ag);
  g_ptr_array_unref(axes);
  g_ptr_array_unref(gc);
  g_ptr_array_unref(ac);
  for (int s = 0; s < 3; s++)
    scen_point_result_free(res[s]);
  scen_run_report_clear(&rep);
  scen_scenario_free(sc);
  g_free(out);
  g_free(ini);
}

/* The accuracy interval: clipped to [0, 1]; none for one value. */
static void test_unit_interval(void) {
  const double v[3] = {0.98, 1, 0.9};
  double m, lo, hi;
  scen_unit_mean_ci(v, 3, &m, &lo, &hi);
  Stats s = by_hand(v);
  g_assert_cmpfloat(s.mean + (s.mean - s.arith_lo), >, 1); /* unclipped, above 1 */
  assert_close(m, s.mean);
  assert_close(lo, s.arith_lo);
  g_assert_cmpfloat(hi, ==, 1);
  scen_unit_mean_ci(v, 1, &m, &lo, &hi);
  g_assert_cmpfloat(m, ==, 0.98);
  g_assert_true(isnan(lo) && isnan(hi));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  SCEN_TEST_ADD("/scenarios/aggregate/tables-log-interval", test_tables_log_interval);
  g_test_add_func("/scenarios/aggregate/unit-interval", test_unit_interval);
  return g_test_run();
}
