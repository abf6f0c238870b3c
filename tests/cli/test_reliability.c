/*
 * tests/cli/test_reliability.c: issue 37's hostile runs, each of which
 * aborted in GLib's allocator, ran on silently with another value, or
 * disagreed with its sibling command. Every case here failed before its fix.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "tests/common/checks.h"
#include "tests/common/files.h"
#include "tests/common/run_json.h"
#include "tests/common/tolerance.h"

/* This run's own folder (test_tmpdir), made in main: two runs at once
 * never write the same file. */
static char *tmp_dir;

static gboolean skip_under_asan(void) {
#if TEST_UNDER_ASAN
  g_test_skip("an address-space limit and AddressSanitizer's shadow memory do not mix");
  return TRUE;
#else
  return FALSE;
#endif
}


/* A memory refusal: exit 1 (not GLib's abort), "would need N of memory". */
static void assert_memory_refusal(CliRun *r, const char *needle) {
  if (r->status != 1 || strstr(r->err, "would need") == NULL ||
      strstr(r->err, "of memory") == NULL || (needle != NULL && strstr(r->err, needle) == NULL))
    g_error("expected a memory refusal (exit 1, '%s'), got exit %d; stderr: %s",
            needle != NULL ? needle : "", r->status, r->err);
  cli_run_clear(r);
}

static char *temp_path(const char *name) {
  return g_build_filename(tmp_dir, name, NULL);
}

/* @head then @rows copies of @row, gzipped: a small file of many rows. */
static char *write_gzip_rows(const char *name, const char *head, const char *row, gsize rows) {
  char *path = temp_path(name);
  gzFile f = gzopen(path, "wb1");
  g_assert_nonnull(f);
  if (head != NULL)
    g_assert_cmpint(gzputs(f, head), >, 0);
  GString *chunk = g_string_new(NULL);
  for (guint i = 0; i < 65536; i++)
    g_string_append(chunk, row);
  for (gsize done = 0; done < rows; done += 65536) {
    gsize k = MIN((gsize)65536, rows - done);
    g_assert_cmpint(gzwrite(f, chunk->str, (unsigned)(k * strlen(row))), ==,
                    (int)(k * strlen(row)));
  }
  g_string_free(chunk, TRUE);
  g_assert_cmpint(gzclose(f), ==, Z_OK);
  return path;
}

#define LIMIT ((gsize)1 << 30)

/* Items 1 and 2: the audit's trials, T and models sized without a check. */
static void test_audit_budget(void) {
  /* T = 10^5: the victim's Gram block alone is 80 GB; refused before the
   * view's simulation (it used to run 44 s, then die at 7.7 GB). */
  CliRun r = cli_run("audit", "--generate", "florentine", "-T", "100000", "-a", "0", "--victim",
                     "1");
  assert_memory_refusal(&r, "T = 100000");
  /* 10^9 trials: 32 GB of scores, more than this machine's 23 GB. */
  r = cli_run("audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1",
              "--trials", "1000000000");
  assert_memory_refusal(&r, "1000000000 trials");
  if (skip_under_asan())
    return;
  r = cli_run_limited(LIMIT, "audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim",
                      "1", "--trials", "300000000");
  assert_memory_refusal(&r, "--trials");
  /* --dim 4000 (20000 asked for 204 GB): the learned attack's covariance of the received values. */
  r = cli_run_limited(LIMIT, "audit", "--generate", "florentine", "-T", "4", "-a", "0", "--victim",
                      "1", "--trials", "20", "--dim", "4000");
  assert_memory_refusal(&r, "learned attack");
}

/* Item 3: a small gzip of millions of rows behind each measured-network
 * reader; each grew its arrays until g_realloc aborted (at 5 GB from a 1 MB
 * gzip). Here a few million rows whose arrays exceed what the 1 GiB limit
 * leaves: the estimate refuses them before the first row is kept. */
static void test_reader_budgets(void) {
  if (skip_under_asan())
    return;
  struct {
    const char *name, *head, *row, *fmt;
    gsize rows;
  } c[] = {
      {"dpg-rel-geo.csv.gz", "long,lat\n", "0,0\n", "geo:nodes=%s", (gsize)8 << 20},
      {"dpg-rel-links.txt.gz", NULL, "0 1 5\n", "links:file=%s,unit=ms", (gsize)8 << 20},
      {"dpg-rel-sessions.csv.gz", NULL, "0,0,1\n", "churn:trace=%s", (gsize)8 << 20},
      {"dpg-rel-stunner.txt.gz", NULL, "0 0 0 0 86400000\n", "churn:trace=%s,format=stunner",
       (gsize)4 << 20},
  };
  for (guint i = 0; i < G_N_ELEMENTS(c); i++) {
    char *path = write_gzip_rows(c[i].name, c[i].head, c[i].row, c[i].rows);
    char *spec = g_strdup_printf(c[i].fmt, path);
    gboolean schedule = g_str_has_prefix(spec, "churn:");
    CliRun r = cli_run_limited(LIMIT, "graph", "--generate", "florentine",
                               schedule ? "--schedule" : "--latency", spec);
    g_test_message("%s", spec);
    assert_memory_refusal(&r, path);
    g_unlink(path);
    g_free(spec);
    g_free(path);
  }
}

