/*
 * scenarios/distance_figure.c: the figure of the paper's Figure 2 (section
 * 7.1) as `dpgossip figure privacy-vs-distance` draws it: one panel per
 * graph, the Rényi divergence at alpha (log scale) against the hop distance
 * between victim and attacker, mean with min/max bars of the pool
 * (distance_stats.c), our accounting solid with circles, the series
 * compared with it (Muffliato's bound, or the synchronous accounting of an
 * asynchronous run) dashed with squares. The command fills the pools and
 * names the run (ScenDistFigure); the drawing is here, beside the scenario
 * figures (plots.c), on plot/.
 */
#include <math.h>

#include "plot/plot.h"
#include "scenarios/scenarios.h"

/* One panel: each series with its min/max bars, nudged apart horizontally
 * so their bars never hide each other; the legend on the first panel. */
static gboolean draw_panel(PlotAxes *ax, const ScenDistPanel *p, const ScenDistFigure *f,
                           gboolean legend, GError **error) {
  static const double nudge[SCEN_DIST_N_SERIES] = {-0.07, 0.07};
  gboolean async = f->mode != NULL;
  const char *sens = f->exact_sensitivity ? "exact sensitivity" : "Thm 5.2 bound";
  char *ours = async       ? g_strdup_printf("async: latency %s%s%s",
                                       f->latency ? f->latency : "constant:ms=0",
                                       f->loss ? ", loss " : "", f->loss ? f->loss : "")
               : f->radius ? g_strdup_printf("local bound, radius %u (%s)", f->radius, sens)
                           : g_strdup_printf("this accounting (%s)", sens);
  char *sync = g_strdup_printf("synchronous (%s; Muffliato: sync only)", sens);
  const char *labels[SCEN_DIST_N_SERIES] = {ours, async ? sync : "Muffliato (Cyffers et al. 2022)"};
  /* The synchronous series keeps the sync figure's colour of ours. */
  const PlotColor colors[SCEN_DIST_N_SERIES] = {async ? plot_palette(2) : plot_palette(0),
                                                async ? plot_palette(0) : plot_palette(1)};
  guint nd = p->pool->max_distance;
  double *x = g_new(double, nd), *mean = g_new(double, nd), *lo = g_new(double, nd),
         *hi = g_new(double, nd);
  gboolean ok = TRUE;
  for (guint m = 0; m < SCEN_DIST_N_SERIES && ok; m++) {
    for (guint d = 1; d <= nd; d++) {
      const ScenDistStat *st = &p->pool->stat[m][d];
      x[d - 1] = d + nudge[m];
      mean[d - 1] = scen_dist_stat_mean(st);
      lo[d - 1] = scen_dist_stat_min(st);
      hi[d - 1] = scen_dist_stat_max(st);
    }
    PlotStyle line = {.color = colors[m],
                      .dash = m == SCEN_DIST_OURS ? PLOT_DASH_SOLID : PLOT_DASH_DASHED,
                      .marker = m == SCEN_DIST_OURS ? PLOT_MARKER_CIRCLE : PLOT_MARKER_SQUARE,
                      .width = 1.8};
    PlotStyle bars = {.color = colors[m], .width = 1.1, .cap = 5};
    ok = plot_axes_add_errorbars(ax, NULL, nd, x, lo, hi, &bars, error) &&
         plot_axes_add_line(ax, legend ? labels[m] : NULL, nd, x, mean, &line, error);
  }
  g_free(x);
  g_free(mean);
  g_free(lo);
  g_free(hi);
  g_free(ours);
  g_free(sync);
  if (!ok)
    return FALSE;
  char *title = g_strdup_printf("%s (%u nodes)", p->label, p->n_nodes);
  plot_axes_set_title(ax, title);
  g_free(title);
  plot_axes_set_xlabel(ax, "hop distance to the attacker (mean, bars: min–max)");
  char *ylabel = g_strdup_printf("Rényi DP at α = %g", f->alpha);
  plot_axes_set_ylabel(ax, ylabel);
  g_free(ylabel);
  plot_axes_set_yscale(ax, PLOT_SCALE_LOG10);
  /* Tight limits: the data's range (5% margin), ticks inside; the x axis
   * ends half a hop past the last distance, ticks on whole distances. */
  plot_axes_set_integer_ticks(ax, TRUE, FALSE);
  if (!plot_axes_set_xlim(ax, 0.5, nd + 0.5, error))
    return FALSE;
  if (legend)
    plot_axes_set_legend(ax, PLOT_LEGEND_BEST);
  return TRUE;
}

gboolean scen_dist_figure_save(const ScenDistFigure *f, const ScenDistPanel *panels, guint n_panels,
                               const char *path, GError **error) {
  g_return_val_if_fail(f != NULL && f->attackers != NULL && path != NULL, FALSE);
  g_return_val_if_fail(panels != NULL || n_panels == 0, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  double w = 40 + 300.0 * n_panels, h = 300;
  if (f->size && !plot_parse_size(f->size, &w, &h, error))
    return FALSE;
  PlotFigure *fig = plot_figure_new(w, h, 1, n_panels, error);
  if (!fig)
    return FALSE;
  if (f->dpi > 0 && !plot_figure_set_png_scale(fig, f->dpi / 72.0, error)) {
    plot_figure_free(fig);
    return FALSE;
  }
  gboolean ok = TRUE;
  for (guint i = 0; i < n_panels && ok; i++)
    ok = draw_panel(plot_figure_axes(fig, 0, i), &panels[i], f, i == 0, error);
  if (ok) {
    char *who = g_str_equal(f->attackers, "all") ? g_strdup("all attackers")
                                                 : g_strdup_printf("attackers %s", f->attackers);
    const char *level = f->b == 1 ? "user level" : "cyclic participation";
    char *title = f->mode != NULL
                      ? g_strdup_printf("PNDP loss of DP-D-SGD under %s: T = %u, σ = %g, %s, %s",
                                        f->mode, f->T, f->sigma, level, who)
                      : g_strdup_printf("PNDP privacy loss of DP-D-SGD: T = %u, σ = %g, %s, %s",
                                        f->T, f->sigma, level, who);
    plot_figure_set_title(fig, title);
    g_free(title);
    g_free(who);
    ok = plot_figure_save(fig, path, error);
  }
  plot_figure_free(fig);
  return ok;
}
