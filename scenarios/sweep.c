/*
 * scenarios/sweep.c: running a scenario: validation first, then every point
 * of the sweep on a GThreadPool (each point its own engine; results do not
 * depend on the thread count), resuming finished points, running once the
 * points whose resolved configurations coincide. Each point's result stays
 * in memory for the aggregates (aggregate.c, aggregate_output.c, plots.c);
 * only the points finished before (resume) or by other MPI ranks are read
 * back from their folders.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "mf/matrix_csv.h"
#include "scenarios/internal.h"

typedef struct {
  guint *points; /* indices of the points sharing this configuration */
  guint n_points;
  const char *C_file;
  const double *C;
  char *error; /* failure message, or NULL */
  gboolean done;
} Job;

/* A prepared sweep (scen_sweep_prepare): the resolved points, and on the
 * planning side the jobs still to run and the noise correlations they use. */
struct ScenSweep {
  ScenScenario *sc;
  ScenConfig **cfg;
  char **ini;
  char **dirs;
  gboolean sweep;
  Job *jobs;
  guint n_jobs, n_todo;
  GMutex lock;
  /* Progress, per job: the fraction of its run's steps done, whether it
   * ended, its cost (job_cost), when it started and when its run reached
   * its last step (0: not yet); and over the ended jobs run here, the
   * seconds of their runs and of their whole points (run_us / point_us:
   * the share of a point that its run's steps measure). */
  double *fraction, *cost;
  gboolean *ended;
  gint64 *start_us, *run_end_us;
  gint64 run_us, point_us;
  guint finished;
  guint total_points;
  const ScenRunOptions *opt;
  ScenRunOptions defaults; /* opt when none was given */
  const GPtrArray *axes;
  char *out_dir; /* absolute */
  char *cache_dir;
  GArray *job_array; /* Job; jobs points into it */
  GHashTable *ckeys; /* C key -> index into ctasks */
  GPtrArray *ctasks; /* CTask* */
  guint threads;
  ScenPointResult **res; /* per point: set when run here or found finished */
  gint64 busy_us;         /* time the threads spent in run_job (under lock) */
};
typedef struct ScenSweep Shared;

/* ---- Point names ---- */

static char *sanitize(const char *v) {
  GString *s = g_string_new(NULL);
  for (const char *p = v; *p && s->len < 40; p++)
    g_string_append_c(s, g_ascii_isalnum(*p) || strchr(".+-", *p) ? *p : '-');
  return g_string_free(s, FALSE);
}

static char **point_names(const GPtrArray *axes, guint n) {
  char **names = g_new0(char *, n + 1);
  guint *items = g_new0(guint, MAX(axes->len, 1));
  GHashTable *used = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint p = 0; p < n; p++) {
    scen_sweep_point(axes, p, items);
    GString *s = g_string_new(NULL);
    for (guint a = 0; a < axes->len; a++) {
      const ScenSweepAxis *x = g_ptr_array_index(axes, a);
      char *l = scen_axis_label(axes, a), *v = sanitize(x->items[items[a]]);
      g_string_append_printf(s, "%s%s=%s", a ? "_" : "", l, v);
      g_free(l);
      g_free(v);
    }
    if (g_hash_table_contains(used, s->str))
      g_string_append_printf(s, "~%u", p);
    names[p] = g_string_free(s, FALSE);
    g_hash_table_add(used, names[p]);
  }
  g_hash_table_unref(used);
  g_free(items);
  return names;
}

/* ---- Jobs ---- */

/* The cost model of a job (its first point's configuration): engine events
 * grow with steps x nodes; the observer path keeps every message's
 * provenance, several times the work of the structured one. It orders the
 * jobs (longest first) and weighs them in the progress. */
static double job_cost(const ScenConfig *c) {
  return (double)c->rounds * MAX(c->n, 1) * (c->path == SCEN_PATH_OBSERVER ? 4 : 1);
}

/* The fraction of the sweep's work done: each job weighed by its cost, an
 * ended one whole, a running one by its run's steps times the share of a
 * point that the run took in the points ended so far. Before a point has
 * ended that share is unknown (a point's accounting, after its last step,
 * can take longer than its run) and running points count for nothing: the
 * ETA stays unknown rather than too short. Under sh->lock. */
static void report_progress(Shared *sh) {
  if (sh->opt->progress == NULL)
    return;
  double share = sh->point_us > 0 ? (double)sh->run_us / (double)sh->point_us : 0;
  double done = 0, total = 0, steps = 0;
  guint running = 0;
  for (guint j = 0; j < sh->n_jobs; j++) {
    total += sh->cost[j];
    done += sh->cost[j] * (sh->ended[j] ? 1 : sh->fraction[j] * share);
    if (!sh->ended[j] && sh->start_us[j] > 0) {
      steps += sh->fraction[j];
      running++;
    }
  }
  sh->opt->progress(sh->finished, sh->total_points, total > 0 ? done / total : 1.0,
                    running ? steps / running : NAN, sh->opt->progress_data);
}