/* Item 4: a time-varying schedule's K T gossip matrices, held at once. */
static void test_schedule_budget(void) {
  CliRun r = cli_run("account", "--generate", "florentine", "-T", "2000000000", "--trust", "pndp",
                     "-a", "0", "--schedule", "matching");
  /* Refused by the plan's estimate of the structured path, which counts
   * the K T gossip matrices (proto_schedule_gossips_bytes). */
  assert_memory_refusal(&r, "T = 2000000000 steps of a time-varying schedule");
}

/* --path structured's least memory, estimated before anything is built:
 * at 10^6 nodes with --schedule matching the 4 GB of blocks were allocated
 * after 22 s before KALMAN's n x n pair was refused. Here KALMAN's pair is
 * 2 x 20000^2 doubles = 6.4 GB (6.5 with the blocks), the static path's blocks 20000 x 100^2
 * doubles = 1.6 GB, both over the 1 GiB limit: refused by the plan, naming
 * the path, the nodes and the steps. */
static void test_structured_budget(void) {
  if (skip_under_asan())
    return;
  CliRun r = cli_run_limited(LIMIT, "account", "--generate", "regular:n=20000,d=4,seed=1", "-T",
                             "20", "--trust", "pndp", "-a", "0", "--path", "structured",
                             "--schedule", "matching", "-q");
  assert_memory_refusal(&r, "--path structured on 20000 nodes over T = 20 steps of a "
                            "time-varying schedule would need 6.5 GB");
  r = cli_run_limited(LIMIT, "account", "--generate", "regular:n=20000,d=4,seed=1", "-T", "100",
                      "--trust", "pndp", "-a", "0", "--path", "structured", "-q");
  assert_memory_refusal(&r,
                        "--path structured on 20000 nodes over T = 100 steps would need 1.6 GB");
}

/* The asynchronous structured path's delivery record (about 50 bytes a
 * message), estimated before its simulation: 200 rounds of Muffliato(50)
 * on 20000 nodes of degree 8 are 3.2e7 messages, about 1.7 GB. It grew
 * until the allocator aborted. */
static void test_delivery_record_budget(void) {
  if (skip_under_asan())
    return;
  CliRun r = cli_run_limited(LIMIT, "account", "--generate", "regular:n=20000,d=8,seed=1", "-T",
                             "4", "-p", "muffliato:K=50", "--trust", "pndp", "-a", "0", "--path",
                             "structured", "--mode", "deadline:ms=5", "--latency", "constant:ms=1",
                             "-q");
  assert_memory_refusal(&r, "the delivery record of 200 gossip rounds (32000000 messages)");
}

/* Item 5: train's noise registry grows by every node's variable each step,
 * with or without an accountant; -k 5e6 used to die after 43 s. */
static void test_train_steps_budget(void) {
  if (skip_under_asan())
    return;
  char *out = temp_path("dpg-rel-train.csv");
  g_unlink(out);
  CliRun r = cli_run_limited((gsize)3 << 29, "train", "--generate", "florentine", "--dataset",
                             "synthetic:linear,n=100,d=2", "-k", "5000000", "--trust", "none",
                             "--out", out);
  assert_memory_refusal(&r, "5000000 steps");
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_free(out);
}

