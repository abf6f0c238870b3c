/*
 * privacy/structured_internal.h: what the structured accounting engines
 * (structured_kalman.c, structured_dense.c) share with structured.c.
 * Not public.
 */
#ifndef DPG_PRIVACY_STRUCTURED_INTERNAL_H
#define DPG_PRIVACY_STRUCTURED_INTERNAL_H

#include "privacy/internal.h"

/*
 * A synchronous run seen by an attacker set, in gossip rounds r = 0 .. R-1
 * (R = K T): at round r every node v holds its half-step model x_r[v] and
 * sends it to its W_r-neighbours; the attackers see x_r[w] for w in recv(r);
 * x_{r+1} = W_r x_r + inj_{r+1}, where the injection (gradient plus noise)
 * happens at the rounds r = kK (step k). The noise of the `noisy` nodes is
 * unknown to the attackers (the others' is known and subtracted).
 */
typedef struct {
  guint n, T, K, R;
  /* The nodes (blocks, victims, messages): n less the stale-mode slots of
   * the state (PrivStructuredProblem.n_delayed), which get no injection and
   * are never seen. */
  guint n_nodes;
  const TopoGossip *const *gossip;
  guint n_gossip;                    /* 1 (static) or R */
  const PrivRoundMessages *messages; /* NULL or R rounds (PrivStructuredProblem) */
  const gboolean *attacker;          /* n */
  /* n: PrivStructuredProblem.relays (injection known, no victim, observes
   * nothing); NULL: none. */
  const gboolean *relay;
  const gboolean *noisy; /* n: injection noise unknown to the attackers */
  guint *victims;        /* the non-attackers in increasing order */
  guint n_victims;
  guint *noisy_nodes; /* the noisy nodes in increasing order (victims among them) */
  guint n_noisy;
  guint *recv_start; /* R + 1 offsets into recv */
  guint *recv;       /* recv(r) = recv[recv_start[r] .. recv_start[r+1]) */
  guint max_recv;
  /* DECOR: the secrets' variance in units of the local noise's,
   * (sigma_secret / sigma)^2 (0: no secret), and the nodes whose edges'
   * secrets the attackers know (NULL: none, LDP). */
  double secret_var;
  const gboolean *secret_known;
  /* DECOR: the gossip carrying the secrets (PrivStructuredProblem.
   * secret_gossip: 1 or R matrices on the n_nodes nodes); NULL: gossip. */
  const TopoGossip *const *secret_gossip;
  guint n_secret_gossip;
  /* MF-D-SGD with a C per class of nodes (PrivStructuredProblem.C_class):
   * each class's noise factor r_c C_c^-1, r_c = sens(C_c) / sens(C_0), for
   * unit sigma (T x T, class after class) and each node's class; the
   * engines then ignore their Cinv and take class 0's scale 1 / sens(C_0)^2
   * (so that one class is the one C to the bit: r_0 = 1). NULL: the one
   * Cinv the engines are given. */
  const double *cinv_set;
  const guint *cinv_class;
  guint n_cinv;
  /* MF-D-SGD on the Kalman engine: the noise's state-space form, one per
   * class of C (n_cinv of them, class c's output scaled by r_c; one without
   * classes), node v's being priv_struct_noise_of(c, v); NULL: white noise.
   * Noisy node i carries its own class's p values of state, the entries
   * n + noise_slot[i] .. n + noise_slot[i + 1] - 1 after the n entries
   * (noise_slot: n_noisy + 1 offsets), so classes of different orders
   * share the state without padding. */
  const struct PrivNoiseState *noise;
  const guint *noise_slot;
  gsize max_bytes;
  guint threads;
  void (*progress)(double fraction, const char *what, gpointer data);
  gpointer progress_data;
} PrivStructCtx;

/*
 * The state-space form of one node's correlated noise nu = C^-1 z over its
 * T steps (priv_noise_state_of): nu_k = h_k . s_k + d_k z_k,
 * s_{k+1} = A_k s_k + b_k z_k, s_0 = 0, z white, p values of state (the
 * unused ones of a step zero).
 */
typedef struct PrivNoiseState {
  guint T, p;
  double *A;  /* T x p x p (row-major per step) */
  double *b;  /* T x p */
  double *h;  /* T x p */
  double *d;  /* T */
  double err; /* largest |entry| by which it misses C^-1 (the rebuild check) */
} PrivNoiseState;

