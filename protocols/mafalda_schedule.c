/*
 * protocols/mafalda_schedule.c: the expected workload Gram matrix E[H] of a
 * gossip schedule, exact or sampled (docs/design.md, "Mafalda over a
 * changing network"): the one home of the objective that `dpgossip mafalda
 * --schedule` reports and that `-p mafalda` fits its C to in account, train,
 * audit, scenarios and the Python package.
 */
#include <string.h>
#include <unistd.h>

#include "protocols/internal.h"

/* Outcomes of a round enumerated at most (edge-failure: 2^22 patterns, a
 * graph of 22 edges; seconds on Florentine's 2^20). */
#define MAX_OUTCOMES ((guint64)1 << 22)

const char *proto_expectation_name(ProtoExpectation how) {
  static const char *const names[] = {"static", "trace", "iid", "sampled"};
  return names[how];
}

void proto_schedule_gram_clear(ProtoScheduleGram *sg) {
  g_clear_pointer(&sg->W, g_free);
  g_clear_pointer(&sg->H, g_free);
  if (sg->score != NULL)
    for (guint i = 0; i < sg->n_score; i++)
      g_free(sg->score[i]);
  g_clear_pointer(&sg->score, g_free);
}

static guint64 physical_bytes(void) {
  return (guint64)sysconf(_SC_PHYS_PAGES) * (guint64)sysconf(_SC_PAGESIZE);
}

/* Fails naming the bytes when @count doubles exceed physical memory. */
static gboolean check_bytes(double count, const char *what, GError **error) {
  double bytes = 8.0 * count;
  if (bytes <= (double)physical_bytes())
    return TRUE;
  g_set_error(error, MF_ERROR, MF_ERROR_MEMORY,
              "%s needs %.4g bytes, more than this machine's %" G_GUINT64_FORMAT
              " bytes of memory: fewer rounds, samples or nodes",
              what, bytes, physical_bytes());
  return FALSE;
}

typedef struct {
  double **Wt;
} Seq;

static const double *seq_at(guint t, gpointer data) {
  return ((Seq *)data)->Wt[t];
}

/* The Gram matrix of the T rounds @s draws: its T dense W_t, then
 * mf_gram_time_varying (O(n^3 T^2)). */
static double *trace_gram(TopoSchedule *s, guint T, MfWorkload wl, GError **error) {
  guint n = topo_schedule_n(s);
  double *H = NULL;
  Seq seq = {g_new0(double *, T)};
  for (guint t = 0; t < T; t++) {
    TopoGossip *w = topo_schedule_gossip(s, t, error);
    if (w == NULL)
      goto out;
    seq.Wt[t] = topo_gossip_dense(w);
    topo_gossip_free(w);
  }
  H = mf_gram_time_varying(n, T, wl, seq_at, &seq, error);
out:
  for (guint t = 0; t < T; t++)
    g_free(seq.Wt[t]);
  g_free(seq.Wt);
  return H;
}

/* The T sparse W_t of @s, for mf_gram_sketch. */
typedef struct {
  TopoGossip **w;
  guint T;
} Sparse;

static void sparse_clear(Sparse *sp) {
  if (sp->w != NULL)
    for (guint t = 0; t < sp->T; t++)
      topo_gossip_free(sp->w[t]);
  g_clear_pointer(&sp->w, g_free);
}

static gboolean sparse_rounds(Sparse *sp, TopoSchedule *s, guint T, GError **error) {
  sp->T = T;
  sp->w = g_new0(TopoGossip *, T);
  for (guint t = 0; t < T; t++)
    if ((sp->w[t] = topo_schedule_gossip(s, t, error)) == NULL) {
      sparse_clear(sp);
      return FALSE;
    }
  return TRUE;
}

