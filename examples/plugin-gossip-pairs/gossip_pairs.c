/*
 * gossip_pairs.c: randomized pairwise gossip with local noise, a dpgossip
 * protocol plugin built out of tree (docs/plugins.md walks through it).
 *
 * At each local step t, node u takes a noisy local step
 *     theta_{t+1/2} = theta_t - eta (g_t + sigma Delta z_t)
 * and then, with mode=pairs (the default), averages with its partner p in a
 * random matching of the graph drawn for round t,
 *     theta_{t+1} = (theta_{t+1/2} + theta_{t+1/2}^(p)) / 2,
 * or keeps theta_{t+1/2} when unmatched. The matching is public randomness:
 * every node draws the same one from the run's seed, so partners agree
 * without talking. Partners swap one message each (proto_node_send); with
 * timeout_ms > 0 a node whose partner's message is that late goes on alone
 * and drops the message when it comes (lossy or slow links).
 * With mode=neighbors the plugin writes nothing: the runtime's default
 * skeleton exchanges with the gossip neighbours and averages with W_t,
 * which is DP-D-SGD, the very code of --protocol dsgd.
 *
 * Both modes are D-SGD on some gossip matrix (the matching's: 1/2 on each
 * pair, 1 on unmatched nodes; or W_t), a case privacy/'s structured formula
 * covers; and whatever the mode, timeouts or losses, dpgossip's observer
 * reads the exact provenance of every message, so the accounting is exact
 * without a line of privacy code here.
 */
#include <string.h>

#include <gmodule.h>

#include "protocols/plugin.h"

#define PAIRS_ERROR (g_quark_from_static_string("gossip-pairs-error"))
#define TAG_PAIR 1 /* our message tag (tag 0 is the runtime's exchange) */
#define NO_PARTNER G_MAXUINT

/* ---- Parameters ----------------------------------------------------------- */

static const ProtoParamSpec pairs_params[] = {
    {"mode", PROTO_PARAM_STRING, "pairs", 1, 0,
     "pairs: average with a random matching partner each round; neighbors: average "
     "with the gossip matrix (DP-D-SGD)"},
    {"timeout_ms", PROTO_PARAM_DOUBLE, "0", 0, 1e9,
     "pairs: go on alone when the partner's message is this late (0: wait for it)"},
};

/* ---- Run and node state ------------------------------------------------- */

typedef struct {
  gboolean pairs;
  double timeout_ms;
  guint n, T;
  guint *partner; /* pairs: partner[t * n + u], NO_PARTNER when unmatched */
} PairsRun;

typedef struct {
  guint round;       /* pairs: the round in progress */
  gboolean waiting;  /* pairs: for the partner's message of `round` */
  SimEventId timer;  /* pairs: the timeout of `round` */
  GHashTable *early; /* pairs: round -> the partner's SimMessage, arrived ahead */
} PairsNode;

/* The undirected edges of W_t's support, as pairs (u, v), u < v. */
static GArray *support_edges(const double *W, guint n) {
  GArray *edges = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint u = 0; u < n; u++)
    for (guint v = u + 1; v < n; v++)
      if (W[(gsize)u * n + v] > 0.0 || W[(gsize)v * n + u] > 0.0) {
        g_array_append_val(edges, u);
        g_array_append_val(edges, v);
      }
  return edges;
}

/* A random maximal matching per round: the edges in a random order (one
 * generator per round, seeded by the run's seed and the round, so the
 * matching of round t does not depend on T), each kept when both ends are
 * still free. O(T (n^2 + m)) time: fine for the graphs of an example. */
