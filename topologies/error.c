/* topologies/error.c: the TOPO_ERROR domain. */
#include "topologies/topologies.h"

G_DEFINE_QUARK(dpgossip-topologies-error-quark, topo_error)
