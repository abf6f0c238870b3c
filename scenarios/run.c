/*
 * scenarios/run.c: running a scenario: validation first, then every point of
 * the sweep on a GThreadPool (each point its own engine; results do not
 * depend on the thread count), resuming finished points, running once the
 * points whose resolved configurations coincide, and writing the aggregates.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gsl/gsl_cdf.h>

#include "scenarios/internal.h"

void scen_scenario_collect(ScenScenario *sc, ScenProblems *ps);

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
  double *fraction; /* per job */
  guint finished;
  guint total_points;
  const ScenRunOptions *opt;
  ScenRunOptions defaults; /* opt when none was given */
  const GPtrArray *axes;
  char *out_dir;       /* absolute */
  char *cache_dir;
  GArray *job_array;   /* Job; jobs points into it */
  GHashTable *ckeys;   /* C key -> index into ctasks */
  GPtrArray *ctasks;   /* CTask* */
  guint threads;
};
typedef struct ScenSweep Shared;

/* ---- Point names ---- */

static char *sanitize(const char *v) {
  GString *s = g_string_new(NULL);
  for (const char *p = v; *p && s->len < 40; p++)
    g_string_append_c(s, g_ascii_isalnum(*p) || strchr(".+-", *p) ? *p : '-');
  return g_string_free(s, FALSE);
}

static char *axis_label(const GPtrArray *axes, guint a) {
  const ScenSweepAxis *x = g_ptr_array_index(axes, a);
  for (guint i = 0; i < axes->len; i++) {
    const ScenSweepAxis *y = g_ptr_array_index(axes, i);
    if (i != a && g_str_equal(y->key, x->key))
      return g_strdup_printf("%s.%s", x->section, x->key);
  }
  return g_strdup(x->key);
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
      char *l = axis_label(axes, a), *v = sanitize(x->items[items[a]]);
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

static void report_progress(Shared *sh) {
  if (sh->opt->progress == NULL)
    return;
  double sum = 0;
  for (guint j = 0; j < sh->n_jobs; j++)
    sum += sh->fraction[j];
  sh->opt->progress(sh->finished, sh->total_points, sh->n_todo ? sum / sh->n_todo : 1.0,
                    sh->opt->progress_data);
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
    ok = scen_write_point(sh->dirs[p], sh->cfg[p], sh->ini[p], o, sh->cfg[p]->plots && !sh->sweep,
                          error);
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
  run_points(sh, job->points, job->n_points, job->C, job->C_file, &jc, &error);
  scen_sweep_job_done(sh, j, error ? error->message : NULL);
  g_clear_error(&error);
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
  if (t->C != NULL &&
      !priv_matrix_write_csv(t->path, t->C, t->cfg->rounds, t->cfg->rounds, &error))
    g_clear_pointer(&t->C, g_free);
  if (error != NULL) {
    t->error = g_strdup(error->message);
    g_error_free(error);
  }
}

/* ---- Aggregates ---- */

typedef struct {
  guint n_rounds;
  double *round, *train, *test, *acc; /* means over nodes */
  double final_test, final_train, final_acc, tail_test, max_eps, sigma;
  gboolean ok;
} PointResult;

static double json_num(JsonObject *o, const char *key) {
  JsonNode *n = json_object_get_member(o, key);
  if (n == NULL || JSON_NODE_HOLDS_NULL(n))
    return NAN;
  return json_node_get_double(n);
}

/* Reads a point's summary.json. Errors: SCEN_ERROR_IO naming the file when it
 * is missing, is not JSON or not an object (the point is then failed, and run
 * again on resume). */
static gboolean read_point(const char *dir, guint T, PointResult *r, GError **error) {
  memset(r, 0, sizeof *r);
  char *path = g_build_filename(dir, "summary.json", NULL);
  JsonParser *parser = json_parser_new();
  GError *local = NULL;
  gboolean ok = json_parser_load_from_file(parser, path, &local);
  JsonNode *root = ok ? json_parser_get_root(parser) : NULL;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot read %s: %s", path,
                local ? local->message : "not a JSON object");
    g_clear_error(&local);
    g_free(path);
    g_object_unref(parser);
    return FALSE;
  }
  g_free(path);
  JsonObject *o = json_node_get_object(root);
  r->sigma = json_num(o, "sigma");
  JsonArray *curve = json_object_get_array_member(o, "curve");
  r->n_rounds = curve ? json_array_get_length(curve) : 0;
  r->round = g_new0(double, MAX(r->n_rounds, 1));
  r->train = g_new0(double, MAX(r->n_rounds, 1));
  r->test = g_new0(double, MAX(r->n_rounds, 1));
  r->acc = g_new0(double, MAX(r->n_rounds, 1));
  double tail = 0;
  guint n_tail = 0;
  for (guint i = 0; i < r->n_rounds; i++) {
    JsonObject *e = json_array_get_object_element(curve, i);
    r->round[i] = json_num(e, "round");
    r->train[i] = json_num(e, "train_loss");
    r->test[i] = json_num(e, "test_loss");
    r->acc[i] = json_num(e, "test_accuracy");
    /* The paper's "last 50 training steps". */
    if (r->round[i] + 50 >= T && r->round[i] > 0) {
      tail += r->test[i];
      n_tail++;
    }
  }
  r->tail_test = n_tail ? tail / n_tail : NAN;
  JsonObject *fin = json_object_get_object_member(o, "final");
  r->final_train = fin ? json_num(fin, "train_loss") : NAN;
  r->final_test = fin ? json_num(fin, "test_loss") : NAN;
  r->final_acc = fin ? json_num(fin, "test_accuracy") : NAN;
  JsonArray *priv = json_object_get_array_member(o, "privacy");
  r->max_eps = NAN;
  if (priv && json_array_get_length(priv) > 0) {
    JsonObject *p0 = json_array_get_object_element(priv, 0);
    JsonNode *n = json_object_get_member(p0, "max_epsilon");
    r->max_eps = n && JSON_NODE_HOLDS_NULL(n) ? INFINITY : json_num(p0, "max_epsilon");
  }
  r->ok = TRUE;
  g_object_unref(parser);
  return TRUE;
}

