/* tests/plot/test_output.c: SVG and PNG output, determinism, atomic saves. */
#include <cairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "plot/plot.h"
#include "tests/common/files.h"
#include "tests/common/tolerance.h"

/* ---- SVG inspection with GMarkup --------------------------------------- */

typedef struct {
  int defs_depth;     /* > 0 while inside <defs> */
  guint paths;        /* <path> outside <defs> */
  guint uses;         /* <use> (glyph placements: drawn text) */
  guint symbols;      /* glyph definitions */
  guint clip_paths;   /* <clipPath> */
  GPtrArray *d_attrs; /* d of the paths outside <defs>, in order */
  GPtrArray *styles;  /* their style attribute */
  char *width, *height;
} SvgStats;

static const char *attr(const char **names, const char **values, const char *key) {
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], key) == 0)
      return values[i];
  return NULL;
}

static void svg_start(GMarkupParseContext *ctx, const char *name, const char **names,
                      const char **values, gpointer data, GError **error) {
  (void)ctx, (void)error;
  SvgStats *st = data;
  if (strcmp(name, "svg") == 0) {
    st->width = g_strdup(attr(names, values, "width"));
    st->height = g_strdup(attr(names, values, "height"));
  } else if (strcmp(name, "defs") == 0) {
    st->defs_depth++;
  } else if (strcmp(name, "path") == 0 && st->defs_depth == 0) {
    st->paths++;
    const char *d = attr(names, values, "d"), *style = attr(names, values, "style");
    g_ptr_array_add(st->d_attrs, g_strdup(d ? d : ""));
    g_ptr_array_add(st->styles, g_strdup(style ? style : ""));
  } else if (strcmp(name, "use") == 0) {
    st->uses++;
  } else if (strcmp(name, "symbol") == 0) {
    st->symbols++;
  } else if (strcmp(name, "clipPath") == 0) {
    st->clip_paths++;
  }
}

static void svg_end(GMarkupParseContext *ctx, const char *name, gpointer data, GError **error) {
  (void)ctx, (void)error;
  SvgStats *st = data;
  if (strcmp(name, "defs") == 0)
    st->defs_depth--;
}

static void svg_stats_init(SvgStats *st) {
  memset(st, 0, sizeof *st);
  st->d_attrs = g_ptr_array_new_with_free_func(g_free);
  st->styles = g_ptr_array_new_with_free_func(g_free);
}

static void svg_stats_clear(SvgStats *st) {
  g_ptr_array_unref(st->d_attrs);
  g_ptr_array_unref(st->styles);
  g_free(st->width);
  g_free(st->height);
}

/* Parse the document (fails the test if it is not well-formed XML). */
static void parse_svg(GBytes *svg, SvgStats *st) {
  static const GMarkupParser parser = {svg_start, svg_end, NULL, NULL, NULL};
  svg_stats_init(st);
  GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, st, NULL);
  GError *err = NULL;
  gsize len;
  const char *text = g_bytes_get_data(svg, &len);
  g_assert_true(g_markup_parse_context_parse(ctx, text, (gssize)len, &err));
  g_assert_true(g_markup_parse_context_end_parse(ctx, &err));
  g_assert_no_error(err);
  g_markup_parse_context_free(ctx);
  g_assert_cmpint(st->defs_depth, ==, 0);
}

static guint count_char(const char *s, char c) {
  guint n = 0;
  for (; *s; s++)
    n += *s == c;
  return n;
}

/* The path whose style contains needle (exactly one). */
static const char *path_with_style(const SvgStats *st, const char *needle) {
  const char *found = NULL;
  for (guint i = 0; i < st->styles->len; i++) {
    if (strstr(g_ptr_array_index(st->styles, i), needle)) {
      g_assert_null(found);
      found = g_ptr_array_index(st->d_attrs, i);
    }
  }
  g_assert_nonnull(found);
  return found;
}

/* ---- figures ------------------------------------------------------------ */

static PlotFigure *known_figure(gboolean grid, PlotLegendPos legend) {
  PlotFigure *fig = plot_figure_new(300, 200, 1, 1, NULL);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  plot_axes_set_grid(ax, grid);
  plot_axes_set_legend(ax, legend);
  const double x[3] = {0, 1, 2}, y[3] = {1, 3, 2}, lo[3] = {0.5, 2, 1}, hi[3] = {1.5, 4, 3};
  g_assert_true(plot_axes_add_line(ax, "mean", 3, x, y, NULL, NULL));
  g_assert_true(plot_axes_add_band(ax, "band", 3, x, lo, hi, NULL, NULL));
  g_assert_true(plot_axes_add_errorbars(ax, NULL, 3, x, lo, hi, NULL, NULL));
  return fig;
}

