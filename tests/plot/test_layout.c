/* tests/plot/test_layout.c: limits, data->page mapping and panel geometry. */
#include <math.h>
#include <string.h>

#include "plot/plot.h"
#include "tests/common/tolerance.h"

/* Device coordinates and limits are a few flops (a subtraction, a division,
 * a product and a sum; log10 and 10^x on a log axis, padding by a fraction
 * of the span) on values of magnitude @mag: 8 roundings of @mag. */
#define FEW_FLOPS(got, want, mag)                                                                  \
  dpg_test_assert_le(fabs((got) - (want)), dpg_tol(1, 8) * (mag),                                  \
                     "a few flops on values of magnitude " #mag ": 8 roundings")

static PlotFigure *new_fig(double w, double h, guint rows, guint cols) {
  GError *err = NULL;
  PlotFigure *fig = plot_figure_new(w, h, rows, cols, &err);
  g_assert_no_error(err);
  return fig;
}

static void add_line(PlotAxes *ax, gsize n, const double *x, const double *y) {
  GError *err = NULL;
  g_assert_true(plot_axes_add_line(ax, NULL, n, x, y, NULL, &err));
  g_assert_no_error(err);
}

static void layout_ok(PlotFigure *fig) {
  GError *err = NULL;
  g_assert_true(plot_figure_layout(fig, &err));
  g_assert_no_error(err);
}

static void test_linear_mapping(void) {
  PlotFigure *fig = new_fig(400, 300, 1, 1);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  g_assert_true(plot_axes_set_xlim(ax, 0, 10, NULL));
  g_assert_true(plot_axes_set_ylim(ax, -1, 1, NULL));
  double px, py;
  g_assert_false(plot_axes_data_to_device(ax, 1, 1, &px, &py)); /* not laid out */
  layout_ok(fig);
  double x, y, w, h;
  g_assert_true(plot_axes_get_area(ax, &x, &y, &w, &h));
  /* The area is inside the page, with room for labels on the left/bottom. */
  g_assert_cmpfloat(x, >, 10);
  g_assert_cmpfloat(y, >, 0);
  g_assert_cmpfloat(x + w, <, 400);
  g_assert_cmpfloat(y + h, <, 290);
  g_assert_cmpfloat(w, >, 300);
  g_assert_cmpfloat(h, >, 220);

  g_assert_true(plot_axes_data_to_device(ax, 0, -1, &px, &py));
  g_assert_cmpfloat(px, ==, x);
  g_assert_cmpfloat(py, ==, y + h);
  g_assert_true(plot_axes_data_to_device(ax, 10, 1, &px, &py));
  FEW_FLOPS(px, x + w, fabs(x) + 2 * w);
  FEW_FLOPS(py, y, fabs(y) + 2 * h);
  g_assert_true(plot_axes_data_to_device(ax, 2.5, 0, &px, &py));
  FEW_FLOPS(px, x + w / 4, fabs(x) + 2 * w);
  FEW_FLOPS(py, y + h / 2, fabs(y) + 2 * h);
  /* Outside the limits maps outside the area, affinely. */
  g_assert_true(plot_axes_data_to_device(ax, 20, 3, &px, &py));
  FEW_FLOPS(px, x + 2 * w, fabs(x) + 2 * w);
  FEW_FLOPS(py, y - h, fabs(y) + 2 * h);
  g_assert_false(plot_axes_data_to_device(ax, NAN, 0, &px, &py));
  g_assert_false(plot_axes_data_to_device(ax, 0, INFINITY, &px, &py));

  double lo, hi;
  g_assert_true(plot_axes_get_xlim(ax, &lo, &hi));
  g_assert_cmpfloat(lo, ==, 0);
  g_assert_cmpfloat(hi, ==, 10);
  /* Ticks of the explicit range: 0, 2, ..., 10 along 300+ pt. */
  const PlotTicks *xt = plot_axes_get_xticks(ax);
  g_assert_nonnull(xt);
  g_assert_cmpfloat(xt->major[0], ==, 0);
  g_assert_cmpfloat(xt->major[xt->n_major - 1], ==, 10);

  /* Any change invalidates the layout. */
  plot_axes_set_title(ax, "t");
  g_assert_false(plot_axes_get_xlim(ax, &lo, &hi));
  g_assert_null(plot_axes_get_xticks(ax));
  plot_figure_free(fig);
}

static void test_log_mapping(void) {
  PlotFigure *fig = new_fig(400, 300, 1, 1);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  plot_axes_set_yscale(ax, PLOT_SCALE_LOG10);
  plot_axes_set_xscale(ax, PLOT_SCALE_LOG10);
  g_assert_true(plot_axes_set_ylim(ax, 1e-3, 1e2, NULL));
  g_assert_true(plot_axes_set_xlim(ax, 1, 1e4, NULL));
  layout_ok(fig);
  double x, y, w, h, px, py;
  g_assert_true(plot_axes_get_area(ax, &x, &y, &w, &h));
  /* Each decade takes exactly 1/5 of the height and 1/4 of the width. */
  const double ys[6] = {1e-3, 1e-2, 1e-1, 1, 10, 100};
  for (int k = 0; k < 6; k++) {
    g_assert_true(plot_axes_data_to_device(ax, 10, ys[k], &px, &py));
    FEW_FLOPS(py, y + h - k * h / 5, fabs(y) + 2 * h);
    FEW_FLOPS(px, x + w / 4, fabs(x) + 2 * w);
  }
  /* sqrt(10) sits mid-decade. */
  g_assert_true(plot_axes_data_to_device(ax, sqrt(10.0), sqrt(10.0) * 1e-3, &px, &py));
  FEW_FLOPS(px, x + w / 8, fabs(x) + 2 * w);
  FEW_FLOPS(py, y + h - h / 10, fabs(y) + 2 * h);
  /* Non-positive values are not drawable on log. */
  g_assert_false(plot_axes_data_to_device(ax, 10, 0, &px, &py));
  g_assert_false(plot_axes_data_to_device(ax, -1, 1, &px, &py));

  const PlotTicks *yt = plot_axes_get_yticks(ax);
  g_assert_cmpuint(yt->n_major, ==, 6);
  g_assert_cmpfloat(yt->major[0], ==, 1e-3);
  g_assert_cmpuint(yt->n_minor, ==, 40);
  plot_figure_free(fig);
}

static void test_autoscale(void) {
  PlotFigure *fig = new_fig(400, 300, 1, 1);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  const double x[6] = {1, 2, 3, 4, 5, 6};
  const double y[6] = {3, 97, 50, 20, 80, 10};
  add_line(ax, 6, x, y);
  layout_ok(fig);
  double lo, hi;
  /* Default PAD: 5% of the span each side. */
  g_assert_true(plot_axes_get_xlim(ax, &lo, &hi));
  FEW_FLOPS(lo, 0.75, 6.25 + 5);
  FEW_FLOPS(hi, 6.25, 6.25 + 5);
  g_assert_true(plot_axes_get_ylim(ax, &lo, &hi));
  FEW_FLOPS(lo, 3 - 4.7, 97 + 4.7 + 94);
  FEW_FLOPS(hi, 97 + 4.7, 97 + 4.7 + 94);
  const PlotTicks *xt = plot_axes_get_xticks(ax);
  g_assert_cmpuint(xt->n_major, ==, 6); /* 1, 2, ..., 6 */
  g_assert_cmpfloat(xt->major[0], ==, 1);

  /* NICE: rounded out to the enclosing ticks. */
  plot_axes_set_yautoscale(ax, PLOT_AUTOSCALE_NICE);
  layout_ok(fig);
  g_assert_true(plot_axes_get_ylim(ax, &lo, &hi));
  g_assert_cmpfloat(lo, ==, 0);
  g_assert_cmpfloat(hi, ==, 100);
  const PlotTicks *yt = plot_axes_get_yticks(ax);
  g_assert_cmpfloat(yt->major[0], ==, 0);
  g_assert_cmpfloat(yt->major[yt->n_major - 1], ==, 100);

  /* One explicit bound, the other automatic. */
  g_assert_true(plot_axes_set_ylim(ax, NAN, 200, NULL));
  layout_ok(fig);
  g_assert_true(plot_axes_get_ylim(ax, &lo, &hi));
  g_assert_cmpfloat(lo, ==, 0);
  g_assert_cmpfloat(hi, ==, 200);
  plot_figure_free(fig);

  /* Log NICE: [1e-3, 20] -> decades [1e-3, 1e2]; log PAD: 5% of 4 decades. */
  fig = new_fig(400, 300, 1, 1);
  ax = plot_figure_axes(fig, 0, 0);
  plot_axes_set_yscale(ax, PLOT_SCALE_LOG10);
  plot_axes_set_yautoscale(ax, PLOT_AUTOSCALE_NICE);
  const double ly[3] = {1e-3, 0.5, 20};
  add_line(ax, 3, x, ly);
  layout_ok(fig);
  g_assert_true(plot_axes_get_ylim(ax, &lo, &hi));
  g_assert_cmpfloat(lo, ==, 1e-3);
  g_assert_cmpfloat(hi, ==, 100);
  plot_axes_set_yautoscale(ax, PLOT_AUTOSCALE_PAD);
  const double ly2[3] = {1e-3, 0.5, 10};
  plot_figure_free(fig);
  fig = new_fig(400, 300, 1, 1);
  ax = plot_figure_axes(fig, 0, 0);
  plot_axes_set_yscale(ax, PLOT_SCALE_LOG10);
  add_line(ax, 3, x, ly2);
  layout_ok(fig);
  g_assert_true(plot_axes_get_ylim(ax, &lo, &hi));
  /* Padded in decades, then 10^x and our log10 back: values <= 4 decades. */
  FEW_FLOPS(log10(lo), -3.2, 4 + 4);
  FEW_FLOPS(log10(hi), 1.2, 4 + 4);
  plot_figure_free(fig);
}

static void test_skipped_points(void) {
  PlotFigure *fig = new_fig(400, 300, 1, 1);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  plot_axes_set_yscale(ax, PLOT_SCALE_LOG10);
  plot_axes_set_xautoscale(ax, PLOT_AUTOSCALE_NICE);
  plot_axes_set_yautoscale(ax, PLOT_AUTOSCALE_NICE);
  /* NaN, inf and non-positive y are skipped with their x: the x range is
   * that of the drawable points only. */
  const double x[6] = {-50, 1, NAN, 3, 4, 70};
  const double y[6] = {1, 0.01, 5, INFINITY, 2, -3};
  add_line(ax, 6, x, y);
  /* A band's non-positive low end does not count either, its high end does. */
  const double bx[2] = {1, 4}, blo[2] = {0, -1}, bhi[2] = {0.5, 50};
  g_assert_true(plot_axes_add_band(ax, NULL, 2, bx, blo, bhi, NULL, NULL));
  layout_ok(fig);
  double lo, hi;
  g_assert_true(plot_axes_get_xlim(ax, &lo, &hi));
  g_assert_cmpfloat(lo, ==, -50); /* data [-50, 4]: step 10 fits the width */
  g_assert_cmpfloat(hi, ==, 10);  /* x = 70 (with y = -3) was skipped */
  g_assert_true(plot_axes_get_ylim(ax, &lo, &hi));
  g_assert_cmpfloat(lo, ==, 0.01);
  g_assert_cmpfloat(hi, ==, 100);
  plot_figure_free(fig);
}

static void test_log_errors(void) {
  GError *err = NULL;
  PlotFigure *fig = new_fig(400, 300, 1, 2);
  PlotAxes *ax = plot_figure_axes(fig, 0, 1);
  plot_axes_set_yscale(ax, PLOT_SCALE_LOG10);
  const double x[3] = {1, 2, 3}, y[3] = {0, -1, NAN};
  add_line(ax, 3, x, y);
  g_assert_false(plot_figure_layout(fig, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_DATA);
  g_assert_nonnull(strstr(err->message, "panel (row 0, col 1)"));
  g_assert_nonnull(strstr(err->message, "y axis is logarithmic"));
  g_assert_nonnull(strstr(err->message, "no plotted value is positive"));
  g_clear_error(&err);
  g_assert_false(plot_axes_get_ylim(ax, NULL, NULL));
  /* Explicit limits make it drawable (an empty-looking panel). */
  g_assert_true(plot_axes_set_ylim(ax, 1e-2, 1, NULL));
  layout_ok(fig);
  /* A non-positive explicit limit on log is an error at layout. */
  g_assert_true(plot_axes_set_ylim(ax, -1, 1, NULL));
  g_assert_false(plot_figure_layout(fig, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_DATA);
  g_assert_nonnull(strstr(err->message, "not positive"));
  g_clear_error(&err);
  /* Bad limits are refused at once. */
  g_assert_false(plot_axes_set_ylim(ax, 2, 1, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(plot_axes_set_xlim(ax, 0, INFINITY, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  plot_figure_free(fig);
}

static void test_extreme_ranges(void) {
  GError *err = NULL;
  /* A span that overflows a double cannot be drawn: an error, no crash. */
  PlotFigure *fig = new_fig(300, 200, 1, 1);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  const double x[2] = {0, 1}, y[2] = {-1e308, 1e308};
  add_line(ax, 2, x, y);
  g_assert_false(plot_figure_layout(fig, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_DATA);
  g_assert_nonnull(strstr(err->message, "y axis range"));
  g_clear_error(&err);
  /* On log the same values are fine: 616 decades, log-spaced ticks. */
  plot_axes_set_yscale(ax, PLOT_SCALE_LOG10);
  const double y2[2] = {1e-300, 1e300};
  add_line(ax, 2, x, y2);
  layout_ok(fig);
  const PlotTicks *yt = plot_axes_get_yticks(ax);
  g_assert_cmpuint(yt->n_major, >=, 2);
  g_assert_cmpfloat(yt->major[0], >=, 1e-300 * 0.99);
  plot_figure_free(fig);
  PlotTicks t;
  g_assert_false(plot_ticks_compute(PLOT_SCALE_LINEAR, -1e308, 1e308, 8, FALSE, &t, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
}

static void test_empty_and_degenerate(void) {
  PlotFigure *fig = new_fig(300, 200, 1, 2);
  PlotAxes *a0 = plot_figure_axes(fig, 0, 0), *a1 = plot_figure_axes(fig, 0, 1);
  plot_axes_set_yscale(a1, PLOT_SCALE_LOG10);
  /* A legend-only entry is no data. */
  g_assert_true(plot_axes_add_line(a1, "legend only", 0, NULL, NULL, NULL, NULL));
  layout_ok(fig);
  double lo, hi;
  g_assert_true(plot_axes_get_xlim(a0, &lo, &hi));
  g_assert_cmpfloat(lo, ==, 0);
  g_assert_cmpfloat(hi, ==, 1);
  g_assert_true(plot_axes_get_ylim(a1, &lo, &hi));
  g_assert_cmpfloat(lo, ==, 1);
  g_assert_cmpfloat(hi, ==, 10);
  /* A single point opens a range around itself: +-10% (0: +-1), then pads. */
  const double x[1] = {5}, y[1] = {0};
  add_line(a0, 1, x, y);
  layout_ok(fig);
  g_assert_true(plot_axes_get_xlim(a0, &lo, &hi));
  FEW_FLOPS(lo, 4.5 - 0.05, 5.55 + 1);
  FEW_FLOPS(hi, 5.5 + 0.05, 5.55 + 1);
  g_assert_true(plot_axes_get_ylim(a0, &lo, &hi));
  FEW_FLOPS(lo, -1.1, 1.1 + 2);
  FEW_FLOPS(hi, 1.1, 1.1 + 2);
  plot_figure_free(fig);
}

static void test_grid_geometry(void) {
  PlotFigure *fig = new_fig(600, 400, 2, 3);
  plot_figure_set_title(fig, "Sweep");
  g_assert_null(plot_figure_axes(fig, 2, 0));
  g_assert_null(plot_figure_axes(fig, 0, 3));
  const double x[2] = {0, 1e6}, y[2] = {0, 123456};
  /* Wide tick labels in one panel only: its whole column moves right. */
  add_line(plot_figure_axes(fig, 1, 1), 2, x, y);
  plot_axes_set_ylabel(plot_figure_axes(fig, 0, 0), "loss");
  plot_axes_set_title(plot_figure_axes(fig, 0, 2), "panel title");
  layout_ok(fig);
  double ax[6], ay[6], aw[6], ah[6];
  for (guint r = 0; r < 2; r++)
    for (guint c = 0; c < 3; c++) {
      guint i = r * 3 + c;
      g_assert_true(
          plot_axes_get_area(plot_figure_axes(fig, r, c), &ax[i], &ay[i], &aw[i], &ah[i]));
      /* Inside its cell. */
      g_assert_cmpfloat(ax[i], >, c * 200.0);
      g_assert_cmpfloat(ax[i] + aw[i], <, (c + 1) * 200.0);
      g_assert_cmpfloat(ay[i] + ah[i], <, 400.0);
      g_assert_cmpfloat(aw[i], >, 60);
      g_assert_cmpfloat(ah[i], >, 60);
    }
  for (guint c = 0; c < 3; c++) { /* columns aligned */
    g_assert_cmpfloat(ax[c], ==, ax[3 + c]);
    g_assert_cmpfloat(aw[c], ==, aw[3 + c]);
  }
  for (guint r = 0; r < 2; r++) /* rows aligned */
    for (guint c = 1; c < 3; c++) {
      g_assert_cmpfloat(ay[r * 3], ==, ay[r * 3 + c]);
      g_assert_cmpfloat(ah[r * 3], ==, ah[r * 3 + c]);
    }
  g_assert_cmpfloat(ay[3], >, ay[0] + ah[0]); /* rows do not overlap */
  /* Column 1's left margin holds "1.2×10^5"-like labels: wider than col 2's. */
  g_assert_cmpfloat(ax[1] - 200, >, ax[2] - 400 + 10);
  /* The figure title pushes row 0 down. */
  g_assert_cmpfloat(ay[0], >, 15);

  /* x labels never overlap: consecutive labels' centres are far apart. */
  const PlotTicks *xt = plot_axes_get_xticks(plot_figure_axes(fig, 1, 1));
  g_assert_cmpuint(xt->n_major, >=, 2);
  g_assert_cmpuint(xt->n_major, <=, 4);
  plot_figure_free(fig);

  /* Too small for its panels: the first row, then (rows tall enough) the
   * first column, that would keep too little plot is named. */
  GError *err = NULL;
  fig = new_fig(60, 40, 3, 3);
  g_assert_false(plot_figure_layout(fig, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "too small for 3 x 3 panels: row 0 would get"));
  g_assert_true(g_str_has_suffix(err->message, "pt of plot height"));
  g_clear_error(&err);
  plot_figure_free(fig);
  fig = new_fig(60, 600, 3, 3);
  g_assert_false(plot_figure_layout(fig, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "too small for 3 x 3 panels: column 0 would get"));
  g_assert_true(g_str_has_suffix(err->message, "pt of plot width"));
  g_clear_error(&err);
  plot_figure_free(fig);
}

static void test_argument_errors(void) {
  GError *err = NULL;
  g_assert_null(plot_figure_new(5, 100, 1, 1, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(plot_figure_new(100, 100, 0, 1, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(plot_figure_new(NAN, 100, 1, 1, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);

  PlotFigure *fig = new_fig(100, 100, 1, 1);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  const double v[2] = {1, 2};
  g_assert_false(plot_axes_add_line(ax, "x", 2, v, NULL, NULL, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "'x'"));
  g_clear_error(&err);
  g_assert_false(plot_axes_add_band(ax, NULL, 2, v, v, NULL, NULL, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(plot_axes_add_line(NULL, NULL, 2, v, v, NULL, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  PlotStyle bad = {.width = -1};
  g_assert_false(plot_axes_add_line(ax, NULL, 2, v, v, &bad, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  bad = (PlotStyle){.color = {1.5, 0, 0, 1}};
  g_assert_false(plot_axes_add_errorbars(ax, NULL, 2, v, v, v, &bad, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  bad = (PlotStyle){.alpha = NAN};
  g_assert_false(plot_axes_add_band(ax, NULL, 2, v, v, v, &bad, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  bad = (PlotStyle){.marker = (PlotMarker)17};
  g_assert_false(plot_axes_add_line(ax, NULL, 2, v, v, &bad, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(plot_axes_add_text(ax, 0, 0, NULL, PLOT_ANCHOR_N, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(plot_figure_set_font_size(fig, 0, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_false(plot_figure_set_png_scale(fig, 100, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  plot_figure_free(fig);
  plot_figure_free(NULL);
}

static void test_palette(void) {
  PlotColor c = plot_palette(0);
  /* Exact: the palette is byte / 255.0, the same one division. */
  g_assert_cmpfloat(c.r, ==, 0x00 / 255.0);
  g_assert_cmpfloat(c.g, ==, 0x72 / 255.0);
  g_assert_cmpfloat(c.b, ==, 0xB2 / 255.0);
  g_assert_cmpfloat(c.a, ==, 1);
  PlotColor d = plot_palette(9); /* cycles after 8 */
  PlotColor e = plot_palette(1);
  g_assert_true(memcmp(&d, &e, sizeof d) == 0);
  g_assert_cmpfloat(e.r, ==, 0xD5 / 255.0); /* exact: byte / 255.0 */
  PlotColor k = plot_color_rgb(2, -1, 0.5);
  g_assert_cmpfloat(k.r, ==, 1);
  g_assert_cmpfloat(k.g, ==, 0);
  g_assert_cmpfloat(k.b, ==, 0.5);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plot/layout/linear-mapping", test_linear_mapping);
  g_test_add_func("/plot/layout/log-mapping", test_log_mapping);
  g_test_add_func("/plot/layout/autoscale", test_autoscale);
  g_test_add_func("/plot/layout/skipped-points", test_skipped_points);
  g_test_add_func("/plot/layout/log-errors", test_log_errors);
  g_test_add_func("/plot/layout/extreme-ranges", test_extreme_ranges);
  g_test_add_func("/plot/layout/empty-degenerate", test_empty_and_degenerate);
  g_test_add_func("/plot/layout/grid-geometry", test_grid_geometry);
  g_test_add_func("/plot/layout/argument-errors", test_argument_errors);
  g_test_add_func("/plot/layout/palette", test_palette);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
