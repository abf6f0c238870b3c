/*
 * tests/protocols/proto_test.h: helpers for the protocol tests: a bus
 * recorder of gossip messages, the paper's workload blocks
 * P(r, q) = W_{r-1} ... W_q (identity when r = q) and dense inverses,
 * computed independently of the runtime. Header-only.
 */
#ifndef DPG_TESTS_PROTO_TEST_H
#define DPG_TESTS_PROTO_TEST_H

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "protocols/protocols.h"

/* One transmission seen on the bus (SENT, tag 0). */
typedef struct {
  guint from, to, round;
  SimMessage *msg; /* a reference */
} RecMsg;

typedef struct {
  GArray *sent; /* RecMsg */
  guint rounds_published;
} Recorder;

static void recorder_cb(const SimBusEvent *ev, gpointer data) {
  Recorder *rec = data;
  if (ev->kind == SIM_BUS_ROUND) {
    rec->rounds_published++;
    return;
  }
  if (ev->kind != SIM_BUS_MESSAGE_SENT || sim_message_tag(ev->message) != 0)
    return;
  RecMsg m = {ev->from, ev->to, ev->round, sim_message_ref((SimMessage *)ev->message)};
  g_array_append_val(rec->sent, m);
}

static inline Recorder *recorder_attach(ProtoRun *run) {
  Recorder *rec = g_new0(Recorder, 1);
  rec->sent = g_array_new(FALSE, FALSE, sizeof(RecMsg));
  GError *err = NULL;
  g_assert_cmpuint(
      sim_bus_subscribe(sim_engine_bus(proto_run_engine(run)), recorder_cb, rec, NULL, &err), >, 0);
  g_assert_no_error(err);
  return rec;
}

static inline void recorder_free(Recorder *rec) {
  for (guint i = 0; i < rec->sent->len; i++)
    sim_message_unref(g_array_index(rec->sent, RecMsg, i).msg);
  g_array_free(rec->sent, TRUE);
  g_free(rec);
}

static inline const SimLinvec *rec_payload(const RecMsg *m) {
  return sim_message_provenance(m->msg);
}

/* Dense W_r of every round r < R: from a static graph or a schedule. */
static inline double **dense_rounds(const TopoGraph *g, TopoGossipKind kind, TopoSchedule *s,
                                    guint R) {
  double **W = g_new0(double *, R);
  GError *err = NULL;
  for (guint r = 0; r < R; r++) {
    TopoGossip *w = s ? topo_schedule_gossip(s, r, &err) : topo_gossip_new(g, kind, &err);
    g_assert_no_error(err);
    W[r] = topo_gossip_dense(w);
    topo_gossip_free(w);
  }
  return W;
}

static inline void dense_rounds_free(double **W, guint R) {
  for (guint r = 0; r < R; r++)
    g_free(W[r]);
  g_free(W);
}

/* P[r][q] (n x n) for q <= r <= R: W_{r-1} ... W_q. */
typedef struct {
  guint n, R;
  double **P; /* index r * (R + 1) + q, NULL for q > r */
} Products;

static inline Products products_new(double **W, guint n, guint R) {
  Products p = {n, R, g_new0(double *, (gsize)(R + 1) * (R + 1))};
  for (guint q = 0; q <= R; q++) {
    double *I = g_new0(double, (gsize)n *n);
    for (guint i = 0; i < n; i++)
      I[i * n + i] = 1.0;
    p.P[q * (R + 1) + q] = I;
    for (guint r = q; r < R; r++) {
      const double *prev = p.P[r * (R + 1) + q];
      double *next = g_new0(double, (gsize)n *n);
      for (guint i = 0; i < n; i++)
        for (guint k = 0; k < n; k++) {
          double a = W[r][i * n + k];
          if (a != 0.0)
            for (guint j = 0; j < n; j++)
              next[i * n + j] += a * prev[k * n + j];
        }
      p.P[(r + 1) * (R + 1) + q] = next;
    }
  }
  return p;
}

