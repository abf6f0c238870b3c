/*
 * privacy/privacy.h: privacy accounting and the Mafalda optimizer.
 *
 * Matrices are dense, row-major arrays of doubles (T x T matrices are indexed
 * M[s * T + t]); n x n gossip matrices W are row-stochastic in practice but
 * nothing here requires it. Time is 0-based: rounds 0 .. T-1.
 *
 * Participation (docs/design.md, "Participation"): T = k * b rounds, k epochs of b
 * batches; a record participates in the rounds pi_j = {j, j+b, ..., j+(k-1)b}
 * for one offset j in [0, b) ("cyclic (k,b)-participation").
 *
 * Conventions: public names carry the priv_ prefix (types Priv*); errors travel
 * as GError in the PRIV_ERROR domain; library code never prints or exits. Each
 * function owns what it allocates unless its comment says otherwise: arrays
 * returned by priv_* functions are g_malloc'd and freed with g_free.
 *
 * The rule every privacy number here follows: a guarantee that cannot be
 * computed reliably (underflow, overflow, cancellation, a failed solver) is an
 * error or "no protection" (+inf), never a smaller number. So: scale factors
 * (sigma, the size of C_local) are kept out of quantities that would leave the
 * double range (PrivBlocks.scale) and applied last; a product that overflows
 * is +inf; a positive quantity that underflows is rounded up to the smallest
 * positive double, not to 0; NaN never becomes 0 (beware MAX(NaN, 0) = 0).
 * tests/privacy/test_extremes.c feeds each computation its extreme inputs.
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
/* Structured workload Gram matrices (docs/design.md, "Mafalda")              */
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
 * (docs/design.md, "Mafalda"; paper eq. "gram workload def"). Never builds an
 * nT x nT matrix.
 *
 * Returns: the T x T matrix H (g_free), or NULL with @error set:
 * PRIV_ERROR_INVALID_ARGUMENT (sizes, non-finite W, EIGEN on a non-reversible
 * W), PRIV_ERROR_MEMORY, PRIV_ERROR_NUMERICAL (eigensolver failure, overflow).
 */
double *priv_gram_static(const double *W, guint n, guint T, PrivWorkload workload,
                         PrivGramMethod method, gsize max_bytes, GError **error);

/*
 * PrivGramSpectral: H of a static reversible W without its T^2 entries:
 * H[s,s'] = sum_{t >= max(s,s')} (l^{t-s+e})^T M l^{t-s'+e}, l the
 * eigenvalues of W and M the n x n matrix of priv_gram_static's EIGEN method
 * (e = 1 post-average, 0 messages). n + n^2 doubles whatever T.
 */
typedef struct {
  guint n, T, e;
  double *lambda; /* n eigenvalues */
  double *M;      /* n x n, symmetric positive semidefinite */
} PrivGramSpectral;

/*
 * priv_gram_spectral_new: the spectral form of H for @W (n x n, row-major,
 * reversible), @T rounds and @workload. Errors: PRIV_ERROR_INVALID_ARGUMENT
 * (sizes, non-finite or non-reversible W), PRIV_ERROR_NUMERICAL
 * (eigensolver). O(n^3) time, O(n^2) memory.
 */
PrivGramSpectral *priv_gram_spectral_new(const double *W, guint n, guint T, PrivWorkload workload,
                                         GError **error);
void priv_gram_spectral_free(PrivGramSpectral *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivGramSpectral, priv_gram_spectral_free)

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
double *priv_gram_time_varying(guint n, guint T, PrivWorkload workload, PrivGossipAtFunc gossip_at,
                               gpointer user_data, GError **error);

/*
 * priv_gram_node: node @node's own Gram matrix H_i = A_i^T A_i (static W),
 * for per-node Mafalda; the sum over nodes of H_i is priv_gram_static's H.
 * F_i[a,c] = <W^{a+e} e_i, W^{c+e} e_i> from the T vectors W^a e_i:
 * O(n^2 T + n T^2) time, O(n T + T^2) memory. @node < @n; other parameters
 * and errors as for priv_gram_static.
 */
double *priv_gram_node(const double *W, guint n, guint node, guint T, PrivWorkload workload,
                       gsize max_bytes, GError **error);

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
 * (paper Thm. "main", docs/design.md "Participation"). O(k^2 b). Returns NaN when
 * T != k*b or k, b is 0.
 */
double priv_mf_sensitivity2_gram(const double *X, guint T, guint k, guint b);

/* Same for a T x T strategy matrix C (X = C^T C, only the needed entries are
 * formed): O(k^2 b T). Returns NaN on bad sizes. Computed on C / 2^e and
 * scaled back, so entries of 1e154 or 1e-300 neither overflow nor
 * underflow on the way; +inf when the value itself overflows, 0 when it is
 * below the normal range (callers refuse a C of zero sensitivity). */
double priv_mf_sensitivity2(const double *C, guint T, guint k, guint b);

/*
 * priv_mf_loss: L(C) = sens_Pi(C)^2 tr(H (C^T C)^{-1}) (paper eq.
 * "optim loss MAFALDA"), C square invertible (lower-triangular C takes the
 * triangular path). O(T^3). Returns the loss, or NaN with @error set
 * (PRIV_ERROR_INVALID_ARGUMENT, PRIV_ERROR_NUMERICAL when C is singular).
 */
double priv_mf_loss(const double *H, const double *C, guint T, guint k, guint b, GError **error);

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

/*
 * priv_mf_baseline_coefficients: the first column c[0 .. *@width) of the
 * lower-triangular Toeplitz C of @which (C[t,s] = c[t-s], zero from the
 * width on): identity 1, AntiPGD T ones, SR T binomials, BSR @band of them.
 * Errors as priv_mf_baseline's. O(T).
 */
double *priv_mf_baseline_coefficients(PrivBaseline which, guint T, guint band, guint *width,
                                      GError **error);

/*
 * priv_mf_sensitivity2_toeplitz: priv_mf_sensitivity2 of the lower-triangular
 * Toeplitz C with first column @c[0 .. @width) (zero beyond), T = @k * @b,
 * from cumulative autocorrelations of c: O(k T) time, O(T) memory instead of
 * O(k^2 b T) on T^2 entries. NaN on bad sizes.
 */
double priv_mf_sensitivity2_toeplitz(const double *c, guint width, guint T, guint k, guint b);

/*
 * priv_mf_loss_toeplitz: priv_mf_loss of the lower-triangular Toeplitz C
 * with first column @c[0 .. @width), c[0] != 0, on the H of @g: the first
 * column a of C^-1 by series inversion, then
 * tr(H (C^T C)^-1) = sum_m (T - m) p_m^T M p_m with p_m(l) = l^e sum_{j<=m}
 * a_j l^{m-j} (the m-th block of the block-Toeplitz workload times C^-1 kron
 * I, in the eigenbasis of W). O(T min(width, T) + n^2 T) time, O(T + n^2)
 * memory: no T x T matrix. Returns NaN with @error set
 * (PRIV_ERROR_INVALID_ARGUMENT on sizes, PRIV_ERROR_NUMERICAL when C is
 * singular or the loss not finite).
 */
double priv_mf_loss_toeplitz(const PrivGramSpectral *g, const double *c, guint width, guint k,
                             guint b, GError **error);

/*
 * priv_mf_toeplitz_trace: tr(C^-T H C^-1) for the lower-triangular Toeplitz
 * C^-1 with first column @a (g->T entries), from the spectral form of H:
 * sum_m (T - m) p_m^T M p_m, p_m(l) = l^e sum_{j<=m} a_j l^(m-j). O(n^2 T)
 * time, O(n^2) memory.
 */
double priv_mf_toeplitz_trace(const PrivGramSpectral *g, const double *a);

/*
 * priv_mf_toeplitz_trace_grad: priv_mf_toeplitz_trace(@g, @a) and its
 * gradient in a, written to @ga (g->T doubles): the adjoint of the p_m
 * recursion. O(n^2 T) time, O(n T) memory.
 */
double priv_mf_toeplitz_trace_grad(const PrivGramSpectral *g, const double *a, double *ga);

