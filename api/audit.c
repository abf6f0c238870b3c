/*
 * api/audit.c: dpg_audit, `dpgossip audit` as a table, by the same code
 * (audit/audit.h); the options checked as the command checks them.
 */
#include <math.h>

#include "api/internal.h"
#include "audit/audit.h"
#include "spec/spec.h"

void dpg_audit_options_init(DpgAuditOptions *o) {
  *o = (DpgAuditOptions){.rounds = 5,
                         .sigma = 1.0,
                         .trials = 1000,
                         .seed = 1,
                         .threads = 1,
                         .participation_interval = 1};
}

size_t dpg_audit_options_size(void) {
  return sizeof(DpgAuditOptions);
}

/* The options the command checks before building anything, as it checks
 * them (audit_options_check). --trust is a list as the command's
 * (proto_account_parse_trusts, into @trusts: "ldp,pndp" is one table with a
 * row per set, trust model and victim); the other checks on one model. */
static gboolean check_options(const DpgAuditOptions *o, GArray *trusts, guint *attacks,
                              DpgError *err) {
  GError *error = NULL;
  if (o->trust != NULL && !proto_account_parse_trusts(o->trust, trusts, &error))
    return dpg_fail(err, error, 2), FALSE;
  PrivTrust first;
  const AuditOptions checked = {.trust = NULL,
                                .rounds = o->rounds,
                                .interval = o->participation_interval,
                                .trials = o->trials,
                                .dim = o->dim,
                                .threads = o->threads,
                                .seed = o->seed,
                                .sigma = o->sigma,
                                .lr = o->lr,
                                .mode = o->mode,
                                .latency = o->latency,
                                .loss = o->loss,
                                .has_attackers = o->attackers != NULL && o->attackers[0] != NULL,
                                .has_victims = o->victims != NULL && o->victims[0] != NULL,
                                .figure = o->figure};
  if ((o->attack != NULL && !audit_attack_parse(o->attack, attacks, &error)) ||
      !audit_options_check(&checked, &first, &error))
    return dpg_fail(err, error, proto_error_is_unreadable(error) ? 1 : 2), FALSE;
  if (trusts->len == 0)
    g_array_append_val(trusts, first);
  return TRUE;
}

/* The victims of @o outside @set (ids or "all"), or FALSE with a usage error. */
static gboolean victims_of(const DpgAuditOptions *o, const TopoGraph *g, const guint *set,
                           guint size, GArray *out, DpgError *err) {
  guint n = topo_graph_n_nodes(g);
  for (guint i = 0; o->victims[i] != NULL; i++) {
    guint64 v = 0;
    gboolean all = g_str_equal(o->victims[i], "all");
    if (!all && topo_graph_has_labels(g)) {
      GError *e = NULL;
      guint id = 0;
      if (!topo_graph_node_parse(g, o->victims[i], "--victim", G_OPTION_ERROR,
                                 G_OPTION_ERROR_BAD_VALUE, &id, &e))
        return dpg_fail(err, e, 2), FALSE;
      v = id;
    } else if (!all && (!g_ascii_string_to_unsigned(o->victims[i], 10, 0, n - 1, &v, NULL)))
      return dpg_usage(err, "--victim: '%s' is not a node id below %u (or 'all')", o->victims[i],
                       n),
             FALSE;
    for (guint u = all ? 0 : (guint)v; u < (all ? n : (guint)v + 1); u++) {
      gboolean member = FALSE;
      for (guint j = 0; j < size; j++)
        member |= set[j] == u;
      if (member && !all)
        return dpg_usage(err, "--victim %u is in the attacker set: a victim must be another node",
                         u),
               FALSE;
      if (!member)
        g_array_append_val(out, u);
    }
  }
  return TRUE;
}

typedef struct {
  char *attackers;
  PrivTrust trust;
  guint victim;
  char *victim_name; /* its label: a labelled graph's victims are strings */
  AuditResult r;
} Row;

