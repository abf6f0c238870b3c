/*
 * scenarios/scenarios.h: scenario files: parse, validate, run, sweep.
 *
 * A scenario file (GLib key-file syntax, '#' comments, also after a value)
 * fully determines an experiment: graph, protocol, noise, task, trust models
 * and collusion sets, outputs, and optionally a [sweep] over any keys. See
 * the scenarios/ folder's .ini files for examples and `dpgossip validate --keys` for every key.
 * Relative paths resolve against the scenario file's folder.
 *
 * Outputs of a run (one point): summary.json (written last: its presence
 * means the point is complete), metrics.csv (SCEN_METRICS_CSV_COLUMNS),
 * privacy.csv (SCEN_PRIVACY_CSV_COLUMNS), scenario.resolved.ini (every
 * default filled in, absolute paths: running it reproduces the run byte for
 * byte), metrics_mean.csv (SCEN_METRICS_MEAN_CSV_COLUMNS: the means over the
 * nodes per round) and SVG figures. A sweep writes each point into points/NAME/ and at
 * the top: points.csv (one row per point), groups.csv and aggregate.csv
 * (means and 95% confidence bands over seeds; one epsilon_TRUST_COLLUSION
 * column per accounting, the worst victim's), and privacy.csv and
 * metrics.csv: every point's rows after its name and its values on the
 * axes but the seed (columns named section.key), one tidy table each (and
 * metrics_mean.csv likewise). Every file
 * goes through a temporary name renamed into place; no output holds a
 * wall-clock time, so equal scenarios and seeds give byte-identical files.
 *
 * Conventions: public names carry the scen_ prefix (types Scen*); errors
 * travel as GError in the SCEN_ERROR domain (or the failing module's);
 * library code never prints or exits.
 */
#ifndef DPG_SCENARIOS_H
#define DPG_SCENARIOS_H

#include "protocols/protocols.h"

G_BEGIN_DECLS

#define SCEN_ERROR (scen_error_quark())
GQuark scen_error_quark(void);

typedef enum {
  SCEN_ERROR_INVALID,   /* the scenario has problems (the message lists them) */
  SCEN_ERROR_IO,        /* an output cannot be written */
  SCEN_ERROR_FAILED,    /* some points failed (the message says which) */
  SCEN_ERROR_CANCELLED, /* scen_cancel stopped the run (run again to resume) */
} ScenError;

typedef struct ScenScenario ScenScenario;

/**
 * scen_scenario_load: reads the scenario file @path. Syntax problems do not
 * fail here: scen_scenario_validate reports them with everything else.
 * Errors: G_FILE_ERROR when the file cannot be read. O(file size).
 */
ScenScenario *scen_scenario_load(const char *path, GError **error);

/**
 * scen_scenario_load_data: the same from memory; @path names it in messages
 * and its folder resolves relative paths. Never fails.
 */
ScenScenario *scen_scenario_load_data(const char *data, gsize len, const char *path);

void scen_scenario_free(ScenScenario *sc);

/**
 * scen_scenario_set: applies "section.key=value" (command line --set), which
 * wins over the file. Setting a swept key removes it from the sweep;
 * "sweep.section.key=a;b" sets a sweep axis, "sweep.section.key=" drops one.
 * Errors: G_OPTION_ERROR_BAD_VALUE for a malformed item.
 */
gboolean scen_scenario_set(ScenScenario *sc, const char *item, GError **error);

/**
 * scen_scenario_validate: every problem of the scenario at once, each as
 * "FILE:LINE: section.key: what is wrong" (with did-you-mean hints): syntax,
 * unknown sections and keys, types, ranges, missing files (graph, dataset,
 * C, churn file, plugin: never loaded here, see scen_scenario_notes),
 * names that are paths, collusion nodes out of range, unknown specs (each module's
 * parser says why), sweeps over unknown keys, participation interval not
 * dividing T, ... Every sweep point is checked.
 * Returns: (transfer full) a NULL-terminated array (empty when valid; g_strfreev).
 * Complexity: loading each distinct graph once + O(points x keys).
 */
char **scen_scenario_validate(ScenScenario *sc);

