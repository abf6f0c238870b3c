/*
 * mf/optimize.h: the multi-epoch MF optimizer (Mafalda, DMF) and its memory
 * estimates.
 */
#ifndef DPG_MF_OPTIMIZE_H
#define DPG_MF_OPTIMIZE_H

#include <glib.h>

#include "mf/base.h"

G_BEGIN_DECLS

/* How mf_optimize evaluates f and its gradient (MfOptions.evaluation). */
typedef enum {
  /* Banded when a band leaves under 15% of the off-diagonal entries free (the
   * Kronecker metric is then off: the dense path would run plain L-BFGS at
   * O(T^3) per iteration), dense otherwise. The default. */
  MF_EVAL_AUTO = 0,
  MF_EVAL_DENSE,  /* dense T x T work: O(T^3) per evaluation */
  MF_EVAL_BANDED, /* band storage: O(T^2 band) per evaluation; needs a band */
} MfEvaluation;

typedef struct {
  guint memory;         /* L-BFGS pairs kept (default 16) */
  guint max_iterations; /* default 20000 */
  /* Stop when max |projected gradient| <= gtol * f / T (f the objective; at
   * the optimum sum_s X[s,s] (-grad)[s,s] = f, so f/T is the gradient's
   * natural scale). Default 1e-10. */
  double gtol;
  /* Also stop (converged) once f has dropped by no more than ftol * f over
   * the last FTOL_WINDOW = 10 iterations: the objective settled, the gradient
   * still being polished. 0 (default) = off. For baselines, whose loss is
   * then scored exactly anyway. */
  double ftol;
  /* Band w of C_local: C[t,s] = 0 for t - s >= w, i.e. each node keeps w past
   * noises (0 = no band). Since the Cholesky factor of a banded matrix keeps
   * its band, this is the constraint X[s,t] = 0 for |s - t| >= w on X = C^T C,
   * still convex: the optimizer works on X. 1 <= w <= T. */
  guint band;
  /* Which evaluation (default MF_EVAL_AUTO). The banded one keeps X in
   * band storage, factors it by a band Cholesky and forms only the band of
   * the gradient: no T x T matrix but H's Cholesky factor and one work
   * matrix, no dense eigensolver, plain L-BFGS (no metric). */
  MfEvaluation evaluation;
  /* The banded evaluation starts, once T > 256 and k >= 4, from the banded
   * optimum at k/2 epochs (same b and band; ftol 1e-6) on the last T/2 rounds
   * of H, extended to T by repeating its stationary middle, itself warm
   * started the same way. TRUE: start as the dense path does (H^{1/2}
   * tapered to the constraints, one dense eigensolver). Default FALSE. */
  gboolean cold_start;
  gsize max_bytes; /* memory budget, 0 = the machine's physical memory */
  /* Called at each L-BFGS iteration (NULL: not): the iteration and an
   * estimate in [0, 1] of the way to the stopping rule, log(g0/g) /
   * log(g0/target) of the projected gradient (monotone only roughly).
   * Default NULL. */
  void (*progress)(guint iteration, double fraction, gpointer data);
  gpointer progress_data;
  /* Nullable: checked (g_atomic_int_get) at every iteration; nonzero stops
   * the optimizer with MF_ERROR_NOT_CONVERGED "cancelled" (how
   * Ctrl-C in Python stops it). Default NULL. */
  const gint *cancel;
  /* Nullable: a T x T symmetric (row- or column-major) starting guess, e.g.
   * the optimum of a nearby problem (mf_dmf). Read at the free entries
   * only, each class sum then set to 1 by a diagonal congruence; it need not
   * be positive definite: the start is the best point (golden section on the
   * convex f) on the segment from the default start (H^{1/2} tapered) to it,
   * so never worse than the default. Only the path changes: the optimum is
   * the same. Non-finite entries: MF_ERROR_INVALID_ARGUMENT. Default
   * NULL. */
  const double *x0;
} MfOptions;

/* Fills @opt with the defaults above. */
void mf_options_init(MfOptions *opt);

typedef struct {
  guint T, k, b;
  double *X;          /* T x T optimum Gram matrix C^T C */
  double *C;          /* T x T lower-triangular C_local = J chol(J X J)^T J */
  double objective;   /* tr(H X^{-1}); = the loss, since sens_Pi(C) = 1 */
  double gradient;    /* final max |projected gradient| */
  guint iterations;   /* L-BFGS iterations */
  guint evaluations;  /* objective/gradient evaluations */
  gboolean converged; /* the stopping rule was met */
  /* The objective at the start and after each accepted L-BFGS step
   * (n_history entries, the last = objective). The line search accepts a
   * step on sufficient decrease or, once f moves by less than its rounding,
   * on the approximate Wolfe conditions with f_new <= f (1 + 1e-12): so
   * history[i + 1] <= history[i] + 1e-12 |history[i]|. */
  double *history;
  guint n_history;
} MfResult;

void mf_result_free(MfResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MfResult, mf_result_free)

