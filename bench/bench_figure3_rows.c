/*
 * bench/bench_figure3_rows.c: where Figure 3's non-private test loss comes
 * from, seed by seed. Runs non-private D-SGD as the scenario
 * figure3-housing-ego.ini does (ego graph, uniform gossip, MLP 8-64-1, clip 1,
 * lr 0.1, k = 20, b = 16, test fraction 0.2, simulation seed s), then splits
 * the final mean test MSE (over nodes) into per-test-row contributions
 * err_r = mean_u (f_u(x_r) - y_r)^2, and prints for each seed the worst rows
 * with their standardized AveRooms / AveOccup, and the MSE without them.
 *
 *   bench_figure3_rows [--standardize yes|all] [--model SPEC]
 *                      [--seeds A..B] [--lr X] [--top K] [--graph FILE]
 *
 * --model mlp:hidden=64,init=fanin starts from PyTorch's default for
 * nn.Linear, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weights and biases
 * alike, as the paper's code does; the default (init=he) is He / Glorot
 * uniform with zero biases (learn_model_init). Data from DPG_DATA_DIR
 * (default: the source tree's data/). Not run by ctest; `make bench`
 * runs the default (seeds 1..20, train-only statistics, our init).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_common.h"
#include "bench/bench_housing.h"
#include "learning/learning.h"
#include "sim/sim.h"
#include "topologies/topologies.h"

#define AVE_ROOMS 2
#define AVE_OCCUP 5

typedef struct {
  double err;
  gsize row;
} RowErr;

static int by_err_desc(const void *a, const void *b) {
  double x = ((const RowErr *)a)->err, y = ((const RowErr *)b)->err;
  return (x < y) - (x > y);
}

static double max_abs(const double *x, gsize d) {
  double m = 0.0;
  for (gsize j = 0; j < d; j++)
    m = MAX(m, fabs(x[j]));
  return m;
}

int main(int argc, char **argv) {
  char *standardize = NULL, *model = NULL, *seeds = NULL, *graph_path = NULL;
  double lr = 0.1;
  gint top = 3;
  GOptionEntry entries[] = {
      {"standardize", 0, 0, G_OPTION_ARG_STRING, &standardize, "yes (train split) or all", "S"},
      {"model", 0, 0, G_OPTION_ARG_STRING, &model, "model spec (default mlp:hidden=64)", "M"},
      {"seeds", 0, 0, G_OPTION_ARG_STRING, &seeds, "A..B (default 1..20)", "R"},
      {"lr", 0, 0, G_OPTION_ARG_DOUBLE, &lr, "learning rate (default 0.1)", "X"},
      {"top", 0, 0, G_OPTION_ARG_INT, &top, "worst rows shown per seed (default 3)", "K"},
      {"graph", 0, 0, G_OPTION_ARG_FILENAME, &graph_path, "edge list (default the ego graph)",
       "FILE"},
      {NULL}};
  GOptionContext *oc = g_option_context_new("- Figure 3's test loss row by row");
  g_option_context_add_main_entries(oc, entries, NULL);
  GError *err = NULL;
  if (!g_option_context_parse(oc, &argc, &argv, &err)) {
    fprintf(stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free(oc);
  guint s0 = 1, s1 = 20;
  if (seeds != NULL && sscanf(seeds, "%u..%u", &s0, &s1) != 2 && sscanf(seeds, "%u", &s0) == 1)
    s1 = s0;
  if (model == NULL)
    model = g_strdup("mlp:hidden=64");
  char *root = bench_data_dir();
  char *data = g_strdup_printf("%s/california/cal_housing.data", root);
  char *gpath = graph_path ? g_strdup(graph_path)
                           : g_strdup_printf("%s/graphs/facebook-ego-414-lcc.edges", root);
  char *spec = g_strdup_printf("california:%s,standardize=%s", data,
                               standardize ? standardize : "yes");
  TopoGraph *g = topo_graph_load(gpath, TRUE, &err);
  if (g == NULL) {
    fprintf(stderr, "%s\n", err->message);
    return 1;
  }
  printf("figure3_rows: %s, model %s, lr %g, graph %s\n",
         spec + strlen("california:") + strlen(data) + 1, model, lr, gpath);
  printf("seed test_mse train_mse(own) max|z|test max|z|train test_mse_without_top1 "
         "without_top%d | worst rows: share AveRooms_z AveOccup_z max|z|\n",
         top);
  double sum_mse = 0.0;
  for (guint s = s0; s <= s1; s++) {
    ProtoRunConfig cfg;
    bench_housing_config(&cfg, g, spec, model, 0.0, lr, s);
    ProtoRun *run = proto_run_new(&cfg, &err);
    if (run == NULL) {
      fprintf(stderr, "%s\n", err->message);
      return 1;
    }
    const LearnModel *m = proto_run_learn_model(run);
    guint n = proto_context_n_nodes(proto_run_context(run));
    if (!proto_run_run(run, &err)) {
      fprintf(stderr, "%s\n", err->message);
      return 1;
    }
    const LearnDataset *te = proto_run_test_set(run), *tr = proto_run_train_set(run);
    gsize d = te->n_features;
    RowErr *rows = g_new0(RowErr, te->n);
    double *scratch = g_new(double, learn_model_scratch_size(m)), out;
    double train = 0.0;
    for (guint u = 0; u < n; u++) {
      const double *params = sim_linvec_const_data(proto_run_node_model(run, u));
      for (gsize r = 0; r < te->n; r++) {
        learn_model_predict(m, params, te->features + r * d, &out, scratch);
        double e = out - te->targets[r];
        rows[r].err += e * e / n;
        rows[r].row = r;
      }
      gsize count;
      const gsize *own = learn_partition_node(proto_run_partition(run), u, &count);
      double l;
      learn_model_evaluate(m, params, tr, own, count, &l, NULL);
      train += l / n;
    }
    double total = 0.0, zte = 0.0, ztr = 0.0;
    for (gsize r = 0; r < te->n; r++) {
      total += rows[r].err;
      zte = MAX(zte, max_abs(te->features + r * d, d));
    }
    for (gsize r = 0; r < tr->n; r++)
      ztr = MAX(ztr, max_abs(tr->features + r * d, d));
    qsort(rows, te->n, sizeof(RowErr), by_err_desc);
    double rest = total;
    printf("%u %.4f %.4f %.1f %.1f %.4f", s, total / te->n, train, zte, ztr,
           (total - rows[0].err) / (te->n - 1));
    for (gint k = 0; k < top && (gsize)k < te->n; k++)
      rest -= rows[k].err;
    printf(" %.4f |", rest / (te->n - top));
    for (gint k = 0; k < top && (gsize)k < te->n; k++) {
      const double *x = te->features + rows[k].row * d;
      printf(" %.2f %.1f %.1f %.1f;", rows[k].err / total, x[AVE_ROOMS], x[AVE_OCCUP],
             max_abs(x, d));
    }
    printf("\n");
    fflush(stdout);
    sum_mse += total / te->n;
    g_free(rows);
    g_free(scratch);
    proto_run_free(run);
  }
  printf("figure3_rows.mean_test_mse %.4f over seeds %u..%u\n", sum_mse / (s1 - s0 + 1), s0, s1);
  topo_graph_free(g);
  g_free(spec);
  g_free(data);
  g_free(root);
  g_free(gpath);
  g_free(standardize);
  g_free(model);
  g_free(seeds);
  g_free(graph_path);
  return 0;
}
