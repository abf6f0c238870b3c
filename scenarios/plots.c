/*
 * scenarios/plots.c: the figures of a point (loss curves over the nodes,
 * privacy loss against distance to the attackers) and the generic line
 * figure the sweep's aggregates use. Cairo figures are built and saved from
 * one thread at a time (the caller's).
 */
#include <math.h>
#include <string.h>

#include "plot/plot.h"
#include "scenarios/internal.h"

ScenPlotInspect scen_plot_inspect = NULL;
gpointer scen_plot_inspect_data = NULL;

void scen_curve_clear(ScenCurve *cv) {
  g_free(cv->label);
  g_free(cv->x);
  g_free(cv->y);
  g_free(cv->lo);
  g_free(cv->hi);
  cv->label = NULL;
  cv->x = cv->y = cv->lo = cv->hi = NULL;
}

/* Whether a log axis can show any of these values. */
static gboolean any_positive(const double *v, guint n) {
  for (guint i = 0; v && i < n; i++)
    if (isfinite(v[i]) && v[i] > 0)
      return TRUE;
  return FALSE;
}

char *scen_collusion_section(const char *name) {
  const char *colon = strchr(name, ':');
  return colon ? g_strndup(name, (gsize)(colon - name)) : g_strdup(name);
}

PlotFigure *scen_plot_lines_figure(const ScenConfig *c, const char *title, guint n_panels,
                                   const char *const *panel_titles, GPtrArray *const *panel_curves,
                                   const char *xlabel, const char *ylabel, guint flags,
                                   GError **error) {
  guint cols = n_panels <= 1 ? 1 : n_panels <= 4 ? 2 : n_panels <= 9 ? 3 : 4;
  cols = MIN(cols, n_panels == 0 ? 1 : n_panels);
  guint rows = n_panels == 0 ? 1 : (n_panels + cols - 1) / cols;
  rows = MIN(rows, 16);
  double pw = c ? c->panel_w : 420, ph = c ? c->panel_h : 290;
  PlotFigure *fig = plot_figure_new(pw * cols, ph * rows, rows, cols, error);
  if (fig == NULL)
    return NULL;
  if (c && !plot_figure_set_png_scale(fig, c->figure_dpi / 72.0, error)) {
    plot_figure_free(fig);
    return NULL;
  }
  if (title)
    plot_figure_set_title(fig, title);
  static const PlotMarker markers[3] = {PLOT_MARKER_CIRCLE, PLOT_MARKER_SQUARE,
                                        PLOT_MARKER_TRIANGLE};
  gboolean ok = TRUE;
  /* One y range over every panel's lines, bars and bands. */
  gboolean ylog = (flags & SCEN_PLOT_YLOG) != 0;
  double ylo = INFINITY, yhi = -INFINITY;
  for (guint p = 0; (flags & SCEN_PLOT_SHARED_Y) && p < n_panels; p++)
    for (guint i = 0; i < panel_curves[p]->len; i++) {
      const ScenCurve *cv = g_ptr_array_index(panel_curves[p], i);
      const double *v[3] = {cv->y, cv->lo, cv->hi};
      for (guint k = 0; k < 3; k++)
        for (guint j = 0; v[k] && j < cv->n; j++)
          if (isfinite(v[k][j]) && (!ylog || v[k][j] > 0))
            ylo = MIN(ylo, v[k][j]), yhi = MAX(yhi, v[k][j]);
    }
  gboolean shared = isfinite(ylo) && yhi > ylo;
  if (shared) {
    /* 5% of the range on each side, in the axis's own scale. */
    double a = ylog ? log10(ylo) : ylo, b = ylog ? log10(yhi) : yhi, pad = 0.05 * (b - a);
    ylo = ylog ? pow(10, a - pad) : a - pad;
    yhi = ylog ? pow(10, b + pad) : b + pad;
  }
  /* The cells past the last panel stay blank (no empty 0-to-1 axes). */
  for (guint p = n_panels; p < rows * cols; p++)
    plot_axes_set_hidden(plot_figure_axes(fig, p / cols, p % cols), TRUE);
  for (guint p = 0; ok && p < n_panels && p < rows * cols; p++) {
    PlotAxes *ax = plot_figure_axes(fig, p / cols, p % cols);
    if (panel_titles && panel_titles[p])
      plot_axes_set_title(ax, panel_titles[p]);
    plot_axes_set_xlabel(ax, xlabel);
    plot_axes_set_ylabel(ax, ylabel);
    gboolean has_x = FALSE, has_y = FALSE;
    const GPtrArray *curves = panel_curves[p];
    double xmin = INFINITY, xmax = -INFINITY;
    gboolean whole = TRUE; /* every x a whole number (rounds, hops) */
    for (guint i = 0; i < curves->len; i++) {
      const ScenCurve *cv = g_ptr_array_index(curves, i);
      has_x |= any_positive(cv->x, cv->n);
      has_y |= any_positive(cv->y, cv->n);
      for (guint k = 0; k < cv->n; k++)
        if (isfinite(cv->x[k])) {
          xmin = MIN(xmin, cv->x[k]), xmax = MAX(xmax, cv->x[k]);
          whole &= cv->x[k] == round(cv->x[k]);
        }
    }
    gboolean xlog = (flags & SCEN_PLOT_XLOG) && has_x, xint = (flags & SCEN_PLOT_XINT) && !xlog;
    plot_axes_set_xscale(ax, xlog ? PLOT_SCALE_LOG10 : PLOT_SCALE_LINEAR);
    plot_axes_set_yscale(ax,
                         (flags & SCEN_PLOT_YLOG) && has_y ? PLOT_SCALE_LOG10 : PLOT_SCALE_LINEAR);
    plot_axes_set_integer_ticks(ax, !xlog && (xint || whole), FALSE);
    if (xint && isfinite(xmin))
      ok = plot_axes_set_xlim(ax, xmin - 0.5, xmax + 0.5, error);
    if (ok && shared)
      ok = plot_axes_set_ylim(ax, ylo, yhi, error);
    plot_axes_set_legend(ax, curves->len > 1 ? PLOT_LEGEND_BEST : PLOT_LEGEND_NONE);
    guint n = curves->len;
    for (guint i = 0; ok && i < n; i++) {
      const ScenCurve *cv = g_ptr_array_index(curves, i);
      /* Earlier curves are drawn wider, so one drawn over an equal one
       * leaves it showing on both sides (a few curves only: many lines
       * are told apart by colour). */
      double width = n <= 4 ? 1.5 + 1.1 * (n - 1 - i) : 1.5;
      PlotStyle st = {.dash = cv->dashed ? PLOT_DASH_DASHED : PLOT_DASH_SOLID,
                      .marker = cv->markers ? markers[i % 3] : PLOT_MARKER_NONE,
                      .marker_size = 5 + 1.5 * (n <= 4 ? n - 1 - i : 0),
                      .width = width,
                      .color = plot_palette(i)};
      /* Error bars of integer-x curves side by side, not on top. */
      double *x = g_memdup2(cv->x, MAX(cv->n, 1) * sizeof(double));
      if (xint && cv->errorbars && n > 1)
        for (guint k = 0; k < cv->n; k++)
          x[k] += 0.08 * ((double)i - (n - 1) / 2.0);
      ok = plot_axes_add_line(ax, cv->label, cv->n, x, cv->y, &st, error);
      if (ok && cv->lo && cv->hi) {
        /* Light bands: several overlapping ones still show each line. */
        PlotStyle bs = {.color = st.color, .width = 1.0, .alpha = n > 2 ? 0.08 : 0.15};
        if (cv->errorbars)
          ok = plot_axes_add_errorbars(ax, NULL, cv->n, x, cv->lo, cv->hi, &bs, error);
        else
          ok = plot_axes_add_band(ax, NULL, cv->n, x, cv->lo, cv->hi, &bs, error);
      }
      g_free(x);
    }
  }
  if (!ok) {
    plot_figure_free(fig);
    return NULL;
  }
  return fig;
}

