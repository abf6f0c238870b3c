/*
 * learning/idx.c: IDX files (the MNIST format), gzipped or plain.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "learning/internal.h"

/* An open IDX file: the path for messages and the zlib handle, which reads
 * plain files transparently. */
typedef struct {
  const char *path;
  gzFile gz;
} IdxFile;

static gboolean idx_open(IdxFile *f, const char *path, GError **error) {
  f->path = path;
  errno = 0;
  f->gz = gzopen(path, "rb");
  if (f->gz == NULL) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_IO, "cannot open IDX file %s: %s", path,
                errno != 0 ? g_strerror(errno) : "out of memory");
    return FALSE;
  }
  gzbuffer(f->gz, 1 << 17);
  return TRUE;
}

/* Read exactly len bytes; what names the part for the truncation message. */
static gboolean idx_read(IdxFile *f, void *buf, gsize len, const char *what, GError **error) {
  gsize got = 0;
  while (got < len) {
    unsigned chunk = (unsigned)MIN(len - got, (gsize)1 << 30);
    int r = gzread(f->gz, (char *)buf + got, chunk);
    if (r < 0) {
      int code;
      const char *msg = gzerror(f->gz, &code);
      if (code == Z_ERRNO)
        msg = g_strerror(errno);
      g_set_error(error, LEARN_ERROR, code == Z_ERRNO ? LEARN_ERROR_IO : LEARN_ERROR_FORMAT,
                  "%s: cannot read %s (%s)", f->path, what, msg);
      return FALSE;
    }
    if (r == 0)
      break;
    got += (gsize)r;
  }
  if (got < len) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                "%s: truncated file: expected %" G_GSIZE_FORMAT
                " bytes of %s, got %" G_GSIZE_FORMAT,
                f->path, len, what, got);
    return FALSE;
  }
  return TRUE;
}

static guint32 be32(const guint8 *b) {
  return ((guint32)b[0] << 24) | ((guint32)b[1] << 16) | ((guint32)b[2] << 8) | b[3];
}

/* Read the magic and the dimensions; only unsigned-byte files of ndims dims. */
static gboolean idx_header(IdxFile *f, guint ndims, guint32 *dims, GError **error) {
  guint8 b[4 * 4];
  if (!idx_read(f, b, 4, "header", error))
    return FALSE;
  guint32 magic = be32(b), expected = 0x0800u | ndims;
  if (magic != expected) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                "%s: bad magic number 0x%08x (expected 0x%08x: an IDX %s file of unsigned "
                "bytes with %u dimension%s)",
                f->path, magic, expected, ndims == 1 ? "label" : "image", ndims,
                ndims == 1 ? "" : "s");
    return FALSE;
  }
  if (!idx_read(f, b, 4 * ndims, "header", error))
    return FALSE;
  for (guint i = 0; i < ndims; i++)
    dims[i] = be32(b + 4 * i);
  return TRUE;
}

/* Deflate's largest expansion: a gzip stream of s bytes inflates to less
 * than this many times s. */
#define GZIP_MAX_RATIO 1032

/*
 * The header's dimensions against what the file can deliver, before
 * anything is allocated from them: a 16-byte file claiming 2^32 images must
 * not cost 2^32 of anything. A plain file must hold them; a gzip stream can
 * only be bounded (GZIP_MAX_RATIO), so the reader also grows its buffers
 * with the data actually read.
 */
static gboolean idx_check_size(IdxFile *f, gsize header, gsize count, gsize each, const char *what,
                               GError **error) {
  struct stat st;
  if (stat(f->path, &st) != 0)
    return TRUE; /* the reads report it */
  gsize size = (gsize)st.st_size;
  gsize need = spec_size_add(header, spec_size_mul(count, each));
  gboolean plain = gzdirect(f->gz);
  gsize can = plain ? size : spec_size_mul(size, GZIP_MAX_RATIO);
  if (plain && size > need) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                "%s: %" G_GSIZE_FORMAT " byte%s after the %" G_GSIZE_FORMAT
                " %s the header announces: the header is wrong or another file follows",
                f->path, size - need, size - need == 1 ? "" : "s", count, what);
    return FALSE;
  }
  if (need <= can)
    return TRUE;
  char *need_s = spec_format_bytes(spec_size_mul(count, each));
  char *size_s = spec_format_bytes(size);
  if (plain)
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                "%s: truncated file: the header announces %" G_GSIZE_FORMAT
                " %s of %" G_GSIZE_FORMAT " bytes (%s in all), expected %" G_GSIZE_FORMAT
                " bytes after the header, got %" G_GSIZE_FORMAT,
                f->path, count, what, each, need_s, need - header, size - MIN(size, header));
  else
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                "%s: the header announces %" G_GSIZE_FORMAT " %s of %" G_GSIZE_FORMAT
                " bytes (%s in all) but the gzip file holds only %s, which cannot inflate to "
                "that much; it is truncated or its header is wrong",
                f->path, count, what, each, need_s, size_s);
  g_free(need_s);
  g_free(size_s);
  return FALSE;
}

/* After the last announced byte of a gzip stream (a plain file's size is
 * checked before reading): nothing may follow. */
static gboolean idx_check_end(IdxFile *f, const char *what, GError **error) {
  if (gzdirect(f->gz))
    return TRUE;
  char c;
  int r = gzread(f->gz, &c, 1);
  if (r == 0)
    return TRUE;
  if (r > 0)
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                "%s: data after the %s the header announces: the header is wrong or another "
                "file follows",
                f->path, what);
  else
    idx_read(f, &c, 1, what, error);
  return FALSE;
}

