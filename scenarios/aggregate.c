/*
 * scenarios/aggregate.c: what a sweep makes of its points' results, with no
 * file in sight: each point's result (from the run just done, or read back
 * from a finished point's folder: the same summary.json fields either way,
 * so a resumed sweep aggregates the same numbers), then the groups of
 * points equal on every axis but the seed, with statistics over the seeds
 * that the tables and the figures share: a loss's geometric mean and 95%
 * Student-t interval of its log10 (a loss spans decades and is drawn on a
 * log axis, where an arithmetic interval can run below zero), an accuracy's
 * mean and interval clipped to [0, 1], and the arithmetic means.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "scenarios/internal.h"
#include "spec/spec.h"

void scen_point_result_free(ScenPointResult *r) {
  if (r == NULL)
    return;
  g_free(r->round);
  g_free(r->train);
  g_free(r->test);
  g_free(r->acc);
  for (guint i = 0; r->accountings && i < r->accountings->len; i++) {
    ScenAccountingMax *a = &g_array_index(r->accountings, ScenAccountingMax, i);
    g_free(a->collusion);
    g_free(a->trust);
  }
  if (r->accountings)
    g_array_unref(r->accountings);
  g_free(r);
}

static double json_num(JsonObject *o, const char *key) {
  JsonNode *n = o ? json_object_get_member(o, key) : NULL;
  if (n == NULL || JSON_NODE_HOLDS_NULL(n) || !JSON_NODE_HOLDS_VALUE(n))
    return NAN;
  return json_node_get_double(n);
}

static const char *json_str(JsonObject *o, const char *key) {
  JsonNode *n = json_object_get_member(o, key);
  return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
             ? json_node_get_string(n)
             : "";
}

ScenPointResult *scen_point_result_new(JsonObject *summary, guint T) {
  ScenPointResult *r = g_new0(ScenPointResult, 1);
  r->sigma = json_num(summary, "sigma");
  JsonNode *cn = json_object_get_member(summary, "curve");
  JsonArray *curve = cn && JSON_NODE_HOLDS_ARRAY(cn) ? json_node_get_array(cn) : NULL;
  r->n_rounds = curve ? json_array_get_length(curve) : 0;
  r->round = g_new0(double, MAX(r->n_rounds, 1));
  r->train = g_new0(double, MAX(r->n_rounds, 1));
  r->test = g_new0(double, MAX(r->n_rounds, 1));
  r->acc = g_new0(double, MAX(r->n_rounds, 1));
  double tail = 0;
  guint n_tail = 0;
  for (guint i = 0; i < r->n_rounds; i++) {
    JsonNode *en = json_array_get_element(curve, i);
    JsonObject *e = JSON_NODE_HOLDS_OBJECT(en) ? json_node_get_object(en) : NULL;
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
  JsonNode *fn = json_object_get_member(summary, "final");
  JsonObject *fin = fn && JSON_NODE_HOLDS_OBJECT(fn) ? json_node_get_object(fn) : NULL;
  r->final_train = json_num(fin, "train_loss");
  r->final_test = json_num(fin, "test_loss");
  r->final_acc = json_num(fin, "test_accuracy");
  r->accountings = g_array_new(FALSE, TRUE, sizeof(ScenAccountingMax));
  JsonNode *pn = json_object_get_member(summary, "privacy");
  JsonArray *priv = pn && JSON_NODE_HOLDS_ARRAY(pn) ? json_node_get_array(pn) : NULL;
  for (guint i = 0; priv && i < json_array_get_length(priv); i++) {
    JsonNode *an = json_array_get_element(priv, i);
    if (!JSON_NODE_HOLDS_OBJECT(an))
      continue;
    JsonObject *p = json_node_get_object(an);
    JsonNode *m = json_object_get_member(p, "max_epsilon");
    /* null: some victim has no protection */
    ScenAccountingMax a = {g_strdup(json_str(p, "collusion")), g_strdup(json_str(p, "trust")),
                           m && JSON_NODE_HOLDS_NULL(m) ? INFINITY : json_num(p, "max_epsilon")};
    g_array_append_val(r->accountings, a);
  }
  r->max_eps = r->accountings->len ? g_array_index(r->accountings, ScenAccountingMax, 0).max_eps
                                   : NAN;
  return r;
}

