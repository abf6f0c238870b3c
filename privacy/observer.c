/*
 * privacy/observer.c: records what each attacker set sees of a run, read off
 * the provenance of the messages on the engine's event bus (docs/design.md,
 * "Privacy accounting": the observer never needs to know which protocol ran).
 */
#include "privacy/knowledge_internal.h"
#include "privacy/stream_internal.h"

#include <string.h>

typedef struct {
  PrivTrust trust;
  const PrivTrustModel *model; /* its row: what it sees and knows */
  guint *members;
  guint n_members;
  gboolean *is_member;      /* n: by node id (what it sees, which noise it owns) */
  gboolean *is_kept_member; /* n_kept: by kept index (sim_lin_space_keep_nodes), the
                             * gradient columns' nodes; NULL when every node is kept */
  gboolean *hears_sent;     /* n: nodes whose sent messages it observes too
                             * (priv_observer_view_hear_sent); NULL: none */
  gboolean *hears_sent_to;  /* n: the receivers of those messages; NULL: any */
  GArray *rows;             /* guint: ids in the observer's row pool */
  GHashTable *seen;         /* row id + 1 */
} View;

struct PrivObserver {
  SimLinSpace *space;
  guint n;      /* the network's nodes */
  guint n_kept; /* the nodes with gradient columns (sim_lin_space_n_kept) */
  GPtrArray *views;
  /* Row pool, shared by the views: each distinct row once, CSR-like as in
   * PrivKnowledge (gradient entries first). */
  PrivRowSet rows;
  SimBus *bus;
  guint subscription;
  gboolean foreign; /* a payload of another space was seen */
  guint64 events;   /* message events observed */
  /* Streaming (priv_observer_set_streaming): the pool holds one period. */
  PrivStream *stream;
  GError *error;         /* the first error met while observing */
  guint64 period_events; /* message events since the last checkpoint */
  guint64 checkpoint_events;
  gboolean finished;
};

gboolean priv_trust_knows_noise(PrivTrust trust, const gboolean *is_member, guint n,
                                const SimNoiseRegistry *reg, SimNoiseId id) {
  const PrivTrustModel *model = priv_trust_model(trust);
  if (model == NULL || !model->knows_own_noise)
    return FALSE;
  guint no = sim_noise_n_owners(reg, id);
  for (guint j = 0; j < no; j++) {
    guint owner = sim_noise_owner(reg, id, j);
    if (owner < n && is_member[owner])
      return TRUE;
  }
  return FALSE;
}

static void view_free(gpointer p) {
  View *v = p;
  g_free(v->members);
  g_free(v->is_member);
  g_free(v->is_kept_member);
  g_free(v->hears_sent);
  g_free(v->hears_sent_to);
  g_array_unref(v->rows);
  g_hash_table_unref(v->seen);
  g_free(v);
}

PrivObserver *priv_observer_new(SimLinSpace *space, GError **error) {
  if (!space) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "the observer needs a space");
    return NULL;
  }
  PrivObserver *o = g_new0(PrivObserver, 1);
  o->space = sim_lin_space_ref(space);
  o->n = sim_lin_space_n_nodes(space);
  o->n_kept = sim_lin_space_n_kept(space);
  o->views = g_ptr_array_new_with_free_func(view_free);
  priv_row_set_init(&o->rows);
  return o;
}

void priv_observer_free(PrivObserver *o) {
  if (!o)
    return;
  priv_observer_detach(o);
  priv_stream_free(o->stream);
  g_clear_error(&o->error);
  g_ptr_array_unref(o->views);
  priv_row_set_clear(&o->rows);
  sim_lin_space_unref(o->space);
  g_free(o);
}