/**
 * scen_scenario_check: every check scen_scenario_run makes before a point's
 * first step, by the same code, without running or writing anything: the
 * problems of scen_scenario_validate, the output folder (@out_dir, else
 * [output] dir: a writable directory, or creatable below one, not in /dev,
 * /proc or /sys), and each distinct point's run set up and freed (dataset
 * read and partitioned, batches against each node's records, memory
 * estimates; Mafalda's optimizer is not run, a plugin never loaded).
 * @problems: (out) (optional): the problems one per string, as
 * scen_scenario_validate gives them (NULL-terminated, empty when there is
 * none; g_strfreev).
 * Errors: SCEN_ERROR_INVALID (the problems, one per line), SCEN_ERROR_IO
 * (the folder), SCEN_ERROR_FAILED (each point that cannot start, with its
 * folder and why).
 * Complexity: one pass over the points, each resolved and freed in turn
 * (memory: 32 bytes per distinct check, not per point), then reading each
 * distinct point's data once.
 */
gboolean scen_scenario_check(ScenScenario *sc, const char *out_dir, char ***problems,
                             GError **error);

/**
 * scen_scenario_notes: what the last validation left unchecked, and why, as
 * "FILE:LINE: section.key: ..." lines: a [protocol] plugin is never loaded
 * by validation (loading runs its code), so its protocol's parameters are
 * not checked until a run that is allowed to load it.
 * Returns: (transfer full) a NULL-terminated array (g_strfreev).
 */
char **scen_scenario_notes(ScenScenario *sc);

/** Number of points (1 without a sweep; 0 when the sweep is invalid). */
guint64 scen_scenario_n_points(ScenScenario *sc);

/** Progress: @done of @total points finished, @fraction of the whole work in
 * [0, 1] (the points weighed by a cost model; a point under way counts only
 * once the share of its run in a point has been measured on an ended one),
 * @steps the mean fraction of the running points' steps done (NAN: none
 * running). */
typedef void (*ScenProgressFunc)(guint done, guint total, double fraction, double steps,
                                 gpointer data);

/** One accounting result (ScenRunHookInfo): the privacy loss of victims
 * towards one collusion set under one trust model. Pointers are borrowed
 * for the duration of the hook call. */
typedef struct {
  const char *collusion;  /* [collusion] name */
  const guint *attackers; /* the set's nodes */
  guint n_attackers;
  PrivTrust trust;
  double delta; /* of epsilon(delta) */
  guint n_victims;
  const guint *victims;
  const double *mu;      /* GDP mu per victim (+inf: unprotected) */
  const double *epsilon; /* epsilon(delta) per victim (+inf: unprotected) */
  const gint *distance;  /* hop distance to the set, -1 unknown */
} ScenPrivacyResult;

/** What a run hook is told (ScenRunOptions.run_hook). */
typedef struct {
  guint point;                      /* index in the sweep (0 without one) */
  ProtoRun *run;                    /* the run; its engine is proto_run_engine(run) */
  const TopoGraph *graph;           /* its graph (the base graph of a time-varying schedule) */
  const char *name;                 /* [simulation] name */
  const char *protocol;             /* the protocol spec as run */
  guint64 seed;                     /* [simulation] seed */
  double sigma;                     /* the noise multiplier used (after calibration) */
  gboolean finished;                /* FALSE: before proto_run_run; TRUE: after the run and
                            * its accounting succeeded */
  const ScenPrivacyResult *privacy; /* finished: one per (collusion set, trust) */
  guint n_privacy;
} ScenRunHookInfo;

/** A run hook: called from the thread running the point. Returning FALSE
 * (with @error set) fails the point. */
typedef gboolean (*ScenRunHook)(const ScenRunHookInfo *info, gpointer data, GError **error);

typedef struct {
  const char *out_dir; /* NULL: [output] dir, else results/NAME next to the file */
  guint threads;       /* sweep points run in parallel; 0 = number of cores */
  ScenProgressFunc progress;
  gpointer progress_data;
  /* Optional: called with each ProtoRun before it runs and after it finished
   * (e.g. to attach an event stream). Points already finished (resume) and
   * points sharing another's run are not run, so not seen. */
  ScenRunHook run_hook;
  gpointer run_hook_data;
  /* Load the scenario's [protocol] plugin (a shared object: loading it runs
   * its code with the user's rights). FALSE: a scenario naming a plugin is
   * refused (SCEN_ERROR_INVALID at the plugin's line). Only a user's
   * explicit consent (dpgossip run --allow-plugins) should set it. */
  gboolean allow_plugins;
} ScenRunOptions;

