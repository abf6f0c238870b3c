/* tests/plot/test_clip.c: geometry clipping (internal) and what it buys:
 * far-away points, legend placement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot/internal.h"
#include "tests/common/tolerance.h"

static void test_segment(void) {
  double x0, y0, x1, y1;
  /* Inside: untouched. */
  x0 = 1, y0 = 1, x1 = 2, y1 = 3;
  g_assert_true(plot_clip_segment(&x0, &y0, &x1, &y1, 0, 0, 4, 4));
  g_assert_cmpfloat(x0, ==, 1);
  g_assert_cmpfloat(y1, ==, 3);
  /* Crossing two sides: y = x from (-2,-2) to (6,6) -> (0,0)-(4,4). */
  x0 = -2, y0 = -2, x1 = 6, y1 = 6;
  g_assert_true(plot_clip_segment(&x0, &y0, &x1, &y1, 0, 0, 4, 4));
  g_assert_cmpfloat(x0, ==, 0);
  g_assert_cmpfloat(y0, ==, 0);
  g_assert_cmpfloat(x1, ==, 4);
  g_assert_cmpfloat(y1, ==, 4);
  /* One end far away (1e300): the kept part has the exact slope 1/2. */
  x0 = 1, y0 = 1, x1 = 1e300, y1 = 0.5e300;
  g_assert_true(plot_clip_segment(&x0, &y0, &x1, &y1, 0, 0, 4, 4));
  /* A few flops (a ratio, a product, a sum) on the box's values <= 4. */
  dpg_test_assert_le(fabs(x1 - 4), dpg_tol(1, 8) * 4, "a few flops on values <= 4");
  dpg_test_assert_le(fabs(y1 - 2.5), dpg_tol(1, 8) * 4, "a few flops on values <= 4");
  /* Outside, and parallel outside. */
  x0 = 5, y0 = 0, x1 = 6, y1 = 4;
  g_assert_false(plot_clip_segment(&x0, &y0, &x1, &y1, 0, 0, 4, 4));
  x0 = -1, y0 = 5, x1 = 5, y1 = 5;
  g_assert_false(plot_clip_segment(&x0, &y0, &x1, &y1, 0, 0, 4, 4));
  /* Corner cut: (3,-1)-(5,1) misses [0,4]^2 only just? it passes (4,0). */
  x0 = 3, y0 = -1, x1 = 5, y1 = 1;
  g_assert_true(plot_clip_segment(&x0, &y0, &x1, &y1, 0, 0, 4, 4));
  g_assert_cmpfloat(x0, ==, 4);
  g_assert_cmpfloat(y0, ==, 0);
  g_assert_cmpfloat(x1, ==, 4);
}

static double area(const double *xy, gsize n) {
  double a = 0;
  for (gsize i = 0; i < n; i++) {
    gsize j = (i + 1) % n;
    a += xy[2 * i] * xy[2 * j + 1] - xy[2 * j] * xy[2 * i + 1];
  }
  return fabs(a) / 2;
}

static void test_polygon(void) {
  /* Square [-1, 3]^2 against [0, 2]^2: the clip square, area 4. */
  const double sq[8] = {-1, -1, 3, -1, 3, 3, -1, 3};
  gsize m;
  double *out = plot_clip_polygon(sq, 4, 0, 0, 2, 2, &m);
  g_assert_nonnull(out);
  /* The shoelace sum of m cross products of coordinates <= 2 (vertices a
   * few flops each): (8 + m) eps x sum |terms| <= 4 m. */
  dpg_test_assert_le(fabs(area(out, m) - 4), dpg_tol(1, 8.0 + m) * 4 * m,
                     "a shoelace sum of m terms <= 4 of a few flops each");
  g_free(out);
  /* A band-like (non-convex) polygon: lo = 0, hi = 1 + x along x in
   * [-1, 3], clipped to [0, 2] x [0, 2]: area of {0<=x<=2, 0<=y<=min(2,
   * 1+x)} = 1.5 + 2 = 3.5 (triangle-trapezoid). */
  const double band[12] = {-1, 0, 1, 0, 3, 0, 3, 4, 1, 2, -1, 0};
  out = plot_clip_polygon(band, 6, 0, 0, 2, 2, &m);
  g_assert_nonnull(out);
  dpg_test_assert_le(fabs(area(out, m) - 3.5), dpg_tol(1, 8.0 + m) * 4 * m,
                     "a shoelace sum of m terms <= 4 of a few flops each");
  g_free(out);
  /* Entirely outside. */
  const double far[6] = {5, 5, 6, 5, 6, 6};
  g_assert_null(plot_clip_polygon(far, 3, 0, 0, 2, 2, &m));
  g_assert_cmpuint(m, ==, 0);
}

