/*
 * tests/scenarios/test_shipped.c: every shipped scenario (the .ini files of scenarios/),
 * shortened with overrides so the whole program stays within seconds (also
 * under ASan), runs and writes consistent outputs: files, CSV headers and row
 * counts, privacy values finite and coherent, Figure 2 (Florentine) equal to
 * the reference values, ours never above LDP nor above Muffliato's bound.
 * test_shipped_full.c runs the longer versions (label nosanitize).
 */
#include <json-glib/json-glib.h>

#include "plot/plot.h"
#include "shipped.h"

typedef ScenTestFix Fix;

static void test_default(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"sweep.simulation.seed=1", "task.epochs=3", NULL};
  ScenRunReport rep = shipped_run("default", sets, f->dir);
  g_assert_cmpuint(rep.points, ==, 2); /* D-SGD and Mafalda */
  scen_run_report_clear(&rep);
  const char *top[] = {"summary.json", "points.csv",
                       "groups.csv",   "aggregate.csv",
                       "privacy.csv",  "scenario.resolved.ini",
                       "loss.svg",     "privacy_vs_distance.svg"};
  for (guint i = 0; i < G_N_ELEMENTS(top); i++)
    shipped_assert_file(f->dir, top[i]);
  const char *pts[] = {"name=dsgd_seed=1", "name=mafalda_seed=1"};
  for (guint i = 0; i < G_N_ELEMENTS(pts); i++) {
    char *pt = g_build_filename(f->dir, "points", pts[i], NULL);
    GPtrArray *m = scen_test_csv(pt, "metrics.csv");
    g_assert_cmpuint(m->len, ==, 1 + 12 * 15); /* T = 48, evaluations every 4 steps, 15 nodes */
    g_ptr_array_unref(m);
    m = scen_test_csv(pt, "metrics_mean.csv");
    g_assert_cmpuint(m->len, ==, 1 + 12);
    g_ptr_array_unref(m);
    shipped_check_privacy(pt, 2 * 14, 2.0); /* LDP and PNDP, attacker 0 */
    g_free(pt);
  }
}

static void test_figure2_florentine(Fix *f, gconstpointer data) {
  (void)data;
  ScenRunReport rep = shipped_run("figure2-florentine", NULL, f->dir);
  scen_run_report_clear(&rep);
  shipped_assert_file(f->dir, "privacy.svg");
  shipped_check_privacy(f->dir, 2 * 14, 2.0);
  GPtrArray *p = scen_test_csv(f->dir, "privacy.csv");
  char *ref = scen_test_source("tests/data/reference/pndp-florentine-T10-attacker0.json");
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  json_parser_load_from_file(parser, ref, &error);
  g_assert_no_error(error);
  JsonArray *rows = json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)),
                                                 "rows");
  g_assert_cmpuint(json_array_get_length(rows), ==, 14);
  for (guint i = 0; i < 14; i++) {
    JsonObject *o = json_array_get_object_element(rows, i);
    /* pndp rows come first, victims in node order */
    guint r = 1 + i;
    g_assert_cmpstr(shipped_cell(p, r, 1), ==, "pndp");
    g_assert_cmpint(atoi(shipped_cell(p, r, 2)), ==, json_object_get_int_member(o, "node"));
    /* Thm 5.2's reference capped at the LDP RDP(2) = T / sigma^2 = 10. */
    g_assert_cmpfloat_with_epsilon(shipped_num(p, r, 6),
                                   fmin(json_object_get_double_member(o, "rdp_alpha2"), 10), 1e-6);
    g_assert_cmpfloat_with_epsilon(shipped_num(p, r, 8),
                                   json_object_get_double_member(o, "muffliato_rdp_alpha2"), 1e-6);
  }
  g_object_unref(parser);
  g_free(ref);
  g_ptr_array_unref(p);
}