/** What scen_scenario_run did. */
typedef struct {
  char *out_dir;      /* absolute */
  guint points;       /* in the sweep (1 without one) */
  guint ran;          /* points run now */
  guint skipped;      /* points already finished (resume) */
  guint failed;       /* points that failed */
  guint threads;      /* threads used (per rank under MPI) */
  guint ranks;        /* MPI ranks that took part (0: not under MPI) */
  GPtrArray *figures; /* paths of the figures written (char*) */
  GPtrArray *rerun;   /* NULL or, per point that looked finished but did not read
                       * back (a damaged summary.json or table), why it ran again */
  /* Where the wall time went (seconds; threads only, 0 under MPI): before
   * the points (validation, resolution, noise correlations), the points on
   * the threads, after them (aggregates, figures); and the time the threads
   * spent running points, whose shortfall from threads x points_s is their
   * idle time (a tail of long points, a lock), whatever else the machine
   * runs. */
  double prepare_s, points_s, finish_s, busy_s;
} ScenRunReport;

void scen_run_report_clear(ScenRunReport *r);

/**
 * scen_scenario_run: validates (refusing to start with SCEN_ERROR_INVALID
 * listing the problems, among them a [protocol] plugin without
 * @opt->allow_plugins), then runs every point not already finished (a point
 * is finished when its summary.json exists and its scenario.resolved.ini is
 * the one it would write), @opt->threads at a time, each with its own
 * engine; writes the outputs described above. Results do not depend on the
 * thread count. Points whose configurations coincide (e.g. nonprivate at
 * several mu) run once. Time-varying schedules run one point at a time
 * (graph generation is not thread-safe).
 * @report: (out) (optional): filled on success and on SCEN_ERROR_FAILED.
 * Errors: SCEN_ERROR_INVALID, SCEN_ERROR_IO, SCEN_ERROR_FAILED (some points
 * failed; the others are written), SCEN_ERROR_CANCELLED after scen_cancel.
 */
gboolean scen_scenario_run(ScenScenario *sc, const ScenRunOptions *opt, ScenRunReport *report,
                           GError **error);

/* ---- Tidy tables (tables.c): one row per observation, one writer for
 * `dpgossip run` and `dpgossip account --format csv` ---- */

/**
 * SCEN_PRIVACY_CSV_COLUMNS: the columns of a privacy table, one row per
 * (collusion set, trust model, victim): collusion (the set's name; the
 * members for `account`), trust (ldp, pndp, secldp), victim (node label),
 * distance (hops to the nearest attacker, empty when unreachable),
 * sensitivity, mu (mu-GDP), rdp (Renyi DP at alpha), epsilon (at delta),
 * muffliato_rdp (Muffliato's bound when asked, else empty), status
 * (protected, unprotected: seen without noise, unresolved: no number could
 * be given; both have inf in the numeric columns), attackers (members joined
 * by '+'), alpha, delta, path (structured, observer or local:radius=R),
 * seed, mu_lower (path local: a certified lower bound of the exact mu, mu
 * the upper one; 0 on the observer path's ball, which does not compute it;
 * else empty), bound (which bound the numbers are: thm5.2, exact, local or
 * ldp-cap, as account's table says). Always every column, whatever the
 * values. Victims and attackers go by the graph's labels when it has them.
 */
#define SCEN_PRIVACY_CSV_COLUMNS                                                                   \
  "collusion,trust,victim,distance,sensitivity,mu,rdp,epsilon,muffliato_rdp,status,attackers,"     \
  "alpha,delta,path,seed,mu_lower,bound"

/**
 * SCEN_METRICS_CSV_COLUMNS: the columns of a metrics table: one row per
 * (evaluated round, node), node an integer id; test_accuracy is empty for
 * regression.
 */
