/*
 * tests/learning/test_idx.c: IDX (MNIST format) files written here to a
 * temporary directory, gzipped and plain: round trip, directory layout,
 * limit, bad magic, count mismatch and truncation errors. Plus a read of the
 * installed Fashion-MNIST when present.
 */
#include <glib/gstdio.h>
#include <string.h>
#include <zlib.h>

#include "learning/learning.h"
#include "tests/common/checks.h"
#include "tests/common/files.h"

enum { N = 5, ROWS = 3, COLS = 2 };

static void put32(GByteArray *b, guint32 v) {
  guint8 x[4] = {(guint8)(v >> 24), (guint8)(v >> 16), (guint8)(v >> 8), (guint8)v};
  g_byte_array_append(b, x, 4);
}

/* Pixel j of image i: a spread of byte values; image 0 starts with 0 and the
 * last image is all 255, so both ends of [0, 1] are reached. */
static guint8 pixel(guint i, guint j) {
  if (i == N - 1)
    return 255;
  return (guint8)((i * 53 + j * 41 + (i + j > 0 ? 1 : 0)) % 256);
}

static guint8 label(guint i) {
  return (guint8)((i * 3) % 4); /* 0 3 2 1 0: four classes */
}

static GByteArray *image_file(guint n) {
  GByteArray *b = g_byte_array_new();
  put32(b, 0x00000803);
  put32(b, n);
  put32(b, ROWS);
  put32(b, COLS);
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < ROWS * COLS; j++) {
      guint8 p = pixel(i, j);
      g_byte_array_append(b, &p, 1);
    }
  return b;
}

static GByteArray *label_file(guint n) {
  GByteArray *b = g_byte_array_new();
  put32(b, 0x00000801);
  put32(b, n);
  for (guint i = 0; i < n; i++) {
    guint8 l = label(i);
    g_byte_array_append(b, &l, 1);
  }
  return b;
}

static void rmdir_all(char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    char *p = g_build_filename(dir, name, NULL);
    g_assert_cmpint(g_remove(p), ==, 0);
    g_free(p);
  }
  g_dir_close(d);
  g_assert_cmpint(g_rmdir(dir), ==, 0);
  g_free(dir);
}

static void check_values(const LearnDataset *ds, guint n) {
  g_assert_cmpuint(ds->n, ==, n);
  g_assert_cmpuint(ds->n_features, ==, ROWS * COLS);
  for (guint i = 0; i < n; i++) {
    for (guint j = 0; j < ROWS * COLS; j++)
      g_assert_cmpfloat(ds->features[i * ROWS * COLS + j], ==, pixel(i, j) / 255.0);
    g_assert_cmpfloat(ds->targets[i], ==, label(i));
  }
}

static void test_roundtrip(gconstpointer gz) {
  char *dir = test_tmpdir("learn-idx");
  GByteArray *img = image_file(N), *lab = label_file(N);
  const char *sfx = gz != NULL ? ".gz" : "";
  char *ni = g_strconcat("img", sfx, NULL), *nl = g_strconcat("lab", sfx, NULL);
  char *pi = test_write_file(dir, ni, img->data, img->len);
  char *pl = test_write_file(dir, nl, lab->data, lab->len);
  GError *error = NULL;
  LearnDataset *ds = learn_dataset_load_idx(pi, pl, 0, &error);
  g_assert_no_error(error);
  check_values(ds, N);
  g_assert_cmpuint(ds->n_classes, ==, 4);
  /* Values in [0, 1] with both ends reached. */
  g_assert_cmpfloat(ds->features[0], ==, 0.0);
  g_assert_cmpfloat(ds->features[(N - 1) * ROWS * COLS], ==, 1.0);
  learn_dataset_free(ds);
  ds = learn_dataset_load_idx(pi, pl, 2, &error);
  g_assert_no_error(error);
  check_values(ds, 2);
  learn_dataset_free(ds);
  g_byte_array_unref(img);
  g_byte_array_unref(lab);
  g_free(ni);
  g_free(nl);
  g_free(pi);
  g_free(pl);
  rmdir_all(dir);
}

/* Truncated pixel data, plain and gzip (a complete gzip stream of short
 * content, and a gzip stream cut in the middle). */
