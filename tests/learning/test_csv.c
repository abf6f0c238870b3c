/*
 * tests/learning/test_csv.c: the CSV loader on the tests/data/learn-*.csv
 * fixtures: header detection, line endings, target choice, labels, and every
 * error with its file:line(:column).
 */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>

#include "learning/learning.h"
#include "tests/common/files.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* @text loaded as a CSV file (written to a temporary folder). */
static LearnDataset *load_text(const char *text, gsize len, const LearnCsvOptions *opt,
                               char **path_out, GError **error) {
  char *dir = test_tmpdir("csv");
  char *path = g_build_filename(dir, "t.csv", NULL);
  g_assert_true(g_file_set_contents(path, text, (gssize)len, NULL));
  LearnDataset *ds = learn_dataset_load_csv(path, opt, error);
  g_unlink(path);
  g_rmdir(dir);
  g_free(dir);
  if (path_out != NULL)
    *path_out = path;
  else
    g_free(path);
  return ds;
}

static char *fixture(const char *name) {
  const char *dir = g_getenv("DPG_TEST_DATA");
  g_assert_nonnull(dir);
  return g_build_filename(dir, name, NULL);
}

static LearnDataset *load(const char *name, const LearnCsvOptions *opt, GError **error) {
  char *path = fixture(name);
  LearnDataset *ds = learn_dataset_load_csv(path, opt, error);
  g_free(path);
  return ds;
}

/* The message must name the fixture followed by where (":3:3:", ":3:"...). */
static void assert_error(GError *error, int code, const char *name, const char *where,
                         const char *also) {
  g_assert_error(error, LEARN_ERROR, code);
  char *expect = g_strconcat(name, where, NULL);
  if (strstr(error->message, expect) == NULL)
    g_error("message '%s' lacks '%s'", error->message, expect);
  if (also != NULL && strstr(error->message, also) == NULL)
    g_error("message '%s' lacks '%s'", error->message, also);
  g_free(expect);
}

/* "x1, x2 ,\"price\"" is a header (non-numeric cells); blank trailing lines
 * are ignored; last column is the target. */
static void test_header_auto(void) {
  GError *error = NULL;
  LearnDataset *ds = load("learn-header.csv", NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 2);
  g_assert_cmpuint(ds->n_features, ==, 2);
  g_assert_cmpuint(ds->n_classes, ==, 0);
  const double x[] = {1, 2, 4.5, -5}, y[] = {3, 60};
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat(ds->features[i], ==, x[i]);
  g_assert_cmpfloat(ds->targets[0], ==, y[0]);
  g_assert_cmpfloat(ds->targets[1], ==, y[1]);
  learn_dataset_free(ds);
}

/* Target by header name (quotes and blanks trimmed), by index, from the end. */
static void test_target_choice(void) {
  const char *targets[] = {"x1", "0", "-3", "x2", "1", "price", "-1"};
  const double want_y0[] = {1, 1, 1, 2, 2, 3, 3};
  const double want_x0[][2] = {{2, 3}, {2, 3}, {2, 3}, {1, 3}, {1, 3}, {1, 2}, {1, 2}};
  for (gsize t = 0; t < G_N_ELEMENTS(targets); t++) {
    LearnCsvOptions opt = {.target = targets[t]};
    GError *error = NULL;
    LearnDataset *ds = load("learn-header.csv", &opt, &error);
    g_assert_no_error(error);
    g_assert_cmpfloat(ds->targets[0], ==, want_y0[t]);
    g_assert_cmpfloat(ds->features[0], ==, want_x0[t][0]);
    g_assert_cmpfloat(ds->features[1], ==, want_x0[t][1]);
    learn_dataset_free(ds);
  }
  const char *bad[] = {"3", "-4", "nope"};
  for (gsize t = 0; t < G_N_ELEMENTS(bad); t++) {
    LearnCsvOptions opt = {.target = bad[t]};
    GError *error = NULL;
    g_assert_null(load("learn-header.csv", &opt, &error));
    assert_error(error, LEARN_ERROR_INVALID_ARGUMENT, "learn-header.csv", ":", bad[t]);
    g_error_free(error);
  }
}

