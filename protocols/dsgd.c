/*
 * protocols/dsgd.c: DP-D-SGD (DESIGN.md "Protocols"; paper Alg. 1 with C = I):
 *   theta_{t+1/2} = theta_t - eta (g_t + nu z_t),  nu = sigma Delta;
 *   exchange theta_{t+1/2};  theta_{t+1} = sum_v W_t[u,v] theta_{t+1/2}^(v).
 * Gossip round t = local step t. Noise variable (u, t) has std nu; with
 * sigma = 0 no noise is registered.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include "protocols/internal.h"

typedef struct {
  double *z; /* the current sample */
} DsgdNode;

static gboolean dsgd_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                          GError **error) {
  (void)ctx;
  (void)params;
  (void)error;
  *run_state = NULL;
  return TRUE;
}

static gboolean dsgd_node_init(ProtoNode *node, gpointer run_state, gpointer *node_state,
                               GError **error) {
  (void)run_state;
  (void)error;
  DsgdNode *s = g_new0(DsgdNode, 1);
  gsize d = proto_context_dim(proto_node_context(node));
  s->z = d ? g_new(double, d) : NULL;
  *node_state = s;
  return TRUE;
}

static void dsgd_node_free(gpointer node_state) {
  DsgdNode *s = node_state;
  g_free(s->z);
  g_free(s);
}

/* Local step t with its noise, then exchange of round t. */
static gboolean dsgd_step(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  DsgdNode *s = proto_node_state(node);
  SimLinvec *model = proto_node_model(node);
  if (!proto_node_local_step(node, t, error))
    return FALSE;
  double nu = proto_context_sigma(ctx) * proto_context_clip(ctx);
  if (nu > 0.0) {
    SimNoiseId k = proto_node_noise_local(node, nu, t, s->z, error);
    if (k == SIM_NOISE_ID_INVALID ||
        !sim_linvec_add_noise(model, -proto_context_step_size(ctx), k, s->z, error))
      return FALSE;
  }
  return proto_node_exchange(node, t, sim_linvec_dup(model), error);
}

static gboolean dsgd_start(ProtoNode *node, GError **error) {
  return dsgd_step(node, 0, error);
}

static gboolean dsgd_gathered(ProtoNode *node, guint round, guint n_inputs,
                              const ProtoInput *inputs, GError **error) {
  if (!proto_average_inputs(proto_node_model(node), n_inputs, inputs, error))
    return FALSE;
  guint t = round + 1;
  if (t < proto_context_steps(proto_node_context(node)))
    return dsgd_step(node, t, error);
  proto_node_done(node);
  return TRUE;
}

const ProtoVTable proto_dsgd_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "dsgd",
    .summary = "DP-D-SGD: noisy local step (std sigma*Delta), one gossip average per step",
    .init = dsgd_init,
    .node_init = dsgd_node_init,
    .node_free = dsgd_node_free,
    .on_start = dsgd_start,
    .on_gathered = dsgd_gathered,
};
