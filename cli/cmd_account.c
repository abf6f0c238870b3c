/*
 * cli/cmd_account.c: `dpgossip account`: per-victim privacy guarantees of a
 * decentralized protocol against attacker sets under trust models
 * (DESIGN.md, "Privacy accounting"), accounting only (no dataset):
 * sensitivity, mu-GDP, RDP and (eps, delta) for every node outside each set,
 * optionally next to Muffliato's original bound.
 *
 * Two paths compute the per-victim blocks X_u, everything after them is
 * shared:
 *   structured  the W-product structure of a synchronous D-SGD, Muffliato or
 *               MF-D-SGD run on static or time-varying W_t (no simulation);
 *   observer    the protocol is simulated (any registered protocol, any
 *               mode, latency, loss, schedule) with one PrivObserver on the
 *               engine's bus, one view per (attacker set, trust model): one
 *               simulation for all of them; the blocks come from what each
 *               view saw (priv_knowledge_blocks).
 * --path auto takes the structured path whenever it describes the run
 * exactly (proto_account_plan: a protocol it knows, synchronous, no loss, no
 * link override; any schedule, churn included).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/account_common.h"
#include "cli/cli.h"
#include "privacy/privacy.h"
#include "protocols/protocols.h"
#include "scenarios/scenarios.h"

#define CMD "account"

typedef enum { PATH_AUTO, PATH_STRUCTURED, PATH_OBSERVER } Path;
static const char *const path_names[] = {"auto", "structured", "observer"};

/* One accounting: attacker set @set under @trust. */
typedef struct {
  PrivTrust trust;
  guint set;
  PrivBlocks *blocks;
  PrivReport *report;
  double *muff; /* --compare muffliato, PNDP accountings only */
} Accounting;

/* Everything the output needs besides the accountings. */
typedef struct {
  const CliAccountSetup *s;
  guint n;
  Path path;
  const char *path_reason;
  const char *schedule; /* NULL: static */
  guint64 seed;
  gboolean seed_given;
  const CliObserverRun *run; /* the observer path's run, else NULL */
  const char *storage;
  const char *accountant;
  const char *const *link_specs;
  const ProtoRunStats *stats;
  const PrivTrust *trusts;
  guint n_trusts;
} Context;

/* ---- Parsing ---- */

#define usage_error(...) cli_usage_error(CMD, __VA_ARGS__)

/* "pndp" or "pndp,secldp": distinct trust models. */
static gboolean parse_trusts(const char *spec, GArray *out, GError **error) {
  char **parts = g_strsplit(spec, ",", -1);
  gboolean ok = parts[0] != NULL;
  if (!ok)
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--trust: give ldp, pndp or secldp (or a comma-separated list)");
  for (guint i = 0; parts[i] && ok; i++) {
    PrivTrust t;
    if (!priv_trust_parse(g_strstrip(parts[i]), &t, error)) {
      g_prefix_error(error, "--trust: ");
      ok = FALSE;
      break;
    }
    for (guint j = 0; j < out->len; j++)
      if (g_array_index(out, PrivTrust, j) == t) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--trust: %s is listed twice", priv_trust_name(t));
        ok = FALSE;
      }
    g_array_append_val(out, t);
  }
  g_strfreev(parts);
  return ok;
}

/* ---- Output ---- */

static const char *trust_assumption(PrivTrust t, Path path) {
  gboolean obs = path == PATH_OBSERVER;
  switch (t) {
  case PRIV_TRUST_LDP:
    return obs ? "trust ldp: the attackers see every message sent (dropped ones included) and "
                 "know nothing else"
               : "trust ldp: the attackers see every message and know nothing else";
  case PRIV_TRUST_PNDP:
    return obs ? "trust pndp: the attackers see every message delivered to them (late ones "
                 "included) and know their own gradients and every noise variable they own "
                 "(their noise; edge secrets on their edges)"
               : "trust pndp: the attackers see the messages they receive and know their own "
                 "gradients and noise";
  case PRIV_TRUST_SECLDP:
    return obs ? "trust secldp: the attackers see every message sent and know their own "
                 "gradients and every noise variable they own (their noise; edge secrets on "
                 "their edges)"
               : "trust secldp: the attackers see every message and know their own gradients, "
                 "noise and edge secrets";
  }
  return "";
}

