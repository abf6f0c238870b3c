/*
 * scenarios/distance_stats.c: the statistic of the paper's Figure 2 (section
 * 7.1): a privacy loss against the hop distance between victim and
 * attacker, mean with min/max bars over the (attacker set, victim) pairs at
 * each distance. `dpgossip figure` pools each attacker set's victim rows
 * (computed on any MPI rank) here; the scenario figures pool their victims
 * with the same ScenDistStat, so both figures draw the same numbers from
 * the same values. The victims a run wrote to privacy.csv are pooled by
 * accounting and distance here too (ScenDistCsv), for the run summary and
 * the scenario figures.
 */
#include <math.h>
#include <string.h>

#include "scenarios/scenarios.h"

void scen_dist_stat_add(ScenDistStat *s, double v) {
  g_return_if_fail(s != NULL);
  if (!isfinite(v)) {
    s->n_inf++;
    return;
  }
  if (s->count == 0 || v < s->min)
    s->min = v;
  if (s->count == 0 || v > s->max)
    s->max = v;
  s->count++;
  s->sum += v;
}

guint scen_dist_stat_total(const ScenDistStat *s) {
  g_return_val_if_fail(s != NULL, 0);
  return s->count + s->n_inf;
}

double scen_dist_stat_mean(const ScenDistStat *s) {
  g_return_val_if_fail(s != NULL, NAN);
  if (s->n_inf)
    return INFINITY;
  return s->count ? s->sum / s->count : NAN;
}

double scen_dist_stat_min(const ScenDistStat *s) {
  g_return_val_if_fail(s != NULL, NAN);
  return s->count ? s->min : (s->n_inf ? INFINITY : NAN);
}

double scen_dist_stat_max(const ScenDistStat *s) {
  g_return_val_if_fail(s != NULL, NAN);
  if (s->n_inf)
    return INFINITY;
  return s->count ? s->max : NAN;
}

/* A victim's loss: +inf without protection (unprotected or unresolved). */
static double victim_rdp(const PrivVictim *v) {
  return v->unprotected ? INFINITY : v->rdp;
}

/* Whether @sync lists @ours's victims, in the same order; else @error says
 * where they part. */
static gboolean same_victims(const PrivReport *ours, const PrivReport *sync, GError **error) {
  if (sync->n_victims != ours->n_victims) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the synchronous and the simulated accountings disagree on the victims (%u "
                "against %u)",
                sync->n_victims, ours->n_victims);
    return FALSE;
  }
  for (guint v = 0; v < ours->n_victims; v++)
    if (sync->victims[v].node != ours->victims[v].node) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  "the synchronous and the simulated accountings disagree on the victims "
                  "(victim %u is node %u against %u)",
                  v, sync->victims[v].node, ours->victims[v].node);
      return FALSE;
    }
  return TRUE;
}

