/*
 * tests/learning/test_idx_bounds.c: IDX headers are checked against what the
 * file can deliver before anything is allocated from them (a 16-byte file
 * claiming 2^32 images of 65535 x 65535 pixels used to abort in g_malloc).
 */
#include <glib/gstdio.h>
#include <string.h>
#include <zlib.h>

#include "learning/learning.h"
#include "tests/common/files.h"
#include "tests/common/checks.h"

static void put32(GByteArray *b, guint32 v) {
  guint8 x[4] = {(guint8)(v >> 24), (guint8)(v >> 16), (guint8)(v >> 8), (guint8)v};
  g_byte_array_append(b, x, 4);
}

/* Images header claiming n images of rows x cols, followed by `pixels`
 * zero bytes; labels header claiming n, followed by `labels` zero bytes. */
static void write_pair(const char *dir, gboolean gz, guint32 n, guint32 rows, guint32 cols,
                       gsize pixels, gsize labels, char **img, char **lab) {
  GByteArray *b = g_byte_array_new();
  put32(b, 0x803);
  put32(b, n);
  put32(b, rows);
  put32(b, cols);
  /* Pseudo-random pixels: incompressible, so a gzip file is about as large
   * as its data. */
  g_byte_array_set_size(b, 16 + pixels);
  GRand *rand = g_rand_new_with_seed(7);
  for (gsize i = 0; i < pixels; i++)
    b->data[16 + i] = (guint8)g_rand_int(rand);
  g_rand_free(rand);
  *img = g_build_filename(dir, gz ? "images.gz" : "images", NULL);
  g_free(test_write_file(NULL, *img, b->data, b->len));
  g_byte_array_set_size(b, 0);
  put32(b, 0x801);
  put32(b, n);
  g_byte_array_set_size(b, 8 + labels);
  memset(b->data + 8, 0, labels);
  *lab = g_build_filename(dir, gz ? "labels.gz" : "labels", NULL);
  g_free(test_write_file(NULL, *lab, b->data, b->len));
  g_byte_array_unref(b);
}

static void expect_format_error(const char *img, const char *lab, const char *needle) {
  GError *error = NULL;
  LearnDataset *ds = learn_dataset_load_idx(img, lab, 0, &error);
  g_assert_null(ds);
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT);
  if (strstr(error->message, needle) == NULL)
    g_error("'%s' lacks '%s'", error->message, needle);
  g_error_free(error);
}

static void test_header_larger_than_file(void) {
  char *dir = test_tmpdir("idx");
  g_assert_nonnull(dir);
  for (int gz = 0; gz < 2; gz++) {
    char *img, *lab;
    /* 16 bytes claiming 2^32-1 images of 65535 x 65535 pixels. */
    write_pair(dir, gz, 0xffffffffu, 0xffff, 0xffff, 0, 0, &img, &lab);
    expect_format_error(img, lab,
                        gz ? "which cannot inflate to that much"
                           : "truncated file: the header announces");
    expect_format_error(img, lab, "4294967295 images of 4294836225 bytes");
    g_unlink(img);
    g_unlink(lab);
    g_free(img);
    g_free(lab);
    /* 16 bytes claiming 100,000 images of 1000 x 1000 pixels: 800 GB of
     * doubles, which g_new0 used to attempt. */
    write_pair(dir, gz, 100000, 1000, 1000, 0, 0, &img, &lab);
    expect_format_error(img, lab, "100000 images of 1000000 bytes (100.0 GB in all)");
    g_unlink(img);
    g_unlink(lab);
    g_free(img);
    g_free(lab);
    /* Images all there, labels short. */
    write_pair(dir, gz, 3, 2, 2, 12, 1, &img, &lab);
    if (!gz)
      expect_format_error(img, lab,
                          "announces 3 labels of 1 bytes (3 bytes in all), "
                          "expected 3 bytes after the header, got 1");
    else
      expect_format_error(img, lab, "truncated file: expected 3 bytes of labels, got 1");
    g_unlink(img);
    g_unlink(lab);
    g_free(img);
    g_free(lab);
  }
  /* A gzip stream within deflate's ratio (2 MB claimed, 64 kB there)
   * fails on the truncation, having grown its buffers only with what
   * it read. */
  char *img, *lab;
  write_pair(dir, TRUE, 2048, 32, 32, 65536, 2048, &img, &lab);
  expect_format_error(img, lab, "truncated file");
  g_unlink(img);
  g_unlink(lab);
  g_free(img);
  g_free(lab);
  g_rmdir(dir);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/learning/idx/header-larger-than-file", test_header_larger_than_file);
  return g_test_run();
}
