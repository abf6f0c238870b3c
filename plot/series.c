/* plot/series.c: colours, styles and the series a panel holds. */
#include <math.h>

#include "plot/internal.h"

static double clamp01(double v) {
  return isnan(v) ? 0.0 : CLAMP(v, 0.0, 1.0);
}

PlotColor plot_color_rgb(double r, double g, double b) {
  return (PlotColor){clamp01(r), clamp01(g), clamp01(b), 1.0};
}

PlotColor plot_palette(guint i) {
  /* Okabe & Ito (2008). Sky blue comes after black so that the first six
   * hold one blue (they differ by at least 33 in CIELAB); yellow, weakest
   * on white, is last. */
  static const guint32 hex[8] = {0x0072B2, 0xD55E00, 0x009E73, 0xE69F00,
                                 0xCC79A7, 0x000000, 0x56B4E9, 0xF0E442};
  guint32 h = hex[i % 8];
  return (PlotColor){((h >> 16) & 0xff) / 255.0, ((h >> 8) & 0xff) / 255.0, (h & 0xff) / 255.0,
                     1.0};
}

static gboolean in01(double v) {
  return isfinite(v) && v >= 0 && v <= 1;
}

static gboolean check_style(const PlotStyle *st, GError **error) {
  const PlotColor *c = &st->color;
  if (!in01(c->r) || !in01(c->g) || !in01(c->b) || !in01(c->a)) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "style colour (%g, %g, %g, %g): components must be in [0, 1]", c->r, c->g, c->b,
                c->a);
    return FALSE;
  }
  if ((guint)st->dash > PLOT_DASH_DASHDOT || (guint)st->marker > PLOT_MARKER_TRIANGLE) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "style: unknown dash (%d) or marker (%d)", (int)st->dash, (int)st->marker);
    return FALSE;
  }
  if (!isfinite(st->width) || st->width < 0 || st->width > 100 || !isfinite(st->marker_size) ||
      st->marker_size < 0 || st->marker_size > 100 || !isfinite(st->cap) || st->cap > 100) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "style: width %g, marker size %g and cap %g must be finite, at most 100 pt, "
                "and not negative (a negative cap means no caps)",
                st->width, st->marker_size, st->cap);
    return FALSE;
  }
  if (!in01(st->alpha)) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "style: band alpha %g must be in [0, 1] (0 = default)", st->alpha);
    return FALSE;
  }
  return TRUE;
}

/* The colour an automatic error bar or band gets (see PlotStyle). */
static PlotColor companion_color(const PlotAxes *axes) {
  return axes->have_last_color ? axes->last_line_color : plot_palette(axes->next_color);
}

static gboolean add_series(PlotAxes *axes, PlotSeriesKind kind, const char *what, const char *label,
                           gsize n, const double *x, const double *y, const double *y2,
                           const PlotStyle *style, GError **error) {
  if (!axes) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT, "%s: axes is NULL", what);
    return FALSE;
  }
  if (n > 0 && (!x || !y || (kind != PLOT_SERIES_LINE && !y2))) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "%s%s%s%s: %" G_GSIZE_FORMAT " points but a NULL data array", what,
                label ? " '" : "", label ? label : "", label ? "'" : "", n);
    return FALSE;
  }
  if (n > G_MAXSIZE / (3 * sizeof(double))) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "%s: %" G_GSIZE_FORMAT " points is too many", what, n);
    return FALSE;
  }
  PlotStyle st = style ? *style : (PlotStyle){0};
  if (!check_style(&st, error)) {
    g_prefix_error(error, "%s: ", what);
    return FALSE;
  }
  if (kind == PLOT_SERIES_LINE) {
    if (st.color.a == 0)
      st.color = plot_palette(axes->next_color++);
    axes->last_line_color = st.color;
    axes->have_last_color = TRUE;
    if (st.width == 0)
      st.width = 1.5;
  } else {
    if (st.color.a == 0)
      st.color = companion_color(axes);
    if (st.width == 0)
      st.width = 1.0;
  }
  if (st.marker_size == 0)
    st.marker_size = 5.0;
  if (st.cap == 0)
    st.cap = 4.0;
  if (st.alpha == 0)
    st.alpha = 0.2;

  PlotSeries *s = g_new0(PlotSeries, 1);
  s->kind = kind;
  s->label = label ? g_utf8_make_valid(label, -1) : NULL;
  s->n = n;
  s->style = st;
  if (n > 0) {
    s->x = g_memdup2(x, n * sizeof(double));
    s->y = g_memdup2(y, n * sizeof(double));
    if (y2)
      s->y2 = g_memdup2(y2, n * sizeof(double));
  }
  g_ptr_array_add(axes->series, s);
  plot_figure_invalidate(axes->fig);
  return TRUE;
}

gboolean plot_axes_add_line(PlotAxes *axes, const char *label, gsize n, const double *x,
                            const double *y, const PlotStyle *style, GError **error) {
  return add_series(axes, PLOT_SERIES_LINE, "line", label, n, x, y, NULL, style, error);
}

gboolean plot_axes_add_errorbars(PlotAxes *axes, const char *label, gsize n, const double *x,
                                 const double *lo, const double *hi, const PlotStyle *style,
                                 GError **error) {
  return add_series(axes, PLOT_SERIES_ERRORBARS, "error bars", label, n, x, lo, hi, style, error);
}

gboolean plot_axes_add_band(PlotAxes *axes, const char *label, gsize n, const double *x,
                            const double *lo, const double *hi, const PlotStyle *style,
                            GError **error) {
  return add_series(axes, PLOT_SERIES_BAND, "band", label, n, x, lo, hi, style, error);
}

gboolean plot_axes_add_text(PlotAxes *axes, double x, double y, const char *text, PlotAnchor anchor,
                            GError **error) {
  if (!axes || !text || (guint)anchor > PLOT_ANCHOR_NW) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "text: NULL axes or text, or unknown anchor %d", (int)anchor);
    return FALSE;
  }
  PlotText *t = g_new0(PlotText, 1);
  t->x = x;
  t->y = y;
  t->text = g_utf8_make_valid(text, -1);
  t->anchor = anchor;
  g_ptr_array_add(axes->texts, t);
  plot_figure_invalidate(axes->fig);
  return TRUE;
}
