/*
 * audit/internal.h: internal to audit/: the simulated runs, the attacker's
 * view from the provenance run, the trials and the statistics.
 */
#ifndef DPG_AUDIT_INTERNAL_H
#define DPG_AUDIT_INTERNAL_H

#include <glib.h>

#include "audit/audit.h"

G_BEGIN_DECLS

/* Purposes of the audit's seeds (any distinct values). */
#define AUDIT_SEED_PROVENANCE 0xA0D1u
#define AUDIT_SEED_TRIAL 0xA0D2u
#define AUDIT_SEED_RECONSTRUCT 0xA0D3u

/* The victim's gradients of one run: @grads (T x p) or NULL (zero). */
typedef struct {
  guint victim, T;
  gsize p;
  const double *grads;
} AuditGradients;

/* What the attacker set receives in one run, @p values per message, in the
 * order of the bus (the same in every run of a schedule); under PNDP also
 * the messages it sends itself: they carry the values of its own noise,
 * which it knows (the accountant removes that noise from B; the test needs
 * its values to do as much). */
typedef struct {
  PrivTrust trust;
  const PrivTrustModel *model; /* its row (privacy/trust.c) */
  const gboolean *is_member;
  guint n;
  gsize p;
  GArray *values;  /* doubles, p per observed message */
  GPtrArray *rows; /* SimLinvec copies (provenance runs), or NULL */
  GArray *own;     /* gboolean per row: sent by the set (provenance runs) */
  guint count;
} AuditSeen;

void audit_seen_init(AuditSeen *s, const AuditConfig *a, const gboolean *is_member, gboolean rows);
void audit_seen_clear(AuditSeen *s);

/* The attacker's view from the provenance run: the n_msg observed messages,
 * then one row per edge secret the set knows (the accountant's knowledge
 * under PNDP and SecLDP), valued by the secret's sample. */
typedef struct {
  guint r, T, m; /* rows (n_msg + n_known), steps, noise variables */
  guint n_msg, n_known;
  guint *known; /* n_known x (end, end, round) of the known secrets */
  gsize p;       /* model parameters */
  double *Av;    /* r x T: the victim's gradient coefficients */
  double *Q;     /* r x k: orthonormal basis of range(B) */
  double *lam;   /* k eigenvalues of B B^T on it */
  guint k;
  double smax; /* B's largest singular value */
  double *pub; /* r: weight of the initial model in each message */
  PrivNodeStatus status;
  double mu;  /* accounted, exact sensitivity */
  double *Xv; /* T x T, the accountant's block times xscale^2 */
  double xscale; /* the blocks' scale (privacy/blocks.h): X_v = Xv / xscale^2 */
  gboolean silent; /* the set receives no message: mu = 0, no matrix, nothing to attack */
  guint b;      /* participation interval */
  guint offset; /* the participation pattern {offset, offset + b, ...} of the
                 * exact sensitivity (the first of the largest) */
} AuditView;

void audit_view_clear(AuditView *v);

/* Whether the distinguishing attacks can run on @v in double precision: the
 * noise's singular values within [1e-100, 1e100], so that the trials'
 * values, their squares and 1 / lam stay in range (the accounted mu is
 * scale-free and holds outside). O(1). */
gboolean audit_view_attackable(const AuditView *v);

/*
 * audit_schedule_new: a new object of @a's schedule in *@out (NULL for the
 * static W of the graph). A schedule caches what it has computed, so each
 * thread builds its own; all give the same W_t. Errors: topo_schedule_new's.
 * O(topo_schedule_new).
 */
gboolean audit_schedule_new(const AuditConfig *a, TopoSchedule **out, GError **error);

/* The participation interval of @a (1 when not given). */
guint audit_interval(const AuditConfig *a);

/*
 * audit_run_once: runs @a's protocol once at noise multiplier @sigma with
 * @gr's victim gradients (everyone else's zero), on @sched (nullable: the
 * static graph; from audit_schedule_new, used by one thread at a time);
 * fills @seen and @init (p doubles, the public initial model).
 * Errors: the run's. O(the run).
 */
gboolean audit_run_once(const AuditConfig *a, TopoSchedule *sched, double sigma, guint64 seed,
                        gboolean provenance, const AuditGradients *gr, AuditSeen *seen,
                        double *init, GError **error);

/*
 * audit_view_new: the provenance run of @a on @sched (as audit_run_once)
 * (A_v, range(B), the public weights) and the accountant's verdict on it.
 * Errors: as audit_run.
 */
gboolean audit_view_new(const AuditConfig *a, TopoSchedule *sched, const gboolean *is_member,
                        AuditView *v, GError **error);

/* The centered received values y = o - pub init of one run of seed @seed
 * (n_msg x p), then the values of the known secrets in that run, into @y
 * (r x p). Errors: proto_edge_secret_sample's. O(r p). */
gboolean audit_center(const AuditView *v, const AuditSeen *seen, const double *init, guint64 seed,
                      double *y, GError **error);

