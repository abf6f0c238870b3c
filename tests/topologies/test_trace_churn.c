/* tests/topologies/test_trace_churn.c: churn replayed from session traces
 * (churn:trace=FILE,...): presence per node and round against tables worked
 * out by hand from the fixture files, the seeded mapping of users to nodes,
 * and the refusal of bad files. */
#include <glib/gstdio.h>
#include <string.h>
#include <zlib.h>

#include "topologies/topologies.h"
#include "tests/common/checks.h"
#include "tests/common/files.h"

static TopoGraph *gen(const char *spec) {
  GError *error = NULL;
  TopoGraph *g = topo_graph_generate(spec, &error);
  g_assert_no_error(error);
  return g;
}

static char *fixture(const char *name) {
  const char *dir = g_getenv("DPG_TEST_DATA");
  g_assert_nonnull(dir);
  return g_build_filename(dir, name, NULL);
}

/* "churn:trace=PATH" followed by @keys (",k=v..." or ""). */
static TopoSchedule *trace_sched(const char *path, const char *keys, const TopoGraph *base,
                                 guint64 seed) {
  char *spec = g_strdup_printf("churn:trace=%s%s", path, keys);
  GError *error = NULL;
  TopoSchedule *s = topo_schedule_new(spec, base, TOPO_GOSSIP_UNIFORM, seed, &error);
  g_assert_no_error(error);
  g_free(spec);
  return s;
}

/* Node u's presence over rounds 0..rounds-1 as "1"/"0" characters. */
static char *row(TopoSchedule *s, guint u, guint rounds) {
  char *r = g_malloc(rounds + 1);
  for (guint t = 0; t < rounds; t++)
    r[t] = topo_schedule_node_present(s, t, u) ? '1' : '0';
  r[rounds] = '\0';
  return r;
}

/* Every node's row against @want (one string per node). */
static void check_table(TopoSchedule *s, const char *const *want, guint nodes) {
  for (guint u = 0; u < nodes; u++) {
    char *got = row(s, u, (guint)strlen(want[u]));
    if (strcmp(got, want[u]) != 0)
      g_error("node %u: present %s, expected %s", u, got, want[u]);
    g_free(got);
  }
}

#define ROWS(...) ((const char *const[]){__VA_ARGS__})

/* topo-trace-sessions.txt, period 10 s (its last session's end): node 0
 * online on [0,3) and [5,8), node 1 on [2,4), node 2 on [0,10), node 3 on
 * [1,2) and [2,6), which join into [1,6). */
static void test_sessions_replay(void) {
  TopoGraph *base = gen("ring:n=4");
  char *path = fixture("topo-trace-sessions.txt");
  /* scale=1 (default): round t reads trace second t; round 10 is second 0 again. */
  TopoSchedule *s = trace_sched(path, ",map=identity", base, 0);
  check_table(s, ROWS("111001110011", "001100000000", "111111111111", "011111000001"), 4);
  /* Round 3: node 0 is away, so of the ring 0-1-2-3-0 only 1-2 and 2-3 remain. */
  GError *error = NULL;
  TopoGraph *g = topo_schedule_graph(s, 3, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 2);
  g_assert_true(topo_graph_has_edge(g, 1, 2) && topo_graph_has_edge(g, 2, 3));
  topo_graph_free(g);
  topo_schedule_free(s);
  /* scale=2, start=1: round t reads second 1 + 2t (mod 10): 1 3 5 7 9 1 ... */
  s = trace_sched(path, ",map=identity,scale=2,start=1", base, 0);
  check_table(s, ROWS("1011010110", "0100001000", "1111111111", "1110011100"), 4);
  topo_schedule_free(s);
  g_free(path);
  topo_graph_free(base);
}

/* The statistics of the table above (rounds 0..11), counted by hand: online
 * runs 3 3 2 | 2 | 12 | 5 1, offline runs 2 2 | 2 8 | - | 1 5; per round
 * 2 3 4 3 2 3 2 2 1 1 2 3 nodes of 4 online. */
