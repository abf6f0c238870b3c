/*
 * plot/plot.h: small standalone figures (SVG, PNG or PDF) drawn with cairo.
 *
 * A PlotFigure is a page of width x height points cut into a grid of
 * rows x cols panels; each panel is a PlotAxes (owned by the figure) holding
 * series (lines, error bars, bands), free text, two axes (linear or base-10
 * logarithmic, limits explicit or automatic with "nice" ticks), an optional
 * title, axis labels and legend. Nothing is drawn until plot_figure_save()
 * (or plot_figure_render()); setters only record.
 *
 * Data rules, the same everywhere:
 *  - A point with a NaN or infinite coordinate is skipped; lines and bands
 *    break there (a gap), they never jump over it.
 *  - On a log axis, non-positive values are skipped the same way (gaps) for
 *    lines and markers; error bars and bands whose low end is non-positive
 *    are drawn down to the bottom edge of the panel.
 *  - An automatic log axis with series data but no positive finite value is
 *    an error (PLOT_ERROR_DATA) when the figure is laid out.
 *  - A panel without data is fine: it is drawn with axes only, limits [0, 1]
 *    (linear) or [1, 10] (log) unless set.
 *  - Paint order inside a panel: bands, then error bars, then lines and
 *    markers, then text, whatever the insertion order, so a band added after
 *    its mean line never hides it.
 *
 * Strings (titles, labels, text) are UTF-8; invalid bytes are replaced by
 * U+FFFD when stored. Text is drawn in the generic "sans-serif" family
 * (fontconfig picks the face, DejaVu Sans on Debian).
 *
 * Determinism: a figure built by the same calls gives byte-identical SVG, PNG
 * and PDF output (cairo's per-process surface ids in the SVG are renumbered).
 *
 * Conventions: public names carry the plot_ prefix (types Plot*); errors
 * travel as GError in the PLOT_ERROR domain; library code never prints or
 * exits. Functions that cannot fail on user data take no GError and check
 * their object argument with g_return_if_fail (a NULL figure/axes or an
 * unknown enum value is a bug); setters are O(1) plus the string copied.
 * Lengths are in points (1/72 inch), y growing downwards on the page.
 * Programs checked by LeakSanitizer call plot_shutdown() before exiting.
 */
#ifndef DPG_PLOT_H
#define DPG_PLOT_H

#include <glib.h>

G_BEGIN_DECLS

#define PLOT_ERROR (plot_error_quark())
GQuark plot_error_quark(void);

typedef enum {
  PLOT_ERROR_INVALID_ARGUMENT, /* a parameter out of its documented range */
  PLOT_ERROR_DATA,             /* data that cannot be drawn (log axis, no positive value) */
  PLOT_ERROR_FORMAT,           /* an output file name without .svg, .png or .pdf */
  PLOT_ERROR_IO,               /* the output file cannot be written */
  PLOT_ERROR_FAILED,           /* cairo failed (out of memory...) */
} PlotError;

typedef struct PlotFigure PlotFigure;
typedef struct PlotAxes PlotAxes;

typedef enum {
  PLOT_SCALE_LINEAR,
  PLOT_SCALE_LOG10,
} PlotScale;

/* How an automatic limit is chosen from the data range [a, b] (computed in
 * the scale's space: log10 of the values on a log axis). */
typedef enum {
  PLOT_AUTOSCALE_PAD,  /* [a, b] widened by 5% on each side; ticks inside (default) */
  PLOT_AUTOSCALE_NICE, /* rounded outwards to the enclosing major ticks (decades on log) */
} PlotAutoscale;

typedef enum {
  PLOT_LEGEND_NONE, /* no legend (default) */
  PLOT_LEGEND_BEST, /* an inside corner/edge that covers no data; when every one
                       covers some, right of the panel as OUTSIDE_RIGHT */
  PLOT_LEGEND_UPPER_RIGHT,
  PLOT_LEGEND_UPPER_LEFT,
  PLOT_LEGEND_LOWER_LEFT,
  PLOT_LEGEND_LOWER_RIGHT,
  PLOT_LEGEND_OUTSIDE_RIGHT, /* right of the panel, top-aligned; the panel shrinks */
} PlotLegendPos;

