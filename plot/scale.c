/* plot/scale.c: axis scales, data ranges and automatic limits. */
#include <math.h>

#include "plot/internal.h"

#define PAD_FRACTION 0.05
#define LOG10_MAX 308.25 /* log10(DBL_MAX) = 308.2547... */
#define LOG10_MIN -323.0 /* above log10 of the smallest subnormal */

gboolean plot_scale_valid(PlotScale scale, double v) {
  return isfinite(v) && (scale == PLOT_SCALE_LINEAR || v > 0);
}

double plot_scale_forward(PlotScale scale, double v) {
  if (!plot_scale_valid(scale, v))
    return NAN;
  return scale == PLOT_SCALE_LOG10 ? log10(v) : v;
}

static double scale_inverse(PlotScale scale, double t) {
  return scale == PLOT_SCALE_LOG10 ? pow(10.0, t) : t;
}

typedef struct {
  double lo, hi; /* scale-space range of drawable values */
  gboolean any;  /* at least one drawable value */
  gboolean data; /* at least one series with points */
} Range;

static void range_add(Range *r, double t) {
  if (isnan(t))
    return;
  if (!r->any) {
    r->lo = r->hi = t;
    r->any = TRUE;
  } else {
    r->lo = MIN(r->lo, t);
    r->hi = MAX(r->hi, t);
  }
}

/* Scale-space data ranges of both axes. A line point counts only when both
 * of its coordinates are drawable (it is skipped otherwise); an error bar or
 * band end counts when its x is drawable. */
static void data_ranges(const PlotAxes *axes, Range *rx, Range *ry) {
  PlotScale sx = axes->xa.scale, sy = axes->ya.scale;
  for (guint i = 0; i < axes->series->len; i++) {
    const PlotSeries *s = g_ptr_array_index(axes->series, i);
    if (s->n > 0)
      rx->data = ry->data = TRUE;
    for (gsize j = 0; j < s->n; j++) {
      double tx = plot_scale_forward(sx, s->x[j]);
      if (isnan(tx))
        continue;
      if (s->kind == PLOT_SERIES_LINE) {
        double ty = plot_scale_forward(sy, s->y[j]);
        if (isnan(ty))
          continue;
        range_add(rx, tx);
        range_add(ry, ty);
      } else {
        double t1 = plot_scale_forward(sy, s->y[j]), t2 = plot_scale_forward(sy, s->y2[j]);
        if (isnan(t1) && isnan(t2))
          continue;
        range_add(rx, tx);
        range_add(ry, t1);
        range_add(ry, t2);
      }
    }
  }
}

static gboolean check_range(const PlotAxes *axes, const PlotAxisState *a, const char *name,
                            GError **error);

static gboolean resolve_axis(const PlotAxes *axes, PlotAxisState *a, const char *name,
                             const Range *r, GError **error) {
  gboolean log = a->scale == PLOT_SCALE_LOG10;
  if (log && ((!isnan(a->lim_lo) && a->lim_lo <= 0) || (!isnan(a->lim_hi) && a->lim_hi <= 0))) {
    char *who = plot_axes_describe(axes);
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_DATA,
                "%s: %s axis is logarithmic but its limits [%g, %g] are not positive", who, name,
                a->lim_lo, a->lim_hi);
    g_free(who);
    return FALSE;
  }
  double t_lo = plot_scale_forward(a->scale, a->lim_lo);
  double t_hi = plot_scale_forward(a->scale, a->lim_hi);
  if (!isnan(t_lo) && !isnan(t_hi)) {
    a->t_lo = t_lo;
    a->t_hi = t_hi;
  } else {
    double dlo, dhi;
    if (r->any) {
      dlo = r->lo;
      dhi = r->hi;
    } else if (r->data && log && isnan(t_lo) && isnan(t_hi)) {
      char *who = plot_axes_describe(axes);
      g_set_error(error, PLOT_ERROR, PLOT_ERROR_DATA,
                  "%s: %s axis is logarithmic but no plotted value is positive and finite; "
                  "use a linear scale or set explicit limits",
                  who, name);
      g_free(who);
      return FALSE;
    } else {
      dlo = 0.0; /* no data: [0, 1], or [10^0, 10^1] on log */
      dhi = 1.0;
    }
    /* A one-sided explicit limit wins; data on its wrong side are ignored. */
    if (!isnan(t_lo))
      dlo = t_lo, dhi = MAX(dhi, t_lo);
    if (!isnan(t_hi))
      dhi = t_hi, dlo = MIN(dlo, t_hi);
    if (dhi <= dlo) {
      /* A single value (or a bound equal to the data): open up around it,
       * relatively so the result does not depend on the data's units. */
      double d = log ? 0.5 : (dlo == 0 ? 1.0 : 0.1 * fabs(dlo));
      if (!isnan(t_lo))
        dhi = dlo + 2 * d;
      else if (!isnan(t_hi))
        dlo = dhi - 2 * d;
      else
        dlo -= d, dhi += d;
    }
    /* Rounding to nice ticks (PLOT_AUTOSCALE_NICE) waits for the layout,
     * which knows how many ticks the axis length allows. */
    if (a->autoscale == PLOT_AUTOSCALE_PAD && r->any) {
      double pad = PAD_FRACTION * (dhi - dlo);
      if (isnan(t_lo))
        dlo -= pad;
      if (isnan(t_hi))
        dhi += pad;
      if (log) { /* padding must not leave the doubles: 10^309 is inf */
        dlo = MAX(dlo, LOG10_MIN);
        dhi = MIN(dhi, LOG10_MAX);
      }
    }
    a->t_lo = dlo;
    a->t_hi = dhi;
  }
  a->auto_lo = isnan(t_lo);
  a->auto_hi = isnan(t_hi);
  a->base_t_lo = a->t_lo;
  a->base_t_hi = a->t_hi;
  a->lo = a->auto_lo ? scale_inverse(a->scale, a->t_lo) : a->lim_lo;
  a->hi = a->auto_hi ? scale_inverse(a->scale, a->t_hi) : a->lim_hi;
  return check_range(axes, a, name, error);
}

