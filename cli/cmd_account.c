/*
 * cli/cmd_account.c: `dpgossip account`: per-victim privacy guarantees of a
 * synchronous decentralized protocol against an attacker set under a trust
 * model (DESIGN.md, "Privacy accounting"), accounting only (no dataset):
 * sensitivity, mu-GDP, RDP and (eps, delta) for every node outside the set,
 * optionally next to Muffliato's original bound.
 *
 * The accounting is computed by a "path": today the structured fast path
 * (W-product structure, privacy/structured*.c). The observer path (run the
 * protocol on the engine with a PrivObserver attached, then
 * priv_knowledge_blocks) joins as one more entry of `paths` below once the
 * protocols module lands; everything after the blocks is shared.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/account_common.h"
#include "cli/cli.h"
#include "privacy/privacy.h"

#define CMD "account"

/* ---- Paths ---- */

typedef PrivBlocks *(*PathFunc)(const CliAccountSetup *s, const TopoGraph *g, GError **error);

static PrivBlocks *path_structured(const CliAccountSetup *s, const TopoGraph *g,
                                  GError **error) {
  TopoGossip *w = topo_gossip_new(g, s->gossip, error);
  if (!w) return NULL;
  PrivBlocks *b = cli_account_blocks_structured(s, w, error);
  topo_gossip_free(w);
  return b;
}

static const struct {
  const char *name;
  PathFunc func;
} paths[] = {
    {"structured", path_structured},
};

/* ---- Parsing ---- */

static int usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "dpgossip " CMD ": ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(run 'dpgossip " CMD " --help' for the options)\n");
  va_end(ap);
  return CLI_EXIT_USAGE;
}

/* "0,5,7": distinct node ids (checked against n later). */
static gboolean parse_attackers(const char *spec, CliAccountSetup *s, GError **error) {
  if (!spec || !*spec) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--attackers: give at least one node id, e.g. --attackers 0 or 0,5");
    return FALSE;
  }
  char **parts = g_strsplit(spec, ",", -1);
  guint n = g_strv_length(parts);
  s->attackers = g_new(guint, n);
  gboolean ok = TRUE;
  for (guint i = 0; i < n && ok; i++) {
    char *p = g_strstrip(parts[i]);
    if (!cli_parse_uint(p, &s->attackers[i])) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--attackers: '%s' is not a node id (expected a comma-separated list of "
                  "non-negative integers, e.g. 0,5)",
                  p);
      ok = FALSE;
      break;
    }
    for (guint j = 0; j < i && ok; j++)
      if (s->attackers[j] == s->attackers[i]) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--attackers: node %u is listed twice", s->attackers[i]);
        ok = FALSE;
      }
    s->n_attackers = i + 1;
  }
  g_strfreev(parts);
  return ok;
}

/* ---- Output ---- */

