/*
 * protocols/muffliato.c: Muffliato-SGD(K) (Cyffers et al. 2022; paper
 * appendix B): one noisy local step (std sigma*Delta, as D-SGD), then K
 * gossip rounds. Step t's payload leaves at gossip round t*K; rounds t*K + k
 * (k = 1..K-1) re-send the running average. With K = 1 it is D-SGD. The
 * messages are -eta W_{KT} (I_T kron [I; 0]) (G + nu Z) plus public terms.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include "protocols/internal.h"

typedef struct {
  guint K;
} MuffRun;

static const ProtoParamSpec muff_params[] = {
    {"K", PROTO_PARAM_INT, "1", 1, 1000000, "gossip rounds per gradient step (1: D-SGD)"},
};

static gboolean muff_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                          GError **error) {
  guint K = (guint)proto_params_get_int(params, "K");
  if ((guint64)K * proto_context_steps(ctx) > G_MAXUINT32) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "muffliato: K = %u times %u steps exceeds 2^32 gossip rounds", K,
                proto_context_steps(ctx));
    return FALSE;
  }
  MuffRun *r = g_new0(MuffRun, 1);
  r->K = K;
  *run_state = r;
  return TRUE;
}

/* D-SGD's step, whose payload leaves at gossip round t K. */
static gboolean muff_step(ProtoNode *node, guint t, GError **error) {
  const MuffRun *r = proto_context_run_state(proto_node_context(node));
  return proto_node_local_step(node, t, error) && proto_node_add_local_noise(node, t, error) &&
         proto_node_exchange(node, t * r->K, sim_linvec_dup(proto_node_model(node)), error);
}

/* After the gather of round r the running average leaves again at round
 * r + 1, unless r + 1 = t K starts step t. */
static gboolean muff_gathered(ProtoNode *node, guint round, guint n_inputs,
                              const ProtoInput *inputs, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  const MuffRun *r = proto_context_run_state(ctx);
  SimLinvec *model = proto_node_model(node);
  if (!proto_average_inputs(model, n_inputs, inputs, error))
    return FALSE;
  if ((round + 1) % r->K != 0)
    return proto_node_exchange(node, round + 1, sim_linvec_dup(model), error);
  guint t = (round + 1) / r->K;
  if (t < proto_context_steps(ctx))
    return muff_step(node, t, error);
  proto_node_done(node);
  return TRUE;
}

static void muff_shape(const ProtoParams *params, ProtoShape *shape) {
  shape->kind = PROTO_SHAPE_MUFFLIATO;
  shape->K = (guint)proto_params_get_int(params, "K");
}

const ProtoVTable proto_muffliato_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "muffliato",
    .summary = "Muffliato-SGD(K): one noisy local step (std sigma*Delta), then K gossip rounds",
    .params = muff_params,
    .n_params = G_N_ELEMENTS(muff_params),
    .init = muff_init,
    .on_gathered = muff_gathered,
    .finish = g_free,
    .step = muff_step,
    .accounting_shape = muff_shape,
};