/*
 * mf_optimize:
 * @H: T x T symmetric positive definite workload Gram matrix.
 * @T: its size; must equal @k * @b.
 * @k: epochs (participations per record), >= 1.
 * @b: batches (rounds between participations), >= 1.
 * @opt: options, or NULL for the defaults.
 * @result: (out): the best point reached (always set when the arguments are
 *   valid, even when FALSE is returned with MF_ERROR_NOT_CONVERGED).
 * @error: return location for a GError, or NULL.
 *
 * Minimizes tr(H X^{-1}) over positive definite X with X[s,t] = 0 for s != t
 * in the same class (s = t mod b) and sum_{s in class} X[s,s] = 1 (so
 * sens_Pi = 1), plus the band constraint when asked (docs/design.md, "Mafalda").
 * The equality constraints are eliminated (free entries only, the diagonal
 * kept on the affine set by projecting the gradient), positive definiteness
 * acts as a barrier in the line search, and L-BFGS with @opt->memory pairs
 * does the rest, with a backtracking Armijo search that falls back on the
 * approximate Wolfe conditions (Hager & Zhang) once f changes by less than its
 * rounding error. The problem is convex with a unique optimum. L-BFGS runs in
 * the metric of the Kronecker product S (x) S, S the geometric mean of
 * X^{-1} and X^{-1} H X^{-1}, which nearly matches the Hessian (rebuilt every
 * few iterations while f moves), from H^{1/2} tapered to the constraints:
 * 5 to 20 times fewer iterations than plain L-BFGS from I/k, most on badly
 * conditioned H such as the prefix sum (DMF); with a narrow band (under 15%
 * of the off-diagonal entries free) plain L-BFGS is faster and is used
 * instead, on the banded evaluation (@opt->evaluation): a band Cholesky of X
 * and block-bidiagonal solves against H's Cholesky factor, ~7.5 max(band, 32)
 * T^2 flops per iteration and ~6 T^2 doubles, warm started from the optimum
 * at half the horizon (@opt->cold_start), C from a band Cholesky. Otherwise
 * each iteration costs O(T^3)
 * (a Cholesky, two triangular solves, a rank-T update and four triangular
 * products; ~7 T^3 flops), each rebuild of the metric a generalized
 * symmetric eigensolver, and the memory is about (memory + 16) T^2 doubles
 * (mf_memory_needed). Deterministic for a given BLAS and thread count;
 * multithreaded BLAS may change the last digits.
 *
 * Returns: TRUE on convergence. FALSE with @error set: MF_ERROR_INVALID_ARGUMENT
 * (sizes, T != k*b, options), MF_ERROR_INFEASIBLE (band > T),
 * MF_ERROR_MEMORY (budget, or T > 46340), MF_ERROR_NUMERICAL (H not
 * positive definite), MF_ERROR_NOT_CONVERGED (then *@result holds the best
 * point reached, with converged = FALSE).
 */
gboolean mf_optimize(const double *H, guint T, guint k, guint b, const MfOptions *opt,
                     MfResult **result, GError **error);

/*
 * mf_dmf: DMF, the multi-epoch MF optimum for the centralized prefix-sum
 * workload (mf_gram_prefix_sum) over T = @k * @b rounds: mf_optimize
 * on that Gram matrix with @opt, started (MfOptions.x0) from the DMF
 * optimum at k/2 epochs stretched to k epochs (recursively, while k >= 32),
 * unless @opt->x0 is already set. Same problem, same stopping rule, same
 * optimum as mf_optimize from its own start: only the path is shorter
 * (this workload's optimum is nearly stationary in time, so the stretched
 * start lies within a fraction of a percent of it). Independent of any
 * graph. @opt's progress callback is only called for the full problem; a
 * shorter problem that fails only costs the warm start.
 * Errors: MF_ERROR_INVALID_ARGUMENT (k or b zero, k*b overflows) and those
 *   of mf_optimize on the full problem (with *@result as it says).
 * Complexity: that of mf_optimize at T, plus about 1/7 of it for the
 *   shorter problems (cost ~ T^3); memory as mf_optimize at T.
 */
gboolean mf_dmf(guint k, guint b, const MfOptions *opt, MfResult **result, GError **error);

/*
 * mf_memory_needed: bytes mf_optimize needs for a T x T problem
 * with @memory L-BFGS pairs (G_MAXSIZE when it overflows), so callers can
 * report it before trying.
 */
gsize mf_memory_needed(guint T, guint memory);

/*
 * mf_check_memory: fails with MF_ERROR_MEMORY, saying how much would be
 * needed, when mf_optimize on a T x T problem cannot fit in @max_bytes
 * (0 = physical memory). Lets a caller refuse a horizon before any work.
 */
gboolean mf_check_memory(guint T, guint memory, gsize max_bytes, GError **error);

/*
 * mf_memory_needed_band, mf_check_memory_band: the same for the
 * path mf_optimize takes with @band (0 = none) and @b batches under
 * MF_EVAL_AUTO: the dense estimate, or ~6 T^2 + (2 memory + 14) T band
 * doubles for the banded evaluation. O(T).
 */
gsize mf_memory_needed_band(guint T, guint b, guint band, guint memory);
gboolean mf_check_memory_band(guint T, guint b, guint band, guint memory, gsize max_bytes,
                              GError **error);

G_END_DECLS

#endif /* DPG_MF_OPTIMIZE_H */
