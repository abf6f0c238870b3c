/*
 * tests/scenarios/test_run.c: running scenarios through the library: the
 * outputs of a point (files, headers, row counts), Figure 2's reference
 * values, determinism across thread counts, byte-for-byte replay of
 * scenario.resolved.ini, resume (inputs changed included), shared runs of equal configurations, the
 * structured and observer accountings agreeing, the mu calibration, refusal
 * of invalid files, and cancellation.
 */
#include <math.h>
#include <stdlib.h>

#include <json-glib/json-glib.h>

#include "plot/plot.h"
#include "scen_test.h"
#include "scenarios/internal.h"
#include "tests/common/tolerance.h"

typedef ScenTestFix Fix;

static ScenScenario *load(const char *dir, const char *text, const char *const *sets) {
  char *path = scen_test_write(dir, "s.ini", text);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  for (guint i = 0; sets && sets[i]; i++) {
    scen_scenario_set(sc, sets[i], &error);
    g_assert_no_error(error);
  }
  g_free(path);
  return sc;
}

static void run_ok(ScenScenario *sc, const char *out, guint threads, ScenRunReport *rep) {
  ScenRunOptions opt = {.out_dir = out, .threads = threads};
  GError *error = NULL;
  ScenRunReport local = {0};
  gboolean ok = scen_scenario_run(sc, &opt, rep ? rep : &local, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  scen_run_report_clear(&local);
}

static double cell(GPtrArray *rows, guint r, guint c) {
  char **row = g_ptr_array_index(rows, r);
  return g_ascii_strtod(row[c], NULL);
}

/* Every regular file of @a equals the one in @b (and exists there). */
static void assert_same_files(const char *a, const char *b, gboolean both_ways) {
  GDir *d = g_dir_open(a, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    if (name[0] == '.')
      continue; /* .cache */
    char *pa = g_build_filename(a, name, NULL), *pb = g_build_filename(b, name, NULL);
    if (g_file_test(pa, G_FILE_TEST_IS_DIR)) {
      assert_same_files(pa, pb, both_ways);
    } else {
      char *ta = NULL, *tb = NULL;
      gsize la = 0, lb = 0;
      g_assert_true(g_file_get_contents(pa, &ta, &la, NULL));
      if (!g_file_get_contents(pb, &tb, &lb, NULL))
        g_error("%s has no counterpart %s", pa, pb);
      if (la != lb || memcmp(ta, tb, la) != 0)
        g_error("%s and %s differ", pa, pb);
      g_free(ta);
      g_free(tb);
    }
    g_free(pa);
    g_free(pb);
  }
  g_dir_close(d);
  if (both_ways)
    assert_same_files(b, a, FALSE);
}

/* Thm 5.2's bound, asked for: the reference below is the paper's. */
#define FLORENTINE                                                                                 \
  "[simulation]\nrounds = 10\n[topology]\ngenerate = florentine\n[protocol]\nname = dsgd\n"        \
  "sigma = 1\n[privacy]\ntrust = pndp;ldp\nsensitivity = bound\ncompare = muffliato\n"             \
  "[collusion.attacker0]\n"                                                                        \
  "nodes = 0\n[output]\nplots = true\n"

static void test_point_outputs_reference(Fix *f, gconstpointer data) {
  (void)data;
  ScenScenario *sc = load(f->dir, FLORENTINE, NULL);
  char *out = g_build_filename(f->dir, "out", NULL);
  ScenRunReport rep = {0};
  run_ok(sc, out, 1, &rep);
  g_assert_cmpuint(rep.points, ==, 1);
  g_assert_cmpuint(rep.ran, ==, 1);
  g_assert_cmpuint(rep.figures->len, ==, 1); /* privacy.svg: no task, no loss curve */
  scen_run_report_clear(&rep);
  const char *files[] = {"summary.json", "metrics.csv",           "metrics_mean.csv",
                         "privacy.csv",  "scenario.resolved.ini", "privacy.svg"};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
    char *p = g_build_filename(out, files[i], NULL);
    g_assert_true(g_file_test(p, G_FILE_TEST_IS_REGULAR));
    g_free(p);
  }
  GPtrArray *m = scen_test_csv(out, "metrics.csv");
  g_assert_cmpuint(m->len, ==, 1); /* header only: no task */
  g_assert_cmpstr(((char **)g_ptr_array_index(m, 0))[0], ==, "round");
  g_ptr_array_unref(m);
  GPtrArray *rows = scen_test_csv(out, "privacy.csv");
  char *header = g_strjoinv(",", g_ptr_array_index(rows, 0));
  g_assert_cmpstr(header, ==, SCEN_PRIVACY_CSV_COLUMNS);
  g_free(header);
  g_assert_cmpuint(rows->len, ==, 1 + 14 * 2); /* 14 victims x 2 trust models */

  /* Figure 2's reference values (independent dense computation). */
  char *ref = scen_test_source("tests/data/reference/pndp-florentine-T10-attacker0.json");
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  json_parser_load_from_file(parser, ref, &error);
  g_assert_no_error(error);
  JsonArray *refrows = json_object_get_array_member(
      json_node_get_object(json_parser_get_root(parser)), "rows");
  guint checked = 0;
  for (guint i = 0; i < json_array_get_length(refrows); i++) {
    JsonObject *o = json_array_get_object_element(refrows, i);
    guint node = (guint)json_object_get_int_member(o, "node");
    for (guint r = 1; r < rows->len; r++) {
      char **row = g_ptr_array_index(rows, r);
      if (!g_str_equal(row[1], "pndp") || (guint)atoi(row[2]) != node)
        continue;
      g_assert_cmpint(atoi(row[3]), ==, json_object_get_int_member(o, "distance"));
      /* Thm 5.2's reference capped at the LDP RDP(2) = T / sigma^2 = 10. */
      g_assert_cmpfloat_with_epsilon(cell(rows, r, 6),
                                     fmin(json_object_get_double_member(o, "rdp_alpha2"), 10),
                                     1e-6);
      g_assert_cmpfloat_with_epsilon(
          cell(rows, r, 4), fmin(json_object_get_double_member(o, "sensitivity"), sqrt(10.0)),
          1e-6);
      g_assert_cmpfloat_with_epsilon(
          cell(rows, r, 8), json_object_get_double_member(o, "muffliato_rdp_alpha2"), 1e-6);
      /* epsilon from mu-GDP at delta = 1e-6; mu = sensitivity */
      g_assert_cmpfloat(cell(rows, r, 5), ==, cell(rows, r, 4));
      checked++;
    }
  }
  g_assert_cmpuint(checked, ==, 14);
  /* LDP: every victim has X = I / sigma^2, mu = sqrt(T) / sigma (user level). */
  for (guint r = 1; r < rows->len; r++) {
    char **row = g_ptr_array_index(rows, r);
    if (g_str_equal(row[1], "ldp")) {
      dpg_test_assert_close(cell(rows, r, 5), sqrt(10.0), dpg_tol(1, 2),
                            "sqrt(T) / sigma: a sqrt and a division; %.17g exact");
      g_assert_cmpstr(row[8], ==, ""); /* Muffliato's bound is for PNDP only */
    }
  }
  g_object_unref(parser);
  g_free(ref);
  g_ptr_array_unref(rows);

  /* summary.json: what ran, and the privacy per (collusion, trust). */
  char *sum = scen_test_read(out, "summary.json");
  g_assert_nonnull(strstr(sum, "\"protocol\" : \"dsgd\""));
  g_assert_nonnull(strstr(sum, "\"path\" : \"structured\""));
  g_assert_null(strstr(sum, "wall"));
  g_free(sum);
  scen_scenario_free(sc);
  g_free(out);
}

