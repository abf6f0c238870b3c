/*
 * tests/protocols/test_inbox.c: a node's inbox against a GHashTable fed the
 * same operations: every key finds the message the table holds, through
 * growth, replacement of a key and removals that reorder the probe chains;
 * each stored message holds exactly one reference, and clearing releases
 * them all.
 */
#include "proto_test.h"

#include "protocols/internal.h"

static guint64 key(guint round, guint from) {
  return ((guint64)round << 32) | from;
}

static gboolean before_round(guint64 k, gpointer data) {
  return (guint)(k >> 32) < GPOINTER_TO_UINT(data);
}

static gboolean odd_sender(guint64 k, gpointer data) {
  (void)data;
  return (k & 1) == 1;
}

/* Every key of @ref maps to its message in @in, and @in holds nothing else. */
static void assert_same(const ProtoInbox *in, GHashTable *ref) {
  g_assert_cmpuint(in->len, ==, g_hash_table_size(ref));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, ref);
  while (g_hash_table_iter_next(&it, &k, &v))
    g_assert_true(proto_inbox_lookup(in, *(guint64 *)k) == v);
}

static gboolean ref_remove(gpointer k, gpointer v, gpointer data) {
  (void)v;
  ProtoInboxPredicate *pred = ((gpointer *)data)[0];
  return (*pred)(*(guint64 *)k, ((gpointer *)data)[1]);
}

static void remove_both(ProtoInbox *in, GHashTable *ref, ProtoInboxPredicate pred, gpointer arg) {
  proto_inbox_remove_if(in, pred, arg);
  gpointer data[2] = {&pred, arg};
  g_hash_table_foreach_remove(ref, ref_remove, data);
}

static void test_against_hash_table(void) {
  ProtoInbox in = {0};
  GHashTable *ref = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  GPtrArray *all = g_ptr_array_new();
  g_assert_null(proto_inbox_lookup(&in, key(0, 0)));
  for (guint r = 0; r < 6; r++) {
    for (guint v = 0; v < 40; v++) { /* grows past 16 and 32 slots */
      SimMessage *m = sim_message_new(v, r, 0, NULL, 0, NULL);
      g_ptr_array_add(all, sim_message_ref(m));
      proto_inbox_insert(&in, key(r, v * 7919u), m);
      guint64 *k = g_new(guint64, 1);
      *k = key(r, v * 7919u);
      g_hash_table_insert(ref, k, m);
    }
    /* A second message under a key replaces the first and releases it. */
    SimMessage *old = proto_inbox_lookup(&in, key(r, 0));
    SimMessage *m = sim_message_new(0, r, 1, NULL, 0, NULL);
    g_ptr_array_add(all, sim_message_ref(m));
    proto_inbox_insert(&in, key(r, 0), m);
    guint64 k0 = key(r, 0);
    g_hash_table_replace(ref, g_memdup2(&k0, sizeof k0), m);
    g_assert_cmpuint(sim_message_ref_count(old), ==, 1); /* ours only */
    assert_same(&in, ref);
    if (r % 2 == 1)
      remove_both(&in, ref, before_round, GUINT_TO_POINTER(r));
    assert_same(&in, ref);
  }
  remove_both(&in, ref, odd_sender, NULL);
  assert_same(&in, ref);
  g_assert_null(proto_inbox_lookup(&in, key(99, 1)));
  /* Stored messages hold one reference each, released messages none. */
  for (guint i = 0; i < all->len; i++) {
    SimMessage *m = all->pdata[i];
    gboolean stored = FALSE;
    for (guint s = 0; s < in.cap; s++)
      stored |= in.slots[s].msg == m;
    g_assert_cmpuint(sim_message_ref_count(m), ==, stored ? 2 : 1);
  }
  proto_inbox_clear(&in);
  g_assert_cmpuint(in.cap, ==, 0);
  for (guint i = 0; i < all->len; i++) {
    g_assert_cmpuint(sim_message_ref_count(all->pdata[i]), ==, 1);
    sim_message_unref(all->pdata[i]);
  }
  g_ptr_array_unref(all);
  g_hash_table_destroy(ref);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/inbox/against_hash_table", test_against_hash_table);
  return g_test_run();
}
