/*
 * scenarios/aggregate_output.c: a sweep's files at the top of its output
 * folder, from its results in memory (aggregate.c): points.csv (one row per
 * point), groups.csv (means over seeds), aggregate.csv (curves over seeds),
 * the tidy privacy.csv, metrics.csv and metrics_mean.csv of every point with
 * the point's axis values, the sweep's resolved file and summary.json (last: it marks the
 * sweep complete). Each file goes through a temporary name renamed into
 * place.
 */
#include <math.h>
#include <string.h>

#include "scenarios/internal.h"

static void cell(GString *s, double x) {
  g_string_append_c(s, ',');
  scen_csv_number(s, x);
}

static gboolean write_in(const char *dir, const char *name, const GString *s, GError **error) {
  char *path = g_build_filename(dir, name, NULL);
  gboolean ok = scen_write_file(path, s->str, s->len, error);
  g_free(path);
  return ok;
}

/* "epsilon_TRUST_COLLUSION" of accounting @k ("collusion\ttrust"). */
static char *epsilon_column(const char *k) {
  char **ct = g_strsplit(k, "\t", 2);
  char *name = g_strdup_printf("epsilon_%s_%s", ct[1], ct[0]);
  g_strfreev(ct);
  return name;
}

/* The worst victim's epsilon of every accounting, as cells. */
static void epsilon_cells(GString *s, const ScenAggregate *ag, const ScenPointResult *r) {
  for (guint i = 0; i < ag->accountings->len; i++) {
    char **ct = g_strsplit(g_ptr_array_index(ag->accountings, i), "\t", 2);
    cell(s, scen_point_result_epsilon(r, ct[0], ct[1]));
    g_strfreev(ct);
  }
}

static void epsilon_header(GString *s, const ScenAggregate *ag) {
  for (guint i = 0; i < ag->accountings->len; i++) {
    char *name = epsilon_column(g_ptr_array_index(ag->accountings, i));
    g_string_append_c(s, ',');
    scen_csv_text(s, name);
    g_free(name);
  }
}

static GString *points_csv(const ScenSweepResults *r, guint *items) {
  const GPtrArray *axes = r->axes;
  GString *pc = g_string_new("point,dir");
  for (guint a = 0; a < axes->len; a++) {
    char *l = scen_axis_label(axes, a);
    g_string_append_c(pc, ',');
    scen_csv_text(pc, l);
    g_free(l);
  }
  g_string_append(pc, ",status,sigma,final_train_loss,final_test_loss,final_test_accuracy,"
                      "test_loss_last50");
  epsilon_header(pc, r->ag);
  g_string_append(pc, ",delta\n");
  for (guint p = 0; p < r->n; p++) {
    const ScenPointResult *res = r->res[p];
    scen_sweep_point(axes, p, items);
    g_string_append_printf(pc, "%u,points/", p);
    scen_csv_text(pc, strrchr(r->dirs[p], '/') + 1);
    for (guint a = 0; a < axes->len; a++) {
      const ScenSweepAxis *x = g_ptr_array_index(axes, a);
      g_string_append_c(pc, ',');
      scen_csv_text(pc, x->items[items[a]]);
    }
    g_string_append(pc, ",done");
    cell(pc, res->sigma);
    cell(pc, res->final_train);
    cell(pc, res->final_test);
    cell(pc, res->final_acc);
    cell(pc, res->tail_test);
    epsilon_cells(pc, r->ag, res);
    cell(pc, r->cfg[p]->delta);
    g_string_append_c(pc, '\n');
  }
  return pc;
}

