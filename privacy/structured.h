/*
 * privacy/structured.h: structured fast paths: closed-form blocks for static or
 * scheduled gossip (docs/design.md, "Structured fast paths").
 */
#ifndef DPG_PRIVACY_STRUCTURED_H
#define DPG_PRIVACY_STRUCTURED_H

#include <glib.h>

#include "privacy/blocks.h"
#include "privacy/trust.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

/* The synchronous protocols the structured path knows (docs/design.md, "Protocols"). */
typedef enum {
  PRIV_PROTOCOL_DSGD,      /* theta_{t+1/2} = theta_t - eta (g_t + sigma Delta z_t) */
  PRIV_PROTOCOL_MUFFLIATO, /* one noisy step, then K gossip rounds (K messages) */
  PRIV_PROTOCOL_MFDSGD,    /* noise nu sum_s (C_local^-1)[t,s] z_{s,u},
                              nu = sigma Delta sens_Pi(C_local) (Thm 5.2 bound) */
  PRIV_PROTOCOL_DECOR,     /* D-SGD plus, for each edge of W_t's undirected support, a
                              secret of std sigma_secret Delta added with + at the smaller
                              id and - at the larger (paper appendix B) */
} PrivProtocol;

/* How priv_structured_blocks computes the blocks when no closed form applies. */
typedef enum {
  /* D-SGD and Muffliato: POWERS on a static W when its estimated cost is
   * below KALMAN's, else KALMAN. MF-D-SGD: of DENSE, POWERS (a static W)
   * and KALMAN (a C whose inverse has a state-space form of at most 16
   * values per node: banded C, BLT), the cheapest in estimated work whose
   * memory fits the budget, else the smallest. DECOR (edge secrets):
   * KALMAN, or its closed form when every message is seen. */
  PRIV_ENGINE_AUTO,
  /* White noise in time only (D-SGD, Muffliato, DECOR: the step's unknown
   * noise has covariance Q_t = D + (sigma_secret/sigma)^2 L'_t, L'_t the
   * Laplacian of the step's edges whose secret the attackers do not know,
   * added to the prior at each injection). The attacker knowledge is a linear Gaussian state-space
   * model (state: the n half-step models; observations: the messages the
   * attackers see), so X = sum_r Gamma_r^T Sigma_r^+ Gamma_r over its Kalman
   * innovations (docs/accounting-at-scale.md). One n x n covariance, W
   * applied sparse, per round only the gain (n x q) and whitening (q x q):
   * O(R n nnz + R n^2 q + R^2 q (nnz + n q) + n q R T^2) time (R = K T
   * gossip rounds, q messages seen per round, nnz of W) and
   * O(n^2 + R n q + n T^2) memory.
   * MF-D-SGD: the state also carries each noisy node's noise state, p
   * values with nu_k = h_k . s_k + d_k z_k, s_{k+1} = A_k s_k + b_k z_k
   * (the realization of C^-1 from its Hankel blocks: p = band - 1 for a
   * banded C, the buffers of a BLT); n becomes n + p n_noisy above. With
   * a C per class of nodes each node carries its own class's realization
   * and order (n + the sum of the noisy nodes' p). A C whose inverse
   * needs more than 16 values per node is refused. */
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
  /* Static W only, white or correlated (MF-D-SGD) noise. The messages'
   * columns are entries of the powers (W^T)^j e_w of the m nodes w the
   * attackers hear, so their covariance Sigma (q x q, q = R m; with
   * correlated noise every pair of steps weighted by (C^-1 C^-T)[k, l])
   * and each victim's columns come from R m sparse power vectors, and
   * Sigma^+ from the innovations of the rounds in order (KALMAN's whitening
   * and rank threshold on the same matrices); a victim whose value rests on
   * a decision within 100x of that threshold is UNRESOLVED.
   * O(R m nnz + n q^2 T + q^3 (+ q^2 T^2 / 12 correlated)) time,
   * O(n q + q^2 + n T^2) memory, no n x n matrix: AUTO takes it over KALMAN
   * when its estimated cost is lower (few rounds and neighbours on a large
   * graph), over DENSE for MF-D-SGD when it is cheaper in time and memory. */
  PRIV_ENGINE_POWERS,
} PrivEngine;

