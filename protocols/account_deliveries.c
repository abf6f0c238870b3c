/*
 * protocols/account_deliveries.c: the delivery record of an asynchronous
 * run, for the structured path (docs/accounting-at-scale.md, "Asynchronous
 * runs"). The run is simulated once with models that carry numbers only
 * (SIM_LIN_NONE: no provenance, so O(messages) time and O(n + messages)
 * memory, whatever n): the same engine, the same seed and so the same
 * latency and loss draws, the same deadlines as the accounted run. Recorded:
 *   - every gather's inputs and the weights the runtime gave them (its one
 *     renormalisation, complete_gather in runtime_exchange.c, handed to
 *     ProtoGatherFunc before the protocol averages with them): row u of the
 *     applied W_r, bit for bit;
 *   - every gossip message sent and every one lost (bus events SENT and
 *     DROPPED): the messages each node received, late ones included (the
 *     engine delivers every message not lost, which is what a PNDP attacker
 *     sees).
 * Nothing here depends on the gradients or the noise: the delivery record is
 * public randomness of the run (issue 41).
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <stdlib.h>
#include <string.h>

#include "protocols/internal.h"

/* One applied weight: W_r[u, v] = w, on v's message of round r - delay
 * (stale mode; 0 otherwise). */
typedef struct {
  guint u, v;
  double w;
  guint delay;
} Entry;

/* Stale mode: a message used after its round, held in a slot of the
 * delay-augmented state from round `round` + 1 through `last`. */
typedef struct {
  guint v, round, last, slot;
} Delayed;

struct ProtoDeliveries {
  guint n, R;
  GArray **applied;       /* R arrays of Entry, while recording */
  GArray **sent;          /* R arrays of guint64 (to << 32 | from) */
  GArray **dropped;       /* idem, the lost ones */
  TopoGossip **w;         /* R */
  PrivRoundMessages *msg; /* R */
  guint **ptr, **from;
  guint8 **delivered;
  GError *error; /* the first inconsistency met while recording */
  GHashTable *delayed_of; /* (round << 32 | v) -> 1 + index into delayed */
  GArray *delayed;        /* Delayed */
  guint n_slots;
  guint64 late_discarded, partial_gathers, dropped_total;
  guint64 ties; /* the timing pass's, outside the recorded rows */
  /* A ball's record (proto_deliveries_record_ball): node -> kept index
   * (G_MAXUINT: not kept), and which kept nodes' gathers are recorded;
   * NULL: every node, every gather. */
  const guint *keep;
  const guint8 *rows;
};

#define NOT_KEPT G_MAXUINT

/* @v's index in the record, NOT_KEPT when the record leaves it out. */
static guint kept(const ProtoDeliveries *d, guint v) {
  return d->keep ? d->keep[v] : v;
}

/* Whether the gathers of kept node @k are recorded. */
static gboolean row_kept(const ProtoDeliveries *d, guint k) {
  return k != NOT_KEPT && (d->rows == NULL || d->rows[k]);
}

/* The hash of a delayed message's key (round << 32 | v): g_direct_hash
 * keeps the low 32 bits alone, so a node's messages of every round shared
 * one hash and each lookup walked them (O(R) a lookup). A 64-bit mix
 * (splitmix64's finalizer) spreads them. O(1). */
static guint delayed_hash(gconstpointer key) {
  guint64 x = (guint64)GPOINTER_TO_SIZE(key);
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT(0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT(0x94d049bb133111eb);
  return (guint)(x ^ (x >> 31));
}

void proto_deliveries_feed_gather(ProtoDeliveries *d, guint u, guint r, guint n_inputs,
                                  const ProtoInput *inputs) {
  if (d->error != NULL)
    return;
  if (r >= d->R) {
    g_set_error(&d->error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "node %u gathered round %u of a run of %u gossip rounds", u, r, d->R);
    return;
  }
  guint ku = kept(d, u);
  if (!row_kept(d, ku))
    return;
  for (guint i = 0; i < n_inputs; i++) {
    if (inputs[i].round > r || (inputs[i].round < r && inputs[i].from == u)) {
      g_set_error(&d->error, PROTO_ERROR, PROTO_ERROR_FAILED,
                  "node %u's round-%u gather used a round-%u message of node %u", u, r,
                  inputs[i].round, inputs[i].from);
      return;
    }
    guint kv = kept(d, inputs[i].from);
    if (kv == NOT_KEPT) {
      /* A ball's rows read the ball and its shell only: the graph's hops
       * and the run's links disagree. */
      g_set_error(&d->error, PROTO_ERROR, PROTO_ERROR_FAILED,
                  "node %u's round-%u gather used node %u, which the record leaves out", u, r,
                  inputs[i].from);
      return;
    }
    Entry e = {ku, kv, inputs[i].weight, r - inputs[i].round};
    if (e.delay > 0) {
      /* Stale mode: v's round-(r - delay) message is read at round r, so
       * the state carries it until its last use. */
      gpointer key = GSIZE_TO_POINTER(((gsize)inputs[i].round << 32) | e.v);
      guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(d->delayed_of, key));
      if (idx == 0) {
        Delayed x = {e.v, inputs[i].round, r, 0};
        g_array_append_val(d->delayed, x);
        idx = d->delayed->len;
        g_hash_table_insert(d->delayed_of, key, GUINT_TO_POINTER(idx));
      }
      Delayed *x = &g_array_index(d->delayed, Delayed, idx - 1);
      x->last = MAX(x->last, r);
    }
    g_array_append_val(d->applied[r], e);
  }
}