static inline double products_get(const Products *p, guint r, guint q, guint u, guint v) {
  g_assert_cmpuint(q, <=, r);
  return p->P[r * (p->R + 1) + q][u * p->n + v];
}

static inline void products_free(Products *p) {
  for (gsize i = 0; i < (gsize)(p->R + 1) * (p->R + 1); i++)
    g_free(p->P[i]);
  g_free(p->P);
}

/* The inverse of the invertible k x k @M (g_free), by Gauss-Jordan with
 * partial pivoting: independent of the library's factorizations. The test
 * fails on a pivot below 1e-12 in magnitude. O(k^3). */
static inline double *dense_inverse(const double *M, guint k) {
  double *A = g_memdup2(M, (gsize)k * k * sizeof(double));
  double *X = g_new0(double, (gsize)k *k);
  for (guint i = 0; i < k; i++)
    X[i * k + i] = 1.0;
  for (guint c = 0; c < k; c++) {
    guint piv = c;
    for (guint r = c + 1; r < k; r++)
      if (fabs(A[r * k + c]) > fabs(A[piv * k + c]))
        piv = r;
    for (guint j = 0; j < k; j++) {
      double t = A[c * k + j];
      A[c * k + j] = A[piv * k + j];
      A[piv * k + j] = t;
      t = X[c * k + j];
      X[c * k + j] = X[piv * k + j];
      X[piv * k + j] = t;
    }
    double d = A[c * k + c];
    g_assert_cmpfloat(fabs(d), >, 1e-12);
    for (guint j = 0; j < k; j++) {
      A[c * k + j] /= d;
      X[c * k + j] /= d;
    }
    for (guint r = 0; r < k; r++)
      if (r != c && A[r * k + c] != 0.0) {
        double f = A[r * k + c];
        for (guint j = 0; j < k; j++) {
          A[r * k + j] -= f * A[c * k + j];
          X[r * k + j] -= f * X[c * k + j];
        }
      }
  }
  g_free(A);
  return X;
}

static inline void assert_close(double got, double want, double tol, const char *what) {
  if (!(fabs(got - want) <= tol)) {
    g_test_message("%s: got %.17g, want %.17g", what, got, want);
    g_assert_cmpfloat_with_epsilon(got, want, tol);
  }
}

/* The graph and the data of the protocol tests' training runs: 12 nodes,
 * synthetic linear records (400 of them, d = 5). */
#define TRAIN_GRAPH "erdos:n=12,p=0.4,seed=2,connected=true"
#define TRAIN_DATA "synthetic:linear,n=400,d=5,noise=0.1,seed=3"

/* proto_run_config_init, then what the training runs share: TRAIN_DATA,
 * sigma 0.5, lr 0.05, @threads threads, seed @seed and provenance @storage. */
static inline void train_config(ProtoRunConfig *cfg, guint threads, guint64 seed,
                                SimLinStorage storage) {
  proto_run_config_init(cfg);
  cfg->dataset = TRAIN_DATA;
  cfg->sigma = 0.5;
  cfg->lr = 0.05;
  cfg->threads = threads;
  cfg->seed = seed;
  cfg->storage = storage;
}

/* The run of @cfg on the graph of generator spec @graph (the run keeps its
 * own copy), not started; the test fails on an error. */
static inline ProtoRun *run_on_graph(const ProtoRunConfig *cfg, const char *graph) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate(graph, &err);
  g_assert_no_error(err);
  ProtoRunConfig c = *cfg;
  c.graph = g;
  ProtoRun *run = proto_run_new(&c, &err);
  g_assert_no_error(err);
  topo_graph_free(g);
  return run;
}

static inline char *test_data_path(const char *name) {
  return g_build_filename(g_getenv("DPG_TEST_DATA"), name, NULL);
}

static inline char *data_path(const char *name) {
  return g_build_filename(g_getenv("DPG_DATA_DIR"), name, NULL);
}

#endif
