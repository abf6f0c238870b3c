/* tests/plot/test_legend.c: what makes a figure readable: a BEST legend
 * never covers a data point (it moves right of the panel when every inside
 * place would), titles break between phrases, and the palette's first
 * colours are told apart. */
#include <math.h>
#include <string.h>

#include "plot/plot.h"

static void layout_ok(PlotFigure *fig) {
  GError *err = NULL;
  g_assert_true(plot_figure_layout(fig, &err));
  g_assert_no_error(err);
}

/* Whether any of the @n points (x[i], y[i]) is drawn inside the legend box. */
static gboolean covers(const PlotAxes *ax, gsize n, const double *x, const double *y) {
  double lx, ly, lw, lh;
  g_assert_true(plot_axes_get_legend_box(ax, &lx, &ly, &lw, &lh));
  for (gsize i = 0; i < n; i++) {
    double px, py;
    if (plot_axes_data_to_device(ax, x[i], y[i], &px, &py) && px >= lx && px <= lx + lw &&
        py >= ly && py <= ly + lh)
      return TRUE;
  }
  return FALSE;
}

/* Points in the lower left only: the legend goes inside, upper right. */
static void test_inside_when_free(void) {
  PlotFigure *fig = plot_figure_new(420, 290, 1, 1, NULL);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  double x[] = {0, 1, 2, 3, 10}, y[] = {0, 1, 0.5, 1.5, 10};
  g_assert_true(plot_axes_add_line(ax, "a series", 4, x, y, NULL, NULL));
  g_assert_true(plot_axes_add_line(ax, NULL, 1, x + 4, y + 4, NULL, NULL)); /* sets the limits */
  plot_axes_set_legend(ax, PLOT_LEGEND_BEST);
  layout_ok(fig);
  double lx, ly, lw, lh, axx, ay, aw, ah;
  g_assert_true(plot_axes_get_legend_box(ax, &lx, &ly, &lw, &lh));
  g_assert_true(plot_axes_get_area(ax, &axx, &ay, &aw, &ah));
  g_assert_cmpfloat(lx, >, axx);
  g_assert_cmpfloat(lx + lw, <, axx + aw);
  g_assert_cmpfloat(ly, <, ay + ah / 2); /* the upper half */
  g_assert_false(covers(ax, 4, x, y));
  plot_figure_free(fig);
}

/* Points over the whole panel (a 9 x 9 grid): every inside place covers
 * some, so the legend goes right of the panel and covers none. */
static void test_outside_when_full(void) {
  PlotFigure *fig = plot_figure_new(420, 290, 1, 1, NULL);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  double x[81], y[81];
  for (int i = 0; i < 81; i++)
    x[i] = i % 9, y[i] = i / 9;
  PlotStyle st = {.marker = PLOT_MARKER_CIRCLE, .marker_size = 4, .width = 0.1};
  for (int i = 0; i < 9; i++)
    g_assert_true(
        plot_axes_add_line(ax, i == 0 ? "a series" : NULL, 9, x + 9 * i, y + 9 * i, &st, NULL));
  plot_axes_set_legend(ax, PLOT_LEGEND_BEST);
  layout_ok(fig);
  double lx, ly, lw, lh, axx, ay, aw, ah;
  g_assert_true(plot_axes_get_legend_box(ax, &lx, &ly, &lw, &lh));
  g_assert_true(plot_axes_get_area(ax, &axx, &ay, &aw, &ah));
  g_assert_cmpfloat(lx, >, axx + aw);
  g_assert_cmpfloat(lx + lw, <=, 420);
  g_assert_false(covers(ax, 81, x, y));
  /* No legend, no box. */
  plot_axes_set_legend(ax, PLOT_LEGEND_NONE);
  layout_ok(fig);
  g_assert_false(plot_axes_get_legend_box(ax, &lx, &ly, &lw, &lh));
  plot_figure_free(fig);
}

/* A title too wide for the page breaks after its "; ", not inside
 * "band: 95% t-interval". */