static void test_figure2_ego(Fix *f, gconstpointer data) {
  (void)data;
  ScenRunReport rep = shipped_run("figure2-ego", NULL, f->dir);
  scen_run_report_clear(&rep);
  shipped_check_privacy(f->dir, 2 * 147, 2.0);
  GPtrArray *p = scen_test_csv(f->dir, "privacy.csv");
  for (guint v = 0; v < 147; v++) {
    guint r = 1 + v, l = 1 + 147 + v;
    g_assert_cmpstr(shipped_cell(p, r, 1), ==, "pndp");
    g_assert_cmpstr(shipped_cell(p, l, 1), ==, "ldp");
    /* Ours is never looser than LDP (sqrt(T) / sigma) nor than Muffliato's bound. */
    g_assert_cmpfloat(shipped_num(p, r, 6), <=, shipped_num(p, l, 6) * (1 + 1e-9));
    dpg_test_assert_close(shipped_num(p, l, 6), 10.0, dpg_tol(1, 4),
                          "the LDP RDP T / sigma^2 (or alpha mu^2 / 2), a few flops; %.17g in "
                          "the CSV is exact");
    g_assert_cmpfloat(shipped_num(p, r, 6), <=, shipped_num(p, r, 8) * (1 + 1e-9));
  }
  g_ptr_array_unref(p);
}

static void test_time_varying(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"task.epochs=2", NULL};
  ScenRunReport rep = shipped_run("time-varying-matching", sets, f->dir);
  scen_run_report_clear(&rep);
  GPtrArray *m = scen_test_csv(f->dir, "metrics.csv");
  g_assert_cmpuint(m->len, ==, 1 + 4 * 32); /* T = 10: steps 3, 6, 9, 10; 32 nodes */
  g_ptr_array_unref(m);
  m = scen_test_csv(f->dir, "metrics_mean.csv");
  g_assert_cmpuint(m->len, ==, 1 + 4);
  g_ptr_array_unref(m);
  shipped_check_privacy(f->dir, 2 * 31 + 2 * 30, 2.0);
  char *sum = scen_test_read(f->dir, "summary.json");
  g_assert_nonnull(strstr(sum, "\"schedule\" : \"matching\""));
  g_free(sum);
}

static void test_async(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"task.epochs=2", NULL};
  ScenRunReport rep = shipped_run("async-deadline", sets, f->dir);
  scen_run_report_clear(&rep);
  shipped_check_privacy(f->dir, 14, 2.0);
  char *sum = scen_test_read(f->dir, "summary.json");
  g_assert_nonnull(strstr(sum, "\"path\" : \"observer\""));
  g_assert_nonnull(strstr(sum, "\"mode\" : \"deadline:ms=15\""));
  g_free(sum);
}

static void test_collusion(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"simulation.rounds=4", NULL};
  ScenRunReport rep = shipped_run("collusion", sets, f->dir);
  g_assert_cmpuint(rep.points, ==, 2);
  scen_run_report_clear(&rep);
  const char *pts[] = {"name=decor", "name=zipdl"};
  for (guint i = 0; i < 2; i++) {
    char *dir = g_build_filename(f->dir, "points", pts[i], NULL);
    shipped_check_privacy(dir, 2 * (14 + 13 + 12), 2.0);
    /* A larger collusion set never learns less about a victim outside both. */
    GPtrArray *p = scen_test_csv(dir, "privacy.csv");
    for (guint t = 0; t < 2; t++) {
      guint single = 1 + t * 14, adjacent = 1 + 2 * 14 + t * 13;
      for (guint v = 0; v < 13; v++) {
        guint victim = atoi(shipped_cell(p, adjacent + v, 2));
        guint rs = single + victim - 1; /* single: victims 1..14 */
        g_assert_cmpint(atoi(shipped_cell(p, rs, 2)), ==, victim);
        g_assert_cmpfloat(shipped_num(p, rs, 5), <=, shipped_num(p, adjacent + v, 5) * (1 + 1e-9));
      }
    }
    g_ptr_array_unref(p);
    g_free(dir);
  }
}

/* The collusion scenario at the paper's horizon, shortened to T = 2 (still
 * the ego graph and its three sets): a larger set never learns less. */
