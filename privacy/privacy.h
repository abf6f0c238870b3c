/*
 * privacy/privacy.h: privacy accounting: trust models, the observer, the
 * dense, streaming and structured accountants, GDP conversions and the
 * per-victim report. The noise strategies they account for (C_local, its
 * sensitivity) are mf/'s; this module uses mf/ for sensitivity only.
 *
 * Matrices are dense, row-major arrays of doubles (T x T matrices are indexed
 * M[s * T + t]). Time is 0-based: rounds 0 .. T-1. Participation: cyclic
 * (k,b)-participation as in mf/base.h.
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

#include "mf/sensitivity.h"
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
 * by a view and c = n (t+1) gradient columns so far: O((S + k)(S + k + m) c)
 * plus O(k t^2) per victim; memory O(S n T) per view plus its n T^2 blocks.
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
  /* DENSE for MF-D-SGD; for D-SGD and Muffliato POWERS on a static W when
   * its estimated cost is below KALMAN's, else KALMAN. */
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
  /* White noise, static W only. The messages' columns are entries of the
   * powers (W^T)^j e_w of the m nodes w the attackers hear, so their Gram
   * Sigma (q x q, q = R m) and each victim's columns come from R m sparse
   * power vectors, and Sigma^+ from the innovations of the rounds in order
   * (KALMAN's whitening and rank threshold on the same matrices); a victim
   * whose value rests on a decision within 100x of that threshold is
   * UNRESOLVED. O(R m nnz + n q^2 T + q^3) time, O(n q + q^2 + n T^2)
   * memory, no n x n matrix: AUTO takes it over KALMAN when its estimated
   * cost is lower (few rounds and neighbours on a large graph). */
  PRIV_ENGINE_POWERS,
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
  MfSensitivity sensitivity;   /* bound (default) or exact */
  double alpha;                /* RDP order > 1 (0 = 2) */
  double delta;                /* in (0, 1) (0 = 1e-6) */
  gboolean no_epsilon;         /* epsilon left NaN for a finite mu (no root solve per
                                  victim: for callers that need mu and RDP only) */
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
  MfSensitivity sensitivity;
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
 * NaN sensitivity), those of mf_gram_sensitivity2.
 * Complexity: n victims x mf_gram_sensitivity2.
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

G_END_DECLS

#endif /* DPG_PRIVACY_H */