/*
 * priv_mf_toeplitz_banded_loss: the loss of the lower-triangular Toeplitz C
 * with first column @c[0 .. @w) under (@k, @b)-participation (T = g->T = k
 * b), and when @grad is not NULL its gradient in c (w doubles). With w <= b,
 * X = C^T C has no entry between two participations of a record and
 * sens_Pi^2 = k |c|^2 is smooth; wider bands add |X[s,t]| terms, whose
 * gradient is a subgradient at X[s,t] = 0. O(n^2 T + k T + T w + k w^2 / b)
 * time, O(n T) memory (two banded back substitutions carry d tau / d a to
 * c). NaN on bad sizes or c[0] = 0.
 */
double priv_mf_toeplitz_banded_loss(const PrivGramSpectral *g, const double *c, guint w, guint k,
                                    guint b, double *grad);

/*
 * priv_mf_toeplitz_fit: the banded Toeplitz strategy of band @w <= T
 * (C[t,s] = c[t-s] for t - s < w, c[0] = 1: each node keeps w - 1 past
 * noises) of smallest loss for the H of @g and (k,b)-participation, by
 * BFGS (GSL) on log(loss) with the exact gradient, from @c (w doubles, in:
 * the start, e.g. BSR's coefficients or a fit at a shorter horizon; out: the
 * fit). The loss is not convex in c: a local optimum. *@loss: its exact
 * loss. Errors: PRIV_ERROR_INVALID_ARGUMENT (sizes, w > T), PRIV_ERROR_NUMERICAL.
 * Complexity: O(n^2 T + T w) per evaluation, a few hundred evaluations.
 */
gboolean priv_mf_toeplitz_fit(const PrivGramSpectral *g, guint k, guint b, guint w, double *c,
                              double *loss, GError **error);

/* Most buffers a BLT strategy may have (priv_mf_blt_check). */
#define PRIV_MF_BLT_MAX_BUFFERS 8

/*
 * priv_mf_blt_check: whether @theta, @w (@d each) are a BLT strategy this
 * library handles: 1 <= d <= PRIV_MF_BLT_MAX_BUFFERS, 0 < theta_i < 1 and
 * w_i finite, of either sign (a positive mixture of geometric sequences
 * cannot cancel the cross terms of the sensitivity under several
 * participations). FALSE with PRIV_ERROR_INVALID_ARGUMENT otherwise. O(d).
 */
gboolean priv_mf_blt_check(const double *theta, const double *w, guint d, GError **error);

/*
 * priv_mf_blt_coefficients: the first column c[0 .. @T) of the BLT strategy
 * (@theta, @w, @d buffers): c_0 = 1, c_j = sum_{i<d} w_i theta_i^(j-1) for
 * j >= 1. C n = z is then n_t = z_t - sum_i w_i s_{i,t} with the buffers
 * s_{i,t} = theta_i s_{i,t-1} + n_{t-1} (s_{i,0} = 0): d vectors per node
 * whatever T. O(T d).
 */
void priv_mf_blt_coefficients(const double *theta, const double *w, guint d, guint T, double *c);

/*
 * priv_mf_sensitivity2_blt: priv_mf_sensitivity2 of the BLT strategy
 * (@theta, @w, @d, valid for priv_mf_blt_check) under (@k,@b)-participation,
 * T = k b, from closed forms: X[s,t] = c_D + sum_{i,l} w_i w_l theta_l^D
 * G(theta_i theta_l, T - t - 1) (D = t - s >= 0, G(q, N) = sum_{m<N} q^m),
 * summed in absolute value over the k^2 pairs of each class. @grad
 * (nullable, 2d doubles, out): its gradient in (theta_0 .. theta_{d-1},
 * w_0 .. w_{d-1}) at the maximizing class (the first on ties; a
 * subgradient where some X[s,t] = 0). O(b k^2 d^2) time, O(d^2) memory.
 * NaN on bad sizes.
 */
double priv_mf_sensitivity2_blt(const double *theta, const double *w, guint d, guint T, guint k,
                                guint b, double *grad);

/*
 * priv_mf_blt_loss: the loss sens_Pi(C)^2 tr(H (C^T C)^-1) of the BLT
 * strategy (@theta, @w, @d valid for priv_mf_blt_check) on the H of @g,
 * T = g->T = @k @b: a = C^-1 e_0 by the buffer recursion, the trace as
 * priv_mf_toeplitz_trace (C is Toeplitz of full width), the sensitivity as
 * priv_mf_sensitivity2_blt. @grad (nullable, 2d doubles, out): the exact
 * gradient in (theta, w): d tau / d c = -C^-T C^-T d tau / d a by two
 * transposed buffer recursions, then the chain rule through c_j = sum_i
 * w_i theta_i^(j-1). O(n^2 T + b k^2 d^2 + d T) time, O(n T) memory with
 * the gradient, O(T + n^2) without. NaN on bad sizes.
 */
double priv_mf_blt_loss(const PrivGramSpectral *g, const double *theta, const double *w, guint d,
                        guint k, guint b, double *grad);

/*
 * priv_mf_blt_fit: the BLT strategy of @d buffers of smallest loss for the
 * H of @g and (@k,@b)-participation: BFGS (GSL) on log(loss) in
 * (logit theta, w) with the exact gradient, then Nelder-Mead through the
 * kinks of |X[s,t]|, from (@theta, @w) (in: the start, valid for
 * priv_mf_blt_check; out: the fit, never worse than the start). Not convex:
 * a local optimum. *@loss (nullable): its exact loss.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (sizes, start), PRIV_ERROR_NUMERICAL
 * (loss not finite). Each evaluation as priv_mf_blt_loss; at most 500
 * BFGS iterations and 200 d simplex steps.
 */
gboolean priv_mf_blt_fit(const PrivGramSpectral *g, guint k, guint b, guint d, double *theta,
                         double *w, double *loss, GError **error);

/* ===================================================================== */
/* The multi-epoch MF optimizer (Mafalda, DMF)                            */
/* ===================================================================== */

/* How priv_mf_optimize evaluates f and its gradient (PrivMfOptions.evaluation). */
typedef enum {
  /* Banded when a band leaves under 15% of the off-diagonal entries free (the
   * Kronecker metric is then off: the dense path would run plain L-BFGS at
   * O(T^3) per iteration), dense otherwise. The default. */
  PRIV_MF_EVAL_AUTO = 0,
  PRIV_MF_EVAL_DENSE,  /* dense T x T work: O(T^3) per evaluation */
  PRIV_MF_EVAL_BANDED, /* band storage: O(T^2 band) per evaluation; needs a band */
} PrivMfEvaluation;

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
  /* Which evaluation (default PRIV_MF_EVAL_AUTO). The banded one keeps X in
   * band storage, factors it by a band Cholesky and forms only the band of
   * the gradient: no T x T matrix but H's Cholesky factor and one work
   * matrix, no dense eigensolver, plain L-BFGS (no metric). */
  PrivMfEvaluation evaluation;
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
   * the optimizer with PRIV_ERROR_NOT_CONVERGED "cancelled" (issue 16:
   * Ctrl-C from Python). Default NULL. */
  const gint *cancel;
  /* Nullable: a T x T symmetric (row- or column-major) starting guess, e.g.
   * the optimum of a nearby problem (priv_mf_dmf). Read at the free entries
   * only, each class sum then set to 1 by a diagonal congruence; it need not
   * be positive definite: the start is the best point (golden section on the
   * convex f) on the segment from the default start (H^{1/2} tapered) to it,
   * so never worse than the default. Only the path changes: the optimum is
   * the same. Non-finite entries: PRIV_ERROR_INVALID_ARGUMENT. Default
   * NULL. */
  const double *x0;
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
 * (priv_mf_memory_needed). Deterministic for a given BLAS and thread count;
 * multithreaded BLAS may change the last digits.
 *
 * Returns: TRUE on convergence. FALSE with @error set: PRIV_ERROR_INVALID_ARGUMENT
 * (sizes, T != k*b, options), PRIV_ERROR_INFEASIBLE (band > T),
 * PRIV_ERROR_MEMORY (budget, or T > 46340), PRIV_ERROR_NUMERICAL (H not
 * positive definite), PRIV_ERROR_NOT_CONVERGED (then *@result holds the best
 * point reached, with converged = FALSE).
 */
gboolean priv_mf_optimize(const double *H, guint T, guint k, guint b, const PrivMfOptions *opt,
                          PrivMfResult **result, GError **error);