typedef struct {
  Shared *sh;
  guint job;
} JobCtx;

static void on_point_progress(guint point, double fraction, gpointer data) {
  (void)point;
  JobCtx *jc = data;
  g_mutex_lock(&jc->sh->lock);
  jc->sh->fraction[jc->job] = fraction;
  if (fraction >= 1 && jc->sh->run_end_us[jc->job] == 0)
    jc->sh->run_end_us[jc->job] = g_get_monotonic_time();
  report_progress(jc->sh);
  g_mutex_unlock(&jc->sh->lock);
}

/* Removes the temporary files (scen_write_file's ".NAME.tmp-XXXXXX") a
 * killed process left in @dir: whoever writes @dir now owns it, and a rerun
 * must leave exactly the files of a run that was never interrupted. */
static void remove_stale_temps(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name(d)) != NULL)
    if (name[0] == '.' && strstr(name, ".tmp-") != NULL) {
      char *p = g_build_filename(dir, name, NULL);
      g_unlink(p);
      g_free(p);
    }
  if (d != NULL)
    g_dir_close(d);
}

/* Runs the configuration of @points[0] once and writes the folder of every
 * point of @points (they share that configuration); @jc (nullable) receives
 * the progress. */
static gboolean run_points(Shared *sh, const guint *points, guint n_points, const double *C,
                           const char *C_file, JobCtx *jc, GError **error) {
  guint p0 = points[0];
  ScenRunContext ctx = {.point = p0,
                        .C = C,
                        .C_file = C_file,
                        .progress = jc ? on_point_progress : NULL,
                        .progress_data = jc,
                        .run_hook = sh->opt->run_hook,
                        .run_hook_data = sh->opt->run_hook_data};
  /* A sweep point's own folder only: a single run's folder is the output one. */
  for (guint i = 0; sh->sweep && i < n_points; i++)
    remove_stale_temps(sh->dirs[points[i]]);
  ScenRunOutput *o = scen_run_config(sh->cfg[p0], &ctx, error);
  gboolean ok = o != NULL;
  for (guint i = 0; ok && i < n_points; i++) {
    guint p = points[i];
    JsonNode *summary = scen_point_summary(sh->cfg[p], o);
    ok = scen_write_point(sh->dirs[p], sh->cfg[p], sh->ini[p], o, summary,
                          sh->cfg[p]->plots && !sh->sweep, error);
    /* The aggregates' copy: the very summary just written. */
    ScenPointResult *r = ok ? scen_point_result_new(json_node_get_object(summary),
                                                    sh->cfg[p]->rounds)
                            : NULL;
    g_mutex_lock(&sh->lock);
    scen_point_result_free(sh->res[p]);
    sh->res[p] = r;
    g_mutex_unlock(&sh->lock);
    json_node_unref(summary);
  }
  scen_run_output_free(o);
  return ok;
}

static void run_job(gpointer data, gpointer user_data) {
  Shared *sh = user_data;
  guint j = GPOINTER_TO_UINT(data) - 1;
  Job *job = &sh->jobs[j];
  JobCtx jc = {sh, j};
  GError *error = NULL;
  gint64 start = g_get_monotonic_time();
  g_mutex_lock(&sh->lock);
  sh->start_us[j] = start;
  report_progress(sh); /* a point under way */
  g_mutex_unlock(&sh->lock);
  run_points(sh, job->points, job->n_points, job->C, job->C_file, &jc, &error);
  scen_sweep_job_done(sh, j, error ? error->message : NULL);
  g_clear_error(&error);
  g_mutex_lock(&sh->lock);
  sh->busy_us += g_get_monotonic_time() - start;
  g_mutex_unlock(&sh->lock);
}

/* ---- Noise correlations, once per distinct key ---- */

typedef struct {
  const ScenConfig *cfg;
  char *path;
  double *C;
  char *error;
} CTask;

static void run_ctask(gpointer data, gpointer user_data) {
  (void)user_data;
  CTask *t = data;
  GError *error = NULL;
  t->C = scen_cmatrix_build(t->cfg, &error);
  if (t->C != NULL && !mf_matrix_write_csv(t->path, t->C, t->cfg->rounds, t->cfg->rounds, &error))
    g_clear_pointer(&t->C, g_free);
  if (error != NULL) {
    t->error = g_strdup(error->message);
    g_error_free(error);
  }
}

