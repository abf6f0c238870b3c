/*
 * api/enter.c: what every call does first, as the command line's main does.
 */
#include <cblas.h>

#include "api/internal.h"
#include "sim/blas.h"

/* The learning layer's warnings of the call running on this thread. */
static __thread GString *collected;

void dpg_warnings_collect(GString *into) {
  collected = into;
}

/* A dpg_run's warnings, from whichever thread of its sweep says them (the
 * points run on worker threads, which a __thread collector cannot see):
 * each distinct message once, in the order first said, with its count.
 * Shared by the dpg_run calls in flight (users: how many). */
static GMutex run_lock;
static guint run_users;
static GHashTable *run_counts; /* message -> count (GUINT_TO_POINTER) */
static GPtrArray *run_order;   /* the messages, first said first (owned by run_counts) */

void dpg_run_warnings_begin(void) {
  g_mutex_lock(&run_lock);
  if (run_users++ == 0) {
    run_counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    run_order = g_ptr_array_new();
  }
  g_mutex_unlock(&run_lock);
}

char *dpg_run_warnings_end(guint points) {
  g_mutex_lock(&run_lock);
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < run_order->len; i++) {
    const char *m = g_ptr_array_index(run_order, i);
    guint said = GPOINTER_TO_UINT(g_hash_table_lookup(run_counts, m));
    if (out->len > 0)
      g_string_append_c(out, '\n');
    g_string_append(out, m);
    /* Each point loads its data once: said = the points that warned. */
    if (points > 1)
      g_string_append_printf(out, " (%u of the sweep's %u points)", said, points);
  }
  if (--run_users == 0) {
    g_ptr_array_free(run_order, TRUE);
    g_hash_table_destroy(run_counts);
    run_order = NULL;
    run_counts = NULL;
  }
  g_mutex_unlock(&run_lock);
  return g_string_free(out, FALSE);
}

/* TRUE when a dpg_run in flight took @message. */
static gboolean run_take(const char *message) {
  gboolean taken = FALSE;
  g_mutex_lock(&run_lock);
  if (run_users > 0) {
    gpointer value;
    if (g_hash_table_lookup_extended(run_counts, message, NULL, &value)) {
      /* insert keeps the table's key (run_order's) and frees the copy. */
      g_hash_table_insert(run_counts, g_strdup(message),
                          GUINT_TO_POINTER(GPOINTER_TO_UINT(value) + 1));
    } else {
      char *m = g_strdup(message);
      g_hash_table_insert(run_counts, m, GUINT_TO_POINTER(1));
      g_ptr_array_add(run_order, m);
    }
    taken = TRUE;
  }
  g_mutex_unlock(&run_lock);
  return taken;
}

static void on_learn_warning(const char *message, gpointer data) {
  (void)data;
  if (collected == NULL) {
    if (!run_take(message))
      g_log(LEARN_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "warning: %s", message);
    return;
  }
  if (collected->len > 0)
    g_string_append_c(collected, '\n');
  g_string_append(collected, message);
}

void dpg_enter(void) {
  static gsize handler = 0;
  if (g_once_init_enter(&handler)) {
    learn_set_warning_handler(on_learn_warning, NULL);
    g_once_init_leave(&handler, 1);
  }
  /* Single-threaded BLAS, as cli/main.c sets it: OpenBLAS splits products
   * and factorizations differently with the thread count, which changes
   * their rounding; results must equal the command line's, whatever the
   * machine's core count. Process-wide: numpy on the same OpenBLAS runs
   * single-threaded from then on too. */
  openblas_set_num_threads(1);
}

const char *dpg_blas_note(void) {
  return sim_blas_kernel_note();
}
