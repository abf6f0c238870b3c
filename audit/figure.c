/*
 * audit/figure.c: the empirical trade-off curve of the np attack over the
 * GDP trade-off curve of the accounted mu (audit/audit.h).
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "audit/internal.h"
#include "plot/plot.h"
#include "protocols/protocols.h"

/* Points per curve: enough for a smooth line in a figure. */
#define CURVE_POINTS 201

/* G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu) at @n alphas in [0, 1]. */
static void gdp_curve(double mu, guint n, double *alpha, double *beta) {
  for (guint i = 0; i < n; i++) {
    alpha[i] = (double)i / (n - 1);
    /* The ends are exact: G_mu(0) = 1 and G_mu(1) = 0 for finite mu. */
    beta[i] = i == 0       ? 1.0
              : i == n - 1 ? 0.0
                           : gsl_cdf_ugaussian_P(gsl_cdf_ugaussian_Pinv(1.0 - alpha[i]) - mu);
  }
}

gboolean audit_figure_save(const AuditReport *r, const char *title, const char *path,
                           GError **error) {
  if (r == NULL || r->scores == NULL || r->n_scores < 2 || !isfinite(r->mu) || path == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "audit: a figure needs the np attack's scores and a finite accounted mu "
                "(a protected victim)");
    return FALSE;
  }
  guint N = r->n_scores;
  double *s0 = audit_sorted(r->scores, N), *s1 = audit_sorted(r->scores + N, N);
  /* Thresholds at evenly spaced quantiles of both worlds' scores. */
  double lo = MIN(s0[0], s1[0]), hi = MAX(s0[N - 1], s1[N - 1]);
  double fpr[CURVE_POINTS + 2], fnr[CURVE_POINTS + 2], ax[CURVE_POINTS], ay[CURVE_POINTS];
  fpr[0] = 1.0;
  fnr[0] = 0.0;
  for (guint i = 0; i < CURVE_POINTS; i++) {
    double t = lo + (hi - lo) * i / (CURVE_POINTS - 1);
    fpr[i + 1] = 1.0 - (double)audit_count_le(s0, N, t) / N;
    fnr[i + 1] = (double)audit_count_le(s1, N, t) / N;
  }
  fpr[CURVE_POINTS + 1] = 0.0;
  fnr[CURVE_POINTS + 1] = 1.0;
  g_free(s0);
  g_free(s1);
  PlotFigure *fig = plot_figure_new(360, 330, 1, 1, error);
  if (fig == NULL)
    return FALSE;
  PlotAxes *axes = plot_figure_axes(fig, 0, 0);
  plot_figure_set_title(fig, title);
  plot_axes_set_xlabel(axes, "false positive rate (alpha)");
  plot_axes_set_ylabel(axes, "false negative rate (beta)");
  plot_axes_set_grid(axes, TRUE);
  plot_axes_set_legend(axes, PLOT_LEGEND_UPPER_RIGHT);
  gboolean ok = plot_axes_set_xlim(axes, 0.0, 1.0, error) &&
                plot_axes_set_ylim(axes, 0.0, 1.0, error);
  const AuditResult *np = NULL;
  for (guint i = 0; i < r->n_rows; i++)
    if (r->rows[i].attack == AUDIT_ATTACK_NP)
      np = &r->rows[i];
  if (ok && np != NULL && isfinite(np->mu_emp_low) && isfinite(np->mu_emp_high)) {
    double bx[CURVE_POINTS], blo[CURVE_POINTS], bhi[CURVE_POINTS];
    gdp_curve(MAX(np->mu_emp_high, 0.0), CURVE_POINTS, bx, blo);
    gdp_curve(MAX(np->mu_emp_low, 0.0), CURVE_POINTS, bx, bhi);
    ok = plot_axes_add_band(axes, "G(mu empirical), 95%", CURVE_POINTS, bx, blo, bhi,
                            &(PlotStyle){.color = plot_color_rgb(0.2, 0.4, 0.8)}, error);
  }
  char *label = g_strdup_printf("G(mu accounted = %.4g)", r->mu);
  gdp_curve(r->mu, CURVE_POINTS, ax, ay);
  ok = ok &&
       plot_axes_add_line(
           axes, label, CURVE_POINTS, ax, ay,
           &(PlotStyle){.color = plot_color_rgb(0.8, 0.1, 0.1), .dash = PLOT_DASH_DASHED}, error) &&
       plot_axes_add_line(axes, "empirical (np attack)", CURVE_POINTS + 2, fpr, fnr,
                          &(PlotStyle){.color = plot_color_rgb(0.1, 0.1, 0.1)}, error) &&
       plot_figure_save(fig, path, error);
  g_free(label);
  plot_figure_free(fig);
  return ok;
}
