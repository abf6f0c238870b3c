/*
 * cli/cmd_figure.c: `dpgossip figure NAME`: the paper's figures, drawn from
 * this project's own accounting.
 *
 * privacy-vs-distance (the paper's Figure 2, section 7.1 "Tighter accounting
 * for PNDP"): DP-D-SGD under PNDP at user level, the Renyi divergence at
 * alpha (log scale) against the hop distance between victim and attacker,
 * mean with min/max bars over every (attacker, victim) pair at that distance,
 * our accounting (paper Thm 5.2 bound on the structured blocks, as
 * `dpgossip account`) solid, Muffliato's original bound (Cyffers et al.
 * 2022, corrected Thm 11) dashed. One panel per graph. The plotted numbers
 * can be written as CSV, and a per-distance summary of the gap between the
 * two accountings is printed on stdout. The statistic (victim rows, pooled
 * by distance) is the scenarios' (scen_dist_rows, ScenDistPool), and so are
 * its table (scen_dist_pool_csv) and its drawing (scen_dist_figure_save,
 * scenarios/distance_figure.c); this file holds the options, one accounting
 * request per panel, and the summary it prints.
 *
 * Each listed attacker is accounted on its own (one structured accounting
 * per attacker); a collusion set is written with '+' (0+5) and its distance
 * is to the nearest member, as in `dpgossip account`.
 *
 * Under an asynchronous --mode (deadline, stale; with --latency and --loss,
 * as `dpgossip account` reads them) the structured path no longer describes
 * the run: each panel simulates ONE run with an observer holding one view
 * per attacker set, and accounts every set from what it saw (the streaming
 * accountant of the observer path). Muffliato's bound is for synchronous
 * gossip on a static W, so it is not drawn then: the second series is the
 * synchronous accounting of the same graph (the structured path), which
 * shows what the asynchrony changes. --path observer takes the observer
 * path for the synchronous run too (then Muffliato's bound is drawn).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/account_common.h"
#include "cli/cli.h"
#include "plot/plot.h"
#include "mf/mf.h"
#include "privacy/privacy.h"
#include "ranks/ranks.h"
#include "scenarios/scenarios.h"
#include "spec/spec.h"

#define CMD "figure"
#define FIGURE_PVD "privacy-vs-distance"

/* Two series per panel (ScenDistPool's): this accounting, and a second one
 * to compare with: Muffliato's bound for a synchronous run, the synchronous
 * accounting for an asynchronous one (see the comment at the top). */
#define METHOD_OURS SCEN_DIST_OURS
#define METHOD_OTHER SCEN_DIST_OTHER
#define N_METHODS SCEN_DIST_N_SERIES

/* How the numbers are computed: the structured path, or one simulated run
 * per panel (the observer path). Strings borrowed from the options. */
typedef struct {
  gboolean observer; /* the observer path */
  gboolean async;    /* an asynchronous --mode: METHOD_OTHER is "sync" */
  const char *mode, *latency, *loss;
  guint64 seed;
  gboolean quiet;        /* -q: no progress line */
  const char *attackers; /* --attackers as given */
  guint radius;          /* --path local: certified bounds within this many hops (0: exact) */
  guint threads;         /* the structured engines' threads (results do not depend on it) */
} FigureRun;

static const char *method_name(const FigureRun *fr, guint m) {
  return m == METHOD_OURS ? "ours" : fr->async ? "sync" : "muffliato";
}

typedef struct {
  gboolean generated; /* --generate SPEC rather than --graph FILE */
  char *source;       /* the SPEC or FILE */
  char *label;        /* panel title and CSV "graph" column */
  TopoGraph *g;
  ScenDistPool *pool; /* the (set, victim) pairs by distance, once accounted */
} Panel;

/* Attacker sets: cli_attacker_sets_parse's ("all" stays unexpanded: the
 * panels' graphs differ). */
typedef struct {
  CliAttackerSets sets;
} AttackerSpec;

typedef struct {
  GPtrArray *panels; /* Panel* */
} State;

/* ---- Parsing ---- */

#define usage_error(...) cli_usage_error(CMD, __VA_ARGS__)

static void panel_free(gpointer p) {
  Panel *pa = p;
  g_free(pa->source);
  g_free(pa->label);
  topo_graph_free(pa->g);
  scen_dist_pool_free(pa->pool);
  g_free(pa);
}

static gboolean add_panel(State *st, gboolean generated, const char *value, GError **error) {
  if (!value || !*value) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s needs a value",
                generated ? "generate" : "graph");
    return FALSE;
  }
  Panel *p = g_new0(Panel, 1);
  p->generated = generated;
  p->source = g_strdup(value);
  g_ptr_array_add(st->panels, p);
  return TRUE;
}

/* GOption callbacks keep --graph and --generate in command-line order: the
 * panels appear in that order. */