gboolean scen_plot_lines(const ScenConfig *c, const char *dir, const char *base, char **path_out,
                         const char *title, guint n_panels, const char *const *panel_titles,
                         GPtrArray *const *panel_curves, const char *xlabel, const char *ylabel,
                         guint flags, GError **error) {
  PlotFigure *fig = scen_plot_lines_figure(c, title, n_panels, panel_titles, panel_curves, xlabel,
                                           ylabel, flags, error);
  if (fig == NULL)
    return FALSE;
  char *name = g_strdup_printf("%s.%s", base, c && c->figure_ext ? c->figure_ext : "svg");
  char *path = g_build_filename(dir, name, NULL);
  gboolean ok = plot_figure_save(fig, path, error);
  if (ok && scen_plot_inspect != NULL)
    scen_plot_inspect(base, fig, n_panels, panel_curves, scen_plot_inspect_data);
  plot_figure_free(fig);
  g_free(name);
  if (ok && path_out)
    *path_out = path;
  else
    g_free(path);
  return ok;
}

static void free_curve(gpointer p) {
  scen_curve_clear(p);
  g_free(p);
}

/* Frees a figure's @n panels (each an array of curves) and their titles. */
static void panels_free(GPtrArray **panels, guint n, char **titles) {
  for (guint i = 0; i < n; i++)
    g_ptr_array_unref(panels[i]);
  g_free(panels);
  g_strfreev(titles);
}

/* The index of string @key in @keys, appended there (taking @key) when
 * absent, else @key freed; @added tells which. Linear in keys->len. */
static guint key_index(GPtrArray *keys, char *key, gboolean *added) {
  guint at;
  *added = !g_ptr_array_find_with_equal_func(keys, key, g_str_equal, &at);
  if (*added) {
    at = keys->len;
    g_ptr_array_add(keys, key);
  } else {
    g_free(key);
  }
  return at;
}

