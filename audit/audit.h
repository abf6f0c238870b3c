/*
 * audit/audit.h: privacy audits (docs/design.md, "Audits"; docs/audits.md):
 * simulate the real protocol with numbers, in two worlds (the victim's
 * gradients a worst-case canary, or zero), and attack what the attacker
 * set received. Three attacks:
 *  - np: the Neyman-Pearson test built from the accountant's view
 *    O = A G + B Z (tight: its trade-off curve is G_mu when the accountant
 *    is right);
 *  - learned: a ridge-regularised Fisher discriminant fitted on training
 *    trials of the received values only (neither A nor B), scored on fresh
 *    trials, so that noise the accountant wrongly thinks independent cannot
 *    hide behind the accountant's own model;
 *  - reconstruction: where the accountant says unprotected, the victim's
 *    gradients recovered from one run's received values.
 * Trials run on threads; trial i of world w draws from a seed derived from
 * (seed, w, i) only, so results do not depend on the thread count.
 * Conventions: public names carry the audit_ prefix; errors travel in the
 * domains of the modules below (PROTO_ERROR, PRIV_ERROR, PLOT_ERROR).
 */
#ifndef DPG_AUDIT_H
#define DPG_AUDIT_H

#include <glib.h>

#include "privacy/privacy.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

/* The attacks, as bits of a mask. */
typedef enum {
  AUDIT_ATTACK_NP = 1u << 0,
  AUDIT_ATTACK_LEARNED = 1u << 1,
  AUDIT_ATTACK_RECONSTRUCTION = 1u << 2,
} AuditAttack;
#define AUDIT_ATTACK_ALL (AUDIT_ATTACK_NP | AUDIT_ATTACK_LEARNED | AUDIT_ATTACK_RECONSTRUCTION)

/* Progress: @done of @total trial runs finished (called from the thread
 * that started the audit, at most ~100 times per audit). */
typedef void (*AuditProgressFunc)(guint64 done, guint64 total, gpointer user_data);

/* Work items and their distribution, as ranks_map's (scenarios/
 * scenarios.h): @map computes the @n items of @func, each rank of an MPI
 * job some, and gives the results in item order on one rank (*@results a
 * g_new array of @n GBytes there, NULL elsewhere). */
typedef GBytes *(*AuditItemFunc)(guint i, gpointer data, GError **error);
typedef gboolean (*AuditMapFunc)(guint n, AuditItemFunc func, gpointer func_data, GBytes ***results,
                                 gpointer map_data, GError **error);

/* One audit: strings and arrays borrowed. */
typedef struct {
  const TopoGraph *graph;
  TopoGossipKind gossip;
  const char *protocol; /* registry spec */
  const char *mode;     /* NULL: sync */
  /* Link latency (NULL: constant:ms=0; any sim_latency_parse spec) and
   * message loss (NULL: none; sim_loss_parse). Every run of the audit
   * draws its latencies and losses from the streams of @seed itself (the
   * delivery seed, ProtoRunConfig.delivery_seed), and only its noise from
   * its own trial seed: every trial receives the same messages in the same
   * gathers, those of `account`'s run of seed @seed, whose accounted mu the
   * audit therefore prints. */
  const char *latency;
  const char *loss;
  double sigma;         /* >= 0 */
  /* Learning rate eta (> 0; 0 or NAN: the default of `account`'s request).
   * A protocol whose noise is added after the step (Zip-DL) is accounted in
   * units of it: the audit must run the very eta the accounting is for. */
  double lr;
  guint T;              /* steps */
  /* Participation interval b (divides T; 0 or 1: every step): the victim's
   * record is used every b steps, the cyclic (T/b, b)-participation the
   * accountant prices (mf_gram_sensitivity2); the canary's steps are the
   * offset whose pattern attains the exact sensitivity. */
  guint b;
  /* Time-varying gossip: a topo_schedule_new spec on @graph seeded by
   * @seed (the same in every trial: its W_t depend on the seed only), as
   * `account --schedule` with the same --seed; NULL or "static": W(@graph). */
  const char *schedule;
  guint dim;            /* synthetic features: models have dim + 1 parameters;
                         * 0: what the canary needs (audit_default_dim) */
  PrivTrust trust;
  const guint *attackers;
  guint n_attackers;
  guint victim;
  guint trials;               /* per world, >= 20 */
  /* Trial i of world w draws its noise from a seed derived from (seed, w,
   * i); the schedule, latencies and losses of every run from @seed. */
  guint64 seed;
  guint threads;              /* >= 1; results do not depend on it */
  AuditProgressFunc progress; /* nullable */
  gpointer progress_data;
  const gint *cancel; /* nullable: when it reads non-zero, the audit stops
                       * with PROTO_ERROR_CANCELLED at the next trial */
  /* Nullable: spreads the scored trials (in blocks of a fixed size, so the
   * results do not depend on how) over the ranks of an MPI job; NULL: all
   * here. Every rank runs the view and the learned attack's fit itself. */
  AuditMapFunc map;
  gpointer map_data;
  /* Internal: audit_run's memo of the protocol's C_local fit, shared by
   * every run of the audit (ProtoRunConfig.c_cache): a fitted strategy
   * (BLT, Mafalda, Toeplitz) is fitted once per audit, not once per trial.
   * Leave NULL. */
  struct ProtoCCache *c_cache;
} AuditConfig;

