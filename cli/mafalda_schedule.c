/*
 * cli/mafalda_schedule.c: the expected workload Gram matrix of `dpgossip
 * mafalda --schedule` (docs/design.md, "Mafalda over a changing network").
 */
#include <unistd.h>

#include "cli/mafalda_schedule.h"

/* Outcomes of a round enumerated at most (edge-failure: 2^22 patterns, a
 * graph of 22 edges; seconds on Florentine's 2^20). */
#define MAX_OUTCOMES ((guint64)1 << 22)

const char *cli_expectation_name(CliExpectation how) {
  static const char *const names[] = {"static", "trace", "iid", "sampled"};
  return names[how];
}

void cli_mafalda_schedule_clear(CliMafaldaSchedule *ms) {
  g_clear_pointer(&ms->W, g_free);
  g_clear_pointer(&ms->H, g_free);
  if (ms->score != NULL)
    for (guint i = 0; i < ms->samples; i++)
      g_free(ms->score[i]);
  g_clear_pointer(&ms->score, g_free);
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

/* The Gram matrix of the schedule @spec with @seed over T rounds: its T
 * dense W_t, then mf_gram_time_varying (O(n^3 T^2)). */
static double *trace_gram(const char *spec, const TopoGraph *g, TopoGossipKind kind, guint64 seed,
                          guint T, MfWorkload wl, GError **error) {
  TopoSchedule *s = topo_schedule_new(spec, g, kind, seed, error);
  if (s == NULL)
    return NULL;
  guint n = topo_graph_n_nodes(g);
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
  topo_schedule_free(s);
  return H;
}

static gboolean sampled(CliMafaldaSchedule *ms, const TopoGraph *g, TopoGossipKind kind, guint T,
                        GError **error) {
  guint n = topo_graph_n_nodes(g), S = ms->samples;
  /* The scoring set (S T^2), the running mean, and one schedule's T W_t. */
  if (!check_bytes((double)S * T * T + 2.0 * T * T + (double)T * n * n,
                   "estimating from sampled schedules", error))
    return FALSE;
  ms->how = CLI_EXPECT_SAMPLED;
  ms->H = g_new0(double, (gsize)T *T);
  ms->score = g_new0(double *, S);
  /* Fitted on seeds seed .. seed+S-1, scored on seed+S .. seed+2S-1: the
   * fitted C's score is then an unbiased estimate of its expected loss,
   * not the optimistic in-sample one. */
  for (guint i = 0; i < 2 * S; i++) {
    double *H = trace_gram(ms->spec, g, kind, ms->seed + i, T, ms->workload, error);
    if (H == NULL)
      return FALSE;
    if (i >= S) {
      ms->score[i - S] = H;
      continue;
    }
    for (gsize j = 0; j < (gsize)T * T; j++)
      ms->H[j] += H[j] / S;
    g_free(H);
  }
  return TRUE;
}

gboolean cli_mafalda_schedule_gram(CliMafaldaSchedule *ms, const TopoGraph *g, TopoGossipKind kind,
                                   guint T, GError **error) {
  gint64 start = g_get_monotonic_time();
  guint n = topo_graph_n_nodes(g);
  gboolean ok = FALSE;
  TopoSchedule *s = topo_schedule_new(ms->spec, g, kind, ms->seed, error);
  if (s == NULL) {
    ms->bad_spec = TRUE;
    g_prefix_error(error, "--schedule: ");
    return FALSE;
  }
  if (ms->samples > 0) {
    ok = sampled(ms, g, kind, T, error);
  } else if (topo_schedule_is_static(s)) {
    TopoGossip *w = topo_gossip_new(g, kind, error);
    ms->how = CLI_EXPECT_STATIC;
    ms->W = w != NULL ? topo_gossip_dense(w) : NULL;
    topo_gossip_free(w);
    ok = ms->W != NULL;
  } else if (topo_schedule_randomness(s) == TOPO_SCHEDULE_FIXED) {
    ms->how = CLI_EXPECT_TRACE;
    ok = check_bytes((double)T * n * n + 4.0 * n * n + (double)T * T,
                     "the Gram matrix of the schedule's trace", error) &&
         (ms->H = trace_gram(ms->spec, g, kind, ms->seed, T, ms->workload, error)) != NULL;
  } else if (topo_schedule_randomness(s) == TOPO_SCHEDULE_IID) {
    double *M = NULL, *Q = NULL;
    ok = topo_schedule_round_moments(s, MAX_OUTCOMES, 0, &M, &Q, &ms->outcomes, error);
    if (ok && ms->outcomes == 1) {
      ms->how = CLI_EXPECT_STATIC; /* one outcome of probability 1: M is W */
      ms->W = g_steal_pointer(&M);
    } else if (ok) {
      ms->how = CLI_EXPECT_IID;
      ms->H = mf_gram_iid(n, T, ms->workload, M, Q, 0, error);
      ok = ms->H != NULL;
    }
    if (!ok && error != NULL && *error != NULL && (*error)->domain == TOPO_ERROR) {
      char *msg = g_strdup_printf("--schedule %s: %s (--samples S)", ms->spec, (*error)->message);
      g_free((*error)->message);
      (*error)->message = msg;
    }
    g_free(M);
    g_free(Q);
  } else {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "--schedule %s: a random schedule without a finite per-round law; estimate "
                "its expectation with --samples S (e.g. --samples 100)",
                ms->spec);
  }
  topo_schedule_free(s);
  ms->seconds = (double)(g_get_monotonic_time() - start) / 1e6;
  return ok;
}
