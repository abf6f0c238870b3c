/* tests/plot/test_fit.c: figures fit for a paper, checked on the rendered
 * PNG: titles stay inside the page, integer ticks, hidden cells, tight
 * limits. */
#include <cairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "plot/plot.h"
#include "tests/common/files.h"
#include "tests/common/tolerance.h"

typedef struct {
  const guint8 *data;
  gsize len, pos;
} Reader;

static cairo_status_t read_bytes(void *closure, unsigned char *out, unsigned int len) {
  Reader *r = closure;
  if (r->pos + len > r->len)
    return CAIRO_STATUS_READ_ERROR;
  memcpy(out, r->data + r->pos, len);
  r->pos += len;
  return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *render_png(PlotFigure *fig) {
  GError *error = NULL;
  GBytes *png = plot_figure_render(fig, PLOT_FORMAT_PNG, &error);
  g_assert_no_error(error);
  gsize len;
  Reader r = {g_bytes_get_data(png, &len), 0, 0};
  r.len = len;
  cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_bytes, &r);
  g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
  g_bytes_unref(png);
  return s;
}

/* Whether any pixel of the rectangle [x0, x1) x [y0, y1) (pixels) is not white. */
static gboolean has_ink(cairo_surface_t *s, int x0, int y0, int x1, int y1) {
  cairo_surface_flush(s);
  const guint8 *d = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  for (int y = MAX(y0, 0); y < MIN(y1, cairo_image_surface_get_height(s)); y++)
    for (int x = MAX(x0, 0); x < MIN(x1, cairo_image_surface_get_width(s)); x++) {
      guint32 p;
      memcpy(&p, d + (gsize)y * stride + 4 * (gsize)x, 4);
      if ((p & 0xffffff) != 0xffffff)
        return TRUE;
    }
  return FALSE;
}

/* The title of the issue: a single-panel figure whose title is wider than
 * the page. Before the fix it was centred and cut at both edges ("rivacy
 * loss ... all att"); now it wraps: no ink in the page's outer 2 pt on
 * either side, and the text takes more than one line. */
static void test_long_title(void) {
  PlotFigure *fig = plot_figure_new(340, 300, 1, 1, NULL);
  plot_figure_set_title(fig,
                        "PNDP privacy loss of DP-D-SGD: T = 10, σ = 1, user level, all attackers");
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  plot_axes_set_title(ax, "a panel title that is far too long for the width of its own cell");
  const double x[3] = {1, 2, 3}, y[3] = {1, 4, 9};
  g_assert_true(plot_axes_add_line(ax, NULL, 3, x, y, NULL, NULL));
  cairo_surface_t *s = render_png(fig);
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  g_assert_false(has_ink(s, 0, 0, 4, h));
  g_assert_false(has_ink(s, w - 4, 0, w, h));
  g_assert_false(has_ink(s, 0, 0, w, 4)); /* nor above */
  /* The figure title's two lines: ink in the band of the second line
   * (points 5 + 17.8 .. 5 + 2 * 17.8 at 12 pt; 2 px per point). */
  double ax_x, ax_y;
  g_assert_true(plot_axes_get_area(ax, &ax_x, &ax_y, NULL, NULL));
  g_assert_true(has_ink(s, 0, (int)(2 * 24), w, (int)(2 * 38)));
  /* Room was made: the panel starts below two figure-title lines and the
   * panel title (line heights 1.16 x 12 and 1.16 x 11 pt). */
  g_assert_cmpfloat(ax_y, >, 5 + 2 * 13.9 + 12.8);
  cairo_surface_destroy(s);
  plot_figure_free(fig);
}

/* Integer data (hop distances) on a short axis: ticks at 1, 2, 3 only,
 * labelled without decimals, where the plain ticks have 0.5 steps. */
static void test_integer_ticks(void) {
  PlotFigure *fig = plot_figure_new(300, 200, 1, 1, NULL);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  const double x[3] = {1, 2, 3}, y[3] = {1, 2, 3};
  g_assert_true(plot_axes_add_line(ax, NULL, 3, x, y, NULL, NULL));
  g_assert_true(plot_axes_set_xlim(ax, 0.6, 3.4, NULL));
  g_assert_true(plot_figure_layout(fig, NULL));
  const PlotTicks *t = plot_axes_get_xticks(ax);
  gboolean fractional = FALSE;
  for (gsize i = 0; i < t->n_major; i++)
    fractional |= t->major[i] != round(t->major[i]);
  g_assert_true(fractional); /* without the option: 1.5, 2.5 appear */
  plot_axes_set_integer_ticks(ax, TRUE, FALSE);
  g_assert_true(plot_figure_layout(fig, NULL));
  t = plot_axes_get_xticks(ax);
  g_assert_cmpuint(t->n_major, ==, 3);
  for (gsize i = 0; i < 3; i++) {
    g_assert_cmpfloat(t->major[i], ==, (double)(i + 1));
    char want[4];
    g_snprintf(want, sizeof want, "%zu", i + 1);
    g_assert_cmpstr(t->labels[i], ==, want);
  }
  plot_figure_free(fig);
}

