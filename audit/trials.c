/*
 * audit/trials.c: the trial runs of the distinguishing audits, split over
 * threads. Trial i of world w draws from a seed derived from (seed, w, i)
 * alone and writes only its own slots, so the results do not depend on
 * the number of threads.
 */
#include <string.h>

#include "audit/internal.h"
#include "protocols/protocols.h"
#include "sim/rng.h"

typedef struct {
  const AuditConfig *a;
  const AuditView *v;
  const gboolean *is_member;
  const double *canary;
  AuditTrialFunc fn;
  gpointer data;
  TopoSchedule *sched; /* this worker's (NULL: the static graph) */
  guint first, count; /* trials [first, first + count) of each world */
  guint lo, hi;       /* this worker's share of the 2 count (world, trial) pairs */
  gint *done;         /* atomic: pairs finished, all workers */
  gint *finished;     /* atomic: workers finished */
  gint *stop;         /* atomic: a worker failed */
  GError *error;
} Worker;

static gboolean one_trial(Worker *k, TopoSchedule *sched, guint world, guint i, double *init,
                          double *y) {
  const AuditConfig *a = k->a;
  AuditGradients gr = {
      .victim = a->victim, .T = a->T, .p = k->v->p, .grads = world == 1 ? k->canary : NULL};
  AuditSeen seen;
  audit_seen_init(&seen, a, k->is_member, FALSE);
  guint64 seed = sim_rng_stream_seed(sim_rng_stream_seed(a->seed, world, AUDIT_SEED_TRIAL), i, 0);
  gboolean ok = audit_run_once(a, sched, a->sigma, seed, FALSE, &gr, &seen, init, &k->error);
  if (ok && seen.count != k->v->n_msg) {
    g_set_error(&k->error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "audit: trial %u saw %u messages, the provenance run %u: the protocol's "
                "message pattern depends on its noise, which this audit cannot handle",
                i, seen.count, k->v->n_msg);
    ok = FALSE;
  }
  ok = ok && audit_center(k->v, &seen, init, seed, y, &k->error);
  if (ok)
    k->fn(world, i, y, k->data);
  audit_seen_clear(&seen);
  return ok;
}

static gpointer work(gpointer data) {
  Worker *k = data;
  double *init = g_new(double, k->v->p), *y = g_new(double, (gsize)k->v->r * k->v->p);
  for (guint idx = k->lo; idx < k->hi && !g_atomic_int_get(k->stop); idx++) {
    if (k->a->cancel != NULL && g_atomic_int_get(k->a->cancel)) {
      g_set_error(&k->error, PROTO_ERROR, PROTO_ERROR_CANCELLED, "audit: cancelled");
      g_atomic_int_set(k->stop, 1);
      break;
    }
    if (!one_trial(k, k->sched, idx / k->count, k->first + idx % k->count, init, y)) {
      g_atomic_int_set(k->stop, 1);
      break;
    }
    g_atomic_int_inc(k->done);
  }
  g_free(init);
  g_free(y);
  g_atomic_int_inc(k->finished);
  return NULL;
}

gboolean audit_trials(const AuditConfig *a, const AuditView *v, const gboolean *is_member,
                      const double *canary, guint first, guint last, AuditTrialFunc fn,
                      gpointer data, guint64 *done, guint64 total, GError **error) {
  guint count = last - first, nt = MIN(a->threads, 2 * count);
  if (count == 0)
    return TRUE;
  gint done_now = 0, finished = 0, stop = 0;
  Worker *workers = g_new0(Worker, nt);
  GThread **threads = g_new0(GThread *, nt);
  for (guint i = 0; i < nt; i++) {
    workers[i] = (Worker){.a = a,
                          .v = v,
                          .is_member = is_member,
                          .canary = canary,
                          .fn = fn,
                          .data = data,
                          .first = first,
                          .count = count,
                          .lo = (guint)((guint64)2 * count * i / nt),
                          .hi = (guint)((guint64)2 * count * (i + 1) / nt),
                          .done = &done_now,
                          .finished = &finished,
                          .stop = &stop};
  }
  /* One schedule per worker (a schedule caches what it has computed),
   * built before any thread starts. */
  gboolean ok = TRUE;
  for (guint i = 0; i < nt && ok; i++)
    ok = audit_schedule_new(a, &workers[i].sched, error);
  if (ok && nt == 1) {
    /* One thread: run in slices so that progress is reported between them. */
    guint slice = MAX(1, 2 * count / 100);
    for (guint lo = 0; lo < 2 * count && !stop; lo += slice) {
      workers[0].lo = lo;
      workers[0].hi = MIN(2 * count, lo + slice);
      work(&workers[0]);
      if (a->progress != NULL)
        a->progress(*done + (guint)done_now, total, a->progress_data);
    }
  } else if (ok) {
    for (guint i = 0; i < nt; i++)
      threads[i] = g_thread_new("audit", work, &workers[i]);
    guint64 last_report = 0;
    while ((guint)g_atomic_int_get(&finished) < nt) {
      g_usleep(20000);
      guint64 now = *done + (guint)g_atomic_int_get(&done_now);
      if (a->progress != NULL && (now - last_report) * 100 >= total) {
        a->progress(now, total, a->progress_data);
        last_report = now;
      }
    }
  }
  for (guint i = 0; i < nt; i++) {
    if (threads[i] != NULL)
      g_thread_join(threads[i]);
    topo_schedule_free(workers[i].sched);
    if (workers[i].error != NULL) {
      if (ok)
        g_propagate_error(error, workers[i].error);
      else
        g_error_free(workers[i].error);
      ok = FALSE;
    }
  }
  *done += (guint)done_now;
  g_free(threads);
  g_free(workers);
  return ok;
}