static void point_result_clear(PointResult *r) {
  g_free(r->round);
  g_free(r->train);
  g_free(r->test);
  g_free(r->acc);
}

/* A point is finished when its resolved file is the one asked for, every file
 * it writes is there (someone may have deleted one since) and its summary
 * reads back; anything less runs it again. */
static gboolean point_finished(const char *dir, const char *ini) {
  char *res = g_build_filename(dir, "scenario.resolved.ini", NULL);
  char *text = NULL;
  gboolean done = g_file_get_contents(res, &text, NULL, NULL) && g_str_equal(text, ini);
  g_free(text);
  g_free(res);
  const char *files[] = {"metrics.csv", "privacy.csv"};
  for (guint i = 0; done && i < G_N_ELEMENTS(files); i++) {
    char *p = g_build_filename(dir, files[i], NULL);
    done = g_file_test(p, G_FILE_TEST_IS_REGULAR);
    g_free(p);
  }
  if (done) {
    PointResult r;
    done = read_point(dir, 0, &r, NULL);
    point_result_clear(&r);
  }
  return done;
}

/* Mean and 95% confidence interval (Student t) of @n values. */
static void mean_ci(const double *v, guint n, double *mean, double *lo, double *hi) {
  double s = 0;
  for (guint i = 0; i < n; i++)
    s += v[i];
  double m = n ? s / n : NAN;
  double ss = 0;
  for (guint i = 0; i < n; i++)
    ss += (v[i] - m) * (v[i] - m);
  double half = 0;
  if (n >= 2 && isfinite(ss))
    half = gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(ss / (n - 1)) / sqrt((double)n);
  *mean = m;
  *lo = m - half;
  *hi = m + half;
}

static void csv_cell(GString *s, double x) {
  g_string_append_c(s, ',');
  if (isnan(x))
    return;
  char *v = scen_format_double(x);
  g_string_append(s, v);
  g_free(v);
}

static void csv_text(GString *s, const char *v) {
  gboolean quote = strpbrk(v, ",\"\n") != NULL;
  if (!quote) {
    g_string_append(s, v);
    return;
  }
  g_string_append_c(s, '"');
  for (const char *p = v; *p; p++) {
    if (*p == '"')
      g_string_append_c(s, '"');
    g_string_append_c(s, *p);
  }
  g_string_append_c(s, '"');
}

static void free_curve(gpointer p) {
  scen_curve_clear(p);
  g_free(p);
}

typedef struct {
  guint *members; /* point indices (the seeds) */
  guint n;
  char *label;    /* non-seed values, "name=x, mu=y" */
  guint first;    /* first point (its item indices name the group) */
} Group;

/* @res: every point's summary, read back (all ok: a sweep with a failed point
 * has no aggregates). */
