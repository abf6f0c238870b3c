/*
 * protocols/zipdl.c: Zip-DL (Biswas et al. 2025; paper appendix B): node i
 * sends a distinct message to each receiver j (i itself included),
 *   m_ij = theta_i - eta g_i + zeta_ij,   zeta_i = (I - w w^T / w^T w) y_i,
 * with w_j = W_t[j,i] and y_ij iid normal of std sigma*Delta, one noise
 * variable per (sender, receiver, step); j averages theta_j = sum_i W_t[j,i]
 * m_ij. The gossip-weighted sum over receivers, sum_j w_j zeta_ij, is zero,
 * so the noise cancels in the network average. Each zeta_ij is built on
 * linvecs from the registered y's, so its provenance is exact:
 *   zeta_ij = y_ij - w_j S,  S = sum_k (w_k / w^T w) y_ik.
 * units=gradient scales zeta by eta (m_ij = theta_i - eta (g_i + zeta_ij)),
 * which makes the noise comparable with D-SGD's at the same sigma.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include "protocols/internal.h"

typedef struct {
  double std;   /* of each y: sigma * Delta */
  double scale; /* 1 (units=model) or -eta (units=gradient) */
} ZipRun;

typedef struct {
  double *y; /* samples, one per receiver */
  gsize cap; /* receivers the buffer holds */
  SimNoiseId *ids;
} ZipNode;

static const ProtoParamSpec zip_params[] = {
    {"units", PROTO_PARAM_STRING, "model", 1, 0,
     "model: zeta (std sigma*Delta) is added to the model, as in Zip-DL; gradient: to the "
     "gradient, scaled by eta like D-SGD's noise"},
};

static gboolean zip_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                         GError **error) {
  const char *units = proto_params_get_string(params, "units");
  if (strcmp(units, "model") != 0 && strcmp(units, "gradient") != 0) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "zipdl: units must be model or gradient, not '%s'", units);
    return FALSE;
  }
  /* A node's message sums up to n noises: their variance must stay a double,
   * or the accountant's conditioning (and the model) is fed infinities. */
  double std = proto_context_sigma(ctx) * proto_context_clip(ctx);
  if (!isfinite(std * std * proto_context_n_nodes(ctx))) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "zipdl: the noise std sigma x clip = %g x %g = %g: its variance over %u nodes "
                "overflows a double; use a smaller sigma or clip (their product below %.3g)",
                proto_context_sigma(ctx), proto_context_clip(ctx), std,
                proto_context_n_nodes(ctx), sqrt(G_MAXDOUBLE / proto_context_n_nodes(ctx)));
    return FALSE;
  }
  ZipRun *r = g_new0(ZipRun, 1);
  r->std = std;
  r->scale = strcmp(units, "model") == 0 ? 1.0 : -proto_context_step_size(ctx);
  *run_state = r;
  return TRUE;
}

static gboolean zip_node_init(ProtoNode *node, gpointer run_state, gpointer *node_state,
                              GError **error) {
  (void)node;
  (void)run_state;
  (void)error;
  *node_state = g_new0(ZipNode, 1);
  return TRUE;
}

static void zip_node_free(gpointer node_state) {
  ZipNode *s = node_state;
  g_free(s->y);
  g_free(s->ids);
  g_free(s);
}

/* Local step t, then one message per receiver (the default gather averages
 * them). */
static gboolean zip_step(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  const ZipRun *r = proto_context_run_state(ctx);
  ZipNode *s = proto_node_state(node);
  gsize d = proto_context_dim(ctx);
  SimLinvec *model = proto_node_model(node);
  if (!proto_node_local_step(node, t, error))
    return FALSE;
  const guint *to;
  const double *w;
  guint m = proto_node_out_neighbors(node, t, &to, &w, error);
  if (m == 0)
    return FALSE;
  SimLinvec **payloads = g_new(SimLinvec *, m);
  for (guint j = 0; j < m; j++)
    payloads[j] = sim_linvec_dup(model);
  gboolean ok = TRUE;
  double ww = 0.0;
  for (guint j = 0; j < m; j++)
    ww += w[j] * w[j];
  if (r->std > 0.0 && ww > 0.0) {
    if (s->cap < m) {
      s->cap = m;
      s->y = g_renew(double, s->y, MAX(d, 1) * m);
      s->ids = g_renew(SimNoiseId, s->ids, m);
    }
    SimLinvec *S = sim_linvec_new(proto_context_space(ctx));
    for (guint j = 0; ok && j < m; j++) {
      double *yj = d ? s->y + (gsize)j * d : NULL;
      s->ids[j] = proto_node_noise_local(node, r->std, t, yj, error);
      ok = s->ids[j] != SIM_NOISE_ID_INVALID &&
           (w[j] == 0.0 || sim_linvec_add_noise(S, w[j] / ww, s->ids[j], yj, error));
    }
    for (guint j = 0; ok && j < m; j++)
      ok = sim_linvec_add_noise(payloads[j], r->scale, s->ids[j], d ? s->y + (gsize)j * d : NULL,
                                error) &&
           sim_linvec_axpy(payloads[j], -r->scale * w[j], S, error);
    sim_linvec_free(S);
  }
  if (!ok) {
    for (guint j = 0; j < m; j++)
      sim_linvec_free(payloads[j]);
    g_free(payloads);
    return FALSE;
  }
  ok = proto_node_exchange_each(node, t, payloads, m, error);
  g_free(payloads);
  return ok;
}

const ProtoVTable proto_zipdl_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "zipdl",
    .summary = "Zip-DL: one message per receiver, noises projected to cancel in the gossip average",
    .params = zip_params,
    .n_params = G_N_ELEMENTS(zip_params),
    .init = zip_init,
    .node_init = zip_node_init,
    .node_free = zip_node_free,
    .finish = g_free,
    .step = zip_step,
};