/* y = W_t x on the first @d columns (rows @ld apart). */
static void sparse_apply(guint t, const double *x, double *y, guint d, gsize ld, gpointer data) {
  const TopoGossip *w = ((Sparse *)data)->w[t];
  guint n = topo_gossip_n(w);
  for (guint u = 0; u < n; u++) {
    const guint *cols;
    const double *vals;
    guint len = topo_gossip_row(w, u, &cols, &vals);
    double *yu = y + (gsize)u * ld;
    memset(yu, 0, d * sizeof(double));
    for (guint e = 0; e < len; e++) {
      const double *xv = x + (gsize)cols[e] * ld;
      double a = vals[e];
      for (guint c = 0; c < d; c++)
        yu[c] += a * xv[c];
    }
  }
}

/* @s's K probes' Gram estimates (mf_gram_sketch over its sparse W_t). */
static double **sketch_grams(TopoSchedule *s, guint T, MfWorkload wl, guint K, guint64 seed,
                             GError **error) {
  Sparse sp = {0};
  if (!sparse_rounds(&sp, s, T, error))
    return NULL;
  double **H = mf_gram_sketch(topo_schedule_n(s), T, wl, sparse_apply, &sp, K, seed, NULL, 0,
                              error);
  sparse_clear(&sp);
  return H;
}

/* One schedule's Gram matrix: exact, or the mean of @sg->probes probes
 * (seeded by the schedule's own seed). */
static double *schedule_gram_one(const ProtoScheduleGram *sg, TopoSchedule *s, guint T,
                                 guint64 seed, GError **error) {
  if (sg->probes == 0)
    return trace_gram(s, T, sg->workload, error);
  double **Hk = sketch_grams(s, T, sg->workload, sg->probes, seed, error);
  if (Hk == NULL)
    return NULL;
  double *H = Hk[0];
  for (guint k = 1; k < sg->probes; k++) {
    for (gsize j = 0; j < (gsize)T * T; j++)
      H[j] += Hk[k][j];
    g_free(Hk[k]);
  }
  for (gsize j = 0; j < (gsize)T * T; j++)
    H[j] /= sg->probes;
  g_free(Hk);
  return H;
}

/* The K probes' Frobenius products of @s's one W (mf_gram_sketch_static
 * over its sparse gossip). */
static double **sketch_static(TopoSchedule *s, guint T, MfWorkload wl, guint K, guint64 seed,
                              GError **error) {
  Sparse sp = {0};
  if (!sparse_rounds(&sp, s, 1, error))
    return NULL;
  double **F = mf_gram_sketch_static(topo_schedule_n(s), T, wl, sparse_apply, &sp, K, seed, NULL,
                                     0, error);
  sparse_clear(&sp);
  return F;
}

/* The mean of @K T x T matrices @M (each freed, and the array). */
static double *mean_of(double **M, guint K, guint T) {
  double *mean = M[0];
  for (guint k = 1; k < K; k++) {
    for (gsize j = 0; j < (gsize)T * T; j++)
      mean[j] += M[k][j];
    g_free(M[k]);
  }
  for (gsize j = 0; j < (gsize)T * T; j++)
    mean[j] /= K;
  g_free(M);
  return mean;
}

gboolean proto_sketch_gram(TopoSchedule *s, guint T, MfWorkload wl, guint K, guint64 seed,
                           double **H, MfGramSpectral **form, GError **error) {
  g_return_val_if_fail(s != NULL && H != NULL && K > 0, FALSE);
  *H = NULL;
  if (form != NULL)
    *form = NULL;
  if (topo_schedule_is_static(s)) {
    double **F = sketch_static(s, T, wl, K, seed, error);
    if (F == NULL)
      return FALSE;
    double *mean = mean_of(F, K, T);
    *H = mf_gram_from_frobenius(mean, T, error);
    if (*H != NULL && form != NULL &&
        (*form = mf_gram_spectral_from_frobenius(mean, T, wl, error)) == NULL)
      g_clear_pointer(H, g_free);
    g_free(mean);
    return *H != NULL;
  }
  if (form != NULL || topo_schedule_randomness(s) != TOPO_SCHEDULE_FIXED) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "probes=%u sketches a static gossip%s", K,
                form != NULL ? " (this fit needs one W)"
                             : " or a fixed sequence (exponential, a churn trace), not a random "
                               "schedule");
    return FALSE;
  }
  double **Hk = sketch_grams(s, T, wl, K, seed, error);
  if (Hk == NULL)
    return FALSE;
  *H = mean_of(Hk, K, T);
  return TRUE;
}