/*
 * priv_mf_dmf: DMF, the multi-epoch MF optimum for the centralized prefix-sum
 * workload (priv_gram_prefix_sum) over T = @k * @b rounds: priv_mf_optimize
 * on that Gram matrix with @opt, started (PrivMfOptions.x0) from the DMF
 * optimum at k/2 epochs stretched to k epochs (recursively, while k >= 32),
 * unless @opt->x0 is already set. Same problem, same stopping rule, same
 * optimum as priv_mf_optimize from its own start: only the path is shorter
 * (this workload's optimum is nearly stationary in time, so the stretched
 * start lies within a fraction of a percent of it). Independent of any
 * graph. @opt's progress callback is only called for the full problem; a
 * shorter problem that fails only costs the warm start.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (k or b zero, k*b overflows) and those
 *   of priv_mf_optimize on the full problem (with *@result as it says).
 * Complexity: that of priv_mf_optimize at T, plus about 1/7 of it for the
 *   shorter problems (cost ~ T^3); memory as priv_mf_optimize at T.
 */
gboolean priv_mf_dmf(guint k, guint b, const PrivMfOptions *opt, PrivMfResult **result,
                     GError **error);

/*
 * priv_mafalda_c: Mafalda's C_local (paper Alg. 2) for @n nodes gossiping
 * over T = @k * @b steps: priv_mf_optimize (default options, @band) on the
 * post-average workload's Gram matrix of the static @W (n x n) or of the
 * W_t given by @gossip_at (exactly one of the two).
 * Errors: those of priv_gram_check_memory, priv_gram_static or
 *   priv_gram_time_varying, and priv_mf_optimize (not converging included).
 * Returns: the T x T lower-triangular C (g_free), or NULL.
 * Complexity: the Gram matrix's (O(n^3 + n^2 T) static, O(n^3 T^2)
 * time-varying) plus the optimizer's.
 */
double *priv_mafalda_c(guint n, guint T, guint k, guint b, guint band, const double *W,
                       PrivGossipAtFunc gossip_at, gpointer user_data, GError **error);

/*
 * priv_mafalda_toeplitz: the banded Toeplitz strategy of band @w <= T
 * fitted to the post-average workload of the static reversible @W (n x n)
 * over T = @k @b steps (priv_mf_toeplitz_fit from BSR's coefficients of
 * band min(w, b), warm started from the fit at k / 4 epochs, recursively,
 * when k >= 8; bands past b from the fit at half the band, padded). @c: w
 * doubles, out (c[0] = 1). *@loss (may be NULL): its exact loss.
 * Errors: those of priv_gram_spectral_new and priv_mf_toeplitz_fit.
 * Complexity: O(n^3) then O(n^2 T + T w) per evaluation; no T x T matrix.
 */
gboolean priv_mafalda_toeplitz(const double *W, guint n, guint k, guint b, guint w, double *c,
                               double *loss, GError **error);

/* The same as a dense T x T lower-triangular C (g_free), T = k b; NULL with
 * @error set. O(T^2) more. */
double *priv_mafalda_toeplitz_c(const double *W, guint n, guint T, guint k, guint b, guint w,
                                GError **error);

/*
 * priv_mafalda_blt: the BLT strategy of @d buffers (1 <= d <=
 * PRIV_MF_BLT_MAX_BUFFERS) fitted to the post-average workload of the
 * static reversible @W (n x n) over T = @k @b steps: at the shortest horizon
 * of the chain k, k/4, k/16, ... (k/4^m < 8 epochs), buffers 1..d one after
 * the other, each from the previous fit plus a zero-weight buffer and from
 * a few spread starts (theta on a geometric grid of time scales up to b, w
 * by least squares on BSR's coefficients); each longer horizon from the
 * shorter's fit (priv_mf_blt_fit). @theta, @w: d doubles each, out. *@loss
 * (nullable): its exact loss. Errors: PRIV_ERROR_INVALID_ARGUMENT (d, k,
 * b), those of priv_gram_spectral_new and priv_mf_blt_fit.
 * Complexity: O(n^3), then O(n^2 T + b k^2 d^2) per evaluation; no T x T
 * matrix.
 */
gboolean priv_mafalda_blt(const double *W, guint n, guint k, guint b, guint d, double *theta,
                          double *w, double *loss, GError **error);

/* The same as a dense T x T lower-triangular C (g_free), T = k b, and
 * (nullable, d doubles each) its parameters; NULL with @error set. O(T^2)
 * more. */
double *priv_mafalda_blt_c(const double *W, guint n, guint T, guint k, guint b, guint d,
                           double *theta, double *w, GError **error);

/* The strategies of priv_mafalda_report, in output order. */
typedef enum {
  PRIV_MAFALDA_MAFALDA,  /* the optimum for H (priv_mf_optimize), sensitivity 1 */
  PRIV_MAFALDA_DPDSGD,   /* C = I */
  PRIV_MAFALDA_ANTIPGD,  /* C = lower-triangular ones */
  PRIV_MAFALDA_SR,       /* square root of the prefix sum */
  PRIV_MAFALDA_BSR,      /* its band-b version */
  PRIV_MAFALDA_DMF,      /* the optimum for the centralized prefix sum, scored on H */
  PRIV_MAFALDA_TOEPLITZ, /* the banded Toeplitz strategy fitted to H */
  PRIV_MAFALDA_BLT,      /* the BLT strategy fitted to H (priv_mafalda_blt) */
  PRIV_MAFALDA_N_STRATEGIES
} PrivMafaldaStrategy;

/* The strategy's key ("mafalda", "dp-d-sgd", "antipgd", "sr", "bsr", "dmf",
 * "toeplitz", "blt"): the CLI's JSON keys and table labels, the API's rows. */
const char *priv_mafalda_strategy_name(PrivMafaldaStrategy s);

/* Where priv_mafalda_report calls its checkpoint hook. */
typedef enum {
  PRIV_MAFALDA_STAGE_GRAM,      /* H (or its trace) is known */
  PRIV_MAFALDA_STAGE_OPTIMIZED, /* the optimizers and the fixed strategies are done */
  PRIV_MAFALDA_STAGE_TOEPLITZ,  /* the Toeplitz strategy is fitted (when it is) */
  PRIV_MAFALDA_STAGE_BLT,       /* the BLT strategy is fitted (when it is) */
} PrivMafaldaStage;

typedef struct {
  guint k, b;          /* epochs and batches, T = k b; both >= 1 */
  guint band;          /* band of Mafalda's and DMF's C_local, 1..T; 0 = none */
  guint toeplitz_band; /* band of the fitted Toeplitz strategy, 1..T; 0 = b */
  /* Buffers of the fitted BLT strategy, 1..PRIV_MF_BLT_MAX_BUFFERS; 0 = not
   * fitted (its loss NaN). Default PRIV_MAFALDA_BLT_BUFFERS. */
  guint blt_buffers;
  PrivWorkload workload;
  /* No dense T x T work: Mafalda and DMF are skipped (NaN), the structured
   * strategies scored from the spectral form, which W must then have. */
  gboolean skip_dense;
  /* The baselines computed beside Mafalda: bit (1u << s) for each
   * PrivMafaldaStrategy s (Mafalda's own bit is ignored); the others are
   * NaN. Default PRIV_MAFALDA_DEFAULT_BASELINES. */
  guint baselines;
  /* Mafalda's optimizer: PrivMfOptions.progress. */
  void (*progress)(guint iteration, double fraction, gpointer data);
  gpointer progress_data;
  /* DMF's optimizer, alongside Mafalda's (nullable): the same hook. */
  void (*dmf_progress)(guint iteration, double fraction, gpointer data);
  gpointer dmf_progress_data;
  const gint *cancel; /* both optimizers poll it: PrivMfOptions.cancel */
  /* Nullable: called at each stage from the calling thread; FALSE with
   * @error set stops the report with that error (e.g. a cancel flag raised
   * between two iterations' checks, a progress line to end). */
  gboolean (*checkpoint)(PrivMafaldaStage stage, gpointer data, GError **error);
  gpointer checkpoint_data;
} PrivMafaldaReportOptions;

/* The BLT strategy's buffers by default (the report, `mafalda`, dpg_mafalda). */
#define PRIV_MAFALDA_BLT_BUFFERS 4

/* Every baseline of priv_mafalda_report. */
#define PRIV_MAFALDA_ALL_BASELINES                                                                 \
  (((1u << PRIV_MAFALDA_N_STRATEGIES) - 1) & ~(1u << PRIV_MAFALDA_MAFALDA))
/* The baselines computed by default: all but DMF, whose optimization costs
 * more than Mafalda's own (it is asked for by name). */
