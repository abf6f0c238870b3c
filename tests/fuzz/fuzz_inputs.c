/*
 * tests/fuzz/fuzz_inputs.c: libFuzzer target for the files a user hands
 * dpgossip as data or that a resumed sweep reads back: the same bytes as a
 * LEAF JSON file (learning/leaf.c), as a CSV table (learning/csv.c) and as
 * a point's summary.json (scenarios/aggregate.c, beside well-formed
 * tables). Built with clang -fsanitize=fuzzer,address,undefined
 * (tests/fuzz/CMakeLists.txt); every input must end in a dataset or a
 * result, or in an error that says why, without a crash, a leak or
 * undefined behaviour (a LEAF file or a summary nested 100,000 deep once
 * overflowed json-glib's stack; a summary of {} passed for a finished
 * point).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "learning/learning.h"
#include "scenarios/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes as a file the loaders can open by name: an in-memory file. */
static char *as_file(const uint8_t *data, size_t size) {
  static int fd = -1;
  if (fd < 0) {
    fd = memfd_create("fuzz-inputs", 0);
    if (fd < 0)
      return NULL;
  }
  if (ftruncate(fd, 0) != 0 || (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size))
    return NULL;
  return g_strdup_printf("/proc/self/fd/%d", fd);
}

/* A point folder whose tables are well formed, so that the summary alone
 * decides. */
static const char *point_dir(void) {
  static char *dir = NULL;
  if (dir == NULL) {
    dir = g_dir_make_tmp("fuzz-point-XXXXXX", NULL);
    char *m = g_build_filename(dir, "metrics.csv", NULL);
    char *p = g_build_filename(dir, "privacy.csv", NULL);
    if (!g_file_set_contents(m, SCEN_METRICS_CSV_COLUMNS "\n", -1, NULL) ||
        !g_file_set_contents(p, SCEN_PRIVACY_CSV_COLUMNS "\n", -1, NULL))
      __builtin_trap();
    g_free(m);
    g_free(p);
  }
  return dir;
}

static void check_leaf(const char *path) {
  GError *error = NULL;
  guint *user_of = NULL;
  GPtrArray *names = NULL;
  LearnDataset *ds = learn_dataset_load_leaf(path, 0, &user_of, &names, &error);
  if (ds == NULL && error == NULL)
    __builtin_trap();
  if (ds != NULL) {
    for (gsize i = 0; i < ds->n; i++)
      if (user_of[i] >= names->len)
        __builtin_trap(); /* every record belongs to a listed user */
    g_free(user_of);
    g_ptr_array_unref(names);
    learn_dataset_free(ds);
  }
  g_clear_error(&error);
}

static void check_csv(const char *path) {
  GError *error = NULL;
  LearnDataset *ds = learn_dataset_load_csv(path, NULL, &error);
  if (ds == NULL && error == NULL)
    __builtin_trap();
  for (gsize i = 0; ds != NULL && i < ds->n * ds->n_features; i++)
    if (!isfinite(ds->features[i]))
      __builtin_trap();
  learn_dataset_free(ds);
  g_clear_error(&error);
}

static void check_summary(const uint8_t *data, size_t size) {
  const char *dir = point_dir();
  char *path = g_build_filename(dir, "summary.json", NULL);
  FILE *f = fopen(path, "wb"); /* not g_file_set_contents: its fsync costs most of a run */
  if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    __builtin_trap();
  GError *error = NULL;
  ScenPointResult *r = scen_point_result_load(dir, 100, &error);
  if (r == NULL && error == NULL)
    __builtin_trap();
  scen_point_result_free(r);
  g_clear_error(&error);
  g_free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *path = as_file(data, size);
  if (path != NULL) {
    check_leaf(path);
    check_csv(path);
    g_free(path);
  }
  check_summary(data, size);
  return 0;
}
