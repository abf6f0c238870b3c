/*
 * tests/mf/test_matrix_csv.c: matrices written to CSV read back exactly,
 * malformed files refused with FILE:LINE[:COLUMN], and a user's C_local
 * checked (size, triangle, diagonal) and normalized by mf_read_c; C-sets
 * (one C per class of nodes) written and read back exactly, each class's C
 * as mf_read_c gives it, and every bad map refused with FILE:LINE.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "mf/mf.h"
#include "tests/common/files.h"

static void test_csv(void) {
  GError *err = NULL;
  char *dir = test_tmpdir("mf-csv");
  char *path = g_build_filename(dir, "C.csv", NULL);
  double M[] = {1.0, -2.5e-300, 3.0, 1.0 / 3.0, 0.0, -7.0};
  g_assert_true(mf_matrix_write_csv(path, M, 2, 3, &err));
  guint rows, cols;
  double *R = mf_matrix_read_csv(path, &rows, &cols, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(rows, ==, 2);
  g_assert_cmpuint(cols, ==, 3);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat(R[i], ==, M[i]); /* exact */
  g_free(R);

  const struct {
    const char *text, *needle;
  } bad[] = {{"1,2\n3\n", ":2:"},
             {"1,x\n", "'x'"},
             {"", "empty"},
             {"1,,2\n", ":1:"},
             {"1,nan\n", "'nan'"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_true(g_file_set_contents(path, bad[i].text, -1, NULL));
    g_assert_null(mf_matrix_read_csv(path, &rows, &cols, &err));
    g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(err->message, bad[i].needle));
    g_assert_nonnull(strstr(err->message, path));
    g_clear_error(&err);
  }
  /* CRLF and blank lines are fine. */
  g_assert_true(g_file_set_contents(path, "1, 2\r\n\r\n3,4\r\n", -1, NULL));
  R = mf_matrix_read_csv(path, &rows, &cols, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(rows, ==, 2);
  g_assert_cmpfloat(R[3], ==, 4.0);
  g_free(R);
  /* mf_read_c: T x T lower triangular, nonzero diagonal; positions are
   * file lines and columns (blank lines counted), rounding residue above the
   * diagonal is cleared, and C comes divided by its largest |entry| (the
   * same mechanism: see test_extremes.c). */
  g_assert_true(g_file_set_contents(path, "2,1e-17\n\n1,3\n", -1, NULL));
  R = mf_read_c(path, 2, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(R[1], ==, 0.0);
  g_assert_cmpfloat(R[2], ==, 1.0 / 3.0);
  g_assert_cmpfloat(R[3], ==, 1.0);
  g_free(R);
  const struct {
    const char *text, *needle;
    guint T;
  } badc[] = {{"1,0\n0,1\n", ": C is 2 x 2, expected 3 x 3", 3},
              {"1,0\n\n0.5,0,0.25\n", ":3: 3 values where the rows above have 2", 2},
              {"1,0\n\n1,0\n", ":3:2: C[1,1] = 0: C must have a nonzero diagonal", 2},
              {"1,0.5\n1,1\n", ":1:2: C[0,1] = 0.5 lies above the diagonal", 2},
              {"1,0\n1,y\n", ":2:2: not a finite number: 'y'", 2}};
  for (guint i = 0; i < G_N_ELEMENTS(badc); i++) {
    g_assert_true(g_file_set_contents(path, badc[i].text, -1, NULL));
    g_assert_null(mf_read_c(path, badc[i].T, &err));
    g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
    if (strstr(err->message, badc[i].needle) == NULL || strstr(err->message, path) == NULL)
      g_error("'%s' lacks '%s'", err->message, badc[i].needle);
    g_clear_error(&err);
  }
  g_remove(path);
  g_assert_null(mf_matrix_read_csv(path, &rows, &cols, &err));
  g_assert_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error(&err);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

static void test_cset(void) {
  GError *err = NULL;
  char *dir = test_tmpdir("mf-cset");
  char *path = g_build_filename(dir, "set.csv", NULL);
  /* Two classes, T = 2, three nodes; class 1's C is 4 times a matrix whose
   * largest entry is 1, so it comes back divided by 4. */
  double C[] = {2.0, 0.0, 1.0, 1.0, 4.0, 0.0, -2.0, 1.0};
  guint cls[] = {1, 0, 1};
  MfCSet set = {.n_classes = 2, .n_nodes = 3, .T = 2, .C = C, .node_class = cls};
  g_assert_true(mf_cset_write(path, &set, &err));
  g_assert_true(mf_cset_is_file(path));
  MfCSet got;
  g_assert_true(mf_cset_read(path, 2, 3, &got, &err));
  g_assert_no_error(err);
  g_assert_cmpuint(got.n_classes, ==, 2);
  const double want[] = {1.0, 0.0, 0.5, 0.5, 1.0, 0.0, -0.5, 0.25};
  for (guint i = 0; i < 8; i++)
    g_assert_cmpfloat(got.C[i], ==, want[i]);
  g_assert_cmpmem(got.node_class, sizeof cls, cls, sizeof cls);
  mf_cset_clear(&got);
  /* A plain C is not a C-set. */
  g_assert_true(g_file_set_contents(path, "1,0\n0,1\n", -1, NULL));
  g_assert_false(mf_cset_is_file(path));
  const char *head = "# two classes\ncset,2,2\nclass,0\n1,0\n0,1\nclass,1\n2,0\n1,1\n";
  const struct {
    const char *tail, *needle;
    guint T, n;
  } bad[] = {
      {"node,0,0\nnode,1,1\n", ": node 2 has no class", 2, 3},
      {"node,0,0\nnode,1,2\nnode,2,0\n", ":10: node 1's class 2 has no C", 2, 3},
      {"node,0,0\nnode,0,1\nnode,2,0\n", ":10: node 0's class again (first at line 9)", 2, 3},
      {"node,0,0\nnode,3,1\n", ":10: node 3, but the graph has 3 nodes", 2, 3},
      {"node,0,x\n", ":9: a node's line is 'node,NODE,CLASS'", 2, 3},
      {"node,0,0\n", ":2: the C-set's C are for T = 2 steps, the run has T = 3", 3, 1},
      {"nodes\n", ":9: 'nodes': a C-set line is", 2, 1},
  };
  char *text;
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    text = g_strconcat(head, bad[i].tail, NULL);
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    g_free(text);
    g_assert_false(mf_cset_read(path, bad[i].T, bad[i].n, &got, &err));
    g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
    if (strstr(err->message, bad[i].needle) == NULL || strstr(err->message, path) == NULL)
      g_error("'%s' lacks '%s'", err->message, bad[i].needle);
    g_clear_error(&err);
    g_assert_null(got.C);
  }
  const struct {
    const char *text, *needle;
  } badc[] = {
      {"cset,2,2\nclass,0\n1,0\n0,1\nnode,0,0\n", ": class 1 has no C (no 'class,1'"},
      {"cset,1,2\nclass,0\n1,0\nnode,0,0\n", ":4: class 0 has 1 rows of C, T = 2 are needed"},
      {"cset,1,2\nclass,0\n1,0,0\n", ":3: class 0's row 0 has 3 values, T = 2"},
      {"cset,1,2\nclass,0\n1,0.5\n1,1\nnode,0,0\n", ":3:2: class 0's C[0,1] = 0.5 lies above"},
      {"cset,1,2\nclass,0\n1,0\n1,0\nnode,0,0\n", ":4:2: class 0's C[1,1] = 0"},
      {"cset,1,2\nclass,1\n", ":2: 'class,C' needs a class C from 0 to 0"},
      {"cset,1,2\nclass,0\n1,0\n0,1\nclass,0\n", ":5: class 0's C again (first at line 2)"},
      {"cset,0,2\n", ":1: a C-set starts with 'cset,CLASSES,T'"},
      {"# only a comment\n", ":1: no C-set in the file"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(badc); i++) {
    g_assert_true(g_file_set_contents(path, badc[i].text, -1, NULL));
    g_assert_false(mf_cset_read(path, 2, 1, &got, &err));
    g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
    if (strstr(err->message, badc[i].needle) == NULL || strstr(err->message, path) == NULL)
      g_error("'%s' lacks '%s'", err->message, badc[i].needle);
    g_clear_error(&err);
  }
  g_remove(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mf/matrix_csv", test_csv);
  g_test_add_func("/mf/cset", test_cset);
  return g_test_run();
}
