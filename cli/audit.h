/*
 * cli/audit.h: internal to the dpgossip command. The privacy audits of
 * `dpgossip audit` (docs/design.md, "Audits"): simulate the real protocol
 * with numbers, in two worlds (the victim's gradients a worst-case canary,
 * or zero), and attack what the attacker set received.
 */
#ifndef DPG_CLI_AUDIT_H
#define DPG_CLI_AUDIT_H

#include <glib.h>

#include "privacy/privacy.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

/* One audit: strings and arrays borrowed. */
typedef struct {
  const TopoGraph *graph;
  TopoGossipKind gossip;
  const char *protocol; /* registry spec */
  const char *mode;     /* NULL: sync */
  double sigma;         /* >= 0 */
  guint T;              /* steps, the victim's record used at every one (b = 1) */
  guint dim;            /* synthetic features: models have dim + 1 parameters */
  PrivTrust trust;
  const guint *attackers;
  guint n_attackers;
  guint victim;
  guint trials;  /* per world, >= 20 */
  guint64 seed;  /* trial i of world w runs with a seed derived from (seed, w, i) */
  guint threads; /* >= 1; results do not depend on it */
} CliAudit;

typedef enum {
  CLI_AUDIT_CONSISTENT, /* the interval reaches the accounted mu or lies below it */
  CLI_AUDIT_OVERSTATED, /* the whole interval lies above the accounted mu */
  CLI_AUDIT_EXPOSED,    /* the accountant says unprotected: reconstruction only */
  CLI_AUDIT_REFUSED,    /* reconstruction on a protected victim, or the
                         * distinguishing audit on an unresolved one */
  CLI_AUDIT_PARTIAL,    /* exposed, but some of its steps never reach the attackers
                         * noise-free: no full reconstruction */
} CliAuditStatus;

typedef struct {
  PrivNodeStatus victim_status; /* the accountant's verdict */
  double mu;                    /* accounted, exact sensitivity (INFINITY: unprotected) */
  double mu_canary;  /* what the canary attains under the accountant's X_v (<= mu) */
  double mu_test;    /* the test's own mu: the attacker of the audit ignores the
                      * values of the noise it owns, so mu_test <= mu_canary */
  double mu_emp;     /* (mean_1 - mean_0) / pooled standard deviation */
  double mu_emp_se;               /* its standard error */
  double mu_emp_low, mu_emp_high; /* its 95% interval (normal approximation) */
  double mu_cp_low; /* Clopper-Pearson lower bound (95%, held-out threshold) */
  guint trials;
  double reconstruction_error; /* relative, NAN when not run */
  CliAuditStatus status;
} CliAuditResult;

/*
 * cli_audit_np: the distinguishing audit of @a (see CliAuditResult). One
 * run with provenance gives the attacker's view O = A G + B Z and the
 * accountant's verdict; then 2 @a->trials runs without provenance, whose
 * observed values alone feed the Neyman-Pearson statistic
 * s = m^T (B B^T)^+ (o - E_0 o), m = A Delta.
 * Errors: those of the runs (PROTO_ERROR, ...), PRIV_ERROR_* from the
 * accountant, PROTO_ERROR_FAILED when a trial observes other messages than
 * the provenance run (a protocol whose message pattern depends on noise).
 * Complexity: 2 trials runs, plus O(r^3) for r observed messages.
 */
gboolean cli_audit_np(const CliAudit *a, CliAuditResult *out, GError **error);

/*
 * cli_audit_reconstruct: the reconstruction attack: where the accountant
 * says the victim is unprotected, recover its gradients (random ones of norm
 * Delta) from one run's observed values by a left inverse of the noise-free
 * part of the view, and report the relative error; on a protected victim
 * status is CLI_AUDIT_REFUSED (no noise-free view). Errors: as cli_audit_np.
 */
gboolean cli_audit_reconstruct(const CliAudit *a, CliAuditResult *out, GError **error);

const char *cli_audit_status_name(CliAuditStatus s);

/*
 * cli_audit_overstated: whether the one-sided lower confidence bound
 * mu_emp - z se, at level 1 - 0.025 / @family (Bonferroni over @family
 * rows, so that a correct accountant is called overstated in any of them
 * with probability at most 2.5%), lies above the accounted mu. FALSE for
 * rows without an empirical mu. O(1).
 */
gboolean cli_audit_overstated(const CliAuditResult *r, guint family);

G_END_DECLS

#endif /* DPG_CLI_AUDIT_H */
