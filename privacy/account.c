/*
 * privacy/account.c: per-victim blocks and the per-victim report (distance,
 * sensitivity, mu, RDP, epsilon) that every accounting path ends with.
 */
#include "privacy/internal.h"

#include <float.h>
#include <math.h>

gsize priv_size_sum3(gsize a1, gsize b1, gsize a2, gsize b2, gsize a3, gsize b3) {
  gsize p1, p2, p3;
  if (!spec_size_mul_checked(a1, b1, &p1) || !spec_size_mul_checked(a2, b2, &p2) ||
      !spec_size_mul_checked(a3, b3, &p3) || p1 > G_MAXSIZE - p2 || p1 + p2 > G_MAXSIZE - p3)
    return G_MAXSIZE;
  return p1 + p2 + p3;
}

PrivBlocks *priv_blocks_new(guint n, guint T, GError **error) {
  if (n == 0 || T == 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "an accounting needs at least one node and one step (n = %u, T = %u)", n, T);
    return NULL;
  }
  gsize TT;
  if (!spec_size_mul_checked(T, T, &TT)) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_MEMORY, "T = %u steps is too many", T);
    return NULL;
  }
  double *X = priv_matrix_new(n, TT, error);
  if (!X)
    return NULL;
  PrivBlocks *b = g_new0(PrivBlocks, 1);
  b->n = n;
  b->T = T;
  b->X = X;
  b->status = g_new0(PrivNodeStatus, n); /* PRIV_NODE_PROTECTED is 0 */
  b->scale = 1.0;
  return b;
}

void priv_blocks_set_scale(PrivBlocks *blocks, double scale) {
  g_return_if_fail(blocks != NULL && scale > 0 && isfinite(scale));
  gsize count = (gsize)blocks->n * blocks->T * blocks->T;
  double amax = 0.0, amin = INFINITY;
  for (gsize i = 0; i < count; i++) {
    double a = fabs(blocks->X[i]);
    if (a == 0.0)
      continue;
    amax = MAX(amax, a);
    amin = MIN(amin, a);
  }
  blocks->scale = scale;
  if (scale == 1.0 || amax == 0.0)
    return;
  double s2 = scale * scale, f = 1.0 / s2;
  /* Fold only when nothing leaves the normal range: X / s2 for every entry. */
  if (!(s2 >= DBL_MIN && isfinite(s2) && f >= DBL_MIN && isfinite(f)))
    return;
  if (!(amin * f >= DBL_MIN && isfinite(amax * f)))
    return;
  for (gsize i = 0; i < count; i++)
    blocks->X[i] *= f;
  blocks->scale = 1.0;
}

void priv_blocks_free(PrivBlocks *blocks) {
  if (!blocks)
    return;
  g_free(blocks->X);
  g_free(blocks->status);
  g_free(blocks);
}

const double *priv_blocks_get(const PrivBlocks *blocks, guint u) {
  g_return_val_if_fail(blocks != NULL, NULL);
  if (u >= blocks->n)
    return NULL;
  return blocks->X + (gsize)u * blocks->T * blocks->T;
}

void priv_report_free(PrivReport *report) {
  if (!report)
    return;
  g_free(report->victims);
  g_free(report);
}

/* The victims' hops from the attackers on @g (topo_graph_hops, the one
 * breadth-first search of the graph); -1 unreachable, or without a graph.
 * O(n + m). */
static gint *attacker_distances(const TopoGraph *g, const PrivBlocks *blocks) {
  guint n = blocks->n, k = 0;
  guint *attackers = g_new(guint, n);
  for (guint u = 0; u < n; u++)
    if (blocks->status[u] == PRIV_NODE_ATTACKER)
      attackers[k++] = u;
  guint *hops = g != NULL ? topo_graph_hops(g, attackers, k, G_MAXUINT - 1) : NULL;
  gint *dist = g_new(gint, n);
  for (guint u = 0; u < n; u++)
    dist[u] = blocks->status[u] == PRIV_NODE_ATTACKER ? 0
              : hops != NULL && hops[u] != G_MAXUINT  ? (gint)hops[u]
                                                      : -1;
  g_free(hops);
  g_free(attackers);
  return dist;
}