typedef enum {
  AUDIT_CONSISTENT, /* the interval reaches the accounted mu or lies below it */
  AUDIT_OVERSTATED, /* the whole interval lies above the accounted mu */
  AUDIT_EXPOSED,    /* the accountant says unprotected: reconstruction only */
  AUDIT_REFUSED,    /* reconstruction on a protected victim, or a distinguishing
                     * attack on an unresolved one */
  AUDIT_PARTIAL,    /* exposed, but some of its steps never reach the attackers
                     * noise-free: those steps are not reconstructed, the error
                     * is over the others */
} AuditStatus;

/* One attack's row. */
typedef struct {
  AuditAttack attack;
  double mu;        /* accounted, exact sensitivity (INFINITY: unprotected) */
  double mu_canary; /* what the canary attains under the accountant's X_v (<= mu) */
  /* np: the test's own mu, sqrt(m^T (B B^T)^+ m) on the values it reads (<= mu_canary) */
  double mu_test;
  double mu_emp;                  /* (mean_1 - mean_0) / pooled standard deviation of the scores */
  double mu_emp_se;               /* its standard error */
  double mu_emp_low, mu_emp_high; /* its 95% interval (normal approximation) */
  double mu_cp_low;               /* Clopper-Pearson lower bound (95%, held-out threshold) */
  guint trials;                   /* scored trials per world (learned: those not used to fit) */
  /* relative, NAN when not run (partial: over the steps the view determines) */
  double reconstruction_error;
  AuditStatus status;
} AuditResult;

/* The rows of one (attacker set, victim), and the np scores behind the
 * empirical trade-off curve. */
typedef struct {
  PrivNodeStatus victim_status; /* the accountant's verdict */
  double mu;                    /* accounted (INFINITY: unprotected, NAN: unresolved) */
  AuditResult rows[3];
  guint n_rows;
  double *scores;     /* 2 x trials np scores (world 0, then world 1), or NULL */
  guint n_scores;     /* per world */
  gboolean elsewhere; /* the rows are on another rank of the MPI job (AuditConfig.map):
                       * none here */
  /* Why the distinguishing attacks were refused (an unresolved victim, as
   * `account` warns, or a noise scale outside the double range), for the
   * front end's warning; NULL when they ran or did not apply. */
  char *note;
} AuditReport;

/*
 * audit_run: the attacks of @attacks (a mask of AuditAttack) on @a's
 * victim. One run with provenance gives the attacker's view O = A G + B Z
 * and the accountant's verdict; the distinguishing attacks then share
 * 2 @a->trials runs without provenance (the learned attack fits on the
 * first min(trials / 2, what 64 MB of received values hold) of each world
 * and scores the rest); reconstruction takes one more run.
 * With @attacks = AUDIT_ATTACK_ALL only the attacks that apply give rows
 * (np and learned on protected victims, reconstruction on unprotected
 * ones); a narrower mask gives each asked attack a row, AUDIT_REFUSED or
 * AUDIT_EXPOSED where it does not apply. @out is filled (free with
 * audit_report_clear, also after a failure).
 * Errors: PROTO_ERROR_INVALID_ARGUMENT (no graph or protocol, T, dim,
 * threads, trials, sigma, victim or attackers out of range, b not dividing
 * T, loss in sync mode), SIM_ERROR_PARSE (a latency or loss spec),
 * TOPO_ERROR_* (the schedule's), those of the
 * runs (PROTO_ERROR, ...), PRIV_ERROR_* from the accountant,
 * PROTO_ERROR_FAILED when a trial observes other messages than the
 * provenance run (a protocol whose message pattern depends on its noise) or
 * a protocol adds public constants other than the initial model.
 * Complexity: 2 trials runs; O(r^3) for r observed messages; the learned
 * fit O(N D^2 + D^3) for N fitting trials and D distinct received values.
 */
gboolean audit_run(const AuditConfig *a, guint attacks, AuditReport *out, GError **error);

/* audit_report_clear: frees what @r holds (NULL ignored). */
void audit_report_clear(AuditReport *r);

