/*
 * tests/plugins/tiny_dsgd.c: DP-D-SGD written against protocols/plugin.h
 * only, as the smallest plugin there is ("tiny-dsgd"). The tests load it
 * from the search path under other file names and compare its accounting
 * with the structured formula.
 */
#include <gmodule.h>

#include "protocols/plugin.h"

static gboolean tiny_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                          GError **error) {
  (void)ctx;
  (void)params;
  (void)error;
  *run_state = NULL;
  return TRUE;
}

/* theta -= eta (g_t + sigma Delta z_t); exchange theta. */
static gboolean tiny_step(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  SimLinvec *model = proto_node_model(node);
  gsize d = proto_context_dim(ctx);
  double *z = d ? g_new(double, d) : NULL;
  double std = proto_context_sigma(ctx) * proto_context_clip(ctx);
  gboolean ok = proto_node_local_step(node, t, error);
  if (ok && std > 0.0) {
    SimNoiseId k = proto_node_noise_local(node, std, t, z, error);
    ok = k != SIM_NOISE_ID_INVALID &&
         sim_linvec_add_noise(model, -proto_context_step_size(ctx), k, z, error);
  }
  g_free(z);
  return ok && proto_node_exchange(node, t, sim_linvec_dup(model), error);
}

static gboolean tiny_start(ProtoNode *node, GError **error) {
  return tiny_step(node, 0, error);
}

static gboolean tiny_gathered(ProtoNode *node, guint round, guint n_inputs,
                              const ProtoInput *inputs, GError **error) {
  SimLinvec *model = proto_node_model(node);
  sim_linvec_zero(model);
  for (guint i = 0; i < n_inputs; i++)
    if (!sim_linvec_axpy(model, inputs[i].weight, inputs[i].payload, error))
      return FALSE;
  if (round + 1 < proto_context_steps(proto_node_context(node)))
    return tiny_step(node, round + 1, error);
  proto_node_done(node);
  return TRUE;
}

#ifdef TINY_MARKER
/* The consent test's plugin (tests/plugins/test_consent.c): a constructor
 * runs as soon as the file is loaded, before any symbol is looked up, so a
 * marker file it writes proves whether the file was loaded at all. */
#include <stdlib.h>
__attribute__((constructor)) static void tiny_marker(void) {
  const char *path = getenv("DPG_PLUGIN_MARKER");
  if (path != NULL)
    g_file_set_contents(path, "loaded\n", -1, NULL);
}
#define TINY_NAME "tiny-marker"
#else
#define TINY_NAME "tiny-dsgd"
#endif

static const ProtoVTable tiny_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = TINY_NAME,
    .summary = "DP-D-SGD as a plugin (test)",
    .init = tiny_init,
    .on_start = tiny_start,
    .on_gathered = tiny_gathered,
};

G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void);
G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void) {
  return &tiny_vtable;
}
