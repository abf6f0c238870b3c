/*
 * tests/cli/test_train.c: `dpgossip train` end to end: the tables (one row
 * per evaluated round and node, empty accuracy for regression; the means
 * per round; the privacy per victim, account's rows), the
 * summary line, byte-identical output for the same seed in every mode and
 * thread count, bad inputs (clear error, no output file, an existing file
 * left untouched), and SIGINT (no output file).
 */
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

static char *tmpdir;

/* The privacy table's columns, as `dpgossip account --format csv` has them. */
#define PRIVACY_HEADER                                                                             \
  "collusion,trust,victim,distance,sensitivity,mu,rdp,epsilon,muffliato_rdp,status,attackers,"     \
  "alpha,delta,path,seed,mu_lower,bound"

static char *out_file(const char *name) {
  return g_build_filename(tmpdir, name, NULL);
}

static char *read_file(const char *path) {
  char *text = NULL;
  GError *err = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, &err));
  g_assert_no_error(err);
  return text;
}

/* Nothing but @keep (NULL-terminated) in the output directory: no
 * temporary left. */
static void assert_dir_holds_v(const char *const *keep) {
  GDir *d = g_dir_open(tmpdir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL)
    if (!g_strv_contains(keep, name))
      g_error("unexpected file %s left in the output directory", name);
  g_dir_close(d);
}

static void assert_dir_holds(const char *keep) {
  assert_dir_holds_v((const char *const[]){keep, NULL});
}

/* --out FILE.csv's tables: FILE.csv, FILE_mean.csv, FILE_privacy.csv. */
static char *sibling(const char *out, const char *suffix) {
  return g_strdup_printf("%.*s%s", (int)strlen(out) - 4, out, suffix);
}

static void remove_file(const char *path) {
  g_remove(path);
  if (g_str_has_suffix(path, ".csv"))
    for (guint i = 0; i < 2; i++) {
      char *p = sibling(path, i ? "_privacy.csv" : "_mean.csv");
      g_remove(p);
      g_free(p);
    }
}

