/* plot/ticks.c: nice tick positions and their labels. */
#include <math.h>
#include <string.h>

#include "plot/internal.h"

/* Relative tolerance (in step units) for "is this tick inside the range":
 * lets 0.6 count as inside [0, 0.6] although 3 * 0.2 != 0.6 in binary. */
#define TICK_TOL 1e-9

static double pow10i(int e) {
  /* Powers of ten up to 10^22 are exact doubles (built by exact products),
   * so 1/10^3 is the double nearest 0.001: ticks equal their literals. */
  if (e > 22)
    return pow(10.0, e);
  double p = 1.0;
  for (int i = 0; i < e; i++)
    p *= 10.0;
  return p;
}

/* m * 10^e, rounded once. */
static double scaled(double m, int e) {
  if (e >= 0)
    return m * pow10i(e);
  if (e >= -22)
    return m / pow10i(-e);
  return m * pow(10.0, e);
}

/* Replace ASCII '-' by U+2212 MINUS SIGN (typographic minus). */
static char *with_minus(const char *s) {
  GString *out = g_string_new(NULL);
  for (const char *p = s; *p; p++) {
    if (*p == '-')
      g_string_append(out, "\xe2\x88\x92");
    else
      g_string_append_c(out, *p);
  }
  return g_string_free(out, FALSE);
}

/* Label of v, a multiple of 10^e (e = exponent of the tick step): fixed
 * with -e decimals, or "m×10^E" with the axis-wide exponent E, so the
 * mantissas of one axis read as one scale. */
static char *format_value(double v, int e, gboolean scientific, int E) {
  char buf[64];
  if (v == 0)
    v = 0.0; /* never "-0" */
  if (!scientific) {
    g_snprintf(buf, sizeof buf, "%.*f", e < 0 ? -e : 0, v);
    return with_minus(buf);
  }
  if (v == 0)
    return g_strdup("0");
  g_snprintf(buf, sizeof buf, "%.*f", MAX(0, E - e), v / pow(10.0, E));
  char *lab = g_strdup_printf("%s\xc3\x97"
                              "10^%d",
                              buf, E);
  char *out = with_minus(lab);
  g_free(lab);
  return out;
}

static char *format_decade(int k) {
  char *lab = g_strdup_printf("10^%d", k);
  char *out = with_minus(lab);
  g_free(lab);
  return out;
}

typedef struct {
  GArray *major;
  GPtrArray *labels;
  GArray *minor;
} Builder;

static void builder_init(Builder *b) {
  b->major = g_array_new(FALSE, FALSE, sizeof(double));
  b->labels = g_ptr_array_new_with_free_func(g_free);
  b->minor = g_array_new(FALSE, FALSE, sizeof(double));
}

static void builder_reset(Builder *b) {
  g_array_set_size(b->major, 0);
  g_ptr_array_set_size(b->labels, 0);
  g_array_set_size(b->minor, 0);
}

static void builder_finish(Builder *b, PlotTicks *t) {
  t->n_major = b->major->len;
  t->major = (double *)(void *)g_array_free(b->major, FALSE);
  g_ptr_array_add(b->labels, NULL);
  t->labels = (char **)g_ptr_array_free(b->labels, FALSE);
  t->n_minor = b->minor->len;
  t->minor = (double *)(void *)g_array_free(b->minor, FALSE);
  if (t->n_minor == 0) {
    g_free(t->minor);
    t->minor = NULL;
  }
}

static void add_major(Builder *b, double v, char *label) {
  g_array_append_val(b->major, v);
  g_ptr_array_add(b->labels, label);
}

