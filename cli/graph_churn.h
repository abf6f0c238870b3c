/*
 * cli/graph_churn.h: internal to `dpgossip graph`: the churn statistics of
 * --schedule over --rounds (fraction online over time, session lengths).
 */
#ifndef DPG_CLI_GRAPH_CHURN_H
#define DPG_CLI_GRAPH_CHURN_H

#include <json-glib/json-glib.h>

#include "topologies/topologies.h"

G_BEGIN_DECLS

/* The statistics of schedule @spec on @g (seed @seed) over @rounds rounds
 * into *@st (topo_churn_stats_clear). Errors: the schedule's. O(n T). */
gboolean cli_graph_churn_stats(const TopoGraph *g, const char *spec, TopoGossipKind kind,
                               guint64 seed, guint rounds, TopoChurnStats *st, GError **error);
/* As lines of `graph`'s table; the fraction online at ten evenly spaced rounds. */
void cli_graph_churn_table(const TopoChurnStats *st, const char *spec);
/* As member "churn" of the object @b is building, every round's fraction. */
void cli_graph_churn_json(JsonBuilder *b, const TopoChurnStats *st, const char *spec);

G_END_DECLS

#endif
