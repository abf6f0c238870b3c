/*
 * tests/fuzz/fuzz_trace.c: libFuzzer target for what dpgossip reads from
 * others' hands at run time: the trace reader (stream/trace_read.c: header,
 * gzip or plain text, record lines, checksums, JSON bodies) on arbitrary
 * bytes given as a file, and the visualizer's event checks
 * (viz/event.c: the relay check and the run event parser) on the same bytes
 * as a "run" body. Built with clang -fsanitize=fuzzer,address,undefined
 * (tests/fuzz/CMakeLists.txt); every input must end in a record, an error
 * or "not an event", without a crash, a leak or undefined behaviour (a
 * body nested 300,000 deep once overflowed json-glib's stack in both).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stream/internal.h"
#include "viz/viz_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes as a file the reader can open by name: an in-memory file, so
 * fuzzing never touches the disk. */
static char *as_file(const uint8_t *data, size_t size) {
  static int fd = -1;
  if (fd < 0) {
    fd = memfd_create("fuzz-trace", 0);
    if (fd < 0)
      return NULL;
  }
  if (ftruncate(fd, 0) != 0 || (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size))
    return NULL;
  return g_strdup_printf("/proc/self/fd/%d", fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *path = as_file(data, size);
  if (path != NULL) {
    GError *error = NULL;
    StreamTraceReader *r = stream_trace_reader_open(path, &error);
    if (r != NULL) {
      (void)stream_trace_reader_header(r);
      StreamTraceRecord rec;
      int rc;
      while ((rc = stream_trace_reader_next(r, &rec, &error)) == 1)
        if (rec.body_len > 0 && rec.body[0] != '{')
          __builtin_trap(); /* a record's body is always an object */
      if (rc == -1 && error == NULL)
        __builtin_trap(); /* an error always says why */
      stream_trace_reader_free(r);
    } else if (error == NULL) {
      __builtin_trap();
    }
    g_clear_error(&error);
    g_free(path);
  }
  char buf[16];
  const char *body = (const char *)data;
  if (viz_event_body_ok("run", body, size))
    (void)viz_run_event_kind(body, size, buf, sizeof buf);
  /* Not only what passes the relay check: the parser must hold on its own. */
  (void)viz_run_event_kind(body, size, buf, sizeof buf);
  return 0;
}
