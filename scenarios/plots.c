/*
 * scenarios/plots.c: the figures of a point (loss curves over the nodes,
 * privacy loss against distance to the attackers) and the generic line
 * figure the sweep's aggregates use. Cairo figures are built and saved from
 * one thread at a time (the caller's).
 */
#include <math.h>

#include "plot/plot.h"
#include "scenarios/internal.h"

void scen_curve_clear(ScenCurve *cv) {
  g_free(cv->label);
  g_free(cv->x);
  g_free(cv->y);
  g_free(cv->lo);
  g_free(cv->hi);
  cv->label = NULL;
  cv->x = cv->y = cv->lo = cv->hi = NULL;
}

/* Whether a log axis can show any of these values. */
static gboolean any_positive(const double *v, guint n) {
  for (guint i = 0; v && i < n; i++)
    if (isfinite(v[i]) && v[i] > 0)
      return TRUE;
  return FALSE;
}

gboolean scen_plot_lines(const char *path, const char *title, guint n_panels,
                         const char *const *panel_titles, GPtrArray *const *panel_curves,
                         const char *xlabel, const char *ylabel, gboolean xlog, gboolean ylog,
                         GError **error) {
  guint cols = n_panels <= 1 ? 1 : n_panels <= 4 ? 2 : n_panels <= 9 ? 3 : 4;
  cols = MIN(cols, n_panels == 0 ? 1 : n_panels);
  guint rows = n_panels == 0 ? 1 : (n_panels + cols - 1) / cols;
  rows = MIN(rows, 16);
  PlotFigure *fig = plot_figure_new(360.0 * cols + 120.0, 260.0 * rows + (title ? 30.0 : 0.0),
                                    rows, cols, error);
  if (fig == NULL)
    return FALSE;
  if (title)
    plot_figure_set_title(fig, title);
  gboolean ok = TRUE;
  for (guint p = 0; ok && p < n_panels && p < rows * cols; p++) {
    PlotAxes *ax = plot_figure_axes(fig, p / cols, p % cols);
    if (panel_titles && panel_titles[p])
      plot_axes_set_title(ax, panel_titles[p]);
    plot_axes_set_xlabel(ax, xlabel);
    plot_axes_set_ylabel(ax, ylabel);
    gboolean has_x = FALSE, has_y = FALSE;
    const GPtrArray *curves = panel_curves[p];
    for (guint i = 0; i < curves->len; i++) {
      const ScenCurve *cv = g_ptr_array_index(curves, i);
      has_x |= any_positive(cv->x, cv->n);
      has_y |= any_positive(cv->y, cv->n);
    }
    plot_axes_set_xscale(ax, xlog && has_x ? PLOT_SCALE_LOG10 : PLOT_SCALE_LINEAR);
    plot_axes_set_yscale(ax, ylog && has_y ? PLOT_SCALE_LOG10 : PLOT_SCALE_LINEAR);
    plot_axes_set_legend(ax, curves->len > 1 ? PLOT_LEGEND_BEST : PLOT_LEGEND_NONE);
    for (guint i = 0; ok && i < curves->len; i++) {
      const ScenCurve *cv = g_ptr_array_index(curves, i);
      PlotStyle st = {.dash = cv->dashed ? PLOT_DASH_DASHED : PLOT_DASH_SOLID,
                      .marker = cv->markers ? PLOT_MARKER_CIRCLE : PLOT_MARKER_NONE,
                      .color = plot_palette(i)};
      ok = plot_axes_add_line(ax, cv->label, cv->n, cv->x, cv->y, &st, error);
      if (ok && cv->lo && cv->hi) {
        if (cv->errorbars)
          ok = plot_axes_add_errorbars(ax, NULL, cv->n, cv->x, cv->lo, cv->hi, &st, error);
        else
          ok = plot_axes_add_band(ax, NULL, cv->n, cv->x, cv->lo, cv->hi, &st, error);
      }
    }
  }
  ok = ok && plot_figure_save(fig, path, error);
  plot_figure_free(fig);
  return ok;
}