/* Losses pooled at one round: their sum, count and range. Not a
 * ScenDistStat (the privacy figures' pool): a diverged run's NaN loss must
 * stay NaN in the mean (not drawn) rather than count as unbounded. */
typedef struct {
  double sum, min, max;
  guint n;
} Pool;

/* A pool of no values yet. */
static const Pool POOL_EMPTY = {0, INFINITY, -INFINITY, 0};

static void pool_add(Pool *p, double v) {
  p->sum += v;
  p->min = MIN(p->min, v);
  p->max = MAX(p->max, v);
  p->n++;
}

/* A curve's points as they are found: x, the mean, the band's ends. */
typedef struct {
  GArray *x, *y, *lo, *hi;
} Points;

static void points_init(Points *pt) {
  pt->x = g_array_new(FALSE, FALSE, sizeof(double));
  pt->y = g_array_new(FALSE, FALSE, sizeof(double));
  pt->lo = g_array_new(FALSE, FALSE, sizeof(double));
  pt->hi = g_array_new(FALSE, FALSE, sizeof(double));
}

/* The point (@x, @mean) with the band @lo..@hi. */
static void points_add(Points *pt, double x, double mean, double lo, double hi) {
  g_array_append_val(pt->x, x);
  g_array_append_val(pt->y, mean);
  g_array_append_val(pt->lo, lo);
  g_array_append_val(pt->hi, hi);
}

/* The point (@x, mean of @s) with the band min..max; @s holds one value at
 * least. */
static void points_add_stat(Points *pt, double x, const ScenDistStat *s) {
  points_add(pt, x, scen_dist_stat_mean(s), scen_dist_stat_min(s), scen_dist_stat_max(s));
}

/* Moves the points into @cv. */
static void points_take(Points *pt, ScenCurve *cv) {
  cv->n = pt->x->len;
  cv->x = (double *)g_array_free(pt->x, FALSE);
  cv->y = (double *)g_array_free(pt->y, FALSE);
  cv->lo = (double *)g_array_free(pt->lo, FALSE);
  cv->hi = (double *)g_array_free(pt->hi, FALSE);
}

/* Mean over nodes of each metric column at each step, band = min..max over nodes. */
static ScenCurve *loss_curve(const ScenRunOutput *o, int which, const char *label) {
  ScenCurve *cv = g_new0(ScenCurve, 1);
  cv->label = g_strdup(label);
  Points pt;
  points_init(&pt);
  for (guint i = 0; i < o->n_metrics;) {
    guint step = o->metrics[i].step;
    Pool p = POOL_EMPTY;
    for (; i < o->n_metrics && o->metrics[i].step == step; i++)
      pool_add(&p, which == 0 ? o->metrics[i].train_loss : o->metrics[i].test_loss);
    points_add(&pt, step, p.sum / p.n, p.min, p.max);
  }
  points_take(&pt, cv);
  return cv;
}

/* Whether victim row @r belongs to the collusion section @sec (its sets'
 * names are SEC or SEC:LABEL). */
static gboolean in_section(const ScenConfig *c, const ScenVictimRow *r, const char *sec) {
  char *s = scen_collusion_section(c->collusions[r->collusion].name);
  gboolean in = g_str_equal(s, sec);
  g_free(s);
  return in;
}

/* RDP against distance for one (collusion section, trust), pooled over the
 * section's attacker sets: mean over the (set, victim) pairs at each
 * distance, bars from min to max; or the Muffliato bound (@muff). */
static ScenCurve *distance_curve(const ScenConfig *c, const ScenRunOutput *o, const char *sec,
                                 guint trust, gboolean muff, const char *label) {
  gint dmax = -1;
  gboolean *mine = g_new0(gboolean, MAX(o->victims->len, 1));
  for (guint i = 0; i < o->victims->len; i++) {
    const ScenVictimRow *r = &g_array_index(o->victims, ScenVictimRow, i);
    mine[i] = r->trust == trust && in_section(c, r, sec);
    if (mine[i])
      dmax = MAX(dmax, r->distance);
  }
  ScenCurve *cv = g_new0(ScenCurve, 1);
  cv->label = g_strdup(label);
  cv->markers = TRUE;
  cv->errorbars = TRUE;
  cv->dashed = muff;
  Points pt;
  points_init(&pt);
  for (gint d = 1; d <= dmax; d++) {
    ScenDistStat s = {0};
    for (guint i = 0; i < o->victims->len; i++) {
      const ScenVictimRow *r = &g_array_index(o->victims, ScenVictimRow, i);
      if (mine[i] && r->distance == d)
        scen_dist_stat_add(&s, muff ? r->muffliato_rdp : r->rdp);
    }
    if (scen_dist_stat_total(&s) > 0)
      points_add_stat(&pt, d, &s);
  }
  g_free(mine);
  points_take(&pt, cv);
  return cv;
}