#define TASK                                                                                       \
  "[topology]\ngenerate = ring:n=6\n[protocol]\nname = dsgd\nsigma = 0.5\nlr = 0.2\n"              \
  "[task]\ndataset = synthetic:linear,n=300,d=3,seed=4\nepochs = 2\nbatches = 3\n"                 \
  "eval_every = 2\n[privacy]\ntrust = pndp\n[output]\nplots = false\n"

static void test_task_metrics(Fix *f, gconstpointer data) {
  (void)data;
  ScenScenario *sc = load(f->dir, TASK, NULL);
  char *out = g_build_filename(f->dir, "out", NULL);
  run_ok(sc, out, 1, NULL);
  GPtrArray *m = scen_test_csv(out, "metrics.csv");
  char *header = g_strjoinv(",", g_ptr_array_index(m, 0));
  g_assert_cmpstr(header, ==, SCEN_METRICS_CSV_COLUMNS);
  g_free(header);
  /* T = 6, evaluations at steps 2, 4 and 6: 6 nodes each, integer ids. */
  g_assert_cmpuint(m->len, ==, 1 + 3 * 6);
  GPtrArray *mm = scen_test_csv(out, "metrics_mean.csv");
  header = g_strjoinv(",", g_ptr_array_index(mm, 0));
  g_assert_cmpstr(header, ==, SCEN_METRICS_MEAN_CSV_COLUMNS);
  g_free(header);
  g_assert_cmpuint(mm->len, ==, 1 + 3);
  double sum[2] = {0, 0};
  for (guint r = 1; r < m->len; r++) {
    char **row = g_ptr_array_index(m, r);
    g_assert_cmpint(atoi(row[0]), ==, 2 * (1 + (r - 1) / 6));
    g_assert_cmpstr(row[5], ==, "0"); /* the seed */
    g_assert_cmpstr(row[4], ==, "");  /* regression: no accuracy */
    g_assert_cmpint(atoi(row[1]), ==, (r - 1) % 6);
    g_assert_true(isfinite(cell(m, r, 2)) && cell(m, r, 2) >= 0);
    g_assert_true(isfinite(cell(m, r, 3)) && cell(m, r, 3) >= 0);
    sum[0] += cell(m, r, 2);
    sum[1] += cell(m, r, 3);
    if ((r - 1) % 6 == 5) {
      /* The round's means, summed in node order: the same doubles. */
      guint k = 1 + (r - 1) / 6;
      char **mrow = g_ptr_array_index(mm, k);
      g_assert_cmpint(atoi(mrow[0]), ==, 2 * (int)k);
      g_assert_cmpfloat(cell(mm, k, 1), ==, sum[0] / 6);
      g_assert_cmpfloat(cell(mm, k, 2), ==, sum[1] / 6);
      g_assert_cmpstr(mrow[3], ==, "");
      g_assert_cmpstr(mrow[4], ==, "0");
      sum[0] = sum[1] = 0;
    }
  }
  g_ptr_array_unref(mm);
  g_ptr_array_unref(m);
  /* b defaults to the task's batches: each victim's mu at most the LDP one. */
  GPtrArray *p = scen_test_csv(out, "privacy.csv");
  g_assert_cmpuint(p->len, ==, 1 + 5);
  for (guint r = 1; r < p->len; r++)
    g_assert_cmpfloat(cell(p, r, 5), <=, sqrt(2.0) / 0.5 + 1e-9);
  g_ptr_array_unref(p);
  char *ini = scen_test_read(out, "scenario.resolved.ini");
  g_assert_nonnull(strstr(ini, "participation_interval = 3\n"));
  g_assert_nonnull(strstr(ini, "eval_every = 2\n"));
  g_assert_nonnull(strstr(ini, "model = linear\n"));
  g_assert_null(strstr(ini, "eval_nodes")); /* the default evaluates everything */
  g_assert_null(strstr(ini, "eval_rows"));
  g_free(ini);
  char *summary = scen_test_read(out, "summary.json");
  g_assert_null(strstr(summary, "\"evaluation\""));
  g_free(summary);
  scen_scenario_free(sc);
  g_free(out);
}

/* task.eval_nodes and eval_rows: metrics.csv holds the drawn nodes only,
 * the same every time, and summary.json and the resolved file say what was
 * evaluated. */