static GPtrArray *assumptions(const Context *c) {
  const CliAccountSetup *s = c->s;
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(a, g_strdup_printf("gradients clipped to norm Delta = %g; sensitivities in "
                                     "units of Delta",
                                     s->clip));
  if (c->path == PATH_OBSERVER)
    g_ptr_array_add(a, g_strdup_printf("noise as protocol %s draws it (Gaussian, sigma = %g; "
                                       "DESIGN.md \"Noise units\"), read off the provenance of "
                                       "every message",
                                       s->protocol_label, s->sigma));
  else if (s->protocol == PRIV_PROTOCOL_MFDSGD)
    g_ptr_array_add(
        a, g_strdup_printf("Gaussian noise nu * C_local^-1 z per node, nu = sigma * Delta * "
                           "sens_Pi(C_local) (Thm 5.2 bound at b = %u), sigma = %g",
                           s->b, s->sigma));
  else
    g_ptr_array_add(a, g_strdup_printf("Gaussian noise of std sigma * Delta, sigma = %g, "
                                       "independent across nodes and steps",
                                       s->sigma));
  for (guint i = 0; i < c->n_trusts; i++)
    g_ptr_array_add(a, g_strdup(trust_assumption(c->trusts[i], c->path)));
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
  char *topo = c->schedule ? g_strdup_printf("the gossip matrices W_r of schedule %s (seed "
                                             "%" G_GUINT64_FORMAT ")",
                                             c->schedule, c->seed)
                           : g_strdup("a static gossip matrix");
  if (c->path == PATH_OBSERVER) {
    const CliObserverRun *r = c->run;
    g_ptr_array_add(
        a, g_strdup_printf("observer path: one simulated run on %s, mode %s, latency %s, loss "
                           "%s%s, seed %" G_GUINT64_FORMAT ", learning rate %g; the accounting "
                           "is exactly what each attacker set saw in that run (it may differ "
                           "in another run of a random mode, latency, loss or schedule)",
                           topo, r->mode ? r->mode : "sync",
                           r->latency ? r->latency : "constant:ms=0", r->loss ? r->loss : "0",
                           r->n_links ? " with per-link overrides" : "", r->seed, r->lr));
  } else {
    g_ptr_array_add(a, g_strdup_printf("structured path: synchronous run on %s, every message "
                                       "delivered",
                                       topo));
  }
  g_free(topo);
  g_ptr_array_add(a, g_strdup_printf("epsilon from mu-GDP at delta = %g (Dong, Roth & Su 2022, "
                                     "Cor. 1); rdp at alpha = %g",
                                     s->delta, s->alpha));
  if (s->compare_muffliato)
    g_ptr_array_add(a, g_strdup("muffliato_rdp: Muffliato's original bound (Cyffers et al. "
                                "2022, corrected Thm 11) for a synchronous run on the static W, "
                                "user level, clipped at T, for the PNDP accountings"));
  return a;
}

static void add_number(JsonBuilder *jb, const char *key, double v) {
  json_builder_set_member_name(jb, key);
  if (isfinite(v))
    json_builder_add_double_value(jb, v);
  else
    json_builder_add_null_value(jb); /* unprotected: never a finite number */
}

static void add_string(JsonBuilder *jb, const char *key, const char *v) {
  json_builder_set_member_name(jb, key);
  if (v)
    json_builder_add_string_value(jb, v);
  else
    json_builder_add_null_value(jb);
}

static void add_int(JsonBuilder *jb, const char *key, gint64 v) {
  json_builder_set_member_name(jb, key);
  json_builder_add_int_value(jb, v);
}

/* Victims reported UNRESOLVED (no protection, no number). */
static guint count_unresolved(const PrivReport *r) {
  guint k = 0;
  for (guint i = 0; i < r->n_victims; i++) k += r->victims[i].unresolved;
  return k;
}

/* trust, attackers, unprotected, victims: the per-accounting fields
 * ("unresolved" and each such victim's "status" and "note" only when some
 * victim is). */
static void json_accounting(JsonBuilder *jb, const CliAttackerSets *sets, const Accounting *ac) {
  add_string(jb, "trust", priv_trust_name(ac->trust));
  json_builder_set_member_name(jb, "attackers");
  json_builder_begin_array(jb);
  for (guint i = 0; i < cli_attacker_sets_size(sets, ac->set); i++)
    json_builder_add_int_value(jb, cli_attacker_sets_members(sets, ac->set)[i]);
  json_builder_end_array(jb);
  const PrivReport *r = ac->report;
  json_builder_set_member_name(jb, "unprotected");
  json_builder_begin_array(jb);
  for (guint i = 0; i < r->n_victims; i++)
    if (r->victims[i].unprotected) json_builder_add_int_value(jb, r->victims[i].node);
  json_builder_end_array(jb);
  if (count_unresolved(r) > 0) {
    /* Only when there are some: outputs without any stay as they were. */
    json_builder_set_member_name(jb, "unresolved");
    json_builder_begin_array(jb);
    for (guint i = 0; i < r->n_victims; i++)
      if (r->victims[i].unresolved) json_builder_add_int_value(jb, r->victims[i].node);
    json_builder_end_array(jb);
  }
  json_builder_set_member_name(jb, "victims");
  json_builder_begin_array(jb);
  for (guint i = 0; i < r->n_victims; i++) {
    const PrivVictim *v = &r->victims[i];
    json_builder_begin_object(jb);
    add_int(jb, "node", v->node);
    if (v->unresolved) {
      add_string(jb, "status", "unresolved");
      add_string(jb, "note", PRIV_UNRESOLVED_NOTE);
    }
    json_builder_set_member_name(jb, "distance");
    if (v->distance >= 0)
      json_builder_add_int_value(jb, v->distance);
    else
      json_builder_add_null_value(jb); /* not connected to any attacker */
    add_number(jb, "sensitivity", v->sensitivity);
    add_number(jb, "mu", v->mu);
    add_number(jb, "rdp", v->rdp);
    add_number(jb, "epsilon", v->epsilon);
    if (ac->muff) add_number(jb, "muffliato_rdp", ac->muff[v->node]);
    json_builder_end_object(jb);
  }
  json_builder_end_array(jb);
}

