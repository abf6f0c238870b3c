/* plot/render.c: drawing a laid-out figure on a cairo context.
 *
 * Geometry is computed in each panel's unit square (u = 0 at the low limit,
 * 1 at the high one, in scale space) and clipped there to a rectangle a few
 * points larger than the panel before it becomes page coordinates: see
 * clip.c for why cairo's own clip is not enough. */
#include <math.h>

#include "plot/internal.h"

#define CLIP_MARGIN 8.0 /* points beyond the panel kept by our clipping */
#define U_MAX 1e300     /* overflowing unit coordinates are clamped here */

typedef struct {
  const PlotAxes *axes;
  double mx, my; /* CLIP_MARGIN in unit coordinates */
} Frame;

static void frame_init(Frame *f, const PlotAxes *axes) {
  f->axes = axes;
  f->mx = CLIP_MARGIN / axes->aw;
  f->my = CLIP_MARGIN / axes->ah;
}

static double clamp_u(double u) {
  return isnan(u) ? NAN : CLAMP(u, -U_MAX, U_MAX);
}

/* Unit coordinate of v on axis a; NaN when not drawable. */
static double unit(const PlotAxisState *a, double v) {
  double t = plot_scale_forward(a->scale, v);
  return clamp_u((t - a->t_lo) / (a->t_hi - a->t_lo));
}

/* Unit y of the end of a bar or band: NaN stays a gap, a non-positive value
 * on a log axis goes below the panel (where clipping stops it). */
static double unit_y_floor(const Frame *f, double v) {
  const PlotAxisState *a = &f->axes->ya;
  if (a->scale == PLOT_SCALE_LOG10 && !isnan(v) && v <= 0)
    return -2 * f->my;
  return unit(a, v);
}

static double page_x(const PlotAxes *axes, double u) {
  return axes->ax + u * axes->aw;
}
static double page_y(const PlotAxes *axes, double u) {
  return axes->ay + axes->ah - u * axes->ah;
}

/* Callback for each visible piece of a polyline, in page coordinates;
 * connected: it starts where the previous piece ended. */
typedef void (*PieceFunc)(double x0, double y0, double x1, double y1, gboolean connected,
                          gpointer data);

/* Walk the polyline (x[i], y[i]); a non-drawable point makes a gap. With
 * floor_y, non-positive y on a log axis sit below the panel instead. */
static void walk_polyline(const Frame *f, gsize n, const double *x, const double *y,
                          gboolean floor_y, PieceFunc func, gpointer data) {
  const PlotAxes *axes = f->axes;
  gboolean prev_ok = FALSE, pen_at_prev = FALSE;
  double pux = 0, puy = 0;
  for (gsize j = 0; j < n; j++) {
    double ux = unit(&axes->xa, x[j]);
    double uy = floor_y ? unit_y_floor(f, y[j]) : unit(&axes->ya, y[j]);
    if (isnan(ux) || isnan(uy)) {
      prev_ok = pen_at_prev = FALSE;
      continue;
    }
    if (prev_ok) {
      double x0 = pux, y0 = puy, x1 = ux, y1 = uy;
      if (plot_clip_segment(&x0, &y0, &x1, &y1, -f->mx, -f->my, 1 + f->mx, 1 + f->my)) {
        gboolean start_kept = x0 == pux && y0 == puy;
        func(page_x(axes, x0), page_y(axes, y0), page_x(axes, x1), page_y(axes, y1),
             start_kept && pen_at_prev, data);
        pen_at_prev = x1 == ux && y1 == uy;
      } else {
        pen_at_prev = FALSE;
      }
    }
    pux = ux;
    puy = uy;
    prev_ok = TRUE;
  }
}

void plot_style_stroke(cairo_t *cr, const PlotStyle *st, gboolean dashed) {
  double w = st->width;
  cairo_set_line_width(cr, w);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  /* Patterns scale with the width, so thick dashed lines keep their look. */
  double d[4];
  int nd = 0;
  switch (dashed ? st->dash : PLOT_DASH_SOLID) {
  case PLOT_DASH_DASHED:
    d[0] = 3.7 * w, d[1] = 1.6 * w, nd = 2;
    break;
  case PLOT_DASH_DOTTED:
    /* Round caps on zero-length dashes draw dots. */
    d[0] = 0, d[1] = 2.0 * w, nd = 2;
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    break;
  case PLOT_DASH_DASHDOT:
    d[0] = 6.4 * w, d[1] = 1.6 * w, d[2] = 1.0 * w, d[3] = 1.6 * w, nd = 4;
    break;
  default:
    break;
  }
  cairo_set_dash(cr, d, nd, 0);
}