static void test_stats(void) {
  TopoGraph *base = gen("ring:n=4");
  char *path = fixture("topo-trace-sessions.txt");
  TopoSchedule *s = trace_sched(path, ",map=identity", base, 0);
  TopoChurnStats st;
  GError *error = NULL;
  g_assert_true(topo_schedule_churn_stats(s, 12, &st, &error));
  g_assert_no_error(error);
  const guint online[] = {2, 3, 4, 3, 2, 3, 2, 2, 1, 1, 2, 3};
  for (guint t = 0; t < 12; t++)
    g_assert_cmpfloat(st.online[t], ==, online[t] / 4.0);
  /* Exact: a sum of exact quarters (7) over 12 rounds, one correctly rounded
   * division, the same real as 28 / 48. */
  g_assert_cmpfloat(st.online_mean, ==, 28.0 / 48);
  g_assert_cmpuint(st.online_min_round, ==, 8);
  g_assert_cmpuint(st.online_max_round, ==, 2);
  g_assert_cmpuint(st.online_sessions, ==, 7);
  g_assert_cmpfloat(st.online_mean_rounds, ==, 4.0);
  g_assert_cmpuint(st.online_median_rounds, ==, 3);
  g_assert_cmpuint(st.online_max_rounds, ==, 12);
  g_assert_cmpuint(st.offline_sessions, ==, 6);
  /* Exact: integer total over integer count, one correctly rounded division. */
  g_assert_cmpfloat(st.offline_mean_rounds, ==, 20.0 / 6);
  g_assert_cmpuint(st.never_online, ==, 0);
  g_assert_cmpuint(st.always_online, ==, 1);
  topo_churn_stats_clear(&st);
  g_assert_false(topo_schedule_churn_stats(s, 0, &st, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  topo_schedule_free(s);
  g_free(path);
  topo_graph_free(base);
}

/* topo-trace-stunner.txt: ua starts online, 2 h on, 3 h off, 19 h on; ub
 * starts offline, 12 h off, 12 h on; uc online for its whole two days. */
static const char *const stunner_hours[] = {"110001111111111111111111110001",
                                            "000000000000111111111111000000",
                                            "111111111111111111111111111111"};

/* @src gzipped into @dst (zlib), for the gzip reads. */
static void gzip_file(const char *src, const char *dst) {
  char *text = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(src, &text, &len, NULL));
  gzFile gz = gzopen(dst, "wb");
  g_assert_nonnull(gz);
  g_assert_cmpint(gzwrite(gz, text, (unsigned)len), ==, (int)len);
  g_assert_cmpint(gzclose(gz), ==, Z_OK);
  g_free(text);
}

static void test_stunner_replay(void) {
  TopoGraph *base = gen("ring:n=3");
  char *path = fixture("topo-trace-stunner.txt");
  TopoSchedule *s = trace_sched(path, ",format=stunner,map=identity,scale=3600", base, 0);
  check_table(s, stunner_hours, 3);
  topo_schedule_free(s);
  /* start=7200: two hours later in every trace. */
  s = trace_sched(path, ",format=stunner,map=identity,scale=3600,start=7200", base, 0);
  check_table(s, ROWS("0001111111111111111111110001", "0000000000111111111111000000"), 2);
  topo_schedule_free(s);
  /* The same file gzipped replays the same. */
  char *dir = test_tmpdir("dpg-trace");
  char *gz = g_build_filename(dir, "stunner.txt.gz", NULL);
  gzip_file(path, gz);
  s = trace_sched(gz, ",format=stunner,map=identity,scale=3600", base, 0);
  check_table(s, stunner_hours, 3);
  topo_schedule_free(s);
  g_unlink(gz);
  g_rmdir(dir);
  g_free(gz);
  g_free(dir);
  g_free(path);
  topo_graph_free(base);
}

/* The whole presence table of nodes 0..n-1 over @rounds rounds. */
static char *table(TopoSchedule *s, guint n, guint rounds) {
  GString *t = g_string_new(NULL);
  for (guint u = 0; u < n; u++) {
    char *r = row(s, u, rounds);
    g_string_append_printf(t, "%s\n", r);
    g_free(r);
  }
  return g_string_free(t, FALSE);
}

/* Seeded mapping on the vendored STUNner trace: one seed, one table; another
 * seed, another; seed= in the spec overrides the run's; node u's user does
 * not depend on how many nodes there are. */
static void test_mapping_seeded(void) {
  const char *data = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(data);
  char *path = g_build_filename(data, "real", "stunner-sessions-100.txt.gz", NULL);
  TopoGraph *g40 = gen("ring:n=40"), *g50 = gen("ring:n=50");
  const char *keys = ",format=stunner,scale=3600";
  TopoSchedule *a = trace_sched(path, keys, g50, 1), *b = trace_sched(path, keys, g50, 1),
               *c = trace_sched(path, keys, g50, 2), *d = trace_sched(path, keys, g40, 1);
  char *ta = table(a, 50, 48), *tb = table(b, 50, 48), *tc = table(c, 50, 48),
       *td = table(d, 40, 48);
  g_assert_cmpstr(ta, ==, tb);
  g_assert_cmpstr(ta, !=, tc);
  g_assert_true(strncmp(ta, td, strlen(td)) == 0);
  g_assert_nonnull(strchr(ta, '0'));
  g_assert_nonnull(strchr(ta, '1'));
  char *spec_keys = g_strdup_printf("%s,seed=2", keys);
  TopoSchedule *e = trace_sched(path, spec_keys, g50, 7);
  char *te = table(e, 50, 48);
  g_assert_cmpstr(te, ==, tc);
  g_free(te);
  topo_schedule_free(e);
  g_free(spec_keys);
  g_free(ta);
  g_free(tb);
  g_free(tc);
  g_free(td);
  topo_schedule_free(a);
  topo_schedule_free(b);
  topo_schedule_free(c);
  topo_schedule_free(d);
  topo_graph_free(g40);
  topo_graph_free(g50);
  g_free(path);
}

/* More nodes than users: the first pass gives each of the 4 users to one of
 * nodes 0..3 with its trace from the start (a permutation of the identity
 * map's rows); later nodes reuse users from random offsets, which do not
 * depend on the number of nodes either. */
static void test_mapping_reuse(void) {
  char *path = fixture("topo-trace-sessions.txt");
  TopoGraph *g4 = gen("ring:n=4"), *g10 = gen("ring:n=10"), *g12 = gen("ring:n=12");
  TopoSchedule *id = trace_sched(path, ",map=identity", g4, 0);
  char *user[4];
  for (guint i = 0; i < 4; i++)
    user[i] = row(id, i, 20);
  for (guint64 seed = 0; seed < 4; seed++) {
    TopoSchedule *s = trace_sched(path, "", g10, seed);
    guint seen = 0;
    for (guint u = 0; u < 4; u++) {
      char *r = row(s, u, 20);
      guint i = 0;
      while (i < 4 && strcmp(r, user[i]) != 0)
        i++;
      g_assert_cmpuint(i, <, 4);
      seen |= 1u << i;
      g_free(r);
    }
    g_assert_cmpuint(seen, ==, 0xf);
    TopoSchedule *more = trace_sched(path, "", g12, seed);
    char *a = table(s, 10, 20), *b = table(more, 10, 20);
    g_assert_cmpstr(a, ==, b);
    g_free(a);
    g_free(b);
    topo_schedule_free(more);
    topo_schedule_free(s);
  }
  for (guint i = 0; i < 4; i++)
    g_free(user[i]);
  topo_schedule_free(id);
  topo_graph_free(g4);
  topo_graph_free(g10);
  topo_graph_free(g12);
  g_free(path);
}

static void expect_trace_error(const char *path, const char *keys, guint n, int code,
                               const char *const *needles) {
  char *spec = g_strdup_printf("churn:trace=%s%s", path, keys);
  char *gspec = g_strdup_printf("ring:n=%u", n);
  TopoGraph *base = gen(gspec);
  GError *error = NULL;
  TopoSchedule *s = topo_schedule_new(spec, base, TOPO_GOSSIP_UNIFORM, 0, &error);
  g_assert_null(s);
  test_expect_error(error, TOPO_ERROR, code, spec, needles);
  topo_graph_free(base);
  g_free(gspec);
  g_free(spec);
}

/* @src gzipped, then cut to half its size (truncated) or with one byte of
 * its deflate data flipped (corrupt). */
static char *broken_gzip(const char *dir, const char *src, gboolean truncate) {
  char *gz = g_build_filename(dir, truncate ? "cut.gz" : "flipped.gz", NULL);
  gzip_file(src, gz);
  char *bytes = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(gz, &bytes, &len, NULL));
  g_assert_cmpuint(len, >, 40);
  if (!truncate)
    bytes[len / 2] ^= 0x5a;
  g_assert_true(g_file_set_contents(gz, bytes, truncate ? (gssize)(len / 2) : (gssize)len, NULL));
  g_free(bytes);
  return gz;
}