#define PRIV_MAFALDA_DEFAULT_BASELINES (PRIV_MAFALDA_ALL_BASELINES & ~(1u << PRIV_MAFALDA_DMF))

/*
 * priv_mafalda_baselines_parse: @list, comma-separated strategy names
 * (priv_mafalda_strategy_name, not mafalda), "all", "default" or "none",
 * into the bit set of PrivMafaldaReportOptions.baselines.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT naming an unknown or empty entry.
 * O(length of @list).
 */
gboolean priv_mafalda_baselines_parse(const char *list, guint *baselines, GError **error);

/* Zeroes @opt: post-average workload, no band, Toeplitz band b,
 * PRIV_MAFALDA_BLT_BUFFERS BLT buffers, the default baselines, no hooks. */
void priv_mafalda_report_options_init(PrivMafaldaReportOptions *opt);

typedef struct {
  guint n, T, k, b, band, toeplitz_band; /* toeplitz_band resolved (0 -> b) */
  guint blt_buffers;                     /* as asked (0: no BLT strategy) */
  /* The fitted BLT strategy (blt_buffers of each; when it is fitted). */
  double blt_theta[PRIV_MF_BLT_MAX_BUFFERS], blt_w[PRIV_MF_BLT_MAX_BUFFERS];
  double trace_H;
  /* Per strategy (PrivMafaldaStrategy); NaN when not computed (skip_dense;
   * the Toeplitz fit without a reversible W or for the messages workload).
   * loss = sens^2 tr(H (C^T C)^{-1}) (paper, the MF loss). */
  double loss[PRIV_MAFALDA_N_STRATEGIES];
  double sensitivity[PRIV_MAFALDA_N_STRATEGIES];
  /* CPU seconds of each strategy on its own thread (optimizing, fitting,
   * scoring): the strategies run side by side on a possibly loaded machine. */
  double cpu_seconds[PRIV_MAFALDA_N_STRATEGIES];
  guint iterations; /* Mafalda's L-BFGS iterations (0: skipped) */
  double *C;        /* Mafalda's T x T C_local, row-major; NULL when skipped */
  /* Wall seconds: the Gram matrix (and spectral form), Mafalda's
   * optimization, and the baselines (DMF and every score, alongside the
   * optimization, then the Toeplitz fit and Mafalda's score). */
  double seconds_gram, seconds_optimize, seconds_baselines;
} PrivMafaldaReport;

void priv_mafalda_report_free(PrivMafaldaReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivMafaldaReport, priv_mafalda_report_free)

/*
 * priv_mafalda_report: Mafalda's C_local for the static gossip @W (n x n,
 * row-major) and (k,b)-participation, compared with the fixed baselines
 * (DP-D-SGD, AntiPGD, SR, BSR), DMF and the banded Toeplitz strategy
 * fitted to the graph, all on the same objective: the loss
 * sens_Pi(C)^2 tr(H (C^T C)^{-1}), H the workload's Gram matrix (paper,
 * the MF loss; Alg. 2 for Mafalda).
 * @W: the gossip matrix; @n: its size.
 * @opt: the options (priv_mafalda_report_options_init).
 * @report: (out): the report (priv_mafalda_report_free), set only on success.
 * @error: return location for a GError, or NULL.
 *
 * Mafalda's optimizer runs on a second thread beside DMF (ftol 1e-10: it
 * stops once its objective settles, its loss then scored exactly on H) and
 * the fixed strategies. The fixed strategies are Toeplitz: scored from C's
 * first column and the spectral form of H when W is reversible, else on the
 * dense H. The Toeplitz strategy is fitted (priv_mafalda_toeplitz) when W is
 * reversible and the workload is post-average. Deterministic for a given
 * BLAS thread count. Callers refuse large horizons early with
 * priv_mf_check_memory and priv_gram_check_memory (before building W).
 *
 * The BLT strategy (@opt->blt_buffers > 0) is fitted (priv_mafalda_blt)
 * under the same conditions as the Toeplitz one. Only the baselines in
 * @opt->baselines are computed (the others NaN).
 *
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (k, b, toeplitz_band, blt_buffers),
 * those of priv_gram_spectral_new prefixed "--skip-dense: " when
 * @opt->skip_dense, of priv_gram_static, priv_mf_optimize (Mafalda's first;
 * not converging and cancelled included), priv_mf_loss,
 * priv_mafalda_toeplitz, priv_mafalda_blt, and the checkpoint's.
 * Complexity: the Gram matrix's O(n^3 + n^2 T) and two optimizations of
 * O(T^3) per iteration (none when skip_dense); O(n^2 T + T w) per Toeplitz
 * evaluation.
 */
gboolean priv_mafalda_report(const double *W, guint n, const PrivMafaldaReportOptions *opt,
                             PrivMafaldaReport **report, GError **error);

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
 * priv_mf_memory_needed_band, priv_mf_check_memory_band: the same for the
 * path priv_mf_optimize takes with @band (0 = none) and @b batches under
 * PRIV_MF_EVAL_AUTO: the dense estimate, or ~6 T^2 + (2 memory + 14) T band
 * doubles for the banded evaluation. O(T).
 */
gsize priv_mf_memory_needed_band(guint T, guint b, guint band, guint memory);
gboolean priv_mf_check_memory_band(guint T, guint b, guint band, guint memory, gsize max_bytes,
                                   GError **error);

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

/* ===================================================================== */
/* Accounting                                                             */
/* (docs/design.md, "Privacy accounting"; paper sections 4-5, appendices A, C) */
/* ===================================================================== */

/*
 * Units used throughout this section: the attacker knowledge is
 * O = A G + B Z with A in units of the clipping norm Delta (a clipped
 * gradient has norm <= Delta) and B in units of standard normals. Then the
 * victim's T x T block X_u of X = (B^+ A)^T (B^+ A) gives mu = sens directly:
 * D-SGD with noise std sigma*Delta has X_u = I/sigma^2 under LDP.
 */

/* Trust models: what an attacker set S (one node or a collusion set) knows. */
typedef enum {
  PRIV_TRUST_LDP,    /* every message on the network; nothing else */
  PRIV_TRUST_PNDP,   /* the messages delivered to S; S's gradients and noise */
  PRIV_TRUST_SECLDP, /* every message; S's gradients, noise, and edge secrets */
} PrivTrust;

/* Parses "ldp", "pndp" or "secldp". Errors: PRIV_ERROR_INVALID_ARGUMENT. */
gboolean priv_trust_parse(const char *name, PrivTrust *out, GError **error);
/* The name priv_trust_parse accepts for @trust (static string). */
const char *priv_trust_name(PrivTrust trust);

/* How the sensitivity of a block X_u is computed. */
typedef enum {
  PRIV_SENSITIVITY_BOUND, /* paper Thm 5.2: max_j sum_{s,t in pi_j} |X_u[s,t]| */
  PRIV_SENSITIVITY_EXACT, /* max_j max {<X_u[pi_j], U> : U psd, diag(U) <= 1} */
} PrivSensitivity;

/* Parses "bound" or "exact". Errors: PRIV_ERROR_INVALID_ARGUMENT. */
gboolean priv_sensitivity_parse(const char *name, PrivSensitivity *out, GError **error);
const char *priv_sensitivity_name(PrivSensitivity kind);

/* ---- Gaussian DP conversions (Dong, Roth, Su 2022) ---- */

/* RDP of order @alpha (> 1) of a mu-GDP mechanism: alpha mu^2 / 2. +inf for
 * mu = +inf and when it overflows (mu = 1e200); a positive mu that would
 * underflow it (1e-200) gives the smallest positive double, never 0. NaN for
 * a negative or NaN mu or alpha <= 1. O(1). */
double priv_gdp_rdp(double mu, double alpha);

/*
 * priv_gdp_delta: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
 * (Dong, Roth, Su 2022, Cor. 1), evaluated in log space so that neither
 * e^eps nor Phi under/overflows, delta(0) as erf(mu / (2 sqrt 2)) (no
 * cancellation for small mu), and raised by the rounding of exp(log delta);
 * above mu = 1e6 the bound Phi(-eps/mu + mu/2). Never below the truth for
 * mu > 0: a delta that underflows is the smallest positive double. @mu >= 0,
 * @eps >= 0; NaN otherwise. mu = 0 gives 0; mu = +inf gives 1. O(1).
 */
double priv_gdp_delta(double mu, double eps);