static void test_csv(void) {
  char *out = out_file("r.csv");
  CliRun r = cli_run("train", "--generate", "ring:n=8", "--dataset",
                     "synthetic:linear,n=200,d=4,seed=2", "--epochs", "2", "--batches", "3",
                     "--eval-every", "2", "--lr", "0.05", "--sigma", "0.5", "--seed", "7", "--out",
                     out);
  g_assert_cmpint(r.status, ==, 0);
  /* Not a terminal: no progress bar. */
  g_assert_cmpstr(r.err, ==, "");
  g_assert_true(g_str_has_prefix(r.out, "train: dsgd, 8 nodes, 6 rounds, final mean test loss "));
  g_assert_nonnull(strstr(r.out, "messages"));
  /* The last line names the three tables. */
  char *tables = g_strdup_printf("\ntables: %s, %s/r_mean.csv, %s/r_privacy.csv\n", out, tmpdir,
                                 tmpdir);
  g_assert_true(g_str_has_suffix(r.out, tables));
  g_free(tables);
  char *text = read_file(out);
  char **lines = g_strsplit(text, "\n", -1);
  g_assert_cmpstr(lines[0], ==, "round,node,train_loss,test_loss,test_accuracy,seed");
  /* Steps 2, 4 and T = 6, eight nodes each, then the final empty string. */
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 3 * 8 + 1);
  double sum[3][2] = {{0}};
  for (guint i = 1; i <= 24; i++) {
    char **cells = g_strsplit(lines[i], ",", -1);
    g_assert_cmpuint(g_strv_length(cells), ==, 6);
    g_assert_cmpint(atoi(cells[0]), ==, 2 * (int)((i - 1) / 8 + 1));
    g_assert_cmpint(atoi(cells[1]), ==, (int)((i - 1) % 8));
    g_assert_cmpfloat(g_ascii_strtod(cells[2], NULL), >, 0.0);
    g_assert_cmpfloat(g_ascii_strtod(cells[3], NULL), >, 0.0);
    g_assert_cmpstr(cells[4], ==, "");  /* regression: no accuracy */
    g_assert_cmpstr(cells[5], ==, "7"); /* the seed */
    sum[(i - 1) / 8][0] += g_ascii_strtod(cells[2], NULL);
    sum[(i - 1) / 8][1] += g_ascii_strtod(cells[3], NULL);
    g_strfreev(cells);
  }
  g_strfreev(lines);
  g_free(text);
  /* One row of means per round, the same doubles (summed in node order). */
  char *mean_path = sibling(out, "_mean.csv");
  text = read_file(mean_path);
  lines = g_strsplit(text, "\n", -1);
  g_assert_cmpstr(lines[0], ==, "round,train_loss,test_loss,test_accuracy,seed");
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 3 + 1);
  for (guint k = 0; k < 3; k++) {
    char **cells = g_strsplit(lines[1 + k], ",", -1);
    g_assert_cmpint(atoi(cells[0]), ==, 2 * (int)(k + 1));
    g_assert_cmpfloat(g_ascii_strtod(cells[1], NULL), ==, sum[k][0] / 8);
    g_assert_cmpfloat(g_ascii_strtod(cells[2], NULL), ==, sum[k][1] / 8);
    g_assert_cmpstr(cells[3], ==, "");
    g_assert_cmpstr(cells[4], ==, "7");
    g_strfreev(cells);
  }
  g_strfreev(lines);
  g_free(text);
  /* Default: every node's LDP guarantee, once (not per round): mu =
   * sqrt(T / b) / sigma = sqrt(2) / 0.5, no attacker set, no distance. */
  char *priv_path = sibling(out, "_privacy.csv");
  text = read_file(priv_path);
  lines = g_strsplit(text, "\n", -1);
  g_assert_cmpstr(lines[0], ==, PRIVACY_HEADER);
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 8 + 1);
  for (guint u = 0; u < 8; u++) {
    char **cells = g_strsplit(lines[1 + u], ",", -1);
    g_assert_cmpuint(g_strv_length(cells), ==, 17);
    g_assert_cmpstr(cells[0], ==, "");
    g_assert_cmpstr(cells[1], ==, "ldp");
    g_assert_cmpint(atoi(cells[2]), ==, (int)u);
    g_assert_cmpstr(cells[3], ==, "");
    g_assert_cmpfloat(fabs(g_ascii_strtod(cells[5], NULL) - 2 * G_SQRT2), <, 1e-12);
    g_assert_cmpstr(cells[9], ==, "protected");
    g_assert_cmpstr(cells[10], ==, "");
    g_assert_cmpstr(cells[12], ==, "1e-06");
    g_assert_cmpstr(cells[13], ==, "structured");
    g_assert_cmpstr(cells[14], ==, "7");
    g_strfreev(cells);
  }
  g_strfreev(lines);
  g_free(text);
  assert_dir_holds_v((const char *const[]){"r.csv", "r_mean.csv", "r_privacy.csv", NULL});
  remove_file(out);
  g_free(mean_path);
  g_free(priv_path);
  g_free(out);
  cli_run_clear(&r);
}