/* A point is finished when its resolved file is the one asked for and its
 * files read back (someone may have deleted or damaged one since): then its
 * result, else NULL and the point runs again. @error says why a point that
 * looked finished is not (its summary or a table does not read back); the
 * caller runs it again, which is the remedy. */
static ScenPointResult *point_finished(const char *dir, const char *ini, guint T, GError **error) {
  char *res = g_build_filename(dir, "scenario.resolved.ini", NULL);
  char *text = NULL;
  gboolean done = g_file_get_contents(res, &text, NULL, NULL) && g_str_equal(text, ini);
  g_free(text);
  g_free(res);
  return done ? scen_point_result_load(dir, T, error) : NULL;
}

/* ---- The steps of a run (scen_sweep_*): the thread pool below and the MPI
 * driver (sweep_mpi.c) share them ---- */

void scen_sweep_free(ScenSweep *sh) {
  if (sh == NULL)
    return;
  for (guint i = 0; sh->ctasks && i < sh->ctasks->len; i++) {
    CTask *t = g_ptr_array_index(sh->ctasks, i);
    g_free(t->path);
    g_free(t->C);
    g_free(t->error);
    g_free(t);
  }
  if (sh->ctasks)
    g_ptr_array_unref(sh->ctasks);
  if (sh->ckeys)
    g_hash_table_unref(sh->ckeys);
  g_free(sh->cache_dir);
  for (guint j = 0; j < sh->n_jobs; j++) {
    g_free(sh->jobs[j].points);
    g_free(sh->jobs[j].error);
  }
  if (sh->job_array)
    g_array_unref(sh->job_array);
  g_free(sh->fraction);
  g_free(sh->cost);
  g_free(sh->ended);
  g_free(sh->start_us);
  g_free(sh->run_end_us);
  for (guint p = 0; sh->cfg && p < sh->total_points; p++)
    scen_config_free(sh->cfg[p]);
  for (guint p = 0; sh->res && p < sh->total_points; p++)
    scen_point_result_free(sh->res[p]);
  g_free(sh->res);
  g_free(sh->cfg);
  g_strfreev(sh->ini);
  g_strfreev(sh->dirs);
  g_free(sh->out_dir);
  g_mutex_clear(&sh->lock);
  g_free(sh);
}

/* Validation first: every problem of every point in one error
 * (SCEN_ERROR_INVALID), each also in @problems when given (NULL-terminated,
 * empty when there is none); @visit (nullable) sees each point as
 * scen_scenario_collect resolves it. */
static gboolean validate(ScenScenario *sc, ScenPluginMode plugins, ScenPointVisit visit,
                         gpointer data, char ***problems, GError **error) {
  ScenProblems *ps = scen_problems_new();
  /* Until the run ends: resolving a point loads its plugin, or refuses it. */
  sc->plugins = plugins;
  scen_scenario_collect(sc, ps, visit, data);
  guint n = scen_problems_count(ps);
  char **lines = g_new0(char *, n + 1);
  for (guint i = 0; i < n; i++)
    lines[i] = scen_problem_format(g_ptr_array_index(ps->items, i));
  scen_problems_free(ps);
  if (n > 0) {
    sc->plugins = SCEN_PLUGINS_CHECK;
    char *msg = g_strjoinv("\n", lines);
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_INVALID, "%s", msg);
    g_free(msg);
  }
  if (problems != NULL)
    *problems = lines;
  else
    g_strfreev(lines);
  return n == 0;
}

/* Every point's configuration, resolved file and folder. */
static Shared *resolve_points(ScenScenario *sc, const ScenRunOptions *opt) {
  const GPtrArray *axes = sc->axes ? sc->axes : (sc->axes = scen_sweep_axes(sc->doc, NULL));
  guint n = (guint)scen_sweep_count(axes);
  gboolean sweep = axes->len > 0;
  Shared *sh = g_new0(Shared, 1);
  sh->sc = sc;
  sh->sweep = sweep;
  sh->total_points = n;
  sh->opt = opt ? opt : &sh->defaults;
  sh->axes = axes;
  opt = sh->opt;
  g_mutex_init(&sh->lock);
  sh->cfg = g_new0(ScenConfig *, n);
  sh->res = g_new0(ScenPointResult *, n);
  sh->ini = g_new0(char *, n + 1);
  sh->dirs = g_new0(char *, n + 1);
  guint *items = g_new0(guint, MAX(axes->len, 1));
  for (guint p = 0; p < n; p++) {
    scen_sweep_point(axes, p, items);
    ScenPointValues pv = {axes, items};
    sh->cfg[p] = scen_config_resolve(sc, &pv, NULL);
    g_assert(sh->cfg[p] != NULL); /* validated above */
    sh->ini[p] = scen_config_to_ini(sh->cfg[p]);
  }
  g_free(items);
  sc->plugins = SCEN_PLUGINS_CHECK; /* a later validate never loads */
  char *out_dir = opt->out_dir ? g_canonicalize_filename(opt->out_dir, NULL)
                               : g_strdup(sh->cfg[0]->out_dir);
  sh->out_dir = out_dir;
  char **names = sweep ? point_names(axes, n) : NULL;
  for (guint p = 0; p < n; p++)
    sh->dirs[p] = sweep ? g_build_filename(out_dir, "points", names[p], NULL) : g_strdup(out_dir);
  g_strfreev(names);
  return sh;
}

