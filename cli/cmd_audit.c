/*
 * cli/cmd_audit.c: `dpgossip audit`: attacks on simulated runs that confirm
 * or refute the guarantees `account` prints (audit/audit.h does the
 * attacks; this file parses and prints). One row per (attacker set,
 * victim, attack); exit status 1 when an audit finds a guarantee
 * overstated. `--attack onerun` is the one-run audit of a training run,
 * with options of its own (cli/audit_onerun.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "cli/account_common.h"
#include "cli/audit_onerun.h"
#include "cli/cli.h"
#include "plot/plot.h"
#include "ranks/ranks.h"

#define CMD "audit"

typedef struct {
  CliGraphOptions graph;
  CliPluginOptions plugins;
  char *protocol, *mode, *schedule, *attack, *format, *figure;
  char **attackers, **victims;
  /* What audit_options_check checks, parsed straight into it (its trust
   * and latency are GOption's copies); rounds and interval CLI_UNSET until
   * horizon resolves them with -k. */
  AuditOptions a;
  GArray *trusts; /* PrivTrust: --trust's models, in order (account's list) */
  gint epochs;    /* k: CLI_UNSET when not given */
  gboolean quiet;
} Options;

typedef struct {
  char *attackers; /* label */
  PrivTrust trust;
  guint victim;
  char *victim_name; /* its label (topo_graph_node_name) */
  gboolean labelled; /* the graph has a label table: JSON names nodes by strings */
  AuditResult r;
} Row;

/* @text's width in characters (UTF-8 labels: "Médici" is 6). */
static guint text_width(const char *text) {
  return g_utf8_validate(text, -1, NULL) ? (guint)g_utf8_strlen(text, -1) : (guint)strlen(text);
}

/* @text in @width characters, right-aligned or left, never cut. */
static void print_padded(const char *text, guint width, gboolean right) {
  if (!right)
    fputs(text, stdout);
  for (guint k = text_width(text); k < width; k++)
    putchar(' ');
  if (right)
    fputs(text, stdout);
}

