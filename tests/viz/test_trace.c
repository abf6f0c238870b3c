/*
 * tests/viz/test_trace.c: trace files written and read back.
 *
 * A trace recorded by a stream reads back record for record with the bodies
 * the stream built (checked against bodies written out by hand here). Then
 * damage: the file cut at every 61st byte, and a bit flipped at every 37th
 * byte, must never yield a record that differs from the original: the
 * reader returns a prefix of the original records and then an error naming
 * the record index that failed, or (for a flip in a gzip header field no
 * checksum covers) the complete trace. Plain-text traces exercise every
 * other check: checksums, line shape, JSON, seq and time order, the END
 * line, header and versions.
 */
#include <math.h>
#include <signal.h>
#include <sys/resource.h>

#include <zlib.h>

#include "sim/sim.h"
#include "stream/stream.h"
#include "tests/common/files.h"
#include "tests/viz/viz_test_util.h"
#include "tests/common/checks.h"

typedef struct {
  char *topic, *body;
} Rec;

static void rec_clear(gpointer p) {
  Rec *r = p;
  g_free(r->topic);
  g_free(r->body);
}

/* Reads every record; returns the reader's last return code, sets @error. */
static int read_all(const char *path, GArray *out, GError **error) {
  StreamTraceReader *r = stream_trace_reader_open(path, error);
  if (r == NULL)
    return -2;
  StreamTraceRecord rec;
  int rc;
  while ((rc = stream_trace_reader_next(r, &rec, error)) == 1) {
    g_assert_cmpuint(rec.index, ==, out->len);
    g_assert_cmpuint(strlen(rec.body), ==, rec.body_len);
    Rec x = {g_strdup(rec.topic), g_strdup(rec.body)};
    g_array_append_val(out, x);
  }
  if (rc < 0) { /* errors are sticky */
    GError *again = NULL;
    g_assert_cmpint(stream_trace_reader_next(r, &rec, &again), ==, -1);
    g_assert_nonnull(again);
    g_error_free(again);
  }
  stream_trace_reader_free(r);
  return rc;
}

static GArray *recs_new(void) {
  GArray *a = g_array_new(FALSE, TRUE, sizeof(Rec));
  g_array_set_clear_func(a, rec_clear);
  return a;
}

/* A trace of a run start, 120 rounds with metrics, and a run end. */
static char *write_trace(const char *dir) {
  char *path = g_build_filename(dir, "t.trace", NULL);
  GError *err = NULL;
  StreamOptions o = {.record = path};
  Stream *s = stream_new(&o, &err);
  g_assert_no_error(err);
  guint32 edges[] = {0, 1, 1, 2};
  StreamRun run = {.name = "t", .n_nodes = 3, .edges = edges, .n_edges = 2, .rounds = 120};
  g_assert_true(stream_begin_run(s, &run, &err));
  for (guint r = 0; r < 120; r++) {
    double loss[3] = {1.0 / (r + 1), 0.1, r == 7 ? NAN : 2.5};
    g_assert_true(stream_publish_round(s, r * 1000, r, &err));
    g_assert_true(stream_publish_metrics(s, r * 1000, r, 3, NULL, loss, NULL, NULL, &err));
  }
  g_assert_true(stream_end_run(s, 120000, "ok", &err));
  g_assert_true(stream_finish(s, &err));
  g_assert_no_error(err);
  stream_free(s);
  return path;
}