void plot_marker_path(cairo_t *cr, PlotMarker marker, double x, double y, double size) {
  double r = size / 2;
  cairo_new_sub_path(cr);
  switch (marker) {
  case PLOT_MARKER_CIRCLE:
    cairo_arc(cr, x, y, r, 0, 2 * G_PI);
    break;
  case PLOT_MARKER_SQUARE:
    cairo_rectangle(cr, x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r);
    break;
  case PLOT_MARKER_TRIANGLE: {
    /* Equilateral, centred on its centroid, same area feel as the circle. */
    double s = 1.2 * r;
    cairo_move_to(cr, x, y - 1.25 * s);
    cairo_line_to(cr, x + 1.0825 * s, y + 0.625 * s);
    cairo_line_to(cr, x - 1.0825 * s, y + 0.625 * s);
    cairo_close_path(cr);
    break;
  }
  default:
    break;
  }
}

static void add_piece(double x0, double y0, double x1, double y1, gboolean connected,
                      gpointer data) {
  cairo_t *cr = data;
  if (!connected)
    cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
}

static void set_color(cairo_t *cr, const PlotColor *c, double alpha) {
  cairo_set_source_rgba(cr, c->r, c->g, c->b, c->a * alpha);
}

/* Stroke or fill only a non-empty path: cairo would still emit an empty
 * element in SVG otherwise. */
static gboolean path_empty(cairo_t *cr) {
  double x0, y0, x1, y1;
  cairo_path_extents(cr, &x0, &y0, &x1, &y1);
  return !cairo_has_current_point(cr) && x0 == 0 && y0 == 0 && x1 == 0 && y1 == 0;
}

static void draw_line(const Frame *f, const PlotSeries *s, cairo_t *cr) {
  const PlotAxes *axes = f->axes;
  set_color(cr, &s->style.color, 1.0);
  plot_style_stroke(cr, &s->style, TRUE);
  cairo_new_path(cr);
  walk_polyline(f, s->n, s->x, s->y, FALSE, add_piece, cr);
  if (!path_empty(cr))
    cairo_stroke(cr);
  cairo_new_path(cr);
  if (s->style.marker == PLOT_MARKER_NONE)
    return;
  for (gsize j = 0; j < s->n; j++) {
    double ux = unit(&axes->xa, s->x[j]), uy = unit(&axes->ya, s->y[j]);
    if (isnan(ux) || isnan(uy) || ux < -f->mx || ux > 1 + f->mx || uy < -f->my || uy > 1 + f->my)
      continue;
    plot_marker_path(cr, s->style.marker, page_x(axes, ux), page_y(axes, uy), s->style.marker_size);
  }
  if (!path_empty(cr))
    cairo_fill(cr);
  cairo_new_path(cr);
}

/* The bars of an error-bar series as unit-square segments; caps only at
 * ends that survived clipping. */
typedef void (*BarFunc)(const PlotAxes *axes, double ux, double u0, double u1, gboolean cap0,
                        gboolean cap1, gpointer data);

static void walk_bars(const Frame *f, const PlotSeries *s, BarFunc func, gpointer data) {
  const PlotAxes *axes = f->axes;
  for (gsize j = 0; j < s->n; j++) {
    double ux = unit(&axes->xa, s->x[j]);
    double u0 = unit_y_floor(f, s->y[j]), u1 = unit_y_floor(f, s->y2[j]);
    if (isnan(ux) || isnan(u0) || isnan(u1))
      continue;
    if (u0 > u1) {
      double t = u0;
      u0 = u1;
      u1 = t;
    }
    double x0 = ux, y0 = u0, x1 = ux, y1 = u1;
    if (!plot_clip_segment(&x0, &y0, &x1, &y1, -f->mx, -f->my, 1 + f->mx, 1 + f->my))
      continue;
    func(axes, ux, y0, y1, y0 == u0, y1 == u1, data);
  }
}

typedef struct {
  cairo_t *cr;
  double half_cap;
} BarDraw;