/* Numbers in an SVG path's d attribute. */
static GArray *numbers(const char *d) {
  GArray *a = g_array_new(FALSE, FALSE, sizeof(double));
  const char *p = d;
  while (*p) {
    if (*p == '-' || g_ascii_isdigit(*p)) {
      char *end;
      double v = g_ascii_strtod(p, &end);
      g_array_append_val(a, v);
      p = end;
    } else {
      p++;
    }
  }
  return a;
}

/* d of the first path element (outside <defs>) whose style holds needle. */
static char *find_path(GBytes *svg, const char *needle) {
  gsize len;
  char *doc = g_strndup(g_bytes_get_data(svg, &len), g_bytes_get_size(svg));
  char *body = strstr(doc, "</defs>");
  g_assert_nonnull(body);
  char *hit = strstr(body, needle);
  g_assert_nonnull(hit);
  char *d = strstr(hit, " d=\"");
  g_assert_nonnull(d);
  d += 4;
  char *out = g_strndup(d, (gsize)(strchr(d, '"') - d));
  g_free(doc);
  return out;
}

/* cairo writes SVG coordinates in 1/256 pt steps (its 24.8 fixed point),
 * printed with %f (6 decimals): a formatting tolerance of half a step plus
 * half the last decimal. */
#define CAIRO_HALF_STEP (1.0 / 512 + 0.5e-6)

static void test_far_points(void) {
  PlotFigure *fig = plot_figure_new(300, 200, 1, 1, NULL);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  g_assert_true(plot_axes_set_xlim(ax, 0, 10, NULL));
  g_assert_true(plot_axes_set_ylim(ax, 0, 10, NULL));
  /* From (5, 5) towards (1e300, 1e300): slope 1, leaves through the top
   * right corner; a band and bars reaching 1e300 as well. */
  const double x[2] = {5, 1e300}, y[2] = {5, 1e300};
  g_assert_true(plot_axes_add_line(ax, NULL, 2, x, y, &(PlotStyle){.width = 2.5}, NULL));
  const double bx[2] = {2, 4}, blo[2] = {-1e300, 1}, bhi[2] = {1e300, 2};
  g_assert_true(plot_axes_add_band(ax, NULL, 2, bx, blo, bhi, NULL, NULL));
  g_assert_true(
      plot_axes_add_errorbars(ax, NULL, 2, bx, blo, bhi, &(PlotStyle){.width = 0.7}, NULL));
  GBytes *svg = plot_figure_render(fig, PLOT_FORMAT_SVG, NULL);
  g_assert_nonnull(svg);
  double px0, py0, px1, py1;
  g_assert_true(plot_axes_data_to_device(ax, 5, 5, &px0, &py0));
  g_assert_true(plot_axes_data_to_device(ax, 10, 10, &px1, &py1));
  const char *styles[3] = {"stroke-width:2.5;", "fill-opacity:0.2;", "stroke-width:0.7;"};
  for (int k = 0; k < 3; k++) {
    char *d = find_path(svg, styles[k]);
    GArray *v = numbers(d);
    g_assert_cmpuint(v->len, >=, 4);
    for (guint i = 0; i < v->len; i++) { /* all within the page, give or take the margin */
      g_assert_cmpfloat(g_array_index(v, double, i), >, -20);
      g_assert_cmpfloat(g_array_index(v, double, i), <, 320);
    }
    if (k == 0) {
      /* The visible direction is the data's (cairo writes coordinates in
       * 1/256 pt steps, hence the tolerances). */
      double x0 = g_array_index(v, double, 0), y0 = g_array_index(v, double, 1);
      double x1 = g_array_index(v, double, 2), y1 = g_array_index(v, double, 3);
      const char *why = "formatting: cairo's 1/256 pt steps printed with %f";
      dpg_test_assert_le(fabs(x0 - px0), CAIRO_HALF_STEP, why);
      dpg_test_assert_le(fabs(y0 - py0), CAIRO_HALF_STEP, why);
      /* Each end off by <= q in x and y: the slope by <= 2q (1 + |s|) / |dx|
       * to first order. */
      double s = (py1 - py0) / (px1 - px0);
      dpg_test_assert_le(fabs((y1 - y0) / (x1 - x0) - s),
                         2 * CAIRO_HALF_STEP * (1 + fabs(s)) / fabs(x1 - x0),
                         "formatting: both ends within cairo's half step, 2q (1 + |s|) / |dx|");
      g_assert_cmpfloat(x1, >, px1); /* runs past the corner into the margin */
    }
    g_array_unref(v);
    g_free(d);
  }
  g_bytes_unref(svg);
  plot_figure_free(fig);
}

