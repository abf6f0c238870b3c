/*
 * tests/fuzz/fuzz_latency.c: libFuzzer target for the measured-network
 * tables a user hands dpgossip (sim/latency_data.c, latency_geo.c): the same
 * bytes read as a links file (ms and s), a country RTT table (alone and as
 * its own same-AS table) and a geo node file (with and without jitter),
 * plain or gzip (the reader recognises gzip by its magic bytes, so the
 * corpus carries both). Built with clang -fsanitize=fuzzer,address,undefined
 * (tests/fuzz/CMakeLists.txt); every input must end in loaded data or in an
 * error that says why, without a crash, a leak or undefined behaviour, and
 * every delay the data gives must be finite and non-negative.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes as a file the readers can open by name: an in-memory file. */
static char *as_file(const uint8_t *data, size_t size) {
  static int fd = -1;
  if (fd < 0) {
    fd = memfd_create("fuzz-latency", 0);
    if (fd < 0)
      return NULL;
  }
  if (ftruncate(fd, 0) != 0 || (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size))
    return NULL;
  return g_strdup_printf("/proc/self/fd/%d", fd);
}

/* What loaded data answers for a few nodes must be well formed. */
static void query(const SimLatencyData *d) {
  char *text = sim_latency_data_describe(d);
  if (text == NULL)
    __builtin_trap();
  g_free(text);
  for (guint32 u = 0; u < 6; u++)
    for (guint32 v = 0; v < 6; v++) {
      SimTime ns = 0;
      if (sim_latency_data_delay(d, u, v, &ns) && ns > SIM_LATENCY_MAX)
        __builtin_trap();
    }
  double lon, lat;
  for (guint32 u = 0; u < 6; u++)
    if (sim_latency_data_position(d, u, &lon, &lat) &&
        !(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90))
      __builtin_trap(); /* the reader checks coordinates */
  const char *code = NULL;
  gint c = sim_latency_data_country(d, 0, &code);
  SimRttStat s;
  if (c >= 0 && sim_latency_data_pair(d, (guint)c, (guint)c, &s) && !(s.min <= s.max))
    __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const forms[] = {
      "links:file=%1$s,unit=ms", "links:file=%1$s,unit=s",
      "country:rtt=%1$s,seed=1", "country:rtt=%1$s,seed=7,intra=%1$s",
      "geo:nodes=%1$s",          "geo:nodes=%1$s,base=1,per_km=0.01,jitter=0.5,max=500,seed=3"};
  char *path = as_file(data, size);
  if (path == NULL)
    return 0;
  for (gsize i = 0; i < G_N_ELEMENTS(forms); i++) {
    char *spec = g_strdup_printf(forms[i], path);
    SimLatency l;
    GError *error = NULL;
    if (!sim_latency_parse(spec, &l, &error))
      __builtin_trap(); /* the spec is valid: only the file may be wrong */
    SimLatencyData *d = sim_latency_data_load(&l, &error);
    if ((d == NULL) == (error == NULL))
      __builtin_trap(); /* data, or an error that says why */
    if (d != NULL)
      query(d);
    g_clear_pointer(&d, sim_latency_data_unref);
    g_clear_error(&error);
    g_free(spec);
  }
  g_free(path);
  return 0;
}
