/*
 * scenarios/tables.c: the rows of the tidy tables (privacy.csv,
 * metrics.csv, metrics_mean.csv), one writer for every command that prints them: `dpgossip
 * run` (each point, and a sweep's concatenation), `dpgossip account --format
 * csv`. Numbers are the shortest text that reads back as the same double, so
 * a table loaded by pandas or R holds exactly the values computed.
 */
#include <math.h>
#include <string.h>

#include "scenarios/internal.h"

void scen_csv_text(GString *s, const char *v) {
  if (strpbrk(v, ",\"\n\r") == NULL) {
    g_string_append(s, v);
    return;
  }
  g_string_append_c(s, '"');
  for (const char *p = v; *p; p++) {
    if (*p == '"')
      g_string_append_c(s, '"');
    g_string_append_c(s, *p);
  }
  g_string_append_c(s, '"');
}

void scen_csv_number(GString *s, double x) {
  if (isnan(x))
    return; /* not applicable: an empty cell (NA in pandas and R) */
  char *v = scen_format_double(x);
  g_string_append(s, v);
  g_free(v);
}

void scen_csv_number17(GString *s, double x) {
  if (isnan(x))
    return; /* as scen_csv_number: one NaN convention for every table */
  if (isinf(x)) {
    g_string_append(s, x > 0 ? "inf" : "-inf");
    return;
  }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append(s, g_ascii_formatd(buf, sizeof buf, "%.17g", x));
}

const char *scen_privacy_victim_status(const PrivVictim *v) {
  return v->unresolved ? "unresolved" : v->unprotected ? "unprotected" : "protected";
}

void scen_privacy_csv_rows(GString *s, const ScenPrivacyCsvSet *set, const PrivReport *r,
                           const double *muff) {
  g_return_if_fail(s != NULL && set != NULL && r != NULL);
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    if (set->prefix != NULL)
      g_string_append(s, set->prefix);
    scen_csv_text(s, set->collusion);
    g_string_append_c(s, ',');
    scen_csv_text(s, priv_trust_name(set->trust));
    const char *label = set->job != NULL && set->job->graph != NULL
                            ? topo_graph_node_label(set->job->graph, v->node)
                            : NULL;
    g_string_append_c(s, ',');
    if (label != NULL)
      scen_csv_text(s, label);
    else
      g_string_append_printf(s, "%u", v->node);
    g_string_append_c(s, ',');
    if (v->distance >= 0)
      g_string_append_printf(s, "%d", v->distance);
    const double cells[] = {v->sensitivity, v->mu, v->rdp, v->epsilon,
                            muff != NULL ? muff[v->node] : NAN};
    for (guint c = 0; c < G_N_ELEMENTS(cells); c++) {
      g_string_append_c(s, ',');
      scen_csv_number(s, cells[c]);
    }
    g_string_append_printf(s, ",%s,", scen_privacy_victim_status(v));
    scen_csv_text(s, set->attackers);
    g_string_append_c(s, ',');
    scen_csv_number(s, r->alpha);
    g_string_append_c(s, ',');
    scen_csv_number(s, r->delta);
    g_string_append_printf(s, ",%s,%" G_GUINT64_FORMAT ",", set->path, set->seed);
    scen_csv_number(s, v->mu_lower);
    g_string_append_c(s, ',');
    if (set->job != NULL)
      g_string_append(s, proto_account_job_bound_name(set->job, v));
    g_string_append_c(s, '\n');
  }
}

char *scen_privacy_members_label(const TopoGraph *g, const guint *nodes, guint n) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < n; i++) {
    const char *label = g != NULL ? topo_graph_node_label(g, nodes[i]) : NULL;
    if (label != NULL)
      g_string_append_printf(s, "%s%s", i ? "+" : "", label);
    else
      g_string_append_printf(s, "%s%u", i ? "+" : "", nodes[i]);
  }
  return g_string_free(s, FALSE);
}

void scen_metrics_csv_rows(GString *s, GString *means, guint64 seed, const ProtoMetric *rows,
                           gsize n_rows, const TopoGraph *g) {
  for (gsize i = 0; i < n_rows;) {
    guint step = rows[i].step, n = 0;
    double sum[3] = {0, 0, 0};
    for (; i < n_rows && rows[i].step == step; i++, n++) {
      const ProtoMetric *m = &rows[i];
      const double v[3] = {m->train_loss, m->test_loss, m->test_accuracy};
      const char *label = g != NULL ? topo_graph_node_label(g, m->node) : NULL;
      g_string_append_printf(s, "%u,", m->step);
      if (label != NULL)
        scen_csv_text(s, label); /* privacy.csv's victim: a join key */
      else
        g_string_append_printf(s, "%u", m->node);
      for (guint c = 0; c < 3; c++) {
        g_string_append_c(s, ',');
        scen_csv_number(s, v[c]);
        sum[c] += v[c];
      }
      g_string_append_printf(s, ",%" G_GUINT64_FORMAT "\n", seed);
    }
    if (means == NULL)
      continue;
    /* Summed in node order, as summary.json's curve: the same doubles. */
    g_string_append_printf(means, "%u", step);
    for (guint c = 0; c < 3; c++) {
      g_string_append_c(means, ',');
      scen_csv_number(means, sum[c] / n);
    }
    g_string_append_printf(means, ",%" G_GUINT64_FORMAT "\n", seed);
  }
}

char *scen_privacy_epsilon_note(double epsilon, double delta) {
  if (isinf(epsilon))
    return g_strdup("epsilon inf: no protection for some victim (an attacker sees its "
                    "gradient without noise, or no bound could be computed; status column)");
  if (!(epsilon > SCEN_EPSILON_MEANINGFUL))
    return NULL;
  /* e^epsilon overflows past 709: say so rather than print inf. */
  char *factor = epsilon < 700 ? g_strdup_printf("%.3g", exp(epsilon)) : g_strdup("1e300");
  char *note = g_strdup_printf(
      "epsilon %.4g at delta = %g: no meaningful protection (it only bounds by a factor "
      "e^epsilon = %s%s how much more likely an outcome becomes with a victim's data than "
      "without; below about %g is the usual target)",
      epsilon, delta, epsilon < 700 ? "" : "more than ", factor, (double)SCEN_EPSILON_MEANINGFUL);
  g_free(factor);
  return note;
}