gboolean scen_table_check_header(const char *path, const char *header, GError **error) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    int saved = errno;
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot read %s: %s", path, g_strerror(saved));
    return FALSE;
  }
  char line[1024];
  gboolean ok = fgets(line, sizeof line, f) != NULL && g_str_has_prefix(line, header) &&
                line[strlen(header)] == '\n';
  fclose(f);
  if (!ok)
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "%s:1: the header is not '%s'", path, header);
  return ok;
}

/* A point's summary.json is written by scen_write_point and nests 4 deep;
 * json-glib recurses, so a damaged or planted deeper file is refused before
 * parsing. */
#define SUMMARY_MAX_DEPTH 64

/* The members every summary.json scen_write_point writes carries, with the
 * type each must have: a file without them did not come from a finished
 * run (a truncated or hand-made one) and must not pass for one. */
static const char *summary_lacks(JsonObject *o) {
  static const struct {
    const char *key;
    JsonNodeType type;
  } need[] = {{"rounds", JSON_NODE_VALUE},
              {"curve", JSON_NODE_ARRAY},
              {"final", JSON_NODE_OBJECT},
              {"privacy", JSON_NODE_ARRAY}};
  for (gsize i = 0; i < G_N_ELEMENTS(need); i++) {
    JsonNode *n = json_object_get_member(o, need[i].key);
    if (n == NULL || JSON_NODE_TYPE(n) != need[i].type)
      return need[i].key;
  }
  return NULL;
}

ScenPointResult *scen_point_result_load(const char *dir, guint T, GError **error) {
  char *path = g_build_filename(dir, "summary.json", NULL);
  char *text = NULL;
  gsize len = 0;
  JsonParser *parser = json_parser_new();
  GError *local = NULL;
  JsonNode *root = NULL;
  const char *lacks = NULL;
  if (spec_file_read(path, &text, &len, &local)) {
    if (!spec_json_depth_ok(text, len, SUMMARY_MAX_DEPTH))
      g_set_error(&local, SCEN_ERROR, SCEN_ERROR_IO, "nests arrays and objects more than %d deep",
                  SUMMARY_MAX_DEPTH);
    else if (json_parser_load_from_data(parser, text, (gssize)len, &local))
      root = json_parser_get_root(parser);
  }
  if (root != NULL && JSON_NODE_HOLDS_OBJECT(root))
    lacks = summary_lacks(json_node_get_object(root));
  ScenPointResult *r = NULL;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root) || lacks != NULL) {
    char *why = local != NULL ? spec_escape(local->message, -1)
                : lacks != NULL
                    ? g_strdup_printf("no \"%s\" of the right type: not the summary of a "
                                      "finished point",
                                      lacks)
                    : g_strdup("not a JSON object");
    char *where = spec_escape(path, -1);
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot read %s: %s", where, why);
    g_free(where);
    g_free(why);
    g_clear_error(&local);
  } else {
    char *m = g_build_filename(dir, "metrics.csv", NULL);
    char *mm = g_build_filename(dir, "metrics_mean.csv", NULL);
    char *p = g_build_filename(dir, "privacy.csv", NULL);
    if (scen_table_check_header(m, SCEN_METRICS_CSV_COLUMNS, error) &&
        scen_table_check_header(mm, SCEN_METRICS_MEAN_CSV_COLUMNS, error) &&
        scen_table_check_header(p, SCEN_PRIVACY_CSV_COLUMNS, error))
      r = scen_point_result_new(json_node_get_object(root), T);
    g_free(m);
    g_free(mm);
    g_free(p);
  }
  g_object_unref(parser);
  g_free(text);
  g_free(path);
  return r;
}

double scen_point_result_epsilon(const ScenPointResult *r, const char *collusion,
                                 const char *trust) {
  for (guint i = 0; i < r->accountings->len; i++) {
    const ScenAccountingMax *a = &g_array_index(r->accountings, ScenAccountingMax, i);
    if (g_str_equal(a->collusion, collusion) && g_str_equal(a->trust, trust))
      return a->max_eps;
  }
  return NAN;
}

/* The arithmetic mean of @n values (NaN for none). */
static double mean_of(const double *v, guint n) {
  double s = 0;
  for (guint i = 0; i < n; i++)
    s += v[i];
  return n ? s / n : NAN;
}

