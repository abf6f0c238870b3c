/*
 * scenarios/audit.c: the [audit] section (scenarios/internal.h): the
 * attacks of audit/audit.h on every (collusion set, trust model, victim) of
 * a point, into audit.csv.
 */
#include <math.h>

#include "audit/audit.h"
#include "scenarios/internal.h"

typedef struct {
  guint collusion, trust;
  guint victim;
  AuditResult r;
} Row;

static void csv_number(GString *s, double x) {
  char *v = scen_format_double(x);
  g_string_append_printf(s, ",%s", v);
  g_free(v);
}

static void csv_rows(GString *s, const ScenConfig *c, const GArray *rows) {
  for (guint i = 0; i < rows->len; i++) {
    const Row *row = &g_array_index(rows, Row, i);
    const ScenCollusion *col = &c->collusions[row->collusion];
    g_string_append_printf(s, "%s,", col->name);
    for (guint j = 0; j < col->n_nodes; j++)
      g_string_append_printf(s, "%s%u", j ? "+" : "", col->nodes[j]);
    g_string_append_printf(s, ",%s,%u,%s", priv_trust_name(c->trust[row->trust]), row->victim,
                           audit_attack_name(row->r.attack));
    const double v[] = {row->r.mu,         row->r.mu_canary,   row->r.mu_test,  row->r.mu_emp,
                        row->r.mu_emp_low, row->r.mu_emp_high, row->r.mu_cp_low};
    for (guint j = 0; j < G_N_ELEMENTS(v); j++)
      csv_number(s, v[j]);
    g_string_append_printf(s, ",%u", row->r.trials);
    csv_number(s, row->r.reconstruction_error);
    g_string_append_printf(s, ",%s\n", audit_status_name(row->r.status));
  }
}

static gboolean is_member(const ScenCollusion *col, guint u) {
  for (guint j = 0; j < col->n_nodes; j++)
    if (col->nodes[j] == u)
      return TRUE;
  return FALSE;
}

/* The audits of one (collusion, trust) pair into @rows. */
static gboolean audit_pair(const ScenConfig *c, double sigma, guint k, guint t, GArray *rows,
                           GError **error) {
  const ScenCollusion *col = &c->collusions[k];
  guint n_v = c->audit_victims ? c->n_audit_victims : c->n;
  for (guint i = 0; i < n_v; i++) {
    guint v = c->audit_victims ? c->audit_victims[i] : i;
    if (is_member(col, v))
      continue;
    AuditConfig a = {.graph = c->g,
                     .gossip = c->gossip,
                     .protocol = c->protocol,
                     .mode = c->mode,
                     .latency = c->latency,
                     .sigma = sigma,
                     .lr = c->lr,
                     .T = c->rounds,
                     .b = c->b,
                     .schedule = c->schedule_static ? NULL : c->schedule,
                     .trust = c->trust[t],
                     .attackers = col->nodes,
                     .n_attackers = col->n_nodes,
                     .victim = v,
                     .trials = c->audit_trials,
                     .seed = c->seed,
                     .threads = 1,
                     .cancel = scen_cancel_flag()};
    AuditReport rep;
    gboolean ok = audit_run(&a, c->audit_attacks, &rep, error);
    for (guint j = 0; ok && j < rep.n_rows; j++) {
      Row row = {k, t, v, rep.rows[j]};
      g_array_append_val(rows, row);
    }
    audit_report_clear(&rep);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

gboolean scen_audit(const ScenConfig *c, double sigma, ScenRunOutput *out, GError **error) {
  if (!c->audit)
    return TRUE;
  GArray *rows = g_array_new(FALSE, FALSE, sizeof(Row));
  gboolean ok = TRUE;
  for (guint k = 0; ok && k < c->n_collusions; k++)
    for (guint t = 0; ok && t < c->n_trust; t++)
      ok = audit_pair(c, sigma, k, t, rows, error);
  if (ok) {
    AuditResult **r = g_new(AuditResult *, MAX(rows->len, 1));
    for (guint i = 0; i < rows->len; i++)
      r[i] = &g_array_index(rows, Row, i).r;
    audit_decide(r, rows->len);
    g_free(r);
    out->audit_csv = g_string_new(NULL);
    csv_rows(out->audit_csv, c, rows);
  }
  for (guint i = 0; ok && i < rows->len; i++) {
    const Row *row = &g_array_index(rows, Row, i);
    if (row->r.status != AUDIT_OVERSTATED)
      continue;
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_FAILED,
                "audit: collusion %s, trust %s, victim %u: the %s attack reaches mu in [%.4g, "
                "%.4g] (95%%), above the accounted mu = %.4g: the printed guarantee is wrong",
                c->collusions[row->collusion].name, priv_trust_name(c->trust[row->trust]),
                row->victim, audit_attack_name(row->r.attack), row->r.mu_emp_low,
                row->r.mu_emp_high, row->r.mu);
    ok = FALSE;
  }
  g_array_unref(rows);
  return ok;
}