static gboolean on_graph(const char *name, const char *value, gpointer data, GError **error) {
  (void)name;
  return add_panel(data, FALSE, value, error);
}
static gboolean on_generate(const char *name, const char *value, gpointer data, GError **error) {
  (void)name;
  return add_panel(data, TRUE, value, error);
}

static void attacker_spec_clear(AttackerSpec *a) {
  cli_attacker_sets_clear(&a->sets);
}

static gboolean parse_attacker_spec(const char *spec, AttackerSpec *a, GError **error) {
  cli_attacker_sets_init(&a->sets);
  if (spec == NULL || *spec == '\0') {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--attackers is required: all, or node ids such as 0 or 0,5 (each accounted "
                "alone; 0+5 is one collusion set)");
    return FALSE;
  }
  return cli_attacker_sets_parse(&a->sets, spec, error);
}

/* ".svg" or ".png", any case. */
static gboolean has_figure_extension(const char *path) {
  return plot_format_from_path(path, NULL);
}

/* The default panel label: the generator spec, or the file name without
 * its extension. */
static char *default_label(const Panel *p) {
  if (p->generated)
    return g_strdup(p->source);
  char *base = g_path_get_basename(p->source);
  char *dot = strrchr(base, '.');
  if (dot && dot != base)
    *dot = '\0';
  return base;
}

/* ---- Accounting ---- */

/* Attacker set @i accounted (accounting @i of the structured job @data):
 * its victim rows (scen_dist_rows), in the report's order. Independent of
 * the other sets (ranks_map shares them out); the job keeps nothing of it. */
static GBytes *account_set(guint i, gpointer data, GError **error) {
  ProtoAccountJob *j = data;
  ProtoAccounting *ac = &j->acs[i];
  GBytes *out = proto_account_job_execute_one(j, i, error)
                    ? scen_dist_rows(ac->report, ac->muff, NULL, error)
                    : NULL;
  g_clear_pointer(&ac->report, priv_report_free);
  g_clear_pointer(&ac->muff, g_free);
  return out;
}

/* Frees the @n_sets rows of the sets (NULL entries and array allowed). */
static void sets_free(GBytes **sets, guint n_sets) {
  for (guint i = 0; sets != NULL && i < n_sets; i++)
    if (sets[i])
      g_bytes_unref(sets[i]);
  g_free(sets);
}

/* Pools the rows of @p's @n_sets attacker sets by distance, in set order
 * (so the sums are the same whatever the ranks). */
static gboolean panel_pool(Panel *p, GBytes **sets, guint n_sets, GError **error) {
  p->pool = scen_dist_pool_new(topo_graph_n_nodes(p->g));
  return scen_dist_pool_add_sets(p->pool, sets, n_sets, error);
}

/* Panel @p's accounting request (the figure's settings and attacker sets,
 * PNDP on D-SGD) on @path, with Muffliato's bound when @compare; validated
 * and planned on the panel's graph, which must leave a victim.
 * Errors: the request's (G_OPTION_ERROR for the attackers on this graph). */
static ProtoAccountJob *panel_job(const Panel *p, const CliAccountSetup *s, const FigureRun *fr,
                                  const char *path, gboolean compare, CliProgress *progress,
                                  GError **error) {
  const char *const attackers[] = {fr->attackers, NULL};
  char *seed = g_strdup_printf("%" G_GUINT64_FORMAT, fr->seed);
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = "dsgd";
  r.rounds = (gint)s->T;
  r.interval = (gint)s->b;
  r.trust = "pndp";
  r.attackers = attackers;
  r.sensitivity = mf_sensitivity_name(s->sensitivity);
  r.sigma = s->sigma;
  r.clip = s->clip;
  r.alpha = s->alpha;
  r.delta = s->delta;
  r.compare = compare ? "muffliato" : NULL;
  r.gossip = s->gossip;
  r.path = path;
  gboolean observer = g_str_equal(path, "observer");
  r.seed = observer ? seed : NULL;
  r.mode = observer ? fr->mode : NULL;
  r.latency = observer ? fr->latency : NULL;
  r.loss = observer ? fr->loss : NULL;
  r.radius = fr->radius ? (gint)fr->radius : -1;
  r.threads = fr->threads;
  r.no_epsilon = TRUE; /* the figure draws RDP: no root solve per victim */
  r.progress = progress ? cli_progress_account : NULL;
  r.progress_data = progress;
  ProtoAccountJob *j = proto_account_validate(&r, NULL, error);
  g_free(seed);
  if (j == NULL || !proto_account_job_plan(j, p->g, p->label, NULL, error)) {
    proto_account_job_free(j);
    return NULL;
  }
  if (j->n < 2) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "graph '%s' has only %u node: no victim left", p->label, j->n);
    proto_account_job_free(j);
    return NULL;
  }
  return j;
}

