/*
 * tests/sim/test_queue.c: the event queue: (time, seq) order, ties in push
 * order, cancel (pending, fired, cancelled, never-issued ids), slot reuse, and a
 * long random mix of pushes, pops and cancels checked against a plain array
 * (linear minimum for each pop, qsort for the final drain), also with the
 * tie counter forced to wrap again and again.
 */
#include <stdlib.h>
#include <string.h>

/* White box: the internal header lets the tests force the 32-bit tie counter
 * to wrap and see that cancelled entries are purged from the heap. */
#include "sim/queue_internal.h"

static SimQueue *new_queue(void) {
  GError *err = NULL;
  SimQueue *q = sim_queue_new(sizeof(guint64), &err);
  g_assert_no_error(err);
  return q;
}

static SimEventId push(SimQueue *q, SimTime t, guint64 v) {
  GError *err = NULL;
  SimEventId id = sim_queue_push(q, t, &v, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(id, !=, SIM_EVENT_ID_NONE);
  return id;
}

static void test_order(void) {
  SimQueue *q = new_queue();
  const SimTime times[] = {50, 10, 40, 30, 20, 70, 60, 0, 90, 80};
  for (guint i = 0; i < G_N_ELEMENTS(times); i++)
    push(q, times[i], times[i] + 1000);
  g_assert_cmpuint(sim_queue_size(q), ==, 10);
  SimTime t;
  g_assert_true(sim_queue_peek(q, &t, NULL, NULL));
  g_assert_cmpuint(t, ==, 0);
  for (SimTime want = 0; want <= 90; want += 10) {
    guint64 seq, v;
    g_assert_true(sim_queue_pop(q, &t, &seq, NULL, &v));
    g_assert_cmpuint(t, ==, want);
    g_assert_cmpuint(v, ==, want + 1000);
  }
  g_assert_false(sim_queue_pop(q, &t, NULL, NULL, NULL));
  g_assert_false(sim_queue_peek(q, &t, NULL, NULL));
  g_assert_cmpuint(sim_queue_size(q), ==, 0);
  sim_queue_free(q);
}

/* 300 events on 3 distinct times, pushed interleaved: each time's events come
 * out in push order, and sequence numbers are the push indices. */
static void test_ties(void) {
  SimQueue *q = new_queue();
  for (guint64 i = 0; i < 300; i++)
    push(q, 1000 * (2 - i % 3), i);
  for (guint k = 0; k < 3; k++) {
    guint64 expect = 2 - k; /* time 0 holds i = 2, 5, 8, ... */
    for (guint j = 0; j < 100; j++, expect += 3) {
      SimTime t;
      guint64 seq, v;
      g_assert_true(sim_queue_pop(q, &t, &seq, NULL, &v));
      g_assert_cmpuint(t, ==, 1000 * k);
      g_assert_cmpuint(v, ==, expect);
      g_assert_cmpuint(seq, ==, expect);
    }
  }
  sim_queue_free(q);
}

static void test_cancel(void) {
  SimQueue *q = new_queue();
  SimEventId ids[8];
  for (guint i = 0; i < 8; i++)
    ids[i] = push(q, 10 * i, i);
  guint64 v = 0;
  g_assert_true(sim_queue_is_pending(q, ids[3]));
  g_assert_true(sim_queue_cancel(q, ids[3], &v));
  g_assert_cmpuint(v, ==, 3);
  g_assert_false(sim_queue_is_pending(q, ids[3]));
  g_assert_false(sim_queue_cancel(q, ids[3], NULL)); /* twice */
  g_assert_true(sim_queue_cancel(q, ids[7], NULL));  /* the last heap entry */
  g_assert_true(sim_queue_cancel(q, ids[0], NULL));  /* the root */
  g_assert_cmpuint(sim_queue_size(q), ==, 5);

  SimEventId fired;
  g_assert_true(sim_queue_pop(q, NULL, NULL, &fired, &v));
  g_assert_cmpuint(fired, ==, ids[1]);
  g_assert_cmpuint(v, ==, 1);
  g_assert_false(sim_queue_cancel(q, fired, NULL)); /* already popped */

  /* Ids that were never issued: 0, a slot never used, a wrong generation. */
  g_assert_false(sim_queue_cancel(q, SIM_EVENT_ID_NONE, NULL));
  g_assert_false(sim_queue_cancel(q, ((SimEventId)1 << 32) | 5000, NULL));
  g_assert_false(sim_queue_cancel(q, ids[2] + ((SimEventId)7 << 32), NULL));
  g_assert_false(sim_queue_cancel(q, G_MAXUINT64, NULL));
  g_assert_cmpuint(sim_queue_size(q), ==, 4);

  /* A freed slot is reused under a new generation: the old id of that slot
   * must not cancel the new event. */
  SimEventId fresh = push(q, 5, 99);
  g_assert_cmpuint(fresh & G_MAXUINT32, ==, fired & G_MAXUINT32);
  g_assert_cmpuint(fresh, !=, fired);
  g_assert_false(sim_queue_cancel(q, fired, NULL));
  g_assert_true(sim_queue_is_pending(q, fresh));

  const guint64 rest[] = {99, 2, 4, 5, 6};
  for (guint i = 0; i < G_N_ELEMENTS(rest); i++) {
    g_assert_true(sim_queue_pop(q, NULL, NULL, NULL, &v));
    g_assert_cmpuint(v, ==, rest[i]);
  }
  g_assert_cmpuint(sim_queue_size(q), ==, 0);
  sim_queue_free(q);
}

static void test_payload_sizes(void) {
  GError *err = NULL;
  g_assert_null(sim_queue_new(SIM_QUEUE_MAX_PAYLOAD + 1, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "1025"));
  g_clear_error(&err);

  SimQueue *q = sim_queue_new(0, &err);
  g_assert_no_error(err);
  SimEventId a = sim_queue_push(q, 2, NULL, &err);
  SimEventId b = sim_queue_push(q, 1, NULL, &err);
  g_assert_no_error(err);
  SimEventId got;
  g_assert_true(sim_queue_pop(q, NULL, NULL, &got, NULL));
  g_assert_cmpuint(got, ==, b);
  g_assert_true(sim_queue_cancel(q, a, NULL));
  sim_queue_free(q);

  q = new_queue();
  g_assert_cmpuint(sim_queue_push(q, 1, NULL, &err), ==, SIM_EVENT_ID_NONE);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  sim_queue_free(q);
}

/* ---- Random operations against a reference array ---- */

typedef struct {
  SimTime time;
  guint64 seq;
  guint64 value;
  SimEventId id;
} Ref;

static int ref_cmp(const void *pa, const void *pb) {
  const Ref *a = pa, *b = pb;
  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* @wrap_every: when > 0, every that many operations the tie counter is put
 * just below its wrap point, so renumbering happens with a live heap. */
static void random_vs_reference(guint32 seed, guint wrap_every) {
  GRand *rand = g_rand_new_with_seed(seed);
  SimQueue *q = new_queue();
  GArray *ref = g_array_new(FALSE, FALSE, sizeof(Ref));
  GArray *dead = g_array_new(FALSE, FALSE, sizeof(SimEventId));
  guint64 next_seq = 0, next_value = 0;
  guint n_push = 0, n_pop = 0, n_cancel = 0, n_dead_cancel = 0;
  SimTime now = 0;
  guint n_wraps = 0;
  for (guint op = 0; op < 60000; op++) {
    if (wrap_every && op % wrap_every == 0 && q->next_tie < G_MAXUINT32 - 5) {
      q->next_tie = G_MAXUINT32 - 5;
      n_wraps++;
    }
    double u = g_rand_double(rand);
    /* Push-heavy early, pop-heavy late, so the size sweeps up to ~3000 and back. */
    double p_push = op < 30000 ? 0.6 : 0.35;
    if (u < p_push) {
      /* Few distinct times so that ties are frequent. */
      Ref r = {now + (SimTime)g_rand_int_range(rand, 0, 50), next_seq++, next_value++, 0};
      r.id = push(q, r.time, r.value);
      g_array_append_val(ref, r);
      n_push++;
    } else if (u < p_push + 0.25 || ref->len == 0) {
      SimTime t;
      guint64 seq, v;
      SimEventId id;
      gboolean got = sim_queue_pop(q, &t, &seq, &id, &v);
      g_assert_cmpint(got, ==, ref->len > 0);
      if (!got)
        continue;
      guint best = 0;
      for (guint i = 1; i < ref->len; i++)
        if (ref_cmp(&g_array_index(ref, Ref, i), &g_array_index(ref, Ref, best)) < 0)
          best = i;
      Ref want = g_array_index(ref, Ref, best);
      g_assert_cmpuint(t, ==, want.time);
      g_assert_cmpuint(seq, ==, want.seq);
      g_assert_cmpuint(v, ==, want.value);
      g_assert_cmpuint(id, ==, want.id);
      g_array_remove_index_fast(ref, best);
      g_array_append_val(dead, id);
      now = t; /* later pushes are never in the past, as in a simulation */
      n_pop++;
    } else if (g_rand_boolean(rand) || dead->len == 0) {
      guint k = g_rand_int_range(rand, 0, ref->len);
      Ref r = g_array_index(ref, Ref, k);
      guint64 v = 0;
      g_assert_true(sim_queue_cancel(q, r.id, &v));
      g_assert_cmpuint(v, ==, r.value);
      g_array_remove_index_fast(ref, k);
      g_array_append_val(dead, r.id);
      n_cancel++;
    } else {
      SimEventId id = g_array_index(dead, SimEventId, g_rand_int_range(rand, 0, dead->len));
      g_assert_false(sim_queue_cancel(q, id, NULL));
      n_dead_cancel++;
    }
    g_assert_cmpuint(sim_queue_size(q), ==, ref->len);
  }
  /* Drain: the whole remaining order must equal the sorted reference. */
  qsort(ref->data, ref->len, sizeof(Ref), ref_cmp);
  for (guint i = 0; i < ref->len; i++) {
    const Ref *r = &g_array_index(ref, Ref, i);
    SimTime t;
    guint64 v;
    g_assert_true(sim_queue_pop(q, &t, NULL, NULL, &v));
    g_assert_cmpuint(t, ==, r->time);
    g_assert_cmpuint(v, ==, r->value);
  }
  g_assert_cmpuint(sim_queue_size(q), ==, 0);
  g_assert_cmpuint(n_push, >, 20000);
  g_assert_cmpuint(n_pop, >, 12000);
  g_assert_cmpuint(n_cancel, >, 3000);
  g_assert_cmpuint(n_dead_cancel, >, 3000);
  g_test_message("%u pushes, %u pops, %u cancels, %u cancels of dead ids, %u drained, %u wraps",
                 n_push, n_pop, n_cancel, n_dead_cancel, ref->len, n_wraps);
  if (wrap_every)
    g_assert_cmpuint(n_wraps, >=, 60000 / wrap_every - 1);
  g_array_free(ref, TRUE);
  g_array_free(dead, TRUE);
  sim_queue_free(q);
  g_rand_free(rand);
}

static void test_random_vs_reference(void) {
  random_vs_reference(20240601, 0);
}

static void test_tie_wrap(void) {
  random_vs_reference(77, 997);
}

/* Cancelling most events rebuilds the heap without them; order is kept. */
static void test_purge(void) {
  SimQueue *q = new_queue();
  SimEventId ids[1000];
  for (guint i = 0; i < 1000; i++)
    ids[i] = push(q, (i * 7919) % 1000, i); /* times are a permutation of 0..999 */
  for (guint i = 0; i < 1000; i++)
    if (i % 10 != 0)
      g_assert_true(sim_queue_cancel(q, ids[i], NULL));
  g_assert_cmpuint(sim_queue_size(q), ==, 100);
  g_assert_cmpuint(q->size, <=, 2 * 100 + 1); /* cancelled entries went */
  SimTime prev = 0;
  for (guint k = 0; k < 100; k++) {
    SimTime t;
    guint64 v;
    g_assert_true(sim_queue_pop(q, &t, NULL, NULL, &v));
    g_assert_cmpuint(v % 10, ==, 0);
    g_assert_cmpuint(t, ==, (v * 7919) % 1000);
    g_assert_cmpuint(t, >=, prev);
    prev = t;
  }
  g_assert_false(sim_queue_pop(q, NULL, NULL, NULL, NULL));
  g_assert_cmpuint(q->size, ==, 0);
  sim_queue_free(q);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sim/queue/order", test_order);
  g_test_add_func("/sim/queue/ties", test_ties);
  g_test_add_func("/sim/queue/cancel", test_cancel);
  g_test_add_func("/sim/queue/payload-sizes", test_payload_sizes);
  g_test_add_func("/sim/queue/random-vs-reference", test_random_vs_reference);
  g_test_add_func("/sim/queue/tie-wrap", test_tie_wrap);
  g_test_add_func("/sim/queue/purge", test_purge);
  return g_test_run();
}
