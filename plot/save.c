/* plot/save.c: rendering to SVG/PNG bytes and writing files atomically. */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <string.h>

#include "plot/internal.h"

static cairo_status_t append_bytes(void *closure, const unsigned char *data, unsigned int length) {
  g_byte_array_append(closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

/*
 * cairo numbers SVG surfaces with a process-wide counter (<g id="surface7">),
 * so the second figure of a process would differ from the first. Renumber
 * every "surfaceN" id and reference by order of first appearance. Nothing
 * else in cairo's SVG depends on the process (glyph and clip ids are per
 * document; text is drawn as glyph outlines, so user strings never appear
 * verbatim and cannot be mistaken for ids).
 */
static GByteArray *normalize_svg_ids(GByteArray *in) {
  static const char key[] = "surface";
  const gsize klen = sizeof key - 1;
  GByteArray *out = g_byte_array_sized_new(in->len);
  GHashTable *ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  const guint8 *d = in->data;
  gsize i = 0, n = in->len;
  while (i < n) {
    gboolean is_id = i > 0 && (d[i - 1] == '"' || d[i - 1] == '#') && i + klen < n &&
                     memcmp(d + i, key, klen) == 0 && g_ascii_isdigit(d[i + klen]);
    if (!is_id) {
      g_byte_array_append(out, d + i, 1);
      i++;
      continue;
    }
    gsize j = i + klen;
    while (j < n && g_ascii_isdigit(d[j]))
      j++;
    char *num = g_strndup((const char *)d + i + klen, j - i - klen);
    gpointer v = g_hash_table_lookup(ids, num);
    guint id;
    if (v) {
      id = GPOINTER_TO_UINT(v);
      g_free(num);
    } else {
      id = g_hash_table_size(ids) + 1;
      g_hash_table_insert(ids, num, GUINT_TO_POINTER(id));
    }
    char buf[32];
    int len = g_snprintf(buf, sizeof buf, "surface%u", id);
    g_byte_array_append(out, (const guint8 *)buf, (guint)len);
    i = j;
  }
  g_hash_table_destroy(ids);
  return out;
}

static gboolean surface_failed(cairo_surface_t *s, cairo_t *cr, GError **error) {
  cairo_status_t st = cr ? cairo_status(cr) : CAIRO_STATUS_SUCCESS;
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_status(s);
  if (st == CAIRO_STATUS_SUCCESS)
    return FALSE;
  g_set_error(error, PLOT_ERROR, PLOT_ERROR_FAILED, "cairo failed drawing the figure: %s",
              cairo_status_to_string(st));
  return TRUE;
}

/* Lays @fig out and draws it on the stream surface @s, then finishes and
 * destroys @s (which flushes the document into its stream). FALSE with
 * @error set when the layout or cairo fails. */
static gboolean draw_to_stream(PlotFigure *fig, cairo_surface_t *s, GError **error) {
  cairo_t *cr = cairo_create(s);
  gboolean ok = plot_layout(fig, cr, error);
  if (ok) {
    plot_render(fig, cr);
    ok = !surface_failed(s, cr, error);
  }
  cairo_destroy(cr);
  cairo_surface_finish(s);
  if (ok)
    ok = !surface_failed(s, NULL, error);
  cairo_surface_destroy(s);
  return ok;
}

static GBytes *render_svg(PlotFigure *fig, GError **error) {
  GByteArray *raw = g_byte_array_new();
  cairo_surface_t *s = cairo_svg_surface_create_for_stream(append_bytes, raw, fig->width,
                                                           fig->height);
  cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
  if (!draw_to_stream(fig, s, error)) {
    g_byte_array_unref(raw);
    return NULL;
  }
  GByteArray *clean = normalize_svg_ids(raw);
  g_byte_array_unref(raw);
  return g_byte_array_free_to_bytes(clean);
}

/* PDF keeps text as embedded font subsets (selectable, vector). cairo
 * stamps the current time as the creation date: a fixed one keeps the
 * bytes a function of the figure alone. */
static GBytes *render_pdf(PlotFigure *fig, GError **error) {
  GByteArray *raw = g_byte_array_new();
  cairo_surface_t *s = cairo_pdf_surface_create_for_stream(append_bytes, raw, fig->width,
                                                           fig->height);
  cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, "2000-01-01T00:00:00Z");
  cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "dpgossip");
  if (!draw_to_stream(fig, s, error)) {
    g_byte_array_unref(raw);
    return NULL;
  }
  return g_byte_array_free_to_bytes(raw);
}

