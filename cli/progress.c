/*
 * cli/progress.c: the one progress printer of the long commands (train,
 * run, the observer accounting of account and figure, mafalda). The
 * libraries only call back (proto_run_set_progress, ScenRunOptions.progress,
 * ProtoObserveOptions.progress, MfOptions.progress); what a user sees is
 * decided here:
 *   on a terminal (stderr)  one line redrawn at most ten times a second:
 *                           "dpgossip train: 120/800 steps (15%), 0:12
 *                           elapsed, ETA 1:08";
 *   elsewhere (a log, CI)   the same line, newline-terminated, every
 *                           $DPGOSSIP_PROGRESS_INTERVAL seconds (default 10),
 *                           so that a short run prints none;
 *   -q                      nothing.
 * A phase that reports nothing itself (cli_progress_phase) is named by a
 * heartbeat thread whenever no other line came for one interval.
 * Progress goes to stderr only: stdout and every output file are the same
 * with or without it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "mf/optimize.h"

struct CliProgress {
  char *cmd;
  gboolean tty;
  gint64 interval_us; /* between two lines (terminal: between two redraws) */
  gint64 start, last;
  /* The ETA's reference: the time and fraction of the first report of the
   * current fractional phase (a phase before it, such as building the
   * graph, does not count towards the rate); reset when the fraction goes
   * back. */
  gint64 rate_start;
  double rate_fraction; /* < 0: no reference yet */
  gboolean drawn;       /* a terminal line is on screen */
  int width;            /* of the last terminal line, to blank its tail */
  GMutex lock;          /* callbacks may come from worker threads */
  /* The heartbeat (cli_progress_phase): its thread, phase and stop flag,
   * under @lock; @wake ends its wait early. */
  GThread *heartbeat;
  char *phase;
  gboolean stop;
  /* cli_progress_keepalive: the last update, repeated by the heartbeat. */
  gboolean keepalive;
  char *last_what;
  double last_fraction;
  GCond wake;
};

/* The interval of the non-terminal form: $DPGOSSIP_PROGRESS_INTERVAL
 * seconds (tests set it tiny), else 10 s. */
static gint64 log_interval_us(void) {
  const char *env = g_getenv("DPGOSSIP_PROGRESS_INTERVAL");
  if (env != NULL) {
    char *end = NULL;
    double s = g_ascii_strtod(env, &end);
    if (end != env && *end == '\0' && isfinite(s) && s >= 0 && s <= 86400)
      return (gint64)(s * 1e6);
  }
  return 10 * G_USEC_PER_SEC;
}

CliProgress *cli_progress_new(const char *cmd, gboolean quiet) {
  if (quiet)
    return NULL;
  CliProgress *p = g_new0(CliProgress, 1);
  p->cmd = g_strdup(cmd);
  p->tty = isatty(STDERR_FILENO);
  p->interval_us = p->tty ? G_USEC_PER_SEC / 10 : log_interval_us();
  p->start = p->last = g_get_monotonic_time();
  p->rate_fraction = -1;
  g_mutex_init(&p->lock);
  g_cond_init(&p->wake);
  return p;
}

/* "1:08", "1:02:03" or "12 s"-like short durations as m:ss. */
static void format_duration(char *buf, gsize len, double seconds) {
  if (!isfinite(seconds) || seconds < 0) {
    g_strlcpy(buf, "?", len);
    return;
  }
  guint64 s = (guint64)(seconds + 0.5);
  if (s >= 3600)
    g_snprintf(buf, len, "%" G_GUINT64_FORMAT ":%02u:%02u", s / 3600, (guint)(s / 60 % 60),
               (guint)(s % 60));
  else
    g_snprintf(buf, len, "%u:%02u", (guint)(s / 60), (guint)(s % 60));
}

/* The seconds left at the rate observed since the reference report of
 * @fraction's phase (NAN: no rate yet). Called on every report, printed
 * or not, so the reference is the phase's first. */
static double eta_seconds(CliProgress *p, double fraction, gint64 now) {
  if (!(fraction >= 0 && fraction <= 1))
    return NAN;
  if (p->rate_fraction < 0 || fraction < p->rate_fraction) {
    p->rate_start = now;
    p->rate_fraction = fraction;
    return NAN;
  }
  double done = fraction - p->rate_fraction;
  if (done <= 0)
    return NAN;
  return (double)(now - p->rate_start) / 1e6 * (1 - fraction) / done;
}

