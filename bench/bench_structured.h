/*
 * bench/bench_structured.h: the structured accounting case the benchmarks
 * time and compare against: D-SGD under PNDP against node 0. Header only
 * (static inline), as bench_common.h.
 */
#ifndef DPG_BENCH_STRUCTURED_H
#define DPG_BENCH_STRUCTURED_H

#include "privacy/privacy.h"

/* The victims' blocks of D-SGD (sigma 1) over @T rounds of the static
 * gossip @w, under PNDP against attacker 0, by @engine with @threads
 * threads (0: one). NULL with @error set when they cannot be had. Cost:
 * priv_structured_blocks's. */
static inline PrivBlocks *bench_pndp_blocks(const TopoGossip *w, guint T, PrivEngine engine,
                                            guint threads, GError **error) {
  const TopoGossip *ws[] = {w};
  const guint attackers[] = {0};
  PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                             .T = T,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = PRIV_TRUST_PNDP,
                             .attackers = attackers,
                             .n_attackers = 1,
                             .sigma = 1.0,
                             .engine = engine,
                             .threads = threads};
  return priv_structured_blocks(&p, error);
}

#endif
