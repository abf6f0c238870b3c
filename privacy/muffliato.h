/*
 * privacy/muffliato.h: Muffliato's original bound.
 */
#ifndef DPG_PRIVACY_MUFFLIATO_H
#define DPG_PRIVACY_MUFFLIATO_H

#include <glib.h>

#include "privacy/base.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

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

G_END_DECLS

#endif /* DPG_PRIVACY_MUFFLIATO_H */