static gboolean check_range(const PlotAxes *axes, const PlotAxisState *a, const char *name,
                            GError **error) {
  if (!(a->t_lo < a->t_hi) || !isfinite(a->t_lo) || !isfinite(a->t_hi) || !isfinite(a->lo) ||
      !isfinite(a->hi) || !(a->lo < a->hi)) {
    char *who = plot_axes_describe(axes);
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_DATA,
                "%s: %s axis range [%g, %g] cannot be drawn (values too large for the scale)", who,
                name, a->lo, a->hi);
    g_free(who);
    return FALSE;
  }
  return TRUE;
}

gboolean plot_axis_finalize(const PlotAxes *axes, PlotAxisState *a, const char *name,
                            guint max_ticks, GError **error) {
  plot_ticks_clear(&a->ticks);
  a->t_lo = a->base_t_lo;
  a->t_hi = a->base_t_hi;
  if (a->autoscale == PLOT_AUTOSCALE_NICE && (a->auto_lo || a->auto_hi)) {
    PlotTicks nt;
    if (!plot_ticks_compute(a->scale, scale_inverse(a->scale, a->t_lo),
                            scale_inverse(a->scale, a->t_hi), max_ticks, TRUE, &nt, error))
      return FALSE;
    if (a->auto_lo)
      a->t_lo = plot_scale_forward(a->scale, nt.lo);
    if (a->auto_hi)
      a->t_hi = plot_scale_forward(a->scale, nt.hi);
    if (a->auto_lo && a->auto_hi) {
      a->ticks = nt; /* exactly the ticks of the rounded range */
    } else {
      plot_ticks_clear(&nt);
    }
  }
  a->lo = a->auto_lo ? scale_inverse(a->scale, a->t_lo) : a->lim_lo;
  a->hi = a->auto_hi ? scale_inverse(a->scale, a->t_hi) : a->lim_hi;
  if (!check_range(axes, a, name, error))
    return FALSE;
  if (!a->ticks.major &&
      !plot_ticks_compute(a->scale, a->lo, a->hi, max_ticks, FALSE, &a->ticks, error))
    return FALSE;
  if (a->integer && a->scale == PLOT_SCALE_LINEAR)
    plot_ticks_keep_integers(&a->ticks);
  return TRUE;
}

gboolean plot_resolve_limits(PlotAxes *axes, GError **error) {
  Range rx = {0}, ry = {0};
  data_ranges(axes, &rx, &ry);
  return resolve_axis(axes, &axes->xa, "x", &rx, error) &&
         resolve_axis(axes, &axes->ya, "y", &ry, error);
}

double plot_map_x(const PlotAxes *axes, double tx) {
  return axes->ax + (tx - axes->xa.t_lo) / (axes->xa.t_hi - axes->xa.t_lo) * axes->aw;
}

double plot_map_y(const PlotAxes *axes, double ty) {
  return axes->ay + axes->ah - (ty - axes->ya.t_lo) / (axes->ya.t_hi - axes->ya.t_lo) * axes->ah;
}

gboolean plot_axes_get_xlim(const PlotAxes *axes, double *lo, double *hi) {
  if (!axes || !axes->fig->laid_out)
    return FALSE;
  if (lo)
    *lo = axes->xa.lo;
  if (hi)
    *hi = axes->xa.hi;
  return TRUE;
}

gboolean plot_axes_get_ylim(const PlotAxes *axes, double *lo, double *hi) {
  if (!axes || !axes->fig->laid_out)
    return FALSE;
  if (lo)
    *lo = axes->ya.lo;
  if (hi)
    *hi = axes->ya.hi;
  return TRUE;
}

const PlotTicks *plot_axes_get_xticks(const PlotAxes *axes) {
  return axes && axes->fig->laid_out ? &axes->xa.ticks : NULL;
}

const PlotTicks *plot_axes_get_yticks(const PlotAxes *axes) {
  return axes && axes->fig->laid_out ? &axes->ya.ticks : NULL;
}

void plot_box_out(double bx, double by, double bw, double bh, double *x, double *y, double *width,
                  double *height) {
  if (x)
    *x = bx;
  if (y)
    *y = by;
  if (width)
    *width = bw;
  if (height)
    *height = bh;
}

gboolean plot_axes_get_area(const PlotAxes *axes, double *x, double *y, double *width,
                            double *height) {
  if (!axes || !axes->fig->laid_out)
    return FALSE;
  plot_box_out(axes->ax, axes->ay, axes->aw, axes->ah, x, y, width, height);
  return TRUE;
}

gboolean plot_axes_data_to_device(const PlotAxes *axes, double x, double y, double *px,
                                  double *py) {
  if (!axes || !axes->fig->laid_out)
    return FALSE;
  double tx = plot_scale_forward(axes->xa.scale, x), ty = plot_scale_forward(axes->ya.scale, y);
  if (isnan(tx) || isnan(ty))
    return FALSE;
  if (px)
    *px = plot_map_x(axes, tx);
  if (py)
    *py = plot_map_y(axes, ty);
  return TRUE;
}
