/*
 * privacy/privacy.h: privacy accounting and the Mafalda optimizer.
 *
 * Matrices are dense, row-major arrays of doubles (T x T matrices are indexed
 * M[s * T + t]); n x n gossip matrices W are row-stochastic in practice but
 * nothing here requires it. Time is 0-based: rounds 0 .. T-1.
 *
 * Participation (DESIGN.md, "Participation"): T = k * b rounds, k epochs of b
 * batches; a record participates in the rounds pi_j = {j, j+b, ..., j+(k-1)b}
 * for one offset j in [0, b) ("cyclic (k,b)-participation").
 *
 * Conventions: public names carry the priv_ prefix (types Priv*); errors travel
 * as GError in the PRIV_ERROR domain; library code never prints or exits. Each
 * function owns what it allocates unless its comment says otherwise: arrays
 * returned by priv_* functions are g_malloc'd and freed with g_free.
 */
#ifndef DPG_PRIVACY_H
#define DPG_PRIVACY_H

#include <glib.h>

#include "topologies/topologies.h"

G_BEGIN_DECLS

#define PRIV_ERROR (priv_error_quark())
GQuark priv_error_quark(void);

typedef enum {
  PRIV_ERROR_INVALID_ARGUMENT, /* a parameter out of its documented range */
  PRIV_ERROR_MEMORY,           /* the problem needs more memory than allowed */
  PRIV_ERROR_NUMERICAL,        /* a factorization failed (matrix not positive definite...) */
  PRIV_ERROR_NOT_CONVERGED,    /* an iterative method stopped before its tolerance */
  PRIV_ERROR_INFEASIBLE,       /* the constraints admit no solution */
} PrivError;

/* ===================================================================== */
/* Structured workload Gram matrices (DESIGN.md, "Mafalda")              */
/* ===================================================================== */

/*
 * The two workloads of MF-D-SGD under LDP with local correlation
 * C = C_local kron I_n (paper, Lemma "equivalent optimization problem"):
 *   PRIV_WORKLOAD_POST_AVERAGE: the models after averaging, (I_T kron W) W_T;
 *     block (t, s) is W_t W_{t-1} ... W_s for t >= s (W^{t-s+1} when static).
 *   PRIV_WORKLOAD_MESSAGES: the messages (models before averaging), W_T;
 *     block (t, s) is W_{t-1} ... W_s (W^{t-s}; the identity when t = s).
 * In both cases H = sum_i A_i^T A_i (T x T), A_i = node i's columns.
 */
typedef enum {
  PRIV_WORKLOAD_POST_AVERAGE,
  PRIV_WORKLOAD_MESSAGES,
} PrivWorkload;

/* Parses "post-average" or "messages". Errors: PRIV_ERROR_INVALID_ARGUMENT. */
gboolean priv_workload_parse(const char *name, PrivWorkload *out, GError **error);
/* The name priv_workload_parse accepts for @w (static string). */
const char *priv_workload_name(PrivWorkload w);

/* How priv_gram_static computes the Frobenius products <W^a, W^c>_F. */
typedef enum {
  /* EIGEN when W is reversible (D W symmetric for a positive diagonal D, as
   * uniform, Metropolis and max-degree gossip are), POWERS otherwise. */
  PRIV_GRAM_AUTO,
  /* W = D^{-1/2} S D^{1/2} with S = U diag(l) U^T symmetric: then
   * <W^a, W^c>_F = sum_ij l_i^a M_ij l_j^c with M = (U^T D^-1 U) o (U^T D U)
   * (o: entrywise product). O(n^3 + n^2 T + n T^2) time, O(n^2 + nT + T^2)
   * memory. Fails with PRIV_ERROR_INVALID_ARGUMENT if W is not reversible. */
  PRIV_GRAM_EIGEN,
  /* Stores the T powers of W and takes their Gram matrix. O(n^3 T + n^2 T^2)
   * time, O(n^2 T + T^2) memory; any W. */
  PRIV_GRAM_POWERS,
} PrivGramMethod;