/* Accounts every attacker set on panel @p's graph: one structured
 * accounting per set (shared out across the ranks under mpirun), then each
 * victim's loss added to the statistics of its distance. On ranks other
 * than 0, only the share of the sets. O(sets x (structured blocks + report
 * + Muffliato bound)). */
static gboolean account_panel(Panel *p, const CliAccountSetup *s, const FigureRun *fr,
                              GError **error) {
  CliProgress *progress = ranks_rank() == 0 ? cli_progress_new(CMD, fr->quiet) : NULL;
  ProtoAccountJob *j =
      panel_job(p, s, fr, fr->radius ? "local" : "structured", TRUE, progress, error);
  GBytes **sets = NULL;
  gboolean ok = j != NULL && proto_account_job_prepare(j, error) &&
                ranks_map(j->n_acs, account_set, j, &sets, error);
  /* ranks_map gives the sets to rank 0 only. */
  ok = ok && (sets == NULL || panel_pool(p, sets, j->n_acs, error));
  if (j != NULL)
    sets_free(sets, j->n_acs);
  proto_account_job_free(j);
  cli_progress_free(progress);
  return ok;
}

/* Seconds since @start (g_get_monotonic_time). */
static double seconds_since(gint64 start) {
  return (double)(g_get_monotonic_time() - start) / 1e6;
}

/* The observer path for panel @p: one simulated run of D-SGD under @fr's
 * mode, latency, loss and seed, with one PNDP view per attacker set, each
 * set then accounted from what it saw; METHOD_OTHER is Muffliato's bound
 * (synchronous run) or the structured accounting of the synchronous run
 * (asynchronous one). Progress on stderr (the run dominates: seconds to
 * minutes at the paper's sizes). Rank 0 only.
 * Errors: those of the accounting request's paths.
 * Complexity: the run and its streaming accountant (one view per set), then
 * per set a report and Muffliato's bound or a structured accounting. */
static gboolean account_panel_observer(Panel *p, const CliAccountSetup *s, const FigureRun *fr,
                                       GError **error) {
  CliProgress *progress = cli_progress_new(CMD, fr->quiet);
  ProtoAccountJob *j = panel_job(p, s, fr, "observer", !fr->async, progress, error);
  ProtoAccountJob *sync = j && fr->async ? panel_job(p, s, fr, "structured", FALSE, NULL, error)
                                         : NULL;
  if (j == NULL || (fr->async && sync == NULL)) {
    cli_progress_free(progress);
    proto_account_job_free(j);
    return FALSE;
  }
  fprintf(stderr,
          "dpgossip " CMD ": %s: one simulated run (mode %s, latency %s, loss %s, seed "
          "%" G_GUINT64_FORMAT ") observed by %u attacker set%s...\n",
          p->label, fr->mode ? fr->mode : "sync", fr->latency ? fr->latency : "constant:ms=0",
          fr->loss ? fr->loss : "0", fr->seed, j->n_acs, j->n_acs == 1 ? "" : "s");
  gint64 start = g_get_monotonic_time();
  gboolean ok = proto_account_job_execute(j, error);
  cli_progress_free(progress);
  if (ok) {
    const ProtoRunStats *st = &j->stats;
    fprintf(stderr,
            "dpgossip " CMD ": %s: run and streaming accounting in %.1f s (%" G_GUINT64_FORMAT
            " messages sent, %" G_GUINT64_FORMAT " lost, %" G_GUINT64_FORMAT
            " too late to be used; %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
            " gathers incomplete); per-victim reports...\n",
            p->label, seconds_since(start), st->engine.messages_sent, st->engine.messages_dropped,
            st->late_discarded, st->partial_gathers, st->gathers);
  }
  ok = ok && (sync == NULL || proto_account_job_execute(sync, error));
  GBytes **sets = ok ? g_new0(GBytes *, j->n_acs) : NULL;
  for (guint i = 0; ok && i < j->n_acs; i++)
    ok = (sets[i] = scen_dist_rows(j->acs[i].report, sync ? NULL : j->acs[i].muff,
                                   sync ? sync->acs[i].report : NULL, error)) != NULL;
  if (ok)
    fprintf(stderr, "dpgossip " CMD ": %s: %u attacker set%s accounted in %.1f s\n", p->label,
            j->n_acs, j->n_acs == 1 ? "" : "s", seconds_since(start));
  ok = ok && panel_pool(p, sets, j->n_acs, error);
  sets_free(sets, j->n_acs);
  proto_account_job_free(sync);
  proto_account_job_free(j);
  return ok;
}

/* ---- Outputs ---- */

/* The plotted numbers, written atomically (temporary file renamed over
 * @path by g_file_set_contents). */