GBytes *scen_dist_rows(const PrivReport *ours, const double *muff, const PrivReport *sync,
                       GError **error) {
  g_return_val_if_fail(ours != NULL, NULL);
  g_return_val_if_fail((muff == NULL) != (sync == NULL), NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (sync != NULL && !same_victims(ours, sync, error))
    return NULL;
  ScenDistRow *rows = g_new0(ScenDistRow, MAX(ours->n_victims, 1));
  for (guint v = 0; v < ours->n_victims; v++) {
    const PrivVictim *vi = &ours->victims[v];
    double other = vi->distance < 0 ? 0 : muff ? muff[vi->node] : victim_rdp(&sync->victims[v]);
    rows[v] = (ScenDistRow){vi->distance, vi->node, victim_rdp(vi), other};
  }
  return g_bytes_new_take(rows, ours->n_victims * sizeof *rows);
}

ScenDistPool *scen_dist_pool_new(guint n_distances) {
  ScenDistPool *p = g_new0(ScenDistPool, 1);
  p->n_distances = n_distances;
  for (guint m = 0; m < SCEN_DIST_N_SERIES; m++)
    p->stat[m] = g_new0(ScenDistStat, MAX(n_distances, 1));
  return p;
}

void scen_dist_pool_free(ScenDistPool *p) {
  if (p == NULL)
    return;
  for (guint m = 0; m < SCEN_DIST_N_SERIES; m++)
    g_free(p->stat[m]);
  g_free(p);
}

/* Adds the rows of set @i (bytes @set) to @p. */
static gboolean add_set(ScenDistPool *p, guint i, GBytes *set, GError **error) {
  gsize len = 0;
  const ScenDistRow *rows = set ? g_bytes_get_data(set, &len) : NULL;
  if (set == NULL || len % sizeof *rows != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "attacker set %u: %" G_GSIZE_FORMAT
                " bytes are not whole victim rows of %" G_GSIZE_FORMAT " bytes",
                i, len, sizeof *rows);
    return FALSE;
  }
  for (gsize v = 0; v < len / sizeof *rows; v++) {
    const ScenDistRow *r = &rows[v];
    if (r->distance < 0) {
      p->n_unreachable++;
      continue;
    }
    if ((guint)r->distance >= p->n_distances) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  "attacker set %u: victim %u at distance %d, beyond the %u distances pooled", i,
                  r->node, r->distance, p->n_distances);
      return FALSE;
    }
    guint d = (guint)r->distance;
    if (r->ours == 0 || r->other == 0)
      p->n_zero++;
    scen_dist_stat_add(&p->stat[SCEN_DIST_OURS][d], r->ours);
    scen_dist_stat_add(&p->stat[SCEN_DIST_OTHER][d], r->other);
    p->max_distance = MAX(p->max_distance, d);
  }
  return TRUE;
}