static void test_legend_best(void) {
  /* Data crowd the upper half: BEST must put the legend in the lower left
   * (lower corners are tried after the upper ones, left before right). */
  PlotFigure *fig = plot_figure_new(300, 200, 1, 1, NULL);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  g_assert_true(plot_axes_set_xlim(ax, 0, 10, NULL));
  g_assert_true(plot_axes_set_ylim(ax, 0, 10, NULL));
  const double x[3] = {0, 5, 10}, y1[3] = {9, 6, 9}, y2[3] = {6, 9, 6};
  g_assert_true(plot_axes_add_line(ax, "one", 3, x, y1, NULL, NULL));
  g_assert_true(plot_axes_add_line(ax, "two", 3, x, y2, NULL, NULL));
  plot_axes_set_legend(ax, PLOT_LEGEND_BEST);
  GBytes *svg = plot_figure_render(fig, PLOT_FORMAT_SVG, NULL);
  double ax0, ay0, aw, ah;
  g_assert_true(plot_axes_get_area(ax, &ax0, &ay0, &aw, &ah));
  char *d = find_path(svg, "fill-opacity:0.9;"); /* the legend box */
  GArray *v = numbers(d);
  double bx = g_array_index(v, double, 0), by = g_array_index(v, double, 1);
  g_assert_cmpfloat(bx, <, ax0 + aw / 2);
  g_assert_cmpfloat(by, >, ay0 + ah / 2);
  g_array_unref(v);
  g_free(d);
  g_bytes_unref(svg);

  /* Explicit corners go where they are told: upper right. */
  plot_axes_set_legend(ax, PLOT_LEGEND_UPPER_RIGHT);
  svg = plot_figure_render(fig, PLOT_FORMAT_SVG, NULL);
  d = find_path(svg, "fill-opacity:0.9;");
  v = numbers(d);
  g_assert_cmpfloat(g_array_index(v, double, 0), >, ax0 + aw / 2);
  g_assert_cmpfloat(g_array_index(v, double, 1), <, ay0 + ah / 2);
  g_array_unref(v);
  g_free(d);
  g_bytes_unref(svg);
  plot_figure_free(fig);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plot/clip/segment", test_segment);
  g_test_add_func("/plot/clip/polygon", test_polygon);
  g_test_add_func("/plot/clip/far-points", test_far_points);
  g_test_add_func("/plot/clip/legend-best", test_legend_best);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