/* The x axis of the figures of privacy loss by distance. */
#define DISTANCE_LABEL "distance to the nearest attacker (hops)"

/* The most panels a figure holds (16 rows of 4). */
#define MAX_PANELS 64

gboolean scen_plot_point(const char *dir, const ScenConfig *c, const ScenRunOutput *o,
                         GError **error) {
  gboolean ok = TRUE;
  if (o->n_metrics > 0) {
    GPtrArray *curves = g_ptr_array_new_with_free_func(free_curve);
    g_ptr_array_add(curves, loss_curve(o, 0, "train loss"));
    g_ptr_array_add(curves, loss_curve(o, 1, "test loss"));
    char *title = g_strdup_printf("%s: %s, mean over %u nodes (band: min to max)", c->name,
                                  c->protocol, c->n);
    const char *pt[] = {NULL};
    ok = scen_plot_lines(c, dir, "loss", NULL, title, 1, pt, &curves, "round", "loss",
                         SCEN_PLOT_YLOG, error);
    g_free(title);
    g_ptr_array_unref(curves);
  }
  if (ok && o->victims && o->victims->len > 0) {
    /* One panel per [collusion.NAME] section: `nodes = all` (every node in
     * turn) gives one panel pooling its sets, as the paper's Figure 2. */
    GPtrArray *secs = g_ptr_array_new_with_free_func(g_free);
    GArray *sizes = g_array_new(FALSE, TRUE, sizeof(guint));
    for (guint i = 0; i < c->n_collusions; i++) {
      gboolean added;
      guint at = key_index(secs, scen_collusion_section(c->collusions[i].name), &added);
      if (added) {
        guint zero = 0;
        g_array_append_val(sizes, zero);
      }
      g_array_index(sizes, guint, at)++;
    }
    guint n_secs = secs->len, np = MIN(n_secs, MAX_PANELS);
    GPtrArray **panels = g_new0(GPtrArray *, np);
    char **titles = g_new0(char *, np + 1);
    for (guint i = 0; i < np; i++) {
      const char *sec = g_ptr_array_index(secs, i);
      panels[i] = g_ptr_array_new_with_free_func(free_curve);
      guint n_sets = g_array_index(sizes, guint, i);
      if (n_sets > 1) {
        titles[i] = g_strdup_printf("[collusion.%s]: %u attacker sets pooled", sec, n_sets);
      } else {
        GString *t = g_string_new("attackers ");
        for (guint k = 0; k < c->n_collusions; k++) {
          char *ks = scen_collusion_section(c->collusions[k].name);
          if (g_str_equal(ks, sec))
            for (guint m = 0; m < c->collusions[k].n_nodes; m++)
              g_string_append_printf(t, "%s%u", m ? "," : "", c->collusions[k].nodes[m]);
          g_free(ks);
        }
        g_string_append_printf(t, " (%s)", sec);
        titles[i] = g_string_free(t, FALSE);
      }
      for (guint j = 0; j < c->n_trust; j++) {
        char *label = g_strdup_printf("%s (ours)", priv_trust_name(c->trust[j]));
        g_ptr_array_add(panels[i], distance_curve(c, o, sec, j, FALSE, label));
        g_free(label);
        gboolean has_muff = FALSE;
        for (guint v = 0; v < o->victims->len && !has_muff; v++) {
          const ScenVictimRow *r = &g_array_index(o->victims, ScenVictimRow, v);
          has_muff = r->trust == j && isfinite(r->muffliato_rdp) && in_section(c, r, sec);
        }
        if (has_muff)
          g_ptr_array_add(panels[i],
                          distance_curve(c, o, sec, j, TRUE, "pndp (Muffliato's bound)"));
      }
    }
    char *ylabel = g_strdup_printf("RDP at alpha = %g (mean; bars min to max)", c->alpha);
    char *more = n_secs > np ? g_strdup_printf(" (first %u of %u collusion sections)", np, n_secs)
                             : g_strdup("");
    char *title = g_strdup_printf("%s: %s, T = %u, privacy loss by distance to the attackers%s",
                                  c->name, c->protocol, c->rounds, more);
    ok = scen_plot_lines(c, dir, "privacy", NULL, title, np, (const char *const *)titles, panels,
                         DISTANCE_LABEL, ylabel, SCEN_PLOT_YLOG | SCEN_PLOT_XINT, error);
    g_free(more);
    g_free(title);
    g_free(ylabel);
    panels_free(panels, np, titles);
    g_ptr_array_unref(secs);
    g_array_unref(sizes);
  }
  return ok;
}

/* ---- A sweep's figures ---- */

/* A sweep's figure: saved as @base in its folder, its path added to
 * @figures. The arguments after @figures are scen_plot_lines's. */