/* header=yes on a numeric first line drops it; header=no keeps it. */
static void test_header_forced(void) {
  GError *error = NULL;
  LearnCsvOptions yes = {.header = LEARN_CSV_HEADER_YES};
  LearnDataset *ds = load("learn-no-final-newline.csv", &yes, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 1);
  g_assert_cmpfloat(ds->targets[0], ==, 6);
  learn_dataset_free(ds);
  LearnCsvOptions no = {.header = LEARN_CSV_HEADER_NO};
  g_assert_null(load("learn-header.csv", &no, &error));
  assert_error(error, LEARN_ERROR_FORMAT, "learn-header.csv", ":1:1:", "x1");
  g_clear_error(&error);
}

/* The last row lacks its newline and still counts; no header detected. */
static void test_no_final_newline(void) {
  GError *error = NULL;
  LearnDataset *ds = load("learn-no-final-newline.csv", NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 2);
  g_assert_cmpuint(ds->n_features, ==, 2);
  const double x[] = {1, 2, 4, 5};
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat(ds->features[i], ==, x[i]);
  g_assert_cmpfloat(ds->targets[1], ==, 6);
  learn_dataset_free(ds);
}

static void test_crlf(void) {
  GError *error = NULL;
  LearnDataset *ds = load("learn-crlf.csv", NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 2);
  g_assert_cmpuint(ds->n_features, ==, 1);
  g_assert_cmpfloat(ds->features[1], ==, 3);
  g_assert_cmpfloat(ds->targets[1], ==, 4);
  learn_dataset_free(ds);
}

/* Labels: inferred (max 2 -> 3 classes), given, or out of range (line 3). */
static void test_labels(void) {
  GError *error = NULL;
  LearnCsvOptions autoc = {.n_classes = -1};
  LearnDataset *ds = load("learn-labels.csv", &autoc, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n_classes, ==, 3);
  g_assert_cmpuint(learn_dataset_label(ds, 1), ==, 2);
  learn_dataset_free(ds);
  LearnCsvOptions four = {.n_classes = 4};
  ds = load("learn-labels.csv", &four, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n_classes, ==, 4);
  learn_dataset_free(ds);
  LearnCsvOptions two = {.n_classes = 2};
  g_assert_null(load("learn-labels.csv", &two, &error));
  assert_error(error, LEARN_ERROR_FORMAT, "learn-labels.csv", ":2:", "0..1");
  g_clear_error(&error);
  /* Targets 0.5.. in column 0 are not labels. */
  LearnCsvOptions frac = {.n_classes = -1, .target = "0"};
  g_assert_null(load("learn-labels.csv", &frac, &error));
  assert_error(error, LEARN_ERROR_FORMAT, "learn-labels.csv", ":1:", "0.5");
  g_clear_error(&error);
}

/* The learning layer's warnings, caught. */
static void catch_warning(const char *message, gpointer data) {
  GPtrArray *caught = data;
  g_ptr_array_add(caught, g_strdup(message));
}

/* A 0/1 target trained as regression (the default) is warned about, naming
 * the option that asks for classification; the dataset stays a regression
 * one (classification is never chosen for the user). Other targets, and
 * a classification asked for, load without a word. */
static void test_two_valued_warning(void) {
  GPtrArray *caught = g_ptr_array_new_with_free_func(g_free);
  learn_set_warning_handler(catch_warning, caught);
  GError *error = NULL;
  LearnCsvOptions regression = {0};
  char *path = NULL;
  const char text[] = "x1,x2,label\n0.5,1,1\n0.25,2,0\n1.5,3,1\n";
  LearnDataset *ds = load_text(text, sizeof text - 1, &regression, &path, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n_classes, ==, 0);
  g_assert_cmpfloat(ds->targets[1], ==, 0.0);
  learn_dataset_free(ds);
  g_assert_cmpuint(caught->len, ==, 1);
  char *want = g_strdup_printf(
      "%s: the target column 'label' holds two integer values (0 and 1) and is trained as a "
      "regression target; if they are class labels, ask for classification with classes=auto "
      "in the dataset spec (csv:%s,classes=auto)",
      path, path);
  g_assert_cmpstr(g_ptr_array_index(caught, 0), ==, want);
  g_free(want);
  g_free(path);
  /* Without a header the column is named by its index. */
  const char plain[] = "0.5,2\n0.25,-1\n";
  ds = load_text(plain, sizeof plain - 1, &regression, NULL, &error);
  g_assert_no_error(error);
  learn_dataset_free(ds);
  g_assert_cmpuint(caught->len, ==, 2);
  g_assert_nonnull(strstr(g_ptr_array_index(caught, 1), "column 1 holds two integer values (-1 "
                                                        "and 2)"));
  /* Three values, a fraction, or classification asked for: no warning. */
  const char three[] = "0.5,0\n0.25,1\n1,2\n", frac[] = "0.5,0\n0.25,1.5\n";
  LearnCsvOptions classes = {.n_classes = -1};
  ds = load_text(three, sizeof three - 1, &regression, NULL, &error);
  learn_dataset_free(ds);
  ds = load_text(frac, sizeof frac - 1, &regression, NULL, &error);
  learn_dataset_free(ds);
  ds = load_text(text, sizeof text - 1, &classes, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n_classes, ==, 2);
  learn_dataset_free(ds);
  g_assert_cmpuint(caught->len, ==, 2);
  learn_set_warning_handler(NULL, NULL);
  g_ptr_array_unref(caught);
}