static void test_title_phrases(void) {
  PlotFigure *fig = plot_figure_new(420, 290, 1, 1, NULL);
  plot_figure_set_title(fig, "default: test loss, mean over nodes, geometric mean over 4 "
                             "seeds; band: 95% t-interval over seeds");
  double x[] = {0, 1}, y[] = {1, 2};
  g_assert_true(plot_axes_add_line(plot_figure_axes(fig, 0, 0), NULL, 2, x, y, NULL, NULL));
  g_assert_null(plot_figure_get_title_lines(fig)); /* not laid out */
  layout_ok(fig);
  const char *const *lines = plot_figure_get_title_lines(fig);
  g_assert_nonnull(lines);
  g_assert_cmpstr(lines[0], ==,
                  "default: test loss, mean over nodes, geometric mean over 4 seeds;");
  g_assert_cmpstr(lines[1], ==, "band: 95% t-interval over seeds");
  g_assert_null(lines[2]);
  /* Narrower: the first phrase breaks at its ", " parts. */
  plot_figure_free(fig);
  fig = plot_figure_new(250, 290, 1, 1, NULL);
  plot_figure_set_title(fig, "default: test loss, mean over nodes, geometric mean over 4 "
                             "seeds; band: 95% t-interval over seeds");
  g_assert_true(plot_axes_add_line(plot_figure_axes(fig, 0, 0), NULL, 2, x, y, NULL, NULL));
  layout_ok(fig);
  lines = plot_figure_get_title_lines(fig);
  const char *want[] = {"default: test loss, mean over nodes,", "geometric mean over 4 seeds;",
                        "band: 95% t-interval over seeds", NULL};
  for (guint i = 0; want[i] || lines[i]; i++)
    g_assert_cmpstr(lines[i], ==, want[i]);
  /* A parenthesis stays with its words. */
  plot_figure_set_title(fig, "erdos:n=30,p=0.15,seed=3,connected=true (30 nodes)");
  layout_ok(fig);
  lines = plot_figure_get_title_lines(fig);
  g_assert_cmpstr(lines[0], ==, "erdos:n=30,p=0.15,seed=3,connected=true");
  g_assert_cmpstr(lines[1], ==, "(30 nodes)");
  g_assert_null(lines[2]);
  plot_figure_free(fig);
}

/* CIELAB (D65) of an sRGB colour, to measure the palette by eye's distance. */
static void lab(const PlotColor *c, double out[3]) {
  double rgb[3] = {c->r, c->g, c->b}, lin[3];
  for (int i = 0; i < 3; i++)
    lin[i] = rgb[i] <= 0.04045 ? rgb[i] / 12.92 : pow((rgb[i] + 0.055) / 1.055, 2.4);
  double X = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047;
  double Y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  double Z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883;
  double f[3], v[3] = {X, Y, Z};
  for (int i = 0; i < 3; i++)
    f[i] = v[i] > 0.008856 ? cbrt(v[i]) : 7.787 * v[i] + 16.0 / 116;
  out[0] = 116 * f[1] - 16;
  out[1] = 500 * (f[0] - f[1]);
  out[2] = 200 * (f[1] - f[2]);
}

/* The first six colours (a figure's usual lines) differ by at least 30 in
 * CIELAB (two blues were 26 apart); all eight by at least 25. */
static void test_palette_distinct(void) {
  double l[8][3];
  for (guint i = 0; i < 8; i++) {
    PlotColor c = plot_palette(i);
    lab(&c, l[i]);
    PlotColor again = plot_palette(i + 8); /* cycles */
    g_assert_cmpfloat(again.r, ==, c.r);
  }
  for (guint i = 0; i < 8; i++)
    for (guint j = i + 1; j < 8; j++) {
      double d = sqrt(pow(l[i][0] - l[j][0], 2) + pow(l[i][1] - l[j][1], 2) +
                      pow(l[i][2] - l[j][2], 2));
      if (d < (j < 6 ? 30 : 25))
        g_error("palette colours %u and %u differ by %.1f in CIELAB", i, j, d);
    }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plot/legend/inside-when-free", test_inside_when_free);
  g_test_add_func("/plot/legend/outside-when-full", test_outside_when_full);
  g_test_add_func("/plot/title/phrases", test_title_phrases);
  g_test_add_func("/plot/palette/distinct", test_palette_distinct);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
