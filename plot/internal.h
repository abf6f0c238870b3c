/*
 * plot/internal.h: structures and helpers shared inside plot/ only (never
 * include from another module).
 */
#ifndef DPG_PLOT_INTERNAL_H
#define DPG_PLOT_INTERNAL_H

#include <cairo.h>

#include "plot/plot.h"

/* Sizes in points, chosen once so every figure looks alike. */
#define PLOT_PAD 5.0        /* outer padding of a panel cell */
#define PLOT_TICK_MAJOR 3.5 /* tick lengths (outwards) */
#define PLOT_TICK_MINOR 2.0
#define PLOT_TICK_PAD 2.5  /* tick end to its label */
#define PLOT_LABEL_GAP 4.0 /* tick labels to axis label, title to panel */
#define PLOT_FRAME_WIDTH 0.8
#define PLOT_GRID_WIDTH 0.5
#define PLOT_MIN_AREA 16.0       /* smallest drawable data rectangle side */
#define PLOT_SUP_SCALE 0.7       /* superscript size relative to its base */
#define PLOT_SUP_RISE 0.42       /* superscript baseline rise, in base sizes */
#define PLOT_MIN_TITLE_SCALE 0.6 /* smallest shrink of a title with an overlong word */

typedef enum {
  PLOT_SERIES_LINE,
  PLOT_SERIES_ERRORBARS,
  PLOT_SERIES_BAND,
} PlotSeriesKind;

typedef struct {
  PlotSeriesKind kind;
  char *label; /* NULL: not in the legend */
  gsize n;
  double *x;
  double *y;       /* lines: y; error bars and bands: lo */
  double *y2;      /* error bars and bands: hi; lines: NULL */
  PlotStyle style; /* resolved: colour, width, sizes filled in */
} PlotSeries;

typedef struct {
  double x, y;
  char *text;
  PlotAnchor anchor;
} PlotText;

/* One axis: the user's settings, then what layout resolved. */
typedef struct {
  PlotScale scale;
  PlotAutoscale autoscale;
  double lim_lo, lim_hi; /* explicit limits, NaN = automatic */
  char *label;
  /* resolved by layout */
  double lo, hi;               /* limits, data units */
  double t_lo, t_hi;           /* limits in scale space (log10 on log axes) */
  double base_t_lo, base_t_hi; /* limits before rounding to nice ticks */
  gboolean auto_lo, auto_hi;
  gboolean integer; /* ticks on whole numbers only (linear) */
  PlotTicks ticks;
} PlotAxisState;

/* A title fitted to a width by layout: wrapped at spaces into lines, and
 * shrunk (down to PLOT_MIN_TITLE_SCALE of its size) only when a single word
 * is wider than the room. */
typedef struct {
  char **lines; /* NULL-terminated; NULL when no title */
  guint n_lines;
  double size; /* font size the lines are drawn at */
} PlotTitle;

struct PlotAxes {
  PlotFigure *fig;
  guint row, col;
  char *title;
  gboolean hidden; /* not drawn (an unused cell of a grid) */
  PlotAxisState xa, ya;
  gboolean grid;
  PlotLegendPos legend;
  GPtrArray *series; /* PlotSeries*, insertion order */
  GPtrArray *texts;  /* PlotText* */
  guint next_color;  /* palette index of the next automatic line colour */
  gboolean have_last_color;
  PlotColor last_line_color;
  /* resolved by layout: the data rectangle, points */
  double ax, ay, aw, ah;
  double legend_w, legend_h; /* legend box size (0 if none) */
  gboolean legend_outside;   /* BEST found no free inside place: drawn as OUTSIDE_RIGHT */
  PlotTitle title_fit;       /* the title as drawn */
};

struct PlotFigure {
  double width, height;
  guint rows, cols;
  PlotAxes **axes; /* rows * cols, row-major */
  char *title;
  double font_size;
  double png_scale;
  gboolean laid_out;
  PlotTitle title_fit; /* the figure title as drawn */
};

/* --- axes.c ----------------------------------------------------------- */

/* Mark fig's layout stale (every setter calls it). */
void plot_figure_invalidate(PlotFigure *fig);
PlotAxes *plot_axes_new(PlotFigure *fig, guint row, guint col);
void plot_axes_free(PlotAxes *axes);

/* --- scale.c ---------------------------------------------------------- */

/* Value -> scale space (identity or log10); NaN when not representable. */
double plot_scale_forward(PlotScale scale, double v);
/* Whether v can be drawn on the scale (finite, positive on log). */
gboolean plot_scale_valid(PlotScale scale, double v);
/* Resolve the limits of a panel's two axes from data and settings (sets lo,
 * hi, t_lo, t_hi, base_*, auto_*), before any rounding to nice ticks. */
gboolean plot_resolve_limits(PlotAxes *axes, GError **error);
/* Round automatic limits to nice ticks when asked (PLOT_AUTOSCALE_NICE) and
 * compute the axis ticks, at most max_ticks of them; name is "x" or "y". */