static void free_curve(gpointer p) {
  scen_curve_clear(p);
  g_free(p);
}

/* Mean over nodes of each metric column at each step, band = min..max over nodes. */
static ScenCurve *loss_curve(const ScenRunOutput *o, int which, const char *label) {
  ScenCurve *cv = g_new0(ScenCurve, 1);
  cv->label = g_strdup(label);
  GArray *x = g_array_new(FALSE, FALSE, sizeof(double)), *y = g_array_new(FALSE, FALSE, sizeof(double)),
         *lo = g_array_new(FALSE, FALSE, sizeof(double)), *hi = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint i = 0; i < o->n_metrics;) {
    guint step = o->metrics[i].step, n = 0;
    double sum = 0, mn = INFINITY, mx = -INFINITY;
    for (; i < o->n_metrics && o->metrics[i].step == step; i++, n++) {
      double v = which == 0 ? o->metrics[i].train_loss : o->metrics[i].test_loss;
      sum += v;
      mn = MIN(mn, v);
      mx = MAX(mx, v);
    }
    double xs = step, m = sum / n;
    g_array_append_val(x, xs);
    g_array_append_val(y, m);
    g_array_append_val(lo, mn);
    g_array_append_val(hi, mx);
  }
  cv->n = x->len;
  cv->x = (double *)g_array_free(x, FALSE);
  cv->y = (double *)g_array_free(y, FALSE);
  cv->lo = (double *)g_array_free(lo, FALSE);
  cv->hi = (double *)g_array_free(hi, FALSE);
  return cv;
}

/* RDP against distance for one (collusion, trust): mean over the victims at
 * each distance, bars from min to max; or the Muffliato bound (@muff). */
static ScenCurve *distance_curve(const ScenRunOutput *o, guint col, guint trust, gboolean muff,
                                 const char *label) {
  gint dmax = -1;
  for (guint i = 0; i < o->victims->len; i++) {
    const ScenVictimRow *r = &g_array_index(o->victims, ScenVictimRow, i);
    if (r->collusion == col && r->trust == trust)
      dmax = MAX(dmax, r->distance);
  }
  ScenCurve *cv = g_new0(ScenCurve, 1);
  cv->label = g_strdup(label);
  cv->markers = TRUE;
  cv->errorbars = TRUE;
  cv->dashed = muff;
  GArray *x = g_array_new(FALSE, FALSE, sizeof(double)), *y = g_array_new(FALSE, FALSE, sizeof(double)),
         *lo = g_array_new(FALSE, FALSE, sizeof(double)), *hi = g_array_new(FALSE, FALSE, sizeof(double));
  for (gint d = 1; d <= dmax; d++) {
    double sum = 0, mn = INFINITY, mx = -INFINITY;
    guint n = 0;
    for (guint i = 0; i < o->victims->len; i++) {
      const ScenVictimRow *r = &g_array_index(o->victims, ScenVictimRow, i);
      if (r->collusion != col || r->trust != trust || r->distance != d)
        continue;
      double v = muff ? r->muffliato_rdp : r->rdp;
      sum += v;
      mn = MIN(mn, v);
      mx = MAX(mx, v);
      n++;
    }
    if (n == 0)
      continue;
    double xs = d, m = sum / n;
    g_array_append_val(x, xs);
    g_array_append_val(y, m);
    g_array_append_val(lo, mn);
    g_array_append_val(hi, mx);
  }
  cv->n = x->len;
  cv->x = (double *)g_array_free(x, FALSE);
  cv->y = (double *)g_array_free(y, FALSE);
  cv->lo = (double *)g_array_free(lo, FALSE);
  cv->hi = (double *)g_array_free(hi, FALSE);
  return cv;
}

