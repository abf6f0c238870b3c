/*
 * mf/mafalda.h: Mafalda's strategies for a gossip matrix (dense, Toeplitz,
 * BLT) and their report against the baselines.
 */
#ifndef DPG_MF_MAFALDA_H
#define DPG_MF_MAFALDA_H

#include <glib.h>

#include "mf/base.h"
#include "mf/blt.h"
#include "mf/gram.h"
#include "mf/optimize.h"
#include "mf/strategy.h"

G_BEGIN_DECLS

/*
 * mf_mafalda_c: Mafalda's C_local (paper Alg. 2) for @n nodes gossiping
 * over T = @k * @b steps: mf_optimize (default options, @band) on the
 * post-average workload's Gram matrix of the static @W (n x n) or of the
 * W_t given by @gossip_at (exactly one of the two).
 * Errors: those of mf_gram_check_memory, mf_gram_static or
 *   mf_gram_time_varying, and mf_optimize (not converging included).
 * Returns: the T x T lower-triangular C (g_free), or NULL.
 * Complexity: the Gram matrix's (O(n^3 + n^2 T) static, O(n^3 T^2)
 * time-varying) plus the optimizer's.
 */
double *mf_mafalda_c(guint n, guint T, guint k, guint b, guint band, const double *W,
                     MfGossipAtFunc gossip_at, gpointer user_data, GError **error);

/*
 * mf_mafalda_options_init: the optimizer's options of Mafalda's report for
 * @band (0: none): mf_options_init's, and with a band, a stop once the
 * objective settles (ftol 1e-10: the last iterations to the gradient
 * tolerance move the loss by under 1e-10 relative). The one setting that
 * `dpgossip mafalda` and mf_mafalda_c_gram share, so that they give the same
 * C to the bit for the same Gram matrix. O(1).
 */
void mf_mafalda_options_init(MfOptions *opt, guint band);

/*
 * mf_mafalda_c_gram: Mafalda's C_local for the T x T Gram matrix @H (e.g.
 * the expected one over a gossip schedule), T = @k * @b: mf_optimize with
 * mf_mafalda_options_init(@band), as mf_mafalda_report fits it.
 * Errors: those of mf_optimize. Returns: the T x T lower-triangular C
 * (g_free), or NULL. Complexity: the optimizer's.
 */
double *mf_mafalda_c_gram(const double *H, guint T, guint k, guint b, guint band, GError **error);

/*
 * mf_mafalda_toeplitz: the banded Toeplitz strategy of band @w <= T
 * fitted to the post-average workload of the static reversible @W (n x n)
 * over T = @k @b steps (mf_toeplitz_fit from BSR's coefficients of
 * band min(w, b), warm started from the fit at k / 4 epochs, recursively,
 * when k >= 8; bands past b from the fit at half the band, padded). @c: w
 * doubles, out (c[0] = 1). *@loss (may be NULL): its exact loss.
 * Errors: those of mf_gram_spectral_new and mf_toeplitz_fit.
 * Complexity: O(n^3) then O(n^2 T + T w) per evaluation; no T x T matrix.
 */
gboolean mf_mafalda_toeplitz(const double *W, guint n, guint k, guint b, guint w, double *c,
                             double *loss, GError **error);
/* The same from W's spectral form @g (mf_gram_spectral_new of the
 * post-average workload over T = k b; MF_ERROR_INVALID_ARGUMENT otherwise):
 * no O(n^3) of its own, the same fit to the bit. */
gboolean mf_mafalda_toeplitz_spectral(const MfGramSpectral *g, guint k, guint b, guint w,
                                      double *c, double *loss, GError **error);

/* The same as a dense T x T lower-triangular C (g_free), T = k b; NULL with
 * @error set. O(T^2) more. */
double *mf_mafalda_toeplitz_c(const double *W, guint n, guint T, guint k, guint b, guint w,
                              GError **error);

/*
 * mf_mafalda_blt: the BLT strategy of @d buffers (1 <= d <=
 * MF_BLT_MAX_BUFFERS) fitted to the post-average workload of the
 * static reversible @W (n x n) over T = @k @b steps: at the shortest horizon
 * of the chain k, k/4, k/16, ... (k/4^m < 8 epochs), buffers 1..d one after
 * the other, each from the previous fit plus a zero-weight buffer and from
 * a few spread starts (theta on a geometric grid of time scales up to b, w
 * by least squares on BSR's coefficients); each longer horizon from the
 * shorter's fit (mf_blt_fit). @theta, @w: d doubles each, out. *@loss
 * (nullable): its exact loss. Errors: MF_ERROR_INVALID_ARGUMENT (d, k,
 * b), those of mf_gram_spectral_new and mf_blt_fit.
 * Complexity: O(n^3), then O(n^2 T + b k^2 d^2) per evaluation; no T x T
 * matrix.
 */
gboolean mf_mafalda_blt(const double *W, guint n, guint k, guint b, guint d, double *theta,
                        double *w, double *loss, GError **error);