/* groups.csv and aggregate.csv, both keyed by the group's non-seed values. */
static void groups_csv(const ScenSweepResults *r, guint *items, GString *gc, GString *ac) {
  const GPtrArray *axes = r->axes;
  const ScenAggregate *ag = r->ag;
  g_string_append(gc, "group");
  g_string_append(ac, "group");
  for (guint a = 0; a < axes->len; a++) {
    if ((gint)a == ag->seed_axis)
      continue;
    char *l = scen_axis_label(axes, a);
    g_string_append_c(gc, ',');
    scen_csv_text(gc, l);
    g_string_append_c(ac, ',');
    scen_csv_text(ac, l);
    g_free(l);
  }
  g_string_append(gc, ",seeds,sigma");
  epsilon_header(gc, ag);
  /* Losses: arithmetic mean, then the geometric mean with its log-scale
   * interval (lo, hi), as the figures draw them; accuracy: mean and interval
   * clipped to [0, 1]. */
  g_string_append(gc, ",final_test_loss_mean,final_test_loss_gmean,final_test_loss_lo,"
                      "final_test_loss_hi,test_loss_last50_mean,test_loss_last50_gmean,"
                      "test_loss_last50_lo,test_loss_last50_hi,final_test_accuracy_mean,"
                      "final_test_accuracy_lo,final_test_accuracy_hi,delta\n");
  g_string_append(ac, ",round,seeds,train_loss_mean,test_loss_mean,test_loss_gmean,test_loss_lo,"
                      "test_loss_hi,test_accuracy_mean,test_accuracy_lo,test_accuracy_hi\n");
  for (guint gi = 0; gi < ag->groups->len; gi++) {
    const ScenGroup *g = &g_array_index(ag->groups, ScenGroup, gi);
    scen_sweep_point(axes, g->first, items);
    GString *prefix = g_string_new(NULL);
    g_string_append_printf(prefix, "%u", gi);
    for (guint a = 0; a < axes->len; a++) {
      if ((gint)a == ag->seed_axis)
        continue;
      const ScenSweepAxis *x = g_ptr_array_index(axes, a);
      g_string_append_c(prefix, ',');
      scen_csv_text(prefix, x->items[items[a]]);
    }
    /* Privacy: the first member's (it does not depend on the seed but
     * through a random schedule, which the seed axis then averages out of
     * the losses only). */
    const ScenPointResult *r0 = r->res[g->first];
    g_string_append_printf(gc, "%s,%u", prefix->str, g->n);
    cell(gc, r0->sigma);
    epsilon_cells(gc, ag, r0);
    cell(gc, g->final_mean);
    cell(gc, g->final_gmean);
    cell(gc, g->final_lo);
    cell(gc, g->final_hi);
    cell(gc, g->tail_mean);
    cell(gc, g->tail_gmean);
    cell(gc, g->tail_lo);
    cell(gc, g->tail_hi);
    cell(gc, g->acc_mean);
    cell(gc, g->final_acc_lo);
    cell(gc, g->final_acc_hi);
    cell(gc, r->cfg[g->first]->delta);
    g_string_append_c(gc, '\n');
    for (guint k = 0; k < g->n_rounds; k++) {
      g_string_append_printf(ac, "%s,%u,%u", prefix->str, (guint)g->round[k], g->seeds[k]);
      cell(ac, g->train_mean[k]);
      cell(ac, g->test_mean[k]);
      cell(ac, g->test_gmean[k]);
      cell(ac, g->test_lo[k]);
      cell(ac, g->test_hi[k]);
      cell(ac, g->acc_curve[k]);
      cell(ac, g->acc_lo[k]);
      cell(ac, g->acc_hi[k]);
      g_string_append_c(ac, '\n');
    }
    g_string_free(prefix, TRUE);
  }
}

/* Every line of @rows with @prefix in front, into @out. */
static gboolean prefix_lines(ScenFileOut *out, const char *prefix, const char *rows,
                             GError **error) {
  GString *s = g_string_new(NULL);
  gboolean ok = TRUE;
  for (const char *p = rows; ok && *p;) {
    const char *nl = strchr(p, '\n');
    gsize len = nl ? (gsize)(nl - p) + 1 : strlen(p);
    g_string_append(s, prefix);
    g_string_append_len(s, p, (gssize)len);
    p += len;
    if (s->len >= (1u << 16) || *p == '\0') {
      ok = scen_file_out_write(out, s->str, s->len, error);
      g_string_truncate(s, 0);
    }
  }
  g_string_free(s, TRUE);
  return ok;
}

/* One tidy table of the sweep, DIR/@name: each point's rows (its own
 * @name, read back one point at a time: a large sweep's tables never sit in
 * memory whole) after the point's name and its values on every axis but the
 * seed (a column of the rows already), the axes named section.key so that
 * none collides with a column of the rows (privacy.trust, protocol.mu). */