static gboolean write_data(const GPtrArray *panels, const FigureRun *fr, const char *path,
                           GError **error) {
  GString *out = g_string_new(SCEN_DIST_CSV_COLUMNS "\n");
  const char *const series[N_METHODS] = {
      [METHOD_OURS] = method_name(fr, METHOD_OURS), [METHOD_OTHER] = method_name(fr, METHOD_OTHER)};
  for (guint i = 0; i < panels->len; i++) {
    const Panel *p = g_ptr_array_index(panels, i);
    scen_dist_pool_csv(out, p->label, p->pool, series);
  }
  gboolean ok = g_file_set_contents(path, out->str, (gssize)out->len, error);
  if (!ok)
    g_prefix_error(error, "--data: ");
  g_string_free(out, TRUE);
  return ok;
}

/* The figure (scenarios/distance_figure.c draws it): a panel per graph,
 * the run named as the options gave it. */
static gboolean draw_figure(const GPtrArray *panels, const CliAccountSetup *s, const FigureRun *fr,
                            const char *attackers, const char *path, const char *size, double dpi,
                            GError **error) {
  ScenDistPanel *dp = g_new0(ScenDistPanel, MAX(panels->len, 1));
  for (guint i = 0; i < panels->len; i++) {
    const Panel *p = g_ptr_array_index(panels, i);
    dp[i] = (ScenDistPanel){p->label, topo_graph_n_nodes(p->g), p->pool};
  }
  ScenDistFigure f = {.T = s->T,
                      .b = s->b,
                      .sigma = s->sigma,
                      .alpha = s->alpha,
                      .exact_sensitivity = s->sensitivity == MF_SENSITIVITY_EXACT,
                      .radius = fr->radius,
                      .mode = fr->async ? fr->mode : NULL,
                      .latency = fr->latency,
                      .loss = fr->loss,
                      .attackers = attackers,
                      .size = size,
                      .dpi = dpi};
  gboolean ok = scen_dist_figure_save(&f, dp, panels->len, path, error);
  g_free(dp);
  return ok;
}

/* The measured gap on stdout: per graph and distance, both means and their
 * ratio (synchronous figure: Muffliato / ours, how many times tighter this
 * accounting is; asynchronous: ours / sync, how many times more the
 * asynchronous run loses). */
/* @s left-aligned in @width characters, as printf's %-Ns, but counting
 * characters rather than bytes: "Erdős–Rényi" is 11 characters in 14 bytes,
 * and byte padding would leave its row 3 columns short. Text that is not
 * UTF-8 counts its bytes. O(length). */
static void print_padded(const char *s, glong width) {
  fputs(s, stdout);
  glong n = g_utf8_validate(s, -1, NULL) ? g_utf8_strlen(s, -1) : (glong)strlen(s);
  for (; n < width; n++)
    putchar(' ');
}

static void print_summary(const GPtrArray *panels, const FigureRun *fr) {
  if (fr->radius)
    printf("# --path local --radius %u: ours are certified upper bounds (every node beyond %u "
           "hops colludes), victims within %u hops only\n",
           fr->radius, fr->radius, fr->radius);
  if (fr->async)
    printf("# mode %s, latency %s, loss %s, seed %" G_GUINT64_FORMAT
           ": observer path, one run per graph;\n# Muffliato's bound (static synchronous gossip) "
           "does not apply and is not drawn;\n# ratio = ours / sync (above 1: the asynchronous "
           "run loses more)\n",
           fr->mode, fr->latency ? fr->latency : "constant:ms=0", fr->loss ? fr->loss : "0",
           fr->seed);
  printf("%-24s %8s %6s %14s %14s %10s\n", "graph", "distance", "pairs", "ours_mean",
         fr->async ? "sync_mean" : "muffliato_mean", "ratio");
  for (guint i = 0; i < panels->len; i++) {
    const Panel *p = g_ptr_array_index(panels, i);
    const ScenDistPool *pool = p->pool;
    for (guint d = 1; d <= pool->max_distance; d++) {
      const ScenDistStat *o = &pool->stat[METHOD_OURS][d], *mu = &pool->stat[METHOD_OTHER][d];
      double om = scen_dist_stat_mean(o), mm = scen_dist_stat_mean(mu);
      if (scen_dist_stat_total(o) == 0)
        continue;
      /* Undefined ratios (0/0, inf/inf) print as "-". */
      double ratio = fr->async ? om / mm : mm / om;
      char rbuf[32] = "-";
      if (!isnan(ratio))
        g_snprintf(rbuf, sizeof rbuf, "%.4g", ratio);
      print_padded(p->label, 24);
      printf(" %8u %6u %14.6g %14.6g %10s\n", d, scen_dist_stat_total(o), om, mm, rbuf);
    }
    if (pool->n_unreachable)
      fprintf(stderr,
              "dpgossip " CMD ": note: %u (attacker, victim) pairs of '%s' lie in different "
              "components and are not plotted (use --lcc)\n",
              pool->n_unreachable, p->label);
    if (pool->n_zero)
      fprintf(stderr,
              "dpgossip " CMD
              ": note: %u pairs of '%s' have a zero loss (their gradients never reach the "
              "attackers within T steps), which a log axis cannot show\n",
              pool->n_zero, p->label);
  }
}