static void print_json(const Context *c, const CliAttackerSets *sets, const Accounting *acs,
                       guint n_acs) {
  const CliAccountSetup *s = c->s;
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  add_int(jb, "nodes", c->n);
  add_string(jb, "gossip", topo_gossip_kind_name(s->gossip));
  add_string(jb, "protocol", s->protocol_label);
  add_int(jb, "rounds", s->T);
  add_int(jb, "participation_interval", s->b);
  add_string(jb, "sensitivity", priv_sensitivity_name(s->sensitivity));
  json_builder_set_member_name(jb, "sigma");
  json_builder_add_double_value(jb, s->sigma);
  json_builder_set_member_name(jb, "clip");
  json_builder_add_double_value(jb, s->clip);
  json_builder_set_member_name(jb, "alpha");
  json_builder_add_double_value(jb, s->alpha);
  json_builder_set_member_name(jb, "delta");
  json_builder_add_double_value(jb, s->delta);
  add_string(jb, "path", path_names[c->path]);
  add_string(jb, "path_reason", c->path_reason);
  add_string(jb, "schedule", c->schedule ? c->schedule : "static");
  if (c->schedule || c->run) add_int(jb, "seed", (gint64)c->seed);
  if (c->run) {
    const CliObserverRun *r = c->run;
    json_builder_set_member_name(jb, "run");
    json_builder_begin_object(jb);
    add_string(jb, "mode", r->mode ? r->mode : "sync");
    add_string(jb, "latency", r->latency ? r->latency : "constant:ms=0");
    add_string(jb, "loss", r->loss ? r->loss : "0");
    json_builder_set_member_name(jb, "lr");
    json_builder_add_double_value(jb, r->lr);
    add_string(jb, "storage", c->storage);
    add_string(jb, "accountant", c->accountant);
    json_builder_set_member_name(jb, "links");
    json_builder_begin_array(jb);
    for (guint i = 0; c->link_specs && c->link_specs[i]; i++)
      json_builder_add_string_value(jb, c->link_specs[i]);
    json_builder_end_array(jb);
    add_int(jb, "messages_sent", (gint64)c->stats->engine.messages_sent);
    add_int(jb, "messages_delivered", (gint64)c->stats->engine.messages_delivered);
    add_int(jb, "messages_dropped", (gint64)c->stats->engine.messages_dropped);
    add_int(jb, "late_discarded", (gint64)c->stats->late_discarded);
    add_int(jb, "partial_gathers", (gint64)c->stats->partial_gathers);
    add_int(jb, "noise_variables", c->stats->n_noise);
    json_builder_end_object(jb);
  }
  json_builder_set_member_name(jb, "assumptions");
  json_builder_begin_array(jb);
  GPtrArray *as = assumptions(c);
  for (guint i = 0; i < as->len; i++) json_builder_add_string_value(jb, g_ptr_array_index(as, i));
  g_ptr_array_unref(as);
  json_builder_end_array(jb);
  if (n_acs == 1) {
    json_accounting(jb, sets, &acs[0]);
  } else {
    json_builder_set_member_name(jb, "accountings");
    json_builder_begin_array(jb);
    for (guint i = 0; i < n_acs; i++) {
      json_builder_begin_object(jb);
      json_accounting(jb, sets, &acs[i]);
      json_builder_end_object(jb);
    }
    json_builder_end_array(jb);
  }
  json_builder_end_object(jb);
  cli_print_json(json_builder_get_root(jb));
  g_object_unref(jb);
}

/* %.17g with a '.' decimal point, "inf" when not finite. */
static const char *fmt_num(char *buf, gsize len, const char *fmt, double v) {
  if (!isfinite(v)) return "inf";
  return g_ascii_formatd(buf, (int)len, fmt, v);
}

/* The tidy privacy table: the scenario runner's columns and writer
 * (SCEN_PRIVACY_CSV_COLUMNS), a set being named by its members. */
static void print_csv(const Context *c, const CliAttackerSets *sets, const Accounting *acs,
                      guint n_acs) {
  GString *s = g_string_new(SCEN_PRIVACY_CSV_COLUMNS "\n");
  for (guint a = 0; a < n_acs; a++) {
    char *label = cli_attacker_sets_label(sets, acs[a].set);
    ScenPrivacyCsvSet set = {.collusion = label, .attackers = label, .trust = acs[a].trust,
                             .path = path_names[c->path], .seed = c->seed};
    scen_privacy_csv_rows(s, &set, acs[a].report, acs[a].muff);
    g_free(label);
  }
  fputs(s->str, stdout);
  g_string_free(s, TRUE);
}

