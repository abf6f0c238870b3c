/*
 * privacy/observer.h: the observer: attacker views built from the engine's bus,
 * dense or streaming.
 */
#ifndef DPG_PRIVACY_OBSERVER_H
#define DPG_PRIVACY_OBSERVER_H

#include <glib.h>

#include "privacy/blocks.h"
#include "privacy/knowledge.h"
#include "privacy/trust.h"
#include "sim/bus.h"
#include "sim/linvec.h"

G_BEGIN_DECLS

/*
 * A PrivObserver subscribes to an engine's event bus and records, for each of
 * its views (an attacker set and a trust model), the provenance of every
 * message the set can see: the linvec in the message's typed provenance
 * slot (sim_message_provenance, set by the protocols' runtime when it sends
 * a model), so the observer never needs to know which protocol ran. LDP and SecLDP views see every SENT message (including those
 * later dropped: an eavesdropper sees the wire); PNDP views see the messages
 * DELIVERED to their members. Rows are copied sparsely (payloads may be freed
 * later) and stored once for all views (identical rows are kept once).
 * On a space that keeps a set of nodes (sim_lin_space_keep_nodes, the local
 * path's ball) the views' members are node ids as always; the blocks
 * (priv_observer_knowledge, priv_observer_stream_blocks) are over the kept
 * nodes, node i of the blocks the i-th kept node, and a member the space
 * does not keep sees messages but is no node of the blocks.
 */
typedef struct PrivObserver PrivObserver;

/* priv_observer_new: an observer of the linvecs of @space (a reference is
 * taken; its noise registry tells who knows which noise). */
PrivObserver *priv_observer_new(SimLinSpace *space, GError **error);
/* Detaches if attached, then frees. NULL is ignored. */
void priv_observer_free(PrivObserver *obs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivObserver, priv_observer_free)

/*
 * priv_observer_add_view: a view of attacker set @members (distinct nodes,
 * n_members >= 1) under @trust. Views added after messages were observed miss
 * them. Errors: PRIV_ERROR_INVALID_ARGUMENT (empty set, member out of range,
 * duplicate member, unknown trust). Returns the view's index, or G_MAXUINT.
 */
guint priv_observer_add_view(PrivObserver *obs, PrivTrust trust, const guint *members,
                             guint n_members, GError **error);
/*
 * priv_observer_view_hear_sent: view @view also observes every message one
 * of @senders sends to one of @receivers (NULL: to any node), delivered or
 * not, whatever its trust model sees: on the local path's ball, what the
 * shell sends beyond itself (docs/local-bounds.md), whose nodes are no
 * members (they own no noise the view knows by membership; the space knows
 * theirs already, sim_lin_space_keep_nodes). Node lists sorted, distinct,
 * below n. Call it before the run. Errors: PRIV_ERROR_INVALID_ARGUMENT (no
 * such view, no sender, an empty receiver list, a bad node, called twice).
 */
gboolean priv_observer_view_hear_sent(PrivObserver *obs, guint view, const guint *senders,
                                      guint n_senders, const guint *receivers, guint n_receivers,
                                      GError **error);

guint priv_observer_n_views(const PrivObserver *obs);
/* Distinct rows view @view has seen (0 for an unknown view). */
gsize priv_observer_n_rows(const PrivObserver *obs, guint view);

/*
 * priv_observer_attach: subscribes to @bus (once; the observer unsubscribes
 * itself when freed, and forgets the bus if the bus dies first).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT when already attached.
 */
gboolean priv_observer_attach(PrivObserver *obs, SimBus *bus, GError **error);
void priv_observer_detach(PrivObserver *obs);

/* priv_observer_observe: what the bus callback does with one event (also for
 * replaying a recorded run). Messages without provenance are ignored. */
void priv_observer_observe(PrivObserver *obs, const SimBusEvent *event);

/*
 * priv_observer_knowledge: the knowledge of view @view at this point: its
 * rows, plus under PNDP and SecLDP the members' gradient slots (attackers)
 * and every noise variable of the registry a member owns (its own noise and,
 * for edge secrets, the secrets on its edges). Under LDP the members are
 * still marked as attackers (not victims) but know nothing.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (unknown view; a payload from another
 * space was seen). O(rows + registry size).
 */
