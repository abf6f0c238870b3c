/*
 * api/internal.h: internal to libdpgossip: the table builder, errors as the
 * command line reports them, and the cancel registry.
 */
#ifndef DPG_API_INTERNAL_H
#define DPG_API_INTERNAL_H

#include <glib.h>

#include "api/dpgossip.h"
#include "mf/optimize.h"
#include "protocols/protocols.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

/* dpg_enter: first thing of every public call (enter.c): the command line's
 * process-wide settings (single-threaded BLAS). */
void dpg_enter(void);

/* ---- Protocol plugins (plugins.c) ---- */

typedef struct {
  ProtoPluginScope *scope;
  char *single; /* the protocol of the only plugin given, or NULL */
} DpgPlugins;

/*
 * dpg_plugins_begin: what a call that runs a protocol does first: loads
 * the plugin files @paths (NULL-terminated, nullable) and begins a plugin
 * scope (protocols.h) on the calling thread, so that the call sees the
 * built-in protocols, these plugins and those it finds through
 * $DPGOSSIP_PLUGIN_PATH, and nothing an earlier call loaded. A foreign
 * caller (Python's cffi) loads libdpgossip without RTLD_GLOBAL, so that a
 * plugin could not resolve the plugin API (protocols/plugin.h, sim/sim.h:
 * what libdpgossip.map exports besides dpg_*): the library first makes
 * itself global, once, for the life of the process (plugins stay loaded
 * too), and the plugins' host, whose installation folder is searched.
 * p->single gets the only plugin's protocol name (with exactly one path).
 * End with dpg_plugins_end on the same thread, whatever the call's outcome.
 * Errors (into @err, status 2, "plugins: " first; nothing to end then):
 * those of proto_plugin_load; the library cannot promote itself.
 * Complexity: one dlopen per plugin.
 */
gboolean dpg_plugins_begin(DpgPlugins *p, const char *const *paths, DpgError *err);
void dpg_plugins_end(DpgPlugins *p);

/* ---- Tables (table.c) ---- */

DpgTable *dpg_table_new(void);
/* Adds a column; returns its index. Values are appended row by row. */
guint dpg_table_add_col(DpgTable *t, const char *name, DpgColType type);
void dpg_table_push_int(DpgTable *t, guint col, gint64 v);
void dpg_table_push_double(DpgTable *t, guint col, double v);
void dpg_table_push_string(DpgTable *t, guint col, const char *v); /* copied; NULL: missing */
/* Closes a row: every column must have received one value. */
void dpg_table_end_row(DpgTable *t);
void dpg_table_set_attr(DpgTable *t, const char *key, const char *value);
/* The attribute "warnings": the job's warnings (proto_account_job_warnings),
 * one per line, as the command line prints them on stderr (Python warns);
 * unset when there are none. */
void dpg_table_set_job_warnings(DpgTable *t, const ProtoAccountJob *j);
/* dpg_table_set_warnings: the attribute "warnings": @first's lines (NULL or
 * "": none), then @j's (nullable) job warnings; unset when there are none. */
void dpg_table_set_warnings(DpgTable *t, const char *first, const ProtoAccountJob *j);

/* dpg_warnings_collect: the learning layer's warnings (learning.h) of this
 * thread go to @into, one a line, until called with NULL (then to GLib's
 * log, as without a front end). dpg_enter installs the handler. O(1). */
void dpg_warnings_collect(GString *into);
/* dpg_run_warnings_begin/_end: the learning layer's warnings said on any
 * thread without a dpg_warnings_collect of its own (a sweep's worker
 * threads), between the two calls, each distinct message once: _end
 * returns them one a line (g_free; "" when none), each followed by
 * " (N of the sweep's P points)" when @points > 1. Concurrent dpg_run
 * calls share one collection. O(1) per warning. */
void dpg_run_warnings_begin(void);
char *dpg_run_warnings_end(guint points);
void dpg_table_set_attr_printf(DpgTable *t, const char *key, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
/* Takes @m (g_malloc'd, rows x cols row-major). */
void dpg_table_take_matrix(DpgTable *t, double *m, guint rows, guint cols);

/* ---- Errors ---- */

/* Moves @error (taken) into @err with exit status @status; returns NULL. */
gpointer dpg_fail(DpgError *err, GError *error, int status);
/* A usage error (status 2) from a format. Returns NULL. */
gpointer dpg_usage(DpgError *err, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Exit statuses: proto_error_status and proto_refusal_status decide them,
 * for the command line as here. */

/* ---- Graphs (graph.c) ---- */

/* The graph of @spec: topo_graph_from_source, where the command line's
 * cli_graph_options_build lands too. Errors: those of
 * topo_graph_from_source. */
TopoGraph *dpg_graph_build(const DpgGraphSpec *spec, GError **error);
/* The status of a failed dpg_graph_build (cli_graph_options_status): a
 * file that cannot be loaded is a failure (1), a bad spec a usage error. */
int dpg_graph_status(const DpgGraphSpec *spec, const GError *e);
gboolean dpg_graph_gossip(const DpgGraphSpec *spec, TopoGossipKind *kind, GError **error);

/* ---- Cancellation (cancel.c) ---- */

gboolean dpg_cancelled(void);
/* The flag itself, for loops that poll it (MfOptions.cancel). */
const gint *dpg_cancel_flag(void);
/* Sets PROTO_ERROR_CANCELLED and returns FALSE when cancelled. */
gboolean dpg_check_cancel(GError **error);
/* While registered, dpg_cancel cancels @run (cancelled at once when the
 * flag is already up). */
void dpg_cancel_register(ProtoRun *run);
void dpg_cancel_unregister(ProtoRun *run);

G_END_DECLS

#endif /* DPG_API_INTERNAL_H */