gboolean scen_plot_point(const char *dir, const ScenConfig *c, const ScenRunOutput *o,
                         GError **error) {
  gboolean ok = TRUE;
  if (o->n_metrics > 0) {
    GPtrArray *curves = g_ptr_array_new_with_free_func(free_curve);
    g_ptr_array_add(curves, loss_curve(o, 0, "train loss"));
    g_ptr_array_add(curves, loss_curve(o, 1, "test loss"));
    char *path = g_build_filename(dir, "loss.svg", NULL);
    char *title = g_strdup_printf("%s: %s, mean over %u nodes (band: min to max)", c->name,
                                  c->protocol, c->n);
    const char *pt[] = {NULL};
    ok = scen_plot_lines(path, title, 1, pt, &curves, "round", "loss", FALSE, TRUE, error);
    g_free(title);
    g_free(path);
    g_ptr_array_unref(curves);
  }
  if (ok && o->victims && o->victims->len > 0) {
    guint np = c->n_collusions;
    GPtrArray **panels = g_new0(GPtrArray *, np);
    char **titles = g_new0(char *, np + 1);
    for (guint i = 0; i < np; i++) {
      panels[i] = g_ptr_array_new_with_free_func(free_curve);
      GString *t = g_string_new("attackers ");
      for (guint m = 0; m < c->collusions[i].n_nodes; m++)
        g_string_append_printf(t, "%s%u", m ? "," : "", c->collusions[i].nodes[m]);
      g_string_append_printf(t, " (%s)", c->collusions[i].name);
      titles[i] = g_string_free(t, FALSE);
      for (guint j = 0; j < c->n_trust; j++) {
        char *label = g_strdup_printf("%s (ours)", priv_trust_name(c->trust[j]));
        g_ptr_array_add(panels[i], distance_curve(o, i, j, FALSE, label));
        g_free(label);
        gboolean has_muff = FALSE;
        for (guint v = 0; v < o->victims->len && !has_muff; v++) {
          const ScenVictimRow *r = &g_array_index(o->victims, ScenVictimRow, v);
          has_muff = r->collusion == i && r->trust == j && isfinite(r->muffliato_rdp);
        }
        if (has_muff)
          g_ptr_array_add(panels[i],
                          distance_curve(o, i, j, TRUE, "pndp (Muffliato's bound)"));
      }
    }
    char *path = g_build_filename(dir, "privacy.svg", NULL);
    char *ylabel = g_strdup_printf("RDP at alpha = %g (mean; bars min to max)", c->alpha);
    char *title = g_strdup_printf("%s: %s, T = %u, privacy loss by distance to the attackers",
                                  c->name, c->protocol, c->rounds);
    ok = scen_plot_lines(path, title, np, (const char *const *)titles, panels,
                         "distance to the nearest attacker (hops)", ylabel, FALSE, TRUE, error);
    g_free(title);
    g_free(ylabel);
    g_free(path);
    for (guint i = 0; i < np; i++)
      g_ptr_array_unref(panels[i]);
    g_free(panels);
    g_strfreev(titles);
  }
  return ok;
}

/* ---- A sweep's figures (moved here unchanged from the sweep runner) ---- */