/* ---- The command ---- */

/* The command line as typed (owned strings, freed by options_clear). */
typedef struct {
  gboolean lcc, quiet;
  gint rounds, interval, radius;
  double sigma, clip, alpha, dpi;
  char *gossip, *protocol, *trust, *attackers, *sensitivity, *out_path, *data_path, *path, *mode,
      *latency, *loss, *seed, *fig_size;
  char **labels;
} Options;

/* Parses the command line into @o, the panels into @st (cli_options_parse). */
static gboolean options_parse(Options *o, State *st, int *argc, char ***argv) {
  GOptionEntry entries[] = {
      {"graph", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)on_graph,
       "Edge list of one panel (repeatable; with --generate, panels in command-line order)",
       "FILE"},
      {"generate", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)on_generate,
       "Generated graph of one panel, e.g. florentine (repeatable)", "SPEC"},
      {"label", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->labels,
       "Panel title of the i-th graph (repeatable; default: the spec or file name)", "TEXT"},
      {"lcc", 0, 0, G_OPTION_ARG_NONE, &o->lcc,
       "Keep only each graph's largest connected component", NULL},
      {"gossip", 0, 0, G_OPTION_ARG_STRING, &o->gossip,
       "Gossip matrix: uniform (default), metropolis or maxdegree", "KIND"},
      {"protocol", 'p', 0, G_OPTION_ARG_STRING, &o->protocol,
       "dsgd (default; Muffliato's bound exists for D-SGD only)", "NAME"},
      {"rounds", 'T', 0, G_OPTION_ARG_INT, &o->rounds, "Gradient steps T (required)", "T"},
      {"participation-interval", 'b', 0, G_OPTION_ARG_INT, &o->interval,
       "Steps between two uses of a record (divides T; default 1: user level, as the paper)", "B"},
      {"trust", 0, 0, G_OPTION_ARG_STRING, &o->trust, "Trust model: pndp (required)", "MODEL"},
      {"attackers", 'a', 0, G_OPTION_ARG_STRING, &o->attackers,
       "all (every node in turn, as the paper), or ids accounted one at a time: 0,5; "
       "'+' joins a collusion set: 0+5 (required)",
       "IDS"},
      {"sensitivity", 0, 0, G_OPTION_ARG_STRING, &o->sensitivity,
       "bound (default, paper Thm 5.2, as the paper's figure) or exact", "KIND"},
      {"sigma", 0, 0, G_OPTION_ARG_DOUBLE, &o->sigma, "Noise multiplier, > 0 (default 1)",
       "SIGMA"},
      CLI_OPTION_CLIP(&o->clip),
      CLI_OPTION_ALPHA(&o->alpha),
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out_path,
       "The figure: FILE.svg, FILE.png or FILE.pdf (required)", "FILE"},
      {"size", 0, 0, G_OPTION_ARG_STRING, &o->fig_size,
       "Figure size WxH in points, or with a unit: 6x4in, 16x12cm (default: 300 x 300 pt per "
       "graph)",
       "WxH"},
      {"dpi", 0, 0, G_OPTION_ARG_DOUBLE, &o->dpi,
       "PNG resolution in dots per inch (default 144)", "DPI"},
      {"data", 0, 0, G_OPTION_ARG_FILENAME, &o->data_path,
       "Also write the plotted numbers as CSV: graph,distance,method,mean,min,max,count", "FILE"},
      CLI_OPTION_QUIET(&o->quiet),
      CLI_OPTION_RADIUS(&o->radius),
      {"path", 0, 0, G_OPTION_ARG_STRING, &o->path,
       "auto (default: structured for a synchronous run, observer otherwise), structured or "
       "observer (one simulated run per graph, one view per attacker set)",
       "PATH"},
      CLI_OPTIONS_NETWORK("Simulated run: ", &o->mode, &o->latency, &o->loss),
      {"seed", 's', 0, G_OPTION_ARG_STRING, &o->seed, "Seed of the simulated run (default 0)",
       "N"},
      G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "NAME - draw one of the paper's figures",
      .entries = entries,
      .entries_data = st,
      .operands = TRUE,
      .description =
          "Figures (NAME):\n"
          "  " FIGURE_PVD "  the paper's Figure 2: PNDP privacy loss of DP-D-SGD against the\n"
          "      hop distance from the attacker, one panel per graph: Renyi DP (log scale),\n"
          "      mean over (attacker, victim) pairs at each distance with min/max bars;\n"
          "      this accounting solid, Muffliato's original bound dashed. A summary of\n"
          "      both means and their ratio per distance is printed on stdout.\n"
          "      Under an asynchronous --mode each graph is simulated once (observer\n"
          "      path, one view per attacker set); Muffliato's bound, for synchronous\n"
          "      gossip only, gives way to the synchronous accounting (dashed).\n"
          "\n"
          "Examples:\n"
          "  dpgossip figure " FIGURE_PVD " --generate florentine -T 10 --trust pndp \\\n"
          "      --attackers all --out fig2.svg --data fig2.csv\n"
          "  dpgossip figure " FIGURE_PVD " --generate florentine --graph fb.edges -T 10 \\\n"
          "      --trust pndp -a 0,3+7 --out fig2.png\n"
          "  dpgossip figure " FIGURE_PVD " --generate florentine -T 10 --trust pndp -a all \\\n"
          "      --mode deadline:ms=15 --latency lognormal:mu=2,sigma=0.5 --seed 11 \\\n"
          "      --out fig2-async.svg\n"};
  return cli_options_parse(&spec, argc, argv);
}