static void test_errors(void) {
  char *stunner = fixture("topo-trace-stunner.txt");
  char *sessions = fixture("topo-trace-sessions.txt");
  char *p = fixture("topo-trace-stunner-truncated.txt");
  expect_trace_error(
      p, ",format=stunner", 3, TOPO_ERROR_FILE,
      TEST_NEEDLES("topo-trace-stunner-truncated.txt:2:", "not a whole number of days"));
  g_free(p);
  p = fixture("topo-trace-stunner-fields.txt");
  expect_trace_error(p, ",format=stunner", 3, TOPO_ERROR_FILE,
                     TEST_NEEDLES("topo-trace-stunner-fields.txt:2:", "3 fields"));
  g_free(p);
  p = fixture("topo-trace-sessions-order.txt");
  expect_trace_error(
      p, "", 3, TOPO_ERROR_FILE,
      TEST_NEEDLES("topo-trace-sessions-order.txt:3:", "before its session of line 1"));
  g_free(p);
  expect_trace_error(stunner, "", 3, TOPO_ERROR_FILE,
                     TEST_NEEDLES("topo-trace-stunner.txt:1:", "format=stunner"));
  char *dir = test_tmpdir("dpg-trace");
  for (int cut = 0; cut < 2; cut++) {
    char *gz = broken_gzip(dir, stunner, cut);
    expect_trace_error(gz, ",format=stunner", 3, TOPO_ERROR_FILE, TEST_NEEDLES(gz, "gzip file"));
    g_unlink(gz);
    g_free(gz);
  }
  g_rmdir(dir);
  g_free(dir);
  expect_trace_error("/nonexistent/trace.txt", "", 3, TOPO_ERROR_IO,
                     TEST_NEEDLES("/nonexistent/trace.txt", "No such file"));
  expect_trace_error(
      stunner, ",format=stunnr", 3, TOPO_ERROR_PARSE,
      TEST_NEEDLES("unknown format 'stunnr' (valid: sessions, stunner)", "did you mean 'stunner'"));
  expect_trace_error(stunner, ",format=stunner,scale=0", 3, TOPO_ERROR_RANGE,
                     TEST_NEEDLES("scale", "positive"));
  expect_trace_error(stunner, ",scal=2", 3, TOPO_ERROR_PARSE, TEST_NEEDLES("'scal'"));
  expect_trace_error(stunner, ",format=stunner,map=identity", 4, TOPO_ERROR_INVALID_ARGUMENT,
                     TEST_NEEDLES("has 3", "4 nodes"));
  expect_trace_error(sessions, ",map=identity", 5, TOPO_ERROR_INVALID_ARGUMENT,
                     TEST_NEEDLES("node 4 has no session"));
  expect_trace_error(sessions, ",map=identity", 3, TOPO_ERROR_INVALID_ARGUMENT,
                     TEST_NEEDLES("names 4 nodes", "has 3"));
  g_free(sessions);
  g_free(stunner);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/topo/trace/sessions-replay", test_sessions_replay);
  g_test_add_func("/topo/trace/stunner-replay", test_stunner_replay);
  g_test_add_func("/topo/trace/stats", test_stats);
  g_test_add_func("/topo/trace/mapping-seeded", test_mapping_seeded);
  g_test_add_func("/topo/trace/mapping-reuse", test_mapping_reuse);
  g_test_add_func("/topo/trace/errors", test_errors);
  return g_test_run();
}