static void on_gather(guint u, guint r, guint n_inputs, const ProtoInput *inputs, gpointer data) {
  proto_deliveries_feed_gather(data, u, r, n_inputs, inputs);
}

/* A ball's record keeps the messages of its rows' links: the key of the
 * message @from -> @to, or FALSE when it is left out. */
static gboolean message_key(const ProtoDeliveries *d, guint from, guint to, guint r, guint64 *key) {
  if (r >= d->R)
    return FALSE;
  guint kt = kept(d, to), kf = kept(d, from);
  if (kt == NOT_KEPT || kf == NOT_KEPT || !(row_kept(d, kt) || row_kept(d, kf)))
    return FALSE;
  *key = ((guint64)kt << 32) | kf;
  return TRUE;
}

void proto_deliveries_feed_message(ProtoDeliveries *d, guint from, guint to, guint r,
                                   gboolean lost) {
  guint64 key;
  if (!message_key(d, from, to, r, &key))
    return;
  g_array_append_val(d->sent[r], key);
  if (lost)
    g_array_append_val(d->dropped[r], key);
}

static void on_bus(const SimBusEvent *ev, gpointer data) {
  ProtoDeliveries *d = data;
  guint64 key;
  if (ev->message == NULL || sim_message_tag(ev->message) != 0 ||
      !message_key(d, ev->from, ev->to, ev->round, &key))
    return;
  if (ev->kind == SIM_BUS_MESSAGE_SENT)
    g_array_append_val(d->sent[ev->round], key);
  else if (ev->kind == SIM_BUS_MESSAGE_DROPPED)
    g_array_append_val(d->dropped[ev->round], key);
}

static int cmp_entry(const void *a, const void *b) {
  const Entry *x = a, *y = b;
  if (x->u != y->u)
    return x->u < y->u ? -1 : 1;
  return x->v < y->v ? -1 : x->v > y->v;
}

static int cmp_delayed(const void *a, const void *b) {
  const Delayed *x = a, *y = b;
  if (x->round != y->round)
    return x->round < y->round ? -1 : 1;
  return x->v < y->v ? -1 : x->v > y->v;
}

static int cmp_last(const void *a, const void *b, gpointer data) {
  const Delayed *x = (const Delayed *)data + *(const guint *)a,
                *y = (const Delayed *)data + *(const guint *)b;
  if (x->last != y->last)
    return x->last < y->last ? -1 : 1;
  return cmp_delayed(x, y);
}

/* Stale mode: a slot of the state for every delayed message, held from the
 * round after its own through its last use; a slot is reused by a message
 * of round t once its previous one was last read at round t or before (W_t
 * reads the state of round t and writes that of round t + 1). In a fixed
 * order (round, sender), so the slots depend on the record only. */
static void assign_slots(ProtoDeliveries *d) {
  guint m = d->delayed->len;
  if (m == 0)
    return;
  Delayed *x = (Delayed *)d->delayed->data;
  qsort(x, m, sizeof(Delayed), cmp_delayed);
  g_hash_table_remove_all(d->delayed_of);
  guint *by_last = g_new(guint, m), *free_slots = g_new(guint, m);
  for (guint i = 0; i < m; i++) {
    by_last[i] = i;
    g_hash_table_insert(d->delayed_of, GSIZE_TO_POINTER(((gsize)x[i].round << 32) | x[i].v),
                        GUINT_TO_POINTER(i + 1));
  }
  g_qsort_with_data(by_last, (gint)m, sizeof(guint), cmp_last, x);
  guint n_free = 0, ended = 0;
  for (guint i = 0; i < m; i++) {
    guint t = x[i].round;
    while (ended < m && x[by_last[ended]].last <= t)
      free_slots[n_free++] = x[by_last[ended++]].slot;
    x[i].slot = n_free > 0 ? free_slots[--n_free] : d->n_slots++;
  }
  g_free(by_last);
  g_free(free_slots);
}

