/*
 * scenarios/internal.h: internal to scenarios/: the resolved configuration of
 * one run (one sweep point), the shared caches, and the pieces of a run.
 */
#ifndef DPG_SCENARIOS_INTERNAL_H
#define DPG_SCENARIOS_INTERNAL_H

#include <json-glib/json-glib.h>

#include "scenarios/doc.h"
#include "plot/plot.h"
#include "scenarios/scenarios.h"
#include "scenarios/schema.h"

G_BEGIN_DECLS

/* In the order of privacy.path's choices (scenarios/schema.c), which name
 * them. */
typedef enum {
  SCEN_PATH_AUTO,
  SCEN_PATH_STRUCTURED,
  SCEN_PATH_OBSERVER,
  SCEN_PATH_LOCAL, /* certified bounds around each collusion set (privacy.radius) */
  SCEN_PATH_NONE,
} ScenPath;

typedef struct {
  char *name;
  guint *nodes;
  guint n_nodes;
} ScenCollusion;

/* The structured accounting's view of a protocol (PRIV_PROTOCOL_* or -1). */
typedef struct {
  gint kind; /* PrivProtocol, or -1: not covered */
  guint K;   /* Muffliato */
  char *
      C; /* MF: family name (identity, antipgd, sr, bsr, mafalda, toeplitz, blt) or absolute file */
  guint band;    /* MF: band parameter */
  guint buffers; /* MF: blt's buffers parameter */
  guint samples; /* MF: Mafalda's delivery records in deadline and stale modes, its samples=
                  * parameter (0: the default, or a protocol without one) */
} ScenProtoShape;

/* One run, every value resolved (defaults filled, paths absolute). A
 * scenario key's field is named by its row of the schema (scenarios/schema.c),
 * which resolves and writes it. */
typedef struct ScenConfig {
  /* simulation */
  char *name;
  guint64 seed;
  guint rounds; /* T */
  char *mode;
  ProtoMode mode_parsed;
  double compute_ms;
  /* topology */
  char *graph;    /* absolute path, or NULL */
  char *plugin;   /* [protocol] plugin: absolute path of a .so, or NULL */
  char *generate; /* spec, or NULL */
  gboolean lcc;
  TopoGossipKind gossip;
  char *schedule; /* spec, churn file absolute */
  gboolean schedule_static;
  const TopoGraph *g;              /* borrowed from the scenario's cache */
  guint n;
  /* network */
  char *latency, *loss;
  double loss_p;
  /* protocol */
  char *protocol; /* spec as run (absolute paths); "nonprivate" stays */
  gboolean nonprivate;
  ScenProtoShape shape;
  char *proto_name; /* registry name */
  double sigma;
  gboolean has_mu;
  double mu;
  double clip, lr;
  /* task */
  gboolean has_task;
  char *dataset, *model; /* model NULL: the run's default */
  guint epochs, batches;
  double test_fraction;
  guint eval_every;
  guint eval_nodes, eval_rows; /* ProtoRunConfig's: 0 the default */
  char *partition; /* NULL: uniform */
  /* privacy */
  PrivTrust *trust; /* n_trust distinct models, in the order given */
  guint n_trust;
  MfSensitivity sensitivity;
  guint b;
  double alpha, delta;
  gboolean compare_muffliato;
  ScenPath path_requested;
  ScenPath path;             /* effective: structured, observer, local or none */
  guint radius;              /* privacy.radius (path local), else 0 */
  double tightness;          /* privacy.tightness (path local, no radius), else 0 */
  const char *path_reason;   /* proto_account_plan's (static) or "asked: ..." */
  gboolean dense_accountant; /* privacy.accountant = dense (observer path) */
  ScenCollusion *collusions;
  guint n_collusions;
  /* audit (audit.victims given) */
  gboolean audit;
  guint *audit_victims; /* NULL: all */
  guint n_audit_victims;
  guint audit_trials;
  guint audit_attacks; /* AuditAttack mask */
  /* output */
  char *out_dir;
  gboolean plots;
  char *figure_ext;        /* "svg" (default), "png" or "pdf" */
  double panel_w, panel_h; /* one panel's size, points (figure_size; default 420 x 290) */
  double figure_dpi;       /* PNG resolution */
  /* The files the run reads (graph, plugin, protocol files such as C,
   * churn trace, dataset, measured latency), each as "SHA256  PATH" (the
   * sha256sum line; a folder's, over its files' names and
   * digests): written into the resolved file, so a resumed sweep
   * reruns a point whose inputs changed. NULL-terminated, g_strfreev. */
  char **inputs;
} ScenConfig;