static void test_task_eval_sample(Fix *f, gconstpointer data) {
  (void)data;
  const char *sets[] = {"task.eval_nodes=2", "task.eval_rows=5", NULL};
  ScenScenario *sc = load(f->dir, TASK, sets);
  char *out = g_build_filename(f->dir, "out", NULL), *again = g_build_filename(f->dir, "again", NULL);
  run_ok(sc, out, 1, NULL);
  run_ok(sc, again, 1, NULL);
  assert_same_files(out, again, TRUE);
  GPtrArray *m = scen_test_csv(out, "metrics.csv");
  g_assert_cmpuint(m->len, ==, 1 + 3 * 2); /* steps 2, 4, 6: 2 nodes each */
  for (guint r = 1; r < m->len; r++) {
    char **row = g_ptr_array_index(m, r), **first = g_ptr_array_index(m, 1 + (r - 1) % 2);
    g_assert_cmpstr(row[1], ==, first[1]); /* the same nodes at every step */
  }
  g_assert_cmpint(atoi(((char **)g_ptr_array_index(m, 1))[1]), <,
                  atoi(((char **)g_ptr_array_index(m, 2))[1]));
  g_ptr_array_unref(m);
  char *sum = g_build_filename(out, "summary.json", NULL);
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  json_parser_load_from_file(parser, sum, &error);
  g_assert_no_error(error);
  JsonObject *ev = json_object_get_object_member(
      json_node_get_object(json_parser_get_root(parser)), "evaluation");
  const char *keys[] = {"nodes", "of_nodes", "test_rows", "of_test_rows", "seed"};
  const gint64 want[] = {2, 6, 5, 60, 0}; /* 300 records, 0.2 held out */
  for (guint i = 0; i < G_N_ELEMENTS(keys); i++)
    g_assert_cmpint(json_object_get_int_member(ev, keys[i]), ==, want[i]);
  g_object_unref(parser);
  g_free(sum);
  char *ini = scen_test_read(out, "scenario.resolved.ini");
  g_assert_nonnull(strstr(ini, "eval_nodes = 2\neval_rows = 5\n"));
  g_free(ini);
  scen_scenario_free(sc);
  g_free(out);
  g_free(again);
}

static void test_sweep_determinism_replay_resume(Fix *f, gconstpointer data) {
  (void)data;
  const char *text = TASK "[sweep]\nprotocol.sigma = 0.5;1\nsimulation.seed = 1..2\n";
  ScenScenario *sc = load(f->dir, text, NULL);
  char *a = g_build_filename(f->dir, "a", NULL), *b = g_build_filename(f->dir, "b", NULL);
  ScenRunReport rep = {0};
  run_ok(sc, a, 1, &rep);
  g_assert_cmpuint(rep.points, ==, 4);
  g_assert_cmpuint(rep.ran, ==, 4);
  scen_run_report_clear(&rep);
  run_ok(sc, b, 3, &rep);
  /* Each thread's time on points lies within the points' wall time. */
  g_assert_cmpuint(rep.threads, ==, 3);
  g_assert_cmpfloat(rep.busy_s, >, 0);
  g_assert_cmpfloat(rep.busy_s, <=, rep.threads * rep.points_s);
  g_assert_true(rep.prepare_s >= 0 && rep.finish_s >= 0);
  scen_run_report_clear(&rep);
  /* Same bytes whatever the number of threads. */
  assert_same_files(a, b, TRUE);
  GPtrArray *pts = scen_test_csv(a, "points.csv");
  g_assert_cmpuint(pts->len, ==, 5);
  g_assert_cmpstr(((char **)g_ptr_array_index(pts, 1))[1], ==, "points/sigma=0.5_seed=1");
  g_ptr_array_unref(pts);
  GPtrArray *agg = scen_test_csv(a, "aggregate.csv");
  g_assert_cmpuint(agg->len, ==, 1 + 2 * 3); /* 2 groups x 3 evaluations */
  /* The band is the 95% CI over the 2 seeds, t(0.975, 1) = 12.7062047: check it
   * against the seeds' own node means at round 2 (group sigma = 0.5). */
  double x[2];
  for (guint sd = 0; sd < 2; sd++) {
    char *pd = g_strdup_printf("sigma=0.5_seed=%u", sd + 1);
    char *dir = g_build_filename(a, "points", pd, NULL);
    GPtrArray *m = scen_test_csv(dir, "metrics.csv");
    x[sd] = 0;
    for (guint r = 1; r <= 6; r++)
      x[sd] += cell(m, r, 3) / 6;
    g_ptr_array_unref(m);
    g_free(dir);
    g_free(pd);
  }
  char **row1 = g_ptr_array_index(agg, 1);
  g_assert_cmpstr(row1[1], ==, "0.5");
  g_assert_cmpstr(row1[2], ==, "2");
  g_assert_cmpstr(row1[3], ==, "2");
  /* test_loss_mean, then the geometric mean and its interval on log10: the
   * half-width of two values is t |log10 x0 - log10 x1| / 2. */
  double mean = cell(agg, 1, 5), gm = cell(agg, 1, 6), lo = cell(agg, 1, 7), hi = cell(agg, 1, 8);
  /* Means of 6 then of 2 positive losses, in another order here: 8 eps. */
  dpg_test_assert_close(mean, (x[0] + x[1]) / 2, 2 * dpg_tol(1, 8),
                        "two means of 12 positive terms in different orders");
  /* 10^(mean of log10): ln 10 x the logs' absolute error |log10 x| eps. */
  double L = fabs(log10(x[0])) + fabs(log10(x[1])) + 1;
  dpg_test_assert_close(gm, sqrt(x[0] * x[1]), dpg_tol(1, 8) * log(10.0) * L,
                        "10^(mean of 2 log10s) against sqrt(x0 x1)");
  /* The literal t is 9 significant digits: half a unit of its 9th digit
   * (formatting) times |log10(x0/x1)| / 2, plus the logs' roundings. */
  double spread = fabs(log10(x[0] / x[1])) / 2;
  dpg_test_assert_le(fabs(log10(hi / gm) - 12.7062047 * spread),
                     0.5e-7 * spread + dpg_tol(1, 16) * 12.8 * L,
                     "formatting: t(0.975, 1) to 9 digits, plus the logs' roundings");
  /* Symmetric on log10 in exact arithmetic: the roundings of log10 and 10^x
   * at magnitude |log10 gm| + the half-width, both sides. */
  double mag = fabs(log10(gm)) + fabs(log10(hi / gm)) + 1;
  dpg_test_assert_le(fabs(log10(gm / lo) - log10(hi / gm)), 2 * dpg_tol(1, 8) * log(10.0) * mag,
                     "log10 and 10^x at magnitude |log10 gm| + half-width, twice");
  g_ptr_array_unref(agg);

  /* Resume: nothing left to run; one point lost its summary: only it runs. */
  run_ok(sc, a, 2, &rep);
  g_assert_cmpuint(rep.skipped, ==, 4);
  g_assert_cmpuint(rep.ran, ==, 0);
  scen_run_report_clear(&rep);
  char *sum = g_build_filename(a, "points", "sigma=1_seed=2", "summary.json", NULL);
  g_assert_cmpint(g_unlink(sum), ==, 0);
  run_ok(sc, a, 2, &rep);
  g_assert_cmpuint(rep.skipped, ==, 3);
  g_assert_cmpuint(rep.ran, ==, 1);
  scen_run_report_clear(&rep);
  assert_same_files(a, b, TRUE);
  g_free(sum);

  /* Replay: the sweep's and a point's resolved files reproduce them byte for byte. */
  char *res = g_build_filename(a, "scenario.resolved.ini", NULL);
  GError *error = NULL;
  ScenScenario *again = scen_scenario_load(res, &error);
  g_assert_no_error(error);
  char *c = g_build_filename(f->dir, "c", NULL);
  run_ok(again, c, 2, NULL);
  assert_same_files(a, c, TRUE);
  scen_scenario_free(again);
  char *pres = g_build_filename(a, "points", "sigma=0.5_seed=2", "scenario.resolved.ini", NULL);
  again = scen_scenario_load(pres, &error);
  g_assert_no_error(error);
  char *d = g_build_filename(f->dir, "d", NULL);
  run_ok(again, d, 1, NULL);
  char *pdir = g_build_filename(a, "points", "sigma=0.5_seed=2", NULL);
  assert_same_files(pdir, d, TRUE);
  scen_scenario_free(again);
  g_free(pdir);
  g_free(pres);
  g_free(d);
  g_free(c);
  g_free(res);
  g_free(a);
  g_free(b);
  scen_scenario_free(sc);
}