/*
 * priv_gram_static:
 * @W: n x n gossip matrix, row-major.
 * @n: number of nodes, >= 1.
 * @T: number of rounds, >= 1.
 * @workload: which workload (see PrivWorkload).
 * @method: how to compute the Frobenius products (see PrivGramMethod).
 * @max_bytes: memory budget for the computation, 0 = the machine's physical
 *   memory; exceeding it is PRIV_ERROR_MEMORY with the amount needed.
 * @error: return location for a GError, or NULL.
 *
 * Computes H[s,s'] = sum_{t=max(s,s')}^{T-1} <W^{t-s+e}, W^{t-s'+e}>_F, e = 1
 * (post-average) or 0 (messages), by the recursion
 * H[s,s'] = F[T-1-s, T-1-s'] + H[s+1, s'+1], F[a,c] = <W^{a+e}, W^{c+e}>_F
 * (DESIGN.md, "Mafalda"; paper eq. "gram workload def"). Never builds an
 * nT x nT matrix.
 *
 * Returns: the T x T matrix H (g_free), or NULL with @error set:
 * PRIV_ERROR_INVALID_ARGUMENT (sizes, non-finite W, EIGEN on a non-reversible
 * W), PRIV_ERROR_MEMORY, PRIV_ERROR_NUMERICAL (eigensolver failure, overflow).
 */
double *priv_gram_static(const double *W, guint n, guint T, PrivWorkload workload,
                         PrivGramMethod method, gsize max_bytes, GError **error);

/*
 * PrivGossipAtFunc: returns W_t, the n x n row-major gossip matrix of round t
 * (0 <= t < T). The pointer must stay valid until the next call.
 */
typedef const double *(*PrivGossipAtFunc)(guint t, gpointer user_data);

/*
 * priv_gram_time_varying:
 * @n, @T, @workload, @error: as for priv_gram_static.
 * @gossip_at: gives W_t; called O(T^2) times, t in decreasing runs.
 * @user_data: passed to @gossip_at.
 *
 * H for time-varying gossip (paper appendix C, "time-varying gossip"), by a
 * backward recursion: G_s = W_s^T (I + G_{s+1}) W_s (post-average) or
 * I + W_s^T G_{s+1} W_s (messages), G_T = 0, so that G_s = sum_{t>=s} P(t,s)^T
 * P(t,s); then H[s,s'] = tr(Y_s) with Y_{s'} = G_{s'}, Y_s = W_s^T Y_{s+1}
 * for s < s'. O(n^3 T^2) time, O(n^2 + T^2) memory.
 *
 * Returns: H (g_free), or NULL with @error set (PRIV_ERROR_INVALID_ARGUMENT,
 * PRIV_ERROR_MEMORY).
 */
double *priv_gram_time_varying(guint n, guint T, PrivWorkload workload,
                               PrivGossipAtFunc gossip_at, gpointer user_data,
                               GError **error);

/*
 * priv_gram_node: node @node's own Gram matrix H_i = A_i^T A_i (static W),
 * for per-node Mafalda; the sum over nodes of H_i is priv_gram_static's H.
 * F_i[a,c] = <W^{a+e} e_i, W^{c+e} e_i> from the T vectors W^a e_i:
 * O(n^2 T + n T^2) time, O(n T + T^2) memory. @node < @n; other parameters
 * and errors as for priv_gram_static.
 */
double *priv_gram_node(const double *W, guint n, guint node, guint T,
                       PrivWorkload workload, gsize max_bytes, GError **error);

/*
 * priv_gram_check_memory: fails with PRIV_ERROR_MEMORY, saying how much would
 * be needed, when the dense n x n W plus priv_gram_static's work on a
 * reversible W (the EIGEN path: about 4 n^2 + 2 nT + 2 T^2 doubles in all)
 * exceed @max_bytes (0 = physical memory). Lets a caller refuse a graph
 * before densifying its gossip matrix. O(1).
 */
gboolean priv_gram_check_memory(guint n, guint T, gsize max_bytes, GError **error);