gboolean scen_dist_pool_add_sets(ScenDistPool *p, GBytes *const *sets, guint n_sets,
                                 GError **error) {
  g_return_val_if_fail(p != NULL, FALSE);
  g_return_val_if_fail(sets != NULL || n_sets == 0, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  for (guint i = 0; i < n_sets; i++)
    if (!add_set(p, i, sets[i], error))
      return FALSE;
  return TRUE;
}

void scen_dist_pool_csv(GString *out, const char *label, const ScenDistPool *p,
                        const char *const *series) {
  g_return_if_fail(out != NULL && label != NULL && p != NULL && series != NULL);
  for (guint d = 1; d <= p->max_distance; d++)
    for (guint m = 0; m < SCEN_DIST_N_SERIES; m++) {
      const ScenDistStat *s = &p->stat[m][d];
      if (scen_dist_stat_total(s) == 0)
        continue;
      scen_csv_text(out, label);
      g_string_append_printf(out, ",%u,%s,", d, series[m]);
      scen_csv_number17(out, scen_dist_stat_mean(s));
      g_string_append_c(out, ',');
      scen_csv_number17(out, scen_dist_stat_min(s));
      g_string_append_c(out, ',');
      scen_csv_number17(out, scen_dist_stat_max(s));
      g_string_append_printf(out, ",%u\n", scen_dist_stat_total(s));
    }
}

/* ---- privacy.csv's victims by accounting and distance ---- */

ScenDistCsv *scen_dist_csv_new(void) {
  ScenDistCsv *p = g_new0(ScenDistCsv, 1);
  p->accs = g_ptr_array_new();
  return p;
}

void scen_dist_csv_free(ScenDistCsv *p) {
  if (p == NULL)
    return;
  for (guint i = 0; i < p->accs->len; i++) {
    ScenDistAcc *a = g_ptr_array_index(p->accs, i);
    g_free(a->collusion);
    g_free(a->trust);
    g_free(a->attackers);
    g_array_unref(a->rdp);
    g_array_unref(a->epsilon);
    g_free(a);
  }
  g_ptr_array_unref(p->accs);
  g_free(p);
}

/* Whether the whole of @v is a number (then in *@x); "inf" is one. */
static gboolean csv_number(const char *v, double *x) {
  char *end = NULL;
  *x = g_ascii_strtod(v, &end);
  return *v != '\0' && end != NULL && *end == '\0';
}

/* The accounting of (@group, @col, @tr) in @p, made when new. A linear
 * search: a file has a few accountings per group. */
static ScenDistAcc *csv_acc(ScenDistCsv *p, guint group, const char *col, const char *tr,
                            const char *attackers) {
  for (guint i = 0; i < p->accs->len; i++) {
    ScenDistAcc *a = g_ptr_array_index(p->accs, i);
    if (a->group == group && strcmp(a->collusion, col) == 0 && strcmp(a->trust, tr) == 0)
      return a;
  }
  ScenDistAcc *a = g_new0(ScenDistAcc, 1);
  *a = (ScenDistAcc){group,
                     g_strdup(col),
                     g_strdup(tr),
                     g_strdup(attackers),
                     p->accs->len,
                     g_array_new(FALSE, TRUE, sizeof(ScenDistStat)),
                     g_array_new(FALSE, TRUE, sizeof(ScenDistStat))};
  g_ptr_array_add(p->accs, a);
  return a;
}

void scen_dist_csv_add(ScenDistCsv *p, GPtrArray *rows, GHashTable *group_of, const char *point) {
  g_return_if_fail(p != NULL);
  if (rows == NULL || rows->len == 0)
    return;
  char **h = g_ptr_array_index(rows, 0);
  int cp = scen_csv_column(h, "point"), cc = scen_csv_column(h, "collusion"),
      ct = scen_csv_column(h, "trust"), cd = scen_csv_column(h, "distance"),
      cr = scen_csv_column(h, "rdp"), ce = scen_csv_column(h, "epsilon"),
      ca = scen_csv_column(h, "attackers"), cs = scen_csv_column(h, "status");
  if (cc < 0 || ct < 0 || cd < 0 || cr < 0 || ce < 0)
    return;
  for (guint r = 1; r < rows->len; r++) {
    char **row = g_ptr_array_index(rows, r);
    const char *pt = scen_csv_cell(row, cp);
    if (point != NULL && strcmp(pt, point) != 0)
      continue;
    if (strcmp(scen_csv_cell(row, cs), "unresolved") == 0)
      p->n_unresolved++;
    double d, e, rdp;
    if (!csv_number(scen_csv_cell(row, cd), &d) || !isfinite(d) || d < 0 || d > 1e6 ||
        d != floor(d)) {
      p->n_unreachable++; /* privacy.csv leaves an unreachable victim's distance empty */
      continue;
    }
    if (!csv_number(scen_csv_cell(row, ce), &e))
      continue;
    if (!csv_number(scen_csv_cell(row, cr), &rdp))
      rdp = INFINITY;
    guint group = group_of ? GPOINTER_TO_UINT(g_hash_table_lookup(group_of, pt)) : 0;
    ScenDistAcc *a = csv_acc(p, group, scen_csv_cell(row, cc), scen_csv_cell(row, ct),
                             scen_csv_cell(row, ca));
    guint k = (guint)d;
    if (a->epsilon->len <= k) {
      g_array_set_size(a->rdp, k + 1);
      g_array_set_size(a->epsilon, k + 1);
    }
    scen_dist_stat_add(&g_array_index(a->rdp, ScenDistStat, k), rdp);
    scen_dist_stat_add(&g_array_index(a->epsilon, ScenDistStat, k), e);
    p->max_distance = MAX(p->max_distance, k);
  }
}

const ScenDistStat *scen_dist_csv_stat(const ScenDistAcc *acc, guint d, gboolean rdp) {
  g_return_val_if_fail(acc != NULL, NULL);
  const GArray *a = rdp ? acc->rdp : acc->epsilon;
  if (d >= a->len || scen_dist_stat_total(&g_array_index(a, ScenDistStat, d)) == 0)
    return NULL;
  return &g_array_index(a, ScenDistStat, d);
}
