/*
 * privacy/local_internal.h: the certified local bound (local.c) with its
 * choice of how the shell stands in, for the tests that check the merged
 * shell against the full one. Not public.
 */
#ifndef DPG_PRIVACY_LOCAL_INTERNAL_H
#define DPG_PRIVACY_LOCAL_INTERNAL_H

#include "privacy/internal.h"

/* How the shell S_{r+1} (the nodes next to the ball) enters the
 * subproblem (docs/local-bounds.md, "Why the bound is sound"). MERGED and
 * FULL (the shell colludes) give the same blocks; so do RELAY_ALL and
 * OBSERVED (the attackers observe each shell node's state, not its
 * inputs), whose blocks are Loewner-below theirs; RELAY's lie between. */
typedef enum {
  /* One observer node listing, per round, the ball nodes a shell node
   * hears: |B_r| + 1 nodes. */
  PRIV_LOCAL_SHELL_MERGED,
  /* Every shell node with its original row restricted to B_r U S_{r+1}
   * (the weight of the dropped columns on its diagonal), an attacker:
   * |B_r| + |S_{r+1}| nodes. */
  PRIV_LOCAL_SHELL_FULL,
  /* priv_local_report's: one observer node hearing, per round, the ball
   * nodes that the shell nodes without a relay hear, and a relay
   * (PrivStructuredProblem.relays) per other shell node, its row that
   * node's weights on the ball, the rest on the observer: |B_r| + 1 +
   * relays nodes. The relays: the shell nodes hearing several ball nodes,
   * where they are fewer than the ball nodes they alone hear (by
   * component; priv_local_ball counts them). PNDP only (else MERGED). */
  PRIV_LOCAL_SHELL_RELAY,
  /* RELAY with a relay for every shell node hearing several ball nodes:
   * never larger than RELAY, dearer where relays are many. */
  PRIV_LOCAL_SHELL_RELAY_ALL,
  /* The check of RELAY_ALL: every shell node kept with its row as in FULL
   * but as a relay (its injections known, observing nothing), and one
   * observer hearing every shell node in every round and, in the last one,
   * the ball nodes RELAY_ALL's merged shell hears directly: |B_r| +
   * |S_{r+1}| + 1 nodes. PNDP only. */
  PRIV_LOCAL_SHELL_OBSERVED,
} PrivLocalShell;

/* Which certified lower bounds priv_local_lower computes (each is sound;
 * the tests compare them). */
typedef enum {
  PRIV_LOCAL_LOWER_BEST,       /* the largest of all below */
  PRIV_LOCAL_LOWER_PROJECTION, /* inflow projected out; (Sec)LDP: injections */
  PRIV_LOCAL_LOWER_DOMINATION, /* covariance domination only */
} PrivLocalLower;

/* priv_local_report with the shell given as @shell. */
PrivReport *priv_local_report_shell(const PrivStructuredProblem *problem, guint radius,
                                    const PrivAccountOptions *opt, PrivLocalShell shell,
                                    PrivLocalInfo *info, GError **error);

/* priv_local_report_shell with mu_lower from @lower only. */
PrivReport *priv_local_report_lower(const PrivStructuredProblem *problem, guint radius,
                                    const PrivAccountOptions *opt, PrivLocalShell shell,
                                    PrivLocalLower lower, PrivLocalInfo *info, GError **error);

/*
 * priv_local_lower: sets report->victims[i].mu_lower, a certified lower
 * bound of each victim's exact mu, from the @nb nodes @ball (increasing,
 * the attackers included) alone: the Fisher information of a linear
 * function of the attackers' view that does not depend on anything beyond
 * the ball (PNDP: the view with the shell's inflow projected out; LDP and
 * SecLDP: the victim's own injections; DECOR: the ball's seen injections
 * jointly, their noise the local noise plus the unknown secrets, and the
 * projected view with those secrets in its covariance; no covariance
 * domination bound), priced with a primal point of the
 * exact sensitivity's semidefinite program (never above it); min with mu.
 * @which: the largest of the bounds, or one of them (tests). Covariance
 * domination (docs/local-bounds.md) adds a pass over the full graph.
 * The victims' nodes are original ids in @ball; @report's b is used.
 * A recorded run's problem (priv_local_report_record: shell rows stand-ins,
 * slots after the nodes, its messages) takes PRIV_LOCAL_LOWER_PROJECTION:
 * the slots are state beside the ball's nodes (a slot that starts holding
 * a shell node's message takes inflow then), PNDP attackers hear the
 * senders in their rows plus the messages delivered to them late.
 * Errors: PRIV_ERROR_MEMORY (sizes named), PRIV_ERROR_NUMERICAL (LAPACK).
 * Cost (PNDP, m messages seen, nb ball nodes, L slots of a stale-mode
 * record, R = K T rounds): O(R^2 (nnz + L) (nb + L)) propagation,
 * O(m^2 nb T + m^3) dense algebra, O(m (nb T + L) + m^2 + (nb + L) nb)
 * memory;
 * (Sec)LDP: O(nb T (deg + T^2)). Covariance domination: O(R nnz m) on the
 * full graph (skipped over 5e10 flops or the memory budget), O(n m)
 * memory. Plus one SDP per victim and bound.
 */
gboolean priv_local_lower(const PrivStructuredProblem *p, const guint *ball, guint nb,
                          PrivLocalLower which, PrivReport *report, GError **error);

#endif /* DPG_PRIVACY_LOCAL_INTERNAL_H */
