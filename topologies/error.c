/* topologies/error.c: the TOPO_ERROR domain. */
#include "topologies/topologies.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-topologies-error-quark, topo_error)
/* clang-format on */
