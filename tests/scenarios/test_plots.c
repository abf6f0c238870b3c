/*
 * tests/scenarios/test_plots.c: the scenario figures, checked on what is
 * drawn: intervals that stay positive on log axes, whole-hop ticks, no empty
 * grid cells, coinciding curves all visible, attacker sets of one collusion
 * section pooled into one panel, one overlaid loss figure per sweep (a panel
 * per setting past 8 lines), an accuracy figure for classification, and
 * the [output] figure keys.
 */
#include <cairo.h>
#include <math.h>
#include <string.h>

#include "scen_test.h"
#include "scenarios/internal.h"
#include "tests/common/tolerance.h"

static void free_curve(gpointer p) {
  scen_curve_clear(p);
  g_free(p);
}

static ScenCurve *curve(const char *label, guint n, const double *x, const double *y) {
  ScenCurve *cv = g_new0(ScenCurve, 1);
  cv->label = g_strdup(label);
  cv->n = n;
  cv->x = g_memdup2(x, n * sizeof(double));
  cv->y = g_memdup2(y, n * sizeof(double));
  return cv;
}

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

static cairo_surface_t *png_of(PlotFigure *fig) {
  GError *error = NULL;
  GBytes *png = plot_figure_render(fig, PLOT_FORMAT_PNG, &error);
  g_assert_no_error(error);
  Reader r = {0};
  r.data = g_bytes_get_data(png, &r.len);
  cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_bytes, &r);
  g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
  g_bytes_unref(png);
  cairo_surface_flush(s);
  return s;
}

/* Pixels of [x0, x1) x [y0, y1) within 40/255 per channel of @c (any when
 * c is NULL: not white). */
static guint count_color(cairo_surface_t *s, int x0, int y0, int x1, int y1, const PlotColor *c) {
  const guint8 *d = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  guint n = 0;
  for (int y = MAX(y0, 0); y < MIN(y1, cairo_image_surface_get_height(s)); y++)
    for (int x = MAX(x0, 0); x < MIN(x1, cairo_image_surface_get_width(s)); x++) {
      guint32 p;
      memcpy(&p, d + (gsize)y * stride + 4 * (gsize)x, 4);
      int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
      if (c == NULL) {
        n += (p & 0xffffff) != 0xffffff;
      } else {
        n += abs(r - (int)lround(255 * c->r)) < 40 && abs(g - (int)lround(255 * c->g)) < 40 &&
             abs(b - (int)lround(255 * c->b)) < 40;
      }
    }
  return n;
}

/* Three seeds of a loss where the arithmetic 95% t-interval runs below
 * zero (as aggregate.csv's test_loss_lo = -0.0616): the log-scale one stays
 * positive and is the closed form 10^(m +- t * s / sqrt(3)) on log10. */
static void test_log_interval(void) {
  const double v[3] = {0.01, 0.02, 0.3};
  double am = (v[0] + v[1] + v[2]) / 3, ass = 0;
  for (int i = 0; i < 3; i++)
    ass += (v[i] - am) * (v[i] - am);
  const double t2 = 4.302652729911275;                        /* Student t, 0.975 quantile, 2 df */
  g_assert_cmpfloat(am - t2 * sqrt(ass / 2) / sqrt(3), <, 0); /* the old interval */
  double m, lo, hi;
  scen_log_mean_ci(v, 3, &m, &lo, &hi);
  double lm = (log10(0.01) + log10(0.02) + log10(0.3)) / 3, lss = 0;
  for (int i = 0; i < 3; i++)
    lss += (log10(v[i]) - lm) * (log10(v[i]) - lm);
  double half = t2 * sqrt(lss / 2) / sqrt(3);
  /* lm: 3 log10s (an ulp of |log10 v| <= 2 each), a sum and / 3, on both
   * sides; 10^lm turns its absolute error into ln(10) x that relative. */
  dpg_test_assert_close(m, pow(10, lm), 2 * (log(10.0) * dpg_tol(1, 5) * 2 + DBL_EPSILON),
                        "10^(mean of 3 log10s): ln 10 x the mean's absolute error, twice");
  g_assert_cmpfloat_with_epsilon(lo, pow(10, lm - half), 1e-12);
  g_assert_cmpfloat_with_epsilon(hi, pow(10, lm + half), 1e-9);
  g_assert_cmpfloat(lo, >, 0);
  /* A zero loss has no logarithm: arithmetic mean, no interval. */
  const double z[2] = {0, 0.4};
  scen_log_mean_ci(z, 2, &m, &lo, &hi);
  g_assert_cmpfloat(m, ==, 0.2);
  g_assert_true(isnan(lo) && isnan(hi));
}