static int cmp_u64(const void *a, const void *b) {
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* Round @r's applied W_r and messages from what was recorded. In stale
 * mode W_r acts on the delay-augmented state (the n nodes, then the slots):
 * a delayed input is read from its slot, and a slot row copies the node
 * whose round-r message it starts holding, or keeps its content. */
static gboolean finish_round(ProtoDeliveries *d, guint r, guint *first_delayed, GError **error) {
  guint n = d->n, N = n + d->n_slots;
  GArray *a = d->applied[r];
  /* A ball's record: the rows it does not record keep their own state
   * (any row would do; the accounting gives those nodes to the attackers). */
  for (guint u = 0; d->rows != NULL && u < n; u++)
    if (!d->rows[u]) {
      Entry e = {u, u, 1.0, 0};
      g_array_append_val(a, e);
    }
  const Delayed *dl = (const Delayed *)d->delayed->data;
  for (guint i = 0; i < a->len; i++) {
    Entry *e = &g_array_index(a, Entry, i);
    if (e->delay > 0) {
      gpointer key = GSIZE_TO_POINTER(((gsize)(r - e->delay) << 32) | e->v);
      e->v = n + dl[GPOINTER_TO_UINT(g_hash_table_lookup(d->delayed_of, key)) - 1].slot;
    }
  }
  if (a->len > 1)
    qsort(a->data, a->len, sizeof(Entry), cmp_entry);
  gsize nnz = (gsize)a->len + d->n_slots;
  guint *ptr = g_new0(guint, (gsize)N + 1), *cols = g_new(guint, MAX(nnz, 1));
  double *vals = g_new(double, MAX(nnz, 1));
  for (guint i = 0; i < a->len; i++) {
    const Entry *e = &g_array_index(a, Entry, i);
    if (i > 0 && cmp_entry(e, &g_array_index(a, Entry, i - 1)) == 0) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                  "node %u gathered round %u twice (input from %u)", e->u, r, e->v);
      break;
    }
    ptr[e->u + 1]++;
    cols[i] = e->v;
    vals[i] = e->w;
  }
  for (guint u = 0; u < n; u++) {
    if (ptr[u + 1] == 0 && (error == NULL || *error == NULL))
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "node %u never gathered round %u", u, r);
    ptr[u + 1] += ptr[u];
  }
  if (d->n_slots > 0) {
    /* Slot rows: the identity, but e_v for the slots whose message of
     * round r (of node v) starts here. */
    guint m = d->delayed->len, *src = g_new(guint, d->n_slots);
    for (guint j = 0; j < d->n_slots; j++)
      src[j] = n + j;
    for (; *first_delayed < m && dl[*first_delayed].round == r; (*first_delayed)++)
      src[dl[*first_delayed].slot] = dl[*first_delayed].v;
    for (guint j = 0; j < d->n_slots; j++) {
      cols[ptr[n + j]] = src[j];
      vals[ptr[n + j]] = 1.0;
      ptr[n + j + 1] = ptr[n + j] + 1;
    }
    g_free(src);
  }
  gboolean ok = error == NULL || *error == NULL;
  if (ok)
    ok = (d->w[r] = topo_gossip_new_csr(N, ptr, cols, vals, error)) != NULL;
  g_free(ptr);
  g_free(cols);
  g_free(vals);
  g_array_set_size(a, 0);
  if (!ok)
    return FALSE;

  GArray *s = d->sent[r], *x = d->dropped[r];
  if (s->len > 1) /* an empty GArray's data may be NULL, which qsort must not see */
    qsort(s->data, s->len, sizeof(guint64), cmp_u64);
  if (x->len > 1)
    qsort(x->data, x->len, sizeof(guint64), cmp_u64);
  d->ptr[r] = g_new0(guint, (gsize)n + 1);
  d->from[r] = g_new(guint, MAX(s->len, 1));
  d->delivered[r] = g_new(guint8, MAX(s->len, 1));
  guint k = 0, j = 0;
  for (guint i = 0; i < s->len; i++) {
    guint64 key = g_array_index(s, guint64, i);
    if (k > 0 && key == g_array_index(s, guint64, i - 1)) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                  "node %u sent node %u two round-%u messages", (guint)(key & 0xffffffffu),
                  (guint)(key >> 32), r);
      return FALSE;
    }
    while (j < x->len && g_array_index(x, guint64, j) < key)
      j++;
    gboolean lost = j < x->len && g_array_index(x, guint64, j) == key;
    d->dropped_total += lost;
    d->ptr[r][(key >> 32) + 1]++;
    d->from[r][k] = (guint)(key & 0xffffffffu);
    d->delivered[r][k] = !lost;
    k++;
  }
  for (guint u = 0; u < n; u++)
    d->ptr[r][u + 1] += d->ptr[r][u];
  d->msg[r] = (PrivRoundMessages){d->ptr[r], d->from[r], d->delivered[r]};
  g_array_set_size(s, 0);
  g_array_set_size(x, 0);
  return TRUE;
}