guint priv_observer_add_view(PrivObserver *o, PrivTrust trust, const guint *members,
                             guint n_members, GError **error) {
  g_return_val_if_fail(o != NULL, G_MAXUINT);
  if (priv_trust_model(trust) == NULL) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "unknown trust model %d",
                (int)trust);
    return G_MAXUINT;
  }
  if (n_members == 0 || !members) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "an attacker set needs at least one member");
    return G_MAXUINT;
  }
  gboolean *is_member = g_new0(gboolean, o->n);
  for (guint i = 0; i < n_members; i++) {
    if (members[i] >= o->n || is_member[members[i]]) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  members[i] >= o->n ? "attacker %u is out of range (the network has %u nodes)"
                                     : "attacker %u appears twice in the set (%u nodes)",
                  members[i], o->n);
      g_free(is_member);
      return G_MAXUINT;
    }
    is_member[members[i]] = TRUE;
  }
  View *v = g_new0(View, 1);
  v->trust = trust;
  v->model = priv_trust_model(trust);
  v->members = g_memdup2(members, sizeof(guint) * n_members);
  v->n_members = n_members;
  v->is_member = is_member;
  if (o->n_kept != o->n) {
    /* Members the space does not keep (the ball's shell) see, but own no
     * column: their gradients and noise are no provenance. */
    v->is_kept_member = g_new0(gboolean, o->n_kept);
    for (guint i = 0; i < n_members; i++) {
      guint k = sim_lin_space_kept_index(o->space, members[i]);
      if (k != G_MAXUINT)
        v->is_kept_member[k] = TRUE;
    }
  }
  v->rows = g_array_new(FALSE, FALSE, sizeof(guint));
  v->seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  g_ptr_array_add(o->views, v);
  return o->views->len - 1;
}

/* A node list for a view: increasing ids below @n, as a flag array (NULL
 * and *@why set when it is not). */
static gboolean *node_flags(const guint *nodes, guint n_nodes, guint n, const char **why) {
  for (guint i = 0; i < n_nodes; i++)
    if (nodes[i] >= n || (i > 0 && nodes[i] <= nodes[i - 1])) {
      *why = "the nodes must be increasing node ids below the network size";
      return NULL;
    }
  gboolean *flags = g_new0(gboolean, n);
  for (guint i = 0; i < n_nodes; i++)
    flags[nodes[i]] = TRUE;
  return flags;
}

gboolean priv_observer_view_hear_sent(PrivObserver *o, guint view, const guint *senders,
                                      guint n_senders, const guint *receivers, guint n_receivers,
                                      GError **error) {
  g_return_val_if_fail(o != NULL, FALSE);
  View *v = view < o->views->len ? g_ptr_array_index(o->views, view) : NULL;
  const char *why = v == NULL                           ? "no such view"
                    : v->hears_sent != NULL             ? "the view hears a set of senders already"
                    : n_senders == 0 || senders == NULL ? "no sender to hear"
                    : receivers != NULL && n_receivers == 0 ? "no receiver (NULL receivers: any)"
                                                            : NULL;
  gboolean *from = why == NULL ? node_flags(senders, n_senders, o->n, &why) : NULL;
  gboolean *to = from != NULL && receivers != NULL ? node_flags(receivers, n_receivers, o->n, &why)
                                                   : NULL;
  if (why != NULL) {
    g_free(from);
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "observer view %u: cannot hear what %u nodes send to %s: %s", view, n_senders,
                receivers != NULL ? "the nodes given" : "any node", why);
    return FALSE;
  }
  v->hears_sent = from;
  v->hears_sent_to = to;
  return TRUE;
}

guint priv_observer_n_views(const PrivObserver *o) {
  g_return_val_if_fail(o != NULL, 0);
  return o->views->len;
}

gsize priv_observer_n_rows(const PrivObserver *o, guint view) {
  g_return_val_if_fail(o != NULL, 0);
  if (view >= o->views->len)
    return 0;
  return ((View *)g_ptr_array_index(o->views, view))->rows->len;
}