/* The same from W's spectral form @g, as mf_mafalda_toeplitz_spectral. */
gboolean mf_mafalda_blt_spectral(const MfGramSpectral *g, guint k, guint b, guint d,
                                 double *theta, double *w, double *loss, GError **error);

/* The same as a dense T x T lower-triangular C (g_free), T = k b, and
 * (nullable, d doubles each) its parameters; NULL with @error set. O(T^2)
 * more. */
double *mf_mafalda_blt_c(const double *W, guint n, guint T, guint k, guint b, guint d,
                         double *theta, double *w, GError **error);

/* The strategies of mf_mafalda_report, in output order. */
typedef enum {
  MF_MAFALDA_MAFALDA,  /* the optimum for H (mf_optimize), sensitivity 1 */
  MF_MAFALDA_DPDSGD,   /* C = I */
  MF_MAFALDA_ANTIPGD,  /* C = lower-triangular ones */
  MF_MAFALDA_SR,       /* square root of the prefix sum */
  MF_MAFALDA_BSR,      /* its band-b version */
  MF_MAFALDA_DMF,      /* the optimum for the centralized prefix sum, scored on H */
  MF_MAFALDA_TOEPLITZ, /* the banded Toeplitz strategy fitted to H */
  MF_MAFALDA_BLT,      /* the BLT strategy fitted to H (mf_mafalda_blt) */
  MF_MAFALDA_N_STRATEGIES
} MfMafaldaStrategy;

/* The strategy's key ("mafalda", "dp-d-sgd", "antipgd", "sr", "bsr", "dmf",
 * "toeplitz", "blt"): the CLI's JSON keys and table labels, the API's rows. */
const char *mf_mafalda_strategy_name(MfMafaldaStrategy s);

/* Where mf_mafalda_report calls its checkpoint hook. */
typedef enum {
  MF_MAFALDA_STAGE_GRAM,      /* H (or its trace) is known */
  MF_MAFALDA_STAGE_OPTIMIZED, /* the optimizers and the fixed strategies are done */
  MF_MAFALDA_STAGE_TOEPLITZ,  /* the Toeplitz strategy is fitted (when it is) */
  MF_MAFALDA_STAGE_BLT,       /* the BLT strategy is fitted (when it is) */
} MfMafaldaStage;

typedef struct {
  guint k, b;          /* epochs and batches, T = k b; both >= 1 */
  guint band;          /* band of Mafalda's and DMF's C_local, 1..T; 0 = none */
  guint toeplitz_band; /* band of the fitted Toeplitz strategy, 1..T; 0 = b */
  /* Buffers of the fitted BLT strategy, 1..MF_BLT_MAX_BUFFERS; 0 = not
   * fitted (its loss NaN). Default MF_MAFALDA_BLT_BUFFERS. */
  guint blt_buffers;
  MfWorkload workload;
  /* No dense T x T work: Mafalda and DMF are skipped (NaN), the structured
   * strategies scored from the spectral form, which W must then have. */
  gboolean skip_dense;
  /* The baselines computed beside Mafalda: bit (1u << s) for each
   * MfMafaldaStrategy s (Mafalda's own bit is ignored); the others are
   * NaN. Default MF_MAFALDA_DEFAULT_BASELINES. */
  guint baselines;
  /* Mafalda's optimizer: MfOptions.progress. */
  void (*progress)(guint iteration, double fraction, gpointer data);
  gpointer progress_data;
  /* DMF's optimizer, alongside Mafalda's (nullable): the same hook. */
  void (*dmf_progress)(guint iteration, double fraction, gpointer data);
  gpointer dmf_progress_data;
  const gint *cancel; /* both optimizers poll it: MfOptions.cancel */
  /* Nullable: called at each stage from the calling thread; FALSE with
   * @error set stops the report with that error (e.g. a cancel flag raised
   * between two iterations' checks, a progress line to end). */
  gboolean (*checkpoint)(MfMafaldaStage stage, gpointer data, GError **error);
  gpointer checkpoint_data;
  /* Nullable: the T x T Gram matrix to fit and score on instead of W's (an
   * expected one over a random schedule, mf_gram_iid; borrowed). W is then
   * not read; no spectral form: the fixed strategies are scored on this H
   * and the Toeplitz and BLT fits are skipped (NaN); skip_dense is refused. */
  const double *H;
} MfMafaldaReportOptions;

/* The BLT strategy's buffers by default (the report, `mafalda`, dpg_mafalda). */
#define MF_MAFALDA_BLT_BUFFERS 4

/* Every baseline of mf_mafalda_report. */
#define MF_MAFALDA_ALL_BASELINES                                                                   \
  (((1u << MF_MAFALDA_N_STRATEGIES) - 1) & ~(1u << MF_MAFALDA_MAFALDA))
/* The baselines computed by default: all but DMF, whose optimization costs
 * more than Mafalda's own (it is asked for by name). */
#define MF_MAFALDA_DEFAULT_BASELINES (MF_MAFALDA_ALL_BASELINES & ~(1u << MF_MAFALDA_DMF))

