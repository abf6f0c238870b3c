/*
 * privacy/local.h: certified local bounds (docs/local-bounds.md).
 */
#ifndef DPG_PRIVACY_LOCAL_H
#define DPG_PRIVACY_LOCAL_H

#include <glib.h>

#include "privacy/report.h"
#include "privacy/structured.h"

G_BEGIN_DECLS

/* What priv_local_report accounted on. */
typedef struct {
  guint radius;
  guint ball;       /* |B_r|: the nodes within radius hops of the attackers, them included */
  guint shell;      /* |S_{r+1}|: the nodes at radius + 1 hops, made colluders */
  guint relays;     /* shell nodes hearing several ball nodes, observed through a relay */
  guint sub_nodes;  /* nodes of the subproblem given to priv_structured_blocks */
  gboolean covered; /* the shell is empty: the values are the exact ones */
  double cond;      /* priv_local_report_record: the ball's PrivBlocks.cond (else 0) */
  /* The observer path's ball: why every mu_lower is 0 (the lower bound not
   * computed: the streaming accountant, memory, ...), "" when computed. A
   * fixed array: the info is copied by value (and across MPI ranks). */
  char lower_note[240];
  /* The observer path's ball: the attackers' rounds its lower bound saw
   * when memory stopped its run early (a subset of their view: still a
   * lower bound), 0 when it saw them all. */
  guint lower_rounds;
} PrivLocalInfo;

/*
 * priv_local_report: certified upper bounds of the per-victim guarantees of
 * @problem (as priv_structured_blocks takes it, on the full graph) for the
 * victims within @radius hops of the attackers, from a subproblem on that
 * ball only. Every node outside the ball B_r colludes with the attackers
 * (more knowledge: a Loewner-larger X_u, so the exact sensitivity and mu can
 * only grow); their knowledge makes the outside known, so the ball's
 * dynamics with the original rows of W_r are the whole problem, the shell
 * S_{r+1} (merged into one observing node) seeing what it receives. PNDP:
 * the colluders are weakened to the outside's randomness and the shell
 * nodes' states, so a shell node hearing several ball nodes gives one
 * combination of their messages a round (a relay, PrivStructuredProblem.
 * relays): a bound never larger than the merged shell's. Trust:
 * PNDP and SecLDP are kept; LDP becomes SecLDP for the enlarged set (its
 * colluders must know their own noise), unless the ball covers everything
 * the attackers hear from (the exact problem). DECOR: a colluder knows the
 * secrets of its own edges, so the ball-shell secrets are known (the ball
 * nodes' edges to the merged shell, an attacker) and the ball-ball ones
 * are not, as on the full graph. MF-D-SGD with a C per class of nodes
 * (@problem's C_class, by node id of the whole graph): each ball node keeps
 * its own class's C (the classes are public, like C). Hops are counted on
 * the union over rounds of the supports of W_r.
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
 * Complexity: O(K T nnz(W) log d) to check the supports, O((ball + shell)
 * edges K T) for the ball and the relays, then priv_structured_blocks on
 * |B_r| + 1 nodes plus the relays (PNDP).
 */
PrivReport *priv_local_report(const PrivStructuredProblem *problem, guint radius,
                              const PrivAccountOptions *opt, PrivLocalInfo *info, GError **error);

/*
 * priv_local_ball: the sizes priv_local_report would account on (*@info,
 * relays counted under PNDP; a delivery record's ball has none),
 * without accounting: to tell a user what a long accounting is about to do.
 * Errors: those of priv_local_report's checks. Complexity: its hop counts.
 */
gboolean priv_local_ball(const PrivStructuredProblem *problem, guint radius, PrivLocalInfo *info,
                         GError **error);

/*
 * priv_local_distances: the hops from @problem's attackers over the union of
 * the supports of its W_r, as priv_local_report counts them: an array of n
 * (G_MAXUINT beyond @radius + 1 hops; free with g_free), the ball (hops <=
 * @radius) appended to @ball and the shell (@radius + 1) to @shell, both
 * GArrays of guint, increasing. To cut a run's delivery record to the ball
 * before simulating it (priv_local_report_record).
 * Errors: priv_local_report's checks, PRIV_ERROR_MEMORY. Complexity: O(ball
 * edges K T) after the checks.
 */