static gboolean sweep_figure(const ScenSweepResults *r, const char *base, GPtrArray *figures,
                             const char *title, guint n_panels, const char *const *panel_titles,
                             GPtrArray *const *panel_curves, const char *xlabel, const char *ylabel,
                             guint flags, GError **error) {
  char *path = NULL;
  if (!scen_plot_lines(r->cfg[0], r->out_dir, base, &path, title, n_panels, panel_titles,
                       panel_curves, xlabel, ylabel, flags, error))
    return FALSE;
  g_ptr_array_add(figures, path);
  return TRUE;
}

/* The values of the non-seed axes of a point, "dsgd, 0.5" (the noise axis
 * too unless @skip_noise). Newly allocated; "" when there are none. */
static char *group_label(const GPtrArray *axes, const guint *items, gint seed_axis, gint noise_axis,
                         gboolean skip_noise) {
  GString *label = g_string_new(NULL);
  for (guint a = 0; a < axes->len; a++) {
    if ((gint)a == seed_axis || (skip_noise && (gint)a == noise_axis))
      continue;
    const ScenSweepAxis *x = g_ptr_array_index(axes, a);
    char *key = scen_axis_label(axes, a);
    if ((gint)a == noise_axis)
      g_string_append_printf(label, "%s%s = %s", label->len ? ", " : "", key, x->items[items[a]]);
    else
      g_string_append_printf(label, "%s%s", label->len ? ", " : "", x->items[items[a]]);
    g_free(key);
  }
  return g_string_free(label, FALSE);
}

ScenCurve *scen_group_curve(const ScenGroup *g, gboolean acc, char *label) {
  ScenCurve *cv = g_new0(ScenCurve, 1);
  gsize size = MAX(g->n_rounds, 1) * sizeof(double);
  cv->label = label;
  cv->n = g->n_rounds;
  cv->x = g_memdup2(g->round, size);
  cv->y = g_memdup2(acc ? g->acc_curve : g->test_gmean, size);
  cv->lo = g_memdup2(acc ? g->acc_lo : g->test_lo, size);
  cv->hi = g_memdup2(acc ? g->acc_hi : g->test_hi, size);
  return cv;
}

/* What an accounting is, for labels: "LDP" has no attackers; the others
 * name their trust model and collusion set. */
static char *accounting_name(const ScenAccountingMax *a) {
  if (g_str_equal(a->trust, "ldp"))
    return g_strdup("LDP");
  char *up = g_ascii_strup(a->trust, -1);
  char *name = g_strdup_printf("%s, collusion %s", up, a->collusion);
  g_free(up);
  return name;
}

/* The accounting of point result @p with @a's trust model and collusion
 * set, NULL when it has none. */
static const ScenAccountingMax *find_accounting(const ScenPointResult *p,
                                                const ScenAccountingMax *a) {
  for (guint i = 0; p->accountings && i < p->accountings->len; i++) {
    const ScenAccountingMax *b = &g_array_index(p->accountings, ScenAccountingMax, i);
    if (g_str_equal(a->trust, b->trust) && g_str_equal(a->collusion, b->collusion))
      return b;
  }
  return NULL;
}

/* The accounting a loss curve's label quotes: LDP when there is one (every
 * victim's guarantee against every message), else the first. */
static const ScenAccountingMax *label_accounting(const ScenPointResult *p) {
  if (p->accountings == NULL || p->accountings->len == 0)
    return NULL;
  for (guint i = 0; i < p->accountings->len; i++) {
    const ScenAccountingMax *a = &g_array_index(p->accountings, ScenAccountingMax, i);
    if (g_str_equal(a->trust, "ldp"))
      return a;
  }
  return &g_array_index(p->accountings, ScenAccountingMax, 0);
}

/* "LABEL, ε = 1.29": the group's worst-victim epsilon beside its name, so
 * that methods compared at the same sigma show their different privacy.
 * Takes @label (may be NULL); newly allocated. */
static char *with_epsilon(char *label, const ScenAccountingMax *a) {
  if (a == NULL)
    return label;
  char *l = g_strdup_printf("%s%sε = %.3g", label ? label : "", label ? ", " : "", a->max_eps);
  g_free(label);
  return l;
}

/* Whether point @p belongs to the group whose first point is @first: the
 * same item on every axis but the seed's. */
static gboolean same_group(const GPtrArray *axes, gint seed_axis, guint p, guint first,
                           guint *items, guint *items0) {
  scen_sweep_point(axes, p, items);
  scen_sweep_point(axes, first, items0);
  for (guint a = 0; a < axes->len; a++)
    if ((gint)a != seed_axis && items[a] != items0[a])
      return FALSE;
  return TRUE;
}

/* Adds the rows of @dir/privacy.csv to @pool (scen_dist_csv_add: by
 * accounting in first-appearance order). A point without the file adds
 * nothing. */