/* Prints @what with the elapsed time and, from @fraction, the ETA. */
static void report(CliProgress *p, double fraction, const char *what, gboolean force) {
  gint64 now = g_get_monotonic_time();
  double left = eta_seconds(p, fraction, now);
  if (!force && now - p->last < p->interval_us)
    return;
  p->last = now;
  double elapsed = (double)(now - p->start) / 1e6;
  char e[32], eta[32];
  format_duration(e, sizeof e, elapsed);
  format_duration(eta, sizeof eta, left); /* "?" when NAN */
  char *line = g_strdup_printf("dpgossip %s: %s, %s elapsed, ETA %s", p->cmd, what, e, eta);
  if (p->tty) {
    int w = (int)strlen(line);
    fprintf(stderr, "\r%s%*s", line, MAX(0, p->width - w), "");
    p->width = w;
    p->drawn = TRUE;
  } else {
    fprintf(stderr, "%s\n", line);
  }
  fflush(stderr);
  g_free(line);
}

/* Keeps the update for the keepalive heartbeat. Under p->lock. */
static void remember(CliProgress *p, double fraction, const char *what) {
  if (!p->keepalive)
    return;
  g_free(p->last_what);
  p->last_what = g_strdup(what);
  p->last_fraction = fraction;
}

void cli_progress_update(CliProgress *p, guint64 done, guint64 total, const char *unit) {
  if (p == NULL)
    return;
  g_mutex_lock(&p->lock);
  char what[96];
  double fraction = total > 0 ? (double)done / (double)total : 0;
  g_snprintf(what, sizeof what, "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " %s (%d%%)", done,
             total, unit, (int)floor(fraction * 100));
  remember(p, fraction, what);
  report(p, fraction, what, FALSE);
  g_mutex_unlock(&p->lock);
}

void cli_progress_account(const ProtoAccountProgress *pr, gpointer printer) {
  if (pr->total > 0)
    cli_progress_update(printer, pr->done, pr->total, pr->what);
  else
    cli_progress_update_fraction(printer, pr->fraction, pr->what);
}

void cli_progress_update_fraction(CliProgress *p, double fraction, const char *what) {
  if (p == NULL)
    return;
  g_mutex_lock(&p->lock);
  char buf[160];
  g_snprintf(buf, sizeof buf, "%s (~%d%%)", what, (int)floor(CLAMP(fraction, 0, 1) * 100));
  remember(p, fraction, buf);
  report(p, fraction, buf, FALSE);
  g_mutex_unlock(&p->lock);
}

/* The heartbeat: wakes every interval (at least 50 ms, so that an interval
 * of 0 does not spin) and names the phase when nothing was printed since. */
static gpointer heartbeat(gpointer data) {
  CliProgress *p = data;
  g_mutex_lock(&p->lock);
  while (!p->stop) {
    gint64 wait = MAX(p->interval_us, 50 * G_TIME_SPAN_MILLISECOND);
    g_cond_wait_until(&p->wake, &p->lock, g_get_monotonic_time() + wait);
    if (!p->stop && p->phase != NULL)
      report(p, -1, p->phase, FALSE);
    else if (!p->stop && p->last_what != NULL)
      report(p, p->last_fraction, p->last_what, FALSE);
  }
  g_mutex_unlock(&p->lock);
  return NULL;
}

void cli_progress_phase(CliProgress *p, const char *what) {
  if (p == NULL)
    return;
  g_mutex_lock(&p->lock);
  g_free(p->phase);
  p->phase = g_strdup(what);
  if (what != NULL && p->interval_us == 0)
    report(p, -1, what, FALSE); /* interval 0: a line at every change too */
  if (p->heartbeat == NULL)
    p->heartbeat = g_thread_try_new("progress", heartbeat, p, NULL); /* none: no heartbeat */
  g_mutex_unlock(&p->lock);
}

void cli_progress_keepalive(CliProgress *p) {
  if (p == NULL)
    return;
  g_mutex_lock(&p->lock);
  p->keepalive = TRUE;
  if (p->heartbeat == NULL)
    p->heartbeat = g_thread_try_new("progress", heartbeat, p, NULL); /* none: no heartbeat */
  g_mutex_unlock(&p->lock);
}

void cli_progress_free(CliProgress *p) {
  if (p == NULL)
    return;
  if (p->heartbeat != NULL) {
    g_mutex_lock(&p->lock);
    p->stop = TRUE;
    g_cond_signal(&p->wake);
    g_mutex_unlock(&p->lock);
    g_thread_join(p->heartbeat);
  }
  if (p->drawn)
    fputc('\n', stderr); /* the terminal line stays, the next output below it */
  g_mutex_clear(&p->lock);
  g_cond_clear(&p->wake);
  g_free(p->phase);
  g_free(p->last_what);
  g_free(p->cmd);
  g_free(p);
}