/* An MPI worker runs what it is given, opt->threads at a time. Points with
 * time-varying schedules run in parallel too: a schedule's graphs depend on
 * its seed only, and topologies/ serializes every igraph call (its default
 * RNG included) behind one lock. */
static void plan_worker(Shared *sh) {
  const ScenRunOptions *opt = sh->opt;
  sh->threads = MAX(1, opt->threads ? opt->threads : g_get_num_processors());
}

/* System folders, by their real path: writing there is wrong or impossible
 * (and as root it even succeeds in /dev). */
static const char *const system_dirs[] = {"/dev", "/proc", "/sys"};

/* The output folder must be one a run can fill: an existing directory that
 * can be written, or one that can be created below such a directory, and
 * no system folder. @dir is absolute. Errors: SCEN_ERROR_IO. O(depth). */
static gboolean out_dir_check(const char *dir, GError **error) {
  char *p = g_strdup(dir);
  while (!g_file_test(p, G_FILE_TEST_EXISTS)) {
    char *up = g_path_get_dirname(p);
    gboolean top = g_str_equal(up, p);
    g_free(p);
    p = up;
    if (top)
      break;
  }
  gboolean ok = TRUE;
  char *real = realpath(p, NULL);
  for (guint i = 0; ok && real != NULL && i < G_N_ELEMENTS(system_dirs); i++) {
    const char *sys = system_dirs[i];
    gsize len = strlen(sys);
    if (strncmp(real, sys, len) == 0 && (real[len] == '\0' || real[len] == '/')) {
      g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO,
                  "output folder %s is in the system folder %s; give another [output] dir "
                  "(or --out)",
                  dir, sys);
      ok = FALSE;
    }
  }
  if (ok && !g_file_test(p, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO,
                "cannot create the output folder %s: %s exists and is not a directory", dir, p);
    ok = FALSE;
  } else if (ok && g_access(p, W_OK | X_OK) != 0) {
    int e = errno;
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot create the output folder %s: %s: %s", dir,
                p, g_strerror(e));
    ok = FALSE;
  }
  free(real);
  g_free(p);
  return ok;
}

/* The output folder, the finished points (resume) and the jobs: one per
 * distinct resolved configuration not yet finished; the thread count. */
static gboolean plan_jobs(Shared *sh, ScenRunReport *report, GError **error) {
  const ScenRunOptions *opt = sh->opt;
  const char *out_dir = sh->out_dir;
  guint n = sh->total_points;
  report->out_dir = g_strdup(out_dir);
  report->points = n;
  if (!out_dir_check(out_dir, error))
    return FALSE;
  if (g_mkdir_with_parents(out_dir, 0777) != 0) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot create %s: %s", out_dir,
                g_strerror(errno));
    return FALSE;
  }

  /* Jobs: one per distinct resolved configuration not yet finished. */
  GHashTable *job_of = g_hash_table_new(g_str_hash, g_str_equal);
  GArray *jobs = g_array_new(FALSE, TRUE, sizeof(Job));
  for (guint p = 0; p < n; p++) {
    GError *stale = NULL;
    if ((sh->res[p] = point_finished(sh->dirs[p], sh->ini[p], sh->cfg[p]->rounds, &stale))) {
      report->skipped++;
      continue;
    }
    /* Not finished after all (a file missing or damaged): it runs again,
     * which rewrites every file of it; the caller says why. */
    if (stale != NULL) {
      if (report->rerun == NULL)
        report->rerun = g_ptr_array_new_with_free_func(g_free);
      g_ptr_array_add(report->rerun, g_strdup(stale->message));
      g_clear_error(&stale);
    }
    gpointer ji;
    if (g_hash_table_lookup_extended(job_of, sh->ini[p], NULL, &ji)) {
      Job *j = &g_array_index(jobs, Job, GPOINTER_TO_UINT(ji));
      j->points = g_renew(guint, j->points, j->n_points + 1);
      j->points[j->n_points++] = p;
    } else {
      Job j = {g_new(guint, 1), 1, NULL, NULL, NULL, FALSE};
      j.points[0] = p;
      g_hash_table_insert(job_of, sh->ini[p], GUINT_TO_POINTER(jobs->len));
      g_array_append_val(jobs, j);
    }
  }
  g_hash_table_unref(job_of);
  sh->job_array = jobs;
  sh->n_jobs = jobs->len;
  sh->n_todo = jobs->len;
  sh->jobs = (Job *)jobs->data;
  sh->fraction = g_new0(double, MAX(sh->n_jobs, 1));
  sh->cost = g_new0(double, MAX(sh->n_jobs, 1));
  sh->ended = g_new0(gboolean, MAX(sh->n_jobs, 1));
  sh->start_us = g_new0(gint64, MAX(sh->n_jobs, 1));
  sh->run_end_us = g_new0(gint64, MAX(sh->n_jobs, 1));
  for (guint j = 0; j < sh->n_jobs; j++)
    sh->cost[j] = job_cost(sh->cfg[sh->jobs[j].points[0]]);
  guint threads = opt->threads ? opt->threads : g_get_num_processors();
  threads = MAX(1, MIN(threads, MAX(sh->n_jobs, 1)));
  report->threads = sh->threads = threads;
  return TRUE;
}

