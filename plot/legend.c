/* plot/legend.c: the legend box of a panel: size, placement, drawing. */
#include <math.h>

#include "plot/internal.h"

#define LEGEND_PAD 4.0     /* box border to content */
#define LEGEND_SAMPLE 22.0 /* length of a line sample */
#define LEGEND_GAP 5.0     /* sample to label */
#define LEGEND_INSET 6.0   /* frame to box, inside placements */
#define LEGEND_ROW 1.45    /* row height in font sizes */

void plot_legend_measure(const PlotAxes *axes, cairo_t *cr, double *w, double *h) {
  *w = *h = 0;
  if (axes->legend == PLOT_LEGEND_NONE)
    return;
  double fs = axes->fig->font_size, lw = 0;
  guint rows = 0;
  for (guint i = 0; i < axes->series->len; i++) {
    const PlotSeries *s = g_ptr_array_index(axes->series, i);
    if (!s->label)
      continue;
    rows++;
    lw = MAX(lw, plot_text_width(cr, s->label, fs, FALSE));
  }
  if (rows == 0)
    return;
  *w = 2 * LEGEND_PAD + LEGEND_SAMPLE + LEGEND_GAP + lw;
  *h = 2 * LEGEND_PAD + rows * LEGEND_ROW * fs;
}

typedef struct {
  double x0, y0, x1, y1; /* candidate box, inflated */
  guint hits;
} Score;

static void count_hit(double x0, double y0, double x1, double y1, gpointer data) {
  Score *sc = data;
  if (plot_clip_segment(&x0, &y0, &x1, &y1, sc->x0, sc->y0, sc->x1, sc->y1))
    sc->hits++;
}

/* Top-left corner of the box for an inside position. */
static void corner(const PlotAxes *axes, PlotLegendPos pos, int where, double *x, double *y) {
  double w = axes->legend_w, h = axes->legend_h;
  double l = axes->ax + LEGEND_INSET, r = axes->ax + axes->aw - LEGEND_INSET - w;
  double t = axes->ay + LEGEND_INSET, b = axes->ay + axes->ah - LEGEND_INSET - h;
  double cx = axes->ax + (axes->aw - w) / 2, cy = axes->ay + (axes->ah - h) / 2;
  switch (pos) {
  case PLOT_LEGEND_UPPER_LEFT:
    *x = l, *y = t;
    return;
  case PLOT_LEGEND_LOWER_LEFT:
    *x = l, *y = b;
    return;
  case PLOT_LEGEND_LOWER_RIGHT:
    *x = r, *y = b;
    return;
  case PLOT_LEGEND_OUTSIDE_RIGHT:
    *x = axes->ax + axes->aw + 2 * PLOT_LABEL_GAP, *y = axes->ay;
    return;
  case PLOT_LEGEND_BEST: /* the extra candidates of BEST, by index */
    switch (where) {
    case 0:
      *x = r, *y = cy;
      return;
    case 1:
      *x = l, *y = cy;
      return;
    case 2:
      *x = cx, *y = b;
      return;
    default:
      *x = cx, *y = t;
      return;
    }
  default:
    *x = r, *y = t;
    return;
  }
}

/* The position among the inside ones whose box meets the fewest drawn
 * segments and points; ties go to the earlier (upper right first), so the
 * choice is deterministic. Returns the number it meets. */
static guint best(const PlotAxes *axes, double *bx, double *by) {
  static const PlotLegendPos order[4] = {PLOT_LEGEND_UPPER_RIGHT, PLOT_LEGEND_UPPER_LEFT,
                                         PLOT_LEGEND_LOWER_LEFT, PLOT_LEGEND_LOWER_RIGHT};
  guint best_hits = G_MAXUINT;
  for (int c = 0; c < 8; c++) {
    double x, y;
    if (c < 4)
      corner(axes, order[c], 0, &x, &y);
    else
      corner(axes, PLOT_LEGEND_BEST, c - 4, &x, &y);
    Score sc = {x - 2, y - 2, x + axes->legend_w + 2, y + axes->legend_h + 2, 0};
    for (guint i = 0; i < axes->series->len && sc.hits < best_hits; i++)
      plot_series_segments(axes, g_ptr_array_index(axes->series, i), count_hit, &sc);
    if (sc.hits < best_hits) {
      best_hits = sc.hits;
      *bx = x;
      *by = y;
    }
    if (best_hits == 0)
      break;
  }
  return best_hits;
}