/* Seven panels on a 3 x 3 grid: the two unused cells are blank (they were
 * empty 0-to-1 axes); hop distances get ticks at whole numbers only. */
static void test_grid_and_ticks(void) {
  GPtrArray *panels[7];
  const double x[3] = {1, 2, 3}, y[3] = {10, 1, 0.1};
  for (int p = 0; p < 7; p++) {
    panels[p] = g_ptr_array_new_with_free_func(free_curve);
    ScenCurve *cv = curve("ours", 3, x, y);
    cv->markers = cv->errorbars = TRUE;
    cv->lo = g_memdup2(y, sizeof y);
    cv->hi = g_memdup2(y, sizeof y);
    g_ptr_array_add(panels[p], cv);
    g_ptr_array_add(panels[p], curve("other", 3, x, y));
  }
  GError *error = NULL;
  PlotFigure *fig = scen_plot_lines_figure(NULL, "seven", 7, NULL, panels, "hops", "rdp",
                                           SCEN_PLOT_YLOG | SCEN_PLOT_XINT, &error);
  g_assert_no_error(error);
  g_assert_true(plot_figure_layout(fig, &error));
  for (int p = 0; p < 7; p++) {
    const PlotTicks *t = plot_axes_get_xticks(plot_figure_axes(fig, p / 3, p % 3));
    g_assert_cmpuint(t->n_major, ==, 3);
    for (gsize i = 0; i < t->n_major; i++)
      g_assert_cmpfloat(t->major[i], ==, i + 1.0);
    double lo, hi;
    g_assert_true(plot_axes_get_xlim(plot_figure_axes(fig, p / 3, p % 3), &lo, &hi));
    g_assert_cmpfloat(lo, ==, 0.5); /* tight: half a hop around the data */
    g_assert_cmpfloat(hi, ==, 3.5);
  }
  cairo_surface_t *s = png_of(fig);
  double cx, cy, cw, ch;
  /* The bottom row's cells: the first drawn, the other two blank. */
  g_assert_true(plot_axes_get_area(plot_figure_axes(fig, 2, 0), &cx, &cy, &cw, &ch));
  int W = cairo_image_surface_get_width(s), H = cairo_image_surface_get_height(s);
  int top = (int)(2 * (cy - 4)); /* below the row above (its x labels) */
  g_assert_cmpuint(count_color(s, 0, top, W / 3, H, NULL), >, 100);
  g_assert_cmpuint(count_color(s, W / 3 + 2, top, W, H, NULL), ==, 0);
  cairo_surface_destroy(s);
  plot_figure_free(fig);
  for (int p = 0; p < 7; p++)
    g_ptr_array_unref(panels[p]);
  /* Rounds 2 to 4 (whole numbers, no flag): ticks 2, 3, 4, not 2.5. */
  GPtrArray *one = g_ptr_array_new_with_free_func(free_curve);
  const double r[3] = {2, 3, 4};
  g_ptr_array_add(one, curve("loss", 3, r, y));
  fig = scen_plot_lines_figure(NULL, NULL, 1, NULL, &one, "round", "loss", SCEN_PLOT_YLOG, &error);
  g_assert_no_error(error);
  g_assert_true(plot_figure_layout(fig, &error));
  const PlotTicks *t = plot_axes_get_xticks(plot_figure_axes(fig, 0, 0));
  g_assert_cmpuint(t->n_major, ==, 3);
  for (gsize i = 0; i < t->n_major; i++)
    g_assert_cmpfloat(t->major[i], ==, i + 2.0);
  plot_figure_free(fig);
  g_ptr_array_unref(one);
}