static void test_privacy_vs_account(void) {
  char *out = out_file("p.csv");
  const char *extra[][6] = {{NULL},
                            {"--schedule", "matching", NULL},
                            {"--mode", "deadline:ms=5", "--latency", "constant:ms=1", NULL}};
  for (guint e = 0; e < G_N_ELEMENTS(extra); e++) {
    GPtrArray *args = g_ptr_array_new();
    const char *common[] = {"--generate", "florentine", "--sigma", "0.7", "--seed", "7",
                            "--trust",    "pndp,ldp",   "-a",      "0",   "-a",     "3+11"};
    g_ptr_array_add(args, "train");
    for (guint i = 0; i < G_N_ELEMENTS(common); i++)
      g_ptr_array_add(args, (gpointer)common[i]);
    for (guint i = 0; extra[e][i]; i++)
      g_ptr_array_add(args, (gpointer)extra[e][i]);
    const char *tr[] = {"--dataset", "synthetic:linear,n=300,d=4,seed=2",
                        "--epochs",  "2",
                        "--batches", "3",
                        "--out",     out,
                        NULL};
    for (guint i = 0; tr[i]; i++)
      g_ptr_array_add(args, (gpointer)tr[i]);
    g_ptr_array_add(args, NULL);
    CliRun t = cli_run_v((const char *const *)args->pdata);
    if (t.status != 0)
      g_error("train failed: %s", t.err);
    /* account: the same run, T = 6 steps, participation every b = 3. */
    args->pdata[0] = "account";
    g_ptr_array_set_size(args, 1 + G_N_ELEMENTS(common));
    for (guint i = 0; extra[e][i]; i++)
      g_ptr_array_add(args, (gpointer)extra[e][i]);
    const char *ac[] = {"-T", "6", "-b", "3", "--format", "csv", NULL};
    for (guint i = 0; ac[i]; i++)
      g_ptr_array_add(args, (gpointer)ac[i]);
    g_ptr_array_add(args, NULL);
    CliRun a = cli_run_v((const char *const *)args->pdata);
    if (a.status != 0)
      g_error("account failed: %s", a.err);
    g_ptr_array_free(args, TRUE);
    /* The privacy table is account's, row for row (its own order: by
     * trust, then set): (collusion, trust, victim) -> the row. */
    GHashTable *want = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    char **al = g_strsplit(a.out, "\n", -1);
    g_assert_cmpstr(al[0], ==, PRIVACY_HEADER);
    for (guint i = 1; al[i] && *al[i]; i++) {
      char **c = g_strsplit(al[i], ",", 4);
      g_hash_table_insert(want, g_strdup_printf("%s,%s,%s", c[0], c[1], c[2]), g_strdup(al[i]));
      g_strfreev(c);
    }
    g_assert_cmpuint(g_hash_table_size(want), ==, 2 * 14 + 2 * 13);
    char *priv_path = sibling(out, "_privacy.csv");
    char *text = read_file(priv_path);
    char **tl = g_strsplit(text, "\n", -1);
    g_assert_cmpstr(tl[0], ==, PRIVACY_HEADER);
    guint rows = 0;
    for (guint i = 1; tl[i] && *tl[i]; i++, rows++) {
      char **c = g_strsplit(tl[i], ",", -1);
      char *key = g_strdup_printf("%s,%s,%s", c[0], c[1], c[2]);
      const char *w = g_hash_table_lookup(want, key);
      g_assert_nonnull(w);
      if (e < 2) {
        /* Structured: the same computation, the same text. */
        g_assert_cmpstr(tl[i], ==, w);
      } else {
        /* Asynchronous: two runs' observers, accounted in their own message
         * order. */
        char **wc = g_strsplit(w, ",", -1);
        g_assert_cmpstr(c[3], ==, wc[3]); /* distance */
        for (guint k = 4; k < 8; k++) {
          double x = g_ascii_strtod(c[k], NULL), y = g_ascii_strtod(wc[k], NULL);
          g_assert_cmpfloat(fabs(x / y - 1), <, 1e-12);
        }
        g_assert_cmpstr(c[13], ==, "observer");
        g_strfreev(wc);
      }
      g_free(key);
      g_strfreev(c);
    }
    g_assert_cmpuint(rows, ==, 2 * 14 + 2 * 13);
    /* Evaluated at T only: one metrics row per node, no privacy in it. */
    char *mtext = read_file(out);
    char **ml = g_strsplit(mtext, "\n", -1);
    g_assert_cmpuint(g_strv_length(ml), ==, 1 + 15 + 1);
    g_assert_true(g_str_has_prefix(ml[1], "6,0,"));
    g_strfreev(ml);
    g_free(mtext);
    g_free(priv_path);
    /* The summary line: the largest epsilon, and one line per accounting. */
    g_assert_nonnull(strstr(t.out, ", epsilon up to "));
    g_assert_nonnull(strstr(t.out, "\nprivacy: pndp, attackers 3+11, 13 victims: epsilon at "
                                   "delta = 1e-06 from "));
    g_strfreev(tl);
    g_free(text);
    g_strfreev(al);
    g_hash_table_unref(want);
    cli_run_clear(&t);
    cli_run_clear(&a);
  }
  remove_file(out);
  g_free(out);
}