/*
 * The record's memory, estimated before the run (the static overlay's 2.3
 * GB were allocated unannounced): per round, every message (each node to
 * each neighbour of the graph; for a schedule only the gathers' own inputs,
 * a lower bound) kept while recording as an applied entry and a sent key,
 * then as a CSR entry of W_r (column and weight) and a received message
 * (sender and delivery flag), plus W_r's and the messages' row offsets;
 * the recording arrays keep their capacity until the end.
 */
static gsize record_bytes(const ProtoRunConfig *cfg, guint R, gsize *messages) {
  gsize n = cfg->graph ? topo_graph_n_nodes(cfg->graph) : topo_schedule_n(cfg->schedule);
  gsize sent = cfg->graph ? spec_size_mul(2, topo_graph_n_edges(cfg->graph)) : 0;
  gsize entries = spec_size_add(sent, n);
  gsize round = spec_size_add(
      spec_size_add(spec_size_mul(entries, sizeof(Entry) + sizeof(guint) + sizeof(double)),
                    spec_size_mul(sent, sizeof(guint64) + sizeof(guint) + sizeof(guint8))),
      spec_size_mul(n + 1, 2 * sizeof(guint)));
  *messages = spec_size_mul(sent, R);
  return spec_size_mul(round, R);
}

/* The recording simulation's progress, as rounds of @R. */
typedef struct {
  ProtoDeliveriesProgressFunc func;
  gpointer data;
  guint R;
} RecordProgress;

static void on_record_step(double fraction, gpointer data) {
  const RecordProgress *p = data;
  p->func((guint)MIN(fraction * p->R, (double)p->R), p->R, p->data);
}

ProtoDeliveries *proto_deliveries_feed_new(guint R, const guint *keep, guint n_kept,
                                           const guint8 *rows) {
  ProtoDeliveries *d = g_new0(ProtoDeliveries, 1);
  d->n = n_kept;
  d->keep = keep;
  d->rows = rows;
  d->R = R;
  d->applied = g_new(GArray *, R);
  d->sent = g_new(GArray *, R);
  d->dropped = g_new(GArray *, R);
  for (guint r = 0; r < R; r++) {
    d->applied[r] = g_array_new(FALSE, FALSE, sizeof(Entry));
    d->sent[r] = g_array_new(FALSE, FALSE, sizeof(guint64));
    d->dropped[r] = g_array_new(FALSE, FALSE, sizeof(guint64));
  }
  d->delayed_of = g_hash_table_new(delayed_hash, g_direct_equal);
  d->delayed = g_array_new(FALSE, FALSE, sizeof(Delayed));
  d->w = g_new0(TopoGossip *, R);
  d->msg = g_new0(PrivRoundMessages, R);
  d->ptr = g_new0(guint *, R);
  d->from = g_new0(guint *, R);
  d->delivered = g_new0(guint8 *, R);
  return d;
}

void proto_deliveries_feed_ties(ProtoDeliveries *d, guint64 ties) {
  d->ties = ties;
}

guint64 proto_deliveries_ties(const ProtoDeliveries *d) {
  return d->ties;
}

ProtoDeliveries *proto_deliveries_feed_end(ProtoDeliveries *d, guint64 late, guint64 partial,
                                           GError **error) {
  d->late_discarded = late;
  d->partial_gathers = partial;
  gboolean ok = TRUE;
  if (d->error != NULL) {
    g_propagate_error(error, d->error);
    d->error = NULL;
    ok = FALSE;
  }
  if (ok)
    assign_slots(d);
  guint first_delayed = 0;
  for (guint r = 0; ok && r < d->R; r++)
    ok = finish_round(d, r, &first_delayed, error);
  d->keep = NULL; /* the caller's */
  d->rows = NULL;
  if (!ok) {
    proto_deliveries_free(d);
    return NULL;
  }
  return d;
}