static gboolean write_aggregates(Shared *sh, const GPtrArray *axes, const char *out_dir,
                                 ScenRunReport *report, const PointResult *res,
                                 GError **error) {
  guint n = sh->total_points;
  /* Which axis is the seed (replicates), which one the noise level. */
  gint seed_axis = -1, noise_axis = -1;
  for (guint a = 0; a < axes->len; a++) {
    const ScenSweepAxis *x = g_ptr_array_index(axes, a);
    if (g_str_equal(x->section, "simulation") && g_str_equal(x->key, "seed"))
      seed_axis = (gint)a;
    if (g_str_equal(x->section, "protocol") &&
        (g_str_equal(x->key, "mu") || g_str_equal(x->key, "sigma")))
      noise_axis = (gint)a;
  }
  guint *items = g_new0(guint, MAX(axes->len, 1));
  /* Groups: points equal on every axis but the seed, in point order. */
  GHashTable *by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  GArray *groups = g_array_new(FALSE, TRUE, sizeof(Group));
  for (guint p = 0; p < n; p++) {
    scen_sweep_point(axes, p, items);
    GString *key = g_string_new(NULL), *label = g_string_new(NULL);
    for (guint a = 0; a < axes->len; a++) {
      if ((gint)a == seed_axis)
        continue;
      const ScenSweepAxis *x = g_ptr_array_index(axes, a);
      char *l = axis_label(axes, a);
      g_string_append_printf(key, "%u,", items[a]);
      g_string_append_printf(label, "%s%s=%s", label->len ? ", " : "", l, x->items[items[a]]);
      g_free(l);
    }
    gpointer gi;
    if (g_hash_table_lookup_extended(by_key, key->str, NULL, &gi)) {
      Group *g = &g_array_index(groups, Group, GPOINTER_TO_UINT(gi));
      g->members = g_renew(guint, g->members, g->n + 1);
      g->members[g->n++] = p;
      g_string_free(label, TRUE);
      g_string_free(key, TRUE);
    } else {
      Group g = {g_new(guint, 1), 1, g_string_free(label, FALSE), p};
      g.members[0] = p;
      g_hash_table_insert(by_key, g_string_free(key, FALSE), GUINT_TO_POINTER(groups->len));
      g_array_append_val(groups, g);
    }
  }
  g_hash_table_unref(by_key);

  /* points.csv */
  GString *pc = g_string_new("point,dir");
  for (guint a = 0; a < axes->len; a++) {
    char *l = axis_label(axes, a);
    g_string_append_c(pc, ',');
    csv_text(pc, l);
    g_free(l);
  }
  g_string_append(pc, ",status,sigma,final_train_loss,final_test_loss,final_test_accuracy,"
                      "test_loss_last50,epsilon\n");
  for (guint p = 0; p < n; p++) {
    scen_sweep_point(axes, p, items);
    g_string_append_printf(pc, "%u,points/", p);
    csv_text(pc, strrchr(sh->dirs[p], '/') + 1);
    for (guint a = 0; a < axes->len; a++) {
      const ScenSweepAxis *x = g_ptr_array_index(axes, a);
      g_string_append_c(pc, ',');
      csv_text(pc, x->items[items[a]]);
    }
    g_string_append_printf(pc, ",%s", res[p].ok ? "done" : "failed");
    csv_cell(pc, res[p].sigma);
    csv_cell(pc, res[p].final_train);
    csv_cell(pc, res[p].final_test);
    csv_cell(pc, res[p].final_acc);
    csv_cell(pc, res[p].tail_test);
    csv_cell(pc, res[p].max_eps);
    g_string_append_c(pc, '\n');
  }
  char *path = g_build_filename(out_dir, "points.csv", NULL);
  gboolean ok = scen_write_file(path, pc->str, pc->len, error);
  g_free(path);
  g_string_free(pc, TRUE);

  /* groups.csv and aggregate.csv (curves over seeds). */
  GString *gc = g_string_new("group"), *ac = g_string_new("group");
  for (guint a = 0; a < axes->len; a++) {
    if ((gint)a == seed_axis)
      continue;
    char *l = axis_label(axes, a);
    g_string_append_c(gc, ',');
    csv_text(gc, l);
    g_string_append_c(ac, ',');
    csv_text(ac, l);
    g_free(l);
  }
  g_string_append(gc, ",seeds,sigma,epsilon,final_test_loss_mean,final_test_loss_lo,"
                      "final_test_loss_hi,test_loss_last50_mean,test_loss_last50_lo,"
                      "test_loss_last50_hi,final_test_accuracy_mean\n");
  g_string_append(ac, ",round,seeds,train_loss_mean,test_loss_mean,test_loss_lo,test_loss_hi,"
                      "test_accuracy_mean\n");
  /* Per group: curve over seeds (rounds of the first member). */
  ScenCurve *curves = g_new0(ScenCurve, groups->len);
  double *g_eps = g_new0(double, groups->len), *g_final = g_new0(double, groups->len),
         *g_lo = g_new0(double, groups->len), *g_hi = g_new0(double, groups->len);
  for (guint gi = 0; gi < groups->len; gi++) {
    Group *g = &g_array_index(groups, Group, gi);
    scen_sweep_point(axes, g->first, items);
    GString *prefix = g_string_new(NULL);
    g_string_append_printf(prefix, "%u", gi);
    for (guint a = 0; a < axes->len; a++) {
      if ((gint)a == seed_axis)
        continue;
      const ScenSweepAxis *x = g_ptr_array_index(axes, a);
      g_string_append_c(prefix, ',');
      csv_text(prefix, x->items[items[a]]);
    }
    double *v = g_new0(double, g->n), *w = g_new0(double, g->n), *z = g_new0(double, g->n);
    guint m = 0;
    for (guint i = 0; i < g->n; i++) {
      const PointResult *r = &res[g->members[i]];
      if (!r->ok)
        continue;
      v[m] = r->final_test;
      w[m] = r->tail_test;
      z[m] = r->final_acc;
      m++;
    }
    double fm, flo, fhi, tm, tlo, thi, am, alo, ahi;
    mean_ci(v, m, &fm, &flo, &fhi);
    mean_ci(w, m, &tm, &tlo, &thi);
    mean_ci(z, m, &am, &alo, &ahi);
    const PointResult *r0 = &res[g->first];
    g_eps[gi] = r0->max_eps;
    g_final[gi] = fm;
    g_lo[gi] = flo;
    g_hi[gi] = fhi;
    g_string_append_printf(gc, "%s,%u", prefix->str, m);
    csv_cell(gc, r0->sigma);
    csv_cell(gc, r0->max_eps);
    csv_cell(gc, fm);
    csv_cell(gc, flo);
    csv_cell(gc, fhi);
    csv_cell(gc, tm);
    csv_cell(gc, tlo);
    csv_cell(gc, thi);
    csv_cell(gc, am);
    g_string_append_c(gc, '\n');
    /* Curve: rounds of the first finished member. */
    ScenCurve *cv = &curves[gi];
    cv->label = g_strdup(g->label[0] ? g->label : "all seeds");
    const PointResult *ref = NULL;
    for (guint i = 0; i < g->n && !ref; i++)
      if (res[g->members[i]].ok)
        ref = &res[g->members[i]];
    cv->n = ref ? ref->n_rounds : 0;
    cv->x = g_new0(double, MAX(cv->n, 1));
    cv->y = g_new0(double, MAX(cv->n, 1));
    cv->lo = g_new0(double, MAX(cv->n, 1));
    cv->hi = g_new0(double, MAX(cv->n, 1));
    for (guint k = 0; k < cv->n; k++) {
      double *tv = g_new0(double, g->n), *trv = g_new0(double, g->n), *av = g_new0(double, g->n);
      guint mm = 0;
      for (guint i = 0; i < g->n; i++) {
        const PointResult *r = &res[g->members[i]];
        if (!r->ok || r->n_rounds != ref->n_rounds)
          continue;
        tv[mm] = r->test[k];
        trv[mm] = r->train[k];
        av[mm] = r->acc[k];
        mm++;
      }
      double tm2, tlo2, thi2, trm, d1, d2, acm;
      mean_ci(tv, mm, &tm2, &tlo2, &thi2);
      mean_ci(trv, mm, &trm, &d1, &d2);
      mean_ci(av, mm, &acm, &d1, &d2);
      cv->x[k] = ref->round[k];
      cv->y[k] = tm2;
      cv->lo[k] = tlo2;
      cv->hi[k] = thi2;
      g_string_append_printf(ac, "%s,%u,%u", prefix->str, (guint)ref->round[k], mm);
      csv_cell(ac, trm);
      csv_cell(ac, tm2);
      csv_cell(ac, tlo2);
      csv_cell(ac, thi2);
      csv_cell(ac, acm);
      g_string_append_c(ac, '\n');
      g_free(tv);
      g_free(trv);
      g_free(av);
    }
    g_free(v);
    g_free(w);
    g_free(z);
    g_string_free(prefix, TRUE);
  }
  path = g_build_filename(out_dir, "groups.csv", NULL);
  ok = ok && scen_write_file(path, gc->str, gc->len, error);
  g_free(path);
  path = g_build_filename(out_dir, "aggregate.csv", NULL);
  ok = ok && scen_write_file(path, ac->str, ac->len, error);
  g_free(path);
  g_string_free(gc, TRUE);
  g_string_free(ac, TRUE);

  /* Figures: loss curves (bands over seeds), final loss against epsilon. */
  gboolean has_curves = FALSE;
  for (guint gi = 0; gi < groups->len; gi++)
    has_curves |= curves[gi].n > 0;
  if (ok && sh->cfg[0]->plots && has_curves) {
    /* Panels: the noise axis when there is one (a privacy level per panel). */
    guint n_panels = 1;
    const ScenSweepAxis *pax = noise_axis >= 0 ? g_ptr_array_index(axes, noise_axis) : NULL;
    if (pax)
      n_panels = MIN(pax->n_items, 16);
    GPtrArray **panels = g_new0(GPtrArray *, n_panels);
    char **titles = g_new0(char *, n_panels + 1);
    for (guint pn = 0; pn < n_panels; pn++) {
      panels[pn] = g_ptr_array_new_with_free_func(free_curve);
      titles[pn] = pax ? g_strdup_printf("%s = %s", pax->key, pax->items[pn]) : NULL;
    }
    for (guint gi = 0; gi < groups->len; gi++) {
      Group *g = &g_array_index(groups, Group, gi);
      scen_sweep_point(axes, g->first, items);
      guint pn = pax ? items[noise_axis] : 0;
      if (pn >= n_panels || curves[gi].n == 0)
        continue;
      ScenCurve *cv = g_new0(ScenCurve, 1);
      GString *label = g_string_new(NULL);
      for (guint a = 0; a < axes->len; a++) {
        if ((gint)a == seed_axis || (gint)a == noise_axis)
          continue;
        const ScenSweepAxis *x = g_ptr_array_index(axes, a);
        g_string_append_printf(label, "%s%s", label->len ? ", " : "", x->items[items[a]]);
      }
      cv->label = g_string_free(label, FALSE);
      if (cv->label[0] == '\0') {
        g_free(cv->label);
        cv->label = NULL;
      }
      cv->n = curves[gi].n;
      cv->x = g_memdup2(curves[gi].x, cv->n * sizeof(double));
      cv->y = g_memdup2(curves[gi].y, cv->n * sizeof(double));
      cv->lo = g_memdup2(curves[gi].lo, cv->n * sizeof(double));
      cv->hi = g_memdup2(curves[gi].hi, cv->n * sizeof(double));
      g_ptr_array_add(panels[pn], cv);
    }
    path = g_build_filename(out_dir, "loss.svg", NULL);
    char *title = g_strdup_printf("%s: mean test loss over nodes; band: 95%% CI over %u seed%s",
                                  sh->cfg[0]->name, g_array_index(groups, Group, 0).n,
                                  g_array_index(groups, Group, 0).n == 1 ? "" : "s");
    ok = scen_plot_lines(path, title, n_panels, (const char *const *)titles, panels, "round",
                         "test loss", FALSE, TRUE, error);
    if (ok)
      g_ptr_array_add(report->figures, g_strdup(path));
    g_free(title);
    g_free(path);
    for (guint pn = 0; pn < n_panels; pn++)
      g_ptr_array_unref(panels[pn]);
    g_free(panels);
    g_strfreev(titles);

    /* Final loss against epsilon: one line per setting of the other axes. */
    GPtrArray *lines = g_ptr_array_new_with_free_func(free_curve);
    GHashTable *line_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    double eps_lo = INFINITY, eps_hi = 0;
    for (guint gi = 0; gi < groups->len; gi++)
      if (isfinite(g_eps[gi]) && g_eps[gi] > 0) {
        eps_lo = MIN(eps_lo, g_eps[gi]);
        eps_hi = MAX(eps_hi, g_eps[gi]);
      }
    if (isfinite(eps_lo) && eps_hi <= eps_lo * 1.01) {
      /* One privacy level: give the axis some room around it. */
      eps_lo /= 2;
      eps_hi *= 2;
    }
    for (guint gi = 0; gi < groups->len && isfinite(eps_lo); gi++) {
      Group *g = &g_array_index(groups, Group, gi);
      scen_sweep_point(axes, g->first, items);
      GString *label = g_string_new(NULL);
      for (guint a = 0; a < axes->len; a++) {
        if ((gint)a == seed_axis || (gint)a == noise_axis)
          continue;
        const ScenSweepAxis *x = g_ptr_array_index(axes, a);
        g_string_append_printf(label, "%s%s", label->len ? ", " : "", x->items[items[a]]);
      }
      gpointer li;
      ScenCurve *cv;
      if (g_hash_table_lookup_extended(line_of, label->str, NULL, &li)) {
        cv = g_ptr_array_index(lines, GPOINTER_TO_UINT(li));
        g_string_free(label, TRUE);
      } else {
        cv = g_new0(ScenCurve, 1);
        cv->label = g_strdup(label->str[0] ? label->str : "all");
        cv->markers = TRUE;
        cv->errorbars = TRUE;
        g_hash_table_insert(line_of, g_string_free(label, FALSE), GUINT_TO_POINTER(lines->len));
        g_ptr_array_add(lines, cv);
      }
      if (!isfinite(g_eps[gi])) {
        /* No finite epsilon (no noise): a dashed reference line. */
        if (cv->n == 0) {
          cv->dashed = TRUE;
          cv->markers = FALSE;
          cv->n = 2;
          cv->x = g_new(double, 2);
          cv->y = g_new(double, 2);
          cv->x[0] = eps_lo;
          cv->x[1] = eps_hi;
          cv->y[0] = cv->y[1] = g_final[gi];
          cv->errorbars = FALSE;
        }
        continue;
      }
      cv->x = g_renew(double, cv->x, cv->n + 1);
      cv->y = g_renew(double, cv->y, cv->n + 1);
      cv->lo = g_renew(double, cv->lo, cv->n + 1);
      cv->hi = g_renew(double, cv->hi, cv->n + 1);
      cv->x[cv->n] = g_eps[gi];
      cv->y[cv->n] = g_final[gi];
      cv->lo[cv->n] = g_lo[gi];
      cv->hi[cv->n] = g_hi[gi];
      cv->n++;
    }
    g_hash_table_unref(line_of);
    if (ok && lines->len > 0 && noise_axis >= 0) {
      path = g_build_filename(out_dir, "loss_vs_epsilon.svg", NULL);
      char *xl = g_strdup_printf("epsilon at delta = %g (%s, collusion %s)", sh->cfg[0]->delta,
                                 priv_trust_name(sh->cfg[0]->trust[0]),
                                 sh->cfg[0]->collusions[0].name);
      const char *pt[] = {NULL};
      char *title2 = g_strdup_printf("%s: final test loss (mean, 95%% CI over seeds)",
                                     sh->cfg[0]->name);
      ok = scen_plot_lines(path, title2, 1, pt, &lines, xl, "final test loss", TRUE, TRUE, error);
      if (ok)
        g_ptr_array_add(report->figures, g_strdup(path));
      g_free(title2);
      g_free(xl);
      g_free(path);
    }
    g_ptr_array_unref(lines);
  }
  for (guint gi = 0; gi < groups->len; gi++) {
    scen_curve_clear(&curves[gi]);
    g_free(g_array_index(groups, Group, gi).members);
    g_free(g_array_index(groups, Group, gi).label);
  }
  g_free(curves);
  g_free(g_eps);
  g_free(g_final);
  g_free(g_lo);
  g_free(g_hi);
  g_array_unref(groups);
  g_free(items);
  return ok;
}