/*
 * priv_gram_prefix_sum: the Gram matrix A^T A of the centralized prefix-sum
 * workload (A lower-triangular ones): (A^T A)[s,t] = T - max(s,t). The
 * workload DMF (centralized multi-epoch MF) optimizes for. O(T^2).
 * Returns NULL with @error set when T is 0 or T*T overflows.
 */
double *priv_gram_prefix_sum(guint T, GError **error);

/* ===================================================================== */
/* Participation, sensitivity and loss                                    */
/* ===================================================================== */

/*
 * priv_mf_sensitivity2_gram: the bound form of sens_Pi^2 for X = C^T C
 * (T x T, T = k*b): max over j in [0,b) of sum_{s,t in pi_j} |X[s,t]|
 * (paper Thm. "main", DESIGN.md "Participation"). O(k^2 b). Returns NaN when
 * T != k*b or k, b is 0.
 */
double priv_mf_sensitivity2_gram(const double *X, guint T, guint k, guint b);

/* Same for a T x T strategy matrix C (X = C^T C, only the needed entries are
 * formed): O(k^2 b T). Returns NaN on bad sizes. */
double priv_mf_sensitivity2(const double *C, guint T, guint k, guint b);

/*
 * priv_mf_loss: L(C) = sens_Pi(C)^2 tr(H (C^T C)^{-1}) (paper eq.
 * "optim loss MAFALDA"), C square invertible (lower-triangular C takes the
 * triangular path). O(T^3). Returns the loss, or NaN with @error set
 * (PRIV_ERROR_INVALID_ARGUMENT, PRIV_ERROR_NUMERICAL when C is singular).
 */
double priv_mf_loss(const double *H, const double *C, guint T, guint k, guint b,
                    GError **error);

/* The fixed strategies Mafalda is compared with. */
typedef enum {
  PRIV_BASELINE_IDENTITY, /* C = I: DP-D-SGD, independent noise */
  PRIV_BASELINE_ANTIPGD,  /* C = lower-triangular ones: noise z_t - z_{t-1} */
  PRIV_BASELINE_SR,       /* C = A^{1/2}, A the prefix sum: lower-triangular Toeplitz
                           * with the coefficients of (1-x)^{-1/2}, binom(2j,j)/4^j */
  PRIV_BASELINE_BSR,      /* SR's coefficients cut to the band j < @band */
} PrivBaseline;

/*
 * priv_mf_baseline: the T x T matrix C of @which (row-major, lower
 * triangular). @band is used by PRIV_BASELINE_BSR only (1 <= band; band >= T
 * is SR). O(T^2). Returns NULL with @error set on bad sizes.
 */
double *priv_mf_baseline(PrivBaseline which, guint T, guint band, GError **error);

/* ===================================================================== */
/* The multi-epoch MF optimizer (Mafalda, DMF)                            */
/* ===================================================================== */

typedef struct {
  guint memory;         /* L-BFGS pairs kept (default 16) */
  guint max_iterations; /* default 20000 */
  /* Stop when max |projected gradient| <= gtol * f / T (f the objective; at
   * the optimum sum_s X[s,s] (-grad)[s,s] = f, so f/T is the gradient's
   * natural scale). Default 1e-10. */
  double gtol;
  /* Band w of C_local: C[t,s] = 0 for t - s >= w, i.e. each node keeps w past
   * noises (0 = no band). Since the Cholesky factor of a banded matrix keeps
   * its band, this is the constraint X[s,t] = 0 for |s - t| >= w on X = C^T C,
   * still convex: the optimizer works on X. 1 <= w <= T. */
  guint band;
  gsize max_bytes; /* memory budget, 0 = the machine's physical memory */
} PrivMfOptions;

/* Fills @opt with the defaults above. */
void priv_mf_options_init(PrivMfOptions *opt);

typedef struct {
  guint T, k, b;
  double *X;          /* T x T optimum Gram matrix C^T C */
  double *C;          /* T x T lower-triangular C_local = J chol(J X J)^T J */
  double objective;   /* tr(H X^{-1}); = the loss, since sens_Pi(C) = 1 */
  double gradient;    /* final max |projected gradient| */
  guint iterations;   /* L-BFGS iterations */
  guint evaluations;  /* objective/gradient evaluations */
  gboolean converged; /* the stopping rule was met */
} PrivMfResult;

