/*
 * tests/sim/test_latency_geo.c: the geo latency model (its bad specs are in
 * test_latency_data.c's table). Specs read back to the same model, with the
 * fitted defaults; delays equal base + per_km x the
 * great-circle distance on points whose distances are known in closed form
 * (quarter and half great circles), capped at max; the log-normal factor has
 * the mean and spread of its closed form; the same seed gives the same
 * delays, each pair's
 * the same both ways; bad node files are refused with FILE:LINE; the engine
 * refuses a link to a node the file does not place; the overlay's node file
 * loads with its counts.
 */
#include <math.h>
#include <string.h>

#include "sim/sim.h"
#include "tests/common/files.h"
#include "tests/common/checks.h"

static char *tmpdir;

static SimLatencyData *load_spec(const char *fmt, const char *file) {
  char *spec = g_strdup_printf(fmt, file);
  SimLatency l;
  GError *err = NULL;
  g_assert_true(sim_latency_parse(spec, &l, &err));
  g_assert_no_error(err);
  SimLatencyData *d = sim_latency_data_load(&l, &err);
  g_assert_no_error(err);
  g_assert_nonnull(d);
  g_free(spec);
  return d;
}

static double delay_ms(const SimLatencyData *d, guint32 u, guint32 v) {
  SimTime ns = 0;
  g_assert_true(sim_latency_data_delay(d, u, v, &ns));
  return (double)ns * 1e-6;
}

/* Equator at longitudes 0, 90 and 180, and the north pole (any longitude):
 * every pair a quarter or a half of a great circle. Ids out of row order. */
static const char *four = "index,kind,long,lat\n"
                          "2,RELAY1,180,0\n"
                          "0,BPROD,0,0\n"
                          "# the pole\n"
                          "3,OTHER,37.5,90\n"
                          "1,RELAY2,90,0\n";

static void test_spec(void) {
  char *f = test_write_file(tmpdir, "spec.csv", four, -1);
  char *spec = g_strdup_printf(" Geo : nodes = %s ", f);
  SimLatency l;
  g_assert_true(sim_latency_parse(spec, &l, NULL));
  g_assert_cmpint(l.kind, ==, SIM_LATENCY_GEO);
  g_assert_true(SIM_LATENCY_IS_MEASURED(&l));
  g_assert_cmpstr(l.file, ==, f);
  /* The defaults are bench/geo_latency_fit.py's fit to the overlay. */
  g_assert_cmpfloat(l.base_ms, ==, 55.1);
  g_assert_cmpfloat(l.per_km_ms, ==, 0.003767);
  g_assert_cmpfloat(l.jitter, ==, 0.9615);
  g_assert_cmpfloat(l.max_ms, ==, 636.8);
  g_assert_cmpuint(l.seed, ==, 1);
  g_assert_true(isnan(sim_latency_mean_ms(&l)));
  char *back = sim_latency_to_string(&l);
  char *want = g_strdup_printf("geo:nodes=%s,base=55.1,per_km=0.003767,jitter=0.9615,max=636.8,seed=1", f);
  g_assert_cmpstr(back, ==, want);
  SimLatency l2;
  g_assert_true(sim_latency_parse(back, &l2, NULL));
  g_assert_true(memcmp(&l, &l2, sizeof l) == 0);
  g_free(want);
  g_free(back);
  g_free(spec);
  /* A scenario's relative node path resolves against the scenario's folder. */
  char *rebased = sim_latency_spec_rebase("geo:nodes=data/n.csv,jitter=0", "/srv/sc");
  g_assert_cmpstr(rebased, ==, "geo:nodes=/srv/sc/data/n.csv,jitter=0");
  g_free(rebased);
  g_free(f);
}