PrivReport *priv_account_report(const PrivBlocks *blocks, const TopoGraph *graph,
                                const PrivAccountOptions *opt, GError **error) {
  g_return_val_if_fail(blocks != NULL, NULL);
  if (!(blocks->scale > 0)) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the blocks' scale must be positive (got %g)", blocks->scale);
    return NULL;
  }
  PrivAccountOptions o = {0};
  if (opt)
    o = *opt;
  if (o.b == 0)
    o.b = 1;
  if (o.alpha == 0)
    o.alpha = 2.0;
  if (o.delta == 0)
    o.delta = 1e-6;
  guint T = blocks->T;
  if (T % o.b != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the participation interval b = %u must divide the number of steps T = %u", o.b, T);
    return NULL;
  }
  if (!(o.alpha > 1) || !isfinite(o.alpha)) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the Renyi order alpha must be a finite number above 1 (got %g)", o.alpha);
    return NULL;
  }
  if (!(o.delta > 0 && o.delta < 1)) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "delta must lie strictly between 0 and 1 (got %g)", o.delta);
    return NULL;
  }
  if (o.sensitivity != MF_SENSITIVITY_BOUND && o.sensitivity != MF_SENSITIVITY_EXACT &&
      o.sensitivity != MF_SENSITIVITY_AUTO) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "unknown sensitivity kind %d",
                (int)o.sensitivity);
    return NULL;
  }
  if (o.sensitivity == MF_SENSITIVITY_AUTO) {
    /* A caller that did not decide for its whole run: decide for these blocks. */
    guint64 n_blocks = 0;
    for (guint u = 0; u < blocks->n; u++)
      n_blocks += blocks->status[u] == PRIV_NODE_PROTECTED;
    o.sensitivity = mf_sensitivity_choose(o.sensitivity, n_blocks, T, o.b, NULL);
  }
  if (graph && topo_graph_n_nodes(graph) != blocks->n) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the graph has %u nodes but the accounting has %u", topo_graph_n_nodes(graph),
                blocks->n);
    return NULL;
  }

  PrivReport *r = g_new0(PrivReport, 1);
  r->T = T;
  r->b = o.b;
  r->sensitivity = o.sensitivity;
  r->alpha = o.alpha;
  r->delta = o.delta;
  r->victims = g_new0(PrivVictim, blocks->n);
  gint *dist = attacker_distances(graph, blocks);
  gboolean ok = TRUE;
  for (guint u = 0; u < blocks->n && ok; u++) {
    if (blocks->status[u] == PRIV_NODE_ATTACKER)
      continue;
    PrivVictim *v = &r->victims[r->n_victims++];
    v->node = u;
    v->distance = dist[u];
    v->mu_lower = NAN; /* set by the local path only */
    if (blocks->status[u] == PRIV_NODE_UNPROTECTED) {
      /* Never a finite number for a victim seen without noise. */
      v->unprotected = TRUE;
      v->sensitivity = v->mu = v->rdp = v->epsilon = INFINITY;
      continue;
    }
    if (blocks->status[u] == PRIV_NODE_UNRESOLVED) {
      v->unresolved = TRUE;
      v->sensitivity = v->mu = v->rdp = v->epsilon = INFINITY;
      continue;
    }
    const double *X = priv_blocks_get(blocks, u);
    gboolean finite = TRUE;
    for (gsize i = 0; i < (gsize)T * T && finite; i++)
      finite = isfinite(X[i]);
    if (!finite) {
      /* An accountant overflowed (the observer path at sigma = 1e-200): the
       * information is beyond the double range, so no protection. */
      v->sensitivity = v->mu = v->rdp = v->epsilon = INFINITY;
      continue;
    }
    double s2;
    if (!(ok = mf_gram_sensitivity2(X, T, o.b, o.sensitivity, &s2, error)))
      break;
    if (isnan(s2)) {
      /* Never MAX(NaN, 0) = 0: that would claim perfect privacy. */
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the sensitivity of victim %u is not a number", u);
      ok = FALSE;
      break;
    }
    /* Rounding may leave a psd block's value a hair below 0; scale > 0. */
    double sens = sqrt(MAX(s2, 0.0));
    v->sensitivity = priv_no_zero(sens / blocks->scale, sens > 0);
    v->mu = v->sensitivity;
    if (!(v->mu <= PRIV_MU_RESOLVABLE_MAX)) {
      /* No protection either way, and a number the conditioning behind it
       * cannot support (privacy/range.c). */
      v->unresolved = TRUE;
      v->sensitivity = v->mu = v->rdp = v->epsilon = INFINITY;
      continue;
    }
    v->rdp = priv_gdp_rdp(v->mu, o.alpha);
    v->epsilon = o.no_epsilon ? NAN : priv_gdp_epsilon(v->mu, o.delta);
    if (o.progress != NULL)
      o.progress((double)(u + 1) / blocks->n,
                 o.sensitivity == MF_SENSITIVITY_EXACT ? "exact sensitivities of the victims"
                                                       : "sensitivities of the victims",
                 o.progress_data);
  }
  g_free(dist);
  if (!ok) {
    priv_report_free(r);
    return NULL;
  }
  return r;
}

