/*
 * tests/spec/test_limits.c: the shared resource bounds: the memory budget's
 * message, and spec_file_read refusing devices, directories, over-long lines
 * (with FILE:LINE) while reading ordinary files exactly.
 */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec.h"
#include "tests/common/files.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* spec_set_memory_cap: the budget is the smaller of the cap and the
 * machine's, and 0 lifts the cap; a check above the cap is refused. */
static void test_memory_cap(void) {
  gsize machine = spec_memory_limit();
  g_assert_cmpuint(machine, >, 4096);
  spec_set_memory_cap(4096);
  g_assert_cmpuint(spec_memory_limit(), ==, 4096);
  GError *error = NULL;
  g_assert_false(
      spec_check_memory(5000, "a graph", NULL, G_FILE_ERROR, G_FILE_ERROR_NOMEM, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM);
  g_clear_error(&error);
  spec_set_memory_cap(G_MAXSIZE);
  g_assert_cmpuint(spec_memory_limit(), ==, machine);
  spec_set_memory_cap(0);
  g_assert_cmpuint(spec_memory_limit(), ==, machine);
}

static void test_memory(void) {
  g_assert_cmpuint(spec_memory_limit(), >, 0);
  g_assert_cmpuint(spec_size_mul(G_MAXSIZE / 2, 3), ==, G_MAXSIZE);
  g_assert_cmpuint(spec_size_add(G_MAXSIZE - 1, 2), ==, G_MAXSIZE);
  /* The checked product: exact, or refused without touching the result. */
  gsize out = 7;
  g_assert_true(spec_size_mul_checked(G_MAXSIZE / 3, 3, &out));
  g_assert_cmpuint(out, ==, G_MAXSIZE / 3 * 3);
  g_assert_true(spec_size_mul_checked(0, G_MAXSIZE, &out));
  g_assert_cmpuint(out, ==, 0);
  out = 7;
  g_assert_false(spec_size_mul_checked(G_MAXSIZE / 2 + 1, 2, &out));
  g_assert_cmpuint(out, ==, 7);
  char *s = spec_format_bytes(1500000000);
  g_assert_cmpstr(s, ==, "1.5 GB");
  g_free(s);
  GError *error = NULL;
  g_assert_true(spec_check_memory(1000, "a tiny thing", NULL, G_FILE_ERROR, 0, &error));
  g_assert_no_error(error);
  g_assert_false(spec_check_memory(G_MAXSIZE, "everything", "ask for less", G_FILE_ERROR,
                                   G_FILE_ERROR_NOMEM, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM);
  g_assert_true(g_str_has_prefix(error->message,
                                 "everything would need more than the address space of memory"));
  g_assert_true(g_str_has_suffix(error->message, "; ask for less"));
  g_clear_error(&error);
}

/* The budget honours an address-space limit (checked in a child, so the
 * test process keeps its own limits). */
static void test_memory_rlimit(void) {
#ifdef UNDER_ASAN
  g_test_skip("an address-space limit and AddressSanitizer's shadow memory do not mix");
  return;
#endif
  if (g_test_subprocess()) {
    struct rlimit rl = {(rlim_t)1 << 30, (rlim_t)1 << 30};
    if (setrlimit(RLIMIT_AS, &rl) != 0)
      return;
    g_assert_cmpuint(spec_memory_limit(), <=, (gsize)1 << 30);
    return;
  }
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* The address space already mapped: libraries and earlier allocations).
 * From /proc/self/statm, as the library reads it. */
static gsize mapped_now(void) {
  char *text = NULL;
  g_assert_true(g_file_get_contents("/proc/self/statm", &text, NULL, NULL));
  gsize pages = (gsize)g_ascii_strtoull(text, NULL, 10);
  g_free(text);
  return pages * (gsize)sysconf(_SC_PAGESIZE);
}

/* Under an address-space limit, what the process already maps is not
 * available: 256 MiB held, a limit of that plus 1 GiB leaves about 1 GiB
 * (the whole limit used to be reported, and a check passed by the mapped
 * amount then ended in an allocation abort). */
static void test_memory_rlimit_in_use(void) {
#ifdef UNDER_ASAN
  g_test_skip("an address-space limit and AddressSanitizer's shadow memory do not mix");
  return;
#endif
  if (g_test_subprocess()) {
    char *held = g_malloc((gsize)256 << 20); /* mapped, untouched */
    gsize used = mapped_now();
    g_assert_cmpuint(used, >=, (gsize)256 << 20);
    struct rlimit rl = {(rlim_t)(used + ((gsize)1 << 30)), (rlim_t)(used + ((gsize)1 << 30))};
    if (setrlimit(RLIMIT_AS, &rl) != 0)
      return;
    gsize budget = spec_memory_limit();
    g_assert_cmpuint(budget, <=, (gsize)1 << 30);
    g_assert_cmpuint(budget, >=, ((gsize)1 << 30) - ((gsize)16 << 20));
    g_free(held);
    return;
  }
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

static void test_file_read(void) {
  GError *error = NULL;
  char *text = NULL;
  gsize len = 0;
  g_assert_false(spec_file_read("/dev/zero", &text, &len, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_nonnull(strstr(error->message, "/dev/zero: not a regular file"));
  g_assert_null(text);
  g_clear_error(&error);
  char *dir = test_tmpdir("limits");
  g_assert_false(spec_file_read(dir, &text, &len, &error));
  g_assert_nonnull(strstr(error->message, "is a directory"));
  g_clear_error(&error);
  /* A FIFO without a writer: refused at once, not waited on. */
  char *fifo = g_build_filename(dir, "fifo", NULL);
  g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
  g_assert_false(spec_file_read(fifo, &text, &len, &error));
  g_assert_nonnull(strstr(error->message, "not a regular file"));
  g_clear_error(&error);
  g_unlink(fifo);
  g_free(fifo);
  char *missing = g_build_filename(dir, "missing", NULL);
  g_assert_false(spec_file_read(missing, &text, &len, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error(&error);

  /* A line of exactly SPEC_LINE_MAX bytes is fine, one more is not. */
  char *path = g_build_filename(dir, "lines.txt", NULL);
  GString *s = g_string_new("a\nb\n");
  g_string_set_size(s, 4 + SPEC_LINE_MAX);
  memset(s->str + 4, 'x', SPEC_LINE_MAX);
  g_string_append(s, "\nlast");
  g_assert_true(g_file_set_contents(path, s->str, (gssize)s->len, NULL));
  g_assert_true(spec_file_read(path, &text, &len, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(len, ==, s->len);
  g_assert_cmpmem(text, len, s->str, s->len);
  g_assert_cmpint(text[len], ==, '\0');
  g_free(text);
  g_string_insert_c(s, 5, 'x');
  g_assert_true(g_file_set_contents(path, s->str, (gssize)s->len, NULL));
  g_assert_false(spec_file_read(path, &text, &len, &error));
  char *where = g_strdup_printf("%s:3: line longer than 1 MiB", path);
  g_assert_true(g_str_has_prefix(error->message, where));
  g_clear_error(&error);
  g_free(where);
  g_string_free(s, TRUE);
  g_unlink(path);
  g_free(path);
  g_free(missing);
  g_rmdir(dir);
  g_free(dir);
}

/* A caller's own budget replaces the process's; 0 means the process's. A
 * matrix whose size overflows is refused with the caller's error, not
 * allocated short. */
static void test_budget_and_matrix(void) {
  GError *error = NULL;
  g_assert_true(spec_check_memory_within(1000, 1000, "X", "shrink it", G_FILE_ERROR, 0, &error));
  g_assert_false(spec_check_memory_within(2000, 1000, "X", "shrink it", G_FILE_ERROR,
                                          G_FILE_ERROR_NOMEM, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM);
  g_assert_cmpstr(error->message, ==,
                  "X would need 2.0 kB of memory but only 1.0 kB is available; shrink it");
  g_clear_error(&error);
  g_assert_true(spec_check_memory_within(1000, 0, "X", NULL, G_FILE_ERROR, 0, &error));

  double *m = spec_doubles_new(3, 2, G_FILE_ERROR, G_FILE_ERROR_NOMEM, &error);
  g_assert_no_error(error);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat(m[i], ==, 0.0);
  g_free(m);
  g_assert_null(spec_doubles_new(G_MAXSIZE / 4, 4, G_FILE_ERROR, G_FILE_ERROR_NOMEM, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM);
  /* Refused before allocating, naming the matrix and the bytes (issue 37:
   * "cannot allocate a 100000 x 10000 matrix" said neither). */
  if (strstr(error->message, " x 4 matrix would need more than the address space of memory") ==
      NULL)
    g_error("unexpected message: %s", error->message);
  g_clear_error(&error);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spec/limits/memory", test_memory);
  g_test_add_func("/spec/limits/memory-cap", test_memory_cap);
  g_test_add_func("/spec/limits/memory-rlimit", test_memory_rlimit);
  g_test_add_func("/spec/limits/memory-rlimit-in-use", test_memory_rlimit_in_use);
  g_test_add_func("/spec/limits/file-read", test_file_read);
  g_test_add_func("/spec/limits/budget-and-matrix", test_budget_and_matrix);
  return g_test_run();
}
