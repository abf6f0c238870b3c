/*
 * tests/api/test_api_args.c: the C API's argument checks (what the Python
 * package passes through) driven with hostile values drawn at random from
 * fixed pools (seeded: the same calls every run): every call returns a
 * table, or NULL with status 1 or 2 and a message; none crashes, aborts or
 * runs on (a watchdog cancels a call after a fraction of a second, which
 * must then fail cleanly too). Bounded: a fixed number of calls.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include <glib.h>

#include "api/dpgossip.h"

#define CALLS 160
#define WATCHDOG_US 300000

static const int ints[] = {INT_MIN, -1000000, -2, -1, 0, 1, 2, 3, 4, 7, 1000, 100000, INT_MAX};
static const unsigned nodes[] = {0, 1, 2, 3, 34, 1000000000u, UINT_MAX};
static const char *const generators[] = {"florentine",
                                         "karate",
                                         "erdos:n=12,p=0.4,seed=1",
                                         "erdos:n=4000000000,p=0.5",
                                         "complete:n=100000000",
                                         "ring:n=-3",
                                         "nope",
                                         "",
                                         "florentine,n=3"};
static const char *const words[] = {NULL,       "",     "pndp",  "ldp,secldp", "dsgd",  "muffliato",
                                    "observer", "none", "x=1,y", "\xff\xfe",   "all",   "0",
                                    "0+5",      "99",   "-1",    "4294967296", "1e308", "nan"};
static const double reals[] = {0.0, -1.0, 1e-300, 1.0, 2.0, 1e308, INFINITY, -INFINITY, NAN};

static GRand *rng;
static guint outcomes[3]; /* a table, a run failure, a usage error */
static const unsigned edge_pairs[] = {0, 1, 1, 2, 2, 0, 5, 6, 0, 0, 4294967294u, 1};

#define PICK(a) (a)[g_rand_int_range(rng, 0, G_N_ELEMENTS(a))]

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean busy, quit;
  gint64 deadline;
} Watchdog;

/* Cancels a call that runs past its deadline (the flag is reset before
 * each call). */
static gpointer watchdog_main(gpointer data) {
  Watchdog *w = data;
  g_mutex_lock(&w->lock);
  while (!w->quit) {
    if (w->busy && g_get_monotonic_time() >= w->deadline) {
      dpg_cancel();
      w->busy = FALSE;
    }
    g_cond_wait_until(&w->cond, &w->lock, g_get_monotonic_time() + 10000);
  }
  g_mutex_unlock(&w->lock);
  return NULL;
}

static void arm(Watchdog *w, gboolean on) {
  g_mutex_lock(&w->lock);
  w->busy = on;
  w->deadline = g_get_monotonic_time() + WATCHDOG_US;
  g_mutex_unlock(&w->lock);
}

static void random_graph(DpgGraphSpec *g) {
  *g = (DpgGraphSpec){0};
  switch (g_rand_int_range(rng, 0, 4)) {
  case 0:
    g->path = g_rand_boolean(rng) ? "/nonexistent/graph.edges" : "/dev/null";
    break;
  case 1:
  case 2:
    g->generate = PICK(generators);
    break;
  default:
    g->edges = edge_pairs;
    g->n_edges = (size_t)g_rand_int_range(rng, 1, G_N_ELEMENTS(edge_pairs) / 2 + 1);
    g->n_nodes = PICK(nodes);
  }
  g->lcc = g_rand_boolean(rng);
  g->gossip = g_rand_int_range(rng, 0, 4) == 0 ? PICK(words) : NULL;
}

/* A failure is clean: status 1 or 2 and a message. */
static void check(void *result, DpgError *err, const char *what) {
  if (result != NULL) {
    g_assert_cmpint(err->status, ==, 0);
    g_assert_null(err->message);
    outcomes[0]++;
    return;
  }
  if (err->status != 1 && err->status != 2)
    g_error("%s: status %d (%s)", what, err->status, err->message ? err->message : "no message");
  g_assert_nonnull(err->message);
  g_assert_cmpuint(strlen(err->message), >, 0);
  outcomes[err->status]++;
  dpg_free(err->message);
}