static gboolean draw_matchings(ProtoContext *ctx, PairsRun *r, GError **error) {
  guint n = r->n;
  guint64 seed = proto_context_seed(ctx);
  double *W = NULL;
  GArray *edges = NULL;
  guint *order = NULL;
  r->partner = g_new(guint, (gsize)r->T * n);
  for (guint t = 0; t < r->T; t++) {
    if (W == NULL || !proto_context_gossip_is_static(ctx)) {
      g_free(W);
      W = proto_context_gossip_dense(ctx, t, error);
      if (W == NULL)
        break;
      if (edges != NULL)
        g_array_unref(edges);
      edges = support_edges(W, n);
      g_free(order);
      order = g_new(guint, edges->len / 2 + 1);
    }
    guint m = edges->len / 2;
    guint32 words[4] = {(guint32)seed, (guint32)(seed >> 32), t, 0x9e3779b9u};
    GRand *rng = g_rand_new_with_seed_array(words, 4);
    for (guint i = 0; i < m; i++)
      order[i] = i;
    for (guint i = m; i > 1; i--) { /* Fisher-Yates */
      guint j = (guint)g_rand_int_range(rng, 0, (gint32)i);
      guint tmp = order[i - 1];
      order[i - 1] = order[j];
      order[j] = tmp;
    }
    g_rand_free(rng);
    guint *p = r->partner + (gsize)t * n;
    for (guint u = 0; u < n; u++)
      p[u] = NO_PARTNER;
    for (guint i = 0; i < m; i++) {
      guint u = g_array_index(edges, guint, 2 * order[i]);
      guint v = g_array_index(edges, guint, 2 * order[i] + 1);
      if (p[u] == NO_PARTNER && p[v] == NO_PARTNER) {
        p[u] = v;
        p[v] = u;
      }
    }
  }
  gboolean ok = W != NULL;
  g_free(W);
  g_free(order);
  if (edges != NULL)
    g_array_unref(edges);
  return ok;
}

static void pairs_finish(gpointer run_state) {
  PairsRun *r = run_state;
  if (r == NULL)
    return;
  g_free(r->partner);
  g_free(r);
}

static gboolean pairs_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                           GError **error) {
  const char *mode = proto_params_get_string(params, "mode");
  if (strcmp(mode, "pairs") != 0 && strcmp(mode, "neighbors") != 0) {
    g_set_error(error, PAIRS_ERROR, 0, "gossip-pairs: unknown mode '%s' (valid: pairs, neighbors)",
                mode);
    return FALSE;
  }
  PairsRun *r = g_new0(PairsRun, 1);
  r->pairs = strcmp(mode, "pairs") == 0;
  r->timeout_ms = proto_params_get_double(params, "timeout_ms");
  r->n = proto_context_n_nodes(ctx);
  r->T = proto_context_steps(ctx);
  if (r->pairs && !draw_matchings(ctx, r, error)) {
    pairs_finish(r);
    return FALSE;
  }
  *run_state = r;
  return TRUE;
}

static gboolean pairs_node_init(ProtoNode *node, gpointer run_state, gpointer *node_state,
                                GError **error) {
  (void)node;
  (void)run_state;
  (void)error;
  PairsNode *s = g_new0(PairsNode, 1);
  s->timer = SIM_EVENT_ID_NONE;
  s->early = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)sim_message_unref);
  *node_state = s;
  return TRUE;
}

static void pairs_node_free(gpointer node_state) {
  PairsNode *s = node_state;
  g_hash_table_destroy(s->early);
  g_free(s);
}

/* ---- mode=neighbors: the runtime's skeleton (DP-D-SGD) -------------------- */

/* Nothing to write: the vtable leaves step, noise and on_gathered NULL, so
 * the runtime takes the noisy local step theta -= eta (g_t + sigma Delta
 * z_t), exchanges theta with the gossip neighbours and averages what it
 * gathers; pairs_start hands neighbors mode to proto_default_on_start. */

/* ---- mode=pairs: our own messages ----------------------------------------- */

/* theta -= eta (g_t + sigma Delta z_t), D-SGD's noisy local step: the noise
 * is registered with its owner (this node) and its std, and enters the
 * model through its id, so every message carrying the model carries its
 * exact provenance. */
static gboolean noisy_step(ProtoNode *node, guint t, GError **error) {
  return proto_node_local_step(node, t, error) && proto_node_add_local_noise(node, t, error);
}

/* theta = (theta + partner's theta) / 2: the message's provenance slot holds
 * the partner's model, a linvec, so the average keeps the provenance of both. */
