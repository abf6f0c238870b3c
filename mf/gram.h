/*
 * mf/gram.h: the workload Gram matrices H of MF-D-SGD over a gossip, static
 * or time-varying, dense or in spectral form (docs/design.md, "Mafalda").
 */
#ifndef DPG_MF_GRAM_H
#define DPG_MF_GRAM_H

#include <glib.h>

#include "mf/base.h"

G_BEGIN_DECLS

/*
 * The two workloads of MF-D-SGD under LDP with local correlation
 * C = C_local kron I_n (paper, Lemma "equivalent optimization problem"):
 *   MF_WORKLOAD_POST_AVERAGE: the models after averaging, (I_T kron W) W_T;
 *     block (t, s) is W_t W_{t-1} ... W_s for t >= s (W^{t-s+1} when static).
 *   MF_WORKLOAD_MESSAGES: the messages (models before averaging), W_T;
 *     block (t, s) is W_{t-1} ... W_s (W^{t-s}; the identity when t = s).
 * In both cases H = sum_i A_i^T A_i (T x T), A_i = node i's columns.
 */
typedef enum {
  MF_WORKLOAD_POST_AVERAGE,
  MF_WORKLOAD_MESSAGES,
} MfWorkload;

/* Parses "post-average" or "messages". Errors: MF_ERROR_INVALID_ARGUMENT. */
gboolean mf_workload_parse(const char *name, MfWorkload *out, GError **error);
/* The name mf_workload_parse accepts for @w (static string). */
const char *mf_workload_name(MfWorkload w);

/* How mf_gram_static computes the Frobenius products <W^a, W^c>_F. */
typedef enum {
  /* EIGEN when W is reversible (D W symmetric for a positive diagonal D, as
   * uniform, Metropolis and max-degree gossip are), POWERS otherwise. */
  MF_GRAM_AUTO,
  /* W = D^{-1/2} S D^{1/2} with S = U diag(l) U^T symmetric: then
   * <W^a, W^c>_F = sum_ij l_i^a M_ij l_j^c with M = (U^T D^-1 U) o (U^T D U)
   * (o: entrywise product). O(n^3 + n^2 T + n T^2) time, O(n^2 + nT + T^2)
   * memory. Fails with MF_ERROR_INVALID_ARGUMENT if W is not reversible. */
  MF_GRAM_EIGEN,
  /* Stores the T powers of W and takes their Gram matrix. O(n^3 T + n^2 T^2)
   * time, O(n^2 T + T^2) memory; any W. */
  MF_GRAM_POWERS,
} MfGramMethod;

/*
 * mf_gram_static:
 * @W: n x n gossip matrix, row-major.
 * @n: number of nodes, >= 1.
 * @T: number of rounds, >= 1.
 * @workload: which workload (see MfWorkload).
 * @method: how to compute the Frobenius products (see MfGramMethod).
 * @max_bytes: memory budget for the computation, 0 = the machine's physical
 *   memory; exceeding it is MF_ERROR_MEMORY with the amount needed.
 * @error: return location for a GError, or NULL.
 *
 * Computes H[s,s'] = sum_{t=max(s,s')}^{T-1} <W^{t-s+e}, W^{t-s'+e}>_F, e = 1
 * (post-average) or 0 (messages), by the recursion
 * H[s,s'] = F[T-1-s, T-1-s'] + H[s+1, s'+1], F[a,c] = <W^{a+e}, W^{c+e}>_F
 * (docs/design.md, "Mafalda"; paper eq. "gram workload def"). Never builds an
 * nT x nT matrix.
 *
 * Returns: the T x T matrix H (g_free), or NULL with @error set:
 * MF_ERROR_INVALID_ARGUMENT (sizes, non-finite W, EIGEN on a non-reversible
 * W), MF_ERROR_MEMORY, MF_ERROR_NUMERICAL (eigensolver failure, overflow).
 */
double *mf_gram_static(const double *W, guint n, guint T, MfWorkload workload, MfGramMethod method,
                       gsize max_bytes, GError **error);