/* The messages of one gossip round of a simulated run: row u lists the
 * senders of the round's messages sent to u, increasing, from[ptr[u]] ..
 * from[ptr[u + 1] - 1]; delivered[i] says whether that message reached u
 * (whenever it came: after a deadline too), not when it was lost. */
typedef struct {
  const guint *ptr; /* n + 1 */
  const guint *from;
  const guint8 *delivered;
} PrivRoundMessages;

/* A structured accounting problem (zero-initialize, then fill). */
typedef struct {
  PrivProtocol protocol;
  guint K;               /* Muffliato: gossip rounds per step (>= 1); else 1 (0 = 1) */
  const double *C_local; /* MF-D-SGD: T x T invertible, row-major; else NULL */
  /* MF-D-SGD with one C per class of nodes (a C-set, docs/design.md
   * "Per-class C"): node u's noise is sigma Delta sens(C_c) C_c^-1 z_u with
   * c = C_class[u] (n entries, < n_C) and C_c the T x T row-major matrix
   * C_set + c T^2; C_local is then ignored. Each node's noise is independent
   * of the others', so only its own C enters its covariance. The W-power,
   * dense and Kalman engines (and the closed forms) take it, stale mode
   * too (each node carries its own class's noise state); KALMAN_DENSE
   * takes no MF-D-SGD. NULL: every node's C is C_local. */
  const double *C_set;
  const guint *C_class;
  guint n_C;
  guint T; /* gradient steps, >= 1 */
  /* W_r of gossip round r: one matrix (static) or K*T (time-varying). In
   * round r every node sends to the nodes whose row of W_r lists it. */
  const TopoGossip *const *gossip;
  guint n_gossip;
  /* NULL: in round r every node sends to the nodes whose row of W_r lists
   * it, and every message arrives. Else the K*T rounds' messages of a
   * simulated run (n_gossip must then be K*T), where W_r is what the run
   * applied (deadline mode: the messages that came in time, reweighted):
   * PNDP attackers see the messages delivered to them, LDP and SecLDP
   * attackers every message sent, lost ones included. */
  const PrivRoundMessages *messages;
  /* Stale mode (bounded staleness): with @messages, the gossip matrices act
   * on a state of n + n_delayed entries: the n nodes' half-step models, then
   * n_delayed slots holding copies of earlier rounds' messages that a later
   * gather still uses (a delay-augmented state; proto_deliveries_record
   * builds them). Slots get no injection, are never sent and are no
   * victims; the blocks are over the n nodes. 0: none. KALMAN and
   * KALMAN_DENSE (and AUTO) only, for D-SGD and Muffliato; KALMAN (and
   * AUTO) for MF-D-SGD, with a C (each class's, with a C per class) whose
   * noise has a state-space form of order at most 16 (a banded C, a BLT). */
  guint n_delayed;
  PrivTrust trust;
  const guint *attackers; /* distinct nodes, >= 1 */
  guint n_attackers;
  /* Nodes whose injections (gradients and noise) the attackers know but
   * which observe nothing: they are heard by the nodes whose rows list
   * them, like any node, and are never victims. The certified local bound
   * (docs/local-bounds.md) makes one per shell node that hears several
   * ball nodes: a stand-in for that node's state, which the colluders
   * observe but whose individual inputs they do not. Distinct, not
   * attackers; PNDP only, without @messages (a synchronous run); every
   * engine takes them. NULL: none. */
  const guint *relays;
  guint n_relays;
  double sigma; /* noise multiplier (noise std sigma*Delta), >= 0 */
  /* DECOR: noise multiplier of the edge secrets (std sigma_secret*Delta),
   * finite and >= 0 (0: D-SGD); ignored by the other protocols. */
  double sigma_secret;
  /* DECOR: the gossip whose undirected supports carry the secrets (one
   * matrix, or K*T: the schedule's W_t, on the n nodes), NULL: @gossip.
   * Needed with @messages: a node adds the secret of every edge of the
   * schedule's W_t to its model whatever arrives later, so a late or lost
   * message's edge keeps its secret, while the record's W_r lists only the
   * messages a gather used (docs/accounting-at-scale.md, "DECOR on a
   * delivery record"). Ignored by the other protocols. */
  const TopoGossip *const *secret_gossip;
  guint n_secret_gossip;
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
 * DECOR: the secrets of edges with an attacker end are known under PNDP
 * and SecLDP, none under LDP. LDP and SecLDP where every node sends in
 * every round: the attackers know each step's injection g_t + noise, so
 * X_u is diagonal with X_u[t,t] = (Q_t^-1)_{uu} / sigma^2 over the nodes
 * whose injection is unknown (one dense Cholesky per distinct W_t: O(n^3)
 * time, n^2 doubles); otherwise the Kalman engine (AUTO, KALMAN or
 * KALMAN_DENSE; POWERS and DENSE assume noise white across nodes).
 * sigma_secret = 0 is D-SGD; sigma = 0 < sigma_secret is refused (the
 * blocks are computed in units of the local noise). On a run's @messages
 * (deadline or stale mode) the secrets are on @secret_gossip's edges, the
 * injection as in a synchronous run: each node's model carries its
 * secrets, whichever messages its neighbours use.
 * sigma = 0: every victim whose gradient reaches a seen message is
 * UNPROTECTED, the others have X_u = 0. The blocks are computed for unit
 * noise and C_local divided by a power of two (the same mechanism), then
 * divided by sigma^2 through priv_blocks_set_scale: when that would leave
 * the double range (sigma = 1e-200 or 1e200) sigma stays in
 * PrivBlocks.scale and the report divides mu by it.
 * Returns: (transfer full) the blocks, or NULL with @error set:
 * PRIV_ERROR_INVALID_ARGUMENT (sizes, n_gossip not 1 or K*T, attackers,
 * C_local missing, KALMAN or KALMAN_DENSE with MF-D-SGD, POWERS with a
 * time-varying W, POWERS or DENSE with DECOR's secrets, DECOR with
 * sigma = 0 < sigma_secret, DECOR's secrets on @messages without
 * @secret_gossip), PRIV_ERROR_NUMERICAL (C_local
 * singular, LAPACK failure), PRIV_ERROR_MEMORY.
 */
/*
 * priv_structured_noise_state_fits: whether MF-D-SGD's noise for the T x T
 * lower-triangular @C_local has a state-space form the Kalman engine
 * carries (order at most 16: a banded C of band up to 17, a BLT of up to 16
 * buffers), which stale mode's delay-augmented state needs; @why (NULL
 * allowed) says why not. O(T^4 / 12) (T SVDs), T^2 doubles.
 */
gboolean priv_structured_noise_state_fits(const double *C_local, guint T, GError **why);

PrivBlocks *priv_structured_blocks(const PrivStructuredProblem *problem, GError **error);

/*
 * priv_structured_bytes_least: the memory priv_structured_blocks needs at
 * the least for a problem on @n nodes over @T steps with @n_gossip gossip
 * matrices (1: a static W) of @protocol and noise multiplier @sigma, before
 * any gossip matrix exists: the blocks (n T x T doubles), and, for D-SGD and
 * Muffliato with noise on a time-varying W, where KALMAN is the only engine,
 * its forward pass's P and W P (n x n doubles each). A lower bound, so a
 * caller that refuses above its budget never refuses a run that fits; the
 * engines check their full needs again. Saturates at G_MAXSIZE. O(1).
 */
gsize priv_structured_bytes_least(guint n, guint T, guint n_gossip, PrivProtocol protocol,
                                  double sigma);

G_END_DECLS

#endif /* DPG_PRIVACY_STRUCTURED_H */