/* Lines of DIR/NAME after the header. */
static char **data_lines(const char *dir, const char *name, char **header) {
  char *text = scen_test_read(dir, name);
  char **lines = g_strsplit(text, "\n", -1);
  g_free(text);
  *header = g_strdup(lines[0]);
  GPtrArray *out = g_ptr_array_new();
  for (guint i = 1; lines[i]; i++)
    if (lines[i][0] != '\0')
      g_ptr_array_add(out, g_strdup(lines[i]));
  g_ptr_array_add(out, NULL);
  g_strfreev(lines);
  return (char **)g_ptr_array_free(out, FALSE);
}

/* The sweep's tidy tables: every point's privacy.csv and metrics.csv rows,
 * in point order, after the point's name and its non-seed axis values; one
 * named epsilon column per (trust, collusion) in points.csv and groups.csv,
 * each the largest epsilon of that accounting in the point's privacy.csv.
 * A point whose table has another header (an older version) runs again, and
 * the resumed sweep writes the same bytes. */
/* Time-varying schedules (generated graphs through igraph's seeded RNG,
 * matchings, failing edges) run in parallel, with the same bytes as one
 * thread. */
static void test_sweep_schedules_parallel(Fix *f, gconstpointer data) {
  (void)data;
  const char *text = TASK "[sweep]\ntopology.schedule = resample:erdos:n=6,p=0.6;matching;"
                          "edge-failure:p=0.3\nsimulation.seed = 1..2\n";
  ScenScenario *sc = load(f->dir, text, NULL);
  char *a = g_build_filename(f->dir, "a", NULL), *b = g_build_filename(f->dir, "b", NULL);
  ScenRunReport rep = {0};
  run_ok(sc, a, 1, &rep);
  g_assert_cmpuint(rep.ran, ==, 6);
  scen_run_report_clear(&rep);
  run_ok(sc, b, 3, &rep);
  g_assert_cmpuint(rep.threads, ==, 3);
  scen_run_report_clear(&rep);
  assert_same_files(a, b, TRUE);
  scen_scenario_free(sc);
  g_free(a);
  g_free(b);
}