static void print_rows(const Options *o, CliFormat fmt, const GArray *rows) {
  if (fmt == CLI_FORMAT_JSON) {
    JsonBuilder *jb = json_builder_new();
    json_builder_begin_object(jb);
    cli_json_string(jb, "protocol", o->protocol);
    cli_json_string(jb, "trust", o->a.trust);
    cli_json_int(jb, "T", o->a.rounds);
    if (o->a.interval > 1)
      cli_json_int(jb, "b", o->a.interval);
    if (o->schedule != NULL)
      cli_json_string(jb, "schedule", o->schedule);
    if (o->mode != NULL)
      cli_json_string(jb, "mode", o->mode);
    if (o->a.latency != NULL)
      cli_json_string(jb, "latency", o->a.latency);
    if (o->a.loss != NULL)
      cli_json_string(jb, "loss", o->a.loss);
    cli_json_number(jb, "sigma", o->a.sigma);
    cli_json_int(jb, "seed", o->a.seed);
    cli_json_string(jb, "confidence", "95% per row; overstated: one-sided, Bonferroni over the np and learned rows (family-wise 2.5%)");
    cli_json_begin_array(jb, "victims");
    for (guint i = 0; i < rows->len; i++) {
      const Row *r = &g_array_index(rows, Row, i);
      json_builder_begin_object(jb);
      cli_json_string(jb, "attackers", r->attackers);
      cli_json_string(jb, "trust", priv_trust_name(r->trust));
      if (r->labelled)
        cli_json_string(jb, "victim", r->victim_name);
      else
        cli_json_int(jb, "victim", r->victim);
      cli_json_string(jb, "attack", audit_attack_name(r->r.attack));
      cli_json_number(jb, "mu", r->r.mu);
      cli_json_number(jb, "mu_canary", r->r.mu_canary);
      cli_json_number(jb, "mu_test", r->r.mu_test);
      cli_json_number(jb, "mu_empirical", r->r.mu_emp);
      cli_json_number(jb, "mu_empirical_low", r->r.mu_emp_low);
      cli_json_number(jb, "mu_empirical_high", r->r.mu_emp_high);
      cli_json_number(jb, "mu_clopper_pearson_low", r->r.mu_cp_low);
      cli_json_int(jb, "trials", r->r.trials);
      cli_json_number(jb, "reconstruction_error", r->r.reconstruction_error);
      cli_json_string(jb, "status", audit_status_name(r->r.status));
      json_builder_end_object(jb);
    }
    json_builder_end_array(jb);
    json_builder_end_object(jb);
    cli_json_print(jb);
    return;
  }
  gboolean csv = fmt == CLI_FORMAT_CSV;
  /* The table's name columns as wide as the longest label they print
   * (10 and 6 at least, their widths with ids). */
  guint wa = 10, wv = 6;
  for (guint i = 0; !csv && i < rows->len; i++) {
    const Row *r = &g_array_index(rows, Row, i);
    wa = MAX(wa, text_width(r->attackers));
    wv = MAX(wv, text_width(r->victim_name));
  }
  if (csv)
    printf("attackers,trust,victim,attack,mu,mu_canary,mu_test,mu_empirical,"
           "mu_empirical_low,mu_empirical_high,mu_clopper_pearson_low,trials,"
           "reconstruction_error,status\n");
  else {
    print_padded("attackers", wa, FALSE);
    printf(" %-6s ", "trust");
    print_padded("victim", wv, TRUE);
    printf(" %-14s %10s %10s %10s %10s %10s %10s %10s %7s %10s %s\n", "attack", "mu", "mu_canary",
           "mu_test", "mu_emp", "emp_low", "emp_high", "cp_low", "trials", "recon_err", "status");
  }
  for (guint i = 0; i < rows->len; i++) {
    const Row *r = &g_array_index(rows, Row, i);
    const double v[] = {r->r.mu,         r->r.mu_canary,   r->r.mu_test,
                        r->r.mu_emp,     r->r.mu_emp_low,  r->r.mu_emp_high,
                        r->r.mu_cp_low};
    if (csv)
      printf("%s,%s,%s,%s", r->attackers, priv_trust_name(r->trust), r->victim_name,
             audit_attack_name(r->r.attack));
    else {
      print_padded(r->attackers, wa, FALSE);
      printf(" %-6s ", priv_trust_name(r->trust));
      print_padded(r->victim_name, wv, TRUE);
      printf(" %-14s", audit_attack_name(r->r.attack));
    }
    for (guint j = 0; j < G_N_ELEMENTS(v); j++)
      printf(csv ? ",%.17g" : " %10.4g", v[j]);
    printf(csv ? ",%u,%.17g,%s\n" : " %7u %10.3g %s\n", r->r.trials, r->r.reconstruction_error,
           audit_status_name(r->r.status));
  }
}

static void options_clear(Options *o) {
  cli_graph_options_clear(&o->graph);
  cli_plugin_options_clear(&o->plugins);
  g_free(o->protocol);
  g_free(o->mode);
  g_free((char *)o->a.latency);
  g_free((char *)o->a.loss);
  g_free(o->schedule);
  g_free((char *)o->a.trust);
  if (o->trusts != NULL)
    g_array_unref(o->trusts);
  g_free(o->attack);
  g_free(o->format);
  g_free(o->figure);
  g_strfreev(o->attackers);
  g_strfreev(o->victims);
}

/* --victim V (repeatable) or all: every node outside the set. */
static gboolean victims_of(const Options *o, const TopoGraph *g, const guint *set, guint set_n,
                           GArray *out) {
  guint n = topo_graph_n_nodes(g);
  for (guint i = 0; o->victims[i] != NULL; i++) {
    if (g_str_equal(o->victims[i], "all")) {
      for (guint v = 0; v < n; v++) {
        gboolean member = FALSE;
        for (guint j = 0; j < set_n; j++)
          member |= set[j] == v;
        if (!member)
          g_array_append_val(out, v);
      }
      continue;
    }
    guint v;
    if (topo_graph_has_labels(g)) {
      GError *e = NULL;
      if (!topo_graph_node_parse(g, o->victims[i], "--victim", G_OPTION_ERROR,
                                 G_OPTION_ERROR_BAD_VALUE, &v, &e)) {
        cli_usage_error(CMD, "%s", e->message);
        g_error_free(e);
        return FALSE;
      }
    } else if (!cli_parse_uint(o->victims[i], &v) || v >= n) {
      cli_usage_error(CMD, "--victim: '%s' is not a node id below %u (or 'all')", o->victims[i],
                      n);
      return FALSE;
    }
    for (guint j = 0; j < set_n; j++)
      if (set[j] == v) {
        cli_usage_error(CMD, "--victim %u is in the attacker set: a victim must be another node",
                        v);
        return FALSE;
      }
    g_array_append_val(out, v);
  }
  return TRUE;
}