static GBytes *render(PlotFigure *fig, PlotFormat format) {
  GError *err = NULL;
  GBytes *b = plot_figure_render(fig, format, &err);
  g_assert_no_error(err);
  g_assert_nonnull(b);
  return b;
}

static void test_svg_structure(void) {
  /* Drawing elements outside <defs>, one per cairo stroke/fill:
   * band fill, error bars, line, frame, major ticks = 5 (linear axes have
   * no minor ticks; text is glyph <use>s, the background a <rect>). */
  PlotFigure *fig = known_figure(FALSE, PLOT_LEGEND_NONE);
  GBytes *svg = render(fig, PLOT_FORMAT_SVG);
  SvgStats st;
  parse_svg(svg, &st);
  g_assert_cmpstr(st.width, ==, "300pt");
  g_assert_cmpstr(st.height, ==, "200pt");
  g_assert_cmpuint(st.paths, ==, 5);
  /* Tick labels are drawn: glyph symbols defined and placed. */
  g_assert_cmpuint(st.symbols, >, 5);
  g_assert_cmpuint(st.uses, >=, 5 + 8); /* at least one glyph per label */
  /* The line: 3 points, one subpath. */
  const char *line = path_with_style(&st, "stroke-width:1.5;");
  g_assert_cmpuint(count_char(line, 'M'), ==, 1);
  g_assert_cmpuint(count_char(line, 'L'), ==, 2);
  svg_stats_clear(&st);
  g_bytes_unref(svg);
  plot_figure_free(fig);

  /* + grid (one path for all grid lines) = 6. */
  fig = known_figure(TRUE, PLOT_LEGEND_NONE);
  svg = render(fig, PLOT_FORMAT_SVG);
  parse_svg(svg, &st);
  g_assert_cmpuint(st.paths, ==, 6);
  svg_stats_clear(&st);
  g_bytes_unref(svg);
  plot_figure_free(fig);

  /* + legend: box (fill and stroke in one element), line sample, band
   * sample = 9 (the unlabelled error bars have no entry). */
  fig = known_figure(TRUE, PLOT_LEGEND_UPPER_LEFT);
  svg = render(fig, PLOT_FORMAT_SVG);
  parse_svg(svg, &st);
  g_assert_cmpuint(st.paths, ==, 9);
  svg_stats_clear(&st);
  g_bytes_unref(svg);
  plot_figure_free(fig);
}

/* cairo writes SVG coordinates in 1/256 pt steps (its 24.8 fixed point),
 * printed with %f (6 decimals): a formatting tolerance of half a step plus
 * half the last decimal. */
#define CAIRO_HALF_STEP (1.0 / 512 + 0.5e-6)