static void test_errors(void) {
  GError *error = NULL;
  g_assert_null(load("learn-bad-cell.csv", NULL, &error));
  /* "4,x7,6": the cell x7 starts at byte 3 of line 3. */
  assert_error(error, LEARN_ERROR_FORMAT, "learn-bad-cell.csv", ":3:3:", "'x7'");
  g_clear_error(&error);

  g_assert_null(load("learn-ragged.csv", NULL, &error));
  assert_error(error, LEARN_ERROR_FORMAT, "learn-ragged.csv", ":3:", "expected 3 fields");
  g_assert_nonnull(strstr(error->message, "got 2"));
  g_clear_error(&error);

  g_assert_null(load("learn-empty.csv", NULL, &error));
  assert_error(error, LEARN_ERROR_EMPTY, "learn-empty.csv", ":", "empty");
  g_clear_error(&error);

  g_assert_null(load("learn-header-only.csv", NULL, &error));
  assert_error(error, LEARN_ERROR_EMPTY, "learn-header-only.csv", ":", "no data rows");
  g_clear_error(&error);

  g_assert_null(load("learn-blank-inside.csv", NULL, &error));
  assert_error(error, LEARN_ERROR_FORMAT, "learn-blank-inside.csv", ":2:", "blank line");
  g_clear_error(&error);

  g_assert_null(load("learn-does-not-exist.csv", NULL, &error));
  assert_error(error, LEARN_ERROR_IO, "learn-does-not-exist.csv", "", NULL);
  g_clear_error(&error);
}

/* A byte order mark made the first row a header (a record lost), or a
 * header name unmatchable. */
static void test_bom(void) {
  GError *error = NULL;
  const char rows[] = "\xef\xbb\xbf"
                      "1,2,3\n4,5,6\n";
  LearnDataset *ds = load_text(rows, sizeof rows - 1, NULL, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 2);
  g_assert_cmpfloat(ds->features[0], ==, 1.0);
  g_assert_cmpfloat(ds->targets[0], ==, 3.0);
  learn_dataset_free(ds);
  const char named[] = "\xef\xbb\xbf"
                       "a,b,y\n1,2,3\n";
  LearnCsvOptions opt = {.target = "a"};
  ds = load_text(named, sizeof named - 1, &opt, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 1);
  g_assert_cmpfloat(ds->targets[0], ==, 1.0);
  g_assert_cmpfloat(ds->features[0], ==, 2.0);
  learn_dataset_free(ds);
}

/* Values whose squares overflow trained to NaN with exit 0; an infinite
 * value on the first line was taken for a header. */
static void test_overflow(void) {
  struct {
    const char *text, *where, *also;
  } cases[] = {
      {"1,2,3\n4,1e200,6\n", ":2: field 2 (1e+200) is too large", "of its column overflows"},
      {"1,2,3\n1e154,1.2e154,6\n", ":2: field 2 (1.2e+154) is too large", "of its row overflows"},
      {"1,2,3\n4,5,1e300\n", ":2: field 3 (1e+300) is too large", "of its column"},
      {"1e309,2,3\n4,5,6\n", ":1:1: field 1 ('1e309') is not a finite number", NULL},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    GError *error = NULL;
    char *path = NULL;
    g_assert_null(load_text(cases[i].text, strlen(cases[i].text), NULL, &path, &error));
    char *want = g_strconcat(path, cases[i].where, NULL);
    g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
    if (!g_str_has_prefix(error->message, want) ||
        (cases[i].also != NULL && strstr(error->message, cases[i].also) == NULL))
      g_error("case %zu: '%s' does not start with '%s' or lacks '%s'", i, error->message, want,
              cases[i].also);
    g_free(want);
    g_free(path);
    g_clear_error(&error);
  }
  /* the target column is counted in the field number */
  LearnCsvOptions opt = {.target = "0"};
  GError *error = NULL;
  const char *t = "1,2,3\n4,5,1e300\n";
  char *path = NULL;
  g_assert_null(load_text(t, strlen(t), &opt, &path, &error));
  char *want = g_strconcat(path, ":2: field 3 (1e+300)", NULL);
  g_assert_true(g_str_has_prefix(error->message, want));
  g_free(want);
  g_free(path);
  g_clear_error(&error);
}