/* -T, -b and -k (T = k b, as for account) into o->a.rounds and o->a.interval:
 * T 5 and b 1 unless given. */
static int horizon(Options *o) {
  GError *err = NULL;
  gint T = o->a.rounds, k = o->epochs, b = o->a.interval;
  if (k != CLI_UNSET && k <= 0) /* account's rule and words */
    return cli_usage_error(CMD, "--epochs k must be positive (got %d)", k);
  if (k != CLI_UNSET && T == CLI_UNSET && b == CLI_UNSET)
    b = 1;
  if (!cli_horizon_resolve(&T, &k, &b, &err)) {
    int status = cli_usage_error(CMD, "%s", err->message);
    g_error_free(err);
    return status;
  }
  o->a.rounds = T == CLI_UNSET ? 5 : T;
  o->a.interval = b == CLI_UNSET ? 1 : b;
  return CLI_EXIT_OK;
}

/* The options' own checks; returns a CLI exit status. --trust takes a
 * list as account's does (proto_account_parse_trusts, into o->trusts): one
 * table, a row per set, trust model and victim. */
static int check_options(Options *o, CliFormat *fmt, guint *attacks) {
  GError *err = NULL;
  int status = horizon(o);
  if (status == CLI_EXIT_OK && o->attack != NULL && !audit_attack_parse(o->attack, attacks, &err))
    status = cli_usage_error(CMD, "%s, or onerun (the one-run audit of a training run)",
                             err->message);
  if (status == CLI_EXIT_OK && o->format != NULL &&
      !cli_format_parse(o->format, 1u << CLI_FORMAT_TABLE | 1u << CLI_FORMAT_JSON | 1u << CLI_FORMAT_CSV,
                        fmt, &err))
    status = cli_usage_error(CMD, "%s", err->message);
  o->a.mode = o->mode;
  o->a.has_attackers = o->attackers != NULL;
  o->a.has_victims = o->victims != NULL;
  o->a.figure = o->figure;
  o->trusts = g_array_new(FALSE, FALSE, sizeof(PrivTrust));
  if (status == CLI_EXIT_OK && o->a.trust != NULL &&
      !proto_account_parse_trusts(o->a.trust, o->trusts, &err))
    status = cli_usage_error(CMD, "%s", err->message);
  /* The other checks on one model: the list was checked just above. */
  const char *given = o->a.trust;
  PrivTrust first;
  o->a.trust = NULL;
  if (status == CLI_EXIT_OK && !audit_options_check(&o->a, &first, &err))
    status = proto_error_is_unreadable(err) ? cli_fail(CMD, g_steal_pointer(&err), CLI_EXIT_FAILURE)
                                            : cli_usage_error(CMD, "%s", err->message);
  o->a.trust = given;
  if (o->trusts->len == 0)
    g_array_append_val(o->trusts, first);
  if (status == CLI_EXIT_OK && o->figure != NULL &&
      !cli_output_check("--figure", o->figure, FALSE, &err))
    status = cli_usage_error(CMD, "%s", err->message);
  g_clear_error(&err);
  if (o->a.trust == NULL)
    o->a.trust = g_strdup("pndp");
  if (status == CLI_EXIT_OK && !cli_plugin_options_load(&o->plugins, &err))
    status = cli_usage_error(CMD, "%s", err->message);
  g_clear_error(&err);
  if (o->protocol == NULL)
    o->protocol = g_strdup(o->plugins.single != NULL ? o->plugins.single : "dsgd");
  /* The spec as `account` resolves it, with its status (a value out of
   * range is the user's: 2), before any run. */
  ProtoAccountProtocol proto = {0};
  if (status == CLI_EXIT_OK && !proto_account_resolve_protocol(o->protocol, &proto, &err))
    status = cli_fail(CMD, err, proto_error_status(err, PROTO_FAILED_PROTOCOL));
  proto_account_protocol_clear(&proto);
  return status;
}

/* The options only one of the two audits takes (the distinguishing ones on
 * simulated runs, the one-run audit of a training run), named in the usage
 * error when given to the other. */