/* A static W or a fixed schedule, sketched: C fitted on the mean of K
 * probes (proto_sketch_gram, as -p mafalda:probes=K computes it), the
 * strategies scored on K other probes (seeds seed and seed + 1), so that
 * the fitted C's score is not the optimistic in-sample one. A static W's
 * scoring probes come from its Frobenius products (mf_gram_sketch_static:
 * T products with W per probe, not T^2 / 2). */
static gboolean sketched(ProtoScheduleGram *sg, TopoSchedule *s, guint T, GError **error) {
  guint K = sg->probes;
  if (K < 2) {
    g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
                "a sketched Gram matrix needs at least 2 probes for its standard error (got %u)",
                K);
    return FALSE;
  }
  if (!proto_sketch_gram(s, T, sg->workload, K, sg->seed, &sg->H, NULL, error))
    return FALSE;
  double **score;
  if (topo_schedule_is_static(s)) {
    double **F = sketch_static(s, T, sg->workload, K, sg->seed + 1, error);
    if (F == NULL)
      return FALSE;
    score = g_new0(double *, K);
    gboolean ok = TRUE;
    for (guint k = 0; k < K; k++) {
      if (ok && (score[k] = mf_gram_from_frobenius(F[k], T, error)) == NULL)
        ok = FALSE;
      g_free(F[k]);
    }
    g_free(F);
    if (!ok) {
      for (guint k = 0; k < K; k++)
        g_free(score[k]);
      g_free(score);
      return FALSE;
    }
  } else if ((score = sketch_grams(s, T, sg->workload, K, sg->seed + 1, error)) == NULL) {
    return FALSE;
  }
  sg->how = PROTO_EXPECT_SAMPLED;
  sg->score = score;
  sg->n_score = K;
  return TRUE;
}

static gboolean sampled(ProtoScheduleGram *sg, const TopoSchedule *s, guint T, GError **error) {
  guint n = topo_schedule_n(s), S = sg->samples;
  /* The scoring set (S T^2), the running mean, and one schedule's T W_t
   * (dense when exact). */
  double one = sg->probes ? 0.0 : (double)T * n * n;
  if (!check_bytes((double)S * T * T + 2.0 * T * T + one, "estimating from sampled schedules",
                   error))
    return FALSE;
  sg->how = PROTO_EXPECT_SAMPLED;
  sg->H = g_new0(double, (gsize)T *T);
  sg->score = g_new0(double *, S);
  sg->n_score = S;
  /* Fitted on seeds seed .. seed+S-1, scored on seed+S .. seed+2S-1: the
   * fitted C's score is then an unbiased estimate of its expected loss,
   * not the optimistic in-sample one. */
  for (guint i = 0; i < 2 * S; i++) {
    TopoSchedule *si = topo_schedule_reseeded(s, sg->seed + i, error);
    double *H = si != NULL ? schedule_gram_one(sg, si, T, sg->seed + i, error) : NULL;
    topo_schedule_free(si);
    if (H == NULL)
      return FALSE;
    if (i >= S) {
      sg->score[i - S] = H;
      continue;
    }
    for (gsize j = 0; j < (gsize)T * T; j++)
      sg->H[j] += H[j] / S;
    g_free(H);
  }
  return TRUE;
}

