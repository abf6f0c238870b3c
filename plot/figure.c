/* plot/figure.c: figures, panels and their settings. */
#include <fontconfig/fontconfig.h>
#include <math.h>

#include "plot/internal.h"

PlotFigure *plot_figure_new(double width_pt, double height_pt, guint rows, guint cols,
                            GError **error) {
  if (!isfinite(width_pt) || !isfinite(height_pt) || width_pt < 10 || height_pt < 10 ||
      width_pt > 10000 || height_pt > 10000) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "figure size %g x %g pt: each side must be in [10, 10000] points", width_pt,
                height_pt);
    return NULL;
  }
  if (rows < 1 || cols < 1 || rows > 16 || cols > 16) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "figure grid %u x %u: rows and columns must be in [1, 16]", rows, cols);
    return NULL;
  }
  PlotFigure *fig = g_new0(PlotFigure, 1);
  fig->width = width_pt;
  fig->height = height_pt;
  fig->rows = rows;
  fig->cols = cols;
  fig->font_size = 9.0;
  fig->png_scale = 2.0;
  fig->axes = g_new0(PlotAxes *, (gsize)rows * cols);
  for (guint r = 0; r < rows; r++)
    for (guint c = 0; c < cols; c++)
      fig->axes[r * cols + c] = plot_axes_new(fig, r, c);
  return fig;
}

void plot_figure_free(PlotFigure *fig) {
  if (!fig)
    return;
  for (guint i = 0; i < fig->rows * fig->cols; i++)
    plot_axes_free(fig->axes[i]);
  g_free(fig->axes);
  g_free(fig->title);
  plot_title_clear(&fig->title_fit);
  g_free(fig);
}

PlotAxes *plot_figure_axes(PlotFigure *fig, guint row, guint col) {
  g_return_val_if_fail(fig != NULL, NULL);
  if (row >= fig->rows || col >= fig->cols)
    return NULL;
  return fig->axes[row * fig->cols + col];
}

void plot_figure_invalidate(PlotFigure *fig) {
  fig->laid_out = FALSE;
}

/* Stored strings are always valid UTF-8: cairo refuses anything else and
 * would put the whole drawing context in an error state. */
static void set_string(char **slot, const char *s) {
  g_free(*slot);
  *slot = s ? g_utf8_make_valid(s, -1) : NULL;
}

void plot_figure_set_title(PlotFigure *fig, const char *title) {
  g_return_if_fail(fig != NULL);
  set_string(&fig->title, title);
  plot_figure_invalidate(fig);
}

gboolean plot_figure_set_font_size(PlotFigure *fig, double size_pt, GError **error) {
  if (!fig || !isfinite(size_pt) || size_pt < 4 || size_pt > 72) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "font size %g pt: must be in [4, 72] (and the figure non-NULL)", size_pt);
    return FALSE;
  }
  fig->font_size = size_pt;
  plot_figure_invalidate(fig);
  return TRUE;
}

gboolean plot_figure_set_png_scale(PlotFigure *fig, double px_per_pt, GError **error) {
  if (!fig || !isfinite(px_per_pt) || px_per_pt < 0.25 || px_per_pt > 16) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "PNG scale %g px/pt: must be in [0.25, 16] (and the figure non-NULL)", px_per_pt);
    return FALSE;
  }
  fig->png_scale = px_per_pt;
  return TRUE;
}

static void axis_init(PlotAxisState *a) {
  a->scale = PLOT_SCALE_LINEAR;
  a->autoscale = PLOT_AUTOSCALE_PAD;
  a->lim_lo = NAN;
  a->lim_hi = NAN;
}

static void series_free(gpointer p) {
  PlotSeries *s = p;
  g_free(s->label);
  g_free(s->x);
  g_free(s->y);
  g_free(s->y2);
  g_free(s);
}

static void text_free(gpointer p) {
  PlotText *t = p;
  g_free(t->text);
  g_free(t);
}

PlotAxes *plot_axes_new(PlotFigure *fig, guint row, guint col) {
  PlotAxes *axes = g_new0(PlotAxes, 1);
  axes->fig = fig;
  axes->row = row;
  axes->col = col;
  axis_init(&axes->xa);
  axis_init(&axes->ya);
  axes->grid = TRUE;
  axes->legend = PLOT_LEGEND_NONE;
  axes->series = g_ptr_array_new_with_free_func(series_free);
  axes->texts = g_ptr_array_new_with_free_func(text_free);
  return axes;
}