#define SCEN_METRICS_CSV_COLUMNS "round,node,train_loss,test_loss,test_accuracy,seed"

/**
 * SCEN_METRICS_MEAN_CSV_COLUMNS: the columns of the table beside a metrics
 * table (metrics_mean.csv): one row per evaluated round, the means over the
 * nodes (summary.json's curve). A table of its own, so that the metrics'
 * node column stays an integer.
 */
#define SCEN_METRICS_MEAN_CSV_COLUMNS "round,train_loss,test_loss,test_accuracy,seed"

/** What every row of one accounting shares (strings borrowed). */
typedef struct {
  const char *prefix;    /* nullable: written first on each row (e.g. a sweep's axis cells
                          * with their trailing ',') */
  const char *collusion; /* the set's name */
  const char *attackers; /* members joined by '+' */
  PrivTrust trust;
  const char *path; /* "structured" or "observer" */
  guint64 seed;
  /* nullable: the job, for each victim's bound (proto_account_job_bound_name;
   * empty cells without) and its graph's labels (victims by id without) */
  const ProtoAccountJob *job;
} ScenPrivacyCsvSet;

/**
 * scen_privacy_csv_rows: appends one SCEN_PRIVACY_CSV_COLUMNS row per victim
 * of @r to @s; @muff (nullable) is Muffliato's bound indexed by node. alpha
 * and delta come from @r. O(victims).
 */
void scen_privacy_csv_rows(GString *s, const ScenPrivacyCsvSet *set, const PrivReport *r,
                           const double *muff);

/**
 * scen_metrics_csv_rows: appends the SCEN_METRICS_CSV_COLUMNS rows of
 * @rows (sorted by round, then node) to @s, and when @means is not NULL the
 * SCEN_METRICS_MEAN_CSV_COLUMNS rows (one per round: the means over its
 * nodes) to @means. The node column names a node as privacy.csv's victim
 * column does: its label when @g (nullable) has a label table, else its
 * id. O(@n_rows).
 */
void scen_metrics_csv_rows(GString *s, GString *means, guint64 seed, const ProtoMetric *rows,
                           gsize n_rows, const TopoGraph *g);

/** "protected", "unprotected" or "unresolved" (the status column). */
const char *scen_privacy_victim_status(const PrivVictim *v);
/** @nodes joined by '+' ("0+5"; the attackers column), by their labels in
 * @g when it has them (@g nullable). (g_free) */
char *scen_privacy_members_label(const TopoGraph *g, const guint *nodes, guint n);
/** Appends @v as a CSV cell, quoted when it holds a comma, quote or newline. */
void scen_csv_text(GString *s, const char *v);
/** Appends @x in its shortest round-trip form ("inf" when infinite); nothing for NaN. */
void scen_csv_number(GString *s, double x);
/** scen_csv_number with 17 significant digits (%.17g) rather than the
 * shortest form, for a table whose format was fixed with them (the figure's
 * --data): the same NaN (an empty cell) and infinities. O(1). */
void scen_csv_number17(GString *s, double x);

/**
 * scen_csv_parse: the records of RFC 4180 text @text: fields separated by
 * commas, a field in double quotes may hold commas, newlines and doubled
 * quotes (""). Blank lines are skipped; a CR before a newline is dropped.
 * Returns a GPtrArray of NULL-terminated string vectors (row 0 is the
 * header), or NULL when @text holds no record or ends inside a quoted
 * field. O(length of @text).
 */
GPtrArray *scen_csv_parse(const char *text);

/** scen_csv_read: scen_csv_parse of the file DIR/NAME; NULL when it is
 * absent, unreadable or empty. */
GPtrArray *scen_csv_read(const char *dir, const char *name);

/** scen_csv_column: index of column @name in @header, -1 when absent. */
int scen_csv_column(char *const *header, const char *name);

/** scen_csv_cell: field @c of @row, "" when @c is -1 or past the row's end
 * (a short row). */
const char *scen_csv_cell(char *const *row, int c);

/** Above this epsilon a guarantee is reported as "no meaningful protection". */
#define SCEN_EPSILON_MEANINGFUL 10