/* Linear ticks; the step is m * 10^e, m in {1, 2, 5}. */
static void linear_ticks(double lo, double hi, guint max_ticks, gboolean loose, Builder *b,
                         double *nice_lo, double *nice_hi) {
  static const double mant[3] = {1, 2, 5};
  double span = hi - lo;
  int e0 = (int)floor(log10(span / (double)max_ticks)) - 1;
  double best_m = 1, best_count = G_MAXDOUBLE, k0 = 0, k1 = 0;
  int best_e = e0;
  gboolean found = FALSE;
  for (int e = e0; e <= e0 + 6 && !found; e++) {
    for (int i = 0; i < 3 && !found; i++) {
      double step = scaled(mant[i], e);
      double tol = TICK_TOL * span / step;
      double a, z;
      if (loose) {
        a = floor(lo / step + tol);
        z = ceil(hi / step - tol);
      } else {
        a = ceil(lo / step - tol);
        z = floor(hi / step + tol);
      }
      double count = z - a + 1;
      if (count <= max_ticks || count < best_count) {
        best_count = count;
        best_m = mant[i];
        best_e = e;
        k0 = a;
        k1 = z;
        found = count <= max_ticks;
      }
    }
  }
  double step = scaled(best_m, best_e);
  double tol = TICK_TOL * span / step;
  *nice_lo = scaled(floor(lo / step + tol) * best_m, best_e);
  *nice_hi = scaled(ceil(hi / step - tol) * best_m, best_e);
  double top = MAX(fabs(scaled(k0 * best_m, best_e)), fabs(scaled(k1 * best_m, best_e)));
  gboolean sci = top >= 1e6 || step < 1e-3;
  int E = top > 0 ? (int)floor(log10(top)) : 0;
  /* Count by an integer: when the span is a few ulps of lo, k0 + 1 may
   * round back to k0 and a floating loop would never end. */
  gint64 count = (gint64)MIN(k1 - k0 + 1, 1000.0);
  for (gint64 i = 0; i < count; i++) {
    double k = k0 + (double)i;
    double v = k == 0 ? 0.0 : scaled(k * best_m, best_e);
    if (b->major->len > 0 && v <= g_array_index(b->major, double, b->major->len - 1))
      continue;
    add_major(b, v, format_value(v, best_e, sci, E));
  }
}

/* Log ticks at 1, 2, 5 x 10^k inside [lo, hi]; FALSE when fewer than 2 or
 * more than max_ticks (then b is left empty). */
static gboolean log_125_ticks(double lo, double hi, guint max_ticks, Builder *b) {
  int k0 = (int)floor(log10(lo)) - 1, k1 = (int)ceil(log10(hi)) + 1;
  double tlo = lo * (1 - TICK_TOL), thi = hi * (1 + TICK_TOL);
  for (int k = k0; k <= k1; k++) {
    for (int j = 1; j <= 9; j++) {
      double v = scaled(j, k);
      if (v < tlo || v > thi)
        continue;
      if (j == 1 || j == 2 || j == 5) {
        gboolean sci = v >= 1e6 || v < 1e-3;
        add_major(b, v, format_value(v, k, sci, k));
      } else {
        g_array_append_val(b->minor, v);
      }
    }
  }
  if (b->major->len >= 2 && b->major->len <= max_ticks)
    return TRUE;
  builder_reset(b);
  return FALSE;
}

/* Decade ticks every s decades. Returns FALSE when loose is FALSE and fewer
 * than two decades fall inside [lo, hi]. */
static gboolean log_ticks(double lo, double hi, guint max_ticks, gboolean loose, Builder *b,
                          double *nice_lo, double *nice_hi) {
  static const int steps[4] = {1, 2, 3, 5};
  double dlo = log10(lo), dhi = log10(hi);
  /* Decade indices [d0, d1] of the nice range and [i0, i1] inside. */
  double d0 = floor(dlo + TICK_TOL), d1 = ceil(dhi - TICK_TOL);
  double i0 = ceil(dlo - TICK_TOL), i1 = floor(dhi + TICK_TOL);
  int s = 1;
  double a = 0, z = 0;
  for (int mult = 1;; mult *= 10) {
    gboolean done = FALSE;
    for (int i = 0; i < 4 && !done; i++) {
      s = steps[i] * mult;
      if (loose) {
        a = floor(d0 / s) * s;
        z = ceil(d1 / s) * s;
      } else {
        a = ceil(i0 / s) * s;
        z = floor(i1 / s) * s;
      }
      done = (z - a) / s + 1 <= max_ticks;
    }
    if (done || mult > 1000)
      break;
  }
  if (!loose && (z - a) / s + 1 < 2)
    return FALSE;
  *nice_lo = scaled(1, (int)(floor(d0 / s) * s));
  *nice_hi = scaled(1, (int)(ceil(d1 / s) * s));
  double rlo = loose ? *nice_lo : lo, rhi = loose ? *nice_hi : hi;
  double tlo = rlo * (1 - TICK_TOL), thi = rhi * (1 + TICK_TOL);
  for (double k = a; k <= z; k += s)
    add_major(b, scaled(1, (int)k), format_decade((int)k));
  for (int k = (int)floor(log10(rlo)) - 1; k <= (int)ceil(log10(rhi)); k++) {
    if (s == 1) {
      for (int j = 2; j <= 9; j++) {
        double v = scaled(j, k);
        if (v >= tlo && v <= thi)
          g_array_append_val(b->minor, v);
      }
    } else if (k % s != 0) {
      double v = scaled(1, k);
      if (v >= tlo && v <= thi)
        g_array_append_val(b->minor, v);
    }
  }
  return TRUE;
}