/*
 * MfGramSpectral: H of a static reversible W without its T^2 entries:
 * H[s,s'] = sum_{t >= max(s,s')} (l^{t-s+e})^T M l^{t-s'+e}, l the
 * eigenvalues of W and M the n x n matrix of mf_gram_static's EIGEN method
 * (e = 1 post-average, 0 messages). n + n^2 doubles whatever T.
 */
typedef struct {
  guint n, T, e;
  double *lambda; /* n eigenvalues */
  double *M;      /* n x n, symmetric positive semidefinite */
  /* The Frobenius form instead (mf_gram_spectral_from_frobenius; lambda and
   * M NULL, n 0): F[a,c] = <W^{a+e}, W^{c+e}>_F for a, c < T, rows @ld
   * apart (ld >= T: a shorter horizon reads F's top-left block, as the
   * warm starts of the Toeplitz and BLT fits do). T^2 doubles whatever n. */
  double *F;
  guint ld;
} MfGramSpectral;

/*
 * mf_gram_spectral_new: the spectral form of H for @W (n x n, row-major,
 * reversible), @T rounds and @workload. Errors: MF_ERROR_INVALID_ARGUMENT
 * (sizes, non-finite or non-reversible W), MF_ERROR_NUMERICAL
 * (eigensolver). O(n^3) time, O(n^2) memory.
 */
MfGramSpectral *mf_gram_spectral_new(const double *W, guint n, guint T, MfWorkload workload,
                                     GError **error);
void mf_gram_spectral_free(MfGramSpectral *g);

/*
 * mf_gram_spectral_from_frobenius: the Frobenius form of H from @F (T x T,
 * row-major, symmetric: F[a,c] = <W^{a+e}, W^{c+e}>_F, or its estimate
 * from mf_gram_sketch_static), copied, for the same consumers as the
 * spectral form (mf_toeplitz_trace, the Toeplitz and BLT fits,
 * mf_gram_spectral_dense) without W's eigendecomposition: each trace costs
 * O(T^3) instead of O(n^2 T). Errors: MF_ERROR_INVALID_ARGUMENT (T = 0,
 * unknown workload, a non-finite entry). O(T^2).
 */
MfGramSpectral *mf_gram_spectral_from_frobenius(const double *F, guint T, MfWorkload workload,
                                                GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MfGramSpectral, mf_gram_spectral_free)

/*
 * mf_gram_spectral_dense: the T x T matrix H of @g (g_free), the same to the
 * bit as mf_gram_static's EIGEN method on the W @g was made from, without a
 * second eigendecomposition: O(n^2 T + n T^2) time, O(nT + T^2) memory.
 * Errors: MF_ERROR_MEMORY, MF_ERROR_NUMERICAL (overflow).
 */
double *mf_gram_spectral_dense(const MfGramSpectral *g, GError **error);

/*
 * MfGossipAtFunc: returns W_t, the n x n row-major gossip matrix of round t
 * (0 <= t < T). The pointer must stay valid until the next call.
 */
typedef const double *(*MfGossipAtFunc)(guint t, gpointer user_data);

/*
 * mf_gram_time_varying:
 * @n, @T, @workload, @error: as for mf_gram_static.
 * @gossip_at: gives W_t; called O(T^2) times, t in decreasing runs.
 * @user_data: passed to @gossip_at.
 *
 * H for time-varying gossip (paper appendix C, "time-varying gossip"), by a
 * backward recursion: G_s = W_s^T (I + G_{s+1}) W_s (post-average) or
 * I + W_s^T G_{s+1} W_s (messages), G_T = 0, so that G_s = sum_{t>=s} P(t,s)^T
 * P(t,s); then H[s,s'] = tr(Y_s) with Y_{s'} = G_{s'}, Y_s = W_s^T Y_{s+1}
 * for s < s'. O(n^3 T^2) time, O(n^2 + T^2) memory.
 *
 * Returns: H (g_free), or NULL with @error set (MF_ERROR_INVALID_ARGUMENT,
 * MF_ERROR_MEMORY).
 */