static void test_closed_form(void) {
  const double quarter = G_PI / 2 * SIM_EARTH_RADIUS_KM, half = G_PI * SIM_EARTH_RADIUS_KM;
  g_assert_cmpfloat(fabs(sim_great_circle_km(0, 0, 90, 0) - quarter), <, 1e-9);
  g_assert_cmpfloat(fabs(sim_great_circle_km(-90, 0, 90, 0) - half), <, 1e-9);
  g_assert_cmpfloat(fabs(sim_great_circle_km(10, -90, 170, 90) - half), <, 1e-9);
  g_assert_cmpfloat(sim_great_circle_km(12.5, 41.9, 12.5, 41.9), ==, 0);
  /* One degree of a meridian: R pi / 180. */
  g_assert_cmpfloat(fabs(sim_great_circle_km(3, 10, 3, 11) - SIM_EARTH_RADIUS_KM * G_PI / 180),
                    <, 1e-9);
  char *f = test_write_file(tmpdir, "four.csv", four, -1);
  SimLatencyData *d = load_spec("geo:nodes=%s,base=5,per_km=0.01,jitter=0", f);
  static const struct {
    guint32 u, v;
    gboolean half;
  } pairs[] = {{0, 1, FALSE}, {0, 2, TRUE}, {1, 2, FALSE}, {0, 3, FALSE}, {1, 3, FALSE},
               {2, 3, FALSE}};
  for (guint i = 0; i < G_N_ELEMENTS(pairs); i++) {
    double want = 5 + 0.01 * (pairs[i].half ? half : quarter);
    g_assert_cmpfloat(fabs(delay_ms(d, pairs[i].u, pairs[i].v) - want), <=, 1e-6);
    g_assert_cmpfloat(delay_ms(d, pairs[i].v, pairs[i].u), ==,
                      delay_ms(d, pairs[i].u, pairs[i].v));
  }
  double lon, lat;
  g_assert_true(sim_latency_data_position(d, 3, &lon, &lat));
  g_assert_true(lon == 37.5 && lat == 90);
  g_assert_true(sim_latency_data_position(d, 2, &lon, &lat));
  g_assert_true(lon == 180 && lat == 0);
  g_assert_false(sim_latency_data_position(d, 4, &lon, &lat));
  SimTime ns;
  g_assert_false(sim_latency_data_delay(d, 1, 4, &ns));
  g_assert_cmpint(sim_latency_data_country(d, 0, NULL), ==, -1);
  /* max caps a delay: the half circle's 205 ms, not the quarter's 105. */
  SimLatencyData *capped = load_spec("geo:nodes=%s,base=5,per_km=0.01,jitter=0,max=150", f);
  g_assert_cmpfloat(delay_ms(capped, 2, 0), ==, 150);
  g_assert_cmpfloat(delay_ms(capped, 0, 1), ==, delay_ms(d, 0, 1));
  sim_latency_data_unref(capped);
  char *what = sim_latency_data_describe(d);
  g_assert_nonnull(strstr(what, "4 nodes placed by"));
  g_assert_nonnull(strstr(what, "4 distinct positions, at most 1 nodes at one"));
  g_free(what);
  sim_latency_data_unref(d);
  g_free(f);
  /* Without an id column, row k is node k. */
  f = test_write_file(tmpdir, "rows.csv", "lat,lon\n0,0\n0,90\n", -1);
  d = load_spec("geo:nodes=%s,base=0,per_km=1,jitter=0,max=1e9", f);
  g_assert_cmpfloat(fabs(delay_ms(d, 0, 1) - quarter), <=, 1e-6);
  sim_latency_data_unref(d);
  g_free(f);
}

/* 300 nodes at one position: every pair's delay is base x its factor, whose
 * log is N(-s^2/2, s^2) and whose mean is 1 (no cap within reach). */
static void test_jitter(void) {
  GString *text = g_string_new("longitude,latitude\n");
  for (guint i = 0; i < 300; i++)
    g_string_append(text, "-3.7,40.4\n");
  char *f = test_write_file(tmpdir, "crowd.csv", text->str, -1);
  g_string_free(text, TRUE);
  const double s = 0.8;
  const char *spec = "geo:nodes=%s,base=50,per_km=7,jitter=0.8,max=1e9,seed=9";
  SimLatencyData *d = load_spec(spec, f);
  SimLatencyData *again = load_spec(spec, f);
  SimLatencyData *other = load_spec("geo:nodes=%s,base=50,per_km=7,jitter=0.8,max=1e9,seed=10", f);
  double sum = 0, sum_log = 0, sum_log2 = 0;
  guint n = 0, differ = 0;
  for (guint32 u = 0; u < 300; u++)
    for (guint32 v = u + 1; v < 300; v++) {
      double x = delay_ms(d, u, v) / 50;
      g_assert_cmpfloat(delay_ms(again, v, u), ==, delay_ms(d, u, v));
      differ += delay_ms(other, u, v) != delay_ms(d, u, v);
      sum += x;
      sum_log += log(x);
      sum_log2 += log(x) * log(x);
      n++;
    }
  double mean_log = sum_log / n, sd_log = sqrt((sum_log2 - n * mean_log * mean_log) / (n - 1));
  /* Five standard errors: the log's mean (se s / sqrt(n)), its standard
   * deviation (se about s / sqrt(2n)) and the factor's mean (se
   * sqrt(exp(s^2) - 1) / sqrt(n)). */
  g_assert_cmpfloat(fabs(mean_log + s * s / 2), <, 5 * s / sqrt(n));
  g_assert_cmpfloat(fabs(sd_log - s), <, 5 * s / sqrt(2.0 * n));
  g_assert_cmpfloat(fabs(sum / n - 1), <, 5 * sqrt(expm1(s * s) / n));
  g_assert_cmpuint(differ, >, n * 99 / 100);
  char *what = sim_latency_data_describe(d);
  g_assert_nonnull(strstr(what, "1 distinct positions, at most 300 nodes at one"));
  g_free(what);
  sim_latency_data_unref(other);
  sim_latency_data_unref(again);
  sim_latency_data_unref(d);
  g_free(f);
}

