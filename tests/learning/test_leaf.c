/*
 * tests/learning/test_leaf.c: the LEAF JSON loader (FEMNIST's format) on
 * small files written here, its FILE:LINE errors, the leaf: dataset spec,
 * and the partition specs (uniform, dirichlet, classes:k, users:k).
 */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>

#include "learning/learning.h"
#include "tests/common/files.h"
#include "tests/common/checks.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static char *tmpdir;

/* Two users of 2x2 images: u1 has 2 images, u0 has 1 (listed second). */
static const char *const TWO_USERS = "{\"users\": [\"u1\", \"u0\"], \"num_samples\": [2, 1],\n"
                                     " \"user_data\": {\n"
                                     "  \"u0\": {\"x\": [[0.5, 0.25, 0, 1]], \"y\": [3]},\n"
                                     "  \"u1\": {\"x\": [[1, 2, 3, 4],\n"
                                     "                 [0.1, 0.2, 0.3, 0.4]], \"y\": [0, 2]}\n"
                                     " }}\n";

static void test_load(void) {
  char *path = test_write_file(tmpdir, "one.json", TWO_USERS, -1);
  GError *error = NULL;
  guint *user_of = NULL;
  GPtrArray *names = NULL;
  LearnDataset *ds = learn_dataset_load_leaf(path, 0, &user_of, &names, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 3);
  g_assert_cmpuint(ds->n_features, ==, 4);
  g_assert_cmpuint(ds->n_classes, ==, 4); /* 1 + the largest label */
  const double want[] = {1, 2, 3, 4, 0.1, 0.2, 0.3, 0.4, 0.5, 0.25, 0, 1};
  for (gsize i = 0; i < 12; i++)
    g_assert_cmpfloat(ds->features[i], ==, want[i]);
  g_assert_cmpfloat(ds->targets[0], ==, 0);
  g_assert_cmpfloat(ds->targets[1], ==, 2);
  g_assert_cmpfloat(ds->targets[2], ==, 3);
  g_assert_cmpuint(names->len, ==, 2);
  g_assert_cmpstr(names->pdata[0], ==, "u1");
  g_assert_cmpstr(names->pdata[1], ==, "u0");
  g_assert_cmpuint(user_of[0], ==, 0);
  g_assert_cmpuint(user_of[1], ==, 0);
  g_assert_cmpuint(user_of[2], ==, 1);
  g_assert_cmpuint(ds->n_users, ==, 2);
  g_assert_cmpmem(ds->users, 3 * sizeof(guint), user_of, 3 * sizeof(guint));
  g_free(user_of);
  g_ptr_array_unref(names);
  learn_dataset_free(ds);

  /* limit */
  ds = learn_dataset_load_leaf(path, 2, NULL, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 2);
  g_assert_cmpuint(ds->n_users, ==, 1);
  learn_dataset_free(ds);

  /* a folder: its .json files in name order, users numbered across files */
  g_free(test_write_file(tmpdir, "dir/b.json", TWO_USERS, -1));
  g_free(test_write_file(tmpdir, "dir/a.json",
                         "{\"users\": [\"w\"], \"user_data\": {\"w\": {\"x\": [[9, 9, 9, "
                         "9]], \"y\": [1]}}}",
                         -1));
  g_free(test_write_file(tmpdir, "dir/notes.txt", "not read", -1));
  char *dir = g_build_filename(tmpdir, "dir", NULL);
  ds = learn_dataset_load_leaf(dir, 0, &user_of, &names, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(ds->n, ==, 4);
  g_assert_cmpfloat(ds->features[0], ==, 9);
  g_assert_cmpstr(names->pdata[0], ==, "w");
  g_assert_cmpuint(user_of[3], ==, 2);
  g_free(user_of);
  g_ptr_array_unref(names);
  learn_dataset_free(ds);
  g_free(dir);
  g_free(path);
}

static void test_errors(void) {
  struct {
    const char *text;
    gint code;
    const char *where; /* "FILE:LINE" suffix expected after the path */
    const char *part;
  } bad[] = {
      /* json-glib's parse error: line 2 */
      {"{\"users\": [],\n \"user_data\": {,}}", LEARN_ERROR_FORMAT, ":2:", ""},
      {"[1, 2]", LEARN_ERROR_FORMAT, ":1:", "not a LEAF file"},
      {"{\"users\": [\"a\"],\n \"user_data\": {}}", LEARN_ERROR_FORMAT, ":1:", "no entry"},
      {"{\"users\": [\"a\"], \"user_data\": {\"a\":\n {\"x\": [[1, 2],\n [3]],\n \"y\": [0, 1]}}}",
       LEARN_ERROR_FORMAT, ":3:", "x[1] has 1 features, expected 2"},
      {"{\"users\": [\"a\"], \"user_data\": {\"a\":\n {\"x\": [[1, 2],\n [3, \"p\"]],\n \"y\": [0, "
       "1]}}}",
       LEARN_ERROR_FORMAT, ":3:", "x[1][1] is not a finite number"},
      {"{\"users\": [\"a\"], \"user_data\": {\"a\":\n {\"x\": [[1, 2]],\n \"y\": [0, 1]}}}",
       LEARN_ERROR_FORMAT, ":3:", "1 images but 2 labels"},
      {"{\"users\": [\"a\"], \"user_data\": {\"a\":\n {\"x\": [[1, 2]],\n \"y\": [0.5]}}}",
       LEARN_ERROR_FORMAT, ":3:", "y[0] is not a label"},
      {"{\"users\": [\"a\"], \"user_data\": {\"a\":\n {\"x\": [[1, 2]]}}}", LEARN_ERROR_FORMAT,
       ":1:", "needs arrays"},
      {"{\"users\": [], \"user_data\": {}}", LEARN_ERROR_EMPTY, ":", "no record"},
      /* json-glib keeps the last of two equal keys: u0's first records were lost */
      {"{\"users\": [\"a\"], \"user_data\": {\"a\": {\"x\": [[1]], \"y\": [0]},\n"
       "\"a\": {\"x\": [[2]], \"y\": [1]}}}",
       LEARN_ERROR_FORMAT, ":2:", "key 'a' appears twice"},
      /* json-glib read the first document and ignored the second */
      {"{\"users\": [\"a\"], \"user_data\": {\"a\": {\"x\": [[1]], \"y\": [0]}}}\n\n"
       "{\"users\": []}",
       LEARN_ERROR_FORMAT, ":3:", "text after the end of the JSON document"},
      {"{\"users\": [\"a\", \"b\",\n \"a\"], \"user_data\": {\"a\": {\"x\": [[1]], "
       "\"y\": [0]}, \"b\": {\"x\": [[1]], \"y\": [1]}}}",
       LEARN_ERROR_FORMAT, ":2:", "user 'a' is listed twice"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *path = test_write_file(tmpdir, "bad.json", bad[i].text, -1);
    GError *error = NULL;
    g_assert_null(learn_dataset_load_leaf(path, 0, NULL, NULL, &error));
    g_assert_error(error, LEARN_ERROR, bad[i].code);
    char *prefix = g_strconcat(path, bad[i].where, NULL);
    if (!g_str_has_prefix(error->message, prefix) || strstr(error->message, bad[i].part) == NULL)
      g_error("case %zu: '%s' does not start with '%s' or lacks '%s'", i, error->message, prefix,
              bad[i].part);
    g_free(prefix);
    g_error_free(error);
    g_free(path);
  }
  GError *error = NULL;
  char *missing = g_build_filename(tmpdir, "missing.json", NULL);
  g_assert_null(learn_dataset_load_leaf(missing, 0, NULL, NULL, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_IO);
  g_clear_error(&error);
  g_free(missing);
  char *empty = g_build_filename(tmpdir, "emptydir", NULL);
  g_mkdir(empty, 0700);
  g_assert_null(learn_dataset_load_leaf(empty, 0, NULL, NULL, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_EMPTY);
  g_clear_error(&error);
  g_free(empty);
}

/* A file nested 100,000 deep overflowed json-glib's recursion (SIGSEGV). */
static void test_deep(void) {
  gsize deep = 100000;
  GString *s = g_string_new("{\"users\": ");
  for (gsize i = 0; i < deep; i++)
    g_string_append_c(s, '[');
  for (gsize i = 0; i < deep; i++)
    g_string_append_c(s, ']');
  g_string_append(s, ", \"user_data\": {}}");
  char *path = test_write_file(tmpdir, "deep.json", s->str, -1);
  g_string_free(s, TRUE);
  GError *error = NULL;
  g_assert_null(learn_dataset_load_leaf(path, 0, NULL, NULL, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
  g_assert_nonnull(strstr(error->message, "more than 16 deep"));
  g_clear_error(&error);
  g_free(path);
}

/* One writer in two files of a folder: its records would go to two nodes. */
static void test_user_in_two_files(void) {
  char *a = test_write_file(tmpdir, "twofiles/a.json",
                            "{\"users\": [\"w\"], \"user_data\": "
                            "{\"w\": {\"x\": [[1, 2]], \"y\": [0]}}}",
                            -1);
  char *b = test_write_file(tmpdir, "twofiles/b.json",
                            "{\"users\": [\"v\", \"w\"], \"user_data\": "
                            "{\"v\": {\"x\": [[1, 2]], \"y\": [1]},"
                            " \"w\": {\"x\": [[3, 4]], \"y\": [1]}}}",
                            -1);
  char *dir = g_path_get_dirname(a);
  GError *error = NULL;
  g_assert_null(learn_dataset_load_leaf(dir, 0, NULL, NULL, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
  char *want = g_strdup_printf("%s:1: user 'w' is listed twice (first in %s)", b, a);
  if (!g_str_has_prefix(error->message, want))
    g_error("'%s' does not start with '%s'", error->message, want);
  g_free(want);
  g_clear_error(&error);
  g_free(dir);
  g_free(a);
  g_free(b);
}

/* The memory the document tree takes is checked before json-glib builds it:
 * 5,000,000 values (a 10 MB file) need about 650 MB (10 MB of text, 128 bytes a value), over a 512 MB
 * address-space limit (json-glib aborted at the limit). */
static void test_memory_precheck(void) {
#ifdef UNDER_ASAN
  g_test_skip("an address-space limit and AddressSanitizer's shadow memory do not mix");
  return;
#endif
  if (g_test_subprocess()) {
    GString *s = g_string_new("{\"users\": [\"a\"], \"user_data\": {\"a\": {\"x\": [[0");
    for (guint i = 1; i < 5000000; i++)
      g_string_append(s, ",0");
    g_string_append(s, "]], \"y\": [0]}}}");
    char *path = test_write_file(tmpdir, "big.json", s->str, -1);
    g_string_free(s, TRUE);
    struct rlimit rl = {(rlim_t)512 << 20, (rlim_t)512 << 20};
    g_assert_cmpint(setrlimit(RLIMIT_AS, &rl), ==, 0);
    GError *error = NULL;
    g_assert_null(learn_dataset_load_leaf(path, 0, NULL, NULL, &error));
    g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(error->message, "would need 650.0 MB"));
    g_clear_error(&error);
    g_free(path);
    return;
  }
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* users u0..u(U-1), user u has 3 + u % 3 images of label u % 5 */
static char *many_users(const char *name, guint U) {
  GString *s = g_string_new("{\"users\": [");
  for (guint u = 0; u < U; u++)
    g_string_append_printf(s, "%s\"u%u\"", u ? ", " : "", u);
  g_string_append(s, "], \"user_data\": {");
  for (guint u = 0; u < U; u++) {
    g_string_append_printf(s, "%s\"u%u\": {\"x\": [", u ? ", " : "", u);
    guint m = 3 + u % 3;
    for (guint i = 0; i < m; i++)
      g_string_append_printf(s, "%s[%u, %u, 0, 1]", i ? ", " : "", u, i);
    g_string_append(s, "], \"y\": [");
    for (guint i = 0; i < m; i++)
      g_string_append_printf(s, "%s%u", i ? ", " : "", u % 5);
    g_string_append(s, "]}");
  }
  g_string_append(s, "}}");
  char *path = test_write_file(tmpdir, name, s->str, -1);
  g_string_free(s, TRUE);
  return path;
}

static void test_spec_and_users_partition(void) {
  char *path = many_users("split/train/all.json", 40);
  g_free(many_users("split/test/all.json", 4));
  char *root = g_build_filename(tmpdir, "split", NULL);
  char *spec = g_strdup_printf("leaf:%s", root);
  LearnDataset *tr, *te;
  GError *error = NULL;
  g_assert_true(learn_data_spec_check(spec, &error));
  g_assert_true(learn_data_load(spec, 0.5, 1, &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(tr->n, ==, 40 * 3 + 13 * 1 + 13 * 2); /* u%3 = 1: 13 users, 2: 13 */
  g_assert_cmpuint(te->n, ==, 3 + 4 + 5 + 3);            /* LEAF's own test folder */
  g_assert_cmpuint(tr->n_classes, ==, 5);
  g_assert_cmpuint(tr->n_users, ==, 40);

  /* users:k=3 over 10 nodes: 30 of the 40 users, whole */
  LearnPartition *p = learn_partition_new("users:k=3", tr, 10, 3, 7, &error);
  g_assert_no_error(error);
  gsize dealt = 0;
  guint *owner = g_new(guint, tr->n_users);
  for (guint i = 0; i < tr->n_users; i++)
    owner[i] = G_MAXUINT;
  for (guint u = 0; u < 10; u++) {
    gsize count;
    const gsize *r = learn_partition_node(p, u, &count);
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (gsize i = 0; i < count; i++) {
      guint w = tr->users[r[i]];
      g_assert_true(owner[w] == G_MAXUINT || owner[w] == u);
      owner[w] = u;
      g_hash_table_add(seen, GUINT_TO_POINTER(w + 1));
    }
    g_assert_cmpuint(g_hash_table_size(seen), ==, 3);
    g_hash_table_destroy(seen);
    dealt += count;
  }
  /* every record of a dealt user is dealt */
  gsize want = 0;
  for (gsize i = 0; i < tr->n; i++)
    want += owner[tr->users[i]] != G_MAXUINT;
  g_assert_cmpuint(dealt, ==, want);
  g_assert_cmpuint(p->n_records, ==, want);
  learn_partition_free(p);
  g_free(owner);
  /* too many nodes for the users, too many batches for a node */
  g_assert_null(learn_partition_new("users:k=5", tr, 10, 3, 7, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  g_assert_null(learn_partition_new("users:k=1", tr, 10, 4, 7, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "hold only 3 records"));
  g_clear_error(&error);
  /* a dataset without users */
  LearnDataset *plain = learn_dataset_new(100, 2, 3);
  g_assert_null(learn_partition_new("users:k=1", plain, 4, 1, 7, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  learn_dataset_free(plain);
  learn_dataset_free(tr);
  learn_dataset_free(te);

  /* one file: split by test_fraction, users kept through the split */
  g_free(spec);
  spec = g_strdup_printf("leaf:%s", path);
  g_assert_true(learn_data_load(spec, 0.25, 1, &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(tr->n + te->n, ==, 159);
  g_assert_nonnull(te->users);
  for (gsize i = 0; i < tr->n; i++) /* user u's images have x0 = u */
    g_assert_cmpfloat(tr->features[i * 4], ==, tr->users[i]);
  learn_dataset_free(tr);
  learn_dataset_free(te);
  g_free(spec);
  g_free(root);
  g_free(path);
}

static LearnDataset *labelled(gsize n, guint C) {
  LearnDataset *ds = learn_dataset_new(n, 1, C);
  for (gsize i = 0; i < n; i++)
    ds->targets[i] = (double)((i * 7) % C);
  return ds;
}

static void test_partition_specs(void) {
  LearnDataset *ds = labelled(1000, 10);
  GError *error = NULL;
  /* classes:k=2: equal sizes, every record once, at most 2k labels a node
   * and on average close to k */
  LearnPartition *p = learn_partition_new("classes:k=2", ds, 20, 5, 3, &error);
  g_assert_no_error(error);
  gboolean *used = g_new0(gboolean, ds->n);
  gsize labels_total = 0;
  for (guint u = 0; u < 20; u++) {
    gsize count;
    const gsize *r = learn_partition_node(p, u, &count);
    g_assert_cmpuint(count, ==, 50);
    gboolean has[10] = {0};
    gsize distinct = 0;
    for (gsize i = 0; i < count; i++) {
      g_assert_false(used[r[i]]);
      used[r[i]] = TRUE;
      if (!has[learn_dataset_label(ds, r[i])])
        distinct++;
      has[learn_dataset_label(ds, r[i])] = TRUE;
    }
    g_assert_cmpuint(distinct, <=, 4);
    labels_total += distinct;
  }
  /* 40 pieces of 25 over 10 runs of 100: pieces straddle at most 10 borders */
  g_assert_cmpuint(labels_total, <=, 40 + 10);
  g_free(used);
  learn_partition_free(p);

  /* the spec forms equal the functions */
  LearnPartition *a = learn_partition_new("dirichlet:alpha=0.5", ds, 20, 5, 3, &error);
  LearnPartition *b = learn_partition_dirichlet(ds, 20, 5, 0.5, 3, &error);
  g_assert_no_error(error);
  g_assert_cmpmem(a->records, ds->n * sizeof(gsize), b->records, ds->n * sizeof(gsize));
  learn_partition_free(a);
  learn_partition_free(b);
  a = learn_partition_new(NULL, ds, 20, 5, 3, &error);
  b = learn_partition_uniform(ds->n, 20, 5, 3, &error);
  g_assert_cmpmem(a->records, ds->n * sizeof(gsize), b->records, ds->n * sizeof(gsize));
  learn_partition_free(a);
  learn_partition_free(b);

  struct {
    const char *spec;
    gint code;
  } bad[] = {
      {"shards:k=2", LEARN_ERROR_PARSE},
      {"dirichlet", LEARN_ERROR_PARSE},
      {"dirichlet:alpha=0", LEARN_ERROR_INVALID_ARGUMENT},
      {"classes:k=0", LEARN_ERROR_INVALID_ARGUMENT},
      {"classes:n=2", LEARN_ERROR_PARSE},
      {"uniform:k=2", LEARN_ERROR_PARSE},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_false(learn_partition_spec_check(bad[i].spec, &error));
    g_assert_error(error, LEARN_ERROR, bad[i].code);
    g_clear_error(&error);
    g_assert_null(learn_partition_new(bad[i].spec, ds, 20, 5, 3, &error));
    g_assert_error(error, LEARN_ERROR, bad[i].code);
    g_clear_error(&error);
  }
  learn_dataset_free(ds);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  tmpdir = test_tmpdir("leaf");
  g_test_add_func("/learning/leaf/load", test_load);
  g_test_add_func("/learning/leaf/errors", test_errors);
  g_test_add_func("/learning/leaf/deep", test_deep);
  g_test_add_func("/learning/leaf/user-in-two-files", test_user_in_two_files);
  g_test_add_func("/learning/leaf/memory-precheck", test_memory_precheck);
  g_test_add_func("/learning/leaf/spec-and-users-partition", test_spec_and_users_partition);
  g_test_add_func("/learning/partition/specs", test_partition_specs);
  int status = g_test_run();
  char *argv_rm[] = {"rm", "-rf", tmpdir, NULL};
  g_spawn_sync(NULL, argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(tmpdir);
  return status;
}
