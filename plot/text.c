/* plot/text.c: text measuring and drawing with cairo's toy font API. */
#include <string.h>

#include "plot/internal.h"

void plot_text_setup(cairo_t *cr) {
  /* Hinting off: glyph advances no longer depend on the backend or the
   * device scale, so layout measured on a scratch surface holds for SVG
   * and PNG at any resolution. */
  cairo_font_options_t *fo = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
  cairo_set_font_options(cr, fo);
  cairo_font_options_destroy(fo);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

cairo_t *plot_scratch_new(void) {
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create(s);
  cairo_surface_destroy(s); /* cr keeps its own reference */
  plot_text_setup(cr);
  return cr;
}

void plot_scratch_free(cairo_t *cr) {
  if (cr) cairo_destroy(cr);
}

/* Split "base^sup" (markup) into its two parts; sup NULL without '^'. */
static void split(const char *label, gboolean markup, char **base, const char **sup) {
  const char *hat = markup ? strchr(label, '^') : NULL;
  if (hat) {
    *base = g_strndup(label, (gsize)(hat - label));
    *sup = hat + 1;
  } else {
    *base = g_strdup(label);
    *sup = NULL;
  }
}

static double advance(cairo_t *cr, const char *s, double size) {
  cairo_text_extents_t ex;
  cairo_set_font_size(cr, size);
  cairo_text_extents(cr, s, &ex);
  return ex.x_advance;
}

double plot_text_width(cairo_t *cr, const char *label, double size, gboolean markup) {
  char *base;
  const char *sup;
  split(label, markup, &base, &sup);
  double w = advance(cr, base, size);
  if (sup) w += advance(cr, sup, size * PLOT_SUP_SCALE);
  g_free(base);
  return w;
}

double plot_text_digit_height(cairo_t *cr, double size) {
  cairo_text_extents_t ex;
  cairo_set_font_size(cr, size);
  cairo_text_extents(cr, "0", &ex);
  return ex.height;
}

void plot_text_draw(cairo_t *cr, const char *label, double size, gboolean markup, double x,
                    double y, PlotAnchor anchor) {
  char *base;
  const char *sup;
  split(label, markup, &base, &sup);
  double w = advance(cr, base, size);
  double ws = sup ? advance(cr, sup, size * PLOT_SUP_SCALE) : 0;
  double h = plot_text_digit_height(cr, size);
  double dx, dy; /* baseline-left relative to the anchor point */
  switch (anchor) {
    case PLOT_ANCHOR_NE: case PLOT_ANCHOR_E: case PLOT_ANCHOR_SE: dx = -(w + ws); break;
    case PLOT_ANCHOR_NW: case PLOT_ANCHOR_W: case PLOT_ANCHOR_SW: dx = 0; break;
    default: dx = -(w + ws) / 2; break;
  }
  switch (anchor) {
    case PLOT_ANCHOR_N: case PLOT_ANCHOR_NE: case PLOT_ANCHOR_NW: dy = h; break;
    case PLOT_ANCHOR_S: case PLOT_ANCHOR_SE: case PLOT_ANCHOR_SW: dy = 0; break;
    default: dy = h / 2; break;
  }
  cairo_set_font_size(cr, size);
  cairo_move_to(cr, x + dx, y + dy);
  cairo_show_text(cr, base);
  if (sup) {
    cairo_set_font_size(cr, size * PLOT_SUP_SCALE);
    cairo_move_to(cr, x + dx + w, y + dy - PLOT_SUP_RISE * size);
    cairo_show_text(cr, sup);
  }
  g_free(base);
}