static void add_bar(const PlotAxes *axes, double ux, double u0, double u1, gboolean cap0,
                    gboolean cap1, gpointer data) {
  BarDraw *bd = data;
  double px = page_x(axes, ux), p0 = page_y(axes, u0), p1 = page_y(axes, u1);
  cairo_move_to(bd->cr, px, p0);
  cairo_line_to(bd->cr, px, p1);
  if (bd->half_cap > 0) {
    if (cap0) {
      cairo_move_to(bd->cr, px - bd->half_cap, p0);
      cairo_line_to(bd->cr, px + bd->half_cap, p0);
    }
    if (cap1) {
      cairo_move_to(bd->cr, px - bd->half_cap, p1);
      cairo_line_to(bd->cr, px + bd->half_cap, p1);
    }
  }
}

static void draw_errorbars(const Frame *f, const PlotSeries *s, cairo_t *cr) {
  set_color(cr, &s->style.color, 1.0);
  plot_style_stroke(cr, &s->style, FALSE);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE); /* crisp corners where caps meet bars */
  BarDraw bd = {cr, s->style.cap > 0 ? s->style.cap / 2 : 0};
  cairo_new_path(cr);
  walk_bars(f, s, add_bar, &bd);
  if (!path_empty(cr))
    cairo_stroke(cr);
  cairo_new_path(cr);
}

/* Each run of consecutive drawable points becomes one polygon: along lo,
 * back along hi. */
static void draw_band(const Frame *f, const PlotSeries *s, cairo_t *cr) {
  const PlotAxes *axes = f->axes;
  set_color(cr, &s->style.color, s->style.alpha);
  cairo_new_path(cr);
  double *poly = g_new(double, 4 * MAX(s->n, 1));
  gsize j = 0;
  while (j < s->n) {
    gsize start = j, len = 0;
    for (; j < s->n; j++) {
      double ux = unit(&axes->xa, s->x[j]);
      double u0 = unit_y_floor(f, s->y[j]), u1 = unit_y_floor(f, s->y2[j]);
      if (isnan(ux) || isnan(u0) || isnan(u1))
        break;
      len++;
    }
    if (len >= 2) {
      for (gsize k = 0; k < len; k++) {
        gsize a = start + k, b = start + len - 1 - k;
        poly[2 * k] = unit(&axes->xa, s->x[a]);
        poly[2 * k + 1] = unit_y_floor(f, s->y[a]);
        poly[2 * (len + k)] = unit(&axes->xa, s->x[b]);
        poly[2 * (len + k) + 1] = unit_y_floor(f, s->y2[b]);
      }
      gsize m = 0;
      double *clipped = plot_clip_polygon(poly, 2 * len, -f->mx, -f->my, 1 + f->mx, 1 + f->my, &m);
      for (gsize k = 0; k < m; k++) {
        double px = page_x(axes, clipped[2 * k]), py = page_y(axes, clipped[2 * k + 1]);
        if (k == 0)
          cairo_move_to(cr, px, py);
        else
          cairo_line_to(cr, px, py);
      }
      if (m)
        cairo_close_path(cr);
      g_free(clipped);
    }
    j++; /* skip the gap point */
  }
  g_free(poly);
  if (!path_empty(cr))
    cairo_fill(cr);
  cairo_new_path(cr);
}

/* --- segments for legend placement ------------------------------------- */

typedef struct {
  PlotSegmentFunc func;
  gpointer data;
} SegAdapter;

static void seg_piece(double x0, double y0, double x1, double y1, gboolean connected,
                      gpointer data) {
  (void)connected;
  SegAdapter *a = data;
  a->func(x0, y0, x1, y1, a->data);
}

static void seg_bar(const PlotAxes *axes, double ux, double u0, double u1, gboolean cap0,
                    gboolean cap1, gpointer data) {
  (void)cap0, (void)cap1;
  SegAdapter *a = data;
  double px = page_x(axes, ux);
  a->func(px, page_y(axes, u0), px, page_y(axes, u1), a->data);
}

void plot_series_segments(const PlotAxes *axes, const PlotSeries *s, PlotSegmentFunc func,
                          gpointer data) {
  Frame f;
  frame_init(&f, axes);
  SegAdapter a = {func, data};
  switch (s->kind) {
  case PLOT_SERIES_LINE:
    walk_polyline(&f, s->n, s->x, s->y, FALSE, seg_piece, &a);
    for (gsize j = 0; j < s->n; j++) { /* points count too (markers, lone points) */
      double ux = unit(&axes->xa, s->x[j]), uy = unit(&axes->ya, s->y[j]);
      if (isnan(ux) || isnan(uy) || ux < 0 || ux > 1 || uy < 0 || uy > 1)
        continue;
      double px = page_x(axes, ux), py = page_y(axes, uy);
      func(px, py, px, py, data);
    }
    break;
  case PLOT_SERIES_ERRORBARS:
    walk_bars(&f, s, seg_bar, &a);
    break;
  case PLOT_SERIES_BAND:
    walk_polyline(&f, s->n, s->x, s->y, TRUE, seg_piece, &a);
    walk_polyline(&f, s->n, s->x, s->y2, TRUE, seg_piece, &a);
    break;
  }
}

