/*
 * cli/cmd_account.c: `dpgossip account`: per-victim privacy guarantees of a
 * decentralized protocol against attacker sets under trust models
 * (docs/design.md, "Privacy accounting"), accounting only (no dataset):
 * sensitivity, mu-GDP, RDP and (eps, delta) for every node outside each set,
 * optionally next to Muffliato's original bound.
 *
 * The command is a pipeline over the one accounting request of the
 * protocols module (ProtoAccountRequest): options (as typed) -> request
 * (validated there, every value checked before any graph) -> plan (the
 * graph built here, the request's graph checks, schedule, path and
 * accountings) -> execute (the structured accountings shared out under
 * mpirun, or the observer path's one simulation) -> print (table, JSON or
 * CSV: account_table.c, account_json.c, account_csv.c). Each step returns
 * an exit status and has printed why when it is not CLI_EXIT_OK.
 */
#include <math.h>
#include <stdio.h>

#include "cli/account_common.h"
#include "cli/account_output.h"
#include "cli/cli.h"
#include "protocols/protocols.h"
#include "ranks/ranks.h"

#define CMD "account"

#define usage_error(...) cli_usage_error(CMD, __VA_ARGS__)

/* The command line as typed (owned strings, freed by options_clear). */
typedef struct {
  CliGraphOptions graph;
  CliPluginOptions plugins;
  gint rounds, interval, epochs; /* epochs: CLI_UNSET when not given */
  char *sigma_text;              /* NULL: not given (sigma 1) */
  char *protocol, *format;
  /* The options the request takes as typed, parsed into it (its defaults
   * are the command's; the strings are owned here). */
  ProtoAccountRequest r;
  gboolean quiet;
} Options;

/* The progress line the request reports to (from the graph's building to
 * the end of the accountings; NULL: -q, or not rank 0). */
typedef struct {
  CliProgress *printer;
} Progress;

static void on_progress(const ProtoAccountProgress *p, gpointer data) {
  const Progress *pr = data;
  cli_progress_account(p, pr->printer);
}