static void test_sweep_tidy_tables(Fix *f, gconstpointer data) {
  (void)data;
  const char *text = TASK "[collusion.a]\nnodes = 0\n[collusion.b]\nnodes = 2;3\n"
                          "[sweep]\nprotocol.sigma = 0.5;2\nsimulation.seed = 1..2\n";
  ScenScenario *sc = load(f->dir, text, (const char *const[]){"privacy.trust=pndp;ldp", NULL});
  char *a = g_build_filename(f->dir, "a", NULL), *b = g_build_filename(f->dir, "b", NULL);
  run_ok(sc, a, 2, NULL);
  const char *names[] = {"sigma=0.5_seed=1", "sigma=0.5_seed=2", "sigma=2_seed=1",
                         "sigma=2_seed=2"};
  const char *sigmas[] = {"0.5", "0.5", "2", "2"};
  const char *tables[][2] = {{"privacy.csv", SCEN_PRIVACY_CSV_COLUMNS},
                             {"metrics.csv", SCEN_METRICS_CSV_COLUMNS},
                             {"metrics_mean.csv", SCEN_METRICS_MEAN_CSV_COLUMNS}};
  for (guint t = 0; t < G_N_ELEMENTS(tables); t++) {
    char *top_header, **top = data_lines(a, tables[t][0], &top_header);
    char *want_header = g_strdup_printf("point,protocol.sigma,%s", tables[t][1]);
    g_assert_cmpstr(top_header, ==, want_header);
    guint k = 0;
    for (guint p = 0; p < 4; p++) {
      char *dir = g_build_filename(a, "points", names[p], NULL), *h;
      char **rows = data_lines(dir, tables[t][0], &h);
      g_assert_cmpstr(h, ==, tables[t][1]);
      g_assert_cmpuint(g_strv_length(rows), >, 0);
      for (guint i = 0; rows[i]; i++, k++) {
        char *want = g_strdup_printf("%s,%s,%s", names[p], sigmas[p], rows[i]);
        g_assert_cmpstr(top[k], ==, want);
        g_free(want);
      }
      g_strfreev(rows);
      g_free(h);
      g_free(dir);
    }
    g_assert_null(top[k]);
    g_strfreev(top);
    g_free(top_header);
    g_free(want_header);
  }
  /* 4 points x (pndp, ldp) x (5 victims of a + 4 of b); 3 rounds x 6 nodes, and a
   * mean row per round. */
  GPtrArray *pr = scen_test_csv(a, "privacy.csv"), *mr = scen_test_csv(a, "metrics.csv");
  GPtrArray *mmr = scen_test_csv(a, "metrics_mean.csv");
  g_assert_cmpuint(pr->len, ==, 1 + 4 * 2 * (5 + 4));
  g_assert_cmpuint(mr->len, ==, 1 + 4 * 3 * 6);
  g_assert_cmpuint(mmr->len, ==, 1 + 4 * 3);
  g_assert_cmpstr(((char **)g_ptr_array_index(mr, 7))[3], ==, "0");  /* round 4's node 0 */
  g_assert_cmpstr(((char **)g_ptr_array_index(mr, 7))[7], ==, "1");  /* seed */
  g_assert_cmpstr(((char **)g_ptr_array_index(mmr, 2))[2], ==, "4"); /* round */
  g_assert_cmpstr(((char **)g_ptr_array_index(mmr, 2))[6], ==, "1"); /* seed */
  g_ptr_array_unref(mr);
  g_ptr_array_unref(mmr);

  /* points.csv: point,dir,sigma,seed,status,sigma,final_train_loss,final_test_loss,
   * final_test_accuracy,test_loss_last50, then the epsilon columns, delta. */
  GPtrArray *pts = scen_test_csv(a, "points.csv"), *grp = scen_test_csv(a, "groups.csv");
  char *ph = g_strjoinv(",", g_ptr_array_index(pts, 0));
  g_assert_true(g_str_has_suffix(ph, ",test_loss_last50,epsilon_pndp_a,epsilon_ldp_a,"
                                     "epsilon_pndp_b,epsilon_ldp_b,delta"));
  char *gh = g_strjoinv(",", g_ptr_array_index(grp, 0));
  g_assert_true(g_str_has_prefix(gh, "group,sigma,seeds,sigma,epsilon_pndp_a,epsilon_ldp_a,"
                                     "epsilon_pndp_b,epsilon_ldp_b,final_test_loss_mean,"));
  g_assert_true(g_str_has_suffix(gh, ",final_test_loss_mean,final_test_loss_gmean,"
                                     "final_test_loss_lo,final_test_loss_hi,test_loss_last50_mean,"
                                     "test_loss_last50_gmean,test_loss_last50_lo,"
                                     "test_loss_last50_hi,final_test_accuracy_mean,"
                                     "final_test_accuracy_lo,final_test_accuracy_hi,delta"));
  const char *acc[][2] = {{"a", "pndp"}, {"a", "ldp"}, {"b", "pndp"}, {"b", "ldp"}};
  for (guint p = 0; p < 4; p++) {
    for (guint c = 0; c < 4; c++) {
      double worst = 0; /* privacy.csv: point,sigma,collusion,trust,...,epsilon (col 9) */
      for (guint r = 1; r < pr->len; r++) {
        char **row = g_ptr_array_index(pr, r);
        if (g_str_equal(row[0], names[p]) && g_str_equal(row[2], acc[c][0]) &&
            g_str_equal(row[3], acc[c][1]))
          worst = MAX(worst, g_ascii_strtod(row[9], NULL));
      }
      g_assert_cmpfloat(worst, >, 0);
      g_assert_cmpfloat(cell(pts, 1 + p, 10 + c), ==, worst);
      if (p % 2 == 0) /* the group's: its first seed's */
        g_assert_cmpfloat(cell(grp, 1 + p / 2, 4 + c), ==, worst);
    }
    g_assert_cmpstr(((char **)g_ptr_array_index(pts, 1 + p))[14], ==, "1e-06");
  }
  /* LDP: mu = sqrt(T / b) / sigma whatever the set; PNDP never above it. */
  g_assert_cmpfloat(cell(pts, 1, 11), ==, cell(pts, 1, 13));
  g_assert_cmpfloat(cell(pts, 1, 10), <=, cell(pts, 1, 11));
  g_ptr_array_unref(pts);
  g_ptr_array_unref(grp);
  g_ptr_array_unref(pr);
  g_free(ph);
  g_free(gh);

  /* Another version's privacy.csv (no status column): that point runs again;
   * the rest comes back from disk; the same bytes as a fresh run. */
  run_ok(sc, b, 1, NULL);
  char *p2 = g_build_filename(a, "points", names[2], NULL);
  char *old = scen_test_read(p2, "privacy.csv");
  gsize header_len = strcspn(old, "\n");
  char *patched = g_strconcat("collusion,trust,victim,distance,sensitivity,mu,rdp,epsilon,"
                              "muffliato_rdp",
                              old + header_len, NULL);
  g_free(scen_test_write(p2, "privacy.csv", patched));
  ScenRunReport rep = {0};
  run_ok(sc, a, 2, &rep);
  g_assert_cmpuint(rep.ran, ==, 1);
  g_assert_cmpuint(rep.skipped, ==, 3);
  scen_run_report_clear(&rep);
  assert_same_files(a, b, TRUE);
  g_free(patched);
  g_free(old);
  g_free(p2);
  g_free(a);
  g_free(b);
  scen_scenario_free(sc);
}

/* A file written piece by piece (the sweep's tables): past the 1 MiB buffer
 * it goes out in several writes, and only commit puts it in place; abort
 * leaves nothing, not even the temporary. */
static void test_file_out(Fix *f, gconstpointer data) {
  (void)data;
  char *path = g_build_filename(f->dir, "t.csv", NULL);
  GError *error = NULL;
  ScenFileOut *o = scen_file_out_new(path, &error);
  g_assert_no_error(error);
  GString *want = g_string_new(NULL);
  char piece[100000];
  for (guint i = 0; i < 30; i++) {
    memset(piece, 'a' + (int)i % 26, sizeof piece);
    g_assert_true(scen_file_out_write(o, piece, sizeof piece, &error));
    g_string_append_len(want, piece, sizeof piece);
    g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS)); /* not before commit */
  }
  g_assert_true(scen_file_out_commit(o, &error));
  g_assert_no_error(error);
  char *got = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &got, &len, NULL));
  g_assert_cmpuint(len, ==, want->len);
  g_assert_true(memcmp(got, want->str, len) == 0);
  g_free(got);
  g_unlink(path);
  o = scen_file_out_new(path, &error);
  g_assert_true(scen_file_out_write(o, want->str, want->len, &error));
  scen_file_out_abort(o);
  GDir *d = g_dir_open(f->dir, 0, NULL);
  g_assert_null(g_dir_read_name(d));
  g_dir_close(d);
  g_string_free(want, TRUE);
  g_free(path);
}

/* json-glib 1.6 wrote sigma = 1e20 as `1e+20.0`, so both points'
 * summaries were invalid JSON: the sweep reported them failed in points.csv
 * with 0 seeds in groups.csv, yet succeeded, and resume skipped them. Now the
 * summaries read back, and a point whose summary or privacy.csv is broken or
 * gone is run again. */