void priv_mf_result_free(PrivMfResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivMfResult, priv_mf_result_free)

/*
 * priv_mf_optimize:
 * @H: T x T symmetric positive definite workload Gram matrix.
 * @T: its size; must equal @k * @b.
 * @k: epochs (participations per record), >= 1.
 * @b: batches (rounds between participations), >= 1.
 * @opt: options, or NULL for the defaults.
 * @result: (out): the best point reached (always set when the arguments are
 *   valid, even when FALSE is returned with PRIV_ERROR_NOT_CONVERGED).
 * @error: return location for a GError, or NULL.
 *
 * Minimizes tr(H X^{-1}) over positive definite X with X[s,t] = 0 for s != t
 * in the same class (s = t mod b) and sum_{s in class} X[s,s] = 1 (so
 * sens_Pi = 1), plus the band constraint when asked (DESIGN.md, "Mafalda").
 * The equality constraints are eliminated (free entries only, the diagonal
 * kept on the affine set by projecting the gradient), positive definiteness
 * acts as a barrier in the line search, and L-BFGS with @opt->memory pairs
 * does the rest, with a backtracking Armijo search that falls back on the
 * approximate Wolfe conditions (Hager & Zhang) once f changes by less than its
 * rounding error. The problem is convex with a unique optimum. Each iteration
 * costs O(T^3) (one Cholesky, two triangular solves, one rank-T update;
 * ~3.3 T^3 flops) and the memory is about (memory + 11) T^2 doubles.
 *
 * Returns: TRUE on convergence. FALSE with @error set: PRIV_ERROR_INVALID_ARGUMENT
 * (sizes, T != k*b, options), PRIV_ERROR_INFEASIBLE (band > T),
 * PRIV_ERROR_MEMORY (budget, or T > 46340), PRIV_ERROR_NUMERICAL (H not
 * positive definite), PRIV_ERROR_NOT_CONVERGED (then *@result holds the best
 * point reached, with converged = FALSE).
 */
gboolean priv_mf_optimize(const double *H, guint T, guint k, guint b,
                          const PrivMfOptions *opt, PrivMfResult **result, GError **error);

/*
 * priv_mf_factor_from_gram: C = J chol(J X J)^T J, J reversing indices: the
 * lower-triangular C with C^T C = X (streamable: noise t only needs the past).
 * O(T^3). Returns NULL with PRIV_ERROR_NUMERICAL when X is not positive
 * definite.
 */
double *priv_mf_factor_from_gram(const double *X, guint T, GError **error);

/*
 * priv_mf_memory_needed: bytes priv_mf_optimize needs for a T x T problem
 * with @memory L-BFGS pairs (G_MAXSIZE when it overflows), so callers can
 * report it before trying.
 */
gsize priv_mf_memory_needed(guint T, guint memory);

/*
 * priv_mf_check_memory: fails with PRIV_ERROR_MEMORY, saying how much would be
 * needed, when priv_mf_optimize on a T x T problem cannot fit in @max_bytes
 * (0 = physical memory). Lets a caller refuse a horizon before any work.
 */
gboolean priv_mf_check_memory(guint T, guint memory, gsize max_bytes, GError **error);

/*
 * priv_matrix_write_csv: writes the @rows x @cols row-major @M to @path as CSV
 * (one row per line, values "%.17g" with a '.' decimal point, so they read
 * back exactly). The text goes to a temporary file renamed over @path: a
 * crash never leaves a half-written file. Errors: G_FILE_ERROR (the message
 * names the file). O(rows cols).
 */
gboolean priv_matrix_write_csv(const char *path, const double *M, guint rows, guint cols,
                               GError **error);

/* The machine's physical memory in bytes (the default budget). */
gsize priv_physical_memory(void);

G_END_DECLS

#endif /* DPG_PRIVACY_H */