static DpgTable *tabulate(const DpgAuditOptions *o, const TopoGraph *g, GArray *rows,
                          const GString *notes) {
  gboolean labelled = topo_graph_has_labels(g);
  AuditResult **r = g_new(AuditResult *, MAX(rows->len, 1));
  for (guint i = 0; i < rows->len; i++)
    r[i] = &g_array_index(rows, Row, i).r;
  guint overstated = audit_decide(r, rows->len);
  g_free(r);
  DpgTable *t = dpg_table_new();
  static const char *const nums[] = {"mu",
                                     "mu_canary",
                                     "mu_test",
                                     "mu_empirical",
                                     "mu_empirical_low",
                                     "mu_empirical_high",
                                     "mu_clopper_pearson_low"};
  guint ca = dpg_table_add_col(t, "attackers", DPG_COL_STRING);
  guint cr = dpg_table_add_col(t, "trust", DPG_COL_STRING);
  guint cv = dpg_table_add_col(t, "victim", labelled ? DPG_COL_STRING : DPG_COL_INT);
  guint ck = dpg_table_add_col(t, "attack", DPG_COL_STRING);
  guint cn[G_N_ELEMENTS(nums)];
  for (guint j = 0; j < G_N_ELEMENTS(nums); j++)
    cn[j] = dpg_table_add_col(t, nums[j], DPG_COL_DOUBLE);
  guint ct = dpg_table_add_col(t, "trials", DPG_COL_INT);
  guint ce = dpg_table_add_col(t, "reconstruction_error", DPG_COL_DOUBLE);
  guint cs = dpg_table_add_col(t, "status", DPG_COL_STRING);
  for (guint i = 0; i < rows->len; i++) {
    const Row *row = &g_array_index(rows, Row, i);
    const double v[] = {row->r.mu,         row->r.mu_canary,   row->r.mu_test,  row->r.mu_emp,
                        row->r.mu_emp_low, row->r.mu_emp_high, row->r.mu_cp_low};
    dpg_table_push_string(t, ca, row->attackers);
    dpg_table_push_string(t, cr, priv_trust_name(row->trust));
    if (labelled)
      dpg_table_push_string(t, cv, row->victim_name);
    else
      dpg_table_push_int(t, cv, row->victim);
    dpg_table_push_string(t, ck, audit_attack_name(row->r.attack));
    for (guint j = 0; j < G_N_ELEMENTS(nums); j++)
      dpg_table_push_double(t, cn[j], v[j]);
    dpg_table_push_int(t, ct, row->r.trials);
    dpg_table_push_double(t, ce, row->r.reconstruction_error);
    dpg_table_push_string(t, cs, audit_status_name(row->r.status));
    dpg_table_end_row(t);
  }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  dpg_table_set_attr(t, "protocol", o->protocol ? o->protocol : "dsgd");
  dpg_table_set_attr(t, "trust", o->trust ? o->trust : "pndp");
  dpg_table_set_attr_printf(t, "rounds", "%d", o->rounds);
  dpg_table_set_attr(t, "sigma", g_ascii_dtostr(buf, sizeof buf, o->sigma));
  dpg_table_set_attr_printf(t, "seed", "%" G_GINT64_FORMAT, (gint64)o->seed);
  dpg_table_set_attr(t, "confidence",
                     "95% per row; overstated: one-sided, Bonferroni over the "
                     "np and learned rows (family-wise 2.5%)");
  dpg_table_set_attr_printf(t, "overstated", "%u", overstated);
  /* Why attacks were refused (unresolved victims, as account warns), one a
   * line: the command's warnings. */
  if (notes->len > 0)
    dpg_table_set_attr(t, "warnings", notes->str);
  return t;
}

/* Every (attacker set, trust model, victim) audit into @rows, in that
 * order (the command's); FALSE with @err set. */
static gboolean audit_all(const DpgAuditOptions *o, const TopoGraph *g, TopoGossipKind gossip,
                          const GArray *trusts, guint attacks, SpecAttackers *sets, GArray *rows,
                          GString *notes, DpgError *err) {
  guint n = topo_graph_n_nodes(g);
  gboolean figured = o->figure == NULL;
  for (guint st = 0; st < spec_attackers_n_sets(sets, n) * trusts->len; st++) {
    guint s = st / trusts->len;
    PrivTrust trust = g_array_index(trusts, PrivTrust, st % trusts->len);
    guint size = 0;
    const guint *set = spec_attackers_members(sets, s, NULL, &size);
    g_autoptr(GArray) victims = g_array_new(FALSE, FALSE, sizeof(guint));
    if (!victims_of(o, g, set, size, victims, err))
      return FALSE;
    for (guint i = 0; i < victims->len; i++) {
      AuditConfig a = {.graph = g,
                       .gossip = gossip,
                       .protocol = o->protocol ? o->protocol : "dsgd",
                       .mode = o->mode,
                       .latency = o->latency,
                       .loss = o->loss,
                       .schedule = o->schedule,
                       .sigma = o->sigma,
                       .lr = o->lr,
                       .T = (guint)o->rounds,
                       .b = (guint)o->participation_interval,
                       .dim = (guint)o->dim,
                       .trust = trust,
                       .attackers = set,
                       .n_attackers = size,
                       .victim = g_array_index(victims, guint, i),
                       .trials = (guint)o->trials,
                       .seed = (guint64)o->seed,
                       .threads = (guint)o->threads,
                       .cancel = dpg_cancel_flag()};
      AuditReport rep;
      GError *error = NULL;
      gboolean ok = audit_run(&a, attacks, &rep, &error);
      if (ok && rep.note != NULL) {
        char *label = spec_attackers_label(sets, s);
        if (trusts->len > 1)
          g_string_append_printf(notes, "%sattackers %s, trust %s, %s", notes->len ? "\n" : "",
                                 label, priv_trust_name(trust), rep.note);
        else
          g_string_append_printf(notes, "%sattackers %s, %s", notes->len ? "\n" : "", label,
                                 rep.note);
        g_free(label);
      }
      if (ok && !figured && rep.scores != NULL && isfinite(rep.mu)) {
        ok = audit_figure_save(&rep, NULL, o->figure, &error);
        figured = TRUE;
      }
      for (guint k = 0; ok && k < rep.n_rows; k++) {
        Row row = {.attackers = topo_graph_attackers_label(g, sets, s),
                   .trust = trust,
                   .victim = a.victim,
                   .victim_name = topo_graph_node_name(g, a.victim),
                   .r = rep.rows[k]};
        g_array_append_val(rows, row);
      }
      audit_report_clear(&rep);
      if (!ok)
        return dpg_fail(err, error, proto_error_status(error, PROTO_FAILED_INPUT)), FALSE;
    }
  }
  if (!figured)
    return dpg_fail(err,
                    g_error_new(PROTO_ERROR, PROTO_ERROR_FAILED,
                                "--figure %s: no protected victim was audited by the np attack: "
                                "nothing to draw",
                                o->figure),
                    1),
           FALSE;
  return TRUE;
}