/*
 * priv_gdp_epsilon: the eps >= 0 with priv_gdp_delta(mu, eps) = @delta
 * (0 when delta(0) <= @delta), by Brent's method on log(eps) against
 * log(delta), to a relative 1e-12, taking the upper end of the bracket and
 * raising it by the root's measured error (1e-12 + 1e-13/mu relative; see
 * gdp.c). Never above the closed-form bound mu^2/2 + mu Qinv(delta), which is
 * returned where the root finder is unreliable (mu > 1e6, no bracket): so
 * never below the truth, for every mu >= 0 and delta in (0, 1); +inf when
 * mu^2/2 overflows (mu > 1.9e154, no protection) and for mu = +inf. NaN for
 * mu < 0 or delta outside (0, 1).
 * For mu = 1: eps(1e-6) = 4.88655, eps(1e-5) = 4.37718. O(100) evaluations.
 */
double priv_gdp_epsilon(double mu, double delta);

/* ---- Sensitivity under cyclic (k,b)-participation ---- */

/* Outcome of priv_sdp_max. */
typedef struct {
  double lower;       /* <X, V V^T> of the best primal point found */
  double upper;       /* certified dual bound (the value returned) */
  guint rank;         /* columns p of the Burer-Monteiro factor V */
  guint sweeps;       /* coordinate sweeps performed */
  gboolean converged; /* (upper - lower) <= tol * max(1, |upper|) */
} PrivSdpInfo;

/*
 * priv_sdp_max: max { <X, U> : U psd, diag(U) <= 1 } for a symmetric positive
 * semidefinite k x k @X (row-major): the exact squared sensitivity of one
 * participation pattern. Burer-Monteiro factor U = V V^T with k x p V,
 * p = ceil(sqrt(2k)) + 1 (with p(p+1)/2 > k, local optima are global for
 * almost every X; the certificate below covers the exceptions),
 * rows of unit norm, maximized by exact block-coordinate steps (the "mixing
 * method", Wang, Chang & Kolter 2017) from a fixed pseudo-random start
 * (deterministic). The result is certified by the dual: with
 * y_i = max(0, (X V V^T)_ii) and l = lambda_min(Diag(y) - X),
 * sum_i y_i + k max(0, -l) >= optimum, and the value returned is the least of
 * that certificate and sum_{s,t} |X[s,t]| (also an upper bound): never below
 * the optimum, never above the Thm 5.2 bound, and equal to it when X is
 * entrywise non-negative. Works on X / 2^e with max |X| in [1/2, 1) (exact)
 * and scales back, so X of 1e200 or 1e-300 neither overflows the mixing
 * steps nor stops early. Stops when the gap to the primal value is
 * <= @tol * max(1, |value|) (@tol > 0, e.g. 1e-9) or after 20000 sweeps
 * (info->converged = FALSE, the certified bound is still returned).
 * O(k^2 p) per sweep, O(k^3) per certificate.
 * @info: (out) (optional).
 * Returns: the value, or NaN with @error set (PRIV_ERROR_INVALID_ARGUMENT:
 * k = 0, tol <= 0, non-finite X; PRIV_ERROR_NUMERICAL: eigensolver failure).
 */
double priv_sdp_max(const double *X, guint k, double tol, PrivSdpInfo *info, GError **error);

/*
 * priv_sensitivity2: sens^2 of a victim's T x T block @X under cyclic
 * (k,b)-participation, T = k * @b: the max over offsets j in [0, b) of the
 * pattern value on pi_j = {j, j+b, ..., j+(k-1)b}: the Thm 5.2 bound
 * (O(T^2 / b)), or the exact SDP value (priv_sdp_max with tolerance 1e-9 on
 * each k x k pattern, O(b k^3) per certificate). exact <= bound always.
 * Returns: TRUE with *@out set; FALSE with PRIV_ERROR_INVALID_ARGUMENT (b = 0
 * or not dividing T) or the errors of priv_sdp_max.
 */
gboolean priv_sensitivity2(const double *X, guint T, guint b, PrivSensitivity kind, double *out,
                           GError **error);

/* ---- Per-victim blocks ---- */

/* What a node is to an accounting. */
typedef enum {
  PRIV_NODE_PROTECTED,   /* a victim with a finite X_u */
  PRIV_NODE_UNPROTECTED, /* a victim the attacker sees without noise: mu = +inf */
  PRIV_NODE_ATTACKER,    /* a member of the attacker set: not a victim */
  /* A victim double precision cannot account: its range decision is too
   * close to the threshold or ill-conditioned, or its mu exceeds
   * PRIV_MU_RESOLVABLE_MAX (see privacy/range.c). No protection is claimed
   * and no number given: mu = +inf, like UNPROTECTED. */
  PRIV_NODE_UNRESOLVED,
} PrivNodeStatus;

/* Above this mu, a finite number is reported as PRIV_NODE_UNRESOLVED: no
 * protection (epsilon is astronomic), and a number double precision does not
 * support at the conditioning that produces it. */
#define PRIV_MU_RESOLVABLE_MAX 1e8
/* What outputs say next to an UNRESOLVED victim. */
#define PRIV_UNRESOLVED_NOTE "no protection: mu > 1e8 or not resolvable in double precision"

/*
 * The result of an accounting before any sensitivity is taken: for every node
 * u its status and its T x T block X_u (row-major at X + u*T*T, in the units
 * above, divided by scale^2; zeros for attackers and unprotected victims).
 * scale is 1 unless an accountant kept the noise multiplier out of X because
 * X / sigma^2 would leave the double range (sigma = 1e-200 makes it 1e400):
 * then the true block is X_u / scale^2 and mu = sqrt(sens^2(X_u)) / scale
 * (sensitivities are homogeneous of degree 1 in X), which
 * priv_account_report does. Readers of X must honour it.
 */
typedef struct {
  guint n;                /* nodes */
  guint T;                /* gradient steps (the blocks are T x T) */
  double *X;              /* n * T * T doubles */
  PrivNodeStatus *status; /* n entries */
  double scale;           /* > 0; the true blocks are X / scale^2 (usually 1) */
} PrivBlocks;

/* priv_blocks_new: zero blocks, every node PROTECTED, scale 1. Errors:
 * PRIV_ERROR_MEMORY, PRIV_ERROR_INVALID_ARGUMENT (n or T is 0). O(n T^2). */
PrivBlocks *priv_blocks_new(guint n, guint T, GError **error);
void priv_blocks_free(PrivBlocks *blocks);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivBlocks, priv_blocks_free)
/* The block of node @u (NULL when u >= n). */
const double *priv_blocks_get(const PrivBlocks *blocks, guint u);

/* ---- Attacker knowledge and the generic accountant ---- */

/*
 * A PrivKnowledge collects an attacker set's knowledge O = A G + B Z (paper
 * Def. "Attacker knowledge") as sparse rows: one per observed message (its
 * provenance: gradient slot (u, t) at column t*n + u in units of the gradient
 * vector, noise variable k in units of standard normals, as linvecs store
 * them), plus what the attacker knows outright: gradient slots (removed from A
 * by the reduction lemma, paper appendix A) and noise variables.
 */
typedef struct PrivKnowledge PrivKnowledge;

/* priv_knowledge_new: empty knowledge over @n nodes (>= 1). */
PrivKnowledge *priv_knowledge_new(guint n, GError **error);
void priv_knowledge_free(PrivKnowledge *k);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivKnowledge, priv_knowledge_free)
/* Rows added so far (duplicates included). */
gsize priv_knowledge_n_rows(const PrivKnowledge *k);

/*
 * priv_knowledge_add_linvec: appends the provenance of @v (copied: @v may be
 * freed afterwards). Errors: PRIV_ERROR_INVALID_ARGUMENT when @v's space has
 * another number of nodes. O(nnz(v)).
 */
gboolean priv_knowledge_add_linvec(PrivKnowledge *k, const SimLinvec *v, GError **error);

/*
 * priv_knowledge_add_row: appends a row given as sparse arrays: gradient
 * columns @grad_cols (t*n + u) with coefficients @grad_vals, noise ids
 * @noise_ids with coefficients @noise_vals (repeated columns add up).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT for a non-finite coefficient. O(nnz).
 */
gboolean priv_knowledge_add_row(PrivKnowledge *k, gsize n_grad, const guint32 *grad_cols,
                                const double *grad_vals, gsize n_noise, const guint32 *noise_ids,
                                const double *noise_vals, GError **error);