/* audit_default_dim: the synthetic features the canary needs at @T steps
 * (models of q = min(T, ceil(sqrt(2T)) + 1) parameters). O(1). */
guint audit_default_dim(guint T);

/*
 * audit_schedule_check: builds the schedule @spec (NULL: none, TRUE) on
 * @graph once, as every run of an audit of @seed will, so that a front
 * end refuses it before any run. *@usage is TRUE when the spec itself is
 * wrong (proto_error_is_usage: a spec that does not parse, a value out of
 * range), FALSE when a file it names fails or the schedule does not fit
 * the graph or the memory (`account`'s rule). Errors: topo_schedule_new's,
 * prefixed with "--schedule SPEC: ". O(topo_schedule_new).
 */
gboolean audit_schedule_check(const char *spec, const TopoGraph *graph, TopoGossipKind gossip,
                              guint64 seed, gboolean *usage, GError **error);

const char *audit_status_name(AuditStatus s);
const char *audit_attack_name(AuditAttack a);

/*
 * An audit's options as a front end has them before any graph (strings
 * borrowed): what audit_options_check checks once for `dpgossip audit` and
 * dpg_audit.
 */
typedef struct {
  const char *trust;           /* NULL: pndp */
  gint rounds, interval;       /* T and the participation interval b */
  gint trials, dim, threads;   /* dim 0: what the canary needs */
  gint64 seed;
  double sigma;
  double lr;                   /* 0 or NAN: the default of account's request */
  const char *mode;            /* NULL: sync */
  const char *latency;         /* NULL: constant:ms=0 */
  const char *loss;            /* NULL: none */
  gboolean has_attackers, has_victims;
  const char *figure; /* NULL, or the trade-off figure's file */
} AuditOptions;

/*
 * audit_options_check: @o's values that need no graph, in the order of the
 * messages a user fixes, each naming the command line's option: b positive
 * and dividing T, the trust model (into *@trust; PRIV_TRUST_PNDP when
 * NULL), T >= 1, trials >= 20, dim >= 0, threads >= 1, seed >= 0, sigma
 * finite and >= 0, lr finite and > 0 when given, a dim the canary fits in (audit_default_dim),
 * mode, latency and loss specs that parse, no loss in sync mode, attackers and victims
 * given, a figure's extension plot_format_from_path knows (before the runs,
 * whose table an unknown extension lost). The attack (audit_attack_parse) is the front end's:
 * the command line has one more (onerun).
 * Errors: G_OPTION_ERROR_BAD_VALUE for the rules; priv_trust_parse's
 * prefixed "--trust: ", sim_latency_parse's prefixed "--latency: ",
 * sim_loss_parse's prefixed "--loss: ", proto_mode_parse's prefixed
 * "--mode: "; all of them the user's options
 * (exit status 2). O(length of the specs).
 */
gboolean audit_options_check(const AuditOptions *o, PrivTrust *trust, GError **error);

/*
 * audit_attack_parse: "np", "learned", "reconstruction" or "all" into a
 * mask. Errors: PROTO_ERROR_PARSE naming @text and the choices. O(1).
 */
gboolean audit_attack_parse(const char *text, guint *mask, GError **error);

/*
 * audit_overstated: whether the one-sided lower confidence bound
 * mu_emp - z se, at level 1 - 0.025 / @family (Bonferroni over @family
 * rows, so that a correct accountant is called overstated in any of them
 * with probability at most 2.5%), lies above the accounted mu. FALSE for
 * rows without an empirical mu. O(1).
 */
gboolean audit_overstated(const AuditResult *r, guint family);

/*
 * audit_decide: one decision for the family of the @n rows with an
 * empirical mu (Bonferroni over them, audit_overstated), so that listing
 * more victims does not make a false alarm likelier: sets each such row's
 * status to AUDIT_OVERSTATED or AUDIT_CONSISTENT. Returns how many are
 * overstated. O(n).
 */
guint audit_decide(AuditResult *const *rows, guint n);

/*
 * audit_figure_save: the empirical trade-off curve of @r's np scores (FNR
 * against FPR over every threshold) over the GDP curve G_mu of the accounted
 * mu (paper, GDP trade-off function beta(alpha) = Phi(Phi^-1(1 - alpha) - mu)),
 * titled with @title (nullable), to @path (.svg, .png or .pdf; written to a
 * temporary name and renamed into place).
 * Errors: PROTO_ERROR_INVALID_ARGUMENT when @r has no np scores or no finite
 * accounted mu; PLOT_ERROR_* from the plot. O(N log N) for N trials.
 */
gboolean audit_figure_save(const AuditReport *r, const char *title, const char *path,
                           GError **error);

G_END_DECLS

#endif /* DPG_AUDIT_H */
