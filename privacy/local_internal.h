/*
 * privacy/local_internal.h: the certified local bound (local.c) with its
 * choice of how the shell stands in, for the tests that check the merged
 * shell against the full one. Not public.
 */
#ifndef DPG_PRIVACY_LOCAL_INTERNAL_H
#define DPG_PRIVACY_LOCAL_INTERNAL_H

#include "privacy/internal.h"

/* How the shell S_{r+1} (the colluders next to the ball) enters the
 * subproblem. Both give the same blocks (docs/local-bounds.md). */
typedef enum {
  /* One observer node listing, per round, the ball nodes a shell node
   * hears: |B_r| + 1 nodes. */
  PRIV_LOCAL_SHELL_MERGED,
  /* Every shell node with its original row restricted to B_r U S_{r+1}
   * (the weight of the dropped columns on its diagonal): |B_r| + |S_{r+1}|
   * nodes. */
  PRIV_LOCAL_SHELL_FULL,
} PrivLocalShell;

/* priv_local_report with the shell given as @shell. */
PrivReport *priv_local_report_shell(const PrivStructuredProblem *problem, guint radius,
                                    const PrivAccountOptions *opt, PrivLocalShell shell,
                                    PrivLocalInfo *info, GError **error);

#endif /* DPG_PRIVACY_LOCAL_INTERNAL_H */