/* Which point of a text's box sits at the given position. */
typedef enum {
  PLOT_ANCHOR_CENTER,
  PLOT_ANCHOR_N,
  PLOT_ANCHOR_NE,
  PLOT_ANCHOR_E,
  PLOT_ANCHOR_SE,
  PLOT_ANCHOR_S,
  PLOT_ANCHOR_SW,
  PLOT_ANCHOR_W,
  PLOT_ANCHOR_NW,
} PlotAnchor;

typedef enum {
  PLOT_DASH_SOLID,
  PLOT_DASH_DASHED,
  PLOT_DASH_DOTTED,
  PLOT_DASH_DASHDOT,
} PlotDash;

typedef enum {
  PLOT_MARKER_NONE,
  PLOT_MARKER_CIRCLE,
  PLOT_MARKER_SQUARE,
  PLOT_MARKER_TRIANGLE,
} PlotMarker;

/* An sRGB colour, components in [0, 1]. Alpha 0 means "automatic" in a
 * PlotStyle (the palette picks); use plot_color_rgb() for explicit ones. */
typedef struct {
  double r, g, b, a;
} PlotColor;

/*
 * How a series is drawn. A zeroed struct (or a NULL pointer) gives the
 * defaults, so designated initialisers read well:
 *   &(PlotStyle){.dash = PLOT_DASH_DASHED, .marker = PLOT_MARKER_CIRCLE}
 * color:       alpha 0: automatic. Lines take the next palette colour of
 *              their panel (plot_palette order); error bars and bands take
 *              the colour of the latest line added before them to the same
 *              panel (the next palette colour if none, without using it up).
 * dash:        line pattern (lines and legend samples; error bars are solid).
 * width:       line width in points; 0: 1.5 (lines), 1.0 (error bars).
 * marker:      marker at each drawn point of a line (lines only).
 * marker_size: marker diameter in points; 0: 5.
 * cap:         error-bar cap width in points; 0: 4; negative: no caps.
 * alpha:       band fill opacity in (0, 1]; 0: 0.2. Lines and error bars
 *              use color.a.
 */
typedef struct {
  PlotColor color;
  PlotDash dash;
  double width;
  PlotMarker marker;
  double marker_size;
  double cap;
  double alpha;
} PlotStyle;

/* ===================================================================== */
/* Colours                                                                */
/* ===================================================================== */

/* plot_color_rgb: an opaque colour; components are clamped to [0, 1]. */
PlotColor plot_color_rgb(double r, double g, double b);

/*
 * plot_palette: colour i of the automatic palette, cycling after 8: the
 * Okabe-Ito colour-blind-safe set, ordered so that any of the first six
 * differ by at least 30 in CIELAB (one blue among them): blue #0072B2,
 * vermillion #D55E00, bluish green #009E73, orange #E69F00, reddish purple
 * #CC79A7, black #000000, sky blue #56B4E9, yellow #F0E442. O(1).
 */
PlotColor plot_palette(guint i);

/* ===================================================================== */
/* Figures and panels                                                     */
/* ===================================================================== */

/*
 * plot_figure_new: an empty figure of width_pt x height_pt points split into
 * rows x cols equal panels (row 0 at the top, col 0 at the left).
 * Errors: PLOT_ERROR_INVALID_ARGUMENT unless both sizes are finite and in
 *    [10, 10000] and 1 <= rows, cols <= 16.
 * Complexity: O(rows * cols).
 */
PlotFigure *plot_figure_new(double width_pt, double height_pt, guint rows, guint cols,
                            GError **error);

/* plot_figure_free: free fig and its panels (NULL allowed). */
void plot_figure_free(PlotFigure *fig);

/*
 * plot_shutdown: release the font caches cairo keeps for the whole process
 * (only so that leak checkers such as LeakSanitizer see a clean exit). Call
 * at most once, after every figure is freed, with no other thread using
 * cairo; no plot function may be called afterwards.
 */
void plot_shutdown(void);

/* plot_figure_axes: the panel at (row, col), owned by fig; NULL when out of
 * range. O(1). */
PlotAxes *plot_figure_axes(PlotFigure *fig, guint row, guint col);