/* The resolved file of the whole sweep: point 0's values plus the axes. */
static char *sweep_ini(const char *point0, const GPtrArray *axes) {
  GString *s = g_string_new(point0);
  g_string_append(s, "\n[sweep]\n");
  for (guint a = 0; a < axes->len; a++) {
    const ScenSweepAxis *x = g_ptr_array_index(axes, a);
    const ScenKeyInfo *k = scen_schema_find(x->section, x->key);
    gboolean listy = k && (k->type == SCEN_TYPE_ENUM_LIST || k->type == SCEN_TYPE_NODE_LIST);
    g_string_append_printf(s, "%s.%s = ", x->section, x->key);
    for (guint i = 0; i < x->n_items; i++) {
      if (i)
        g_string_append(s, listy ? " | " : ";");
      for (const char *p = x->items[i]; *p; p++) {
        if (*p == '#' || (*p == ';' && !listy) || *p == '\\')
          g_string_append_c(s, '\\');
        g_string_append_c(s, *p);
      }
    }
    g_string_append_c(s, '\n');
  }
  return g_string_free(s, FALSE);
}

static void sweep_summary(Shared *sh, const GPtrArray *axes, const char *out_dir,
                          const ScenRunReport *report, GError **error, gboolean *ok) {
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  json_builder_set_member_name(jb, "name");
  json_builder_add_string_value(jb, sh->cfg[0]->name);
  json_builder_set_member_name(jb, "points");
  json_builder_add_int_value(jb, sh->total_points);
  json_builder_set_member_name(jb, "failed");
  json_builder_add_int_value(jb, report->failed);
  json_builder_set_member_name(jb, "axes");
  json_builder_begin_array(jb);
  for (guint a = 0; a < axes->len; a++) {
    const ScenSweepAxis *x = g_ptr_array_index(axes, a);
    json_builder_begin_object(jb);
    json_builder_set_member_name(jb, "key");
    char *k = g_strdup_printf("%s.%s", x->section, x->key);
    json_builder_add_string_value(jb, k);
    g_free(k);
    json_builder_set_member_name(jb, "values");
    json_builder_begin_array(jb);
    for (guint i = 0; i < x->n_items; i++)
      json_builder_add_string_value(jb, x->items[i]);
    json_builder_end_array(jb);
    json_builder_end_object(jb);
  }
  json_builder_end_array(jb);
  json_builder_set_member_name(jb, "files");
  json_builder_begin_array(jb);
  const char *files[] = {"points.csv", "groups.csv", "aggregate.csv", "scenario.resolved.ini"};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++)
    json_builder_add_string_value(jb, files[i]);
  for (guint i = 0; i < report->figures->len; i++) {
    char *b = g_path_get_basename(g_ptr_array_index(report->figures, i));
    json_builder_add_string_value(jb, b);
    g_free(b);
  }
  json_builder_end_array(jb);
  json_builder_end_object(jb);
  JsonNode *root = json_builder_get_root(jb);
  char *text = sim_json_write(root, 1);
  char *full = g_strconcat(text, "\n", NULL);
  char *path = g_build_filename(out_dir, "summary.json", NULL);
  *ok = *ok && scen_write_file(path, full, strlen(full), error);
  g_free(path);
  g_free(full);
  g_free(text);
  json_node_unref(root);
  g_object_unref(jb);
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
  for (guint p = 0; sh->cfg && p < sh->total_points; p++)
    scen_config_free(sh->cfg[p]);
  g_free(sh->cfg);
  g_strfreev(sh->ini);
  g_strfreev(sh->dirs);
  g_free(sh->out_dir);
  g_mutex_clear(&sh->lock);
  g_free(sh);
}