/* Two equal curves (LDP's and Muffliato's at 10): both colours show. */
static void test_coinciding_visible(void) {
  GPtrArray *panel = g_ptr_array_new_with_free_func(free_curve);
  const double x[4] = {1, 2, 3, 4}, y[4] = {10, 10, 10, 10}, y2[4] = {10, 1, 0.1, 0.01};
  g_ptr_array_add(panel, curve("ldp", 4, x, y));
  g_ptr_array_add(panel, curve("pndp", 4, x, y2));
  ScenCurve *m = curve("muffliato", 4, x, y);
  m->dashed = TRUE;
  g_ptr_array_add(panel, m);
  GError *error = NULL;
  PlotFigure *fig = scen_plot_lines_figure(NULL, NULL, 1, NULL, &panel, "hops", "rdp",
                                           SCEN_PLOT_YLOG | SCEN_PLOT_XINT, &error);
  g_assert_no_error(error);
  g_assert_true(plot_figure_layout(fig, &error));
  PlotAxes *ax = plot_figure_axes(fig, 0, 0);
  double px, py;
  g_assert_true(plot_axes_data_to_device(ax, 3.5, 10, &px, &py));
  cairo_surface_t *s = png_of(fig);
  PlotColor c0 = plot_palette(0), c2 = plot_palette(2);
  int X = (int)(2 * px), Y = (int)(2 * py);
  /* Across the line at x = 3.5, the lower curve shows around the upper. */
  g_assert_cmpuint(count_color(s, X - 30, Y - 8, X + 30, Y + 8, &c0), >, 20);
  g_assert_cmpuint(count_color(s, X - 30, Y - 8, X + 30, Y + 8, &c2), >, 20);
  cairo_surface_destroy(s);
  plot_figure_free(fig);
  g_ptr_array_unref(panel);
}

/* Counts the strokes of width 0.8 of a scenario SVG: two per panel (its
 * frame and its major ticks). */
static guint svg_frames(const char *path) {
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  guint n = 0;
  for (const char *p = text; (p = strstr(p, "stroke-width:0.8;")) != NULL; p++)
    n++;
  g_free(text);
  return n;
}

#define RING                                                                                       \
  "[topology]\ngenerate = ring:n=8\n[protocol]\nname = dsgd\nsigma = 1\n"                          \
  "[simulation]\nrounds = 4\n[privacy]\ntrust = pndp\n"

/* `nodes = all` gives eight attacker sets each:0..each:7: one pooled panel,
 * as a single set's scenario has (was: eight panels). */
static void test_pooled_sets(void) {
  char *dir = test_tmpdir("scen");
  const char *texts[2] = {RING "[collusion.one]\nnodes = 0\n",
                          RING "[collusion.each]\nnodes = all\n"};
  guint frames[2];
  for (int k = 0; k < 2; k++) {
    char *ini = scen_test_write(dir, "s.ini", texts[k]);
    GError *error = NULL;
    ScenScenario *sc = scen_scenario_load(ini, &error);
    g_assert_no_error(error);
    char *out = g_build_filename(dir, k ? "b" : "a", NULL);
    ScenRunOptions opt = {.out_dir = out, .threads = 1};
    ScenRunReport rep = {0};
    g_assert_true(scen_scenario_run(sc, &opt, &rep, &error));
    g_assert_no_error(error);
    char *svg = g_build_filename(out, "privacy.svg", NULL);
    frames[k] = svg_frames(svg);
    g_free(svg);
    scen_run_report_clear(&rep);
    scen_scenario_free(sc);
    g_free(out);
    g_free(ini);
  }
  g_assert_cmpuint(frames[0], >=, 1);
  g_assert_cmpuint(frames[1], ==, frames[0]);
  test_rmtree(dir);
  g_free(dir);
}

/* A sweep over sigma and two seeds of a classification task: one loss
 * figure (not one panel per sigma) and an accuracy figure. */