static void options_clear(Options *o) {
  char **strings[] = {&o->gossip,   &o->protocol, &o->trust,   &o->attackers, &o->sensitivity,
                      &o->out_path, &o->data_path, &o->path,   &o->mode,      &o->latency,
                      &o->loss,     &o->seed,      &o->fig_size};
  for (guint i = 0; i < G_N_ELEMENTS(strings); i++)
    g_clear_pointer(strings[i], g_free);
  g_clear_pointer(&o->labels, g_strfreev);
}

/* The figure's name, its graphs and what is written: --out, --data,
 * --size, --dpi, --label. */
static int validate_figure(int argc, char **argv, const Options *o, const State *st) {
  GError *error = NULL;
  if (argc < 2)
    return usage_error("name the figure to draw (valid: " FIGURE_PVD ")");
  if (!g_str_equal(argv[1], FIGURE_PVD)) {
    const char *const figures[] = {FIGURE_PVD};
    char *hint = spec_did_you_mean(argv[1], figures, 1);
    int status = usage_error("unknown figure '%s' (valid: " FIGURE_PVD ")%s", argv[1], hint);
    g_free(hint);
    return status;
  }
  if (argc > 2)
    return usage_error("unexpected argument '%s'", argv[2]);
  if (st->panels->len == 0)
    return usage_error("give at least one graph: --graph FILE or --generate SPEC");
  if (!o->out_path)
    return usage_error("--out FILE.svg|FILE.png|FILE.pdf is required");
  if (!has_figure_extension(o->out_path))
    return usage_error("--out: unknown extension in '%s' (use .svg, .png or .pdf)", o->out_path);
  if (!cli_output_check("--out", o->out_path, FALSE, &error) ||
      (o->data_path && !cli_output_check("--data", o->data_path, FALSE, &error)))
    return cli_fail(CMD, error, CLI_EXIT_FAILURE);
  if (o->fig_size) {
    double w, h;
    if (!plot_parse_size(o->fig_size, &w, &h, &error)) {
      int status = usage_error("--size: %s", error->message);
      g_error_free(error);
      return status;
    }
  }
  if (o->dpi != 0 && !(o->dpi >= 18 && o->dpi <= 1152))
    return usage_error("--dpi must be from 18 to 1152 (got %g)", o->dpi);
  if (o->labels && g_strv_length(o->labels) > st->panels->len)
    return usage_error("%u --label given for %u graph%s", g_strv_length(o->labels),
                       st->panels->len, st->panels->len == 1 ? "" : "s");
  return CLI_EXIT_OK;
}