gboolean plot_legend_fits_inside(const PlotAxes *axes) {
  double x, y;
  return best(axes, &x, &y) == 0;
}

gboolean plot_legend_place(const PlotAxes *axes, double *x, double *y) {
  if (axes->legend == PLOT_LEGEND_NONE || axes->legend_w <= 0)
    return FALSE;
  if (axes->legend_outside)
    corner(axes, PLOT_LEGEND_OUTSIDE_RIGHT, 0, x, y);
  else if (axes->legend == PLOT_LEGEND_BEST)
    best(axes, x, y);
  else
    corner(axes, axes->legend, 0, x, y);
  return TRUE;
}

gboolean plot_axes_get_legend_box(const PlotAxes *axes, double *x, double *y, double *width,
                                  double *height) {
  double bx, by;
  if (!axes || !axes->fig->laid_out || axes->hidden || !plot_legend_place(axes, &bx, &by))
    return FALSE;
  plot_box_out(bx, by, axes->legend_w, axes->legend_h, x, y, width, height);
  return TRUE;
}

static void draw_sample(const PlotSeries *s, cairo_t *cr, double x, double cy, double fs) {
  const PlotStyle *st = &s->style;
  const PlotColor *c = &st->color;
  switch (s->kind) {
  case PLOT_SERIES_BAND:
    cairo_set_source_rgba(cr, c->r, c->g, c->b, st->alpha * c->a);
    cairo_rectangle(cr, x, cy - 0.35 * fs, LEGEND_SAMPLE, 0.7 * fs);
    cairo_fill(cr);
    break;
  case PLOT_SERIES_ERRORBARS: {
    double mx = x + LEGEND_SAMPLE / 2, half = 0.45 * fs, cap = st->cap > 0 ? st->cap / 2 : 0;
    cairo_set_source_rgba(cr, c->r, c->g, c->b, c->a);
    plot_style_stroke(cr, st, FALSE);
    cairo_move_to(cr, mx, cy - half);
    cairo_line_to(cr, mx, cy + half);
    if (cap > 0) {
      cairo_move_to(cr, mx - cap, cy - half);
      cairo_line_to(cr, mx + cap, cy - half);
      cairo_move_to(cr, mx - cap, cy + half);
      cairo_line_to(cr, mx + cap, cy + half);
    }
    cairo_stroke(cr);
    break;
  }
  case PLOT_SERIES_LINE:
    cairo_set_source_rgba(cr, c->r, c->g, c->b, c->a);
    plot_style_stroke(cr, st, TRUE);
    cairo_move_to(cr, x, cy);
    cairo_line_to(cr, x + LEGEND_SAMPLE, cy);
    cairo_stroke(cr);
    if (st->marker != PLOT_MARKER_NONE) {
      plot_marker_path(cr, st->marker, x + LEGEND_SAMPLE / 2, cy, st->marker_size);
      cairo_fill(cr);
    }
    break;
  }
}

void plot_legend_draw(const PlotAxes *axes, cairo_t *cr) {
  double x = 0, y = 0, fs = axes->fig->font_size;
  if (!plot_legend_place(axes, &x, &y))
    return;
  cairo_save(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_rectangle(cr, x, y, axes->legend_w, axes->legend_h);
  cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
  cairo_set_line_width(cr, PLOT_GRID_WIDTH);
  cairo_stroke(cr);
  double row = LEGEND_ROW * fs, cy = y + LEGEND_PAD + row / 2;
  for (guint i = 0; i < axes->series->len; i++) {
    const PlotSeries *s = g_ptr_array_index(axes->series, i);
    if (!s->label)
      continue;
    draw_sample(s, cr, x + LEGEND_PAD, cy, fs);
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text_draw(cr, s->label, fs, FALSE, x + LEGEND_PAD + LEGEND_SAMPLE + LEGEND_GAP, cy,
                   PLOT_ANCHOR_W);
    cy += row;
  }
  cairo_restore(cr);
}