void plot_axes_free(PlotAxes *axes) {
  if (!axes)
    return;
  g_free(axes->title);
  plot_title_clear(&axes->title_fit);
  g_free(axes->xa.label);
  g_free(axes->ya.label);
  plot_ticks_clear(&axes->xa.ticks);
  plot_ticks_clear(&axes->ya.ticks);
  g_ptr_array_unref(axes->series);
  g_ptr_array_unref(axes->texts);
  g_free(axes);
}

void plot_axes_set_hidden(PlotAxes *axes, gboolean hidden) {
  g_return_if_fail(axes != NULL);
  axes->hidden = hidden;
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_integer_ticks(PlotAxes *axes, gboolean x, gboolean y) {
  g_return_if_fail(axes != NULL);
  axes->xa.integer = x;
  axes->ya.integer = y;
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_title(PlotAxes *axes, const char *title) {
  g_return_if_fail(axes != NULL);
  set_string(&axes->title, title);
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_xlabel(PlotAxes *axes, const char *label) {
  g_return_if_fail(axes != NULL);
  set_string(&axes->xa.label, label);
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_ylabel(PlotAxes *axes, const char *label) {
  g_return_if_fail(axes != NULL);
  set_string(&axes->ya.label, label);
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_xscale(PlotAxes *axes, PlotScale scale) {
  g_return_if_fail(axes != NULL);
  g_return_if_fail(scale == PLOT_SCALE_LINEAR || scale == PLOT_SCALE_LOG10);
  axes->xa.scale = scale;
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_yscale(PlotAxes *axes, PlotScale scale) {
  g_return_if_fail(axes != NULL);
  g_return_if_fail(scale == PLOT_SCALE_LINEAR || scale == PLOT_SCALE_LOG10);
  axes->ya.scale = scale;
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_xautoscale(PlotAxes *axes, PlotAutoscale mode) {
  g_return_if_fail(axes != NULL);
  g_return_if_fail(mode == PLOT_AUTOSCALE_PAD || mode == PLOT_AUTOSCALE_NICE);
  axes->xa.autoscale = mode;
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_yautoscale(PlotAxes *axes, PlotAutoscale mode) {
  g_return_if_fail(axes != NULL);
  g_return_if_fail(mode == PLOT_AUTOSCALE_PAD || mode == PLOT_AUTOSCALE_NICE);
  axes->ya.autoscale = mode;
  plot_figure_invalidate(axes->fig);
}

static gboolean set_lim(PlotAxes *axes, PlotAxisState *a, const char *name, double lo, double hi,
                        GError **error) {
  if (!axes) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT, "%s limits: axes is NULL", name);
    return FALSE;
  }
  if (isinf(lo) || isinf(hi) || (!isnan(lo) && !isnan(hi) && lo >= hi)) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "%s limits [%g, %g]: bounds must be finite (or NaN for automatic) with "
                "lo < hi",
                name, lo, hi);
    return FALSE;
  }
  a->lim_lo = lo;
  a->lim_hi = hi;
  plot_figure_invalidate(axes->fig);
  return TRUE;
}

gboolean plot_axes_set_xlim(PlotAxes *axes, double lo, double hi, GError **error) {
  return set_lim(axes, axes ? &axes->xa : NULL, "x", lo, hi, error);
}

gboolean plot_axes_set_ylim(PlotAxes *axes, double lo, double hi, GError **error) {
  return set_lim(axes, axes ? &axes->ya : NULL, "y", lo, hi, error);
}

void plot_axes_set_grid(PlotAxes *axes, gboolean on) {
  g_return_if_fail(axes != NULL);
  axes->grid = on ? TRUE : FALSE;
  plot_figure_invalidate(axes->fig);
}

void plot_axes_set_legend(PlotAxes *axes, PlotLegendPos pos) {
  g_return_if_fail(axes != NULL);
  g_return_if_fail(pos >= PLOT_LEGEND_NONE && pos <= PLOT_LEGEND_OUTSIDE_RIGHT);
  axes->legend = pos;
  plot_figure_invalidate(axes->fig);
}

char *plot_axes_describe(const PlotAxes *axes) {
  if (axes->fig->rows * axes->fig->cols == 1)
    return g_strdup("the figure");
  return g_strdup_printf("panel (row %u, col %u)", axes->row, axes->col);
}

void plot_shutdown(void) {
  /* cairo keeps font faces (and through them fontconfig patterns) in
   * process-wide caches, and fontconfig its configuration; hand them all
   * back so leak checkers see a clean exit. */
  cairo_debug_reset_static_data();
  FcFini();
}