/* priv_knowledge_add_attacker: @u is in the attacker set: all its gradient
 * slots are known, and it is no victim. Errors: u >= n. */
gboolean priv_knowledge_add_attacker(PrivKnowledge *k, guint u, GError **error);
/* priv_knowledge_know_gradient: gradient slot (u, t) is known. Errors: u >= n. */
gboolean priv_knowledge_know_gradient(PrivKnowledge *k, guint u, guint t, GError **error);
/* priv_knowledge_know_noise: noise variable @id is known (its column is
 * removed from B: the same guarantee as a row [0 | e_id], see
 * priv_knowledge_blocks). Never fails. */
void priv_knowledge_know_noise(PrivKnowledge *k, guint32 id);

/*
 * priv_knowledge_check_memory: fails with PRIV_ERROR_MEMORY, saying how much
 * would be needed, when priv_knowledge_blocks on @rows observed rows over
 * @grad_cols gradient slots and @noise_cols noise variables cannot fit in
 * @max_bytes (0 = spec_memory_limit()). Lets a caller refuse a run before
 * simulating it (rows: at most T x the messages the attackers receive per
 * round; columns: at most n T each). O(1).
 */
gboolean priv_knowledge_check_memory(gsize rows, gsize grad_cols, gsize noise_cols, gsize max_bytes,
                                     GError **error);

/* Options of priv_knowledge_blocks; zeros select the defaults. */
typedef struct {
  guint T;          /* gradient steps; 0 = 1 + the largest step seen in a row */
  double clip;      /* Delta, > 0 (default 1) */
  double rank_tol;  /* relative rank tolerance of B (default 1e-10) */
  double range_tol; /* relative tolerance of A_u = B B^+ A_u (default 1e-8) */
  gsize max_bytes;  /* memory budget (0 = physical memory) */
} PrivKnowledgeOptions;

/*
 * priv_knowledge_blocks: the generic accountant. Removes known gradient slots
 * (zeroing columns of A: reduction lemma) and known noise columns, drops
 * all-zero columns and rows, then factors B by a QR with column pivoting of
 * B^T, which is the row selection and LQ factorization of the proof of the
 * paper's main theorem: B^T P = Q R, rank r = #{i : |R_ii| > rank_tol |R_00|}.
 * The pivoted rows P^T A = [A1; A2] give Y = R11^{-T} A1 (so B^+ A = Q1 Y,
 * never forming B^+) and X_u = Y_u^T Y_u with A in units of Delta (the
 * linvec coefficients times @opt->clip). If that rank cut drops a row
 * independent at its own scale, the factorization is redone with rows
 * scaled to unit noise norm. Each victim's verdict is priv_range_decide's
 * (privacy/knowledge_internal.h) on its residual ||A2_u - R12^T Y_u||_F
 * against range_tol ||A_u||_F: UNPROTECTED when the attacker clearly sees a
 * noise-free combination of its gradients (residual above 1e-5 of ||A_u||,
 * carried by dependencies exact to rounding), UNRESOLVED when double
 * precision cannot decide (a residual in between, a near-dependency, an
 * amplification ||Y_u|| / ||D^-1 A_u|| above 1e8,
 * D the rows' noise norms): X_u = 0 for both.
 * Nodes added with priv_knowledge_add_attacker are ATTACKER.
 * Complexity: O(m r min(m, r) + r^2 c) time, O((m + 2c) r) memory for r rows,
 * m noise and c gradient columns that appear.
 * Returns: (transfer full) the blocks, or NULL with @error set
 * (PRIV_ERROR_INVALID_ARGUMENT: a row reaches step T or beyond, clip <= 0;
 * PRIV_ERROR_MEMORY; PRIV_ERROR_NUMERICAL: LAPACK failure).
 */
PrivBlocks *priv_knowledge_blocks(const PrivKnowledge *k, const PrivKnowledgeOptions *opt,
                                  GError **error);

/*
 * priv_knowledge_blocks_scaled: priv_knowledge_blocks on the rows with the
 * gradient and the noise coefficients each multiplied by a power of two that
 * brings them near 1, when they are not already within 2^±200 and within
 * 2^100 of each other (then it is priv_knowledge_blocks, bit for bit): noise
 * of std 1e200 Delta made X = Y^T Y underflow to a zero block (mu = 0 for
 * every victim), std 1e-200 Delta overflow it, and clip = 1e-200 made the
 * range check square gradient coefficients to 0 (mu = 0 again). Every
 * decision of the accountant is relative, hence unchanged by that exact
 * scaling; X comes out 4^(eb - ea) times the truth and PrivBlocks.scale
 * records 2^(eb - ea) (folded back into X when it stays in range). More than
 * 2^1000 apart: PRIV_ERROR_NUMERICAL (mu itself would leave the doubles).
 * Parameters, other errors and complexity: those of priv_knowledge_blocks,
 * plus a copy of the coefficients when scaling (O(nnz) time and memory).
 */
PrivBlocks *priv_knowledge_blocks_scaled(const PrivKnowledge *k, const PrivKnowledgeOptions *opt,
                                         GError **error);

/* ---- The observer ---- */

/*
 * A PrivObserver subscribes to an engine's event bus and records, for each of
 * its views (an attacker set and a trust model), the provenance of every
 * message the set can see: the linvec in the message's typed provenance
 * slot (sim_message_provenance, set by the protocols' runtime when it sends
 * a model), so the observer never needs to know which protocol ran. LDP and SecLDP views see every SENT message (including those
 * later dropped: an eavesdropper sees the wire); PNDP views see the messages
 * DELIVERED to their members. Rows are copied sparsely (payloads may be freed
 * later) and stored once for all views (identical rows are kept once).
 */
typedef struct PrivObserver PrivObserver;

/* priv_observer_new: an observer of the linvecs of @space (a reference is
 * taken; its noise registry tells who knows which noise). */
PrivObserver *priv_observer_new(SimLinSpace *space, GError **error);
/* Detaches if attached, then frees. NULL is ignored. */
void priv_observer_free(PrivObserver *obs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivObserver, priv_observer_free)

/*
 * priv_observer_add_view: a view of attacker set @members (distinct nodes,
 * n_members >= 1) under @trust. Views added after messages were observed miss
 * them. Errors: PRIV_ERROR_INVALID_ARGUMENT (empty set, member out of range,
 * duplicate member, unknown trust). Returns the view's index, or G_MAXUINT.
 */
guint priv_observer_add_view(PrivObserver *obs, PrivTrust trust, const guint *members,
                             guint n_members, GError **error);
guint priv_observer_n_views(const PrivObserver *obs);
/* Distinct rows view @view has seen (0 for an unknown view). */
gsize priv_observer_n_rows(const PrivObserver *obs, guint view);

/*
 * priv_observer_attach: subscribes to @bus (once; the observer unsubscribes
 * itself when freed, and forgets the bus if the bus dies first).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT when already attached.
 */
gboolean priv_observer_attach(PrivObserver *obs, SimBus *bus, GError **error);
void priv_observer_detach(PrivObserver *obs);

/* priv_observer_observe: what the bus callback does with one event (also for
 * replaying a recorded run). Messages without provenance are ignored. */
void priv_observer_observe(PrivObserver *obs, const SimBusEvent *event);

/*
 * priv_observer_knowledge: the knowledge of view @view at this point: its
 * rows, plus under PNDP and SecLDP the members' gradient slots (attackers)
 * and every noise variable of the registry a member owns (its own noise and,
 * for edge secrets, the secrets on its edges). Under LDP the members are
 * still marked as attackers (not victims) but know nothing.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (unknown view; a payload from another
 * space was seen). O(rows + registry size).
 */
PrivKnowledge *priv_observer_knowledge(const PrivObserver *obs, guint view, GError **error);

/*
 * The streaming accountant (docs/design.md, "Streaming accountant"). Instead of
 * keeping every observed row for priv_knowledge_blocks at the end, the
 * observer folds each period's rows into a per-view conditional law of the
 * protocol's state (Kalman form) and the per-victim blocks X_u, then rebases
 * the space (sim_lin_space_rebase) so that provenance stops growing.
 * Checkpoints: at every SIM_BUS_ROUND event (round >= 1: every node holds its
 * round-R model, so few linvecs are alive), and after @checkpoint_events
 * message events without a round boundary (asynchronous runs where a node
 * holds rounds back). The result equals priv_knowledge_blocks on
 * priv_observer_knowledge (same X_u up to rounding, same unprotected set
 * away from the tolerance thresholds).
 */