/* Noise correlations (Mafalda): each distinct one computed once, in
 * parallel, into OUT/.cache before the runs. Errors: SCEN_ERROR_IO,
 * SCEN_ERROR_FAILED. */
static gboolean plan_correlations(Shared *sh, GError **error) {
  const char *out_dir = sh->out_dir;
  gboolean ok = TRUE;
  sh->ckeys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  sh->ctasks = g_ptr_array_new();
  GHashTable *ckeys = sh->ckeys;
  GPtrArray *ctasks = sh->ctasks;
  char *cache_dir = sh->cache_dir = g_build_filename(out_dir, ".cache", NULL);
  for (guint j = 0; ok && j < sh->n_jobs; j++) {
    const ScenConfig *c = sh->cfg[sh->jobs[j].points[0]];
    char *key = scen_cmatrix_key(c);
    if (key == NULL || !g_str_equal(c->shape.C, "mafalda")) {
      g_free(key); /* families and files: the protocol reads them itself */
      continue;
    }
    gpointer ti;
    if (!g_hash_table_lookup_extended(ckeys, key, NULL, &ti)) {
      CTask *t = g_new0(CTask, 1);
      t->cfg = c;
      char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, key, -1);
      char *file = g_strdup_printf("C-%.16s.csv", sum);
      t->path = g_build_filename(cache_dir, file, NULL);
      g_free(file);
      g_free(sum);
      ti = GUINT_TO_POINTER(ctasks->len);
      g_ptr_array_add(ctasks, t);
      g_hash_table_insert(ckeys, key, ti);
    } else {
      g_free(key);
    }
    CTask *t = g_ptr_array_index(ctasks, GPOINTER_TO_UINT(ti));
    sh->jobs[j].C_file = t->path; /* C filled after the tasks ran */
  }
  if (ok && ctasks->len > 0) {
    if (g_mkdir_with_parents(cache_dir, 0777) != 0) {
      g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot create %s: %s", cache_dir,
                  g_strerror(errno));
      ok = FALSE;
    } else {
      GThreadPool *pool = g_thread_pool_new(run_ctask, NULL, (gint)MIN(sh->threads, ctasks->len),
                                            TRUE, NULL);
      for (guint i = 0; i < ctasks->len; i++)
        g_thread_pool_push(pool, g_ptr_array_index(ctasks, i), NULL);
      g_thread_pool_free(pool, FALSE, TRUE);
      for (guint i = 0; ok && i < ctasks->len; i++) {
        CTask *t = g_ptr_array_index(ctasks, i);
        if (t->error) {
          g_set_error(error, SCEN_ERROR, SCEN_ERROR_FAILED, "%s", t->error);
          ok = FALSE;
        }
      }
      for (guint j = 0; ok && j < sh->n_jobs; j++)
        for (guint i = 0; i < ctasks->len; i++) {
          CTask *t = g_ptr_array_index(ctasks, i);
          if (sh->jobs[j].C_file == t->path)
            sh->jobs[j].C = t->C;
        }
    }
  }
  return ok;
}

/* A protocol that is not registered (built in) would come from a plugin:
 * setting its run up means loading code, which a check never does. */
