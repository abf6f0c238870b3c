/*
 * topologies/gossip.c: sparse row-stochastic gossip matrices (CSR).
 */
#include <math.h>
#include <string.h>

#include "topologies/internal.h"

gboolean topo_gossip_kind_parse(const char *name, TopoGossipKind *out, GError **error) {
  static const struct {
    const char *name;
    TopoGossipKind kind;
  } kinds[] = {{"uniform", TOPO_GOSSIP_UNIFORM},
               {"metropolis", TOPO_GOSSIP_METROPOLIS},
               {"maxdegree", TOPO_GOSSIP_MAXDEGREE}};
  for (gsize i = 0; name != NULL && i < G_N_ELEMENTS(kinds); i++)
    if (strcmp(name, kinds[i].name) == 0) {
      if (out != NULL)
        *out = kinds[i].kind;
      return TRUE;
    }
  const char *choices[] = {"uniform", "metropolis", "maxdegree"};
  char *hint = spec_did_you_mean(name, choices, G_N_ELEMENTS(choices));
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
              "unknown gossip matrix '%s' (valid: uniform, metropolis, maxdegree)%s",
              name != NULL ? name : "(null)", hint);
  g_free(hint);
  return FALSE;
}

const char *topo_gossip_kind_name(TopoGossipKind kind) {
  switch (kind) {
  case TOPO_GOSSIP_UNIFORM:
    return "uniform";
  case TOPO_GOSSIP_METROPOLIS:
    return "metropolis";
  case TOPO_GOSSIP_MAXDEGREE:
    return "maxdegree";
  }
  return "unknown";
}

gboolean topo_gossip_kind_check(TopoGossipKind kind, GError **error) {
  if (kind == TOPO_GOSSIP_UNIFORM || kind == TOPO_GOSSIP_METROPOLIS ||
      kind == TOPO_GOSSIP_MAXDEGREE)
    return TRUE;
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "unknown gossip kind %d", (int)kind);
  return FALSE;
}

TopoGossip *topo_gossip_alloc(guint n, gsize nnz) {
  TopoGossip *w = g_new0(TopoGossip, 1);
  w->n = n;
  w->row_ptr = g_new0(guint, (gsize)n + 1);
  w->col = g_new(guint, nnz > 0 ? nnz : 1);
  w->val = g_new(double, nnz > 0 ? nnz : 1);
  return w;
}

TopoGossip *topo_gossip_new(const TopoGraph *g, TopoGossipKind kind, GError **error) {
  if (g == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "gossip matrix of a NULL graph");
    return NULL;
  }
  if (!topo_gossip_kind_check(kind, error))
    return NULL;
  guint n = topo_graph_n_nodes(g);
  gsize nnz = (gsize)n + 2 * (gsize)topo_graph_n_edges(g);
  TopoGossip *w = topo_gossip_alloc(n, nnz);
  guint dmax = 0;
  for (guint u = 0; u < n; u++)
    dmax = MAX(dmax, topo_graph_degree(g, u));
  gsize k = 0;
  for (guint u = 0; u < n; u++) {
    guint deg;
    const guint *nb = topo_graph_neighbors(g, u, &deg);
    gsize diag = 0;
    double off = 0.0; /* off-diagonal mass, for the diagonal to fill the row */
    gboolean placed = FALSE;
    for (guint i = 0; i <= deg; i++) {
      /* Merge u into its sorted neighbour list so the row stays sorted. */
      if (!placed && (i == deg || nb[i] > u)) {
        diag = k;
        w->col[k++] = u;
        placed = TRUE;
      }
      if (i == deg)
        break;
      guint v = nb[i];
      double x;
      switch (kind) {
      case TOPO_GOSSIP_UNIFORM:
        x = 1.0 / (deg + 1.0);
        break;
      case TOPO_GOSSIP_METROPOLIS:
        x = 1.0 / (1.0 + MAX(deg, topo_graph_degree(g, v)));
        break;
      default:
        x = 1.0 / (1.0 + dmax);
        break;
      }
      w->col[k] = v;
      w->val[k++] = x;
      off += x;
    }
    /* Uniform is exactly 1/(deg+1) everywhere; the others fill the row. */
    w->val[diag] = kind == TOPO_GOSSIP_UNIFORM ? 1.0 / (deg + 1.0) : 1.0 - off;
    w->row_ptr[u + 1] = (guint)k;
  }
  if (kind == TOPO_GOSSIP_UNIFORM) {
    /* pi_u W[u,v] = 1 = pi_v W[v,u] for pi = deg + 1: W is reversible. */
    w->pi = g_new(double, n > 0 ? n : 1);
    for (guint u = 0; u < n; u++)
      w->pi[u] = topo_graph_degree(g, u) + 1.0;
  } else {
    w->symmetric = TRUE;
  }
  return w;
}