/* Little noise: the summary says what such an epsilon means; no noise: inf
 * and every row unprotected. Classification: the accuracy in the summary. */
/* "--out overlay" writes overlay.csv beside overlay_mean.csv and
 * overlay_privacy.csv, and says so; a name with an extension is kept. */
static void test_out_extension(void) {
  char *bare = out_file("overlay"), *csv = out_file("overlay.csv"), *txt = out_file("m.txt");
  CliRun r = cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40", "-q",
                     "--out", bare);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(g_file_test(csv, G_FILE_TEST_IS_REGULAR));
  g_assert_false(g_file_test(bare, G_FILE_TEST_EXISTS));
  char *said = g_strdup_printf("tables: %s, ", csv);
  g_assert_nonnull(strstr(r.out, said));
  g_free(said);
  cli_run_clear(&r);
  r = cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=40", "-q",
              "--out", txt);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(g_file_test(txt, G_FILE_TEST_IS_REGULAR));
  cli_run_clear(&r);
  remove_file(csv);
  g_remove(txt);
  for (guint i = 0; i < 2; i++) {
    char *p = g_strconcat(txt, i ? "_privacy.csv" : "_mean.csv", NULL);
    g_remove(p);
    g_free(p);
  }
  g_free(bare);
  g_free(csv);
  g_free(txt);
}

static void test_privacy_summary(void) {
  char *out = out_file("q.csv");
  CliRun r = cli_run("train", "--generate", "ring:n=4", "--dataset",
                     "synthetic:logistic,n=200,d=3,seed=1", "--sigma", "0.05", "--out", out);
  g_assert_cmpint(r.status, ==, 0);
  /* LDP, T = b = 1: mu = 1 / 0.05 = 20; epsilon(1e-6) = 294.2 (mu^2 / 2 plus
   * about mu z, z the 1e-6 normal quantile). */
  g_assert_nonnull(strstr(r.out, ", accuracy "));
  /* Every node has the same value: said once, not "from 294.2 (node 0)
   * to 294.2 (node 0)". */
  g_assert_nonnull(strstr(r.out, "privacy: ldp (every node), 4 nodes: epsilon at delta = 1e-06 "
                                 "is 294.2 for every node\n"));
  char *q = read_file(out);
  g_assert_nonnull(strstr(q, "\n1,3,"));
  g_free(q);
  char *priv_path = sibling(out, "_privacy.csv");
  q = read_file(priv_path);
  g_assert_nonnull(strstr(q, "\n,ldp,3,,20,20,400,294.17"));
  g_free(q);
  g_assert_nonnull(strstr(r.out, "at delta = 1e-06: no meaningful protection"));
  cli_run_clear(&r);
  r = cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=200,d=3,seed=1",
              "--sigma", "0", "--out", out);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_null(strstr(r.out, ", accuracy ")); /* regression */
  g_assert_nonnull(strstr(r.out, "epsilon up to inf"));
  g_assert_nonnull(strstr(r.out, "epsilon inf: no protection"));
  char *text = read_file(priv_path);
  g_assert_nonnull(
      strstr(text, "\n,ldp,0,,inf,inf,inf,inf,,unprotected,,2,1e-06,structured,0,,exact\n"));
  g_free(text);
  cli_run_clear(&r);
  /* --trust none: no accounting, said so. */
  r = cli_run("train", "--generate", "ring:n=4", "--dataset", "synthetic:linear,n=200,d=3,seed=1",
              "--trust", "none", "--out", out);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, ", privacy not accounted (--trust none), "));
  g_assert_null(strstr(r.out, "\nprivacy:"));
  text = read_file(out);
  g_assert_nonnull(strstr(text, "\n1,3,"));
  g_free(text);
  /* Nothing accounted: the table has its columns and no row (a stale one
   * from the run before is replaced). */
  text = read_file(priv_path);
  g_assert_cmpstr(text, ==, PRIVACY_HEADER "\n");
  g_free(text);
  cli_run_clear(&r);
  remove_file(out);
  g_free(priv_path);
  g_free(out);
}