gboolean proto_schedule_gram(ProtoScheduleGram *sg, TopoSchedule *s, guint T, GError **error) {
  g_return_val_if_fail(sg != NULL && s != NULL && T > 0, FALSE);
  gint64 start = g_get_monotonic_time();
  guint n = topo_schedule_n(s);
  gboolean ok = FALSE;
  TopoScheduleRandomness how = topo_schedule_randomness(s);
  if (sg->samples > 0) {
    ok = sampled(sg, s, T, error);
  } else if (topo_schedule_is_static(s) && sg->probes > 0) {
    ok = sketched(sg, s, T, error);
  } else if (topo_schedule_is_static(s)) {
    sg->how = PROTO_EXPECT_STATIC;
    sg->W = proto_schedule_gossip_dense(s, 0, error);
    ok = sg->W != NULL;
  } else if (how == TOPO_SCHEDULE_FIXED && sg->probes > 0) {
    ok = sketched(sg, s, T, error);
  } else if (how == TOPO_SCHEDULE_FIXED) {
    sg->how = PROTO_EXPECT_TRACE;
    ok = check_bytes((double)T * n * n + 4.0 * n * n + (double)T * T,
                     "the Gram matrix of the schedule's trace", error) &&
         (sg->H = trace_gram(s, T, sg->workload, error)) != NULL;
  } else if (how == TOPO_SCHEDULE_IID) {
    double *M = NULL, *Q = NULL;
    ok = topo_schedule_round_moments(s, MAX_OUTCOMES, 0, &M, &Q, &sg->outcomes, error);
    if (ok && sg->outcomes == 1) {
      sg->how = PROTO_EXPECT_STATIC; /* one outcome of probability 1: M is W */
      sg->W = g_steal_pointer(&M);
    } else if (ok) {
      sg->how = PROTO_EXPECT_IID;
      sg->H = mf_gram_iid(n, T, sg->workload, M, Q, 0, error);
      ok = sg->H != NULL;
    }
    g_free(M);
    g_free(Q);
  } else {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "a random schedule without a finite per-round law: its expectation must be "
                "estimated from sampled schedules");
  }
  sg->seconds = (double)(g_get_monotonic_time() - start) / 1e6;
  return ok;
}

/* ---- Per-class Gram matrices (docs/design.md "Per-class C") ---- */

static const double *const_at(guint t, gpointer data) {
  (void)t;
  return data;
}

/* The class-restricted probes: mf_gram_sketch's signs on class @c's nodes,
 * 0 elsewhere (n x K), so that E[z z^T] is the projector on the class and
 * the probes' mean estimates H_c. */
static double *class_probes(guint n, guint K, guint64 seed, const guint *cls, guint c) {
  double *Z = g_new0(double, (gsize)n *K);
  for (guint u = 0; u < n; u++)
    if (cls[u] == c)
      for (guint k = 0; k < K; k++)
        Z[(gsize)u * K + k] = mf_probe_sign(seed, k, u);
  return Z;
}

/* The mean of @K probes' T x T estimates into @out, freeing them. */
static void probes_mean(double **Hk, guint K, guint T, double *out) {
  memset(out, 0, sizeof(double) * T * T);
  for (guint k = 0; k < K; k++) {
    for (gsize j = 0; j < (gsize)T * T; j++)
      out[j] += Hk[k][j];
    g_free(Hk[k]);
  }
  for (gsize j = 0; j < (gsize)T * T; j++)
    out[j] /= K;
  g_free(Hk);
}

