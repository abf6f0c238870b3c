/*
 * scenarios/sweep_mpi.c: one sweep across the ranks of an MPI job (mpirun,
 * srun). Rank 0 plans the sweep exactly as scen_scenario_run does (resume,
 * correlations), hands the jobs out on request, longest first, runs some
 * itself, and writes the aggregates; the other ranks resolve the same points
 * and run the jobs they are given into the shared output folder. Who runs a
 * point never changes its bytes: a point's files are a function of its
 * configuration only, and the aggregates are read back from the files.
 *
 * Only each process's main thread talks to MPI (MPI_THREAD_FUNNELED); the
 * points run on other threads, which hand their outcome to the main thread.
 *
 * Messages (all to or from rank 0):
 *   READY  worker -> 0: header {job, status, slots} + error text. job -1: a
 *          free slot with no result; otherwise job's outcome, and the slot
 *          it used is free again. status CANNOT_START: the worker could not
 *          resolve the sweep and takes no work. Every READY gets one reply.
 *   WORK   0 -> worker: {job, n, points[n]} + the correlation file (or "").
 *   STOP   0 -> worker: no more work for that slot.
 *   BEAT   worker -> 0: alive (every BEAT_S seconds).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "mf/matrix_csv.h"
#include "ranks/ranks.h"
#include "scenarios/internal.h"

#ifndef DPG_HAVE_MPI

gboolean scen_scenario_run_mpi(ScenScenario *sc, const ScenRunOptions *opt,
                               const ScenMpiOptions *mopt, ScenRunReport *report, GError **error) {
  (void)sc;
  (void)opt;
  (void)mopt;
  (void)report;
  guint rank, size, local;
  return ranks_init(&rank, &size, &local, error);
}

#else /* DPG_HAVE_MPI */

#include <mpi.h>

enum { TAG_READY = 1, TAG_WORK, TAG_STOP, TAG_BEAT };
enum { STATUS_OK = 0, STATUS_FAILED = 1, STATUS_CANNOT_START = 2 };
#define BEAT_S 2.0
#define DEFAULT_TIMEOUT_S 300.0

