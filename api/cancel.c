/*
 * api/cancel.c: dpg_cancel. One process-wide flag (a Python user presses
 * Ctrl-C once for whatever runs), the simulated runs in flight (their
 * runtime checks proto_run_cancel's flag at every event) and the
 * scenarios' own flag (scen_cancel).
 */
#include "api/internal.h"
#include "scenarios/scenarios.h"

static gint cancelled;
static GMutex lock;
static GPtrArray *runs; /* ProtoRun * in flight (borrowed) */

void dpg_cancel(void) {
  g_atomic_int_set(&cancelled, 1);
  scen_cancel();
  g_mutex_lock(&lock);
  for (guint i = 0; runs != NULL && i < runs->len; i++)
    proto_run_cancel(g_ptr_array_index(runs, i));
  g_mutex_unlock(&lock);
}

void dpg_cancel_reset(void) {
  g_atomic_int_set(&cancelled, 0);
  scen_cancel_reset();
}

gboolean dpg_cancelled(void) {
  return g_atomic_int_get(&cancelled) != 0;
}

const gint *dpg_cancel_flag(void) {
  return &cancelled;
}

gboolean dpg_check_cancel(GError **error) {
  if (!dpg_cancelled())
    return TRUE;
  g_set_error(error, PROTO_ERROR, PROTO_ERROR_CANCELLED, "cancelled (interrupted)");
  return FALSE;
}

void dpg_cancel_register(ProtoRun *run) {
  g_mutex_lock(&lock);
  if (runs == NULL)
    runs = g_ptr_array_new();
  g_ptr_array_add(runs, run);
  /* A cancel between the call's start and now must not be lost. */
  if (dpg_cancelled())
    proto_run_cancel(run);
  g_mutex_unlock(&lock);
}

void dpg_cancel_unregister(ProtoRun *run) {
  g_mutex_lock(&lock);
  if (runs != NULL)
    g_ptr_array_remove_fast(runs, run);
  g_mutex_unlock(&lock);
}
