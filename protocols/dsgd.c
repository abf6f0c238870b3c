/*
 * protocols/dsgd.c: DP-D-SGD (docs/design.md "Protocols"; paper Alg. 1 with C = I):
 *   theta_{t+1/2} = theta_t - eta (g_t + nu z_t),  nu = sigma Delta;
 *   exchange theta_{t+1/2};  theta_{t+1} = sum_v W_t[u,v] theta_{t+1/2}^(v).
 * Gossip round t = local step t. Noise variable (u, t) has std nu; with
 * sigma = 0 no noise is registered.
 *
 * This is the runtime's default skeleton with nothing changed (start, step,
 * noise and gather are protocols/runtime_skeleton.c's), so the vtable is
 * all there is: the model for a protocol that differs in one part is
 * decor.c (its noise) or zipdl.c (its step).
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include "protocols/internal.h"

static void dsgd_shape(const ProtoParams *params, ProtoShape *shape) {
  (void)params;
  shape->kind = PROTO_SHAPE_DSGD;
}

const ProtoVTable proto_dsgd_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "dsgd",
    .summary = "DP-D-SGD: noisy local step (std sigma*Delta), one gossip average per step",
    .accounting_shape = dsgd_shape,
};