static gboolean tidy_table(const ScenSweepResults *r, guint *items, const char *name,
                           const char *columns, GError **error) {
  const GPtrArray *axes = r->axes;
  char *path = g_build_filename(r->out_dir, name, NULL);
  ScenFileOut *out = scen_file_out_new(path, error);
  g_free(path);
  if (out == NULL)
    return FALSE;
  GString *head = g_string_new("point");
  for (guint a = 0; a < axes->len; a++) {
    if ((gint)a == r->ag->seed_axis)
      continue;
    const ScenSweepAxis *x = g_ptr_array_index(axes, a);
    char *l = g_strdup_printf("%s.%s", x->section, x->key);
    g_string_append_c(head, ',');
    scen_csv_text(head, l);
    g_free(l);
  }
  g_string_append_printf(head, ",%s\n", columns);
  gboolean ok = scen_file_out_write(out, head->str, head->len, error);
  g_string_free(head, TRUE);
  for (guint p = 0; ok && p < r->n; p++) {
    scen_sweep_point(axes, p, items);
    GString *prefix = g_string_new(NULL);
    scen_csv_text(prefix, strrchr(r->dirs[p], '/') + 1);
    for (guint a = 0; a < axes->len; a++) {
      if ((gint)a == r->ag->seed_axis)
        continue;
      const ScenSweepAxis *x = g_ptr_array_index(axes, a);
      g_string_append_c(prefix, ',');
      scen_csv_text(prefix, x->items[items[a]]);
    }
    g_string_append_c(prefix, ',');
    char *file = g_build_filename(r->dirs[p], name, NULL), *text = NULL;
    GError *local = NULL;
    ok = scen_table_check_header(file, columns, error) &&
         g_file_get_contents(file, &text, NULL, &local);
    if (local != NULL) {
      g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot read %s: %s", file, local->message);
      g_error_free(local);
    }
    ok = ok && prefix_lines(out, prefix->str, text + strlen(columns) + 1, error);
    g_free(text);
    g_free(file);
    g_string_free(prefix, TRUE);
  }
  if (!ok) {
    scen_file_out_abort(out);
    return FALSE;
  }
  return scen_file_out_commit(out, error);
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

gboolean scen_write_sweep_tables(const ScenSweepResults *r, GError **error) {
  guint *items = g_new0(guint, MAX(r->axes->len, 1));
  char *ini = sweep_ini(r->ini0, r->axes);
  char *path = g_build_filename(r->out_dir, "scenario.resolved.ini", NULL);
  gboolean ok = scen_write_file(path, ini, strlen(ini), error);
  g_free(path);
  g_free(ini);
  GString *pc = points_csv(r, items);
  ok = ok && write_in(r->out_dir, "points.csv", pc, error);
  g_string_free(pc, TRUE);
  GString *gc = g_string_new(NULL), *ac = g_string_new(NULL);
  groups_csv(r, items, gc, ac);
  ok = ok && write_in(r->out_dir, "groups.csv", gc, error);
  ok = ok && write_in(r->out_dir, "aggregate.csv", ac, error);
  g_string_free(gc, TRUE);
  g_string_free(ac, TRUE);
  ok = ok && tidy_table(r, items, "privacy.csv", SCEN_PRIVACY_CSV_COLUMNS, error);
  ok = ok && tidy_table(r, items, "metrics.csv", SCEN_METRICS_CSV_COLUMNS, error);
  ok = ok && tidy_table(r, items, "metrics_mean.csv", SCEN_METRICS_MEAN_CSV_COLUMNS, error);
  g_free(items);
  return ok;
}

gboolean scen_write_sweep_summary(const ScenSweepResults *r, guint failed, const GPtrArray *figures,
                                  GError **error) {
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  json_builder_set_member_name(jb, "name");
  json_builder_add_string_value(jb, r->cfg[0]->name);
  json_builder_set_member_name(jb, "points");
  json_builder_add_int_value(jb, r->n);
  json_builder_set_member_name(jb, "failed");
  json_builder_add_int_value(jb, failed);
  json_builder_set_member_name(jb, "axes");
  json_builder_begin_array(jb);
  for (guint a = 0; a < r->axes->len; a++) {
    const ScenSweepAxis *x = g_ptr_array_index(r->axes, a);
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
  const char *files[] = {"points.csv",  "groups.csv",       "aggregate.csv",        "privacy.csv",
                         "metrics.csv", "metrics_mean.csv", "scenario.resolved.ini"};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++)
    json_builder_add_string_value(jb, files[i]);
  for (guint i = 0; i < figures->len; i++) {
    char *b = g_path_get_basename(g_ptr_array_index(figures, i));
    json_builder_add_string_value(jb, b);
    g_free(b);
  }
  json_builder_end_array(jb);
  json_builder_end_object(jb);
  JsonNode *root = json_builder_get_root(jb);
  char *text = sim_json_write(root, 1);
  char *full = g_strconcat(text, "\n", NULL);
  char *path = g_build_filename(r->out_dir, "summary.json", NULL);
  gboolean ok = scen_write_file(path, full, strlen(full), error);
  g_free(path);
  g_free(full);
  g_free(text);
  json_node_unref(root);
  g_object_unref(jb);
  return ok;
}