static void add_point_privacy(const char *dir, ScenDistCsv *pool) {
  GPtrArray *rows = scen_csv_read(dir, "privacy.csv");
  if (rows == NULL)
    return;
  scen_dist_csv_add(pool, rows, NULL, NULL);
  g_ptr_array_unref(rows);
}

/* privacy_vs_distance: a panel per group (up to MAX_PANELS), a line per
 * accounting: the mean epsilon of the victims at each hop distance from the
 * attackers, over the group's seeds, bars from min to max: the decay of
 * privacy loss with distance under PNDP against the flat LDP. */
static gboolean plot_sweep_distance(const ScenSweepResults *r, GPtrArray *figures, GError **error) {
  const GArray *groups = r->ag->groups;
  const ScenConfig *c0 = r->cfg[0];
  guint np = MIN(groups->len, MAX_PANELS);
  guint *items = g_new0(guint, MAX(r->axes->len, 1)), *items0 = g_new0(guint, MAX(r->axes->len, 1));
  GPtrArray **panels = g_new0(GPtrArray *, MAX(np, 1));
  char **titles = g_new0(char *, np + 1);
  gboolean any = FALSE;
  for (guint gi = 0; gi < np; gi++) {
    const ScenGroup *g = &g_array_index(groups, ScenGroup, gi);
    ScenDistCsv *pool = scen_dist_csv_new();
    for (guint p = 0; p < r->n; p++)
      if (same_group(r->axes, r->ag->seed_axis, p, g->first, items, items0))
        add_point_privacy(r->dirs[p], pool);
    GPtrArray *accs = pool->accs;
    gboolean one_set = TRUE;
    for (guint i = 1; i < accs->len; i++)
      one_set &= g_str_equal(((ScenDistAcc *)g_ptr_array_index(accs, i))->collusion,
                             ((ScenDistAcc *)g_ptr_array_index(accs, 0))->collusion);
    panels[gi] = g_ptr_array_new_with_free_func(free_curve);
    for (guint i = 0; i < accs->len; i++) {
      const ScenDistAcc *acc = g_ptr_array_index(accs, i);
      ScenCurve *cv = g_new0(ScenCurve, 1);
      cv->label = one_set ? g_strdup(acc->trust)
                          : g_strdup_printf("%s, attackers %s", acc->trust, acc->collusion);
      cv->markers = cv->errorbars = TRUE;
      Points pt;
      points_init(&pt);
      /* From distance 1: the attackers themselves are no victims. */
      for (guint k = 1; k < acc->epsilon->len; k++) {
        const ScenDistStat *p = scen_dist_csv_stat(acc, k, FALSE);
        if (p != NULL)
          points_add_stat(&pt, k, p);
      }
      points_take(&pt, cv);
      any |= cv->n > 0;
      g_ptr_array_add(panels[gi], cv);
    }
    char *label = group_label(r->axes, items0, r->ag->seed_axis, r->ag->noise_axis, FALSE);
    titles[gi] = label[0] ? label : (g_free(label), g_strdup(c0->name));
    scen_dist_csv_free(pool);
  }
  gboolean ok = TRUE;
  if (any) {
    char *title = g_strdup_printf("%s: privacy loss by hop distance from the attackers; mean "
                                  "over victims and seeds, bars: min to max",
                                  c0->name);
    char *ylabel = g_strdup_printf("ε at δ = %g", c0->delta);
    ok = sweep_figure(r, "privacy_vs_distance", figures, title, np, (const char *const *)titles,
                      panels, DISTANCE_LABEL, ylabel,
                      SCEN_PLOT_YLOG | SCEN_PLOT_XINT | SCEN_PLOT_SHARED_Y, error);
    g_free(ylabel);
    g_free(title);
  }
  panels_free(panels, np, titles);
  g_free(items);
  g_free(items0);
  return ok;
}

/* The loss (and, for a classification task, accuracy) curves: every group
 * of seeds one line of one figure, the noise level and the epsilon in its
 * label. Up to 8 groups (the palette's colours) share one panel; more get
 * a panel per setting of the other axes, a line per noise level, so no two
 * lines share a colour. @la: the accounting the labels name (nullable);
 * @eps_what its words in the title; @items: scratch of one per axis. */