/*
 * priv_noise_state_of: the realization of C^-1 (@Cinv, of the lower-
 * triangular T x T @C) from the row bases of its Hankel blocks, of order at
 * most @p_max, into @s (priv_noise_state_clear frees it); rebuilds C^-1 from
 * it and checks the difference against the rounding level.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (C not lower triangular; order above
 * @p_max, the reason in the message), PRIV_ERROR_NUMERICAL (SVD failure,
 * the rebuild off). O(T^4 / 12) for the T SVDs, T^2 doubles.
 */
gboolean priv_noise_state_of(const double *C, const double *Cinv, guint T, guint p_max,
                             PrivNoiseState *s, GError **error);
void priv_noise_state_clear(PrivNoiseState *s);

/* Node @v's noise realization on the Kalman engine (c->noise set): its
 * class's. O(1). */
static inline const PrivNoiseState *priv_struct_noise_of(const PrivStructCtx *c, guint v) {
  return c->noise + (c->cinv_class ? c->cinv_class[v] : 0);
}

/* W_r of round r. */
static inline const TopoGossip *priv_struct_gossip(const PrivStructCtx *c, guint r) {
  return c->gossip[c->n_gossip == 1 ? 0 : r];
}

/* The matrix whose undirected support carries DECOR's secrets of round r:
 * the schedule's W_r on a delivery record, else W_r itself. */
static inline const TopoGossip *priv_struct_secret_gossip(const PrivStructCtx *c, guint r) {
  if (c->secret_gossip == NULL)
    return priv_struct_gossip(c, r);
  return c->secret_gossip[c->n_secret_gossip == 1 ? 0 : r];
}

/*
 * Adds scale * J_u to each victim's block (lower and upper triangles), J the
 * Fisher information of the victim's T injections in the messages the
 * attackers receive, with unit-variance white noise injected alongside the
 * gradient. Kalman innovations with W applied sparse; see PRIV_ENGINE_KALMAN.
 * Calls c->progress when set.
 */
gboolean priv_struct_kalman(const PrivStructCtx *c, double scale, PrivBlocks *blocks,
                            GError **error);

/* Its estimated cost in multiply-adds (to choose an engine). O(1). */
double priv_struct_kalman_work(const PrivStructCtx *c);
/* The size of its state: n, plus each noisy node's class's order p with
 * c->noise. O(1). */
guint priv_struct_kalman_state(const PrivStructCtx *c);
/* The bytes its memory pre-check asks for (the result included). O(1). */
gsize priv_struct_kalman_bytes(const PrivStructCtx *c);

/* The largest state per node of correlated noise the Kalman engine takes
 * (priv_noise_state_of's p_max): a banded C of band up to 17, a BLT of up
 * to 16 buffers. Beyond, the state costs more than the W-product engines. */
#define PRIV_NOISE_STATE_MAX 16u

/*
 * The same blocks from the powers of a static W applied to the nodes the
 * attackers hear (no n x n matrix; see PRIV_ENGINE_POWERS), for white noise
 * (@Cinv NULL) or each node's noise over its steps correlated as Cinv z_v
 * (MF-D-SGD, Cinv T x T): the messages' covariance then weighs every pair
 * of injections by Q = Cinv Cinv^T, the gradients' columns are unchanged.
 * Victims whose value rests on a rank decision near its threshold are
 * UNRESOLVED.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (not priv_struct_powers_applies),
 * PRIV_ERROR_MEMORY, PRIV_ERROR_NUMERICAL.
 */
gboolean priv_struct_powers(const PrivStructCtx *c, const double *Cinv, double scale,
                            PrivBlocks *blocks, GError **error);
/* Whether it describes @c: a static W (the attackers then hear the same
 * nodes in every round). O(R q). */
gboolean priv_struct_powers_applies(const PrivStructCtx *c);
/* Its estimated cost in multiply-adds, as priv_struct_kalman_work, with
 * white (@correlated FALSE) or correlated noise. O(1). */
double priv_struct_powers_work(const PrivStructCtx *c, gboolean correlated);
/* The bytes its memory pre-check asks for (the result excluded). O(1). */
gsize priv_struct_powers_bytes(const PrivStructCtx *c);

/* A sparse multiply-add costs about this many dense ones (memory-bound
 * gathers against BLAS kernels), in the engines' cost estimates. */
#define PRIV_SPARSE_WEIGHT 8.0

/*
 * The same blocks with every closed-loop propagator F_r kept as a dense
 * n x n matrix (the reference for priv_struct_kalman); see
 * PRIV_ENGINE_KALMAN_DENSE.
 */
gboolean priv_struct_kalman_dense(const PrivStructCtx *c, double scale, PrivBlocks *blocks,
                                  GError **error);