/* T and b, the trust model and the protocol the figure compares. */
static int validate_protocol(const Options *o, CliAccountSetup *s) {
  GError *error = NULL;
  if (o->rounds <= 0)
    return usage_error("--rounds T must be given and positive (got %d)", o->rounds);
  if (o->interval <= 0 || o->rounds % o->interval != 0)
    return usage_error("--participation-interval b = %d must be positive and divide "
                       "--rounds T = %d",
                       o->interval, o->rounds);
  s->T = (guint)o->rounds;
  s->b = (guint)o->interval;
  if (!o->trust)
    return usage_error("--trust is required: pndp (the trust model of the paper's Figure 2)");
  if (!priv_trust_parse(o->trust, &s->trust, &error)) {
    g_prefix_error(&error, "--trust: ");
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  }
  if (s->trust != PRIV_TRUST_PNDP)
    return usage_error("--trust %s: " FIGURE_PVD " compares with Muffliato's bound, which "
                       "holds under pndp only",
                       o->trust);
  const char *protocol = o->protocol;
  if (protocol && !(strncmp(protocol, "dsgd", 4) == 0 && strchr(":", protocol[4])))
    /* Before the parser, whose "unknown protocol" would deny that decor,
     * zipdl... exist: they do, this figure just does not draw them. */
    return usage_error("--protocol %s: " FIGURE_PVD " supports dsgd only (the protocol "
                       "Muffliato's bound exists for); account any other protocol with "
                       "'dpgossip account --protocol %s'",
                       protocol, protocol);
  /* The registry's parser (dsgd's parameters, if it ever has any, are
   * checked as `account` checks them). */
  ProtoAccountProtocol ap = {0};
  gboolean parsed = proto_account_resolve_protocol(protocol ? protocol : "dsgd", &ap, &error);
  gboolean dsgd = parsed && ap.structured && ap.protocol == PRIV_PROTOCOL_DSGD;
  proto_account_protocol_clear(&ap);
  if (!parsed)
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  s->protocol = PRIV_PROTOCOL_DSGD;
  if (!dsgd)
    return usage_error("--protocol %s: " FIGURE_PVD " compares with Muffliato's bound, which "
                       "is for dsgd only",
                       protocol);
  return CLI_EXIT_OK;
}