double *mf_gram_time_varying(guint n, guint T, MfWorkload workload, MfGossipAtFunc gossip_at,
                             gpointer user_data, GError **error);

/*
 * mf_gram_time_varying_state: mf_gram_time_varying for a linear system
 * whose state has @N >= @n coordinates, the first @n the nodes' models
 * (they receive the noise, and the workload is made of them) and the
 * others carried state (stale mode's slots holding late messages,
 * docs/accounting-at-scale.md "Stale mode: a delay-augmented state"):
 * @gossip_at gives the N x N W_t, and block (t, s) of the workload is
 * E^T W_t ... W_s E (post-average; messages E^T W_{t-1} ... W_s E), E the
 * N x n injection of the models. The recursion is G_s = W_s^T (Pi +
 * G_{s+1}) W_s (messages Pi + W_s^T G_{s+1} W_s), Pi = E E^T, and H[s,s']
 * the trace of Y_s's model block. @N = @n is mf_gram_time_varying, to the
 * bit. O(N^3 T^2) time, O(N^2 + T^2) memory. Errors: those of
 * mf_gram_time_varying, MF_ERROR_INVALID_ARGUMENT when N < n.
 */
double *mf_gram_time_varying_state(guint n, guint N, guint T, MfWorkload workload,
                                   MfGossipAtFunc gossip_at, gpointer user_data, GError **error);

/*
 * mf_gram_time_varying_classes: mf_gram_time_varying's H split by the
 * classes of the nodes whose noise it carries: class c's Gram matrix
 * H_c = sum_{v in c} A_v^T A_v, A_v the workload's columns of node v
 * (H_c[s,s'] the partial trace of Y_s over class c's nodes), so that
 * sum_c H_c = H and a node's noise correlation C_v enters only its class's
 * term: E||error||^2 = sum_c sens(C_c)^2 tr(H_c (C_c^T C_c)^-1) when class c
 * uses C_c (docs/design.md "Per-class C"). @node_class: n entries, each
 * < @n_classes. Cost and errors as mf_gram_time_varying's, plus O(n T^2)
 * for the partial traces and MF_ERROR_INVALID_ARGUMENT for a class out of
 * range. Returns: n_classes T x T matrices, class after class (g_free).
 */
double *mf_gram_time_varying_classes(guint n, guint T, MfWorkload workload,
                                     MfGossipAtFunc gossip_at, gpointer user_data,
                                     const guint *node_class, guint n_classes, GError **error);

/*
 * mf_probe_sign: the Rademacher sign (+1 or -1) of node @u in probe @k of
 * mf_gram_sketch's probes seeded @seed (Z NULL), for callers that restrict
 * the same probes to some nodes. O(1).
 */
double mf_probe_sign(guint64 seed, guint k, guint u);

/*
 * mf_gram_iid:
 * @n, @T, @workload: as for mf_gram_static.
 * @M: E[W], n x n row-major, for a round's random gossip matrix W.
 * @Q: E[W kron W], n^2 x n^2 row-major: Q[((c n + d) n + a) n + b] =
 *   E[W_ca W_db] (the second moment of one round).
 * @max_bytes: memory budget (0 = physical memory), MF_ERROR_MEMORY beyond.
 * @error: return location for a GError, or NULL.
 *
 * E[H] when W_0 .. W_{T-1} are independent and identically distributed
 * (random matchings, i.i.d. edge failures): the recursion of
 * mf_gram_time_varying in expectation, E[G_s] = Phi(I + E[G_{s+1}])
 * (post-average) or I + Phi(E[G_{s+1}]) (messages) with Phi(Y) = E[W^T Y W],
 * and E[H][s,s'] = <M^{s'-s}, E[G_{s'}]>_F for s <= s' (docs/design.md,
 * "Mafalda over a changing network"). Exact: no sampling.
 * O(T n^4 + T n^3 + T^2 n^2) time, O(T n^2 + T^2) memory besides @Q.
 *
 * Returns: E[H] (T x T, g_free), or NULL with @error set
 * (MF_ERROR_INVALID_ARGUMENT, MF_ERROR_MEMORY, MF_ERROR_NUMERICAL).
 */