static void log_line(const ScenMpiOptions *m, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void log_line(const ScenMpiOptions *m, const char *fmt, ...) {
  if (m->log == NULL)
    return;
  va_list ap;
  va_start(ap, fmt);
  char *text = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *line = g_strdup_printf("%9.3f %s", g_get_monotonic_time() / 1e6, text);
  m->log(line, m->log_data);
  g_free(line);
  g_free(text);
}

/* Relative name of point @p for messages: points/NAME, or the folder. */
static const char *point_name(const ScenSweep *sw, guint p) {
  const char *d = scen_sweep_point_dir(sw, p);
  const char *s = strstr(d, "/points/");
  return s ? s + 1 : d;
}

/* ---- Rank 0: the points in flight, for the launcher's SIGTERM ---- */

/* Two buffers: the main thread renders into the one not shown, then
 * switches; the handler writes the shown one (write(2) is
 * async-signal-safe, formatting is not). */
static char inflight_buf[2][8192];
static volatile sig_atomic_t inflight_shown = -1;
static char journal_path[4096]; /* OUT/.mpi-inflight, or "" */
static struct sigaction old_term;

static void write_all(int fd, const char *t) {
  ssize_t len = (ssize_t)strlen(t);
  while (len > 0) {
    ssize_t w = write(fd, t, (size_t)len);
    if (w <= 0)
      break;
    t += w;
    len -= w;
  }
}

/* The launcher ends the job (a rank died, or it was cancelled): say which
 * points were in flight on stderr. The journal is already on disk
 * (render_inflight): written here, it could be cut short by the SIGKILL
 * that follows the launcher's SIGTERM, leaving an empty file. */
static void on_sigterm(int sig) {
  int b = inflight_shown;
  if (b >= 0)
    write_all(STDERR_FILENO, inflight_buf[b]);
  sigaction(sig, &old_term, NULL);
  raise(sig);
}

/* ---- Rank 0 ---- */

typedef struct {
  ScenSweep *sw;
  const ScenMpiOptions *m;
  guint *order;
  guint n_jobs, next; /* under lock */
  GMutex lock;
  gint *owner;     /* per job: rank running it, -1 none (main thread only) */
  gint local_left; /* local threads still running (atomic) */
} Dispatch;

static gint take_job(Dispatch *d) {
  g_mutex_lock(&d->lock);
  /* After Ctrl-C nothing more starts; finish reports the cancel. */
  gint j = d->next < d->n_jobs && !scen_cancelled() ? (gint)d->order[d->next++] : -1;
  g_mutex_unlock(&d->lock);
  return j;
}

static gpointer local_worker(gpointer data) {
  Dispatch *d = data;
  gint j;
  while ((j = take_job(d)) >= 0) {
    guint n;
    const guint *pts = scen_sweep_job_points(d->sw, (guint)j, &n);
    gint64 t0 = g_get_monotonic_time();
    log_line(d->m, "rank 0 runs %s (%u point%s)", point_name(d->sw, pts[0]), n, n == 1 ? "" : "s");
    scen_sweep_run_job(d->sw, (guint)j);
    log_line(d->m, "rank 0 finished %s in %.3f s", point_name(d->sw, pts[0]),
             (g_get_monotonic_time() - t0) / 1e6);
  }
  g_atomic_int_add(&d->local_left, -1);
  return NULL;
}

static void render_inflight(Dispatch *d) {
  int b = inflight_shown == 0 ? 1 : 0;
  GString *s = g_string_new("dpgossip run: the MPI job is being stopped (a rank died, or the "
                            "job was cancelled); points in flight:");
  guint k = 0;
  for (guint j = 0; j < d->n_jobs && d->sw; j++)
    if (d->owner[j] >= 0) {
      guint n;
      const guint *pts = scen_sweep_job_points(d->sw, j, &n);
      for (guint i = 0; i < n; i++, k++)
        g_string_append_printf(s, "%s %s (rank %d)", k ? "," : "", point_name(d->sw, pts[i]),
                               d->owner[j]);
    }
  if (k == 0)
    g_string_append(s, " none handed out");
  g_string_append(s, ".\nFinished points are kept: run the same command again to run the "
                     "others.\n");
  if (s->len >= sizeof inflight_buf[0]) {
    g_string_truncate(s, sizeof inflight_buf[0] - 40);
    g_string_append(s, "...\nrun the same command again.\n");
  }
  memcpy(inflight_buf[b], s->str, s->len + 1);
  inflight_shown = b;
  /* OUT/.mpi-inflight always says what is in flight now, whatever kills
   * rank 0 (a temporary file renamed over it: never half written); a run
   * that ends by itself removes it. */
  if (journal_path[0]) {
    char tmp[sizeof journal_path + 8];
    g_snprintf(tmp, sizeof tmp, "%s.tmp", journal_path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd >= 0) {
      write_all(fd, s->str);
      close(fd);
      rename(tmp, journal_path);
    }
  }
  g_string_free(s, TRUE);
}

typedef struct {
  gint32 job, status, slots;
} Header;

/* Sends job @j (or STOP when @j < 0) to @r. */
static int send_reply(Dispatch *d, int r, gint j) {
  if (j < 0)
    return MPI_Send(NULL, 0, MPI_BYTE, r, TAG_STOP, MPI_COMM_WORLD);
  guint n;
  const guint *pts = scen_sweep_job_points(d->sw, (guint)j, &n);
  const char *C_file = scen_sweep_job_C_file(d->sw, (guint)j);
  GByteArray *b = g_byte_array_new();
  gint32 head[2] = {j, (gint32)n};
  g_byte_array_append(b, (const guint8 *)head, sizeof head);
  for (guint i = 0; i < n; i++) {
    gint32 p = (gint32)pts[i];
    g_byte_array_append(b, (const guint8 *)&p, sizeof p);
  }
  const char *f = C_file ? C_file : "";
  g_byte_array_append(b, (const guint8 *)f, (guint)strlen(f) + 1);
  int rc = MPI_Send(b->data, (int)b->len, MPI_BYTE, r, TAG_WORK, MPI_COMM_WORLD);
  g_byte_array_unref(b);
  return rc;
}

typedef enum { RANK_STARTING, RANK_WORKING, RANK_DONE, RANK_GONE, RANK_LOST } RankState;

/* Rank 0's view of the job (main thread only, but for @d's locked part). */
typedef struct {
  Dispatch d;
  guint size;
  double timeout;
  RankState *state;
  gint *slots, *stops; /* per rank: its slots, the STOPs sent to it */
  gint64 *seen, start; /* per rank: when it was last heard from */
  GString *notes;      /* ranks that could not start or were lost */
  gboolean lost;
  const GError *plan_error;
} Rank0;

/* Plans the sweep (NULL plan: nothing to hand out, every slot answered with
 * STOP) and sets up the table of ranks. */
static void rank0_init(Rank0 *z, ScenScenario *sc, const ScenRunOptions *opt,
                       const ScenMpiOptions *m, guint size, ScenRunReport *report,
                       GError **plan_error) {
  Dispatch *d = &z->d;
  d->m = m;
  g_mutex_init(&d->lock);
  d->sw = scen_sweep_prepare(sc, opt, TRUE, report, plan_error);
  z->plan_error = *plan_error;
  report->ranks = size;
  if (d->sw != NULL) {
    d->n_jobs = scen_sweep_n_jobs(d->sw);
    d->order = scen_sweep_job_order(d->sw);
  }
  d->owner = g_new(gint, MAX(d->n_jobs, 1));
  for (guint j = 0; j < d->n_jobs; j++)
    d->owner[j] = -1;
  z->size = size;
  z->timeout = m->timeout_s > 0 ? m->timeout_s : DEFAULT_TIMEOUT_S;
  log_line(m, "rank 0 (pid %d on %s) hands out %u job%s to %u rank%s", (int)getpid(),
           g_get_host_name(), d->n_jobs, d->n_jobs == 1 ? "" : "s", size, size == 1 ? "" : "s");
  z->state = g_new0(RankState, size);
  z->slots = g_new0(gint, size);
  z->stops = g_new0(gint, size);
  z->seen = g_new(gint64, size);
  z->start = g_get_monotonic_time();
  for (guint r = 0; r < size; r++)
    z->seen[r] = z->start;
  z->state[0] = RANK_DONE;
  z->notes = g_string_new(NULL);
}

static void rank0_clear(Rank0 *z) {
  g_string_free(z->notes, TRUE);
  g_free(z->state);
  g_free(z->slots);
  g_free(z->stops);
  g_free(z->seen);
  g_free(z->d.owner);
  g_free(z->d.order);
  scen_sweep_free(z->d.sw);
  g_mutex_clear(&z->d.lock);
}

/* OUT/.mpi-inflight and the SIGTERM handler that reports the points in
 * flight. Whether the handler was installed. */
static gboolean journal_open(Dispatch *d, const char *out_dir) {
  journal_path[0] = '\0';
  if (d->sw != NULL) {
    char *j = g_build_filename(out_dir, ".mpi-inflight", NULL);
    if (strlen(j) < sizeof journal_path)
      strcpy(journal_path, j);
    g_unlink(j);
    g_free(j);
  }
  render_inflight(d);
  struct sigaction act = {0};
  act.sa_handler = on_sigterm;
  sigemptyset(&act.sa_mask);
  return sigaction(SIGTERM, &act, &old_term) == 0;
}

/* The run ended by itself: nothing is in flight. */
static void journal_close(gboolean handler) {
  if (handler)
    sigaction(SIGTERM, &old_term, NULL);
  inflight_shown = -1;
  if (journal_path[0]) {
    char tmp[sizeof journal_path + 8];
    g_snprintf(tmp, sizeof tmp, "%s.tmp", journal_path);
    g_unlink(tmp);
    g_unlink(journal_path);
  }
}

/* Rank 0's own threads (none for a pure dispatcher with other ranks).
 * *@n their number. */
static GThread **start_local(Dispatch *d, guint size, guint *n) {
  *n = 0;
  if (d->sw == NULL || (d->m->dispatcher && size > 1) || d->n_jobs == 0)
    return NULL;
  *n = scen_sweep_threads(d->sw);
  GThread **local = g_new0(GThread *, *n);
  d->local_left = (gint)*n;
  for (guint i = 0; i < *n; i++)
    local[i] = g_thread_new("dpg-point", local_worker, d);
  return local;
}

/* Whether any point still runs here or any rank may still ask for work. */
static gboolean rank0_waiting(const Rank0 *z) {
  gboolean waiting = g_atomic_int_get(&z->d.local_left) > 0;
  for (guint r = 1; r < z->size && !waiting; r++)
    waiting = z->state[r] == RANK_STARTING || z->state[r] == RANK_WORKING;
  return waiting;
}

/* A READY of rank @r (@count bytes at @data, a header and a text): the
 * outcome of its job if it names one, then the next job or STOP. */
static void on_ready(Rank0 *z, int r, const guint8 *data, int count) {
  Dispatch *d = &z->d;
  Header h;
  memcpy(&h, data, sizeof h);
  const char *text = count > (int)sizeof h ? (const char *)data + sizeof h : "";
  if (h.status == STATUS_CANNOT_START) {
    z->state[r] = RANK_GONE;
    if (!g_error_matches(z->plan_error, SCEN_ERROR, SCEN_ERROR_INVALID))
      g_string_append_printf(z->notes, "\n  rank %d could not start: %.*s", r,
                             (int)(count - sizeof h), text);
    return;
  }
  z->slots[r] = MAX(z->slots[r], h.slots);
  if (z->state[r] == RANK_STARTING)
    z->state[r] = RANK_WORKING;
  if (h.job >= 0 && (guint)h.job < d->n_jobs && d->owner[h.job] == r) {
    d->owner[h.job] = -1;
    guint n;
    const guint *pts = scen_sweep_job_points(d->sw, (guint)h.job, &n);
    log_line(d->m, "rank %d %s %s%s%.*s", r, h.status == STATUS_OK ? "finished" : "failed",
             point_name(d->sw, pts[0]), h.status == STATUS_OK ? "" : ": ",
             h.status == STATUS_OK ? 0 : (int)(count - sizeof h), text);
    scen_sweep_job_done(d->sw, (guint)h.job,
                        h.status == STATUS_OK ? NULL : (text[0] ? text : "failed"));
  }
  gint j = z->lost ? -1 : take_job(d);
  if (j >= 0) {
    d->owner[j] = r;
    guint n;
    const guint *pts = scen_sweep_job_points(d->sw, (guint)j, &n);
    log_line(d->m, "rank 0 hands %s to rank %d", point_name(d->sw, pts[0]), r);
  } else {
    z->stops[r]++;
  }
  render_inflight(d);
  if (send_reply(d, r, j) != MPI_SUCCESS)
    z->seen[r] = 0; /* lost: the timeout check gives its points up */
  else if (j < 0 && z->slots[r] > 0 && z->stops[r] >= z->slots[r])
    z->state[r] = RANK_DONE;
}

/* Receives one message if there is one (FALSE when none); *@now: the time
 * after looking. */
static gboolean receive(Rank0 *z, GByteArray *buf, gint64 *now) {
  int flag = 0;
  MPI_Status st;
  int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  *now = g_get_monotonic_time();
  if (rc != MPI_SUCCESS || !flag)
    return FALSE;
  int r = st.MPI_SOURCE, count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  g_byte_array_set_size(buf, (guint)MAX(count, 1));
  rc = MPI_Recv(buf->data, count, MPI_BYTE, r, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS || r <= 0 || (guint)r >= z->size)
    return TRUE;
  z->seen[r] = *now;
  /* A beat, or a late word from a rank given up on, only says it lives. */
  if (st.MPI_TAG == TAG_READY && count >= (int)sizeof(Header) && z->state[r] != RANK_LOST)
    on_ready(z, r, buf->data, count);
  return TRUE;
}

/* Rank @r went silent: its points fail, and nothing more is handed out
 * (locally either), since the job cannot end cleanly. */
static void lose_rank(Rank0 *z, guint r) {
  Dispatch *d = &z->d;
  z->state[r] = RANK_LOST;
  z->lost = TRUE;
  ranks_set_lost();
  g_mutex_lock(&d->lock);
  for (guint k = d->next; k < d->n_jobs; k++)
    scen_sweep_job_done(d->sw, d->order[k],
                        "not run: an MPI rank was lost; run the same "
                        "command again");
  d->next = d->n_jobs;
  g_mutex_unlock(&d->lock);
  for (guint j = 0; j < d->n_jobs; j++)
    if (d->owner[j] == (gint)r) {
      d->owner[j] = -1;
      char *msg = g_strdup_printf("rank %u stopped answering for %.0f s (died or hung) while "
                                  "running it; run the same command again to rerun it",
                                  r, z->timeout);
      scen_sweep_job_done(d->sw, j, msg);
      g_free(msg);
    }
  g_string_append_printf(z->notes, "\n  rank %u stopped answering for %.0f s%s", r, z->timeout,
                         z->seen[r] == z->start ? " (it never reported)" : "");
  log_line(d->m, "rank %u lost", r);
  render_inflight(d);
}

/* Answers the ranks until no point runs and no rank may ask again. */
static void serve(Rank0 *z) {
  GByteArray *buf = g_byte_array_new();
  gulong idle_us = 50;
  while (rank0_waiting(z)) {
    gint64 now;
    if (receive(z, buf, &now)) {
      idle_us = 50;
      continue;
    }
    for (guint r = 1; r < z->size; r++)
      if ((z->state[r] == RANK_STARTING || z->state[r] == RANK_WORKING) &&
          (double)(now - z->seen[r]) / 1e6 > z->timeout)
        lose_rank(z, r);
    g_usleep(idle_us);
    idle_us = MIN(idle_us * 2, 1000);
  }
  g_byte_array_unref(buf);
}

/* The sweep's aggregates, or why the job failed (with the ranks' notes). */
static gboolean conclude(Rank0 *z, GError *plan_error, ScenRunReport *report, GError **error) {
  gboolean ok = z->d.sw != NULL;
  if (!ok)
    g_propagate_error(error, plan_error);
  else
    ok = scen_sweep_finish(z->d.sw, report, error);
  if (ok && z->lost) {
    /* Every point finished elsewhere, but the job cannot end cleanly. */
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_FAILED,
                "every point finished, but MPI ranks were lost:%s", z->notes->str);
    ok = FALSE;
  } else if (!ok && z->notes->len > 0 && error && *error) {
    char *m2 = g_strconcat((*error)->message, z->notes->str, NULL);
    g_free((*error)->message);
    (*error)->message = m2;
  }
  return ok;
}