static GPtrArray *assumptions(const CliAccountSetup *s) {
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(a, g_strdup_printf("gradients clipped to norm Delta = %g; sensitivities in "
                                     "units of Delta",
                                     s->clip));
  if (s->protocol == PRIV_PROTOCOL_MFDSGD)
    g_ptr_array_add(
        a, g_strdup_printf("Gaussian noise nu * C_local^-1 z per node, nu = sigma * Delta * "
                           "sens_Pi(C_local) (Thm 5.2 bound at b = %u), sigma = %g",
                           s->b, s->sigma));
  else
    g_ptr_array_add(a, g_strdup_printf("Gaussian noise of std sigma * Delta, sigma = %g, "
                                       "independent across nodes and steps",
                                       s->sigma));
  switch (s->trust) {
  case PRIV_TRUST_LDP:
    g_ptr_array_add(a, g_strdup("trust ldp: the attacker sees every message and knows nothing "
                                "else"));
    break;
  case PRIV_TRUST_PNDP:
    g_ptr_array_add(a, g_strdup("trust pndp: the attackers see the messages they receive and "
                                "know their own gradients and noise"));
    break;
  case PRIV_TRUST_SECLDP:
    g_ptr_array_add(a, g_strdup("trust secldp: the attackers see every message and know their "
                                "own gradients, noise and edge secrets"));
    break;
  }
  g_ptr_array_add(a,
                  g_strdup_printf("participation: cyclic (k,b): each record is used k = %u "
                                  "times, once every b = %u steps%s",
                                  s->T / s->b, s->b, s->b == 1 ? " (user level: every step)" : ""));
  g_ptr_array_add(a, g_strdup("gradients may be chosen adaptively (paper Thm 5.1: the "
                              "knowledge of a causal run is column-echelon)"));
  g_ptr_array_add(a, g_strdup(s->sensitivity == PRIV_SENSITIVITY_EXACT
                                  ? "sensitivity exact: max over patterns of the SDP "
                                    "max <X_u[pi], U>, U psd, diag(U) <= 1 (certified)"
                                  : "sensitivity bound: max over patterns of sum |X_u[pi]| "
                                    "(paper Thm 5.2)"));
  g_ptr_array_add(a, g_strdup("synchronous run on a static gossip matrix, every message "
                              "delivered"));
  g_ptr_array_add(a, g_strdup_printf("epsilon from mu-GDP at delta = %g (Dong, Roth & Su 2022, "
                                     "Cor. 1); rdp at alpha = %g",
                                     s->delta, s->alpha));
  if (s->compare_muffliato)
    g_ptr_array_add(a, g_strdup("muffliato_rdp: Muffliato's original bound (Cyffers et al. "
                                "2022, corrected Thm 11), user level, clipped at T"));
  return a;
}

static void add_number(JsonBuilder *jb, const char *key, double v) {
  json_builder_set_member_name(jb, key);
  if (isfinite(v))
    json_builder_add_double_value(jb, v);
  else
    json_builder_add_null_value(jb); /* unprotected: never a finite number */
}

static void print_json(const CliAccountSetup *s, guint n, const PrivReport *r,
                       const double *muff) {
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  json_builder_set_member_name(jb, "nodes");
  json_builder_add_int_value(jb, n);
  json_builder_set_member_name(jb, "gossip");
  json_builder_add_string_value(jb, topo_gossip_kind_name(s->gossip));
  json_builder_set_member_name(jb, "protocol");
  json_builder_add_string_value(jb, s->protocol_label);
  json_builder_set_member_name(jb, "rounds");
  json_builder_add_int_value(jb, s->T);
  json_builder_set_member_name(jb, "participation_interval");
  json_builder_add_int_value(jb, s->b);
  json_builder_set_member_name(jb, "trust");
  json_builder_add_string_value(jb, priv_trust_name(s->trust));
  json_builder_set_member_name(jb, "sensitivity");
  json_builder_add_string_value(jb, priv_sensitivity_name(s->sensitivity));
  json_builder_set_member_name(jb, "sigma");
  json_builder_add_double_value(jb, s->sigma);
  json_builder_set_member_name(jb, "clip");
  json_builder_add_double_value(jb, s->clip);
  json_builder_set_member_name(jb, "alpha");
  json_builder_add_double_value(jb, s->alpha);
  json_builder_set_member_name(jb, "delta");
  json_builder_add_double_value(jb, s->delta);
  json_builder_set_member_name(jb, "attackers");
  json_builder_begin_array(jb);
  for (guint i = 0; i < s->n_attackers; i++) json_builder_add_int_value(jb, s->attackers[i]);
  json_builder_end_array(jb);
  json_builder_set_member_name(jb, "unprotected");
  json_builder_begin_array(jb);
  for (guint i = 0; i < r->n_victims; i++)
    if (r->victims[i].unprotected) json_builder_add_int_value(jb, r->victims[i].node);
  json_builder_end_array(jb);
  json_builder_set_member_name(jb, "assumptions");
  json_builder_begin_array(jb);
  GPtrArray *as = assumptions(s);
  for (guint i = 0; i < as->len; i++) json_builder_add_string_value(jb, g_ptr_array_index(as, i));
  g_ptr_array_unref(as);
  json_builder_end_array(jb);
  json_builder_set_member_name(jb, "victims");
  json_builder_begin_array(jb);
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    json_builder_begin_object(jb);
    json_builder_set_member_name(jb, "node");
    json_builder_add_int_value(jb, v->node);
    json_builder_set_member_name(jb, "distance");
    if (v->distance >= 0)
      json_builder_add_int_value(jb, v->distance);
    else
      json_builder_add_null_value(jb); /* not connected to any attacker */
    add_number(jb, "sensitivity", v->sensitivity);
    add_number(jb, "mu", v->mu);
    add_number(jb, "rdp", v->rdp);
    add_number(jb, "epsilon", v->epsilon);
    if (muff) add_number(jb, "muffliato_rdp", muff[v->node]);
    json_builder_end_object(jb);
  }
  json_builder_end_array(jb);
  json_builder_end_object(jb);
  cli_print_json(json_builder_get_root(jb));
  g_object_unref(jb);
}