/**
 * scen_privacy_epsilon_note: what @epsilon (at @delta) means for a user when
 * it offers no meaningful protection (above SCEN_EPSILON_MEANINGFUL, or
 * inf), as one sentence; NULL otherwise. (g_free) O(1).
 */
char *scen_privacy_epsilon_note(double epsilon, double delta);

/* ---- Privacy loss by hop distance (distance_stats.c): the statistic of
 * the paper's Figure 2, shared by `dpgossip figure` and the scenario
 * figures ---- */

/**
 * ScenDistStat: a privacy loss pooled over (attacker set, victim) pairs at
 * one hop distance (the paper's Figure 2: mean with min/max bars). Values
 * without a bound (+inf: unprotected or unresolved victims; any non-finite
 * value counts as one) are counted apart: any one of them makes the mean and
 * the max infinite, since a mean over a set holding an unbounded loss is no
 * guarantee, while the min stays the finite minimum. All zeros is empty.
 */
typedef struct {
  guint count;          /* finite values */
  guint n_inf;          /* non-finite values */
  double sum, min, max; /* over the finite values, in the order added */
} ScenDistStat;

/** scen_dist_stat_add: adds @v (non-finite: counted in n_inf). O(1). */
void scen_dist_stat_add(ScenDistStat *s, double v);

/** scen_dist_stat_total: the values added, finite or not. O(1). */
guint scen_dist_stat_total(const ScenDistStat *s);

/**
 * scen_dist_stat_mean, _min, _max: NaN when empty; with an infinite value,
 * mean and max +inf and min the finite minimum (+inf when every value is
 * infinite). The mean is sum / count in the order the values were added.
 * O(1).
 */
double scen_dist_stat_mean(const ScenDistStat *s);
double scen_dist_stat_min(const ScenDistStat *s);
double scen_dist_stat_max(const ScenDistStat *s);

/** One victim of one attacker set: its distance and two losses, as the
 * rows of a set travel between MPI ranks (plain bytes, same machine type). */
typedef struct {
  gint32 distance; /* hops to the nearest attacker, -1 when unreachable */
  guint32 node;
  double ours;  /* the accounting's RDP; +inf when unprotected or unresolved */
  double other; /* the series compared with it; 0 when unreachable */
} ScenDistRow;

/**
 * scen_dist_rows: one attacker set's victims, in @ours's order, as
 * ScenDistRow bytes: @ours's RDP beside Muffliato's bound @muff (indexed by
 * node id, as ProtoAccounting.muff) or beside the victims of the synchronous
 * report @sync (exactly one of the two non-NULL). @sync must list the same
 * victims in the same order (both list every non-attacker node in
 * increasing order).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT when @sync and @ours disagree on the
 * victims (their number, or a node).
 * Returns: (transfer full) the rows (empty bytes when @ours has no victim).
 * Complexity: O(victims).
 */
GBytes *scen_dist_rows(const PrivReport *ours, const double *muff, const PrivReport *sync,
                       GError **error);

/** The two series of a figure panel, as ScenDistPool.stat indices. */
enum { SCEN_DIST_OURS, SCEN_DIST_OTHER, SCEN_DIST_N_SERIES };

/**
 * ScenDistPool: the rows of every attacker set of one graph, pooled by hop
 * distance: one ScenDistStat per series and distance, the pairs that cannot
 * be plotted counted apart.
 */
typedef struct {
  guint n_distances;                      /* distances 0 .. n_distances - 1 */
  ScenDistStat *stat[SCEN_DIST_N_SERIES]; /* each indexed by distance */
  guint max_distance;                     /* largest distance with a pair (0: none) */
  guint n_unreachable;                    /* pairs in another component (not pooled) */
  guint n_zero; /* pairs with a zero loss in either series (a log axis cannot show it) */
} ScenDistPool;

/** The header of scen_dist_pool_csv's table (`dpgossip figure --data`). */
#define SCEN_DIST_CSV_COLUMNS "graph,distance,method,mean,min,max,count"

/**
 * scen_dist_pool_csv: appends @p's rows under SCEN_DIST_CSV_COLUMNS to
 * @out: for each distance from 1 and each series with a pair there, @label
 * (scen_csv_text), the distance, @series[s] (SCEN_DIST_N_SERIES names), the
 * mean, min and max (scen_csv_number17) and the pair count. The one writer
 * of the pooled statistics as a table. O(max_distance).
 */