void scen_config_free(ScenConfig *c);

/* A point's values: the sweep axes and the item chosen on each. */
typedef struct {
  const GPtrArray *axes; /* ScenSweepAxis*, may be NULL */
  const guint *items;
} ScenPointValues;

/* What resolution does with [protocol] plugin (a plugin is code: loading it
 * runs its constructors with the user's rights). */
typedef enum {
  SCEN_PLUGINS_CHECK,  /* validate: the file must exist; never loaded (a note says so) */
  SCEN_PLUGINS_REFUSE, /* a run not allowed to load plugins: a plugin is a problem */
  SCEN_PLUGINS_LOAD,   /* a run with ScenRunOptions.allow_plugins: loaded */
} ScenPluginMode;

/* The scenario: the document, its sweep, and caches shared by the points. */
struct ScenScenario {
  ScenDoc *doc;
  ScenPluginMode plugins;
  GPtrArray *notes;         /* char*: what validation did not check, and why */
  GPtrArray *axes;          /* ScenSweepAxis* (after overrides) */
  GHashTable *graphs;       /* cache key -> TopoGraph* (or NULL-valued error entries) */
  GHashTable *graph_errors; /* cache key -> message */
  GHashTable *digests;      /* absolute path -> "SHA256  PATH" (scen_config_to_ini's inputs) */
};

/*
 * scen_config_resolve: the configuration of one point of @sc, its problems
 * added to @ps (located at the key's line, its --set item or the [sweep]
 * line). Graphs are loaded into @sc's cache (call from one thread). Returns
 * NULL when the point has a problem.
 */
ScenConfig *scen_config_resolve(ScenScenario *sc, const ScenPointValues *pv, ScenProblems *ps);

/* What scen_scenario_collect calls with each point that resolves: its
 * configuration (borrowed: freed when the call returns) and its index. */
typedef void (*ScenPointVisit)(const ScenConfig *c, guint64 p, gpointer data);

/*
 * scen_scenario_collect: every problem of @sc (syntax, schema, each point's
 * resolution) into @ps, sorted. The points are resolved one at a time, in
 * order, and freed at once: memory does not grow with their count. @visit
 * (nullable) is called with each point that resolved, while it lives.
 * Resets @sc's notes. O(points x keys), each distinct graph loaded once.
 */
void scen_scenario_collect(ScenScenario *sc, ScenProblems *ps, ScenPointVisit visit, gpointer data);

/* The resolved scenario file of @c (every default written): the keys in the
 * schema's order, each written from its row (its field, or its write hook
 * below). (g_free) */
char *scen_config_to_ini(const ScenConfig *c);

/* The write hooks of the schema's rows whose lines their field alone does
 * not give (ScenKeyWrite): rounds without a task only, sigma or mu, the
 * trust list, every [collusion.NAME], the audit's victims and attacks, the
 * output folder's comment, the panel size when not the default. */
