/*
 * protocols/cmatrix_cache.c: a process-wide memo of computed noise
 * correlations. A sweep runs the same Mafalda optimization (same graph,
 * horizon and participation) for every noise level and seed; it is
 * deterministic, so it is done once and copied. Concurrent runs asking for
 * the same key wait for the first one instead of repeating it.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <string.h>

#include "protocols/internal.h"

/* Entries kept at most, whatever their size: old ones are dropped first. */
#define CACHE_MAX_BYTES ((gsize)256 << 20)

typedef struct {
  double *values; /* NULL while being computed */
  gsize n;
} Entry;

static GMutex lock;
static GCond ready;
static GHashTable *table; /* key -> Entry */
static GQueue order = G_QUEUE_INIT; /* keys of computed entries, oldest first */
static gsize bytes;

static void entry_free(gpointer p) {
  Entry *e = p;
  g_free(e->values);
  g_free(e);
}

/* Called with the lock held. */
static void evict_for(gsize need) {
  while (bytes + need > CACHE_MAX_BYTES && !g_queue_is_empty(&order)) {
    char *key = g_queue_pop_head(&order);
    Entry *e = g_hash_table_lookup(table, key);
    bytes -= e->n * sizeof(double);
    g_hash_table_remove(table, key);
  }
}

double *proto_cmatrix_cached(const char *key, gsize n, ProtoCmatrixCompute compute,
                             gpointer data, GError **error) {
  g_mutex_lock(&lock);
  if (table == NULL)
    table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, entry_free);
  Entry *e;
  while ((e = g_hash_table_lookup(table, key)) != NULL && e->values == NULL)
    g_cond_wait(&ready, &lock);
  if (e != NULL) {
    double *copy = g_memdup2(e->values, n * sizeof(double));
    g_mutex_unlock(&lock);
    return copy;
  }
  e = g_new0(Entry, 1);
  e->n = n;
  char *owned_key = g_strdup(key);
  g_hash_table_insert(table, owned_key, e);
  g_mutex_unlock(&lock);

  double *values = compute(data, error);

  g_mutex_lock(&lock);
  if (values == NULL || n * sizeof(double) > CACHE_MAX_BYTES) {
    /* Not kept: a waiting run computes (and reports) for itself. */
    g_hash_table_remove(table, key);
  } else {
    evict_for(n * sizeof(double));
    e->values = g_memdup2(values, n * sizeof(double));
    bytes += n * sizeof(double);
    g_queue_push_tail(&order, owned_key);
  }
  g_cond_broadcast(&ready);
  g_mutex_unlock(&lock);
  return values;
}
