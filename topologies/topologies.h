/* topologies/topologies.h: igraph-backed graphs, gossip matrices, schedules. */
#ifndef DPG_TOPOLOGIES_H
#define DPG_TOPOLOGIES_H

#include "sim/sim.h"

G_BEGIN_DECLS

#define TOPO_ERROR (topo_error_quark())
GQuark topo_error_quark(void);

G_END_DECLS

#endif /* DPG_TOPOLOGIES_H */