/* Ends a streaming period: the pool goes to the accountant, then is emptied. */
static void checkpoint(PrivObserver *o, gboolean rebase) {
  if (o->error || o->finished)
    return;
  GArray **rows = g_new(GArray *, MAX(o->views->len, 1));
  for (guint i = 0; i < o->views->len; i++)
    rows[i] = ((View *)g_ptr_array_index(o->views, i))->rows;
  PrivRowPool pool = priv_row_set_pool(&o->rows);
  if (o->foreign)
    g_set_error(&o->error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "a message payload belonged to another linvec space than the observer's: "
                "its provenance cannot be accounted");
  else
    priv_stream_period(o->stream, &pool, rows, rebase, &o->error);
  g_free(rows);
  priv_row_set_reset(&o->rows);
  for (guint i = 0; i < o->views->len; i++) {
    View *v = g_ptr_array_index(o->views, i);
    g_array_set_size(v->rows, 0);
    g_hash_table_remove_all(v->seen);
  }
  o->period_events = 0;
}

void priv_observer_observe(PrivObserver *o, const SimBusEvent *ev) {
  g_return_if_fail(o != NULL && ev != NULL);
  if (o->stream && ev->kind == SIM_BUS_ROUND && ev->round >= 1) {
    checkpoint(o, TRUE);
    return;
  }
  if ((ev->kind != SIM_BUS_MESSAGE_SENT && ev->kind != SIM_BUS_MESSAGE_DELIVERED) || !ev->message)
    return;
  o->events++;
  if (o->stream) {
    if (o->error || o->finished)
      return;
    if (++o->period_events > o->checkpoint_events)
      checkpoint(o, TRUE);
  }
  const SimLinvec *payload = sim_message_provenance(ev->message);
  if (!payload)
    return; /* not a model: nothing to account */
  /* An empty provenance is a known value (a colluder's message on the local
   * path's ball, sim_lin_space_keep_nodes): it observes nothing. */
  if (sim_linvec_nnz(payload, SIM_LIN_BOTH) == 0)
    return;
  guint id = G_MAXUINT;
  for (guint i = 0; i < o->views->len; i++) {
    View *v = g_ptr_array_index(o->views, i);
    gboolean wants = v->model->sees == PRIV_SEES_RECEIVED
                         ? ev->kind == SIM_BUS_MESSAGE_DELIVERED && ev->to < o->n &&
                               v->is_member[ev->to]
                         : ev->kind == SIM_BUS_MESSAGE_SENT;
    /* A heard sender: what it sends (to the heard receivers), delivered
     * or not. */
    if (!wants && v->hears_sent != NULL)
      wants = ev->kind == SIM_BUS_MESSAGE_SENT && ev->from < o->n && v->hears_sent[ev->from] &&
              (v->hears_sent_to == NULL || (ev->to < o->n && v->hears_sent_to[ev->to]));
    if (!wants)
      continue;
    if (id == G_MAXUINT) {
      if (sim_linvec_space(payload) != o->space) {
        o->foreign = TRUE;
        return;
      }
      id = priv_row_set_add_linvec(&o->rows, payload);
    }
    if (g_hash_table_add(v->seen, GUINT_TO_POINTER(id + 1)))
      g_array_append_val(v->rows, id);
  }
}

static void on_event(const SimBusEvent *ev, gpointer user_data) {
  priv_observer_observe(user_data, ev);
}

/* The bus dies or drops us: forget it so that detach and free stay safe. */
static void on_unsubscribed(gpointer user_data) {
  PrivObserver *o = user_data;
  o->bus = NULL;
  o->subscription = 0;
}

gboolean priv_observer_attach(PrivObserver *o, SimBus *bus, GError **error) {
  g_return_val_if_fail(o != NULL, FALSE);
  if (!bus || o->bus) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                bus ? "the observer is already attached to a bus" : "no bus to attach to");
    return FALSE;
  }
  GError *err = NULL;
  guint id = sim_bus_subscribe_kinds(bus,
                                     SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) |
                                         SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DELIVERED) |
                                         SIM_BUS_KIND_BIT(SIM_BUS_ROUND),
                                     on_event, o, on_unsubscribed, &err);
  if (id == 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, "cannot subscribe: %s",
                err ? err->message : "unknown error");
    g_clear_error(&err);
    return FALSE;
  }
  o->bus = bus;
  o->subscription = id;
  return TRUE;
}

