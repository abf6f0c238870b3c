/* sim/error.c: the SIM_ERROR domain. */
#include "sim/sim.h"

G_DEFINE_QUARK(dpgossip-sim-error-quark, sim_error)