LearnDataset *learn_dataset_load_idx(const char *images_path, const char *labels_path, gsize limit,
                                     GError **error) {
  g_return_val_if_fail(images_path != NULL && labels_path != NULL, NULL);
  IdxFile img = {0}, lab = {0};
  LearnDataset *ds = NULL;
  guint8 *bytes = NULL;
  guint32 idim[3], ldim[1];
  if (!idx_open(&img, images_path, error) || !idx_header(&img, 3, idim, error))
    goto out;
  if (!idx_open(&lab, labels_path, error) || !idx_header(&lab, 1, ldim, error))
    goto out;
  if (idim[0] != ldim[0]) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s holds %u images but %s holds %u labels",
                images_path, idim[0], labels_path, ldim[0]);
    goto out;
  }
  gsize n = idim[0], d = (gsize)idim[1] * idim[2];
  if (limit > 0 && limit < n)
    n = limit;
  if (n == 0 || d == 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_EMPTY,
                "%s: no images (%u images of %u x %u pixels)", images_path, idim[0], idim[1],
                idim[2]);
    goto out;
  }
  if (!idx_check_size(&img, 16, idim[0], d, "images", error) ||
      !idx_check_size(&lab, 8, ldim[0], 1, "labels", error))
    goto out;
  char *what = g_strdup_printf("%s: %" G_GSIZE_FORMAT " images of %" G_GSIZE_FORMAT " pixels",
                               images_path, n, d);
  gboolean fits = spec_check_memory(learn_dataset_bytes(n, d), what,
                                    "load fewer with idx:DIR,limit=N", LEARN_ERROR,
                                    LEARN_ERROR_INVALID_ARGUMENT, error);
  g_free(what);
  if (!fits)
    goto out;
  ds = learn_dataset_alloc(0, d, 2, error);
  if (ds == NULL)
    goto out;
  bytes = g_malloc(MAX(MIN(n, (gsize)4096), d * MIN(n, (gsize)4096)));
  /* Pixels in blocks of images, so memory stays bounded by the doubles; the
   * doubles grow with the images read, so a gzip stream shorter than its
   * header claims fails on the truncation, not on the allocation. */
  gsize cap = 0;
  for (gsize start = 0; start < n; start += 4096) {
    gsize count = MIN((gsize)4096, n - start);
    if (!idx_read(&img, bytes, count * d, "pixel data", error))
      goto fail;
    if (start + count > cap) {
      cap = MIN(n, MAX(start + count, 2 * cap));
      ds->features = g_realloc(ds->features, cap * d * sizeof(double));
    }
    double *x = ds->features + start * d;
    for (gsize i = 0; i < count * d; i++)
      x[i] = bytes[i] / 255.0;
  }
  ds->n = n;
  if (n == idim[0] && !idx_check_end(&img, "images", error))
    goto fail;
  ds->targets = g_new(double, n);
  g_free(bytes);
  bytes = g_malloc(n);
  if (!idx_read(&lab, bytes, n, "labels", error) ||
      (n == ldim[0] && !idx_check_end(&lab, "labels", error)))
    goto fail;
  guint max = 1;
  for (gsize i = 0; i < n; i++) {
    ds->targets[i] = bytes[i];
    max = MAX(max, (guint)bytes[i]);
  }
  ds->n_classes = max + 1;
  goto out;
fail:
  learn_dataset_free(ds);
  ds = NULL;
out:
  g_free(bytes);
  if (img.gz != NULL)
    gzclose(img.gz);
  if (lab.gz != NULL)
    gzclose(lab.gz);
  return ds;
}

/* dir/base if it exists, else dir/base.gz if it exists, else NULL. */
static char *find_file(const char *dir, const char *base) {
  char *p = g_build_filename(dir, base, NULL);
  if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
    return p;
  g_free(p);
  char *gz = g_strconcat(base, ".gz", NULL);
  p = g_build_filename(dir, gz, NULL);
  g_free(gz);
  if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
    return p;
  g_free(p);
  return NULL;
}

gboolean learn_dataset_load_idx_dir(const char *dir, gsize limit, LearnDataset **train,
                                    LearnDataset **test, GError **error) {
  g_return_val_if_fail(dir != NULL && train != NULL && test != NULL, FALSE);
  static const char *names[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                 "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
  char *paths[4];
  for (int i = 0; i < 4; i++)
    paths[i] = find_file(dir, names[i]);
  LearnDataset *tr = NULL, *te = NULL;
  gboolean ok = FALSE;
  for (int i = 0; i < 4; i++) {
    gboolean needed = i < 2 || paths[2] != NULL || paths[3] != NULL;
    if (paths[i] == NULL && needed) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_IO, "IDX directory %s has no %s or %s.gz%s", dir,
                  names[i], names[i], i >= 2 ? " (the t10k test pair is incomplete)" : "");
      goto out;
    }
  }
  tr = learn_dataset_load_idx(paths[0], paths[1], limit, error);
  if (tr == NULL)
    goto out;
  if (paths[2] != NULL) {
    te = learn_dataset_load_idx(paths[2], paths[3], limit, error);
    if (te == NULL)
      goto out;
    if (te->n_features != tr->n_features) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                  "%s has images of %" G_GSIZE_FORMAT " pixels but %s of %" G_GSIZE_FORMAT,
                  paths[0], tr->n_features, paths[2], te->n_features);
      goto out;
    }
    guint c = MAX(tr->n_classes, te->n_classes);
    tr->n_classes = te->n_classes = c;
  }
  ok = TRUE;
out:
  for (int i = 0; i < 4; i++)
    g_free(paths[i]);
  if (!ok) {
    learn_dataset_free(tr);
    learn_dataset_free(te);
    tr = te = NULL;
  }
  *train = tr;
  *test = te;
  return ok;
}