gboolean scen_plot_sweep(const ScenSweepResults *r, GPtrArray *figures, GError **error) {
  const GPtrArray *axes = r->axes;
  const ScenAggregate *ag = r->ag;
  const GArray *groups = ag->groups;
  gint seed_axis = ag->seed_axis, noise_axis = ag->noise_axis;
  const ScenConfig *c0 = r->cfg[0];
  gboolean ok = TRUE;
  char *path;
  guint *items = g_new0(guint, MAX(axes->len, 1));
  /* Figures: loss curves (bands over seeds), final loss against epsilon. */
  gboolean has_curves = FALSE;
  for (guint gi = 0; gi < groups->len; gi++)
    has_curves |= g_array_index(groups, ScenGroup, gi).n_rounds > 0;
  if (c0->plots && has_curves) {
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
      const ScenGroup *g = &g_array_index(groups, ScenGroup, gi);
      scen_sweep_point(axes, g->first, items);
      guint pn = pax ? items[noise_axis] : 0;
      if (pn >= n_panels || g->n_rounds == 0)
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
      cv->n = g->n_rounds;
      cv->x = g_memdup2(g->round, cv->n * sizeof(double));
      cv->y = g_memdup2(g->test_mean, cv->n * sizeof(double));
      cv->lo = g_memdup2(g->test_lo, cv->n * sizeof(double));
      cv->hi = g_memdup2(g->test_hi, cv->n * sizeof(double));
      g_ptr_array_add(panels[pn], cv);
    }
    path = g_build_filename(r->out_dir, "loss.svg", NULL);
    char *title = g_strdup_printf("%s: mean test loss over nodes; band: 95%% CI over %u seed%s",
                                  c0->name, g_array_index(groups, ScenGroup, 0).n,
                                  g_array_index(groups, ScenGroup, 0).n == 1 ? "" : "s");
    ok = scen_plot_lines(path, title, n_panels, (const char *const *)titles, panels, "round",
                         "test loss", FALSE, TRUE, error);
    if (ok)
      g_ptr_array_add(figures, g_strdup(path));
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
    for (guint gi = 0; gi < groups->len; gi++) {
      double e = r->res[g_array_index(groups, ScenGroup, gi).first]->max_eps;
      if (isfinite(e) && e > 0) {
        eps_lo = MIN(eps_lo, e);
        eps_hi = MAX(eps_hi, e);
      }
    }
    if (isfinite(eps_lo) && eps_hi <= eps_lo * 1.01) {
      /* One privacy level: give the axis some room around it. */
      eps_lo /= 2;
      eps_hi *= 2;
    }
    for (guint gi = 0; gi < groups->len && isfinite(eps_lo); gi++) {
      const ScenGroup *g = &g_array_index(groups, ScenGroup, gi);
      double g_eps = r->res[g->first]->max_eps;
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
      if (!isfinite(g_eps)) {
        /* No finite epsilon (no noise): a dashed reference line. */
        if (cv->n == 0) {
          cv->dashed = TRUE;
          cv->markers = FALSE;
          cv->n = 2;
          cv->x = g_new(double, 2);
          cv->y = g_new(double, 2);
          cv->x[0] = eps_lo;
          cv->x[1] = eps_hi;
          cv->y[0] = cv->y[1] = g->final_mean;
          cv->errorbars = FALSE;
        }
        continue;
      }
      cv->x = g_renew(double, cv->x, cv->n + 1);
      cv->y = g_renew(double, cv->y, cv->n + 1);
      cv->lo = g_renew(double, cv->lo, cv->n + 1);
      cv->hi = g_renew(double, cv->hi, cv->n + 1);
      cv->x[cv->n] = g_eps;
      cv->y[cv->n] = g->final_mean;
      cv->lo[cv->n] = g->final_lo;
      cv->hi[cv->n] = g->final_hi;
      cv->n++;
    }
    g_hash_table_unref(line_of);
    if (ok && lines->len > 0 && noise_axis >= 0) {
      path = g_build_filename(r->out_dir, "loss_vs_epsilon.svg", NULL);
      char *xl = g_strdup_printf("epsilon at delta = %g (%s, collusion %s)", c0->delta,
                                 priv_trust_name(c0->trust[0]), c0->collusions[0].name);
      const char *pt[] = {NULL};
      char *title2 = g_strdup_printf("%s: final test loss (mean, 95%% CI over seeds)", c0->name);
      ok = scen_plot_lines(path, title2, 1, pt, &lines, xl, "final test loss", TRUE, TRUE, error);
      if (ok)
        g_ptr_array_add(figures, g_strdup(path));
      g_free(title2);
      g_free(xl);
      g_free(path);
    }
    g_ptr_array_unref(lines);
  }
  g_free(items);
  return ok;
}
