/*
 * protocols/runtime_inbox.c: a node's inbox, the messages it received keyed
 * by (round, sender) until a gather uses them or they become useless.
 *
 * Open addressing with linear probing in one array of (key, message) pairs:
 * a delivery touches one cache line where a GHashTable touches three arrays,
 * and the table never shrinks, so the inbox that fills and empties every
 * round (a node's in-degree of messages) allocates once per run instead of
 * growing and shrinking each round; on a 100,000-node graph that was about a
 * fifth of a D-SGD run.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <string.h>

#include "protocols/internal.h"

#define INBOX_MIN_CAP 16u

static guint slot_of(const ProtoInbox *in, guint64 key) {
  guint64 x = key ^ (key >> 31);
  x *= G_GUINT64_CONSTANT(0x9E3779B97F4A7C15);
  return (guint)(x >> 32) & (in->cap - 1);
}

/* Puts a key known to be absent into a table with room. */
static void place(ProtoInbox *in, guint64 key, SimMessage *msg) {
  guint i = slot_of(in, key);
  while (in->slots[i].msg != NULL)
    i = (i + 1) & (in->cap - 1);
  in->slots[i] = (ProtoInboxSlot){key, msg};
  in->len++;
}

static void grow(ProtoInbox *in) {
  ProtoInboxSlot *old = in->slots;
  guint old_cap = in->cap;
  in->cap = old_cap ? 2 * old_cap : INBOX_MIN_CAP;
  in->slots = g_new0(ProtoInboxSlot, in->cap);
  in->len = 0;
  for (guint i = 0; i < old_cap; i++)
    if (old[i].msg != NULL)
      place(in, old[i].key, old[i].msg);
  g_free(old);
}

SimMessage *proto_inbox_lookup(const ProtoInbox *in, guint64 key) {
  if (in->len == 0)
    return NULL;
  for (guint i = slot_of(in, key); in->slots[i].msg != NULL; i = (i + 1) & (in->cap - 1))
    if (in->slots[i].key == key)
      return in->slots[i].msg;
  return NULL;
}

void proto_inbox_insert(ProtoInbox *in, guint64 key, SimMessage *msg) {
  for (guint i = in->len ? slot_of(in, key) : 0; in->len > 0 && in->slots[i].msg != NULL;
       i = (i + 1) & (in->cap - 1))
    if (in->slots[i].key == key) { /* a duplicate replaces the message */
      sim_message_unref(in->slots[i].msg);
      in->slots[i].msg = msg;
      return;
    }
  if (4 * (in->len + 1) > 3 * in->cap)
    grow(in);
  place(in, key, msg);
}

void proto_inbox_remove_if(ProtoInbox *in, ProtoInboxPredicate useless, gpointer data) {
  ProtoInboxSlot kept_stack[64], *kept = in->len <= 64 ? kept_stack : g_new(ProtoInboxSlot, in->len);
  guint n_kept = 0, n = in->len;
  for (guint i = 0; i < in->cap && n > 0; i++) {
    ProtoInboxSlot *s = &in->slots[i];
    if (s->msg == NULL)
      continue;
    n--;
    if (useless(s->key, data))
      sim_message_unref(s->msg);
    else
      kept[n_kept++] = *s;
  }
  /* Deleting in place would break the probe chains: put the rest back. */
  if (n_kept < in->len) {
    memset(in->slots, 0, in->cap * sizeof *in->slots);
    in->len = 0;
    for (guint i = 0; i < n_kept; i++)
      place(in, kept[i].key, kept[i].msg);
  }
  if (kept != kept_stack)
    g_free(kept);
}

void proto_inbox_clear(ProtoInbox *in) {
  for (guint i = 0; i < in->cap; i++)
    if (in->slots[i].msg != NULL)
      sim_message_unref(in->slots[i].msg);
  g_free(in->slots);
  *in = (ProtoInbox){0};
}