/* --- frame, ticks, labels ---------------------------------------------- */

static gboolean on_axis(double u) {
  return u >= -1e-9 && u <= 1 + 1e-9;
}

static void draw_grid(const PlotAxes *axes, cairo_t *cr) {
  cairo_new_path(cr);
  /* Lines on the frame itself would only thicken it. */
  for (gsize i = 0; i < axes->xa.ticks.n_major; i++) {
    double u = unit(&axes->xa, axes->xa.ticks.major[i]);
    if (isnan(u) || u * axes->aw < 0.5 || (1 - u) * axes->aw < 0.5)
      continue;
    cairo_move_to(cr, page_x(axes, u), axes->ay);
    cairo_line_to(cr, page_x(axes, u), axes->ay + axes->ah);
  }
  for (gsize i = 0; i < axes->ya.ticks.n_major; i++) {
    double u = unit(&axes->ya, axes->ya.ticks.major[i]);
    if (isnan(u) || u * axes->ah < 0.5 || (1 - u) * axes->ah < 0.5)
      continue;
    cairo_move_to(cr, axes->ax, page_y(axes, u));
    cairo_line_to(cr, axes->ax + axes->aw, page_y(axes, u));
  }
  if (path_empty(cr))
    return;
  cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
  cairo_set_line_width(cr, PLOT_GRID_WIDTH);
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  cairo_stroke(cr);
}

static void add_ticks(const PlotAxes *axes, cairo_t *cr, const double *xs, gsize nx,
                      const double *ys, gsize ny, double len) {
  double bottom = axes->ay + axes->ah;
  for (gsize i = 0; i < nx; i++) {
    double u = unit(&axes->xa, xs[i]);
    if (isnan(u) || !on_axis(u))
      continue;
    cairo_move_to(cr, page_x(axes, u), bottom);
    cairo_line_to(cr, page_x(axes, u), bottom + len);
  }
  for (gsize i = 0; i < ny; i++) {
    double u = unit(&axes->ya, ys[i]);
    if (isnan(u) || !on_axis(u))
      continue;
    cairo_move_to(cr, axes->ax, page_y(axes, u));
    cairo_line_to(cr, axes->ax - len, page_y(axes, u));
  }
}

