/*
 * tests/plugins/reused_noise.c: a deliberately broken DP-D-SGD
 * ("reused-noise") for the audits (tests/cli/test_audit.c). Its provenance
 * claims a fresh noise variable at every step, as D-SGD's, but every node
 * draws one sample at its first step and adds that same sample again at
 * each later one: the noises of a node are one draw, not T independent
 * ones, so the guarantee the accountant prints is too strong.
 */
#include <gmodule.h>

#include "protocols/plugin.h"

static gboolean reused_node_init(ProtoNode *node, gpointer run_state, gpointer *node_state,
                                 GError **error) {
  (void)run_state;
  (void)error;
  gsize d = proto_context_dim(proto_node_context(node));
  *node_state = g_new0(double, MAX(d, 1));
  return TRUE;
}

static gboolean reused_noise(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  double nu = proto_context_sigma(ctx) * proto_context_clip(ctx);
  if (!(nu > 0.0))
    return TRUE;
  double *z = proto_node_state(node);
  SimNoiseId k = proto_node_noise_register_local(node, nu, t, error);
  if (k == SIM_NOISE_ID_INVALID)
    return FALSE;
  if (t == 0 && !proto_node_noise_draw(node, z, 1, error)) /* the defect: only once */
    return FALSE;
  return sim_linvec_add_noise(proto_node_model(node), -proto_context_step_size(ctx), k,
                              proto_context_dim(ctx) > 0 ? z : NULL, error);
}

static const ProtoVTable reused_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "reused-noise",
    .summary = "DP-D-SGD that reuses its first noise draw (a broken protocol, test)",
    .node_init = reused_node_init,
    .node_free = g_free,
    .noise = reused_noise,
};

G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void);
G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void) {
  return &reused_vtable;
}
