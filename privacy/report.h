/*
 * privacy/report.h: the per-victim report: sensitivity, mu, RDP and (eps,
 * delta) of every victim.
 */
#ifndef DPG_PRIVACY_REPORT_H
#define DPG_PRIVACY_REPORT_H

#include <glib.h>

#include "mf/sensitivity.h"
#include "privacy/blocks.h"
#include "privacy/structured.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

typedef struct {
  guint b;                     /* participation interval, divides T (0 = 1) */
  MfSensitivity sensitivity;   /* bound (the zero value), exact, or auto: chosen for
                                  the report's victims by mf_sensitivity_choose */
  double alpha;                /* RDP order > 1 (0 = 2) */
  double delta;                /* in (0, 1) (0 = 1e-6) */
  gboolean no_epsilon;         /* epsilon left NaN for a finite mu (no root solve per
                                  victim: for callers that need mu and RDP only) */
  /* Called after each victim from the calling thread with the fraction of
   * victims done and what is being done (the exact sensitivity is one
   * semidefinite program per victim: minutes on a large graph), e.g. for a
   * progress line (NULL: none). */
  void (*progress)(double fraction, const char *what, gpointer data);
  gpointer progress_data;
} PrivAccountOptions;

typedef struct {
  guint node;
  gint distance; /* hops to the nearest attacker; -1 when unreachable or no graph */
  gboolean unprotected;
  double sensitivity; /* sqrt(sens^2); +inf when unprotected or unresolved */
  double mu;          /* = sensitivity (units: see above) */
  /* The local path (priv_local_report): a certified lower bound of the
   * exact mu, mu_lower <= exact <= mu (docs/local-bounds.md); elsewhere
   * NaN (not computed). */
  double mu_lower;
  double rdp;         /* alpha mu^2 / 2 */
  double epsilon;     /* eps(delta) of mu-GDP */
  /* PRIV_NODE_UNRESOLVED blocks, or mu > PRIV_MU_RESOLVABLE_MAX: no
   * protection (+inf everywhere, unprotected FALSE), PRIV_UNRESOLVED_NOTE. */
  gboolean unresolved;
  /* The numbers are the LDP cap (priv_report_cap_ldp): the accountant's
   * own value was larger. */
  gboolean ldp_capped;
} PrivVictim;

typedef struct {
  guint T, b;
  MfSensitivity sensitivity; /* the one used: bound or exact, never auto */
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

/*
 * priv_release_mu: the mu of one node's whole release sequence, the
 * vectors g_t + noise every message of D-SGD, Muffliato and MF-D-SGD is a
 * function of: the block I / sigma^2 (D-SGD, Muffliato) or
 * C^T C / (sens(C)^2 sigma^2) (MF-D-SGD, @C_local T x T, row-major, its
 * noise calibrated for participation every @calib_b steps), priced
 * as priv_account_report prices a victim (@opt's b and sensitivity). It is
 * the value trust LDP gives on a static graph where every node sends, and
 * it bounds every view that is a function of all the releases (the proof:
 * docs/design.md "The LDP cap"). @protocol DECOR (edge secrets are not a
 * function of the releases) or MF-D-SGD without @C_local: NaN, no error.
 * Errors: those of mf_gram_sensitivity2. O(T^3) (MF-D-SGD) or the
 * sensitivity of a T x T block.
 */
double priv_release_mu(PrivProtocol protocol, const double *C_local, guint T, guint calib_b,
                       double sigma, const PrivAccountOptions *opt, GError **error);

/*
 * priv_report_cap_ldp: every protected victim of @r whose mu exceeds @cap
 * gets mu = @cap (sensitivity, rdp and epsilon with it, @opt's alpha and
 * delta; a mu_lower above @cap becomes @cap) and ldp_capped; unprotected and unresolved victims are left as
 * they are. @cap NaN or +inf: nothing. Returns the victims capped.
 * O(victims).
 */
guint priv_report_cap_ldp(PrivReport *r, double cap, const PrivAccountOptions *opt);

G_END_DECLS

#endif /* DPG_PRIVACY_REPORT_H */
