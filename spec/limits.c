/*
 * spec/limits.c: the resource bounds every module checks before it reads a
 * file whole or allocates in proportion to a user-given size. A leaf like the
 * spec parser, so that topologies, learning and privacy share one budget and
 * one bounded reader instead of each aborting in g_malloc on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec.h"

gsize spec_size_mul(gsize a, gsize b) {
  return a != 0 && b > G_MAXSIZE / a ? G_MAXSIZE : a * b;
}

gsize spec_size_add(gsize a, gsize b) {
  return b > G_MAXSIZE - a ? G_MAXSIZE : a + b;
}

gboolean spec_size_mul_checked(gsize a, gsize b, gsize *out) {
  if (a != 0 && b > G_MAXSIZE / a)
    return FALSE;
  *out = a * b;
  return TRUE;
}

/* The address space this process already maps (/proc/self/statm: libraries,
 * thread stacks, BLAS buffers, what it allocated so far); 0 when unknown. */
static gsize address_space_in_use(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL)
    return 0;
  unsigned long pages = 0;
  if (fscanf(f, "%lu", &pages) != 1)
    pages = 0;
  fclose(f);
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? spec_size_mul((gsize)pages, (gsize)page) : 0;
}

static gsize memory_cap; /* spec_set_memory_cap; 0: none */

void spec_set_memory_cap(gsize bytes) {
  memory_cap = bytes;
}

gsize spec_memory_limit(void) {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  gsize limit = pages > 0 && page > 0 ? spec_size_mul((gsize)pages, (gsize)page) : G_MAXSIZE;
  /* An address-space or data limit (ulimit -v / -d) makes g_malloc abort
   * long before physical memory runs out: it is the real budget then. An
   * address-space limit counts every mapping the process already holds:
   * only what remains of it can be allocated. */
  static const int resources[] = {RLIMIT_AS, RLIMIT_DATA};
  for (gsize i = 0; i < G_N_ELEMENTS(resources); i++) {
    struct rlimit rl;
    if (getrlimit(resources[i], &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
      continue;
    gsize cap = (guint64)rl.rlim_cur < (guint64)G_MAXSIZE ? (gsize)rl.rlim_cur : G_MAXSIZE;
    if (resources[i] == RLIMIT_AS) {
      gsize used = address_space_in_use();
      cap = cap > used ? cap - used : 0;
    }
    limit = MIN(limit, cap);
  }
  return memory_cap != 0 ? MIN(limit, memory_cap) : limit;
}

char *spec_format_bytes(gsize bytes) {
  if (bytes == G_MAXSIZE)
    return g_strdup("more than the address space");
  /* Plain ASCII (g_format_size uses a no-break space), decimal units. */
  static const char *units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  double v = (double)bytes;
  guint u = 0;
  while (v >= 1000.0 && u + 1 < G_N_ELEMENTS(units)) {
    v /= 1000.0;
    u++;
  }
  return u == 0 ? g_strdup_printf("%" G_GSIZE_FORMAT " bytes", bytes)
                : g_strdup_printf("%.1f %s", v, units[u]);
}

gboolean spec_check_memory_within(gsize bytes, gsize max_bytes, const char *what, const char *hint,
                                  GQuark domain, gint code, GError **error) {
  gsize limit = max_bytes != 0 ? max_bytes : spec_memory_limit();
  if (bytes <= limit)
    return TRUE;
  char *need = spec_format_bytes(bytes);
  char *have = spec_format_bytes(limit);
  g_set_error(error, domain, code, "%s would need %s of memory but only %s is available%s%s", what,
              need, have, hint != NULL ? "; " : "", hint != NULL ? hint : "");
  g_free(need);
  g_free(have);
  return FALSE;
}

gboolean spec_check_memory(gsize bytes, const char *what, const char *hint, GQuark domain,
                           gint code, GError **error) {
  return spec_check_memory_within(bytes, 0, what, hint, domain, code, error);
}

gboolean spec_check_text_rows(const char *path, const char *text, gsize len, gsize bytes_per_row,
                              gsize bytes_per_byte, const char *hint, GQuark domain, gint code,
                              GError **error) {
  gsize lines = 1;
  for (const char *p = text, *end = text + len; (p = memchr(p, '\n', (gsize)(end - p))) != NULL;
       p++)
    lines++;
  char *what = g_strdup_printf("%s (%" G_GSIZE_FORMAT " lines)", path, lines);
  gboolean ok = spec_check_memory(
      spec_size_add(spec_size_mul(lines, bytes_per_row), spec_size_mul(len, bytes_per_byte)), what,
      hint, domain, code, error);
  g_free(what);
  return ok;
}

/*
 * A large matrix on transparent huge pages where the kernel gives them on
 * request (THP "madvise"; "always" gives them anyway): the engines walk such
 * matrices by columns and scatter into them (the Kalman engine's copy rows
 * in stale mode, a row of 233 KB at n = 10^4), so with 4 KB pages nearly
 * every access misses the TLB, and the first touch of each 4 KB is a page
 * fault. Only the whole 2 MB pages inside the block are advised; the
 * values are the same, only where they live changes. Called before the
 * first touch (calloc leaves a fresh mapping untouched).
 */
static void advise_huge(void *m, gsize bytes) {
#ifdef MADV_HUGEPAGE
  const gsize huge = (gsize)2 << 20;
  guintptr start = ((guintptr)m + huge - 1) & ~(guintptr)(huge - 1);
  guintptr end = ((guintptr)m + bytes) & ~(guintptr)(huge - 1);
  if (end > start)
    (void)madvise((void *)start, end - start, MADV_HUGEPAGE); /* advice: failing is harmless */
#else
  (void)m;
  (void)bytes;
#endif
}

double *spec_doubles_new(gsize rows, gsize cols, GQuark domain, gint code, GError **error) {
  gsize bytes = spec_size_mul(spec_size_mul(rows, cols), sizeof(double));
  char *what = g_strdup_printf("a %" G_GSIZE_FORMAT " x %" G_GSIZE_FORMAT " matrix", rows, cols);
  /* Checked against the budget before allocating, as every big allocation
   * (the message names the bytes); the small ones, many in a loop, only by
   * their malloc. */
  double *m = NULL;
  if ((bytes < SPEC_DOUBLES_CHECKED || spec_check_memory(bytes, what, NULL, domain, code, error)) &&
      (m = bytes != G_MAXSIZE ? g_try_malloc0(MAX(bytes, 1)) : NULL) == NULL &&
      (error == NULL || *error == NULL)) {
    char *size = spec_format_bytes(bytes);
    g_set_error(error, domain, code, "cannot allocate %s (%s): not enough memory", what, size);
    g_free(size);
  }
  if (m != NULL && bytes >= SPEC_DOUBLES_CHECKED)
    advise_huge(m, bytes);
  g_free(what);
  return m;
}

static gboolean check_lines(const char *path, const char *text, gsize len, gsize max,
                            GError **error) {
  gsize line = 1;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', MIN((gsize)(end - p), max + 1));
    gsize line_len = nl != NULL ? (gsize)(nl - p) : (gsize)(end - p);
    if (line_len > max) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "%s:%" G_GSIZE_FORMAT ": line longer than %" G_GSIZE_FORMAT
                  " MiB; is this a text file of the expected kind?",
                  path, line, max >> 20);
      return FALSE;
    }
    if (nl == NULL)
      break;
    p = nl + 1;
    line++;
  }
  return TRUE;
}