static gboolean from_plugin(const ScenConfig *c) {
  if (c->plugin != NULL)
    return TRUE;
  if (c->nonprivate)
    return FALSE;
  char *name = g_strndup(c->protocol, strcspn(c->protocol, ":,"));
  gboolean known = proto_registry_lookup(g_strstrip(name)) != NULL;
  g_free(name);
  return !known;
}

/* What scen_scenario_check keeps of the points as they stream by: the
 * first point of each distinct check (scen_run_config_check_key), known by
 * the key's SHA-256 so that a sweep of 10^6 distinct points keeps 32 bytes
 * each rather than its resolved files (two different keys share a digest
 * with probability below 10^12 / 2^256), and point 0's output folder. */
typedef struct {
  GHashTable *seen; /* 32-byte digest (owned) -> itself */
  GArray *points;   /* guint, increasing */
  char *out_dir;    /* point 0's [output] dir */
} CheckPlan;

static guint digest_hash(gconstpointer d) {
  guint h;
  memcpy(&h, d, sizeof h);
  return h;
}

static gboolean digest_equal(gconstpointer a, gconstpointer b) {
  return memcmp(a, b, 32) == 0;
}

static void check_plan_add(const ScenConfig *c, guint64 p, gpointer data) {
  CheckPlan *cp = data;
  if (p == 0)
    cp->out_dir = g_strdup(c->out_dir);
  /* A plugin's run cannot be set up without loading its code. */
  if (from_plugin(c))
    return;
  char *key = scen_run_config_check_key(c);
  GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
  g_checksum_update(sum, (const guchar *)key, (gssize)strlen(key));
  guint8 *d = g_malloc(32);
  gsize len = 32;
  g_checksum_get_digest(sum, d, &len);
  g_checksum_free(sum);
  g_free(key);
  if (g_hash_table_add(cp->seen, d)) {
    guint pi = (guint)p;
    g_array_append_val(cp->points, pi);
  }
}

gboolean scen_scenario_check(ScenScenario *sc, const char *out_dir, char ***problems,
                             GError **error) {
  g_return_val_if_fail(sc != NULL, FALSE);
  /* One pass: each point resolved, its problems collected, the first point
   * of each distinct check noted, the point freed. As validate: a plugin is
   * checked to exist, never loaded. */
  CheckPlan cp = {g_hash_table_new_full(digest_hash, digest_equal, g_free, NULL),
                  g_array_new(FALSE, FALSE, sizeof(guint)), NULL};
  gboolean ok = validate(sc, SCEN_PLUGINS_CHECK, check_plan_add, &cp, problems, error);
  g_hash_table_unref(cp.seen);
  char *dir = NULL;
  if (ok) {
    dir = out_dir ? g_canonicalize_filename(out_dir, NULL) : g_strdup(cp.out_dir);
    ok = out_dir_check(dir, error);
  }
  /* Then each distinct check, its point resolved again (problem-free now). */
  const GPtrArray *axes = sc->axes;
  guint *items = g_new0(guint, MAX(axes->len, 1));
  GArray *failed = g_array_new(FALSE, FALSE, sizeof(guint));
  GPtrArray *why = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; ok && i < cp.points->len; i++) {
    guint p = g_array_index(cp.points, guint, i);
    scen_sweep_point(axes, p, items);
    ScenPointValues pv = {axes, items};
    ScenConfig *c = scen_config_resolve(sc, &pv, NULL);
    g_assert(c != NULL); /* it resolved above */
    GError *e = NULL;
    if (!scen_run_config_check(c, &e)) {
      g_array_append_val(failed, p);
      g_ptr_array_add(why, g_strdup(e->message));
      g_error_free(e);
    }
    scen_config_free(c);
  }
  if (ok && failed->len > 0) {
    /* Each failure by its point's folder, as run names it: the names are
     * only made now (they need every point's, for the ~N of duplicates). */
    gboolean sweep = axes->len > 0;
    char **names = sweep ? point_names(axes, (guint)scen_sweep_count(axes)) : NULL;
    GString *msg = g_string_new(NULL);
    for (guint i = 0; i < failed->len; i++) {
      guint p = g_array_index(failed, guint, i);
      char *pd = sweep ? g_build_filename(dir, "points", names[p], NULL) : g_strdup(dir);
      g_string_append_printf(msg, "\n  %s: %s", pd, (char *)g_ptr_array_index(why, i));
      g_free(pd);
    }
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_FAILED, "%u point%s cannot start:%s", failed->len,
                failed->len == 1 ? "" : "s", msg->str);
    g_string_free(msg, TRUE);
    g_strfreev(names);
    ok = FALSE;
  }
  g_ptr_array_unref(why);
  g_array_unref(failed);
  g_free(items);
  g_array_unref(cp.points);
  g_free(cp.out_dir);
  g_free(dir);
  return ok;
}

