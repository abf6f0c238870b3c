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
  if (cr)
    cairo_destroy(cr);
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
  if (sup)
    w += advance(cr, sup, size * PLOT_SUP_SCALE);
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
  case PLOT_ANCHOR_NE:
  case PLOT_ANCHOR_E:
  case PLOT_ANCHOR_SE:
    dx = -(w + ws);
    break;
  case PLOT_ANCHOR_NW:
  case PLOT_ANCHOR_W:
  case PLOT_ANCHOR_SW:
    dx = 0;
    break;
  default:
    dx = -(w + ws) / 2;
    break;
  }
  switch (anchor) {
  case PLOT_ANCHOR_N:
  case PLOT_ANCHOR_NE:
  case PLOT_ANCHOR_NW:
    dy = h;
    break;
  case PLOT_ANCHOR_S:
  case PLOT_ANCHOR_SE:
  case PLOT_ANCHOR_SW:
    dy = 0;
    break;
  default:
    dy = h / 2;
    break;
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

void plot_title_clear(PlotTitle *t) {
  g_strfreev(t->lines);
  t->lines = NULL;
  t->n_lines = 0;
  t->size = 0;
}

static double line_advance(cairo_t *cr, double size) {
  cairo_font_extents_t fe;
  cairo_set_font_size(cr, size);
  cairo_font_extents(cr, &fe);
  return fe.ascent + fe.descent;
}

/* How good a line break between @word and @next is: after "; " best, then
 * ": ", then ", " or before a parenthesis, then any space. */
static int break_strength(const char *word, const char *next) {
  gsize n = strlen(word);
  char last = n ? word[n - 1] : '\0';
  return last == ';' ? 3 : last == ':' ? 2 : last == ',' || (next && next[0] == '(') ? 1 : 0;
}

/* Wraps @title into @lines of at most @max_w: each line takes as many words
 * as fit, then gives back the words after its best break (a phrase's end)
 * when that keeps the line at least half full. So a title breaks between
 * its phrases, not inside one ("(30 nodes)" stays whole). */
static void wrap_title(cairo_t *cr, const char *title, double size, double max_w,
                       GPtrArray *lines) {
  char **all = g_strsplit(title, " ", -1);
  GPtrArray *words = g_ptr_array_new();
  for (guint i = 0; all[i]; i++)
    if (all[i][0])
      g_ptr_array_add(words, all[i]); /* runs of spaces give empty words */
  guint i = 0;
  while (i < words->len) {
    /* The longest run i..j that fits (one word at least). */
    GString *line = g_string_new(g_ptr_array_index(words, i));
    guint j = i, best = i;
    int best_s = -1;
    double full = 0;
    for (guint k = i + 1; k < words->len; k++) {
      GString *trial = g_string_new(line->str);
      g_string_append_printf(trial, " %s", (char *)g_ptr_array_index(words, k));
      if (plot_text_width(cr, trial->str, size, FALSE) > max_w) {
        g_string_free(trial, TRUE);
        break;
      }
      g_string_free(line, TRUE);
      line = trial;
      j = k;
    }
    if (j + 1 < words->len) {
      /* Not the last line: the strongest break at least half way. */
      GString *head = g_string_new(NULL);
      for (guint k = i; k <= j; k++) {
        g_string_append_printf(head, "%s%s", k > i ? " " : "", (char *)g_ptr_array_index(words, k));
        full = plot_text_width(cr, head->str, size, FALSE);
        int st = break_strength(g_ptr_array_index(words, k), g_ptr_array_index(words, k + 1));
        if ((k == j || full >= 0.5 * max_w) && st >= best_s)
          best = k, best_s = st;
      }
      g_string_free(head, TRUE);
      if (best_s > 0)
        j = best;
      g_string_truncate(line, 0);
      for (guint k = i; k <= j; k++)
        g_string_append_printf(line, "%s%s", k > i ? " " : "", (char *)g_ptr_array_index(words, k));
    }
    g_ptr_array_add(lines, g_string_free(line, FALSE));
    i = j + 1;
  }
  g_ptr_array_unref(words);
  g_strfreev(all);
}

double plot_title_fit(cairo_t *cr, const char *title, double size, double max_w, PlotTitle *t) {
  plot_title_clear(t);
  if (!title)
    return 0;
  char **words = g_strsplit(title, " ", -1);
  /* Shrink only for a word that cannot fit on any line by itself. */
  double widest = 0;
  for (guint i = 0; words[i]; i++)
    widest = MAX(widest, plot_text_width(cr, words[i], size, FALSE));
  g_strfreev(words);
  if (widest > max_w && widest > 0)
    size = MAX(size * max_w / widest, size * PLOT_MIN_TITLE_SCALE);
  t->size = size;
  GPtrArray *lines = g_ptr_array_new();
  wrap_title(cr, title, size, max_w, lines);
  if (lines->len == 0)
    g_ptr_array_add(lines, g_strdup(""));
  t->n_lines = lines->len;
  g_ptr_array_add(lines, NULL);
  t->lines = (char **)g_ptr_array_free(lines, FALSE);
  return t->n_lines * line_advance(cr, size);
}

const char *const *plot_figure_get_title_lines(const PlotFigure *fig) {
  if (!fig || !fig->laid_out)
    return NULL;
  return (const char *const *)fig->title_fit.lines;
}

void plot_title_draw(cairo_t *cr, const PlotTitle *t, double cx, double top) {
  if (!t->lines)
    return;
  cairo_font_extents_t fe;
  cairo_set_font_size(cr, t->size);
  cairo_font_extents(cr, &fe);
  for (guint i = 0; i < t->n_lines; i++) {
    double w = plot_text_width(cr, t->lines[i], t->size, FALSE);
    cairo_move_to(cr, cx - w / 2, top + i * (fe.ascent + fe.descent) + fe.ascent);
    cairo_set_font_size(cr, t->size);
    cairo_show_text(cr, t->lines[i]);
  }
}
