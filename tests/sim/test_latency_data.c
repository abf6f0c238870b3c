/*
 * tests/sim/test_latency_data.c: measured latency models (geo: in
 * test_latency_geo.c, its bad specs here). links: the file's
 * latencies exactly (ms and s, plain and gzip), a direction the file omits
 * takes its reverse's, labels numbered as the graph loader numbers them, and
 * bad files refused with FILE:LINE and nothing half-read. country: countries
 * kept only when all their pairs are measured, node countries drawn with the
 * table's weights, each pair's drawn delays matching its statistics (the
 * truncated log-normal's closed-form mean, and the table's mean within the
 * draws' confidence interval), the same delays for the same seed, and the
 * engine delivering at exactly the link's delay.
 */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#include <glib/gstdio.h>

#include "sim/sim.h"
#include "tests/common/checks.h"
#include "tests/common/files.h"

static char *tmpdir;

static SimLatency parse_ok(const char *spec) {
  SimLatency l;
  GError *err = NULL;
  g_assert_true(sim_latency_parse(spec, &l, &err));
  g_assert_no_error(err);
  g_assert_true(sim_latency_check(&l, NULL));
  return l;
}

static SimLatencyData *load_ok(const char *spec) {
  SimLatency l = parse_ok(spec);
  GError *err = NULL;
  SimLatencyData *d = sim_latency_data_load(&l, &err);
  g_assert_no_error(err);
  g_assert_nonnull(d);
  return d;
}

/* Loading @spec fails with a message holding @needle. */
static void load_fails(const char *spec, const char *needle) {
  SimLatency l = parse_ok(spec);
  GError *err = NULL;
  g_assert_null(sim_latency_data_load(&l, &err));
  g_assert_nonnull(err);
  if (strstr(err->message, needle) == NULL)
    g_error("\"%s\" lacks \"%s\"", err->message, needle);
  g_error_free(err);
}

static SimTime delay(const SimLatencyData *d, guint32 u, guint32 v) {
  SimTime ns = 0;
  g_assert_true(sim_latency_data_delay(d, u, v, &ns));
  return ns;
}

/* ---- Specs ---- */