/*
 * audit_trials: runs trials [@first, @last) of both worlds on @a->threads
 * threads; for trial i of world w, @fn(w, i, y, data) receives its centered
 * received values (r x p, valid during the call; calls from several threads
 * at once for distinct (w, i)). @done/@total: progress counters across
 * phases. Errors: those of the runs; PROTO_ERROR_FAILED for a trial that
 * observes another number of messages than the view.
 */
typedef void (*AuditTrialFunc)(guint world, guint i, const double *y, gpointer data);
gboolean audit_trials(const AuditConfig *a, const AuditView *v, const gboolean *is_member,
                      const double *canary, guint first, guint last, AuditTrialFunc fn,
                      gpointer data, guint64 *done, guint64 total, GError **error);

/*
 * audit_canary: the victim's T gradients (a T x @p array, g_free)
 * attaining max {<X, U> : U psd, diag(U) <= 1} for the T x T block @X as
 * U = V V^T with unit rows in @q <= @p columns (the rest zero): the mixing
 * method (Wang, Chang and Kolter 2017), the factorization mf_sdp_max
 * certifies, from a fixed start (deterministic). Row t has norm Delta = 1.
 * O(sweeps T^2 q), at most 2000 sweeps.
 */
double *audit_canary(const double *X, guint T, guint q, gsize p);

/* The canary's columns q at T steps (see audit_default_dim). */
guint audit_canary_width(guint T);

/*
 * audit_pattern_block: the k x k block of @v->Xv over the steps of @v's
 * participation pattern {offset, offset + b, ...} (k = T / b, set in
 * *@k_out; g_free). O(k^2).
 */
double *audit_pattern_block(const AuditView *v, guint *k_out);

/*
 * audit_canary_pattern: audit_canary on the k x k block of @v->Xv over the
 * steps of @v's participation pattern (k = T / b), those rows of a T x @p
 * array, zero elsewhere (g_free): the direction and participation pattern
 * that attain the exact sensitivity. O(audit_canary on k steps + T p).
 */
double *audit_canary_pattern(const AuditView *v, gsize p);

/* audit_sorted: a sorted copy of the @n values of @x (g_free). O(n log n). */
double *audit_sorted(const double *x, guint n);

/* audit_count_le: how many of the @n sorted values are <= @t. O(log n). */
guint audit_count_le(const double *sorted, guint n, double t);

/*
 * audit_cp_mu_low: a 95% lower confidence bound on the GDP mu from the
 * @N scores of each world (@s0 without, @s1 with the canary; N >= 4): the
 * threshold test s > tau, tau chosen on the first half of each world's
 * scores, evaluated on the second half with one-sided 97.5% Clopper-Pearson
 * upper bounds on its FPR and FNR (jointly 95%, Bonferroni), converted by
 * mu >= Phi^-1(1 - FPR) - Phi^-1(FNR) (the mu-GDP trade-off curve);
 * 0 when that is negative. O(N log N).
 */
double audit_cp_mu_low(const double *s0, const double *s1, guint N);

/*
 * audit_estimate: the empirical mu of scores @s0, @s1 (@N each, N >= 2,
 * Gaussian with one variance in both worlds: linear in Gaussian noise) as
 * the standardised shift, its standard error sqrt(2/N + mu^2/(4N)) (the
 * two-sample effect size's), a 95% normal interval and the Clopper-Pearson
 * bound, into @r. O(N log N).
 */
void audit_estimate(const double *s0, const double *s1, guint N, AuditResult *r);

/*
 * audit_lda: the learned attack's direction: a Fisher discriminant with a
 * ridge on @N0 + @N1 training rows of @D values (@X0, @X1 row-major):
 * w = (S + lambda I)^-1 (mean_1 - mean_0), S the pooled within-world
 * covariance, lambda = 1e-6 tr(S) / D (S's scale, so that values in a
 * degenerate direction still count). Returns w (D doubles, g_free), or
 * NULL with MF_ERROR_NUMERICAL. O((N0 + N1) D^2 + D^3).
 */
/* audit_check_memory: spec_check_memory of @bytes for @what in the audit
 * @a, PRIV_ERROR_MEMORY naming T, the trials and what to shrink. O(1). */
gboolean audit_check_memory(const AuditConfig *a, gsize bytes, const char *what, GError **error);

double *audit_lda(const double *X0, guint N0, const double *X1, guint N1, gsize D, GError **error);

/*
 * audit_reconstruct: on a victim @v calls unprotected, one run with random
 * victim gradients of norm Delta = 1 per step; the gradients recovered by
 * a least-squares left inverse of the noise-free part of the view
 * (I - Q Q^T) A_v, and their relative error, into @r (AUDIT_EXPOSED), or
 * AUDIT_PARTIAL when some step never reaches the attackers noise-free (the
 * error then over the steps the view determines; NAN when none).
 * Errors: the run's; MF_ERROR_NUMERICAL when LAPACK fails.
 * O(the run + r T^2 + r k p).
 */
gboolean audit_reconstruct(const AuditConfig *a, TopoSchedule *sched, const AuditView *v,
                           const gboolean *is_member, AuditResult *r, GError **error);

G_END_DECLS

#endif /* DPG_AUDIT_INTERNAL_H */
