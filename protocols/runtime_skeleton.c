/*
 * protocols/runtime_skeleton.c: the default handlers, what a protocol's
 * NULL handler does (protocols/plugin.h, "The default skeleton").
 *
 * Every built-in protocol used to write the same start and gathered
 * handlers around its own step, and most the same step around their own
 * noise: D-SGD's skeleton, copied. It lives here once. The defaults are
 * resolved when a run is created (proto_vtable_resolve), so the engine's
 * handlers call one pointer per event as before, and a protocol that
 * overrides a part calls the others through the same resolved table.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <string.h>

#include "protocols/internal.h"

gboolean proto_node_add_local_noise(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = node->ctx;
  double nu = ctx->sigma * ctx->clip;
  if (!(nu > 0.0))
    return TRUE;
  /* One sample buffer per run: handlers run one at a time and the sample is
   * added before this returns. */
  if (ctx->dim > 0 && ctx->noise_z == NULL)
    ctx->noise_z = g_new(double, ctx->dim);
  SimNoiseId k = proto_node_noise_local(node, nu, t, ctx->noise_z, error);
  return k != SIM_NOISE_ID_INVALID &&
         sim_linvec_add_noise(node->model, -ctx->step, k, ctx->noise_z, error);
}

/* Local step t, its noise, and the exchange of round t. */
static gboolean default_step(ProtoNode *node, guint t, GError **error) {
  return proto_node_local_step(node, t, error) && node->ctx->handlers.noise(node, t, error) &&
         proto_node_exchange(node, t, sim_linvec_dup(node->model), error);
}

gboolean proto_default_on_start(ProtoNode *node, GError **error) {
  return node->ctx->handlers.step(node, 0, error);
}

gboolean proto_default_on_gathered(ProtoNode *node, guint round, guint n_inputs,
                                   const ProtoInput *inputs, GError **error) {
  ProtoContext *ctx = node->ctx;
  if (!proto_average_inputs(node->model, n_inputs, inputs, error))
    return FALSE;
  guint t = round + 1;
  if (t < ctx->T)
    return ctx->handlers.step(node, t, error);
  proto_node_done(node);
  return TRUE;
}

void proto_vtable_resolve(const ProtoVTable *vt, ProtoVTable *h) {
  *h = (ProtoVTable){0};
  /* An older vtable is only as long as its version's fields (plugin_load.c
   * copies it into a full one, but one registered directly may be either). */
  memcpy(h, vt, proto_vtable_size(vt->abi_version));
  if (vt->abi_version != 1) {
    if (h->on_start == NULL)
      h->on_start = proto_default_on_start;
    if (h->on_gathered == NULL)
      h->on_gathered = proto_default_on_gathered;
  }
  /* A version-1 protocol never calls the defaults that use these (they did
   * not exist): set anyway, so that no resolved pointer is NULL. */
  if (h->step == NULL)
    h->step = default_step;
  if (h->noise == NULL)
    h->noise = proto_node_add_local_noise;
}