static const char *const DISTINGUISHING_ONLY[] = {"--attackers",
                                                  "-a",
                                                  "--victim",
                                                  "-v",
                                                  "--trust",
                                                  "--trials",
                                                  "-n",
                                                  "--protocol",
                                                  "-p",
                                                  "--rounds",
                                                  "-T",
                                                  "--participation-interval",
                                                  "--schedule",
                                                  "--mode",
                                                  "--latency",
                                                  "--loss",
                                                  "--dim",
                                                  "--threads",
                                                  "-j",
                                                  "--figure",
                                                  "--quiet",
                                                  "-q",
                                                  "--protocol-plugin",
                                                  NULL};
static const char *const ONERUN_ONLY[] = {
    "--dataset",       "-d",         "--model",   "-m",      "--partition",  "--batches", "--clip",
    "--test-fraction", "--canaries", "--guesses", "--delta", "--confidence", NULL};

/* The first argument of @argv (before "--") that names an option of
 * @names: --name, --name=VALUE, -x or -xVALUE; NULL when none. O(argc). */
static const char *option_among(int argc, char **argv, const char *const *names) {
  for (int i = 1; i < argc && g_strcmp0(argv[i], "--") != 0; i++)
    for (guint j = 0; names[j] != NULL; j++) {
      gsize len = strlen(names[j]);
      gboolean is_long = names[j][1] == '-';
      if (strncmp(argv[i], names[j], len) == 0 &&
          (argv[i][len] == '\0' || (is_long ? argv[i][len] == '=' : argv[i][1] != '-')))
        return names[j];
    }
  return NULL;
}

/* Whether @argv asks for the one-run audit: --attack onerun. O(argc). */
static gboolean onerun_asked(int argc, char **argv) {
  for (int i = 1; i < argc && g_strcmp0(argv[i], "--") != 0; i++)
    if (g_str_equal(argv[i], "--attack=onerun") ||
        (g_str_equal(argv[i], "--attack") && i + 1 < argc && g_str_equal(argv[i + 1], "onerun")))
      return TRUE;
  return FALSE;
}

/* --schedule built once on @g: a usage error when the spec is wrong, a
 * failure (1) when a file it names fails. */
static int check_schedule(const Options *o, const TopoGraph *g, TopoGossipKind gossip) {
  GError *err = NULL;
  gboolean usage;
  if (audit_schedule_check(o->schedule, g, gossip, (guint64)o->a.seed, &usage, &err))
    return CLI_EXIT_OK;
  if (!usage)
    return cli_fail(CMD, err, CLI_EXIT_FAILURE);
  int status = cli_usage_error(CMD, "%s", err->message);
  g_error_free(err);
  return status;
}

/* The scored trials' blocks over the ranks of the MPI job. */
static gboolean mpi_map(guint n, AuditItemFunc func, gpointer func_data, GBytes ***results,
                        gpointer map_data, GError **error) {
  (void)map_data;
  return ranks_map(n, func, func_data, results, error);
}

/* The progress of the whole command: audit @index of @count, each of the
 * same 2 trials runs, so that the ETA covers every victim (it covered the
 * current one: --victim all restarted it at each). */
typedef struct {
  CliProgress *printer;
  guint64 index, count;
} Progress;

static void on_progress(guint64 done, guint64 total, gpointer data) {
  const Progress *p = data;
  cli_progress_update(p->printer, p->index * total + done, p->count * total, "trial runs");
}

/* The figure of the first row's victim with np scores. */
static int save_figure(const Options *o, const AuditReport *rep, PrivTrust trust, const char *set,
                       const char *victim) {
  char *title = g_strdup_printf("%s, trust %s, attackers %s, victim %s", o->protocol,
                                priv_trust_name(trust), set, victim);
  GError *err = NULL;
  gboolean ok = audit_figure_save(rep, title, o->figure, &err);
  g_free(title);
  if (ok)
    return CLI_EXIT_OK;
  fprintf(stderr, "dpgossip %s: --figure %s: %s\n", CMD, o->figure, err->message);
  g_error_free(err);
  return CLI_EXIT_FAILURE;
}

/* Every (attacker set, trust model, victim) audit, its rows appended to
 * @rows in that order (account's). */
