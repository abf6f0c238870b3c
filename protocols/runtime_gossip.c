/*
 * protocols/runtime_gossip.c: the gossip matrix of each round, by rows (who a
 * node averages) and by columns (who a node sends to), built once per round
 * for the whole network and freed when every node has gathered that round.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <string.h>

#include "protocols/internal.h"

void proto_round_w_free(ProtoRoundW *w) {
  if (w == NULL)
    return;
  g_free(w->in_ptr);
  g_free(w->in_cols);
  g_free(w->in_vals);
  g_free(w->out_ptr);
  g_free(w->out_cols);
  g_free(w->out_vals);
  g_free(w);
}

/*
 * Support = {v : W[u,v] > 0} plus u itself (its weight may be 0, so that a
 * node's own payload is always an input): the brief's "W_r[v,u] > 0" rule
 * for who receives, and zero weights of a CSR row never cost a message.
 */
static ProtoRoundW *round_w_new(const TopoGossip *g, guint round) {
  guint n = topo_gossip_n(g);
  ProtoRoundW *w = g_new0(ProtoRoundW, 1);
  w->round = round;
  w->pending = n;
  gsize cap = topo_gossip_nnz(g) + n;
  w->in_ptr = g_new(guint, n + 1);
  w->in_cols = g_new(guint, cap);
  w->in_vals = g_new(double, cap);
  guint *count = g_new0(guint, n);
  gsize k = 0;
  for (guint u = 0; u < n; u++) {
    const guint *cols;
    const double *vals;
    guint len = topo_gossip_row(g, u, &cols, &vals);
    gboolean self = FALSE;
    w->in_ptr[u] = (guint)k;
    for (guint i = 0; i < len; i++) {
      if (!self && cols[i] > u) { /* the row does not list u: add it at weight 0 */
        w->in_cols[k] = u;
        w->in_vals[k++] = 0.0;
        count[u]++;
        self = TRUE;
      }
      if (cols[i] == u || vals[i] > 0.0) {
        w->in_cols[k] = cols[i];
        w->in_vals[k++] = vals[i];
        count[cols[i]]++;
        self |= cols[i] == u;
      }
    }
    if (!self) {
      w->in_cols[k] = u;
      w->in_vals[k++] = 0.0;
      count[u]++;
    }
  }
  w->in_ptr[n] = (guint)k;
  /* Transpose: column u lists the rows v with W[v,u] > 0, increasing. */
  w->out_ptr = g_new(guint, n + 1);
  w->out_cols = g_new(guint, MAX(k, 1));
  w->out_vals = g_new(double, MAX(k, 1));
  w->out_ptr[0] = 0;
  for (guint u = 0; u < n; u++)
    w->out_ptr[u + 1] = w->out_ptr[u] + count[u];
  memset(count, 0, n * sizeof(guint));
  for (guint v = 0; v < n; v++)
    for (guint p = w->in_ptr[v]; p < w->in_ptr[v + 1]; p++) {
      guint u = w->in_cols[p];
      guint q = w->out_ptr[u] + count[u]++;
      w->out_cols[q] = v;
      w->out_vals[q] = w->in_vals[p];
    }
  g_free(count);
  return w;
}

ProtoRoundW *proto_round_w_get(ProtoContext *ctx, guint round, GError **error) {
  if (ctx->is_static && ctx->static_w != NULL)
    return ctx->static_w;
  if (!ctx->is_static) {
    ProtoRoundW *w = g_hash_table_lookup(ctx->round_w, GUINT_TO_POINTER(round));
    if (w != NULL)
      return w;
  }
  GError *sub = NULL;
  TopoGossip *g = topo_schedule_gossip(ctx->schedule, round, &sub);
  if (g == NULL) {
    g_propagate_prefixed_error(error, sub, "gossip matrix of round %u: ", round);
    return NULL;
  }
  if (topo_gossip_n(g) != ctx->n) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "gossip matrix of round %u has %u nodes, the run has %u", round, topo_gossip_n(g),
                ctx->n);
    topo_gossip_free(g);
    return NULL;
  }
  ProtoRoundW *w = round_w_new(g, round);
  topo_gossip_free(g);
  if (ctx->is_static)
    ctx->static_w = w;
  else
    g_hash_table_insert(ctx->round_w, GUINT_TO_POINTER(round), w);
  return w;
}

void proto_round_w_release(ProtoContext *ctx, ProtoRoundW *w) {
  if (w == NULL || ctx->is_static)
    return;
  if (--w->pending == 0)
    g_hash_table_remove(ctx->round_w, GUINT_TO_POINTER(w->round)); /* frees w */
}