static gboolean run_rank0(ScenScenario *sc, const ScenRunOptions *opt, const ScenMpiOptions *m,
                          guint size, ScenRunReport *report, GError **error) {
  Rank0 z = {0};
  GError *plan_error = NULL;
  rank0_init(&z, sc, opt, m, size, report, &plan_error);
  gboolean handler = journal_open(&z.d, report->out_dir);
  guint n_local = 0;
  GThread **local = start_local(&z.d, size, &n_local);
  serve(&z);
  for (guint i = 0; i < n_local; i++)
    g_thread_join(local[i]);
  g_free(local);
  journal_close(handler);
  gboolean ok = conclude(&z, plan_error, report, error);
  rank0_clear(&z);
  return ok;
}

/* ---- Other ranks ---- */

typedef struct {
  ScenSweep *sw;
  gint32 job;
  guint *points;
  guint n;
  const double *C;
  char *C_file;
  char *error; /* outcome */
  GAsyncQueue *done;
} Task;

static void task_free(Task *t) {
  g_free(t->points);
  g_free(t->C_file);
  g_free(t->error);
  g_free(t);
}

static gpointer run_task(gpointer data) {
  Task *t = data;
  GError *e = NULL;
  if (!scen_sweep_run_points(t->sw, t->points, t->n, t->C, t->C_file, &e))
    t->error = g_strdup(e ? e->message : "failed");
  g_clear_error(&e);
  g_async_queue_push(t->done, t);
  return NULL;
}