static void test_classification(void) {
  char *out = out_file("c.csv");
  CliRun r = cli_run("train", "--generate", "complete:n=4", "--dataset",
                     "synthetic:logistic,n=300,d=3,classes=3,labels=argmax,seed=1", "--model",
                     "softmax", "--epochs", "3", "--batches", "2", "--lr", "0.5", "--sigma", "0",
                     "--out", out);
  g_assert_cmpint(r.status, ==, 0);
  char *text = read_file(out);
  char **lines = g_strsplit(text, "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 4 + 1);
  for (guint i = 1; i <= 4; i++) {
    char **cells = g_strsplit(lines[i], ",", -1);
    double acc = g_ascii_strtod(cells[4], NULL);
    g_assert_cmpfloat(acc, >, 0.5); /* separable classes, no noise */
    g_assert_cmpfloat(acc, <=, 1.0);
    g_strfreev(cells);
  }
  g_strfreev(lines);
  g_free(text);
  remove_file(out);
  g_free(out);
  cli_run_clear(&r);
}

/* The same scenario and seed: the same bytes, whatever the mode's timing
 * randomness and the number of evaluation threads. */
static void test_deterministic(void) {
  const char *modes[] = {"sync", "deadline:ms=3", "stale:s=2"};
  const char *protocols[] = {"dsgd", "decor", "zipdl"};
  for (guint m = 0; m < G_N_ELEMENTS(modes); m++) {
    const char *protocol = protocols[m];
    char *texts[3];
    for (int i = 0; i < 3; i++) {
      char *out = out_file("d.csv");
      const char *threads = i == 1 ? "2" : "1";
      CliRun r = cli_run("train", "--generate", "erdos:n=10,p=0.5,seed=1,connected=true",
                         "--protocol", protocol, "--mode", modes[m], "--latency",
                         "uniform:min=1,max=4", "--dataset", "synthetic:linear,n=300,seed=4",
                         "--epochs", "2", "--batches", "4", "--eval-every", "3", "--lr", "0.05",
                         "--seed", "11", "--threads", threads, "--out", out);
      g_assert_cmpint(r.status, ==, 0);
      char *mean = sibling(out, "_mean.csv"), *priv = sibling(out, "_privacy.csv");
      char *m = read_file(out), *mm = read_file(mean), *p = read_file(priv);
      texts[i] = g_strconcat(m, mm, p, NULL);
      g_free(m);
      g_free(mm);
      g_free(p);
      g_free(mean);
      g_free(priv);
      remove_file(out);
      g_free(out);
      cli_run_clear(&r);
    }
    g_assert_cmpstr(texts[0], ==, texts[1]);
    g_assert_cmpstr(texts[0], ==, texts[2]);
    for (int i = 0; i < 3; i++)
      g_free(texts[i]);
  }
}

/* Stale mode stalled on the first lost message. The command of the
 * report completes, twice with the same bytes. */
static void test_stale_loss(void) {
  char *texts[2];
  for (int i = 0; i < 2; i++) {
    char *out = out_file("s.csv");
    CliRun r = cli_run("train", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=300,d=4", "--epochs", "3", "--batches", "2", "--mode",
                       "stale:s=10", "--loss", "0.1", "--out", out);
    if (r.status != 0)
      g_error("stale mode with loss failed: %s", r.err);
    texts[i] = read_file(out);
    g_assert_nonnull(strstr(texts[i], "round,node,train_loss"));
    remove_file(out);
    g_free(out);
    cli_run_clear(&r);
  }
  g_assert_cmpstr(texts[0], ==, texts[1]);
  g_free(texts[0]);
  g_free(texts[1]);
}

/* A failing run prints a clear error, leaves no file, and never touches an
 * existing output. */
static void expect_failure(int status, const char *fragment, const char *const *args) {
  char *out = out_file("bad.csv");
  g_assert_true(g_file_set_contents(out, "old\n", -1, NULL));
  GPtrArray *argv = g_ptr_array_new();
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)(strcmp(args[i], "OUT") == 0 ? out : args[i]));
  g_ptr_array_add(argv, NULL);
  CliRun r = cli_run_v((const char *const *)argv->pdata);
  if (r.status != status || strstr(r.err, fragment) == NULL)
    g_error("status %d (want %d), stderr '%s' (want '%s')", r.status, status, r.err, fragment);
  g_assert_cmpstr(r.out, ==, "");
  char *text = read_file(out);
  g_assert_cmpstr(text, ==, "old\n");
  g_free(text);
  assert_dir_holds("bad.csv");
  remove_file(out);
  g_free(out);
  g_ptr_array_free(argv, TRUE);
  cli_run_clear(&r);
}

