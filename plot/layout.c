/* plot/layout.c: limits, ticks and the place of every panel on the page.
 *
 * Margins are shared: every panel of a row gets the row's largest top and
 * bottom margins, every panel of a column the column's largest left and
 * right ones, so the data rectangles of a grid line up. The order matters:
 * heights depend only on text sizes, y ticks depend on the height, the left
 * margin on the y tick labels, the width on the left margin, and x ticks on
 * the width. */
#include <math.h>

#include "plot/internal.h"

double plot_font_label(const PlotFigure *fig) {
  return fig->font_size * 10.0 / 9.0;
}
double plot_font_title(const PlotFigure *fig) {
  return fig->font_size * 11.0 / 9.0;
}
double plot_font_fig_title(const PlotFigure *fig) {
  return fig->font_size * 12.0 / 9.0;
}

static double line_height(cairo_t *cr, double size) {
  cairo_font_extents_t fe;
  cairo_set_font_size(cr, size);
  cairo_font_extents(cr, &fe);
  return fe.ascent + fe.descent;
}

static guint clamp_ticks(double n) {
  return (guint)CLAMP(n, 3.0, 10.0);
}

static double max_label_width(cairo_t *cr, const PlotTicks *t, double fs) {
  double w = 0;
  for (gsize i = 0; i < t->n_major; i++)
    w = MAX(w, plot_text_width(cr, t->labels[i], fs, TRUE));
  return w;
}

/* Whether consecutive x tick labels (centred on their ticks) keep at least
 * a gap of half the font size between them. */
static gboolean x_labels_fit(const PlotAxes *axes, cairo_t *cr, double fs) {
  const PlotTicks *t = &axes->xa.ticks;
  double prev_right = -G_MAXDOUBLE;
  for (gsize i = 0; i < t->n_major; i++) {
    double tx = plot_scale_forward(axes->xa.scale, t->major[i]);
    double w = plot_text_width(cr, t->labels[i], fs, TRUE);
    double px = plot_map_x(axes, tx);
    if (px - w / 2 < prev_right + 0.5 * fs)
      return FALSE;
    prev_right = px + w / 2;
  }
  return TRUE;
}

/* Whether each of the @n rows or columns (@what) of cells @size pt high or
 * wide (@dim) keeps PLOT_MIN_AREA of plot once its margins @lo[i] and
 * @hi[i] are taken. Errors: PLOT_ERROR_INVALID_ARGUMENT for the first that
 * does not. */