static gboolean plot_curves(const ScenSweepResults *r, const ScenAccountingMax *la,
                            const char *eps_what, gboolean has_acc, guint *items,
                            GPtrArray *figures, GError **error) {
  const GPtrArray *axes = r->axes;
  const GArray *groups = r->ag->groups;
  gint seed_axis = r->ag->seed_axis, noise_axis = r->ag->noise_axis;
  const ScenConfig *c0 = r->cfg[0];
  guint n_seeds = groups->len ? g_array_index(groups, ScenGroup, 0).n : 0;
  gboolean ok = TRUE;
  guint n_lines = 0;
  for (guint gi = 0; gi < groups->len; gi++)
    n_lines += g_array_index(groups, ScenGroup, gi).n_rounds > 0;
  gboolean split = n_lines > 8 && noise_axis >= 0;
  for (int acc = 0; acc <= (has_acc ? 1 : 0) && ok; acc++) {
    GPtrArray *pkeys = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *panels = g_ptr_array_new(); /* GPtrArray* of curves each */
    for (guint gi = 0; gi < groups->len; gi++) {
      const ScenGroup *g = &g_array_index(groups, ScenGroup, gi);
      if (g->n_rounds == 0)
        continue;
      scen_sweep_point(axes, g->first, items);
      char *pkey = split ? group_label(axes, items, seed_axis, noise_axis, TRUE) : g_strdup("");
      char *label;
      if (split) {
        char *key = scen_axis_label(axes, (guint)noise_axis);
        const ScenSweepAxis *nx = g_ptr_array_index(axes, noise_axis);
        label = g_strdup_printf("%s = %s", key, nx->items[items[noise_axis]]);
        g_free(key);
      } else {
        label = group_label(axes, items, seed_axis, noise_axis, FALSE);
      }
      if (!label[0]) {
        g_free(label);
        label = NULL;
      }
      const ScenAccountingMax *ga = la ? find_accounting(r->res[g->first], la) : NULL;
      label = with_epsilon(label, ga);
      gboolean added;
      guint at = key_index(pkeys, pkey, &added);
      if (added)
        g_ptr_array_add(panels, g_ptr_array_new_with_free_func(free_curve));
      g_ptr_array_add(g_ptr_array_index(panels, at), scen_group_curve(g, acc, label));
    }
    guint np = MIN(panels->len, MAX_PANELS);
    char *title =
        acc ? g_strdup_printf("%s: test accuracy, mean over nodes and %u seed%s; band: 95%% "
                              "t-interval%s",
                              c0->name, n_seeds, n_seeds == 1 ? "" : "s", eps_what)
            : g_strdup_printf("%s: test loss, mean over nodes, geometric mean over %u seed%s; "
                              "band: 95%% t-interval%s",
                              c0->name, n_seeds, n_seeds == 1 ? "" : "s", eps_what);
    char **pt = g_new0(char *, np + 1);
    for (guint k = 0; k < np && split; k++)
      pt[k] = g_strdup(g_ptr_array_index(pkeys, k));
    ok = sweep_figure(r, acc ? "accuracy" : "loss", figures, title, np, (const char *const *)pt,
                      (GPtrArray *const *)panels->pdata, "round",
                      acc ? "test accuracy" : "test loss", acc ? 0 : SCEN_PLOT_YLOG, error);
    g_free(title);
    g_strfreev(pt);
    for (guint k = 0; k < panels->len; k++)
      g_ptr_array_unref(g_ptr_array_index(panels, k));
    g_ptr_array_unref(panels);
    g_ptr_array_unref(pkeys);
  }
  return ok;
}

/* Final loss against epsilon: a panel per accounting (each its own
 * epsilon), a line per setting of the other axes, a point per noise level;
 * a group without a finite epsilon (no noise) a dashed reference line.
 * @items: scratch of one per axis. */