/* The memory a table takes is checked from its lines and columns before
 * the lines are split: 8,000,001 lines of 2 values need 896 MB (text, line
 * table, records and the split's permutation), over a 512 MB address space (GLib aborted there). */
static void test_memory_precheck(void) {
#ifdef UNDER_ASAN
  g_test_skip("an address-space limit and AddressSanitizer's shadow memory do not mix");
  return;
#endif
  if (!g_test_subprocess()) {
    g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed();
    return;
  }
  gsize lines = 8000000;
  char *text = g_malloc(4 * lines);
  for (gsize i = 0; i < lines; i++)
    memcpy(text + 4 * i, "0,0\n", 4);
  char *dir = test_tmpdir("csv");
  char *path = g_build_filename(dir, "big.csv", NULL);
  g_assert_true(g_file_set_contents(path, text, (gssize)(4 * lines), NULL));
  g_free(text);
  struct rlimit rl = {(rlim_t)512 << 20, (rlim_t)512 << 20};
  g_assert_cmpint(setrlimit(RLIMIT_AS, &rl), ==, 0);
  GError *error = NULL;
  g_assert_null(learn_dataset_load_csv(path, NULL, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "(8000001 lines of 2 values) would need 896.0 MB"));
  g_clear_error(&error);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

/* The same files through learn_data_load's csv: spec. */
static void test_spec(void) {
  char *path = fixture("learn-labels.csv");
  char *spec = g_strdup_printf("csv:%s,classes=auto,header=no", path);
  LearnDataset *tr, *te;
  GError *error = NULL;
  g_assert_true(learn_data_load(spec, 0.25, 1, &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(tr->n, ==, 3);
  g_assert_cmpuint(te->n, ==, 1);
  g_assert_cmpuint(tr->n_classes, ==, 3);
  g_assert_cmpuint(te->n_classes, ==, 3);
  learn_dataset_free(tr);
  learn_dataset_free(te);
  g_free(spec);

  const char *bad[] = {"header=maybe", "classes=1", "classes=x", "colour=red", "standardize=2"};
  const int codes[] = {LEARN_ERROR_PARSE, LEARN_ERROR_INVALID_ARGUMENT, LEARN_ERROR_PARSE,
                       LEARN_ERROR_PARSE, LEARN_ERROR_PARSE};
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    spec = g_strdup_printf("csv:%s,%s", path, bad[i]);
    g_assert_false(learn_data_load(spec, 0.25, 1, &tr, &te, &error));
    g_assert_error(error, LEARN_ERROR, codes[i]);
    g_assert_null(tr);
    g_assert_null(te);
    g_clear_error(&error);
    g_free(spec);
  }
  g_free(path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/learning/csv/header-auto", test_header_auto);
  g_test_add_func("/learning/csv/target-choice", test_target_choice);
  g_test_add_func("/learning/csv/header-forced", test_header_forced);
  g_test_add_func("/learning/csv/no-final-newline", test_no_final_newline);
  g_test_add_func("/learning/csv/crlf", test_crlf);
  g_test_add_func("/learning/csv/labels", test_labels);
  g_test_add_func("/learning/csv/two-valued-warning", test_two_valued_warning);
  g_test_add_func("/learning/csv/errors", test_errors);
  g_test_add_func("/learning/csv/spec", test_spec);
  g_test_add_func("/learning/csv/bom", test_bom);
  g_test_add_func("/learning/csv/overflow", test_overflow);
  g_test_add_func("/learning/csv/memory-precheck", test_memory_precheck);
  return g_test_run();
}
