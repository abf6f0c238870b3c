/*
 * sim/noise.c: the noise registry, the list of columns of B.
 *
 * Append-only so that an id, once handed to a linvec, names the same variable
 * for the whole run: the observer can then read provenance long after the
 * protocol moved on. Owners live in one shared array (most variables have one
 * or two) and are kept in the caller's order, which carries meaning for edge
 * secrets (which end adds +v_e).
 */
#define G_LOG_DOMAIN "dpg-sim"

#include "sim/sim.h"

#include <math.h>

typedef struct {
  double std;
  guint32 owner_off; /* first owner in SimNoiseRegistry.owners */
  guint32 n_owners;
  guint node;
  guint round;
  gint kind;
} NoiseEntry;

struct SimNoiseRegistry {
  gint ref_count;
  guint n_nodes;
  GArray *entries;      /* NoiseEntry */
  GArray *owners;       /* guint */
  GHashTable *retained; /* id + 1 of the variables a protocol still references */
};

gsize sim_noise_registry_bytes_per_variable(void) {
  return sizeof(NoiseEntry) + sizeof(guint);
}

SimNoiseRegistry *sim_noise_registry_new(guint n_nodes, GError **error) {
  if (n_nodes == 0) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "noise registry: the network must have at least one node");
    return NULL;
  }
  SimNoiseRegistry *reg = g_new0(SimNoiseRegistry, 1);
  reg->ref_count = 1;
  reg->n_nodes = n_nodes;
  reg->entries = g_array_new(FALSE, FALSE, sizeof(NoiseEntry));
  reg->owners = g_array_new(FALSE, FALSE, sizeof(guint));
  reg->retained = g_hash_table_new(g_direct_hash, g_direct_equal);
  return reg;
}

SimNoiseRegistry *sim_noise_registry_ref(SimNoiseRegistry *reg) {
  g_return_val_if_fail(reg != NULL, NULL);
  g_atomic_int_inc(&reg->ref_count);
  return reg;
}

void sim_noise_registry_unref(SimNoiseRegistry *reg) {
  if (reg == NULL || !g_atomic_int_dec_and_test(&reg->ref_count))
    return;
  g_array_free(reg->entries, TRUE);
  g_array_free(reg->owners, TRUE);
  g_hash_table_unref(reg->retained);
  g_free(reg);
}

guint sim_noise_registry_n_nodes(const SimNoiseRegistry *reg) {
  g_return_val_if_fail(reg != NULL, 0);
  return reg->n_nodes;
}

guint sim_noise_registry_count(const SimNoiseRegistry *reg) {
  g_return_val_if_fail(reg != NULL, 0);
  return reg->entries->len;
}

SimNoiseId sim_noise_register(SimNoiseRegistry *reg, double std, const guint *owners,
                              guint n_owners, guint node, guint round, gint kind, GError **error) {
  g_return_val_if_fail(reg != NULL, SIM_NOISE_ID_INVALID);
  if (!isfinite(std) || std < 0.0) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "noise variable: standard deviation %g must be finite and >= 0", std);
    return SIM_NOISE_ID_INVALID;
  }
  if (n_owners == 0 || owners == NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "noise variable: at least one owner node is required");
    return SIM_NOISE_ID_INVALID;
  }
  for (guint i = 0; i < n_owners; i++) {
    if (owners[i] >= reg->n_nodes) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                  "noise variable: owner %u out of range (the network has %u nodes)", owners[i],
                  reg->n_nodes);
      return SIM_NOISE_ID_INVALID;
    }
    for (guint j = 0; j < i; j++)
      if (owners[j] == owners[i]) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                    "noise variable: owner %u listed twice", owners[i]);
        return SIM_NOISE_ID_INVALID;
      }
  }
  if (node != SIM_NODE_NONE && node >= reg->n_nodes) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "noise variable: metadata node %u out of range (the network has %u "
                "nodes; use SIM_NODE_NONE for none)",
                node, reg->n_nodes);
    return SIM_NOISE_ID_INVALID;
  }
  /* Ids and owner offsets are 32-bit: B has at most 2^32 - 1 columns. */
  if (reg->entries->len >= SIM_NOISE_ID_INVALID ||
      (guint64)reg->owners->len + n_owners > G_MAXUINT32) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                "noise registry full: %u variables registered", reg->entries->len);
    return SIM_NOISE_ID_INVALID;
  }
  NoiseEntry e = {
      .std = std,
      .owner_off = reg->owners->len,
      .n_owners = n_owners,
      .node = node,
      .round = round,
      .kind = kind,
  };
  g_array_append_vals(reg->owners, owners, n_owners);
  g_array_append_val(reg->entries, e);
  return reg->entries->len - 1;
}