/* How the streaming accountant carries the gradients through the periods
 * (docs/accounting-at-scale.md, "Observer path"). */
typedef enum {
  /* Keeps each period's factors (O(n q) numbers) and replays them backward
   * from chunks of observed rows: memory O(T n q), not O(n^2 T). */
  PRIV_STREAM_BACKWARD,
  /* The reference: every view's Gamma (state x n T) carried forward. */
  PRIV_STREAM_FORWARD,
} PrivStreamEngine;

typedef struct {
  guint T;                   /* gradient steps covered (> 0) */
  double clip;               /* Delta, > 0 (default 1) */
  double rank_tol;           /* relative rank tolerance (default 1e-10) */
  double range_tol;          /* relative range tolerance (default 1e-8) */
  guint64 checkpoint_events; /* 0: 64 n + 4096 */
  gsize max_bytes;           /* memory budget; 0: the machine's (spec_memory_limit) */
  /* Optional: called after every period with the gradient steps seen so far
   * (1 + the largest step) and T, e.g. for a progress line. */
  void (*progress)(guint steps, guint T, gpointer data);
  gpointer progress_data;
  PrivStreamEngine engine; /* default PRIV_STREAM_BACKWARD */
  guint chunk_rows;        /* backward: rows per chunk; 0: about 128 MB of them, 64 to 512 */
} PrivStreamOptions;

/*
 * priv_observer_set_streaming: switches @obs to the streaming accountant,
 * before the first event and after every view was added. The space must
 * keep sparse provenance (SIM_LIN_SPARSE). priv_observer_knowledge then
 * fails; use priv_observer_stream_blocks.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (events seen already, no view, storage,
 * options), PRIV_ERROR_MEMORY (n T^2 doubles per view).
 */
gboolean priv_observer_set_streaming(PrivObserver *obs, const PrivStreamOptions *opt,
                                     GError **error);
/*
 * priv_observer_stream_blocks: view @view's per-victim blocks (A in units of
 * Delta), once the run is over: the first call folds the rows seen since the
 * last checkpoint. Errors: an error met while observing (the first one),
 * PRIV_ERROR_INVALID_ARGUMENT (unknown view, not streaming), PRIV_ERROR_MEMORY.
 * Complexity per period of S state variables, m fresh noises, k rows seen
 * by a view, nnz coefficients in its transition and c = n (t+1) gradient
 * columns so far: the noise side O(S (S + m)(S + k)); the backward engine
 * steps each row seen back to period 0, O(t (nnz + S k)) per row, and
 * whitens it, O(k c); memory O(S k + nnz) per period and view, a chunk of
 * rows (c x rows, about 128 MB) and the n T^2 blocks. The forward engine
 * instead costs O((nnz + S k) c) per period and O(S n T) memory per view.
 */
PrivBlocks *priv_observer_stream_blocks(PrivObserver *obs, guint view, GError **error);

/* ---- Structured fast paths (docs/design.md, "Structured fast paths") ---- */

/* The synchronous protocols the structured path knows (docs/design.md, "Protocols"). */
typedef enum {
  PRIV_PROTOCOL_DSGD,      /* theta_{t+1/2} = theta_t - eta (g_t + sigma Delta z_t) */
  PRIV_PROTOCOL_MUFFLIATO, /* one noisy step, then K gossip rounds (K messages) */
  PRIV_PROTOCOL_MFDSGD,    /* noise nu sum_s (C_local^-1)[t,s] z_{s,u},
                              nu = sigma Delta sens_Pi(C_local) (Thm 5.2 bound) */
} PrivProtocol;

/* How priv_structured_blocks computes the blocks when no closed form applies. */
typedef enum {
  /* KALMAN for D-SGD and Muffliato, DENSE for MF-D-SGD. */
  PRIV_ENGINE_AUTO,
  /* White noise only. The attacker knowledge is a linear Gaussian state-space
   * model (state: the n half-step models; observations: the messages the
   * attackers see), so X = sum_r Gamma_r^T Sigma_r^+ Gamma_r over its Kalman
   * innovations (docs/accounting-at-scale.md). One n x n covariance, W
   * applied sparse, per round only the gain (n x q) and whitening (q x q):
   * O(R n nnz + R n^2 q + R^2 q (nnz + n q) + n q R T^2) time (R = K T
   * gossip rounds, q messages seen per round, nnz of W) and
   * O(n^2 + R n q + n T^2) memory. */
  PRIV_ENGINE_KALMAN,
  /* Any per-node noise correlation: forms the seen messages' columns M_v from
   * W products, K = sum_v M_v (C^-1 C^-T) M_v^T (rows x rows, rows = the
   * messages seen), a pivoted Cholesky of K (redundant messages dropped),
   * X_u = M_u^T K^+ M_u / nu'^2. O(rows^2 n T + T R n nnz(W)) time,
   * O(rows (rows + 2 n T)) memory: for small and medium problems. */
  PRIV_ENGINE_DENSE,
  /* KALMAN's innovations with every closed-loop propagator kept as a dense
   * n x n matrix: O(R^2 q n^2) time, O(R n^2) memory. The reference the
   * tests compare KALMAN with. */
  PRIV_ENGINE_KALMAN_DENSE,
} PrivEngine;

/* A structured accounting problem (zero-initialize, then fill). */
typedef struct {
  PrivProtocol protocol;
  guint K;               /* Muffliato: gossip rounds per step (>= 1); else 1 (0 = 1) */
  const double *C_local; /* MF-D-SGD: T x T invertible, row-major; else NULL */
  guint T;               /* gradient steps, >= 1 */
  /* W_r of gossip round r: one matrix (static) or K*T (time-varying). In
   * round r every node sends to the nodes whose row of W_r lists it. */
  const TopoGossip *const *gossip;
  guint n_gossip;
  PrivTrust trust;
  const guint *attackers; /* distinct nodes, >= 1 */
  guint n_attackers;
  double sigma; /* noise multiplier (noise std sigma*Delta), >= 0 */
  guint b;      /* MF-D-SGD: the participation interval its noise is
                             calibrated for, nu = sigma Delta sens_Pi(C_local)
                             under (T/b, b)-participation (0 = 1) */
  PrivEngine engine;
  gsize max_bytes; /* memory budget (0 = physical memory) */
  guint threads;   /* KALMAN's sparse products (0 = 1); results do not depend on it */
  /* Called now and then by the engines from the calling thread with the
   * fraction done (0 to 1) and what is being done, e.g. for a progress line
   * (NULL: none). */
  void (*progress)(double fraction, const char *what, gpointer data);
  gpointer progress_data;
} PrivStructuredProblem;

/*
 * priv_structured_blocks: the per-victim blocks X_u of a synchronous D-SGD,
 * Muffliato(K) or MF-D-SGD(C_local) run on static or time-varying gossip,
 * without any nT x nT matrix, using the W-product structure of the messages
 * (paper appendices A and C): the same X_u the observer path gives for that
 * run (every message delivered). What the attackers see: PNDP, the round-r
 * messages of their W_r-neighbours, plus their own gradients and noise; LDP,
 * every message sent (nothing known); SecLDP, every message plus their own
 * gradients and noise (these protocols have no edge secrets). LDP and SecLDP
 * on a static W where every node sends have closed forms: X_u = I / sigma^2
 * for D-SGD and Muffliato, C^T C / nu'^2 with nu' = sigma sens_Pi(C_local)
 * for MF-D-SGD; otherwise an engine (see PrivEngine) computes them.
 * sigma = 0: every victim whose gradient reaches a seen message is
 * UNPROTECTED, the others have X_u = 0. The blocks are computed for unit
 * noise and C_local divided by a power of two (the same mechanism), then
 * divided by sigma^2 through priv_blocks_set_scale: when that would leave
 * the double range (sigma = 1e-200 or 1e200) sigma stays in
 * PrivBlocks.scale and the report divides mu by it.
 * Returns: (transfer full) the blocks, or NULL with @error set:
 * PRIV_ERROR_INVALID_ARGUMENT (sizes, n_gossip not 1 or K*T, attackers,
 * C_local missing, KALMAN with MF-D-SGD), PRIV_ERROR_NUMERICAL (C_local
 * singular, LAPACK failure), PRIV_ERROR_MEMORY.
 */