gboolean spec_check_lines(const char *path, const char *text, gsize len, GError **error) {
  return check_lines(path, text, len, SPEC_LINE_MAX, error);
}

gboolean spec_file_read(const char *path, char **contents, gsize *length, GError **error) {
  return spec_file_read_lines(path, SPEC_LINE_MAX, contents, length, error);
}

gboolean spec_file_read_lines(const char *path, gsize line_max, char **contents, gsize *length,
                              GError **error) {
  g_return_val_if_fail(path != NULL && contents != NULL, FALSE);
  *contents = NULL;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer before fstat
   * refuses it; it changes nothing for a regular file. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "Failed to open file %s: %s", path,
                g_strerror(e));
    return FALSE;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "Failed to read %s: %s", path,
                g_strerror(e));
    close(fd);
    return FALSE;
  }
  if (!S_ISREG(st.st_mode)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s: %s; only regular files are read (a device or pipe can deliver data "
                "without end)",
                path, S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
    close(fd);
    return FALSE;
  }
  if ((guint64)st.st_size > SPEC_FILE_MAX) {
    char *size = spec_format_bytes((gsize)st.st_size), *max = spec_format_bytes(SPEC_FILE_MAX);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s: file of %s is larger than the %s limit for files read whole", path, size, max);
    g_free(size);
    g_free(max);
    close(fd);
    return FALSE;
  }
  /* Read at most one byte past the size fstat gave, so a file that grows
   * meanwhile is still bounded. */
  gsize cap = (gsize)st.st_size + 1, got = 0;
  char *buf = g_try_malloc(cap + 1);
  if (buf == NULL) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                "%s: cannot allocate %" G_GSIZE_FORMAT " bytes to read it", path, cap);
    close(fd);
    return FALSE;
  }
  while (got < cap) {
    ssize_t r = read(fd, buf + got, cap - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "Failed to read from %s: %s",
                  path, g_strerror(e));
      g_free(buf);
      close(fd);
      return FALSE;
    }
    if (r == 0)
      break;
    got += (gsize)r;
  }
  close(fd);
  if (got > (gsize)st.st_size) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                "%s: the file grew while it was read; read it when it is complete", path);
    g_free(buf);
    return FALSE;
  }
  buf[got] = '\0';
  if (!check_lines(path, buf, got, line_max, error)) {
    g_free(buf);
    return FALSE;
  }
  *contents = buf;
  if (length != NULL)
    *length = got;
  return TRUE;
}