/*
 * Same with the noise of node v over its steps correlated as Cinv z_v
 * (Cinv T x T; NULL for white noise): X_u = scale * M_u^T K^+ M_u. See
 * PRIV_ENGINE_DENSE.
 */
gboolean priv_struct_dense(const PrivStructCtx *c, const double *Cinv, double scale,
                           PrivBlocks *blocks, GError **error);
/* Its estimated cost in multiply-adds (@correlated: with Cinv) and the bytes
 * its memory pre-check asks for, to choose an engine. O(1). */
double priv_struct_dense_work(const PrivStructCtx *c, gboolean correlated);
gsize priv_struct_dense_bytes(const PrivStructCtx *c);

/* Relative threshold below which a variance (eigenvalue or pivot) of the
 * messages counts as zero: those messages repeat earlier ones. */
#define PRIV_STRUCT_RANK_TOL 1e-11

/*
 * priv_struct_whiten: the whitening of round @r's messages, shared by both
 * Kalman engines so that they keep the same directions. Sigma = P[rv, rv]
 * (@q0 received nodes @rv, read from the lower triangle of the n x n @P);
 * writes L_w = diag(lam^-1/2) V^T on the eigenpairs above
 * PRIV_STRUCT_RANK_TOL lam_max into the first rows of @Lw (q x q0,
 * row-major): directions below are messages that repeat earlier ones and
 * carry no information. @S (q0 x q0) and @lam (q0) are scratch.
 * Returns: the number q of rows kept, or -1 with @error set
 * (PRIV_ERROR_NUMERICAL: the eigensolver failed). O(q0^3).
 */
gint priv_struct_whiten(const double *P, guint n, const guint *rv, guint q0, guint r, double *S,
                        double *lam, double *Lw, GError **error);

/* Raises *@cond (PrivBlocks.cond) to the condition number of the @q
 * directions priv_struct_whiten kept of @q0, from its ascending @lam. O(1). */
static inline void priv_struct_note_cond(double *cond, const double *lam, guint q0, guint q) {
  if (q > 0 && lam[q0 - q] > 0.0)
    *cond = MAX(*cond, lam[q0 - 1] / lam[q0 - q]);
}

/* The scratch of one round's whitening and gain in the Kalman engines, for
 * rounds of at most @qm received nodes among @n: @S, @lam and @Lw for
 * priv_struct_whiten, @PR for priv_struct_gain. */
typedef struct {
  double *S, *lam, *Lw, *PR;
} PrivKalmanScratch;

/* Allocates @s's arrays (priv_kalman_scratch_clear frees them). O(n qm). */
void priv_kalman_scratch_init(PrivKalmanScratch *s, guint n, guint qm);
void priv_kalman_scratch_clear(PrivKalmanScratch *s);

/*
 * priv_struct_gain: Y = P[:, rv] L_w^T (n x q, row-major), the factor of
 * round r's gain through which both Kalman engines condition the prior
 * (P -= Y Y^T): @P n x n, read from its lower triangle, @rv the @q0
 * received nodes, @Lw the q x q0 whitening of priv_struct_whiten. @PR
 * (n x q0) is scratch. O(n q0 q).
 */
void priv_struct_gain(const double *P, guint n, const guint *rv, guint q0, guint q,
                      const double *Lw, double *PR, double *Y);

/* Adds the injection of round @r (an injection round) to the n x n prior
 * @P, both triangles: unit variance at each noisy node, and DECOR's
 * secret_var times the Laplacian of round r's unknown-secret edges
 * (priv_struct_secret_edges).
 * O(n_noisy), plus O(n + nnz(W_r)) with secrets. */
void priv_struct_inject(const PrivStructCtx *c, guint r, double *P);

/*
 * priv_struct_secret_edges: DECOR's edges of round @r whose secrets the
 * attackers do not know: the undirected support of
 * priv_struct_secret_gossip(c, r) (self-loops excluded) less the edges
 * with an end in c->secret_known, as pairs
 * (a, b), a < b, in increasing order of b then a. Returns them
 * (g_free; 2 * *@m guints). O(n + nnz(W_r)).
 */
guint *priv_struct_secret_edges(const PrivStructCtx *c, guint r, gsize *m);