static void test_sweep_huge_sigma_resume(Fix *f, gconstpointer data) {
  (void)data;
  const char *text = TASK "[sweep]\nprotocol.sigma = 1e20;1e21\n";
  ScenScenario *sc = load(f->dir, text, NULL);
  char *a = g_build_filename(f->dir, "a", NULL);
  ScenRunReport rep = {0};
  run_ok(sc, a, 1, &rep);
  g_assert_cmpuint(rep.ran, ==, 2);
  g_assert_cmpuint(rep.failed, ==, 0);
  scen_run_report_clear(&rep);
  const double sig[] = {1e20, 1e21};
  for (guint i = 0; i < 2; i++) {
    char *pd = g_strdup_printf("sigma=%s", i ? "1e21" : "1e20");
    char *dir = g_build_filename(a, "points", pd, NULL);
    char *path = g_build_filename(dir, "summary.json", NULL);
    JsonParser *parser = json_parser_new();
    GError *error = NULL;
    json_parser_load_from_file(parser, path, &error);
    g_assert_no_error(error);
    JsonObject *o = json_node_get_object(json_parser_get_root(parser));
    g_assert_cmpfloat(json_object_get_double_member(o, "sigma"), ==, sig[i]);
    g_object_unref(parser);
    g_free(path);
    g_free(dir);
    g_free(pd);
  }
  GPtrArray *pts = scen_test_csv(a, "points.csv");
  g_assert_cmpstr(((char **)g_ptr_array_index(pts, 1))[3], ==, "done");
  g_assert_cmpstr(((char **)g_ptr_array_index(pts, 2))[3], ==, "done");
  g_assert_cmpfloat(cell(pts, 2, 4), ==, 1e21);
  g_ptr_array_unref(pts);
  GPtrArray *g = scen_test_csv(a, "groups.csv");
  g_assert_cmpuint(g->len, ==, 3);
  g_assert_cmpstr(((char **)g_ptr_array_index(g, 1))[2], ==, "1"); /* seeds */
  g_assert_cmpfloat(cell(g, 1, 3), ==, 1e20);
  /* epsilon: mu ~ 1e-20 gives delta(0) ~ 0.4 mu < 1e-6, so 0 is exact here. */
  g_assert_cmpstr(((char **)g_ptr_array_index(g, 1))[4], ==, "0");
  g_ptr_array_unref(g);

  /* A summary no reader accepts: not finished, run again. */
  char *p0 = g_build_filename(a, "points", "sigma=1e20", NULL);
  char *p1 = g_build_filename(a, "points", "sigma=1e21", NULL);
  g_free(scen_test_write(p0, "summary.json", "{\"sigma\" : 1e+20.0}\n"));
  run_ok(sc, a, 1, &rep);
  g_assert_cmpuint(rep.ran, ==, 1);
  g_assert_cmpuint(rep.skipped, ==, 1);
  scen_run_report_clear(&rep);
  /* privacy.csv deleted: not finished either. */
  char *pc = g_build_filename(p1, "privacy.csv", NULL);
  g_assert_cmpint(g_unlink(pc), ==, 0);
  run_ok(sc, a, 1, &rep);
  g_assert_cmpuint(rep.ran, ==, 1);
  g_assert_cmpuint(rep.skipped, ==, 1);
  scen_run_report_clear(&rep);
  g_assert_true(g_file_test(pc, G_FILE_TEST_IS_REGULAR));
  /* A summary of {} passed for a finished point with no values, and one
   * nested 200,000 deep overflowed json-glib's recursion: both run again,
   * the report saying why. */
  GString *deep = g_string_new(NULL);
  for (guint i = 0; i < 200000; i++)
    g_string_append_c(deep, '[');
  for (guint i = 0; i < 200000; i++)
    g_string_append_c(deep, ']');
  const char *bodies[] = {"{}\n", deep->str};
  const char *why[] = {"no \"rounds\" of the right type", "more than 64 deep"};
  for (guint i = 0; i < 2; i++) {
    g_free(scen_test_write(p0, "summary.json", bodies[i]));
    run_ok(sc, a, 1, &rep);
    g_assert_cmpuint(rep.ran, ==, 1);
    g_assert_cmpuint(rep.skipped, ==, 1);
    g_assert_nonnull(rep.rerun);
    g_assert_cmpuint(rep.rerun->len, ==, 1);
    const char *msg = g_ptr_array_index(rep.rerun, 0);
    if (strstr(msg, "sigma=1e20") == NULL || strstr(msg, why[i]) == NULL)
      g_error("rerun note '%s' lacks the point or '%s'", msg, why[i]);
    scen_run_report_clear(&rep);
  }
  g_string_free(deep, TRUE);
  run_ok(sc, a, 1, &rep);
  g_assert_cmpuint(rep.skipped, ==, 2);
  g_assert_null(rep.rerun);
  scen_run_report_clear(&rep);
  g_free(pc);
  g_free(p0);
  g_free(p1);
  g_free(a);
  scen_scenario_free(sc);
}

static void test_shared_runs(Fix *f, gconstpointer data) {
  (void)data;
  /* nonprivate ignores mu: the two points are one run, written twice. */
  const char *text = TASK "[sweep]\nprotocol.name = nonprivate;dsgd\nprotocol.mu = 1;2\n";
  const char *sets[] = {"protocol.sigma=", NULL};
  (void)sets;
  char *t2 = g_strdup(text);
  /* mu and sigma cannot both be given: drop the base sigma. */
  char *s = strstr(t2, "sigma = 0.5\n");
  memmove(s, s + 12, strlen(s + 12) + 1);
  ScenScenario *sc = load(f->dir, t2, NULL);
  char *out = g_build_filename(f->dir, "out", NULL);
  ScenRunReport rep = {0};
  run_ok(sc, out, 2, &rep);
  g_assert_cmpuint(rep.ran, ==, 4);
  scen_run_report_clear(&rep);
  char *p1 = g_build_filename(out, "points", "name=nonprivate_mu=1", NULL);
  char *p2 = g_build_filename(out, "points", "name=nonprivate_mu=2", NULL);
  assert_same_files(p1, p2, TRUE);
  char *ini = scen_test_read(p1, "scenario.resolved.ini");
  g_assert_nonnull(strstr(ini, "name = nonprivate\nsigma = 0\n"));
  g_free(ini);
  /* dsgd at mu: LDP-calibrated, victims' mu under LDP would be mu; here PNDP <= mu. */
  GPtrArray *g = scen_test_csv(out, "groups.csv");
  g_assert_cmpuint(g->len, ==, 5);
  /* nonprivate: no finite epsilon. dsgd mu=1: sigma = sqrt(k)/mu = sqrt(2)
   * (and the calibration's 1e-12 relative margin). */
  g_assert_cmpstr(((char **)g_ptr_array_index(g, 1))[5], ==, "inf");
  const char *why = "sqrt(k) / mu x (1 + margin): a few flops, %.17g exact";
  dpg_test_assert_close(cell(g, 3, 4), sqrt(2.0) * (1 + 1e-12), dpg_tol(1, 4), why);
  dpg_test_assert_close(cell(g, 4, 4), sqrt(2.0) / 2 * (1 + 1e-12), dpg_tol(1, 4), why);
  g_ptr_array_unref(g);
  g_free(p1);
  g_free(p2);
  g_free(out);
  g_free(t2);
  scen_scenario_free(sc);
}