/* plot_figure_set_title: a title centred above all panels (NULL removes it).
 * Titles (this one and the panels') never leave the page or their cell:
 * layout wraps them at spaces onto as many lines as needed, shrinking the
 * font (to 60% at most) only for a single word wider than the room. */
void plot_figure_set_title(PlotFigure *fig, const char *title);

/*
 * plot_figure_set_font_size: the base text size in points (tick labels,
 * legend, free text; axis labels are 10/9 of it, titles 11/9, the figure
 * title 12/9). Default 9.
 * Errors: PLOT_ERROR_INVALID_ARGUMENT unless finite and in [4, 72].
 */
gboolean plot_figure_set_font_size(PlotFigure *fig, double size_pt, GError **error);

/*
 * plot_figure_set_png_scale: PNG pixels per point (default 2, i.e. 144 dpi);
 * a figure of W x H points gives a ceil(W*scale) x ceil(H*scale) PNG.
 * Errors: PLOT_ERROR_INVALID_ARGUMENT unless finite and in [0.25, 16].
 */
gboolean plot_figure_set_png_scale(PlotFigure *fig, double px_per_pt, GError **error);

/* Panel title (above the panel) and axis labels (NULL removes). */
void plot_axes_set_title(PlotAxes *axes, const char *title);
void plot_axes_set_xlabel(PlotAxes *axes, const char *label);
void plot_axes_set_ylabel(PlotAxes *axes, const char *label);

/*
 * plot_axes_set_hidden: an unused cell of a grid: nothing of it is drawn
 * (no frame, ticks or labels); its data still count for nothing else.
 */
void plot_axes_set_hidden(PlotAxes *axes, gboolean hidden);

/*
 * plot_axes_set_integer_ticks: major ticks of a linear x (resp. y) axis only
 * at whole numbers (hop distances, counts), labelled without decimals; an
 * axis narrower than one unit then keeps the whole numbers inside it, if any.
 * No effect on log axes. Default off.
 */
void plot_axes_set_integer_ticks(PlotAxes *axes, gboolean x, gboolean y);

/* Axis scales (default PLOT_SCALE_LINEAR). */
void plot_axes_set_xscale(PlotAxes *axes, PlotScale scale);
void plot_axes_set_yscale(PlotAxes *axes, PlotScale scale);

/* Automatic-limit policy of each axis (default PLOT_AUTOSCALE_PAD). */
void plot_axes_set_xautoscale(PlotAxes *axes, PlotAutoscale mode);
void plot_axes_set_yautoscale(PlotAxes *axes, PlotAutoscale mode);

/*
 * plot_axes_set_xlim / plot_axes_set_ylim: explicit limits; NaN for a bound
 * leaves it automatic (NaN, NaN: fully automatic again). A positive-only
 * check for log axes happens at layout (the scale may change meanwhile):
 * there a non-positive explicit bound is a PLOT_ERROR_DATA error.
 * Errors: PLOT_ERROR_INVALID_ARGUMENT for an infinite bound or lo >= hi.
 */
gboolean plot_axes_set_xlim(PlotAxes *axes, double lo, double hi, GError **error);
gboolean plot_axes_set_ylim(PlotAxes *axes, double lo, double hi, GError **error);

/* plot_axes_set_grid: light grid lines at the major ticks (default on). */
void plot_axes_set_grid(PlotAxes *axes, gboolean on);

/* plot_axes_set_legend: where the legend of labelled series goes (default
 * PLOT_LEGEND_NONE). Entries follow insertion order. */
void plot_axes_set_legend(PlotAxes *axes, PlotLegendPos pos);

/* ===================================================================== */
/* Series                                                                 */
/* ===================================================================== */

/*
 * plot_axes_add_line: a polyline through (x[i], y[i]), i < n, with optional
 * markers. Arrays are copied. A NULL label keeps it out of the legend; n = 0
 * with a label adds a legend-only entry (e.g. "dashed = Muffliato").
 * Errors: PLOT_ERROR_INVALID_ARGUMENT for a NULL axes, NULL arrays with
 *    n > 0, or a style field out of range (negative or non-finite sizes,
 *    colour components or alpha outside [0, 1], unknown enum values).
 * Complexity: O(n).
 */