void scen_dist_pool_csv(GString *out, const char *label, const ScenDistPool *p,
                        const char *const *series);

/**
 * scen_dist_pool_new: an empty pool for distances below @n_distances (the
 * graph's node count holds every distance). (scen_dist_pool_free) O(n).
 */
ScenDistPool *scen_dist_pool_new(guint n_distances);

/** scen_dist_pool_free: frees @p (NULL allowed). */
void scen_dist_pool_free(ScenDistPool *p);

/**
 * scen_dist_pool_add_sets: adds the rows of the @n_sets attacker sets (each
 * scen_dist_rows's bytes, as ranks_map gathers them) to @p, set by set in
 * index order, so the sums are the same bits whatever the ranks that
 * computed the sets.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT when a set's bytes are not whole rows or
 * a row's distance is not below @p->n_distances; @p then holds the rows
 * before it.
 * Complexity: O(rows).
 */
gboolean scen_dist_pool_add_sets(ScenDistPool *p, GBytes *const *sets, guint n_sets,
                                 GError **error);

/** One panel of scen_dist_figure_save: a graph's pool (borrowed). */
typedef struct {
  const char *label;        /* the panel's title, before "(N nodes)" */
  guint n_nodes;            /* the graph's */
  const ScenDistPool *pool; /* its pairs by distance, both series */
} ScenDistPanel;

/** What the privacy-vs-distance figure says about the run it shows
 * (strings borrowed). */
typedef struct {
  guint T, b;                 /* steps, and the batches (1: user level) */
  double sigma, alpha;        /* the noise multiplier; the Rényi order drawn */
  gboolean exact_sensitivity; /* the exact sensitivity, else the Thm 5.2 bound */
  guint radius;               /* --path local's radius (0: the exact accounting) */
  const char *mode;           /* an asynchronous run's mode, NULL when synchronous */
  const char *latency, *loss; /* its latency and loss (NULL: constant:ms=0, none) */
  const char *attackers;      /* the attacker sets as typed, or "all" */
  const char *size;           /* "WxH" in points (plot_parse_size), NULL: 300 x 300 a panel */
  double dpi;                 /* PNG resolution, 0 for plot/'s default */
} ScenDistFigure;

/**
 * scen_dist_figure_save: draws the paper's Figure 2 to @path (SVG, PNG or
 * PDF by its extension; plot_figure_save): a panel per @panels entry, the
 * RDP at @f->alpha on a log axis against the hop distance, the mean with
 * min/max bars of each series (SCEN_DIST_OURS solid, SCEN_DIST_OTHER
 * dashed: Muffliato's bound, or the synchronous accounting when @f->mode is
 * set), the legend on the first panel and a title naming the run.
 * Errors: those of plot_parse_size and plot/ (a size, a file that cannot be
 * written). Cost: O(panels x distances) and the rendering.
 */
gboolean scen_dist_figure_save(const ScenDistFigure *f, const ScenDistPanel *panels, guint n_panels,
                               const char *path, GError **error);

/**
 * ScenDistAcc: one accounting's victims of privacy.csv pooled by hop
 * distance: the rows of one (group, attacker set, trust model), a
 * ScenDistStat of their RDP and one of their epsilon per distance.
 */
typedef struct {
  guint group;                         /* the caller's group of the rows' point (0: none) */
  char *collusion, *trust, *attackers; /* the cells of its first row */
  guint order;                         /* its place in first-appearance order */
  GArray *rdp, *epsilon;               /* ScenDistStat per distance 0 .. max_distance */
} ScenDistAcc;

/**
 * ScenDistCsv: privacy.csv's rows (of a point, or the tidy table of a
 * sweep) pooled by accounting and distance: the one reader of the file's
 * victims by distance, for the run summary and the scenario figures.
 */
typedef struct {
  GPtrArray *accs;     /* ScenDistAcc, in the order their first row appears */
  guint max_distance;  /* largest distance pooled (0: none, or only distance 0) */
  guint n_unreachable; /* rows without a distance (no path from the attackers): not pooled */
  guint n_unresolved;  /* rows whose status is "unresolved" (pooled, as +inf when so) */
} ScenDistCsv;