double *mf_gram_iid(guint n, guint T, MfWorkload workload, const double *M, const double *Q,
                    gsize max_bytes, GError **error);

/*
 * mf_loss_samples: the loss of @C (mf_loss) on each of the @S >= 2 Gram
 * matrices @H[i] (T x T, e.g. of independently sampled schedules): *@mean is
 * their mean (an unbiased estimate of the expected loss when the H[i] are
 * independent draws, and the loss on their mean H, by linearity) and
 * *@std_error its standard error, the samples' standard deviation over
 * sqrt(S). Errors: MF_ERROR_INVALID_ARGUMENT (S < 2), those of mf_loss.
 * O(S T^3).
 */
gboolean mf_loss_samples(const double *const *H, guint S, const double *C, guint T, guint k,
                         guint b, double *mean, double *std_error, GError **error);

/*
 * MfGossipApplyFunc: y = W_t x for the first @d columns of the n rows of
 * @x and @y (row u at x + u @ld; @x and @y do not overlap). Columns from
 * @d on are left alone.
 */
typedef void (*MfGossipApplyFunc)(guint t, const double *x, double *y, guint d, gsize ld,
                                  gpointer user_data);

/*
 * mf_gram_sketch:
 * @n, @T, @workload: as for mf_gram_time_varying.
 * @apply: applies W_t (sparse or not); called T times per block of 16 probes.
 * @user_data: passed to @apply.
 * @K: number of probes, >= 1.
 * @seed: the probes' Rademacher signs (z_k[u] a hash of seed, k and u alone:
 *   the same probes whatever the block size).
 * @Z: NULL (Rademacher), or the n x K row-major probes themselves.
 * @max_bytes: memory budget (0 = physical memory), MF_ERROR_MEMORY beyond.
 * @error: return location for a GError, or NULL.
 *
 * Hutchinson's estimates of mf_gram_time_varying's H without an n x n
 * matrix: H[s,s'] = sum_{t >= max(s,s')} <P_t,s, P_t,s'>_F with P_t,s the
 * workload's block (t, s), and <A, B>_F = E[(A z)^T (B z)] for any z with
 * E[z z^T] = I. Probe k gives H_k[s,s'] = sum_t (P_t,s z_k)^T (P_t,s' z_k),
 * a positive semidefinite unbiased estimate of H (Rademacher z: E = H); the
 * K of them are independent, so their mean estimates H and their spread
 * its error (mf_loss_samples). With Z = sqrt(n) times the n columns of I,
 * the mean is H itself (up to rounding).
 * O(K (T^2 nnz + T^3 n)) time (nnz: entries of a sparse W_t), O(n T min(K,
 * 16) + K T^2) memory.
 *
 * Returns: K matrices T x T (free each and the array with g_free), or NULL
 * with @error set (MF_ERROR_INVALID_ARGUMENT, MF_ERROR_MEMORY,
 * MF_ERROR_NUMERICAL).
 */
double **mf_gram_sketch(guint n, guint T, MfWorkload workload, MfGossipApplyFunc apply,
                        gpointer user_data, guint K, guint64 seed, const double *Z,
                        gsize max_bytes, GError **error);

/*
 * mf_gram_sketch_state: mf_gram_sketch over a state of @N >= @n
 * coordinates whose first @n are the models (mf_gram_time_varying_state):
 * @apply maps the N rows, each probe starts on the models (the carried
 * state at 0) and the estimate sums over the models' rows, so that its
 * mean is mf_gram_time_varying_state's H. @N = @n is mf_gram_sketch, to
 * the bit. O(K (T^2 nnz + T^3 n)) time, O(N T min(K, 16) + K T^2) memory.
 * Errors: those of mf_gram_sketch, MF_ERROR_INVALID_ARGUMENT when N < n.
 */
