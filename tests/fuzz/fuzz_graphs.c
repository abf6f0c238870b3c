/*
 * tests/fuzz/fuzz_graphs.c: libFuzzer target for the graph files a user
 * hands dpgossip: the same bytes read as an edge list, a CSV edge list,
 * GraphML, GML and Pajek (topologies/load.c, igraph's readers behind the
 * last three), weights refused and then ignored, and as the churn and
 * session-trace files a schedule reads (topologies/churn.c, trace.c,
 * trace_churn.c). Built with clang
 * -fsanitize=fuzzer,address,undefined (tests/fuzz/CMakeLists.txt); every
 * input must end in a graph or in an error that says why, without a crash,
 * a leak or undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spec/spec.h"
#include "topologies/topologies.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A few bytes can declare a graph of millions of nodes (*Vertices
 * 65085991, one edge), legal and refused only by the memory check, which
 * on a 24 GB machine lets it through: its build then takes seconds and GBs
 * under the sanitizers, past -timeout and -rss_limit_mb. The budget is
 * capped so that such a count ends in the memory error instead, the path
 * a user on a smaller machine meets. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  spec_set_memory_cap((gsize)64 << 20);
  return 0;
}

/* The bytes as a file the readers can open by name: an in-memory file. */
static char *as_file(const uint8_t *data, size_t size) {
  static int fd = -1;
  if (fd < 0) {
    fd = memfd_create("fuzz-graphs", 0);
    if (fd < 0)
      return NULL;
  }
  if (ftruncate(fd, 0) != 0 || (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size))
    return NULL;
  return g_strdup_printf("/proc/self/fd/%d", fd);
}

/* The bytes as every churn schedule's file: a schedule or an error. */
static void churn_files(const char *path) {
  static TopoGraph *base = NULL;
  static const char *const forms[] = {"churn:%s", "churn:trace=%s", "churn:trace=%s,format=stunner",
                                      "churn:trace=%s,format=stunner,map=identity,scale=3600"};
  if (base == NULL && (base = topo_graph_generate("ring:n=8", NULL)) == NULL)
    __builtin_trap();
  for (gsize i = 0; i < G_N_ELEMENTS(forms); i++) {
    char *spec = g_strdup_printf(forms[i], path);
    GError *error = NULL;
    TopoSchedule *s = topo_schedule_new(spec, base, TOPO_GOSSIP_UNIFORM, 1, &error);
    if ((s == NULL) == (error == NULL))
      __builtin_trap();
    for (guint t = 0; s != NULL && t < 4; t++)
      for (guint u = 0; u < 8; u++)
        (void)topo_schedule_node_present(s, t, u);
    topo_schedule_free(s);
    g_clear_error(&error);
    g_free(spec);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const TopoGraphFormat formats[] = {TOPO_FORMAT_EDGES, TOPO_FORMAT_CSV, TOPO_FORMAT_GRAPHML,
                                            TOPO_FORMAT_GML, TOPO_FORMAT_PAJEK};
  char *path = as_file(data, size);
  if (path == NULL)
    return 0;
  for (gsize f = 0; f < G_N_ELEMENTS(formats); f++) {
    for (int ignore = 0; ignore < 2; ignore++) {
      GError *error = NULL;
      TopoGraph *g = topo_graph_load_format(path, formats[f], FALSE, ignore, &error);
      if ((g == NULL) == (error == NULL))
        __builtin_trap(); /* a graph, or an error that says why */
      if (g != NULL && topo_graph_n_nodes(g) == 0)
        __builtin_trap();
      topo_graph_free(g);
      g_clear_error(&error);
    }
  }
  churn_files(path);
  g_free(path);
  return 0;
}