ScenSweep *scen_sweep_prepare(ScenScenario *sc, const ScenRunOptions *opt, gboolean plan,
                              ScenRunReport *report, GError **error) {
  g_return_val_if_fail(sc != NULL && (report != NULL || !plan), NULL);
  if (!validate(sc, opt && opt->allow_plugins ? SCEN_PLUGINS_LOAD : SCEN_PLUGINS_REFUSE, NULL, NULL,
                NULL, error))
    return NULL;
  Shared *sh = resolve_points(sc, opt);
  if (!plan) {
    plan_worker(sh);
    return sh;
  }
  if (!plan_jobs(sh, report, error) || !plan_correlations(sh, error)) {
    scen_sweep_free(sh);
    return NULL;
  }
  /* The runs. A sweep's summary.json marks it complete: gone until it is again. */
  if (sh->n_jobs > 0 && sh->sweep) {
    char *sum = g_build_filename(sh->out_dir, "summary.json", NULL);
    g_unlink(sum);
    g_free(sum);
  }
  return sh;
}

guint scen_sweep_n_points(const ScenSweep *sh) {
  return sh->total_points;
}

guint scen_sweep_n_jobs(const ScenSweep *sh) {
  return sh->n_jobs;
}

guint scen_sweep_threads(const ScenSweep *sh) {
  return sh->threads;
}

const guint *scen_sweep_job_points(const ScenSweep *sh, guint j, guint *n_points) {
  g_return_val_if_fail(j < sh->n_jobs, NULL);
  *n_points = sh->jobs[j].n_points;
  return sh->jobs[j].points;
}

const char *scen_sweep_job_C_file(const ScenSweep *sh, guint j) {
  g_return_val_if_fail(j < sh->n_jobs, NULL);
  return sh->jobs[j].C_file;
}

const char *scen_sweep_point_dir(const ScenSweep *sh, guint p) {
  g_return_val_if_fail(p < sh->total_points, NULL);
  return sh->dirs[p];
}

typedef struct {
  double cost;
  guint job;
} JobCost;

static int by_cost_desc(const void *a, const void *b) {
  const JobCost *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  return x->job < y->job ? -1 : x->job > y->job;
}

guint *scen_sweep_job_order(const ScenSweep *sh) {
  JobCost *jc = g_new(JobCost, MAX(sh->n_jobs, 1));
  for (guint j = 0; j < sh->n_jobs; j++) {
    jc[j].cost = sh->cost[j];
    jc[j].job = j;
  }
  qsort(jc, sh->n_jobs, sizeof *jc, by_cost_desc);
  guint *order = g_new(guint, MAX(sh->n_jobs, 1));
  for (guint j = 0; j < sh->n_jobs; j++)
    order[j] = jc[j].job;
  g_free(jc);
  return order;
}

gboolean scen_sweep_run_points(ScenSweep *sh, const guint *points, guint n_points, const double *C,
                               const char *C_file, GError **error) {
  g_return_val_if_fail(n_points > 0, FALSE);
  for (guint i = 0; i < n_points; i++)
    g_return_val_if_fail(points[i] < sh->total_points, FALSE);
  return run_points(sh, points, n_points, C, C_file, NULL, error);
}

void scen_sweep_run_job(ScenSweep *sh, guint j) {
  g_return_if_fail(j < sh->n_jobs);
  run_job(GUINT_TO_POINTER(j + 1), sh);
}

void scen_sweep_job_done(ScenSweep *sh, guint j, const char *error) {
  g_return_if_fail(j < sh->n_jobs);
  Job *job = &sh->jobs[j];
  g_mutex_lock(&sh->lock);
  g_free(job->error);
  job->error = g_strdup(error);
  job->done = error == NULL;
  sh->fraction[j] = 1.0;
  sh->ended[j] = TRUE;
  gint64 now = g_get_monotonic_time();
  if (sh->start_us[j] > 0 && sh->run_end_us[j] > 0 && error == NULL) {
    sh->run_us += sh->run_end_us[j] - sh->start_us[j];
    sh->point_us += MAX(now - sh->start_us[j], 1);
  }
  sh->finished += job->n_points;
  report_progress(sh);
  g_mutex_unlock(&sh->lock);
}