static int audit_all(const Options *o, const TopoGraph *g, TopoGossipKind gossip, guint attacks,
                     const CliAttackerSets *sets, gboolean mpi, GArray *rows) {
  int status = CLI_EXIT_OK;
  gboolean figured = o->figure == NULL || ranks_rank() != 0; /* rank 0 draws */
  Progress progress = {.printer = cli_progress_new(CMD, o->quiet)};
  /* Every (set, victim) first, for the total; a bad --victim is said in
   * the loop below. */
  for (guint s = 0; s < cli_attacker_sets_n(sets); s++)
    for (guint i = 0; o->victims[i] != NULL; i++)
      progress.count += o->trusts->len *
                        (g_str_equal(o->victims[i], "all")
                             ? topo_graph_n_nodes(g) - cli_attacker_sets_size(sets, s)
                             : 1);
  guint n_sets = cli_attacker_sets_n(sets);
  for (guint st = 0; status == CLI_EXIT_OK && st < n_sets * o->trusts->len; st++) {
    guint s = st / o->trusts->len;
    PrivTrust trust = g_array_index(o->trusts, PrivTrust, st % o->trusts->len);
    const guint *set = cli_attacker_sets_members(sets, s);
    guint set_n = cli_attacker_sets_size(sets, s);
    GArray *victims = g_array_new(FALSE, FALSE, sizeof(guint));
    if (!victims_of(o, g, set, set_n, victims))
      status = CLI_EXIT_USAGE;
    for (guint i = 0; status == CLI_EXIT_OK && i < victims->len; i++) {
      AuditConfig a = {.graph = g,
                       .gossip = gossip,
                       .protocol = o->protocol,
                       .mode = o->mode,
                       .latency = o->a.latency,
                       .loss = o->a.loss,
                       .schedule = o->schedule,
                       .sigma = o->a.sigma,
                       .lr = o->a.lr,
                       .T = (guint)o->a.rounds,
                       .b = (guint)o->a.interval,
                       .dim = (guint)o->a.dim,
                       .trust = trust,
                       .attackers = set,
                       .n_attackers = set_n,
                       .victim = g_array_index(victims, guint, i),
                       .trials = (guint)o->a.trials,
                       .seed = (guint64)o->a.seed,
                       .threads = (guint)o->a.threads,
                       .progress = on_progress,
                       .progress_data = &progress,
                       .map = mpi ? mpi_map : NULL};
      AuditReport rep;
      GError *err = NULL;
      if (!audit_run(&a, attacks, &rep, &err)) {
        fprintf(stderr, "dpgossip %s: %s\n", CMD, err->message);
        status = cli_error_status(err);
        g_clear_error(&err);
      }
      if (status == CLI_EXIT_OK && rep.note != NULL && ranks_rank() == 0) {
        char *label = cli_attacker_sets_label(sets, s);
        if (o->trusts->len > 1)
          fprintf(stderr, "dpgossip %s: warning: attackers %s, trust %s, %s\n", CMD, label,
                  priv_trust_name(trust), rep.note);
        else
          fprintf(stderr, "dpgossip %s: warning: attackers %s, %s\n", CMD, label, rep.note);
        g_free(label);
      }
      for (guint k = 0; status == CLI_EXIT_OK && k < rep.n_rows; k++) {
        Row row = {.attackers = topo_graph_attackers_label(g, sets, s),
                   .trust = trust,
                   .victim = a.victim,
                   .victim_name = topo_graph_node_name(g, a.victim),
                   .labelled = topo_graph_has_labels(g),
                   .r = rep.rows[k]};
        g_array_append_val(rows, row);
      }
      if (status == CLI_EXIT_OK && !figured && rep.scores != NULL && isfinite(rep.mu)) {
        char *label = topo_graph_attackers_label(g, sets, s);
        char *victim = topo_graph_node_name(g, a.victim);
        status = save_figure(o, &rep, trust, label, victim);
        g_free(victim);
        g_free(label);
        figured = TRUE;
      }
      audit_report_clear(&rep);
      progress.index++;
    }
    g_array_unref(victims);
  }
  cli_progress_free(progress.printer);
  if (status == CLI_EXIT_OK && !figured) {
    fprintf(stderr, "dpgossip %s: --figure %s: no protected victim was audited by the np "
                    "attack: nothing to draw\n", CMD, o->figure);
    status = CLI_EXIT_FAILURE;
  }
  return status;
}

/* The family's decision (audit_decide); each overstated row said on
 * stderr. Returns whether one is. */