/* The overlay's node file (gzip): ids in the index column, one placeholder
 * position (data/README.md). */
static void test_overlay(void) {
  g_assert_nonnull(g_getenv("DPG_DATA_DIR"));
  char *f = g_build_filename(g_getenv("DPG_DATA_DIR"), "real", "pseudo-mainnet-nodes-v1.csv.gz",
                             NULL);
  SimLatencyData *d = load_spec("geo:nodes=%s", f);
  char *what = sim_latency_data_describe(d);
  g_assert_nonnull(strstr(what, "10000 nodes placed by"));
  g_assert_nonnull(strstr(what, "7543 distinct positions, at most 2458 nodes at one"));
  g_free(what);
  /* Node 5395 is the file's next-to-last row: 19.9320552137266, 48.661548006356. */
  double lon, lat;
  g_assert_true(sim_latency_data_position(d, 5395, &lon, &lat));
  g_assert_true(lon == 19.9320552137266 && lat == 48.661548006356);
  g_assert_false(sim_latency_data_position(d, 10000, &lon, &lat));
  sim_latency_data_unref(d);
  g_free(f);
}

static void test_bad_files(void) {
  static const struct {
    const char *text, *needle;
  } bad[] = {
      {"", "bad.csv:1: no header"},
      {"index,long,lat\n\n", "bad.csv:2: no node"},
      {"index,kind,long\n0,A,3\n", "bad.csv:1: the header names no latitude column"},
      {"# nodes\nid,lat\n0,3\n", "bad.csv:2: the header names no longitude column"},
      {"0,1.5,2.5\n", "bad.csv:1: the header names no longitude column"},
      {"lon,long,lat\n", "bad.csv:1: columns 1 and 2 both name the node's longitude"},
      {"index,long,lat\n0,1\n", "bad.csv:2: 2 fields, expected 3 as the header"},
      {"index,long,lat\n0,1,2\n1,x,3\n", "bad.csv:3: longitude 'x' is not a number of degrees"},
      {"index,long,lat\n0,180.5,2\n", "bad.csv:2: longitude '180.5' is not a number of degrees "
                                      "in [-180, 180]"},
      {"index,long,lat\n0,1,-91\n", "bad.csv:2: latitude '-91' is not a number of degrees in "
                                    "[-90, 90]"},
      {"index,long,lat\n0,1,nan\n", "bad.csv:2: latitude 'nan'"},
      {"index,long,lat\n-1,1,2\n", "bad.csv:2: node id '-1' is not an integer"},
      {"index,long,lat\n0,1,2\n\n0,3,4\n", "bad.csv:4: the node of line 2 again"},
      {"index,long,lat\n0,1,2\n5,3,4\n", "bad.csv:3: node id 5 but the file places 2 nodes: ids "
                                         "must be 0..1, each once"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *f = test_write_file(tmpdir, "bad.csv", bad[i].text, -1);
    char *spec = g_strdup_printf("geo:nodes=%s", f);
    SimLatency l;
    g_assert_true(sim_latency_parse(spec, &l, NULL));
    GError *err = NULL;
    g_assert_null(sim_latency_data_load(&l, &err));
    g_assert_error(err, SIM_ERROR, SIM_ERROR_FILE);
    if (strstr(err->message, bad[i].needle) == NULL)
      g_error("\"%s\" lacks \"%s\"", err->message, bad[i].needle);
    g_error_free(err);
    g_free(spec);
    g_free(f);
  }
}

static void test_engine(void) {
  char *f = test_write_file(tmpdir, "engine.csv", four, -1);
  char *spec = g_strdup_printf("geo:nodes=%s,jitter=0", f);
  SimNodeHandlers h = {0};
  GError *err = NULL;
  SimEngine *e = sim_engine_new(5, 1, &h, NULL, &err);
  g_assert_no_error(err);
  SimLinkParams p = {.loss = 0};
  g_assert_true(sim_latency_parse(spec, &p.latency, NULL));
  g_assert_true(sim_engine_set_default_link(e, &p, &err));
  g_assert_no_error(err);
  g_assert_true(sim_engine_check_link(e, 3, 0, &err));
  g_assert_no_error(err);
  g_assert_false(sim_engine_check_link(e, 1, 4, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "does not place node 4"));
  g_clear_error(&err);
  sim_engine_free(e);
  g_free(spec);
  g_free(f);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  tmpdir = test_tmpdir("latency-geo");
  g_test_add_func("/latency-geo/spec", test_spec);
  g_test_add_func("/latency-geo/closed-form", test_closed_form);
  g_test_add_func("/latency-geo/jitter", test_jitter);
  g_test_add_func("/latency-geo/overlay", test_overlay);
  g_test_add_func("/latency-geo/bad-files", test_bad_files);
  g_test_add_func("/latency-geo/engine", test_engine);
  int rc = g_test_run();
  test_rmtree(tmpdir);
  g_free(tmpdir);
  return rc;
}