static void test_spec(void) {
  char *f = test_write_file(tmpdir, "spec.edges", "0 1 5\n", -1);
  char *spec = g_strdup_printf(" Links : file = %s , unit = S ", f);
  SimLatency l = parse_ok(spec);
  g_assert_cmpint(l.kind, ==, SIM_LATENCY_LINKS);
  g_assert_cmpstr(l.file, ==, f);
  g_assert_cmpfloat(l.unit_ms, ==, 1000);
  g_assert_true(isnan(sim_latency_mean_ms(&l)));
  /* The spec it prints reads back to the same model. */
  char *back = sim_latency_to_string(&l);
  SimLatency l2 = parse_ok(back);
  g_assert_true(l2.file == l.file && l2.unit_ms == l.unit_ms && l2.kind == l.kind);
  g_free(back);
  g_free(spec);
  spec = g_strdup_printf("country:rtt=%s,seed=18446744073709551615,intra=%s", f, f);
  l = parse_ok(spec);
  g_assert_cmpint(l.kind, ==, SIM_LATENCY_COUNTRY);
  g_assert_true(l.seed == G_MAXUINT64 && l.intra == l.file);
  back = sim_latency_to_string(&l);
  g_assert_cmpstr(back, ==, spec);
  g_free(back);
  g_free(spec);

  static const struct {
    const char *spec, *needle;
  } bad[] = {
      {"lnks:file=%s,unit=ms", "did you mean 'links'"},
      {"links:file=%s", "missing key 'unit'"},
      {"links:unit=ms", "missing key 'file'"},
      {"links:file=%s,unit=us", "unit 'us' is neither ms nor s; did you mean 'ms'"},
      {"links:file=%s,unit=ms,flie=x", "unknown key 'flie' (expected links:file=PATH"},
      {"links:file=%s,unit=ms,unit=s", "key 'unit' given twice"},
      {"links:file=,unit=ms", "key 'file' has no value"},
      {"links:file=/nonexistent/x.edges,unit=ms", "file=: file not found: /nonexistent/x.edges"},
      {"country:rtt=%s", "missing key 'seed'"},
      {"country:rtt=%s,seed=-1", "seed '-1' is not an integer"},
      {"country:rtt=%s,seed=18446744073709551616", "is not an integer in [0, 2^64-1]"},
      {"country:rtt=%s,seed=1,intr=x", "did you mean 'intra'"},
      {"country:rtt=%s,seed=1,intra", "\"intra\" is not key=value"},
      {"goe:nodes=%s", "did you mean 'geo'"},
      {"geo:base=1", "missing key 'nodes' (expected geo:nodes=PATH"},
      {"geo:nodes=%s,per_kn=1", "unknown key 'per_kn'"},
      {"geo:nodes=%s,base=-1", "base '-1' is not a finite number >= 0"},
      {"geo:nodes=%s,jitter=nan", "jitter 'nan' is not a finite number >= 0"},
      {"geo:nodes=%s,per_km=1e400", "per_km '1e400' is not a finite number >= 0"},
      {"geo:nodes=%s,seed=x", "seed 'x' is not an integer"},
      {"geo:nodes=%s,max=-0.5", "max '-0.5' is not a finite number >= 0"},
      {"geo:nodes=%s,base=1,base=2", "key 'base' given twice"},
      {"geo:nodes=/nonexistent/n.csv", "nodes=: file not found: /nonexistent/n.csv"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *s = g_strdup_printf(bad[i].spec, f);
    GError *err = NULL;
    SimLatency out = {.kind = SIM_LATENCY_CONSTANT, .ms = 7};
    g_assert_false(sim_latency_parse(s, &out, &err));
    /* A file that is not there is one that cannot be read, not a spec
     * that does not parse: the run's failure (exit 1), as a graph file. */
    g_assert_error(err, SIM_ERROR,
                   (strstr(bad[i].spec, "/nonexistent/") ? SIM_ERROR_IO : SIM_ERROR_PARSE));
    if (strstr(err->message, bad[i].needle) == NULL)
      g_error("%s: \"%s\" lacks \"%s\"", s, err->message, bad[i].needle);
    g_assert_cmpfloat(out.ms, ==, 7); /* untouched */
    g_error_free(err);
    g_free(s);
  }
  g_free(f);
}

/* ---- links: ---- */

static void test_links(void) {
  /* A header, comments, commas and blanks; 2 -> 0 is listed both ways with
   * different latencies, 1 -> 2 only one way. */
  const char *text = "source,target,latency\n"
                     "# measured\n"
                     "0,1,12.5\n"
                     "1 2 0.25  # fast\n"
                     "\n"
                     "2,0,40\n"
                     "0,2,30\n";
  for (int gz = 0; gz < 2; gz++) {
    char *f = test_write_file(tmpdir, gz ? "links.csv.gz" : "links.csv", text, -1);
    char *spec = g_strdup_printf("links:file=%s,unit=ms", f);
    SimLatencyData *d = load_ok(spec);
    g_assert_cmpuint(delay(d, 0, 1), ==, 12500000);
    g_assert_cmpuint(delay(d, 1, 0), ==, 12500000); /* the reverse's */
    g_assert_cmpuint(delay(d, 1, 2), ==, 250000);
    g_assert_cmpuint(delay(d, 2, 0), ==, 40000000); /* each direction its own */
    g_assert_cmpuint(delay(d, 0, 2), ==, 30000000);
    SimTime ns = 0;
    g_assert_false(sim_latency_data_delay(d, 0, 3, &ns));
    g_assert_false(sim_latency_data_delay(d, 7, 9, &ns));
    g_assert_cmpint(sim_latency_data_country(d, 0, NULL), ==, -1);
    char *what = sim_latency_data_describe(d);
    g_assert_nonnull(strstr(what, "4 directed links over 3 nodes"));
    g_assert_nonnull(strstr(what, "2 of them listed both ways"));
    g_free(what);
    sim_latency_data_unref(d);
    g_free(spec);
    /* Seconds: the overlay's unit upstream names. */
    spec = g_strdup_printf("links:file=%s,unit=s", f);
    d = load_ok(spec);
    g_assert_cmpuint(delay(d, 1, 2), ==, 250000000);
    sim_latency_data_unref(d);
    g_free(spec);
    g_free(f);
  }
  /* Labels other than 0..n-1 are numbered by first appearance: 10 -> 0,
   * 30 -> 1, 20 -> 2, as the graph loader numbers the same file. */
  char *f = test_write_file(tmpdir, "sparse.edges", "10 30 1\n20 10 2\n", -1);
  char *spec = g_strdup_printf("links:file=%s,unit=ms", f);
  SimLatencyData *d = load_ok(spec);
  g_assert_cmpuint(delay(d, 0, 1), ==, 1000000);
  g_assert_cmpuint(delay(d, 2, 0), ==, 2000000);
  sim_latency_data_unref(d);
  g_free(spec);
  g_free(f);
}

static void test_links_bad(void) {
  static const struct {
    const char *text, *needle;
  } bad[] = {
      {"0 1 5\n1 2\n", "bad.edges:2: 2 fields, expected 'source target latency'"},
      {"0 1 5 6\n", "bad.edges:1: 4 fields"},
      {"0 1 -5\n", "bad.edges:1: latency '-5' is not a finite number >= 0"},
      {"0 1 nan\n", "bad.edges:1: latency 'nan'"},
      {"0 1 1\n\n0 x 1\n", "bad.edges:3: node label 'x' is not a non-negative integer"},
      {"0 1 1\n1 1 1\n", "bad.edges:2: a link from node 1 to itself"},
      {"0 1 1\n1 2 1\n0,1,3\n", "bad.edges:3: the link of line 1 again"},
      {"source,target,latency\n# none\n", "bad.edges:2: no link"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *f = test_write_file(tmpdir, "bad.edges", bad[i].text, -1);
    char *spec = g_strdup_printf("links:file=%s,unit=ms", f);
    load_fails(spec, bad[i].needle);
    g_free(spec);
    g_free(f);
  }
  /* A gzip file cut short is refused whole, not read up to the cut. */
  GString *big = g_string_new(NULL);
  for (guint i = 0; i < 20000; i++)
    g_string_append_printf(big, "%u %u %u.%u\n", i, i + 1, i % 97, i % 13);
  char *f = test_write_file(tmpdir, "cut.edges.gz", big->str, -1);
  char *raw = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(f, &raw, &len, NULL));
  g_assert_true(g_file_set_contents(f, raw, (gssize)(len / 2), NULL));
  char *spec = g_strdup_printf("links:file=%s,unit=ms", f);
  SimLatency l = parse_ok(spec);
  GError *err = NULL;
  g_assert_null(sim_latency_data_load(&l, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_FILE);
  g_assert_nonnull(strstr(err->message, "cut short"));
  g_clear_error(&err);
  /* Bytes after the gzip stream: refused too. */
  GString *junk = g_string_new_len(raw, (gssize)len);
  g_string_append(junk, "garbage");
  g_assert_true(g_file_set_contents(f, junk->str, (gssize)junk->len, NULL));
  g_assert_null(sim_latency_data_load(&l, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_FILE);
  g_error_free(err);
  g_string_free(junk, TRUE);
  g_free(raw);
  g_free(spec);
  g_free(f);
  g_string_free(big, TRUE);
}

/* ---- country: ---- */

#define HEADER "cty1,cty2,rtt_cnt,rtt_avg,rtt_std,rtt_min,rtt_max\n"

/* Three countries all paired (AA heaviest, then CC, then BB), DD paired with
 * AA only (dropped), one row without a country. AA,BB is a single ping. */
static const char *small_table = HEADER "AA,AA,600,10,5,1,100\n"
                                        "AA,BB,1,40,,40,40\n"
                                        "BB,CC,100,80,20,50,200\n"
                                        "AA,CC,200,60,30,20,400\n"
                                        "CC,CC,50,5,2,1,20\n"
                                        "AA,DD,5000,90,9,80,120\n"
                                        "None,AA,7,20,1,19,21\n";

/* E[X | a < X < b] for ln X ~ N(mu, sigma^2): a closed form. */
static double truncated_mean(const SimRttStat *s) {
  double s2 = s->sigma * s->sigma;
  double hi = gsl_cdf_ugaussian_P((log(s->max) - s->mu - s2) / s->sigma);
  double lo = s->min > 0 ? gsl_cdf_ugaussian_P((log(s->min) - s->mu - s2) / s->sigma) : 0.0;
  return exp(s->mu + 0.5 * s2) * (hi - lo) / (s->p_hi - s->p_lo);
}

static void test_country_small(void) {
  char *rtt = test_write_file(tmpdir, "rtt.csv", small_table, -1);
  char *intra = test_write_file(tmpdir, "intra.csv.gz",
                                "rtt_cnt,rtt_avg,rtt_std,rtt_min,rtt_max\n"
                                "9,70,10,60,90\n",
                                -1);
  char *spec = g_strdup_printf("country:rtt=%s,seed=3,intra=%s", rtt, intra);
  SimLatencyData *d = load_ok(spec);
  char *what = sim_latency_data_describe(d);
  /* By weight AA (5801), DD (5000), CC (350), BB (101): DD pairs with AA
   * and has the same-AS row; CC and BB have no row with DD. */
  g_assert_nonnull(strstr(what, "2 of 4 countries"));
  g_free(what);
  /* Weights: AA 5801 of 10801, DD 5000: the draw's frequencies. */
  guint n = 20000, aa = 0;
  for (guint u = 0; u < n; u++) {
    const char *code = NULL;
    gint c = sim_latency_data_country(d, u, &code);
    g_assert_true((c == 0 && g_str_equal(code, "AA")) || (c == 1 && g_str_equal(code, "DD")));
    aa += c == 0;
  }
  double p = 5801.0 / 10801.0, se = sqrt(p * (1 - p) / n);
  g_assert_cmpfloat(fabs((double)aa / n - p), <, 4 * se);
  /* DD has no own row: the same-AS row stands in. */
  SimRttStat s;
  g_assert_true(sim_latency_data_pair(d, 1, 1, &s));
  g_assert_cmpfloat(s.mean, ==, 70);
  g_assert_true(sim_latency_data_pair(d, 0, 1, &s) && s.mean == 90 && s.count == 5000);
  g_assert_false(sim_latency_data_pair(d, 0, 2, &s));
  sim_latency_data_unref(d);
  g_free(spec);

  /* Without the same-AS row DD cannot join (no DD,DD row), nor BB: AA, CC. */
  spec = g_strdup_printf("country:rtt=%s,seed=3", rtt);
  d = load_ok(spec);
  what = sim_latency_data_describe(d);
  g_assert_nonnull(strstr(what, "2 of 4 countries"));
  g_free(what);
  sim_latency_data_unref(d);
  g_free(spec);
  g_free(intra);
  g_free(rtt);

  /* All of AA, BB, CC kept once DD is gone; BB needs its own row. */
  rtt = test_write_file(tmpdir, "rtt3.csv",
                        HEADER "AA,AA,600,10,5,1,100\nAA,BB,1,40,,40,40\n"
                               "BB,CC,100,80,20,50,200\nAA,CC,200,60,30,20,400\n"
                               "CC,CC,50,5,2,1,20\nBB,BB,3,7,1,6,8\n",
                        -1);
  spec = g_strdup_printf("country:rtt=%s,seed=11", rtt);
  d = load_ok(spec);
  what = sim_latency_data_describe(d);
  g_assert_nonnull(strstr(what, "3 of 3 countries"));
  g_free(what);
  /* Every link is RTT / 2 of its pair: a single ping exactly, others within
   * [min, max], and the same both ways. */
  guint counted = 0;
  double sum = 0, sum2 = 0;
  for (guint u = 0; u < 30000; u++) {
    guint32 v = u + 30000;
    gint a = sim_latency_data_country(d, u, NULL), b = sim_latency_data_country(d, v, NULL);
    SimRttStat st;
    g_assert_true(sim_latency_data_pair(d, (guint)a, (guint)b, &st));
    double rtt_ms = 2.0 * (double)delay(d, u, v) / 1e6;
    g_assert_cmpuint(delay(d, u, v), ==, delay(d, v, u));
    g_assert_cmpfloat(rtt_ms, >=, st.min - 1e-5);
    g_assert_cmpfloat(rtt_ms, <=, st.max + 1e-5);
    if (st.count == 1)
      g_assert_cmpfloat(fabs(rtt_ms - 40), <, 1e-5);
    if (st.count == 200) { /* AA,CC */
      counted++;
      sum += rtt_ms;
      sum2 += rtt_ms * rtt_ms;
    }
  }
  SimRttStat ac;
  g_assert_true(sim_latency_data_pair(d, 0, 1, &ac) && ac.count == 200);
  double mean = sum / counted, sd = sqrt(sum2 / counted - mean * mean);
  g_assert_cmpuint(counted, >, 1000);
  g_assert_cmpfloat(fabs(mean - truncated_mean(&ac)), <, 4 * sd / sqrt(counted));
  sim_latency_data_unref(d);
  g_free(spec);
  g_free(rtt);
}

static void test_country_bad(void) {
  static const struct {
    const char *text, *needle;
  } bad[] = {
      {"cty1,cty2,cnt\nAA,AA,1,2,,2,2\n", "t.csv:1: header 'cty1,cty2,cnt', expected"},
      {HEADER "AA,AA,1,2,,2\n", "t.csv:2: 6 fields, expected 7"},
      {HEADER "AA,AA,1,2,,2,2\nAA,BB,3,2,,1,3\n", "t.csv:3: rtt_std is empty but rtt_cnt is 3"},
      {HEADER "AA,AA,0,2,1,1,3\n", "t.csv:2: rtt_cnt '0' is not a positive integer"},
      {HEADER "AA,AA,2,2,1,3,1\n", "t.csv:2: rtt_min 3 > rtt_max 1"},
      {HEADER "AA,AA,2,9,1,1,3\n", "t.csv:2: rtt_avg 9 is outside [rtt_min, rtt_max]"},
      {HEADER "AA,AA,2,x,1,1,3\n", "t.csv:2: rtt_avg 'x' is not a finite number"},
      {HEADER "AA,BB,2,2,1,1,3\nBB,AA,2,2,1,1,3\n", "t.csv:3: the pair BB,AA again (line 2)"},
      {HEADER "None,AA,2,2,1,1,3\n", "t.csv:1: no row between two countries"},
      {HEADER "AA,BB,2,2,1,1,3\n", "no country has a same-country row"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *f = test_write_file(tmpdir, "t.csv", bad[i].text, -1);
    char *spec = g_strdup_printf("country:rtt=%s,seed=1", f);
    load_fails(spec, bad[i].needle);
    g_free(spec);
    g_free(f);
  }
  char *rtt = test_write_file(tmpdir, "ok.csv", HEADER "AA,AA,2,2,1,1,3\n", -1);
  static const char *intra_bad[] = {"rtt_cnt,rtt_avg\n1,2\n", "rtt_cnt,rtt_avg,rtt_std,rtt_min,"
                                                              "rtt_max\n",
                                    "rtt_cnt,rtt_avg,rtt_std,rtt_min,rtt_max\n1,2,,2,2\n1,2,,2,2\n"};
  static const char *intra_needle[] = {"i.csv:1: header", "i.csv:2: no data row",
                                       "i.csv:3: a second data row"};
  for (guint i = 0; i < G_N_ELEMENTS(intra_bad); i++) {
    char *f = test_write_file(tmpdir, "i.csv", intra_bad[i], -1);
    char *spec = g_strdup_printf("country:rtt=%s,seed=1,intra=%s", rtt, f);
    load_fails(spec, intra_needle[i]);
    g_free(spec);
    g_free(f);
  }
  g_free(rtt);
}

/* A table larger than any country table can be (every pair of two-letter
 * codes once is a few MB) is refused when the limit is crossed: a gzip of
 * 65 MB of rows without a country (which the reader would drop) used to be
 * inflated to 4 GB before its refusal. Plain or gzip, the message names the
 * limit. */
static void test_country_oversized(void) {
  static const char row[] = "None,None,2,2,1,1,3\n";
  gsize rows = ((gsize)65 << 20) / (sizeof row - 1);
  GString *big = g_string_sized_new(rows * (sizeof row - 1) + 64);
  g_string_append(big, HEADER "AA,AA,2,2,1,1,3\n");
  for (gsize i = 0; i < rows; i++)
    g_string_append_len(big, row, sizeof row - 1);
  for (int gz = 0; gz < 2; gz++) {
    char *f = test_write_file(tmpdir, gz ? "big.csv.gz" : "big.csv", big->str, (gssize)big->len);
    char *spec = g_strdup_printf("country:rtt=%s,seed=1", f);
    load_fails(spec, "more than 64 MB, the most this table can need");
    g_unlink(f);
    g_free(spec);
    g_free(f);
  }
  g_string_free(big, TRUE);
}

/* The vendored RIPE Atlas tables: the heaviest pairs' drawn round trips have
 * the table's mean within the draws' 99.99% interval, and the same seed gives
 * the same delays while another seed does not. */
static void test_country_ripe(void) {
  const char *dir = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(dir);
  char *rtt = g_build_filename(dir, "real", "country_rtt_stat.csv.gz", NULL);
  char *intra = g_build_filename(dir, "real", "intra_rtt_stat.csv.gz", NULL);
  char *spec = g_strdup_printf("country:rtt=%s,seed=1,intra=%s", rtt, intra);
  SimLatencyData *d = load_ok(spec);
  char *what = sim_latency_data_describe(d);
  g_test_message("%s", what);
  /* 158 two-letter codes; 96 kept, 99.6% of the pings (a second reading of
   * the file by a short script, taking countries by weight in the same way). */
  g_assert_nonnull(strstr(what, "into 96 of 158 countries"));
  g_assert_nonnull(strstr(what, "99.6% of the pings"));
  g_free(what);
  /* The two heaviest countries, their pair and their own rows. */
  const char *c0 = NULL, *c1 = NULL;
  guint n_links = 300000;
  struct {
    guint a, b, n;
    double sum, sum2;
  } acc[3] = {{0, 1, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 1, 0, 0, 0}};
  for (guint i = 0; i < n_links; i++) {
    guint32 u = 2 * i, v = 2 * i + 1;
    gint a = sim_latency_data_country(d, u, NULL);
    gint b = sim_latency_data_country(d, v, NULL);
    double rtt_ms = 2.0 * (double)delay(d, u, v) / 1e6;
    for (guint k = 0; k < 3; k++)
      if ((guint)MIN(a, b) == acc[k].a && (guint)MAX(a, b) == acc[k].b) {
        acc[k].n++;
        acc[k].sum += rtt_ms;
        acc[k].sum2 += rtt_ms * rtt_ms;
      }
  }
  /* Countries are indexed heaviest first: US, then DE. */
  for (guint32 u = 0; c0 == NULL || c1 == NULL; u++) {
    const char *code;
    gint c = sim_latency_data_country(d, u, &code);
    if (c == 0)
      c0 = code;
    else if (c == 1)
      c1 = code;
  }
  g_assert_cmpstr(c0, ==, "US");
  g_assert_cmpstr(c1, ==, "DE");
  for (guint k = 0; k < 3; k++) {
    SimRttStat s;
    g_assert_true(sim_latency_data_pair(d, acc[k].a, acc[k].b, &s));
    double mean = acc[k].sum / acc[k].n;
    double sd = sqrt(acc[k].sum2 / acc[k].n - mean * mean);
    double ci = 3.9 * sd / sqrt(acc[k].n);
    g_test_message("pair %u,%u: %u draws, mean %.2f ms +- %.2f (table %.2f, std %.2f vs %.2f)",
                   acc[k].a, acc[k].b, acc[k].n, mean, ci, s.mean, sd, s.std);
    g_assert_cmpuint(acc[k].n, >, 2000);
    g_assert_cmpfloat(fabs(mean - s.mean), <, ci);
    g_assert_cmpfloat(fabs(mean - truncated_mean(&s)), <, ci);
  }
  /* The US-DE row of the file, as read. */
  SimRttStat us_de;
  g_assert_true(sim_latency_data_pair(d, 0, 1, &us_de));
  g_assert_cmpuint(us_de.count, ==, 89071187);
  g_assert_cmpfloat(fabs(us_de.mean - 113.62973024630442), <, 1e-12);
  g_assert_cmpfloat(fabs(us_de.std - 147.70671020260536), <, 1e-12);
  /* Determinism: a second load, same seed: the same delays; seed 2 moves them. */
  SimLatencyData *again = load_ok(spec);
  char *spec2 = g_strdup_printf("country:rtt=%s,seed=2,intra=%s", rtt, intra);
  SimLatencyData *other = load_ok(spec2);
  guint differ = 0;
  for (guint32 u = 0; u < 1000; u++) {
    g_assert_cmpuint(delay(d, u, u + 7), ==, delay(again, u + 7, u));
    differ += delay(d, u, u + 7) != delay(other, u, u + 7);
  }
  g_assert_cmpuint(differ, >, 900);
  sim_latency_data_unref(other);
  sim_latency_data_unref(again);
  sim_latency_data_unref(d);
  g_free(spec2);
  g_free(spec);
  g_free(rtt);
  g_free(intra);
}

/* ---- The engine ---- */

static void on_message(SimEngine *e, guint32 node, gpointer state, SimMessage *m) {
  (void)state;
  GArray *log = sim_engine_get_user_data(e);
  guint64 q[3] = {node, sim_message_from(m), sim_engine_now(e)};
  g_array_append_vals(log, q, 3);
}

static void on_start(SimEngine *e, guint32 node, gpointer state) {
  (void)state;
  /* Nodes 0, 1, 2 send on the file's links; node 3 has none. */
  for (guint32 to = 0; to < 3 && node < 3; to++)
    if (to != node && !(node == 0 && to == 2) && !(node == 2 && to == 0)) {
      SimMessage *m = sim_message_new(node, 0, 0, NULL, 8, NULL);
      GError *err = NULL;
      g_assert_true(sim_engine_send(e, m, to, &err));
      g_assert_no_error(err);
      sim_message_unref(m);
    }
}

static void test_engine(void) {
  char *f = test_write_file(tmpdir, "engine.csv.gz", "source,target,latency\n0,1,0.012\n2,1,0.5\n",
                            -1);
  char *spec = g_strdup_printf("links:file=%s,unit=s", f);
  GArray *log = g_array_new(FALSE, FALSE, sizeof(guint64));
  SimNodeHandlers h = {.on_start = on_start, .on_message = on_message};
  GError *err = NULL;
  SimEngine *e = sim_engine_new(4, 1, &h, log, &err);
  g_assert_no_error(err);
  SimLinkParams p = {.loss = 0};
  g_assert_true(sim_latency_parse(spec, &p.latency, NULL));
  g_assert_true(sim_engine_set_default_link(e, &p, &err));
  g_assert_no_error(err);
  g_assert_true(sim_engine_check_link(e, 1, 0, NULL));
  g_assert_false(sim_engine_check_link(e, 0, 2, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "link 0 -> 2 has no latency in"));
  g_clear_error(&err);
  g_assert_cmpint(sim_engine_run(e, SIM_TIME_NEVER, &err), ==, SIM_RUN_IDLE);
  g_assert_no_error(err);
  /* Delivered at exactly the links' delays, the reverse's where omitted. */
  static const guint64 want[][3] = {{1, 0, 12000000}, {0, 1, 12000000}, {1, 2, 500000000},
                                    {2, 1, 500000000}};
  g_assert_cmpuint(log->len, ==, 3 * G_N_ELEMENTS(want));
  for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
    gboolean found = FALSE;
    for (guint j = 0; j < log->len; j += 3)
      found |= memcmp(&g_array_index(log, guint64, j), want[i], sizeof want[i]) == 0;
    g_assert_true(found);
  }
  /* A send on a link the file does not know fails the send. */
  SimMessage *m = sim_message_new(3, 0, 0, NULL, 8, NULL);
  g_assert_false(sim_engine_send(e, m, 0, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  sim_message_unref(m);
  SimEngineStats st;
  sim_engine_get_stats(e, &st);
  g_assert_cmpuint(st.messages_sent, ==, 4);
  sim_engine_free(e);
  g_array_unref(log);
  g_free(spec);
  g_free(f);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  tmpdir = test_tmpdir("dpg-latency");
  g_test_add_func("/latency/spec", test_spec);
  g_test_add_func("/latency/links", test_links);
  g_test_add_func("/latency/links-bad", test_links_bad);
  g_test_add_func("/latency/country-small", test_country_small);
  g_test_add_func("/latency/country-bad", test_country_bad);
  g_test_add_func("/latency/country-oversized", test_country_oversized);
  g_test_add_func("/latency/country-ripe", test_country_ripe);
  g_test_add_func("/latency/engine", test_engine);
  int rc = g_test_run();
  GDir *dir = g_dir_open(tmpdir, 0, NULL);
  for (const char *name; dir && (name = g_dir_read_name(dir)) != NULL;) {
    char *p = g_build_filename(tmpdir, name, NULL);
    g_remove(p);
    g_free(p);
  }
  if (dir)
    g_dir_close(dir);
  g_rmdir(tmpdir);
  g_free(tmpdir);
  return rc;
}