/* Half the width of the 95% Student-t interval of @n values around @m:
 * NaN for fewer than two. */
static double t_half(const double *v, guint n, double m) {
  if (n < 2)
    return NAN;
  double ss = 0;
  for (guint i = 0; i < n; i++)
    ss += (v[i] - m) * (v[i] - m);
  return gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(ss / (n - 1)) / sqrt((double)n);
}

void scen_log_mean_ci(const double *v, guint n, double *mean, double *lo, double *hi) {
  *lo = *hi = NAN;
  gboolean positive = n > 0;
  for (guint i = 0; i < n; i++)
    positive &= isfinite(v[i]) && v[i] > 0;
  if (!positive) {
    *mean = mean_of(v, n);
    return;
  }
  double *l = g_new(double, n);
  for (guint i = 0; i < n; i++)
    l[i] = log10(v[i]);
  double m = mean_of(l, n), half = t_half(l, n, m);
  g_free(l);
  *mean = pow(10.0, m);
  if (isfinite(half)) {
    *lo = pow(10.0, m - half);
    *hi = pow(10.0, m + half);
  }
}

void scen_unit_mean_ci(const double *v, guint n, double *mean, double *lo, double *hi) {
  double m = mean_of(v, n), half = t_half(v, n, m);
  *mean = m;
  *lo = isfinite(half) ? MAX(m - half, 0.0) : NAN;
  *hi = isfinite(half) ? MIN(m + half, 1.0) : NAN;
}

char *scen_axis_label(const GPtrArray *axes, guint a) {
  const ScenSweepAxis *x = g_ptr_array_index(axes, a);
  for (guint i = 0; i < axes->len; i++) {
    const ScenSweepAxis *y = g_ptr_array_index(axes, i);
    if (i != a && g_str_equal(y->key, x->key))
      return g_strdup_printf("%s.%s", x->section, x->key);
  }
  return g_strdup(x->key);
}

static void group_stats(ScenGroup *g, ScenPointResult *const *res) {
  double *v = g_new0(double, g->n), *w = g_new0(double, g->n), *z = g_new0(double, g->n);
  for (guint i = 0; i < g->n; i++) {
    const ScenPointResult *r = res[g->members[i]];
    v[i] = r->final_test;
    w[i] = r->tail_test;
    z[i] = r->final_acc;
  }
  g->final_mean = mean_of(v, g->n);
  g->tail_mean = mean_of(w, g->n);
  scen_log_mean_ci(v, g->n, &g->final_gmean, &g->final_lo, &g->final_hi);
  scen_log_mean_ci(w, g->n, &g->tail_gmean, &g->tail_lo, &g->tail_hi);
  scen_unit_mean_ci(z, g->n, &g->acc_mean, &g->final_acc_lo, &g->final_acc_hi);
  g_free(v);
  g_free(w);
  g_free(z);
  /* The curve over the rounds of the first member, over the members with
   * as many rounds. */
  const ScenPointResult *ref = res[g->members[0]];
  guint T = g->n_rounds = ref->n_rounds;
  g->round = g_new0(double, MAX(T, 1));
  g->seeds = g_new0(guint, MAX(T, 1));
  g->train_mean = g_new0(double, MAX(T, 1));
  g->test_mean = g_new0(double, MAX(T, 1));
  g->test_gmean = g_new0(double, MAX(T, 1));
  g->test_lo = g_new0(double, MAX(T, 1));
  g->test_hi = g_new0(double, MAX(T, 1));
  g->acc_curve = g_new0(double, MAX(T, 1));
  g->acc_lo = g_new0(double, MAX(T, 1));
  g->acc_hi = g_new0(double, MAX(T, 1));
  double *tv = g_new0(double, g->n), *trv = g_new0(double, g->n), *av = g_new0(double, g->n);
  for (guint k = 0; k < T; k++) {
    guint m = 0;
    for (guint i = 0; i < g->n; i++) {
      const ScenPointResult *r = res[g->members[i]];
      if (r->n_rounds != T)
        continue;
      tv[m] = r->test[k];
      trv[m] = r->train[k];
      av[m] = r->acc[k];
      m++;
    }
    g->test_mean[k] = mean_of(tv, m);
    g->train_mean[k] = mean_of(trv, m);
    scen_log_mean_ci(tv, m, &g->test_gmean[k], &g->test_lo[k], &g->test_hi[k]);
    scen_unit_mean_ci(av, m, &g->acc_curve[k], &g->acc_lo[k], &g->acc_hi[k]);
    g->round[k] = ref->round[k];
    g->seeds[k] = m;
  }
  g_free(tv);
  g_free(trv);
  g_free(av);
}