/*
 * mf_mafalda_baselines_parse: @list, comma-separated strategy names
 * (mf_mafalda_strategy_name, not mafalda), "all", "default" or "none",
 * into the bit set of MfMafaldaReportOptions.baselines.
 * Errors: MF_ERROR_INVALID_ARGUMENT naming an unknown or empty entry.
 * O(length of @list).
 */
gboolean mf_mafalda_baselines_parse(const char *list, guint *baselines, GError **error);

/* Zeroes @opt: post-average workload, no band, Toeplitz band b,
 * MF_MAFALDA_BLT_BUFFERS BLT buffers, the default baselines, no hooks. */
void mf_mafalda_report_options_init(MfMafaldaReportOptions *opt);

typedef struct {
  guint n, T, k, b, band, toeplitz_band; /* toeplitz_band resolved (0 -> b) */
  guint blt_buffers;                     /* as asked (0: no BLT strategy) */
  /* The fitted BLT strategy (blt_buffers of each; when it is fitted). */
  double blt_theta[MF_BLT_MAX_BUFFERS], blt_w[MF_BLT_MAX_BUFFERS];
  double trace_H;
  /* Per strategy (MfMafaldaStrategy); NaN when not computed (skip_dense;
   * the Toeplitz fit without a reversible W or for the messages workload).
   * loss = sens^2 tr(H (C^T C)^{-1}) (paper, the MF loss). */
  double loss[MF_MAFALDA_N_STRATEGIES];
  double sensitivity[MF_MAFALDA_N_STRATEGIES];
  /* CPU seconds of each strategy on its own thread (optimizing, fitting,
   * scoring): the strategies run side by side on a possibly loaded machine. */
  double cpu_seconds[MF_MAFALDA_N_STRATEGIES];
  guint iterations; /* Mafalda's L-BFGS iterations (0: skipped) */
  double *C;        /* Mafalda's T x T C_local, row-major; NULL when skipped */
  /* Mafalda's objective tr(H X^{-1}) at the start and after each accepted
   * L-BFGS step on the H it is fitted to (MfResult.history); NULL, 0 when
   * skipped. */
  double *objective_history;
  guint n_objective_history;
  /* Wall seconds: the Gram matrix (and spectral form), Mafalda's
   * optimization, and the baselines (DMF and every score, alongside the
   * optimization, then the Toeplitz fit and Mafalda's score). */
  double seconds_gram, seconds_optimize, seconds_baselines;
} MfMafaldaReport;

void mf_mafalda_report_free(MfMafaldaReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MfMafaldaReport, mf_mafalda_report_free)

/*
 * mf_mafalda_report: Mafalda's C_local for the static gossip @W (n x n,
 * row-major) and (k,b)-participation, compared with the fixed baselines
 * (DP-D-SGD, AntiPGD, SR, BSR), DMF and the banded Toeplitz strategy
 * fitted to the graph, all on the same objective: the loss
 * sens_Pi(C)^2 tr(H (C^T C)^{-1}), H the workload's Gram matrix (paper,
 * the MF loss; Alg. 2 for Mafalda).
 * @W: the gossip matrix; @n: its size.
 * @opt: the options (mf_mafalda_report_options_init).
 * @report: (out): the report (mf_mafalda_report_free), set only on success.
 * @error: return location for a GError, or NULL.
 *
 * Mafalda's optimizer runs on a second thread beside DMF (ftol 1e-10: it
 * stops once its objective settles, its loss then scored exactly on H) and
 * the fixed strategies. The fixed strategies are Toeplitz: scored from C's
 * first column and the spectral form of H when W is reversible, else on the
 * dense H. The Toeplitz strategy is fitted (mf_mafalda_toeplitz) when W is
 * reversible and the workload is post-average. Deterministic for a given
 * BLAS thread count. Callers refuse large horizons early with
 * mf_check_memory and mf_gram_check_memory (before building W).
 *
 * The BLT strategy (@opt->blt_buffers > 0) is fitted (mf_mafalda_blt)
 * under the same conditions as the Toeplitz one. Only the baselines in
 * @opt->baselines are computed (the others NaN).
 *
 * With @opt->H, @W may be NULL and @n is only reported.
 *
 * Errors: MF_ERROR_INVALID_ARGUMENT (k, b, toeplitz_band, blt_buffers,
 * H with skip_dense), those of mf_gram_spectral_new prefixed "--skip-dense: " when
 * @opt->skip_dense, of mf_gram_static, mf_optimize (Mafalda's first;
 * not converging and cancelled included), mf_loss,
 * mf_mafalda_toeplitz, mf_mafalda_blt, and the checkpoint's.
 * Complexity: the Gram matrix's O(n^3 + n^2 T) and two optimizations of
 * O(T^3) per iteration (none when skip_dense); O(n^2 T + T w) per Toeplitz
 * evaluation.
 */
gboolean mf_mafalda_report(const double *W, guint n, const MfMafaldaReportOptions *opt,
                           MfMafaldaReport **report, GError **error);

G_END_DECLS

#endif /* DPG_MF_MAFALDA_H */