/* The sensitivity, the numbers, the attacker sets and the gossip. */
static int validate_numbers(const Options *o, CliAccountSetup *s, AttackerSpec *as) {
  GError *error = NULL;
  if (o->sensitivity && !mf_sensitivity_parse(o->sensitivity, &s->sensitivity, &error)) {
    g_prefix_error(&error, "--sensitivity: ");
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  }
  s->delta = 1e-6; /* unused: the figure shows RDP */
  if (!cli_account_check_numbers(o->sigma, o->clip, o->alpha, s->delta, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  if (!(o->sigma > 0))
    return usage_error("--sigma must be positive: without noise every victim the attacker "
                       "hears from is unprotected");
  s->sigma = o->sigma;
  s->clip = o->clip;
  s->alpha = o->alpha;
  if (!parse_attacker_spec(o->attackers, as, &error))
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  if (!topo_gossip_kind_parse(o->gossip ? o->gossip : "uniform", &s->gossip, &error)) {
    g_prefix_error(&error, "--gossip: ");
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  }
  return CLI_EXIT_OK;
}

/* --path and --radius as the accounting request checks them, in its words
 * (`dpgossip account`'s): a known path, a radius with --path local only,
 * which accounts a synchronous run. */
static int check_path(const Options *o) {
  static const char *const any_set[] = {"0", NULL};
  gboolean local = o->path && g_str_equal(o->path, "local");
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 1;
  r.trust = "pndp";
  r.attackers = any_set;
  r.path = o->path;
  /* -1 is the request's "not given": a typed -1 is out of range. */
  if (o->radius != CLI_UNSET && o->radius < 0)
    return usage_error("--radius %d is out of range: give R >= 1 hops around the attackers",
                       o->radius);
  r.radius = o->radius == CLI_UNSET ? -1 : o->radius;
  r.mode = local ? o->mode : NULL;
  GError *error = NULL;
  ProtoAccountRefusal refusal;
  ProtoAccountJob *j = proto_account_validate(&r, &refusal, &error);
  if (j != NULL) {
    proto_account_job_free(j);
    return CLI_EXIT_OK;
  }
  if (refusal != PROTO_REFUSED_RULE)
    return cli_fail(CMD, error, proto_refusal_status(error, refusal));
  int status = usage_error("%s", error->message);
  g_error_free(error);
  return status;
}

/* The simulated run (the same grammar as `dpgossip account`) and the path. */
static int validate_run(const Options *o, FigureRun *fr) {
  GError *error = NULL;
  ProtoMode pmode;
  if (!proto_account_parse_run_options(o->mode, o->latency, o->loss, &pmode, NULL, &error)) {
    /* A latency file that cannot be read is the run's (1), as in account. */
    int fail = proto_error_is_unreadable(error) ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
    int status = error->domain == G_OPTION_ERROR ? usage_error("%s", error->message)
                                                 : cli_fail(CMD, g_steal_pointer(&error), fail);
    g_clear_error(&error);
    return status;
  }
  if (o->seed && !g_ascii_string_to_unsigned(o->seed, 10, 0, G_MAXUINT64, &fr->seed, &error)) {
    g_prefix_error(&error, "--seed: ");
    return cli_fail(CMD, error, CLI_EXIT_USAGE);
  }
  fr->mode = o->mode;
  fr->attackers = o->attackers;
  fr->quiet = o->quiet;
  fr->latency = o->latency;
  fr->loss = o->loss;
  fr->async = pmode.kind != PROTO_MODE_SYNC;
  const char *path = o->path;
  int status = check_path(o);
  if (status != CLI_EXIT_OK)
    return status;
  fr->radius = path && g_str_equal(path, "local") ? (guint)o->radius : 0;
  fr->observer = fr->async || (path && g_str_equal(path, "observer"));
  if (path && g_str_equal(path, "structured") && fr->async)
    return usage_error("--path structured accounts a synchronous run without simulating it: "
                       "--mode %s needs --path observer or auto",
                       o->mode);
  if (!fr->observer && (o->latency || o->seed))
    return usage_error("%s only matter%s in a simulated run: give an asynchronous --mode or "
                       "--path observer",
                       o->latency && o->seed ? "--latency and --seed"
                       : o->latency          ? "--latency"
                                             : "--seed",
                       o->latency && o->seed ? "" : "s");
  return CLI_EXIT_OK;
}

/* Each panel's graph, then its accounting (rank 0 alone simulates). */
static int account_panels(const Options *o, State *st, const CliAccountSetup *s,
                          const FigureRun *fr, guint rank) {
  GError *error = NULL;
  for (guint i = 0; i < st->panels->len; i++) {
    Panel *p = g_ptr_array_index(st->panels, i);
    p->label = o->labels && i < g_strv_length(o->labels) ? g_strdup(o->labels[i])
                                                         : default_label(p);
    p->g = p->generated ? topo_graph_generate(p->source, &error)
                        : topo_graph_load(p->source, o->lcc, &error);
    if (p->g && p->generated && o->lcc) {
      TopoGraph *l = topo_graph_largest_component(p->g, &error);
      topo_graph_free(p->g);
      p->g = l;
    }
    if (p->g && !p->generated)
      cli_graph_load_notice(p->source, p->g);
    if (!p->g)
      /* A bad --generate spec is the user's option; a file that fails, a run. */
      return cli_fail(CMD, error, p->generated ? cli_error_status(error) : CLI_EXIT_FAILURE);
    /* One simulated run records every set's view: rank 0 does it all. */
    if (fr->observer && rank != 0)
      continue;
    if (!(fr->observer ? account_panel_observer(p, s, fr, &error)
                       : account_panel(p, s, fr, &error)))
      return cli_fail(CMD, error,
                      error->domain == G_OPTION_ERROR ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
  }
  return CLI_EXIT_OK;
}

/* Rank 0: the figure, its data, the summary. */
static int draw(const Options *o, const State *st, const CliAccountSetup *s,
                const FigureRun *fr) {
  GError *error = NULL;
  if (!draw_figure(st->panels, s, fr, o->attackers, o->out_path, o->fig_size, o->dpi, &error) ||
      (o->data_path && !write_data(st->panels, fr, o->data_path, &error)))
    return cli_fail(CMD, error, CLI_EXIT_FAILURE);
  print_summary(st->panels, fr);
  fprintf(stderr, "dpgossip " CMD ": wrote %s (%u panel%s)%s%s\n", o->out_path, st->panels->len,
          st->panels->len == 1 ? "" : "s", o->data_path ? " and its data " : "",
          o->data_path ? o->data_path : "");
  return CLI_EXIT_OK;
}

int cli_cmd_figure(int argc, char **argv) {
  /* Under mpirun or srun the attacker sets are shared out across the ranks. */
  gboolean mpi = FALSE;
  guint rank = 0, size = 1, local = 1;
  if (!cli_mpi_join(CMD, &mpi, &rank, &size, &local))
    return CLI_EXIT_FAILURE;
  State st = {.panels = g_ptr_array_new_with_free_func(panel_free)};
  Options o = {.interval = 1, .radius = CLI_UNSET, .sigma = 1.0, .clip = 1.0, .alpha = 2.0};
  CliAccountSetup s = {0};
  AttackerSpec as = {0};
  FigureRun fr = {0};
  int status = CLI_EXIT_USAGE;
  if (options_parse(&o, &st, &argc, &argv))
    status = validate_figure(argc, argv, &o, &st);
  if (status == CLI_EXIT_OK)
    status = validate_protocol(&o, &s);
  if (status == CLI_EXIT_OK)
    status = validate_numbers(&o, &s, &as);
  if (status == CLI_EXIT_OK)
    status = validate_run(&o, &fr);
  /* The machine's processors, shared by its ranks (results do not depend on it). */
  fr.threads = MAX(1u, g_get_num_processors() / local);
  if (status == CLI_EXIT_OK)
    status = account_panels(&o, &st, &s, &fr, rank);
  /* Rank 0 draws from everyone's sets. */
  if (status == CLI_EXIT_OK && rank == 0)
    status = draw(&o, &st, &s, &fr);
  attacker_spec_clear(&as);
  g_ptr_array_unref(st.panels);
  options_clear(&o);
  plot_shutdown();
  return mpi ? ranks_finalize(status) : status;
}