gboolean plot_axis_finalize(const PlotAxes *axes, PlotAxisState *a, const char *name,
                            guint max_ticks, GError **error);
/* Name of the panel for messages: "panel (row 1, col 2)", or "the figure"
 * when there is a single panel. Returns a newly allocated string. */
char *plot_axes_describe(const PlotAxes *axes);

/* Data -> page point, without validity checks (t-space arithmetic). */
double plot_map_x(const PlotAxes *axes, double tx);
double plot_map_y(const PlotAxes *axes, double ty);

/* --- text.c ----------------------------------------------------------- */

/* Advance width of a label with optional '^' superscript (see PlotTicks). */
double plot_text_width(cairo_t *cr, const char *label, double size, gboolean markup);
/* Height of a digit (cap height proxy) at size, for vertical centring. */
double plot_text_digit_height(cairo_t *cr, double size);
/* Draw label with its anchor point at (x, y); (x, y) refer to the ink box
 * made of the base text's digit height (for N/S/center), baseline-based. */
void plot_text_draw(cairo_t *cr, const char *label, double size, gboolean markup, double x,
                    double y, PlotAnchor anchor);
/* Fit title to max_w points at nominal size (see PlotTitle); t is cleared
 * first. Returns the height the lines take (line height times lines). */
double plot_title_fit(cairo_t *cr, const char *title, double size, double max_w, PlotTitle *t);
void plot_title_clear(PlotTitle *t);
/* Draw t's lines centred on cx, the first line's top at top. */
void plot_title_draw(cairo_t *cr, const PlotTitle *t, double cx, double top);
/* A scratch context with the font options every measurement uses; free with
 * plot_scratch_free. */
cairo_t *plot_scratch_new(void);
void plot_scratch_free(cairo_t *cr);
/* Font options shared by every context (hinting off: metrics independent of
 * the backend and the PNG scale). */
void plot_text_setup(cairo_t *cr);

/* --- ticks.c ---------------------------------------------------------- */

/* Keep the whole-number major ticks only, relabelled without decimals
 * (minor ticks dropped). */
void plot_ticks_keep_integers(PlotTicks *t);

/* --- layout.c --------------------------------------------------------- */

gboolean plot_layout(PlotFigure *fig, cairo_t *cr, GError **error);
double plot_font_label(const PlotFigure *fig);
double plot_font_title(const PlotFigure *fig);
double plot_font_fig_title(const PlotFigure *fig);

/* --- clip.c ----------------------------------------------------------- */

/* Clip segment (x0,y0)-(x1,y1) to the rectangle [xmin,xmax] x [ymin,ymax]
 * (Liang-Barsky). FALSE when nothing is left; else the segment is updated. */
gboolean plot_clip_segment(double *x0, double *y0, double *x1, double *y1, double xmin, double ymin,
                           double xmax, double ymax);
/* Clip a polygon of n vertices (xy interleaved) to the rectangle
 * (Sutherland-Hodgman): a g_free-able array of *n_out vertices, NULL when
 * less than a triangle is left. */
double *plot_clip_polygon(const double *xy, gsize n, double xmin, double ymin, double xmax,
                          double ymax, gsize *n_out);

/* --- legend.c --------------------------------------------------------- */

/* Size of the legend box of axes (0, 0 when no entries or no legend). */
void plot_legend_measure(const PlotAxes *axes, cairo_t *cr, double *w, double *h);
/* Where the legend box goes (after layout): its top-left corner; FALSE when
 * there is no legend. */
gboolean plot_legend_place(const PlotAxes *axes, double *x, double *y);
/* For PLOT_LEGEND_BEST (after layout): whether some inside place covers no
 * drawn segment or point. */
gboolean plot_legend_fits_inside(const PlotAxes *axes);
/* Draw the legend (after layout). */
void plot_legend_draw(const PlotAxes *axes, cairo_t *cr);

/* --- render.c --------------------------------------------------------- */

/* Draw the whole laid-out figure on cr (user space in points). */
void plot_render(PlotFigure *fig, cairo_t *cr);
/* Apply a series' dash pattern and width to cr. */
void plot_style_stroke(cairo_t *cr, const PlotStyle *style, gboolean dashed);
/* Add a marker outline centred at (x, y) to the current path. */
void plot_marker_path(cairo_t *cr, PlotMarker marker, double x, double y, double size);

/* Visible segments of a series in page coordinates (lines: the polyline,
 * bands: both edges, error bars: the bars), for legend placement. The
 * callback gets each clipped segment. */
typedef void (*PlotSegmentFunc)(double x0, double y0, double x1, double y1, gpointer data);
void plot_series_segments(const PlotAxes *axes, const PlotSeries *s, PlotSegmentFunc func,
                          gpointer data);

/* Stores the box (@bx, @by) @bw x @bh in those of @x, @y, @width and
 * @height that are not NULL (the getters' optional outputs). */
void plot_box_out(double bx, double by, double bw, double bh, double *x, double *y, double *width,
                  double *height);

#endif /* DPG_PLOT_INTERNAL_H */