SimNoiseId sim_noise_register_local(SimNoiseRegistry *reg, double std, guint node, guint round,
                                    GError **error) {
  return sim_noise_register(reg, std, &node, 1, node, round, SIM_NOISE_KIND_LOCAL, error);
}

SimNoiseId sim_noise_register_edge(SimNoiseRegistry *reg, double std, guint u, guint v, guint round,
                                   GError **error) {
  guint owners[2] = {u, v};
  return sim_noise_register(reg, std, owners, 2, u, round, SIM_NOISE_KIND_EDGE_SECRET, error);
}

SimNoiseId sim_noise_register_state(SimNoiseRegistry *reg, GError **error) {
  g_return_val_if_fail(reg != NULL, SIM_NOISE_ID_INVALID);
  if (reg->entries->len >= SIM_NOISE_ID_INVALID) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                "noise registry full: %u variables registered", reg->entries->len);
    return SIM_NOISE_ID_INVALID;
  }
  NoiseEntry e = {.std = 1.0,
                  .owner_off = reg->owners->len,
                  .n_owners = 0,
                  .node = SIM_NODE_NONE,
                  .round = G_MAXUINT,
                  .kind = SIM_NOISE_KIND_STATE};
  g_array_append_val(reg->entries, e);
  return reg->entries->len - 1;
}

void sim_noise_retain(SimNoiseRegistry *reg, SimNoiseId k) {
  g_return_if_fail(reg != NULL && k < reg->entries->len);
  g_hash_table_add(reg->retained, GUINT_TO_POINTER(k + 1));
}

void sim_noise_release(SimNoiseRegistry *reg, SimNoiseId k) {
  g_return_if_fail(reg != NULL);
  g_hash_table_remove(reg->retained, GUINT_TO_POINTER(k + 1));
}

static gint cmp_id(gconstpointer a, gconstpointer b) {
  SimNoiseId x = *(const SimNoiseId *)a, y = *(const SimNoiseId *)b;
  return x < y ? -1 : x > y;
}

GArray *sim_noise_retained(const SimNoiseRegistry *reg) {
  g_return_val_if_fail(reg != NULL, NULL);
  GArray *ids = g_array_sized_new(FALSE, FALSE, sizeof(SimNoiseId),
                                  g_hash_table_size(reg->retained));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, reg->retained);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    SimNoiseId k = GPOINTER_TO_UINT(key) - 1;
    g_array_append_val(ids, k);
  }
  g_array_sort(ids, cmp_id); /* hash order is not deterministic across builds */
  return ids;
}

static const NoiseEntry *entry(const SimNoiseRegistry *reg, SimNoiseId k) {
  return &g_array_index(reg->entries, NoiseEntry, k);
}

#define CHECK_ID(reg, k, fallback)                                                                 \
  do {                                                                                             \
    g_return_val_if_fail((reg) != NULL, fallback);                                                 \
    g_return_val_if_fail((k) < (reg)->entries->len, fallback);                                     \
  } while (0)

double sim_noise_std(const SimNoiseRegistry *reg, SimNoiseId k) {
  CHECK_ID(reg, k, NAN);
  return entry(reg, k)->std;
}

guint sim_noise_n_owners(const SimNoiseRegistry *reg, SimNoiseId k) {
  CHECK_ID(reg, k, 0);
  return entry(reg, k)->n_owners;
}

guint sim_noise_owner(const SimNoiseRegistry *reg, SimNoiseId k, guint i) {
  CHECK_ID(reg, k, SIM_NODE_NONE);
  const NoiseEntry *e = entry(reg, k);
  g_return_val_if_fail(i < e->n_owners, SIM_NODE_NONE);
  return g_array_index(reg->owners, guint, e->owner_off + i);
}

gboolean sim_noise_is_known_by(const SimNoiseRegistry *reg, SimNoiseId k, guint node) {
  CHECK_ID(reg, k, FALSE);
  const NoiseEntry *e = entry(reg, k);
  const guint *o = &g_array_index(reg->owners, guint, e->owner_off);
  for (guint i = 0; i < e->n_owners; i++)
    if (o[i] == node)
      return TRUE;
  return FALSE;
}

gint sim_noise_kind(const SimNoiseRegistry *reg, SimNoiseId k) {
  CHECK_ID(reg, k, -1);
  return entry(reg, k)->kind;
}

guint sim_noise_node(const SimNoiseRegistry *reg, SimNoiseId k) {
  CHECK_ID(reg, k, SIM_NODE_NONE);
  return entry(reg, k)->node;
}

guint sim_noise_round(const SimNoiseRegistry *reg, SimNoiseId k) {
  CHECK_ID(reg, k, G_MAXUINT);
  return entry(reg, k)->round;
}