static void print_table(const Context *c, const CliAttackerSets *sets, const Accounting *acs,
                        guint n_acs) {
  const CliAccountSetup *s = c->s;
  char b[5][G_ASCII_DTOSTR_BUF_SIZE];
  printf("graph          %u nodes, %s gossip, schedule %s\n", c->n,
         topo_gossip_kind_name(s->gossip), c->schedule ? c->schedule : "static");
  printf("protocol       %s, %u steps, sigma = %g, clip = %g\n", s->protocol_label, s->T, s->sigma,
         s->clip);
  printf("path           %s (%s)\n", path_names[c->path], c->path_reason);
  if (c->run)
    printf("run            mode %s, latency %s, loss %s, seed %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
           " messages sent, %" G_GUINT64_FORMAT " dropped, %" G_GUINT64_FORMAT " late\n",
           c->run->mode ? c->run->mode : "sync", c->run->latency ? c->run->latency : "constant:ms=0",
           c->run->loss ? c->run->loss : "0", c->seed, c->stats->engine.messages_sent,
           c->stats->engine.messages_dropped, c->stats->late_discarded);
  printf("participation  every %u step%s (k = %u), %s sensitivity\n", s->b, s->b == 1 ? "" : "s",
         s->T / s->b, priv_sensitivity_name(s->sensitivity));
  for (guint a = 0; a < n_acs; a++) {
    const PrivReport *r = acs[a].report;
    const double *muff = acs[a].muff;
    char *label = cli_attacker_sets_label(sets, acs[a].set);
    printf("\ntrust          %s, attackers %s\n", priv_trust_name(acs[a].trust), label);
    g_free(label);
    guint unprotected = 0;
    for (guint i = 0; i < r->n_victims; i++) unprotected += r->victims[i].unprotected;
    printf("unprotected    %u victim%s\n", unprotected, unprotected == 1 ? "" : "s");
    guint unresolved = count_unresolved(r);
    if (unresolved)
      printf("unresolved     %u victim%s (%s)\n", unresolved, unresolved == 1 ? "" : "s",
             PRIV_UNRESOLVED_NOTE);
    printf("\n");
    printf("%6s %8s %12s %12s %12s %12s", "node", "distance", "sensitivity", "mu", "rdp",
           "epsilon");
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
      if (v->unresolved) printf("  unresolved");
      printf("\n");
    }
  }
  printf("\n(rdp at alpha = %g; epsilon at delta = %g)\n", s->alpha, s->delta);
}

/* One stderr line per accounting with unresolved victims: whatever the
 * format, a user must not miss that no number could be given for them. */
static void warn_unresolved(const CliAttackerSets *sets, const Accounting *acs, guint n_acs) {
  for (guint a = 0; a < n_acs; a++) {
    const PrivReport *r = acs[a].report;
    if (count_unresolved(r) == 0) continue;
    GString *nodes = g_string_new(NULL);
    for (guint i = 0; i < r->n_victims; i++)
      if (r->victims[i].unresolved)
        g_string_append_printf(nodes, "%s%u", nodes->len ? ", " : "", r->victims[i].node);
    char *label = cli_attacker_sets_label(sets, acs[a].set);
    fprintf(stderr,
            "dpgossip " CMD ": warning: trust %s, attackers %s: victim%s %s: %s (status "
            "unresolved)\n",
            priv_trust_name(acs[a].trust), label, count_unresolved(r) == 1 ? "" : "s", nodes->str,
            PRIV_UNRESOLVED_NOTE);
    g_free(label);
    g_string_free(nodes, TRUE);
  }
}

/* ---- The command ---- */

/* Exit status of an error from the protocol registry or a spec parser:
 * the user's option (2), or a file or run that failed (1). */
static int spec_status(const GError *e) {
  if (e->domain == G_OPTION_ERROR) return CLI_EXIT_USAGE;
  if (e->domain == PROTO_ERROR)
    return e->code == PROTO_ERROR_IO || e->code == PROTO_ERROR_FORMAT ||
                   e->code == PROTO_ERROR_STALLED || e->code == PROTO_ERROR_FAILED
               ? CLI_EXIT_FAILURE
               : CLI_EXIT_USAGE;
  return CLI_EXIT_FAILURE;
}

/* ---- The structured path, one accounting at a time (shared out under mpirun) ---- */

typedef struct {
  const CliAccountSetup *s;
  const CliAttackerSets *sets;
  const Accounting *acs;
  TopoSchedule *sched;
  TopoGossip *w, *wm; /* wm: --compare muffliato */
  const TopoGraph *g;
  guint n;
  PrivAccountOptions opt;
} AccountJob;

/* A report and its Muffliato bound as they travel between MPI ranks. */
typedef struct {
  guint32 T, b, sensitivity, n_victims, has_muff;
  double alpha, delta;
} ReportHeader;

/* Accounting @a (its blocks, report and Muffliato bound) as bytes. */
static GBytes *account_one(guint a, gpointer data, GError **error) {
  const AccountJob *j = data;
  CliAccountSetup one = *j->s; /* shallow: borrows the set */
  one.trust = j->acs[a].trust;
  one.attackers = (guint *)cli_attacker_sets_members(j->sets, j->acs[a].set);
  one.n_attackers = cli_attacker_sets_size(j->sets, j->acs[a].set);
  PrivBlocks *blocks = j->sched ? cli_account_blocks_schedule(&one, j->sched, error)
                                : cli_account_blocks_structured(&one, j->w, error);
  PrivReport *r = blocks ? priv_account_report(blocks, j->g, &j->opt, error) : NULL;
  gboolean muff_wanted = j->s->compare_muffliato && one.trust == PRIV_TRUST_PNDP;
  double *muff = r && muff_wanted ? priv_muffliato_rdp(j->wm, j->s->T, one.attackers,
                                                       one.n_attackers, j->s->alpha, j->s->sigma,
                                                       error)
                                  : NULL;
  GBytes *out = NULL;
  if (r != NULL && (muff != NULL || !muff_wanted)) {
    ReportHeader h = {r->T, r->b, r->sensitivity, r->n_victims, muff != NULL, r->alpha, r->delta};
    GByteArray *b = g_byte_array_new();
    g_byte_array_append(b, (const guint8 *)&h, sizeof h);
    g_byte_array_append(b, (const guint8 *)r->victims, r->n_victims * sizeof *r->victims);
    if (muff != NULL)
      g_byte_array_append(b, (const guint8 *)muff, j->n * sizeof *muff);
    out = g_byte_array_free_to_bytes(b);
  }
  g_free(muff);
  priv_report_free(r);
  priv_blocks_free(blocks);
  return out;
}