gboolean plot_axes_add_line(PlotAxes *axes, const char *label, gsize n, const double *x,
                            const double *y, const PlotStyle *style, GError **error);

/*
 * plot_axes_add_errorbars: vertical bars from lo[i] to hi[i] at x[i] with
 * caps (e.g. min/max over nodes around a mean drawn by add_line); a label
 * gives a legend entry (usually NULL: the mean line carries it). A bar
 * with lo > hi is drawn between the two all the same. Arrays are copied.
 * Errors and complexity: as plot_axes_add_line.
 */
gboolean plot_axes_add_errorbars(PlotAxes *axes, const char *label, gsize n, const double *x,
                                 const double *lo, const double *hi, const PlotStyle *style,
                                 GError **error);

/*
 * plot_axes_add_band: the filled region between lo[i] and hi[i] along x
 * (e.g. a confidence band over seeds), x in drawing order. Arrays are
 * copied. Errors and complexity: as plot_axes_add_line.
 */
gboolean plot_axes_add_band(PlotAxes *axes, const char *label, gsize n, const double *x,
                            const double *lo, const double *hi, const PlotStyle *style,
                            GError **error);

/*
 * plot_axes_add_text: text at data position (x, y), the anchor point of its
 * box placed there; black, base font size, not clipped to the panel and not
 * counted in automatic limits. A point not drawable on the axes' scales
 * (non-finite, non-positive on log) is skipped at drawing.
 * Errors: PLOT_ERROR_INVALID_ARGUMENT for NULL axes/text or a bad anchor.
 */
gboolean plot_axes_add_text(PlotAxes *axes, double x, double y, const char *text, PlotAnchor anchor,
                            GError **error);

/* ===================================================================== */
/* Output                                                                 */
/* ===================================================================== */

typedef enum {
  PLOT_FORMAT_SVG,
  PLOT_FORMAT_PNG,
  PLOT_FORMAT_PDF, /* vector, fonts embedded; fixed creation date (deterministic) */
} PlotFormat;

/* plot_format_from_path: the format a file name asks for by its extension
 * (".svg", ".png", ".pdf", any case); FALSE for another. O(1). */
gboolean plot_format_from_path(const char *path, PlotFormat *format);

/*
 * plot_parse_size: "WxH" in points, or with a unit after H: "6x4in",
 * "16x12cm", "160x120mm", "360x260pt". The figure size options of the CLI
 * and of scenario files.
 * Errors: PLOT_ERROR_INVALID_ARGUMENT (the message shows the form) unless
 *    both sides are in [10, 10000] points.
 */
gboolean plot_parse_size(const char *text, double *width_pt, double *height_pt, GError **error);

/*
 * plot_figure_save: render fig to path, SVG, PNG or PDF chosen by the
 * extension (".svg" / ".png" / ".pdf", any case). The bytes go to a temporary file in the same
 * folder which is then renamed over path, so path never holds a half-written
 * figure and the temporary is removed on failure.
 * Errors: PLOT_ERROR_FORMAT (other extension), PLOT_ERROR_IO (message names
 *    the path), and those of plot_figure_layout().
 * Complexity: O(total points + text).
 */
gboolean plot_figure_save(PlotFigure *fig, const char *path, GError **error);

/* plot_figure_render: the file contents plot_figure_save would write, as
 * bytes (g_bytes_unref them). Errors: as plot_figure_layout, and
 * PLOT_ERROR_FAILED when cairo fails. */
GBytes *plot_figure_render(PlotFigure *fig, PlotFormat format, GError **error);

/*
 * plot_figure_layout: resolve limits and ticks of every panel and place the
 * panels on the page (done by save/render; callers use it to query the
 * geometry below). Any later change to the figure invalidates the layout.
 * Errors: PLOT_ERROR_DATA (automatic log axis with no positive value,
 *    non-positive explicit log limit; the message names the panel and
 *    axis), PLOT_ERROR_INVALID_ARGUMENT (page too small for its panels).
 * Complexity: O(total points).
 */
gboolean plot_figure_layout(PlotFigure *fig, GError **error);

/* After a successful plot_figure_layout (else FALSE and outputs untouched):
 * the resolved axis limits, in data units. */
