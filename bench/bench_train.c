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
#include <time.h>

#include "protocols/protocols.h"

static double wall(void) {
  return (double)g_get_monotonic_time() / 1e6;
}

static double cpu(void) {
  return (double)clock() / CLOCKS_PER_SEC;
}

static char *data_file(const char *rel) {
  const char *env = g_getenv("DPG_DATA_DIR");
  char *dir;
  if (env != NULL) {
    dir = g_strdup(env);
  } else {
    char *src = g_path_get_dirname(__FILE__);
    dir = g_build_filename(src, "..", "data", NULL);
    g_free(src);
  }
  char *path = g_build_filename(dir, rel, NULL);
  g_free(dir);
  return path;
}

static gboolean run_case(const char *name, const TopoGraph *g, const char *dataset,
                         guint eval_every, guint threads, GError **error) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = g;
  cfg.protocol = "dsgd";
  cfg.sigma = 1.0;
  cfg.clip = 1.0;
  cfg.lr = 0.2;
  cfg.epochs = 20;
  cfg.batches = 16;
  cfg.dataset = dataset;
  cfg.model = "mlp:hidden=64";
  cfg.seed = 1;
  cfg.eval_every = eval_every;
  cfg.threads = threads;
  cfg.storage = SIM_LIN_NONE;
  double w0 = wall(), c0 = cpu();
  ProtoRun *run = proto_run_new(&cfg, error);
  if (run == NULL)
    return FALSE;
  double w1 = wall(), c1 = cpu();
  gboolean ok = proto_run_run(run, error);
  double w2 = wall(), c2 = cpu();
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
  char *graph_path = data_file("graphs/facebook-ego-414-lcc.edges");
  char *data_path = data_file("california/cal_housing.data");
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