ScenSweep *scen_sweep_prepare(ScenScenario *sc, const ScenRunOptions *opt, gboolean plan,
                              ScenRunReport *report, GError **error) {
  g_return_val_if_fail(sc != NULL && (report != NULL || !plan), NULL);
  ScenProblems *ps = scen_problems_new();
  /* Until the run ends: resolving a point loads its plugin, or refuses it. */
  sc->plugins = opt->allow_plugins ? SCEN_PLUGINS_LOAD : SCEN_PLUGINS_REFUSE;
  scen_scenario_collect(sc, ps);
  if (scen_problems_count(ps) > 0) {
    sc->plugins = SCEN_PLUGINS_CHECK;
    GString *msg = g_string_new(NULL);
    for (guint i = 0; i < ps->items->len; i++) {
      char *t = scen_problem_format(g_ptr_array_index(ps->items, i));
      g_string_append_printf(msg, "%s%s", i ? "\n" : "", t);
      g_free(t);
    }
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_INVALID, "%s", msg->str);
    g_string_free(msg, TRUE);
    scen_problems_free(ps);
    return NULL;
  }
  scen_problems_free(ps);

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
  if (!plan) {
    /* An MPI worker runs what it is given, opt->threads at a time. */
    gboolean serial = FALSE;
    for (guint p = 0; p < n; p++)
      serial |= !sh->cfg[p]->schedule_static;
    sh->threads = serial ? 1 : MAX(1, opt->threads ? opt->threads : g_get_num_processors());
    return sh;
  }

  report->out_dir = g_strdup(out_dir);
  report->points = n;
  if (g_mkdir_with_parents(out_dir, 0777) != 0) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot create %s: %s", out_dir,
                g_strerror(errno));
    scen_sweep_free(sh);
    return NULL;
  }

  /* Jobs: one per distinct resolved configuration not yet finished. */
  GHashTable *job_of = g_hash_table_new(g_str_hash, g_str_equal);
  GArray *jobs = g_array_new(FALSE, TRUE, sizeof(Job));
  gboolean needs_serial = FALSE;
  for (guint p = 0; p < n; p++) {
    if (point_finished(sh->dirs[p], sh->ini[p])) {
      report->skipped++;
      continue;
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
      /* igraph (graph generation, schedules) is not thread-safe. */
      needs_serial |= !sh->cfg[p]->schedule_static;
    }
  }
  g_hash_table_unref(job_of);
  sh->job_array = jobs;
  sh->n_jobs = jobs->len;
  sh->n_todo = jobs->len;
  sh->jobs = (Job *)jobs->data;
  sh->fraction = g_new0(double, MAX(sh->n_jobs, 1));
  guint threads = opt->threads ? opt->threads : g_get_num_processors();
  if (needs_serial)
    threads = 1;
  threads = MAX(1, MIN(threads, MAX(sh->n_jobs, 1)));
  report->threads = sh->threads = threads;

  /* Noise correlations: each distinct one once, before the runs. */
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
      GThreadPool *pool = g_thread_pool_new(run_ctask, NULL, (gint)MIN(threads, ctasks->len),
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
  if (!ok) {
    scen_sweep_free(sh);
    return NULL;
  }
  /* The runs. A sweep's summary.json marks it complete: gone until it is again. */
  if (sh->n_jobs > 0 && sweep) {
    char *sum = g_build_filename(out_dir, "summary.json", NULL);
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
    const ScenConfig *c = sh->cfg[sh->jobs[j].points[0]];
    /* Engine events grow with steps x nodes; the observer path keeps every
     * message's provenance, several times the work of the structured one. */
    jc[j].cost = (double)c->rounds * MAX(c->n, 1) * (c->path == SCEN_PATH_OBSERVER ? 4 : 1);
    jc[j].job = j;
  }
  qsort(jc, sh->n_jobs, sizeof *jc, by_cost_desc);
  guint *order = g_new(guint, MAX(sh->n_jobs, 1));
  for (guint j = 0; j < sh->n_jobs; j++)
    order[j] = jc[j].job;
  g_free(jc);
  return order;
}