static void draw_decorations(const PlotAxes *axes, cairo_t *cr) {
  const PlotFigure *fig = axes->fig;
  double fs = fig->font_size;
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
  cairo_set_source_rgb(cr, 0, 0, 0);

  cairo_set_line_width(cr, PLOT_FRAME_WIDTH);
  cairo_rectangle(cr, axes->ax, axes->ay, axes->aw, axes->ah);
  cairo_stroke(cr);

  const PlotTicks *xt = &axes->xa.ticks, *yt = &axes->ya.ticks;
  add_ticks(axes, cr, xt->major, xt->n_major, yt->major, yt->n_major, PLOT_TICK_MAJOR);
  if (!path_empty(cr))
    cairo_stroke(cr);
  cairo_new_path(cr);
  cairo_set_line_width(cr, 0.6 * PLOT_FRAME_WIDTH);
  add_ticks(axes, cr, xt->minor, xt->n_minor, yt->minor, yt->n_minor, PLOT_TICK_MINOR);
  if (!path_empty(cr))
    cairo_stroke(cr);
  cairo_new_path(cr);

  double below = axes->ay + axes->ah + PLOT_TICK_MAJOR + PLOT_TICK_PAD;
  for (gsize i = 0; i < xt->n_major; i++) {
    double u = unit(&axes->xa, xt->major[i]);
    if (isnan(u) || !on_axis(u))
      continue;
    plot_text_draw(cr, xt->labels[i], fs, TRUE, page_x(axes, u), below, PLOT_ANCHOR_N);
  }
  double leftof = axes->ax - PLOT_TICK_MAJOR - PLOT_TICK_PAD;
  for (gsize i = 0; i < yt->n_major; i++) {
    double u = unit(&axes->ya, yt->major[i]);
    if (isnan(u) || !on_axis(u))
      continue;
    plot_text_draw(cr, yt->labels[i], fs, TRUE, leftof, page_y(axes, u), PLOT_ANCHOR_E);
  }

  /* Axis labels hug the cell edges, so they line up across a grid row or
   * column whatever the width of each panel's tick labels. */
  double cw = fig->width / fig->cols;
  cairo_font_extents_t fe;
  double lfs = plot_font_label(fig);
  cairo_set_font_size(cr, lfs);
  cairo_font_extents(cr, &fe);
  if (axes->xa.label) {
    double y = below + plot_text_digit_height(cr, fs) + 0.3 * fs + PLOT_LABEL_GAP + fe.ascent;
    double x = axes->ax + axes->aw / 2;
    cairo_move_to(cr, x - plot_text_width(cr, axes->xa.label, lfs, FALSE) / 2, y);
    cairo_set_font_size(cr, lfs);
    cairo_show_text(cr, axes->xa.label);
  }
  if (axes->ya.label) {
    double x = axes->col * cw + PLOT_PAD + fe.ascent;
    double w = plot_text_width(cr, axes->ya.label, lfs, FALSE);
    cairo_save(cr);
    cairo_translate(cr, x, axes->ay + axes->ah / 2);
    cairo_rotate(cr, -G_PI / 2);
    cairo_move_to(cr, -w / 2, 0);
    cairo_set_font_size(cr, lfs);
    cairo_show_text(cr, axes->ya.label);
    cairo_restore(cr);
  }
  if (axes->title_fit.lines) {
    const PlotTitle *t = &axes->title_fit;
    cairo_set_font_size(cr, t->size);
    cairo_font_extents(cr, &fe);
    double w = 0;
    for (guint i = 0; i < t->n_lines; i++)
      w = MAX(w, plot_text_width(cr, t->lines[i], t->size, FALSE));
    /* Centred on the data rectangle, but kept inside the cell. */
    double cx = axes->ax + axes->aw / 2, c0 = axes->col * cw + PLOT_PAD,
           c1 = (axes->col + 1) * cw - PLOT_PAD;
    cx = MAX(MIN(cx, c1 - w / 2), c0 + w / 2);
    double top = axes->ay - PLOT_LABEL_GAP - t->n_lines * (fe.ascent + fe.descent);
    plot_title_draw(cr, t, cx, top);
  }
}

static void draw_axes(const PlotAxes *axes, cairo_t *cr) {
  Frame f;
  frame_init(&f, axes);
  if (axes->grid)
    draw_grid(axes, cr);

  cairo_save(cr);
  cairo_rectangle(cr, axes->ax, axes->ay, axes->aw, axes->ah);
  cairo_clip(cr);
  static const PlotSeriesKind order[3] = {PLOT_SERIES_BAND, PLOT_SERIES_ERRORBARS,
                                          PLOT_SERIES_LINE};
  for (int k = 0; k < 3; k++) {
    for (guint i = 0; i < axes->series->len; i++) {
      const PlotSeries *s = g_ptr_array_index(axes->series, i);
      if (s->kind != order[k] || s->n == 0)
        continue;
      if (s->kind == PLOT_SERIES_BAND)
        draw_band(&f, s, cr);
      else if (s->kind == PLOT_SERIES_ERRORBARS)
        draw_errorbars(&f, s, cr);
      else
        draw_line(&f, s, cr);
    }
  }
  cairo_restore(cr);

  draw_decorations(axes, cr);

  cairo_set_source_rgb(cr, 0, 0, 0);
  for (guint i = 0; i < axes->texts->len; i++) {
    const PlotText *t = g_ptr_array_index(axes->texts, i);
    double px, py;
    if (!plot_axes_data_to_device(axes, t->x, t->y, &px, &py))
      continue;
    if (fabs(px) > 1e6 || fabs(py) > 1e6)
      continue; /* far off the page */
    plot_text_draw(cr, t->text, axes->fig->font_size, FALSE, px, py, t->anchor);
  }
  plot_legend_draw(axes, cr);
}

void plot_render(PlotFigure *fig, cairo_t *cr) {
  plot_text_setup(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  plot_title_draw(cr, &fig->title_fit, fig->width / 2, PLOT_PAD);
  for (guint i = 0; i < fig->rows * fig->cols; i++)
    if (!fig->axes[i]->hidden)
      draw_axes(fig->axes[i], cr);
}