static void test_sweep_figures(void) {
  char *dir = test_tmpdir("scen");
  char *ini = scen_test_write(
      dir, "s.ini",
      "[topology]\ngenerate = ring:n=4\n[protocol]\nname = dsgd\nsigma = 0.5\nlr = 0.2\n"
      "[task]\ndataset = synthetic:logistic,n=200,d=3,seed=4\nepochs = 2\nbatches = 2\n"
      "eval_every = 2\n[privacy]\ntrust = ldp\n[sweep]\nprotocol.sigma = 0.5;1\n"
      "simulation.seed = 1..2\n");
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(ini, &error);
  g_assert_no_error(error);
  char *out = g_build_filename(dir, "out", NULL);
  ScenRunOptions opt = {.out_dir = out, .threads = 1};
  ScenRunReport rep = {0};
  g_assert_true(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_no_error(error);
  gboolean loss = FALSE, acc = FALSE;
  for (guint i = 0; i < rep.figures->len; i++) {
    const char *f = g_ptr_array_index(rep.figures, i);
    loss |= g_str_has_suffix(f, "/loss.svg");
    acc |= g_str_has_suffix(f, "/accuracy.svg");
  }
  g_assert_true(loss);
  g_assert_true(acc);
  char *svg = g_build_filename(out, "loss.svg", NULL);
  g_assert_cmpuint(svg_frames(svg), ==, 2); /* one panel: its frame, its ticks */
  g_free(svg);
  scen_run_report_clear(&rep);
  scen_scenario_free(sc);
  g_free(out);
  g_free(ini);
  test_rmtree(dir);
  g_free(dir);
}

/* [output] figure_format, figure_size (one panel) and figure_dpi: a PNG of
 * 200 x 150 pt at 144 dpi is 400 x 300 pixels; PDF by format. */
static void test_output_keys(void) {
  char *dir = test_tmpdir("scen");
  const char *texts[2] = {
      RING "[collusion.one]\nnodes = 0\n[output]\nfigure_format = png\nfigure_size = 200x150\n"
           "figure_dpi = 144\n",
      RING "[collusion.one]\nnodes = 0\n[output]\nfigure_format = pdf\n"};
  const char *names[2] = {"privacy.png", "privacy.pdf"};
  for (int k = 0; k < 2; k++) {
    char *ini = scen_test_write(dir, "s.ini", texts[k]);
    GError *error = NULL;
    ScenScenario *sc = scen_scenario_load(ini, &error);
    g_assert_no_error(error);
    char *out = g_build_filename(dir, k ? "b" : "a", NULL);
    ScenRunOptions opt = {.out_dir = out, .threads = 1};
    ScenRunReport rep = {0};
    g_assert_true(scen_scenario_run(sc, &opt, &rep, &error));
    g_assert_no_error(error);
    char *path = g_build_filename(out, names[k], NULL);
    gboolean listed = FALSE;
    for (guint i = 0; i < rep.figures->len; i++)
      listed |= g_str_equal(g_ptr_array_index(rep.figures, i), path);
    g_assert_true(listed);
    char *a;
    gsize la;
    g_assert_true(g_file_get_contents(path, &a, &la, NULL));
    const guint8 *u = (const guint8 *)a;
    if (k == 0) {
      g_assert_cmpuint(la, >, 24);
      g_assert_cmpuint((u[16] << 24) | (u[17] << 16) | (u[18] << 8) | u[19], ==, 400);
      g_assert_cmpuint((u[20] << 24) | (u[21] << 16) | (u[22] << 8) | u[23], ==, 300);
    } else {
      g_assert_true(g_str_has_prefix(a, "%PDF-"));
    }
    g_free(a);
    g_free(path);
    scen_run_report_clear(&rep);
    scen_scenario_free(sc);
    g_free(out);
    g_free(ini);
  }
  /* A size that is not WxH is refused with the form to use. */
  char *ini = scen_test_write(dir, "s.ini", RING "[output]\nfigure_size = big\n");
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(ini, &error);
  g_assert_no_error(error);
  char *out = g_build_filename(dir, "c", NULL);
  ScenRunOptions opt = {.out_dir = out, .threads = 1};
  ScenRunReport rep = {0};
  g_assert_false(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_error(error, SCEN_ERROR, SCEN_ERROR_INVALID);
  g_assert_nonnull(strstr(error->message, "output.figure_size"));
  g_assert_nonnull(strstr(error->message, "6x4in"));
  g_error_free(error);
  scen_run_report_clear(&rep);
  scen_scenario_free(sc);
  g_free(out);
  g_free(ini);
  test_rmtree(dir);
  g_free(dir);
}

/* 2 learning rates x 9 noise levels: 18 lines would reuse colours, so
 * one panel per learning rate with a line per sigma. */
static void test_sweep_split(void) {
  char *dir = test_tmpdir("scen");
  char *ini = scen_test_write(
      dir, "s.ini",
      "[topology]\ngenerate = ring:n=4\n[protocol]\nname = dsgd\nsigma = 0.5\nlr = 0.2\n"
      "[task]\ndataset = synthetic:linear,n=100,d=2,seed=4\nepochs = 1\nbatches = 2\n"
      "eval_every = 1\n[privacy]\ntrust = ldp\n[sweep]\n"
      "protocol.sigma = 0.5;1;2;3;4;5;6;7;8\nprotocol.lr = 0.1;0.2\n");
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(ini, &error);
  g_assert_no_error(error);
  char *out = g_build_filename(dir, "out", NULL);
  ScenRunOptions opt = {.out_dir = out, .threads = 1};
  ScenRunReport rep = {0};
  g_assert_true(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_no_error(error);
  char *svg = g_build_filename(out, "loss.svg", NULL);
  g_assert_cmpuint(svg_frames(svg), ==, 4); /* two panels */
  g_free(svg);
  scen_run_report_clear(&rep);
  scen_scenario_free(sc);
  g_free(out);
  g_free(ini);
  test_rmtree(dir);
  g_free(dir);
}

/* What the sweep figures hold, as scen_plot_inspect sees them. */
typedef struct {
  char *base;
  guint n_panels;
  GPtrArray *labels; /* per panel: a GPtrArray of its curves' labels */
  guint covered;     /* points and bar ends drawn under a legend box */
  gboolean pndp_decreasing, ldp_flat;
  guint distance_curves;
} Seen;

static void seen_free(gpointer p) {
  Seen *s = p;
  g_free(s->base);
  g_ptr_array_unref(s->labels);
  g_free(s);
}

/* Whether page point (px, py) lies in the box (x, y, w, h). */
static gboolean in_box(double px, double py, const double b[4]) {
  return px >= b[0] && px <= b[0] + b[2] && py >= b[1] && py <= b[1] + b[3];
}

static void inspect(const char *base, PlotFigure *fig, guint n_panels,
                    GPtrArray *const *panel_curves, gpointer data) {
  Seen *s = g_new0(Seen, 1);
  s->base = g_strdup(base);
  s->n_panels = n_panels;
  s->labels = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  s->pndp_decreasing = s->ldp_flat = TRUE;
  guint cols = n_panels <= 1 ? 1 : n_panels <= 4 ? 2 : n_panels <= 9 ? 3 : 4;
  for (guint p = 0; p < n_panels; p++) {
    PlotAxes *ax = plot_figure_axes(fig, p / cols, p % cols);
    double box[4];
    gboolean has_box = plot_axes_get_legend_box(ax, &box[0], &box[1], &box[2], &box[3]);
    GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < panel_curves[p]->len; i++) {
      const ScenCurve *cv = g_ptr_array_index(panel_curves[p], i);
      g_ptr_array_add(labels, g_strdup(cv->label ? cv->label : ""));
      for (guint k = 0; k < cv->n; k++) {
        const double ys[3] = {cv->y[k], cv->lo && cv->errorbars ? cv->lo[k] : NAN,
                              cv->hi && cv->errorbars ? cv->hi[k] : NAN};
        for (guint j = 0; j < 3 && has_box; j++) {
          double px, py;
          if (plot_axes_data_to_device(ax, cv->x[k], ys[j], &px, &py) && in_box(px, py, box))
            s->covered++;
        }
        if (k > 0 && g_str_equal(base, "privacy_vs_distance")) {
          if (g_str_has_prefix(cv->label, "pndp"))
            s->pndp_decreasing &= cv->y[k] < cv->y[k - 1];
          if (g_str_has_prefix(cv->label, "ldp"))
            s->ldp_flat &= fabs(cv->y[k] - cv->y[0]) <= 1e-12 * cv->y[0];
        }
      }
      s->distance_curves += g_str_equal(base, "privacy_vs_distance") && cv->n == 4;
    }
    g_ptr_array_add(s->labels, labels);
  }
  g_ptr_array_add(data, s);
}

static const Seen *seen(GPtrArray *all, const char *base) {
  for (guint i = 0; i < all->len; i++)
    if (g_str_equal(((Seen *)g_ptr_array_index(all, i))->base, base))
      return g_ptr_array_index(all, i);
  return NULL;
}

/* Runs the shipped default scenario with @sets (key=value, NULL-ended) and
 * returns what its figures hold. */
static GPtrArray *default_figures(const char *const *sets) {
  char *dir = test_tmpdir("scen");
  char *ini = scen_test_source("scenarios/default.ini");
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(ini, &error);
  g_assert_no_error(error);
  for (guint i = 0; sets && sets[i]; i++) {
    g_assert_true(scen_scenario_set(sc, sets[i], &error));
    g_assert_no_error(error);
  }
  char *out = g_build_filename(dir, "out", NULL);
  ScenRunOptions opt = {.out_dir = out, .threads = 1};
  ScenRunReport rep = {0};
  GPtrArray *all = g_ptr_array_new_with_free_func(seen_free);
  scen_plot_inspect = inspect;
  scen_plot_inspect_data = all;
  g_assert_true(scen_scenario_run(sc, &opt, &rep, &error));
  g_assert_no_error(error);
  scen_plot_inspect = NULL;
  scen_plot_inspect_data = NULL;
  scen_run_report_clear(&rep);
  scen_scenario_free(sc);
  g_free(out);
  g_free(ini);
  test_rmtree(dir);
  g_free(dir);
  return all;
}

/* The default scenario's figures: the loss of D-SGD and Mafalda, one line
 * each with the same epsilon in its label; privacy by distance, a panel per
 * method with PNDP decreasing over the four distances and LDP flat; no
 * legend over a point or a bar's end. */
static void test_default_figures(void) {
  GPtrArray *all = default_figures(NULL);
  const Seen *loss = seen(all, "loss"), *dist = seen(all, "privacy_vs_distance");
  g_assert_nonnull(loss);
  g_assert_nonnull(dist);
  g_assert_null(seen(all, "loss_vs_epsilon")); /* one privacy level: no curve against it */
  g_assert_cmpuint(loss->n_panels, ==, 1);
  GPtrArray *l = g_ptr_array_index(loss->labels, 0);
  g_assert_cmpuint(l->len, ==, 2);
  g_assert_true(g_str_has_prefix(g_ptr_array_index(l, 0), "dsgd, ε = "));
  g_assert_true(g_str_has_prefix(g_ptr_array_index(l, 1), "mafalda, ε = "));
  g_assert_cmpstr(strchr(g_ptr_array_index(l, 0), '='), ==, strchr(g_ptr_array_index(l, 1), '='));
  g_assert_cmpuint(dist->n_panels, ==, 2);
  for (guint p = 0; p < 2; p++) {
    GPtrArray *d = g_ptr_array_index(dist->labels, p);
    g_assert_cmpuint(d->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(d, 0), ==, "ldp");
    g_assert_cmpstr(g_ptr_array_index(d, 1), ==, "pndp");
  }
  g_assert_cmpuint(dist->distance_curves, ==, 4);
  g_assert_true(dist->pndp_decreasing);
  g_assert_true(dist->ldp_flat);
  g_assert_cmpuint(loss->covered, ==, 0);
  g_assert_cmpuint(dist->covered, ==, 0);
  g_ptr_array_unref(all);
}

/* Loss against epsilon over three noise levels: a panel per accounting
 * (LDP, PNDP), in each one line per method (two, not one per method and
 * accounting side by side), the legend over no point or bar end. */
static void test_loss_vs_epsilon(void) {
  const char *sets[] = {"sweep.protocol.mu=0.3;1;3", "sweep.simulation.seed=1..2", NULL};
  GPtrArray *all = default_figures(sets);
  const Seen *le = seen(all, "loss_vs_epsilon"), *loss = seen(all, "loss");
  g_assert_nonnull(le);
  g_assert_cmpuint(le->n_panels, ==, 2);
  for (guint p = 0; p < 2; p++) {
    GPtrArray *d = g_ptr_array_index(le->labels, p);
    g_assert_cmpuint(d->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(d, 0), ==, "dsgd");
    g_assert_cmpstr(g_ptr_array_index(d, 1), ==, "mafalda");
  }
  g_assert_cmpuint(le->covered, ==, 0);
  /* Six loss curves, each naming its mu and epsilon. */
  GPtrArray *l = g_ptr_array_index(loss->labels, 0);
  g_assert_cmpuint(l->len, ==, 6);
  g_assert_true(g_str_has_prefix(g_ptr_array_index(l, 0), "dsgd, mu = 0.3, ε = "));
  g_assert_cmpuint(loss->covered, ==, 0);
  g_ptr_array_unref(all);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/scenarios/plots/log-interval", test_log_interval);
  g_test_add_func("/scenarios/plots/grid-and-ticks", test_grid_and_ticks);
  g_test_add_func("/scenarios/plots/coinciding-visible", test_coinciding_visible);
  g_test_add_func("/scenarios/plots/pooled-sets", test_pooled_sets);
  g_test_add_func("/scenarios/plots/sweep-figures", test_sweep_figures);
  g_test_add_func("/scenarios/plots/output-keys", test_output_keys);
  g_test_add_func("/scenarios/plots/sweep-split", test_sweep_split);
  g_test_add_func("/scenarios/plots/default-figures", test_default_figures);
  g_test_add_func("/scenarios/plots/loss-vs-epsilon", test_loss_vs_epsilon);
  int rc = g_test_run();
  plot_shutdown();
  return rc;
}