static void call_once(guint i) {
  DpgError err = {0};
  const char *att[] = {PICK(words), NULL};
  switch (i % 4) {
  case 0: {
    DpgGraphSpec g;
    random_graph(&g);
    DpgTable *t = dpg_graph(&g, 0, &err);
    check(t, &err, "dpg_graph");
    dpg_table_free(t);
    break;
  }
  case 1: {
    DpgAccountOptions o;
    dpg_account_options_init(&o);
    random_graph(&o.graph);
    o.rounds = PICK(ints);
    o.participation_interval = g_rand_boolean(rng) ? 1 : PICK(ints);
    o.trust = g_rand_boolean(rng) ? "pndp" : PICK(words);
    o.attackers = g_rand_boolean(rng) ? att : NULL;
    o.protocol = g_rand_boolean(rng) ? NULL : PICK(words);
    o.sigma = PICK(reals);
    o.clip = g_rand_boolean(rng) ? 1.0 : PICK(reals);
    o.path = g_rand_boolean(rng) ? NULL : PICK(words);
    DpgTable *t = dpg_account(&o, &err);
    check(t, &err, "dpg_account");
    dpg_table_free(t);
    break;
  }
  case 2: {
    DpgMafaldaOptions o = {.band = -1};
    random_graph(&o.graph);
    o.epochs = PICK(ints);
    o.batches = PICK(ints);
    o.band = g_rand_boolean(rng) ? -1 : PICK(ints);
    o.workload = g_rand_boolean(rng) ? NULL : PICK(words);
    DpgTable *t = dpg_mafalda(&o, &err);
    check(t, &err, "dpg_mafalda");
    dpg_table_free(t);
    break;
  }
  default: {
    DpgTrainOptions o;
    dpg_train_options_init(&o);
    random_graph(&o.graph);
    o.dataset = g_rand_boolean(rng) ? "synthetic:linear,n=200,d=3,seed=1" : PICK(words);
    o.epochs = PICK(ints);
    o.batches = g_rand_boolean(rng) ? 1 : PICK(ints);
    o.sigma = PICK(reals);
    o.eval_every = PICK(ints);
    o.threads = g_rand_boolean(rng) ? 1 : PICK(ints);
    o.trust = g_rand_boolean(rng) ? "none" : PICK(words);
    DpgTable *means = NULL, *privacy = NULL;
    DpgTable *t = dpg_train(&o, &means, &privacy, &err);
    check(t, &err, "dpg_train");
    dpg_table_free(t);
    dpg_table_free(means);
    dpg_table_free(privacy);
  }
  }
}

static void test_random_arguments(void) {
  Watchdog w = {0};
  g_mutex_init(&w.lock);
  g_cond_init(&w.cond);
  GThread *dog = g_thread_new("watchdog", watchdog_main, &w);
  rng = g_rand_new_with_seed(28);
  for (guint i = 0; i < CALLS; i++) {
    dpg_cancel_reset();
    arm(&w, TRUE);
    call_once(i);
    arm(&w, FALSE);
  }
  dpg_cancel_reset();
  g_test_message("%u tables, %u run failures, %u usage errors", outcomes[0], outcomes[1],
                 outcomes[2]);
  /* The pools reach every outcome (a draw of only refusals tests little). */
  g_assert_cmpuint(outcomes[0], >, 0);
  g_assert_cmpuint(outcomes[1], >, 0);
  g_assert_cmpuint(outcomes[2], >, 0);
  g_mutex_lock(&w.lock);
  w.quit = TRUE;
  g_mutex_unlock(&w.lock);
  g_thread_join(dog);
  g_rand_free(rng);
  g_cond_clear(&w.cond);
  g_mutex_clear(&w.lock);
}

/* The sizes that used to abort inside igraph's allocation: refused first,
 * as a usage error saying how much memory it would take. */
static void test_huge_node_counts(void) {
  const unsigned e[] = {0, 1};
  DpgGraphSpec g = {.edges = e, .n_edges = 1, .n_nodes = 1000000000u};
  DpgError err = {0};
  g_assert_null(dpg_graph(&g, 0, &err));
  g_assert_cmpint(err.status, ==, 2);
  g_assert_nonnull(strstr(err.message, "a graph of 1000000000 nodes and 1 edges would need"));
  dpg_free(err.message);
  err = (DpgError){0};
  DpgAccountOptions o;
  dpg_account_options_init(&o);
  const char *att[] = {"0", NULL};
  o.graph = g;
  o.graph.n_nodes = UINT_MAX;
  o.rounds = 2;
  o.trust = "pndp";
  o.attackers = att;
  g_assert_null(dpg_account(&o, &err));
  g_assert_cmpint(err.status, ==, 2);
  g_assert_nonnull(strstr(err.message, "would need"));
  dpg_free(err.message);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/api/args/huge-node-counts", test_huge_node_counts);
  g_test_add_func("/api/args/random", test_random_arguments);
  return g_test_run();
}