#define FAIL(status, fragment, ...)                                                                \
  expect_failure(status, fragment, (const char *const[]){__VA_ARGS__, NULL})

static void test_bad_inputs(void) {
  char *bad_cell = cli_test_data_path("proto-bad-cell.csv");
  char *tiny = cli_test_data_path("proto-tiny.csv");
  char *c2 = cli_test_data_path("proto-c-2x2.csv"), *cu = cli_test_data_path("proto-c-upper.csv");
  char *bad_ds = g_strdup_printf("csv:%s", bad_cell), *tiny_ds = g_strdup_printf("csv:%s", tiny);
  char *c2_spec = g_strdup_printf("mfdsgd:C=%s", c2), *cu_spec = g_strdup_printf("mfdsgd:C=%s", cu);
  const char *syn = "synthetic:linear,n=100";

  FAIL(2,
       "unknown protocol 'gossip' (valid: antipgd, decor, dsgd, mafalda, mfdsgd, muffliato, "
       "zipdl",
       "train", "--generate", "ring:n=4", "--protocol", "gossip", "--dataset", syn, "--out", "OUT");
  FAIL(2, "muffliato: unknown parameter 'L' (valid: K)", "train", "--generate", "ring:n=4",
       "--protocol", "muffliato:L=2", "--dataset", syn, "--out", "OUT");
  FAIL(2, "out of range", "train", "--generate", "ring:n=4", "--protocol", "muffliato:K=0",
       "--dataset", syn, "--out", "OUT");
  FAIL(2, "Unknown option --bogus", "train", "--generate", "ring:n=4", "--bogus", "--dataset", syn,
       "--out", "OUT");
  FAIL(2, "unknown mode 'async'", "train", "--generate", "ring:n=4", "--mode", "async", "--dataset",
       syn, "--out", "OUT");
  FAIL(2, "--dataset is required", "train", "--generate", "ring:n=4", "--out", "OUT");
  FAIL(1, "proto-c-2x2.csv: C is 2 x 2, expected 3 x 3", "train", "--generate", "ring:n=4",
       "--protocol", c2_spec, "--epochs", "3", "--dataset", syn, "--out", "OUT");
  FAIL(1, "proto-c-upper.csv:2:3: C[1,2] = 0.1 lies above the diagonal", "train", "--generate",
       "ring:n=4", "--protocol", cu_spec, "--epochs", "3", "--dataset", syn, "--out", "OUT");
  FAIL(1, "proto-bad-cell.csv:4:4: field 2 ('oops') is not a finite number", "train", "--generate",
       "ring:n=3", "--dataset", bad_ds, "--out", "OUT");
  FAIL(1, "3 nodes but only 2 training records", "train", "--generate", "ring:n=3", "--dataset",
       tiny_ds, "--out", "OUT");
  FAIL(1, "sync mode cannot run over lossy links", "train", "--generate", "ring:n=4", "--loss",
       "0.1", "--dataset", syn, "--out", "OUT");

  /* The output directory must exist: the error names the file. */
  char *missing = g_build_filename(tmpdir, "no-such-dir", "r.csv", NULL);
  CliRun r = cli_run("train", "--generate", "ring:n=4", "--dataset", syn, "--out", missing);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "no-such-dir"));
  cli_run_clear(&r);
  g_free(missing);

  g_free(c2_spec);
  g_free(cu_spec);
  g_free(bad_ds);
  g_free(tiny_ds);
  g_free(c2);
  g_free(cu);
  g_free(bad_cell);
  g_free(tiny);
}

/* A table that cannot be written (a folder in its place): exit 1 naming
 * it, and no table at all, so none looks complete beside a missing one. */