/* %.17g with a '.' decimal point, "inf" when not finite. */
static const char *fmt_num(char *buf, gsize len, const char *fmt, double v) {
  if (!isfinite(v)) return "inf";
  return g_ascii_formatd(buf, (int)len, fmt, v);
}

static void print_csv(const PrivReport *r, const double *muff) {
  char b[5][G_ASCII_DTOSTR_BUF_SIZE];
  printf("node,distance,sensitivity,mu,rdp,epsilon%s\n", muff ? ",muffliato_rdp" : "");
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    char dist[16] = "";
    if (v->distance >= 0) g_snprintf(dist, sizeof dist, "%d", v->distance);
    printf("%u,%s,%s,%s,%s,%s", v->node, dist, fmt_num(b[0], sizeof b[0], "%.17g", v->sensitivity),
           fmt_num(b[1], sizeof b[1], "%.17g", v->mu), fmt_num(b[2], sizeof b[2], "%.17g", v->rdp),
           fmt_num(b[3], sizeof b[3], "%.17g", v->epsilon));
    if (muff) printf(",%s", fmt_num(b[4], sizeof b[4], "%.17g", muff[v->node]));
    printf("\n");
  }
}

static void print_table(const CliAccountSetup *s, guint n, const PrivReport *r,
                        const double *muff) {
  char b[5][G_ASCII_DTOSTR_BUF_SIZE];
  printf("graph          %u nodes, %s gossip\n", n, topo_gossip_kind_name(s->gossip));
  printf("protocol       %s, %u steps, sigma = %g, clip = %g\n", s->protocol_label, s->T, s->sigma,
         s->clip);
  printf("trust          %s, attackers", priv_trust_name(s->trust));
  for (guint i = 0; i < s->n_attackers; i++) printf("%s%u", i ? "," : " ", s->attackers[i]);
  printf("\nparticipation  every %u step%s (k = %u), %s sensitivity\n", s->b, s->b == 1 ? "" : "s",
         s->T / s->b, priv_sensitivity_name(s->sensitivity));
  guint unprotected = 0;
  for (guint i = 0; i < r->n_victims; i++) unprotected += r->victims[i].unprotected;
  printf("unprotected    %u victim%s\n\n", unprotected, unprotected == 1 ? "" : "s");
  printf("%6s %8s %12s %12s %12s %12s", "node", "distance", "sensitivity", "mu", "rdp", "epsilon");
  if (muff) printf(" %14s", "muffliato_rdp");
  printf("\n");
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    char dist[16] = "-";
    if (v->distance >= 0) g_snprintf(dist, sizeof dist, "%d", v->distance);
    printf("%6u %8s %12s %12s %12s %12s", v->node, dist,
           fmt_num(b[0], sizeof b[0], "%.6g", v->sensitivity),
           fmt_num(b[1], sizeof b[1], "%.6g", v->mu), fmt_num(b[2], sizeof b[2], "%.6g", v->rdp),
           fmt_num(b[3], sizeof b[3], "%.6g", v->epsilon));
    if (muff) printf(" %14s", fmt_num(b[4], sizeof b[4], "%.6g", muff[v->node]));
    printf("\n");
  }
  printf("\n(rdp at alpha = %g; epsilon at delta = %g)\n", s->alpha, s->delta);
}

/* ---- The command ---- */