static void test_gaps(void) {
  PlotFigure *fig = plot_figure_new(300, 200, 1, 2, NULL);
  PlotAxes *a0 = plot_figure_axes(fig, 0, 0), *a1 = plot_figure_axes(fig, 0, 1);
  plot_axes_set_grid(a0, FALSE);
  plot_axes_set_grid(a1, FALSE);
  /* NaN splits the line in two: 2 subpaths, 1 + 2 segments. */
  const double x[5] = {0, 1, 2, 3, 4}, y[5] = {1, 2, NAN, 2, 1};
  g_assert_true(plot_axes_add_line(a0, NULL, 5, x, y, &(PlotStyle){.width = 2.5}, NULL));
  /* On log y, 0 and -1 are skipped: points 0, 3, 4 remain -> 2 subpaths,
   * the first a lone point (no segment at all): one subpath, one segment. */
  plot_axes_set_yscale(a1, PLOT_SCALE_LOG10);
  const double ly[5] = {1, 0, -1, 10, 100};
  g_assert_true(plot_axes_add_line(a1, NULL, 5, x, ly, &(PlotStyle){.width = 3.5}, NULL));
  /* A band whose low end is 0 on log reaches below the panel (cairo's clip
   * then cuts it at the frame): our own clipping stops it 8 pt below. */
  const double bx[2] = {1, 3}, blo[2] = {0, 0}, bhi[2] = {10, 10};
  g_assert_true(plot_axes_add_band(a1, NULL, 2, bx, blo, bhi, &(PlotStyle){.alpha = 0.3}, NULL));
  GBytes *svg = render(fig, PLOT_FORMAT_SVG);
  SvgStats st;
  parse_svg(svg, &st);
  double ax, ay, aw, ah, y10;
  g_assert_true(plot_axes_get_area(a1, &ax, &ay, &aw, &ah));
  g_assert_true(plot_axes_data_to_device(a1, 1, 10, NULL, &y10));
  {
    char **tok = g_strsplit_set(path_with_style(&st, "fill-opacity:0.3;"), " MLZ", -1);
    double ymin = G_MAXDOUBLE, ymax = -G_MAXDOUBLE;
    guint k = 0;
    for (char **t = tok; *t; t++) {
      if (!**t)
        continue;
      if (k++ % 2 == 1) {
        double v = g_ascii_strtod(*t, NULL);
        ymin = MIN(ymin, v);
        ymax = MAX(ymax, v);
      }
    }
    g_strfreev(tok);
    const char *why = "formatting: cairo's 1/256 pt steps printed with %f, plus a few flops";
    dpg_test_assert_le(fabs(ymin - y10), CAIRO_HALF_STEP + dpg_tol(1, 8) * 300, why);
    dpg_test_assert_le(fabs(ymax - (ay + ah + 8)), CAIRO_HALF_STEP + dpg_tol(1, 8) * 300, why);
  }
  const char *l0 = path_with_style(&st, "stroke-width:2.5;");
  g_assert_cmpuint(count_char(l0, 'M'), ==, 2);
  g_assert_cmpuint(count_char(l0, 'L'), ==, 2);
  const char *l1 = path_with_style(&st, "stroke-width:3.5;");
  g_assert_cmpuint(count_char(l1, 'M'), ==, 1);
  g_assert_cmpuint(count_char(l1, 'L'), ==, 1);
  /* Log axis: minor ticks drawn as their own path (width 0.48). */
  path_with_style(&st, "stroke-width:0.48;");
  svg_stats_clear(&st);
  g_bytes_unref(svg);
  plot_figure_free(fig);
}

static void test_deterministic(void) {
  /* Two figures built alike in one process: cairo's process-wide surface
   * counter differs between them, the output must not. */
  PlotFigure *f1 = known_figure(TRUE, PLOT_LEGEND_BEST);
  PlotFigure *f2 = known_figure(TRUE, PLOT_LEGEND_BEST);
  GBytes *a = render(f1, PLOT_FORMAT_SVG), *b = render(f2, PLOT_FORMAT_SVG);
  GBytes *c = render(f1, PLOT_FORMAT_SVG);
  g_assert_true(g_bytes_equal(a, b));
  g_assert_true(g_bytes_equal(a, c));
  gsize len;
  const char *text = g_bytes_get_data(a, &len);
  char *doc = g_strndup(text, len);
  g_assert_nonnull(strstr(doc, "id=\"surface1\""));
  g_free(doc);
  GBytes *p1 = render(f1, PLOT_FORMAT_PNG), *p2 = render(f2, PLOT_FORMAT_PNG);
  g_assert_true(g_bytes_equal(p1, p2));
  g_bytes_unref(a);
  g_bytes_unref(b);
  g_bytes_unref(c);
  g_bytes_unref(p1);
  g_bytes_unref(p2);
  plot_figure_free(f1);
  plot_figure_free(f2);
}

/* ---- PNG ---------------------------------------------------------------- */

typedef struct {
  GBytes *bytes;
  gsize pos;
} PngReader;

