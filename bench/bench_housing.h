/*
 * bench/bench_housing.h: the paper's housing run (Figure 3) as the
 * benchmarks configure it. Header only (static inline), as bench_common.h.
 */
#ifndef DPG_BENCH_HOUSING_H
#define DPG_BENCH_HOUSING_H

#include "protocols/protocols.h"

/* @cfg for D-SGD on @g with clipping 1 and k = 20 epochs of b = 16
 * batches (T = 320) of @dataset, training only (no provenance, as
 * `dpgossip train`); the noise, step, model and seed are the caller's, the
 * rest proto_run_config_init's. */
static inline void bench_housing_config(ProtoRunConfig *cfg, const TopoGraph *g,
                                        const char *dataset, const char *model, double sigma,
                                        double lr, guint64 seed) {
  proto_run_config_init(cfg);
  cfg->graph = g;
  cfg->protocol = "dsgd";
  cfg->sigma = sigma;
  cfg->clip = 1.0;
  cfg->lr = lr;
  cfg->epochs = 20;
  cfg->batches = 16;
  cfg->dataset = dataset;
  cfg->model = model;
  cfg->seed = seed;
  cfg->storage = SIM_LIN_NONE;
}

#endif
