/* sim/error.c: the SIM_ERROR domain. */
#include "sim/sim.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-sim-error-quark, sim_error)
/* clang-format on */