static gboolean plot_loss_vs_epsilon(const ScenSweepResults *r, guint *items, GPtrArray *figures,
                                     GError **error) {
  const GPtrArray *axes = r->axes;
  const GArray *groups = r->ag->groups;
  gint seed_axis = r->ag->seed_axis, noise_axis = r->ag->noise_axis;
  const ScenConfig *c0 = r->cfg[0];
  guint n_seeds = groups->len ? g_array_index(groups, ScenGroup, 0).n : 0;
  gboolean ok = TRUE;
  guint n_acc = r->res[0]->accountings ? r->res[0]->accountings->len : 0;
  n_acc = MIN(n_acc, MAX_PANELS);
  double eps_lo = INFINITY, eps_hi = 0;
  for (guint gi = 0; gi < groups->len; gi++) {
    const ScenPointResult *p = r->res[g_array_index(groups, ScenGroup, gi).first];
    for (guint a = 0; p->accountings && a < p->accountings->len; a++) {
      double e = g_array_index(p->accountings, ScenAccountingMax, a).max_eps;
      if (isfinite(e) && e > 0)
        eps_lo = MIN(eps_lo, e), eps_hi = MAX(eps_hi, e);
    }
  }
  if (isfinite(eps_lo) && eps_hi <= eps_lo * 1.01) {
    /* One privacy level: give the axis some room around it. */
    eps_lo /= 2;
    eps_hi *= 2;
  }
  GPtrArray **epanels = g_new0(GPtrArray *, MAX(n_acc, 1));
  char **etitles = g_new0(char *, n_acc + 1);
  gboolean any_line = FALSE;
  for (guint a = 0; a < n_acc; a++) {
    const ScenAccountingMax *am0 = &g_array_index(r->res[0]->accountings, ScenAccountingMax, a);
    etitles[a] = accounting_name(am0);
    GPtrArray *lines = epanels[a] = g_ptr_array_new_with_free_func(free_curve);
    GHashTable *line_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint gi = 0; gi < groups->len && isfinite(eps_lo); gi++) {
      const ScenGroup *g = &g_array_index(groups, ScenGroup, gi);
      const ScenAccountingMax *am = find_accounting(r->res[g->first], am0);
      if (am == NULL)
        continue;
      scen_sweep_point(axes, g->first, items);
      char *key = group_label(axes, items, seed_axis, noise_axis, TRUE);
      if (!key[0]) {
        g_free(key);
        key = g_strdup("all");
      }
      double fm = g->final_gmean, flo = g->final_lo, fhi = g->final_hi; /* groups.csv's */
      gpointer li;
      ScenCurve *cv;
      if (g_hash_table_lookup_extended(line_of, key, NULL, &li)) {
        cv = g_ptr_array_index(lines, GPOINTER_TO_UINT(li));
        g_free(key);
      } else {
        cv = g_new0(ScenCurve, 1);
        cv->label = g_strdup(key);
        cv->markers = TRUE;
        cv->errorbars = TRUE;
        g_hash_table_insert(line_of, key, GUINT_TO_POINTER(lines->len));
        g_ptr_array_add(lines, cv);
      }
      if (!isfinite(am->max_eps)) {
        /* No finite epsilon (no noise): a dashed reference line. */
        if (cv->n == 0) {
          cv->dashed = TRUE;
          cv->markers = FALSE;
          cv->n = 2;
          cv->x = g_new(double, 2);
          cv->y = g_new(double, 2);
          cv->x[0] = eps_lo;
          cv->x[1] = eps_hi;
          cv->y[0] = cv->y[1] = fm;
          cv->errorbars = FALSE;
        }
        continue;
      }
      if (cv->dashed)
        continue; /* a reference line already; points of a noisy group do not join it */
      cv->x = g_renew(double, cv->x, cv->n + 1);
      cv->y = g_renew(double, cv->y, cv->n + 1);
      cv->lo = g_renew(double, cv->lo, cv->n + 1);
      cv->hi = g_renew(double, cv->hi, cv->n + 1);
      cv->x[cv->n] = am->max_eps;
      cv->y[cv->n] = fm;
      cv->lo[cv->n] = flo;
      cv->hi[cv->n] = fhi;
      cv->n++;
    }
    g_hash_table_unref(line_of);
    any_line |= lines->len > 0;
  }
  if (ok && any_line && noise_axis >= 0) {
    char *xl = g_strdup_printf("ε at δ = %g, worst victim", c0->delta);
    char *title2 = g_strdup_printf("%s: final test loss against privacy; geometric mean over "
                                   "%u seed%s, bars: 95%% t-interval",
                                   c0->name, n_seeds, n_seeds == 1 ? "" : "s");
    ok = sweep_figure(r, "loss_vs_epsilon", figures, title2, n_acc, (const char *const *)etitles,
                      epanels, xl, "final test loss", SCEN_PLOT_XLOG | SCEN_PLOT_YLOG, error);
    g_free(title2);
    g_free(xl);
  }
  panels_free(epanels, n_acc, etitles);
  return ok;
}

gboolean scen_plot_sweep(const ScenSweepResults *r, GPtrArray *figures, GError **error) {
  const GArray *groups = r->ag->groups;
  const ScenConfig *c0 = r->cfg[0];
  gboolean ok = TRUE;
  guint *items = g_new0(guint, MAX(r->axes->len, 1));
  gboolean has_curves = FALSE, has_acc = FALSE;
  for (guint gi = 0; gi < groups->len; gi++) {
    const ScenGroup *g = &g_array_index(groups, ScenGroup, gi);
    has_curves |= g->n_rounds > 0;
    const ScenPointResult *p = r->res[g->first];
    for (guint k = 0; k < p->n_rounds && p->acc; k++)
      has_acc |= isfinite(p->acc[k]);
  }
  const ScenAccountingMax *la = groups->len ? label_accounting(r->res[0]) : NULL;
  char *eps_what = la ? g_strdup_printf("; ε: worst victim, %s, δ = %g",
                                        g_str_equal(la->trust, "ldp") ? "LDP" : la->trust,
                                        c0->delta)
                      : g_strdup("");
  if (c0->plots && has_curves)
    ok = plot_curves(r, la, eps_what, has_acc, items, figures, error) &&
         plot_loss_vs_epsilon(r, items, figures, error);
  /* By distance only when some trust model depends on it (LDP is flat). */
  gboolean by_distance = FALSE;
  for (guint i = 0; i < c0->n_trust; i++)
    by_distance |= c0->trust[i] != PRIV_TRUST_LDP;
  if (ok && c0->plots && by_distance)
    ok = plot_sweep_distance(r, figures, error);
  g_free(eps_what);
  g_free(items);
  return ok;
}