void scen_write_rounds(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
void scen_write_sigma(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
void scen_write_mu(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
void scen_write_trust(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
void scen_write_collusions(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
void scen_write_victims(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
void scen_write_attack(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
void scen_write_out_dir(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
void scen_write_figure_size(GString *out, const ScenConfig *c, const ScenKeyInfo *k);
/* privacy.trust's names: privacy/'s trust table ("ldp|pndp|secldp"; static). */
const char *scen_trust_choices(void);

/* ---- Noise correlations ---- */

/* The key of C_local for @c (g_free), or NULL when the protocol has none. */
char *scen_cmatrix_key(const ScenConfig *c);
/* C_local (T x T) of @c: families by formula, files read, Mafalda optimized.
 * Thread-safe (topologies/ serializes igraph). (g_free) */
double *scen_cmatrix_build(const ScenConfig *c, GError **error);
/* TRUE when @c's C is a C-set file (one C per class of nodes, written by
 * `dpgossip mafalda --classes ... --out FILE`): the run reads it itself
 * (mfdsgd:C=FILE), there is no one T x T C to build. O(1). */
gboolean scen_cmatrix_is_cset(const ScenConfig *c);
/* Reads @c's C-set for the run's T and the graph's n nodes and drops it:
 * FALSE (SCEN_ERROR_INVALID, the file, its line where one is at fault, and
 * the graph's size) when its C are for another T or its node map does not
 * cover exactly the graph's nodes. O(classes T^2 + n). */
gboolean scen_cmatrix_check_cset(const ScenConfig *c, GError **error);

/* scen_calibrate_check: FALSE (SCEN_ERROR_INVALID, the memory needed) when
 * scen_calibrate_sigma's matrices would not fit in memory. O(1). */
gboolean scen_calibrate_check(const ScenConfig *c, GError **error);
/* sigma that makes every node of the run at most c->mu-GDP under LDP, the
 * worst node exactly (up to a 1e-12 relative margin); @C is C_local or NULL
 * (D-SGD, Muffliato, a C-set: scen_cmatrix_is_cset).
 * Errors: scen_calibrate_check's first, the accounting's. */
gboolean scen_calibrate_sigma(const ScenConfig *c, const double *C, double *sigma, GError **error);

/* ---- One run ---- */

typedef struct {
  guint point;           /* index in the sweep (0 without one) */
  const char *cache_dir; /* where C_local files go */
  const double *C;       /* precomputed C_local, or NULL */
  const char *C_file;    /* its file, or NULL */
  void (*progress)(guint point, double fraction, gpointer data);
  gpointer progress_data;
  ScenRunHook run_hook; /* nullable: ScenRunOptions.run_hook */
  gpointer run_hook_data;
} ScenRunContext;

/* One privacy.csv row, kept for the figures. */
typedef struct {
  guint collusion, trust; /* indices into the config's lists */
  guint victim;
  gint distance;
  double rdp, epsilon, muffliato_rdp;
  double mu; /* GDP mu (+inf: unprotected) */
} ScenVictimRow;

/* What a run produced, for the files and the sweep's aggregates. */
typedef struct {
  double sigma_used;
  ProtoRunStats stats;
  guint n_metrics;
  ProtoMetric *metrics;        /* sorted by (step, node) */
  GString *privacy_csv;        /* SCEN_PRIVACY_CSV_COLUMNS rows, without header */
  gboolean privacy_unresolved; /* some victim is (PRIV_UNRESOLVED_NOTE) */
  JsonNode *privacy_summary;   /* array */
  GArray *victims;             /* ScenVictimRow, for the figures */
  GString *audit_csv;          /* SCEN_AUDIT_CSV_COLUMNS rows, or NULL without [audit] */
  gboolean has_task;
  guint T, k, b;
  ProtoEvalSample eval; /* what was evaluated */
} ScenRunOutput;

void scen_run_output_free(ScenRunOutput *o);

/* Runs @c once (no files written). Errors: the modules', SCEN_ERROR_CANCELLED on cancel. */
/* scen_run_config_check: sets up @c's run as scen_run_config does before
 * its first step (the same code: dataset, partition, schedule, memory
 * estimates), without the work that only costs time (Mafalda's optimizer,
 * the calibration itself), and frees it. Errors: scen_run_config's. */
gboolean scen_run_config_check(const ScenConfig *c, GError **error);
/* Equal for configurations whose scen_run_config_check is the same work
 * (they differ in the noise or in an MF-D-SGD's C only). (g_free) */
char *scen_run_config_check_key(const ScenConfig *c);
ScenRunOutput *scen_run_config(const ScenConfig *c, const ScenRunContext *ctx, GError **error);

/* ---- Privacy of the run: the accounting request (scenarios/account.c) ---- */

/* A point's accounting request and the strings and sets it borrows. */
typedef struct {
  ProtoAccountRequest r;
  char *trust;           /* the trust models, comma-separated */
  char seed[24];         /* the seed in decimal */
  ProtoAccountSet *sets; /* the collusion sets by name, in their order */
} ScenAccountRequest;

/*
 * scen_account_request_init: the accounting request of @c's run at noise
 * @sigma with protocol spec @spec (as run: "dsgd" for a non-private run):
 * the run proto_account_request_run_config gives (T, the task's batches,
 * mode, latency, loss, lr, seed) and its privacy: trust models, collusion
 * sets by name, the path (none: no path), radius, sensitivity, alpha,
 * delta, the accountant, Muffliato's comparison where it applies (D-SGD
 * under PNDP on a static gossip with noise), MF-D-SGD's @C (nullable,
 * borrowed). Borrows @c and @spec. Free with scen_account_request_clear.
 * O(collusion sets).
 */
void scen_account_request_init(ScenAccountRequest *q, const ScenConfig *c, const char *spec,
                               double sigma, const double *C);
void scen_account_request_clear(ScenAccountRequest *q);

/*
 * scen_account_job: @q's privacy, validated as `dpgossip account` does
 * (proto_account_validate) and planned on c->g. The structured path takes
 * the run's mode, latency and loss where it accounts its delivery record,
 * the local path those of an asynchronous run (the ball's part of the
 * record, or the observer path's ball, which also takes lr and the
 * accountant, as the observer path does); otherwise they are left out,
 * since that path simulates nothing.
 * Errors: proto_account_validate's and proto_account_job_plan's.
 * Returns: (transfer full) the job, or NULL. O(n + collusion sets).
 */
ProtoAccountJob *scen_account_job(const ScenConfig *c, const ScenAccountRequest *q, GError **error);

/*
 * scen_account_check_path: whether `dpgossip account` takes @c's
 * accounting as its path asks (scen_account_job's validation, before any
 * graph or C exists: MF-D-SGD checked as D-SGD, the run's job checks its
 * C); FALSE with proto_account_validate's error, which names the command
 * line's options. For privacy.path = local, at resolve time. O(collusion
 * sets).
 */
gboolean scen_account_check_path(const ScenConfig *c, GError **error);

/* Whether the structured path accounts @c's run on its delivery record
 * (proto_account_recordable), MF-D-SGD in stale mode excluded (its C is
 * checked by the job alone). O(1). */
gboolean scen_account_recordable(const ScenConfig *c);

/* The largest LDP mu of any node of @c's run at sigma = 1 (mu scales as
 * 1/sigma), by the structured accounting of the request on the run's own
 * schedule (churn included). +inf when a node is unprotected. Errors: the
 * accounting's. */
gboolean scen_account_ldp_worst_mu(const ScenConfig *c, const double *C, double *mu1,
                                   GError **error);

/*
 * scen_account: executes @job (scen_account_job's; NULL with path none:
 * nothing accounted), from @obs's views on the observer path, and writes
 * out->privacy_csv, out->victims and out->privacy_summary, per collusion
 * set then trust model. Errors: the accountants', prefixed "accounting
 * collusion.NAME under TRUST: ". Complexity: the path's.
 */
gboolean scen_account(const ScenConfig *c, ProtoAccountJob *job, ProtoObservedRun *obs,
                      ScenRunOutput *out, GError **error);

/* The audits of [audit] (scenarios/audit.c): for every collusion set,
 * trust model and victim, audit_run's rows into out->audit_csv, at the
 * run's noise @sigma. Errors: the audits'; SCEN_ERROR_FAILED naming the
 * first row whose guarantee an attack finds overstated (one Bonferroni
 * decision over the point's rows). */
#define SCEN_AUDIT_CSV_COLUMNS                                                                     \
  "collusion,attackers,trust,victim,attack,mu,mu_canary,mu_test,mu_empirical,mu_empirical_low,"   \
  "mu_empirical_high,mu_clopper_pearson_low,trials,reconstruction_error,status"
gboolean scen_audit(const ScenConfig *c, double sigma, ScenRunOutput *out, GError **error);

/* ---- Files ---- */

/* Writes @len bytes atomically (temporary file in the same folder, renamed). */
gboolean scen_write_file(const char *path, const char *data, gsize len, GError **error);
/* The same, written piece by piece: new, write..., then commit (renamed into
 * place) or abort (removed). Errors: SCEN_ERROR_IO naming @path. */
typedef struct ScenFileOut ScenFileOut;
ScenFileOut *scen_file_out_new(const char *path, GError **error);
gboolean scen_file_out_write(ScenFileOut *f, const char *data, gsize len, GError **error);
gboolean scen_file_out_commit(ScenFileOut *f, GError **error);
void scen_file_out_abort(ScenFileOut *f);
/* %.17g-shortest round-trip formatting of a double (inf/-inf/nan as words). */
char *scen_format_double(double x);
/* The point's summary.json object (build once: written, then aggregated). */
JsonNode *scen_point_summary(const ScenConfig *c, const ScenRunOutput *o);
/* Writes the point's files into @dir: metrics.csv, metrics_mean.csv,
 * privacy.csv, scenario.resolved.ini, figures (@plots), then @summary as
 * summary.json last. Errors: SCEN_ERROR_IO, the figures'. */
gboolean scen_write_point(const char *dir, const ScenConfig *c, const char *resolved_ini,
                          const ScenRunOutput *o, JsonNode *summary, gboolean plots,
                          GError **error);

/* ---- Figures ---- */

gboolean scen_plot_point(const char *dir, const ScenConfig *c, const ScenRunOutput *o,
                         GError **error);

/* A curve with a band, for scen_plot_lines. */
typedef struct {
  char *label;
  guint n;
  double *x, *y, *lo, *hi;             /* lo/hi may be NULL: no band */
  gboolean dashed, markers, errorbars; /* errorbars: lo/hi as bars, not a band */
} ScenCurve;

void scen_curve_clear(ScenCurve *cv);

/* How scen_plot_lines draws its axes. */
enum {
  SCEN_PLOT_XLOG = 1 << 0,     /* log x (linear when no positive x) */
  SCEN_PLOT_YLOG = 1 << 1,     /* log y (likewise) */
  SCEN_PLOT_XINT = 1 << 2,     /* integer x data (hop distances): whole-number
                              ticks, error-bar series nudged apart */
  SCEN_PLOT_SHARED_Y = 1 << 3, /* one y range for every panel (panels compared side by side) */
};

/* The figure of scen_plot_lines, not saved: one panel per entry of @panels
 * (titles) on the smallest fitting grid, unused cells hidden, whole-number
 * x ticks when every x is a whole number; curve i of a
 * panel gets palette colour i, its own marker, and a line wider than the
 * curves drawn over it, so coinciding curves all stay visible. Errors: the
 * plot module's. */
PlotFigure *scen_plot_lines_figure(const ScenConfig *c, const char *title, guint n_panels,
                                   const char *const *panel_titles, GPtrArray *const *panel_curves,
                                   const char *xlabel, const char *ylabel, guint flags,
                                   GError **error);
/* scen_plot_lines_figure saved as DIR/BASE.EXT, EXT the figure format of
 * @c ([output] figure_format); the path is returned in @path_out (may be
 * NULL). @c gives the panel size and PNG resolution (NULL: defaults). */
gboolean scen_plot_lines(const ScenConfig *c, const char *dir, const char *base, char **path_out,
                         const char *title, guint n_panels, const char *const *panel_titles,
                         GPtrArray *const *panel_curves, const char *xlabel, const char *ylabel,
                         guint flags, GError **error);
/* For tests: when set, scen_plot_lines calls it with every figure it saved
 * (laid out), its base name and its panels' curves, before freeing it.
 * Figures are made from one thread at a time (the caller's). */
typedef void (*ScenPlotInspect)(const char *base, PlotFigure *fig, guint n_panels,
                                GPtrArray *const *panel_curves, gpointer data);
extern ScenPlotInspect scen_plot_inspect;
extern gpointer scen_plot_inspect_data;
/* The section of a collusion set's name: "each" for "each:4". Newly allocated. */
char *scen_collusion_section(const char *name);

/* Cancellation flag (scen_cancel sets it). */
gboolean scen_cancelled(void);
/* The flag itself, for the layers below that poll it (the accounting
 * request's and the audit's cancel): a point's accounting and audit stop on
 * scen_cancel as its run does. */
const gint *scen_cancel_flag(void);

/* ---- A sweep's results (aggregate.c: pure, no file) ---- */

/* One accounting's worst victim (summary.json's privacy entries). */
typedef struct {
  char *collusion, *trust;
  double max_eps; /* +inf: some victim unprotected */
} ScenAccountingMax;

/* What the aggregates need of one point. */
typedef struct {
  guint n_rounds;
  double *round, *train, *test, *acc; /* means over nodes (summary.json's curve) */
  double final_test, final_train, final_acc, tail_test, sigma;
  double max_eps;      /* the first accounting's (the loss-vs-epsilon figure) */
  GArray *accountings; /* ScenAccountingMax, in the point's order */
} ScenPointResult;

/* From a point's summary (built in memory or read back: the same fields).
 * @T: the point's steps. */
ScenPointResult *scen_point_result_new(JsonObject *summary, guint T);
/* A finished point's result from its folder. Errors: SCEN_ERROR_IO naming
 * the file that is missing, unreadable, not a JSON object, or a table whose
 * header is not the current columns (another version wrote it). */
ScenPointResult *scen_point_result_load(const char *dir, guint T, GError **error);
void scen_point_result_free(ScenPointResult *r);
/* Whether the table @path starts with the line @header. Errors:
 * SCEN_ERROR_IO (unreadable, or "FILE:1: the header is not ..."). */
gboolean scen_table_check_header(const char *path, const char *header, GError **error);
/* The worst victim's epsilon of (@collusion, @trust) in @r; NAN when absent. */
double scen_point_result_epsilon(const ScenPointResult *r, const char *collusion,
                                 const char *trust);

/* Points equal on every axis but the seed, with statistics over the seeds. */
typedef struct {
  guint *members; /* point indices, in order */
  guint n;
  guint first; /* first point (its item indices name the group) */
  char *label; /* non-seed values, "name=x, mu=y" */
  /* Test loss, final and over the last 50 steps: arithmetic mean, then the
   * geometric mean and its log-scale interval (scen_log_mean_ci); final
   * accuracy: mean and clipped interval (scen_unit_mean_ci). */
  double final_mean, final_gmean, final_lo, final_hi, tail_mean, tail_gmean, tail_lo, tail_hi;
  double acc_mean, final_acc_lo, final_acc_hi;
  guint n_rounds; /* the first member's curve, over the members with as many rounds */
  /* Per round, the same statistics (test_gmean, test_lo, test_hi as above;
   * acc_curve the mean accuracy, acc_lo, acc_hi its interval). */
  double *round, *train_mean, *test_mean, *test_gmean, *test_lo, *test_hi;
  double *acc_curve, *acc_lo, *acc_hi;
  guint *seeds;
} ScenGroup;

typedef struct {
  gint seed_axis, noise_axis; /* -1: none */
  GArray *groups;             /* ScenGroup */
  GPtrArray *accountings;     /* "collusion\ttrust" of every point, first appearance order */
} ScenAggregate;

/* The groups of @n points (all with results). O(n (axes + rounds)). */
ScenAggregate *scen_aggregate_new(const GPtrArray *axes, guint n, ScenPointResult *const *res);
/* Geometric mean and 95% Student-t interval of @n losses, for a log axis
 * and the tables alike: computed on log10 of the values and mapped back, so
 * the interval is positive and multiplicative. Falls back to the arithmetic
 * mean with no interval (NaN bounds) when a value is not positive or not
 * finite; no interval for n < 2. O(n). */
void scen_log_mean_ci(const double *v, guint n, double *mean, double *lo, double *hi);
/* Arithmetic mean and 95% Student-t interval of @n values in [0, 1]
 * (accuracies), the interval clipped to [0, 1]; NaN bounds for n < 2. O(n). */
void scen_unit_mean_ci(const double *v, guint n, double *mean, double *lo, double *hi);
void scen_aggregate_free(ScenAggregate *ag);
/* An axis's column label: its key, "section.key" when two axes share the key. (g_free) */
char *scen_axis_label(const GPtrArray *axes, guint a);

/* What the sweep's files and figures are made of (all borrowed). */
typedef struct {
  const char *out_dir;
  const GPtrArray *axes;
  guint n;                     /* points */
  ScenConfig *const *cfg;      /* per point */
  char *const *dirs;           /* per point, absolute */
  const char *ini0;            /* point 0's resolved file */
  ScenPointResult *const *res; /* per point */
  const ScenAggregate *ag;
} ScenSweepResults;

/* ---- A sweep's files (aggregate_output.c) ---- */

/* points.csv, groups.csv, aggregate.csv, the tidy privacy.csv,
 * metrics.csv and metrics_mean.csv of every point (concatenated from the points' folders, one
 * point in memory at a time), scenario.resolved.ini. Errors: SCEN_ERROR_IO. */
gboolean scen_write_sweep_tables(const ScenSweepResults *r, GError **error);
/* summary.json, written last (it marks the sweep complete). Errors: SCEN_ERROR_IO. */
gboolean scen_write_sweep_summary(const ScenSweepResults *r, guint failed, const GPtrArray *figures,
                                  GError **error);
/* The curve the loss (@acc FALSE) or accuracy figure draws for @g: the
 * statistics of aggregate.csv's row (test_loss_gmean, test_loss_lo,
 * test_loss_hi; test_accuracy_mean, _lo, _hi), copied. @label is taken.
 * Free with scen_curve_clear and g_free. O(rounds). */
ScenCurve *scen_group_curve(const ScenGroup *g, gboolean acc, char *label);
/* The sweep figures (plots.c): loss.svg (each group's epsilon in its
 * label), loss_vs_epsilon.svg (a panel per accounting, a line per setting
 * of the axes other than the noise and the seed) and privacy_vs_distance.svg
 * (a panel per group, a line per accounting, read from the points'
 * privacy.csv); paths added to @figures. Errors: the plot module's. */
gboolean scen_plot_sweep(const ScenSweepResults *r, GPtrArray *figures, GError **error);

/* ---- The steps of a sweep (sweep.c), shared by the thread pool and MPI ---- */

/* A sweep's resolved points and, once planned, the jobs left to run: one per
 * distinct configuration of the points not yet finished. */
typedef struct ScenSweep ScenSweep;

/*
 * scen_sweep_prepare: validates @sc and resolves every point (configuration,
 * resolved file, folder under the output folder of @opt, nullable). With
 * @plan, also what scen_scenario_run does before the runs: creates the
 * output folder, finds the finished points (resume; counted in
 * @report->skipped, which must be zeroed with its figures array created),
 * groups the others into jobs, computes each distinct Mafalda correlation
 * once into OUT/.cache (with @opt->threads threads) and removes a sweep's
 * summary.json when something is left to run. Without @plan (an MPI worker:
 * it runs the points it is given), nothing is written and @report is unused.
 * Errors: SCEN_ERROR_INVALID (every problem listed), SCEN_ERROR_IO,
 * SCEN_ERROR_FAILED (a correlation could not be computed).
 * Complexity: resolving every point, O(points x keys), plus the correlations.
 */
ScenSweep *scen_sweep_prepare(ScenScenario *sc, const ScenRunOptions *opt, gboolean plan,
                              ScenRunReport *report, GError **error);
void scen_sweep_free(ScenSweep *s);
guint scen_sweep_n_points(const ScenSweep *s);
guint scen_sweep_n_jobs(const ScenSweep *s);
/* Threads per process (after the serial rule for time-varying schedules). */
guint scen_sweep_threads(const ScenSweep *s);
/* The points of job @j (its first one is run, the others share its output). */
const guint *scen_sweep_job_points(const ScenSweep *s, guint j, guint *n_points);
/* The Mafalda correlation file job @j reads, or NULL. */
const char *scen_sweep_job_C_file(const ScenSweep *s, guint j);
/* Point @p's folder (absolute). */
const char *scen_sweep_point_dir(const ScenSweep *s, guint p);
/* The jobs, most expensive first by steps x nodes (ties: index order): the
 * longest ones start first so none is left alone at the end. (g_free) */
guint *scen_sweep_job_order(const ScenSweep *s);
/* Runs the configuration shared by @points (n_points >= 1) once, @C/@C_file
 * its correlation (nullable: built when needed), and writes each point's
 * folder. Thread-safe (schedules included: topologies/ serializes igraph). Errors: the run's. */
gboolean scen_sweep_run_points(ScenSweep *s, const guint *points, guint n_points, const double *C,
                               const char *C_file, GError **error);
/* Runs job @j (planned side) and records its outcome (scen_sweep_job_done). */
void scen_sweep_run_job(ScenSweep *s, guint j);
/* Records job @j's outcome: @error NULL for success, else its message. Thread-safe. */
void scen_sweep_job_done(ScenSweep *s, guint j, const char *error);
/*
 * scen_sweep_finish: after the jobs: counts ran and failed points into
 * @report, writes a complete sweep's aggregates, top resolved file and
 * summary.json. Errors: SCEN_ERROR_CANCELLED, SCEN_ERROR_IO,
 * SCEN_ERROR_FAILED (the message lists the failed points with their errors).
 */
gboolean scen_sweep_finish(ScenSweep *s, ScenRunReport *report, GError **error);

G_END_DECLS

#endif /* DPG_SCENARIOS_INTERNAL_H */