static void test_truncated(void) {
  char *dir = test_tmpdir("learn-idx");
  GByteArray *img = image_file(N), *lab = label_file(N);
  char *pl = test_write_file(dir, "lab", lab->data, lab->len);
  gsize short_len = img->len - 4;
  const char *names[] = {"short", "short.gz"};
  for (int k = 0; k < 2; k++) {
    char *pi = test_write_file(dir, names[k], img->data, short_len);
    GError *error = NULL;
    g_assert_null(learn_dataset_load_idx(pi, pl, 0, &error));
    g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
    g_assert_nonnull(strstr(error->message, names[k]));
    g_assert_nonnull(strstr(error->message, "truncated"));
    /* 5 images of 6 pixels = 30 bytes expected, 26 present. */
    g_assert_nonnull(strstr(error->message, "expected 30 bytes"));
    g_assert_nonnull(strstr(error->message, "got 26"));
    g_clear_error(&error);
    g_free(pi);
  }
  /* A gzip file cut in the middle of its compressed stream. */
  char *full = test_write_file(dir, "full.gz", img->data, img->len);
  gchar *bytes;
  gsize len;
  g_assert_true(g_file_get_contents(full, &bytes, &len, NULL));
  char *cut = test_write_file(dir, "cut", (const guint8 *)bytes, len / 2);
  g_free(bytes);
  GError *error = NULL;
  g_assert_null(learn_dataset_load_idx(cut, pl, 0, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
  g_assert_nonnull(strstr(error->message, "cut"));
  g_clear_error(&error);
  /* Truncated header: only the magic. */
  char *hdr = test_write_file(dir, "hdr", img->data, 6);
  g_assert_null(learn_dataset_load_idx(hdr, pl, 0, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
  g_assert_nonnull(strstr(error->message, "header"));
  g_clear_error(&error);
  g_free(hdr);
  g_free(cut);
  g_free(full);
  g_free(pl);
  g_byte_array_unref(img);
  g_byte_array_unref(lab);
  rmdir_all(dir);
}

/* Bytes after what the header announces (plain and gzip images, plain
 * labels) were ignored: a wrong header or two files joined. */
static void test_trailing(void) {
  char *dir = test_tmpdir("learn-idx");
  GByteArray *img = image_file(N), *lab = label_file(N);
  char *pl = test_write_file(dir, "lab", lab->data, lab->len);
  static const guint8 extra[3] = {1, 2, 3};
  g_byte_array_append(img, extra, 3);
  g_byte_array_append(lab, extra, 1);
  const char *names[] = {"img-extra", "img-extra.gz"};
  for (int k = 0; k < 2; k++) {
    char *pi = test_write_file(dir, names[k], img->data, img->len);
    GError *error = NULL;
    g_assert_null(learn_dataset_load_idx(pi, pl, 0, &error));
    g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
    char *want = g_strdup_printf(k == 0 ? "%s: 3 bytes after the 5 images the header announces"
                                        : "%s: data after the images the header announces",
                                 pi);
    if (!g_str_has_prefix(error->message, want))
      g_error("'%s' does not start with '%s'", error->message, want);
    g_free(want);
    g_clear_error(&error);
    g_free(pi);
  }
  g_byte_array_set_size(img, img->len - 3);
  char *pi = test_write_file(dir, "img", img->data, img->len);
  char *pl2 = test_write_file(dir, "lab-extra", lab->data, lab->len);
  GError *error = NULL;
  g_assert_null(learn_dataset_load_idx(pi, pl2, 0, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
  g_assert_nonnull(strstr(error->message, "1 byte after the 5 labels"));
  g_clear_error(&error);
  g_free(pi);
  g_free(pl2);
  g_free(pl);
  g_byte_array_unref(img);
  g_byte_array_unref(lab);
  rmdir_all(dir);
}

static void test_format_errors(void) {
  char *dir = test_tmpdir("learn-idx");
  GByteArray *img = image_file(N), *lab = label_file(N), *lab4 = label_file(N - 1);
  char *pi = test_write_file(dir, "img", img->data, img->len);
  char *pl = test_write_file(dir, "lab", lab->data, lab->len);
  char *pl4 = test_write_file(dir, "lab4.gz", lab4->data, lab4->len);
  GError *error = NULL;
  /* Swapped files: the label magic where images are expected. */
  g_assert_null(learn_dataset_load_idx(pl, pi, 0, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
  g_assert_nonnull(strstr(error->message, "0x00000801"));
  g_assert_nonnull(strstr(error->message, "0x00000803"));
  g_clear_error(&error);
  g_assert_null(learn_dataset_load_idx(pi, pl4, 0, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
  g_assert_nonnull(strstr(error->message, "5 images"));
  g_assert_nonnull(strstr(error->message, "4 labels"));
  g_clear_error(&error);
  char *missing = g_build_filename(dir, "nothing", NULL);
  g_assert_null(learn_dataset_load_idx(missing, pl, 0, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_IO);
  g_assert_nonnull(strstr(error->message, "nothing"));
  g_clear_error(&error);
  g_free(missing);
  g_free(pi);
  g_free(pl);
  g_free(pl4);
  g_byte_array_unref(img);
  g_byte_array_unref(lab);
  g_byte_array_unref(lab4);
  rmdir_all(dir);
}

/* MNIST layout: train plain + t10k gzipped; then without t10k the spec
 * falls back to a random split; half a t10k pair is an error. */
static void test_dir(void) {
  char *dir = test_tmpdir("learn-idx");
  GByteArray *img = image_file(N), *lab = label_file(N), *img3 = image_file(3),
             *lab3 = label_file(3);
  char *p[4] = {
      test_write_file(dir, "train-images-idx3-ubyte", img->data, img->len),
      test_write_file(dir, "train-labels-idx1-ubyte.gz", lab->data, lab->len),
      test_write_file(dir, "t10k-images-idx3-ubyte.gz", img3->data, img3->len),
      test_write_file(dir, "t10k-labels-idx1-ubyte", lab3->data, lab3->len),
  };
  LearnDataset *tr, *te;
  GError *error = NULL;
  g_assert_true(learn_dataset_load_idx_dir(dir, 0, &tr, &te, &error));
  g_assert_no_error(error);
  check_values(tr, N);
  check_values(te, 3);
  /* t10k alone holds labels 0 3 2 (4 classes), train too: same C. */
  g_assert_cmpuint(tr->n_classes, ==, 4);
  g_assert_cmpuint(te->n_classes, ==, 4);
  learn_dataset_free(tr);
  learn_dataset_free(te);

  char *spec = g_strdup_printf("idx:%s", dir);
  g_assert_true(learn_data_load(spec, 0.2, 7, &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(tr->n, ==, N); /* t10k is the test split: no random split */
  g_assert_cmpuint(te->n, ==, 3);
  learn_dataset_free(tr);
  learn_dataset_free(te);
  g_free(spec);

  g_assert_cmpint(g_remove(p[3]), ==, 0);
  g_assert_false(learn_dataset_load_idx_dir(dir, 0, &tr, &te, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_IO);
  g_assert_nonnull(strstr(error->message, "t10k-labels-idx1-ubyte"));
  g_clear_error(&error);
  g_assert_cmpint(g_remove(p[2]), ==, 0);

  spec = g_strdup_printf("idx:%s,limit=4", dir);
  g_assert_true(learn_data_load(spec, 0.25, 7, &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(tr->n, ==, 3); /* 4 records, a quarter to test */
  g_assert_cmpuint(te->n, ==, 1);
  learn_dataset_free(tr);
  learn_dataset_free(te);
  g_free(spec);

  g_assert_cmpint(g_remove(p[0]), ==, 0);
  g_assert_false(learn_dataset_load_idx_dir(dir, 0, &tr, &te, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_IO);
  g_assert_nonnull(strstr(error->message, "train-images-idx3-ubyte"));
  g_clear_error(&error);
  for (int i = 0; i < 4; i++)
    g_free(p[i]);
  g_byte_array_unref(img);
  g_byte_array_unref(lab);
  g_byte_array_unref(img3);
  g_byte_array_unref(lab3);
  rmdir_all(dir);
}

/* The Debian package's Fashion-MNIST: header dims and the first labels
 * (9 ankle boot, 0 T-shirt, 0, 3 dress, 0), read independently with
 * Python's gzip module when the fixture was written. */
static void test_fashion_mnist(void) {
  const char *dir = "/usr/share/datasets/fashion-mnist";
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_test_skip("dataset-fashion-mnist is not installed");
    return;
  }
  LearnDataset *tr, *te;
  GError *error = NULL;
  g_assert_true(learn_dataset_load_idx_dir(dir, 200, &tr, &te, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(tr->n, ==, 200);
  g_assert_cmpuint(te->n, ==, 200);
  g_assert_cmpuint(tr->n_features, ==, 784);
  g_assert_cmpuint(tr->n_classes, ==, 10);
  const double first[] = {9, 0, 0, 3, 0};
  for (int i = 0; i < 5; i++)
    g_assert_cmpfloat(tr->targets[i], ==, first[i]);
  double lo = 1, hi = 0;
  for (gsize i = 0; i < tr->n * tr->n_features; i++) {
    lo = MIN(lo, tr->features[i]);
    hi = MAX(hi, tr->features[i]);
  }
  g_assert_cmpfloat(lo, ==, 0.0);
  g_assert_cmpfloat(hi, ==, 1.0);
  learn_dataset_free(tr);
  learn_dataset_free(te);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_data_func("/learning/idx/roundtrip-plain", NULL, test_roundtrip);
  g_test_add_data_func("/learning/idx/roundtrip-gzip", "gz", test_roundtrip);
  g_test_add_func("/learning/idx/truncated", test_truncated);
  g_test_add_func("/learning/idx/trailing", test_trailing);
  g_test_add_func("/learning/idx/format-errors", test_format_errors);
  g_test_add_func("/learning/idx/dir", test_dir);
  g_test_add_func("/learning/idx/fashion-mnist", test_fashion_mnist);
  return g_test_run();
}