static gboolean decide(GArray *rows) {
  AuditResult **r = g_new(AuditResult *, MAX(rows->len, 1));
  for (guint i = 0; i < rows->len; i++)
    r[i] = &g_array_index(rows, Row, i).r;
  guint overstated = audit_decide(r, rows->len);
  g_free(r);
  for (guint i = 0; i < rows->len; i++) {
    const Row *row = &g_array_index(rows, Row, i);
    if (row->r.status == AUDIT_OVERSTATED)
      fprintf(stderr,
              "dpgossip %s: error: attackers %s, trust %s, victim %s: the %s attack reaches mu "
              "in [%.4g, %.4g] (95%%), above the accounted mu = %.4g: the printed guarantee is "
              "wrong\n",
              CMD, row->attackers, priv_trust_name(row->trust), row->victim_name,
              audit_attack_name(row->r.attack), row->r.mu_emp_low, row->r.mu_emp_high, row->r.mu);
  }
  return overstated > 0;
}

/* Parses the command line into @o (cli_options_parse). */
static gboolean options_parse(Options *o, int *argc, char ***argv) {
  GOptionEntry entries[] = {
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &o->protocol, "protocol spec (default dsgd)",
       "SPEC"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &o->a.rounds, "steps T (default 5)", "T"},
      {"participation-interval", 'b', 0, G_OPTION_ARG_INT, &o->a.interval,
       "steps between two uses of the victim's record, b (divides T; default 1: every step); the "
       "canary takes the participation pattern of the exact sensitivity",
       "B"},
      {"epochs", 'k', 0, G_OPTION_ARG_INT, &o->epochs,
       "uses of the victim's record, k: T = k b (instead of -T, or checked against it)", "K"},
      {"schedule", 0, 0, G_OPTION_ARG_STRING, &o->schedule,
       cli_schedule_help("seeded by --seed, the same in every trial"), "SPEC"},
      {"sigma", 0, 0, G_OPTION_ARG_DOUBLE, &o->a.sigma, "noise multiplier (default 1)", "S"},
      CLI_OPTION_LR(&o->a.lr),
      {"trust", 0, 0, G_OPTION_ARG_STRING, &o->a.trust,
       cli_trust_help("", "|", "|", ", or a comma-separated list as for account (default pndp)"),
       "MODEL"},
      {"attackers", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &o->attackers,
       "attacker sets, as for account (required)", "SETS"},
      {"victim", 'v', 0, G_OPTION_ARG_STRING_ARRAY, &o->victims,
       "victim node (repeatable) or all (required)", "V"},
      CLI_OPTIONS_NETWORK("Every run, the deliveries drawn once from --seed as account draws "
                          "them: ",
                          &o->mode, &o->a.latency, &o->a.loss),
      {"trials", 'n', 0, G_OPTION_ARG_INT, &o->a.trials, "runs per world (default 1000, >= 20)",
       "N"},
      {"seed", 's', 0, G_OPTION_ARG_INT64, &o->a.seed, "seed (default 1)", "SEED"},
      {"attack", 0, 0, G_OPTION_ARG_STRING, &o->attack,
       "np|learned|reconstruction|all (default all: every attack that applies), or onerun: the "
       "one-run audit of a training run (its options: --attack onerun --help)",
       "A"},
      {"dim", 0, 0, G_OPTION_ARG_INT, &o->a.dim,
       "synthetic features (default: what the canary needs)", "D"},
      {"threads", 'j', 0, G_OPTION_ARG_INT, &o->a.threads,
       "threads (default 1; results do not depend on it)", "N"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &o->format, "table|json|csv (default table)", "F"},
      {"figure", 0, 0, G_OPTION_ARG_FILENAME, &o->figure,
       "the first np row's empirical trade-off curve over the accounted GDP curve (.svg, .png, "
       ".pdf)",
       "FILE"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "no progress on stderr", NULL},
      {NULL}};
  const CliOptionsSpec spec = {
      .parameter = "- audit privacy guarantees by attacks on simulated runs",
      .graph = &o->graph,
      .entries = entries,
      .plugins = &o->plugins,
      .description =
          "np, learned and reconstruction attack what an attacker set receives in simulated\n"
          "runs of the protocol (one row per attacker set, victim and attack). --attack\n"
          "onerun audits a real D-SGD training run instead, with canaries (Steinke, Nasr\n"
          "and Jagielski 2023): `dpgossip audit --attack onerun --help` lists its options.\n"
          "\n"
          "Examples:\n"
          "  dpgossip audit --generate florentine -T 4 --trust pndp -a 0 --victim 1\n"
          "  dpgossip audit --attack onerun --generate florentine \\\n"
          "    --dataset synthetic:linear,n=600,d=10 -k 4 -b 8 --canaries 200\n"};
  return cli_options_parse(&spec, argc, argv);
}