gboolean plot_axes_get_xlim(const PlotAxes *axes, double *lo, double *hi);
gboolean plot_axes_get_ylim(const PlotAxes *axes, double *lo, double *hi);

/* After layout: the ticks drawn on each axis, owned by axes (valid until
 * the figure changes); NULL before layout. */
typedef struct PlotTicks PlotTicks;
const PlotTicks *plot_axes_get_xticks(const PlotAxes *axes);
const PlotTicks *plot_axes_get_yticks(const PlotAxes *axes);

/* After layout: the panel's data rectangle on the page, in points (x, y of
 * its top-left corner). */
gboolean plot_axes_get_area(const PlotAxes *axes, double *x, double *y, double *width,
                            double *height);

/* After layout: the legend box on the page, in points (x, y of its top-left
 * corner), where it is drawn. FALSE when the panel has no legend (none
 * asked, no labelled series) or before layout. */
gboolean plot_axes_get_legend_box(const PlotAxes *axes, double *x, double *y, double *width,
                                  double *height);

/* After layout: the figure title's lines as drawn (NULL-terminated, owned by
 * the figure, valid until it changes); NULL without a title or before
 * layout. A title wider than the page breaks at the end of a phrase (after
 * "; ", then ": ", then ", " or before "(") that leaves the line at least
 * half full, else between words. */
const char *const *plot_figure_get_title_lines(const PlotFigure *fig);

/*
 * plot_axes_data_to_device: the page position (points; multiply by the PNG
 * scale for pixels) of data point (x, y). Linear axes map affinely, log axes
 * affinely in log10, so each decade takes the same length. FALSE before
 * layout or when the point is not drawable (non-finite, non-positive on a
 * log axis). Points outside the limits map outside the area. O(1).
 */
gboolean plot_axes_data_to_device(const PlotAxes *axes, double x, double y, double *px, double *py);

/* ===================================================================== */
/* Ticks                                                                  */
/* ===================================================================== */

/*
 * Ticks of one axis. Labels are UTF-8 with U+2212 as minus sign; a '^'
 * splits a label into a base and a superscript ("10^−2" is 10 to the -2,
 * "2×10^6" is 2 times 10 to the 6).
 */
struct PlotTicks {
  double lo, hi; /* the nice range: the input range rounded outwards to major ticks */
  gsize n_major;
  double *major; /* increasing */
  char **labels; /* n_major labels */
  gsize n_minor;
  double *minor; /* increasing, unlabelled (log axes only) */
};

/*
 * plot_ticks_compute: major ticks for [lo, hi] (lo < hi).
 * Linear: multiples of the smallest step in 1, 2, 5 x 10^k giving at most
 *    max_ticks ticks; labels with as many decimals as the step needs,
 *    scientific ("2×10^6") when the ticks reach 10^6 or the step is below
 *    10^-3. No minor ticks.
 * Log10: every s-th decade, s the smallest of 1, 2, 3, 5, 10, 20, ... giving
 *    at most max_ticks ticks, labelled "10^k"; minor ticks at 2..9 x 10^k
 *    (s = 1) or at the skipped decades. When fewer than two decades fall
 *    inside [lo, hi] (loose = FALSE), the values 1, 2, 5 x 10^k are tried,
 *    then linear ticks.
 * loose: TRUE counts the ticks of the nice range [ticks->lo, ticks->hi] and
 *    returns those (for limits to be rounded out); FALSE returns the ticks
 *    inside [lo, hi] (relative tolerance 1e-9 of the span).
 * ticks: filled in; release with plot_ticks_clear.
 * Errors: PLOT_ERROR_INVALID_ARGUMENT for non-finite bounds, lo >= hi,
 *    a non-positive bound on log, max_ticks < 2 or > 1000.
 * Complexity: O(max_ticks + decades spanned).
 */
gboolean plot_ticks_compute(PlotScale scale, double lo, double hi, guint max_ticks, gboolean loose,
                            PlotTicks *ticks, GError **error);

/* plot_ticks_clear: free the arrays of ticks and zero it (NULL allowed). */
void plot_ticks_clear(PlotTicks *ticks);

G_END_DECLS

#endif /* DPG_PLOT_H */