static cairo_status_t png_read(void *closure, unsigned char *data, unsigned int length) {
  PngReader *r = closure;
  gsize len;
  const guint8 *src = g_bytes_get_data(r->bytes, &len);
  if (r->pos + length > len)
    return CAIRO_STATUS_READ_ERROR;
  memcpy(data, src + r->pos, length);
  r->pos += length;
  return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *decode_png(GBytes *png) {
  PngReader r = {png, 0};
  cairo_surface_t *s = cairo_image_surface_create_from_png_stream(png_read, &r);
  g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
  return s;
}

/* Pixel (x, y) as 0xRRGGBB (opaque image: premultiplication is moot). */
static guint32 pixel(cairo_surface_t *s, int x, int y) {
  cairo_surface_flush(s);
  const guint8 *row = cairo_image_surface_get_data(s) + y * cairo_image_surface_get_stride(s);
  return ((const guint32 *)(const void *)row)[x] & 0xffffff;
}

static gboolean is_red(guint32 p) {
  return ((p >> 16) & 0xff) > 220 && ((p >> 8) & 0xff) < 40 && (p & 0xff) < 40;
}

static void test_png(void) {
  PlotFigure *fig = plot_figure_new(400, 300, 1, 1, NULL);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  g_assert_true(plot_axes_set_xlim(ax, 0, 10, NULL));
  g_assert_true(plot_axes_set_ylim(ax, 0, 10, NULL));
  const double x[2] = {0, 10}, y[2] = {7, 7};
  PlotStyle red = {.color = plot_color_rgb(1, 0, 0), .width = 6};
  g_assert_true(plot_axes_add_line(ax, NULL, 2, x, y, &red, NULL));
  /* Text metrics (hence the layout) are the same whatever the surface:
   * scratch image, SVG, or PNG at 2 px/pt. */
  plot_axes_set_xlabel(ax, "a label with Wide Letters");
  plot_axes_set_ylabel(ax, "another");
  double area[3][4];
  g_assert_true(plot_figure_layout(fig, NULL));
  g_assert_true(plot_axes_get_area(ax, &area[0][0], &area[0][1], &area[0][2], &area[0][3]));
  GBytes *svg = render(fig, PLOT_FORMAT_SVG);
  g_bytes_unref(svg);
  g_assert_true(plot_axes_get_area(ax, &area[1][0], &area[1][1], &area[1][2], &area[1][3]));
  GBytes *png = render(fig, PLOT_FORMAT_PNG);
  g_assert_true(plot_axes_get_area(ax, &area[2][0], &area[2][1], &area[2][2], &area[2][3]));
  for (int k = 0; k < 4; k++) {
    g_assert_cmpfloat(area[0][k], ==, area[1][k]);
    g_assert_cmpfloat(area[0][k], ==, area[2][k]);
  }
  cairo_surface_t *s = decode_png(png);
  /* Default scale 2 px/pt. */
  g_assert_cmpint(cairo_image_surface_get_width(s), ==, 800);
  g_assert_cmpint(cairo_image_surface_get_height(s), ==, 600);
  double px0, py, px1;
  g_assert_true(plot_axes_data_to_device(ax, 2, 7, &px0, &py));
  g_assert_true(plot_axes_data_to_device(ax, 8, 7, &px1, NULL));
  int row = (int)floor(py * 2), half = 6; /* 6 pt wide = 12 px: +-6 px */
  for (int col = (int)(px0 * 2); col <= (int)(px1 * 2); col += 37) {
    g_assert_true(is_red(pixel(s, col, row)));
    g_assert_true(is_red(pixel(s, col, row - half + 1)));
    g_assert_true(is_red(pixel(s, col, row + half - 1)));
    g_assert_false(is_red(pixel(s, col, row - half - 2)));
    g_assert_false(is_red(pixel(s, col, row + half + 2)));
  }
  /* Nothing red far from the line: at y = 3 in data. */
  double py3;
  g_assert_true(plot_axes_data_to_device(ax, 5, 3, NULL, &py3));
  g_assert_cmpuint(pixel(s, 400, (int)(py3 * 2)), ==, 0xffffff);
  cairo_surface_destroy(s);
  g_bytes_unref(png);

  /* A non-integral size rounds up: 101 x 51 pt at 1.5 px/pt. */
  plot_figure_free(fig);
  fig = plot_figure_new(101, 51, 1, 1, NULL);
  g_assert_true(plot_figure_set_png_scale(fig, 1.5, NULL));
  png = render(fig, PLOT_FORMAT_PNG);
  s = decode_png(png);
  g_assert_cmpint(cairo_image_surface_get_width(s), ==, 152);
  g_assert_cmpint(cairo_image_surface_get_height(s), ==, 77);
  cairo_surface_destroy(s);
  g_bytes_unref(png);
  plot_figure_free(fig);
}

/* ---- saving -------------------------------------------------------------- */

static gint cmp_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted, space-separated. */
static char *dir_listing(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *n;
  while ((n = g_dir_read_name(d)))
    g_ptr_array_add(names, g_strdup(n));
  g_dir_close(d);
  g_ptr_array_sort(names, cmp_names);
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf(s, "%s%s", i ? " " : "", (char *)g_ptr_array_index(names, i));
  g_ptr_array_unref(names);
  return g_string_free(s, FALSE);
}

static void test_save(void) {
  GError *err = NULL;
  char *dir = test_tmpdir("plot-test");
  PlotFigure *fig = known_figure(TRUE, PLOT_LEGEND_BEST);

  char *svg_path = g_build_filename(dir, "a.svg", NULL);
  char *png_path = g_build_filename(dir, "b.PNG", NULL);
  g_assert_true(plot_figure_save(fig, svg_path, &err));
  g_assert_no_error(err);
  g_assert_true(plot_figure_save(fig, png_path, &err));
  g_assert_no_error(err);
  /* The files hold exactly what render gives. */
  char *contents;
  gsize len;
  g_assert_true(g_file_get_contents(svg_path, &contents, &len, NULL));
  GBytes *want = render(fig, PLOT_FORMAT_SVG), *got = g_bytes_new_take(contents, len);
  g_assert_true(g_bytes_equal(want, got));
  g_bytes_unref(want);
  g_bytes_unref(got);
  cairo_surface_t *s = cairo_image_surface_create_from_png(png_path);
  g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint(cairo_image_surface_get_width(s), ==, 600);
  cairo_surface_destroy(s);

  /* Overwriting replaces the file. */
  g_assert_true(g_file_set_contents(svg_path, "old", -1, NULL));
  g_assert_true(plot_figure_save(fig, svg_path, &err));
  g_assert_true(g_file_get_contents(svg_path, &contents, &len, NULL));
  g_assert_true(g_str_has_prefix(contents, "<?xml"));
  g_free(contents);

  /* Unknown extension. */
  char *pdf = g_build_filename(dir, "c.eps", NULL);
  g_assert_false(plot_figure_save(fig, pdf, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_FORMAT);
  g_assert_nonnull(strstr(err->message, ".svg, .png or .pdf"));
  g_clear_error(&err);

  /* Missing folder, and a regular file used as a folder. */
  char *missing = g_build_filename(dir, "no-such-dir", "x.svg", NULL);
  g_assert_false(plot_figure_save(fig, missing, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_IO);
  g_assert_nonnull(strstr(err->message, missing));
  g_clear_error(&err);
  char *under_file = g_build_filename(svg_path, "x.svg", NULL);
  g_assert_false(plot_figure_save(fig, under_file, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_IO);
  g_clear_error(&err);

  /* The target is a directory: the temporary is written next to it, the
   * rename fails, and the temporary must be gone. */
  char *is_dir = g_build_filename(dir, "d.svg", NULL);
  g_assert_cmpint(g_mkdir(is_dir, 0755), ==, 0);
  g_assert_false(plot_figure_save(fig, is_dir, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_IO);
  g_clear_error(&err);

  /* A read-only folder (meaningless for root, who may write anyway). */
  char *ro = g_build_filename(dir, "ro", NULL);
  g_assert_cmpint(g_mkdir(ro, 0555), ==, 0);
  if (geteuid() != 0) {
    char *ro_file = g_build_filename(ro, "x.svg", NULL);
    g_assert_false(plot_figure_save(fig, ro_file, &err));
    g_assert_error(err, PLOT_ERROR, PLOT_ERROR_IO);
    g_clear_error(&err);
    g_free(ro_file);
  }
  char *ro_list = dir_listing(ro);
  g_assert_cmpstr(ro_list, ==, "");
  g_free(ro_list);
  g_chmod(ro, 0755);

  /* A figure that cannot be laid out writes nothing. */
  PlotFigure *bad = plot_figure_new(200, 100, 1, 1, NULL);
  PlotAxes *bax = plot_figure_axes(bad, 0, 0);
  plot_axes_set_xscale(bax, PLOT_SCALE_LOG10);
  const double v[2] = {-1, 0};
  g_assert_true(plot_axes_add_line(bax, NULL, 2, v, v, NULL, NULL));
  char *bad_path = g_build_filename(dir, "e.svg", NULL);
  g_assert_false(plot_figure_save(bad, bad_path, &err));
  g_assert_error(err, PLOT_ERROR, PLOT_ERROR_DATA);
  g_assert_nonnull(strstr(err->message, "x axis is logarithmic"));
  g_clear_error(&err);
  plot_figure_free(bad);

  /* Exactly the files written on purpose: no temporary left anywhere. */
  char *list = dir_listing(dir);
  g_assert_cmpstr(list, ==, "a.svg b.PNG d.svg ro");
  g_free(list);
  char *dlist = dir_listing(is_dir);
  g_assert_cmpstr(dlist, ==, "");
  g_free(dlist);

  test_rmtree(dir);
  g_free(bad_path);
  g_free(ro);
  g_free(is_dir);
  g_free(under_file);
  g_free(missing);
  g_free(pdf);
  g_free(svg_path);
  g_free(png_path);
  g_free(dir);
  plot_figure_free(fig);
}

/* ---- the paper's Figure 2, on fake data ---------------------------------- */

static PlotFigure *figure2(void) {
  PlotFigure *fig = plot_figure_new(420, 300, 1, 1, NULL);
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  plot_axes_set_yscale(ax, PLOT_SCALE_LOG10);
  plot_axes_set_xlabel(ax, "Distance to the attacker (hops)");
  plot_axes_set_ylabel(ax, "Rényi divergence (α = 2)");
  plot_axes_set_title(ax, "PNDP accounting of DP-D-SGD");
  const char *names[4] = {"Erdős–Rényi", "Facebook Ego", "PeerTube", "Florentine"};
  const int maxd[4] = {3, 7, 8, 5};
  for (int g = 0; g < 4; g++) {
    double x[8], m[8], lo[8], hi[8], xm[8], mm[8], lom[8], him[8];
    int n = maxd[g];
    for (int d = 0; d < n; d++) {
      /* Small x offsets keep the two accountings' error bars apart. */
      x[d] = d + 1 - 0.06 + 0.04 * g;
      xm[d] = x[d] + 0.02;
      m[d] = 8.0 * pow(10, -0.7 * d - 0.15 * g);
      lo[d] = m[d] * 0.5;
      hi[d] = m[d] * 1.9;
      mm[d] = d < 2 ? 10.0 : 10.0 * pow(10, -0.3 * (d - 1) - 0.1 * g);
      lom[d] = mm[d] * 0.7;
      him[d] = mm[d] * 1.3;
    }
    PlotColor c = plot_palette((guint)g);
    g_assert_true(plot_axes_add_line(ax, names[g], (gsize)n, x, m,
                                     &(PlotStyle){.color = c, .marker = PLOT_MARKER_CIRCLE}, NULL));
    g_assert_true(plot_axes_add_errorbars(ax, NULL, (gsize)n, x, lo, hi, NULL, NULL));
    g_assert_true(plot_axes_add_line(
        ax, NULL, (gsize)n, xm, mm,
        &(PlotStyle){
            .color = c, .dash = PLOT_DASH_DASHED, .marker = PLOT_MARKER_SQUARE, .marker_size = 4},
        NULL));
    g_assert_true(plot_axes_add_errorbars(ax, NULL, (gsize)n, xm, lom, him, NULL, NULL));
  }
  PlotColor k = plot_color_rgb(0, 0, 0);
  g_assert_true(
      plot_axes_add_line(ax, "our accounting", 0, NULL, NULL, &(PlotStyle){.color = k}, NULL));
  g_assert_true(plot_axes_add_line(ax, "Muffliato", 0, NULL, NULL,
                                   &(PlotStyle){.color = k, .dash = PLOT_DASH_DASHED}, NULL));
  plot_axes_set_legend(ax, PLOT_LEGEND_BEST);
  return fig;
}

static void test_figure2(void) {
  PlotFigure *fig = figure2();
  GBytes *svg = render(fig, PLOT_FORMAT_SVG);
  SvgStats st;
  parse_svg(svg, &st);
  /* grid, 4 x (2 lines + 2 marker sets + 2 bar sets), frame, major and
   * minor ticks, legend box + 6 line samples + 4 sample markers. */
  g_assert_cmpuint(st.paths, ==, 1 + 4 * 6 + 3 + 1 + 6 + 4);
  svg_stats_clear(&st);
  g_bytes_unref(svg);
  /* PLOT_EXAMPLE_DIR=/tmp keeps a copy to look at. */
  const char *keep = g_getenv("PLOT_EXAMPLE_DIR");
  if (keep) {
    char *p = g_build_filename(keep, "plot-figure2.png", NULL);
    char *q = g_build_filename(keep, "plot-figure2.svg", NULL);
    g_assert_true(plot_figure_save(fig, p, NULL));
    g_assert_true(plot_figure_save(fig, q, NULL));
    g_free(p);
    g_free(q);
  }
  plot_figure_free(fig);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plot/output/svg-structure", test_svg_structure);
  g_test_add_func("/plot/output/gaps", test_gaps);
  g_test_add_func("/plot/output/deterministic", test_deterministic);
  g_test_add_func("/plot/output/png", test_png);
  g_test_add_func("/plot/output/save", test_save);
  g_test_add_func("/plot/output/figure2", test_figure2);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
