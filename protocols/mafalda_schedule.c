/*
 * protocols/mafalda_schedule.c: the expected workload Gram matrix E[H] of a
 * gossip schedule, exact or sampled (docs/design.md, "Mafalda over a
 * changing network"): the one home of the objective that `dpgossip mafalda
 * --schedule` reports and that `-p mafalda` fits its C to in account, train,
 * audit, scenarios and the Python package.
 */
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
    for (guint i = 0; i < sg->samples; i++)
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

static gboolean sampled(ProtoScheduleGram *sg, const TopoSchedule *s, guint T, GError **error) {
  guint n = topo_schedule_n(s), S = sg->samples;
  /* The scoring set (S T^2), the running mean, and one schedule's T W_t. */
  if (!check_bytes((double)S * T * T + 2.0 * T * T + (double)T * n * n,
                   "estimating from sampled schedules", error))
    return FALSE;
  sg->how = PROTO_EXPECT_SAMPLED;
  sg->H = g_new0(double, (gsize)T *T);
  sg->score = g_new0(double *, S);
  /* Fitted on seeds seed .. seed+S-1, scored on seed+S .. seed+2S-1: the
   * fitted C's score is then an unbiased estimate of its expected loss,
   * not the optimistic in-sample one. */
  for (guint i = 0; i < 2 * S; i++) {
    TopoSchedule *si = topo_schedule_reseeded(s, sg->seed + i, error);
    double *H = si != NULL ? trace_gram(si, T, sg->workload, error) : NULL;
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
  } else if (topo_schedule_is_static(s)) {
    sg->how = PROTO_EXPECT_STATIC;
    sg->W = proto_schedule_gossip_dense(s, 0, error);
    ok = sg->W != NULL;
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