static gboolean average_with(ProtoNode *node, SimMessage *msg, GError **error) {
  SimLinvec *model = proto_node_model(node);
  const SimLinvec *theirs = sim_message_provenance(msg);
  return sim_linvec_scale(model, 0.5, error) && sim_linvec_axpy(model, 0.5, theirs, error);
}

/* Takes the steps that need no waiting: from s->round on, until the node
 * waits for a partner or is done. */
static gboolean pairs_advance(ProtoNode *node, GError **error) {
  const PairsRun *r = proto_context_run_state(proto_node_context(node));
  PairsNode *s = proto_node_state(node);
  guint u = proto_node_id(node);
  while (s->round < r->T) {
    guint t = s->round, p = r->partner[(gsize)t * r->n + u];
    if (!noisy_step(node, t, error))
      return FALSE;
    if (p == NO_PARTNER) {
      s->round++;
      continue;
    }
    if (!proto_node_send(node, p, t, TAG_PAIR, sim_linvec_dup(proto_node_model(node)), error))
      return FALSE;
    SimMessage *early = g_hash_table_lookup(s->early, GUINT_TO_POINTER(t));
    if (early == NULL) {
      s->waiting = TRUE;
      if (r->timeout_ms > 0.0) {
        s->timer = proto_node_set_timer(node, (SimTime)(r->timeout_ms * SIM_TIME_MS), t, error);
        if (s->timer == SIM_EVENT_ID_NONE)
          return FALSE;
      }
      return TRUE;
    }
    gboolean ok = average_with(node, early, error);
    g_hash_table_remove(s->early, GUINT_TO_POINTER(t));
    if (!ok)
      return FALSE;
    s->round++;
  }
  proto_node_done(node);
  return TRUE;
}

static gboolean pairs_start(ProtoNode *node, GError **error) {
  const PairsRun *r = proto_context_run_state(proto_node_context(node));
  return r->pairs ? pairs_advance(node, error) : proto_default_on_start(node, error);
}

static gboolean pairs_message(ProtoNode *node, SimMessage *msg, GError **error) {
  const PairsRun *r = proto_context_run_state(proto_node_context(node));
  PairsNode *s = proto_node_state(node);
  guint t = sim_message_round(msg), from = sim_message_from(msg);
  if (sim_message_tag(msg) != TAG_PAIR || t >= r->T ||
      r->partner[(gsize)t * r->n + proto_node_id(node)] != from) {
    g_set_error(error, PAIRS_ERROR, 0, "node %u: unexpected message from %u (round %u, tag %u)",
                proto_node_id(node), from, t, sim_message_tag(msg));
    return FALSE;
  }
  if (t < s->round)
    return TRUE; /* we went on without it (timeout) */
  if (t > s->round || !s->waiting) {
    g_hash_table_insert(s->early, GUINT_TO_POINTER(t), sim_message_ref(msg));
    return TRUE;
  }
  if (s->timer != SIM_EVENT_ID_NONE) {
    proto_node_cancel_timer(node, s->timer);
    s->timer = SIM_EVENT_ID_NONE;
  }
  s->waiting = FALSE;
  if (!average_with(node, msg, error))
    return FALSE;
  s->round++;
  return pairs_advance(node, error);
}

static gboolean pairs_timer(ProtoNode *node, guint64 tag, GError **error) {
  PairsNode *s = proto_node_state(node);
  if (!s->waiting || tag != s->round)
    return TRUE;
  /* The partner is late: keep theta_{t+1/2}, as an unmatched node does. */
  s->timer = SIM_EVENT_ID_NONE;
  s->waiting = FALSE;
  s->round++;
  return pairs_advance(node, error);
}

/* ---- The vtable and the entry point --------------------------------------- */

static const ProtoVTable pairs_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "gossip-pairs",
    .summary = "randomized pairwise gossip with local noise (example plugin)",
    .params = pairs_params,
    .n_params = G_N_ELEMENTS(pairs_params),
    .init = pairs_init,
    .node_init = pairs_node_init,
    .node_free = pairs_node_free,
    .on_start = pairs_start,
    .on_timer = pairs_timer,
    .on_message = pairs_message,
    .finish = pairs_finish,
};

G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void);

G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void) {
  return &pairs_vtable;
}