int cli_cmd_audit(int argc, char **argv) {
  gboolean onerun = onerun_asked(argc, argv);
  const char *other = option_among(argc, argv, onerun ? DISTINGUISHING_ONLY : ONERUN_ONLY);
  if (other != NULL && onerun)
    return cli_usage_error(CMD, "%s does not apply to --attack onerun: the one-run audit trains "
                                "D-SGD with canaries and audits the LDP guarantee of their nodes "
                                "(its options: dpgossip audit --attack onerun --help)",
                           other);
  if (other != NULL)
    return cli_usage_error(CMD, "%s is an option of the one-run audit of a training run: add "
                                "--attack onerun (its options: dpgossip audit --attack onerun "
                                "--help)",
                           other);
  if (onerun)
    return cli_audit_onerun(argc, argv);
  /* Under mpirun or srun the scored trials are shared out; rank 0 prints. */
  gboolean mpi = FALSE;
  guint rank = 0, mpi_size = 1, mpi_local = 1;
  if (!cli_mpi_join(CMD, &mpi, &rank, &mpi_size, &mpi_local))
    return CLI_EXIT_FAILURE;
  Options o = {.a = {.rounds = CLI_UNSET,
                     .interval = CLI_UNSET,
                     .trials = 1000,
                     .threads = 1,
                     .seed = 1,
                     .sigma = 1.0,
                     .lr = NAN},
               .epochs = CLI_UNSET};
  if (!options_parse(&o, &argc, &argv)) {
    options_clear(&o);
    return CLI_EXIT_USAGE;
  }
  GError *err = NULL;
  CliFormat fmt = CLI_FORMAT_TABLE;
  guint attacks = AUDIT_ATTACK_ALL;
  int status = check_options(&o, &fmt, &attacks);
  TopoGraph *g = NULL;
  TopoGossipKind gossip = TOPO_GOSSIP_UNIFORM;
  CliAttackerSets sets;
  cli_attacker_sets_init(&sets);
  if (status == CLI_EXIT_OK && !cli_graph_options_gossip(&o.graph, &gossip, &err))
    status = cli_usage_error(CMD, "%s", err->message);
  g_clear_error(&err);
  if (status == CLI_EXIT_OK) {
    g = cli_graph_options_build(&o.graph, &err);
    if (g == NULL) {
      fprintf(stderr, "dpgossip %s: %s\n", CMD, err->message);
      status = cli_graph_options_status(&o.graph, err);
    }
  }
  if (status == CLI_EXIT_OK)
    status = check_schedule(&o, g, gossip);
  for (guint i = 0; status == CLI_EXIT_OK && o.attackers[i] != NULL; i++)
    if (!cli_attacker_sets_parse(&sets, o.attackers[i], &err))
      status = cli_usage_error(CMD, "%s", err->message);
  if (status == CLI_EXIT_OK &&
      (!topo_graph_resolve_attackers(g, &sets, cli_graph_options_label(&o.graph), 0, G_OPTION_ERROR,
                                     G_OPTION_ERROR_BAD_VALUE, &err) ||
       !cli_attacker_sets_check(&sets, topo_graph_n_nodes(g), cli_graph_options_label(&o.graph),
                                &err)))
    status = cli_usage_error(CMD, "%s", err->message);
  g_clear_error(&err);
  GArray *rows = g_array_new(FALSE, TRUE, sizeof(Row));
  if (status == CLI_EXIT_OK)
    status = audit_all(&o, g, gossip, attacks, &sets, mpi, rows);
  gboolean overstated = status == CLI_EXIT_OK && rank == 0 && decide(rows);
  if (status == CLI_EXIT_OK && rank == 0)
    print_rows(&o, fmt, rows);
  if (status == CLI_EXIT_OK && overstated)
    status = CLI_EXIT_FAILURE;
  for (guint i = 0; i < rows->len; i++) {
    g_free(g_array_index(rows, Row, i).attackers);
    g_free(g_array_index(rows, Row, i).victim_name);
  }
  g_array_unref(rows);
  cli_attacker_sets_clear(&sets);
  if (g)
    topo_graph_free(g);
  options_clear(&o);
  plot_shutdown(); /* cairo's font caches (--figure), for the leak checker */
  return mpi ? ranks_finalize(status) : status;
}