static void test_mu_calibration_ldp(Fix *f, gconstpointer data) {
  (void)data;
  /* Under LDP every victim must be exactly mu-GDP, whatever the correlation. */
  const char *text = "[simulation]\nrounds = 12\n[topology]\ngenerate = karate\n[protocol]\n"
                     "mu = 0.7\n[privacy]\ntrust = ldp\nparticipation_interval = 4\n"
                     "[output]\nplots = false\n[sweep]\nprotocol.name = dsgd;muffliato:K=2;"
                     "antipgd;mfdsgd:C=sr;mafalda;mafalda:C=toeplitz,band=3;"
                     "mfdsgd:C=blt,buffers=2\n";
  ScenScenario *sc = load(f->dir, text, NULL);
  char *out = g_build_filename(f->dir, "out", NULL);
  run_ok(sc, out, 2, NULL);
  const char *names[] = {"name=dsgd",
                         "name=muffliato-K-2",
                         "name=antipgd",
                         "name=mfdsgd-C-sr",
                         "name=mafalda",
                         "name=mafalda-C-toeplitz-band-3",
                         "name=mfdsgd-C-blt-buffers-2"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    char *dir = g_build_filename(out, "points", names[i], NULL);
    GPtrArray *p = scen_test_csv(dir, "privacy.csv");
    g_assert_cmpuint(p->len, ==, 1 + 33);
    for (guint r = 1; r < p->len; r++)
      g_assert_cmpfloat_with_epsilon(cell(p, r, 5), 0.7, 1e-6);
    g_ptr_array_unref(p);
    g_free(dir);
  }
  g_free(out);
  scen_scenario_free(sc);
}

static void test_structured_equals_observer(Fix *f, gconstpointer data) {
  (void)data;
  const char *text =
      "[simulation]\nrounds = 6\n[topology]\ngenerate = florentine\n"
      "[protocol]\nsigma = 1.3\n[privacy]\ntrust = pndp;ldp;secldp\n"
      "participation_interval = 2\n[collusion.a]\nnodes = 0\n[collusion.b]\n"
      "nodes = 2;9\n[output]\nplots = false\n[sweep]\n"
      "protocol.name = dsgd;muffliato:K=2;antipgd\nprivacy.path = structured;observer\n";
  ScenScenario *sc = load(f->dir, text, NULL);
  char *out = g_build_filename(f->dir, "out", NULL);
  run_ok(sc, out, 2, NULL);
  const char *protos[] = {"dsgd", "muffliato-K-2", "antipgd"};
  for (guint i = 0; i < 3; i++) {
    char *ds = g_strdup_printf("name=%s_path=structured", protos[i]);
    char *dobs = g_strdup_printf("name=%s_path=observer", protos[i]);
    char *a = g_build_filename(out, "points", ds, NULL),
         *b = g_build_filename(out, "points", dobs, NULL);
    GPtrArray *pa = scen_test_csv(a, "privacy.csv"), *pb = scen_test_csv(b, "privacy.csv");
    g_assert_cmpuint(pa->len, ==, pb->len);
    g_assert_cmpuint(pa->len, ==, 1 + 3 * (14 + 13));
    for (guint r = 1; r < pa->len; r++) {
      char **ra = g_ptr_array_index(pa, r), **rb = g_ptr_array_index(pb, r);
      g_assert_cmpstr(ra[2], ==, rb[2]);
      g_assert_cmpstr(ra[3], ==, rb[3]);
      double x = cell(pa, r, 4), y = cell(pb, r, 4);
      if (isinf(x))
        g_assert_true(isinf(y));
      else
        g_assert_cmpfloat_with_epsilon(x, y, 1e-6 * MAX(1.0, fabs(x)));
    }
    g_ptr_array_unref(pa);
    g_ptr_array_unref(pb);
    g_free(a);
    g_free(b);
    g_free(ds);
    g_free(dobs);
  }
  g_free(out);
  scen_scenario_free(sc);
}

/* Zip-DL under LDP at sigma = 2^-27: victim 1's exact mu is 3.3e9
 * (tests/protocols/test_account_exact.c), victim 0's 5.1e7. privacy.csv gets
 * a status column, victim 1 no number, summary.json the count and the note;
 * the header is the same as without unresolved victims (above). */
static void test_unresolved(Fix *f, gconstpointer data) {
  (void)data;
  const char *text = "[simulation]\nrounds = 4\n[topology]\ngenerate = florentine\n"
                     "[protocol]\nname = zipdl\nsigma = 7.450580596923828125e-09\n"
                     "[privacy]\ntrust = ldp\npath = observer\n[collusion.nine]\nnodes = 9\n"
                     "[output]\nplots = false\n";
  ScenScenario *sc = load(f->dir, text, NULL);
  char *out = g_build_filename(f->dir, "out", NULL);
  run_ok(sc, out, 1, NULL);
  GPtrArray *rows = scen_test_csv(out, "privacy.csv");
  char *header = g_strjoinv(",", g_ptr_array_index(rows, 0));
  g_assert_cmpstr(header, ==, SCEN_PRIVACY_CSV_COLUMNS);
  g_free(header);
  g_assert_cmpuint(rows->len, ==, 1 + 14);
  char *v0 = g_strjoinv(",", g_ptr_array_index(rows, 1));
  char *v1 = g_strjoinv(",", g_ptr_array_index(rows, 2));
  g_assert_true(g_str_has_prefix(v0, "nine,ldp,0,2,50939954."));
  g_assert_true(g_str_has_suffix(v0, ",protected,9,2,1e-06,observer,0,,exact"));
  g_assert_cmpstr(v1, ==, "nine,ldp,1,1,inf,inf,inf,inf,,unresolved,9,2,1e-06,observer,0,,exact");
  g_free(v0);
  g_free(v1);
  g_ptr_array_unref(rows);
  char *sum = scen_test_read(out, "summary.json");
  g_assert_nonnull(strstr(sum, "\"unresolved\" : 9,"));
  g_assert_nonnull(
      strstr(sum, "\"note\" : \"no protection: mu > 1e8 or not resolvable in double precision\""));
  g_free(sum);
  g_free(out);
  scen_scenario_free(sc);
}