/* --schedule built once on @g (a spec that does not parse or a value out
 * of range: 2; a file that fails: 1), as the command does. */
static gboolean check_schedule(const DpgAuditOptions *o, const TopoGraph *g, TopoGossipKind gossip,
                               DpgError *err) {
  GError *error = NULL;
  gboolean usage;
  if (audit_schedule_check(o->schedule, g, gossip, (guint64)o->seed, &usage, &error))
    return TRUE;
  return dpg_fail(err, error, usage ? 2 : 1), FALSE;
}

/* dpg_audit once the options are checked and the plugins loaded. */
static DpgTable *audit(const DpgAuditOptions *o, const GArray *trusts, guint attacks,
                       DpgError *err) {
  GError *error = NULL;
  TopoGossipKind gossip;
  if (!dpg_graph_gossip(&o->graph, &gossip, &error))
    return dpg_fail(err, error, 2);
  SpecAttackers sets;
  spec_attackers_init(&sets);
  for (guint i = 0; o->attackers[i] != NULL; i++)
    if (!spec_attackers_parse(&sets, o->attackers[i], 0, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                              &error)) {
      g_prefix_error(&error, "--attackers: ");
      spec_attackers_clear(&sets);
      return dpg_fail(err, error, 2);
    }
  TopoGraph *g = dpg_graph_build(&o->graph, &error);
  DpgTable *t = NULL;
  GArray *rows = g_array_new(FALSE, TRUE, sizeof(Row));
  if (g == NULL) {
    dpg_fail(err, error, dpg_graph_status(&o->graph, error));
  } else if (!topo_graph_resolve_attackers(g, &sets,
                                           o->graph.path ? o->graph.path : o->graph.generate, 0,
                                           G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, &error) ||
             !spec_attackers_check(&sets, topo_graph_n_nodes(g),
                                   o->graph.path ? o->graph.path : o->graph.generate,
                                   G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, &error)) {
    g_prefix_error(&error, "--attackers: ");
    dpg_fail(err, error, 2);
  } else if (check_schedule(o, g, gossip, err)) {
    spec_attackers_expand(&sets, topo_graph_n_nodes(g));
    GString *notes = g_string_new(NULL);
    if (audit_all(o, g, gossip, trusts, attacks, &sets, rows, notes, err))
      t = tabulate(o, g, rows, notes);
    g_string_free(notes, TRUE);
  }
  for (guint i = 0; i < rows->len; i++) {
    g_free(g_array_index(rows, Row, i).attackers);
    g_free(g_array_index(rows, Row, i).victim_name);
  }
  g_array_unref(rows);
  spec_attackers_clear(&sets);
  if (g != NULL)
    topo_graph_free(g);
  return t;
}

DpgTable *dpg_audit(const DpgAuditOptions *opts, DpgError *err) {
  dpg_enter();
  g_autoptr(GArray) trusts = g_array_new(FALSE, FALSE, sizeof(PrivTrust));
  guint attacks = AUDIT_ATTACK_ALL;
  DpgPlugins plugins;
  if (!check_options(opts, trusts, &attacks, err) ||
      !dpg_plugins_begin(&plugins, opts->plugins, err))
    return NULL;
  /* A copy of @opts whose protocol defaults to the only plugin's. */
  DpgAuditOptions with_plugins = *opts;
  if (with_plugins.protocol == NULL)
    with_plugins.protocol = plugins.single;
  /* The spec as dpg_account resolves it, with its status, before any run. */
  ProtoAccountProtocol proto = {0};
  GError *error = NULL;
  DpgTable *t = NULL;
  if (!proto_account_resolve_protocol(with_plugins.protocol ? with_plugins.protocol : "dsgd",
                                      &proto, &error))
    dpg_fail(err, error, proto_error_status(error, PROTO_FAILED_PROTOCOL));
  else
    t = audit(&with_plugins, trusts, attacks, err);
  proto_account_protocol_clear(&proto);
  dpg_plugins_end(&plugins);
  return t;
}