gboolean proto_schedule_gram_classes(const ProtoScheduleGram *sg, TopoSchedule *s, guint T,
                                     const guint *node_class, guint K, double **fit, double **score,
                                     GError **error) {
  g_return_val_if_fail(sg != NULL && s != NULL && node_class != NULL && K > 0, FALSE);
  guint n = topo_schedule_n(s);
  *fit = NULL;
  if (score != NULL)
    *score = NULL;
  if (sg->how == PROTO_EXPECT_STATIC) {
    if (!check_bytes(3.0 * n * n + (double)K * T * T, "the classes' Gram matrices", error))
      return FALSE;
    *fit = mf_gram_time_varying_classes(n, T, sg->workload, const_at, sg->W, node_class, K, error);
    return *fit != NULL;
  }
  if (sg->how == PROTO_EXPECT_TRACE) {
    if (!check_bytes((double)T * n * n + 4.0 * n * n + (double)K * T * T,
                     "the classes' Gram matrices of the schedule's trace", error))
      return FALSE;
    Seq seq = {g_new0(double *, T)};
    gboolean ok = TRUE;
    for (guint t = 0; ok && t < T; t++) {
      TopoGossip *w = topo_schedule_gossip(s, t, error);
      ok = w != NULL;
      if (ok)
        seq.Wt[t] = topo_gossip_dense(w);
      topo_gossip_free(w);
    }
    if (ok)
      *fit = mf_gram_time_varying_classes(n, T, sg->workload, seq_at, &seq, node_class, K, error);
    for (guint t = 0; t < T; t++)
      g_free(seq.Wt[t]);
    g_free(seq.Wt);
    return *fit != NULL;
  }
  if (sg->how == PROTO_EXPECT_SAMPLED && sg->samples == 0 && sg->probes >= 1) {
    /* A sketched trace: each class fitted on the probes seeded sg->seed and
     * scored on those seeded sg->seed + 1, restricted to its nodes. */
    Sparse sp = {0};
    if (!sparse_rounds(&sp, s, T, error))
      return FALSE;
    double *F = g_new0(double, (gsize)K *T *T), *S = g_new0(double, (gsize)K *T *T);
    gboolean ok = TRUE;
    for (guint c = 0; ok && c < K; c++)
      for (guint half = 0; ok && half < 2; half++) {
        double *Z = class_probes(n, sg->probes, sg->seed + half, node_class, c);
        double **Hk = mf_gram_sketch(n, T, sg->workload, sparse_apply, &sp, sg->probes,
                                     sg->seed + half, Z, 0, error);
        g_free(Z);
        ok = Hk != NULL;
        if (ok)
          probes_mean(Hk, sg->probes, T, (half ? S : F) + (gsize)c * T * T);
      }
    sparse_clear(&sp);
    if (!ok) {
      g_free(F);
      g_free(S);
      return FALSE;
    }
    *fit = F;
    if (score != NULL)
      *score = S;
    else
      g_free(S);
    return TRUE;
  }
  g_set_error(error, MF_ERROR, MF_ERROR_INVALID_ARGUMENT,
              "per-class Gram matrices: a static graph, a fixed sequence (exact) or a sketched "
              "one (--probes) only; not yet independent rounds (%s) or sampled schedules",
              proto_expectation_name(sg->how));
  return FALSE;
}

gboolean proto_schedule_online(TopoSchedule *s, guint T, double *frac) {
  g_return_val_if_fail(s != NULL && frac != NULL && T > 0, FALSE);
  guint n = topo_schedule_n(s);
  for (guint u = 0; u < n; u++) {
    guint up = 0;
    for (guint t = 0; t < T; t++)
      up += topo_schedule_node_present(s, t, u) ? 1 : 0;
    frac[u] = (double)up / T;
  }
  return TRUE;
}

typedef struct {
  const double *frac;
} ByFrac;

static int by_frac(gconstpointer a, gconstpointer b, gpointer data) {
  const double *f = ((const ByFrac *)data)->frac;
  guint u = *(const guint *)a, v = *(const guint *)b;
  if (f[u] != f[v])
    return f[u] < f[v] ? -1 : 1;
  return u < v ? -1 : u > v;
}

void proto_classes_by_rank(const double *frac, guint n, guint K, guint *node_class) {
  g_return_if_fail(frac != NULL && node_class != NULL && K > 0 && n > 0);
  guint *order = g_new(guint, n);
  for (guint u = 0; u < n; u++)
    order[u] = u;
  ByFrac d = {frac};
  g_qsort_with_data(order, (gint)n, sizeof(guint), by_frac, &d);
  /* Equal sizes: rank i goes to class floor(i K / n). */
  for (guint i = 0; i < n; i++)
    node_class[order[i]] = (guint)(((guint64)i * K) / n);
  g_free(order);
}