/* The victim's accounted mu from `account --sensitivity exact`. */
static double account_mu(const char *protocol, const char *lr, guint victim) {
  CliRun r = cli_run("account", "--generate", "florentine", "-T", "6", "--trust", "ldp", "-a", "9",
                     "-p", protocol, "--lr", lr, "--sensitivity", "exact", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonArray *v = json_object_get_array_member(cli_run_json(&r, &p), "victims");
  double mu = NAN;
  for (guint i = 0; i < json_array_get_length(v); i++) {
    JsonObject *o = json_array_get_object_element(v, i);
    if (json_object_get_int_member(o, "node") == victim)
      mu = json_object_get_double_member(o, "mu");
  }
  g_object_unref(p);
  cli_run_clear(&r);
  return mu;
}

/* Item 8: the audit tests the run `account` prices, every protocol, at a
 * learning rate other than the default: Zip-DL's noise is in units of the
 * step, which the audit ran at half of account's (and had no --lr). */
static void test_audit_accounts_as_account(void) {
  const char *protocols[] = {"dsgd", "zipdl", "mfdsgd", "antipgd", "decor", "muffliato"};
  for (guint i = 0; i < G_N_ELEMENTS(protocols); i++) {
    CliRun r = cli_run("audit", "--generate", "florentine", "-T", "6", "--trust", "ldp", "-a", "9",
                       "-p", protocols[i], "--lr", "0.3", "--victim", "1", "--trials", "20",
                       "--attack", "np", "--format", "json");
    if (r.status != 0)
      g_error("audit -p %s: exit %d: %s", protocols[i], r.status, r.err);
    JsonParser *p;
    JsonArray *v = json_object_get_array_member(cli_run_json(&r, &p), "victims");
    double mu = json_object_get_double_member(json_array_get_object_element(v, 0), "mu");
    g_object_unref(p);
    cli_run_clear(&r);
    double want = account_mu(protocols[i], "0.3", 1);
    /* Both are sqrt of the exact sensitivity of the same T x T Gram block,
     * each entry a sum of at most n T K products (n = 15, T = 6, K <= 1
     * gossip rounds per step here) summed in another order: relative error
     * at most n T eps each (Higham's gamma bound), so 2 n T eps apart. */
    double tol = 2.0 * 15 * 6 * DBL_EPSILON * want;
    g_test_message("%s: audit %.17g, account %.17g", protocols[i], mu, want);
    dpg_test_assert_le(fabs(mu - want), tol, "two sqrt of Gram sums of n T products: 2 n T eps");
  }
}

static char *write_text(const char *name, const char *text) {
  char *path = temp_path(name);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

/* The "latency" object of `graph --format json` with @spec_fmt on @path. */
static char *latency_of(const char *graph_file, const char *spec_fmt, const char *path) {
  char *spec = g_strdup_printf(spec_fmt, path);
  CliRun r = graph_file != NULL
                 ? cli_run("graph", "--graph", graph_file, "--latency", spec, "--format", "json")
                 : cli_run("graph", "--generate", "florentine", "--latency", spec, "--format",
                           "json");
  if (r.status != 0)
    g_error("graph --latency %s: exit %d: %s", spec, r.status, r.err);
  JsonParser *p;
  JsonObject *lat = json_object_get_object_member(cli_run_json(&r, &p), "latency");
  char *s = g_strdup_printf(
      "%g %g %g %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
      json_object_get_double_member(lat, "mean_ms"), json_object_get_double_member(lat, "min_ms"),
      json_object_get_double_member(lat, "max_ms"), json_object_get_int_member(lat, "links"),
      json_object_get_int_member(lat, "located_nodes"));
  g_object_unref(p);
  cli_run_clear(&r);
  g_free(spec);
  return s;
}

/* Item 9: a UTF-8 byte order mark hid the geo file's index column (rows
 * placed in file order) and turned the first link into a header. */
static void test_byte_order_mark(void) {
  char *g3 = write_text("dpg-rel-g3.txt", "0 1\n1 2\n2 0\n");
  const char *links = "0 1 5\n1 2 7\n2 0 9\n1 0 50\n";
  char *plain = write_text("dpg-rel-links.txt", links);
  char *with = g_strconcat("\xEF\xBB\xBF", links, NULL);
  char *bom = write_text("dpg-rel-links-bom.txt", with);
  /* Closed form: 0-1 5 and 50, 1-2 7 both ways, 2-0 9 both ways. */
  char *want = g_strdup_printf("%g 5 50 6 0", (5.0 + 50 + 7 + 7 + 9 + 9) / 6);
  char *a = latency_of(g3, "links:file=%s,unit=ms", plain);
  char *b = latency_of(g3, "links:file=%s,unit=ms", bom);
  g_assert_cmpstr(a, ==, want);
  g_assert_cmpstr(b, ==, want);
  g_free(a);
  g_free(b);
  /* Florentine's 15 nodes listed last to first: only the index column
   * puts them where the plain file does. */
  GString *geo = g_string_new("index,long,lat\n");
  for (int k = 14; k >= 0; k--)
    g_string_append_printf(geo, "%d,%d.5,%d.25\n", k, 3 * k - 20, 2 * k - 10);
  char *gplain = write_text("dpg-rel-geo.csv", geo->str);
  g_string_prepend(geo, "\xEF\xBB\xBF");
  char *gbom = write_text("dpg-rel-geo-bom.csv", geo->str);
  a = latency_of(NULL, "geo:nodes=%s,jitter=0", gplain);
  b = latency_of(NULL, "geo:nodes=%s,jitter=0", gbom);
  g_assert_cmpstr(a, ==, b);
  g_free(a);
  g_free(b);
  const char *files[] = {g3, plain, bom, gplain, gbom};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++)
    g_unlink(files[i]);
  g_string_free(geo, TRUE);
  g_free(gplain);
  g_free(gbom);
  g_free(want);
  g_free(with);
  g_free(bom);
  g_free(plain);
  g_free(g3);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  tmp_dir = test_tmpdir("reliability");
  g_test_add_func("/cli/reliability/audit-budget", test_audit_budget);
  g_test_add_func("/cli/reliability/reader-budgets", test_reader_budgets);
  g_test_add_func("/cli/reliability/schedule-budget", test_schedule_budget);
  g_test_add_func("/cli/reliability/structured-budget", test_structured_budget);
  g_test_add_func("/cli/reliability/delivery-record-budget", test_delivery_record_budget);
  g_test_add_func("/cli/reliability/train-steps-budget", test_train_steps_budget);
  g_test_add_func("/cli/reliability/audit-accounts-as-account", test_audit_accounts_as_account);
  g_test_add_func("/cli/reliability/byte-order-mark", test_byte_order_mark);
  int status = g_test_run();
  test_rmtree(tmp_dir);
  g_free(tmp_dir);
  return status;
}
