/*
 * sim/topology.h: the topology changes the engine applies.
 *
 * sim_engine_notify_topology_change applies a change and tells the nodes it
 * concerns. The engine knows links only: graphs and time-varying schedules
 * are topologies/' business, which turns them into these changes.
 */
#ifndef DPG_SIM_TOPOLOGY_H
#define DPG_SIM_TOPOLOGY_H

#include "sim/base.h"

G_BEGIN_DECLS

typedef enum {
  SIM_TOPOLOGY_GRAPH,     /* the graph changed: every node is told */
  SIM_TOPOLOGY_LINK_DOWN, /* link u-v goes down (both directions); u and v are told */
  SIM_TOPOLOGY_LINK_UP,   /* link u-v comes back up; u and v are told */
} SimTopologyChangeKind;

typedef struct {
  SimTopologyChangeKind kind;
  guint32 u, v;  /* the link, for LINK_DOWN / LINK_UP */
  guint64 epoch; /* the upper layer's label, e.g. the index in a schedule */
} SimTopologyChange;

G_END_DECLS

#endif /* DPG_SIM_TOPOLOGY_H */