/* ---- Deadline mode: the delivery records' Gram matrix ---- */

/* Whether @a and @b are the same matrix, entry for entry, bit for bit. */
static gboolean gossip_equal(const TopoGossip *a, const TopoGossip *b) {
  guint n = topo_gossip_n(a);
  if (topo_gossip_n(b) != n)
    return FALSE;
  for (guint u = 0; u < n; u++) {
    const guint *ca, *cb;
    const double *va, *vb;
    guint la = topo_gossip_row(a, u, &ca, &va), lb = topo_gossip_row(b, u, &cb, &vb);
    if (la != lb || memcmp(ca, cb, la * sizeof(guint)) != 0 ||
        memcmp(va, vb, la * sizeof(double)) != 0)
      return FALSE;
  }
  return TRUE;
}

/* The whole graph's delivery record of @cfg over @T rounds: the timing
 * pass with every node kept and recorded (its record is the engine's, bit
 * for bit), or the engine's run where the pass does not apply. */
static ProtoDeliveries *whole_record(const ProtoRunConfig *cfg, guint n, guint T, GError **error) {
  guint *keep = g_new(guint, n);
  guint8 *rows = g_new(guint8, n);
  for (guint v = 0; v < n; v++) {
    keep[v] = v;
    rows[v] = 1;
  }
  char *fallback = NULL;
  ProtoDeliveries *d = proto_deliveries_time_ball(cfg, T, keep, n, rows, NULL, NULL, &fallback,
                                                  error);
  if (d == NULL && fallback != NULL)
    d = proto_deliveries_record(cfg, T, NULL, NULL, error);
  g_free(fallback);
  g_free(keep);
  g_free(rows);
  return d;
}

/* Record @d's workload Gram matrix: exact from its dense W_r, or the mean
 * of @probes probes seeded @seed over its sparse W_r. In stale mode the
 * W_r act on the delay-augmented state (the n nodes, then the slots of the
 * late messages, docs/design.md "Mafalda under stale mode"): the same
 * computation over N = n + slots coordinates, the noise entering and the
 * workload read on the nodes alone (mf_gram_time_varying_state,
 * mf_gram_sketch_state); N = n in deadline mode. */
static double *record_gram(const ProtoDeliveries *d, guint n, guint T, MfWorkload wl, guint probes,
                           guint64 seed, GError **error) {
  const TopoGossip *const *w = proto_deliveries_gossip(d);
  guint N = topo_gossip_n(w[0]);
  if (probes > 0) {
    Sparse sp = {(TopoGossip **)w, T}; /* borrowed: not sparse_clear'ed */
    double **Hk = mf_gram_sketch_state(n, N, T, wl, sparse_apply, &sp, probes, seed, NULL, 0,
                                       error);
    return Hk != NULL ? mean_of(Hk, probes, T) : NULL;
  }
  /* The record's dense W_r and the recursion's work space. */
  if (!check_bytes((double)T * N * N + 4.0 * N * N + 2.0 * T * T,
                   "the Gram matrix of a delivery record", error))
    return NULL;
  Seq seq = {g_new0(double *, T)};
  for (guint t = 0; t < T; t++)
    seq.Wt[t] = topo_gossip_dense(w[t]);
  double *H = mf_gram_time_varying_state(n, N, T, wl, seq_at, &seq, error);
  for (guint t = 0; t < T; t++)
    g_free(seq.Wt[t]);
  g_free(seq.Wt);
  return H;
}

/* The purpose of the delivery records' seeds (sim_rng_stream_seed): its
 * own, apart from the run's streams (SIM_RNG_USER + 40 .. 47). */
#define DELIVERY_RECORDS_PURPOSE (SIM_RNG_USER + 45)

guint64 proto_delivery_record_seed(guint64 seed, guint i) {
  guint64 s = sim_rng_stream_seed(seed, i, DELIVERY_RECORDS_PURPOSE);
  /* A hash may return its key (probability 2^-64 a record): the record
   * would then redraw the run's own latencies, which a C must not know. */
  return s != seed ? s : ~seed;
}