double priv_release_mu(PrivProtocol protocol, const double *C_local, guint T, guint calib_b,
                       double sigma, const PrivAccountOptions *opt, GError **error) {
  g_return_val_if_fail(opt != NULL && T > 0, NAN);
  if (protocol != PRIV_PROTOCOL_DSGD && protocol != PRIV_PROTOCOL_MUFFLIATO &&
      protocol != PRIV_PROTOCOL_MFDSGD)
    return NAN;
  if (protocol == PRIV_PROTOCOL_MFDSGD && C_local == NULL)
    return NAN;
  if (!(sigma > 0))
    return INFINITY;
  guint b = opt->b ? opt->b : 1;
  double *X = g_new0(double, (gsize)T *T);
  if (protocol == PRIV_PROTOCOL_MFDSGD) {
    /* As the structured accountant's LDP block: normalized C, 1 / sens^2. */
    double *C = mf_normalized_copy(C_local, (gsize)T * T);
    guint cb = calib_b ? calib_b : 1;
    double s2 = mf_sensitivity2(C, T, T / cb, cb);
    if (s2 > 0 && isfinite(s2))
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)T, (int)T, (int)T, 1.0 / s2, C,
                  (int)T, C, (int)T, 0.0, X, (int)T);
    g_free(C);
    if (!(s2 > 0 && isfinite(s2))) {
      g_free(X);
      return NAN;
    }
  } else {
    for (guint t = 0; t < T; t++)
      X[(gsize)t * T + t] = 1.0;
  }
  double s2;
  gboolean ok = mf_gram_sensitivity2(X, T, b, opt->sensitivity, &s2, error);
  g_free(X);
  if (!ok)
    return NAN;
  return sqrt(MAX(s2, 0.0)) / sigma;
}

guint priv_report_cap_ldp(PrivReport *r, double cap, const PrivAccountOptions *opt) {
  g_return_val_if_fail(r != NULL && opt != NULL, 0);
  if (!(cap < INFINITY))
    return 0;
  guint capped = 0;
  for (guint i = 0; i < r->n_victims; i++) {
    PrivVictim *v = &r->victims[i];
    if (v->unprotected || v->unresolved || !(v->mu > cap))
      continue;
    v->sensitivity = v->mu = cap;
    /* The exact mu is at most the cap: a local mu_lower above it (the
     * adjacent victim's projection, the LDP value by another sum) is that
     * value's rounding, and the interval stays mu_lower <= mu. */
    if (v->mu_lower > cap)
      v->mu_lower = cap;
    v->rdp = priv_gdp_rdp(cap, opt->alpha > 0 ? opt->alpha : 2.0);
    v->epsilon = opt->no_epsilon ? NAN : priv_gdp_epsilon(cap, opt->delta > 0 ? opt->delta : 1e-6);
    v->ldp_capped = TRUE;
    capped++;
  }
  return capped;
}
