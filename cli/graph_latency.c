/*
 * cli/graph_latency.c: `dpgossip graph --latency SPEC`: the delays a measured
 * latency model gives the graph's links, and whether it places the nodes
 * (geo:), to check a latency file against a graph before running on it.
 */
#include <math.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/graph_latency.h"
#include "sim/sim.h"

gboolean cli_graph_latency_stats(const TopoGraph *g, const char *spec, CliGraphLatency *st,
                                 GError **error) {
  g_return_val_if_fail(g != NULL && spec != NULL && st != NULL, FALSE);
  SimLinkParams p = {.loss = 0};
  if (!sim_latency_parse(spec, &p.latency, error))
    return FALSE;
  if (!SIM_LATENCY_IS_MEASURED(&p.latency)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "%s gives every link the same law: give a measured model (links:, "
                "country: or geo:) to see its delays on the graph",
                spec);
    return FALSE;
  }
  SimLatencyData *d = sim_latency_data_load_named(&p.latency, topo_graph_node_find_cb, g, error);
  if (d == NULL)
    return FALSE;
  *st = (CliGraphLatency){.spec = g_strdup(spec), .min_ms = INFINITY};
  double sum = 0;
  gboolean ok = TRUE;
  guint n = topo_graph_n_nodes(g);
  for (guint u = 0; ok && u < n; u++) {
    guint deg;
    const guint *nb = topo_graph_neighbors(g, u, &deg);
    for (guint i = 0; ok && i < deg; i++) {
      SimTime ns;
      ok = sim_latency_data_delay(d, u, nb[i], &ns);
      if (!ok) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                    "link %u -> %u has no delay under %s (a run refuses it the same way)", u,
                    nb[i], spec);
        break;
      }
      double ms = (double)ns * 1e-6;
      sum += ms;
      st->min_ms = MIN(st->min_ms, ms);
      st->max_ms = MAX(st->max_ms, ms);
      st->links++;
    }
    double lon, lat;
    st->located += sim_latency_data_position(d, u, &lon, &lat);
  }
  st->mean_ms = st->links > 0 ? sum / (double)st->links : NAN;
  if (st->links == 0)
    st->min_ms = NAN;
  st->model = sim_latency_data_describe(d);
  sim_latency_data_unref(d);
  if (!ok)
    cli_graph_latency_clear(st);
  return ok;
}

void cli_graph_latency_table(const CliGraphLatency *st) {
  printf("latency        %s\n", st->model);
  if (st->located > 0)
    printf("locations      %u nodes placed\n", st->located);
  printf("link delay     mean %.4g ms  min %.4g ms  max %.4g ms  (%" G_GUINT64_FORMAT
         " directed links, both ways of every edge)\n",
         st->mean_ms, st->min_ms, st->max_ms, st->links);
}

void cli_graph_latency_json(JsonBuilder *b, const CliGraphLatency *st) {
  cli_json_begin_object(b, "latency");
  cli_json_string(b, "spec", st->spec);
  cli_json_string(b, "model", st->model);
  cli_json_int(b, "located_nodes", st->located);
  cli_json_int(b, "links", (gint64)st->links);
  cli_json_number(b, "mean_ms", st->mean_ms);
  cli_json_number(b, "min_ms", st->min_ms);
  cli_json_number(b, "max_ms", st->max_ms);
  json_builder_end_object(b);
}

void cli_graph_latency_clear(CliGraphLatency *st) {
  if (st == NULL)
    return;
  g_clear_pointer(&st->spec, g_free);
  g_clear_pointer(&st->model, g_free);
}