gboolean scen_sweep_run_points(ScenSweep *sh, const guint *points, guint n_points,
                               const double *C, const char *C_file, GError **error) {
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
  /* Every point, run now or found finished, must read back: a summary no
   * reader accepts is a failed point (and, not being finished, runs again on
   * resume), never a silent gap in the aggregates. */
  PointResult *res = g_new0(PointResult, n);
  for (guint p = 0; ok && !scen_cancelled() && p < n; p++) {
    GError *rerr = NULL;
    if (job_failed[p] || read_point(sh->dirs[p], sh->cfg[p]->rounds, &res[p], &rerr))
      continue;
    report->failed++;
    if (failures->len < 4000)
      g_string_append_printf(failures, "\n  %s: %s", sh->dirs[p], rerr->message);
    g_error_free(rerr);
  }
  g_free(job_failed);
  if (ok && scen_cancelled()) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_CANCELLED,
                "cancelled: %u of %u points finished; run again to resume", report->ran +
                report->skipped, n);
    ok = FALSE;
  }
  if (ok && sweep && report->failed == 0) {
    remove_stale_temps(out_dir);
    char *ini = sweep_ini(sh->ini[0], axes);
    char *path = g_build_filename(out_dir, "scenario.resolved.ini", NULL);
    ok = scen_write_file(path, ini, strlen(ini), error);
    g_free(path);
    g_free(ini);
    ok = ok && write_aggregates(sh, axes, out_dir, report, res, error);
    sweep_summary(sh, axes, out_dir, report, error, &ok);
  } else if (ok && !sweep && report->failed == 0 && sh->cfg[0]->plots) {
    const char *figs[] = {"loss.svg", "privacy.svg"};
    for (guint i = 0; i < G_N_ELEMENTS(figs); i++) {
      char *p = g_build_filename(out_dir, figs[i], NULL);
      if (g_file_test(p, G_FILE_TEST_EXISTS))
        g_ptr_array_add(report->figures, p);
      else
        g_free(p);
    }
  }
  if (ok && report->failed > 0) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_FAILED, "%u of %u points failed:%s",
                report->failed, n, failures->str);
    ok = FALSE;
  }
  g_string_free(failures, TRUE);
  for (guint p = 0; p < n; p++)
    point_result_clear(&res[p]);
  g_free(res);
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
  ScenSweep *sh = scen_sweep_prepare(sc, opt, TRUE, report, error);
  gboolean ok = sh != NULL;
  if (ok && sh->n_jobs > 0) {
    report_progress(sh);
    GThreadPool *pool = g_thread_pool_new(run_job, sh, (gint)sh->threads, TRUE, NULL);
    guint *order = scen_sweep_job_order(sh);
    for (guint j = 0; j < sh->n_jobs; j++)
      g_thread_pool_push(pool, GUINT_TO_POINTER(order[j] + 1), NULL);
    g_free(order);
    g_thread_pool_free(pool, FALSE, TRUE);
  }
  ok = ok && scen_sweep_finish(sh, report, error);
  scen_sweep_free(sh);
  scen_run_report_clear(&local);
  return ok;
}