PrivBlocks *priv_structured_blocks(const PrivStructuredProblem *problem, GError **error);

/* ---- Muffliato's original bound ---- */

/*
 * priv_muffliato_rdp: Muffliato's PNDP Renyi bound (Cyffers et al. 2022,
 * corrected Thm 11) for static @W, attacker set S = @attackers, every node u:
 *   eps_u(alpha) = alpha / (2 sigma^2) * min(T, sum_{s=0}^{T-1} (T - s)
 *                  sum_{w in Gamma(S)} (W^s)[u,w] / ||(W^s)[:,w]||^2),
 * sigma the noise multiplier (noise std sigma*Delta, sensitivity Delta).
 * Gamma(S) is the union of the members and their neighbours (the rows of W
 * of the members): for one attacker v it is Gamma(v) including v; for a
 * collusion set each observed node counts once, as if one attacker had
 * received every message the set receives. The columns W^s e_w are kept
 * scaled by powers of two (a column decaying below 1e-154 squares to 0
 * otherwise and its large terms were lost); alpha/(2 sigma^2) loss
 * overflows to +inf and never underflows a positive value to 0.
 * Returns: n values (g_free; NaN for members), or NULL with @error set
 * (PRIV_ERROR_INVALID_ARGUMENT). O(T |Gamma(S)| nnz(W)).
 */
double *priv_muffliato_rdp(const TopoGossip *W, guint T, const guint *attackers, guint n_attackers,
                           double alpha, double sigma, GError **error);

/* ---- Per-victim report ---- */

typedef struct {
  guint b;                     /* participation interval, divides T (0 = 1) */
  PrivSensitivity sensitivity; /* bound (default) or exact */
  double alpha;                /* RDP order > 1 (0 = 2) */
  double delta;                /* in (0, 1) (0 = 1e-6) */
} PrivAccountOptions;

typedef struct {
  guint node;
  gint distance; /* hops to the nearest attacker; -1 when unreachable or no graph */
  gboolean unprotected;
  double sensitivity; /* sqrt(sens^2); +inf when unprotected or unresolved */
  double mu;          /* = sensitivity (units: see above) */
  double rdp;         /* alpha mu^2 / 2 */
  double epsilon;     /* eps(delta) of mu-GDP */
  /* PRIV_NODE_UNRESOLVED blocks, or mu > PRIV_MU_RESOLVABLE_MAX: no
   * protection (+inf everywhere, unprotected FALSE), PRIV_UNRESOLVED_NOTE. */
  gboolean unresolved;
} PrivVictim;

typedef struct {
  guint T, b;
  PrivSensitivity sensitivity;
  double alpha, delta;
  guint n_victims;
  PrivVictim *victims; /* in increasing node order */
} PrivReport;

void priv_report_free(PrivReport *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivReport, priv_report_free)

/*
 * priv_account_report: from @blocks, per victim (every non-attacker node):
 * distance in @graph (nullable; BFS from the attackers), sensitivity under
 * cyclic (T/b, b)-participation, mu, RDP at alpha, eps at delta.
 * Unprotected victims get +inf everywhere, never a finite number; so do
 * UNRESOLVED victims, victims whose mu would exceed PRIV_MU_RESOLVABLE_MAX
 * (unresolved TRUE: no protection, no number) and victims whose block has a
 * non-finite entry (an accountant overflowed: no protection).
 * mu = sqrt(sens^2(X_u)) / blocks->scale, never 0 when sens^2 > 0.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (b not dividing T, alpha <= 1, delta
 * outside (0,1), graph of another size, scale <= 0), PRIV_ERROR_NUMERICAL (a
 * NaN sensitivity), those of priv_sensitivity2.
 * Complexity: n victims x priv_sensitivity2.
 */
PrivReport *priv_account_report(const PrivBlocks *blocks, const TopoGraph *graph,
                                const PrivAccountOptions *opt, GError **error);

/* ---- Certified local bounds (docs/local-bounds.md) ---- */

/* What priv_local_report accounted on. */
typedef struct {
  guint radius;
  guint ball;       /* |B_r|: the nodes within radius hops of the attackers, them included */
  guint shell;      /* |S_{r+1}|: the nodes at radius + 1 hops, made colluders */
  guint sub_nodes;  /* nodes of the subproblem given to priv_structured_blocks */
  gboolean covered; /* the shell is empty: the values are the exact ones */
} PrivLocalInfo;

/*
 * priv_local_report: certified upper bounds of the per-victim guarantees of
 * @problem (as priv_structured_blocks takes it, on the full graph) for the
 * victims within @radius hops of the attackers, from a subproblem on that
 * ball only. Every node outside the ball B_r colludes with the attackers
 * (more knowledge: a Loewner-larger X_u, so the exact sensitivity and mu can
 * only grow); their knowledge makes the outside known, so the ball's
 * dynamics with the original rows of W_r are the whole problem, the shell
 * S_{r+1} (merged into one observing node) seeing what it receives. Trust:
 * PNDP and SecLDP are kept; LDP becomes SecLDP for the enlarged set (its
 * colluders must know their own noise), unless the ball covers everything
 * the attackers hear from (the exact problem). Hops are counted on the union
 * over rounds of the supports of W_r.
 * With exact sensitivity the values are >= the exact ones and
 * non-increasing in @radius; with the Thm 5.2 bound they are still >= the
 * exact-sensitivity values of the original attackers but need not be
 * monotone in @radius. They are the exact values once the ball holds every
 * node connected to the attackers.
 * @radius: >= 1. @opt: as priv_account_report's. @info: (out) (optional).
 * Returns: (transfer full) the report of the victims of B_r (original node
 * ids, increasing; distance = hops), or NULL with @error set:
 * PRIV_ERROR_INVALID_ARGUMENT (radius 0, a W_r whose support is not
 * symmetric, those of priv_structured_blocks and priv_account_report),
 * PRIV_ERROR_MEMORY, PRIV_ERROR_NUMERICAL.
 * Complexity: O(K T nnz(W) log d) to check the supports, O(ball edges K T)
 * for the ball, then priv_structured_blocks on |B_r| + 1 nodes.
 */
PrivReport *priv_local_report(const PrivStructuredProblem *problem, guint radius,
                              const PrivAccountOptions *opt, PrivLocalInfo *info, GError **error);

/*
 * priv_local_ball: the sizes priv_local_report would account on (*@info),
 * without accounting: to tell a user what a long accounting is about to do.
 * Errors: those of priv_local_report's checks. Complexity: its hop counts.
 */
gboolean priv_local_ball(const PrivStructuredProblem *problem, guint radius, PrivLocalInfo *info,
                         GError **error);

/*
 * priv_matrix_read_csv: reads a numeric CSV matrix (one row per line, values
 * separated by ',', as priv_matrix_write_csv writes; blank lines skipped) into
 * a g_malloc'd row-major array; *@rows, *@cols receive its size.
 * Errors: G_FILE_ERROR (unreadable), PRIV_ERROR_INVALID_ARGUMENT
 * ("FILE:LINE:COLUMN: ..." for a non-numeric or non-finite value,
 * "FILE:LINE: ..." for a ragged row or an empty file).
 */
double *priv_matrix_read_csv(const char *path, guint *rows, guint *cols, GError **error);

/*
 * priv_mf_read_c: reads a noise correlation C_local for T steps from CSV
 * (priv_matrix_read_csv's format) and checks it is usable by MF-D-SGD:
 * T x T, lower triangular (entries above the diagonal at most 1e-12 times
 * the largest, then set to 0) with a nonzero diagonal (invertible, so each
 * node streams its noise from its past only). C is returned divided by its
 * largest |entry|: C and c C (c > 0) are the same mechanism (noise
 * nu C^-1 z, nu = sigma Delta sens(C)), so 1e154 C and 1e-300 C give every
 * reader exactly what C gives (when c C is exact) instead of overflowing
 * or underflowing C^T C.
 * Errors: G_FILE_ERROR (unreadable); PRIV_ERROR_INVALID_ARGUMENT with
 * FILE:LINE:COLUMN for a bad value or entry, FILE:LINE for a ragged row,
 * FILE for a wrong size.
 * Returns: the T x T row-major C (g_free), or NULL. O(T^2).
 */
double *priv_mf_read_c(const char *path, guint T, GError **error);

G_END_DECLS

#endif /* DPG_PRIVACY_H */
