/*
 * sim/noise.h: the noise registry.
 *
 * The noise variables of a run: the columns of B in O = A G + B Z, one
 * standard-normal draw each (sim/linvec.h explains the units). Not
 * thread-safe; a run owns its registry.
 */
#ifndef DPG_SIM_NOISE_H
#define DPG_SIM_NOISE_H

#include "sim/base.h"

G_BEGIN_DECLS

/** Id of a noise variable: its column in B, dense from 0 in registration order. */
typedef guint32 SimNoiseId;
/** Returned by the registration functions on error. */
#define SIM_NOISE_ID_INVALID G_MAXUINT32

/**
 * Kind tags for noise variables. The library gives them no meaning; protocols
 * and the privacy observer use them to tell noises apart. Values from
 * SIM_NOISE_KIND_USER on are free for protocol-specific tags.
 */
enum {
  SIM_NOISE_KIND_LOCAL = 0,       /* drawn by one node */
  SIM_NOISE_KIND_EDGE_SECRET = 1, /* shared by the two ends of an edge (DECOR) */
  SIM_NOISE_KIND_STATE = 2,       /* a rebase state variable (sim_lin_space_rebase):
                                     std 1, no owner */
  SIM_NOISE_KIND_NUISANCE = 3,    /* an unknown of arbitrary law, no noise: the
                                     content of a message entering the local
                                     path's ball (sim_lin_space_nuisance_from);
                                     an accountant must project it out */
  SIM_NOISE_KIND_USER = 16,
};

/** An append-only, reference-counted table of the noise variables of a run. */
typedef struct SimNoiseRegistry SimNoiseRegistry;

/**
 * sim_noise_registry_new: an empty registry for a network of n_nodes nodes.
 * @n_nodes: number of nodes, >= 1 (owners and metadata nodes are checked
 *   against it).
 * @error: SIM_ERROR_INVALID_ARGUMENT when n_nodes is 0.
 * Returns: (transfer full) a registry with reference count 1, or NULL.
 * Complexity: O(1).
 */
SimNoiseRegistry *sim_noise_registry_new(guint n_nodes, GError **error);
/** sim_noise_registry_ref: adds a reference; returns @reg. O(1). */
SimNoiseRegistry *sim_noise_registry_ref(SimNoiseRegistry *reg);
/** sim_noise_registry_bytes_per_variable: what the registry keeps for each
 * variable of one owner (its entry and owner), the cost of a run's steps
 * before the run: the registry only grows. O(1). */
gsize sim_noise_registry_bytes_per_variable(void);
/** sim_noise_registry_unref: drops a reference, freeing at zero. NULL is a no-op. */
void sim_noise_registry_unref(SimNoiseRegistry *reg);
/** sim_noise_registry_n_nodes: the network size given at creation. O(1). */
guint sim_noise_registry_n_nodes(const SimNoiseRegistry *reg);
/** sim_noise_registry_count: number of variables registered so far (ids are
 * 0 .. count-1). O(1). */
guint sim_noise_registry_count(const SimNoiseRegistry *reg);

/**
 * sim_noise_register: appends a noise variable N_k = std * z_k.
 * @std: its standard deviation, finite and >= 0 (0 is allowed: the variable
 *   then never appears in any provenance).
 * @owners: the nodes that know its realization, in the caller's order (kept:
 *   e.g. owners[0] is the end that adds +v_e of an edge secret); each < n_nodes,
 *   no duplicates.
 * @n_owners: >= 1.
 * @node, @round: metadata for protocols and the observer (the node that drew
 *   it, or the edge end it is filed under; its local step or gossip round).
 *   node is < n_nodes or SIM_NODE_NONE; round is free.
 * @kind: a SIM_NOISE_KIND_* tag or a protocol's own (>= SIM_NOISE_KIND_USER).
 * @error: SIM_ERROR_INVALID_ARGUMENT for a negative or non-finite std, no
 *   owner, an owner or node out of range, a duplicate owner;
 *   SIM_ERROR_CAPACITY when 2^32 - 1 variables exist already.
 * Returns: the new id (= previous count), or SIM_NOISE_ID_INVALID on error.
 * Complexity: amortized O(n_owners^2) (duplicate check); owners are few.
 */
SimNoiseId sim_noise_register(SimNoiseRegistry *reg, double std, const guint *owners,
                              guint n_owners, guint node, guint round, gint kind, GError **error);
/**
 * sim_noise_register_state: a state variable of sim_lin_space_rebase: std 1,
 * no owner, node SIM_NODE_NONE, kind SIM_NOISE_KIND_STATE. It stands for the
 * linear combination a rebased linvec held, not for a fresh draw.
 * Errors: SIM_ERROR_CAPACITY when the registry is full. O(1) amortized.
 */
SimNoiseId sim_noise_register_state(SimNoiseRegistry *reg, GError **error);
/**
 * sim_noise_retain, sim_noise_release: a protocol that will add variable @k
 * to a linvec again later (a ring of past samples, an edge secret only one
 * end has used so far) retains it until its last use. A rebase
 * (sim_lin_space_rebase) carries every retained variable over as state under
 * its own id, so the streaming accountant can still resolve it. Retaining
 * twice is retaining once. O(1).
 */
void sim_noise_retain(SimNoiseRegistry *reg, SimNoiseId k);
void sim_noise_release(SimNoiseRegistry *reg, SimNoiseId k);
/** sim_noise_retained: the retained ids, increasing (free with g_array_unref).
 * O(r log r) for r retained. */
GArray *sim_noise_retained(const SimNoiseRegistry *reg);
/** sim_noise_register_local: sim_noise_register with the single owner @node
 * (also its metadata node) and kind SIM_NOISE_KIND_LOCAL. Same errors. */
SimNoiseId sim_noise_register_local(SimNoiseRegistry *reg, double std, guint node, guint round,
                                    GError **error);
/** sim_noise_register_edge: an edge secret known to @u and @v (u != v), in
 * that owner order, metadata node u, kind SIM_NOISE_KIND_EDGE_SECRET. Same
 * errors as sim_noise_register. */
SimNoiseId sim_noise_register_edge(SimNoiseRegistry *reg, double std, guint u, guint v, guint round,
                                   GError **error);

/*
 * Getters. @k must be a registered id: an unknown id is a programming error,
 * reported by g_return_val_if_fail (a GLib critical) with the fallback value
 * given. All O(1) except sim_noise_is_known_by, O(n_owners).
 */
double sim_noise_std(const SimNoiseRegistry *reg, SimNoiseId k);     /* NAN */
guint sim_noise_n_owners(const SimNoiseRegistry *reg, SimNoiseId k); /* 0 */
/** The i-th owner (i < n_owners) in registration order; SIM_NODE_NONE on error. */
guint sim_noise_owner(const SimNoiseRegistry *reg, SimNoiseId k, guint i);
/** Whether @node is among the owners of k (the SecLDP / PNDP "known noise"
 * test); FALSE on error. */
gboolean sim_noise_is_known_by(const SimNoiseRegistry *reg, SimNoiseId k, guint node);
gint sim_noise_kind(const SimNoiseRegistry *reg, SimNoiseId k);   /* -1 */
guint sim_noise_node(const SimNoiseRegistry *reg, SimNoiseId k);  /* SIM_NODE_NONE */
guint sim_noise_round(const SimNoiseRegistry *reg, SimNoiseId k); /* G_MAXUINT */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimNoiseRegistry, sim_noise_registry_unref)

G_END_DECLS

#endif /* DPG_SIM_NOISE_H */