static void test_roundtrip(void) {
  char *dir = test_tmpdir("trace");
  char *path = write_trace(dir);
  GArray *recs = recs_new();
  GError *err = NULL;
  g_assert_cmpint(read_all(path, recs, &err), ==, 0);
  g_assert_no_error(err);
  g_assert_cmpuint(recs->len, ==, 1 + 2 * 120 + 1);
  Rec *r0 = &g_array_index(recs, Rec, 0);
  g_assert_cmpstr(r0->topic, ==, "run");
  g_assert_cmpstr(
      r0->body, ==,
      "{\"v\":1,\"seq\":0,\"t_ns\":0,\"event\":\"start\",\"name\":\"t\",\"seed\":0,"
      "\"rounds\":120,\"messages_every\":1,\"graph\":{\"n\":3,\"edges\":[[0,1],[1,2]]}}");
  /* round 7 (records 15, 16): written out by hand */
  g_assert_cmpstr(g_array_index(recs, Rec, 15).body, ==,
                  "{\"v\":1,\"seq\":15,\"t_ns\":7000,\"round\":7}");
  g_assert_cmpstr(g_array_index(recs, Rec, 16).body, ==,
                  "{\"v\":1,\"seq\":16,\"t_ns\":7000,\"round\":7,\"nodes\":[0,1,2],"
                  "\"train_loss\":[0.125,0.1,null]}");
  g_assert_cmpstr(g_array_index(recs, Rec, 18).body, ==,
                  "{\"v\":1,\"seq\":18,\"t_ns\":8000,\"round\":8,\"nodes\":[0,1,2],"
                  "\"train_loss\":[0.1111111111111111,0.1,2.5]}");
  /* The same run gives the same bytes. */
  char *first = NULL, *second = NULL;
  gsize l1 = 0, l2 = 0;
  g_assert_true(g_file_get_contents(path, &first, &l1, NULL));
  g_free(path);
  path = write_trace(dir);
  g_assert_true(g_file_get_contents(path, &second, &l2, NULL));
  g_assert_cmpmem(first, l1, second, l2);
  /* gzip, and far smaller than the text */
  g_assert_cmpint((guchar)first[0], ==, 0x1f);
  g_assert_cmpint((guchar)first[1], ==, 0x8b);
  gsize text = 0;
  for (guint i = 0; i < recs->len; i++)
    text += strlen(g_array_index(recs, Rec, i).body);
  g_assert_cmpuint(l1 * 3, <, text);
  g_free(first);
  g_free(second);
  g_array_unref(recs);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

/* @got must be a prefix of @all, body for body. */
static void assert_prefix(GArray *got, GArray *all) {
  g_assert_cmpuint(got->len, <=, all->len);
  for (guint i = 0; i < got->len; i++) {
    g_assert_cmpstr(g_array_index(got, Rec, i).topic, ==, g_array_index(all, Rec, i).topic);
    g_assert_cmpstr(g_array_index(got, Rec, i).body, ==, g_array_index(all, Rec, i).body);
  }
}

static void assert_error_at(const GError *err, guint index) {
  g_assert_nonnull(err);
  g_assert_true(err->domain == STREAM_ERROR);
  char *want = g_strdup_printf(": record %u (byte ", index);
  if (strstr(err->message, want) == NULL)
    g_error("error '%s' does not name record %u", err->message, index);
  g_free(want);
}

static void test_damage(void) {
  char *dir = test_tmpdir("trace");
  char *path = write_trace(dir);
  char *bad = g_build_filename(dir, "bad.trace", NULL);
  GArray *all = recs_new();
  g_assert_cmpint(read_all(path, all, NULL), ==, 0);
  char *data = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &data, &len, NULL));

  guint cuts = 0, flips = 0, flips_clean = 0;
  for (gsize cut = 0; cut < len; cut += 61, cuts++) {
    g_free(test_write_file(NULL, bad, data, (gssize)cut));
    GArray *got = recs_new();
    GError *err = NULL;
    int rc = read_all(bad, got, &err);
    g_assert_cmpint(rc, <, 0);
    assert_prefix(got, all); /* all of them when only the END line or gzip trailer is cut */
    if (rc == -1) {
      assert_error_at(err, got->len);
      g_assert_true(strstr(err->message, "truncated") != NULL);
    } else { /* not even a header: the open failed */
      g_assert_nonnull(strstr(err->message, "not a dpgossip trace"));
    }
    g_clear_error(&err);
    g_array_unref(got);
  }
  for (gsize at = 0; at < len; at += 37, flips++) {
    data[at] ^= (char)(1 << (at % 8));
    g_free(test_write_file(NULL, bad, data, (gssize)len));
    data[at] ^= (char)(1 << (at % 8));
    GArray *got = recs_new();
    GError *err = NULL;
    int rc = read_all(bad, got, &err);
    assert_prefix(got, all);
    if (rc == 0) { /* a gzip header byte no checksum covers */
      g_assert_cmpuint(got->len, ==, all->len);
      g_assert_cmpuint(at, <, 10);
      flips_clean++;
    } else if (rc == -1) {
      assert_error_at(err, got->len);
    }
    g_clear_error(&err);
    g_array_unref(got);
  }
  g_assert_cmpuint(cuts, >, 10);
  g_assert_cmpuint(flips, >, 20);
  g_assert_cmpuint(flips_clean, <, 3);
  g_free(data);
  g_array_unref(all);
  g_unlink(bad);
  g_unlink(path);
  g_rmdir(dir);
  g_free(bad);
  g_free(path);
  g_free(dir);
}