/* Parses the command line into @o (cli_options_parse). */
static gboolean options_parse(Options *o, int *argc, char ***argv) {
  GOptionEntry entries[] = {
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &o->protocol,
       cli_protocols_help("Any registered protocol spec NAME[:key=value,...] (default dsgd; "
                          "nonprivate: dsgd without noise): ",
                          ", or a plugin's (dpgossip protocols lists them and their parameters)"),
       "SPEC"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &o->rounds,
       "Gradient steps T (required; Muffliato gossips K rounds per step)", "T"},
      {"participation-interval", 'b', 0, G_OPTION_ARG_INT, &o->interval,
       "Steps between two uses of a record, b (divides T; default 1: user level)", "B"},
      {"epochs", 'k', 0, G_OPTION_ARG_INT, &o->epochs,
       "Uses of each record, k: T = k b (instead of -T, or checked against it)", "K"},
      {"trust", 0, 0, G_OPTION_ARG_STRING, &o->r.trust,
       cli_trust_help("Trust model: ", ", ", " or ", ", or a comma-separated list (required)"),
       "MODEL"},
      {"attackers", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &o->r.attackers,
       "Attacker sets: all (every node in turn, alone), ids separated by ',' are accounted "
       "each alone, ids joined by '+' form one collusion set: 0,5 or 0+5 (required; "
       "repeatable: every set is accounted, under every trust model, from one run)",
       "IDS"},
      {"sensitivity", 0, 0, G_OPTION_ARG_STRING, &o->r.sensitivity,
       "auto (default): exact when its estimated extra cost, victims x b x (T/b)^3 x 1.2e-7 "
       "s, is under 1 CPU s (Florentine or 1000 nodes at T = 20), bound otherwise (10^4 nodes "
       "at T = 20: 9.6 s estimated, +70% measured; T = 100 on 100 nodes: +6 s); bound (paper "
       "Thm 5.2); exact (SDP, never above the bound). PNDP and SecLDP are never above the LDP "
       "value; docs/design.md \"Which sensitivity\"",
       "KIND"},
      {"sigma", 0, 0, G_OPTION_ARG_STRING, &o->sigma_text,
       "Noise multiplier: noise std sigma * clip (default 1)", "SIGMA"},
      CLI_OPTION_CLIP(&o->r.clip),
      CLI_OPTION_ALPHA(&o->r.alpha),
      CLI_OPTION_DELTA(&o->r.delta),
      {"compare", 0, 0, G_OPTION_ARG_STRING, &o->r.compare,
       "Add another accounting: muffliato (Cyffers et al. 2022, D-SGD under PNDP)", "NAME"},
      {"path", 0, 0, G_OPTION_ARG_STRING, &o->r.path,
       "How to account: auto (default: structured when it describes the run exactly), "
       "structured (W-product structure, no simulation), observer (simulate the protocol, "
       "account from what the attackers saw) or local (certified upper bounds for the "
       "victims within --radius hops, from that ball alone)",
       "PATH"},
      CLI_OPTION_RADIUS(&o->r.radius),
      {"tightness", 0, 0, G_OPTION_ARG_DOUBLE, &o->r.tightness,
       "--path local without --radius: grow the radius from 1 until every victim's certified "
       "interval is that narrow, mu / mu_lower <= X (>= 1), or say where and why it stopped",
       "X"},
      CLI_OPTION_SCHEDULE(&o->r.schedule),
      {"seed", 's', 0, G_OPTION_ARG_STRING, &o->r.seed,
       "Seed of the schedule and of the simulated run (default 0)", "N"},
      CLI_OPTIONS_NETWORK("Observer path: ", &o->r.mode, &o->r.latency, &o->r.loss),
      {"link", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->r.links,
       "Observer path: override the directed link FROM -> TO: FROM:TO=down or "
       "FROM:TO=LATENCY (repeatable)",
       "FROM:TO=SPEC"},
      {"lr", 0, 0, G_OPTION_ARG_DOUBLE, &o->r.lr,
       "Observer path: learning rate eta (default 0.1; matters only for noise added to the "
       "model, as zipdl's default units)",
       "ETA"},
      {"storage", 0, 0, G_OPTION_ARG_STRING, &o->r.storage,
       "Observer path: provenance storage sparse (default) or dense", "KIND"},
      {"accountant", 0, 0, G_OPTION_ARG_STRING, &o->r.accountant,
       "Observer path: streaming (default: per round, flat memory; needs sparse storage) or "
       "dense (every row, factorized at the end: the reference)",
       "KIND"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &o->format, "Output: table (default), json or csv",
       "FORMAT"},
      CLI_OPTION_QUIET(&o->quiet),
      G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "- per-victim privacy of a decentralized protocol (accounting only)",
      .graph = &o->graph,
      .entries = entries,
      .plugins = &o->plugins,
      .description =
          "Every node outside an attacker set is a victim; for each: its distance to the\n"
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
          "--latency constant:ms=1 --link 8:1=constant:ms=1000\n"
          "  dpgossip account --generate regular:n=1000000,d=8,seed=1 -T 100 --trust pndp -a 0 "
          "--path local --radius 3\n"};
  return cli_options_parse(&spec, argc, argv);
}

static void options_clear(Options *o) {
  cli_graph_options_clear(&o->graph);
  cli_plugin_options_clear(&o->plugins);
  g_clear_pointer(&o->sigma_text, g_free);
  g_clear_pointer(&o->protocol, g_free);
  g_clear_pointer(&o->format, g_free);
  const char **strings[] = {&o->r.trust, &o->r.sensitivity, &o->r.compare,   &o->r.path,
                            &o->r.mode,  &o->r.latency,     &o->r.loss,      &o->r.schedule,
                            &o->r.seed,  &o->r.storage,     &o->r.accountant};
  for (guint i = 0; i < G_N_ELEMENTS(strings); i++) {
    g_free((char *)*strings[i]); /* GOption's copies */
    *strings[i] = NULL;
  }
  g_strfreev((char **)o->r.attackers);
  g_strfreev((char **)o->r.links);
  o->r.attackers = o->r.links = NULL;
}

/* An error of the request's: a rule with the --help hint, else the
 * error's own status (a protocol or schedule file that failed: 1). */
static int refused(GError *error, ProtoAccountRefusal refusal) {
  if (refusal == PROTO_REFUSED_RULE) {
    int status = usage_error("%s", error->message);
    g_error_free(error);
    return status;
  }
  return cli_fail(CMD, error, proto_refusal_status(error, refusal));
}