TopoGossip *topo_gossip_new_csr(guint n, const guint *row_ptr, const guint *cols,
                                const double *vals, GError **error) {
  if (n == 0 || row_ptr == NULL || (row_ptr[n] > 0 && (cols == NULL || vals == NULL))) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "topo_gossip_new_csr: n must be positive and the arrays non-NULL");
    return NULL;
  }
  if (row_ptr[0] != 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "topo_gossip_new_csr: row_ptr[0] must be 0, not %u", row_ptr[0]);
    return NULL;
  }
  for (guint u = 0; u < n; u++) {
    if (row_ptr[u + 1] < row_ptr[u]) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                  "topo_gossip_new_csr: row_ptr decreases at row %u", u);
      return NULL;
    }
    double sum = 0.0;
    for (guint i = row_ptr[u]; i < row_ptr[u + 1]; i++) {
      if (cols[i] >= n || (i > row_ptr[u] && cols[i] <= cols[i - 1])) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                    "topo_gossip_new_csr: row %u: column %u out of range or out of order", u,
                    cols[i]);
        return NULL;
      }
      if (!isfinite(vals[i]) || vals[i] < 0.0) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                    "topo_gossip_new_csr: W[%u,%u] = %g is not a finite non-negative weight", u,
                    cols[i], vals[i]);
        return NULL;
      }
      sum += vals[i];
    }
    if (fabs(sum - 1.0) > 1e-9) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                  "topo_gossip_new_csr: row %u sums to %.17g, not 1", u, sum);
      return NULL;
    }
  }
  gsize nnz = row_ptr[n];
  TopoGossip *w = topo_gossip_alloc(n, nnz);
  memcpy(w->row_ptr, row_ptr, sizeof(guint) * ((gsize)n + 1));
  if (nnz > 0) {
    memcpy(w->col, cols, sizeof(guint) * nnz);
    memcpy(w->val, vals, sizeof(double) * nnz);
  }
  w->symmetric = topo_gossip_is_symmetric(w, 0.0);
  return w;
}

void topo_gossip_free(TopoGossip *w) {
  if (w == NULL)
    return;
  g_free(w->row_ptr);
  g_free(w->col);
  g_free(w->val);
  g_free(w->pi);
  g_free(w);
}

guint topo_gossip_n(const TopoGossip *w) {
  g_return_val_if_fail(w != NULL, 0);
  return w->n;
}

gsize topo_gossip_nnz(const TopoGossip *w) {
  g_return_val_if_fail(w != NULL, 0);
  return w->row_ptr[w->n];
}

guint topo_gossip_row(const TopoGossip *w, guint u, const guint **cols, const double **vals) {
  g_return_val_if_fail(w != NULL && u < w->n, 0);
  if (cols != NULL)
    *cols = w->col + w->row_ptr[u];
  if (vals != NULL)
    *vals = w->val + w->row_ptr[u];
  return w->row_ptr[u + 1] - w->row_ptr[u];
}

double topo_gossip_get(const TopoGossip *w, guint u, guint v) {
  g_return_val_if_fail(w != NULL && u < w->n && v < w->n, 0.0);
  guint lo = (guint)sim_sorted_search(w->col, w->row_ptr[u], w->row_ptr[u + 1], v);
  return lo < w->row_ptr[u + 1] && w->col[lo] == v ? w->val[lo] : 0.0;
}

double *topo_gossip_dense(const TopoGossip *w) {
  g_return_val_if_fail(w != NULL, NULL);
  double *d = g_new0(double, (gsize)w->n * w->n);
  for (guint u = 0; u < w->n; u++)
    for (guint i = w->row_ptr[u]; i < w->row_ptr[u + 1]; i++)
      d[(gsize)u * w->n + w->col[i]] = w->val[i];
  return d;
}

void topo_gossip_apply(const TopoGossip *w, const double *x, double *y, guint d) {
  g_return_if_fail(w != NULL && x != NULL && y != NULL);
  for (guint u = 0; u < w->n; u++) {
    double *yu = y + (gsize)u * d;
    memset(yu, 0, sizeof(double) * d);
    for (guint i = w->row_ptr[u]; i < w->row_ptr[u + 1]; i++) {
      const double *xv = x + (gsize)w->col[i] * d;
      double a = w->val[i];
      for (guint j = 0; j < d; j++)
        yu[j] += a * xv[j];
    }
  }
}

gboolean topo_gossip_is_symmetric(const TopoGossip *w, double tol) {
  g_return_val_if_fail(w != NULL, FALSE);
  for (guint u = 0; u < w->n; u++)
    for (guint i = w->row_ptr[u]; i < w->row_ptr[u + 1]; i++)
      if (fabs(w->val[i] - topo_gossip_get(w, w->col[i], u)) > tol)
        return FALSE;
  return TRUE;
}