gboolean plot_ticks_compute(PlotScale scale, double lo, double hi, guint max_ticks, gboolean loose,
                            PlotTicks *ticks, GError **error) {
  if (!ticks) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT, "ticks: output is NULL");
    return FALSE;
  }
  memset(ticks, 0, sizeof *ticks);
  if (!isfinite(lo) || !isfinite(hi) || lo >= hi || !isfinite(hi - lo) ||
      (scale == PLOT_SCALE_LOG10 && lo <= 0) ||
      (scale != PLOT_SCALE_LINEAR && scale != PLOT_SCALE_LOG10)) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "ticks for [%g, %g]: need finite lo < hi with a finite span%s", lo, hi,
                scale == PLOT_SCALE_LOG10 ? " with lo > 0 on a log axis" : "");
    return FALSE;
  }
  if (max_ticks < 2 || max_ticks > 1000) {
    g_set_error(error, PLOT_ERROR, PLOT_ERROR_INVALID_ARGUMENT,
                "ticks: at most %u ticks asked; must be in [2, 1000]", max_ticks);
    return FALSE;
  }
  Builder b;
  builder_init(&b);
  double nice_lo = lo, nice_hi = hi;
  if (scale == PLOT_SCALE_LINEAR) {
    linear_ticks(lo, hi, max_ticks, loose, &b, &nice_lo, &nice_hi);
  } else if (!log_ticks(lo, hi, max_ticks, loose, &b, &nice_lo, &nice_hi)) {
    /* Less than two decades inside: keep the decade nice range (what
     * rounding outwards would give) but label finer values. */
    double dummy_lo, dummy_hi;
    builder_reset(&b);
    log_ticks(lo, hi, max_ticks, TRUE, &b, &nice_lo, &nice_hi);
    builder_reset(&b);
    if (!log_125_ticks(lo, hi, max_ticks, &b))
      linear_ticks(lo, hi, max_ticks, FALSE, &b, &dummy_lo, &dummy_hi);
  }
  ticks->lo = nice_lo;
  ticks->hi = nice_hi;
  builder_finish(&b, ticks);
  return TRUE;
}

void plot_ticks_clear(PlotTicks *ticks) {
  if (!ticks)
    return;
  g_free(ticks->major);
  g_strfreev(ticks->labels);
  g_free(ticks->minor);
  memset(ticks, 0, sizeof *ticks);
}

void plot_ticks_keep_integers(PlotTicks *t) {
  gboolean all_whole = TRUE;
  for (gsize i = 0; i < t->n_major; i++)
    all_whole &= t->major[i] == round(t->major[i]);
  if (all_whole)
    return; /* steps of 1 or more: labels are already right */
  gsize k = 0;
  for (gsize i = 0; i < t->n_major; i++) {
    if (t->major[i] != round(t->major[i])) {
      g_free(t->labels[i]);
      continue;
    }
    char buf[32];
    g_snprintf(buf, sizeof buf, "%.0f", t->major[i] == 0 ? 0.0 : t->major[i]);
    g_free(t->labels[i]);
    t->major[k] = t->major[i];
    t->labels[k] = with_minus(buf);
    k++;
  }
  t->labels[k] = NULL;
  t->n_major = k;
  g_free(t->minor);
  t->minor = NULL;
  t->n_minor = 0;
}