/* -T, -b and -k into the request's T and b (-k: T = k b, or checked). */
static int horizon(const Options *o, ProtoAccountRequest *r) {
  GError *error = NULL;
  gint T = o->rounds, b = o->interval, k = o->epochs;
  if (k != CLI_UNSET) {
    if (k <= 0)
      return usage_error("--epochs k must be positive (got %d)", k);
    gint t = T == 0 ? CLI_UNSET : T;
    /* -b keeps its default 1 (user level) unless -T and -k fix it. */
    if (t == CLI_UNSET && b == CLI_UNSET)
      b = 1;
    if (!cli_horizon_resolve(&t, &k, &b, &error))
      return refused(error, PROTO_REFUSED_RULE);
    T = t == CLI_UNSET ? 0 : t;
  }
  r->rounds = T;
  r->interval = b == CLI_UNSET ? 1 : b;
  return CLI_EXIT_OK;
}

/* --sigma and --protocol nonprivate (dsgd without noise). */
static int noise(const Options *o, ProtoAccountRequest *r, gboolean *nonprivate) {
  GError *error = NULL;
  double given;
  if (!cli_number_option("--sigma", o->sigma_text, &given, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  *nonprivate = cli_is_nonprivate(o->protocol);
  if (*nonprivate && !isnan(given) && given != 0)
    return usage_error("--protocol nonprivate adds no noise: drop --sigma %g", given);
  r->sigma = *nonprivate ? 0.0 : isnan(given) ? 1.0 : given;
  r->protocol = *nonprivate         ? "dsgd"
                : o->protocol       ? o->protocol
                : o->plugins.single ? o->plugins.single
                                    : "dsgd";
  r->label = *nonprivate ? CLI_NONPRIVATE : NULL;
  return CLI_EXIT_OK;
}

/* The options into the request, validated there; then --format and
 * --gossip, the command's own. */
static int validate(Options *o, guint threads, Progress *progress, ProtoAccountJob **job,
                    gboolean *nonprivate, CliFormat *format) {
  GError *error = NULL;
  if (!cli_plugin_options_load(&o->plugins, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  ProtoAccountRequest r = o->r;
  if (r.radius != CLI_UNSET && r.radius < 0)
    return usage_error("--radius %d is out of range: give R >= 1 hops around the attackers",
                       r.radius);
  if (r.radius == CLI_UNSET)
    r.radius = -1;
  int status = horizon(o, &r);
  if (status == CLI_EXIT_OK)
    status = noise(o, &r, nonprivate);
  if (status != CLI_EXIT_OK)
    return status;
  GError *gossip_error = NULL;
  gboolean gossip_ok = cli_graph_options_gossip(&o->graph, &r.gossip, &gossip_error);
  r.threads = threads;
  r.progress = on_progress;
  r.progress_data = progress;
  ProtoAccountRefusal refusal;
  if ((*job = proto_account_validate(&r, &refusal, &error)) == NULL)
    status = refused(error, refusal);
  else if (o->format && !cli_format_parse(o->format,
                                          (1u << CLI_FORMAT_TABLE) | (1u << CLI_FORMAT_JSON) |
                                              (1u << CLI_FORMAT_CSV),
                                          format, &error))
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
  else if (!gossip_ok)
    status = cli_fail(CMD, g_steal_pointer(&gossip_error), CLI_EXIT_USAGE);
  g_clear_error(&gossip_error);
  return status;
}

/* The graph, then the request's plan on it. Loading or generating a large
 * graph takes seconds (the 10,000-node overlay, a million-node generator):
 * the progress line names the phase meanwhile. */
static int plan(const Options *o, ProtoAccountJob *j, CliProgress *printer, TopoGraph **g) {
  GError *error = NULL;
  cli_progress_phase(printer, "building the graph");
  *g = cli_graph_options_build(&o->graph, &error);
  cli_progress_phase(printer, NULL);
  if (*g == NULL)
    return cli_fail(CMD, error, cli_graph_options_status(&o->graph, error));
  ProtoAccountRefusal refusal;
  if (!proto_account_job_plan(j, *g, cli_graph_options_label(&o->graph), &refusal, &error))
    return refused(error, refusal);
  return CLI_EXIT_OK;
}

/* The sets' members, for the warning about isolated nodes. */
static void warn_isolated(const ProtoAccountJob *j) {
  cli_attacker_sets_warn_isolated(&j->sets, j->graph, CMD);
}

/* The accountings: shared out under mpirun (structured path), or the
 * observer path's one simulation, rank 0's alone. */
static gboolean execute_tightness(ProtoAccountJob *j, const Progress *progress, GError **error);

static int execute(ProtoAccountJob *j, const Progress *progress) {
  GError *error = NULL;
  gboolean structured = j->path == PROTO_ACCOUNT_STRUCTURED;
  if (structured && j->proto.probes > 0) /* the sketch's fit says nothing for a minute */
    cli_progress_keepalive(progress->printer);
  gboolean ok = j->tightness > 0 ? execute_tightness(j, progress, &error)
                : structured     ? cli_account_execute_shared(j, progress->printer != NULL, &error)
                                 : proto_account_job_execute(j, &error);
  if (ok)
    return CLI_EXIT_OK;
  return cli_fail(CMD, error,
                  proto_error_status(error, structured ? PROTO_FAILED_RUN : PROTO_FAILED_PROTOCOL));
}

/* One radius of --tightness: the accountings shared out under mpirun (the
 * observer path's ball, a whole-graph simulation per accounting: rank 0's). */
static gboolean execute_once(ProtoAccountJob *j, gpointer data, GError **error) {
  const Progress *progress = data;
  if (j->path == PROTO_ACCOUNT_OBSERVER)
    return proto_account_job_execute(j, error);
  return cli_account_execute_shared(j, progress->printer != NULL, error);
}

/* --tightness's line per radius on stderr (not under -q). */
static void say_radius(const char *line, gpointer data) {
  const Progress *progress = data;
  if (progress->printer != NULL)
    fprintf(stderr, "dpgossip account: %s\n", line);
}

static gboolean execute_tightness(ProtoAccountJob *j, const Progress *progress, GError **error) {
  return proto_account_job_execute_tightness(j, execute_once, say_radius, (gpointer)progress,
                                             error);
}

int cli_cmd_account(int argc, char **argv) {
  /* Under mpirun or srun the accountings (structured path) are shared out;
   * the observer path's one simulation is rank 0's alone. */
  gboolean mpi = FALSE;
  guint rank = 0, mpi_size = 1, mpi_local = 1;
  if (!cli_mpi_join(CMD, &mpi, &rank, &mpi_size, &mpi_local))
    return CLI_EXIT_FAILURE;
  Options o = {.interval = CLI_UNSET, .epochs = CLI_UNSET};
  proto_account_request_init(&o.r);
  o.r.radius = CLI_UNSET; /* -1 is the request's "not given": a typed -1 must be refused */
  Progress progress = {NULL};
  ProtoAccountJob *j = NULL;
  TopoGraph *g = NULL;
  CliAccountOutput out = {NULL, FALSE};
  CliFormat format = CLI_FORMAT_TABLE;
  /* The processors of this machine, shared by its ranks (the blocks do not
   * depend on the thread count). */
  guint threads = MAX(1u, g_get_num_processors() / mpi_local);
  int status = options_parse(&o, &argc, &argv)
                   ? validate(&o, threads, &progress, &j, &out.nonprivate, &format)
                   : CLI_EXIT_USAGE;
  /* Rank 0's line stands for the job (items are dealt round-robin). */
  if (status == CLI_EXIT_OK && rank == 0)
    progress.printer = cli_progress_new(CMD, o.quiet);
  if (status == CLI_EXIT_OK)
    status = plan(&o, j, progress.printer, &g);
  if (status == CLI_EXIT_OK) {
    warn_isolated(j);
    if (j->path == PROTO_ACCOUNT_STRUCTURED || rank == 0)
      status = execute(j, &progress);
  }
  g_clear_pointer(&progress.printer, cli_progress_free); /* its line ends before the output */
  if (status == CLI_EXIT_OK && rank == 0) {
    out.job = j;
    cli_account_warn_unresolved(j);
    cli_account_warn_job(j, CMD);
    if (j->tightness > 0 && !j->tightness_met)
      fprintf(stderr, "dpgossip account: warning: --tightness %g not met: %s\n", j->tightness,
              j->tightness_stop);
    if (format == CLI_FORMAT_JSON)
      cli_account_print_json(&out);
    else if (format == CLI_FORMAT_CSV)
      cli_account_print_csv(&out);
    else
      cli_account_print_table(&out);
  }
  proto_account_job_free(j);
  topo_graph_free(g);
  options_clear(&o);
  return mpi ? ranks_finalize(status) : status;
}