/*
 * priv_struct_decor_closed: DECOR's blocks when the attackers see every
 * node's message in every round (LDP, SecLDP): each step's injection is
 * known, so X_u[t,t] = scale * (Q_t^-1)_{uu} with
 * Q_t = I + secret_var L'_t over the noisy nodes (those whose injection is
 * unknown), one Cholesky and triangular inverse per distinct W_t.
 * Errors: PRIV_ERROR_MEMORY (n_noisy^2 doubles over the budget),
 * PRIV_ERROR_NUMERICAL (LAPACK failure). O(n_noisy^3) per distinct W_t,
 * n_noisy^2 doubles.
 */
gboolean priv_struct_decor_closed(const PrivStructCtx *c, double scale, PrivBlocks *blocks,
                                  GError **error);

/*
 * The backward pass of the Kalman engines (priv_struct_walk_back): the
 * whitened innovation rows Omega_{r,s} = L_r E_r F_{r-1} ... F_s of a chunk
 * of consecutive rounds are carried back together on a stack, each engine
 * in its own layout; at an injection round s, the stack's victim columns
 * are those victims' rows for step s/K. The engine's four actions, on
 * @data:
 */
typedef struct {
  /* Round s's own q rows Omega_{s,s} = L_s E_s become the stack's rows
   * [filled, filled + q). */
  void (*seed)(void *data, guint s, guint filled, guint q);
  /* The stack's first @filled rows hold step @step's columns: copy the
   * victims' columns out. */
  void (*collect)(void *data, guint step, guint filled);
  /* The stack's first @filled rows times F_@p (the step back from round
   * p + 1 to p). */
  void (*step)(void *data, guint p, guint filled);
  /* The chunk's @rows rows are complete for steps 0 .. @kn - 1: add them to
   * the lower triangles of the victims' blocks and clear the buffers. */
  void (*flush)(void *data, guint rows, guint kn);
} PrivKalmanWalk;

/*
 * priv_struct_walk_back: the walk both Kalman engines share, so that they
 * group rounds and order their products alike. Rounds [r0, r1) form a chunk
 * when their rows fit in @cap (round r has @start[r + 1] - @start[r] rows,
 * @start R + 1 offsets; cap >= each round's rows); each chunk is walked from
 * its last round down to round 0, seeding the rounds of the chunk, collecting
 * at injection rounds and stepping back, then flushed. At the end the
 * victims' blocks of @blocks are made symmetric (upper triangle from the
 * lower). O(R^2 / chunk) calls, plus O(n_victims T^2).
 */
void priv_struct_walk_back(const PrivStructCtx *c, const guint *start, guint cap,
                           const PrivKalmanWalk *walk, void *data, PrivBlocks *blocks);

/* A CSR matrix (W or W^T of one round). */
typedef struct {
  guint n;
  guint *ptr; /* n + 1 */
  guint *col;
  double *val;
} PrivCsr;

/* Frees @m's arrays (a zeroed PrivCsr allowed). */
void priv_csr_clear(PrivCsr *m);
/* @m = W (@transpose FALSE) or W^T of the gossip matrix @w, rows sorted by
 * column (replaces what @m held). O(n + nnz). */
void priv_csr_of(const TopoGossip *w, gboolean transpose, PrivCsr *m);

typedef enum {
  /* y[a, 0..width) = sum_j M[a,j] x[j, 0..width) (row strides ldx, ldy) */
  PRIV_K_APPLY,
  /* y[a, b] = sum_j M[b,j] x[a,j] for b <= a: the lower triangle of x M^T
   * (x n x n with stride ldx) */
  PRIV_K_RIGHT_LOWER,
  /* y[a, b] = sum_j M[b,j] x[a,j] for every row b of M: x M^T, M of any
   * number of rows, x of ldx columns (M's column indices) */
  PRIV_K_RIGHT,
  /* APPLY's y[a, 0..a]: the lower triangle of M x (x of at least as many
   * columns as M has rows) */
  PRIV_K_APPLY_LOWER,
} PrivKernelKind;

typedef struct {
  PrivKernelKind kind;
  const PrivCsr *m;
  const double *x;
  double *y;
  guint width, ldx, ldy;
  guint lo, hi; /* output rows (set by priv_kernel_par) */
} PrivKernel;

/*
 * priv_kernel_par: runs the product @base over output rows [0, @rows) on up
 * to @threads threads, each a fixed range of rows: every output entry is one
 * thread's sum in a fixed order, so the result does not depend on @threads.
 * O(nnz width) for APPLY, O(nnz rows / 2) for RIGHT_LOWER and APPLY_LOWER,
 * O(nnz rows) for RIGHT.
 */
void priv_kernel_par(PrivKernel base, guint rows, guint threads);

#endif /* DPG_PRIVACY_STRUCTURED_INTERNAL_H */