gboolean proto_delivery_gram(ProtoDeliveryGram *dg, const ProtoRunConfig *cfg, guint T,
                             GError **error) {
  g_return_val_if_fail(dg != NULL && cfg != NULL && T > 0 && dg->samples > 0, FALSE);
  g_return_val_if_fail((cfg->graph != NULL) != (cfg->schedule != NULL), FALSE);
  gint64 start = g_get_monotonic_time();
  ProtoMode mode;
  if (!proto_mode_parse(cfg->mode ? cfg->mode : "sync", &mode, error))
    return FALSE;
  if (mode.kind == PROTO_MODE_SYNC) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "the delivery objective needs deadline or stale mode (got %s): a synchronous "
                "run applies its gossip as scheduled",
                cfg->mode ? cfg->mode : "sync");
    return FALSE;
  }
  guint n = cfg->graph ? topo_graph_n_nodes(cfg->graph) : topo_schedule_n(cfg->schedule);
  /* One record's dense W_r and its Gram work space (at least n x n: stale
   * mode's slots add to it, checked once the record is known). */
  if (!check_bytes((dg->probes ? 0.0 : (double)T * n * n + 4.0 * n * n) + 2.0 * T * T,
                   "the Gram matrix of a delivery record", error))
    return FALSE;
  TopoGossip *W = cfg->graph ? topo_gossip_new(cfg->graph, cfg->gossip, error) : NULL;
  if (cfg->graph != NULL && W == NULL)
    return FALSE;
  guint S = dg->samples;
  dg->H = g_new0(double, (gsize)T *T);
  dg->in_time = TRUE;
  dg->delivered = 0.0;
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < S; i++) {
    ProtoRunConfig rc = *cfg;
    rc.seed = proto_delivery_record_seed(cfg->seed, dg->first + i);
    rc.rounds = T;
    rc.epochs = rc.batches = 0;
    rc.protocol = "dsgd"; /* one gossip round a step: R = T */
    TopoSchedule *si = NULL;
    if (cfg->schedule != NULL &&
        (ok = (si = topo_schedule_reseeded(cfg->schedule, rc.seed, error)) != NULL))
      rc.schedule = si;
    ProtoDeliveries *d = ok ? whole_record(&rc, n, T, error) : NULL;
    double *H = d != NULL ? record_gram(d, n, T, dg->workload, dg->probes, rc.seed, error) : NULL;
    ok = H != NULL;
    guint64 used = 0, sent = 0;
    for (guint t = 0; ok && t < T; t++) {
      const TopoGossip *wt = proto_deliveries_gossip(d)[t];
      sent += proto_deliveries_messages(d)[t].ptr[n];
      for (guint u = 0; u < n; u++) {
        const guint *cols;
        const double *vals;
        guint len = topo_gossip_row(wt, u, &cols, &vals);
        for (guint e = 0; e < len; e++)
          used += cols[e] != u;
      }
      if (dg->in_time && W != NULL) {
        dg->in_time = gossip_equal(wt, W);
      } else if (dg->in_time) {
        TopoGossip *ref = topo_schedule_gossip(si, t, error);
        ok = ref != NULL;
        dg->in_time = ok && gossip_equal(wt, ref);
        topo_gossip_free(ref);
      }
    }
    /* A gather uses a message at most once: used <= sent. */
    if (ok)
      dg->delivered += (sent > 0 ? (double)used / (double)sent : 1.0) / S;
    /* The mean in a fixed order (record after record), as the test
     * recomputes it from single records. */
    for (gsize j = 0; ok && j < (gsize)T * T; j++)
      dg->H[j] += H[j] / S;
    g_free(H);
    proto_deliveries_free(d);
    topo_schedule_free(si);
  }
  topo_gossip_free(W);
  if (!ok)
    g_clear_pointer(&dg->H, g_free);
  dg->seconds = (double)(g_get_monotonic_time() - start) / 1e6;
  return ok;
}
