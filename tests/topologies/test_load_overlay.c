/*
 * tests/topologies/test_load_overlay.c: measured overlays as graphs. The
 * vendored 10,000-node pseudo-mainnet (gzip CSV "source,target,latency" of
 * directed links) loads as an undirected graph with the counts a second
 * reading of the file gives, and every edge has a latency under the links:
 * model read from the same file; gzip edge lists load as their plain text;
 * a latency column is checked but never taken for weights; a gzip file cut
 * short or a bad latency is refused with nothing loaded.
 */
#include <string.h>
#include <zlib.h>

#include <glib/gstdio.h>

#include "sim/sim.h"
#include "topologies/topologies.h"
#include "tests/common/checks.h"
#include "tests/common/files.h"

static char *dir;

static TopoGraph *load(const char *path, GError **error) {
  return topo_graph_load_format(path, TOPO_FORMAT_AUTO, FALSE, FALSE, error);
}

/* The overlay: 10,000 nodes; 298,756 links of which 10,800 pairs both ways,
 * hence 287,956 edges (counted from the file by zcat | awk). */
static void test_pseudo_mainnet(void) {
  const char *data = g_getenv("DPG_DATA_DIR");
  g_assert_nonnull(data);
  char *path = g_build_filename(data, "real", "pseudo-mainnet-edges-v1.csv.gz", NULL);
  GError *error = NULL;
  TopoGraph *g = load(path, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(g), ==, 10000);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 287956);
  const TopoLoadReport *r = topo_graph_load_report(g);
  g_assert_true(r->directed && r->latency_column && !r->renumbered && !r->weights_ignored);
  g_assert_cmpuint(r->both_directions, ==, 10800);
  g_assert_cmpuint(r->duplicates, ==, 10800);
  g_assert_cmpuint(r->self_loops, ==, 0);
  /* The links: model on the same file covers every edge, both ways. */
  char *spec = g_strdup_printf("links:file=%s,unit=ms", path);
  SimLatency lat;
  g_assert_true(sim_latency_parse(spec, &lat, &error));
  SimLatencyData *d = sim_latency_data_load(&lat, &error);
  g_assert_no_error(error);
  gsize m = 0;
  guint *e = topo_graph_edges(g, &m);
  SimTime ns;
  for (gsize i = 0; i < m; i++) {
    g_assert_true(sim_latency_data_delay(d, e[2 * i], e[2 * i + 1], &ns));
    g_assert_true(sim_latency_data_delay(d, e[2 * i + 1], e[2 * i], &ns));
  }
  /* The file's first links: 0,2,0.240002774028108 and 2,5,38.9980055459225. */
  g_assert_true(sim_latency_data_delay(d, 0, 2, &ns));
  g_assert_cmpuint(ns, ==, 240003);
  g_assert_true(sim_latency_data_delay(d, 5, 2, &ns));
  g_assert_cmpuint(ns, ==, 38998006);
  g_free(e);
  sim_latency_data_unref(d);
  g_free(spec);
  topo_graph_free(g);
  g_free(path);
}

static void test_gzip_and_latency_column(void) {
  const char *edges = "0 1\n1 2\n2 0\n2 3\n";
  char *plain = test_write_file(dir, "g.edges", edges, -1);
  char *gz = test_write_file(dir, "g.edges.gz", edges, -1);
  GError *error = NULL;
  TopoGraph *a = load(plain, &error), *b = load(gz, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_nodes(b), ==, 4);
  g_assert_cmpuint(topo_graph_n_edges(b), ==, 4);
  gsize ma, mb;
  guint *ea = topo_graph_edges(a, &ma), *eb = topo_graph_edges(b, &mb);
  g_assert_cmpmem(ea, ma * 2 * sizeof(guint), eb, mb * 2 * sizeof(guint));
  g_free(ea);
  g_free(eb);
  topo_graph_free(a);
  topo_graph_free(b);
  /* Unequal latencies are no weights: loaded, and said. */
  char *csv = test_write_file(dir, "lat.csv.gz", "source,target,latency\n0,1,3.5\n1,0,0\n1,2,70\n",
                              -1);
  TopoGraph *g = load(csv, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(topo_graph_n_edges(g), ==, 2);
  g_assert_true(topo_graph_load_report(g)->latency_column);
  topo_graph_free(g);
  /* Another column name is a weight, refused when unequal as ever. */
  char *w = test_write_file(dir, "w.csv", "source,target,lat\n0,1,3.5\n1,2,70\n", -1);
  g_assert_null(load(w, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_PARSE);
  g_assert_nonnull(strstr(error->message, "w.csv:3: edge weight 70 differs from 3.5"));
  g_clear_error(&error);
  /* A latency must be a number >= 0. */
  char *bad = test_write_file(dir, "bad.csv", "source,target,delay\n0,1,3\n1,2,-1\n", -1);
  g_assert_null(load(bad, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_PARSE);
  g_assert_nonnull(strstr(error->message, "bad.csv:3: latency '-1' is not a finite number >= 0"));
  g_clear_error(&error);
  g_free(bad);
  g_free(w);
  g_free(csv);
  g_free(gz);
  g_free(plain);
}

/* A gzip edge list cut short is refused whole: no graph of its first half. */
static void test_gzip_cut(void) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < 50000; i++)
    g_string_append_printf(s, "%u %u\n", i, (i * 7919u + 1) % 50001u);
  char *path = test_write_file(dir, "cut.edges.gz", s->str, -1);
  char *raw = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &raw, &len, NULL));
  g_assert_true(g_file_set_contents(path, raw, (gssize)(len * 2 / 3), NULL));
  GError *error = NULL;
  g_assert_null(load(path, &error));
  g_assert_error(error, TOPO_ERROR, TOPO_ERROR_IO);
  g_assert_nonnull(strstr(error->message, "cut short"));
  g_clear_error(&error);
  g_free(raw);
  g_free(path);
  g_string_free(s, TRUE);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  dir = test_tmpdir("dpg-overlay");
  g_test_add_func("/topologies/overlay/pseudo-mainnet", test_pseudo_mainnet);
  g_test_add_func("/topologies/overlay/gzip-latency-column", test_gzip_and_latency_column);
  g_test_add_func("/topologies/overlay/gzip-cut", test_gzip_cut);
  int rc = g_test_run();
  GDir *d = g_dir_open(dir, 0, NULL);
  for (const char *name; d && (name = g_dir_read_name(d)) != NULL;) {
    char *p = g_build_filename(dir, name, NULL);
    g_remove(p);
    g_free(p);
  }
  if (d)
    g_dir_close(d);
  g_rmdir(dir);
  g_free(dir);
  return rc;
}