gboolean scen_sweep_finish(ScenSweep *sh, ScenRunReport *report, GError **error) {
  const GPtrArray *axes = sh->axes;
  const char *out_dir = sh->out_dir;
  guint n = sh->total_points;
  gboolean sweep = sh->sweep;
  gboolean ok = TRUE;
  GString *failures = g_string_new(NULL);
  gboolean *job_failed = g_new0(gboolean, n);
  for (guint j = 0; j < sh->n_jobs; j++) {
    Job *job = &sh->jobs[j];
    if (job->done) {
      report->ran += job->n_points;
    } else {
      report->failed += job->n_points;
      for (guint i = 0; i < job->n_points; i++)
        job_failed[job->points[i]] = TRUE;
      if (failures->len < 4000)
        g_string_append_printf(failures, "\n  %s: %s", sh->dirs[job->points[0]],
                               job->error ? job->error : "not run");
    }
  }
  /* Every point has a result: run here (in memory), found finished, or run
   * by another MPI rank (read back now). A summary no reader accepts is a
   * failed point (and, not being finished, runs again on resume), never a
   * silent gap in the aggregates. */
  for (guint p = 0; ok && !scen_cancelled() && p < n; p++) {
    GError *rerr = NULL;
    if (job_failed[p] || sh->res[p] != NULL ||
        (sh->res[p] = scen_point_result_load(sh->dirs[p], sh->cfg[p]->rounds, &rerr)) != NULL)
      continue;
    report->failed++;
    if (failures->len < 4000)
      g_string_append_printf(failures, "\n  %s: %s", sh->dirs[p], rerr->message);
    g_error_free(rerr);
  }
  g_free(job_failed);
  if (ok && scen_cancelled()) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_CANCELLED,
                "cancelled: %u of %u points finished; run again to resume",
                report->ran + report->skipped, n);
    ok = FALSE;
  }
  if (ok && sweep && report->failed == 0) {
    remove_stale_temps(out_dir);
    ScenAggregate *ag = scen_aggregate_new(axes, n, sh->res);
    ScenSweepResults r = {.out_dir = out_dir,
                          .axes = axes,
                          .n = n,
                          .cfg = sh->cfg,
                          .dirs = sh->dirs,
                          .ini0 = sh->ini[0],
                          .res = sh->res,
                          .ag = ag};
    ok = scen_write_sweep_tables(&r, error) && scen_plot_sweep(&r, report->figures, error) &&
         scen_write_sweep_summary(&r, report->failed, report->figures, error);
    scen_aggregate_free(ag);
  } else if (ok && !sweep && report->failed == 0 && sh->cfg[0]->plots) {
    const char *figs[] = {"loss", "privacy"};
    for (guint i = 0; i < G_N_ELEMENTS(figs); i++) {
      char *name = g_strdup_printf("%s.%s", figs[i], sh->cfg[0]->figure_ext);
      char *p = g_build_filename(out_dir, name, NULL);
      g_free(name);
      if (g_file_test(p, G_FILE_TEST_EXISTS))
        g_ptr_array_add(report->figures, p);
      else
        g_free(p);
    }
  }
  if (ok && report->failed > 0) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_FAILED, "%u of %u points failed:%s", report->failed,
                n, failures->str);
    ok = FALSE;
  }
  g_string_free(failures, TRUE);
  return ok;
}

gboolean scen_scenario_run(ScenScenario *sc, const ScenRunOptions *opt, ScenRunReport *report,
                           GError **error) {
  g_return_val_if_fail(sc != NULL, FALSE);
  ScenRunReport local = {0};
  if (report == NULL)
    report = &local;
  memset(report, 0, sizeof *report);
  report->figures = g_ptr_array_new_with_free_func(g_free);
  gint64 t0 = g_get_monotonic_time();
  ScenSweep *sh = scen_sweep_prepare(sc, opt, TRUE, report, error);
  gboolean ok = sh != NULL;
  gint64 t1 = g_get_monotonic_time();
  if (ok && sh->n_jobs > 0) {
    report_progress(sh);
    GThreadPool *pool = g_thread_pool_new(run_job, sh, (gint)sh->threads, TRUE, NULL);
    guint *order = scen_sweep_job_order(sh);
    for (guint j = 0; j < sh->n_jobs; j++)
      g_thread_pool_push(pool, GUINT_TO_POINTER(order[j] + 1), NULL);
    g_free(order);
    g_thread_pool_free(pool, FALSE, TRUE);
  }
  gint64 t2 = g_get_monotonic_time();
  ok = ok && scen_sweep_finish(sh, report, error);
  report->prepare_s = (t1 - t0) / 1e6;
  report->points_s = (t2 - t1) / 1e6;
  report->finish_s = (g_get_monotonic_time() - t2) / 1e6;
  report->busy_s = sh != NULL ? sh->busy_us / 1e6 : 0.0;
  scen_sweep_free(sh);
  scen_run_report_clear(&local);
  return ok;
}