static void test_collusion_ego(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"simulation.rounds=2", NULL};
  ScenRunReport rep = shipped_run("collusion-ego", sets, f->dir);
  g_assert_cmpuint(rep.points, ==, 2);
  scen_run_report_clear(&rep);
  const char *pts[] = {"name=decor", "name=zipdl"};
  for (guint i = 0; i < 2; i++) {
    char *dir = g_build_filename(f->dir, "points", pts[i], NULL);
    /* Victims: 147, 146 and 145 per trust model. */
    shipped_check_privacy(dir, 2 * (147 + 146 + 145), 2.0);
    GPtrArray *p = scen_test_csv(dir, "privacy.csv");
    for (guint t = 0; t < 2; t++) {
      guint single = 1 + t * 147;
      guint larger[2] = {1 + 2 * 147 + t * 146, 1 + 2 * (147 + 146) + t * 145};
      for (guint s = 0; s < 2; s++)
        for (guint v = 0; v < 145 + (s == 0); v++) {
          guint r = larger[s] + v, victim = atoi(shipped_cell(p, r, 2));
          guint rs = single + victim - 1; /* single: victims 1..147 */
          g_assert_cmpint(atoi(shipped_cell(p, rs, 2)), ==, victim);
          g_assert_cmpfloat(shipped_num(p, rs, 5), <=, shipped_num(p, r, 5) * (1 + 1e-9));
        }
    }
    g_ptr_array_unref(p);
    g_free(dir);
  }
}

/* The observer path's results do not depend on the thread count: the
 * collusion scenario's privacy files are the same bytes with one thread as
 * with two (its points then run in parallel, each accountant on its own). */
static void test_collusion_threads(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"simulation.rounds=4", NULL};
  ScenRunReport rep = shipped_run("collusion", sets, f->dir);
  scen_run_report_clear(&rep);
  char *one = g_build_filename(f->dir, "one-thread", NULL);
  char *path = scen_test_source("scenarios/collusion.ini");
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  g_assert_true(scen_scenario_set(sc, sets[0], &error));
  ScenRunOptions opt = {.out_dir = one, .threads = 1};
  g_assert_true(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_no_error(error);
  scen_run_report_clear(&rep);
  scen_scenario_free(sc);
  g_free(path);
  const char *pts[] = {"name=decor", "name=zipdl"};
  for (guint i = 0; i < 2; i++) {
    char *dir = g_build_filename(f->dir, "points", pts[i], NULL);
    char *dir1 = g_build_filename(one, "points", pts[i], NULL);
    char *a = scen_test_read(dir, "privacy.csv"), *b = scen_test_read(dir1, "privacy.csv");
    g_assert_cmpuint(strlen(a), >, 100);
    g_assert_cmpstr(a, ==, b);
    g_free(a);
    g_free(b);
    g_free(dir);
    g_free(dir1);
  }
  g_free(one);
}

static void test_figure3_tiny(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"task.epochs=1",       "task.batches=4",     "sweep.simulation.seed=1",
                        "sweep.protocol.mu=1", "output.plots=false", NULL};
  ScenRunReport rep = shipped_run("figure3-housing-ego", sets, f->dir);
  g_assert_cmpuint(rep.points, ==, 4);
  scen_run_report_clear(&rep);
  GPtrArray *g = scen_test_csv(f->dir, "groups.csv");
  g_assert_cmpuint(g->len, ==, 5);
  g_assert_cmpstr(shipped_cell(g, 1, 1), ==, "nonprivate");
  g_assert_true(isinf(shipped_num(g, 1, 5)));
  for (guint r = 2; r < 5; r++) {
    /* Every private method is calibrated to mu = 1 under LDP: eps(1e-6) = 4.88655. */
    dpg_test_assert_le(fabs(shipped_num(g, r, 5) - SHIPPED_EPS_MU1), SHIPPED_EPS_MU1_TOL,
                       SHIPPED_EPS_MU1_WHY);
    g_assert_true(isfinite(shipped_num(g, r, 6)));
  }
  /* D-SGD: sigma = sqrt(k)/mu = 1 with k = 1 (and the calibration's 1e-12
   * relative margin); the MF ones: 1/mu. */
  dpg_test_assert_close(shipped_num(g, 2, 4), 1.0 + 1e-12, dpg_tol(1, 4),
                        "sqrt(k) / mu x (1 + margin): a few flops, %.17g exact");
  g_ptr_array_unref(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(name, fn) SCEN_TEST_ADD("/scenarios/shipped/" name, fn)
  ADD("default", test_default);
  ADD("figure2-florentine", test_figure2_florentine);
  ADD("figure2-ego", test_figure2_ego);
  ADD("time-varying", test_time_varying);
  ADD("async", test_async);
  ADD("collusion", test_collusion);
  ADD("collusion-ego", test_collusion_ego);
  ADD("collusion-threads", test_collusion_threads);
  ADD("figure3-tiny", test_figure3_tiny);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