static char *line(const char *topic, const char *body) {
  return g_strdup_printf("%s %08lx %s\n", topic,
                         (unsigned long)crc32(0, (const Bytef *)body, (uInt)strlen(body)), body);
}

/* Writes a plain trace: header, the given lines, and returns the path. */
static void plain(const char *path, const char *header, const char *const *lines) {
  GString *t = g_string_new(header);
  for (gsize i = 0; lines[i]; i++)
    g_string_append(t, lines[i]);
  g_free(test_write_file(NULL, path, t->str, (gssize)t->len));
  g_string_free(t, TRUE);
}

static void test_plain(void) {
  char *dir = test_tmpdir("trace");
  char *path = g_build_filename(dir, "p.trace", NULL);
  const char *hdr = "DPGTRACE 1 {\"stream_v\":1}\n";
  char *r0 = line("round", "{\"v\":1,\"seq\":0,\"t_ns\":5,\"round\":0}");
  char *r1 = line("round", "{\"v\":1,\"seq\":1,\"t_ns\":9,\"round\":1}");
  char *r1_old_seq = line("round", "{\"v\":1,\"seq\":0,\"t_ns\":9,\"round\":1}");
  char *r1_old_t = line("round", "{\"v\":1,\"seq\":1,\"t_ns\":4,\"round\":1}");
  char *r1_v2 = line("round", "{\"v\":2,\"seq\":1,\"t_ns\":9,\"round\":1}");
  char *r1_nov = line("round", "{\"seq\":1,\"t_ns\":9,\"round\":1}");
  char *r1_json = line("round", "{\"v\":1,\"seq\":1,");
  char *r1_array = line("round", "[1]");
  char *r1_topic = line("Round", "{\"v\":1,\"seq\":1,\"t_ns\":9,\"round\":1}");
  char *end2 = line("END", "{\"records\":2}");
  char *end3 = line("END", "{\"records\":3}");
  /* 300,000 levels (600 KB): json-glib would overflow the stack on it. */
  GString *deep = g_string_new("{\"v\":1,\"seq\":1,\"t_ns\":9,\"x\":");
  for (int i = 0; i < 300000; i++)
    g_string_append_c(deep, '[');
  for (int i = 0; i < 300000; i++)
    g_string_append_c(deep, ']');
  g_string_append_c(deep, '}');
  char *r1_deep = line("run", deep->str);
  g_string_free(deep, TRUE);
  /* 64 levels are fine (the bound), 65 are not. */
  char *r1_64 = line("round", "{\"v\":1,\"seq\":1,\"t_ns\":9,\"round\":1,\"x\":"
                              "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                              "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}");
  char *r1_65 = line("round", "{\"v\":1,\"seq\":1,\"t_ns\":9,\"round\":1,\"x\":"
                              "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                              "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}");
  char *r1_badcrc = g_strdup(r1);
  r1_badcrc[strlen(r1_badcrc) - 3] = '2'; /* the round number in the body */
  struct {
    const char *name;
    const char *const *lines;
    guint ok_records; /* records read before the error */
    const char *what; /* in the error, NULL: no error */
  } cases[] = {
      {"complete", (const char *const[]){r0, r1, end2, NULL}, 2, NULL},
      {"no END", (const char *const[]){r0, r1, NULL}, 2, "without its END"},
      {"END miscounts", (const char *const[]){r0, r1, end3, NULL}, 2, "counts 3 records"},
      {"after END", (const char *const[]){r0, r1, end2, r0, NULL}, 2, "after the END"},
      {"bad checksum", (const char *const[]){r0, r1_badcrc, end2, NULL}, 1, "checksum mismatch"},
      {"seq back", (const char *const[]){r0, r1_old_seq, end2, NULL}, 1, "seq 0 does not follow 0"},
      {"time back", (const char *const[]){r0, r1_old_t, end2, NULL}, 1, "goes back"},
      {"newer event", (const char *const[]){r0, r1_v2, end2, NULL}, 1, "version 2"},
      {"no v", (const char *const[]){r0, r1_nov, end2, NULL}, 1, "lacks an integer v"},
      {"bad json", (const char *const[]){r0, r1_json, end2, NULL}, 1, "not valid JSON"},
      {"not object", (const char *const[]){r0, r1_array, end2, NULL}, 1, "not a JSON object"},
      {"bad topic", (const char *const[]){r0, r1_topic, end2, NULL}, 1, "not a record line"},
      {"garbage", (const char *const[]){r0, "hello\n", end2, NULL}, 1, "not a record line"},
      {"cut line", (const char *const[]){r0, "round 1234", NULL}, 1, "cut short"},
      {"deep", (const char *const[]){r0, r1_deep, end2, NULL}, 1, "more than 64 deep"},
      {"depth 64", (const char *const[]){r0, r1_64, end2, NULL}, 2, NULL},
      {"depth 65", (const char *const[]){r0, r1_65, end2, NULL}, 1, "more than 64 deep"},
  };
  for (gsize c = 0; c < G_N_ELEMENTS(cases); c++) {
    plain(path, hdr, cases[c].lines);
    GArray *got = recs_new();
    GError *err = NULL;
    int rc = read_all(path, got, &err);
    g_assert_cmpuint(got->len, ==, cases[c].ok_records);
    if (cases[c].what == NULL) {
      g_assert_cmpint(rc, ==, 0);
      g_assert_no_error(err);
      const char *want = strchr(cases[c].lines[1], '{'); /* the line's body, '\n' ended */
      const char *body = g_array_index(got, Rec, 1).body;
      g_assert_cmpuint(strlen(body) + 1, ==, strlen(want));
      g_assert_cmpint(strncmp(body, want, strlen(body)), ==, 0);
    } else {
      g_assert_cmpint(rc, ==, -1);
      assert_error_at(err, cases[c].ok_records);
      if (strstr(err->message, cases[c].what) == NULL)
        g_error("case '%s': error '%s' lacks '%s'", cases[c].name, err->message, cases[c].what);
      g_assert_nonnull(strstr(err->message, path));
      g_error_free(err);
    }
    g_array_unref(got);
  }
  /* Files that are not traces at all. */
  const struct {
    const char *text, *what;
  } headers[] = {
      {"", "not a dpgossip trace"},
      {"DPGTRACE\n", "not a dpgossip trace"},
      {"hello world\n", "not a dpgossip trace"},
      {"DPGTRACE -1 {}\n", "not a dpgossip trace"},
      {"DPGTRACE 1x {}\n", "not a dpgossip trace"},
      {"DPGTRACE 2 {}\n", "format version 2;"},
      /* Overflows 32 and 64 bits: reported as written, not wrapped. */
      {"DPGTRACE 4294967297 {}\n", "format version 4294967297;"},
      {"DPGTRACE 99999999999999999999 {}\n", "format version 99999999999999999999;"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(headers); i++) {
    g_free(test_write_file(NULL, path, headers[i].text, -1));
    GError *err = NULL;
    g_assert_null(stream_trace_reader_open(path, &err));
    g_assert_error(err, STREAM_ERROR, STREAM_ERROR_PARSE);
    if (strstr(err->message, headers[i].what) == NULL)
      g_error("header '%s': error '%s' lacks '%s'", headers[i].text, err->message, headers[i].what);
    g_error_free(err);
  }
  GError *err = NULL;
  g_assert_null(stream_trace_reader_open("/nonexistent/x.trace", &err));
  g_assert_error(err, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "/nonexistent/x.trace"));
  g_error_free(err);
  char *all[] = {r0,       r1,   r1_old_seq, r1_old_t,  r1_v2,   r1_nov, r1_json, r1_array,
                 r1_topic, end2, end3,       r1_badcrc, r1_deep, r1_64,  r1_65};
  for (gsize i = 0; i < G_N_ELEMENTS(all); i++)
    g_free(all[i]);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

static gint cmp_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in @dir, sorted, joined by spaces. */
static char *dir_listing(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *n;
  while ((n = g_dir_read_name(d)) != NULL)
    g_ptr_array_add(names, g_strdup(n));
  g_dir_close(d);
  g_ptr_array_sort(names, cmp_names);
  g_ptr_array_add(names, NULL);
  char *s = g_strjoinv(" ", (char **)names->pdata);
  g_ptr_array_unref(names);
  return s;
}

/* A trace that cannot be finished (files limited to 8 KiB, as on a full
 * disk) used to be left truncated at its path; now the path keeps what it
 * held before and no partial file stays. A complete trace leaves no
 * temporary file either. */
static void test_write_failure(void) {
  if (!g_test_subprocess()) {
    g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed();
    return;
  }
  char *dir = test_tmpdir("trace");
  g_free(write_trace(dir));
  char *listing = dir_listing(dir);
  g_assert_cmpstr(listing, ==, "t.trace");
  g_free(listing);
  char *path = g_build_filename(dir, "t.trace", NULL);
  g_assert_true(g_file_set_contents(path, "before\n", -1, NULL));
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl = {8192, 8192};
  g_assert_cmpint(setrlimit(RLIMIT_FSIZE, &rl), ==, 0);
  GError *err = NULL;
  StreamOptions o = {.record = path};
  Stream *s = stream_new(&o, &err);
  g_assert_no_error(err);
  guint32 edges[] = {0, 1};
  StreamRun run = {.name = "t", .n_nodes = 2, .edges = edges, .n_edges = 1, .rounds = 4000};
  g_assert_true(stream_begin_run(s, &run, &err));
  GRand *rand = g_rand_new_with_seed(7);
  gboolean ok = TRUE;
  for (guint r = 0; r < 4000 && ok; r++) {
    double loss[2] = {g_rand_double(rand), g_rand_double(rand)}; /* little to compress */
    ok = stream_publish_metrics(s, r * 1000, r, 2, NULL, loss, NULL, NULL, &err);
  }
  g_rand_free(rand);
  ok = ok && stream_end_run(s, 4000000, "ok", &err);
  ok = ok && stream_finish(s, &err);
  g_assert_false(ok);
  g_assert_error(err, STREAM_ERROR, STREAM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "nothing was written there"));
  g_clear_error(&err);
  stream_free(s);
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_assert_cmpstr(text, ==, "before\n");
  g_free(text);
  listing = dir_listing(dir);
  g_assert_cmpstr(listing, ==, "t.trace");
  g_free(listing);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/trace/roundtrip", test_roundtrip);
  g_test_add_func("/trace/damage", test_damage);
  g_test_add_func("/trace/plain", test_plain);
  g_test_add_func("/trace/write-failure", test_write_failure);
  return g_test_run();
}