void priv_observer_detach(PrivObserver *o) {
  g_return_if_fail(o != NULL);
  if (o->bus)
    sim_bus_unsubscribe(o->bus, o->subscription); /* calls on_unsubscribed */
  o->bus = NULL;
  o->subscription = 0;
}

PrivKnowledge *priv_observer_knowledge(const PrivObserver *o, guint view, GError **error) {
  g_return_val_if_fail(o != NULL, NULL);
  if (view >= o->views->len) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "unknown view %u (the observer has %u)", view, o->views->len);
    return NULL;
  }
  if (o->foreign) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "a message payload belonged to another linvec space than the observer's: "
                "its provenance cannot be accounted");
    return NULL;
  }
  if (o->stream) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "a streaming observer keeps no knowledge: use priv_observer_stream_blocks");
    return NULL;
  }
  const View *v = g_ptr_array_index(o->views, view);
  PrivKnowledge *k = priv_knowledge_new(o->n_kept, error);
  if (!k)
    return NULL;
  PrivRowPool pool = priv_row_set_pool(&o->rows);
  const gsize *rs = pool.start;
  const guint32 *cols = pool.cols;
  const double *vals = pool.vals;
  for (guint i = 0; i < v->rows->len; i++) {
    guint id = g_array_index(v->rows, guint, i);
    gsize s = rs[id], ng = pool.ngrad[id], len = rs[id + 1] - s;
    if (!priv_knowledge_add_row(k, ng, cols + s, vals + s, len - ng, cols + s + ng, vals + s + ng,
                                error)) {
      priv_knowledge_free(k);
      return NULL;
    }
  }
  for (guint i = 0; i < v->n_members; i++) {
    guint kept = sim_lin_space_kept_index(o->space, v->members[i]);
    if (kept != G_MAXUINT)
      priv_knowledge_add_attacker(k, kept, NULL);
  }
  const SimNoiseRegistry *reg = sim_lin_space_noise(o->space);
  guint count = sim_noise_registry_count(reg);
  for (guint id = 0; id < count; id++)
    if (priv_trust_knows_noise(v->trust, v->is_member, o->n, reg, id))
      priv_knowledge_know_noise(k, id);
  return k;
}

gboolean priv_observer_set_streaming(PrivObserver *o, const PrivStreamOptions *opt,
                                     GError **error) {
  g_return_val_if_fail(o != NULL && opt != NULL, FALSE);
  if (o->stream || o->events > 0 || o->views->len == 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                o->stream   ? "the observer streams already"
                : o->events ? "streaming must be chosen before the first message"
                            : "add the views before choosing streaming");
    return FALSE;
  }
  PrivStream *s = priv_stream_new(o->space, opt, error);
  if (!s)
    return FALSE;
  for (guint i = 0; i < o->views->len; i++) {
    const View *v = g_ptr_array_index(o->views, i);
    const gboolean *kept = v->is_kept_member ? v->is_kept_member : v->is_member;
    if (!priv_stream_add_view_kept(s, v->trust, kept, v->is_member, error)) {
      priv_stream_free(s);
      return FALSE;
    }
  }
  o->stream = s;
  o->checkpoint_events = opt->checkpoint_events ? opt->checkpoint_events : 64ull * o->n + 4096;
  return TRUE;
}

const PrivStream *priv_observer_stream(const PrivObserver *o) {
  return o->stream;
}

PrivBlocks *priv_observer_stream_blocks(PrivObserver *o, guint view, GError **error) {
  g_return_val_if_fail(o != NULL, NULL);
  if (!o->stream) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "the observer is not streaming (priv_observer_set_streaming)");
    return NULL;
  }
  if (view >= o->views->len) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "unknown view %u (the observer has %u)", view, o->views->len);
    return NULL;
  }
  if (!o->finished) {
    checkpoint(o, FALSE);
    o->finished = TRUE;
  }
  if (o->error) {
    g_propagate_error(error, g_error_copy(o->error));
    return NULL;
  }
  return priv_stream_blocks(o->stream, view, error);
}