guint *priv_local_distances(const PrivStructuredProblem *problem, guint radius, GArray *ball,
                            GArray *shell, GError **error);

/*
 * priv_local_report_record: priv_local_report of an asynchronous run from
 * its ball's delivery record (docs/local-bounds.md, "Asynchronous runs"):
 * @problem's K T gossip matrices and messages are the run's on the record's
 * m nodes (the ball and its shell, renumbered in node order), then
 * n_delayed slots (stale mode); its ball rows of W_r are the run's own,
 * its messages those with an end in the ball; its attackers (and a C per
 * class's C_class) are by record index. @dist: the m nodes' hops from the attackers on the graph (<=
 * @radius: the ball; @radius + 1: the shell). The shell colludes and is
 * merged into one attacker: it keeps its own state, receives the ball's
 * messages to any shell node (delivered when one was), and its weight in a
 * ball row is the row's shell weights summed; slots holding a shell node's
 * message hold the merged shell's (known to the colluders either way).
 * Then priv_structured_blocks on ball + 1 nodes + slots.
 * DECOR: @problem's secret_gossip is the schedule's gossip on the record's
 * m nodes (priv_local_record_gossip), one matrix or K T: a node adds the
 * secrets of all its schedule edges whatever the delivery. The merged
 * shell, an attacker, knows every ball-shell secret (each shell node
 * colludes and knows its own edges' secrets); the ball-ball ones are as on
 * the whole graph (docs/local-bounds.md, "Asynchronous runs").
 * mu_lower: the projection lower bound (priv_local_lower) of the original
 * attackers on the record's ball and slot rows (a slot holding a ball
 * node's message is a known function of the ball's states), the shell's
 * messages treated as unknown inflow, projected out (into the ball rows
 * that read them, and into a slot that starts holding one); PNDP attackers
 * hear the messages in their rows and the late ones delivered to them.
 * Where the ball covers the graph, mu_lower = mu, the exact values.
 * Returns: (transfer full) the report of the ball's victims, node = the
 * record's index (the caller maps it back), or NULL with @error set:
 * PRIV_ERROR_INVALID_ARGUMENT (radius 0, no messages, DECOR's secrets
 * without secret_gossip on the record's nodes, a node of the record beyond
 * the shell, an attacker not at distance 0, priv_structured_blocks's),
 * PRIV_ERROR_MEMORY, PRIV_ERROR_NUMERICAL.
 * Complexity: O(K T (nnz of the record)) to merge, then
 * priv_structured_blocks on it.
 */
PrivReport *priv_local_report_record(const PrivStructuredProblem *problem, const guint *dist,
                                     guint radius, const PrivAccountOptions *opt,
                                     PrivLocalInfo *info, GError **error);

/*
 * priv_local_record_gossip: @w (on the graph's nodes) restricted to a
 * ball's record: the rows of its @m nodes @node (increasing), columns
 * renumbered by @keep (graph node -> record index, G_MAXUINT outside), the
 * weight of the columns outside the record on the diagonal. A ball node's
 * row is whole (its neighbours are in the ball or the shell); only the
 * shell rows lose columns, which priv_local_report_record never reads.
 * DECOR's secret gossip for priv_local_report_record.
 * Returns: (transfer full) the m x m matrix, or NULL with @error set
 * (PRIV_ERROR_NUMERICAL: @node not increasing). Complexity: O(m + the
 * record rows' nnz).
 */
TopoGossip *priv_local_record_gossip(const TopoGossip *w, const guint *node, guint m,
                                     const guint *keep, GError **error);

/*
 * priv_sens2_lower: a certified lower bound of sens^2(X) (the exact
 * sensitivity of the T x T block @X, participation every @b steps): the
 * largest primal value the mixing method found over the b participation
 * classes, a feasible U, so <X[pi_j], U> <= sens^2(X), never above the
 * truth (docs/local-bounds.md, "The lower bound"). What mu_lower is priced
 * with, never Thm 5.2 (an upper bound). Errors: mf_sdp_max's.
 * Complexity: b SDPs of (T / b) x (T / b).
 */
gboolean priv_sens2_lower(const double *X, guint T, guint b, double *out, GError **error);

G_END_DECLS

#endif /* DPG_PRIVACY_LOCAL_H */