static GBytes *render_png(PlotFigure *fig, GError **error) {
  double wpx = ceil(fig->width * fig->png_scale - 1e-9);
  double hpx = ceil(fig->height * fig->png_scale - 1e-9);
  if (wpx > 32767 || hpx > 32767) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "PNG of %.0f x %.0f pixels is larger than cairo allows (32767 per side); "
                "lower the PNG scale",
                wpx, hpx);
    return NULL;
  }
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)wpx, (int)hpx);
  cairo_t *cr = cairo_create(s);
  cairo_scale(cr, fig->png_scale, fig->png_scale);
  gboolean ok = plot_layout(fig, cr, error);
  if (ok) {
    plot_render(fig, cr);
    ok = !surface_failed(s, cr, error);
  }
  cairo_destroy(cr);
  GByteArray *raw = NULL;
  if (ok) {
    raw = g_byte_array_new();
    cairo_status_t st = cairo_surface_write_to_png_stream(s, append_bytes, raw);
    if (st != CAIRO_STATUS_SUCCESS) {
      g_set_error(error, PLOT_ERROR, PLOT_ERROR_FAILED, "cairo failed encoding the PNG: %s",
                  cairo_status_to_string(st));
      g_byte_array_unref(raw);
      raw = NULL;
    }
  }
  cairo_surface_destroy(s);
  return raw ? g_byte_array_free_to_bytes(raw) : NULL;
}

GBytes *plot_figure_render(PlotFigure *fig, PlotFormat format, GError **error) {
  if (!fig ||
      (format != PLOT_FORMAT_SVG && format != PLOT_FORMAT_PNG && format != PLOT_FORMAT_PDF)) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "render: NULL figure or unknown format %d", (int)format);
    return NULL;
  }
  if (format == PLOT_FORMAT_PDF)
    return render_pdf(fig, error);
  return format == PLOT_FORMAT_SVG ? render_svg(fig, error) : render_png(fig, error);
}

gboolean plot_format_from_path(const char *path, PlotFormat *format) {
  static const struct {
    const char *ext;
    PlotFormat format;
  } known[] = {{".svg", PLOT_FORMAT_SVG}, {".png", PLOT_FORMAT_PNG}, {".pdf", PLOT_FORMAT_PDF}};
  gsize plen = path ? strlen(path) : 0;
  for (gsize i = 0; i < G_N_ELEMENTS(known); i++)
    if (plen >= 4 && g_ascii_strcasecmp(path + plen - 4, known[i].ext) == 0) {
      if (format)
        *format = known[i].format;
      return TRUE;
    }
  return FALSE;
}

gboolean plot_parse_size(const char *text, double *width_pt, double *height_pt, GError **error) {
  const char *p = text ? text : "";
  char *end;
  double w = g_ascii_strtod(p, &end);
  gboolean ok = end != p && (*end == 'x' || *end == 'X');
  double h = 0;
  if (ok) {
    p = end + 1;
    h = g_ascii_strtod(p, &end);
    ok = end != p;
  }
  double unit = 1;
  if (ok) {
    if (g_str_equal(end, "in"))
      unit = 72;
    else if (g_str_equal(end, "cm"))
      unit = 72 / 2.54;
    else if (g_str_equal(end, "mm"))
      unit = 72 / 25.4;
    else
      ok = *end == '\0' || g_str_equal(end, "pt");
  }
  w *= unit;
  h *= unit;
  if (!ok || !isfinite(w) || !isfinite(h) || w < 10 || h < 10 || w > 10000 || h > 10000) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "figure size '%s' is not WIDTHxHEIGHT in points (or with the unit in, cm or "
                "mm), each from 10 to 10000 pt: e.g. 360x260 or 6x4in",
                text ? text : "");
    return FALSE;
  }
  *width_pt = w;
  *height_pt = h;
  return TRUE;
}

gboolean plot_figure_save(PlotFigure *fig, const char *path, GError **error) {
  if (!fig || !path || !*path) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT, "save: NULL figure or empty path");
    return FALSE;
  }
  PlotFormat format;
  if (!plot_format_from_path(path, &format)) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_FORMAT,
                "%s: unknown figure format; the file name must end in .svg, .png or .pdf", path);
    return FALSE;
  }
  GBytes *bytes = plot_figure_render(fig, format, error);
  if (!bytes)
    return FALSE;
  gsize len = 0;
  const char *data = g_bytes_get_data(bytes, &len);
  GError *ferr = NULL;
  /* GLib writes a temporary next to path, then renames it over path, and
   * removes the temporary if anything fails. 0666 is filtered by umask. */
  gboolean ok = g_file_set_contents_full(
      path, data, (gssize)len, G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_ONLY_EXISTING,
      0666, &ferr);
  g_bytes_unref(bytes);
  if (!ok) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_IO, "cannot write figure %s: %s", path,
                ferr->message);
    g_error_free(ferr);
    return FALSE;
  }
  return TRUE;
}