PrivKnowledge *priv_observer_knowledge(const PrivObserver *obs, guint view, GError **error);

/*
 * The streaming accountant (docs/design.md, "Streaming accountant"). Instead of
 * keeping every observed row for priv_knowledge_blocks at the end, the
 * observer folds each period's rows into a per-view conditional law of the
 * protocol's state (Kalman form) and the per-victim blocks X_u, then rebases
 * the space (sim_lin_space_rebase) so that provenance stops growing.
 * Checkpoints: at every SIM_BUS_ROUND event (round >= 1: every node holds its
 * round-R model, so few linvecs are alive), and after @checkpoint_events
 * message events without a round boundary (asynchronous runs where a node
 * holds rounds back). The result equals priv_knowledge_blocks on
 * priv_observer_knowledge (same X_u up to rounding, same unprotected set
 * away from the tolerance thresholds).
 */
/* How the streaming accountant carries the gradients through the periods
 * (docs/accounting-at-scale.md, "Observer path"). */
typedef enum {
  /* Keeps each period's factors (O(n q) numbers) and replays them backward
   * from chunks of observed rows: memory O(T n q), not O(n^2 T). */
  PRIV_STREAM_BACKWARD,
  /* The reference: every view's Gamma (state x n T) carried forward. */
  PRIV_STREAM_FORWARD,
} PrivStreamEngine;

typedef struct {
  guint T;                   /* gradient steps covered (> 0) */
  double clip;               /* Delta, > 0 (default 1) */
  double rank_tol;           /* relative rank tolerance (default 1e-10) */
  double range_tol;          /* relative range tolerance (default 1e-8) */
  guint64 checkpoint_events; /* 0: 64 n + 4096 */
  gsize max_bytes;           /* memory budget; 0: the machine's (spec_memory_limit) */
  /* Optional: called after every period with the gradient steps seen so far
   * (1 + the largest step) and T, e.g. for a progress line. */
  void (*progress)(guint steps, guint T, gpointer data);
  gpointer progress_data;
  PrivStreamEngine engine; /* default PRIV_STREAM_BACKWARD */
  guint chunk_rows;        /* backward: rows per chunk; 0: about 128 MB of them, 64 to 512 */
} PrivStreamOptions;

/*
 * priv_observer_set_streaming: switches @obs to the streaming accountant,
 * before the first event and after every view was added. The space must
 * keep sparse provenance (SIM_LIN_SPARSE). priv_observer_knowledge then
 * fails; use priv_observer_stream_blocks.
 * Errors: PRIV_ERROR_INVALID_ARGUMENT (events seen already, no view, storage,
 * options), PRIV_ERROR_MEMORY (n T^2 doubles per view).
 */
gboolean priv_observer_set_streaming(PrivObserver *obs, const PrivStreamOptions *opt,
                                     GError **error);
/*
 * priv_observer_stream_blocks: view @view's per-victim blocks (A in units of
 * Delta), once the run is over: the first call folds the rows seen since the
 * last checkpoint. Errors: an error met while observing (the first one),
 * PRIV_ERROR_INVALID_ARGUMENT (unknown view, not streaming), PRIV_ERROR_MEMORY.
 * Complexity per period of S state variables, m fresh noises, k rows seen
 * by a view, nnz coefficients in its transition and c = n (t+1) gradient
 * columns so far: the noise side O(S (S + m)(S + k)); the backward engine
 * steps each row seen back to period 0, O(t (nnz + S k)) per row, and
 * whitens it, O(k c); memory O(S k + nnz) per period and view, a chunk of
 * rows (c x rows, about 128 MB) and the n T^2 blocks. The forward engine
 * instead costs O((nnz + S k) c) per period and O(S n T) memory per view.
 */
PrivBlocks *priv_observer_stream_blocks(PrivObserver *obs, guint view, GError **error);

G_END_DECLS

#endif /* DPG_PRIVACY_OBSERVER_H */