/* account_one's bytes back into @ac's report and Muffliato bound. */
static void account_unpack(GBytes *bytes, guint n, Accounting *ac) {
  gsize len;
  const guint8 *p = g_bytes_get_data(bytes, &len);
  ReportHeader h;
  memcpy(&h, p, sizeof h);
  PrivReport *r = g_new0(PrivReport, 1);
  *r = (PrivReport){h.T, h.b, h.sensitivity, h.alpha, h.delta, h.n_victims, NULL};
  r->victims = g_memdup2(p + sizeof h, h.n_victims * sizeof *r->victims);
  ac->report = r;
  if (h.has_muff)
    ac->muff = g_memdup2(p + sizeof h + h.n_victims * sizeof *r->victims, n * sizeof(double));
}

int cli_cmd_account(int argc, char **argv) {
  /* Under mpirun or srun the accountings (structured path) are shared out. */
  gboolean mpi = FALSE;
  guint rank = 0, mpi_size = 1, mpi_local = 1;
  if (!cli_mpi_join(CMD, &mpi, &rank, &mpi_size, &mpi_local)) return CLI_EXIT_FAILURE;
  CliGraphOptions gopt = {0};
  CliPluginOptions popt = {0};
  gint rounds = 0, interval = 1;
  double sigma = 1.0, clip = 1.0, alpha = 2.0, delta = 1e-6, lr = NAN;
  char *protocol = NULL, *trust = NULL, *sensitivity = NULL, *compare = NULL, *format = NULL,
       *path = NULL, *mode = NULL, *latency = NULL, *loss = NULL, *schedule = NULL, *seed = NULL,
       *storage = NULL, *accountant = NULL;
  char **attackers = NULL, **links = NULL;
  GOptionEntry entries[] = {
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &protocol,
       "Any registered protocol spec: dsgd (default), muffliato:K=k, antipgd, "
       "mfdsgd:C=FAMILY|FILE, mafalda, decor[:sigma_secret=S], zipdl[:units=gradient], or a "
       "plugin's (dpgossip protocols lists them)",
       "SPEC"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &rounds,
       "Gradient steps T (required; Muffliato gossips K rounds per step)", "T"},
      {"participation-interval", 'b', 0, G_OPTION_ARG_INT, &interval,
       "Steps between two uses of a record, b (divides T; default 1: user level)", "B"},
      {"trust", 0, 0, G_OPTION_ARG_STRING, &trust,
       "Trust model: ldp, pndp or secldp, or a comma-separated list (required)", "MODEL"},
      {"attackers", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &attackers,
       "Attacker sets: ids separated by ',' are accounted each alone, ids joined by '+' "
       "form one collusion set: 0,5 or 0+5 (required; repeatable: every set is accounted, "
       "under every trust model, from one run)",
       "IDS"},
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
       "How to account: auto (default: structured when it describes the run exactly), "
       "structured (W-product structure, no simulation) or observer (simulate the protocol, "
       "account from what the attackers saw)",
       "PATH"},
      {"schedule", 0, 0, G_OPTION_ARG_STRING, &schedule,
       "Time-varying gossip over the graph: static (default), matching, exponential, "
       "edge-failure:p=P, churn:...",
       "SPEC"},
      {"seed", 's', 0, G_OPTION_ARG_STRING, &seed,
       "Seed of the schedule and of the simulated run (default 0)", "N"},
      {"mode", 0, 0, G_OPTION_ARG_STRING, &mode,
       "Observer path: gossip mode sync (default), deadline:ms=D or stale:s=S", "MODE"},
      {"latency", 0, 0, G_OPTION_ARG_STRING, &latency,
       "Observer path: link latency constant:ms=X (default 0), uniform:min=A,max=B, "
       "lognormal:mu=M,sigma=S",
       "SPEC"},
      {"loss", 0, 0, G_OPTION_ARG_STRING, &loss,
       "Observer path: message loss probability (needs an asynchronous --mode)", "P"},
      {"link", 0, 0, G_OPTION_ARG_STRING_ARRAY, &links,
       "Observer path: override the directed link FROM -> TO: FROM:TO=down or "
       "FROM:TO=LATENCY (repeatable)",
       "FROM:TO=SPEC"},
      {"lr", 0, 0, G_OPTION_ARG_DOUBLE, &lr,
       "Observer path: learning rate eta (default 0.1; matters only for noise added to the "
       "model, as zipdl's default units)",
       "ETA"},
      {"storage", 0, 0, G_OPTION_ARG_STRING, &storage,
       "Observer path: provenance storage sparse (default) or dense", "KIND"},
      {"accountant", 0, 0, G_OPTION_ARG_STRING, &accountant,
       "Observer path: streaming (default: per round, flat memory; needs sparse storage) or "
       "dense (every row, factorized at the end: the reference)",
       "KIND"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Output: table (default), json or csv",
       "FORMAT"},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx =
      g_option_context_new("- per-victim privacy of a decentralized protocol (accounting only)");
  cli_graph_options_add(ctx, &gopt);
  g_option_context_add_main_entries(ctx, entries, NULL);
  cli_plugin_options_add(ctx, &popt);
  g_option_context_set_description(
      ctx, "Every node outside an attacker set is a victim; for each: its distance to the\n"
           "attackers, the sensitivity of what they learn of its gradients, mu (mu-GDP),\n"
           "the Renyi DP at alpha and epsilon at delta. Victims the attackers see without\n"
           "noise are 'unprotected' (null in JSON, inf in CSV and tables). Victims double\n"
           "precision cannot account (mu > 1e8, or a range decision too close to call) are\n"
           "'unresolved': no protection, no number (null/inf, a warning on stderr, status\n"
           "and note fields in JSON, the status column in CSV).\n"
           "\n"
           "Several --attackers sets and --trust models give one accounting per pair (JSON:\n"
           "an 'accountings' array; CSV: one row per accounting and victim, the columns of\n"
           "`dpgossip run`'s privacy.csv), all from one run.\n"
           "\n"
           "Examples:\n"
           "  dpgossip account --generate florentine --rounds 10 --trust pndp --attackers 0 "
           "--compare muffliato\n"
           "  dpgossip account --graph fb.edges --lcc -T 320 --trust pndp -a 0+5 --sensitivity "
           "exact --format json\n"
           "  dpgossip account --generate florentine -T 8 --trust ldp,secldp -a 0 -a 3 "
           "--protocol decor\n"
           "  dpgossip account --generate florentine -T 8 --trust pndp -a 0 --mode deadline:ms=5 "
           "--latency constant:ms=1 --link 8:1=constant:ms=1000\n");

  int status = CLI_EXIT_USAGE;
  CliAccountSetup s = {0};
  CliAccountProtocol proto = {0};
  TopoGraph *g = NULL;
  TopoSchedule *sched = NULL;
  GError *error = NULL;
  CliFormat fmt = CLI_FORMAT_TABLE;
  Path path_kind = PATH_AUTO;
  CliAttackerSets sets;
  cli_attacker_sets_init(&sets);
  GArray *trusts = g_array_new(FALSE, FALSE, sizeof(PrivTrust));
  GArray *link_arr = g_array_new(FALSE, FALSE, sizeof(CliAccountLink));
  Accounting *acs = NULL;
  guint n_acs = 0;
  guint64 seed_value = 0;
  ProtoRunStats stats = {0};
  ProtoMode pmode = {.kind = PROTO_MODE_SYNC};
  double loss_p = 0.0;
  SimLinStorage storage_kind = SIM_LIN_SPARSE;
  const char *path_reason = NULL;

  if (!cli_parse(ctx, &argc, &argv)) goto out;
  if (!cli_plugin_options_load(&popt, &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
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
  if (!parse_trusts(trust, trusts, &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  if (!attackers || !attackers[0]) {
    status = usage_error("--attackers: give at least one node id, e.g. --attackers 0, 0,5 "
                         "(each alone) or 0+5 (a collusion set)");
    goto out;
  }
  for (guint i = 0; attackers[i]; i++)
    if (!cli_attacker_sets_parse(&sets, attackers[i], &error)) {
      status = cli_fail(CMD, error, CLI_EXIT_USAGE);
      goto out;
    }
  if (!cli_account_resolve_protocol(protocol ? protocol : popt.single ? popt.single : "dsgd", &s,
                                    &proto, &error)) {
    status = cli_fail(CMD, error, spec_status(error));
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
  if (path) {
    gboolean found = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS(path_names); i++)
      if (g_str_equal(path, path_names[i])) {
        path_kind = (Path)i;
        found = TRUE;
      }
    if (!found) {
      status = usage_error("--path: unknown path '%s' (valid: auto, structured, observer)", path);
      goto out;
    }
  }
  /* The options that only a simulated run has. */
  if (!cli_account_parse_run_options(mode, latency, loss, &pmode, &loss_p, &error)) {
    /* The parsers' errors as they are; the loss rule with the --help hint. */
    status = error->domain == G_OPTION_ERROR ? usage_error("%s", error->message)
                                             : cli_fail(CMD, error, CLI_EXIT_USAGE);
    g_clear_error(&error);
    goto out;
  }
  for (guint i = 0; links && links[i]; i++) {
    CliAccountLink l;
    if (!cli_account_parse_link(links[i], &l, &error)) {
      status = cli_fail(CMD, error, CLI_EXIT_USAGE);
      goto out;
    }
    g_array_append_val(link_arr, l);
  }
  if (!isnan(lr) && !(lr > 0 && isfinite(lr))) {
    status = usage_error("--lr must be a finite number > 0 (got %g)", lr);
    goto out;
  }
  if (storage) {
    if (g_str_equal(storage, "dense"))
      storage_kind = SIM_LIN_DENSE;
    else if (!g_str_equal(storage, "sparse")) {
      status = usage_error("--storage: unknown provenance storage '%s' (valid: sparse, dense)",
                           storage);
      goto out;
    }
  }
  /* Streaming is the default; sparse storage is what it rebases, so an
   * explicit --storage dense keeps the dense accountant. */
  gboolean streaming = storage_kind != SIM_LIN_DENSE;
  if (accountant) {
    if (g_str_equal(accountant, "streaming") || g_str_equal(accountant, "dense"))
      streaming = g_str_equal(accountant, "streaming");
    else {
      status = usage_error("--accountant: unknown accountant '%s' (valid: dense, streaming)",
                           accountant);
      goto out;
    }
  }
  if (streaming && storage_kind == SIM_LIN_DENSE) {
    status = usage_error("--accountant streaming rebases sparse provenance: drop --storage "
                         "dense");
    goto out;
  }
  if (seed && !g_ascii_string_to_unsigned(seed, 10, 0, G_MAXUINT64, &seed_value, &error)) {
    g_prefix_error(&error, "--seed: ");
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  if (path_kind == PATH_STRUCTURED) {
    if (!proto.structured) {
      status = usage_error("--path structured: the structured path knows dsgd, muffliato, "
                           "antipgd and mfdsgd/mafalda with a given C, not '%s' (use --path "
                           "observer or auto)",
                           proto.run_spec);
      goto out;
    }
    GString *bad = g_string_new(NULL);
    if (mode && pmode.kind != PROTO_MODE_SYNC) g_string_append(bad, ", --mode");
    if (latency) g_string_append(bad, ", --latency");
    if (loss) g_string_append(bad, ", --loss");
    if (links) g_string_append(bad, ", --link");
    if (!isnan(lr)) g_string_append(bad, ", --lr");
    if (storage) g_string_append(bad, ", --storage");
    if (accountant) g_string_append(bad, ", --accountant");
    if (bad->len) {
      status = usage_error("--path structured accounts a synchronous run without simulating "
                           "it: %s only exist%s in a simulated run (use --path observer or "
                           "auto)",
                           bad->str + 2, strchr(bad->str + 2, ',') ? "" : "s");
      g_string_free(bad, TRUE);
      goto out;
    }
    g_string_free(bad, TRUE);
  }
  if (compare) {
    if (!g_str_equal(compare, "muffliato")) {
      status = usage_error("--compare: unknown accounting '%s' (valid: muffliato)", compare);
      goto out;
    }
    gboolean pndp = FALSE;
    for (guint i = 0; i < trusts->len; i++)
      pndp |= g_array_index(trusts, PrivTrust, i) == PRIV_TRUST_PNDP;
    if (!g_str_equal(proto.name, "dsgd") || !pndp) {
      status = usage_error("--compare muffliato: Muffliato's bound is for D-SGD under PNDP "
                           "(use --protocol dsgd --trust pndp)");
      goto out;
    }
    if (schedule && !g_str_equal(schedule, "static")) {
      status = usage_error("--compare muffliato: Muffliato's bound is for a static gossip "
                           "matrix, not --schedule %s",
                           schedule);
      goto out;
    }
    s.compare_muffliato = TRUE;
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
  if (!cli_attacker_sets_check(&sets, n, "the graph", &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  for (guint i = 0; i < link_arr->len; i++) {
    const CliAccountLink *l = &g_array_index(link_arr, CliAccountLink, i);
    if (l->from >= n || l->to >= n || l->from == l->to) {
      status = usage_error("--link %u:%u: nodes must be distinct and below %u", l->from, l->to, n);
      goto out;
    }
  }
  if (schedule && !g_str_equal(schedule, "static")) {
    sched = topo_schedule_new(schedule, g, s.gossip, seed_value, &error);
    if (!sched) {
      g_prefix_error(&error, "--schedule: ");
      status = cli_fail(CMD, error,
                        error->domain == TOPO_ERROR && error->code == TOPO_ERROR_IO
                            ? CLI_EXIT_FAILURE
                            : CLI_EXIT_USAGE);
      goto out;
    }
  }

  /* The path. */
  if (path_kind == PATH_AUTO) {
    ProtoAccountCase pc = {.known = proto.structured,
                           .mode = pmode.kind,
                           .loss = loss_p,
                           .n_links = link_arr->len,
                           .run_options = latency || !isnan(lr) || storage};
    path_kind = proto_account_plan(&pc, &path_reason) == PROTO_ACCOUNT_STRUCTURED
                    ? PATH_STRUCTURED
                    : PATH_OBSERVER;
  } else {
    path_reason = path_kind == PATH_STRUCTURED ? "asked: --path structured"
                                               : "asked: --path observer";
  }

  n_acs = cli_attacker_sets_n(&sets) * trusts->len;
  acs = g_new0(Accounting, n_acs);
  for (guint i = 0; i < cli_attacker_sets_n(&sets); i++)
    for (guint j = 0; j < trusts->len; j++) {
      acs[i * trusts->len + j].set = i;
      acs[i * trusts->len + j].trust = g_array_index(trusts, PrivTrust, j);
    }
  CliObserverRun run = {.protocol = proto.run_spec,
                        .graph = g,
                        .schedule = sched,
                        .mode = mode,
                        .latency = latency,
                        .loss = loss,
                        .lr = isnan(lr) ? 0.1 : lr,
                        .seed = seed_value,
                        .storage = storage_kind,
                        .streaming = streaming,
                        .links = (const CliAccountLink *)link_arr->data,
                        .n_links = link_arr->len};
  if (path_kind == PATH_STRUCTURED) {
    if (!cli_account_build_c(&s, &proto, &error)) {
      status = cli_fail(CMD, error, CLI_EXIT_FAILURE);
      goto out;
    }
    AccountJob job = {&s, &sets, acs, sched, NULL, NULL, g, n,
                      {.b = s.b, .sensitivity = s.sensitivity, .alpha = s.alpha,
                       .delta = s.delta}};
    job.w = sched ? NULL : topo_gossip_new(g, s.gossip, &error);
    gboolean ok = sched || job.w;
    if (ok && s.compare_muffliato)
      ok = (job.wm = topo_gossip_new(g, s.gossip, &error)) != NULL;
    GBytes **res = NULL;
    ok = ok && scen_mpi_map(n_acs, account_one, &job, &res, &error);
    for (guint a = 0; res != NULL && a < n_acs; a++) {
      account_unpack(res[a], n, &acs[a]);
      g_bytes_unref(res[a]);
    }
    g_free(res);
    topo_gossip_free(job.w);
    topo_gossip_free(job.wm);
    if (!ok) {
      status = cli_fail(CMD, error, CLI_EXIT_FAILURE);
      goto out;
    }
  } else {
    /* One simulated run records every view: rank 0 does it all. */
    if (rank != 0) {
      status = CLI_EXIT_OK;
      goto out;
    }
    ProtoObservedView *views = g_new(ProtoObservedView, n_acs);
    for (guint a = 0; a < n_acs; a++)
      views[a] = (ProtoObservedView){acs[a].trust, cli_attacker_sets_members(&sets, acs[a].set),
                                  cli_attacker_sets_size(&sets, acs[a].set)};
    PrivBlocks **bl = cli_account_blocks_observer(&s, &run, views, n_acs, &stats, &error);
    g_free(views);
    if (!bl) {
      status = cli_fail(CMD, error, spec_status(error));
      goto out;
    }
    for (guint a = 0; a < n_acs; a++) acs[a].blocks = bl[a];
    g_free(bl);
    PrivAccountOptions opt = {
        .b = s.b, .sensitivity = s.sensitivity, .alpha = s.alpha, .delta = s.delta};
    TopoGossip *wm = s.compare_muffliato ? topo_gossip_new(g, s.gossip, &error) : NULL;
    gboolean ok = !s.compare_muffliato || wm;
    for (guint a = 0; a < n_acs && ok; a++) {
      ok = (acs[a].report = priv_account_report(acs[a].blocks, g, &opt, &error)) != NULL;
      if (ok && s.compare_muffliato && acs[a].trust == PRIV_TRUST_PNDP)
        ok = (acs[a].muff = priv_muffliato_rdp(
                  wm, s.T, cli_attacker_sets_members(&sets, acs[a].set),
                  cli_attacker_sets_size(&sets, acs[a].set), s.alpha, s.sigma, &error)) != NULL;
    }
    topo_gossip_free(wm);
    if (!ok) {
      status = cli_fail(CMD, error, CLI_EXIT_FAILURE);
      goto out;
    }
  }
  if (rank != 0) { /* rank 0 prints everyone's accountings */
    status = CLI_EXIT_OK;
    goto out;
  }
  Context c = {.s = &s,
               .n = n,
               .path = path_kind,
               .path_reason = path_reason,
               .schedule = sched ? schedule : NULL,
               .seed = seed_value,
               .run = path_kind == PATH_OBSERVER ? &run : NULL,
               .storage = storage_kind == SIM_LIN_DENSE ? "dense" : "sparse",
               .accountant = streaming ? "streaming" : "dense",
               .link_specs = (const char *const *)links,
               .stats = &stats,
               .trusts = (const PrivTrust *)trusts->data,
               .n_trusts = trusts->len};
  warn_unresolved(&sets, acs, n_acs);
  if (fmt == CLI_FORMAT_JSON)
    print_json(&c, &sets, acs, n_acs);
  else if (fmt == CLI_FORMAT_CSV)
    print_csv(&c, &sets, acs, n_acs);
  else
    print_table(&c, &sets, acs, n_acs);
  status = CLI_EXIT_OK;
out:
  for (guint a = 0; a < n_acs; a++) {
    g_free(acs[a].muff);
    priv_report_free(acs[a].report);
    priv_blocks_free(acs[a].blocks);
  }
  g_free(acs);
  cli_attacker_sets_clear(&sets);
  g_array_unref(trusts);
  g_array_unref(link_arr);
  topo_schedule_free(sched);
  topo_graph_free(g);
  cli_account_setup_clear(&s);
  cli_account_protocol_clear(&proto);
  g_free(protocol);
  g_free(trust);
  g_strfreev(attackers);
  g_strfreev(links);
  g_free(sensitivity);
  g_free(compare);
  g_free(format);
  g_free(path);
  g_free(mode);
  g_free(latency);
  g_free(loss);
  g_free(schedule);
  g_free(seed);
  g_free(storage);
  g_free(accountant);
  cli_graph_options_clear(&gopt);
  cli_plugin_options_clear(&popt);
  g_option_context_free(ctx);
  return mpi ? scen_mpi_finalize(status) : status;
}