/* A hidden cell of a 1 x 2 grid leaves its half of the page white. */
static void test_hidden(void) {
  PlotFigure *fig = plot_figure_new(400, 200, 1, 2, NULL);
  const double x[2] = {0, 1}, y[2] = {0, 1};
  g_assert_true(plot_axes_add_line(plot_figure_axes(fig, 0, 0), NULL, 2, x, y, NULL, NULL));
  cairo_surface_t *s = render_png(fig);
  g_assert_true(has_ink(s, 400, 0, 800, 400)); /* an empty panel: axes 0 to 1 */
  cairo_surface_destroy(s);
  plot_axes_set_hidden(plot_figure_axes(fig, 0, 1), TRUE);
  s = render_png(fig);
  g_assert_false(has_ink(s, 400, 0, 800, 400));
  g_assert_true(has_ink(s, 0, 0, 400, 400));
  cairo_surface_destroy(s);
  plot_figure_free(fig);
}

/* PDF by extension: a PDF of the figure's size in points, the same bytes
 * twice (cairo's creation date is fixed), written atomically by save. */
static void test_pdf(void) {
  PlotFigure *fig = plot_figure_new(340, 300, 1, 1, NULL);
  plot_figure_set_title(fig, "a title");
  const double x[3] = {1, 2, 3}, y[3] = {1, 4, 9};
  g_assert_true(plot_axes_add_line(plot_figure_axes(fig, 0, 0), "y", 3, x, y, NULL, NULL));
  GError *error = NULL;
  GBytes *a = plot_figure_render(fig, PLOT_FORMAT_PDF, &error);
  g_assert_no_error(error);
  GBytes *b = plot_figure_render(fig, PLOT_FORMAT_PDF, &error);
  g_assert_true(g_bytes_equal(a, b));
  gsize len;
  const char *d = g_bytes_get_data(a, &len);
  g_assert_true(len > 5 && memcmp(d, "%PDF-", 5) == 0);
  static const char box[] = "/MediaBox [ 0 0 340 300 ]";
  gboolean found = FALSE; /* binary streams hold NULs: no strstr */
  for (gsize i = 0; i + sizeof box - 1 <= len && !found; i++)
    found = memcmp(d + i, box, sizeof box - 1) == 0;
  g_assert_true(found);
  g_bytes_unref(a);
  g_bytes_unref(b);
  PlotFormat f;
  g_assert_true(plot_format_from_path("x/Fig.PDF", &f));
  g_assert_cmpint(f, ==, PLOT_FORMAT_PDF);
  g_assert_false(plot_format_from_path("fig.eps", &f));
  char *dir = test_tmpdir("plot-fit");
  char *path = g_build_filename(dir, "f.pdf", NULL);
  g_assert_true(plot_figure_save(fig, path, &error));
  g_assert_no_error(error);
  char *text;
  g_assert_true(g_file_get_contents(path, &text, &len, NULL));
  g_assert_true(g_str_has_prefix(text, "%PDF-"));
  g_free(text);
  g_remove(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
  plot_figure_free(fig);
}

/* Sizes: points by default, in / cm / mm converted; the range enforced. */
static void test_parse_size(void) {
  double w, h;
  g_assert_true(plot_parse_size("360x260", &w, &h, NULL));
  g_assert_cmpfloat(w, ==, 360);
  g_assert_cmpfloat(h, ==, 260);
  g_assert_true(plot_parse_size("6x4in", &w, &h, NULL));
  g_assert_cmpfloat(w, ==, 432);
  g_assert_cmpfloat(h, ==, 288);
  g_assert_true(plot_parse_size("2.54x5.08cm", &w, &h, NULL));
  /* Two parses, a product by 72 and a division by 2.54: 4 roundings. */
  dpg_test_assert_close(w, 72, dpg_tol(1, 4), "two parses, x 72, / 2.54");
  dpg_test_assert_close(h, 144, dpg_tol(1, 4), "two parses, x 72, / 2.54");
  const char *bad[] = {"", "360", "360x", "x260", "360x260px", "5x20000", "0.1x1in", "axb"};
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    GError *error = NULL;
    g_assert_false(plot_parse_size(bad[i], &w, &h, &error));
    g_assert_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(error->message, "6x4in"));
    g_error_free(error);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plot/fit/long-title", test_long_title);
  g_test_add_func("/plot/fit/integer-ticks", test_integer_ticks);
  g_test_add_func("/plot/fit/hidden", test_hidden);
  g_test_add_func("/plot/fit/pdf", test_pdf);
  g_test_add_func("/plot/fit/parse-size", test_parse_size);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
