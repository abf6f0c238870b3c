/*
 * protocols/decor.c: DECOR (Allouah et al. 2024; paper appendix B): D-SGD
 * whose noise is the node's local noise (std sigma*Delta) plus, for every
 * edge {u, v} of the step's gossip graph, a secret v_e (std
 * sigma_secret*Delta) known to both ends and added with opposite signs at
 * the two ends (+ at the smaller id), so the secrets cancel in the network
 * sum. The edges of step t are the undirected support of W_t (in- and
 * out-neighbours), the same set seen from both ends.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include "protocols/internal.h"

typedef struct {
  double secret_std;
} DecorRun;

static const ProtoParamSpec decor_params[] = {
    {"sigma_secret", PROTO_PARAM_DOUBLE, NULL, 0, 1e300,
     "noise multiplier of the edge secrets (their std is sigma_secret*Delta; default sigma)"},
};

static gboolean decor_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                           GError **error) {
  (void)error;
  DecorRun *r = g_new0(DecorRun, 1);
  double delta = proto_context_clip(ctx), sigma = proto_context_sigma(ctx);
  r->secret_std = (proto_params_is_set(params, "sigma_secret")
                       ? proto_params_get_double(params, "sigma_secret")
                       : sigma) *
                  delta;
  *run_state = r;
  return TRUE;
}

static gboolean decor_node_init(ProtoNode *node, gpointer run_state, gpointer *node_state,
                                GError **error) {
  (void)run_state;
  (void)error;
  gsize d = proto_context_dim(proto_node_context(node));
  *node_state = g_new0(double, MAX(d, 1)); /* the current sample */
  return TRUE;
}

/* The neighbours of u in the undirected support of W_t, increasing. */
static GArray *edge_peers(ProtoNode *node, guint t, GError **error) {
  const guint *in, *out;
  guint n_in = proto_node_in_neighbors(node, t, &in, NULL, error);
  if (n_in == 0)
    return NULL;
  guint n_out = proto_node_out_neighbors(node, t, &out, NULL, error);
  if (n_out == 0)
    return NULL;
  guint u = proto_node_id(node), i = 0, j = 0;
  GArray *peers = g_array_new(FALSE, FALSE, sizeof(guint));
  while (i < n_in || j < n_out) { /* merge of two sorted lists, without repeats */
    guint v = j == n_out || (i < n_in && in[i] <= out[j]) ? in[i++] : out[j++];
    if (v != u && (peers->len == 0 || g_array_index(peers, guint, peers->len - 1) != v))
      g_array_append_val(peers, v);
  }
  return peers;
}

/* Step t's noise: the local noise (D-SGD's, std sigma*Delta), then the
 * secret of each edge of W_t's support with its sign. */
static gboolean decor_noise(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  const DecorRun *r = proto_context_run_state(ctx);
  double *z = proto_context_dim(ctx) ? proto_node_state(node) : NULL;
  SimLinvec *model = proto_node_model(node);
  double lr = proto_context_step_size(ctx);
  if (!proto_node_add_local_noise(node, t, error))
    return FALSE;
  if (r->secret_std > 0.0) {
    GArray *peers = edge_peers(node, t, error);
    if (peers == NULL)
      return FALSE;
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < peers->len; i++) {
      double sign = 0.0;
      SimNoiseId k = proto_node_edge_secret(node, g_array_index(peers, guint, i), t, r->secret_std,
                                            z, &sign, error);
      ok = k != SIM_NOISE_ID_INVALID && sim_linvec_add_noise(model, -lr * sign, k, z, error);
    }
    g_array_free(peers, TRUE);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* Its noise's covariance is sparse and white in time: the structured path's
 * Kalman engine, or its closed form when every message is seen. */
static void decor_shape(const ProtoParams *params, ProtoShape *shape) {
  shape->kind = PROTO_SHAPE_SECRETS;
  shape->sigma_secret = proto_params_is_set(params, "sigma_secret")
                            ? proto_params_get_double(params, "sigma_secret")
                            : NAN;
}

const ProtoVTable proto_decor_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "decor",
    .summary = "DECOR: D-SGD with local noise plus pairwise edge secrets that cancel in the sum",
    .params = decor_params,
    .n_params = G_N_ELEMENTS(decor_params),
    .init = decor_init,
    .node_init = decor_node_init,
    .node_free = g_free,
    .finish = g_free,
    .noise = decor_noise,
    .accounting_shape = decor_shape,
};