static gboolean room_left(const PlotFigure *fig, const char *what, const char *dim, double size,
                          const double *lo, const double *hi, guint n, GError **error) {
  for (guint i = 0; i < n; i++) {
    double area = size - lo[i] - hi[i];
    if (area < PLOT_MIN_AREA) {
      g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                  "figure %g x %g pt is too small for %u x %u panels: %s %u would get %.1f pt "
                  "of plot %s",
                  fig->width, fig->height, fig->rows, fig->cols, what, i, area, dim);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean layout_pass(PlotFigure *fig, cairo_t *cr, GError **error) {
  fig->laid_out = FALSE;
  const guint R = fig->rows, C = fig->cols, N = R * C;
  const double fs = fig->font_size;
  plot_text_setup(cr);
  const double digit = plot_text_digit_height(cr, fs);
  const double label_h = line_height(cr, plot_font_label(fig));

  for (guint i = 0; i < N; i++) {
    PlotAxes *axes = fig->axes[i];
    if (!plot_resolve_limits(axes, error))
      return FALSE;
    plot_legend_measure(axes, cr, &axes->legend_w, &axes->legend_h);
  }

  double band = fig->title ? PLOT_PAD + plot_title_fit(cr, fig->title, plot_font_fig_title(fig),
                                                       fig->width - 2 * PLOT_PAD, &fig->title_fit)
                           : 0;
  double cw = fig->width / C, ch = (fig->height - band) / R;
  double *top = g_new0(double, R), *bottom = g_new0(double, R);
  double *left = g_new0(double, C), *right = g_new0(double, C);
  gboolean ok = TRUE;

  for (guint i = 0; i < N; i++) {
    const PlotAxes *axes = fig->axes[i];
    /* Without a title, room for the top y label's half height and for a
     * superscript rising above it. */
    /* Panel titles fit their cell (the data rectangle is not known yet). */
    double th = plot_title_fit(cr, axes->title, plot_font_title(fig), cw - 2 * PLOT_PAD,
                               &fig->axes[i]->title_fit);
    double t = PLOT_PAD + (axes->title ? th + PLOT_LABEL_GAP : 0.6 * fs);
    double b = PLOT_PAD + PLOT_TICK_MAJOR + PLOT_TICK_PAD + digit + 0.3 * fs +
               (axes->xa.label ? PLOT_LABEL_GAP + label_h : 0);
    top[axes->row] = MAX(top[axes->row], t);
    bottom[axes->row] = MAX(bottom[axes->row], b);
  }
  ok = room_left(fig, "row", "height", ch, top, bottom, R, error);

  /* y ticks and the left margins they need. */
  for (guint i = 0; i < N && ok; i++) {
    PlotAxes *axes = fig->axes[i];
    axes->ah = ch - top[axes->row] - bottom[axes->row];
    axes->ay = band + axes->row * ch + top[axes->row];
    guint max_ticks = clamp_ticks(floor(axes->ah / (2.6 * fs)) + 1);
    if (!plot_axis_finalize(axes, &axes->ya, "y", max_ticks, error)) {
      ok = FALSE;
      break;
    }
    double l = PLOT_PAD + max_label_width(cr, &axes->ya.ticks, fs) + PLOT_TICK_PAD +
               PLOT_TICK_MAJOR + (axes->ya.label ? label_h + PLOT_LABEL_GAP : 0);
    /* Room for half the first x tick label left of the frame. */
    l = MAX(l, PLOT_PAD + fs);
    double rgt = PLOT_PAD + fs;
    if ((axes->legend == PLOT_LEGEND_OUTSIDE_RIGHT || axes->legend_outside) && axes->legend_w > 0)
      rgt = PLOT_PAD + 2 * PLOT_LABEL_GAP + axes->legend_w;
    left[axes->col] = MAX(left[axes->col], l);
    right[axes->col] = MAX(right[axes->col], rgt);
  }
  ok = ok && room_left(fig, "column", "width", cw, left, right, C, error);

  /* x ticks: as many as fit without labels touching. */
  for (guint i = 0; i < N && ok; i++) {
    PlotAxes *axes = fig->axes[i];
    axes->ax = axes->col * cw + left[axes->col];
    axes->aw = cw - left[axes->col] - right[axes->col];
    guint max_ticks = clamp_ticks(floor(axes->aw / (4.0 * fs)) + 1);
    for (;;) {
      if (!plot_axis_finalize(axes, &axes->xa, "x", max_ticks, error)) {
        ok = FALSE;
        break;
      }
      if (max_ticks <= 2 || x_labels_fit(axes, cr, fs))
        break;
      max_ticks = (guint)MIN((gsize)max_ticks - 1, MAX(axes->xa.ticks.n_major, 3) - 1);
    }
  }
  g_free(top);
  g_free(bottom);
  g_free(left);
  g_free(right);
  if (!ok)
    return FALSE;
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_FAILED, "cairo failed while measuring text: %s",
                cairo_status_to_string(cairo_status(cr)));
    return FALSE;
  }
  fig->laid_out = TRUE;
  return TRUE;
}

/* A BEST legend that covers data wherever it goes inside moves right of
 * its panel, the layout made again with the room it takes; unless that
 * leaves the panel less than half its width (or no room at all): then it
 * stays inside, where it covers the least. */
gboolean plot_layout(PlotFigure *fig, cairo_t *cr, GError **error) {
  const guint N = fig->rows * fig->cols;
  for (guint i = 0; i < N; i++)
    fig->axes[i]->legend_outside = FALSE;
  if (!layout_pass(fig, cr, error))
    return FALSE;
  double *inside_w = g_new0(double, N);
  gboolean again = FALSE;
  for (guint i = 0; i < N; i++) {
    PlotAxes *axes = fig->axes[i];
    inside_w[i] = axes->aw;
    if (axes->legend == PLOT_LEGEND_BEST && axes->legend_w > 0 && !axes->hidden &&
        !plot_legend_fits_inside(axes))
      axes->legend_outside = again = TRUE;
  }
  gboolean narrow = FALSE;
  if (again) {
    narrow = !layout_pass(fig, cr, NULL);
    for (guint i = 0; i < N && !narrow; i++)
      narrow = fig->axes[i]->aw < 0.5 * inside_w[i];
  }
  g_free(inside_w);
  if (!narrow)
    return TRUE;
  for (guint i = 0; i < N; i++)
    fig->axes[i]->legend_outside = FALSE;
  return layout_pass(fig, cr, error);
}

gboolean plot_figure_layout(PlotFigure *fig, GError **error) {
  if (!fig) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT, "layout: figure is NULL");
    return FALSE;
  }
  cairo_t *cr = plot_scratch_new();
  gboolean ok = plot_layout(fig, cr, error);
  plot_scratch_free(cr);
  return ok;
}