static ProtoDeliveries *record(const ProtoRunConfig *cfg, guint R, const guint *keep, guint n_kept,
                               const guint8 *rows, ProtoProgressFunc progress,
                               gpointer progress_data, GError **error) {
  ProtoRunConfig rc = *cfg;
  rc.storage = SIM_LIN_NONE; /* numbers only: the timing is the run's */
  rc.rebased = FALSE;
  ProtoRun *run = proto_run_new(&rc, error);
  if (run == NULL)
    return NULL;
  ProtoDeliveries *d = proto_deliveries_feed_new(
      R, keep, keep ? n_kept : proto_context_n_nodes(proto_run_context(run)), rows);
  if (progress)
    proto_run_set_progress(run, progress, progress_data);
  proto_run_set_gather_func(run, on_gather, d);
  gboolean ok = sim_bus_subscribe_kinds(sim_engine_bus(proto_run_engine(run)),
                                        SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) |
                                            SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED),
                                        on_bus, d, NULL, error) > 0 &&
                proto_run_run(run, error);
  ProtoRunStats st = {0};
  if (ok)
    proto_run_get_stats(run, &st);
  proto_run_free(run);
  if (!ok) {
    proto_deliveries_free(d);
    return NULL;
  }
  return proto_deliveries_feed_end(d, st.late_discarded, st.partial_gathers, error);
}

ProtoDeliveries *proto_deliveries_record(const ProtoRunConfig *cfg, guint R,
                                         ProtoDeliveriesProgressFunc progress,
                                         gpointer progress_data, GError **error) {
  g_return_val_if_fail(cfg != NULL && R > 0 && (cfg->graph != NULL || cfg->schedule != NULL), NULL);
  gsize messages = 0, bytes = record_bytes(cfg, R, &messages);
  char *what = g_strdup_printf(
      "the delivery record of %u gossip rounds (%" G_GSIZE_FORMAT " messages)", R, messages);
  gboolean fits = spec_check_memory(bytes, what, "use fewer steps (-T) or a smaller graph",
                                    PRIV_ERROR, PRIV_ERROR_MEMORY, error);
  g_free(what);
  if (!fits)
    return NULL;
  RecordProgress rp = {progress, progress_data, R};
  return record(cfg, R, NULL, 0, NULL, progress ? on_record_step : NULL, &rp, error);
}

ProtoDeliveries *proto_deliveries_record_ball(const ProtoRunConfig *cfg, guint R, const guint *keep,
                                              guint n_kept, const guint8 *rows,
                                              ProtoProgressFunc progress, gpointer progress_data,
                                              GError **error) {
  g_return_val_if_fail(cfg != NULL && R > 0 && keep != NULL && rows != NULL && n_kept > 0, NULL);
  return record(cfg, R, keep, n_kept, rows, progress, progress_data, error);
}

void proto_deliveries_free(ProtoDeliveries *d) {
  if (d == NULL)
    return;
  for (guint r = 0; r < d->R; r++) {
    g_array_unref(d->applied[r]);
    g_array_unref(d->sent[r]);
    g_array_unref(d->dropped[r]);
    topo_gossip_free(d->w[r]);
    g_free(d->ptr[r]);
    g_free(d->from[r]);
    g_free(d->delivered[r]);
  }
  g_free(d->applied);
  g_free(d->sent);
  g_free(d->dropped);
  g_free(d->w);
  g_free(d->msg);
  g_free(d->ptr);
  g_free(d->from);
  g_free(d->delivered);
  g_clear_error(&d->error);
  if (d->delayed_of)
    g_hash_table_destroy(d->delayed_of);
  if (d->delayed)
    g_array_unref(d->delayed);
  g_free(d);
}

guint proto_deliveries_rounds(const ProtoDeliveries *d) {
  return d->R;
}

guint proto_deliveries_delayed(const ProtoDeliveries *d) {
  return d->n_slots;
}

const TopoGossip *const *proto_deliveries_gossip(const ProtoDeliveries *d) {
  return (const TopoGossip *const *)d->w;
}

const PrivRoundMessages *proto_deliveries_messages(const ProtoDeliveries *d) {
  return d->msg;
}

void proto_deliveries_counts(const ProtoDeliveries *d, guint64 *late, guint64 *partial,
                             guint64 *lost) {
  if (late)
    *late = d->late_discarded;
  if (partial)
    *partial = d->partial_gathers;
  if (lost)
    *lost = d->dropped_total;
}