static void test_invalid_refused(Fix *f, gconstpointer data) {
  (void)data;
  ScenScenario *sc = load(f->dir, "[topology]\ngenerate = florentine\n[protocol]\nsigma = x\n",
                          NULL);
  char *out = g_build_filename(f->dir, "out", NULL);
  ScenRunOptions opt = {.out_dir = out};
  GError *error = NULL;
  ScenRunReport rep = {0};
  g_assert_false(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_error(error, SCEN_ERROR, SCEN_ERROR_INVALID);
  g_assert_nonnull(strstr(error->message, ":4: protocol.sigma: 'x' is not a number"));
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_clear_error(&error);
  scen_run_report_clear(&rep);
  g_free(out);
  scen_scenario_free(sc);
}

static void test_cancel(Fix *f, gconstpointer data) {
  (void)data;
  ScenScenario *sc = load(f->dir, TASK "[sweep]\nsimulation.seed = 1..3\n", NULL);
  char *out = g_build_filename(f->dir, "out", NULL);
  ScenRunOptions opt = {.out_dir = out, .threads = 2};
  GError *error = NULL;
  ScenRunReport rep = {0};
  scen_cancel();
  g_assert_false(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_error(error, SCEN_ERROR, SCEN_ERROR_CANCELLED);
  g_clear_error(&error);
  scen_run_report_clear(&rep);
  /* Nothing looks complete. */
  char *sum = g_build_filename(out, "summary.json", NULL);
  g_assert_false(g_file_test(sum, G_FILE_TEST_EXISTS));
  char *p = g_build_filename(out, "points", NULL);
  g_assert_false(g_file_test(p, G_FILE_TEST_EXISTS));
  scen_cancel_reset();
  run_ok(sc, out, 2, &rep);
  g_assert_cmpuint(rep.ran, ==, 3);
  scen_run_report_clear(&rep);
  g_assert_true(g_file_test(sum, G_FILE_TEST_EXISTS));
  g_free(p);
  g_free(sum);
  g_free(out);
  scen_scenario_free(sc);
}

/* A resumed sweep reruns a point whose input file changed: the resolved file
 * names each input by its SHA-256 (checked here against the digest of the
 * bytes written), not only by its path, which did not change. */
static void write_c(const char *path, double sub) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < 6; i++)
    for (guint j = 0; j < 6; j++)
      g_string_append_printf(s, "%g%s", i == j ? 1.0 : (i == j + 1 ? sub : 0.0),
                             j == 5 ? "\n" : ",");
  g_assert_true(g_file_set_contents(path, s->str, -1, NULL));
  g_string_free(s, TRUE);
}

static void assert_input_listed(const char *out, const char *path) {
  char *text = NULL, *res = g_build_filename(out, "scenario.resolved.ini", NULL);
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &text, &len, NULL));
  char *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text, len);
  g_free(text);
  char *line = g_strdup_printf("\n# sha256 %s  %s\n", hex, path);
  g_assert_true(g_file_get_contents(res, &text, NULL, NULL));
  if (strstr(text, line) == NULL)
    g_error("%s does not list '%s'", res, line + 1);
  g_free(text);
  g_free(line);
  g_free(hex);
  g_free(res);
}

static void test_resume_inputs_changed(Fix *f, gconstpointer data) {
  (void)data;
  char *C = g_build_filename(f->dir, "c.csv", NULL);
  write_c(C, 0.0);
  const char *sets[] = {"protocol.name=mfdsgd:C=c.csv", NULL};
  ScenScenario *sc = load(f->dir, TASK, sets);
  char *out = g_build_filename(f->dir, "out", NULL);
  ScenRunReport rep = {0};
  run_ok(sc, out, 1, &rep);
  g_assert_cmpuint(rep.ran, ==, 1);
  scen_run_report_clear(&rep);
  assert_input_listed(out, C);
  /* The same bytes: finished. */
  run_ok(sc, out, 1, &rep);
  g_assert_cmpuint(rep.skipped, ==, 1);
  g_assert_cmpuint(rep.ran, ==, 0);
  scen_run_report_clear(&rep);
  /* Other bytes at the same path: it runs again, and says so by the new digest. */
  write_c(C, 0.5);
  scen_scenario_free(sc);
  sc = load(f->dir, TASK, sets);
  run_ok(sc, out, 1, &rep);
  g_assert_cmpuint(rep.skipped, ==, 0);
  g_assert_cmpuint(rep.ran, ==, 1);
  scen_run_report_clear(&rep);
  assert_input_listed(out, C);
  scen_scenario_free(sc);
  g_free(out);
  g_free(C);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(name, fn) SCEN_TEST_ADD("/scenarios/run/" name, fn)
  ADD("point-outputs-reference", test_point_outputs_reference);
  ADD("task-metrics", test_task_metrics);
  ADD("task-eval-sample", test_task_eval_sample);
  ADD("sweep-determinism-replay-resume", test_sweep_determinism_replay_resume);
  ADD("sweep-schedules-parallel", test_sweep_schedules_parallel);
  ADD("shared-runs", test_shared_runs);
  ADD("mu-calibration-ldp", test_mu_calibration_ldp);
  ADD("structured-equals-observer", test_structured_equals_observer);
  ADD("unresolved", test_unresolved);
  ADD("invalid-refused", test_invalid_refused);
  ADD("cancel", test_cancel);
  ADD("sweep-huge-sigma-resume", test_sweep_huge_sigma_resume);
  ADD("resume-inputs-changed", test_resume_inputs_changed);
  ADD("sweep-tidy-tables", test_sweep_tidy_tables);
  ADD("file-out", test_file_out);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
