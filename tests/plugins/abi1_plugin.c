/*
 * tests/plugins/abi1_plugin.c: a plugin as built for plugin ABI version 1
 * ("abi1-dsgd"): its vtable has version 1's layout (the fields up to
 * finish, declared here as that version's header declared them), it writes
 * out the D-SGD skeleton that version 1 had no defaults for, and it reads a
 * message's linvec through sim_message_payload, as version 1 did. The
 * loader must copy no more than that vtable (ASan sees a read past it) and
 * run it as it ran then (test_load.c).
 *   greet=yes: after step 0 every node also sends its model to node u + 1
 *   (tag 7), whose on_message checks the payload is that model.
 */
#include <gmodule.h>

#include "protocols/plugin.h"

typedef struct {
  guint abi_version;
  const char *name;
  const char *summary;
  const ProtoParamSpec *params;
  guint n_params;
  gboolean (*init)(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                   GError **error);
  gboolean (*node_init)(ProtoNode *node, gpointer run_state, gpointer *node_state, GError **error);
  void (*node_free)(gpointer node_state);
  gboolean (*on_start)(ProtoNode *node, GError **error);
  gboolean (*on_timer)(ProtoNode *node, guint64 tag, GError **error);
  gboolean (*on_message)(ProtoNode *node, SimMessage *msg, GError **error);
  gboolean (*on_topology_change)(ProtoNode *node, const SimTopologyChange *change, GError **error);
  gboolean (*on_gathered)(ProtoNode *node, guint round, guint n_inputs, const ProtoInput *inputs,
                          GError **error);
  void (*finish)(gpointer run_state);
} ProtoVTableV1;

G_STATIC_ASSERT(sizeof(ProtoVTableV1) < sizeof(ProtoVTable));

#define ABI1_ERROR (g_quark_from_static_string("abi1-error"))
#define TAG_GREET 7

static const ProtoParamSpec abi1_params[] = {
    {"greet", PROTO_PARAM_BOOL, "no", 1, 0, "send the model to node u + 1 after step 0"},
};

static gboolean abi1_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                          GError **error) {
  (void)ctx;
  (void)error;
  *run_state = GINT_TO_POINTER(proto_params_get_bool(params, "greet"));
  return TRUE;
}

/* theta -= eta (g_t + sigma Delta z_t); exchange theta. */
static gboolean abi1_step(ProtoNode *node, guint t, GError **error) {
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
  if (ok && t == 0 && proto_context_run_state(ctx) != NULL)
    ok = proto_node_send(node, (proto_node_id(node) + 1) % proto_context_n_nodes(ctx), 0, TAG_GREET,
                         sim_linvec_dup(model), error);
  return ok && proto_node_exchange(node, t, sim_linvec_dup(model), error);
}

static gboolean abi1_start(ProtoNode *node, GError **error) {
  return abi1_step(node, 0, error);
}

static gboolean abi1_gathered(ProtoNode *node, guint round, guint n_inputs,
                              const ProtoInput *inputs, GError **error) {
  SimLinvec *model = proto_node_model(node);
  sim_linvec_zero(model);
  for (guint i = 0; i < n_inputs; i++)
    if (!sim_linvec_axpy(model, inputs[i].weight, inputs[i].payload, error))
      return FALSE;
  if (round + 1 < proto_context_steps(proto_node_context(node)))
    return abi1_step(node, round + 1, error);
  proto_node_done(node);
  return TRUE;
}

/* The payload is the sender's model after step 0: a linvec of the run's
 * space holding the sender's gradient slot (from, 0) at -eta/B. */
static gboolean abi1_message(ProtoNode *node, SimMessage *msg, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  const SimLinvec *theirs = sim_message_payload(msg);
  guint from = sim_message_from(msg);
  if (sim_message_tag(msg) != TAG_GREET || theirs == NULL ||
      sim_linvec_space(theirs) != proto_context_space(ctx) ||
      sim_linvec_grad_coeff(theirs, from, 0) != -proto_context_step_size(ctx)) {
    g_set_error(error, ABI1_ERROR, 0, "node %u: the payload from %u is not its model",
                proto_node_id(node), from);
    return FALSE;
  }
  return TRUE;
}

static const ProtoVTableV1 abi1_vtable = {
    .abi_version = 1,
    .name = "abi1-dsgd",
    .summary = "DP-D-SGD as a plugin of ABI version 1 (test)",
    .params = abi1_params,
    .n_params = G_N_ELEMENTS(abi1_params),
    .init = abi1_init,
    .on_start = abi1_start,
    .on_message = abi1_message,
    .on_gathered = abi1_gathered,
};

G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void);
G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void) {
  return (const ProtoVTable *)&abi1_vtable;
}