/** scen_dist_csv_new: an empty pool (scen_dist_csv_free). O(1). */
ScenDistCsv *scen_dist_csv_new(void);

/** scen_dist_csv_free: frees @p and its accounting rows (NULL allowed). */
void scen_dist_csv_free(ScenDistCsv *p);

/**
 * scen_dist_csv_add: adds the victims of @rows (scen_csv_read of a
 * privacy.csv: row 0 the header, which needs the collusion, trust, distance,
 * rdp and epsilon columns; without one nothing is added) to @p. A row goes to
 * the accounting of (group, collusion, trust), made on its first row: its
 * group is @group_of's value for the row's point column (a GUINT_TO_POINTER;
 * 0 when @group_of is NULL or lacks the point). A row is pooled at its
 * distance when that is a whole number of hops 0 .. 1e6 and its epsilon is
 * a number ("inf" is one; an rdp that is none is pooled as +inf, never as a
 * smaller loss); a row without a distance counts in n_unreachable. When @point is not NULL, only the rows of that point (the
 * point column) are read. Values are added in row order, so the means are
 * the same bits as a sum over the file. O(rows x accountings).
 */
void scen_dist_csv_add(ScenDistCsv *p, GPtrArray *rows, GHashTable *group_of, const char *point);

/**
 * scen_dist_csv_stat: @acc's statistic at distance @d: its epsilon, or its
 * RDP when @rdp; NULL when no row was pooled there. O(1).
 */
const ScenDistStat *scen_dist_csv_stat(const ScenDistAcc *acc, guint d, gboolean rdp);

/* ---- Sweeps across the ranks of an MPI job (sweep_mpi.c, over ranks/) ---- */

typedef struct {
  gboolean dispatcher; /* rank 0 only hands points out (runs none itself) */
  double timeout_s;    /* a rank silent this long (no heartbeat) is lost; 0: 300 s */
  /* Nullable: one line (no newline) about this rank's work: points handed
   * out, started, done or failed, with times. Called from any thread. */
  void (*log)(const char *line, gpointer data);
  gpointer log_data;
} ScenMpiOptions;

/**
 * scen_scenario_run_mpi: scen_scenario_run across the ranks of the MPI job
 * (after ranks_init), called by every rank with the same scenario and
 * options. Rank 0 validates and plans the sweep as one process would
 * (resume, correlations into OUT/.cache), hands the jobs out on request,
 * longest first, runs its share with @opt->threads threads unless
 * @mopt->dispatcher, then writes the aggregates and fills @report; every
 * other rank resolves the same points and runs the jobs it is given,
 * @opt->threads at a time, into the shared output folder. The files are
 * byte-identical to a one-process run whatever the ranks and threads.
 * A failed point is reported (SCEN_ERROR_FAILED on rank 0) and the others
 * go on. A rank silent for @mopt->timeout_s fails its points ("rank R
 * stopped answering") and no more points are handed out; ranks_finalize
 * then aborts the job. When the launcher kills the job (Open MPI does when a
 * rank dies), rank 0 prints the points in flight on stderr as it receives
 * SIGTERM. @opt->run_hook is not supported (set it to NULL).
 * @report: (out) (optional): rank 0's, as scen_scenario_run's.
 * Errors: those of scen_scenario_run (the same on every rank for an invalid
 * scenario); on other ranks, SCEN_ERROR_FAILED when rank 0 is lost.
 */
gboolean scen_scenario_run_mpi(ScenScenario *sc, const ScenRunOptions *opt,
                               const ScenMpiOptions *mopt, ScenRunReport *report, GError **error);

/**
 * scen_cancel: makes running and pending points stop (the current runs end
 * with SCEN_ERROR_CANCELLED, no file of theirs is left looking complete).
 * Async-signal-safe: only sets a flag. scen_cancel_reset clears it.
 */
void scen_cancel(void);
void scen_cancel_reset(void);

/** scen_keys_describe: the key table as text, one "section.key = default: help" per line. (g_free) */
char *scen_keys_describe(void);

G_END_DECLS

#endif /* DPG_SCENARIOS_H */