static void test_unwritable_table(void) {
  char *out = out_file("u.csv"), *priv = out_file("u_privacy.csv");
  g_assert_cmpint(g_mkdir(priv, 0700), ==, 0);
  CliRun r = cli_run("train", "--generate", "ring:n=4", "--dataset",
                     "synthetic:linear,n=100,seed=1", "--out", out);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "cannot write "));
  g_assert_nonnull(strstr(r.err, "u_privacy.csv"));
  assert_dir_holds("u_privacy.csv");
  g_rmdir(priv);
  cli_run_clear(&r);
  g_free(priv);
  g_free(out);
}

/* Waits until process @pid catches @sig (its handler is installed: bit
 * sig - 1 of SigCgt in /proc/PID/status), so that the signal tests what
 * the handler does and not a start slowed by load or a sanitizer; at most
 * 120 s. */
static void wait_for_handler(GPid pid, int sig) {
  char *path = g_strdup_printf("/proc/%d/status", (int)pid);
  for (int tries = 0; tries < 12000; tries++) {
    char *text = NULL;
    if (g_file_get_contents(path, &text, NULL, NULL)) {
      const char *line = strstr(text, "SigCgt:");
      guint64 mask = line ? g_ascii_strtoull(line + 7, NULL, 16) : 0;
      g_free(text);
      if (mask & (G_GUINT64_CONSTANT(1) << (sig - 1))) {
        g_free(path);
        return;
      }
    }
    g_usleep(10 * 1000);
  }
  g_error("the child never installed its handler for signal %d", sig);
}

/* A signal during a long run: exit 128 + its number (130 for Ctrl-C, 143
 * for a scheduler's SIGTERM, which used to kill without the message), no
 * output file. */
static void interrupt_train(int sig) {
  char *out = out_file("int.csv");
  char *graph = cli_data_path("graphs/facebook-ego-414-lcc.edges");
  char *data = cli_data_path("california/cal_housing.data");
  char *ds = g_strdup_printf("california:%s", data);
  const char *argv[] = {
      g_getenv("DPGOSSIP"), "train", "--graph",   graph, "--dataset", ds,  "--model", "mlp",
      "--epochs",           "200",   "--batches", "16",  "--out",     out, NULL};
  GPid pid;
  GError *err = NULL;
  g_assert_true(g_spawn_async(NULL, (char **)argv, NULL,
                              G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                                  G_SPAWN_STDERR_TO_DEV_NULL,
                              cli_run_die_with_test, NULL, &pid, &err));
  g_assert_no_error(err);
  wait_for_handler(pid, sig);
  g_usleep(200 * 1000); /* into the run */
  kill(pid, sig);
  int wstatus = 0;
  g_assert_cmpint(waitpid(pid, &wstatus, 0), ==, pid);
  g_spawn_close_pid(pid);
  g_assert_true(WIFEXITED(wstatus));
  g_assert_cmpint(WEXITSTATUS(wstatus), ==, 128 + sig);
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  assert_dir_holds(NULL);
  g_free(ds);
  g_free(data);
  g_free(graph);
  g_free(out);
}

static void test_sigint(void) {
  interrupt_train(SIGINT);
}

static void test_sigterm(void) {
  interrupt_train(SIGTERM);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  GError *err = NULL;
  tmpdir = test_tmpdir("train");
  g_assert_no_error(err);
  g_test_add_func("/train/csv", test_csv);
  g_test_add_func("/train/classification", test_classification);
  g_test_add_func("/train/privacy-vs-account", test_privacy_vs_account);
  g_test_add_func("/train/privacy-summary", test_privacy_summary);
  g_test_add_func("/train/out-extension", test_out_extension);
  g_test_add_func("/train/deterministic", test_deterministic);
  g_test_add_func("/train/stale_loss", test_stale_loss);
  g_test_add_func("/train/bad_inputs", test_bad_inputs);
  g_test_add_func("/train/unwritable-table", test_unwritable_table);
  g_test_add_func("/train/sigint", test_sigint);
  g_test_add_func("/train/sigterm", test_sigterm);
  int status = g_test_run();
  g_rmdir(tmpdir);
  g_free(tmpdir);
  return status;
}