double **mf_gram_sketch_state(guint n, guint N, guint T, MfWorkload workload,
                              MfGossipApplyFunc apply, gpointer user_data, guint K, guint64 seed,
                              const double *Z, gsize max_bytes, GError **error);

/*
 * mf_gram_sketch_static:
 * @n, @T, @workload, @K, @seed, @Z, @max_bytes, @error: as for
 *   mf_gram_sketch (the same probes z_k for the same seed).
 * @apply: applies the static W (called with t = 0 and d = 1 only).
 * @user_data: passed to @apply.
 *
 * mf_gram_sketch's estimates for a static W, in Frobenius form: F_k[a,c] =
 * (W^{a+e} z_k)^T (W^{c+e} z_k), a, c < T (e = 1 post-average, 0
 * messages), an unbiased estimate of <W^{a+e}, W^{c+e}>_F; probe k's Gram
 * estimate is mf_gram_from_frobenius(F_k), the same as mf_gram_sketch's
 * H_k up to rounding (H_k[s,s'] = sum_t F_k[t-s, t-s'] over t >= max(s,
 * s')), but from T products with W per probe instead of T^2 / 2, and no
 * n x n matrix. O(K (T nnz + T^2 n)) time, O(n T + K T^2) memory.
 *
 * Returns: K symmetric matrices T x T (free each and the array with
 * g_free), or NULL with @error set (MF_ERROR_INVALID_ARGUMENT,
 * MF_ERROR_MEMORY naming the bytes, MF_ERROR_NUMERICAL on overflow).
 */
double **mf_gram_sketch_static(guint n, guint T, MfWorkload workload, MfGossipApplyFunc apply,
                               gpointer user_data, guint K, guint64 seed, const double *Z,
                               gsize max_bytes, GError **error);

/*
 * mf_gram_from_frobenius: H[s,s'] = sum_{t >= max(s,s')} F[t-s, t-s'] for
 * the T x T Frobenius products @F (mf_gram_static's recursion), g_free.
 * Errors: MF_ERROR_INVALID_ARGUMENT (T = 0), MF_ERROR_NUMERICAL (a
 * non-finite result). O(T^2).
 */
double *mf_gram_from_frobenius(const double *F, guint T, GError **error);

/*
 * mf_gram_node: node @node's own Gram matrix H_i = A_i^T A_i (static W),
 * for per-node Mafalda; the sum over nodes of H_i is mf_gram_static's H.
 * F_i[a,c] = <W^{a+e} e_i, W^{c+e} e_i> from the T vectors W^a e_i:
 * O(n^2 T + n T^2) time, O(n T + T^2) memory. @node < @n; other parameters
 * and errors as for mf_gram_static.
 */
double *mf_gram_node(const double *W, guint n, guint node, guint T, MfWorkload workload,
                     gsize max_bytes, GError **error);

/*
 * mf_gram_check_memory: fails with MF_ERROR_MEMORY, saying how much would
 * be needed, when the dense n x n W plus mf_gram_static's work on a
 * reversible W (the EIGEN path: about 4 n^2 + 2 nT + 2 T^2 doubles in all)
 * exceed @max_bytes (0 = physical memory). Lets a caller refuse a graph
 * before densifying its gossip matrix. O(1).
 */
gboolean mf_gram_check_memory(guint n, guint T, gsize max_bytes, GError **error);

/*
 * mf_gram_prefix_sum: the Gram matrix A^T A of the centralized prefix-sum
 * workload (A lower-triangular ones): (A^T A)[s,t] = T - max(s,t). The
 * workload DMF (centralized multi-epoch MF) optimizes for. O(T^2).
 * Returns NULL with @error set when T is 0 or T*T overflows.
 */
double *mf_gram_prefix_sum(guint T, GError **error);

G_END_DECLS

#endif /* DPG_MF_GRAM_H */