static int send_ready(gint32 job, gint32 status, gint32 slots, const char *text) {
  Header h = {job, status, slots};
  gsize len = text ? strlen(text) + 1 : 0;
  guint8 *b = g_malloc(sizeof h + len);
  memcpy(b, &h, sizeof h);
  if (len)
    memcpy(b + sizeof h, text, len);
  int rc = MPI_Send(b, (int)(sizeof h + len), MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
  g_free(b);
  return rc;
}

/* C_local of @path, read once per rank (the exact doubles rank 0 wrote). */
static const double *load_C(GHashTable *cache, const char *path, GError **error) {
  double *C = g_hash_table_lookup(cache, path);
  if (C != NULL)
    return C;
  guint rows = 0, cols = 0;
  if ((C = mf_matrix_read_csv(path, &rows, &cols, error)) == NULL)
    return NULL;
  g_hash_table_insert(cache, g_strdup(path), C);
  return C;
}

static gboolean run_worker(ScenScenario *sc, const ScenRunOptions *opt, const ScenMpiOptions *m,
                           guint rank, GError **error) {
  GError *prep_error = NULL;
  ScenSweep *sw = scen_sweep_prepare(sc, opt, FALSE, NULL, &prep_error);
  if (sw == NULL) {
    send_ready(-1, STATUS_CANNOT_START, 0, prep_error->message);
    g_propagate_error(error, prep_error);
    return FALSE;
  }
  gint32 slots = (gint32)scen_sweep_threads(sw);
  log_line(m, "rank %u (pid %d on %s) ready with %d thread%s", rank, (int)getpid(),
           g_get_host_name(), slots, slots == 1 ? "" : "s");
  GAsyncQueue *done = g_async_queue_new();
  GHashTable *Cs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  GByteArray *buf = g_byte_array_new();
  gboolean ok = TRUE;
  int rc = MPI_SUCCESS;
  for (gint32 i = 0; i < slots && rc == MPI_SUCCESS; i++)
    rc = send_ready(-1, STATUS_OK, slots, NULL);
  gint active = slots, running = 0;
  gint64 last_beat = g_get_monotonic_time();
  gulong idle_us = 50;
  while (rc == MPI_SUCCESS && (active > 0 || running > 0)) {
    gboolean busy = FALSE;
    Task *t = g_async_queue_try_pop(done);
    if (t != NULL) {
      busy = TRUE;
      running--;
      log_line(m, "rank %u %s %s%s%s", rank, t->error ? "failed" : "finished",
               point_name(sw, t->points[0]), t->error ? ": " : "", t->error ? t->error : "");
      rc = send_ready(t->job, t->error ? STATUS_FAILED : STATUS_OK, slots, t->error);
      task_free(t);
      last_beat = g_get_monotonic_time();
      continue;
    }
    int flag = 0;
    MPI_Status st;
    rc = MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (rc == MPI_SUCCESS && flag) {
      busy = TRUE;
      int count = 0;
      MPI_Get_count(&st, MPI_BYTE, &count);
      g_byte_array_set_size(buf, (guint)MAX(count, 1));
      rc = MPI_Recv(buf->data, count, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        break;
      if (st.MPI_TAG == TAG_STOP) {
        active--;
        continue;
      }
      gint32 head[2];
      memcpy(head, buf->data, sizeof head);
      Task *nt = g_new0(Task, 1);
      nt->sw = sw;
      nt->job = head[0];
      nt->n = (guint)head[1];
      nt->points = g_new(guint, MAX(nt->n, 1));
      for (guint i = 0; i < nt->n; i++) {
        gint32 p;
        memcpy(&p, buf->data + sizeof head + i * sizeof p, sizeof p);
        nt->points[i] = (guint)p;
      }
      const char *f = (const char *)buf->data + sizeof head + nt->n * sizeof(gint32);
      nt->C_file = f[0] ? g_strdup(f) : NULL;
      nt->done = done;
      GError *e = NULL;
      if (nt->C_file != NULL && (nt->C = load_C(Cs, nt->C_file, &e)) == NULL) {
        nt->error = g_strdup(e->message);
        g_clear_error(&e);
        g_async_queue_push(done, nt);
      } else {
        log_line(m, "rank %u runs %s", rank, point_name(sw, nt->points[0]));
        g_thread_unref(g_thread_new("dpg-point", run_task, nt));
      }
      running++;
      continue;
    }
    gint64 now = g_get_monotonic_time();
    if (rc == MPI_SUCCESS && (now - last_beat) / 1e6 >= BEAT_S) {
      rc = MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_BEAT, MPI_COMM_WORLD);
      last_beat = now;
    }
    if (!busy) {
      /* Sleep on the queue: a finished point wakes us at once. */
      t = g_async_queue_timeout_pop(done, idle_us);
      if (t != NULL)
        g_async_queue_push_front(done, t);
      idle_us = MIN(idle_us * 2, 1000);
    } else {
      idle_us = 50;
    }
  }
  if (rc != MPI_SUCCESS) {
    ranks_mpi_error(error, SCEN_ERROR, SCEN_ERROR_FAILED, rc, "lost rank 0");
    ranks_set_lost();
    ok = FALSE;
    /* Points still running finish their files before the process goes. */
    while (running-- > 0)
      task_free(g_async_queue_pop(done));
  }
  g_byte_array_unref(buf);
  g_hash_table_unref(Cs);
  g_async_queue_unref(done);
  scen_sweep_free(sw);
  return ok;
}

gboolean scen_scenario_run_mpi(ScenScenario *sc, const ScenRunOptions *opt,
                               const ScenMpiOptions *mopt, ScenRunReport *report, GError **error) {
  g_return_val_if_fail(sc != NULL, FALSE);
  g_return_val_if_fail(opt == NULL || opt->run_hook == NULL, FALSE);
  if (!ranks_joined()) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_FAILED, "ranks_init was not called");
    return FALSE;
  }
  ScenMpiOptions defaults = {0};
  if (mopt == NULL)
    mopt = &defaults;
  ScenRunOptions odef = {0};
  if (opt == NULL)
    opt = &odef;
  int r = 0, s = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  if (r != 0)
    return run_worker(sc, opt, mopt, (guint)r, error);
  ScenRunReport local = {0};
  if (report == NULL)
    report = &local;
  memset(report, 0, sizeof *report);
  report->figures = g_ptr_array_new_with_free_func(g_free);
  gboolean ok = run_rank0(sc, opt, mopt, (guint)s, report, error);
  scen_run_report_clear(&local);
  return ok;
}

#endif /* DPG_HAVE_MPI */
