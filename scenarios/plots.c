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