int cli_cmd_account(int argc, char **argv) {
  CliGraphOptions gopt = {0};
  gint rounds = 0, interval = 1;
  double sigma = 1.0, clip = 1.0, alpha = 2.0, delta = 1e-6;
  char *protocol = NULL, *trust = NULL, *attackers = NULL, *sensitivity = NULL, *compare = NULL,
       *format = NULL, *path = NULL;
  GOptionEntry entries[] = {
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &protocol,
       "dsgd (default), muffliato:K=k, antipgd or mfdsgd:C=FILE", "NAME"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &rounds,
       "Gradient steps T (required; Muffliato gossips K rounds per step)", "T"},
      {"participation-interval", 'b', 0, G_OPTION_ARG_INT, &interval,
       "Steps between two uses of a record, b (divides T; default 1: user level)", "B"},
      {"trust", 0, 0, G_OPTION_ARG_STRING, &trust, "Trust model: ldp, pndp or secldp (required)",
       "MODEL"},
      {"attackers", 'a', 0, G_OPTION_ARG_STRING, &attackers,
       "The attacker set: one node id, or a comma-separated collusion set (required)", "IDS"},
      {"sensitivity", 0, 0, G_OPTION_ARG_STRING, &sensitivity,
       "bound (default, paper Thm 5.2) or exact (SDP, never above the bound)", "KIND"},
      {"sigma", 0, 0, G_OPTION_ARG_DOUBLE, &sigma,
       "Noise multiplier: noise std sigma * clip (default 1)", "SIGMA"},
      {"clip", 0, 0, G_OPTION_ARG_DOUBLE, &clip, "Gradient clipping norm Delta (default 1)",
       "DELTA"},
      {"alpha", 0, 0, G_OPTION_ARG_DOUBLE, &alpha, "Renyi order of the rdp column (default 2)",
       "ALPHA"},
      {"delta", 0, 0, G_OPTION_ARG_DOUBLE, &delta, "delta of the epsilon column (default 1e-6)",
       "DELTA"},
      {"compare", 0, 0, G_OPTION_ARG_STRING, &compare,
       "Add another accounting: muffliato (Cyffers et al. 2022, D-SGD under PNDP)", "NAME"},
      {"path", 0, 0, G_OPTION_ARG_STRING, &path,
       "How to account: structured (default: from the W-product structure)", "PATH"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Output: table (default), json or csv",
       "FORMAT"},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx =
      g_option_context_new("- per-victim privacy of a decentralized protocol (accounting only)");
  cli_graph_options_add(ctx, &gopt);
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_description(
      ctx, "Every node outside the attacker set is a victim; for each: its distance to the\n"
           "attackers, the sensitivity of what they learn of its gradients, mu (mu-GDP),\n"
           "the Renyi DP at alpha and epsilon at delta. Victims the attackers see without\n"
           "noise are 'unprotected' (null in JSON, inf in CSV and tables).\n"
           "\n"
           "Examples:\n"
           "  dpgossip account --generate florentine --rounds 10 --trust pndp --attackers 0 "
           "--compare muffliato\n"
           "  dpgossip account --graph fb.edges --lcc -T 320 --trust pndp -a 0,5 --sensitivity "
           "exact --format json\n"
           "  dpgossip account --generate ring:n=20 -T 16 -b 4 --trust ldp -a 0 "
           "--protocol mfdsgd:C=C.csv\n");

  int status = CLI_EXIT_USAGE;
  CliAccountSetup s = {0};
  TopoGraph *g = NULL;
  PrivBlocks *blocks = NULL;
  PrivReport *report = NULL;
  double *muff = NULL;
  char *c_path = NULL;
  GError *error = NULL;
  CliFormat fmt = CLI_FORMAT_TABLE;
  PathFunc path_func = paths[0].func;

  if (!cli_parse(ctx, &argc, &argv)) goto out;
  if (rounds <= 0) {
    status = usage_error("--rounds T must be given and positive (got %d)", rounds);
    goto out;
  }
  if (interval <= 0 || rounds % interval != 0) {
    status = usage_error("--participation-interval b = %d must be positive and divide "
                         "--rounds T = %d",
                         interval, rounds);
    goto out;
  }
  s.T = (guint)rounds;
  s.b = (guint)interval;
  if (!trust) {
    status = usage_error("--trust is required: ldp, pndp or secldp");
    goto out;
  }
  if (!priv_trust_parse(trust, &s.trust, &error)) {
    g_prefix_error(&error, "--trust: ");
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  if (!parse_attackers(attackers, &s, &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  if (!cli_account_parse_protocol(protocol ? protocol : "dsgd", &s, &c_path, &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  if (sensitivity && !priv_sensitivity_parse(sensitivity, &s.sensitivity, &error)) {
    g_prefix_error(&error, "--sensitivity: ");
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  if (!cli_account_check_numbers(sigma, clip, alpha, delta, &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  s.sigma = sigma;
  s.clip = clip;
  s.alpha = alpha;
  s.delta = delta;
  if (compare) {
    if (!g_str_equal(compare, "muffliato")) {
      status = usage_error("--compare: unknown accounting '%s' (valid: muffliato)", compare);
      goto out;
    }
    if (s.protocol != PRIV_PROTOCOL_DSGD || s.trust != PRIV_TRUST_PNDP) {
      status = usage_error("--compare muffliato: Muffliato's bound is for D-SGD under PNDP "
                           "(use --protocol dsgd --trust pndp)");
      goto out;
    }
    s.compare_muffliato = TRUE;
  }
  if (path) {
    gboolean found = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS(paths); i++)
      if (g_str_equal(path, paths[i].name)) {
        path_func = paths[i].func;
        found = TRUE;
      }
    if (!found) {
      status = usage_error("--path: unknown path '%s' (valid: structured)", path);
      goto out;
    }
  }
  if (format &&
      !cli_format_parse(format,
                        (1u << CLI_FORMAT_TABLE) | (1u << CLI_FORMAT_JSON) | (1u << CLI_FORMAT_CSV),
                        &fmt, &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  if (!cli_graph_options_gossip(&gopt, &s.gossip, &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  g = cli_graph_options_build(&gopt, &error);
  if (!g) {
    status =
        cli_fail(CMD, error, error->domain == G_OPTION_ERROR ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
    goto out;
  }
  guint n = topo_graph_n_nodes(g);
  for (guint i = 0; i < s.n_attackers; i++) {
    if (s.attackers[i] >= n) {
      status = usage_error("--attackers: node %u is out of range (the graph has %u nodes, "
                           "0 to %u)",
                           s.attackers[i], n, n - 1);
      goto out;
    }
  }
  if (s.n_attackers >= n) {
    status = usage_error("--attackers: every node is an attacker: no victim left");
    goto out;
  }
  if (!cli_account_load_c(&s, c_path, &error) || !(blocks = path_func(&s, g, &error))) {
    status = cli_fail(CMD, error, CLI_EXIT_FAILURE);
    goto out;
  }
  PrivAccountOptions opt = {
      .b = s.b, .sensitivity = s.sensitivity, .alpha = s.alpha, .delta = s.delta};
  if (!(report = priv_account_report(blocks, g, &opt, &error))) {
    status = cli_fail(CMD, error, CLI_EXIT_FAILURE);
    goto out;
  }
  if (s.compare_muffliato) {
    TopoGossip *w = topo_gossip_new(g, s.gossip, &error);
    muff =
        w ? priv_muffliato_rdp(w, s.T, s.attackers, s.n_attackers, s.alpha, s.sigma, &error) : NULL;
    topo_gossip_free(w);
    if (!muff) {
      status = cli_fail(CMD, error, CLI_EXIT_FAILURE);
      goto out;
    }
  }
  if (fmt == CLI_FORMAT_JSON)
    print_json(&s, n, report, muff);
  else if (fmt == CLI_FORMAT_CSV)
    print_csv(report, muff);
  else
    print_table(&s, n, report, muff);
  status = CLI_EXIT_OK;
out:
  g_free(muff);
  priv_report_free(report);
  priv_blocks_free(blocks);
  topo_graph_free(g);
  cli_account_setup_clear(&s);
  g_free(c_path);
  g_free(protocol);
  g_free(trust);
  g_free(attackers);
  g_free(sensitivity);
  g_free(compare);
  g_free(format);
  g_free(path);
  cli_graph_options_clear(&gopt);
  g_option_context_free(ctx);
  return status;
}