ScenAggregate *scen_aggregate_new(const GPtrArray *axes, guint n, ScenPointResult *const *res) {
  ScenAggregate *ag = g_new0(ScenAggregate, 1);
  ag->seed_axis = ag->noise_axis = -1;
  for (guint a = 0; a < axes->len; a++) {
    const ScenSweepAxis *x = g_ptr_array_index(axes, a);
    if (g_str_equal(x->section, "simulation") && g_str_equal(x->key, "seed"))
      ag->seed_axis = (gint)a;
    if (g_str_equal(x->section, "protocol") &&
        (g_str_equal(x->key, "mu") || g_str_equal(x->key, "sigma")))
      ag->noise_axis = (gint)a;
  }
  guint *items = g_new0(guint, MAX(axes->len, 1));
  /* Groups: points equal on every axis but the seed, in point order. */
  GHashTable *by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  ag->groups = g_array_new(FALSE, TRUE, sizeof(ScenGroup));
  for (guint p = 0; p < n; p++) {
    scen_sweep_point(axes, p, items);
    GString *key = g_string_new(NULL), *label = g_string_new(NULL);
    for (guint a = 0; a < axes->len; a++) {
      if ((gint)a == ag->seed_axis)
        continue;
      const ScenSweepAxis *x = g_ptr_array_index(axes, a);
      char *l = scen_axis_label(axes, a);
      g_string_append_printf(key, "%u,", items[a]);
      g_string_append_printf(label, "%s%s=%s", label->len ? ", " : "", l, x->items[items[a]]);
      g_free(l);
    }
    gpointer gi;
    if (g_hash_table_lookup_extended(by_key, key->str, NULL, &gi)) {
      ScenGroup *g = &g_array_index(ag->groups, ScenGroup, GPOINTER_TO_UINT(gi));
      g->members = g_renew(guint, g->members, g->n + 1);
      g->members[g->n++] = p;
      g_string_free(label, TRUE);
      g_string_free(key, TRUE);
    } else {
      ScenGroup g = {.members = g_new(guint, 1), .n = 1, .first = p};
      g.members[0] = p;
      g.label = g_string_free(label, FALSE);
      g_hash_table_insert(by_key, g_string_free(key, FALSE), GUINT_TO_POINTER(ag->groups->len));
      g_array_append_val(ag->groups, g);
    }
  }
  g_hash_table_unref(by_key);
  g_free(items);
  for (guint gi = 0; gi < ag->groups->len; gi++)
    group_stats(&g_array_index(ag->groups, ScenGroup, gi), res);
  /* Every accounting of any point, in order of first appearance. */
  ag->accountings = g_ptr_array_new_with_free_func(g_free);
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint p = 0; p < n; p++)
    for (guint i = 0; i < res[p]->accountings->len; i++) {
      const ScenAccountingMax *a = &g_array_index(res[p]->accountings, ScenAccountingMax, i);
      char *k = g_strdup_printf("%s\t%s", a->collusion, a->trust);
      if (g_hash_table_contains(seen, k)) {
        g_free(k);
        continue;
      }
      g_ptr_array_add(ag->accountings, k);
      g_hash_table_add(seen, k);
    }
  g_hash_table_unref(seen);
  return ag;
}

void scen_aggregate_free(ScenAggregate *ag) {
  if (ag == NULL)
    return;
  for (guint gi = 0; gi < ag->groups->len; gi++) {
    ScenGroup *g = &g_array_index(ag->groups, ScenGroup, gi);
    g_free(g->members);
    g_free(g->label);
    g_free(g->round);
    g_free(g->seeds);
    g_free(g->train_mean);
    g_free(g->test_mean);
    g_free(g->test_gmean);
    g_free(g->test_lo);
    g_free(g->test_hi);
    g_free(g->acc_curve);
    g_free(g->acc_lo);
    g_free(g->acc_hi);
  }
  g_array_unref(ag->groups);
  g_ptr_array_unref(ag->accountings);
  g_free(ag);
}
