/*
 * bench/bench_train.c: one full housing run as in the paper's experiments:
 * the Facebook-ego graph (148 nodes), uniform gossip, the MLP 8-64-1 on
 * California housing, k = 20 epochs of b = 16 batches (T = 320 steps),
 * DP-D-SGD with sigma = 1, one seed; training keeps no provenance
 * (SIM_LIN_NONE, as `dpgossip train`). Goal: under 2 s.
 *
 * Cases: evaluation at the end only; every 16 rounds with 1 and 2
 * evaluation threads. Each line gives wall time, process CPU time (other
 * jobs on a shared machine inflate wall time, not CPU time) and the split
 * between setup (data, partition, engine) and the run.
 * Data from DPG_DATA_DIR (default: the source tree's data/).
 */
#include <stdio.h>

#include "bench/bench_common.h"
#include "bench/bench_housing.h"

static gboolean run_case(const char *name, const TopoGraph *g, const char *dataset,
                         guint eval_every, guint threads, GError **error) {
  ProtoRunConfig cfg;
  bench_housing_config(&cfg, g, dataset, "mlp:hidden=64", 1.0, 0.2, 1);
  cfg.eval_every = eval_every;
  cfg.threads = threads;
  double w0 = bench_now(), c0 = bench_cpu_seconds();
  ProtoRun *run = proto_run_new(&cfg, error);
  if (run == NULL)
    return FALSE;
  double w1 = bench_now(), c1 = bench_cpu_seconds();
  gboolean ok = proto_run_run(run, error);
  double w2 = bench_now(), c2 = bench_cpu_seconds();
  if (ok) {
    ProtoRunStats st;
    proto_run_get_stats(run, &st);
    printf("train.%s.wall_s %.3f\n", name, w2 - w0);
    printf("train.%s.cpu_s %.3f\n", name, c2 - c0);
    printf("train.%s.setup_wall_s %.3f\n", name, w1 - w0);
    printf("train.%s.run_wall_s %.3f\n", name, w2 - w1);
    printf("train.%s.messages %" G_GUINT64_FORMAT "\n", name, st.engine.messages_sent);
    printf("train.%s.messages_per_cpu_s %.3g\n", name,
           st.engine.messages_sent / MAX(c2 - c1, 1e-9));
    printf("train.%s.final_mean_test_mse %.4f\n", name, proto_run_mean_test_loss(run, 320));
  }
  proto_run_free(run);
  return ok;
}

int main(void) {
  char *graph_path = bench_data_file("graphs/facebook-ego-414-lcc.edges");
  char *data_path = bench_data_file("california/cal_housing.data");
  char *dataset = g_strdup_printf("california:%s", data_path);
  GError *error = NULL;
  int status = 0;
  TopoGraph *g = topo_graph_load(graph_path, FALSE, &error);
  if (g == NULL || !run_case("housing_ego_dsgd_eval_end", g, dataset, 0, 1, &error) ||
      !run_case("housing_ego_dsgd_eval16", g, dataset, 16, 1, &error) ||
      !run_case("housing_ego_dsgd_eval16_threads2", g, dataset, 16, 2, &error)) {
    fprintf(stderr, "bench_train: %s\n", error->message);
    g_error_free(error);
    status = 1;
  }
  topo_graph_free(g);
  g_free(dataset);
  g_free(data_path);
  g_free(graph_path);
  return status;
}
